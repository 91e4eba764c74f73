/* test_layout.c - placement: no overlap, free blocks, counts, scores, spread, free space, order */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "layout/grow.h"
#include "layout/layout.h"
#include "layout/maxtree.h"
#include "plan/plan.h"
#include "testlayout.h"
#include "testutil.h"
#include "util/array.h"

#define NSEEDS 3

static struct plan plans[NSEEDS];

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < NSEEDS; i++) {
		char seed[16];
		const char *const kv[] = { "files", "20000", "seed", seed, NULL };

		snprintf(seed, sizeof(seed), "%d", i + 1);
		test_build_plan(&plans[i], kv);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NSEEDS; i++)
		plan_release(&plans[i]);
	return 0;
}

static uint64_t ext_count(uint64_t len, uint32_t max_ext)
{
	return (len + max_ext - 1) / max_ext;
}

/* Blocks the request needs when every file is contiguous. */
static uint64_t need_of(const struct layout_request *rq)
{
	const struct plan *pl = rq->pl;
	uint64_t n = rq->pool_blocks;

	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t b = rq->file_blocks[f];

		n += b;
		if (b)
			n += layout_meta_blocks(rq->mapping, rq->block_size, b,
						ext_count(b, rq->max_extent_len));
	}
	for (uint32_t j = 0; j < pl->ndirs; j++)
		n += rq->dir_blocks[j];
	for (uint32_t l = 0; l < pl->nlinks; l++)
		n += rq->link_blocks[l];
	return n;
}

/* One free run (a small flex_bg file system). */
static void fm_one_run(struct freemap *fm, uint64_t start, uint64_t len, uint32_t bpg)
{
	memset(fm, 0, sizeof(*fm));
	fm->nblocks = start + len;
	fm->blocks_per_group = bpg;
	fm->ngroups = (uint32_t)((fm->nblocks + bpg - 1) / bpg);
	fm->flex_groups = fm->ngroups;
	fm->nruns = 1;
	fm->runs = calloc(1, sizeof(*fm->runs));
	assert_non_null(fm->runs);
	fm->runs[0].start = start;
	fm->runs[0].len = len;
}

/* Groups of bpg blocks, each starting with hole blocks of metadata. */
static void fm_groups(struct freemap *fm, uint32_t ngroups, uint32_t bpg, uint32_t hole,
		      uint64_t fdb)
{
	memset(fm, 0, sizeof(*fm));
	fm->first_data_block = fdb;
	fm->nblocks = fdb + (uint64_t)ngroups * bpg;
	fm->blocks_per_group = bpg;
	fm->ngroups = ngroups;
	fm->flex_groups = 1;
	fm->nruns = ngroups;
	fm->runs = calloc(ngroups, sizeof(*fm->runs));
	assert_non_null(fm->runs);
	for (uint32_t g = 0; g < ngroups; g++) {
		fm->runs[g].start = fdb + (uint64_t)g * bpg + hole;
		fm->runs[g].len = bpg - hole;
	}
}

static uint32_t groups_for(uint64_t need, uint32_t bpg, uint32_t hole, double factor)
{
	return (uint32_t)ceil((double)need * factor / (bpg - hole)) + 1;
}

static void test_meta_extents(void **state)
{
	(void)state;
	/* 4 KiB: 340 entries a block */
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 100, 1), 0);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 100, 4), 0);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 100, 5), 1);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 5000, 340), 1);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 5000, 341), 2);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 5000, 1360), 4);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 5000, 1361), 6);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 1 << 20, 340 * 340 * 4),
			 1360 + 4);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 4096, 1 << 20, 340 * 340 * 4 + 1),
			 1361 + 5 + 1);
	/* 1 KiB: 84 */
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 1024, 100, 84), 1);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 1024, 100, 85), 2);
	assert_int_equal(layout_meta_blocks(LAYOUT_EXTENTS, 1024, 1000, 337), 5 + 1);
}

static void test_meta_blockmap(void **state)
{
	static const uint32_t sizes[] = { 1024, 4096 };

	(void)state;
	for (size_t i = 0; i < 2; i++) {
		uint32_t bs = sizes[i];
		uint64_t apb = bs / 4, a2 = apb * apb;

		for (uint64_t b = 0; b <= 12; b++)
			assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, b, 99), 0);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 13, 1), 1);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb, 1), 1);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb + 1, 1),
				 1 + 1 + 1);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb + apb, 1), 3);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb + apb + 1, 1), 4);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb + a2, 1),
				 1 + 1 + apb);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb + a2 + 1, 1),
				 1 + 1 + apb + 3);
		assert_int_equal(
			layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb + a2 + apb + 1, 1),
			1 + 1 + apb + 1 + 1 + 2);
		assert_int_equal(layout_meta_blocks(LAYOUT_BLOCKMAP, bs, 12 + apb + a2 + a2 + 1, 1),
				 1 + 1 + apb + 1 + 2 + apb + 1);
	}
}

