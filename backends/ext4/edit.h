/* edit.h - an ext2/3/4 image or device edited offline by path through libext2fs: the moves of `imprint evolve` */
#ifndef IMPRINT_BACKENDS_EXT4_EDIT_H
#define IMPRINT_BACKENDS_EXT4_EDIT_H

#include "backends/backend.h"

/*
 * The ext4 backend's editor (ext4_backend_ops.edit; backend.h tells the
 * hooks).  open refuses what is not ext2/3/4, and a file system that
 * carries an evolve's mark (read/evolve_mark.h); with a mark to write it
 * goes through imprint's undo I/O manager (backends/ext4/undo.c: a free
 * block of zeros by its number only), over libext2fs' own when the mark
 * keeps an e2undo file; undo rolls back by the mark, with
 * ext4_undo_apply().
 */
extern const struct backend_edit_ops ext4_edit_ops;

#endif
