/* fsread_mount.c - an image's or disk's file system mounted read-only on a private directory: for verify and the loop reader */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "read/fsread_mount.h"
#include "util/cleanup.h"
#include "util/loopdev.h"

/* Not root: how to mount it by hand, in msg. */
static int need_root(const char *target, const struct fsread_place *w, const char *why,
		     char *msg, size_t len)
{
	if (w->partno)
		snprintf(msg, len, "'%s' is a disk image: %s; as root it mounts partition %d (%s) read-only itself, else mount it (mount -o ro,loop,offset=%llu,sizelimit=%llu '%s' DIR) and give DIR",
			 target, why, w->partno, w->type, (unsigned long long)w->start,
			 (unsigned long long)w->len, target);
	else
		snprintf(msg, len, "'%s' is an image: %s; as root it mounts the image read-only itself, else mount it (mount -o ro,loop '%s' DIR) and give DIR",
			 target, why, target);
	return -EPERM;
}

int fsread_mount(const char *target, const struct fsread_place *where, const char *why,
		 struct fsread_mount *m, char *msg, size_t len)
{
	const struct fsread_place w = *where;
	const char *tmp = getenv("TMPDIR");
	char cause[512];
	int ret;

	memset(m, 0, sizeof(*m));
	m->loopfd = -1;
	if (!w.type[0]) {
		snprintf(msg, len, "'%s' holds no file system imprint knows", target);
		return -EINVAL;
	}
	if (geteuid() != 0)
		return need_root(target, &w, why, msg, len);
	ret = loopdev_attach(target, w.start, w.len, 1, m->dev, sizeof(m->dev), &m->loopfd, msg,
			     len);
	if (ret)
		return ret;
	snprintf(m->dir, sizeof(m->dir), "%s/imprint-mount.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(m->dir)) {
		ret = -errno;
		snprintf(msg, len, "cannot make a mount point '%s': %s", m->dir, strerror(-ret));
		m->dir[0] = '\0';
		return ret;
	}
	cleanup_track(m->dir, CLEANUP_MOUNT);
	/*
	 * xfs: a copy of a mounted file system mounts too (nouuid), and a
	 * dirty log is not replayed (norecovery: the device is read-only):
	 * what is on disk is read, as the ext2 reader reads it
	 */
	if (mount(m->dev, m->dir, w.type, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  strcmp(w.type, "xfs") ? NULL : "nouuid,norecovery") != 0) {
		ret = -errno;
		snprintf(msg, len, "cannot mount the %s file system of '%s'%s read-only (%s on '%s'): %s",
			 w.type, target, w.partno ? " (its partition)" : "", m->dev, m->dir,
			 loopdev_mount_error(m->dev, ret, cause, sizeof(cause)));
		return ret;
	}
	m->mounted = 1;
	/* private: nothing propagates to or from the host's mounts */
	mount(NULL, m->dir, NULL, MS_PRIVATE, NULL);
	cleanup_test_pause("mounted");
	return 0;
}

int fsread_mount_detach(struct fsread_mount *m, char *msg, size_t len)
{
	if (m->mounted && umount2(m->dir, MNT_DETACH) == 0)
		m->mounted = 0;
	return fsread_unmount(m, msg, len);
}

int fsread_unmount(struct fsread_mount *m, char *msg, size_t len)
{
	int ret = 0;

	if (m->mounted) {
		ret = loopdev_umount(m->dir, msg, len);
		m->mounted = ret && ret != -EBUSY;
		if (m->mounted)
			return ret; /* leave the loop device and the directory under it */
	}
	if (m->dir[0] && rmdir(m->dir) != 0 && !ret) {
		ret = -errno;
		snprintf(msg, len, "cannot remove the mount point '%s': %s", m->dir, strerror(-ret));
	}
	if (m->dir[0])
		cleanup_untrack(m->dir);
	m->dir[0] = '\0';
	if (m->loopfd >= 0)
		close(m->loopfd); /* autoclear: the device goes with its last user */
	m->loopfd = -1;
	return ret;
}
