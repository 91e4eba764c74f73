/* plan_util.c - the helpers plan*.c share: error message, allocation, searches */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "plan/plan.h"
#include "plan/plan_int.h"
#include "util/rng.h"

void *plan_xalloc(size_t count, size_t size)
{
	if (count == 0)
		count = 1;
	return calloc(count, size);
}

/* Index i with cum[i-1] <= u < cum[i], cum ascending, cum[len-1] ~ 1. */
size_t plan_cum_search(const double *cum, size_t len, double u)
{
	size_t lo = 0, hi = len - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u < cum[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

int plan_cmp_u32_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y) - (x > y);
}