/* test_run_build(), and the score is the share of contiguous block pairs. */
static uint64_t run_build(struct layout *lo, const struct layout_request *rq,
			  const struct freemap *fm)
{
	double contig;
	uint64_t holes = test_run_build(lo, rq, fm, &contig);

	assert_true(fabs(lo->score - contig) < 1e-12);
	return holes;
}

static void test_default_one_run(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;

	(void)state;
	test_req_init(&r, &plans[0], 4096, LAYOUT_EXTENTS, 1.0, 1, 0);
	fm_one_run(&fm, 1234, need_of(&r.rq) * 2, 32768);
	run_build(&lo, &r.rq, &fm);
	assert_true(lo.score == 1.0);
	for (uint64_t f = 0; f < lo.nfiles; f++)
		assert_true(lo.file_ext[f + 1] - lo.file_ext[f] <= 1);
	/* metadata right before the data of the file */
	for (uint64_t f = 0; f < lo.nfiles; f++)
		if (lo.file_nmeta[f])
			assert_int_equal(lo.file_meta[f] + lo.file_nmeta[f],
					 lo.ext[lo.file_ext[f]].pblk);
	test_done(&r, &fm, &lo, NULL);
}

static void test_default_groups(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;
	uint64_t ngroups, big = 0, broken = 0;
	const struct plan *pl = &plans[1];
	uint8_t *seen;
	uint32_t spread = 0, top = 0;

	(void)state;
	test_req_init(&r, pl, 4096, LAYOUT_EXTENTS, 1.0, 2, 0);
	ngroups = groups_for(need_of(&r.rq), 32768, 512, 2.0);
	fm_groups(&fm, (uint32_t)ngroups, 32768, 512, 0);
	run_build(&lo, &r.rq, &fm);
	for (uint64_t f = 0; f < lo.nfiles; f++) {
		uint64_t runs = lo.file_ext[f + 1] - lo.file_ext[f];

		big += r.fb[f] > 32768 - 512;
		if (runs > 1) {
			/* only files that cannot fit one free run are broken */
			assert_true(r.fb[f] > 32768 - 512);
			broken++;
		}
	}
	assert_true(broken <= big);
	if (!broken)
		assert_true(lo.score == 1.0);
	assert_true(lo.score > 0.999);

	/* top-level directories spread over the groups */
	seen = calloc(ngroups, 1);
	assert_non_null(seen);
	for (uint32_t j = 1; j < pl->ndirs; j++) {
		if (pl->dir_depth[j] != 1)
			continue;
		top++;
		if (!seen[lo.dir_start[j] / 32768]++)
			spread++;
	}
	assert_true(spread * 2 >= top);
	free(seen);
	test_done(&r, &fm, &lo, NULL);
}

static void test_targets(void **state)
{
	static const double targets[] = { 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.0 };

	(void)state;
	for (int s = 0; s < NSEEDS; s++) {
		struct test_req r;
		struct freemap fm;

		struct layout lo;
		uint64_t holes0, holes;

		test_req_init(&r, &plans[s], 4096, LAYOUT_EXTENTS, 1.0, (uint64_t)s + 7, 0);
		fm_groups(&fm, groups_for(need_of(&r.rq), 32768, 512, 1.6), 32768, 512, 0);
		holes0 = run_build(&lo, &r.rq, &fm);
		layout_release(&lo);
		for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
			r.rq.layout_score = targets[t];
			holes = run_build(&lo, &r.rq, &fm);
			/* the gaps between pieces are other files' data, not faked holes */
			assert_true(holes <= holes0);
			if (fabs(lo.score - targets[t]) > 0.005)
				fprintf(stderr, "seed %d target %.2f: score %.6f\n", s + 1,
					targets[t], lo.score);
			assert_true(fabs(lo.score - targets[t]) <= 0.005);
			layout_release(&lo);
		}
		test_done(&r, &fm, NULL, NULL);
	}
}

/*
 * A request on groups with room to spare (half as much again), laid out at
 * two scores in turn: each score above `above` and within `within` of its
 * target (-1 and 1: no bound).
 */
struct two_scores {
	int plan;
	uint32_t bs, bpg, hole;
	enum layout_mapping m;
	uint64_t seed;
	struct {
		double target, above, within;
	} at[2];
};

