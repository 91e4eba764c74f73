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

/*
 * The same attachment (subdirectories + 2) level by level, so that the
 * directories by depth follow share[0..nshare-1] (share[d]: directories
 * at depth d; the root is the one at depth 0): largest-remainder quotas
 * of the ndirs - 1 others over depths 1.., then each directory of depth d
 * picks its parent among those of depth d - 1, from stream "tree.depth".
 * Ids are level by level.  Returns 0, -ENOMEM, or -EINVAL for nshare
 * outside 2..256.
 */
int tree_build_depths(uint64_t seed, uint32_t ndirs, const double *share, unsigned nshare,
		      uint32_t *parent, uint8_t *depth);

/* What a profile says of a tree's shape (model/tables.h: subdirs_table, depth_dirs, depth_leaves). */
struct tree_shape {
	const uint32_t *n;     /* subdirectory counts, ascending */
	const double *share;   /* share of directories holding n[i] */
	unsigned nsh;
	const double *dshare;  /* directories by depth (ndshare >= 2), or none (0) */
	unsigned ndshare;
	const double *leaves;  /* of the directories at depth d, the leaves; nleaves may be 0 */
	unsigned nleaves;
};

/*
 * A tree whose directories hold subdirectories as sh says: largest-
 * remainder quotas of the counts, made to sum to ndirs - 1.  With
 * dshare, the levels follow it too (as tree_build_depths()): the counts
 * go to the levels that need them, largest first, each level taking as
 * many directories with subdirectories as its leaf share leaves, then
 * within a level at random, from stream "tree.subdirs"; ids are level by
 * level.  Without it, the counts are shuffled and the tree grown
 * breadth-first.  Returns 0, -ENOMEM, -E2BIG (deeper than 255) or
 * -EINVAL (no counts, or a bad dshare).
 */
int tree_build_subdirs(uint64_t seed, uint32_t ndirs, const struct tree_shape *sh,
		       uint32_t *parent, uint8_t *depth);

#endif
