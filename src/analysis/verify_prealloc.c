/* verify_prealloc.c - a preallocated file's unwritten ranges and space beyond its end, through FIEMAP */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "content/prealloc.h"
#include "analysis/verify_xattr.h"
#include "util/fiemap.h"

struct pa_walk {
	const struct prealloc *pa;
	uint64_t eof;                              /* the end of the block holding the last byte */
	uint64_t covered[SPARSE_MAX_HOLES];        /* of each unwritten range, bytes found unwritten */
	uint64_t beyond;                           /* bytes allocated from eof on */
	uint64_t written_in;                       /* written bytes inside an unwritten range */
};

static uint64_t overlap(uint64_t a, uint64_t al, uint64_t b, uint64_t bl)
{
	uint64_t lo = a > b ? a : b, hi = a + al < b + bl ? a + al : b + bl;

	return hi > lo ? hi - lo : 0;
}

static int on_extent(const struct fiemap_extent *x, void *arg)
{
	struct pa_walk *w = arg;
	int unw = (x->fe_flags & FIEMAP_EXTENT_UNWRITTEN) != 0;

	for (unsigned i = 0; i < w->pa->unw.n; i++) {
		uint64_t o = overlap(x->fe_logical, x->fe_length, w->pa->unw.hole[i].off,
				     w->pa->unw.hole[i].len);

		if (unw)
			w->covered[i] += o;
		else
			w->written_in += o;
	}
	w->beyond += overlap(x->fe_logical, x->fe_length, w->eof, UINT64_MAX - w->eof);
	return 0;
}

int verify_prealloc(const struct plan *pl, int fd, uint64_t f, char *msg, size_t msglen,
		    uint64_t *checked)
{
	struct pa_walk w = { 0 };
	struct prealloc pa;
	struct stat st;
	int ret;

	if (!prealloc_enabled(pl) || !prealloc_file(pl, f, &pa))
		return 0;
	if (fstat(fd, &st) != 0)
		return -errno;
	(*checked)++;
	w.pa = &pa;
	w.eof = ((uint64_t)st.st_size + (uint64_t)st.st_blksize - 1) / (uint64_t)st.st_blksize *
		(uint64_t)st.st_blksize;
	ret = fiemap_walk(fd, FIEMAP_FLAG_SYNC, on_extent, &w);
	if (ret == -EOPNOTSUPP || ret == -ENOTTY) {
		/* no extents to see (tmpfs): the space at least must be there */
		if ((uint64_t)st.st_blocks * 512 < w.eof + pa.beyond) {
			snprintf(msg, msglen, "%llu bytes allocated, planned at least %llu (beyond the end: %llu)",
				 (unsigned long long)st.st_blocks * 512,
				 (unsigned long long)(w.eof + pa.beyond), (unsigned long long)pa.beyond);
			return 1;
		}
		return 0;
	}
	if (ret)
		return ret;
	for (unsigned i = 0; i < pa.unw.n; i++)
		if (w.covered[i] != pa.unw.hole[i].len) {
			snprintf(msg, msglen, "%llu of the %llu bytes from %llu unwritten, planned all",
				 (unsigned long long)w.covered[i], (unsigned long long)pa.unw.hole[i].len,
				 (unsigned long long)pa.unw.hole[i].off);
			return 1;
		}
	if (w.beyond < pa.beyond) {
		snprintf(msg, msglen, "%llu bytes allocated beyond the end, planned %llu",
			 (unsigned long long)w.beyond, (unsigned long long)pa.beyond);
		return 1;
	}
	return 0;
}
