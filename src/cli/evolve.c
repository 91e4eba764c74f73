/* evolve.c - `imprint evolve`: a directory (through the kernel) or an ext2/3/4 image (through libext2fs) holding generation N-1 of a plan turned into generation N */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "backends/registry.h"
#include "cli/commands.h"
#include "cli/evolve.h"
#include "cli/evolve_feed.h"
#include "content/model.h"
#include "content/setup.h"
#include "content/source.h"
#include "plan/generation.h"
#include "plan/plan.h"
#include "read/evolve_mark.h"
#include "report/gen_report.h"
#include "util/cleanup.h"
#include "util/util.h"

#define NONE UINT64_MAX
#define CHUNK (1u << 20)

struct evolve;

/* The steps of apply(), in order. */
enum { ST_DELETE, ST_ASIDE, ST_MKDIR, ST_MOVE, ST_RMDIR, ST_WRITE, ST_DIRMETA, STEPS };

/*
 * The moves evolve makes in TARGET, by path (TARGET's root prefixed), each
 * 0 or a negative errno: through the kernel for a directory, through
 * its backend's editor for an image or device (stat fills a
 * struct backend_edit_stat for both).  open() creates (the name must be
 * free) and/or truncates; a handle is for pwrite, truncate and close.
 */
struct evolve_ops {
	int (*stat)(struct evolve *ev, const char *path, struct backend_edit_stat *st);
	int (*unlink)(struct evolve *ev, const char *path);
	int (*rename)(struct evolve *ev, const char *from, const char *to);
	int (*mkdir)(struct evolve *ev, const char *path);
	int (*rmdir)(struct evolve *ev, const char *path);
	int (*set_meta)(struct evolve *ev, const char *path, const struct plan_meta *m);
	int (*open)(struct evolve *ev, const char *path, int create, int trunc, void **h);
	int (*pwrite)(struct evolve *ev, void *h, const void *buf, size_t n, uint64_t off);
	int (*truncate)(struct evolve *ev, void *h, uint64_t size);
	int (*close)(struct evolve *ev, void *h);
	/*
	 * Start writing [off, off + len) of an open file back (the kernel
	 * allocates its blocks now), or NULL: the target places blocks as
	 * they are written (libext2fs), and evolve writes each file at once.
	 */
	int (*writeback)(void *h, uint64_t off, uint64_t len);
};

/* The two generations and what joins them: each stable key's file and directory in both. */
struct evolve {
	const char *target;
	const char *name;  /* what messages call TARGET (create --backing: the backing's copy) */
	int scratch;  /* a copy of no value on failure (create --backing): no advice to restore it */
	volatile sig_atomic_t *cancel;  /* set by a signal: stop at the next move (-EINTR) */
	char why[512];  /* check_target(): why TARGET is not generation N-1 */
	int already;  /* check_target(): TARGET holds generation N already (the run again) */
	struct backend_edit_usage *usage;  /* filled after a successful evolve of an image, or NULL */
	const char *root;  /* prefix of TARGET's paths: TARGET for a directory, "" for an image */
	const struct evolve_ops *ops;
	const struct backend_ops *be;  /* an image's: the backend that edits it (backend_evolver()) */
	struct backend_edit *img;  /* the image's file system, open through be's editor */
	struct plan prev, cur;
	uint64_t *prev_of_key, *cur_of_key;  /* file index by key, or NONE */
	uint64_t nkeys;
	uint32_t *prev_dir_of_key, *cur_dir_of_key;  /* directory index by key, or PLAN_NONE */
	uint32_t ndkeys;
	char **dir_paths[2];  /* prev's and cur's directories' paths, each made when first asked */
	uint8_t *moves;  /* prev's files that change their path (step 2 sets, step 4 reads) */
	uint8_t *dir_written;  /* cur's directories a write made or removed names in (their times change) */
	struct content_model cm;
	struct content_source cs;
	int have_cm, have_cs;
	const char *step;  /* what it was doing when it failed: for the message */
	const char *undo_keep;  /* --undo FILE: an e2undo file the user keeps, or NULL */
	char undo[PATH_MAX];  /* an image's undo file, imprint's own ("": none, a scratch copy) */
	int undo_fd;  /* undo, open and locked while this evolve may write (0: not open) */
	uint64_t done[STEPS];  /* the moves of each step of apply() made */
	unsigned at;  /* the step apply() is at */
	char last[8192];  /* the last file apply() wrote */
	unsigned jobs;  /* threads making the files' bytes ahead of the writes (0: made inline) */
	struct evolve_feed *feed;  /* their bytes while step 6 runs, or NULL */
	int listing;  /* step 6 walked to list the ranges it writes into feed: nothing written */
	int names_alike;  /* prev and cur draw names alike (plan_names_alike()) */
	int meta_alike;  /* and metadata (plan_meta_alike()) */
};

static uint64_t file_key(const struct plan *pl, uint64_t f)
{
	return pl->gen ? pl->gen->file_key[f] : f;
}

static uint32_t dir_key(const struct plan *pl, uint32_t d)
{
	return pl->gen ? pl->gen->dir_key[d] : d;
}

/*
 * The path of pl's directory d in pl (plan_dir_path()), made once a run
 * and kept in ev->dir_paths; into the caller's buf when it cannot be kept.
 * NULL: too long.
 */
static const char *dir_path(const struct evolve *ev, const struct plan *pl, uint32_t d, char *buf,
			    size_t len)
{
	char **kept = ev->dir_paths[pl == &ev->cur], name[NAME_MAX_LEN + 1];
	const char *up = NULL;
	size_t n, l;

	if (kept && kept[d])
		return kept[d];
	if (kept && d)
		up = dir_path(ev, pl, pl->dir_parent[d], buf, len);
	if (up && up == kept[pl->dir_parent[d]]) {
		/* the parent's kept path and d's name, as plan_dir_path() joins them */
		n = strlen(up);
		l = plan_dir_name(pl, d, name);
		if (n + l + 2 > len)
			return NULL;
		snprintf(buf, len, "%s%s%s", up, up[n - 1] == '/' ? "" : "/", name);
	} else if (plan_dir_path(pl, d, buf, len) < 0) {
		return NULL;
	}
	if (kept)
		kept[d] = strdup(buf);
	return buf;
}

