/* test_content_stats.c - content report arithmetic on known inputs: duplicates, zero blocks, compression, types */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <zlib.h>
#include <zstd.h>

#include "content/registry.h"
#include "content/gen.h"
#include "analysis/content_stats.h"

#define MIB (1024 * 1024)

/* Incompressible bytes, the same for the same seed. */
static void fill_random(uint8_t *buf, size_t len, uint64_t seed)
{
	uint64_t x = seed * UINT64_C(0x9e3779b97f4a7c15) + 1;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (uint8_t)(x >> 24);
	}
}

static struct content_stats *new_stats(double share, int no_magic)
{
	struct content_stats *st = malloc(sizeof(*st));
	struct content_stats_opts o = { .sample_share = share, .no_magic = no_magic };

	assert_non_null(st);
	assert_int_equal(content_stats_init(st, &o), 0);
	return st;
}

static void free_stats(struct content_stats *st)
{
	content_stats_release(st);
	free(st);
}

/* Feed buf as one file, in chunks of the given lengths, cycling through them. */
static void feed_chunked(struct content_stats *st, const char *path, const uint8_t *buf,
			 size_t len, const size_t *chunks, size_t nchunks)
{
	size_t off = 0, k = 0;

	assert_int_equal(content_stats_begin(st, path, len), 0);
	while (off < len) {
		size_t n = chunks[k++ % nchunks];

		if (n > len - off)
			n = len - off;
		assert_int_equal(content_stats_data(st, buf + off, n), 0);
		off += n;
	}
	assert_int_equal(content_stats_end(st), 0);
}

static void test_ext_of_path(void **state)
{
	static const struct {
		const char *path, *ext;
	} cases[] = {
		{ "/a/b/report.TXT", "txt" }, { "IMG_0042.JPG", "jpg" },
		{ "/lib/libz.so.1.2.13", "so" }, { "/lib/libfoo.so.6", "so" },
		{ "/lib/libc-2.31.so", "so" }, { "/x/.profile", "" },
		{ "/x/README", "" }, { "/x/ls.1", "1" }, { "/x/a.tar.gz", "gz" },
		{ "/x.d/file", "" }, { "/x/name.", "" }, { "/x/v1.2", "2" },
		{ "/x/data~f1z.bin", "bin" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = content_ext_of_path(cases[i].path, buf, sizeof(buf));

		assert_string_equal(buf, cases[i].ext);
		assert_int_equal(n, strlen(cases[i].ext));
	}
	assert_int_equal(content_group_of_ext("txt"), CONTENT_TEXT);
	assert_int_equal(content_group_of_ext("html"), CONTENT_TEXT);
	assert_int_equal(content_group_of_ext("c"), CONTENT_TEXT);
	assert_int_equal(content_group_of_ext("jpg"), CONTENT_MEDIA);
	assert_int_equal(content_group_of_ext("mp3"), CONTENT_MEDIA);
	assert_int_equal(content_group_of_ext("dll"), CONTENT_EXEC);
	assert_int_equal(content_group_of_ext("so"), CONTENT_EXEC);
	assert_int_equal(content_group_of_ext(""), CONTENT_BINARY);
	assert_int_equal(content_group_of_ext("pdb"), CONTENT_BINARY);
	/* "other binary" is exactly what the binary generator writes */
	static const char *const exts[] = {
		"", "txt", "htm", "h", "cpp", "jpg", "gif", "png", "exe", "dll", "pdb", "lib", "pst",
		"pch", "mp3", "wma", "vhd", "pdf", "mpg", "zip", "gz", "tar", "bin", "dat", "iso",
	};
	for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++)
		assert_int_equal(content_group_of_ext(exts[i]) == CONTENT_BINARY,
				 content_ext_ops(exts[i]) == &gen_binary_ops);
	assert_non_null(content_typed_mimes("png"));
	assert_null(content_typed_mimes("txt"));
}

