/* content_stats.c - achieved content statistics: ratios, duplicates, zero blocks, libmagic types */
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
#include "analysis/content_stats.h"
#include "analysis/content_stats_int.h"
#include "read/fsread.h"
#include "model/params.h"
#include "util/array.h"
#include "util/rng.h"
#include "util/util.h"

/* ---- the measurement ----------------------------------------------------- */

/* Leave the current file, if any, without counting it. */
static void file_abort(struct cs_priv *p)
{
	if (p->seg) {
		content_pool_put(p->pool, p->seg);
		p->seg = NULL;
	}
	if (p->rec) {
		content_pool_end_file(p->pool, p->rec, false);
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
	st->ext = calloc(CONTENT_EXT_MAX, sizeof(*st->ext));
	if (!p || !st->ext) {
		free(p);
		free(st->ext);
		st->ext = NULL;
		return -ENOMEM;
	}
	st->priv = p;
	if (content_hset_init(&p->files, 1 << 12) || content_hset_init(&p->blocks, 1 << 16) ||
	    content_hset_init(&p->ext_files, 1 << 12))
		goto out_release;
	p->head = malloc(MAGIC_HEAD);
	p->xs = XXH3_createState();
	p->sxs = XXH3_createState();
	if (!p->head || !p->xs || !p->sxs || words_init(&p->words))
		goto out_release;
	ret = content_pool_new(&p->pool, st, st->opts.jobs > 1 ? st->opts.jobs : 0);
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
		content_pool_free(p->pool);
		content_hset_release(&p->files);
		content_hset_release(&p->blocks);
		content_hset_release(&p->ext_files);
		if (p->magic)
			magic_close(p->magic);
		XXH3_freeState(p->xs);
		XXH3_freeState(p->sxs);
		words_release(&p->words);
		FREE_ALL(p->head, p->path, p->f_hash, p->hole, p);
		st->priv = NULL;
	}
	free(st->ext);
	st->ext = NULL;
	st->next = 0;
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

/* Whether segment idx of the file whose path hashes to path_hash is compressed. */
static bool segment_sampled(double share, uint64_t path_hash, uint64_t idx)
{
	uint64_t u;

	if (share >= 1)
		return true;
	if (share <= 0)
		return false;
	u = rng_splitmix64(path_hash ^ rng_splitmix64(idx + UINT64_C(0x9e3779b97f4a7c15)));
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
	if (array_grow(&p->f_hash, &p->f_cap, p->f_nhash + 1, sizeof(*p->f_hash)))
		return -ENOMEM;
	p->f_hash[p->f_nhash++] = XXH3_128bits(b, BLOCK);
	return 0;
}

/* The index in st->ext of the extension of path (case kept), added when new; -1 when full. */
static int ext_index(struct content_stats *st, const char *path)
{
	char e[sizeof(st->ext[0].ext)];

	content_ext_of_path_case(path, e, sizeof(e));
	for (size_t i = 0; i < st->next; i++)
		if (!strcmp(st->ext[i].ext, e))
			return (int)i;
	if (st->next == CONTENT_EXT_MAX)
		return -1;
	memcpy(st->ext[st->next].ext, e, sizeof(e));
	return (int)st->next++;
}

/* Text as tests/content_by_ext.py has it: no NUL in the first 8 KiB, UTF-8 but a cut character. */
static bool head_is_text(const uint8_t *b, size_t n)
{
	size_t i = 0;

	n = n < 8192 ? n : 8192;
	if (memchr(b, 0, n))
		return false;
	while (i < n) {
		unsigned c = b[i], k = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 :
				       (c & 0xF8) == 0xF0 ? 3 : 9;

		if (k == 9 || (k == 1 && c < 0xC2))
			return false;
		if (i + k >= n)
			return true; /* cut at the end */
		for (unsigned j = 1; j <= k; j++)
			if ((b[i + j] & 0xC0) != 0x80)
				return false;
		i += k + 1;
	}
	return true;
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
	p->exti = ext_index(st, path);
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
	XXH3_128bits_reset(p->sxs);
	p->seg_nonzero = false;
	p->zero_run = 0;
	words_reset(&p->words);
	p->open = true;
	return 0;
}

/*
 * The file's identity hash is over its 1 MiB segments: each segment's own
 * XXH3-128, except that a run of all-zero segments (holes or written
 * zeros alike) is one record of its length.  So equal files hash equal
 * however they were fed and wherever their holes are, and a hole of any
 * size is skipped in O(1) (content_stats_skip()).
 */
#define ZERO_RUN_MAGIC UINT64_C(0x7a65726f2d72756e) /* "zero-run" */

static void zero_run_flush(struct cs_priv *p)
{
	uint64_t rec[2] = { ZERO_RUN_MAGIC, p->zero_run };

	if (!p->zero_run)
		return;
	XXH3_128bits_update(p->xs, rec, sizeof(rec));
	p->zero_run = 0;
}

static bool all_zero(const uint8_t *b, size_t len)
{
	while (len && ((uintptr_t)b & 7)) {
		if (*b)
			return false;
		b++, len--;
	}
	for (; len >= 8; b += 8, len -= 8) {
		uint64_t w;

		memcpy(&w, b, 8);
		if (w)
			return false;
	}
	for (; len; b++, len--)
		if (*b)
			return false;
	return true;
}

/* Hash len bytes at b, from p->pos on (before pos moves), segment by segment. */
static int hash_data(struct cs_priv *p, const uint8_t *b, size_t len)
{
	uint64_t pos = p->pos;

	while (len) {
		uint64_t seg_start = pos - pos % SEGMENT;
		uint64_t seg_len = p->size - seg_start < SEGMENT ? p->size - seg_start : SEGMENT;
		size_t n = seg_start + seg_len - pos < len ? (size_t)(seg_start + seg_len - pos) : len;

		if (!p->seg_nonzero && !all_zero(b, n))
			p->seg_nonzero = true;
		if (XXH3_128bits_update(p->sxs, b, n) != XXH_OK)
			return -EIO;
		b += n;
		len -= n;
		pos += n;
		if (pos == seg_start + seg_len) {
			if (!p->seg_nonzero) {
				p->zero_run += seg_len;
			} else {
				XXH128_hash_t d = XXH3_128bits_digest(p->sxs);

				zero_run_flush(p);
				if (XXH3_128bits_update(p->xs, &d, sizeof(d)) != XXH_OK)
					return -EIO;
			}
			XXH3_128bits_reset(p->sxs);
			p->seg_nonzero = false;
		}
	}
	return 0;
}

int content_stats_skip(struct content_stats *st, uint64_t len)
{
	struct cs_priv *p = st->priv;
	uint64_t s;

	if (!p->open || p->pos % SEGMENT || len % SEGMENT || p->blk_len || p->seg ||
	    len > p->size - p->pos)
		return -EINVAL;
	if (!len)
		return 0;
	/* wholly in one hole (they are merged) */
	s = p->pos;
	if (hole_bytes(p, &p->hseg, s, s + len) != len)
		return -EINVAL;
	if (p->head_len < MAGIC_HEAD) {
		memset(p->head + p->head_len, 0, MAGIC_HEAD - p->head_len);
		p->head_len = MAGIC_HEAD;
	}
	p->zero_run += len;
	p->f_bidx += len / BLOCK;
	p->f_hole += len / BLOCK;
	p->pos += len;
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
	if (array_grow(&p->hole, &p->hole_cap, p->nhole + 1, sizeof(*p->hole)))
		return -ENOMEM;
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
	ret = hash_data(p, buf, len);
	if (ret)
		return ret;
	words_feed(&p->words, buf, len);
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
				p->rec->ext = p->exti;
			}
			p->seg = content_pool_get(p->pool);
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
				ret = content_pool_submit(p->pool, j, p->rec);
				if (ret)
					return ret;
			}
		}
		p->pos += n;
		i += n;
	}
	return 0;
}

