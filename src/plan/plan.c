/* plan.c - build the logical image from the model: tree, sizes, depths, names, links */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>

#include "plan/plan.h"
#include "util/array.h"
#include "util/rng.h"
#include "model/tree.h"

#define DEPTH_SLOTS 256

static void plan_fail(struct plan_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void plan_fail(struct plan_error *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

static void *xalloc(size_t count, size_t size)
{
	if (count == 0)
		count = 1;
	return calloc(count, size);
}

/* Fisher-Yates shuffles for the narrow arrays; same draws as rng_shuffle_u32. */
static void shuffle_u16(uint16_t *a, uint64_t n, uint64_t key, uint64_t index)
{
	struct rng r;

	rng_open(&r, key, index);
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = rng_below(&r, i);
		uint16_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

static void shuffle_u8(uint8_t *a, uint64_t n, uint64_t key, uint64_t index)
{
	struct rng r;

	rng_open(&r, key, index);
	for (uint64_t i = n; i > 1; i--) {
		uint64_t j = rng_below(&r, i);
		uint8_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* Index i with cum[i-1] <= u < cum[i], cum ascending, cum[len-1] ~ 1. */
static size_t cum_search(const double *cum, size_t len, double u)
{
	size_t lo = 0, hi = len - 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (u < cum[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

static int cmp_u32_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x < y) - (x > y);
}

#define FIX_TOP 256

/*
 * Spread target - sum over the FIX_TOP largest files: raise them toward
 * the cap, or level them down to a common size no lower than the smallest
 * of them.  Returns 1 when that reached the target exactly.
 */
static int sizes_fix_top(uint64_t *s, const uint32_t *pin, uint64_t n, uint64_t target, uint64_t sum,
			 uint64_t cap)
{
	uint64_t top[FIX_TOP];
	unsigned k = 0;

	/* indices of the largest sizes, descending (insertion into a short list) */
	for (uint64_t i = 0; i < n; i++) {
		unsigned at;

		if (pin && pin[i] != PLAN_NONE)
			continue;
		if (k == FIX_TOP && s[i] <= s[top[k - 1]])
			continue;
		at = k < FIX_TOP ? k++ : k - 1;
		while (at > 0 && s[top[at - 1]] < s[i]) {
			top[at] = top[at - 1];
			at--;
		}
		top[at] = i;
	}
	if (k == 0)
		return 0;
	if (target > sum) {
		uint64_t room = 0, want = target - sum;

		for (unsigned i = 0; i < k; i++)
			room += cap - s[top[i]];
		if (room < want)
			return 0;
		for (unsigned i = 0; i < k && want; i++) {
			uint64_t add = cap - s[top[i]] < want ? cap - s[top[i]] : want;

			s[top[i]] += add;
			want -= add;
		}
		return 1;
	}

	/* level down: find L with sum(max(0, s - L)) over the top = sum - target */
	uint64_t want = sum - target, floor_v = s[top[k - 1]], above = 0;
	unsigned m;

	for (unsigned i = 0; i < k; i++)
		above += s[top[i]] - floor_v;
	if (above < want)
		return 0;
	/* the top m files are cut to a level L >= s[top[m]] */
	uint64_t acc = 0;

	for (m = 1; m <= k; m++) {
		uint64_t next = m < k ? s[top[m]] : floor_v;

		acc += s[top[m - 1]];
		/* cutting the top m to `next` removes acc - m * next */
		if (acc - (uint64_t)m * next >= want)
			break;
	}
	if (m > k)
		m = k;
	/* level L = (acc - want) / m, the remainder spread one byte each */
	uint64_t keep = acc - want, level = keep / m, rest = keep % m;

	for (unsigned i = 0; i < m; i++)
		s[top[i]] = level + (i < rest);
	return 1;
}

/*
 * Make the sizes sum to target exactly.  The largest file absorbs the
 * difference when it stays the largest and within the cap (the sample's
 * order statistics are then unchanged but for the maximum); otherwise
 * all sizes are scaled by one factor and the rounding rest goes to the
 * largest files.  Feasibility (target <= n * cap) is checked by the caller.
 */
static void sizes_fix_total(uint64_t *s, const uint32_t *pin, uint64_t n, uint64_t target,
			    uint64_t cap)
{
	uint64_t sum = 0, big = 0, second = 0, pinned = 0, free_n = 0;
	uint64_t l = UINT64_MAX;

	for (uint64_t k = 0; k < n; k++) {
		sum += s[k];
		if (pin && pin[k] != PLAN_NONE) {
			pinned += s[k];
			continue;
		}
		free_n++;
		if (l == UINT64_MAX || s[k] > big) {
			second = big;
			big = s[k];
			l = k;
		} else if (s[k] > second) {
			second = s[k];
		}
	}
	if (sum == target || free_n == 0)
		return;
	if (target > sum && target - sum <= cap - s[l]) {
		s[l] += target - sum;
		return;
	}
	if (target < sum && sum - target <= s[l] - second) {
		s[l] -= sum - target;
		return;
	}
	if (sum == pinned) {
		/* every free file is empty: share the rest out evenly */
		uint64_t rest = target - pinned, i = 0;

		for (uint64_t k = 0; k < n; k++) {
			if (pin && pin[k] != PLAN_NONE)
				continue;
			s[k] = rest / free_n + (i++ < rest % free_n);
		}
		return;
	}
	if (sizes_fix_top(s, pin, n, target, sum, cap))
		return;

	/* the caller keeps pinned bytes below target */
	long double f = (long double)(target - pinned) / (long double)(sum - pinned);

	sum = pinned;
	for (uint64_t k = 0; k < n; k++) {
		if (pin && pin[k] != PLAN_NONE)
			continue;
		long double v = floorl((long double)s[k] * f);

		s[k] = v > (long double)cap ? cap : (uint64_t)v;
		sum += s[k];
	}
	/* the rest is below n bytes unless the cap clipped: top up in index order */
	for (uint64_t k = 0; sum < target && k < n; k++) {
		if (pin && pin[k] != PLAN_NONE)
			continue;
		uint64_t room = cap - s[k], add = target - sum;

		if (add > room)
			add = room;
		s[k] += add;
		sum += add;
	}
}

static int plan_sizes(struct plan *pl, uint64_t *s, struct plan_error *err)
{
	const struct params *p = &pl->prm;
	uint64_t n = pl->nfiles;
	uint64_t key = rng_stream_key(p->seed, "size");
	uint64_t cap = (uint64_t)floor(pl->size.cap);
	uint32_t *order = NULL;
	struct rng r;

	if (n == 0)
		return 0;
	if ((long double)p->used > (long double)cap * (long double)n) {
		plan_fail(err, "%llu bytes cannot fit in %llu files of at most %llu bytes "
			  "('size_max'); raise 'files' or 'size_max'",
			  (unsigned long long)p->used, (unsigned long long)n,
			  (unsigned long long)cap);
		return -EINVAL;
	}
	if (p->sampling == SAMPLING_STRATIFIED) {
		order = malloc(n * sizeof(*order));
		if (!order)
			return -ENOMEM;
		for (uint64_t k = 0; k < n; k++)
			order[k] = (uint32_t)k;
		rng_shuffle_u32(order, n, rng_stream_key(p->seed, "size.order"), 0);
	}
	for (uint64_t k = 0; k < n; k++) {
		double u;

		rng_open(&r, key, k);
		u = rng_uniform(&r);
		if (order)
			u = ((double)order[k] + u) / (double)n;
		s[k] = size_model_bytes(&pl->size, u);
	}
	free(order);
	return 0;
}

/*
 * Typed extensions never get sizes their formats cannot hold (ext_min_size):
 * such a file swaps extensions with a random file that can take the typed
 * one and whose own extension fits this size.  Extension counts and sizes
 * stay exactly as drawn; only their pairing changes.  Pinned samples
 * (duplicates and their sources) are left alone.
 */
static void plan_ext_floors(struct plan *pl, const uint64_t *s, uint16_t *e, const uint32_t *pin,
			    uint64_t n, unsigned pass)
{
	uint64_t *fl = xalloc(pl->ext.count, sizeof(*fl));
	uint64_t key = rng_stream_key(pl->prm.seed, "ext.floor");
	struct rng r;

	if (!fl)
		return;
	for (size_t i = 0; i < pl->ext.count; i++)
		fl[i] = ext_min_size(pl->ext.name[i]);
	for (uint64_t k = 0; k < n; k++) {
		if (s[k] >= fl[e[k]] || (pin && pin[k] != PLAN_NONE))
			continue;
		rng_open(&r, key, k * 2 + pass);
		for (int tries = 0; tries < 4096; tries++) {
			uint64_t j = rng_below(&r, n);

			if ((pin && pin[j] != PLAN_NONE) || s[j] < fl[e[k]] || fl[e[j]] > s[k])
				continue;
			uint16_t t = e[k];

			e[k] = e[j];
			e[j] = t;
			break;
		}
	}
	free(fl);
}

#define DUP_SOURCE (PLAN_NONE - 1)

/*
 * Whole-file duplicates: round(dup_file_share * n) samples become copies
 * (same size and extension; the content source gives them the same bytes)
 * of a random other sample.  The source is drawn without looking at
 * extensions, so sizes never depend on the extension model; a free sample
 * of the copied extension then takes the copy's old one, so that extension
 * counts stay as drawn.  pin[k] is the source of copy k, DUP_SOURCE for
 * a source, PLAN_NONE otherwise.  Copies are drawn among the samples in a
 * random order; a source is never itself a copy.
 */
static int plan_dups(struct plan *pl, uint64_t *s, uint16_t *e, uint32_t *pin, uint64_t n)
{
	const struct params *p = &pl->prm;
	uint64_t m = (uint64_t)llround(p->dup_file_share * (double)n), made = 0;
	uint32_t *order;
	struct rng r, rx;

	for (uint64_t k = 0; k < n; k++)
		pin[k] = PLAN_NONE;
	if (m == 0 || n < 2)
		return 0;
	if (m > n / 2)
		m = n / 2;
	/* samples grouped by their drawn extension, for the count-keeping swaps */
	size_t ne = pl->ext.count;
	uint64_t *start = xalloc(ne + 1, sizeof(*start)), *fill = xalloc(ne, sizeof(*fill));
	uint32_t *by_ext = xalloc(n, sizeof(*by_ext));
	uint64_t *fl = xalloc(ne, sizeof(*fl));

	order = malloc(n * sizeof(*order));
	if (!order || !start || !fill || !by_ext || !fl) {
		free(order);
		free(start);
		free(fill);
		free(by_ext);
		free(fl);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ne; i++)
		fl[i] = ext_min_size(pl->ext.name[i]);
	for (uint64_t k = 0; k < n; k++)
		start[e[k] + 1]++;
	for (size_t i = 0; i < ne; i++) {
		start[i + 1] += start[i];
		fill[i] = start[i];
	}
	for (uint64_t k = 0; k < n; k++)
		by_ext[fill[e[k]]++] = (uint32_t)k;
	for (uint64_t k = 0; k < n; k++)
		order[k] = (uint32_t)k;
	rng_shuffle_u32(order, n, rng_stream_key(p->seed, "dup.order"), 0);
	rng_init(&r, p->seed, "dup.source", 0);
	rng_init(&rx, p->seed, "dup.ext", 0);
	for (uint64_t i = 0; i < n && made < m; i++) {
		uint32_t k = order[i], src;
		uint16_t old = e[k];

		if (pin[k] != PLAN_NONE)
			continue;
		/* any sample that is not a copy: sizes never depend on extensions */
		src = PLAN_NONE;
		for (int tries = 0; tries < 256 && src == PLAN_NONE; tries++) {
			uint32_t c = (uint32_t)rng_below(&r, n);

			if (c != k && (pin[c] == PLAN_NONE || pin[c] == DUP_SOURCE) &&
			    s[c] >= fl[e[c]])
				src = c;
		}
		if (src == PLAN_NONE)
			continue;
		pin[k] = src;
		pin[src] = DUP_SOURCE;
		s[k] = s[src];
		e[k] = e[src];
		made++;
		if (e[k] == old)
			continue;
		/* keep extension counts as drawn: a free sample of the copied extension takes k's */
		uint64_t lo = start[e[k]], len = start[e[k] + 1] - lo;

		for (int tries = 0; tries < 64 && len; tries++) {
			uint32_t c = by_ext[lo + rng_below(&rx, len)];

			if (pin[c] == PLAN_NONE && e[c] == e[k] && s[c] >= fl[old]) {
				e[c] = old;
				break;
			}
		}
	}
	free(start);
	free(fill);
	free(by_ext);
	free(fl);
	free(order);
	return 0;
}

static int plan_ext_floors_and_dups(struct plan *pl, uint64_t *s, uint16_t *e, uint32_t *pin)
{
	uint64_t n = pl->nfiles, pinned = 0;
	uint64_t cap = (uint64_t)floor(pl->size.cap);
	int ret;

	plan_ext_floors(pl, s, e, NULL, n, 0);
	ret = plan_dups(pl, s, e, pin, n);
	if (ret)
		return ret;
	for (uint64_t k = 0; k < n; k++)
		if (pin[k] != PLAN_NONE)
			pinned += s[k];
	if (pinned >= pl->prm.used) {
		/* copies of a few huge files would hold all the bytes: no copies */
		for (uint64_t k = 0; k < n; k++)
			pin[k] = PLAN_NONE;
	}
	sizes_fix_total(s, pin, n, pl->prm.used, cap);
	plan_ext_floors(pl, s, e, pin, n, 1);
	return 0;
}

static int plan_exts(struct plan *pl, uint16_t *e)
{
	const struct params *p = &pl->prm;
	const struct ext_model *m = &pl->ext;
	uint64_t n = pl->nfiles;

	if (p->sampling == SAMPLING_STRATIFIED) {
		uint64_t *q = xalloc(m->count, sizeof(*q));
		uint64_t k = 0;

		if (!q)
			return -ENOMEM;
		quotas_from_probs(m->share, m->count, n, q);
		for (size_t i = 0; i < m->count; i++)
			for (uint64_t c = 0; c < q[i]; c++)
				e[k++] = (uint16_t)i;
		free(q);
		shuffle_u16(e, n, rng_stream_key(p->seed, "ext.order"), 0);
	} else {
		double *cum = xalloc(m->count, sizeof(*cum));
		uint64_t key = rng_stream_key(p->seed, "ext");
		double acc = 0;
		struct rng r;

		if (!cum)
			return -ENOMEM;
		for (size_t i = 0; i < m->count; i++) {
			acc += m->share[i];
			cum[i] = acc;
		}
		for (uint64_t k = 0; k < n; k++) {
			rng_open(&r, key, k);
			e[k] = (uint16_t)cum_search(cum, m->count, rng_uniform(&r) * acc);
		}
		free(cum);
	}
	return 0;
}

/*
 * Depth of each regular sample k < nreg: Poisson (stratified quotas or iid
 * draws) or "depth with care" (conditional on the sample's size).  Also
 * fills pl->depth_target with the target share by depth.
 */
static int plan_depths(struct plan *pl, const uint64_t *s, uint8_t *d, const uint32_t *m_d)
{
	const struct params *p = &pl->prm;
	uint64_t nreg = pl->nregular_files;
	unsigned h = 0;
	unsigned char allowed[DEPTH_SLOTS] = { 0 };
	double probs[DEPTH_SLOTS];
	uint64_t key = rng_stream_key(p->seed, "depth");
	struct rng r;

	for (unsigned i = 0; i < DEPTH_SLOTS; i++) {
		if (m_d[i]) {
			allowed[i] = 1;
			h = i;
		}
	}
	memset(pl->depth_target, 0, sizeof(pl->depth_target));
	if (p->depth_model == DEPTH_POISSON) {
		if (depth_poisson_probs(p->depth_lambda, h, probs))
			return -EINVAL;
		memcpy(pl->depth_target, probs, (h + 1) * sizeof(double));
		if (p->sampling == SAMPLING_STRATIFIED) {
			uint64_t q[DEPTH_SLOTS], k = 0;

			quotas_from_probs(probs, h + 1, nreg, q);
			for (unsigned i = 0; i <= h; i++)
				for (uint64_t c = 0; c < q[i]; c++)
					d[k++] = (uint8_t)i;
			shuffle_u8(d, nreg, rng_stream_key(p->seed, "depth.order"), 0);
		} else {
			for (uint64_t k = 0; k < nreg; k++) {
				rng_open(&r, key, k);
				d[k] = (uint8_t)draw_index(probs, h + 1, rng_uniform(&r));
			}
		}
		return 0;
	}

	for (uint64_t k = 0; k < nreg; k++) {
		if (depth_care_probs(s[k], h, allowed, probs))
			return -EINVAL;
		for (unsigned i = 0; i <= h; i++)
			pl->depth_target[i] += probs[i];
		rng_open(&r, key, k);
		d[k] = (uint8_t)draw_index(probs, h + 1, rng_uniform(&r));
	}
	for (unsigned i = 0; i <= h && nreg; i++)
		pl->depth_target[i] /= (double)nreg;
	return 0;
}

/*
 * Spread `mass` files over the k tail directories, each at least lo, shaped
 * like the files-per-directory law beyond its bins.  Writes t[0..k-1].
 */
static void fpd_tail_counts(const struct params *p, uint32_t k, uint64_t mass, uint32_t lo,
			    uint64_t nreg, uint32_t *t)
{
	double mean = (double)mass / k, hi_lo = lo, hi_hi = (double)nreg + 1;
	double c = p->fpd_offset, deg = p->fpd_degree, hi;
	uint64_t key = rng_stream_key(p->seed, "fpd.tail");
	uint64_t above = 0, want = mass - (uint64_t)k * lo, got = 0;
	struct rng r;

	/* the cap of the tail law that gives the wanted mean */
	if (fpd_tail_mean(c, deg, lo, hi_hi) <= mean) {
		hi = hi_hi;
	} else {
		for (int it = 0; it < 200; it++) {
			double mid = 0.5 * (hi_lo + hi_hi);

			if (fpd_tail_mean(c, deg, lo, mid) < mean)
				hi_lo = mid;
			else
				hi_hi = mid;
		}
		hi = hi_hi;
	}
	for (uint32_t i = 0; i < k; i++) {
		double u;

		rng_open(&r, key, i);
		u = rng_uniform(&r);
		if (p->sampling == SAMPLING_STRATIFIED)
			u = (i + u) / k;
		t[i] = (uint32_t)fmin(floor(fpd_tail_quantile(c, deg, lo, hi, u) + 0.5), hi);
		if (t[i] < lo)
			t[i] = lo;
		above += t[i] - lo;
	}
	/* scale the part above lo so that the total is exact */
	qsort(t, k, sizeof(*t), cmp_u32_desc);
	for (uint32_t i = 0; i < k; i++) {
		uint64_t a = t[i] - lo;

		a = above ? (uint64_t)((long double)a * want / above) : want / k;
		t[i] = lo + (uint32_t)a;
		got += a;
	}
	for (uint32_t i = 0; got < want; i = (i + 1) % k) {
		t[i]++;
		got++;
	}
}

/*
 * Files per directory for the regular directories: a multiset of counts
 * drawn from the model, summing to nreg, then given to the directories so
 * that each depth gets the files its samples need (largest count first to
 * the depth with the largest unmet need), with a final exact fix that
 * touches the largest directories of a depth first.  Writes dir_nfiles.
 */
static int plan_fpd(struct plan *pl, const uint64_t *t_d, const uint32_t *m_d)
{
	const struct params *p = &pl->prm;
	uint32_t nd = pl->nregular_dirs;
	uint64_t nreg = pl->nregular_files;
	unsigned maxbin = p->fpd_max_bin, nb = maxbin + 2;
	uint32_t lo = maxbin + 1;
	double *probs = NULL;
	uint64_t *q = NULL;
	uint32_t *cnt = NULL, *bucket = NULL, *dirs = NULL;
	uint64_t start[DEPTH_SLOTS + 1] = { 0 }, fill[DEPTH_SLOTS];
	int64_t need[DEPTH_SLOTS];
	int ret = -ENOMEM;

	if (nd == 1) {
		pl->dir_nfiles[0] = (uint32_t)nreg;
		return 0;
	}
	probs = xalloc(nb, sizeof(*probs));
	q = xalloc(nb, sizeof(*q));
	cnt = xalloc(nd, sizeof(*cnt));
	bucket = xalloc(nd, sizeof(*bucket));
	dirs = xalloc(nd, sizeof(*dirs));
	if (!probs || !q || !cnt || !bucket || !dirs)
		goto out_free;
	if (fpd_probs(p->fpd_empty_share, p->fpd_offset, p->fpd_degree, maxbin, probs)) {
		ret = -EINVAL;
		goto out_free;
	}
	if (p->sampling == SAMPLING_STRATIFIED) {
		quotas_from_probs(probs, nb, nd, q);
	} else {
		uint64_t key = rng_stream_key(p->seed, "fpd");
		struct rng r;

		for (uint32_t j = 0; j < nd; j++) {
			rng_open(&r, key, j);
			q[draw_index(probs, nb, rng_uniform(&r))]++;
		}
	}

	/* bins 0..maxbin hold their value; the tail takes the rest of the files */
	uint64_t s0 = 0, k = q[nb - 1];
	int64_t mass;

	for (unsigned b = 1; b <= maxbin; b++)
		s0 += (uint64_t)b * q[b];
	mass = (int64_t)nreg - (int64_t)s0;
	if (k == 0 && mass > 0) {
		/* no tail directory drawn: promote one from the fullest bin */
		unsigned best = 0;

		for (unsigned b = 1; b <= maxbin; b++)
			if (q[b] > q[best])
				best = b;
		q[best]--;
		mass += best;
		q[nb - 1] = k = 1;
	}
	while (k > 0 && mass < (int64_t)(k * lo)) {
		/* too few files for the tail: tail directories become empty */
		k--;
		q[nb - 1]--;
		q[0]++;
	}
	while (mass < 0) {
		/* more files in the bins than there are: lower the fullest */
		unsigned b = maxbin;

		while (b > 0 && q[b] == 0)
			b--;
		unsigned to = (int64_t)b > -mass ? b + (unsigned)mass : 0;

		q[b]--;
		q[to]++;
		mass += b - to;
	}

	uint32_t j = 0;

	for (unsigned b = 0; b <= maxbin; b++)
		for (uint64_t c = 0; c < q[b]; c++)
			cnt[j++] = b;
	if (k > 0) {
		fpd_tail_counts(p, (uint32_t)k, (uint64_t)mass, lo, nreg, cnt + j);
	} else if (mass > 0) {
		/* no room for a tail: raise the lowest directories to place the rest */
		for (uint32_t i = 0; mass > 0; i = (i + 1) % nd) {
			cnt[i]++;
			mass--;
		}
	}
	qsort(cnt, nd, sizeof(*cnt), cmp_u32_desc);

	/*
	 * Give counts to depths, largest first.  A count goes to the depth whose
	 * unmet need per free slot is highest among those it does not overshoot
	 * (else to the largest unmet need): big counts land where directories
	 * must be full, small ones and empties where they must be sparse.
	 */
	unsigned active[DEPTH_SLOTS], nactive = 0;

	for (unsigned d = 0; d < DEPTH_SLOTS; d++) {
		start[d + 1] = start[d] + m_d[d];
		fill[d] = start[d];
		need[d] = (int64_t)t_d[d];
		if (m_d[d])
			active[nactive++] = d;
	}
	for (uint32_t i = 0; i < nd; i++) {
		int best = -1, most = -1;
		double best_avg = 0;

		for (unsigned a = 0; a < nactive; a++) {
			unsigned d = active[a];
			double avg;

			if (fill[d] == start[d + 1])
				continue;
			if (most < 0 || need[d] > need[most])
				most = (int)d;
			if (need[d] < (int64_t)cnt[i])
				continue;
			avg = (double)need[d] / (double)(start[d + 1] - fill[d]);
			if (best < 0 || avg > best_avg) {
				best = (int)d;
				best_avg = avg;
			}
		}
		if (best < 0)
			best = most;
		bucket[fill[best]++] = cnt[i];
		need[best] -= cnt[i];
	}
	/* exact fix: a depth's need goes to (or comes from) its largest dirs */
	for (unsigned d = 0; d < DEPTH_SLOTS; d++) {
		uint32_t *b = bucket + start[d];
		uint64_t len = m_d[d];

		if (len == 0)
			continue;
		if (need[d] > 0)
			b[0] += (uint32_t)need[d];
		for (int pass = 0; pass < 2 && need[d] < 0; pass++) {
			uint32_t floor_v = pass == 0 ? lo : 0;

			for (uint64_t i = 0; i < len && need[d] < 0; i++) {
				uint64_t can = b[i] > floor_v ? b[i] - floor_v : 0;

				if (can > (uint64_t)-need[d])
					can = (uint64_t)-need[d];
				b[i] -= (uint32_t)can;
				need[d] += (int64_t)can;
			}
		}
	}
	/* which directory of a depth gets which count: at random */
	for (unsigned d = 0; d < DEPTH_SLOTS; d++)
		fill[d] = start[d];
	for (uint32_t i = 0; i < nd; i++)
		dirs[fill[pl->dir_depth[i]]++] = i;
	for (unsigned d = 0; d < DEPTH_SLOTS; d++) {
		if (m_d[d] == 0)
			continue;
		rng_shuffle_u32(bucket + start[d], m_d[d],
				rng_stream_key(p->seed, "fpd.place"), d);
		for (uint64_t i = start[d]; i < start[d + 1]; i++)
			pl->dir_nfiles[dirs[i]] = bucket[i];
	}
	ret = 0;
out_free:
	free(probs);
	free(q);
	free(cnt);
	free(bucket);
	free(dirs);
	return ret;
}

static int plan_special_dirs(struct plan *pl, struct plan_error *err)
{
	const struct params *p = &pl->prm;
	uint32_t nreg = pl->nregular_dirs, want = p->special_dir_depth - 1;
	uint32_t *cand, ncand = 0;
	struct rng r;

	if (p->special_dirs == 0)
		return 0;
	cand = xalloc(nreg, sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (uint32_t j = 0; j < nreg; j++)
		if (pl->dir_depth[j] == want)
			cand[ncand++] = j;
	if (ncand == 0) {
		plan_fail(err, "'special_dir_depth' %u is deeper than the tree allows "
			  "(at most %u with %u directories)",
			  p->special_dir_depth, pl->maxdepth + 1, nreg);
		free(cand);
		return -EINVAL;
	}
	rng_init(&r, p->seed, "special", 0);
	for (uint32_t i = 0; i < p->special_dirs; i++) {
		uint32_t j = nreg + i, par = cand[rng_below(&r, ncand)];

		pl->dir_parent[j] = par;
		pl->dir_depth[j] = (uint8_t)(want + 1);
		pl->dir_nfiles[j] = (uint32_t)p->special_dir_files;
	}
	free(cand);
	return 0;
}

static void plan_children(struct plan *pl)
{
	for (uint32_t j = 0; j < pl->ndirs; j++)
		pl->dir_first_child[j] = pl->dir_next_sibling[j] = PLAN_NONE;
	for (uint32_t j = pl->ndirs; j-- > 1;) {
		uint32_t par = pl->dir_parent[j];

		pl->dir_next_sibling[j] = pl->dir_first_child[par];
		pl->dir_first_child[par] = j;
	}
	pl->maxdepth = 0;
	for (uint32_t j = 0; j < pl->ndirs; j++)
		if (pl->dir_depth[j] > pl->maxdepth)
			pl->maxdepth = pl->dir_depth[j];
}

/*
 * Files in directory order: directory j takes the next dir_nfiles[j]
 * samples of its depth (special directories take theirs in turn).
 */
static int plan_place(struct plan *pl, const uint64_t *s, const uint16_t *e, const uint8_t *d,
		      uint32_t *pin)
{
	uint64_t n = pl->nfiles, nreg = pl->nregular_files;
	uint64_t start[DEPTH_SLOTS + 1] = { 0 }, cur[DEPTH_SLOTS];
	uint64_t special_cur = nreg, f = 0;
	uint32_t *by_depth = xalloc(nreg, sizeof(*by_depth));
	uint32_t *by_file = xalloc(n, sizeof(*by_file));

	if (!by_depth || !by_file) {
		free(by_depth);
		free(by_file);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < nreg; k++)
		start[d[k] + 1]++;
	for (unsigned i = 0; i < DEPTH_SLOTS; i++) {
		start[i + 1] += start[i];
		cur[i] = start[i];
	}
	for (uint64_t k = 0; k < nreg; k++)
		by_depth[cur[d[k]]++] = (uint32_t)k;
	for (unsigned i = 0; i < DEPTH_SLOTS; i++)
		cur[i] = start[i];

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		pl->dir_first_file[j] = (uint32_t)f;
		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++, f++) {
			uint64_t k;

			if (j < pl->nregular_dirs)
				k = by_depth[cur[pl->dir_depth[j]]++];
			else
				k = special_cur++;
			pl->file_size[f] = s[k];
			pl->file_ext[f] = e[k];
			pl->file_dir[f] = j;
			by_file[f] = (uint32_t)k;
		}
	}
	free(by_depth);
	if (f != n) {
		free(by_file);
		return -EINVAL;
	}
	/* copies point at their source's final id: pin[] becomes sample -> file */
	for (uint64_t g = 0; g < n; g++)
		if (pin[by_file[g]] != PLAN_NONE && pin[by_file[g]] != DUP_SOURCE)
			pl->ndups++;
	if (pl->ndups) {
		pl->file_dup_of = malloc(n * sizeof(*pl->file_dup_of));
		if (!pl->file_dup_of) {
			free(by_file);
			return -ENOMEM;
		}
		/* file_dup_of first holds sample -> file, then file -> its source's file */
		uint32_t *file_of = pl->file_dup_of;

		for (uint64_t g = 0; g < n; g++)
			file_of[by_file[g]] = (uint32_t)g;
		for (uint64_t g = 0; g < n; g++) {
			uint32_t src = pin[by_file[g]];

			by_file[g] = src != PLAN_NONE && src != DUP_SOURCE ? file_of[src] : PLAN_NONE;
		}
		memcpy(pl->file_dup_of, by_file, n * sizeof(*by_file));
	}
	free(by_file);
	return 0;
}

static int plan_links(struct plan *pl)
{
	const struct params *p = &pl->prm;
	uint64_t n = pl->nfiles;
	uint64_t nhard = n ? (uint64_t)llround(p->hardlink_share * (double)n) : 0;
	uint64_t nsym = (uint64_t)llround(p->symlink_share * (double)(n ? n : 1));
	uint64_t total = nhard + nsym;
	uint32_t *dir = NULL, *target = NULL, *start = NULL;
	uint8_t *kind = NULL;
	uint64_t key = rng_stream_key(p->seed, "link");
	struct rng r;
	int ret = -ENOMEM;

	if (p->symlink_share == 0)
		nsym = 0, total = nhard;
	if (total >= UINT32_MAX)
		return -E2BIG;
	pl->nlinks = (uint32_t)total;
	pl->link_dir = xalloc(total, sizeof(*pl->link_dir));
	pl->link_target = xalloc(total, sizeof(*pl->link_target));
	pl->link_kind = xalloc(total, 1);
	pl->link_variant = xalloc(total, 1);
	dir = xalloc(total, sizeof(*dir));
	target = xalloc(total, sizeof(*target));
	kind = xalloc(total, 1);
	start = xalloc((size_t)pl->ndirs + 1, sizeof(*start));
	if (!pl->link_dir || !pl->link_target || !pl->link_kind || !pl->link_variant ||
	    !dir || !target || !kind || !start)
		goto out_free;
	if (nhard) {
		pl->file_nlink = xalloc(n, sizeof(*pl->file_nlink));
		if (!pl->file_nlink)
			goto out_free;
		for (uint64_t f = 0; f < n; f++)
			pl->file_nlink[f] = 1;
	}

	for (uint64_t i = 0; i < total; i++) {
		uint8_t k;

		rng_open(&r, key, i);
		if (i < nhard) {
			k = LINK_HARD;
			target[i] = (uint32_t)rng_below(&r, n);
			pl->file_nlink[target[i]]++;
		} else {
			double u_dir = rng_uniform(&r);

			if (n == 0 || u_dir < p->symlink_dir_share) {
				k = LINK_SYM_DIR;
				target[i] = (uint32_t)rng_below(&r, pl->ndirs);
			} else {
				k = LINK_SYM_FILE;
				target[i] = (uint32_t)rng_below(&r, n);
			}
			if (rng_uniform(&r) < p->symlink_relative_share)
				k |= LINK_RELATIVE;
			if (rng_uniform(&r) < p->symlink_dangling_share)
				k |= LINK_DANGLING;
		}
		kind[i] = k;
		/* links live where files live: the directory of a random file */
		dir[i] = n ? pl->file_dir[rng_below(&r, n)] : (uint32_t)rng_below(&r, pl->ndirs);
	}

	/* stable counting sort by directory */
	for (uint64_t i = 0; i < total; i++)
		start[dir[i] + 1]++;
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		start[j + 1] += start[j];
		pl->dir_first_link[j] = start[j];
		pl->dir_nlinks[j] = 0;
	}
	for (uint64_t i = 0; i < total; i++) {
		uint32_t at = pl->dir_first_link[dir[i]] + pl->dir_nlinks[dir[i]]++;

		pl->link_dir[at] = dir[i];
		pl->link_target[at] = target[i];
		pl->link_kind[at] = kind[i];
	}
	ret = 0;
out_free:
	free(dir);
	free(target);
	free(kind);
	free(start);
	return ret;
}

/* Open-addressing set of the names of one directory, for uniqueness. */
struct name_set {
	uint64_t *hash;       /* 0 = empty slot */
	uint32_t *off;        /* offset of the name in arena */
	uint32_t cap;         /* slots in use for this directory, a power of two */
	uint32_t alloc;       /* slots allocated */
	char *arena;
	size_t arena_len, arena_cap;
};

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xCBF29CE484222325);

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(0x100000001B3);
	}
	h = rng_mix64(h);
	return h ? h : 1;
}

/* Size the set for one directory; clears only the slots it will use. */
static int name_set_reset(struct name_set *ns, uint64_t entries)
{
	uint64_t want = 16;

	while (want < entries * 2)
		want <<= 1;
	if (want > ns->alloc) {
		free(ns->hash);
		free(ns->off);
		ns->hash = malloc(want * sizeof(*ns->hash));
		ns->off = malloc(want * sizeof(*ns->off));
		if (!ns->hash || !ns->off)
			return -ENOMEM;
		ns->alloc = (uint32_t)want;
	}
	ns->cap = (uint32_t)want;
	memset(ns->hash, 0, want * sizeof(*ns->hash));
	ns->arena_len = 0;
	return 0;
}

/* Insert name; returns 1 if inserted, 0 if already present, -ENOMEM. */
static int name_set_add(struct name_set *ns, const char *s, size_t len)
{
	uint64_t h = name_hash(s, len);
	uint32_t mask = ns->cap - 1, i = (uint32_t)h & mask;

	while (ns->hash[i]) {
		if (ns->hash[i] == h) {
			const char *o = ns->arena + ns->off[i];

			if (strlen(o) == len && memcmp(o, s, len) == 0)
				return 0;
		}
		i = (i + 1) & mask;
	}
	if (array_grow(&ns->arena, &ns->arena_cap, ns->arena_len + len + 1, 1))
		return -ENOMEM;
	memcpy(ns->arena + ns->arena_len, s, len + 1);
	ns->hash[i] = h;
	ns->off[i] = (uint32_t)ns->arena_len;
	ns->arena_len += len + 1;
	return 1;
}

static const char *link_ext(const struct plan *pl, uint32_t l)
{
	if (pl->link_kind[l] & (LINK_HARD | LINK_SYM_FILE))
		return plan_file_ext(pl, pl->link_target[l]);
	return "";
}

static unsigned next_variant(unsigned v)
{
	return v < NAME_VARIANT_REDRAWS ? v + 1 : NAME_VARIANT_UNIQUE;
}

/* Choose each entry's name variant so that names are unique per directory. */
static int plan_unique_names(struct plan *pl)
{
	struct name_set ns = { 0 };
	char buf[NAME_MAX_LEN + 1];
	int ret = 0;

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint64_t entries = (uint64_t)pl->dir_nfiles[j] + pl->dir_nlinks[j] + 1;

		for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE; c = pl->dir_next_sibling[c])
			entries++;
		ret = name_set_reset(&ns, entries);
		if (ret)
			goto out_free;
		if (j == 0 && name_set_add(&ns, "lost+found", 10) < 0) {
			ret = -ENOMEM;
			goto out_free;
		}
		for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE;
		     c = pl->dir_next_sibling[c]) {
			unsigned v = 0;

			for (;; v = next_variant(v)) {
				size_t len = name_make(buf, &pl->names, NAME_DIR, c, "", v);

				ret = name_set_add(&ns, buf, len);
				if (ret)
					break;
			}
			if (ret < 0)
				goto out_free;
			pl->dir_variant[c] = (uint8_t)v;
		}
		for (uint64_t f = pl->dir_first_file[j];
		     f < (uint64_t)pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
			unsigned v = 0;

			for (;; v = next_variant(v)) {
				size_t len = name_make(buf, &pl->names, NAME_FILE, f,
						       plan_file_ext(pl, f), v);

				ret = name_set_add(&ns, buf, len);
				if (ret)
					break;
			}
			if (ret < 0)
				goto out_free;
			pl->file_variant[f] = (uint8_t)v;
		}
		for (uint32_t l = pl->dir_first_link[j];
		     l < pl->dir_first_link[j] + pl->dir_nlinks[j]; l++) {
			unsigned v = 0;

			for (;; v = next_variant(v)) {
				size_t len = name_make(buf, &pl->names, NAME_LINK, l,
						       link_ext(pl, l), v);

				ret = name_set_add(&ns, buf, len);
				if (ret)
					break;
			}
			if (ret < 0)
				goto out_free;
			pl->link_variant[l] = (uint8_t)v;
		}
	}
	ret = 0;
