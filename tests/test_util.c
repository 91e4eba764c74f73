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

/* What the writers write, the reader reads. */
static void test_extents_file(void **state)
{
	char *buf = NULL, *line = NULL;
	size_t len = 0, cap = 0;
	unsigned bs = 0;
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

	f = fmemopen(buf, len, "r");
	assert_non_null(f);
	assert_int_equal(extents_file_read_header(f, &line, &cap, &bs), 0);
	assert_int_equal(bs, 4096);
	assert_string_equal(extents_file_read_line(f, &line, &cap, 0), "100+2,200+3");
	assert_null(extents_file_read_line(f, &line, &cap, 5));
	assert_string_equal(extents_file_read_line(f, &line, &cap, 2), "-");
	assert_null(extents_file_read_line(f, &line, &cap, 3));
	fclose(f);

	f = fmemopen((char *)"# imprint extents block_size=0\n", 31, "r");
	assert_int_equal(extents_file_read_header(f, &line, &cap, &bs), -EINVAL);
	fclose(f);
	free(line);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fmt_bytes_styles),
		cmocka_unit_test(test_array_grow),
		cmocka_unit_test(test_array_grow_cols),
		cmocka_unit_test(test_array_cmp_keyed),
		cmocka_unit_test(test_e2err_errno),
		cmocka_unit_test(test_fiemap_walk),
		cmocka_unit_test(test_extents_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