static void run_two_scores(const struct two_scores *c)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;

	test_req_init(&r, &plans[c->plan], c->bs, c->m, c->at[0].target, c->seed, 0);
	fm_groups(&fm, groups_for(need_of(&r.rq), c->bpg, c->hole, 1.5), c->bpg, c->hole,
		  c->bs == 1024);
	for (size_t i = 0; i < 2; i++) {
		r.rq.layout_score = c->at[i].target;
		run_build(&lo, &r.rq, &fm);
		assert_true(lo.score > c->at[i].above);
		assert_true(fabs(lo.score - c->at[i].target) <= c->at[i].within);
		layout_release(&lo);
	}
	test_done(&r, &fm, NULL, NULL);
}

static void test_small_blocks(void **state)
{
	static const struct two_scores c = {
		2, 1024, 8192, 258, LAYOUT_EXTENTS, 3, { { 1.0, 0.99, 1 }, { 0.7, -1, 0.005 } },
	};

	(void)state;
	run_two_scores(&c);
}

static void test_blockmap(void **state)
{
	static const struct two_scores c = {
		0, 4096, 32768, 1024, LAYOUT_BLOCKMAP, 4, { { 0.5, -1, 0.005 }, { 1.0, -1, 1 } },
	};

	(void)state;
	run_two_scores(&c);
}

static void test_enospc(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;
	uint64_t need, got = 0;

	(void)state;
	test_req_init(&r, &plans[0], 4096, LAYOUT_EXTENTS, 1.0, 5, 0);
	need = need_of(&r.rq);
	fm_one_run(&fm, 100, need - 1, 32768);
	assert_int_equal(layout_build(&lo, &r.rq, &fm, &got), -ENOSPC);
	assert_int_equal(got, need);
	assert_null(lo.file_ext);
	free(fm.runs);

	/* exactly enough, packed from the start */
	fm_one_run(&fm, 100, need, 1u << 30);
	run_build(&lo, &r.rq, &fm);
	assert_int_equal(lo.blocks_used, need);
	assert_true(lo.score == 1.0);
	layout_release(&lo);
	free(fm.runs);

	/* the pool does not fit any run */
	fm_groups(&fm, groups_for(need, 32768, 512, 2.0), 32768, 512, 0);
	r.rq.pool_blocks = 40000;
	assert_int_equal(layout_build(&lo, &r.rq, &fm, &got), -ENOSPC);
	test_done(&r, &fm, NULL, NULL);
}

static void test_determinism(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout a, b;

	(void)state;
	test_req_init(&r, &plans[1], 4096, LAYOUT_EXTENTS, 0.7, 6, 0);
	fm_groups(&fm, groups_for(need_of(&r.rq), 32768, 512, 1.6), 32768, 512, 0);
	/* the same layout twice; another seed, another layout, the same score */
	test_reseeded(&a, &b, &r.rq, &fm, plans[1].ndirs);
	assert_true(fabs(b.score - a.score) < 0.001);
	test_done(&r, &fm, &a, &b);
}

/* A hand-made plan: one directory holding the given files. */
struct mini {
	struct plan pl;
	uint32_t parent[1], first_file[1], nfiles[1], first_link[1], nlinks[1];
	uint32_t first_child[1], next_sibling[1];
	uint8_t depth[1];
};

static void mini_init(struct mini *m, uint64_t nfiles)
{
	memset(m, 0, sizeof(*m));
	m->pl.ndirs = 1;
	m->pl.nregular_dirs = 1;
	m->pl.dir_parent = m->parent;
	m->pl.dir_depth = m->depth;
	m->pl.dir_first_child = m->first_child;
	m->pl.dir_next_sibling = m->next_sibling;
	m->pl.dir_first_file = m->first_file;
	m->pl.dir_nfiles = m->nfiles;
	m->pl.dir_first_link = m->first_link;
	m->pl.dir_nlinks = m->nlinks;
	m->first_child[0] = m->next_sibling[0] = PLAN_NONE;
	m->nfiles[0] = (uint32_t)nfiles;
	m->pl.nfiles = nfiles;
}

