/* plan.c - build the logical image from the model (steps in plan_*.c) and release it */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>

#include "plan/plan.h"
#include "plan/generation.h"
#include "plan/plan_int.h"
#include "util/rng.h"
#include "model/tree.h"
#include "util/util.h"

/* plan_build's first step: the file counts, checked against the special directories. */
static int plan_file_counts(struct plan *pl, struct plan_error *err)
{
	const struct params *p = &pl->prm;
	uint64_t nspecial;

	nspecial = tables_special_total(p);
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
	return 0;
}

/* The file size model, capped at size_max (and at used when lower). */
static int plan_size_model(struct plan *pl, struct plan_error *err)
{
	const struct params *p = &pl->prm;
	double cap;

	cap = (double)p->size_max;
	if (p->used && (double)p->used < cap)
		cap = (double)p->used;
	if (cap < 1)
		cap = 1;
	if (tables_size_model(p, cap, &pl->size)) {
		plan_fail(err, "the file size parameters admit no distribution");
		return -EINVAL;
	}
	return 0;
}

/* How many directories, and the directory and file arrays.  Returns 0, -EINVAL or -ENOMEM. */
static int plan_alloc(struct plan *pl, struct plan_error *err)
{
	const struct params *p = &pl->prm;
	double ndirs_f = floor((double)pl->nregular_files / p->files_per_dir + 0.5);

	if (ndirs_f < 1)
		ndirs_f = 1;
	if (ndirs_f + tables_special_dirs(p) >= (double)UINT32_MAX) {
		plan_fail(err, "too many directories (%.0f)", ndirs_f + tables_special_dirs(p));
		return -EINVAL;
	}
	pl->nregular_dirs = (uint32_t)ndirs_f;
	pl->ndirs = pl->nregular_dirs + tables_special_dirs(p);
	if (p->dev_dir != DEV_DIR_NONE)
		pl->dev_dir = pl->ndirs++;

	pl->dir_parent = plan_xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_depth = plan_xalloc(pl->ndirs, 1);
	pl->dir_variant = plan_xalloc(pl->ndirs, 1);
	pl->dir_first_child = plan_xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_next_sibling = plan_xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_first_file = plan_xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_nfiles = plan_xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_first_link = plan_xalloc(pl->ndirs, sizeof(uint32_t));
	pl->dir_nlinks = plan_xalloc(pl->ndirs, sizeof(uint32_t));
	pl->file_size = plan_xalloc(pl->nfiles, sizeof(uint64_t));
	pl->file_ext = plan_xalloc(pl->nfiles, sizeof(uint16_t));
	pl->file_dir = plan_xalloc(pl->nfiles, sizeof(uint32_t));
	pl->file_variant = plan_xalloc(pl->nfiles, 1);
	if (!pl->dir_parent || !pl->dir_depth || !pl->dir_variant || !pl->dir_first_child ||
	    !pl->dir_next_sibling || !pl->dir_first_file || !pl->dir_nfiles ||
	    !pl->dir_first_link || !pl->dir_nlinks || !pl->file_size || !pl->file_ext ||
	    !pl->file_dir || !pl->file_variant)
		return -ENOMEM;
	return 0;
}

/* The directory tree: regular directories (counted per depth into m_d), special ones, children. */
static int plan_dir_tree(struct plan *pl, uint32_t *m_d, struct plan_error *err)
{
	const struct param_tables *t = &pl->prm.tab;
	const struct tree_shape sh = {
		t->subdirs_n, t->subdirs_share, t->nsubdirs, t->depth_dirs,
		t->ndepth_dirs >= 2 ? t->ndepth_dirs : 0, t->depth_leaves, t->ndepth_leaves
	};
	int ret;

	if (t->nsubdirs)
		ret = tree_build_subdirs(pl->prm.seed, pl->nregular_dirs, &sh, pl->dir_parent,
					 pl->dir_depth);
	else if (pl->prm.tab.ndepth_dirs >= 2)
		ret = tree_build_depths(pl->prm.seed, pl->nregular_dirs, pl->prm.tab.depth_dirs,
					pl->prm.tab.ndepth_dirs, pl->dir_parent, pl->dir_depth);
	else
		ret = tree_build(pl->prm.seed, pl->nregular_dirs, pl->dir_parent, pl->dir_depth);
	if (ret) {
		if (ret == -E2BIG)
			plan_fail(err, "the directory tree would be deeper than 255 levels");
		return ret;
	}
	for (uint32_t j = 0; j < pl->nregular_dirs; j++) {
		m_d[pl->dir_depth[j]]++;
		if (pl->dir_depth[j] > pl->maxdepth)
			pl->maxdepth = pl->dir_depth[j];
	}
	ret = plan_special_dirs(pl, err);
	if (ret)
		return ret;
	if (pl->dev_dir) {
		/* the /dev-like directory: in the root, no files, its nodes are links */
		pl->dir_parent[pl->dev_dir] = 0;
		pl->dir_depth[pl->dev_dir] = 1;
	}
	plan_children(pl);
	return 0;
}

