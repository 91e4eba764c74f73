/* maxtree.h - a max tree over n values: update one, find the first from an index holding at least v */
#ifndef IMPRINT_LAYOUT_MAXTREE_H
#define IMPRINT_LAYOUT_MAXTREE_H

#include <stddef.h>
#include <stdint.h>

/* Leaves t[size + i], i < n; node k holds the maximum of its children 2k and 2k + 1. */
struct maxtree {
	size_t size; /* leaves, a power of two >= n */
	int64_t *t;  /* 2 * size nodes */
};

/* A tree of n (>= 1) leaves with every node at fill.  Returns 0 or -ENOMEM. */
int maxtree_init(struct maxtree *mt, size_t n, int64_t fill);
void maxtree_release(struct maxtree *mt);

/* Set leaf i to v and its ancestors (stopping where they already hold the maximum). */
void maxtree_set(struct maxtree *mt, size_t i, int64_t v);

/* Set leaf i to v without its ancestors: call maxtree_rebuild() after a series of these. */
void maxtree_put(struct maxtree *mt, size_t i, int64_t v);

/* Recompute every inner node from the leaves. */
void maxtree_rebuild(struct maxtree *mt);

/* The first leaf in [lo, hi) holding at least v, or SIZE_MAX. */
size_t maxtree_first(const struct maxtree *mt, size_t lo, size_t hi, int64_t v);

/* The lowest leaf holding the maximum. */
size_t maxtree_argmax(const struct maxtree *mt);

/* The maximum over all leaves. */
static inline int64_t maxtree_top(const struct maxtree *mt)
{
	return mt->t[1];
}

#endif
