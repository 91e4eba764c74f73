/* ext4.c - the ext2/3/4 backend: mke2fs formats, then every block goes where the layout says */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends/ext4/edit.h"
#include "backends/ext4/estimate.h"
#include "backends/ext4/format.h"
#include "backends/ext4/include.h"
#include "backends/ext4/request.h"
#include "backends/ext4/state.h"
#include "backends/ext4/undo.h"
#include "backends/ext4/write.h"
#include "util/e2err.h"

static int root_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent, int offset,
		      int blocksize, char *buf, void *priv)
{
	int *others = priv;
	unsigned len = ext2fs_dirent_name_len(dirent);

	(void)dir;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE)
		return 0;
	if (len == 10 && memcmp(dirent->name, "lost+found", 10) == 0)
		return 0;
	(*others)++;
	return DIRENT_ABORT;
}

/* An existing file system may be populated only when nothing is in it yet. */
static int check_empty(struct backend *b, struct ext4_state *st)
{
	ext2_filsys fs = st->fs;
	uint64_t used = fs->super->s_inodes_count - fs->super->s_free_inodes_count;
	uint64_t want = EXT2_FIRST_INO(fs->super) - 1 + (st->lpf_ino ? 1 : 0);
	int others = 0;
	errcode_t err;

	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return ext4_set_err(b, -EBUSY,
				    "'%s' has a journal to recover: run e2fsck on it first",
				    st->target);
	err = ext2fs_dir_iterate2(fs, EXT2_ROOT_INO, 0, NULL, root_entry, &others);
	if (err)
		return ext4_set_err(b, e2err_errno(err),
				    "cannot read the root directory of '%s': %s", st->target,
				    error_message(err));
	if (others || used != want)
		return ext4_set_err(b, -ENOTEMPTY,
				    "'%s' is not empty (%" PRIu64
				    " inodes in use, an empty file system has %" PRIu64
				    "); only an empty file system can be populated",
				    st->target, used, want);
	return 0;
}

/*
 * No readahead on the descriptors open on target (libext2fs's own among
 * them): libext2fs reads each inode table and directory block once
 * before writing it, and in a fresh sparse image the kernel's readahead
 * around each such read zeroes large folios of holes (0.8 s of the
 * populating thread's CPU for 1 M files).  Advice only: no byte changes.
 */
static void ext4_no_readahead(const char *target)
{
	struct stat t, s;
	long max = sysconf(_SC_OPEN_MAX);

	if (stat(target, &t) != 0 || !S_ISREG(t.st_mode))
		return;
	if (max < 0 || max > 4096)
		max = 4096;
	for (int fd = 3; fd < max; fd++)
		if (fstat(fd, &s) == 0 && s.st_dev == t.st_dev && s.st_ino == t.st_ino)
			posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
}

static int ext4_open(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	struct ext4_state *st;
	char io_opts[40];
	errcode_t err;
	int ret;

	e2err_init();
	b->errmsg[0] = '\0';
	st = calloc(1, sizeof(*st));
	if (!st)
		return ext4_set_err(b, -ENOMEM, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &st->t0);
	st->data_fd = -1;
	st->jobs = o->jobs ? o->jobs : 1;
	st->data_io = o->data_io;
	if (st->data_io == DATA_IO_AUTO && getenv("IMPRINT_DIRECT_IO")) {
		const char *v = getenv("IMPRINT_DIRECT_IO");

		st->data_io = !strcmp(v, "0") ? DATA_IO_BUFFERED :
			      !strcmp(v, "auto") ? DATA_IO_AUTO : DATA_IO_DIRECT;
	}
	st->cancel = o->cancel;
	st->progress = o->progress;
	st->progress_ctx = o->progress_ctx;
	st->target = strdup(o->target);
	st->offset = o->offset;
	snprintf(io_opts, sizeof(io_opts), "offset=%" PRIu64, o->offset);
	if (!st->target) {
		ret = ext4_set_err(b, -ENOMEM, "out of memory");
		goto out_free_state;
	}
	if (!o->no_format) {
		ret = ext4_format(b, o, pl);
		if (ret)
			goto out_free_target;
		st->formatted = 1;
	}
	if (create_cancelled(o)) {
		ret = ext4_set_err(b, -EINTR, "interrupted");
		goto out_free_target;
	}
	/* a device the core holds exclusively is not claimed twice; no undo: no I/O statistics */
	ext4_undo_prepare(NULL, unix_io_manager);
	err = ext2fs_open2(st->target, st->offset ? io_opts : NULL,
			   EXT2_FLAG_RW | EXT2_FLAG_64BITS | (o->claim ? 0 : EXT2_FLAG_EXCLUSIVE),
			   0, 0, ext4_undo_io_manager, &st->fs);
	if (err) {
		ret = ext4_set_err(b, e2err_errno(err), "cannot open '%s' as ext2/3/4: %s",
				   st->target, error_message(err));
		st->fs = NULL;
		goto out_free_target;
	}
	/* nothing may come from the clock: s_wtime and any default time is the plan's "now" */
	st->fs->now = pl->prm.time_ref > 0 ? pl->prm.time_ref : 1;
	if (ext2fs_has_feature_bigalloc(st->fs->super)) {
		ret = ext4_set_err(b, -EOPNOTSUPP, "'%s': bigalloc (clusters) is not supported",
				   st->target);
		goto out_free_fs;
	}
	if (ext2fs_has_feature_quota(st->fs->super) || ext2fs_has_feature_project(st->fs->super)) {
		/* libext2fs has no public quota API: the usage files would go stale */
		ret = ext4_set_err(
			b, -EOPNOTSUPP,
			"'%s': the quota and project features are not supported (drop them from --mkfs-options)",
			st->target);
		goto out_free_fs;
	}
	err = ext2fs_read_bitmaps(st->fs);
	if (err) {
		ret = ext4_set_err(b, e2err_errno(err), "cannot read the bitmaps of '%s': %s",
				   st->target, error_message(err));
		goto out_free_fs;
	}
	st->kib_written = st->fs->super->s_kbytes_written;
	st->used_blocks =
		ext2fs_blocks_count(st->fs->super) - ext2fs_free_blocks_count(st->fs->super);
	err = ext2fs_lookup(st->fs, EXT2_ROOT_INO, "lost+found", 10, NULL, &st->lpf_ino);
	if (err)
		st->lpf_ino = 0;
	if (o->no_format) {
		ret = check_empty(b, st);
		if (ret)
			goto out_free_fs;
	}
	st->data_fd = open(st->target, O_RDWR | O_CLOEXEC);
	if (st->data_fd < 0) {
		ret = ext4_set_err(b, -errno, "cannot open '%s': %s", st->target, strerror(errno));
		goto out_free_fs;
	}
	ext4_no_readahead(st->target);
	b->priv = st;
	return 0;
out_free_fs:
	ext2fs_free(st->fs);
out_free_target:
	if (st->formatted) {
		int fd = open(st->target, O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			ext4_wipe_super(fd, st->offset);
			close(fd);
		}
	}
	free(st->target);
out_free_state:
	free(st);
	return ret;
}

