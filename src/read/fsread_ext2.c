/* fsread_ext2.c - the fsread reader of ext2/3/4 images and devices, through libext2fs */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>
#include <linux/fs.h>

#include "read/ext2_ahead.h"
#include "read/fsread_ops.h"
#include "util/e2err.h"
#include "util/util.h"

_Static_assert(FSREAD_ROOT_INO == EXT2_ROOT_INO, "the walk names the root by its ext2 inode");

/* The reader's state (fs->priv). */
struct image_reader {
	ext2_filsys fs;
	int fd;                /* our own read-only descriptor, for file data */
	uint64_t dev_bytes;
	uint64_t base;         /* a partitioned disk: where the file system starts, else 0 */
	uint64_t part_bytes;   /* and its partition's length */
	uint8_t *seen;         /* bit per inode: directory entered, or multi-link file met */
	pthread_mutex_t lock;  /* libext2fs calls from fsread_read() */
	struct ext2_inode_large inode;
	int cur_inline;        /* data in the inode (inline_data) */
	struct fsread_extent *free_ext;
	size_t nfree;
	int free_done;
};

#define IMG(fs) ((struct image_reader *)(fs)->priv)

/* A com_err message as the tail of ours: lower-case first letter, no full stop. */
static const char *ext2_msg(errcode_t code, char *buf, size_t len)
{
	size_t n;

	snprintf(buf, len, "%s", error_message(code));
	if (buf[0] && isupper((unsigned char)buf[0]) && !isupper((unsigned char)buf[1]))
		buf[0] = (char)tolower((unsigned char)buf[0]);
	n = strlen(buf);
	while (n && (buf[n - 1] == '.' || buf[n - 1] == '\n'))
		buf[--n] = '\0';
	return buf;
}

/*
 * Describe a libext2fs failure while reading `what` ("" at open): bad
 * magic, truncation and corruption each get their own words.  Returns
 * -EINVAL for bad magic (not an ext2/3/4 file system), else
 * e2err_errno(code): -EIO for corruption.
 */
