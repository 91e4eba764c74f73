/* loopfs.c - the loopfs backend: xfs, btrfs and f2fs images made by mkfs, loop-mounted and written by the mounted backend */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backends/loopfs/loopfs.h"
#include "backends/registry.h"
#include "content/sparse.h"

#define MIB (1ULL << 20)

static const char *const loopfs_fs_names[] = { "xfs", "btrfs", "f2fs", NULL };

/* The file system pl's 'fs' names, as this backend's own name for it, or NULL: not one it makes. */
static const char *fs_of(const struct plan *pl)
{
	for (size_t i = 0; loopfs_fs_names[i]; i++)
		if (!strcmp(loopfs_fs_names[i], pl->prm.fs))
			return loopfs_fs_names[i];
	return NULL;
}

/*
 * The mounted backend's message as ours: its 'MOUNT POINT' becomes the
 * new file system in the target (which the core names as the user did),
 * and paths under it are given from the file system's root.
 */
static int inner_failed(struct lfs_state *st, int ret)
{
	const char *in = st->inner.errmsg[0] ? st->inner.errmsg : strerror(-ret);
	char out[sizeof(st->b->errmsg)], where[PATH_MAX + 64];
	size_t at = 0, mlen = strlen(st->mnt);
	int named = 0;

	snprintf(where, sizeof(where), "the new %s file system in '%s'", st->fs, st->o->target);
	while (*in && at + 1 < sizeof(out)) {
		if (mlen && in[0] == '\'' && !strncmp(in + 1, st->mnt, mlen) && in[1 + mlen] == '\'') {
			at += (size_t)snprintf(out + at, sizeof(out) - at, "%s", where);
			in += mlen + 2;
			named = 1;
		} else if (mlen && in[0] == '\'' && !strncmp(in + 1, st->mnt, mlen) &&
			   in[1 + mlen] == '/') {
			out[at++] = '\'';
			in += mlen + 1;
		} else {
			out[at++] = *in++;
		}
		if (at >= sizeof(out))
			at = sizeof(out) - 1;
	}
	out[at] = '\0';
	if (named || !mlen || !strstr(st->inner.errmsg, st->mnt))
		return lfs_err(st, ret, "%s", out);
	return lfs_err(st, ret, "%s (in %s)", out, where);
}

/* Take the device back from the kernel, once unmounted; a failure leaves it to its new holder. */
static void reclaim(struct lfs_state *st)
{
	if (st->unclaimed && !st->mounted && st->o->claim(st->o->claim_ctx, 1) == 0)
		st->unclaimed = 0;
}

/*
 * Undo whatever open() got to: the mounted backend first, then the mount,
 * the loop device and the mount point.  Problems go to stderr: b->errmsg
 * holds the reason of the failure that brought us here.
 */
static void cleanup(struct lfs_state *st)
{
	char keep[sizeof(st->b->errmsg)];

	if (st->inner_open)
		backend_abort(&st->inner);
	st->inner_open = 0;
	memcpy(keep, st->b->errmsg, sizeof(keep));
	st->b->errmsg[0] = '\0';
	if (lfs_release(st))
		fprintf(stderr, "imprint: %s\n", st->b->errmsg);
	memcpy(st->b->errmsg, keep, sizeof(keep));
	reclaim(st);
}

/* Refuse when not root: mkfs on a file is fine, but attaching and mounting are not. */
static int check_root(struct lfs_state *st)
{
	struct stat sb;
	int dev = stat(st->o->target, &sb) == 0 && S_ISBLK(sb.st_mode);

	if (geteuid() == 0)
		return 0;
	if (dev)
		return lfs_err(
			st, -EPERM,
			"making %s on '%s' needs root (mkfs and a mount); run as root or make an ext2/3/4 file system",
			st->fs, st->o->target);
	return lfs_err(
		st, -EPERM,
		"making %s %s image needs root (mkfs, a loop device and a mount); run as root or make an ext2/3/4 image",
		strcmp(st->fs, "btrfs") ? "an" : "a", st->fs);
}

/* Make the file system, attach and mount it, and open the mounted backend on it. */
static int setup(struct lfs_state *st, const struct plan *pl)
{
	int ret;

	ret = check_root(st);
	/* mkfs and the mount claim a device themselves: the core lets go until we are done */
	if (!ret && st->o->claim && st->o->claim(st->o->claim_ctx, 0) == 0)
		st->unclaimed = 1;
	/* a partition: mkfs writes through the loop device of its range only */
	if (!ret && st->o->offset)
		ret = lfs_attach(st);
	if (!ret)
		ret = lfs_mkfs(st, &pl->prm, st->o->offset ? st->dev : st->o->target);
	if (!ret && create_cancelled(st->o))
		ret = -EINTR;
	if (!ret && !st->o->offset)
		ret = lfs_attach(st);
	if (!ret)
		ret = lfs_mount(st);
	if (ret)
		return ret;
	st->io = *st->o;
	st->io.target = st->mnt;
	st->io.mkfs_options = NULL;
	st->io.no_format = 0;
	st->io.force = 0; /* the new file system is empty (lost+found aside) */
	backend_init(&st->inner, &mounted_backend_ops);
	st->inner_open = 1; /* its abort() is safe even when its open() fails half-way */
	ret = backend_open(&st->inner, &st->io, pl);
	return ret ? inner_failed(st, ret) : 0;
}

