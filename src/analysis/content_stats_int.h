/* content_stats_int.h - inside content_stats: its state, the hash set, the compressor pool */
#ifndef IMPRINT_CONTENT_STATS_INT_H
#define IMPRINT_CONTENT_STATS_INT_H

#include <magic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "analysis/content_stats.h"
#include "util/words.h"
#include "util/util.h"

#define BLOCK	   4096
#define SEGMENT	   (1024 * 1024)
#define MAGIC_HEAD (64 * 1024)
#define ZLIB_LEVEL 6
#define ZSTD_LEVEL 3

/*
 * Open addressing with linear probing over two parallel arrays: the first
 * 64 bits of a content's XXH3-128 hash (the probe key) and a 32-bit tag:
 * 21 more bits of the hash (verification) above 11 bits of state: the
 * groups the content was seen in (5 bits), the groups it was seen in more
 * than once (5), and whether it was seen more than once at all (1).  12
 * bytes a slot; a tag is never 0 (a group bit is set), so 0 marks an empty
 * slot.  4 M distinct blocks take 8 M slots, 96 MiB.
 */
#define GROUP_BITS   5
#define GROUP_MASK   ((1u << GROUP_BITS) - 1)
#define REPEAT_SHIFT GROUP_BITS
#define REPEAT_ANY   (1u << (2 * GROUP_BITS))
#define STATE_MASK   ((REPEAT_ANY << 1) - 1)

/* content_hset_add() results */
#define SEEN		   1 /* seen before, in any group */
#define SEEN_IN_GROUP	   2 /* seen before in this group */
#define FIRST_REPEAT	   4 /* the second occurrence of all */
#define FIRST_GROUP_REPEAT 8 /* the second occurrence in this group */

_Static_assert(CONTENT_GROUPS <= GROUP_BITS, "group mask too narrow");

struct hset {
	uint64_t *key;
	uint32_t *tag;
	size_t cap; /* power of two */
	size_t used;
};

/* One compressor: its own zlib stream and zstd context, and room for a segment's output. */
struct squeezer {
	z_stream z;
	bool z_ready;
	ZSTD_CCtx *zc;
	uint8_t *out;
	size_t out_len;
};

/* A squeezer ready for content_squeeze(): 0 or -ENOMEM (release it either way). */
int content_squeezer_init(struct squeezer *q);
void content_squeezer_release(struct squeezer *q);

/* zlib -6 and zstd -3 sizes of buf (at most SEGMENT bytes), each compressed on its own: 0 or -EIO. */
int content_squeeze(struct squeezer *q, const uint8_t *buf, size_t len, uint64_t *zlib,
		    uint64_t *zstd);

/*
 * The compressed sizes of one file's sampled segments.  They count once
 * the file has ended and is known to be distinct, and its last segment is
 * compressed, whichever comes last.
 */
struct frec {
	enum content_group group;
	int ext; /* index in st->ext, or -1 */
	bool ended, distinct;
	unsigned pending; /* segments queued or being compressed */
	uint64_t sampled, zlib, zstd;
};

/* A segment to compress, in a buffer of SEGMENT bytes. */
struct job {
	struct job *next;
	struct frec *rec;
	uint8_t *buf;
	size_t len;
};

/*
 * Worker threads compressing segments while the caller reads and hashes.
 * The sums are commutative, so the order in which they finish never shows.
 */
struct pool {
	pthread_mutex_t lock;
	pthread_cond_t work; /* a job queued, or stop */
	pthread_cond_t done; /* a job finished: a buffer is free */
	struct job *head, *tail;
	struct job *free; /* free jobs and their buffers */
	struct job *jobs; /* all of them */
	unsigned njobs, busy;
	bool stop;
	int err; /* the first compressor error */
	struct content_stats *st;
	struct squeezer *sq; /* one a thread, or the caller's */
	unsigned nsq;
	pthread_t *thr;
	unsigned nthr; /* threads started */
};

struct cs_priv {
	struct hset files, blocks;
	struct hset ext_files; /* files by (digest, extension): copies within an extension */
	magic_t magic;
	struct pool *pool;
	XXH3_state_t *xs;  /* the file's identity: its segments' digests, zero runs as one record */
	XXH3_state_t *sxs; /* the current segment's bytes */
	uint8_t *head; /* the first MAGIC_HEAD bytes of the file */

	/* the current file */
	bool open;
	char *path;
	char ext[32];
	enum content_group group;
	int exti; /* the file's index in st->ext, or -1 */
	uint64_t size, pos;
	uint64_t path_hash;
	size_t head_len;
	uint8_t blk[BLOCK];
	size_t blk_len;
	uint64_t f_blocks, f_zero;
	uint64_t f_bidx, f_hole;   /* blocks met (hole blocks too), hole blocks */
	struct content_hole *hole; /* its holes, sorted, merged */
	size_t nhole, hole_cap;
	size_t hblk, hseg, hcopy; /* the first hole that may touch the next block, segment, byte */
	XXH128_hash_t
		*f_hash; /* the file's non-zero blocks, added once the file is known not a copy */
	size_t f_nhash, f_cap;
	struct frec *rec; /* its compressed sizes, once a segment is sampled */
	struct job *seg;  /* the sampled segment being filled, or NULL */
	size_t seg_want;  /* its length */
	bool seg_nonzero; /* the current segment has a byte that is not 0 */
	uint64_t zero_run; /* bytes of all-zero segments not yet in xs */
	struct words words; /* the distinct words of its head */
};

/*
 * ---- content_pool.c
 *
 * content_hset_add() adds a content's hash seen in group g and returns
 * the SEEN* and FIRST_*REPEAT bits of what it knew, or a negative errno.
 * The pool compresses sampled segments on nthr threads (none: the caller
 * does it): content_pool_get() waits for a free job, content_pool_submit()
 * queues it for r, content_pool_end_file() counts r once its segments are
 * done, content_pool_drain() waits for all.  Those returning int return 0
 * or a negative errno.
 */

int content_hset_init(struct hset *s, size_t cap);
void content_hset_release(struct hset *s);
int content_hset_add(struct hset *s, XXH128_hash_t h, enum content_group g);
void content_pool_drain(struct pool *pl);
void content_pool_free(struct pool *pl);
int content_pool_new(struct pool **out, struct content_stats *st, unsigned nthr);
struct job *content_pool_get(struct pool *pl);
void content_pool_put(struct pool *pl, struct job *j);
int content_pool_submit(struct pool *pl, struct job *j, struct frec *r);
void content_pool_end_file(struct pool *pl, struct frec *r, bool distinct);

#endif
