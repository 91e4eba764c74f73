/* gif.c - GIF: header and palette, comment padding, one image of fixed-width LZW codes */
#include <errno.h>
#include <string.h>

#include "content/gen.h"
#include "content/image/image.h"

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
#define GIF_REF_LONGEST 16u /* pixels of the longest entry a reference names */
#define GIF_REF_RECENT	8u  /* a reference names one of the last entries made */

/*
 * References (gen_file.boost below -65535): literal codes fill only the
 * lower half of the code space, m of their m + 1 bits (8-bit codes are
 * byte aligned: gzip -6 takes 6-10% off files of 3-6 KB), where a real
 * coder's codes are mostly string-table entries, the upper half.  A draw
 * of the file gives each place of a clear-to-clear run a literal or a
 * reference to an entry of a given length, the same in every run: a run
 * then holds as many pixels, and a code is known from its index alone;
 * which entry of that length it names is drawn for the code.  Names of
 * the last entries made fill the upper half evenly; references at 0.4 of
 * the places, the most, balance the halves of 8-bit codes (more and
 * gzip takes more off again).
 */
struct gif_refs {
	uint64_t key;
	uint32_t share;	    /* places that are references, by 163838: 0..0.4 (0: none) */
	unsigned m;	    /* the code size drawn for (0: none yet) */
	uint64_t px;	    /* pixels of a run */
	uint8_t len[256];   /* pixels of the code at each place (1: a literal) */
	uint8_t avail[256]; /* a reference: the entries of its length made before it */
	uint8_t nplace[GIF_REF_LONGEST + 1];
	uint8_t place[GIF_REF_LONGEST + 1][256]; /* places whose entries have each length */
};

struct gif_layout {
	uint64_t w, h;
	unsigned bits;	  /* palette of 2^bits colours */
	unsigned m;	  /* LZW minimum code size; codes are m + 1 bits */
	uint64_t comment; /* comment extension bytes: 0 or at least GIF_COMMENT_MIN */
	uint64_t pixels, run, ncodes, data, nsub;
	uint64_t comment_at, blocks_at, end_at;
	uint64_t full; /* with references: runs of the draw, the other pixels literal */
	struct gif_refs refs;
};

#define SALT_REF  UINT64_C(0x7265666572)
#define SALT_PICK UINT64_C(0x7069636b)

/*
 * Draw f for codes of m + 1 bits.  The entry a code at place j >= 2 adds
 * (index clear + j) is the string of place j - 1 and one pixel more; a
 * reference at j names one made before it (no code naming the entry it
 * adds itself), one of the last GIF_REF_RECENT, and takes its length.
 */
static void gif_refs_draw(struct gif_refs *f, unsigned m, uint64_t run)
{
	f->m = m;
	f->px = 0;
	memset(f->nplace, 0, sizeof(f->nplace));
	f->len[0] = 0;
	for (unsigned j = 1; j <= run; j++) {
		unsigned len = 1;

		if (j >= 3 && img_hash(f->key, SALT_REF, j) % 163838 < f->share) {
			unsigned d = (unsigned)(img_hash(f->key, ~SALT_REF, j) % GIF_REF_RECENT);
			unsigned e = j - 1 > d + 2 ? j - 1 - d : 2;

			if (f->len[e - 1] + 1u <= GIF_REF_LONGEST) {
				len = f->len[e - 1] + 1u;
				f->avail[j] = f->nplace[len];
			}
		}
		f->len[j] = (uint8_t)len;
		f->px += len;
		if (j >= 2 && f->len[j - 1] + 1u <= GIF_REF_LONGEST) {
			unsigned el = f->len[j - 1] + 1u;

			f->place[el][f->nplace[el]++] = (uint8_t)j;
		}
	}
}

