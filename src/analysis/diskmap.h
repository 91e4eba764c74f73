/* diskmap.h - the disk map: which blocks hold contiguous data, fragmented data, free space */
#ifndef IMPRINT_DISKMAP_H
#define IMPRINT_DISKMAP_H

#include <stdint.h>

/* The disk map's cell classes. */
enum html_map_class {
	HTML_MAP_CONTIG,   /* data of files in one fragment */
	HTML_MAP_FRAG,     /* data of fragmented files */
	HTML_MAP_FREE,     /* free blocks */
	HTML_MAP_CLASSES,
	/* the rest of a cell: metadata (images), or not known (mounted trees) */
};

/*
 * A map of the blocks: rows of row_blocks blocks (a block group, or
 * several when there are very many), each drawn as cells of cell_blocks
 * blocks coloured by the class holding most of its blocks.  Bounded:
 * at most about HTML_MAP_CELLS cells, whatever the size.
 */
#define HTML_MAP_CELLS (256u * 1024u)

struct html_map {
	uint64_t total_blocks, group_blocks, row_blocks, cell_blocks;
	uint64_t rows, cells_per_row, ncells;
	uint64_t outside;               /* blocks added beyond total_blocks (ignored) */
	int known_rest;                 /* the rest of a cell is metadata, not unknown */
	uint32_t (*cnt)[HTML_MAP_CLASSES];
};

/*
 * Start a map of total_blocks blocks in groups of group_blocks (0: none
 * known; rows of 32768 blocks).  known_rest: what no class covers is
 * metadata (an image, whose free space is known), else unknown.  Returns
 * 0, -EINVAL (no blocks) or -ENOMEM.
 */
int html_map_init(struct html_map *m, uint64_t total_blocks, uint64_t group_blocks,
		  int known_rest);
void html_map_release(struct html_map *m);

/* Count blocks [start, start + len) as class c. */
void html_map_add(struct html_map *m, uint64_t start, uint64_t len, enum html_map_class c);

#endif
