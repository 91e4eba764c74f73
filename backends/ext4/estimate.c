/* estimate.c - the quick upfront estimate of the space a plan needs on ext2/3/4 */
#include <errno.h>
#include <ext2fs/ext2fs.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/estimate.h"
#include "plan/include.h"
#include "content/prealloc.h"

#define EST_BLOCK	 4096ULL
#define EST_INODE	 256ULL
#define EST_DIRENT	 24ULL /* average ext4 directory entry with a short name */
#define EST_FIRST_INO	 11ULL /* inodes 1..10 are reserved, 11 is lost+found */
#define FAST_SYMLINK_MAX 59    /* longer targets need a block of their own */
#define EST_BPG		 32768ULL /* blocks per group with 4 KiB blocks */
#define EST_LPF_BLOCKS	 4ULL	  /* mke2fs makes lost+found 16 KiB large */
#define EST_MIN_FREE	 50ULL	  /* blocks mke2fs wants in a group beside its metadata */

enum ext4_kind ext4_kind_of(const struct params *p)
{
	if (!strcmp(p->fs, "ext2"))
		return EXT4_KIND_EXT2;
	return !strcmp(p->fs, "ext3") ? EXT4_KIND_EXT3 : EXT4_KIND_EXT4;
}

uint64_t ext4_inodes_wanted(const struct plan *pl)
{
	uint64_t nsym = 0, need;

	for (uint32_t l = 0; l < pl->nlinks; l++)
		nsym += !(pl->link_kind[l] & LINK_HARD);
	need = EST_FIRST_INO + (uint64_t)pl->ndirs + pl->nfiles + nsym;
	if (pl->inc)
		need += include_inodes(pl->inc);
	return need + need / 4 + 256;
}

uint64_t ext4_usage_inode_ratio(uint64_t bytes)
{
	/* floppy, small, default, big and huge, at mke2fs's size bounds */
	static const struct {
		uint64_t below, ratio;
	} usage[] = {
		{ 3ULL << 20, 8192 },  { 512ULL << 20, 4096 }, { 4ULL << 40, 16384 },
		{ 16ULL << 40, 32768 }, { UINT64_MAX, 65536 },
	};
	size_t i = 0;

	while (i + 1 < sizeof(usage) / sizeof(usage[0]) && bytes >= usage[i].below)
		i++;
	return usage[i].ratio;
}

uint64_t ext4_inodes_count(const struct plan *pl, uint64_t bytes, int *explicit_set)
{
	uint64_t want = ext4_inodes_wanted(pl), n;

	*explicit_set = pl->prm.inodes || pl->prm.inode_ratio;
	if (pl->prm.inodes)
		return pl->prm.inodes;
	n = bytes / (pl->prm.inode_ratio ? pl->prm.inode_ratio : ext4_usage_inode_ratio(bytes));
	return *explicit_set || n >= want ? n : want;
}

/*
 * The fixed metadata of a file system of blocks 4 KiB blocks, as mke2fs lays
 * it out, in blocks: inode tables of inodes inodes (whole blocks in every
 * group), two bitmaps a group, and the superblock, the descriptors and the
 * blocks reserved for growing them (resize_inode) in each backup group.
 */
static uint64_t fixed_blocks(uint64_t blocks, uint64_t inodes, int desc_size)
{
	uint64_t groups = (blocks + EST_BPG - 1) / EST_BPG, per_block = EST_BLOCK / EST_INODE;
	uint64_t ipg, gdpb = EST_BLOCK / (uint64_t)desc_size, desc, rsv, max, out, backups;

	if (!groups)
		groups = 1;
	ipg = (inodes + groups - 1) / groups;
	ipg = (ipg + per_block - 1) / per_block * per_block;
	desc = (groups + gdpb - 1) / gdpb;
	max = blocks < 0xffffffffULL / 1024 ? blocks * 1024 : 0xffffffffULL;
	rsv = ((max + EST_BPG - 1) / EST_BPG + gdpb - 1) / gdpb;
	rsv = rsv > desc ? rsv - desc : 0;
	if (rsv > EST_BLOCK / 4)
		rsv = EST_BLOCK / 4;
	/* sparse_super: groups 0, 1 and the powers of 3, 5 and 7 */
	backups = 1 + (groups > 1);
	for (uint64_t base = 3; base <= 7; base += 2)
		for (uint64_t p = base; p < groups; p *= base)
			backups++;
	out = groups * (2 + ipg / per_block) + backups * (1 + desc + rsv);
	return out + 1 + EST_LPF_BLOCKS; /* the resize inode's block, lost+found's blocks */
}

static uint64_t blocks_of(uint64_t bytes)
{
	return (bytes + EST_BLOCK - 1) / EST_BLOCK;
}

int ext4_estimate(const struct plan *pl, struct backend_estimate *e)
{
	uint64_t data = 0, dir_blocks = 0, nsym = 0, *nchild, fixed, empty;
	char target[PATH_MAX];
	int set;

	memset(e, 0, sizeof(*e));
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		struct prealloc pa;

		data += blocks_of(pl->file_size[f]);
		if (prealloc_enabled(pl) && prealloc_file(pl, f, &pa))
			data += blocks_of(pa.beyond);
	}
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		if (pl->link_kind[l] & LINK_HARD)
			continue;
		nsym++;
		if (LINK_IS_SYMLINK(pl->link_kind[l]) &&
		    plan_symlink_target(pl, l, target, sizeof(target)) > FAST_SYMLINK_MAX)
			data++;
	}
	nchild = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*nchild));
	for (uint32_t d = 1; nchild && d < pl->ndirs; d++)
		nchild[pl->dir_parent[d]]++;
	for (uint32_t d = 0; d < pl->ndirs; d++) {
		uint64_t n = (uint64_t)pl->dir_nfiles[d] + pl->dir_nlinks[d] + (nchild ? nchild[d] : 0);
		uint64_t b = blocks_of(24 + n * EST_DIRENT);

		dir_blocks += b ? b : 1;
	}
	free(nchild);
	if (pl->inc) /* the user's files, their directories and attribute blocks */
		data += include_blocks(pl->inc, EST_BLOCK);
	e->data = data * EST_BLOCK;
	e->dirs = (dir_blocks + 1) * EST_BLOCK; /* lost+found */
	e->inodes = (pl->nfiles + pl->ndirs + nsym + EST_FIRST_INO) * EST_INODE;
	/* what mke2fs lays out beside them at this size counts too (a tiny image: most of it) */
	fixed = fixed_blocks(pl->prm.size / EST_BLOCK, ext4_inodes_count(pl, pl->prm.size, &set),
			     ext4_kind_of(&pl->prm) == EXT4_KIND_EXT4 ? 64 : 32) * EST_BLOCK;
	empty = fixed_blocks(EST_MIN_FREE * 2, ext4_inodes_wanted(&(struct plan){ 0 }), 64);
	e->floor = (empty + EST_MIN_FREE) * EST_BLOCK;
	if (ext4_kind_of(&pl->prm) != EXT4_KIND_EXT2) {
		int j = ext2fs_default_journal_size(pl->prm.size / EST_BLOCK);

		e->journal = j > 0 ? (uint64_t)j * EST_BLOCK : 0;
	}
	e->meta = (e->data + e->dirs) / 100;
	if (fixed > e->inodes + e->meta)
		e->meta = fixed - e->inodes;
	/* the layout keeps spare metadata blocks too: at 8 MiB, they decide */
	e->meta += EXT4_POOL_BLOCKS(pl->ndirs) * EST_BLOCK;
	e->total = e->data + e->dirs + e->inodes + e->journal + e->meta;
	return 0;
}