static int ext2_fail(struct fsread *fs, struct fsread_error *err, errcode_t code,
		     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int ext2_fail(struct fsread *fs, struct fsread_error *err, errcode_t code,
		     const char *fmt, ...)
{
	char what[384] = "", m[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (code == EXT2_ET_BAD_MAGIC)
		fsread_set_err(err, "'%s': not an ext2/3/4 file system (bad magic)", fs->target);
	else if (code == EXT2_ET_SHORT_READ)
		fsread_set_err(err, "'%s': truncated: %s is beyond the end of the file", fs->target,
			what[0] ? what : "the superblock or a group descriptor");
	else if (code == EXT2_ET_UNSUPP_FEATURE)
		fsread_set_err(err, "'%s': uses ext2/3/4 features this libext2fs cannot read", fs->target);
	else if (code > 0 && code < 4096)
		fsread_set_err(err, "'%s': %s%s%s", fs->target, what[0] ? what : "", what[0] ? ": " : "",
			strerror((int)code));
	else
		fsread_set_err(err, "'%s': corrupt: %s%s%s", fs->target, what[0] ? what : "",
			what[0] ? ": " : "", ext2_msg(code, m, sizeof(m)));
	return code == EXT2_ET_BAD_MAGIC ? -EINVAL : e2err_errno(code);
}

/* ---- images and devices: libext2fs --------------------------------- */

static void xtime(int64_t *sec, uint32_t *nsec, __u32 lo, __u32 extra, int has_extra)
{
	*sec = (int32_t)lo;
	*nsec = 0;
	if (has_extra) {
		*sec += (int64_t)(extra & EXT4_EPOCH_MASK) << 32;
		*nsec = extra >> EXT4_EPOCH_BITS;
	}
}

#define FITS(inode, field) \
	((size_t)EXT2_GOOD_OLD_INODE_SIZE + (inode)->i_extra_isize >= \
	 offsetof(struct ext2_inode_large, field) + sizeof((inode)->field))

static void fill_from_inode(struct fsread *fs, ext2_ino_t ino)
{
	struct ext2_inode_large *in = &IMG(fs)->inode;
	struct fsread_entry *e = &fs->ent;
	int large = EXT2_INODE_SIZE(IMG(fs)->fs->super) > EXT2_GOOD_OLD_INODE_SIZE;
	uint16_t m = in->i_mode;

	e->ino = ino;
	e->mode = m;
	e->type = LINUX_S_ISREG(m) ? FSREAD_FILE : LINUX_S_ISDIR(m) ? FSREAD_DIR :
		  LINUX_S_ISLNK(m) ? FSREAD_SYMLINK : FSREAD_OTHER;
	e->size = EXT2_I_SIZE(in);
	e->uid = inode_uid(*in);
	e->gid = inode_gid(*in);
	e->nlink = in->i_links_count;
	xtime(&e->atime.sec, &e->atime.nsec, in->i_atime, in->i_atime_extra,
	      large && FITS(in, i_atime_extra));
	xtime(&e->mtime.sec, &e->mtime.nsec, in->i_mtime, in->i_mtime_extra,
	      large && FITS(in, i_mtime_extra));
	xtime(&e->ctime.sec, &e->ctime.nsec, in->i_ctime, in->i_ctime_extra,
	      large && FITS(in, i_ctime_extra));
	e->has_crtime = large && FITS(in, i_crtime);
	if (e->has_crtime)
		xtime(&e->crtime.sec, &e->crtime.nsec, in->i_crtime, in->i_crtime_extra,
		      FITS(in, i_crtime_extra));
	else
		e->crtime = (struct fsread_time){ 0, 0 };
}

static int check_run(struct fsread *fs, ext2_ino_t ino, uint64_t pblk, uint64_t len,
		     struct fsread_error *err)
{
	uint64_t nb = ext2fs_blocks_count(IMG(fs)->fs->super);

	if (pblk < IMG(fs)->fs->super->s_first_data_block || pblk >= nb || len > nb - pblk) {
		fsread_set_err(err, "'%s': corrupt: '%s' (inode %u) maps blocks %llu..%llu, outside the file system (%llu blocks)",
			fs->target, fs->path, ino, (unsigned long long)pblk,
			(unsigned long long)(pblk + len - 1), (unsigned long long)nb);
		return -EINVAL;
	}
	return 0;
}

static int image_extents(struct fsread *fs, ext2_ino_t ino, struct fsread_error *err)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ex;
	errcode_t code;
	int ret = 0;

	code = ext2fs_extent_open2(IMG(fs)->fs, ino, (struct ext2_inode *)&IMG(fs)->inode, &h);
	if (code)
		return ext2_fail(fs, err, code, "the extent tree of '%s' (inode %u)", fs->path, ino);
	code = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &ex);
	while (!code) {
		if ((ex.e_flags & EXT2_EXTENT_FLAGS_LEAF) &&
		    !(ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) && ex.e_len) {
			ret = check_run(fs, ino, ex.e_pblk, ex.e_len, err);
			if (!ret)
				ret = fsread_add_run(fs, ex.e_lblk, ex.e_pblk, ex.e_len,
					      (ex.e_flags & EXT2_EXTENT_FLAGS_UNINIT) ?
					      FSREAD_EXTENT_UNWRITTEN : 0);
			if (ret)
				goto out_free_handle;
		}
		code = ext2fs_extent_get(h, EXT2_EXTENT_NEXT_LEAF, &ex);
	}
	if (code != EXT2_ET_EXTENT_NO_NEXT && code != EXT2_ET_NO_CURRENT_NODE)
		ret = ext2_fail(fs, err, code, "the extent tree of '%s' (inode %u)", fs->path, ino);
out_free_handle:
	ext2fs_extent_free(h);
	return ret;
}

struct bmap_ctx {
	struct fsread *fs;
	ext2_ino_t ino;
	struct fsread_error *err;
	int ret;
};

