/* undo.c - a cheap undo for an evolve's rollback: an I/O manager over unix_io_manager that saves what a block held before its first overwrite, a free block of zeros by its number only */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backends/ext4/undo.h"
#include "util/util.h"

/*
 * The undo file: a magic line, then records { offset, length, kind }
 * (little-endian as the host: the file stays on this machine), a data
 * record followed by the length's bytes.  Put back last to first, so that
 * the first save of a range wins.  Each record reaches the kernel before
 * the write it guards (SIGKILL loses nothing); a record cut short by a
 * full disk guarded no write, and is ignored.
 */
static const char undo_magic[16] = "IMPRINT-UNDO-01\n";
enum { REC_DATA, REC_ZERO };

/* bytes of originals read at once (at least one block of the largest size); pieces a writev() */
enum { SAVE_BUF = 1 << 20, LOG_IOV = 1024 };
struct rec {
	uint64_t off;
	uint32_t len, kind;
};

struct uio {
	io_channel inner;          /* unix_io_manager's channel: every read and write */
	int fd;                    /* the target, read directly: originals (the cache left alone) */
	int log;                   /* the undo file */
	struct iovec *iov;         /* records not written yet: headers in hdr, data in buf */
	struct rec *hdr;
	unsigned niov, nhdr;
	ext2fs_block_bitmap used;  /* blocks in use when armed; NULL before */
	ext2fs_block_bitmap saved; /* blocks whose original is saved (no undo file: written) */
	uint64_t changed;          /* blocks in saved: the blocks written since armed, each once */
	unsigned bsize;            /* the file system's block size, once armed */
	uint64_t first;            /* the bitmaps' first block (a 1 KiB-block file system's 1) */
	uint64_t size;             /* a regular file target's size (its holes read as zeros); 0: not asked */
	uint8_t *buf;
	uint64_t ra_lo, ra_hi;     /* blocks freed, to be read ahead: [ra_lo, ra_hi) */
	/* libext2fs' callbacks on allocation that were there before arming */
	void (*old_one)(ext2_filsys, blk64_t, int);
	void (*old_range)(ext2_filsys, blk64_t, blk_t, int);
};

static const char *pending; /* the undo file of the next open; NULL: none, writes only counted */
static io_manager pending_inner; /* and the manager it goes over */

static errcode_t uio_open(const char *name, int flags, io_channel *channel);

