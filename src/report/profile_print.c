/* profile_print.c - a profile from the tallies: the parameters and tables, their fit, as a config file or JSON */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>

#include "content/registry.h"
#include "content/sparse.h"
#include "model/dist.h"
#include "analysis/content_stats.h"
#include "analysis/change.h"
#include "read/fsread.h"
#include "report/figures.h"
#include "report/profile_print.h"
#include "util/array.h"
#include "util/strutil.h"
#include "util/util.h"

#define SIZEQ_POINTS 1001 /* size quantiles: u = 0, 0.001, ..., 1 */
#define EXT_MIN_FILES 2   /* an extension of one file stays in the tail (privacy) */
#define EXT_TOP 300
#define SBE_MIN_FILES EXT_MIN_FILES /* an extension with its own size law: as in ext_shares */
#define FPD_MIN_BIN 28
#define FPD_TAIL 0.005    /* the bins reach until at most this share of directories (or 3) is beyond */
#define SPECIAL_MIN_FILES 100    /* a special directory holds at least this many files */
#define SPECIAL_MIN_SHARE 0.005  /* and this share of all files */
#define SPECIAL_MAX 32
#define SPECIAL_MIN_DIRS 200     /* in a smaller tree, one directory is a bin's 0.5%: none */

/* The figures a profile reports beside its configuration. */
struct pfig {
	uint64_t files, dirs, bytes, hardlinks, symlinks, empty_dirs;
	struct profile_size_fit size;
	double fpd_law_diff;      /* largest bin difference, the fitted law against the source */
	unsigned fpd_bins;
	double ext_tail_share;
	uint32_t next;
	uint32_t nsbe;
	double age_days_median, age_days_p90;
	double layout_score;
	int have_layout;
	uint32_t top_dir_files[10], top_dir_depth[10];
	unsigned ntop;
	uint64_t max_subdirs;
	double mean_subdirs_nonleaf, leaf_share;
};

static double floor_cdf(const void *ctx, double t)
{
	return size_model_cdf(ctx, t + 1.0);
}

/* q[0..np-1] at u = i / (np - 1) of sorted v[0..n-1], nearest rank */
static void quantiles(const uint64_t *v, uint64_t n, uint64_t *q, unsigned np)
{
	for (unsigned i = 0; i < np; i++)
		q[i] = v[(uint64_t)llround((double)i * (double)(n - 1) / (np - 1))];
}

/* File sizes: the fitted hybrid, the quantile table (unless parametric), K-S of both. */
static int profile_sizes(const uint64_t *sorted, uint64_t n, struct params *p, struct pfig *f,
			 int parametric)
{
	struct size_model sm;
	unsigned np = n < SIZEQ_POINTS ? (unsigned)n : SIZEQ_POINTS;
	int ret;

	ret = profile_fit_sizes(sorted, n, &f->size);
	if (ret)
		return ret;
	p->size_mu = f->size.mu;
	p->size_sigma = f->size.sigma;
	p->size_tail_weight = f->size.tail_weight;
	p->size_tail_xm = (uint64_t)fmax(1, llround(f->size.xm));
	p->size_tail_shape = f->size.shape;
	if (sorted[n - 1] > p->size_max)
		p->size_max = sorted[n - 1];
	if (size_model_init(&sm, p->size_mu, p->size_sigma, p->size_tail_weight,
			    (double)p->size_tail_xm, p->size_tail_shape, (double)p->size_max) == 0)
		f->size.ks_parametric = ks_d_discrete(sorted, n, floor_cdf, &sm);
	else
		f->size.ks_parametric = 1;
	quantiles(sorted, n, p->tab.size_q, np);
	p->tab.nsize_q = np;
	size_model_init_table(&sm, p->tab.size_q, np, (double)p->size_max);
	f->size.ks_empirical = ks_d_discrete(sorted, n, floor_cdf, &sm);
	if (parametric)
		p->tab.nsize_q = 0;
	return 0;
}

/*
 * The special directories: the fullest leaves (at least SPECIAL_MIN_FILES
 * files and SPECIAL_MIN_SHARE of all, at most SPECIAL_MAX; leaves, as the
 * model's special directories are; none in a tree of fewer than
 * SPECIAL_MIN_DIRS directories, where the files-per-directory table's
 * tail holds them better),
 * while the others keep at least half of the files.  The tables of the
 * regular tree leave them and their files out.  0 or -ENOMEM.
 */
static int profile_special(struct pstate *s, struct params *p)
{
	const struct mstate *m = &s->m;
	uint32_t top[SPECIAL_MAX], ntop = 0;
	uint64_t min = (uint64_t)fmax(SPECIAL_MIN_FILES, ceil(SPECIAL_MIN_SHARE * (double)m->nfiles));

	s->special = calloc(m->ndirs, 1);
	if (!s->special)
		return -ENOMEM;
	for (uint32_t j = 1; j < m->ndirs && m->ndirs >= SPECIAL_MIN_DIRS; j++) {
		uint32_t at;

		if (m->dnfiles[j] < min || m->ddepth[j] > 255 || s->nsub[j] ||
		    (ntop == SPECIAL_MAX && m->dnfiles[j] <= m->dnfiles[top[ntop - 1]]))
			continue;
		at = ntop < SPECIAL_MAX ? ntop++ : SPECIAL_MAX - 1;
		for (; at > 0 && m->dnfiles[top[at - 1]] < m->dnfiles[j]; at--)
			top[at] = top[at - 1];
		top[at] = j;
	}
	for (uint32_t i = 0; i < ntop; i++) {
		uint32_t j = top[i];

		if (2 * (s->special_files + m->dnfiles[j]) > m->nfiles)
			break;
		s->special[j] = 1;
		s->special_files += m->dnfiles[j];
		p->tab.special_files[s->nspecial] = m->dnfiles[j];
		p->tab.special_depth[s->nspecial++] = (uint8_t)m->ddepth[j];
	}
	p->tab.nspecial = s->nspecial;
	return 0;
}

