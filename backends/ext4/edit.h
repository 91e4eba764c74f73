/* edit.h - an ext2/3/4 image or device edited offline by path through libext2fs: the moves of `imprint evolve` */
#ifndef IMPRINT_BACKENDS_EXT4_EDIT_H
#define IMPRINT_BACKENDS_EXT4_EDIT_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

/* An open file system (opaque: callers need no libext2fs headers). */
struct ext4_edit;
/* An open regular file of it. */
struct ext4_edit_file;

/* What ext4_edit_stat() tells of an entry. */
struct ext4_edit_stat {
	uint32_t mode;    /* with the S_IF* type bits */
	uint64_t size;
	int64_t mtime;
	uint32_t mtime_ns;
};

/*
 * Open the ext2/3/4 file system of image or device `path` for writing
 * (for reading only when rw is 0: then only ext4_edit_stat() and
 * ext4_edit_close() may be called), bitmaps read.  Refuses one that is not ext2/3/4, is mounted, or has a
 * journal to replay (msg says why, in words for the user).  `now` is
 * the time libext2fs stamps on what it touches (the superblock, deleted
 * inodes).  undo (rw only; NULL: none) is an undo file that gets what
 * every block held before its first overwrite: in e2undo's format
 * (libext2fs' undo I/O manager) when e2undo, else imprint's own
 * (backends/ext4/undo.c: a free block of zeros by its number only).
 * Returns 0, -EINVAL (not ext2/3/4), -EBUSY (mounted or a journal to
 * replay), or another negative errno; *out is NULL on error.
 */
int ext4_edit_open(const char *path, int rw, int64_t now, const char *undo, int e2undo,
		   struct ext4_edit **out, char *msg, size_t len);

/* What the file system of e holds now, for a summary (ext4_edit_usage()). */
struct ext4_edit_usage {
	uint64_t block_size, blocks, blocks_used;
	uint64_t inodes, inodes_free;
};

/* Fill u from e's superblock (as changed so far). */
void ext4_edit_usage(const struct ext4_edit *e, struct ext4_edit_usage *u);

/* Write everything back and close; 0 or a negative errno (the first error). */
int ext4_edit_close(struct ext4_edit *e);

/*
 * Close without writing back what libext2fs holds in memory (the
 * superblock, group descriptors, bitmaps): after a failure, before
 * ext4_edit_undo().  The undo file is complete once this returns.
 */
void ext4_edit_abandon(struct ext4_edit *e);

/*
 * Put back into image or device path what undo file undo (written by a
 * closed ext4_edit_open(..., undo, e2undo, ...)) saved: with e2undo, or
 * ext4_undo_apply().  0, or a negative errno with msg saying why.
 */
int ext4_edit_undo(const char *undo, int e2undo, const char *path, char *msg, size_t len);

/*
 * The paths below are absolute in the file system ("/a/b"; "" is the
 * root), never followed through a final symlink.  Each returns 0 or a
 * negative errno: -ENOENT (a component missing), -EEXIST, -ENOTDIR,
 * -EISDIR, -ENOTEMPTY, -ENOSPC, -EIO (libext2fs found corruption).
 */
int ext4_edit_stat(struct ext4_edit *e, const char *path, struct ext4_edit_stat *st);
/* Remove a non-directory's name; its inode and blocks freed at its last link. */
int ext4_edit_unlink(struct ext4_edit *e, const char *path);
/* Move a non-directory to `to`, which must not exist. */
int ext4_edit_rename(struct ext4_edit *e, const char *from, const char *to);
/* Make an empty directory (mode 0700, owner 0; set its metadata after). */
int ext4_edit_mkdir(struct ext4_edit *e, const char *path);
/* Remove an empty directory. */
int ext4_edit_rmdir(struct ext4_edit *e, const char *path);
/* Set the permission bits, owner and the four times of an entry from m. */
int ext4_edit_set_meta(struct ext4_edit *e, const char *path, const struct plan_meta *m);

/*
 * Open regular file `path` for writing: create (it must not exist; made
 * mode 0600) and/or cut to 0 bytes first.  *out is NULL on error.
 */
int ext4_edit_file_open(struct ext4_edit *e, const char *path, int create, int trunc,
			struct ext4_edit_file **out);
/* Write n bytes at byte off, allocating blocks as needed (the size grows past the end). */
int ext4_edit_file_pwrite(struct ext4_edit_file *f, const void *buf, size_t n, uint64_t off);
/* Set the size: blocks past the new end are freed. */
int ext4_edit_file_truncate(struct ext4_edit_file *f, uint64_t size);
/* Flush and close; 0 or a negative errno. */
int ext4_edit_file_close(struct ext4_edit_file *f);

#endif
