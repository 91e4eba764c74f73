/* edit.c - an ext2/3/4 image or device edited offline by path through libext2fs: the moves of `imprint evolve` */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ext2fs/ext3_extents.h>
#include <linux/fs.h>

#include "backends/ext4/dir.h"
#include "backends/ext4/edit.h"
#include "backends/ext4/undo.h"
#include "backends/ext4/write.h"
#include "read/evolve_mark.h"
#include "read/ext2_ahead.h"
#include "util/array.h"
#include "util/e2err.h"
#include "util/util.h"

/* backend.h's opaque handles, as the ext4 backend completes them */
struct backend_edit {
	ext2_filsys fs;
	size_t isize;                   /* on-disk inode size */
	struct ext2_inode_large *in;    /* an inode buffer of isize bytes */
	char *marked;                   /* the target when it carries our mark, or NULL */
	uint64_t kib_written;           /* s_kbytes_written when opened */
	char boot[EVOLVE_MARK_SIZE];    /* what the mark's bytes held, put back at close */
	/*
	 * Directories looked up by path, each a directory's inode reached
	 * through directories only (no symbolic link on the way): entry i + 1
	 * of slot is dpath[i] and dino[i].  Emptied when a directory, or
	 * anything but a regular file, is removed or renamed.
	 */
	char **dpath;
	ext2_ino_t *dino;
	size_t ndirs, dcap, nslot;
	uint64_t *slot;
	/* the last path looked up (a file's moves come one after another): "" none or forgotten */
	char last[PATH_MAX];
	ext2_ino_t last_dir, last_ino;
	/*
	 * The names of directories read whole once a run: entry i + 1 of
	 * nmslot is name nname[i] (nlen[i] bytes, hash nhash[i]) in directory
	 * ndir[i], inode nino[i]; a directory read has an entry of length 0,
	 * its mark.  Kept as the editor links and unlinks, they answer as
	 * ext2fs_lookup() would without reading the directory again.  A
	 * name dropped leaves nname[i] NULL.
	 */
	char **nname;
	uint8_t *nlen;
	ext2_ino_t *ndir, *nino;
	uint64_t *nhash, *nmslot;
	size_t nnames, ncap, nmslots;
};

struct backend_edit_file {
	struct backend_edit *e;
	ext2_ino_t ino;
	ext2_file_t file; /* libext2fs' file; NULL after a run was written, until needed */
};

/* libext2fs' code as a negative errno, with the codes a path walk meets named. */
static int e2(errcode_t err)
{
	if (err == EXT2_ET_FILE_NOT_FOUND)
		return -ENOENT;
	if (err == EXT2_ET_NO_DIRECTORY)
		return -ENOTDIR;
	if (err == EXT2_ET_DIR_NO_SPACE)
		return -ENOSPC;
	if (err == EXT2_ET_DIR_EXISTS)
		return -EEXIST;
	return e2err_errno(err);
}

static uint64_t path_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static uint64_t dir_slot_hash(uint64_t entry, const void *ctx)
{
	const char *p = ((const struct backend_edit *)ctx)->dpath[entry - 1];

	return path_hash(p, strlen(p));
}

/* The slot of directory path [p, p + n) in e's table: its entry, or the free slot it takes. */
static size_t dir_slot(const struct backend_edit *e, const char *p, size_t n)
{
	size_t i = path_hash(p, n) & (e->nslot - 1);

	for (; e->slot[i]; i = (i + 1) & (e->nslot - 1)) {
		const char *q = e->dpath[e->slot[i] - 1];

		if (!strncmp(q, p, n) && !q[n])
			break;
	}
	return i;
}

/* Directory path [p, p + n) is inode ino (no room: not remembered, the next walk finds it). */
static void dir_remember(struct backend_edit *e, const char *p, size_t n, ext2_ino_t ino)
{
	const struct array_col cols[] = { { &e->dpath, sizeof(*e->dpath) },
					  { &e->dino, sizeof(*e->dino) } };
	char *copy;
	size_t i;

	if (array_slots_reserve(&e->slot, &e->nslot, e->ndirs, 1024, dir_slot_hash, e) ||
	    array_grow_cols(cols, ARRAY_SIZE(cols), &e->dcap, e->ndirs + 1) ||
	    !(copy = strndup(p, n)))
		return;
	i = dir_slot(e, p, n);
	if (e->slot[i]) {
		free(copy);
		return;
	}
	e->dpath[e->ndirs] = copy;
	e->dino[e->ndirs] = ino;
	e->slot[i] = ++e->ndirs;
}

/* Every directory looked up forgotten (one was removed, or a link on some path may have gone). */
static void dir_forget(struct backend_edit *e)
{
	for (size_t i = 0; i < e->ndirs; i++)
		free(e->dpath[i]);
	if (e->slot)
		memset(e->slot, 0, e->nslot * sizeof(*e->slot));
	e->ndirs = 0;
}

static void dir_table_free(struct backend_edit *e)
{
	dir_forget(e);
	FREE_ALL(e->dpath, e->dino, e->slot);
}

static uint64_t name_hash(ext2_ino_t dir, const char *name, size_t len)
{
	uint64_t h = path_hash(name, len);

	return (h ^ dir) * 1099511628211ULL;
}

static uint64_t name_slot_hash(uint64_t entry, const void *ctx)
{
	return ((const struct backend_edit *)ctx)->nhash[entry - 1];
}

/* The slot of name [name, name + len) in directory dir (hash h): its entry, or the free one. */
static size_t name_slot(const struct backend_edit *e, ext2_ino_t dir, const char *name, size_t len,
			uint64_t h)
{
	size_t i = h & (e->nmslots - 1);

	for (; e->nmslot[i]; i = (i + 1) & (e->nmslots - 1)) {
		size_t k = e->nmslot[i] - 1;

		if (e->nhash[k] == h && e->ndir[k] == dir && e->nlen[k] == len &&
		    !memcmp(e->nname[k], name, len))
			break;
	}
	return i;
}

