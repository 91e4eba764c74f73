/* measure_fit.c - measure --against a profile: its modes, owners, subdirectories, ages and names */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/dist.h"
#include "model/params.h"
#include "model/tables.h"
#include "analysis/measure_int.h"
#include "util/array.h"

static struct report_extra *extra(struct report *rep, enum report_extra_kind kind,
				  const char *label, const char *key)
{
	struct report_extra *x = &rep->extra[rep->nextra++];

	x->kind = kind;
	x->label = label;
	x->key = key;
	x->worst[0] = '\0';
	return x;
}

/* Largest |share - target| over the modes of the table and those met (count of n entries). */
static void modes_diff(struct report *rep, const char *label, const char *key,
		       const struct tab_modes *tm, uint32_t nt, const uint64_t *count)
{
	struct report_extra *x = extra(rep, REPORT_EXTRA_DIFF, label, key);
	double target[MEASURE_MODES] = { 0 }, n = 0, best = -1;
	unsigned worst = 0;

	for (unsigned i = 0; i < MEASURE_MODES; i++)
		n += (double)count[i];
	for (uint32_t i = 0; i < nt; i++)
		target[tm->mode[i] & 07777] += tm->share[i];
	for (unsigned i = 0; i < MEASURE_MODES; i++) {
		double d = fabs((n ? (double)count[i] / n : 0) - target[i]);

		if (d > best) {
			best = d;
			worst = i;
		}
	}
	x->value = best;
	snprintf(x->worst, sizeof(x->worst), "%04o", worst);
}

/*
 * Subdirectories per regular directory (special ones left out, as
 * subdirectories too) against the subdirs_table: the largest share
 * difference over the counts of either.  0 or -ENOMEM.
 */
static int subdirs_diff(struct report *rep, const struct mstate *m, const struct params *p,
			const uint8_t *special)
{
	const struct param_tables *t = &p->tab;
	uint64_t *v = malloc((m->ndirs ? m->ndirs : 1) * sizeof(*v)), nd = 0, k = 0;
	struct report_extra *x;
	double best = -1;
	uint64_t worst = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t j = 0; j < m->ndirs; j++)
		v[j] = m->dsub[j];
	/* a special directory's parent: the nearest shallower directory before it (preorder) */
	for (uint32_t j = 1; j < m->ndirs; j++) {
		uint32_t q = j;

		if (!special[j])
			continue;
		while (q > 0 && m->ddepth[--q] >= m->ddepth[j])
			;
		v[q]--;
	}
	for (uint32_t j = 0; j < m->ndirs; j++)
		if (!special[j])
			v[nd++] = v[j];
	if (array_sort_u64(v, nd)) {
		free(v);
		return -ENOMEM;
	}
	/* merge the sorted counts with the table (ascending) */
	for (uint64_t j = 0; j < nd || k < t->nsubdirs;) {
		uint64_t c = j < nd ? v[j] : UINT64_MAX, n = 0;
		double target = 0, d;

		if (k < t->nsubdirs && t->subdirs_n[k] <= c)
			c = t->subdirs_n[k];
		for (; j < nd && v[j] == c; j++)
			n++;
		if (k < t->nsubdirs && t->subdirs_n[k] == c)
			target = t->subdirs_share[k++];
		d = fabs((nd ? (double)n / (double)nd : 0) - target);
		if (d > best) {
			best = d;
			worst = c;
		}
	}
	free(v);
	x = extra(rep, REPORT_EXTRA_DIFF, "subdirs/dir", "subdirs");
	x->value = best < 0 ? 0 : best;
	snprintf(x->worst, sizeof(x->worst), "%llu subdirs", (unsigned long long)worst);
	return 0;
}

static double age_cdf(const void *ctx, double t)
{
	const struct param_tables *tab = ctx;

	/* as the profile's: the model rounds a table's ages to whole seconds */
	return quantile_table_cdf(tab->age_q, tab->nage_q, (t + 0.5) / 86400.0);
}

/* File ages before time_ref (newer ones as 0) against the age_quantiles; 0 or -ENOMEM. */
static int ages_ks(struct report *rep, const struct mresult *r, const struct mstate *m,
		   const struct params *p)
{
	uint64_t *a = malloc((m->nfiles ? m->nfiles : 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	for (uint64_t f = 0; f < m->nfiles; f++)
		a[f] = r->ages[f] > 0 ? (uint64_t)r->ages[f] : 0;
	extra(rep, REPORT_EXTRA_KS, "age", "age")->value =
		ks_d_discrete(a, m->nfiles, age_cdf, &p->tab);
	free(a);
	return 0;
}

/* One of the name length tables (n shares by length) against the names counted. */
static void names_ks(struct report *rep, const char *label, const char *key, const double *share,
		     uint32_t n, const uint64_t *count)
{
	double model[256] = { 0 };

	for (uint32_t i = 0; i < n; i++)
		model[i < 255 ? i : 255] += share[i];
	extra(rep, REPORT_EXTRA_KS, label, key)->value = ks_d_hist(count, 256, model);
}

int measure_fit_extras(struct report *rep, const struct mresult *r, const struct mstate *m,
		       const struct params *p, const uint8_t *special)
{
	const struct param_tables *t = &p->tab;
	int ret;

	rep->nextra = 0;
	if (t->nmode_files)
		modes_diff(rep, "file modes", "mode_files", &t->mode_files, t->nmode_files,
			   m->mode_file);
	if (t->nmode_dirs)
		modes_diff(rep, "dir modes", "mode_dirs", &t->mode_dirs, t->nmode_dirs, m->mode_dir);
	/* a profile's owners come with its mode tables */
	if (t->nmode_files || t->nmode_dirs) {
		struct report_extra *x = extra(rep, REPORT_EXTRA_SHARE, "root-owned", "root_owned");

		x->target = p->owner_root_share;
		x->value = m->owned ? (double)m->root_owned / (double)m->owned : 0;
	}
	if (t->nsubdirs && (ret = subdirs_diff(rep, m, p, special)))
		return ret;
	if (p->empty_dir_share >= 0) {
		struct report_extra *x = extra(rep, REPORT_EXTRA_SHARE, "empty dirs", "empty_dirs");
		uint64_t empty = 0;

		for (uint32_t j = 0; j < m->ndirs; j++)
			empty += !m->dnfiles[j] && !m->dsub[j];
		x->target = p->empty_dir_share;
		x->value = m->ndirs ? (double)empty / (double)m->ndirs : 0;
	}
	if (t->nage_q && (ret = ages_ks(rep, r, m, p)))
		return ret;
	if (t->nname_len) {
		/* without name_dir_lengths, name_lengths holds the directories too */
		uint64_t plain[256];

		for (unsigned i = 0; i < 256; i++)
			plain[i] = m->name_len_ext[0][i] + (t->nname_dir_len ? 0 : m->name_len_ext[2][i]);
		names_ks(rep, "name length", "name_length", t->name_len, t->nname_len, plain);
	}
	if (t->nname_dir_len)
		names_ks(rep, "dir name length", "dir_name_length", t->name_dir_len,
			 t->nname_dir_len, m->name_len_ext[2]);
	if (t->nname_ext_len)
		names_ks(rep, "name.ext length", "name_ext_length", t->name_ext_len,
			 t->nname_ext_len, m->name_len_ext[1]);
	return 0;
}
