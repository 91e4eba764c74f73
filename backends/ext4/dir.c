/* dir.c - a directory's blocks built in one pass: linear or htree, with checksums */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/csum.h"
#include "backends/ext4/dir.h"
#include "util/e2err.h"

/* "." and ".." at the head of block 0, each with the minimal rec_len */
#define DOT_REC_LEN		12
#define DOTS_LEN		(2 * DOT_REC_LEN)
/* dx entries start after "." + ".." header + root info in the root ... */
#define DX_ROOT_OFFSET		(DOTS_LEN + sizeof(struct ext2_dx_root_info))
/* ... and after the fake empty dirent header in a node */
#define DX_NODE_OFFSET		8
/* indirect levels: the kernel allows 1, or 2 with largedir */
#define DX_LEVELS_COMPAT	1
#define DX_LEVELS_LARGEDIR	2
/* rec_len of an entry spanning a whole 64 KiB block */
#define DIR_MAX_REC_LEN		0xffff

/* An entry and its hash, major hash in the high half so one compare orders both */
struct dir_key {
	uint64_t hash;
	const struct ext4_dirent_in *ent;
};

/* Everything shape and format agree on, derived from fs and the entries alone */
struct dir_plan {
	unsigned int bs;
	unsigned int space;		/* leaf bytes in front of the checksum tail */
	int csum;
	int filetype;
	int indexed;
	unsigned int levels;
	int hash_version;		/* as recorded in the dx root */
	struct dir_key *keys;		/* htree only: entries in hash order */
	uint32_t *start;		/* first entry of each leaf, plus n at the end */
	uint32_t nleaves;
	uint32_t nodes[DX_LEVELS_LARGEDIR]; /* dx node blocks per level, top first */
	uint32_t root_limit;
	uint32_t node_limit;
	uint32_t nblocks;
};

static unsigned int rec_len(unsigned int name_len)
{
	return (8 + name_len + 3) & ~3u;
}

/* An entry's record with the slack a deleted entry left after it */
static unsigned int ent_len(const struct ext4_dirent_in *d)
{
	return rec_len(d->name_len) + (d->slack & ~3u);
}

static uint32_t key_major(const struct dir_key *k)
{
	return (uint32_t)(k->hash >> 32);
}

/* Total order, so qsort's instability cannot reach the output */
static int key_cmp(const void *a, const void *b)
{
	const struct dir_key *x = a, *y = b;
	uint32_t lx = x->ent->name_len, ly = y->ent->name_len;
	int r;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	r = memcmp(x->ent->name, y->ent->name, lx < ly ? lx : ly);
	if (r)
		return r;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return (x->ent > y->ent) - (x->ent < y->ent);
}

/*
 * The checksums read the directory's inode through libext2fs' cache, whose
 * write-back of another block can meet a full target: that ENOSPC is kept,
 * as every other code e2err_errno() knows.
 */
static int errcode_to_errno(errcode_t err)
{
	if (err == EXT2_ET_DIRHASH_UNSUPP)
		return -EOPNOTSUPP;
	return e2err_errno(err);
}

static int check_entry(const struct ext4_dirent_in *d)
{
	if (!d->name || d->name_len < 1 || d->name_len > EXT2_NAME_LEN)
		return -EINVAL;
	if (d->type >= EXT2_FT_MAX)
		return -EINVAL;
	if (memchr(d->name, '/', d->name_len) || memchr(d->name, '\0', d->name_len))
		return -EINVAL;
	if (d->name[0] == '.' && (d->name_len == 1 || (d->name_len == 2 && d->name[1] == '.')))
		return -EINVAL;
	return 0;
}

static const struct ext4_dirent_in *entry_at(const struct dir_plan *p,
					     const struct ext4_dirent_in *e, size_t i)
{
	return p->indexed ? p->keys[i].ent : &e[i];
}

/*
 * Pack entries in order into leaves, each filled as far as it goes.  In an
 * htree a run of equal major hashes moves whole to the next leaf unless it
 * began the leaf, so that lookups rarely need the continuation bit.
 * Returns the leaf count; fills start[] when given.
 */
static uint32_t dir_pack(const struct dir_plan *p, const struct ext4_dirent_in *e, size_t n,
			 uint32_t *start)
{
	uint32_t nblk = 1;
	size_t first = 0, i, j;
	unsigned int used = p->indexed ? 0 : DOTS_LEN;

	if (start)
		start[0] = 0;
	for (i = 0; i < n; i++) {
		unsigned int r = ent_len(entry_at(p, e, i));

		while (used + r > p->space) {
			j = i;
			if (p->indexed) {
				while (j > first && key_major(&p->keys[j - 1]) == key_major(&p->keys[i]))
					j--;
				if (j == first)
					j = i;
			}
			used = 0;
			for (size_t k = j; k < i; k++)
				used += ent_len(p->keys[k].ent);
			first = j;
			if (start)
				start[nblk] = (uint32_t)j;
			nblk++;
		}
		used += r;
	}
	if (start)
		start[nblk] = (uint32_t)n;
	return nblk;
}