/* The entry of name [name, name + len) in directory dir, or SIZE_MAX. */
static size_t name_find(const struct backend_edit *e, ext2_ino_t dir, const char *name, size_t len)
{
	size_t i;

	if (!e->nmslots)
		return SIZE_MAX;
	i = name_slot(e, dir, name, len, name_hash(dir, name, len));
	return e->nmslot[i] ? e->nmslot[i] - 1 : SIZE_MAX;
}

/* Whether directory dir's names were read (it has its mark). */
static int names_read(const struct backend_edit *e, ext2_ino_t dir)
{
	return name_find(e, dir, "", 0) != SIZE_MAX;
}

/* Name [name, name + len) of directory dir is inode ino: 0, 1 when dir holds it, or -ENOMEM. */
static int name_add(struct backend_edit *e, ext2_ino_t dir, const char *name, size_t len,
		    ext2_ino_t ino)
{
	const struct array_col cols[] = { { &e->nname, sizeof(*e->nname) },
					  { &e->nlen, sizeof(*e->nlen) },
					  { &e->ndir, sizeof(*e->ndir) },
					  { &e->nino, sizeof(*e->nino) },
					  { &e->nhash, sizeof(*e->nhash) } };
	uint64_t h = name_hash(dir, name, len);
	size_t i;
	char *copy;

	if (array_slots_reserve(&e->nmslot, &e->nmslots, e->nnames, 1024, name_slot_hash, e) ||
	    array_grow_cols(cols, ARRAY_SIZE(cols), &e->ncap, e->nnames + 1))
		return -ENOMEM;
	i = name_slot(e, dir, name, len, h);
	if (e->nmslot[i])
		return 1;
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, name, len);
	copy[len] = '\0';
	e->nname[e->nnames] = copy;
	e->nlen[e->nnames] = (uint8_t)len;
	e->ndir[e->nnames] = dir;
	e->nino[e->nnames] = ino;
	e->nhash[e->nnames] = h;
	e->nmslot[i] = ++e->nnames;
	return 0;
}

/* Name [name, name + len) of directory dir dropped, if held (the slots after it moved up). */
static void name_drop(struct backend_edit *e, ext2_ino_t dir, const char *name, size_t len)
{
	size_t mask = e->nmslots - 1, i, j, k;

	if (!e->nmslots)
		return;
	i = name_slot(e, dir, name, len, name_hash(dir, name, len));
	if (!e->nmslot[i])
		return;
	k = e->nmslot[i] - 1;
	free(e->nname[k]);
	e->nname[k] = NULL;
	e->nmslot[i] = 0;
	/* linear probing: an entry after the hole that may not stay behind it moves into it */
	for (j = (i + 1) & mask; e->nmslot[j]; j = (j + 1) & mask) {
		size_t home = e->nhash[e->nmslot[j] - 1] & mask;

		if (i <= j ? i < home && home <= j : i < home || home <= j)
			continue;
		e->nmslot[i] = e->nmslot[j];
		e->nmslot[j] = 0;
		i = j;
	}
}

/* Every name of directory dir forgotten, its mark too (read again when needed). */
static void names_forget(struct backend_edit *e, ext2_ino_t dir)
{
	for (size_t k = 0; k < e->nnames; k++)
		if (e->nname[k] && e->ndir[k] == dir)
			name_drop(e, dir, e->nname[k], e->nlen[k]);
}

struct names_load {
	struct backend_edit *e;
	ext2_ino_t dir;
	int ret;
};

static int name_load(struct ext2_dir_entry *d, int off, int bs, char *buf, void *arg)
{
	struct names_load *l = arg;
	unsigned n = ext2fs_dirent_name_len(d);

	(void)off, (void)bs, (void)buf;
	/* a name held twice (a damaged directory): ext2fs_lookup() answers for it */
	if (n && (l->ret = name_add(l->e, l->dir, d->name, n, d->inode)))
		return DIRENT_ABORT;
	return 0;
}

/* Every name of directory dir (as ext2fs_lookup() iterates it) and its mark; 0, or nothing kept. */
static int names_load(struct backend_edit *e, ext2_ino_t dir)
{
	struct names_load l = { e, dir, 0 };
	errcode_t err = ext2fs_dir_iterate(e->fs, dir, 0, NULL, name_load, &l);

	if (!err && !l.ret && !(l.ret = name_add(e, dir, "", 0, 0)))
		return 0;
	names_forget(e, dir);
	return -1;
}

/* ext2fs_lookup() of name [name, name + len) in directory dir, from its names read once a run. */
static errcode_t name_lookup(struct backend_edit *e, ext2_ino_t dir, const char *name, size_t len,
			     ext2_ino_t *ino)
{
	size_t k;

	if (!len || (!names_read(e, dir) && names_load(e, dir)))
		return ext2fs_lookup(e->fs, dir, name, (int)len, NULL, ino);
	k = name_find(e, dir, name, len);
	if (k == SIZE_MAX)
		return EXT2_ET_FILE_NOT_FOUND;
	*ino = e->nino[k];
	return 0;
}

/* Directory dir now holds name as inode ino: told to its names if they were read. */
static void name_linked(struct backend_edit *e, ext2_ino_t dir, const char *name, ext2_ino_t ino)
{
	size_t len = strlen(name);

	/* no room (or the name held twice): the directory's names are read again when needed */
	if (names_read(e, dir) && name_add(e, dir, name, len, ino))
		names_forget(e, dir);
}

static void names_free(struct backend_edit *e)
{
	for (size_t k = 0; k < e->nnames; k++)
		free(e->nname[k]);
	FREE_ALL(e->nname, e->nlen, e->ndir, e->nino, e->nhash, e->nmslot);
}

static int has_extra(const struct backend_edit *e, size_t end)
{
	return e->isize > EXT2_GOOD_OLD_INODE_SIZE &&
	       EXT2_GOOD_OLD_INODE_SIZE + (size_t)e->in->i_extra_isize >= end;
}

