/* write.h - the ext2/3/4 backend's writing: inodes, directories, mapping blocks, and the data workers */
#ifndef IMPRINT_BACKENDS_EXT4_WRITE_H
#define IMPRINT_BACKENDS_EXT4_WRITE_H

#include "backends/ext4/state.h"

/* The extra field of an inode time: the epoch bits above 32-bit seconds and the nanoseconds. */
static inline uint32_t ext4_xtime_extra(int64_t sec, uint32_t ns)
{
	int64_t epoch = (sec - (int64_t)(int32_t)sec) >> 32;

	return (uint32_t)(epoch & EXT4_EPOCH_MASK) | (ns << EXT4_EPOCH_BITS);
}

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
