/* xattr.c - extended attributes through the kernel: fsetxattr on what is open, setxattr through /proc/self/fd for the rest */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
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
