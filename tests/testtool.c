/* testtool.c - helpers shared by the content tests */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <zlib.h>

#include "content/gen.h"
#include "testtool.h"
#include "util/rng.h"
#include "util/util.h"

uint64_t test_sweep_size(uint64_t min_size, unsigned int i)
{
	double lo = (double)min_size, hi = (double)TEST_SWEEP_MAX_SIZE;
	uint64_t s = (uint64_t)(lo * pow(hi / lo, (double)i / (TEST_SWEEP - 1)));

	if (i & 1)
		s |= 1;
	else if (i && i < TEST_SWEEP - 1)
		s &= ~(uint64_t)1;
	if (s < min_size)
		s = min_size;
	return s > TEST_SWEEP_MAX_SIZE ? TEST_SWEEP_MAX_SIZE : s;
}

void test_keyed_fills(uint8_t *a, uint8_t *b, uint8_t *c, uint64_t size, bool whole)
{
	assert_memory_equal(a, b, size);
	/* another key, another file */
	if (whole)
		assert_memory_not_equal(a, c, size);
	assert_memory_not_equal(a + size / 2, c + size / 2, 4096);
	free(a);
	free(b);
	free(c);
}

uint8_t *test_fill_all(const struct gen_ops *ops, const struct gen_file *g)
{
	uint8_t *b = malloc(g->size);

	assert_non_null(b);
	memset(b, 0xa5, g->size);
	assert_int_equal(ops->fill(g, 0, b, g->size), 0);
	return b;
}

void test_fill_determinism(const struct gen_ops *ops, const struct gen_file *g, bool whole)
{
	struct gen_file a = *g, c = *g;
	uint8_t *fa, *fb;

	a.key = 42;
	c.key = 43;
	fa = test_fill_all(ops, &a);
	fb = test_fill_all(ops, &a);
	test_keyed_fills(fa, fb, test_fill_all(ops, &c), g->size, whole);
}

static void fill_pieces(const struct gen_ops *ops, const struct gen_file *g, const uint8_t *whole,
			struct rng *r, unsigned n)
{
	uint64_t size = g->size;
	uint8_t *piece = malloc(size);

	assert_non_null(piece);
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = rng_below(r, size), max, len;

		if (i < 8)
			off = i * 37 % size;
		else if (i < 16)
			off = size - 1 - rng_below(r, MIN(size, 600));
		max = size - off;
		/* mostly short pieces, some long */
		len = i % 4 == 0 ? 1 + rng_below(r, max) : 1 + rng_below(r, MIN(max, 3000));
		memset(piece, 0x5a, len);
		assert_int_equal(ops->fill(g, off, piece, len), 0);
		if (memcmp(piece, whole + off, len))
			fail_msg("%s: size %llu: [%llu, +%llu) differs", g->ext,
				 (unsigned long long)size, (unsigned long long)off,
				 (unsigned long long)len);
	}
	free(piece);
}

void test_fill_random(const struct gen_ops *ops, const struct gen_file *g, const uint64_t *extra,
		      size_t nsizes, struct rng *r, unsigned n)
{
	for (size_t k = 0; k < nsizes; k++) {
		struct gen_file f = *g;
		uint8_t *whole;

		f.key = 1000 + k;
		f.size = ops->min_size + extra[k];
		whole = test_fill_all(ops, &f);
		fill_pieces(ops, &f, whole, r, n);
		free(whole);
	}
}

magic_t test_magic_open(void)
{
	magic_t mg = magic_open(MAGIC_MIME_TYPE);

	assert_non_null(mg);
	assert_int_equal(magic_load(mg, NULL), 0);
	return mg;
}

bool test_have(const char *tool)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v '%s' >/dev/null 2>&1", tool);
	return system(cmd) == 0;
}

int test_run(const char *cmd, char *out, size_t cap)
{
	char full[PATH_MAX + 512];
	size_t n = 0, got;
	FILE *p;
	int st;

	snprintf(full, sizeof(full), "%s 2>&1", cmd);
	p = popen(full, "r");
	assert_non_null(p);
	while (n + 1 < cap && (got = fread(out + n, 1, cap - 1 - n, p)) > 0)
		n += got;
	out[n] = '\0';
	/* drain what did not fit */
	while (fread(full, 1, sizeof(full), p) > 0)
		;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void test_write_file(const char *path, const uint8_t *b, uint64_t size)
{
	FILE *fp = fopen(path, "wb");

	assert_non_null(fp);
	assert_int_equal(fwrite(b, 1, size, fp), size);
	assert_int_equal(fclose(fp), 0);
}

void test_reader(const char *tool, const char *path, const char *tail, bool quiet, uint64_t size)
{
	char cmd[PATH_MAX + 256], out[4096];
	int rc;

	snprintf(cmd, sizeof(cmd), "%s '%s' %s", tool, path, tail);
	rc = test_run(cmd, out, sizeof(out));
	if (rc || (quiet && out[0]))
		fail_msg("'%s', size %llu: exit %d: %s", cmd, (unsigned long long)size, rc, out);
}

int test_tmpdir(char *dir, size_t cap, const char *name)
{
	const char *base = getenv("TMPDIR");
	int n = snprintf(dir, cap, "%s/imprint-%s-XXXXXX", base && *base ? base : "/tmp", name);

	if (n < 0 || (size_t)n >= cap)
		return -ENAMETOOLONG;
	return mkdtemp(dir) ? 0 : -errno;
}

double test_gzip_ratio(const uint8_t *b, size_t n)
{
	uLongf zn = compressBound((uLong)n);
	uint8_t *z = malloc(zn);

	assert_non_null(z);
	assert_int_equal(compress2(z, &zn, b, (uLong)n, 6), Z_OK);
	free(z);
	return (double)n / (double)zn;
}

double test_gzip_ratio_set(const struct gen_ops *ops, struct gen_file g, uint64_t key0,
			   unsigned int n, uint64_t size0, uint64_t step, double *worst)
{
	uint64_t raw = 0;
	double packed = 0;

	*worst = 0;
	for (unsigned int k = 0; k < n; k++) {
		uint8_t *b;
		double r;

		g.key = key0 + k;
		g.size = size0 + k * step;
		b = test_fill_all(ops, &g);
		r = test_gzip_ratio(b, g.size);
		*worst = r > *worst ? r : *worst;
		raw += g.size;
		packed += (double)g.size / r;
		free(b);
	}
	return (double)raw / packed;
}