static int bmap_cb(ext2_filsys efs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		   int ref_offset, void *priv)
{
	struct bmap_ctx *c = priv;

	(void)efs;
	(void)ref_blk;
	(void)ref_offset;
	if (blockcnt < 0) {
		/* an indirect block: only asked for (and kept) for directories */
		if (array_grow(&c->fs->mblk, &c->fs->mblk_cap, c->fs->nmblk + 1,
			       sizeof(*c->fs->mblk))) {
			c->ret = -ENOMEM;
			return BLOCK_ABORT;
		}
		c->fs->mblk[c->fs->nmblk++] = *blocknr;
		return 0;
	}
	c->ret = check_run(c->fs, c->ino, *blocknr, 1, c->err);
	if (!c->ret)
		c->ret = fsread_add_run(c->fs, (uint64_t)blockcnt, *blocknr, 1, 0);
	return c->ret ? BLOCK_ABORT : 0;
}

/* A block map's data runs; with meta, its indirect blocks too (fs->mblk, sorted). */
static int image_blockmap(struct fsread *fs, ext2_ino_t ino, int meta, struct fsread_error *err)
{
	struct bmap_ctx c = { fs, ino, err, 0 };
	errcode_t code;

	fs->nmblk = 0;
	code = ext2fs_block_iterate3(IMG(fs)->fs, ino,
				     BLOCK_FLAG_READ_ONLY | (meta ? 0 : BLOCK_FLAG_DATA_ONLY), NULL,
				     bmap_cb, &c);
	if (c.ret)
		return c.ret;
	if (code)
		return ext2_fail(fs, err, code, "the block map of '%s' (inode %u)", fs->path, ino);
	fsread_normalize_runs(fs);
	if (fs->nmblk)
		qsort(fs->mblk, fs->nmblk, sizeof(*fs->mblk), array_cmp_u64);
	return 0;
}

/* A directory's data runs (and a block map's indirect blocks), when the walk collects extents. */
static int image_dir_extents(struct fsread *fs, ext2_ino_t ino, struct fsread_error *err)
{
	struct fsread_entry *e = &fs->ent;
	int ret;

	if (!(fs->flags & FSREAD_EXTENTS) || (IMG(fs)->inode.i_flags & EXT4_INLINE_DATA_FL))
		return 0;
	if (IMG(fs)->inode.i_flags & EXT4_EXTENTS_FL) {
		ret = image_extents(fs, ino, err);
	} else {
		ret = image_blockmap(fs, ino, 1, err);
		e->map_blocks = fs->nmblk ? fs->mblk : NULL;
		e->nmap_blocks = fs->nmblk;
	}
	if (ret)
		return ret;
	for (size_t i = 0; i < fs->next; i++)
		e->blocks += fs->ext[i].len;
	e->extents = fs->ext ? fs->ext : fsread_no_extents;
	e->nextents = fs->next;
	return 0;
}

static int image_symlink(struct fsread *fs, ext2_ino_t ino, struct fsread_error *err)
{
	struct ext2_inode *in = (struct ext2_inode *)&IMG(fs)->inode;
	uint64_t size = EXT2_I_SIZE(in);
	errcode_t code;

	if (size >= fs->geo.block_size || size > 65536) {
		fsread_set_err(err, "'%s': corrupt: symbolic link '%s' (inode %u) claims %llu bytes",
			fs->target, fs->path, ino, (unsigned long long)size);
		return -EINVAL;
	}
	if (array_grow(&fs->link, &fs->link_cap, fs->geo.block_size + 1, 1))
		return -ENOMEM;
	if (in->i_flags & EXT4_INLINE_DATA_FL) {
		size_t got = 0;

		code = ext2fs_inline_data_get(IMG(fs)->fs, ino, in, fs->link, &got);
		if (code)
			return ext2_fail(fs, err, code, "symbolic link '%s' (inode %u)", fs->path, ino);
		if (got < size)
			size = got;
	} else if (ext2fs_is_fast_symlink(in)) {
		if (size > sizeof(in->i_block))
			size = sizeof(in->i_block);
		memcpy(fs->link, in->i_block, size);
	} else {
		blk64_t pblk = 0;

		code = ext2fs_bmap2(IMG(fs)->fs, ino, in, NULL, 0, 0, NULL, &pblk);
		if (code)
			return ext2_fail(fs, err, code, "symbolic link '%s' (inode %u)", fs->path, ino);
		if (check_run(fs, ino, pblk, 1, err))
			return -EINVAL;
		code = io_channel_read_blk64(IMG(fs)->fs->io, pblk, 1, fs->link);
		if (code)
			return ext2_fail(fs, err, code, "block %llu", (unsigned long long)pblk);
	}
	fs->link[size] = '\0';
	fs->ent.symlink_target = fs->link;
	fs->ent.symlink_len = strnlen(fs->link, size);
	return 0;
}

