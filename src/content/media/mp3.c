/* mp3.c - MP3: an ID3v2.3 tag, then MPEG-1 layer III frames */
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/media/media.h"

/*
 * MP3: an ID3v2.3 tag (title, artist, album, year, then zero padding)
 * followed by constant-bitrate MPEG-1 Layer III frames.  Frame i starts
 * floor(i * 144 * bitrate / rate) bytes after the tag, which is exactly
 * the padding-bit pattern of a CBR encoder; the tag's padding absorbs what
 * whole frames cannot.  Each frame is self-contained (main_data_begin 0):
 * long blocks, random scalefactors, and the count1 region coded with
 * table B (quiet noise that decodes without error), then ancillary data:
 * every bit after the side information is as random as a real encoder's
 * output, so the stream does not compress (gzip about 1.0, as real MP3).
 */

#define ID3_FRAMES    4
#define ID3_TEXT_MAX  30
#define MP3_FRAME_MAX 1536 /* 1045 at most, and room for whole-word stores */

struct mp3 {
	uint64_t frame_key;
	uint32_t rate;
	uint32_t kbps;
	unsigned int br_index;
	unsigned int channels;
	unsigned int gain; /* global_gain around which frames vary */
	uint64_t num;	   /* frame i starts at tag + floor(i * num / rate) */
	uint64_t frames;
	uint64_t tag; /* bytes of the ID3 tag, padding included */
	size_t text_len[ID3_FRAMES];
	char text[ID3_FRAMES][ID3_TEXT_MAX + 1];
};

static const char *const id3_ids[ID3_FRAMES] = { "TIT2", "TPE1", "TALB", "TYER" };

static uint64_t mp3_frame_off(const struct mp3 *m, uint64_t i)
{
	return i * m->num / m->rate;
}

/* Index of the frame holding byte x of the frame stream. */
static uint64_t mp3_frame_at(const struct mp3 *m, uint64_t x)
{
	return ((x + 1) * m->rate - 1) / m->num;
}

static int mp3_layout(struct mp3 *m, const struct gen_file *g)
{
	static const unsigned int kbps[4] = { 128, 192, 256, 320 };
	static const unsigned int idx[4] = { 9, 11, 13, 14 };
	static const unsigned int kbps_w[4] = { 60, 15, 5, 20 };
	struct rng r;
	uint64_t tmin, body;
	unsigned int i, k;

	rng_open(&r, media_key(g->key, MEDIA_DRAW_MP3), 0);
	m->frame_key = media_key(g->key, MEDIA_DRAW_FRAME);
	m->rate = rng_below(&r, 8) == 0 ? 48000 : 44100;
	k = media_pick(&r, kbps_w, 4);
	m->kbps = kbps[k];
	m->br_index = idx[k];
	m->channels = 2;
	m->gain = 176 + (unsigned int)rng_below(&r, 12);
	/* short clips (a few seconds or less) are low-rate mono */
	if (g->size < 64 * 1024) {
		m->rate = 44100;
		m->kbps = 32;
		m->br_index = 1;
		m->channels = 1;
	}
	m->num = (uint64_t)144000 * m->kbps;

	rng_open(&r, media_key(g->key, MEDIA_DRAW_TAG), 0);
	tmin = 10;
	for (i = 0; i < ID3_FRAMES; i++) {
		if (i == 3)
			m->text_len[i] = (size_t)snprintf(m->text[i], sizeof(m->text[i]), "%u",
							  1965 + (unsigned int)rng_below(&r, 60));
		else
			m->text_len[i] = media_tag_words(&r, m->text[i], ID3_TEXT_MAX,
							 1 + (unsigned int)rng_below(&r, 3));
		tmin += 10 + 1 + m->text_len[i];
	}
	/* ffmpeg wants four frames before it names the stream */
	if (g->size < tmin + mp3_frame_off(m, 4))
		return -EINVAL;
	body = g->size - tmin;
	m->frames = mp3_frame_at(m, body);
	if (mp3_frame_off(m, m->frames) > body)
		m->frames--;
	m->tag = g->size - mp3_frame_off(m, m->frames);
	/* the tag size is a 28-bit syncsafe integer */
	if (m->tag - 10 >= (UINT32_C(1) << 28))
		return -EINVAL;
	return 0;
}

