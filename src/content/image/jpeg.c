/* jpeg.c - baseline JPEG (YCbCr 4:2:0): headers, Huffman tables, restart intervals of fixed size */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "content/gen.h"
#include "content/image/image.h"

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

/*
 * An AC draw's coefficient by its low 8 bits (zero run, magnitude
 * category: jpeg_run_of, jpeg_cat_of) and sign, per position class: its
 * code followed by the top bit of its magnitude (base; a negative value's
 * extra bits are the complement of its magnitude, so there base is
 * complemented below the code), the mask of the magnitude's other bits
 * (low: drawn, complemented with base), and the bits it takes.
 */
struct jpeg_ac {
	uint32_t base;
	uint16_t low;
	uint8_t len;  /* below 32 */
	uint8_t step; /* the zero run and one: to the coefficient's position */
};

/* The index of draw z's coefficient in its class (jpeg_huff.ac): low 8 bits, sign (bit 20). */
static inline unsigned jpeg_ac_index(uint64_t z)
{
	return (unsigned)(z & 255) | (unsigned)(z >> 12 & 256);
}

struct jpeg_gen {
	struct jpeg_layout l;
	struct img_tex t;
	uint64_t key, size;
	/*
	 * A profile's ratio (ext_content, gen_file.boost above 0): the share
	 * by tile / 65535 of restart intervals that are a pattern, every MCU
	 * after the first coded alike (real JPEGs above gzip -6 1.1 are
	 * drawings: backgrounds, stripes, graphs, whose blocks repeat); 0:
	 * none (the default).
	 */
	uint32_t tile;
};

/* The codes of the Huffman tables and the AC draws' table: the same for every file, made once. */
static struct {
	uint16_t dc_code[12], ac_code[256];
	uint8_t dc_len[12], ac_len[256];
	struct jpeg_ac ac[2][512]; /* by jpeg_ac_index */
} jpeg_huff;

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

/* Bytes n.. of p (cap of them) for 32 bits w, each 0xFF stuffed; returns the new n. */
static size_t jpeg_stuff32(uint8_t *p, size_t n, size_t cap, uint32_t w)
{
	struct jpeg_bits b = { .p = p, .n = n, .cap = cap };

	for (int sh = 24; sh >= 0; sh -= 8)
		jpeg_byte(&b, (uint8_t)(w >> sh));
	return b.n;
}

/*
 * Emit the oldest 32 pending bits once there are as many: four bytes at
 * once unless one is 0xFF.  Inline, with the rare stuffing apart, so that
 * a caller's local jpeg_bits stays in registers.
 */