/*
 * The largest i_size a regular file can have here: 2^32 logical blocks
 * with extents, what the direct and 1-3 times indirect blocks reach
 * without, what fits in the inode for inline data; never more than 2^63 -
 * 1 (the kernel's loff_t).
 */
static uint64_t max_file_size(const struct fsread *fs, const struct ext2_inode_large *in)
{
	uint64_t bs = fs->geo.block_size, a = bs / 4, blocks;
	const uint64_t lim = INT64_MAX;

	if (in->i_flags & EXT4_INLINE_DATA_FL)
		return EXT2_INODE_SIZE(IMG(fs)->fs->super) + (uint64_t)fs->geo.block_size;
	if (in->i_flags & EXT4_EXTENTS_FL)
		blocks = UINT64_C(1) << 32;
	else
		blocks = EXT2_NDIR_BLOCKS + a + a * a + a * a * a;
	return blocks > lim / bs ? lim : blocks * bs;
}

static int bit_test_set(uint8_t *bits, uint64_t i)
{
	int was = (bits[i >> 3] >> (i & 7)) & 1;

	bits[i >> 3] |= (uint8_t)(1u << (i & 7));
	return was;
}

/*
 * Read inode ino for the entry at fs->path and fill fs->ent (type, times,
 * symlink target, extents).  Returns 0 or a negative errno with err set.
 */
static int image_entry(struct fsread *fs, ext2_ino_t ino, struct fsread_error *err)
{
	struct fsread_entry *e = &fs->ent;
	errcode_t code;
	int ret = 0;

	code = ext2fs_read_inode_full(IMG(fs)->fs, ino, (struct ext2_inode *)&IMG(fs)->inode,
				      sizeof(IMG(fs)->inode));
	if (code)
		return ext2_fail(fs, err, code, "inode %u of '%s'", ino, fs->path);
	if (EXT2_INODE_SIZE(IMG(fs)->fs->super) <= EXT2_GOOD_OLD_INODE_SIZE)
		IMG(fs)->inode.i_extra_isize = 0;
	else if (EXT2_GOOD_OLD_INODE_SIZE + IMG(fs)->inode.i_extra_isize >
		 EXT2_INODE_SIZE(IMG(fs)->fs->super))
		IMG(fs)->inode.i_extra_isize = 0;
	fill_from_inode(fs, ino);
	if (!IMG(fs)->inode.i_links_count || !IMG(fs)->inode.i_mode) {
		fsread_set_err(err, "'%s': corrupt: '%s' names inode %u, which is not in use",
			fs->target, fs->path, ino);
		return -EINVAL;
	}
	fsread_entry_reset(e);
	fs->next = 0;
	IMG(fs)->cur_inline = 0;
	if (e->type == FSREAD_FILE) {
		if (e->nlink > 1)
			e->first_name = !bit_test_set(IMG(fs)->seen, ino);
		uint64_t max = max_file_size(fs, &IMG(fs)->inode);

		if (e->size > max) {
			fsread_set_err(err, "'%s': corrupt: '%s' (inode %u) claims %llu bytes, more than the file system's largest file (%llu bytes)",
				fs->target, fs->path, ino, (unsigned long long)e->size,
				(unsigned long long)max);
			return -EINVAL;
		}
		if (IMG(fs)->inode.i_flags & EXT4_INLINE_DATA_FL)
			IMG(fs)->cur_inline = e->inline_data = 1;
		else if (IMG(fs)->inode.i_flags & EXT4_EXTENTS_FL)
			ret = image_extents(fs, ino, err);
		else
			ret = image_blockmap(fs, ino, 0, err);
		if (ret)
			return ret;
		for (size_t i = 0; i < fs->next; i++)
			e->blocks += fs->ext[i].len;
		if (fs->flags & FSREAD_EXTENTS) {
			e->extents = fs->ext ? fs->ext : fsread_no_extents;
			e->nextents = fs->next;
		}
	} else if (e->type == FSREAD_SYMLINK) {
		ret = image_symlink(fs, ino, err);
	} else if (e->type == FSREAD_DIR) {
		ret = image_dir_extents(fs, ino, err);
	}
	return ret;
}

