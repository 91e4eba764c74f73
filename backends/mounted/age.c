/* age.c - the mounted backend's aging: the offline simulation's create/delete churn, run for real through the kernel */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "backends/mounted/mounted.h"
#include "layout/age.h"
#include "layout/layout.h"
#include "util/rng.h"

#define AGE_BUF (1 << 20)

/* The churn's operations, in order, as the simulation performed them. */
struct op_list {
	struct age_op *op;
	size_t n, cap;
};

static int collect(void *ctx, const struct age_op *op)
{
	struct op_list *l = ctx;

	if (op->kind == AGE_MKDIR)
		return 0; /* mnt_make_dirs made them */
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 4096;
		struct age_op *p = realloc(l->op, cap * sizeof(*p));

		if (!p)
			return 1;
		l->op = p;
		l->cap = cap;
	}
	l->op[l->n++] = *op;
	return 0;
}

/* An ext4-like free map of the file system's size: 32768-block groups, flex groups of 16. */
static int synthetic_map(uint64_t nblocks, struct freemap *fm)
{
	uint32_t bpg = 32768;

	memset(fm, 0, sizeof(*fm));
	fm->nblocks = nblocks;
	fm->blocks_per_group = bpg;
	fm->ngroups = (uint32_t)((nblocks + bpg - 1) / bpg);
	fm->flex_groups = 16;
	fm->runs = malloc(sizeof(*fm->runs));
	if (!fm->runs)
		return -ENOMEM;
	fm->runs[0].start = 0;
	fm->runs[0].len = nblocks;
	fm->nruns = 1;
	return 0;
}

/* Block counts of the plan's entries for the simulation (directories and symlinks estimated). */
static int request_of(struct mnt_state *st, struct layout_request *rq, uint64_t **fb,
		      uint32_t **db, uint8_t **lb)
{
	const struct plan *pl = st->pl;
	uint64_t bs = st->vfs.f_bsize;

	*fb = calloc(pl->nfiles + 1, sizeof(**fb));
	*db = calloc(pl->ndirs + 1, sizeof(**db));
	*lb = calloc(pl->nlinks + 1, sizeof(**lb));
	if (!*fb || !*db || !*lb)
		return -ENOMEM;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		(*fb)[f] = (pl->file_size[f] + bs - 1) / bs;
	for (uint32_t j = 0; j < pl->ndirs; j++)
		(*db)[j] = 1 + (pl->dir_nfiles[j] * 32) / (uint32_t)bs;
	memset(rq, 0, sizeof(*rq));
	layout_request_set_params(rq, &pl->prm);
	rq->pl = pl;
	rq->file_blocks = *fb;
	rq->dir_blocks = *db;
	rq->link_blocks = *lb;
	rq->block_size = (uint32_t)bs;
	rq->mapping = LAYOUT_EXTENTS;
	rq->max_extent_len = 32768;
	rq->pool_blocks = 64 + pl->ndirs / 64;
	rq->seed = pl->prm.seed;
	return 0;
}

/*
 * Run the simulation for the plan on a map of the space DIR's file system
 * has available (not its whole size: its own metadata, journal and
 * reserve are not there to churn in); *l gets its operations.
 */
static int simulate(struct mnt_state *st, struct op_list *l)
{
	struct layout_request rq;
	struct age_trace tr = { .ctx = l, .op = collect };
	struct freemap fm = { 0 };
	struct layout lo;
	uint64_t *fb = NULL, need = 0;
	uint32_t *db = NULL;
	uint8_t *lb = NULL;
	int ret = request_of(st, &rq, &fb, &db, &lb);

	if (!ret)
		ret = synthetic_map((uint64_t)st->vfs.f_bavail * st->vfs.f_frsize / st->vfs.f_bsize,
				    &fm);
	rq.age_trace = &tr;
	if (!ret) {
		ret = age_build(&lo, &rq, &fm, &need);
		if (!ret)
			layout_release(&lo);
	}
	free(fm.runs);
	free(fb);
	free(db);
	free(lb);
	return ret;
}

