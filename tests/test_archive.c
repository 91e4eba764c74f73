/* test_archive.c - PDF, ZIP, gzip, tar: determinism, random access, structure, libmagic, readers */
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
#include <zlib.h>

#include "content/registry.h"
#include "content/gen.h"
#include "content/setup.h"
#include "analysis/content_stats.h"
#include "model/ext.h"
#include "util/rng.h"
#include "testtool.h"

#define MIN(a, b) ((a) < (b) ? (a) : (b))

struct format {
	const struct gen_ops *ops;
	const char *ext;
	const char *mime;
	int (*check)(const uint8_t *b, uint64_t size);
};

static struct content_model model;

/* ------------------------------------------------------------------ */
/* Structure walkers: each returns 0 when the file is exactly and validly its format. */

static uint32_t le16(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8;
}

static uint32_t le32(const uint8_t *p)
{
	return le16(p) | le16(p + 2) << 16;
}

/* Inflate raw deflate data b[0, csize) into out (usize bytes): exactly, the stream ending with it. */
static int inflate_raw(const uint8_t *b, uint64_t csize, uint8_t *out, uint64_t usize)
{
	z_stream z = { 0 };
	uint8_t extra;
	int ret;

	if (inflateInit2(&z, -MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)b;
	z.avail_in = (uInt)csize;
	z.next_out = usize ? out : &extra;
	z.avail_out = usize ? (uInt)usize : 0;
	ret = inflate(&z, Z_FINISH);
	if (ret == Z_BUF_ERROR && !z.avail_out) {
		/* more data than said: room for one more byte shows it */
		z.next_out = &extra;
		z.avail_out = 1;
		ret = inflate(&z, Z_FINISH);
	}
	inflateEnd(&z);
	return ret == Z_STREAM_END && z.avail_in == 0 && z.total_out == usize ? 0 : -EINVAL;
}

/* Member data of a ZIP: stored, or deflated and inflating to exactly usize bytes; *out its data. */
static int zip_member(const uint8_t *d, unsigned int method, uint64_t csize, uint64_t usize,
		      uint8_t **out)
{
	*out = NULL;
	if (method == 0) {
		*out = csize == usize ? malloc(usize + 1) : NULL;
		if (!*out)
			return -EINVAL;
		memcpy(*out, d, usize);
		return 0;
	}
	if (method != 8 || !(*out = malloc(usize + 1)))
		return -EINVAL;
	if (inflate_raw(d, csize, *out, usize)) {
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	return 0;
}

static int check_zip(const uint8_t *b, uint64_t size)
{
	uint64_t cd, cd_len, n, pos = 0, at;

	if (size < 22 || le32(b + size - 22) != 0x06054b50 || le16(b + size - 2) != 0)
		return -EINVAL;
	n = le16(b + size - 12);
	cd_len = le32(b + size - 10);
	cd = le32(b + size - 6);
	if (n == 0 || n != le16(b + size - 14) || cd + cd_len != size - 22)
		return -EINVAL;
	at = cd;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *c = b + at, *l;
		uint32_t nl, usize, csize, off, method;
		uint8_t *data;
		int bad;

		if (at + 46 > size || le32(c) != 0x02014b50)
			return -EINVAL;
		method = le16(c + 10);
		nl = le16(c + 28);
		csize = le32(c + 20);
		usize = le32(c + 24);
		off = le32(c + 42);
		if (le16(c + 30) || le16(c + 32) || off != pos || off + 30 + nl + csize > cd)
			return -EINVAL;
		l = b + off;
		if (le32(l) != 0x04034b50 || le16(l + 26) != nl || le16(l + 28) != 0 ||
		    memcmp(l + 30, c + 46, nl) || le32(l + 14) != le32(c + 16) ||
		    le16(l + 6) != le16(c + 8) || le16(l + 8) != method || le32(l + 18) != csize ||
		    le32(l + 22) != usize || nl == 0)
			return -EINVAL;
		if (zip_member(l + 30 + nl, method, csize, usize, &data))
			return -EINVAL;
		bad = crc32(0, data, usize) != le32(c + 16);
		free(data);
		if (bad)
			return -EINVAL;
		/* directories end with a slash and are empty */
		if (c[46 + nl - 1] == '/' && usize)
			return -EINVAL;
		pos = off + 30 + nl + csize;
		at += 46 + nl;
	}
	return pos == cd && at == cd + cd_len ? 0 : -EINVAL;
}

static uint64_t octal(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < n && p[i] >= '0' && p[i] <= '7'; i++)
		v = v * 8 + (p[i] - '0');
	return v;
}

