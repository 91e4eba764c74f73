/* media.c - WAV, MP3 and MP4 files of exact size, each byte a function of (key, size, offset) */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "content/gen.h"
#include "util/rng.h"

/*
 * Every format is laid out the same way: a header computed from the size
 * alone (serialised through a window, so that only the requested bytes are
 * stored), then a body of units (PCM blocks, MPEG frames) that each depend
 * on (key, unit index) only, then padding where the format allows it.
 * fill(off, len) builds the header only when the range touches it and
 * generates only the units the range touches.
 */

/* ------------------------------------------------------------------ */
/* A window onto the file: serialise from any position, keep [off, off+len). */

struct win {
	uint8_t *buf;
	uint64_t off;
	size_t len;
	uint64_t pos; /* file offset of the next byte */
};

static void win_u8(struct win *w, unsigned int v)
{
	/* pos < off wraps to a huge value and is dropped too */
	if (w->pos - w->off < w->len)
		w->buf[w->pos - w->off] = (uint8_t)v;
	w->pos++;
}

static void win_bytes(struct win *w, const void *p, size_t n)
{
	const uint8_t *s = p;
	size_t i;

	for (i = 0; i < n; i++)
		win_u8(w, s[i]);
}

static void win_str(struct win *w, const char *s)
{
	win_bytes(w, s, strlen(s));
}

static void win_le16(struct win *w, uint32_t v)
{
	win_u8(w, v & 0xff);
	win_u8(w, (v >> 8) & 0xff);
}

static void win_le32(struct win *w, uint32_t v)
{
	win_le16(w, v & 0xffff);
	win_le16(w, v >> 16);
}

static void win_be16(struct win *w, uint32_t v)
{
	win_u8(w, (v >> 8) & 0xff);
	win_u8(w, v & 0xff);
}

static void win_be32(struct win *w, uint32_t v)
{
	win_be16(w, v >> 16);
	win_be16(w, v & 0xffff);
}

static void win_be64(struct win *w, uint64_t v)
{
	win_be32(w, (uint32_t)(v >> 32));
	win_be32(w, (uint32_t)v);
}

/* n zero bytes, at the cost of their intersection with the window */
static void win_zeros(struct win *w, uint64_t n)
{
	uint64_t a = w->pos > w->off ? w->pos : w->off;
	uint64_t end = w->off + w->len;
	uint64_t b = w->pos + n < end ? w->pos + n : end;

	if (a < b)
		memset(w->buf + (a - w->off), 0, b - a);
	w->pos += n;
}

/* Whether [pos, pos + n) meets the window. */
static bool win_meets(const struct win *w, uint64_t n)
{
	return w->pos < w->off + w->len && w->pos + n > w->off;
}

/* Copy unit bytes [ustart, ustart + ulen) of the file into the window. */
static void win_put_unit(const struct win *w, uint64_t ustart, const uint8_t *unit, size_t ulen)
{
	uint64_t end = w->off + w->len;
	uint64_t a = ustart > w->off ? ustart : w->off;
	uint64_t b = ustart + ulen < end ? ustart + ulen : end;

	if (a < b)
		memcpy(w->buf + (a - w->off), unit + (a - ustart), b - a);
}

/* ------------------------------------------------------------------ */
/* Per-file draws: one stream per purpose, derived from the file key. */

enum {
	MEDIA_DRAW_WAV = 1,
	MEDIA_DRAW_MP3,
	MEDIA_DRAW_MP4,
	MEDIA_DRAW_SYNTH,
	MEDIA_DRAW_NOTE,
	MEDIA_DRAW_NOISE,
	MEDIA_DRAW_FRAME,
	MEDIA_DRAW_TAG,
};

static uint64_t media_key(uint64_t key, unsigned int purpose)
{
	return rng_mix64(key ^ (UINT64_C(0xA24BAED4963EE407) * purpose));
}

/* Pick from weights (in any unit) with one draw. */
static unsigned int pick(struct rng *r, const unsigned int *weight, unsigned int n)
{
	unsigned int i, total = 0;
	uint64_t x;

	for (i = 0; i < n; i++)
		total += weight[i];
	x = rng_below(r, total);
	for (i = 0; i + 1 < n; i++) {
		if (x < weight[i])
			return i;
		x -= weight[i];
	}
	return n - 1;
}

