/* png.c - PNG: signature, IHDR, tEXt padding, IDAT chunks of stored deflate blocks, IEND */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>

#include "content/gen.h"
#include "content/image/image.h"

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
static uint64_t png_measure(void *layout)
{
	struct png_layout *l = layout;

	l->row = 1 + l->w * l->chans;
	l->raw = l->row * l->h;
	l->nstored = (l->raw + PNG_STORED - 1) / PNG_STORED;
	l->zlen = 2 + 5 * l->nstored + l->raw + 4;
	l->nidat = (l->zlen + PNG_IDAT - 1) / PNG_IDAT;
	return PNG_HEAD + 12 * l->nidat + l->zlen + PNG_IEND;
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
	img_fit_field(&l->w, l->w, cap, png_measure, l);
	img_fit_field(&l->h, IMG_MIN(PNG_MAX_DIM, cap / l->row + 1), cap, png_measure, l);
	l->text = size - png_measure(l);
out_offsets:
	l->ctype = l->chans == 1 ? 0 : l->chans == 3 ? 2 : 6;
	l->idat_at = PNG_HEAD + l->text;
	l->iend_at = size - PNG_IEND;
}

struct png_gen {
	struct png_layout l;
	struct img_tex t;
	struct img_tex own; /* a shared prefix: the raw bytes from split on */
	uint64_t split;	    /* raw bytes [0, split) of t (l.raw: all of them) */
	uint64_t tkey;	    /* the text after IHDR */
	uint64_t extra;	    /* a shared prefix: bytes of the tEXt chunk before IEND (0: none) */
	bool own_text;	    /* the text being made is that chunk's (of key, not tkey) */
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
			const struct img_tex *t = &p->t;

			k = (size_t)IMG_MIN((uint64_t)n, p->l.row - col);
			if (i < p->split)
				k = (size_t)IMG_MIN((uint64_t)k, p->split - i);
			else
				t = &p->own;
			img_tex_row(t, y, col - 1, k, out);
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
	uint64_t key = p->own_text ? p->key : p->tkey;

	if (doff < sizeof(keyword)) {
		size_t k = (size_t)IMG_MIN((uint64_t)n, sizeof(keyword) - doff);

		memcpy(out, keyword + doff, k);
		doff += k;
		out += k;
		n -= k;
	}
	img_words(key, doff - sizeof(keyword), out, n);
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
		png_crc_run.crc = gen_crc32(0, (const uint8_t *)type, 4);
	}
	if (doff != png_crc_run.covered)
		return;
	png_crc_run.crc = gen_crc32(png_crc_run.crc, data, n);
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
	put_be32(h + 29, gen_crc32(0, h + 12, 17));
}

static int64_t png_part(void *ctx, uint64_t off, uint8_t *buf, size_t len)
{
	static const uint8_t iend[PNG_IEND] = { 0,   0,	  0,	0,    'I',  'E',
						'N', 'D', 0xae, 0x42, 0x60, 0x82 };
	struct png_gen *p = ctx;
	const struct png_layout *l = &p->l;
	size_t k;

	if (off < PNG_HEAD) {
		uint8_t h[PNG_HEAD];

		png_head(l, h);
		k = img_part(buf, h, off, (size_t)IMG_MIN((uint64_t)len, PNG_HEAD - off));
	} else if (off < l->idat_at) {
		p->own_text = false;
		k = png_chunk(p, PNG_HEAD, "tEXt", l->text - 12, png_text_data, off - PNG_HEAD, buf,
			      len);
	} else if (off < l->iend_at) {
		uint64_t c = (off - l->idat_at) / (PNG_IDAT + 12);
		uint64_t dlen = IMG_MIN((uint64_t)PNG_IDAT, l->zlen - c * PNG_IDAT);
		uint64_t at = l->idat_at + c * (PNG_IDAT + 12);

		p->zbase = c * PNG_IDAT;
		k = png_chunk(p, at, "IDAT", dlen, png_idat_data, off - at, buf, len);
	} else if (off < l->iend_at + p->extra) {
		/* the file's own text, after the group's image */
		p->own_text = true;
		k = png_chunk(p, l->iend_at, "tEXt", p->extra - 12, png_text_data, off - l->iend_at,
			      buf, len);
	} else {
		k = img_part(buf, iend, off - l->iend_at - p->extra, len);
	}
	return (int64_t)k;
}

/*
 * The raw byte at which a file of a shared prefix of plen bytes parts from
 * its group: the first whose place in the file is plen or after.
 */
static uint64_t png_split(const struct png_layout *l, uint64_t plen)
{
	uint64_t c, pos, z, q, r;

	if (plen <= l->idat_at)
		return 0;
	if (plen >= l->iend_at)
		return l->raw;
	c = (plen - l->idat_at) / (PNG_IDAT + 12);
	pos = (plen - l->idat_at) % (PNG_IDAT + 12);
	z = c * PNG_IDAT + (pos < 8 ? 0 : IMG_MIN(pos - 8, (uint64_t)PNG_IDAT));
	if (z < 2)
		return 0;
	q = (z - 2) / (PNG_STORED + 5);
	r = (z - 2) % (PNG_STORED + 5);
	return IMG_MIN(l->raw, q * PNG_STORED + (r < 5 ? 0 : r - 5));
}

/*
 * A file of a shared prefix (g->plen, gen.h) is its group's image: the
 * layout of the group's smallest size (g->psize) and key (g->pkey), its
 * raw bytes the group's up to where the file's bytes reach plen, then
 * noise of its own on the same texture; a larger file ends with a tEXt
 * chunk of its own before IEND (extc.c makes the group's image the size
 * of its smallest file, or PNG_TEXT_MIN or more below each file's).  Its
 * chunks' CRCs and the Adler-32 sum its own bytes.
 */
static int png_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	uint64_t lkey = g->plen ? g->pkey : g->key, lsize = g->plen ? g->psize : g->size;
	struct png_gen p = { .key = g->key, .size = g->size, .tkey = lkey };

	if (gen_check_request(g, PNG_MIN, off, len))
		return -EINVAL;
	if (g->plen && (lsize > g->size || lsize < PNG_MIN ||
			(g->size - lsize && g->size - lsize < PNG_TEXT_MIN)))
		return -EINVAL;
	png_layout(lkey, lsize, &p.l);
	img_tex_init(&p.t, lkey, p.l.w, p.l.h, p.l.chans);
	/*
	 * A real PNG holds deflated pixels, which hardly compress again
	 * (gzip -6 1.08 over /usr/share): these stored ones are noisy
	 * enough for the same, 6 or 7 bits of noise wrapping around.
	 */
	p.t.noise = img_hash(lkey, 0x706e67, 1) % 4 ? 0x3f : 0x7f;
	p.t.wrap = true;
	p.own = p.t;
	p.own.key = g->key;
	p.split = g->plen ? png_split(&p.l, g->plen) : p.l.raw;
	p.extra = g->size - lsize;
	return img_fill_parts(&p, off, buf, len, png_part);
}

const struct gen_ops gen_png_ops = {
	.name = "png",
	.min_size = PNG_MIN,
	.whole = 1, /* the Adler-32 trailer sums the whole image */
	.fill = png_fill,
};
