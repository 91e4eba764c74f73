/* dio.h - file data written around the page cache: O_DIRECT, a batch's runs in flight at once (Linux AIO) */
#ifndef IMPRINT_EXT4_DIO_H
#define IMPRINT_EXT4_DIO_H

#include <stddef.h>
#include <stdint.h>

/* Alignment of the write buffers (and of every run's offset and length). */
#define EXT4_DIO_ALIGN 4096u

/* One stretch of bytes to write at a byte offset of the target. */
struct ext4_dio_run {
	const unsigned char *buf;
	size_t len;
	uint64_t off;
};

/* One worker's asynchronous context. */
struct ext4_dio {
	unsigned long ctx; /* aio_context_t; 0 when none */
	unsigned cap;	   /* runs one call may take */
	size_t inflight;   /* runs submitted and not yet reaped */
	void *cb, *cbp, *ev;
};

/*
 * A descriptor of the same file as fd, opened O_DIRECT, when writes of
 * whole blocks of block_size at byte offset base can go around the page
 * cache without sharing a page with what libext2fs writes through it:
 * block_size a multiple of the page size and of the file's direct-I/O
 * alignment, base too.  -1 when not (the caller writes through fd).
 */
int ext4_dio_open(int fd, uint32_t block_size, uint64_t base);

/* Room for cap runs per call.  Returns 0 or a negative errno. */
int ext4_dio_init(struct ext4_dio *io, unsigned cap);

/*
 * Start writing the n runs (n <= cap; each aligned to EXT4_DIO_ALIGN)
 * through dfd, all submitted before any is waited for; io->inflight says
 * how many are under way, for ext4_dio_reap() (the buffers must stay
 * untouched until then).  Returns 0, a negative errno (nothing left in
 * flight then), or 1 when the file refused direct I/O: then all is
 * written, what it refused through fd.
 */
int ext4_dio_submit(struct ext4_dio *io, int dfd, int fd, const struct ext4_dio_run *run, size_t n);

/*
 * Wait for the first n runs of the last submit, io->inflight of them; what
 * a short write left goes through fd.  Returns 0 or a negative errno.
 */
int ext4_dio_reap(struct ext4_dio *io, int fd, const struct ext4_dio_run *run, size_t n);

/*
 * Seconds to write runs run[0, n) and have them on the device: through
 * dfd by ext4_dio_submit() and ext4_dio_reap() as the data workers do
 * (dfd >= 0), or through fd (dfd -1) then sync_file_range() until the
 * page cache has written them back.  Returns the seconds (> 0), or a
 * negative errno: -EINVAL when the file refused direct I/O.
 */
double ext4_dio_time(int fd, int dfd, const struct ext4_dio_run *run, size_t n);

/* pwrite() all of len bytes, again after EINTR or a short write.  0 or a negative errno. */
int ext4_pwrite_all(int fd, const unsigned char *buf, size_t len, uint64_t off);

void ext4_dio_release(struct ext4_dio *io);

#endif
