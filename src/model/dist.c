/* dist.c - the model's distributions: samplers, their CDFs, and K-S tests */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_erf.h>
#include <gsl/gsl_sf_gamma.h>

#include "model/dist.h"

/*
 * (exp(e r) - 1) / e, with its limit r at e = 0.  Integrals of powers,
 * int_A^B y^(e-1) dy = A^e * expm1_ratio(e, ln(B/A)), written this way stay
 * exact at the log cases (e = 0) and accurate next to them.
 */
static double expm1_ratio(double e, double r)
{
	if (e == 0.0)
		return r;
	return expm1(e * r) / e;
}

/* ln Phi(z), finite far into the lower tail where Phi(z) underflows */
static double log_ugaussian_P(double z)
{
	return gsl_sf_log_erfc(-z / M_SQRT2) - M_LN2;
}

int size_model_init(struct size_model *m, double mu, double sigma,
		    double tail_weight, double xm, double shape, double cap)
{
	double zc, lc, pc, body_mean, tail_mean;

	if (!isfinite(mu) || !(sigma > 0) || !isfinite(sigma) ||
	    !(tail_weight >= 0 && tail_weight <= 1) ||
	    !(xm > 0) || !isfinite(xm) || !(shape > 0) || !isfinite(shape) ||
	    !(cap >= 1) || !isfinite(cap))
		return -EINVAL;

	memset(m, 0, sizeof(*m));
	m->mu = mu;
	m->sigma = sigma;
	m->tail_weight = tail_weight;
	m->xm = xm;
	m->shape = shape;
	m->cap = cap;

	zc = (log(cap) - mu) / sigma;
	lc = gsl_cdf_ugaussian_P(zc);
	/* 1 - (xm/cap)^shape without cancellation when cap is close to xm */
	pc = cap > xm ? -expm1(-shape * log(cap / xm)) : 0.0;

	if (pc <= 0) {
		/* no tail below the cap: the body is the whole law */
		if (lc <= 0)
			return -EINVAL;
		m->w_body = 1;
		m->w_tail = 0;
	} else if (lc <= 0) {
		/* the body lies entirely beyond the cap (absurd mu): drop it */
		if (tail_weight <= 0)
			return -EINVAL;
		m->w_body = 0;
		m->w_tail = 1;
	} else {
		m->w_body = 1 - tail_weight;
		m->w_tail = tail_weight;
	}
	m->body_mass_cap = lc;
	m->tail_mass_cap = pc;

	if (m->w_tail == 0)
		m->split = 1;
	else if (m->w_body == 0)
		m->split = 0;
	else
		m->split = m->w_body *
			   gsl_cdf_ugaussian_P((log(xm) - mu) / sigma) / lc;

	/*
	 * Body: E[X; X <= c] = exp(mu + sigma^2/2) Phi(zc - sigma), divided by
	 * Phi(zc); taken as a difference of logs so that it survives a cap far
	 * below the body's median.  Tail: shape xm^shape int_xm^c x^-shape dx
	 * over P(c), which is xm ln(c/xm) / P(c) at shape == 1.
	 */
	m->mean = 0;
	if (m->w_body > 0) {
		body_mean = exp(mu + 0.5 * sigma * sigma +
				log_ugaussian_P(zc - sigma) -
				log_ugaussian_P(zc));
		m->mean += m->w_body * body_mean;
	}
	if (m->w_tail > 0) {
		tail_mean = shape * xm *
			    expm1_ratio(1 - shape, log(cap / xm)) / pc;
		m->mean += m->w_tail * tail_mean;
	}
	return 0;
}

/* Mean of min(X, cap) over one log-linear piece of the empirical law, X = e^(a + t(b - a)) - 1. */
static double table_piece_mean(double a, double b, double cap)
{
	double lc = log1p(cap), tc;

	if (b <= a)
		return fmin(expm1(a), cap);
	if (lc >= b)
		return (exp(b) - exp(a)) / (b - a) - 1;
	if (lc <= a)
		return cap;
	tc = (lc - a) / (b - a);
	return (exp(lc) - exp(a)) / (b - a) + (1 - tc) * (cap + 1) - 1;
}

