/* test_dist.c - unit tests of the model's distributions and their K-S fits */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>

#include "model/dist.h"
#include "util/array.h"
#include "util/rng.h"

#define NDRAW 100000
#define SEED 20240607
#define GIB (1024.0 * 1024.0 * 1024.0)
#define MIB (1024.0 * 1024.0)

/* Impressions' defaults, capped at 64 GiB */
#define DEF_MU 9.48
#define DEF_SIGMA 2.46
#define DEF_TW 0.00006
#define DEF_XM 536870912.0
#define DEF_SHAPE 0.91
#define DEF_CAP (64 * GIB)

/* P(floor(X) <= t) = F(t + 1) for the continuous X */
static double size_floor_cdf(const void *ctx, double t)
{
	return size_model_cdf(ctx, t + 1);
}

/* D of NDRAW iid sizes drawn from gen, tested against the law of model */
static double size_ks(const struct size_model *gen, const struct size_model *model,
		      const char *stream)
{
	uint64_t *v = malloc(NDRAW * sizeof(*v));
	struct rng r;
	double d;
	size_t i;

	assert_non_null(v);
	rng_init(&r, SEED, stream, 0);
	for (i = 0; i < NDRAW; i++) {
		v[i] = size_model_bytes(gen, rng_uniform(&r));
		assert_true((double)v[i] <= floor(gen->cap));
	}
	qsort(v, NDRAW, sizeof(*v), array_cmp_u64);
	d = ks_d_discrete(v, NDRAW, size_floor_cdf, model);
	free(v);
	return d;
}

static void check_size_fit(double mu, double sigma, double tw, double xm,
			   double shape, double cap, const char *what)
{
	struct size_model m;
	double d, crit = ks_critical_01(NDRAW);

	assert_int_equal(size_model_init(&m, mu, sigma, tw, xm, shape, cap), 0);
	d = size_ks(&m, &m, what);
	print_message("sizes %-10s D = %.5f (1%% critical %.5f)\n", what, d, crit);
	assert_true(d < crit);
}

static void test_size_fit_default(void **state)
{
	(void)state;
	check_size_fit(DEF_MU, DEF_SIGMA, DEF_TW, DEF_XM, DEF_SHAPE, DEF_CAP,
		       "default");
}

static void test_size_fit_small_cap(void **state)
{
	struct size_model m;

	(void)state;
	assert_int_equal(size_model_init(&m, DEF_MU, DEF_SIGMA, DEF_TW, DEF_XM,
					 DEF_SHAPE, 100 * MIB), 0);
	/* cap below xm: the tail is dropped, the body takes all the weight */
	assert_true(m.w_tail == 0.0);
	assert_true(m.w_body == 1.0);
	assert_true(m.split == 1.0);
	check_size_fit(DEF_MU, DEF_SIGMA, DEF_TW, DEF_XM, DEF_SHAPE, 100 * MIB,
		       "small-cap");
}

static void test_size_fit_heavy_tail(void **state)
{
	struct size_model m;
	struct rng r;
	size_t i, above = 0;

	(void)state;
	assert_int_equal(size_model_init(&m, DEF_MU, DEF_SIGMA, 0.05, DEF_XM,
					 DEF_SHAPE, DEF_CAP), 0);
	/* make sure the solver above xm is actually exercised */
	rng_init(&r, SEED, "heavy-count", 0);
	for (i = 0; i < 10000; i++)
		above += size_model_quantile(&m, rng_uniform(&r)) > DEF_XM;
	assert_true(above > 300);
	check_size_fit(DEF_MU, DEF_SIGMA, 0.05, DEF_XM, DEF_SHAPE, DEF_CAP,
		       "tail-0.05");
	check_size_fit(DEF_MU, DEF_SIGMA, 1.0, DEF_XM, DEF_SHAPE, DEF_CAP,
		       "tail-only");
	/* a tail that starts below the body's median: non-convex survival */
	check_size_fit(DEF_MU, DEF_SIGMA, 0.3, 2000, 1.0, 1e7, "low-xm");
}

