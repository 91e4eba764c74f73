/* fsread.c - read-only walk of an image, device or mounted tree: the API and the shared walk */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "read/fsread_ops.h"
#include "util/util.h"

/* Deeper than this, a tree is taken for a loop or a corruption. */
#define FSREAD_MAX_DEPTH 2048

static int path_set(struct fsread *fs, size_t base, const char *name, size_t len)
{
	if (array_grow(&fs->path, &fs->path_cap, base + len + 2, 1))
		return -ENOMEM;
	fs->path[base] = '/';
	memcpy(fs->path + base + 1, name, len);
	fs->path[base + 1 + len] = '\0';
	return 0;
}

static void levels_free(struct fsr_level *lv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(lv[i].d);
		free(lv[i].names);
		if (lv[i].fd >= 0)
			close(lv[i].fd);
	}
	free(lv);
}

/* ---- the API --------------------------------------------------------- */

int fsread_open(const char *target, unsigned flags, struct fsread **out,
		struct fsread_error *err)
{
	return fsread_open_part(target, 0, flags, out, err);
}

/* The readers, in the order their probes are asked: the first that takes a target reads it. */
static const struct fsread_ops *const fsread_readers[] = {
	&fsread_ext2_ops,
	&fsread_mounted_ops,
	&fsread_loop_ops,
};

const char *fsread_reader_for(const char *type, int is_dir)
{
	struct fsread_probe p = { .is_dir = is_dir, .type = type ? type : "" };

	for (size_t i = 0; i < ARRAY_SIZE(fsread_readers); i++)
		if (fsread_readers[i]->probe(&p))
			return fsread_readers[i]->name;
	return NULL;
}

static const struct fsread_ops *reader_named(const char *name)
{
	for (size_t i = 0; name && i < ARRAY_SIZE(fsread_readers); i++)
		if (!strcmp(fsread_readers[i]->name, name))
			return fsread_readers[i];
	return NULL;
}

int fsread_open_part(const char *target, int part, unsigned flags, struct fsread **out,
		     struct fsread_error *err)
{
	struct fsread *fs;
	struct stat st;
	int ret;

	*out = NULL;
	if (stat(target, &st)) {
		int e = errno;

		fsread_set_err(err, "cannot open '%s': %s", target, strerror(e));
		return -e;
	}
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode) && !S_ISDIR(st.st_mode)) {
		fsread_set_err(err, "'%s' is neither an image file, a block device nor a directory", target);
		return -EINVAL;
	}
	if (S_ISDIR(st.st_mode) && part) {
		fsread_set_err(err, "'%s' is a directory; --partition %d is for partitioned disks",
			       target, part);
		return -EINVAL;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs || !(fs->target = strdup(target))) {
		free(fs);
		fsread_set_err(err, "out of memory");
		return -ENOMEM;
	}
	fs->flags = flags;
	ret = S_ISDIR(st.st_mode) ? 0 : fsread_find(target, part, &fs->place, err);
	if (ret)
		goto out_close;
	fs->ops = reader_named(fsread_reader_for(fs->place.type, S_ISDIR(st.st_mode)));
	if (!fs->ops) {
		fsread_set_err(err, "'%s': no reader reads its %s file system", target, fs->place.type);
		ret = -EINVAL;
		goto out_close;
	}
	ret = fs->ops->open(fs, err);
	if (ret)
		goto out_close;
	*out = fs;
	return 0;
out_close:
	fsread_close(fs);
	return ret;
}

void fsread_close(struct fsread *fs)
{
	if (!fs)
		return;
	if (fs->ops)
		fs->ops->close(fs);
	FREE_ALL(fs->path, fs->ext, fs->mblk, fs->unp, fs->link, fs->target, fs);
}

int fsread_partition(const struct fsread *fs)
{
	return fs->place.partno;
}

int fsread_is_image(const struct fsread *fs)
{
	return fs->ops->image;
}

const char *fsread_reader(const struct fsread *fs)
{
	return fs->ops->name;
}

const char *fsread_kind(const struct fsread *fs)
{
	return fs->kind;
}

uint64_t fsread_unreadable(const struct fsread *fs)
{
	return fs->unreadable;
}

/*
 * Call fn(arg, start, len) for each hole of e (fsread_hole_blocks()), in
 * order: the gaps in [0, i_size in blocks) between the runs of extents and
 * unplaced, both sorted by logical block, merged as they come (a corrupt
 * overlap counts once).  Returns 0 or what fn returned.
 */
