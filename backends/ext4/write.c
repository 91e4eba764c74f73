/* write.c - the ext2/3/4 backend's writing: inodes, directories, mapping blocks, and the data workers */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/csum.h"
#include "backends/ext4/write.h"
#include "backends/ext4/xattr.h"
#include "content/prealloc.h"
#include "content/sparse.h"
#include "util/e2err.h"
#include "util/util.h"

/*
 * Inode-table blocks.  ext2fs_write_inode_full() copies the whole block
 * in and out of libext2fs' caches for each inode; the inodes are written
 * nearly in table order, so they are put in a window of ITABLE_WINDOW
 * table blocks held here (x->iblk, read at once), in the form
 * ext2fs_write_inode2() gives them on disk, and the blocks that changed go
 * to fs->io at once: when an inode outside the window comes, and
 *   itable_lend() before libext2fs may read or write an inode (inline
 *   data, xattrs, close): the window is read again for the next inode.
 * fs->icache is emptied at each write of the window, so that libext2fs
 * never reads an inode from a stale copy.  The checksums of inodes,
 * directory blocks and extent blocks are imprint's (csum.c), from the
 * generation every inode is written with here (NEW_GEN), so they need no
 * inode back from libext2fs.  The superblock's lifetime write count is
 * imprint's (ext4.c), whatever goes through unix_io's cache.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ITABLE_HELD 0 /* the disk's byte order is not the host's: through libext2fs */
#else
#define ITABLE_HELD 1
#endif
#define ITABLE_WINDOW 16 /* table blocks read at once */
#define NEW_GEN 0        /* i_generation of every inode written (as mke2fs's) */

static errcode_t itable_flush(struct ext4_build *x)
{
	errcode_t err;

	if (!x->iblk_dirty)
		return 0;
	err = io_channel_write_blk64(x->fs->io, x->iblk_nr + x->iblk_lo,
				     (int)(x->iblk_hi - x->iblk_lo),
				     x->iblk + (size_t)x->iblk_lo * x->bs);
	if (err)
		return err;
	x->iblk_dirty = 0;
	return ext2fs_flush_icache(x->fs);
}

static errcode_t itable_drop(struct ext4_build *x)
{
	errcode_t err = itable_flush(x);

	x->iblk_nr = 0;
	x->iblk_n = 0;
	x->iblk_dirty = 0;
	return err;
}

/*
 * Before libext2fs reads or writes an inode again: the window written and
 * dropped, and unix_io's block cache emptied.  This pass writes through
 * fs->io in runs of many blocks (the window, the root's directory blocks,
 * extent blocks); unix_io sends a run of more than a few blocks around its
 * cache, and libext2fs 1.47.0 then drops only the cached blocks that were
 * dirty.  A clean copy it read earlier (the root's table block, read when
 * the image was opened) would stay, and an inode written there through
 * libext2fs (an xattr, inline data) would put the old block back over the
 * window's inodes.  Changing the channel's block size empties its cache
 * (dirty blocks written first); it is set back at once.
 */
static errcode_t itable_lend(struct ext4_build *x)
{
	io_channel io = x->fs->io;
	errcode_t err = itable_drop(x);

	if (!err)
		err = io_channel_set_blksize(io, (int)x->bs * 2);
	if (!err)
		err = io_channel_set_blksize(io, (int)x->bs);
	if (!err)
		err = ext2fs_flush_icache(x->fs);
	return err;
}

