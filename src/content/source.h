/* source.h - what each file holds: a pure function of (seed, file id, offset) */
#ifndef IMPRINT_CONTENT_H
#define IMPRINT_CONTENT_H

#include <stddef.h>
#include <stdint.h>

struct plan;
struct gen_memo;

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
	/*
	 * fill() for a part of a file made in parts (content_split_*), with
	 * the file's memo; NULL: the parts are made by fill() (slower when the
	 * format sums whole members, the same bytes).
	 */
	int (*fill_memo)(const struct content_source *cs, uint64_t file, uint64_t offset,
			 void *buf, size_t len, struct gen_memo *memo);
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
 * the source.  threads: how many threads may hash the small files for the
 * chance copies (create's -j; 0: one a CPU online; at most 8), which
 * changes no byte.  Returns 0 or -ENOMEM; release with
 * content_source_release().
 */
int content_model_source_init(struct content_source *cs, struct content_model *cm,
			      const struct plan *pl, unsigned threads);

/*
 * The file whose bytes `file` has: its source when it is a whole-file
 * copy, itself otherwise; a typed source makes some plan copies as
 * themselves (a plan of many small files, whose small files are often
 * equal by chance: content_model_source_init() in source.c).
 */
uint64_t content_source_file_of(const struct content_source *cs, uint64_t file);

/* Files of at most this many bytes are looked at for equality by chance. */
#define CONTENT_CHANCE_MAX 512

/*
 * Distinct files of at most CONTENT_CHANCE_MAX bytes equal to another
 * such file, when the source counted them (it does when they could push
 * the copies past the share by more than its slack), else 0.
 */
uint64_t content_source_chance_copies(const struct content_source *cs);

/* Files of the plan below their format's min_size (0 for other sources). */
uint64_t content_source_too_small(const struct content_source *cs);

/*
 * Large files made by several threads at once.  A file of
 * CONTENT_SPLIT_MIN bytes or more (of a format that allows it: not PNG)
 * may be cut into parts by offset, made in any order by any threads with
 * content_split_fill(), then finished with content_split_fixups(): the
 * ranges whose bytes sum whole members (a ZIP's CRC-32 fields, a gzip
 * trailer), left zero by the parts, made again from the sums the parts
 * recorded.  The bytes are those of fill(), every one.
 *
 * content_split_begin(): 0 and *sp (NULL when the file is to be made
 * whole by fill(), in one thread), or -ENOMEM.
 * content_split_fill(): bytes [offset, offset + len) of the file, as fill().
 * content_split_fixups(): after every part is written, the count of ranges
 * to make again with content_split_fill() and write over the parts (their
 * offsets and lengths in *off and *len, valid until content_split_end()),
 * or a negative errno.
 */
#define CONTENT_SPLIT_MIN  (UINT64_C(16) << 20)
#define CONTENT_SPLIT_PART (UINT64_C(4) << 20) /* the parts' size, a multiple of 64 KiB */

struct content_split;

int content_split_begin(const struct content_source *cs, uint64_t file, struct content_split **sp);
int content_split_fill(const struct content_source *cs, struct content_split *sp, uint64_t offset,
		       void *buf, size_t len);
long content_split_fixups(struct content_split *sp, const uint64_t **off, const uint64_t **len);
void content_split_end(struct content_split *sp);

/* Free what an init allocated (nothing for the random source). */
void content_source_release(struct content_source *cs);

#endif
