/* fsread.c - read-only walk of an ext2/3/4 image or device (libext2fs) or of a mounted tree */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#include "readback/fsread.h"
#include "util/array.h"
#include "util/e2err.h"
#include "util/fiemap.h"

/* Deeper than this, a tree is taken for a loop or a corruption. */
#define FSREAD_MAX_DEPTH 2048

/* One name of a directory, before sorting. */
struct fsr_dent {
	uint64_t ino;
	size_t name_off;
	uint32_t name_len;
};

/* A directory being walked: its sorted names and where the walk is. */
struct fsr_level {
	struct fsr_dent *d;
	size_t n, cap, next;
	char *names;
	size_t nlen, ncap;
	size_t path_len;       /* length of the directory's path ("" for the root) */
	int fd;                /* mounted trees: the directory, open */
};

/* Helper threads that read a mounted tree ahead of the walk (cold caches). */
#define FSREAD_PREFETCH_THREADS 8

struct fsr_prefetch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char **stack;          /* directories to read, relative to the root ("." first) */
	size_t n, cap;
	unsigned busy;         /* helpers reading a directory */
	int stop;
	int rootfd;
	pthread_t th[FSREAD_PREFETCH_THREADS];
	unsigned nth;
	int started;
};

/* Inodes met with more than one name (mounted trees): open addressing. */
struct fsr_inoset {
	uint64_t *slot;        /* ino + 1; 0 is empty */
	size_t cap, n;
};

struct fsread {
	char *target;
	unsigned flags;
	int image;
	unsigned block_size;
	uint64_t total_blocks;

	/* images and devices */
	ext2_filsys fs;
	int fd;                /* our own read-only descriptor, for file data */
	uint64_t dev_bytes;
	uint8_t *seen;         /* bit per inode: directory entered, or multi-link file met */
	pthread_mutex_t lock;  /* libext2fs calls from fsread_read() */

	/* mounted trees */
	int rootfd;
	dev_t dev;
	uint64_t mnt_id;
	int has_mnt_id;
	int no_fiemap;         /* the file system does not support FIEMAP */
	uint64_t unreadable;   /* directories not entered, files not opened: permission */
	struct fsr_inoset multi;
	struct fsr_prefetch pf;

	/* the entry handed to the callback, and what reading it needs */
	struct fsread_entry ent;
	char *path;
	size_t path_cap;
	struct fsread_extent *ext;
	size_t next, ext_cap;
	struct fsread_extent *unp;   /* mounted: data FIEMAP gives no place (delayed allocation) */
	size_t nunp, unp_cap;
	char *link;
	size_t link_cap;
	struct ext2_inode_large inode;
	int cur_inline;        /* images: data in the inode (inline_data) */
	int cur_fd;            /* mounted: the open file, or -1 */
	int cur_dirfd;
	pthread_mutex_t open_lock;

	struct fsread_extent *free_ext;
	size_t nfree;
	int free_done;
};

