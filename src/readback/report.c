/* report.c - the fit report: K-S distances and share differences, target against achieved */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "readback/json_fields.h"
#include "readback/report.h"
#include "content/prealloc.h"
#include "util/array.h"
#include "content/sparse.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in the text report: "1.50 GiB", PiB at most. */
#define HUMAN (FMT_BYTES_DIGITS(2) | FMT_BYTES_PIB)

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

static const char *verdict(double d, double crit)
{
	return d <= crit ? "ok" : "above the 1% critical value";
}

void report_print_text(const struct report *r, FILE *out)
{
	char b1[32], b2[32], b3[32];

	fprintf(out, "imprint plan report (seed %llu)\n\n", (unsigned long long)r->seed);
	fprintf(out, "  files           %llu (%llu in %llu special directories)\n",
		(unsigned long long)r->files, (unsigned long long)r->special_files,
		(unsigned long long)r->special_dirs);
	fprintf(out, "  directories     %llu\n", (unsigned long long)r->dirs);
	fprintf(out, "  links           %llu (%llu hard, %llu symbolic)\n",
		(unsigned long long)r->links, (unsigned long long)r->hardlinks,
		(unsigned long long)r->symlinks);
	fprintf(out, "  bytes           %llu (%s)\n", (unsigned long long)r->bytes,
		fmt_bytes(r->bytes, HUMAN, b1, sizeof(b1)));
	fprintf(out, "  file size       mean %s, median %s, max %s\n",
		fmt_bytes((uint64_t)r->mean_size, HUMAN, b1, sizeof(b1)),
		fmt_bytes(r->median_size, HUMAN, b2, sizeof(b2)), fmt_bytes(r->max_size, HUMAN, b3, sizeof(b3)));
	fprintf(out, "  max depth       %u\n", r->max_depth);
	if (r->have_meta) {
		fprintf(out, "  special files   %llu FIFOs, %llu sockets, %llu character and %llu block devices\n",
			(unsigned long long)r->specials[SPECIAL_FIFO], (unsigned long long)r->specials[SPECIAL_SOCK],
			(unsigned long long)r->specials[SPECIAL_CHR], (unsigned long long)r->specials[SPECIAL_BLK]);
		fprintf(out, "  xattrs          %llu inodes: %llu user, %llu security; ACLs %llu access, %llu default\n",
			(unsigned long long)r->xattr_inodes, (unsigned long long)r->xattr_user,
			(unsigned long long)r->xattr_security, (unsigned long long)r->acl_access,
			(unsigned long long)r->acl_default);
		fprintf(out, "  preallocated    %llu files: %s unwritten inside, %s beyond the end\n",
			(unsigned long long)r->prealloc_files,
			fmt_bytes(r->unwritten_bytes, HUMAN, b1, sizeof(b1)),
			fmt_bytes(r->beyond_bytes, HUMAN, b2, sizeof(b2)));
	}
	if (r->have_sparse)
		fprintf(out, "  sparse files    %llu, holes of %s never written\n",
			(unsigned long long)r->sparse_files, fmt_bytes(r->sparse_hole_bytes, HUMAN, b1, sizeof(b1)));
	fputc('\n', out);
	report_print_fit(r, out);
}

/* The caller's extra fit lines: "<label> max |diff|", "<label> K-S D", "<label> share". */
static void print_extras(const struct report *r, FILE *out)
{
	static const char *const suffix[] = {
		[REPORT_EXTRA_DIFF] = "max |diff|",
		[REPORT_EXTRA_KS] = "K-S D",
		[REPORT_EXTRA_SHARE] = "share",
	};

	for (unsigned i = 0; i < r->nextra; i++) {
		const struct report_extra *x = &r->extra[i];
		char label[48];

		snprintf(label, sizeof(label), "%s %s", x->label, suffix[x->kind]);
		fprintf(out, "  %-21s %.6f", label, x->value);
		if (x->kind == REPORT_EXTRA_DIFF)
			fprintf(out, "   (worst: %s)", x->worst);
		else if (x->kind == REPORT_EXTRA_SHARE)
			fprintf(out, "   (target: %.6f, |diff| %.6f)", x->target,
				fabs(x->value - x->target));
		fputc('\n', out);
	}
}

