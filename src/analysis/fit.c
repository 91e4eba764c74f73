/* fit.c - the fit report's figures: K-S distances and share differences, target against achieved */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit.h"
#include "content/prealloc.h"
#include "content/sparse.h"
#include "util/array.h"
#include "util/util.h"

/* P(floor(X) <= t) = F(t + 1) for the continuous size law. */
static double size_floor_cdf(const void *ctx, double t)
{
	return size_model_cdf(ctx, t + 1.0);
}

static int cmp_share_desc(const void *a, const void *b)
{
	const struct report_share *x = a, *y = b;

	return (x->target < y->target) - (x->target > y->target);
}

int report_compute_input(const struct report_input *in, struct report *r)
{
	const struct params *p = in->prm;
	const struct ext_model *em = in->ext;
	unsigned maxbin = p->fpd_max_bin;
	int ret = -ENOMEM;

	memset(r, 0, sizeof(*r));
	r->seed = in->seed;
	r->files = in->files;
	r->dirs = in->dirs;
	r->links = in->links;
	r->hardlinks = in->hardlinks;
	r->symlinks = in->symlinks;
	r->special_dirs = in->special_dirs;
	r->special_files = in->special_files;
	r->bytes = in->bytes;
	r->max_depth = in->max_depth;
	r->mean_size = in->files ? (double)in->bytes / (double)in->files : 0;

	/* file sizes */
	if (array_sort_u64(in->sizes, in->files))
		goto out_free;
	if (in->files) {
		r->median_size = in->sizes[(in->files - 1) / 2];
		r->max_size = in->sizes[in->files - 1];
		r->size_ks_d = ks_d_discrete(in->sizes, in->files, size_floor_cdf, in->size);
		r->size_ks_crit = ks_critical_01(in->files);
	}

	/* files by depth: the regular files against the depth target */
	r->ndepth = 0;
	for (unsigned d = 0; d < REPORT_DEPTHS; d++) {
		if (in->depth_count[d] || in->depth_target[d] > 1e-12)
			r->ndepth = d + 1;
	}
	for (unsigned d = 0; d < r->ndepth; d++) {
		r->depth_target[d] = in->depth_target[d];
		r->depth_achieved[d] = in->nregular_files ?
			(double)in->depth_count[d] / (double)in->nregular_files : 0;
	}
	if (in->nregular_files) {
		r->depth_ks_d = ks_d_hist(in->depth_count, r->ndepth, r->depth_target);
		r->depth_ks_crit = ks_critical_01(in->nregular_files);
	}

	/* extensions */
	struct report_share *all = calloc(em->count, sizeof(*all));

	if (!all)
		goto out_free;
	for (size_t i = 0; i < em->count; i++) {
		double a = in->files ? (double)in->ext_count[i] / (double)in->files : 0;
		double diff = fabs(a - em->share[i]);

		all[i].label = em->name[i][0] ? em->name[i] : "(none)";
		all[i].target = em->share[i];
		all[i].achieved = a;
		if (diff > r->ext_max_abs_diff || !r->ext_worst) {
			r->ext_max_abs_diff = diff;
			r->ext_worst = all[i].label;
		}
	}
	if (in->ext_unknown && in->files) {
		double a = (double)in->ext_unknown_count / (double)in->files;

		if (a > r->ext_max_abs_diff) {
			r->ext_max_abs_diff = a;
			r->ext_worst = in->ext_unknown;
		}
	}
	qsort(all, em->count, sizeof(*all), cmp_share_desc);
	r->next = em->count < REPORT_TOP_EXT ? (unsigned)em->count : REPORT_TOP_EXT;
	memcpy(r->ext_top, all, r->next * sizeof(*all));
	free(all);

	/* files per directory, regular directories, bins 0..maxbin and the tail */
	r->fpd_bins = maxbin + 2;
	r->fpd_target = calloc(r->fpd_bins, sizeof(double));
	r->fpd_achieved = calloc(r->fpd_bins, sizeof(double));
	if (!r->fpd_target || !r->fpd_achieved)
		goto out_free;
	if (tables_fpd_probs(p, maxbin, r->fpd_target)) {
		ret = -EINVAL;
		goto out_free;
	}
	for (unsigned b = 0; b < r->fpd_bins; b++) {
		double diff;

		r->fpd_achieved[b] = in->nregular_dirs ?
			(double)in->fpd_count[b] / (double)in->nregular_dirs : 0;
		diff = fabs(r->fpd_achieved[b] - r->fpd_target[b]);
		if (diff > r->fpd_max_abs_diff) {
			r->fpd_max_abs_diff = diff;
			r->fpd_worst = b;
		}
	}
	ret = 0;
out_free:
	if (ret)
		report_release(r);
	return ret;
}

