/* test_mo.c - gettext catalogues: determinism, random access, libmagic, msgunfmt, compression */
#include <limits.h>
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
#include "content/model.h"
#include "content/setup.h"
#include "util/rng.h"
#include "testtool.h"

static struct content_model cm;
static char tmpdir[PATH_MAX - 64];

static struct gen_file mo_file(uint64_t key, uint64_t size)
{
	struct gen_file g = { .key = key, .file = 1, .size = size, .ext = "mo", .cm = &cm };

	return g;
}

static void test_determinism(void **state)
{
	struct gen_file g = mo_file(0, 300001);

	(void)state;
	test_fill_determinism(&gen_mo_ops, &g, false);
}

static void test_random_access(void **state)
{
	static const uint64_t sizes[] = { 0, 1, 4097, 70001, 1048576 + 333 };
	struct gen_file g = mo_file(0, 0);
	struct rng r;

	(void)state;
	rng_open(&r, 11, 0);
	test_fill_random(&gen_mo_ops, &g, sizes, sizeof(sizes) / sizeof(sizes[0]), &r, 200);
}

/* Every size of the sweep: libmagic names a catalogue, never a DOS executable; msgunfmt reads it. */
static void test_sweep(void **state)
{
	magic_t mg = test_magic_open();
	char path[PATH_MAX];
	bool reader = test_have("msgunfmt");

	(void)state;
	snprintf(path, sizeof(path), "%s/sweep.mo", tmpdir);
	for (unsigned int k = 0; k < TEST_SWEEP; k++) {
		uint64_t s = test_sweep_size(gen_mo_ops.min_size, k);
		struct gen_file g = mo_file(700 + k, s);
		uint8_t *b = test_fill_all(&gen_mo_ops, &g);
		const char *mime = magic_buffer(mg, b, s);

		if (!mime || strcmp(mime, "application/x-gettext-translation"))
			fail_msg("mo: size %llu: libmagic says '%s'", (unsigned long long)s,
				 mime ? mime : "(null)");
		if (reader && s <= (UINT64_C(4) << 20)) {
			test_write_file(path, b, s);
			test_reader("msgunfmt -o /dev/null", path, "", true, s);
		}
		free(b);
	}
	unlink(path);
	magic_close(mg);
}

/*
 * Small catalogues compress as text does: real ones under
 * /usr/share/locale 2.96 with gzip -6; these 2.0 at least, 3.5 at most.
 */
static void test_ratio(void **state)
{
	double worst, r = test_gzip_ratio_set(&gen_mo_ops, mo_file(0, 0), 40, 16, 2000, 4000, &worst);

	(void)state;
	if (r < 2.0 || r > 3.5)
		fail_msg("mo: gzip -6 ratio %.3f outside [2.0, 3.5]", r);
}

static int setup(void **state)
{
	(void)state;
	if (content_model_init(&cm, NULL))
		return -1;
	return test_tmpdir(tmpdir, sizeof(tmpdir), "mo");
}

static int teardown(void **state)
{
	(void)state;
	content_model_release(&cm);
	return rmdir(tmpdir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_random_access),
		cmocka_unit_test(test_sweep),
		cmocka_unit_test(test_ratio),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
