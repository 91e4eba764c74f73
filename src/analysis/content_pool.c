/* content_pool.c - the hash set of contents, the compressors and their worker pool */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>

#include "analysis/content_stats_int.h"

/* ---- the hash set ------------------------------------------------------- */

int content_hset_init(struct hset *s, size_t cap)
{
	s->key = calloc(cap, sizeof(*s->key));
	s->tag = calloc(cap, sizeof(*s->tag));
	s->cap = cap;
	s->used = 0;
	if (!s->key || !s->tag) {
		free(s->key);
		free(s->tag);
		s->key = NULL;
		s->tag = NULL;
		return -ENOMEM;
	}
	return 0;
}

void content_hset_release(struct hset *s)
{
	free(s->key);
	free(s->tag);
	s->key = NULL;
	s->tag = NULL;
}

static void hset_place(struct hset *s, uint64_t key, uint32_t tag)
{
	size_t i = key & (s->cap - 1);

	while (s->tag[i])
		i = (i + 1) & (s->cap - 1);
	s->key[i] = key;
	s->tag[i] = tag;
}

static int hset_grow(struct hset *s)
{
	struct hset n;
	int ret = content_hset_init(&n, s->cap * 2);

	if (ret)
		return ret;
	for (size_t i = 0; i < s->cap; i++)
		if (s->tag[i])
			hset_place(&n, s->key[i], s->tag[i]);
	n.used = s->used;
	content_hset_release(s);
	*s = n;
	return 0;
}

/*
 * Add an occurrence of a content in group g.  Returns a mask of SEEN,
 * SEEN_IN_GROUP, FIRST_REPEAT and FIRST_GROUP_REPEAT, or -ENOMEM.
 */
int content_hset_add(struct hset *s, XXH128_hash_t h, enum content_group g)
{
	uint32_t check = (uint32_t)(h.high64 >> 32) & ~STATE_MASK;
	uint32_t bit = 1u << g, rbit = bit << REPEAT_SHIFT;
	uint32_t *t;
	size_t i;
	int r;

	if ((s->used + 1) * 10 > s->cap * 7) {
		int ret = hset_grow(s);

		if (ret)
			return ret;
	}
	for (i = h.low64 & (s->cap - 1); s->tag[i]; i = (i + 1) & (s->cap - 1)) {
		if (s->key[i] != h.low64 || (s->tag[i] & ~STATE_MASK) != check)
			continue;
		t = &s->tag[i];
		r = SEEN;
		if (!(*t & REPEAT_ANY))
			r |= FIRST_REPEAT;
		*t |= REPEAT_ANY;
		if (*t & bit) {
			r |= SEEN_IN_GROUP;
			if (!(*t & rbit))
				r |= FIRST_GROUP_REPEAT;
			*t |= rbit;
		}
		*t |= bit;
		return r;
	}
	s->key[i] = h.low64;
	s->tag[i] = check | bit;
	s->used++;
	return 0;
}

/* ---- compressors -------------------------------------------------------- */

int content_squeezer_init(struct squeezer *q)
{
	size_t zl = compressBound(SEGMENT), zs = ZSTD_compressBound(SEGMENT);

	memset(q, 0, sizeof(*q));
	q->out_len = zl > zs ? zl : zs;
	q->out = malloc(q->out_len);
	q->zc = ZSTD_createCCtx();
	if (!q->out || !q->zc)
		return -ENOMEM;
	if (deflateInit(&q->z, ZLIB_LEVEL) != Z_OK)
		return -ENOMEM;
	q->z_ready = true;
	return 0;
}

void content_squeezer_release(struct squeezer *q)
{
	if (q->z_ready)
		deflateEnd(&q->z);
	ZSTD_freeCCtx(q->zc);
	free(q->out);
	memset(q, 0, sizeof(*q));
}

