/* test_measure.c - the measurement's arithmetic: layout score, fragments, holes, free-extent histogram, quantiles */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <math.h>

#include "model/dist.h"
#include "analysis/measure.h"
#include "analysis/profile.h"
#include "util/rng.h"

#define RUN(l, p, n) { (l), (p), (n), 0 }

static void test_log2(void **state)
{
	(void)state;
	assert_int_equal(measure_log2(0), 0);
	assert_int_equal(measure_log2(1), 0);
	assert_int_equal(measure_log2(2), 1);
	assert_int_equal(measure_log2(3), 1);
	assert_int_equal(measure_log2(4), 2);
	assert_int_equal(measure_log2(1023), 9);
	assert_int_equal(measure_log2(1024), 10);
	assert_int_equal(measure_log2(UINT64_MAX), 63);
}

static void test_layout_contiguous(void **state)
{
	struct measure_layout l = { 0 };
	/* ext4 splits a long run into extents of 32768 blocks: still one fragment */
	const struct fsread_extent a[] = { RUN(0, 1000, 32768), RUN(32768, 33768, 100) };
	const struct fsread_extent one[] = { RUN(0, 50, 1) };

	(void)state;
	assert_int_equal(measure_layout_add(&l, a, 2), 1);
	assert_int_equal(measure_layout_add(&l, one, 1), 1);
	assert_int_equal(measure_layout_add(&l, NULL, 0), 0);
	assert_int_equal(l.files, 1);             /* only the file of two or more blocks */
	assert_int_equal(l.pairs, 32867);
	assert_int_equal(l.contiguous, 32867);
	assert_int_equal(l.fragmented, 0);
	assert_int_equal(l.fragments, 2);
	assert_int_equal(l.per_file[0], 1);
	assert_int_equal(l.per_file[1], 2);
	assert_true(measure_layout_score(&l) == 1.0);
}

static void test_layout_fragmented(void **state)
{
	struct measure_layout l = { 0 };
	/* 10 blocks in 3 pieces: 9 pairs, 7 contiguous */
	const struct fsread_extent f[] = { RUN(0, 100, 4), RUN(4, 200, 3), RUN(7, 50, 3) };
	/* 4 blocks, 2 pieces: 3 pairs, 2 contiguous */
	const struct fsread_extent g[] = { RUN(0, 10, 2), RUN(2, 20, 2) };

	(void)state;
	assert_int_equal(measure_layout_add(&l, f, 3), 3);
	assert_int_equal(measure_layout_add(&l, g, 2), 2);
	assert_int_equal(l.pairs, 12);
	assert_int_equal(l.contiguous, 9);
	assert_int_equal(l.files, 2);
	assert_int_equal(l.fragmented, 2);
	assert_int_equal(l.frag_fragments, 5);
	assert_int_equal(l.frag_blocks, 14);
	assert_int_equal(l.max_fragments, 3);
	assert_int_equal(l.per_file[2], 1);
	assert_int_equal(l.per_file[3], 1);
	/* fragment sizes 4, 3, 3, 2, 2: buckets [2,4) x4, [4,8) x1 */
	assert_int_equal(l.frag_size[1], 4);
	assert_int_equal(l.frag_size[2], 1);
	assert_true(measure_layout_score(&l) == 9.0 / 12.0);
}

static void test_layout_adjacent_across_a_hole(void **state)
{
	struct measure_layout l = { 0 };
	/* a logical hole, but the blocks follow each other on disk: one fragment */
	const struct fsread_extent h[] = { RUN(0, 100, 2), RUN(10, 102, 2) };

	(void)state;
	assert_int_equal(measure_layout_add(&l, h, 2), 1);
	assert_int_equal(l.pairs, 3);
	assert_int_equal(l.contiguous, 3);
	assert_int_equal(l.fragmented, 0);
}

static void test_layout_empty(void **state)
{
	struct measure_layout l = { 0 };

	(void)state;
	assert_true(measure_layout_score(&l) == 1.0);
}

