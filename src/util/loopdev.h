/* loopdev.h - a loop device of one's own over an image or a range of it (a partition): for loopfs, and verify of a disk */
#ifndef IMPRINT_LOOPDEV_H
#define IMPRINT_LOOPDEV_H

#include <stddef.h>
#include <stdint.h>

/*
 * Attach image (a file or a block device) to a free loop device, showing
 * sizelimit bytes (0: all) from offset, read-only when readonly; detached
 * by the kernel once its last user goes (LO_FLAGS_AUTOCLEAR: the mount,
 * then *loopfd, which the caller closes).  The device's path in dev.
 * Returns 0, or a negative errno with msg set.
 */
int loopdev_attach(const char *image, uint64_t offset, uint64_t sizelimit, int readonly,
		   char *dev, size_t devlen, int *loopfd, char *msg, size_t len);

/*
 * Unmount mnt, retrying while busy; a last resort detaches it lazily:
 * -EBUSY then means it is gone from mnt.  Returns 0 or a negative errno
 * with msg set.
 */
int loopdev_umount(const char *mnt, char *msg, size_t len);

/*
 * After a mount of dev failed with EINVAL: whether a file system already
 * mounted has the UUID dev's file system has (xfs and btrfs refuse a
 * second one).  Returns 1 with the UUID in uuid (37 bytes) and that
 * mount's source in other, else 0.
 */
int loopdev_uuid_mounted(const char *dev, char uuid[37], char *other, size_t olen);

/*
 * The reason a mount of dev failed with error ret (a negative errno):
 * "duplicate UUID ..." when loopdev_uuid_mounted() says so, else
 * strerror.  Into buf; returns buf.
 */
const char *loopdev_mount_error(const char *dev, int ret, char *buf, size_t len);

/*
 * Move imprint, once, into a mount namespace of its own whose mounts are
 * all private, so that what it mounts goes with it however it ends
 * (SIGKILL included) and is never seen by other programs.  Only as root;
 * call it early, before any file is opened (a descriptor opened among the
 * host's mounts cannot be linked among the namespace's copies: EXDEV) and
 * while no thread runs.  0, or -errno when
 * the kernel refuses (imprint then mounts where it is, as before).
 */
int loopdev_private_ns(void);

/* Sleep ms milliseconds, through signals. */
void loopdev_nap_ms(long ms);

#endif
