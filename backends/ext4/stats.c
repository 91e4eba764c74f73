/* stats.c - inodes and blocks counted in use, the group checksums set once a pass */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/stats.h"

int ext4_stats_init(struct ext4_stats *s, ext2_filsys fs)
{
	memset(s, 0, sizeof(*s));
	s->fs = fs;
	s->dirty = calloc(fs->group_desc_count ? fs->group_desc_count : 1, 1);
	s->lo = fs->group_desc_count;
	return s->dirty ? 0 : -ENOMEM;
}

void ext4_stats_release(struct ext4_stats *s)
{
	free(s->dirty);
	memset(s, 0, sizeof(*s));
}

static void touched(struct ext4_stats *s, dgrp_t g)
{
	s->dirty[g] = 1;
	if (g < s->lo)
		s->lo = g;
	if (g + 1 > s->hi)
		s->hi = g + 1;
}

void ext4_stats_inode(struct ext4_stats *s, ext2_ino_t ino, int isdir)
{
	ext2_filsys fs = s->fs;
	uint32_t ipg = fs->super->s_inodes_per_group;
	dgrp_t g;

	if (s->plain || !ino || ino > fs->super->s_inodes_count) {
		ext2fs_inode_alloc_stats2(fs, ino, +1, isdir); /* its complaint */
		return;
	}
	g = ext2fs_group_of_ino(fs, ino);
	ext2fs_mark_inode_bitmap2(fs->inode_map, ino);
	ext2fs_bg_free_inodes_count_set(fs, g, ext2fs_bg_free_inodes_count(fs, g) - 1);
	if (isdir)
		ext2fs_bg_used_dirs_count_set(fs, g, ext2fs_bg_used_dirs_count(fs, g) + 1);
	ext2fs_bg_flags_clear(fs, g, EXT2_BG_INODE_UNINIT);
	if (ext2fs_has_group_desc_csum(fs)) {
		/* the table's unused tail starts past this inode */
		ext2_ino_t first_unused = ipg - ext2fs_bg_itable_unused(fs, g) + g * ipg + 1;

		if (ino >= first_unused)
			ext2fs_bg_itable_unused_set(fs, g, g * ipg + ipg - ino);
		touched(s, g);
	}
	fs->super->s_free_inodes_count--;
	ext2fs_mark_super_dirty(fs);
	ext2fs_mark_ib_dirty(fs);
}

void ext4_stats_blocks(struct ext4_stats *s, blk64_t blk, blk_t num)
{
	ext2_filsys fs = s->fs;

	/* a callback would see the calls: libext2fs' own then; a bad range: its complaint */
	if (s->plain || fs->block_alloc_stats_range || blk + num > ext2fs_blocks_count(fs->super)) {
		ext2fs_block_alloc_stats_range(fs, blk, num, +1);
		return;
	}
	ext2fs_mark_block_bitmap_range2(fs->block_map, blk, num);
	while (num) {
		dgrp_t g = ext2fs_group_of_blk2(fs, blk);
		blk64_t last = ext2fs_group_last_block2(fs, g), n = num;

		if (blk + num > last)
			n = last - blk + 1;
		ext2fs_bg_free_blocks_count_set(fs, g, ext2fs_bg_free_blocks_count(fs, g) -
							       n / EXT2FS_CLUSTER_RATIO(fs));
		ext2fs_bg_flags_clear(fs, g, EXT2_BG_BLOCK_UNINIT);
		if (ext2fs_has_group_desc_csum(fs))
			touched(s, g);
		ext2fs_free_blocks_count_add(fs->super, -(blk64_t)n);
		blk += n;
		num -= (blk_t)n;
	}
	ext2fs_mark_super_dirty(fs);
	ext2fs_mark_bb_dirty(fs);
}

void ext4_stats_flush(struct ext4_stats *s)
{
	for (dgrp_t g = s->lo; g < s->hi; g++) {
		if (s->dirty[g]) {
			ext2fs_group_desc_csum_set(s->fs, g);
			s->dirty[g] = 0;
		}
	}
	s->lo = s->fs->group_desc_count;
	s->hi = 0;
}
