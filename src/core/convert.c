/* convert.c - `imprint create --format`: the finished raw image converted for a VM by qemu-img */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/convert.h"
#include "core/vmids.h"
#include "util/spawn.h"

static const char *const names[] = {
	[IMAGE_RAW] = "raw",
	[IMAGE_QCOW2] = "qcow2",
	[IMAGE_VMDK] = "vmdk",
	[IMAGE_VHDX] = "vhdx",
};

/* Where qemu-img is when PATH lacks it. */
static const char *const qemu_img_paths[] = { "/usr/bin/qemu-img", "/usr/local/bin/qemu-img",
					      NULL };

int convert_format_parse(const char *s, enum image_format *out)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = (enum image_format)i;
			return 0;
		}
	}
	return -EINVAL;
}

enum image_format convert_format_of(const char *path)
{
	const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');

	if (!dot || (slash && dot < slash))
		return IMAGE_RAW;
	for (size_t i = IMAGE_QCOW2; i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(dot + 1, names[i]) == 0)
			return (enum image_format)i;
	return IMAGE_RAW;
}

const char *convert_format_name(enum image_format f)
{
	return names[f];
}

/* The last line qemu-img printed that says something, for a message. */
static const char *last_line(char *text)
{
	char *line = text, *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (l[strspn(l, " \t")])
			line = l;
	return line;
}

/* What a file of format f starts with (qemu-img's default subformats: VMDK monolithicSparse). */
static const struct {
	const char *magic;
	size_t len;
} magics[] = {
	[IMAGE_RAW] = { "", 0 },
	[IMAGE_QCOW2] = { "QFI\xfb", 4 },
	[IMAGE_VMDK] = { "KDMV", 4 },
	[IMAGE_VHDX] = { "vhdxfile", 8 },
};

/*
 * Whether qemu-img wrote a file of format f in fd: a tool that exits 0
 * and writes nothing (or something else) must not pass as a conversion.
 * Returns 0, or -EIO with msg set.
 */
static int check_output(int fd, const char *path, enum image_format f, char *msg, size_t len)
{
	char head[8];
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0) {
		int ret = -errno;

		snprintf(msg, len, "cannot stat the %s image of '%s': %s", names[f], path,
			 strerror(-ret));
		return ret;
	}
	n = pread(fd, head, magics[f].len, 0);
	if (n == (ssize_t)magics[f].len && memcmp(head, magics[f].magic, magics[f].len) == 0)
		return 0;
	snprintf(msg, len, "qemu-img exited 0 but did not write a %s image for '%s' (%lld bytes%s)",
		 names[f], path, (long long)st.st_size,
		 st.st_size ? ", without the format's signature" : "");
	return -EIO;
}

int convert_check(enum image_format f, char *msg, size_t len)
{
	if (f == IMAGE_RAW || spawn_find("qemu-img", qemu_img_paths) == 0)
		return 0;
	snprintf(msg, len, "'--format %s' needs qemu-img, which is not in PATH nor in /usr/bin or /usr/local/bin (install qemu-utils, or give --format raw)",
		 names[f]);
	return -ENOENT;
}

/* The directory part of path, resolved: realpath of "." when it has none.  Returns 0 or -errno. */
static int real_dir(const char *path, char *out)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	return realpath(dir, out) ? 0 : -errno;
}

/* name as qemu finds it from an image at target_path: absolute, or in target_path's directory. */
static char *real_path_from(const char *name, const char *target_path, char *out)
{
	char dir[PATH_MAX], path[2 * PATH_MAX];

	if (name[0] == '/')
		return realpath(name, out);
	if (real_dir(target_path, dir) != 0)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return realpath(path, out);
}

static uint64_t be64(const unsigned char *b)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | b[i];
	return v;
}

/*
 * The qcow2 header of file: its virtual size into *vsize and its file's
 * identity into st.  Returns 0, or -ENOENT/-EINVAL with msg set.
 */
static int qcow2_header(const char *file, uint64_t *vsize, struct stat *st, char *msg, size_t len)
{
	unsigned char hdr[32];
	ssize_t n;
	int fd, ret;

	fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(msg, len, "cannot open the backing image '%s': %s", file, strerror(-ret));
		return ret == -ENOENT ? -ENOENT : -EINVAL;
	}
	if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
		close(fd);
		snprintf(msg, len, "the backing image '%s' is not a regular file (a qcow2 image is)", file);
		return -EINVAL;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	close(fd);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr, "QFI\xfb", 4) != 0) {
		snprintf(msg, len, "the backing image '%s' is not a qcow2 image (no QFI\\xfb magic); --backing takes the qcow2 image of the generation before", file);
		return -EINVAL;
	}
	*vsize = be64(hdr + 24);
	return 0;
}

