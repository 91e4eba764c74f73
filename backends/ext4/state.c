/* state.c - what the parts of the ext2/3/4 backend share: its state, messages, progress */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/ext4/state.h"
#include "content/sparse.h"
#include "util/array.h"
#include "util/util.h"

double ext4_elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* Populating */

static int ents_add(struct ext4_ents *d, const char *name, size_t len, ext2_ino_t ino, uint8_t type)
{
	const struct array_col cols[] = { { &d->e, sizeof(*d->e) }, { &d->off, sizeof(*d->off) } };

	if (array_grow_cols(cols, ARRAY_SIZE(cols), &d->cap, d->n + 1))
		return -ENOMEM;
	if (array_grow(&d->names, &d->ncap, d->len + len, 1))
		return -ENOMEM;
	memcpy(d->names + d->len, name, len);
	d->off[d->n] = d->len;
	d->e[d->n].name_len = (uint32_t)len;
	d->e[d->n].ino = ino;
	d->e[d->n].type = type;
	d->e[d->n].slack = 0;
	d->len += len;
	d->n++;
	return 0;
}

/* Entries of directory j into d: subdirectories, files, links, and lost+found in the root. */
int ext4_collect_into(const struct ext4_build *x, struct ext4_ents *d, uint32_t j)
{
	const struct plan *pl = x->pl;
	char name[NAME_MAX_LEN + 1];
	int ret = 0;

	d->n = 0;
	d->len = 0;
	for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE && !ret;
	     c = pl->dir_next_sibling[c])
		ret = ents_add(d, name, plan_dir_name(pl, c, name), x->dir_ino[c], EXT2_FT_DIR);
	for (uint64_t f = pl->dir_first_file[j];
	     f < pl->dir_first_file[j] + pl->dir_nfiles[j] && !ret; f++)
		ret = ents_add(d, name, plan_file_name(pl, f, name), x->file_ino[f],
			       EXT2_FT_REG_FILE);
	for (uint32_t l = pl->dir_first_link[j];
	     l < pl->dir_first_link[j] + pl->dir_nlinks[j] && !ret; l++) {
		static const int special_ft[SPECIAL_TYPES] = { EXT2_FT_FIFO, EXT2_FT_SOCK,
							       EXT2_FT_CHRDEV, EXT2_FT_BLKDEV };
		uint8_t k = pl->link_kind[l];
		int hard = k & LINK_HARD;

		ret = ents_add(d, name, plan_link_name(pl, l, name),
			       hard ? x->file_ino[pl->link_target[l]] : x->link_ino[l],
			       hard		  ? EXT2_FT_REG_FILE :
			       (k & LINK_SPECIAL) ? special_ft[LINK_SPECIAL_TYPE(k)] :
						    EXT2_FT_SYMLINK);
	}
	if (!ret && j == 0 && x->st->lpf_ino)
		ret = ents_add(d, "lost+found", 10, x->st->lpf_ino, EXT2_FT_DIR);
	if (ret)
		return ret;
	for (size_t i = 0; i < d->n; i++) {
		d->e[i].name = d->names + d->off[i];
		d->e[i].slack = (uint16_t)plan_dirent_slack(pl, j, i);
	}
	return 0;
}

int ext4_collect_entries(struct ext4_build *x, uint32_t j)
{
	return ext4_collect_into(x, &x->ents, j);
}

uint64_t ext4_dir_entries(const struct ext4_build *x, uint32_t j)
{
	const struct plan *pl = x->pl;

	return (uint64_t)x->nsub[j] + pl->dir_nfiles[j] + pl->dir_nlinks[j] +
	       (j == 0 && x->st->lpf_ino);
}

/*
 * Kept entries: for each directory its number and entry count (4 bytes
 * each), then for each entry its inode (4 bytes), type, slack (2 bytes),
 * name length and name.  The shape pass keeps directories 0, 1, ... while
 * they fit in x->keep_budget; write_dir takes them back in any order,
 * through x->keep_at (in id order without it, when it cannot be had).
 */
#define KEEP_HEAD  8
#define KEEP_ENTRY 8

size_t ext4_keep_size(const struct ext4_ents *d)
{
	if (d->n > UINT32_MAX)
		return 0;
	for (size_t i = 0; i < d->n; i++)
		if (d->e[i].name_len > UINT8_MAX)
			return 0;
	return KEEP_HEAD + d->n * KEEP_ENTRY + d->len;
}

