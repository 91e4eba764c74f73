/* tree.c - the generative directory tree, built in O(n log n) with a Fenwick tree */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "util/rng.h"
#include "model/dist.h"
#include "model/tree.h"
#include "util/util.h"

/* The root of a tree of ndirs directories; 1 when it is the whole tree (or there is none). */
static int tree_root(uint32_t ndirs, uint32_t *parent, uint8_t *depth)
{
	if (ndirs == 0)
		return 1;
	parent[0] = 0;
	depth[0] = 0;
	return ndirs == 1;
}

static int cmp_u32_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y) - (x > y);
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

/*
 * The subdirectory counts of nd directories: largest-remainder quotas of
 * the table, largest first, then the largest ones raised or lowered until
 * they sum to want.  c gets nd entries, descending.
 */
static int subdir_counts(uint32_t nd, uint64_t want, const uint32_t *n, const double *share,
			 unsigned nsh, uint32_t *c)
{
	uint64_t *q = malloc(nsh * sizeof(*q)), sum = 0, j = 0;

	if (!q)
		return -ENOMEM;
	quotas_from_probs(share, nsh, nd, q);
	for (unsigned i = nsh; i-- > 0;)
		for (uint64_t k = 0; k < q[i]; k++, j++) {
			c[j] = n[i];
			sum += n[i];
		}
	free(q);
	if (sum < want)
		c[0] += (uint32_t)(want - sum);
	for (uint32_t i = 0; sum > want && i < nd; i++) {
		uint64_t cut = MIN(c[i], sum - want);

		c[i] -= (uint32_t)cut;
		sum -= cut;
	}
	qsort(c, nd, sizeof(*c), cmp_u32_desc);
	return 0;
}

/*
 * Without a depth table: the counts shuffled, then in the one rotation
 * that makes a tree in breadth-first order (the cycle lemma: the one after
 * the first minimum of the walk of count - 1), given to the directories in
 * id order, each taking the next ids as its children.
 */
static int subdirs_bfs(uint64_t seed, uint32_t nd, uint32_t *c, uint32_t *parent, uint8_t *depth)
{
	int64_t walk = 0, low = INT64_MAX;
	uint32_t first = 0, next = 1;

	rng_shuffle_u32(c, nd, rng_stream_key(seed, "tree.subdirs"), 0);
	for (uint32_t i = 0; i < nd; i++) {
		walk += (int64_t)c[i] - 1;
		if (walk < low) {
			low = walk;
			first = i;
		}
	}
	for (uint32_t k = 0; k < nd && next < nd; k++) {
		uint32_t cnt = c[(first + 1 + k) % nd];

		for (uint32_t i = 0; i < cnt && next < nd; i++, next++) {
			if (depth[k] == UINT8_MAX)
				return -E2BIG;
			parent[next] = k;
			depth[next] = depth[k] + 1;
		}
	}
	return 0;
}

/*
 * With a depth table: the root takes the first level as its children; the
 * counts of the others (nd - 1 of them), largest first, go to the level whose
 * unmet need (directories of the next level) per directory still to get
 * subdirectories is highest among those they do not overshoot (else the
 * largest need); a level has as many directories with subdirectories as
 * its leaf share leaves (all, without one).  A level's remaining need is
 * then put on its largest count, or taken from its largest ones (down to
 * 1 first, so that its leaves stay as many).
 */