/* Files and directories by depth, the Poisson mean of file depths (the regular tree's). */
static void profile_depths(const struct pstate *s, struct params *p)
{
	const struct mstate *m = &s->m;
	uint64_t fd[TAB_DEPTH_MAX] = { 0 }, dd[TAB_DEPTH_MAX] = { 0 };
	uint64_t nf = m->nfiles - s->special_files, nd = m->ndirs - s->nspecial;
	unsigned hf = 0, hd = 0;
	double sum = 0;

	for (uint64_t k = 0; k < m->nfiles; k++) {
		unsigned d = m->depth[k] < TAB_DEPTH_MAX ? m->depth[k] : TAB_DEPTH_MAX - 1;

		if (s->special[m->dir[k]])
			continue;
		fd[d]++;
		hf = d > hf ? d : hf;
		sum += m->depth[k];
	}
	for (uint32_t j = 0; j < m->ndirs; j++) {
		unsigned d = m->ddepth[j] < TAB_DEPTH_MAX ? m->ddepth[j] : TAB_DEPTH_MAX - 1;

		if (s->special[j])
			continue;
		dd[d]++;
		hd = d > hd ? d : hd;
	}
	p->depth_lambda = sum > 0 ? sum / (double)nf : 0.01;
	p->tab.ndepth_files = hf + 1;
	for (unsigned d = 0; d <= hf; d++)
		p->tab.depth_files[d] = (double)fd[d] / (double)nf;
	p->tab.ndepth_dirs = hd + 1;
	for (unsigned d = 0; d <= hd; d++)
		p->tab.depth_dirs[d] = (double)dd[d] / (double)nd;
}

/* Files per directory: the bins (a table), the law's fit, empty and largest directories. */
static int profile_fpd(const struct pstate *s, struct params *p, struct pfig *f)
{
	const struct mstate *m = &s->m;
	uint64_t *cnt = calloc(TAB_FPD_MAX, sizeof(*cnt)), beyond;
	uint32_t nd = m->ndirs - s->nspecial;
	unsigned maxbin = FPD_MIN_BIN;
	double lawp[TAB_FPD_MAX], c, k;

	if (!cnt)
		return -ENOMEM;
	/* the bins reach far enough that the tail holds at most FPD_TAIL of directories */
	for (;;) {
		beyond = 0;
		for (uint32_t j = 0; j < m->ndirs; j++)
			beyond += m->dnfiles[j] > maxbin && !s->special[j];
		if ((double)beyond <= FPD_TAIL * nd || beyond <= 3 || maxbin >= TAB_FPD_MAX - 2)
			break;
		maxbin = maxbin * 2 > TAB_FPD_MAX - 2 ? TAB_FPD_MAX - 2 : maxbin * 2;
	}
	for (uint32_t j = 0; j < m->ndirs; j++) {
		uint32_t n = m->dnfiles[j];

		cnt[n > maxbin ? maxbin + 1 : n] += !s->special[j];
		f->empty_dirs += n == 0 && s->nsub[j] == 0;
		/* the ten fullest directories, their counts and depths (never a name) */
		unsigned at = f->ntop < 10 ? f->ntop++ : 9;

		if (at == 9 && f->ntop == 10 && n <= f->top_dir_files[9])
			continue;
		while (at > 0 && f->top_dir_files[at - 1] < n) {
			f->top_dir_files[at] = f->top_dir_files[at - 1];
			f->top_dir_depth[at] = f->top_dir_depth[at - 1];
			at--;
		}
		f->top_dir_files[at] = n;
		f->top_dir_depth[at] = m->ddepth[j];
	}
	p->fpd_max_bin = maxbin;
	p->tab.nfpd = maxbin + 2;
	for (unsigned b = 0; b < maxbin + 2; b++)
		p->tab.fpd[b] = (double)cnt[b] / (double)nd;
	p->fpd_empty_share = p->tab.fpd[0];
	p->empty_dir_share = fmin((double)f->empty_dirs / (double)m->ndirs, 0.999);
	if (p->fpd_empty_share >= 1)
		p->fpd_empty_share = 0.999;
	if (profile_fit_fpd(cnt, maxbin, p->fpd_empty_share, &c, &k) == 0) {
		p->fpd_offset = c;
		p->fpd_degree = k;
	}
	f->fpd_bins = maxbin + 2;
	/* the law with the source's empty share, where its bins leave room */
	if (fpd_probs(p->fpd_empty_share, p->fpd_offset, p->fpd_degree, maxbin, lawp) == 0)
		for (unsigned b = 0; b < maxbin + 2; b++)
			f->fpd_law_diff = fmax(f->fpd_law_diff, fabs(lawp[b] - p->tab.fpd[b]));
	else
		f->fpd_law_diff = NAN;
	p->files_per_dir = (double)(m->nfiles - s->special_files) / (double)nd;
	free(cnt);
	return 0;
}

/* An extension a profile may name: printable, no blank, ':', '/', '.' or '#', short. */
static int ext_nameable(const char *e)
{
	size_t len = strlen(e);

	if (len >= TAB_EXT_LEN)
		return 0;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)e[i] <= ' ' || strchr(":/.#*", e[i]) || e[i] == 0x7f)
			return 0;
	return 1;
}

static int cmp_ext_desc(const void *a, const void *b, void *ctx)
{
	const struct mext *t = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	if (t->files[x] != t->files[y])
		return t->files[x] < t->files[y] ? 1 : -1;
	return strcmp(t->name[x], t->name[y]);
}

/* The commonest extensions and their shares, the rest as the tail. */
static int profile_exts(const struct mstate *m, struct params *p, struct pfig *f, size_t **order_out)
{
	const struct mext *t = &m->ext_tab;
	size_t *order = malloc((t->n ? t->n : 1) * sizeof(*order));
	double used = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		order[i] = i;
	qsort_r(order, t->n, sizeof(*order), cmp_ext_desc, (void *)t);
	for (size_t i = 0; i < t->n && p->tab.next < EXT_TOP; i++) {
		const char *e = t->name[order[i]];
		uint32_t k = p->tab.next;

		if ((e[0] && t->files[order[i]] < EXT_MIN_FILES) || !ext_nameable(e))
			continue;
		snprintf(p->tab.ext_name[k], TAB_EXT_LEN, "%s", e);
		p->tab.ext_share[k] = (double)t->files[order[i]] / (double)m->nfiles;
		used += p->tab.ext_share[k];
		p->tab.next++;
	}
	f->next = p->tab.next;
	f->ext_tail_share = fmax(0, 1 - used);
	*order_out = order;
	return 0;
}

/*
 * Sizes by extension: every extension ext_shares names (the same walk and
 * limits, "" for none among them) with its own quantiles, "*" the rest, so
 * that a rare one (two .amd64 files of 1 KB and 413 KB) keeps its sizes
 * instead of taking those of everything else.
 */
