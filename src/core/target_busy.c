/* target_busy.c - refusing a target in use: mounts, swap, holders, loop devices; the device claim and flock */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/target.h"
#include "core/target_int.h"
#include "core/target_scan.h"

/* How often and how long to wait for another opener of a device to go away. */
#define OPENER_TRIES   10
#define OPENER_WAIT_US 100000

/* Partitions of one device (and the device itself) that must not be in use. */
#define MAX_DEVS 256

/* The device numbers of dev and of its partitions, from sysfs. */
static size_t dev_family(dev_t dev, dev_t *out, size_t max)
{
	char path[128], sub[400], buf[32];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	out[n++] = dev;
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major(dev), minor(dev));
	d = opendir(path);
	if (!d)
		return n;
	while ((de = readdir(d)) && n < max) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/partition", path, de->d_name);
		if (access(sub, F_OK) != 0)
			continue;
		snprintf(sub, sizeof(sub), "%s/%s/dev", path, de->d_name);
		if (target_read_small(sub, buf, sizeof(buf)) == 0 && target_parse_devnum(buf))
			out[n++] = target_parse_devnum(buf);
	}
	closedir(d);
	return n;
}

/*
 * Unescape a mountinfo field in place (\040 for a space and friends).
 */
static void unescape(char *s)
{
	char *o = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*o++ = *s++;
		}
	}
	*o = '\0';
}

/* find_mount's search: the devices, the file, and where the mount point goes. */
struct mount_scan {
	const dev_t *devs;
	size_t n;
	const struct stat *file;
	char *mnt;
	size_t len;
};

static int mount_line(char *line, void *arg)
{
	struct mount_scan *s = arg;
	char *save, *fields[10], *src, *sep;
	int nf = 0, found = 0;
	dev_t dev;

	/* id parent M:m root mountpoint opts [optional...] - fstype source superopts */
	sep = strstr(line, " - ");
	if (!sep)
		return 0;
	*sep = '\0';
	for (char *tok = strtok_r(line, " ", &save); tok && nf < 10;
	     tok = strtok_r(NULL, " ", &save))
		fields[nf++] = tok;
	if (nf < 5)
		return 0;
	dev = target_parse_devnum(fields[2]);
	for (size_t i = 0; i < s->n; i++)
		if (dev && dev == s->devs[i])
			found = 1;
	/* fstype then source; btrfs and FUSE mounts show only the source */
	src = strtok_r(sep + 3, " ", &save);
	src = src ? strtok_r(NULL, " ", &save) : NULL;
	if (!found && src && src[0] == '/') {
		struct stat st;

		unescape(src);
		if (stat(src, &st) == 0) {
			for (size_t i = 0; i < s->n; i++)
				if (S_ISBLK(st.st_mode) && st.st_rdev == s->devs[i])
					found = 1;
			if (s->file && S_ISREG(st.st_mode) && st.st_dev == s->file->st_dev &&
			    st.st_ino == s->file->st_ino)
				found = 1;
		}
	}
	if (found) {
		unescape(fields[4]);
		snprintf(s->mnt, s->len, "%s", fields[4]);
	}
	return found;
}

/*
 * Where the first mount of one of devs[0..n-1], or of a source that is the
 * file (dev, ino), is: its mount point into mnt.  Returns 1 when mounted.
 */
static int find_mount(const dev_t *devs, size_t n, const struct stat *file, char *mnt,
		      size_t len)
{
	struct mount_scan s = { devs, n, file, mnt, len };

	return target_scan_lines("/proc/self/mountinfo", mount_line, &s);
}

/* Whether one of devs has a holder (device mapper, RAID, bcache): its name into who. */
static int find_holder(const dev_t *devs, size_t n, char *who, size_t len)
{
	for (size_t i = 0; i < n; i++) {
		char path[128];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/holders", major(devs[i]),
			 minor(devs[i]));
		d = opendir(path);
		if (!d)
			continue;
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(who, len, "%s", de->d_name);
			closedir(d);
			return 1;
		}
		closedir(d);
	}
	return 0;
}

/* find_swap's search: the devices. */
struct swap_scan {
	const dev_t *devs;
	size_t n;
};

static int swap_line(char *line, void *arg)
{
	const struct swap_scan *s = arg;
	char *sp = strchr(line, ' ');
	struct stat st;
	int found = 0;

	if (line[0] != '/' || !sp)
		return 0;
	*sp = '\0';
	unescape(line);
	if (stat(line, &st) == 0 && S_ISBLK(st.st_mode))
		for (size_t i = 0; i < s->n; i++)
			if (st.st_rdev == s->devs[i])
				found = 1;
	return found;
}

/* Whether the device (or a partition) is listed in /proc/swaps. */
static int find_swap(const dev_t *devs, size_t n)
{
	struct swap_scan s = { devs, n };

	return target_scan_lines("/proc/swaps", swap_line, &s);
}

/*
 * Claim the device for this run: a flock (LOCK_EX, as udev and partitioning
 * tools honour it), kept to the end, so that another imprint run is refused
 * even while mke2fs has the device; an exclusive open (the kernel's own
 * answer: it fails while anyone claims the device); then no other process
 * may have it open at all.
 */
