/* tree.h - the generative directory tree (Agrawal et al., FAST 2007) */
#ifndef IMPRINT_TREE_H
#define IMPRINT_TREE_H

#include <stdint.h>

/*
 * Build a tree of ndirs directories, 0 being the root.  Each new directory
 * picks its parent among the existing ones with probability proportional to
 * (the parent's subdirectory count + 2), drawn from stream "tree" of seed.
 * A Fenwick tree over the weights makes each pick O(log n), the whole
 * build O(n log n).  Directory ids are in creation order, so a parent's id
 * is always smaller than its children's.
 *
 * parent[0] = 0; depth[0] = 0; fills parent[1..ndirs-1] and depth[].
 * Returns 0, -ENOMEM, or -E2BIG if a depth would exceed 255.
 */
int tree_build(uint64_t seed, uint32_t ndirs, uint32_t *parent, uint8_t *depth);

#endif
