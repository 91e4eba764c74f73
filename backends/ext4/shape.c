/* shape.c - every directory's shape, made on the create's workers, taken in directory order */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/shape.h"
#include "util/array.h"

/*
 * Directories go to the threads in chunks of consecutive ones, up to
 * SHAPE_CHUNK_DIRS of them or until SHAPE_CHUNK_ENTRIES entries, so that
 * the lock is taken once for many small directories.  At most
 * SHAPE_AHEAD_ENTRIES entries are made ahead of the in-order part (a
 * chunk with more goes alone), which bounds the memory the threads hold.
 */
#define SHAPE_CHUNK_DIRS      256
#define SHAPE_CHUNK_ENTRIES   4096
#define SHAPE_AHEAD_ENTRIES   (1u << 16)
#define SHAPE_SLOTS_PER_THREAD 4
#define SHAPE_MAX_THREADS     64
/* a thread's buffers above these go back after their chunk */
#define SHAPE_KEEP_ENTS	      SHAPE_AHEAD_ENTRIES
#define SHAPE_KEEP_REC	      (1u << 20)

/* What went wrong with a directory, reported when the in-order part reaches it. */
enum shape_fail {
	SHAPE_FAIL_COLLECT, /* its entries could not be made */
	SHAPE_FAIL_SHAPE,   /* ext4_dir_shape() refused them */
	SHAPE_FAIL_SIZE,    /* its blocks and their mapping are too many */
};

/* Directories first..first+n-1, made by one thread. */
struct shape_chunk {
	uint32_t first, n;
	uint64_t entries;
	int done;
	uint32_t fail_at; /* the first that failed; first + n: none */
	enum shape_fail fail;
	int fail_ret;
	size_t fail_n; /* its entries */
	/* the directories' records to keep, in order: rec_size[k] bytes each (0: none) */
	unsigned char *rec;
	size_t rec_len, rec_cap;
	size_t rec_size[SHAPE_CHUNK_DIRS];
};

struct shape_run {
	struct ext4_build *x;
	pthread_mutex_t lock;
	pthread_cond_t cv; /* a chunk made or taken, or stop */
	struct shape_chunk *slot;
	unsigned nslots;
	uint64_t head, tail; /* chunks [head, tail) handed out and not taken yet */
	uint32_t next_dir;   /* the first directory not handed out */
	uint64_t ahead;	     /* their entries */
	int stop;
	/* cleared once a directory was not kept: no later one is */
	atomic_int keep_open;
};

/* Under r->lock: the next chunk to make, if the window has room for it. */
static struct shape_chunk *shape_claim(struct shape_run *r)
{
	const struct ext4_build *x = r->x;
	uint32_t first = r->next_dir, end = first, ndirs = x->pl->ndirs;
	uint64_t e = 0;
	struct shape_chunk *c;

	if (r->stop || first >= ndirs || r->tail - r->head >= r->nslots)
		return NULL;
	while (end < ndirs && end - first < SHAPE_CHUNK_DIRS && e < SHAPE_CHUNK_ENTRIES)
		e += ext4_dir_entries(x, end++);
	if (r->tail > r->head && r->ahead + e > SHAPE_AHEAD_ENTRIES)
		return NULL;
	c = &r->slot[r->tail % r->nslots];
	c->first = first;
	c->n = end - first;
	c->entries = e;
	c->done = 0;
	r->tail++;
	r->next_dir = end;
	r->ahead += e;
	return c;
}

/* Directory j's record into c, while keeping goes on and it can be kept. */
static size_t shape_record(struct shape_run *r, struct shape_chunk *c, const struct ext4_ents *d,
			   uint32_t j)
{
	size_t len;

	if (!atomic_load_explicit(&r->keep_open, memory_order_relaxed))
		return 0;
	len = ext4_keep_size(d);
	if (!len || len > r->x->keep_budget)
		return 0;
	if (array_grow(&c->rec, &c->rec_cap, c->rec_len + len, 1))
		return 0;
	ext4_keep_put(d, j, c->rec + c->rec_len);
	c->rec_len += len;
	return len;
}

static void shape_failed(struct shape_chunk *c, uint32_t j, enum shape_fail fail, int ret, size_t n)
{
	c->fail_at = j;
	c->fail = fail;
	c->fail_ret = ret;
	c->fail_n = n;
}

/* Collect and shape c's directories, into d; stops at the first that fails. */
static void shape_make(struct shape_run *r, struct shape_chunk *c, struct ext4_ents *d)
{
	struct ext4_build *x = r->x;

	c->fail_at = c->first + c->n;
	c->rec_len = 0;
	for (uint32_t k = 0; k < c->n; k++) {
		uint32_t j = c->first + k;
		uint64_t nd, total;
		int ret;

		c->rec_size[k] = 0;
		ret = ext4_collect_into(x, d, j);
		if (ret) {
			shape_failed(c, j, SHAPE_FAIL_COLLECT, ret, 0);
			break;
		}
		ret = ext4_dir_shape(x->fs, d->e, d->n, &x->shape[j]);
		if (ret) {
			shape_failed(c, j, SHAPE_FAIL_SHAPE, ret, d->n);
			break;
		}
		nd = x->shape[j].nblocks;
		total = nd +
			ext4_map_meta_count(x->extents, x->bs, nd,
					    (nd + EXT4_MAP_MAX_EXTENT - 1) / EXT4_MAP_MAX_EXTENT);
		if (total > UINT32_MAX / 2) {
			shape_failed(c, j, SHAPE_FAIL_SIZE, -EFBIG, d->n);
			break;
		}
		x->dir_blocks[j] = (uint32_t)total;
		c->rec_size[k] = shape_record(r, c, d, j);
	}
	if (d->cap > SHAPE_KEEP_ENTS) {
		ext4_ents_release(d);
		memset(d, 0, sizeof(*d));
	}
}

