/* loopdev.c - a loop device of one's own over an image or a range of it (a partition): for loopfs, and verify of a disk */
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <time.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/loopdev.h"

/* Tries, 100 ms apart, at an unmount that finds the file system busy. */
#define UMOUNT_TRIES 50
/* Tries at a free loop device another program may take between GET_FREE and CONFIGURE. */
#define LOOP_TRIES 16

/* A message into msg; returns ret. */
static int fail(char *msg, size_t len, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *msg, size_t len, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, len, fmt, ap);
	va_end(ap);
	return ret;
}

int loopdev_private_ns(void)
{
	static int done, ret;

	if (done)
		return ret;
	done = 1;
	if (geteuid() != 0)
		return ret = -EPERM;
	/* the watcher outside: its life must not extend the namespace's (cleanup.h) */
	(void)cleanup_start(); /* if it cannot start now, cleanup_track() tries again */
	if (unshare(CLONE_NEWNS) != 0)
		return ret = -errno;
	/* a copy of the host's mounts, shared with nothing: none of ours leaks out */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		ret = -errno;
	return ret;
}

void loopdev_nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Open the node of a loop device just made; udev may take a moment to create it. */
static int open_node(const char *dev, int readonly)
{
	for (int i = 0; i < 100; i++) {
		int fd = open(dev, (readonly ? O_RDONLY : O_RDWR) | O_CLOEXEC);

		if (fd >= 0 || errno != ENOENT)
			return fd >= 0 ? fd : -errno;
		loopdev_nap_ms(10);
	}
	return -ENOENT;
}

/*
 * Bind imgfd to the loop device fd, detached automatically when its last
 * user goes (the mount, then our fd); offset and sizelimit (0: all) are
 * the range it shows (a partition).  LOOP_SET_FD before Linux 5.8.
 */
static int loop_bind(int fd, int imgfd, const char *image, uint64_t offset, uint64_t sizelimit,
		     int readonly)
{
	struct loop_config cfg;
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.fd = (unsigned)imgfd;
	cfg.info.lo_flags = LO_FLAGS_AUTOCLEAR | (readonly ? LO_FLAGS_READ_ONLY : 0);
	cfg.info.lo_offset = offset;
	cfg.info.lo_sizelimit = sizelimit;
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

int loopdev_attach(const char *image, uint64_t offset, uint64_t sizelimit, int readonly,
		   char *dev, size_t devlen, int *loopfd, char *msg, size_t len)
{
	int ctl, imgfd, fd = -1, ret = 0;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return fail(msg, len, -errno,
			       "cannot open /dev/loop-control: %s (the loop driver is needed)",
			       strerror(errno));
	imgfd = open(image, (readonly ? O_RDONLY : O_RDWR) | O_CLOEXEC);
	if (imgfd < 0) {
		ret = fail(msg, len, -errno, "cannot open '%s': %s", image, strerror(errno));
		goto out;
	}
	for (int i = 0; i < LOOP_TRIES; i++) {
		int nr = ioctl(ctl, LOOP_CTL_GET_FREE);

		if (nr < 0) {
			ret = fail(msg, len, -errno, "no free loop device: %s", strerror(errno));
			goto out;
		}
		snprintf(dev, devlen, "/dev/loop%d", nr);
		fd = open_node(dev, readonly);
		ret = fd < 0 ? fd : loop_bind(fd, imgfd, image, offset, sizelimit, readonly);
		if (!ret)
			break;
		if (fd >= 0)
			close(fd);
		fd = -1;
		if (ret != -EBUSY) /* -EBUSY: another program took it first */
			break;
	}
	if (ret) {
		ret = fail(msg, len, ret, "cannot attach '%s' to a loop device (%s): %s", image, dev,
			   strerror(-ret));
		goto out;
	}
	*loopfd = fd;
out:
	if (imgfd >= 0)
		close(imgfd); /* the loop device holds its own reference */
	close(ctl);
	return ret;
}

int loopdev_umount(const char *mnt, char *msg, size_t len)
{
	int ret = 0;

	for (int i = 0; i < UMOUNT_TRIES; i++) {
		if (umount2(mnt, UMOUNT_NOFOLLOW) == 0)
			return 0;
		ret = -errno;
		if (ret != -EBUSY)
			return fail(msg, len, ret, "cannot unmount '%s': %s", mnt, strerror(-ret));
		loopdev_nap_ms(100);
	}
	if (umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW) != 0) {
		ret = -errno;
		return fail(msg, len, ret == -EBUSY ? -EIO : ret, "cannot unmount '%s': %s", mnt,
			   strerror(-ret));
	}
	return fail(msg, len, -EBUSY,
		    "'%s' stayed busy: detached it lazily, the image may be incomplete", mnt);
}

/* The file-system UUID of the device at path, as blkid reads it, into uuid (37 bytes); 0 or -errno. */
static int dev_uuid(const char *path, char uuid[37])
{
	blkid_probe pr = blkid_new_probe_from_filename(path);
	const char *v = NULL;
	int ret = -ENOENT;

	if (!pr)
		return -errno ? -errno : -ENOENT;
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_UUID);
	if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "UUID", &v, NULL) == 0 &&
	    v && strlen(v) < 37) {
		snprintf(uuid, 37, "%s", v);
		ret = 0;
	}
	blkid_free_probe(pr);
	return ret;
}

int loopdev_uuid_mounted(const char *dev, char uuid[37], char *other, size_t olen)
{
	char *line = NULL, mine[37], theirs[37], src[4096];
	size_t cap = 0;
	int found = 0;
	FILE *f;

	if (dev_uuid(dev, mine))
		return 0;
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0) {
		/* "... - FSTYPE SOURCE OPTIONS": the source after the separator */
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(sep + 3, "%*s %4095s", src) != 1 || strncmp(src, "/dev/", 5) ||
		    !strcmp(src, dev) || dev_uuid(src, theirs) || strcmp(mine, theirs))
			continue;
		snprintf(uuid, 37, "%s", mine);
		snprintf(other, olen, "%s", src);
		found = 1;
	}
	free(line);
	fclose(f);
	return found;
}

const char *loopdev_mount_error(const char *dev, int ret, char *buf, size_t len)
{
	char uuid[37], other[256];

	if (ret == -EINVAL && loopdev_uuid_mounted(dev, uuid, other, sizeof(other)))
		snprintf(buf, len,
			 "duplicate UUID: %s is already mounted from '%s', and the kernel mounts one file system of a UUID at a time (give another 'uuid' or configuration, or unmount '%s')",
			 uuid, other, other);
	else
		snprintf(buf, len, "%s", strerror(-ret));
	return buf;
}
