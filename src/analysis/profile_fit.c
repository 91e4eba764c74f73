/* profile_fit.c - maximum likelihood fits of a profile: the hybrid file size law, files per directory */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sf_zeta.h>

#include "analysis/profile.h"
#include "util/array.h"
#include "util/util.h"

/* An empty file counts as 0.5 bytes: the model's floor(X) is 0 for X below 1. */
#define ZERO_SIZE 0.5
#define EM_ROUNDS 40
#define MIN_TAIL 10

/* ln of the normal density of l (ln bytes) under (mu, sigma) */
static double ln_body(double l, double mu, double sigma)
{
	double z = (l - mu) / sigma;

	return -0.5 * z * z - log(sigma) - 0.5 * log(2 * M_PI);
}

/* ln of the Pareto density of l = ln x for x >= xm, on the ln scale */
static double ln_tail(double l, double lxm, double shape)
{
	return log(shape) - shape * (l - lxm);
}

static double ln_add(double a, double b)
{
	return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/*
 * The sizes as ln(bytes) in bins of BIN_WIDTH: each bin's mean and count
 * (the fit runs over bins, not files: n-independent), with prefix sums
 * of the counts, of l and of l^2 over the bins before each one.
 */
#define BIN_WIDTH 0.001

struct lbins {
	double *l, *lo;        /* each bin's mean ln size, and its smallest */
	double *c;             /* files in it */
	long double *s0, *s1, *s2; /* over bins 0..i-1 */
	uint64_t n;
};

/*
 * The hybrid with the split at bin t (bins t.. may come from the tail,
 * those before only from the body) by expectation-maximisation.  Fills f
 * and returns its log-likelihood.
 */
static double fit_split(const struct lbins *b, uint64_t t, struct profile_size_fit *f)
{
	uint64_t n = b->n;
	long double nall = b->s0[n], ntail = nall - b->s0[t];
	double lxm = b->lo[t], w = 0.5 * (double)(ntail / nall);
	double mu = (double)(b->s1[n] / nall), sigma, shape, ll;
	long double var = b->s2[n] / nall - (long double)mu * mu;
	long double sum = b->s1[n] - b->s1[t] - ntail * lxm;

	sigma = var > 1e-12 ? (double)sqrtl(var) : 1e-6;
	shape = sum > 0 ? (double)(ntail / sum) : 10;
	for (int round = 0; round < EM_ROUNDS; round++) {
		long double rsum = 0, rl = 0, b1 = b->s1[t], b2 = b->s2[t], bw = b->s0[t];

		for (uint64_t i = t; i < n; i++) {
			double a = log1p(-w) + ln_body(b->l[i], mu, sigma);
			double z = log(w) + ln_tail(b->l[i], lxm, shape);
			double r = exp(z - ln_add(a, z)), c = b->c[i];

			rsum += c * r;
			rl += c * r * (b->l[i] - lxm);
			b1 += c * (1 - r) * b->l[i];
			b2 += c * (1 - r) * b->l[i] * b->l[i];
			bw += c * (1 - r);
		}
		w = fmin(fmax((double)(rsum / nall), 1e-9), 1 - 1e-9);
		shape = rl > 0 ? (double)(rsum / rl) : 10;
		mu = (double)(b1 / bw);
		var = b2 / bw - (long double)mu * mu;
		sigma = var > 1e-12 ? (double)sqrtl(var) : 1e-6;
	}
	/* the log-likelihood: below the split the body alone */
	ll = (double)(b->s0[t] * (log1p(-w) - log(sigma) - 0.5 * log(2 * M_PI))) -
	     (double)((b->s2[t] - 2 * (long double)mu * b->s1[t] + b->s0[t] * mu * mu) /
		      (2 * (long double)sigma * sigma));
	for (uint64_t i = t; i < n; i++)
		ll += b->c[i] * ln_add(log1p(-w) + ln_body(b->l[i], mu, sigma),
				       log(w) + ln_tail(b->l[i], lxm, shape));
	f->mu = mu;
	f->sigma = sigma;
	f->tail_weight = w;
	f->xm = exp(lxm);
	f->shape = shape;
	f->loglik = ll;
	return ll;
}

/* The body alone: the lognormal's maximum likelihood. */
static double fit_body(const struct lbins *b, struct profile_size_fit *f)
{
	long double nall = b->s0[b->n], var;

	f->mu = (double)(b->s1[b->n] / nall);
	var = b->s2[b->n] / nall - (long double)f->mu * f->mu;
	f->sigma = var > 1e-12 ? (double)sqrtl(var) : 1e-6;
	f->tail_weight = 0;
	f->xm = 512.0 * 1024 * 1024;
	f->shape = 0.91;
	f->loglik = -(double)nall * (log(f->sigma) + 0.5 * log(2 * M_PI) + 0.5);
	return f->loglik;
}

static void lbins_release(struct lbins *b)
{
	FREE_ALL(b->l, b->lo, b->c, b->s0, b->s1, b->s2);
}

/* Bin the sorted sizes (ascending) into b: 0 or -ENOMEM. */
static int lbins_make(struct lbins *b, const uint64_t *sizes, uint64_t n)
{
	uint64_t cap = 1024, k = 0;
	int64_t key = INT64_MIN;

	memset(b, 0, sizeof(*b));
	for (uint64_t i = 0; i < n; i++) {
		double l = log(sizes[i] ? (double)sizes[i] : ZERO_SIZE);
		int64_t kk = (int64_t)floor(l / BIN_WIDTH);

		if (kk != key || !b->l) {
			if (!b->l || k == cap) {
				cap = b->l ? cap * 2 : cap;
				if (array_resize(&b->l, cap, sizeof(*b->l)) ||
				    array_resize(&b->lo, cap, sizeof(*b->lo)) ||
				    array_resize(&b->c, cap, sizeof(*b->c)))
					return -ENOMEM;
			}
			key = kk;
			b->l[k] = 0;
			b->lo[k] = l;
			b->c[k++] = 0;
		}
		b->l[k - 1] += l;
		b->c[k - 1] += 1;
	}
	b->n = k;
	b->s0 = malloc((k + 1) * sizeof(*b->s0));
	b->s1 = malloc((k + 1) * sizeof(*b->s1));
	b->s2 = malloc((k + 1) * sizeof(*b->s2));
	if (!b->s0 || !b->s1 || !b->s2)
		return -ENOMEM;
	b->s0[0] = b->s1[0] = b->s2[0] = 0;
	for (uint64_t i = 0; i < k; i++) {
		b->l[i] /= b->c[i];
		b->s0[i + 1] = b->s0[i] + b->c[i];
		b->s1[i + 1] = b->s1[i] + (long double)b->c[i] * b->l[i];
		b->s2[i + 1] = b->s2[i] + (long double)b->c[i] * b->l[i] * b->l[i];
	}
	return 0;
}

/* The bin holding the size at index i of the sorted sizes (the bins count them in order). */
static uint64_t bin_of(const struct lbins *b, uint64_t i)
{
	uint64_t lo = 0, hi = b->n - 1;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if ((uint64_t)b->s0[mid + 1] <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int profile_fit_sizes(const uint64_t *sizes, uint64_t n, struct profile_size_fit *fit)
{
	struct lbins b;
	uint64_t last = UINT64_MAX;
	int ret;

	if (n < 2)
		return -EINVAL;
	ret = lbins_make(&b, sizes, n);
	if (ret)
		goto out_free;
	fit_body(&b, fit);
	/* split candidates: the quantiles 1 - 10^-a, a = 1 .. 5 by 0.1 */
	for (int a10 = 10; a10 <= 50; a10++) {
		uint64_t i = (uint64_t)floor((1 - pow(10, -a10 / 10.0)) * (double)n), t;
		struct profile_size_fit f;

		if (i >= n || sizes[i] == 0)
			continue;
		t = bin_of(&b, i);
		if (t == 0 || t == last || (double)(b.s0[b.n] - b.s0[t]) < MIN_TAIL)
			continue;
		last = t;
		if (fit_split(&b, t, &f) > fit->loglik)
			*fit = f;
	}
out_free:
	lbins_release(&b);
	return ret;
}

/*
 * ln-likelihood of the counts of directories holding 1..maxbin files and
 * more (count[maxbin + 1]) under the model's law (fpd_probs()) with the
 * given empty share; -INFINITY where the law has no room for its bins.
 */
static double fpd_loglik(const uint64_t *count, unsigned maxbin, double empty, double c, double k)
{
	double scale = (k - 1) * pow(c, k - 1), bins, ll = 0, tail;

	/* the bins' mass in closed form: Hurwitz zeta differences */
	bins = scale * (gsl_sf_hzeta(k, 1 + c) - gsl_sf_hzeta(k, maxbin + 1 + c));
	tail = 1 - empty - bins;
	if (!(tail >= -1e-12))
		return -INFINITY;
	for (unsigned i = 1; i <= maxbin; i++)
		if (count[i])
			ll += (double)count[i] * (log(scale) - k * log(i + c));
	if (count[maxbin + 1])
		ll += tail > 0 ? (double)count[maxbin + 1] * log(tail) : -INFINITY;
	return ll;
}

int profile_fit_fpd(const uint64_t *count, unsigned maxbin, double empty, double *c, double *k)
{
	double best = -INFINITY, bc = 2.36, bk = 2, lc0 = log(0.05), lc1 = log(200.0);
	double k0 = 1.05, k1 = 6;
	uint64_t any = 0;

	for (unsigned i = 1; i <= maxbin; i++)
		any += count[i];
	if (!any)
		return -EINVAL;
	/* a grid, then two finer grids around the best point */
	for (int pass = 0; pass < 3; pass++) {
		for (int a = 0; a <= 40; a++) {
			double cc = exp(lc0 + (lc1 - lc0) * a / 40);

			for (int b = 0; b <= 40; b++) {
				double kk = k0 + (k1 - k0) * b / 40;
				double ll = fpd_loglik(count, maxbin, empty, cc, kk);

				if (ll > best) {
					best = ll;
					bc = cc;
					bk = kk;
				}
			}
		}
		double wc = (lc1 - lc0) / 20, wk = (k1 - k0) / 20;

		lc0 = log(bc) - wc;
		lc1 = log(bc) + wc;
		k0 = fmax(1.0001, bk - wk);
		k1 = bk + wk;
	}
	*c = bc;
	*k = bk;
	return 0;
}
