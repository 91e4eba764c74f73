/* include.c - the mounted backend's --include entries: copied through the kernel beside the plan's */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backends/mounted/include.h"
#include "plan/include.h"

#define COPY_CHUNK (1u << 20)

/* A directory fd kept while consecutive entries share their parent. */
struct parent_cache {
	char *rel; /* the parent's path below DIR ("" for DIR) */
	int fd;
};

/* The parent directory of dest ("/a/b/c": "a/b"), opened beneath DIR without following links. */
static int open_parent(struct mnt_state *st, struct parent_cache *c, const char *dest)
{
	const char *slash = strrchr(dest, '/');
	size_t n = (size_t)(slash - dest);
	char *rel;
	int ret;

	if (c->fd >= 0 && c->rel && strlen(c->rel) == (n ? n - 1 : 0) &&
	    !strncmp(c->rel, dest + 1, n ? n - 1 : 0))
		return c->fd;
	if (c->fd >= 0)
		close(c->fd);
	free(c->rel);
	c->fd = -1;
	c->rel = NULL;
	rel = n ? strndup(dest + 1, n - 1) : strdup("");
	if (!rel)
		return -ENOMEM;
	ret = mnt_open_rel(st, rel, &c->fd);
	if (ret) {
		free(rel);
		c->fd = -1;
		return ret;
	}
	c->rel = rel;
	return c->fd;
}

static void parent_close(struct parent_cache *c)
{
	if (c->fd >= 0)
		close(c->fd);
	free(c->rel);
	c->fd = -1;
	c->rel = NULL;
}

static int fail(struct mnt_state *st, int err, const char *what, const struct include_entry *e)
{
	return mnt_err(st, -err, "--include: cannot %s '%s' in '%s': %s", what, e->dest, st->root,
		       strerror(err));
}

/* SRC's bytes into fd: copy_file_range, or read and write where the kernel cannot. */
static int copy_bytes(struct mnt_state *st, int out, const struct include_entry *e, char *buf)
{
	uint64_t done = 0;
	int in, ret = 0, plain = 0;

	in = include_open_source(e, st->b->errmsg, sizeof(st->b->errmsg));
	if (in < 0)
		return in;
	for (;;) {
		ssize_t n;

		if (!plain) {
			n = copy_file_range(in, NULL, out, NULL, COPY_CHUNK, 0);
			if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP || errno == EBADF) && done == 0) {
				plain = 1;
				continue;
			}
		} else {
			n = read(in, buf, COPY_CHUNK);
			for (ssize_t w = 0, r; n > 0 && w < n; w += r) {
				r = write(out, buf + w, (size_t)(n - w));
				if (r < 0 && errno == EINTR) {
					r = 0;
					continue;
				}
				if (r < 0) {
					ret = fail(st, errno, "write", e);
					break;
				}
			}
		}
		if (ret)
			break;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = mnt_err(st, -errno, "--include: cannot copy '%s' to '%s': %s", e->src,
				      e->dest, strerror(errno));
			break;
		}
		if (n == 0 || done + (uint64_t)n > e->size) {
			done += (uint64_t)n;
			break;
		}
		done += (uint64_t)n;
		if (mnt_cancelled(st)) {
			ret = mnt_err(st, -EINTR, "interrupted");
			break;
		}
	}
	if (!ret)
		ret = include_check_copied(e, in, done, st->b->errmsg, sizeof(st->b->errmsg));
	close(in);
	return ret;
}

/* e's attributes on fd, or (fd < 0) on path without following it. */
static int set_xattrs(struct mnt_state *st, const struct include_entry *e, int fd, const char *path)
{
	for (size_t i = 0; i < e->nxattrs; i++) {
		const struct include_xattr *x = &e->xattrs[i];

		if ((fd >= 0 ? fsetxattr(fd, x->name, x->value, x->len, 0) :
			       lsetxattr(path, x->name, x->value, x->len, 0)) != 0)
			return mnt_err(st, -errno,
				       "--include: cannot set the extended attribute '%s' of '%s' in '%s': %s",
				       x->name, e->dest, st->root, strerror(errno));
	}
	return 0;
}

/* Owner (as root), mode and attributes of an open file or directory. */
static int set_fd_meta(struct mnt_state *st, int fd, const struct include_entry *e)
{
	if (st->set_owners && fchown(fd, e->uid, e->gid) != 0)
		return fail(st, errno, "set the owner of", e);
	/* after fchown, which clears the set-id bits */
	if (fchmod(fd, e->mode & 07777) != 0)
		return fail(st, errno, "set the mode of", e);
	return set_xattrs(st, e, fd, NULL);
}

static void times_of(const struct include_entry *e, struct timespec ts[2])
{
	ts[0] = e->atime;
	ts[1] = e->mtime;
}

