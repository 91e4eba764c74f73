/* test_media.c - WAV, MP3, MP4: determinism, random access, structure, libmagic, real probes */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>
#include <magic.h>

#include "content/gen.h"
#include "util/rng.h"
#include "testtool.h"

struct format {
	const struct gen_ops *ops;
	const char *ext;
	const char *mime[2]; /* accepted libmagic types */
	int (*check)(const uint8_t *b, uint64_t size);
};

/* ------------------------------------------------------------------ */
/* Structure walkers: each file must be exactly covered by its format's units. */

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static uint64_t be64(const uint8_t *p)
{
	return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static int check_wav(const uint8_t *b, uint64_t size)
{
	uint64_t pos = 12, data = 0;
	unsigned int align = 0;

	if (size < 44 || memcmp(b, "RIFF", 4) || memcmp(b + 8, "WAVE", 4))
		return -EINVAL;
	if (le32(b + 4) != size - 8)
		return -EINVAL;
	while (pos + 8 <= size) {
		uint32_t len = le32(b + pos + 4);

		if (!memcmp(b + pos, "fmt ", 4)) {
			if (len != 16 || b[pos + 8] != 1 || b[pos + 9] != 0)
				return -EINVAL;
			align = b[pos + 20] | b[pos + 21] << 8;
		} else if (!memcmp(b + pos, "data", 4)) {
			if (!align || len == 0 || len % align)
				return -EINVAL;
			data = len;
		}
		/* an odd last chunk may lack its pad byte */
		if (pos + 8 + len == size)
			return data ? 0 : -EINVAL;
		pos += 8 + len + (len & 1);
	}
	return pos == size && data ? 0 : -EINVAL;
}

static int check_mp3(const uint8_t *b, uint64_t size)
{
	static const unsigned int kbps[16] = { 0,   32,	 40,  48,  56,	64,  80,  96,
					       112, 128, 160, 192, 224, 256, 320, 0 };
	static const unsigned int rate[4] = { 44100, 48000, 32000, 0 };
	uint64_t pos, frames = 0;

	if (size < 10 || memcmp(b, "ID3", 3) || (b[6] | b[7] | b[8] | b[9]) & 0x80)
		return -EINVAL;
	pos = 10 + ((uint64_t)b[6] << 21 | b[7] << 14 | b[8] << 7 | b[9]);
	while (pos < size) {
		const uint8_t *h = b + pos;
		unsigned int br, sr;

		if (pos + 4 > size || h[0] != 0xff || h[1] != 0xfb)
			return -EINVAL;
		br = kbps[h[2] >> 4];
		sr = rate[(h[2] >> 2) & 3];
		if (!br || !sr)
			return -EINVAL;
		pos += 144000u * br / sr + ((h[2] >> 1) & 1);
		frames++;
	}
	return pos == size && frames >= 4 ? 0 : -EINVAL;
}

/* Offset of the first child box of type inside [start, end), or 0. */
static uint64_t find_box(const uint8_t *b, uint64_t start, uint64_t end, const char *type)
{
	while (start + 8 <= end) {
		uint64_t len = be32(b + start);

		if (len < 8 || start + len > end)
			return 0;
		if (!memcmp(b + start + 4, type, 4))
			return start;
		start += len;
	}
	return 0;
}

/* The box at path (e.g. "moov/trak/mdia") below [start, end), or 0. */
static uint64_t find_path(const uint8_t *b, uint64_t start, uint64_t end, const char *path)
{
	char t[5] = "";

	for (;;) {
		uint64_t at;

		memcpy(t, path, 4);
		at = find_box(b, start, end, t);
		if (!at || path[4] == '\0')
			return at;
		end = at + be32(b + at);
		start = at + 8;
		path += 5;
		if (!strcmp(t, "stsd"))
			start += 8;
	}
}

static int check_mp4(const uint8_t *b, uint64_t size)
{
	uint64_t pos = 0, mdat = 0, mdat_len = 0, moov, stbl, stsz, stco, end;
	const char *order[4] = { "ftyp", "moov", "free", "mdat" };
	unsigned int k = 0;

	while (pos < size) {
		uint64_t len, hdr = 8;

		if (pos + 8 > size)
			return -EINVAL;
		len = be32(b + pos);
		if (len == 1) {
			len = be64(b + pos + 8);
			hdr = 16;
		}
		while (k < 4 && memcmp(b + pos + 4, order[k], 4))
			k++;
		if (k == 4 || len < hdr || pos + len > size)
			return -EINVAL;
		if (k == 3) {
			mdat = pos + hdr;
			mdat_len = len - hdr;
		}
		pos += len;
	}
	if (pos != size || !mdat)
		return -EINVAL;
	moov = find_box(b, 0, size, "moov");
	if (!moov)
		return -EINVAL;
	end = moov + be32(b + moov);
	stbl = find_path(b, moov + 8, end, "trak/mdia/minf/stbl");
	if (!stbl)
		return -EINVAL;
	end = stbl + be32(b + stbl);
	stsz = find_box(b, stbl + 8, end, "stsz");
	stco = find_box(b, stbl + 8, end, "stco");
	if (!stsz || !stco || !find_box(b, stbl + 8, end, "stts") ||
	    !find_box(b, stbl + 8, end, "stsc") || !find_path(b, stbl + 8, end, "stsd/mp4a"))
		return -EINVAL;
	/* constant-size samples filling the mdat, the first chunk at its start */
	if ((uint64_t)be32(b + stsz + 12) * be32(b + stsz + 16) != mdat_len)
		return -EINVAL;
	if (be32(b + stco + 12) == 0 || be32(b + stco + 16) != mdat)
		return -EINVAL;
	return 0;
}

static const struct format formats[] = {
	{ &gen_wav_ops, "wav", { "audio/x-wav", "audio/wav" }, check_wav },
	{ &gen_mp3_ops, "mp3", { "audio/mpeg", "audio/mpeg" }, check_mp3 },
	{ &gen_mp4_ops, "mp4", { "video/mp4", "video/mp4" }, check_mp4 },
};

/* ------------------------------------------------------------------ */

static uint8_t *fill_all(const struct format *f, uint64_t key, uint64_t size)
{
	struct gen_file g = { .key = key, .file = 1, .size = size, .ext = f->ext };

	return test_fill_all(f->ops, &g);
}

static void test_ops(void **state)
{
	unsigned int i;

	(void)state;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		assert_non_null(formats[i].ops->name);
		assert_non_null(formats[i].ops->fill);
		assert_true(formats[i].ops->min_size > 0);
		assert_true(formats[i].ops->min_size <= 640);
	}
}

