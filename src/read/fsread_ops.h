/* fsread_ops.h - inside fsread: a reader's state, its ops struct, the helpers readers share */
#ifndef IMPRINT_FSREAD_OPS_H
#define IMPRINT_FSREAD_OPS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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

struct fsread {
	const struct fsread_ops *ops;
	void *priv;            /* the reader's own state (its open sets it, its close frees it) */
	char *target;
	unsigned flags;
	struct fsread_place place; /* images and devices: where the file system lies, what it is */
	char kind[128];         /* what is read, for reports: "an ext2/3/4 image or device" */
	struct fsread_geometry geo;
	int no_fiemap;         /* the file system does not support FIEMAP */
	uint64_t unreadable;   /* directories not entered, files not opened: permission */
	uint64_t vanished;     /* entries gone or changed between their listing and their reading */

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
};

/* What a reader's probe is shown of a target. */
struct fsread_probe {
	int is_dir;       /* a directory (a mounted tree); else an image file or block device */
	const char *type; /* images and devices: what libblkid calls its file system ("" unknown) */
};

/*
 * One way of reading a file system, behind fsread.c's public API and walk
 * (fsread_ext2.c: ext2/3/4 images and devices; fsread_mounted.c: mounted
 * trees; fsread_loop.c: images of other file systems, mounted read-only).
 * The registry (fsread_readers[]) lists them; the first whose probe takes
 * a target reads it.  A reader keeps its state behind fs->priv.  Every
 * hook but the optional ones is set; each returns 0 or a negative errno
 * with err set, unless it says otherwise.
 */
struct fsread_ops {
	/* what the reader is called ("ext2", "mounted", "loop"): backends name it */
	const char *name;
	/* 1 when it reads the on-disk structures itself (free space, block groups): fsread_is_image() */
	int image;
	/* 1 when this reader reads target p; 0 else */
	int (*probe)(const struct fsread_probe *p);
	/* open fs->target (fs->place set for images) and set fs->priv, fs->geo and fs->kind */
	int (*open)(struct fsread *fs, struct fsread_error *err);
	/* release what open and the walk hold and free fs->priv; called once, also after a failed open */
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

/* libext2fs: ext2/3/4 images and devices (fsread_ext2.c). */
extern const struct fsread_ops fsread_ext2_ops;
/* openat/statx/FIEMAP: mounted trees (fsread_mounted.c). */
extern const struct fsread_ops fsread_mounted_ops;
/* an image of another file system, mounted read-only and read as a tree (fsread_loop.c) */
extern const struct fsread_ops fsread_loop_ops;

/*
 * fsread_mounted.c, for the loop reader: open the tree at dir as a mounted
 * reader would fs->target (messages name fs->target).  Returns 0 or a
 * negative errno with err set; the mounted reader's close releases it.
 */
int fsread_mounted_open_dir(struct fsread *fs, const char *dir, struct fsread_error *err);

/*
 * fsread_xattr.c: the readers' xattrs hooks.  An ext2/3/4 inode's
 * attributes through efs (libext2fs' ext2_filsys), under lock; a mounted
 * tree's through rootfd, its root directory.
 */
struct struct_ext2_filsys;
int fsread_ext2_xattrs_of(struct fsread *fs, struct struct_ext2_filsys *efs, pthread_mutex_t *lock,
			  const struct fsread_entry *e, struct fsread_xattrs *x,
			  struct fsread_error *err);
int fsread_mounted_xattrs_of(int rootfd, const struct fsread_entry *e,
			     struct fsread_xattrs *x, struct fsread_error *err);

/* The extents of a file that has none (entries' extents are never NULL when known). */
extern const struct fsread_extent fsread_no_extents[1];

/* Format a message into err (when not NULL). */
#define fsread_set_err(err, ...) \
	errbuf_set((err) ? (err)->msg : NULL, sizeof((err)->msg), __VA_ARGS__)

/*
 * -EBUSY with err saying so when the file system at byte base of fd
 * (target) carries the mark of a killed evolve (read/evolve_mark.h), else 0.
 */
int fsread_refuse_marked(int fd, uint64_t base, const char *target, struct fsread_error *err);

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

/* Whether libblkid's type is ext2/3/4 (fsread_part.c). */
int fsread_is_ext_type(const char *type);

#endif
