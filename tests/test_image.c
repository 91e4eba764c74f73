/* test_image.c - PNG, JPEG, GIF, BMP: sizes, determinism, random access, libmagic, decoders */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <setjmp.h>
#include <cmocka.h>
#include <magic.h>
#include <zlib.h>

#include "content/gen.h"
#include "util/rng.h"
#include "testtool.h"

#define MAX_SIZE  (UINT64_C(16) << 20)
#define SWEEP	  30
#define MAX_SIZES (SWEEP + 16)

struct format {
	const struct gen_ops *ops;
	const char *ext;
	const char *mime[2]; /* accepted libmagic types */
	int (*check)(const uint8_t *b, uint64_t size);
	const char *tools[2]; /* decoders the command needs */
	const char *cmd;      /* @: the file; exit 0 means decoded */
	bool quiet;	      /* the decoders must print nothing on stderr */
};

/* ------------------------------------------------------------------------- */
/* Structure walkers: each file must be exactly covered by its format's parts. */

static uint32_t be16(const uint8_t *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static uint32_t be32(const uint8_t *p)
{
	return be16(p) << 16 | be16(p + 2);
}

static uint32_t le16(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

/* Chunks with good CRCs IHDR first, IEND last, IDAT inflating to exactly the image. */
static int check_png(const uint8_t *b, uint64_t size)
{
	static const uint8_t sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	uint64_t pos = 8, raw = 0, w = 0, h = 0, chans = 0;
	uint8_t out[65536];
	z_stream z = { 0 };
	int ret = -EINVAL, zr = Z_OK;
	bool iend = false;

	if (size < 8 + 25 + 12 || memcmp(b, sig, 8) || inflateInit(&z) != Z_OK)
		return -EINVAL;
	while (pos + 12 <= size && !iend) {
		uint32_t len = be32(b + pos);
		const uint8_t *type = b + pos + 4;

		if (pos + 12 + len > size)
			goto out_inflate;
		if (crc32(crc32(0, Z_NULL, 0), type, len + 4) != be32(b + pos + 8 + len))
			goto out_inflate;
		if (pos == 8) {
			if (memcmp(type, "IHDR", 4) || len != 13 || type[12] != 8)
				goto out_inflate;
			w = be32(type + 4);
			h = be32(type + 8);
			chans = type[13] == 0 ? 1 : type[13] == 2 ? 3 : type[13] == 6 ? 4 : 0;
			if (!chans)
				goto out_inflate;
		} else if (!memcmp(type, "IDAT", 4)) {
			z.next_in = (Bytef *)(type + 4);
			z.avail_in = len;
			while (z.avail_in && zr == Z_OK) {
				z.next_out = out;
				z.avail_out = sizeof(out);
				zr = inflate(&z, Z_NO_FLUSH);
				raw += sizeof(out) - z.avail_out;
			}
			if (zr != Z_OK && zr != Z_STREAM_END)
				goto out_inflate;
		} else if (!memcmp(type, "IEND", 4)) {
			iend = len == 0;
		}
		pos += 12 + len;
	}
	/* Z_STREAM_END: the Adler-32 matched */
	if (iend && pos == size && zr == Z_STREAM_END && raw == h * (1 + w * chans))
		ret = 0;
out_inflate:
	inflateEnd(&z);
	return ret;
}

/* Segments to SOS, then coded data whose markers are RSTn in order, fill bytes, EOI last. */
static int check_jpeg(const uint8_t *b, uint64_t size)
{
	uint64_t pos = 2, rst = 0;
	bool sos = false;

	if (size < 4 || be16(b) != 0xffd8 || be16(b + size - 2) != 0xffd9)
		return -EINVAL;
	while (!sos) {
		uint32_t m, len;

		if (pos + 4 > size || b[pos] != 0xff)
			return -EINVAL;
		m = b[pos + 1];
		len = be16(b + pos + 2);
		if (m < 0xc0 || m == 0xd8 || m == 0xd9 || (m >= 0xd0 && m <= 0xd7) || len < 2)
			return -EINVAL;
		sos = m == 0xda;
		pos += 2 + len;
	}
	for (; pos < size; pos++) {
		uint64_t at = pos;

		if (b[pos] != 0xff)
			continue;
		while (pos < size && b[pos] == 0xff)
			pos++;
		if (pos == size)
			return -EINVAL;
		if (b[pos] == 0x00 && pos == at + 1)
			continue; /* a stuffed data byte */
		if (b[pos] == 0xd9)
			return pos == size - 1 ? 0 : -EINVAL;
		if (b[pos] != 0xd0 + rst++ % 8)
			return -EINVAL;
	}
	return -EINVAL;
}

static int check_subblocks(const uint8_t *b, uint64_t size, uint64_t *pos)
{
	while (*pos < size && b[*pos])
		*pos += 1 + b[*pos];
	if (*pos >= size)
		return -EINVAL;
	(*pos)++;
	return 0;
}

/* Header, palette, extensions and one image of sub-blocks, trailer last. */
static int check_gif(const uint8_t *b, uint64_t size)
{
	uint64_t pos;
	int images = 0;

	if (size < 13 || memcmp(b, "GIF89a", 6) || !(b[10] & 0x80))
		return -EINVAL;
	pos = 13 + 3 * ((uint64_t)2 << (b[10] & 7));
	while (pos < size) {
		if (b[pos] == 0x3b)
			return pos == size - 1 && images == 1 ? 0 : -EINVAL;
		if (b[pos] == 0x21 && pos + 2 < size) {
			pos += 2;
		} else if (b[pos] == 0x2c && pos + 11 < size) {
			if (b[pos + 9] & 0x80 || b[pos + 10] < 2 || b[pos + 10] > 8)
				return -EINVAL;
			pos += 11;
			images++;
		} else {
			return -EINVAL;
		}
		if (check_subblocks(b, size, &pos))
			return -EINVAL;
	}
	return -EINVAL;
}

/* Header fields that agree with the size: pixels end the file. */
static int check_bmp(const uint8_t *b, uint64_t size)
{
	uint64_t w, h, stride;

	if (size < 58 || b[0] != 'B' || b[1] != 'M' || le32(b + 2) != size || le32(b + 14) != 40)
		return -EINVAL;
	w = le32(b + 18);
	h = le32(b + 22);
	stride = (3 * w + 3) / 4 * 4;
	if (le16(b + 28) != 24 || le32(b + 30) != 0 || le32(b + 34) != stride * h)
		return -EINVAL;
	return le32(b + 10) >= 54 && le32(b + 10) + stride * h == size ? 0 : -EINVAL;
}

static const struct format formats[] = {
	{ &gen_png_ops,
	  "png",
	  { "image/png" },
	  check_png,
	  { "pngcheck", "pngtopnm" },
	  "pngcheck -q @ && pngtopnm @ >/dev/null",
	  true },
	{ &gen_jpeg_ops,
	  "jpg",
	  { "image/jpeg" },
	  check_jpeg,
	  { "djpeg" },
	  /* djpeg exits 2 on any warning */
	  "djpeg -outfile /dev/null @",
	  true },
	{ &gen_gif_ops,
	  "gif",
	  { "image/gif" },
	  check_gif,
	  { "giftopnm" },
	  "giftopnm @ >/dev/null",
	  true },
	/* bmptopnm warns about any gap before the pixels, which bfOffBits allows */
	{ &gen_bmp_ops,
	  "bmp",
	  { "image/bmp", "image/x-ms-bmp" },
	  check_bmp,
	  { "bmptopnm" },
	  "bmptopnm @ >/dev/null",
	  false },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

static bool decoder_missing;

/* ------------------------------------------------------------------------- */

static uint8_t *make(const struct format *f, uint64_t key, uint64_t size)
{
	struct gen_file g = { .key = key, .size = size, .ext = f->ext };
	uint8_t *b = malloc(size ? size : 1);

	assert_non_null(b);
	assert_int_equal(f->ops->fill(&g, 0, b, size), 0);
	return b;
}

static uint64_t key_of(const struct format *f, uint64_t size)
{
	return rng_mix64(size * 131 + (uint64_t)(f - formats));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Sizes from min_size to MAX_SIZE: just above the floor, log-spaced (odd), the maximum. */
static size_t sweep_sizes(const struct format *f, uint64_t *s)
{
	uint64_t min = f->ops->min_size;
	size_t n = 0, k = 0;

	for (uint64_t d = 0; d < 6; d++)
		s[n++] = min + d;
	s[n++] = min + 13;
	for (int i = 1; i < SWEEP; i++) {
		double r = (double)i / (SWEEP - 1);

		s[n++] = (uint64_t)((double)min * pow((double)MAX_SIZE / (double)min, r)) | 1;
	}
	s[n - 1] = MAX_SIZE;
	s[n++] = MAX_SIZE - 1;
	qsort(s, n, sizeof(*s), cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (s[i] <= MAX_SIZE && (!k || s[i] != s[k - 1]))
			s[k++] = s[i];
	return k;
}

/* ------------------------------------------------------------------------- */

static void test_floor(void **state)
{
	(void)state;
	/* the plan's floors (ext_min_size) must admit every format */
	assert_true(gen_png_ops.min_size <= 200);
	assert_true(gen_gif_ops.min_size <= 200);
	assert_true(gen_bmp_ops.min_size <= 200);
	assert_true(gen_jpeg_ops.min_size <= 400);
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];
		struct gen_file g = { .key = 1, .size = f->ops->min_size - 1 };
		uint8_t b[16];

		assert_int_equal(f->ops->fill(&g, 0, b, 1), -EINVAL);
		g.size = f->ops->min_size;
		assert_int_equal(f->ops->fill(&g, g.size - 1, b, 2), -EINVAL);
		assert_int_equal(f->ops->fill(&g, g.size, b, 0), 0);
	}
}

static void test_determinism(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 2, 7, 1000, 65537, (UINT64_C(1) << 20) + 3 };

	(void)state;
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];

		for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			uint64_t size = sizes[j] < 1000 ? f->ops->min_size + sizes[j] : sizes[j];
			uint8_t *a = make(f, 42, size), *b = make(f, 42, size),
				*c = make(f, 43, size);

			assert_memory_equal(a, b, size);
			assert_memory_not_equal(a, c, size);
			free(a);
			free(b);
			free(c);
		}
	}
}

