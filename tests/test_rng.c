/* test_rng.c - named streams: determinism, independence, uniformity */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>

#include "model/dist.h"
#include "util/rng.h"

static void test_same_triple_same_draws(void **state)
{
	struct rng a, b;

	(void)state;
	rng_init(&a, 42, "size", 12345);
	rng_init(&b, 42, "size", 12345);
	for (int i = 0; i < 1000; i++)
		assert_true(rng_next(&a) == rng_next(&b));
}

static void test_streams_differ(void **state)
{
	struct rng a, b, c, d;

	(void)state;
	rng_init(&a, 42, "size", 7);
	rng_init(&b, 42, "ext", 7);
	rng_init(&c, 43, "size", 7);
	rng_init(&d, 42, "size", 8);
	uint64_t x = rng_next(&a);

	assert_true(x != rng_next(&b));
	assert_true(x != rng_next(&c));
	assert_true(x != rng_next(&d));
}

/* K-S of 100,000 first draws of consecutive indexes: the index-to-state map is uniform too. */
static double uniform_cdf(const void *ctx, double x)
{
	(void)ctx;
	return x <= 0 ? 0 : x >= 1 ? 1 : x;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void test_uniform(void **state)
{
	enum { N = 100000 };
	double *x = malloc(N * sizeof(*x));
	struct rng r;
	uint64_t key = rng_stream_key(5, "u");

	(void)state;
	for (int i = 0; i < N; i++) {
		rng_open(&r, key, (uint64_t)i);
		x[i] = rng_uniform(&r);
		assert_true(x[i] > 0 && x[i] < 1);
	}
	qsort(x, N, sizeof(*x), cmp_double);
	assert_true(ks_d_continuous(x, N, uniform_cdf, NULL) < ks_critical_01(N));
	/* one sequence as well */
	rng_open(&r, key, 999);
	for (int i = 0; i < N; i++)
		x[i] = rng_uniform(&r);
	qsort(x, N, sizeof(*x), cmp_double);
	assert_true(ks_d_continuous(x, N, uniform_cdf, NULL) < ks_critical_01(N));
	free(x);
}

static void test_below(void **state)
{
	enum { N = 700000, K = 7 };
	uint64_t count[K] = { 0 };
	struct rng r;
	double chi2 = 0;

	(void)state;
	rng_init(&r, 1, "below", 0);
	assert_true(rng_below(&r, 0) == 0);
	assert_true(rng_below(&r, 1) == 0);
	for (int i = 0; i < N; i++) {
		uint64_t v = rng_below(&r, K);

		assert_true(v < K);
		count[v]++;
	}
	for (int k = 0; k < K; k++)
		chi2 += ((double)count[k] - N / K) * ((double)count[k] - N / K) / (N / K);
	assert_true(chi2 < gsl_cdf_chisq_Qinv(0.001, K - 1));
}

static void test_shuffle_is_permutation(void **state)
{
	enum { N = 10000 };
	uint32_t a[N], seen[N] = { 0 }, b[N];

	(void)state;
	for (uint32_t i = 0; i < N; i++)
		a[i] = b[i] = i;
	rng_shuffle_u32(a, N, rng_stream_key(3, "perm"), 0);
	rng_shuffle_u32(b, N, rng_stream_key(3, "perm"), 0);
	assert_memory_equal(a, b, sizeof(a));
	int moved = 0;

	for (uint32_t i = 0; i < N; i++) {
		seen[a[i]]++;
		moved += a[i] != i;
	}
	for (uint32_t i = 0; i < N; i++)
		assert_int_equal(seen[i], 1);
	assert_true(moved > N * 9 / 10);
}

/* rng_permute(): a bijection of [0, n) for small and odd sizes, that moves items and differs by key */
static void test_permute(void **state)
{
	static const uint64_t sizes[] = { 1, 2, 3, 7, 64, 1000, 4097 };
	uint8_t seen[4097];

	(void)state;
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s], fixed = 0, same = 0;

		memset(seen, 0, sizeof(seen));
		for (uint64_t i = 0; i < n; i++) {
			uint64_t x = rng_permute(i, n, 42);

			assert_true(x < n);
			assert_int_equal(seen[x], 0);
			seen[x] = 1;
			fixed += x == i;
			same += x == rng_permute(i, n, 43);
		}
		if (n >= 64) {
			/* a random permutation fixes about one point; another key agrees about as rarely */
			assert_true(fixed < n / 16);
			assert_true(same < n / 16);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_triple_same_draws),
		cmocka_unit_test(test_streams_differ),
		cmocka_unit_test(test_uniform),
		cmocka_unit_test(test_below),
		cmocka_unit_test(test_shuffle_is_permutation),
		cmocka_unit_test(test_permute),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
