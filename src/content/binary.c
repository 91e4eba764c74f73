/* binary.c - other binary (compressibility, duplicate and zero blocks), random bytes, checksums */
#include <endian.h>
#include <errno.h>
#include <isa-l/crc.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "content/gen.h"
#include "content/model.h"
#include "plan/plan.h"
#include "util/rng.h"
#include "content/binary.h"

void gen_random(uint64_t key, uint64_t off, uint8_t *buf, size_t len)
{
	uint64_t s = key + (off / 8 + 1) * WY_P0;
	unsigned skip = off % 8;

	if (skip && len) {
		uint64_t v = htole64(wy_at(s));
		size_t n = MIN(8 - skip, len);

		memcpy(buf, (uint8_t *)&v + skip, n);
		s += WY_P0;
		buf += n;
		len -= n;
	}
	while (len >= 32) {
		/* four independent multiplies in flight; stored one by one (no array on the stack) */
		uint64_t v0 = htole64(wy_at(s)), v1 = htole64(wy_at(s + WY_P0));
		uint64_t v2 = htole64(wy_at(s + 2 * WY_P0)), v3 = htole64(wy_at(s + 3 * WY_P0));

		memcpy(buf, &v0, 8);
		memcpy(buf + 8, &v1, 8);
		memcpy(buf + 16, &v2, 8);
		memcpy(buf + 24, &v3, 8);
		s += 4 * WY_P0;
		buf += 32;
		len -= 32;
	}
	while (len >= 8) {
		uint64_t v = htole64(wy_at(s));

		memcpy(buf, &v, 8);
		s += WY_P0;
		buf += 8;
		len -= 8;
	}
	if (len) {
		uint64_t v = htole64(wy_at(s));

		memcpy(buf, &v, len);
	}
}

/* zlib's crc32_z() (the same value for any length and start value: tests/test_binary), by ISA-L: PCLMUL, some 10 times faster */
uint32_t gen_crc32(uint32_t crc, const uint8_t *buf, size_t len)
{
	return crc32_gzip_refl(crc, buf, len);
}

uint32_t gen_adler32(uint32_t adler, const uint8_t *buf, size_t len)
{
	return (uint32_t)adler32_z(adler, buf, len);
}

/* ------------------------------------------------------------------------- */
/*
 * "Other binary" content.  A file is a sequence of 4 KiB blocks (block b
 * covers bytes [4096 b, 4096 b + 4096)), each of one of three kinds:
 *
 * - zero: 4096 zero bytes, written as data;
 * - duplicate: a copy of block j of a pool shared by every file of the
 *   plan (the pool's content depends on the plan's seed only), j drawn
 *   from (key, b);
 * - unique: LZ-friendly bytes of (key, b), tuned for compress_ratio.
 *
 * Kinds are dealt per chunk of 64 blocks: chunk c of a file holds
 * floor(64 s (c + 1) + u) - floor(64 s c + u) blocks of a kind of share s
 * (u uniform per file and kind), at positions given by a random affine
 * permutation of the chunk.  So each block is of a kind with probability
 * exactly s, and a file's count is within one of s times its blocks: the
 * measured shares meet their targets on small images too.
 *
 * Unique blocks come in two regimes, chosen by the target ratio:
 *
 * - LZ (ratio above 1.33): random literal runs of mean length L, each
 *   followed by a back-reference of 128..384 bytes copied from earlier in
 *   the same block.  Long matches cost zlib and zstd about the same, and
 *   random literals cost both 8 bits, so both ratios follow the literal
 *   share p = L / (L + 256) alike (within 1% of each other from 1.33 to
 *   3.5, 2.5% at 4.2).  Literal runs stay short (p <= 0.72): past
 *   p = 0.8, zstd's search speeds up over long incompressible stretches,
 *   skips positions, and misses matches that zlib finds (5% apart at 0.9).
 * - skewed (ratio 1 to 1.33): no matches at all; bytes drawn from a dyadic
 *   distribution: a values of probability 4/256 and 256 - 4a values of
 *   1/256 (0 <= a <= 64), entropy 8 - a/32 bits.  Huffman codes dyadic
 *   laws exactly, so zlib and zstd agree (within 1.2%).
 *
 * The tables below map each regime's parameter to the ratio measured on
 * 16 MiB of unique blocks (the geometric mean of zlib -6 and zstd -3), by
 * `tests/test_binary --calibrate` (zlib 1.2.13, zstd 1.5.4); they are
 * fixed, so the bytes never depend on the installed compressors.
 */