/* Six files, three contents: all but one file per content is a duplicate. */
static void test_dup_files(void **state)
{
	struct content_stats *st = new_stats(0, 1);
	uint8_t *a = malloc(8192), *b = malloc(5000), c[100];

	(void)state;
	fill_random(a, 8192, 1);
	fill_random(b, 5000, 2);
	fill_random(c, sizeof(c), 3);
	assert_int_equal(content_stats_add(st, "/a1", a, 8192), 0);
	assert_int_equal(content_stats_add(st, "/b1", b, 5000), 0);
	assert_int_equal(content_stats_add(st, "/a2", a, 8192), 0);
	assert_int_equal(content_stats_add(st, "/c1", c, sizeof(c)), 0);
	assert_int_equal(content_stats_add(st, "/a3", a, 8192), 0);
	assert_int_equal(content_stats_add(st, "/b2", b, 5000), 0);
	/* same first 99 bytes, one more: not a duplicate */
	assert_int_equal(content_stats_add(st, "/c-short", c, sizeof(c) - 1), 0);

	assert_int_equal(st->all.files, 7);
	assert_int_equal(st->all.dup_files, 3);
	assert_true(content_dup_file_share(&st->all) == 3.0 / 7.0);
	/* blocks count in distinct files only: a 2, b 1, c none; copies add no duplicates */
	assert_int_equal(st->all.blocks, 3);
	assert_int_equal(st->all.dup_blocks, 0);
	assert_int_equal(st->all.bytes, 3 * 8192 + 2 * 5000 + 2 * sizeof(c) - 1);
	assert_int_equal(st->group[CONTENT_BINARY].dup_files, 3);
	free(a);
	free(b);
	free_stats(st);
}

/*
 * x = [R1 R2 Z R1 + 100-byte tail], y = [R2 R3 Z Z]: 8 blocks, 3 zero,
 * 5 non-zero of 3 contents: R1 and R2 twice each, so 4 duplicate blocks
 * counting every occurrence, 2 counting all but one; fed whole, in odd
 * chunks, and in the other order, the figures are the same.
 */
static void blocks_case(struct content_stats *st, const size_t *chunks, size_t nchunks,
			int reverse)
{
	enum { B = 4096 };
	uint8_t *x = calloc(1, 4 * B + 100), *y = calloc(1, 4 * B);

	fill_random(x, B, 11);          /* R1 */
	fill_random(x + B, B, 12);      /* R2 */
	memcpy(x + 3 * B, x, B);        /* R1 again */
	fill_random(x + 4 * B, 100, 13);
	memcpy(y, x + B, B);            /* R2 again */
	fill_random(y + B, B, 14);      /* R3 */
	if (!reverse) {
		feed_chunked(st, "/x", x, 4 * B + 100, chunks, nchunks);
		feed_chunked(st, "/y", y, 4 * B, chunks, nchunks);
	} else {
		feed_chunked(st, "/y", y, 4 * B, chunks, nchunks);
		feed_chunked(st, "/x", x, 4 * B + 100, chunks, nchunks);
	}
	free(x);
	free(y);
}

static void test_dup_and_zero_blocks(void **state)
{
	static const size_t whole[] = { SIZE_MAX };
	static const size_t odd[] = { 1, 7, 4095, 5000, 3, 8192 };
	const size_t *how[] = { whole, odd, whole };
	size_t nhow[] = { 1, 6, 1 };

	(void)state;
	for (int k = 0; k < 3; k++) {
		struct content_stats *st = new_stats(0, 1);

		blocks_case(st, how[k], nhow[k], k == 2);
		assert_int_equal(st->all.files, 2);
		assert_int_equal(st->all.blocks, 8);
		assert_int_equal(st->all.zero_blocks, 3);
		assert_int_equal(st->all.dup_blocks, 4);
		assert_int_equal(st->all.dedup_blocks, 2);
		assert_true(content_dup_block_share(&st->all) == 4.0 / 8.0);
		assert_true(content_dedup_block_share(&st->all) == 2.0 / 8.0);
		assert_true(content_zero_block_share(&st->all) == 3.0 / 8.0);
		assert_int_equal(st->all.dup_files, 0);
		assert_int_equal(st->group[CONTENT_BINARY].dup_blocks, 4);
		assert_int_equal(st->group[CONTENT_BINARY].dedup_blocks, 2);
		free_stats(st);
	}
}

