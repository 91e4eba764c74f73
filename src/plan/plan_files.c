/* plan_files.c - the files of a plan: sizes, extensions and whole-file duplicates */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_int.h"
#include "util/array.h"
#include "util/util.h"

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

int plan_sizes(struct plan *pl, uint64_t *s, struct plan_error *err)
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
	uint64_t *fl = plan_xalloc(pl->ext.count, sizeof(*fl));
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
/* Make sample k a copy of src (its size too): 1, or 0 when there is no src. */
static int dup_pin(uint32_t *pin, uint64_t *s, uint32_t k, uint32_t src)
{
	if (src == PLAN_NONE)
		return 0;
	pin[k] = src;
	pin[src] = DUP_SOURCE;
	s[k] = s[src];
	return 1;
}

/*
 * With a profile's ext_content: each listed extension's own share of
 * copies (its duplicate-file share), the others the share that leaves
 * dup_file_share of all; a copy's source is a file of its extension, so
 * extension counts stay as drawn without swaps.  Empty files are one
 * content: the profile counts all but one of an extension's as duplicates
 * (13 of /usr/share/doc's 75 .rst are empty: its 0.160 is those 12), so
 * they are copies already and the quota is what they leave; an empty file
 * is never made a copy, so that their count stays as drawn.  Arguments as
 * plan_dups() has them (samples grouped by extension in by_ext from
 * start[]).
 */
static int dups_by_ext(struct plan *pl, uint64_t *s, const uint16_t *e, uint32_t *pin, uint64_t n,
		       const uint32_t *order, const uint64_t *start, const uint32_t *by_ext,
		       const uint64_t *fl, struct rng *r)
{
	const struct params *p = &pl->prm;
	const struct param_tables *t = &p->tab;
	size_t ne = pl->ext.count;
	uint64_t *quota = calloc(ne ? ne : 1, sizeof(*quota)), listed = 0, want = 0;
	uint64_t *empty = calloc(ne ? ne : 1, sizeof(*empty)), nempty = 0;
	uint64_t *quota_rest = calloc(ne ? ne : 1, sizeof(*quota_rest));
	double *w = calloc(ne ? ne : 1, sizeof(*w)), rest, room = 0;
	int *in = calloc(ne ? ne : 1, sizeof(*in));

	if (!quota || !empty || !quota_rest || !w || !in) {
		FREE_ALL(quota, empty, quota_rest, w, in);
		return -ENOMEM;
	}
	for (uint64_t k = 0; k < n; k++)
		if (!s[k]) {
			empty[e[k]]++;
			nempty++;
		}
	for (size_t x = 0; x < ne; x++) {
		uint64_t cnt = start[x + 1] - start[x];

		for (uint32_t i = 0; i < t->nextc; i++)
			if (!strcmp(t->extc_name[i], pl->ext.name[x])) {
				int64_t q = llround(t->extc[i][1] * (double)cnt);

				/* the empty files' duplicates count; one of them is distinct */
				if (empty[x])
					q -= (int64_t)(empty[x] - 1);
				/* a share the profile measured: up to all files but one */
				if (q > (int64_t)cnt - 1 - (empty[x] ? (int64_t)empty[x] - 1 : 0))
					q = (int64_t)cnt - 1 - (empty[x] ? (int64_t)empty[x] - 1 : 0);
				quota[x] = q > 0 ? (uint64_t)q : 0;
				in[x] = 1;
				listed += cnt;
				want += quota[x];
			}
	}
	/*
	 * The extensions not listed (of 2 files or more): what is left of
	 * dup_file_share (all empty files are one content), split by their
	 * files with largest remainders; rounded one by one, the many
	 * extensions of a few files each rounded theirs to 0 (/usr/share/doc's
	 * clone: 901 duplicate files for its 906)
	 */
	rest = p->dup_file_share * (double)n - (double)want - (nempty ? (double)(nempty - 1) : 0);
	for (size_t x = 0; x < ne; x++) {
		uint64_t cnt = start[x + 1] - start[x];

		w[x] = in[x] || cnt < 2 ? 0 : (double)cnt;
		room += w[x] / 2;
	}
	rest = rest < 0 ? 0 : rest > room ? room : rest;
	if (room > 0)
		quotas_from_probs(w, ne, (uint64_t)llround(rest), quota_rest);
	for (size_t x = 0; x < ne; x++) {
		uint64_t cnt = start[x + 1] - start[x];

		if (in[x] || room <= 0)
			continue;
		quota[x] = quota_rest[x] > cnt / 2 ? cnt / 2 : quota_rest[x];
	}
	for (uint64_t i = 0; i < n; i++) {
		uint32_t k = order[i], src = PLAN_NONE;
		uint64_t lo = start[e[k]], len = start[e[k] + 1] - lo;

		if (pin[k] != PLAN_NONE || !s[k] || !quota[e[k]] || len < 2)
			continue;
		for (int tries = 0; tries < 64 && src == PLAN_NONE; tries++) {
			uint32_t c = by_ext[lo + rng_below(r, len)];

			if (c != k && (pin[c] == PLAN_NONE || pin[c] == DUP_SOURCE) && s[c] >= fl[e[c]])
				src = c;
		}
		if (dup_pin(pin, s, k, src))
			quota[e[k]]--;
	}
	FREE_ALL(quota, empty, quota_rest, w, in);
	return 0;
}

