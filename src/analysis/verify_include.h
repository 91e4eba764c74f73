/* verify_include.h - the --include entries of a mounted tree against their sources */
#ifndef IMPRINT_VERIFY_INCLUDE_H
#define IMPRINT_VERIFY_INCLUDE_H

#include <stdio.h>

#include "analysis/verify.h"
#include "plan/plan.h"

/*
 * Check each entry of pl->inc under root (a mounted tree, through the
 * kernel): type, mode, owner, mtime (nanoseconds), size and link count,
 * a symbolic link's target, a hard link's inode, a file's bytes against
 * its SRC as it is now, and the extended attributes (each value, and no
 * other but security.selinux).  Counts into res (included, bytes,
 * xattr_entries, mismatches) and describes mismatches on log (the first
 * max_report of them, with the path).  Returns 0, or a negative errno
 * when reading failed.
 */
int verify_includes(const struct plan *pl, const char *root, FILE *log, unsigned max_report,
		    struct verify_result *res);

#endif