static inline void jpeg_put(struct jpeg_bits *b, uint32_t code, unsigned len)
{
	b->acc = (b->acc << len) | code;
	b->nacc += len;
	if (b->nacc >= 32) {
		uint32_t w = (uint32_t)(b->acc >> (b->nacc - 32)), nw = ~w;

		b->nacc -= 32;
		if (!((nw - 0x01010101u) & ~nw & 0x80808080u) && b->n + 4 <= b->cap) {
			put_be32(b->p + b->n, w);
			b->n += 4;
		} else {
			b->n = jpeg_stuff32(b->p, b->n, b->cap, w);
		}
	}
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

/* The codes and, from them, the AC draws' table (jpeg_huff). */
static void jpeg_huff_build(void)
{
	jpeg_codes(jpeg_dc_bits, jpeg_dc_vals, jpeg_huff.dc_code, jpeg_huff.dc_len);
	jpeg_codes(jpeg_ac_bits, jpeg_ac_vals, jpeg_huff.ac_code, jpeg_huff.ac_len);
	for (unsigned c = 0; c < 2; c++)
		for (unsigned z = 0; z < 512; z++) {
			unsigned run = jpeg_run_of[z & 15], cat = jpeg_cat_of[c][z >> 4 & 15];
			unsigned sym = run << 4 | cat, neg = z >> 8;
			struct jpeg_ac *a = &jpeg_huff.ac[c][z];

			a->base = (uint32_t)jpeg_huff.ac_code[sym] << cat | 1u << (cat - 1);
			if (neg)
				a->base ^= (1u << cat) - 1;
			a->low = (uint16_t)((1u << (cat - 1)) - 1);
			a->len = (uint8_t)(jpeg_huff.ac_len[sym] + cat);
			a->step = (uint8_t)(run + 1);
		}
}

static pthread_once_t jpeg_huff_once = PTHREAD_ONCE_INIT;

/* Code one block: DC towards dc_target, then AC coefficients until the block's target. */
static inline __attribute__((always_inline)) void
jpeg_block(struct jpeg_bits *out, int *pred, int dc_target, uint64_t seed, uint64_t target,
	   unsigned later, uint64_t cap)
{
	/* a local copy: the output bytes cannot alias it, so it stays in registers */
	struct jpeg_bits w = *out, *b = &w;
	/*
	 * An AC put of len bits stops the block when jpeg_bits_now + len + 3
	 * exceeds target or jpeg_fits fails: the same bounds on 8 n + nacc +
	 * len (soft) and 8 n + 2 nacc + 2 len (hard), signed.
	 */
	int64_t soft = (int64_t)target - 3, hard = (int64_t)cap - 20 - 10 * (int64_t)later;
	/* up to sure, both hold (nacc + len is below 63: each below 32) */
	int64_t sure = IMG_MIN(soft, hard - 63);
	uint64_t s = seed;
	unsigned cat, last = 0, pos = 0;
	uint32_t extra;
	int diff = dc_target - *pred;

	cat = jpeg_cat(diff, &extra);
	if (!jpeg_fits(b, jpeg_huff.dc_len[cat] + cat, later, cap)) {
		diff = 0;
		cat = jpeg_cat(0, &extra);
	}
	jpeg_put(b, (uint32_t)jpeg_huff.dc_code[cat] << cat | extra, jpeg_huff.dc_len[cat] + cat);
	*pred += diff;
	for (;;) {
		uint64_t z = rng_splitmix64(s += UINT64_C(0x9E3779B97F4A7C15));

		/* one 64-bit draw makes up to three coefficients, 21 bits each */
		for (unsigned d = 0; d < 3; d++, z >>= 21) {
			unsigned i = jpeg_ac_index(z);
			const struct jpeg_ac *a = &jpeg_huff.ac[1][i];
			int64_t now;

			/* the step is the same in both classes */
			pos += a->step;
			if (pos > 63)
				goto out_eob;
			if (pos <= 5)
				a = &jpeg_huff.ac[0][i];
			now = 8 * (int64_t)b->n + b->nacc + a->len;
			if (now > sure && (now > soft || now + b->nacc + a->len > hard))
				goto out_eob;
			jpeg_put(b, a->base ^ ((uint32_t)(z >> 8) & a->low), a->len);
			last = pos;
		}
	}
out_eob:
	if (last < 63)
		jpeg_put(b, jpeg_huff.ac_code[0x00], jpeg_huff.ac_len[0x00]);
	*out = w;
}

#define JPEG_INTERVAL (JPEG_RST * JPEG_MCU + 2)
#define SALT_TILE     UINT64_C(0x74696C65)
#define JPEG_ALIGN    32u /* the least bits a tile's chroma block gives up to end on a byte */

/*
 * How many MCUs at the end of restart interval i are a pattern
 * (jpeg_gen.tile): the file's share of them, spread evenly over its
 * intervals from a phase of the file's own, so that a file of a few
 * intervals holds its share too.
 */
static unsigned jpeg_tiles(const struct jpeg_gen *j, uint64_t i, unsigned m)
{
	uint64_t phase = img_hash(j->key, SALT_TILE, 0) % 65535, t = j->tile * (uint64_t)JPEG_RST;
	uint64_t c = (phase + (i + 1) * t) / 65535 - (phase + i * t) / 65535;

	return (unsigned)IMG_MIN(c, (uint64_t)m);
}

/*
 * Code MCU u of a pattern (tiled): the blocks of the pattern's seed, its
 * DC values dc, luma blocks of busy, chroma 2 by sum of spend; the last
 * chroma block adj bits short.
 */
static void jpeg_tile_mcu(struct jpeg_bits *b, int *pred, const int *dc, uint64_t seed,
			  unsigned busy, uint64_t sum, uint64_t spend, unsigned adj, unsigned later,
			  uint64_t cap)
{
	for (unsigned k = 0; k < 6; k++) {
		uint64_t q = spend * (k < 4 ? busy : 2) / sum;

		if (k == 5)
			q = q > adj ? q - adj : 0;
		jpeg_block(b, &pred[k < 4 ? 0 : k - 3], dc[k < 4 ? 0 : k - 3],
			   img_hash(seed, 0, k), jpeg_bits_now(b) + q, later + 5 - k, cap);
	}
}

/* Component c's DC value (Y, Cb, Cr) towards the texture's mean at (x, y); tile: img_tex_mean's. */
static int jpeg_dc(const struct jpeg_gen *j, struct img_tex_tile *tile, uint64_t x, uint64_t y,
		   unsigned c)
{
	int v = img_tex_mean(&j->t, tile, x, y, c) - 128;

	return c ? v * 4 / JPEG_QDC : v * 8 / JPEG_QDC;
}

/* Code restart interval i into out; returns its length in bytes or -EOVERFLOW. */
static int jpeg_interval(const struct jpeg_gen *j, uint64_t i, uint8_t *out)
{
	const struct jpeg_layout *l = &j->l;
	uint64_t first = i * JPEG_RST;
	unsigned m = (unsigned)IMG_MIN((uint64_t)JPEG_RST, l->mcus - first), nb = 6 * m;
	uint64_t cap = 8 * (uint64_t)m * JPEG_MCU, spend = cap - 32, sum = 0, acc = 0;
	struct jpeg_bits b = { .p = out, .cap = (size_t)m * JPEG_MCU };
	unsigned busy[JPEG_RST], tiles = j->tile ? jpeg_tiles(j, i, m) : 0, adj = 0;
	int pred[3] = { 0, 0, 0 }, tdc[3];
	uint64_t mx, my, seed, rx = UINT64_MAX, ry = UINT64_MAX;
	struct img_tex_tile tile = { .valid = false };
	unsigned region = 0;

	/* luma gets the bits, more in busy regions of 64x64 pixels (4x4 MCUs) */
	mx = first % l->mw;
	my = first / l->mw;
	for (unsigned u = 0; u < m; u++) {
		if (mx >> 2 != rx || my >> 2 != ry) {
			rx = mx >> 2;
			ry = my >> 2;
			region = 6 + (unsigned)(img_hash(j->key, rx, ry) % 12);
		}
		busy[u] = region;
		if (u > m - tiles)
			busy[u] = busy[m - tiles];
		sum += 4 * busy[u] + 4;
		if (++mx == l->mw) {
			mx = 0;
			my++;
		}
	}
	mx = first % l->mw;
	my = first / l->mw;
	for (unsigned u = 0; u < m - tiles; u++) {
		for (unsigned k = 0; k < 6; k++) {
			unsigned comp = k < 4 ? 0 : k - 3, t = 6 * u + k;
			int dc;

			if (k < 4) {
				uint64_t x = 16 * mx + 8 * (k & 1) + 4,
					 y = 16 * my + 8 * (k >> 1) + 4;

				dc = jpeg_dc(j, &tile, x, y, 0);
			} else {
				dc = jpeg_dc(j, &tile, 16 * mx + 8, 16 * my + 8, comp);
			}
			acc += k < 4 ? busy[u] : 2;
			jpeg_block(&b, &pred[comp], dc,
				   img_hash(j->key ^ 0x6a6163, first + u, k), spend * acc / sum,
				   nb - 1 - t, cap);
		}
		if (++mx == l->mw) {
			mx = 0;
			my++;
		}
	}
	/*
	 * The pattern: its first MCU's DC values (the texture's there) in every
	 * MCU, so that all after the first code alike (DC differences 0), each
	 * block its share of the bits; the second ends on a byte (its chroma
	 * block up to JPEG_ALIGN bits short), so that the bytes repeat too.
	 */
	seed = img_hash(j->key ^ 0x6a6163, first + m - tiles, SALT_TILE);
	for (unsigned u = m - tiles; u < m; u++) {
		unsigned later = nb - 6 * (u + 1);

		if (u == m - tiles) {
			for (unsigned c = 0; c < 3; c++)
				tdc[c] = jpeg_dc(j, &tile, 16 * mx + 8, 16 * my + 8, c);
		}
		if (u == m - tiles + 1) {
			struct jpeg_bits t0 = b;
			int p0[3] = { pred[0], pred[1], pred[2] };

			for (adj = 0; adj < JPEG_ALIGN; adj++) {
				b = t0;
				memcpy(pred, p0, sizeof(p0));
				jpeg_tile_mcu(&b, pred, tdc, seed, busy[u], sum, spend, adj, later,
					      cap);
				if ((jpeg_bits_now(&b) - jpeg_bits_now(&t0)) % 8 == 0)
					break;
			}
			adj %= JPEG_ALIGN;
			b = t0;
			memcpy(pred, p0, sizeof(p0));
		}
		jpeg_tile_mcu(&b, pred, tdc, seed, busy[u], sum, spend, adj, later, cap);
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
	uint32_t tile;
	uint64_t key, size, i;
	unsigned n;
	uint8_t bytes[JPEG_INTERVAL];
} jpeg_last;

/* Bytes of the COM segments from position pos, up to n and their end. */
static size_t jpeg_com(const struct jpeg_gen *j, uint64_t pos, uint8_t *buf, size_t n)
{
	uint64_t s = img_split_part(j->l.com, j->l.ncom, pos);
	uint64_t start = img_split_start(j->l.com, j->l.ncom, s),
		 end = img_split_start(j->l.com, j->l.ncom, s + 1);
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

static int64_t jpeg_part(void *ctx, uint64_t off, uint8_t *buf, size_t len)
{
	static const uint8_t app0[JPEG_APP0] = {
		0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
	};
	const struct jpeg_gen *j = ctx;
	const struct jpeg_layout *l = &j->l;
	size_t k;

	if (off < JPEG_APP0) {
		k = img_part(buf, app0, off, (size_t)IMG_MIN((uint64_t)len, JPEG_APP0 - off));
	} else if (off < JPEG_APP0 + l->com) {
		k = jpeg_com(j, off - JPEG_APP0, buf, len);
	} else if (off < l->data_at) {
		uint8_t h[JPEG_TABLES];

		jpeg_tables(l, h);
		k = img_part(buf, h, off - (l->data_at - JPEG_TABLES),
			     (size_t)IMG_MIN((uint64_t)len, l->data_at - off));
	} else if (off < l->eoi_at) {
		uint64_t i = (off - l->data_at) / JPEG_INTERVAL,
			 at = off - l->data_at - i * JPEG_INTERVAL;

		if (!jpeg_last.valid || jpeg_last.key != j->key || jpeg_last.size != j->size ||
		    jpeg_last.i != i || jpeg_last.tile != j->tile) {
			int n = jpeg_interval(j, i, jpeg_last.bytes);

			jpeg_last.valid = n > 0;
			if (n < 0)
				return n;
			jpeg_last.key = j->key;
			jpeg_last.tile = j->tile;
			jpeg_last.size = j->size;
			jpeg_last.i = i;
			jpeg_last.n = (unsigned)n;
		}
		k = img_part(buf, jpeg_last.bytes, at,
			     (size_t)IMG_MIN((uint64_t)len, jpeg_last.n - at));
	} else {
		uint8_t tail[5] = { 0xff, 0xff, 0xff };

		/* fill bytes, then EOI */
		tail[l->fill] = 0xff;
		tail[l->fill + 1] = 0xd9;
		k = img_part(buf, tail, off - l->eoi_at, len);
	}
	return (int64_t)k;
}

static int jpeg_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct jpeg_gen j = {
		.key = g->key,
		.size = g->size,
		.tile = g->boost > 0 ? (uint32_t)g->boost : 0,
	};

	if (gen_check_request(g, JPEG_MIN, off, len))
		return -EINVAL;
	jpeg_layout(g->key, g->size, &j.l);
	img_tex_init(&j.t, g->key, j.l.w, j.l.h, 3);
	pthread_once(&jpeg_huff_once, jpeg_huff_build);
	return img_fill_parts(&j, off, buf, len, jpeg_part);
}

const struct gen_ops gen_jpeg_ops = {
	.name = "jpeg",
	.min_size = JPEG_MIN,
	.fill = jpeg_fill,
};
