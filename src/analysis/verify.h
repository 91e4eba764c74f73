/* verify.h - check a mounted tree against its plan: entries, metadata, bytes and extents */
#ifndef IMPRINT_VERIFY_H
#define IMPRINT_VERIFY_H

#include <stdint.h>
#include <stdio.h>

#include "content/source.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "plan/shard.h"

struct verify_result {
	uint64_t dirs, files, links;     /* entries checked */
	uint64_t bytes;                  /* file bytes compared */
	uint64_t extent_files;           /* files whose extents were compared */
	uint64_t sparse_files;           /* files whose planned holes were checked */
	uint64_t specials;               /* of links, special files (type and device checked) */
	uint64_t xattr_entries;          /* extended attributes compared (names and values) */
	uint64_t acls;                   /* entries whose access or default ACL was compared */
	uint64_t prealloc_files;         /* files whose unwritten ranges and space beyond the end were checked */
	uint64_t included;               /* --include entries checked */
	uint64_t mismatches;
};

/*
 * Walk the plan and check each entry under root (a mounted file system,
 * read through the kernel): type, size, permission bits, owner, mtime
 * (nanoseconds), link count, symlink target, hard-link identity, each
 * file's bytes against what cs regenerates, and where its holes are
 * (SEEK_HOLE, SEEK_DATA: the planned holes and no others).  When extents is not NULL it
 * is a file written by `imprint create --extents` (path, block size and
 * physical runs per file), and each file's FIEMAP extents (merged where
 * physically adjacent) must equal its runs.  Mismatches are described on
 * log (the first `max_report` of them).  Returns 0 when all match,
 * 1 when some do not, or a negative errno when the walk itself failed.
 */
int verify_tree(const struct plan *pl, const struct content_source *cs, const char *root,
		const char *extents, FILE *log, unsigned max_report, struct verify_result *res);

/*
 * verify_tree() of one share sh of the plan (plan/shard.h), written by
 * `imprint create --shard K/N`: its files and links checked in full, its
 * directories only for being there (their metadata comes with the
 * finishing step).  sh NULL or with n 0: verify_tree().
 */
int verify_tree_shard(const struct plan *pl, const struct content_source *cs, const char *root,
		      const char *extents, FILE *log, unsigned max_report,
		      const struct plan_shard *sh, struct verify_result *res);

/*
 * Write the planned physical runs of every file, for verify_tree():
 * a header line "# imprint extents block_size=N", then per file in plan
 * order "id<TAB>path<TAB>start+len,start+len,..." ("-" for none).
 * Returns 0 or -errno.
 */
int verify_write_extents(const struct plan *pl, const struct layout *lo, uint32_t block_size,
			 FILE *out);

#endif
