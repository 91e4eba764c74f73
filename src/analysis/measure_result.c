/* measure_result.c - the measured figures from the tallies, against the model when there is one */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "content/sparse.h"
#include "model/dist.h"
#include "model/ext.h"
#include "analysis/measure_int.h"
#include "util/array.h"

/* ---- what is reported ------------------------------------------------ */

static int cmp_ext_files(const void *a, const void *b, void *ctx)
{
	const struct mext *t = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t fx = t->files[x], fy = t->files[y];

	if (fx != fy)
		return (fx < fy) - (fx > fy);
	return strcmp(t->name[x], t->name[y]);
}

static int cmp_special(const void *a, const void *b, void *ctx)
{
	const uint32_t *n = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (n[x] != n[y])
		return (n[x] < n[y]) - (n[x] > n[y]);
	return (x > y) - (x < y);
}

/*
 * Mark the special directories of p: the p->special_dirs directories at
 * depth special_dir_depth holding the most files (the plan's are there,
 * with special_dir_files each); with a special_dir_table, for each entry
 * the fullest directory at its depth not yet marked.  Returns 0 or
 * -ENOMEM.
 */
static int find_special(const struct mstate *m, const struct params *p, uint8_t *special,
			uint64_t *ndirs, uint64_t *nfiles)
{
	uint32_t *cand, nc = 0;

	*ndirs = *nfiles = 0;
	if (!tables_special_dirs(p))
		return 0;
	cand = malloc((m->ndirs ? m->ndirs : 1) * sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (uint32_t j = 0; j < m->ndirs; j++)
		if (p->tab.nspecial || m->ddepth[j] == p->special_dir_depth)
			cand[nc++] = j;
	qsort_r(cand, nc, sizeof(*cand), cmp_special, m->dnfiles);
	for (uint32_t i = 0; p->tab.nspecial && i < p->tab.nspecial; i++)
		for (uint32_t k = 0; k < nc; k++) {
			uint32_t j = cand[k];

			if (special[j] || m->ddepth[j] != p->tab.special_depth[i])
				continue;
			special[j] = 1;
			(*ndirs)++;
			*nfiles += m->dnfiles[j];
			break;
		}
	for (uint32_t k = 0; !p->tab.nspecial && k < nc && k < p->special_dirs; k++) {
		special[cand[k]] = 1;
		(*ndirs)++;
		*nfiles += m->dnfiles[cand[k]];
	}
	free(cand);
	return 0;
}

/*
 * The regular tree found (special directories left out): which depths
 * hold directories (allowed, the deepest into *h), the files-per-directory
 * bins, the files per depth, and the regular counts in in.  Returns 0 or
 * -EINVAL (a directory deeper than the model).
 */
static int against_tree(const struct mresult *r, const struct mstate *m, unsigned maxbin,
			const uint8_t *special, unsigned char *allowed, unsigned *h,
			uint64_t *fpd_count, uint64_t *depth_count, struct report_input *in)
{
	for (uint32_t j = 0; j < m->ndirs; j++) {
		uint32_t c = m->dnfiles[j];

		if (special[j])
			continue;
		if (m->ddepth[j] >= REPORT_DEPTHS) {
			fprintf(stderr, "imprint: '%s': directories deeper than %d levels are beyond the model\n",
				r->target, REPORT_DEPTHS - 1);
			return -EINVAL;
		}
		allowed[m->ddepth[j]] = 1;
		if (m->ddepth[j] > *h)
			*h = m->ddepth[j];
		fpd_count[c > maxbin ? maxbin + 1 : c]++;
		in->nregular_dirs++;
	}
	for (uint64_t f = 0; f < m->nfiles; f++) {
		if (special[m->dir[f]])
			continue;
		depth_count[m->depth[f]]++;
		in->nregular_files++;
	}
	return 0;
}

/* The depth target of p's model for the regular files found, down to depth h. */
static int against_depth_target(const struct mstate *m, const struct params *p,
				const uint8_t *special, unsigned h, const unsigned char *allowed,
				uint64_t nregular_files, double *depth_target)
{
	if (p->depth_model == DEPTH_POISSON) {
		if (tables_depth_probs(p, h, depth_target))
			return -EINVAL;
	} else {
		double probs[REPORT_DEPTHS];

		for (uint64_t f = 0; f < m->nfiles; f++) {
			if (special[m->dir[f]])
				continue;
			if (depth_care_probs(m->size[f], h, allowed, probs))
				return -EINVAL;
			for (unsigned i = 0; i <= h; i++)
				depth_target[i] += probs[i];
		}
		for (unsigned i = 0; i <= h && nregular_files; i++)
			depth_target[i] /= (double)nregular_files;
	}
	return 0;
}

/*
 * Extensions: the files per model id into ext_count; the commonest one
 * outside the model.  The tally keeps case (a profile keeps 'JPG' apart
 * from 'jpg'); a name the model lacks in that case counts for the model's
 * name in another case (plans write some 'jpg' files as '.JPG').
 */
static void against_exts(const struct mstate *m, const struct ext_model *em, uint64_t *ext_count,
			 const char **unknown, uint64_t *unknown_best)
{
	for (size_t i = 0; i < m->ext_tab.n; i++) {
		int id = ext_model_find(em, m->ext_tab.name[i]);

		if (id < 0)
			id = ext_model_find_nocase(em, m->ext_tab.name[i]);
		if (id >= 0) {
			ext_count[id] += m->ext_tab.files[i];
		} else if (m->ext_tab.files[i] > *unknown_best ||
			   (m->ext_tab.files[i] == *unknown_best && *unknown &&
			    strcmp(m->ext_tab.name[i], *unknown) < 0)) {
			*unknown_best = m->ext_tab.files[i];
			*unknown = m->ext_tab.name[i];
		}
	}
}

/* The rest of the report's input, from what was found (in holds the tree's counts). */
static void against_input(struct report_input *in, const struct mresult *r,
			  const struct mstate *m, const struct params *p, unsigned h)
{
	in->seed = p->seed;
	in->files = m->nfiles;
	in->dirs = m->ndirs;
	in->links = m->hardlinks + m->symlinks;
	in->hardlinks = m->hardlinks;
	in->symlinks = m->symlinks;
	in->special_dirs = r->special_dirs;
	in->special_files = r->special_files;
	in->bytes = m->bytes;
	in->max_depth = h;
	in->prm = p;
}

/*
 * The fit report against p: the same computation as plan --report, from
 * what was found.  The depth target is truncated to the deepest regular
 * directory found, as the plan truncates it to its tree.
 */
static int compute_against(struct mresult *r, const struct mstate *m, const struct params *p)
{
	struct report_input in = { 0 };
	struct size_model sm;
	struct ext_model em = { 0 };
	uint8_t *special = NULL;
	uint64_t *ext_count = NULL, *fpd_count = NULL, *sizes = NULL;
	uint64_t depth_count[REPORT_DEPTHS] = { 0 };
	double depth_target[REPORT_DEPTHS] = { 0 };
	unsigned char allowed[REPORT_DEPTHS] = { 0 };
	unsigned h = 0, maxbin = p->fpd_max_bin;
	uint64_t unknown_best = 0;
	const char *unknown = NULL;
	double cap = (double)p->size_max;
	int ret = -ENOMEM;

	if (p->used && (double)p->used < cap)
		cap = (double)p->used;
	if (cap < 1)
		cap = 1;
	if (tables_size_model(p, cap, &sm)) {
		fprintf(stderr, "imprint: the file size parameters admit no distribution\n");
		return -EINVAL;
	}
	if (tables_ext_model(p, &em))
		goto out_free;
	special = calloc(m->ndirs ? m->ndirs : 1, 1);
	ext_count = calloc(em.count, sizeof(*ext_count));
	fpd_count = calloc(maxbin + 2, sizeof(*fpd_count));
	sizes = malloc((m->nfiles ? m->nfiles : 1) * sizeof(*sizes));
	if (!special || !ext_count || !fpd_count || !sizes)
		goto out_free;
	ret = find_special(m, p, special, &r->special_dirs, &r->special_files);
	if (ret)
		goto out_free;
	ret = against_tree(r, m, maxbin, special, allowed, &h, fpd_count, depth_count, &in);
	if (ret)
		goto out_free;
	ret = against_depth_target(m, p, special, h, allowed, in.nregular_files, depth_target);
	if (ret)
		goto out_free;
	against_exts(m, &em, ext_count, &unknown, &unknown_best);

	if (m->nfiles)
		memcpy(sizes, r->sorted_size, m->nfiles * sizeof(*sizes));
	against_input(&in, r, m, p, h);
	in.sizes = sizes;
	in.size = &sm;
	in.depth_count = depth_count;
	in.depth_target = depth_target;
	in.ext = &em;
	in.ext_count = ext_count;
	in.ext_unknown = unknown;
	in.ext_unknown_count = unknown_best;
	in.fpd_count = fpd_count;
	ret = report_compute_input(&in, &r->rep);
	if (ret)
		goto out_free;
	ret = measure_fit_extras(&r->rep, r, m, p, special);
	if (ret)
		goto out_free;
	/* the report's labels point into em and the table: keep them alive in r */
	for (unsigned i = 0; i < r->rep.next; i++)
		r->rep.ext_top[i].label = strdup(r->rep.ext_top[i].label);
	if (r->rep.ext_worst)
		r->rep.ext_worst = strdup(r->rep.ext_worst);
	r->against = 1;
	r->p = p;
	r->sm = sm;
out_free:
	ext_model_release(&em);
	free(special);
	free(ext_count);
	free(fpd_count);
	free(sizes);
	return ret;
}

/*
 * The sparse files of p's plan and their hole blocks (of the block size
 * measured): the files for which sparse_file_holes() gives holes.  The
 * plan is built only when p has sparse files (sparse_enabled()).  Returns
 * 0, -ENOMEM or -EINVAL (the configuration cannot be planned).
 */
static int sparse_target(struct mresult *r, const struct params *p)
{
	struct plan_error err = { { 0 } };
	struct plan pl;
	int ret;

	r->sparse_files_target = 0;
	r->hole_blocks_target = 0;
	if (!(p->sparse_file_share > 0))
		return 0;
	ret = plan_build(&pl, p, &err);
	if (ret) {
		if (ret != -ENOMEM)
			fprintf(stderr, "imprint: %s\n", err.msg);
		return ret;
	}
	for (uint64_t f = 0; f < pl.nfiles; f++) {
		struct sparse_holes h;

		if (sparse_file_holes(&pl, f, &h)) {
			r->sparse_files_target++;
			r->hole_blocks_target += h.bytes / r->block_size;
		}
	}
	plan_release(&pl);
	return 0;
}

void measure_mresult_release(struct mresult *r)
{
	free(r->sorted_size);
	free(r->ages);
	free(r->ext_order);
	if (r->against) {
		for (unsigned i = 0; i < r->rep.next; i++)
			free((char *)r->rep.ext_top[i].label);
		free((char *)r->rep.ext_worst);
		report_release(&r->rep);
	}
}

int measure_compute(struct mresult *r, struct mstate *m, const struct measure_opts *o)
{
	int ret;

	memset(r->size_hist, 0, sizeof(r->size_hist));
	r->sorted_size = malloc((m->nfiles ? m->nfiles : 1) * sizeof(*r->sorted_size));
	r->ages = malloc((m->nfiles ? m->nfiles : 1) * sizeof(*r->ages));
	r->ext_order = malloc((m->ext_tab.n ? m->ext_tab.n : 1) * sizeof(*r->ext_order));
	if (!r->sorted_size || !r->ages || !r->ext_order)
		return -ENOMEM;
	if (m->nfiles)
		memcpy(r->sorted_size, m->size, m->nfiles * sizeof(*m->size));
	qsort(r->sorted_size, m->nfiles, sizeof(*r->sorted_size), array_cmp_u64);
	r->age_ref = o->against ? o->against->time_ref : m->max_mtime;
	for (uint64_t f = 0; f < m->nfiles; f++) {
		uint64_t s = m->size[f];
		unsigned d = m->depth[f];

		r->ages[f] = r->age_ref - m->mtime[f];
		r->size_hist[s ? measure_log2(s) + 1 : 0]++;
		r->depth_files[d < REPORT_DEPTHS ? d : REPORT_DEPTHS]++;
		if (d > r->max_file_depth)
			r->max_file_depth = d;
	}
	qsort(r->ages, m->nfiles, sizeof(*r->ages), array_cmp_i64);
	for (uint32_t j = 0; j < m->ndirs; j++) {
		uint32_t c = m->dnfiles[j];

		r->fpd[c > MEASURE_FPD_BINS ? MEASURE_FPD_BINS + 1 : c]++;
		if (m->ddepth[j] > r->max_dir_depth)
			r->max_dir_depth = m->ddepth[j];
	}
	for (size_t i = 0; i < m->ext_tab.n; i++)
		r->ext_order[i] = i;
	qsort_r(r->ext_order, m->ext_tab.n, sizeof(*r->ext_order), cmp_ext_files, &m->ext_tab);
	if (!o->against)
		return 0;
	ret = compute_against(r, m, o->against);
	if (!ret)
		ret = sparse_target(r, o->against);
	return ret;
}
