/* target.c - the safety rules of `imprint create`: opening and probing a target, its contents check, prepare, commit, discard, release */
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "backends/registry.h"
#include "core/target.h"
#include "core/target_int.h"
#include "core/target_scan.h"
#include "util/cleanup.h"
#include "util/strutil.h"

/* Zeroed on a device after a failed build: every superblock we care about lives here. */
#define WIPE_BYTES (64 * 1024)

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
	if (!ret)
		t->fs_size = backend_fs_size(backend_with_fs(t->type, BACKEND_OPT_NO_FORMAT), t->path);
	return ret;
}

/* The directory d must let us create files in it. */
static int check_dir(const char *path, const char *d, struct target_error *err)
{
	struct stat st;

	if (stat(d, &st) != 0) {
		int ret = -errno;

		if (ret == -ENOENT)
			set_error(err, "cannot create '%s': directory '%s' does not exist", path, d);
		else
			set_error(err, "cannot create '%s': %s (directory '%s')", path,
				  strerror(-ret), d);
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

/* dir_fstype's search: the mount (by id, else by device) and where its type goes. */
struct fstype_scan {
	uint64_t mnt_id;
	int by_id;
	dev_t dev;
	char *out;
	size_t len;
};

static int fstype_line(char *line, void *arg)
{
	struct fstype_scan *s = arg;
	char *save, *sep, *tok, *end;
	unsigned long long id;

	/* id parent M:m ... - fstype source superopts */
	sep = strstr(line, " - ");
	if (!sep)
		return 0;
	tok = strtok_r(line, " ", &save);
	if (!tok)
		return 0;
	errno = 0;
	id = strtoull(tok, &end, 10);
	if (s->by_id && (errno || *end || id != s->mnt_id))
		return 0;
	tok = strtok_r(NULL, " ", &save);
	tok = tok ? strtok_r(NULL, " ", &save) : NULL;
	if (!s->by_id && (!tok || target_parse_devnum(tok) != s->dev))
		return 0;
	tok = strtok_r(sep + 3, " ", &save);
	if (tok)
		snprintf(s->out, s->len, "%s", tok);
	return 0;
}

/*
 * The type of the file system holding path ("xfs", "btrfs", ...) from
 * /proc/self/mountinfo, or "" when not found: the line of its mount id
 * (statx), else the last mount of its device (a btrfs subvolume's device
 * is none of mountinfo's: without the mount id it stays unnamed).
 */
static void dir_fstype(const char *path, const struct stat *st, char *out, size_t len)
{
	struct fstype_scan s = { .dev = st->st_dev, .out = out, .len = len };
	struct statx sx;

	out[0] = '\0';
	if (statx(AT_FDCWD, path, 0, STATX_MNT_ID, &sx) == 0 && (sx.stx_mask & STATX_MNT_ID)) {
		s.by_id = 1;
		s.mnt_id = sx.stx_mnt_id;
	}
	target_scan_lines("/proc/self/mountinfo", fstype_line, &s);
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
		dir_fstype(path, &st, t->type, sizeof(t->type));
	t->real = strdup(path);
	return t->real ? 0 : -ENOMEM;
}

int target_open(struct target *t, const char *path, struct target_error *err)
{
	struct stat st, lst;
	char *copy;
	int ret;

	memset(t, 0, sizeof(*t));
	t->lock_fd = t->excl_fd = t->tmp_fd = t->raw_fd = -1;
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
		char which[300];

		/* whatever the flags: a build writes its whole tree and may remove what it made */
		if (target_system_dir(&st, which, sizeof(which))) {
			set_error(err, "'%s' is the system directory %s; refused whatever the options: give a directory of its own (an empty one on the file system to fill)",
				  path, which);
			return -EPERM;
		}
		/* the mounted backend opens DIR itself, never through a link: refuse it now */
		if (path_names_link(path)) {
			char *real = realpath(path, NULL);
			size_t n = strlen(path);

			/* "link/" too: the kernel follows it, the rule is the same */
			set_error(err, "'%s' is a symbolic link to a directory%s; give the directory itself ('%s')",
				  path, n > 1 && path[n - 1] == '/' ? " (a trailing '/' does not change that)" : "",
				  real ? real : "?");
			free(real);
			return -ELOOP;
		}
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
	char what[400], fs[128];

	if (t->is_dir) /* what a directory holds is its backend's to judge */
		return 0;
	if (no_format) {
		/* the file systems a backend that takes --no-format makes */
		backend_fs_words(0, BACKEND_OPT_NO_FORMAT, 0, 'o', fs, sizeof(fs));
		if (!t->exists) {
			set_error(err, "'%s' does not exist; --no-format needs an existing %s file system",
				  t->path, fs);
			return -ENOENT;
		}
		if (!t->ambivalent && !t->pttype[0] && backend_with_fs(t->type, BACKEND_OPT_NO_FORMAT))
			return 0;
		if (t->type[0] || t->pttype[0]) {
			describe(t, what, sizeof(what));
			set_error(err, "'%s' holds %s; --no-format needs %s %s file system", t->path,
				  what, article(fs), fs);
		} else {
			set_error(err, "'%s' holds no file system; --no-format needs %s %s file system (drop --no-format to make one)",
				  t->path, article(fs), fs);
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

int target_prepare(struct target *t, uint64_t size, int no_format, const char **path,
		   struct target_error *err)
{
	int ret;

	if (t->is_dir) {
		*path = t->path;
		return 0;
	}
	if (!t->is_device) {
		ret = image_prepare(t, size, no_format, err);
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

int target_commit(struct target *t, struct target_error *err)
{
	int ret = 0;

	if (t->is_dir) /* the backend's finish() made it durable */
		return 0;
	if (!t->is_device)
		return image_commit(t, err);
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

/* Zero WIPE_BYTES of fd at off.  Returns 0 or a negative errno. */
static int wipe(int fd, uint64_t off)
{
	static const char zeros[4096];

	for (uint64_t at = off; at < off + WIPE_BYTES; at += sizeof(zeros))
		if (pwrite(fd, zeros, sizeof(zeros), (off_t)at) != (ssize_t)sizeof(zeros))
			return errno ? -errno : -EIO;
	return 0;
}

int target_discard(struct target *t, char *what, size_t len, struct target_error *err)
{
	int ret = 0;

	if (what && len)
		what[0] = '\0';
	if (!t->wrote || t->is_dir) /* a backend's abort() removes what it made in a directory */
		return 0;
	if (!t->is_device)
		return image_discard(t, what, len, err);
	if (t->excl_fd < 0) {
		/* another program claimed it while mke2fs ran: not ours to invalidate */
		if (what)
			snprintf(what, len, "left '%s' as it is: another program claimed it during the build",
				 t->path);
		t->wrote = 0;
		return 0;
	}
	ret = wipe(t->lock_fd, 0);
	if (!ret && t->fs_offset)
		ret = wipe(t->lock_fd, t->fs_offset);
	if (!ret && t->fs_offset && t->dev_size > 2 * WIPE_BYTES)
		ret = wipe(t->lock_fd, t->dev_size - WIPE_BYTES);
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
		if (image_link_anon(t, t->tmp) != 0) {
			int ret = -errno;

			free(t->tmp);
			t->tmp = NULL;
			return ret;
		}
	}
	t->keep_named = !t->is_device;
	cleanup_untrack(t->tmp); /* kept on purpose */
	if (what)
		snprintf(what, len, "kept the partial %s '%s' (--keep-partial)",
			 t->is_device ? "file system on" : "image", t->is_device ? t->path : t->tmp);
	t->wrote = 0;
	return 0;
}

int target_fd(const struct target *t)
{
	return t->is_device ? t->lock_fd : t->tmp_fd;
}

void target_release(struct target *t)
{
	target_convert_end(t, 0);
	/* a named temporary file made before planning, when planning failed */
	if (t->tmp && !t->keep_named)
		unlink(t->tmp);
	if (t->tmp_fd >= 0)
		close(t->tmp_fd);
	if (t->excl_fd >= 0)
		close(t->excl_fd);
	if (t->lock_fd >= 0)
		close(t->lock_fd); /* drops the flock */
	cleanup_untrack(t->tmp);
	free(t->path);
	free(t->real);
	free(t->dir);
	free(t->tmp);
	memset(t, 0, sizeof(*t));
	t->lock_fd = t->excl_fd = t->tmp_fd = t->raw_fd = -1;
}
