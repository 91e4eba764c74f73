/* fsread_mount.h - an image's or disk's file system mounted read-only on a private directory: for verify and the loop reader */
#ifndef IMPRINT_FSREAD_MOUNT_H
#define IMPRINT_FSREAD_MOUNT_H

#include <limits.h>
#include <stddef.h>

#include "read/fsread.h"

/* A disk's file system, mounted read-only on a private directory. */
struct fsread_mount {
	char dev[64];	    /* the loop device */
	int loopfd;	    /* open until undone; -1: none */
	char dir[PATH_MAX]; /* the mount point ("" until made) */
	int mounted;
};

/*
 * Mount the file system at where in target (fsread_find()) read-only
 * through a read-only loop device on a directory of its own (in TMPDIR),
 * as root.  Not root: -EPERM, and msg says, after "'TARGET' is an image:
 * " and why (e.g. "verify checks a mounted tree"), how to mount it by
 * hand.  Returns 0 with m->dir set, or a negative errno with msg set;
 * fsread_unmount() undoes what was done either way.
 */
int fsread_mount(const char *target, const struct fsread_place *where, const char *why,
		 struct fsread_mount *m, char *msg, size_t len);

/*
 * Detach m's file system from its directory at once (MNT_DETACH): what is
 * open in it stays readable, and the kernel lets go of it, and of the
 * loop device, when the last of that is closed.  Then as fsread_unmount().
 */
int fsread_mount_detach(struct fsread_mount *m, char *msg, size_t len);

/* Unmount, detach and remove the directory.  Returns 0 or a negative errno with msg set. */
int fsread_unmount(struct fsread_mount *m, char *msg, size_t len);

#endif