/* Inode ino, isize bytes at in, into its table block (errors as ext2fs_write_inode2's). */
static errcode_t itable_put(struct ext4_build *x, ext2_ino_t ino, struct ext2_inode_large *in)
{
	ext2_filsys fs = x->fs;
	uint32_t ipg = EXT2_INODES_PER_GROUP(fs->super);
	uint64_t off = (uint64_t)((ino - 1) % ipg) * x->isize;
	blk64_t nr, table;
	unsigned i;
	errcode_t err;

	if (ino == 0 || ino > fs->super->s_inodes_count)
		return EXT2_ET_BAD_INODE_NUM;
	table = ext2fs_inode_table_loc(fs, (ino - 1) / ipg);
	if (!table)
		return EXT2_ET_MISSING_INODE_TABLE;
	if (table < fs->super->s_first_data_block ||
	    table + fs->inode_blocks_per_group - 1 >= ext2fs_blocks_count(fs->super))
		return EXT2_ET_GDESC_BAD_INODE_TABLE;
	nr = table + off / x->bs;
	off %= x->bs;
	ext4_csum_inode(fs, ino, in);
	if (!x->iblk_nr || nr < x->iblk_nr || nr >= x->iblk_nr + x->iblk_n) {
		/* the window: this block and the next of its group's table */
		unsigned n = (unsigned)MIN((blk64_t)ITABLE_WINDOW,
					   table + fs->inode_blocks_per_group - nr);

		err = itable_drop(x);
		if (err)
			return err;
		if (!x->iblk) {
			x->iblk = malloc((size_t)ITABLE_WINDOW * x->bs);
			if (!x->iblk)
				return EXT2_ET_NO_MEMORY;
		}
		err = io_channel_read_blk64(fs->io, nr, (int)n, x->iblk);
		if (err)
			return err;
		x->iblk_nr = nr;
		x->iblk_n = n;
	}
	i = (unsigned)(nr - x->iblk_nr);
	memcpy(x->iblk + (size_t)i * x->bs + off, in, x->isize);
	if (!x->iblk_dirty || i < x->iblk_lo)
		x->iblk_lo = i;
	if (!x->iblk_dirty || i >= x->iblk_hi)
		x->iblk_hi = i + 1;
	x->iblk_dirty = 1;
	ext2fs_mark_changed(fs);
	return 0;
}

/* Write inode ino from scratch. */
static int write_inode(struct ext4_build *x, ext2_ino_t ino, const struct plan_meta *m,
		       uint32_t links, uint64_t size, uint64_t blocks, uint32_t flags,
		       const uint32_t *i_block)
{
	struct ext2_inode_large *in = (struct ext2_inode_large *)x->ibuf;
	struct ext2_inode *small = (struct ext2_inode *)x->ibuf;
	errcode_t err;

	memset(x->ibuf, 0, x->isize);
	in->i_mode = (uint16_t)m->mode;
	in->i_uid = (uint16_t)m->uid;
	in->osd2.linux2.l_i_uid_high = (uint16_t)(m->uid >> 16);
	in->i_gid = (uint16_t)m->gid;
	in->osd2.linux2.l_i_gid_high = (uint16_t)(m->gid >> 16);
	in->i_links_count = (uint16_t)links;
	in->i_atime = (uint32_t)m->atime;
	in->i_ctime = (uint32_t)m->ctime;
	in->i_mtime = (uint32_t)m->mtime;
	in->i_flags = flags;
	memcpy(in->i_block, i_block, sizeof(in->i_block));
	err = ext2fs_inode_size_set(x->fs, small, (ext2_off64_t)size);
	if (!err)
		err = ext2fs_iblk_set(x->fs, small, blocks);
	if (err)
		return e2err_errno(err);
	if (x->extra) {
		in->i_extra_isize = (uint16_t)x->extra;
		in->i_atime_extra = ext4_xtime_extra(m->atime, m->atime_ns);
		in->i_ctime_extra = ext4_xtime_extra(m->ctime, m->ctime_ns);
		in->i_mtime_extra = ext4_xtime_extra(m->mtime, m->mtime_ns);
		in->i_crtime = (uint32_t)m->crtime;
		in->i_crtime_extra = ext4_xtime_extra(m->crtime, m->crtime_ns);
	}
	if (ITABLE_HELD && !x->iblk_off)
		err = itable_put(x, ino, in);
	else
		err = ext2fs_write_inode_full(x->fs, ino, small, (int)x->isize);
	return e2err_errno(err);
}

/* Mark blocks used, one call per consecutive stretch. */
static void mark_range(struct ext4_build *x, uint64_t start, uint64_t len)
{
	while (len) {
		blk_t n = len > (1u << 30) ? (1u << 30) : (blk_t)len;

		ext4_stats_blocks(&x->stats, start, n);
		start += n;
		len -= n;
	}
}

static void mark_meta(struct ext4_build *x, const struct ext4_map *m)
{
	for (uint64_t i = 0; i < m->nmeta;) {
		uint64_t j = i + 1;

		while (j < m->nmeta && m->meta_blk[j] == m->meta_blk[j - 1] + 1)
			j++;
		mark_range(x, m->meta_blk[i], j - i);
		i = j;
	}
}

