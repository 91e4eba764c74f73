/* units.h - allocation units (flex groups or groups) and an Orlov-like unit for every directory */
#ifndef IMPRINT_LAYOUT_UNITS_H
#define IMPRINT_LAYOUT_UNITS_H

#include <stddef.h>
#include <stdint.h>

#include "layout/alloc.h"
#include "layout/layout.h"

/* Unit k is blocks [start + k * size, start + (k + 1) * size); the last takes the rest. */
struct units_geom {
	uint64_t start, size;
	size_t n;
};

/* The units of fm: flex groups with flex_bg, else block groups; one unit for orders other than dir. */
void units_geom(const struct freemap *fm, enum layout_order order, struct units_geom *ug);

/*
 * Give each directory of rq's plan a unit of ug (dunit[j]) from the free
 * space in al and what each directory will hold (its blocks, its files
 * contiguous, gap_per_file blocks a file with data, its slow symlinks;
 * see units.c), and list the directories by unit, creation order within
 * one (order).  Returns 0 or -ENOMEM.
 */
int units_assign(const struct layout_request *rq, const struct alloc *al, double gap_per_file,
		 const struct units_geom *ug, uint32_t *dunit, uint32_t *order);

#endif
