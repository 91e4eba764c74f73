/* dirfrag.h - aged directories: which directories' blocks are split, into how many pieces, how long */
#ifndef IMPRINT_LAYOUT_DIRFRAG_H
#define IMPRINT_LAYOUT_DIRFRAG_H

#include <stdint.h>

#include "layout/layout.h"

/* Most pieces of a split directory: the extents an ext4 inode holds without a tree block. */
#define DIRFRAG_MAX 4

/*
 * Whether a directory of nb blocks (data and mapping) can be split under
 * rq: two blocks or more, and with extents at most one extent's worth,
 * so that its pieces stay within the inode's four extents.
 */
int dirfrag_eligible(const struct layout_request *rq, uint64_t nb);

/*
 * How many pieces each directory's blocks take: *pieces gets pl->ndirs
 * counts (1: whole; 2 to DIRFRAG_MAX: split), exactly
 * round(dir_frag_share x eligible) directories split, chosen by selection
 * sampling in id order (stream "layout.dir_frag"), each into 2 to
 * min(4, blocks) pieces (stream "layout.dir_frag.pieces").  *pieces is NULL
 * when rq->dir_frag_share is 0 or no directory is split.  Returns 0 or
 * -ENOMEM.
 */
int dirfrag_plan(const struct layout_request *rq, uint8_t **pieces);

/*
 * The lengths of directory j's k pieces of nb blocks in all, into
 * len[0..k-1]: k - 1 distinct cuts drawn uniformly among the nb - 1 places
 * between blocks (stream "layout.dir_frag.cuts").
 */
void dirfrag_sizes(const struct layout_request *rq, uint32_t j, uint64_t nb, unsigned k,
		   uint64_t *len);

/*
 * lo's directory runs for pieces (dirfrag_plan()'s, not NULL): dir_ext as
 * prefix counts (a directory without blocks has none, an unsplit one one
 * run) and dext zeroed.  Returns 0 or -ENOMEM.
 */
int dirfrag_alloc(struct layout *lo, const struct layout_request *rq, const uint8_t *pieces);

/* After placement: touching runs of a directory merged, dir_ext and dir_start updated. */
void dirfrag_compact(struct layout *lo, uint32_t ndirs);

#endif