static int walk_holes(const struct fsread_entry *e, unsigned bs,
		      int (*fn)(void *arg, uint64_t start, uint64_t len), void *arg)
{
	size_t i = 0, j = 0;
	uint64_t nb, next = 0;
	int ret;

	if (e->type != FSREAD_FILE || !e->extents || e->extents_unknown || e->inline_data || !bs)
		return 0;
	nb = e->size / bs + (e->size % bs != 0);
	while (next < nb) {
		const struct fsread_extent *x = NULL;
		uint64_t s, t;

		if (i < e->nextents &&
		    (j >= e->nunplaced || e->extents[i].logical <= e->unplaced[j].logical))
			x = &e->extents[i++];
		else if (j < e->nunplaced)
			x = &e->unplaced[j++];
		s = x ? x->logical : nb;
		t = x ? s + x->len : nb;
		if (t < s)
			t = UINT64_MAX;
		if (s > nb)
			s = nb;
		if (s > next) {
			ret = fn(arg, next, s - next);
			if (ret)
				return ret;
		}
		if (t > next)
			next = t;
	}
	return 0;
}

static int count_hole(void *arg, uint64_t start, uint64_t len)
{
	(void)start;
	*(uint64_t *)arg += len;
	return 0;
}

uint64_t fsread_hole_blocks(const struct fsread_entry *e, unsigned bs)
{
	uint64_t n = 0;

	walk_holes(e, bs, count_hole, &n);
	return n;
}

struct hole_list {
	struct fsread_extent **runs;
	size_t *cap, n;
};

static int list_hole(void *arg, uint64_t start, uint64_t len)
{
	struct hole_list *h = arg;

	if (array_grow(h->runs, h->cap, h->n + 1, sizeof(**h->runs)))
		return -ENOMEM;
	(*h->runs)[h->n++] = (struct fsread_extent){ start, 0, len, 0 };
	return 0;
}

ssize_t fsread_holes(const struct fsread_entry *e, unsigned bs, struct fsread_extent **runs,
		     size_t *cap)
{
	struct hole_list h = { runs, cap, 0 };
	int ret = walk_holes(e, bs, list_hole, &h);

	return ret ? ret : (ssize_t)h.n;
}

int fsread_has_extents(const struct fsread *fs)
{
	return (fs->flags & FSREAD_EXTENTS) && !fs->no_fiemap;
}

const struct fsread_geometry *fsread_geometry(const struct fsread *fs)
{
	return &fs->geo;
}

/* A walk in progress: the callback and the directories entered, the current one last. */
struct fsr_walk {
	struct fsread *fs;
	int (*fn)(struct fsread *fs, const struct fsread_entry *e, void *arg);
	void *arg;
	struct fsread_error *err;
	struct fsr_level *lv;
	size_t nlv, caplv;
};

/* Fill fs->ent for the root and hand it over. */
static int walk_root(struct fsr_walk *w)
{
	struct fsread *fs = w->fs;
	int ret;

	if (array_grow(&fs->path, &fs->path_cap, 2, 1))
		return -ENOMEM;
	strcpy(fs->path, "/");
	fs->ent.path = fs->path;
	fs->ent.name = "";
	fs->ent.name_len = 0;
	fs->ent.depth = 0;
	ret = fs->ops->root(fs, w->err);
	if (ret > 0)
		ret = -EINVAL;
	if (ret)
		return ret;
	if (fs->ent.type != FSREAD_DIR) {
		fsread_set_err(w->err, "'%s': corrupt: the root (inode %u) is not a directory", fs->target,
			FSREAD_ROOT_INO);
		return -EINVAL;
	}
	return w->fn(fs, &fs->ent, w->arg);
}

/* Enter the directory just handed over, name in the current one: read its names. */
static int walk_enter(struct fsr_walk *w, const char *name)
{
	struct fsread *fs = w->fs;
	struct fsr_level *top;
	int ret;

	if (w->nlv >= FSREAD_MAX_DEPTH) {
		fsread_set_err(w->err, "'%s': '%s' is more than %d directories deep", fs->target, fs->path,
			FSREAD_MAX_DEPTH);
		return -ELOOP;
	}
	if (array_grow(&w->lv, &w->caplv, w->nlv + 1, sizeof(*w->lv)))
		return -ENOMEM;
	top = &w->lv[w->nlv];
	memset(top, 0, sizeof(*top));
	top->fd = -1;
	top->path_len = strlen(fs->path);
	w->nlv++;
	ret = fs->ops->read_dir(fs, &w->lv[w->nlv - 2], name, top, w->err);
	if (ret == 1) {
		/* not ours to read: walk on without its entries */
		w->nlv--;
		ret = 0;
	}
	return ret;
}

