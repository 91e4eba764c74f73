/* verify_include.c - the --include entries of a mounted tree against their sources, through the kernel */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "analysis/verify_include.h"
#include "plan/include.h"

#define CHUNK (1u << 20)
#define XLIST 65536

struct ictx {
	const struct include_set *s;
	FILE *log;
	unsigned max_report;
	struct verify_result *res;
	const char *dest; /* the entry being checked */
	char path[PATH_MAX + 1];
	unsigned char *a, *b; /* CHUNK bytes each */
};

static void imismatch(struct ictx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void imismatch(struct ictx *c, const char *fmt, ...)
{
	va_list ap;

	if (c->res->mismatches++ >= c->max_report)
		return;
	fprintf(c->log, "mismatch: '%s' (--include): ", c->dest);
	va_start(ap, fmt);
	vfprintf(c->log, fmt, ap);
	va_end(ap);
	fputc('\n', c->log);
}

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static void check_stat(struct ictx *c, const struct include_entry *e, const struct stat *st)
{
	uint32_t type = e->mode & S_IFMT;

	if ((st->st_mode & S_IFMT) != type) {
		imismatch(c, "type %o, included %o", st->st_mode & S_IFMT, type);
		return;
	}
	if (!S_ISLNK(st->st_mode) && (st->st_mode & 07777) != (e->mode & 07777))
		imismatch(c, "mode %04o, included %04o", st->st_mode & 07777, e->mode & 07777);
	if (st->st_uid != e->uid || st->st_gid != e->gid)
		imismatch(c, "owner %u:%u, included %u:%u", st->st_uid, st->st_gid, e->uid, e->gid);
	if (!same_time(&st->st_mtim, &e->mtime))
		imismatch(c, "mtime %lld.%09ld, included %lld.%09ld", (long long)st->st_mtim.tv_sec,
			  st->st_mtim.tv_nsec, (long long)e->mtime.tv_sec, e->mtime.tv_nsec);
	if (S_ISREG(st->st_mode) && (uint64_t)st->st_size != e->size)
		imismatch(c, "size %lld, included %llu", (long long)st->st_size,
			  (unsigned long long)e->size);
	if (S_ISREG(st->st_mode) && st->st_nlink != e->nlink)
		imismatch(c, "link count %llu, included %u", (unsigned long long)st->st_nlink,
			  e->nlink);
}

/* Read exactly n bytes (fewer only at the end of the file); -errno on failure. */
static ssize_t read_full(int fd, unsigned char *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* The file's bytes against SRC's, now. */
static int check_bytes(struct ictx *c, const struct include_entry *e)
{
	char err[PATH_MAX + 256];
	int fd, sfd, ret = 0;
	uint64_t off = 0;

	fd = open(c->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		imismatch(c, "cannot open: %s", strerror(errno));
		return 0;
	}
	sfd = include_open_source(e, err, sizeof(err));
	if (sfd < 0) {
		close(fd);
		imismatch(c, "%s", err);
		return 0;
	}
	for (;;) {
		ssize_t n = read_full(fd, c->a, CHUNK), m = read_full(sfd, c->b, CHUNK);

		if (n < 0 || m < 0) {
			ret = n < 0 ? (int)n : (int)m;
			fprintf(c->log, "imprint: cannot read '%s' or '%s': %s\n", c->path, e->src,
				strerror(-ret));
			break;
		}
		if (n != m || memcmp(c->a, c->b, (size_t)n)) {
			size_t at = 0;

			while (at < (size_t)(n < m ? n : m) && c->a[at] == c->b[at])
				at++;
			imismatch(c, "bytes differ from '%s' at offset %llu", e->src,
				  (unsigned long long)(off + at));
			break;
		}
		if (n == 0)
			break;
		off += (uint64_t)n;
		c->res->bytes += (uint64_t)n;
	}
	close(fd);
	close(sfd);
	return ret;
}

/* The attributes at c->path against e's: each value, and no other (security.selinux aside). */
static int check_xattrs(struct ictx *c, const struct include_entry *e)
{
	char *names = malloc(XLIST);
	ssize_t n;

	if (!names)
		return -ENOMEM;
	n = llistxattr(c->path, names, XLIST);
	if (n < 0)
		n = errno == ENOTSUP ? 0 : -1;
	if (n < 0) {
		imismatch(c, "cannot list its extended attributes: %s", strerror(errno));
		free(names);
		return 0;
	}
	for (char *nm = names; nm < names + n; nm += strlen(nm) + 1) {
		size_t i = 0;

		while (i < e->nxattrs && strcmp(e->xattrs[i].name, nm))
			i++;
		if (i == e->nxattrs && strcmp(nm, "security.selinux"))
			imismatch(c, "extended attribute '%s' was not included", nm);
	}
	for (size_t i = 0; i < e->nxattrs; i++) {
		const struct include_xattr *x = &e->xattrs[i];
		ssize_t v = lgetxattr(c->path, x->name, c->a, CHUNK);

		c->res->xattr_entries++;
		if (v < 0)
			imismatch(c, "extended attribute '%s' missing: %s", x->name, strerror(errno));
		else if ((size_t)v != x->len || memcmp(c->a, x->value, x->len))
			imismatch(c, "extended attribute '%s' differs (%zd bytes, included %zu)",
				  x->name, v, x->len);
	}
	free(names);
	return 0;
}

static int check_entry(struct ictx *c, size_t i)
{
	const struct include_entry *e = &c->s->e[i];
	char got[PATH_MAX + 1];
	struct stat st, fst;
	ssize_t n;

	c->dest = e->dest;
	c->res->included++;
	if (lstat(c->path, &st) != 0) {
		imismatch(c, "missing: %s", strerror(errno));
		return 0;
	}
	switch (e->kind) {
	case INCLUDE_HARDLINK:
		/* the same inode as its file's first name */
		if (snprintf(got, sizeof(got), "%.*s%s", (int)(strlen(c->path) - strlen(e->dest)),
			     c->path, c->s->e[e->link_of].dest) >= (int)sizeof(got) ||
		    lstat(got, &fst) != 0 || fst.st_ino != st.st_ino || fst.st_dev != st.st_dev)
			imismatch(c, "not the same inode as '%s'", c->s->e[e->link_of].dest);
		return 0;
	case INCLUDE_SYMLINK:
		check_stat(c, e, &st);
		n = readlink(c->path, got, sizeof(got) - 1);
		if (n < 0) {
			imismatch(c, "readlink: %s", strerror(errno));
			return 0;
		}
		got[n] = '\0';
		if (strcmp(got, e->target))
			imismatch(c, "symbolic link to '%s', included '%s'", got, e->target);
		break;
	case INCLUDE_FILE:
		check_stat(c, e, &st);
		if (S_ISREG(st.st_mode) && (uint64_t)st.st_size == e->size) {
			int ret = check_bytes(c, e);

			if (ret)
				return ret;
		}
		break;
	case INCLUDE_DIR:
		check_stat(c, e, &st);
		break;
	}
	return check_xattrs(c, e);
}

int verify_includes(const struct plan *pl, const char *root, FILE *log, unsigned max_report,
		    struct verify_result *res)
{
	struct ictx c = { .s = pl->inc, .log = log, .max_report = max_report, .res = res };
	size_t rl = strlen(root);
	int ret = 0;

	if (!c.s || !c.s->n)
		return 0;
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl == 1)
		rl = 0;
	c.a = malloc(CHUNK);
	c.b = malloc(CHUNK);
	if (!c.a || !c.b)
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < c.s->n; i++) {
		if (snprintf(c.path, sizeof(c.path), "%.*s%s", (int)rl, root, c.s->e[i].dest) >=
		    (int)sizeof(c.path)) {
			ret = -ENAMETOOLONG;
			break;
		}
		ret = check_entry(&c, i);
	}
	free(c.a);
	free(c.b);
	return ret;
}
