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

/*
 * Metadata blocks handed to the data writers (ext4_data_stage()): a heap
 * by block number (then by arrival, the last copy winning), each block's
 * bytes in a slot of one pool.
 */
/* Bytes of metadata the workers may hold at once (ext4_data_stage()). */
#define EXT4_DATA_STAGE_BYTES (8u << 20)

struct ext4_staged {
	uint64_t pblk;
	uint64_t seq;
	uint32_t slot;
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
	uint64_t frontier; /* blocks below it are handed out: staging refused */
	uint64_t end;	   /* end of the last piece: staging refused from it */
	int staging;	   /* set while the workers take staged blocks */
	int no_stage;	   /* set before ext4_data_start(): no staging (tests) */
	size_t stage_bytes; /* set before ext4_data_start(): the pool's size, 0 for the default */
	int meta_done;	   /* ext4_data_meta_done() was called */
	uint64_t meta_high; /* end of the highest block offered to ext4_data_stage() */
	unsigned meta_waiting; /* workers waiting on meta_cv for the metadata writer */
	pthread_cond_t meta_cv;
	struct ext4_staged *heap;
	size_t nheap;
	unsigned char *pool;
	uint32_t *free_slot;
	size_t nfree, stage_cap;
	uint64_t seq;
	unsigned room_waiting; /* the metadata writer waiting on meta_cv for room */
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
 * Hand blocks [pblk, pblk + n) of metadata (a directory's), bytes at buf,
 * to the workers: the batch whose span holds them writes them with the
 * file data around them in one request, instead of a small write of their
 * own between two of the batch's.  Only blocks not handed out yet, within
 * the data's span; when the workers hold EXT4_DATA_STAGE_BYTES already,
 * waits for them to take some.  Returns 1 when taken (buf may be reused
 * at once), 0 when the caller must write them itself.  The caller must not
 * read them back through another path before ext4_data_join(), nor stage
 * blocks its I/O channel may hold in its cache.
 */
int ext4_data_stage(struct ext4_data *d, uint64_t pblk, uint64_t n, const unsigned char *buf);

/*
 * The metadata writer has offered all the blocks it will below pblk (it
 * goes by block): workers may take the batches there without waiting.
 */
void ext4_data_meta_at(struct ext4_data *d, uint64_t pblk);

/*
 * The metadata writer has offered all it will: workers no longer wait for
 * it (a worker holds back a batch whose span the metadata writer has not
 * reached yet, so that the blocks it stages there go out with it).
 */
void ext4_data_meta_done(struct ext4_data *d);

/*
 * Wait up to ms milliseconds for the workers.  Returns 1 while they run,
 * 0 when all are done.
 */
int ext4_data_wait(struct ext4_data *d, unsigned ms);

/* The first error of a worker so far, 0 if none. */
int ext4_data_error(struct ext4_data *d);

/*
 * Ask the workers to stop after their current batch (err, if nonzero and
 * the first, becomes the result), wait for them all, and return the first
 * error, 0 if they finished cleanly.
 */
int ext4_data_join(struct ext4_data *d, int err);

/* Free everything; joins workers still running. */
void ext4_data_release(struct ext4_data *d);

#endif
