/* content_report.c - `imprint report --content`: achieved content statistics against the targets */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/params.h"
#include "report/content_predict.h"
#include "analysis/content_stats_int.h"
#include "read/fsread.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/json_fields.h"
#include "util/array.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in the text report: "1.5 GiB", PiB at most. */
#define HUMAN (FMT_BYTES_DIGITS(1) | FMT_BYTES_PIB)

/* ---- the figures ----------------------------------------------------------- */

static double typed_share(const struct content_stats *st)
{
	return st->typed_files ? (double)st->typed_identified / (double)st->typed_files : 0;
}

/* v under key, null when it is not a number (no target, no prediction). */
static void figs_num(struct figs *fs, const char *key, double v)
{
	if (isnan(v))
		figs_null(fs, key);
	else
		figs_double(fs, key, v);
}

/*
 * The table's rows, described once: the predicted figures in their order
 * (enum content_figure), then the typed files' row.  Each row names its
 * achieved figure (a key at the JSON's top level) and its target (a key
 * under "targets"): the JSON's achieved figures and targets are added from
 * this table, and the text's rows read back from those figures.
 */
#define ROW_TYPED CF_COUNT
#define ROWS	  (CF_COUNT + 1)
static const struct content_row {
	const char *achieved, *target;
} rows[ROWS] = {
	[CF_RATIO_ZLIB] = { "compress_ratio_zlib", "compress_ratio" },
	[CF_RATIO_ZSTD] = { "compress_ratio_zstd", "compress_ratio" },
	[CF_EXEC_ZLIB] = { "compress_ratio_exec_zlib", "compress_ratio_exec" },
	[CF_EXEC_ZSTD] = { "compress_ratio_exec_zstd", "compress_ratio_exec" },
	[CF_DUP_FILES] = { "dup_file_share", "dup_file_share" },
	[CF_DUP_BLOCKS] = { "dup_block_share", "dup_block_share" },
	[CF_ZERO_BLOCKS] = { "zero_block_share", "zero_block_share" },
	[ROW_TYPED] = { "typed_identified_share", "typed_identified_share" },
};

/* Row r's measured value: NAN when there is nothing to measure it on. */
static double row_achieved(const struct content_stats *st, size_t r)
{
	const struct content_group_stats *b = &st->group[CONTENT_BINARY];
	const struct content_group_stats *x = &st->group[CONTENT_EXEC];

	switch (r) {
	case CF_RATIO_ZLIB: return content_ratio_zlib(b);
	case CF_RATIO_ZSTD: return content_ratio_zstd(b);
	case CF_EXEC_ZLIB: return content_ratio_zlib(x);
	case CF_EXEC_ZSTD: return content_ratio_zstd(x);
	case CF_DUP_FILES: return content_dup_file_share(&st->all);
	case CF_DUP_BLOCKS: return content_dup_block_share(b);
	case CF_ZERO_BLOCKS: return content_zero_block_share(b);
	default: return st->typed_files ? typed_share(st) : NAN;
	}
}

/* The achieved figures of rows [from, to), under their keys. */
static void achieved_figs(struct figs *fs, const struct content_stats *st, size_t from, size_t to)
{
	for (size_t r = from; r < to; r++)
		figs_num(fs, rows[r].achieved, row_achieved(st, r));
}

/* The "targets" object: each row's target under its key, once. */
static void target_figs(struct figs *fs, const struct content_targets *t)
{
	figs_open(fs, FIG_OBJECT, "targets");
	for (size_t r = 0; r < ROWS; r++) {
		if (r && !strcmp(rows[r].target, rows[r - 1].target))
			continue;
		figs_num(fs, rows[r].target, r == ROW_TYPED ? t->typed_identified_share :
				content_figure_target(t, (enum content_figure)r));
	}
	figs_end(fs);
}

/* The number at path among the figures added so far; NAN for a null. */
static double fig_number(const struct figs *fs, const char *prefix, const char *key)
{
	char path[96];
	const struct fig *f;

	snprintf(path, sizeof(path), "%s%s", prefix, key);
	f = figs_get(fs, SIZE_MAX, path);
	if (!f || f->type == FIG_NULL)
		return NAN;
	return f->type == FIG_DOUBLE ? f->v.d : f->type == FIG_U64 ? (double)f->v.u : NAN;
}

/* The block shares of group s (duplicate, deduplicated, zero), in the reports' order. */
static void block_share_figs(struct figs *fs, const struct content_group_stats *s)
{
	figs_double(fs, "dup_block_share", content_dup_block_share(s));
	figs_double(fs, "dedup_block_share", content_dedup_block_share(s));
	figs_double(fs, "zero_block_share", content_zero_block_share(s));
}

#define G(m) JSON_U64(struct content_group_stats, m)
static const struct json_u64_field group_counts[] = {
	G(files), G(bytes), G(dup_files), G(blocks), G(hole_blocks), G(zero_blocks),
	G(dup_blocks), G(dedup_blocks), G(sampled_bytes), G(zlib_bytes), G(zstd_bytes),
};
#undef G