static bool zeros(const uint8_t *p, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static int check_tar(const uint8_t *b, uint64_t size)
{
	uint64_t pos = 0, members = 0;

	while (pos + 512 <= size && !zeros(b + pos, 512)) {
		const uint8_t *h = b + pos;
		unsigned int sum = 0;
		uint64_t len;

		for (unsigned int i = 0; i < 512; i++)
			sum += i >= 148 && i < 156 ? ' ' : h[i];
		if (octal(h + 148, 7) != sum || memcmp(h + 257, "ustar", 6) ||
		    memcmp(h + 263, "00", 2))
			return -EINVAL;
		if (h[156] != '0' && h[156] != '5')
			return -EINVAL;
		len = octal(h + 124, 11);
		if (h[156] == '5' && (len || h[strnlen((const char *)h, 100) - 1] != '/'))
			return -EINVAL;
		pos += 512 + (len + 511) / 512 * 512;
		if (pos > size ||
		    !zeros(b + pos - (512 - len % 512) % 512, (512 - len % 512) % 512))
			return -EINVAL;
		members++;
	}
	/* two zero blocks, then a zero remainder of less than a block */
	if (!members || pos + 1024 > size || size - pos - 1024 >= 512 ||
	    !zeros(b + pos, size - pos))
		return -EINVAL;
	return 0;
}

/* Inflate a whole gzip file; *out (malloc'd) gets the data. */
static int gunzip(const uint8_t *b, uint64_t size, uint8_t **out, uint64_t *out_len)
{
	z_stream z = { 0 };
	size_t cap = 1 << 16;
	int ret;

	*out = malloc(cap);
	*out_len = 0;
	if (!*out || inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return -ENOMEM;
	z.next_in = (uint8_t *)b;
	z.avail_in = (uInt)size;
	do {
		if (*out_len == cap) {
			cap *= 2;
			*out = realloc(*out, cap);
			if (!*out)
				return -ENOMEM;
		}
		z.next_out = *out + *out_len;
		z.avail_out = (uInt)(cap - *out_len);
		ret = inflate(&z, Z_NO_FLUSH);
		*out_len = cap - z.avail_out;
	} while (ret == Z_OK);
	inflateEnd(&z);
	/* the CRC and length checked by zlib, the stream ending with the file */
	return ret == Z_STREAM_END && z.avail_in == 0 ? 0 : -EINVAL;
}

static int check_gzip(const uint8_t *b, uint64_t size)
{
	uint8_t *data;
	uint64_t n;
	int ret;

	if (size < 18 || b[0] != 0x1f || b[1] != 0x8b || b[2] != 8)
		return -EINVAL;
	ret = gunzip(b, size, &data, &n);
	/* an archive inside: valid too */
	if (!ret && (b[3] & 8) && strstr((const char *)b + 10, ".tar"))
		ret = check_tar(data, n);
	free(data);
	return ret;
}

static uint64_t dec(const uint8_t *p)
{
	return strtoull((const char *)p, NULL, 10);
}

/* Its xref table gives every object's offset; streams are as long as they say. */
static int check_pdf(const uint8_t *b, uint64_t size)
{
	uint64_t xref, objs, pages = 0, count = 0, root = 0;
	const char *t = (const char *)b, *x, *e;

	if (size < 64 || memcmp(b, "%PDF-1.", 7) || memcmp(b + size - 7, "\n%%EOF\n", 7))
		return -EINVAL;
	x = memmem(t + size - 64, 64, "startxref\n", 10);
	if (!x)
		return -EINVAL;
	xref = dec((const uint8_t *)x + 10);
	if (xref >= size - 64 || strncmp(t + xref, "xref\n0 ", 7))
		return -EINVAL;
	objs = dec(b + xref + 7);
	x = memchr(t + xref + 7, '\n', 24);
	if (!x || objs < 4 || xref + 7 + 24 + 20 * objs > size ||
	    strncmp(++x, "0000000000 65535 f \n", 20))
		return -EINVAL;
	for (uint64_t o = 1; o < objs; o++) {
		const char *obj, *d, *l, *h;
		char want[32];
		uint64_t at;
		size_t wl;

		e = x + 20 * o;
		at = dec((const uint8_t *)e);
		if (e[10] != ' ' || strncmp(e + 16, " n \n", 4) || at >= xref)
			return -EINVAL;
		obj = t + at;
		wl = (size_t)snprintf(want, sizeof(want), "%llu 0 obj\n", (unsigned long long)o);
		if (strncmp(obj, want, wl))
			return -EINVAL;
		h = obj + wl;
		if (!strncmp(h, "<< /Type /Page ", 15))
			pages++;
		if (!strncmp(h, "<< /Type /Pages /Count ", 23)) {
			count = dec((const uint8_t *)h + 23);
			root = o;
		}
		/* a stream (its dictionary is on one line): the data, then endstream */
		d = memchr(h, '\n', (size_t)(xref - at - wl));
		if (d && !strncmp(d, "\nstream\n", 8)) {
			l = memmem(h, (size_t)(d - h), "/Length ", 8);
			if (!l || d + 8 + dec((const uint8_t *)l + 8) + 18 > t + xref ||
			    strncmp(d + 8 + dec((const uint8_t *)l + 8), "\nendstream\nendobj\n",
				    18))
				return -EINVAL;
		} else if (!d ||
			   !memmem(d, MIN((size_t)(t + xref - d), (size_t)16), "endobj\n", 7)) {
			return -EINVAL;
		}
	}
	e = x + 20 * objs;
	if (strncmp(e, "trailer\n<< /Size ", 17) || dec((const uint8_t *)e + 17) != objs ||
	    !memmem(e, (size_t)(t + size - e), "/Root 1 0 R", 11) || root != 2 || !pages ||
	    pages != count)
		return -EINVAL;
	return 0;
}

static const struct format formats[] = {
	{ &gen_pdf_ops, "pdf", "application/pdf", check_pdf },
	{ &gen_zip_ops, "zip", "application/zip", check_zip },
	{ &gen_gzip_ops, "gz", "application/gzip", check_gzip },
	{ &gen_gzip_ops, "tgz", "application/gzip", check_gzip },
	{ &gen_tar_ops, "tar", "application/x-tar", check_tar },
};

#define NFORMATS (sizeof(formats) / sizeof(formats[0]))

/* ------------------------------------------------------------------ */

static uint8_t *fill_all(const struct format *f, uint64_t key, uint64_t size)
{
	struct gen_file g = { .key = key, .file = 1, .size = size, .ext = f->ext, .cm = &model };

	return test_fill_all(f->ops, &g);
}

static void check_one(magic_t mg, const struct format *f, uint64_t key, uint64_t s)
{
	uint8_t *b = fill_all(f, key, s);
	const char *mime = magic_buffer(mg, b, s);

	if (f->check(b, s))
		fail_msg("%s: size %llu: bad structure", f->ext, (unsigned long long)s);
	assert_non_null(mime);
	if (strcmp(mime, f->mime))
		fail_msg("%s: size %llu: libmagic says '%s'", f->ext, (unsigned long long)s, mime);
	free(b);
}

static void test_ops(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < NFORMATS; i++) {
		const struct gen_ops *ops = formats[i].ops;
		struct gen_file g = { .key = 1, .size = ops->min_size - 1, .ext = formats[i].ext };
		uint8_t b[1];

		assert_non_null(ops->name);
		assert_non_null(ops->fill);
		assert_true(ops->min_size > 0);
		assert_true(ops->min_size <= 1536);
		/* below the floor: refused, not a broken file */
		assert_int_equal(ops->fill(&g, 0, b, 1), -EINVAL);
		g.size = ops->min_size;
		assert_int_equal(ops->fill(&g, ops->min_size, b, 1), -EINVAL);
		assert_int_equal(ops->fill(&g, ops->min_size, b, 0), 0);
	}
	/* the plan's floors (ext_min_size) */
	assert_true(gen_pdf_ops.min_size <= 1024);
	assert_true(gen_zip_ops.min_size <= 256);
	assert_true(gen_gzip_ops.min_size <= 256);
}

static void test_determinism(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < NFORMATS; i++) {
		struct gen_file g = { .file = 1, .size = 300001, .ext = formats[i].ext, .cm = &model };

		test_fill_determinism(formats[i].ops, &g, true);
	}
}