static void test_size_negative(void **state)
{
	struct size_model gen, model;
	double d, crit = ks_critical_01(NDRAW);

	(void)state;
	assert_int_equal(size_model_init(&gen, DEF_MU, 2.6, DEF_TW, DEF_XM,
					 DEF_SHAPE, DEF_CAP), 0);
	assert_int_equal(size_model_init(&model, DEF_MU, DEF_SIGMA, DEF_TW,
					 DEF_XM, DEF_SHAPE, DEF_CAP), 0);
	d = size_ks(&gen, &model, "negative");
	print_message("sizes sigma 2.6 vs 2.46: D = %.5f (must exceed %.5f)\n",
		      d, crit);
	assert_true(d > crit);
}

static void test_size_init_invalid(void **state)
{
	struct size_model m;

	(void)state;
	assert_int_equal(size_model_init(&m, 9, 0, 0, 1, 1, 10), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, -1, 0, 1, 1, 10), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, NAN, 0, 1, 1, 10), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, 1, -0.1, 1, 1, 10), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, 1, 1.1, 1, 1, 10), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, 1, 0, 0, 1, 10), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, 1, 0, 1, 0, 10), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, 1, 0, 1, 1, 0.5), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, 1, 0, 1, 1, INFINITY), -EINVAL);
	assert_int_equal(size_model_init(&m, 9, 1, 0, 1, 1, 1), 0);
}

/* configurations for the analytic checks: name, mu, sigma, tw, xm, shape, cap */
struct size_case {
	const char *name;
	double mu, sigma, tw, xm, shape, cap;
};

static const struct size_case size_cases[] = {
	{ "default", DEF_MU, DEF_SIGMA, DEF_TW, DEF_XM, DEF_SHAPE, DEF_CAP },
	{ "small-cap", DEF_MU, DEF_SIGMA, DEF_TW, DEF_XM, DEF_SHAPE, 100 * MIB },
	{ "tail-0.05", DEF_MU, DEF_SIGMA, 0.05, DEF_XM, DEF_SHAPE, DEF_CAP },
	{ "shape-1", DEF_MU, DEF_SIGMA, 0.05, DEF_XM, 1.0, DEF_CAP },
	{ "shape-1.5", DEF_MU, DEF_SIGMA, 0.2, DEF_XM, 1.5, DEF_CAP },
	{ "tail-only", DEF_MU, DEF_SIGMA, 1.0, DEF_XM, DEF_SHAPE, DEF_CAP },
	{ "low-xm", DEF_MU, DEF_SIGMA, 0.3, 2000, 1.0, 1e7 },
	{ "tiny-cap", DEF_MU, DEF_SIGMA, DEF_TW, DEF_XM, DEF_SHAPE, 1 },
};

static void test_size_quantile_roundtrip(void **state)
{
	const size_t npts = 4000;
	size_t c, i;

	(void)state;
	for (c = 0; c < sizeof(size_cases) / sizeof(size_cases[0]); c++) {
		const struct size_case *s = &size_cases[c];
		struct size_model m;
		double prev = 0, worst = 0;

		assert_int_equal(size_model_init(&m, s->mu, s->sigma, s->tw,
						 s->xm, s->shape, s->cap), 0);
		/* geometric grid from 1e-3 bytes to just below the cap */
		for (i = 0; i <= npts; i++) {
			double x = 1e-3 * pow(s->cap * (1 - 1e-4) / 1e-3,
					      (double)i / npts);
			double u = size_model_cdf(&m, x), q, err;

			assert_true(u >= prev);
			prev = u;
			if (!(u > 0 && u < 1))
				continue;
			q = size_model_quantile(&m, u);
			err = fabs(q - x) / x;
			if (err > worst)
				worst = err;
			if (err > 1e-9)
				fail_msg("%s: quantile(cdf(%.17g)) = %.17g", s->name,
					 x, q);
		}
		assert_true(size_model_cdf(&m, 0) == 0.0);
		assert_true(size_model_cdf(&m, s->cap) == 1.0);
		assert_true(size_model_quantile(&m, 1e-300) >= 0);
		assert_true(size_model_quantile(&m, 1 - 1e-16) <= s->cap);
		assert_true(size_model_bytes(&m, 1 - 1e-16) <= (uint64_t)s->cap);
		print_message("quantile %-10s worst relative round-trip %.2e\n",
			      s->name, worst);
	}
}

