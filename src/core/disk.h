/* disk.h - `imprint create --partition`: the disk around the file system, its geometry and its table (libfdisk) */
#ifndef IMPRINT_DISK_H
#define IMPRINT_DISK_H

#include <stddef.h>
#include <stdint.h>

/* Partitions start here and disks end on a multiple of it. */
#define DISK_ALIGN (1ULL << 20)

/* MBR's 32-bit sector numbers: no partition may end past 2^32 sectors of 512 bytes (2 TiB). */
#define DISK_MBR_LIMIT (1ULL << 41)

enum disk_label {
	DISK_NONE, /* a bare file system, as without --partition */
	DISK_GPT,
	DISK_MBR,
};

/* Where the one partition lies on the disk, in bytes. */
struct disk_geom {
	enum disk_label label;
	uint64_t disk_size;  /* the whole disk (an image's length, a device's size) */
	uint64_t part_start; /* DISK_ALIGN */
	uint64_t part_size;  /* the partition, the file system's room */
};

/* --partition's value: "gpt" or "mbr" (or "dos"), "none".  Returns 0 or -EINVAL. */
int disk_label_parse(const char *s, enum disk_label *out);

/*
 * The room a partition has on a device of dev_size bytes (dev_size 0: an
 * image, no limit; 0 returned), or the --partition-size part_size when
 * given; -ENOSPC with msg set when the device cannot hold it.  *room is
 * what the file system may fill.
 */
int disk_room(enum disk_label label, uint64_t dev_size, uint64_t part_size, uint64_t *room,
	      char *msg, size_t len);

/*
 * The geometry for a file system of fs_size bytes: the partition is
 * part_size (--partition-size) or fs_size rounded up to DISK_ALIGN, at
 * DISK_ALIGN; the disk ends DISK_ALIGN after it (room for GPT's backup
 * table), or at dev_size on a device (the partition then fills the device
 * unless part_size says less).  Returns 0, or -EINVAL/-ENOSPC with msg set,
 * or -EFBIG when an MBR partition would end past DISK_MBR_LIMIT.
 */
int disk_geometry(enum disk_label label, uint64_t fs_size, uint64_t part_size, uint64_t dev_size,
		  struct disk_geom *g, char *msg, size_t len);

/*
 * Write g's table through fd (the image or the device, fd_name for
 * messages): one Linux file-system partition, number 1.  The disk and
 * partition GUIDs (GPT) or the disk identifier (MBR) are drawn from seed
 * (the configuration's params_identity()), so the same configuration and
 * seed write the same bytes and any other gives other identifiers.  Returns 0 or a negative errno
 * with msg set.
 */
int disk_write_table(int fd, const char *fd_name, const struct disk_geom *g, uint64_t seed,
		     char *msg, size_t len);

/* Ask the kernel to read a device's new table (BLKRRPART on fd).  Returns 0 or a negative errno. */
int disk_reread(int fd);

#endif