out_free:
	free(ns.hash);
	free(ns.off);
	free(ns.arena);
	return ret;
}

int plan_build(struct plan *pl, const struct params *p, struct plan_error *err)
{
	uint64_t *s = NULL;
	uint16_t *e = NULL;
	uint8_t *d = NULL;
	uint32_t *pin = NULL;
	uint32_t m_d[DEPTH_SLOTS] = { 0 };
	uint64_t t_d[DEPTH_SLOTS] = { 0 };
	uint64_t nspecial;
	double cap;
	int ret = -ENOMEM;

	memset(pl, 0, sizeof(*pl));
	pl->prm = *p;
	p = &pl->prm;
	name_cfg_from_params(&pl->names, p);

	nspecial = (uint64_t)p->special_dirs * p->special_dir_files;
	if (p->files >= UINT32_MAX || nspecial > p->files) {
		plan_fail(err, p->files >= UINT32_MAX ?
			  "'files' must be below 4294967295 (got %llu)" :
			  "special directories need %llu files, more than 'files' %llu",
			  (unsigned long long)(p->files >= UINT32_MAX ? p->files : nspecial),
			  (unsigned long long)p->files);
		return -EINVAL;
	}
	pl->nfiles = p->files;
	pl->nregular_files = p->files - nspecial;

	cap = (double)p->size_max;
	if (p->used && (double)p->used < cap)
		cap = (double)p->used;
	if (cap < 1)
		cap = 1;
	if (size_model_init(&pl->size, p->size_mu, p->size_sigma, p->size_tail_weight,
			    (double)p->size_tail_xm, p->size_tail_shape, cap)) {
		plan_fail(err, "the file size parameters admit no distribution");
		return -EINVAL;
	}
	if (ext_model_init(&pl->ext, p->ext_table))
		goto out_fail;

	double ndirs_f = floor((double)pl->nregular_files / p->files_per_dir + 0.5);

	if (ndirs_f < 1)
		ndirs_f = 1;
	if (ndirs_f + p->special_dirs >= (double)UINT32_MAX) {
		plan_fail(err, "too many directories (%.0f)", ndirs_f + p->special_dirs);
		ret = -EINVAL;
		goto out_fail;
	}
	pl->nregular_dirs = (uint32_t)ndirs_f;
	pl->ndirs = pl->nregular_dirs + p->special_dirs;

	pl->dir_parent = xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_depth = xalloc(pl->ndirs, 1);
	pl->dir_variant = xalloc(pl->ndirs, 1);
	pl->dir_first_child = xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_next_sibling = xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_first_file = xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_nfiles = xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_first_link = xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_nlinks = xalloc(pl->ndirs, sizeof(uint32_t));
	pl->file_size = xalloc(pl->nfiles, sizeof(uint64_t));
	pl->file_ext = xalloc(pl->nfiles, sizeof(uint16_t));
	pl->file_dir = xalloc(pl->nfiles, sizeof(uint32_t));
	pl->file_variant = xalloc(pl->nfiles, 1);
	if (!pl->dir_parent || !pl->dir_depth || !pl->dir_variant || !pl->dir_first_child ||
	    !pl->dir_next_sibling || !pl->dir_first_file || !pl->dir_nfiles ||
	    !pl->dir_first_link || !pl->dir_nlinks || !pl->file_size || !pl->file_ext ||
	    !pl->file_dir || !pl->file_variant)
		goto out_fail;

	ret = tree_build(p->seed, pl->nregular_dirs, pl->dir_parent, pl->dir_depth);
	if (ret) {
		if (ret == -E2BIG)
			plan_fail(err, "the directory tree would be deeper than 255 levels");
		goto out_fail;
	}
	for (uint32_t j = 0; j < pl->nregular_dirs; j++) {
		m_d[pl->dir_depth[j]]++;
		if (pl->dir_depth[j] > pl->maxdepth)
			pl->maxdepth = pl->dir_depth[j];
	}
	ret = plan_special_dirs(pl, err);
	if (ret)
		goto out_fail;
	plan_children(pl);

	ret = -ENOMEM;
	s = xalloc(pl->nfiles, sizeof(*s));
	e = xalloc(pl->nfiles, sizeof(*e));
	d = xalloc(pl->nregular_files, sizeof(*d));
	pin = xalloc(pl->nfiles, sizeof(*pin));
	if (!s || !e || !d || !pin)
		goto out_fail;
	ret = plan_sizes(pl, s, err);
	if (ret)
		goto out_fail;
	ret = plan_exts(pl, e);
	if (ret)
		goto out_fail;
	ret = plan_ext_floors_and_dups(pl, s, e, pin);
	if (ret)
		goto out_fail;
	ret = plan_depths(pl, s, d, m_d);
	if (ret)
		goto out_fail;
	for (uint64_t k = 0; k < pl->nregular_files; k++)
		t_d[d[k]]++;
	ret = plan_fpd(pl, t_d, m_d);
	if (ret)
		goto out_fail;
	ret = plan_place(pl, s, e, d, pin);
	if (ret)
		goto out_fail;
	free(s);
	free(e);
	free(d);
	free(pin);
	s = NULL;
	e = NULL;
	d = NULL;
	pin = NULL;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		pl->bytes += pl->file_size[f];
	ret = plan_links(pl);
	if (ret)
		goto out_fail;
	ret = plan_unique_names(pl);
	if (ret)
		goto out_fail;
	return 0;

out_fail:
	if (ret == -ENOMEM)
		plan_fail(err, "out of memory while planning %llu files",
			  (unsigned long long)p->files);
	else if (err && !err->msg[0])
		plan_fail(err, "cannot plan: %s", strerror(-ret));
	free(s);
	free(e);
	free(d);
	free(pin);
	plan_release(pl);
	return ret;
}

