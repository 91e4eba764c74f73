/* tables_print.c - the model's tables as text and JSON, and the table of tables (it calls nothing of params) */
#include <inttypes.h>
#include <stdio.h>

#include <json-c/json.h>

#include "model/params.h"
#include "model/tables.h"
#include "model/tables_int.h"

#define TOFF(f) offsetof(struct param_tables, f)

const struct tab_def tab_defs[TAB_NDEFS] = {
	{ "size_quantiles", TK_SIZEQ, TOFF(nsize_q), TOFF(size_q), TAB_SIZEQ_MAX,
	  "a size in bytes", "file sizes at u = i/N (replaces the size_* law)" },
	{ "depth_files", TK_SHARES, TOFF(ndepth_files), TOFF(depth_files), TAB_DEPTH_MAX,
	  "a share >= 0", "files by depth 0, 1, ... (replaces the Poisson law)" },
	{ "depth_dirs", TK_SHARES, TOFF(ndepth_dirs), TOFF(depth_dirs), TAB_DEPTH_MAX,
	  "a share >= 0", "directories by depth, 0 the root (the tree built level by level)" },
	{ "fpd_table", TK_SHARES, TOFF(nfpd), TOFF(fpd), TAB_FPD_MAX, "a share >= 0",
	  "directories holding 0..fpd_max_bin files, then more (replaces the law's bins)" },
	{ "ext_shares", TK_EXT, TOFF(next), 0, TAB_EXT_MAX, "EXT:SHARE",
	  "extensions and their shares, ':S' no extension (replaces ext_table)" },
	{ "size_by_ext", TK_SBE, TOFF(nsbe), 0, TAB_SBE_MAX, "EXT:Q0/Q1/.../Q16",
	  "sizes of one extension's files by 17 quantiles, '*' the others" },
	{ "name_lengths", TK_SHARES, TOFF(nname_len), TOFF(name_len), TAB_NAMELEN_MAX,
	  "a share >= 0", "names without extension (directories too, without name_dir_lengths) by length in bytes 0, 1, ..." },
	{ "name_dir_lengths", TK_SHARES, TOFF(nname_dir_len), TOFF(name_dir_len), TAB_NAMELEN_MAX,
	  "a share >= 0", "names of directories by length in bytes 0, 1, ..." },
	{ "name_ext_lengths", TK_SHARES, TOFF(nname_ext_len), TOFF(name_ext_len), TAB_NAMELEN_MAX,
	  "a share >= 0", "names of files and links with an extension by length in bytes" },
	{ "subdirs_table", TK_SPARSE, TOFF(nsubdirs), 0, TAB_SUBDIRS_MAX, "N:SHARE, N ascending",
	  "directories holding N subdirectories (the tree built to these counts)" },
	{ "depth_leaves", TK_SHARES, TOFF(ndepth_leaves), TOFF(depth_leaves), TAB_DEPTH_MAX,
	  "a share in [0, 1]", "of the directories at each depth, those without subdirectories" },
	{ "depth_fileless", TK_SHARES, TOFF(ndepth_fileless), TOFF(depth_fileless), TAB_DEPTH_MAX,
	  "a share in [0, 1]", "of the directories at each depth, those holding no file" },
	{ "special_dir_table", TK_SPECIAL, TOFF(nspecial), 0, TAB_SPECIAL_MAX, "FILES@DEPTH (files >= 1, depth 1..255)",
	  "special directories one by one (replaces special_dirs, _files, _depth)" },
	{ "mode_files", TK_MODE, TOFF(nmode_files), TOFF(mode_files), TAB_MODE_MAX, "MODE:SHARE",
	  "regular files' permission bits (octal) and their shares (replaces the model's modes)" },
	{ "mode_dirs", TK_MODE, TOFF(nmode_dirs), TOFF(mode_dirs), TAB_MODE_MAX, "MODE:SHARE",
	  "directories' permission bits (octal) and their shares (the root stays 0755)" },
	{ "age_quantiles", TK_QUANT, TOFF(nage_q), TOFF(age_q), TAB_AGEQ_MAX,
	  "days >= 0, not below the one before",
	  "ages (days before time_ref) at u = i/N (replaces the age lognormal)" },
	{ "atime_quantiles", TK_QUANT, TOFF(natime_q), TOFF(atime_q), TAB_AGEQ_MAX,
	  "a share in [0, 1], not below the one before",
	  "atime's place from mtime (0) to time_ref (1) at u = i/N (replaces uniform)" },
	{ "ext_content", TK_EXTC, TOFF(nextc), 0, TAB_EXTC_MAX, "EXT:RATIO/DUPF/DUPB/ZERO/TEXT[/WORDS]",
	  "an extension's content as the source had it: gzip -6 ratio, duplicate files, duplicate "
	  "blocks, zero blocks, text share, distinct words per KiB (profile --content)" },
	{ "source_files", TK_COUNT, 0, TOFF(source_files), 1, "a whole number of files",
	  "a profile's file count: files, unless files, used or size is given" },
	{ "source_bytes", TK_COUNT, 0, TOFF(source_bytes), 1, "a whole number of bytes",
	  "a profile's file bytes: with source_files, the mean file size used and files follow" },
};

