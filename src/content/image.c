/* image.c - PNG, JPEG, GIF and BMP of an exact size, each byte a function of (key, size, offset) */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "content/gen.h"

/*
 * Every format follows one plan: a layout computed from (key, size) alone
 * (dimensions chosen so the pixels fill the file, the remainder going to
 * padding the format allows), then bytes made region by region, so a fill
 * only generates the units it touches.  Pixels come from one texture
 * (gradients, flat tiles, fine noise), a pure function of (key, x, y).
 */

#define IMG_MIN(a, b) ((a) < (b) ? (a) : (b))

static inline uint64_t img_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xBF58476D1CE4E5B9);
	x ^= x >> 27;
	x *= UINT64_C(0x94D049BB133111EB);
	return x ^ (x >> 31);
}

static inline uint64_t img_hash(uint64_t key, uint64_t a, uint64_t b)
{
	return img_mix(
		key ^ img_mix(a * UINT64_C(0x9E3779B97F4A7C15) + b + UINT64_C(0x632BE59BD9B4E019)));
}

static void put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

static void put_le16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, v);
	put_le16(p + 2, v >> 16);
}

/* Bytes [pos, pos + n) of a small region made whole in src; returns n. */
static size_t img_part(uint8_t *buf, const uint8_t *src, uint64_t pos, size_t n)
{
	memcpy(buf, src + pos, n);
	return n;
}

/*
 * Largest v in [lo, hi] with size_of(ctx, v) <= cap, size_of being
 * nondecreasing in v; lo when even lo does not fit.
 */
