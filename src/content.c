/* content.c - the interim content source: pseudo-random bytes as a pure function of (seed, file, offset) */
#include <endian.h>
#include <string.h>

#include "content.h"
#include "plan.h"
#include "rng.h"

/* Word w of file f: one mix of a per-file key and the word index. */
static inline uint64_t content_word(uint64_t key, uint64_t w)
{
	return htole64(rng_mix64(key + w * UINT64_C(0x9E3779B97F4A7C15)));
}

static int random_fill(const struct content_source *cs, uint64_t file, uint64_t offset,
		       void *buf, size_t len)
{
	uint64_t key = rng_mix64(cs->seed ^ rng_mix64(file + 1));
	unsigned char *out = buf;
	uint64_t w = offset / 8;
	unsigned skip = offset % 8;

	if (skip && len) {
		uint64_t v = content_word(key, w++);
		size_t n = 8 - skip < len ? 8 - skip : len;

		memcpy(out, (unsigned char *)&v + skip, n);
		out += n;
		len -= n;
	}
	while (len >= 32) {
		uint64_t v[4] = {
			content_word(key, w), content_word(key, w + 1),
			content_word(key, w + 2), content_word(key, w + 3),
		};

		memcpy(out, v, 32);
		w += 4;
		out += 32;
		len -= 32;
	}
	while (len >= 8) {
		uint64_t v = content_word(key, w++);

		memcpy(out, &v, 8);
		out += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = content_word(key, w);

		memcpy(out, &v, len);
	}
	return 0;
}

void content_random_init(struct content_source *cs, const struct plan *pl)
{
	memset(cs, 0, sizeof(*cs));
	cs->name = "random";
	cs->fill = random_fill;
	cs->pl = pl;
	cs->seed = rng_stream_key(pl->prm.seed, "content");
}
