/* mounted.c - the mounted-path backend: writes the plan into a directory through the kernel */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "backends/mounted/include.h"
#include "backends/mounted/mounted.h"
#include "util/util.h"

static int check_dir(struct mnt_state *st)
{
	int ret;

	/* DIR as it is before anything (reading it, the probe's scratch directory) touches it */
	if (fstat(st->rootfd, &st->undo.root_orig) != 0)
		return mnt_err(st, -errno, "cannot stat '%s': %s", st->root, strerror(errno));
	st->undo.root_saved = 1;
	if (st->shard.n || st->shard_finish) /* the shard marker says */
		return fstatvfs(st->rootfd, &st->vfs) ? mnt_err(st, -errno, "cannot statvfs '%s': %s",
								 st->root, strerror(errno)) : 0;
	ret = mnt_dir_empty(st, 0, &st->root_empty);
	if (ret)
		return mnt_err(st, ret, "cannot read directory '%s': %s", st->root, strerror(-ret));
	if (!st->root_empty && !st->o->force)
		return mnt_err(st, -EEXIST,
			       "'%s' is not empty; give an empty directory (lost+found is allowed), or --force to add to it (nothing there is overwritten)",
			       st->root);
	if (fstatvfs(st->rootfd, &st->vfs) != 0)
		return mnt_err(st, -errno, "cannot statvfs '%s': %s", st->root, strerror(errno));
	return 0;
}

static int mounted_open(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	struct mnt_state *st = calloc(1, sizeof(*st));
	int ret;

	if (!st)
		return -ENOMEM;
	b->priv = st;
	st->b = b;
	st->o = o;
	st->pl = pl;
	st->rootfd = -1;
	st->as_root = geteuid() == 0;
	st->set_owners = st->as_root;
	st->root = strdup(o->target);
	if (!st->root)
		return mnt_err(st, -ENOMEM, "out of memory");
	st->shard_finish = o->shard_finish;
	ret = mnt_open_root(st);
	if (!ret && (o->shard_n || o->shard_finish))
		ret = mnt_shard_open(st);  /* before anything is written */
	if (!ret)
		ret = check_dir(st);
	if (!ret && !st->shard_finish)
		ret = mnt_check_space(st);  /* read-only first: the probe writes */
	if (!ret)
		ret = mnt_probe(st);
	if (!ret)
		ret = mnt_check_plan(st);
	return ret;
}

static int undo_alloc(struct mnt_state *st)
{
	const struct plan *pl = st->pl;

	st->undo.dir = calloc(pl->ndirs + 1, 1);
	st->undo.file = calloc(pl->nfiles + 1, 1);
	st->undo.link = calloc(pl->nlinks + 1, 1);
	if (!st->undo.dir || !st->undo.file || !st->undo.link)
		return mnt_err(st, -ENOMEM, "out of memory");
	return 0;
}

/* After a failure: remove what was made (or keep it) and say so in the message. */
static void undo_after_failure(struct mnt_state *st)
{
	size_t at = strlen(st->b->errmsg);
	char *m = st->b->errmsg + at;
	size_t left = sizeof(st->b->errmsg) - at;
	const char *sep = at ? "; " : "";

	if (st->shard.n || st->shard_finish) {
		/* the other shards' entries are beside its own: a rerun completes it instead */
		if (st->shard.n)
			snprintf(m, left, "%skept what this shard made in '%s' (--shard: run it again to complete it)",
				 sep, st->root);
		st->cleaned = 1;
		return;
	}
	if (st->o->keep_partial) {
		snprintf(m, left, "%skept what was made in '%s' (--keep-partial)", sep, st->root);
		st->cleaned = 1;
		return;
	}
	mnt_remove_includes(st);
	mnt_remove_made(st);
	if (st->remove_failed)
		snprintf(m, left, "%sremoved %llu entries it had created in '%s', %llu could not be removed",
			 sep, st->removed, st->root, st->remove_failed);
	else
		snprintf(m, left, "%sremoved the %llu entries it had created in '%s'", sep,
			 st->removed, st->root);
}

/* --allow-drop without chown: every inode made (symbolic links too), DIR when it was empty. */
static uint64_t owners_dropped(const struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	uint64_t n = pl->ndirs - 1 + pl->nfiles + (st->root_empty ? 1 : 0);

	if (!st->as_root || st->set_owners)
		return 0;
	for (uint32_t l = 0; l < pl->nlinks; l++)
		n += !(pl->link_kind[l] & LINK_HARD);
	return n - st->dropped_sym;
}

/* Entry metadata m lost its mode (permission bits not kept, or special bits) or its nanoseconds. */
static void meta_dropped(const struct mnt_state *st, const struct plan_meta *m, uint64_t *modes,
			 uint64_t *times, int has_mode)
{
	*modes += st->drop_modes && has_mode && (!st->caps.perms || (m->mode & 07000));
	*times += st->round_times && (m->mtime_ns || m->atime_ns);
}

/*
 * --allow-drop without mode bits or nanosecond times: the inodes made
 * (DIR when it was empty) whose planned mode the file system did not keep
 * (all where even permission bits are not kept), and the entries whose
 * planned times had nanoseconds.
 */