/* The message for c's failed directory. */
static int shape_fail_msg(struct ext4_build *x, const struct shape_chunk *c)
{
	char path[PATH_MAX];
	uint32_t j = c->fail_at;

	switch (c->fail) {
	case SHAPE_FAIL_COLLECT:
		return ext4_set_err(x->b, c->fail_ret, "out of memory");
	case SHAPE_FAIL_SHAPE:
		if (c->fail_ret == -EFBIG)
			return ext4_set_err(
				x->b, c->fail_ret,
				"directory '%s' has %zu entries, more than an htree of this file system holds (try -O large_dir)",
				ext4_entry_path(x, j, NULL, path, sizeof(path)), c->fail_n);
		return ext4_set_err(x->b, c->fail_ret, "cannot shape directory '%s': %s",
				    ext4_entry_path(x, j, NULL, path, sizeof(path)),
				    strerror(-c->fail_ret));
	case SHAPE_FAIL_SIZE:
	default:
		return ext4_set_err(x->b, -EFBIG, "directory '%s' is too large",
				    ext4_entry_path(x, j, NULL, path, sizeof(path)));
	}
}

/* The in-order part for chunk c: keeping, x->dcap, progress, the first error. */
static int shape_take(struct shape_run *r, struct shape_chunk *c)
{
	struct ext4_build *x = r->x;
	const unsigned char *rec = c->rec;
	int ret;

	for (uint32_t j = c->first; j < c->fail_at; j++) {
		size_t len = c->rec_size[j - c->first];

		if (atomic_load_explicit(&r->keep_open, memory_order_relaxed) &&
		    !ext4_keep_add(x, j, rec, len))
			atomic_store_explicit(&r->keep_open, 0, memory_order_relaxed);
		rec += len;
		if (x->dir_blocks[j] > x->dcap)
			x->dcap = x->dir_blocks[j];
		ret = ext4_tick(x, (uint64_t)j + 1);
		if (ret)
			return ret;
	}
	if (c->fail_at < c->first + c->n)
		return shape_fail_msg(x, c);
	if (c->rec_cap > SHAPE_KEEP_REC) {
		free(c->rec);
		c->rec = NULL;
		c->rec_cap = 0;
	}
	return 0;
}

static void *shape_worker(void *arg)
{
	struct shape_run *r = arg;
	struct ext4_ents d = { 0 };
	struct shape_chunk *c;

	pthread_mutex_lock(&r->lock);
	while (!r->stop) {
		c = shape_claim(r);
		if (!c) {
			pthread_cond_wait(&r->cv, &r->lock);
			continue;
		}
		pthread_mutex_unlock(&r->lock);
		shape_make(r, c, &d);
		pthread_mutex_lock(&r->lock);
		c->done = 1;
		pthread_cond_broadcast(&r->cv);
	}
	pthread_mutex_unlock(&r->lock);
	ext4_ents_release(&d);
	return NULL;
}

/*
 * The calling thread takes the chunks in order; while the next one is
 * not made yet it makes one itself, or waits.
 */
static int shape_run_main(struct shape_run *r, struct ext4_ents *d)
{
	uint32_t ndirs = r->x->pl->ndirs;
	struct shape_chunk *c;
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	while (r->next_dir < ndirs || r->head < r->tail) {
		c = &r->slot[r->head % r->nslots];
		if (r->head < r->tail && c->done) {
			pthread_mutex_unlock(&r->lock);
			ret = shape_take(r, c);
			pthread_mutex_lock(&r->lock);
			r->ahead -= c->entries;
			r->head++;
			pthread_cond_broadcast(&r->cv);
			if (ret)
				break;
			continue;
		}
		c = shape_claim(r);
		if (!c) {
			pthread_cond_wait(&r->cv, &r->lock);
			continue;
		}
		pthread_mutex_unlock(&r->lock);
		shape_make(r, c, d);
		pthread_mutex_lock(&r->lock);
		c->done = 1;
	}
	r->stop = 1;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

int ext4_shape_dirs(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	struct shape_run r = { .x = x };
	struct ext4_ents d = { 0 };
	pthread_t tid[SHAPE_MAX_THREADS];
	unsigned threads = x->st->jobs, started = 0;
	int ret;

	if (threads < 1)
		threads = 1;
	if (threads > SHAPE_MAX_THREADS)
		threads = SHAPE_MAX_THREADS;
	/* too few entries to be worth a thread */
	if ((uint64_t)pl->ndirs + pl->nfiles + pl->nlinks <= SHAPE_CHUNK_ENTRIES)
		threads = 1;
	r.nslots = threads * SHAPE_SLOTS_PER_THREAD;
	r.slot = calloc(r.nslots, sizeof(*r.slot));
	if (!r.slot)
		return ext4_set_err(x->b, -ENOMEM, "out of memory");
	atomic_init(&r.keep_open, 1);
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.cv, NULL);
	/* a thread that cannot be started leaves its share to the others */
	while (started + 1 < threads && !pthread_create(&tid[started], NULL, shape_worker, &r))
		started++;

	ret = shape_run_main(&r, &d);

	for (unsigned i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.lock);
	for (unsigned i = 0; i < r.nslots; i++)
		free(r.slot[i].rec);
	free(r.slot);
	ext4_ents_release(&d);
	return ret;
}
