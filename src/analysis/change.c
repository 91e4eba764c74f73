/* change.c - the change between two states of a tree (profile --since): each file matched by path, then by bytes */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "analysis/change.h"
#include "read/fsread.h"
#include "util/util.h"

#define BLOCK 4096u

/* A regular file of one side: its bytes as one hash and a hash per 4 KiB block. */
struct cfile {
	char *path;
	uint64_t size, hash;
	uint64_t *blocks;  /* OLD only: size / 4 KiB rounded up */
	int64_t mtime;
	uint32_t mtime_ns, mode;
	int matched;
};

struct side {
	struct cfile *f;
	size_t n, cap;
	char **dirs;
	size_t nd, capd;
};

struct walk {
	struct side *side;
	const struct side *old;  /* while NEW is walked: OLD, sorted by path */
	struct change_model *cm;
	int is_new;
	unsigned char *buf;
	struct fsread_error *err;
};

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct cfile *)a)->path, ((const struct cfile *)b)->path);
}

static int by_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int by_bytes(const void *a, const void *b)
{
	const struct cfile *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static struct cfile *find_path(const struct side *s, const char *path)
{
	struct cfile key = { .path = (char *)path };

	return s->n ? bsearch(&key, s->f, s->n, sizeof(*s->f), by_path) : NULL;
}

/* Whether path's directory is the same as other's. */
static int same_dir(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');

	return sa - a == sb - b && !strncmp(a, b, (size_t)(sa - a));
}

/*
 * Read e whole: its hash into f, its block hashes (keep_blocks), and the
 * hash of its first `prefix` bytes into *prefix_hash, the count of its
 * 4 KiB blocks whose hash differs from old_blocks (an old file of
 * old_size bytes: whole blocks both have, or every block at the same
 * size) into *differ.
 */
static int read_file(struct walk *w, struct fsread *fs, const struct fsread_entry *e,
		     struct cfile *f, int keep_blocks, uint64_t prefix, uint64_t *prefix_hash,
		     const uint64_t *old_blocks, uint64_t old_size, uint64_t *differ)
{
	XXH3_state_t *st = XXH3_createState();
	uint64_t off = 0, nb = (e->size + BLOCK - 1) / BLOCK;
	int ret = 0;

	if (!st)
		return -ENOMEM;
	XXH3_64bits_reset(st);
	if (keep_blocks && nb && !(f->blocks = malloc(nb * sizeof(uint64_t))))
		ret = -ENOMEM;
	while (!ret && off < e->size) {
		ssize_t n = fsread_read(fs, e, w->buf, BLOCK, off, w->err);
		uint64_t h;

		if (n <= 0) {
			ret = n < 0 ? (int)n : -EIO;
			break;
		}
		if (off < prefix && off + (uint64_t)n > prefix) {
			XXH3_64bits_update(st, w->buf, (size_t)(prefix - off));
			*prefix_hash = XXH3_64bits_digest(st);
			XXH3_64bits_update(st, w->buf + (prefix - off), (size_t)(off + (uint64_t)n - prefix));
		} else {
			XXH3_64bits_update(st, w->buf, (size_t)n);
		}
		h = XXH3_64bits(w->buf, (size_t)n);
		if (f->blocks)
			f->blocks[off / BLOCK] = h;
		/* a whole block the old file has too (or any, at the same size) */
		if (old_blocks && off + (uint64_t)n <= old_size &&
		    ((size_t)n == BLOCK || e->size == old_size) && old_blocks[off / BLOCK] != h)
			(*differ)++;
		off += (uint64_t)n;
		if (off == prefix)
			*prefix_hash = XXH3_64bits_digest(st);
	}
	f->hash = XXH3_64bits_digest(st);
	XXH3_freeState(st);
	return ret;
}

/* A file of NEW at a path OLD has too: unchanged, metadata only, or modified by kind. */
static void classify(struct change_model *cm, struct cfile *o, const struct cfile *f,
		     uint64_t prefix_hash, uint64_t differ)
{
	uint64_t nb = (o->size + BLOCK - 1) / BLOCK;

	o->matched = 1;
	if (f->size == o->size && f->hash == o->hash) {
		if (f->mtime == o->mtime && f->mtime_ns == o->mtime_ns && f->mode == o->mode) {
			cm->unchanged++;
		} else {
			cm->meta++;
			cm->meta_mode += f->mode != o->mode;
		}
	} else if (f->size > o->size && prefix_hash == o->hash) {
		cm->appended++;
		cm->append_share_sum += o->size ? (double)(f->size - o->size) / (double)o->size : 1;
	} else if (f->size < o->size && f->size >= BLOCK && !differ) {
		/* its whole blocks (one at least) are the old file's: cut, not rewritten */
		cm->truncated++;
	} else if (f->size == o->size && nb && differ * 2 < nb) {
		cm->edited++;
		cm->edit_block_share_sum += (double)differ / (double)nb;
	} else {
		cm->rewritten++;
	}
}

static int grow(void **p, size_t *cap, size_t n, size_t each)
{
	void *q;

	if (n < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 256;
	q = realloc(*p, *cap * each);
	if (!q)
		return -ENOMEM;
	*p = q;
	return 0;
}

static int on_entry(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct walk *w = arg;
	struct side *s = w->side;
	struct cfile f = { 0 }, *o = NULL;
	uint64_t prefix_hash = 0, differ = 0;
	int ret;

	if (e->type == FSREAD_DIR && e->path[1]) {
		if (grow((void **)&s->dirs, &s->capd, s->nd, sizeof(char *)))
			return -ENOMEM;
		if (!(s->dirs[s->nd] = strdup(e->path)))
			return -ENOMEM;
		s->nd++;
		return 0;
	}
	if (e->type != FSREAD_FILE || !e->first_name)
		return 0;
	f.size = e->size;
	f.mtime = e->mtime.sec;
	f.mtime_ns = e->mtime.nsec;
	f.mode = e->mode & 07777;
	if (w->is_new)
		o = find_path(w->old, e->path);
	ret = read_file(w, fs, e, &f, !w->is_new, o ? o->size : 0, &prefix_hash,
			o ? o->blocks : NULL, o ? o->size : 0, &differ);
	if (ret) {
		free(f.blocks);
		return ret;
	}
	if (w->is_new && f.mtime > w->cm->newest_after)
		w->cm->newest_after = f.mtime;
	if (o) {
		/* a path both sides hold: judged now, nothing kept */
		classify(w->cm, o, &f, prefix_hash, differ);
		return 0;
	}
	if (grow((void **)&s->f, &s->cap, s->n, sizeof(*s->f))) {
		free(f.blocks);
		return -ENOMEM;
	}
	if (!(f.path = strdup(e->path))) {
		free(f.blocks);
		return -ENOMEM;
	}
	s->f[s->n++] = f;
	return 0;
}

static void side_release(struct side *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->f[i].path);
		free(s->f[i].blocks);
	}
	for (size_t i = 0; i < s->nd; i++)
		free(s->dirs[i]);
	free(s->f);
	free(s->dirs);
	memset(s, 0, sizeof(*s));
}