static void group_figs(struct figs *fs, const char *key, const struct content_group_stats *s)
{
	figs_open(fs, FIG_OBJECT, key);
	for (size_t i = 0; i < ARRAY_SIZE(group_counts); i++)
		figs_u64(fs, group_counts[i].key,
			 *(const uint64_t *)((const char *)s + group_counts[i].off));
	figs_double(fs, "dup_file_share", content_dup_file_share(s));
	block_share_figs(fs, s);
	figs_double(fs, "compress_ratio_zlib", content_ratio_zlib(s));
	figs_double(fs, "compress_ratio_zstd", content_ratio_zstd(s));
	figs_end(fs);
}

/*
 * Row r of the text's table, read back from the figures the JSON holds:
 * name, target (the prediction's, which holds the other binary group's own
 * target when the profile gives its extensions ratios), predicted (to the
 * text's precision, beyond the JSON's three decimals), achieved, their
 * difference, the note.
 */
static void row_figs(struct figs *fs, const struct content_targets *t, size_t r)
{
	enum content_figure f = (enum content_figure)r;
	double target = fig_number(fs, "targets.", rows[r].target);
	double achieved = fig_number(fs, "", rows[r].achieved);
	double predicted = NAN;

	if (r != ROW_TYPED && t->pred) {
		target = content_pred_target(t->pred, t, f);
		predicted = content_predicted(t->pred, f);
	}
	figs_open(fs, FIG_OBJECT, NULL);
	figs_string(fs, "name", r == ROW_TYPED ? "typed identified" : content_figure_name(f));
	figs_num(fs, "target", target);
	figs_num(fs, "predicted", predicted);
	figs_num(fs, "achieved", achieved);
	/* relative to the target, absolute when the target is 0 */
	if (!isnan(target) && target != 0)
		figs_double(fs, "rel_pct", 100 * (achieved - target) / target);
	else if (!isnan(target))
		figs_double(fs, "abs_diff", achieved - target);
	figs_string(fs, "note", r == ROW_TYPED ? "" : content_figure_note(f));
	figs_end(fs);
}

/* Every figure of the report, in the JSON's order. */
static void content_figs(const struct content_stats *st, const struct content_targets *t,
			 const char *name, struct figs *fs)
{
	const struct content_group_stats *b = &st->group[CONTENT_BINARY];

	figs_string(fs, "target", name);
	if (t->pred && t->generation) {
		figs_u64(fs, "generation", t->generation);
		figs_u64(fs, "predicted_files", t->pred->files);
	}
	figs_u64(fs, "files", st->all.files);
	figs_u64(fs, "bytes", st->all.bytes);
	figs_double(fs, "sample_share", st->opts.sample_share);
	achieved_figs(fs, st, CF_RATIO_ZLIB, CF_ZERO_BLOCKS);
	figs_double(fs, "dedup_block_share", content_dedup_block_share(b));
	achieved_figs(fs, st, CF_ZERO_BLOCKS, CF_COUNT);
	/* of all distinct files; null when the holes were not known */
	if (st->holes_unknown)
		figs_null(fs, "hole_blocks");
	else
		figs_u64(fs, "hole_blocks", st->all.hole_blocks);
	/* bytes read from the target: the data, not the holes skipped */
	figs_u64(fs, "read_bytes", st->read_bytes);
	figs_u64(fs, "typed_files", st->typed_files);
	figs_u64(fs, "typed_identified", st->typed_identified);
	achieved_figs(fs, st, ROW_TYPED, ROWS);
	figs_open(fs, FIG_OBJECT, "type_mix");
	for (size_t i = 0; i < st->nmime; i++)
		figs_double(fs, st->mime[i].type,
			    (double)st->mime[i].files / (double)st->all.files);
	figs_end(fs);

	target_figs(fs, t);
	if (t->pred) {
		json_object *pj = content_predict_json(t->pred, t);

		figs_json_value(fs, "predicted", pj);
		json_object_put(pj);
	}

	figs_open(fs, FIG_OBJECT, "groups");
	for (int g = 0; g < CONTENT_GROUPS; g++)
		group_figs(fs, content_group_name(g), &st->group[g]);
	group_figs(fs, "all", &st->all);
	figs_end(fs);
	figs_open(fs, FIG_ARRAY, "not_identified");
	for (size_t i = 0; i < st->nmiss; i++) {
		figs_open(fs, FIG_OBJECT, NULL);
		figs_string(fs, "path", st->miss[i].path);
		figs_string(fs, "mime_type", st->miss[i].got);
		figs_end(fs);
	}
	figs_end(fs);

	figs_text_u64(fs, "distinct_files", st->all.files - st->all.dup_files);
	figs_text_u64(fs, "hole_bytes", st->all.hole_blocks * BLOCK);
	figs_text_open(fs, FIG_ARRAY, "figures");
	for (size_t r = 0; r < ROWS; r++)
		row_figs(fs, t, r);
	figs_end(fs);
	figs_text_u64(fs, "mime_types", st->nmime);
	figs_text_open(fs, FIG_ARRAY, "mime_files");
	for (size_t i = 0; i < st->nmime; i++)
		figs_u64(fs, NULL, st->mime[i].files);
	figs_end(fs);
	figs_text_u64(fs, "not_identified_count", st->nmiss);
}

