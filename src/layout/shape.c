/* shape.c - the free space's shape: gaps between files, built again until the free extents match */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "layout/arith.h"
#include "layout/grow.h"
#include "layout/place.h"
#include "layout/shape.h"
#include "util/rng.h"

/*
 * Gaps.  free_frag_share > 0 leaves free gaps between consecutive files so
 * that the free extents below free_chunk hold that share of the free
 * space: gap sizes follow a density ~ size^-free_gap_shape on
 * [free_gap_min, free_chunk), split into power-of-two buckets by exact
 * block quotas (stream "layout.gaps"), shuffled, and spread evenly over
 * the files.  A gap is skipped at the packing cursor only when the next
 * file fits right after it, so it is bounded by data on both sides and
 * keeps its size.  The build runs again (at most five more times) with
 * the quotas corrected by what the previous build measured per bucket
 * (free extents the packing leaves by itself count too).  Gaps are never
 * handed out, so the image holds only real files.
 */

/* Blocks a density x^-a puts in [lo, hi), up to a constant. */
static double shape_mass(double a, double lo, double hi)
{
	if (fabs(a - 2) < 1e-9)
		return log(hi / lo);
	return (pow(hi, 2 - a) - pow(lo, 2 - a)) / (2 - a);
}

/* A size in [lo, hi) from the density x^-a. */
static double shape_draw(double a, double lo, double hi, double u)
{
	if (fabs(a - 1) < 1e-9)
		return lo * pow(hi / lo, u);
	return pow(pow(lo, 1 - a) + u * (pow(hi, 1 - a) - pow(lo, 1 - a)), 1 / (1 - a));
}

/*
 * Gap sizes for the block quota of each bucket (want[b]), shuffled, into
 * *gap (allocated).  Returns the count, or -ENOMEM.
 */
