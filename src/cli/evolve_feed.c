/* evolve_feed.c - the bytes `imprint evolve` writes, made ahead on worker threads (-j) in the order they are written */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "cli/evolve_feed.h"
#include "util/util.h"

/* Ranges are cut into batches of up to EVOLVE_FEED_MAX bytes, each range at a multiple of this. */
#define ALIGN 64
/* At most this many batches made ahead of the writer (a buffer of EVOLVE_FEED_MAX each). */
#define SLOTS_MAX 64

struct feed_range {
	uint64_t file, off;
	uint32_t len;
	uint32_t at; /* its bytes' offset in its batch's buffer */
};

/* Ranges [first, first + n) of the list, made by one worker into one buffer. */
struct feed_batch {
	size_t first, n;
};

/* A buffer: batch `batch` when ready, its fill() failure at range err_at when err. */
struct feed_slot {
	uint8_t *buf;
	size_t batch, err_at;
	int ready, err;
};

struct evolve_feed {
	const struct content_source *cs;
	struct feed_range *r;
	size_t nr, cap;
	struct feed_batch *b;
	size_t nb;
	struct feed_slot *slot;
	size_t nslots;
	pthread_t *th;
	unsigned nth;
	pthread_mutex_t lock;
	pthread_cond_t ready; /* a slot was made */
	pthread_cond_t room;  /* the writer let a slot go, or stop */
	size_t next;          /* the next batch a worker makes */
	size_t taken;         /* the batch the writer takes from; those before are let go */
	size_t at;            /* the next range the writer takes */
	size_t fail;          /* a test's range whose fill() fails, or SIZE_MAX */
	int stop;             /* the workers end (after the batch in hand) */
	int started;          /* the lock and conditions live, threads nth */
	int off;              /* the writer asked out of order: it makes its own bytes */
};

