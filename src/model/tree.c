/* tree.c - the generative directory tree, built in O(n log n) with a Fenwick tree */
#include <errno.h>
#include <stdlib.h>

#include "util/rng.h"
#include "model/tree.h"

/* Fenwick tree over 1-based positions holding 64-bit weights. */
struct fenwick {
	uint64_t *t;
	uint32_t n;
	uint32_t top;   /* highest power of two <= n */
};

static void fenwick_add(struct fenwick *f, uint32_t pos, uint64_t v)
{
	for (uint32_t i = pos + 1; i <= f->n; i += i & -i)
		f->t[i] += v;
}

/* Smallest position whose prefix sum exceeds target (target < total). */
static uint32_t fenwick_find(const struct fenwick *f, uint64_t target)
{
	uint32_t pos = 0;

	for (uint32_t step = f->top; step; step >>= 1) {
		uint32_t next = pos + step;

		if (next <= f->n && f->t[next] <= target) {
			pos = next;
			target -= f->t[next];
		}
	}
	return pos; /* 0-based position */
}

int tree_build(uint64_t seed, uint32_t ndirs, uint32_t *parent, uint8_t *depth)
{
	struct fenwick f;
	struct rng r;
	uint64_t total = 0;
	int ret = 0;

	if (ndirs == 0)
		return 0;
	parent[0] = 0;
	depth[0] = 0;
	if (ndirs == 1)
		return 0;

	f.n = ndirs;
	f.t = calloc((size_t)ndirs + 1, sizeof(*f.t));
	if (!f.t)
		return -ENOMEM;
	f.top = 1;
	while (f.top <= f.n / 2)
		f.top <<= 1;

	rng_init(&r, seed, "tree", 0);
	fenwick_add(&f, 0, 2);
	total = 2;
	for (uint32_t i = 1; i < ndirs; i++) {
		uint32_t p = fenwick_find(&f, rng_below(&r, total));

		if (depth[p] == UINT8_MAX) {
			ret = -E2BIG;
			goto out_free_fenwick;
		}
		parent[i] = p;
		depth[i] = depth[p] + 1;
		fenwick_add(&f, p, 1);  /* one more subdirectory */
		fenwick_add(&f, i, 2);  /* the new, empty directory */
		total += 3;
	}
out_free_fenwick:
	free(f.t);
	return ret;
}
