/* request.c - what the ext2/3/4 backend asks the layout to place, and the free space it offers */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/estimate.h"
#include "backends/ext4/inode_order.h"
#include "backends/ext4/request.h"
#include "backends/ext4/shape.h"
#include "content/prealloc.h"
#include "content/sparse.h"
#include "util/array.h"
#include "util/e2err.h"

/*
 * A preallocated file's blocks beyond its end join its blocks; its
 * unwritten ranges are blocks like any (ext4's extents only: ext2/3 map
 * no unwritten blocks).
 */
static int prealloc_blocks(struct ext4_build *x, uint64_t f)
{
	struct prealloc pa;
	char path[PATH_MAX], name[NAME_MAX_LEN + 1];

	if (!x->file_blocks[f] || !prealloc_file(x->pl, f, &pa))
		return 0;
	if (!x->extents) {
		plan_file_name(x->pl, f, name);
		return ext4_set_err(
			x->b, -EOPNOTSUPP,
			"file '%s' is planned with preallocated space (prealloc_file_share), but %s has no unwritten extents; use --fs ext4 or prealloc_file_share=0",
			ext4_entry_path(x, x->pl->file_dir[f], name, path, sizeof(path)),
			ext4_kind_of(&x->pl->prm) == EXT4_KIND_EXT2 ? "ext2" :
								     "ext3 (or ext4 without extents)");
	}
	x->file_blocks[f] += pa.beyond / x->bs;
	x->prealloc_files++;
	x->unwritten_blocks += pa.unw.bytes / x->bs + pa.beyond / x->bs;
	return 0;
}

/* Step 1: blocks per file; inline and empty files take none. */
static int size_files(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	uint64_t apb = x->bs / 4, max;

	max = x->extents ? UINT32_MAX : EXT2_NDIR_BLOCKS + apb + apb * apb + apb * apb * apb;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t size = pl->file_size[f];
		char path[PATH_MAX], name[NAME_MAX_LEN + 1], sz[32];
		int ret;

		if (size == 0 || (x->inline_ok && size <= EXT4_MIN_INLINE_DATA_SIZE)) {
			x->file_blocks[f] = 0;
			continue;
		}
		x->file_blocks[f] = (size + x->bs - 1) / x->bs;
		if (x->file_holes) {
			struct sparse_holes h;

			if (sparse_file_holes(pl, f, &h)) {
				/* holes are whole 64 KiB units: whole blocks of any size up to 64 KiB */
				x->file_lblocks[f] = x->file_blocks[f];
				x->file_blocks[f] -= h.bytes / x->bs;
				x->file_holes[f] = (uint8_t)h.n;
				x->sparse_files++;
				x->hole_blocks += h.bytes / x->bs;
			}
		}
		if (prealloc_enabled(pl)) {
			ret = prealloc_blocks(x, f);
			if (ret)
				return ret;
		}
		if ((x->file_lblocks && x->file_lblocks[f] > max) || x->file_blocks[f] > max) {
			plan_file_name(pl, f, name);
			fmt_bytes(size, EXT4_BYTES, sz, sizeof(sz));
			return ext4_set_err(
				x->b, -EFBIG,
				"file '%s' (%s) is larger than %s with %u-byte blocks allows",
				ext4_entry_path(x, pl->file_dir[f], name, path, sizeof(path)), sz,
				x->extents ? "ext4" : "the block map of ext2/3", x->bs);
		}
		if (pl->file_nlink && pl->file_nlink[f] > EXT2_LINK_MAX)
			return ext4_set_err(x->b, -EMLINK,
					    "file %" PRIu64 " has %u links; at most %u allowed", f,
					    pl->file_nlink[f], EXT2_LINK_MAX);
	}
	return 0;
}

/*
 * ext2fs_new_inode gives the first free inode from the start of the
 * parent's group (or the first inode).  Inodes are only taken here, never
 * freed, so while that start is at most ino_next (all before it in use),
 * the answer is ino_next if it is free and its group is initialised (the
 * library would clear INODE_UNINIT on the way): skip its bitmap search.
 */
static errcode_t take_inode(struct ext4_build *x, ext2_ino_t parent, int mode, ext2_ino_t *ino)
{
	struct ext2_super_block *sb = x->fs->super;
	ext2_ino_t first = EXT2_FIRST_INO(sb), start = first, next = x->ino_next;
	errcode_t err;

	if (parent) {
		start = (parent - 1) / sb->s_inodes_per_group * sb->s_inodes_per_group + 1;
		if (start < first)
			start = first;
	}
	if (next < first)
		next = first;
	if (start <= next && next <= sb->s_inodes_count &&
	    !ext2fs_test_inode_bitmap2(x->fs->inode_map, next) &&
	    !ext2fs_bg_flags_test(x->fs, (next - 1) / sb->s_inodes_per_group,
				  EXT2_BG_INODE_UNINIT)) {
		*ino = next;
		x->ino_next = next + 1;
		return 0;
	}
	err = ext2fs_new_inode(x->fs, parent, mode, NULL, ino);
	if (!err && start <= next && *ino >= next)
		x->ino_next = *ino + 1;
	return err;
}