/* ------------------------------------------------------------------ */
/*
 * The synthesiser: a pentatonic melody of decaying notes with two
 * overtones, a bass line under it, and low noise.  Sample t of the stream
 * is a function of t alone (note index t / note_len), so any block of
 * frames can be produced on its own.  Integer arithmetic only: the same
 * samples on every machine.
 */

#define SYNTH_BLOCK 1024u /* frames per independently generated block */

struct synth {
	uint64_t key;	    /* MEDIA_DRAW_NOTE stream */
	uint64_t noise_key; /* MEDIA_DRAW_NOISE stream */
	uint32_t rate;
	uint32_t channels;
	uint32_t note_len; /* frames per melody note; bass notes last four */
	int root;	   /* MIDI note of the tonic */
	int noise_shift;   /* noise amplitude: 32767 >> noise_shift */
	int gain;	   /* Q8 master gain */
};

static void synth_init(struct synth *s, uint64_t key, uint32_t rate, uint32_t channels)
{
	struct rng r;
	uint32_t bpm;

	rng_open(&r, media_key(key, MEDIA_DRAW_SYNTH), 0);
	s->key = media_key(key, MEDIA_DRAW_NOTE);
	s->noise_key = media_key(key, MEDIA_DRAW_NOISE);
	s->rate = rate;
	s->channels = channels;
	bpm = 70 + (uint32_t)rng_below(&r, 101);
	/* eighth notes */
	s->note_len = rate * 30 / bpm;
	s->root = 40 + (int)rng_below(&r, 12);
	s->noise_shift = 6 + (int)rng_below(&r, 4);
	s->gain = 320 + (int)rng_below(&r, 160);
}

/*
 * Phase increment (2^32 per cycle) of MIDI note m at rate: equal
 * temperament from the octave above middle C, scaled by exact powers of
 * two, so the result is the same under any IEEE double arithmetic.
 */
static uint32_t note_inc(int m, uint32_t rate)
{
	static const double c5[12] = {
		523.2511306011972, 554.3652619537442, 587.3295358348151, 622.2539674441618,
		659.2551138257398, 698.4564628660078, 739.9888454232688, 783.9908719634985,
		830.6093951598903, 880.0000000000000, 932.3275230361799, 987.7666025122483,
	};
	int oct = m / 12 - 6;
	double f = c5[m % 12];

	for (; oct < 0; oct++)
		f *= 0.5;
	for (; oct > 0; oct--)
		f *= 2.0;
	return (uint32_t)(f / rate * 4294967296.0);
}

/* Sine of a 2^32-per-cycle phase, Q15, from the parabola 4x(1 - |x|). */
static inline int32_t psin(uint32_t phase)
{
	int32_t a = (int32_t)phase >> 16; /* [-32768, 32768) for [-pi, pi) */
	int32_t m = a < 0 ? -a : a;

	return (a * (32768 - m)) >> 13;
}

struct voice {
	uint32_t ph[3], inc[3];
	int32_t amp[3];	   /* Q15 per partial */
	uint32_t pos, len; /* frame within the note, note length */
	uint32_t atk;	   /* attack length in frames */
	int32_t pan;	   /* Q15 share of the right channel */
	uint32_t inv_len;  /* 2^32 / len */
	int32_t env;	   /* Q15 envelope, updated by voice_next() */
};

/*
 * Q15 envelope of the voice at frame p: a short attack, then
 * (1 - p/len)^2.  After the attack it moves in steps of eight frames,
 * which voice_next() holds: env_at() says which frame's value holds at p.
 */
static inline int32_t voice_env(const struct voice *v, uint32_t p)
{
	int32_t e = (int32_t)(((uint64_t)(v->len - p) * v->inv_len) >> 17);

	e = (e * e) >> 15;
	if (p < v->atk)
		e = (int32_t)((int64_t)e * p / v->atk);
	return e;
}

static inline uint32_t env_at(const struct voice *v, uint32_t p)
{
	return p < v->atk ? p : p & ~7u;
}