/* "key = e1 e2 ..." then "key += ..." lines of at most per entries; one() prints entry i of ctx. */
static void print_entries(FILE *out, const char *key, uint32_t n, unsigned per,
			  void (*one)(FILE *, const void *, uint32_t), const void *ctx)
{
	for (uint32_t i = 0; i < n; i++) {
		if (i % per == 0)
			fprintf(out, "%s%s %s", i ? "\n" : "", key, i ? "+=" : "=");
		fputc(' ', out);
		one(out, ctx, i);
	}
	if (n)
		fputc('\n', out);
}

/* ctx: a share table (double[]) */
static void one_share(FILE *out, const void *ctx, uint32_t i)
{
	fprintf(out, "%.6g", ((const double *)ctx)[i]);
}

/* the others: ctx is the struct param_tables */
static void one_sizeq(FILE *out, const void *ctx, uint32_t i)
{
	fprintf(out, "%" PRIu64, ((const struct param_tables *)ctx)->size_q[i]);
}

static void one_subdirs(FILE *out, const void *ctx, uint32_t i)
{
	const struct param_tables *t = ctx;

	fprintf(out, "%" PRIu32 ":%.6g", t->subdirs_n[i], t->subdirs_share[i]);
}

static void one_special(FILE *out, const void *ctx, uint32_t i)
{
	const struct param_tables *t = ctx;

	fprintf(out, "%" PRIu32 "@%u", t->special_files[i], t->special_depth[i]);
}

static void one_ext(FILE *out, const void *ctx, uint32_t i)
{
	const struct param_tables *t = ctx;

	fprintf(out, "%s:%.6g", t->ext_name[i], t->ext_share[i]);
}

static void one_mode(FILE *out, const void *ctx, uint32_t i)
{
	const struct tab_modes *tm = ctx;

	fprintf(out, "%04o:%.6g", tm->mode[i], tm->share[i]);
}

static void one_age(FILE *out, const void *ctx, uint32_t i)
{
	const double *q = ctx;

	fprintf(out, "%.11g", q[i]); /* to the second for 27 years */
}

static void one_sbe(FILE *out, const void *ctx, uint32_t i)
{
	const struct param_tables *t = ctx;

	fprintf(out, "%s:", t->sbe_name[i]);
	for (unsigned k = 0; k < TAB_SBE_Q; k++)
		fprintf(out, "%s%" PRIu64, k ? "/" : "", t->sbe_q[i][k]);
}

static void one_extc(FILE *out, const void *ctx, uint32_t i)
{
	const struct param_tables *t = ctx;

	fprintf(out, "%s:", t->extc_name[i]);
	for (unsigned k = 0; k < TAB_EXTC_F; k++)
		if (k != TAB_EXTC_WORDS || t->extc[i][k] > 0)
			fprintf(out, "%s%.6g", k ? "/" : "", t->extc[i][k]);
}

