/* convert.c - `imprint create --format`: the finished raw image converted for a VM by qemu-img */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/convert.h"
#include "util/rng.h"
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

/* The descriptor of a monolithic sparse VMDK: where the header says, at most this long. */
#define VMDK_MAGIC    0x564d444bU /* "KDMV" */
#define VMDK_DESC_MAX (64 * 1024)

/* A little-endian field of a header. */
static uint64_t le_field(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/*
 * qemu-img writes a random content ID ("CID=1a2b3c") into a VMDK's text
 * descriptor, the only thing that differs between two conversions of the
 * same disk.  Put one drawn from seed there instead, eight hex digits, so
 * that the same options give the same bytes.  Returns 0 or a negative
 * errno (-EPROTO: not the layout qemu-img writes).
 */
static int vmdk_seed_cid(int fd, uint64_t seed)
{
	static char desc[VMDK_DESC_MAX + 1], out[VMDK_DESC_MAX + 1];
	unsigned char hdr[44];
	uint64_t off, size;
	char *cid, *eol;
	struct rng r;
	int n;

	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || le_field(hdr, 4) != VMDK_MAGIC)
		return -EPROTO;
	off = le_field(hdr + 28, 8) * 512;
	size = le_field(hdr + 36, 8) * 512;
	if (!off || !size || size > VMDK_DESC_MAX)
		return -EPROTO;
	if (pread(fd, desc, size, (off_t)off) != (ssize_t)size)
		return -EIO;
	desc[size] = '\0';
	cid = strstr(desc, "\nCID=");
	eol = cid ? strchr(cid + 1, '\n') : NULL;
	if (!eol)
		return -EPROTO;
	rng_init(&r, seed, "vmdk_cid", 0);
	memset(out, 0, sizeof(out));
	/* 0xffffffff means "no parent" in parentCID: keep clear of it */
	n = snprintf(out, sizeof(out), "%.*s\nCID=%08x%s", (int)(cid - desc), desc,
		     (unsigned)(rng_next(&r) % 0xffffffffU), eol);
	if (n < 0 || (size_t)n > size)
		return -EPROTO;
	return pwrite(fd, out, size, (off_t)off) == (ssize_t)size ? 0 : -EIO;
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
	if (!ret && f == IMAGE_VMDK) {
		ret = vmdk_seed_cid(target_fd(t), seed);
		if (ret)
			snprintf(msg, len, "cannot give the VMDK '%s' the content ID of its seed: %s",
				 t->path, ret == -EPROTO ? "its descriptor is not where qemu-img puts it" :
				 strerror(-ret));
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
