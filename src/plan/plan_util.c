/* plan_util.c - the helpers plan*.c share: error message, allocation, searches, grouping */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void plan_group(const uint8_t *key8, const uint16_t *key16, uint64_t n, size_t nkeys,
		uint64_t *start, uint64_t *cur, uint32_t *by_key)
{
	memset(start, 0, (nkeys + 1) * sizeof(*start));
	for (uint64_t k = 0; k < n; k++)
		start[(key8 ? key8[k] : key16[k]) + 1]++;
	for (size_t i = 0; i < nkeys; i++) {
		start[i + 1] += start[i];
		cur[i] = start[i];
	}
	for (uint64_t k = 0; k < n; k++)
		by_key[cur[key8 ? key8[k] : key16[k]]++] = (uint32_t)k;
}