static uint64_t img_fit(uint64_t lo, uint64_t hi, uint64_t cap,
			uint64_t (*size_of)(void *, uint64_t), void *ctx)
{
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (size_of(ctx, mid) <= cap)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* A width for about `pixels` pixels at an aspect ratio drawn from the key, within [1, max]. */
static uint64_t img_width(uint64_t key, uint64_t pixels, uint64_t max)
{
	static const uint8_t aspect[][2] = {
		{ 4, 3 }, { 3, 2 }, { 16, 9 }, { 1, 1 }, { 3, 4 }, { 2, 3 }, { 5, 4 }, { 16, 10 },
	};
	const uint8_t *a = aspect[img_hash(key, 0x61737074, 0) % 8];
	double w = sqrt((double)pixels * a[0] / a[1]);

	if (w < 1.0)
		return 1;
	if (w >= (double)max)
		return max;
	return (uint64_t)w;
}

/* t split into k parts as evenly as possible, the first t % k one larger: where part j starts. */
static uint64_t split_start(uint64_t t, uint64_t k, uint64_t j)
{
	return j * (t / k) + IMG_MIN(j, t % k);
}

/* The part holding position p of the split above. */
static uint64_t split_part(uint64_t t, uint64_t k, uint64_t p)
{
	uint64_t q = t / k, r = t % k;

	if (p < r * (q + 1))
		return p / (q + 1);
	return r + (p - r * (q + 1)) / q;
}

/* Bytes [off, off + n) of an endless run of lowercase pseudo-words, for comments. */
static void img_words(uint64_t key, uint64_t off, uint8_t *out, size_t n)
{
	uint64_t h = img_hash(key, 0x636f6d6d, off >> 3);

	for (size_t i = 0; i < n; i++) {
		uint64_t at = off + i;
		unsigned v;

		if (i && !(at & 7))
			h = img_hash(key, 0x636f6d6d, at >> 3);
		v = (unsigned)(h >> ((at & 7) * 8)) & 0xff;
		out[i] = v < 40 ? ' ' : (uint8_t)('a' + v % 26);
	}
}

/* ------------------------------------------------------------------------- */
/* The texture */

struct img_tex {
	uint64_t key;
	unsigned chans;
	unsigned tile_shift;  /* tiles of 2^tile_shift pixels */
	int amp;	      /* tile offsets within +-amp */
	unsigned noise;	      /* per-byte noise mask */
	int64_t base[4];      /* 16.16 fixed point */
	int64_t gx[4], gy[4]; /* 16.16 slopes per pixel */
};

static void img_tex_init(struct img_tex *t, uint64_t key, uint64_t w, uint64_t h, unsigned chans)
{
	uint64_t r = img_hash(key, 0x74657874, 0);

	t->key = key;
	t->chans = chans;
	for (t->tile_shift = 2; t->tile_shift < 24 && (w >> (t->tile_shift + 1)) >= 6;
	     t->tile_shift++)
		;
	t->amp = 16 + (int)(r % 48);
	t->noise = (1u << (2 + (r >> 8) % 4)) - 1;
	for (unsigned c = 0; c < chans; c++) {
		uint64_t q = img_hash(key, 0x74657874, c + 1);

		t->base[c] = (int64_t)(64 + q % 128) * 65536;
		t->gx[c] = ((int64_t)((q >> 8) % 241) - 120) * 65536 / (int64_t)w;
		t->gy[c] = ((int64_t)((q >> 16) % 241) - 120) * 65536 / (int64_t)h;
	}
	/* a fourth channel is alpha: opaque */
	if (chans == 4) {
		t->base[3] = (int64_t)400 * 65536;
		t->gx[3] = t->gy[3] = 0;
	}
}

/* Noise bytes [b0, b0 + n) of row y: one hash per 8 bytes, so any byte is the same from any b0. */
static void img_tex_noise(const struct img_tex *t, uint64_t y, uint64_t b0, size_t n, uint8_t *out)
{
	uint64_t seed = img_hash(t->key, 0x6e6f697365, y), w = b0 >> 3;
	size_t i = 0;

	if (b0 & 7) {
		uint64_t h = img_mix(seed + w++ * UINT64_C(0x9E3779B97F4A7C15));

		for (unsigned lane = (unsigned)(b0 & 7); lane < 8 && i < n; lane++)
			out[i++] = (uint8_t)(h >> (8 * lane));
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t h = img_mix(seed + w++ * UINT64_C(0x9E3779B97F4A7C15));

		for (unsigned lane = 0; lane < 8; lane++)
			out[i + lane] = (uint8_t)(h >> (8 * lane));
	}
	if (i < n) {
		uint64_t h = img_mix(seed + w * UINT64_C(0x9E3779B97F4A7C15));

		for (unsigned lane = 0; i < n; lane++)
			out[i++] = (uint8_t)(h >> (8 * lane));
	}
}

/*
 * Whole pixels [x, x + np) of row y, all in one tile, over their noise in
 * out; chans is a constant at each call, so the loop is specialized.
 */
static inline __attribute__((always_inline)) void img_tex_span(const struct img_tex *t, uint64_t x,
							       uint64_t y, size_t np, uint8_t *out,
							       const unsigned chans)
{
	uint64_t th = img_hash(t->key, x >> t->tile_shift, y >> t->tile_shift);
	int32_t acc[4], gx[4];
	uint8_t mask = (uint8_t)t->noise;

	/* within +-2^26 along a row (base, slopes over the image, tile offset): 32 bits hold it */
	for (unsigned c = 0; c < chans; c++) {
		int64_t off = ((int8_t)(th >> (8 * c)) * t->amp) >> 7;

		acc[c] = (int32_t)(t->base[c] + t->gy[c] * (int64_t)y + t->gx[c] * (int64_t)x +
				   off * 65536);
		gx[c] = (int32_t)t->gx[c];
	}
	for (size_t i = 0; i < np; i++) {
		for (unsigned c = 0; c < chans; c++) {
			int v = (acc[c] >> 16) + (out[c] & mask);

			v = v < 0 ? 0 : v;
			out[c] = (uint8_t)(v > 255 ? 255 : v);
			acc[c] += gx[c];
		}
		out += chans;
	}
}

static void img_tex_pixels(const struct img_tex *t, uint64_t x, uint64_t y, size_t np, uint8_t *out)
{
	if (t->chans == 1)
		img_tex_span(t, x, y, np, out, 1);
	else if (t->chans == 3)
		img_tex_span(t, x, y, np, out, 3);
	else
		img_tex_span(t, x, y, np, out, 4);
}

/* Bytes [b0, b0 + n) of texture row y, byte b being channel b % chans of pixel b / chans. */
static void img_tex_row(const struct img_tex *t, uint64_t y, uint64_t b0, size_t n, uint8_t *out)
{
	unsigned chans = t->chans, c = (unsigned)(b0 % chans);
	uint64_t x = b0 / chans;
	uint8_t px[4];

	img_tex_noise(t, y, b0, n, out);
	if (c) {
		/* a partial pixel: make it whole aside */
		size_t k = IMG_MIN((size_t)(chans - c), n);

		img_tex_noise(t, y, x * chans, chans, px);
		img_tex_pixels(t, x, y, 1, px);
		memcpy(out, px + c, k);
		out += k;
		n -= k;
		x++;
	}
	while (n >= chans) {
		uint64_t tile_end = ((x >> t->tile_shift) + 1) << t->tile_shift;
		size_t np = (size_t)IMG_MIN((uint64_t)(n / chans), tile_end - x);

		img_tex_pixels(t, x, y, np, out);
		out += np * chans;
		n -= np * chans;
		x += np;
	}
	if (n) {
		img_tex_noise(t, y, x * chans, chans, px);
		img_tex_pixels(t, x, y, 1, px);
		memcpy(out, px, n);
	}
}

/* Channel c of pixel (x, y) without the noise: a local mean. */
static int img_tex_mean(const struct img_tex *t, uint64_t x, uint64_t y, unsigned c)
{
	uint64_t th = img_hash(t->key, x >> t->tile_shift, y >> t->tile_shift);
	int64_t v = t->base[c] + t->gy[c] * (int64_t)y + t->gx[c] * (int64_t)x;
	int m = (int)(v >> 16) + (((int8_t)(th >> (8 * c)) * t->amp) >> 7) + (int)(t->noise / 2);

	return m < 0 ? 0 : m > 255 ? 255 : m;
}

/* ------------------------------------------------------------------------- */
/* PNG: signature, IHDR, tEXt padding, IDAT chunks of stored deflate blocks, IEND */

#define PNG_HEAD     33u /* signature and IHDR */
#define PNG_TEXT_MIN 20u /* a tEXt chunk holding just the keyword "Comment" */
#define PNG_IEND     12u
#define PNG_IDAT     8192u  /* zlib bytes per IDAT chunk, as libpng writes them */
#define PNG_STORED   65535u /* raw bytes per stored deflate block */
#define PNG_MIN	     70u    /* a 1x1 grey image */
#define PNG_MAX_DIM  UINT64_C(0x7fffffff)

struct png_layout {
	uint64_t w, h;
	unsigned chans, ctype;
	uint64_t text;	   /* tEXt chunk bytes: 0 or at least PNG_TEXT_MIN */
	uint64_t row, raw; /* raw (filtered) bytes per row and in all */
	uint64_t nstored, zlen, nidat;
	uint64_t idat_at, iend_at;
};

/* Derive the rest of l from w, h and chans; returns the file size without tEXt. */
static uint64_t png_measure(struct png_layout *l)
{
	l->row = 1 + l->w * l->chans;
	l->raw = l->row * l->h;
	l->nstored = (l->raw + PNG_STORED - 1) / PNG_STORED;
	l->zlen = 2 + 5 * l->nstored + l->raw + 4;
	l->nidat = (l->zlen + PNG_IDAT - 1) / PNG_IDAT;
	return PNG_HEAD + 12 * l->nidat + l->zlen + PNG_IEND;
}

static uint64_t png_size_w(void *ctx, uint64_t w)
{
	struct png_layout *l = ctx;

	l->w = w;
	return png_measure(l);
}

static uint64_t png_size_h(void *ctx, uint64_t h)
{
	struct png_layout *l = ctx;

	l->h = h;
	return png_measure(l);
}

static void png_layout(uint64_t key, uint64_t size, struct png_layout *l)
{
	uint64_t kind = img_hash(key, 0x706e67, 0) % 8, cap = size - PNG_TEXT_MIN, s0;

	memset(l, 0, sizeof(*l));
	l->w = l->h = 1;
	l->chans = 1;
	s0 = png_measure(l);
	if (size < s0 + PNG_TEXT_MIN) {
		/* too small for padding: one grey row, exactly as wide as needed */
		l->w = 1 + size - s0;
		png_measure(l);
		goto out_offsets;
	}
	l->chans = kind == 0 ? 1 : kind == 1 ? 4 : 3;
	if (png_measure(l) > cap)
		l->chans = 1;
	l->w = img_width(key, (cap - s0) / l->chans, PNG_MAX_DIM);
	l->h = 1;
	l->w = img_fit(1, l->w, cap, png_size_w, l);
	l->h = img_fit(1, IMG_MIN(PNG_MAX_DIM, cap / l->row + 1), cap, png_size_h, l);
	l->text = size - png_measure(l);
out_offsets:
	l->ctype = l->chans == 1 ? 0 : l->chans == 3 ? 2 : 6;
	l->idat_at = PNG_HEAD + l->text;
	l->iend_at = size - PNG_IEND;
}

struct png_gen {
	struct png_layout l;
	struct img_tex t;
	uint64_t key, size;
	uint64_t zbase; /* zlib offset of the IDAT chunk being made */
	bool have_adler;
	uint32_t adler;
};

/*
 * The Adler-32 trailer sums all raw bytes.  Each thread keeps a running sum
 * for the last file whose raw bytes it made in order from the first: a
 * streaming writer finds it complete at the trailer, and any other order
 * only makes the part still missing, once per file and thread.
 */
static _Thread_local struct {
	bool valid;
	uint64_t key, size;
	uint64_t covered; /* raw bytes [0, covered) are summed */
	uint32_t adler;
} png_adler_run;

static void png_adler_note(const struct png_gen *p, uint64_t i, const uint8_t *out, size_t n)
{
	if (!png_adler_run.valid || png_adler_run.key != p->key || png_adler_run.size != p->size) {
		if (i)
			return;
		png_adler_run.valid = true;
		png_adler_run.key = p->key;
		png_adler_run.size = p->size;
		png_adler_run.covered = 0;
		png_adler_run.adler = (uint32_t)adler32(0, Z_NULL, 0);
	}
	if (i != png_adler_run.covered)
		return;
	png_adler_run.adler = (uint32_t)adler32_z(png_adler_run.adler, out, n);
	png_adler_run.covered += n;
}

static void png_raw(const struct png_gen *p, uint64_t i, uint8_t *out, size_t n)
{
	uint64_t i0 = i;
	uint8_t *out0 = out;
	size_t n0 = n;

	while (n) {
		uint64_t y = i / p->l.row, col = i % p->l.row;
		size_t k;

		if (!col) {
			*out = 0; /* filter: none */
			k = 1;
		} else {
			k = (size_t)IMG_MIN((uint64_t)n, p->l.row - col);
			img_tex_row(&p->t, y, col - 1, k, out);
		}
		i += k;
		out += k;
		n -= k;
	}
	png_adler_note(p, i0, out0, n0);
}

static uint32_t png_adler(struct png_gen *p)
{
	uint8_t piece[16384];

	if (p->have_adler)
		return p->adler;
	if (!png_adler_run.valid || png_adler_run.key != p->key || png_adler_run.size != p->size)
		png_raw(p, 0, piece, 1);
	while (png_adler_run.covered < p->l.raw) {
		uint64_t i = png_adler_run.covered;

		png_raw(p, i, piece, (size_t)IMG_MIN((uint64_t)sizeof(piece), p->l.raw - i));
	}
	p->adler = png_adler_run.adler;
	p->have_adler = true;
	return p->adler;
}

/* Bytes [z, z + n) of the zlib stream: header, stored blocks, Adler-32. */
static void png_zlib(struct png_gen *p, uint64_t z, uint8_t *out, size_t n)
{
	const struct png_layout *l = &p->l;

	while (n) {
		size_t k;

		if (z < 2) {
			/* 0x78 0x01: deflate, 32 KiB window, no dictionary, check bits */
			*out = z ? 0x01 : 0x78;
			k = 1;
		} else if (z >= l->zlen - 4) {
			uint8_t a[4];

			put_be32(a, png_adler(p));
			k = img_part(out, a, z - (l->zlen - 4),
				     (size_t)IMG_MIN((uint64_t)n, l->zlen - z));
		} else {
			uint64_t q = (z - 2) / (PNG_STORED + 5), r = (z - 2) % (PNG_STORED + 5);
			bool last = q == l->nstored - 1;
			uint32_t blen = last ? (uint32_t)(l->raw - q * PNG_STORED) : PNG_STORED;

			if (r < 5) {
				uint8_t h[5] = { last, (uint8_t)blen, (uint8_t)(blen >> 8),
						 (uint8_t)~blen, (uint8_t)(~blen >> 8) };

				k = img_part(out, h, r, (size_t)IMG_MIN((uint64_t)n, 5 - r));
			} else {
				k = (size_t)IMG_MIN((uint64_t)n, blen - (r - 5));
				png_raw(p, q * PNG_STORED + r - 5, out, k);
			}
		}
		z += k;
		out += k;
		n -= k;
	}
}

static void png_idat_data(void *ctx, uint64_t doff, uint8_t *out, size_t n)
{
	struct png_gen *p = ctx;

	png_zlib(p, p->zbase + doff, out, n);
}

static void png_text_data(void *ctx, uint64_t doff, uint8_t *out, size_t n)
{
	static const char keyword[8] = "Comment"; /* and its NUL */
	struct png_gen *p = ctx;

	if (doff < sizeof(keyword)) {
		size_t k = (size_t)IMG_MIN((uint64_t)n, sizeof(keyword) - doff);

		memcpy(out, keyword + doff, k);
		doff += k;
		out += k;
		n -= k;
	}
	img_words(p->key, doff - sizeof(keyword), out, n);
}

/*
 * A chunk's CRC covers its data, made in one call or many: each thread
 * keeps a running CRC for the last chunk whose data it made in order, so
 * that a writer asking for a chunk piece by piece never makes it twice.
 */
static _Thread_local struct {
	bool valid;
	uint64_t key, size, at; /* file, and the chunk's offset in it */
	uint64_t covered;	/* data bytes [0, covered) are in crc */
	uint32_t crc;
} png_crc_run;

static void png_crc_note(const struct png_gen *p, uint64_t at, const char *type, uint64_t doff,
			 const uint8_t *data, size_t n)
{
	if (!png_crc_run.valid || png_crc_run.key != p->key || png_crc_run.size != p->size ||
	    png_crc_run.at != at) {
		if (doff)
			return;
		png_crc_run.valid = true;
		png_crc_run.key = p->key;
		png_crc_run.size = p->size;
		png_crc_run.at = at;
		png_crc_run.covered = 0;
		png_crc_run.crc = (uint32_t)crc32(crc32(0, Z_NULL, 0), (const Bytef *)type, 4);
	}
	if (doff != png_crc_run.covered)
		return;
	png_crc_run.crc = (uint32_t)crc32_z(png_crc_run.crc, data, n);
	png_crc_run.covered += n;
}

/*
 * Bytes of the chunk at file offset at (type, dlen data bytes from data())
 * from position pos in it, up to n and the chunk's end; returns how many.
 */
static size_t png_chunk(struct png_gen *p, uint64_t at, const char *type, uint64_t dlen,
			void (*data)(void *, uint64_t, uint8_t *, size_t), uint64_t pos,
			uint8_t *buf, size_t n)
{
	size_t want = (size_t)IMG_MIN((uint64_t)n, dlen + 12 - pos), done = 0;

	if (pos < 8) {
		uint8_t h[8];

		put_be32(h, (uint32_t)dlen);
		memcpy(h + 4, type, 4);
		done = img_part(buf, h, pos, (size_t)IMG_MIN((uint64_t)want, 8 - pos));
	}
	if (done < want && pos + done < 8 + dlen) {
		uint64_t doff = pos + done - 8;
		size_t k = (size_t)IMG_MIN((uint64_t)(want - done), dlen - doff);

		data(p, doff, buf + done, k);
		png_crc_note(p, at, type, doff, buf + done, k);
		done += k;
	}
	if (done < want) {
		uint8_t c[4], piece[4096];

		if (!png_crc_run.valid || png_crc_run.key != p->key ||
		    png_crc_run.size != p->size || png_crc_run.at != at) {
			data(p, 0, piece, 1);
			png_crc_note(p, at, type, 0, piece, 1);
		}
		while (png_crc_run.covered < dlen) {
			uint64_t d = png_crc_run.covered;
			size_t k = (size_t)IMG_MIN((uint64_t)sizeof(piece), dlen - d);

			data(p, d, piece, k);
			png_crc_note(p, at, type, d, piece, k);
		}
		put_be32(c, png_crc_run.crc);
		done += img_part(buf + done, c, pos + done - 8 - dlen, want - done);
	}
	return done;
}

static void png_head(const struct png_layout *l, uint8_t *h)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

	memcpy(h, sig, 8);
	put_be32(h + 8, 13);
	memcpy(h + 12, "IHDR", 4);
	put_be32(h + 16, (uint32_t)l->w);
	put_be32(h + 20, (uint32_t)l->h);
	h[24] = 8; /* bits per sample */
	h[25] = (uint8_t)l->ctype;
	h[26] = h[27] = h[28] = 0; /* deflate, adaptive filtering, no interlace */
	put_be32(h + 29, (uint32_t)crc32(crc32(0, Z_NULL, 0), h + 12, 17));
}

