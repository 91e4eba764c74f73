/* array.c - growing heap arrays: one overflow-checked resize and one doubling growth */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/array.h"

/* Smallest capacity array_grow() allocates. */
#define ARRAY_MIN_CAP 16

int array_resize(void *pp, size_t n, size_t elem)
{
	void *old, *q;
	size_t bytes;

	/* pp points to a T *, read and written as bytes: no void ** aliasing */
	memcpy(&old, pp, sizeof(old));
	if (elem && n > SIZE_MAX / elem)
		return -ENOMEM;
	bytes = n * elem;
	/* realloc(p, 0) may free p and return NULL: keep a valid array */
	q = realloc(old, bytes ? bytes : 1);
	if (!q)
		return -ENOMEM;
	memcpy(pp, &q, sizeof(q));
	return 0;
}

int array_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	size_t c = *cap ? *cap : ARRAY_MIN_CAP;
	int ret;

	if (need <= *cap)
		return 0;
	while (c < need) {
		if (c > SIZE_MAX / 2)
			return -ENOMEM;
		c *= 2;
	}
	ret = array_resize(pp, c, elem);
	if (ret)
		return ret;
	*cap = c;
	return 0;
}

int array_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

int array_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}