static int dir_hash_keys(ext2_filsys fs, struct dir_plan *p, const struct ext4_dirent_in *e,
			 size_t n)
{
	int version = p->hash_version;
	size_t i;

	if (version <= EXT2_HASH_TEA && (fs->super->s_flags & EXT2_FLAGS_UNSIGNED_HASH))
		version += 3;
	p->keys = malloc(n * sizeof(*p->keys));
	if (!p->keys)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ext2_dirhash_t major, minor;
		errcode_t err;

		/* hash_flags 0: the inode has no casefold flag, whatever fs->encoding */
		err = ext2fs_dirhash2(version, e[i].name, (int)e[i].name_len, fs->encoding, 0,
				      fs->super->s_hash_seed, &major, &minor);
		if (err)
			return errcode_to_errno(err);
		p->keys[i].hash = (uint64_t)major << 32 | minor;
		p->keys[i].ent = &e[i];
	}
	qsort(p->keys, n, sizeof(*p->keys), key_cmp);
	for (i = 1; i < n; i++) {
		const struct ext4_dirent_in *a = p->keys[i - 1].ent, *b = p->keys[i].ent;

		if (p->keys[i - 1].hash == p->keys[i].hash && a->name_len == b->name_len &&
		    !memcmp(a->name, b->name, a->name_len))
			return -EEXIST;
	}
	return 0;
}

/* Index blocks above nleaves leaves, bottom level first, until the root holds them */
static int dir_levels(ext2_filsys fs, struct dir_plan *p)
{
	unsigned int max = ext2fs_has_feature_largedir(fs->super) ? DX_LEVELS_LARGEDIR :
								    DX_LEVELS_COMPAT;
	uint32_t below[DX_LEVELS_LARGEDIR];
	uint64_t items = p->nleaves, total = p->nleaves + 1;
	unsigned int l = 0, k;

	while (items > p->root_limit) {
		if (l == max)
			return -EFBIG;
		items = (items + p->node_limit - 1) / p->node_limit;
		below[l++] = (uint32_t)items;
		total += items;
	}
	/* dx entries address 28 bits of logical block */
	if (total > EXT4_DX_BLOCK_MASK)
		return -EFBIG;
	p->levels = l;
	for (k = 0; k < l; k++)
		p->nodes[k] = below[l - 1 - k];
	p->nblocks = (uint32_t)total;
	return 0;
}

static void dir_plan_release(struct dir_plan *p)
{
	free(p->keys);
	free(p->start);
	p->keys = NULL;
	p->start = NULL;
}

static int dir_plan_init(ext2_filsys fs, const struct ext4_dirent_in *e, size_t n, int want_start,
			 struct dir_plan *p)
{
	uint64_t bytes = DOTS_LEN;
	unsigned int tail;
	size_t i;
	int ret;

	memset(p, 0, sizeof(*p));
	if (n > UINT32_MAX - 2)
		return -EFBIG;
	for (i = 0; i < n; i++) {
		ret = check_entry(&e[i]);
		if (ret)
			return ret;
		bytes += ent_len(&e[i]);
	}
	p->bs = fs->blocksize;
	p->csum = ext2fs_has_feature_metadata_csum(fs->super);
	p->filetype = ext2fs_has_feature_filetype(fs->super);
	p->space = p->bs - (p->csum ? sizeof(struct ext2_dir_entry_tail) : 0);
	p->indexed = ext2fs_has_feature_dir_index(fs->super) && bytes > p->space;

	if (p->indexed) {
		tail = p->csum ? sizeof(struct ext2_dx_tail) : 0;
		p->root_limit = (p->bs - DX_ROOT_OFFSET - tail) / sizeof(struct ext2_dx_entry);
		p->node_limit = (p->bs - DX_NODE_OFFSET - tail) / sizeof(struct ext2_dx_entry);
		p->hash_version = fs->super->s_def_hash_version;
		ret = dir_hash_keys(fs, p, e, n);
		if (ret)
			goto out_release;
	}
	p->nleaves = dir_pack(p, e, n, NULL);
	if (p->indexed) {
		ret = dir_levels(fs, p);
		if (ret)
			goto out_release;
	} else {
		p->nblocks = p->nleaves;
	}
	if (want_start) {
		p->start = malloc(((size_t)p->nleaves + 1) * sizeof(*p->start));
		if (!p->start) {
			ret = -ENOMEM;
			goto out_release;
		}
		dir_pack(p, e, n, p->start);
	}
	return 0;

out_release:
	dir_plan_release(p);
	return ret;
}

