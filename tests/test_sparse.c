/* test_sparse.c - sparse files: which files, where their holes are, and zeros in the content */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "content/source.h"
#include "content/registry.h"
#include "content/gen.h"
#include "content/setup.h"
#include "plan/plan.h"
#include "content/sparse.h"
#include "testutil.h"

/* Whether file f may be sparse at all: other binary (by its content's file) and big enough. */
static int eligible(const struct plan *pl, uint64_t f)
{
	uint64_t c = content_file_of(pl, f);

	return pl->file_size[c] >= SPARSE_MIN_SIZE &&
	       content_ext_ops(plan_file_ext(pl, c)) == &gen_binary_ops;
}

static const char *const share_03[] = {
	"files", "40000", "sparse_file_share", "0.3", "sparse_hole_share", "0.4", NULL
};

/* Holes are whole units, sorted, apart, inside the file's whole units, with data left over. */
static void test_shape(void **state)
{
	struct plan pl;
	uint64_t nel = 0, nsparse = 0, units = 0, hole_units = 0, nholes = 0, by_count[9] = { 0 };

	(void)state;
	test_build_plan(&pl, share_03);
	assert_true(sparse_enabled(&pl));
	for (uint64_t f = 0; f < pl.nfiles; f++) {
		struct sparse_holes h;
		uint64_t u = pl.file_size[f] / SPARSE_UNIT, end = 0, sum = 0;
		unsigned n = sparse_file_holes(&pl, f, &h);

		assert_int_equal(n, h.n);
		if (!eligible(&pl, f)) {
			assert_int_equal(n, 0);
			continue;
		}
		nel++;
		if (!n)
			continue;
		nsparse++;
		assert_true(n <= SPARSE_MAX_HOLES);
		by_count[n]++;
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(h.hole[i].off % SPARSE_UNIT, 0);
			assert_int_equal(h.hole[i].len % SPARSE_UNIT, 0);
			assert_true(h.hole[i].len > 0);
			/* not touching the previous one: a data unit between them */
			if (i)
				assert_true(h.hole[i].off > end);
			end = h.hole[i].off + h.hole[i].len;
			sum += h.hole[i].len;
		}
		assert_true(end <= u * SPARSE_UNIT);
		assert_int_equal(sum, h.bytes);
		assert_true(h.bytes < u * SPARSE_UNIT);
		units += u;
		hole_units += h.bytes / SPARSE_UNIT;
		nholes += n;
	}
	printf("# %llu eligible files, %llu sparse (%.4f, target 0.3); hole units %.4f of "
	       "their units (target 0.4); %.2f holes a file\n",
	       (unsigned long long)nel, (unsigned long long)nsparse, (double)nsparse / (double)nel,
	       (double)hole_units / (double)units, (double)nholes / (double)nsparse);
	assert_true(nel >= 400);
	/* the share of eligible files made sparse: binomial, within 5 sigma */
	assert_true(fabs((double)nsparse / (double)nel - 0.3) < 5 * sqrt(0.3 * 0.7 / (double)nel));
	assert_true(fabs((double)hole_units / (double)units - 0.4) < 0.03);
	/* every count of holes occurs */
	for (unsigned k = 1; k <= SPARSE_MAX_HOLES; k++)
		assert_true(by_count[k] > 0);
	plan_release(&pl);
}

/* The same plan gives the same holes; a copy has its source's; another seed, others. */
static void test_determinism(void **state)
{
	struct plan a, b;
	uint64_t same = 0, sparse = 0, copies = 0, seed;

	(void)state;
	test_build_plan(&a, share_03);
	test_build_plan(&b, share_03);
	seed = a.prm.seed;
	for (uint64_t f = 0; f < a.nfiles; f++) {
		struct sparse_holes x, y;

		sparse_file_holes(&a, f, &x);
		sparse_file_holes(&b, f, &y);
		assert_int_equal(x.n, y.n);
		assert_memory_equal(x.hole, y.hole, x.n * sizeof(x.hole[0]));
		if (content_file_of(&a, f) != f) {
			sparse_file_holes(&a, content_file_of(&a, f), &y);
			assert_int_equal(x.n, y.n);
			assert_memory_equal(x.hole, y.hole, x.n * sizeof(x.hole[0]));
			copies += x.n > 0;
		}
		if (!x.n)
			continue;
		/* the same file and size under another seed */
		sparse++;
		a.prm.seed = seed + 1;
		sparse_file_holes(&a, f, &y);
		a.prm.seed = seed;
		same += x.n == y.n && !memcmp(x.hole, y.hole, x.n * sizeof(x.hole[0]));
	}
	printf("# %llu sparse files, %llu of them copies; under another seed %llu keep the "
	       "same holes\n",
	       (unsigned long long)sparse, (unsigned long long)copies, (unsigned long long)same);
	assert_true(sparse >= 100);
	assert_true(copies >= 5);
	assert_true(same * 20 < sparse);
	plan_release(&a);
	plan_release(&b);
}

