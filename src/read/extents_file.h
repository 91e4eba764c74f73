/* extents_file.h - the extents file (create/measure --extents, verify): its one writer and reader */
#ifndef IMPRINT_EXTENTS_FILE_H
#define IMPRINT_EXTENTS_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/textin.h"

/*
 * The format, text, one file a line after a header:
 *
 *	# imprint extents block_size=4096
 *	<id><TAB><path><TAB><start>+<len>,<start>+<len>,...
 *
 * id is the file's number (plan order, or walk order for measure), path
 * its path from the root, and the runs its physical blocks ("-" for
 * none), in logical order, merged where physically adjacent.
 */

/* Write the header line.  Returns 0 or -EIO (the stream's error flag). */
int extents_file_write_header(FILE *out, unsigned block_size);

/*
 * Start file id's line: the id and the path, dir alone when name is
 * NULL, else dir "/" name (no second slash after the root "/").  Then
 * extents_file_put_run() for each run, and extents_file_end_line().
 */
void extents_file_begin_line(FILE *out, uint64_t id, const char *dir, const char *name);

/* Run i (0 first) of the line: "start+len", after a comma but for the first. */
void extents_file_put_run(FILE *out, size_t i, uint64_t start, uint64_t len);

/* End the line after nruns runs ("-" when there were none). */
void extents_file_end_line(FILE *out, size_t nruns);

/* Limits of the extents file's reader: a line holds one file's runs. */
#define EXTENTS_FILE_MAX_LINE (64u * 1024 * 1024)
#define EXTENTS_FILE_MAX_TOTAL (UINT64_C(1) << 40)

/*
 * Open path as an extents file (the bounded reader, util/textin.h, with
 * the limits above) and read its header line.  Returns 0 with
 * *block_size set, or a negative errno with in->err saying what is wrong
 * (the file cannot be opened, is no extents file, holds a NUL byte ...);
 * textin_close() it in either case.
 */
int extents_file_open(struct textin *in, const char *path, unsigned *block_size);

/*
 * Read the next line, which should be file id's: returns its runs text
 * ("start+len,..." or "-"), inside in->line, or NULL at the end of the
 * file, when the line is not id's or cannot be read.
 */
const char *extents_file_read_line(struct textin *in, uint64_t id);

#endif
