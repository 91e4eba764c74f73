/* target.c - the safety rules of `imprint create`: signatures, busy targets, atomic commit */
#include <blkid/blkid.h>
#include <dirent.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cli/target.h"
#include "cli/target_scan.h"
#include "util/strutil.h"

/* Zeroed on a device after a failed build: every superblock we care about lives here. */
#define WIPE_BYTES (64 * 1024)

/* How often and how long to wait for another opener of a device to go away. */
#define OPENER_TRIES   10
#define OPENER_WAIT_US 100000

/* Partitions of one device (and the device itself) that must not be in use. */
#define MAX_DEVS 256

/* A message into err. */
#define set_error(err, ...) errbuf_set((err)->msg, sizeof((err)->msg), __VA_ARGS__)

/* Read a small sysfs or proc file into buf, without its trailing newline. */
static int read_small(const char *path, char *buf, size_t len)
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
static dev_t parse_devnum(const char *s)
{
	unsigned ma, mi;

	if (sscanf(s, "%u:%u", &ma, &mi) != 2)
		return 0;
	return makedev(ma, mi);
}

/*
 * The size of an ext2/3/4 file system from its primary superblock, so
 * that --no-format can plan for the file system that is there.  0 when the
 * superblock cannot be read or makes no sense.
 */
static uint64_t ext_fs_size(const char *path)
{
	unsigned char sb[1024];
	uint32_t lo, hi = 0, log_bs, incompat;
	uint16_t magic;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = pread(fd, sb, sizeof(sb), 1024);
	close(fd);
	if (n != (ssize_t)sizeof(sb))
		return 0;
	memcpy(&magic, sb + 0x38, 2);
	memcpy(&lo, sb + 0x04, 4);
	memcpy(&log_bs, sb + 0x18, 4);
	memcpy(&incompat, sb + 0x60, 4);
	if (le16toh(magic) != 0xEF53 || le32toh(log_bs) > 6)
		return 0;
	if (le32toh(incompat) & 0x80)  /* INCOMPAT_64BIT */
		memcpy(&hi, sb + 0x150, 4);
	return (((uint64_t)le32toh(hi) << 32) | le32toh(lo)) << (10 + le32toh(log_bs));
}

static void copy_value(blkid_probe pr, const char *name, char *buf, size_t len)
{
	const char *v;

	if (blkid_probe_lookup_value(pr, name, &v, NULL) == 0)
		snprintf(buf, len, "%s", v);
}

static int probe(struct target *t, struct target_error *err)
{
	blkid_probe pr;
	int rc, ret = 0;

	errno = 0;
	pr = blkid_new_probe_from_filename(t->path);
	if (!pr) {
		ret = errno ? -errno : -EIO;
		set_error(err, "cannot read '%s': %s", t->path, strerror(-ret));
		return ret;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL |
					  BLKID_SUBLKS_UUID | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		copy_value(pr, "TYPE", t->type, sizeof(t->type));
		copy_value(pr, "USAGE", t->usage, sizeof(t->usage));
		copy_value(pr, "LABEL", t->label, sizeof(t->label));
		copy_value(pr, "PTTYPE", t->pttype, sizeof(t->pttype));
	} else if (rc == -2) {
		/* several signatures and none preferred: name them all */
		size_t off = 0;

		t->ambivalent = 1;
		blkid_reset_probe(pr);
		blkid_probe_enable_partitions(pr, 0);
		while (blkid_do_probe(pr) == 0 && off < sizeof(t->type) - 1) {
			const char *v;

			if (blkid_probe_lookup_value(pr, "TYPE", &v, NULL) != 0)
				continue;
			off += snprintf(t->type + off, sizeof(t->type) - off, "%s%s",
					off ? ", " : "", v);
		}
	} else if (rc < 0) {
		ret = -EIO;
		set_error(err, "cannot probe '%s' for signatures (libblkid failed)", t->path);
	}
	blkid_free_probe(pr);
	if (!ret && (!strcmp(t->type, "ext2") || !strcmp(t->type, "ext3") ||
		     !strcmp(t->type, "ext4") || !strcmp(t->type, "ext4dev")))
		t->fs_size = ext_fs_size(t->path);
	return ret;
}