#define MATCH_MIN	128u
#define MATCH_MAX	384u

/* Compressed size of a zero block within a stream, per byte (zlib ~71 bytes, zstd ~34: ~0.01). */
#define ZERO_BLOCK_COST	0.01

/*
 * Blocks of the shared pool: about this many duplicate blocks of the plan
 * per pool block, so that almost every pool block drawn is drawn again
 * (1 - e^-32 of them when every block of the plan is "other binary", still
 * 96% when a tenth is).
 */
#define POOL_REUSE	32.0

/* Blocks assumed when the model has no plan (tests, tools): 4 GiB. */
#define POOL_DEFAULT_BLOCKS (UINT64_C(1) << 20)

/*
 * How far a model's expected duplicate share may fall short of its target
 * before its pool is sized for its own blocks (pool_size()): a quarter of
 * the 0.01 a share is met within, so that noise keeps the measured share
 * inside it.
 */
#define DUP_TOPUP_SLACK 0.0025

struct calib {
	double param;
	double ratio;
};

/* LZ regime: literal share p -> ratio (geometric mean of zlib -6 and zstd -3). */
static const struct calib calib_lz[] = {
	{ 0.14, 5.5232 }, { 0.16, 4.9851 }, { 0.18, 4.5450 }, { 0.20, 4.1506 }, { 0.22, 3.8487 },
	{ 0.24, 3.5747 }, { 0.26, 3.3456 }, { 0.28, 3.1328 }, { 0.30, 2.9545 }, { 0.32, 2.7896 },
	{ 0.34, 2.6460 }, { 0.36, 2.5194 }, { 0.38, 2.3931 }, { 0.40, 2.2875 }, { 0.42, 2.1922 },
	{ 0.44, 2.0988 }, { 0.46, 2.0196 }, { 0.48, 1.9410 }, { 0.50, 1.8751 }, { 0.52, 1.8058 },
	{ 0.54, 1.7431 }, { 0.56, 1.6859 }, { 0.58, 1.6301 }, { 0.60, 1.5833 }, { 0.62, 1.5368 },
	{ 0.64, 1.4883 }, { 0.66, 1.4465 }, { 0.68, 1.4058 }, { 0.70, 1.3701 }, { 0.72, 1.3312 },
};

/* Skewed regime: a (favoured byte values) -> ratio. */
static const struct calib calib_skew[] = {
	{ 0, 0.9998 }, { 4, 1.0079 }, { 8, 1.0305 }, { 12, 1.0472 }, { 16, 1.0645 },
	{ 20, 1.0822 }, { 24, 1.1006 }, { 28, 1.1197 }, { 32, 1.1394 }, { 36, 1.1598 },
	{ 40, 1.1809 }, { 44, 1.2027 }, { 48, 1.2255 }, { 52, 1.2492 }, { 56, 1.2738 },
	{ 60, 1.2993 }, { 64, 1.3255 },
};

/*
 * Executables: the ratio of whole ELF and PE files (geometric mean of
 * zlib -6 and zstd -3 over 4 MiB files, 45% code and 15% strings of fixed
 * generators, 40% data and the PE overlay) by the ratio their data is
 * made for, measured with zero_block_share 0.02 and dup_block_share 0.05
 * (ELF within 0.3% of PE).  compress_ratio_exec picks its data's ratio
 * from it: the code and strings keep the group between 1.45 and 2.64.
 */
static const struct calib calib_exec[] = {
	{ 1.00, 1.4471 }, { 1.25, 1.6151 }, { 1.50, 1.7692 }, { 1.75, 1.8920 },
	{ 2.00, 1.9993 }, { 2.50, 2.1749 }, { 3.00, 2.3134 }, { 3.50, 2.4189 },
	{ 4.00, 2.5072 }, { 4.50, 2.5755 }, { 5.00, 2.6381 },
};