/* Set up the voice for note n of length len, at frame pos of it. */
static void voice_open(struct voice *v, const struct synth *s, uint64_t n, uint32_t len,
		       uint32_t pos, bool bass)
{
	static const int scale[8] = { 0, 2, 4, 7, 9, 12, 14, 16 };
	static const int bass_step[4] = { 0, 5, 7, 3 };
	uint64_t h = rng_mix64(s->key + n * 2 + bass);
	int m, k;
	int32_t level;

	if (bass) {
		m = s->root - 12 + bass_step[h & 3];
		level = 9000;
		v->pan = 16384;
	} else {
		m = s->root + 12 + scale[h & 7];
		/* one note in eight is a rest */
		level = ((h >> 3) & 7) == 0 ? 0 : 7000 + (int32_t)((h >> 6) & 4095);
		v->pan = 6000 + (int32_t)((h >> 18) % 20000);
	}
	v->len = len;
	v->pos = pos;
	v->atk = len / 48 + 1;
	v->inv_len = (uint32_t)((UINT64_C(1) << 32) / len);
	for (k = 0; k < 3; k++) {
		v->inc[k] = note_inc(m, s->rate) * (uint32_t)(k + 1);
		v->ph[k] = v->inc[k] * pos;
	}
	v->amp[0] = level;
	v->amp[1] = level * (int32_t)(8 + ((h >> 34) & 7)) / 32;
	v->amp[2] = level * (int32_t)(2 + ((h >> 37) & 7)) / 32;
	v->env = voice_env(v, env_at(v, pos));
}

/* Next sample of the voice (before pan), advancing it. */
static inline int32_t voice_next(struct voice *v)
{
	int32_t y;

	if (v->pos <= v->atk || (v->pos & 7) == 0)
		v->env = voice_env(v, env_at(v, v->pos));
	y = (psin(v->ph[0]) * v->amp[0] + psin(v->ph[1]) * v->amp[1] +
	     psin(v->ph[2]) * v->amp[2]) >>
	    15;
	v->ph[0] += v->inc[0];
	v->ph[1] += v->inc[1];
	v->ph[2] += v->inc[2];
	v->pos++;
	return (y * v->env) >> 15;
}

static inline int16_t clip16(int32_t x)
{
	return x > 32767 ? 32767 : x < -32768 ? -32768 : (int16_t)x;
}

/*
 * Block b of the stream as little-endian 16-bit interleaved PCM, nframes
 * frames (SYNTH_BLOCK but for the last block).
 */
static void synth_block(const struct synth *s, uint64_t b, uint32_t nframes, uint8_t *out)
{
	uint64_t t = b * SYNTH_BLOCK;
	uint32_t blen = s->note_len * 4;
	struct voice mel, bass;
	struct rng r;
	uint64_t noise = 0;
	uint32_t i;

	voice_open(&mel, s, t / s->note_len, s->note_len, (uint32_t)(t % s->note_len), false);
	voice_open(&bass, s, t / blen, blen, (uint32_t)(t % blen), true);
	rng_open(&r, s->noise_key, b);
	for (i = 0; i < nframes; i++, t++) {
		int32_t m, bs, n, lft, rgt;

		if (mel.pos == mel.len)
			voice_open(&mel, s, t / s->note_len, s->note_len, 0, false);
		if (bass.pos == bass.len)
			voice_open(&bass, s, t / blen, blen, 0, true);
		m = voice_next(&mel);
		bs = voice_next(&bass);
		if ((i & 3) == 0)
			noise = rng_next(&r);
		n = (int16_t)(noise & 0xffff) >> s->noise_shift;
		noise >>= 16;
		lft = ((m * (32768 - mel.pan)) >> 15) + (bs >> 1) + n;
		rgt = ((m * mel.pan) >> 15) + (bs >> 1) + n;
		if (s->channels == 1) {
			int16_t v = clip16(((lft + rgt) >> 1) * s->gain >> 8);

			out[0] = (uint8_t)v;
			out[1] = (uint8_t)((uint16_t)v >> 8);
			out += 2;
		} else {
			int16_t vl = clip16(lft * s->gain >> 8);
			int16_t vr = clip16(rgt * s->gain >> 8);

			out[0] = (uint8_t)vl;
			out[1] = (uint8_t)((uint16_t)vl >> 8);
			out[2] = (uint8_t)vr;
			out[3] = (uint8_t)((uint16_t)vr >> 8);
			out += 4;
		}
	}
}

/*
 * The PCM stream of nframes frames placed at file offset base: store its
 * bytes that fall in the window, generating only the blocks they touch.
 */
