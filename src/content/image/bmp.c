/* bmp.c - BMP: file and info headers, a gap before the pixels, 24-bit bottom-up rows */
#include <errno.h>
#include <string.h>

#include "content/gen.h"
#include "content/image/image.h"

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

struct bmp_gen {
	struct bmp_layout l;
	struct img_tex t;
	uint64_t size, pixels_at;
};

static int64_t bmp_part(void *ctx, uint64_t off, uint8_t *buf, size_t len)
{
	const struct bmp_gen *g = ctx;
	const struct bmp_layout *l = &g->l;
	size_t k;

	if (off < BMP_HEAD) {
		uint8_t h[BMP_HEAD];

		bmp_head(l, g->size, h);
		return (int64_t)img_part(buf, h, off,
					 (size_t)IMG_MIN((uint64_t)len, BMP_HEAD - off));
	}
	if (off < g->pixels_at) {
		k = (size_t)IMG_MIN((uint64_t)len, g->pixels_at - off);
		memset(buf, 0, k);
	} else {
		uint64_t p = off - g->pixels_at, r = p / l->stride, b = p % l->stride;

		if (b < 3 * l->w) {
			k = (size_t)IMG_MIN((uint64_t)len, 3 * l->w - b);
			img_tex_row(&g->t, l->h - 1 - r, b, k, buf);
		} else {
			k = (size_t)IMG_MIN((uint64_t)len, l->stride - b);
			memset(buf, 0, k);
		}
	}
	return (int64_t)k;
}

static int bmp_fill(const struct gen_file *f, uint64_t off, uint8_t *buf, size_t len)
{
	struct bmp_gen g = { .size = f->size };

	if (gen_check_request(f, BMP_MIN, off, len))
		return -EINVAL;
	bmp_layout(f->key, f->size, &g.l);
	img_tex_init(&g.t, f->key, g.l.w, g.l.h, 3);
	g.pixels_at = BMP_HEAD + g.l.gap;
	return img_fill_parts(&g, off, buf, len, bmp_part);
}

const struct gen_ops gen_bmp_ops = {
	.name = "bmp",
	.min_size = BMP_MIN,
	.fill = bmp_fill,
};
