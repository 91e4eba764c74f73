/* place.h - placement to a target: contiguous packing, exact fragmentation, units and order */
#ifndef IMPRINT_LAYOUT_PLACE_H
#define IMPRINT_LAYOUT_PLACE_H

#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"

/*
 * One placement of rq on fm (see place.c) into lo, to rq's score, spread
 * and order, leaving ngap free gaps of gap[] blocks (gap_total in all)
 * between files in placement order.  rq must have passed layout_build()'s
 * checks.  Returns 0; -ENOSPC (with *need, when need is not NULL); -EINVAL
 * for a plan with a file outside every directory; -ENOMEM.  lo is
 * released on failure.
 */
int place_once(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
	       uint64_t *need, const uint64_t *gap, size_t ngap, uint64_t gap_total);

#endif
