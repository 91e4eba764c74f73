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

/* What real files of an extension hold (a Debian system's, doc/content-calibration.md). */
struct content_ext_default {
	const char *ext;
	double ratio;                     /* gzip -6 */
	double dup_file;                  /* files that are copies of another of the extension */
	double dup_block, zero_block;     /* 4 KiB blocks of the distinct files */
	double text;                      /* distinct files that are text */
};

/*
 * Duplicate files among real files of the extensions without an entry
 * below (53,055 files of the same corpus): what a profile made without
 * --content gives the rest of the source's files.
 */
#define CONTENT_OTHER_DUP_FILE 0.0453

/*
 * The figures of real files of an extension (compared without case), or
 * NULL when imprint has none: what a profile made without --content
 * records (ext_content).
 */
const struct content_ext_default *content_ext_default(const char *ext);

#endif
