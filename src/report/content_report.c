/* content_report.c - `imprint report --content`: achieved content statistics against the targets */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/params.h"
#include "report/content_predict.h"
#include "analysis/content_stats_int.h"
#include "read/fsread.h"
#include "report/html.h"
#include "report/json_fields.h"
#include "util/array.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in the text report: "1.5 GiB", PiB at most. */
#define HUMAN (FMT_BYTES_DIGITS(1) | FMT_BYTES_PIB)

/* ---- the report ------------------------------------------------------------ */

static double typed_share(const struct content_stats *st)
{
	return st->typed_files ? (double)st->typed_identified / (double)st->typed_files : 0;
}

/*
 * One line: name, target, predicted (when known), achieved, relative
 * difference of achieved from target (absolute when the target is 0).
 */
static void print_figure(FILE *out, const char *name, double target, double predicted,
			 double achieved, const char *fmt_note)
{
	fprintf(out, "  %-24s", name);
	if (isnan(target))
		fprintf(out, " %10s", "-");
	else
		fprintf(out, " %10.4f", target);
	if (isnan(predicted))
		fprintf(out, " %10s", "-");
	else
		fprintf(out, " %10.4f", predicted);
	fprintf(out, " %10.4f", achieved);
	if (isnan(target))
		fprintf(out, " %10s", "");
	else if (target != 0)
		fprintf(out, " %+9.2f%%", 100 * (achieved - target) / target);
	else
		fprintf(out, " %+10.4f", achieved - target);
	fprintf(out, "%s%s\n", fmt_note ? "  " : "", fmt_note ? fmt_note : "");
}

/* The measured value of a predicted figure. */
static double achieved_figure(const struct content_stats *st, enum content_figure f)
{
	const struct content_group_stats *b = &st->group[CONTENT_BINARY];
	const struct content_group_stats *x = &st->group[CONTENT_EXEC];

	switch (f) {
	case CF_RATIO_ZLIB: return content_ratio_zlib(b);
	case CF_RATIO_ZSTD: return content_ratio_zstd(b);
	case CF_EXEC_ZLIB: return content_ratio_zlib(x);
	case CF_EXEC_ZSTD: return content_ratio_zstd(x);
	case CF_DUP_FILES: return content_dup_file_share(&st->all);
	case CF_DUP_BLOCKS: return content_dup_block_share(b);
	case CF_ZERO_BLOCKS: return content_zero_block_share(b);
	default: return NAN;
	}
}

