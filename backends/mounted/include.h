/* include.h - the mounted backend's --include entries (not for the core) */
#ifndef IMPRINT_BACKENDS_MOUNTED_INCLUDE_H
#define IMPRINT_BACKENDS_MOUNTED_INCLUDE_H

#include "backends/mounted/mounted.h"

/*
 * Make st->pl->inc's entries beneath DIR through the kernel: directories,
 * files copied from SRC (copy_file_range, else read and write; refused
 * with -ESTALE when SRC changed since it was read), symbolic and hard
 * links; owners (as root), modes, extended attributes and times
 * (nanoseconds; a directory's once what it holds is made).  What was made
 * is marked in st->inc_made for mnt_remove_includes().  Returns 0 or a
 * negative errno with the message set.
 */
int mnt_write_includes(struct mnt_state *st);

/* Remove the included entries made (after a failure), counted in st->removed / remove_failed. */
void mnt_remove_includes(struct mnt_state *st);

#endif
