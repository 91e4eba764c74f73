/* backend.h - the seam between the core and the file systems: a const ops struct per backend */
#ifndef IMPRINT_BACKEND_H
#define IMPRINT_BACKEND_H

#include <signal.h>
#include <stdint.h>

#include "content/source.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "read/evolve_mark.h"

/*
 * Capabilities (backend_ops.caps); the core reads them to decide what to
 * call.  A backend that places blocks is asked for its free-space map and
 * the blocks each entry needs (layout_request), and the core builds the
 * layout it then writes exactly.
 */
#define BACKEND_PLACES_BLOCKS 0x01 /* puts every block where the layout says */
#define BACKEND_FORMATS	      0x02 /* makes the file system itself */
#define BACKEND_MEASURES      0x04 /* what it made can be read back by src/read/ */
/*
 * Writes nothing (fio's DISKLESSIO): the core leaves TARGET untouched (no
 * temporary image, no partition table, no conversion, no commit) and the
 * backend is given TARGET's path only to name it.
 */
#define BACKEND_DISKLESS      0x08
/* Writes the plan's --include entries (pl->inc); the core refuses --include for the others. */
#define BACKEND_INCLUDES      0x10
/*
 * What it makes, `imprint evolve` edits in place (generation N-1 into N
 * through libext2fs): create --generation N --backing evolves a copy of
 * the backing image rather than laying generation N out afresh.
 */
#define BACKEND_EVOLVES	      0x20

/* Target kinds (backend_ops.targets): what TARGET may be. */
#define BACKEND_TARGET_FILE   0x01 /* an image file, built beside it and renamed into place */
#define BACKEND_TARGET_DEVICE 0x02 /* a block device, written in place */
#define BACKEND_TARGET_DIR    0x04 /* a directory of a mounted file system */

/* The options of `imprint create` a backend takes (backend_ops.options); the core refuses the rest. */
#define BACKEND_OPT_MKFS_OPTIONS 0x01 /* --mkfs-options */
#define BACKEND_OPT_NO_FORMAT	 0x02 /* --no-format */
#define BACKEND_OPT_KEEP_PARTIAL 0x04 /* --keep-partial */
#define BACKEND_OPT_ALLOW_DROP	 0x08 /* --allow-drop */
#define BACKEND_OPT_PARTITION	 0x10 /* --partition: the file system at an offset inside TARGET */
#define BACKEND_OPT_SHARD	 0x20 /* --shard: one share of the plan, or the finishing step */
#define BACKEND_OPT_DIRECT_IO	 0x40 /* --direct-io: file data around the page cache or through it */

/*
 * --direct-io: how file data goes to the target.  AUTO (the default)
 * measures both ways at the target before the data (backends/ext4/dio.c);
 * the image's bytes are the same whichever is taken.
 */
enum data_io {
	DATA_IO_AUTO = 0,
	DATA_IO_DIRECT,	  /* O_DIRECT where the target allows it */
	DATA_IO_BUFFERED, /* through the page cache */
};

/* Which way the data went, and why (create_result.io). */
struct data_io_report {
	int have;		     /* the backend chose (0: it has no choice to make) */
	int direct;		     /* 1: around the page cache */
	const char *why;	     /* "measured", "forced", "small", "refused" */
	double direct_mbps, buffered_mbps; /* the measure's rates, when measured (else 0) */
};

