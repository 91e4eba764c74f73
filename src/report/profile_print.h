/* profile_print.h - a profile's configuration (or JSON figures) from the walk's tallies */
#ifndef IMPRINT_PROFILE_PRINT_H
#define IMPRINT_PROFILE_PRINT_H

#include <stdio.h>

#include "analysis/profile_int.h"

/* ---- profile_print.c: the configuration (or JSON figures) from the tallies */

int profile_print(struct pstate *s, const char *kind, const struct profile_opts *o, FILE *out);

#endif
