/* format.h - mke2fs with imprint's own configuration, UUIDs and times from the seed */
#ifndef IMPRINT_BACKENDS_EXT4_FORMAT_H
#define IMPRINT_BACKENDS_EXT4_FORMAT_H

#include "backends/backend.h"
#include "plan/plan.h"

/*
 * Run mke2fs on o->target for pl: its file system type and size, UUID and
 * hash seed from the seed, times from the plan's reference time, imprint's
 * own mke2fs.conf, then o->mkfs_options.  Returns 0 or a negative errno
 * with b->errmsg saying what mke2fs said.
 */
int ext4_format(struct backend *b, const struct create_opts *o, const struct plan *pl);

/* Zero the primary superblock of fd: best effort, for a run that did not finish. */
void ext4_wipe_super(int fd, uint64_t offset);

#endif