/* What `imprint create` asks of a backend. */
struct create_opts {
	const char *target;	  /* the path the backend writes (a temporary file, a device, a directory) */
	const char *mkfs_options; /* ext4: extra mke2fs arguments, or NULL */
	int no_format;		  /* ext4: populate an existing, empty file system */
	int force;		  /* the user allowed overwriting (the target was checked already) */
	int keep_partial;	  /* on failure, leave what was written for inspection */
	int allow_drop;		  /* drop (or rename) what the file system cannot hold, counted */
	/*
	 * --partition: the file system starts offset bytes into target and is
	 * fs_size bytes long (the partition the core wrote or will write around
	 * it); 0 and 0: the whole target, as without a partition table.
	 */
	uint64_t offset, fs_size;
	unsigned jobs;		  /* worker threads for file data, >= 1 */
	enum data_io data_io;	  /* --direct-io (backends with BACKEND_OPT_DIRECT_IO) */
	/*
	 * --shard K/N: write share shard_k of shard_n of the plan (plan/shard.h)
	 * beside the other shards' writers; shard_finish: the step after all
	 * shards, the directories' metadata.  shard_n 0, shard_finish 0: the
	 * whole plan, as without --shard.
	 */
	unsigned shard_k, shard_n;
	int shard_finish;
	/*
	 * Set (to non-zero) by the core's SIGINT/SIGTERM handler: backends poll
	 * it between entries and data batches and fail with -EINTR.  NULL: never.
	 */
	volatile sig_atomic_t *cancel;
	/*
	 * Called now and then from the populating thread, and once at the end
	 * of the data; may be NULL.  files_done: files whose bytes are all
	 * written; bytes_done: bytes of file data written (a sparse file's
	 * holes count as written), the plan's bytes once all are.  With
	 * --shard K/N both count the share's files only (plan_shard_init()'s
	 * files and bytes once all are).
	 */
	void (*progress)(void *ctx, uint64_t files_done, uint64_t bytes_done);
	void *progress_ctx;
	/*
	 * Set when the core holds the target (a block device) exclusively for
	 * the whole run: the backend must not claim it again (no O_EXCL open)
	 * except through claim(claim_ctx, 0) before a program that claims it
	 * itself (mke2fs) and claim(claim_ctx, 1) after, which fails (-EBUSY)
	 * when another program took it meanwhile.  NULL: nobody holds it.
	 */
	int (*claim)(void *ctx, int on);
	void *claim_ctx;
};

/* Whether the run was cancelled (o->cancel set). */
static inline int create_cancelled(const struct create_opts *o)
{
	return o->cancel && *o->cancel;
}

/* The quick upfront estimate of the space a plan needs, in bytes. */
struct backend_estimate {
	uint64_t data;	  /* file data in whole blocks, slow symlinks */
	uint64_t dirs;	  /* directory blocks */
	uint64_t inodes;  /* inode tables */
	uint64_t journal; /* the journal, if any */
	uint64_t meta;	  /* mapping blocks, bitmaps, descriptors */
	uint64_t total;
	uint64_t floor;	  /* the smallest file system the backend can make at all; 0: unknown */
};

/* One round of aging through the kernel (a mounted backend): measured after its commit. */
struct create_age_round {
	uint32_t round;		      /* 0: the initial population */
	double layout_score;	      /* by FIEMAP over the live files; < 0: unavailable */
	uint64_t files, fragmented;   /* live files of two or more blocks, and of them fragmented */
	uint64_t free_blocks, total_blocks; /* statvfs, in block_size blocks */
};

#define CREATE_AGE_SERIES 64 /* rounds kept: the last ones */

/* The summary of a build. */
struct create_result {
	uint64_t files, dirs, links, bytes;
	uint64_t blocks_used, block_size;
	double seconds;
	int have_score;	     /* layout_score holds a figure (placed, or measured by FIEMAP) */
	double layout_score; /* image-wide layout score of the files */
	uint64_t sparse_files, hole_blocks; /* files with holes, and the blocks never written */
	int have_inodes;		    /* the file system has an inode count (not btrfs) */
	uint64_t inodes, inodes_free;	    /* its inodes, and those left free */