/* TARGET's path of file f of pl (or of directory d when f is NONE) into buf; 0 or -ENAMETOOLONG. */
static int entry_path(const struct evolve *ev, const struct plan *pl, uint32_t d, uint64_t f,
		      char *buf, size_t len)
{
	char made[4096], name[NAME_MAX_LEN + 1];
	const char *dir;
	int n;

	if (f != NONE)
		d = pl->file_dir[f];
	dir = dir_path(ev, pl, d, made, sizeof(made));
	if (!dir)
		return -ENAMETOOLONG;
	if (f == NONE)
		n = snprintf(buf, len, "%s%s", ev->root, d ? dir : "");
	else {
		plan_file_name(pl, f, name);
		n = snprintf(buf, len, "%s%s/%s", ev->root, d ? dir : "", name);
	}
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int maps_build(struct evolve *ev)
{
	uint64_t nk = 0;
	uint32_t ndk = 0;

	for (uint64_t f = 0; f < ev->prev.nfiles; f++)
		nk = MAX(nk, file_key(&ev->prev, f) + 1);
	for (uint64_t f = 0; f < ev->cur.nfiles; f++)
		nk = MAX(nk, file_key(&ev->cur, f) + 1);
	for (uint32_t d = 0; d < ev->prev.ndirs; d++)
		ndk = MAX(ndk, dir_key(&ev->prev, d) + 1);
	for (uint32_t d = 0; d < ev->cur.ndirs; d++)
		ndk = MAX(ndk, dir_key(&ev->cur, d) + 1);
	ev->nkeys = nk;
	ev->ndkeys = ndk;
	ev->prev_of_key = malloc((nk + 1) * sizeof(uint64_t));
	ev->cur_of_key = malloc((nk + 1) * sizeof(uint64_t));
	ev->prev_dir_of_key = malloc(((size_t)ndk + 1) * sizeof(uint32_t));
	ev->cur_dir_of_key = malloc(((size_t)ndk + 1) * sizeof(uint32_t));
	ev->dir_paths[0] = calloc((size_t)ev->prev.ndirs + 1, sizeof(char *));
	ev->dir_paths[1] = calloc((size_t)ev->cur.ndirs + 1, sizeof(char *));
	if (!ev->prev_of_key || !ev->cur_of_key || !ev->prev_dir_of_key || !ev->cur_dir_of_key ||
	    !ev->dir_paths[0] || !ev->dir_paths[1])
		return -ENOMEM;
	for (uint64_t k = 0; k <= nk; k++)
		ev->prev_of_key[k] = ev->cur_of_key[k] = NONE;
	for (uint32_t k = 0; k <= ndk; k++)
		ev->prev_dir_of_key[k] = ev->cur_dir_of_key[k] = PLAN_NONE;
	for (uint64_t f = 0; f < ev->prev.nfiles; f++)
		ev->prev_of_key[file_key(&ev->prev, f)] = f;
	for (uint64_t f = 0; f < ev->cur.nfiles; f++)
		ev->cur_of_key[file_key(&ev->cur, f)] = f;
	for (uint32_t d = 0; d < ev->prev.ndirs; d++)
		ev->prev_dir_of_key[dir_key(&ev->prev, d)] = d;
	for (uint32_t d = 0; d < ev->cur.ndirs; d++)
		ev->cur_dir_of_key[dir_key(&ev->cur, d)] = d;
	return 0;
}

/* The newest content change of cur's file f when generation n made it, else NULL. */
static const struct plan_gen_edit *edit_now(const struct plan *cur, uint64_t f)
{
	uint32_t e = cur->gen->file_last_edit[f];

	return e != PLAN_NONE && cur->gen->edit[e].gen == cur->gen->n ? &cur->gen->edit[e] : NULL;
}

static int same_meta(const struct plan_meta *a, const struct plan_meta *b)
{
	return a->mode == b->mode && a->uid == b->uid && a->gid == b->gid &&
	       a->mtime == b->mtime && a->mtime_ns == b->mtime_ns && a->atime == b->atime &&
	       a->atime_ns == b->atime_ns;
}

/*
 * Stat pl's file f at path into st (its planned metadata into m): 0 when
 * it is a regular file of the planned size and mtime, 1 when it differs,
 * or stat's negative errno.
 */
static int stat_as_planned(struct evolve *ev, const struct plan *pl, uint64_t f, const char *path,
			   struct backend_edit_stat *st, struct plan_meta *m)
{
	int ret;

	plan_file_meta(pl, f, m);
	ret = ev->ops->stat(ev, path, st);
	if (ret)
		return ret;
	return !S_ISREG(st->mode) || st->size != pl->file_size[f] || st->mtime != m->mtime ||
	       st->mtime_ns != m->mtime_ns;
}

/*
 * Whether TARGET holds generation n already, as after the same evolve run
 * twice: every file generation n made or changed (one at least), and one
 * in 61 of the others, has generation n's type, size and mtime at its
 * path in generation n.
 */
static int holds_cur(struct evolve *ev)
{
	char path[8192];
	int touched_any = 0;

	for (uint64_t c = 0; c < ev->cur.nfiles; c++) {
		uint64_t k = file_key(&ev->cur, c);
		int touched = ev->prev_of_key[k] == NONE || edit_now(&ev->cur, c);
		struct plan_meta m;
		struct backend_edit_stat st;

		if (!touched && c % 61)
			continue;
		touched_any |= touched;
		if (entry_path(ev, &ev->cur, 0, c, path, sizeof(path)) ||
		    stat_as_planned(ev, &ev->cur, c, path, &st, &m))
			return 0;
	}
	return touched_any;
}

/* check_target()'s pass over generation n - 1's files. */
static int check_prev(struct evolve *ev, uint32_t n)
{
	char path[8192];
	int ret;

	for (uint64_t f = 0; f < ev->prev.nfiles; f++) {
		uint64_t k = file_key(&ev->prev, f), c = ev->cur_of_key[k];
		struct plan_meta m;
		struct backend_edit_stat st;
		int touched = c == NONE || edit_now(&ev->cur, c);

		if (!touched && f % 61)
			continue;
		if (entry_path(ev, &ev->prev, 0, f, path, sizeof(path)))
			return -ENAMETOOLONG;
		ret = stat_as_planned(ev, &ev->prev, f, path, &st, &m);
		if (ret) {
			const char *p = path + strlen(ev->root);
			size_t len = sizeof(ev->why);

			if (ret < 0)
				snprintf(ev->why, len, "'%s' is missing (%s)", p, strerror(-ret));
			else if (!S_ISREG(st.mode))
				snprintf(ev->why, len, "'%s' is not a regular file", p);
			else
				snprintf(ev->why, len,
					 "'%s' has size %" PRIu64 " and mtime %" PRId64 ".%09" PRIu32
					 "; generation %" PRIu32 " has size %" PRIu64
					 " and mtime %" PRId64 ".%09" PRIu32,
					 p, st.size, st.mtime, st.mtime_ns, n - 1,
					 ev->prev.file_size[f], m.mtime, m.mtime_ns);
			return -ESRCH;
		}
	}
	return 0;
}

/*
 * Whether TARGET holds generation n - 1: every file generation n changes,
 * and one in 61 of the others, has generation n - 1's type, size and
 * mtime.  0, or -ESRCH with ev->why naming the first that does not (or
 * saying it holds generation n already, ev->already set).
 */
static int check_target(struct evolve *ev, uint32_t n)
{
	int ret = check_prev(ev, n);

	if (ret == -ESRCH && holds_cur(ev)) {
		ev->already = 1;
		snprintf(ev->why, sizeof(ev->why), "it holds generation %" PRIu32 " already", n);
	}
	return ret;
}

/* A move that failed (err a negative errno): what, where; the state is told after. Returns err. */
static int fail_at(struct evolve *ev, const char *what, const char *path, int err)
{
	/* an interruption is said once, with the state it leaves */
	if (err != -EINTR && ev->scratch)
		fprintf(stderr, "imprint: evolving %s: %s '%s': %s\n", ev->name, what, path,
			strerror(-err));
	else if (err != -EINTR)
		fprintf(stderr, "imprint: evolve: %s '%s': %s\n", what, path, strerror(-err));
	return err;
}

/* What the steps of apply() did, as "N files deleted, ..." into buf. */
static void progress_text(const struct evolve *ev, char *buf, size_t len)
{
	static const char *const done[STEPS] = {
		"files deleted", "files set aside to move (as .imprint-evolve-KEY in its root)",
		"directories made", "moved files at their new paths", "directories removed",
		"files written (bytes, owner, mode, times)", "directories given owner, mode and times",
	};
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned s = 0; s <= ev->at && s < STEPS && n < len; s++)
		n += (size_t)snprintf(buf + n, len - n, "%s%" PRIu64 " %s", n ? ", " : "",
				      ev->done[s], done[s]);
	if (ev->at == ST_WRITE && ev->last[0] && n < len)
		snprintf(buf + n, len - n, " (in plan order; the last '%.1024s')", ev->last);
}

/*
 * The state a failed (or interrupted) evolve left TARGET in, to stderr:
 * rolled back when undo says so (0: the undo file was put back, else
 * the negative errno of the rollback with msg), else part N-1, part N.
 */
static void tell_state(const struct evolve *ev, int err, int undo, const char *msg)
{
	uint32_t n = ev->cur.gen->n;
	char done[2048];

	if (err == -EINTR)
		fprintf(stderr, "imprint: evolve: interrupted (%s)\n", cleanup_signal_name(cleanup_caught));
	if (ev->undo[0] && !undo) {
		fprintf(stderr, "imprint: evolve: '%s' rolled back: it is generation %" PRIu32
				" as before, byte for byte (nothing of generation %" PRIu32 " is left)\n",
			ev->name, n - 1, n);
		return;
	}
	progress_text(ev, done, sizeof(done));
	fprintf(stderr, "imprint: evolve: '%s' is now part generation %" PRIu32 " and part %" PRIu32
			": it failed while being %s, after %s; the later steps not begun",
		ev->name, n - 1, n, ev->step, done);
	if (ev->undo[0])
		fprintf(stderr, "; the rollback failed: %s; it is marked half-evolved, and its undo "
				"file '%s' is kept: 'imprint evolve --rollback %s' tries again\n",
			msg, ev->undo, ev->name);
	else
		fprintf(stderr, "; a directory has no undo: restore it, or create generation %" PRIu32
				" afresh\n", n);
}

