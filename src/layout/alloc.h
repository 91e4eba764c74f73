/* alloc.h - the free space of a placement: slots consumed from the front, a max tree, a packing cursor */
#ifndef IMPRINT_LAYOUT_ALLOC_H
#define IMPRINT_LAYOUT_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"
#include "layout/maxtree.h"

/*
 * Free slots [cur[i], end[i]): the free runs first, in address order, then
 * the holes the packing left behind; tree holds their free lengths.
 */
struct alloc {
	size_t nruns;  /* slots [0, nruns) are runs, in address order */
	size_t nslots; /* then the holes left behind */
	size_t cap;
	uint64_t *cur, *end;
	struct maxtree tree; /* free length per slot */
	size_t ci;	 /* cursor run, nruns when the space ahead is used up */
	uint64_t leaked; /* blocks skipped or abandoned, never used */
	uint64_t spare;	 /* free blocks beyond what the plan needs */
};

/*
 * Copy the free runs of fm (merging touching ones), with room for nholes
 * holes, reserve pool blocks at the tail of the last run that holds them
 * (*pool_start), and build the tree.  Returns 0, -EINVAL for runs out of
 * order or outside the file system, -ENOSPC when no run holds the pool,
 * -ENOMEM.  Release with alloc_release() in every case.
 */
int alloc_init(struct alloc *a, const struct freemap *fm, size_t nholes, uint64_t pool,
	       uint64_t *pool_start);
void alloc_release(struct alloc *a);

/* Slot i's free length changed (cur[i] or end[i] moved): update the tree. */
void alloc_update(struct alloc *a, size_t i);

/* First slot in [lo, hi) with at least n (>= 1) free blocks, or SIZE_MAX. */
size_t alloc_first(const struct alloc *a, size_t lo, size_t hi, uint64_t n);

/* The longest free slot's length. */
static inline uint64_t alloc_longest(const struct alloc *a)
{
	return (uint64_t)maxtree_top(&a->tree);
}

/* Take n blocks from the front of slot i; returns the first. */
uint64_t alloc_take(struct alloc *a, size_t i, uint64_t n);

/*
 * Move the packing to goal (a unit's first block) unless it is already
 * there or past it; what is skipped in the cursor's run becomes a hole.
 */
void alloc_jump(struct alloc *a, uint64_t goal);

/*
 * n contiguous blocks into *pblk, not starting at avoid (the block right
 * after the previous run of the same file; UINT64_MAX for none): at the
 * cursor, else ahead, else anywhere.  Sets *adj when they had to start
 * there after all.  Returns 0 or -ENOSPC.
 */
int alloc_contig(struct alloc *a, uint64_t n, uint64_t avoid, uint64_t *pblk, int *adj);

#endif
