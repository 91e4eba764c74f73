/* fiemap.h - a file's extents from the kernel, one at a time (FS_IOC_FIEMAP) */
#ifndef IMPRINT_FIEMAP_H
#define IMPRINT_FIEMAP_H

#include <stdint.h>

#include <linux/fiemap.h>

/*
 * Call fn(x, arg) for each extent of the open file fd, in logical order,
 * as FS_IOC_FIEMAP reports them from offset 0 to the end: batches of
 * extents, each next batch asked from where the last extent ended, until
 * the one flagged FIEMAP_EXTENT_LAST or an empty batch.  fm_flags goes to
 * the kernel as is (0, or FIEMAP_FLAG_SYNC to write delayed data out
 * first).  x is the kernel's record, in bytes, with its fe_flags
 * (FIEMAP_EXTENT_UNWRITTEN, _DELALLOC, _UNKNOWN, _DATA_INLINE, ...):
 * which of them matter is the caller's choice.
 *
 * Returns 0 after the last extent (also for a file with none), the first
 * nonzero value fn returned (the walk stops there), -ENOMEM, or the
 * ioctl's negative errno: -EOPNOTSUPP or -ENOTTY when the file system
 * does not report extents (tmpfs, procfs, some FUSE).
 */
int fiemap_walk(int fd, uint32_t fm_flags, int (*fn)(const struct fiemap_extent *x, void *arg),
		void *arg);

#endif
