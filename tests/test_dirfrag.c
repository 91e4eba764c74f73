/* test_dirfrag.c - split directories (dir_frag_share): exact share, pieces, every strategy, determinism */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "layout/dirfrag.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "testlayout.h"
#include "testutil.h"

static struct plan plan;

static int setup(void **state)
{
	const char *const kv[] = { "files", "20000", "seed", "4", NULL };

	(void)state;
	test_build_plan(&plan, kv);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	plan_release(&plan);
	return 0;
}

/* Free space for r: groups of 8192 blocks with 64 blocks of metadata each, room to spare. */
static void fm_for(struct freemap *fm, const struct layout_request *rq)
{
	uint64_t need = rq->pool_blocks;
	uint32_t ng;

	for (uint64_t f = 0; f < rq->pl->nfiles; f++)
		need += rq->file_blocks[f] + rq->file_blocks[f] / 100 + 1;
	for (uint32_t j = 0; j < rq->pl->ndirs; j++)
		need += rq->dir_blocks[j];
	ng = (uint32_t)(need * 2 / (8192 - 64)) + 2;
	memset(fm, 0, sizeof(*fm));
	fm->first_data_block = 1;
	fm->nblocks = 1 + (uint64_t)ng * 8192;
	fm->blocks_per_group = 8192;
	fm->ngroups = ng;
	fm->flex_groups = 1;
	fm->nruns = ng;
	fm->runs = calloc(ng, sizeof(*fm->runs));
	assert_non_null(fm->runs);
	for (uint32_t g = 0; g < ng; g++) {
		fm->runs[g].start = 1 + (uint64_t)g * 8192 + 64;
		fm->runs[g].len = 8192 - 64;
	}
}

/* Directories of two blocks or more, counted from the request. */
static uint64_t eligible(const struct layout_request *rq)
{
	uint64_t n = 0;

	for (uint32_t j = 0; j < rq->pl->ndirs; j++)
		n += rq->dir_blocks[j] >= 2;
	return n;
}

/*
 * Every strategy (packing in directory and shuffled order, with a score
 * target, a free-space shape, aging) and both mappings: the layout keeps
 * its contract (test_run_build checks the runs), splits exactly the share
 * asked (aging too: a piece never lands right after the one before),
 * never into more than four runs, and counts them.
 */
static void test_share(void **state)
{
	static const double shares[] = { 0.2, 0.5, 1.0 };
	enum { PLAIN, SHUFFLED, SCORE, SHAPED, AGED, NSTRAT };

	(void)state;
	for (int m = 0; m < 2; m++)
		for (int st = 0; st < NSTRAT; st++)
			for (size_t i = 0; i < 3; i++) {
				enum layout_mapping map = m ? LAYOUT_BLOCKMAP : LAYOUT_EXTENTS;
				struct test_req r;
				struct freemap fm;
				struct layout lo;
				double contig;
				uint64_t n, want, runs = 0;

				test_req_init(&r, &plan, 1024, map, st == SCORE ? 0.8 : 1.0, 9, 0);
				r.rq.dir_frag_share = shares[i];
				r.rq.order = st == SHUFFLED ? ORDER_SHUFFLED : ORDER_DIR;
				if (st == SHAPED)
					r.rq.free_frag_share = 0.3;
				if (st == AGED)
					r.rq.age_rounds = 2;
				fm_for(&fm, &r.rq);
				test_run_build(&lo, &r.rq, &fm, &contig);
				n = eligible(&r.rq);
				want = (uint64_t)llround(shares[i] * (double)n);
				assert_true(n >= 100);
				assert_int_equal(lo.dir_eligible, n);
				assert_int_equal(lo.dir_frag, want);
				assert_non_null(lo.dir_ext);
				for (uint32_t j = 0; j < plan.ndirs; j++)
					runs += lo.dir_ext[j + 1] - lo.dir_ext[j];
				assert_true(lo.dir_score < 1.0 && lo.dir_score > 0.0);
				assert_int_equal(lo.dir_contig, lo.dir_pairs - (runs - plan.ndirs));
				layout_release(&lo);
				free(fm.runs);
				test_req_release(&r);
			}
}

/* Share 0: no split, no runs array, the same layout as a request without the field. */
static void test_off(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout a, b;
	double contig;

	(void)state;
	test_req_init(&r, &plan, 1024, LAYOUT_EXTENTS, 0.9, 5, 0);
	fm_for(&fm, &r.rq);
	test_run_build(&a, &r.rq, &fm, &contig);
	assert_null(a.dir_ext);
	assert_int_equal(a.dir_frag, 0);
	assert_true(a.dir_score == 1.0);
	assert_true(a.dir_eligible > 0);
	/* a split changes the directories, and the layout around them, but no block count */
	r.rq.dir_frag_share = 0.5;
	test_run_build(&b, &r.rq, &fm, &contig);
	assert_int_equal(a.blocks_used, b.blocks_used);
	assert_true(b.dir_frag > 0);
	layout_release(&a);
	layout_release(&b);
	free(fm.runs);
	test_req_release(&r);
}

/* Same seed, same runs; another seed, other splits. */
static void test_determinism(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout a, b;
	double contig;
	uint64_t n;

	(void)state;
	test_req_init(&r, &plan, 1024, LAYOUT_BLOCKMAP, 1.0, 5, 0);
	r.rq.dir_frag_share = 0.5;
	fm_for(&fm, &r.rq);
	test_run_build(&a, &r.rq, &fm, &contig);
	test_run_build(&b, &r.rq, &fm, &contig);
	n = a.dir_ext[plan.ndirs];
	assert_int_equal(n, b.dir_ext[plan.ndirs]);
	assert_memory_equal(a.dir_ext, b.dir_ext, (plan.ndirs + 1) * sizeof(*a.dir_ext));
	assert_memory_equal(a.dext, b.dext, n * sizeof(*a.dext));
	layout_release(&b);
	r.rq.seed = 6;
	test_run_build(&b, &r.rq, &fm, &contig);
	assert_true(b.dir_ext[plan.ndirs] != n ||
		    memcmp(a.dext, b.dext, n * sizeof(*a.dext)) != 0);
	layout_release(&a);
	layout_release(&b);
	free(fm.runs);
	test_req_release(&r);
}

/* Pieces: k lengths of at least one block each, summing to the directory. */
static void test_sizes(void **state)
{
	struct layout_request rq;
	uint64_t len[DIRFRAG_MAX], seen_first[8] = { 0 };

	(void)state;
	memset(&rq, 0, sizeof(rq));
	rq.seed = 3;
	for (uint32_t j = 0; j < 2000; j++) {
		uint64_t nb = 2 + j % 37, sum = 0;
		unsigned k = 2 + j % 3;

		if (k > nb)
			k = (unsigned)nb;
		dirfrag_sizes(&rq, j, nb, k, len);
		for (unsigned i = 0; i < k; i++) {
			assert_true(len[i] >= 1);
			sum += len[i];
		}
		assert_int_equal(sum, nb);
		if (nb == 9 && k == 2)
			seen_first[len[0] < 8 ? len[0] : 7]++;
	}
	/* the cut is drawn over the places: more than one first length occurs */
	assert_true((seen_first[1] != 0) + (seen_first[4] != 0) + (seen_first[7] != 0) +
		    (seen_first[2] != 0) + (seen_first[3] != 0) >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_off),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_sizes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
