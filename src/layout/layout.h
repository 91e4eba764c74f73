/* layout.h - where every block goes: placement on a free-space map, backend-independent */
#ifndef IMPRINT_LAYOUT_H
#define IMPRINT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

struct age_trace;

/* A run of free blocks. */
struct free_run {
	uint64_t start, len;
};

/*
 * The free space a backend hands over: maximal free runs, sorted and
 * disjoint, and the group geometry the allocator policy follows.
 */
struct freemap {
	uint64_t nblocks;          /* blocks in the file system */
	uint64_t first_data_block; /* 1 for 1 KiB blocks, else 0 */
	uint32_t blocks_per_group;
	uint32_t ngroups;
	uint32_t flex_groups;      /* groups per flex group, 1 without flex_bg */
	size_t nruns;
	struct free_run *runs;
};

/* How a file's blocks are mapped, which decides its metadata blocks. */
enum layout_mapping {
	LAYOUT_EXTENTS,  /* ext4 extents: 4 in the inode, then packed tree blocks */
	LAYOUT_BLOCKMAP, /* ext2/3: 12 direct, then single/double/triple indirect */
};

/* What the backend asks to place; arrays indexed by plan ids. */
struct layout_request {
	const struct plan *pl;
	const uint64_t *file_blocks;  /* data blocks per file (0: empty or inline) */
	const uint32_t *dir_blocks;   /* directory blocks per directory (root included) */
	const uint8_t *link_blocks;   /* 1 for a slow symlink, else 0 */
	/*
	 * Sparse files (NULL when the plan has none): holes per file, which
	 * split its runs into more extents, and its logical blocks (holes
	 * included), which size a block map.  The layout places only the
	 * file_blocks allocated blocks; metadata is sized for the worst case
	 * (every hole inside a run) and what is not used stays free.
	 */
	const uint8_t *file_holes;
	const uint64_t *file_lblocks;
	uint32_t block_size;
	enum layout_mapping mapping;
	uint32_t max_extent_len;      /* longest extent, blocks (32768 for ext4) */
	double layout_score;          /* target in (0, 1]; 1 = every file contiguous */
	uint64_t pool_blocks;         /* spare metadata blocks to reserve */
	uint64_t seed;

	/*
	 * How fragmentation is spread, the free space's shape, the order and
	 * aging (doc/model.md, "Layout").  layout_request_set_params() copies
	 * them from the parameters; a zeroed request means: auto spread,
	 * directory order, no planned gaps, no aging.
	 */
	enum layout_order order;
	double frag_file_share;       /* 0 = auto */
	double frag_extents;          /* 0 = auto, else >= 2 */
	enum frag_select frag_select;
	enum frag_sizes frag_sizes;
	double frag_size_sigma;       /* <= 0: 1 */
	double free_frag_share;       /* in [0, 1); 0 = no gaps */
	uint64_t free_chunk;          /* bytes, a power of two; 0 = 1 MiB */
	uint64_t free_gap_min;        /* bytes; 0 = one block */
	double free_gap_shape;        /* exponent of the gap size density */
	uint32_t age_rounds;          /* 0 = no aging */
	double age_churn;             /* share of live files replaced per round; <= 0: 0.1 */
	uint32_t age_stream_req;      /* blocks: files up to this use the locality group */
	uint32_t age_group_prealloc;  /* blocks of a locality-group preallocation; 0: 512 */
	int age_scaled_sizes;         /* 'files' and 'used' both given: temporaries scale as the plan */
	const struct age_trace *age_trace; /* sees every aging operation, or NULL */
	double dir_frag_share;        /* directories of two or more blocks split apart (dirfrag.h) */
};

/* Data blocks of file f, blocks of directory j, of symlink l under rq (0 without the array). */
static inline uint64_t layout_file_blocks(const struct layout_request *rq, uint64_t f)
{
	return rq->file_blocks ? rq->file_blocks[f] : 0;
}

static inline uint64_t layout_dir_blocks(const struct layout_request *rq, uint32_t j)
{
	return rq->dir_blocks ? rq->dir_blocks[j] : 0;
}

static inline uint64_t layout_link_blocks(const struct layout_request *rq, uint32_t l)
{
	return rq->link_blocks ? rq->link_blocks[l] : 0;
}

/* The longest extent under rq in blocks: 32768 for extents left at 0, else max_extent_len. */
static inline uint64_t layout_max_ext(const struct layout_request *rq)
{
	if (rq->mapping == LAYOUT_EXTENTS && !rq->max_extent_len)
		return 32768;
	return rq->max_extent_len;
}