/* Derive the rest of l from w, h and bits; returns the file size without the comment. */
static uint64_t gif_measure(void *layout)
{
	struct gif_layout *l = layout;

	l->m = l->bits < 2 ? 2 : l->bits;
	l->pixels = l->w * l->h;
	/*
	 * After a clear, each literal but the first adds a table entry, and the
	 * decoder widens its codes when the next entry would need m + 2 bits:
	 * 2^m - 2 literals is the most that stay at m + 1 bits (giflib and
	 * netpbm reject one more).
	 */
	l->run = (UINT64_C(1) << l->m) - 2;
	if (l->refs.share) {
		uint64_t tail;

		if (l->refs.m != l->m)
			gif_refs_draw(&l->refs, l->m, l->run);
		l->full = l->pixels / l->refs.px;
		tail = l->pixels % l->refs.px;
		l->ncodes = l->full * (l->run + 1) + tail + (tail + l->run - 1) / l->run + 1;
	} else {
		l->ncodes = l->pixels + (l->pixels + l->run - 1) / l->run + 1;
	}
	l->data = (l->ncodes * (l->m + 1) + 7) / 8;
	l->nsub = (l->data + 254) / 255;
	return GIF_HEAD + (UINT64_C(3) << l->bits) + GIF_IMAGE + l->nsub + l->data + 2;
}

/* Returns 0, or -EINVAL when no GIF has this size; refs: gif_refs.share. */
static int gif_layout(uint64_t key, uint64_t size, uint32_t refs, struct gif_layout *l)
{
	uint64_t cap = size - GIF_COMMENT_MIN, px;

	memset(l, 0, sizeof(*l));
	l->refs.key = key;
	l->refs.share = refs;
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
	px = (cap - gif_measure(l)) * 8 / (l->m + 2);
	if (refs)
		px = px * l->refs.px / l->run; /* a run's codes hold more pixels */
	l->w = img_width(key, px, GIF_MAX_DIM);
	img_fit_field(&l->w, l->w, cap, gif_measure, l);
	img_fit_field(&l->h, GIF_MAX_DIM, cap, gif_measure, l);
	/* the least field is taken unmeasured: with references, sizes are not monotonic */
	if (refs && gif_measure(l) > cap)
		return gif_layout(key, size, 0, l);
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
	/*
	 * A profile's ratio (ext_content, gen_file.boost below 0): the share
	 * by noise / 65535 of the clear-to-clear runs whose pixels are noise
	 * (any palette entry) rather than the texture (real GIFs are LZW
	 * coded, gzip -6 about 1.01; literal codes of a smooth texture
	 * compress more); 0: none (the default).  Below -65535 every run
	 * is noise, and (-boost - 65535) / 65535 of 0.4 of the codes are
	 * references (gif_refs), down to GEN_GIF_BOOST_LEAST.
	 */
	uint32_t noise;
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

#define SALT_NOISE UINT64_C(0x6E6F697365)

/* Whether the pixels of clear-to-clear run r are noise (gif_gen.noise). */
static int gif_noise_run(const struct gif_gen *g, uint64_t r)
{
	return g->noise && img_hash(g->key, SALT_NOISE, r) % 65535 < g->noise;
}

/* Pixels [p, p + n) as bytes whose top l.bits bits are the palette index (the literal code). */
static void gif_pixels(const struct gif_gen *g, uint64_t p, uint8_t *px, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint64_t y = (p + i) / g->l.w, x = (p + i) % g->l.w;
		size_t k = (size_t)IMG_MIN((uint64_t)(n - i), g->l.w - x);

		img_tex_row(&g->t, y, x, k, px + i);
		i += k;
	}
	for (size_t i = 0; g->noise && i < n;) {
		uint64_t r = (p + i) / g->l.run;
		size_t k = (size_t)IMG_MIN((uint64_t)(n - i), (r + 1) * g->l.run - (p + i));

		for (size_t j = i; j < i + k && gif_noise_run(g, r); j++)
			px[j] = (uint8_t)(img_hash(g->key, ~SALT_NOISE, p + j) >> 56);
		i += k;
	}
}

#define GIF_PIECE 255u