void plan_release(struct plan *pl)
{
	free(pl->dir_parent);
	free(pl->dir_depth);
	free(pl->dir_variant);
	free(pl->dir_first_child);
	free(pl->dir_next_sibling);
	free(pl->dir_first_file);
	free(pl->dir_nfiles);
	free(pl->dir_first_link);
	free(pl->dir_nlinks);
	free(pl->file_size);
	free(pl->file_ext);
	free(pl->file_dir);
	free(pl->file_variant);
	free(pl->file_nlink);
	free(pl->file_dup_of);
	free(pl->link_dir);
	free(pl->link_target);
	free(pl->link_kind);
	free(pl->link_variant);
	ext_model_release(&pl->ext);
	memset(pl, 0, sizeof(*pl));
}

size_t plan_dir_name(const struct plan *pl, uint32_t dir, char *buf)
{
	if (dir == 0) {
		buf[0] = '\0';
		return 0;
	}
	return name_make(buf, &pl->names, NAME_DIR, dir, "", pl->dir_variant[dir]);
}

size_t plan_file_name(const struct plan *pl, uint64_t file, char *buf)
{
	return name_make(buf, &pl->names, NAME_FILE, file, plan_file_ext(pl, file),
			 pl->file_variant[file]);
}

size_t plan_link_name(const struct plan *pl, uint32_t link, char *buf)
{
	return name_make(buf, &pl->names, NAME_LINK, link, link_ext(pl, link),
			 pl->link_variant[link]);
}

