/* test_util.c - the shared plumbing: byte sizes, array growth, libext2fs errors, FIEMAP, extents files */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "read/extents_file.h"
#include "util/array.h"
#include "util/e2err.h"
#include "util/fiemap.h"
#include "util/strutil.h"
#include "util/textin.h"
#include "util/util.h"

struct fmt_case {
	uint64_t v;
	unsigned flags;
	const char *want;
};

#define MEASURE (FMT_BYTES_DIGITS(2))
#define REPORT  (FMT_BYTES_DIGITS(2) | FMT_BYTES_PIB)
#define CONTENT (FMT_BYTES_DIGITS(1) | FMT_BYTES_PIB)
#define MSG     (FMT_BYTES_EXACT | FMT_BYTES_DIGITS(1) | FMT_BYTES_WORD)

/* Every style as its callers have always printed it (reports and messages are pinned). */
/* Damerau-Levenshtein: a swap of two neighbours is one edit, as a typo is */
static void test_str_distance(void **state)
{
	char longw[STR_DISTANCE_MAX + 2];

	(void)state;
	assert_int_equal(str_distance("", ""), 0);
	assert_int_equal(str_distance("size", "size"), 0);
	assert_int_equal(str_distance("sise", "size"), 1);
	assert_int_equal(str_distance("crate", "create"), 1);
	assert_int_equal(str_distance("szie", "size"), 1);   /* a swap; plain Levenshtein says 2 */
	assert_int_equal(str_distance("ca", "abc"), 3);      /* optimal alignment: no edit of a swapped pair */
	assert_int_equal(str_distance("", "plan"), 4);
	assert_int_equal(str_distance("kitten", "sitting"), 3);
	memset(longw, 'a', sizeof(longw) - 1);
	longw[sizeof(longw) - 1] = '\0';
	assert_true(str_distance(longw, "a") == SIZE_MAX);
	assert_true(str_near(1, 4));
	assert_false(str_near(2, 4));
	assert_false(str_near(4, 20));
}

static void test_fmt_bytes_styles(void **state)
{
	static const struct fmt_case cases[] = {
		{ 0, MEASURE, "0 B" },
		{ 1023, CONTENT, "1023 B" },
		{ 512, MSG, "512 bytes" },
		{ 1024, MEASURE, "1.00 KiB" },
		{ 1536, CONTENT, "1.5 KiB" },
		{ 1536, MSG, "1.5 KiB" },
		{ UINT64_C(1) << 30, MSG, "1 GiB" },
		{ UINT64_C(1) << 30, REPORT, "1.00 GiB" },
		{ 3 * (UINT64_C(1) << 29), MSG, "1.5 GiB" },
		{ 5 * (UINT64_C(1) << 20), FMT_BYTES_ADAPTIVE, "5.00 MiB" },
		{ 50 * (UINT64_C(1) << 20), FMT_BYTES_ADAPTIVE, "50.0 MiB" },
		{ 500 * (UINT64_C(1) << 20), FMT_BYTES_ADAPTIVE, "500 MiB" },
		{ 1000, FMT_BYTES_ADAPTIVE, "1000 B" },
		/* the largest unit */
		{ UINT64_C(1) << 61, MEASURE, "2.00 EiB" },
		{ UINT64_C(1) << 61, REPORT, "2048.00 PiB" },
		{ UINT64_C(1) << 61, CONTENT, "2048.0 PiB" },
		{ UINT64_MAX, MSG, "16.0 EiB" },
		/* a few bytes below 1 EiB: the double rounds up, the exact count does not */
		{ (UINT64_C(1) << 60) - 1, MEASURE, "1.00 EiB" },
		{ (UINT64_C(1) << 60) - 1, MSG, "1024.0 PiB" },
	};
	char buf[32];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_string_equal(fmt_bytes(cases[i].v, cases[i].flags, buf, sizeof(buf)),
				    cases[i].want);
	/* truncated like snprintf, still terminated */
	assert_string_equal(fmt_bytes(1536, CONTENT, buf, 4), "1.5");
}