int content_squeeze(struct squeezer *q, const uint8_t *buf, size_t len, uint64_t *zlib,
		   uint64_t *zstd)
{
	size_t n;

	if (deflateReset(&q->z) != Z_OK)
		return -EIO;
	q->z.next_in = (Bytef *)buf;
	q->z.avail_in = (uInt)len;
	q->z.next_out = q->out;
	q->z.avail_out = (uInt)q->out_len;
	if (deflate(&q->z, Z_FINISH) != Z_STREAM_END)
		return -EIO;
	*zlib = q->z.total_out;
	n = ZSTD_compressCCtx(q->zc, q->out, q->out_len, buf, len, ZSTD_LEVEL);
	if (ZSTD_isError(n))
		return -EIO;
	*zstd = n;
	return 0;
}

/* Add a finished file's sizes to its group and the total (under the pool lock, if any). */
static void frec_fold(struct content_stats *st, struct frec *r)
{
	if (r->distinct) {
		struct content_group_stats *g[2] = { &st->all, &st->group[r->group] };

		for (int i = 0; i < 2; i++) {
			g[i]->sampled_bytes += r->sampled;
			g[i]->zlib_bytes += r->zlib;
			g[i]->zstd_bytes += r->zstd;
		}
		if (r->ext >= 0) {
			struct content_group_stats *e = &st->ext[r->ext].g;

			e->sampled_bytes += r->sampled;
			e->zlib_bytes += r->zlib;
			e->zstd_bytes += r->zstd;
		}
	}
	free(r);
}

struct worker_arg {
	struct pool *pool;
	struct squeezer *sq;
};

static void *worker(void *arg)
{
	struct pool *pl = ((struct worker_arg *)arg)->pool;
	struct squeezer *sq = ((struct worker_arg *)arg)->sq;
	struct job *j;

	free(arg);
	pthread_mutex_lock(&pl->lock);
	for (;;) {
		uint64_t zl = 0, zs = 0;
		int ret;

		while (!pl->head && !pl->stop)
			pthread_cond_wait(&pl->work, &pl->lock);
		if (!pl->head)
			break;
		j = pl->head;
		pl->head = j->next;
		if (!pl->head)
			pl->tail = NULL;
		pl->busy++;
		pthread_mutex_unlock(&pl->lock);

		ret = content_squeeze(sq, j->buf, j->len, &zl, &zs);

		pthread_mutex_lock(&pl->lock);
		if (ret && !pl->err)
			pl->err = ret;
		j->rec->sampled += j->len;
		j->rec->zlib += zl;
		j->rec->zstd += zs;
		if (!--j->rec->pending && j->rec->ended)
			frec_fold(pl->st, j->rec);
		j->rec = NULL;
		j->next = pl->free;
		pl->free = j;
		pl->busy--;
		pthread_cond_broadcast(&pl->done);
	}
	pthread_mutex_unlock(&pl->lock);
	return NULL;
}

/* Wait until every queued segment is compressed. */
void content_pool_drain(struct pool *pl)
{
	pthread_mutex_lock(&pl->lock);
	while (pl->head || pl->busy)
		pthread_cond_wait(&pl->done, &pl->lock);
	pthread_mutex_unlock(&pl->lock);
}

void content_pool_free(struct pool *pl)
{
	if (!pl)
		return;
	if (pl->nthr) {
		content_pool_drain(pl);
		pthread_mutex_lock(&pl->lock);
		pl->stop = true;
		pthread_cond_broadcast(&pl->work);
		pthread_mutex_unlock(&pl->lock);
		for (unsigned i = 0; i < pl->nthr; i++)
			pthread_join(pl->thr[i], NULL);
	}
	for (unsigned i = 0; pl->sq && i < pl->nsq; i++)
		content_squeezer_release(&pl->sq[i]);
	for (unsigned i = 0; pl->jobs && i < pl->njobs; i++)
		free(pl->jobs[i].buf);
	free(pl->jobs);
	free(pl->sq);
	free(pl->thr);
	pthread_cond_destroy(&pl->work);
	pthread_cond_destroy(&pl->done);
	pthread_mutex_destroy(&pl->lock);
	free(pl);
}