/* ---- the text -------------------------------------------------------------- */

/* The head, the table of figures against their targets (a row printed by the first of
 * its lines whose conditions hold: no achieved value, then by target and note). */
static const struct fig_line head_lines[] = {
	{ .fmt = "imprint content report: {target}\n\n" },
	{ .when = "generation",
	  .fmt = "  predicted    from generation {generation} of the plan: {predicted_files} files\n" },
	{ .fmt = "  files        {files} ({bytes:h}), {distinct_files} distinct\n"
		 "  other binary {groups.binary.files} files ({groups.binary.bytes:h}),"
		 " {groups.binary.blocks} blocks of distinct files\n" },
	{ .when = "!?hole_blocks",
	  .fmt = "  holes        not known (the file system reports no extents)\n" },
	{ .when = "?hole_blocks",
	  .fmt = "  holes        {hole_blocks} blocks ({hole_bytes:h}) of distinct files: not content,"
		 " left out of every figure\n" },
	{ .fmt = "  compressed   {groups.all.sampled_bytes:h} in 1 MiB segments (sample share"
		 " {sample_share:g}), holes left out\n\n"
		 "  figure                       target  predicted   achieved  rel. diff\n" },
#define ROW "  {name:-24} {target:10.4|         -} {predicted:10.4|         -} {achieved:10.4}"
	{ .rows = "figures", .each = true, .when = "!?achieved",
	  .fmt = "  {name:-24} {target:10.4}          -          -\n" },
	{ .rows = "figures", .each = true, .when = "!?target note",
	  .fmt = ROW "             {note}\n" },
	{ .rows = "figures", .each = true, .when = "target note",
	  .fmt = ROW " {rel_pct:+9.2}%  {note}\n" },
	{ .rows = "figures", .each = true, .when = "?target note",
	  .fmt = ROW " {abs_diff:+10.4}  {note}\n" },
	{ .rows = "figures", .each = true, .when = "!?target",
	  .fmt = ROW "           \n" },
	{ .rows = "figures", .each = true, .when = "target",
	  .fmt = ROW " {rel_pct:+9.2}%\n" },
	{ .rows = "figures", .each = true, .when = "?target",
	  .fmt = ROW " {abs_diff:+10.4}\n" },
#undef ROW
	{ .fmt = "  ({typed_identified} of {typed_files} typed files identified by libmagic as their"
		 " type; target is a minimum)\n\n" },
};

/* The groups, the type mix and the files libmagic did not know. */
static const struct fig_line tail_lines[] = {
	{ .fmt = "  group           files       bytes  dupfile   blocks     zero      dup     zlib"
		 "     zstd\n" },
	{ .rows = "groups",
	  .fmt = "  {@:-12} {files:8} {bytes:11h} {dup_file_share:8.4} {blocks:8}"
		 " {zero_block_share:8.4} {dup_block_share:8.4} {compress_ratio_zlib:8.3}"
		 " {compress_ratio_zstd:8.3}\n" },
	{ .fmt = "  (blocks, zero, dup and ratios over distinct files; dup counts every occurrence of"
		 " a repeated block;\n   block-level dedup would save {groups.all.dedup_block_share:.4}"
		 " of all blocks)\n" },
	{ .when = "mime_types",
	  .fmt = "\n  type mix (libmagic)                             files    share\n" },
	{ .when = "mime_types", .rows = "type_mix", .fmt = "  {@:-44} {mime_files.#:8} {.:8.4}\n" },
	{ .when = "not_identified_count",
	  .fmt = "\n  typed files not identified as their type (first {not_identified_count})\n" },
	{ .when = "not_identified_count", .rows = "not_identified", .fmt = "  {path}: {mime_type}\n" },
};

void content_report_print_text(const struct content_stats *st, const struct content_targets *t,
			       const char *name, FILE *out)
{
	struct figs fs;

	figs_init(&fs);
	content_figs(st, t, name, &fs);
	if (!figs_print(&fs, NULL, head_lines, ARRAY_SIZE(head_lines), HUMAN, out)) {
		if (t->pred) {
			content_predict_print_missed(t->pred, t, out);
			content_predict_print_ext(t->pred, st, out);
		}
		figs_print(&fs, NULL, tail_lines, ARRAY_SIZE(tail_lines), HUMAN, out);
	}
	figs_release(&fs);
}

json_object *content_report_json(const struct content_stats *st, const struct content_targets *t,
				 const char *name)
{
	struct figs fs;
	json_object *j;

	figs_init(&fs);
	content_figs(st, t, name, &fs);
	j = figs_json(&fs, NULL);
	figs_release(&fs);
	return j;
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
