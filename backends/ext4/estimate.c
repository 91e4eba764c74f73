/* estimate.c - the quick upfront estimate of the space a plan needs on ext2/3/4 */
#include <errno.h>
#include <ext2fs/ext2fs.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "backends/ext4/estimate.h"

#define EST_BLOCK	 4096ULL
#define EST_INODE	 256ULL
#define EST_DIRENT	 24ULL /* average ext4 directory entry with a short name */
#define EST_FIRST_INO	 11ULL /* inodes 1..10 are reserved, 11 is lost+found */
#define FAST_SYMLINK_MAX 59    /* longer targets need a block of their own */

static uint64_t blocks_of(uint64_t bytes)
{
	return (bytes + EST_BLOCK - 1) / EST_BLOCK;
}

int ext4_estimate(const struct plan *pl, struct backend_estimate *e)
{
	uint64_t data = 0, dir_blocks = 0, nsym = 0, *nchild;
	char target[PATH_MAX];

	memset(e, 0, sizeof(*e));
	for (uint64_t f = 0; f < pl->nfiles; f++)
		data += blocks_of(pl->file_size[f]);
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		if (pl->link_kind[l] & LINK_HARD)
			continue;
		nsym++;
		if (plan_symlink_target(pl, l, target, sizeof(target)) > FAST_SYMLINK_MAX)
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
	e->data = data * EST_BLOCK;
	e->dirs = (dir_blocks + 1) * EST_BLOCK; /* lost+found */
	e->inodes = (pl->nfiles + pl->ndirs + nsym + EST_FIRST_INO) * EST_INODE;
	if (pl->prm.fs != FS_EXT2) {
		int j = ext2fs_default_journal_size(pl->prm.size / EST_BLOCK);

		e->journal = j > 0 ? (uint64_t)j * EST_BLOCK : 0;
	}
	e->meta = (e->data + e->dirs) / 100;
	e->total = e->data + e->dirs + e->inodes + e->journal + e->meta;
	return 0;
}