int size_model_init_table(struct size_model *m, const uint64_t *q, unsigned nq, double cap)
{
	double sum = 0;

	if (!q || nq < 2 || !(cap >= 1) || !isfinite(cap))
		return -EINVAL;
	for (unsigned i = 1; i < nq; i++)
		if (q[i] < q[i - 1])
			return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->q = q;
	m->nq = nq;
	m->cap = cap;
	m->w_body = 1;
	m->split = 1;
	for (unsigned i = 0; i + 1 < nq; i++)
		sum += table_piece_mean(log1p((double)q[i]), log1p((double)q[i + 1]), cap);
	m->mean = sum / (nq - 1);
	return 0;
}

/*
 * The empirical law's CDF as P(X < x): equal to P(X <= x) but at its
 * point masses (runs of equal quantiles), where it is the left limit, so
 * that cdf(t + 1) stays P(floor(X) <= t) as for the continuous laws.
 */
static double table_cdf(const struct size_model *m, double x)
{
	unsigned lo = 0, hi = m->nq - 1;
	double a, b;

	if (x <= (double)m->q[0])
		return 0;
	if (x >= m->cap || x > (double)m->q[hi])
		return 1;
	/* the last quantile below x: q[lo] < x <= q[lo + 1] */
	while (hi - lo > 1) {
		unsigned mid = lo + (hi - lo) / 2;

		if ((double)m->q[mid] < x)
			lo = mid;
		else
			hi = mid;
	}
	a = log1p((double)m->q[lo]);
	b = log1p((double)m->q[lo + 1]);
	return (lo + (log1p(x) - a) / (b - a)) / (m->nq - 1);
}

static double table_quantile(const struct size_model *m, double u)
{
	double pos = u * (m->nq - 1), t, x, lo, hi;
	unsigned i = (unsigned)pos;

	if (i >= m->nq - 1)
		return fmin((double)m->q[m->nq - 1], m->cap);
	t = pos - i;
	lo = (double)m->q[i];
	hi = (double)m->q[i + 1];
	x = expm1(log1p(lo) + t * (log1p(hi) - log1p(lo)));
	/* rounding must not take a quantile below its own table entry */
	x = fmax(lo, fmin(x, hi));
	return fmin(x, m->cap);
}

double size_model_cdf(const struct size_model *m, double x)
{
	double f = 0;

	if (m->q)
		return table_cdf(m, x);
	if (!(x > 0))
		return 0;
	if (x >= m->cap)
		return 1;
	if (m->w_body > 0)
		f += m->w_body *
		     gsl_cdf_ugaussian_P((log(x) - m->mu) / m->sigma) /
		     m->body_mass_cap;
	if (m->w_tail > 0 && x > m->xm)
		f += m->w_tail * -expm1(-m->shape * log(x / m->xm)) /
		     m->tail_mass_cap;
	return f < 1 ? f : 1;
}

/* What the solver above xm needs, computed once per call */
struct mixed_ctx {
	const struct size_model *m;
	double ln_xm;
	double q_cap;     /* upper normal tail at the cap's z */
	double tail_cap;  /* (xm / cap)^shape */
};

/*
 * Survival 1 - F(x) of the mixture for x = e^t >= xm, from upper tails so
 * that small survivals keep their digits; *xf gets x f(x) = -dS/dt.
 */