/*
 * Duplicates are counted per group too: a.txt = [R1 R2], b.bin = [R1 R3],
 * c.bin = [R3 R4], d.bin = c.bin, e.bin = [R5 R5 R5].  R1 repeats across
 * groups only, R3 within the binary group; R5 three times in one file.
 */
static void test_groups(void **state)
{
	enum { B = 4096 };
	uint8_t r[6][B], f[3 * B];
	struct content_stats *st = new_stats(0, 1);

	(void)state;
	for (int i = 1; i <= 5; i++)
		fill_random(r[i], B, 20 + i);
	memcpy(f, r[1], B);
	memcpy(f + B, r[2], B);
	assert_int_equal(content_stats_add(st, "/d/a.txt", f, 2 * B), 0);
	memcpy(f + B, r[3], B);
	assert_int_equal(content_stats_add(st, "/d/b.bin", f, 2 * B), 0);
	memcpy(f, r[3], B);
	memcpy(f + B, r[4], B);
	assert_int_equal(content_stats_add(st, "/d/c.bin", f, 2 * B), 0);
	assert_int_equal(content_stats_add(st, "/d/d.bin", f, 2 * B), 0);
	for (int i = 0; i < 3; i++)
		memcpy(f + i * B, r[5], B);
	assert_int_equal(content_stats_add(st, "/d/e.bin", f, 3 * B), 0);

	assert_int_equal(st->all.files, 5);
	assert_int_equal(st->all.dup_files, 1);
	assert_int_equal(st->all.blocks, 9);
	assert_int_equal(st->all.dup_blocks, 2 + 2 + 3);
	assert_int_equal(st->all.dedup_blocks, 1 + 1 + 2);
	assert_int_equal(st->group[CONTENT_TEXT].files, 1);
	assert_int_equal(st->group[CONTENT_TEXT].blocks, 2);
	assert_int_equal(st->group[CONTENT_TEXT].dup_blocks, 0);
	assert_int_equal(st->group[CONTENT_BINARY].files, 4);
	assert_int_equal(st->group[CONTENT_BINARY].dup_files, 1);
	assert_int_equal(st->group[CONTENT_BINARY].blocks, 7);
	assert_int_equal(st->group[CONTENT_BINARY].dup_blocks, 2 + 3);
	assert_int_equal(st->group[CONTENT_BINARY].dedup_blocks, 1 + 2);
	free_stats(st);
}

/* One segment: exactly what zlib's compress2() and ZSTD_compress() give. */
static void test_compress_one_segment(void **state)
{
	enum { N = 300000 };
	uint8_t *buf = malloc(N);
	uLongf zl = compressBound(N);
	size_t zsl = ZSTD_compressBound(N);
	uint8_t *out = malloc(zl > zsl ? zl : zsl);
	struct content_stats *st = new_stats(1, 1);

	(void)state;
	/* compressible: random runs between runs of one byte */
	fill_random(buf, N, 7);
	for (size_t i = 0; i < N; i += 64)
		memset(buf + i, 'a', 32);
	assert_int_equal(content_stats_add(st, "/x.bin", buf, N), 0);
	assert_int_equal(compress2(out, &zl, buf, N, 6), Z_OK);
	zsl = ZSTD_compress(out, zsl, buf, N, 3);
	assert_false(ZSTD_isError(zsl));
	assert_int_equal(st->all.sampled_bytes, N);
	assert_int_equal(st->all.zlib_bytes, zl);
	assert_int_equal(st->all.zstd_bytes, zsl);
	assert_true(content_ratio_zlib(&st->all) > 1.5);
	free(buf);
	free(out);
	free_stats(st);
}

/*
 * Known ratios: random data does not compress (ratio just below 1), zeros
 * compress enormously, and a file of alternating random and zero 4 KiB
 * blocks compresses to about half, in 1 MiB segments of their own.
 */