/* Virtual block v of a directory laid over the physical pieces pr[0..np-1]. */
static uint64_t dir_phys(const struct layout_extent *pr, size_t np, uint64_t v)
{
	for (size_t i = 0; i < np; i++) {
		if (v < pr[i].len)
			return pr[i].pblk + v;
		v -= pr[i].len;
	}
	return UINT64_MAX;
}

/*
 * A split directory: ext4_map_place_dir() placed it in virtual blocks
 * 0..total-1; lay those over its pieces: each data run split where a
 * piece ends, each mapping block moved.  -ENOMEM.
 */
static int dir_over_pieces(struct ext4_build *x, const struct layout_extent *pr, size_t np,
			   size_t *nruns, uint64_t nmeta)
{
	struct layout_extent *out = malloc((x->dcap ? x->dcap : 1) * sizeof(*out));
	size_t n = 0;

	if (!out)
		return -ENOMEM;
	for (size_t r = 0; r < *nruns; r++) {
		uint64_t v = x->druns[r].pblk, left = x->druns[r].len;

		while (left) {
			uint64_t p = dir_phys(pr, np, v), take = 1;

			while (take < left && dir_phys(pr, np, v + take) == p + take)
				take++;
			out[n++] = (struct layout_extent){ p, take };
			v += take;
			left -= take;
		}
	}
	for (uint64_t i = 0; i < nmeta; i++)
		x->dmeta[i] = dir_phys(pr, np, x->dmeta[i]);
	memcpy(x->druns, out, n * sizeof(*out));
	*nruns = n;
	free(out);
	return 0;
}

static int write_dir(struct ext4_build *x, uint32_t j)
{
	const struct plan *pl = x->pl;
	const struct ext4_dir_shape *sh = &x->shape[j];
	ext2_ino_t ino = x->dir_ino[j];
	ext2_ino_t parent = j ? x->dir_ino[pl->dir_parent[j]] : EXT2_ROOT_INO;
	uint64_t start = x->lo->dir_start[j], total = x->dir_blocks[j], off = 0;
	struct layout_extent one = { start, total };
	const struct layout_extent *pr = &one;
	size_t np = 1;
	struct ext4_meta_src src = { 0 };
	struct plan_meta m;
	size_t nruns;
	uint64_t nmeta, links;
	char path[PATH_MAX];
	errcode_t err;
	int ret;

	/* by block: all that goes below this directory has been offered to the workers */
	if (x->dirs_by_block && total)
		ext4_data_meta_at(&x->data, start);
	ret = ext4_kept_entries(x, j);
	if (ret)
		return ext4_set_err(x->b, ret, "out of memory");
	if (x->lo->dir_ext) {
		pr = x->lo->dext + x->lo->dir_ext[j];
		np = (size_t)(x->lo->dir_ext[j + 1] - x->lo->dir_ext[j]);
	}
	ext4_map_place_dir(x->extents, x->bs, np > 1 ? 0 : start, sh->nblocks, x->druns, &nruns,
			   x->dmeta, &nmeta);
	if (np > 1) {
		ret = dir_over_pieces(x, pr, np, &nruns, nmeta);
		if (ret)
			return ext4_set_err(x->b, ret, "out of memory");
	}
	src.list = x->dmeta;
	src.len = nmeta;
	ret = ext4_map_build(&x->map, x->fs, x->druns, nruns, sh->nblocks, x->extents, &src);
	if (!ret && nmeta + sh->nblocks != total)
		ret = -EIO;
	if (ret)
		goto out_err;

	plan_dir_meta(pl, j, &m);
	links = 2 + (uint64_t)x->nsub[j] + (j == 0 && x->st->lpf_ino ? 1 : 0);
	if (links > EXT2_LINK_MAX) {
		if (!ext2fs_has_feature_dir_nlink(x->fs->super))
			return ext4_set_err(
				x->b, -EMLINK,
				"directory '%s' has %u subdirectories; without dir_nlink at most %u are allowed",
				ext4_entry_path(x, j, NULL, path, sizeof(path)), x->nsub[j],
				EXT2_LINK_MAX - 2);
		links = 1;
	}
	ret = write_inode(x, ino, &m, (uint32_t)links, (uint64_t)sh->nblocks * x->bs, total,
			  (x->extents ? EXT4_EXTENTS_FL : 0) | (sh->indexed ? EXT2_INDEX_FL : 0),
			  x->map.i_block);
	if (!ret)
		ret = ext4_map_write(&x->map, x->fs, ino, NEW_GEN);
	if (ret)
		goto out_err;

	ret = ext4_buf_reserve(x, (size_t)sh->nblocks * x->bs);
	if (ret)
		goto out_err;
	ret = ext4_dir_format(x->fs, ino, NEW_GEN, parent, x->ents.e, x->ents.n, sh, x->buf);
	if (ret)
		goto out_err;
	for (size_t r = 0; r < nruns; r++) {
		const unsigned char *at = x->buf + off * x->bs;

		/*
		 * Written with the file data around it, in one request, when the
		 * data writers take it; not the root's, which libext2fs may hold
		 * in its cache since it read it.
		 */
		err = 0;
		if (!j || !ext4_data_stage(&x->data, x->druns[r].pblk, x->druns[r].len, at))
			err = io_channel_write_blk64(x->fs->io, x->druns[r].pblk,
						     (int)x->druns[r].len, at);
		if (err) {
			ret = e2err_errno(err);
			goto out_err;
		}
		off += x->druns[r].len;
	}
	for (size_t i = 0; i < np; i++)
		mark_range(x, pr[i].pblk, pr[i].len);
	return 0;
out_err:
	return ext4_set_err(x->b, ret, "cannot write directory '%s': %s",
			    ext4_entry_path(x, j, NULL, path, sizeof(path)), strerror(-ret));
}