/* The directory d must let us create files in it. */
static int check_dir(const char *path, const char *d, struct target_error *err)
{
	struct stat st;

	if (stat(d, &st) != 0) {
		int ret = -errno;

		set_error(err, "cannot create '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode)) {
		set_error(err, "cannot create '%s': '%s' is not a directory", path, d);
		return -ENOTDIR;
	}
	if (access(d, W_OK | X_OK) != 0) {
		int ret = -errno;

		set_error(err, "cannot create '%s': %s (directory '%s')", path,
			  strerror(-ret), d);
		return ret;
	}
	return 0;
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "a directory";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISSOCK(m))
		return "a socket";
	return "not a regular file";
}

/*
 * Call fn(line, arg) on each line of the /proc file path (its newline
 * kept; fn may cut it up) until fn returns nonzero.  Returns that value,
 * or 0 at the end or when path cannot be opened.
 */
static int scan_proc_lines(const char *path, int (*fn)(char *line, void *arg), void *arg)
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

/* dir_fstype's search: the device and where its type goes. */
struct fstype_scan {
	dev_t dev;
	char *out;
	size_t len;
};

static int fstype_line(char *line, void *arg)
{
	struct fstype_scan *s = arg;
	char *save, *sep, *tok;

	/* id parent M:m ... - fstype source superopts */
	sep = strstr(line, " - ");
	if (!sep)
		return 0;
	tok = strtok_r(line, " ", &save);
	tok = tok ? strtok_r(NULL, " ", &save) : NULL;
	tok = tok ? strtok_r(NULL, " ", &save) : NULL;
	if (!tok || parse_devnum(tok) != s->dev)
		return 0;
	tok = strtok_r(sep + 3, " ", &save);
	if (tok)
		snprintf(s->out, s->len, "%s", tok);
	return 0;
}

/*
 * The type of the file system holding st ("xfs", "btrfs", ...) from the
 * last mount of its device in /proc/self/mountinfo, or "" when not found.
 */
static void dir_fstype(const struct stat *st, char *out, size_t len)
{
	struct fstype_scan s = { st->st_dev, out, len };

	out[0] = '\0';
	scan_proc_lines("/proc/self/mountinfo", fstype_line, &s);
}

/*
 * A directory: the backend that writes into it checks what it holds; here,
 * its file system's capacity and free space (statvfs).
 */
static int open_dir(struct target *t, const char *path, struct target_error *err)
{
	struct statvfs sv;
	struct stat st;
	int ret;

	if (statvfs(path, &sv) != 0) {
		ret = -errno;
		set_error(err, "cannot read the file system of '%s': %s", path, strerror(-ret));
		return ret;
	}
	t->exists = 1;
	t->is_dir = 1;
	t->dir_size = (uint64_t)sv.f_blocks * sv.f_frsize;
	t->dir_free = (uint64_t)sv.f_bavail * sv.f_frsize;
	t->dir_readonly = !!(sv.f_flag & ST_RDONLY);
	if (stat(path, &st) == 0)
		dir_fstype(&st, t->type, sizeof(t->type));
	t->real = strdup(path);
	return t->real ? 0 : -ENOMEM;
}

