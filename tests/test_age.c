/* test_age.c - offline aging: the layout contract, determinism, survivors, churn, more rounds */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "layout/age.h"
#include "model/dist.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "testlayout.h"
#include "testutil.h"
#include "util/array.h"

#define NSEEDS 3

static struct plan plans[NSEEDS];
static struct plan bodies[NSEEDS]; /* no Pareto tail: scores not ruled by a few huge files */

static int setup(void **state)
{
	(void)state;
	for (int i = 0; i < NSEEDS; i++) {
		char seed[16];
		const char *const tail[] = { "files", "20000", "seed", seed, NULL };
		const char *const body[] = {
			"files", "20000", "seed", seed, "size_tail_weight", "0", NULL,
		};

		snprintf(seed, sizeof(seed), "%d", i + 1);
		test_build_plan(&plans[i], tail);
		test_build_plan(&bodies[i], body);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < NSEEDS; i++) {
		plan_release(&plans[i]);
		plan_release(&bodies[i]);
	}
	return 0;
}

/* The plan's layout and aging parameters, layout_score 1, rounds of aging. */
static void req_init(struct test_req *r, const struct plan *pl, uint32_t bs, enum layout_mapping m,
		     uint32_t rounds, uint64_t seed)
{
	test_req_init(r, pl, bs, m, 1.0, seed, TEST_REQ_PLAN_PARAMS | TEST_REQ_FLAT_DIRS);
	r->rq.age_rounds = rounds;
}

static uint64_t need_of(const struct layout_request *rq)
{
	const struct plan *pl = rq->pl;
	uint64_t n = rq->pool_blocks;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		n += rq->file_blocks[f] + rq->file_blocks[f] / 300;
	for (uint32_t j = 0; j < pl->ndirs; j++)
		n += rq->dir_blocks[j];
	for (uint32_t l = 0; l < pl->nlinks; l++)
		n += rq->link_blocks[l];
	return n;
}

/*
 * An ext4-like free map: groups of bpg blocks, flex groups of flex, the
 * first group of each flex group holding 2 * flex + 64 metadata blocks,
 * odd groups a backup superblock (2 blocks), capacity need * factor.
 */
static void fm_ext4(struct freemap *fm, uint64_t need, double factor, uint32_t bpg, uint32_t flex,
		    uint64_t fdb)
{
	uint32_t ng = (uint32_t)ceil((double)need * factor / bpg) + 1;

	memset(fm, 0, sizeof(*fm));
	fm->first_data_block = fdb;
	fm->nblocks = fdb + (uint64_t)ng * bpg;
	fm->blocks_per_group = bpg;
	fm->ngroups = ng;
	fm->flex_groups = flex;
	fm->runs = calloc(ng, sizeof(*fm->runs));
	assert_non_null(fm->runs);
	for (uint32_t g = 0; g < ng; g++) {
		uint64_t s = fdb + (uint64_t)g * bpg, hole = 0;

		if (g % flex == 0)
			hole = 2 * flex + 64;
		else if (g % 2 == 1)
			hole = 2;
		if (hole == 0 && fm->nruns &&
		    fm->runs[fm->nruns - 1].start + fm->runs[fm->nruns - 1].len == s) {
			fm->runs[fm->nruns - 1].len += bpg;
			continue;
		}
		fm->runs[fm->nruns].start = s + hole;
		fm->runs[fm->nruns].len = bpg - hole;
		fm->nruns++;
	}
}

/* A 4 KiB extent request for pl, aged rounds times, on an ext4 map of factor times its need. */
static void aged_setup(struct test_req *r, struct freemap *fm, const struct plan *pl,
		       uint32_t rounds, uint64_t seed, double factor)
{
	req_init(r, pl, 4096, LAYOUT_EXTENTS, rounds, seed);
	fm_ext4(fm, need_of(&r->rq), factor, 32768, 16, 0);
}

/* test_run_build(), and the layout was aged. */
static void run_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm)
{
	double contig;

	test_run_build(lo, rq, fm, &contig);
	assert_true(lo->notes & LAYOUT_NOTE_AGED);
}

static void test_contract(void **state)
{
	static const uint32_t rounds[] = { 1, 3, 12 };

	(void)state;
	for (int s = 0; s < NSEEDS; s++) {
		struct test_req r;
		struct freemap fm;
		struct layout lo;

		aged_setup(&r, &fm, &plans[s], rounds[s], (uint64_t)s + 3, 1.5);
		run_build(&lo, &r.rq, &fm);
		assert_true(lo.age_temps > 0);
		test_done(&r, &fm, &lo, NULL);
	}
}

