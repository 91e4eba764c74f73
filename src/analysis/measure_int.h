/* measure_int.h - inside measure: the walk's tallies, the figures, measure_run()'s steps */
#ifndef IMPRINT_MEASURE_INT_H
#define IMPRINT_MEASURE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "plan/plan.h"
#include "analysis/content_stats.h"
#include "read/fsread.h"
#include "analysis/diskmap.h"
#include "analysis/measure.h"
#include "analysis/fit.h"

/* Files-per-directory bins shown without a configuration (as the default model's). */
#define MEASURE_FPD_BINS 28
/* Permission bits told apart (07777 + 1). */
#define MEASURE_MODES 4096
/* Longest extension counted (content_ext_of_path: longer ones are none). */
#define MEASURE_EXT_LEN 64

/* Distinct extensions met, by hash. */
struct mext {
	char **name;
	uint64_t *files;
	size_t n, cap;
	uint64_t *slot; /* index + 1; 0 is empty */
	size_t nslot;
};

/* Extended attributes and ACLs of the entries walked (measure_walk.c) */
struct measure_meta {
	uint64_t entries;             /* inodes with any attribute */
	uint64_t user, security, system, trusted;
	uint64_t in_inode, in_block;  /* images: attributes by where they are stored */
	uint64_t block_refs;          /* images: inodes with an xattr block */
	uint64_t *blocks;             /* their block numbers, for the distinct count */
	size_t nblocks, blocks_cap;
	uint64_t shared_blocks;       /* distinct blocks, counted at the end */
	uint64_t acl_access, acl_default;
	uint64_t unreadable;
	/* preallocated space of regular files */
	uint64_t prealloc_files, unwritten_blocks, beyond_blocks;
	/* inode order: over directories of 2 or more entries, (max - min + 1) / entries of their inode numbers */
	uint64_t dirent_bytes, dir_bytes; /* directories of 2 blocks or more: records (8 + name, to 4;
					   * dots 24), sizes */
	uint64_t fill_dirs;
	/* directories of 2 data blocks or more (where the reader gives their extents): their
	 * count, those in more than one run, their block pairs and the contiguous ones */
	uint64_t dl_dirs, dl_frag, dl_pairs, dl_contig, dl_runs;
	uint64_t spread_dirs;
	double spread_median, spread_p90, spread_tight; /* tight: share with a spread of 1 (consecutive) */
};

struct mstate {
	const struct measure_opts *o;
	struct fsread *fs;
	FILE *ext_out;
	int ret;

	/* regular files, once per inode */
	uint64_t nfiles, fcap;
	uint64_t *size;
	int64_t *mtime;
	uint16_t *depth;
	uint32_t *dir;
	uint32_t *ext;

	/* directories (root first), their model depth and files */
	uint32_t ndirs, dcap;
	uint16_t *ddepth;
	uint32_t *dnfiles;
	uint64_t *dmin, *dmax; /* inode numbers of each directory's entries: smallest, largest */
	uint32_t *dcnt;        /* and how many */
	uint64_t *dent, *dsize; /* bytes their records need (dots included); the directory's size */
	uint32_t *dsub;         /* subdirectories */
	uint32_t *stack; /* directory index by entry depth */
	size_t stack_cap;

	unsigned skip_below; /* skipping the entries deeper than this ... */
	int skipping;	     /* ... (lost+found in the root) */

	uint64_t hardlinks, symlinks, others, bytes, skipped;
	uint64_t fifos, sockets, chardevs, blockdevs; /* of others, by type */
	struct measure_meta meta;
	uint64_t sparse_files, hole_blocks; /* files with holes; their unmapped blocks */
	int64_t max_mtime;
	struct measure_layout lay;
	struct mext ext_tab;
	uint64_t name_len[2][256];   /* names of [0] regular files (hard links too), [1] directories,
				      * by length (255: longer) */
	struct html_map map;         /* --html: the disk map (map.cnt NULL: none) */
	/* every entry but the root (regular files once): owners; modes of files and directories */
	uint64_t owned, root_owned;
	uint64_t mode_file[MEASURE_MODES], mode_dir[MEASURE_MODES];
	/* every name but the root's (hard links' too) by length, as a profile counts them:
	 * [0] others without extension, [1] files and links with one, [2] directories */
	uint64_t name_len_ext[3][256];
};

/* After the walk: the distinct xattr blocks, directory fill, the inode spread of the directories. */
void measure_meta_finish(struct mstate *m, unsigned block_size);

struct mresult {
	const char *target;
	int image;
	const char *reader; /* fsread_reader(): "ext2", "mounted", "loop" */
	const char *kind;   /* fsread_kind() */
	unsigned block_size;
	uint64_t total_blocks;
	uint64_t *sorted_size; /* ascending */
	int64_t *ages;	       /* seconds before ref, ascending */
	int64_t age_ref;
	uint64_t size_hist[MEASURE_BUCKETS + 1]; /* [0] empty files, [b + 1] log2 bucket b */
	uint64_t depth_files[REPORT_DEPTHS + 1]; /* every file; last: deeper */
	unsigned max_file_depth, max_dir_depth;
	uint64_t fpd[MEASURE_FPD_BINS + 2]; /* every directory */
	size_t *ext_order;		    /* extension table ids, most files first */
	int have_free;
	int have_layout;     /* the reader gave extents */
	uint64_t unreadable; /* entries not read for want of permission */
	struct measure_free fr;

	/* --against */
	int against;
	struct report rep;
	uint64_t special_dirs, special_files;
	uint64_t sparse_files_target, hole_blocks_target;
	const struct params *p;
	struct size_model sm;  /* against's size law */
};

/* What r says of the file system fs and its name (label, of len bytes, holds it with a partition). */
void measure_result_init(struct mresult *r, struct fsread *fs, const char *target, char *label,
			 size_t len);

/*
 * Read an image's free extents (fs opened with FSREAD_FREE) into fr, in
 * chunks of chunk_bytes, and onto map when it has cells (may be NULL).
 * Returns 0 or a negative errno, the message printed (target names it).
 */
int measure_free_read(struct fsread *fs, uint64_t chunk_bytes, const char *target,
		      struct measure_free *fr, struct html_map *map);

/* ---- measure_walk.c: measure_on_entry() is fsread_walk()'s callback, arg a struct mstate */

int measure_on_entry(struct fsread *fs, const struct fsread_entry *e, void *arg);
void measure_mstate_release(struct mstate *m);

/* ---- measure_result.c: measure_compute() fills r from the tallies in m; 0 or a negative errno */

void measure_mresult_release(struct mresult *r);
int measure_compute(struct mresult *r, struct mstate *m, const struct measure_opts *o);

/* ---- measure_fit.c: the fit lines of the tables and parameters p sets (special: the special
 * directories, by directory index); 0 or -ENOMEM */

int measure_fit_extras(struct report *rep, const struct mresult *r, const struct mstate *m,
		       const struct params *p, const uint8_t *special);

#endif