static double mixed_sf(const struct mixed_ctx *c, double t, double *xf)
{
	const struct size_model *m = c->m;
	double z = (t - m->mu) / m->sigma;
	double tp = exp(-m->shape * (t - c->ln_xm));
	double sb, st;

	sb = m->w_body * (gsl_cdf_ugaussian_Q(z) - c->q_cap) / m->body_mass_cap;
	st = m->w_tail * (tp - c->tail_cap) / m->tail_mass_cap;
	*xf = m->w_body * gsl_ran_ugaussian_pdf(z) /
	      (m->sigma * m->body_mass_cap) +
	      m->w_tail * m->shape * tp / m->tail_mass_cap;
	return sb + st;
}

/*
 * Solve S(x) = s0 above xm, where body and tail both contribute.  Each part
 * alone would reach s0 at a smaller x than the mixture does, so the larger
 * of the two analytic single-part solutions is a lower bound: Newton in
 * t = ln x starts there, inside the bracket [that, ln cap], and falls back
 * to bisection whenever a step would leave the bracket.
 */
static double mixed_quantile(const struct size_model *m, double s0)
{
	struct mixed_ctx c;
	double lo, hi, t, tb, tt, v, g, xf, tn;
	double zc = (log(m->cap) - m->mu) / m->sigma;
	double zxm;
	int i;

	c.m = m;
	c.ln_xm = log(m->xm);
	c.q_cap = gsl_cdf_ugaussian_Q(zc);
	c.tail_cap = exp(-m->shape * log(m->cap / m->xm));

	lo = c.ln_xm;
	hi = log(m->cap);

	zxm = (c.ln_xm - m->mu) / m->sigma;
	v = c.q_cap + s0 * m->body_mass_cap / m->w_body;
	tb = lo;
	if (v < gsl_cdf_ugaussian_Q(zxm))
		tb = m->mu + m->sigma * gsl_cdf_ugaussian_Qinv(v);
	v = c.tail_cap + s0 * m->tail_mass_cap / m->w_tail;
	tt = lo;
	if (v < 1)
		tt = c.ln_xm - log(v) / m->shape;
	t = tb > tt ? tb : tt;
	if (!(t > lo))
		t = lo;
	if (t > hi)
		t = hi;

	for (i = 0; i < 100; i++) {
		g = mixed_sf(&c, t, &xf) - s0;
		if (g > 0)
			lo = t;
		else if (g < 0)
			hi = t;
		else
			break;
		tn = t + g / xf;
		/*
		 * Newton's error after a step dt is about dt^2 times the
		 * curvature ratio, O(1) in t = ln x: a step under 1e-8 leaves
		 * ~1e-16, far inside the 1e-12 asked of x.  Checked before
		 * the bracket, as a converged step may land on its edge.
		 */
		if (fabs(tn - t) <= 1e-8 && tn >= lo && tn <= hi) {
			t = tn;
			break;
		}
		if (!(tn > lo && tn < hi))
			tn = 0.5 * (lo + hi);
		if (hi - lo <= 1e-13)
			break;
		t = tn;
	}
	return exp(t);
}

double size_model_quantile(const struct size_model *m, double u)
{
	double x;

	if (m->q)
		return table_quantile(m, u < 0 ? 0 : u > 1 ? 1 : u);
	if (!(u > 0))
		return 0;
	if (u >= 1)
		return m->cap;
	if (u <= m->split) {
		/* only the body below xm: invert it directly */
		x = exp(m->mu + m->sigma * gsl_cdf_ugaussian_Pinv(
				u * m->body_mass_cap / m->w_body));
		return x < m->cap ? x : m->cap;
	}
	if (m->w_body == 0)
		x = m->xm * exp(-log1p(-u * m->tail_mass_cap) / m->shape);
	else
		x = mixed_quantile(m, 1 - u);
	if (x < m->xm)
		x = m->xm;
	return x < m->cap ? x : m->cap;
}

uint64_t size_model_bytes(const struct size_model *m, double u)
{
	double x = floor(size_model_quantile(m, u));
	double top = floor(m->cap);

	if (x > top)
		x = top;
	if (!(x > 0))
		return 0;
	if (x >= 18446744073709551616.0)
		return UINT64_MAX;
	return (uint64_t)x;
}