static int write_file(struct ext4_build *x, uint64_t f)
{
	const struct plan *pl = x->pl;
	ext2_ino_t ino = x->file_ino[f];
	uint64_t size = pl->file_size[f], nb = x->file_blocks[f];
	uint32_t links = pl->file_nlink ? pl->file_nlink[f] : 1;
	struct plan_meta m;
	char path[PATH_MAX], name[NAME_MAX_LEN + 1];
	errcode_t err;
	int ret, mapped = 0;

	plan_file_meta(pl, f, &m);
	if (nb == 0 && size > 0) {
		/* inline: the bytes live in i_block, plus an empty system.data xattr */
		uint32_t i_block[EXT2_N_BLOCKS] = { 0 };

		ret = x->cs->fill(x->cs, f, 0, i_block, (size_t)size);
		if (!ret)
			ret = write_inode(x, ino, &m, links, size, 0, EXT4_INLINE_DATA_FL, i_block);
		if (!ret) { /* reads and writes the inode */
			err = itable_lend(x);
			if (!err)
				err = ext2fs_inline_data_init(x->fs, ino);
			ret = e2err_errno(err);
		}
		if (!ret) /* no worker writes them: the progress counts them here */
			x->inline_bytes += size;
	} else {
		struct ext4_meta_src src = { 0 };
		const struct layout_extent *runs = &x->lo->ext[x->lo->file_ext[f]];
		size_t nruns = (size_t)(x->lo->file_ext[f + 1] - x->lo->file_ext[f]);

		src.start = x->lo->file_meta[f];
		src.len = x->lo->file_nmeta[f];
		src.pool = &x->pool;
		if (nb == 0)
			nruns = 0;
		if (x->file_holes && x->file_holes[f]) {
			struct sparse_holes h;

			sparse_file_holes(pl, f, &h);
			ret = ext4_map_build_sparse(&x->map, x->fs, runs, nruns, nb, &h,
						    x->file_lblocks[f], x->extents, &src);
		} else {
			struct prealloc pa;

			if (prealloc_enabled(pl) && nb && prealloc_file(pl, f, &pa)) {
				x->map.pa = &pa;
				x->map.eof_blocks = (size + x->bs - 1) / x->bs;
			}
			ret = ext4_map_build(&x->map, x->fs, runs, nruns, nb, x->extents, &src);
			x->map.pa = NULL;
		}
		mapped = !ret; /* from here ENOSPC is the target's, not the mapping's */
		if (!ret)
			ret = write_inode(x, ino, &m, links, size, nb + x->map.nmeta,
					  x->extents ? EXT4_EXTENTS_FL : 0, x->map.i_block);
		if (!ret)
			ret = ext4_map_write(&x->map, x->fs, ino, NEW_GEN);
		if (!ret) {
			for (size_t r = 0; r < nruns; r++)
				mark_range(x, runs[r].pblk, runs[r].len);
			mark_meta(x, &x->map);
		}
	}
	if (ret) {
		plan_file_name(pl, f, name);
		return ext4_set_err(x->b, ret, "cannot write file '%s': %s",
				    ext4_entry_path(x, pl->file_dir[f], name, path, sizeof(path)),
				    ret == -ENOSPC && !mapped ? "no blocks left for its mapping" :
						     strerror(-ret));
	}
	x->meta_files++;
	return 0;
}