/* Random, in-order and backwards pieces (between fills of another file) equal one whole fill. */
static void test_random_access(void **state)
{
	static const uint64_t sizes[] = { 5, 4099, 300001, (UINT64_C(2) << 20) + 17 };
	struct rng r;

	(void)state;
	rng_open(&r, 7, 0);
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];

		for (size_t j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++) {
			uint64_t size = sizes[j] < 100 ? f->ops->min_size + sizes[j] : sizes[j];
			struct gen_file g = { .key = 99 + j, .size = size, .ext = f->ext };
			struct gen_file other = { .key = 7, .size = size + 1, .ext = f->ext };
			uint8_t *whole = make(f, g.key, size), *piece = malloc(size), scratch[512];

			assert_non_null(piece);
			for (int k = 0; k < 300; k++) {
				uint64_t off = rng_below(&r, size);
				uint64_t len =
					rng_below(&r, size - off < 65536 ? size - off : 65536) + 1;

				assert_int_equal(f->ops->fill(&g, off, piece, len), 0);
				assert_memory_equal(piece, whole + off, len);
				if (k % 3 == 0 && size > sizeof(scratch))
					assert_int_equal(f->ops->fill(&other,
								      rng_below(&r, size - 512),
								      scratch, sizeof(scratch)),
							 0);
			}
			memset(piece, 0, size);
			for (uint64_t off = 0; off < size;) {
				uint64_t len = rng_below(&r, 20000) + 1;

				if (len > size - off)
					len = size - off;
				assert_int_equal(f->ops->fill(&g, off, piece + off, len), 0);
				off += len;
			}
			assert_memory_equal(piece, whole, size);
			memset(piece, 0, size);
			for (uint64_t end = size; end;) {
				uint64_t off = end > 4096 ? end - 4096 : 0;

				assert_int_equal(f->ops->fill(&g, off, piece + off, end - off), 0);
				end = off;
			}
			assert_memory_equal(piece, whole, size);
			free(piece);
			free(whole);
		}
	}
}

