/* create.c - `imprint create`: resolve, plan, check the target, build through a backend, commit */
#include <errno.h>
#include <ext2fs/ext2fs.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends/backend.h"
#include "content/source.h"
#include "content/setup.h"
#include "cli/create.h"
#include "cli/progress.h"
#include "cli/target.h"

#define EST_BLOCK 4096ULL
#define EST_INODE 256ULL
#define EST_DIRENT 24ULL      /* average ext4 directory entry with a short name */
#define EST_FIRST_INO 11ULL   /* inodes 1..10 are reserved, 11 is lost+found */
#define FAST_SYMLINK_MAX 59   /* longer targets need a block of their own */

static const char *const fs_name[] = { [FS_EXT2] = "ext2", [FS_EXT3] = "ext3", [FS_EXT4] = "ext4" };

static uint64_t blocks_of(uint64_t bytes)
{
	return (bytes + EST_BLOCK - 1) / EST_BLOCK;
}

void create_estimate(const struct plan *pl, struct create_estimate *e)
{
	uint64_t data = 0, dir_blocks = 0, nsym = 0, *nchild;
	char target[PATH_MAX];

	memset(e, 0, sizeof(*e));
	for (uint64_t f = 0; f < pl->nfiles; f++)
		data += blocks_of(pl->file_size[f]);
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		if (pl->link_kind[l] & LINK_HARD)
			continue;
		nsym++;
		if (plan_symlink_target(pl, l, target, sizeof(target)) > FAST_SYMLINK_MAX)
			data++;
	}
	nchild = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*nchild));
	for (uint32_t d = 1; nchild && d < pl->ndirs; d++)
		nchild[pl->dir_parent[d]]++;
	for (uint32_t d = 0; d < pl->ndirs; d++) {
		uint64_t n = (uint64_t)pl->dir_nfiles[d] + pl->dir_nlinks[d] + (nchild ? nchild[d] : 0);
		uint64_t b = blocks_of(24 + n * EST_DIRENT);

		dir_blocks += b ? b : 1;
	}
	free(nchild);
	e->data = data * EST_BLOCK;
	e->dirs = (dir_blocks + 1) * EST_BLOCK;  /* lost+found */
	e->inodes = (pl->nfiles + pl->ndirs + nsym + EST_FIRST_INO) * EST_INODE;
	if (pl->prm.fs != FS_EXT2) {
		int j = ext2fs_default_journal_size(pl->prm.size / EST_BLOCK);

		e->journal = j > 0 ? (uint64_t)j * EST_BLOCK : 0;
	}
	e->meta = (e->data + e->dirs) / 100;
	e->total = e->data + e->dirs + e->inodes + e->journal + e->meta;
}

/* The signal that interrupted the build, for the message. */
static volatile sig_atomic_t caught_signal;

static void on_signal(int sig)
{
	caught_signal = sig;
	backend_interrupted = 1;
}

static const int watched[] = { SIGINT, SIGTERM, SIGHUP };

static const char *signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
									     : "a signal";
}

static void signals_install(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		sigaction(watched[i], &sa, &old[i]);
}

static void signals_restore(const struct sigaction *old)
{
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		sigaction(watched[i], &old[i], NULL);
}

/*
 * Fill in 'size' (and 'fs' with --no-format) from what the target is, then
 * resolve.  Returns 0, -EINVAL (parameter error) or -ENOSPC (too large).
 */
static int resolve_for_target(const struct create_args *a, const struct target *t,
			      struct params *p)
{
	struct param_error perr = { { 0 } };
	uint64_t cap = 0;
	char h1[32], h2[32];

	if (t->is_device)
		cap = t->dev_size;
	if (a->no_format && t->fs_size)
		cap = t->fs_size;
	if (cap) {
		if (!params_is_set(p, "size")) {
			p->size = cap;
		} else if (p->size > cap) {
			progress_fmt_bytes(p->size, h1, sizeof(h1));
			progress_fmt_bytes(cap, h2, sizeof(h2));
			fprintf(stderr, "imprint: 'size' (%s) is larger than %s '%s' (%s)\n", h1,
				a->no_format ? "the file system in" : "the device", t->path, h2);
			return -ENOSPC;
		}
	}
	if (a->no_format) {
		const char *found = !strcmp(t->type, "ext4dev") ? "ext4" : t->type;

		if (params_is_set(p, "fs") && strcmp(fs_name[p->fs], found) != 0) {
			fprintf(stderr, "imprint: 'fs' is %s but '%s' holds %s; with --no-format, 'fs' must match the file system there or be left unset\n",
				fs_name[p->fs], t->path, found);
			return -EINVAL;
		}
		p->fs = !strcmp(found, "ext2") ? FS_EXT2 : !strcmp(found, "ext3") ? FS_EXT3 : FS_EXT4;
	}
	if (params_resolve(p, &perr)) {
		fprintf(stderr, "imprint: %s\n", perr.msg);
		return -EINVAL;
	}
	return 0;
}

