/* source.h - what each file holds: a pure function of (seed, file id, offset) */
#ifndef IMPRINT_CONTENT_H
#define IMPRINT_CONTENT_H

#include <stddef.h>
#include <stdint.h>

struct plan;

/*
 * A content source.  fill() writes len bytes of file `file` starting at
 * byte offset `offset` into buf.  It must be a pure function of (the
 * source's seed, file, offset): random access, thread-safe, and the same
 * bytes whether a file is produced in one call or in many, so that an
 * image can be verified by regenerating its content.  Returns 0 or a
 * negative errno.  Bytes past the file's size are not asked for.
 */
struct content_source {
	const char *name;
	int (*fill)(const struct content_source *cs, uint64_t file, uint64_t offset,
		    void *buf, size_t len);
	const struct plan *pl;
	uint64_t seed;
	void *priv;
};

/*
 * The interim source until typed content lands: deterministic
 * pseudo-random bytes per file (a counter-mode mix of seed, file id and
 * the 8-byte word index), about 1 ns per 8 bytes.
 */
void content_random_init(struct content_source *cs, const struct plan *pl);

struct content_model;
struct gen_ops;

/*
 * The typed source: each file is made by the generator of its extension
 * (content_ext_ops(), content/registry.h) from its key, a mix of the plan's content key and
 * its id; a whole-file copy (plan.file_dup_of) gets exactly its source's
 * bytes.  A file smaller than its format's min_size is made as other
 * binary (the plan never asks for that; content_source_too_small() counts
 * them).  cm (from content_model_init() for the same plan) must outlive
 * the source.  Returns 0 or -ENOMEM; release with content_source_release().
 */
int content_model_source_init(struct content_source *cs, struct content_model *cm,
			      const struct plan *pl);

/* Files of the plan below their format's min_size (0 for other sources). */
uint64_t content_source_too_small(const struct content_source *cs);

/* Free what an init allocated (nothing for the random source). */
void content_source_release(struct content_source *cs);

#endif
