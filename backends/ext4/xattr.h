/* xattr.h - the ext2/3/4 backend's extended attributes */
#ifndef IMPRINT_BACKENDS_EXT4_XATTR_H
#define IMPRINT_BACKENDS_EXT4_XATTR_H

#include "backends/ext4/state.h"

/*
 * Every entry's planned extended attributes (plan_xattrs()), through
 * libext2fs's xattr API: in the inode where they fit, the rest in a block;
 * a block whose entries equal an earlier one's is dropped for that one,
 * with one more reference (up to the kernel's 1024), as the kernel's
 * mbcache shares them.  Runs after every inode and layout block is
 * written and marked, so the blocks come from the space the layout left
 * free.  Returns 0 or a negative errno with the message set.
 */
int ext4_write_xattrs(struct ext4_build *x);

#endif