/*
 * Bytes [from, to) of cur's file f, from the content source, at the same
 * offsets; in pieces that end at multiples of CHUNK (an append's pieces
 * after the first start on a block).  The pieces come made from the feed
 * when there is one, else are made here into buf; while listing, they
 * are only listed into the feed.
 */
static int write_range(struct evolve *ev, void *h, uint64_t f, uint64_t from, uint64_t to,
		       uint8_t *buf)
{
	while (from < to) {
		size_t n = (size_t)MIN(CHUNK - from % CHUNK, to - from);
		const void *p = NULL;
		int ret;

		if (ev->listing) {
			ret = evolve_feed_add(ev->feed, f, from, n);
			if (ret)
				return ret;
			from += n;
			continue;
		}
		ret = evolve_feed_take(ev->feed, f, from, n, &p);
		if (!ret && !p) {
			ret = ev->cs.fill(&ev->cs, f, from, buf, n);
			p = buf;
		}
		if (ret)
			return ret;
		ret = ev->ops->pwrite(ev, h, p, n, from);
		if (ret)
			return ret;
		from += n;
	}
	return 0;
}

/* write_range() of each range of cur's file f that generation n's change e writes, in order. */
static int change_ranges(struct evolve *ev, void *h, uint64_t f, const struct plan_gen_edit *e,
			 uint8_t *buf)
{
	uint64_t size = ev->cur.file_size[f];
	int ret = 0;

	switch (e->kind) {
	case GEN_EDIT_APPEND:
		return write_range(ev, h, f, e->from, e->to, buf);
	case GEN_EDIT_TRUNCATE:
		return 0;
	case GEN_EDIT_BLOCKS:
		for (uint64_t b = 0; !ret && b * 4096 < size; b++)
			if (plan_gen_block_edited(ev->cur.gen->file_key[f], e, b,
						  ev->cur.prm.gen_edit_block_share))
				ret = write_range(ev, h, f, b * 4096, MIN(size, (b + 1) * 4096), buf);
		return ret;
	default:
		/* a new file or a rewrite, also the one by rename: all of it */
		return write_range(ev, h, f, 0, size, buf);
	}
}

/* Write what generation n changed in cur's file f (or all of it, new). 0 or a negative errno. */
static int write_changes(struct evolve *ev, uint64_t f, const struct plan_gen_edit *e,
			 const char *path, uint8_t *buf)
{
	uint64_t size = ev->cur.file_size[f];
	void *h;
	int ret, err;

	ret = ev->ops->open(ev, path, e->kind == GEN_EDIT_CREATE, e->kind == GEN_EDIT_REWRITE, &h);
	if (ret)
		return ret;
	ret = change_ranges(ev, h, f, e, buf);
	if (!ret)
		ret = ev->ops->truncate(ev, h, size);
	err = ev->ops->close(ev, h);
	return ret ? ret : err;
}