/* Grown sizes are rounded up to this, like params' derived sizes. */
#define SIZE_GRANULE (4ULL << 20)

/*
 * A 'size' the user did not choose (derived from used and fill_share) may
 * be too small once blocks are rounded up and metadata counted; grow it to
 * fit with a 2% margin.  The plan does not depend on 'size', so `imprint
 * plan` still writes the manifest of what is built.
 */
static void grow_derived_size(struct plan *pl, int quiet)
{
	struct create_estimate e;
	uint64_t old = pl->prm.size;
	char h1[32], h2[32], h3[32];

	for (int it = 0; it < 4; it++) {
		uint64_t want;

		create_estimate(pl, &e);
		if (e.total <= pl->prm.size)
			break;
		want = e.total + e.total / 50;
		pl->prm.size = (want + SIZE_GRANULE - 1) & ~(SIZE_GRANULE - 1);
	}
	if (pl->prm.size == old || quiet)
		return;
	progress_fmt_bytes(old, h1, sizeof(h1));
	progress_fmt_bytes(e.total, h2, sizeof(h2));
	progress_fmt_bytes(pl->prm.size, h3, sizeof(h3));
	fprintf(stderr, "imprint: note: the derived 'size' (%s) is too small for the plan (about %s with metadata); using %s (give --size to choose)\n",
		h1, h2, h3);
}

static int check_fit(const struct plan *pl, const struct target *t)
{
	struct create_estimate e;
	char need[32], cap[32], data[32], dirs[32], ino[32], jnl[32], meta[32];

	create_estimate(pl, &e);
	if (e.total <= pl->prm.size)
		return 0;
	progress_fmt_bytes(e.total, need, sizeof(need));
	progress_fmt_bytes(pl->prm.size, cap, sizeof(cap));
	progress_fmt_bytes(e.data, data, sizeof(data));
	progress_fmt_bytes(e.dirs, dirs, sizeof(dirs));
	progress_fmt_bytes(e.inodes, ino, sizeof(ino));
	progress_fmt_bytes(e.journal, jnl, sizeof(jnl));
	progress_fmt_bytes(e.meta, meta, sizeof(meta));
	fprintf(stderr,
		"imprint: the plan does not fit in '%s': it needs about %s (%" PRIu64 " bytes: %s of file data in 4 KiB blocks, %s of directories, %s of inode tables, %s of journal, %s of other metadata) but %s %s; raise --size or lower --used / --files\n",
		t->path, need, e.total, data, dirs, ino, jnl, meta,
		t->is_device && !params_is_set(&pl->prm, "size") ? "the device holds" : "'size' is",
		cap);
	return -ENOSPC;
}

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

/*
 * Open, populate, finish; on failure the backend is aborted.  *opened
 * says whether open() succeeded (with --no-format, nothing is written
 * before that).
 */
static int build(const struct backend_ops *ops, const struct create_opts *o, const struct plan *pl,
		 const char *target, struct create_result *res, char *msg, size_t len, int *opened)
{
	struct backend b;
	struct content_model cm;
	struct content_source cs;
	int ret;

	memset(&b, 0, sizeof(b));
	b.ops = ops;
	*opened = 0;
	/* typed content by extension (content_random_init() is the untyped alternative) */
	ret = content_model_init(&cm, pl);
	if (ret) {
		snprintf(msg, len, "cannot build the content model: %s", strerror(-ret));
		return ret;
	}
	ret = content_model_source_init(&cs, &cm, pl);
	if (ret) {
		snprintf(msg, len, "cannot build the content source: %s", strerror(-ret));
		goto out_release_model;
	}
	if (backend_interrupted) {
		ret = -EINTR;
		goto out_release_source;
	}
	ret = ops->open(&b, o, pl);
	*opened = !ret;
	if (!ret && backend_interrupted)
		ret = -EINTR;
	if (!ret)
		ret = ops->populate(&b, pl, &cs, res);
	if (!ret && backend_interrupted)
		ret = -EINTR;
	if (!ret)
		ret = ops->finish(&b);
	if (ret) {
		copy_message(msg, len, b.errmsg[0] ? b.errmsg : strerror(-ret), o->target, target);
		ops->abort(&b);
	}
out_release_source:
	content_source_release(&cs);
out_release_model:
	content_model_release(&cm);
	return ret;
}