/*
 * In an image, executables come out 0.6 to 1.1% below that table (the
 * geometric mean of zlib and zstd that content-report measures in 1 MiB
 * segments, default 1 GiB images, seeds 5 and 31, for 1.5, 2.0 and 2.5):
 * they are mostly small (a mean of 290 KiB), not 4 MiB.  The table is
 * read for the target divided by that factor.
 */
#define EXEC_IMAGE_FACTOR 0.99

struct binary_model {
	uint64_t pool_key;
	uint64_t pool_blocks;		/* >= 1 */
	int own_pool;			/* sized for the model's own blocks (pool_size()) */
	uint64_t zero_frac;		/* share * 2^32 */
	uint64_t dup_frac;
	int skewed;			/* regime of unique blocks */
	uint32_t lit_span;		/* LZ: literal runs uniform in [0, lit_span) */
	unsigned favoured;		/* skewed: a */
	uint8_t lit_map[256];		/* skewed: uniform byte -> byte of the law */
	uint16_t lit_map2[65536];	/* the same for two bytes at once */
};

/* Interpolate param for a ratio along a table sorted by param (ratio monotone). */
static double calib_param(const struct calib *t, size_t n, double ratio)
{
	int rising = t[n - 1].ratio > t[0].ratio;

	for (size_t i = 0; i + 1 < n; i++) {
		double lo = t[i].ratio, hi = t[i + 1].ratio;
		int inside = rising ? ratio <= hi : ratio >= hi;

		if (inside || i + 2 == n) {
			double f = (ratio - lo) / (hi - lo);

			if (i == 0 && f < 0)
				f = 0;
			if (i + 2 == n && f > 1)
				f = 1;
			return t[i].param + f * (t[i + 1].param - t[i].param);
		}
	}
	return t[0].param;
}

/*
 * Byte values by how common they are in binaries: the favoured ones come
 * first, the ones a skewed law leaves out last.
 */
static void build_lit_map(struct binary_model *bm, unsigned a)
{
	static const uint8_t common[] = {
		0x00, 0xff, 0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x03, 0xfe,
		0x7f, 0x0f, 0xf0, 0x48, 0x89, 0x8b, 0xe8, 0x24, 0x05, 0x06, 0x07, 0x0c,
		0x18, 0x30, 0x60, 0xc0, 0x0a, 0x0d, 0x14, 0x1c, 0x28, 0x38, 0x44, 0x45,
		0x4c, 0x50, 0x55, 0x5d, 0x65, 0x74, 0x75, 0x83, 0x85, 0x8d, 0xc3, 0xc7,
		0xcc, 0xe5, 0xec, 0xf8, 0xfc, 0x09, 0x0b, 0x0e, 0x11, 0x12, 0x13, 0x15,
		0x16, 0x17, 0x19, 0x1a,
	};
	uint8_t order[256], seen[256] = { 0 };
	unsigned n = 0, slot = 0;

	for (size_t i = 0; i < ARRAY_SIZE(common); i++) {
		order[n++] = common[i];
		seen[common[i]] = 1;
	}
	for (unsigned v = 0; v < 256; v++)
		if (!seen[v])
			order[n++] = (uint8_t)v;
	/* a favoured values take 4 slots each, the next 256 - 4a one each */
	for (unsigned i = 0; i < a; i++)
		for (unsigned k = 0; k < 4; k++)
			bm->lit_map[slot++] = order[i];
	for (unsigned i = a; slot < 256; i++)
		bm->lit_map[slot++] = order[i];
	for (unsigned v = 0; v < 65536; v++)
		bm->lit_map2[v] = htole16((uint16_t)(bm->lit_map[v & 0xff] | bm->lit_map[v >> 8] << 8));
}

static uint64_t share_frac(double s)
{
	if (!(s > 0))
		return 0;
	if (s >= 1)
		return UINT64_C(1) << 32;
	return (uint64_t)llround(s * 4294967296.0);
}

/* LZ regime: literal runs uniform in [0, span) for a literal share p. */
static uint32_t lz_span(double p)
{
	double mean = (MATCH_MIN + MATCH_MAX) / 2.0 * p / (1 - p);

	return (uint32_t)lround(2 * mean) + 1;
}

