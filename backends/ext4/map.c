/* map.c - extent trees and indirect blocks written by hand, at the blocks the layout chose */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/csum.h"
#include "backends/ext4/map.h"
#include "content/sparse.h"
#include "util/array.h"
#include "util/e2err.h"

#define EXT4_MAP_MAX_DEPTH 5 /* the kernel's EXT4_MAX_EXTENT_DEPTH */
#define EXT4_MAP_IN_INODE  4 /* extents (or index entries) in i_block */

void ext4_map_init(struct ext4_map *m)
{
	memset(m, 0, sizeof(*m));
}

void ext4_map_release(struct ext4_map *m)
{
	free(m->meta_blk);
	free(m->meta_buf);
	free(m->ext);
	memset(m, 0, sizeof(*m));
}

static uint32_t extents_per_block(uint32_t block_size)
{
	return (block_size - sizeof(struct ext3_extent_header)) / sizeof(struct ext3_extent);
}

uint64_t ext4_map_meta_count(int extents, uint32_t block_size, uint64_t nblocks, uint64_t nextents)
{
	uint64_t n = 0;

	if (extents) {
		uint64_t epb = extents_per_block(block_size), level = nextents;

		while (level > EXT4_MAP_IN_INODE) {
			level = (level + epb - 1) / epb;
			n += level;
		}
		return n;
	}

	uint64_t apb = block_size / 4, span = apb;

	if (nblocks <= EXT2_NDIR_BLOCKS)
		return 0;
	nblocks -= EXT2_NDIR_BLOCKS;
	/* single, double, triple indirect: one block per apb^k data blocks at each level */
	for (int level = 1; level <= 3 && nblocks; level++) {
		uint64_t here = nblocks < span ? nblocks : span;
		uint64_t per = 1;

		for (int k = 0; k < level; k++) {
			per *= apb;
			n += (here + per - 1) / per;
		}
		nblocks -= here;
		span *= apb;
	}
	return n;
}

uint64_t ext4_map_extent_count(const struct layout_extent *runs, size_t nruns)
{
	uint64_t n = 0;

	for (size_t i = 0; i < nruns; i++)
		n += (runs[i].len + EXT4_MAP_MAX_EXTENT - 1) / EXT4_MAP_MAX_EXTENT;
	return n;
}

static int meta_take(struct ext4_meta_src *src, uint64_t *blk)
{
	if (src && src->used < src->len) {
		*blk = src->list ? src->list[src->used] : src->start + src->used;
		src->used++;
		return 0;
	}
	if (src && src->pool && src->pool->used < src->pool->len) {
		*blk = src->pool->start + src->pool->used++;
		return 0;
	}
	return -ENOSPC;
}

/* A new zeroed metadata block; its index in m is returned in *idx. */
static int meta_new(struct ext4_map *m, uint32_t bs, struct ext4_meta_src *src, uint64_t *idx)
{
	uint64_t blk;
	int ret;

	if (m->nmeta == m->meta_cap) {
		uint64_t cap = m->meta_cap ? m->meta_cap * 2 : 16;

		/* two arrays, one capacity: block numbers and their blocks */
		if (array_resize(&m->meta_blk, cap, sizeof(*m->meta_blk)) ||
		    array_resize(&m->meta_buf, cap, bs))
			return -ENOMEM;
		m->meta_cap = cap;
	}
	ret = meta_take(src, &blk);
	if (ret)
		return ret;
	m->meta_blk[m->nmeta] = blk;
	memset(m->meta_buf + m->nmeta * bs, 0, bs);
	*idx = m->nmeta++;
	return 0;
}

/* Logical-order walk over the physical blocks of a list of runs. */
struct run_cursor {
	const struct layout_extent *runs;
	size_t nruns, r;
	uint64_t off;
};

static uint64_t cursor_next(struct run_cursor *c)
{
	while (c->off >= c->runs[c->r].len) {
		c->r++;
		c->off = 0;
	}
	return c->runs[c->r].pblk + c->off++;
}

static void header_set(struct ext3_extent_header *eh, unsigned entries, unsigned max,
		       unsigned depth)
{
	eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
	eh->eh_entries = ext2fs_cpu_to_le16(entries);
	eh->eh_max = ext2fs_cpu_to_le16(max);
	eh->eh_depth = ext2fs_cpu_to_le16(depth);
	eh->eh_generation = 0;
}

static void index_set(struct ext3_extent_idx *ix, uint32_t lblk, uint64_t pblk)
{
	ix->ei_block = ext2fs_cpu_to_le32(lblk);
	ix->ei_leaf = ext2fs_cpu_to_le32((uint32_t)pblk);
	ix->ei_leaf_hi = ext2fs_cpu_to_le16((uint16_t)(pblk >> 32));
	ix->ei_unused = 0;
}

