/* measure.h - `imprint measure`: distributions, layout and free space of a file system */
#ifndef IMPRINT_MEASURE_H
#define IMPRINT_MEASURE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "read/fsread.h"
#include "model/params.h"

/* Power-of-two buckets: bucket b holds values in [2^b, 2^(b+1)) (b = floor(log2 v)). */
#define MEASURE_BUCKETS 64

/* floor(log2(v)) for v >= 1; 0 for v = 0. */
unsigned measure_log2(uint64_t v);

/*
 * The image-wide layout score (Smith & Seltzer, doc/model.md): over the
 * files of two or more blocks, the block pairs (logically consecutive
 * blocks of a file) that sit physically next to each other, over all
 * such pairs.  Fragments are the runs of a file once physically adjacent
 * runs are merged (flags and logical holes aside).
 */
struct measure_layout {
	uint64_t pairs, contiguous;      /* the score is contiguous / pairs */
	uint64_t files;                  /* files of two or more blocks */
	uint64_t fragmented;             /* of them, in more than one fragment */
	uint64_t fragments;              /* fragments of every file (0 for an empty one) */
	uint64_t frag_fragments;         /* fragments of the fragmented files */
	uint64_t frag_blocks;            /* blocks of the fragmented files */
	uint64_t max_fragments;
	uint64_t per_file[34];           /* files by fragments: 0..32, then more */
	uint64_t frag_size[MEASURE_BUCKETS]; /* fragments of fragmented files by blocks (log2) */
};

/* Add one file's extents (sorted by logical block); returns its fragments. */
uint64_t measure_layout_add(struct measure_layout *l, const struct fsread_extent *ext, size_t n);

/* contiguous / pairs; 1 when no file has two blocks. */
double measure_layout_score(const struct measure_layout *l);

/*
 * Free space as e2freefrag counts it: the free extents (maximal runs of
 * free blocks, across groups) in buckets of [2^b, 2^(b+1)) blocks, and the
 * chunks of chunk_blocks blocks, aligned on block 0 and wholly inside the
 * file system, that are wholly free (blocks before first_data_block count
 * as used).
 */
struct measure_free {
	uint64_t count[MEASURE_BUCKETS];
	uint64_t blocks[MEASURE_BUCKETS];
	uint64_t free_blocks, extents;
	uint64_t min_len, max_len;       /* blocks; 0 when no extent */
	uint64_t chunk_blocks, total_chunks, free_chunks;
	uint64_t small_blocks;           /* free blocks in extents shorter than a chunk */
};

/*
 * Fill f from the free runs (sorted, disjoint) of a file system of nblocks
 * blocks.  total_chunks is e2freefrag's (nblocks + chunk) / chunk.
 * Returns 0, or -EINVAL for chunk_blocks 0 or runs out of order or range.
 */
int measure_free_hist(const struct fsread_extent *runs, size_t n, uint64_t nblocks,
		      uint64_t first_data_block, uint64_t chunk_blocks, struct measure_free *f);

/* The value at quantile q (0..1) of sorted v[0..n-1] (nearest rank: v[ceil(q n) - 1]). */
int64_t measure_quantile(const int64_t *v, size_t n, double q);

struct measure_opts {
	int json;
	const struct params *against;    /* compare with this configuration, or NULL */
	const char *against_name;        /* how to name it ("cfg.conf") */
	const char *extents_path;        /* write every file's fragments here, or NULL */
	uint64_t chunk_bytes;            /* free chunks; 0: against's free_chunk, else 1 MiB */
	int partition;                   /* a partitioned disk's partition (from 1); 0: found */
	const char *html_path;           /* also write the --html page here, or NULL */
	struct json_object *html_page;   /* with html_path: the page's figures so far (html.h) */
	struct json_object *json_extra;  /* with json: its keys added to the object (still the caller's), or NULL */
};

struct json_object;

#endif
