/* gen_report.c - what a generation changed, as text and JSON */
#include <errno.h>
#include <inttypes.h>

#include <json-c/json.h>

#include "plan/generation.h"
#include "report/gen_report.h"
#include "util/strutil.h"

static double kept_share(const struct plan_gen_counts *c)
{
	return c->blocks ? (double)c->blocks_kept / (double)c->blocks : 1.0;
}

int gen_report_text(const struct plan_gen *g, FILE *out)
{
	const struct plan_gen_counts *c = &g->counts;
	char b[32];

	fprintf(out, "  generation %" PRIu32 " against %" PRIu32 ": %" PRIu64 " files unchanged\n",
		g->n, g->n - 1, c->files_unchanged);
	for (unsigned k = 0; k < GEN_EDIT_KINDS; k++) {
		fmt_bytes(c->bytes[k], FMT_BYTES_ADAPTIVE, b, sizeof(b));
		fprintf(out, "    %-10s %8" PRIu64 " files, %s%s\n", plan_gen_kind_name(k), c->files[k],
			b, k == GEN_EDIT_TRUNCATE ? " cut off" : " written");
	}
	fmt_bytes(c->bytes_deleted, FMT_BYTES_ADAPTIVE, b, sizeof(b));
	fprintf(out, "    %-10s %8" PRIu64 " files, %s\n", "deleted", c->files_deleted, b);
	fprintf(out, "    renamed %" PRIu64 ", moved %" PRIu64 ", metadata only %" PRIu64
		" (mode %" PRIu64 "); directories created %" PRIu64 ", removed %" PRIu64 "\n",
		c->files_renamed, c->files_moved, c->files_meta, c->files_mode, c->dirs_created,
		c->dirs_removed);
	return fprintf(out, "    4 KiB blocks held by generation %" PRIu32 " too: %" PRIu64
		       " of %" PRIu64 " (%.2f%%)\n", g->n - 1, c->blocks_kept, c->blocks,
		       100.0 * kept_share(c)) < 0 ? -EIO : 0;
}

static int add_kind(struct json_object *o, const char *name, uint64_t files, uint64_t bytes)
{
	struct json_object *k = json_object_new_object();

	if (!k)
		return -ENOMEM;
	json_object_object_add(k, "files", json_object_new_uint64(files));
	json_object_object_add(k, "bytes", json_object_new_uint64(bytes));
	json_object_object_add(o, name, k);
	return 0;
}

struct json_object *gen_report_json(const struct plan_gen *g)
{
	const struct plan_gen_counts *c = &g->counts;
	struct json_object *o = json_object_new_object();
	int ret = 0;

	if (!o)
		return NULL;
	json_object_object_add(o, "generation", json_object_new_uint64(g->n));
	json_object_object_add(o, "files_unchanged", json_object_new_uint64(c->files_unchanged));
	for (unsigned k = 0; !ret && k < GEN_EDIT_KINDS; k++)
		ret = add_kind(o, plan_gen_kind_name(k), c->files[k], c->bytes[k]);
	if (!ret)
		ret = add_kind(o, "deleted", c->files_deleted, c->bytes_deleted);
	if (ret) {
		json_object_put(o);
		return NULL;
	}
	json_object_object_add(o, "files_renamed", json_object_new_uint64(c->files_renamed));
	json_object_object_add(o, "files_moved", json_object_new_uint64(c->files_moved));
	json_object_object_add(o, "files_meta", json_object_new_uint64(c->files_meta));
	json_object_object_add(o, "files_mode", json_object_new_uint64(c->files_mode));
	json_object_object_add(o, "dirs_created", json_object_new_uint64(c->dirs_created));
	json_object_object_add(o, "dirs_removed", json_object_new_uint64(c->dirs_removed));
	json_object_object_add(o, "blocks", json_object_new_uint64(c->blocks));
	json_object_object_add(o, "blocks_kept", json_object_new_uint64(c->blocks_kept));
	json_object_object_add(o, "dup_block_share", json_object_new_double(kept_share(c)));
	return o;
}