/* Append "/" name components of dirs from below `top` (exclusive) down to dir. */
static int append_down(const struct plan *pl, uint32_t top, uint32_t dir, char *buf,
		       size_t len, size_t *at)
{
	uint32_t chain[DEPTH_SLOTS];
	unsigned n = 0;
	char name[NAME_MAX_LEN + 1];

	for (uint32_t c = dir; c != top; c = pl->dir_parent[c])
		chain[n++] = c;
	while (n--) {
		size_t l = plan_dir_name(pl, chain[n], name);

		if (*at + l + 2 > len)
			return -ENAMETOOLONG;
		if (*at && buf[*at - 1] != '/')
			buf[(*at)++] = '/';
		memcpy(buf + *at, name, l);
		*at += l;
	}
	buf[*at] = '\0';
	return 0;
}

int plan_dir_path(const struct plan *pl, uint32_t dir, char *buf, size_t len)
{
	size_t at = 1;

	if (len < 2)
		return -ENAMETOOLONG;
	buf[0] = '/';
	buf[1] = '\0';
	if (append_down(pl, 0, dir, buf, len, &at))
		return -ENAMETOOLONG;
	return (int)at;
}

static int append_str(char *buf, size_t len, size_t *at, const char *s, size_t l)
{
	if (*at + l + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf + *at, s, l);
	*at += l;
	buf[*at] = '\0';
	return 0;
}