static void test_free_hist(void **state)
{
	struct measure_free f;
	/* 4 KiB blocks, 256-block (1 MiB) chunks, 2048 blocks */
	const struct fsread_extent r[] = {
		RUN(0, 10, 1),      /* bucket 0 */
		RUN(0, 20, 3),      /* bucket 1 */
		RUN(0, 100, 700),   /* bucket 9: 100..799 holds chunk 1 (256..511) and 2 (512..767) */
		RUN(0, 1792, 256),  /* bucket 8: exactly chunk 7, the last whole one */
	};

	(void)state;
	assert_int_equal(measure_free_hist(r, 4, 2048, 0, 256, &f), 0);
	assert_int_equal(f.extents, 4);
	assert_int_equal(f.free_blocks, 960);
	assert_int_equal(f.count[0], 1);
	assert_int_equal(f.count[1], 1);
	assert_int_equal(f.count[8], 1);
	assert_int_equal(f.count[9], 1);
	assert_int_equal(f.blocks[9], 700);
	assert_int_equal(f.min_len, 1);
	assert_int_equal(f.max_len, 700);
	assert_int_equal(f.free_chunks, 3);
	/* e2freefrag's count: (blocks + chunk) / chunk */
	assert_int_equal(f.total_chunks, 9);
	assert_int_equal(f.small_blocks, 4);
}

static void test_free_hist_edges(void **state)
{
	struct measure_free f;
	/* 1 KiB blocks: block 0 is not free, so chunk 0 never is */
	const struct fsread_extent a[] = { RUN(0, 1, 2047) };
	/* the last, partial chunk never counts */
	const struct fsread_extent b[] = { RUN(0, 1024, 1000) };
	const struct fsread_extent bad[] = { RUN(0, 10, 5), RUN(0, 12, 5) };
	const struct fsread_extent out[] = { RUN(0, 2000, 100) };

	(void)state;
	assert_int_equal(measure_free_hist(a, 1, 2048, 1, 1024, &f), 0);
	assert_int_equal(f.free_chunks, 1);
	assert_int_equal(measure_free_hist(b, 1, 2024, 0, 1024, &f), 0);
	assert_int_equal(f.free_chunks, 0);
	assert_int_equal(f.small_blocks, 1000);
	assert_int_equal(measure_free_hist(bad, 2, 2048, 0, 256, &f), -EINVAL);
	assert_int_equal(measure_free_hist(out, 1, 2048, 0, 256, &f), -EINVAL);
	assert_int_equal(measure_free_hist(a, 1, 2048, 0, 0, &f), -EINVAL);
	assert_int_equal(measure_free_hist(NULL, 0, 2048, 0, 256, &f), 0);
	assert_int_equal(f.extents, 0);
	assert_int_equal(f.min_len, 0);
}

