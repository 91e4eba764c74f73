/* data.h - file data written by worker threads in large pwrites at the layout's blocks */
#ifndef IMPRINT_EXT4_DATA_H
#define IMPRINT_EXT4_DATA_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "content/source.h"
#include "layout/layout.h"
#include "plan/plan.h"

/*
 * A stretch of one file's data at consecutive physical blocks: 16 bytes,
 * one a file or more, so that 10 M files fit (ext4 block numbers have 48
 * bits, logical blocks 32, and a plan's file ids 32).
 */
struct ext4_piece {
	uint64_t pblk : 48;
	uint64_t len : 15;  /* blocks, at most EXT4_DATA_PIECE_MAX */
	uint64_t last : 1;  /* 1: the file's last piece */
	uint32_t file;
	uint32_t lblk;      /* first logical block of the file it holds */
};

/* Longest piece in blocks: a longer run is cut into several. */
#define EXT4_DATA_PIECE_MAX 32767u

/*
 * A file of CONTENT_SPLIT_MIN bytes or more: made in parts
 * (content_split_*) by the batches that hold its pieces, whichever worker
 * takes them; the worker that finishes its last block writes the fixups
 * (the ranges whose bytes sum whole members, left zero by the parts) over
 * the blocks the parts wrote.
 */
struct ext4_big {
	uint32_t file;
	struct content_split *sp; /* NULL: made by fill() like any file (PNG) */
	struct ext4_piece *map;	  /* its pieces in logical order */
	size_t nmap;
	uint64_t left;		  /* blocks not yet written, under the lock */
};

struct ext4_data {
	/* what to write */
	const struct plan *pl;
	const struct content_source *cs;
	volatile sig_atomic_t *cancel; /* stop with -EINTR when set; may be NULL */
	int fd;
	int dfd;       /* fd's file opened O_DIRECT, -1 when not: see dio.h */
	atomic_int buffered; /* set when the file refused direct I/O */
	struct data_io_report io; /* which way, and why (ext4_data_start(), ext4_data_join()) */
	uint64_t base; /* byte offset of the file system in fd (a partition), else 0 */
	uint32_t block_size;
	uint32_t batch_blocks;	  /* span of one batch */
	struct ext4_piece *piece; /* sorted by pblk */
	size_t npieces;
	struct ext4_big *big;	  /* the large files, by file id */
	size_t nbig;
	uint64_t data_files;	  /* files with data blocks (files_done's total) */
	uint64_t data_bytes;	  /* their bytes (bytes_done's total) */

	/* the batch cursor, under lock */
	pthread_mutex_t lock;
	pthread_cond_t idle;
	pthread_mutex_t wlock; /* one pwrite at a time: see write_batch() */
	size_t next;
	uint64_t next_off; /* blocks of piece[next] already handed out */
	unsigned running;  /* workers not yet done */
	int err;	   /* first error of any worker */
	int stop;

	pthread_t *thread;
	unsigned nthreads;
	int started;

	atomic_uint_fast64_t bytes_done, files_done;
};

/*
 * Collect the data pieces of every file with file_blocks[f] > 0 from the
 * layout, sorted by physical block.  Returns 0, -ENOMEM, or -EINVAL when
 * the layout's runs do not add up to file_blocks.
 */
int ext4_data_init(struct ext4_data *d, const struct plan *pl, const struct layout *lo,
		   const uint64_t *file_blocks, uint32_t block_size);

/*
 * Start jobs workers writing through fd, content from cs: around the page
 * cache (DATA_IO_DIRECT, where the file and block size allow it), through
 * it (DATA_IO_BUFFERED), or (DATA_IO_AUTO) the way that wrote faster when
 * both were timed at the target first, over blocks the data writes
 * afterwards (the same bytes either way: see dio.h).  d->io says which
 * and why.  Returns 0 or a negative errno (nothing left running then).
 */
int ext4_data_start(struct ext4_data *d, const struct content_source *cs, int fd,
		    enum data_io way, unsigned jobs, volatile sig_atomic_t *cancel);

/*
 * Wait up to ms milliseconds for the workers.  Returns 1 while they run,
 * 0 when all are done.
 */
int ext4_data_wait(struct ext4_data *d, unsigned ms);

/*
 * Ask the workers to stop after their current batch (err, if nonzero and
 * the first, becomes the result), wait for them all, and return the first
 * error, 0 if they finished cleanly.
 */
int ext4_data_join(struct ext4_data *d, int err);

/* Free everything; joins workers still running. */
void ext4_data_release(struct ext4_data *d);

#endif