/* Scalefactor bits of slen1 and slen2 by scalefac_compress (ISO 11172-3, 2.4.2.7). */
static const uint8_t mp3_slen[2][16] = {
	{ 0, 0, 0, 0, 3, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4 },
	{ 0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 3 },
};

/*
 * Table B's code of one quadruple's draw byte d (its value d & 15, then
 * its signs from the high nibble): the code in the low 8 bits, its
 * length (4 plus the value's non-zero count) above.  Built once, the same
 * on every thread (a pure function of d).
 */
static uint16_t mp3_quad[256];
static pthread_once_t mp3_once = PTHREAD_ONCE_INIT;

static void mp3_quad_init(void)
{
	for (unsigned int d = 0; d < 256; d++) {
		unsigned int v = d & 15, nz = (unsigned int)__builtin_popcount(v);
		unsigned int code = (15 - v) << nz | ((d >> 4) & ((1u << nz) - 1));

		mp3_quad[d] = (uint16_t)((4 + nz) << 8 | code);
	}
}

/* Store the nacc held bits of acc (at most 64) at p, high bit first; bits after them are zero. */
static inline void mp3_store(uint8_t *p, uint64_t acc, unsigned int nacc)
{
	uint64_t v = htobe64(nacc ? acc << (64 - nacc) : 0);

	memcpy(p, &v, 8);
}

/*
 * Main data of one granule and channel, at most budget bits: random
 * scalefactors (long blocks: 11 bands of slen1 bits, 10 of slen2), then
 * quadruples of the count1 region coded with table B (four bits a
 * quadruple, then a sign bit per non-zero value) up to the 576 lines.
 * Uniform quadruples make every bit a fair coin, as the entropy-coded
 * data of a real encoder is: the frames do not compress.  Returns the
 * bits written (part2_3_length).  The frame has 8 bytes of room past the
 * budget (stores are whole words; the bits after the last are zero).
 */
static unsigned int mp3_granule(struct media_bits *b, struct rng *r, unsigned int budget,
				unsigned int sfc)
{
	unsigned int s1 = mp3_slen[0][sfc], s2 = mp3_slen[1][sfc];
	unsigned int used = 11 * s1 + 10 * s2, q, t;
	uint64_t draw = 0, acc = 0;
	unsigned int nacc = 0, held;
	uint8_t *p;

	if (used > budget)
		return 0;
	/*
	 * The scalefactors, then the quadruples, go to the frame's zeroed
	 * bytes in order: acc holds the bits not yet stored, the byte under
	 * way's first ones (already at p) included.  The scalefactors a band
	 * at a time (at most 4 bits), stored every 7 bands; the quadruples
	 * four (at most 32 bits) at a time while the budget surely holds
	 * them, then a whole-word store; one at a time near the budget's end.
	 */
	p = b->p + (b->n >> 3);
	held = (unsigned int)(b->n & 7);
	acc = held ? (uint64_t)(*p >> (8 - held)) : 0;
	nacc = held;
	for (q = 0; q < 21; q++) {
		unsigned int sb = q < 11 ? s1 : s2;

		if (sb) {
			acc = acc << sb | (rng_next(r) & ((1u << sb) - 1));
			nacc += sb;
		}
		if (q % 7 == 6) {
			mp3_store(p, acc, nacc);
			p += nacc >> 3;
			nacc &= 7;
		}
	}
	for (q = 0; q < 144 && used + 32 <= budget; q += 4) {
		unsigned int n0, n1, n2, n3;

		if ((q & 7) == 0)
			draw = rng_next(r);
		n0 = mp3_quad[draw & 255];
		n1 = mp3_quad[(draw >> 8) & 255];
		n2 = mp3_quad[(draw >> 16) & 255];
		n3 = mp3_quad[(draw >> 24) & 255];
		acc = acc << (n0 >> 8) | (n0 & 255);
		acc = acc << (n1 >> 8) | (n1 & 255);
		acc = acc << (n2 >> 8) | (n2 & 255);
		acc = acc << (n3 >> 8) | (n3 & 255);
		t = (n0 >> 8) + (n1 >> 8) + (n2 >> 8) + (n3 >> 8);
		nacc += t;
		used += t;
		draw >>= 32;
		mp3_store(p, acc, nacc);
		p += nacc >> 3;
		nacc &= 7;
	}
	for (; q < 144; q++) {
		unsigned int n;

		if ((q & 7) == 0)
			draw = rng_next(r);
		n = mp3_quad[draw & 255];
		if (used + (n >> 8) > budget)
			break;
		acc = acc << (n >> 8) | (n & 255);
		nacc += n >> 8;
		used += n >> 8;
		draw >>= 8;
		if (nacc >= 8) {
			nacc -= 8;
			*p++ = (uint8_t)(acc >> nacc);
		}
	}
	mp3_store(p, acc, nacc);
	b->n = (size_t)(p - b->p) * 8 + nacc;
	return used;
}

