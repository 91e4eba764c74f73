/* age.h - offline aging: create/delete churn on a simulated ext4 (mballoc-like) allocator */
#ifndef IMPRINT_AGE_H
#define IMPRINT_AGE_H

#include <stdint.h>

#include "layout/layout.h"

/* What one step of the churn does. */
enum age_op_kind {
	AGE_ROUND,  /* a round begins (round 0: the initial population) */
	AGE_MKDIR,  /* a plan directory is created (round 0, parents first) */
	AGE_CREATE, /* a file is created and written whole */
	AGE_UNLINK, /* a temporary file is deleted */
};

/* One operation, in the order the simulation performs it. */
struct age_op {
	enum age_op_kind kind;
	uint32_t round;
	int temp;       /* a temporary file, deleted before the end, rather than a plan file */
	uint64_t id;    /* plan file id, temporary id (from 0, in creation order) or directory id */
	uint32_t dir;   /* the file's directory */
	uint64_t bytes; /* the file's size */
};

/* An observer of the churn (the kernel benchmark replays it). */
struct age_trace {
	void *ctx;
	/* Called for every operation; a nonzero return stops the build (-ECANCELED). */
	int (*op)(void *ctx, const struct age_op *op);
};

/*
 * Place everything by aging (rq->age_rounds >= 1, see doc/model.md): the
 * plan's directories are made, then rq->age_rounds rounds of churn create
 * and delete temporary files beside the plan's files on a simulated ext4
 * allocator, and every plan file, directory and symlink block stays where
 * the simulation put it.  The result has the contract of layout_build()
 * (struct layout), with LAYOUT_NOTE_AGED set: the score, spread, free-space
 * and order targets of rq are not used.  Deterministic in rq->seed.
 * Returns 0; -ENOSPC (with *need) when the plan does not fit; -EINVAL;
 * -ENOMEM; -ECANCELED when the trace stopped it.
 */
int age_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
	      uint64_t *need);

#endif