/* Code k of the LZW stream (after k, r is k + 1's place in its clear-to-clear run). */
static inline uint32_t gif_code(const struct gif_layout *l, uint64_t k, uint32_t clear,
				unsigned period, unsigned *r, const uint8_t **next)
{
	uint32_t code;

	if (k == l->ncodes - 1)
		code = clear + 1; /* end of information */
	else if (!*r)
		code = clear;
	else
		code = (uint32_t)*(*next)++ >> (8 - l->bits);
	if (++*r == period)
		*r = 0;
	return code;
}

/* Append code to the pending bits, LSB first; whole 32 bits go to b at o. */
static inline void gif_put(uint64_t *acc, unsigned *nacc, uint32_t code, unsigned width,
			   uint8_t *b, size_t *o)
{
	*acc |= (uint64_t)code << *nacc;
	*nacc += width;
	if (*nacc >= 32) {
		put_le32(b + *o, (uint32_t)*acc);
		*o += 4;
		*acc >>= 32;
		*nacc -= 32;
	}
}

/*
 * LZW bytes [d, d + n), n <= GIF_PIECE: codes packed LSB first, each a
 * function of its index.  Bytes go four at a time into a buffer of the
 * piece (its codes end at most 2 bytes past it, a store writes 4), of
 * which the first n are the piece's, zeros after the codes' last byte.
 */
static void gif_lzw_piece(const struct gif_gen *g, uint64_t d, uint8_t *out, size_t n)
{
	const struct gif_layout *l = &g->l;
	unsigned width = l->m + 1, period = (unsigned)l->run + 1, shift = 8 - l->bits;
	uint32_t clear = 1u << l->m;
	uint64_t k = d * 8 / width, kend = IMG_MIN(l->ncodes, ((d + n) * 8 + width - 1) / width);
	uint64_t p0 = gif_lits_before(l, k), p1 = IMG_MIN(l->pixels, gif_lits_before(l, kend));
	uint64_t kmid = IMG_MIN(kend, l->ncodes - 1), acc;
	unsigned skip = (unsigned)(d * 8 % width), nacc, r = (unsigned)(k % period);
	uint8_t px[GIF_PIECE * 8 / 3 + 4], b[GIF_PIECE + 8];
	const uint8_t *next = px;
	size_t o = 0;

	gif_pixels(g, p0, px, (size_t)(p1 - p0));
	if (k >= kend) {
		memset(out, 0, n);
		return;
	}
	/* the first code less its bits before d */
	acc = gif_code(l, k, clear, period, &r, &next) >> skip;
	nacc = width - skip;
	/* the codes between, run by run: a clear, then literals */
	for (k++; k < kmid;) {
		unsigned lits;

		if (!r) {
			gif_put(&acc, &nacc, clear, width, b, &o);
			k++;
			r = 1;
			continue;
		}
		lits = (unsigned)IMG_MIN(kmid - k, (uint64_t)(period - r));
		for (unsigned i = 0; i < lits; i++)
			gif_put(&acc, &nacc, (uint32_t)*next++ >> shift, width, b, &o);
		k += lits;
		r += lits;
		if (r == period)
			r = 0;
	}
	if (k < kend) {
		acc |= (uint64_t)gif_code(l, k, clear, period, &r, &next) << nacc;
		nacc += width;
	}
	/* the last byte's spare bits are zero */
	for (; nacc > 0; nacc = nacc > 8 ? nacc - 8 : 0) {
		b[o++] = (uint8_t)acc;
		acc >>= 8;
	}
	memcpy(out, b, IMG_MIN(o, n));
	if (o < n)
		memset(out + o, 0, n - o);
}