struct half {
	const struct format *f;
	struct gen_file g;
	uint8_t *buf;
	int parity, ret;
};

static void *fill_half(void *arg)
{
	struct half *h = arg;

	for (uint64_t off = (uint64_t)h->parity * 4096; off < h->g.size && !h->ret; off += 8192) {
		size_t len = h->g.size - off < 4096 ? (size_t)(h->g.size - off) : 4096;

		h->ret = h->f->ops->fill(&h->g, off, h->buf + off, len);
	}
	return NULL;
}

/* Two threads filling alternate 4 KiB blocks make the bytes of one whole fill. */
static void test_threads(void **state)
{
	(void)state;
	for (size_t i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];
		uint64_t size = (UINT64_C(3) << 20) + 1;
		uint8_t *whole = make(f, 5, size), *buf = calloc(1, size);
		struct half h[2];
		pthread_t th[2];

		assert_non_null(buf);
		for (int k = 0; k < 2; k++) {
			h[k] = (struct half){
				.f = f, .g = { .key = 5, .size = size }, .buf = buf, .parity = k
			};
			assert_int_equal(pthread_create(&th[k], NULL, fill_half, &h[k]), 0);
		}
		for (int k = 0; k < 2; k++) {
			assert_int_equal(pthread_join(th[k], NULL), 0);
			assert_int_equal(h[k].ret, 0);
		}
		assert_memory_equal(buf, whole, size);
		free(buf);
		free(whole);
	}
}