/*
 * frag_select = type's group of an extension (no dot): 0 files that grow in
 * place (logs, mailboxes, databases, disk images), 1 media, 2 archives and
 * binaries, 3 the rest.
 */
unsigned layout_ext_group(const char *e);

/* Copy the layout and aging parameters of p into rq (the rest untouched). */
void layout_request_set_params(struct layout_request *rq, const struct params *p);

/* One physical run of a file's data, in logical order. */
struct layout_extent {
	uint64_t pblk;
	uint64_t len;
};

/*
 * The result.  File f's data runs are ext[file_ext[f]] .. ext[file_ext[f+1]-1],
 * maximal (two consecutive runs are never physically adjacent) and in
 * logical order; a run may be longer than max_extent_len (the backend
 * splits it into extents).  The metadata blocks a file needs for its
 * mapping (extent tree blocks, indirect blocks) are file_nmeta[f]
 * consecutive blocks from file_meta[f].  Directory j's blocks are
 * dir_blocks[j] consecutive blocks from dir_start[j]; a slow symlink's
 * block is link_block[l] (a split directory's runs are in dext: see
 * layout_dir_runs()).  pool_start..pool_start+pool_len-1 are reserved
 * for metadata the backend did not foresee.  No two blocks overlap, and
 * every block was free in the map.
 */
struct layout {
	uint64_t nfiles;
	uint64_t *file_ext;     /* nfiles + 1 */
	struct layout_extent *ext;
	uint64_t next;
	uint64_t *file_meta;
	uint32_t *file_nmeta;
	uint64_t *dir_start;
	uint64_t *link_block;
	/*
	 * Split directories (dir_frag_share): directory j's runs, in logical
	 * order, are dext[dir_ext[j]] .. dext[dir_ext[j+1]-1] (maximal; the
	 * first starts at dir_start[j]).  Both NULL when no directory is split.
	 */
	uint64_t *dir_ext;
	struct layout_extent *dext;
	uint64_t pool_start, pool_len;
	uint64_t blocks_used;   /* data + metadata + pool */
	double score;           /* achieved image-wide layout score of the files */

	/* what was achieved beside the score, and what gave way (LAYOUT_NOTE_*) */
	uint32_t notes;
	uint64_t frag_eligible;  /* files of two or more blocks */
	uint64_t frag_files;     /* of them, in more than one run */
	uint64_t frag_runs;      /* runs of those files */
	uint64_t gap_blocks;     /* free blocks deliberately left between files */
	double target;           /* the score aimed at (the request's, at most 1) */
	double free_small_share; /* free_frag_share > 0: the share reached (pool counted free) */
	uint64_t age_temps;      /* aging: temporary files created (and deleted) */
	uint64_t age_dropped;    /* aging: temporaries that found no room, never created */
	uint64_t age_forced;     /* aging: temporaries deleted early to make room */

	/* directories of two or more blocks (layout_dir_tally()) */
	uint64_t dir_eligible;   /* directories of two or more blocks */
	uint64_t dir_frag;       /* of them, in more than one run */
	uint64_t dir_pairs, dir_contig; /* their block pairs, and the contiguous ones */
	double dir_score;        /* dir_contig / dir_pairs; 1 without pairs */
};

/* Why a target was not met as asked (struct layout.notes). */
#define LAYOUT_NOTE_SHARE     0x01 /* frag_file_share gave way to the score */
#define LAYOUT_NOTE_EXTENTS   0x02 /* frag_extents gave way to the score (or the share) */
#define LAYOUT_NOTE_FREE      0x04 /* the free-space shape could not be reached in full */
#define LAYOUT_NOTE_AGED      0x08 /* aged: score, spread, free-space and order targets unused */
#define LAYOUT_NOTE_LOST      0x10 /* some breaks were impossible: the score is off the target */
#define LAYOUT_NOTE_IGNORED   0x20 /* aged, and the request set some of those targets */

/*
 * lo's notes as user-ready text ("; " between clauses, no final full
 * stop) into buf of len bytes, e.g. "'frag_file_share' gave way to
 * 'layout_score' (12.5 % of the files of two or more blocks are
 * fragmented)".  Returns the length it needed, 0 when there is nothing to
 * say (aging alone is not worth a note).
 */
size_t layout_notes_text(const struct layout *lo, char *buf, size_t len);

