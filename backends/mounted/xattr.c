/* xattr.c - extended attributes through the kernel: fsetxattr on what is open, setxattr through /proc/self/fd for the rest */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backends/mounted/mounted.h"

static int set_list(int fd, const char *proc, const struct plan_xattrs *xa)
{
	for (unsigned i = 0; i < xa->n; i++) {
		int r = proc ? setxattr(proc, xa->name[i], xa->value[i], xa->len[i], 0) :
			       fsetxattr(fd, xa->name[i], xa->value[i], xa->len[i], 0);

		if (r != 0)
			return -errno;
	}
	return 0;
}

int mnt_xattrs_fd(struct mnt_state *st, int fd, enum plan_entry kind, uint64_t id)
{
	struct plan_xattrs xa;

	if (!plan_xattrs_enabled(st->pl) || !plan_xattrs(st->pl, kind, id, &xa))
		return 0;
	return set_list(fd, NULL, &xa);
}

/*
 * A symbolic link or special file: an O_PATH descriptor of the entry
 * itself, named through /proc/self/fd (a FIFO is never opened for I/O).
 */
int mnt_xattrs_at(struct mnt_state *st, int dirfd, const char *name, uint32_t link)
{
	struct plan_xattrs xa;
	char proc[64];
	int fd, ret;

	if (!plan_xattrs_enabled(st->pl) || !plan_xattrs(st->pl, PLAN_LINK, link, &xa))
		return 0;
	fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	ret = set_list(fd, proc, &xa);
	close(fd);
	return ret;
}

/* Whether fd's file system keeps attribute name (a scratch file's). */
int mnt_xattr_probe(int fd, const char *name, const void *value, size_t len)
{
	if (fsetxattr(fd, name, value, len, 0) != 0)
		return 0;
	fremovexattr(fd, name);
	return 1;
}

int mnt_xattrs_save_root(struct mnt_state *st)
{
	struct mnt_undo *u = &st->undo;
	struct plan_xattrs xa;

	if (!plan_xattrs_enabled(st->pl) || !plan_xattrs(st->pl, PLAN_DIR, 0, &xa))
		return 0;
	for (unsigned i = 0; i < xa.n; i++) {
		ssize_t n = fgetxattr(st->rootfd, xa.name[i], NULL, 0);

		u->root_xname[i] = strdup(xa.name[i]);
		u->root_xlen[i] = -1;
		u->root_xval[i] = NULL;
		u->root_nx = i + 1;
		if (!u->root_xname[i])
			return -ENOMEM;
		if (n < 0) {
			if (errno == ENODATA)
				continue;
			return -errno;
		}
		u->root_xval[i] = malloc(n ? (size_t)n : 1);
		if (!u->root_xval[i])
			return -ENOMEM;
		n = fgetxattr(st->rootfd, xa.name[i], u->root_xval[i], (size_t)n);
		if (n < 0)
			return -errno; /* it changed meanwhile: not ours to guess */
		u->root_xlen[i] = n;
	}
	return 0;
}

void mnt_xattrs_restore_root(struct mnt_state *st)
{
	struct mnt_undo *u = &st->undo;

	for (unsigned i = 0; i < u->root_nx; i++) {
		if (u->root_xlen[i] >= 0)
			(void)fsetxattr(st->rootfd, u->root_xname[i], u->root_xval[i],
					(size_t)u->root_xlen[i], 0);
		else
			(void)fremovexattr(st->rootfd, u->root_xname[i]);
	}
	mnt_xattrs_release_root(st);
}

void mnt_xattrs_release_root(struct mnt_state *st)
{
	struct mnt_undo *u = &st->undo;

	for (unsigned i = 0; i < u->root_nx; i++) {
		free(u->root_xname[i]);
		free(u->root_xval[i]);
	}
	u->root_nx = 0;
}