/* Structure and libmagic over the sweep: never skipped. */
static void check_sweep(const struct format *f)
{
	magic_t mg = test_magic_open();
	uint64_t s[MAX_SIZES];
	size_t n = sweep_sizes(f, s);
	int bad = 0;

	for (size_t i = 0; i < n; i++) {
		uint8_t *b = make(f, key_of(f, s[i]), s[i]);
		const char *mt = magic_buffer(mg, b, s[i]);
		bool ok =
			mt && (!strcmp(mt, f->mime[0]) || (f->mime[1] && !strcmp(mt, f->mime[1])));

		if (!ok) {
			print_error("%s: %llu bytes: libmagic says '%s'\n", f->ext,
				    (unsigned long long)s[i], mt ? mt : magic_error(mg));
			bad++;
		}
		if (f->check(b, s[i])) {
			print_error("%s: %llu bytes: bad structure\n", f->ext,
				    (unsigned long long)s[i]);
			bad++;
		}
		free(b);
	}
	magic_close(mg);
	assert_int_equal(bad, 0);
}

/* state: the format */
static void test_sweep(void **state)
{
	check_sweep(*state);
}

static uint64_t file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) ? UINT64_MAX : (uint64_t)st.st_size;
}

/* cmd with each @ replaced by the quoted path. */
static void command(char *out, size_t cap, const char *cmd, const char *path)
{
	size_t n = 0;

	for (; *cmd; cmd++) {
		int k = *cmd == '@' ? snprintf(out + n, cap - n, "'%s'", path) :
				      snprintf(out + n, cap - n, "%c", *cmd);

		assert_true(k > 0 && (size_t)k < cap - n);
		n += (size_t)k;
	}
}

/* The real decoders over the sweep; skipped (and the program exits 77) when one is missing. */
static void check_decode(const struct format *f)
{
	char dir[4096], file[4200], err[4200], cmd[9000], run[13300];
	uint64_t s[MAX_SIZES];
	size_t n = sweep_sizes(f, s);
	int bad = 0;

	for (size_t i = 0; i < 2; i++) {
		if (f->tools[i] && !test_have(f->tools[i])) {
			decoder_missing = true;
			print_message(
				"%s: '%s' not found: install netpbm, pngcheck and libjpeg-turbo-progs\n",
				f->ext, f->tools[i]);
			skip();
		}
	}
	assert_int_equal(test_tmpdir(dir, sizeof(dir), "image"), 0);
	snprintf(file, sizeof(file), "%s/t.%s", dir, f->ext);
	snprintf(err, sizeof(err), "%s/stderr", dir);
	command(cmd, sizeof(cmd), f->cmd, file);
	snprintf(run, sizeof(run), "( %s ) 2>'%s'", cmd, err);
	for (size_t i = 0; i < n; i++) {
		uint8_t *b = make(f, key_of(f, s[i]), s[i]);
		int rc;

		test_write_file(file, b, s[i]);
		free(b);
		rc = system(run);
		if (rc != 0 || (f->quiet && file_size(err) != 0)) {
			print_error("%s: %llu bytes: '%s' exit %d%s\n", f->ext,
				    (unsigned long long)s[i], cmd,
				    WIFEXITED(rc) ? WEXITSTATUS(rc) : -1,
				    file_size(err) ? " (with messages)" : "");
			bad++;
		}
	}
	unlink(file);
	unlink(err);
	rmdir(dir);
	assert_int_equal(bad, 0);
}

/* state: the format */
static void test_decode(void **state)
{
	check_decode(*state);
}

