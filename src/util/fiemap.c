/* fiemap.c - a file's extents from the kernel, one at a time (FS_IOC_FIEMAP) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/fs.h>

#include "util/fiemap.h"

/* Extents asked for per ioctl. */
#define FIEMAP_BATCH 256

int fiemap_walk(int fd, uint32_t fm_flags, int (*fn)(const struct fiemap_extent *x, void *arg),
		void *arg)
{
	struct fiemap *fm = malloc(sizeof(*fm) + FIEMAP_BATCH * sizeof(struct fiemap_extent));
	uint64_t start = 0;
	int last = 0, ret = 0;

	if (!fm)
		return -ENOMEM;
	while (!last) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_flags = fm_flags;
		fm->fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			ret = -errno;
			goto out_free_fm;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
			const struct fiemap_extent *x = &fm->fm_extents[i];

			if (x->fe_flags & FIEMAP_EXTENT_LAST)
				last = 1;
			start = x->fe_logical + x->fe_length;
			ret = fn(x, arg);
			if (ret)
				goto out_free_fm;
		}
	}
out_free_fm:
	free(fm);
	return ret;
}
