/* outfile.h - the one opener of every output file: a regular file written whole, never a device, FIFO, directory or link */
#ifndef IMPRINT_OUTFILE_H
#define IMPRINT_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

/* outfile_check() and outfile_open() flags */
#define OUTFILE_STDOUT	   0x01 /* "-" is standard output */
#define OUTFILE_NO_REPLACE 0x02 /* an existing file is refused (no --force) */

/* An output file being written: under a temporary name beside path until outfile_commit(). */
struct outfile {
	FILE *f;	  /* write here */
	const char *path; /* where it goes (the caller's string) */
	char *tmp;	  /* the temporary beside it; NULL: f is stdout */
};

/*
 * Refuse path as an output file before any work: an empty name, "-"
 * without OUTFILE_STDOUT, an existing directory, symbolic link, device,
 * FIFO or socket (replacing one would destroy it, writing into one is not
 * writing a file), an existing file with OUTFILE_NO_REPLACE, or a parent
 * directory that cannot take a new file.  what names the option in the
 * message ("'-o'", "'--extents'").  Returns 0 or a negative errno with err
 * set.
 */
int outfile_check(const char *path, const char *what, unsigned flags, char *err, size_t errlen);

/*
 * outfile_check(), then open a temporary file beside path (mode 0666 less
 * the umask) in o->f; "-" with OUTFILE_STDOUT is stdout itself.  Returns 0
 * or a negative errno with err set; on error o holds nothing.
 */
int outfile_open(struct outfile *o, const char *path, const char *what, unsigned flags, char *err,
		 size_t errlen);

/*
 * Close o and rename the temporary over path; on any write, close or
 * rename error the temporary is removed and path left as it was.
 * Returns 0 or a negative errno with err set ("cannot write 'PATH': ...").
 */
int outfile_commit(struct outfile *o, char *err, size_t errlen);

/* Close o and remove its temporary: path is left as it was.  Safe on a zeroed o. */
void outfile_abort(struct outfile *o);

#endif
