/* target_scan.h - what a target holds beyond signatures, and which processes have it open */
#ifndef IMPRINT_TARGET_SCAN_H
#define IMPRINT_TARGET_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What the regular file path (size bytes) holds, into out: libmagic's
 * description ("SQLite 3.x database ... (8192 bytes)") or "N bytes of
 * data"; "" when it is only holes.  Returns 0 or a negative errno.
 */
int scan_file_content(const char *path, uint64_t size, char *out, size_t len);

/*
 * Whether the first or last MiB of the block device path (size bytes)
 * holds a non-zero byte: a description into out, else "".  Returns 0 or a
 * negative errno.
 */
int scan_device_ends(const char *path, uint64_t size, char *out, size_t len);

/*
 * Whether a process other than this one has one of devs[0..n-1] open (as
 * fuser finds it, through /proc/PID/fd): its pid and name.  Returns 1 when
 * one is found, else 0.
 */
int scan_openers(const dev_t *devs, size_t n, pid_t *pid, char *comm, size_t len);

#endif