/*
 * PNG pixels are deflated in a real file, so it hardly compresses again
 * (gzip -6 1.08 over /usr/share): the stored ones must not either, over
 * a set of files (1.25 at most) and file by file (1.35).
 */
static void test_png_ratio(void **state)
{
	struct gen_file g = { .file = 1, .ext = "png" };
	double worst, r = test_gzip_ratio_set(&gen_png_ops, g, 300, 24, 20000, 37000, &worst);

	(void)state;
	if (worst > 1.35)
		fail_msg("png: a file's gzip -6 ratio %.3f > 1.35", worst);
	if (r > 1.25)
		fail_msg("png: gzip -6 ratio of 24 files %.3f > 1.25", r);
}

/*
 * PNGs of a shared prefix (gen_file.plen, a profile's duplicate blocks):
 * valid, alike up to plen, apart after it, the same in pieces; the larger
 * pads with a text chunk of its own.
 */
static void test_png_prefix(void **state)
{
	static const uint64_t extra[] = { 0, 20, 4096, 100000 };
	struct gen_file g = { .file = 1, .ext = "png", .pkey = 77, .plen = 3 * 4096 };
	uint64_t psize = 3 * 4096 + 128 + 5000;
	struct rng r;

	(void)state;
	rng_open(&r, 11, 0);
	for (unsigned int k = 0; k < sizeof(extra) / sizeof(extra[0]); k++) {
		struct gen_file a = g, b = g;
		uint8_t *x, *y;

		a.key = 5;
		b.key = 6;
		a.psize = b.psize = psize;
		a.size = psize;
		b.size = psize + extra[k];
		x = test_fill_all(&gen_png_ops, &a);
		y = test_fill_all(&gen_png_ops, &b);
		if (check_png(x, a.size) || check_png(y, b.size))
			fail_msg("png prefix: size %llu: bad structure", (unsigned long long)b.size);
		assert_memory_equal(x, y, g.plen);
		assert_memory_not_equal(x + g.plen, y + g.plen, 64);
		free(x);
		free(y);
	}
	/* sizes 1 to 19 bytes above the group's cannot hold a text chunk: refused */
	g.key = 5;
	g.psize = psize;
	g.size = psize + 7;
	{
		uint8_t c;

		assert_int_equal(gen_png_ops.fill(&g, 0, &c, 1), -EINVAL);
	}
	/* pieces equal the whole: test_fill_random's sizes are min_size + extra */
	g.psize = gen_png_ops.min_size + 3 * 4096 + 128 + 3000;
	{
		const uint64_t sizes[] = { g.psize - gen_png_ops.min_size,
					   g.psize - gen_png_ops.min_size + 20,
					   g.psize - gen_png_ops.min_size + 5000 };

		test_fill_random(&gen_png_ops, &g, sizes, 3, &r, 60);
	}
}

/*
 * Pixels the LZW stream of the image at b[pos] (its descriptor) decodes
 * to, as a decoder with the usual early change reads it; -1 when a code
 * names no entry, the end code is missing or bytes follow it.
 */
static int64_t lzw_pixels(const uint8_t *b, uint64_t size, uint64_t pos)
{
	static uint32_t len[4096];
	unsigned m = b[pos + 10], width = m + 1, nacc = 0, clear = 1u << m, next = clear + 2;
	uint64_t acc = 0, px = 0, prev = 0;

	for (pos += 11; pos < size && b[pos]; pos += 1 + b[pos]) {
		for (unsigned i = 1; i <= b[pos] && pos + i < size; i++) {
			acc |= (uint64_t)b[pos + i] << nacc;
			for (nacc += 8; nacc >= width; nacc -= width) {
				uint32_t c = (uint32_t)(acc & ((1u << width) - 1)), n;

				acc >>= width;
				if (c == clear) {
					width = m + 1;
					next = clear + 2;
					prev = 0;
					continue;
				}
				if (c == clear + 1) /* the last code: the last sub-block's */
					return i == b[pos] && !b[pos + i + 1] ? (int64_t)px : -1;
				if (c < clear)
					n = 1;
				else if (c < next && c > clear + 1)
					n = len[c];
				else if (c == next && prev)
					n = (uint32_t)prev + 1;
				else
					return -1;
				if (prev && next < 4096) {
					len[next++] = (uint32_t)prev + 1;
					if (next == 1u << width && width < 12)
						width++;
				}
				prev = n;
				px += n;
			}
		}
	}
	return -1;
}

