/* report.c - the fit report: K-S distances and share differences, target against achieved */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/figures.h"
#include "report/report.h"
#include "content/prealloc.h"
#include "util/array.h"
#include "content/sparse.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in the text report: "1.50 GiB", PiB at most. */
#define HUMAN (FMT_BYTES_DIGITS(2) | FMT_BYTES_PIB)

static const char *verdict(double d, double crit)
{
	return d <= crit ? "ok" : "above the 1% critical value";
}

void report_fpd_label(size_t i, size_t n, char *buf, size_t len)
{
	if (i + 1 == n)
		snprintf(buf, len, ">%4zu", n - 2);
	else
		snprintf(buf, len, "%zu", i);
}

/* The caller's extra fit figures: JSON keys <key>_max_abs_diff and _worst, <key>_ks_d,
 * <key>_target and _achieved; the text's lines in the text-only array "extras". */
static void extras_figs(const struct report *r, struct figs *fs)
{
	static const char *const suffix[] = {
		[REPORT_EXTRA_DIFF] = "max |diff|",
		[REPORT_EXTRA_KS] = "K-S D",
		[REPORT_EXTRA_SHARE] = "share",
	};
	char k[64];

	for (unsigned i = 0; i < r->nextra; i++) {
		const struct report_extra *x = &r->extra[i];

#define KEY(s) (snprintf(k, sizeof(k), "%s%s", x->key, s), k)
		switch (x->kind) {
		case REPORT_EXTRA_DIFF:
			figs_double(fs, KEY("_max_abs_diff"), x->value);
			figs_string(fs, KEY("_worst"), x->worst);
			break;
		case REPORT_EXTRA_KS:
			figs_double(fs, KEY("_ks_d"), x->value);
			break;
		case REPORT_EXTRA_SHARE:
			figs_double(fs, KEY("_target"), x->target);
			figs_double(fs, KEY("_achieved"), x->value);
			break;
		}
#undef KEY
	}
	figs_text_open(fs, FIG_ARRAY, "extras");
	for (unsigned i = 0; i < r->nextra; i++) {
		const struct report_extra *x = &r->extra[i];
		char label[48];

		snprintf(label, sizeof(label), "%s %s", x->label, suffix[x->kind]);
		figs_open(fs, FIG_OBJECT, NULL);
		figs_string(fs, "label", label);
		figs_double(fs, "value", x->value);
		/* names no figure outside the row has: a row's missing name would be looked up there */
		if (x->kind == REPORT_EXTRA_DIFF)
			figs_string(fs, "extra_worst", x->worst);
		if (x->kind == REPORT_EXTRA_SHARE) {
			figs_double(fs, "extra_target", x->target);
			figs_double(fs, "extra_diff", fabs(x->value - x->target));
		}
		figs_end(fs);
	}
	figs_end(fs);
}

void report_figs(const struct report *r, struct figs *fs)
{
	char worst[16];

	figs_u64(fs, "seed", r->seed);
	figs_u64(fs, "files", r->files);
	figs_u64(fs, "dirs", r->dirs);
	figs_u64(fs, "links", r->links);
	figs_u64(fs, "hardlinks", r->hardlinks);
	figs_u64(fs, "symlinks", r->symlinks);
	figs_u64(fs, "special_dirs", r->special_dirs);
	figs_u64(fs, "special_files", r->special_files);
	figs_u64(fs, "bytes", r->bytes);
	figs_double(fs, "mean_size", r->mean_size);
	figs_u64(fs, "median_size", r->median_size);
	figs_u64(fs, "max_size", r->max_size);
	figs_i64(fs, "max_depth", (int)r->max_depth);
	figs_double(fs, "size_ks_d", r->size_ks_d);
	figs_double(fs, "size_ks_critical_01", r->size_ks_crit);
	figs_double(fs, "depth_ks_d", r->depth_ks_d);
	figs_double(fs, "depth_ks_critical_01", r->depth_ks_crit);
	figs_double(fs, "ext_max_abs_diff", r->ext_max_abs_diff);
	figs_string(fs, "ext_worst", r->ext_worst ? r->ext_worst : "");
	figs_double(fs, "fpd_max_abs_diff", r->fpd_max_abs_diff);
	figs_text_string(fs, "size_verdict", verdict(r->size_ks_d, r->size_ks_crit));
	figs_text_string(fs, "depth_verdict", verdict(r->depth_ks_d, r->depth_ks_crit));
	if (r->fpd_worst + 1 == r->fpd_bins)
		snprintf(worst, sizeof(worst), "> %u", r->fpd_bins - 2);
	else
		snprintf(worst, sizeof(worst), "%u", r->fpd_worst);
	figs_text_string(fs, "fpd_worst", worst);
	figs_doubles(fs, "depth_target", r->depth_target, r->ndepth);
	figs_doubles(fs, "depth_achieved", r->depth_achieved, r->ndepth);
	figs_doubles(fs, "fpd_target", r->fpd_target, r->fpd_bins);
	figs_doubles(fs, "fpd_achieved", r->fpd_achieved, r->fpd_bins);
	figs_open(fs, FIG_ARRAY, "ext_top");
	for (unsigned i = 0; i < r->next; i++) {
		figs_open(fs, FIG_OBJECT, NULL);
		figs_string(fs, "ext", r->ext_top[i].label);
		figs_double(fs, "target", r->ext_top[i].target);
		figs_double(fs, "achieved", r->ext_top[i].achieved);
		figs_end(fs);
	}
	figs_end(fs);
	extras_figs(r, fs);
}