/* Blocks of the plan's distinct files (whole-file copies are not generated twice). */
static uint64_t plan_blocks(const struct plan *pl)
{
	uint64_t n = 0;

	if (!pl || !pl->file_size)
		return POOL_DEFAULT_BLOCKS;
	for (uint64_t i = 0; i < pl->nfiles; i++) {
		if (pl->file_dup_of && pl->file_dup_of[i] != PLAN_NONE)
			continue;
		n += pl->file_size[i] / BLOCK;
	}
	return n;
}

/* pool_size()'s `ext` for the shared other-binary model */
static const char OWN_BINARY[] = "(other binary)";

/*
 * Blocks of the plan's distinct files that a model's data fills: those of
 * extension `ext`, or (OWN_BINARY) of the other-binary files the shared
 * model makes (content_model.binary_ext).
 */
static uint64_t own_blocks(const struct plan *pl, const uint8_t *binary_ext, const char *ext)
{
	uint8_t *mine = calloc(pl->ext.count ? pl->ext.count : 1, 1);
	uint64_t n = 0;

	if (!mine)
		return 0;
	for (size_t x = 0; x < pl->ext.count; x++)
		mine[x] = ext != OWN_BINARY ? !strcmp(pl->ext.name[x], ext) : binary_ext[x];
	for (uint64_t i = 0; i < pl->nfiles; i++)
		if (mine[pl->file_ext[i]] && !(pl->file_dup_of && pl->file_dup_of[i] != PLAN_NONE))
			n += pl->file_size[i] / BLOCK;
	free(mine);
	return n;
}

/* The expected share of duplicate blocks: D draws of share d over P pool blocks. */
static double dup_expected(double d, double draws, uint64_t pool)
{
	if (draws < 2)
		return 0;
	if (pool == 1)
		return d;
	return d * (1 - exp((draws - 1) * log1p(-1.0 / (double)pool)));
}

/*
 * The pool: sized for all the plan's blocks (about POOL_REUSE duplicate
 * blocks a pool block when every block is of the model).  When the
 * model's own files hold too few of them for their draws to repeat (their
 * expected duplicate share short of d by more than DUP_TOPUP_SLACK: few
 * other-binary files among large media, or many files under 4 KiB), the
 * pool is sized for the model's own blocks instead, so that they reach d;
 * a plan whose share is met keeps its pool, and its bytes.  ext: the
 * model's files (own_blocks()), NULL: none of its own (executables' data,
 * whose duplicate share is no target).
 */
static uint64_t pool_size(const struct content_model *cm, double d, const char *ext)
{
	const struct plan *pl = cm->pl;
	uint64_t pool = (uint64_t)llround((double)plan_blocks(pl) * d / POOL_REUSE), own;
	double draws;

	if (pool < 1)
		pool = 1;
	if (!pl || !pl->file_size || !cm->binary_ext || !(d > 0) || !ext)
		return pool;
	own = own_blocks(pl, cm->binary_ext, ext);
	draws = d * (double)own;
	if (d - dup_expected(d, draws, pool) <= DUP_TOPUP_SLACK)
		return pool;
	pool = (uint64_t)llround(draws / POOL_REUSE);
	return pool < 1 ? 1 : pool;
}

/*
 * Ratio the unique blocks must reach so that whole files, zero blocks
 * included, compress by `ratio`: (1 - z) / ru + z c = 1 / ratio.
 */
static double unique_ratio(double ratio, double z)
{
	double inv = 1.0 / ratio - z * ZERO_BLOCK_COST;

	if (z >= 1)
		return 1;
	if (inv <= 0)
		return calib_lz[0].ratio;
	return (1 - z) / inv;
}

/* Unique blocks made for ratio ru: the regime and its parameter. */
static void set_unique(struct binary_model *bm, double ru)
{
	bm->skewed = 0;
	if (ru <= calib_skew[ARRAY_SIZE(calib_skew) - 1].ratio) {
		double a = calib_param(calib_skew, ARRAY_SIZE(calib_skew), ru);

		bm->skewed = 1;
		bm->favoured = (unsigned)lround(a);
		if (bm->favoured > 64)
			bm->favoured = 64;
		build_lit_map(bm, bm->favoured);
	} else {
		bm->lit_span = lz_span(calib_param(calib_lz, ARRAY_SIZE(calib_lz), ru));
	}
}

