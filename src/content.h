/* content.h - what each file holds: a pure function of (seed, file id, offset) */
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

#endif