int plan_symlink_target(const struct plan *pl, uint32_t link, char *buf, size_t len)
{
	uint8_t k = pl->link_kind[link];
	uint32_t tdir, from = pl->link_dir[link];
	char name[NAME_MAX_LEN + 1];
	size_t nl = 0, at = 0;
	int ret;

	if (len < 2)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	if (k & LINK_SYM_FILE) {
		uint64_t f = pl->link_target[link];

		tdir = pl->file_dir[f];
		nl = plan_file_name(pl, f, name);
	} else {
		tdir = pl->link_target[link];
	}
	if (k & LINK_DANGLING) {
		/* a name of the link kind with an id no link has: never exists */
		nl = name_make(name, &pl->names, NAME_LINK, (uint64_t)pl->nlinks + link,
			       link_ext(pl, link), NAME_VARIANT_UNIQUE);
	}

	if (!(k & LINK_RELATIVE)) {
		buf[at++] = '/';
		buf[at] = '\0';
		ret = append_down(pl, 0, tdir, buf, len, &at);
	} else {
		/* climb from the link's directory to the common ancestor */
		uint32_t a = from, b = tdir;

		while (pl->dir_depth[a] > pl->dir_depth[b])
			a = pl->dir_parent[a];
		while (pl->dir_depth[b] > pl->dir_depth[a])
			b = pl->dir_parent[b];
		while (a != b) {
			a = pl->dir_parent[a];
			b = pl->dir_parent[b];
		}
		for (unsigned up = pl->dir_depth[from] - pl->dir_depth[a]; up; up--) {
			ret = append_str(buf, len, &at, at ? "/.." : "..", at ? 3 : 2);
			if (ret)
				return ret;
		}
		ret = append_down(pl, a, tdir, buf, len, &at);
	}
	if (ret)
		return ret;
	if (nl) {
		if (at && buf[at - 1] != '/' && append_str(buf, len, &at, "/", 1))
			return -ENAMETOOLONG;
		if (append_str(buf, len, &at, name, nl))
			return -ENAMETOOLONG;
	}
	if (at == 0 && append_str(buf, len, &at, ".", 1))
		return -ENAMETOOLONG;
	return (int)at;
}

