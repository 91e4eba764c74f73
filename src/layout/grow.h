/* grow.h - the one array growth helper of the layout's modules: capacity doubled as needed */
#ifndef IMPRINT_LAYOUT_GROW_H
#define IMPRINT_LAYOUT_GROW_H

#include <stddef.h>
#include <stdlib.h>

/*
 * Room for need elements of size bytes in the array p of *cap elements:
 * p itself when it holds them, else p reallocated to the capacity doubled
 * (first when it was 0) as often as need asks, *cap updated.  Returns the
 * array, or NULL (p still valid, *cap unchanged) when out of memory.
 */
static inline void *grow_array(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t c = *cap;
	void *q;

	if (need <= c)
		return p;
	c = c ? 2 * c : first;
	while (c < need)
		c *= 2;
	q = realloc(p, c * size);
	if (q)
		*cap = c;
	return q;
}

#endif