/* Temporary id's name: ".age~ID" in its directory. */
static void temp_name(uint64_t id, char *name, size_t len)
{
	snprintf(name, len, ".age~%llu", (unsigned long long)id);
}

/* Delete op's temporary if it is live; returns whether it did. */
static int temp_remove(struct mnt_state *st, const struct age_op *op)
{
	char name[48];
	int dfd, done = 0;

	if (op->kind != AGE_CREATE || !op->temp || !st->age_live[op->id] ||
	    mnt_open_dir(st, op->dir, &dfd))
		return 0;
	temp_name(op->id, name, sizeof(name));
	if (!unlinkat(dfd, name, 0)) {
		st->age_live[op->id] = 0;
		done = 1;
	}
	close(dfd);
	return done;
}

/* Whether an error says the file system is full. */
static int no_room(int ret)
{
	return ret == -ENOSPC || ret == -EDQUOT;
}

/*
 * A temporary of bytes bytes, written whole, its writeback started before
 * close (allocated while open).  Returns 1 when the file system had no
 * room for it: what was written is removed and the temporary dropped, as
 * the simulation drops one that finds no room.
 */
static int temp_create(struct mnt_state *st, int dfd, const struct age_op *op, unsigned char *buf)
{
	char name[48];
	uint64_t off = 0;
	int fd, ret = 0;

	temp_name(op->id, name, sizeof(name));
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return no_room(-errno) ? (st->age_dropped++, 1) : -errno;
	st->age_live[op->id] = 1;
	while (off < op->bytes && !ret) {
		size_t n = op->bytes - off < AGE_BUF ? (size_t)(op->bytes - off) : AGE_BUF;
		ssize_t w = pwrite(fd, buf, n, (off_t)off);

		/* a short write is no error: the next one says why (ENOSPC) */
		if (w < 0)
			ret = -errno;
		else if (w == 0)
			ret = -EIO;
		else
			off += (uint64_t)w;
	}
	if (!ret && sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE) != 0)
		ret = -errno;
	close(fd);
	if (no_room(ret) && !unlinkat(dfd, name, 0)) {
		st->age_live[op->id] = 0;
		st->age_dropped++;
		return 1;
	}
	return ret;
}

/*
 * Make room for plan file f that found none: remove what it wrote, delete
 * live temporaries (the oldest first, until twice its size is freed or
 * none is left) and commit.  Returns 0 to try again, or ret when there
 * was no temporary left to delete.
 */
static int make_room(struct mnt_state *st, const struct op_list *l, int dfd, uint64_t f, int ret)
{
	uint64_t want = 2 * st->pl->file_size[f] + AGE_BUF, freed = 0;
	char name[NAME_MAX_LEN + 1];

	mnt_file_name(st, f, name, 0);
	if (!unlinkat(dfd, name, 0))
		st->undo.file[f] = 0;
	else if (errno != ENOENT)
		return ret;
	for (size_t i = 0; i < l->n && freed < want; i++) {
		if (temp_remove(st, &l->op[i])) {
			st->age_forced++;
			freed += l->op[i].bytes;
		}
	}
	if (!freed)
		return ret;
	return syncfs(st->rootfd) ? -errno : 0;
}

/* One operation of the churn under DIR. */
static int age_op_run(struct mnt_state *st, const struct op_list *l, const struct age_op *op,
		      unsigned char *buf)
{
	char name[48];
	int dfd, ret = mnt_open_dir(st, op->dir, &dfd);

	if (ret)
		return ret;
	if (op->kind == AGE_UNLINK) {
		/* one dropped, or deleted early to make room, is gone already */
		temp_name(op->id, name, sizeof(name));
		ret = !st->age_live[op->id] ? 0 : unlinkat(dfd, name, 0) ? -errno : 0;
		if (!ret)
			st->age_live[op->id] = 0;
	} else if (op->temp) {
		ret = temp_create(st, dfd, op, buf);
		ret = ret > 0 ? 0 : ret;
	} else {
		do
			ret = mnt_write_file(st, dfd, op->id, buf, AGE_BUF);
		while (no_room(ret) && !make_room(st, l, dfd, op->id, ret));
		st->skip[op->id] = 1;
	}
	close(dfd);
	return ret;
}

