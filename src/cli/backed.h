/* backed.h - create --generation N --backing: generation N evolved from a raw copy of generation N-1's qcow2 */
#ifndef IMPRINT_CLI_BACKED_H
#define IMPRINT_CLI_BACKED_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "backends/backend.h"
#include "cli/create.h"
#include "core/target.h"
#include "plan/plan.h"

/*
 * Whether create can make generation N of pl (N >= 1) with --backing by
 * evolving a copy of the backing rather than laying the tree out afresh:
 * a file system filling the disk (no --partition), no --include,
 * written by ops, a backend that evolves what it makes (BACKEND_EVOLVES).  Returns 1, or 0 (after a note saying why
 * the image is laid out afresh when there is a backing and N >= 1).
 */
int backed_evolves(const struct create_args *a, const struct backend_ops *ops,
		   const struct plan *pl);

/*
 * Copy the disk the backing holds (the name the overlay records) into
 * path, t's temporary raw image of disk_size bytes, then evolve it to
 * generation N of pl through libext2fs, stopping when *cancel is set.
 * Returns 0 with res filled (the plan's counts, the file system's blocks
 * and inodes); 1 when the backing does not hold generation N-1 of this
 * plan (a note says why and that the image is laid out afresh; the raw
 * image is empty again, ready for the backend); or a negative errno with
 * msg set (-EINTR: cancelled; the raw image is to be discarded).
 */
int backed_build(struct target *t, const char *path, const char *backing, const struct plan *pl,
		 uint64_t disk_size, volatile sig_atomic_t *cancel, struct create_result *res,
		 char *msg, size_t len);

#endif