/* Temporary name of a file that changes its path, beside TARGET's root. */
static int temp_path(const struct evolve *ev, uint64_t key, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/.imprint-evolve-%" PRIu64, ev->root, key);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* -EINTR when a signal asked to stop (checked before each move), else 0. */
static int halted(const struct evolve *ev)
{
	return ev->cancel && *ev->cancel ? -EINTR : 0;
}

/* Step s of apply() begins: what it does, for a message. */
static void step(struct evolve *ev, unsigned s, const char *doing)
{
	ev->at = s;
	ev->step = doing;
}

/*
 * Whether prev's file f and cur's file c (of one key) have different
 * paths, as entry_path() would make them into buffers of len bytes: 1 or
 * 0, their names made only when they may differ; -1 when a path may not
 * fit (the caller makes both).
 */
static int path_changes(const struct evolve *ev, uint64_t f, uint64_t c, size_t len)
{
	char made[2][4096], a[NAME_MAX_LEN + 1], b[NAME_MAX_LEN + 1];
	uint32_t da = ev->prev.file_dir[f], db = ev->cur.file_dir[c];
	const char *pa = dir_path(ev, &ev->prev, da, made[0], sizeof(made[0]));
	const char *pb = dir_path(ev, &ev->cur, db, made[1], sizeof(made[1]));
	size_t root = strlen(ev->root);

	if (!pa || !pb || root + strlen(pa) + NAME_MAX_LEN + 2 > len ||
	    root + strlen(pb) + NAME_MAX_LEN + 2 > len)
		return -1;
	if (strcmp(da ? pa : "", db ? pb : ""))
		return 1;
	if (ev->names_alike && plan_file_same_name(&ev->prev, f, &ev->cur, c))
		return 0;
	plan_file_name(&ev->prev, f, a);
	plan_file_name(&ev->cur, c, b);
	return strcmp(a, b) != 0;
}

/* Steps 1 and 2: files that change their path go aside, deleted ones go. */
static int apply_aside(struct evolve *ev)
{
	char p1[8192], p2[8192];
	int ret = 0, err, moves;

	step(ev, ST_ASIDE, "rid of its deleted files and of the names of those that move");
	ev->names_alike = plan_names_alike(&ev->prev, &ev->cur);
	for (uint64_t f = 0; !ret && !(ret = halted(ev)) && f < ev->prev.nfiles; f++) {
		uint64_t k = file_key(&ev->prev, f), c = ev->cur_of_key[k];

		moves = c == NONE ? 0 : path_changes(ev, f, c, sizeof(p1));
		/* a path that may not fit: both made (p1 too long stays -1, failed below) */
		if (moves < 0 && !entry_path(ev, &ev->prev, 0, f, p1, sizeof(p1)))
			moves = !entry_path(ev, &ev->cur, 0, c, p2, sizeof(p2)) && strcmp(p1, p2);
		if ((c == NONE || moves) && entry_path(ev, &ev->prev, 0, f, p1, sizeof(p1)))
			ret = -ENAMETOOLONG;
		else if (c == NONE) {
			if ((err = ev->ops->unlink(ev, p1)))
				ret = fail_at(ev, "cannot delete", p1, err);
			else
				ev->done[ST_DELETE]++;
		} else if (moves) {
			ev->moves[f] = 1;
			if (temp_path(ev, k, p2, sizeof(p2)))
				ret = -ENAMETOOLONG;
			else if ((err = ev->ops->rename(ev, p1, p2)))
				ret = fail_at(ev, "cannot rename", p1, err);
			else
				ev->done[ST_ASIDE]++;
		}
	}
	return ret;
}

/*
 * Steps 3 to 5: new directories (parents first), the files set aside to
 * their new paths, removed directories (children first).
 */
static int apply_dirs(struct evolve *ev)
{
	char p1[8192], p2[8192];
	int ret = 0, err;

	step(ev, ST_MKDIR, "given its new directories");
	for (uint32_t d = 1; !ret && !(ret = halted(ev)) && d < ev->cur.ndirs; d++) {
		if (ev->prev_dir_of_key[dir_key(&ev->cur, d)] != PLAN_NONE)
			continue;
		if (entry_path(ev, &ev->cur, d, NONE, p1, sizeof(p1)))
			ret = -ENAMETOOLONG;
		else if ((err = ev->ops->mkdir(ev, p1)))
			ret = fail_at(ev, "cannot make directory", p1, err);
		else
			ev->done[ST_MKDIR]++;
	}
	if (!ret)
		step(ev, ST_MOVE, "renamed");
	for (uint64_t f = 0; !ret && !(ret = halted(ev)) && f < ev->prev.nfiles; f++) {
		uint64_t k = file_key(&ev->prev, f), c = ev->cur_of_key[k];

		if (c == NONE || !ev->moves[f] || entry_path(ev, &ev->cur, 0, c, p2, sizeof(p2)))
			continue;
		if (temp_path(ev, k, p1, sizeof(p1)))
			ret = -ENAMETOOLONG;
		else if ((err = ev->ops->rename(ev, p1, p2)))
			ret = fail_at(ev, "cannot rename to", p2, err);
		else
			ev->done[ST_MOVE]++;
	}
	if (!ret)
		step(ev, ST_RMDIR, "rid of its removed directories");
	for (uint32_t d = ev->prev.ndirs; !ret && !(ret = halted(ev)) && d-- > 1;) {
		if (ev->cur_dir_of_key[dir_key(&ev->prev, d)] != PLAN_NONE)
			continue;
		if (entry_path(ev, &ev->prev, d, NONE, p1, sizeof(p1)))
			ret = -ENAMETOOLONG;
		else if ((err = ev->ops->rmdir(ev, p1)))
			ret = fail_at(ev, "cannot remove directory", p1, err);
		else
			ev->done[ST_RMDIR]++;
	}
	return ret;
}

/*
 * A file's new content the way an editor or office program saves it:
 * written whole under a temporary name in its directory, then renamed
 * over the old one, whose blocks are freed only then.  A file with hard
 * links is rewritten in place (a rename would split it from them).
 */
static int rewrite_by_rename(struct evolve *ev, uint64_t f, const char *path, uint8_t *buf)
{
	char tmp[8192];
	const char *slash = strrchr(path, '/');
	int n = snprintf(tmp, sizeof(tmp), "%.*s/.imprint-evolve-new-%" PRIu64,
			 (int)(slash - path), path, ev->cur.gen->file_key[f]);
	void *h;
	int ret, err;

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	ret = ev->ops->unlink(ev, tmp);
	if (ret && ret != -ENOENT)
		return ret;
	ret = ev->ops->open(ev, tmp, 1, 0, &h);
	if (ret)
		return ret;
	ret = write_range(ev, h, f, 0, ev->cur.file_size[f], buf);
	err = ev->ops->close(ev, h);
	if (!ret)
		ret = err;
	if (!ret)
		ret = ev->ops->rename(ev, tmp, path);
	if (ret)
		ev->ops->unlink(ev, tmp);
	ev->dir_written[ev->cur.file_dir[f]] = 1;
	return ret;
}

/*
 * Through the kernel, files that grow over the day arrive in pieces: a
 * log-like file's appends (logs, mailboxes) and a new file of
 * STREAM_MIN bytes or more (a download, a copy from the network) are
 * written STREAM_ROUNDS pieces each (4 KiB at least), round after round,
 * interleaved with one another and with the other files' writes; a
 * piece is opened, written, started to disk and closed, as a program
 * appending with >> or a mail delivery does, so that the kernel
 * allocates each piece on its own among the others.
 */
#define STREAM_ROUNDS 32
#define STREAM_MIN (64u << 10)

struct stream {
	uint64_t f, from, to, at;
	int create;
};

/* Write and set the metadata of one changed file f of cur (e: its change, or NULL). */
static int write_one(struct evolve *ev, uint64_t f, const struct plan_gen_edit *e, uint8_t *buf)
{
	char path[8192];
	struct plan_meta m;
	int err;

	if (ev->listing)
		return e ? change_ranges(ev, NULL, f, e, buf) : 0;
	if (entry_path(ev, &ev->cur, 0, f, path, sizeof(path)))
		return -ENAMETOOLONG;
	plan_file_meta(&ev->cur, f, &m);
	if (e && e->kind == GEN_EDIT_REWRITE && ev->ops->writeback &&
	    !(ev->cur.file_nlink && ev->cur.file_nlink[f] > 1))
		err = rewrite_by_rename(ev, f, path, buf);
	else
		err = e ? write_changes(ev, f, e, path, buf) : 0;
	if (err)
		return fail_at(ev, "cannot write", path, err);
	if ((err = ev->ops->set_meta(ev, path, &m)))
		return fail_at(ev, "cannot set the owner, mode or times of", path, err);
	ev->done[ST_WRITE]++;
	snprintf(ev->last, sizeof(ev->last), "%s", path);
	return 0;
}

/* Piece r of a stream: opened, written, started to disk, closed; after its last, its metadata. */
static int stream_piece(struct evolve *ev, struct stream *st, unsigned r, uint8_t *buf)
{
	char path[8192];
	uint64_t piece = MAX((uint64_t)4096, ((st->to - st->from) / STREAM_ROUNDS + 4095) / 4096 * 4096);
	uint64_t end = MIN(st->to, st->from + piece * (r + 1)), at = st->at;
	struct plan_meta m;
	void *h;
	int ret, err;

	if (at >= st->to && !(st->create && !r))
		return 0;
	if (ev->listing) {
		st->at = end;
		return write_range(ev, NULL, st->f, at, end, buf);
	}
	if (entry_path(ev, &ev->cur, 0, st->f, path, sizeof(path)))
		return -ENAMETOOLONG;
	ret = ev->ops->open(ev, path, st->create && !r, 0, &h);
	if (ret)
		return fail_at(ev, "cannot open", path, ret);
	ret = write_range(ev, h, st->f, at, end, buf);
	if (!ret && end > at)
		ret = ev->ops->writeback(h, at, end - at);
	err = ev->ops->close(ev, h);
	ret = ret ? ret : err;
	st->at = end;
	if (ret)
		return fail_at(ev, "cannot write", path, ret);
	if (end < st->to)
		return 0;
	plan_file_meta(&ev->cur, st->f, &m);
	if ((err = ev->ops->set_meta(ev, path, &m)))
		return fail_at(ev, "cannot set the owner, mode or times of", path, err);
	ev->done[ST_WRITE]++;
	snprintf(ev->last, sizeof(ev->last), "%s", path);
	return 0;
}

/* Whether cur's file f (changed by e) is written as a stream. */
static int is_stream(const struct evolve *ev, const struct plan_gen_edit *e)
{
	return e && ev->ops->writeback &&
	       (e->kind == GEN_EDIT_APPEND || (e->kind == GEN_EDIT_CREATE && e->to >= STREAM_MIN));
}

/*
 * The writes of step 6 in their order: the other files, a share a round,
 * each round followed by a piece of each stream.  While listing, their
 * ranges only go to the feed (the streams' places put back after).
 */
static int files_walk(struct evolve *ev, const uint64_t *other, uint64_t no, struct stream *st,
		      size_t ns, uint8_t *buf)
{
	uint64_t done = 0;
	int ret = 0;

	for (unsigned r = 0; !ret && r < STREAM_ROUNDS; r++) {
		for (uint64_t upto = no * (r + 1) / STREAM_ROUNDS; !ret && !(ret = halted(ev)) && done < upto; done++)
			ret = write_one(ev, other[done], edit_now(&ev->cur, other[done]), buf);
		for (size_t i = 0; !ret && !(ret = halted(ev)) && i < ns; i++)
			ret = stream_piece(ev, &st[i], r, buf);
	}
	for (size_t i = 0; ev->listing && i < ns; i++)
		st[i].at = st[i].from;
	return ret;
}

/*
 * With -j, the feed of step 6's bytes: its ranges listed by a walk that
 * writes nothing, then its workers started.  0 or a negative errno.
 */
static int feed_begin(struct evolve *ev, const uint64_t *other, uint64_t no, struct stream *st,
		      size_t ns)
{
	int ret;

	if (!ev->jobs)
		return 0;
	ret = evolve_feed_new(&ev->feed);
	if (ret)
		return ret;
	ev->listing = 1;
	ret = files_walk(ev, other, no, st, ns, NULL);
	ev->listing = 0;
	return ret ? ret : evolve_feed_start(ev->feed, &ev->cs, ev->jobs,
					     cleanup_test_fail("evolve-fill"));
}

/* Step 6: what generation n changed in the files, and their metadata. */
static int apply_files(struct evolve *ev, uint8_t *buf)
{
	uint64_t *other = malloc((ev->cur.nfiles + 1) * sizeof(*other)), no = 0;
	struct stream *st = malloc((ev->cur.nfiles + 1) * sizeof(*st));
	size_t ns = 0;
	int ret = 0;

	step(ev, ST_WRITE, "written");
	ev->meta_alike = plan_meta_alike(&ev->prev, &ev->cur);
	if (!other || !st) {
		FREE_ALL(other, st);
		return -ENOMEM;
	}
	for (uint64_t f = 0; f < ev->cur.nfiles; f++) {
		uint64_t p = ev->prev_of_key[file_key(&ev->cur, f)];
		const struct plan_gen_edit *e = edit_now(&ev->cur, f);
		struct plan_meta mc, mp;

		/* the same draws: the same metadata, not made */
		if (!e && p != NONE && ev->meta_alike && plan_file_same_meta(&ev->prev, p, &ev->cur, f))
			continue;
		plan_file_meta(&ev->cur, f, &mc);
		if (p != NONE)
			plan_file_meta(&ev->prev, p, &mp);
		if (!e && p != NONE && same_meta(&mc, &mp))
			continue;
		if (is_stream(ev, e))
			st[ns++] = (struct stream){ .f = f, .from = e->from, .to = e->to,
						    .at = e->from,
						    .create = e->kind == GEN_EDIT_CREATE };
		else
			other[no++] = f;
	}
	ret = feed_begin(ev, other, no, st, ns);
	if (!ret)
		ret = files_walk(ev, other, no, st, ns, buf);
	/* the workers end before a failure is told and rolled back */
	evolve_feed_end(ev->feed);
	ev->feed = NULL;
	FREE_ALL(other, st);
	return ret;
}

/* Step 7: directories' metadata last, children first (their entries are done). */
static int apply_dir_meta(struct evolve *ev)
{
	char p1[8192];
	int ret = 0, err;

	step(ev, ST_DIRMETA, "given its directories' owners, modes and times");
	for (uint32_t d = ev->cur.ndirs; !ret && !(ret = halted(ev)) && d-- > 0;) {
		uint32_t p = ev->prev_dir_of_key[dir_key(&ev->cur, d)];
		struct plan_meta mc, mp;

		plan_dir_meta(&ev->cur, d, &mc);
		if (p != PLAN_NONE)
			plan_dir_meta(&ev->prev, p, &mp);
		/* the root held the files set aside: its times are set again */
		if (d && p != PLAN_NONE && !ev->dir_written[d] && same_meta(&mc, &mp))
			continue;
		if (entry_path(ev, &ev->cur, d, NONE, p1, sizeof(p1)))
			ret = -ENAMETOOLONG;
		else if ((err = ev->ops->set_meta(ev, p1, &mc)))
			ret = fail_at(ev, "cannot set the owner, mode or times of", p1, err);
		else
			ev->done[ST_DIRMETA]++;
	}
	return ret;
}

static int apply(struct evolve *ev)
{
	uint8_t *buf = malloc(CHUNK);
	int ret;

	ev->dir_written = calloc((size_t)ev->cur.ndirs + 1, 1);
	ev->moves = calloc(ev->prev.nfiles + 1, 1);
	if (!buf || !ev->dir_written || !ev->moves) {
		FREE_ALL(buf, ev->dir_written, ev->moves);
		return -ENOMEM;
	}
	ret = apply_aside(ev);
	if (!ret)
		ret = apply_dirs(ev);
	if (!ret) {
		cleanup_test_pause("evolve-moved");
		ret = apply_files(ev, buf);
	}
	if (!ret)
		ret = apply_dir_meta(ev);
	if (ret == -ENAMETOOLONG)
		fprintf(stderr, "imprint: evolve: a path under %s is too long\n", ev->name);
	FREE_ALL(buf, ev->dir_written, ev->moves);
	ev->moves = NULL;
	return ret;
}

/* ---- a directory: the kernel's calls ---- */

static int neg_errno(int failed)
{
	return failed ? -errno : 0;
}

static int dir_stat(struct evolve *ev, const char *path, struct backend_edit_stat *st)
{
	struct stat s;

	(void)ev;
	if (lstat(path, &s))
		return -errno;
	st->mode = s.st_mode;
	st->size = (uint64_t)s.st_size;
	st->mtime = s.st_mtim.tv_sec;
	st->mtime_ns = (uint32_t)s.st_mtim.tv_nsec;
	return 0;
}

static int dir_unlink(struct evolve *ev, const char *path)
{
	(void)ev;
	return neg_errno(unlink(path));
}

static int dir_rename(struct evolve *ev, const char *from, const char *to)
{
	(void)ev;
	return neg_errno(rename(from, to));
}

static int dir_mkdir(struct evolve *ev, const char *path)
{
	(void)ev;
	return neg_errno(mkdir(path, 0700));
}

static int dir_rmdir(struct evolve *ev, const char *path)
{
	(void)ev;
	return neg_errno(rmdir(path));
}

static int dir_set_meta(struct evolve *ev, const char *path, const struct plan_meta *m)
{
	struct timespec ts[2] = {
		{ .tv_sec = m->atime, .tv_nsec = m->atime_ns },
		{ .tv_sec = m->mtime, .tv_nsec = m->mtime_ns },
	};

	(void)ev;
	if (geteuid() == 0 && lchown(path, m->uid, m->gid))
		return -errno;
	if (chmod(path, m->mode & 07777))
		return -errno;
	return neg_errno(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW));
}

