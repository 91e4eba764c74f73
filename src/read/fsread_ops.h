/* fsread_ops.h - inside fsread: a reader's state, its ops struct, the helpers readers share */
#ifndef IMPRINT_FSREAD_OPS_H
#define IMPRINT_FSREAD_OPS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "read/fsread.h"
#include "util/array.h"
#include "util/strutil.h"

/* The inode number the walk names when the root is not a directory (EXT2_ROOT_INO). */
#define FSREAD_ROOT_INO 2

/* One name of a directory, before sorting. */
struct fsr_dent {
	uint64_t ino;
	size_t name_off;
	uint32_t name_len;
};

/* A directory being walked: its sorted names and where the walk is. */
struct fsr_level {
	struct fsr_dent *d;
	size_t n, cap, next;
	char *names;
	size_t nlen, ncap;
	size_t path_len;       /* length of the directory's path ("" for the root) */
	int fd;                /* mounted trees: the directory, open */
};

/* Helper threads that read a mounted tree ahead of the walk (cold caches). */
#define FSREAD_PREFETCH_THREADS 8

struct fsr_prefetch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char **stack;          /* directories to read, relative to the root ("." first) */
	size_t n, cap;
	unsigned busy;         /* helpers reading a directory */
	int stop;
	int rootfd;
	pthread_t th[FSREAD_PREFETCH_THREADS];
	unsigned nth;
	int started;
};

/* Inodes met with more than one name (mounted trees): open addressing. */
struct fsr_inoset {
	uint64_t *slot;        /* ino + 1; 0 is empty */
	size_t cap, n;
};

struct fsread {
	const struct fsread_ops *ops;
	char *target;
	unsigned flags;
	int image;
	struct fsread_geometry geo;

	/* images and devices */
	ext2_filsys fs;
	int fd;                /* our own read-only descriptor, for file data */
	uint64_t dev_bytes;
	uint64_t base;         /* a partitioned disk: where the file system starts, else 0 */
	uint64_t part_bytes;   /* and its partition's length */
	int partno;            /* and its number (from 1); 0: the whole target */
	uint8_t *seen;         /* bit per inode: directory entered, or multi-link file met */
	pthread_mutex_t lock;  /* libext2fs calls from fsread_read() */

	/* mounted trees */
	int rootfd;
	dev_t dev;
	uint64_t mnt_id;
	int has_mnt_id;
	int no_fiemap;         /* the file system does not support FIEMAP */
	uint64_t unreadable;   /* directories not entered, files not opened: permission */
	struct fsr_inoset multi;
	struct fsr_prefetch pf;

	/* the entry handed to the callback, and what reading it needs */
	struct fsread_entry ent;
	char *path;
	size_t path_cap;
	struct fsread_extent *ext;
	size_t next, ext_cap;
	uint64_t *mblk;              /* images: a block-mapped directory's indirect blocks */
	size_t nmblk, mblk_cap;
	struct fsread_extent *unp;   /* mounted: data FIEMAP gives no place (delayed allocation) */
	size_t nunp, unp_cap;
	char *link;
	size_t link_cap;
	struct ext2_inode_large inode;
	int cur_inline;        /* images: data in the inode (inline_data) */
	int cur_fd;            /* mounted: the open file, or -1 */
	int cur_dirfd;
	pthread_mutex_t open_lock;

	struct fsread_extent *free_ext;
	size_t nfree;
	int free_done;
};

/*
 * One way of reading a file system, behind fsread.c's public API and walk
 * (fsread_ext2.c: images and devices; fsread_mounted.c: mounted trees).
 * Every hook but the optional ones is set; each returns 0 or a negative
 * errno with err set, unless it says otherwise.
 */