/* A model of data that compresses by ratio, its duplicate pool drawn from stream `pool`. */
static void model_bytes(const struct binary_model *bm, uint64_t key, uint64_t size, uint64_t off,
			uint8_t *buf, size_t len);

static int binary_model_new_zd(const struct content_model *cm, double ratio, double z, double d,
			       const char *pool, const char *ext, struct binary_model **out)
{
	struct binary_model *bm;

	bm = calloc(1, sizeof(*bm));
	if (!bm)
		return -ENOMEM;
	bm->pool_key = rng_stream_key(cm->seed, pool);
	bm->zero_frac = share_frac(z);
	bm->dup_frac = share_frac(d);
	if (bm->zero_frac + bm->dup_frac > (UINT64_C(1) << 32))
		bm->dup_frac = (UINT64_C(1) << 32) - bm->zero_frac;
	bm->pool_blocks = pool_size(cm, d, ext);
	bm->own_pool = bm->pool_blocks != pool_size(cm, d, NULL);

	set_unique(bm, unique_ratio(ratio, z));
	*out = bm;
	return 0;
}

static int binary_model_new(const struct content_model *cm, double ratio, const char *pool,
			    const char *ext, struct binary_model **out)
{
	return binary_model_new_zd(cm, ratio, cm->zero_block_share, cm->dup_block_share, pool, ext,
				   out);
}

int content_binary_model_new(const struct content_model *cm, double ratio, double zero_share,
			     double dup_share, const char *pool, const char *ext, void **out)
{
	struct binary_model *bm = NULL;
	int ret;

	if (!(ratio >= 1) || !(zero_share >= 0 && dup_share >= 0 && zero_share + dup_share <= 1))
		return -EINVAL;
	ret = binary_model_new_zd(cm, ratio, zero_share, dup_share, pool, ext, &bm);
	*out = bm;
	return ret;
}

void content_binary_model_bytes(const void *bm, uint64_t key, uint64_t size, uint64_t off,
				uint8_t *buf, size_t len)
{
	model_bytes(bm, key, size, off, buf, len);
}

/*
 * Compression of small files.  A file of a few hundred bytes compresses
 * less than the same data in a large one (stream headers, little to
 * match): in a plan of many small files (100,000 files in 400 MiB: a
 * third of other binary's bytes in files under 4 KiB) the group came out
 * 1.70 for a target of 2.0.  The ratio the whole group reaches is
 * estimated from the plan itself: its other-binary segments (1 MiB, as
 * content-report cuts them) by length class, up to TOPUP_SAMPLES of each
 * made and compressed with zlib -6 (the larger ones by their first
 * TOPUP_CAP bytes), weighted by the class's bytes.  When that falls short
 * of the target by more than RATIO_SLACK, the unique blocks are made for
 * the ratio, found by bisection, at which the group meets it (the
 * largest files compress more, the smallest less, as in real data); a
 * plan that meets its ratio keeps its bytes.  Looked at only when at
 * least TOPUP_SMALL_SHARE of the bytes are in segments under 8 KiB.
 */
#define TOPUP_CLASSES     21
#define TOPUP_SEGMENT     (1u << 20)
#define TOPUP_SAMPLES     6u
#define TOPUP_CAP         (64u << 10)
#define TOPUP_SMALL_SHARE 0.03
#define RATIO_SLACK       0.025
#define TOPUP_STEPS       8

struct topup {
	uint64_t bytes[TOPUP_CLASSES];
	uint32_t n[TOPUP_CLASSES];
	uint64_t file[TOPUP_CLASSES][TOPUP_SAMPLES], off[TOPUP_CLASSES][TOPUP_SAMPLES];
	uint32_t len[TOPUP_CLASSES][TOPUP_SAMPLES];
};

static unsigned topup_class(uint64_t len)
{
	unsigned c = 0;

	while (c + 1 < TOPUP_CLASSES && (UINT64_C(2) << c) <= len)
		c++;
	return c;
}

