/* sparse.h - which files have holes, and where: a pure function of (seed, file, size) */
#ifndef IMPRINT_SPARSE_H
#define IMPRINT_SPARSE_H

#include <stddef.h>
#include <stdint.h>

struct plan;

/*
 * Holes are whole units of 64 KiB at offsets that are multiples of 64 KiB,
 * so that they are whole blocks for every block size up to 64 KiB.  Only
 * other-binary files of at least SPARSE_MIN_SIZE can have them (the data
 * files, VM images and databases that are sparse in real life; a typed
 * format would not survive a run of zeros in its structure).
 */
#define SPARSE_UNIT	 (UINT64_C(65536))
#define SPARSE_MIN_SIZE	 (4 * SPARSE_UNIT)
#define SPARSE_MAX_HOLES 8

/* A hole: bytes [off, off + len), both multiples of SPARSE_UNIT, len > 0. */
struct sparse_hole {
	uint64_t off, len;
};

/* A file's holes, sorted, disjoint and not touching; n == 0: not sparse. */
struct sparse_holes {
	unsigned n;
	uint64_t bytes; /* sum of their lengths */
	struct sparse_hole hole[SPARSE_MAX_HOLES];
};

/* Whether the plan can have sparse files at all (sparse_file_share > 0). */
int sparse_enabled(const struct plan *pl);

/*
 * The holes of file f into *h; returns h->n.  A whole-file copy has the
 * holes of the file it copies (its bytes are the same), so the choice is
 * made for the content's file.  A file is sparse with probability
 * sparse_file_share when it is eligible (other binary, at least
 * SPARSE_MIN_SIZE); then about sparse_hole_share of its whole units (at
 * least one, and at least one unit of data is left) are holes, in 1 to 8
 * runs placed at random, possibly at the start or the end of the file.
 */
unsigned sparse_file_holes(const struct plan *pl, uint64_t f, struct sparse_holes *h);

/* Zero the bytes of buf, which holds [off, off + len) of a file, that lie in its holes. */
void sparse_zero(const struct sparse_holes *h, uint64_t off, void *buf, size_t len);

/*
 * Logical block of a file's allocated block a (its data blocks counted
 * in order, holes skipped), blocks of bs bytes (a divisor of SPARSE_UNIT).
 */
uint64_t sparse_lblk(const struct sparse_holes *h, uint32_t bs, uint64_t a);

/*
 * Logical blocks from logical block l up to the next hole's start (or
 * UINT64_MAX when no hole follows); l must not be in a hole.
 */
uint64_t sparse_data_left(const struct sparse_holes *h, uint32_t bs, uint64_t l);

/* Whether logical blocks [l, l + n) all lie in holes (n >= 1). */
int sparse_all_hole(const struct sparse_holes *h, uint32_t bs, uint64_t l, uint64_t n);

#endif