#define FITS(e, field) \
	has_extra(e, offsetof(struct ext2_inode_large, field) + sizeof(((struct ext2_inode_large *)0)->field))

static int inode_read(struct backend_edit *e, ext2_ino_t ino)
{
	return e2(ext2fs_read_inode_full(e->fs, ino, (struct ext2_inode *)e->in, (int)e->isize));
}

static int inode_write(struct backend_edit *e, ext2_ino_t ino)
{
	return e2(ext2fs_write_inode_full(e->fs, ino, (struct ext2_inode *)e->in, (int)e->isize));
}

/* The directory entry's file type of an inode's mode. */
static int dirent_type(uint16_t mode)
{
	if (LINUX_S_ISREG(mode))
		return EXT2_FT_REG_FILE;
	if (LINUX_S_ISLNK(mode))
		return EXT2_FT_SYMLINK;
	if (LINUX_S_ISDIR(mode))
		return EXT2_FT_DIR;
	if (LINUX_S_ISCHR(mode))
		return EXT2_FT_CHRDEV;
	if (LINUX_S_ISBLK(mode))
		return EXT2_FT_BLKDEV;
	if (LINUX_S_ISFIFO(mode))
		return EXT2_FT_FIFO;
	return LINUX_S_ISSOCK(mode) ? EXT2_FT_SOCK : EXT2_FT_UNKNOWN;
}

/*
 * Read-only: unix_io_manager.  Else the undo manager over it (mark: with
 * its undo file; none: it counts the blocks written), or over e2undo's
 * when mark keeps a file.
 */
static errcode_t io_for(int rw, const struct evolve_mark *mark, io_manager *io)
{
	io_manager inner = unix_io_manager;
	errcode_t err = 0;

	*io = unix_io_manager;
	if (!rw)
		return 0;
	if (!mark) {
		ext4_undo_prepare(NULL, inner);
		*io = ext4_undo_io_manager;
		return 0;
	}
	if (mark->keep[0]) {
		err = set_undo_io_backing_manager(unix_io_manager);
		if (!err)
			err = set_undo_io_backup_file((char *)mark->keep);
		inner = undo_io_manager;
	}
	ext4_undo_prepare(mark->undo, inner);
	*io = ext4_undo_io_manager;
	return err;
}

/* bytes [0, EVOLVE_MARK_SIZE) of path: the mark written, or the saved boot area put back; synced. */
static int mark_put(const char *path, const char *buf)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (pwrite(fd, buf, EVOLVE_MARK_SIZE, 0) != EVOLVE_MARK_SIZE || fdatasync(fd))
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/*
 * Mark e's file system as being evolved (m), before its first change: what
 * the mark's bytes held goes to the undo file, synced, then the mark,
 * synced.  0, or a negative errno with msg saying why.
 */
static int mark_begin(struct backend_edit *e, const char *path, const struct evolve_mark *m,
		      char *msg, size_t len)
{
	char buf[EVOLVE_MARK_SIZE];
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;
	errcode_t err;

	if (fd < 0 || pread(fd, e->boot, sizeof(e->boot), 0) != (ssize_t)sizeof(e->boot))
		ret = errno ? -errno : -EIO;
	if (fd >= 0)
		close(fd);
	err = ret ? 0 : ext4_undo_save(e->fs, 0, EVOLVE_MARK_SIZE);
	/* e2undo's file (m->keep) saves them too: written through it as they are */
	if (!err && m->keep[0])
		err = io_channel_write_byte(e->fs->io, 0, EVOLVE_MARK_SIZE, e->boot);
	if (err)
		ret = e2(err);
	evolve_mark_format(m, buf);
	if (!ret)
		ret = mark_put(path, buf);
	if (ret) {
		snprintf(msg, len, "'%s': cannot mark it as being evolved: %s", path, strerror(-ret));
		return ret;
	}
	e->marked = strdup(path);
	return e->marked ? 0 : -ENOMEM;
}

static int ext4_edit_open(const char *path, int rw, int64_t now, const struct evolve_mark *mark,
			  struct backend_edit **out, char *msg, size_t len)
{
	struct backend_edit *e;
	struct stat st;
	uint64_t bytes;
	errcode_t err;
	io_manager io;
	int mflags = 0, fd, ret;

	*out = NULL;
	e2err_init();
	err = ext2fs_check_if_mounted(path, &mflags);
	if (rw && !err && (mflags & EXT2_MF_MOUNTED)) {
		snprintf(msg, len, "'%s' is mounted: evolve the directory it is mounted on", path);
		return -EBUSY;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(msg, len, "cannot open '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) || (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &bytes))) {
		ret = -errno;
		close(fd);
		snprintf(msg, len, "cannot read '%s': %s", path, strerror(-ret));
		return ret;
	}
	ret = evolve_mark_refuse(fd, 0, path, msg, len);
	close(fd);
	if (ret)
		return ret;
	if (!S_ISBLK(st.st_mode))
		bytes = (uint64_t)st.st_size;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	err = io_for(rw, mark, &io);
	if (!err)
		err = ext2fs_open2(path, NULL, (rw ? EXT2_FLAG_RW : 0) | EXT2_FLAG_64BITS, 0, 0, io,
				   &e->fs);
	if (err) {
		free(e);
		if (err == EXT2_ET_BAD_MAGIC || err == EXT2_ET_SHORT_READ) {
			snprintf(msg, len, "'%s' is not an ext2/3/4 file system (evolve takes an "
				 "ext2/3/4 image or device, or a directory)", path);
			return -EINVAL;
		}
		snprintf(msg, len, "cannot open '%s' as ext2/3/4: %s", path, error_message(err));
		return e2(err);
	}
	ret = 0;
	if (rw && ext2fs_has_feature_journal_needs_recovery(e->fs->super)) {
		snprintf(msg, len, "'%s' has a journal to replay: mount it once or run 'e2fsck' on "
			 "it first", path);
		ret = -EBUSY;
	} else if (bytes < ext2fs_blocks_count(e->fs->super) * e->fs->blocksize) {
		snprintf(msg, len, "'%s' is truncated (shorter than its file system's blocks)", path);
		ret = -EINVAL;
	}
	if (!ret) {
		/* the check and the steps then look up paths and inodes from memory */
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ext2_ahead_dirs(e->fs, fd, 0, 1);
			close(fd);
		}
		err = ext2fs_read_bitmaps(e->fs);
		if (!err && e->fs->io->manager == ext4_undo_io_manager)
			err = ext4_undo_arm(e->fs);
		if (err) {
			snprintf(msg, len, "'%s': cannot read the bitmaps: %s", path, error_message(err));
			ret = e2(err);
		}
	}
	if (!ret && rw && mark)
		ret = mark_begin(e, path, mark, msg, len);
	e->isize = (size_t)EXT2_INODE_SIZE(e->fs->super);
	if (!ret && !(e->in = calloc(1, MAX(e->isize, sizeof(struct ext2_inode_large)))))
		ret = -ENOMEM;
	if (ret) {
		ext2fs_close_free(&e->fs);
		free(e->in);
		free(e->marked);
		free(e);
		return ret;
	}
	e->fs->now = (time_t)now;
	e->kib_written = e->fs->super->s_kbytes_written;
	*out = e;
	return 0;
}