static void test_array_grow(void **state)
{
	uint32_t *a = NULL;
	size_t cap = 0, prev;

	(void)state;
	assert_int_equal(array_grow(&a, &cap, 0, sizeof(*a)), 0);
	assert_null(a);
	for (size_t n = 0; n < 1000; n++) {
		prev = cap;
		assert_int_equal(array_grow(&a, &cap, n + 1, sizeof(*a)), 0);
		assert_true(cap >= n + 1);
		assert_true(cap == prev || cap == (prev ? 2 * prev : 16));
		a[n] = (uint32_t)n;
	}
	for (size_t n = 0; n < 1000; n++)
		assert_int_equal(a[n], n);
	/* too big: refused, the array kept */
	prev = cap;
	assert_int_equal(array_grow(&a, &cap, SIZE_MAX / 2, sizeof(*a)), -ENOMEM);
	assert_int_equal(cap, prev);
	assert_int_equal(array_resize(&a, SIZE_MAX / 2, 4), -ENOMEM);
	assert_int_equal(a[999], 999);
	assert_int_equal(array_resize(&a, 0, sizeof(*a)), 0);
	assert_non_null(a);
	free(a);
}

/* Parallel arrays grow together: each keeps its own elements, the capacity is shared. */
static void test_array_grow_cols(void **state)
{
	uint64_t *wide = NULL;
	uint8_t *narrow = NULL;
	const struct array_col cols[] = { { &wide, sizeof(*wide) }, { &narrow, sizeof(*narrow) } };
	size_t cap = 0;

	(void)state;
	for (size_t n = 0; n < 300; n++) {
		assert_int_equal(array_grow_cols(cols, ARRAY_SIZE(cols), &cap, n + 1), 0);
		assert_true(cap >= n + 1 && cap < 2 * (n + 1) + 16);
		wide[n] = (uint64_t)n << 40;
		narrow[n] = (uint8_t)n;
	}
	for (size_t n = 0; n < 300; n++)
		assert_true(wide[n] == (uint64_t)n << 40 && narrow[n] == (uint8_t)n);
	/* too big for the wider one: refused, the capacity kept */
	assert_int_equal(array_grow_cols(cols, ARRAY_SIZE(cols), &cap, SIZE_MAX / 4), -ENOMEM);
	assert_int_equal(cap, 512);
	assert_true(narrow[299] == 299 % 256 && wide[299] == (uint64_t)299 << 40);
	free(wide);
	free(narrow);
}

/* Keys ascending, equal keys by index: one order whatever qsort's algorithm. */
static void test_array_cmp_keyed(void **state)
{
	struct array_keyed v[] = { { 2.5, 7 }, { -1, 3 }, { 2.5, 1 }, { 0, 9 }, { 2.5, 4 }, { -1, 0 } };
	static const uint64_t want[] = { 0, 3, 9, 1, 4, 7 };

	(void)state;
	qsort(v, ARRAY_SIZE(v), sizeof(v[0]), array_cmp_keyed);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		assert_int_equal(v[i].idx, want[i]);
	assert_int_equal(array_cmp_keyed(&v[1], &v[1]), 0);
	assert_true(array_cmp_keyed(&v[3], &v[2]) > 0);
}

static void test_e2err_errno(void **state)
{
	(void)state;
	e2err_init();
	e2err_init();
	assert_int_equal(e2err_errno(0), 0);
	assert_int_equal(e2err_errno(EACCES), -EACCES);
	assert_int_equal(e2err_errno(EXT2_ET_NO_MEMORY), -ENOMEM);
	assert_int_equal(e2err_errno(EXT2_ET_BLOCK_ALLOC_FAIL), -ENOSPC);
	assert_int_equal(e2err_errno(EXT2_ET_DIR_NO_SPACE), -ENOSPC);
	assert_int_equal(e2err_errno(EXT2_ET_FILE_TOO_BIG), -EFBIG);
	assert_int_equal(e2err_errno(EXT2_ET_BAD_MAGIC), -EIO);
	assert_int_equal(e2err_errno(EXT2_ET_DIR_CORRUPTED), -EIO);
	/* the table is registered: words, not "Unknown code" */
	assert_null(strstr(error_message(EXT2_ET_BAD_MAGIC), "Unknown code"));
}