/* The records gathered written to the undo file, with one writev() a LOG_IOV pieces. */
static errcode_t log_flush(struct uio *u)
{
	struct iovec *v = u->iov;
	unsigned n = u->niov;

	u->niov = u->nhdr = 0;
	while (n) {
		ssize_t w = writev(u->log, v, (int)n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? errno : EIO;
		for (; n && (size_t)w >= v->iov_len; v++, n--)
			w -= (ssize_t)v->iov_len;
		if (n) {
			v->iov_base = (char *)v->iov_base + w;
			v->iov_len -= (size_t)w;
		}
	}
	return 0;
}

/* A record gathered (a data record's bytes at d, which stay there until log_flush()). */
static errcode_t log_rec(struct uio *u, uint64_t off, uint32_t len, uint32_t kind, const void *d)
{
	errcode_t err = u->niov + 2 > LOG_IOV ? log_flush(u) : 0;

	if (err)
		return err;
	u->hdr[u->nhdr] = (struct rec){ .off = off, .len = len, .kind = kind };
	u->iov[u->niov++] = (struct iovec){ .iov_base = &u->hdr[u->nhdr++],
					    .iov_len = sizeof(struct rec) };
	if (kind == REC_DATA && len)
		u->iov[u->niov++] = (struct iovec){ .iov_base = (void *)d, .iov_len = len };
	return 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
	return n == 0 || (p[0] == 0 && !memcmp(p, p + 1, n - 1));
}

/* Whether block b's original is saved already. */
static int is_saved(const struct uio *u, uint64_t b)
{
	return u->saved && b >= u->first && ext2fs_test_block_bitmap2(u->saved, b);
}

/*
 * Save blocks [b, b + k) (none saved yet), read at once; n bytes of them
 * were read.  A block before the bitmaps' first (a 1 KiB-block boot
 * block) is not in them: it is saved each time it is written.
 */
static errcode_t save_read(struct uio *u, uint64_t b, uint64_t k, unsigned bs, ssize_t n)
{
	for (uint64_t i = 0; i < k; i++) {
		const uint8_t *d = u->buf + i * bs;
		size_t got = n > (ssize_t)(i * bs) ? MIN((size_t)bs, (size_t)n - i * bs) : 0;
		int mapped = b + i >= u->first;
		/* a free block of zeros needs no copy: zeroed again on rollback */
		int zero = u->used && mapped && !ext2fs_test_block_bitmap2(u->used, b + i) &&
			   all_zero(d, got);
		errcode_t err = log_rec(u, (b + i) * bs, (uint32_t)got, zero ? REC_ZERO : REC_DATA, d);

		if (err)
			return err;
		if (u->saved && mapped) {
			ext2fs_mark_block_bitmap2(u->saved, b + i);
			u->changed++;
		}
	}
	/* to the kernel before the write they guard, and before buf is read into again */
	return log_flush(u);
}

/*
 * Reading the originals ahead: a block freed while armed (a deleted,
 * truncated or rewritten file's) that was in use when armed is among the
 * next the allocator hands out (it goes forward from its goal through
 * the free blocks), and its original is read when it is overwritten.  So
 * when libext2fs frees blocks, the kernel is asked to fetch those in a
 * run at once (POSIX_FADV_WILLNEED, advice only: the saves still read
 * each block, and find it in the page cache); consecutive frees, one
 * block a call in libext2fs' punch, are gathered into [ra_lo, ra_hi) and
 * asked when a free is elsewhere or before a save's read.
 */
static void ask_flush(struct uio *u)
{
	if (u->ra_hi > u->ra_lo)
		posix_fadvise(u->fd, (off_t)(u->ra_lo * u->bsize),
			      (off_t)((u->ra_hi - u->ra_lo) * u->bsize), POSIX_FADV_WILLNEED);
	u->ra_lo = u->ra_hi = 0;
}

static void ask_freed(ext2_filsys fs, blk64_t b, uint64_t n)
{
	struct uio *u = fs->io->private_data;

	for (; n; n--, b++) {
		/* in use when armed (a free block's original is not read) and not saved yet */
		if (b < u->first || !ext2fs_test_block_bitmap2(u->used, b) || is_saved(u, b))
			continue;
		if (b != u->ra_hi)
			ask_flush(u);
		if (u->ra_hi == u->ra_lo)
			u->ra_lo = b;
		u->ra_hi = b + 1;
	}
}

static void freed_one(ext2_filsys fs, blk64_t b, int inuse)
{
	struct uio *u = fs->io->private_data;

	if (u->old_one)
		u->old_one(fs, b, inuse);
	if (inuse < 0)
		ask_freed(fs, b, 1);
}

static void freed_range(ext2_filsys fs, blk64_t b, blk_t n, int inuse)
{
	struct uio *u = fs->io->private_data;

	if (u->old_range)
		u->old_range(fs, b, n, inuse);
	if (inuse < 0)
		ask_freed(fs, b, n);
}

/*
 * How many of the len bytes at pos are in a hole of the target (they read
 * as zeros: no read needed), or, as a negative count, how many hold data
 * before the next hole; 0 when the target is not a regular file or cannot
 * say (then everything is read).
 */
static int64_t hole_run(const struct uio *u, uint64_t pos, uint64_t len)
{
	off_t d, h;

	if (!u->size || pos >= u->size)
		return 0;
	len = MIN(len, u->size - pos);
	d = lseek(u->fd, (off_t)pos, SEEK_DATA);
	if (d < 0)
		return errno == ENXIO ? (int64_t)len : 0;
	if ((uint64_t)d > pos)
		return (int64_t)MIN(len, (uint64_t)d - pos);
	h = lseek(u->fd, (off_t)pos, SEEK_HOLE);
	return h > d ? -(int64_t)MIN(len, (uint64_t)h - pos) : 0;
}

/*
 * Save what bytes [off, off + len) hold before they are overwritten, runs
 * of unsaved blocks read at once; the records reach the kernel before the
 * write they guard.
 */
static errcode_t save(struct uio *u, uint64_t off, uint64_t len)
{
	unsigned bs = u->bsize ? u->bsize : 1024;
	uint64_t b = off / bs, last = (off + len + bs - 1) / bs, most = SAVE_BUF / bs;

	ask_flush(u);
	if (u->log < 0) { /* no undo file: the blocks only counted, once each */
		for (; u->saved && b < last; b++)
			if (b >= u->first && !ext2fs_test_block_bitmap2(u->saved, b)) {
				ext2fs_mark_block_bitmap2(u->saved, b);
				u->changed++;
			}
		return 0;
	}
	while (b < last) {
		uint64_t k = 0;
		int64_t h;
		ssize_t n;
		errcode_t err;

		if (is_saved(u, b)) {
			b++;
			continue;
		}
		while (k < most && b + k < last && !is_saved(u, b + k))
			k++;
		/* a hole's blocks are zeros: not read; data read up to the next hole */
		h = hole_run(u, b * bs, k * bs);
		if (h >= (int64_t)bs) {
			k = (uint64_t)h / bs;
			n = (ssize_t)(k * bs);
			memset(u->buf, 0, (size_t)n);
		} else {
			if (h <= -(int64_t)bs)
				k = MIN(k, ((uint64_t)-h + bs - 1) / bs);
			n = pread(u->fd, u->buf, k * bs, (off_t)(b * bs));
			if (n < 0)
				return errno;
		}
		err = save_read(u, b, k, bs, n);
		if (err)
			return err;
		b += k;
	}
	return 0;
}

static uint64_t span(io_channel ch, int count)
{
	return count < 0 ? (uint64_t)-count : (uint64_t)count * (uint64_t)ch->block_size;
}

static errcode_t uio_write_blk64(io_channel ch, unsigned long long block, int count, const void *d)
{
	struct uio *u = ch->private_data;
	errcode_t err = save(u, block * (uint64_t)ch->block_size, span(ch, count));

	return err ? err : io_channel_write_blk64(u->inner, block, count, d);
}

static errcode_t uio_write_blk(io_channel ch, unsigned long block, int count, const void *d)
{
	return uio_write_blk64(ch, block, count, d);
}

static errcode_t uio_write_byte(io_channel ch, unsigned long offset, int size, const void *d)
{
	struct uio *u = ch->private_data;
	errcode_t err = save(u, offset, (uint64_t)size);

	return err ? err : io_channel_write_byte(u->inner, offset, size, d);
}

static errcode_t uio_read_blk64(io_channel ch, unsigned long long block, int count, void *d)
{
	return io_channel_read_blk64(((struct uio *)ch->private_data)->inner, block, count, d);
}

static errcode_t uio_read_blk(io_channel ch, unsigned long block, int count, void *d)
{
	return uio_read_blk64(ch, block, count, d);
}

static errcode_t uio_zeroout(io_channel ch, unsigned long long block, unsigned long long count)
{
	struct uio *u = ch->private_data;
	errcode_t err = save(u, block * (uint64_t)ch->block_size, count * (uint64_t)ch->block_size);

	return err ? err : io_channel_zeroout(u->inner, block, count);
}

static errcode_t uio_discard(io_channel ch, unsigned long long block, unsigned long long count)
{
	struct uio *u = ch->private_data;
	errcode_t err = save(u, block * (uint64_t)ch->block_size, count * (uint64_t)ch->block_size);

	return err ? err : io_channel_discard(u->inner, block, count);
}

static errcode_t uio_set_blksize(io_channel ch, int blksize)
{
	struct uio *u = ch->private_data;
	errcode_t err = io_channel_set_blksize(u->inner, blksize);

	if (!err)
		ch->block_size = blksize;
	return err;
}

static errcode_t uio_flush(io_channel ch)
{
	struct uio *u = ch->private_data;
	/* the undo file's records are written as they are made */
	return io_channel_flush(u->inner);
}

static errcode_t uio_set_option(io_channel ch, const char *opt, const char *arg)
{
	io_channel in = ((struct uio *)ch->private_data)->inner;

	return in->manager->set_option ? in->manager->set_option(in, opt, arg)
				       : EXT2_ET_INVALID_ARGUMENT;
}

static void uio_free(struct uio *u)
{
	if (u->log >= 0)
		close(u->log);
	free(u->iov);
	free(u->hdr);
	if (u->fd >= 0)
		close(u->fd);
	if (u->used)
		ext2fs_free_block_bitmap(u->used);
	if (u->saved)
		ext2fs_free_block_bitmap(u->saved);
	free(u->buf);
	free(u);
}

static errcode_t uio_close(io_channel ch)
{
	struct uio *u = ch->private_data;
	errcode_t err = io_channel_close(u->inner);

	uio_free(u);
	free(ch->name);
	free(ch);
	return err;
}

static struct struct_io_manager uio_manager = {
	.magic = EXT2_ET_MAGIC_IO_MANAGER,
	.name = "imprint undo I/O manager",
	.open = uio_open,
	.close = uio_close,
	.set_blksize = uio_set_blksize,
	.read_blk = uio_read_blk,
	.write_blk = uio_write_blk,
	.flush = uio_flush,
	.write_byte = uio_write_byte,
	.set_option = uio_set_option,
	/* no get_stats: ext2fs_close2() adds nothing to s_kbytes_written, imprint sets it */
	.read_blk64 = uio_read_blk64,
	.write_blk64 = uio_write_blk64,
	.discard = uio_discard,
	.zeroout = uio_zeroout,
};

io_manager ext4_undo_io_manager = &uio_manager;

/* u's undo file (path) made, its magic written, and what it needs to read the originals of name. */
static errcode_t log_open(struct uio *u, const char *name, const char *path)
{
	struct stat st;

	u->fd = open(name, O_RDONLY | O_CLOEXEC);
	if (u->fd >= 0 && !fstat(u->fd, &st) && S_ISREG(st.st_mode))
		u->size = (uint64_t)st.st_size;
	u->log = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	u->buf = malloc(SAVE_BUF);
	u->iov = malloc(LOG_IOV * sizeof(*u->iov));
	u->hdr = malloc(LOG_IOV * sizeof(*u->hdr));
	if (u->fd < 0 || u->log < 0 || !u->buf || !u->iov || !u->hdr ||
	    write(u->log, undo_magic, sizeof(undo_magic)) != (ssize_t)sizeof(undo_magic))
		return errno ? errno : EXT2_ET_NO_MEMORY;
	return 0;
}

static errcode_t uio_open(const char *name, int flags, io_channel *channel)
{
	struct uio *u = calloc(1, sizeof(*u));
	io_channel ch = calloc(1, sizeof(*ch));
	errcode_t err = 0;

	if (u)
		u->fd = u->log = -1;
	if (!u || !ch || !pending_inner || !(ch->name = strdup(name))) {
		err = !pending_inner ? EXT2_ET_INVALID_ARGUMENT : EXT2_ET_NO_MEMORY;
		goto fail;
	}
	if (pending)
		err = log_open(u, name, pending);
	if (!err)
		err = pending_inner->open(name, flags, &u->inner);
	if (err)
		goto fail;
	/* imprint's tests: every read and write straight to the target (the same bytes result) */
	if (getenv("IMPRINT_TEST_IO_CACHE") && !strcmp(getenv("IMPRINT_TEST_IO_CACHE"), "off")) {
		err = io_channel_set_options(u->inner, "cache=off");
		if (err) {
			io_channel_close(u->inner);
			goto fail;
		}
	}
	ch->magic = EXT2_ET_MAGIC_IO_CHANNEL;
	ch->manager = ext4_undo_io_manager;
	ch->block_size = u->inner->block_size;
	ch->refcount = 1;
	ch->flags = u->inner->flags;
	ch->align = u->inner->align;
	ch->private_data = u;
	*channel = ch;
	return 0;
fail:
	if (ch)
		free(ch->name);
	free(ch);
	if (u) {
		u->inner = NULL;
		uio_free(u);
	}
	return err;
}

void ext4_undo_prepare(const char *undo, io_manager inner)
{
	pending = undo;
	pending_inner = inner;
}

errcode_t ext4_undo_save(ext2_filsys fs, uint64_t off, uint64_t len)
{
	struct uio *u = fs->io->private_data;
	errcode_t err;

	if (fs->io->manager != ext4_undo_io_manager)
		return EXT2_ET_INVALID_ARGUMENT;
	err = save(u, off, len);
	if (!err && u->log >= 0 && fdatasync(u->log))
		err = errno;
	return err;
}

errcode_t ext4_undo_arm(ext2_filsys fs)
{
	struct uio *u = fs->io->private_data;
	errcode_t err;

	if (fs->io->manager != ext4_undo_io_manager)
		return EXT2_ET_INVALID_ARGUMENT;
	/* without an undo file nothing is saved: the free blocks of zeros need not be known */
	err = u->log >= 0 ? ext2fs_copy_bitmap(fs->block_map, &u->used) : 0;
	if (!err)
		err = ext2fs_allocate_block_bitmap(fs, "saved", &u->saved);
	if (!err) {
		u->bsize = fs->blocksize;
		u->first = fs->super->s_first_data_block;
	}
	/* the originals that will be read: asked ahead as their blocks are freed */
	if (!err && u->log >= 0) {
		ext2fs_set_block_alloc_stats_callback(fs, freed_one, &u->old_one);
		ext2fs_set_block_alloc_stats_range_callback(fs, freed_range, &u->old_range);
	}
	return err;
}

uint64_t ext4_undo_changed(ext2_filsys fs)
{
	if (fs->io->manager != ext4_undo_io_manager)
		return 0;
	return ((struct uio *)fs->io->private_data)->changed;
}

/* Put one record back into fd (a data record's bytes at pos in log). */
static int put_back(int fd, int log, const struct rec *r, off_t pos, int regular, uint8_t *buf)
{
	if (r->len > EXT2_MAX_BLOCK_SIZE)
		return -EINVAL;
	if (r->kind == REC_ZERO) {
		/* an image file stays sparse where it was */
		if (regular && !fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
					  (off_t)r->off, r->len))
			return 0;
		memset(buf, 0, r->len);
	} else if (pread(log, buf, r->len, pos) != (ssize_t)r->len) {
		return -EIO;
	}
	return pwrite(fd, buf, r->len, (off_t)r->off) == (ssize_t)r->len ? 0 : -errno;
}