static int write_file(struct mnt_state *st, int pfd, size_t i, char *buf)
{
	const struct include_entry *e = &st->pl->inc->e[i];
	struct timespec ts[2];
	int fd, ret;

	fd = openat(pfd, include_name(e), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return fail(st, errno, "create", e);
	st->inc_made[i] = 1;
	ret = e->size ? copy_bytes(st, fd, e, buf) : 0;
	if (!ret)
		ret = set_fd_meta(st, fd, e);
	times_of(e, ts);
	if (!ret && futimens(fd, ts) != 0)
		ret = fail(st, errno, "set the times of", e);
	if (close(fd) != 0 && !ret)
		ret = fail(st, errno, "write", e);
	return ret;
}

static int write_symlink(struct mnt_state *st, int pfd, size_t i)
{
	const struct include_entry *e = &st->pl->inc->e[i];
	const char *name = include_name(e);
	struct timespec ts[2];
	char path[PATH_MAX];

	if (symlinkat(e->target, pfd, name) != 0)
		return fail(st, errno, "make the symbolic link", e);
	st->inc_made[i] = 1;
	if (st->set_owners && fchownat(pfd, name, e->uid, e->gid, AT_SYMLINK_NOFOLLOW) != 0)
		return fail(st, errno, "set the owner of", e);
	/* a link's attributes (trusted.*, security.*) by its path: no descriptor opens a link */
	if (e->nxattrs && snprintf(path, sizeof(path), "/proc/self/fd/%d/%s", pfd, name) >=
				  (int)sizeof(path))
		return fail(st, ENAMETOOLONG, "set the extended attributes of", e);
	if (e->nxattrs) {
		int ret = set_xattrs(st, e, -1, path);

		if (ret)
			return ret;
	}
	times_of(e, ts);
	if (utimensat(pfd, name, ts, AT_SYMLINK_NOFOLLOW) != 0)
		return fail(st, errno, "set the times of", e);
	return 0;
}

static int write_hardlink(struct mnt_state *st, int pfd, size_t i)
{
	const struct include_set *s = st->pl->inc;
	const struct include_entry *e = &s->e[i], *f = &s->e[e->link_of];
	struct parent_cache fc = { NULL, -1 };
	int ffd, ret = 0;

	ffd = open_parent(st, &fc, f->dest);
	if (ffd < 0)
		return fail(st, -ffd, "open the directory of", f);
	if (linkat(ffd, include_name(f), pfd, include_name(e), 0) != 0)
		ret = fail(st, errno, "make the hard link", e);
	else
		st->inc_made[i] = 1;
	parent_close(&fc);
	return ret;
}

static int write_entry(struct mnt_state *st, struct parent_cache *c, size_t i, char *buf)
{
	const struct include_entry *e = &st->pl->inc->e[i];
	int pfd = open_parent(st, c, e->dest);

	if (pfd < 0)
		return fail(st, -pfd, "open the directory of", e);
	switch (e->kind) {
	case INCLUDE_DIR:
		/* writable until what it holds is made: its own owner and mode come last */
		if (mkdirat(pfd, include_name(e), 0700) != 0)
			return fail(st, errno, "make the directory", e);
		st->inc_made[i] = 1;
		return 0;
	case INCLUDE_FILE:
		return write_file(st, pfd, i, buf);
	case INCLUDE_SYMLINK:
		return write_symlink(st, pfd, i);
	case INCLUDE_HARDLINK:
		return write_hardlink(st, pfd, i);
	}
	return mnt_err(st, -EINVAL, "--include: '%s' is of no kind known", e->dest);
}

int mnt_write_includes(struct mnt_state *st)
{
	const struct include_set *s = st->pl->inc;
	struct parent_cache c = { NULL, -1 };
	char *buf;
	int ret = 0;

	if (!s || !s->n)
		return 0;
	st->inc_made = calloc(s->n, 1);
	buf = malloc(COPY_CHUNK);
	if (!st->inc_made || !buf) {
		free(buf);
		return mnt_err(st, -ENOMEM, "out of memory");
	}
	for (size_t i = 0; !ret && i < s->n; i++) {
		ret = write_entry(st, &c, i, buf);
		if (!ret && mnt_cancelled(st))
			ret = mnt_err(st, -EINTR, "interrupted");
	}
	/* directories' owners, modes and times once nothing more is made in them: deepest first */
	for (size_t i = s->n; !ret && i-- > 0;) {
		const struct include_entry *e = &s->e[i];
		struct timespec ts[2];
		int pfd, fd;

		if (e->kind != INCLUDE_DIR)
			continue;
		pfd = open_parent(st, &c, e->dest);
		if (pfd < 0) {
			ret = fail(st, -pfd, "open the directory of", e);
			break;
		}
		fd = openat(pfd, include_name(e), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			ret = fail(st, errno, "open the directory", e);
			break;
		}
		ret = set_fd_meta(st, fd, e);
		times_of(e, ts);
		if (!ret && futimens(fd, ts) != 0)
			ret = fail(st, errno, "set the times of", e);
		close(fd);
	}
	parent_close(&c);
	free(buf);
	return ret;
}

void mnt_remove_includes(struct mnt_state *st)
{
	const struct include_set *s = st->pl ? st->pl->inc : NULL;
	struct parent_cache c = { NULL, -1 };

	if (!s || !st->inc_made)
		return;
	/* in reverse path order: what a directory holds before the directory */
	for (size_t i = s->n; i-- > 0;) {
		const struct include_entry *e = &s->e[i];
		int pfd;

		if (!st->inc_made[i])
			continue;
		pfd = open_parent(st, &c, e->dest);
		if (pfd >= 0 &&
		    unlinkat(pfd, include_name(e), e->kind == INCLUDE_DIR ? AT_REMOVEDIR : 0) == 0)
			st->removed++;
		else if (pfd < 0 || errno != ENOENT)
			st->remove_failed++;
		st->inc_made[i] = 0;
	}
	parent_close(&c);
}