static int ext4_edit_close(struct backend_edit *e)
{
	errcode_t err;
	uint64_t kib;
	int ret;

	if (!e)
		return 0;
	/*
	 * Lifetime writes: the value found plus every block this evolve wrote,
	 * once each, the bitmaps included (the undo manager counts them);
	 * the superblock and group descriptor copies written last are not.
	 */
	err = (e->fs->flags & EXT2_FLAG_RW) ? ext2fs_write_bitmaps(e->fs) : 0;
	kib = e->kib_written + ext4_undo_changed(e->fs) * (e->fs->blocksize / 1024);
	if (!err && kib != e->fs->super->s_kbytes_written) {
		e->fs->super->s_kbytes_written = kib;
		ext2fs_mark_super_dirty(e->fs);
	}
	/* libext2fs syncs everything before the superblock, and the superblock: then the mark goes */
	if (err)
		ext2fs_free(e->fs);
	else
		err = ext2fs_close_free(&e->fs);
	e->fs = NULL;
	ret = e2(err);
	if (!ret && e->marked)
		ret = mark_put(e->marked, e->boot);
	dir_table_free(e);
	names_free(e);
	free(e->in);
	free(e->marked);
	free(e);
	return ret;
}

static void ext4_edit_abandon(struct backend_edit *e)
{
	if (!e)
		return;
	/* no flush of the superblock, descriptors and bitmaps; the I/O channel closes */
	ext2fs_free(e->fs);
	dir_table_free(e);
	names_free(e);
	free(e->in);
	free(e->marked);
	free(e);
}

static int ext4_edit_undo(const char *path, char *msg, size_t len)
{
	struct evolve_mark m;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0) {
		ret = -errno;
		snprintf(msg, len, "cannot open '%s': %s", path, strerror(-ret));
		return ret;
	}
	ret = evolve_mark_read(fd, 0, &m);
	close(fd);
	if (ret < 0)
		snprintf(msg, len, "cannot read '%s': %s", path, strerror(-ret));
	if (ret <= 0)
		return ret < 0 ? ret : 1;
	/* the evolve that wrote the mark holds its undo file locked while it runs */
	fd = open(m.undo, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB)) {
		close(fd);
		snprintf(msg, len, "an evolve of '%s' still runs (its undo file '%s' is locked): "
			 "let it end", path, m.undo);
		return -EBUSY;
	}
	ret = ext4_undo_apply(m.undo, path, EVOLVE_MARK_SIZE, msg, len);
	/* the undo files are of no use once the image is generation m.from again */
	if (!ret) {
		unlink(m.undo);
		if (m.keep[0])
			unlink(m.keep);
	}
	if (fd >= 0)
		close(fd);
	return ret;
}

/* Directory path [p, p + n) by libext2fs' walk (symbolic links followed): not remembered. */
static errcode_t dir_namei(struct backend_edit *e, const char *p, size_t n, ext2_ino_t *dir)
{
	char path[PATH_MAX];
	errcode_t err;

	if (n >= sizeof(path))
		return EXT2_ET_NO_MEMORY;
	memcpy(path, p, n);
	path[n] = '\0';
	err = ext2fs_namei(e->fs, EXT2_ROOT_INO, EXT2_ROOT_INO, path, dir);
	return err ? err : ext2fs_check_directory(e->fs, *dir);
}

/*
 * The inode of directory path [p, p + n) ("" the root), as ext2fs_namei()
 * and ext2fs_check_directory() give it: each directory on the way looked
 * up once a run, and remembered; a component that is "", ".", ".." or not
 * a directory (a symbolic link, or an error to give) is left to
 * ext2fs_namei() for the whole path.
 */
static errcode_t dir_walk(struct backend_edit *e, const char *p, size_t n, ext2_ino_t *dir)
{
	const char *slash = n ? memrchr(p, '/', n) : NULL, *c = slash ? slash + 1 : p;
	size_t cn = (size_t)(p + n - c);
	ext2_ino_t parent, ino;
	errcode_t err;

	if (!n) {
		*dir = EXT2_ROOT_INO;
		return 0;
	}
	if (e->nslot) {
		size_t i = dir_slot(e, p, n);

		if (e->slot[i]) {
			*dir = e->dino[e->slot[i] - 1];
			return 0;
		}
	}
	if (!cn || cn > EXT2_NAME_LEN || (cn == 1 && c[0] == '.') || (cn == 2 && !strncmp(c, "..", 2)))
		return dir_namei(e, p, n, dir);
	err = dir_walk(e, p, slash ? (size_t)(slash - p) : 0, &parent);
	if (!err)
		err = name_lookup(e, parent, c, cn, &ino);
	if (err)
		return err;
	err = ext2fs_check_directory(e->fs, ino);
	if (err == EXT2_ET_NO_DIRECTORY)
		return dir_namei(e, p, n, dir);
	if (err)
		return err;
	dir_remember(e, p, n, ino);
	*dir = ino;
	return 0;
}

