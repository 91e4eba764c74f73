/* extc.h - a profile's content by extension (ext_content): the generators that make it */
#ifndef IMPRINT_CONTENT_EXTC_H
#define IMPRINT_CONTENT_EXTC_H

#include "content/gen.h"
#include "content/model.h"

/*
 * Built by content_model_init() when the plan's parameters hold an
 * ext_content table (profile --content); without one nothing is built and
 * every extension keeps its generator (content_ext_ops()), byte for byte.
 * For each listed extension:
 *
 * - a text format (text, html, source, json, xml): the same format, its
 *   recurrence moved (gen_file.boost) until a sample of the plan's own
 *   files of the extension compresses to the listed gzip -6 ratio, or
 *   lowered toward none for a ratio below the format's own (source code
 *   past none: more distinct names, numbers and statements, text/code.c); with the
 *   profile's distinct words per KiB (sixth figure), also fresh tokens
 *   (gen_file.fresh) until the sample has that many distinct words, or
 *   words drawn again from the unit's last few (gen_file.narrow) until it
 *   has no more, the recurrence calibrated for the ratio at each step
 *   of that search (the two pull against each other: both are met where
 *   the format can have them);
 * - "other binary" that the source had as text (text share 0.5 or more,
 *   e.g. README, copyright, .pas): prose, raised the same way; gtk-doc's
 *   devhelp2 (and a few other XML names): XML record lines;
 * - where a text (xml, prose) extension's sample still misses the ratio
 *   or the words by more than 10%: record lines of the kind
 *   (text/lines.c: plain, XML or SVG), calibrated the same way, if they
 *   come nearer;
 * - "other binary" named pyc: a CPython 3.11 byte-compiled module
 *   (content_pyc_fill()), its strings' recurrence moved as text's;
 * - other "other binary": the binary model at the listed ratio, zero and
 *   duplicate block shares, with a duplicate pool of its own;
 * - typed formats (media, archives, executables, .mo) keep their generator.
 *
 * content_extc_init() returns 0, -EINVAL or -ENOMEM; content_extc_ops()
 * gives the generator of a listed extension (exact case) or NULL.
 */
int content_extc_init(struct content_model *cm);
void content_extc_release(struct content_model *cm);
const struct gen_ops *content_extc_ops(const struct content_model *cm, const char *ext);

/* The boost the calibration chose for a listed text extension, or -1 (for tests and reports). */
long content_extc_boost(const struct content_model *cm, const char *ext);

/*
 * How the files of a profile's extension get zero and duplicate 4 KiB
 * blocks: 1 for a binary extension (*d: its model's deal), 0 for a text
 * one (none are made: *d zero), -1 when it is not listed or keeps its
 * typed generator (not known).
 */
int content_extc_deal(const struct content_model *cm, const char *ext,
		      struct content_binary_deal *d);

/* Its fresh share (gen_file.fresh, 0..65535), or -1: the same. */
long content_extc_fresh(const struct content_model *cm, const char *ext);

/* Its narrow share (gen_file.narrow, 0..65535), or -1: the same. */
long content_extc_narrow(const struct content_model *cm, const char *ext);

/*
 * A CPython 3.11 .pyc of g->size bytes (magic 0x0a0d0da7 little-endian,
 * then a marshalled module code object: RESUME, LOAD_CONST None,
 * RETURN_VALUE, its constants strings of prose (recurrence moved by
 * g->boost) sized to fill the file exactly).  Files under 128 bytes: the 16-byte header (what
 * fits of it) and text.  Bytes [off, off + len); 0, -EINVAL or -ENOMEM.
 */
int content_pyc_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len);

#endif