/*
 * A FIFO, socket or device node: no blocks; a device's number in i_block
 * as the kernel writes it (old format in i_block[0] when major and minor
 * fit a byte, the new one in i_block[1] otherwise).
 */
static int write_special(struct ext4_build *x, uint32_t l)
{
	uint32_t i_block[EXT2_N_BLOCKS] = { 0 };
	struct plan_special sp;
	struct plan_meta m;
	char path[PATH_MAX], name[NAME_MAX_LEN + 1];
	int ret;

	plan_special_info(x->pl, l, &sp);
	plan_link_meta(x->pl, l, &m);
	if (sp.major < 256 && sp.minor < 256)
		i_block[0] = sp.major << 8 | sp.minor;
	else
		i_block[1] = (sp.minor & 0xff) | (sp.major << 8) | ((sp.minor & ~0xffu) << 12);
	ret = write_inode(x, x->link_ino[l], &m, 1, 0, 0, 0, i_block);
	if (ret) {
		plan_link_name(x->pl, l, name);
		return ext4_set_err(x->b, ret, "cannot write special file '%s': %s",
				    ext4_entry_path(x, x->pl->link_dir[l], name, path, sizeof(path)),
				    strerror(-ret));
	}
	return 0;
}

static int write_symlink(struct ext4_build *x, uint32_t l)
{
	const struct plan *pl = x->pl;
	ext2_ino_t ino = x->link_ino[l];
	uint32_t i_block[EXT2_N_BLOCKS] = { 0 };
	struct plan_meta m;
	char path[PATH_MAX], name[NAME_MAX_LEN + 1];
	errcode_t err;
	int len, ret;

	if (pl->link_kind[l] & LINK_SPECIAL)
		return write_special(x, l);
	plan_link_meta(pl, l, &m);
	len = plan_symlink_target(pl, l, x->tbuf, x->bs);
	if (len < 0) {
		ret = len;
	} else if (!x->link_blocks[l]) {
		/* fast: the target in i_block, no mapping */
		memcpy(i_block, x->tbuf, (size_t)len);
		ret = write_inode(x, ino, &m, 1, (uint64_t)len, 0, 0, i_block);
	} else {
		struct layout_extent run = { x->lo->link_block[l], 1 };

		ret = ext4_map_build(&x->map, x->fs, &run, 1, 1, x->extents, NULL);
		if (!ret)
			ret = write_inode(x, ino, &m, 1, (uint64_t)len, 1,
					  x->extents ? EXT4_EXTENTS_FL : 0, x->map.i_block);
		if (!ret)
			ret = ext4_buf_reserve(x, x->bs);
		if (!ret) {
			memset(x->buf, 0, x->bs);
			memcpy(x->buf, x->tbuf, (size_t)len);
			/* with the data around it, as a directory's blocks */
			err = 0;
			if (!ext4_data_stage(&x->data, run.pblk, 1, x->buf))
				err = io_channel_write_blk64(x->fs->io, run.pblk, 1, x->buf);
			ret = e2err_errno(err);
		}
		if (!ret)
			mark_range(x, run.pblk, 1);
	}
	if (ret) {
		plan_link_name(pl, l, name);
		return ext4_set_err(x->b, ret, "cannot write symlink '%s': %s",
				    ext4_entry_path(x, pl->link_dir[l], name, path, sizeof(path)),
				    strerror(-ret));
	}
	return 0;
}

/* Directories by first block; those without blocks (start 0) first. */
static int dir_block_cmp(const void *a, const void *b, void *arg)
{
	const uint64_t *start = arg;
	uint32_t i = *(const uint32_t *)a, k = *(const uint32_t *)b;

	if (start[i] != start[k])
		return start[i] < start[k] ? -1 : 1;
	return i < k ? -1 : i > k;
}

/*
 * The directories in the order of their blocks on disk, the root first,
 * or NULL for id order: the data workers go through the blocks in order,
 * and a directory block reaches them in their batch (ext4_data_stage())
 * only while they have not passed it.  Only when no file may take a
 * mapping block from the shared pool (sparse and preallocated files may),
 * since those are handed out in the order files are written.
 */
