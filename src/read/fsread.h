/* fsread.h - read-only walk of a file system: an image or device, or a mounted tree */
#ifndef IMPRINT_FSREAD_H
#define IMPRINT_FSREAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * One API over several readers (a registry of ops structs, fsread_ops.h),
 * chosen by what the target is: each reader's probe is shown whether the
 * target is a directory and, for an image or device, the type libblkid
 * reads in its superblock; the first that takes it reads it.
 *
 * - "ext2": an image or device holding ext2/3/4 (or nothing libblkid
 *   knows) is opened through libext2fs, read-only, without replaying the
 *   journal; nothing is ever written to it.  A mounted device is refused
 *   (its on-disk state lags the kernel's): give the mount point instead.
 * - "mounted": a directory is walked through the kernel (openat without
 *   following symbolic links, statx, FS_IOC_FIEMAP for the extents, pread
 *   for the bytes); the walk stays on the directory's file system.
 * - "loop": an image or device holding another file system the kernel
 *   mounts (xfs, btrfs, ...), as root: mounted read-only through a
 *   read-only loop device, detached from the directory at once (nothing
 *   is left mounted on any path), and walked as a mounted tree.  Not
 *   root: -EPERM, and the message says how to mount it by hand.
 *
 * Entries come in a fixed order: a directory, then its entries sorted by
 * name (byte order), each directory's subtree before its next sibling
 * (depth first, pre-order).  The root comes first, with path "/".  Every
 * name of a hard-linked file is an entry of its own (same ino; first_name
 * is set on the first one met).
 */

enum fsread_type {
	FSREAD_FILE,     /* regular file */
	FSREAD_DIR,
	FSREAD_SYMLINK,
	FSREAD_OTHER     /* device, FIFO, socket */
};

/* fsread_extent.flags */
#define FSREAD_EXTENT_UNWRITTEN 0x01  /* allocated, reads as zeros (preallocated) */

/*
 * One physical run of a file's blocks, in file-system blocks.  Runs that
 * are physically and logically adjacent, with the same flags, are merged.
 */
struct fsread_extent {
	uint64_t logical;   /* first block within the file */
	uint64_t physical;  /* first block on the device */
	uint64_t len;       /* blocks */
	uint32_t flags;     /* FSREAD_EXTENT_* */
};

struct fsread_time {
	int64_t sec;
	uint32_t nsec;
};

/* What the walk hands to the callback; valid until the callback returns. */
struct fsread_entry {
	const char *path;            /* from the root: "/", "/a", "/a/b.txt" */
	const char *name;            /* last component ("" for the root) */
	size_t name_len;
	enum fsread_type type;
	uint64_t ino;
	uint64_t size;               /* bytes (i_size) */
	uint32_t mode;               /* with the S_IF* type bits */
	uint32_t uid, gid;
	uint32_t nlink;
	struct fsread_time atime, mtime, ctime, crtime;
	int has_crtime;              /* crtime is known */
	/*
	 * Directory components of the path before the name: "/f" and "/a"
	 * have depth 0, "/a/b/f" depth 2 (doc/model.md); the root has 0.  A
	 * directory's own depth in the model's sense is depth + 1 (0 for the
	 * root).
	 */
	unsigned depth;
	int first_name;              /* first entry met for this ino */
	const char *symlink_target;  /* NULL unless a symbolic link (NUL-terminated) */
	size_t symlink_len;
	/*
	 * Data extents of a regular file, merged, sorted by logical block
	 * (only when the walk was opened with FSREAD_EXTENTS and they are
	 * known: not NULL then, even for none; NULL otherwise).  Directories
	 * have theirs too where the reader can tell (images; FIEMAP on a
	 * directory where the file system gives it, ext4's), else NULL.
	 * Inline data (ext4 inline_data) has none.  Metadata blocks
	 * (extent tree nodes, indirect blocks) are not included.  Unwritten
	 * (preallocated) extents are included.
	 */
	const struct fsread_extent *extents;
	size_t nextents;
	/*
	 * Data the kernel holds but has not placed (FIEMAP: delayed
	 * allocation, unknown or unaligned location): logical runs, sorted,
	 * physical 0, in neither extents nor blocks; not holes.  Mounted
	 * trees only (with the extents); none otherwise.
	 */
	const struct fsread_extent *unplaced;
	size_t nunplaced;
	/*
	 * Images, a block-mapped (ext2/3) directory: its indirect blocks,
	 * sorted, which the kernel puts among its data blocks; NULL otherwise.
	 */
	const uint64_t *map_blocks;
	size_t nmap_blocks;
	uint64_t blocks;             /* data blocks in the extents */
	int extents_unknown;         /* FSREAD_EXTENTS, but the file could not be opened (permission) */
	int inline_data;             /* a regular file's data is in its inode: no extents, no holes */
};

struct fsread;

/* An entry's extended attributes (fsread_xattrs()). */
struct fsread_xattrs {
	unsigned user, security, system, trusted; /* by namespace (ACLs are system.) */
	int acl_access, acl_default;              /* POSIX ACLs */
	unsigned in_inode, in_block;              /* images: where they are stored */
	uint64_t block;                           /* images: the xattr block, or 0 */
	unsigned block_refcount;                  /* images: its references */
};

/* User-ready message of a failure, e.g. "'x.img': not an ext2/3/4 file system (bad magic)". */
struct fsread_error {
	char msg[512];
};

/* fsread_open() flags */
#define FSREAD_EXTENTS 0x01  /* collect each entry's extents (FIEMAP on mounted trees) */
#define FSREAD_FREE    0x02  /* collect the free extents (images and devices only) */
#define FSREAD_WARM    0x04  /* mounted trees: the inodes are cached (just written), no prefetch threads */

/*
 * Open target for reading.  Returns 0 with *out set, or a negative errno
 * with err->msg set: -ENOENT/-EACCES/... for the target itself, -EINVAL
 * for something that is not an ext2/3/4 file system, -EIO for one that is
 * corrupt (libext2fs' codes through e2err_errno()), -EBUSY for a mounted
 * device.
 */
int fsread_open(const char *target, unsigned flags, struct fsread **out,
		struct fsread_error *err);

/*
 * fsread_open() of a partitioned disk's file system: partition part (from
 * 1), or with 0 the one partition that holds ext2/3/4 (found through the
 * table by libblkid); a target without a table is read whole, as by
 * fsread_open(), which is this with part 0.  Beside fsread_open()'s
 * errors: -ENOENT when there is no partition part (or none holds
 * ext2/3/4), -EINVAL when it holds another file system or several
 * partitions hold ext2/3/4 and part is 0.
 */
int fsread_open_part(const char *target, int part, unsigned flags, struct fsread **out,
		     struct fsread_error *err);

/* Where a disk's file system lies, and what it is. */
struct fsread_place {
	int partno;          /* its partition (from 1); 0: the whole target, no table */
	uint64_t start, len; /* in bytes (0, 0 for the whole target) */
	char type[32];       /* what libblkid calls it: "ext4", "xfs", ...; "" when unknown */
};

/*
 * Find target's file system through its partition table (libblkid):
 * partition part (from 1), or with 0 the one partition that holds
 * ext2/3/4 (or the only partition, whatever it holds); a target without a
 * table is its own file system (partno 0).  Returns 0, or -ENOENT (no
 * such partition), -EINVAL (a partition with no file system, several
 * ext2/3/4 ones, --partition on a bare target) with err set.
 */
int fsread_find(const char *target, int part, struct fsread_place *where,
		struct fsread_error *err);

/* The partition read (from 1), or 0 for the whole target. */
int fsread_partition(const struct fsread *fs);

/* Close and free (NULL is fine). */
void fsread_close(struct fsread *fs);

/* 1 for an image or device read through libext2fs, 0 for a tree read through the kernel. */
int fsread_is_image(const struct fsread *fs);

/* The reader that reads fs: "ext2", "mounted" or "loop". */
const char *fsread_reader(const struct fsread *fs);

/* What fs is, for reports: "an ext2/3/4 image or device", "a mounted directory tree", ... */
const char *fsread_kind(const struct fsread *fs);

/*
 * The reader that would read a target holding type (libblkid's name,
 * "" when unknown), or a directory when is_dir: "ext2", "mounted",
 * "loop", or NULL.  Backends declare by it which reader reads what they
 * make.
 */
const char *fsread_reader_for(const char *type, int is_dir);

/*
 * 1 when the entries carry their extents: opened with FSREAD_EXTENTS, and
 * (mounted trees) the file system answers FIEMAP.  On one that does not
 * (tmpfs, procfs), the walk goes on without extents and this turns 0.
 */
int fsread_has_extents(const struct fsread *fs);

/*
 * Entries a mounted walk could not read for want of permission: directories
 * it did not enter (their entries are missing) and files whose extents it
 * could not get (extents_unknown).  Always 0 for images.
 */
uint64_t fsread_unreadable(const struct fsread *fs);

/*
 * Entries of a live mounted tree that vanished (or changed) between their
 * directory's listing and their reading: skipped, not errors.  Always 0
 * for images.
 */
uint64_t fsread_vanished(const struct fsread *fs);

/*
 * Whether a failure with -err (a negative errno) means the entry is gone
 * since its directory was listed: -ENOENT, -ESTALE, -ENOTDIR, or -ESRCH
 * (procfs: the process or thread behind /proc/PID/... exited).
 */
int fsread_gone(int err);

/*
 * Count an entry the caller skips because reading it failed with -err (a
 * negative errno): gone (fsread_gone()) into fsread_vanished(),
 * anything else (-ENODATA: shorter than its size, as /sys files are) into
 * fsread_unreadable().
 */
void fsread_skipped(struct fsread *fs, int err);

/*
 * What a walk skipped, in words for a note ("3 directories or files could
 * not be read (permission, ...), 2 vanished or changed while read (a live
 * tree)"), into buf.  Returns 0 when it skipped nothing, else 1.
 */
int fsread_skipped_note(const struct fsread *fs, char *buf, size_t len);

/* The file system's geometry, from an image's superblock or a mounted tree's statfs. */
struct fsread_geometry {
	unsigned block_size;   /* bytes (a mounted tree: its statfs f_bsize) */
	uint64_t total_blocks; /* in the file system (images: the superblock's; mounted: statfs) */
	uint64_t group_blocks; /* in a block group (images), or 0 when there are none (mounted) */
};

/* fs's geometry, set when it was opened. */
const struct fsread_geometry *fsread_geometry(const struct fsread *fs);

/*
 * The callback of fsread_walk().  Return 0 to go on; anything else stops
 * the walk and is returned by fsread_walk().
 */
int fsread_walk(struct fsread *fs, int (*fn)(struct fsread *fs, const struct fsread_entry *e,
					     void *arg),
		void *arg, struct fsread_error *err);

/*
 * The extended attributes of e, only while the callback for e runs
 * (images: the inode's and its xattr block's entries, inline data's empty
 * system.data left out; mounted trees: llistxattr).  Returns 0 with *x
 * filled, or a negative errno with err->msg set.
 */
int fsread_xattrs(struct fsread *fs, const struct fsread_entry *e, struct fsread_xattrs *x,
		  struct fsread_error *err);

/*
 * Read up to len bytes of e's data at offset off into buf.  Only for a
 * regular file, and only while the callback for e runs; it may be called
 * from other threads then (the walk waits for the callback).  Holes and
 * unwritten extents read as zeros.  Returns the bytes read (fewer than len
 * only at the end of the file, 0 at or after it) or a negative errno, with
 * err->msg set when err is not NULL.
 */
ssize_t fsread_read(struct fsread *fs, const struct fsread_entry *e, void *buf, size_t len,
		    uint64_t off, struct fsread_error *err);

/*
 * Blocks of bs bytes (the file system's) within e's i_size rounded up to
 * whole blocks that no extent maps: its holes (leading, inner and
 * trailing), unwritten extents and unplaced data being data.  0 for
 * anything but a regular file with known extents (FSREAD_EXTENTS,
 * fsread_has_extents()), and for inline data.
 */
uint64_t fsread_hole_blocks(const struct fsread_entry *e, unsigned bs);

/*
 * The same holes as runs of logical blocks (physical 0), in order, into
 * *runs, grown with realloc (*cap: its capacity in runs; free() it).
 * Returns how many, or -ENOMEM.
 */
ssize_t fsread_holes(const struct fsread_entry *e, unsigned bs, struct fsread_extent **runs,
		     size_t *cap);

/*
 * The free extents (images and devices opened with FSREAD_FREE): runs of
 * free blocks from the block bitmap, in block order, merged across block
 * groups (as e2freefrag counts them).  *ext stays owned by fs.  Returns 0,
 * or -EOPNOTSUPP for a mounted tree or without FSREAD_FREE.
 */
int fsread_free_extents(struct fsread *fs, const struct fsread_extent **ext, size_t *n,
			struct fsread_error *err);

#endif
