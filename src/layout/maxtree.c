/* maxtree.c - a max tree over n values: update one, find the first from an index holding at least v */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/maxtree.h"

static int64_t max_i64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

int maxtree_init(struct maxtree *mt, size_t n, int64_t fill)
{
	mt->size = 1;
	while (mt->size < n)
		mt->size <<= 1;
	mt->t = malloc(2 * mt->size * sizeof(*mt->t));
	if (!mt->t)
		return -ENOMEM;
	for (size_t k = 0; k < 2 * mt->size; k++)
		mt->t[k] = fill;
	return 0;
}

void maxtree_release(struct maxtree *mt)
{
	free(mt->t);
	memset(mt, 0, sizeof(*mt));
}

void maxtree_set(struct maxtree *mt, size_t i, int64_t v)
{
	size_t k = mt->size + i;

	mt->t[k] = v;
	for (k >>= 1; k; k >>= 1) {
		int64_t m = max_i64(mt->t[2 * k], mt->t[2 * k + 1]);

		if (mt->t[k] == m)
			break;
		mt->t[k] = m;
	}
}

void maxtree_put(struct maxtree *mt, size_t i, int64_t v)
{
	mt->t[mt->size + i] = v;
}

void maxtree_rebuild(struct maxtree *mt)
{
	for (size_t k = mt->size - 1; k; k--)
		mt->t[k] = max_i64(mt->t[2 * k], mt->t[2 * k + 1]);
}

/* The first leaf in [lo, hi) at least v below node k, which covers leaves [kl, kr). */
static size_t find(const struct maxtree *mt, size_t k, size_t kl, size_t kr, size_t lo, size_t hi,
		   int64_t v)
{
	size_t mid, r;

	if (kr <= lo || hi <= kl || mt->t[k] < v)
		return SIZE_MAX;
	if (kr - kl == 1)
		return kl;
	mid = kl + (kr - kl) / 2;
	r = find(mt, 2 * k, kl, mid, lo, hi, v);
	if (r != SIZE_MAX)
		return r;
	return find(mt, 2 * k + 1, mid, kr, lo, hi, v);
}

size_t maxtree_first(const struct maxtree *mt, size_t lo, size_t hi, int64_t v)
{
	if (lo >= hi)
		return SIZE_MAX;
	return find(mt, 1, 0, mt->size, lo, hi, v);
}

size_t maxtree_argmax(const struct maxtree *mt)
{
	size_t k = 1;

	while (k < mt->size)
		k = mt->t[2 * k] >= mt->t[2 * k + 1] ? 2 * k : 2 * k + 1;
	return k - mt->size;
}