void ext4_keep_put(const struct ext4_ents *d, uint32_t j, unsigned char *p)
{
	uint32_t n = (uint32_t)d->n;

	memcpy(p, &j, 4);
	memcpy(p + 4, &n, 4);
	p += KEEP_HEAD;
	for (size_t i = 0; i < d->n; i++) {
		const struct ext4_dirent_in *e = &d->e[i];

		memcpy(p, &e->ino, 4);
		p[4] = e->type;
		p[5] = (unsigned char)(e->slack & 0xff);
		p[6] = (unsigned char)(e->slack >> 8);
		p[7] = (unsigned char)e->name_len;
		memcpy(p + KEEP_ENTRY, e->name, e->name_len);
		p += KEEP_ENTRY + e->name_len;
	}
}

int ext4_keep_add(struct ext4_build *x, uint32_t j, const unsigned char *rec, size_t len)
{
	size_t cap;
	unsigned char *p;

	/* keep_dirs stays when one is not kept: no later directory follows without a gap */
	if (!len || j != x->keep_dirs || len > x->keep_budget - x->keep_len)
		return 0;
	if (x->keep_len + len > x->keep_cap) {
		cap = x->keep_cap < (1u << 20) ? (1u << 20) : x->keep_cap * 2;
		if (cap < x->keep_len + len)
			cap = x->keep_len + len;
		if (cap > x->keep_budget)
			cap = x->keep_budget;
		p = realloc(x->keep, cap);
		if (!p)
			return 0;
		x->keep = p;
		x->keep_cap = cap;
	}
	memcpy(x->keep + x->keep_len, rec, len);
	x->keep_len += len;
	x->keep_dirs++;
	return 1;
}

/* Where each kept directory's entries start in x->keep (the budget is under 4 GiB). */
static void keep_index(struct ext4_build *x)
{
	size_t pos = 0;

	if (x->keep_budget > UINT32_MAX)
		return;
	x->keep_at = malloc((size_t)x->keep_dirs * sizeof(*x->keep_at));
	if (!x->keep_at)
		return;
	for (uint32_t k = 0; k < x->keep_dirs; k++) {
		uint32_t n;

		x->keep_at[k] = (uint32_t)pos;
		memcpy(&n, x->keep + pos + 4, 4);
		pos += KEEP_HEAD;
		for (uint32_t i = 0; i < n; i++)
			pos += KEEP_ENTRY + x->keep[pos + 7];
	}
}

int ext4_kept_entries(struct ext4_build *x, uint32_t j)
{
	const struct array_col cols[] = { { &x->ents.e, sizeof(*x->ents.e) },
					  { &x->ents.off, sizeof(*x->ents.off) } };
	struct ext4_ents *d = &x->ents;
	const unsigned char *p;
	uint32_t dj, n;

	if (j >= x->keep_dirs)
		return ext4_collect_entries(x, j);
	if (!x->keep_at && x->keep_pos == 0)
		keep_index(x);
	if (x->keep_at)
		x->keep_pos = x->keep_at[j];
	if (x->keep_len - x->keep_pos < KEEP_HEAD)
		return ext4_collect_entries(x, j);
	p = x->keep + x->keep_pos;
	memcpy(&dj, p, 4);
	memcpy(&n, p + 4, 4);
	if (dj != j)
		return ext4_collect_entries(x, j);
	if (array_grow_cols(cols, ARRAY_SIZE(cols), &d->cap, n))
		return -ENOMEM;
	p += KEEP_HEAD;
	for (uint32_t i = 0; i < n; i++) {
		struct ext4_dirent_in *e = &d->e[i];

		memcpy(&e->ino, p, 4);
		e->type = p[4];
		e->slack = (uint16_t)(p[5] | p[6] << 8);
		e->name_len = p[7];
		e->name = (const char *)p + KEEP_ENTRY;
		p += KEEP_ENTRY + e->name_len;
	}
	d->n = n;
	d->len = 0;
	x->keep_pos = (size_t)(p - x->keep);
	return 0;
}

void ext4_keep_release(struct ext4_build *x)
{
	free(x->keep);
	free(x->keep_at);
	x->keep = NULL;
	x->keep_at = NULL;
	x->keep_len = x->keep_cap = x->keep_pos = 0;
	x->keep_dirs = 0;
}

void ext4_ents_release(struct ext4_ents *d)
{
	free(d->e);
	free(d->off);
	free(d->names);
}

int ext4_buf_reserve(struct ext4_build *x, size_t len)
{
	if (len <= x->buf_cap)
		return 0;
	if (array_resize(&x->buf, len, 1))
		return -ENOMEM;
	x->buf_cap = len;
	return 0;
}

