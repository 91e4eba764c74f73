/* shape.h - every directory's shape, made on the create's workers, taken in directory order */
#ifndef IMPRINT_BACKENDS_EXT4_SHAPE_H
#define IMPRINT_BACKENDS_EXT4_SHAPE_H

#include "backends/ext4/state.h"

/*
 * Step 3 for the directories: x->shape[j] and x->dir_blocks[j] of every
 * directory j, x->dcap, and the kept entries (ext4_keep_add()).  Up to
 * x->st->jobs threads collect and shape directories ahead of the calling
 * thread, which takes their results in directory order, so that what is
 * kept, the progress ticks and the error reported (the lowest-numbered
 * directory's) are those of one thread.  Returns 0 or a negative errno
 * with the message set.
 */
int ext4_shape_dirs(struct ext4_build *x);

#endif