static void test_tiny(void **state)
{
	static const double targets[] = { 0.3, 0.5, 0.9 };
	uint64_t fb[3] = { 2, 0, 2 }, one[1] = { 1000 };
	uint32_t db[1] = { 1 };
	struct layout_request rq = { 0 };
	struct freemap fm;
	struct mini m;
	struct layout lo;

	(void)state;
	mini_init(&m, 3);
	rq.pl = &m.pl;
	rq.file_blocks = fb;
	rq.dir_blocks = db;
	rq.block_size = 4096;
	rq.mapping = LAYOUT_EXTENTS;
	rq.max_extent_len = 32768;
	rq.seed = 1;
	fm_groups(&fm, 4, 32768, 512, 0);
	for (size_t t = 0; t < 3; t++) {
		/* two pairs: the score can only be 0, 0.5 or 1 */
		rq.layout_score = targets[t];
		run_build(&lo, &rq, &fm);
		assert_true(fabs(lo.score - round(targets[t] * 2) / 2) < 1e-12);
		layout_release(&lo);
	}

	/* one file alone: its pieces interleave with nothing but each other */
	mini_init(&m, 1);
	rq.file_blocks = one;
	for (size_t t = 0; t < 3; t++) {
		rq.layout_score = targets[t];
		run_build(&lo, &rq, &fm);
		assert_true(fabs(lo.score - targets[t]) < 0.002);
		layout_release(&lo);
	}

	/* no files at all */
	mini_init(&m, 0);
	rq.layout_score = 0.5;
	run_build(&lo, &rq, &fm);
	assert_true(lo.score == 1.0);
	layout_release(&lo);
	free(fm.runs);
}

static void test_bad_input(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;
	struct free_run runs[2] = { { 1000, 10 }, { 500, 10 } };

	(void)state;
	test_req_init(&r, &plans[0], 4096, LAYOUT_EXTENTS, 1.0, 1, 0);
	fm_one_run(&fm, 0, need_of(&r.rq) * 2, 32768);
	r.rq.layout_score = 0.0;
	assert_int_equal(layout_build(&lo, &r.rq, &fm, NULL), -EINVAL);
	r.rq.layout_score = 1.0;
	r.rq.block_size = 1000;
	assert_int_equal(layout_build(&lo, &r.rq, &fm, NULL), -EINVAL);
	free(fm.runs);
	r.rq.block_size = 4096;
	fm.runs = runs;
	fm.nruns = 2;
	fm.nblocks = 1ULL << 40;
	assert_true(layout_build(&lo, &r.rq, &fm, NULL) < 0);
	test_req_release(&r);
}

/* ---- spread, free-space shape, order ---- */

/* A request and a free map with room to spare (groups of 32768 blocks, 512 used). */
static void setup_spread(struct test_req *r, struct freemap *fm, int s, double score)
{
	test_req_init(r, &plans[s], 4096, LAYOUT_EXTENTS, score, (uint64_t)s + 11, 0);
	fm_groups(fm, groups_for(need_of(&r->rq), 32768, 512, 1.6), 32768, 512, 0);
}

static uint64_t runs_of(const struct layout *lo, uint64_t f)
{
	return lo->file_ext[f + 1] - lo->file_ext[f];
}

/*
 * frag_file_share (extents 0) or frag_extents (extents 1) at three values,
 * each seed: the score holds, the share or mean comes within tol of the
 * value (tol times the value for extents), and no note says it gave way.
 */
static void spread_sweep(int extents, double score, const double *values, double tol)
{
	for (int s = 0; s < NSEEDS; s++) {
		for (size_t i = 0; i < 3; i++) {
			struct test_req r;
			struct freemap fm;
			struct layout lo;
			double got, within = extents ? tol * values[i] : tol;

			setup_spread(&r, &fm, s, score);
			if (extents)
				r.rq.frag_extents = values[i];
			else
				r.rq.frag_file_share = values[i];
			run_build(&lo, &r.rq, &fm);
			got = extents ? (double)lo.frag_runs / (double)lo.frag_files :
					(double)lo.frag_files / (double)lo.frag_eligible;
			if (fabs(got - values[i]) > within || fabs(lo.score - score) > 0.005)
				fprintf(stderr,
					"seed %d %s %.2f: got %.4f over %llu files, score %.6f\n",
					s, extents ? "extents" : "share", values[i], got,
					(unsigned long long)lo.frag_files, lo.score);
			assert_true(fabs(lo.score - score) <= 0.005);
			assert_true(fabs(got - values[i]) <= within);
			assert_false(lo.notes &
				     (extents ? LAYOUT_NOTE_EXTENTS : LAYOUT_NOTE_SHARE));
			test_done(&r, &fm, &lo, NULL);
		}
	}
}

static void test_spread_share(void **state)
{
	static const double shares[] = { 0.05, 0.2, 0.5 };

	(void)state;
	spread_sweep(0, 0.8, shares, 0.01);
}

static void test_spread_extents(void **state)
{
	static const double means[] = { 3, 8, 30 };

	(void)state;
	/* 1 % of the pairs broken: room for every mean below */
	spread_sweep(1, 0.99, means, 0.05);
}

