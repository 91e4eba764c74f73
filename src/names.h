/* names.h - entry names derived on demand from (seed, kind, id) */
#ifndef IMPRINT_NAMES_H
#define IMPRINT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "params.h"

/* Longest name generated, in bytes (ext4 allows 255). */
#define NAME_MAX_LEN 255

enum name_kind { NAME_FILE, NAME_DIR, NAME_LINK };

/*
 * Variants: 0 is the entry's natural name; 1..NAME_VARIANT_REDRAWS are fresh
 * draws used when a name collides within its directory; NAME_VARIANT_UNIQUE
 * appends "~" + kind letter + base-36 id, which no natural name contains, so
 * it is unique by construction.
 */
#define NAME_VARIANT_REDRAWS 3
#define NAME_VARIANT_UNIQUE 4

struct name_cfg {
	uint64_t seed;
	enum name_style style;
	double space_share;
	double utf8_share;
	double upper_share;
};

void name_cfg_from_params(struct name_cfg *c, const struct params *p);

/*
 * Write the name of entry (kind, id) into buf (at least NAME_MAX_LEN + 1
 * bytes), NUL-terminated, and return its length.  ext is the planned
 * extension without the dot ("" for none); the name ends in "." ext except
 * where a pattern puts the extension elsewhere (libfoo.so.1.2).  The result
 * is never "", "." or "..", holds no '/', NUL, tab, newline or control byte,
 * is valid UTF-8 and at most NAME_MAX_LEN bytes.
 */
size_t name_make(char *buf, const struct name_cfg *c, enum name_kind kind,
		 uint64_t id, const char *ext, unsigned variant);

#endif
