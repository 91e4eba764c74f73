/* report.c - the fit report: K-S distances and share differences, target against achieved */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/json_fields.h"
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
	if (r->generation)
		json_object_object_add(o, "generation", json_object_get(r->generation));
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
