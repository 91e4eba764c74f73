/* include.h - the ext2/3/4 backend's --include entries (not for the core) */
#ifndef IMPRINT_BACKENDS_EXT4_INCLUDE_H
#define IMPRINT_BACKENDS_EXT4_INCLUDE_H

#include "backends/ext4/state.h"

/*
 * Write x->pl->inc's entries (plan/include.h) after the plan's, through
 * libext2fs: directories, files with their bytes copied from SRC (refused
 * with -ESTALE when SRC changed since it was read), symbolic and hard
 * links, extended attributes, then owners, modes and times.  Blocks and
 * inodes are taken first fit from what the layout left free: they are
 * not placed by the layout and not counted in its score.  Returns 0 or a
 * negative errno with the message set.
 */
int ext4_write_includes(struct ext4_build *x);

#endif
