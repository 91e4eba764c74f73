/* prealloc.h - which files have preallocated space, and where: a pure function of (seed, file, size) */
#ifndef IMPRINT_PREALLOC_H
#define IMPRINT_PREALLOC_H

#include <stdint.h>

#include "content/sparse.h"

struct plan;

#define PREALLOC_MAX_RANGES 4

/*
 * A file's preallocated space: unwritten ranges inside it (allocated,
 * reading as zeros: whole 64 KiB units, sorted, disjoint, not touching,
 * the partial last unit never one) and bytes allocated beyond its end
 * (fallocate KEEP_SIZE; a multiple of 64 KiB, from the end of the block
 * holding the last byte).  unw.n == 0 and beyond == 0: not preallocated.
 */
struct prealloc {
	struct sparse_holes unw;
	uint64_t beyond;
};

/* Whether the plan can have preallocated files at all (prealloc_file_share > 0). */
int prealloc_enabled(const struct plan *pl);

/*
 * The preallocation of file f into *pa; returns 1 when it has one.  Like
 * holes, it is chosen for the content's file (a whole-file copy reads the
 * same zeros): other-binary files of at least SPARSE_MIN_SIZE that are not
 * sparse, with probability prealloc_file_share; 1 to 4 unwritten ranges of
 * about a quarter of the whole units in all, and beyond the end 5% to 50%
 * of the size, rounded up to 64 KiB.
 */
int prealloc_file(const struct plan *pl, uint64_t f, struct prealloc *pa);

#endif
