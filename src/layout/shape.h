/* shape.h - the free space's shape: gaps between files, built again until the free extents match */
#ifndef IMPRINT_LAYOUT_SHAPE_H
#define IMPRINT_LAYOUT_SHAPE_H

#include <stdint.h>

#include "layout/layout.h"

/*
 * Place rq on fm as place_once() does, with free gaps between files so
 * that rq->free_frag_share of the free space lies in free extents below
 * rq->free_chunk (rq->free_frag_share > 0; see shape.c): a build without
 * gaps measures the free space, then up to six builds with gaps correct
 * the quotas, and the best is kept (LAYOUT_NOTE_FREE when it misses).
 * Returns 0, -ENOSPC (with *need), -EINVAL, -ENOMEM.
 */
int shape_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
		uint64_t *need);

#endif
