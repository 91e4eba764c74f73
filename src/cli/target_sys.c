/* target_sys.c - small readers of /proc and sysfs shared by the target checks */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/target_int.h"
#include "util/textin.h"

/* /proc/self/mountinfo: a line per mount, paths escaped (octal) at most 4 KiB each */
#define TARGET_PROC_LINE (64 * 1024)
#define TARGET_PROC_TOTAL (256u * 1024 * 1024)

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

int target_scan_lines(const char *path, int (*fn)(char *line, void *arg), void *arg)
{
	struct textin in;
	int ret = 0;

	if (textin_open(&in, path, "a /proc table", TARGET_PROC_LINE, TARGET_PROC_TOTAL))
		goto out_close;
	while (!ret && textin_next(&in) > 0)
		ret = fn(in.line, arg);
out_close:
	textin_close(&in);
	return ret;
}
