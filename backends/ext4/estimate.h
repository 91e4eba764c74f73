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

#endif