/* o[<key><suffix>] = v */
static void add_suffixed(json_object *o, const char *key, const char *suffix, json_object *v)
{
	char k[64];

	snprintf(k, sizeof(k), "%s%s", key, suffix);
	json_object_object_add(o, k, v);
}

/* Their JSON keys: <key>_max_abs_diff and _worst, <key>_ks_d, <key>_target and _achieved. */
static void json_extras(const struct report *r, json_object *o)
{
	for (unsigned i = 0; i < r->nextra; i++) {
		const struct report_extra *x = &r->extra[i];

		switch (x->kind) {
		case REPORT_EXTRA_DIFF:
			add_suffixed(o, x->key, "_max_abs_diff", json_object_new_double(x->value));
			add_suffixed(o, x->key, "_worst", json_object_new_string(x->worst));
			break;
		case REPORT_EXTRA_KS:
			add_suffixed(o, x->key, "_ks_d", json_object_new_double(x->value));
			break;
		case REPORT_EXTRA_SHARE:
			add_suffixed(o, x->key, "_target", json_object_new_double(x->target));
			add_suffixed(o, x->key, "_achieved", json_object_new_double(x->value));
			break;
		}
	}
}

void report_print_fit(const struct report *r, FILE *out)
{
	fprintf(out, "fit                     achieved   1%% critical\n");
	fprintf(out, "  size K-S D            %.6f   %.6f  %s\n", r->size_ks_d, r->size_ks_crit,
		verdict(r->size_ks_d, r->size_ks_crit));
	fprintf(out, "  depth K-S D           %.6f   %.6f  %s\n", r->depth_ks_d, r->depth_ks_crit,
		verdict(r->depth_ks_d, r->depth_ks_crit));
	fprintf(out, "  extension max |diff|  %.6f   (worst: %s)\n", r->ext_max_abs_diff,
		r->ext_worst ? r->ext_worst : "-");
	if (r->fpd_worst + 1 == r->fpd_bins)
		fprintf(out, "  files/dir max |diff|  %.6f   (worst: > %u files)\n",
			r->fpd_max_abs_diff, r->fpd_bins - 2);
	else
		fprintf(out, "  files/dir max |diff|  %.6f   (worst: %u files)\n",
			r->fpd_max_abs_diff, r->fpd_worst);
	print_extras(r, out);
	fputc('\n', out);

	fprintf(out, "files by depth (regular files)\n  depth    target  achieved\n");
	for (unsigned d = 0; d < r->ndepth; d++)
		fprintf(out, "  %5u  %8.5f  %8.5f\n", d, r->depth_target[d], r->depth_achieved[d]);
	fprintf(out, "\nfiles per directory (regular directories)\n  files    target  achieved\n");
	for (unsigned b = 0; b < r->fpd_bins; b++) {
		if (b + 1 == r->fpd_bins)
			fprintf(out, "  >%4u  %8.5f  %8.5f\n", b - 1, r->fpd_target[b],
				r->fpd_achieved[b]);
		else
			fprintf(out, "  %5u  %8.5f  %8.5f\n", b, r->fpd_target[b],
				r->fpd_achieved[b]);
	}
	fprintf(out, "\ntop extensions\n  ext       target  achieved\n");
	for (unsigned i = 0; i < r->next; i++)
		fprintf(out, "  %-6s  %8.5f  %8.5f\n", r->ext_top[i].label, r->ext_top[i].target,
			r->ext_top[i].achieved);
}

static json_object *share_array(const double *v, unsigned n)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_double(v[i]));
	return a;
}