struct fsread_ops {
	/* what the reader reads, for messages and debugging */
	const char *name;
	/* open fs->target and set fs->geo */
	int (*open)(struct fsread *fs, struct fsread_error *err);
	/* release what open and the walk hold; called once, also after a failed open */
	void (*close)(struct fsread *fs);
	/* fill fs->ent for the root (fs->path is "/"); 1 when it cannot be walked */
	int (*root)(struct fsread *fs, struct fsread_error *err);
	/* fill fs->ent for name d of directory lv (fs->path set); 1 to skip it */
	int (*entry)(struct fsread *fs, const struct fsr_level *lv, const struct fsr_dent *d,
		     const char *name, struct fsread_error *err);
	/*
	 * Read into lv the sorted names of the directory fs->ent, which is
	 * name in directory parent, or the root when parent is NULL; 1 when
	 * it may not be read (skipped, counted in fs->unreadable).
	 */
	int (*read_dir)(struct fsread *fs, const struct fsr_level *parent, const char *name,
			struct fsr_level *lv, struct fsread_error *err);
	/* optional: the callback is done with fs->ent */
	void (*entry_done)(struct fsread *fs);
	/* optional: the walk is over (after an error too) */
	void (*walk_done)(struct fsread *fs);
	/* read len bytes at off of e, the current regular file (checked, within its size) */
	ssize_t (*read)(struct fsread *fs, const struct fsread_entry *e, char *buf, size_t len,
			uint64_t off, struct fsread_error *err);
	/* the current entry's extended attributes (fsread_xattr.c) */
	int (*xattrs)(struct fsread *fs, const struct fsread_entry *e, struct fsread_xattrs *x,
		      struct fsread_error *err);
	/* optional, NULL when free space is unknown: fsread_free_extents() */
	int (*free_extents)(struct fsread *fs, const struct fsread_extent **ext, size_t *n,
			    struct fsread_error *err);
};

/* libext2fs: images and devices (fsread_ext2.c). */
extern const struct fsread_ops fsread_ext2_ops;
/* openat/statx/FIEMAP: mounted trees (fsread_mounted.c). */
extern const struct fsread_ops fsread_mounted_ops;

/* fsread_xattr.c: the two readers' xattrs hooks */
int fsread_ext2_xattrs(struct fsread *fs, const struct fsread_entry *e, struct fsread_xattrs *x,
		       struct fsread_error *err);
int fsread_mounted_xattrs(struct fsread *fs, const struct fsread_entry *e,
			  struct fsread_xattrs *x, struct fsread_error *err);

/* The extents of a file that has none (entries' extents are never NULL when known). */
extern const struct fsread_extent fsread_no_extents[1];

/* Format a message into err (when not NULL). */
#define fsread_set_err(err, ...) \
	errbuf_set((err) ? (err)->msg : NULL, sizeof((err)->msg), __VA_ARGS__)

/* Append a run to fs->ext, merging it into the last one when it continues it; 0 or -ENOMEM. */
int fsread_add_run(struct fsread *fs, uint64_t logical, uint64_t physical, uint64_t len, uint32_t flags);

/* Sort fs->ext by logical block and merge runs that continue each other. */
void fsread_normalize_runs(struct fsread *fs);

/* Add a name of a directory to lv; 0 or -ENOMEM. */
int fsread_level_add(struct fsr_level *lv, uint64_t ino, const char *name, size_t len);

/* Sort lv's names bytewise, the order of the walk. */
void fsread_level_sort(struct fsr_level *lv);

/* What an entry holds before its inode is read: no target, no extents, a first name. */
void fsread_entry_reset(struct fsread_entry *e);

/*
 * fsread_part.c: a partitioned disk's file system.  Partition part (from
 * 1), or with 0 the one partition holding ext2/3/4, into fs->base,
 * part_bytes and partno; a target without a table is left whole (0, with
 * part 0).  Returns 0 or a negative errno with err set: -ENOENT for no
 * such partition, -EINVAL for one that holds no ext2/3/4 file system.
 */
int fsread_locate(struct fsread *fs, int part, struct fsread_error *err);

#endif
