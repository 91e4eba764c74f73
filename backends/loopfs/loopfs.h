/* loopfs.h - the loopfs backend's state: mkfs, a loop device and a private mount around the mounted backend */
#ifndef IMPRINT_LOOPFS_H
#define IMPRINT_LOOPFS_H

#include <limits.h>

#include "backends/backend.h"

/* Everything the backend made, so that abort() undoes exactly that. */
struct lfs_state {
	struct backend *b;
	const struct create_opts *o;
	const char *fs;	       /* "xfs", "btrfs", "f2fs" */
	char dev[64];	       /* what is mounted: the loop device, or the target device */
	int loopfd;	       /* the loop device we configured, open until detached; -1: none */
	char mnt[PATH_MAX];    /* the private mount point ("" until made) */
	int mounted;	       /* mnt holds our mount */
	struct create_opts io; /* the mounted backend's options: target = mnt */
	struct backend inner;  /* the mounted backend, called through the backend_*() wrappers */
	int inner_open;	       /* inner was opened: its abort() has work to do */
	int unclaimed;	       /* the core's exclusive claim of the device is let go (mkfs, mount) */
};

/* Set b->errmsg; returns ret (a negative errno). */
#define lfs_err(st, ret, ...) backend_set_err((st)->b, (ret), __VA_ARGS__)

/* mkfs.c: make fs on on (the target, or the loop device of its partition) with mkfs.<fs>, its UUID params_fs_uuid(p) */
int lfs_mkfs(struct lfs_state *st, const struct params *p, const char *on);

/*
 * attach.c: the loop device (of the image, or with --partition of the
 * partition's range of the image or device), the private mount point and
 * the mount; undone by lfs_release
 */
int lfs_attach(struct lfs_state *st);
int lfs_mount(struct lfs_state *st);
int lfs_release(struct lfs_state *st);

#endif