/* The directory holding path's last component, and that component into name. */
static int split(struct backend_edit *e, const char *path, ext2_ino_t *dir, char *name)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash || !slash[1])
		return -EINVAL;
	if (strlen(slash + 1) > EXT2_NAME_LEN)
		return -ENAMETOOLONG;
	strcpy(name, slash + 1);
	n = (size_t)(slash - path);
	if (!n) {
		*dir = EXT2_ROOT_INO;
		return 0;
	}
	if (n >= PATH_MAX)
		return -ENAMETOOLONG;
	return e2(dir_walk(e, path, n, dir));
}

/* Path's directory and inode remembered as the last looked up (one too long: none). */
static void last_set(struct backend_edit *e, const char *path, ext2_ino_t dir, ext2_ino_t ino)
{
	size_t n = strlen(path);

	e->last[0] = '\0';
	if (n >= sizeof(e->last))
		return;
	memcpy(e->last, path, n + 1);
	e->last_dir = dir;
	e->last_ino = ino;
}

/* path's directory, name and inode: the last path looked up again is not. */
static int lookup(struct backend_edit *e, const char *path, ext2_ino_t *dir, char *name, ext2_ino_t *ino)
{
	int ret;

	if (e->last[0] && !strcmp(path, e->last)) {
		strcpy(name, strrchr(path, '/') + 1);
		*dir = e->last_dir;
		*ino = e->last_ino;
		return 0;
	}
	ret = split(e, path, dir, name);
	if (!ret)
		ret = e2(name_lookup(e, *dir, name, strlen(name), ino));
	if (!ret)
		last_set(e, path, *dir, *ino);
	return ret;
}

/* The inode of path ("" is the root). */
static int path_ino(struct backend_edit *e, const char *path, ext2_ino_t *ino)
{
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t dir;

	if (!path[0]) {
		*ino = EXT2_ROOT_INO;
		return 0;
	}
	return lookup(e, path, &dir, name, ino);
}

/* path's inode number and, into e->in, its inode. */
static int path_read(struct backend_edit *e, const char *path, ext2_ino_t *ino)
{
	int ret = path_ino(e, path, ino);

	return ret ? ret : inode_read(e, *ino);
}

/* lookup(), and path's inode into e->in. */
static int lookup_read(struct backend_edit *e, const char *path, ext2_ino_t *dir, char *name,
		       ext2_ino_t *ino)
{
	int ret = lookup(e, path, dir, name, ino);

	return ret ? ret : inode_read(e, *ino);
}

/* -EEXIST when dir holds name, 0 when it does not. */
static int absent(struct backend_edit *e, ext2_ino_t dir, const char *name)
{
	ext2_ino_t ino;
	errcode_t err = name_lookup(e, dir, name, strlen(name), &ino);

	if (!err)
		return -EEXIST;
	return err == EXT2_ET_FILE_NOT_FOUND ? 0 : e2(err);
}

/* Link ino into dir as name, the directory grown by a block when full. */
static int link_in(struct backend_edit *e, ext2_ino_t dir, const char *name, ext2_ino_t ino, int ft)
{
	errcode_t err = ext4_link_grow(e->fs, dir, name, ino, ft);

	if (!err)
		name_linked(e, dir, name, ino);
	return e2(err);
}

/* dir's entry name of inode ino unlinked (its inode left as it is). */
static int unlink_in(struct backend_edit *e, ext2_ino_t dir, const char *name, ext2_ino_t ino)
{
	errcode_t err = ext2fs_unlink(e->fs, dir, name, ino, 0);

	if (!err)
		name_drop(e, dir, name, strlen(name));
	return e2(err);
}

/* One link of ino gone (all of them for a directory): at the last, its blocks and inode freed. */
static int drop_link(struct backend_edit *e, ext2_ino_t ino, int isdir)
{
	struct ext2_inode *in = (struct ext2_inode *)e->in;
	errcode_t err = 0;
	int ret = inode_read(e, ino);

	if (ret)
		return ret;
	if (isdir || in->i_links_count <= 1) {
		in->i_links_count = 0;
		if (ext2fs_inode_has_valid_blocks2(e->fs, in))
			err = ext2fs_punch(e->fs, ino, in, NULL, 0, ~0ULL);
		if (!err && ext2fs_file_acl_block(e->fs, in))
			err = ext2fs_free_ext_attr(e->fs, ino, e->in);
		if (err)
			return e2(err);
		in->i_dtime = (uint32_t)e->fs->now;
		ext2fs_inode_alloc_stats2(e->fs, ino, -1, isdir);
	} else {
		in->i_links_count--;
	}
	return inode_write(e, ino);
}

static int ext4_edit_stat(struct backend_edit *e, const char *path,
			  struct backend_edit_stat *st)
{
	ext2_ino_t ino;
	int ret = path_read(e, path, &ino);

	if (ret)
		return ret;
	st->mode = e->in->i_mode;
	st->size = EXT2_I_SIZE(e->in);
	st->mtime = (int32_t)e->in->i_mtime;
	st->mtime_ns = 0;
	if (FITS(e, i_mtime_extra)) {
		st->mtime += (int64_t)(e->in->i_mtime_extra & EXT4_EPOCH_MASK) << 32;
		st->mtime_ns = e->in->i_mtime_extra >> EXT4_EPOCH_BITS;
	}
	return 0;
}