	/* what the layout reached beside the score (backends that place blocks) */
	int have_layout;
	double layout_target;		/* the score aimed at */
	uint32_t age_rounds;		/* aged: no score target applies */
	uint64_t frag_eligible;		/* files of two or more blocks */
	uint64_t frag_files, frag_runs; /* of them, fragmented, and their runs */
	double free_small_target;	/* 'free_frag_share' asked (0: no shape asked) */
	struct layout_free_hist free;	/* the free space left, from the block bitmap */
	char layout_notes[512];		/* layout_notes_text(): what gave way, or "" */
	char notes[256];		/* the backend's word on what differs from the plan, or "" */
	struct data_io_report io;	/* how file data went to the target (ext2/3/4) */
	/* --allow-drop: what the file system could not hold (all 0 without it) */
	uint64_t dropped_hardlinks, dropped_symlinks; /* not made */
	uint64_t owners_dropped;		      /* entries left with the caller's owner */
	uint64_t renamed;			      /* entries made under a shortened or new name */
	uint64_t modes_dropped;			      /* entries left with the file system's mode */
	uint64_t holes_filled;			      /* sparse files written whole (zeros) */
	uint64_t times_rounded;			      /* entries whose times lost their nanoseconds */
	/*
	 * Metadata (doc/model.md, "Metadata"), as planned and so written when
	 * the build succeeds; have_meta 0: none planned.  xattr_block_inodes
	 * and xattr_blocks: ext2/3/4, inodes with an external attribute block
	 * and the distinct blocks (have_xattr_blocks 0 elsewhere).
	 */
	int have_meta, have_xattr_blocks;
	uint64_t specials[SPECIAL_TYPES];       /* FIFOs, sockets, char and block devices */
	uint64_t xattr_inodes, xattr_user, xattr_security, acl_access, acl_default;
	uint64_t xattr_block_inodes, xattr_blocks;
	uint64_t prealloc_files, unwritten_bytes, beyond_bytes;
	/* directories of two blocks or more, as the layout placed them (have_layout) */
	uint64_t dir_multiblock, dir_fragmented;
	double dir_layout_score, dir_frag_target;
	/*
	 * --include: the user's entries written beside the plan's (the core
	 * counts them from pl->inc once populate succeeded); have_included 0: none.
	 */
	int have_included, included_normalized;
	uint64_t included_files, included_dirs, included_symlinks, included_hardlinks;
	uint64_t included_bytes, included_xattrs;
	/* aging through the kernel: rounds measured (the last CREATE_AGE_SERIES kept, a ring) */
	uint32_t age_series_n;
	struct create_age_round age_series[CREATE_AGE_SERIES];
};

/*
 * The editor of BACKEND_EVOLVES (backend_ops.edit): a file system it made,
 * changed offline by path, for `imprint evolve`.  Its handles are opaque
 * (each backend completes them); the core calls the backend_edit_*()
 * wrappers below.  Paths are absolute in the file system ("/a/b"; "" is
 * the root), never followed through a final symlink.  Each returns 0 or
 * a negative errno: -ENOENT (a component missing), -EEXIST, -ENOTDIR,
 * -EISDIR, -ENOTEMPTY, -ENOSPC, -EIO (corruption found).
 */
struct backend_edit;	  /* an open file system */
struct backend_edit_file; /* an open regular file of it */

/* What backend_edit_stat() tells of an entry. */
struct backend_edit_stat {
	uint32_t mode; /* with the S_IF* type bits */
	uint64_t size;
	int64_t mtime;
	uint32_t mtime_ns;
};

/* What the file system being edited holds now, for a summary (backend_edit_usage()). */
struct backend_edit_usage {
	uint64_t block_size, blocks, blocks_used;
	uint64_t inodes, inodes_free;
};

/*
 * open      open the file system of image or device path for writing (for
 *           reading only when rw is 0: then only stat and close), refusing
 *           one it did not make (-EINVAL), a mounted one or one with a
 *           journal to replay (-EBUSY), msg saying why in words for the
 *           user, and one that carries an evolve's mark (-EBUSY: half-evolved,
 *           read/evolve_mark.h); now: the time stamped on what it touches;
 *           mark (rw only; NULL: no undo): before the first change, the mark
 *           is written and synced, and its undo file gets what every block
 *           held before its first overwrite (its keep file too, in e2undo's
 *           format); *out NULL on error
 * usage     fill u from e (as changed so far)
 * close     write everything back and close, the mark put back last (after
 *           a sync); the first error
 * abandon   close without writing back what is held in memory (after a
 *           failure, before undo); the undo file is complete once it returns
 * undo      roll image or device path back by the undo file its mark names
 *           (an abandoned open, or an imprint that died): the mark goes as
 *           the last write, then the undo file (and keep file); 1 when path
 *           has no mark (nothing done); msg says why it failed
 * stat unlink rename mkdir rmdir set_meta   an entry: unlink a non-directory
 *           (its blocks freed at its last link); rename a non-directory to
 *           a free name; mkdir an empty directory (mode 0700, owner 0);
 *           rmdir an empty one; set_meta the permission bits, owner and
 *           four times of m
 * file_open  a regular file for writing: create (the name must be free;
 *           mode 0600) and/or cut to 0 bytes first; *out NULL on error
 * file_pwrite  n bytes at byte off (the size grows past the end)
 * file_truncate  set the size, blocks past the end freed
 * file_close  flush and close
 */