/* survival 1 - F(x) for the mean as int_0^cap S(x) dx */
static double size_sf(double x, void *ctx)
{
	return 1 - size_model_cdf(ctx, x);
}

static double integrate_piece(double (*f)(double, void *), void *ctx,
			      double a, double b, gsl_integration_workspace *w)
{
	gsl_function fn = { .function = f, .params = ctx };
	double res, err;

	assert_int_equal(gsl_integration_qags(&fn, a, b, 0, 1e-12, 1000, w,
					      &res, &err), 0);
	return res;
}

static void test_size_mean(void **state)
{
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	size_t c;

	(void)state;
	assert_non_null(w);
	for (c = 0; c < sizeof(size_cases) / sizeof(size_cases[0]); c++) {
		const struct size_case *s = &size_cases[c];
		struct size_model m;
		double a = 0, b, sum = 0;

		assert_int_equal(size_model_init(&m, s->mu, s->sigma, s->tw,
						 s->xm, s->shape, s->cap), 0);
		/* dyadic pieces, with xm as a break where the tail's kink is */
		for (b = 1; a < s->cap; b *= 2) {
			if (b > s->cap)
				b = s->cap;
			if (a < s->xm && s->xm < b) {
				sum += integrate_piece(size_sf, &m, a, s->xm, w);
				a = s->xm;
			}
			sum += integrate_piece(size_sf, &m, a, b, w);
			a = b;
		}
		print_message("mean %-10s closed form %.10g, numeric %.10g\n",
			      s->name, m.mean, sum);
		assert_true(fabs(m.mean - sum) <= 1e-8 * sum);
	}
	gsl_integration_workspace_free(w);
}

/* NDRAW draws of an index from p[], histogram in count[] */
static void draw_hist(const double *p, size_t len, const char *stream,
		      uint64_t *count)
{
	struct rng r;
	size_t i;

	for (i = 0; i < len; i++)
		count[i] = 0;
	rng_init(&r, SEED, stream, 0);
	for (i = 0; i < NDRAW; i++)
		count[draw_index(p, len, rng_uniform(&r))]++;
}

static double sum_of(const double *p, size_t len)
{
	double s = 0;
	size_t i;

	for (i = 0; i < len; i++)
		s += p[i];
	return s;
}

static void test_depth_poisson(void **state)
{
	double p[16], q[16], crit = ks_critical_01(NDRAW), d;
	uint64_t count[16];
	unsigned i;

	(void)state;
	assert_int_equal(depth_poisson_probs(6.49, 15, p), 0);
	assert_true(fabs(sum_of(p, 16) - 1) < 1e-12);
	for (i = 0; i <= 15; i++)
		assert_true(fabs(p[i] - gsl_ran_poisson_pdf(i, 6.49) /
				 gsl_cdf_poisson_P(15, 6.49)) <= 1e-12 * p[i]);
	draw_hist(p, 16, "depth-poisson", count);
	d = ks_d_hist(count, 16, p);
	print_message("poisson depth D = %.5f (1%% critical %.5f)\n", d, crit);
	assert_true(d < crit);

	/* a different lambda must be rejected by the same test */
	assert_int_equal(depth_poisson_probs(6.8, 15, q), 0);
	draw_hist(q, 16, "depth-poisson", count);
	d = ks_d_hist(count, 16, p);
	print_message("poisson 6.8 vs 6.49 D = %.5f (must exceed %.5f)\n", d, crit);
	assert_true(d > crit);

	/* truncation far below lambda, where every plain pmf underflows */
	assert_int_equal(depth_poisson_probs(1e6, 3, p), 0);
	assert_true(fabs(sum_of(p, 4) - 1) < 1e-12 && p[3] > 0.99);
	assert_int_equal(depth_poisson_probs(0, 3, p), -EINVAL);
	assert_int_equal(depth_poisson_probs(-1, 3, p), -EINVAL);
	assert_int_equal(depth_poisson_probs(2, 0, p), 0);
	assert_true(p[0] == 1.0);
}