struct dir_ctx {
	struct fsr_level *lv;
	int ret;
};

static int dir_cb(ext2_ino_t dir, int entry, struct ext2_dir_entry *d, int offset,
		  int blocksize, char *buf, void *priv)
{
	struct dir_ctx *c = priv;
	int len = ext2fs_dirent_name_len(d);

	(void)dir;
	(void)entry;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (!d->inode)
		return 0;
	if ((len == 1 && d->name[0] == '.') || (len == 2 && d->name[0] == '.' && d->name[1] == '.'))
		return 0;
	c->ret = fsread_level_add(c->lv, d->inode, d->name, (size_t)len);
	return c->ret ? DIRENT_ABORT : 0;
}

static int image_read_dir(struct fsread *fs, ext2_ino_t ino, struct fsr_level *lv,
			  struct fsread_error *err)
{
	struct dir_ctx c = { lv, 0 };
	errcode_t code;

	if (bit_test_set(IMG(fs)->seen, ino)) {
		fsread_set_err(err, "'%s': corrupt: directory '%s' (inode %u) appears twice in the tree",
			fs->target, fs->path, ino);
		return -EINVAL;
	}
	code = ext2fs_dir_iterate2(IMG(fs)->fs, ino, 0, NULL, dir_cb, &c);
	if (c.ret) {
		fsread_set_err(err, "'%s': %s", fs->target, strerror(-c.ret));
		return c.ret;
	}
	if (code)
		return ext2_fail(fs, err, code, "directory '%s' (inode %u)", fs->path, ino);
	fsread_level_sort(lv);
	return 0;
}

/*
 * What e2fsck's check_super_block() would not accept in a superblock that
 * ext2fs_open2() took: such an image is corrupt, and its figures would be
 * nonsense.  Returns 0, or -EINVAL with the field and its value named.
 */
static int check_super(struct fsread *fs, struct fsread_error *err)
{
	struct ext2_super_block *sb = IMG(fs)->fs->super;
	uint64_t blocks = ext2fs_blocks_count(sb), groups = IMG(fs)->fs->group_desc_count;
	unsigned bs = IMG(fs)->fs->blocksize;
	unsigned want_fdb = (sb->s_log_block_size == 0 && EXT2FS_CLUSTER_RATIO(IMG(fs)->fs) == 1) ? 1 : 0;
	const char *field = NULL;
	unsigned long long value = 0;
	char why[160] = "";

#define BAD(f, v, ...) do { field = (f); value = (unsigned long long)(v); \
		snprintf(why, sizeof(why), __VA_ARGS__); goto bad; } while (0)
	if (sb->s_first_data_block != want_fdb)
		BAD("first_data_block", sb->s_first_data_block, "must be %u for %u-byte blocks",
		    want_fdb, bs);
	if (!sb->s_inodes_count)
		BAD("inodes_count", sb->s_inodes_count, "must not be 0");
	if (!sb->s_inodes_per_group || sb->s_inodes_per_group > 8u * bs)
		BAD("inodes_per_group", sb->s_inodes_per_group, "must be 1..%u", 8u * bs);
	if ((uint64_t)sb->s_inodes_per_group * groups != sb->s_inodes_count)
		BAD("inodes_count", sb->s_inodes_count,
		    "must be inodes_per_group (%u) times the %llu groups", sb->s_inodes_per_group,
		    (unsigned long long)groups);
	if (sb->s_blocks_per_group < 8 || sb->s_blocks_per_group > 8u * bs * EXT2FS_CLUSTER_RATIO(IMG(fs)->fs))
		BAD("blocks_per_group", sb->s_blocks_per_group, "must be 8..%u",
		    8u * bs * EXT2FS_CLUSTER_RATIO(IMG(fs)->fs));
	if (blocks <= sb->s_first_data_block)
		BAD("blocks_count", blocks, "must be more than first_data_block (%u)",
		    sb->s_first_data_block);
	if (ext2fs_r_blocks_count(sb) > blocks / 2)
		BAD("r_blocks_count", ext2fs_r_blocks_count(sb), "must be at most half of the %llu blocks",
		    (unsigned long long)blocks);
	if (sb->s_rev_level > EXT2_GOOD_OLD_REV) {
		unsigned isz = sb->s_inode_size;

		if (sb->s_first_ino < EXT2_GOOD_OLD_FIRST_INO || sb->s_first_ino > sb->s_inodes_count)
			BAD("first_ino", sb->s_first_ino, "must be %u..%u", EXT2_GOOD_OLD_FIRST_INO,
			    sb->s_inodes_count);
		if (isz < EXT2_GOOD_OLD_INODE_SIZE || isz > bs || (isz & (isz - 1)))
			BAD("inode_size", isz, "must be a power of 2 from %u to %u",
			    EXT2_GOOD_OLD_INODE_SIZE, bs);
	}
	if (sb->s_inodes_count < EXT2_FIRST_INO(sb))
		BAD("inodes_count", sb->s_inodes_count, "must be at least first_ino (%u)",
		    EXT2_FIRST_INO(sb));