static void test_quantile(void **state)
{
	const int64_t v[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	/* the first n of v, the quantile q, the value expected */
	static const struct {
		size_t n;
		double q;
		int64_t want;
	} cases[] = {
		{ 10, 0.5, 5 },	 { 10, 0.51, 6 }, { 10, 0.1, 1 }, { 10, 0.0, 1 },
		{ 10, 1.0, 10 }, { 1, 0.5, 1 },	  { 0, 0.5, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(measure_quantile(v, cases[i].n, cases[i].q), cases[i].want);
}

/* A regular file of size bytes with extents x[0..n-1]. */
static struct fsread_entry file_entry(uint64_t size, const struct fsread_extent *x, size_t n)
{
	static const struct fsread_extent none[1];
	struct fsread_entry e = { .type = FSREAD_FILE, .size = size };

	e.extents = x ? x : none;
	e.nextents = n;
	return e;
}

/*
 * Holes: the blocks of i_size rounded up to blocks that no extent maps,
 * leading, inner and trailing; unwritten extents are mapped; inline data,
 * unknown extents and other types have none.
 */
static void test_hole_blocks(void **state)
{
	const struct fsread_extent inner[] = { RUN(0, 100, 2), RUN(5, 107, 3), RUN(10, 300, 6) };
	const struct fsread_extent lead[] = { RUN(3, 100, 1) };
	const struct fsread_extent past[] = { RUN(0, 100, 2), RUN(2, 400, 10) };
	const struct fsread_extent overlap[] = { RUN(0, 100, 4), RUN(2, 400, 4) };
	const struct fsread_extent unwritten[] = { { 0, 100, 4, FSREAD_EXTENT_UNWRITTEN } };
	struct fsread_entry e;

	(void)state;
	/* 16 blocks: 3 + 2 inside */
	e = file_entry(16 * 4096, inner, 3);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 5);
	/* a partial last block is a block: 17, the last one a trailing hole */
	e = file_entry(16 * 4096 + 1, inner, 3);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 6);
	/* 1 KiB blocks: the same extents read as 1 KiB blocks, 64 of them */
	e = file_entry(16 * 4096, inner, 3);
	assert_int_equal(fsread_hole_blocks(&e, 1024), 64 - 11);
	e = file_entry(4 * 4096, lead, 1);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 3);
	/* nothing mapped: every block a hole */
	e = file_entry(1 << 20, NULL, 0);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 256);
	/* extents past i_size (preallocated) fill it; they do not count beyond */
	e = file_entry(5 * 4096, past, 2);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 0);
	e = file_entry(8 * 4096, overlap, 2);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 2);
	e = file_entry(4 * 4096, unwritten, 1);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 0);
	e = file_entry(0, NULL, 0);
	assert_int_equal(fsread_hole_blocks(&e, 4096), 0);
	e = file_entry(100, NULL, 0);
	e.inline_data = 1;
	assert_int_equal(fsread_hole_blocks(&e, 4096), 0);
	e = file_entry(1 << 20, NULL, 0);
	e.extents_unknown = 1;
	assert_int_equal(fsread_hole_blocks(&e, 4096), 0);
	e = file_entry(1 << 20, NULL, 0);
	e.extents = NULL;
	assert_int_equal(fsread_hole_blocks(&e, 4096), 0);
	e = file_entry(1 << 20, NULL, 0);
	e.type = FSREAD_DIR;
	assert_int_equal(fsread_hole_blocks(&e, 4096), 0);
}

/*
 * The holes as runs, in order, and data the kernel has not placed yet
 * (delayed allocation) is no hole: 16 blocks mapped at 0-1, 5-7 and
 * 10-15, blocks 2-3 written but unplaced, leaves 4 and 8-9; 17 blocks
 * add 16.
 */
static void test_holes_runs(void **state)
{
	const struct fsread_extent x[] = { RUN(0, 100, 2), RUN(5, 107, 3), RUN(10, 300, 6) };
	const struct fsread_extent dirty[] = { RUN(2, 0, 2) };
	struct fsread_extent *runs = NULL;
	struct fsread_entry e = file_entry(16 * 4096, x, 3);
	size_t cap = 0;

	(void)state;
	assert_int_equal(fsread_holes(&e, 4096, &runs, &cap), 2);
	assert_int_equal(runs[0].logical, 2);
	assert_int_equal(runs[0].len, 3);
	assert_int_equal(runs[1].logical, 8);
	assert_int_equal(runs[1].len, 2);
	e.unplaced = dirty;
	e.nunplaced = 1;
	assert_int_equal(fsread_hole_blocks(&e, 4096), 3);
	assert_int_equal(fsread_holes(&e, 4096, &runs, &cap), 2);
	assert_int_equal(runs[0].logical, 4);
	assert_int_equal(runs[0].len, 1);
	assert_int_equal(runs[1].logical, 8);
	assert_int_equal(runs[1].len, 2);
	e.size = 16 * 4096 + 1;
	assert_int_equal(fsread_holes(&e, 4096, &runs, &cap), 3);
	assert_int_equal(runs[2].logical, 16);
	assert_int_equal(runs[2].len, 1);
	/* nothing mapped, all unplaced: no hole */
	e = file_entry(4 * 4096, NULL, 0);
	e.unplaced = (const struct fsread_extent[]){ RUN(0, 0, 4) };
	e.nunplaced = 1;
	assert_int_equal(fsread_holes(&e, 4096, &runs, &cap), 0);
	free(runs);
}