int evolve_feed_new(struct evolve_feed **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

int evolve_feed_add(struct evolve_feed *fd, uint64_t file, uint64_t off, size_t len)
{
	if (!len)
		return 0;
	if (len > EVOLVE_FEED_MAX)
		return -EINVAL;
	if (fd->nr == fd->cap) {
		size_t cap = fd->cap ? fd->cap * 2 : 1024;
		struct feed_range *r = realloc(fd->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		fd->r = r;
		fd->cap = cap;
	}
	fd->r[fd->nr++] = (struct feed_range){ .file = file, .off = off, .len = (uint32_t)len };
	return 0;
}

/* Cut the list into batches, each range's place in its buffer set. */
static int batches(struct evolve_feed *fd)
{
	size_t used = EVOLVE_FEED_MAX;

	fd->b = malloc((fd->nr + 1) * sizeof(*fd->b));
	if (!fd->b)
		return -ENOMEM;
	for (size_t k = 0; k < fd->nr; k++) {
		struct feed_range *r = &fd->r[k];
		size_t at = (used + ALIGN - 1) / ALIGN * ALIGN;

		if (at + r->len > EVOLVE_FEED_MAX) {
			fd->b[fd->nb++] = (struct feed_batch){ .first = k };
			at = 0;
		}
		r->at = (uint32_t)at;
		used = at + r->len;
		fd->b[fd->nb - 1].n++;
	}
	return 0;
}

static void *worker(void *arg)
{
	struct evolve_feed *fd = arg;
	const struct content_source *cs = fd->cs;

	pthread_mutex_lock(&fd->lock);
	for (;;) {
		size_t i, k, err_at = 0;
		struct feed_slot *s;
		int err = 0;

		while (!fd->stop && fd->next < fd->nb && fd->next >= fd->taken + fd->nslots)
			pthread_cond_wait(&fd->room, &fd->lock);
		if (fd->stop || fd->next >= fd->nb)
			break;
		i = fd->next++;
		s = &fd->slot[i % fd->nslots];
		pthread_mutex_unlock(&fd->lock);
		for (k = fd->b[i].first; !err && k < fd->b[i].first + fd->b[i].n; k++) {
			const struct feed_range *r = &fd->r[k];

			err = k == fd->fail ? -EIO : cs->fill(cs, r->file, r->off, s->buf + r->at, r->len);
			err_at = k;
		}
		pthread_mutex_lock(&fd->lock);
		s->batch = i;
		s->err = err;
		s->err_at = err_at;
		s->ready = 1;
		pthread_cond_broadcast(&fd->ready);
	}
	pthread_mutex_unlock(&fd->lock);
	return NULL;
}

int evolve_feed_start(struct evolve_feed *fd, const struct content_source *cs, unsigned jobs,
		      int fail_at)
{
	int ret = batches(fd);

	fd->cs = cs;
	fd->fail = fail_at && fd->nr ? fd->nr / 2 : SIZE_MAX;
	if (ret || !fd->nb)
		return ret;
	jobs = MAX(jobs, 1u);
	fd->nslots = MIN(MIN((size_t)jobs * 4, (size_t)SLOTS_MAX), fd->nb);
	fd->slot = calloc(fd->nslots, sizeof(*fd->slot));
	fd->th = calloc(MIN((size_t)jobs, fd->nslots), sizeof(*fd->th));
	if (!fd->slot || !fd->th)
		return -ENOMEM;
	for (size_t i = 0; i < fd->nslots; i++)
		if (!(fd->slot[i].buf = malloc(EVOLVE_FEED_MAX)))
			return -ENOMEM;
	ret = -pthread_mutex_init(&fd->lock, NULL);
	if (ret)
		return ret;
	pthread_cond_init(&fd->ready, NULL);
	pthread_cond_init(&fd->room, NULL);
	fd->started = 1;
	for (size_t i = 0; i < MIN((size_t)jobs, fd->nslots); i++) {
		ret = -pthread_create(&fd->th[fd->nth], NULL, worker, fd);
		if (ret)
			break;
		fd->nth++;
	}
	/* fewer workers than asked make the same bytes; none make none */
	return fd->nth ? 0 : ret;
}

/* The workers told to end (those making a batch finish it). */
static void halt(struct evolve_feed *fd)
{
	pthread_mutex_lock(&fd->lock);
	fd->stop = 1;
	pthread_cond_broadcast(&fd->room);
	pthread_mutex_unlock(&fd->lock);
}

int evolve_feed_take(struct evolve_feed *fd, uint64_t file, uint64_t off, size_t len,
		     const void **p)
{
	const struct feed_range *r;
	struct feed_slot *s;
	size_t k;

	*p = NULL;
	if (!fd || fd->off || !len)
		return 0;
	k = fd->at;
	r = k < fd->nr ? &fd->r[k] : NULL;
	if (!fd->nth || !r || r->file != file || r->off != off || r->len != len) {
		fd->off = 1;
		if (fd->started)
			halt(fd);
		return 0;
	}
	pthread_mutex_lock(&fd->lock);
	/* the batches the writer is past: their slots made free */
	while (k >= fd->b[fd->taken].first + fd->b[fd->taken].n) {
		fd->slot[fd->taken % fd->nslots].ready = 0;
		fd->taken++;
		pthread_cond_broadcast(&fd->room);
	}
	s = &fd->slot[fd->taken % fd->nslots];
	while (!(s->ready && s->batch == fd->taken))
		pthread_cond_wait(&fd->ready, &fd->lock);
	pthread_mutex_unlock(&fd->lock);
	if (s->err && k >= s->err_at)
		return s->err;
	fd->at++;
	*p = s->buf + r->at;
	return 0;
}

void evolve_feed_end(struct evolve_feed *fd)
{
	if (!fd)
		return;
	if (fd->started) {
		halt(fd);
		for (unsigned i = 0; i < fd->nth; i++)
			pthread_join(fd->th[i], NULL);
		pthread_cond_destroy(&fd->ready);
		pthread_cond_destroy(&fd->room);
		pthread_mutex_destroy(&fd->lock);
	}
	for (size_t i = 0; fd->slot && i < fd->nslots; i++)
		free(fd->slot[i].buf);
	FREE_ALL(fd->slot, fd->th, fd->b, fd->r);
	free(fd);
}