int depth_poisson_probs(double lambda, unsigned maxdepth, double *p)
{
	double ll, top = -INFINITY, sum = 0;
	unsigned d;

	if (!(lambda > 0) || !isfinite(lambda))
		return -EINVAL;
	/* in logs: a lambda far above maxdepth underflows every plain pmf */
	ll = log(lambda);
	for (d = 0; d <= maxdepth; d++) {
		p[d] = d * ll - lambda - gsl_sf_lnfact(d);
		if (p[d] > top)
			top = p[d];
	}
	for (d = 0; d <= maxdepth; d++) {
		p[d] = exp(p[d] - top);
		sum += p[d];
	}
	for (d = 0; d <= maxdepth; d++)
		p[d] /= sum;
	return 0;
}

/* FAST 2007: files at depth 1..20 (20 = 20 and deeper), out of 10002 */
static const double care_count[20] = {
	2, 65, 695, 840, 1244, 1308, 2268, 1239, 861, 604,
	425, 231, 108, 52, 26, 14, 7, 7, 4, 2,
};

/* FAST 2007: mean log2(file size in bytes) at depth 1..20 */
static const double care_meanlog2[20] = {
	24.86, 21.09, 18.41, 18.57, 17.91, 17.40, 16.78, 16.69, 16.56, 16.44,
	16.22, 16.15, 16.51, 16.39, 16.41, 15.76, 15.58, 14.63, 14.69, 14.05,
};

int depth_care_probs(uint64_t size, unsigned maxdepth,
		     const unsigned char *allowed, double *p)
{
	double l2 = log2((double)(size > 0 ? size : 1));
	double sum = 0, dist;
	unsigned d, row;

	for (d = 0; d <= maxdepth; d++) {
		p[d] = 0;
		if (allowed && !allowed[d])
			continue;
		row = d < 19 ? d : 19;
		dist = fabs(l2 - care_meanlog2[row]);
		if (dist < 0.1)
			dist = 0.1;
		p[d] = care_count[row] / 10002.0 / dist;
		sum += p[d];
	}
	if (!(sum > 0))
		return -EINVAL;
	for (d = 0; d <= maxdepth; d++)
		p[d] /= sum;
	return 0;
}

int fpd_probs(double empty_share, double c, double k, unsigned maxbin,
	      double *p)
{
	double norm, sum;
	unsigned i;

	if (!(empty_share >= 0 && empty_share <= 1) ||
	    !(c > 0) || !isfinite(c) || !(k > 1) || !isfinite(k))
		return -EINVAL;
	norm = (k - 1) * pow(c, k - 1);
	p[0] = empty_share;
	sum = empty_share;
	for (i = 1; i <= maxbin; i++) {
		p[i] = norm * pow(i + c, -k);
		sum += p[i];
	}
	/* let rounding pass, not a real excess */
	if (sum > 1 + 1e-12)
		return -EINVAL;
	p[maxbin + 1] = sum < 1 ? 1 - sum : 0;
	return 0;
}

/*
 * Shared set-up of the (x + c)^-k law on [lo, hi], in y = x + c: A = lo + c,
 * r = ln(B / A), and mass = int_A^B y^-k dy / A^(1-k).  Returns 0 when the
 * law exists.
 */
static int fpd_tail_setup(double c, double k, double lo, double hi,
			  double *a, double *r, double *mass)
{
	*a = lo + c;
	if (!(*a > 0) || !(hi >= lo) || !isfinite(lo) || isnan(k) || isnan(c))
		return -EINVAL;
	if (isinf(hi) && k <= 1)
		return -EINVAL;
	*r = log((hi + c) / *a);
	*mass = expm1_ratio(1 - k, *r);
	return 0;
}