/* The block arithmetic the backend uses, against a map of every block. */
static void test_block_math(void **state)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };
	struct plan pl;
	unsigned checked = 0;
	uint8_t *hole = NULL;

	(void)state;
	test_build_plan(&pl, share_03);
	for (uint64_t f = 0; f < pl.nfiles && checked < 60; f++) {
		struct sparse_holes h;

		if (!sparse_file_holes(&pl, f, &h) || pl.file_size[f] > (UINT64_C(64) << 20))
			continue;
		checked++;
		for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			uint32_t bs = sizes[k];
			uint64_t n = (pl.file_size[f] + bs - 1) / bs, a = 0;

			hole = realloc(hole, n);
			assert_non_null(hole);
			memset(hole, 0, n);
			for (unsigned i = 0; i < h.n; i++)
				memset(hole + h.hole[i].off / bs, 1, h.hole[i].len / bs);
			for (uint64_t l = 0; l < n; l++) {
				assert_int_equal(sparse_all_hole(&h, bs, l, 1), hole[l]);
				if (hole[l])
					continue;
				/* the a-th data block is at l; data runs on until the next hole */
				assert_int_equal(sparse_lblk(&h, bs, a), l);
				{
					uint64_t e = l;

					while (e < n && !hole[e])
						e++;
					if (e < n)
						assert_int_equal(sparse_data_left(&h, bs, l),
								 e - l);
					else
						assert_true(sparse_data_left(&h, bs, l) >= e - l);
				}
				a++;
			}
			assert_int_equal(a, n - h.bytes / bs);
			/* a range is all hole exactly when each of its blocks is */
			for (unsigned i = 0; i < h.n; i++) {
				uint64_t s = h.hole[i].off / bs, len = h.hole[i].len / bs;

				assert_true(sparse_all_hole(&h, bs, s, len));
				assert_false(sparse_all_hole(&h, bs, s, len + 1));
				if (s)
					assert_false(sparse_all_hole(&h, bs, s - 1, 2));
			}
		}
	}
	assert_true(checked >= 20);
	free(hole);
	plan_release(&pl);
}

/* Holes read as zeros; everything else is the content the file has without holes. */
static void test_content(void **state)
{
	static const char *const dense[] = { "files", "40000", NULL };
	struct plan sp, dp;
	struct content_model cms, cmd;
	struct content_source s, d, rs, rd;
	size_t cap = 4 << 20;
	uint8_t *a = malloc(cap), *b = malloc(cap);
	unsigned checked = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	test_build_plan(&sp, share_03);
	test_build_plan(&dp, dense);
	assert_int_equal(sp.nfiles, dp.nfiles);
	assert_int_equal(content_model_init(&cms, &sp), 0);
	assert_int_equal(content_model_init(&cmd, &dp), 0);
	assert_int_equal(content_model_source_init(&s, &cms, &sp, 0), 0);
	assert_int_equal(content_model_source_init(&d, &cmd, &dp, 0), 0);
	content_random_init(&rs, &sp);
	content_random_init(&rd, &dp);
	for (uint64_t f = 0; f < sp.nfiles && checked < 40; f++) {
		struct sparse_holes h;
		uint64_t size = sp.file_size[f];
		size_t n, zeros = 0;

		if (!sparse_file_holes(&sp, f, &h) || size > cap)
			continue;
		checked++;
		n = (size_t)size;
		for (int src = 0; src < 2; src++) {
			const struct content_source *x = src ? &rs : &s, *y = src ? &rd : &d;

			assert_int_equal(x->fill(x, f, 0, a, n), 0);
			assert_int_equal(y->fill(y, f, 0, b, n), 0);
			for (size_t i = 0; i < n; i++) {
				int in = sparse_all_hole(&h, 1, i, 1);

				if (in) {
					assert_int_equal(a[i], 0);
					zeros++;
				} else if (a[i] != b[i]) {
					fail_msg("file %llu byte %zu differs outside its holes",
						 (unsigned long long)f, i);
				}
			}
			/* a read at an offset inside and across a hole gives the same bytes */
			{
				uint64_t off = h.hole[0].off - (h.hole[0].off ? 1000 : 0);
				size_t len = (size_t)(h.hole[0].len + 2000);

				if (off + len > size)
					len = (size_t)(size - off);
				assert_int_equal(x->fill(x, f, off, b, len), 0);
				assert_memory_equal(a + off, b, len);
			}
		}
		assert_int_equal(zeros, 2 * h.bytes);
	}
	assert_true(checked >= 10);
	content_source_release(&s);
	content_source_release(&d);
	content_model_release(&cms);
	content_model_release(&cmd);
	plan_release(&sp);
	plan_release(&dp);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_block_math),
		cmocka_unit_test(test_content),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