/* Path of a directory, or of an entry in it, for messages. */
const char *ext4_entry_path(const struct ext4_build *x, uint32_t dir, const char *name, char *buf,
			    size_t len)
{
	int n = plan_dir_path(x->pl, dir, buf, len);

	if (n < 0)
		snprintf(buf, len, "(directory %u)", dir);
	if (name) {
		size_t at = strlen(buf);

		snprintf(buf + at, len - at, "%s%s", at > 1 ? "/" : "", name);
	}
	return buf;
}

/*
 * Files done: those whose inode is written, less those whose data the
 * workers have not written yet (the inodes go much faster): the files
 * whose last piece is not written, and at least one while any byte is
 * not (a batch holding another piece of a file may still be in flight).
 */
void ext4_progress(struct ext4_build *x)
{
	uint64_t data_done = atomic_load(&x->data.files_done), pending;
	uint64_t bytes = atomic_load(&x->data.bytes_done);

	if (!x->st->progress)
		return;
	pending = x->data.data_files > data_done ? x->data.data_files - data_done : 0;
	if (!pending && bytes < x->data.data_bytes)
		pending = 1;
	x->st->progress(x->st->progress_ctx, x->meta_files > pending ? x->meta_files - pending : 0,
			bytes + x->inline_bytes);
}

int ext4_cancelled(const struct ext4_state *st)
{
	return st->cancel && *st->cancel;
}

/* Every 4096 entries: stop when interrupted, report progress. */
int ext4_tick(struct ext4_build *x, uint64_t i)
{
	if (i % EXT4_CHECK_EVERY)
		return 0;
	if (ext4_cancelled(x->st))
		return ext4_set_err(x->b, -EINTR, "interrupted");
	ext4_progress(x);
	return 0;
}

int ext4_build_init(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	ext2_filsys fs = x->fs;
	size_t nf = pl->nfiles ? (size_t)pl->nfiles : 1, nd = pl->ndirs ? pl->ndirs : 1;
	size_t nl = pl->nlinks ? pl->nlinks : 1;

	x->bs = fs->blocksize;
	x->extents = ext2fs_has_feature_extents(fs->super);
	x->isize = EXT2_INODE_SIZE(fs->super);
	x->extra = 0;
	if (x->isize > EXT2_GOOD_OLD_INODE_SIZE) {
		x->extra = sizeof(struct ext2_inode_large) - EXT2_GOOD_OLD_INODE_SIZE;
		if (x->extra > x->isize - EXT2_GOOD_OLD_INODE_SIZE)
			x->extra = x->isize - EXT2_GOOD_OLD_INODE_SIZE;
	}
	/* the system.data xattr needs in-inode space */
	x->inline_ok =
		ext2fs_has_feature_inline_data(fs->super) && x->isize > EXT2_GOOD_OLD_INODE_SIZE;
	for (uint32_t l = 0; l < pl->nlinks; l++)
		x->nsym += !(pl->link_kind[l] & LINK_HARD);

	x->dir_ino = calloc(nd, sizeof(*x->dir_ino));
	x->file_ino = calloc(nf, sizeof(*x->file_ino));
	x->link_ino = calloc(nl, sizeof(*x->link_ino));
	x->nsub = calloc(nd, sizeof(*x->nsub));
	x->shape = calloc(nd, sizeof(*x->shape));
	x->file_blocks = calloc(nf, sizeof(*x->file_blocks));
	x->dir_blocks = calloc(nd, sizeof(*x->dir_blocks));
	x->link_blocks = calloc(nl, sizeof(*x->link_blocks));
	if (sparse_enabled(pl)) {
		x->file_holes = calloc(nf, sizeof(*x->file_holes));
		x->file_lblocks = calloc(nf, sizeof(*x->file_lblocks));
		if (!x->file_holes || !x->file_lblocks)
			return ext4_set_err(x->b, -ENOMEM, "out of memory");
	}
	x->keep_budget = EXT4_KEEP_BUDGET;
	if (getenv("IMPRINT_TEST_EXT4_KEEP"))
		x->keep_budget = (size_t)strtoull(getenv("IMPRINT_TEST_EXT4_KEEP"), NULL, 10);
	if (getenv("IMPRINT_TEST_EXT4_STAGE"))
		x->stage_bytes = (size_t)strtoull(getenv("IMPRINT_TEST_EXT4_STAGE"), NULL, 10);
	if (getenv("IMPRINT_TEST_EXT4_PLAIN")) {
		x->keep_budget = 0;
		x->iblk_off = 1;
	}
	x->ibuf = calloc(1, x->isize);
	x->tbuf = malloc(x->bs);
	if (ext4_stats_init(&x->stats, fs))
		return ext4_set_err(x->b, -ENOMEM, "out of memory");
	x->stats.plain = x->iblk_off;
	if (!x->dir_ino || !x->file_ino || !x->link_ino || !x->nsub || !x->shape ||
	    !x->file_blocks || !x->dir_blocks || !x->link_blocks || !x->ibuf || !x->tbuf)
		return ext4_set_err(x->b, -ENOMEM, "out of memory");
	for (uint32_t j = 1; j < pl->ndirs; j++)
		x->nsub[pl->dir_parent[j]]++;
	ext4_map_init(&x->map);
	return 0;
}