double fpd_tail_cdf(double c, double k, double lo, double hi, double x)
{
	double a, r, mass;

	if (fpd_tail_setup(c, k, lo, hi, &a, &r, &mass))
		return NAN;
	if (x <= lo)
		return 0;
	if (x >= hi)
		return 1;
	return expm1_ratio(1 - k, log((x + c) / a)) / mass;
}

double fpd_tail_quantile(double c, double k, double lo, double hi, double u)
{
	double a, r, mass, e = 1 - k, s, x;

	if (fpd_tail_setup(c, k, lo, hi, &a, &r, &mass))
		return NAN;
	if (hi == lo || !(u > 0))
		return lo;
	if (u >= 1)
		return hi;
	/* invert expm1_ratio(e, s) = u * mass for s = ln(y / A) */
	s = e == 0 ? u * mass : log1p(e * u * mass) / e;
	x = a * exp(s) - c;
	if (x < lo)
		x = lo;
	return x < hi ? x : hi;
}

double fpd_tail_mean(double c, double k, double lo, double hi)
{
	double a, r, mass, x;

	if (fpd_tail_setup(c, k, lo, hi, &a, &r, &mass))
		return NAN;
	if (hi == lo)
		return lo;
	/* E[y] = int y^(1-k) / int y^-k, both in the expm1_ratio form */
	x = a * expm1_ratio(2 - k, r) / mass - c;
	if (x < lo)
		x = lo;
	return x < hi ? x : hi;
}

/*
 * The exact share of index i and its remainder.  Recomputed rather than
 * stored, so that quotas_from_probs needs no memory of its own; the
 * arithmetic is the same every time, so are the results.
 */
static double quota_share(const double *p, size_t len, size_t i, uint64_t n,
			  double sum, double *rem)
{
	double w = sum > 0 ? (p[i] > 0 && isfinite(p[i]) ? p[i] : 0) : 1;
	double q = (double)n * (w / (sum > 0 ? sum : (double)len));
	double f = floor(q);

	if (f > (double)n)
		f = (double)n;
	*rem = q - f;
	if (!(*rem >= 0))
		*rem = 0;
	if (*rem >= 1)
		*rem = nextafter(1.0, 0.0);
	return f;
}

/* Order-preserving integer image of a non-negative double */
static uint64_t rem_key(double x)
{
	uint64_t b;

	memcpy(&b, &x, sizeof(b));
	return b;
}

/*
 * Give one more unit to the l (< len) entries of largest remainder, equal
 * remainders by ascending index.  The l-th largest remainder is found by
 * bisection over the ordered bit patterns of [0, 1): 64 passes over p[] at
 * most, and no sort.
 */
static void quota_top_up(const double *p, size_t len, uint64_t n, double sum,
			 size_t l, uint64_t *out)
{
	uint64_t lo = 0, hi = rem_key(1.0), mid, key;
	size_t i, cnt, given = 0;
	double rem;

	/* largest key with at least l remainders >= it: lo */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		cnt = 0;
		for (i = 0; i < len; i++) {
			quota_share(p, len, i, n, sum, &rem);
			cnt += rem_key(rem) >= mid;
		}
		if (cnt >= l)
			lo = mid;
		else
			hi = mid;
	}
	for (i = 0; i < len; i++) {
		quota_share(p, len, i, n, sum, &rem);
		if (rem_key(rem) > lo) {
			out[i]++;
			given++;
		}
	}
	for (i = 0; i < len && given < l; i++) {
		quota_share(p, len, i, n, sum, &rem);
		key = rem_key(rem);
		if (key == lo) {
			out[i]++;
			given++;
		}
	}
}

