/* content_stats.c - achieved content statistics: zlib/zstd ratios, duplicate files and blocks, zero blocks, libmagic types */
#include <errno.h>
#include <json-c/json.h>
#include <magic.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>
#include <zlib.h>
#include <zstd.h>

#include "content/registry.h"
#include "content/gen.h"
#include "readback/content_stats.h"
#include "readback/fsread.h"
#include "model/params.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define BLOCK 4096
#define SEGMENT (1024 * 1024)
#define MAGIC_HEAD (64 * 1024)
#define ZLIB_LEVEL 6
#define ZSTD_LEVEL 3

/* ---- extensions and groups -------------------------------------------- */

/*
 * Groups by the generator that writes an extension (content_ext_ops()), so
 * that "other binary" is exactly what the compress, duplicate-block and
 * zero-block targets apply to.
 */
static const struct {
	const char *gen;
	enum content_group group;
} gen_groups[] = {
	{ "text", CONTENT_TEXT }, { "html", CONTENT_TEXT }, { "source", CONTENT_TEXT },
	{ "json", CONTENT_TEXT }, { "xml", CONTENT_TEXT },
	{ "png", CONTENT_MEDIA }, { "jpeg", CONTENT_MEDIA }, { "gif", CONTENT_MEDIA },
	{ "bmp", CONTENT_MEDIA }, { "wav", CONTENT_MEDIA }, { "mp3", CONTENT_MEDIA },
	{ "mp4", CONTENT_MEDIA },
	{ "elf", CONTENT_EXEC }, { "pe", CONTENT_EXEC },
};

static const char *const group_names[CONTENT_GROUPS] = {
	[CONTENT_TEXT] = "text",
	[CONTENT_MEDIA] = "media",
	[CONTENT_ARCHIVE] = "archive",
	[CONTENT_EXEC] = "executable",
	[CONTENT_BINARY] = "binary",
};

/*
 * What `file --mime-type` says of each typed format (older libmagic names
 * too).  A bare DOS header ("MZ", application/x-dosexec) is not a PE file.
 */
static const char *const mime_png[] = { "image/png", NULL };
static const char *const mime_jpeg[] = { "image/jpeg", NULL };
static const char *const mime_gif[] = { "image/gif", NULL };
static const char *const mime_bmp[] = { "image/bmp", "image/x-ms-bmp", NULL };
static const char *const mime_wav[] = { "audio/x-wav", "audio/wav", "audio/vnd.wave", NULL };
static const char *const mime_mp3[] = { "audio/mpeg", NULL };
static const char *const mime_mp4[] = { "video/mp4", NULL };
static const char *const mime_pdf[] = { "application/pdf", NULL };
static const char *const mime_zip[] = { "application/zip", NULL };
static const char *const mime_gz[] = { "application/gzip", "application/x-gzip", NULL };
static const char *const mime_tar[] = { "application/x-tar", NULL };
static const char *const mime_so[] = {
	"application/x-sharedlib", "application/x-pie-executable", NULL
};
static const char *const mime_o[] = { "application/x-object", NULL };
static const char *const mime_exec[] = { "application/x-executable", NULL };
static const char *const mime_pe[] = { "application/vnd.microsoft.portable-executable", NULL };

static const struct {
	const char *ext;
	const char *const *mimes;
} typed[] = {
	{ "png", mime_png }, { "jpg", mime_jpeg }, { "jpeg", mime_jpeg },
	{ "gif", mime_gif }, { "bmp", mime_bmp }, { "wav", mime_wav },
	{ "mp3", mime_mp3 }, { "mp4", mime_mp4 }, { "pdf", mime_pdf },
	{ "zip", mime_zip }, { "gz", mime_gz }, { "tar", mime_tar },
	{ "so", mime_so }, { "o", mime_o }, { "ko", mime_o }, { "exe", mime_pe },
	{ "dll", mime_pe }, { "sys", mime_pe },
	/* the extensions of a format's family (content.c) */
	{ "m4a", mime_mp4 }, { "m4v", mime_mp4 }, { "mov", mime_mp4 }, { "tgz", mime_gz },
	{ "jar", mime_zip }, { "apk", mime_zip }, { "whl", mime_zip }, { "egg", mime_zip },
	{ "docx", mime_zip }, { "xlsx", mime_zip }, { "pptx", mime_zip }, { "odt", mime_zip },
	{ "ods", mime_zip }, { "odp", mime_zip }, { "epub", mime_zip }, { "cbz", mime_zip },
	{ "xps", mime_zip }, { "ocx", mime_pe }, { "cpl", mime_pe }, { "scr", mime_pe },
	{ "drv", mime_pe }, { "mui", mime_pe }, { "ax", mime_pe }, { "acm", mime_pe },
	{ "elf", mime_exec }, { "out", mime_exec },
};

enum content_group content_group_of_ext(const char *ext)
{
	const struct gen_ops *ops = content_ext_ops(ext);

	if (ops == &gen_binary_ops)
		return CONTENT_BINARY;
	for (size_t i = 0; i < ARRAY_SIZE(gen_groups); i++)
		if (!strcmp(gen_groups[i].gen, ops->name))
			return gen_groups[i].group;
	/* pdf, zip, gzip, tar and any other typed format */
	return CONTENT_ARCHIVE;
}

const char *content_group_name(enum content_group g)
{
	return g < CONTENT_GROUPS ? group_names[g] : "?";
}

