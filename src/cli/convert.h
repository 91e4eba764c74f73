/* convert.h - `imprint create --format`: the finished raw image converted for a VM by qemu-img */
#ifndef IMPRINT_CONVERT_H
#define IMPRINT_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "core/target.h"

enum image_format {
	IMAGE_RAW,
	IMAGE_QCOW2,
	IMAGE_VMDK,
	IMAGE_VHDX,
};

/* --format's value ("raw", "qcow2", "vmdk", "vhdx").  Returns 0 or -EINVAL. */
int convert_format_parse(const char *s, enum image_format *out);

/* The format a TARGET's extension names (.qcow2, .vmdk, .vhdx), else raw. */
enum image_format convert_format_of(const char *path);

/* The name of f, as qemu-img and --format spell it. */
const char *convert_format_name(enum image_format f);

/*
 * Refuse f before any work when the qemu-img that converts it is not
 * there (raw needs none).  Returns 0, or -ENOENT with msg set.
 */
int convert_check(enum image_format f, char *msg, size_t len);

/*
 * Convert t's finished raw temporary image to f with qemu-img, into a
 * second temporary file beside TARGET that becomes the one commit puts in
 * place; the raw one is dropped either way.  What qemu-img draws at random
 * is drawn from seed instead (a VMDK's content ID; a VHDX's header
 * sequence number, write and log GUIDs and virtual disk ID, checksums
 * recomputed), so the same options give the same bytes (where qemu-img
 * lays the file out otherwise, a note says the bytes will differ).
 * *seconds is the time it took.  Returns 0 or a negative errno with msg set (-ENOENT: no
 * qemu-img).
 */
int convert_image(struct target *t, enum image_format f, uint64_t seed, double *seconds, char *msg,
		  size_t len);

#endif