static void subdirs_to_levels(const uint32_t *c, uint32_t nd, const uint64_t *q, unsigned nl,
			      const struct tree_shape *sh, const uint64_t *start, uint32_t *bucket)
{
	uint64_t fill[UINT8_MAX + 1], k[UINT8_MAX + 1];
	int64_t need[UINT8_MAX + 1];

	bucket[0] = (uint32_t)q[1];
	for (unsigned d = 0; d < nl; d++) {
		fill[d] = start[d] + !d;
		need[d] = d && d + 1 < nl ? (int64_t)q[d + 1] : 0;
		k[d] = d < sh->nleaves ? (uint64_t)llround((1 - sh->leaves[d]) * (double)q[d]) : q[d];
		k[d] = MIN(k[d], MIN(q[d], (uint64_t)need[d]));
		if (need[d] > 0 && k[d] == 0)
			k[d] = 1;
	}
	for (uint32_t i = 0; i + 1 < nd; i++) {
		int best = -1, most = -1;
		double best_avg = 0;

		for (unsigned d = 1; d < nl; d++) {
			uint64_t used = fill[d] - start[d];
			double avg;

			if (used == q[d] || (c[i] && used >= k[d]))
				continue;
			if (most < 0 || need[d] > need[most])
				most = (int)d;
			if (c[i] == 0 || need[d] < (int64_t)c[i])
				continue;
			avg = (double)need[d] / (double)(k[d] - used);
			if (best < 0 || avg > best_avg) {
				best = (int)d;
				best_avg = avg;
			}
		}
		if (best < 0)
			best = most;
		if (best < 0) {
			/* no level takes another directory with subdirectories: a leaf */
			for (best = 1; fill[best] == start[best] + q[best]; best++)
				;
			bucket[fill[best]++] = 0;
			continue;
		}
		bucket[fill[best]++] = c[i];
		need[best] -= c[i];
	}
	for (unsigned d = 1; d < nl; d++) {
		uint32_t *b = bucket + start[d];

		if (need[d] > 0)
			b[0] += (uint32_t)need[d];
		/* too many: from the largest, keeping each at 1 (a level's leaves stay) then not */
		for (uint32_t keep = 1; keep + 1 > 0 && need[d] < 0; keep--)
			for (uint64_t i = 0; i < q[d] && need[d] < 0; i++) {
				uint32_t cut = b[i] > keep ? (uint32_t)MIN((int64_t)(b[i] - keep),
									   -need[d]) : 0;

				b[i] -= cut;
				need[d] += cut;
			}
	}
}

int tree_build_subdirs(uint64_t seed, uint32_t ndirs, const struct tree_shape *sh,
		       uint32_t *parent, uint8_t *depth)
{
	uint64_t q[UINT8_MAX + 1] = { 0 }, start[UINT8_MAX + 2] = { 0 };
	uint32_t *c, *bucket = NULL, id = 1;
	unsigned nl = 0;
	int ret;

	if (tree_root(ndirs, parent, depth))
		return 0;
	if (sh->nsh == 0 || (sh->ndshare && (sh->ndshare < 2 || sh->ndshare > UINT8_MAX + 1)))
		return -EINVAL;
	c = malloc(ndirs * sizeof(*c));
	if (!c)
		return -ENOMEM;
	if (sh->ndshare) {
		depth_quotas(ndirs, sh->dshare, sh->ndshare, q);
		while (nl < sh->ndshare && q[nl])
			nl++;
	}
	if (nl < 2) {
		ret = subdir_counts(ndirs, ndirs - 1, sh->n, sh->share, sh->nsh, c);
		if (!ret)
			ret = subdirs_bfs(seed, ndirs, c, parent, depth);
		goto out_free;
	}
	/* the root's children are the first level; the others share the rest */
	ret = subdir_counts(ndirs - 1, ndirs - 1 - q[1], sh->n, sh->share, sh->nsh, c);
	if (ret)
		goto out_free;
	for (unsigned d = 0; d < nl; d++)
		start[d + 1] = start[d] + q[d];
	bucket = malloc(ndirs * sizeof(*bucket));
	ret = -ENOMEM;
	if (!bucket)
		goto out_free;
	subdirs_to_levels(c, ndirs, q, nl, sh, start, bucket);
	/* level d's counts to its directories at random; level d + 1 takes them as parents */
	for (unsigned d = 0; d + 1 < nl; d++) {
		rng_shuffle_u32(bucket + start[d], q[d], rng_stream_key(seed, "tree.subdirs"), d);
		for (uint64_t j = 0; j < q[d]; j++)
			for (uint32_t i = 0; i < bucket[start[d] + j]; i++, id++) {
				parent[id] = (uint32_t)(start[d] + j);
				depth[id] = (uint8_t)(d + 1);
			}
	}
	ret = id == ndirs ? 0 : -EINVAL;
out_free:
	free(c);
	free(bucket);
	return ret;
}
