/* array.h - growing heap arrays: one overflow-checked resize, one doubling growth, a radix sort, sort orders */
#ifndef IMPRINT_ARRAY_H
#define IMPRINT_ARRAY_H

#include <stddef.h>
#include <stdint.h>

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

/* One of several parallel arrays that share a capacity: &pointer, element size. */
struct array_col {
	void *pp;
	size_t elem;
};

/*
 * array_grow() for parallel arrays with one capacity: room for at least
 * need elements in each of cols[0..n-1], *cap doubling (from 16) until it
 * holds need.  Returns 0, or -ENOMEM with *cap unchanged (an array already
 * grown stays valid and owned by the caller).  Usual use:
 *
 *	const struct array_col cols[] = { { &v->a, sizeof(*v->a) },
 *					  { &v->b, sizeof(*v->b) } };
 *
 *	if (array_grow_cols(cols, ARRAY_SIZE(cols), &v->cap, v->n + 1))
 *		return -ENOMEM;
 */
int array_grow_cols(const struct array_col *cols, size_t n, size_t *cap, size_t need);

/*
 * Room for one more entry in an open-addressing table of *cap slots (0
 * empty, linear probing) holding n entries: when n + 1 would fill more
 * than half of it, *slot doubles (to min, a power of 2, at first) and
 * every entry moves to its place by hash(entry, ctx).  Returns 0, or
 * -ENOMEM with the table unchanged.
 */
int array_slots_reserve(uint64_t **slot, size_t *cap, size_t n, size_t min,
			uint64_t (*hash)(uint64_t entry, const void *ctx), const void *ctx);

/*
 * Sort a[0..n-1] ascending: LSD radix sort of the 64-bit keys, 16 bits a
 * pass, skipping passes where every key has the same digit.  0 or -ENOMEM.
 */
int array_sort_u64(uint64_t *a, uint64_t n);

/* qsort() comparators, ascending: uint64_t, int64_t and double elements (no NaN). */
int array_cmp_u64(const void *a, const void *b);
int array_cmp_i64(const void *a, const void *b);
int array_cmp_double(const void *a, const void *b);

/* An index with a sort key, for sorting indices by a drawn or computed key. */
struct array_keyed {
	double key;
	uint64_t idx;
};

/*
 * qsort() comparator of struct array_keyed: key ascending (no NaN), ties
 * by index, a total order over distinct indices, so that the result does
 * not depend on the sort's algorithm.
 */
int array_cmp_keyed(const void *a, const void *b);

#endif