/* Pieces at random offsets and lengths equal the whole-file fill. */
static void test_random_access(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 4097, 70001, 1048576 + 333, 3500000 };
	struct rng r;

	(void)state;
	rng_open(&r, 7, 0);
	for (unsigned int i = 0; i < NFORMATS; i++) {
		struct gen_file g = { .file = 1, .ext = formats[i].ext, .cm = &model };

		test_fill_random(formats[i].ops, &g, sizes, sizeof(sizes) / sizeof(sizes[0]), &r, 120);
	}
}

/* Every size from min_size up to min_size + 600, and around the layouts' thresholds. */
static void test_small_sizes(void **state)
{
	/* the ZIP and gzip sizes where a deflate stream takes a second and third slot */
	static const uint64_t near[] = {
		2048, 4096, 8192, 10000, 69400, 69440, 138800, 138860, 300000,
	};
	magic_t mg = test_magic_open();

	(void)state;
	for (unsigned int i = 0; i < NFORMATS; i++) {
		const struct format *f = &formats[i];

		for (uint64_t s = f->ops->min_size; s <= f->ops->min_size + 600; s++)
			check_one(mg, f, s * 31, s);
		for (unsigned int k = 0; k < sizeof(near) / sizeof(near[0]); k++)
			for (uint64_t s = near[k] - 24; s <= near[k] + 24; s++)
				if (s >= f->ops->min_size)
					check_one(mg, f, s * 7, s);
	}
	magic_close(mg);
}