/*
 * A preallocated file: the blocks from logical block l that share l's
 * state (written or unwritten) up to the next change, and whether l is
 * unwritten (in an unwritten range, or from the end of the file on).
 */
static uint64_t prealloc_span(const struct ext4_map *m, uint32_t bs, uint64_t l, int *unwritten)
{
	uint64_t next = UINT64_MAX;

	*unwritten = l >= m->eof_blocks;
	if (*unwritten)
		return UINT64_MAX;
	next = m->eof_blocks - l;
	for (unsigned i = 0; i < m->pa->unw.n; i++) {
		uint64_t a = m->pa->unw.hole[i].off / bs, b = a + m->pa->unw.hole[i].len / bs;

		if (l >= a && l < b) {
			*unwritten = 1;
			return b - l;
		}
		if (a > l && a - l < next)
			next = a - l;
	}
	return next;
}

static int build_extents(struct ext4_map *m, ext2_filsys fs, const struct layout_extent *runs,
			 size_t nruns, const struct sparse_holes *h, struct ext4_meta_src *src)
{
	uint32_t bs = fs->blocksize, epb = extents_per_block(bs);
	uint64_t n = ext4_map_extent_count(runs, nruns) + (h ? h->n : 0), lblk, done = 0;

	/* a preallocated file: unwritten extents hold 32767 blocks at most, and split at each range */
	if (m->pa)
		n = 2 * n + 2 * m->pa->unw.n + 2;
	uint64_t cnt[EXT4_MAP_MAX_DEPTH + 1], span[EXT4_MAP_MAX_DEPTH + 1],
		base[EXT4_MAP_MAX_DEPTH + 1];
	struct ext3_extent_header *root = (struct ext3_extent_header *)m->i_block;
	int top, ret;

	if (n > m->ext_cap) {
		if (array_resize(&m->ext, n, sizeof(*m->ext)))
			return -ENOMEM;
		m->ext_cap = n;
	}
	n = 0;
	/* the logical block of each allocated block: holes skipped */
	lblk = h ? sparse_lblk(h, bs, 0) : 0;
	for (size_t i = 0; i < nruns; i++) {
		for (uint64_t off = 0, len; off < runs[i].len; off += len) {
			uint64_t p = runs[i].pblk + off;
			struct ext3_extent *e = &m->ext[n++];
			int unwritten = 0;

			len = runs[i].len - off;
			if (len > EXT4_MAP_MAX_EXTENT)
				len = EXT4_MAP_MAX_EXTENT;
			if (h) {
				/* an extent ends where a hole starts; the next one after it */
				uint64_t left = sparse_data_left(h, bs, lblk);

				if (len > left)
					len = left;
			}
			if (m->pa) {
				uint64_t same = prealloc_span(m, bs, lblk, &unwritten);

				if (len > same)
					len = same;
				if (unwritten && len > EXT4_MAP_MAX_EXTENT - 1)
					len = EXT4_MAP_MAX_EXTENT - 1;
			}
			if (p + len > (UINT64_C(1) << 48) || lblk + len > UINT32_MAX)
				return -EFBIG;
			e->ee_block = ext2fs_cpu_to_le32((uint32_t)lblk);
			/* an unwritten extent has EXT_INIT_MAX_LEN added to its length */
			e->ee_len = ext2fs_cpu_to_le16(
				(uint16_t)(len + (unwritten ? EXT4_MAP_MAX_EXTENT : 0)));
			e->ee_start_hi = ext2fs_cpu_to_le16((uint16_t)(p >> 32));
			e->ee_start = ext2fs_cpu_to_le32((uint32_t)p);
			done += len;
			lblk = h ? sparse_lblk(h, bs, done) : done;
		}
	}

	if (n <= EXT4_MAP_IN_INODE) {
		header_set(root, (unsigned)n, EXT4_MAP_IN_INODE, 0);
		memcpy(root + 1, m->ext, n * sizeof(*m->ext));
		return 0;
	}

	/* a packed tree: full nodes left to right, levels until the root fits i_block */
	top = 0;
	cnt[0] = (n + epb - 1) / epb;
	span[0] = epb;
	while (cnt[top] > EXT4_MAP_IN_INODE) {
		if (top + 1 >= EXT4_MAP_MAX_DEPTH)
			return -EFBIG;
		cnt[top + 1] = (cnt[top] + epb - 1) / epb;
		span[top + 1] = span[top] * epb;
		top++;
	}
	/* blocks taken top-down, so a reader walks the tree forward */
	for (int k = top; k >= 0; k--) {
		base[k] = m->nmeta;
		for (uint64_t i = 0; i < cnt[k]; i++) {
			uint64_t idx;

			ret = meta_new(m, bs, src, &idx);
			if (ret)
				return ret;
		}
	}
	for (uint64_t i = 0; i < cnt[0]; i++) {
		struct ext3_extent_header *eh =
			(struct ext3_extent_header *)(m->meta_buf + (base[0] + i) * bs);
		uint64_t first = i * epb, num = n - first < epb ? n - first : epb;

		header_set(eh, (unsigned)num, epb, 0);
		memcpy(eh + 1, m->ext + first, num * sizeof(*m->ext));
	}
	for (int k = 1; k <= top; k++) {
		for (uint64_t i = 0; i < cnt[k]; i++) {
			struct ext3_extent_header *eh =
				(struct ext3_extent_header *)(m->meta_buf + (base[k] + i) * bs);
			struct ext3_extent_idx *ix = (struct ext3_extent_idx *)(eh + 1);
			uint64_t c0 = i * epb, num = cnt[k - 1] - c0 < epb ? cnt[k - 1] - c0 : epb;

			header_set(eh, (unsigned)num, epb, (unsigned)k);
			for (uint64_t c = 0; c < num; c++)
				index_set(
					&ix[c],
					ext2fs_le32_to_cpu(m->ext[(c0 + c) * span[k - 1]].ee_block),
					m->meta_blk[base[k - 1] + c0 + c]);
		}
	}
	header_set(root, (unsigned)cnt[top], EXT4_MAP_IN_INODE, (unsigned)top + 1);
	for (uint64_t i = 0; i < cnt[top]; i++)
		index_set((struct ext3_extent_idx *)(root + 1) + i,
			  ext2fs_le32_to_cpu(m->ext[i * span[top]].ee_block),
			  m->meta_blk[base[top] + i]);
	return 0;
}

