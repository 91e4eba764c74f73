/* estimate.h - the space a plan needs on ext2/3/4, before anything is written */
#ifndef IMPRINT_BACKENDS_EXT4_ESTIMATE_H
#define IMPRINT_BACKENDS_EXT4_ESTIMATE_H

#include "backends/backend.h"

/*
 * The space pl needs on ext2/3/4 of its capacity (pl->prm.size), with 4 KiB
 * blocks and 256-byte inodes: a lower bound in spirit, refusing plans that
 * surely cannot fit and leaving the exact check to the layout.  Returns 0.
 */
int ext4_estimate(const struct plan *pl, struct backend_estimate *e);

/* Spare metadata blocks the layout keeps for extent and directory growth. */
#define EXT4_POOL_BLOCKS(ndirs) (64 + (uint64_t)(ndirs) / 64)

/*
 * The inodes mke2fs is asked for (-N): the reserved ones, root and
 * lost+found among them, then the plan's, plus a quarter and 256 of slack.
 */
uint64_t ext4_inodes_wanted(const struct plan *pl);

#endif
