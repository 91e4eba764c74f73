/* inode_order.h - the ext2/3/4 backend's inode numbers in birth order, or shuffled within each group */
#ifndef IMPRINT_BACKENDS_EXT4_INODE_ORDER_H
#define IMPRINT_BACKENDS_EXT4_INODE_ORDER_H

#include "backends/ext4/state.h"

/*
 * inode_order = creation: allocate every entry's inode (the root's is
 * fixed) in the order of the entries' birth times (crtime, then kind and
 * id), as a file system that grew over time numbered them; each asks
 * libext2fs for the first free inode from its directory's group.  The
 * steps are the directory, file and symlink allocators of request.c.
 * Returns 0 or a negative errno with the message set.
 */
int ext4_inodes_by_birth(struct ext4_build *x, int (*dir)(struct ext4_build *, uint32_t),
			 int (*file)(struct ext4_build *, uint64_t),
			 int (*link)(struct ext4_build *, uint32_t));

/*
 * inode_order = shuffled: after allocation in directory order, the
 * numbers within each block group are dealt out again in a seeded random
 * order (the root keeps its own), so each group keeps its count of
 * inodes and directories.  Returns 0 or -ENOMEM with the message set.
 */
int ext4_inodes_shuffle(struct ext4_build *x);

#endif