static int plan_dups(struct plan *pl, uint64_t *s, uint16_t *e, uint32_t *pin, uint64_t n)
{
	const struct params *p = &pl->prm;
	uint64_t m = (uint64_t)llround(p->dup_file_share * (double)n), made = 0;
	uint32_t *order;
	struct rng r, rx;

	for (uint64_t k = 0; k < n; k++)
		pin[k] = PLAN_NONE;
	if ((m == 0 && !p->tab.nextc) || n < 2)
		return 0;
	if (m > n / 2)
		m = n / 2;
	/* samples grouped by their drawn extension, for the count-keeping swaps */
	size_t ne = pl->ext.count;
	uint64_t *start = plan_xalloc(ne + 1, sizeof(*start)), *fill = plan_xalloc(ne, sizeof(*fill));
	uint32_t *by_ext = plan_xalloc(n, sizeof(*by_ext));
	uint64_t *fl = plan_xalloc(ne, sizeof(*fl));

	order = malloc(n * sizeof(*order));
	if (!order || !start || !fill || !by_ext || !fl) {
		FREE_ALL(order, start, fill, by_ext, fl);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ne; i++)
		fl[i] = ext_min_size(pl->ext.name[i]);
	plan_group(NULL, e, n, ne, start, fill, by_ext);
	for (uint64_t k = 0; k < n; k++)
		order[k] = (uint32_t)k;
	rng_shuffle_u32(order, n, rng_stream_key(p->seed, "dup.order"), 0);
	rng_init(&r, p->seed, "dup.source", 0);
	rng_init(&rx, p->seed, "dup.ext", 0);
	if (p->tab.nextc) {
		int ret = dups_by_ext(pl, s, e, pin, n, order, start, by_ext, fl, &r);

		FREE_ALL(start, fill, by_ext, fl, order);
		return ret;
	}
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
		if (!dup_pin(pin, s, k, src))
			continue;
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
	FREE_ALL(start, fill, by_ext, fl, order);
	return 0;
}

int plan_ext_floors_and_dups(struct plan *pl, uint64_t *s, uint16_t *e, uint32_t *pin)
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

