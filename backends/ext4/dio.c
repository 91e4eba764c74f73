/* dio.c - file data written around the page cache: O_DIRECT, a batch's runs in flight at once (Linux AIO) */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backends/ext4/dio.h"

int ext4_dio_open(int fd, uint32_t block_size, uint64_t base)
{
	long page = sysconf(_SC_PAGESIZE);
	char path[64];
	int dfd;

	if (page <= 0 || block_size % (uint32_t)page || block_size % EXT4_DIO_ALIGN ||
	    base % block_size)
		return -1;
#ifdef STATX_DIOALIGN
	{
		struct statx sx;

		/* a file system that says how direct I/O must be aligned is believed */
		if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
		    (sx.stx_mask & STATX_DIOALIGN) &&
		    (!sx.stx_dio_offset_align || block_size % sx.stx_dio_offset_align ||
		     EXT4_DIO_ALIGN % sx.stx_dio_mem_align))
			return -1;
	}
#endif
	/* the same file, even one without a name yet (O_TMPFILE) */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	dfd = open(path, O_WRONLY | O_DIRECT | O_CLOEXEC);
	return dfd;
}

int ext4_dio_init(struct ext4_dio *io, unsigned cap)
{
	aio_context_t ctx = 0;

	memset(io, 0, sizeof(*io));
	io->cb = calloc(cap, sizeof(struct iocb));
	io->cbp = calloc(cap, sizeof(struct iocb *));
	io->ev = calloc(cap, sizeof(struct io_event));
	if (!io->cb || !io->cbp || !io->ev) {
		ext4_dio_release(io);
		return -ENOMEM;
	}
	if (syscall(SYS_io_setup, cap, &ctx) != 0) {
		int ret = -errno;

		ext4_dio_release(io);
		return ret;
	}
	io->ctx = (unsigned long)ctx;
	io->cap = cap;
	return 0;
}

void ext4_dio_release(struct ext4_dio *io)
{
	if (io->ctx)
		syscall(SYS_io_destroy, (aio_context_t)io->ctx);
	free(io->cb);
	free(io->cbp);
	free(io->ev);
	memset(io, 0, sizeof(*io));
}

int ext4_pwrite_all(int fd, const unsigned char *buf, size_t len, uint64_t off)
{
	while (len) {
		ssize_t w = pwrite(fd, buf, len, (off_t)off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EIO;
		buf += w;
		len -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Through the page cache, then written back: the range the runs span. */
static int buffered_write(int fd, const struct ext4_dio_run *run, size_t n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	int ret = 0;

	for (size_t i = 0; !ret && i < n; i++) {
		ret = ext4_pwrite_all(fd, run[i].buf, run[i].len, run[i].off);
		lo = run[i].off < lo ? run[i].off : lo;
		hi = run[i].off + run[i].len > hi ? run[i].off + run[i].len : hi;
	}
	if (!ret && n &&
	    sync_file_range(fd, (off_t)lo, (off_t)(hi - lo),
			    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
				    SYNC_FILE_RANGE_WAIT_AFTER) != 0)
		ret = -errno;
	return ret;
}

/* Around it, n runs in flight at once; 1 when the file refused direct I/O. */
static int direct_write(int fd, int dfd, const struct ext4_dio_run *run, size_t n)
{
	struct ext4_dio io;
	int ret = ext4_dio_init(&io, (unsigned)n);

	if (ret)
		return ret;
	ret = ext4_dio_submit(&io, dfd, fd, run, n);
	if (ret == 0)
		ret = ext4_dio_reap(&io, fd, run, io.inflight);
	ext4_dio_release(&io);
	return ret;
}

double ext4_dio_time(int fd, int dfd, const struct ext4_dio_run *run, size_t n)
{
	double t0 = now(), t;
	int ret = dfd >= 0 ? direct_write(fd, dfd, run, n) : buffered_write(fd, run, n);

	/* both ways on the medium, past a disk's write cache too */
	if (!ret && fdatasync(fd) != 0)
		ret = -errno;
	if (ret)
		return ret > 0 ? -EINVAL : ret;
	t = now() - t0;
	return t > 1e-9 ? t : 1e-9;
}

int ext4_dio_reap(struct ext4_dio *io, int fd, const struct ext4_dio_run *run, size_t n)
{
	long want = (long)n;
	struct io_event *ev = io->ev;
	int ret = 0;

	io->inflight = 0;
	while (want > 0) {
		long got = syscall(SYS_io_getevents, (aio_context_t)io->ctx, 1, want, ev, NULL);

		if (got < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (long i = 0; i < got; i++) {
			const struct ext4_dio_run *r = &run[ev[i].data];
			int64_t res = ev[i].res;
			int err = 0;

			if (res < 0 && res != -EINVAL && res != -EOPNOTSUPP && res != -ENOTBLK)
				err = (int)res;
			else if (res < 0)
				err = ext4_pwrite_all(fd, r->buf, r->len, r->off);
			else if ((uint64_t)res < r->len)
				err = ext4_pwrite_all(fd, r->buf + res, r->len - (size_t)res,
						 r->off + (uint64_t)res);
			if (err && !ret)
				ret = err;
		}
		want -= got;
	}
	return ret;
}

int ext4_dio_submit(struct ext4_dio *io, int dfd, int fd, const struct ext4_dio_run *run, size_t n)
{
	struct iocb *cb = io->cb, **cbp = io->cbp;
	size_t sent = 0, inflight = 0;
	int ret = 0, refused = 0;

	if (n > io->cap)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		memset(&cb[i], 0, sizeof(cb[i]));
		cb[i].aio_data = i;
		cb[i].aio_lio_opcode = IOCB_CMD_PWRITE;
		cb[i].aio_fildes = (uint32_t)dfd;
		cb[i].aio_buf = (uint64_t)(uintptr_t)run[i].buf;
		cb[i].aio_nbytes = run[i].len;
		cb[i].aio_offset = (int64_t)run[i].off;
		cbp[i] = &cb[i];
	}
	while (sent < n) {
		long k = syscall(SYS_io_submit, (aio_context_t)io->ctx, (long)(n - sent), cbp + sent);

		if (k > 0) {
			sent += (size_t)k;
			inflight += (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN && inflight) {
			/* the queue is full: let what is in flight finish */
			ret = ext4_dio_reap(io, fd, run, inflight);
			inflight = 0;
			if (ret)
				return ret;
			continue;
		}
		if (k < 0 && (errno == EINVAL || errno == EOPNOTSUPP))
			refused = 1;
		else
			ret = k < 0 ? -errno : -EIO;
		break;
	}
	if (ret || refused) {
		int r = ext4_dio_reap(io, fd, run, inflight);

		if (!ret)
			ret = r;
		inflight = 0;
	}
	/* what the file would not take directly goes through the page cache */
	for (size_t i = sent; !ret && refused && i < n; i++)
		ret = ext4_pwrite_all(fd, run[i].buf, run[i].len, run[i].off);
	if (ret)
		return ret;
	io->inflight = inflight;
	return refused;
}
