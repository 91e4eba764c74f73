/* state.h - what the parts of the ext2/3/4 backend share: its state, messages, progress (not for the core) */
#ifndef IMPRINT_BACKENDS_EXT4_STATE_H
#define IMPRINT_BACKENDS_EXT4_STATE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <ext2fs/ext2fs.h>

#include "backends/backend.h"
#include "backends/ext4/data.h"
#include "backends/ext4/dir.h"
#include "backends/ext4/map.h"
#include "backends/ext4/stats.h"
#include "layout/layout.h"
#include "plan/plan.h"
#include "util/strutil.h"

#define EXT4_CHECK_EVERY   4096 /* entries between interrupt and progress checks */
#define EXT4_WAIT_MS	   200	/* progress period while the data workers run */
#define EXT4_MKE2FS_ERRMAX 2048 /* bytes of mke2fs' stderr kept for the message */

/* What open() leaves for populate(), finish() and abort(). */
struct ext4_state {
	ext2_filsys fs;
	int data_fd;
	char *target;
	uint64_t offset; /* --partition: where the file system starts in target, else 0 */
	unsigned jobs;
	enum data_io data_io; /* --direct-io, or IMPRINT_DIRECT_IO: 0 off, auto, else on */
	volatile sig_atomic_t *cancel; /* the core sets it on SIGINT/SIGTERM */
	struct ext4_build *x;	       /* from layout_request() to populate() */
	void (*progress)(void *ctx, uint64_t files_done, uint64_t bytes_done);
	void *progress_ctx;
	int formatted; /* mke2fs ran here: abort() wipes its superblock */
	int populated;
	ext2_ino_t lpf_ino; /* lost+found, 0 if none */
	uint64_t kib_written; /* s_kbytes_written when opened (mke2fs's count) */
	blk64_t used_blocks;  /* blocks in use when opened */
	struct timespec t0;
};

/* A directory's entries, names in one arena. */
struct ext4_ents {
	struct ext4_dirent_in *e;
	size_t *off;
	size_t n, cap;
	char *names;
	size_t len, ncap;
};

/* Everything populate() works with. */
struct ext4_xshare;

struct ext4_build {
	struct backend *b;
	struct ext4_state *st;
	ext2_filsys fs;
	const struct plan *pl;
	const struct content_source *cs;
	ext2_ino_t ino_next; /* every inode from the first to this one's predecessor is in use */
	uint32_t bs;
	int extents;	/* map with extents (else direct/indirect blocks) */
	int inline_ok;	/* small files go inline */
	unsigned isize; /* on-disk inode size */
	unsigned extra; /* i_extra_isize written; 0 with 128-byte inodes */
	uint64_t nsym;	/* symlinks (links that take an inode) */

	ext2_ino_t *dir_ino, *file_ino, *link_ino;
	uint32_t *nsub; /* subdirectories per directory */
	struct ext4_dir_shape *shape;
	uint64_t *file_blocks;	/* allocated data blocks (holes not counted) */
	uint8_t *file_holes;	/* sparse files: holes per file; NULL when none can be */
	uint64_t *file_lblocks; /* sparse files: logical blocks, holes included */
	uint64_t sparse_files, hole_blocks;
	uint64_t prealloc_files, unwritten_blocks; /* preallocated: files, blocks (beyond the end too) */
	uint32_t *dir_blocks; /* data + mapping blocks per directory */
	uint8_t *link_blocks;

	const struct layout *lo; /* the core's, from our layout request */
	struct ext4_pool pool;
	struct ext4_map map;
	struct ext4_stats stats; /* inodes and blocks taken (flushed after each pass) */
	struct ext4_ents ents;
	unsigned char *ibuf; /* one on-disk inode */
	/*
	 * The inode-table blocks being filled (write.c): the inodes go in here
	 * and the blocks are written once for all of them, not once an inode.
	 */
	unsigned char *iblk;
	blk64_t iblk_nr; /* the first block's number; 0: none held */
	unsigned iblk_n; /* blocks held */
	/* blocks [iblk_lo, iblk_hi) of them changed, when iblk_dirty */
	unsigned iblk_lo, iblk_hi;
	int iblk_dirty; /* holds inodes not yet written to fs->io */
	int iblk_off;	/* for tests: every inode through libext2fs */
	int dirs_by_block; /* write_metadata() walks the directories by block (write.c) */
	size_t stage_bytes; /* for tests: the data workers' pool for directory blocks, 0 default */
	/* entries of directories 0..keep_dirs-1 kept from the shape pass for write_dir (state.c) */
	unsigned char *keep;
	size_t keep_len, keep_cap, keep_pos, keep_budget;
	uint32_t keep_dirs;
	uint32_t *keep_at; /* offset of directory j's entries in keep, made at the first take */
	unsigned char *buf;  /* directory blocks, a symlink block */
	size_t buf_cap;
	struct layout_extent *druns;
	uint64_t *dmeta;
	size_t dcap;
	char *tbuf; /* a symlink target, block size bytes */
	struct ext4_data data;
	uint64_t meta_files; /* files whose inode is written, for progress */
	uint64_t inline_bytes; /* bytes of the inline files written (in their inodes), for progress */

	/* extended attributes (xattr.c) */
	struct plan_xattrs *xattrs;  /* one entry's, while they are written */
	struct ext4_xshare *xshare;  /* blocks shared by identical sets */
	uint64_t xattr_inodes, xattr_entries;
	uint64_t xattr_blocks, xattr_blocks_ref; /* distinct blocks; inodes pointing to one */
};

/* Set b->errmsg from fmt; returns ret, so that `return ext4_set_err(b, -E, ...)` reads as one. */
#define ext4_set_err(b, ret, ...) backend_set_err((b), (ret), __VA_ARGS__)

