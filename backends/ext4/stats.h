/* stats.h - inodes and blocks counted in use, the group checksums set once a pass */
#ifndef IMPRINT_EXT4_STATS_H
#define IMPRINT_EXT4_STATS_H

#include <stdint.h>

#include <ext2fs/ext2fs.h>

/*
 * libext2fs' ext2fs_inode_alloc_stats2() and ext2fs_block_alloc_stats_range()
 * set the group descriptor's checksum at every call: a CRC32C of the
 * descriptor, four times a file at create.  These make the same changes
 * and leave the checksums of the groups they touched to
 * ext4_stats_flush(), which must run before the descriptors are read
 * back, written, or checked.
 */
struct ext4_stats {
	ext2_filsys fs;
	uint8_t *dirty; /* by group: a change since the last flush */
	dgrp_t lo, hi;	/* the dirty groups are within lo..hi - 1 */
	int plain;	/* through libext2fs' calls instead (tests: the same bytes) */
};

/* Returns 0 or -ENOMEM. */
int ext4_stats_init(struct ext4_stats *s, ext2_filsys fs);
void ext4_stats_release(struct ext4_stats *s);

/* Inode ino taken (a directory when isdir): ext2fs_inode_alloc_stats2(fs, ino, +1, isdir). */
void ext4_stats_inode(struct ext4_stats *s, ext2_ino_t ino, int isdir);

/* Blocks blk..blk + num - 1 taken: ext2fs_block_alloc_stats_range(fs, blk, num, +1). */
void ext4_stats_blocks(struct ext4_stats *s, blk64_t blk, blk_t num);

/* The checksums of the groups changed since the last flush. */
void ext4_stats_flush(struct ext4_stats *s);

#endif