void ext4_build_release(struct ext4_build *x)
{
	ext4_data_release(&x->data);
	ext4_map_release(&x->map);
	ext4_stats_release(&x->stats);
	ext4_ents_release(&x->ents);
	ext4_keep_release(x);
	FREE_ALL(x->dir_ino, x->file_ino, x->link_ino, x->nsub, x->shape, x->file_blocks,
		 x->file_holes, x->file_lblocks, x->dir_blocks, x->link_blocks, x->ibuf, x->iblk,
		 x->buf, x->druns, x->dmeta, x->tbuf);
}

void ext4_build_free(struct ext4_state *st)
{
	if (!st->x)
		return;
	ext4_build_release(st->x);
	free(st->x);
	st->x = NULL;
}

int ext4_each_inode_in(struct ext4_build *x, const struct ext4_inode_steps *s,
		       const uint32_t *order)
{
	const struct plan *pl = x->pl;
	uint64_t done = 0;
	int ret;

	for (uint32_t oi = 0; oi < pl->ndirs; oi++) {
		uint32_t j = order ? order[oi] : oi;

		ret = s->dir(x, j);
		if (ret)
			return ret;
		for (uint64_t f = pl->dir_first_file[j];
		     f < pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
			ret = s->file(x, f);
			if (!ret)
				ret = ext4_tick(x, ++done);
			if (ret)
				return ret;
		}
		for (uint32_t l = pl->dir_first_link[j];
		     l < pl->dir_first_link[j] + pl->dir_nlinks[j]; l++) {
			if (pl->link_kind[l] & LINK_HARD)
				continue;
			ret = s->symlink(x, l);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ext4_each_inode(struct ext4_build *x, const struct ext4_inode_steps *s)
{
	return ext4_each_inode_in(x, s, NULL);
}

static int free_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		      int ref_offset, void *priv)
{
	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	(void)priv;
	ext2fs_block_alloc_stats2(fs, *blocknr, -1);
	return 0;
}

errcode_t ext4_free_root_blocks(ext2_filsys fs)
{
	return ext2fs_block_iterate3(fs, EXT2_ROOT_INO, BLOCK_FLAG_READ_ONLY, NULL, free_block,
				     NULL);
}

int ext4_free_runs(ext2_filsys fs, int (*fn)(blk64_t start, blk64_t len, void *arg), void *arg)
{
	blk64_t blk = fs->super->s_first_data_block, last = ext2fs_blocks_count(fs->super) - 1;
	int ret;

	while (blk <= last) {
		blk64_t zero, set;

		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, blk, last, &zero))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero, last, &set))
			set = last + 1;
		ret = fn(zero, set - zero, arg);
		if (ret)
			return ret;
		blk = set;
	}
	return 0;
}

/* A freemap being filled, and its runs' capacity. */
struct freemap_fill {
	struct freemap *fm;
	size_t cap;
};

static int freemap_add(blk64_t start, blk64_t len, void *arg)
{
	struct freemap_fill *w = arg;
	struct freemap *fm = w->fm;

	if (array_grow(&fm->runs, &w->cap, fm->nruns + 1, sizeof(*fm->runs)))
		return -ENOMEM;
	fm->runs[fm->nruns].start = start;
	fm->runs[fm->nruns].len = len;
	fm->nruns++;
	return 0;
}

int ext4_read_freemap(ext2_filsys fs, struct freemap *fm)
{
	struct freemap_fill w = { fm, 256 };

	memset(fm, 0, sizeof(*fm));
	fm->nblocks = ext2fs_blocks_count(fs->super);
	fm->first_data_block = fs->super->s_first_data_block;
	fm->blocks_per_group = fs->super->s_blocks_per_group;
	fm->ngroups = fs->group_desc_count;
	fm->flex_groups =
		ext2fs_has_feature_flex_bg(fs->super) ? 1u << fs->super->s_log_groups_per_flex : 1;
	fm->runs = malloc(w.cap * sizeof(*fm->runs));
	if (!fm->runs || ext4_free_runs(fs, freemap_add, &w)) {
		free(fm->runs);
		fm->runs = NULL;
		fm->nruns = 0;
		return -ENOMEM;
	}
	return 0;
}