static int dir_open(struct evolve *ev, const char *path, int create, int trunc, void **h)
{
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_EXCL : 0) |
		    (trunc ? O_TRUNC : 0);
	int *fd = malloc(sizeof(*fd));

	(void)ev;
	if (!fd)
		return -ENOMEM;
	*fd = open(path, flags, 0600);
	if (*fd < 0) {
		int err = -errno;

		free(fd);
		return err;
	}
	*h = fd;
	return 0;
}

/* All n bytes, a short write (the file system filling up) continued until it fails with its errno. */
static int dir_pwrite(struct evolve *ev, void *h, const void *buf, size_t n, uint64_t off)
{
	(void)ev; /* the kernel needs no more than the descriptor */
	while (n) {
		ssize_t w = pwrite(*(int *)h, buf, n, (off_t)off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		if (!w)
			return -EIO;
		buf = (const uint8_t *)buf + w;
		n -= (size_t)w;
		off += (uint64_t)w;
	}
	return 0;
}

static int dir_truncate(struct evolve *ev, void *h, uint64_t size)
{
	(void)ev;
	return neg_errno(ftruncate(*(int *)h, (off_t)size));
}

static int dir_close(struct evolve *ev, void *h)
{
	int ret = neg_errno(close(*(int *)h));

	(void)ev;
	free(h);
	return ret;
}

static int dir_writeback(void *h, uint64_t off, uint64_t len)
{
	return neg_errno(sync_file_range(*(int *)h, (off_t)off, (off_t)len,
					 SYNC_FILE_RANGE_WRITE));
}

static const struct evolve_ops dir_ops = {
	.stat = dir_stat,
	.unlink = dir_unlink,
	.rename = dir_rename,
	.mkdir = dir_mkdir,
	.rmdir = dir_rmdir,
	.set_meta = dir_set_meta,
	.open = dir_open,
	.pwrite = dir_pwrite,
	.truncate = dir_truncate,
	.close = dir_close,
	.writeback = dir_writeback,
};

/* ---- an image or device: its backend's editor (backend.h, struct backend_edit_ops) ---- */

static int img_stat(struct evolve *ev, const char *path, struct backend_edit_stat *st)
{
	return backend_edit_stat(ev->be, ev->img, path, st);
}

static int img_unlink(struct evolve *ev, const char *path)
{
	return backend_edit_unlink(ev->be, ev->img, path);
}

static int img_rename(struct evolve *ev, const char *from, const char *to)
{
	return backend_edit_rename(ev->be, ev->img, from, to);
}

static int img_mkdir(struct evolve *ev, const char *path)
{
	return backend_edit_mkdir(ev->be, ev->img, path);
}

static int img_rmdir(struct evolve *ev, const char *path)
{
	return backend_edit_rmdir(ev->be, ev->img, path);
}

static int img_set_meta(struct evolve *ev, const char *path, const struct plan_meta *m)
{
	return backend_edit_set_meta(ev->be, ev->img, path, m);
}

static int img_open(struct evolve *ev, const char *path, int create, int trunc, void **h)
{
	struct backend_edit_file *f = NULL;
	int ret = backend_edit_file_open(ev->be, ev->img, path, create, trunc, &f);

	*h = f;
	return ret;
}

static int img_pwrite(struct evolve *ev, void *h, const void *buf, size_t n, uint64_t off)
{
	return backend_edit_file_pwrite(ev->be, h, buf, n, off);
}

static int img_truncate(struct evolve *ev, void *h, uint64_t size)
{
	return backend_edit_file_truncate(ev->be, h, size);
}

static int img_close(struct evolve *ev, void *h)
{
	return backend_edit_file_close(ev->be, h);
}

static const struct evolve_ops img_ops = {
	.stat = img_stat,
	.unlink = img_unlink,
	.rename = img_rename,
	.mkdir = img_mkdir,
	.rmdir = img_rmdir,
	.set_meta = img_set_meta,
	.open = img_open,
	.pwrite = img_pwrite,
	.truncate = img_truncate,
	.close = img_close,
};

static void evolve_release(struct evolve *ev)
{
	if (ev->img)
		backend_edit_close(ev->be, ev->img);
	ev->img = NULL;
	if (ev->have_cs)
		content_source_release(&ev->cs);
	if (ev->have_cm)
		content_model_release(&ev->cm);
	for (int i = 0; i < 2; i++) {
		for (uint32_t d = 0; ev->dir_paths[i] && d < (i ? ev->cur.ndirs : ev->prev.ndirs); d++)
			free(ev->dir_paths[i][d]);
		free(ev->dir_paths[i]);
		ev->dir_paths[i] = NULL;
	}
	plan_release(&ev->prev);
	plan_release(&ev->cur);
	free(ev->prev_of_key);
	free(ev->cur_of_key);
	free(ev->prev_dir_of_key);
	free(ev->cur_dir_of_key);
}

/* ev->name quoted where msg names the path it opened (a scratch copy's /proc/PID/fd/N) into out. */
static void name_in(const struct evolve *ev, const char *msg, char *out, size_t len)
{
	char quoted[PATH_MAX + 3];
	const char *at;

	snprintf(quoted, sizeof(quoted), "'%s'", ev->target);
	at = strcmp(ev->target, ev->name) ? strstr(msg, quoted) : NULL;
	if (at)
		snprintf(out, len, "%.*s%s%s", (int)(at - msg), msg, ev->name, at + strlen(quoted));
	else
		snprintf(out, len, "%s", msg);
}

/* Make path, a new file (O_EXCL: never one of the user's); 0 or -errno. */
static int new_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * The undo files of ev's image: a new temporary in TMPDIR (/var/tmp by
 * default) in imprint's own format (backends/ext4/undo.c: the blocks
 * written that were in use; a free block of zeros by its number only),
 * and --undo's FILE (e2undo's format: a copy of every block written).
 * Removed if imprint dies before the image carries the mark naming them
 * (then kept until the evolve ends: the mark's rollback needs them).
 * 0, or the exit code after a message.
 */
static int undo_file(struct evolve *ev, const char *cmd)
{
	const char *dir = getenv("TMPDIR");
	int fd, n;

	n = snprintf(ev->undo, sizeof(ev->undo), "%s/imprint-undo-XXXXXX",
		     dir && dir[0] ? dir : "/var/tmp");
	if (n < 0 || (size_t)n >= sizeof(((struct evolve_mark *)0)->undo) ||
	    (ev->undo_keep && strlen(ev->undo_keep) >= sizeof(((struct evolve_mark *)0)->keep))) {
		ev->undo[0] = '\0';
		fprintf(stderr, "imprint: %s: the undo file's path is too long (at most %zu bytes)\n",
			cmd, sizeof(((struct evolve_mark *)0)->undo) - 1);
		return EXIT_USAGE;
	}
	n = ev->undo_keep ? new_file(ev->undo_keep) : 0;
	if (n) {
		ev->undo[0] = '\0';
		fprintf(stderr, "imprint: %s: cannot make the undo file '%s': %s (%s)\n", cmd,
			ev->undo_keep, strerror(-n),
			n == -EEXIST ? "'--undo' takes a new file: remove it or name another"
				     : "give '--undo FILE' where there is room");
		return n == -EEXIST ? EXIT_USAGE : 1;
	}
	if (ev->undo_keep)
		cleanup_track(ev->undo_keep, CLEANUP_FILE);
	fd = mkostemp(ev->undo, O_CLOEXEC);
	if (fd >= 0) {
		/* locked while we run: a rollback from another imprint waits for us to end */
		flock(fd, LOCK_EX);
		ev->undo_fd = fd + 1;
		cleanup_track(ev->undo, CLEANUP_FILE);
		return 0;
	}
	fprintf(stderr, "imprint: %s: cannot make the undo file '%s': %s (it holds what evolve "
			"overwrites: set TMPDIR to a directory with room)\n", cmd, ev->undo,
		strerror(errno));
	ev->undo[0] = '\0';
	if (ev->undo_keep) {
		unlink(ev->undo_keep);
		cleanup_untrack(ev->undo_keep);
	}
	return 1;
}

/* Stop removing ev's undo files should imprint die: the mark names them now. */
static void undo_keep_on_death(const struct evolve *ev)
{
	cleanup_untrack(ev->undo);
	if (ev->undo_keep)
		cleanup_untrack(ev->undo_keep);
}

/* Let go of the lock on ev's undo file (before our own rollback takes it). */
static void undo_unlock(struct evolve *ev)
{
	if (ev->undo_fd)
		close(ev->undo_fd - 1);
	ev->undo_fd = 0;
}

/* Remove ev's undo files (none: nothing) unless keep: --undo's FILE is kept; and forget them. */
static void undo_drop(struct evolve *ev, int keep)
{
	undo_unlock(ev);
	if (!ev->undo[0])
		return;
	unlink(ev->undo);
	cleanup_untrack(ev->undo);
	if (ev->undo_keep && !keep) {
		unlink(ev->undo_keep);
		cleanup_untrack(ev->undo_keep);
	}
	ev->undo[0] = '\0';
}

/*
 * The file systems a backend evolves in place on an image or a device, in
 * words with their article ("an ext2/3/4"), into buf; returns buf.
 */
static const char *evolved_fs(char *buf, size_t len)
{
	char fs[128];

	backend_fs_words(BACKEND_EVOLVES, 0, BACKEND_TARGET_FILE | BACKEND_TARGET_DEVICE, '/', fs,
			 sizeof(fs));
	snprintf(buf, len, "%s %s", strchr("aeiou", fs[0]) ? "an" : "a", fs[0] ? fs : "no");
	return buf;
}

/*
 * The backend that edits file system fs (the plan's 'fs') in place on the
 * image file or block device (mode) name, or NULL after a message saying
 * which file systems the backends evolve there.
 */
static const struct backend_ops *evolver(const char *cmd, const char *name, const char *fs,
					 mode_t mode)
{
	unsigned kind = S_ISBLK(mode) ? BACKEND_TARGET_DEVICE : BACKEND_TARGET_FILE;
	const struct backend_ops *ops = backend_evolver(fs, kind);
	char can[256];

	if (ops)
		return ops;
	backend_evolver_fs(kind, can, sizeof(can));
	fprintf(stderr, "imprint: %s: '%s': no backend evolves %s in place on %s (it takes %s "
			"there; a mounted %s file system is evolved through its directory)\n",
		cmd, name, fs, S_ISBLK(mode) ? "a block device" : "an image file",
		can[0] ? can : "no file system", fs);
	return NULL;
}

/*
 * Plan generations N-1 and N of p for TARGET, join them, and open TARGET
 * (an image read-write when rw, for reading else); `cmd` names the
 * command in messages.  0, or the exit code after a message (ev released);
 * a scratch copy that is no ext2/3/4 file system to open: -ESRCH, with
 * ev->why saying so and no message.
 */
static int prepare(struct evolve *ev, const char *cmd, const struct params *p, int rw)
{
	struct plan_error err = { { 0 } };
	struct stat st;
	char can[144];
	int ret;

	if (!ev->name)
		ev->name = ev->target;
	if (stat(ev->target, &st)) {
		fprintf(stderr, "imprint: %s: cannot access '%s': %s\n", cmd, ev->target,
			strerror(errno));
		return EXIT_USAGE;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "imprint: %s: '%s' is not a directory, an image file or a block "
				"device (it takes a directory of a mounted file system, or %s "
				"image or device)\n",
			cmd, ev->target, evolved_fs(can, sizeof(can)));
		return EXIT_USAGE;
	}
	ev->ops = S_ISDIR(st.st_mode) ? &dir_ops : &img_ops;
	ev->root = S_ISDIR(st.st_mode) ? ev->target : "";
	/* one replay for both (ev->prev borrows ev->cur's generation 0) */
	ret = plan_build_pair(&ev->cur, &ev->prev, p, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		plan_release(&ev->prev);
		return ret == -EINVAL ? EXIT_USAGE : 1;
	}
	ret = maps_build(ev);
	if (!ret && rw) {
		ret = content_model_init(&ev->cm, &ev->cur);
		ev->have_cm = !ret;
	}
	if (!ret && rw) {
		ret = content_model_source_init(&ev->cs, &ev->cm, &ev->cur, ev->jobs);
		ev->have_cs = !ret;
	}
	if (ret) {
		fprintf(stderr, "imprint: %s: cannot prepare: %s\n", cmd, strerror(-ret));
		evolve_release(ev);
		return 1;
	}
	if (ev->ops == &img_ops) {
		char msg[PATH_MAX + 200];

		ev->be = evolver(cmd, ev->name, p->fs, st.st_mode);
		if (!ev->be) {
			evolve_release(ev);
			return EXIT_USAGE;
		}
		ret = rw && !ev->scratch ? undo_file(ev, cmd) : 0;
		if (ret) {
			evolve_release(ev);
			return ret;
		}
		struct evolve_mark mark = { .from = p->generation - 1, .to = p->generation };

		snprintf(mark.undo, sizeof(mark.undo), "%.*s", (int)sizeof(mark.undo) - 1, ev->undo);
		snprintf(mark.keep, sizeof(mark.keep), "%s", ev->undo_keep ? ev->undo_keep : "");
		if (ev->undo[0])
			undo_keep_on_death(ev);
		ret = backend_edit_open(ev->be, ev->target, rw,
					(int64_t)plan_gen_time(p, p->generation),
					ev->undo[0] ? &mark : NULL, &ev->img, msg, sizeof(msg));
		if (ret && ev->scratch && (ret == -EINVAL || ret == -EBUSY)) {
			name_in(ev, msg, ev->why, sizeof(ev->why));
			evolve_release(ev);
			return -ESRCH;
		}
		if (ret) {
			char named[sizeof(msg) + PATH_MAX];

			name_in(ev, msg, named, sizeof(named));
			fprintf(stderr, "imprint: %s: %s\n", cmd, named);
			undo_drop(ev, 0);
			evolve_release(ev);
			return ret == -EINVAL ? EXIT_USAGE : 1;
		}
	}
	return 0;
}

