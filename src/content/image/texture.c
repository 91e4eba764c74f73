/* texture.c - what the image formats share: dimensions and the pixel texture */
#include <math.h>
#include <stdbool.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "content/image/image.h"

int img_fill_parts(void *ctx, uint64_t off, uint8_t *buf, size_t len,
		   int64_t (*part)(void *ctx, uint64_t off, uint8_t *buf, size_t len))
{
	while (len) {
		int64_t k = part(ctx, off, buf, len);

		if (k < 0)
			return (int)k;
		off += (uint64_t)k;
		buf += k;
		len -= (size_t)k;
	}
	return 0;
}

size_t img_part(uint8_t *buf, const uint8_t *src, uint64_t pos, size_t n)
{
	memcpy(buf, src + pos, n);
	return n;
}

uint64_t img_fit(uint64_t lo, uint64_t hi, uint64_t cap, uint64_t (*size_of)(void *, uint64_t),
		 void *ctx)
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

struct fit_field {
	uint64_t *dim;
	uint64_t (*measure)(void *);
	void *layout;
};

static uint64_t fit_field_size(void *ctx, uint64_t v)
{
	struct fit_field *f = ctx;

	*f->dim = v;
	return f->measure(f->layout);
}

uint64_t img_fit_field(uint64_t *dim, uint64_t hi, uint64_t cap, uint64_t (*measure)(void *),
		       void *layout)
{
	struct fit_field f = { dim, measure, layout };

	*dim = img_fit(1, hi, cap, fit_field_size, &f);
	return *dim;
}

uint64_t img_width(uint64_t key, uint64_t pixels, uint64_t max)
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

uint64_t img_split_start(uint64_t t, uint64_t k, uint64_t j)
{
	return j * (t / k) + IMG_MIN(j, t % k);
}

uint64_t img_split_part(uint64_t t, uint64_t k, uint64_t p)
{
	uint64_t q = t / k, r = t % k;

	if (p < r * (q + 1))
		return p / (q + 1);
	return r + (p - r * (q + 1)) / q;
}

void img_words(uint64_t key, uint64_t off, uint8_t *out, size_t n)
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

void img_tex_init(struct img_tex *t, uint64_t key, uint64_t w, uint64_t h, unsigned chans)
{
	uint64_t r = img_hash(key, 0x74657874, 0);

	t->key = key;
	t->chans = chans;
	t->wrap = false;
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
		uint64_t h = rng_splitmix64(seed + w++ * UINT64_C(0x9E3779B97F4A7C15));

		for (unsigned lane = (unsigned)(b0 & 7); lane < 8 && i < n; lane++)
			out[i++] = (uint8_t)(h >> (8 * lane));
	}
	for (; i + 8 <= n; i += 8) {
		uint64_t h = rng_splitmix64(seed + w++ * UINT64_C(0x9E3779B97F4A7C15));

		put_le64(out + i, h);
	}
	if (i < n) {
		uint64_t h = rng_splitmix64(seed + w * UINT64_C(0x9E3779B97F4A7C15));

		for (unsigned lane = 0; i < n; lane++)
			out[i++] = (uint8_t)(h >> (8 * lane));
	}
}

/*
 * The hashes of one row of tiles, per thread: a tile is 2^tile_shift
 * pixel rows high, and each of them asks for its hash.  The tiles tx <
 * IMG_TEX_MEMO of tile row ty of key's texture; bit tx of have: hash[tx]
 * is made.
 */
#define IMG_TEX_MEMO 16u
static _Thread_local struct img_tex_memo {
	uint64_t key, ty;
	uint32_t have;
	uint64_t hash[IMG_TEX_MEMO];
} img_tex_memo;

/* img_hash(key, tx, ty) of tile row ty, memo the thread's, already on (key, ty). */
static inline uint64_t img_tex_tile_hash(struct img_tex_memo *memo, uint64_t key, uint64_t tx,
					 uint64_t ty)
{
	if (tx >= IMG_TEX_MEMO)
		return img_hash(key, tx, ty);
	if (!(memo->have >> tx & 1)) {
		memo->hash[tx] = img_hash(key, tx, ty);
		memo->have |= 1u << tx;
	}
	return memo->hash[tx];
}

#ifdef __SSE2__
/*
 * The first pixels of a tile, four at a time while four are left of k,
 * over their noise in out, from img_tex_span's 32-bit sums acc at the
 * tile's start; returns how many.  Byte e of four pixels (channel
 * e % chans of pixel e / chans) is lane e % 4 of vector e / 4, its sum
 * its channel's start plus its pixel's slopes (from), four pixels' slopes
 * on (step): the 32-bit sums one pixel after another makes.  A value (the
 * sum's top 16 bits and the noise, within 17 bits) clips to a byte as
 * img_tex_span's does by two packs with saturation, to 16 bits and then
 * to 0..255; a wrapping lane is cut to its low byte first (wrap: 0xFF,
 * else all ones).
 */
