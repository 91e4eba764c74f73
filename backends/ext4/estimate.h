/* estimate.h - the space a plan needs on ext2/3/4, before anything is written */
#ifndef IMPRINT_BACKENDS_EXT4_ESTIMATE_H
#define IMPRINT_BACKENDS_EXT4_ESTIMATE_H

#include "backends/backend.h"

/* The file systems this backend makes: what 'fs' names, as this backend reads it. */
enum ext4_kind { EXT4_KIND_EXT2, EXT4_KIND_EXT3, EXT4_KIND_EXT4 };

/* Which of them p's 'fs' is: ext2, ext3, else ext4 (mke2fs's own default). */
enum ext4_kind ext4_kind_of(const struct params *p);

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

/* Bytes per inode mke2fs's stock usage types give a file system of bytes (mke2fs.conf). */
uint64_t ext4_usage_inode_ratio(uint64_t bytes);

/*
 * The inodes of an ext2/3/4 file system of bytes for pl: 'inodes' when
 * set; else bytes / 'inode_ratio' (or the usage type's ratio when 0), as
 * mke2fs -i would, raised to ext4_inodes_wanted() unless the ratio was set.
 * *explicit_set: whether 'inodes' or 'inode_ratio' decided (the count may
 * then be below what the plan needs: the caller refuses it).
 */
uint64_t ext4_inodes_count(const struct plan *pl, uint64_t bytes, int *explicit_set);

#endif
