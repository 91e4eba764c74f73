/* pipeline.c - the core's part of `imprint create`: content, then the backend: open, layout, populate, finish */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pipeline.h"
#include "core/progress.h"
#include "content/setup.h"
#include "content/source.h"
#include "layout/layout.h"
#include "plan/include.h"
#include "report/report.h"
#include "analysis/verify.h"
#include "util/outfile.h"
#include "util/strutil.h"

/*
 * Copy a backend's message into msg, naming the user's TARGET where it
 * names the temporary file the backend was given.
 */
static void copy_message(char *msg, size_t len, const char *in, const char *tmp,
			 const char *target)
{
	const char *at = strcmp(tmp, target) ? strstr(in, tmp) : NULL;

	if (!at) {
		snprintf(msg, len, "%s", in);
		return;
	}
	snprintf(msg, len, "%.*s%s%s", (int)(at - in), in, target, at + strlen(tmp));
}


/* The summary's layout figures: what lo reached against what the plan asked. */
static void result_layout(struct create_result *res, const struct plan *pl, const struct layout *lo)
{
	res->have_layout = 1;
	res->have_score = 1;
	res->layout_score = lo->score;
	res->layout_target = lo->target;
	res->age_rounds = pl->prm.age_rounds;
	res->frag_eligible = lo->frag_eligible;
	res->frag_files = lo->frag_files;
	res->frag_runs = lo->frag_runs;
	res->free_small_target = pl->prm.age_rounds ? 0 : pl->prm.free_frag_share;
	res->dir_multiblock = lo->dir_eligible;
	res->dir_fragmented = lo->dir_frag;
	res->dir_layout_score = lo->dir_score;
	res->dir_frag_target = pl->prm.dir_frag_share;
	layout_notes_text(lo, res->layout_notes, sizeof(res->layout_notes));
}

/* The summary's metadata figures: what the plan asked, all written once populate succeeded. */
static void result_meta(struct create_result *res, const struct plan *pl)
{
	struct report r;

	memset(&r, 0, sizeof(r));
	report_meta(pl, &r);
	res->have_meta = r.have_meta;
	memcpy(res->specials, r.specials, sizeof(res->specials));
	res->xattr_inodes = r.xattr_inodes;
	res->xattr_user = r.xattr_user;
	res->xattr_security = r.xattr_security;
	res->acl_access = r.acl_access;
	res->acl_default = r.acl_default;
	res->prealloc_files = r.prealloc_files;
	res->unwritten_bytes = r.unwritten_bytes;
	res->beyond_bytes = r.beyond_bytes;
}

/* The summary's count of the --include entries, all written once populate succeeded. */
static void result_included(struct create_result *res, const struct plan *pl)
{
	const struct include_set *inc = pl->inc;

	if (!inc || !inc->n)
		return;
	res->have_included = 1;
	res->included_normalized = inc->normalize;
	res->included_files = inc->files;
	res->included_dirs = inc->dirs;
	res->included_symlinks = inc->symlinks;
	res->included_hardlinks = inc->hardlinks;
	res->included_bytes = inc->bytes;
	res->included_xattrs = inc->xattrs;
}

/*
 * Lay out the plan on the free space a block-placing backend hands over,
 * and write the --extents file.  Returns 0 or a negative errno with
 * j->msg set; lo is to be released by the caller when 0 is returned.
 */