const char *const *content_typed_mimes(const char *ext)
{
	for (size_t i = 0; i < ARRAY_SIZE(typed); i++)
		if (!strcmp(typed[i].ext, ext))
			return typed[i].mimes;
	return NULL;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

size_t content_ext_of_path(const char *path, char *buf, size_t len)
{
	const char *name = strrchr(path, '/');
	const char *end, *dot;
	size_t n;

	name = name ? name + 1 : path;
	end = name + strlen(name);
	dot = memrchr(name, '.', (size_t)(end - name));
	if (dot && all_digits(dot + 1, (size_t)(end - dot - 1))) {
		/* libz.so.1.2.3: the version numbers after ".so" are not the extension */
		const char *d = dot, *e = end;

		while (d && d > name && all_digits(d + 1, (size_t)(e - d - 1))) {
			e = d;
			d = memrchr(name, '.', (size_t)(d - name));
		}
		if (d && e - d == 3 && (d[1] | 0x20) == 's' && (d[2] | 0x20) == 'o') {
			dot = d;
			end = e;
		}
	}
	/* ".profile" has no extension */
	n = dot && dot > name ? (size_t)(end - dot - 1) : 0;
	if (n >= len)
		n = 0;        /* longer than any extension a format has: none */
	for (size_t i = 0; i < n; i++) {
		char ch = dot[1 + i];

		buf[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
	}
	if (len)
		buf[n] = '\0';
	return n;
}

/* ---- the hash set ------------------------------------------------------- */

/*
 * Open addressing with linear probing over two parallel arrays: the first
 * 64 bits of a content's XXH3-128 hash (the probe key) and a 32-bit tag:
 * 21 more bits of the hash (verification) above 11 bits of state: the
 * groups the content was seen in (5 bits), the groups it was seen in more
 * than once (5), and whether it was seen more than once at all (1).  12
 * bytes a slot; a tag is never 0 (a group bit is set), so 0 marks an empty
 * slot.  4 M distinct blocks take 8 M slots, 96 MiB.
 */
#define GROUP_BITS 5
#define GROUP_MASK ((1u << GROUP_BITS) - 1)
#define REPEAT_SHIFT GROUP_BITS
#define REPEAT_ANY (1u << (2 * GROUP_BITS))
#define STATE_MASK ((REPEAT_ANY << 1) - 1)

/* hset_add() results */
#define SEEN 1                  /* seen before, in any group */
#define SEEN_IN_GROUP 2         /* seen before in this group */
#define FIRST_REPEAT 4          /* the second occurrence of all */
#define FIRST_GROUP_REPEAT 8    /* the second occurrence in this group */

_Static_assert(CONTENT_GROUPS <= GROUP_BITS, "group mask too narrow");

struct hset {
	uint64_t *key;
	uint32_t *tag;
	size_t cap;     /* power of two */
	size_t used;
};

static int hset_init(struct hset *s, size_t cap)
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

static void hset_release(struct hset *s)
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
	int ret = hset_init(&n, s->cap * 2);

	if (ret)
		return ret;
	for (size_t i = 0; i < s->cap; i++)
		if (s->tag[i])
			hset_place(&n, s->key[i], s->tag[i]);
	n.used = s->used;
	hset_release(s);
	*s = n;
	return 0;
}

/*
 * Add an occurrence of a content in group g.  Returns a mask of SEEN,
 * SEEN_IN_GROUP, FIRST_REPEAT and FIRST_GROUP_REPEAT, or -ENOMEM.
 */
static int hset_add(struct hset *s, XXH128_hash_t h, enum content_group g)
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

/* One compressor: its own zlib stream and zstd context, and room for a segment's output. */
struct squeezer {
	z_stream z;
	bool z_ready;
	ZSTD_CCtx *zc;
	uint8_t *out;
	size_t out_len;
};

static int squeezer_init(struct squeezer *q)
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

static void squeezer_release(struct squeezer *q)
{
	if (q->z_ready)
		deflateEnd(&q->z);
	ZSTD_freeCCtx(q->zc);
	free(q->out);
	memset(q, 0, sizeof(*q));
}

/* zlib and zstd sizes of buf (at most SEGMENT bytes), each compressed on its own. */
static int squeeze(struct squeezer *q, const uint8_t *buf, size_t len, uint64_t *zlib,
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

/*
 * The compressed sizes of one file's sampled segments.  They count once
 * the file has ended and is known to be distinct, and its last segment is
 * compressed, whichever comes last.
 */
struct frec {
	enum content_group group;
	bool ended, distinct;
	unsigned pending;       /* segments queued or being compressed */
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
	pthread_cond_t work;    /* a job queued, or stop */
	pthread_cond_t done;    /* a job finished: a buffer is free */
	struct job *head, *tail;
	struct job *free;       /* free jobs and their buffers */
	struct job *jobs;       /* all of them */
	unsigned njobs, busy;
	bool stop;
	int err;                /* the first compressor error */
	struct content_stats *st;
	struct squeezer *sq;    /* one a thread, or the caller's */
	unsigned nsq;
	pthread_t *thr;
	unsigned nthr;          /* threads started */
};

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

		ret = squeeze(sq, j->buf, j->len, &zl, &zs);

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
static void pool_drain(struct pool *pl)
{
	pthread_mutex_lock(&pl->lock);
	while (pl->head || pl->busy)
		pthread_cond_wait(&pl->done, &pl->lock);
	pthread_mutex_unlock(&pl->lock);
}

static void pool_free(struct pool *pl)
{
	if (!pl)
		return;
	if (pl->nthr) {
		pool_drain(pl);
		pthread_mutex_lock(&pl->lock);
		pl->stop = true;
		pthread_cond_broadcast(&pl->work);
		pthread_mutex_unlock(&pl->lock);
		for (unsigned i = 0; i < pl->nthr; i++)
			pthread_join(pl->thr[i], NULL);
	}
	for (unsigned i = 0; pl->sq && i < pl->nsq; i++)
		squeezer_release(&pl->sq[i]);
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
static int pool_new(struct pool **out, struct content_stats *st, unsigned nthr)
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
		ret = squeezer_init(&pl->sq[i]);
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
	pool_free(pl);
	return ret;
}

/* A free segment buffer (waits for one when every buffer is queued). */
static struct job *pool_get(struct pool *pl)
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

static void pool_put(struct pool *pl, struct job *j)
{
	pthread_mutex_lock(&pl->lock);
	j->next = pl->free;
	pl->free = j;
	pthread_cond_broadcast(&pl->done);
	pthread_mutex_unlock(&pl->lock);
}

/* Compress a filled segment: queued for a worker, or here when there is none. */
static int pool_submit(struct pool *pl, struct job *j, struct frec *r)
{
	uint64_t zl, zs;
	int ret;

	if (!pl->nthr) {
		ret = squeeze(&pl->sq[0], j->buf, j->len, &zl, &zs);
		if (!ret) {
			r->sampled += j->len;
			r->zlib += zl;
			r->zstd += zs;
		}
		pool_put(pl, j);
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
static void pool_end_file(struct pool *pl, struct frec *r, bool distinct)
{
	pthread_mutex_lock(&pl->lock);
	r->ended = true;
	r->distinct = distinct;
	if (!r->pending)
		frec_fold(pl->st, r);
	pthread_mutex_unlock(&pl->lock);
}

/* ---- the measurement ----------------------------------------------------- */

struct cs_priv {
	struct hset files, blocks;
	magic_t magic;
	struct pool *pool;
	XXH3_state_t *xs;
	uint8_t *head;          /* the first MAGIC_HEAD bytes of the file */

	/* the current file */
	bool open;
	char *path;
	char ext[32];
	enum content_group group;
	uint64_t size, pos;
	uint64_t path_hash;
	size_t head_len;
	uint8_t blk[BLOCK];
	size_t blk_len;
	uint64_t f_blocks, f_zero;
	uint64_t f_bidx, f_hole;  /* blocks met (hole blocks too), hole blocks */
	struct content_hole *hole;  /* its holes, sorted, merged */
	size_t nhole, hole_cap;
	size_t hblk, hseg, hcopy;   /* the first hole that may touch the next block, segment, byte */
	XXH128_hash_t *f_hash;  /* the file's non-zero blocks, added once the file is known not a copy */
	size_t f_nhash, f_cap;
	struct frec *rec;       /* its compressed sizes, once a segment is sampled */
	struct job *seg;        /* the sampled segment being filled, or NULL */
	size_t seg_want;        /* its length */
};

/* Leave the current file, if any, without counting it. */
static void file_abort(struct cs_priv *p)
{
	if (p->seg) {
		pool_put(p->pool, p->seg);
		p->seg = NULL;
	}
	if (p->rec) {
		pool_end_file(p->pool, p->rec, false);
		p->rec = NULL;
	}
	p->open = false;
}

int content_stats_init(struct content_stats *st, const struct content_stats_opts *o)
{
	struct cs_priv *p;
	int ret = -ENOMEM;

	memset(st, 0, sizeof(*st));
	st->opts.sample_share = 1;
	if (o)
		st->opts = *o;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	st->priv = p;
	if (hset_init(&p->files, 1 << 12) || hset_init(&p->blocks, 1 << 16))
		goto out_release;
	p->head = malloc(MAGIC_HEAD);
	p->xs = XXH3_createState();
	if (!p->head || !p->xs)
		goto out_release;
	ret = pool_new(&p->pool, st, st->opts.jobs > 1 ? st->opts.jobs : 0);
	if (ret)
		goto out_release;
	ret = -EIO;
	if (!st->opts.no_magic) {
		p->magic = magic_open(MAGIC_MIME_TYPE);
		if (!p->magic || magic_load(p->magic, NULL) != 0)
			goto out_release;
	}
	return 0;
out_release:
	content_stats_release(st);
	return ret;
}

void content_stats_release(struct content_stats *st)
{
	struct cs_priv *p = st->priv;

	if (p) {
		if (p->pool)
			file_abort(p);
		pool_free(p->pool);
		hset_release(&p->files);
		hset_release(&p->blocks);
		if (p->magic)
			magic_close(p->magic);
		XXH3_freeState(p->xs);
		free(p->head);
		free(p->path);
		free(p->f_hash);
		free(p->hole);
		free(p);
		st->priv = NULL;
	}
	for (size_t i = 0; i < st->nmime; i++)
		free(st->mime[i].type);
	free(st->mime);
	st->mime = NULL;
	st->nmime = 0;
	for (size_t i = 0; i < st->nmiss; i++) {
		free(st->miss[i].path);
		free(st->miss[i].got);
	}
	st->nmiss = 0;
}

/* splitmix64's finalizer: a well-mixed 64-bit value of x */
static uint64_t mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/* Whether segment idx of the file whose path hashes to path_hash is compressed. */
static bool segment_sampled(double share, uint64_t path_hash, uint64_t idx)
{
	uint64_t u;

	if (share >= 1)
		return true;
	if (share <= 0)
		return false;
	u = mix64(path_hash ^ mix64(idx + UINT64_C(0x9e3779b97f4a7c15)));
	return (double)(u >> 11) * 0x1p-53 < share;
}

/*
 * Bytes of [s, e) in the current file's holes; *cur (a hole index) moves
 * on past the holes that end before s, so the calls must come with s in
 * increasing order for the same cursor.
 */
static uint64_t hole_bytes(const struct cs_priv *p, size_t *cur, uint64_t s, uint64_t e)
{
	uint64_t n = 0;

	while (*cur < p->nhole && p->hole[*cur].off + p->hole[*cur].len <= s)
		(*cur)++;
	for (size_t k = *cur; k < p->nhole && p->hole[k].off < e; k++) {
		uint64_t a = p->hole[k].off, b = a + p->hole[k].len;

		n += (b < e ? b : e) - (a > s ? a : s);
	}
	return n;
}

/* Append the bytes of [pos, pos + n), at src, that lie outside the holes to the segment. */
static void seg_copy(struct cs_priv *p, const uint8_t *src, uint64_t pos, size_t n)
{
	uint64_t end = pos + n;

	while (pos < end) {
		const struct content_hole *h;
		uint64_t stop;

		while (p->hcopy < p->nhole && p->hole[p->hcopy].off + p->hole[p->hcopy].len <= pos)
			p->hcopy++;
		h = p->hcopy < p->nhole ? &p->hole[p->hcopy] : NULL;
		if (h && h->off <= pos) {
			/* in a hole: on to its end */
			stop = h->off + h->len < end ? h->off + h->len : end;
		} else {
			stop = h && h->off < end ? h->off : end;
			memcpy(p->seg->buf + p->seg->len, src, stop - pos);
			p->seg->len += stop - pos;
		}
		src += stop - pos;
		pos = stop;
	}
}

static int block_add(struct cs_priv *p, const uint8_t *b)
{
	uint64_t off = p->f_bidx++ * BLOCK;

	if (p->nhole && hole_bytes(p, &p->hblk, off, off + BLOCK) == BLOCK) {
		/* unmapped: not content */
		p->f_hole++;
		return 0;
	}
	p->f_blocks++;
	if (b[0] == 0 && !memcmp(b, b + 1, BLOCK - 1)) {
		p->f_zero++;
		return 0;
	}
	if (p->f_nhash == p->f_cap) {
		size_t cap = p->f_cap ? 2 * p->f_cap : 256;
		XXH128_hash_t *h = realloc(p->f_hash, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		p->f_hash = h;
		p->f_cap = cap;
	}
	p->f_hash[p->f_nhash++] = XXH3_128bits(b, BLOCK);
	return 0;
}

int content_stats_begin(struct content_stats *st, const char *path, uint64_t size)
{
	struct cs_priv *p = st->priv;

	if (p->open)
		return -EINVAL;
	free(p->path);
	p->path = strdup(path);
	if (!p->path)
		return -ENOMEM;
	content_ext_of_path(path, p->ext, sizeof(p->ext));
	p->group = content_group_of_ext(p->ext);
	p->size = size;
	p->pos = 0;
	p->path_hash = XXH3_64bits(path, strlen(path));
	p->head_len = 0;
	p->blk_len = 0;
	p->f_blocks = 0;
	p->f_zero = 0;
	p->f_bidx = 0;
	p->f_hole = 0;
	p->nhole = 0;
	p->hblk = 0;
	p->hseg = 0;
	p->hcopy = 0;
	p->f_nhash = 0;
	p->rec = NULL;
	p->seg = NULL;
	XXH3_128bits_reset(p->xs);
	p->open = true;
	return 0;
}

int content_stats_hole(struct content_stats *st, uint64_t off, uint64_t len)
{
	struct cs_priv *p = st->priv;
	struct content_hole *last = p->nhole ? &p->hole[p->nhole - 1] : NULL;

	if (!p->open || p->pos || off > p->size || len > p->size - off ||
	    (last && off < last->off + last->len))
		return -EINVAL;
	if (!len)
		return 0;
	if (last && off == last->off + last->len) {
		last->len += len;
		return 0;
	}
	if (p->nhole == p->hole_cap) {
		size_t cap = p->hole_cap ? 2 * p->hole_cap : 16;
		struct content_hole *h = realloc(p->hole, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		p->hole = h;
		p->hole_cap = cap;
	}
	p->hole[p->nhole++] = (struct content_hole){ off, len };
	return 0;
}

int content_stats_data(struct content_stats *st, const void *data, size_t len)
{
	struct cs_priv *p = st->priv;
	const uint8_t *buf = data;
	int ret;

	if (!p->open)
		return -EINVAL;
	if (len > p->size - p->pos)
		return -EIO;
	if (XXH3_128bits_update(p->xs, buf, len) != XXH_OK)
		return -EIO;
	if (p->head_len < MAGIC_HEAD) {
		size_t n = len < MAGIC_HEAD - p->head_len ? len : MAGIC_HEAD - p->head_len;

		memcpy(p->head + p->head_len, buf, n);
		p->head_len += n;
	}

	/* 4 KiB blocks: whole ones straight from buf, split ones through blk */
	for (size_t i = 0; i < len;) {
		if (p->blk_len == 0 && len - i >= BLOCK) {
			ret = block_add(p, buf + i);
			if (ret)
				return ret;
			i += BLOCK;
			continue;
		}
		size_t n = BLOCK - p->blk_len < len - i ? BLOCK - p->blk_len : len - i;

		memcpy(p->blk + p->blk_len, buf + i, n);
		p->blk_len += n;
		i += n;
		if (p->blk_len == BLOCK) {
			p->blk_len = 0;
			ret = block_add(p, p->blk);
			if (ret)
				return ret;
		}
	}

	/* 1 MiB segments, each compressed on its own when sampled */
	for (size_t i = 0; i < len;) {
		uint64_t in_seg = p->pos % SEGMENT, left = p->size - (p->pos - in_seg);
		size_t seg_len = left < SEGMENT ? (size_t)left : SEGMENT;
		size_t n = seg_len - in_seg < len - i ? (size_t)(seg_len - in_seg) : len - i;

		/* a segment is its bytes outside the holes; wholly in holes, none */
		if (in_seg == 0 && segment_sampled(st->opts.sample_share, p->path_hash,
						   p->pos / SEGMENT) &&
		    hole_bytes(p, &p->hseg, p->pos, p->pos + seg_len) < seg_len) {
			if (!p->rec) {
				p->rec = calloc(1, sizeof(*p->rec));
				if (!p->rec)
					return -ENOMEM;
				p->rec->group = p->group;
			}
			p->seg = pool_get(p->pool);
			p->seg->len = 0;
			p->seg_want = seg_len - hole_bytes(p, &p->hseg, p->pos, p->pos + seg_len);
		}
		if (p->seg) {
			if (p->nhole) {
				seg_copy(p, buf + i, p->pos, n);
			} else {
				memcpy(p->seg->buf + p->seg->len, buf + i, n);
				p->seg->len += n;
			}
			if (p->seg->len == p->seg_want) {
				struct job *j = p->seg;

				p->seg = NULL;
				ret = pool_submit(p->pool, j, p->rec);
				if (ret)
					return ret;
			}
		}
		p->pos += n;
		i += n;
	}
	return 0;
}

static int mime_count(struct content_stats *st, const char *type, uint64_t bytes)
{
	struct content_mime *m;

	for (size_t i = 0; i < st->nmime; i++) {
		if (!strcmp(st->mime[i].type, type)) {
			st->mime[i].files++;
			st->mime[i].bytes += bytes;
			return 0;
		}
	}
	m = realloc(st->mime, (st->nmime + 1) * sizeof(*m));
	if (!m)
		return -ENOMEM;
	st->mime = m;
	m[st->nmime].type = strdup(type);
	if (!m[st->nmime].type)
		return -ENOMEM;
	m[st->nmime].files = 1;
	m[st->nmime].bytes = bytes;
	st->nmime++;
	return 0;
}

static int types_add(struct content_stats *st, struct cs_priv *p)
{
	const char *const *want = content_typed_mimes(p->ext);
	const char *got;
	int ret;

	got = magic_buffer(p->magic, p->head, p->head_len);
	if (!got)
		got = "unknown";
	ret = mime_count(st, got, p->size);
	if (ret || !want)
		return ret;
	st->typed_files++;
	for (; *want; want++) {
		if (!strcmp(*want, got)) {
			st->typed_identified++;
			return 0;
		}
	}
	if (st->nmiss < CONTENT_MAX_MISSES) {
		struct content_miss *m = &st->miss[st->nmiss];

		m->path = strdup(p->path);
		m->got = strdup(got);
		if (!m->path || !m->got) {
			free(m->path);
			free(m->got);
			return -ENOMEM;
		}
		st->nmiss++;
	}
	return 0;
}

int content_stats_end(struct content_stats *st)
{
	struct cs_priv *p = st->priv;
	struct content_group_stats *g;
	int seen, ret;

	if (!p->open)
		return -EINVAL;
	if (p->pos != p->size) {
		file_abort(p);
		return -EIO;
	}
	p->open = false;
	g = &st->group[p->group];
	seen = hset_add(&p->files, XXH3_128bits_digest(p->xs), p->group);
	if (seen < 0) {
		file_abort(p);
		return seen;
	}
	if (p->rec) {
		pool_end_file(p->pool, p->rec, !(seen & SEEN));
		p->rec = NULL;
	}
	st->all.files++;
	st->all.bytes += p->size;
	st->all.dup_files += !!(seen & SEEN);
	g->files++;
	g->bytes += p->size;
	g->dup_files += !!(seen & SEEN_IN_GROUP);
	if (!(seen & SEEN)) {
		/* a distinct file: its blocks count */
		for (size_t i = 0; i < p->f_nhash; i++) {
			int r = hset_add(&p->blocks, p->f_hash[i], p->group);

			if (r < 0)
				return r;
			if (r & SEEN) {
				st->all.dedup_blocks++;
				st->all.dup_blocks += r & FIRST_REPEAT ? 2 : 1;
			}
			if (r & SEEN_IN_GROUP) {
				g->dedup_blocks++;
				g->dup_blocks += r & FIRST_GROUP_REPEAT ? 2 : 1;
			}
		}
		st->all.blocks += p->f_blocks;
		st->all.hole_blocks += p->f_hole;
		st->all.zero_blocks += p->f_zero;
		g->blocks += p->f_blocks;
		g->hole_blocks += p->f_hole;
		g->zero_blocks += p->f_zero;
	}
	if (p->magic) {
		ret = types_add(st, p);
		if (ret)
			return ret;
	}
	return 0;
}

int content_stats_add(struct content_stats *st, const char *path, const void *buf, size_t len)
{
	int ret = content_stats_begin(st, path, len);

	if (ret)
		return ret;
	ret = content_stats_data(st, buf, len);
	if (ret) {
		file_abort(st->priv);
		return ret;
	}
	return content_stats_end(st);
}

int content_stats_read(struct content_stats *st, const char *path, uint64_t size,
		       const struct content_hole *holes, size_t nholes,
		       int (*read)(void *ctx, uint64_t off, void *buf, size_t len), void *ctx)
{
	struct cs_priv *p = st->priv;
	uint8_t *buf = malloc(SEGMENT);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = content_stats_begin(st, path, size);
	if (ret)
		goto out_free_buf;
	for (size_t i = 0; i < nholes; i++) {
		ret = content_stats_hole(st, holes[i].off, holes[i].len);
		if (ret) {
			file_abort(p);
			goto out_free_buf;
		}
	}
	for (uint64_t off = 0; off < size;) {
		size_t n = size - off < SEGMENT ? (size_t)(size - off) : SEGMENT;

		ret = read(ctx, off, buf, n);
		if (!ret)
			ret = content_stats_data(st, buf, n);
		if (ret) {
			file_abort(p);
			goto out_free_buf;
		}
		off += n;
	}
	ret = content_stats_end(st);
out_free_buf:
	free(buf);
	return ret;
}

static int mime_cmp(const void *a, const void *b)
{
	const struct content_mime *x = a, *y = b;

	if (x->files != y->files)
		return x->files > y->files ? -1 : 1;
	return strcmp(x->type, y->type);
}

int content_stats_finish(struct content_stats *st)
{
	struct cs_priv *p = st->priv;

	pool_drain(p->pool);
	if (st->nmime)
		qsort(st->mime, st->nmime, sizeof(*st->mime), mime_cmp);
	return p->pool->err;
}

double content_dup_file_share(const struct content_group_stats *g)
{
	return g->files ? (double)g->dup_files / (double)g->files : 0;
}

double content_dup_block_share(const struct content_group_stats *g)
{
	return g->blocks ? (double)g->dup_blocks / (double)g->blocks : 0;
}

double content_dedup_block_share(const struct content_group_stats *g)
{
	return g->blocks ? (double)g->dedup_blocks / (double)g->blocks : 0;
}

double content_zero_block_share(const struct content_group_stats *g)
{
	return g->blocks ? (double)g->zero_blocks / (double)g->blocks : 0;
}

double content_ratio_zlib(const struct content_group_stats *g)
{
	return g->zlib_bytes ? (double)g->sampled_bytes / (double)g->zlib_bytes : 0;
}

double content_ratio_zstd(const struct content_group_stats *g)
{
	return g->zstd_bytes ? (double)g->sampled_bytes / (double)g->zstd_bytes : 0;
}

/* ---- the report ------------------------------------------------------------ */

static double typed_share(const struct content_stats *st)
{
	return st->typed_files ? (double)st->typed_identified / (double)st->typed_files : 0;
}

/* One line: name, target, achieved, relative difference (absolute when the target is 0). */
static void print_figure(FILE *out, const char *name, double target, double achieved,
			 const char *fmt_note)
{
	fprintf(out, "  %-24s", name);
	if (isnan(target))
		fprintf(out, " %10s", "-");
	else
		fprintf(out, " %10.4f", target);
	fprintf(out, " %10.4f", achieved);
	if (isnan(target))
		fprintf(out, " %10s", "");
	else if (target != 0)
		fprintf(out, " %+9.2f%%", 100 * (achieved - target) / target);
	else
		fprintf(out, " %+10.4f", achieved - target);
	fprintf(out, "%s%s\n", fmt_note ? "  " : "", fmt_note ? fmt_note : "");
}

static const char *human(uint64_t n, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)n;
	unsigned u = 0;

	while (v >= 1024 && u + 1 < ARRAY_SIZE(unit)) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", v, unit[u]);
	return buf;
}

void content_report_print_text(const struct content_stats *st, const struct content_targets *t,
			       const char *name, FILE *out)
{
	const struct content_group_stats *b = &st->group[CONTENT_BINARY];
	char h1[32], h2[32];

	fprintf(out, "imprint content report: %s\n\n", name);
	fprintf(out, "  files        %llu (%s), %llu distinct\n", (unsigned long long)st->all.files,
		human(st->all.bytes, h1, sizeof(h1)),
		(unsigned long long)(st->all.files - st->all.dup_files));
	fprintf(out, "  other binary %llu files (%s), %llu blocks of distinct files\n",
		(unsigned long long)b->files, human(b->bytes, h1, sizeof(h1)),
		(unsigned long long)b->blocks);
	if (st->holes_unknown)
		fprintf(out, "  holes        not known (the file system reports no extents)\n");
	else
		fprintf(out, "  holes        %llu blocks (%s) of distinct files: not content, "
			"left out of every figure\n", (unsigned long long)st->all.hole_blocks,
			human(st->all.hole_blocks * BLOCK, h1, sizeof(h1)));
	fprintf(out, "  compressed   %s in 1 MiB segments (sample share %g), holes left out\n\n",
		human(st->all.sampled_bytes, h2, sizeof(h2)), st->opts.sample_share);

	fprintf(out, "  %-24s %10s %10s %10s\n", "figure", "target", "achieved", "rel. diff");
	print_figure(out, "compress_ratio zlib", t->compress_ratio, content_ratio_zlib(b),
		     "other binary, level 6");
	print_figure(out, "compress_ratio zstd", t->compress_ratio, content_ratio_zstd(b),
		     "other binary, level 3");
	print_figure(out, "compress_ratio_exec zlib", t->compress_ratio_exec,
		     content_ratio_zlib(&st->group[CONTENT_EXEC]), "executables, level 6");
	print_figure(out, "compress_ratio_exec zstd", t->compress_ratio_exec,
		     content_ratio_zstd(&st->group[CONTENT_EXEC]), "executables, level 3");
	print_figure(out, "dup_file_share", t->dup_file_share, content_dup_file_share(&st->all),
		     "all files");
	print_figure(out, "dup_block_share", t->dup_block_share, content_dup_block_share(b),
		     "other binary");
	print_figure(out, "zero_block_share", t->zero_block_share, content_zero_block_share(b),
		     "other binary");
	if (st->typed_files)
		print_figure(out, "typed identified", t->typed_identified_share, typed_share(st),
			     NULL);
	else
		fprintf(out, "  %-22s %10.4f %10s\n", "typed identified", t->typed_identified_share,
			"-");
	fprintf(out, "  (%llu of %llu typed files identified by libmagic as their type; "
		"target is a minimum)\n\n",
		(unsigned long long)st->typed_identified, (unsigned long long)st->typed_files);

	fprintf(out, "  %-12s %8s %11s %8s %8s %8s %8s %8s %8s\n", "group", "files", "bytes",
		"dupfile", "blocks", "zero", "dup", "zlib", "zstd");
	for (int g = 0; g <= CONTENT_GROUPS; g++) {
		const struct content_group_stats *s = g < CONTENT_GROUPS ? &st->group[g] : &st->all;

		fprintf(out, "  %-12s %8llu %11s %8.4f %8llu %8.4f %8.4f %8.3f %8.3f\n",
			g < CONTENT_GROUPS ? content_group_name(g) : "all",
			(unsigned long long)s->files, human(s->bytes, h1, sizeof(h1)),
			content_dup_file_share(s), (unsigned long long)s->blocks,
			content_zero_block_share(s), content_dup_block_share(s),
			content_ratio_zlib(s), content_ratio_zstd(s));
	}
	fprintf(out, "  (blocks, zero, dup and ratios over distinct files; dup counts every "
		"occurrence of a repeated block;\n   block-level dedup would save %.4f of all "
		"blocks)\n", content_dedup_block_share(&st->all));

	if (st->nmime) {
		fprintf(out, "\n  %-44s %8s %8s\n", "type mix (libmagic)", "files", "share");
		for (size_t i = 0; i < st->nmime; i++)
			fprintf(out, "  %-44s %8llu %8.4f\n", st->mime[i].type,
				(unsigned long long)st->mime[i].files,
				(double)st->mime[i].files / (double)st->all.files);
	}
	if (st->nmiss) {
		fprintf(out, "\n  typed files not identified as their type (first %zu)\n", st->nmiss);
		for (size_t i = 0; i < st->nmiss; i++)
			fprintf(out, "  %s: %s\n", st->miss[i].path, st->miss[i].got);
	}
}

static json_object *json_num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

static json_object *json_group(const struct content_group_stats *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "files", json_object_new_uint64(s->files));
	json_object_object_add(o, "bytes", json_object_new_uint64(s->bytes));
	json_object_object_add(o, "dup_files", json_object_new_uint64(s->dup_files));
	json_object_object_add(o, "blocks", json_object_new_uint64(s->blocks));
	json_object_object_add(o, "hole_blocks", json_object_new_uint64(s->hole_blocks));
	json_object_object_add(o, "zero_blocks", json_object_new_uint64(s->zero_blocks));
	json_object_object_add(o, "dup_blocks", json_object_new_uint64(s->dup_blocks));
	json_object_object_add(o, "dedup_blocks", json_object_new_uint64(s->dedup_blocks));
	json_object_object_add(o, "sampled_bytes", json_object_new_uint64(s->sampled_bytes));
	json_object_object_add(o, "zlib_bytes", json_object_new_uint64(s->zlib_bytes));
	json_object_object_add(o, "zstd_bytes", json_object_new_uint64(s->zstd_bytes));
	json_object_object_add(o, "dup_file_share", json_object_new_double(content_dup_file_share(s)));
	json_object_object_add(o, "dup_block_share",
			       json_object_new_double(content_dup_block_share(s)));
	json_object_object_add(o, "dedup_block_share",
			       json_object_new_double(content_dedup_block_share(s)));
	json_object_object_add(o, "zero_block_share",
			       json_object_new_double(content_zero_block_share(s)));
	json_object_object_add(o, "compress_ratio_zlib", json_object_new_double(content_ratio_zlib(s)));
	json_object_object_add(o, "compress_ratio_zstd", json_object_new_double(content_ratio_zstd(s)));
	return o;
}

void content_report_print_json(const struct content_stats *st, const struct content_targets *t,
			       const char *name, FILE *out)
{
	const struct content_group_stats *b = &st->group[CONTENT_BINARY];
	json_object *o = json_object_new_object();
	json_object *tg = json_object_new_object(), *mix = json_object_new_object();
	json_object *groups = json_object_new_object(), *miss = json_object_new_array();

	json_object_object_add(o, "target", json_object_new_string(name));
	json_object_object_add(o, "files", json_object_new_uint64(st->all.files));
	json_object_object_add(o, "bytes", json_object_new_uint64(st->all.bytes));
	json_object_object_add(o, "sample_share", json_object_new_double(st->opts.sample_share));
	json_object_object_add(o, "compress_ratio_zlib", json_object_new_double(content_ratio_zlib(b)));
	json_object_object_add(o, "compress_ratio_zstd", json_object_new_double(content_ratio_zstd(b)));
	json_object_object_add(o, "compress_ratio_exec_zlib",
			       json_object_new_double(content_ratio_zlib(&st->group[CONTENT_EXEC])));
	json_object_object_add(o, "compress_ratio_exec_zstd",
			       json_object_new_double(content_ratio_zstd(&st->group[CONTENT_EXEC])));
	json_object_object_add(o, "dup_file_share",
			       json_object_new_double(content_dup_file_share(&st->all)));
	json_object_object_add(o, "dup_block_share",
			       json_object_new_double(content_dup_block_share(b)));
	json_object_object_add(o, "dedup_block_share",
			       json_object_new_double(content_dedup_block_share(b)));
	json_object_object_add(o, "zero_block_share",
			       json_object_new_double(content_zero_block_share(b)));
	/* of all distinct files; null when the holes were not known */
	json_object_object_add(o, "hole_blocks", st->holes_unknown ? NULL :
			       json_object_new_uint64(st->all.hole_blocks));
	json_object_object_add(o, "typed_files", json_object_new_uint64(st->typed_files));
	json_object_object_add(o, "typed_identified", json_object_new_uint64(st->typed_identified));
	json_object_object_add(o, "typed_identified_share",
			       st->typed_files ? json_object_new_double(typed_share(st)) : NULL);
	for (size_t i = 0; i < st->nmime; i++)
		json_object_object_add(mix, st->mime[i].type,
				       json_object_new_double((double)st->mime[i].files /
							      (double)st->all.files));
	json_object_object_add(o, "type_mix", mix);

	json_object_object_add(tg, "compress_ratio", json_num(t->compress_ratio));
	json_object_object_add(tg, "compress_ratio_exec", json_num(t->compress_ratio_exec));
	json_object_object_add(tg, "dup_file_share", json_num(t->dup_file_share));
	json_object_object_add(tg, "dup_block_share", json_num(t->dup_block_share));
	json_object_object_add(tg, "zero_block_share", json_num(t->zero_block_share));
	json_object_object_add(tg, "typed_identified_share", json_num(t->typed_identified_share));
	json_object_object_add(o, "targets", tg);

	for (int g = 0; g < CONTENT_GROUPS; g++)
		json_object_object_add(groups, content_group_name(g), json_group(&st->group[g]));
	json_object_object_add(groups, "all", json_group(&st->all));
	json_object_object_add(o, "groups", groups);
	for (size_t i = 0; i < st->nmiss; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "path", json_object_new_string(st->miss[i].path));
		json_object_object_add(m, "mime_type", json_object_new_string(st->miss[i].got));
		json_object_array_add(miss, m);
	}
	json_object_object_add(o, "not_identified", miss);
	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* ---- running it ------------------------------------------------------------ */

void content_targets_from_params(struct content_targets *t, const struct params *p)
{
	t->compress_ratio = p->compress_ratio;
	t->compress_ratio_exec = p->compress_ratio_exec;
	t->dup_file_share = p->dup_file_share;
	t->dup_block_share = p->dup_block_share;
	t->zero_block_share = p->zero_block_share;
	t->typed_identified_share = 0.99;
}

struct entry_read {
	struct fsread *fs;
	const struct fsread_entry *e;
	struct fsread_error *err;
};

/* content_stats_read()'s reader over fsread_read(): exactly len bytes. */
static int entry_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct entry_read *r = ctx;
	uint8_t *b = buf;

	while (len) {
		ssize_t n = fsread_read(r->fs, r->e, b, len, off, r->err);

		if (n < 0)
			return (int)n;
		if (n == 0) {
			snprintf(r->err->msg, sizeof(r->err->msg),
				 "'%s': shorter than its size (changed while read?)", r->e->path);
			return -EIO;
		}
		b += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

struct report_walk {
	struct content_stats *st;
	struct fsread_error *err;
	struct fsread_extent *run;   /* the current file's holes in blocks ... */
	size_t run_cap;
	struct content_hole *hole;   /* ... and in bytes */
	size_t nhole, hole_cap;
};

/*
 * The holes of e into w->hole: fsread_holes()'s runs of blocks of bs bytes
 * as byte ranges, the last one cut at the size.  Returns 0 or -ENOMEM.
 */
static int entry_holes(struct report_walk *w, const struct fsread_entry *e, uint64_t bs)
{
	ssize_t n = fsread_holes(e, (unsigned)bs, &w->run, &w->run_cap);

	w->nhole = 0;
	if (n <= 0)
		return (int)n;
	if ((size_t)n > w->hole_cap) {
		struct content_hole *h = realloc(w->hole, (size_t)n * sizeof(*h));

		if (!h)
			return -ENOMEM;
		w->hole = h;
		w->hole_cap = (size_t)n;
	}
	for (ssize_t i = 0; i < n; i++) {
		uint64_t s = w->run[i].logical * bs, t = (w->run[i].logical + w->run[i].len) * bs;

		w->hole[i].off = s;
		w->hole[i].len = (t < e->size ? t : e->size) - s;
	}
	w->nhole = (size_t)n;
	return 0;
}

/* Every regular file once: a hard link's other names are not copies. */
static int report_entry(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct report_walk *w = arg;
	struct entry_read r = { .fs = fs, .e = e, .err = w->err };
	int ret;

	if (e->type != FSREAD_FILE || !e->first_name)
		return 0;
	w->err->msg[0] = '\0';
	ret = entry_holes(w, e, fsread_block_size(fs));
	if (!ret)
		ret = content_stats_read(w->st, e->path, e->size, w->hole, w->nhole, entry_read, &r);
	if (ret && !w->err->msg[0])
		snprintf(w->err->msg, sizeof(w->err->msg), "'%s': %s", e->path, strerror(-ret));
	return ret;
}

int content_report_run(const char *target, const struct content_stats_opts *o,
		       const struct content_targets *t, int json, FILE *out)
{
	struct content_stats st;
	struct fsread_error err = { { 0 } };
	struct report_walk w = { .st = &st, .err = &err };
	struct fsread *fs;
	int ret;

	ret = fsread_open(target, FSREAD_EXTENTS, &fs, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret;
	}
	ret = content_stats_init(&st, o);
	if (ret) {
		fprintf(stderr, "imprint: cannot start the measurement: %s\n", strerror(-ret));
		goto out_close;
	}
	ret = fsread_walk(fs, report_entry, &w, &err);
	if (ret) {
		fprintf(stderr, "imprint: cannot measure '%s': %s\n", target, err.msg);
		goto out_release;
	}
	st.holes_unknown = !fsread_has_extents(fs);
	ret = content_stats_finish(&st);
	if (ret) {
		fprintf(stderr, "imprint: cannot compress the sample of '%s': %s\n", target,
			strerror(-ret));
		goto out_release;
	}
	if (json)
		content_report_print_json(&st, t, target, out);
	else
		content_report_print_text(&st, t, target, out);
out_release:
	content_stats_release(&st);
	free(w.run);
	free(w.hole);
out_close:
	fsread_close(fs);
	return ret;
}