static void test_compress_ratios(void **state)
{
	enum { N = 3 * MIB + 12345 };
	uint8_t *buf = malloc(N);
	static const size_t odd[] = { 777, 65536, 1, 1048576 };
	struct content_stats *st;

	(void)state;
	st = new_stats(1, 1);
	fill_random(buf, N, 8);
	feed_chunked(st, "/r.bin", buf, N, odd, 4);
	assert_int_equal(st->all.sampled_bytes, N);
	assert_true(content_ratio_zlib(&st->all) < 1.0);
	assert_true(content_ratio_zlib(&st->all) > 0.99);
	assert_true(content_ratio_zstd(&st->all) < 1.0);
	assert_true(content_ratio_zstd(&st->all) > 0.99);
	free_stats(st);

	st = new_stats(1, 1);
	memset(buf, 0, N);
	feed_chunked(st, "/z.bin", buf, N, odd, 4);
	assert_true(content_ratio_zlib(&st->all) > 500);
	assert_true(content_ratio_zstd(&st->all) > 500);
	assert_int_equal(st->all.zero_blocks, N / 4096);
	free_stats(st);

	st = new_stats(1, 1);
	fill_random(buf, N, 9);
	for (size_t i = 4096; i < N; i += 8192)
		memset(buf + i, 0, i + 4096 <= N ? 4096 : N - i);
	feed_chunked(st, "/half.bin", buf, N, odd, 4);
	/* the random half costs a little more than its size: just under 2 */
	assert_true(content_ratio_zlib(&st->all) > 1.95 && content_ratio_zlib(&st->all) < 2.0);
	assert_true(content_ratio_zstd(&st->all) > 1.95 && content_ratio_zstd(&st->all) < 2.0);
	assert_float_equal(content_zero_block_share(&st->all), 0.5, 0.001);
	assert_int_equal(st->group[CONTENT_BINARY].sampled_bytes, N);
	assert_int_equal(st->group[CONTENT_TEXT].sampled_bytes, 0);

	/* each 1 MiB segment is its own stream: the sum of compress2() of each */
	uLong total = 0;
	uint8_t *out = malloc(compressBound(MIB));

	for (size_t off = 0; off < N; off += MIB) {
		uLongf zl = compressBound(MIB);

		assert_int_equal(compress2(out, &zl, buf + off, N - off < MIB ? N - off : MIB, 6),
				 Z_OK);
		total += zl;
	}
	assert_int_equal(st->all.zlib_bytes, total);
	free(out);
	free_stats(st);
	free(buf);
}

/* A share of segments is sampled, the same ones every time; share 0 samples none. */
static void test_sampling(void **state)
{
	enum { FILES = 400, LEN = 2000 };
	uint8_t buf[LEN];
	char path[64];
	uint64_t first = 0;

	(void)state;
	for (int run = 0; run < 2; run++) {
		struct content_stats *st = new_stats(0.25, 1);

		for (int i = 0; i < FILES; i++) {
			/* distinct files: copies are never sampled */
			fill_random(buf, LEN, 100 + i);
			snprintf(path, sizeof(path), "/dir/file%d", i);
			assert_int_equal(content_stats_add(st, path, buf, LEN), 0);
		}
		uint64_t n = st->all.sampled_bytes / LEN;

		/* binomial(400, 0.25): mean 100, sd 8.7 */
		assert_true(n > FILES * 0.25 - 3 * 8.7 && n < FILES * 0.25 + 3 * 8.7);
		if (run == 0)
			first = st->all.sampled_bytes;
		else
			assert_int_equal(st->all.sampled_bytes, first);
		free_stats(st);
	}
	struct content_stats *st = new_stats(0, 1);

	assert_int_equal(content_stats_add(st, "/a", buf, LEN), 0);
	assert_int_equal(st->all.sampled_bytes, 0);
	assert_true(content_ratio_zlib(&st->all) == 0);
	free_stats(st);
}

/*
 * Compressor threads give the same figures as compressing in the caller:
 * files of several segments, some copies, a sampled share.
 */
