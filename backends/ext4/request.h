/* request.h - what the ext2/3/4 backend asks the layout to place, and the free space it offers */
#ifndef IMPRINT_BACKENDS_EXT4_REQUEST_H
#define IMPRINT_BACKENDS_EXT4_REQUEST_H

#include "backends/ext4/state.h"

/*
 * Steps 1 to 5 of a build: blocks per file (inline and empty files take
 * none, sparse files lose their holes), inode numbers in directory order,
 * directory shapes and symlink blocks, the free map (the root's old blocks
 * given back), and rq's block counts, block size, mapping and pool.
 * Returns 0 or a negative errno with the message set.
 */
int ext4_request(struct ext4_build *x, struct layout_request *rq, struct freemap *fm);

#endif