/* Owner: root with owner_root_share, else one of owner_users, Zipf-like. */
static void meta_owner(const struct params *p, struct rng *r, struct plan_meta *m)
{
	double u = rng_uniform(r);

	if (u < p->owner_root_share || p->owner_users == 0) {
		m->uid = m->gid = 0;
		return;
	}
	double v = rng_uniform(r);
	uint32_t i = (uint32_t)(exp(v * log((double)p->owner_users + 1)) - 1);

	if (i >= p->owner_users)
		i = p->owner_users - 1;
	m->uid = 1000 + i;
	m->gid = rng_uniform(r) < 0.1 ? 100 : m->uid;
}

/* Times: age lognormal in days, capped; atime, ctime after mtime; crtime before. */
static void meta_times(const struct params *p, struct rng *r, struct plan_meta *m)
{
	double z = gsl_cdf_ugaussian_Pinv(rng_uniform(r));
	double age = exp(log(p->age_median_days) + p->age_sigma * z);
	double now = (double)p->time_ref, mt, ct, at, bt;

	if (age > p->age_max_days)
		age = p->age_max_days * rng_uniform(r);
	mt = now - age * 86400.0;
	ct = mt + fmin(now - mt, -log(rng_uniform(r)) * 3600.0);
	at = mt + (now - mt) * rng_uniform(r);
	bt = mt - fmin(age * 86400.0, -log(rng_uniform(r)) * 86400.0 * 7) * rng_uniform(r);
	m->mtime = (int64_t)floor(mt);
	m->mtime_ns = (uint32_t)((mt - floor(mt)) * 1e9);
	m->ctime = (int64_t)floor(ct);
	m->ctime_ns = (uint32_t)((ct - floor(ct)) * 1e9);
	m->atime = (int64_t)floor(at);
	m->atime_ns = (uint32_t)((at - floor(at)) * 1e9);
	m->crtime = (int64_t)floor(bt);
	m->crtime_ns = (uint32_t)((bt - floor(bt)) * 1e9);
	if (m->mtime_ns > 999999999)
		m->mtime_ns = 999999999;
	if (m->ctime < m->mtime || (m->ctime == m->mtime && m->ctime_ns < m->mtime_ns)) {
		m->ctime = m->mtime;
		m->ctime_ns = m->mtime_ns;
	}
}

