/* mp3.c - MP3: an ID3v2.3 tag, then MPEG-1 layer III frames */
#include <errno.h>
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
 * long blocks, no scalefactors, and Huffman table 1 coding of sparse +-1
 * spectral lines, i.e. quiet noise that decodes without error.
 */

#define ID3_FRAMES    4
#define ID3_TEXT_MAX  30
#define MP3_FRAME_MAX 1536

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

struct bitw {
	uint8_t *p;
	size_t n; /* bits written */
};

/* Append the nb low bits of v, most significant first; p is zeroed. */
static void bitw_put(struct bitw *b, uint32_t v, unsigned int nb)
{
	while (nb) {
		unsigned int room = 8 - (b->n & 7);
		unsigned int take = nb < room ? nb : room;
		uint32_t chunk = (v >> (nb - take)) & ((1u << take) - 1);

		b->p[b->n >> 3] |= (uint8_t)(chunk << (room - take));
		b->n += take;
		nb -= take;
	}
}

/*
 * Huffman-coded spectrum of one granule and channel, at most budget bits;
 * returns its length in bits and the big_values pair count in *pairs.
 */
static unsigned int mp3_spectrum(struct bitw *b, struct rng *r, unsigned int budget,
				 unsigned int *pairs)
{
	/* table 1, indexed by 2x + y */
	static const uint8_t code[4] = { 1, 1, 1, 0 };
	static const uint8_t clen[4] = { 1, 3, 2, 3 };
	uint64_t draw = 0;
	unsigned int j, used = 0, zeros = 0;

	*pairs = 0;
	for (j = 0; j < 288; j++) {
		/* denser below ~2 kHz, sparse up to ~10 kHz, nothing above */
		unsigned int thr = j < 24 ? 80 : j < 64 ? 40 : j < 120 ? 12 : 0;
		unsigned int x, y, sx, sy, c, cost;

		if (thr == 0)
			break;
		if ((j & 3) == 0)
			draw = rng_next(r);
		x = ((draw & 0xff) >> 1) < thr / 2;
		sx = draw & 1;
		y = (((draw >> 8) & 0xff) >> 1) < thr / 2;
		sy = (draw >> 8) & 1;
		draw >>= 16;
		c = x * 2 + y;
		if (c == 0) {
			/* a run of zero pairs is written only if a value follows */
			zeros++;
			continue;
		}
		cost = zeros + clen[c] + x + y;
		if (used + cost > budget)
			break;
		/* the zero pairs' codes are single 1 bits; signs follow a value */
		for (; zeros > 24; zeros -= 24)
			bitw_put(b, 0xffffff, 24);
		bitw_put(b, (1u << zeros) - 1, zeros);
		zeros = 0;
		bitw_put(b, ((uint32_t)code[c] << (x + y)) | (x ? sx << y : 0) | (y ? sy : 0),
			 clen[c] + x + y);
		used += cost;
		*pairs = j + 1;
	}
	return used;
}

/* Frame i of the stream into out (zeroed here); returns its length. */
static size_t mp3_frame(const struct mp3 *m, uint64_t i, uint8_t *out)
{
	size_t len = (size_t)(mp3_frame_off(m, i + 1) - mp3_frame_off(m, i));
	size_t base = (size_t)(m->num / m->rate);
	size_t side = m->channels == 1 ? 17 : 32;
	unsigned int p23[2][2], bv[2][2], gg[2][2];
	unsigned int gr, ch, budget;
	struct bitw b;
	struct rng r;

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
			p23[gr][ch] = mp3_spectrum(&b, &r, budget, &bv[gr][ch]);
			/* a beat every 16 frames, decaying 1.5 dB a frame */
			gg[gr][ch] = m->gain - (unsigned int)(i % 16) * 3 / 2 - gr +
				     (unsigned int)rng_below(&r, 3);
		}
	}

	b.n = 4 * 8;
	bitw_put(&b, 0, 9); /* main_data_begin: no reservoir */
	bitw_put(&b, 0, m->channels == 1 ? 5 : 3);
	bitw_put(&b, 0, 4 * m->channels); /* scfsi */
	for (gr = 0; gr < 2; gr++) {
		for (ch = 0; ch < m->channels; ch++) {
			bitw_put(&b, p23[gr][ch], 12);
			bitw_put(&b, bv[gr][ch], 9);
			bitw_put(&b, gg[gr][ch], 8);
			bitw_put(&b, 0, 4); /* scalefac_compress: no scalefactors */
			bitw_put(&b, 0, 1); /* long blocks */
			bitw_put(&b, 1, 5); /* table_select, three regions */
			bitw_put(&b, 1, 5);
			bitw_put(&b, 1, 5);
			bitw_put(&b, 7, 4); /* region0_count */
			bitw_put(&b, 7, 3); /* region1_count */
			bitw_put(&b, 0, 3); /* preflag, scalefac_scale, count1table */
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
		size_t flen = mp3_frame(&m, i, frame);

		media_win_put_unit(&w, m.tag + mp3_frame_off(&m, i), frame, flen);
	}
	return 0;
}

const struct gen_ops gen_mp3_ops = {
	.name = "mp3",
	.min_size = 576,
	.fill = mp3_fill,
};