static void synth_put(const struct synth *s, const struct win *w, uint64_t base, uint64_t nframes)
{
	uint8_t tmp[SYNTH_BLOCK * 4];
	uint32_t bpf = s->channels * 2;
	uint64_t bbytes = (uint64_t)SYNTH_BLOCK * bpf;
	uint64_t total = nframes * bpf;
	uint64_t a, z, b;

	a = w->off > base ? w->off - base : 0;
	z = w->off + w->len - base;
	if (w->off + w->len <= base || a >= total)
		return;
	if (z > total)
		z = total;
	for (b = a / bbytes; b * bbytes < z; b++) {
		uint64_t first = b * SYNTH_BLOCK;
		uint32_t n =
			nframes - first < SYNTH_BLOCK ? (uint32_t)(nframes - first) : SYNTH_BLOCK;

		synth_block(s, b, n, tmp);
		win_put_unit(w, base + b * bbytes, tmp, (size_t)n * bpf);
	}
}

/* Sample rate and channel count of a file's audio, from its key. */
static void audio_params(uint64_t key, unsigned int purpose, uint32_t *rate, uint32_t *channels)
{
	static const uint32_t rates[3] = { 44100, 48000, 22050 };
	static const unsigned int rate_w[3] = { 70, 22, 8 };
	struct rng r;

	rng_open(&r, media_key(key, purpose), 0);
	*rate = rates[pick(&r, rate_w, 3)];
	*channels = rng_below(&r, 5) == 0 ? 1 : 2;
}

/* ------------------------------------------------------------------ */
/*
 * WAV: RIFF header, 'fmt ' (PCM), 'data', then a 'JUNK' chunk taking up
 * what whole frames cannot.  RIFF chunks are word aligned, so a file of odd
 * size ends in an odd-sized JUNK chunk whose pad byte is left out.
 */

#define WAV_HDR 44u

struct wav {
	struct synth syn;
	uint64_t frames;
	uint64_t junk; /* bytes of the JUNK chunk including its header, 0 for none */
};

static int wav_layout(struct wav *wv, const struct gen_file *g)
{
	uint32_t rate, channels, bpf;
	uint64_t avail, data, rem;

	audio_params(g->key, MEDIA_DRAW_WAV, &rate, &channels);
	synth_init(&wv->syn, g->key, rate, channels);
	bpf = channels * 2;
	if (g->size < WAV_HDR + bpf)
		return -EINVAL;
	avail = g->size - WAV_HDR;
	/* the 32-bit chunk sizes cap the data; the rest, if any, is JUNK */
	data = avail < UINT32_C(0xFFFFFF00) ? avail : UINT32_C(0xFFFFFF00);
	data -= data % bpf;
	rem = avail - data;
	if (rem > 0 && rem < 8) {
		uint64_t cut = (8 - rem + bpf - 1) / bpf * bpf;

		if (data < cut + bpf)
			return -EINVAL;
		data -= cut;
		rem += cut;
	}
	wv->frames = data / bpf;
	wv->junk = rem;
	return 0;
}

static int wav_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct win w = { .buf = buf, .off = off, .len = len, .pos = 0 };
	const struct synth *s;
	struct wav wv;
	uint64_t data, riff;
	int ret;

	ret = wav_layout(&wv, g);
	if (ret)
		return ret;
	s = &wv.syn;
	data = wv.frames * s->channels * 2;
	if (win_meets(&w, WAV_HDR)) {
		riff = g->size - 8 < UINT32_MAX ? g->size - 8 : UINT32_MAX;
		win_str(&w, "RIFF");
		win_le32(&w, (uint32_t)riff);
		win_str(&w, "WAVEfmt ");
		win_le32(&w, 16);
		win_le16(&w, 1);
		win_le16(&w, s->channels);
		win_le32(&w, s->rate);
		win_le32(&w, s->rate * s->channels * 2);
		win_le16(&w, s->channels * 2);
		win_le16(&w, 16);
		win_str(&w, "data");
		win_le32(&w, (uint32_t)data);
	}
	synth_put(s, &w, WAV_HDR, wv.frames);
	w.pos = WAV_HDR + data;
	if (wv.junk && win_meets(&w, wv.junk)) {
		win_str(&w, "JUNK");
		win_le32(&w, (uint32_t)(wv.junk - 8));
		win_zeros(&w, wv.junk - 8);
	}
	return 0;
}

const struct gen_ops gen_wav_ops = {
	.name = "wav",
	.min_size = 64,
	.fill = wav_fill,
};

/* ------------------------------------------------------------------ */
/* Words for tags: pronounceable, capitalised, from a draw sequence. */