static int profile_sbe(const struct mstate *m, const size_t *order, struct params *p)
{
	const struct mext *t = &m->ext_tab;
	int32_t *cls = malloc((t->n ? t->n : 1) * sizeof(*cls));
	uint64_t *start = NULL, *v = NULL, nc = 0;
	int ret = -ENOMEM;

	if (!cls)
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++)
		cls[i] = -1;
	for (size_t i = 0; i < t->n && nc < EXT_TOP && nc + 1 < TAB_SBE_MAX; i++) {
		const char *e = t->name[order[i]];

		if ((e[0] && t->files[order[i]] < SBE_MIN_FILES) || !ext_nameable(e))
			continue;
		snprintf(p->tab.sbe_name[nc], TAB_EXT_LEN, "%s", e);
		cls[order[i]] = (int32_t)nc++;
	}
	snprintf(p->tab.sbe_name[nc], TAB_EXT_LEN, "*");
	nc++;
	start = calloc(nc + 1, sizeof(*start));
	v = malloc(m->nfiles * sizeof(*v));
	if (!start || !v)
		goto out_free;
	for (uint64_t k = 0; k < m->nfiles; k++)
		start[(cls[m->ext[k]] < 0 ? nc - 1 : (uint64_t)cls[m->ext[k]]) + 1]++;
	for (uint64_t c = 0; c < nc; c++)
		start[c + 1] += start[c];
	{
		uint64_t *fill = calloc(nc, sizeof(*fill));

		if (!fill)
			goto out_free;
		for (uint64_t k = 0; k < m->nfiles; k++) {
			uint64_t c = cls[m->ext[k]] < 0 ? nc - 1 : (uint64_t)cls[m->ext[k]];

			v[start[c] + fill[c]++] = m->size[k];
		}
		free(fill);
	}
	p->tab.nsbe = 0;
	for (uint64_t c = 0; c < nc; c++) {
		uint64_t len = start[c + 1] - start[c];

		if (!len)
			continue;
		if (array_sort_u64(v + start[c], len))
			goto out_free;
		if (p->tab.nsbe != c)
			memcpy(p->tab.sbe_name[p->tab.nsbe], p->tab.sbe_name[c], TAB_EXT_LEN);
		quantiles(v + start[c], len, p->tab.sbe_q[p->tab.nsbe], TAB_SBE_Q);
		p->tab.nsbe++;
	}
	ret = 0;
out_free:
	FREE_ALL(cls, start, v);
	return ret;
}

/* Ages (days before the newest mtime): a lognormal by maximum likelihood over the positive ones. */
static int profile_ages(const struct mstate *m, struct params *p, struct pfig *f)
{
	uint64_t *age = malloc(m->nfiles * sizeof(*age));
	double s1 = 0, s2 = 0;
	uint64_t npos = 0;

	if (!age)
		return -ENOMEM;
	for (uint64_t k = 0; k < m->nfiles; k++) {
		age[k] = (uint64_t)(m->max_mtime - m->mtime[k]); /* max_mtime is the largest */
		if (age[k] > 0) {
			double l = log((double)age[k] / 86400.0);

			s1 += l;
			s2 += l * l;
			npos++;
		}
	}
	if (array_sort_u64(age, m->nfiles)) {
		free(age);
		return -ENOMEM;
	}
	f->age_days_median = (double)age[(m->nfiles - 1) / 2] / 86400.0;
	f->age_days_p90 = (double)age[(uint64_t)((double)(m->nfiles - 1) * 0.9)] / 86400.0;
	p->time_ref = m->max_mtime;
	if (npos >= 2) {
		double mu = s1 / (double)npos, var = s2 / (double)npos - mu * mu;

		p->age_median_days = exp(mu);
		p->age_sigma = var > 0 ? sqrt(var) : 0;
		p->age_max_days = fmax((double)age[m->nfiles - 1] / 86400.0, p->age_median_days);
	}
	free(age);
	return 0;
}

/*
 * Names by length in bytes: directories, files and links with an
 * extension, the others; a table each, up to its longest.
 */
static void profile_name_lengths(const struct pstate *s, struct params *p)
{
	unsigned top = 0, top_ext = 0, top_dir = 0;
	uint64_t next = 0, ndir = 0, nplain;

	for (unsigned i = 0; i < PROFILE_NAME_LEN && i < TAB_NAMELEN_MAX; i++) {
		if (s->name_len[i] > s->name_len_ext[i] + s->name_len_dir[i])
			top = i;
		if (s->name_len_ext[i])
			top_ext = i;
		if (s->name_len_dir[i])
			top_dir = i;
		next += s->name_len_ext[i];
		ndir += s->name_len_dir[i];
	}
	nplain = s->names - next - ndir;
	p->tab.nname_len = nplain ? top + 1 : 0;
	for (unsigned i = 0; i < p->tab.nname_len; i++)
		p->tab.name_len[i] = (double)(s->name_len[i] - s->name_len_ext[i] -
					      s->name_len_dir[i]) / (double)nplain;
	p->tab.nname_dir_len = ndir ? top_dir + 1 : 0;
	for (unsigned i = 0; i < p->tab.nname_dir_len; i++)
		p->tab.name_dir_len[i] = (double)s->name_len_dir[i] / (double)ndir;
	p->tab.nname_ext_len = next ? top_ext + 1 : 0;
	for (unsigned i = 0; i < p->tab.nname_ext_len; i++)
		p->tab.name_ext_len[i] = (double)s->name_len_ext[i] / (double)next;
}