static void test_depth_care(void **state)
{
	unsigned char allowed[26];
	double p[26], crit = ks_critical_01(NDRAW), d, w5, w6;
	uint64_t count[26];
	unsigned i;

	(void)state;
	for (i = 0; i < 26; i++)
		allowed[i] = i != 3 && i != 10;
	assert_int_equal(depth_care_probs(4096, 25, allowed, p), 0);
	assert_true(fabs(sum_of(p, 26) - 1) < 1e-12);
	assert_true(p[3] == 0.0 && p[10] == 0.0);
	for (i = 0; i < 26; i++)
		if (allowed[i])
			assert_true(p[i] > 0);
	/* depth 5 uses row 6, depth 6 row 7: ratio of countprob / distance */
	w5 = 1308 / fabs(12 - 17.40);
	w6 = 2268 / fabs(12 - 16.78);
	assert_true(fabs(p[5] / p[6] - w5 / w6) < 1e-12);
	/* depths 19 and deeper all use row 20 */
	assert_true(p[19] == p[25]);
	draw_hist(p, 26, "depth-care", count);
	assert_true(count[3] == 0 && count[10] == 0);
	d = ks_d_hist(count, 26, p);
	print_message("depth care D = %.5f (1%% critical %.5f)\n", d, crit);
	assert_true(d < crit);

	/* a size on a row's mean: the floored distance keeps it finite */
	assert_int_equal(depth_care_probs(1 << 14, 19, NULL, p), 0);
	assert_true(fabs(sum_of(p, 20) - 1) < 1e-12);
	/* rows 20 and 1 both count 2 files; row 20's distance 0.05 is floored */
	assert_true(fabs(p[19] / p[0] - fabs(14 - 24.86) / 0.1) < 1e-9);
	/* size 0 is taken as 1 byte */
	assert_int_equal(depth_care_probs(0, 5, NULL, p), 0);
	assert_true(fabs(sum_of(p, 6) - 1) < 1e-12);
	for (i = 0; i < 26; i++)
		allowed[i] = 0;
	assert_int_equal(depth_care_probs(4096, 25, allowed, p), -EINVAL);
}

/* ctx of the tail CDF callback */
struct tail_law {
	double c, k, lo, hi;
};

static double tail_cdf_cb(const void *ctx, double x)
{
	const struct tail_law *t = ctx;

	return fpd_tail_cdf(t->c, t->k, t->lo, t->hi, x);
}

/* integrands of the tail mean in s = ln(x + c), smooth over decades */
static double tail_num(double s, void *ctx)
{
	const struct tail_law *t = ctx;

	return (exp(s) - t->c) * exp(s * (1 - t->k));
}

static double tail_den(double s, void *ctx)
{
	const struct tail_law *t = ctx;

	return exp(s * (1 - t->k));
}

static void test_fpd(void **state)
{
	double p[30], crit = ks_critical_01(NDRAW), d;
	uint64_t count[30];
	unsigned i;

	(void)state;
	assert_int_equal(fpd_probs(0.225, 2.36, 2, 28, p), 0);
	assert_true(fabs(sum_of(p, 30) - 1) < 1e-12);
	assert_true(p[0] == 0.225);
	assert_true(fabs(p[1] - 2.36 / (3.36 * 3.36)) < 1e-15);
	assert_true(p[29] > 0.01 && p[29] < 0.05);
	for (i = 2; i <= 28; i++)
		assert_true(p[i] < p[i - 1]);
	print_message("fpd: tail mass beyond 28 files %.5f\n", p[29]);
	draw_hist(p, 30, "fpd", count);
	d = ks_d_hist(count, 30, p);
	print_message("fpd bins D = %.5f (1%% critical %.5f)\n", d, crit);
	assert_true(d < crit);

	assert_int_equal(fpd_probs(0.9, 2.36, 2, 28, p), -EINVAL);
	assert_int_equal(fpd_probs(0.2, 2.36, 1, 28, p), -EINVAL);
	assert_int_equal(fpd_probs(0.2, 0, 2, 28, p), -EINVAL);
	assert_int_equal(fpd_probs(-0.1, 2.36, 2, 28, p), -EINVAL);
}