static size_t tag_words(struct rng *r, char *out, size_t cap, unsigned int nwords)
{
	static const char cons[] = "bcdfghklmnprstvz";
	static const char vow[] = "aeiou";
	size_t n = 0;
	unsigned int i, k, syl;

	for (i = 0; i < nwords; i++) {
		syl = 1 + (unsigned int)rng_below(r, 3);
		if (n + 1 + syl * 3 > cap)
			break;
		if (i)
			out[n++] = ' ';
		for (k = 0; k < syl; k++) {
			char c = cons[rng_below(r, sizeof(cons) - 1)];

			out[n++] = k == 0 ? (char)(c - 'a' + 'A') : c;
			out[n++] = vow[rng_below(r, sizeof(vow) - 1)];
			if (rng_below(r, 4) == 0)
				out[n++] = cons[rng_below(r, sizeof(cons) - 1)];
		}
	}
	return n;
}

/* ------------------------------------------------------------------ */
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
	k = pick(&r, kbps_w, 4);
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
			m->text_len[i] = tag_words(&r, m->text[i], ID3_TEXT_MAX,
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
	if (win_meets(&w, m.tag)) {
		uint32_t ss = (uint32_t)(m.tag - 10);

		win_str(&w, "ID3");
		win_u8(&w, 3);
		win_u8(&w, 0);
		win_u8(&w, 0);
		/* syncsafe: seven bits a byte */
		win_u8(&w, (ss >> 21) & 0x7f);
		win_u8(&w, (ss >> 14) & 0x7f);
		win_u8(&w, (ss >> 7) & 0x7f);
		win_u8(&w, ss & 0x7f);
		for (k = 0; k < ID3_FRAMES; k++) {
			win_str(&w, id3_ids[k]);
			win_be32(&w, (uint32_t)m.text_len[k] + 1);
			win_be16(&w, 0);
			win_u8(&w, 0); /* ISO-8859-1 */
			win_bytes(&w, m.text[k], m.text_len[k]);
		}
		win_zeros(&w, m.tag - w.pos);
	}
	if (end <= m.tag || m.frames == 0)
		return 0;
	i = off > m.tag ? mp3_frame_at(&m, off - m.tag) : 0;
	last = mp3_frame_at(&m, end - 1 - m.tag);
	for (; i <= last && i < m.frames; i++) {
		size_t flen = mp3_frame(&m, i, frame);

		win_put_unit(&w, m.tag + mp3_frame_off(&m, i), frame, flen);
	}
	return 0;
}

const struct gen_ops gen_mp3_ops = {
	.name = "mp3",
	.min_size = 576,
	.fill = mp3_fill,
};

/* ------------------------------------------------------------------ */
/*
 * MP4: ftyp, moov (one sound track of 16-bit PCM, 'sowt'), an optional
 * 'free' box taking up what whole PCM frames cannot, then mdat.  The
 * samples are PCM frames of constant size, stored in chunks of
 * MP4_CHUNK frames (the last one shorter), so the sample tables have a
 * fixed size but for the chunk offsets.
 */

#define MP4_CHUNK 4096u
#define MP4_FTYP  28u
/* moov without stco entries and the second stsc entry */
#define MP4_MOOV0 (8 + 108 + 8 + 92 + 8 + 32 + 45 + 8 + 16 + 36 + 8 + 52 + 24 + 28 + 20 + 16)
#define MP4_EPOCH UINT64_C(2082844800) /* 1904-01-01 to 1970-01-01 in seconds */

struct mp4 {
	struct synth syn;
	uint32_t created; /* seconds since 1904 */
	uint64_t frames;
	uint64_t chunks;
	unsigned int co64;     /* chunk offsets on 64 bits */
	unsigned int mdat_hdr; /* 8, or 16 with a 64-bit size */
	uint64_t moov;
	uint64_t free; /* bytes of the free box, 0 for none */
	uint64_t data; /* file offset of the first PCM byte */
};

/* Whether n frames end in a shorter chunk after full ones (a second stsc entry). */
static bool mp4_short_tail(uint64_t n)
{
	return n > MP4_CHUNK && n % MP4_CHUNK;
}