/* Directories by their subdirectory count (sparse: the counts met); 0 or -ENOMEM. */
static int profile_subdirs(const struct pstate *s, struct params *p)
{
	const struct mstate *m = &s->m;
	uint64_t *v = malloc(m->ndirs * sizeof(*v));
	uint32_t n = 0, nd = m->ndirs - s->nspecial;

	if (!v)
		return -ENOMEM;
	/* the regular tree: its directories, their subdirectories but the special ones */
	for (uint32_t j = 0; j < m->ndirs; j++)
		v[j] = s->nsub[j];
	for (uint32_t j = 1; j < m->ndirs; j++)
		v[s->dparent[j]] -= s->special[j];
	for (uint32_t j = 0, k = 0; j < m->ndirs; j++)
		if (!s->special[j])
			v[k++] = v[j];
	if (array_sort_u64(v, nd)) {
		free(v);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < nd; j++) {
		/* past the table's room, the largest counts share its last entry */
		if (!n || (v[j] != p->tab.subdirs_n[n - 1] && n < TAB_SUBDIRS_MAX)) {
			p->tab.subdirs_n[n] = (uint32_t)v[j];
			p->tab.subdirs_share[n++] = 0;
		}
		p->tab.subdirs_share[n - 1] += 1.0 / (double)nd;
	}
	p->tab.nsubdirs = n;
	/* leaves by depth (after profile_depths()) */
	for (unsigned d = 0; d < p->tab.ndepth_dirs; d++)
		p->tab.depth_leaves[d] = 0;
	for (uint32_t j = 0; j < m->ndirs; j++) {
		unsigned d = m->ddepth[j] < TAB_DEPTH_MAX ? m->ddepth[j] : TAB_DEPTH_MAX - 1;

		p->tab.depth_leaves[d] += s->nsub[j] == 0 && !s->special[j];
	}
	p->tab.ndepth_leaves = p->tab.ndepth_fileless = p->tab.ndepth_dirs;
	for (unsigned d = 0; d < p->tab.ndepth_dirs; d++)
		p->tab.depth_fileless[d] = 0;
	for (uint32_t j = 0; j < m->ndirs; j++)
		p->tab.depth_fileless[MIN(m->ddepth[j], TAB_DEPTH_MAX - 1)] += m->dnfiles[j] == 0;
	for (unsigned d = 0; d < p->tab.ndepth_dirs; d++) {
		double at = p->tab.depth_dirs[d] * (double)nd;

		p->tab.depth_leaves[d] = at > 0 ? fmin(1, p->tab.depth_leaves[d] / at) : 1;
		p->tab.depth_fileless[d] = at > 0 ? fmin(1, p->tab.depth_fileless[d] / at) : 0;
	}
	free(v);
	return 0;
}

/* Names, links, owners and modes, subdirectories, the layout. */
static void profile_rest(const struct pstate *s, struct params *p, struct pfig *f)
{
	const struct mstate *m = &s->m;
	uint64_t nonleaf = 0, subs = 0, nfiles = m->nfiles;

	if (s->names) {
		p->name_space_share = (double)s->spaces / (double)s->names;
		p->name_utf8_share = (double)s->utf8 / (double)s->names;
		p->name_upper_share = (double)s->upper / (double)s->names;
		p->name_caps_share = (double)s->caps / (double)s->names;
		p->name_numeric_share = (double)s->numeric / (double)s->names;
		p->name_version_share = (double)s->versioned / (double)s->names;
		profile_name_lengths(s, p);
	}
	p->hardlink_share = fmin(1, (double)m->hardlinks / (double)nfiles);
	p->symlink_share = fmin(1, (double)m->symlinks / (double)nfiles);
	if (m->symlinks) {
		p->symlink_dir_share = (double)s->sym_to_dir / (double)m->symlinks;
		p->symlink_relative_share = (double)s->sym_relative / (double)m->symlinks;
		p->symlink_dangling_share = (double)s->sym_dangling / (double)m->symlinks;
	}
	if (s->entries) {
		p->owner_root_share = (double)s->root_owned / (double)s->entries;
	}
	if (s->moded)
		p->perm_private_share = (double)s->private_mode / (double)s->moded;
	p->owner_users = s->nuid;
	for (uint32_t j = 0; j < m->ndirs; j++) {
		nonleaf += s->nsub[j] > 0;
		subs += s->nsub[j];
		if (s->nsub[j] > f->max_subdirs)
			f->max_subdirs = s->nsub[j];
	}
	f->leaf_share = (double)(m->ndirs - nonleaf) / (double)m->ndirs;
	f->mean_subdirs_nonleaf = nonleaf ? (double)subs / (double)nonleaf : 0;
	f->have_layout = m->lay.files > 0;
	f->layout_score = measure_layout_score(&m->lay);
	if (f->have_layout)
		p->layout_score = f->layout_score > 0 ? f->layout_score : 1e-3;
}

static void profile_ext_content(const struct content_stats *st, struct param_tables *t);
static int extc_name_ok(const char *e);

/*
 * Without --content: ext_content from imprint's figures of real files
 * (content_ext_default()) for the source's extensions that have them,
 * most bytes first; dup_file_share the share those figures and
 * CONTENT_OTHER_DUP_FILE for the other files make of all.  0 or -ENOMEM.
 */
static int profile_ext_defaults(const struct pstate *s, struct params *p)
{
	const struct mstate *m = &s->m;
	struct param_tables *t = &p->tab;
	uint64_t *bytes = calloc(m->ext_tab.n ? m->ext_tab.n : 1, sizeof(*bytes));
	double copies = 0;
	uint64_t listed = 0;

	if (!bytes)
		return -ENOMEM;
	for (uint64_t k = 0; k < m->nfiles; k++)
		bytes[m->ext[k]] += m->size[k];
	t->nextc = 0;
	while (t->nextc < TAB_EXTC_MAX) {
		size_t best = m->ext_tab.n;

		for (size_t x = 0; x < m->ext_tab.n; x++)
			if (bytes[x] && extc_name_ok(m->ext_tab.name[x]) &&
			    content_ext_default(m->ext_tab.name[x]) &&
			    (best == m->ext_tab.n || bytes[x] > bytes[best]))
				best = x;
		if (best == m->ext_tab.n)
			break;
		const struct content_ext_default *d = content_ext_default(m->ext_tab.name[best]);
		double *f = t->extc[t->nextc];

		snprintf(t->extc_name[t->nextc], TAB_EXT_LEN, "%s", m->ext_tab.name[best]);
		f[0] = d->ratio;
		f[1] = d->dup_file;
		f[2] = d->dup_block;
		f[3] = d->zero_block;
		f[4] = d->text;
		f[TAB_EXTC_WORDS] = 0; /* not measured: the format's own vocabulary */
		copies += d->dup_file * (double)m->ext_tab.files[best];
		listed += m->ext_tab.files[best];
		t->nextc++;
		bytes[best] = 0;
	}
	if (m->nfiles) {
		copies += CONTENT_OTHER_DUP_FILE * (double)(m->nfiles - listed);
		p->dup_file_share = round(copies / (double)m->nfiles * 1e4) / 1e4;
	}
	free(bytes);
	return 0;
}