/*
 * A profile's GIF below the noise floor (boost below -65535, codes naming
 * the string table): structure, every pixel decoded by the LZW decoder
 * above, pieces equal to the whole; and the set of files of 3-6 KB
 * (8-bit codes) compresses about 1.00 where noise of literal codes alone
 * keeps 1.06-1.10.
 */
static void test_gif_refs(void **state)
{
	const struct format *f = &formats[2];
	const int32_t boost[] = { -65535 - 30000, GEN_GIF_BOOST_LEAST };
	uint64_t s[MAX_SIZES], raw[2] = { 0 }, z[2] = { 0 };
	size_t n = sweep_sizes(f, s);
	struct rng r;

	(void)state;
	rng_open(&r, 22, 0);
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < 2 && s[i] <= (UINT64_C(1) << 20); j++) {
			struct gen_file g = { .key = key_of(f, s[i]),
					      .size = s[i],
					      .boost = boost[j] };
			uint8_t *b = malloc(s[i]);
			uint64_t pos;

			assert_non_null(b);
			assert_int_equal(f->ops->fill(&g, 0, b, s[i]), 0);
			assert_int_equal(check_gif(b, s[i]), 0);
			pos = 13 + 3 * ((uint64_t)2 << (b[10] & 7));
			if (b[pos] == 0x21) { /* the comment */
				pos += 2;
				assert_int_equal(check_subblocks(b, s[i], &pos), 0);
			}
			assert_int_equal(b[pos], 0x2c);
			if (lzw_pixels(b, s[i], pos) != (int64_t)le16(b + 6) * le16(b + 8))
				fail_msg("gif of %llu bytes, boost %d: %lld pixels for %ux%u",
					 (unsigned long long)s[i], boost[j],
					 (long long)lzw_pixels(b, s[i], pos), le16(b + 6),
					 le16(b + 8));
			free(b);
		}
	}
	for (uint64_t size = 3100; size < 6144; size += 150) {
		for (size_t j = 0; j < 2; j++) {
			struct gen_file g = { .key = size,
					      .size = size,
					      .boost = j ? GEN_GIF_BOOST_LEAST : -65535 };
			uint8_t b[6144], out[8192];
			uLongf zl = sizeof(out);

			assert_int_equal(f->ops->fill(&g, 0, b, size), 0);
			assert_int_equal(compress2(out, &zl, b, size, 6), Z_OK);
			raw[j] += size;
			z[j] += zl;
		}
	}
	print_message("gif of 3-6 KB: zlib -6 %.3f at boost -65535, %.3f at %d\n",
		      (double)raw[0] / z[0], (double)raw[1] / z[1], GEN_GIF_BOOST_LEAST);
	assert_true((double)raw[0] / z[0] > 1.04);
	assert_true((double)raw[1] / z[1] < 1.01);
	{
		struct gen_file g = { .ext = "gif", .boost = GEN_GIF_BOOST_LEAST };
		const uint64_t sizes[] = { 300, 4000, 70000, 400001 };

		test_fill_random(&gen_gif_ops, &g, sizes, 4, &r, 60);
	}
}

/* test fn on formats[i], named fn_ext */
#define FORMAT_TEST(fn, i, ext)                                                            \
	{                                                                                  \
		.name = #fn "_" ext, .test_func = fn, .initial_state = (void *)&formats[i] \
	}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_floor),	      cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_random_access), cmocka_unit_test(test_threads),
		FORMAT_TEST(test_sweep, 0, "png"),    FORMAT_TEST(test_sweep, 1, "jpeg"),
		FORMAT_TEST(test_sweep, 2, "gif"),    FORMAT_TEST(test_sweep, 3, "bmp"),
		FORMAT_TEST(test_decode, 0, "png"),   FORMAT_TEST(test_decode, 1, "jpeg"),
		FORMAT_TEST(test_decode, 2, "gif"),   FORMAT_TEST(test_decode, 3, "bmp"),
		cmocka_unit_test(test_png_ratio),     cmocka_unit_test(test_png_prefix),
		cmocka_unit_test(test_gif_refs),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	if (failed)
		return 1;
	/* the libmagic and structure checks passed; only decoding went unchecked */
	return decoder_missing ? 77 : 0;
}
