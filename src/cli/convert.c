/* convert.c - `imprint create --format`: the finished raw image converted for a VM by qemu-img */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/convert.h"
#include "cli/vmids.h"
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

int convert_image(struct target *t, enum image_format f, uint64_t seed, double *seconds, char *msg,
		  size_t len)
{
	struct target_error terr = { { 0 } };
	struct timespec t0, t1;
	const char *raw, *out;
	char err[1024];
	char *argv[] = { "qemu-img", "convert", "-q", "-f", "raw", "-O", (char *)names[f],
			 NULL, NULL, NULL };
	int ret, status = 0;

	*seconds = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = target_convert_begin(t, &raw, &out, &terr);
	if (ret) {
		snprintf(msg, len, "%s", terr.msg);
		return ret;
	}
	argv[7] = (char *)raw;
	argv[8] = (char *)out;
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
		snprintf(msg, len, "qemu-img could not convert '%s' to %s (%s %d): %s", t->path,
			 names[f], WIFEXITED(status) ? "exit" : "signal",
			 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			 last_line(err));
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