/* Bytes of everything but the free box for n frames. */
static uint64_t mp4_total(struct mp4 *x, uint64_t n, uint32_t bpf)
{
	uint64_t payload = n * bpf;

	x->chunks = (n + MP4_CHUNK - 1) / MP4_CHUNK;
	x->mdat_hdr = payload + 8 > UINT32_MAX ? 16 : 8;
	/* offsets reach past 4 GiB: the moov is small, so the payload decides */
	x->co64 = MP4_FTYP + MP4_MOOV0 + 8 * x->chunks + 12 + 8 + 16 + payload > UINT32_MAX;
	x->moov = MP4_MOOV0 + (x->co64 ? 8 : 4) * x->chunks + (mp4_short_tail(n) ? 12 : 0);
	return MP4_FTYP + x->moov + x->mdat_hdr + payload;
}

static int mp4_layout(struct mp4 *x, const struct gen_file *g)
{
	uint32_t rate, channels, bpf;
	uint64_t n, t = 0, fixed;
	struct rng r;

	audio_params(g->key, MEDIA_DRAW_MP4, &rate, &channels);
	synth_init(&x->syn, g->key, rate, channels);
	rng_open(&r, media_key(g->key, MEDIA_DRAW_MP4), 1);
	x->created = (uint32_t)(MP4_EPOCH + UINT64_C(1104537600) +
				rng_below(&r, UINT64_C(20) * 365 * 86400));
	bpf = channels * 2;
	fixed = MP4_FTYP + MP4_MOOV0 + 12 + 8;
	if (g->size < fixed + bpf + 8)
		return -EINVAL;
	/* each frame costs bpf bytes plus a share of a chunk offset */
	n = (g->size - fixed) * MP4_CHUNK / ((uint64_t)bpf * MP4_CHUNK + 4) + 2;
	for (; n > 0; n--) {
		t = mp4_total(x, n, bpf);
		if (t == g->size || (t < g->size && g->size - t >= 8))
			break;
	}
	if (n == 0)
		return -EINVAL;
	x->frames = n;
	x->free = g->size - t;
	x->data = MP4_FTYP + x->moov + x->free + x->mdat_hdr;
	/* the 32-bit sample counts of stts and stsz */
	if (n > UINT32_MAX)
		return -EFBIG;
	return 0;
}

static void box(struct win *w, uint64_t size, const char *type)
{
	win_be32(w, (uint32_t)size);
	win_str(w, type);
}

static void full_box(struct win *w, uint64_t size, const char *type, uint32_t flags)
{
	box(w, size, type);
	win_be32(w, flags);
}

static void matrix(struct win *w)
{
	win_be32(w, 0x00010000);
	win_be32(w, 0);
	win_be32(w, 0);
	win_be32(w, 0);
	win_be32(w, 0x00010000);
	win_be32(w, 0);
	win_be32(w, 0);
	win_be32(w, 0);
	win_be32(w, 0x40000000);
}

/*
 * The sample table box (stbl, stbl bytes): one sound description, one
 * duration, the frames by chunk (rest: frames of a shorter last chunk, 0
 * for none), their size and the chunk offsets (stco bytes).
 */
static void mp4_sample_table(const struct mp4 *x, struct win *w, uint64_t stbl, uint64_t stco,
			     uint64_t rest)
{
	const struct synth *s = &x->syn;
	uint32_t bpf = s->channels * 2;
	unsigned int esz = x->co64 ? 8 : 4;
	uint64_t j;

	box(w, stbl, "stbl");
	full_box(w, 52, "stsd", 0);
	win_be32(w, 1);
	box(w, 36, "sowt"); /* 16-bit little-endian PCM */
	win_zeros(w, 6);
	win_be16(w, 1);	 /* data reference */
	win_zeros(w, 8); /* version, revision, vendor */
	win_be16(w, s->channels);
	win_be16(w, 16);
	win_be32(w, 0); /* compression id, packet size */
	win_be32(w, s->rate << 16);
	full_box(w, 24, "stts", 0);
	win_be32(w, 1);
	win_be32(w, (uint32_t)x->frames);
	win_be32(w, 1);
	full_box(w, rest ? 40 : 28, "stsc", 0);
	win_be32(w, rest ? 2 : 1);
	win_be32(w, 1);
	win_be32(w, x->frames < MP4_CHUNK ? (uint32_t)x->frames : MP4_CHUNK);
	win_be32(w, 1);
	if (rest) {
		win_be32(w, (uint32_t)x->chunks);
		win_be32(w, (uint32_t)rest);
		win_be32(w, 1);
	}
	full_box(w, 20, "stsz", 0);
	win_be32(w, bpf);
	win_be32(w, (uint32_t)x->frames);
	full_box(w, stco, x->co64 ? "co64" : "stco", 0);
	win_be32(w, (uint32_t)x->chunks);
	if (!win_meets(w, esz * x->chunks)) {
		w->pos += esz * x->chunks;
	} else {
		for (j = 0; j < x->chunks; j++) {
			uint64_t at = x->data + j * MP4_CHUNK * bpf;

			if (x->co64)
				win_be64(w, at);
			else
				win_be32(w, (uint32_t)at);
		}
	}
}

