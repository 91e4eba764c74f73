/* verify_disk.h - `imprint verify` of an image or device: its file system mounted read-only for the check */
#ifndef IMPRINT_VERIFY_DISK_H
#define IMPRINT_VERIFY_DISK_H

#include <limits.h>
#include <stddef.h>

/* A disk's file system, mounted read-only on a private directory. */
struct disk_mount {
	char dev[64];	    /* the loop device */
	int loopfd;	    /* open until undone; -1: none */
	char dir[PATH_MAX]; /* the mount point ("" until made) */
	int mounted;
};

/*
 * Mount target's file system (partition part, or 0: the one found through
 * its table, or the whole target) read-only through a read-only loop
 * device on a directory of its own (in TMPDIR), as root.  Not root: -EPERM
 * and msg says how to mount it by hand.  Returns 0 with m->dir set, or a
 * negative errno with msg set; disk_unmount() undoes what was done either
 * way.
 */
int disk_mount(const char *target, int part, struct disk_mount *m, char *msg, size_t len);

/* Unmount, detach and remove the directory.  Returns 0 or a negative errno with msg set. */
int disk_unmount(struct disk_mount *m, char *msg, size_t len);

#endif