/* Blocks one pointer at `level` covers: 1, apb, apb^2. */
static uint64_t level_span(uint32_t apb, int level)
{
	uint64_t s = 1;

	while (level-- > 0)
		s *= apb;
	return s;
}

/* An indirect block at `level` (1 single, 2 double, 3 triple) mapping from lblk first. */
static int build_indirect(struct ext4_map *m, uint32_t bs, struct ext4_meta_src *src,
			  struct run_cursor *c, const struct sparse_holes *h, uint64_t nblocks,
			  int level, uint64_t first, uint32_t *out)
{
	uint32_t apb = bs / 4;
	uint64_t idx, span = level_span(apb, level - 1);
	int ret = meta_new(m, bs, src, &idx);

	if (ret)
		return ret;
	if (m->meta_blk[idx] > UINT32_MAX)
		return -EFBIG;
	*out = (uint32_t)m->meta_blk[idx];
	for (uint32_t i = 0; i < apb; i++) {
		uint64_t lb = first + i * span;
		uint32_t ptr;

		if (lb >= nblocks)
			break;
		/* a hole: no pointer, and no indirect block below it */
		if (h && sparse_all_hole(h, bs, lb, nblocks - lb < span ? nblocks - lb : span))
			continue;
		if (level == 1) {
			uint64_t p = cursor_next(c);

			if (p > UINT32_MAX)
				return -EFBIG;
			ptr = (uint32_t)p;
		} else {
			ret = build_indirect(m, bs, src, c, h, nblocks, level - 1, lb, &ptr);
			if (ret)
				return ret;
		}
		/* meta_buf may have moved while the children were built */
		((uint32_t *)(m->meta_buf + idx * bs))[i] = ext2fs_cpu_to_le32(ptr);
	}
	return 0;
}

static int build_blockmap(struct ext4_map *m, ext2_filsys fs, const struct layout_extent *runs,
			  size_t nruns, uint64_t nblocks, const struct sparse_holes *h,
			  struct ext4_meta_src *src)
{
	uint32_t bs = fs->blocksize, apb = bs / 4;
	struct run_cursor c = { runs, nruns, 0, 0 };
	uint64_t first = EXT2_NDIR_BLOCKS;
	int ret;

	if (nblocks >
	    EXT2_NDIR_BLOCKS + level_span(apb, 1) + level_span(apb, 2) + level_span(apb, 3))
		return -EFBIG;
	for (uint64_t l = 0; l < nblocks && l < EXT2_NDIR_BLOCKS; l++) {
		uint64_t p;

		if (h && sparse_all_hole(h, bs, l, 1))
			continue;
		p = cursor_next(&c);
		if (p > UINT32_MAX)
			return -EFBIG;
		m->i_block[l] = (uint32_t)p;
	}
	for (int level = 1; level <= 3 && first < nblocks; level++) {
		uint64_t span = level_span(apb, level);

		if (!h || !sparse_all_hole(h, bs, first,
					   nblocks - first < span ? nblocks - first : span)) {
			ret = build_indirect(m, bs, src, &c, h, nblocks, level, first,
					     &m->i_block[EXT2_IND_BLOCK + level - 1]);
			if (ret)
				return ret;
		}
		first += span;
	}
	return 0;
}