/* Other geometries: no flex_bg, 1 KiB blocks, block maps, a nearly full disk. */
static void test_geometries(void **state)
{
	static const struct {
		int plan;
		uint32_t bs;
		enum layout_mapping m;
		double factor;
		uint32_t bpg, flex;
		uint64_t fdb;
	} geo[] = {
		{ 0, 4096, LAYOUT_EXTENTS, 1.5, 32768, 1, 0 },
		{ 1, 1024, LAYOUT_EXTENTS, 1.5, 8192, 16, 1 },
		{ 2, 4096, LAYOUT_BLOCKMAP, 1.5, 32768, 1, 0 },
		/*
		 * Hardly any spare (the map rounds up to whole groups: about 1 %):
		 * temporaries must give way to the plan's files
		 */
		{ 0, 4096, LAYOUT_EXTENTS, 0.98, 32768, 16, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(geo) / sizeof(geo[0]); i++) {
		struct test_req r;
		struct freemap fm;
		struct layout lo;

		req_init(&r, &plans[geo[i].plan], geo[i].bs, geo[i].m, 8, i + 1);
		fm_ext4(&fm, need_of(&r.rq), geo[i].factor, geo[i].bpg, geo[i].flex, geo[i].fdb);
		run_build(&lo, &r.rq, &fm);
		if (geo[i].factor < 1)
			assert_true(lo.age_forced + lo.age_dropped > 0);
		test_done(&r, &fm, &lo, NULL);
	}
}

static void test_determinism(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout a, b;

	(void)state;
	aged_setup(&r, &fm, &plans[1], 10, 6, 1.3);
	/* the same history twice; another seed, another history */
	test_reseeded(&a, &b, &r.rq, &fm, plans[1].ndirs);
	assert_true(a.notes & b.notes & LAYOUT_NOTE_AGED);
	assert_false(b.notes & LAYOUT_NOTE_IGNORED);
	assert_int_equal(layout_notes_text(&b, NULL, 0), 0);
	layout_release(&b);

	/* layout targets beside aging: they do not apply, and the notes say so */
	r.rq.layout_score = 0.7;
	r.rq.free_frag_share = 0.2;
	run_build(&b, &r.rq, &fm);
	assert_true(b.notes & LAYOUT_NOTE_IGNORED);
	assert_true(layout_notes_text(&b, NULL, 0) > 0);
	assert_true(b.score > 0.99);
	test_done(&r, &fm, &a, &b);
}

/* What the trace saw. */
struct seen {
	const struct plan *pl;
	uint32_t rounds, last_round;
	uint8_t *dir_made, *plan_made;
	uint8_t *temp_state; /* 1 live, 2 deleted */
	uint64_t ntemp_cap, temps, unlinks, bad, stop_after, ops;
	double *tsize;
};

static int on_op(void *ctx, const struct age_op *op)
{
	struct seen *w = ctx;
	const struct plan *pl = w->pl;

	w->ops++;
	if (w->stop_after && w->ops >= w->stop_after)
		return 1;
	switch (op->kind) {
	case AGE_ROUND:
		w->bad += op->round != (w->ops == 1 ? 0 : w->last_round + 1);
		w->last_round = op->round;
		break;
	case AGE_MKDIR:
		w->bad += op->round != 0 || op->id >= pl->ndirs || w->dir_made[op->id];
		/* parents first */
		w->bad += op->id && !w->dir_made[pl->dir_parent[op->id]];
		w->dir_made[op->id] = 1;
		break;
	case AGE_CREATE:
		w->bad += !w->dir_made[op->dir];
		w->bad += op->round != w->last_round;
		if (op->temp) {
			if (op->id >= w->ntemp_cap) {
				w->bad++;
				break;
			}
			w->bad += w->temp_state[op->id] != 0;
			w->temp_state[op->id] = 1;
			w->tsize[w->temps++] = (double)op->bytes;
		} else {
			w->bad += op->id >= pl->nfiles || w->plan_made[op->id];
			w->bad += op->dir != pl->file_dir[op->id];
			w->bad += op->bytes != pl->file_size[op->id];
			w->plan_made[op->id] = 1;
		}
		break;
	case AGE_UNLINK:
		w->bad += !op->temp || op->id >= w->ntemp_cap || w->temp_state[op->id] != 1;
		if (op->id < w->ntemp_cap)
			w->temp_state[op->id] = 2;
		w->unlinks++;
		break;
	}
	return 0;
}

static double floor_cdf(const void *ctx, double t)
{
	return size_model_cdf(ctx, t + 1.0);
}

static void test_trace(void **state)
{
	const struct plan *pl = &plans[2];
	struct age_trace tr;
	struct seen w = { 0 };
	struct test_req r;
	struct freemap fm;
	struct layout lo;
	uint64_t *v, need;
	double d;

	(void)state;
	w.pl = pl;
	w.rounds = 20;
	w.dir_made = calloc(pl->ndirs, 1);
	w.plan_made = calloc(pl->nfiles, 1);
	w.ntemp_cap = pl->nfiles * (w.rounds + 2);
	w.temp_state = calloc(w.ntemp_cap, 1);
	w.tsize = calloc(w.ntemp_cap, sizeof(*w.tsize));
	assert_non_null(w.dir_made);
	assert_non_null(w.plan_made);
	assert_non_null(w.temp_state);
	assert_non_null(w.tsize);
	tr.ctx = &w;
	tr.op = on_op;
	aged_setup(&r, &fm, pl, w.rounds, 9, 1.5);
	r.rq.age_trace = &tr;
	run_build(&lo, &r.rq, &fm);
	assert_int_equal(w.bad, 0);
	assert_int_equal(w.last_round, w.rounds);
	/* every directory and plan file made once, every temporary deleted */
	for (uint32_t j = 0; j < pl->ndirs; j++)
		assert_int_equal(w.dir_made[j], 1);
	for (uint64_t f = 0; f < pl->nfiles; f++)
		assert_int_equal(w.plan_made[f], 1);
	assert_int_equal(w.temps, lo.age_temps);
	assert_int_equal(w.unlinks, w.temps);
	/* about a tenth of the files replaced each round */
	assert_true(w.temps >= pl->nfiles * w.rounds / 10 * 9 / 10);

	/* temporaries are drawn from the plan's size model */
	qsort(w.tsize, w.temps, sizeof(*w.tsize), array_cmp_double);
	v = calloc(w.temps, sizeof(*v));
	assert_non_null(v);
	for (uint64_t i = 0; i < w.temps; i++)
		v[i] = (uint64_t)w.tsize[i];
	d = ks_d_discrete(v, w.temps, floor_cdf, &pl->size);
	assert_true(d < ks_critical_01(w.temps));
	free(v);
	layout_release(&lo);

	/* a trace can stop the build */
	memset(w.dir_made, 0, pl->ndirs);
	memset(w.plan_made, 0, pl->nfiles);
	memset(w.temp_state, 0, w.ntemp_cap);
	w.ops = w.temps = w.unlinks = w.bad = 0;
	w.stop_after = 5000;
	assert_int_equal(layout_build(&lo, &r.rq, &fm, &need), -ECANCELED);
	assert_null(lo.file_ext);

	test_done(&r, &fm, NULL, NULL);
	free(w.dir_made);
	free(w.plan_made);
	free(w.temp_state);
	free(w.tsize);
}

static void test_enospc(void **state)
{
	struct test_req r;
	struct freemap fm;
	struct layout lo;
	uint64_t need = 0, free_blocks = 0;

	(void)state;
	aged_setup(&r, &fm, &plans[0], 5, 5, 0.8);
	for (size_t i = 0; i < fm.nruns; i++)
		free_blocks += fm.runs[i].len;
	assert_int_equal(layout_build(&lo, &r.rq, &fm, &need), -ENOSPC);
	assert_true(need > free_blocks);
	assert_null(lo.file_ext);
	test_done(&r, &fm, NULL, NULL);
}

/*
 * More rounds leave a lower layout score and more of the free space in
 * small extents, on average over the seeds.
 */
static void test_monotone(void **state)
{
	static const uint32_t rounds[] = { 1, 4, 16, 64 };
	double score[4] = { 0 }, small[4] = { 0 };

	(void)state;
	for (int s = 0; s < NSEEDS; s++) {
		for (size_t i = 0; i < 4; i++) {
			struct test_req r;
			struct freemap fm;
			struct layout lo;
			struct layout_free_hist h;

			aged_setup(&r, &fm, &bodies[s], rounds[i], (uint64_t)s + 21, 1.25);
			run_build(&lo, &r.rq, &fm);
			assert_int_equal(layout_free_hist(&lo, &r.rq, &fm, 1 << 20, &h), 0);
			score[i] += lo.score / NSEEDS;
			small[i] += (double)h.small_blocks / (double)h.free_blocks / NSEEDS;
			test_done(&r, &fm, &lo, NULL);
		}
	}
	for (size_t i = 1; i < 4; i++) {
		if (!(score[i] <= score[i - 1] && small[i] >= small[i - 1]))
			fprintf(stderr, "rounds %u: score %.6f small %.4f; rounds %u: %.6f %.4f\n",
				rounds[i - 1], score[i - 1], small[i - 1], rounds[i], score[i],
				small[i]);
		assert_true(score[i] <= score[i - 1]);
		assert_true(small[i] >= small[i - 1]);
	}
	assert_true(score[3] < score[0]);
	assert_true(small[3] > small[0] + 0.05);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contract), cmocka_unit_test(test_geometries),
		cmocka_unit_test(test_determinism), cmocka_unit_test(test_trace),
		cmocka_unit_test(test_enospc), cmocka_unit_test(test_monotone),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