static inline __attribute__((always_inline)) size_t
img_tex_span4(const int32_t *acc, const __m128i *from, const __m128i *step, const __m128i *wrap,
	      uint8_t mask, size_t k, uint8_t *out, const unsigned chans)
{
	__m128i va[4], m8 = _mm_set1_epi8((char)mask), zero = _mm_setzero_si128();
	size_t i = 0;

	if (chans == 1) {
		va[0] = _mm_set1_epi32(acc[0]);
	} else if (chans == 3) {
		va[0] = _mm_setr_epi32(acc[0], acc[1], acc[2], acc[0]);
		va[1] = _mm_setr_epi32(acc[1], acc[2], acc[0], acc[1]);
		va[2] = _mm_setr_epi32(acc[2], acc[0], acc[1], acc[2]);
	} else {
		va[0] = va[1] = va[2] = va[3] = _mm_setr_epi32(acc[0], acc[1], acc[2], acc[3]);
	}
#pragma GCC unroll 4
	for (unsigned q = 0; q < chans; q++)
		va[q] = _mm_add_epi32(va[q], from[q]);
	for (; i + 4 <= k; i += 4) {
#pragma GCC unroll 4
		for (unsigned q = 0; q < chans; q++) {
			uint32_t w;
			__m128i v;

			memcpy(&w, out + 4 * q, sizeof(w));
			v = _mm_and_si128(_mm_cvtsi32_si128((int)w), m8);
			v = _mm_unpacklo_epi16(_mm_unpacklo_epi8(v, zero), zero);
			v = _mm_and_si128(_mm_add_epi32(_mm_srai_epi32(va[q], 16), v), wrap[q]);
			v = _mm_packs_epi32(v, v);
			w = (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(v, v));
			memcpy(out + 4 * q, &w, sizeof(w));
			va[q] = _mm_add_epi32(va[q], step[q]);
		}
		out += 4 * chans;
	}
	return i;
}
#endif

/*
 * Whole pixels [x, x + np) of row y over their noise in out, tile by
 * tile; chans and wrap are constants at each call, so the loop is
 * specialized.  wrap: colour values wrap around instead of clipping (an
 * alpha channel still clips: opaque stays opaque).
 */
static inline __attribute__((always_inline)) void img_tex_span(const struct img_tex *t, uint64_t x,
							       uint64_t y, size_t np, uint8_t *out,
							       const unsigned chans, const bool wrap)
{
	/* the texture's fields in locals: stores to out could alias *t */
	uint64_t key = t->key;
	unsigned shift = t->tile_shift;
	int amp = t->amp;
	uint8_t mask = (uint8_t)t->noise;
	int64_t row[4], slope[4];
	int32_t gx[4];
	struct img_tex_memo *memo = &img_tex_memo;
#ifdef __SSE2__
	int32_t lane[3][16];
	__m128i from[4], step[4], cut[4];
#endif

	for (unsigned c = 0; c < chans; c++) {
		row[c] = t->base[c] + t->gy[c] * (int64_t)y;
		slope[c] = t->gx[c];
		gx[c] = (int32_t)t->gx[c];
	}
	if (memo->key != key || memo->ty != y >> shift) {
		memo->key = key;
		memo->ty = y >> shift;
		memo->have = 0;
	}
#ifdef __SSE2__
#pragma GCC unroll 16
	for (unsigned e = 0; e < 4 * chans; e++) {
		unsigned c = e % chans;

		lane[0][e] = (int32_t)(e / chans * (uint32_t)gx[c]);
		lane[1][e] = (int32_t)(4 * (uint32_t)gx[c]);
		lane[2][e] = wrap && !(chans == 4 && c == 3) ? 0xff : -1;
	}
#pragma GCC unroll 4
	for (unsigned q = 0; q < chans; q++) {
		from[q] = _mm_loadu_si128((const __m128i *)(lane[0] + 4 * q));
		step[q] = _mm_loadu_si128((const __m128i *)(lane[1] + 4 * q));
		cut[q] = _mm_loadu_si128((const __m128i *)(lane[2] + 4 * q));
	}
#endif
	while (np) {
		uint64_t tile_end = ((x >> shift) + 1) << shift;
		size_t k = (size_t)IMG_MIN((uint64_t)np, tile_end - x), i = 0;
		uint64_t th = img_tex_tile_hash(memo, key, x >> shift, y >> shift);
		int32_t acc[4];

		/* within +-2^26 along a row (base, slopes over the image, tile offset): 32 bits hold it */
		for (unsigned c = 0; c < chans; c++) {
			int64_t off = ((int8_t)(th >> (8 * c)) * amp) >> 7;

			acc[c] = (int32_t)(row[c] + slope[c] * (int64_t)x + off * 65536);
		}
#ifdef __SSE2__
		if (k >= 4) {
			i = img_tex_span4(acc, from, step, cut, mask, k, out, chans);
			out += i * chans;
			for (unsigned c = 0; c < chans; c++)
				acc[c] = (int32_t)((uint32_t)acc[c] +
						   (uint32_t)i * (uint32_t)gx[c]);
		}
#endif
		for (; i < k; i++) {
			for (unsigned c = 0; c < chans; c++) {
				int v = (acc[c] >> 16) + (out[c] & mask);

				if (wrap && !(chans == 4 && c == 3)) {
					out[c] = (uint8_t)v;
				} else {
					v = v < 0 ? 0 : v;
					out[c] = (uint8_t)(v > 255 ? 255 : v);
				}
				acc[c] += gx[c];
			}
			out += chans;
		}
		np -= k;
		x += k;
	}
}

static void img_tex_pixels(const struct img_tex *t, uint64_t x, uint64_t y, size_t np, uint8_t *out)
{
	if (t->wrap) {
		if (t->chans == 1)
			img_tex_span(t, x, y, np, out, 1, true);
		else if (t->chans == 3)
			img_tex_span(t, x, y, np, out, 3, true);
		else
			img_tex_span(t, x, y, np, out, 4, true);
	} else if (t->chans == 1) {
		img_tex_span(t, x, y, np, out, 1, false);
	} else if (t->chans == 3) {
		img_tex_span(t, x, y, np, out, 3, false);
	} else {
		img_tex_span(t, x, y, np, out, 4, false);
	}
}

void img_tex_row(const struct img_tex *t, uint64_t y, uint64_t b0, size_t n, uint8_t *out)
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
	if (n >= chans) {
		size_t np = n / chans;

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