static int unlink_path(struct backend_edit *e, const char *path)
{
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t dir, ino;
	int ret = lookup_read(e, path, &dir, name, &ino);

	if (!ret && LINUX_S_ISDIR(e->in->i_mode))
		ret = -EISDIR;
	/* a symbolic link may be on a remembered directory's path */
	if (!ret && !LINUX_S_ISREG(e->in->i_mode))
		dir_forget(e);
	if (!ret)
		ret = unlink_in(e, dir, name, ino);
	return ret ? ret : drop_link(e, ino, 0);
}

static int rename_path(struct backend_edit *e, const char *from, const char *to)
{
	char name[EXT2_NAME_LEN + 1], tname[EXT2_NAME_LEN + 1];
	ext2_ino_t dir, tdir, ino;
	int ret = lookup_read(e, from, &dir, name, &ino);

	if (!ret && LINUX_S_ISDIR(e->in->i_mode))
		ret = -EISDIR;
	if (!ret && !LINUX_S_ISREG(e->in->i_mode))
		dir_forget(e);
	if (!ret)
		ret = split(e, to, &tdir, tname);
	if (!ret)
		ret = absent(e, tdir, tname);
	if (!ret)
		ret = link_in(e, tdir, tname, ino, dirent_type(e->in->i_mode));
	if (!ret)
		ret = unlink_in(e, dir, name, ino);
	return ret;
}

static int mkdir_path(struct backend_edit *e, const char *path)
{
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t dir, ino;
	errcode_t err;
	int ret = split(e, path, &dir, name);

	if (!ret)
		ret = absent(e, dir, name);
	if (ret)
		return ret;
	ext4_heap_zeroed(1); /* ext2fs_mkdir links the new directory into dir: as link_in() */
	err = ext2fs_mkdir(e->fs, dir, 0, name);
	if (err == EXT2_ET_DIR_NO_SPACE) {
		err = ext2fs_expand_dir(e->fs, dir);
		if (!err)
			err = ext2fs_mkdir(e->fs, dir, 0, name);
	}
	ext4_heap_zeroed(0);
	/* dir's names, when read, do not hold the new one yet */
	if (!err)
		err = ext2fs_lookup(e->fs, dir, name, (int)strlen(name), NULL, &ino);
	if (err)
		return e2(err);
	name_linked(e, dir, name, ino);
	ret = inode_read(e, ino);
	if (ret)
		return ret;
	e->in->i_mode = LINUX_S_IFDIR | 0700;
	return inode_write(e, ino);
}

static int count_entry(struct ext2_dir_entry *d, int off, int bs, char *buf, void *arg)
{
	unsigned n = ext2fs_dirent_name_len(d);

	(void)off, (void)bs, (void)buf;
	if (d->inode && !(n == 1 && d->name[0] == '.') && !(n == 2 && d->name[0] == '.' && d->name[1] == '.'))
		++*(unsigned *)arg;
	return 0;
}

static int rmdir_path(struct backend_edit *e, const char *path)
{
	char name[EXT2_NAME_LEN + 1];
	ext2_ino_t dir, ino;
	unsigned n = 0;
	int ret = lookup_read(e, path, &dir, name, &ino);

	if (!ret && !LINUX_S_ISDIR(e->in->i_mode))
		ret = -ENOTDIR;
	if (!ret)
		ret = e2(ext2fs_dir_iterate(e->fs, ino, 0, NULL, count_entry, &n));
	if (!ret && n)
		ret = -ENOTEMPTY;
	if (!ret)
		dir_forget(e);
	if (!ret)
		ret = unlink_in(e, dir, name, ino);
	if (!ret) {
		/* empty: its names, when read, were these (its inode may come back as another's) */
		name_drop(e, ino, ".", 1);
		name_drop(e, ino, "..", 2);
		name_drop(e, ino, "", 0);
		ret = drop_link(e, ino, 1);
	}
	if (!ret)
		ret = inode_read(e, dir);
	if (!ret) {
		if (e->in->i_links_count > 2)
			e->in->i_links_count--;
		ret = inode_write(e, dir);
	}
	return ret;
}

/* The moves that change names: the last path looked up is forgotten after each. */
static int ext4_edit_unlink(struct backend_edit *e, const char *path)
{
	int ret = unlink_path(e, path);

	e->last[0] = '\0';
	return ret;
}

static int ext4_edit_rename(struct backend_edit *e, const char *from, const char *to)
{
	int ret = rename_path(e, from, to);

	e->last[0] = '\0';
	return ret;
}

static int ext4_edit_mkdir(struct backend_edit *e, const char *path)
{
	int ret = mkdir_path(e, path);

	e->last[0] = '\0';
	return ret;
}

static int ext4_edit_rmdir(struct backend_edit *e, const char *path)
{
	int ret = rmdir_path(e, path);

	e->last[0] = '\0';
	return ret;
}

static int ext4_edit_set_meta(struct backend_edit *e, const char *path,
			      const struct plan_meta *m)
{
	ext2_ino_t ino;
	int ret = path_read(e, path, &ino);

	if (ret)
		return ret;
	e->in->i_mode = (uint16_t)((e->in->i_mode & LINUX_S_IFMT) | (m->mode & 07777));
	e->in->i_uid = (uint16_t)m->uid;
	e->in->osd2.linux2.l_i_uid_high = (uint16_t)(m->uid >> 16);
	e->in->i_gid = (uint16_t)m->gid;
	e->in->osd2.linux2.l_i_gid_high = (uint16_t)(m->gid >> 16);
	e->in->i_atime = (uint32_t)m->atime;
	e->in->i_ctime = (uint32_t)m->ctime;
	e->in->i_mtime = (uint32_t)m->mtime;
	if (FITS(e, i_atime_extra)) {
		e->in->i_atime_extra = ext4_xtime_extra(m->atime, m->atime_ns);
		e->in->i_ctime_extra = ext4_xtime_extra(m->ctime, m->ctime_ns);
		e->in->i_mtime_extra = ext4_xtime_extra(m->mtime, m->mtime_ns);
	}
	if (FITS(e, i_crtime_extra)) {
		e->in->i_crtime = (uint32_t)m->crtime;
		e->in->i_crtime_extra = ext4_xtime_extra(m->crtime, m->crtime_ns);
	}
	return inode_write(e, ino);
}

