/* profile_meta.c - a profile's modes, ages and atimes, fragmentation, free space and holes */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "content/sparse.h"
#include "model/dist.h"
#include "analysis/content_stats.h"
#include "analysis/profile_int.h"
#include "util/array.h"
#include "util/util.h"


int profile_meta_entry(struct pstate *s, const struct fsread_entry *e, uint64_t files_before,
		       uint64_t sparse_before)
{
	const struct mstate *m = &s->m;

	if (m->nfiles == files_before)
		return 0;
	if (array_grow(&s->atime, &s->atime_cap, m->nfiles, sizeof(*s->atime)))
		return -ENOMEM;
	s->atime[m->nfiles - 1] = e->atime.sec;
	if (m->sparse_files != sparse_before)
		s->sparse_unit_bytes += e->size / SPARSE_UNIT * SPARSE_UNIT;
	return 0;
}

/* A mode table from the counts by permission bits: the commonest modes, shares of all. */
static uint32_t mode_table(const uint64_t *count, struct tab_modes *tm, unsigned *distinct,
			   double *left)
{
	uint64_t total = 0, kept = 0;
	uint32_t n = 0;

	*distinct = 0;
	for (unsigned m = 0; m < PROFILE_MODES; m++) {
		total += count[m];
		*distinct += count[m] > 0;
	}
	/* selection by count, ties to the lower mode: at most TAB_MODE_MAX, no sort needed */
	while (n < TAB_MODE_MAX) {
		unsigned best = PROFILE_MODES;

		for (unsigned m = 0; m < PROFILE_MODES; m++) {
			int used = 0;

			for (uint32_t k = 0; k < n && !used; k++)
				used = tm->mode[k] == m;
			if (count[m] && !used && (best == PROFILE_MODES || count[m] > count[best]))
				best = m;
		}
		if (best == PROFILE_MODES)
			break;
		tm->mode[n] = (uint16_t)best;
		tm->share[n++] = (double)count[best] / (double)total;
		kept += count[best];
	}
	*left = total ? (double)(total - kept) / (double)total : 0;
	return n;
}

struct age_law {
	const double *q;
	uint32_t n;
	const struct params *p;
};

static double age_table_cdf(const void *ctx, double t)
{
	const struct age_law *a = ctx;

	/* the model rounds a table's ages to whole seconds: P(round(X) <= t) */
	return quantile_table_cdf(a->q, a->n, (t + 0.5) / 86400.0);
}

/* The model's lognormal, redrawn uniformly below the cap where it is above. */
static double age_law_cdf(const void *ctx, double t)
{
	const struct params *p = ((const struct age_law *)ctx)->p;

	return age_lognormal_cdf(p->age_median_days, p->age_sigma, p->age_max_days, t / 86400.0);
}

/* Ages before the newest mtime (table and the fit's K-S), atime's place from mtime to it. */
static int meta_ages(const struct pstate *s, struct params *p, struct pmeta *f)
{
	const struct mstate *m = &s->m;
	struct param_tables *t = &p->tab;
	uint64_t *age = malloc(m->nfiles * sizeof(*age)), na = 0;
	double *pos = malloc(m->nfiles * sizeof(*pos));
	struct age_law law = { t->age_q, PROFILE_AGEQ_POINTS, p };
	int ret = -ENOMEM;

	if (!age || !pos)
		goto out_free;
	for (uint64_t k = 0; k < m->nfiles; k++) {
		int64_t span = m->max_mtime - m->mtime[k];

		age[k] = (uint64_t)span;
		if (span > 0)
			pos[na++] = fmin(1, fmax(0, (double)(s->atime[k] - m->mtime[k]) / (double)span));
	}
	if (array_sort_u64(age, m->nfiles))
		goto out_free;
	for (unsigned i = 0; i < PROFILE_AGEQ_POINTS; i++)
		t->age_q[i] = (double)age[(uint64_t)llround((double)i * (double)(m->nfiles - 1) /
							    (PROFILE_AGEQ_POINTS - 1))] / 86400.0;
	/* the table as printed (11 digits), so that the K-S is that of the profile */
	for (unsigned i = 0; i < PROFILE_AGEQ_POINTS; i++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%.11g", t->age_q[i]);
		t->age_q[i] = strtod(buf, NULL);
		if (i && t->age_q[i] < t->age_q[i - 1])
			t->age_q[i] = t->age_q[i - 1];
	}
	t->nage_q = PROFILE_AGEQ_POINTS;
	f->age_ks_table = ks_d_discrete(age, m->nfiles, age_table_cdf, &law);
	f->age_ks_law = ks_d_discrete(age, m->nfiles, age_law_cdf, &law);
	if (na >= 2) {
		qsort(pos, na, sizeof(*pos), array_cmp_double);
		for (unsigned i = 0; i < PROFILE_AGEQ_POINTS; i++)
			t->atime_q[i] = pos[(uint64_t)llround((double)i * (double)(na - 1) /
							  (PROFILE_AGEQ_POINTS - 1))];
		t->natime_q = PROFILE_AGEQ_POINTS;
	}
	ret = 0;
out_free:
	FREE_ALL(age, pos);
	return ret;
}

