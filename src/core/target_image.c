/* target_image.c - the temporary image of a file target: O_TMPFILE or a named one, host limits, its link or rename into place */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/target.h"
#include "core/target_int.h"
#include "util/cleanup.h"

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
	cleanup_track(t->tmp, CLEANUP_FILE);
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

int image_prepare(struct target *t, uint64_t size, int no_format, struct target_error *err)
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
int image_link_anon(const struct target *t, const char *path)
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
		return image_link_anon(t, t->real);
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
		ret = image_link_anon(t, hidden);
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
	cleanup_untrack(t->tmp);
	free(t->tmp);
	t->tmp = NULL;
	t->wrote = 0;
}

/* Sync the temporary image and put it in place as TARGET. */
int image_commit(struct target *t, struct target_error *err)
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
/* Remove (unlink, or close an unnamed one) the temporary image file. */
int image_discard(struct target *t, char *what, size_t len, struct target_error *err)
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

int target_convert_begin(struct target *t, const char **raw, const char **out,
			 struct target_error *err)
{
	int ret;

	if (t->is_device || t->is_dir || t->tmp_fd < 0 || t->raw_fd >= 0) {
		set_error(err, "'%s': only a finished image file can be converted", t->path);
		return -EINVAL;
	}
	t->raw_fd = t->tmp_fd;
	t->raw_anon = t->tmp_anon;
	t->raw_tmp = t->tmp;
	memcpy(t->raw_fd_path, t->fd_path, sizeof(t->fd_path));
	t->tmp_fd = -1;
	t->tmp_anon = 0;
	t->tmp = NULL;
	t->fd_path[0] = '\0';
	ret = make_temp(t, err);
	if (ret) {
		/* back as it was: the raw image is the one to discard */
		t->tmp_fd = t->raw_fd;
		t->tmp_anon = t->raw_anon;
		t->tmp = t->raw_tmp;
		memcpy(t->fd_path, t->raw_fd_path, sizeof(t->fd_path));
		t->raw_fd = -1;
		t->raw_tmp = NULL;
		return ret;
	}
	*raw = t->raw_anon ? t->raw_fd_path : t->raw_tmp;
	*out = t->tmp_anon ? t->fd_path : t->tmp;
	return 0;
}

void target_convert_end(struct target *t, int ok)
{
	(void)ok; /* a failed conversion's file goes with discard, like any partial image */
	if (t->raw_fd < 0)
		return;
	if (t->raw_tmp)
		unlink(t->raw_tmp);
	close(t->raw_fd);
	cleanup_untrack(t->raw_tmp);
	free(t->raw_tmp);
	t->raw_tmp = NULL;
	t->raw_fd = -1;
	t->raw_anon = 0;
	t->raw_fd_path[0] = '\0';
}