/* A record of the undo file and where its bytes are. */
struct at_rec {
	struct rec r;
	off_t pos;
};

/* The records of the undo file log into *out (*n of them); 0 or a negative errno. */
static int read_recs(int log, struct at_rec **out, size_t *n)
{
	char magic[sizeof(undo_magic)];
	size_t cap = 0;
	off_t at = sizeof(magic);
	struct rec r;
	struct stat st;

	*out = NULL;
	*n = 0;
	if (fstat(log, &st))
		return -errno;
	if (pread(log, magic, sizeof(magic), 0) != (ssize_t)sizeof(magic) ||
	    memcmp(magic, undo_magic, sizeof(magic)))
		return -EINVAL;
	while (pread(log, &r, sizeof(r), at) == (ssize_t)sizeof(r) &&
	       at + (off_t)sizeof(r) + (r.kind == REC_DATA ? (off_t)r.len : 0) <= st.st_size) {
		if (*n == cap) {
			struct at_rec *grown;

			cap = cap ? 2 * cap : 1024;
			grown = realloc(*out, cap * sizeof(**out));
			if (!grown)
				return -ENOMEM;
			*out = grown;
		}
		(*out)[*n].r = r;
		(*out)[(*n)++].pos = at + (off_t)sizeof(r);
		at += (off_t)sizeof(r) + (r.kind == REC_DATA ? (off_t)r.len : 0);
	}
	return 0;
}