int convert_backing_check(const char *file, const char *target_path, char *name, size_t name_len,
			  uint64_t *vsize, char *msg, size_t len)
{
	char real[PATH_MAX], fdir[PATH_MAX], tdir[PATH_MAX];
	struct stat st, tst;
	int ret;

	ret = qcow2_header(file, vsize, &st, msg, len);
	if (ret)
		return ret;
	if (stat(target_path, &tst) == 0 && tst.st_dev == st.st_dev && tst.st_ino == st.st_ino) {
		snprintf(msg, len, "'%s' is the backing image itself: an overlay cannot replace the image it is built on (give a new TARGET)", target_path);
		return -EINVAL;
	}
	if (!realpath(file, real) || real_dir(real, fdir) || real_dir(target_path, tdir)) {
		ret = errno ? -errno : -EIO;
		snprintf(msg, len, "cannot resolve the backing image '%s' from '%s': %s", file,
			 target_path, strerror(-ret));
		return ret;
	}
	if (strcmp(fdir, tdir) == 0)
		snprintf(name, name_len, "%s", strrchr(real, '/') + 1);
	else if ((size_t)snprintf(name, name_len, "%s", real) >= name_len) {
		snprintf(msg, len, "the backing image's path '%s' is too long", real);
		return -EINVAL;
	}
	return 0;
}

/*
 * One qemu-img run for t's conversion to f (argv: its arguments after
 * "qemu-img"); what it says on failure goes to msg.  Returns 0 or a
 * negative errno (-EIO: it failed).
 */
static int qemu_img(const struct target *t, enum image_format f, char **argv, char *msg, size_t len)
{
	char err[1024];
	int ret, status = 0;

	ret = spawn_capture(argv, NULL, qemu_img_paths, err, sizeof(err), &status);
	if (ret == -ENOENT)
		snprintf(msg, len, "cannot convert '%s' to %s: qemu-img not found (install qemu-utils, or give --format raw)",
			 t->path, names[f]);
	else if (ret)
		snprintf(msg, len, "cannot run qemu-img to convert '%s' to %s: %s", t->path,
			 names[f], strerror(-ret));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ret = -EIO;
	if (ret == -EIO)
		snprintf(msg, len, "qemu-img %s could not convert '%s' to %s (%s %d): %s", argv[1],
			 t->path, names[f], WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 last_line(err));
	return ret;
}

/*
 * The overlay of raw on backing (its absolute path real, the name it
 * records name) in out: an empty qcow2 over raw, rebased safely onto
 * backing, so that qemu-img copies in exactly the clusters where the two
 * differ; then the recorded name set without reading anything (-u).
 */
static int make_overlay(const struct target *t, const char *raw, const char *out, const char *real,
			const char *name, char *msg, size_t len)
{
	char *create[] = { "qemu-img", "create", "-q", "-f", "qcow2", "-b", (char *)raw, "-F", "raw",
			   (char *)out, NULL };
	char *rebase[] = { "qemu-img", "rebase", "-q", "-f", "qcow2", "-b", (char *)real, "-F",
			   "qcow2", (char *)out, NULL };
	char *rename[] = { "qemu-img", "rebase", "-q", "-u", "-f", "qcow2", "-b", (char *)name,
			   "-F", "qcow2", (char *)out, NULL };
	int ret;

	ret = qemu_img(t, IMAGE_QCOW2, create, msg, len);
	if (!ret)
		ret = qemu_img(t, IMAGE_QCOW2, rebase, msg, len);
	if (!ret && strcmp(name, real) != 0)
		ret = qemu_img(t, IMAGE_QCOW2, rename, msg, len);
	return ret;
}