/* The fit part of the text. */
static const struct fig_line fit_lines[] = {
	{ .fmt = "fit                     achieved   1% critical\n"
		 "  size K-S D            {size_ks_d:.6}   {size_ks_critical_01:.6}  {size_verdict}\n"
		 "  depth K-S D           {depth_ks_d:.6}   {depth_ks_critical_01:.6}  {depth_verdict}\n"
		 "  extension max |diff|  {ext_max_abs_diff:.6}   (worst: {ext_worst|-})\n"
		 "  files/dir max |diff|  {fpd_max_abs_diff:.6}   (worst: {fpd_worst} files)\n" },
	{ .rows = "extras", .each = true, .when = "?extra_worst",
	  .fmt = "  {label:-21} {value:.6}   (worst: {extra_worst})\n" },
	{ .rows = "extras", .each = true, .when = "?extra_target",
	  .fmt = "  {label:-21} {value:.6}   (target: {extra_target:.6}, |diff| {extra_diff:.6})\n" },
	{ .rows = "extras", .each = true, .fmt = "  {label:-21} {value:.6}\n" },
	{ .fmt = "\nfiles by depth (regular files)\n  depth    target  achieved\n" },
	{ .rows = "depth_target", .fmt = "  {#:5}  {.:8.5}  {depth_achieved.#:8.5}\n" },
	{ .fmt = "\nfiles per directory (regular directories)\n  files    target  achieved\n" },
	{ .rows = "fpd_target", .label = report_fpd_label,
	  .fmt = "  {label:5}  {.:8.5}  {fpd_achieved.#:8.5}\n" },
	{ .fmt = "\ntop extensions\n  ext       target  achieved\n" },
	{ .rows = "ext_top", .fmt = "  {ext:-6}  {target:8.5}  {achieved:8.5}\n" },
};

int report_print_fit_figs(const struct figs *fs, const char *scope, FILE *out)
{
	return figs_print(fs, scope, fit_lines, ARRAY_SIZE(fit_lines), HUMAN, out);
}

/* The plan's figures before the fit: what report_json adds after report_add_json's. */
static void plan_figs(const struct report *r, struct figs *fs)
{
	report_figs(r, fs);
	if (r->have_meta) {
		figs_u64(fs, "fifos", r->specials[SPECIAL_FIFO]);
		figs_u64(fs, "sockets", r->specials[SPECIAL_SOCK]);
		figs_u64(fs, "char_devices", r->specials[SPECIAL_CHR]);
		figs_u64(fs, "block_devices", r->specials[SPECIAL_BLK]);
		figs_u64(fs, "xattr_inodes", r->xattr_inodes);
		figs_u64(fs, "xattr_user", r->xattr_user);
		figs_u64(fs, "xattr_security", r->xattr_security);
		figs_u64(fs, "acl_access", r->acl_access);
		figs_u64(fs, "acl_default", r->acl_default);
		figs_u64(fs, "prealloc_files", r->prealloc_files);
		figs_u64(fs, "unwritten_bytes", r->unwritten_bytes);
		figs_u64(fs, "beyond_bytes", r->beyond_bytes);
	}
	if (r->have_sparse) {
		figs_u64(fs, "sparse_files", r->sparse_files);
		figs_u64(fs, "sparse_hole_bytes", r->sparse_hole_bytes);
	}
	if (r->content_missed)
		figs_json_value(fs, "content_unreachable", r->content_missed);
	if (r->generation)
		figs_json_value(fs, "generation", r->generation);
}

static const struct fig_line plan_lines[] = {
	{ .fmt = "imprint plan report (seed {seed})\n\n"
		 "  files           {files} ({special_files} in {special_dirs} special directories)\n"
		 "  directories     {dirs}\n"
		 "  links           {links} ({hardlinks} hard, {symlinks} symbolic)\n"
		 "  bytes           {bytes} ({bytes:h})\n"
		 "  file size       mean {mean_size:h}, median {median_size:h}, max {max_size:h}\n"
		 "  max depth       {max_depth}\n" },
	{ .when = "?xattr_inodes",
	  .fmt = "  special files   {fifos} FIFOs, {sockets} sockets, {char_devices} character and "
		 "{block_devices} block devices\n"
		 "  xattrs          {xattr_inodes} inodes: {xattr_user} user, {xattr_security} security; "
		 "ACLs {acl_access} access, {acl_default} default\n"
		 "  preallocated    {prealloc_files} files: {unwritten_bytes:h} unwritten inside, "
		 "{beyond_bytes:h} beyond the end\n" },
	{ .when = "?sparse_files",
	  .fmt = "  sparse files    {sparse_files}, holes of {sparse_hole_bytes:h} never written\n" },
	{ .fmt = "\n" },
};

void report_print_text(const struct report *r, FILE *out)
{
	struct figs fs;

	figs_init(&fs);
	plan_figs(r, &fs);
	if (!figs_print(&fs, NULL, plan_lines, ARRAY_SIZE(plan_lines), HUMAN, out))
		report_print_fit_figs(&fs, NULL, out);
	figs_release(&fs);
}

void report_print_fit(const struct report *r, FILE *out)
{
	struct figs fs;

	figs_init(&fs);
	report_figs(r, &fs);
	report_print_fit_figs(&fs, NULL, out);
	figs_release(&fs);
}

json_object *report_json(const struct report *r)
{
	struct figs fs;
	json_object *o;

	figs_init(&fs);
	plan_figs(r, &fs);
	o = figs_json(&fs, NULL);
	figs_release(&fs);
	return o;
}

void report_print_json(const struct report *r, FILE *out)
{
	json_object *o = report_json(r);

	if (!o) {
		fprintf(stderr, "imprint: report: out of memory\n");
		return;
	}
	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

void report_add_json(const struct report *r, json_object *o)
{
	struct figs fs;

	figs_init(&fs);
	report_figs(r, &fs);
	figs_json(&fs, o);
	figs_release(&fs);
}