struct backend_edit_ops {
	int (*open)(const char *path, int rw, int64_t now, const struct evolve_mark *mark,
		    struct backend_edit **out, char *msg, size_t len);
	void (*usage)(const struct backend_edit *e, struct backend_edit_usage *u);
	int (*close)(struct backend_edit *e);
	void (*abandon)(struct backend_edit *e);
	int (*undo)(const char *path, char *msg, size_t len);
	int (*stat)(struct backend_edit *e, const char *path, struct backend_edit_stat *st);
	int (*unlink)(struct backend_edit *e, const char *path);
	int (*rename)(struct backend_edit *e, const char *from, const char *to);
	int (*mkdir)(struct backend_edit *e, const char *path);
	int (*rmdir)(struct backend_edit *e, const char *path);
	int (*set_meta)(struct backend_edit *e, const char *path, const struct plan_meta *m);
	int (*file_open)(struct backend_edit *e, const char *path, int create, int trunc,
			 struct backend_edit_file **out);
	int (*file_pwrite)(struct backend_edit_file *f, const void *buf, size_t n, uint64_t off);
	int (*file_truncate)(struct backend_edit_file *f, uint64_t size);
	int (*file_close)(struct backend_edit_file *f);
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
	char errmsg[512]; /* user-ready message when a hook fails */
};

/*
 * A backend.  Hooks return 0 or a negative errno with b->errmsg set; the
 * core calls them through the backend_*() wrappers below, never directly.
 *
 * name      what --backend calls it
 * caps      BACKEND_* capability bits
 * targets   BACKEND_TARGET_* kinds of TARGET it takes
 * options   BACKEND_OPT_* options of create it takes
 * fs_names  the file systems it makes (--fs values), NULL-ended; NULL: any
 * fs_aliases  optional: pairs of a name libblkid gives a file system it
 *           makes and the fs_names entry that name is ("ext4dev", "ext4"),
 *           NULL-ended
 * summary   what it writes, for --backend's help ("image files and devices")
 * fs_note   optional: a word on its file systems for --fs's help
 * check     optional: refuse parameters p that the file system it would
 *           make of them cannot hold (the model knows no file system);
 *           0, or -EINVAL with msg set
 * fs_size   optional, BACKEND_OPT_NO_FORMAT only: the size in bytes of the
 *           file system (one it makes) that image or device path holds, for
 *           --no-format's plan; 0 when it cannot tell
 * reader    BACKEND_MEASURES only: the src/read reader that reads what it
 *           makes back ("ext2", "mounted", "loop": fsread_reader_for())
 * estimate  optional: the space pl needs on it, before anything is written
 * open      take the target (format it, for BACKEND_FORMATS)
 * layout_request  BACKEND_PLACES_BLOCKS only: fill rq's block counts,
 *           block size, mapping and extent limit for pl, and fm with the
 *           free space; both stay valid until finish() or abort()
 * populate  write pl: lo is the layout built from layout_request (NULL for
 *           a backend that does not place blocks); called once
 * finish    make the result durable (fsync), release everything
 * abort     release everything after a failure; safe at any point after open
 * edit      BACKEND_EVOLVES only: its editor (struct backend_edit_ops)
 */
