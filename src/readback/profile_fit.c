/* profile_fit.c - maximum likelihood fits of a profile: the hybrid file size law, files per directory */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "model/dist.h"
#include "readback/profile.h"

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
 * The hybrid with the split at index t (l[t..n-1] may come from the tail,
 * l[0..t-1] only from the body) by expectation-maximisation; s1, s2 are
 * prefix sums of l and l^2.  Fills f and returns its log-likelihood.
 */
static double fit_split(const double *l, uint64_t n, uint64_t t, const long double *s1,
			const long double *s2, struct profile_size_fit *f)
{
	double lxm = l[t], w = 0.5 * (double)(n - t) / (double)n;
	double mu = (double)(s1[n] / n), sigma, shape, ll = 0;
	long double var = s2[n] / n - (long double)mu * mu;
	uint64_t nt = n - t;

	sigma = var > 1e-12 ? sqrtl(var) : 1e-6;
	{
		long double sum = s1[n] - s1[t] - (long double)nt * lxm;

		shape = sum > 0 ? (double)((long double)nt / sum) : 10;
	}
	for (int round = 0; round < EM_ROUNDS; round++) {
		long double rsum = 0, rl = 0, b1 = s1[t], b2 = s2[t], bw = (long double)t;

		for (uint64_t i = t; i < n; i++) {
			double a = log1p(-w) + ln_body(l[i], mu, sigma);
			double b = log(w) + ln_tail(l[i], lxm, shape);
			double r = exp(b - ln_add(a, b));

			rsum += r;
			rl += r * (l[i] - lxm);
			b1 += (1 - r) * l[i];
			b2 += (1 - r) * l[i] * l[i];
			bw += 1 - r;
		}
		w = (double)(rsum / n);
		if (w < 1e-9)
			w = 1e-9;
		if (w > 1 - 1e-9)
			w = 1 - 1e-9;
		shape = rl > 0 ? (double)(rsum / rl) : 10;
		mu = (double)(b1 / bw);
		var = b2 / bw - (long double)mu * mu;
		sigma = var > 1e-12 ? sqrtl(var) : 1e-6;
	}
	/* the log-likelihood: below the split the body alone */
	ll = (double)t * (log1p(-w) - log(sigma) - 0.5 * log(2 * M_PI)) -
	     (double)((s2[t] - 2 * (long double)mu * s1[t] + (long double)t * mu * mu) /
		      (2 * (long double)sigma * sigma));
	for (uint64_t i = t; i < n; i++)
		ll += ln_add(log1p(-w) + ln_body(l[i], mu, sigma),
			     log(w) + ln_tail(l[i], lxm, shape));
	f->mu = mu;
	f->sigma = sigma;
	f->tail_weight = w;
	f->xm = exp(lxm);
	f->shape = shape;
	f->loglik = ll;
	return ll;
}

/* The body alone: the lognormal's maximum likelihood. */
static double fit_body(uint64_t n, const long double *s1, const long double *s2,
		       struct profile_size_fit *f)
{
	long double var;

	f->mu = (double)(s1[n] / n);
	var = s2[n] / n - (long double)f->mu * f->mu;
	f->sigma = var > 1e-12 ? (double)sqrtl(var) : 1e-6;
	f->tail_weight = 0;
	f->xm = 512.0 * 1024 * 1024;
	f->shape = 0.91;
	f->loglik = -(double)n * (log(f->sigma) + 0.5 * log(2 * M_PI) + 0.5);
	return f->loglik;
}

int profile_fit_sizes(const uint64_t *sizes, uint64_t n, struct profile_size_fit *fit)
{
	double *l = NULL;
	long double *s1 = NULL, *s2 = NULL;
	uint64_t last = UINT64_MAX;
	int ret = -ENOMEM;

	if (n < 2)
		return -EINVAL;
	l = malloc(n * sizeof(*l));
	s1 = malloc((n + 1) * sizeof(*s1));
	s2 = malloc((n + 1) * sizeof(*s2));
	if (!l || !s1 || !s2)
		goto out_free;
	s1[0] = s2[0] = 0;
	for (uint64_t i = 0; i < n; i++) {
		l[i] = log(sizes[i] ? (double)sizes[i] : ZERO_SIZE);
		s1[i + 1] = s1[i] + l[i];
		s2[i + 1] = s2[i] + (long double)l[i] * l[i];
	}
	fit_body(n, s1, s2, fit);
	/* split candidates: the quantiles 1 - 10^-a, a = 1 .. 5 by 0.1, first of a run of ties */
	for (int a10 = 10; a10 <= 50; a10++) {
		uint64_t t = (uint64_t)floor((1 - pow(10, -a10 / 10.0)) * (double)n);
		struct profile_size_fit f;

		while (t > 0 && sizes[t - 1] == sizes[t < n ? t : n - 1])
			t--;
		if (t >= n || n - t < MIN_TAIL || t == last || sizes[t] == 0)
			continue;
		last = t;
		if (fit_split(l, n, t, s1, s2, &f) > fit->loglik)
			*fit = f;
	}
	ret = 0;
out_free:
	free(l);
	free(s1);
	free(s2);
	return ret;
}

/*
 * ln-likelihood of the counts of directories holding 1..maxbin files and
 * more (count[maxbin + 1]) under the model's law (fpd_probs()) with the
 * given empty share; -INFINITY where the law has no room for its bins.
 */
static double fpd_loglik(const uint64_t *count, unsigned maxbin, double empty, double c, double k,
			 double *p)
{
	double ll = 0;

	if (fpd_probs(empty, c, k, maxbin, p))
		return -INFINITY;
	for (unsigned i = 1; i <= maxbin + 1; i++) {
		if (!count[i])
			continue;
		if (!(p[i] > 0))
			return -INFINITY;
		ll += (double)count[i] * log(p[i]);
	}
	return ll;
}

int profile_fit_fpd(const uint64_t *count, unsigned maxbin, double empty, double *c, double *k)
{
	double best = -INFINITY, bc = 2.36, bk = 2, lc0 = log(0.05), lc1 = log(200.0);
	double k0 = 1.05, k1 = 6;
	uint64_t any = 0;
	double *p = malloc((maxbin + 2) * sizeof(*p));

	if (!p)
		return -ENOMEM;
	for (unsigned i = 1; i <= maxbin; i++)
		any += count[i];
	if (!any) {
		free(p);
		return -EINVAL;
	}
	/* a grid, then two finer grids around the best point */
	for (int pass = 0; pass < 3; pass++) {
		for (int a = 0; a <= 40; a++) {
			double cc = exp(lc0 + (lc1 - lc0) * a / 40);

			for (int b = 0; b <= 40; b++) {
				double kk = k0 + (k1 - k0) * b / 40;
				double ll = fpd_loglik(count, maxbin, empty, cc, kk, p);

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
	free(p);
	*c = bc;
	*k = bk;
	return 0;
}