static int count_extent(const struct fiemap_extent *x, void *arg)
{
	(void)x;
	++*(unsigned *)arg;
	return 0;
}

static int stop_at_first(const struct fiemap_extent *x, void *arg)
{
	(void)x;
	(void)arg;
	return 7;
}

/* A written file has extents (where FIEMAP works); fn's value stops the walk. */
static void test_fiemap_walk(void **state)
{
	char path[] = "/tmp/imprint-test-fiemap-XXXXXX";
	static char block[65536];
	unsigned n = 0;
	int fd, ret;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	memset(block, 'x', sizeof(block));
	assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	ret = fiemap_walk(fd, FIEMAP_FLAG_SYNC, count_extent, &n);
	if (ret == -EOPNOTSUPP || ret == -ENOTTY) {
		close(fd);
		skip();
	}
	assert_int_equal(ret, 0);
	assert_true(n >= 1);
	assert_int_equal(fiemap_walk(fd, 0, stop_at_first, NULL), 7);
	assert_int_equal(fiemap_walk(-1, 0, count_extent, &n), -EBADF);
	close(fd);
}

/* Write len bytes of buf into path, a mkstemp() template the first time. */
static void write_file(char *path, const void *buf, size_t len)
{
	int fd = path[strlen(path) - 1] == 'X' ? mkstemp(path) : open(path, O_WRONLY | O_TRUNC);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/* What the writers write, the reader reads. */
static void test_extents_file(void **state)
{
	char path[] = "/tmp/imprint-test-extents-XXXXXX";
	char *buf = NULL;
	size_t len = 0;
	unsigned bs = 0;
	struct textin in;
	FILE *f;

	(void)state;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(extents_file_write_header(f, 4096), 0);
	extents_file_begin_line(f, 0, "/", "a");
	extents_file_put_run(f, 0, 100, 2);
	extents_file_put_run(f, 1, 200, 3);
	extents_file_end_line(f, 2);
	extents_file_begin_line(f, 1, "/d", "b");
	extents_file_end_line(f, 0);
	extents_file_begin_line(f, 2, "/d/c", NULL);
	extents_file_end_line(f, 0);
	fclose(f);
	assert_string_equal(buf, "# imprint extents block_size=4096\n"
				 "0\t/a\t100+2,200+3\n1\t/d/b\t-\n2\t/d/c\t-\n");

	write_file(path, buf, len);
	assert_int_equal(extents_file_open(&in, path, &bs), 0);
	assert_int_equal(bs, 4096);
	assert_string_equal(extents_file_read_line(&in, 0), "100+2,200+3");
	assert_null(extents_file_read_line(&in, 5));
	assert_string_equal(extents_file_read_line(&in, 2), "-");
	assert_null(extents_file_read_line(&in, 3));
	textin_close(&in);

	write_file(path, "# imprint extents block_size=0\n", 31);
	assert_int_equal(extents_file_open(&in, path, &bs), -EINVAL);
	assert_non_null(strstr(in.err, "not an extents file"));
	textin_close(&in);
	/* /dev/zero ends at once (getline() read it until memory ran out) */
	assert_int_equal(extents_file_open(&in, "/dev/zero", &bs), -EINVAL);
	assert_non_null(strstr(in.err, "/dev/zero line 1: a NUL byte at column 1: not an extents file"));
	textin_close(&in);
	unlink(path);
	free(buf);
}

/* Issue 23 item 13: one bounded reader for every text input. */
static void test_textin_limits(void **state)
{
	static const char nul[] = "a\nb\0c\n";
	char path[] = "/tmp/imprint-test-textin-XXXXXX";
	struct textin in;
	char *big;

	(void)state;
	write_file(path, "\xef\xbb\xbfone\r\ntwo\n\nlast", 17);
	assert_int_equal(textin_open(&in, path, "a test file", 16, 1024), 0);
	assert_int_equal(textin_next(&in), 1);
	assert_string_equal(in.line, "one"); /* no BOM, no CR */
	assert_int_equal(textin_next(&in), 1);
	assert_string_equal(in.line, "two");
	assert_int_equal(textin_next(&in), 1);
	assert_int_equal(in.len, 0);
	assert_int_equal(textin_next(&in), 1);
	assert_string_equal(in.line, "last"); /* no newline at the end */
	assert_int_equal(in.lineno, 4);
	assert_int_equal(textin_next(&in), 0);
	textin_close(&in);

	write_file(path, nul, sizeof(nul) - 1);
	assert_int_equal(textin_open(&in, path, "a test file", 16, 1024), 0);
	assert_int_equal(textin_next(&in), 1);
	assert_int_equal(textin_next(&in), -EINVAL);
	assert_non_null(strstr(in.err, "line 2: a NUL byte at column 2: not a test file"));
	textin_close(&in);

	/* a line longer than the limit is refused whole, never split */
	big = malloc(5000);
	assert_non_null(big);
	memset(big, 'x', 5000);
	write_file(path, big, 5000);
	assert_int_equal(textin_open(&in, path, "a test file", 4096, 1 << 20), 0);
	assert_int_equal(textin_next(&in), -EINVAL);
	assert_non_null(strstr(in.err, "line 1: longer than 4 KiB: not a test file"));
	textin_close(&in);
	assert_int_equal(textin_open(&in, path, "a test file", 8192, 4096), 0);
	assert_int_equal(textin_next(&in), -EINVAL);
	assert_non_null(strstr(in.err, "larger than 4 KiB: not a test file"));
	textin_close(&in);
	free(big);

	/* non-regular inputs: a directory refused, a character device read within bounds */
	assert_int_equal(textin_open(&in, "/tmp", "a test file", 16, 1024), -EISDIR);
	assert_non_null(strstr(in.err, "/tmp: is a directory, not a test file"));
	textin_close(&in);
	assert_int_equal(textin_open(&in, "/dev/null", "a test file", 16, 1024), 0);
	assert_int_equal(textin_next(&in), 0);
	textin_close(&in);
	assert_int_equal(textin_open(&in, "/dev/zero", "a test file", 16, 1024), 0);
	assert_int_equal(textin_next(&in), -EINVAL);
	textin_close(&in);
	assert_int_equal(textin_open(&in, "/nonexistent/x", "a test file", 16, 1024), -ENOENT);
	assert_non_null(strstr(in.err, "cannot open"));
	textin_close(&in);
	unlink(path);
}

/* Echoed text cannot reach a terminal as escape sequences. */
static void test_text_escape(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(text_escaped("a\x1b[31mb\tc", buf, sizeof(buf)), "a\\x1b[31mb\\x09c");
	/* valid UTF-8 kept; a stray byte, DEL and C1 controls (CSI U+009B) escaped */
	assert_string_equal(text_escaped("caf\xc3\xa9\xff\x7f\xc2\x9b", buf, sizeof(buf)),
			    "caf\xc3\xa9\\xff\\x7f\\xc2\\x9b");
	/* truncated, never cut inside an escape */
	assert_string_equal(text_escaped("ab\x01", buf, 5), "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str_distance),
		cmocka_unit_test(test_fmt_bytes_styles),
		cmocka_unit_test(test_array_grow),
		cmocka_unit_test(test_array_grow_cols),
		cmocka_unit_test(test_array_cmp_keyed),
		cmocka_unit_test(test_e2err_errno),
		cmocka_unit_test(test_fiemap_walk),
		cmocka_unit_test(test_extents_file),
		cmocka_unit_test(test_textin_limits),
		cmocka_unit_test(test_text_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