/* The other-binary segments of the plan by class, and the first samples of each; the small share. */
static double topup_segments(const struct plan *pl, const uint8_t *mine, struct topup *t)
{
	uint64_t total = 0, small = 0;

	memset(t, 0, sizeof(*t));
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t size = pl->file_size[f];

		if (!mine[pl->file_ext[f]] || (pl->file_dup_of && pl->file_dup_of[f] != PLAN_NONE))
			continue;
		for (uint64_t off = 0; off < size; off += TOPUP_SEGMENT) {
			uint64_t len = MIN(size - off, (uint64_t)TOPUP_SEGMENT);
			unsigned c = topup_class(len);

			if (t->n[c] < TOPUP_SAMPLES) {
				t->file[c][t->n[c]] = f;
				t->off[c][t->n[c]] = off;
				t->len[c][t->n[c]++] = (uint32_t)MIN(len, (uint64_t)TOPUP_CAP);
			}
			t->bytes[c] += len;
			total += len;
			small += len < 2 * BLOCK ? len : 0;
		}
	}
	return total ? (double)small / (double)total : 0;
}

/* The group's ratio as bm makes the sampled segments: bytes over their estimated zlib size. */
static double topup_ratio(const struct binary_model *bm, const struct content_model *cm,
			  const struct topup *t, uint8_t *buf, uint8_t *out)
{
	double bytes = 0, packed = 0;

	for (unsigned c = 0; c < TOPUP_CLASSES; c++) {
		double raw = 0, z = 0;

		for (uint32_t i = 0; i < t->n[c]; i++) {
			uint64_t f = t->file[c][i];
			uLongf zl = compressBound(TOPUP_CAP);

			model_bytes(bm, rng_mix64(cm->seed ^ rng_mix64(f + 1)), cm->pl->file_size[f],
				    t->off[c][i], buf, t->len[c][i]);
			if (compress2(out, &zl, buf, t->len[c][i], 6) != Z_OK)
				return 0;
			raw += t->len[c][i];
			z += (double)zl;
		}
		if (raw > 0) {
			bytes += (double)t->bytes[c];
			packed += (double)t->bytes[c] * z / raw;
		}
	}
	return packed > 0 ? bytes / packed : 0;
}

static int ratio_topup(const struct content_model *cm, struct binary_model *bm, double ratio)
{
	struct topup *t;
	uint8_t *buf, *out;
	double lo, hi, r;
	int ret = 0;

	if (!cm->pl || !cm->pl->file_size || !cm->binary_ext)
		return 0;
	t = malloc(sizeof(*t));
	buf = malloc(TOPUP_CAP);
	out = malloc(compressBound(TOPUP_CAP));
	if (!t || !buf || !out) {
		ret = -ENOMEM;
		goto out;
	}
	if (topup_segments(cm->pl, cm->binary_ext, t) < TOPUP_SMALL_SHARE)
		goto out;
	r = topup_ratio(bm, cm, t, buf, out);
	if (!(r > 0) || r >= ratio * (1 - RATIO_SLACK))
		goto out;
	lo = unique_ratio(ratio, (double)bm->zero_frac / 4294967296.0);
	hi = calib_lz[0].ratio;
	set_unique(bm, hi);
	if (topup_ratio(bm, cm, t, buf, out) > ratio) {
		for (int s = 0; s < TOPUP_STEPS; s++) {
			double mid = (lo + hi) / 2;

			set_unique(bm, mid);
			if (topup_ratio(bm, cm, t, buf, out) < ratio)
				lo = mid;
			else
				hi = mid;
		}
		set_unique(bm, (lo + hi) / 2);
	}
out:
	free(t);
	free(buf);
	free(out);
	return ret;
}

int content_binary_init(struct content_model *cm)
{
	double z = cm->zero_block_share, d = cm->dup_block_share, x = cm->compress_ratio_exec;
	struct binary_model *bm, *em = NULL;
	int ret;

	if (!(cm->compress_ratio >= 1) || !(z >= 0 && z <= 1) || !(d >= 0 && d <= 1) ||
	    z + d > 1 + 1e-12 || !(x == 0 || x >= 1))
		return -EINVAL;
	ret = binary_model_new(cm, cm->compress_ratio, "content.pool", OWN_BINARY, &bm);
	if (!ret)
		ret = ratio_topup(cm, bm, cm->compress_ratio);
	if (ret) {
		free(bm);
		return ret;
	}
	if (x) {
		ret = binary_model_new(cm,
				       calib_param(calib_exec, ARRAY_SIZE(calib_exec),
						   x / EXEC_IMAGE_FACTOR),
				       "content.pool.exec", NULL, &em);
		if (ret) {
			free(bm);
			return ret;
		}
	}
	cm->binary_priv = bm;
	cm->binary_exec_priv = em;
	return 0;
}