/*
 * Check that ev, prepared read-write, holds generation N-1, then make it
 * generation N and write it back.  0, -ESRCH (not generation N-1: ev->why
 * says why, nothing changed), or another negative errno after a message.
 */
static int evolve_prepared(struct evolve *ev, uint32_t n)
{
	char msg[PATH_MAX + 300] = "";
	int ret, cerr, undone = -1;

	ret = check_target(ev, n);
	if (!ret) {
		ret = apply(ev);
		if (!ret)
			ev->step = "written back";
	}
	if (ev->img && ret && (ret == -ESRCH || ev->undo[0])) {
		/* what the undo file saved goes back, the mark last: generation n - 1 byte for byte */
		backend_edit_abandon(ev->be, ev->img);
		ev->img = NULL;
		undo_unlock(ev);
		undone = ev->undo[0] ? backend_edit_undo(ev->be, ev->target, msg, sizeof(msg)) : 0;
	} else if (ev->img) {
		if (!ret && ev->usage)
			backend_edit_usage(ev->be, ev->img, ev->usage);
		/* what was done is written back even after a failure: the image stays consistent */
		cerr = backend_edit_close(ev->be, ev->img);
		ev->img = NULL;
		if (cerr && !ret) {
			ret = fail_at(ev, "cannot write back", ev->name, cerr);
			undo_unlock(ev);
			if (ev->undo[0])
				undone = backend_edit_undo(ev->be, ev->target, msg, sizeof(msg));
		}
	}
	if (ret && ret != -ESRCH && !ev->scratch)
		tell_state(ev, ret, undone, msg);
	/* the undo files stay only with the mark of a failed rollback; --undo's with generation n */
	if (ret && undone) {
		undo_unlock(ev);
		ev->undo[0] = '\0';
	}
	else
		undo_drop(ev, !ret);
	return ret;
}