static void modes_times_dropped(const struct mnt_state *st, uint64_t *modes, uint64_t *times)
{
	const struct plan *pl = st->pl;
	struct plan_meta m;

	*modes = *times = 0;
	if (!st->drop_modes && !st->round_times)
		return;
	for (uint32_t d = st->root_empty ? 0 : 1; d < pl->ndirs; d++) {
		plan_dir_meta(pl, d, &m);
		meta_dropped(st, &m, modes, times, 1);
	}
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		plan_file_meta(pl, f, &m);
		meta_dropped(st, &m, modes, times, 1);
	}
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		uint8_t k = pl->link_kind[l];

		if ((k & LINK_HARD) || (!(k & LINK_SPECIAL) && st->drop_sym))
			continue;
		plan_link_meta(pl, l, &m);
		meta_dropped(st, &m, modes, times, (k & LINK_SPECIAL) != 0);
	}
}

static void fill_result(struct mnt_state *st, struct create_result *res, double t)
{
	const struct plan *pl = st->pl;

	res->files = pl->nfiles;
	res->dirs = pl->ndirs;
	if (st->shard.n || st->shard_finish) {
		/* what this share holds; the finishing step makes no file */
		res->files = st->shard.files;
		res->dirs = st->shard_finish ? pl->ndirs : st->shard.dirs;
		res->links = st->shard.links;
		res->bytes = st->shard.bytes;
		res->seconds = t;
		res->block_size = st->vfs.f_bsize;
		res->sparse_files = st->sparse_files;
		res->hole_blocks = st->hole_blocks;
		return;
	}
	res->dropped_hardlinks = st->dropped_hard;
	res->dropped_symlinks = st->dropped_sym;
	res->links = pl->nlinks - st->dropped_hard - st->dropped_sym; /* those made */
	res->renamed = st->renamed;
	res->owners_dropped = owners_dropped(st);
	modes_times_dropped(st, &res->modes_dropped, &res->times_rounded);
	res->holes_filled = st->holes_filled;
	res->bytes = pl->bytes;
	res->seconds = t;
	res->block_size = st->vfs.f_bsize;
	res->sparse_files = st->sparse_files;
	res->hole_blocks = st->hole_blocks;
}

/*
 * Blocks used and inodes as df counts them (statvfs), once the data is
 * written back: btrfs allocates at writeback and commits its accounting
 * with the transaction, so before syncfs it under-counts.
 */
static void fill_usage(struct mnt_state *st, struct create_result *res)
{
	struct statvfs v;

	if (fstatvfs(st->rootfd, &v) != 0)
		return;
	if (v.f_frsize)
		res->blocks_used = (uint64_t)(v.f_blocks - v.f_bfree) * v.f_frsize / st->vfs.f_bsize;
	res->have_inodes = v.f_files != 0; /* btrfs: no inode count */
	res->inodes = v.f_files;
	res->inodes_free = v.f_ffree;
}

/* What the plan asks that only an offline backend can do: said, not silently dropped. */
static void kernel_note(const struct mnt_state *st, char *notes, size_t len)
{
	const struct params *p = &st->pl->prm;
	size_t at = strlen(notes);

	if ((p->dir_frag_share > 0 || p->dir_slack > 0 || p->inode_order != ORDER_DIR) &&
	    at + 1 < len)
		snprintf(notes + at, len - at,
			 "%s'dir_frag_share', 'dir_slack' and 'inode_order' do not apply: the kernel lays out directories and numbers inodes",
			 at ? "; " : "");
}

/*
 * --shard K/N: the share's directories (those another shard made are
 * fine), its files not already complete, its links; no fragmenting (the
 * shards' writes interleave on the file system) and no directory
 * metadata (other shards still add entries: --shard finish sets it).
 * --shard finish: the directories' metadata.
 */
static int shard_populate(struct mnt_state *st)
{
	int ret;

	if (st->shard_finish) {
		/* again after a stop past the markers' removal: the shards were all done */
		ret = st->shard_refinish ? 0 : mnt_shard_all_done(st);
		if (!ret)
			ret = mnt_set_subdir_meta(st);
		/* DIR's own metadata last: removing the markers changes its times */
		if (!ret)
			ret = mnt_shard_unmark(st);
		if (!ret)
			ret = mnt_set_root_meta(st);
		return ret ? ret : mnt_shard_finished(st);
	}
	ret = mnt_make_dirs(st);
	if (!ret)
		ret = mnt_shard_skip(st);
	if (!ret)
		ret = mnt_write_files(st);
	if (!ret)
		ret = mnt_make_links(st);
	if (!ret && mnt_cancelled(st))
		ret = -EINTR;
	if (!ret)
		ret = mnt_shard_done(st);
	return ret;
}

