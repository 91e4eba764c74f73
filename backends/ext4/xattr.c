/* xattr.c - the ext2/3/4 backend's extended attributes: libext2fs's xattr API, identical blocks shared */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "backends/ext4/xattr.h"
#include "util/array.h"
#include "util/e2err.h"

/* The kernel's most references to one xattr block (EXT4_XATTR_REFCOUNT_MAX) */
#define XATTR_REFCOUNT_MAX 1024
#define XATTR_HDR 32 /* sizeof(struct ext2_ext_attr_header) */

/* Shared blocks by the hash of their entries and values: open addressing. */
struct ext4_xshare {
	uint64_t *hash; /* 0 = empty */
	blk64_t *blk;
	size_t cap, n;
	unsigned char *a, *b; /* two blocks */
};

static int share_grow(struct ext4_xshare *s)
{
	struct ext4_xshare t = { 0 };

	t.cap = s->cap ? s->cap * 2 : 1024;
	t.hash = calloc(t.cap, sizeof(*t.hash));
	t.blk = calloc(t.cap, sizeof(*t.blk));
	if (!t.hash || !t.blk) {
		free(t.hash);
		free(t.blk);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->cap; i++) {
		size_t j = s->hash[i] & (t.cap - 1);

		if (!s->hash[i])
			continue;
		while (t.hash[j])
			j = (j + 1) & (t.cap - 1);
		t.hash[j] = s->hash[i];
		t.blk[j] = s->blk[i];
	}
	free(s->hash);
	free(s->blk);
	s->hash = t.hash;
	s->blk = t.blk;
	s->cap = t.cap;
	return 0;
}

/* Slot of hash h: where it is, or the empty slot where it goes. */
static size_t share_slot(const struct ext4_xshare *s, uint64_t h, const unsigned char *blk,
			 ext2_filsys fs)
{
	size_t i = h & (s->cap - 1);

	for (; s->hash[i]; i = (i + 1) & (s->cap - 1)) {
		if (s->hash[i] != h)
			continue;
		/* same hash: the same entries and values, or a collision */
		if (!io_channel_read_blk64(fs->io, s->blk[i], 1, s->b) &&
		    !memcmp(blk + XATTR_HDR, s->b + XATTR_HDR, fs->blocksize - XATTR_HDR))
			return i;
	}
	return i;
}

/*
 * Inode ino's block, just written by libext2fs for it alone: when an
 * earlier inode's block holds the same entries, point ino there (one
 * more reference) and free this one, as the kernel's mbcache does.
 */
static int share_block(struct ext4_build *x, struct ext4_xshare *s, ext2_ino_t ino)
{
	struct ext2_inode_large *in = (struct ext2_inode_large *)x->ibuf;
	struct ext2_ext_attr_header *hdr = (struct ext2_ext_attr_header *)s->b;
	ext2_filsys fs = x->fs;
	blk64_t own, blk;
	uint64_t h;
	size_t i;
	errcode_t err;

	err = ext2fs_read_inode_full(fs, ino, EXT2_INODE(in), (int)x->isize);
	if (err)
		return e2err_errno(err);
	own = ext2fs_file_acl_block(fs, EXT2_INODE(in));
	if (!own)
		return 0;
	x->xattr_blocks_ref++;
	err = io_channel_read_blk64(fs->io, own, 1, s->a);
	if (err)
		return e2err_errno(err);
	h = XXH3_64bits(s->a + XATTR_HDR, fs->blocksize - XATTR_HDR) | 1;
	if ((s->n + 1) * 2 > s->cap && share_grow(s))
		return -ENOMEM;
	i = share_slot(s, h, s->a, fs);
	if (!s->hash[i]) {
		s->hash[i] = h;
		s->blk[i] = own;
		s->n++;
		x->xattr_blocks++;
		return 0;
	}
	blk = s->blk[i];
	/* s->b holds blk now (share_slot compared it) */
	if (hdr->h_refcount >= XATTR_REFCOUNT_MAX) {
		s->blk[i] = own; /* full: this block is the one to share from now on */
		x->xattr_blocks++;
		return 0;
	}
	hdr->h_refcount++;
	err = ext2fs_write_ext_attr3(fs, blk, s->b, ino);
	if (!err) {
		ext2fs_file_acl_block_set(fs, EXT2_INODE(in), blk);
		err = ext2fs_write_inode_full(fs, ino, EXT2_INODE(in), (int)x->isize);
	}
	if (err)
		return e2err_errno(err);
	ext2fs_block_alloc_stats2(fs, own, -1);
	return 0;
}

