/* strutil.h - text for people: human byte sizes, messages into fixed buffers */
#ifndef IMPRINT_STRUTIL_H
#define IMPRINT_STRUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * fmt_bytes() styles, or-ed.  Each output is pinned somewhere (messages,
 * reports), so each caller keeps the style it has always printed:
 *
 *	FMT_BYTES_DIGITS(2)                         "1.50 GiB"   (measure)
 *	FMT_BYTES_DIGITS(2) | FMT_BYTES_PIB         "1.50 GiB"   (plan report)
 *	FMT_BYTES_DIGITS(1) | FMT_BYTES_PIB         "1.5 GiB"    (content report, ext4)
 *	FMT_BYTES_ADAPTIVE                          "1.50 GiB", "15.0 GiB", "150 GiB" (progress)
 *	FMT_BYTES_EXACT | FMT_BYTES_DIGITS(1) | FMT_BYTES_WORD
 *	                                            "1 GiB", "1.5 GiB", "512 bytes" (parameters)
 */
#define FMT_BYTES_DIGITS(n) ((unsigned)(n) & 0x3u) /* digits after the point, 0..3 */
#define FMT_BYTES_ADAPTIVE  0x04u /* three figures: 2 digits below 10, 1 below 100, else 0 */
#define FMT_BYTES_EXACT     0x08u /* a whole number of units without a point ("1 GiB") */
#define FMT_BYTES_WORD      0x10u /* below 1 KiB "512 bytes" rather than "512 B" */
#define FMT_BYTES_PIB       0x20u /* PiB is the largest unit ("2048.0 PiB"), else EiB */

/*
 * Write v bytes for people into buf (len bytes, truncated like snprintf):
 * below 1 KiB the exact count ("512 B"), else in the largest binary unit
 * (KiB, MiB, ... EiB) the value reaches, with the digits `flags` asks
 * for.  The unit is chosen on the value as a double, so a count a few
 * bytes below 1 EiB reads "1.0 EiB"; with FMT_BYTES_EXACT it is chosen on
 * the exact count ("1024.0 PiB").  Returns buf, for use in a printf list.
 */
char *fmt_bytes(uint64_t v, unsigned flags, char *buf, size_t len);

/*
 * Format a message into buf (len bytes, truncated like vsnprintf); nothing
 * when buf is NULL.  The one body behind every stage's message setter
 * (plan_fail, fsread_set_err, backend_set_err, ...).
 */
void errbuf_set(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void errbuf_vset(char *buf, size_t len, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));

/*
 * Read fd to its end (a child's output through a pipe), keeping the first
 * len - 1 bytes in buf, NUL-terminated; the rest is read and dropped, so
 * that the writer never blocks.  A read error other than EINTR ends it.
 */
void errbuf_read_fd(char *buf, size_t len, int fd);

/* Words longer than this are never near anything (str_distance()). */
#define STR_DISTANCE_MAX 64

/*
 * The Damerau-Levenshtein (optimal string alignment) distance between a
 * and b: insertions, deletions, substitutions and swaps of two adjacent
 * bytes each cost 1 ("crate" -> "create": 1, "szie" -> "size": 1).
 * SIZE_MAX when either is longer than STR_DISTANCE_MAX.
 */
size_t str_distance(const char *a, const char *b);

/*
 * Whether a candidate at distance d from a word of len bytes is worth
 * suggesting ("did you mean"): a small edit, less than half the word.
 */
int str_near(size_t d, size_t len);

/*
 * 1 when the last component of path names a symbolic link, trailing slashes
 * or not ("link/" too, which the kernel follows where "link" is not), else 0.
 */
int path_names_link(const char *path);

#endif
