/* names.h - entry names derived on demand from (seed, kind, id) */
#ifndef IMPRINT_NAMES_H
#define IMPRINT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "model/params.h"

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
	/* a profile's shape (names_shape.c); each off unless its flag is set, as zeroed */
	int caps_on, numeric_on, version_on;
	double caps_share;    /* of all names: stems with capitals and no lower-case letter */
	double numeric_share; /* stems of digits only */
	double version_share; /* names holding digit.digit or ending in ~ */
	unsigned nlen;        /* names without extension: lengths 0..nlen-1, cumulative shares */
	double len_cdf[TAB_NAMELEN_MAX];
	unsigned nlen_ext;    /* names with one (0: as those without; both 0: off) */
	double len_ext_cdf[TAB_NAMELEN_MAX];
	unsigned nlen_dir;    /* directories' names (0: as names without extension) */
	double len_dir_cdf[TAB_NAMELEN_MAX];
};

void name_cfg_from_params(struct name_cfg *c, const struct params *p);

/*
 * Write the name of entry (kind, id) into buf (at least NAME_MAX_LEN + 1
 * bytes), NUL-terminated, and return its length.  ext is the planned
 * extension without the dot ("" for none); the name ends in "." ext except
 * where a pattern puts the extension elsewhere (libfoo.so.1.2).  The result
 * is never "", "." or "..", holds no '/', NUL, tab, newline or control byte,
 * is valid UTF-8 and at most NAME_MAX_LEN bytes.
 *
 * Of ext, only printable ASCII other than '/', '~' and space is kept, at most
 * 64 bytes.  A file or link without an extension has no '.' in its name, so
 * that a measured extension matches the planned one; directories ignore ext.
 *
 * Redraw variants 2 and 3 end their stem in a number ("src_7"), so that even
 * a directory of thousands of entries rarely needs the unique variant.
 *
 * NAMES_NUMERIC: "f<id>.<ext>" ("f<id>" without extension), "d<id>",
 * "l<id>[.<ext>]"; already unique, so redraw variants return the natural name.
 *
 * NAMES_REALISTIC: three independent draws per name decide whether it holds
 * a space, a non-ASCII word and an ASCII capital, with probabilities
 * space_share, utf8_share and upper_share; a name holds none of these unless
 * its draw says so (with upper_share 0, even README is "readme").  The type
 * (ext) then picks the pattern: camera names for photos, libfoo.so.6 for
 * shared libraries, CamelCase for Windows binaries and Java, track names for
 * music, and so on.
 *
 * A profile's shape (caps_on, numeric_on, version_on, nlen), from a stream
 * of its own so that the draws above stay as they are: the stem is then
 * put in capitals or mixed case, replaced by digits, given or stripped of a
 * version, and cut or padded to a length drawn from len_cdf or, for a
 * name with an extension, len_ext_cdf, or for a directory len_dir_cdf
 * when it is set (the whole name's, extension and version included; at
 * least one byte more than they are).
 */
size_t name_make(char *buf, const struct name_cfg *c, enum name_kind kind,
		 uint64_t id, const char *ext, unsigned variant);

#endif