int convert_copy_backing(const struct target *t, const char *backing, const char *raw,
			 char *msg, size_t len)
{
	char real[PATH_MAX], err[1024];
	char *argv[] = { "qemu-img", "convert", "-q", "-n", "-f", "qcow2", "-O", "raw", real,
			 (char *)raw, NULL };
	int ret, status = 0;

	if (!real_path_from(backing, t->path, real)) {
		ret = -errno;
		snprintf(msg, len, "cannot find the backing image '%s' beside '%s': %s", backing,
			 t->path, strerror(-ret));
		return ret;
	}
	ret = spawn_capture(argv, NULL, qemu_img_paths, err, sizeof(err), &status);
	if (ret)
		snprintf(msg, len, "cannot run qemu-img to read the backing image '%s': %s", backing,
			 ret == -ENOENT ? "qemu-img not found (install qemu-utils)" : strerror(-ret));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		ret = WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT ||
					      WTERMSIG(status) == SIGTERM) ? -EINTR : -EIO;
		snprintf(msg, len, "qemu-img convert could not copy the backing image '%s' for '%s' (%s %d): %s",
			 backing, t->path, WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), last_line(err));
	}
	return ret;
}

static int run_convert(struct target *t, enum image_format f, const char *backing, uint64_t seed,
		       double *seconds, char *msg, size_t len);

int convert_image(struct target *t, enum image_format f, uint64_t seed, double *seconds, char *msg,
		  size_t len)
{
	return run_convert(t, f, NULL, seed, seconds, msg, len);
}

int convert_image_backed(struct target *t, const char *backing, uint64_t seed, double *seconds,
			 char *msg, size_t len)
{
	return run_convert(t, IMAGE_QCOW2, backing, seed, seconds, msg, len);
}

static int run_convert(struct target *t, enum image_format f, const char *backing, uint64_t seed,
		       double *seconds, char *msg, size_t len)
{
	struct target_error terr = { { 0 } };
	struct timespec t0, t1;
	const char *raw, *out;
	char real[PATH_MAX];
	struct stat rst, bst;
	uint64_t vsize = 0;
	int ret;

	*seconds = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = target_convert_begin(t, &raw, &out, &terr);
	if (ret) {
		snprintf(msg, len, "%s", terr.msg);
		return ret;
	}
	if (backing) {
		/* the backing's name is resolved from TARGET's directory, as qemu resolves it */
		if (!real_path_from(backing, t->path, real))
			ret = -errno;
		if (ret)
			snprintf(msg, len, "cannot find the backing image '%s' beside '%s': %s",
				 backing, t->path, strerror(-ret));
		else
			ret = qcow2_header(real, &vsize, &bst, msg, len);
		if (!ret && stat(raw, &rst) == 0 && (uint64_t)rst.st_size != vsize) {
			snprintf(msg, len, "the backing image has a virtual size of %llu bytes but '%s' is %llu: an overlay keeps its backing's size (give the backing made with the same configuration)",
				 (unsigned long long)vsize, t->path,
				 (unsigned long long)rst.st_size);
			ret = -EINVAL;
		}
		if (!ret)
			ret = make_overlay(t, raw, out, real, backing, msg, len);
	} else {
		char *argv[] = { "qemu-img", "convert", "-q", "-f", "raw", "-O", (char *)names[f],
				 (char *)raw, (char *)out, NULL };

		ret = qemu_img(t, f, argv, msg, len);
	}
	if (!ret)
		ret = check_output(target_fd(t), t->path, f, msg, len);
	if (!ret && (f == IMAGE_VMDK || f == IMAGE_VHDX)) {
		ret = f == IMAGE_VMDK ? vmids_vmdk(target_fd(t), seed) : vmids_vhdx(target_fd(t), seed);
		/* another qemu-img's layout: a valid image still, only not the same bytes each run */
		if (ret == -EPROTO) {
			fprintf(stderr, "imprint: note: this qemu-img lays out %s differently from the one imprint knows: '%s' keeps its random identifiers, so its bytes differ run to run (the disk inside does not)\n",
				names[f], t->path);
			ret = 0;
		}
		if (ret)
			snprintf(msg, len, "cannot give the %s image '%s' the identifiers of its seed: %s",
				 names[f], t->path, strerror(-ret));
	}
	/* the converted file's own writeback is the conversion's time too, not the commit's */
	if (!ret && fsync(target_fd(t)) != 0) {
		ret = -errno;
		snprintf(msg, len, "cannot sync the %s image of '%s': %s", names[f], t->path,
			 strerror(-ret));
	}
	target_convert_end(t, !ret);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	return ret;
}