/* Put the nb (< 32) low bits of v after the n held in acc, storing whole bytes at *p. */
static inline void mp3_side(uint8_t **p, uint64_t *acc, unsigned int *n, uint64_t v, unsigned int nb)
{
	*acc = *acc << nb | (v & ((UINT64_C(1) << nb) - 1));
	*n += nb;
	while (*n >= 8) {
		*n -= 8;
		*(*p)++ = (uint8_t)(*acc >> *n);
	}
}

/* Frame i of the stream into out (zeroed here); returns its length. */
static size_t mp3_frame(const struct mp3 *m, uint64_t i, uint8_t *out)
{
	size_t len = (size_t)(mp3_frame_off(m, i + 1) - mp3_frame_off(m, i));
	size_t base = (size_t)(m->num / m->rate);
	size_t side = m->channels == 1 ? 17 : 32;
	unsigned int p23[2][2], gg[2][2], sfc[2][2];
	unsigned int gr, ch, k, budget;
	struct media_bits b;
	struct rng r;
	uint64_t sacc;
	unsigned int sn;
	uint8_t *sp;

	memset(out, 0, len);
	rng_open(&r, m->frame_key, i);
	out[0] = 0xff;
	out[1] = 0xfb; /* MPEG-1, Layer III, no CRC */
	out[2] = (uint8_t)(m->br_index << 4 | (m->rate == 48000) << 2 | (len > base) << 1);
	/* joint stereo without MS or intensity coding, or mono; original */
	out[3] = m->channels == 1 ? 0xc4 : 0x44;

	b.p = out;
	b.n = (4 + side) * 8;
	budget = (unsigned int)((len - 4 - side) * 8 / (2 * m->channels));
	for (gr = 0; gr < 2; gr++) {
		for (ch = 0; ch < m->channels; ch++) {
			sfc[gr][ch] = (unsigned int)rng_below(&r, 16);
			p23[gr][ch] = mp3_granule(&b, &r, budget, sfc[gr][ch]);
			if (!p23[gr][ch])
				sfc[gr][ch] = 0;
			/* a beat every 16 frames, decaying 1.5 dB a frame */
			gg[gr][ch] = m->gain - (unsigned int)(i % 16) * 3 / 2 - gr +
				     (unsigned int)rng_below(&r, 3);
		}
	}
	/* ancillary data after the last granule: encoder padding, as random as the rest */
	if (b.n & 7)
		media_bits_put(&b, (uint32_t)rng_next(&r), 8 - (unsigned int)(b.n & 7));
	for (size_t at = b.n / 8; at < len; at += 8) {
		uint64_t v = htole64(rng_next(&r)); /* the same bytes on any machine */

		memcpy(out + at, &v, len - at < 8 ? len - at : 8);
	}

	/* the side information: whole bytes after the header, up to the main data */
	sp = out + 4;
	sacc = 0;
	sn = 0;
	mp3_side(&sp, &sacc, &sn, 0, 9); /* main_data_begin: no reservoir */
	mp3_side(&sp, &sacc, &sn, 0, m->channels == 1 ? 5 : 3);
	mp3_side(&sp, &sacc, &sn, 0, 4 * m->channels); /* scfsi */
	for (gr = 0; gr < 2; gr++) {
		for (ch = 0; ch < m->channels; ch++) {
			mp3_side(&sp, &sacc, &sn, p23[gr][ch], 12);
			mp3_side(&sp, &sacc, &sn, 0, 9); /* big_values: all in the count1 region */
			mp3_side(&sp, &sacc, &sn, gg[gr][ch], 8);
			mp3_side(&sp, &sacc, &sn, sfc[gr][ch], 4);
			mp3_side(&sp, &sacc, &sn, 0, 1); /* long blocks */
			/*
			 * table_select (any valid table: 4 and 14 do not exist),
			 * region counts, preflag and scalefac_scale vary as an
			 * encoder's do; with big_values 0 they only shape the
			 * level, and no region is read
			 */
			for (k = 0; k < 3; k++) {
				unsigned int t = (unsigned int)rng_below(&r, 30);

				mp3_side(&sp, &sacc, &sn, t + (t >= 4) + (t >= 13), 5);
			}
			mp3_side(&sp, &sacc, &sn, rng_next(&r), 9); /* region counts, preflag, scale */
			mp3_side(&sp, &sacc, &sn, 1, 1); /* count1table B */
		}
	}
	return len;
}