void content_report_print_text(const struct content_stats *st, const struct content_targets *t,
			       const char *name, FILE *out)
{
	const struct content_group_stats *b = &st->group[CONTENT_BINARY];
	char h1[32], h2[32];

	fprintf(out, "imprint content report: %s\n\n", name);
	if (t->pred && t->generation)
		fprintf(out, "  predicted    from generation %" PRIu32 " of the plan: %" PRIu64 " files\n",
			t->generation, t->pred->files);
	fprintf(out, "  files        %llu (%s), %llu distinct\n", (unsigned long long)st->all.files,
		fmt_bytes(st->all.bytes, HUMAN, h1, sizeof(h1)),
		(unsigned long long)(st->all.files - st->all.dup_files));
	fprintf(out, "  other binary %llu files (%s), %llu blocks of distinct files\n",
		(unsigned long long)b->files, fmt_bytes(b->bytes, HUMAN, h1, sizeof(h1)),
		(unsigned long long)b->blocks);
	if (st->holes_unknown)
		fprintf(out, "  holes        not known (the file system reports no extents)\n");
	else
		fprintf(out, "  holes        %llu blocks (%s) of distinct files: not content, "
			"left out of every figure\n", (unsigned long long)st->all.hole_blocks,
			fmt_bytes(st->all.hole_blocks * BLOCK, HUMAN, h1, sizeof(h1)));
	fprintf(out, "  compressed   %s in 1 MiB segments (sample share %g), holes left out\n\n",
		fmt_bytes(st->all.sampled_bytes, HUMAN, h2, sizeof(h2)), st->opts.sample_share);

	fprintf(out, "  %-24s %10s %10s %10s %10s\n", "figure", "target", "predicted", "achieved",
		"rel. diff");
	for (int f = 0; f < CF_COUNT; f++)
		print_figure(out, content_figure_name((enum content_figure)f),
			     content_pred_target(t->pred, t, (enum content_figure)f),
			     t->pred ? content_predicted(t->pred, (enum content_figure)f) : NAN,
			     achieved_figure(st, (enum content_figure)f),
			     content_figure_note((enum content_figure)f));
	if (st->typed_files)
		print_figure(out, "typed identified", t->typed_identified_share, NAN,
			     typed_share(st), NULL);
	else
		fprintf(out, "  %-24s %10.4f %10s %10s\n", "typed identified",
			t->typed_identified_share, "-", "-");
	fprintf(out, "  (%llu of %llu typed files identified by libmagic as their type; "
		"target is a minimum)\n\n",
		(unsigned long long)st->typed_identified, (unsigned long long)st->typed_files);
	if (t->pred)
		content_predict_print_missed(t->pred, t, out);

	fprintf(out, "  %-12s %8s %11s %8s %8s %8s %8s %8s %8s\n", "group", "files", "bytes",
		"dupfile", "blocks", "zero", "dup", "zlib", "zstd");
	for (int g = 0; g <= CONTENT_GROUPS; g++) {
		const struct content_group_stats *s = g < CONTENT_GROUPS ? &st->group[g] : &st->all;

		fprintf(out, "  %-12s %8llu %11s %8.4f %8llu %8.4f %8.4f %8.3f %8.3f\n",
			g < CONTENT_GROUPS ? content_group_name(g) : "all",
			(unsigned long long)s->files, fmt_bytes(s->bytes, HUMAN, h1, sizeof(h1)),
			content_dup_file_share(s), (unsigned long long)s->blocks,
			content_zero_block_share(s), content_dup_block_share(s),
			content_ratio_zlib(s), content_ratio_zstd(s));
	}
	fprintf(out, "  (blocks, zero, dup and ratios over distinct files; dup counts every "
		"occurrence of a repeated block;\n   block-level dedup would save %.4f of all "
		"blocks)\n", content_dedup_block_share(&st->all));

	if (st->nmime) {
		fprintf(out, "\n  %-44s %8s %8s\n", "type mix (libmagic)", "files", "share");
		for (size_t i = 0; i < st->nmime; i++)
			fprintf(out, "  %-44s %8llu %8.4f\n", st->mime[i].type,
				(unsigned long long)st->mime[i].files,
				(double)st->mime[i].files / (double)st->all.files);
	}
	if (st->nmiss) {
		fprintf(out, "\n  typed files not identified as their type (first %zu)\n", st->nmiss);
		for (size_t i = 0; i < st->nmiss; i++)
			fprintf(out, "  %s: %s\n", st->miss[i].path, st->miss[i].got);
	}
}

static json_object *json_num(double v)
{
	return isnan(v) ? NULL : json_object_new_double(v);
}

/* The block shares of group s (duplicate, deduplicated, zero) into o, in the reports' order. */
static void json_block_shares(json_object *o, const struct content_group_stats *s)
{
	json_object_object_add(o, "dup_block_share",
			       json_object_new_double(content_dup_block_share(s)));
	json_object_object_add(o, "dedup_block_share",
			       json_object_new_double(content_dedup_block_share(s)));
	json_object_object_add(o, "zero_block_share",
			       json_object_new_double(content_zero_block_share(s)));
}

#define G(m) JSON_U64(struct content_group_stats, m)
static const struct json_u64_field group_counts[] = {
	G(files), G(bytes), G(dup_files), G(blocks), G(hole_blocks), G(zero_blocks),
	G(dup_blocks), G(dedup_blocks), G(sampled_bytes), G(zlib_bytes), G(zstd_bytes),
};
#undef G

static json_object *json_group(const struct content_group_stats *s)
{
	json_object *o = json_object_new_object();

	json_add_u64s(o, s, group_counts, ARRAY_SIZE(group_counts));
	json_object_object_add(o, "dup_file_share", json_object_new_double(content_dup_file_share(s)));
	json_block_shares(o, s);
	json_object_object_add(o, "compress_ratio_zlib", json_object_new_double(content_ratio_zlib(s)));
	json_object_object_add(o, "compress_ratio_zstd", json_object_new_double(content_ratio_zstd(s)));
	return o;
}