static int walk_side(const char *path, struct walk *w)
{
	struct fsread_error err = { { 0 } };
	struct fsread *fs = NULL;
	int ret;

	w->err = &err;
	ret = fsread_open(path, 0, &fs, &err);
	if (!ret)
		ret = fsread_walk(fs, on_entry, w, &err);
	if (ret == -ENOMEM)
		fprintf(stderr, "imprint: profile --since: '%s': out of memory\n", path);
	else if (ret)
		fprintf(stderr, "imprint: profile --since: %s\n",
			err.msg[0] ? err.msg : strerror(-ret));
	fsread_close(fs);
	return ret;
}

/* Files of OLD no path of NEW took, matched by bytes with NEW's new paths: renamed or moved. */
static void match_moves(struct change_model *cm, struct side *old, struct side *new_)
{
	size_t gone = 0;

	/* the array keeps only the files no path of NEW took */
	for (size_t i = 0; i < old->n; i++) {
		if (old->f[i].matched) {
			free(old->f[i].path);
			free(old->f[i].blocks);
		} else {
			old->f[gone++] = old->f[i];
		}
	}
	old->n = gone;
	qsort(old->f, gone, sizeof(*old->f), by_bytes);
	for (size_t i = 0; i < new_->n; i++) {
		struct cfile *f = &new_->f[i], *m;
		size_t at;

		m = gone ? bsearch(f, old->f, gone, sizeof(*old->f), by_bytes) : NULL;
		if (m) {
			/* the first of equal bytes not taken yet */
			at = (size_t)(m - old->f);
			while (at > 0 && !by_bytes(&old->f[at - 1], f))
				at--;
			while (at < gone && !by_bytes(&old->f[at], f) && old->f[at].matched)
				at++;
			m = at < gone && !by_bytes(&old->f[at], f) ? &old->f[at] : NULL;
		}
		if (!m) {
			cm->created++;
			continue;
		}
		m->matched = 1;
		if (same_dir(m->path, f->path))
			cm->renamed++;
		else
			cm->moved++;
	}
	for (size_t i = 0; i < gone; i++)
		cm->deleted += !old->f[i].matched;
}