static size_t threads_len(int i)
{
	return (size_t)(i % 7) * MIB / 2 + (size_t)i * 1000;
}

static void test_threads(void **state)
{
	enum { FILES = 24 };
	struct content_stats *st[2];
	uint8_t *buf = malloc(4 * MIB);
	char path[64];

	(void)state;
	for (int k = 0; k < 2; k++) {
		struct content_stats_opts o = { .sample_share = 0.6, .no_magic = 1, .jobs = 2 * k };

		st[k] = malloc(sizeof(*st[k]));
		assert_non_null(st[k]);
		assert_int_equal(content_stats_init(st[k], &o), 0);
		for (int i = 0; i < FILES; i++) {
			/* every fourth file a copy of the one before */
			int src = i % 4 == 3 ? i - 1 : i;
			size_t len = threads_len(src);

			fill_random(buf, len, (uint64_t)src);
			for (size_t off = 0; off < len; off += 8192)
				memset(buf + off, 'x', len - off < 2048 ? len - off : 2048);
			snprintf(path, sizeof(path), "/t/f%d.dat", i);
			assert_int_equal(content_stats_add(st[k], path, buf, len), 0);
		}
		assert_int_equal(content_stats_finish(st[k]), 0);
	}
	assert_true(st[0]->all.sampled_bytes > 0);
	assert_int_equal(st[0]->all.dup_files, FILES / 4);
	assert_memory_equal(&st[0]->all, &st[1]->all, sizeof(st[0]->all));
	assert_memory_equal(st[0]->group, st[1]->group, sizeof(st[0]->group));
	for (int k = 0; k < 2; k++)
		free_stats(st[k]);
	free(buf);
}

/* libmagic: a PNG and a gzip stream are identified, a random "png" is not. */
static void test_types(void **state)
{
	static const uint8_t png[] = {
		0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n',
		0, 0, 0, 13, 'I', 'H', 'D', 'R', 0, 0, 0, 16, 0, 0, 0, 16, 8, 2, 0, 0, 0,
		0x90, 0x91, 0x68, 0x36,
	};
	static const char text[] = "The quick brown fox jumps over the lazy dog.\n"
				   "A second line of plain text, as text files have.\n";
	uint8_t gz[256], junk[4096];
	z_stream z = { 0 };
	struct content_stats *st = new_stats(1, 0);

	(void)state;
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)text;
	z.avail_in = sizeof(text) - 1;
	z.next_out = gz;
	z.avail_out = sizeof(gz);
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t gzlen = z.total_out;

	deflateEnd(&z);
	fill_random(junk, sizeof(junk), 12);

	assert_int_equal(content_stats_add(st, "/pics/a.PNG", png, sizeof(png)), 0);
	assert_int_equal(content_stats_add(st, "/a/notes.txt.gz", gz, gzlen), 0);
	assert_int_equal(content_stats_add(st, "/pics/broken.png", junk, sizeof(junk)), 0);
	assert_int_equal(content_stats_add(st, "/doc/readme.txt", text, sizeof(text) - 1), 0);
	content_stats_finish(st);

	assert_int_equal(st->typed_files, 3);
	assert_int_equal(st->typed_identified, 2);
	assert_int_equal(st->nmiss, 1);
	assert_string_equal(st->miss[0].path, "/pics/broken.png");
	assert_string_equal(st->miss[0].got, "application/octet-stream");
	assert_int_equal(st->nmime, 4);
	for (size_t i = 0; i < st->nmime; i++)
		assert_int_equal(st->mime[i].files, 1);
	/* same counts: sorted by name */
	assert_string_equal(st->mime[0].type, "application/gzip");
	assert_string_equal(st->mime[1].type, "application/octet-stream");
	assert_string_equal(st->mime[2].type, "image/png");
	assert_string_equal(st->mime[3].type, "text/plain");
	free_stats(st);
}