int target_open(struct target *t, const char *path, struct target_error *err)
{
	struct stat st, lst;
	char *copy;
	int ret;

	memset(t, 0, sizeof(*t));
	t->lock_fd = t->excl_fd = t->tmp_fd = -1;
	t->path = strdup(path);
	if (!t->path)
		return -ENOMEM;
	if (!*path) {
		set_error(err, "the target path is empty; expected an image file or a block device");
		return -EINVAL;
	}
	if (stat(path, &st) != 0) {
		ret = -errno;
		if (ret == -ENOENT && lstat(path, &lst) == 0) {
			set_error(err, "'%s' is a dangling symbolic link; expected an image file or a block device",
				  path);
			return -ENOENT;
		}
		if (ret != -ENOENT) {
			set_error(err, "cannot access '%s': %s", path, strerror(-ret));
			return ret;
		}
		t->real = strdup(path);
	} else if (S_ISBLK(st.st_mode)) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			ret = -errno;
			set_error(err, "cannot open '%s': %s", path, strerror(-ret));
			return ret;
		}
		if (ioctl(fd, BLKGETSIZE64, &t->dev_size) != 0) {
			ret = -errno;
			close(fd);
			set_error(err, "cannot get the size of '%s': %s", path, strerror(-ret));
			return ret;
		}
		close(fd);
		t->exists = 1;
		t->is_device = 1;
		t->rdev = st.st_rdev;
		ret = probe(t, err);
		if (!ret && !t->type[0] && !t->pttype[0])
			ret = scan_device_ends(path, t->dev_size, t->content, sizeof(t->content));
		if (ret && !err->msg[0])
			set_error(err, "cannot read '%s': %s", path, strerror(-ret));
		return ret;
	} else if (S_ISDIR(st.st_mode)) {
		return open_dir(t, path, err);
	} else if (S_ISREG(st.st_mode)) {
		t->exists = 1;
		t->file_size = (uint64_t)st.st_size;
		t->file_dev = st.st_dev;
		t->file_ino = st.st_ino;
		/* replace the file a symlink points to, not the symlink */
		if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode))
			t->real = realpath(path, NULL);
		else
			t->real = strdup(path);
	} else {
		set_error(err, "'%s' is %s; expected an image file or a block device", path,
			  kind_of(st.st_mode));
		return -EINVAL;
	}
	if (!t->real)
		return -ENOMEM;
	copy = strdup(t->real);
	if (!copy)
		return -ENOMEM;
	t->dir = strdup(dirname(copy));
	free(copy);
	if (!t->dir)
		return -ENOMEM;
	ret = check_dir(path, t->dir, err);
	if (ret)
		return ret;
	if (!t->exists || !t->file_size)
		return 0;
	ret = probe(t, err);
	if (!ret && !t->type[0] && !t->pttype[0]) {
		ret = scan_file_content(t->real, t->file_size, t->content, sizeof(t->content));
		if (ret)
			set_error(err, "cannot read '%s': %s", path, strerror(-ret));
	}
	return ret;
}

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
		if (read_small(sub, buf, sizeof(buf)) == 0 && parse_devnum(buf))
			out[n++] = parse_devnum(buf);
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
	dev = parse_devnum(fields[2]);
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

	return scan_proc_lines("/proc/self/mountinfo", mount_line, &s);
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

	return scan_proc_lines("/proc/swaps", swap_line, &s);
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
		if (read_small(path, backing, sizeof(backing)) != 0)
			continue;
		if (stat(backing, &bst) != 0 || bst.st_dev != st.st_dev || bst.st_ino != st.st_ino)
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		if (read_small(path, devnum, sizeof(devnum)) != 0 || !parse_devnum(devnum))
			continue;
		n = dev_family(parse_devnum(devnum), devs, MAX_DEVS);
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

static int is_ext(const char *type)
{
	return !strcmp(type, "ext2") || !strcmp(type, "ext3") || !strcmp(type, "ext4") ||
	       !strcmp(type, "ext4dev");
}

static const char *article(const char *word)
{
	return strchr("aeiouAEIOU", word[0]) ? "an" : "a";
}

/* "an ext4 file system (label 'x')", "a dos partition table", ... into buf. */
static void describe(const struct target *t, char *buf, size_t len)
{
	size_t off = 0;

	if (t->ambivalent) {
		snprintf(buf, len, "several conflicting signatures (%s)", t->type);
		return;
	}
	if (t->type[0]) {
		const char *what = "signature";

		if (!strcmp(t->usage, "filesystem"))
			what = "file system";
		else if (!strcmp(t->usage, "raid"))
			what = "RAID member signature";
		else if (!strcmp(t->usage, "crypto"))
			what = "encrypted volume header";
		off += snprintf(buf + off, len - off, "%s %s %s", article(t->type), t->type, what);
		if (t->label[0] && off < len)
			off += snprintf(buf + off, len - off, " (label '%s')", t->label);
	}
	if (t->pttype[0] && off < len)
		snprintf(buf + off, len - off, "%s%s %s partition table", off ? " and " : "",
			 article(t->pttype), t->pttype);
}

