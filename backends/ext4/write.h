/* write.h - the ext2/3/4 backend's writing: inodes, directories, mapping blocks, and the data workers */
#ifndef IMPRINT_BACKENDS_EXT4_WRITE_H
#define IMPRINT_BACKENDS_EXT4_WRITE_H

#include "backends/ext4/state.h"

/*
 * Steps 6 and 7: file data on worker threads at the layout's blocks while
 * this thread writes every inode, directory block and mapping block in
 * inode order.  Returns 0 or a negative errno with the message set
 * (-EINTR when cancelled).
 */
int ext4_write_all(struct ext4_build *x);

/*
 * The free space the block bitmap leaves (free extents across groups, as
 * e2freefrag counts them) into res->free, whose chunk_blocks is set.
 */
void ext4_report_free(const struct ext4_build *x, struct create_result *res);

#endif