void tables_print(const struct params *p, FILE *out)
{
	const struct param_tables *t = &p->tab;

	if (!t->nsize_q && !t->ndepth_files && !t->ndepth_dirs && !t->nfpd && !t->next &&
	    !t->nsbe && !t->source_files && !t->nname_len && !t->nname_ext_len && !t->nname_dir_len &&
	    !t->source_bytes && !t->nsubdirs &&
	    !t->ndepth_leaves && !t->ndepth_fileless && !t->nspecial && !t->nmode_files &&
	    !t->nmode_dirs && !t->nage_q && !t->natime_q && !t->nextc)
		return;
	fprintf(out, "\n# tables (empirical laws; they replace the parametric ones above)\n");
	if (t->source_files)
		fprintf(out, "source_files = %" PRIu64 "\n", t->source_files);
	if (t->source_bytes)
		fprintf(out, "source_bytes = %" PRIu64 "\n", t->source_bytes);
	print_entries(out, "size_quantiles", t->nsize_q, 10, one_sizeq, t);
	print_entries(out, "depth_files", t->ndepth_files, 10, one_share, t->depth_files);
	print_entries(out, "depth_dirs", t->ndepth_dirs, 10, one_share, t->depth_dirs);
	print_entries(out, "fpd_table", t->nfpd, 10, one_share, t->fpd);
	print_entries(out, "ext_shares", t->next, 8, one_ext, t);
	print_entries(out, "size_by_ext", t->nsbe, 1, one_sbe, t);
	print_entries(out, "name_lengths", t->nname_len, 10, one_share, t->name_len);
	print_entries(out, "name_ext_lengths", t->nname_ext_len, 10, one_share, t->name_ext_len);
	print_entries(out, "name_dir_lengths", t->nname_dir_len, 10, one_share, t->name_dir_len);
	print_entries(out, "subdirs_table", t->nsubdirs, 8, one_subdirs, t);
	print_entries(out, "depth_leaves", t->ndepth_leaves, 10, one_share, t->depth_leaves);
	print_entries(out, "depth_fileless", t->ndepth_fileless, 10, one_share, t->depth_fileless);
	print_entries(out, "special_dir_table", t->nspecial, 8, one_special, t);
	print_entries(out, "mode_files", t->nmode_files, 8, one_mode, &t->mode_files);
	print_entries(out, "mode_dirs", t->nmode_dirs, 8, one_mode, &t->mode_dirs);
	print_entries(out, "age_quantiles", t->nage_q, 10, one_age, t->age_q);
	print_entries(out, "atime_quantiles", t->natime_q, 10, one_share, t->atime_q);
	print_entries(out, "ext_content", t->nextc, 4, one_extc, t);
}

static struct json_object *json_shares(const double *v, uint32_t n)
{
	struct json_object *a = json_object_new_array();

	for (uint32_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_double(v[i]));
	return a;
}

/* A mode table as {"0644": share, ...}, when it is set. */
static void json_modes(struct json_object *o, const char *key, const struct tab_modes *tm,
		       uint32_t n)
{
	struct json_object *a;
	char m[8];

	if (!n)
		return;
	a = json_object_new_object();
	for (uint32_t i = 0; i < n; i++) {
		snprintf(m, sizeof(m), "%04o", tm->mode[i]);
		json_object_object_add(a, m, json_object_new_double(tm->share[i]));
	}
	json_object_object_add(o, key, a);
}