static void test_fpd_tail(void **state)
{
	static const struct tail_law laws[] = {
		{ 2.36, 2.0, 28.5, 1e5 },
		{ 2.36, 1.0, 28.5, 1e5 },
		{ 2.36, 2.7, 28.5, INFINITY },
		{ 2.36, 0.5, 28.5, 5000 },
		{ 2.36, 1.0 + 1e-9, 28.5, 1e5 },
		{ 2.36, 2.0 - 1e-9, 28.5, 1e5 },
		{ 2.36, 3.5, 1, 50 },
	};
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	double *x = malloc(NDRAW * sizeof(*x));
	double crit = ks_critical_01(NDRAW), d;
	struct rng r;
	size_t l, i;

	(void)state;
	assert_non_null(w);
	assert_non_null(x);
	for (l = 0; l < sizeof(laws) / sizeof(laws[0]); l++) {
		const struct tail_law *t = &laws[l];
		double mean = fpd_tail_mean(t->c, t->k, t->lo, t->hi);
		double a = log(t->lo + t->c), b, num = 0, den = 0;

		/* quantile round trip through the CDF */
		for (i = 1; i < 1000; i++) {
			double u = i / 1000.0;
			double q = fpd_tail_quantile(t->c, t->k, t->lo, t->hi, u);

			assert_true(q >= t->lo && q <= t->hi);
			assert_true(fabs(fpd_tail_cdf(t->c, t->k, t->lo, t->hi, q) -
					 u) < 1e-12);
		}
		rng_init(&r, SEED, "fpd-tail", l);
		for (i = 0; i < NDRAW; i++)
			x[i] = fpd_tail_quantile(t->c, t->k, t->lo, t->hi,
						 rng_uniform(&r));
		qsort(x, NDRAW, sizeof(*x), array_cmp_double);
		d = ks_d_continuous(x, NDRAW, tail_cdf_cb, t);
		assert_true(d < crit);

		if (isinf(t->hi)) {
			/* closed form of the unbounded k > 2 case */
			double exact = (t->lo + t->c) / (t->k - 2) + t->lo;

			print_message("fpd tail k=%-12.10g D = %.5f, mean %.10g vs %.10g\n",
				      t->k, d, mean, exact);
			assert_true(fabs(mean - exact) <= 1e-12 * exact);
			continue;
		}
		/* numeric mean, over one piece per unit of ln(x + c) */
		for (b = a; b < log(t->hi + t->c);) {
			double e = fmin(b + 1, log(t->hi + t->c));

			num += integrate_piece(tail_num, (void *)t, b, e, w);
			den += integrate_piece(tail_den, (void *)t, b, e, w);
			b = e;
		}
		print_message("fpd tail k=%-12.10g D = %.5f, mean %.10g vs numeric %.10g\n",
			      t->k, d, mean, num / den);
		assert_true(fabs(mean - num / den) <= 1e-9 * mean);
	}
	/* degenerate and invalid laws */
	assert_true(fpd_tail_quantile(2, 2, 5, 5, 0.3) == 5);
	assert_true(fpd_tail_mean(2, 2, 5, 5) == 5);
	assert_true(isnan(fpd_tail_mean(2, 2, 5, 4)));
	assert_true(isnan(fpd_tail_mean(-10, 2, 5, 6)));
	assert_true(isnan(fpd_tail_mean(2, 1, 5, INFINITY)));
	assert_true(isinf(fpd_tail_mean(2, 2, 5, INFINITY)));
	free(x);
	gsl_integration_workspace_free(w);
}

static void check_quotas(const double *p, size_t len, uint64_t n)
{
	uint64_t out[64], total = 0;
	double s = 0;
	size_t i;

	assert_true(len <= 64);
	for (i = 0; i < len; i++)
		s += p[i] > 0 ? p[i] : 0;
	quotas_from_probs(p, len, n, out);
	for (i = 0; i < len; i++) {
		double want = s > 0 ? (double)n * (p[i] > 0 ? p[i] : 0) / s
				    : (double)n / len;

		total += out[i];
		if (!(fabs((double)out[i] - want) < 1))
			fail_msg("quota %zu of %zu: %" PRIu64 " for %.3f (n %" PRIu64 ")",
				 i, len, out[i], want, n);
	}
	assert_true(total == n);
}