/* The sweep: structure and libmagic at every size, 100% of them. */
static void test_sweep_magic(void **state)
{
	magic_t mg = test_magic_open();

	(void)state;
	for (unsigned int i = 0; i < NFORMATS; i++)
		for (unsigned int k = 0; k < TEST_SWEEP; k++)
			check_one(mg, &formats[i], 5000 + k,
				  test_sweep_size(formats[i].ops->min_size, k));
	magic_close(mg);
}

/* A string shown by a content stream: balanced, delimiters inside escaped. */
static bool pdf_string_ok(const char *s, size_t n)
{
	size_t i = 1;

	if (n < 2 || s[0] != '(' || s[n - 1] != ')')
		return false;
	while (i + 1 < n) {
		if (s[i] == '\\') {
			i += 2;
			continue;
		}
		if (s[i] == '(' || s[i] == ')' || (uint8_t)s[i] < ' ' || (uint8_t)s[i] > '~')
			return false;
		i++;
	}
	return i == n - 1;
}

/* Pages hold lines of words; an archive's members are plausible. */
static void test_content(void **state)
{
	uint64_t size = 200000;
	const struct format *f = &formats[0];
	uint8_t *b = fill_all(f, 77, size);
	const char *p = (const char *)b, *q = p;
	unsigned int lines = 0, words = 0;

	(void)state;
	/* content streams: each line a string shown with ' */
	while ((q = memmem(q, size - (size_t)(q - p), ")'\n", 3))) {
		const char *start = q;

		while (start > p && start[-1] != '\n')
			start--;
		if (!pdf_string_ok(start, (size_t)(q - start) + 1))
			fail_msg("pdf: bad line '%.*s'", (int)(q - start) + 1, start);
		for (const char *c = start; c < q; c++)
			words += *c == ' ';
		lines++;
		q++;
	}
	assert_true(lines > 20 * 30);
	assert_true(words > lines * 6);
	assert_non_null(memmem(b, size, "/Producer (", 11));
	free(b);

	/*
	 * a zip of 1 MiB: a top directory, text files deflated (ending with a
	 * newline, at least 1.5 times their data in the archive), other files
	 * stored
	 */
	f = &formats[1];
	size = 1 << 20;
	b = fill_all(f, 78, size);
	assert_int_equal(f->check(b, size), 0);
	{
		uint64_t cd = le32(b + size - 6), n = le16(b + size - 12), text = 0, bin = 0;
		uint64_t tc = 0, tu = 0;

		assert_true(n >= 3);
		for (uint64_t i = 0, at = cd; i < n; i++) {
			const uint8_t *c = b + at;
			uint32_t nl = le16(c + 28), us = le32(c + 24), cs = le32(c + 20);
			uint32_t off = le32(c + 42);
			uint8_t *data;

			if (i == 0)
				assert_true(c[46 + nl - 1] == '/');
			if (le16(c + 36) & 1) {
				text++;
				assert_int_equal(
					zip_member(b + off + 30 + nl, le16(c + 10), cs, us, &data),
					0);
				if (us)
					assert_int_equal(data[us - 1], '\n');
				free(data);
				if (le16(c + 10) == 8) {
					tc += cs;
					tu += us;
				}
			} else if (c[46 + nl - 1] != '/') {
				assert_int_equal(le16(c + 10), 0);
				bin++;
			}
			at += 46 + nl;
		}
		assert_true(text > 0 && bin > 0);
		printf("zip text members: data / deflated %.4f (at least 1.5)\n",
		       (double)tu / (double)tc);
		assert_true(tu >= tc * 3 / 2);
	}
	free(b);
}