static void set_err(struct fsread_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_err(struct fsread_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

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
		set_err(err, "'%s': not an ext2/3/4 file system (bad magic)", fs->target);
	else if (code == EXT2_ET_SHORT_READ)
		set_err(err, "'%s': truncated: %s is beyond the end of the file", fs->target,
			what[0] ? what : "the superblock or a group descriptor");
	else if (code == EXT2_ET_UNSUPP_FEATURE)
		set_err(err, "'%s': uses ext2/3/4 features this libext2fs cannot read", fs->target);
	else if (code > 0 && code < 4096)
		set_err(err, "'%s': %s%s%s", fs->target, what[0] ? what : "", what[0] ? ": " : "",
			strerror((int)code));
	else
		set_err(err, "'%s': corrupt: %s%s%s", fs->target, what[0] ? what : "",
			what[0] ? ": " : "", ext2_msg(code, m, sizeof(m)));
	return code == EXT2_ET_BAD_MAGIC ? -EINVAL : e2err_errno(code);
}

/* The extents of a file that has none (entries' extents are never NULL when known). */
static const struct fsread_extent no_extents[1];

/* Append a run, merging it into the last one when it continues it. */
static int add_run(struct fsread *fs, uint64_t logical, uint64_t physical, uint64_t len,
		   uint32_t flags)
{
	struct fsread_extent *l = fs->next ? &fs->ext[fs->next - 1] : NULL;

	if (!len)
		return 0;
	if (l && l->flags == flags && l->logical + l->len == logical &&
	    l->physical + l->len == physical) {
		l->len += len;
		return 0;
	}
	if (array_grow(&fs->ext, &fs->ext_cap, fs->next + 1, sizeof(*fs->ext)))
		return -ENOMEM;
	fs->ext[fs->next++] = (struct fsread_extent){ logical, physical, len, flags };
	return 0;
}

static int cmp_ext_logical(const void *a, const void *b)
{
	const struct fsread_extent *x = a, *y = b;

	return (x->logical > y->logical) - (x->logical < y->logical);
}

/* Sort by logical block and merge again (FIEMAP and block maps come in order; this is cheap). */
static void normalize_runs(struct fsread *fs)
{
	size_t w = 0;

	for (size_t i = 1; i < fs->next; i++) {
		if (fs->ext[i].logical < fs->ext[i - 1].logical) {
			qsort(fs->ext, fs->next, sizeof(*fs->ext), cmp_ext_logical);
			break;
		}
	}
	for (size_t i = 0; i < fs->next; i++) {
		struct fsread_extent *l = w ? &fs->ext[w - 1] : NULL, *e = &fs->ext[i];

		if (l && l->flags == e->flags && l->logical + l->len == e->logical &&
		    l->physical + l->len == e->physical)
			l->len += e->len;
		else
			fs->ext[w++] = *e;
	}
	fs->next = w;
}

static int path_set(struct fsread *fs, size_t base, const char *name, size_t len)
{
	if (array_grow(&fs->path, &fs->path_cap, base + len + 2, 1))
		return -ENOMEM;
	fs->path[base] = '/';
	memcpy(fs->path + base + 1, name, len);
	fs->path[base + 1 + len] = '\0';
	return 0;
}

static int level_add(struct fsr_level *lv, uint64_t ino, const char *name, size_t len)
{
	if (array_grow(&lv->d, &lv->cap, lv->n + 1, sizeof(*lv->d)) ||
	    array_grow(&lv->names, &lv->ncap, lv->nlen + len + 1, 1))
		return -ENOMEM;
	memcpy(lv->names + lv->nlen, name, len);
	lv->names[lv->nlen + len] = '\0';
	lv->d[lv->n++] = (struct fsr_dent){ ino, lv->nlen, (uint32_t)len };
	lv->nlen += len + 1;
	return 0;
}

static int cmp_dent(const void *a, const void *b, void *ctx)
{
	const struct fsr_dent *x = a, *y = b;
	const char *names = ctx;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(names + x->name_off, names + y->name_off, n);

	if (c)
		return c;
	return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

static void level_sort(struct fsr_level *lv)
{
	if (lv->n > 1)
		qsort_r(lv->d, lv->n, sizeof(*lv->d), cmp_dent, lv->names);
}

static void levels_free(struct fsr_level *lv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(lv[i].d);
		free(lv[i].names);
		if (lv[i].fd >= 0)
			close(lv[i].fd);
	}
	free(lv);
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
	struct ext2_inode_large *in = &fs->inode;
	struct fsread_entry *e = &fs->ent;
	int large = EXT2_INODE_SIZE(fs->fs->super) > EXT2_GOOD_OLD_INODE_SIZE;
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
	uint64_t nb = ext2fs_blocks_count(fs->fs->super);

	if (pblk < fs->fs->super->s_first_data_block || pblk >= nb || len > nb - pblk) {
		set_err(err, "'%s': corrupt: '%s' (inode %u) maps blocks %llu..%llu, outside the file system (%llu blocks)",
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

	code = ext2fs_extent_open2(fs->fs, ino, (struct ext2_inode *)&fs->inode, &h);
	if (code)
		return ext2_fail(fs, err, code, "the extent tree of '%s' (inode %u)", fs->path, ino);
	code = ext2fs_extent_get(h, EXT2_EXTENT_ROOT, &ex);
	while (!code) {
		if ((ex.e_flags & EXT2_EXTENT_FLAGS_LEAF) &&
		    !(ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT) && ex.e_len) {
			ret = check_run(fs, ino, ex.e_pblk, ex.e_len, err);
			if (!ret)
				ret = add_run(fs, ex.e_lblk, ex.e_pblk, ex.e_len,
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
	if (blockcnt < 0)
		return 0;
	c->ret = check_run(c->fs, c->ino, *blocknr, 1, c->err);
	if (!c->ret)
		c->ret = add_run(c->fs, (uint64_t)blockcnt, *blocknr, 1, 0);
	return c->ret ? BLOCK_ABORT : 0;
}

static int image_blockmap(struct fsread *fs, ext2_ino_t ino, struct fsread_error *err)
{
	struct bmap_ctx c = { fs, ino, err, 0 };
	errcode_t code;

	code = ext2fs_block_iterate3(fs->fs, ino, BLOCK_FLAG_READ_ONLY | BLOCK_FLAG_DATA_ONLY,
				     NULL, bmap_cb, &c);
	if (c.ret)
		return c.ret;
	if (code)
		return ext2_fail(fs, err, code, "the block map of '%s' (inode %u)", fs->path, ino);
	normalize_runs(fs);
	return 0;
}

static int image_symlink(struct fsread *fs, ext2_ino_t ino, struct fsread_error *err)
{
	struct ext2_inode *in = (struct ext2_inode *)&fs->inode;
	uint64_t size = EXT2_I_SIZE(in);
	errcode_t code;

	if (size >= fs->block_size || size > 65536) {
		set_err(err, "'%s': corrupt: symbolic link '%s' (inode %u) claims %llu bytes",
			fs->target, fs->path, ino, (unsigned long long)size);
		return -EINVAL;
	}
	if (array_grow(&fs->link, &fs->link_cap, fs->block_size + 1, 1))
		return -ENOMEM;
	if (in->i_flags & EXT4_INLINE_DATA_FL) {
		size_t got = 0;

		code = ext2fs_inline_data_get(fs->fs, ino, in, fs->link, &got);
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

		code = ext2fs_bmap2(fs->fs, ino, in, NULL, 0, 0, NULL, &pblk);
		if (code)
			return ext2_fail(fs, err, code, "symbolic link '%s' (inode %u)", fs->path, ino);
		if (check_run(fs, ino, pblk, 1, err))
			return -EINVAL;
		code = io_channel_read_blk64(fs->fs->io, pblk, 1, fs->link);
		if (code)
			return ext2_fail(fs, err, code, "block %llu", (unsigned long long)pblk);
	}
	fs->link[size] = '\0';
	fs->ent.symlink_target = fs->link;
	fs->ent.symlink_len = strnlen(fs->link, size);
	return 0;
}

static int bit_test_set(uint8_t *bits, uint64_t i)
{
	int was = (bits[i >> 3] >> (i & 7)) & 1;

	bits[i >> 3] |= (uint8_t)(1u << (i & 7));
	return was;
}

/* What an entry holds before its inode is read: no target, no extents, a first name. */
static void entry_reset(struct fsread_entry *e)
{
	e->symlink_target = NULL;
	e->symlink_len = 0;
	e->extents = NULL;
	e->nextents = 0;
	e->unplaced = NULL;
	e->nunplaced = 0;
	e->blocks = 0;
	e->extents_unknown = 0;
	e->inline_data = 0;
	e->first_name = 1;
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

	code = ext2fs_read_inode_full(fs->fs, ino, (struct ext2_inode *)&fs->inode,
				      sizeof(fs->inode));
	if (code)
		return ext2_fail(fs, err, code, "inode %u of '%s'", ino, fs->path);
	if (EXT2_INODE_SIZE(fs->fs->super) <= EXT2_GOOD_OLD_INODE_SIZE)
		fs->inode.i_extra_isize = 0;
	else if (EXT2_GOOD_OLD_INODE_SIZE + fs->inode.i_extra_isize >
		 EXT2_INODE_SIZE(fs->fs->super))
		fs->inode.i_extra_isize = 0;
	fill_from_inode(fs, ino);
	if (!fs->inode.i_links_count || !fs->inode.i_mode) {
		set_err(err, "'%s': corrupt: '%s' names inode %u, which is not in use",
			fs->target, fs->path, ino);
		return -EINVAL;
	}
	entry_reset(e);
	fs->next = 0;
	fs->cur_inline = 0;
	if (e->type == FSREAD_FILE) {
		if (e->nlink > 1)
			e->first_name = !bit_test_set(fs->seen, ino);
		if (fs->inode.i_flags & EXT4_INLINE_DATA_FL)
			fs->cur_inline = e->inline_data = 1;
		else if (fs->inode.i_flags & EXT4_EXTENTS_FL)
			ret = image_extents(fs, ino, err);
		else
			ret = image_blockmap(fs, ino, err);
		if (ret)
			return ret;
		for (size_t i = 0; i < fs->next; i++)
			e->blocks += fs->ext[i].len;
		if (fs->flags & FSREAD_EXTENTS) {
			e->extents = fs->ext ? fs->ext : no_extents;
			e->nextents = fs->next;
		}
	} else if (e->type == FSREAD_SYMLINK) {
		ret = image_symlink(fs, ino, err);
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
	c->ret = level_add(c->lv, d->inode, d->name, (size_t)len);
	return c->ret ? DIRENT_ABORT : 0;
}

static int image_read_dir(struct fsread *fs, ext2_ino_t ino, struct fsr_level *lv,
			  struct fsread_error *err)
{
	struct dir_ctx c = { lv, 0 };
	errcode_t code;

	if (bit_test_set(fs->seen, ino)) {
		set_err(err, "'%s': corrupt: directory '%s' (inode %u) appears twice in the tree",
			fs->target, fs->path, ino);
		return -EINVAL;
	}
	code = ext2fs_dir_iterate2(fs->fs, ino, 0, NULL, dir_cb, &c);
	if (c.ret) {
		set_err(err, "'%s': %s", fs->target, strerror(-c.ret));
		return c.ret;
	}
	if (code)
		return ext2_fail(fs, err, code, "directory '%s' (inode %u)", fs->path, ino);
	level_sort(lv);
	return 0;
}

struct range {
	uint64_t start, len;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Directory blocks an inode names directly (extent tree of depth 0, or direct blocks). */
static int dir_ranges(const struct ext2_inode *in, struct range **r, size_t *n, size_t *cap)
{
	if (in->i_flags & EXT4_INLINE_DATA_FL)
		return 0;
	if (in->i_flags & EXT4_EXTENTS_FL) {
		const struct ext3_extent_header *h = (const void *)in->i_block;
		const struct ext3_extent *x = (const void *)(h + 1);

		if (ext2fs_le16_to_cpu(h->eh_magic) != EXT3_EXT_MAGIC || h->eh_depth ||
		    ext2fs_le16_to_cpu(h->eh_entries) > 4)
			return 0;
		for (unsigned i = 0; i < ext2fs_le16_to_cpu(h->eh_entries); i++) {
			uint64_t len = ext2fs_le16_to_cpu(x[i].ee_len);

			if (len > EXT_INIT_MAX_LEN)
				len -= EXT_INIT_MAX_LEN;
			if (array_grow(r, cap, *n + 1, sizeof(**r)))
				return -ENOMEM;
			(*r)[(*n)++] = (struct range){
				ext2fs_le32_to_cpu(x[i].ee_start) |
				((uint64_t)ext2fs_le16_to_cpu(x[i].ee_start_hi) << 32), len };
		}
		return 0;
	}
	for (unsigned i = 0; i < EXT2_NDIR_BLOCKS; i++) {
		if (!in->i_block[i])
			continue;
		if (array_grow(r, cap, *n + 1, sizeof(**r)))
			return -ENOMEM;
		(*r)[(*n)++] = (struct range){ in->i_block[i], 1 };
	}
	return 0;
}

/*
 * Warm the page cache before the walk: one sequential pass over the inode
 * tables (the kernel keeps them), then a readahead request for every
 * directory block found there, in disk order.  The walk then reads
 * inodes and directories in tree order from memory instead of waiting on
 * one small random read each.  Best effort: any trouble just stops it
 * (the walk reports real errors).
 */
static void prefetch(struct fsread *fs)
{
	struct ext2_inode_large in;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct range *r = NULL;
	size_t n = 0, cap = 0;

	if (ext2fs_open_inode_scan(fs->fs, 512, &scan))
		return;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	while (!ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&in, sizeof(in)) &&
	       ino) {
		if (!in.i_links_count || !LINUX_S_ISDIR(in.i_mode))
			continue;
		if (dir_ranges((struct ext2_inode *)&in, &r, &n, &cap))
			break;
	}
	ext2fs_close_inode_scan(scan);
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 0; i < n;) {
		uint64_t s = r[i].start, e = s + r[i].len;

		/* runs a few blocks apart make one request */
		for (i++; i < n && r[i].start <= e + 8; i++)
			if (r[i].start + r[i].len > e)
				e = r[i].start + r[i].len;
		if (e <= fs->total_blocks)
			posix_fadvise(fs->fd, (off_t)(s * fs->block_size),
				      (off_t)((e - s) * fs->block_size), POSIX_FADV_WILLNEED);
	}
	free(r);
}

static int image_open(struct fsread *fs, struct fsread_error *err)
{
	int mflags = 0;
	errcode_t code;
	struct stat st;
	uint64_t need;

	e2err_init();
	code = ext2fs_check_if_mounted(fs->target, &mflags);
	if (!code && (mflags & EXT2_MF_MOUNTED) && !(mflags & EXT2_MF_READONLY)) {
		set_err(err, "'%s' is mounted read-write: measure its mount point instead", fs->target);
		return -EBUSY;
	}
	fs->fd = open(fs->target, O_RDONLY | O_CLOEXEC);
	if (fs->fd < 0) {
		int e = errno;

		set_err(err, "cannot open '%s': %s", fs->target, strerror(e));
		return -e;
	}
	if (fstat(fs->fd, &st)) {
		int e = errno;

		set_err(err, "'%s': %s", fs->target, strerror(e));
		return -e;
	}
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fs->fd, BLKGETSIZE64, &fs->dev_bytes)) {
			int e = errno;

			set_err(err, "'%s': cannot get the device size: %s", fs->target, strerror(e));
			return -e;
		}
	} else {
		fs->dev_bytes = (uint64_t)st.st_size;
	}
	if (fs->dev_bytes < 2048) {
		set_err(err, "'%s': not an ext2/3/4 file system (%llu bytes, too small for a superblock)",
			fs->target, (unsigned long long)fs->dev_bytes);
		return -EINVAL;
	}
	code = ext2fs_open2(fs->target, NULL, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs->fs);
	if (code) {
		fs->fs = NULL;
		return ext2_fail(fs, err, code, "%s", "");
	}
	fs->block_size = fs->fs->blocksize;
	fs->total_blocks = ext2fs_blocks_count(fs->fs->super);
	if (ext2fs_has_feature_journal_needs_recovery(fs->fs->super))
		fprintf(stderr, "imprint: note: '%s' has a journal to replay; reading what is on disk without it\n",
			fs->target);
	need = fs->total_blocks * fs->block_size;
	if (fs->dev_bytes < need) {
		set_err(err, "'%s': truncated: block %llu is beyond the end of the file (%llu bytes; the file system has %llu blocks of %u bytes)",
			fs->target, (unsigned long long)(fs->dev_bytes / fs->block_size),
			(unsigned long long)fs->dev_bytes, (unsigned long long)fs->total_blocks,
			fs->block_size);
		return -EINVAL;
	}
	prefetch(fs);
	fs->seen = calloc(fs->fs->super->s_inodes_count / 8 + 2, 1);
	if (!fs->seen) {
		set_err(err, "'%s': out of memory", fs->target);
		return -ENOMEM;
	}
	return 0;
}

/* ---- mounted trees --------------------------------------------------- */

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

/* Add ino; returns 1 when it was there already, 0 when added, -ENOMEM. */
static int inoset_add(struct fsr_inoset *s, uint64_t ino)
{
	size_t i;

	if ((s->n + 1) * 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *slot = calloc(cap, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (size_t k = 0; k < s->cap; k++) {
			if (!s->slot[k])
				continue;
			for (i = mix64(s->slot[k]) & (cap - 1); slot[i]; i = (i + 1) & (cap - 1))
				;
			slot[i] = s->slot[k];
		}
		free(s->slot);
		s->slot = slot;
		s->cap = cap;
	}
	for (i = mix64(ino + 1) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == ino + 1)
			return 1;
	s->slot[i] = ino + 1;
	s->n++;
	return 0;
}

static int sys_fail(struct fsread *fs, struct fsread_error *err, int e, const char *what)
{
	set_err(err, "'%s': cannot %s '%s': %s", fs->target, what, fs->path, strerror(e));
	return -e;
}

/*
 * The prefetch helpers: each takes a directory, reads it and stats its
 * entries (which loads their inodes into the kernel's caches) and queues
 * its subdirectories.  Nothing they learn is used: the walk stats
 * everything again, in order, from warm caches.  Paths resolve beneath
 * the root without symlinks or mount crossings (openat2).
 */
static void *prefetch_main(void *arg)
{
	struct fsr_prefetch *pf = arg;

	for (;;) {
		struct open_how how = {
			.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
		};
		char **sub = NULL, *path;
		size_t nsub = 0, capsub = 0, plen;
		struct dirent *d;
		DIR *dir;
		int fd;

		pthread_mutex_lock(&pf->mu);
		while (!pf->stop && !pf->n && pf->busy)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->stop || !pf->n) {
			pthread_cond_broadcast(&pf->cv);
			pthread_mutex_unlock(&pf->mu);
			return NULL;
		}
		path = pf->stack[--pf->n];
		pf->busy++;
		pthread_mutex_unlock(&pf->mu);

		plen = strlen(path);
		fd = (int)syscall(SYS_openat2, pf->rootfd, path, &how, sizeof(how));
		dir = fd >= 0 ? fdopendir(fd) : NULL;
		if (!dir && fd >= 0)
			close(fd);
		while (dir && !__atomic_load_n(&pf->stop, __ATOMIC_RELAXED) && (d = readdir(dir))) {
			struct stat st;
			char *p;

			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
				continue;
			if (array_grow(&sub, &capsub, nsub + 1, sizeof(*sub)))
				break;
			p = malloc(plen + strlen(d->d_name) + 2);
			if (!p)
				break;
			sprintf(p, "%s/%s", path, d->d_name);
			sub[nsub++] = p;
		}
		if (dir)
			closedir(dir);
		free(path);

		pthread_mutex_lock(&pf->mu);
		pf->busy--;
		for (size_t i = 0; i < nsub; i++) {
			if (pf->stop || array_grow(&pf->stack, &pf->cap, pf->n + 1,
					     sizeof(*pf->stack))) {
				free(sub[i]);
				continue;
			}
			/* the walk goes in name order: have the first names read first */
			pf->stack[pf->n++] = sub[nsub - 1 - i];
		}
		pthread_cond_broadcast(&pf->cv);
		pthread_mutex_unlock(&pf->mu);
		free(sub);
	}
}

static void prefetch_start(struct fsread *fs)
{
	struct fsr_prefetch *pf = &fs->pf;
	char *root = strdup(".");

	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	pf->started = 1;
	pf->rootfd = fs->rootfd;
	if (!root || array_grow(&pf->stack, &pf->cap, 1, sizeof(*pf->stack))) {
		free(root);
		return;
	}
	pf->stack[pf->n++] = root;
	for (unsigned i = 0; i < FSREAD_PREFETCH_THREADS; i++)
		if (!pthread_create(&pf->th[pf->nth], NULL, prefetch_main, pf))
			pf->nth++;
}

static void prefetch_stop(struct fsread *fs)
{
	struct fsr_prefetch *pf = &fs->pf;

	if (!pf->started)
		return;
	pthread_mutex_lock(&pf->mu);
	__atomic_store_n(&pf->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	for (unsigned i = 0; i < pf->nth; i++)
		pthread_join(pf->th[i], NULL);
	for (size_t i = 0; i < pf->n; i++)
		free(pf->stack[i]);
	free(pf->stack);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	memset(pf, 0, sizeof(*pf));
}

static int mounted_open(struct fsread *fs, struct fsread_error *err)
{
	struct statfs sf;
	struct statx stx;

	fs->rootfd = open(fs->target, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->rootfd < 0) {
		int e = errno;

		set_err(err, "cannot open '%s': %s", fs->target, strerror(e));
		return -e;
	}
	if (fstatfs(fs->rootfd, &sf) ||
	    statx(fs->rootfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, &stx)) {
		int e = errno;

		set_err(err, "'%s': %s", fs->target, strerror(e));
		return -e;
	}
	fs->block_size = (unsigned)sf.f_bsize;
	fs->total_blocks = (uint64_t)sf.f_blocks * ((uint64_t)sf.f_frsize ? sf.f_frsize : sf.f_bsize) /
			   fs->block_size;
	fs->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	fs->has_mnt_id = !!(stx.stx_mask & STATX_MNT_ID);
	fs->mnt_id = stx.stx_mnt_id;
	return 0;
}

static void fill_from_statx(struct fsread_entry *e, const struct statx *x)
{
	uint16_t m = x->stx_mode;

	e->ino = x->stx_ino;
	e->mode = m;
	e->type = S_ISREG(m) ? FSREAD_FILE : S_ISDIR(m) ? FSREAD_DIR :
		  S_ISLNK(m) ? FSREAD_SYMLINK : FSREAD_OTHER;
	e->size = x->stx_size;
	e->uid = x->stx_uid;
	e->gid = x->stx_gid;
	e->nlink = x->stx_nlink;
	e->atime = (struct fsread_time){ x->stx_atime.tv_sec, x->stx_atime.tv_nsec };
	e->mtime = (struct fsread_time){ x->stx_mtime.tv_sec, x->stx_mtime.tv_nsec };
	e->ctime = (struct fsread_time){ x->stx_ctime.tv_sec, x->stx_ctime.tv_nsec };
	e->has_crtime = !!(x->stx_mask & STATX_BTIME);
	e->crtime = e->has_crtime ?
		(struct fsread_time){ x->stx_btime.tv_sec, x->stx_btime.tv_nsec } :
		(struct fsread_time){ 0, 0 };
}

/* Open the current regular file (fs->ent) for reading, once. */
static int mounted_open_file(struct fsread *fs, struct fsread_error *err)
{
	int fd, ret = 0;
	struct stat st;

	pthread_mutex_lock(&fs->open_lock);
	if (fs->cur_fd >= 0)
		goto out_unlock;
	fd = openat(fs->cur_dirfd, fs->ent.name,
		    O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(fs->cur_dirfd, fs->ent.name,
			    O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = sys_fail(fs, err, errno, "open");
		goto out_unlock;
	}
	if (fstat(fd, &st) || st.st_ino != fs->ent.ino || !S_ISREG(st.st_mode)) {
		close(fd);
		set_err(err, "'%s': '%s' changed while it was read", fs->target, fs->path);
		ret = -ESTALE;
		goto out_unlock;
	}
	fs->cur_fd = fd;
out_unlock:
	pthread_mutex_unlock(&fs->open_lock);
	return ret;
}

/*
 * One FIEMAP extent of the current file into fs->ext, or fs->unp when it
 * has no place.  Returns 0, or 1 when out of memory (so that the walk's
 * own negative errno stays the kernel's).
 */
static int mounted_extent(const struct fiemap_extent *x, void *arg)
{
	struct fsread *fs = arg;
	uint64_t bs = fs->block_size;

	if (x->fe_flags & FIEMAP_EXTENT_DATA_INLINE)
		fs->ent.inline_data = 1;
	if (x->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DATA_INLINE |
			   FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DELALLOC)) {
		/* data without a place of its own: not a hole either */
		uint64_t l = x->fe_logical / bs;

		if (array_grow(&fs->unp, &fs->unp_cap, fs->nunp + 1, sizeof(*fs->unp)))
			return 1;
		fs->unp[fs->nunp++] = (struct fsread_extent){
			l, 0, (x->fe_logical + x->fe_length + bs - 1) / bs - l, 0
		};
		return 0;
	}
	if (add_run(fs, x->fe_logical / bs, x->fe_physical / bs, (x->fe_length + bs - 1) / bs,
		    (x->fe_flags & FIEMAP_EXTENT_UNWRITTEN) ? FSREAD_EXTENT_UNWRITTEN : 0))
		return 1;
	return 0;
}

static int mounted_fiemap(struct fsread *fs, struct fsread_error *err)
{
	int ret = fiemap_walk(fs->cur_fd, 0, mounted_extent, fs);

	if ((ret == -EOPNOTSUPP || ret == -ENOTTY) && !fs->next) {
		/* tmpfs, procfs, some FUSE: no extents to report */
		fs->no_fiemap = 1;
		return 0;
	}
	if (ret > 0)
		return -ENOMEM;
	if (ret)
		return sys_fail(fs, err, -ret, "get the extents (FIEMAP) of");
	normalize_runs(fs);
	return 0;
}

/*
 * statx the entry `name` of directory dirfd (path in fs->path) into fs->ent.
 * Returns 0, 1 when the entry is on another mount (skipped), or a
 * negative errno with err set.
 */
static int mounted_entry(struct fsread *fs, int dirfd, const char *name, struct fsread_error *err)
{
	struct fsread_entry *e = &fs->ent;
	struct statx x;
	int ret;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_BASIC_STATS | STATX_BTIME | STATX_MNT_ID, &x))
		return sys_fail(fs, err, errno, "stat");
	if (makedev(x.stx_dev_major, x.stx_dev_minor) != fs->dev ||
	    (fs->has_mnt_id && (x.stx_mask & STATX_MNT_ID) && x.stx_mnt_id != fs->mnt_id))
		return 1;
	fill_from_statx(e, &x);
	entry_reset(e);
	fs->next = 0;
	fs->nunp = 0;
	fs->cur_fd = -1;
	fs->cur_dirfd = dirfd;
	if (e->type == FSREAD_FILE) {
		if (e->nlink > 1) {
			ret = inoset_add(&fs->multi, e->ino);
			if (ret < 0)
				return ret;
			e->first_name = !ret;
		}
		if ((fs->flags & FSREAD_EXTENTS) && !fs->no_fiemap) {
			ret = mounted_open_file(fs, err);
			if (ret == -EACCES || ret == -EPERM) {
				fs->unreadable++;
				e->extents_unknown = 1;
				return 0;
			}
			if (!ret)
				ret = mounted_fiemap(fs, err);
			if (ret)
				return ret;
			for (size_t i = 0; i < fs->next; i++)
				e->blocks += fs->ext[i].len;
			if (!fs->no_fiemap) {
				e->extents = fs->ext ? fs->ext : no_extents;
				e->nextents = fs->next;
				e->unplaced = fs->unp;
				e->nunplaced = fs->nunp;
			}
		}
	} else if (e->type == FSREAD_SYMLINK) {
		ssize_t n;

		if (x.stx_size > 65536) {
			set_err(err, "'%s': symbolic link '%s' claims %llu bytes", fs->target,
				fs->path, (unsigned long long)x.stx_size);
			return -EINVAL;
		}
		if (array_grow(&fs->link, &fs->link_cap, x.stx_size + 2, 1))
			return -ENOMEM;
		n = readlinkat(dirfd, name, fs->link, x.stx_size + 1);
		if (n < 0)
			return sys_fail(fs, err, errno, "read the symbolic link");
		fs->link[n] = '\0';
		e->symlink_target = fs->link;
		e->symlink_len = (size_t)n;
	}
	return 0;
}

static int mounted_read_dir(struct fsread *fs, int fd, struct fsr_level *lv,
			    struct fsread_error *err)
{
	int dfd = dup(fd);
	struct dirent *d;
	DIR *dir;
	int ret = 0;

	if (dfd < 0)
		return sys_fail(fs, err, errno, "read the directory");
	dir = fdopendir(dfd);
	if (!dir) {
		int e = errno;

		close(dfd);
		return sys_fail(fs, err, e, "read the directory");
	}
	errno = 0;
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		ret = level_add(lv, d->d_ino, d->d_name, strlen(d->d_name));
		if (ret)
			break;
		errno = 0;
	}
	if (!ret && errno)
		ret = sys_fail(fs, err, errno, "read the directory");
	closedir(dir);
	if (!ret)
		level_sort(lv);
	return ret;
}

/* ---- the API --------------------------------------------------------- */

int fsread_open(const char *target, unsigned flags, struct fsread **out,
		struct fsread_error *err)
{
	struct fsread *fs;
	struct stat st;
	int ret;

	*out = NULL;
	if (stat(target, &st)) {
		int e = errno;

		set_err(err, "cannot open '%s': %s", target, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISDIR(st.st_mode)) {
		set_err(err, "'%s' is neither an image file, a block device nor a directory", target);
		return -EINVAL;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs) {
		set_err(err, "out of memory");
		return -ENOMEM;
	}
	fs->target = strdup(target);
	fs->flags = flags;
	fs->fd = -1;
	fs->rootfd = -1;
	fs->cur_fd = -1;
	fs->cur_dirfd = -1;
	pthread_mutex_init(&fs->lock, NULL);
	pthread_mutex_init(&fs->open_lock, NULL);
	if (!fs->target) {
		set_err(err, "out of memory");
		ret = -ENOMEM;
		goto out_close;
	}
	fs->image = !S_ISDIR(st.st_mode);
	ret = fs->image ? image_open(fs, err) : mounted_open(fs, err);
	if (ret)
		goto out_close;
	*out = fs;
	return 0;
out_close:
	fsread_close(fs);
	return ret;
}

void fsread_close(struct fsread *fs)
{
	if (!fs)
		return;
	prefetch_stop(fs);
	if (fs->fs)
		ext2fs_close_free(&fs->fs);
	if (fs->fd >= 0)
		close(fs->fd);
	if (fs->rootfd >= 0)
		close(fs->rootfd);
	if (fs->cur_fd >= 0)
		close(fs->cur_fd);
	pthread_mutex_destroy(&fs->lock);
	pthread_mutex_destroy(&fs->open_lock);
	free(fs->seen);
	free(fs->multi.slot);
	free(fs->path);
	free(fs->ext);
	free(fs->unp);
	free(fs->link);
	free(fs->free_ext);
	free(fs->target);
	free(fs);
}

int fsread_is_image(const struct fsread *fs)
{
	return fs->image;
}

uint64_t fsread_unreadable(const struct fsread *fs)
{
	return fs->unreadable;
}

/*
 * Call fn(arg, start, len) for each hole of e (fsread_hole_blocks()), in
 * order: the gaps in [0, i_size in blocks) between the runs of extents and
 * unplaced, both sorted by logical block, merged as they come (a corrupt
 * overlap counts once).  Returns 0 or what fn returned.
 */
static int walk_holes(const struct fsread_entry *e, unsigned bs,
		      int (*fn)(void *arg, uint64_t start, uint64_t len), void *arg)
{
	size_t i = 0, j = 0;
	uint64_t nb, next = 0;
	int ret;

	if (e->type != FSREAD_FILE || !e->extents || e->extents_unknown || e->inline_data || !bs)
		return 0;
	nb = e->size / bs + (e->size % bs != 0);
	while (next < nb) {
		const struct fsread_extent *x = NULL;
		uint64_t s, t;

		if (i < e->nextents &&
		    (j >= e->nunplaced || e->extents[i].logical <= e->unplaced[j].logical))
			x = &e->extents[i++];
		else if (j < e->nunplaced)
			x = &e->unplaced[j++];
		s = x ? x->logical : nb;
		t = x ? s + x->len : nb;
		if (t < s)
			t = UINT64_MAX;
		if (s > nb)
			s = nb;
		if (s > next) {
			ret = fn(arg, next, s - next);
			if (ret)
				return ret;
		}
		if (t > next)
			next = t;
	}
	return 0;
}

static int count_hole(void *arg, uint64_t start, uint64_t len)
{
	(void)start;
	*(uint64_t *)arg += len;
	return 0;
}

uint64_t fsread_hole_blocks(const struct fsread_entry *e, unsigned bs)
{
	uint64_t n = 0;

	walk_holes(e, bs, count_hole, &n);
	return n;
}

struct hole_list {
	struct fsread_extent **runs;
	size_t *cap, n;
};

static int list_hole(void *arg, uint64_t start, uint64_t len)
{
	struct hole_list *h = arg;

	if (array_grow(h->runs, h->cap, h->n + 1, sizeof(**h->runs)))
		return -ENOMEM;
	(*h->runs)[h->n++] = (struct fsread_extent){ start, 0, len, 0 };
	return 0;
}

ssize_t fsread_holes(const struct fsread_entry *e, unsigned bs, struct fsread_extent **runs,
		     size_t *cap)
{
	struct hole_list h = { runs, cap, 0 };
	int ret = walk_holes(e, bs, list_hole, &h);

	return ret ? ret : (ssize_t)h.n;
}

int fsread_has_extents(const struct fsread *fs)
{
	return (fs->flags & FSREAD_EXTENTS) && !fs->no_fiemap;
}

unsigned fsread_block_size(const struct fsread *fs)
{
	return fs->block_size;
}

uint64_t fsread_total_blocks(const struct fsread *fs)
{
	return fs->total_blocks;
}

/* Fill fs->ent for the root and hand it over; then the same for every entry below. */
int fsread_walk(struct fsread *fs, int (*fn)(struct fsread *fs, const struct fsread_entry *e,
					     void *arg),
		void *arg, struct fsread_error *err)
{
	struct fsr_level *lv = NULL;
	size_t nlv = 0, caplv = 0;
	int ret;

	if (array_grow(&fs->path, &fs->path_cap, 2, 1))
		return -ENOMEM;
	strcpy(fs->path, "/");
	fs->ent.path = fs->path;
	fs->ent.name = "";
	fs->ent.name_len = 0;
	fs->ent.depth = 0;
	if (fs->image) {
		ret = image_entry(fs, EXT2_ROOT_INO, err);
	} else {
		ret = mounted_entry(fs, fs->rootfd, ".", err);
		if (!ret)
			prefetch_start(fs);
	}
	if (ret > 0)
		ret = -EINVAL;
	if (ret)
		goto out_stop;
	if (fs->ent.type != FSREAD_DIR) {
		set_err(err, "'%s': corrupt: the root (inode %u) is not a directory", fs->target,
			EXT2_ROOT_INO);
		ret = -EINVAL;
		goto out_stop;
	}
	ret = fn(fs, &fs->ent, arg);
	if (ret)
		goto out_stop;

	/* the root's names */
	if (array_grow(&lv, &caplv, 1, sizeof(*lv))) {
		ret = -ENOMEM;
		goto out_stop;
	}
	memset(&lv[0], 0, sizeof(lv[0]));
	lv[0].fd = -1;
	nlv = 1;
	if (fs->image) {
		ret = image_read_dir(fs, EXT2_ROOT_INO, &lv[0], err);
	} else {
		lv[0].fd = dup(fs->rootfd);
		ret = lv[0].fd < 0 ? sys_fail(fs, err, errno, "read the directory") :
		      mounted_read_dir(fs, lv[0].fd, &lv[0], err);
	}
	if (ret)
		goto out_free_levels;

	while (nlv) {
		struct fsr_level *top = &lv[nlv - 1];
		const struct fsr_dent *d;
		const char *name;

		if (top->next == top->n) {
			nlv--;
			free(top->d);
			free(top->names);
			if (top->fd >= 0)
				close(top->fd);
			continue;
		}
		d = &top->d[top->next++];
		name = top->names + d->name_off;
		ret = path_set(fs, top->path_len, name, d->name_len);
		if (ret)
			goto out_free_levels;
		fs->ent.path = fs->path;
		fs->ent.name = fs->path + top->path_len + 1;
		fs->ent.name_len = d->name_len;
		fs->ent.depth = (unsigned)(nlv - 1);
		if (fs->image) {
			if (d->ino > fs->fs->super->s_inodes_count || d->ino < 1) {
				set_err(err, "'%s': corrupt: '%s' names inode %llu, beyond the file system's %u",
					fs->target, fs->path, (unsigned long long)d->ino,
					fs->fs->super->s_inodes_count);
				ret = -EINVAL;
				goto out_free_levels;
			}
			ret = image_entry(fs, (ext2_ino_t)d->ino, err);
		} else {
			ret = mounted_entry(fs, top->fd, name, err);
			if (ret == 1) {
				ret = 0;
				continue;
			}
		}
		if (ret)
			goto out_free_levels;
		ret = fn(fs, &fs->ent, arg);
		if (fs->cur_fd >= 0) {
			close(fs->cur_fd);
			fs->cur_fd = -1;
		}
		if (ret)
			goto out_free_levels;
		if (fs->ent.type != FSREAD_DIR)
			continue;
		if (nlv >= FSREAD_MAX_DEPTH) {
			set_err(err, "'%s': '%s' is more than %d directories deep", fs->target,
				fs->path, FSREAD_MAX_DEPTH);
			ret = -ELOOP;
			goto out_free_levels;
		}
		if (array_grow(&lv, &caplv, nlv + 1, sizeof(*lv))) {
			ret = -ENOMEM;
			goto out_free_levels;
		}
		top = &lv[nlv];
		memset(top, 0, sizeof(*top));
		top->fd = -1;
		top->path_len = strlen(fs->path);
		nlv++;
		if (fs->image) {
			ret = image_read_dir(fs, (ext2_ino_t)fs->ent.ino, top, err);
		} else {
			top->fd = openat(lv[nlv - 2].fd, name,
					 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (top->fd < 0 && (errno == EACCES || errno == EPERM)) {
				/* not ours to read: walk on without its entries */
				fs->unreadable++;
				nlv--;
				continue;
			}
			ret = top->fd < 0 ? sys_fail(fs, err, errno, "open the directory") :
			      mounted_read_dir(fs, top->fd, top, err);
		}
		if (ret)
			goto out_free_levels;
	}
	ret = 0;
out_free_levels:
	if (ret == -ENOMEM && err && !err->msg[0])
		set_err(err, "'%s': out of memory", fs->target);
	levels_free(lv, nlv);
out_stop:
	prefetch_stop(fs);
	fs->ent.path = NULL;
	return ret;
}

/* Read from the image through the current file's extents; holes read as zeros. */
static ssize_t image_read(struct fsread *fs, const struct fsread_entry *e, char *buf, size_t len,
			  uint64_t off, struct fsread_error *err)
{
	uint64_t bs = fs->block_size, end = off + len;
	size_t i = 0;

	if (fs->cur_inline) {
		char *tmp;
		size_t got = 0;
		errcode_t code;

		tmp = malloc(EXT2_INODE_SIZE(fs->fs->super) + fs->block_size + 65536);
		if (!tmp)
			return -ENOMEM;
		pthread_mutex_lock(&fs->lock);
		code = ext2fs_inline_data_get(fs->fs, (ext2_ino_t)e->ino,
					      (struct ext2_inode *)&fs->inode, tmp, &got);
		pthread_mutex_unlock(&fs->lock);
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
			ssize_t n = pread(fs->fd, buf + (p - off), t - p,
					  (off_t)(x->physical * bs + (p - xs)));

			if (n < 0) {
				int en = errno;

				if (en == EINTR)
					continue;
				set_err(err, "'%s': cannot read '%s': %s", fs->target, e->path,
					strerror(en));
				return -en;
			}
			if (n == 0) {
				set_err(err, "'%s': truncated: block %llu is beyond the end of the file",
					fs->target,
					(unsigned long long)(x->physical + (p - xs) / bs));
				return -EIO;
			}
			p += (uint64_t)n;
		}
	}
	return (ssize_t)len;
}

ssize_t fsread_read(struct fsread *fs, const struct fsread_entry *e, void *buf, size_t len,
		    uint64_t off, struct fsread_error *err)
{
	if (e != &fs->ent || !e->path || e->type != FSREAD_FILE) {
		set_err(err, "'%s': fsread_read: not the current regular file", fs->target);
		return -EINVAL;
	}
	if (off >= e->size)
		return 0;
	if (len > e->size - off)
		len = e->size - off;
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	if (fs->image)
		return image_read(fs, e, buf, len, off, err);

	int ret = mounted_open_file(fs, err);
	size_t done = 0;

	if (ret)
		return ret;
	while (done < len) {
		ssize_t n = pread(fs->cur_fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sys_fail(fs, err, errno, "read");
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int fsread_free_extents(struct fsread *fs, const struct fsread_extent **ext, size_t *n,
			struct fsread_error *err)
{
	ext2fs_block_bitmap map;
	blk64_t start, end, z, s;
	errcode_t code;
	size_t cap = 0;

	*ext = NULL;
	*n = 0;
	if (!fs->image || !(fs->flags & FSREAD_FREE)) {
		set_err(err, "'%s': free extents are known only for images and devices", fs->target);
		return -EOPNOTSUPP;
	}
	if (fs->free_done)
		goto out_done;
	pthread_mutex_lock(&fs->lock);
	code = ext2fs_read_block_bitmap(fs->fs);
	pthread_mutex_unlock(&fs->lock);
	if (code)
		return ext2_fail(fs, err, code, "the block bitmap");
	map = fs->fs->block_map;
	start = fs->fs->super->s_first_data_block;
	end = ext2fs_blocks_count(fs->fs->super) - 1;
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
		if (array_grow(&fs->free_ext, &cap, fs->nfree + 1, sizeof(*fs->free_ext))) {
			set_err(err, "'%s': out of memory", fs->target);
			return -ENOMEM;
		}
		fs->free_ext[fs->nfree++] = (struct fsread_extent){ 0, z, s - z, 0 };
		start = s + 1;
	}
	fs->free_done = 1;
out_done:
	*ext = fs->free_ext;
	*n = fs->nfree;
	return 0;
}
