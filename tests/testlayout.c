/* testlayout.c - helpers shared by the layout and aging tests */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "testlayout.h"

void test_req_init(struct test_req *r, const struct plan *pl, uint32_t bs, enum layout_mapping m,
		   double score, uint64_t seed, unsigned int flags)
{
	memset(r, 0, sizeof(*r));
	r->fb = calloc(pl->nfiles + 1, sizeof(*r->fb));
	r->db = calloc(pl->ndirs + 1, sizeof(*r->db));
	r->lb = calloc(pl->nlinks + 1, sizeof(*r->lb));
	assert_non_null(r->fb);
	assert_non_null(r->db);
	assert_non_null(r->lb);
	for (uint64_t f = 0; f < pl->nfiles; f++)
		r->fb[f] = (pl->file_size[f] + bs - 1) / bs;
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint64_t entries = pl->dir_nfiles[j] + pl->dir_nlinks[j] + 2;

		if (!(flags & TEST_REQ_FLAT_DIRS))
			for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE;
			     c = pl->dir_next_sibling[c])
				entries++;
		r->db[j] = (uint32_t)(1 + entries * 40 / bs);
	}
	for (uint32_t l = 0; l < pl->nlinks; l++)
		r->lb[l] = !(pl->link_kind[l] & LINK_HARD) && l % 3 == 0;
	if (flags & TEST_REQ_PLAN_PARAMS)
		layout_request_set_params(&r->rq, &pl->prm);
	r->rq.pl = pl;
	r->rq.file_blocks = r->fb;
	r->rq.dir_blocks = r->db;
	r->rq.link_blocks = r->lb;
	r->rq.block_size = bs;
	r->rq.mapping = m;
	r->rq.max_extent_len = 32768;
	r->rq.layout_score = score;
	r->rq.pool_blocks = 1024;
	r->rq.seed = seed;
}

void test_req_release(struct test_req *r)
{
	free(r->fb);
	free(r->db);
	free(r->lb);
}

/* Mark n blocks from s used; counts those that were not free or already used. */
static uint64_t mark(uint8_t *st, uint64_t nblocks, uint64_t s, uint64_t n)
{
	uint64_t bad = 0;

	if (s + n > nblocks || s + n < s)
		return n ? n : 1;
	for (uint64_t b = s; b < s + n; b++) {
		bad += st[b] != 1;
		st[b] = 2;
	}
	return bad;
}

uint64_t test_check_layout(const struct layout *lo, const struct layout_request *rq,
			   const struct freemap *fm, double *contig)
{
	const struct plan *pl = rq->pl;
	uint8_t *st = calloc(fm->nblocks + 1, 1);
	uint64_t used = 0, num = 0, den = 0, bad = 0, holes = 0;

	assert_non_null(st);
	for (size_t i = 0; i < fm->nruns; i++)
		memset(st + fm->runs[i].start, 1, fm->runs[i].len);
	assert_int_equal(lo->nfiles, pl->nfiles);
	assert_int_equal(lo->file_ext[0], 0);
	assert_int_equal(lo->file_ext[pl->nfiles], lo->next);
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t s = lo->file_ext[f], e = lo->file_ext[f + 1], blocks = 0, E = 0;

		assert_true(s <= e);
		assert_int_equal(e > s, rq->file_blocks[f] != 0);
		for (uint64_t i = s; i < e; i++) {
			/* runs are maximal and not empty */
			bad += lo->ext[i].len == 0;
			if (i > s)
				bad += lo->ext[i - 1].pblk + lo->ext[i - 1].len == lo->ext[i].pblk;
			blocks += lo->ext[i].len;
			E += (lo->ext[i].len + rq->max_extent_len - 1) / rq->max_extent_len;
			bad += mark(st, fm->nblocks, lo->ext[i].pblk, lo->ext[i].len);
		}
		assert_int_equal(blocks, rq->file_blocks[f]);
		if (blocks >= 2) {
			den += blocks - 1;
			num += blocks - (e - s);
		}
		assert_int_equal(
			lo->file_nmeta[f],
			blocks ? layout_meta_blocks(rq->mapping, rq->block_size, blocks, E) : 0);
		bad += mark(st, fm->nblocks, lo->file_meta[f], lo->file_nmeta[f]);
		used += blocks + lo->file_nmeta[f];
	}
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		const struct layout_extent *dr;
		struct layout_extent one;
		size_t n = layout_dir_runs(lo, rq, j, &one, &dr);
		uint64_t nb = 0;

		for (size_t i = 0; i < n; i++) {
			/* runs are maximal, the first at dir_start, at most four when split */
			bad += dr[i].len == 0 || (i && dr[i - 1].pblk + dr[i - 1].len == dr[i].pblk);
			bad += mark(st, fm->nblocks, dr[i].pblk, dr[i].len);
			nb += dr[i].len;
		}
		bad += n > 4 || (n && dr[0].pblk != lo->dir_start[j]);
		assert_int_equal(nb, rq->dir_blocks[j]);
		used += rq->dir_blocks[j];
	}
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		if (rq->link_blocks[l])
			bad += mark(st, fm->nblocks, lo->link_block[l], 1);
		used += rq->link_blocks[l];
	}
	assert_int_equal(lo->pool_len, rq->pool_blocks);
	bad += mark(st, fm->nblocks, lo->pool_start, lo->pool_len);
	used += lo->pool_len;
	assert_int_equal(bad, 0);
	assert_int_equal(used, lo->blocks_used);
	assert_true(lo->score == layout_score_of(lo));
	*contig = den ? (double)num / (double)den : 1.0;
	for (uint64_t b = 1; b + 1 < fm->nblocks; b++)
		holes += st[b] == 1 && st[b - 1] == 2 && st[b + 1] == 2;
	free(st);
	return holes;
}

uint64_t test_run_build(struct layout *lo, const struct layout_request *rq,
			const struct freemap *fm, double *contig)
{
	uint64_t need = 0;
	int ret = layout_build(lo, rq, fm, &need);

	if (ret)
		fprintf(stderr, "layout_build: %d (need %llu)\n", ret, (unsigned long long)need);
	assert_int_equal(ret, 0);
	return test_check_layout(lo, rq, fm, contig);
}

void test_same_layout(const struct layout *a, const struct layout *b, uint32_t ndirs)
{
	assert_int_equal(a->next, b->next);
	assert_memory_equal(a->file_ext, b->file_ext, (a->nfiles + 1) * sizeof(*a->file_ext));
	assert_memory_equal(a->ext, b->ext, a->next * sizeof(*a->ext));
	assert_memory_equal(a->file_meta, b->file_meta, a->nfiles * sizeof(*a->file_meta));
	assert_memory_equal(a->dir_start, b->dir_start, ndirs * sizeof(*a->dir_start));
	assert_memory_equal(a->file_nmeta, b->file_nmeta, a->nfiles * sizeof(*a->file_nmeta));
	assert_int_equal(a->pool_start, b->pool_start);
	assert_int_equal(a->age_temps, b->age_temps);
}

void test_reseeded(struct layout *a, struct layout *b, struct layout_request *rq,
		   const struct freemap *fm, uint32_t ndirs)
{
	double contig;

	test_run_build(a, rq, fm, &contig);
	test_run_build(b, rq, fm, &contig);
	test_same_layout(a, b, ndirs);
	layout_release(b);
	rq->seed = 66;
	test_run_build(b, rq, fm, &contig);
	assert_true(a->next != b->next || memcmp(a->ext, b->ext, a->next * sizeof(*a->ext)) != 0);
}