int create_run(const struct create_args *a, struct params *p)
{
	const struct backend_ops *ops = backend_find(a->backend ? a->backend : "ext4");
	struct target_error terr = { { 0 } };
	struct plan_error plerr = { { 0 } };
	struct sigaction old[sizeof(watched) / sizeof(watched[0])];
	struct create_result res;
	struct build_summary sum;
	struct progress pr;
	struct create_opts o;
	struct target t;
	struct plan pl;
	char msg[800], what[800];
	const char *path;
	int ret, ret2, opened = 0;

	msg[0] = '\0';
	what[0] = '\0';
	if (!ops) {
		fprintf(stderr, "imprint: unknown backend '%s' (expected ext4 or null)\n", a->backend);
		return -EINVAL;
	}
	/* everything that can refuse happens before the first write */
	ret = target_open(&t, a->target, &terr);
	if (!ret)
		ret = target_check_busy(&t, &terr);
	if (!ret)
		ret = target_check_contents(&t, a->force, a->no_format, &terr);
	if (ret) {
		if (terr.msg[0])
			fprintf(stderr, "imprint: %s\n", terr.msg);
		else
			fprintf(stderr, "imprint: '%s': %s\n", a->target, strerror(-ret));
		goto out_target;
	}
	ret = resolve_for_target(a, &t, p);
	if (ret)
		goto out_target;
	ret = plan_build(&pl, p, &plerr);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", ret == -EINVAL ? plerr.msg : strerror(-ret));
		goto out_target;
	}
	if (!params_is_set(p, "size") && !t.is_device && !(a->no_format && t.fs_size))
		grow_derived_size(&pl, a->quiet);
	ret = check_fit(&pl, &t);
	if (ret)
		goto out_plan;

	backend_interrupted = 0;
	caught_signal = 0;
	signals_install(old);
	ret = target_prepare(&t, pl.prm.size, a->no_format, &path, &terr);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", terr.msg);
		goto out_discard;
	}
	memset(&o, 0, sizeof(o));
	memset(&res, 0, sizeof(res));
	o.target = path;
	o.mkfs_options = a->mkfs_options;
	o.no_format = a->no_format;
	o.jobs = a->jobs ? a->jobs : 1;
	o.extents_path = a->extents;
	o.progress = progress_update;
	o.progress_ctx = &pr;
	progress_init(&pr, stderr, !a->quiet, pl.nfiles, pl.bytes);
	ret = build(ops, &o, &pl, t.path, &res, msg, sizeof(msg), &opened);
	/* a refused --no-format (not empty, say) wrote nothing: keep the user's file system */
	if (ret && a->no_format && !opened)
		target_untouched(&t);
	if (!ret && backend_interrupted)
		ret = -EINTR;
	if (!ret) {
		ret = target_commit(&t, &terr);
		if (ret)
			snprintf(msg, sizeof(msg), "%s", terr.msg);
	}
	sum.seconds = progress_seconds(&pr);
	progress_end(&pr);
	if (ret)
		goto out_discard;
	signals_restore(old);

	sum.target = t.path;
	sum.fs = fs_name[pl.prm.fs];
	sum.size = pl.prm.size;
	sum.seed = pl.prm.seed;
	if (!a->quiet || a->json) {
		ret = progress_print_summary(&res, &sum, a->json, stdout);
		if (ret)
			fprintf(stderr, "imprint: cannot write the summary to stdout: %s\n",
				strerror(-ret));
	}
	goto out_plan;

out_discard:
	/* ret is set; say what happened, then remove or invalidate what was written */
	if (backend_interrupted)
		ret = -EINTR;
	ret2 = target_discard(&t, what, sizeof(what), &terr);
	if (ret == -EINTR) {
		if (ret2)
			fprintf(stderr, "imprint: interrupted (%s); %s\n", signal_name(caught_signal),
				terr.msg);
		else if (what[0])
			fprintf(stderr, "imprint: interrupted (%s): %s\n",
				signal_name(caught_signal), what);
		else
			fprintf(stderr, "imprint: interrupted (%s) before anything was written\n",
				signal_name(caught_signal));
	} else {
		if (msg[0])
			fprintf(stderr, "imprint: %s\n", msg);
		if (ret2)
			fprintf(stderr, "imprint: %s\n", terr.msg);
		else if (what[0])
			fprintf(stderr, "imprint: %s\n", what);
	}
	signals_restore(old);
out_plan:
	plan_release(&pl);
out_target:
	target_release(&t);
	return ret;
}