/* zlib -6 ratio of a buffer. */
static double zlib_ratio(const uint8_t *b, uint64_t size)
{
	uLongf n = compressBound(size);
	uint8_t *z = malloc(n);
	double r;

	assert_non_null(z);
	assert_int_equal(compress2(z, &n, b, size, 6), Z_OK);
	r = (double)size / (double)n;
	free(z);
	return r;
}

/*
 * ZIP and gzip files hold deflated data, as real ones do: zlib gains at
 * most 6% on them from 64 KiB on, 25% below (where names and headers
 * weigh, as in real ones).
 */
static void test_ratio(void **state)
{
	static const uint64_t sizes[] = { 4096, 65536 + 17, 1 << 20, (4 << 20) + 1 };

	(void)state;
	for (unsigned int i = 1; i <= 3; i++) {
		for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			uint8_t *b = fill_all(&formats[i], 300 + k, sizes[k]);
			double r = zlib_ratio(b, sizes[k]), most = sizes[k] < 65536 ? 1.25 : 1.06;

			printf("%-4s size %8llu: zlib ratio %.4f (at most %.2f)\n", formats[i].ext,
			       (unsigned long long)sizes[k], r, most);
			if (r > most)
				fail_msg("%s: size %llu: zlib ratio %.4f", formats[i].ext,
					 (unsigned long long)sizes[k], r);
			free(b);
		}
	}
}