/* Say what a shard did and what it leaves to others. */
static void shard_note(const struct mnt_state *st, char *notes, size_t len)
{
	size_t at = strlen(notes);

	if (at + 1 >= len)
		return;
	if (st->shard_finish)
		snprintf(notes + at, len - at, "%sshards finished: directories' metadata set",
			 at ? "; " : "");
	else
		snprintf(notes + at, len - at,
			 "%sshard %u of %u (counting from 0): %llu files complete from a run before; directories' metadata comes with 'imprint create --shard finish' after all shards",
			 at ? "; " : "", st->shard.k, st->shard.n, (unsigned long long)st->shard_done);
}

static int mounted_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
			    const struct content_source *cs, struct create_result *res)
{
	struct mnt_state *st = b->priv;
	struct timespec t0, t1;
	double target = pl->prm.layout_score;
	mode_t mask;
	int ret;

	(void)lo; /* the kernel places the blocks */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st->cs = cs;
	ret = undo_alloc(st);
	if (ret)
		return ret;
	st->populating = 1;
	if (!st->as_root)
		snprintf(res->notes, sizeof(res->notes),
			 "not root: owners are the caller's (%u:%u), not the planned ones",
			 (unsigned)geteuid(), (unsigned)getegid());
	mask = umask(0);
	if (st->shard.n || st->shard_finish) {
		ret = shard_populate(st);
		umask(mask);
		if (ret) {
			undo_after_failure(st);
			return ret;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		fill_result(st, res, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
		shard_note(st, res->notes, sizeof(res->notes));
		return 0;
	}
	ret = mnt_make_dirs(st);
	if (!ret && pl->prm.age_rounds)
		ret = mnt_age(st, res);  /* aged: no score target applies */
	else if (!ret)
		ret = mnt_fragment(st, &target);
	if (!ret)
		ret = mnt_write_files(st);
	if (!ret)
		ret = mnt_make_links(st);
	if (!ret) /* before DIR's own times are set */
		ret = mnt_write_includes(st);
	if (!ret)
		ret = mnt_set_dir_meta(st);
	if (!ret && st->caps.fail_last)
		ret = mnt_err(st, -EIO, "failing after the last step, as IMPRINT_MOUNTED_DENY=fail_last asks");
	umask(mask);
	if (!ret && mnt_cancelled(st))
		ret = -EINTR;
	if (ret) {
		undo_after_failure(st);
		return ret;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fill_result(st, res, (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	res->layout_target = target;
	/* FIEMAP and statvfs see only what is allocated: write back first */
	if (syncfs(st->rootfd) != 0)
		return mnt_err(st, -errno, "cannot sync the file system of '%s': %s", st->root,
			       strerror(errno));
	ret = mnt_measure(st, res);
	if (ret)
		return ret;
	fill_usage(st, res);
	mnt_frag_note(st, res);
	mnt_age_note(st, res->notes, sizeof(res->notes));
	kernel_note(st, res->notes, sizeof(res->notes));
	return 0;
}

static void mounted_abort(struct backend *b);

/* Make it durable, then release (on failure abort() removes it all). */
static int mounted_finish(struct backend *b)
{
	struct mnt_state *st = b->priv;

	if (syncfs(st->rootfd) != 0)
		return mnt_err(st, -errno, "cannot sync the file system of '%s': %s", st->root,
			       strerror(errno));
	st->populating = 0;  /* a success: nothing to remove */
	mounted_abort(b);
	return 0;
}

static void mounted_abort(struct backend *b)
{
	struct mnt_state *st = b->priv;

	if (!st)
		return;
	if (st->populating && !st->cleaned) {
		if (st->shard.n) {
			fprintf(stderr, "imprint: kept what this shard made in '%s' (--shard: run it again to complete it)\n",
				st->root);
		} else if (st->shard_finish) {
			/* nothing to undo: directories' metadata, set again by a rerun */
		} else if (st->o->keep_partial) {
			fprintf(stderr, "imprint: kept what was made in '%s' (--keep-partial)\n",
				st->root);
		} else {
			mnt_remove_includes(st);
			mnt_remove_made(st);
			fprintf(stderr, "imprint: removed the %llu entries it had created in '%s'%s\n",
				st->removed, st->root,
				st->remove_failed ? " (some could not be removed)" : "");
		}
	}
	if (st->rootfd >= 0)
		close(st->rootfd);
	mnt_xattrs_release_root(st);
	plan_shard_release(&st->shard);
	FREE_ALL(st->undo.dir, st->undo.file, st->undo.link, st->skip, st->frag_got, st->case_dir,
		 st->case_file, st->case_link, st->inc_made);
	free(st->root);
	free(st);
	b->priv = NULL;
}

const struct backend_ops mounted_backend_ops = {
	.name = "mounted",
	.caps = BACKEND_MEASURES | BACKEND_INCLUDES,
	.targets = BACKEND_TARGET_DIR,
	.options = BACKEND_OPT_KEEP_PARTIAL | BACKEND_OPT_ALLOW_DROP | BACKEND_OPT_SHARD,
	.fs_names = NULL, /* whatever is mounted there */
	.summary = "a directory of a mounted file system",
	.reader = "mounted",
	.open = mounted_open,
	.populate = mounted_populate,
	.finish = mounted_finish,
	.abort = mounted_abort,
};