int target_check_contents(const struct target *t, int force, int no_format,
			  struct target_error *err)
{
	char what[400];

	if (t->is_dir) /* what a directory holds is its backend's to judge */
		return 0;
	if (no_format) {
		if (!t->exists) {
			set_error(err, "'%s' does not exist; --no-format needs an existing ext2, ext3 or ext4 file system",
				  t->path);
			return -ENOENT;
		}
		if (!t->ambivalent && !t->pttype[0] && is_ext(t->type))
			return 0;
		if (t->type[0] || t->pttype[0]) {
			describe(t, what, sizeof(what));
			set_error(err, "'%s' holds %s; --no-format needs an ext2, ext3 or ext4 file system",
				  t->path, what);
		} else {
			set_error(err, "'%s' holds no file system; --no-format needs an ext2, ext3 or ext4 file system (drop --no-format to make one)",
				  t->path);
		}
		return -EMEDIUMTYPE;
	}
	if (force || (!t->type[0] && !t->pttype[0] && !t->content[0]))
		return 0;
	if (!t->type[0] && !t->pttype[0]) {
		set_error(err, "'%s' holds %s; use --force to overwrite it", t->path, t->content);
		return -EEXIST;
	}
	describe(t, what, sizeof(what));
	set_error(err, "'%s' holds %s; use --force to overwrite it", t->path, what);
	return -EEXIST;
}

/* Copy the existing image into the temporary file, keeping its holes. */
static int copy_sparse(int in, int out, uint64_t size)
{
	off_t pos = 0, end;

	if (ioctl(out, FICLONE, in) == 0)
		return 0;
	while ((uint64_t)pos < size) {
		pos = lseek(in, pos, SEEK_DATA);
		if (pos < 0)
			return errno == ENXIO ? 0 : -errno;
		end = lseek(in, pos, SEEK_HOLE);
		if (end < 0)
			return -errno;
		while (pos < end) {
			off_t o = pos;
			ssize_t n = copy_file_range(in, &pos, out, &o, (size_t)(end - pos), 0);

			if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS ||
				      errno == EOPNOTSUPP)) {
				char buf[1 << 16];
				size_t want = end - pos < (off_t)sizeof(buf) ? (size_t)(end - pos)
									      : sizeof(buf);

				n = pread(in, buf, want, pos);
				if (n > 0 && pwrite(out, buf, (size_t)n, pos) != n)
					return errno ? -errno : -EIO;
				if (n > 0)
					pos += n;
			}
			if (n < 0)
				return -errno;
			if (n == 0)
				return -EIO;
		}
	}
	return 0;
}

/* The named temporary file where the file system has no O_TMPFILE (the old scheme). */
static int make_named_temp(struct target *t, struct target_error *err)
{
	const char *slash = strrchr(t->real, '/');
	const char *base = slash ? slash + 1 : t->real;
	size_t len = strlen(t->real) + 32;
	mode_t mask;
	int ret;

	t->tmp = malloc(len);
	if (!t->tmp)
		return -ENOMEM;
	if (slash)
		snprintf(t->tmp, len, "%.*s/.%s.imprint-XXXXXX", (int)(slash - t->real), t->real,
			 base);
	else
		snprintf(t->tmp, len, ".%s.imprint-XXXXXX", base);
	t->tmp_fd = mkostemp(t->tmp, O_CLOEXEC);
	if (t->tmp_fd < 0) {
		ret = -errno;
		set_error(err, "cannot create '%s' (a temporary file beside '%s'): %s", t->tmp,
			  t->path, strerror(-ret));
		free(t->tmp);
		t->tmp = NULL;
		return ret;
	}
	t->wrote = 1;
	/* mkstemp makes 0600; an image is an ordinary file */
	mask = umask(0);
	umask(mask);
	if (fchmod(t->tmp_fd, 0666 & ~mask) != 0) {
		ret = -errno;
		set_error(err, "cannot set the mode of '%s': %s", t->tmp, strerror(-ret));
		return ret;
	}
	return 0;
}