/* The compressed sizes of buf as one segment: zlib level 6 and zstd level 3. */
static void squeeze_one(const uint8_t *buf, size_t len, uint64_t *zl, uint64_t *zs)
{
	uLongf l = compressBound(len);
	size_t sl = ZSTD_compressBound(len);
	uint8_t *out = malloc(l > sl ? l : sl);

	assert_non_null(out);
	assert_int_equal(compress2(out, &l, buf, len, 6), Z_OK);
	sl = ZSTD_compress(out, sl, buf, len, 3);
	assert_false(ZSTD_isError(sl));
	*zl = l;
	*zs = sl;
	free(out);
}

/*
 * A file of 3 MiB + 100 bytes with holes (zeros, as a reader sees them):
 * blocks 2-3; [1 MiB, 2 MiB), given in two touching halves (segment 1 all
 * hole); [2 MiB + 1000, 2 MiB + 9192), which holds block 513 only; and a
 * trailing one from block 767 to the end (segment 3 all hole).  Block 5
 * is written zeros, block 7 repeats block 6.  Fed whole and in odd chunks,
 * compressed here and by two threads: 260 hole blocks, 508 blocks, one
 * zero block, two duplicates, and segments 0 and 2 compressed without
 * their hole bytes.
 */
static void test_holes(void **state)
{
	enum { B = 4096 };
	static const struct content_hole hole[] = {
		{ 2 * B, 2 * B }, { MIB, MIB / 2 }, { 3 * MIB / 2, MIB / 2 },
		{ 2 * MIB + 1000, 2 * B }, { 3 * MIB - B, B + 100 },
	};
	static const size_t whole[] = { SIZE_MAX };
	static const size_t odd[] = { 1, 7, 4095, 5000, 3, 8192, 100000 };
	const size_t len = 3 * MIB + 100;
	uint8_t *buf = malloc(len), *seg = malloc(MIB);
	uint64_t want_zl = 0, want_zs = 0, want_sampled, zl, zs;
	size_t n;

	(void)state;
	assert_non_null(buf);
	assert_non_null(seg);
	fill_random(buf, len, 41);
	memset(buf + 5 * B, 0, B);
	memcpy(buf + 7 * B, buf + 6 * B, B);
	for (size_t i = 0; i < sizeof(hole) / sizeof(hole[0]); i++)
		memset(buf + hole[i].off, 0, hole[i].len);
	/* segment 0 without blocks 2-3; segment 2 without its two holes */
	memcpy(seg, buf, 2 * B);
	memcpy(seg + 2 * B, buf + 4 * B, MIB - 4 * B);
	squeeze_one(seg, MIB - 2 * B, &zl, &zs);
	want_zl += zl;
	want_zs += zs;
	n = 1000;
	memcpy(seg, buf + 2 * MIB, n);
	memcpy(seg + n, buf + 2 * MIB + 1000 + 2 * B, MIB - B - 1000 - 2 * B);
	n += MIB - B - 1000 - 2 * B;
	squeeze_one(seg, n, &zl, &zs);
	want_zl += zl;
	want_zs += zs;
	want_sampled = MIB - 2 * B + n;

	for (int k = 0; k < 3; k++) {
		struct content_stats_opts o = { .sample_share = 1, .no_magic = 1, .jobs = k == 2 ? 2 : 0 };
		struct content_stats st;
		const size_t *chunks = k ? odd : whole;
		size_t nchunks = k ? sizeof(odd) / sizeof(odd[0]) : 1, off = 0, c = 0;
		const struct content_group_stats *g = &st.group[CONTENT_BINARY];

		assert_int_equal(content_stats_init(&st, &o), 0);
		assert_int_equal(content_stats_begin(&st, "/h.bin", len), 0);
		for (size_t i = 0; i < sizeof(hole) / sizeof(hole[0]); i++)
			assert_int_equal(content_stats_hole(&st, hole[i].off, hole[i].len), 0);
		while (off < len) {
			size_t m = chunks[c++ % nchunks];

			if (m > len - off)
				m = len - off;
			assert_int_equal(content_stats_data(&st, buf + off, m), 0);
			off += m;
		}
		assert_int_equal(content_stats_end(&st), 0);
		assert_int_equal(content_stats_finish(&st), 0);
		printf("# holes (%s): %llu hole blocks, %llu blocks, %llu zero, %llu dup, "
		       "%llu of %zu bytes compressed\n",
		       k == 0 ? "whole" : k == 1 ? "odd chunks" : "2 threads",
		       (unsigned long long)g->hole_blocks, (unsigned long long)g->blocks,
		       (unsigned long long)g->zero_blocks, (unsigned long long)g->dup_blocks,
		       (unsigned long long)g->sampled_bytes, len);
		assert_int_equal(g->hole_blocks, 260);
		assert_int_equal(st.all.hole_blocks, 260);
		assert_int_equal(g->blocks, 768 - 260);
		assert_int_equal(g->zero_blocks, 1);
		assert_int_equal(g->dup_blocks, 2);
		assert_int_equal(g->dedup_blocks, 1);
		assert_int_equal(g->sampled_bytes, want_sampled);
		assert_int_equal(g->zlib_bytes, want_zl);
		assert_int_equal(g->zstd_bytes, want_zs);
		content_stats_release(&st);
	}

	/* the same bytes without holes: the zeros are zero blocks and compressed */
	{
		struct content_stats *st = new_stats(1, 1);

		assert_int_equal(content_stats_add(st, "/h.bin", buf, len), 0);
		content_stats_finish(st);
		assert_int_equal(st->all.hole_blocks, 0);
		assert_int_equal(st->all.blocks, 768);
		assert_int_equal(st->all.zero_blocks, 1 + 2 + 256 + 1 + 1);
		assert_int_equal(st->all.sampled_bytes, len);
		free_stats(st);
	}
	free(buf);
	free(seg);
}