static int mp3_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct win w = { .buf = buf, .off = off, .len = len, .pos = 0 };
	uint8_t frame[MP3_FRAME_MAX];
	struct mp3 m;
	uint64_t i, last, end = off + len;
	unsigned int k;
	int ret;

	ret = mp3_layout(&m, g);
	if (ret)
		return ret;
	pthread_once(&mp3_once, mp3_quad_init);
	if (media_win_meets(&w, m.tag)) {
		uint32_t ss = (uint32_t)(m.tag - 10);

		media_win_str(&w, "ID3");
		media_win_u8(&w, 3);
		media_win_u8(&w, 0);
		media_win_u8(&w, 0);
		/* syncsafe: seven bits a byte */
		media_win_u8(&w, (ss >> 21) & 0x7f);
		media_win_u8(&w, (ss >> 14) & 0x7f);
		media_win_u8(&w, (ss >> 7) & 0x7f);
		media_win_u8(&w, ss & 0x7f);
		for (k = 0; k < ID3_FRAMES; k++) {
			media_win_str(&w, id3_ids[k]);
			media_win_be32(&w, (uint32_t)m.text_len[k] + 1);
			media_win_be16(&w, 0);
			media_win_u8(&w, 0); /* ISO-8859-1 */
			media_win_bytes(&w, m.text[k], m.text_len[k]);
		}
		media_win_zeros(&w, m.tag - w.pos);
	}
	if (end <= m.tag || m.frames == 0)
		return 0;
	i = off > m.tag ? mp3_frame_at(&m, off - m.tag) : 0;
	last = mp3_frame_at(&m, end - 1 - m.tag);
	for (; i <= last && i < m.frames; i++) {
		uint64_t at = m.tag + mp3_frame_off(&m, i);

		/* made in place when the frame and 8 bytes of room lie in the window */
		if (at >= off && at + MP3_FRAME_MAX <= end) {
			mp3_frame(&m, i, buf + (at - off));
			continue;
		}
		media_win_put_unit(&w, at, frame, mp3_frame(&m, i, frame));
	}
	return 0;
}

const struct gen_ops gen_mp3_ops = {
	.name = "mp3",
	.min_size = 576,
	.fill = mp3_fill,
};
