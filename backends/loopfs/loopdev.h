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

/* Sleep ms milliseconds, through signals. */
void loopdev_nap_ms(long ms);

#endif