/* --content: compressibility, duplicates and zero blocks as the content model's parameters. */
static void profile_content(const struct content_stats *st, struct params *p)
{
	const struct content_group_stats *bin = &st->group[CONTENT_BINARY];
	const struct content_group_stats *exe = &st->group[CONTENT_EXEC];
	double r;

	p->dup_file_share = content_dup_file_share(&st->all);
	if (bin->sampled_bytes) {
		r = content_ratio_zlib(bin);
		p->compress_ratio = r < 1 ? 1 : r > 5 ? 5 : r;
	}
	if (exe->sampled_bytes) {
		r = content_ratio_zlib(exe);
		p->compress_ratio_exec = r < 1.5 ? 1.5 : r > 2.6 ? 2.6 : r;
	}
	if (bin->blocks) {
		p->zero_block_share = content_zero_block_share(bin);
		p->dup_block_share = fmin(content_dup_block_share(bin), 1 - p->zero_block_share);
	}
	profile_ext_content(st, &p->tab);
}

/* An extension a table can hold (tables.c's rule): short, no blank, ':', '/', '#' or '.'. */
static int extc_name_ok(const char *e)
{
	size_t n = strlen(e);

	if (n >= TAB_EXT_LEN)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)e[i] <= ' ' || strchr(":/#.", e[i]))
			return 0;
	return 1;
}

