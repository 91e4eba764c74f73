/* rng.c - named, indexed random streams */
#include <stdio.h>
#include <string.h>

#include "util/rng.h"

uint64_t rng_stream_key(uint64_t seed, const char *stream)
{
	/* FNV-1a of the name, then mixed with the seed */
	uint64_t h = UINT64_C(0xCBF29CE484222325);

	for (const unsigned char *p = (const unsigned char *)stream; *p; p++) {
		h ^= *p;
		h *= UINT64_C(0x100000001B3);
	}
	return rng_mix64(rng_mix64(seed ^ UINT64_C(0x6A09E667F3BCC909)) ^ h);
}

void rng_open(struct rng *r, uint64_t key, uint64_t index)
{
	r->state = rng_mix64(key ^ rng_mix64(index + UINT64_C(0x3C6EF372FE94F82B)));
}

void rng_init(struct rng *r, uint64_t seed, const char *stream, uint64_t index)
{
	rng_open(r, rng_stream_key(seed, stream), index);
}

uint64_t rng_below_low(struct rng *r, uint64_t n, unsigned __int128 m)
{
	uint64_t lo = (uint64_t)m, t = -n % n;

	while (lo < t) {
		m = (unsigned __int128)rng_next(r) * n;
		lo = (uint64_t)m;
	}
	return (uint64_t)(m >> 64);
}

void rng_shuffle(void *a, uint64_t n, size_t size, uint64_t key, uint64_t index)
{
	unsigned char *p = a, t[16];
	struct rng r;

	rng_open(&r, key, index);
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = rng_below(&r, i);

		memcpy(t, p + (i - 1) * size, size);
		memcpy(p + (i - 1) * size, p + j * size, size);
		memcpy(p + j * size, t, size);
	}
}

void rng_shuffle_u32(uint32_t *a, uint64_t n, uint64_t key, uint64_t index)
{
	rng_shuffle(a, n, sizeof(*a), key, index);
}

void rng_uuid(uint64_t seed, const char *stream, char out[37])
{
	unsigned char u[16];
	struct rng r;

	rng_init(&r, seed, stream, 0);
	for (int i = 0; i < 16; i += 8) {
		uint64_t v = rng_next(&r);

		for (int k = 0; k < 8; k++)
			u[i + k] = (unsigned char)(v >> (8 * k));
	}
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

uint64_t rng_permute(uint64_t i, uint64_t n, uint64_t key)
{
	unsigned bits = 2, half;
	uint64_t mask, x = i;

	if (n <= 1)
		return 0;
	while (bits < 62 && (UINT64_C(1) << bits) < n)
		bits += 2;
	half = bits / 2;
	mask = (UINT64_C(1) << half) - 1;
	/* cycle walking: i's cycle of the bijection comes back below n */
	do {
		uint64_t l = x >> half, r = x & mask;

		for (uint64_t k = 0; k < 4; k++) {
			uint64_t t = l ^ (rng_mix64(r ^ key ^ (k << 60)) & mask);

			l = r;
			r = t;
		}
		x = (l << half) | r;
	} while (x >= n);
	return x;
}
