/* safe.c - the mounted backend's path safety: DIR opened once, everything beneath it, exact removal */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "backends/mounted/mounted.h"
#include "util/strutil.h"

#define DIR_FLAGS (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int mnt_open_root(struct mnt_state *st)
{
	struct open_how how = { .flags = DIR_FLAGS, .resolve = RESOLVE_BENEATH };
	int fd;

	/* "DIR/" through a link: O_NOFOLLOW does not stop the kernel there, we do */
	if (path_names_link(st->root))
		return mnt_err(st, -ELOOP, "'%s' is a symbolic link; give the directory itself",
			       st->root);
	st->rootfd = open(st->root, DIR_FLAGS);
	if (st->rootfd < 0) {
		int ret = -errno;

		struct stat lst;

		st->rootfd = -1;
		/* O_DIRECTORY fails first on a link: ENOTDIR, not ELOOP */
		if (ret == -ENOTDIR && lstat(st->root, &lst) == 0 && S_ISLNK(lst.st_mode))
			ret = -ELOOP;
		if (ret == -ELOOP)
			return mnt_err(st, ret, "'%s' is a symbolic link; give the directory itself",
				       st->root);
		return mnt_err(st, ret, "cannot open directory '%s': %s", st->root, strerror(-ret));
	}
	/* does the kernel have openat2 (5.6 and later)? */
	fd = (int)syscall(SYS_openat2, st->rootfd, ".", &how, sizeof(how));
	st->have_openat2 = fd >= 0;
	if (fd >= 0)
		close(fd);
	return 0;
}

int mnt_dir_empty(struct mnt_state *st, int own_names, int *empty)
{
	int fd = openat(st->rootfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	*empty = 1;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		    strcmp(de->d_name, "lost+found") &&
		    (!own_names || strncmp(de->d_name, ".imprint-", 9)))
			*empty = 0;
	closedir(d);
	return 0;
}

/* Walk rel one component at a time, never following a symbolic link. */
static int walk_nofollow(struct mnt_state *st, const char *rel, int *out)
{
	char comp[NAME_MAX + 1];
	int cur = dup(st->rootfd), next;

	if (cur < 0)
		return -errno;
	while (*rel) {
		const char *slash = strchr(rel, '/');
		size_t n = slash ? (size_t)(slash - rel) : strlen(rel);

		if (n == 0 || n > NAME_MAX || (n == 2 && !memcmp(rel, "..", 2))) {
			close(cur);
			return -EINVAL;
		}
		memcpy(comp, rel, n);
		comp[n] = '\0';
		next = openat(cur, comp, DIR_FLAGS);
		close(cur);
		if (next < 0)
			return -errno;
		cur = next;
		rel += n + (slash ? 1 : 0);
	}
	*out = cur;
	return 0;
}

/* Open the directory rel ("" for DIR, "a/b") beneath DIR, following no symbolic link. */
int mnt_open_rel(struct mnt_state *st, const char *rel, int *fd)
{
	struct open_how how = {
		.flags = DIR_FLAGS,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};

	if (!*rel)
		rel = ".";
	if (st->have_openat2) {
		*fd = (int)syscall(SYS_openat2, st->rootfd, rel, &how, sizeof(how));
		return *fd < 0 ? -errno : 0;
	}
	if (!strcmp(rel, ".")) {
		*fd = dup(st->rootfd);
		return *fd < 0 ? -errno : 0;
	}
	return walk_nofollow(st, rel, fd);
}

/* Open plan directory dir beneath DIR. */
int mnt_open_dir(struct mnt_state *st, uint32_t dir, int *fd)
{
	char path[PATH_MAX];
	int l = mnt_dir_path(st, dir, path, sizeof(path));

	if (l < 0)
		return l;
	return mnt_open_rel(st, path, fd);
}

/* A directory fd kept while consecutive entries share their directory. */
struct dir_cache {
	uint32_t dir;
	int fd;
};

static int cached_dir(struct mnt_state *st, struct dir_cache *c, uint32_t dir)
{
	if (c->fd >= 0 && c->dir == dir)
		return c->fd;
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	if (mnt_open_dir(st, dir, &c->fd))
		c->fd = -1;
	c->dir = dir;
	return c->fd;
}

static void remove_one(struct mnt_state *st, int dfd, const char *name, int flags)
{
	if (dfd >= 0 && unlinkat(dfd, name, flags) == 0)
		st->removed++;
	else if (dfd < 0 || errno != ENOENT)
		st->remove_failed++;
}

/*
 * Put DIR back as it was before the run: the attributes (ACLs and labels
 * too), owner and mode it set there, and the times (which making and
 * removing entries moved too), last.
 */
static void restore_root(struct mnt_state *st)
{
	const struct stat *o = &st->undo.root_orig;
	struct timespec ts[2] = { o->st_atim, o->st_mtim };

	if (st->undo.root_meta) {
		mnt_xattrs_restore_root(st);
		if (st->as_root)
			(void)fchown(st->rootfd, o->st_uid, o->st_gid);
		(void)fchmod(st->rootfd, o->st_mode & 07777);
		st->undo.root_meta = 0;
	}
	if (st->undo.root_saved)
		(void)futimens(st->rootfd, ts);
}

/*
 * Remove what this run made, newest first: links, files, then directories
 * children first (they are numbered parents first).  Only names it
 * created are touched, through directories opened beneath DIR without
 * following symbolic links; a directory is removed only when empty.
 */
void mnt_remove_made(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	struct dir_cache c = { 0, -1 };
	char name[NAME_MAX_LEN + 1];

	if (st->cleaned || !st->undo.file)
		return;
	for (uint32_t l = pl->nlinks; l-- > 0;) {
		if (!st->undo.link[l])
			continue;
		mnt_link_name(st, l, name, 0);
		remove_one(st, cached_dir(st, &c, pl->link_dir[l]), name, 0);
	}
	for (uint64_t f = pl->nfiles; f-- > 0;) {
		if (!st->undo.file[f])
			continue;
		mnt_file_name(st, f, name, 0);
		remove_one(st, cached_dir(st, &c, pl->file_dir[f]), name, 0);
	}
	for (uint32_t d = pl->ndirs; d-- > 1;) {
		if (!st->undo.dir[d])
			continue;
		mnt_dir_name(st, d, name, 0);
		remove_one(st, cached_dir(st, &c, pl->dir_parent[d]), name, AT_REMOVEDIR);
	}
	if (c.fd >= 0)
		close(c.fd);
	restore_root(st);
	st->cleaned = 1;
}