static int lay_out(struct backend *b, struct pipeline_job *j, struct layout *lo)
{
	struct layout_request rq;
	struct freemap fm;
	uint64_t need = 0, free_blocks = 0, chunk;
	char n[32], f[32];
	int ret;

	memset(&rq, 0, sizeof(rq));
	memset(&fm, 0, sizeof(fm));
	ret = backend_layout_request(b, j->pl, &rq, &fm);
	if (ret)
		return ret;
	rq.layout_score = j->pl->prm.layout_score;
	layout_request_set_params(&rq, &j->pl->prm);
	rq.seed = j->pl->prm.seed;
	/* the free-space summary counts whole chunks of this many blocks */
	chunk = j->pl->prm.free_chunk ? j->pl->prm.free_chunk : 1 << 20;
	j->res->free.chunk_blocks = chunk / rq.block_size ? chunk / rq.block_size : 1;
	ret = layout_build(lo, &rq, &fm, &need);
	for (size_t i = 0; i < fm.nruns; i++)
		free_blocks += fm.runs[i].len;
	free(fm.runs);
	if (ret == -ENOSPC) {
		fmt_bytes(need * rq.block_size, FMT_BYTES_ADAPTIVE, n, sizeof(n));
		fmt_bytes(free_blocks * rq.block_size, FMT_BYTES_ADAPTIVE, f, sizeof(f));
		snprintf(j->msg, j->len,
			 "the plan needs %s (%" PRIu64
			 " blocks of %u KiB) but '%s' has %s free after formatting; use a larger --size",
			 n, need, rq.block_size / 1024, j->target, f);
		return ret;
	}
	if (ret) {
		snprintf(j->msg, j->len, "cannot lay out the plan: %s", strerror(-ret));
		return ret;
	}
	if (j->extents_path) {
		struct outfile out;

		ret = outfile_open(&out, j->extents_path, "'--extents'", 0, j->msg, j->len);
		if (!ret) {
			ret = verify_write_extents(j->pl, lo, rq.block_size, out.f);
			if (ret) {
				outfile_abort(&out);
				snprintf(j->msg, j->len, "cannot write the extents to '%s': %s",
					 j->extents_path, strerror(-ret));
			} else {
				ret = outfile_commit(&out, j->msg, j->len);
			}
		}
		if (ret) {
			layout_release(lo);
			return ret;
		}
	}
	return 0;
}

/*
 * Through the backend: open, lay out (a backend that places blocks), then
 * populate and finish; on failure the backend is aborted.
 */
static int run_backend(struct backend *b, struct pipeline_job *j, const struct content_source *cs)
{
	struct layout lo;
	int ret, have_layout = 0;

	ret = backend_open(b, j->o, j->pl);
	j->opened = !ret;
	if (!ret && create_cancelled(j->o))
		ret = -EINTR;
	if (!ret && (b->ops->caps & BACKEND_PLACES_BLOCKS)) {
		ret = lay_out(b, j, &lo);
		have_layout = !ret;
	}
	if (!ret && create_cancelled(j->o))
		ret = -EINTR;
	if (!ret)
		ret = backend_populate(b, j->pl, have_layout ? &lo : NULL, cs, j->res);
	if (!ret && have_layout)
		result_layout(j->res, j->pl, &lo);
	if (!ret) {
		result_meta(j->res, j->pl);
		result_included(j->res, j->pl);
	}
	if (have_layout)
		layout_release(&lo);
	if (!ret && create_cancelled(j->o))
		ret = -EINTR;
	if (!ret)
		ret = backend_finish(b);
	if (ret) {
		if (!j->msg[0])
			copy_message(j->msg, j->len, b->errmsg[0] ? b->errmsg : strerror(-ret),
				     j->o->target, j->target);
		if (j->opened)
			backend_abort(b);
	}
	return ret;
}

int pipeline_run(const struct backend_ops *ops, struct pipeline_job *j)
{
	struct backend b;
	struct content_model cm;
	struct content_source cs;
	int ret;

	backend_init(&b, ops);
	j->opened = 0;
	memset(j->res, 0, sizeof(*j->res));
	/* typed content by extension (content_random_init() is the untyped alternative) */
	ret = content_model_init(&cm, j->pl);
	if (ret) {
		snprintf(j->msg, j->len, "cannot build the content model: %s", strerror(-ret));
		return ret;
	}
	/* the chance copies hashed on as many threads as create's workers (-j) */
	ret = content_model_source_init(&cs, &cm, j->pl, j->o->jobs);
	if (ret) {
		snprintf(j->msg, j->len, "cannot build the content source: %s", strerror(-ret));
		goto out_release_model;
	}
	ret = create_cancelled(j->o) ? -EINTR : run_backend(&b, j, &cs);
	content_source_release(&cs);
out_release_model:
	content_model_release(&cm);
	return ret;
}

