/* gen_report.h - what a generation changed (plan/generation.h), as text and JSON */
#ifndef IMPRINT_GEN_REPORT_H
#define IMPRINT_GEN_REPORT_H

#include <stdio.h>

struct json_object;
struct plan_gen;

/*
 * The changes generation g->n made against g->n - 1 as indented text
 * lines: files unchanged, created, appended, edited in place, rewritten,
 * truncated, deleted, renamed, moved, metadata-only (mode); directories
 * created and removed; the share of the 4 KiB blocks of generation n that
 * generation n - 1 holds.  Returns 0 or -EIO.
 */
int gen_report_text(const struct plan_gen *g, FILE *out);

/*
 * The same as a JSON object: generation, files_unchanged, per kind of
 * change {files, bytes} (created, appended, edited, rewritten, truncated,
 * deleted), files_renamed, files_moved, files_meta, files_mode,
 * dirs_created, dirs_removed, blocks, blocks_kept, dup_block_share.
 * NULL when out of memory.
 */
struct json_object *gen_report_json(const struct plan_gen *g);

#endif
