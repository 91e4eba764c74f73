/* null.c - the null backend: accepts a plan, writes nothing; for tests and benchmarks */
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"

static int null_open(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	(void)o;
	(void)pl;
	b->priv = NULL;
	return 0;
}

static int null_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
			 const struct content_source *cs, struct create_result *res)
{
	(void)b;
	(void)lo;
	(void)cs;
	res->files = pl->nfiles;
	res->dirs = pl->ndirs;
	res->links = pl->nlinks;
	res->bytes = pl->bytes;
	return 0;
}

static int null_finish(struct backend *b)
{
	(void)b;
	return 0;
}

static void null_abort(struct backend *b)
{
	(void)b;
}

static const char *const null_fs_names[] = { NULL };

const struct backend_ops null_backend_ops = {
	.name = "null",
	.caps = BACKEND_DISKLESS | BACKEND_INCLUDES, /* nothing to write: counted */
	.targets = BACKEND_TARGET_FILE,
	.fs_names = null_fs_names, /* none: only --backend null picks it */
	.summary = "writes nothing",
	.open = null_open,
	.populate = null_populate,
	.finish = null_finish,
	.abort = null_abort,
};