static int cmp_size(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* n sizes of the hybrid law, sorted */
static uint64_t *hybrid_sample(double mu, double sigma, double w, double xm, double k, size_t n)
{
	struct size_model m;
	uint64_t *v = malloc(n * sizeof(*v));
	struct rng r;

	assert_non_null(v);
	assert_int_equal(size_model_init(&m, mu, sigma, w, xm, k, 1e13), 0);
	rng_init(&r, 7, "profile-fit", 0);
	for (size_t i = 0; i < n; i++)
		v[i] = size_model_bytes(&m, rng_uniform(&r));
	qsort(v, n, sizeof(*v), cmp_size);
	return v;
}

/*
 * The hybrid's maximum likelihood finds the law a sample was drawn from
 * (the body within 0.05, the tail's weight within 20% and shape within
 * 0.15); a lognormal sample gets no real tail; an empty one is refused.
 */
static void test_profile_fit(void **state)
{
	struct profile_size_fit f;
	size_t n = 200000;
	uint64_t *v = hybrid_sample(8.5, 2.0, 0.02, 4e6, 1.1, n);

	(void)state;
	assert_int_equal(profile_fit_sizes(v, n, &f), 0);
	print_message("fit: mu %.4f sigma %.4f w %.5f xm %.0f k %.4f\n", f.mu, f.sigma,
		      f.tail_weight, f.xm, f.shape);
	assert_true(fabs(f.mu - 8.5) < 0.05 && fabs(f.sigma - 2.0) < 0.05);
	assert_true(fabs(f.tail_weight / 0.02 - 1) < 0.2 && fabs(f.shape - 1.1) < 0.15);
	free(v);
	v = hybrid_sample(8.5, 2.0, 0, 4e6, 1.1, n);
	assert_int_equal(profile_fit_sizes(v, n, &f), 0);
	print_message("lognormal: mu %.4f sigma %.4f w %.6f\n", f.mu, f.sigma, f.tail_weight);
	assert_true(fabs(f.mu - 8.5) < 0.05 && fabs(f.sigma - 2.0) < 0.05);
	assert_true(f.tail_weight < 0.002);
	assert_int_equal(profile_fit_sizes(v, 1, &f), -EINVAL);
	free(v);
}

/* The files-per-directory law from counts drawn from it: c and k back within 15%. */
static void test_profile_fit_fpd(void **state)
{
	double p[30], c, k;
	uint64_t count[30] = { 0 };
	struct rng r;

	(void)state;
	assert_int_equal(fpd_probs(0.2, 3.0, 2.2, 28, p), 0);
	rng_init(&r, 7, "profile-fpd", 0);
	for (int i = 0; i < 200000; i++)
		count[draw_index(p, 30, rng_uniform(&r))]++;
	assert_int_equal(profile_fit_fpd(count, 28, 0.2, &c, &k), 0);
	print_message("fpd: c %.3f k %.3f\n", c, k);
	assert_true(fabs(c / 3.0 - 1) < 0.15 && fabs(k / 2.2 - 1) < 0.15);
	memset(count, 0, sizeof(count));
	assert_int_equal(profile_fit_fpd(count, 28, 0.2, &c, &k), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2),
		cmocka_unit_test(test_layout_contiguous),
		cmocka_unit_test(test_layout_fragmented),
		cmocka_unit_test(test_layout_adjacent_across_a_hole),
		cmocka_unit_test(test_layout_empty),
		cmocka_unit_test(test_free_hist),
		cmocka_unit_test(test_free_hist_edges),
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_hole_blocks),
		cmocka_unit_test(test_holes_runs),
		cmocka_unit_test(test_profile_fit),
		cmocka_unit_test(test_profile_fit_fpd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
