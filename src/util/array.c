/* array.c - growing heap arrays: one overflow-checked resize, one doubling growth, sort orders */
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
	const struct array_col col = { pp, elem };

	return array_grow_cols(&col, 1, cap, need);
}

int array_grow_cols(const struct array_col *cols, size_t n, size_t *cap, size_t need)
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
	for (size_t i = 0; i < n; i++) {
		ret = array_resize(cols[i].pp, c, cols[i].elem);
		if (ret)
			return ret;
	}
	*cap = c;
	return 0;
}

int array_slots_reserve(uint64_t **slot, size_t *cap, size_t n, size_t min,
			uint64_t (*hash)(uint64_t entry, const void *ctx), const void *ctx)
{
	size_t nc = *cap ? *cap * 2 : min, i;
	uint64_t *ns;

	if ((n + 1) * 2 <= *cap)
		return 0;
	ns = calloc(nc, sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	for (size_t k = 0; k < *cap; k++) {
		if (!(*slot)[k])
			continue;
		for (i = hash((*slot)[k], ctx) & (nc - 1); ns[i]; i = (i + 1) & (nc - 1))
			;
		ns[i] = (*slot)[k];
	}
	free(*slot);
	*slot = ns;
	*cap = nc;
	return 0;
}

int array_sort_u64(uint64_t *a, uint64_t n)
{
	uint64_t *tmp = malloc((n ? n : 1) * sizeof(*tmp));
	uint64_t *src = a, *dst = tmp;
	uint64_t *count;

	if (!tmp)
		return -ENOMEM;
	count = malloc(65536 * sizeof(*count));
	if (!count) {
		free(tmp);
		return -ENOMEM;
	}
	for (int shift = 0; shift < 64; shift += 16) {
		uint64_t sum = 0;
		int single = 0;

		memset(count, 0, 65536 * sizeof(*count));
		for (uint64_t i = 0; i < n; i++)
			count[(src[i] >> shift) & 0xFFFF]++;
		for (unsigned b = 0; b < 65536; b++) {
			uint64_t c = count[b];

			if (c == n)
				single = 1;
			count[b] = sum;
			sum += c;
		}
		if (single)
			continue;
		for (uint64_t i = 0; i < n; i++)
			dst[count[(src[i] >> shift) & 0xFFFF]++] = src[i];
		uint64_t *t = src;

		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	free(count);
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

int array_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int array_cmp_keyed(const void *a, const void *b)
{
	const struct array_keyed *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}