/*
 * Steps 1 to 4: blocks per file, inode numbers, directory shapes, the free
 * map; then the request for the core's layout.
 */
static int ext4_layout_request(struct backend *b, const struct plan *pl, struct layout_request *rq,
			       struct freemap *fm)
{
	struct ext4_state *st = b->priv;
	struct ext4_build *x;
	int ret;

	if (!st || !st->fs)
		return ext4_set_err(b, -EINVAL, "the ext4 backend was not opened");
	if (st->x)
		return ext4_set_err(b, -EINVAL, "the layout may be requested only once");
	x = calloc(1, sizeof(*x));
	if (!x)
		return ext4_set_err(b, -ENOMEM, "out of memory");
	st->x = x;
	x->b = b;
	x->st = st;
	x->fs = st->fs;
	x->pl = pl;
	x->data.fd = -1;
	x->data.dfd = -1;
	ret = ext4_build_init(x);
	if (!ret)
		ret = ext4_request(x, rq, fm);
	return ret;
}

static int ext4_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
			 const struct content_source *cs, struct create_result *res)
{
	struct ext4_state *st = b->priv;
	struct ext4_build *x = st ? st->x : NULL;
	int ret;

	if (!x || x->pl != pl)
		return ext4_set_err(b, -EINVAL,
				    "the ext4 backend populates only the plan it laid out");
	if (st->populated)
		return ext4_set_err(b, -EINVAL, "populate may run only once");
	x->lo = lo;
	x->cs = cs;
	x->pool.start = lo->pool_start;
	x->pool.len = lo->pool_len;
	x->pool.used = 0;
	ret = ext4_write_all(x);
	if (!ret)
		ret = ext4_write_includes(x);
	if (ret)
		goto out_release;
	ext4_progress(x);

	res->files = pl->nfiles;
	res->dirs = pl->ndirs;
	res->links = pl->nlinks;
	res->bytes = pl->bytes;
	res->block_size = x->bs;
	res->blocks_used =
		ext2fs_blocks_count(x->fs->super) - ext2fs_free_blocks_count(x->fs->super);
	res->sparse_files = x->sparse_files;
	res->hole_blocks = x->hole_blocks;
	res->have_inodes = 1;
	res->inodes = x->fs->super->s_inodes_count;
	res->inodes_free = x->fs->super->s_free_inodes_count;
	res->have_xattr_blocks = 1;
	res->xattr_block_inodes = x->xattr_blocks_ref;
	res->xattr_blocks = x->xattr_blocks;
	res->io = x->data.io;
	ext4_report_free(x, res);
	res->seconds = ext4_elapsed(&st->t0);
	st->populated = 1;
out_release:
	ext4_build_free(st);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Ending */

static int ext4_finish(struct backend *b)
{
	struct ext4_state *st = b->priv;
	errcode_t err;
	int ret = 0;

	if (!st)
		return ext4_set_err(b, -EINVAL, "the ext4 backend was not opened");
	ext4_build_free(st);
	if (st->fs) {
		blk64_t used = ext2fs_blocks_count(st->fs->super) -
			       ext2fs_free_blocks_count(st->fs->super);

		/*
		 * Lifetime writes: mke2fs's count (or the value found) and every
		 * block imprint put in use, once: file data, directories, extent
		 * and xattr blocks; not libext2fs' I/O count, which depends on
		 * its cache and so on the order and number of its reads.
		 */
		if (used > st->used_blocks) {
			st->fs->super->s_kbytes_written =
				st->kib_written +
				(used - st->used_blocks) * (st->fs->blocksize / 1024);
			ext2fs_mark_super_dirty(st->fs);
		}
		/* superblock, group descriptors, bitmaps; then fsync */
		err = ext2fs_close2(st->fs, 0);
		if (err) {
			ret = ext4_set_err(b, e2err_errno(err),
					   "cannot write the file system to '%s': %s", st->target,
					   error_message(err));
			ext2fs_free(st->fs);
		}
		st->fs = NULL;
	}
	if (!ret && fsync(st->data_fd) != 0)
		ret = ext4_set_err(b, -errno, "cannot sync '%s': %s", st->target, strerror(errno));
	/* on failure the descriptor stays for abort(), which wipes the superblock */
	if (ret)
		return ret;
	ret = close(st->data_fd);
	st->data_fd = -1;
	if (ret != 0)
		return ext4_set_err(b, -errno, "cannot close '%s': %s", st->target,
				    strerror(errno));
	free(st->target);
	free(st);
	b->priv = NULL;
	return 0;
}

static void ext4_abort(struct backend *b)
{
	struct ext4_state *st = b->priv;

	if (!st)
		return;
	ext4_build_free(st);
	/* no ext2fs_close: the bitmaps and descriptors of this run stay unwritten */
	if (st->fs)
		ext2fs_free(st->fs);
	st->fs = NULL;
	if (st->data_fd >= 0) {
		/* what mke2fs made here must not pass for a finished image */
		if (st->formatted)
			ext4_wipe_super(st->data_fd, st->offset);
		close(st->data_fd);
	}
	free(st->target);
	free(st);
	b->priv = NULL;
}

static const char *const ext4_fs_names[] = { "ext2", "ext3", "ext4", NULL };
/* libblkid's name of an old ext4 */
static const char *const ext4_fs_aliases[] = { "ext4dev", "ext4", NULL };

/*
 * The size of the ext2/3/4 file system at path from its primary superblock
 * (read raw: no libext2fs open, which refuses more), so that --no-format
 * can plan for the file system that is there.  0 when the superblock
 * cannot be read or makes no sense.
 */
static uint64_t ext4_fs_size(const char *path)
{
	unsigned char sb[1024];
	uint32_t lo, hi = 0, log_bs, incompat;
	uint16_t magic;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, sb, sizeof(sb), 1024);
	close(fd);
	if (n != (ssize_t)sizeof(sb))
		return 0;
	memcpy(&magic, sb + 0x38, 2);
	memcpy(&lo, sb + 0x04, 4);
	memcpy(&log_bs, sb + 0x18, 4);
	memcpy(&incompat, sb + 0x60, 4);
	if (le16toh(magic) != 0xEF53 || le32toh(log_bs) > 6)
		return 0;
	if (le32toh(incompat) & 0x80)  /* INCOMPAT_64BIT */
		memcpy(&hi, sb + 0x150, 4);
	return (((uint64_t)le32toh(hi) << 32) | le32toh(lo)) << (10 + le32toh(log_bs));
}


