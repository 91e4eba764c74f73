/* pipeline.c - the core's part of `imprint create`: content beside the backend's open and layout, then populate, finish */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
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
#include "util/cleanup.h"
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
 * its block size into *block_size.  Returns 0 or a negative errno with
 * j->msg set; lo is to be released by the caller when 0 is returned.
 */
static int lay_out(struct backend *b, struct pipeline_job *j, struct layout *lo,
		   uint32_t *block_size)
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
	*block_size = rq.block_size;
	return 0;
}

/* Write layout lo (blocks of block_size bytes) to the --extents file.  Returns 0 or a negative errno with j->msg set. */
static int write_extents(struct pipeline_job *j, const struct layout *lo, uint32_t block_size)
{
	struct outfile out;
	int ret;

	ret = outfile_open(&out, j->extents_path, "'--extents'", 0, j->msg, j->len);
	if (ret)
		return ret;
	ret = verify_write_extents(j->pl, lo, block_size, out.f);
	if (ret) {
		outfile_abort(&out);
		snprintf(j->msg, j->len, "cannot write the extents to '%s': %s", j->extents_path,
			 strerror(-ret));
		return ret;
	}
	return outfile_commit(&out, j->msg, j->len);
}

/*
 * The content model and source of the plan, built on a thread of their
 * own while the backend opens the target and lays the plan out: both are
 * pure functions of the plan, which neither side changes, and nothing but
 * populate reads them.  The thread blocks every signal, and so do the
 * threads that hash the chance copies for it (they inherit its mask): a
 * signal goes where it went when the content came first.
 */
struct content_build {
	const struct plan *pl;
	unsigned threads;	/* content_model_source_init()'s */
	struct content_model cm;
	struct content_source cs;
	int model_ret;		/* content_model_init()'s */
	int source_ret;		/* content_model_source_init()'s, once the model was built */
	pthread_t tid;
	int running;		/* on tid, not joined yet */
};

/* The content of cb->pl; a test's IMPRINT_TEST_FAIL_AT fails a part as a failed allocation would. */
static void content_build(struct content_build *cb)
{
	/* typed content by extension (content_random_init() is the untyped alternative) */
	cb->model_ret = cleanup_test_fail("content-model") ? -ENOMEM :
			content_model_init(&cb->cm, cb->pl);
	if (cb->model_ret)
		return;
	/* the chance copies hashed on as many threads as create's workers (-j) */
	cb->source_ret = cleanup_test_fail("content-source") ? -ENOMEM :
			 content_model_source_init(&cb->cs, &cb->cm, cb->pl, cb->threads);
	if (cb->source_ret)
		content_model_release(&cb->cm);
}

static void *content_build_thread(void *arg)
{
	content_build(arg);
	return NULL;
}

/* Start building the content of pl; on this thread, now, when no other can start. */
static void content_build_start(struct content_build *cb, const struct plan *pl, unsigned threads)
{
	sigset_t all, old;

	memset(cb, 0, sizeof(*cb));
	cb->pl = pl;
	cb->threads = threads;
	sigfillset(&all);
	if (pthread_sigmask(SIG_SETMASK, &all, &old) == 0) {
		cb->running = !pthread_create(&cb->tid, NULL, content_build_thread, cb);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (!cb->running)
		content_build(cb);
}

/* Wait for the build's thread, when it runs and was not joined yet. */
static void content_build_wait(struct content_build *cb)
{
	if (cb->running) {
		pthread_join(cb->tid, NULL);
		cb->running = 0;
	}
}

/*
 * Wait for the content; again after it is a no-op.  Returns 0, or the
 * first failure in the order of the build (the model's, then the
 * source's) with j->msg saying it, over any message already there.
 */
static int content_build_join(struct content_build *cb, struct pipeline_job *j)
{
	content_build_wait(cb);
	if (cb->model_ret) {
		snprintf(j->msg, j->len, "cannot build the content model: %s",
			 strerror(-cb->model_ret));
		return cb->model_ret;
	}
	if (cb->source_ret) {
		snprintf(j->msg, j->len, "cannot build the content source: %s",
			 strerror(-cb->source_ret));
		return cb->source_ret;
	}
	return 0;
}

/* Join the content build (when not yet) and free what it made. */
static void content_build_release(struct content_build *cb)
{
	content_build_wait(cb);
	if (cb->model_ret || cb->source_ret)
		return;
	content_source_release(&cb->cs);
	content_model_release(&cb->cm);
}

/*
 * Through the backend: open and lay out (a backend that places blocks)
 * while cb builds the content, then populate and finish; on failure the
 * backend is aborted.  A failure of the content is the one told, over the
 * backend's: it came first when the content was built first.
 */
static int run_backend(struct backend *b, struct pipeline_job *j, struct content_build *cb)
{
	struct layout lo;
	uint32_t block_size = 0;
	int ret, cret, have_layout = 0;

	ret = create_cancelled(j->o) ? -EINTR : backend_open(b, j->o, j->pl);
	j->opened = !ret;
	if (!ret && create_cancelled(j->o))
		ret = -EINTR;
	if (!ret && (b->ops->caps & BACKEND_PLACES_BLOCKS)) {
		ret = lay_out(b, j, &lo, &block_size);
		have_layout = !ret;
	}
	cret = content_build_join(cb, j);
	if (cret)
		ret = cret;
	if (!ret && have_layout && j->extents_path)
		ret = write_extents(j, &lo, block_size);
	if (!ret && create_cancelled(j->o))
		ret = -EINTR;
	if (!ret)
		ret = backend_populate(b, j->pl, have_layout ? &lo : NULL, &cb->cs, j->res);
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
	/* aborted before populate: as when the content failed before the open (--no-format: untouched) */
	if (cret)
		j->opened = 0;
	return ret;
}

int pipeline_run(const struct backend_ops *ops, struct pipeline_job *j)
{
	struct backend b;
	struct content_build cb;
	int ret;

	backend_init(&b, ops);
	j->opened = 0;
	memset(j->res, 0, sizeof(*j->res));
	content_build_start(&cb, j->pl, j->o->jobs);
	ret = run_backend(&b, j, &cb);
	content_build_release(&cb);
	return ret;
}
