/* spawn.h - run a program and keep what it printed, for the tools imprint calls (mke2fs, qemu-img) */
#ifndef IMPRINT_UTIL_SPAWN_H
#define IMPRINT_UTIL_SPAWN_H

#include <stddef.h>

/*
 * Run argv[0] (found in PATH, then at the NULL-ended fallback paths, which
 * may be NULL) with env (NULL: ours), its stdout and stderr together into
 * err (the first err_len - 1 bytes, NUL-ended), and wait for it: *status
 * as from waitpid.  Returns 0 (whatever the program's exit status) or a
 * negative errno when it could not be run (-ENOENT: not found).
 */
int spawn_capture(char **argv, char **env, const char *const *fallback, char *err, size_t err_len,
		  int *status);

/*
 * Whether spawn_capture() would find name: in PATH (as posix_spawnp
 * searches it), then at the NULL-ended fallback paths.  Returns 0 when an
 * executable regular file is there, else -ENOENT.
 */
int spawn_find(const char *name, const char *const *fallback);

#endif
