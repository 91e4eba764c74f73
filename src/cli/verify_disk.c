/* verify_disk.c - `imprint verify` of an image or device: its file system mounted read-only for the check */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "backends/loopfs/loopdev.h"
#include "cli/verify_disk.h"
#include "read/fsread.h"

/* Not root: how to mount it by hand, in msg. */
static int need_root(const char *target, const struct fsread_place *w, char *msg, size_t len)
{
	if (w->partno)
		snprintf(msg, len, "'%s' is a disk image: verify checks a mounted tree; as root it mounts partition %d (%s) read-only itself, else mount it (mount -o ro,loop,offset=%llu,sizelimit=%llu '%s' DIR) and give DIR",
			 target, w->partno, w->type, (unsigned long long)w->start,
			 (unsigned long long)w->len, target);
	else
		snprintf(msg, len, "'%s' is an image: verify checks a mounted tree; as root it mounts the image read-only itself, else mount it (mount -o ro,loop '%s' DIR) and give DIR",
			 target, target);
	return -EPERM;
}

int disk_mount(const char *target, int part, struct disk_mount *m, char *msg, size_t len)
{
	struct fsread_error err = { { 0 } };
	struct fsread_place w;
	const char *tmp = getenv("TMPDIR");
	char why[512];
	int ret;

	memset(m, 0, sizeof(*m));
	m->loopfd = -1;
	ret = fsread_find(target, part, &w, &err);
	if (ret) {
		snprintf(msg, len, "%s", err.msg);
		return ret;
	}
	if (!w.type[0]) {
		snprintf(msg, len, "'%s' holds no file system imprint knows", target);
		return -EINVAL;
	}
	if (geteuid() != 0)
		return need_root(target, &w, msg, len);
	ret = loopdev_attach(target, w.start, w.len, 1, m->dev, sizeof(m->dev), &m->loopfd, msg,
			     len);
	if (ret)
		return ret;
	snprintf(m->dir, sizeof(m->dir), "%s/imprint-verify.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(m->dir)) {
		ret = -errno;
		snprintf(msg, len, "cannot make a mount point '%s': %s", m->dir, strerror(-ret));
		m->dir[0] = '\0';
		return ret;
	}
	if (mount(m->dev, m->dir, w.type, MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) {
		ret = -errno;
		snprintf(msg, len, "cannot mount the %s file system of '%s'%s read-only (%s on '%s'): %s",
			 w.type, target, w.partno ? " (its partition)" : "", m->dev, m->dir,
			 loopdev_mount_error(m->dev, ret, why, sizeof(why)));
		return ret;
	}
	m->mounted = 1;
	/* private: nothing propagates to or from the host's mounts */
	mount(NULL, m->dir, NULL, MS_PRIVATE, NULL);
	return 0;
}

int disk_unmount(struct disk_mount *m, char *msg, size_t len)
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
	m->dir[0] = '\0';
	if (m->loopfd >= 0)
		close(m->loopfd); /* autoclear: the device goes with its last user */
	m->loopfd = -1;
	return ret;
}