/* The files: sizes, extensions, floors and duplicates, depths, files per directory, placement. */
static int plan_files(struct plan *pl, const uint32_t *m_d, struct plan_error *err)
{
	uint64_t *s = NULL;
	uint16_t *e = NULL;
	uint8_t *d = NULL;
	uint32_t *pin = NULL;
	uint64_t t_d[DEPTH_SLOTS] = { 0 };
	int ret = -ENOMEM;

	s = plan_xalloc(pl->nfiles, sizeof(*s));
	e = plan_xalloc(pl->nfiles, sizeof(*e));
	d = plan_xalloc(pl->nregular_files, sizeof(*d));
	pin = plan_xalloc(pl->nfiles, sizeof(*pin));
	if (!s || !e || !d || !pin)
		goto out;
	ret = plan_sizes(pl, s, err);
	if (ret)
		goto out;
	ret = plan_exts(pl, e);
	if (ret)
		goto out;
	if (pl->prm.tab.nsbe) {
		ret = plan_size_by_ext(pl, s, e);
		if (ret)
			goto out;
	}
	ret = plan_ext_floors_and_dups(pl, s, e, pin);
	if (ret)
		goto out;
	ret = plan_depths(pl, s, d, m_d);
	if (ret)
		goto out;
	for (uint64_t k = 0; k < pl->nregular_files; k++)
		t_d[d[k]]++;
	ret = plan_fpd(pl, t_d, m_d);
	if (ret)
		goto out;
	ret = plan_place(pl, s, e, d, pin);
out:
	FREE_ALL(s, e, d, pin);
	return ret;
}

static int build(struct plan *pl, struct plan *prev, const struct params *p, unsigned jobs,
		 int keep, struct plan_error *err);

int plan_build(struct plan *pl, const struct params *p, struct plan_error *err)
{
	return build(pl, NULL, p, 1, 0, err);
}

int plan_build_jobs(struct plan *pl, const struct params *p, unsigned jobs,
		    struct plan_error *err)
{
	return build(pl, NULL, p, jobs, 1, err);
}

int plan_build_pair(struct plan *pl, struct plan *prev, const struct params *p,
		    struct plan_error *err)
{
	return build(pl, prev, p, 1, 0, err);
}

static int build(struct plan *pl, struct plan *prev, const struct params *p, unsigned jobs,
		 int keep, struct plan_error *err)
{
	uint32_t m_d[DEPTH_SLOTS] = { 0 };
	int ret;

	if (prev) {
		memset(prev, 0, sizeof(*prev));
		if (p->generation < 2) {
			struct params pp = *p;

			pp.generation = p->generation ? p->generation - 1 : 0;
			ret = plan_build(prev, &pp, err);
			if (ret)
				return ret;
			ret = plan_build(pl, p, err);
			if (ret)
				plan_release(prev);
			return ret;
		}
	}
	memset(pl, 0, sizeof(*pl));
	pl->prm = *p;
	p = &pl->prm;
	name_cfg_from_params(&pl->names, p);

	ret = plan_file_counts(pl, err);
	if (ret)
		return ret;
	ret = plan_size_model(pl, err);
	if (ret)
		return ret;
	ret = -ENOMEM;
	if (tables_ext_model(p, &pl->ext))
		goto out_fail;
	ret = plan_alloc(pl, err);
	if (ret)
		goto out_fail;
	ret = plan_dir_tree(pl, m_d, err);
	if (ret)
		goto out_fail;
	ret = plan_files(pl, m_d, err);
	if (ret)
		goto out_fail;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		pl->bytes += pl->file_size[f];
	ret = plan_links(pl);
	if (ret)
		goto out_fail;
	/* a later generation renumbers the files: its names are made each time */
	keep = keep && !p->generation && pl->nfiles * PLAN_NAME_COST <= PLAN_NAMES_KEEP;
	ret = plan_unique_names(pl, jobs, keep);
	if (!ret)
		ret = plan_xattr_prepare(pl);
	if (!ret)
		ret = plan_acl_prepare(pl);
	if (!ret)
		ret = plan_generation_apply2(pl, prev, p->generation, err);
	if (ret)
		goto out_fail;
	return 0;

out_fail:
	if (ret == -ENOMEM)
		plan_fail(err, "out of memory while planning %llu files",
			  (unsigned long long)p->files);
	else if (err && !err->msg[0])
		plan_fail(err, "cannot plan: %s", strerror(-ret));
	plan_release(pl);
	return ret;
}

void plan_release(struct plan *pl)
{
	if (pl->gen) {
		struct plan *base = pl->gen->base;
		int owned = !pl->gen->base_borrowed;

		/* the extension model is generation 0's, released with it */
		pl->ext = (struct ext_model){ 0 };
		plan_gen_free(pl->gen);
		if (owned) {
			plan_release(base);
			free(base);
		}
	}
	FREE_ALL(pl->dir_parent, pl->dir_depth, pl->dir_variant, pl->dir_first_child,
		 pl->dir_next_sibling, pl->dir_first_file, pl->dir_nfiles, pl->dir_first_link,
		 pl->dir_nlinks, pl->file_size, pl->file_ext, pl->file_dir, pl->file_variant,
		 pl->file_names, pl->file_name_at,
		 pl->file_nlink, pl->file_dup_of, pl->link_dir, pl->link_target, pl->link_kind,
		 pl->link_variant, pl->dir_sectype, pl->dir_acl_src);
	ext_model_release(&pl->ext);
	memset(pl, 0, sizeof(*pl));
}
