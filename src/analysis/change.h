/* change.h - `imprint profile --since OLD SOURCE`: the change between two states of a tree, as the gen_* rates of a profile */
#ifndef IMPRINT_ANALYSIS_CHANGE_H
#define IMPRINT_ANALYSIS_CHANGE_H

#include <stdint.h>
#include <stdio.h>

#include "model/params.h"

/* What changed from OLD to NEW, by file (hard links once) and directory. */
struct change_model {
	const char *old, *new_;               /* the two states, as given */
	uint64_t files_before, dirs_before;   /* OLD's regular files, and directories but the root */
	uint64_t unchanged, meta, meta_mode;  /* same bytes; of them, new mtime or mode (mode too) */
	uint64_t appended, truncated, edited, rewritten; /* modified, by kind as the bytes tell */
	uint64_t renamed, moved;              /* same bytes under a new name: same directory, another */
	uint64_t deleted, created;
	uint64_t dirs_created, dirs_removed;
	double append_share_sum;              /* appended bytes over the old size, summed */
	double edit_block_share_sum;          /* differing 4 KiB blocks over all, of edited files */
	int64_t newest_before, newest_after;  /* newest mtime of a regular file (seconds) */
};

/*
 * Walk OLD, then NEW (each an image, device or directory, read by
 * src/read), reading every regular file's bytes, and classify each file:
 * the same path with the same bytes is unchanged (or metadata only when
 * its mtime or mode changed); with other bytes it is appended (the old
 * bytes a prefix), truncated (shorter, its whole 4 KiB blocks, one at
 * least, the old file's), edited in place (same size, under
 * half its 4 KiB blocks differ) or rewritten; a path of NEW that OLD
 * lacks, holding the bytes of a path OLD had and NEW lacks, is renamed
 * (same directory) or moved; the rest are created and deleted.  Returns
 * 0, or a negative errno after a message.
 */
int change_model_build(const char *old, const char *new_, struct change_model *cm);

/*
 * Set p's gen_* rates so that one generation changes as cm did: shares of
 * OLD's files (created per file, directories per directory); the mode,
 * append, truncation and edit shares only where cm saw such a change
 * (else p keeps its own); the interval from the newest mtimes.
 */
void change_model_apply(const struct change_model *cm, struct params *p);

#endif