static int png_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	static const uint8_t iend[PNG_IEND] = { 0,   0,	  0,	0,    'I',  'E',
						'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	struct png_gen p = { .key = g->key, .size = g->size };

	if (g->size < PNG_MIN || off > g->size || len > g->size - off)
		return -EINVAL;
	png_layout(g->key, g->size, &p.l);
	img_tex_init(&p.t, g->key, p.l.w, p.l.h, p.l.chans);
	while (len) {
		size_t k;

		if (off < PNG_HEAD) {
			uint8_t h[PNG_HEAD];

			png_head(&p.l, h);
			k = img_part(buf, h, off, (size_t)IMG_MIN((uint64_t)len, PNG_HEAD - off));
		} else if (off < p.l.idat_at) {
			k = png_chunk(&p, PNG_HEAD, "tEXt", p.l.text - 12, png_text_data,
				      off - PNG_HEAD, buf, len);
		} else if (off < p.l.iend_at) {
			uint64_t c = (off - p.l.idat_at) / (PNG_IDAT + 12);
			uint64_t dlen = IMG_MIN((uint64_t)PNG_IDAT, p.l.zlen - c * PNG_IDAT);
			uint64_t at = p.l.idat_at + c * (PNG_IDAT + 12);

			p.zbase = c * PNG_IDAT;
			k = png_chunk(&p, at, "IDAT", dlen, png_idat_data, off - at, buf, len);
		} else {
			k = img_part(buf, iend, off - p.l.iend_at, len);
		}
		off += k;
		buf += k;
		len -= k;
	}
	return 0;
}

