/* testtool.h - helpers shared by the content tests: sweep sizes, temporary files, real readers */
#ifndef IMPRINT_TESTTOOL_H
#define IMPRINT_TESTTOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <magic.h>

#define TEST_SWEEP	    30			 /* sizes in a sweep */
#define TEST_SWEEP_MAX_SIZE (UINT64_C(16) << 20) /* the largest of them */

/*
 * Size i of TEST_SWEEP log-spaced from min_size to TEST_SWEEP_MAX_SIZE, odd
 * at odd i, even at the others but the first and last.
 */
uint64_t test_sweep_size(uint64_t min_size, unsigned int i);

/*
 * a and b, whole fills of one key, must be equal; c, of another key, must
 * differ from a in the 4096 bytes from the middle (and anywhere when
 * whole).  Frees all three.
 */
void test_keyed_fills(uint8_t *a, uint8_t *b, uint8_t *c, uint64_t size, bool whole);

struct gen_file;
struct gen_ops;
struct rng;

/*
 * The whole file g in one fill by ops, into a buffer of 0xa5 bytes; fails
 * the test if the fill does.  The caller frees it.
 */
uint8_t *test_fill_all(const struct gen_ops *ops, const struct gen_file *g);

/* test_keyed_fills() of three whole fills of g: keys 42, 42 and 43. */
void test_fill_determinism(const struct gen_ops *ops, const struct gen_file *g, bool whole);

/*
 * Random access: for each k, the file g of key 1000 + k and size
 * ops->min_size + extra[k], filled whole, then in n pieces at offsets and
 * lengths drawn from r (the first 8 in the header, the next 8 in the last
 * 600 bytes), which must equal those bytes of the whole; fails the test
 * naming the piece if not.
 */
void test_fill_random(const struct gen_ops *ops, const struct gen_file *g, const uint64_t *extra,
		      size_t nsizes, struct rng *r, unsigned n);

/* A libmagic handle naming MIME types, its database loaded; fails the test if not. */
magic_t test_magic_open(void);

/* Whether tool is on the PATH. */
bool test_have(const char *tool);

/*
 * Runs cmd through the shell, stderr merged into stdout; returns its exit
 * status (-1 when it did not exit) with the first cap - 1 bytes of its
 * output in out, terminated.
 */
int test_run(const char *cmd, char *out, size_t cap);

/* Writes size bytes of b to path, replacing it; fails the test on error. */
void test_write_file(const char *path, const uint8_t *b, uint64_t size);

/*
 * Runs "tool 'path' tail"; fails the test (naming size) unless it exits 0
 * and, when quiet, prints nothing.
 */
void test_reader(const char *tool, const char *path, const char *tail, bool quiet, uint64_t size);

/*
 * Makes a fresh directory $TMPDIR/imprint-name-XXXXXX (/tmp without
 * TMPDIR) into dir of cap bytes; returns 0 or a negative errno.
 */
int test_tmpdir(char *dir, size_t cap, const char *name);

/* gzip -6's ratio of b (zlib's deflate at level 6: raw size / deflated size). */
double test_gzip_ratio(const uint8_t *b, size_t n);

/*
 * gzip -6's ratio of n files of ops (g with keys key0 + k and sizes
 * size0 + k * step) taken together; the largest of one file in *worst.
 */
double test_gzip_ratio_set(const struct gen_ops *ops, struct gen_file g, uint64_t key0,
			   unsigned int n, uint64_t size0, uint64_t step, double *worst);

#endif
