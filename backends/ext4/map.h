/* map.h - an inode's block mapping built by hand: extent trees and ext2/3 indirect blocks */
#ifndef IMPRINT_EXT4_MAP_H
#define IMPRINT_EXT4_MAP_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

#include "content/prealloc.h"
#include "layout/layout.h"

#define EXT4_MAP_MAX_EXTENT 32768 /* blocks in one initialized extent */

/* Spare blocks for mapping metadata the layout did not foresee. */
struct ext4_pool {
	uint64_t start, len, used;
};

/*
 * Where an inode's mapping blocks (extent tree or indirect blocks) come
 * from, front to back: list[0..len-1] when list is set, else the run
 * start..start+len-1; then the pool, when one is given.
 */
struct ext4_meta_src {
	uint64_t start, len;
	const uint64_t *list;
	struct ext4_pool *pool;
	uint64_t used;
};

/* A built mapping: the inode's i_block and the metadata blocks behind it. */
struct ext4_map {
	uint32_t i_block[EXT2_N_BLOCKS];
	int extents;		 /* 1: i_block holds an extent tree (EXT4_EXTENTS_FL) */
	uint64_t nmeta;		 /* metadata blocks built */
	uint64_t *meta_blk;	 /* their numbers, in the order taken */
	unsigned char *meta_buf; /* their contents, nmeta * block size */
	uint64_t meta_cap;	 /* blocks meta_blk and meta_buf can hold */
	struct ext3_extent *ext; /* scratch: the extents of an extent-mapped inode */
	size_t ext_cap;
	/*
	 * Set by the caller before a build, NULL otherwise: a preallocated
	 * file's unwritten ranges, and eof_blocks, its blocks up to the end;
	 * those and every block from eof_blocks on are mapped unwritten.
	 */
	const struct prealloc *pa;
	uint64_t eof_blocks;
};

/* An empty map; its buffers grow as needed and are reused across inodes. */
void ext4_map_init(struct ext4_map *m);
void ext4_map_release(struct ext4_map *m);

/*
 * Metadata blocks a mapping of nblocks data blocks in physical runs of
 * the given lengths needs: with extents, 0 up to 4 extents (runs split at
 * EXT4_MAP_MAX_EXTENT), else a packed tree; without, the indirect blocks.
 * nextents is the count after splitting.
 */
uint64_t ext4_map_meta_count(int extents, uint32_t block_size, uint64_t nblocks, uint64_t nextents);

/* Extents that runs[0..nruns-1] make once split at EXT4_MAP_MAX_EXTENT. */
uint64_t ext4_map_extent_count(const struct layout_extent *runs, size_t nruns);

/*
 * Build the mapping of logical blocks 0..nblocks-1 onto runs[0..nruns-1]
 * (logical order; their lengths sum to nblocks) into m: an extent tree when
 * extents is set, else direct and indirect blocks, taking metadata blocks
 * from src.  Writes nothing.  Returns 0, -ENOMEM, -ENOSPC when src runs
 * dry, -EFBIG past the format's limits, or -EINVAL when the runs do not
 * add up to nblocks.
 */
int ext4_map_build(struct ext4_map *m, ext2_filsys fs, const struct layout_extent *runs,
		   size_t nruns, uint64_t nblocks, int extents, struct ext4_meta_src *src);

struct sparse_holes;

/*
 * The same for a sparse file of lblocks logical blocks (holes included)
 * whose nblocks allocated blocks fill the rest in logical order: extents
 * end at each hole; a block map leaves its pointers 0 and builds no
 * indirect block that would map only holes.  h NULL or without holes:
 * ext4_map_build().  -EINVAL also when the holes do not make up
 * lblocks - nblocks or are not whole blocks.
 */
int ext4_map_build_sparse(struct ext4_map *m, ext2_filsys fs, const struct layout_extent *runs,
			  size_t nruns, uint64_t nblocks, const struct sparse_holes *h,
			  uint64_t lblocks, int extents, struct ext4_meta_src *src);

/*
 * Write m's metadata blocks for inode ino, extent-block checksums set
 * (they cover gen, the inode's i_generation; the inode need not be
 * written yet).  Returns 0, -EIO, or another negative errno.
 */
int ext4_map_write(struct ext4_map *m, ext2_filsys fs, ext2_ino_t ino, uint32_t gen);

/*
 * The kernel-like placement of a directory of ndata blocks in the nblocks
 * consecutive blocks from start that ext4_map_meta_count() sized: without
 * extents, each indirect block right before the data it maps; with
 * extents, the tree blocks first.  Fills runs (at most nblocks entries;
 * *nruns set) and meta (the metadata blocks in the order ext4_map_build()
 * takes them; *nmeta set).
 */
void ext4_map_place_dir(int extents, uint32_t block_size, uint64_t start, uint64_t ndata,
			struct layout_extent *runs, size_t *nruns, uint64_t *meta, uint64_t *nmeta);

#endif