#undef BAD
	return 0;
bad:
	fsread_set_err(err, "'%s': corrupt superblock: %s is %llu (%s)", fs->target, field, value, why);
	return -EINVAL;
}

static int image_open(struct fsread *fs, struct fsread_error *err)
{
	char io_opts[40];
	int mflags = 0;
	errcode_t code;
	struct stat st;
	uint64_t need;

	fs->priv = calloc(1, sizeof(struct image_reader));
	if (!IMG(fs)) {
		fsread_set_err(err, "'%s': out of memory", fs->target);
		return -ENOMEM;
	}
	IMG(fs)->fd = -1;
	pthread_mutex_init(&IMG(fs)->lock, NULL);
	IMG(fs)->base = fs->place.start;
	IMG(fs)->part_bytes = fs->place.len;
	snprintf(fs->kind, sizeof(fs->kind), "an ext2/3/4 image or device");
	e2err_init();
	code = ext2fs_check_if_mounted(fs->target, &mflags);
	if (!code && (mflags & EXT2_MF_MOUNTED) && !(mflags & EXT2_MF_READONLY)) {
		fsread_set_err(err, "'%s' is mounted read-write: measure its mount point instead", fs->target);
		return -EBUSY;
	}
	IMG(fs)->fd = open(fs->target, O_RDONLY | O_CLOEXEC);
	if (IMG(fs)->fd < 0) {
		int e = errno;

		fsread_set_err(err, "cannot open '%s': %s", fs->target, strerror(e));
		return -e;
	}
	if (fstat(IMG(fs)->fd, &st)) {
		int e = errno;

		fsread_set_err(err, "'%s': %s", fs->target, strerror(e));
		return -e;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(IMG(fs)->fd, BLKGETSIZE64, &IMG(fs)->dev_bytes)) {
			int e = errno;

			fsread_set_err(err, "'%s': cannot get the device size: %s", fs->target, strerror(e));
			return -e;
		}
	} else {
		IMG(fs)->dev_bytes = (uint64_t)st.st_size;
	}
	if (fs->place.partno) /* the partition is the file system's room */
		IMG(fs)->dev_bytes = IMG(fs)->part_bytes;
	snprintf(io_opts, sizeof(io_opts), "offset=%llu", (unsigned long long)IMG(fs)->base);
	if (IMG(fs)->dev_bytes < 2048) {
		fsread_set_err(err, "'%s': not an ext2/3/4 file system (%llu bytes, too small for a superblock)",
			fs->target, (unsigned long long)IMG(fs)->dev_bytes);
		return -EINVAL;
	}
	if (fsread_refuse_marked(IMG(fs)->fd, IMG(fs)->base, fs->target, err))
		return -EBUSY;
	code = ext2fs_open2(fs->target, IMG(fs)->base ? io_opts : NULL, EXT2_FLAG_64BITS, 0, 0,
			    unix_io_manager, &IMG(fs)->fs);
	if (code) {
		IMG(fs)->fs = NULL;
		return ext2_fail(fs, err, code, "%s", "");
	}
	fs->geo.block_size = IMG(fs)->fs->blocksize;
	fs->geo.total_blocks = ext2fs_blocks_count(IMG(fs)->fs->super);
	fs->geo.group_blocks = EXT2_BLOCKS_PER_GROUP(IMG(fs)->fs->super);
	if (check_super(fs, err))
		return -EINVAL;
	if (ext2fs_has_feature_journal_needs_recovery(IMG(fs)->fs->super))
		fprintf(stderr, "imprint: note: '%s' has a journal to replay; reading what is on disk without it\n",
			fs->target);
	need = fs->geo.total_blocks * fs->geo.block_size;
	if (IMG(fs)->dev_bytes < need) {
		fsread_set_err(err, "'%s': truncated: block %llu is beyond the end of the file (%llu bytes; the file system has %llu blocks of %u bytes)",
			fs->target, (unsigned long long)(IMG(fs)->dev_bytes / fs->geo.block_size),
			(unsigned long long)IMG(fs)->dev_bytes, (unsigned long long)fs->geo.total_blocks,
			fs->geo.block_size);
		return -EINVAL;
	}
	ext2_ahead_dirs(IMG(fs)->fs, IMG(fs)->fd, IMG(fs)->base, 0);
	IMG(fs)->seen = calloc(IMG(fs)->fs->super->s_inodes_count / 8 + 2, 1);
	if (!IMG(fs)->seen) {
		fsread_set_err(err, "'%s': out of memory", fs->target);
		return -ENOMEM;
	}
	return 0;
}