static uint32_t *dirs_by_block(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	uint32_t *order;

	if (!x->data.pool || x->sparse_files || prealloc_enabled(pl) || pl->ndirs < 3)
		return NULL;
	order = malloc((size_t)pl->ndirs * sizeof(*order));
	if (!order)
		return NULL; /* id order: the same bytes */
	for (uint32_t j = 0; j < pl->ndirs; j++)
		order[j] = j;
	qsort_r(order + 1, pl->ndirs - 1, sizeof(*order), dir_block_cmp, x->lo->dir_start);
	return order;
}

/*
 * Step 7: every inode, directory block and mapping block; the directories
 * by block (dirs_by_block()), each followed by its files and symlinks.
 */
static int write_metadata(struct ext4_build *x)
{
	static const struct ext4_inode_steps steps = { write_dir, write_file, write_symlink };
	uint32_t *order = dirs_by_block(x);
	errcode_t err;
	int ret;

	x->dirs_by_block = order != NULL;
	ret = ext4_each_inode_in(x, &steps, order);
	x->dirs_by_block = 0;
	free(order);
	ext4_stats_flush(&x->stats);

	/* what follows (xattrs, inline data of includes, close) goes through libext2fs */
	err = itable_lend(x);
	if (!ret && err)
		ret = ext4_set_err(x->b, e2err_errno(err), "cannot write the inode table of '%s': %s",
				   x->st->target, error_message(err));
	free(x->iblk);
	x->iblk = NULL;
	ext4_keep_release(x);
	return ret;
}

/* Steps 6 and 7: file data on worker threads while this one writes the metadata. */
int ext4_write_all(struct ext4_build *x)
{
	struct ext4_state *st = x->st;
	struct backend *b = x->b;
	int ret, data_ret, data_err;

	ret = ext4_data_init(&x->data, x->pl, x->lo, x->file_blocks, x->bs);
	if (ret)
		return ext4_set_err(b, ret,
				    ret == -EINVAL ?
					    "the layout's runs do not match the files' blocks" :
					    "out of memory");
	x->data.base = st->offset;
	x->data.no_stage = x->iblk_off; /* plain: every block through libext2fs (tests) */
	x->data.stage_bytes = x->stage_bytes;
	ret = ext4_data_start(&x->data, x->cs, st->data_fd, st->data_io, st->jobs, st->cancel);
	if (ret)
		return ext4_set_err(b, ret, "cannot start the data writers: %s", strerror(-ret));
	ret = write_metadata(x);
	ext4_data_meta_done(&x->data);
	if (!ret)
		ret = ext4_write_xattrs(x); /* after every layout block is marked in use */
	while (!ret && ext4_data_wait(&x->data, EXT4_WAIT_MS)) {
		if (ext4_cancelled(st))
			ret = ext4_set_err(b, -EINTR, "interrupted");
		else
			ext4_progress(x);
	}
	/* the workers' own error, from before they are told of this thread's */
	data_err = ret ? ext4_data_error(&x->data) : 0;
	data_ret = ext4_data_join(&x->data, ret);
	if (ret && data_err == -ENOSPC) {
		/*
		 * The target filled up under the workers: that is why this
		 * thread's write failed too, whatever libext2fs made of it (EIO,
		 * or ENOSPC read as no blocks left for a mapping).
		 */
		ret = ext4_set_err(b, data_err, "cannot write file data to '%s': %s", st->target,
				   strerror(-data_err));
	} else if (!ret && data_ret) {
		ret = data_ret;
		if (ret == -EINTR)
			ext4_set_err(b, ret, "interrupted");
		else
			ext4_set_err(b, ret, "cannot write file data to '%s': %s", st->target,
				     strerror(-ret));
	}
	return ret;
}

static int free_hist_add(blk64_t start, blk64_t len, void *arg)
{
	layout_free_hist_add(arg, start, len);
	return 0;
}

/*
 * For the summary: the free space the block bitmap leaves (free extents
 * across groups, as e2freefrag counts them), in res->free, whose
 * chunk_blocks the core has set.
 */
void ext4_report_free(const struct ext4_build *x, struct create_result *res)
{
	ext4_free_runs(x->fs, free_hist_add, &res->free);
}
