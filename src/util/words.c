/* words.c - distinct words of a file's head (case folded letters and digits), by hashing */
#include <errno.h>
#include <stdlib.h>

#include "util/words.h"

/* WORDS_HEAD bytes hold at most WORDS_HEAD / 2 words: the set stays at most half full. */
#define SET_SLOTS (WORDS_HEAD)
#define WORD_P	  UINT64_C(0x9E3779B97F4A7C15)

int words_init(struct words *w)
{
	w->set = calloc(SET_SLOTS, sizeof(*w->set));
	w->used = malloc((SET_SLOTS / 2 + 1) * sizeof(*w->used));
	if (!w->set || !w->used) {
		words_release(w);
		return -ENOMEM;
	}
	w->n = 0;
	w->fed = 0;
	w->h = 0;
	return 0;
}

void words_release(struct words *w)
{
	free(w->set);
	free(w->used);
	w->set = NULL;
	w->used = NULL;
}

void words_reset(struct words *w)
{
	for (uint32_t i = 0; i < w->n; i++)
		w->set[w->used[i]] = 0;
	w->n = 0;
	w->fed = 0;
	w->h = 0;
}

static void word_add(struct words *w, uint64_t h)
{
	uint64_t x = h ^ (h >> 29);
	uint32_t i;

	x *= UINT64_C(0xBF58476D1CE4E5B9);
	x ^= x >> 32;
	x |= 1;	/* never 0: 0 is an empty slot */
	for (i = (uint32_t)(x & (SET_SLOTS - 1)); w->set[i]; i = (i + 1) & (SET_SLOTS - 1))
		if (w->set[i] == x)
			return;
	if (w->n > SET_SLOTS / 2)
		return;	/* cannot happen with WORDS_HEAD bytes */
	w->set[i] = x;
	w->used[w->n++] = i;
}

void words_feed(struct words *w, const uint8_t *b, size_t len)
{
	uint64_t h = w->h;

	if (w->fed >= WORDS_HEAD)
		return;
	if (len > WORDS_HEAD - w->fed)
		len = (size_t)(WORDS_HEAD - w->fed);
	w->fed += len;
	for (size_t i = 0; i < len; i++) {
		unsigned c = b[i];

		if (c - 'A' < 26u)
			c += 'a' - 'A';
		if (c - 'a' < 26u || c - '0' < 10u) {
			h = (h + c + 1) * WORD_P;
			h += !h;
		} else if (h) {
			word_add(w, h);
			h = 0;
		}
	}
	w->h = h;
}

uint32_t words_end(struct words *w)
{
	if (w->h)
		word_add(w, w->h);
	w->h = 0;
	return w->n;
}