/*
 * The temporary image file, once: an unnamed O_TMPFILE in TARGET's
 * directory, which nothing (not even SIGKILL) can leave behind, reached by
 * path as /proc/PID/fd/N; else a named one.
 */
static int make_temp(struct target *t, struct target_error *err)
{
	int fd;

	if (t->tmp_fd >= 0)
		return 0;
	fd = open(t->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
	if (fd >= 0) {
		snprintf(t->fd_path, sizeof(t->fd_path), "/proc/%d/fd/%d", (int)getpid(), fd);
		if (access(t->fd_path, R_OK | W_OK) == 0) {
			t->tmp_fd = fd;
			t->tmp_anon = 1;
			t->wrote = 1;
			return 0;
		}
		close(fd); /* no /proc: the backend could not reach it */
		t->fd_path[0] = '\0';
	} else if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
		int ret = -errno;

		set_error(err, "cannot create a temporary file in '%s' (for '%s'): %s", t->dir,
			  t->path, strerror(-ret));
		return ret;
	}
	return make_named_temp(t, err);
}

/* The temporary file's name for messages. */
static const char *temp_name(const struct target *t)
{
	return t->tmp_anon ? "the temporary image" : t->tmp;
}

int target_check_room(struct target *t, uint64_t size, uint64_t data, int no_format,
		      struct target_error *err)
{
	struct statvfs sv;
	int ret;

	if (t->is_device || t->is_dir)
		return 0;
	ret = make_temp(t, err);
	if (ret)
		return ret;
	if (!no_format && ftruncate(t->tmp_fd, (off_t)size) != 0) {
		ret = -errno;
		if (ret == -EFBIG || ret == -EINVAL)
			set_error(err, "the file system of '%s' does not allow a file of %llu bytes (%s); use a smaller --size or another directory",
				  t->dir, (unsigned long long)size, strerror(EFBIG));
		else
			set_error(err, "cannot make %s %llu bytes large: %s", temp_name(t),
				  (unsigned long long)size, strerror(-ret));
		return ret == -EINVAL ? -EFBIG : ret;
	}
	if (fstatvfs(t->tmp_fd, &sv) == 0 && (uint64_t)sv.f_bavail * sv.f_frsize < data) {
		set_error(err, "the file system of '%s' has %llu bytes free but the image needs about %llu bytes written; free space there or lower --used",
			  t->dir, (unsigned long long)sv.f_bavail * sv.f_frsize,
			  (unsigned long long)data);
		return -ENOSPC;
	}
	return 0;
}

static int prepare_image(struct target *t, uint64_t size, int no_format,
			 struct target_error *err)
{
	int ret;

	ret = make_temp(t, err);
	if (ret)
		return ret;
	if (no_format) {
		int in = open(t->real, O_RDONLY | O_CLOEXEC);

		if (in < 0) {
			ret = -errno;
			set_error(err, "cannot open '%s': %s", t->path, strerror(-ret));
			return ret;
		}
		ret = copy_sparse(in, t->tmp_fd, t->file_size);
		close(in);
		if (ret) {
			set_error(err, "cannot copy '%s' to %s: %s", t->path, temp_name(t),
				  strerror(-ret));
			return ret;
		}
		size = t->file_size;
	}
	if (ftruncate(t->tmp_fd, (off_t)size) != 0) {
		ret = -errno;
		set_error(err, "cannot make %s %llu bytes large: %s", temp_name(t),
			  (unsigned long long)size, strerror(-ret));
		return ret;
	}
	return 0;
}

int target_prepare(struct target *t, uint64_t size, int no_format, const char **path,
		   struct target_error *err)
{
	int ret;

	if (t->is_dir) {
		*path = t->path;
		return 0;
	}
	if (!t->is_device) {
		ret = prepare_image(t, size, no_format, err);
		*path = t->tmp_anon ? t->fd_path : t->tmp;
		return ret;
	}
	/* claimed since the busy check (target_check_busy) */
	if (t->excl_fd < 0) {
		set_error(err, "'%s' is not claimed by this run; expected the busy check first",
			  t->path);
		return -EBUSY;
	}
	t->wrote = 1;
	*path = t->path;
	return 0;
}