/* Special files, extended attributes and ACLs of a plan that has any. */
void report_meta(const struct plan *pl, struct report *r)
{
	struct plan_xattrs xa;

	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (pl->link_kind[l] & LINK_SPECIAL)
			r->specials[LINK_SPECIAL_TYPE(pl->link_kind[l])]++;
	r->have_meta = pl->prm.special_file_share > 0 || pl->dev_dir || plan_xattrs_enabled(pl) ||
		       prealloc_enabled(pl);
	for (uint64_t f = 0; prealloc_enabled(pl) && f < pl->nfiles; f++) {
		struct prealloc pa;

		if (prealloc_file(pl, f, &pa)) {
			r->prealloc_files++;
			r->unwritten_bytes += pa.unw.bytes;
			r->beyond_bytes += pa.beyond;
		}
	}
	if (!plan_xattrs_enabled(pl))
		return;
	for (int k = PLAN_DIR; k <= PLAN_LINK; k++) {
		uint64_t n = k == PLAN_DIR ? pl->ndirs : k == PLAN_FILE ? pl->nfiles : pl->nlinks;

		for (uint64_t id = 0; id < n; id++) {
			if (k == PLAN_LINK && (pl->link_kind[id] & LINK_HARD))
				continue;
			if (!plan_xattrs(pl, (enum plan_entry)k, id, &xa))
				continue;
			r->xattr_inodes++;
			for (unsigned i = 0; i < xa.n; i++) {
				r->xattr_user += !strncmp(xa.name[i], "user.", 5);
				r->xattr_security += !strncmp(xa.name[i], "security.", 9);
				r->acl_access += !strcmp(xa.name[i], "system.posix_acl_access");
				r->acl_default += !strcmp(xa.name[i], "system.posix_acl_default");
			}
		}
	}
}

int report_compute(const struct plan *pl, struct report *r)
{
	const struct params *p = &pl->prm;
	struct report_input in = { 0 };
	uint64_t *sorted = NULL, *ext_count = NULL, *fpd_count = NULL;
	uint64_t depth_count[REPORT_DEPTHS] = { 0 };
	unsigned maxbin = p->fpd_max_bin;
	int ret = -ENOMEM;

	in.seed = p->seed;
	in.files = pl->nfiles;
	in.dirs = pl->ndirs;
	in.links = pl->nlinks;
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		if (pl->link_kind[l] & LINK_HARD)
			in.hardlinks++;
		else if (LINK_IS_SYMLINK(pl->link_kind[l]))
			in.symlinks++;
	}
	in.links = in.hardlinks + in.symlinks; /* special files are not links to a reader */
	in.special_dirs = pl->ndirs - pl->nregular_dirs - (pl->dev_dir != 0);
	in.special_files = pl->nfiles - pl->nregular_files;
	in.bytes = pl->bytes;
	in.max_depth = pl->maxdepth;

	sorted = malloc((pl->nfiles ? pl->nfiles : 1) * sizeof(*sorted));
	if (!sorted)
		goto out_free;
	memcpy(sorted, pl->file_size, pl->nfiles * sizeof(*sorted));
	in.sizes = sorted;
	in.size = &pl->size;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (pl->file_dir[f] < pl->nregular_dirs)
			depth_count[pl->dir_depth[pl->file_dir[f]]]++;
	in.depth_count = depth_count;
	in.nregular_files = pl->nregular_files;
	in.depth_target = pl->depth_target;

	ext_count = calloc(pl->ext.count, sizeof(*ext_count));
	if (!ext_count)
		goto out_free;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		ext_count[pl->file_ext[f]]++;
	in.ext = &pl->ext;
	in.ext_count = ext_count;

	fpd_count = calloc(maxbin + 2, sizeof(*fpd_count));
	if (!fpd_count)
		goto out_free;
	for (uint32_t j = 0; j < pl->nregular_dirs; j++) {
		uint32_t c = pl->dir_nfiles[j];

		fpd_count[c > maxbin ? maxbin + 1 : c]++;
	}
	in.fpd_count = fpd_count;
	in.nregular_dirs = pl->nregular_dirs;
	in.prm = p;

	ret = report_compute_input(&in, r);
	if (!ret)
		report_meta(pl, r);
	if (!ret && sparse_enabled(pl)) {
		/* what the plan leaves unwritten: its sparse files and their holes */
		r->have_sparse = 1;
		for (uint64_t f = 0; f < pl->nfiles; f++) {
			struct sparse_holes h;

			if (sparse_file_holes(pl, f, &h)) {
				r->sparse_files++;
				r->sparse_hole_bytes += h.bytes;
			}
		}
	}
out_free:
	free(sorted);
	free(ext_count);
	free(fpd_count);
	return ret;
}

void report_release(struct report *r)
{
	free(r->fpd_target);
	free(r->fpd_achieved);
	r->fpd_target = r->fpd_achieved = NULL;
}
