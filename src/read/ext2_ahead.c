/* ext2_ahead.c - an ext2/3/4 file system's inode tables and directory blocks asked of the disk at once, ahead of a walk that reads them one at a time */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext3_extents.h>
#include <ext2fs/ext2fs.h>

#include "read/ext2_ahead.h"
#include "util/array.h"
#include "util/util.h"

struct range {
	uint64_t start, len;
};

static int cmp_range(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* Directory blocks an inode names directly (extent tree of depth 0, or direct blocks). */
static int dir_ranges(const struct ext2_inode *in, struct range **r, size_t *n, size_t *cap)
{
	if (in->i_flags & EXT4_INLINE_DATA_FL)
		return 0;
	if (in->i_flags & EXT4_EXTENTS_FL) {
		const struct ext3_extent_header *h = (const void *)in->i_block;
		const struct ext3_extent *x = (const void *)(h + 1);

		if (ext2fs_le16_to_cpu(h->eh_magic) != EXT3_EXT_MAGIC || h->eh_depth ||
		    ext2fs_le16_to_cpu(h->eh_entries) > 4)
			return 0;
		for (unsigned i = 0; i < ext2fs_le16_to_cpu(h->eh_entries); i++) {
			uint64_t len = ext2fs_le16_to_cpu(x[i].ee_len);

			if (len > EXT_INIT_MAX_LEN)
				len -= EXT_INIT_MAX_LEN;
			if (array_grow(r, cap, *n + 1, sizeof(**r)))
				return -ENOMEM;
			(*r)[(*n)++] = (struct range){
				ext2fs_le32_to_cpu(x[i].ee_start) |
				((uint64_t)ext2fs_le16_to_cpu(x[i].ee_start_hi) << 32), len };
		}
		return 0;
	}
	for (unsigned i = 0; i < EXT2_NDIR_BLOCKS; i++) {
		if (!in->i_block[i])
			continue;
		if (array_grow(r, cap, *n + 1, sizeof(**r)))
			return -ENOMEM;
		(*r)[(*n)++] = (struct range){ in->i_block[i], 1 };
	}
	return 0;
}

/* Whether bytes [off, off + len) of fd are all in the page cache: mincore(2), nothing touched. */
static int resident(int fd, uint64_t off, uint64_t len)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), at = off & ~(page - 1);
	size_t n = (size_t)(len + off - at);
	unsigned char *vec = malloc((n + page - 1) / page);
	void *p = vec ? mmap(NULL, n, PROT_READ, MAP_SHARED, fd, (off_t)at) : MAP_FAILED;
	int all = p != MAP_FAILED && !mincore(p, n, vec);

	for (size_t i = 0; all && i < (n + page - 1) / page; i++)
		all = vec[i] & 1;
	if (p != MAP_FAILED)
		munmap(p, n);
	free(vec);
	return all;
}

/* A readahead request for bytes [off, off + len) of fd, not waited for; 1. */
static int ahead(int fd, uint64_t off, uint64_t len)
{
	posix_fadvise(fd, (off_t)off, (off_t)len, POSIX_FADV_WILLNEED);
	return 1;
}

/*
 * each() of every run of inode table blocks in use (the groups' tables in
 * disk order, joined where they follow one another), until one returns 0:
 * then 0, else 1.
 */
static int itables_each(ext2_filsys fs, int fd, uint64_t base,
			int (*each)(int fd, uint64_t off, uint64_t len))
{
	uint64_t s = 0, e = 0, per = EXT2_INODES_PER_GROUP(fs->super);
	unsigned isize = EXT2_INODE_SIZE(fs->super);
	int lazy = ext2fs_has_group_desc_csum(fs);

	for (dgrp_t g = 0; g <= fs->group_desc_count; g++) {
		uint64_t at = 0, n = 0;

		if (g < fs->group_desc_count &&
		    !(lazy && ext2fs_bg_flags_test(fs, g, EXT2_BG_INODE_UNINIT))) {
			at = ext2fs_inode_table_loc(fs, g);
			n = per - (lazy ? MIN(per, ext2fs_bg_itable_unused(fs, g)) : 0);
			n = (n * isize + fs->blocksize - 1) / fs->blocksize;
		}
		if (n && at == e) {
			e += n;
			continue;
		}
		if (e > s && !each(fd, base + s * fs->blocksize, (e - s) * fs->blocksize))
			return 0;
		s = at;
		e = at + n;
	}
	return 1;
}

void ext2_ahead_dirs(ext2_filsys fs, int fd, uint64_t base, int cold)
{
	struct ext2_inode_large in;
	ext2_inode_scan scan;
	ext2_ino_t ino;
	struct range *r = NULL;
	size_t n = 0, cap = 0;
	uint64_t blocks = ext2fs_blocks_count(fs->super);
	int flags = fs->flags;

	if (cold && itables_each(fs, fd, base, resident))
		return;
	itables_each(fs, fd, base, ahead);
	/* a small buffer: its pages are touched once each, the kernel reads ahead of it */
	if (ext2fs_open_inode_scan(fs, 64, &scan))
		return;
	ext2fs_inode_scan_flags(scan, EXT2_SF_SKIP_MISSING_ITABLE, 0);
	/* a hint only: the inodes' checksums are verified where they are read for use */
	fs->flags |= EXT2_FLAG_IGNORE_CSUM_ERRORS;
	while (!ext2fs_get_next_inode_full(scan, &ino, (struct ext2_inode *)&in, sizeof(in)) &&
	       ino) {
		if (!in.i_links_count || !LINUX_S_ISDIR(in.i_mode))
			continue;
		if (dir_ranges((struct ext2_inode *)&in, &r, &n, &cap))
			break;
	}
	ext2fs_close_inode_scan(scan);
	fs->flags = (fs->flags & ~EXT2_FLAG_IGNORE_CSUM_ERRORS) |
		    (flags & EXT2_FLAG_IGNORE_CSUM_ERRORS);
	if (n > 1)
		qsort(r, n, sizeof(*r), cmp_range);
	for (size_t i = 0; i < n;) {
		uint64_t s = r[i].start, e = s + r[i].len;

		/* runs a few blocks apart make one request */
		for (i++; i < n && r[i].start <= e + 8; i++)
			if (r[i].start + r[i].len > e)
				e = r[i].start + r[i].len;
		if (e <= blocks)
			posix_fadvise(fd, (off_t)(base + s * fs->blocksize),
				      (off_t)((e - s) * fs->blocksize), POSIX_FADV_WILLNEED);
	}
	free(r);
}