/* nthr worker threads (0: the caller compresses) and enough buffers to keep them busy. */
int content_pool_new(struct pool **out, struct content_stats *st, unsigned nthr)
{
	struct pool *pl = calloc(1, sizeof(*pl));
	int ret = -ENOMEM;

	*out = NULL;
	if (!pl)
		return -ENOMEM;
	pthread_mutex_init(&pl->lock, NULL);
	pthread_cond_init(&pl->work, NULL);
	pthread_cond_init(&pl->done, NULL);
	pl->st = st;
	pl->njobs = nthr ? 2 * nthr + 1 : 1;
	pl->jobs = calloc(pl->njobs, sizeof(*pl->jobs));
	pl->nsq = nthr ? nthr : 1;
	pl->sq = calloc(pl->nsq, sizeof(*pl->sq));
	pl->thr = calloc(nthr ? nthr : 1, sizeof(*pl->thr));
	if (!pl->jobs || !pl->sq || !pl->thr)
		goto out_free;
	for (unsigned i = 0; i < pl->njobs; i++) {
		pl->jobs[i].buf = malloc(SEGMENT);
		if (!pl->jobs[i].buf)
			goto out_free;
		pl->jobs[i].next = pl->free;
		pl->free = &pl->jobs[i];
	}
	for (unsigned i = 0; i < pl->nsq; i++) {
		ret = content_squeezer_init(&pl->sq[i]);
		if (ret)
			goto out_free;
	}
	for (unsigned i = 0; i < nthr; i++) {
		struct worker_arg *a = malloc(sizeof(*a));

		ret = -ENOMEM;
		if (!a)
			goto out_free;
		a->pool = pl;
		a->sq = &pl->sq[i];
		ret = -pthread_create(&pl->thr[i], NULL, worker, a);
		if (ret) {
			free(a);
			goto out_free;
		}
		pl->nthr++;
	}
	*out = pl;
	return 0;
out_free:
	content_pool_free(pl);
	return ret;
}

/* A free segment buffer (waits for one when every buffer is queued). */
struct job *content_pool_get(struct pool *pl)
{
	struct job *j;

	pthread_mutex_lock(&pl->lock);
	while (!pl->free)
		pthread_cond_wait(&pl->done, &pl->lock);
	j = pl->free;
	pl->free = j->next;
	pthread_mutex_unlock(&pl->lock);
	return j;
}

void content_pool_put(struct pool *pl, struct job *j)
{
	pthread_mutex_lock(&pl->lock);
	j->next = pl->free;
	pl->free = j;
	pthread_cond_broadcast(&pl->done);
	pthread_mutex_unlock(&pl->lock);
}

/* Compress a filled segment: queued for a worker, or here when there is none. */
int content_pool_submit(struct pool *pl, struct job *j, struct frec *r)
{
	uint64_t zl, zs;
	int ret;

	if (!pl->nthr) {
		ret = content_squeeze(&pl->sq[0], j->buf, j->len, &zl, &zs);
		if (!ret) {
			r->sampled += j->len;
			r->zlib += zl;
			r->zstd += zs;
		}
		content_pool_put(pl, j);
		return ret;
	}
	pthread_mutex_lock(&pl->lock);
	r->pending++;
	j->rec = r;
	j->next = NULL;
	if (pl->tail)
		pl->tail->next = j;
	else
		pl->head = j;
	pl->tail = j;
	pthread_cond_signal(&pl->work);
	pthread_mutex_unlock(&pl->lock);
	return 0;
}

/* The file of r has ended; distinct says whether its sizes count. */
void content_pool_end_file(struct pool *pl, struct frec *r, bool distinct)
{
	pthread_mutex_lock(&pl->lock);
	r->ended = true;
	r->distinct = distinct;
	if (!r->pending)
		frec_fold(pl->st, r);
	pthread_mutex_unlock(&pl->lock);
}
