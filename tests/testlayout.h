/* testlayout.h - helpers shared by the layout and aging tests: requests from plans, the layout contract */
#ifndef IMPRINT_TESTLAYOUT_H
#define IMPRINT_TESTLAYOUT_H

#include <stdint.h>

#include "layout/layout.h"
#include "plan/plan.h"

/* The arrays of a request, derived from a plan for one block size. */
struct test_req {
	uint64_t *fb;
	uint32_t *db;
	uint8_t *lb;
	struct layout_request rq;
};

/* test_req_init() flags */
#define TEST_REQ_PLAN_PARAMS 0x1 /* start from the plan's layout and aging parameters */
#define TEST_REQ_FLAT_DIRS   0x2 /* directory blocks from files and links only, not subdirectories */

/*
 * A request for pl at block size bs: every file its whole blocks, every
 * directory 40 bytes an entry, one symlink in three (not hard links) a
 * block, a 1024-block pool, extents of up to 32768 blocks; fails the test
 * when out of memory.  Release with test_req_release().
 */
void test_req_init(struct test_req *r, const struct plan *pl, uint32_t bs, enum layout_mapping m,
		   double score, uint64_t seed, unsigned int flags);

void test_req_release(struct test_req *r);

/*
 * Checks every promise of struct layout from its arrays: a block map (0 not
 * free, 1 free, 2 used) finds overlaps and blocks outside fm's free runs;
 * counts, metadata, pool, blocks used and score.  Stores in *contig the
 * share of a file's block pairs that are contiguous (1 without pairs) and
 * returns the free holes of exactly one block between used blocks.
 */
uint64_t test_check_layout(const struct layout *lo, const struct layout_request *rq,
			   const struct freemap *fm, double *contig);

/* layout_build() into lo, which must succeed, then test_check_layout(). */
uint64_t test_run_build(struct layout *lo, const struct layout_request *rq,
			const struct freemap *fm, double *contig);

/*
 * a and b place the same runs, file metadata, pool, aging temporaries and
 * first ndirs directories; fails the test if not.
 */
void test_same_layout(const struct layout *a, const struct layout *b, uint32_t ndirs);

/*
 * Determinism of rq on fm: built twice (test_run_build), into a and b,
 * the same layout (test_same_layout over ndirs directories); then b again
 * under seed 66, which must place something differently.  Leaves rq at
 * seed 66 and a and b built.
 */
void test_reseeded(struct layout *a, struct layout *b, struct layout_request *rq,
		   const struct freemap *fm, uint32_t ndirs);

/* The end of a layout test: a and b (when not NULL) and lo's free map and request released. */
void test_done(struct test_req *r, struct freemap *fm, struct layout *a, struct layout *b);

#endif
