/* rng.h - named, indexed random streams: every decision is f(seed, stream, index) */
#ifndef IMPRINT_RNG_H
#define IMPRINT_RNG_H

#include <stddef.h>
#include <stdint.h>

/*
 * A stream is named for its purpose ("size", "ext", "name", ...).  A draw
 * sequence is opened for one (seed, stream, index) triple, so file 12345's
 * draws never depend on how many draws other files made.  The generator is
 * splitmix64 over a per-(stream, index) starting state: cheap to open, good
 * enough statistically for sampling (it passes BigCrush).
 */
struct rng {
	uint64_t state;
};

/* Key of a stream: a hash of the seed and the stream's name. */
uint64_t rng_stream_key(uint64_t seed, const char *stream);

/* Open the draw sequence for (key, index); key from rng_stream_key(). */
void rng_open(struct rng *r, uint64_t key, uint64_t index);

/* Convenience: rng_open(r, rng_stream_key(seed, stream), index). */
void rng_init(struct rng *r, uint64_t seed, const char *stream, uint64_t index);

/* splitmix64's finalizer: x mixed so that every input bit reaches every output bit. */
static inline uint64_t rng_splitmix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

/* Next 64 random bits. */
static inline uint64_t rng_next(struct rng *r)
{
	return rng_splitmix64(r->state += UINT64_C(0x9E3779B97F4A7C15));
}

/* Uniform double in the open interval (0, 1), 53 bits. */
static inline double rng_uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* rng_below()'s draw m of n whose low half is below n (rare): the result, redrawn if biased. */
uint64_t rng_below_low(struct rng *r, uint64_t n, unsigned __int128 m);

/*
 * Uniform integer in [0, n), unbiased; returns 0 when n is 0.  Lemire's
 * multiply-shift with rejection of the biased low range, inline but for
 * that range.
 */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
	unsigned __int128 m;

	if (n == 0)
		return 0;
	m = (unsigned __int128)rng_next(r) * n;
	if ((uint64_t)m < n)
		return rng_below_low(r, n, m);
	return (uint64_t)(m >> 64);
}

/*
 * Stateless 64-bit mixer, for hashing ids into draws; returns x mixed.
 * Inline: content generators call it for every block.
 */
static inline uint64_t rng_mix64(uint64_t z)
{
	z ^= z >> 33;
	z *= UINT64_C(0xFF51AFD7ED558CCD);
	z ^= z >> 33;
	z *= UINT64_C(0xC4CEB9FE1A85EC53);
	z ^= z >> 33;
	return z;
}

/*
 * Fisher-Yates shuffle of the n elements of size bytes (16 at most) at a,
 * drawing from one sequence of (key, index).  Deterministic for a given
 * key, index and n, and the same draws whatever the size.
 * rng_shuffle_u32() is rng_shuffle() of a uint32 array.
 */
void rng_shuffle(void *a, uint64_t n, size_t size, uint64_t key, uint64_t index);
void rng_shuffle_u32(uint32_t *a, uint64_t n, uint64_t key, uint64_t index);

/*
 * A keyed permutation of [0, n): the place of i (i < n), a pure function
 * of (i, n, key), every place taken once.  For stratified draws made on
 * demand: item i's u = (rng_permute(i, n, key) + jitter) / n puts exactly
 * one item in each of n equal strata.  Four Feistel rounds on the smallest
 * even power of two of at least n, walked until the place is below n.
 */
uint64_t rng_permute(uint64_t i, uint64_t n, uint64_t key);

/*
 * An RFC 4122 version 4 UUID as text ("xxxxxxxx-xxxx-4xxx-...") made of the
 * first two draws of (seed, stream, 0): file system and partition UUIDs
 * that the same seed always gives again.
 */
void rng_uuid(uint64_t seed, const char *stream, char out[37]);

#endif
