/* content_walk.c - content-report's walk: each regular file's bytes and holes into the statistics */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/content_stats.h"
#include "read/fsread.h"
#include "util/array.h"

struct entry_read {
	struct fsread *fs;
	const struct fsread_entry *e;
	struct fsread_error *err;
};

/* content_stats_read()'s reader over fsread_read(): exactly len bytes. */
static int entry_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	struct entry_read *r = ctx;
	uint8_t *b = buf;

	while (len) {
		ssize_t n = fsread_read(r->fs, r->e, b, len, off, r->err);

		if (n < 0)
			return (int)n;
		if (n == 0) /* shorter than its size: changed since its statx, or a /sys file */
			return -ENODATA;
		b += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The holes of e into w->hole: fsread_holes()'s runs of blocks of bs bytes
 * as byte ranges, the last one cut at the size.  Returns 0 or -ENOMEM.
 */
static int entry_holes(struct content_walk *w, const struct fsread_entry *e, uint64_t bs)
{
	ssize_t n = fsread_holes(e, (unsigned)bs, &w->run, &w->run_cap);

	w->nhole = 0;
	if (n <= 0)
		return (int)n;
	if (array_grow(&w->hole, &w->hole_cap, (size_t)n, sizeof(*w->hole)))
		return -ENOMEM;
	for (ssize_t i = 0; i < n; i++) {
		uint64_t s = w->run[i].logical * bs, t = (w->run[i].logical + w->run[i].len) * bs;

		w->hole[i].off = s;
		w->hole[i].len = (t < e->size ? t : e->size) - s;
	}
	w->nhole = (size_t)n;
	return 0;
}

int content_walk_entry(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct content_walk *w = arg;
	struct entry_read r = { .fs = fs, .e = e, .err = w->err };
	int ret;

	if (e->type != FSREAD_FILE || !e->first_name)
		return 0;
	w->err->msg[0] = '\0';
	ret = entry_holes(w, e, fsread_geometry(fs)->block_size);
	if (!ret)
		ret = content_stats_read(w->st, e->path, e->size, w->hole, w->nhole, entry_read, &r);
	if (ret && ret != -ENOMEM) {
		/* one file that cannot be read (gone, changed, a /sys file): skipped and counted */
		fsread_skipped(fs, ret);
		return 0;
	}
	if (ret && !w->err->msg[0])
		snprintf(w->err->msg, sizeof(w->err->msg), "'%s': %s", e->path, strerror(-ret));
	return ret;
}

void content_walk_release(struct content_walk *w)
{
	free(w->run);
	free(w->hole);
	w->run = NULL;
	w->hole = NULL;
}