/* Read from the image through the current file's extents; holes read as zeros. */
static ssize_t image_read(struct fsread *fs, const struct fsread_entry *e, char *buf, size_t len,
			  uint64_t off, struct fsread_error *err)
{
	uint64_t bs = fs->geo.block_size, end = off + len;
	size_t i = 0;

	if (IMG(fs)->cur_inline) {
		char *tmp;
		size_t got = 0;
		errcode_t code;

		tmp = malloc(EXT2_INODE_SIZE(IMG(fs)->fs->super) + fs->geo.block_size + 65536);
		if (!tmp)
			return -ENOMEM;
		pthread_mutex_lock(&IMG(fs)->lock);
		code = ext2fs_inline_data_get(IMG(fs)->fs, (ext2_ino_t)e->ino,
					      (struct ext2_inode *)&IMG(fs)->inode, tmp, &got);
		pthread_mutex_unlock(&IMG(fs)->lock);
		if (code) {
			free(tmp);
			return ext2_fail(fs, err, code, "the inline data of '%s'", e->path);
		}
		memset(buf, 0, len);
		if (off < got)
			memcpy(buf, tmp + off, (got - off) < len ? got - off : len);
		free(tmp);
		return (ssize_t)len;
	}
	memset(buf, 0, len);
	/* first extent that ends after off: the extents are sorted by logical block */
	{
		size_t lo = 0, hi = fs->next;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;

			if ((fs->ext[mid].logical + fs->ext[mid].len) * bs <= off)
				lo = mid + 1;
			else
				hi = mid;
		}
		i = lo;
	}
	for (; i < fs->next; i++) {
		const struct fsread_extent *x = &fs->ext[i];
		uint64_t xs = x->logical * bs, xe = (x->logical + x->len) * bs;
		uint64_t s = off > xs ? off : xs, t = end < xe ? end : xe;

		if (xs >= end)
			break;
		if (s >= t || (x->flags & FSREAD_EXTENT_UNWRITTEN))
			continue;
		for (uint64_t p = s; p < t;) {
			ssize_t n = pread(IMG(fs)->fd, buf + (p - off), t - p,
					  (off_t)(IMG(fs)->base + x->physical * bs + (p - xs)));

			if (n < 0) {
				int en = errno;

				if (en == EINTR)
					continue;
				fsread_set_err(err, "'%s': cannot read '%s': %s", fs->target, e->path,
					strerror(en));
				return -en;
			}
			if (n == 0) {
				fsread_set_err(err, "'%s': truncated: block %llu is beyond the end of the file",
					fs->target,
					(unsigned long long)(x->physical + (p - xs) / bs));
				return -EIO;
			}
			p += (uint64_t)n;
		}
	}
	return (ssize_t)len;
}

