/* manifest.h - the plan as text: one tab-separated line per directory, file and link */
#ifndef IMPRINT_MANIFEST_H
#define IMPRINT_MANIFEST_H

#include <stdio.h>

#include "plan/plan.h"

/*
 * Write the manifest of pl to out: a '#' header naming the columns, then
 * one line per entry in depth-first order (a directory, its files, its
 * links, then its subdirectories).  Columns:
 *   path type size ext depth target mode uid gid mtime
 * type is dir, file, hardlink or symlink; ext and target are "-" when
 * empty; a hard link's target is the path of its file; mode is octal
 * permission bits; mtime is seconds.nanoseconds.
 * Returns 0, or -errno when writing fails.
 */
int manifest_write(const struct plan *pl, FILE *out);

#endif
