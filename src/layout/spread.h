/* spread.h - which files are fragmented, and how many breaks each takes */
#ifndef IMPRINT_LAYOUT_SPREAD_H
#define IMPRINT_LAYOUT_SPREAD_H

#include <stdint.h>

#include "layout/layout.h"

/*
 * Choose the fragmented files of rq's plan and their breaks, B in all out
 * of the plan's pairs (see spread.c), into kb (one per file, zeroed by the
 * caller); LAYOUT_NOTE_SHARE and LAYOUT_NOTE_EXTENTS go into *notes when
 * those targets gave way.  Returns 0 or -ENOMEM.
 */
int spread_plan(const struct layout_request *rq, uint64_t B, uint64_t pairs, uint32_t *kb,
		uint32_t *notes);

#endif