const struct gen_ops gen_png_ops = {
	.name = "png",
	.min_size = PNG_MIN,
	.fill = png_fill,
};

/* ------------------------------------------------------------------------- */
/*
 * GIF: header and palette, a comment extension as padding, one image whose
 * LZW stream clears the table before it would widen the codes, so that
 * every code is (min code size + 1) bits and each one is known from its
 * index alone: random access to any byte.
 */

#define GIF_HEAD	13u /* signature and logical screen descriptor */
#define GIF_IMAGE	11u /* image descriptor and LZW minimum code size */
#define GIF_COMMENT_MIN 5u  /* a comment with one one-byte sub-block */
#define GIF_MIN		35u /* a 1x1 two-colour image */
#define GIF_MAX_DIM	65535u

struct gif_layout {
	uint64_t w, h;
	unsigned bits;	  /* palette of 2^bits colours */
	unsigned m;	  /* LZW minimum code size; codes are m + 1 bits */
	uint64_t comment; /* comment extension bytes: 0 or at least GIF_COMMENT_MIN */
	uint64_t pixels, run, ncodes, data, nsub;
	uint64_t comment_at, blocks_at, end_at;
};

/* Derive the rest of l from w, h and bits; returns the file size without the comment. */
static uint64_t gif_measure(struct gif_layout *l)
{
	l->m = l->bits < 2 ? 2 : l->bits;
	l->pixels = l->w * l->h;
	/*
	 * After a clear, each literal but the first adds a table entry, and the
	 * decoder widens its codes when the next entry would need m + 2 bits:
	 * 2^m - 2 literals is the most that stay at m + 1 bits (giflib and
	 * netpbm reject one more).
	 */
	l->run = (UINT64_C(1) << l->m) - 2;
	l->ncodes = l->pixels + (l->pixels + l->run - 1) / l->run + 1;
	l->data = (l->ncodes * (l->m + 1) + 7) / 8;
	l->nsub = (l->data + 254) / 255;
	return GIF_HEAD + (UINT64_C(3) << l->bits) + GIF_IMAGE + l->nsub + l->data + 2;
}

static uint64_t gif_size_w(void *ctx, uint64_t w)
{
	struct gif_layout *l = ctx;

	l->w = w;
	return gif_measure(l);
}

static uint64_t gif_size_h(void *ctx, uint64_t h)
{
	struct gif_layout *l = ctx;

	l->h = h;
	return gif_measure(l);
}

/* Returns 0, or -EINVAL when no GIF has this size. */
static int gif_layout(uint64_t key, uint64_t size, struct gif_layout *l)
{
	uint64_t cap = size - GIF_COMMENT_MIN;

	memset(l, 0, sizeof(*l));
	l->w = l->h = 1;
	/* small files have small palettes: 3 * 2^bits at most an eighth of the file */
	for (l->bits = 1; l->bits < 8 && (UINT64_C(24) << (l->bits + 1)) <= size; l->bits++)
		;
	if (gif_measure(l) > cap) {
		l->bits = 1;
		if (gif_measure(l) > cap) {
			/* no room for a comment: one row of the exact length */
			for (l->w = 1; l->w <= 16 && gif_measure(l) != size; l->w++)
				;
			if (l->w > 16)
				return -EINVAL;
			goto out_offsets;
		}
	}
	l->w = img_width(key, (cap - gif_measure(l)) * 8 / (l->m + 2), GIF_MAX_DIM);
	l->w = img_fit(1, l->w, cap, gif_size_w, l);
	l->h = img_fit(1, GIF_MAX_DIM, cap, gif_size_h, l);
	l->comment = size - gif_measure(l);
out_offsets:
	l->comment_at = GIF_HEAD + (UINT64_C(3) << l->bits);
	l->blocks_at = l->comment_at + l->comment + GIF_IMAGE;
	l->end_at = l->blocks_at + l->nsub + l->data;
	return 0;
}

struct gif_gen {
	struct gif_layout l;
	struct img_tex t;
	uint64_t key;
};

static size_t gif_head(const struct gif_gen *g, uint8_t *h)
{
	const struct gif_layout *l = &g->l;
	unsigned n = 1u << l->bits;
	uint8_t a[3], b[3];

	memcpy(h, "GIF89a", 6);
	put_le16(h + 6, (uint32_t)l->w);
	put_le16(h + 8, (uint32_t)l->h);
	h[10] = (uint8_t)(0x80 | (l->bits - 1) << 4 | (l->bits - 1)); /* global colour table */
	h[11] = 0;
	h[12] = 0;
	/* a ramp between two colours drawn from the key, with a little jitter */
	for (unsigned c = 0; c < 3; c++) {
		uint64_t r = img_hash(g->key, 0x70616c, c);

		a[c] = (uint8_t)r;
		b[c] = (uint8_t)(r >> 8);
	}
	for (unsigned i = 0; i < n; i++) {
		uint64_t r = img_hash(g->key, 0x6a6974, i);

		for (unsigned c = 0; c < 3; c++) {
			int v = a[c] + ((int)b[c] - a[c]) * (int)i / (int)(n > 1 ? n - 1 : 1);

			v += (int)((r >> (8 * c)) & 15) - 8;
			h[GIF_HEAD + 3 * i + c] = v < 0 ? 0 : v > 255 ? 255 : (uint8_t)v;
		}
	}
	return GIF_HEAD + 3 * n;
}

/* Literal codes before code index k: also the pixel a literal code k carries. */
static uint64_t gif_lits_before(const struct gif_layout *l, uint64_t k)
{
	uint64_t r = k % (l->run + 1);

	return (k / (l->run + 1)) * l->run + (r ? r - 1 : 0);
}