int ext4_map_build(struct ext4_map *m, ext2_filsys fs, const struct layout_extent *runs,
		   size_t nruns, uint64_t nblocks, int extents, struct ext4_meta_src *src)
{
	return ext4_map_build_sparse(m, fs, runs, nruns, nblocks, NULL, 0, extents, src);
}

int ext4_map_build_sparse(struct ext4_map *m, ext2_filsys fs, const struct layout_extent *runs,
			  size_t nruns, uint64_t nblocks, const struct sparse_holes *h,
			  uint64_t lblocks, int extents, struct ext4_meta_src *src)
{
	uint64_t sum = 0;

	for (size_t i = 0; i < nruns; i++)
		sum += runs[i].len;
	if (sum != nblocks)
		return -EINVAL;
	if (h && !h->n)
		h = NULL;
	if (h) {
		if (fs->blocksize > SPARSE_UNIT || lblocks < nblocks ||
		    lblocks - nblocks != h->bytes / fs->blocksize)
			return -EINVAL;
	} else {
		lblocks = nblocks;
	}
	if (lblocks > UINT32_MAX)
		return -EFBIG;
	memset(m->i_block, 0, sizeof(m->i_block));
	m->nmeta = 0;
	m->extents = extents;
	if (extents)
		return build_extents(m, fs, runs, nruns, h, src);
	return build_blockmap(m, fs, runs, nruns, lblocks, h, src);
}

int ext4_map_write(struct ext4_map *m, ext2_filsys fs, ext2_ino_t ino, uint32_t gen)
{
	uint32_t bs = fs->blocksize;
	errcode_t err;

	if (m->extents) {
		for (uint64_t i = 0; i < m->nmeta; i++)
			ext4_csum_extent_block(fs, ino, gen,
					       (struct ext3_extent_header *)(m->meta_buf + i * bs));
	}
	/* one write per physically consecutive stretch */
	for (uint64_t i = 0; i < m->nmeta;) {
		uint64_t j = i + 1;

		while (j < m->nmeta && m->meta_blk[j] == m->meta_blk[j - 1] + 1 && j - i < 1024)
			j++;
		err = io_channel_write_blk64(fs->io, m->meta_blk[i], (int)(j - i),
					     m->meta_buf + i * bs);
		if (err)
			return e2err_errno(err);
		i = j;
	}
	return 0;
}

static void run_add(struct layout_extent *runs, size_t *nruns, uint64_t p)
{
	if (*nruns && runs[*nruns - 1].pblk + runs[*nruns - 1].len == p) {
		runs[*nruns - 1].len++;
		return;
	}
	runs[*nruns].pblk = p;
	runs[*nruns].len = 1;
	(*nruns)++;
}

static void place_indirect(uint32_t apb, int level, uint64_t first, uint64_t ndata, uint64_t *pos,
			   struct layout_extent *runs, size_t *nruns, uint64_t *meta,
			   uint64_t *nmeta)
{
	uint64_t span = level_span(apb, level - 1);

	meta[(*nmeta)++] = (*pos)++;
	for (uint32_t i = 0; i < apb; i++) {
		uint64_t lb = first + i * span;

		if (lb >= ndata)
			break;
		if (level == 1)
			run_add(runs, nruns, (*pos)++);
		else
			place_indirect(apb, level - 1, lb, ndata, pos, runs, nruns, meta, nmeta);
	}
}

void ext4_map_place_dir(int extents, uint32_t block_size, uint64_t start, uint64_t ndata,
			struct layout_extent *runs, size_t *nruns, uint64_t *meta, uint64_t *nmeta)
{
	uint32_t apb = block_size / 4;
	uint64_t pos = start, first = EXT2_NDIR_BLOCKS;

	*nruns = 0;
	*nmeta = 0;
	if (extents) {
		uint64_t nm = ext4_map_meta_count(1, block_size, ndata,
						  (ndata + EXT4_MAP_MAX_EXTENT - 1) /
							  EXT4_MAP_MAX_EXTENT);

		for (uint64_t i = 0; i < nm; i++)
			meta[(*nmeta)++] = pos++;
		if (ndata) {
			runs[0].pblk = pos;
			runs[0].len = ndata;
			*nruns = 1;
		}
		return;
	}
	for (uint64_t l = 0; l < ndata && l < EXT2_NDIR_BLOCKS; l++)
		run_add(runs, nruns, pos++);
	for (int level = 1; level <= 3 && first < ndata; level++) {
		place_indirect(apb, level, first, ndata, &pos, runs, nruns, meta, nmeta);
		first += level_span(apb, level);
	}
}