static int ext_is_exec(const char *ext)
{
	static const char *const exec[] = {
		"exe", "dll", "so", "sh", "bin", "run", "com", "bat", "cmd", "pl", "py", NULL
	};

	for (const char *const *e = exec; *e; e++)
		if (strcmp(*e, ext) == 0)
			return 1;
	return 0;
}

void plan_file_meta(const struct plan *pl, uint64_t file, struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;
	int exec;

	rng_init(&r, p->seed, "meta.file", file);
	meta_owner(p, &r, m);
	meta_times(p, &r, m);
	exec = ext_is_exec(plan_file_ext(pl, file));
	if (!exec && pl->file_ext[file] == 0)
		exec = rng_uniform(&r) < 0.15;   /* scripts and binaries without a suffix */
	if (rng_uniform(&r) < p->perm_private_share)
		m->mode = exec ? 0700 : 0600;
	else if (rng_uniform(&r) < 0.1)
		m->mode = exec ? 0775 : 0664;
	else
		m->mode = exec ? 0755 : 0644;
	m->mode |= S_IFREG;
}

void plan_dir_meta(const struct plan *pl, uint32_t dir, struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;

	rng_init(&r, p->seed, "meta.dir", dir);
	meta_owner(p, &r, m);
	meta_times(p, &r, m);
	if (dir == 0) {
		m->uid = m->gid = 0;
		m->mode = 0755;
	} else if (rng_uniform(&r) < p->perm_private_share) {
		m->mode = 0700;
	} else {
		m->mode = rng_uniform(&r) < 0.1 ? 0775 : 0755;
	}
	m->mode |= S_IFDIR;
}

void plan_link_meta(const struct plan *pl, uint32_t link, struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;

	if (pl->link_kind[link] & LINK_HARD) {
		plan_file_meta(pl, pl->link_target[link], m);
		return;
	}
	rng_init(&r, p->seed, "meta.link", link);
	meta_owner(p, &r, m);
	meta_times(p, &r, m);
	m->mode = S_IFLNK | 0777;
}
