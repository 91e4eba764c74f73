/* ext.h - extension popularity: the Impressions tables plus a long tail of real extensions */
#ifndef IMPRINT_EXT_H
#define IMPRINT_EXT_H

#include <stddef.h>
#include <stdint.h>

#include "model/params.h"

/*
 * The extension list of a model: entry 0 is "" (no extension, Impressions'
 * "nul"), then the table's extensions, then the tail.  Shares sum to 1.
 * An extension id (uint16_t) is an index into this list.
 *
 * The tail is a fixed list of about 360 real extensions (1-4 characters,
 * [a-z0-9]) by popularity, sharing what the table leaves with weights
 * 1 / (rank + 2), a Zipf law of exponent 1.  Deterministic: no draws.
 */
struct ext_model {
	size_t count;          /* entries */
	size_t head;           /* entries 0..head-1 come from the table */
	const char **name;     /* without the dot; "" for none */
	double *share;
};

/* Build the list for table t.  Returns 0 or -ENOMEM. */
int ext_model_init(struct ext_model *m, enum ext_table t);
/*
 * Build the list from names[0..n-1] (names[0] must be "", none) with their
 * shares, then the tail sharing what they leave (nothing when they sum to
 * 1 or more): by the Zipf weights above, or evenly with flat_tail (a
 * profile's tail: the extensions too rare to name, a few files each).
 * The names are referenced, not copied.  0 or -ENOMEM.
 */
int ext_model_init_list(struct ext_model *m, const char *const *names, const double *shares,
			size_t n, int flat_tail);
void ext_model_release(struct ext_model *m);

/* Id of name in m, or -1. */
int ext_model_find(const struct ext_model *m, const char *name);
/* Id of the first name in m equal to name without regard to ASCII case, or -1. */
int ext_model_find_nocase(const struct ext_model *m, const char *name);

/*
 * Smallest size a file of this extension has in a plan, in bytes: typed
 * formats (png, jpg, mp3, pdf, zip, exe, ...) cannot be valid files below
 * a few hundred bytes, and real ones never are (compared without case, as
 * the generators are chosen).  0 for everything else.
 * The content generators must be able to make a valid file of this size.
 */
uint64_t ext_min_size(const char *ext);

#endif