static void test_quotas(void **state)
{
	static const uint64_t ns[] = { 0, 1, 2, 7, 100, 12345, 1000000,
				       10000000000ULL, 123456789012345ULL };
	double p[64];
	uint64_t out[4];
	struct rng r;
	size_t t, i, len, j;

	(void)state;
	rng_init(&r, SEED, "quotas", 0);
	for (t = 0; t < 300; t++) {
		/* sums off 1 either way, zeros included */
		double scale = t % 3 == 0 ? 1 + 1e-9 : t % 3 == 1 ? 0.97 : 1;
		double s = 0;

		len = 1 + rng_below(&r, 64);
		for (i = 0; i < len; i++) {
			p[i] = rng_below(&r, 5) == 0 ? 0 : rng_uniform(&r);
			s += p[i];
		}
		for (i = 0; i < len; i++)
			p[i] = s > 0 ? p[i] / s * scale : 0;
		for (j = 0; j < sizeof(ns) / sizeof(ns[0]); j++)
			check_quotas(p, len, ns[j]);
	}

	/* ties go to the lower index */
	p[0] = p[1] = p[2] = 1.0 / 3;
	quotas_from_probs(p, 3, 2, out);
	assert_true(out[0] == 1 && out[1] == 1 && out[2] == 0);
	quotas_from_probs(p, 3, 1, out);
	assert_true(out[0] == 1 && out[1] == 0 && out[2] == 0);
	/* largest remainder wins over index */
	p[0] = 0.1;
	p[1] = 0.3;
	p[2] = 0.6;
	quotas_from_probs(p, 3, 2, out);
	assert_true(out[0] == 0 && out[1] == 1 && out[2] == 1);
	/* nothing usable: uniform */
	p[0] = 0;
	p[1] = -1;
	p[2] = NAN;
	p[3] = 0;
	quotas_from_probs(p, 4, 10, out);
	assert_true(out[0] == 3 && out[1] == 3 && out[2] == 2 && out[3] == 2);
}

static void test_draw_index(void **state)
{
	static const double p[] = { 0.25, 0.25, 0.5 };
	static const double short_p[] = { 0.3, 0.3 };

	(void)state;
	assert_int_equal(draw_index(p, 3, 0.1), 0);
	assert_int_equal(draw_index(p, 3, 0.3), 1);
	assert_int_equal(draw_index(p, 3, 0.99), 2);
	/* a table summing short of 1: the last index takes the rest */
	assert_int_equal(draw_index(short_p, 2, 0.9), 1);
	assert_int_equal(draw_index(p, 0, 0.5), 0);
}

static double uniform_cdf(const void *ctx, double x)
{
	(void)ctx;
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static double geom_half_cdf(const void *ctx, double t)
{
	(void)ctx;
	return t < 0 ? 0 : 1 - pow(0.5, floor(t) + 1);
}

static void test_ks(void **state)
{
	static const double x[] = { 0.1, 0.2, 0.9 };
	static const uint64_t v[] = { 0, 0, 1, 3 };
	static const uint64_t hist[] = { 2, 1, 0, 1 };
	static const double pmf[] = { 0.5, 0.25, 0.125, 0.0625 };

	(void)state;
	/* steps at 1/3, 2/3, 1 against x: sup is 2/3 - 0.2 just after 0.2 */
	assert_true(fabs(ks_d_continuous(x, 3, uniform_cdf, NULL) -
			 (2.0 / 3 - 0.2)) < 1e-15);
	/* Fn: 0.5, 0.75, 0.75, 1; F: 0.5, 0.75, 0.875, 0.9375 */
	assert_true(fabs(ks_d_discrete(v, 4, geom_half_cdf, NULL) - 0.125) < 1e-15);
	assert_true(fabs(ks_d_hist(hist, 4, pmf) - 0.125) < 1e-15);
	assert_true(fabs(ks_critical_01(10000) - 0.01628) < 1e-15);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_init_invalid),
		cmocka_unit_test(test_size_fit_default),
		cmocka_unit_test(test_size_fit_small_cap),
		cmocka_unit_test(test_size_fit_heavy_tail),
		cmocka_unit_test(test_size_negative),
		cmocka_unit_test(test_size_quantile_roundtrip),
		cmocka_unit_test(test_size_mean),
		cmocka_unit_test(test_depth_poisson),
		cmocka_unit_test(test_depth_care),
		cmocka_unit_test(test_fpd),
		cmocka_unit_test(test_fpd_tail),
		cmocka_unit_test(test_quotas),
		cmocka_unit_test(test_draw_index),
		cmocka_unit_test(test_ks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