static int new_inode(struct ext4_build *x, ext2_ino_t parent, int mode, ext2_ino_t *ino)
{
	errcode_t err = take_inode(x, parent, mode, ino);

	if (err == EXT2_ET_INODE_ALLOC_FAIL)
		return ext4_set_err(
			x->b, -ENOSPC,
			"'%s' has %u inodes but the plan needs %" PRIu64
			" (directories, files and symlinks); give more with --mkfs-options '-N N'",
			x->st->target, x->fs->super->s_inodes_count,
			(uint64_t)EXT2_FIRST_INO(x->fs->super) + x->pl->ndirs + x->pl->nfiles +
				x->nsym);
	if (err)
		return ext4_set_err(x->b, e2err_errno(err), "cannot allocate an inode: %s",
				    error_message(err));
	ext4_stats_inode(&x->stats, *ino, LINUX_S_ISDIR(mode));
	return 0;
}

static int dir_inode(struct ext4_build *x, uint32_t j)
{
	if (j == 0) {
		x->dir_ino[0] = EXT2_ROOT_INO;
		return 0;
	}
	return new_inode(x, x->dir_ino[x->pl->dir_parent[j]], LINUX_S_IFDIR, &x->dir_ino[j]);
}

static int file_inode(struct ext4_build *x, uint64_t f)
{
	return new_inode(x, x->dir_ino[x->pl->file_dir[f]], LINUX_S_IFREG, &x->file_ino[f]);
}

static int symlink_inode(struct ext4_build *x, uint32_t l)
{
	int mode = LINUX_S_IFLNK;

	if (x->pl->link_kind[l] & LINK_SPECIAL) {
		struct plan_special sp;

		plan_special_info(x->pl, l, &sp);
		mode = (int)sp.ifmt;
	}
	return new_inode(x, x->dir_ino[x->pl->link_dir[l]], mode, &x->link_ino[l]);
}

/*
 * Step 2: inode numbers in a fixed order, each directory followed by its
 * files and symlinks, so numbers follow directory locality as under Orlov.
 */
static int alloc_inodes(struct ext4_build *x)
{
	static const struct ext4_inode_steps steps = { dir_inode, file_inode, symlink_inode };
	int ret;

	if (x->pl->prm.inode_order == ORDER_CREATION) {
		ret = ext4_inodes_by_birth(x, dir_inode, file_inode, symlink_inode);
	} else {
		ret = ext4_each_inode(x, &steps);
		if (!ret && x->pl->prm.inode_order == ORDER_SHUFFLED)
			ret = ext4_inodes_shuffle(x);
	}
	ext4_stats_flush(&x->stats);
	return ret;
}

/* Step 3: directory shapes, and symlink blocks. */
static int shape_entries(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	char path[PATH_MAX];
	int ret;

	ret = ext4_shape_dirs(x);
	if (ret)
		return ret;
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		int len;

		x->link_blocks[l] = 0;
		if (!LINK_IS_SYMLINK(pl->link_kind[l]))
			continue;
		len = plan_symlink_target(pl, l, x->tbuf, x->bs);
		if (len < 0) {
			char name[NAME_MAX_LEN + 1];

			plan_link_name(pl, l, name);
			return ext4_set_err(
				x->b, -ENAMETOOLONG,
				"the target of symlink '%s' is longer than a %u-byte block",
				ext4_entry_path(x, pl->link_dir[l], name, path, sizeof(path)),
				x->bs);
		}
		x->link_blocks[l] = len >= (int)sizeof(((struct ext2_inode *)0)->i_block);
	}
	x->druns = malloc((x->dcap ? x->dcap : 1) * sizeof(*x->druns));
	x->dmeta = malloc((x->dcap ? x->dcap : 1) * sizeof(*x->dmeta));
	if (!x->druns || !x->dmeta)
		return ext4_set_err(x->b, -ENOMEM, "out of memory");
	return 0;
}

/*
 * Step 4: the free map.  The root's old blocks go back first: the root is
 * rebuilt like any other directory at the layout's blocks.
 */
static int read_freemap(struct ext4_build *x, struct freemap *fm)
{
	errcode_t err;

	err = ext4_free_root_blocks(x->fs);
	if (err)
		return ext4_set_err(x->b, e2err_errno(err),
				    "cannot read the root directory of '%s': %s", x->st->target,
				    error_message(err));
	if (ext4_read_freemap(x->fs, fm))
		return ext4_set_err(x->b, -ENOMEM, "out of memory");
	return 0;
}

/*
 * Step 5: what the layout must place (the core builds it): the blocks of
 * every entry, this file system's block size, mapping and longest extent,
 * and a pool of spare blocks for metadata the request cannot foresee.
 */
static void fill_request(struct ext4_build *x, struct layout_request *rq)
{
	rq->pl = x->pl;
	rq->file_blocks = x->file_blocks;
	rq->dir_blocks = x->dir_blocks;
	rq->link_blocks = x->link_blocks;
	rq->file_holes = x->file_holes;
	rq->file_lblocks = x->file_lblocks;
	rq->block_size = x->bs;
	rq->mapping = x->extents ? LAYOUT_EXTENTS : LAYOUT_BLOCKMAP;
	rq->max_extent_len = EXT4_MAP_MAX_EXTENT;
	rq->pool_blocks = EXT4_POOL_BLOCKS(x->pl->ndirs);
}

int ext4_request(struct ext4_build *x, struct layout_request *rq, struct freemap *fm)
{
	int ret;

	ret = size_files(x);
	if (!ret)
		ret = alloc_inodes(x);
	if (!ret)
		ret = shape_entries(x);
	if (!ret)
		ret = read_freemap(x, fm);
	if (!ret)
		fill_request(x, rq);
	return ret;
}