static void gif_pixels(const struct gif_gen *g, uint64_t p, uint8_t *px, size_t n)
{
	unsigned shift = 8 - g->l.bits;

	for (size_t i = 0; i < n;) {
		uint64_t y = (p + i) / g->l.w, x = (p + i) % g->l.w;
		size_t k = (size_t)IMG_MIN((uint64_t)(n - i), g->l.w - x);

		img_tex_row(&g->t, y, x, k, px + i);
		for (size_t j = i; j < i + k; j++)
			px[j] >>= shift;
		i += k;
	}
}

#define GIF_PIECE 255u

/* LZW bytes [d, d + n), n <= GIF_PIECE: codes packed LSB first, each a function of its index. */
static void gif_lzw_piece(const struct gif_gen *g, uint64_t d, uint8_t *out, size_t n)
{
	const struct gif_layout *l = &g->l;
	unsigned width = l->m + 1, period = (unsigned)l->run + 1;
	uint32_t clear = 1u << l->m;
	uint64_t k = d * 8 / width, kend = IMG_MIN(l->ncodes, ((d + n) * 8 + width - 1) / width);
	uint64_t p0 = gif_lits_before(l, k), p1 = IMG_MIN(l->pixels, gif_lits_before(l, kend));
	unsigned skip = (unsigned)(d * 8 % width), nacc = 0, r = (unsigned)(k % period);
	uint8_t px[GIF_PIECE * 8 / 3 + 4];
	const uint8_t *next = px;
	uint64_t acc = 0;
	size_t o = 0;

	gif_pixels(g, p0, px, (size_t)(p1 - p0));
	for (; k < kend; k++) {
		uint32_t code;

		if (k == l->ncodes - 1)
			code = clear + 1; /* end of information */
		else if (!r)
			code = clear;
		else
			code = *next++;
		if (++r == period)
			r = 0;
		acc |= (uint64_t)code << nacc;
		nacc += width;
		if (skip) {
			acc >>= skip;
			nacc -= skip;
			skip = 0;
		}
		while (nacc >= 8 && o < n) {
			out[o++] = (uint8_t)acc;
			acc >>= 8;
			nacc -= 8;
		}
	}
	/* the last byte's spare bits are zero */
	if (o < n)
		out[o++] = (uint8_t)acc;
	memset(out + o, 0, n - o);
}

static void gif_lzw(const struct gif_gen *g, uint64_t d, uint8_t *out, size_t n)
{
	while (n) {
		size_t k = (size_t)IMG_MIN((uint64_t)n, GIF_PIECE);

		gif_lzw_piece(g, d, out, k);
		d += k;
		out += k;
		n -= k;
	}
}

/* Bytes of the comment extension from position pos, up to n and its end. */
static size_t gif_comment(const struct gif_gen *g, uint64_t pos, uint8_t *buf, size_t n)
{
	uint64_t t = g->l.comment - 3, nsub = (t + 255) / 256;
	size_t done = 0;

	n = (size_t)IMG_MIN((uint64_t)n, g->l.comment - pos);
	while (done < n) {
		uint64_t at = pos + done;

		if (at < 2) {
			buf[done++] = at ? 0xfe : 0x21;
		} else if (at == g->l.comment - 1) {
			buf[done++] = 0;
		} else {
			uint64_t p = at - 2, j = split_part(t, nsub, p);
			uint64_t s = split_start(t, nsub, j), e = split_start(t, nsub, j + 1);

			if (p == s) {
				buf[done++] = (uint8_t)(e - s - 1);
			} else {
				size_t k = (size_t)IMG_MIN((uint64_t)(n - done), e - p);

				img_words(g->key, s - j + (p - s - 1), buf + done, k);
				done += k;
			}
		}
	}
	return done;
}

/* Bytes of the image's data sub-blocks from position pos, up to n and their end. */
static size_t gif_blocks(const struct gif_gen *g, uint64_t pos, uint8_t *buf, size_t n)
{
	const struct gif_layout *l = &g->l;
	size_t done = 0;

	n = (size_t)IMG_MIN((uint64_t)n, l->nsub + l->data - pos);
	while (done < n) {
		uint64_t at = pos + done, j = at / 256, r = at % 256;
		uint64_t blen = j == l->nsub - 1 ? l->data - 255 * j : 255;

		if (!r) {
			buf[done++] = (uint8_t)blen;
		} else {
			size_t k = (size_t)IMG_MIN((uint64_t)(n - done), blen - (r - 1));

			gif_lzw(g, 255 * j + r - 1, buf + done, k);
			done += k;
		}
	}
	return done;
}

static int gif_fill(const struct gen_file *f, uint64_t off, uint8_t *buf, size_t len)
{
	struct gif_gen g = { .key = f->key };

	if (f->size < GIF_MIN || off > f->size || len > f->size - off)
		return -EINVAL;
	if (gif_layout(f->key, f->size, &g.l))
		return -EINVAL;
	img_tex_init(&g.t, f->key, g.l.w, g.l.h, 1);
	while (len) {
		size_t k;

		if (off < g.l.comment_at) {
			uint8_t h[GIF_HEAD + 3 * 256];

			gif_head(&g, h);
			k = img_part(buf, h, off,
				     (size_t)IMG_MIN((uint64_t)len, g.l.comment_at - off));
		} else if (off < g.l.comment_at + g.l.comment) {
			k = gif_comment(&g, off - g.l.comment_at, buf, len);
		} else if (off < g.l.blocks_at) {
			uint8_t d[GIF_IMAGE] = { 0x2c, 0, 0, 0, 0 };

			put_le16(d + 5, (uint32_t)g.l.w);
			put_le16(d + 7, (uint32_t)g.l.h);
			d[9] = 0; /* no local colour table, not interlaced */
			d[10] = (uint8_t)g.l.m;
			k = img_part(buf, d, off - (g.l.blocks_at - GIF_IMAGE),
				     (size_t)IMG_MIN((uint64_t)len, g.l.blocks_at - off));
		} else if (off < g.l.end_at) {
			k = gif_blocks(&g, off - g.l.blocks_at, buf, len);
		} else {
			static const uint8_t tail[2] = { 0x00,
							 0x3b }; /* block terminator, trailer */

			k = img_part(buf, tail, off - g.l.end_at, len);
		}
		off += k;
		buf += k;
		len -= k;
	}
	return 0;
}

const struct gen_ops gen_gif_ops = {
	.name = "gif",
	.min_size = GIF_MIN,
	.fill = gif_fill,
};

/* ------------------------------------------------------------------------- */
/* BMP: file and info headers, a gap before the pixels (bfOffBits), 24-bit bottom-up rows */

#define BMP_HEAD    54u
#define BMP_MIN	    58u /* a 1x1 image: one 4-byte row */
#define BMP_MAX_DIM UINT64_C(0x7fffffff)

struct bmp_layout {
	uint64_t w, h, stride, gap;
};

static uint64_t bmp_stride(void *ctx, uint64_t w)
{
	(void)ctx;
	return (3 * w + 3) / 4 * 4;
}

static void bmp_layout(uint64_t key, uint64_t size, struct bmp_layout *l)
{
	uint64_t room = size - BMP_HEAD;

	l->w = img_width(key, room / 3, BMP_MAX_DIM);
	l->w = img_fit(1, l->w, room, bmp_stride, NULL);
	l->stride = bmp_stride(NULL, l->w);
	l->h = IMG_MIN(room / l->stride, BMP_MAX_DIM);
	l->gap = room - l->stride * l->h;
}