int ext4_dir_shape(ext2_filsys fs, const struct ext4_dirent_in *e, size_t n,
		   struct ext4_dir_shape *shape)
{
	struct dir_plan p;
	int ret;

	ret = dir_plan_init(fs, e, n, 0, &p);
	if (ret)
		return ret;
	shape->nblocks = p.nblocks;
	shape->indexed = p.indexed;
	shape->levels = p.levels;
	dir_plan_release(&p);
	return 0;
}

/* rec_len as stored on disk; 64 KiB blocks need the kernel's folded encoding */
static uint16_t rec_len_disk(unsigned int bs, unsigned int len)
{
	if (len < 65536)
		return ext2fs_cpu_to_le16((uint16_t)len);
	if (len == bs)
		return ext2fs_cpu_to_le16(bs == 65536 ? DIR_MAX_REC_LEN : 0);
	return ext2fs_cpu_to_le16((uint16_t)((len & 65532) | ((len >> 16) & 3)));
}

static struct ext2_dir_entry *put_dirent(const struct dir_plan *p, char *at, ext2_ino_t ino,
					 const char *name, unsigned int len, unsigned int type,
					 unsigned int rlen)
{
	struct ext2_dir_entry *d = (struct ext2_dir_entry *)at;

	d->inode = ext2fs_cpu_to_le32(ino);
	d->rec_len = rec_len_disk(p->bs, rlen);
	d->name_len = ext2fs_cpu_to_le16((uint16_t)((p->filetype ? type << 8 : 0) | len));
	memcpy(d->name, name, len);
	return d;
}

/* One leaf (or linear) block: entries [from, to), "." and ".." first when dots */
static void put_leaf(const struct dir_plan *p, char *blk, const struct ext4_dirent_in *e,
		     uint32_t from, uint32_t to, int dots, ext2_ino_t dir_ino,
		     ext2_ino_t parent_ino)
{
	unsigned int off = 0, last_off = 0, last_len = 0;
	uint32_t i;

	if (dots) {
		put_dirent(p, blk, dir_ino, ".", 1, EXT2_FT_DIR, DOT_REC_LEN);
		put_dirent(p, blk + DOT_REC_LEN, parent_ino, "..", 2, EXT2_FT_DIR, DOT_REC_LEN);
		last_off = DOT_REC_LEN;
		last_len = DOT_REC_LEN;
		off = DOTS_LEN;
	}
	for (i = from; i < to; i++) {
		const struct ext4_dirent_in *d = entry_at(p, e, i);
		unsigned int r = ent_len(d);

		put_dirent(p, blk + off, d->ino, d->name, d->name_len, d->type, r);
		last_off = off;
		last_len = r;
		off += r;
	}
	((struct ext2_dir_entry *)(blk + last_off))->rec_len =
		rec_len_disk(p->bs, last_len + p->space - off);
	if (p->csum) {
		struct ext2_dir_entry_tail *t = EXT2_DIRENT_TAIL(blk, p->bs);

		t->det_rec_len = ext2fs_cpu_to_le16(sizeof(*t));
		t->det_reserved_name_len = ext2fs_cpu_to_le16(EXT2_DIR_NAME_LEN_CSUM);
	}
}

/* count dx entries at area: children first..first+count-1 at blocks base + index */
static void put_dx_entries(char *area, uint32_t limit, uint32_t count, const uint32_t *hash,
			   uint32_t first, uint32_t base)
{
	struct ext2_dx_countlimit *cl = (struct ext2_dx_countlimit *)area;
	struct ext2_dx_entry *d = (struct ext2_dx_entry *)area;
	uint32_t k;

	cl->limit = ext2fs_cpu_to_le16((uint16_t)limit);
	cl->count = ext2fs_cpu_to_le16((uint16_t)count);
	d[0].block = ext2fs_cpu_to_le32(base + first);
	for (k = 1; k < count; k++) {
		d[k].hash = ext2fs_cpu_to_le32(hash[first + k]);
		d[k].block = ext2fs_cpu_to_le32(base + first + k);
	}
}

static void put_dx_root(const struct dir_plan *p, char *blk, ext2_ino_t dir_ino,
			ext2_ino_t parent_ino)
{
	struct ext2_dx_root_info *info = (struct ext2_dx_root_info *)(blk + DOTS_LEN);

	put_dirent(p, blk, dir_ino, ".", 1, EXT2_FT_DIR, DOT_REC_LEN);
	put_dirent(p, blk + DOT_REC_LEN, parent_ino, "..", 2, EXT2_FT_DIR, p->bs - DOT_REC_LEN);
	info->reserved_zero = 0;
	info->hash_version = (uint8_t)p->hash_version;
	info->info_length = sizeof(*info);
	info->indirect_levels = (uint8_t)p->levels;
	info->unused_flags = 0;
}

