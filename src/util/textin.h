/* textin.h - the one bounded reader of text inputs (config files, Impressions files, profiles, extents files) */
#ifndef IMPRINT_TEXTIN_H
#define IMPRINT_TEXTIN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Limits of a config-like file: nothing sane comes near them (/dev/zero or a disk image would). */
#define TEXTIN_CONFIG_LINE (64 * 1024)
#define TEXTIN_CONFIG_TOTAL (16 * 1024 * 1024)

/*
 * A text file read line by line, every line and the whole bounded, so
 * that /dev/zero, a FIFO fed by `yes`, a disk image or a binary given by
 * mistake ends with a message instead of a hang or a split line taken as
 * text.  Fill it with textin_open() (or textin_init() for a FILE the
 * caller opened), read with textin_next(), free with textin_close().
 */
struct textin {
	FILE *f;
	int own;                /* textin_close() closes f */
	const char *path;       /* for messages, kept by the caller */
	const char *what;       /* "a config file", "an extents file": said when refused */
	size_t max_line;        /* bytes in a line, its newline not counted */
	uint64_t max_total;     /* bytes in the whole input */
	uint64_t total;         /* bytes read so far */
	unsigned long lineno;   /* number of the line in line, from 1 */
	char *line;             /* the line read, NUL-terminated, without its newline */
	size_t len;             /* its length */
	size_t cap;
	char err[320];          /* why the last call failed, "PATH line N: ..." */
};

/*
 * Open path for reading as what (e.g. "a config file").  A directory, a
 * block device or a socket is refused (-EISDIR, -EINVAL); a FIFO or a
 * character device is read within the limits (process substitution,
 * /dev/stdin).  Returns 0, or a negative errno with t->err set.
 */
int textin_open(struct textin *t, const char *path, const char *what, size_t max_line,
		uint64_t max_total);

/* The same for f, opened by the caller, which keeps it (textin_close() does not close it). */
void textin_init(struct textin *t, FILE *f, const char *path, const char *what, size_t max_line,
		 uint64_t max_total);

/*
 * Read the next line into t->line (t->len bytes) and count it in
 * t->lineno.  A UTF-8 byte order mark opening the file is dropped, a
 * carriage return before the newline too.  Returns 1, 0 at the end, or
 * -EINVAL with t->err set for a NUL byte, a line longer than max_line or
 * an input larger than max_total, -errno (t->err set) for a read error.
 */
int textin_next(struct textin *t);

/* Free the line and close the file if textin_open() opened it. */
void textin_close(struct textin *t);

/*
 * Copy in (inlen bytes) into out (outlen bytes, NUL-terminated,
 * truncated) with every control byte and every byte that is not valid
 * UTF-8 written as \xHH, so that echoing text read from a file cannot
 * send escape sequences to a terminal.  Returns the length written.
 */
size_t text_escape(char *out, size_t outlen, const char *in, size_t inlen);

/* text_escape() of the string s into a buffer of len bytes; returns buf, for printf lists. */
const char *text_escaped(const char *s, char *buf, size_t len);

#endif