static void bmp_head(const struct bmp_layout *l, uint64_t size, uint8_t *h)
{
	uint64_t image = l->stride * l->h;

	memset(h, 0, BMP_HEAD);
	h[0] = 'B';
	h[1] = 'M';
	put_le32(h + 2, size <= UINT32_MAX ? (uint32_t)size : 0);
	put_le32(h + 10, (uint32_t)(BMP_HEAD + l->gap));
	put_le32(h + 14, 40);
	put_le32(h + 18, (uint32_t)l->w);
	put_le32(h + 22, (uint32_t)l->h); /* positive: bottom-up */
	put_le16(h + 26, 1);
	put_le16(h + 28, 24);
	/* BI_RGB at 30 is 0; its image size may be 0 when it does not fit */
	put_le32(h + 34, image <= UINT32_MAX ? (uint32_t)image : 0);
	put_le32(h + 38, 2835); /* 72 dpi */
	put_le32(h + 42, 2835);
}

static int bmp_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	uint64_t pixels_at;
	struct bmp_layout l;
	struct img_tex t;

	if (g->size < BMP_MIN || off > g->size || len > g->size - off)
		return -EINVAL;
	bmp_layout(g->key, g->size, &l);
	img_tex_init(&t, g->key, l.w, l.h, 3);
	pixels_at = BMP_HEAD + l.gap;
	while (len) {
		size_t k;

		if (off < BMP_HEAD) {
			uint8_t h[BMP_HEAD];

			bmp_head(&l, g->size, h);
			k = img_part(buf, h, off, (size_t)IMG_MIN((uint64_t)len, BMP_HEAD - off));
		} else if (off < pixels_at) {
			k = (size_t)IMG_MIN((uint64_t)len, pixels_at - off);
			memset(buf, 0, k);
		} else {
			uint64_t p = off - pixels_at, r = p / l.stride, b = p % l.stride;

			if (b < 3 * l.w) {
				k = (size_t)IMG_MIN((uint64_t)len, 3 * l.w - b);
				img_tex_row(&t, l.h - 1 - r, b, k, buf);
			} else {
				k = (size_t)IMG_MIN((uint64_t)len, l.stride - b);
				memset(buf, 0, k);
			}
		}
		off += k;
		buf += k;
		len -= k;
	}
	return 0;
}

const struct gen_ops gen_bmp_ops = {
	.name = "bmp",
	.min_size = BMP_MIN,
	.fill = bmp_fill,
};

/* ------------------------------------------------------------------------- */
/*
 * JPEG: baseline, YCbCr 4:2:0, restart markers every JPEG_RST MCUs.  Each
 * restart interval is coded on its own (DC predictions restart) into
 * exactly JPEG_MCU bytes per MCU: a rate control spends the budget on AC
 * coefficients, and the last bits are padded with 0xFF fill bytes, which
 * may precede any marker.  So an interval's place in the file is known
 * from its index, and a fill codes only the intervals it touches.
 */

#define JPEG_RST      32u    /* MCUs per restart interval */
#define JPEG_MCU      48u    /* coded bytes per MCU (16x16 pixels: 1.5 bits a pixel) */
#define JPEG_APP0     20u    /* SOI and a JFIF APP0 segment */
#define JPEG_TABLES   183u   /* DQT, SOF0, DHT, DRI, SOS */
#define JPEG_COM_MAX  65537u /* a COM segment, marker included */
#define JPEG_MIN      (JPEG_APP0 + JPEG_TABLES + JPEG_MCU + 2)
#define JPEG_MAX_MCUS 4096u /* per side: 65536 pixels */
#define JPEG_QDC      8	    /* DC quantizer */

/* Huffman tables: code counts per length 1..16, then symbols. */
static const uint8_t jpeg_dc_bits[16] = { 0, 1, 5, 1, 1, 1, 1, 1, 1 };
static const uint8_t jpeg_dc_vals[12] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 };
static const uint8_t jpeg_ac_bits[16] = { 0, 1, 2, 4, 4, 4, 4, 3, 3 };
static const uint8_t jpeg_ac_vals[25] = {
	0x01, 0x02, 0x00, 0x03, 0x04, 0x11, 0x12, 0x05, 0x13, 0x21, 0x22, 0x06, 0x14,
	0x23, 0x31, 0x15, 0x24, 0x32, 0x33, 0x16, 0x25, 0x34, 0x26, 0x35, 0x36,
};

struct jpeg_layout {
	uint64_t w, h, mw, mh, mcus, nint;
	uint64_t com, ncom; /* COM segments: bytes and count */
	unsigned fill;	    /* fill bytes before EOI */
	uint64_t data_at, eoi_at;
};

static uint64_t jpeg_data_len(uint64_t mcus)
{
	uint64_t n = (mcus + JPEG_RST - 1) / JPEG_RST;

	return (n - 1) * (JPEG_RST * JPEG_MCU + 2) + (mcus - (n - 1) * JPEG_RST) * JPEG_MCU;
}

static uint64_t jpeg_size_w(void *ctx, uint64_t mw)
{
	(void)ctx;
	return JPEG_APP0 + JPEG_TABLES + jpeg_data_len(mw) + 2;
}

static uint64_t jpeg_size_h(void *ctx, uint64_t mh)
{
	return jpeg_size_w(NULL, *(uint64_t *)ctx * mh);
}

static void jpeg_layout(uint64_t key, uint64_t size, struct jpeg_layout *l)
{
	uint64_t r = img_hash(key, 0x6a7067, 0), pad;

	memset(l, 0, sizeof(*l));
	l->mw = img_width(key, (size - JPEG_MIN) / JPEG_MCU + 1, JPEG_MAX_MCUS);
	l->mw = img_fit(1, l->mw, size, jpeg_size_w, NULL);
	l->mh = img_fit(1, JPEG_MAX_MCUS, size, jpeg_size_h, &l->mw);
	l->mcus = l->mw * l->mh;
	l->nint = (l->mcus + JPEG_RST - 1) / JPEG_RST;
	/* real sizes are rarely multiples of 16 */
	l->w = 16 * l->mw - r % 16;
	l->h = 16 * l->mh - (r >> 4) % 16;
	pad = size - jpeg_size_w(NULL, l->mcus);
	if (pad < 4) {
		l->fill = (unsigned)pad;
	} else {
		l->com = pad;
		l->ncom = (pad + JPEG_COM_MAX - 1) / JPEG_COM_MAX;
	}
	l->data_at = JPEG_APP0 + l->com + JPEG_TABLES;
	l->eoi_at = l->data_at + jpeg_data_len(l->mcus);
}

struct jpeg_gen {
	struct jpeg_layout l;
	struct img_tex t;
	uint64_t key;
	uint16_t dc_code[12], ac_code[256];
	uint8_t dc_len[12], ac_len[256];
};

static void jpeg_codes(const uint8_t *bits, const uint8_t *vals, uint16_t *code, uint8_t *len)
{
	unsigned c = 0, k = 0;

	for (unsigned l = 1; l <= 16; l++) {
		for (unsigned i = 0; i < bits[l - 1]; i++) {
			code[vals[k]] = (uint16_t)c++;
			len[vals[k++]] = (uint8_t)l;
		}
		c <<= 1;
	}
}

