/* target_scan.c - what a target holds beyond signatures, and which processes have it open */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/target_scan.h"
#include "util/textin.h"

/* Bytes of a device read at each end to see whether it holds anything. */
#define END_BYTES (1024 * 1024)

/* Whether buf[0..n-1] holds a byte other than zero. */
static int nonzero(const unsigned char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i])
			return 1;
	return 0;
}

/* Whether the regular file fd has any data (not only holes); 1 when it cannot tell. */
static int file_has_data(int fd)
{
	off_t pos = lseek(fd, 0, SEEK_DATA);

	if (pos < 0 && errno == ENXIO)
		return 0;
	return 1;
}

static uint64_t get_be(const unsigned char *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * A VM disk image qemu-img makes, described from its header into out:
 * libmagic calls every qcow2 version 3 "AES-encrypted".  Returns 1 when
 * fd starts with one, else 0.
 */
static int vm_image(int fd, uint64_t size, char *out, size_t len)
{
	unsigned char h[40];

	if (pread(fd, h, sizeof(h), 0) != (ssize_t)sizeof(h))
		return 0;
	if (memcmp(h, "QFI\xfb", 4) == 0)
		snprintf(out, len, "a qcow2 image (version %u, a %llu-byte disk%s; %llu bytes)",
			 (unsigned)get_be(h + 4, 4), (unsigned long long)get_be(h + 24, 8),
			 get_be(h + 32, 4) ? ", encrypted" : "", (unsigned long long)size);
	else if (memcmp(h, "KDMV", 4) == 0)
		snprintf(out, len, "a VMDK image (%llu bytes)", (unsigned long long)size);
	else if (memcmp(h, "vhdxfile", 8) == 0)
		snprintf(out, len, "a VHDX image (%llu bytes)", (unsigned long long)size);
	else
		return 0;
	return 1;
}

int scan_file_content(const char *path, uint64_t size, char *out, size_t len)
{
	const char *desc = NULL;
	magic_t m;
	int fd, ret = 0;

	out[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (!file_has_data(fd))
		goto out_close; /* only holes: nothing to lose */
	if (vm_image(fd, size, out, len))
		goto out_close;
	m = magic_open(MAGIC_NONE);
	if (m && magic_load(m, NULL) == 0)
		desc = magic_descriptor(m, fd);
	if (desc && strcmp(desc, "data") != 0)
		snprintf(out, len, "%.100s (%llu bytes)", desc, (unsigned long long)size);
	else
		snprintf(out, len, "%llu bytes of data", (unsigned long long)size);
	if (m)
		magic_close(m);
out_close:
	close(fd);
	return ret;
}

int scan_device_ends(const char *path, uint64_t size, char *out, size_t len)
{
	unsigned char *buf;
	uint64_t want = size < END_BYTES ? size : END_BYTES;
	int fd, first = 0, last = 0, ret = 0;

	out[0] = '\0';
	buf = malloc(END_BYTES);
	if (!buf)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		goto out_free;
	}
	if (pread(fd, buf, want, 0) != (ssize_t)want) {
		ret = errno ? -errno : -EIO;
		goto out_close;
	}
	first = nonzero(buf, want);
	if (size > want) {
		if (pread(fd, buf, want, (off_t)(size - want)) != (ssize_t)want) {
			ret = errno ? -errno : -EIO;
			goto out_close;
		}
		last = nonzero(buf, want);
	}
	if (first || last)
		snprintf(out, len, "data (non-zero bytes) in its %s MiB but no known signature",
			 first && last ? "first and last" :
			 first	       ? "first" :
					 "last");
out_close:
	close(fd);
out_free:
	free(buf);
	return ret;
}

/* Whether /proc/PID/fd of one process has a descriptor of one of devs[0..n-1]. */
static int process_opens(const char *pid, const dev_t *devs, size_t n)
{
	char path[600];
	struct dirent *de;
	int found = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
		if (stat(path, &st) != 0 || !S_ISBLK(st.st_mode))
			continue;
		for (size_t i = 0; i < n; i++)
			if (st.st_rdev == devs[i])
				found = 1;
	}
	closedir(d);
	return found;
}

int scan_openers(const dev_t *devs, size_t n, pid_t *pid, char *comm, size_t len)
{
	char self[32], path[600], raw[64];
	struct dirent *de;
	DIR *d;
	int found = 0;

	snprintf(self, sizeof(self), "%d", (int)getpid());
	d = opendir("/proc");
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9' || !strcmp(de->d_name, self))
			continue;
		if (!process_opens(de->d_name, devs, n))
			continue;
		found = 1;
		*pid = (pid_t)atoi(de->d_name);
		snprintf(comm, len, "?");
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "re");
		if (f) {
			/* a process names itself: escaped before it reaches a terminal */
			if (fgets(raw, sizeof(raw), f)) {
				raw[strcspn(raw, "\n")] = '\0';
				text_escape(comm, len, raw, strlen(raw));
			}
			fclose(f);
		}
	}
	closedir(d);
	return found;
}