/*
 * A layout at score 0.5 with frag_file_share share and 2 extents a fragmented
 * file: the score holds, the mean of 2 gives way, and the share too when
 * share_gives.
 */
static void build_conflict(struct layout *lo, struct test_req *r, const struct freemap *fm,
			   double share, bool share_gives)
{
	r->rq.frag_file_share = share;
	r->rq.frag_extents = 2;
	run_build(lo, &r->rq, fm);
	assert_true(fabs(lo->score - 0.5) <= 0.005);
	assert_int_equal(!!(lo->notes & LAYOUT_NOTE_SHARE), share_gives);
	assert_true(lo->notes & LAYOUT_NOTE_EXTENTS);
}

/* Spread parameters the score cannot honour: the score wins and says so. */
static void test_spread_conflict(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;

	(void)state;
	/* 1 % of the files at random cannot hold half the pairs */
	setup_spread(&r, &fm, 0, 0.5);
	r.rq.frag_select = FRAG_SELECT_RANDOM;
	build_conflict(&lo, &r, &fm, 0.01, true);
	{
		char text[512];
		size_t n = layout_notes_text(&lo, text, sizeof(text));

		assert_true(n > 0 && n < sizeof(text));
		assert_non_null(strstr(text, "'frag_file_share' gave way to 'layout_score'"));
		assert_non_null(strstr(text, "'frag_extents' gave way"));
		/* too small a buffer: truncated, still terminated, same length asked */
		assert_int_equal(layout_notes_text(&lo, text, 10), n);
		assert_int_equal(strlen(text), 9);
	}
	layout_release(&lo);

	/* both given and compatible enough: the share holds, the mean moves */
	build_conflict(&lo, &r, &fm, 0.5, false);
	test_done(&r, &fm, &lo, NULL);
}

static int cmp_u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Median block count of the eligible files, fragmented (frag 1) or all (frag -1). */
static uint64_t median_blocks(const struct layout *lo, const struct test_req *r, int frag)
{
	uint64_t *v = calloc(lo->nfiles + 1, sizeof(*v)), n = 0, m;

	assert_non_null(v);
	for (uint64_t f = 0; f < lo->nfiles; f++)
		if (r->fb[f] >= 2 && (frag < 0 || (runs_of(lo, f) > 1) == frag))
			v[n++] = r->fb[f];
	qsort(v, n, sizeof(*v), array_cmp_u64);
	m = n ? v[n / 2] : 0;
	free(v);
	return m;
}

static void test_select(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;
	uint64_t *v, n = 0, cut, top = 0, all, wmed, rmed;
	const struct plan *pl = &plans[1];
	uint64_t g0 = 0, g0f = 0, g3 = 0, g3f = 0;

	(void)state;
	/* size: the fragmented files are the largest */
	setup_spread(&r, &fm, 1, 0.9);
	r.rq.frag_select = FRAG_SELECT_SIZE;
	r.rq.frag_file_share = 0.1;
	run_build(&lo, &r.rq, &fm);
	assert_true(fabs(lo.score - 0.9) <= 0.005);
	v = calloc(lo.nfiles, sizeof(*v));
	assert_non_null(v);
	for (uint64_t f = 0; f < lo.nfiles; f++)
		if (r.fb[f] >= 2)
			v[n++] = r.fb[f];
	qsort(v, n, sizeof(*v), cmp_u64_desc);
	cut = v[lo.frag_files - 1];
	for (uint64_t f = 0; f < lo.nfiles; f++)
		top += runs_of(&lo, f) > 1 && r.fb[f] >= cut;
	assert_true(top >= lo.frag_files * 95 / 100);
	free(v);
	layout_release(&lo);

	/* random against weighted: weighted prefers big files, random does not */
	all = median_blocks(&lo, &r, -1);
	r.rq.frag_select = FRAG_SELECT_WEIGHTED;
	r.rq.frag_file_share = 0.2;
	run_build(&lo, &r.rq, &fm);
	all = median_blocks(&lo, &r, -1);
	wmed = median_blocks(&lo, &r, 1);
	assert_true(wmed >= 2 * all);
	layout_release(&lo);
	r.rq.frag_select = FRAG_SELECT_RANDOM;
	run_build(&lo, &r.rq, &fm);
	assert_true(fabs(lo.score - 0.9) <= 0.005);
	rmed = median_blocks(&lo, &r, 1);
	assert_true(rmed * 2 >= all && rmed <= all * 3 / 2);
	layout_release(&lo);

	/* type: growing files (pst, vhd) first, sources and text never while others remain */
	r.rq.frag_select = FRAG_SELECT_TYPE;
	r.rq.frag_file_share = 0.1;
	run_build(&lo, &r.rq, &fm);
	assert_true(fabs(lo.score - 0.9) <= 0.005);
	for (uint64_t f = 0; f < lo.nfiles; f++) {
		const char *e = plan_file_ext(pl, f);
		int fr = runs_of(&lo, f) > 1;

		if (r.fb[f] < 2)
			continue;
		if (!strcmp(e, "pst") || !strcmp(e, "vhd")) {
			g0++;
			g0f += fr;
		} else if (!strcmp(e, "txt") || !strcmp(e, "h") || !strcmp(e, "cpp")) {
			g3++;
			g3f += fr;
		}
	}
	assert_true(g0 > 10 && g3 > 10);
	assert_true(g0f * 100 >= g0 * 99);
	assert_int_equal(g3f, 0);
	test_done(&r, &fm, &lo, NULL);
}