static void mp4_header(const struct mp4 *x, struct win *w)
{
	const struct synth *s = &x->syn;
	uint32_t bpf = s->channels * 2;
	uint32_t ms = (uint32_t)((x->frames * 1000 + s->rate / 2) / s->rate);
	uint64_t rest = mp4_short_tail(x->frames) ? x->frames % MP4_CHUNK : 0;
	uint64_t stbl, minf, mdia, trak, stco;
	unsigned int esz = x->co64 ? 8 : 4;

	box(w, MP4_FTYP, "ftyp");
	win_str(w, "isom");
	win_be32(w, 0x200);
	win_str(w, "isomiso2mp41");

	stco = 16 + (uint64_t)esz * x->chunks;
	stbl = 8 + 52 + 24 + 16 + (rest ? 24 : 12) + 20 + stco;
	minf = 8 + 16 + 36 + stbl;
	mdia = 8 + 32 + 45 + minf;
	trak = 8 + 92 + mdia;
	box(w, x->moov, "moov");

	full_box(w, 108, "mvhd", 0);
	win_be32(w, x->created);
	win_be32(w, x->created);
	win_be32(w, 1000);
	win_be32(w, ms);
	win_be32(w, 0x00010000); /* rate 1.0 */
	win_be16(w, 0x0100);	 /* volume 1.0 */
	win_zeros(w, 10);
	matrix(w);
	win_zeros(w, 24);
	win_be32(w, 2); /* next track id */

	box(w, trak, "trak");
	full_box(w, 92, "tkhd", 3); /* enabled, in movie */
	win_be32(w, x->created);
	win_be32(w, x->created);
	win_be32(w, 1); /* track id */
	win_be32(w, 0);
	win_be32(w, ms);
	win_zeros(w, 8);
	win_be16(w, 0); /* layer */
	win_be16(w, 1); /* alternate group: audio */
	win_be16(w, 0x0100);
	win_be16(w, 0);
	matrix(w);
	win_be32(w, 0);
	win_be32(w, 0);

	box(w, mdia, "mdia");
	full_box(w, 32, "mdhd", 0);
	win_be32(w, x->created);
	win_be32(w, x->created);
	win_be32(w, s->rate);
	win_be32(w, (uint32_t)x->frames);
	win_be16(w, 0x55c4); /* language 'und' */
	win_be16(w, 0);
	full_box(w, 45, "hdlr", 0);
	win_be32(w, 0);
	win_str(w, "soun");
	win_zeros(w, 12);
	win_bytes(w, "SoundHandler", 13);

	box(w, minf, "minf");
	full_box(w, 16, "smhd", 0);
	win_be32(w, 0);
	box(w, 36, "dinf");
	full_box(w, 28, "dref", 0);
	win_be32(w, 1);
	full_box(w, 12, "url ", 1); /* data in this file */

	mp4_sample_table(x, w, stbl, stco, rest);

	if (x->free) {
		box(w, x->free, "free");
		win_zeros(w, x->free - 8);
	}
	if (x->mdat_hdr == 16) {
		box(w, 1, "mdat");
		win_be64(w, 16 + x->frames * bpf);
	} else {
		box(w, 8 + x->frames * bpf, "mdat");
	}
}

static int mp4_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct win w = { .buf = buf, .off = off, .len = len, .pos = 0 };
	struct mp4 x;
	int ret;

	ret = mp4_layout(&x, g);
	if (ret)
		return ret;
	if (win_meets(&w, x.data))
		mp4_header(&x, &w);
	synth_put(&x.syn, &w, x.data, x.frames);
	return 0;
}

const struct gen_ops gen_mp4_ops = {
	.name = "mp4",
	.min_size = 640,
	.fill = mp4_fill,
};