static int image_free_extents(struct fsread *fs, const struct fsread_extent **ext, size_t *n,
			      struct fsread_error *err)
{
	ext2fs_block_bitmap map;
	blk64_t start, end, z, s;
	errcode_t code;
	size_t cap = 0;

	if (IMG(fs)->free_done)
		goto out_done;
	pthread_mutex_lock(&IMG(fs)->lock);
	code = ext2fs_read_block_bitmap(IMG(fs)->fs);
	pthread_mutex_unlock(&IMG(fs)->lock);
	if (code)
		return ext2_fail(fs, err, code, "the block bitmap");
	map = IMG(fs)->fs->block_map;
	start = IMG(fs)->fs->super->s_first_data_block;
	end = ext2fs_blocks_count(IMG(fs)->fs->super) - 1;
	while (start <= end) {
		code = ext2fs_find_first_zero_block_bitmap2(map, start, end, &z);
		if (code == ENOENT)
			break;
		if (code)
			return ext2_fail(fs, err, code, "the block bitmap");
		code = ext2fs_find_first_set_block_bitmap2(map, z, end, &s);
		if (code == ENOENT)
			s = end + 1;
		else if (code)
			return ext2_fail(fs, err, code, "the block bitmap");
		if (array_grow(&IMG(fs)->free_ext, &cap, IMG(fs)->nfree + 1, sizeof(*IMG(fs)->free_ext))) {
			fsread_set_err(err, "'%s': out of memory", fs->target);
			return -ENOMEM;
		}
		IMG(fs)->free_ext[IMG(fs)->nfree++] = (struct fsread_extent){ 0, z, s - z, 0 };
		start = s + 1;
	}
	IMG(fs)->free_done = 1;
out_done:
	*ext = IMG(fs)->free_ext;
	*n = IMG(fs)->nfree;
	return 0;
}

static void image_close(struct fsread *fs)
{
	struct image_reader *r = IMG(fs);

	if (!r)
		return;
	if (r->fs)
		ext2fs_close_free(&r->fs);
	if (r->fd >= 0)
		close(r->fd);
	pthread_mutex_destroy(&r->lock);
	FREE_ALL(r->seen, r->free_ext, r);
	fs->priv = NULL;
}

static int image_xattrs(struct fsread *fs, const struct fsread_entry *e, struct fsread_xattrs *x,
			struct fsread_error *err)
{
	return fsread_ext2_xattrs_of(fs, IMG(fs)->fs, &IMG(fs)->lock, e, x, err);
}

/* Images and devices whose superblock libblkid calls ext2/3/4, and those it names nothing (bad magic is ours to say). */
static int image_probe(const struct fsread_probe *p)
{
	return !p->is_dir && (!p->type[0] || fsread_is_ext_type(p->type));
}

static int image_root(struct fsread *fs, struct fsread_error *err)
{
	return image_entry(fs, EXT2_ROOT_INO, err);
}

static int image_dirent(struct fsread *fs, const struct fsr_level *lv, const struct fsr_dent *d,
			const char *name, struct fsread_error *err)
{
	(void)lv;
	(void)name;
	if (d->ino > IMG(fs)->fs->super->s_inodes_count || d->ino < 1) {
		fsread_set_err(err, "'%s': corrupt: '%s' names inode %llu, beyond the file system's %u",
			fs->target, fs->path, (unsigned long long)d->ino,
			IMG(fs)->fs->super->s_inodes_count);
		return -EINVAL;
	}
	return image_entry(fs, (ext2_ino_t)d->ino, err);
}

static int image_dir(struct fsread *fs, const struct fsr_level *parent, const char *name,
		     struct fsr_level *lv, struct fsread_error *err)
{
	(void)name;
	return image_read_dir(fs, parent ? (ext2_ino_t)fs->ent.ino : EXT2_ROOT_INO, lv, err);
}

const struct fsread_ops fsread_ext2_ops = {
	.name = "ext2",
	.image = 1,
	.probe = image_probe,
	.open = image_open,
	.close = image_close,
	.root = image_root,
	.entry = image_dirent,
	.read_dir = image_dir,
	.read = image_read,
	.xattrs = image_xattrs,
	.free_extents = image_free_extents,
};