static void test_determinism(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct gen_file g = { .file = 1, .size = 300001, .ext = formats[i].ext };

		test_fill_determinism(formats[i].ops, &g, false);
	}
}

/* Pieces at random offsets and lengths equal the whole-file fill. */
static void test_random_access(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 4097, 70001, 1048576 + 333 };
	struct rng r;

	(void)state;
	rng_open(&r, 7, 0);
	for (unsigned int i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		struct gen_file g = { .file = 1, .ext = formats[i].ext };

		test_fill_random(formats[i].ops, &g, sizes, sizeof(sizes) / sizeof(sizes[0]), &r, 200);
	}
}

/*
 * Structure and libmagic of the file of size s, and when truncated, the
 * walker's negative twin: one byte short is not the file.
 */
static void check_one(magic_t mg, const struct format *f, uint64_t key, uint64_t s, bool truncated)
{
	uint8_t *b = fill_all(f, key, s);
	const char *mime = magic_buffer(mg, b, s);

	if (f->check(b, s))
		fail_msg("%s: size %llu: bad structure", f->ext, (unsigned long long)s);
	if (truncated && !f->check(b, s - 1))
		fail_msg("%s: size %llu: truncated file passes", f->ext, (unsigned long long)s);
	assert_non_null(mime);
	if (strcmp(mime, f->mime[0]) && strcmp(mime, f->mime[1]))
		fail_msg("%s: size %llu: libmagic says '%s'", f->ext, (unsigned long long)s, mime);
	free(b);
}

/* Every size from min_size up to min_size + 600 has an exact structure. */
static void test_small_sizes(void **state)
{
	magic_t mg = test_magic_open();

	(void)state;
	for (unsigned int i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		const struct format *f = &formats[i];

		for (uint64_t s = f->ops->min_size; s <= f->ops->min_size + 600; s++)
			check_one(mg, f, s * 31, s, false);
	}
	magic_close(mg);
}