/*
 * Leaves go after the index blocks (root, then each node level top down),
 * in hash order; nodes are filled fully, left to right, as e2fsck -D does.
 */
static void put_htree(const struct dir_plan *p, char *buf, const struct ext4_dirent_in *e,
		      ext2_ino_t dir_ino, ext2_ino_t parent_ino, uint32_t *hash)
{
	uint32_t leaf_base = 1, base, items, k, m;
	unsigned int l;

	for (l = 0; l < p->levels; l++)
		leaf_base += p->nodes[l];
	for (k = 0; k < p->nleaves; k++) {
		uint32_t s = p->start[k];

		put_leaf(p, buf + (size_t)(leaf_base + k) * p->bs, e, s, p->start[k + 1], 0, 0, 0);
		hash[k] = key_major(&p->keys[s]);
		/* a run of equal hashes split here: lookups must read on */
		if (s && key_major(&p->keys[s - 1]) == hash[k])
			hash[k] |= 1;
	}

	items = p->nleaves;
	base = leaf_base;
	for (l = p->levels; l-- > 0;) {
		uint32_t node_base = base - p->nodes[l];

		for (m = 0; m < p->nodes[l]; m++) {
			char *blk = buf + (size_t)(node_base + m) * p->bs;
			uint32_t first = m * p->node_limit;
			uint32_t count = items - first < p->node_limit ? items - first :
									 p->node_limit;

			((struct ext2_dir_entry *)blk)->rec_len = rec_len_disk(p->bs, p->bs);
			put_dx_entries(blk + DX_NODE_OFFSET, p->node_limit, count, hash, first, base);
		}
		/* a node's hash is its first child's */
		for (m = 0; m < p->nodes[l]; m++)
			hash[m] = hash[m * p->node_limit];
		items = p->nodes[l];
		base = node_base;
	}
	put_dx_root(p, buf, dir_ino, parent_ino);
	put_dx_entries(buf + DX_ROOT_OFFSET, p->root_limit, items, hash, 0, base);
}

int ext4_dir_format(ext2_filsys fs, ext2_ino_t dir_ino, uint32_t dir_gen, ext2_ino_t parent_ino,
		    const struct ext4_dirent_in *e, size_t n, const struct ext4_dir_shape *shape,
		    void *buf)
{
	struct dir_plan p;
	uint32_t *hash = NULL;
	uint32_t b;
	int ret;

	ret = dir_plan_init(fs, e, n, 1, &p);
	if (ret)
		return ret;
	if (shape->nblocks != p.nblocks || !shape->indexed != !p.indexed ||
	    shape->levels != p.levels) {
		ret = -EINVAL;
		goto out_release;
	}
	memset(buf, 0, (size_t)p.nblocks * p.bs);

	if (p.indexed) {
		hash = malloc((size_t)p.nleaves * sizeof(*hash));
		if (!hash) {
			ret = -ENOMEM;
			goto out_release;
		}
		put_htree(&p, buf, e, dir_ino, parent_ino, hash);
	} else {
		for (b = 0; b < p.nblocks; b++)
			put_leaf(&p, (char *)buf + (size_t)b * p.bs, e, p.start[b], p.start[b + 1],
				 b == 0, dir_ino, parent_ino);
	}

	if (p.csum) {
		for (b = 0; b < p.nblocks; b++) {
			errcode_t err = ext4_csum_dir_block(fs, dir_ino, dir_gen,
							    (char *)buf + (size_t)b * p.bs);

			if (err) {
				ret = errcode_to_errno(err);
				goto out_free_hash;
			}
		}
	}

out_free_hash:
	free(hash);
out_release:
	dir_plan_release(&p);
	return ret;
}

void ext4_heap_zeroed(int on)
{
	/* allocations are filled with the complement of the byte given, 0 turns it off */
	mallopt(M_PERTURB, on ? 0xff : 0);
}

errcode_t ext4_link_grow(ext2_filsys fs, ext2_ino_t dir, const char *name, ext2_ino_t ino,
			 int ft)
{
	errcode_t err;

	ext4_heap_zeroed(1);
	err = ext2fs_link(fs, dir, name, ino, ft);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(fs, dir);
		if (!err)
			err = ext2fs_link(fs, dir, name, ino, ft);
	}
	ext4_heap_zeroed(0);
	return err;
}