void quotas_from_probs(const double *p, size_t len, uint64_t n, uint64_t *out)
{
	uint64_t assigned = 0, left;
	double sum = 0, rem, best;
	size_t i, pick;

	if (len == 0)
		return;
	for (i = 0; i < len; i++)
		if (p[i] > 0 && isfinite(p[i]))
			sum += p[i];
	if (!isfinite(sum))
		sum = 0;	/* uniform */
	for (i = 0; i < len; i++) {
		out[i] = (uint64_t)quota_share(p, len, i, n, sum, &rem);
		assigned += out[i];
	}
	/*
	 * Rounding can overshoot n by a unit or so on huge n: take it back from
	 * the smallest remainders, last index first.
	 */
	while (assigned > n) {
		pick = len;
		best = 2;
		for (i = len; i-- > 0;) {
			quota_share(p, len, i, n, sum, &rem);
			if (out[i] > 0 && rem < best) {
				best = rem;
				pick = i;
			}
		}
		out[pick]--;
		assigned--;
	}
	for (left = n - assigned; left > 0;) {
		size_t l = left < len ? (size_t)left : len;

		if (l == len) {
			for (i = 0; i < len; i++)
				out[i]++;
		} else {
			quota_top_up(p, len, n, sum, l, out);
		}
		left -= l;
	}
}

size_t draw_index(const double *p, size_t len, double u)
{
	double cum = 0;
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i + 1 < len; i++) {
		cum += p[i];
		if (u < cum)
			return i;
	}
	return len - 1;
}

double ks_d_continuous(const double *x, size_t n,
		       double (*cdf)(const void *ctx, double x), const void *ctx)
{
	double d = 0, f, a, b;
	size_t i;

	for (i = 0; i < n; i++) {
		f = cdf(ctx, x[i]);
		a = (double)(i + 1) / n - f;
		b = f - (double)i / n;
		if (a > d)
			d = a;
		if (b > d)
			d = b;
	}
	return d;
}

double ks_d_discrete(const uint64_t *v, size_t n,
		     double (*cdf)(const void *ctx, double t), const void *ctx)
{
	double d = 0, e;
	size_t i = 0, j;

	/*
	 * Between distinct values both the empirical and the model CDF are
	 * step-wise, so the sup is reached at a value or just below it.
	 */
	while (i < n) {
		for (j = i; j < n && v[j] == v[i]; j++)
			;
		e = fabs((double)i / n - cdf(ctx, (double)v[i] - 1));
		if (e > d)
			d = e;
		e = fabs((double)j / n - cdf(ctx, (double)v[i]));
		if (e > d)
			d = e;
		i = j;
	}
	return d;
}

double ks_d_hist(const uint64_t *count, size_t len, const double *model_p)
{
	double n = 0, cn = 0, cp = 0, d = 0, e;
	size_t t;

	for (t = 0; t < len; t++)
		n += (double)count[t];
	if (n == 0)
		return 0;
	for (t = 0; t < len; t++) {
		cn += (double)count[t];
		cp += model_p[t];
		e = fabs(cn / n - cp);
		if (e > d)
			d = e;
	}
	return d;
}

double ks_critical_01(size_t n)
{
	if (n == 0)
		return INFINITY;
	return 1.628 / sqrt((double)n);
}

double age_lognormal_cdf(double median_days, double sigma, double max_days, double d)
{
	double ln, lmax;

	if (d <= 0)
		return 0;
	if (d >= max_days)
		return 1;
	if (!(sigma > 0))
		return (d >= median_days) + 0.0;
	ln = 0.5 * erfc(-(log(d) - log(median_days)) / (sigma * M_SQRT2));
	lmax = 0.5 * erfc(-(log(max_days) - log(median_days)) / (sigma * M_SQRT2));
	return ln + (1 - lmax) * d / max_days;
}

double quantile_table_cdf(const double *q, uint32_t n, double x)
{
	uint32_t lo = 0, hi = n;

	if (x < q[0])
		return 0;
	/* the largest i with q[i] <= x */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (q[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	if (lo == n - 1)
		return 1;
	return ((double)lo + (x - q[lo]) / (q[lo + 1] - q[lo])) / (double)(n - 1);
}
