/* audio.c - what the media formats share: the output window, per-file draws and the synthesiser */
#include <stdbool.h>
#include <string.h>

#include "util/rng.h"
#include "content/media/media.h"

/* ------------------------------------------------------------------ */
/* A window onto the file: serialise from any position, keep [off, off+len). */

void media_win_u8(struct win *w, unsigned int v)
{
	/* pos < off wraps to a huge value and is dropped too */
	if (w->pos - w->off < w->len)
		w->buf[w->pos - w->off] = (uint8_t)v;
	w->pos++;
}

void media_win_bytes(struct win *w, const void *p, size_t n)
{
	const uint8_t *s = p;
	size_t i;

	for (i = 0; i < n; i++)
		media_win_u8(w, s[i]);
}

void media_win_str(struct win *w, const char *s)
{
	media_win_bytes(w, s, strlen(s));
}

void media_win_le16(struct win *w, uint32_t v)
{
	media_win_u8(w, v & 0xff);
	media_win_u8(w, (v >> 8) & 0xff);
}

void media_win_le32(struct win *w, uint32_t v)
{
	media_win_le16(w, v & 0xffff);
	media_win_le16(w, v >> 16);
}

void media_win_be16(struct win *w, uint32_t v)
{
	media_win_u8(w, (v >> 8) & 0xff);
	media_win_u8(w, v & 0xff);
}

void media_win_be32(struct win *w, uint32_t v)
{
	media_win_be16(w, v >> 16);
	media_win_be16(w, v & 0xffff);
}

void media_win_be64(struct win *w, uint64_t v)
{
	media_win_be32(w, (uint32_t)(v >> 32));
	media_win_be32(w, (uint32_t)v);
}

void media_win_zeros(struct win *w, uint64_t n)
{
	uint64_t a = w->pos > w->off ? w->pos : w->off;
	uint64_t end = w->off + w->len;
	uint64_t b = w->pos + n < end ? w->pos + n : end;

	if (a < b)
		memset(w->buf + (a - w->off), 0, b - a);
	w->pos += n;
}

bool media_win_meets(const struct win *w, uint64_t n)
{
	return w->pos < w->off + w->len && w->pos + n > w->off;
}

void media_win_put_unit(const struct win *w, uint64_t ustart, const uint8_t *unit, size_t ulen)
{
	uint64_t end = w->off + w->len;
	uint64_t a = ustart > w->off ? ustart : w->off;
	uint64_t b = ustart + ulen < end ? ustart + ulen : end;

	if (a < b)
		memcpy(w->buf + (a - w->off), unit + (a - ustart), b - a);
}

void media_bits_put(struct media_bits *b, uint32_t v, unsigned int nb)
{
	/* the bits in a 64-bit word whose top byte is p[n / 8]: at most five bytes to merge */
	unsigned int off = (unsigned int)(b->n & 7), end = off + nb, k;
	uint8_t *p = b->p + (b->n >> 3);
	uint64_t m, x;

	if (!nb)
		return;
	m = (~UINT64_C(0) >> (64 - nb)) << (64 - end);
	x = ((uint64_t)v << (64 - end)) & m;
	for (k = 0; k * 8 < end; k++) {
		uint8_t bm = (uint8_t)(m >> (56 - 8 * k));

		p[k] = (uint8_t)((p[k] & ~bm) | (uint8_t)(x >> (56 - 8 * k)));
	}
	b->n += nb;
}

/* ------------------------------------------------------------------ */
/* Per-file draws: one stream per purpose, derived from the file key. */

uint64_t media_key(uint64_t key, unsigned int purpose)
{
	return rng_mix64(key ^ (UINT64_C(0xA24BAED4963EE407) * purpose));
}

unsigned int media_pick(struct rng *r, const unsigned int *weight, unsigned int n)
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

void media_synth_init(struct synth *s, uint64_t key, uint32_t rate, uint32_t channels)
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

void media_synth_put(const struct synth *s, const struct win *w, uint64_t base, uint64_t nframes)
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
		media_win_put_unit(w, base + b * bbytes, tmp, (size_t)n * bpf);
	}
}

void media_audio_params(uint64_t key, unsigned int purpose, uint32_t *rate, uint32_t *channels)
{
	static const uint32_t rates[3] = { 44100, 48000, 22050 };
	static const unsigned int rate_w[3] = { 70, 22, 8 };
	struct rng r;

	rng_open(&r, media_key(key, purpose), 0);
	*rate = rates[media_pick(&r, rate_w, 3)];
	*channels = rng_below(&r, 5) == 0 ? 1 : 2;
}

/* ------------------------------------------------------------------ */
/* Words for tags: pronounceable, capitalised, from a draw sequence. */

size_t media_tag_words(struct rng *r, char *out, size_t cap, unsigned int nwords)
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
