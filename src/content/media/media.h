/* media.h - internal to media/: the window, per-file draws and synthesiser the formats share */
#ifndef IMPRINT_CONTENT_MEDIA_MEDIA_H
#define IMPRINT_CONTENT_MEDIA_MEDIA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

/*
 * Every format is laid out the same way: a header computed from the size
 * alone (serialised through a window, so that only the requested bytes are
 * stored), then a body of units (PCM blocks, MPEG frames) that each depend
 * on (key, unit index) only, then padding where the format allows it.
 * fill(off, len) builds the header only when the range touches it and
 * generates only the units the range touches.
 */

/* A window onto the file: serialise from any position, keep [off, off+len). */
struct win {
	uint8_t *buf;
	uint64_t off;
	size_t len;
	uint64_t pos; /* file offset of the next byte */
};

/* Serialise at w->pos (advanced by the size), keeping what falls in the window. */
void media_win_u8(struct win *w, unsigned int v);
void media_win_bytes(struct win *w, const void *p, size_t n);
void media_win_str(struct win *w, const char *s);
void media_win_le16(struct win *w, uint32_t v);
void media_win_le32(struct win *w, uint32_t v);
void media_win_be16(struct win *w, uint32_t v);
void media_win_be32(struct win *w, uint32_t v);
void media_win_be64(struct win *w, uint64_t v);

/* n zero bytes, at the cost of their intersection with the window */
void media_win_zeros(struct win *w, uint64_t n);

/* Whether [pos, pos + n) meets the window. */
bool media_win_meets(const struct win *w, uint64_t n);

/* Copy unit bytes [ustart, ustart + ulen) of the file into the window. */
void media_win_put_unit(const struct win *w, uint64_t ustart, const uint8_t *unit, size_t ulen);

/* A bit writer: coded audio frames (MP3, AAC). */
struct media_bits {
	uint8_t *p;
	size_t n; /* bits written */
};

/* Write the nb (<= 32) low bits of v at bit b->n, most significant first, over what was there. */
void media_bits_put(struct media_bits *b, uint32_t v, unsigned int nb);

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

/* The key of the file's stream for purpose (MEDIA_DRAW_*). */
uint64_t media_key(uint64_t key, unsigned int purpose);

/* Pick from weights (in any unit) with one draw. */
unsigned int media_pick(struct rng *r, const unsigned int *weight, unsigned int n);

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

/* The synthesiser of the audio of the file of key `key`: tempo, key, voices, gain. */
void media_synth_init(struct synth *s, uint64_t key, uint32_t rate, uint32_t channels);

/*
 * The PCM stream of nframes frames placed at file offset base: store its
 * bytes that fall in the window, generating only the blocks they touch.
 */
void media_synth_put(const struct synth *s, const struct win *w, uint64_t base, uint64_t nframes);

/* Sample rate and channel count of a file's audio, from its key. */
void media_audio_params(uint64_t key, unsigned int purpose, uint32_t *rate, uint32_t *channels);

/* Words for tags: pronounceable, capitalised, from a draw sequence; returns the length. */
size_t media_tag_words(struct rng *r, char *out, size_t cap, unsigned int nwords);

#endif