/* Sizes in the backend's messages: "1.2 GiB", PiB at most (fmt_bytes()). */
#define EXT4_BYTES (FMT_BYTES_DIGITS(1) | FMT_BYTES_PIB)

/* Seconds since t0 (CLOCK_MONOTONIC). */
double ext4_elapsed(const struct timespec *t0);

/*
 * The entries of directory j into d (subdirectories, files, links, and
 * lost+found in the root).  Returns 0 or -ENOMEM.  Reads only the plan
 * and x's inode numbers: threads may collect at once, each into its own d.
 */
int ext4_collect_into(const struct ext4_build *x, struct ext4_ents *d, uint32_t j);

/* ext4_collect_into() x->ents. */
int ext4_collect_entries(struct ext4_build *x, uint32_t j);

/* How many entries ext4_collect_into() gives directory j. */
uint64_t ext4_dir_entries(const struct ext4_build *x, uint32_t j);
void ext4_ents_release(struct ext4_ents *d);

/*
 * Bytes of entries kept from the shape pass (x->keep_budget).  For tests,
 * IMPRINT_TEST_EXT4_PLAIN set keeps none and writes every inode, and
 * every directory and symlink block, through libext2fs, the directories
 * in id order; IMPRINT_TEST_EXT4_KEEP=N keeps N bytes at most, and
 * IMPRINT_TEST_EXT4_STAGE=N gives the data workers N bytes for directory
 * and symlink blocks (ext4_data_stage()) instead of EXT4_DATA_STAGE_BYTES.
 */
#define EXT4_KEEP_BUDGET (32u << 20)

/*
 * Bytes of directory d's entries as kept (its record), or 0 when they
 * cannot be kept (a name over 255 bytes, too many entries).
 */
size_t ext4_keep_size(const struct ext4_ents *d);

/* Directory j's record of d into p (ext4_keep_size() bytes). */
void ext4_keep_put(const struct ext4_ents *d, uint32_t j, unsigned char *p);

/*
 * After the shape pass made directory j's record rec (len bytes, 0: none):
 * keep a copy for write_dir, when j follows the directories kept so far
 * and the copy fits in x->keep_budget (nothing is kept after the first
 * that does not).  Memory failures only stop the keeping.  Returns 1 if
 * kept, else 0.
 */
int ext4_keep_add(struct ext4_build *x, uint32_t j, const unsigned char *rec, size_t len);

/*
 * The entries of directory j into x->ents: the kept ones when j is the
 * next kept directory (names pointing into the kept copy, valid until
 * ext4_keep_release()), else ext4_collect_entries().  0 or -ENOMEM.
 */
int ext4_kept_entries(struct ext4_build *x, uint32_t j);
void ext4_keep_release(struct ext4_build *x);

/* Grow x->buf to at least len bytes.  Returns 0 or -ENOMEM. */
int ext4_buf_reserve(struct ext4_build *x, size_t len);

/* Path of directory dir, or of the entry name in it, into buf, for messages; returns buf. */
const char *ext4_entry_path(const struct ext4_build *x, uint32_t dir, const char *name, char *buf,
			    size_t len);

/* Report progress to the core's callback, if any. */
void ext4_progress(struct ext4_build *x);

/* Whether the core's cancellation token is set. */
int ext4_cancelled(const struct ext4_state *st);

/* Every EXT4_CHECK_EVERY entries (i): -EINTR when cancelled, else progress and 0. */
int ext4_tick(struct ext4_build *x, uint64_t i);

/* Allocate x's per-entry arrays for x->pl on x->fs.  Returns 0 or -ENOMEM (message set). */
int ext4_build_init(struct ext4_build *x);
void ext4_build_release(struct ext4_build *x);

/* What ext4_each_inode() does with each entry that takes an inode. */
struct ext4_inode_steps {
	int (*dir)(struct ext4_build *x, uint32_t j);
	int (*file)(struct ext4_build *x, uint64_t f);
	int (*symlink)(struct ext4_build *x, uint32_t l);
};

/*
 * Every entry that takes an inode, in the order inode numbers follow
 * directory locality: each directory j (s->dir), then its files (s->file,
 * then ext4_tick() on the count of files so far), then its symlinks
 * (s->symlink; hard links take no inode).  Returns 0 or the first nonzero
 * value a step returned (the walk stops there).
 */
int ext4_each_inode(struct ext4_build *x, const struct ext4_inode_steps *s);

/*
 * The same walk with the directories in order[0..ndirs-1] (a permutation
 * of their ids) instead of by id: each still followed by its files and
 * symlinks.
 */
int ext4_each_inode_in(struct ext4_build *x, const struct ext4_inode_steps *s,
		       const uint32_t *order);

/*
 * Mark the blocks of fs's root directory free in its block bitmap (the
 * root is rebuilt at the layout's blocks).  Returns 0 or libext2fs' error.
 */
errcode_t ext4_free_root_blocks(ext2_filsys fs);

/*
 * Call fn(start, len, arg) for each run of free blocks in fs's block
 * bitmap, in block order from s_first_data_block to the last block.
 * Returns 0, or the first nonzero value fn returned (the walk stops there).
 */
int ext4_free_runs(ext2_filsys fs, int (*fn)(blk64_t start, blk64_t len, void *arg), void *arg);

/*
 * fm from fs as it stands: its geometry (blocks, groups, flex groups) and
 * the free runs of its block bitmap (fm->runs, the caller frees it).
 * Returns 0 or -ENOMEM (fm->runs NULL).
 */
int ext4_read_freemap(ext2_filsys fs, struct freemap *fm);

/* Release and free st->x, if any. */
void ext4_build_free(struct ext4_state *st);

#endif