json_object *content_report_json(const struct content_stats *st, const struct content_targets *t,
				 const char *name)
{
	const struct content_group_stats *b = &st->group[CONTENT_BINARY];
	json_object *o = json_object_new_object();
	json_object *tg = json_object_new_object(), *mix = json_object_new_object();
	json_object *groups = json_object_new_object(), *miss = json_object_new_array();

	json_object_object_add(o, "target", json_object_new_string(name));
	if (t->pred && t->generation) {
		json_object_object_add(o, "generation", json_object_new_int64(t->generation));
		json_object_object_add(o, "predicted_files", json_object_new_uint64(t->pred->files));
	}
	json_object_object_add(o, "files", json_object_new_uint64(st->all.files));
	json_object_object_add(o, "bytes", json_object_new_uint64(st->all.bytes));
	json_object_object_add(o, "sample_share", json_object_new_double(st->opts.sample_share));
	json_object_object_add(o, "compress_ratio_zlib", json_object_new_double(content_ratio_zlib(b)));
	json_object_object_add(o, "compress_ratio_zstd", json_object_new_double(content_ratio_zstd(b)));
	json_object_object_add(o, "compress_ratio_exec_zlib",
			       json_object_new_double(content_ratio_zlib(&st->group[CONTENT_EXEC])));
	json_object_object_add(o, "compress_ratio_exec_zstd",
			       json_object_new_double(content_ratio_zstd(&st->group[CONTENT_EXEC])));
	json_object_object_add(o, "dup_file_share",
			       json_object_new_double(content_dup_file_share(&st->all)));
	json_block_shares(o, b);
	/* of all distinct files; null when the holes were not known */
	json_object_object_add(o, "hole_blocks", st->holes_unknown ? NULL :
			       json_object_new_uint64(st->all.hole_blocks));
	/* bytes read from the target: the data, not the holes skipped */
	json_object_object_add(o, "read_bytes", json_object_new_uint64(st->read_bytes));
	json_object_object_add(o, "typed_files", json_object_new_uint64(st->typed_files));
	json_object_object_add(o, "typed_identified", json_object_new_uint64(st->typed_identified));
	json_object_object_add(o, "typed_identified_share",
			       st->typed_files ? json_object_new_double(typed_share(st)) : NULL);
	for (size_t i = 0; i < st->nmime; i++)
		json_object_object_add(mix, st->mime[i].type,
				       json_object_new_double((double)st->mime[i].files /
							      (double)st->all.files));
	json_object_object_add(o, "type_mix", mix);

	json_object_object_add(tg, "compress_ratio", json_num(t->compress_ratio));
	json_object_object_add(tg, "compress_ratio_exec", json_num(t->compress_ratio_exec));
	json_object_object_add(tg, "dup_file_share", json_num(t->dup_file_share));
	json_object_object_add(tg, "dup_block_share", json_num(t->dup_block_share));
	json_object_object_add(tg, "zero_block_share", json_num(t->zero_block_share));
	json_object_object_add(tg, "typed_identified_share", json_num(t->typed_identified_share));
	json_object_object_add(o, "targets", tg);
	if (t->pred)
		json_object_object_add(o, "predicted", content_predict_json(t->pred, t));

	for (int g = 0; g < CONTENT_GROUPS; g++)
		json_object_object_add(groups, content_group_name(g), json_group(&st->group[g]));
	json_object_object_add(groups, "all", json_group(&st->all));
	json_object_object_add(o, "groups", groups);
	for (size_t i = 0; i < st->nmiss; i++) {
		json_object *m = json_object_new_object();

		json_object_object_add(m, "path", json_object_new_string(st->miss[i].path));
		json_object_object_add(m, "mime_type", json_object_new_string(st->miss[i].got));
		json_object_array_add(miss, m);
	}
	json_object_object_add(o, "not_identified", miss);
	return o;
}

void content_report_print_json(const struct content_stats *st, const struct content_targets *t,
			       const char *name, FILE *out)
{
	json_object *o = content_report_json(st, t, name);

	fprintf(out, "%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							     JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

/* ---- running it ------------------------------------------------------------ */

void content_targets_from_params(struct content_targets *t, const struct params *p)
{
	t->compress_ratio = p->compress_ratio;
	t->compress_ratio_exec = p->compress_ratio_exec;
	t->dup_file_share = p->dup_file_share;
	t->dup_block_share = p->dup_block_share;
	t->zero_block_share = p->zero_block_share;
	t->typed_identified_share = 0.99;
	t->pred = NULL;
}