/* *a += v, saturating at 2^64 - 1: a total never wraps (corrupt sizes). */
static void sat_add(uint64_t *a, uint64_t v)
{
	if (__builtin_add_overflow(*a, v, a))
		*a = UINT64_MAX;
}

static int mime_count(struct content_stats *st, const char *type, uint64_t bytes)
{
	struct content_mime *m;

	for (size_t i = 0; i < st->nmime; i++) {
		if (!strcmp(st->mime[i].type, type)) {
			st->mime[i].files++;
			sat_add(&st->mime[i].bytes, bytes);
			return 0;
		}
	}
	if (array_resize(&st->mime, st->nmime + 1, sizeof(*st->mime)))
		return -ENOMEM;
	m = st->mime;
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
	struct content_ext_stats *e;
	XXH128_hash_t id;
	int seen, ret;

	if (!p->open)
		return -EINVAL;
	if (p->pos != p->size) {
		file_abort(p);
		return -EIO;
	}
	p->open = false;
	g = &st->group[p->group];
	e = p->exti >= 0 ? &st->ext[p->exti] : NULL;
	zero_run_flush(p);
	id = XXH3_128bits_digest(p->xs);
	seen = content_hset_add(&p->files, id, p->group);
	if (seen < 0) {
		file_abort(p);
		return seen;
	}
	if (e) {
		/*
		 * a copy of the extension: of a file of its own extension (as a
		 * plan's copies are drawn); an empty .pdf beside empty files of
		 * other extensions is no copy of a .pdf
		 */
		id.low64 ^= (uint64_t)(p->exti + 1) * UINT64_C(0x9E3779B97F4A7C15);
		ret = content_hset_add(&p->ext_files, id, p->group);
		if (ret < 0) {
			file_abort(p);
			return ret;
		}
		e->g.dup_files += !!(ret & SEEN);
	}
	if (p->rec) {
		content_pool_end_file(p->pool, p->rec, !(seen & SEEN));
		p->rec = NULL;
	}
	st->all.files++;
	sat_add(&st->all.bytes, p->size);
	st->all.dup_files += !!(seen & SEEN);
	g->files++;
	sat_add(&g->bytes, p->size);
	g->dup_files += !!(seen & SEEN_IN_GROUP);
	if (e) {
		e->g.files++;
		sat_add(&e->g.bytes, p->size);
		if (!(seen & SEEN)) {
			bool text = p->size && head_is_text(p->head, p->head_len < p->size ?
								      p->head_len : p->size);
			uint32_t nw = words_end(&p->words);

			e->distinct_files++;
			e->text_files += text;
			if (text && p->words.fed) {
				e->words_kib += (double)p->size * 1024.0 * nw / (double)p->words.fed;
				sat_add(&e->words_bytes, p->size);
			}
			e->g.blocks += p->f_blocks;
			e->g.hole_blocks += p->f_hole;
			e->g.zero_blocks += p->f_zero;
		}
	}
	if (!(seen & SEEN)) {
		/* a distinct file: its blocks count */
		for (size_t i = 0; i < p->f_nhash; i++) {
			int r = content_hset_add(&p->blocks, p->f_hash[i], p->group);

			if (r < 0)
				return r;
			if (e && (r & SEEN)) {
				e->g.dedup_blocks++;
				e->g.dup_blocks += r & FIRST_GROUP_REPEAT ? 2 : 1;
			}
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
	for (uint64_t off = 0, h = 0; off < size;) {
		size_t n = size - off < SEGMENT ? (size_t)(size - off) : SEGMENT;

		/* whole segments in a hole are skipped, not read: time follows the data */
		while (h < nholes && holes[h].off + holes[h].len <= off)
			h++;
		if (h < nholes && holes[h].off <= off) {
			uint64_t end = holes[h].off + holes[h].len, skip;

			/* merged holes: the next may continue this one */
			for (size_t k = h + 1; k < nholes && holes[k].off == end; k++)
				end += holes[k].len;
			skip = (end - off) / SEGMENT * SEGMENT;
			if (skip) {
				ret = content_stats_skip(st, skip);
				if (ret) {
					file_abort(p);
					goto out_free_buf;
				}
				off += skip;
				continue;
			}
		}
		ret = read(ctx, off, buf, n);
		if (!ret)
			st->read_bytes += n;
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

	content_pool_drain(p->pool);
	if (st->nmime)
		qsort(st->mime, st->nmime, sizeof(*st->mime), mime_cmp);
	return p->pool->err;
}

/* a / b, or 0 when b is 0 */
static double share_of(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

double content_dup_file_share(const struct content_group_stats *g)
{
	return share_of(g->dup_files, g->files);
}

double content_dup_block_share(const struct content_group_stats *g)
{
	return share_of(g->dup_blocks, g->blocks);
}

double content_dedup_block_share(const struct content_group_stats *g)
{
	return share_of(g->dedup_blocks, g->blocks);
}

double content_zero_block_share(const struct content_group_stats *g)
{
	return share_of(g->zero_blocks, g->blocks);
}

double content_words_per_kib(const struct content_ext_stats *e)
{
	return e->words_bytes ? e->words_kib / (double)e->words_bytes : 0;
}

double content_ratio_zlib(const struct content_group_stats *g)
{
	return share_of(g->sampled_bytes, g->zlib_bytes);
}

double content_ratio_zstd(const struct content_group_stats *g)
{
	return share_of(g->sampled_bytes, g->zstd_bytes);
}

size_t content_ext_top(const struct content_stats *st, size_t *idx, size_t max)
{
	size_t n = 0;

	/* selection: max is small */
	while (n < max) {
		size_t best = st->next;

		for (size_t i = 0; i < st->next; i++) {
			bool used = false;

			for (size_t k = 0; k < n && !used; k++)
				used = idx[k] == i;
			if (used || !st->ext[i].g.files)
				continue;
			if (best == st->next || st->ext[i].g.bytes > st->ext[best].g.bytes ||
			    (st->ext[i].g.bytes == st->ext[best].g.bytes &&
			     strcmp(st->ext[i].ext, st->ext[best].ext) < 0))
				best = i;
		}
		if (best == st->next)
			break;
		idx[n++] = best;
	}
	return n;
}