/* A new empty regular file at dir/name, mode 0600, its inode number into *ino. */
static int file_new(struct backend_edit *e, ext2_ino_t dir, const char *name, ext2_ino_t *ino)
{
	struct ext2_inode *in = (struct ext2_inode *)e->in;
	errcode_t err = ext2fs_new_inode(e->fs, dir, LINUX_S_IFREG | 0600, NULL, ino);
	int ret;

	if (err)
		return e2(err);
	memset(e->in, 0, e->isize);
	in->i_mode = LINUX_S_IFREG | 0600;
	in->i_links_count = 1;
	if (ext2fs_has_feature_extents(e->fs->super)) {
		ext2_extent_handle_t h;

		err = ext2fs_extent_open2(e->fs, *ino, in, &h);
		if (err)
			return e2(err);
		ext2fs_extent_free(h);
	}
	err = ext2fs_write_new_inode(e->fs, *ino, in);
	if (err)
		return e2(err);
	ext2fs_inode_alloc_stats2(e->fs, *ino, +1, 0);
	ret = link_in(e, dir, name, *ino, EXT2_FT_REG_FILE);
	if (ret) {
		/* not linked: the inode goes back */
		ext2fs_inode_alloc_stats2(e->fs, *ino, -1, 0);
	}
	return ret;
}

/* libext2fs' handle of f, opened again after a run was written around it. */
static errcode_t file_handle(struct backend_edit_file *f)
{
	return f->file ? 0 : ext2fs_file_open(f->e->fs, f->ino, EXT2_FILE_WRITE, &f->file);
}

/* f's libext2fs handle flushed and closed: its inode on disk is current. */
static errcode_t file_release(struct backend_edit_file *f)
{
	errcode_t err = f->file ? ext2fs_file_close(f->file) : 0;

	f->file = NULL;
	return err;
}

static int ext4_edit_file_open(struct backend_edit *e, const char *path, int create, int trunc,
			       struct backend_edit_file **out)
{
	char name[EXT2_NAME_LEN + 1];
	struct backend_edit_file *f;
	ext2_ino_t dir, ino;
	errcode_t err;
	int ret;

	*out = NULL;
	if (create) {
		e->last[0] = '\0';
		ret = split(e, path, &dir, name);
		if (!ret)
			ret = absent(e, dir, name);
		if (!ret)
			ret = file_new(e, dir, name, &ino);
		if (!ret)
			last_set(e, path, dir, ino);
	} else {
		ret = lookup_read(e, path, &dir, name, &ino);
		if (!ret && !LINUX_S_ISREG(e->in->i_mode))
			ret = LINUX_S_ISDIR(e->in->i_mode) ? -EISDIR : -EINVAL;
	}
	if (ret)
		return ret;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->e = e;
	f->ino = ino;
	err = file_handle(f);
	if (!err && trunc)
		err = ext2fs_file_set_size2(f->file, 0);
	if (err) {
		if (f->file)
			ext2fs_file_close(f->file);
		free(f);
		return e2(err);
	}
	*out = f;
	return 0;
}

/* Bytes [off, off + n) of f written block by block through libext2fs' file I/O. */
static errcode_t file_write(struct backend_edit_file *f, const char *p, size_t n, uint64_t off)
{
	errcode_t err = file_handle(f);

	if (!err)
		err = ext2fs_file_llseek(f->file, off, EXT2_SEEK_SET, NULL);
	while (!err && n) {
		unsigned int w = 0, chunk = (unsigned int)MIN(n, (size_t)1 << 30);

		err = ext2fs_file_write(f->file, p, chunk, &w);
		if (!err && !w)
			err = EXT2_ET_SHORT_WRITE;
		p += w;
		n -= w;
	}
	return err;
}

/*
 * Whether f's new blocks may be written as runs: an extent-mapped file
 * (no inline data) of a file system without bigalloc.  Its size into *size.
 */
static int runs_apply(struct backend_edit_file *f, uint64_t *size)
{
	ext2_filsys fs = f->e->fs;
	struct ext2_inode *in;

	if (file_handle(f))
		return 0;
	in = ext2fs_file_get_inode(f->file);
	*size = EXT2_I_SIZE(in);
	return ext2fs_has_feature_extents(fs->super) && !ext2fs_has_feature_bigalloc(fs->super) &&
	       (in->i_flags & EXT4_EXTENTS_FL) && !(in->i_flags & EXT4_INLINE_DATA_FL);
}

/* A run's place in the extent tree h, mapped after *last (its last extent; e_len 0: none). */
static errcode_t map_run(ext2_extent_handle_t h, struct ext2fs_extent *last, blk64_t lblk,
			 blk64_t pblk, blk64_t len)
{
	struct ext2fs_extent x = { .e_lblk = lblk, .e_pblk = pblk, .e_len = (uint32_t)len };
	int empty = !last->e_len;

	if (!empty && !(last->e_flags & EXT2_EXTENT_FLAGS_UNINIT) &&
	    last->e_lblk + last->e_len == lblk && last->e_pblk + last->e_len == pblk &&
	    last->e_len + len <= EXT_INIT_MAX_LEN) {
		last->e_len += (uint32_t)len;
		return ext2fs_extent_replace(h, 0, last);
	}
	*last = x;
	return ext2fs_extent_insert(h, empty ? 0 : EXT2_EXTENT_INSERT_AFTER, &x);
}

/* The last extent of h into *last (e_len 0: the tree is empty). */
static errcode_t last_extent(ext2_extent_handle_t h, struct ext2fs_extent *last)
{
	struct ext2_extent_info info;
	errcode_t err = ext2fs_extent_get_info(h, &info);

	memset(last, 0, sizeof(*last));
	if (err || (!info.num_entries && !info.max_depth))
		return err;
	return ext2fs_extent_get(h, EXT2_EXTENT_LAST_LEAF, last);
}

