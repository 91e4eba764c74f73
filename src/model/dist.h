/* dist.h - the model's distributions: samplers with their CDFs, and K-S tests */
#ifndef IMPRINT_DIST_H
#define IMPRINT_DIST_H

#include <stddef.h>
#include <stdint.h>

/*
 * File size: with probability 1 - tail_weight a lognormal(mu, sigma) body,
 * else a Pareto(xm, shape) tail; the mixture is truncated at cap (each part
 * renormalised on [0, cap]; a part with no mass below cap is dropped).
 * Sizes in bytes are floor() of the continuous variate.
 */
struct size_model {
	double mu, sigma, tail_weight, xm, shape, cap;
	/* derived by size_model_init */
	double w_body, w_tail;     /* effective weights after truncation */
	double body_mass_cap;      /* lognormal CDF at cap */
	double tail_mass_cap;      /* Pareto CDF at cap */
	double mean;               /* mean of the truncated mixture, bytes */
	double split;              /* CDF at xm: below it only the body counts */
	/* an empirical law instead (size_model_init_table), or NULL */
	const uint64_t *q;         /* sizes at u = i / (nq - 1), nondecreasing */
	unsigned nq;
};

/*
 * Returns 0, or -EINVAL when the parameters admit no distribution (sigma,
 * xm, shape must be > 0, tail_weight in [0, 1], cap >= 1, all finite).
 * When cap <= xm the tail is dropped and the body gets all the weight.
 */
int size_model_init(struct size_model *m, double mu, double sigma,
		    double tail_weight, double xm, double shape, double cap);
/*
 * The empirical law of a quantile table: q[0..nq-1] (nq >= 2, bytes,
 * nondecreasing) at u = i / (nq - 1), log-linear in (1 + size) between
 * them, truncated at cap.  q is referenced, not copied.  The functions
 * below then follow it.  Returns 0 or -EINVAL.
 */
int size_model_init_table(struct size_model *m, const uint64_t *q, unsigned nq, double cap);

/* P(X <= x) of the continuous truncated mixture. */
double size_model_cdf(const struct size_model *m, double x);
/* Inverse of the CDF, u in (0,1); result in [0, cap]. */
double size_model_quantile(const struct size_model *m, double u);
/* Integer size in bytes for u: floor(quantile(u)), at most floor(cap). */
uint64_t size_model_bytes(const struct size_model *m, double u);

/*
 * Poisson(lambda) truncated to 0..maxdepth and renormalised; p[] gets
 * maxdepth + 1 probabilities.  Returns 0 or -EINVAL.
 */
int depth_poisson_probs(double lambda, unsigned maxdepth, double *p);

/*
 * "Depth with care" (Impressions): P(depth d | size) proportional to
 * countprob[d] / |log2(size) - meanlog2[d]|, from the FAST 2007 tables,
 * over the depths allowed[d] != 0, d = 0..maxdepth (file depth d uses table
 * row min(d + 1, 20)).  log2(size) is taken of max(size, 1), and the
 * distance to meanlog2 is floored at 0.1 so that a size sitting on a row's
 * mean cannot divide by zero.  allowed may be NULL: every depth allowed.
 * Fills p[0..maxdepth]; returns 0, or -EINVAL when no depth is allowed.
 */
int depth_care_probs(uint64_t size, unsigned maxdepth, const unsigned char *allowed,
		     double *p);

/*
 * Files per directory: P(0) = empty_share; P(i) = (k-1) c^(k-1) (i+c)^-k for
 * i = 1..maxbin; the remainder P(tail) is the mass of "more than maxbin".
 * p[] gets maxbin + 2 entries: p[0], p[1..maxbin], p[maxbin+1] = tail.
 * Returns 0, or -EINVAL when the bins alone exceed 1.
 */
int fpd_probs(double empty_share, double c, double k, unsigned maxbin, double *p);

/*
 * Tail of files per directory: the continuous law with density proportional
 * to (x+c)^-k on [lo, hi].  Quantile and mean; used to spread the tail's
 * files over the tail directories.
 */
double fpd_tail_quantile(double c, double k, double lo, double hi, double u);
double fpd_tail_mean(double c, double k, double lo, double hi);
/*
 * CDF of the same law at x.  All three return NAN when lo + c <= 0 or
 * hi < lo, or when hi is infinite and the law has no finite mass (k <= 1);
 * hi may be INFINITY otherwise (the mean is then infinite for k <= 2).
 */
double fpd_tail_cdf(double c, double k, double lo, double hi, double x);

/*
 * Integer quotas: split n into len counts proportional to p[] (which need
 * not sum exactly to 1), largest remainder, so that they sum to n exactly.
 * Equal remainders go to the lower index first.  Negative or NaN entries
 * count as 0; if nothing is left, the split is uniform.  Allocates nothing.
 */
void quotas_from_probs(const double *p, size_t len, uint64_t n, uint64_t *out);

/*
 * Inverse-CDF draw of an index from p[0..len-1] (sums to ~1) for u in (0,1),
 * by a linear scan (meant for short tables); a u beyond the table's total
 * gives len - 1.  Returns 0 when len is 0.
 */
size_t draw_index(const double *p, size_t len, double u);

/*
 * Kolmogorov-Smirnov D of a sample against a continuous CDF.  x is sorted
 * ascending; n values.
 */
double ks_d_continuous(const double *x, size_t n,
		       double (*cdf)(const void *ctx, double x), const void *ctx);

/*
 * K-S D of integer data against a discrete law: sorted values v[], and
 * cdf(ctx, t) = P(V <= t) of the model for integer t.
 */
double ks_d_discrete(const uint64_t *v, size_t n,
		     double (*cdf)(const void *ctx, double t), const void *ctx);

/* Same, from a histogram: count[t] observations of value t, t = 0..len-1. */
double ks_d_hist(const uint64_t *count, size_t len, const double *model_p);

/*
 * P(age <= d days) of the model's file ages (doc/model.md, "Owners, modes,
 * times"): lognormal of that median and sigma, the part above max_days
 * redrawn uniformly below it.
 */
double age_lognormal_cdf(double median_days, double sigma, double max_days, double d);

/*
 * P(X <= x) of the law linear between the quantiles q[0..n-1] at u = i/(n - 1)
 * (n >= 2, nondecreasing; a run of equal ones is a point mass).
 */
double quantile_table_cdf(const double *q, uint32_t n, double x);

/* Asymptotic 1% critical value of D for n observations: 1.628 / sqrt(n). */
double ks_critical_01(size_t n);

#endif