int change_model_build(const char *old, const char *new_, struct change_model *cm)
{
	struct side so = { 0 }, sn = { 0 };
	struct walk w = { .cm = cm };
	char *seen = NULL;
	int ret;

	memset(cm, 0, sizeof(*cm));
	cm->old = old;
	cm->new_ = new_;
	w.buf = malloc(BLOCK);
	if (!w.buf)
		return -ENOMEM;
	w.side = &so;
	ret = walk_side(old, &w);
	if (ret)
		goto out;
	cm->files_before = so.n;
	cm->dirs_before = so.nd;
	for (size_t i = 0; i < so.n; i++)
		cm->newest_before = MAX(cm->newest_before, so.f[i].mtime);
	qsort(so.f, so.n, sizeof(*so.f), by_path);
	qsort(so.dirs, so.nd, sizeof(char *), by_str);
	w.side = &sn;
	w.old = &so;
	w.is_new = 1;
	ret = walk_side(new_, &w);
	if (ret)
		goto out;
	seen = calloc(so.nd + 1, 1);
	if (!seen) {
		ret = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < sn.nd; i++) {
		char **d = so.nd ? bsearch(&sn.dirs[i], so.dirs, so.nd, sizeof(char *), by_str) : NULL;

		if (d)
			seen[d - so.dirs] = 1;
		else
			cm->dirs_created++;
	}
	for (size_t i = 0; i < so.nd; i++)
		cm->dirs_removed += !seen[i];
	match_moves(cm, &so, &sn);
out:
	free(seen);
	side_release(&so);
	side_release(&sn);
	free(w.buf);
	return ret;
}

static double per(uint64_t n, uint64_t of)
{
	return of ? (double)n / (double)of : 0;
}

void change_model_apply(const struct change_model *cm, struct params *p)
{
	uint64_t F = cm->files_before, mod = cm->appended + cm->truncated + cm->edited + cm->rewritten;
	double days = (double)(cm->newest_after - cm->newest_before) / 86400.0;

	p->gen_modify_share = per(mod, F);
	p->gen_delete_share = per(cm->deleted, F);
	p->gen_create_share = MIN(per(cm->created, F), 10.0);
	/* the two states' count of new files, not a byte target */
	p->gen_growth_share = -1;
	p->gen_rename_share = per(cm->renamed, F);
	p->gen_move_share = per(cm->moved, F);
	p->gen_meta_share = per(cm->meta, F);
	/* a kind the change did not show keeps its default */
	if (cm->meta)
		p->gen_mode_share = per(cm->meta_mode, cm->meta);
	if (cm->appended)
		p->gen_append_share = MIN(cm->append_share_sum / (double)cm->appended, 100.0);
	if (cm->appended + cm->truncated)
		p->gen_truncate_share = per(cm->truncated, cm->appended + cm->truncated);
	if (cm->edited && cm->edit_block_share_sum > 0)
		p->gen_edit_block_share = cm->edit_block_share_sum / (double)cm->edited;
	p->gen_dir_create_share = MIN(per(cm->dirs_created, cm->dirs_before ? cm->dirs_before : 1),
				      10.0);
	p->gen_dir_remove_share = per(cm->dirs_removed, cm->dirs_before);
	if (days > 0)
		p->gen_interval_days = days;
}