/* One run of len blocks at pblk, its data at p (n bytes, the rest of its last block zeros). */
static errcode_t run_write(ext2_filsys fs, blk64_t pblk, blk64_t len, const char *p, size_t n,
			   char *pad)
{
	size_t bs = fs->blocksize, whole = n / bs;
	errcode_t err = whole ? io_channel_write_blk64(fs->io, pblk, (int)whole, p) : 0;

	if (err || whole == len)
		return err;
	memset(pad, 0, bs);
	memcpy(pad, p + whole * bs, n - whole * bs);
	return io_channel_write_blk64(fs->io, pblk + whole, 1, pad);
}

/*
 * Bytes [lblk * bs, lblk * bs + n) of f, in blocks none of which is
 * mapped, past its last extent: allocated as ranges near the file's last
 * block, each written at once and mapped by one extent (or by growing
 * the last); its size then at least the end.  1: f has blocks there (the
 * caller writes them block by block), 0, or libext2fs' error.
 */
static errcode_t runs_write(struct backend_edit_file *f, const char *p, size_t n, blk64_t lblk)
{
	struct backend_edit *e = f->e;
	ext2_filsys fs = e->fs;
	struct ext2_inode *in = (struct ext2_inode *)e->in;
	struct ext2fs_extent last;
	ext2_extent_handle_t h = NULL;
	uint64_t end = lblk * fs->blocksize + n;
	blk64_t count = (n + fs->blocksize - 1) / fs->blocksize, goal;
	char *pad = NULL;
	errcode_t err = file_release(f);

	if (!err)
		err = ext2fs_read_inode_full(fs, f->ino, in, (int)e->isize);
	if (!err)
		err = ext2fs_extent_open2(fs, f->ino, in, &h);
	if (!err)
		err = last_extent(h, &last);
	if (!err && last.e_len && last.e_lblk + last.e_len > lblk)
		err = 1;
	if (!err)
		err = ext2fs_get_mem(fs->blocksize, &pad);
	goal = last.e_len ? last.e_pblk + last.e_len : ext2fs_find_inode_goal(fs, f->ino, in, lblk);
	while (!err && count) {
		blk64_t pblk, len;
		size_t bytes;

		err = ext2fs_new_range(fs, 0, goal, MIN(count, (blk64_t)EXT_INIT_MAX_LEN), NULL, &pblk, &len);
		if (err)
			break;
		ext2fs_block_alloc_stats_range(fs, pblk, (blk_t)len, +1);
		bytes = (size_t)MIN((uint64_t)n, len * fs->blocksize);
		err = run_write(fs, pblk, len, p, bytes, pad);
		if (!err)
			err = map_run(h, &last, lblk, pblk, len);
		if (!err)
			err = ext2fs_iblk_add_blocks(fs, in, len);
		p += bytes;
		n -= bytes;
		lblk += len;
		count -= len;
		goal = pblk + len;
	}
	if (!err && EXT2_I_SIZE(in) < end)
		err = ext2fs_inode_size_set(fs, in, end);
	if (!err)
		err = ext2fs_write_inode_full(fs, f->ino, in, (int)e->isize);
	if (h)
		ext2fs_extent_free(h);
	ext2fs_free_mem(&pad);
	return err;
}

/*
 * Bytes [off, off + n) of f: the blocks past its end allocated and
 * written as runs where runs_apply() says so, the rest block by block.
 */
static int ext4_edit_file_pwrite(struct backend_edit_file *f, const void *buf, size_t n,
				 uint64_t off)
{
	uint64_t bs = f->e->fs->blocksize, size = 0, from, end = off + n;
	const char *p = buf;
	errcode_t err;

	if (!runs_apply(f, &size))
		return e2(file_write(f, p, n, off));
	from = (MAX(off, size) + bs - 1) / bs * bs;
	if (from >= end)
		return e2(file_write(f, p, n, off));
	err = from > off ? file_write(f, p, (size_t)(from - off), off) : 0;
	if (!err)
		err = runs_write(f, p + (from - off), (size_t)(end - from), from / bs);
	if (err == 1)
		err = file_write(f, p + (from - off), (size_t)(end - from), from);
	return e2(err);
}

static int ext4_edit_file_truncate(struct backend_edit_file *f, uint64_t size)
{
	errcode_t err = file_handle(f);

	return e2(err ? err : ext2fs_file_set_size2(f->file, size));
}

static int ext4_edit_file_close(struct backend_edit_file *f)
{
	errcode_t err = file_release(f);

	free(f);
	return e2(err);
}

static void ext4_edit_usage(const struct backend_edit *e, struct backend_edit_usage *u)
{
	struct ext2_super_block *sb = e->fs->super;

	u->block_size = e->fs->blocksize;
	u->blocks = ext2fs_blocks_count(sb);
	u->blocks_used = u->blocks - ext2fs_free_blocks_count(sb);
	u->inodes = sb->s_inodes_count;
	u->inodes_free = sb->s_free_inodes_count;
}

const struct backend_edit_ops ext4_edit_ops = {
	.open = ext4_edit_open,
	.usage = ext4_edit_usage,
	.close = ext4_edit_close,
	.abandon = ext4_edit_abandon,
	.undo = ext4_edit_undo,
	.stat = ext4_edit_stat,
	.unlink = ext4_edit_unlink,
	.rename = ext4_edit_rename,
	.mkdir = ext4_edit_mkdir,
	.rmdir = ext4_edit_rmdir,
	.set_meta = ext4_edit_set_meta,
	.file_open = ext4_edit_file_open,
	.file_pwrite = ext4_edit_file_pwrite,
	.file_truncate = ext4_edit_file_truncate,
	.file_close = ext4_edit_file_close,
};
