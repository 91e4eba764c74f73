/* walk.h - the plan in its one order: each directory, then its files, then its links */
#ifndef IMPRINT_PLAN_WALK_H
#define IMPRINT_PLAN_WALK_H

#include <stdint.h>

#include "plan/plan.h"

/*
 * What plan_walk() calls, each with the walk's ctx; any may be NULL.  A
 * non-zero return stops the walk and is returned by it.
 */
struct plan_walk_ops {
	int (*dir)(void *ctx, uint32_t dir);
	int (*file)(void *ctx, uint32_t dir, uint64_t file);
	int (*link)(void *ctx, uint32_t dir, uint32_t link);
};

/*
 * Visit the plan in directory order (directories are numbered parents
 * first): directory j, then its files in id order, then its links in id
 * order, then directory j + 1.  This is the order inode numbers follow
 * and the order entries are written in.  Returns 0 or the first non-zero
 * value a callback returned.
 */
int plan_walk(const struct plan *pl, const struct plan_walk_ops *ops, void *ctx);

#endif
