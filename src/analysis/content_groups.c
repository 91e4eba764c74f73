/* content_groups.c - content groups and libmagic types by extension, and the extension of a path */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "content/gen.h"
#include "content/source.h"
#include "content/registry.h"
#include "analysis/content_stats_int.h"

/* ---- extensions and groups -------------------------------------------- */

/*
 * Groups by the generator that writes an extension (content_ext_ops()), so
 * that "other binary" is exactly what the compress, duplicate-block and
 * zero-block targets apply to.
 */
static const struct {
	const char *gen;
	enum content_group group;
} gen_groups[] = {
	{ "text", CONTENT_TEXT }, { "html", CONTENT_TEXT }, { "source", CONTENT_TEXT },
	{ "json", CONTENT_TEXT }, { "xml", CONTENT_TEXT },
	{ "png", CONTENT_MEDIA }, { "jpeg", CONTENT_MEDIA }, { "gif", CONTENT_MEDIA },
	{ "bmp", CONTENT_MEDIA }, { "wav", CONTENT_MEDIA }, { "mp3", CONTENT_MEDIA },
	{ "mp4", CONTENT_MEDIA },
	{ "elf", CONTENT_EXEC }, { "pe", CONTENT_EXEC },
};

static const char *const group_names[CONTENT_GROUPS] = {
	[CONTENT_TEXT] = "text",
	[CONTENT_MEDIA] = "media",
	[CONTENT_ARCHIVE] = "archive",
	[CONTENT_EXEC] = "executable",
	[CONTENT_BINARY] = "binary",
};

/*
 * What `file --mime-type` says of each typed format (older libmagic names
 * too).  A bare DOS header ("MZ", application/x-dosexec) is not a PE file.
 */
static const char *const mime_png[] = { "image/png", NULL };
static const char *const mime_jpeg[] = { "image/jpeg", NULL };
static const char *const mime_gif[] = { "image/gif", NULL };
static const char *const mime_bmp[] = { "image/bmp", "image/x-ms-bmp", NULL };
static const char *const mime_wav[] = { "audio/x-wav", "audio/wav", "audio/vnd.wave", NULL };
static const char *const mime_mp3[] = { "audio/mpeg", NULL };
static const char *const mime_mp4[] = { "video/mp4", NULL };
static const char *const mime_pdf[] = { "application/pdf", NULL };
static const char *const mime_zip[] = { "application/zip", NULL };
static const char *const mime_gz[] = { "application/gzip", "application/x-gzip", NULL };
static const char *const mime_tar[] = { "application/x-tar", NULL };
static const char *const mime_so[] = {
	"application/x-sharedlib", "application/x-pie-executable", NULL
};
static const char *const mime_o[] = { "application/x-object", NULL };
static const char *const mime_exec[] = { "application/x-executable", NULL };
static const char *const mime_mo[] = { "application/x-gettext-translation", NULL };
static const char *const mime_pe[] = { "application/vnd.microsoft.portable-executable", NULL };

static const struct {
	const char *ext;
	const char *const *mimes;
} typed[] = {
	{ "png", mime_png }, { "jpg", mime_jpeg }, { "jpeg", mime_jpeg },
	{ "gif", mime_gif }, { "bmp", mime_bmp }, { "wav", mime_wav },
	{ "mp3", mime_mp3 }, { "mp4", mime_mp4 }, { "pdf", mime_pdf },
	{ "zip", mime_zip }, { "gz", mime_gz }, { "tar", mime_tar },
	{ "so", mime_so }, { "o", mime_o }, { "ko", mime_o }, { "exe", mime_pe },
	{ "dll", mime_pe }, { "sys", mime_pe },
	/* the extensions of a format's family (content.c) */
	{ "m4a", mime_mp4 }, { "m4v", mime_mp4 }, { "mov", mime_mp4 }, { "tgz", mime_gz },
	{ "jar", mime_zip }, { "apk", mime_zip }, { "whl", mime_zip }, { "egg", mime_zip },
	{ "docx", mime_zip }, { "xlsx", mime_zip }, { "pptx", mime_zip }, { "odt", mime_zip },
	{ "ods", mime_zip }, { "odp", mime_zip }, { "epub", mime_zip }, { "cbz", mime_zip },
	{ "xps", mime_zip }, { "ocx", mime_pe }, { "cpl", mime_pe }, { "scr", mime_pe },
	{ "drv", mime_pe }, { "mui", mime_pe }, { "ax", mime_pe }, { "acm", mime_pe },
	{ "elf", mime_exec }, { "out", mime_exec }, { "mo", mime_mo }, { "gmo", mime_mo },
};

enum content_group content_group_of_ext(const char *ext)
{
	const struct gen_ops *ops = content_ext_ops(ext);

	if (ops == &gen_binary_ops)
		return CONTENT_BINARY;
	for (size_t i = 0; i < ARRAY_SIZE(gen_groups); i++)
		if (!strcmp(gen_groups[i].gen, ops->name))
			return gen_groups[i].group;
	/* pdf, zip, gzip, tar and any other typed format */
	return CONTENT_ARCHIVE;
}

const char *content_group_name(enum content_group g)
{
	return g < CONTENT_GROUPS ? group_names[g] : "?";
}

const char *const *content_typed_mimes(const char *ext)
{
	for (size_t i = 0; i < ARRAY_SIZE(typed); i++)
		if (!strcmp(typed[i].ext, ext))
			return typed[i].mimes;
	return NULL;
}

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

size_t content_ext_of_path_case(const char *path, char *buf, size_t len)
{
	const char *name = strrchr(path, '/');
	const char *end, *dot;
	size_t n;

	name = name ? name + 1 : path;
	end = name + strlen(name);
	dot = memrchr(name, '.', (size_t)(end - name));
	if (dot && all_digits(dot + 1, (size_t)(end - dot - 1))) {
		/* libz.so.1.2.3: the version numbers after ".so" are not the extension */
		const char *d = dot, *e = end;

		while (d && d > name && all_digits(d + 1, (size_t)(e - d - 1))) {
			e = d;
			d = memrchr(name, '.', (size_t)(d - name));
		}
		if (d && e - d == 3 && (d[1] | 0x20) == 's' && (d[2] | 0x20) == 'o') {
			dot = d;
			end = e;
		}
	}
	/* ".profile" has no extension */
	n = dot && dot > name ? (size_t)(end - dot - 1) : 0;
	if (n >= len)
		n = 0;        /* longer than any extension a format has: none */
	memcpy(buf, dot + 1, n);
	if (len)
		buf[n] = '\0';
	return n;
}

size_t content_ext_of_path(const char *path, char *buf, size_t len)
{
	size_t n = content_ext_of_path_case(path, buf, len);

	for (size_t i = 0; i < n; i++)
		buf[i] = buf[i] >= 'A' && buf[i] <= 'Z' ? (char)(buf[i] - 'A' + 'a') : buf[i];
	return n;
}
