/* tree.c - the generative directory tree, built in O(n log n) with a Fenwick tree */
#include <errno.h>
#include <stdlib.h>

#include "util/rng.h"
#include "model/dist.h"
#include "model/tree.h"

/* The root of a tree of ndirs directories; 1 when it is the whole tree (or there is none). */
static int tree_root(uint32_t ndirs, uint32_t *parent, uint8_t *depth)
{
	if (ndirs == 0)
		return 1;
	parent[0] = 0;
	depth[0] = 0;
	return ndirs == 1;
}

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

	if (tree_root(ndirs, parent, depth))
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

/*
 * Quotas of directories by depth: the root alone at 0, the others by
 * share[1..nshare-1]; a level left empty ends the tree, the directories
 * below it moving up to the last level that has some.
 */
static void depth_quotas(uint32_t ndirs, const double *share, unsigned nshare, uint64_t *q)
{
	unsigned last = 1;

	quotas_from_probs(share + 1, nshare - 1, ndirs - 1, q + 1);
	q[0] = 1;
	while (last + 1 < nshare && q[last] && q[last + 1])
		last++;
	for (unsigned d = last + 1; d < nshare; d++) {
		q[last] += q[d];
		q[d] = 0;
	}
}

int tree_build_depths(uint64_t seed, uint32_t ndirs, const double *share, unsigned nshare,
		      uint32_t *parent, uint8_t *depth)
{
	uint64_t q[UINT8_MAX + 1] = { 0 };
	uint32_t *urn, prev_lo = 0, prev_n = 1, id = 1;
	struct rng r;

	if (tree_root(ndirs, parent, depth))
		return 0;
	if (nshare < 2 || nshare > UINT8_MAX + 1)
		return -EINVAL;
	depth_quotas(ndirs, share, nshare, q);
	/* each level's parents in an urn: twice each, once more per child drawn */
	urn = malloc(((size_t)ndirs * 3 + 2) * sizeof(*urn));
	if (!urn)
		return -ENOMEM;
	rng_init(&r, seed, "tree.depth", 0);
	for (unsigned d = 1; d < nshare && q[d]; d++) {
		uint64_t len = 0;

		for (uint32_t k = 0; k < prev_n; k++) {
			urn[len++] = prev_lo + k;
			urn[len++] = prev_lo + k;
		}
		for (uint64_t k = 0; k < q[d]; k++, id++) {
			uint32_t p = urn[rng_below(&r, len)];

			parent[id] = p;
			depth[id] = (uint8_t)d;
			urn[len++] = p;
		}
		prev_lo = id - (uint32_t)q[d];
		prev_n = (uint32_t)q[d];
	}
	free(urn);
	return 0;
}