/* Code k of a stream with references (gif_refs); 0 past its end. */
static uint32_t gif_ref_code(const struct gif_gen *g, uint64_t k)
{
	const struct gif_layout *l = &g->l;
	const struct gif_refs *f = &l->refs;
	uint64_t period = l->run + 1, r = k % period;
	uint32_t clear = 1u << l->m;
	unsigned len;

	if (k >= l->ncodes)
		return 0;
	if (k == l->ncodes - 1)
		return clear + 1;
	if (k >= l->full * period) /* the literal runs after the drawn ones */
		r = (k - l->full * period) % period;
	if (!r)
		return clear;
	len = k < l->full * period ? f->len[r] : 1;
	if (len == 1)
		return (uint8_t)(img_hash(g->key, ~SALT_NOISE, k) >> 56) >> (8 - l->bits);
	return clear +
	       f->place[len][f->avail[r] - 1 -
			     img_hash(g->key, SALT_PICK, k) % IMG_MIN(f->avail[r], GIF_REF_RECENT)];
}

/* LZW bytes [d, d + n) of a stream with references, codes packed LSB first. */
static void gif_lzw_refs(const struct gif_gen *g, uint64_t d, uint8_t *out, size_t n)
{
	unsigned width = g->l.m + 1, skip = (unsigned)(d * 8 % width), nacc = width - skip;
	uint64_t k = d * 8 / width, acc = gif_ref_code(g, k++) >> skip;

	for (size_t o = 0; o < n; o++) {
		for (; nacc < 8; nacc += width)
			acc |= (uint64_t)gif_ref_code(g, k++) << nacc;
		out[o] = (uint8_t)acc;
		acc >>= 8;
		nacc -= 8;
	}
}

static void gif_lzw(const struct gif_gen *g, uint64_t d, uint8_t *out, size_t n)
{
	if (g->l.refs.share) {
		gif_lzw_refs(g, d, out, n);
		return;
	}
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
			uint64_t p = at - 2, j = img_split_part(t, nsub, p);
			uint64_t s = img_split_start(t, nsub, j),
				 e = img_split_start(t, nsub, j + 1);

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

static int64_t gif_part(void *ctx, uint64_t off, uint8_t *buf, size_t len)
{
	const struct gif_gen *g = ctx;
	const struct gif_layout *l = &g->l;
	size_t k;

	if (off < l->comment_at) {
		uint8_t h[GIF_HEAD + 3 * 256];

		gif_head(g, h);
		k = img_part(buf, h, off, (size_t)IMG_MIN((uint64_t)len, l->comment_at - off));
	} else if (off < l->comment_at + l->comment) {
		k = gif_comment(g, off - l->comment_at, buf, len);
	} else if (off < l->blocks_at) {
		uint8_t d[GIF_IMAGE] = { 0x2c, 0, 0, 0, 0 };

		put_le16(d + 5, (uint32_t)l->w);
		put_le16(d + 7, (uint32_t)l->h);
		d[9] = 0; /* no local colour table, not interlaced */
		d[10] = (uint8_t)l->m;
		k = img_part(buf, d, off - (l->blocks_at - GIF_IMAGE),
			     (size_t)IMG_MIN((uint64_t)len, l->blocks_at - off));
	} else if (off < l->end_at) {
		k = gif_blocks(g, off - l->blocks_at, buf, len);
	} else {
		static const uint8_t tail[2] = { 0x00, 0x3b }; /* block terminator, trailer */

		k = img_part(buf, tail, off - l->end_at, len);
	}
	return (int64_t)k;
}

static int gif_fill(const struct gen_file *f, uint64_t off, uint8_t *buf, size_t len)
{
	int64_t b = f->boost < GEN_GIF_BOOST_LEAST ? GEN_GIF_BOOST_LEAST : f->boost;
	struct gif_gen g = { .key = f->key, .noise = b < 0 ? (uint32_t)IMG_MIN(-b, 65535) : 0 };

	if (gen_check_request(f, GIF_MIN, off, len))
		return -EINVAL;
	if (gif_layout(f->key, f->size, b < -65535 ? (uint32_t)(-b - 65535) : 0, &g.l))
		return -EINVAL;
	img_tex_init(&g.t, f->key, g.l.w, g.l.h, 1);
	return img_fill_parts(&g, off, buf, len, gif_part);
}

const struct gen_ops gen_gif_ops = {
	.name = "gif",
	.min_size = GIF_MIN,
	.fill = gif_fill,
};