/* evolve --rollback TARGET: an interrupted evolve's image of file system fs back to generation
 * N-1 by its mark. */
static int rollback(const char *target, const char *fs)
{
	char msg[PATH_MAX + 300] = "", can[144];
	const struct backend_ops *ops;
	struct evolve_mark m;
	struct stat st;
	int fd, ret;

	fd = open(target, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "imprint: evolve: cannot open '%s': %s\n", target, strerror(errno));
		if (fd >= 0)
			close(fd);
		return EXIT_USAGE;
	}
	ret = S_ISREG(st.st_mode) || S_ISBLK(st.st_mode) ? evolve_mark_read(fd, 0, &m) : -EISDIR;
	close(fd);
	if (ret == -EISDIR) {
		fprintf(stderr, "imprint: evolve: '--rollback' is for %s image or device; '%s' "
				"is not one (a directory has no undo)\n", evolved_fs(can, sizeof(can)),
			target);
		return EXIT_USAGE;
	}
	if (ret == 0) {
		printf("'%s' carries no mark of an interrupted evolve: nothing to roll back\n", target);
		return 0;
	}
	ops = ret < 0 ? NULL : evolver("evolve", target, fs, st.st_mode);
	if (ret > 0 && !ops)
		return EXIT_USAGE;
	ret = ret < 0 ? ret : backend_edit_undo(ops, target, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "imprint: evolve: cannot roll '%s' back: %s\n", target,
			ret < 0 && !msg[0] ? strerror(-ret) : msg);
		return 1;
	}
	printf("rolled '%s' back to generation %" PRIu32 " (the evolve to %" PRIu32 " was "
	       "interrupted); its undo file is removed\n", target, m.from, m.to);
	return 0;
}

/* -j N, or (0) one a CPU online as create's default: the threads making the files' bytes. */
static unsigned jobs_of(unsigned n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	if (n)
		return n;
	return cpus < 1 ? 1 : cpus > 1024 ? 1024 : (unsigned)cpus;
}

int cmd_evolve(struct cli *c, struct params *p)
{
	struct evolve ev = { .target = c->operand, .undo_keep = c->undo, .cancel = &cleanup_caught };
	char can[144];
	int ret;

	if (c->rollback)
		return rollback(c->operand, p->fs);
	if (!p->generation) {
		fprintf(stderr, "imprint: evolve needs '--generation N' (N >= 1): the generation "
				"to make of a TARGET holding generation N-1\n");
		return EXIT_USAGE;
	}
	if (!params_is_set(p, "size") && !params_is_set(p, "used") && !params_is_set(p, "files")) {
		fprintf(stderr, "imprint: evolve needs the plan's size: give '--size', '--used' or "
				"'--files' as 'create' was given them\n");
		return EXIT_USAGE;
	}
	ev.jobs = jobs_of(c->jobs_given ? c->create.jobs : 0);
	ret = prepare(&ev, "evolve", p, 1);
	if (ret)
		return ret;
	if (c->undo && !ev.img) {
		fprintf(stderr, "imprint: evolve: '--undo' is for %s image or device; '%s' is "
				"a directory, which evolve changes through the kernel with no undo\n",
			evolved_fs(can, sizeof(can)), ev.target);
		evolve_release(&ev);
		return EXIT_USAGE;
	}
	cleanup_cancel_begin();
	ret = evolve_prepared(&ev, p->generation);
	cleanup_cancel_end();
	if (ret == -ESRCH)
		fprintf(stderr, "imprint: evolve: '%s' is not generation %" PRIu32 " of this plan: "
				"%s (%snothing was changed)\n",
			ev.target, p->generation - 1, ev.why,
			ev.already ? "" : "give the options it was created with; ");
	if (ret) {
		evolve_release(&ev);
		return 1;
	}
	if (c->json) {
		struct json_object *o = gen_report_json(ev.cur.gen);

		printf("%s\n", o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "{}");
		json_object_put(o);
	} else {
		printf("evolved '%s' from generation %" PRIu32 " to %" PRIu32 "\n", c->operand,
		       p->generation - 1, p->generation);
		if (c->undo)
			printf("'e2undo %s %s' gives back generation %" PRIu32 "\n", c->undo,
			       c->operand, p->generation - 1);
		gen_report_text(ev.cur.gen, stdout);
	}
	evolve_release(&ev);
	return 0;
}

