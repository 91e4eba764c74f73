/* binary.h - internal to src/content: what the executables (exec.c) take from binary.c */
#ifndef IMPRINT_CONTENT_BINARY_H
#define IMPRINT_CONTENT_BINARY_H

#include <stddef.h>
#include <stdint.h>

#include "content/model.h"
#include "util/rng.h"
#include "util/util.h"

#define BLOCK		4096u
#define CHUNK_BLOCKS	64u	/* zero and duplicate blocks are dealt out per 64-block chunk */

/* Salts: every draw of this file comes from (key, salt, index), never twice the same. */
#define SALT_KIND	UINT64_C(0x243F6A8885A308D3)
#define SALT_ZERO	UINT64_C(0x13198A2E03707344)
#define SALT_DUP	UINT64_C(0xA4093822299F31D0)
#define SALT_POOL	UINT64_C(0x082EFA98EC4E6C89)
#define SALT_UNIQUE	UINT64_C(0x452821E638D01377)
#define SALT_CODE	UINT64_C(0xBE5466CF34E90C6C)
#define SALT_STR	UINT64_C(0xC0AC29B7C97C50DD)
#define SALT_META	UINT64_C(0x3F84D5B5B5470917)
#define SALT_NOTE	UINT64_C(0x9216D5D98979FB1B)
#define SALT_BSS	UINT64_C(0xD1310BA698DFB5AC)
#define SALT_PE		UINT64_C(0x2FFD72DBD01ADFB7)

#define ALIGN_UP(x, a) (((x) + (a) - 1) / (a) * (a))

/* A uniform integer in [0, n) from 64 random bits (multiply-high; bias < 2^-32 for n < 2^32). */
static inline uint64_t below(uint64_t x, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

/*
 * The bulk generator: wyrand (Wang Yi's counter generator, which passes
 * BigCrush and PractRand), word w of stream key being the output for
 * state key + (w + 1) P0.  One 64x64->128 multiply per 8 bytes, so it is
 * random-access and about three times faster than a splitmix64 stream.
 */
#define WY_P0 UINT64_C(0xA0761D6478BD642F)
#define WY_P1 UINT64_C(0xE7037ED1A0B428DB)

struct wy {
	uint64_t s;
};

static inline uint64_t wy_at(uint64_t s)
{
	unsigned __int128 m = (unsigned __int128)s * (s ^ WY_P1);

	return (uint64_t)m ^ (uint64_t)(m >> 64);
}

static inline void wy_open(struct wy *r, uint64_t key, uint64_t index)
{
	r->s = rng_mix64(key ^ rng_mix64(index + WY_P1));
}

static inline uint64_t wy_next(struct wy *r)
{
	r->s += WY_P0;
	return wy_at(r->s);
}

/* The data of executables: made for compress_ratio_exec when the model has it. */
void gen_exec_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		    size_t len);

/*
 * A model of other-binary data of its own (a profile's extension,
 * content/extc.c): compress ratio `ratio`, zero and duplicate 4 KiB block
 * shares, the duplicate pool drawn from stream `pool` and sized, when
 * they would fall short otherwise, for the blocks of the plan's files of
 * extension `ext`.  *out is freed with free().  0, -EINVAL or -ENOMEM.  Its bytes: content_binary_model_bytes(),
 * for a file of `size` bytes (UINT64_MAX: not known).
 */
int content_binary_model_new(const struct content_model *cm, double ratio, double zero_share,
			     double dup_share, const char *pool, const char *ext, void **out);
struct content_binary_deal;

/* How a model of content_binary_model_new() deals its blocks (content_binary_deal()). */
void content_binary_model_deal(const void *bm, struct content_binary_deal *d);
void content_binary_model_bytes(const void *bm, uint64_t key, uint64_t size, uint64_t off,
				uint8_t *buf, size_t len);

/*
 * 1 when block b (4 KiB) of the file of key is one the model draws from
 * its duplicate pool (*pool: which pool block), else 0; its zero and
 * unique blocks are the caller's to make (text of a profile's extension,
 * content/extc.c, draws its duplicate blocks this way).
 */
int content_binary_model_pool_block(const void *bm, uint64_t key, uint64_t b, uint64_t *pool);

#endif