void tables_add_json(const struct params *p, struct json_object *o)
{
	const struct param_tables *t = &p->tab;
	struct json_object *a;

	if (t->nextc) {
		static const char *const f[TAB_EXTC_F] = { "gzip_ratio", "dup_file_share",
			"dup_block_share", "zero_block_share", "text_share", "words_per_kib" };

		a = json_object_new_object();
		for (uint32_t i = 0; i < t->nextc; i++) {
			struct json_object *x = json_object_new_object();

			for (unsigned k = 0; k < TAB_EXTC_F; k++)
				if (k != TAB_EXTC_WORDS || t->extc[i][k] > 0)
					json_object_object_add(x, f[k],
							       json_object_new_double(t->extc[i][k]));
			json_object_object_add(a, t->extc_name[i], x);
		}
		json_object_object_add(o, "ext_content", a);
	}

	if (t->nsize_q) {
		a = json_object_new_array();
		for (uint32_t i = 0; i < t->nsize_q; i++)
			json_object_array_add(a, json_object_new_uint64(t->size_q[i]));
		json_object_object_add(o, "size_quantiles", a);
	}
	if (t->ndepth_files)
		json_object_object_add(o, "depth_files", json_shares(t->depth_files, t->ndepth_files));
	if (t->ndepth_dirs)
		json_object_object_add(o, "depth_dirs", json_shares(t->depth_dirs, t->ndepth_dirs));
	if (t->nfpd)
		json_object_object_add(o, "fpd_table", json_shares(t->fpd, t->nfpd));
	if (t->next) {
		a = json_object_new_object();
		for (uint32_t i = 0; i < t->next; i++)
			json_object_object_add(a, t->ext_name[i], json_object_new_double(t->ext_share[i]));
		json_object_object_add(o, "ext_shares", a);
	}
	if (t->nsbe) {
		a = json_object_new_object();
		for (uint32_t i = 0; i < t->nsbe; i++) {
			struct json_object *q = json_object_new_array();

			for (unsigned k = 0; k < TAB_SBE_Q; k++)
				json_object_array_add(q, json_object_new_uint64(t->sbe_q[i][k]));
			json_object_object_add(a, t->sbe_name[i], q);
		}
		json_object_object_add(o, "size_by_ext", a);
	}
	if (t->nname_len)
		json_object_object_add(o, "name_lengths", json_shares(t->name_len, t->nname_len));
	if (t->nname_ext_len)
		json_object_object_add(o, "name_ext_lengths",
				       json_shares(t->name_ext_len, t->nname_ext_len));
	if (t->nname_dir_len)
		json_object_object_add(o, "name_dir_lengths",
				       json_shares(t->name_dir_len, t->nname_dir_len));
	if (t->nsubdirs) {
		a = json_object_new_object();
		for (uint32_t i = 0; i < t->nsubdirs; i++) {
			char k[16];

			snprintf(k, sizeof(k), "%" PRIu32, t->subdirs_n[i]);
			json_object_object_add(a, k, json_object_new_double(t->subdirs_share[i]));
		}
		json_object_object_add(o, "subdirs_table", a);
	}
	if (t->ndepth_leaves)
		json_object_object_add(o, "depth_leaves", json_shares(t->depth_leaves, t->ndepth_leaves));
	if (t->ndepth_fileless)
		json_object_object_add(o, "depth_fileless",
				       json_shares(t->depth_fileless, t->ndepth_fileless));
	if (t->nspecial) {
		a = json_object_new_array();
		for (uint32_t i = 0; i < t->nspecial; i++) {
			struct json_object *e = json_object_new_object();

			json_object_object_add(e, "files", json_object_new_uint64(t->special_files[i]));
			json_object_object_add(e, "depth", json_object_new_uint64(t->special_depth[i]));
			json_object_array_add(a, e);
		}
		json_object_object_add(o, "special_dir_table", a);
	}
	json_modes(o, "mode_files", &t->mode_files, t->nmode_files);
	json_modes(o, "mode_dirs", &t->mode_dirs, t->nmode_dirs);
	if (t->nage_q)
		json_object_object_add(o, "age_quantiles", json_shares(t->age_q, t->nage_q));
	if (t->natime_q)
		json_object_object_add(o, "atime_quantiles", json_shares(t->atime_q, t->natime_q));
	if (t->source_files)
		json_object_object_add(o, "source_files", json_object_new_uint64(t->source_files));
	if (t->source_bytes)
		json_object_object_add(o, "source_bytes", json_object_new_uint64(t->source_bytes));
}

void tables_list_json(struct json_object *arr)
{
	for (size_t i = 0; i <= TAB_NDEFS; i++) {
		struct json_object *o = json_object_new_object();
		const char *name = i < TAB_NDEFS ? tab_defs[i].name : "profile";

		if (!o)
			return;
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "group", json_object_new_string("tables"));
		json_object_object_add(o, "type", json_object_new_string(i < TAB_NDEFS ? "table" : "string"));
		json_object_object_add(o, "description",
				       json_object_new_string(i < TAB_NDEFS ? tab_defs[i].desc :
							      "load a shipped profile here (imprint params --profiles)"));
		if (i < TAB_NDEFS)
			json_object_object_add(o, "entries", json_object_new_string(tab_defs[i].what));
		json_object_array_add(arr, o);
	}
}

void tables_print_list(FILE *out)
{
	fprintf(out, "\ntables (empty by default; 'key = e1 e2 ...', continued by 'key += ...'; "
		"doc/model.md, Profiles):\n");
	for (size_t i = 0; i < TAB_NDEFS; i++)
		fprintf(out, "%-16s %s (entries: %s)\n", tab_defs[i].name, tab_defs[i].desc,
			tab_defs[i].what);
	fprintf(out, "%-16s %s\n", "profile", "load a shipped profile here (imprint params --profiles)");
}
