/* diskmap.c - the disk map the walks collect: blocks by class, counted in bounded cells */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diskmap.h"

/* Rows of a map without block groups (mounted trees): ext4's default group. */
#define MAP_ROW_BLOCKS 32768u
/* Cells a row at most (the page wraps a row in lines of 1024). */
#define HTML_MAP_ROW_CELLS 8192u
/* Rows at most: beyond it a row holds several groups. */
#define MAP_MAX_ROWS 2048u

int html_map_init(struct html_map *m, uint64_t total_blocks, uint64_t group_blocks,
		  int known_rest)
{
	uint64_t per_row;

	memset(m, 0, sizeof(*m));
	if (!total_blocks)
		return -EINVAL;
	m->total_blocks = total_blocks;
	m->group_blocks = group_blocks;
	m->known_rest = known_rest;
	m->row_blocks = group_blocks ? group_blocks : MAP_ROW_BLOCKS;
	if (m->row_blocks > total_blocks)
		m->row_blocks = total_blocks;
	m->rows = (total_blocks + m->row_blocks - 1) / m->row_blocks;
	if (m->rows > MAP_MAX_ROWS) {
		uint64_t k = (m->rows + MAP_MAX_ROWS - 1) / MAP_MAX_ROWS;

		m->row_blocks *= k;
		m->rows = (total_blocks + m->row_blocks - 1) / m->row_blocks;
	}
	per_row = HTML_MAP_CELLS / m->rows;
	if (per_row > HTML_MAP_ROW_CELLS)
		per_row = HTML_MAP_ROW_CELLS;
	if (per_row > m->row_blocks)
		per_row = m->row_blocks;
	m->cell_blocks = (m->row_blocks + per_row - 1) / per_row;
	m->cells_per_row = (m->row_blocks + m->cell_blocks - 1) / m->cell_blocks;
	m->ncells = m->rows * m->cells_per_row;
	m->cnt = calloc(m->ncells, sizeof(*m->cnt));
	return m->cnt ? 0 : -ENOMEM;
}

void html_map_release(struct html_map *m)
{
	free(m->cnt);
	m->cnt = NULL;
}

void html_map_add(struct html_map *m, uint64_t start, uint64_t len, enum html_map_class c)
{
	if (!m->cnt || c >= HTML_MAP_CLASSES)
		return;
	if (start >= m->total_blocks || len > m->total_blocks - start) {
		uint64_t in = start >= m->total_blocks ? 0 : m->total_blocks - start;

		m->outside += len - in;
		len = in;
	}
	while (len) {
		uint64_t row = start / m->row_blocks, off = start % m->row_blocks;
		uint64_t cell = row * m->cells_per_row + off / m->cell_blocks;
		uint64_t room = m->cell_blocks - off % m->cell_blocks, n = len < room ? len : room;

		/* the row's last cell may be shorter: off never passes row_blocks */
		if (off + n > m->row_blocks)
			n = m->row_blocks - off;
		m->cnt[cell][c] += (uint32_t)n;
		start += n;
		len -= n;
	}
}