void content_binary_deal(const struct content_model *cm, struct content_binary_deal *d)
{
	content_binary_model_deal(cm->binary_priv, d);
}

void content_binary_model_deal(const void *model, struct content_binary_deal *d)
{
	const struct binary_model *bm = model;

	memset(d, 0, sizeof(*d));
	if (!bm)
		return;
	d->zero_share = (double)bm->zero_frac / 4294967296.0;
	d->dup_share = (double)bm->dup_frac / 4294967296.0;
	d->pool_blocks = bm->pool_blocks;
}

void content_binary_release(struct content_model *cm)
{
	free(cm->binary_priv);
	free(cm->binary_exec_priv);
	cm->binary_priv = NULL;
	cm->binary_exec_priv = NULL;
}

/*
 * n random bytes from r into out, whole words of 8 while out has room
 * (the bytes from out + n to out + room may be written over: what
 * follows them overwrites them).
 */
static inline void fill_words(struct wy *r, uint8_t *out, unsigned n, unsigned room)
{
	unsigned i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t v = htole64(wy_next(r));

		memcpy(out + i, &v, 8);
	}
	if (i < n) {
		uint64_t v = htole64(wy_next(r));

		if (i + 8 <= room)
			memcpy(out + i, &v, 8);
		else
			memcpy(out + i, &v, n - i);
	}
}

/*
 * The block functions make the first end bytes of a block (every byte
 * depends on those before it only); out has room for BLOCK.
 */
static void block_lz(const struct binary_model *bm, struct wy *r, uint8_t *out, unsigned end)
{
	unsigned pos = 0;

	while (pos < end) {
		uint64_t x = wy_next(r);
		unsigned lit = (unsigned)(((x & 0xffffffff) * bm->lit_span) >> 32);
		unsigned len, dist;

		/* the first match needs something to copy */
		if (pos == 0 && lit < 16)
			lit = 16;
		lit = MIN(lit, BLOCK - pos);
		fill_words(r, out + pos, lit, BLOCK - pos);
		pos += lit;
		if (pos == BLOCK)
			break;
		len = MATCH_MIN + (unsigned)((((x >> 32) & 0xffff) * (MATCH_MAX - MATCH_MIN + 1)) >> 16);
		len = MIN(len, MIN(pos, BLOCK - pos));
		/* distance in [len, pos]: source and destination never overlap */
		dist = len + (unsigned)(((x >> 48) * (pos - len + 1)) >> 16);
		memcpy(out + pos, out + pos - dist, len);
		pos += len;
	}
}

static void block_skewed(const struct binary_model *bm, struct wy *r, uint8_t *out, unsigned end)
{
	if (!bm->favoured) {
		fill_words(r, out, end, BLOCK);
		return;
	}
	for (unsigned i = 0; i < end; i += 8) {
		uint64_t v = wy_next(r);
		uint16_t w[4] = {
			bm->lit_map2[v & 0xffff], bm->lit_map2[(v >> 16) & 0xffff],
			bm->lit_map2[(v >> 32) & 0xffff], bm->lit_map2[v >> 48],
		};

		memcpy(out + i, w, 8);
	}
}

static void block_unique(const struct binary_model *bm, uint64_t key, uint64_t b, uint8_t *out,
			 unsigned end)
{
	struct wy r;

	wy_open(&r, key ^ SALT_UNIQUE, b);
	if (bm->skewed)
		block_skewed(bm, &r, out, end);
	else
		block_lz(bm, &r, out, end);
}

/* Blocks of a kind of share frac in chunk c, offset u (32-bit fraction). */
static inline unsigned chunk_count(uint64_t c, uint64_t frac, uint64_t u)
{
	unsigned __int128 step = (unsigned __int128)frac * CHUNK_BLOCKS;

	return (unsigned)((((unsigned __int128)(c + 1) * step + u) >> 32) -
			  (((unsigned __int128)c * step + u) >> 32));
}

enum block_kind { BLOCK_UNIQUE, BLOCK_ZERO, BLOCK_DUP };

