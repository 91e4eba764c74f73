/* attach.c - the loopfs backend's loop device, private mount point and mount, and their undoing */
#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/loopdev.h"
#include "backends/loopfs/loopfs.h"

/* A loop device of our own for the image st->o->target (its partition's range), kept open in st->loopfd. */
static int attach_loop(struct lfs_state *st)
{
	char msg[512];
	int ret;

	ret = loopdev_attach(st->o->target, st->o->offset, st->o->fs_size, 0, st->dev,
			     sizeof(st->dev), &st->loopfd, msg, sizeof(msg));
	if (ret) {
		st->dev[0] = '\0';
		return lfs_err(st, ret, "%s", msg);
	}
	return 0;
}

int lfs_attach(struct lfs_state *st)
{
	struct stat sb;

	if (stat(st->o->target, &sb) != 0)
		return lfs_err(st, -errno, "cannot stat '%s': %s", st->o->target, strerror(errno));
	if (S_ISBLK(sb.st_mode) && !st->o->offset) { /* a whole device is mounted as it is */
		snprintf(st->dev, sizeof(st->dev), "%s", st->o->target);
		return 0;
	}
	return attach_loop(st);
}


int lfs_mount(struct lfs_state *st)
{
	const char *tmp = getenv("TMPDIR");
	char why[512];
	int ret;

	snprintf(st->mnt, sizeof(st->mnt), "%s/imprint-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
		 st->fs);
	if (!mkdtemp(st->mnt)) {
		ret = lfs_err(st, -errno, "cannot make a mount point '%s': %s", st->mnt,
			      strerror(errno));
		st->mnt[0] = '\0';
		return ret;
	}
	cleanup_track(st->mnt, CLEANUP_MOUNT);
	if (mount(st->dev, st->mnt, st->fs, MS_NOSUID | MS_NODEV, NULL) != 0) {
		ret = -errno;
		if (ret == -ENODEV)
			return lfs_err(
				st, ret,
				"this kernel cannot mount %s (no %s driver; try modprobe %s); make an ext2/3/4 image instead",
				st->fs, st->fs, st->fs);
		return lfs_err(st, ret,
			       "cannot mount the new %s file system of '%s' (%s) on '%s': %s",
			       st->fs, st->o->target, st->dev, st->mnt,
			       loopdev_mount_error(st->dev, ret, why, sizeof(why)));
	}
	st->mounted = 1;
	if (mount(NULL, st->mnt, NULL, MS_PRIVATE, NULL) != 0)
		return lfs_err(st, -errno, "cannot make the mount on '%s' private: %s", st->mnt,
			       strerror(errno));
	cleanup_test_pause("mounted");
	return 0;
}

/* Unmount st->mnt (loopdev_umount): -EBUSY means lazily detached. */
static int unmount(struct lfs_state *st)
{
	char msg[512];
	int ret = loopdev_umount(st->mnt, msg, sizeof(msg));

	return ret ? lfs_err(st, ret, "%s", msg) : 0;
}

int lfs_release(struct lfs_state *st)
{
	int ret = 0;

	if (st->mounted) {
		ret = unmount(st);
		st->mounted = ret && ret != -EBUSY; /* lazily detached: gone */
		if (st->mounted)
			return ret; /* keep the loop device and the mount point under it */
	}
	if (st->mnt[0]) {
		if (rmdir(st->mnt) != 0 && !ret)
			ret = lfs_err(st, -errno, "cannot remove the mount point '%s': %s", st->mnt,
				      strerror(errno));
		cleanup_untrack(st->mnt);
		st->mnt[0] = '\0';
	}
	if (st->loopfd >= 0) {
		/* the mount is gone: we are its last user (ENXIO: autocleared already) */
		if (ioctl(st->loopfd, LOOP_CLR_FD, 0) != 0 && errno != ENXIO && !ret)
			ret = lfs_err(st, -errno, "cannot detach %s: %s", st->dev, strerror(errno));
		close(st->loopfd);
		st->loopfd = -1;
	}
	return ret;
}
