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
 * --backing FILE for the qcow2 image of target_path: FILE must be a qcow2
 * image (its header read here) and not target_path itself.  The name the
 * overlay records, resolved from target_path's directory as qemu resolves
 * it, goes to name: FILE's own name when both are in one directory (the
 * series can move together), else its absolute path; its virtual size
 * into *vsize.  Returns 0, or
 * -EINVAL/-ENOENT/-EIO with msg set; nothing is written.
 */
int convert_backing_check(const char *file, const char *target_path, char *name, size_t name_len,
			  uint64_t *vsize, char *msg, size_t len);

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

/*
 * As convert_image() to qcow2, as an overlay on the qcow2 image backing
 * (the name convert_backing_check() gave): only the clusters where the
 * raw image differs from it are stored (qemu-img reads both whole).  A
 * raw image of another size than the backing's virtual size is refused
 * (-EINVAL, msg set) before qemu-img runs.
 */
int convert_image_backed(struct target *t, const char *backing, uint64_t seed, double *seconds,
			 char *msg, size_t len);

/*
 * create --backing with a later generation: the whole disk the qcow2
 * image backing holds (its chain read through; backing is the name
 * convert_backing_check() gave, resolved from t's TARGET as qemu resolves
 * it) copied by qemu-img into the raw image at raw, which must exist with
 * the disk's size (target_prepare()).  Returns 0, or a negative errno
 * with msg set (-EINTR: qemu-img was interrupted).
 */
int convert_copy_backing(const struct target *t, const char *backing, const char *raw,
			 char *msg, size_t len);

#endif