/* ext_content: the figures of the extensions holding the most bytes (files of 1 byte or more). */
static void profile_ext_content(const struct content_stats *st, struct param_tables *t)
{
	size_t idx[TAB_EXTC_MAX * 2], n = content_ext_top(st, idx, TAB_EXTC_MAX * 2);

	t->nextc = 0;
	for (size_t k = 0; k < n && t->nextc < TAB_EXTC_MAX; k++) {
		const struct content_ext_stats *e = &st->ext[idx[k]];
		double *f = t->extc[t->nextc], r = content_ratio_zlib(&e->g);

		if (!e->g.sampled_bytes || !extc_name_ok(e->ext))
			continue;
		f[0] = r < 1 ? 1 : r > 1000 ? 1000 : r;
		f[1] = content_dup_file_share(&e->g);
		f[2] = fmin(1, e->g.blocks ? (double)e->g.dup_blocks / (double)e->g.blocks : 0);
		f[3] = content_zero_block_share(&e->g);
		f[4] = e->distinct_files ? (double)e->text_files / (double)e->distinct_files : 0;
		f[TAB_EXTC_WORDS] = fmin(512, content_words_per_kib(e));
		for (unsigned i = 0; i < TAB_EXTC_F; i++) /* as printed, so that a reload is the same */
			f[i] = round(f[i] * 1e4) / 1e4;
		f[0] = fmax(1, f[0]);
		snprintf(t->extc_name[t->nextc], TAB_EXT_LEN, "%s", e->ext);
		t->nextc++;
	}
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* ---- the figures: the JSON's, then the header's own ------------------------ */

/* The metadata's figures (profile_meta.c's parameters and fits). */
static void meta_figs(const struct pstate *s, const struct pmeta *pm, const struct params *p,
		      struct figs *fs)
{
	const struct mstate *m = &s->m;

	figs_open(fs, FIG_OBJECT, "metadata");
	figs_u64(fs, "modes_files", pm->nmodes_files);
	figs_u64(fs, "modes_dirs", pm->nmodes_dirs);
	figs_u64(fs, "owner_users", p->owner_users);
	figs_double(fs, "owner_root_share", p->owner_root_share);
	figs_double(fs, "age_ks_d_lognormal", pm->age_ks_law);
	figs_double(fs, "age_ks_d_table", pm->age_ks_table);
	figs_double(fs, "frag_file_share", pm->frag_share);
	figs_double(fs, "frag_extents", pm->frag_extents);
	figs_double(fs, "free_small_share", pm->free_share_small);
	if (isnan(pm->free_shape))
		figs_null(fs, "free_gap_shape");
	else
		figs_double(fs, "free_gap_shape", pm->free_shape);
	if (pm->fill > 0)
		figs_double(fs, "fill_share", pm->fill);
	else
		figs_null(fs, "fill_share");
	figs_double(fs, "sparse_file_share", p->sparse_file_share);
	figs_double(fs, "sparse_hole_share", p->sparse_hole_share);

	figs_text_double(fs, "mode_files_left", pm->mode_files_left);
	figs_text_double(fs, "mode_dirs_left", pm->mode_dirs_left);
	figs_text_double(fs, "age_median_days", p->age_median_days);
	figs_text_double(fs, "age_sigma", p->age_sigma);
	figs_text_u64(fs, "age_points", PROFILE_AGEQ_POINTS);
	figs_text_u64(fs, "atime_table", p->tab.natime_q);
	figs_text_u64(fs, "layout_files", m->lay.files);
	figs_text_u64(fs, "have_free", (uint64_t)s->have_free);
	if (s->have_free) {
		figs_text_u64(fs, "free_blocks", s->fr.free_blocks);
		figs_text_u64(fs, "total_blocks", s->total_bytes / fsread_geometry(m->fs)->block_size);
		figs_text_u64(fs, "free_extents", s->fr.extents);
	}
	/* as measured: NaN and 0 too, which the JSON leaves null */
	figs_text_double(fs, "free_shape", pm->free_shape);
	figs_text_double(fs, "fill", pm->fill);
	figs_text_u64(fs, "sparse_files", m->sparse_files);
	figs_text_u64(fs, "sparse_eligible", pm->sparse_eligible);
	figs_end(fs);
}

/* What --content measured (text only: the configuration's ext_content holds it). */
static void content_figs(const struct content_stats *st, unsigned nextc, struct figs *fs)
{
	const struct content_group_stats *bin = &st->group[CONTENT_BINARY];

	figs_text_open(fs, FIG_OBJECT, "content");
	figs_double(fs, "dup_file_share", content_dup_file_share(&st->all));
	figs_double(fs, "zlib", content_ratio_zlib(bin));
	figs_double(fs, "zstd", content_ratio_zstd(bin));
	figs_double(fs, "dup_block_share", content_dup_block_share(bin));
	figs_double(fs, "zero_block_share", content_zero_block_share(bin));
	figs_double(fs, "exec_zlib", content_ratio_zlib(&st->group[CONTENT_EXEC]));
	figs_u64(fs, "extensions", nextc);
	figs_open(fs, FIG_ARRAY, "types");
	for (size_t i = 0; i < st->nmime && i < 8; i++) {
		figs_open(fs, FIG_OBJECT, NULL);
		figs_string(fs, "type", st->mime[i].type);
		figs_double(fs, "share", st->all.files ?
			    (double)st->mime[i].files / (double)st->all.files : 0);
		figs_end(fs);
	}
	figs_end(fs);
	figs_end(fs);
}

/* Every figure of the profile, in the JSON's order, the header's own after them. */
/* The change from OLD (profile --since): its counts, and the gen_* rates p took from it. */
static void change_figs(const struct change_model *cm, const struct params *p, struct figs *fs)
{
	const struct { const char *key; uint64_t n; } counts[] = {
		{ "files_before", cm->files_before }, { "unchanged", cm->unchanged },
		{ "metadata_only", cm->meta }, { "metadata_with_mode", cm->meta_mode },
		{ "modified", cm->appended + cm->truncated + cm->edited + cm->rewritten },
		{ "appended", cm->appended }, { "truncated", cm->truncated },
		{ "edited_in_place", cm->edited }, { "rewritten", cm->rewritten },
		{ "renamed", cm->renamed }, { "moved", cm->moved }, { "deleted", cm->deleted },
		{ "created", cm->created }, { "dirs_before", cm->dirs_before },
		{ "dirs_created", cm->dirs_created }, { "dirs_removed", cm->dirs_removed },
	};
	const struct { const char *key; double v; } rates[] = {
		{ "gen_modify_share", p->gen_modify_share }, { "gen_delete_share", p->gen_delete_share },
		{ "gen_create_share", p->gen_create_share }, { "gen_rename_share", p->gen_rename_share },
		{ "gen_move_share", p->gen_move_share }, { "gen_meta_share", p->gen_meta_share },
		{ "gen_mode_share", p->gen_mode_share }, { "gen_append_share", p->gen_append_share },
		{ "gen_truncate_share", p->gen_truncate_share },
		{ "gen_edit_block_share", p->gen_edit_block_share },
		{ "gen_dir_create_share", p->gen_dir_create_share },
		{ "gen_dir_remove_share", p->gen_dir_remove_share },
		{ "gen_interval_days", p->gen_interval_days },
	};

	figs_open(fs, FIG_OBJECT, "change");
	figs_string(fs, "old", cm->old);
	figs_string(fs, "new", cm->new_);
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		figs_u64(fs, counts[i].key, counts[i].n);
	figs_open(fs, FIG_OBJECT, "rates");
	for (size_t i = 0; i < ARRAY_SIZE(rates); i++)
		figs_double(fs, rates[i].key, rates[i].v);
	figs_end(fs);
	figs_end(fs);
}

/* The change's comment lines in a profile's text. */
static const struct fig_line change_lines[] = {
	{ .fmt = "# change model (profile --since): from '{change.old}' to '{change.new}',"
		 " one generation (gen_*)\n"
		 "# of {change.files_before} files: {change.unchanged} unchanged,"
		 " {change.metadata_only} metadata only ({change.metadata_with_mode} with the mode),"
		 " {change.modified} modified ({change.appended} appended, {change.truncated}"
		 " truncated, {change.edited_in_place} edited in place, {change.rewritten}"
		 " rewritten), {change.renamed} renamed, {change.moved} moved, {change.deleted}"
		 " deleted; {change.created} created\n"
		 "# of {change.dirs_before} directories: {change.dirs_created} created,"
		 " {change.dirs_removed} removed\n\n" },
};

static void profile_figs(const struct pstate *s, const struct pfig *f, const struct pmeta *pm,
			 const struct params *p, const char *kind, const struct profile_opts *o,
			 struct figs *fs)
{
	const struct { const char *key; uint64_t n; } nm[] = {
		{ "upper_share", s->upper }, { "caps_share", s->caps }, { "numeric_share", s->numeric },
		{ "versioned_share", s->versioned }, { "space_share", s->spaces },
		{ "utf8_share", s->utf8 },
	};
	struct profile_name_fit nf;
	char when[64];
	time_t now = time(NULL);
	struct tm tm;

	figs_u64(fs, "files", f->files);
	figs_u64(fs, "directories", f->dirs);
	figs_u64(fs, "bytes", f->bytes);
	figs_u64(fs, "hardlinks", f->hardlinks);
	figs_u64(fs, "symlinks", f->symlinks);
	figs_open(fs, FIG_OBJECT, "file_sizes");
	figs_double(fs, "mu", f->size.mu);
	figs_double(fs, "sigma", f->size.sigma);
	figs_double(fs, "tail_weight", f->size.tail_weight);
	figs_u64(fs, "tail_xm", p->size_tail_xm);
	figs_double(fs, "tail_shape", f->size.shape);
	figs_double(fs, "ks_d_parametric", f->size.ks_parametric);
	figs_double(fs, "ks_d_empirical", f->size.ks_empirical);
	figs_end(fs);
	figs_open(fs, FIG_OBJECT, "files_per_dir");
	figs_u64(fs, "max_bin", f->fpd_bins - 2);
	figs_double(fs, "law_offset", p->fpd_offset);
	figs_double(fs, "law_degree", p->fpd_degree);
	figs_double(fs, "law_max_bin_diff", f->fpd_law_diff);
	figs_double(fs, "empty_share", p->fpd_empty_share);
	figs_u64(fs, "empty_dirs", f->empty_dirs);
	figs_end(fs);
	figs_u64(fs, "extensions_named", f->next);
	figs_double(fs, "extension_tail_share", f->ext_tail_share);
	figs_double(fs, "name_numeric_share", share(s->numeric, s->names));
	figs_double(fs, "name_versioned_share", share(s->versioned, s->names));
	figs_open(fs, FIG_OBJECT, "tree");
	figs_double(fs, "empty_dir_share", p->empty_dir_share);
	figs_double(fs, "leaf_share", f->leaf_share);
	figs_u64(fs, "max_subdirs", f->max_subdirs);
	figs_u64(fs, "special_dirs", s->nspecial);
	figs_u64(fs, "special_files", s->special_files);
	figs_end(fs);
	figs_open(fs, FIG_OBJECT, "names");
	figs_u64(fs, "count", s->names);
	for (size_t i = 0; i < ARRAY_SIZE(nm); i++)
		figs_double(fs, nm[i].key, share(nm[i].n, s->names));
	figs_end(fs);
	figs_double(fs, "age_median_days", f->age_days_median);
	if (f->have_layout)
		figs_double(fs, "layout_score", f->layout_score);
	meta_figs(s, pm, p, fs);
	if (s->change)
		change_figs(s->change, p, fs);
	if (o->json)
		return;

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	figs_text_string(fs, "kind", kind);
	figs_text_string(fs, "when", when);
	figs_text_string(fs, "version", o->version);
	figs_text_u64(fs, "size_points", SIZEQ_POINTS);
	figs_text_string(fs, "size_law_used",
			 o->parametric ? "the hybrid law (--parametric)" : "the table");
	figs_text_double(fs, "empty_dirs_share", (double)f->empty_dirs / (double)f->dirs);
	figs_text_double(fs, "mean_subdirs_nonleaf", f->mean_subdirs_nonleaf);
	figs_text_open(fs, FIG_ARRAY, "largest_dirs");
	for (unsigned i = 0; i < f->ntop; i++) {
		figs_open(fs, FIG_OBJECT, NULL);
		figs_u64(fs, "files", f->top_dir_files[i]);
		figs_u64(fs, "depth", f->top_dir_depth[i]);
		figs_end(fs);
	}
	figs_end(fs);
	figs_text_u64(fs, "ext_min_files", EXT_MIN_FILES);
	figs_text_u64(fs, "size_classes", p->tab.nsbe);
	figs_text_u64(fs, "subdir_counts", p->tab.nsubdirs);
	figs_text_u64(fs, "special_min_files", SPECIAL_MIN_FILES);
	figs_text_double(fs, "special_min_pct", 100 * SPECIAL_MIN_SHARE);
	figs_text_u64(fs, "special_min_dirs", SPECIAL_MIN_DIRS);
	profile_name_fit(s, p, &nf);
	figs_text_open(fs, FIG_OBJECT, "model_names");
	figs_u64(fs, "count", nf.n);
	figs_double(fs, "length_ks_d", nf.len_d);
	figs_double(fs, "upper_share", share(nf.upper, nf.n));
	figs_double(fs, "caps_share", share(nf.caps, nf.n));
	figs_double(fs, "numeric_share", share(nf.numeric, nf.n));
	figs_double(fs, "versioned_share", share(nf.versioned, nf.n));
	figs_end(fs);
	figs_text_double(fs, "age_p90_days", f->age_days_p90);
	figs_text_u64(fs, "fragmented_files", s->m.lay.fragmented);
	figs_text_u64(fs, "hole_blocks", s->m.hole_blocks);
	if (s->cst)
		content_figs(s->cst, p->tab.nextc, fs);
	figs_text_u64(fs, "ext_content", p->tab.nextc);
	figs_text_double(fs, "dup_file_share", p->dup_file_share);
	figs_text_double(fs, "other_dup_file", CONTENT_OTHER_DUP_FILE);
}

/* The header of the configuration. */
static const struct fig_line header_lines[] = {
	{ .fmt = "# imprint profile of {kind}, made {when} by imprint {version}\n"
		 "# it holds statistics only: no name, path or byte of the source (extensions aside)\n"
		 "# source: {files} files, {directories} directories, {bytes} bytes ({bytes:h}),"
		 " {hardlinks} hard links, {symlinks} symbolic links\n"
		 "# file sizes: hybrid lognormal + Pareto by maximum likelihood (mu {file_sizes.mu:.4g},"
		 " sigma {file_sizes.sigma:.4g}, tail {file_sizes.tail_weight:.3g} from"
		 " {file_sizes.tail_xm} bytes, shape {file_sizes.tail_shape:.4g}):"
		 " K-S D {file_sizes.ks_d_parametric:.4}\n"
		 "# file sizes: quantile table ({size_points} points): K-S D"
		 " {file_sizes.ks_d_empirical:.4}; used: {size_law_used}\n"
		 "# files by depth, directories by depth, files per directory"
		 " (0..{files_per_dir.max_bin}, then the tail): tables, exact; files per directory law"
		 " (c {files_per_dir.law_offset:.4g}, k {files_per_dir.law_degree:.4g}): largest bin"
		 " difference {files_per_dir.law_max_bin_diff:.4}\n"
		 "# directories: {empty_dirs_share:.4} empty (no file, no subdirectory),"
		 " {tree.leaf_share:.4} leaves; {mean_subdirs_nonleaf:.3g} subdirectories per"
		 " non-leaf, at most {tree.max_subdirs}\n"
		 "# largest directories (files@depth):" },
	{ .rows = "largest_dirs", .fmt = " {files}@{depth}" },
	{ .fmt = "\n# extensions: {extensions_named} named (each with >= {ext_min_files} files), the"
		 " tail holds {extension_tail_share:.4} of files; sizes by extension: {size_classes}"
		 " classes\n"
		 "# subdirectories per directory (subdirs_table, {subdir_counts} counts), leaves and"
		 " fileless directories by depth (depth_leaves, depth_fileless), empty directories"
		 " (empty_dir_share {tree.empty_dir_share:.4}): the tree is built and its files placed"
		 " to them, exact but for rounding\n"
		 "# special directories (special_dir_table: the fullest leaves, each >= {special_min_files}"
		 " files and {special_min_pct:.1}% of all, in trees of >= {special_min_dirs}"
		 " directories): {tree.special_dirs} holding {tree.special_files} files, exact (scaled"
		 " with the file count); the regular tree's tables leave them out\n"
		 "# names ({names.count}): with capitals {names.upper_share:.4}, stem in capitals"
		 " {names.caps_share:.4}, numeric {names.numeric_share:.4}, versioned (1.2, ~)"
		 " {names.versioned_share:.4}, spaces {names.space_share:.4}, non-ASCII"
		 " {names.utf8_share:.4}\n"
		 "# names the model makes ({model_names.count} drawn): lengths (name_lengths,"
		 " name_ext_lengths, name_dir_lengths) K-S D {model_names.length_ks_d:.4}; with capitals"
		 " {model_names.upper_share:.4}, stem in capitals {model_names.caps_share:.4}, numeric"
		 " {model_names.numeric_share:.4}, versioned {model_names.versioned_share:.4}\n"
		 "# ages: median {age_median_days:.1} days, 90% {age_p90_days:.1} days\n" },
	{ .when = "?layout_score",
	  .fmt = "# layout score {layout_score:.4} over {metadata.layout_files} files of 2+ blocks,"
		 " {fragmented_files} fragmented; {metadata.sparse_files} sparse files, {hole_blocks}"
		 " hole blocks\n" },
	{ .fmt = "# modes: {metadata.modes_files} distinct of files, {metadata.modes_dirs} of"
		 " directories (tables: mode_files, mode_dirs; beyond them {metadata.mode_files_left:.4}"
		 " and {metadata.mode_dirs_left:.4}); owners: {metadata.owner_users} users, root owns"
		 " {metadata.owner_root_share:.4} of the entries\n"
		 "# ages (days before the newest mtime): lognormal (median"
		 " {metadata.age_median_days:.4g}, sigma {metadata.age_sigma:.4g}): K-S D"
		 " {metadata.age_ks_d_lognormal:.4}; age table ({metadata.age_points} points): K-S D"
		 " {metadata.age_ks_d_table:.4}, used; atime_quantiles: " },
	{ .when = "metadata.atime_table",
	  .fmt = "where atime lies between mtime and the newest mtime\n" },
	{ .when = "!metadata.atime_table", .fmt = "none (every file is the newest)\n" },
	{ .when = "metadata.layout_files",
	  .fmt = "# fragmentation: {metadata.frag_file_share:.4} of the files of 2+ blocks fragmented,"
		 " {metadata.frag_extents:.3} extents each (frag_file_share, frag_extents)\n" },
	{ .when = "metadata.have_free",
	  .fmt = "# free space: {metadata.free_blocks} of {metadata.total_blocks} blocks in"
		 " {metadata.free_extents} extents, {metadata.free_small_share:.4} below 1 MiB"
		 " (free_frag_share), gap shape {metadata.free_shape:.3} (free_gap_shape); files fill"
		 " {metadata.fill:.4} of the capacity (fill_share)\n" },
	{ .when = "metadata.sparse_files",
	  .fmt = "# holes: {metadata.sparse_files} sparse files, {metadata.sparse_eligible} files of"
		 " 256 KiB or more the model may make sparse; {metadata.sparse_hole_share:.4} of the"
		 " sparse files' 64 KiB units are holes\n" },
	{ .when = "?content",
	  .fmt = "# content: whole-file duplicates {content.dup_file_share:.4} of files; other binary:"
		 " zlib {content.zlib:.3g}, zstd {content.zstd:.3g}, duplicate blocks"
		 " {content.dup_block_share:.4}, zero blocks {content.zero_block_share:.4}; executables:"
		 " zlib {content.exec_zlib:.3g} (the model holds 1..5 and 1.5..2.6)\n"
		 "# content by extension (ext_content: gzip -6 ratio, duplicate files, duplicate"
		 " blocks, zero blocks, text share, distinct words per KiB of the {content.extensions} extensions holding the"
		 " most bytes): clones make each extension's files to these\n"
		 "# types (libmagic):" },
	{ .when = "?content", .rows = "content.types", .fmt = " {type} {share:.3}" },
	{ .when = "?content", .fmt = "\n" },
	{ .when = "!?content ext_content",
	  .fmt = "# content by extension without --content: ext_content holds imprint's per-type"
		 " figures of real files (Debian: gzip -6 ratio, duplicate files, duplicate and zero"
		 " blocks, text share) for the {ext_content} extensions of the source that have them;"
		 " the other files are duplicates at the share of real files of other extensions"
		 " ({other_dup_file:.4}), dup_file_share {dup_file_share:.4} of all; profile --content"
		 " measures the source's own\n" },
	{ .when = "!?content !ext_content",
	  .fmt = "# content without --content: no extension of the source has imprint's per-type"
		 " figures; duplicate files at the share of real files of other extensions"
		 " (dup_file_share {dup_file_share:.4}); profile --content measures the source's own\n" },
	{ .fmt = "# source_files and source_bytes give the same count and bytes; --files, --used or"
		 " --size scale the tree\n\n" },
};

int profile_print(struct pstate *s, const char *kind, const struct profile_opts *o, FILE *out)
{
	struct mstate *m = &s->m;
	struct params *p = malloc(sizeof(*p));
	struct pfig f = { 0 };
	struct pmeta pm = { 0 };
	struct figs fs;
	uint64_t *sorted = malloc(m->nfiles * sizeof(*sorted));
	size_t *order = NULL;
	int ret = -ENOMEM;

	if (!p || !sorted)
		goto out_free;
	params_init(p);
	memcpy(sorted, m->size, m->nfiles * sizeof(*sorted));
	if (array_sort_u64(sorted, m->nfiles))
		goto out_free;
	f.files = m->nfiles;
	f.dirs = m->ndirs;
	f.bytes = m->bytes;
	f.hardlinks = m->hardlinks;
	f.symlinks = m->symlinks;
	ret = profile_sizes(sorted, m->nfiles, p, &f, o->parametric);
	if (!ret)
		ret = profile_special(s, p);
	if (!ret)
		ret = profile_fpd(s, p, &f);
	if (!ret)
		ret = profile_exts(m, p, &f, &order);
	if (!ret)
		ret = profile_sbe(m, order, p);
	if (!ret)
		ret = profile_ages(m, p, &f);
	if (ret)
		goto out_free;
	profile_depths(s, p);
	ret = profile_subdirs(s, p);
	if (ret)
		goto out_free;
	profile_rest(s, p, &f);
	ret = profile_meta(s, p, &pm);
	if (ret)
		goto out_free;
	if (s->cst)
		profile_content(s->cst, p);
	else if ((ret = profile_ext_defaults(s, p)))
		goto out_free;
	p->tab.source_files = m->nfiles;
	p->tab.source_bytes = m->bytes;
	p->size_max = p->size_max < sorted[m->nfiles - 1] ? sorted[m->nfiles - 1] : p->size_max;
	if (s->change)
		change_model_apply(s->change, p);
	figs_init(&fs);
	profile_figs(s, &f, &pm, p, kind, o, &fs);
	if (o->json) {
		struct json_object *j = figs_json(&fs, NULL);

		ret = j ? 0 : fs.err ? fs.err : -ENOMEM;
		if (j)
			fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY));
		json_object_put(j);
	} else {
		ret = figs_print(&fs, NULL, header_lines, ARRAY_SIZE(header_lines),
				 FMT_BYTES_DIGITS(2), out);
		if (!ret && s->change)
			ret = figs_print(&fs, NULL, change_lines, ARRAY_SIZE(change_lines),
					 FMT_BYTES_DIGITS(2), out);
		if (!ret)
			params_print_config(p, out);
	}
	figs_release(&fs);
	if (!ret && ferror(out))
		ret = -EIO;
out_free:
	FREE_ALL(p, sorted, order);
	return ret;
}