/* Is ops one of the text generators (which take any size)? */
static bool text_ops(const struct gen_ops *ops)
{
	return ops == &gen_text_ops || ops == &gen_html_ops || ops == &gen_source_ops ||
	       ops == &gen_json_ops || ops == &gen_xml_ops;
}

/*
 * Every extension of both tables and the tail that a typed generator
 * writes has a floor the generator can make (so a plan never gives it a
 * file too small) and a libmagic type to be checked against; libmagic
 * says it at the floor, at 64 KiB and at 1 MiB.
 */
static void test_floors(void **state)
{
	static const enum ext_table tables[] = { EXT_TABLE_DEFAULT, EXT_TABLE_LARGE };
	static const uint64_t sizes[] = { 0, 65536 + 3, 1 << 20 };
	magic_t mg = test_magic_open();
	unsigned int typed = 0, seen = 0;

	(void)state;
	for (unsigned int t = 0; t < 2; t++) {
		struct ext_model m;

		assert_int_equal(ext_model_init(&m, tables[t]), 0);
		for (size_t i = 0; i < m.count; i++) {
			const char *ext = m.name[i];
			const struct gen_ops *ops = content_ext_ops(ext);
			const char *const *mimes = content_typed_mimes(ext);

			if (ops == &gen_binary_ops || text_ops(ops))
				continue;
			typed++;
			if (ext_min_size(ext) < ops->min_size)
				fail_msg("%s: floor %llu below %s's %llu", ext,
					 (unsigned long long)ext_min_size(ext), ops->name,
					 (unsigned long long)ops->min_size);
			if (!mimes)
				fail_msg("%s: no libmagic type to check", ext);
			for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
				uint64_t s = sizes[k] ? sizes[k] : ext_min_size(ext);
				struct gen_file g = { .key = 900 + k,
						      .file = 1,
						      .size = s,
						      .ext = ext,
						      .cm = &model };
				uint8_t *b = malloc(s);
				const char *mime;
				bool ok = false;

				assert_non_null(b);
				assert_int_equal(ops->fill(&g, 0, b, s), 0);
				mime = magic_buffer(mg, b, s);
				for (unsigned int j = 0; mime && mimes[j]; j++)
					ok |= !strcmp(mime, mimes[j]);
				if (!ok)
					fail_msg("%s: size %llu: libmagic says '%s'", ext,
						 (unsigned long long)s, mime);
				seen++;
				free(b);
			}
		}
		ext_model_release(&m);
	}
	printf("typed extensions of the tables: %u, %u files identified\n", typed, seen);
	assert_true(typed >= 40);
	magic_close(mg);
}

/* ------------------------------------------------------------------ */
/* Real readers on temporary files. */

static char tmpdir[PATH_MAX - 64];

struct tool {
	const char *name; /* what must be installed */
	const char *cmd;
	const char *tail;
	bool quiet;
	uint64_t from; /* the smallest size it reads */
};

static void readers_sweep(const struct format *f, const struct tool *tools, unsigned int ntools)
{
	char path[PATH_MAX];
	bool any = false;

	for (unsigned int t = 0; t < ntools; t++)
		any |= test_have(tools[t].name);
	if (!any)
		skip();
	snprintf(path, sizeof(path), "%s/probe.%s", tmpdir, f->ext);
	for (unsigned int k = 0; k < TEST_SWEEP; k++) {
		uint64_t s = test_sweep_size(f->ops->min_size, k);
		uint8_t *b = fill_all(f, 5000 + k, s);

		test_write_file(path, b, s);
		free(b);
		for (unsigned int t = 0; t < ntools; t++)
			if (s >= tools[t].from && test_have(tools[t].name))
				test_reader(tools[t].cmd, path, tools[t].tail, tools[t].quiet, s);
	}
	unlink(path);
}