/* Coefficient of variation of a file's run lengths, averaged over fragmented files. */
static double mean_cv(const struct layout *lo, uint64_t *even)
{
	double sum = 0;
	uint64_t n = 0;

	*even = 0;
	for (uint64_t f = 0; f < lo->nfiles; f++) {
		uint64_t s = lo->file_ext[f], e = lo->file_ext[f + 1], mn = UINT64_MAX, mx = 0;
		double m = 0, v = 0;

		if (e - s < 2)
			continue;
		for (uint64_t i = s; i < e; i++) {
			m += (double)lo->ext[i].len;
			mn = lo->ext[i].len < mn ? lo->ext[i].len : mn;
			mx = lo->ext[i].len > mx ? lo->ext[i].len : mx;
		}
		m /= (double)(e - s);
		for (uint64_t i = s; i < e; i++)
			v += ((double)lo->ext[i].len - m) * ((double)lo->ext[i].len - m);
		sum += sqrt(v / (double)(e - s)) / m;
		*even += mx - mn <= 1;
		n++;
	}
	return n ? sum / (double)n : 0;
}

static void test_piece_sizes(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;
	uint64_t even;
	double cv_equal, cv_random, cv_lognormal;

	(void)state;
	/* six pieces a file on average: few enough breaks for that (2 % of the pairs) */
	setup_spread(&r, &fm, 2, 0.98);
	r.rq.frag_extents = 6;
	r.rq.frag_sizes = FRAG_SIZES_EQUAL;
	run_build(&lo, &r.rq, &fm);
	assert_true(fabs(lo.score - 0.98) <= 0.005);
	cv_equal = mean_cv(&lo, &even);
	/* equal pieces: within a block of each other (a run may also have been merged or split) */
	assert_true(even * 100 >= lo.frag_files * 95);
	layout_release(&lo);
	r.rq.frag_sizes = FRAG_SIZES_RANDOM;
	run_build(&lo, &r.rq, &fm);
	assert_true(fabs(lo.score - 0.98) <= 0.005);
	cv_random = mean_cv(&lo, &even);
	layout_release(&lo);
	r.rq.frag_sizes = FRAG_SIZES_LOGNORMAL;
	r.rq.frag_size_sigma = 1.5;
	run_build(&lo, &r.rq, &fm);
	assert_true(fabs(lo.score - 0.98) <= 0.005);
	cv_lognormal = mean_cv(&lo, &even);
	layout_release(&lo);
	if (!(cv_equal < 0.1 && cv_random > cv_equal + 0.3 && cv_lognormal > cv_random))
		fprintf(stderr, "cv equal %.3f random %.3f lognormal %.3f\n", cv_equal, cv_random,
			cv_lognormal);
	/* equal pieces vary only by the rounding of small files */
	assert_true(cv_equal < 0.1);
	assert_true(cv_random > cv_equal + 0.3);
	assert_true(cv_lognormal > cv_random);
	test_done(&r, &fm, NULL, NULL);
}

/*
 * The free extents from a block map (pool counted free), bucketed, must
 * equal layout_free_hist()'s.
 */