/* The sweep: structure and libmagic at every size, 100% of them. */
static void test_sweep_magic(void **state)
{
	magic_t mg = test_magic_open();

	(void)state;
	for (unsigned int i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		for (unsigned int k = 0; k < TEST_SWEEP; k++)
			check_one(mg, &formats[i], 5000 + k,
				  test_sweep_size(formats[i].ops->min_size, k), true);
	magic_close(mg);
}

/* ------------------------------------------------------------------ */
/* Real probes on temporary files. */

static char tmpdir[PATH_MAX - 64];

/* ffprobe names one audio stream with a positive duration, and says nothing else. */
static void probe_ffprobe(const char *path, const char *codec, uint64_t size)
{
	char cmd[PATH_MAX + 256], out[4096];
	const char *d;
	int rc;

	snprintf(cmd, sizeof(cmd),
		 "ffprobe -v error -show_entries stream=codec_type,codec_name:format=duration "
		 "-of default=nw=1 '%s'",
		 path);
	rc = test_run(cmd, out, sizeof(out));
	d = strstr(out, "duration=");
	if (rc || !strstr(out, "codec_type=audio") || !strstr(out, codec) || !d ||
	    strtod(d + 9, NULL) <= 0 || strstr(out, "rror"))
		fail_msg("ffprobe, size %llu: exit %d: %s", (unsigned long long)size, rc, out);
}

static void probe_sweep(const struct format *f, const char *const *tools, unsigned int ntools)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64], out[256];
	unsigned int k, t;
	bool any = false;

	for (t = 0; t < ntools; t++)
		any |= test_have(tools[t]);
	if (!any)
		skip();
	snprintf(path, sizeof(path), "%s/probe.%s", tmpdir, f->ext);
	for (k = 0; k < TEST_SWEEP; k++) {
		uint64_t s = test_sweep_size(f->ops->min_size, k);
		uint8_t *b = fill_all(f, 5000 + k, s);

		test_write_file(path, b, s);
		free(b);
		if (test_have("ffprobe"))
			probe_ffprobe(path,
				      f == &formats[0] ? "codec_name=pcm_s16le" :
				      f == &formats[2] ? "codec_name=aac" :
							 "codec_name=mp3",
				      s);
		if (f == &formats[0] && test_have("soxi")) {
			snprintf(cmd, sizeof(cmd), "soxi -D '%s'", path);
			if (test_run(cmd, out, sizeof(out)) || strtod(out, NULL) <= 0)
				fail_msg("soxi, size %llu: %s", (unsigned long long)s, out);
			test_reader("sox -V1", path, "-n", true, s);
		}
		if (f == &formats[1] && test_have("mpg123"))
			test_reader("mpg123 -q -t", path, "", true, s);
		/* a full decode up to 4 MiB; ffprobe has parsed the others */
		if (test_have("ffmpeg") && s <= (UINT64_C(4) << 20))
			test_reader("ffmpeg -nostdin -v error -xerror -i", path, "-f null -", true,
				    s);
	}
	unlink(path);
}

static void test_probe_wav(void **state)
{
	static const char *const tools[] = { "ffprobe", "soxi" };

	(void)state;
	probe_sweep(&formats[0], tools, 2);
}

static void test_probe_mp3(void **state)
{
	static const char *const tools[] = { "ffprobe", "mpg123" };

	(void)state;
	probe_sweep(&formats[1], tools, 2);
}

static void test_probe_mp4(void **state)
{
	static const char *const tools[] = { "ffprobe" };

	(void)state;
	probe_sweep(&formats[2], tools, 1);
}

/*
 * Coded audio does not compress: MP3 and AAC frames are as random as a
 * real encoder's (gzip -6 of real MP3 and AAC files: 1.00 to 1.03).
 */
static void test_incompressible(void **state)
{
	static const uint64_t sizes[] = { 65536, 300001, 4194304 };

	(void)state;
	for (unsigned int i = 1; i < 3; i++) {
		for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			uint8_t *b = fill_all(&formats[i], 900 + k, sizes[k]);
			double r = test_gzip_ratio(b, sizes[k]);

			if (r > 1.05)
				fail_msg("%s: size %llu: gzip -6 ratio %.3f > 1.05", formats[i].ext,
					 (unsigned long long)sizes[k], r);
			free(b);
		}
	}
}

static int setup_tmp(void **state)
{
	(void)state;
	return test_tmpdir(tmpdir, sizeof(tmpdir), "media");
}

static int teardown_tmp(void **state)
{
	(void)state;
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops),	      cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_random_access), cmocka_unit_test(test_small_sizes),
		cmocka_unit_test(test_sweep_magic),   cmocka_unit_test(test_probe_wav),
		cmocka_unit_test(test_probe_mp3),     cmocka_unit_test(test_probe_mp4),
		cmocka_unit_test(test_incompressible),
	};

	return cmocka_run_group_tests(tests, setup_tmp, teardown_tmp);
}
