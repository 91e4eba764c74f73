/* texture.c - what the image formats share: dimensions and the pixel texture */
#include <math.h>
#include <stdbool.h>
#include <string.h>

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
 * Whole pixels [x, x + np) of row y over their noise in out, tile by
 * tile; chans and wrap are constants at each call, so the loop is
 * specialized.  wrap: colour values wrap around instead of clipping (an
 * alpha channel still clips: opaque stays opaque).
 */
static inline __attribute__((always_inline)) void img_tex_span(const struct img_tex *t, uint64_t x,
							       uint64_t y, size_t np, uint8_t *out,
							       const unsigned chans, const bool wrap)
{
	uint8_t mask = (uint8_t)t->noise;
	int64_t row[4];

	for (unsigned c = 0; c < chans; c++)
		row[c] = t->base[c] + t->gy[c] * (int64_t)y;
	while (np) {
		uint64_t tile_end = ((x >> t->tile_shift) + 1) << t->tile_shift;
		size_t k = (size_t)IMG_MIN((uint64_t)np, tile_end - x);
		uint64_t th = img_hash(t->key, x >> t->tile_shift, y >> t->tile_shift);
		int32_t acc[4], gx[4];

		/* within +-2^26 along a row (base, slopes over the image, tile offset): 32 bits hold it */
		for (unsigned c = 0; c < chans; c++) {
			int64_t off = ((int8_t)(th >> (8 * c)) * t->amp) >> 7;

			acc[c] = (int32_t)(row[c] + t->gx[c] * (int64_t)x + off * 65536);
			gx[c] = (int32_t)t->gx[c];
		}
		for (size_t i = 0; i < k; i++) {
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

int img_tex_mean(const struct img_tex *t, struct img_tex_tile *tile, uint64_t x, uint64_t y,
		 unsigned c)
{
	uint64_t tx = x >> t->tile_shift, ty = y >> t->tile_shift;
	int64_t v = t->base[c] + t->gy[c] * (int64_t)y + t->gx[c] * (int64_t)x;
	int m;

	if (!tile->valid || tile->tx != tx || tile->ty != ty) {
		tile->hash = img_hash(t->key, tx, ty);
		tile->tx = tx;
		tile->ty = ty;
		tile->valid = true;
	}
	m = (int)(v >> 16) + (((int8_t)(tile->hash >> (8 * c)) * t->amp) >> 7) +
	    (int)(t->noise / 2);
	return m < 0 ? 0 : m > 255 ? 255 : m;
}
