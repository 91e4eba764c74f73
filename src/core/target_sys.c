/* target_sys.c - small readers of /proc and sysfs shared by the target checks */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/target_int.h"
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

/* The directories no build may write into, as they are or mounted elsewhere. */
static const char *const system_dirs[] = {
	"/", "/bin", "/boot", "/dev", "/etc", "/home", "/proc", "/root", "/run", "/sbin", "/sys",
	"/usr", "/var",
};

/* Whether the directory at name is st (the same inode of the same device). */
static int same_dir(const char *name, const struct stat *st)
{
	struct stat sd;

	return stat(name, &sd) == 0 && S_ISDIR(sd.st_mode) && sd.st_dev == st->st_dev &&
	       sd.st_ino == st->st_ino;
}

int target_system_dir(const struct stat *st, char *which, size_t len)
{
	struct dirent *de;
	DIR *root;
	int found = 0;

	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
		if (same_dir(system_dirs[i], st)) {
			snprintf(which, len, "%s", system_dirs[i]);
			return 1;
		}
	}
	/* /lib, /lib32, /lib64, /libx32, ...: whatever this system has */
	root = opendir("/");
	if (!root)
		return 0;
	while (!found && (de = readdir(root)) != NULL) {
		char name[300];

		if (strncmp(de->d_name, "lib", 3) != 0)
			continue;
		snprintf(name, sizeof(name), "/%s", de->d_name);
		if (same_dir(name, st)) {
			snprintf(which, len, "%s", name);
			found = 1;
		}
	}
	closedir(root);
	return found;
}
