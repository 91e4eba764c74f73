/* target.h - where `imprint create` writes: safety checks, temporary image, commit or discard */
#ifndef IMPRINT_TARGET_H
#define IMPRINT_TARGET_H

#include <stdint.h>
#include <sys/types.h>

/* Why a target operation failed or was refused; message is user-ready. */
struct target_error {
	char msg[768];
};

/*
 * One TARGET: an image file (built under a temporary name beside it and
 * renamed over it when complete), a block device (written in place), or a
 * directory of a mounted file system (its backend writes and cleans up).
 */
struct target {
	char *path;             /* as the user gave it */
	char *real;             /* image: the file to replace (symlinks resolved) */
	char *dir;              /* image: the directory holding it */
	char *tmp;              /* image: the temporary file, while it exists */
	int exists;
	int is_device;
	int is_dir;             /* a directory (of a mounted file system) */
	uint64_t dir_size;      /* directory: its file system's capacity (statvfs) */
	uint64_t dir_free;      /* directory: the space free to the caller */
	int dir_readonly;       /* directory: on a read-only mount */
	dev_t rdev;             /* device: its number */
	uint64_t dev_size;      /* device: its size in bytes (BLKGETSIZE64) */
	uint64_t file_size;     /* image: the existing file's size, else 0 */

	/* what the signature probe found (NUL strings when nothing) */
	char type[32];          /* TYPE: "ext4", "swap", "crypto_LUKS", ...; a directory's file system */
	char usage[32];         /* USAGE: "filesystem", "raid", "crypto", "other" */
	char label[128];
	char pttype[32];        /* PTTYPE: "dos", "gpt", ... */
	int ambivalent;         /* more than one signature, none preferred */
	uint64_t fs_size;       /* a file system --no-format populates found: its size (backend_fs_size) */

	char content[160];      /* no signature, yet not empty: what is there ("ASCII text (12 bytes)") */
	dev_t file_dev;         /* image: the existing file's identity, to see it replaced */
	ino_t file_ino;

	int lock_fd;            /* device: open, flock(LOCK_EX) held from the busy check to release */
	int excl_fd;            /* device: the exclusive (O_EXCL) claim; -1 while mke2fs has it */
	int tmp_fd;             /* image: the temporary file, open until commit or discard */
	int tmp_anon;           /* image: tmp_fd is an O_TMPFILE, with no name until commit */
	char fd_path[64];       /* image: /proc/PID/fd/N of an O_TMPFILE, for the backend */

	uint64_t fs_offset;     /* device with --partition: where the file system starts */
	int raw_fd;             /* --format: the raw image while it is converted, else -1 */
	int raw_anon;
	char *raw_tmp;
	char raw_fd_path[64];

	int wrote;              /* a write happened: discard has work to do */
	int keep_named;         /* the partial image was kept under t->tmp (--keep-partial) */
};

/*
 * Look at path without writing: whether it exists, is a block device (and
 * its size) or a regular file, and which signatures it holds (libblkid).
 * A missing path is fine if its directory exists and is writable.
 * Returns 0, or a negative errno with err->msg saying what is wrong
 * (-ENOTDIR, -EACCES, -ENOENT, -EINVAL for another file type).  A
 * directory is taken with its file system's capacity and free space.
 */
int target_open(struct target *t, const char *path, struct target_error *err);

/*
 * Refuse a target that is in use, even with force: a mounted, swapped-on
 * or otherwise held block device (one of its partitions included), one
 * another process has open, or one another imprint run has locked; or an
 * image file that is attached to a loop device which is mounted or held,
 * or that is itself the source of a mount.  A device is claimed here
 * (flock and an exclusive open) until target_release().  Returns 0 or
 * -EBUSY.
 */
int target_check_busy(struct target *t, struct target_error *err);

/*
 * Release (on 0) or take back (on 1) the exclusive claim of a device, for
 * a program (mke2fs) that claims it itself; the flock stays all along.
 * Taking it back fails with -EBUSY when another program claimed it
 * meanwhile: then the device is no longer this run's, and discard leaves
 * it alone.  No effect on other targets.  Returns 0 or a negative errno.
 */
int target_claim(struct target *t, int on);

/*
 * Refuse what the host cannot hold before anything is planned: an image
 * file of size bytes larger than its file system allows (a test ftruncate
 * of the temporary file, made here) or data bytes more than it has free.
 * Returns 0, -EFBIG or -ENOSPC (or another negative errno).
 */
int target_check_room(struct target *t, uint64_t size, uint64_t data, int no_format,
		      struct target_error *err);

/*
 * Refuse a target that holds something worth keeping: any recognized
 * signature unless force ("'disk.img' holds an ext4 file system (label
 * 'x'); use --force to overwrite it").  With no_format, the target must
 * instead hold ext2, ext3 or ext4.  Returns 0 or -EEXIST (-ENOENT or
 * -EMEDIUMTYPE for no_format on a missing or foreign target).
 */
int target_check_contents(const struct target *t, int force, int no_format,
			  struct target_error *err);

/*
 * Make the target ready for the backend, size bytes large: an image gets a
 * temporary file in TARGET's directory (an unnamed O_TMPFILE, reached as
 * /proc/PID/fd/N, or ".NAME.imprint-XXXXXX" where the file system has no
 * O_TMPFILE; created sparse, or a sparse copy of the existing image with
 * no_format); a device is already claimed.  Returns 0 or a negative errno.
 * *path is where to write.
 */
int target_prepare(struct target *t, uint64_t size, int no_format, const char **path,
		   struct target_error *err);

/*
 * The build is complete: fsync the temporary file, link or rename it into
 * place and fsync the directory (image), or fsync the device.  A TARGET
 * that did not exist at the start and exists now, or that was replaced
 * meanwhile, is not overwritten: -EEXIST.  Returns 0 or a negative errno;
 * on failure the temporary file remains for target_discard().
 */
int target_commit(struct target *t, struct target_error *err);

/*
 * Nothing was written to a device after all (a backend refused it before
 * its first write): target_discard() leaves it as it is.  No effect on an
 * image, whose temporary file is always removed.
 */
void target_untouched(struct target *t);

/*
 * The build failed or was interrupted: remove the temporary file, or
 * invalidate what was written to a device this run still claims (zero its
 * first 64 KiB, where every superblock and signature of interest lives;
 * with a partition (fs_offset) also the partition's first and the device's
 * last 64 KiB, where GPT keeps its backup);
 * a device another program claimed meanwhile is left alone.  Says what it did in
 * what (e.g. "removed the partial image '.x.imprint-AbC123'").  Returns 0
 * or a negative errno with err->msg set.
 */
int target_discard(struct target *t, char *what, size_t len, struct target_error *err);

/*
 * --format: make a second temporary file beside TARGET (as target_prepare
 * does) for the converted image; *raw is where the finished raw image
 * stays readable, *out where the converter writes.  From here on commit
 * places, and discard removes, the second file.  Returns 0 or a negative
 * errno; then nothing changed.
 */
int target_convert_begin(struct target *t, const char **raw, const char **out,
			 struct target_error *err);

/*
 * The conversion is over: drop the raw image.  When !ok, the converted
 * file is dropped too (by the caller's discard, like any partial image).
 */
void target_convert_end(struct target *t, int ok);

/* The open descriptor of what the backend wrote (the temporary image, the device), or -1. */
int target_fd(const struct target *t);

/* Free what target_open() allocated. */
void target_release(struct target *t);

/*
 * --keep-partial after a failure: leave the partial image under its
 * temporary name (or the device as it is) and say so in what.  Returns 0.
 */
int target_keep(struct target *t, char *what, size_t len);

#endif