static int sync_path(const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (fsync(fd) != 0)
		ret = -errno;
	if (close(fd) != 0 && !ret)
		ret = -errno;
	return ret;
}

/* Link the unnamed temporary file as path; -EEXIST when path exists. */
static int link_anon(const struct target *t, const char *path)
{
	if (linkat(AT_FDCWD, t->fd_path, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno == EEXIST)
		return -EEXIST;
	/* without /proc's help: root (CAP_DAC_READ_SEARCH) may link the descriptor itself */
	if (linkat(t->tmp_fd, "", AT_FDCWD, path, AT_EMPTY_PATH) == 0)
		return 0;
	return -errno;
}

/* Put a new TARGET in place, never over a file that appeared meanwhile. */
static int place_new(struct target *t)
{
	if (t->tmp_anon)
		return link_anon(t, t->real);
	if (renameat2(AT_FDCWD, t->tmp, AT_FDCWD, t->real, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -errno;
	/* no RENAME_NOREPLACE here: a hard link fails on an existing name too */
	if (link(t->tmp, t->real) != 0)
		return -errno;
	unlink(t->tmp);
	return 0;
}

/* Replace the existing TARGET (the same file as at the start) by the temporary file. */
static int place_over(struct target *t)
{
	struct stat st;
	char *hidden;
	int ret;

	if (lstat(t->real, &st) != 0 || st.st_dev != t->file_dev || st.st_ino != t->file_ino)
		return -ESTALE;
	if (!t->tmp_anon)
		return rename(t->tmp, t->real) == 0 ? 0 : -errno;
	/* an unnamed file cannot be renamed over a name: link it beside first */
	hidden = malloc(strlen(t->real) + 40);
	if (!hidden)
		return -ENOMEM;
	ret = -EEXIST;
	for (int i = 0; i < 100 && ret == -EEXIST; i++) {
		const char *slash = strrchr(t->real, '/');

		sprintf(hidden, "%.*s.%s.imprint-%d-%d", slash ? (int)(slash - t->real + 1) : 0,
			t->real, slash ? slash + 1 : t->real, (int)getpid(), i);
		ret = link_anon(t, hidden);
	}
	if (!ret && rename(hidden, t->real) != 0) {
		ret = -errno;
		unlink(hidden);
	}
	free(hidden);
	return ret;
}

/* Done with the temporary image (placed or removed): close it and forget its name. */
static void temp_forget(struct target *t)
{
	if (t->tmp_fd >= 0)
		close(t->tmp_fd);
	t->tmp_fd = -1;
	t->tmp_anon = 0;
	free(t->tmp);
	t->tmp = NULL;
	t->wrote = 0;
}

/* Sync the temporary image and put it in place as TARGET. */
static int commit_image(struct target *t, struct target_error *err)
{
	int ret;

	if (fsync(t->tmp_fd) != 0) {
		ret = -errno;
		set_error(err, "cannot sync %s of '%s': %s", temp_name(t), t->path, strerror(-ret));
		return ret;
	}
	ret = t->exists ? place_over(t) : place_new(t);
	if (ret == -EEXIST) {
		set_error(err, "'%s' appeared while imprint ran (another program made it); it was left as it is and this build discarded",
			  t->path);
		return ret;
	}
	if (ret == -ESTALE) {
		set_error(err, "'%s' was replaced or removed while imprint ran; it was left as it is and this build discarded",
			  t->path);
		return -EEXIST;
	}
	if (ret) {
		set_error(err, "cannot put %s in place as '%s': %s", temp_name(t), t->path,
			  strerror(-ret));
		return ret;
	}
	temp_forget(t);
	/* the new name is durable only once the directory is */
	ret = sync_path(t->dir, O_RDONLY | O_DIRECTORY);
	if (ret)
		set_error(err, "built '%s' but cannot sync its directory '%s': %s", t->path,
			  t->dir, strerror(-ret));
	return ret;
}

int target_commit(struct target *t, struct target_error *err)
{
	int ret = 0;

	if (t->is_dir) /* the backend's finish() made it durable */
		return 0;
	if (!t->is_device)
		return commit_image(t, err);
	if (fsync(t->lock_fd) != 0) {
		ret = -errno;
		set_error(err, "cannot sync '%s': %s", t->path, strerror(-ret));
	} else {
		t->wrote = 0;
	}
	return ret;
}

void target_untouched(struct target *t)
{
	if (t->is_device)
		t->wrote = 0;
}

/* Remove (unlink, or close an unnamed one) the temporary image file. */
static int discard_image(struct target *t, char *what, size_t len, struct target_error *err)
{
	int ret;

	if (t->tmp && unlink(t->tmp) != 0 && errno != ENOENT) {
		ret = -errno;
		set_error(err, "cannot remove the partial image '%s': %s", t->tmp, strerror(-ret));
		return ret;
	}
	if (what && t->tmp)
		snprintf(what, len, "removed the partial image '%s'", t->tmp);
	else if (what)
		snprintf(what, len, "removed the partial image (an unnamed temporary file beside '%s')",
			 t->path);
	temp_forget(t);
	return 0;
}

int target_discard(struct target *t, char *what, size_t len, struct target_error *err)
{
	static const char zeros[4096];
	int ret = 0;

	if (what && len)
		what[0] = '\0';
	if (!t->wrote || t->is_dir) /* a backend's abort() removes what it made in a directory */
		return 0;
	if (!t->is_device)
		return discard_image(t, what, len, err);
	if (t->excl_fd < 0) {
		/* another program claimed it while mke2fs ran: not ours to invalidate */
		if (what)
			snprintf(what, len, "left '%s' as it is: another program claimed it during the build",
				 t->path);
		t->wrote = 0;
		return 0;
	}
	for (off_t off = 0; off < WIPE_BYTES; off += sizeof(zeros)) {
		if (pwrite(t->lock_fd, zeros, sizeof(zeros), off) != (ssize_t)sizeof(zeros)) {
			ret = errno ? -errno : -EIO;
			break;
		}
	}
	if (!ret && fsync(t->lock_fd) != 0)
		ret = -errno;
	if (ret) {
		set_error(err, "cannot invalidate the partial file system on '%s': %s; do not use it",
			  t->path, strerror(-ret));
		return ret;
	}
	if (what)
		snprintf(what, len, "invalidated the partial file system on '%s' (zeroed its first %d KiB)",
			 t->path, WIPE_BYTES / 1024);
	t->wrote = 0;
	return 0;
}

int target_keep(struct target *t, char *what, size_t len)
{
	if (what && len)
		what[0] = '\0';
	if (!t->wrote || t->is_dir) /* the backend said what it kept */
		return 0;
	if (!t->is_device && t->tmp_anon && !t->tmp) {
		/* an unnamed temporary file: give it a hidden name beside TARGET to keep it */
		const char *slash = strrchr(t->real, '/');
		size_t n = strlen(t->real) + 40;

		t->tmp = malloc(n);
		if (!t->tmp)
			return -ENOMEM;
		snprintf(t->tmp, n, "%.*s.%s.imprint-%d", slash ? (int)(slash - t->real + 1) : 0,
			 t->real, slash ? slash + 1 : t->real, (int)getpid());
		if (link_anon(t, t->tmp) != 0) {
			int ret = -errno;

			free(t->tmp);
			t->tmp = NULL;
			return ret;
		}
	}
	t->keep_named = !t->is_device;
	if (what)
		snprintf(what, len, "kept the partial %s '%s' (--keep-partial)",
			 t->is_device ? "file system on" : "image", t->is_device ? t->path : t->tmp);
	t->wrote = 0;
	return 0;
}

void target_release(struct target *t)
{
	/* a named temporary file made before planning, when planning failed */
	if (t->tmp && !t->keep_named)
		unlink(t->tmp);
	if (t->tmp_fd >= 0)
		close(t->tmp_fd);
	if (t->excl_fd >= 0)
		close(t->excl_fd);
	if (t->lock_fd >= 0)
		close(t->lock_fd); /* drops the flock */
	free(t->path);
	free(t->real);
	free(t->dir);
	free(t->tmp);
	memset(t, 0, sizeof(*t));
	t->lock_fd = t->excl_fd = t->tmp_fd = -1;
}
