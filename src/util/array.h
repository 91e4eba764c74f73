/* array.h - growing heap arrays: one overflow-checked resize and one doubling growth */
#ifndef IMPRINT_ARRAY_H
#define IMPRINT_ARRAY_H

#include <stddef.h>

/*
 * Resize the array *pp (pp is the address of any object pointer, e.g.
 * &fs->ext) to n elements of elem bytes each, like realloc but with n *
 * elem checked for overflow.  Returns 0, or -ENOMEM (also on overflow)
 * with *pp unchanged and still owned by the caller.
 */
int array_resize(void *pp, size_t n, size_t elem);

/*
 * Make room for at least need elements of elem bytes in the array *pp
 * (the address of any object pointer) whose capacity is *cap elements:
 * nothing when need <= *cap, else the capacity doubles (from 16) until it
 * holds need, and *cap is updated.  The array may be NULL with *cap 0.
 * Returns 0, or -ENOMEM (also when the size overflows) with *pp and *cap
 * unchanged.  Usual use, before appending:
 *
 *	if (array_grow(&v->item, &v->cap, v->n + 1, sizeof(*v->item)))
 *		return -ENOMEM;
 *	v->item[v->n++] = x;
 */
int array_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* qsort() comparators: ascending uint64_t, ascending int64_t. */
int array_cmp_u64(const void *a, const void *b);
int array_cmp_i64(const void *a, const void *b);

#endif