static size_t jpeg_dht(uint8_t *p, unsigned tc, const uint8_t *bits, const uint8_t *vals,
		       size_t nvals)
{
	p[0] = (uint8_t)(tc << 4);
	memcpy(p + 1, bits, 16);
	memcpy(p + 17, vals, nvals);
	return 17 + nvals;
}

static void jpeg_tables(const struct jpeg_layout *l, uint8_t *h)
{
	uint8_t *p = h;

	/*
	 * DQT: one table for all components, zigzag order.  Fine AC steps: the
	 * coded values are large (they carry the bits), their amplitude small.
	 */
	put_be16(p, 0xffdb);
	put_be16(p + 2, 67);
	p[4] = 0;
	p[5] = JPEG_QDC;
	for (unsigned k = 1; k < 64; k++)
		p[5 + k] = (uint8_t)(1 + k / 16);
	p += 69;
	/* SOF0: 8 bits, Y at 2x2, Cb and Cr at 1x1, all on table 0 */
	put_be16(p, 0xffc0);
	put_be16(p + 2, 17);
	p[4] = 8;
	put_be16(p + 5, (uint32_t)l->h);
	put_be16(p + 7, (uint32_t)l->w);
	p[9] = 3;
	for (unsigned c = 0; c < 3; c++) {
		p[10 + 3 * c] = (uint8_t)(c + 1);
		p[11 + 3 * c] = c ? 0x11 : 0x22;
		p[12 + 3 * c] = 0;
	}
	p += 19;
	/* DHT: DC and AC table 0 */
	put_be16(p, 0xffc4);
	put_be16(p + 2, 2 + 17 + sizeof(jpeg_dc_vals) + 17 + sizeof(jpeg_ac_vals));
	p += 4;
	p += jpeg_dht(p, 0, jpeg_dc_bits, jpeg_dc_vals, sizeof(jpeg_dc_vals));
	p += jpeg_dht(p, 1, jpeg_ac_bits, jpeg_ac_vals, sizeof(jpeg_ac_vals));
	/* DRI */
	put_be16(p, 0xffdd);
	put_be16(p + 2, 4);
	put_be16(p + 4, JPEG_RST);
	p += 6;
	/* SOS: three components, tables 0/0, full spectrum */
	put_be16(p, 0xffda);
	put_be16(p + 2, 12);
	p[4] = 3;
	for (unsigned c = 0; c < 3; c++) {
		p[5 + 2 * c] = (uint8_t)(c + 1);
		p[6 + 2 * c] = 0;
	}
	p[11] = 0;
	p[12] = 63;
	p[13] = 0;
}

/* An entropy-coded segment being written, 0xFF bytes stuffed with 0x00. */
struct jpeg_bits {
	uint8_t *p;
	size_t n, cap;
	uint64_t acc; /* pending bits, the last nacc */
	unsigned nacc;
};

static void jpeg_byte(struct jpeg_bits *b, uint8_t c)
{
	if (b->n < b->cap)
		b->p[b->n] = c;
	b->n++;
	if (c == 0xff) {
		if (b->n < b->cap)
			b->p[b->n] = 0;
		b->n++;
	}
}

/* Emit the oldest 32 pending bits: four bytes at once unless one is 0xFF. */
static void jpeg_emit32(struct jpeg_bits *b)
{
	uint32_t w = (uint32_t)(b->acc >> (b->nacc - 32)), nw = ~w;

	b->nacc -= 32;
	if (!((nw - 0x01010101u) & ~nw & 0x80808080u) && b->n + 4 <= b->cap) {
		put_be32(b->p + b->n, w);
		b->n += 4;
		return;
	}
	for (int sh = 24; sh >= 0; sh -= 8)
		jpeg_byte(b, (uint8_t)(w >> sh));
}

static inline void jpeg_put(struct jpeg_bits *b, uint32_t code, unsigned len)
{
	b->acc = (b->acc << len) | code;
	b->nacc += len;
	if (b->nacc >= 32)
		jpeg_emit32(b);
}

/* Pad the last byte with 1 bits and emit everything. */
static void jpeg_flush(struct jpeg_bits *b)
{
	if (b->nacc & 7)
		jpeg_put(b, (1u << (8 - (b->nacc & 7))) - 1, 8 - (b->nacc & 7));
	while (b->nacc) {
		b->nacc -= 8;
		jpeg_byte(b, (uint8_t)(b->acc >> b->nacc));
	}
}

/*
 * Whether a put of len bits keeps the interval within cap bits whatever
 * follows.  The bound counts every pending bit twice (each pending byte
 * may turn out 0xFF and take a stuffed 0x00), this block's EOB (3 bits),
 * a minimal block (DC 0, EOB: 5 bits) for every later block, and the final
 * padding (at most 7 bits, stuffed: 14).
 */
static bool jpeg_fits(const struct jpeg_bits *b, unsigned len, unsigned later, uint64_t cap)
{
	return 8 * (uint64_t)b->n + 2 * (uint64_t)(b->nacc + len) + 6 + 10 * (uint64_t)later + 14 <=
	       cap;
}

/* A lower estimate of the bits so far, for the rate control's soft targets. */
static uint64_t jpeg_bits_now(const struct jpeg_bits *b)
{
	return 8 * (uint64_t)b->n + b->nacc;
}

/* Magnitude category of v and its extra bits. */
static unsigned jpeg_cat(int v, uint32_t *extra)
{
	unsigned a = (unsigned)(v < 0 ? -v : v), s = a ? 32 - (unsigned)__builtin_clz(a) : 0;

	*extra = v < 0 ? (uint32_t)(v + (1 << s) - 1) : (uint32_t)v;
	return s;
}

/*
 * AC draws, from 4 random bits each: zero runs (mostly none) and, by
 * position (the first 5 zigzag positions or later), magnitude categories.
 */
static const uint8_t jpeg_run_of[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3 };
static const uint8_t jpeg_cat_of[2][16] = {
	{ 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6 },
	{ 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 6 },
};

/* Code one block: DC towards dc_target, then AC coefficients until the block's target. */
static void jpeg_block(const struct jpeg_gen *j, struct jpeg_bits *out, int *pred, int dc_target,
		       uint64_t seed, uint64_t target, unsigned later, uint64_t cap)
{
	/* a local copy: the output bytes cannot alias it, so it stays in registers */
	struct jpeg_bits w = *out, *b = &w;
	uint64_t s = seed;
	unsigned cat, last = 0, pos = 0;
	uint32_t extra;
	int diff = dc_target - *pred;

	cat = jpeg_cat(diff, &extra);
	if (!jpeg_fits(b, j->dc_len[cat] + cat, later, cap)) {
		diff = 0;
		cat = jpeg_cat(0, &extra);
	}
	jpeg_put(b, (uint32_t)j->dc_code[cat] << cat | extra, j->dc_len[cat] + cat);
	*pred += diff;
	for (;;) {
		uint64_t z = img_mix(s += UINT64_C(0x9E3779B97F4A7C15));

		/* one 64-bit draw makes up to three coefficients, 21 bits each */
		for (unsigned d = 0; d < 3; d++, z >>= 21) {
			unsigned run = jpeg_run_of[z & 15], sym, len;
			uint32_t neg = (z >> 20) & 1, mag;

			pos += run + 1;
			if (pos > 63)
				goto out_eob;
			cat = jpeg_cat_of[pos > 5][(z >> 4) & 15];
			mag = (1u << (cat - 1)) | ((uint32_t)(z >> 8) & ((1u << (cat - 1)) - 1));
			/* a negative value's extra bits are the complement of its magnitude */
			extra = (mag ^ (0u - neg)) & ((1u << cat) - 1);
			sym = run << 4 | cat;
			len = j->ac_len[sym] + cat;
			if (jpeg_bits_now(b) + len + 3 > target || !jpeg_fits(b, len, later, cap))
				goto out_eob;
			jpeg_put(b, (uint32_t)j->ac_code[sym] << cat | extra, len);
			last = pos;
		}
	}
out_eob:
	if (last < 63)
		jpeg_put(b, j->ac_code[0x00], j->ac_len[0x00]);
	*out = w;
}