json_object *report_json(const struct report *r)
{
	json_object *o = json_object_new_object();

	report_add_json(r, o);
	if (r->have_meta) {
		static const char *const key[SPECIAL_TYPES] = { "fifos", "sockets", "char_devices",
								 "block_devices" };

		for (unsigned t = 0; t < SPECIAL_TYPES; t++)
			json_object_object_add(o, key[t], json_object_new_uint64(r->specials[t]));
		json_object_object_add(o, "xattr_inodes", json_object_new_uint64(r->xattr_inodes));
		json_object_object_add(o, "xattr_user", json_object_new_uint64(r->xattr_user));
		json_object_object_add(o, "xattr_security", json_object_new_uint64(r->xattr_security));
		json_object_object_add(o, "acl_access", json_object_new_uint64(r->acl_access));
		json_object_object_add(o, "acl_default", json_object_new_uint64(r->acl_default));
		json_object_object_add(o, "prealloc_files", json_object_new_uint64(r->prealloc_files));
		json_object_object_add(o, "unwritten_bytes", json_object_new_uint64(r->unwritten_bytes));
		json_object_object_add(o, "beyond_bytes", json_object_new_uint64(r->beyond_bytes));
	}
	if (r->have_sparse) {
		json_object_object_add(o, "sparse_files", json_object_new_uint64(r->sparse_files));
		json_object_object_add(o, "sparse_hole_bytes",
				       json_object_new_uint64(r->sparse_hole_bytes));
	}
	if (r->content_missed)
		json_object_object_add(o, "content_unreachable", json_object_get(r->content_missed));
	return o;
}

void report_print_json(const struct report *r, FILE *out)
{
	json_object *o = report_json(r);

	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

#define R(m) JSON_U64(struct report, m)
static const struct json_u64_field report_counts[] = {
	R(seed), R(files), R(dirs), R(links), R(hardlinks),
	R(symlinks), R(special_dirs), R(special_files), R(bytes),
};
#undef R

void report_add_json(const struct report *r, json_object *o)
{
	json_object *ext = json_object_new_array();

	json_add_u64s(o, r, report_counts, ARRAY_SIZE(report_counts));
	json_object_object_add(o, "mean_size", json_object_new_double(r->mean_size));
	json_object_object_add(o, "median_size", json_object_new_uint64(r->median_size));
	json_object_object_add(o, "max_size", json_object_new_uint64(r->max_size));
	json_object_object_add(o, "max_depth", json_object_new_int((int)r->max_depth));
	json_object_object_add(o, "size_ks_d", json_object_new_double(r->size_ks_d));
	json_object_object_add(o, "size_ks_critical_01", json_object_new_double(r->size_ks_crit));
	json_object_object_add(o, "depth_ks_d", json_object_new_double(r->depth_ks_d));
	json_object_object_add(o, "depth_ks_critical_01",
			       json_object_new_double(r->depth_ks_crit));
	json_object_object_add(o, "ext_max_abs_diff", json_object_new_double(r->ext_max_abs_diff));
	json_object_object_add(o, "ext_worst",
			       json_object_new_string(r->ext_worst ? r->ext_worst : ""));
	json_object_object_add(o, "fpd_max_abs_diff", json_object_new_double(r->fpd_max_abs_diff));
	json_object_object_add(o, "depth_target", share_array(r->depth_target, r->ndepth));
	json_object_object_add(o, "depth_achieved", share_array(r->depth_achieved, r->ndepth));
	json_object_object_add(o, "fpd_target", share_array(r->fpd_target, r->fpd_bins));
	json_object_object_add(o, "fpd_achieved", share_array(r->fpd_achieved, r->fpd_bins));
	for (unsigned i = 0; i < r->next; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "ext", json_object_new_string(r->ext_top[i].label));
		json_object_object_add(e, "target", json_object_new_double(r->ext_top[i].target));
		json_object_object_add(e, "achieved",
				       json_object_new_double(r->ext_top[i].achieved));
		json_object_array_add(ext, e);
	}
	json_object_object_add(o, "ext_top", ext);
	json_extras(r, o);
}