/* Take the next name of the current directory (or leave it): fill fs->ent, hand it over. */
static int walk_next(struct fsr_walk *w)
{
	struct fsread *fs = w->fs;
	struct fsr_level *top = &w->lv[w->nlv - 1];
	const struct fsr_dent *d;
	const char *name;
	int ret;

	if (top->next == top->n) {
		w->nlv--;
		free(top->d);
		free(top->names);
		if (top->fd >= 0)
			close(top->fd);
		return 0;
	}
	d = &top->d[top->next++];
	name = top->names + d->name_off;
	ret = path_set(fs, top->path_len, name, d->name_len);
	if (ret)
		return ret;
	fs->ent.path = fs->path;
	fs->ent.name = fs->path + top->path_len + 1;
	fs->ent.name_len = d->name_len;
	fs->ent.depth = (unsigned)(w->nlv - 1);
	ret = fs->ops->entry(fs, top, d, name, w->err);
	if (ret == 1)
		return 0;
	if (ret)
		return ret;
	ret = w->fn(fs, &fs->ent, w->arg);
	if (fs->ops->entry_done)
		fs->ops->entry_done(fs);
	if (ret)
		return ret;
	if (fs->ent.type != FSREAD_DIR)
		return 0;
	return walk_enter(w, name);
}

/* Hand the root over, then every entry below it, each directory's names in order. */
int fsread_walk(struct fsread *fs, int (*fn)(struct fsread *fs, const struct fsread_entry *e,
					     void *arg),
		void *arg, struct fsread_error *err)
{
	struct fsr_walk w = { .fs = fs, .fn = fn, .arg = arg, .err = err };
	int ret;

	ret = walk_root(&w);
	if (ret)
		goto out_stop;

	/* the root's names */
	if (array_grow(&w.lv, &w.caplv, 1, sizeof(*w.lv))) {
		ret = -ENOMEM;
		goto out_stop;
	}
	memset(&w.lv[0], 0, sizeof(w.lv[0]));
	w.lv[0].fd = -1;
	w.nlv = 1;
	ret = fs->ops->read_dir(fs, NULL, NULL, &w.lv[0], err);
	while (!ret && w.nlv)
		ret = walk_next(&w);
	if (ret == -ENOMEM && err && !err->msg[0])
		fsread_set_err(err, "'%s': out of memory", fs->target);
	levels_free(w.lv, w.nlv);
out_stop:
	if (fs->ops->walk_done)
		fs->ops->walk_done(fs);
	fs->ent.path = NULL;
	return ret;
}

ssize_t fsread_read(struct fsread *fs, const struct fsread_entry *e, void *buf, size_t len,
		    uint64_t off, struct fsread_error *err)
{
	if (e != &fs->ent || !e->path || e->type != FSREAD_FILE) {
		fsread_set_err(err, "'%s': fsread_read: not the current regular file", fs->target);
		return -EINVAL;
	}
	if (off >= e->size)
		return 0;
	if (len > e->size - off)
		len = e->size - off;
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	return fs->ops->read(fs, e, buf, len, off, err);
}

int fsread_xattrs(struct fsread *fs, const struct fsread_entry *e, struct fsread_xattrs *x,
		  struct fsread_error *err)
{
	memset(x, 0, sizeof(*x));
	if (e != &fs->ent || !e->path) {
		fsread_set_err(err, "'%s': fsread_xattrs: not the current entry", fs->target);
		return -EINVAL;
	}
	return fs->ops->xattrs(fs, e, x, err);
}

int fsread_free_extents(struct fsread *fs, const struct fsread_extent **ext, size_t *n,
			struct fsread_error *err)
{
	*ext = NULL;
	*n = 0;
	if (!fs->ops->free_extents || !(fs->flags & FSREAD_FREE)) {
		fsread_set_err(err, "'%s': free extents are known only for images and devices", fs->target);
		return -EOPNOTSUPP;
	}
	return fs->ops->free_extents(fs, ext, n, err);
}