/* Refused before mke2fs: ext2/3 map no unwritten blocks. */
static int ext4_check(const struct params *p, char *msg, size_t len)
{
	if (ext4_kind_of(p) != EXT4_KIND_EXT4 && p->prealloc_file_share > 0) {
		snprintf(msg, len,
			 "'prealloc_file_share' (%g) needs unwritten extents, which %s does not have; use fs = ext4 or prealloc_file_share = 0",
			 p->prealloc_file_share, p->fs);
		return -EINVAL;
	}
	return 0;
}

const struct backend_ops ext4_backend_ops = {
	.name = "ext4",
	.caps = BACKEND_PLACES_BLOCKS | BACKEND_FORMATS | BACKEND_MEASURES | BACKEND_INCLUDES |
		BACKEND_EVOLVES,
	.targets = BACKEND_TARGET_FILE | BACKEND_TARGET_DEVICE,
	.options = BACKEND_OPT_MKFS_OPTIONS | BACKEND_OPT_NO_FORMAT | BACKEND_OPT_PARTITION |
		   BACKEND_OPT_DIRECT_IO,
	.fs_names = ext4_fs_names,
	.fs_aliases = ext4_fs_aliases,
	.summary = "image files and devices",
	.check = ext4_check,
	.fs_size = ext4_fs_size,
	.reader = "ext2",
	.estimate = ext4_estimate,
	.open = ext4_open,
	.layout_request = ext4_layout_request,
	.populate = ext4_populate,
	.finish = ext4_finish,
	.abort = ext4_abort,
	.edit = &ext4_edit_ops,
};