static enum block_kind block_kind(const struct binary_model *bm, uint64_t key, uint64_t b)
{
	uint64_t c = b / CHUNK_BLOCKS, h;
	unsigned slot, nz, nd;

	if (!bm->zero_frac && !bm->dup_frac)
		return BLOCK_UNIQUE;
	h = rng_mix64(key ^ rng_mix64(c ^ SALT_KIND));
	/* an affine permutation of the chunk's 64 positions */
	slot = (unsigned)(((b % CHUNK_BLOCKS) ^ (h >> 12)) * ((h & 63) | 1) + (h >> 6)) &
	       (CHUNK_BLOCKS - 1);
	nz = chunk_count(c, bm->zero_frac, rng_mix64(key ^ SALT_ZERO) >> 32);
	if (slot < nz)
		return BLOCK_ZERO;
	nd = chunk_count(c, bm->dup_frac, rng_mix64(key ^ SALT_DUP) >> 32);
	return slot < nz + nd ? BLOCK_DUP : BLOCK_UNIQUE;
}

/* The pool block that block b of the file of key draws. */
static uint64_t pool_block(const struct binary_model *bm, uint64_t key, uint64_t b)
{
	return below(rng_mix64(key ^ rng_mix64(b ^ SALT_POOL)), bm->pool_blocks);
}

int content_binary_model_pool_block(const void *model, uint64_t key, uint64_t b, uint64_t *pool)
{
	const struct binary_model *bm = model;

	if (!bm || block_kind(bm, key, b) != BLOCK_DUP)
		return 0;
	*pool = pool_block(bm, key, b);
	return 1;
}

/*
 * Block b of a file of `size` bytes (UINT64_MAX: not known).  With a pool
 * of the model's own (its blocks are few), a file's last, partial block
 * is never drawn from it: it cannot be a duplicate block, and small files
 * drawing their bytes from a few pool blocks would be copies by chance.
 * Its first end bytes (out has room for BLOCK).
 */
static void binary_block(const struct binary_model *bm, uint64_t key, uint64_t size, uint64_t b,
			 uint8_t *out, unsigned end)
{
	enum block_kind k = block_kind(bm, key, b);

	if (k == BLOCK_DUP && bm->own_pool && (b + 1) * BLOCK > size)
		k = BLOCK_UNIQUE;
	switch (k) {
	case BLOCK_ZERO:
		memset(out, 0, end);
		break;
	case BLOCK_DUP:
		block_unique(bm, bm->pool_key, pool_block(bm, key, b), out, end);
		break;
	case BLOCK_UNIQUE:
		block_unique(bm, key, b, out, end);
		break;
	}
}

/* Bytes [off, off + len) of model bm's data for key, of a file of `size` bytes (binary_block()). */
static void model_bytes(const struct binary_model *bm, uint64_t key, uint64_t size, uint64_t off,
			uint8_t *buf, size_t len)
{
	uint8_t tmp[BLOCK];

	if (!bm) {
		/* no model: incompressible, and still a pure function of (key, off) */
		gen_random(key ^ SALT_UNIQUE, off, buf, len);
		return;
	}
	while (len) {
		uint64_t b = off / BLOCK;
		unsigned in = off % BLOCK;
		size_t n = MIN((size_t)(BLOCK - in), len);

		if (n == BLOCK) {
			binary_block(bm, key, size, b, buf, BLOCK);
		} else {
			binary_block(bm, key, size, b, tmp, (unsigned)(in + n));
			memcpy(buf, tmp + in, n);
		}
		buf += n;
		off += n;
		len -= n;
	}
}

void gen_binary_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		      size_t len)
{
	model_bytes(cm ? cm->binary_priv : NULL, key, UINT64_MAX, off, buf, len);
}

void gen_exec_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		    size_t len)
{
	const struct binary_model *bm = cm ? cm->binary_exec_priv : NULL;

	model_bytes(bm ? bm : cm ? cm->binary_priv : NULL, key, UINT64_MAX, off, buf, len);
}

static int binary_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	model_bytes(g->cm ? g->cm->binary_priv : NULL, g->key, g->size, off, buf, len);
	return 0;
}

const struct gen_ops gen_binary_ops = {
	.name = "binary",
	.min_size = 0,
	.fill = binary_fill,
};