/* End of a round: a commit (syncfs), then its score by FIEMAP over the live files and the free space. */
static int round_end(struct mnt_state *st, uint32_t round, struct create_result *res)
{
	struct create_result m = { 0 };
	struct create_age_round *a;
	struct statvfs v;
	int ret;

	if (syncfs(st->rootfd) != 0)
		return -errno;
	ret = mnt_measure(st, &m);
	if (ret)
		return ret;
	if (fstatvfs(st->rootfd, &v) != 0)
		return -errno;
	a = &res->age_series[res->age_series_n % CREATE_AGE_SERIES];
	a->round = round;
	a->layout_score = m.have_score ? m.layout_score : -1;
	a->files = m.frag_eligible;
	a->fragmented = m.frag_files;
	a->free_blocks = (uint64_t)v.f_bfree * v.f_frsize / st->vfs.f_bsize;
	a->total_blocks = (uint64_t)v.f_blocks * v.f_frsize / st->vfs.f_bsize;
	res->age_series_n++;
	return 0;
}

/* Remove the temporaries still there (after a failure). */
static void remove_temps(struct mnt_state *st, const struct op_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		temp_remove(st, &l->op[i]);
}

/*
 * age_rounds >= 1: the offline simulation's churn (src/layout/age.c) for
 * the plan, replayed in DIR: temporaries created with real data and
 * deleted, the plan's files created in their rounds (the workers skip
 * them); a syncfs() ends each round, whose score and free space go to
 * res->age_series.  The kernel places every block.
 */
int mnt_age(struct mnt_state *st, struct create_result *res)
{
	struct op_list l = { 0 };
	unsigned char *buf = malloc(AGE_BUF);
	uint64_t ntemp = 0, key = rng_stream_key(st->pl->prm.seed, "mounted-age");
	int ret;

	st->skip = st->skip ? st->skip : calloc(st->pl->nfiles + 1, 1);
	if (!buf || !st->skip) {
		free(buf);
		return mnt_err(st, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < AGE_BUF / 8; i++)
		((uint64_t *)buf)[i] = rng_mix64(key + i);
	ret = simulate(st, &l);
	if (ret) {
		free(buf);
		free(l.op);
		return mnt_err(st, ret, "cannot simulate the aging churn for '%s': %s", st->root,
			       strerror(-ret));
	}
	for (size_t i = 0; i < l.n; i++)
		if (l.op[i].temp && l.op[i].id + 1 > ntemp)
			ntemp = l.op[i].id + 1;
	st->age_live = calloc(ntemp + 1, 1);
	ret = st->age_live ? 0 : -ENOMEM;
	res->age_rounds = st->pl->prm.age_rounds;
	for (size_t i = 0; i < l.n && !ret; i++) {
		if (mnt_cancelled(st))
			ret = -EINTR;
		else if (l.op[i].kind == AGE_ROUND)
			ret = l.op[i].round ? round_end(st, l.op[i].round - 1, res) : 0;
		else
			ret = age_op_run(st, &l, &l.op[i], buf);
	}
	if (!ret)
		ret = round_end(st, st->pl->prm.age_rounds, res);
	if (ret && st->age_live)
		remove_temps(st, &l);
	if (ret && ret != -EINTR)
		mnt_err(st, ret, "cannot run the aging churn in '%s': %s", st->root, strerror(-ret));
	free(st->age_live);
	st->age_live = NULL;
	free(l.op);
	free(buf);
	return ret;
}

/* Say in notes what the churn dropped or deleted early for want of room (nothing said if none). */
void mnt_age_note(const struct mnt_state *st, char *notes, size_t len)
{
	size_t at = strlen(notes);

	if ((!st->age_dropped && !st->age_forced) || at + 1 >= len)
		return;
	snprintf(notes + at, len - at,
		 "%saging: the file system was full for %llu temporaries (not made) and %llu were deleted early to make room",
		 at ? "; " : "", (unsigned long long)st->age_dropped,
		 (unsigned long long)st->age_forced);
}