#define JPEG_INTERVAL (JPEG_RST * JPEG_MCU + 2)

/* Code restart interval i into out; returns its length in bytes or -EOVERFLOW. */
static int jpeg_interval(const struct jpeg_gen *j, uint64_t i, uint8_t *out)
{
	const struct jpeg_layout *l = &j->l;
	uint64_t first = i * JPEG_RST;
	unsigned m = (unsigned)IMG_MIN((uint64_t)JPEG_RST, l->mcus - first), nb = 6 * m;
	uint64_t cap = 8 * (uint64_t)m * JPEG_MCU, spend = cap - 32, sum = 0, acc = 0;
	struct jpeg_bits b = { .p = out, .cap = (size_t)m * JPEG_MCU };
	unsigned busy[JPEG_RST];
	int pred[3] = { 0, 0, 0 };
	uint64_t mx, my;

	/* luma gets the bits, more in busy regions of 64x64 pixels */
	mx = first % l->mw;
	my = first / l->mw;
	for (unsigned u = 0; u < m; u++) {
		busy[u] = 6 + (unsigned)(img_hash(j->key, mx >> 2, my >> 2) % 12);
		sum += 4 * busy[u] + 4;
		if (++mx == l->mw) {
			mx = 0;
			my++;
		}
	}
	mx = first % l->mw;
	my = first / l->mw;
	for (unsigned u = 0; u < m; u++) {
		for (unsigned k = 0; k < 6; k++) {
			unsigned comp = k < 4 ? 0 : k - 3, t = 6 * u + k;
			int dc;

			if (k < 4) {
				uint64_t x = 16 * mx + 8 * (k & 1) + 4,
					 y = 16 * my + 8 * (k >> 1) + 4;

				dc = (img_tex_mean(&j->t, x, y, 0) - 128) * 8 / JPEG_QDC;
			} else {
				dc = (img_tex_mean(&j->t, 16 * mx + 8, 16 * my + 8, comp) - 128) *
				     4 / JPEG_QDC;
			}
			acc += k < 4 ? busy[u] : 2;
			jpeg_block(j, &b, &pred[comp], dc,
				   img_hash(j->key ^ 0x6a6163, first + u, k), spend * acc / sum,
				   nb - 1 - t, cap);
		}
		if (++mx == l->mw) {
			mx = 0;
			my++;
		}
	}
	jpeg_flush(&b);
	if (b.n > b.cap)
		return -EOVERFLOW;
	memset(out + b.n, 0xff, b.cap - b.n);
	if (i == l->nint - 1)
		return (int)b.cap;
	out[b.cap] = 0xff;
	out[b.cap + 1] = (uint8_t)(0xd0 + (i & 7));
	return (int)b.cap + 2;
}

/* The last interval coded, per thread: a fill of small blocks codes each one once. */
static _Thread_local struct {
	bool valid;
	uint64_t key, size, i;
	unsigned n;
	uint8_t bytes[JPEG_INTERVAL];
} jpeg_last;

/* Bytes of the COM segments from position pos, up to n and their end. */
static size_t jpeg_com(const struct jpeg_gen *j, uint64_t pos, uint8_t *buf, size_t n)
{
	uint64_t s = split_part(j->l.com, j->l.ncom, pos);
	uint64_t start = split_start(j->l.com, j->l.ncom, s),
		 end = split_start(j->l.com, j->l.ncom, s + 1);
	uint64_t at = pos - start;
	size_t k;

	if (at < 4) {
		uint8_t h[4];

		put_be16(h, 0xfffe);
		put_be16(h + 2, (uint32_t)(end - start - 2));
		return img_part(buf, h, at, (size_t)IMG_MIN((uint64_t)n, 4 - at));
	}
	k = (size_t)IMG_MIN((uint64_t)n, end - pos);
	img_words(j->key, start - 4 * s + at - 4, buf, k);
	return k;
}

static int jpeg_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	static const uint8_t app0[JPEG_APP0] = {
		0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
	};
	struct jpeg_gen j = { .key = g->key };

	if (g->size < JPEG_MIN || off > g->size || len > g->size - off)
		return -EINVAL;
	jpeg_layout(g->key, g->size, &j.l);
	img_tex_init(&j.t, g->key, j.l.w, j.l.h, 3);
	jpeg_codes(jpeg_dc_bits, jpeg_dc_vals, j.dc_code, j.dc_len);
	jpeg_codes(jpeg_ac_bits, jpeg_ac_vals, j.ac_code, j.ac_len);
	while (len) {
		size_t k;

		if (off < JPEG_APP0) {
			k = img_part(buf, app0, off,
				     (size_t)IMG_MIN((uint64_t)len, JPEG_APP0 - off));
		} else if (off < JPEG_APP0 + j.l.com) {
			k = jpeg_com(&j, off - JPEG_APP0, buf, len);
		} else if (off < j.l.data_at) {
			uint8_t h[JPEG_TABLES];

			jpeg_tables(&j.l, h);
			k = img_part(buf, h, off - (j.l.data_at - JPEG_TABLES),
				     (size_t)IMG_MIN((uint64_t)len, j.l.data_at - off));
		} else if (off < j.l.eoi_at) {
			uint64_t i = (off - j.l.data_at) / JPEG_INTERVAL,
				 at = off - j.l.data_at - i * JPEG_INTERVAL;

			if (!jpeg_last.valid || jpeg_last.key != g->key ||
			    jpeg_last.size != g->size || jpeg_last.i != i) {
				int n = jpeg_interval(&j, i, jpeg_last.bytes);

				jpeg_last.valid = n > 0;
				if (n < 0)
					return n;
				jpeg_last.key = g->key;
				jpeg_last.size = g->size;
				jpeg_last.i = i;
				jpeg_last.n = (unsigned)n;
			}
			k = img_part(buf, jpeg_last.bytes, at,
				     (size_t)IMG_MIN((uint64_t)len, jpeg_last.n - at));
		} else {
			uint8_t tail[5] = { 0xff, 0xff, 0xff };

			/* fill bytes, then EOI */
			tail[j.l.fill] = 0xff;
			tail[j.l.fill + 1] = 0xd9;
			k = img_part(buf, tail, off - j.l.eoi_at, len);
		}
		off += k;
		buf += k;
		len -= k;
	}
	return 0;
}

const struct gen_ops gen_jpeg_ops = {
	.name = "jpeg",
	.min_size = JPEG_MIN,
	.fill = jpeg_fill,
};