static int claim_device(struct target *t, const dev_t *devs, size_t n, struct target_error *err)
{
	char comm[64];
	pid_t pid;
	int ret;

	t->lock_fd = open(t->path, O_RDWR | O_CLOEXEC);
	if (t->lock_fd < 0) {
		ret = -errno;
		set_error(err, "cannot open '%s' for writing: %s", t->path, strerror(-ret));
		return ret;
	}
	if (flock(t->lock_fd, LOCK_EX | LOCK_NB) != 0) {
		ret = errno == EWOULDBLOCK ? -EBUSY : -errno;
		set_error(err, "'%s' is locked by another program (another imprint run or a partitioning tool); wait until it is done (--force does not override this)",
			  t->path);
		return ret;
	}
	t->excl_fd = open(t->path, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (t->excl_fd < 0) {
		ret = -errno;
		if (ret == -EBUSY)
			set_error(err, "'%s' is busy (mounted or in use by another program); free it first (--force does not override this)",
				  t->path);
		else
			set_error(err, "cannot open '%s': %s", t->path, strerror(-ret));
		return ret;
	}
	/* an opener that goes away at once (a probe, a run refused by our lock) is not one */
	for (int i = 0; i < OPENER_TRIES && scan_openers(devs, n, &pid, comm, sizeof(comm)); i++)
		usleep(OPENER_WAIT_US);
	if (scan_openers(devs, n, &pid, comm, sizeof(comm))) {
		set_error(err, "'%s' is open in process %d ('%s'); close it there first (--force does not override this)",
			  t->path, (int)pid, comm);
		return -EBUSY;
	}
	return 0;
}

static int check_device_busy(struct target *t, struct target_error *err)
{
	dev_t devs[MAX_DEVS];
	size_t n = dev_family(t->rdev, devs, MAX_DEVS);
	char where[512];

	if (find_mount(devs, n, NULL, where, sizeof(where))) {
		set_error(err, "'%s' is mounted on '%s'; unmount it first (--force does not override this)",
			  t->path, where);
		return -EBUSY;
	}
	if (find_swap(devs, n)) {
		set_error(err, "'%s' is in use as swap; swapoff it first (--force does not override this)",
			  t->path);
		return -EBUSY;
	}
	if (find_holder(devs, n, where, sizeof(where))) {
		set_error(err, "'%s' is held by '%s' (device mapper, RAID or similar); release it first (--force does not override this)",
			  t->path, where);
		return -EBUSY;
	}
	return claim_device(t, devs, n, err);
}

/*
 * An image file attached to a loop device: refused when that device (or a
 * partition of it) is mounted or held, since whoever uses it is reading the
 * file.  A loop device nobody uses is harmless: the new image replaces the
 * file by rename, and the loop device keeps the old one.
 */
static int check_file_busy(const struct target *t, struct target_error *err)
{
	struct stat st;
	struct dirent *de;
	char where[512];
	DIR *d;
	int ret = 0;

	if (stat(t->path, &st) != 0)
		return 0;
	if (find_mount(NULL, 0, &st, where, sizeof(where))) {
		set_error(err, "'%s' is mounted on '%s'; unmount it first (--force does not override this)",
			  t->path, where);
		return -EBUSY;
	}
	d = opendir("/sys/block");
	if (!d)
		return 0;
	while (!ret && (de = readdir(d))) {
		char path[300], backing[4096], devnum[32];
		struct stat bst;
		dev_t devs[MAX_DEVS];
		size_t n;

		if (strncmp(de->d_name, "loop", 4) != 0)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/loop/backing_file", de->d_name);
		if (target_read_small(path, backing, sizeof(backing)) != 0)
			continue;
		if (stat(backing, &bst) != 0 || bst.st_dev != st.st_dev || bst.st_ino != st.st_ino)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		if (target_read_small(path, devnum, sizeof(devnum)) != 0 || !target_parse_devnum(devnum))
			continue;
		n = dev_family(target_parse_devnum(devnum), devs, MAX_DEVS);
		if (find_mount(devs, n, NULL, where, sizeof(where))) {
			set_error(err, "'%s' is attached to /dev/%s, which is mounted on '%s'; unmount and detach it first (--force does not override this)",
				  t->path, de->d_name, where);
			ret = -EBUSY;
		} else if (find_holder(devs, n, where, sizeof(where))) {
			set_error(err, "'%s' is attached to /dev/%s, which is held by '%s'; release and detach it first (--force does not override this)",
				  t->path, de->d_name, where);
			ret = -EBUSY;
		}
	}
	closedir(d);
	return ret;
}

int target_check_busy(struct target *t, struct target_error *err)
{
	if (!t->exists || t->is_dir)
		return 0;
	return t->is_device ? check_device_busy(t, err) : check_file_busy(t, err);
}

int target_claim(struct target *t, int on)
{
	if (!t->is_device || t->lock_fd < 0)
		return 0;
	if (!on) {
		if (t->excl_fd >= 0)
			close(t->excl_fd);
		t->excl_fd = -1;
		return 0;
	}
	if (t->excl_fd >= 0)
		return 0;
	t->excl_fd = open(t->path, O_RDONLY | O_EXCL | O_CLOEXEC);
	return t->excl_fd < 0 ? -errno : 0;
}