/* A free-extent histogram as e2freefrag prints it: bucket b, extents of [2^b, 2^(b+1)) blocks. */
#define LAYOUT_HIST_BUCKETS 64
struct layout_free_hist {
	uint64_t count[LAYOUT_HIST_BUCKETS];
	uint64_t blocks[LAYOUT_HIST_BUCKETS];
	uint64_t free_blocks, extents;
	uint64_t chunk_blocks;   /* chunk size in blocks */
	uint64_t free_chunks;    /* aligned chunks (from block 0) wholly free */
	uint64_t small_blocks;   /* free blocks in extents below chunk_blocks */
};

/*
 * The free space fm leaves once lo (built for rq) is placed, with lo's
 * pool counted as free (the backend takes little of it): maximal free
 * extents, bucketed as e2freefrag does.
 * chunk_bytes 0 means 1 MiB.  Returns 0, -EINVAL, -ENOMEM.
 */
int layout_free_hist(const struct layout *lo, const struct layout_request *rq,
		     const struct freemap *fm, uint64_t chunk_bytes, struct layout_free_hist *h);

/*
 * Count a free extent of n blocks from block s into h: its bucket, and the
 * chunks of h->chunk_blocks (which must be set) aligned on block 0 that it
 * holds wholly.  Extents touching each other must be added as one.
 */
void layout_free_hist_add(struct layout_free_hist *h, uint64_t s, uint64_t n);

/* Fill lo's score, frag_eligible, frag_files and frag_runs from its runs. */
void layout_tally(struct layout *lo);

/*
 * Metadata blocks a file of `blocks` data blocks in `extents` extents needs
 * under mapping m (ext4: 0 when extents <= 4, else a packed tree; ext2/3:
 * the indirect blocks).  epb/apb are derived from block_size.
 */
uint64_t layout_meta_blocks(enum layout_mapping m, uint32_t block_size, uint64_t blocks,
			    uint64_t extents);

/*
 * Metadata blocks file f (UINT64_MAX: a file outside the plan, never
 * sparse) of n allocated blocks in E extents needs under rq: as
 * layout_meta_blocks(), sparse files sized for their holes.
 */
uint64_t layout_file_meta(const struct layout_request *rq, uint64_t f, uint64_t n, uint64_t E);

/* Metadata blocks file f of n data blocks needs when contiguous: the least it can (0 for n = 0). */
uint64_t layout_contig_meta(const struct layout_request *rq, uint64_t f, uint64_t n);

/* What a request needs before any placement choice: every file contiguous. */
struct layout_need {
	uint64_t data;  /* data blocks */
	uint64_t meta;  /* mapping metadata of the files, each contiguous */
	uint64_t dirs;  /* directory blocks */
	uint64_t links; /* slow symlink blocks */
	uint64_t pairs; /* block pairs of the files (blocks - 1 for two or more) */
	uint64_t nne;   /* files with data */
	uint64_t free;  /* free blocks in the map */
	uint64_t base;  /* data + meta + dirs + links + the pool */
};

/* Count what rq needs, and the free blocks of fm, into *n (for the strategies). */
void layout_need_count(struct layout_need *n, const struct layout_request *rq,
		       const struct freemap *fm);

/*
 * Allocate lo's per-file (nfiles set), per-directory and per-symlink arrays
 * for pl, zeroed; not the runs (ext).  Returns 0 or -ENOMEM (release lo
 * with layout_release() in both cases).
 */
int layout_arrays_alloc(struct layout *lo, const struct plan *pl);

/* A strategy's last step: lo's blocks_used from n and lo's metadata, then layout_tally(). */
void layout_finish(struct layout *lo, const struct layout_need *n);

/*
 * Place everything.  Returns 0; -ENOSPC when it does not fit, with *need
 * set to the blocks required (data + metadata + pool); -ENOMEM.
 */
int layout_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
		 uint64_t *need);
void layout_release(struct layout *lo);

/*
 * Directory j's runs under rq, in logical order: *runs points into lo's
 * dext, or at *one (set to the single run from dir_start) for a whole
 * directory.  Returns how many (0 for a directory without blocks).
 */
size_t layout_dir_runs(const struct layout *lo, const struct layout_request *rq, uint32_t j,
		       struct layout_extent *one, const struct layout_extent **runs);

/* Fill lo's dir_* tallies and dir_score from the directories' runs. */
void layout_dir_tally(struct layout *lo, const struct layout_request *rq);

/*
 * Image-wide layout score (Smith & Seltzer): contiguous block pairs over
 * (blocks - 1), summed over files of two or more blocks; 1 when none has.
 */
double layout_score_of(const struct layout *lo);

#endif
