/* include.c - the ext2/3/4 backend's --include entries: written through libext2fs after the plan's */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends/ext4/dir.h"
#include "backends/ext4/include.h"
#include "plan/include.h"
#include "util/e2err.h"

#define COPY_CHUNK (1u << 20)

/* What writing the included part needs beside the build. */
struct inc_write {
	struct ext4_build *x;
	const struct include_set *s;
	ext2_ino_t *ino; /* per entry: its inode (hard links: their file's) */
	char *buf;	 /* COPY_CHUNK bytes */
};

static uint32_t time_extra(const struct timespec *t)
{
	int64_t epoch = ((int64_t)t->tv_sec - (int64_t)(int32_t)t->tv_sec) >> 32;

	return (uint32_t)(epoch & EXT4_EPOCH_MASK) | ((uint32_t)t->tv_nsec << EXT4_EPOCH_BITS);
}

static int e2_fail(struct inc_write *w, errcode_t err, const char *what,
		   const struct include_entry *e)
{
	return ext4_set_err(w->x->b, e2err_errno(err), "--include: cannot %s '%s' in '%s': %s",
			    what, e->dest, w->x->st->target, error_message(err));
}


/*
 * The entry's owner, mode, times (nanoseconds where the inode has room)
 * and, for a file, its link count, over what libext2fs wrote.
 */
static errcode_t set_meta(struct inc_write *w, ext2_ino_t ino, const struct include_entry *e)
{
	struct ext4_build *x = w->x;
	struct ext2_inode_large *in = (struct ext2_inode_large *)x->ibuf;
	errcode_t err;

	err = ext2fs_read_inode_full(x->fs, ino, (struct ext2_inode *)in, (int)x->isize);
	if (err)
		return err;
	in->i_mode = (uint16_t)((in->i_mode & LINUX_S_IFMT) | (e->mode & 07777));
	in->i_uid = (uint16_t)e->uid;
	in->osd2.linux2.l_i_uid_high = (uint16_t)(e->uid >> 16);
	in->i_gid = (uint16_t)e->gid;
	in->osd2.linux2.l_i_gid_high = (uint16_t)(e->gid >> 16);
	in->i_atime = (uint32_t)e->atime.tv_sec;
	in->i_mtime = (uint32_t)e->mtime.tv_sec;
	in->i_ctime = (uint32_t)e->ctime.tv_sec;
	if (e->kind == INCLUDE_FILE)
		in->i_links_count = (uint16_t)e->nlink;
	if (x->isize > EXT2_GOOD_OLD_INODE_SIZE && in->i_extra_isize >= 24) {
		in->i_atime_extra = time_extra(&e->atime);
		in->i_mtime_extra = time_extra(&e->mtime);
		in->i_ctime_extra = time_extra(&e->ctime);
		/* no birth time is read from the host: the image's time reference */
		in->i_crtime = (uint32_t)x->fs->now;
		in->i_crtime_extra = 0;
	}
	return ext2fs_write_inode_full(x->fs, ino, (struct ext2_inode *)in, (int)x->isize);
}

static errcode_t set_xattrs(struct inc_write *w, ext2_ino_t ino, const struct include_entry *e)
{
	struct ext2_xattr_handle *h;
	errcode_t err, cerr;

	if (!e->nxattrs)
		return 0;
	err = ext2fs_xattrs_open(w->x->fs, ino, &h);
	if (err)
		return err;
	err = ext2fs_xattrs_read(h);
	for (size_t i = 0; !err && i < e->nxattrs; i++)
		err = ext2fs_xattr_set(h, e->xattrs[i].name, e->xattrs[i].value, e->xattrs[i].len);
	cerr = ext2fs_xattrs_close(&h);
	return err ? err : cerr;
}

static int write_dir(struct inc_write *w, ext2_ino_t parent, size_t i)
{
	const struct include_entry *e = &w->s->e[i];
	ext2_filsys fs = w->x->fs;
	errcode_t err;
	ext2_ino_t ino;

	err = ext2fs_new_inode(fs, parent, LINUX_S_IFDIR | 0755, NULL, &ino);
	if (!err) /* made unnamed (it counts in parent's links), then linked */
		err = ext2fs_mkdir(fs, parent, ino, NULL); /* ino unnamed: nothing linked */
	if (!err)
		err = ext4_link_grow(fs, parent, include_name(e), ino, EXT2_FT_DIR);
	if (err)
		return e2_fail(w, err, "make directory", e);
	w->ino[i] = ino;
	return 0;
}

static int write_symlink(struct inc_write *w, ext2_ino_t parent, size_t i)
{
	const struct include_entry *e = &w->s->e[i];
	ext2_filsys fs = w->x->fs;
	errcode_t err;
	ext2_ino_t ino;

	if (strlen(e->target) >= fs->blocksize)
		return ext4_set_err(w->x->b, -ENAMETOOLONG,
				    "--include: the symbolic link '%s' (from '%s') points to %zu bytes; blocks of %u bytes hold at most %u",
				    e->dest, e->src, strlen(e->target), fs->blocksize,
				    fs->blocksize - 1);
	err = ext2fs_new_inode(fs, parent, LINUX_S_IFLNK | 0777, NULL, &ino);
	if (!err)
		err = ext2fs_symlink(fs, parent, ino, NULL, e->target);
	if (!err)
		err = ext4_link_grow(fs, parent, include_name(e), ino, EXT2_FT_SYMLINK);
	if (err)
		return e2_fail(w, err, "make symbolic link", e);
	w->ino[i] = ino;
	return 0;
}