static void check_hist(const struct layout *lo, const struct layout_request *rq,
		       const struct freemap *fm, uint64_t chunk, struct layout_free_hist *h)
{
	const struct plan *pl = rq->pl;
	uint8_t *st = calloc(fm->nblocks + 1, 1);
	uint64_t count[LAYOUT_HIST_BUCKETS] = { 0 }, run = 0, chunks = 0;
	uint64_t cb = chunk / rq->block_size;

	assert_non_null(st);
	assert_int_equal(layout_free_hist(lo, rq, fm, chunk, h), 0);
	for (size_t i = 0; i < fm->nruns; i++)
		memset(st + fm->runs[i].start, 1, fm->runs[i].len);
	for (uint64_t i = 0; i < lo->next; i++)
		memset(st + lo->ext[i].pblk, 0, lo->ext[i].len);
	for (uint64_t f = 0; f < lo->nfiles; f++)
		memset(st + lo->file_meta[f], 0, lo->file_nmeta[f]);
	for (uint32_t j = 0; j < pl->ndirs; j++)
		memset(st + lo->dir_start[j], 0, rq->dir_blocks[j]);
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (rq->link_blocks[l])
			st[lo->link_block[l]] = 0;
	for (uint64_t b = 0; b <= fm->nblocks; b++) {
		if (b < fm->nblocks && st[b]) {
			run++;
			continue;
		}
		if (run)
			count[63 - __builtin_clzll(run)]++;
		run = 0;
	}
	for (uint64_t c = 0; (c + 1) * cb <= fm->nblocks; c++) {
		uint64_t k = 0;

		while (k < cb && st[c * cb + k])
			k++;
		chunks += k == cb;
	}
	assert_memory_equal(count, h->count, sizeof(count));
	assert_int_equal(chunks, h->free_chunks);
	free(st);
}

/* layout_free_hist_add(), as the ext4 backend feeds it the block bitmap's free runs */
static void test_free_hist_add(void **state)
{
	struct layout_free_hist h;

	(void)state;
	memset(&h, 0, sizeof(h));
	h.chunk_blocks = 256;
	layout_free_hist_add(&h, 0, 256);    /* one whole chunk, bucket 8 */
	layout_free_hist_add(&h, 300, 10);   /* inside a chunk: none, small */
	layout_free_hist_add(&h, 500, 600);  /* [512, 768) and [768, 1024) */
	layout_free_hist_add(&h, 2000, 0);   /* nothing */
	layout_free_hist_add(&h, 4096, 255); /* one block short of a chunk */
	assert_int_equal(h.extents, 4);
	assert_int_equal(h.free_blocks, 256 + 10 + 600 + 255);
	assert_int_equal(h.count[8], 1);
	assert_int_equal(h.count[3], 1);
	assert_int_equal(h.count[9], 1);
	assert_int_equal(h.count[7], 1);
	assert_int_equal(h.blocks[9], 600);
	assert_int_equal(h.small_blocks, 10 + 255);
	assert_int_equal(h.free_chunks, 3);
}

static void test_free_shape(void **state)
{
	static const double shares[] = { 0.1, 0.3, 0.6 };
	static const double shapes[] = { 1.0, 2.0 };

	(void)state;
	for (int s = 0; s < NSEEDS; s++) {
		for (size_t i = 0; i < 3; i++) {
			struct test_req r;
			struct freemap fm;
			struct layout lo;
			struct layout_free_hist h;
			double a = shapes[(s + i) % 2], mass = 0, w[8], worst = 0, small;

			setup_spread(&r, &fm, s, s == 1 ? 0.8 : 1.0);
			r.rq.free_frag_share = shares[i];
			r.rq.free_chunk = 1 << 20;
			r.rq.free_gap_shape = a;
			/*
			 * Equal blocks per bucket down to one block would need more
			 * gaps than there are files: start at 64 KiB
			 */
			r.rq.free_gap_min = a == 2.0 ? 65536 : 0;
			run_build(&lo, &r.rq, &fm);
			if (s == 1)
				assert_true(fabs(lo.score - 0.8) <= 0.005);
			check_hist(&lo, &r.rq, &fm, 1 << 20, &h);
			/* 256 blocks a chunk: buckets 0..7, blocks per bucket ~ x^(1-a) */
			for (int b = 0; b < 8; b++) {
				double lo_b = (double)(1 << b), hi_b = (double)(2 << b);

				w[b] = a == 2.0 ? (b >= 4 ? log(hi_b / lo_b) : 0) : (hi_b - lo_b);
				mass += w[b];
			}
			for (int b = 0; b < 8; b++) {
				double want = shares[i] * w[b] / mass;
				double got = (double)h.blocks[b] / (double)h.free_blocks;

				worst = fmax(worst, fabs(got - want));
			}
			small = (double)h.small_blocks / (double)h.free_blocks;
			if (worst > 0.005 ||
			    fabs(small - shares[i]) > 0.005)
				fprintf(stderr,
					"seed %d share %.2f shape %.0f: small %.4f, worst bucket %.4f\n",
					s, shares[i], a, small, worst);
			assert_true(worst <= 0.005);
			assert_true(fabs(small - shares[i]) <= 0.005);
			assert_true(lo.gap_blocks > 0);
			if (lo.notes & LAYOUT_NOTE_FREE)
				fprintf(stderr, "note free: seed %d share %.2f shape %.0f\n", s,
					shares[i], a);
			assert_false(lo.notes & LAYOUT_NOTE_FREE);
			test_done(&r, &fm, &lo, NULL);
		}
	}
}

