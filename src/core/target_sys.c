/* target_sys.c - small readers of /proc and sysfs shared by the target checks */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/target_int.h"

/* Read a small sysfs or proc file into buf, without its trailing newline. */
int target_read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

/* "M:m" text to a dev_t; 0 when it does not parse. */
dev_t target_parse_devnum(const char *s)
{
	unsigned ma, mi;

	if (sscanf(s, "%u:%u", &ma, &mi) != 2)
		return 0;
	return makedev(ma, mi);
}

/*
 * Call fn(line, arg) on each line of the /proc file path (its newline
 * kept; fn may cut it up) until fn returns nonzero.  Returns that value,
 * or 0 at the end or when path cannot be opened.
 */
int target_scan_lines(const char *path, int (*fn)(char *line, void *arg), void *arg)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!f)
		return 0;
	while (!ret && getline(&line, &cap, f) > 0)
		ret = fn(line, arg);
	free(line);
	fclose(f);
	return ret;
}
