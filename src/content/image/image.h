/* image.h - internal to image/: the texture and layout helpers every image format shares */
#ifndef IMPRINT_CONTENT_IMAGE_IMAGE_H
#define IMPRINT_CONTENT_IMAGE_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "content/gen.h"
#include "util/bytes.h"
#include "util/rng.h"

/*
 * Every format follows one plan: a layout computed from (key, size) alone
 * (dimensions chosen so the pixels fill the file, the remainder going to
 * padding the format allows), then bytes made region by region, so a fill
 * only generates the units it touches.  Pixels come from one texture
 * (gradients, flat tiles, fine noise), a pure function of (key, x, y).
 */

#define IMG_MIN(a, b) ((a) < (b) ? (a) : (b))

static inline uint64_t img_hash(uint64_t key, uint64_t a, uint64_t b)
{
	return rng_splitmix64(key ^ rng_splitmix64(a * UINT64_C(0x9E3779B97F4A7C15) + b +
						   UINT64_C(0x632BE59BD9B4E019)));
}

/* Big- and little-endian fields: put_be16, put_le32, ... (util/bytes.h). */

/*
 * Bytes [off, off + len) of a file, region by region: part(ctx, off, buf,
 * len) makes the bytes from off to the end of off's region (len at most)
 * and returns how many (at least 1) or a negative errno.  Returns 0 or
 * that errno.
 */
int img_fill_parts(void *ctx, uint64_t off, uint8_t *buf, size_t len,
		   int64_t (*part)(void *ctx, uint64_t off, uint8_t *buf, size_t len));

/* Bytes [pos, pos + n) of a small region made whole in src; returns n. */
size_t img_part(uint8_t *buf, const uint8_t *src, uint64_t pos, size_t n);

/*
 * Largest v in [lo, hi] with size_of(ctx, v) <= cap, size_of being
 * nondecreasing in v; lo when even lo does not fit.
 */
uint64_t img_fit(uint64_t lo, uint64_t hi, uint64_t cap, uint64_t (*size_of)(void *, uint64_t),
		 void *ctx);

/*
 * The same search over one dimension of a layout: the largest *dim in
 * [1, hi] with measure(layout) <= cap, measure deriving the layout's size
 * from *dim among its other fields; leaves that value in *dim and returns it.
 */
uint64_t img_fit_field(uint64_t *dim, uint64_t hi, uint64_t cap, uint64_t (*measure)(void *),
		       void *layout);

/* A width for about `pixels` pixels at an aspect ratio drawn from the key, within [1, max]. */
uint64_t img_width(uint64_t key, uint64_t pixels, uint64_t max);

/* t split into k parts as evenly as possible, the first t % k one larger: where part j starts. */
uint64_t img_split_start(uint64_t t, uint64_t k, uint64_t j);

/* The part holding position p of the split above. */
uint64_t img_split_part(uint64_t t, uint64_t k, uint64_t p);

/* Bytes [off, off + n) of an endless run of lowercase pseudo-words, for comments. */
void img_words(uint64_t key, uint64_t off, uint8_t *out, size_t n);

struct img_tex {
	uint64_t key;
	unsigned chans;
	unsigned tile_shift;  /* tiles of 2^tile_shift pixels */
	int amp;	      /* tile offsets within +-amp */
	unsigned noise;	      /* per-byte noise mask */
	bool wrap;	      /* colour values wrap around (as noise does) instead of clipping */
	int64_t base[4];      /* 16.16 fixed point */
	int64_t gx[4], gy[4]; /* 16.16 slopes per pixel */
};

/* The texture of an image of w x h pixels of chans channels, for key. */
void img_tex_init(struct img_tex *t, uint64_t key, uint64_t w, uint64_t h, unsigned chans);

/* Bytes [b0, b0 + n) of texture row y, byte b being channel b % chans of pixel b / chans. */
void img_tex_row(const struct img_tex *t, uint64_t y, uint64_t b0, size_t n, uint8_t *out);

/* The hash of the texture tile last asked for, to ask again; valid false at first. */
struct img_tex_tile {
	bool valid;
	uint64_t tx, ty, hash;
};

/* Channel c of pixel (x, y) without the noise: a local mean; tile: a memo of its caller's. */
static inline int img_tex_mean(const struct img_tex *t, struct img_tex_tile *tile, uint64_t x,
			       uint64_t y, unsigned c)
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

#endif