/*
 * The checks can fail: one byte changed where each format guards it (an
 * xref offset, member data under its CRC-32, a header under its checksum)
 * is caught by the walker and by every reader that is installed.
 */
static void test_corrupt(void **state)
{
	static const struct {
		unsigned int format;
		const char *tool, *cmd;
	} readers[] = {
		{ 0, "qpdf", "qpdf --check" },
		{ 1, "unzip", "unzip -tqq" },
		{ 2, "gzip", "gzip -t" },
		{ 4, "tar", "tar -tf" },
	};
	char path[PATH_MAX], cmd[PATH_MAX + 128];
	uint64_t size = 100001;

	(void)state;
	for (unsigned int i = 0; i < sizeof(readers) / sizeof(readers[0]); i++) {
		const struct format *f = &formats[readers[i].format];
		uint8_t *b = fill_all(f, 99, size);
		uint64_t at;

		assert_int_equal(f->check(b, size), 0);
		switch (readers[i].format) {
		case 0: /* object 1's offset, by 100 */
			at = (uint64_t)((const uint8_t *)memmem(b, size, "\nxref\n0 ", 8) - b);
			at = (uint64_t)((const uint8_t *)memchr(b + at + 8, '\n', 16) - b) + 1 +
			     20 + 7;
			break;
		case 1: /* the first member's data */
			at = 30 + le16(b + 26) + le16(b + 28);
			break;
		case 2: /* the middle of the data */
			at = size / 2;
			break;
		default: /* the first header's name */
			at = 1;
			break;
		}
		b[at] ^= 0x01;
		if (!f->check(b, size))
			fail_msg("%s: a changed byte at %llu passes", f->ext,
				 (unsigned long long)at);
		if (test_have(readers[i].tool)) {
			snprintf(path, sizeof(path), "%s/bad.%s", tmpdir, f->ext);
			test_write_file(path, b, size);
			snprintf(cmd, sizeof(cmd), "%s '%s' >/dev/null 2>&1", readers[i].cmd, path);
			if (system(cmd) == 0)
				fail_msg("%s: '%s' accepts a changed byte", f->ext,
					 readers[i].tool);
			unlink(path);
		}
		free(b);
	}
}

/* The readers each format is checked with: a cmocka test each. */
static const struct tool pdf_tools[] = {
	{ "qpdf", "qpdf --check", ">/dev/null", true, 0 },
	{ "pdfinfo", "pdfinfo", ">/dev/null", true, 0 },
	{ "pdftotext", "pdftotext -q", "/dev/null", true, 0 },
};

static const struct tool zip_tools[] = {
	{ "unzip", "unzip -tqq", "", true, 0 },
	{ "bsdtar", "bsdtar -tf", ">/dev/null", true, 0 },
};

static const struct tool gzip_tools[] = {
	{ "gzip", "gzip -t", "", true, 0 },
};

static const struct tool tgz_tools[] = {
	{ "gzip", "gzip -t", "", true, 0 },
	/* smaller tgz files hold text: a tar does not fit */
	{ "tar", "tar -tzf", ">/dev/null", true, 1536 },
};

static const struct tool tar_tools[] = {
	{ "tar", "tar -tf", ">/dev/null", true, 0 },
	{ "bsdtar", "bsdtar -tf", ">/dev/null", true, 0 },
};

struct readers {
	const struct format *f;
	const struct tool *tools;
	unsigned int n;
};

#define READERS(i, t) { &formats[i], t, sizeof(t) / sizeof(t[0]) }

static const struct readers read_pdf = READERS(0, pdf_tools);
static const struct readers read_zip = READERS(1, zip_tools);
static const struct readers read_gzip = READERS(2, gzip_tools);
static const struct readers read_tgz = READERS(3, tgz_tools);
static const struct readers read_tar = READERS(4, tar_tools);