int plan_exts(struct plan *pl, uint16_t *e)
{
	const struct params *p = &pl->prm;
	const struct ext_model *m = &pl->ext;
	uint64_t n = pl->nfiles;

	if (p->sampling == SAMPLING_STRATIFIED) {
		uint64_t *q = plan_xalloc(m->count, sizeof(*q));
		uint64_t k = 0;

		if (!q)
			return -ENOMEM;
		quotas_from_probs(m->share, m->count, n, q);
		for (size_t i = 0; i < m->count; i++)
			for (uint64_t c = 0; c < q[i]; c++)
				e[k++] = (uint16_t)i;
		free(q);
		rng_shuffle(e, n, sizeof(*e), rng_stream_key(p->seed, "ext.order"), 0);
	} else {
		double *cum = plan_xalloc(m->count, sizeof(*cum));
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
			e[k] = (uint16_t)plan_cum_search(cum, m->count, rng_uniform(&r) * acc);
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

/*
 * Quantile u of a class's law: its table's piece (q[i], q[i + 1]) shaped
 * by the whole law between the two sizes instead of log-linearly, so that
 * the top sixteenth of 2,722 .gz files (72 KiB to 2.9 MiB) thins out as
 * the whole tail does rather than putting a third of them above 930 KiB.
 */
static double sbe_quantile(const struct size_model *law, const struct size_model *whole, double u)
{
	double pos = u * (law->nq - 1), a, b, x, lo, hi;
	unsigned i = (unsigned)pos;

	if (i >= law->nq - 1)
		return size_model_quantile(law, u);
	lo = (double)law->q[i];
	hi = (double)law->q[i + 1];
	a = size_model_cdf(whole, lo);
	b = size_model_cdf(whole, hi);
	if (!(hi > lo) || !(b > a))
		return size_model_quantile(law, u);
	x = size_model_quantile(whole, a + (pos - i) * (b - a));
	return fmin(fmax(x, lo), fmin(hi, law->cap));
}

/* o, sorted by class (c + 1 + a draw below 0.5), into targets: each class at its strata's midpoints. */
static void sbe_strata(struct array_keyed *o, uint64_t n, const int16_t *cls, const uint16_t *e,
		       const struct size_model *law, const struct size_model *whole, int rest)
{
	for (uint64_t i = 0; i < n;) {
		uint64_t j = i;
		int c;

		while (j < n && floor(o[j].key) == floor(o[i].key))
			j++;
		c = cls[e[o[i].idx]] >= 0 ? cls[e[o[i].idx]] : rest;
		for (uint64_t k = i; k < j; k++) {
			double u = ((double)(k - i) + 0.5) / (double)(j - i);

			o[k].key = c >= 0 ? sbe_quantile(&law[c], whole, u) :
					    size_model_quantile(whole, u);
		}
		i = j;
	}
}

/*
 * Sizes by extension (a profile's size_by_ext): each file draws a target
 * from its extension's size law (the class "*" for the extensions without
 * their own, else the whole size law), then the drawn sizes go to the
 * files in the order of their targets.  The sizes, as a multiset, and the
 * extension counts stay exactly as drawn; only their pairing changes, so
 * that an .iso stays large and an .h small.  With stratified sampling the
 * files of one class take the midpoints of its law's equal strata in a
 * random order: a class of two files gets one target from each half, the
 * source's two sizes when it had two (independent draws gave two small
 * .amd64 files where the source has a 413 KiB one).
 */
int plan_size_by_ext(struct plan *pl, uint64_t *s, const uint16_t *e)
{
	const struct param_tables *t = &pl->prm.tab;
	uint64_t n = pl->nfiles, key = rng_stream_key(pl->prm.seed, "size.ext");
	struct size_model *law = plan_xalloc(t->nsbe + 1, sizeof(*law));
	int16_t *cls = plan_xalloc(pl->ext.count, sizeof(*cls));
	struct array_keyed *order = plan_xalloc(n, sizeof(*order));
	int ret = -ENOMEM, rest = -1;
	struct rng r;

	if (!law || !cls || !order)
		goto out_free;
	for (size_t i = 0; i < pl->ext.count; i++)
		cls[i] = -1;
	for (uint32_t c = 0; c < t->nsbe; c++) {
		int id = ext_model_find(&pl->ext, t->sbe_name[c]);

		size_model_init_table(&law[c], t->sbe_q[c], TAB_SBE_Q, pl->size.cap);
		if (!strcmp(t->sbe_name[c], "*"))
			rest = (int)c;
		else if (id >= 0)
			cls[id] = (int16_t)c;
	}
	for (uint64_t k = 0; k < n; k++) {
		int c = cls[e[k]] >= 0 ? cls[e[k]] : rest;

		rng_open(&r, key, k);
		order[k].idx = k;
		if (pl->prm.sampling == SAMPLING_STRATIFIED)
			order[k].key = (double)(c + 1) + 0.5 * rng_uniform(&r); /* below c + 2 */
		else
			order[k].key = c >= 0 ? sbe_quantile(&law[c], &pl->size, rng_uniform(&r)) :
						size_model_quantile(&pl->size, rng_uniform(&r));
	}
	if (pl->prm.sampling == SAMPLING_STRATIFIED) {
		/* by class, in a random order within each */
		qsort(order, n, sizeof(*order), array_cmp_keyed);
		sbe_strata(order, n, cls, e, law, &pl->size, rest);
	}
	/*
	 * A typed format's file aims at its floor at least: one drawn below
	 * it would trade extensions later (plan_ext_floors) with a random
	 * file, which then takes the tiny size (/usr/share/doc's .gif under
	 * 256 bytes made a 6 KB .perl one of 1.4 KB).
	 */
	for (uint64_t i = 0; i < n; i++) {
		uint64_t fl = ext_min_size(pl->ext.name[e[order[i].idx]]);

		order[i].key = fmax(order[i].key, (double)fl);
	}
	/* files by their size target, ties by index */
	qsort(order, n, sizeof(*order), array_cmp_keyed);
	ret = array_sort_u64(s, n);
	if (ret)
		goto out_free;
	ret = -ENOMEM;
	{
		uint64_t *by = plan_xalloc(n, sizeof(*by));

		if (!by)
			goto out_free;
		for (uint64_t i = 0; i < n; i++)
			by[order[i].idx] = s[i];
		memcpy(s, by, n * sizeof(*s));
		free(by);
	}
	ret = 0;
out_free:
	FREE_ALL(law, cls, order);
	return ret;
}
