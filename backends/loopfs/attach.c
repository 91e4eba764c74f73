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
#include <time.h>
#include <unistd.h>

#include "backends/loopfs/loopfs.h"

/* Tries at a free loop device another program may take between GET_FREE and CONFIGURE. */
#define LOOP_TRIES 16
/* Tries, 100 ms apart, at an unmount that finds the file system busy. */
#define UMOUNT_TRIES 50

static void nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Open the node of a loop device just made; udev may take a moment to create it. */
static int open_node(const char *dev)
{
	for (int i = 0; i < 100; i++) {
		int fd = open(dev, O_RDWR | O_CLOEXEC);

		if (fd >= 0 || errno != ENOENT)
			return fd >= 0 ? fd : -errno;
		nap_ms(10);
	}
	return -ENOENT;
}

/*
 * Bind imgfd to the loop device fd, detached automatically when its last
 * user goes (the mount, then our fd).  LOOP_SET_FD before Linux 5.8.
 */
static int loop_bind(int fd, int imgfd, const char *image)
{
	struct loop_config cfg;
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)imgfd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR;
	snprintf((char *)cfg.info.lo_file_name, sizeof(cfg.info.lo_file_name), "%s", image);
	if (ioctl(fd, LOOP_CONFIGURE, &cfg) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOTTY)
		return -errno;
	if (ioctl(fd, LOOP_SET_FD, imgfd) != 0)
		return -errno;
	if (ioctl(fd, LOOP_SET_STATUS64, &cfg.info) != 0) {
		ret = -errno;
		ioctl(fd, LOOP_CLR_FD, 0);
		return ret;
	}
	return 0;
}

/* A loop device of our own for the image st->o->target, kept open in st->loopfd. */
static int attach_loop(struct lfs_state *st)
{
	const char *image = st->o->target;
	int ctl, imgfd, fd = -1, ret = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return lfs_err(st, -errno,
			       "cannot open /dev/loop-control: %s (the loop driver is needed)",
			       strerror(errno));
	imgfd = open(image, O_RDWR | O_CLOEXEC);
	if (imgfd < 0) {
		ret = lfs_err(st, -errno, "cannot open '%s': %s", image, strerror(errno));
		goto out;
	}
	for (int i = 0; i < LOOP_TRIES; i++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (nr < 0) {
			ret = lfs_err(st, -errno, "no free loop device: %s", strerror(errno));
			goto out;
		}
		snprintf(st->dev, sizeof(st->dev), "/dev/loop%d", nr);
		fd = open_node(st->dev);
		ret = fd < 0 ? fd : loop_bind(fd, imgfd, image);
		if (!ret)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (ret != -EBUSY) /* -EBUSY: another program took it first */
			break;
	}
	if (ret) {
		ret = lfs_err(st, ret, "cannot attach '%s' to a loop device (%s): %s", image,
			      st->dev, strerror(-ret));
		st->dev[0] = '\0';
		goto out;
	}
	st->loopfd = fd;
out:
	if (imgfd >= 0)
		close(imgfd); /* the loop device holds its own reference */
	close(ctl);
	return ret;
}

int lfs_attach(struct lfs_state *st)
{
	struct stat sb;

	if (stat(st->o->target, &sb) != 0)
		return lfs_err(st, -errno, "cannot stat '%s': %s", st->o->target, strerror(errno));
	if (S_ISBLK(sb.st_mode)) { /* a device is mounted as it is */
		snprintf(st->dev, sizeof(st->dev), "%s", st->o->target);
		return 0;
	}
	return attach_loop(st);
}


int lfs_mount(struct lfs_state *st)
{
	const char *tmp = getenv("TMPDIR");
	int ret;

	snprintf(st->mnt, sizeof(st->mnt), "%s/imprint-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp",
		 st->fs);
	if (!mkdtemp(st->mnt)) {
		ret = lfs_err(st, -errno, "cannot make a mount point '%s': %s", st->mnt,
			      strerror(errno));
		st->mnt[0] = '\0';
		return ret;
	}
	if (mount(st->dev, st->mnt, st->fs, MS_NOSUID | MS_NODEV, NULL) != 0) {
		ret = -errno;
		if (ret == -ENODEV)
			return lfs_err(
				st, ret,
				"this kernel cannot mount %s (no %s driver; try modprobe %s); make an ext2/3/4 image instead",
				st->fs, st->fs, st->fs);
		return lfs_err(st, ret,
			       "cannot mount the new %s file system of '%s' (%s) on '%s': %s",
			       st->fs, st->o->target, st->dev, st->mnt, strerror(-ret));
	}
	st->mounted = 1;
	if (mount(NULL, st->mnt, NULL, MS_PRIVATE, NULL) != 0)
		return lfs_err(st, -errno, "cannot make the mount on '%s' private: %s", st->mnt,
			       strerror(errno));
	return 0;
}

/*
 * Unmount, retrying while busy.  A last resort detaches it lazily: -EBUSY
 * then means it is gone from the mount point (the image may be incomplete).
 */
static int unmount(struct lfs_state *st)
{
	int ret = 0;

	for (int i = 0; i < UMOUNT_TRIES; i++) {
		if (umount2(st->mnt, UMOUNT_NOFOLLOW) == 0)
			return 0;
		ret = -errno;
		if (ret != -EBUSY)
			return lfs_err(st, ret, "cannot unmount '%s': %s", st->mnt, strerror(-ret));
		nap_ms(100);
	}
	if (umount2(st->mnt, MNT_DETACH | UMOUNT_NOFOLLOW) != 0) {
		ret = -errno;
		return lfs_err(st, ret == -EBUSY ? -EIO : ret, "cannot unmount '%s': %s", st->mnt,
			       strerror(-ret));
	}
	return lfs_err(st, -EBUSY,
		       "'%s' stayed busy: detached it lazily, the image may be incomplete",
		       st->mnt);
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