/* Fragmentation (files with extents), the free space (images), the holes. */
static void meta_layout(const struct pstate *s, struct params *p, struct pmeta *f)
{
	const struct mstate *m = &s->m;
	const struct measure_layout *l = &m->lay;

	f->free_shape = NAN;
	if (l->fragmented) {
		f->frag_share = (double)l->fragmented / (double)l->files;
		f->frag_extents = (double)l->frag_fragments / (double)l->fragmented;
		p->frag_file_share = f->frag_share;
		p->frag_extents = fmax(2, f->frag_extents);
	}
	if (s->have_free && s->total_bytes) {
		const struct measure_free *fr = &s->fr;
		uint64_t bs = fsread_geometry(m->fs)->block_size, chunk = PROFILE_FREE_CHUNK / bs;
		double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
		unsigned nb = 0;

		f->fill = (double)m->bytes / (double)s->total_bytes;
		if (f->fill > 0)
			p->fill_share = fmin(1, f->fill);
		f->free_share_small = fr->free_blocks ? (double)fr->small_blocks /
			(double)fr->free_blocks : 0;
		p->free_frag_share = fmin(f->free_share_small, 0.999);
		/* blocks per bucket ~ 2^(b (2 - shape)): the shape by weighted least squares */
		for (unsigned b = 0; b < MEASURE_BUCKETS && (UINT64_C(2) << b) <= chunk; b++) {
			double w = (double)fr->count[b], y;

			if (!fr->count[b])
				continue;
			y = log2((double)fr->blocks[b]);
			sw += w;
			sx += w * b;
			sy += w * y;
			sxx += w * b * b;
			sxy += w * b * y;
			nb++;
		}
		if (nb >= 2 && sw * sxx - sx * sx > 0) {
			f->free_shape = 2 - (sw * sxy - sx * sy) / (sw * sxx - sx * sx);
			p->free_gap_shape = fmin(4, fmax(0, f->free_shape));
		}
		if (fr->min_len > 1 && fr->min_len < chunk)
			p->free_gap_min = fr->min_len * bs;
	}
	for (uint64_t k = 0; k < m->nfiles; k++)
		f->sparse_eligible += m->size[k] >= SPARSE_MIN_SIZE &&
			content_group_of_ext(m->ext_tab.name[m->ext[k]]) == CONTENT_BINARY;
	if (m->sparse_files && f->sparse_eligible && s->sparse_unit_bytes) {
		double holes = (double)m->hole_blocks * fsread_geometry(m->fs)->block_size;

		p->sparse_file_share = fmin(1, (double)m->sparse_files / (double)f->sparse_eligible);
		p->sparse_hole_share = fmin(0.999, fmax(0.001, holes / (double)s->sparse_unit_bytes));
	}
}

int profile_meta(const struct pstate *s, struct params *p, struct pmeta *f)
{
	p->tab.nmode_files = mode_table(s->mode_file, &p->tab.mode_files, &f->nmodes_files,
					&f->mode_files_left);
	if (s->m.ndirs > 1)
		p->tab.nmode_dirs = mode_table(s->mode_dir, &p->tab.mode_dirs, &f->nmodes_dirs,
					       &f->mode_dirs_left);
	meta_layout(s, p, f);
	return meta_ages(s, p, f);
}