/* Holes out of order, overlapping, past the size or after the data are errors. */
static void test_hole_errors(void **state)
{
	struct content_stats *st = new_stats(1, 1);
	uint8_t buf[8192] = { 0 };

	(void)state;
	assert_int_equal(content_stats_hole(st, 0, 4096), -EINVAL);
	assert_int_equal(content_stats_begin(st, "/a", 8192), 0);
	assert_int_equal(content_stats_hole(st, 4096, 8192), -EINVAL);
	assert_int_equal(content_stats_hole(st, 4096, 4096), 0);
	assert_int_equal(content_stats_hole(st, 0, 4096), -EINVAL);
	assert_int_equal(content_stats_hole(st, 6000, 100), -EINVAL);
	assert_int_equal(content_stats_hole(st, 8192, 0), 0);
	assert_int_equal(content_stats_data(st, buf, 100), 0);
	assert_int_equal(content_stats_hole(st, 8192, 0), -EINVAL);
	assert_int_equal(content_stats_data(st, buf + 100, 8092), 0);
	assert_int_equal(content_stats_end(st), 0);
	assert_int_equal(st->all.hole_blocks, 1);
	assert_int_equal(st->all.zero_blocks, 1);
	free_stats(st);
}

/* Calls out of order and a size that does not match the bytes are errors. */
static void test_errors(void **state)
{
	struct content_stats *st = new_stats(1, 1);
	uint8_t buf[10] = { 0 };

	(void)state;
	assert_int_equal(content_stats_data(st, buf, 1), -EINVAL);
	assert_int_equal(content_stats_end(st), -EINVAL);
	assert_int_equal(content_stats_begin(st, "/a", 10), 0);
	assert_int_equal(content_stats_begin(st, "/b", 10), -EINVAL);
	assert_int_equal(content_stats_data(st, buf, 5), 0);
	assert_int_equal(content_stats_end(st), -EIO);
	assert_int_equal(content_stats_begin(st, "/c", 4), 0);
	assert_int_equal(content_stats_data(st, buf, 5), -EIO);
	free_stats(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext_of_path),
		cmocka_unit_test(test_dup_files),
		cmocka_unit_test(test_dup_and_zero_blocks),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_compress_one_segment),
		cmocka_unit_test(test_compress_ratios),
		cmocka_unit_test(test_sampling),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_holes),
		cmocka_unit_test(test_hole_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
