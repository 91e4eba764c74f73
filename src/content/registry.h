/* registry.h - which generator writes an extension, and which file's bytes a copy has */
#ifndef IMPRINT_CONTENT_REGISTRY_H
#define IMPRINT_CONTENT_REGISTRY_H

#include <stdint.h>

struct plan;
struct gen_ops;

/*
 * The file whose bytes file has: its source when it is a whole-file copy
 * (plan.file_dup_of, same size), else file itself.
 */
uint64_t content_file_of(const struct plan *pl, uint64_t file);

/* The generator of an extension, compared without case; other binary if unknown. */
const struct gen_ops *content_ext_ops(const char *ext);

/*
 * The gzip -6 ratio of real files of an extension (compared without case;
 * a Debian system's, doc/content-calibration.md), or 0 when imprint has
 * none: what a profile made without --content records (ext_content).
 */
double content_ext_default_ratio(const char *ext);

#endif