static void test_orders(void **state)
{
	static const enum layout_order orders[] = { ORDER_DIR, ORDER_CREATION, ORDER_SHUFFLED };

	(void)state;
	for (size_t o = 0; o < 3; o++) {
		struct test_req r;
		struct freemap fm;
		struct layout lo;
		uint64_t up = 0, pairs = 0, prev = UINT64_MAX;

		setup_spread(&r, &fm, (int)o, 1.0);
		r.rq.order = orders[o];
		run_build(&lo, &r.rq, &fm);
		for (uint64_t f = 0; f < lo.nfiles; f++) {
			uint64_t p;

			if (!r.fb[f])
				continue;
			p = lo.ext[lo.file_ext[f]].pblk;
			if (prev != UINT64_MAX) {
				up += p > prev;
				pairs++;
			}
			prev = p;
		}
		if (orders[o] == ORDER_CREATION)
			assert_true(up * 100 >= pairs * 97);
		if (orders[o] == ORDER_SHUFFLED)
			assert_true(up * 10 >= pairs * 4 && up * 10 <= pairs * 6);
		layout_release(&lo);

		/* every order still meets a score target */
		r.rq.layout_score = 0.7;
		run_build(&lo, &r.rq, &fm);
		assert_true(fabs(lo.score - 0.7) <= 0.005);
		test_done(&r, &fm, &lo, NULL);
	}
}

/* The shared max tree against a linear scan, values negative too; the growth helper. */
static void test_maxtree_grow(void **state)
{
	struct maxtree mt;
	int64_t v[37];
	uint64_t x = 12345;
	size_t cap = 0;
	int *a = NULL;

	(void)state;
	assert_int_equal(maxtree_init(&mt, 37, INT64_MIN), 0);
	for (size_t i = 0; i < 37; i++)
		v[i] = INT64_MIN;
	for (int step = 0; step < 2000; step++) {
		size_t i, lo, hi, want = SIZE_MAX, arg = 0;
		int64_t q;

		x = x * 6364136223846793005u + 1442695040888963407u;
		i = (size_t)(x >> 33) % 37;
		v[i] = (int64_t)((x >> 20) % 2001) - 1000;
		maxtree_set(&mt, i, v[i]);
		lo = (size_t)(x >> 40) % 38;
		hi = (size_t)(x >> 50) % 38;
		q = (int64_t)((x >> 8) % 2001) - 1000;
		for (size_t k = lo; k < hi && want == SIZE_MAX; k++)
			if (v[k] >= q)
				want = k;
		assert_int_equal(maxtree_first(&mt, lo, hi, q), want);
		for (size_t k = 1; k < 37; k++)
			if (v[k] > v[arg])
				arg = k;
		assert_int_equal(maxtree_argmax(&mt), arg);
		assert_true(maxtree_top(&mt) == v[arg]);
	}
	maxtree_release(&mt);

	a = grow_array(a, &cap, 1, sizeof(*a), 4);
	assert_non_null(a);
	assert_int_equal(cap, 4);
	a = grow_array(a, &cap, 4, sizeof(*a), 4);
	assert_int_equal(cap, 4);
	a = grow_array(a, &cap, 17, sizeof(*a), 4);
	assert_non_null(a);
	assert_int_equal(cap, 32);
	a[16] = 1;
	free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_extents),	cmocka_unit_test(test_meta_blockmap),
		cmocka_unit_test(test_default_one_run), cmocka_unit_test(test_default_groups),
		cmocka_unit_test(test_targets),		cmocka_unit_test(test_small_blocks),
		cmocka_unit_test(test_blockmap),	cmocka_unit_test(test_enospc),
		cmocka_unit_test(test_determinism),	cmocka_unit_test(test_tiny),
		cmocka_unit_test(test_bad_input),	cmocka_unit_test(test_spread_share),
		cmocka_unit_test(test_spread_extents), cmocka_unit_test(test_spread_conflict),
		cmocka_unit_test(test_select),		cmocka_unit_test(test_piece_sizes),
		cmocka_unit_test(test_free_shape),	cmocka_unit_test(test_orders),
		cmocka_unit_test(test_free_hist_add),	cmocka_unit_test(test_maxtree_grow),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