static int set_all(struct ext4_build *x, ext2_ino_t ino, const struct plan_xattrs *xa)
{
	struct ext2_xattr_handle *h = NULL;
	errcode_t err;

	err = ext2fs_xattrs_open(x->fs, ino, &h);
	if (!err)
		err = ext2fs_xattrs_read(h);
	for (unsigned i = 0; !err && i < xa->n; i++)
		err = ext2fs_xattr_set(h, xa->name[i], xa->value[i], xa->len[i]);
	if (h) {
		errcode_t cerr = ext2fs_xattrs_close(&h);

		if (!err)
			err = cerr;
	}
	return err ? e2err_errno(err) : 0;
}

static int entry_xattrs(struct ext4_build *x, enum plan_entry kind, uint64_t id, ext2_ino_t ino,
			uint32_t dir, const char *name)
{
	struct plan_xattrs *xa = x->xattrs;
	char path[PATH_MAX];
	int ret;

	if (!plan_xattrs(x->pl, kind, id, xa))
		return 0;
	x->xattr_entries += xa->n;
	x->xattr_inodes++;
	ret = set_all(x, ino, xa);
	if (!ret)
		ret = share_block(x, x->xshare, ino);
	if (ret)
		return ext4_set_err(
			x->b, ret, "cannot write the extended attributes of '%s': %s",
			ext4_entry_path(x, dir, name, path, sizeof(path)),
			ret == -ENOSPC || ret == -ERANGE ?
				"they do not fit one block of this file system; use larger blocks or fewer attributes" :
				strerror(-ret));
	return 0;
}

static int xattr_dir(struct ext4_build *x, uint32_t j)
{
	return entry_xattrs(x, PLAN_DIR, j, x->dir_ino[j], j, NULL);
}

static int xattr_file(struct ext4_build *x, uint64_t f)
{
	char name[NAME_MAX_LEN + 1];

	plan_file_name(x->pl, f, name);
	return entry_xattrs(x, PLAN_FILE, f, x->file_ino[f], x->pl->file_dir[f], name);
}

static int xattr_link(struct ext4_build *x, uint32_t l)
{
	char name[NAME_MAX_LEN + 1];

	plan_link_name(x->pl, l, name);
	return entry_xattrs(x, PLAN_LINK, l, x->link_ino[l], x->pl->link_dir[l], name);
}

int ext4_write_xattrs(struct ext4_build *x)
{
	static const struct ext4_inode_steps steps = { xattr_dir, xattr_file, xattr_link };
	struct ext4_xshare s = { 0 };
	int ret = -ENOMEM;

	if (!plan_xattrs_enabled(x->pl))
		return 0;
	if (!ext2fs_has_feature_xattr(x->fs->super))
		return ext4_set_err(x->b, -EOPNOTSUPP,
				    "'%s' has no ext_attr feature, so no extended attributes; drop '-O ^ext_attr' from --mkfs-options",
				    x->st->target);
	x->xattrs = malloc(sizeof(*x->xattrs));
	s.a = malloc(x->bs);
	s.b = malloc(x->bs);
	if (x->xattrs && s.a && s.b && !share_grow(&s)) {
		x->xshare = &s;
		ret = ext4_each_inode(x, &steps);
		x->xshare = NULL;
	} else {
		ext4_set_err(x->b, ret, "out of memory");
	}
	free(s.hash);
	free(s.blk);
	free(s.a);
	free(s.b);
	free(x->xattrs);
	x->xattrs = NULL;
	return ret;
}