int ext4_undo_apply(const char *undo, const char *target, uint64_t first, char *msg, size_t len)
{
	struct at_rec *recs = NULL;
	size_t n = 0;
	uint8_t *buf = malloc(EXT2_MAX_BLOCK_SIZE);
	int log = open(undo, O_RDONLY | O_CLOEXEC), fd = open(target, O_RDWR | O_CLOEXEC);
	struct stat st;
	int ret = buf && log >= 0 && fd >= 0 && !fstat(fd, &st) ? 0 : (errno ? -errno : -ENOMEM);

	if (!ret)
		ret = read_recs(log, &recs, &n);
	/* what lies before first last, after a sync: the mark goes as the last write */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = n; !ret && i-- > 0;)
			if ((recs[i].r.off < first) == pass)
				ret = put_back(fd, log, &recs[i].r, recs[i].pos, S_ISREG(st.st_mode), buf);
		if (!ret && fsync(fd))
			ret = -errno;
	}
	if (ret == -EINVAL)
		snprintf(msg, len, "'%s' is not an undo file of imprint's", undo);
	else if (ret)
		snprintf(msg, len, "cannot put the undo file '%s' back: %s", undo, strerror(-ret));
	if (fd >= 0)
		close(fd);
	if (log >= 0)
		close(log);
	free(recs);
	free(buf);
	return ret;
}
