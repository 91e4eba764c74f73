/* mballoc.h - the simulated ext4 allocator's free space: a buddy system per group, mballoc's search */
#ifndef IMPRINT_LAYOUT_MBALLOC_H
#define IMPRINT_LAYOUT_MBALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"
#include "layout/maxtree.h"

#define MAX_LEVELS 40

/* A run of blocks: start and length. */
struct ex {
	uint64_t s, n;
};

/* The free space of the simulated file system, group by group. */
struct mb {
	uint64_t fdb, nblocks;
	uint32_t bpg, ngroups, flex, nflex;
	unsigned K; /* highest buddy order */
	size_t lvoff[MAX_LEVELS], lvwords[MAX_LEVELS];
	size_t gwords;	 /* words a group's levels take */
	uint64_t *bits;	 /* free bits: group by group, level by level */
	uint32_t *cnt;	 /* wholly free chunks per group and level */
	uint32_t *frags; /* free extents per group (bb_fragments) */
	uint64_t *ffree; /* free blocks per flex group */
	uint64_t free;
	struct maxtree top; /* per group: highest level with a free chunk, -1 none */
	uint32_t last_group;
};

/*
 * An empty (all used) file system of fm's geometry at block_size.  Returns
 * 0, -EINVAL for a geometry without groups, -ENOMEM; release with
 * mb_release() in every case.
 */
int mb_init(struct mb *m, const struct freemap *fm, uint32_t block_size);
void mb_release(struct mb *m);

/* First block of group g. */
uint64_t mb_group_start(const struct mb *m, uint32_t g);

/* The group of block b (the last group for blocks past the end). */
uint32_t mb_group_of(const struct mb *m, uint64_t b);

/* Mark n blocks from s (any groups) free (fr) or used. */
void mb_mark(struct mb *m, uint64_t s, uint64_t n, int fr);

/* Free blocks from b on within its group, up to limit. */
uint64_t mb_run_at(const struct mb *m, uint64_t b, uint64_t limit);

/*
 * Find room for a request of L blocks (o of them needed, o <= L) from
 * group g0, as ext4_mb_regular_allocator does without mb_optimize_scan
 * (see age.c); data requests keep out of the first group of a flex group
 * in the buddy pass.  Sets *out to a start and a length of at most L: at
 * least o unless the free space is too broken (a partial allocation).
 * Nothing is marked.  Returns 0 or -ENOSPC.
 */
int mb_search(const struct mb *m, uint32_t g0, uint64_t L, uint64_t o, int data, struct ex *out);

/*
 * n blocks in one piece near group g0 (directories, symlinks, metadata),
 * marked used, into *start.  Returns 0 or -ENOSPC.
 */
int mb_alloc_whole(struct mb *m, uint32_t g0, uint64_t n, uint64_t *start);

#endif