int evolve_image(const char *path, const char *name, const struct params *p,
		 volatile sig_atomic_t *cancel, struct backend_edit_usage *usage, char *why, size_t len)
{
	struct evolve ev = { .target = path, .name = name, .scratch = 1, .cancel = cancel,
			     .usage = usage, .jobs = jobs_of(0) };
	int ret;

	why[0] = '\0';
	ret = prepare(&ev, "create", p, 1);
	if (ret == -ESRCH) {
		snprintf(why, len, "%s", ev.why);
		return ret;
	}
	if (ret)
		return ret == EXIT_USAGE ? -EINVAL : -EIO;
	ret = evolve_prepared(&ev, p->generation);
	if (ret == -ESRCH)
		snprintf(why, len, "%s", ev.why);
	evolve_release(&ev);
	return ret;
}

/* Change kinds the census counts, beside enum gen_edit_kind's. */
enum { CEN_MOVED = GEN_EDIT_KINDS, CEN_META, CEN_UNCHANGED, CEN_DELETED, CEN_KINDS };

static const char *census_name(unsigned k)
{
	static const char *const extra[] = { "renamed or moved", "metadata only", "unchanged",
					     "deleted" };

	return k < GEN_EDIT_KINDS ? plan_gen_kind_name(k) : extra[k - GEN_EDIT_KINDS];
}

/* Whether TARGET's entry at path is pl's file f: a regular file of its size and mtime. */
static int holds(struct evolve *ev, const struct plan *pl, uint64_t f, const char *path)
{
	struct backend_edit_stat st;
	struct plan_meta m;

	plan_file_meta(pl, f, &m);
	return !ev->ops->stat(ev, path, &st) && S_ISREG(st.mode) && st.size == pl->file_size[f] &&
	       st.mtime == m.mtime && st.mtime_ns == m.mtime_ns;
}

/* JSON key of census kind k. */
static const char *census_key(unsigned k)
{
	static const char *const extra[] = { "renamed_or_moved", "metadata_only", "unchanged",
					     "deleted" };

	return k < GEN_EDIT_KINDS ? plan_gen_kind_name(k) : extra[k - GEN_EDIT_KINDS];
}

static double share(uint64_t n, uint64_t of)
{
	return of ? (double)n / (double)of : 0;
}

/* The census as text lines to out. */
static void census_text(const uint64_t *planned, const uint64_t *held, uint64_t base,
			const char *target, uint32_t n, FILE *out)
{
	uint64_t all = 0, all_held = 0;

	fprintf(out, "\ngeneration %" PRIu32 " of the plan in '%s' (files by the change generation "
		     "%" PRIu32 " planned; as planned: size and mtime, or gone; rate: of generation "
		     "%" PRIu32 "'s %" PRIu64 " files):\n",
		n, target, n, n - 1, base);
	for (unsigned k = 0; k < CEN_KINDS; k++) {
		all += planned[k];
		all_held += held[k];
		if (planned[k])
			fprintf(out, "    %-17s %" PRIu64 " of %" PRIu64 " as planned (%.2f%%), "
				     "rate %.4f%% achieved of %.4f%% planned\n",
				census_name(k), held[k], planned[k],
				100.0 * share(held[k], planned[k]), 100.0 * share(held[k], base),
				100.0 * share(planned[k], base));
	}
	fprintf(out, "    %-17s %" PRIu64 " of %" PRIu64 " as planned (%.2f%%)\n", "all", all_held,
		all, all ? 100.0 * (double)all_held / (double)all : 100.0);
}

/* The census as JSON, or NULL when out of memory. */
static struct json_object *census_json(const uint64_t *planned, const uint64_t *held,
				       uint64_t base, uint32_t n)
{
	struct json_object *o = json_object_new_object(), *kinds = json_object_new_object();
	uint64_t all = 0, all_held = 0;

	if (!o || !kinds) {
		json_object_put(o);
		json_object_put(kinds);
		return NULL;
	}
	json_object_object_add(o, "generation", json_object_new_int64(n));
	json_object_object_add(o, "files_before", json_object_new_uint64(base));
	for (unsigned k = 0; k < CEN_KINDS; k++) {
		struct json_object *x = json_object_new_object();

		all += planned[k];
		all_held += held[k];
		if (!x)
			continue;
		json_object_object_add(x, "planned", json_object_new_uint64(planned[k]));
		json_object_object_add(x, "as_planned", json_object_new_uint64(held[k]));
		json_object_object_add(x, "share_as_planned",
				       json_object_new_double(planned[k] ? share(held[k], planned[k]) : 1));
		json_object_object_add(x, "rate_planned",
				       json_object_new_double(share(planned[k], base)));
		json_object_object_add(x, "rate_achieved", json_object_new_double(share(held[k], base)));
		json_object_object_add(kinds, census_key(k), x);
	}
	json_object_object_add(o, "kinds", kinds);
	json_object_object_add(o, "files_planned", json_object_new_uint64(all));
	json_object_object_add(o, "files_as_planned", json_object_new_uint64(all_held));
	json_object_object_add(o, "share_as_planned",
			       json_object_new_double(all ? share(all_held, all) : 1));
	return o;
}

int evolve_census(const char *target, const struct params *p, FILE *out,
		  struct json_object **json)
{
	struct evolve ev = { .target = target };
	uint64_t planned[CEN_KINDS] = { 0 }, held[CEN_KINDS] = { 0 };
	char p1[8192], p2[8192];
	int ret = prepare(&ev, "measure", p, 0);

	if (ret)
		return ret;
	for (uint64_t f = 0; f < ev.cur.nfiles; f++) {
		uint64_t k = file_key(&ev.cur, f), pf = ev.prev_of_key[k];
		const struct plan_gen_edit *e = edit_now(&ev.cur, f);
		struct plan_meta mc, mp;
		unsigned kind = CEN_UNCHANGED;

		if (entry_path(&ev, &ev.cur, 0, f, p1, sizeof(p1)))
			continue;
		plan_file_meta(&ev.cur, f, &mc);
		if (e)
			kind = e->kind;
		else if (pf != NONE && !entry_path(&ev, &ev.prev, 0, pf, p2, sizeof(p2)) &&
			 strcmp(p1, p2))
			kind = CEN_MOVED;
		else if (pf != NONE && (plan_file_meta(&ev.prev, pf, &mp), !same_meta(&mc, &mp)))
			kind = CEN_META;
		planned[kind]++;
		if (holds(&ev, &ev.cur, f, p1))
			held[kind]++;
	}
	for (uint64_t f = 0; f < ev.prev.nfiles; f++) {
		struct backend_edit_stat st;

		if (ev.cur_of_key[file_key(&ev.prev, f)] != NONE ||
		    entry_path(&ev, &ev.prev, 0, f, p1, sizeof(p1)))
			continue;
		planned[CEN_DELETED]++;
		if (ev.ops->stat(&ev, p1, &st) == -ENOENT)
			held[CEN_DELETED]++;
	}
	if (json) {
		*json = census_json(planned, held, ev.prev.nfiles, p->generation);
		ret = *json ? 0 : 1;
		if (ret)
			fprintf(stderr, "imprint: measure: out of memory\n");
	} else {
		census_text(planned, held, ev.prev.nfiles, target, p->generation, out);
	}
	evolve_release(&ev);
	return ret;
}
