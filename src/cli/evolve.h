/* evolve.h - an ext2/3/4 image evolved from generation N-1 to N for `imprint create --backing` (evolve.c) */
#ifndef IMPRINT_CLI_EVOLVE_H
#define IMPRINT_CLI_EVOLVE_H

#include <signal.h>
#include <stddef.h>

#include "backends/backend.h"
#include "model/params.h"

/*
 * Evolve the ext2/3/4 image at path, a scratch copy that messages call
 * name, from generation p->generation - 1 of p's plan to generation
 * p->generation, as `imprint evolve` does; the moves stop when *cancel is
 * set (cancel may be NULL).  usage (may be NULL) is filled with what the
 * file system holds after.  Returns 0; -ESRCH when path does not hold
 * generation N-1 of p's plan, or no ext2/3/4 file system that can be
 * edited (why says which, nothing was changed, nothing printed); -EINTR
 * when cancelled (path part-evolved); or another negative errno after a
 * message (path part-evolved: to be discarded).
 */
int evolve_image(const char *path, const char *name, const struct params *p,
		 volatile sig_atomic_t *cancel, struct backend_edit_usage *usage, char *why,
		 size_t len);

#endif