static int64_t gaps_make(const double *want, unsigned b0, unsigned b1, uint64_t gmin, uint64_t c,
			 double a, uint64_t seed, unsigned pass, uint64_t **gap, uint64_t *total)
{
	uint64_t key = rng_stream_key(seed, "layout.gaps"), n = 0, *g, *grown;
	size_t cap = 1024;

	*total = 0;
	g = malloc(cap * sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (unsigned bk = b0; bk <= b1; bk++) {
		double lo = fmax((double)(UINT64_C(1) << bk), (double)gmin);
		double hi = fmin((double)(UINT64_C(1) << (bk + 1)), (double)c);
		double left = want[bk];
		struct rng r;

		if (hi <= lo)
			continue;
		rng_open(&r, key, (uint64_t)pass << 8 | bk);
		while (left >= lo) {
			uint64_t x = (uint64_t)shape_draw(a, lo, hi, rng_uniform(&r));

			if (x < (uint64_t)lo)
				x = (uint64_t)lo;
			if ((double)x >= hi)
				x = (uint64_t)ceil(hi) - 1;
			if ((double)x > left)
				x = (uint64_t)left;
			grown = grow_array(g, &cap, n + 1, sizeof(*g), 1024);
			if (!grown) {
				free(g);
				return -ENOMEM;
			}
			g = grown;
			g[n++] = x;
			*total += x;
			left -= (double)x;
		}
	}
	/* Fisher-Yates, one stream */
	{
		struct rng r;

		rng_open(&r, key, (uint64_t)pass << 8 | 0xff);
		for (uint64_t i = n; i > 1; i--) {
			uint64_t j = rng_below(&r, i), t = g[i - 1];

			g[i - 1] = g[j];
			g[j] = t;
		}
	}
	*gap = g;
	return (int64_t)n;
}

/*
 * The blocks each bucket b0..b1 of the free space should hold (target):
 * free_frag_share of the free space h measured, spread by the gap size
 * density; and what gaps must add to what the packing left (want).
 */
static void shape_targets(const struct layout_request *rq, const struct layout_free_hist *h,
			  uint64_t gmin, uint64_t c, unsigned b0, unsigned b1, double *target,
			  double *want)
{
	double a = rq->free_gap_shape, mass = 0, T;

	for (unsigned bk = b0; bk <= b1; bk++) {
		double l = fmax((double)(UINT64_C(1) << bk), (double)gmin);
		double u = fmin((double)(UINT64_C(1) << (bk + 1)), (double)c);

		target[bk] = u > l ? shape_mass(a, l, u) : 0;
		mass += target[bk];
	}
	T = rq->free_frag_share * (double)h->free_blocks;
	for (unsigned bk = b0; bk <= b1; bk++) {
		target[bk] = mass > 0 ? T * target[bk] / mass : 0;
		want[bk] = fmax(0, target[bk] - (double)h->blocks[bk]);
	}
}

/* How far h is from target over buckets 0..b1: the sum, and the worst bucket in *worst. */
static double shape_error(const struct layout_free_hist *h, const double *target, unsigned b1,
			  double *worst)
{
	double err = 0;

	*worst = 0;
	for (unsigned bk = 0; bk < b1 + 1; bk++) {
		err += fabs((double)h->blocks[bk] - target[bk]);
		*worst = fmax(*worst, fabs((double)h->blocks[bk] - target[bk]));
	}
	return err;
}

int shape_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
		uint64_t *need)
{
	uint64_t bs = rq->block_size, chunk = rq->free_chunk ? rq->free_chunk : 1 << 20;
	uint64_t c = chunk / bs, gmin = rq->free_gap_min ? div_up(rq->free_gap_min, bs) : 1;
	double a = rq->free_gap_shape, target[LAYOUT_HIST_BUCKETS] = { 0 };
	double want[LAYOUT_HIST_BUCKETS] = { 0 }, best_err = INFINITY, best_worst = 0;
	double best_small = 0;
	struct layout_free_hist h;
	struct layout cur;
	unsigned b0, b1;
	int ret, have = 0;

	ret = place_once(lo, rq, fm, need, NULL, 0, 0);
	if (ret)
		return ret;
	if (c < 2 || gmin >= c) {
		/* no free extent can be smaller than a chunk and at least a gap */
		lo->notes |= LAYOUT_NOTE_FREE;
		return 0;
	}
	ret = layout_free_hist(lo, rq, fm, chunk, &h);
	if (ret)
		goto out_release;
	b0 = ilog2(gmin);
	b1 = ilog2(c - 1);
	shape_targets(rq, &h, gmin, c, b0, b1, target, want);

	for (unsigned pass = 0; pass < 6; pass++) {
		uint64_t *gap = NULL, total, spare;
		int64_t n;
		double err, worst;

		n = gaps_make(want, b0, b1, gmin, c, a, rq->seed, pass, &gap, &total);
		if (n < 0) {
			ret = (int)n;
			goto out_release;
		}
		/* gaps take free space the placement could have used: keep some spare */
		spare = h.free_blocks > lo->pool_len ? h.free_blocks - lo->pool_len : 0;
		if (total > spare - spare / 50) {
			free(gap);
			lo->notes |= LAYOUT_NOTE_FREE;
			break;
		}
		ret = place_once(&cur, rq, fm, NULL, gap, (size_t)n, total);
		free(gap);
		if (ret == -ENOSPC) {
			/* the gaps crowded the files out: keep what there is */
			lo->notes |= LAYOUT_NOTE_FREE;
			break;
		}
		if (ret)
			goto out_release;
		ret = layout_free_hist(&cur, rq, fm, chunk, &h);
		if (ret) {
			layout_release(&cur);
			goto out_release;
		}
		err = shape_error(&h, target, b1, &worst);
		if (err < best_err) {
			best_err = err;
			best_worst = worst / (double)h.free_blocks;
			best_small = (double)h.small_blocks / (double)h.free_blocks;
			layout_release(lo);
			*lo = cur;
			have = 1;
		} else {
			layout_release(&cur);
		}
		if (err <= 0.002 * (double)h.free_blocks)
			break;
		for (unsigned bk = b0; bk <= b1; bk++)
			want[bk] = fmax(0, want[bk] - ((double)h.blocks[bk] - target[bk]));
	}
	/* the stated tolerance: each bucket and the small share within 0.005 of the free space */
	lo->free_small_share = have		   ? best_small :
			       h.free_blocks ? (double)h.small_blocks / (double)h.free_blocks :
					       0;
	if (have) {
		lo->notes &= ~LAYOUT_NOTE_FREE;
		if (best_worst > 0.005 || fabs(best_small - rq->free_frag_share) > 0.005)
			lo->notes |= LAYOUT_NOTE_FREE;
	} else {
		lo->notes |= LAYOUT_NOTE_FREE;
	}
	return 0;

out_release:
	layout_release(lo);
	return ret;
}