static int loopfs_open(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	struct lfs_state *st = calloc(1, sizeof(*st));
	int ret;

	if (!st) {
		snprintf(b->errmsg, sizeof(b->errmsg), "out of memory");
		return -ENOMEM;
	}
	b->priv = st;
	st->b = b;
	st->o = o;
	st->loopfd = -1;
	st->fs = fs_of(pl);
	if (!st->fs)
		ret = lfs_err(
			st, -EINVAL,
			"the loopfs backend makes xfs, btrfs or f2fs; give --fs xfs, --fs btrfs or --fs f2fs");
	else
		ret = setup(st, pl);
	if (ret) {
		/* the core aborts only what opened: undo it all here */
		cleanup(st);
		free(st);
		b->priv = NULL;
	}
	return ret;
}

static int loopfs_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
			   const struct content_source *cs, struct create_result *res)
{
	struct lfs_state *st = b->priv;
	int ret;

	(void)lo; /* the kernel places the blocks */
	ret = backend_populate(&st->inner, pl, NULL, cs, res);
	return ret ? inner_failed(st, ret) : 0;
}

/* The mounted backend makes the tree durable; then unmount and detach, before the core renames. */
static int loopfs_finish(struct backend *b)
{
	struct lfs_state *st = b->priv;
	int ret;

	ret = backend_finish(&st->inner);
	if (ret)
		return inner_failed(st, ret);
	st->inner_open = 0;
	ret = lfs_release(st);
	if (ret)
		return ret; /* abort() tries again */
	reclaim(st);
	free(st);
	b->priv = NULL;
	return 0;
}

static void loopfs_abort(struct backend *b)
{
	struct lfs_state *st = b->priv;

	if (!st)
		return;
	cleanup(st);
	free(st);
	b->priv = NULL;
}

/* File data in 4 KiB blocks, holes left out; directories a block each. */
static void data_need(const struct plan *pl, struct backend_estimate *e)
{
	const uint64_t bs = 4096;

	for (uint64_t f = 0; f < pl->nfiles; f++) {
		struct sparse_holes h = { 0 };
		uint64_t blocks = (pl->file_size[f] + bs - 1) / bs;

		if (sparse_enabled(pl) && sparse_file_holes(pl, f, &h))
			blocks -= h.bytes / bs;
		e->data += blocks * bs;
	}
	e->dirs = (uint64_t)pl->ndirs * bs;
}

/*
 * A rough upper figure from what mkfs makes of small images (xfsprogs 6.1,
 * btrfs-progs 6.2): the mounted backend checks the real free space once
 * the file system is mounted, before the first write.
 */
static int loopfs_estimate(const struct plan *pl, struct backend_estimate *e)
{
	uint64_t entries = pl->nfiles + pl->ndirs + pl->nlinks;

	data_need(pl, e);
	if (!strcmp(pl->prm.fs, "xfs")) { /* a 64 MiB log, AG headers and reserves; 512-byte inodes */
		e->journal = 64 * MIB;
		e->inodes = entries * 512;
		e->meta = pl->prm.size / 25 + e->data / 64;
	} else if (!strcmp(pl->prm.fs, "btrfs")) { /* DUP metadata and system chunks, inodes and extent items in it */
		e->inodes = 2 * entries * 512;
		e->meta = 72 * MIB + pl->prm.size / 20 + e->data / 32;
	} else { /* f2fs: its checkpoint and segment areas */
		e->inodes = entries * 4096;
		e->meta = 32 * MIB + pl->prm.size / 20;
	}
	e->total = e->data + e->dirs + e->inodes + e->journal + e->meta;
	return 0;
}

/* Their inodes are allocated as files come: no inode table to size. */
static int loopfs_check(const struct params *p, char *msg, size_t len)
{
	if (p->inodes || p->inode_ratio) {
		snprintf(msg, len,
			 "'%s' applies to ext2, ext3 and ext4 only, whose inode tables are fixed at mkfs; leave it 0 for this 'fs'",
			 p->inodes ? "inodes" : "inode_ratio");
		return -EINVAL;
	}
	return 0;
}

const struct backend_ops loopfs_backend_ops = {
	.name = "loopfs",
	.caps = BACKEND_FORMATS | BACKEND_MEASURES | BACKEND_INCLUDES, /* through the mounted backend */
	.targets = BACKEND_TARGET_FILE | BACKEND_TARGET_DEVICE,
	.options = BACKEND_OPT_KEEP_PARTIAL | BACKEND_OPT_MKFS_OPTIONS | BACKEND_OPT_PARTITION,
	.fs_names = loopfs_fs_names,
	.summary = "xfs, btrfs, f2fs images, as root",
	.fs_note = "create as root: mkfs, a loop device and a mount",
	.check = loopfs_check,
	.reader = "loop",
	.estimate = loopfs_estimate,
	.open = loopfs_open,
	.populate = loopfs_populate,
	.finish = loopfs_finish,
	.abort = loopfs_abort,
};
