/* target_int.h - what the target files share among themselves (not for create or the backends) */
#ifndef IMPRINT_TARGET_INT_H
#define IMPRINT_TARGET_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/strutil.h"

struct stat;
struct target;
struct target_error;

/* A message into err. */
#define set_error(err, ...) errbuf_set((err)->msg, sizeof((err)->msg), __VA_ARGS__)

/* target_sys.c: small readers of /proc and sysfs */

/* Read a small sysfs or proc file into buf, without its trailing newline. */
int target_read_small(const char *path, char *buf, size_t len);

/* "M:m" text to a dev_t; 0 when it does not parse. */
dev_t target_parse_devnum(const char *s);

/*
 * Call fn(line, arg) on each line of the /proc file path (without its
 * newline; fn may cut it up; read by the bounded reader, util/textin.h)
 * until fn returns nonzero.  Returns that value, or 0 at the end or when
 * path cannot be opened or read.
 */
int target_scan_lines(const char *path, int (*fn)(char *line, void *arg), void *arg);

/*
 * Whether the directory st is a system directory (/, /bin, /boot, /dev,
 * /etc, /home, /lib*, /proc, /root, /run, /sbin, /sys, /usr, /var):
 * compared by device and inode, so a symbolic link, a ".." path or a bind
 * mount of one is one too.  Returns 1 with its name in which, else 0.
 */
int target_system_dir(const struct stat *st, char *which, size_t len);

/* target_image.c: the temporary image of a file target */

/* Make the temporary image size bytes large (a sparse copy of the existing one with no_format). */
int image_prepare(struct target *t, uint64_t size, int no_format, struct target_error *err);

/* Sync the temporary image and put it in place as TARGET. */
int image_commit(struct target *t, struct target_error *err);

/* Remove (unlink, or close an unnamed one) the temporary image file. */
int image_discard(struct target *t, char *what, size_t len, struct target_error *err);

/* Link the unnamed temporary file as path; -EEXIST when path exists. */
int image_link_anon(const struct target *t, const char *path);

#endif