struct backend_ops {
	const char *name;
	unsigned caps;
	unsigned targets;
	unsigned options;
	const char *const *fs_names;
	const char *const *fs_aliases;
	const char *summary;
	const char *fs_note;
	int (*check)(const struct params *p, char *msg, size_t len);
	uint64_t (*fs_size)(const char *path);
	const char *reader;
	int (*estimate)(const struct plan *pl, struct backend_estimate *e);
	int (*open)(struct backend *b, const struct create_opts *o, const struct plan *pl);
	int (*layout_request)(struct backend *b, const struct plan *pl, struct layout_request *rq,
			      struct freemap *fm);
	int (*populate)(struct backend *b, const struct plan *pl, const struct layout *lo,
			const struct content_source *cs, struct create_result *res);
	int (*finish)(struct backend *b);
	void (*abort)(struct backend *b);
	const struct backend_edit_ops *edit;
};

/*
 * The wrappers the core calls.  Each checks its arguments (-EINVAL), and
 * answers -ENOSYS when the hook is missing or the capability it needs is
 * not declared, with b->errmsg saying so.  backend_init() prepares b for ops.
 */
void backend_init(struct backend *b, const struct backend_ops *ops);
int backend_estimate(const struct backend_ops *ops, const struct plan *pl,
		     struct backend_estimate *e);
/* ops' fs_size hook: the size of the file system path holds, 0 without the hook. */
uint64_t backend_fs_size(const struct backend_ops *ops, const char *path);
int backend_open(struct backend *b, const struct create_opts *o, const struct plan *pl);
int backend_layout_request(struct backend *b, const struct plan *pl, struct layout_request *rq,
			   struct freemap *fm);
int backend_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
		     const struct content_source *cs, struct create_result *res);
int backend_finish(struct backend *b);
void backend_abort(struct backend *b);

/*
 * The editor's wrappers (struct backend_edit_ops), ops the backend that
 * opened e: each checks its arguments (-EINVAL) and answers -ENOSYS when
 * ops lacks BACKEND_EVOLVES or the hook (open and undo with msg saying so).
 * close and abandon take a NULL e (nothing to do).
 */
int backend_edit_open(const struct backend_ops *ops, const char *path, int rw, int64_t now,
		      const struct evolve_mark *mark, struct backend_edit **out, char *msg,
		      size_t len);
int backend_edit_usage(const struct backend_ops *ops, const struct backend_edit *e,
		       struct backend_edit_usage *u);
int backend_edit_close(const struct backend_ops *ops, struct backend_edit *e);
void backend_edit_abandon(const struct backend_ops *ops, struct backend_edit *e);
int backend_edit_undo(const struct backend_ops *ops, const char *path, char *msg, size_t len);
int backend_edit_stat(const struct backend_ops *ops, struct backend_edit *e, const char *path,
		      struct backend_edit_stat *st);
int backend_edit_unlink(const struct backend_ops *ops, struct backend_edit *e, const char *path);
int backend_edit_rename(const struct backend_ops *ops, struct backend_edit *e, const char *from,
			const char *to);
int backend_edit_mkdir(const struct backend_ops *ops, struct backend_edit *e, const char *path);
int backend_edit_rmdir(const struct backend_ops *ops, struct backend_edit *e, const char *path);
int backend_edit_set_meta(const struct backend_ops *ops, struct backend_edit *e, const char *path,
			  const struct plan_meta *m);
int backend_edit_file_open(const struct backend_ops *ops, struct backend_edit *e,
			   const char *path, int create, int trunc, struct backend_edit_file **out);
int backend_edit_file_pwrite(const struct backend_ops *ops, struct backend_edit_file *f,
			     const void *buf, size_t n, uint64_t off);
int backend_edit_file_truncate(const struct backend_ops *ops, struct backend_edit_file *f,
			       uint64_t size);
int backend_edit_file_close(const struct backend_ops *ops, struct backend_edit_file *f);

/*
 * For the backends: set b->errmsg from fmt; returns ret (a negative
 * errno), so that `return backend_set_err(b, -E, ...)` reads as one.
 * Each backend's own setter (ext4_set_err, mnt_err, lfs_err) is this.
 */
int backend_set_err(struct backend *b, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