/* A regular file's bytes from SRC, refused when SRC changed since the plan read it. */
static int copy_data(struct inc_write *w, ext2_ino_t ino, const struct include_entry *e)
{
	struct ext4_build *x = w->x;
	ext2_file_t f;
	uint64_t done = 0;
	errcode_t err, cerr;
	int fd, ret = 0;

	fd = include_open_source(e, x->b->errmsg, sizeof(x->b->errmsg));
	if (fd < 0)
		return fd;
	err = ext2fs_file_open(x->fs, ino, EXT2_FILE_WRITE, &f);
	if (err) {
		close(fd);
		return e2_fail(w, err, "open", e);
	}
	for (;;) {
		ssize_t n = read(fd, w->buf, COPY_CHUNK);
		unsigned got;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = ext4_set_err(x->b, -errno, "--include: cannot read '%s': %s", e->src,
					   strerror(errno));
			break;
		}
		if (n == 0 || done + (uint64_t)n > e->size) {
			done += (uint64_t)n;
			break;
		}
		err = ext2fs_file_write(f, w->buf, (unsigned)n, &got);
		if (!err && got != (unsigned)n)
			err = EXT2_ET_SHORT_WRITE;
		if (err) {
			ret = e2_fail(w, err, "write", e);
			break;
		}
		done += (uint64_t)n;
		if (ext4_cancelled(x->st)) {
			ret = ext4_set_err(x->b, -EINTR, "interrupted");
			break;
		}
	}
	cerr = ext2fs_file_close(f);
	if (!ret && cerr)
		ret = e2_fail(w, cerr, "write", e);
	if (!ret)
		ret = include_check_copied(e, fd, done, x->b->errmsg, sizeof(x->b->errmsg));
	close(fd);
	return ret;
}

static int write_file(struct inc_write *w, ext2_ino_t parent, size_t i)
{
	const struct include_entry *e = &w->s->e[i];
	ext2_filsys fs = w->x->fs;
	struct ext2_inode inode;
	errcode_t err;
	ext2_ino_t ino;

	err = ext2fs_new_inode(fs, parent, LINUX_S_IFREG | 0644, NULL, &ino);
	if (err)
		return e2_fail(w, err, "allocate an inode for", e);
	ext2fs_inode_alloc_stats2(fs, ino, +1, 0);
	memset(&inode, 0, sizeof(inode));
	inode.i_mode = (uint16_t)(LINUX_S_IFREG | (e->mode & 07777));
	inode.i_links_count = 1;
	if (ext2fs_has_feature_extents(fs->super)) {
		ext2_extent_handle_t h;

		/* an empty extent tree in i_block, EXT4_EXTENTS_FL set */
		err = ext2fs_extent_open2(fs, ino, &inode, &h);
		if (!err)
			ext2fs_extent_free(h);
	}
	if (!err)
		err = ext2fs_write_new_inode(fs, ino, &inode);
	if (!err)
		err = ext4_link_grow(fs, parent, include_name(e), ino, EXT2_FT_REG_FILE);
	if (err)
		return e2_fail(w, err, "make file", e);
	w->ino[i] = ino;
	return e->size ? copy_data(w, ino, e) : 0;
}

static int write_entry(struct inc_write *w, size_t i)
{
	const struct include_entry *e = &w->s->e[i];
	size_t p = include_parent(w->s, i);
	ext2_ino_t parent = p == SIZE_MAX ? EXT2_ROOT_INO : w->ino[p];
	errcode_t err;
	int ret;

	switch (e->kind) {
	case INCLUDE_DIR:
		ret = write_dir(w, parent, i);
		break;
	case INCLUDE_FILE:
		ret = write_file(w, parent, i);
		break;
	case INCLUDE_SYMLINK:
		ret = write_symlink(w, parent, i);
		break;
	case INCLUDE_HARDLINK:
		/* the file's link count (set with its inode) counts this name already */
		w->ino[i] = w->ino[e->link_of];
		err = ext4_link_grow(w->x->fs, parent, include_name(e), w->ino[i], EXT2_FT_REG_FILE);
		return err ? e2_fail(w, err, "make hard link", e) : 0;
	default:
		return ext4_set_err(w->x->b, -EINVAL, "--include: '%s' is of no kind known",
				    e->dest);
	}
	if (ret)
		return ret;
	err = set_xattrs(w, w->ino[i], e);
	if (err)
		return e2_fail(w, err, "set the extended attributes of", e);
	return 0;
}

int ext4_write_includes(struct ext4_build *x)
{
	const struct include_set *s = x->pl->inc;
	struct inc_write w = { .x = x, .s = s };
	int ret = 0;

	if (!s || !s->n)
		return 0;
	w.ino = calloc(s->n, sizeof(*w.ino));
	w.buf = malloc(COPY_CHUNK);
	if (!w.ino || !w.buf) {
		ret = ext4_set_err(x->b, -ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; !ret && i < s->n; i++) {
		ret = write_entry(&w, i);
		if (!ret && ext4_cancelled(x->st))
			ret = ext4_set_err(x->b, -EINTR, "interrupted");
	}
	/*
	 * Owners, modes and times last, children before their directory: a
	 * directory's entries added after it was made would leave its times
	 * as libext2fs' (fs->now) otherwise.
	 */
	for (size_t i = s->n; !ret && i-- > 0;) {
		errcode_t err;

		if (s->e[i].kind == INCLUDE_HARDLINK)
			continue;
		err = set_meta(&w, w.ino[i], &s->e[i]);
		if (err)
			ret = e2_fail(&w, err, "set the owner, mode and times of", &s->e[i]);
	}
out:
	free(w.ino);
	free(w.buf);
	return ret;
}