/*
 * gzip files of a shared prefix (gen_file.plen, a profile's duplicate
 * blocks): valid, alike up to plen, apart after it, the same in pieces;
 * PDFs of deflated pages (gen_file.boost below 0): valid, the same in
 * pieces, and deflated where the default is plain.
 */
static void test_prefix(void **state)
{
	const uint64_t gz_sizes[] = { 2 * 4096 + 72 - gen_gzip_ops.min_size, 20000, 300001,
				      (1u << 20) + 333 };
	static const uint64_t pdf_sizes[] = { 0, 4097, 70001, 1500000 };
	struct gen_file g = { .file = 1, .ext = "gz", .cm = &model, .pkey = 99, .plen = 2 * 4096 };
	struct rng r;

	(void)state;
	rng_open(&r, 13, 0);
	for (unsigned int k = 0; k < 3; k++) {
		struct gen_file a = g, b = g;
		uint8_t *x, *y;

		a.key = 5;
		b.key = 6;
		a.size = 50000 + 40000 * k;
		b.size = 70001;
		x = test_fill_all(&gen_gzip_ops, &a);
		y = test_fill_all(&gen_gzip_ops, &b);
		if (check_gzip(x, a.size) || check_gzip(y, b.size))
			fail_msg("gzip prefix: sizes %llu, %llu: bad structure",
				 (unsigned long long)a.size, (unsigned long long)b.size);
		assert_memory_equal(x, y, g.plen);
		assert_memory_not_equal(x + g.plen, y + g.plen, 64);
		free(x);
		free(y);
	}
	test_fill_random(&gen_gzip_ops, &g, gz_sizes, sizeof(gz_sizes) / sizeof(gz_sizes[0]), &r,
			 80);

	g = (struct gen_file){ .file = 1, .ext = "pdf", .cm = &model };
	for (unsigned int k = 0; k < 3; k++) {
		int32_t b = k == 0 ? -65535 : k == 1 ? -32768 : 0;
		uint8_t *x;

		g.key = 8;
		g.size = 70001;
		g.boost = b;
		x = test_fill_all(&gen_pdf_ops, &g);
		if (check_pdf(x, g.size))
			fail_msg("pdf of boost %d: bad structure", b);
		if ((memmem(x, g.size, "/FlateDecode", 12) != NULL) != (b < 0))
			fail_msg("pdf of boost %d: deflated pages %s", b, b < 0 ? "missing" : "made");
		free(x);
	}
	g.boost = -40000;
	test_fill_random(&gen_pdf_ops, &g, pdf_sizes, sizeof(pdf_sizes) / sizeof(pdf_sizes[0]), &r,
			 60);
}

static void test_read(void **state)
{
	const struct readers *r = *state;

	readers_sweep(r->f, r->tools, r->n);
}

/* A cmocka test of the readers r, named name. */
#define READ_TEST(name, r) { name, test_read, NULL, NULL, (void *)&(r) }

static int setup(void **state)
{
	(void)state;
	/* the default parameters, the system word list when there is one */
	if (content_model_init(&model, NULL))
		return -1;
	return test_tmpdir(tmpdir, sizeof(tmpdir), "archive");
}

static int teardown(void **state)
{
	(void)state;
	content_model_release(&model);
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ops),	      cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_random_access), cmocka_unit_test(test_small_sizes),
		cmocka_unit_test(test_sweep_magic),   cmocka_unit_test(test_content),
		cmocka_unit_test(test_ratio),	      cmocka_unit_test(test_floors),
		cmocka_unit_test(test_corrupt),	      cmocka_unit_test(test_prefix),
		READ_TEST("test_read_pdf", read_pdf),
		READ_TEST("test_read_zip", read_zip),
		READ_TEST("test_read_gzip", read_gzip),
		READ_TEST("test_read_tgz", read_tgz),
		READ_TEST("test_read_tar", read_tar),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
