/* edit.h - an ext2/3/4 image or device edited offline by path through libext2fs: the moves of `imprint evolve` */
#ifndef IMPRINT_BACKENDS_EXT4_EDIT_H
#define IMPRINT_BACKENDS_EXT4_EDIT_H

#include "backends/backend.h"

/*
 * The ext4 backend's editor (ext4_backend_ops.edit; backend.h tells the
 * hooks).  open refuses what is not ext2/3/4; undo, without e2undo, is
 * imprint's own format (backends/ext4/undo.c: a free block of zeros by its
 * number only), else e2undo's (libext2fs' undo I/O manager), put back by
 * ext4_undo_apply() or e2undo.
 */
extern const struct backend_edit_ops ext4_edit_ops;

#endif
