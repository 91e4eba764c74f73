/* names.c - the names the mounted backend writes: the plan's, shortened where the file system takes fewer bytes (--allow-drop) */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/mounted/mounted.h"

#define EXT_MAX 16 /* an extension longer than this is not kept */

static uint32_t fnv1a(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return h;
}

/*
 * Shorten name (len bytes) to st->name_limit: the start of the name, cut
 * at a character boundary, "~", 8 hex digits of the whole name's hash,
 * and its extension when it fits.  The same name always gives the same
 * result.  Returns the new length; *renamed set when it changed.
 */
static size_t fit_name(const struct mnt_state *st, char *name, size_t len, int *renamed)
{
	char ext[EXT_MAX + 1] = "", tail[EXT_MAX + 16];
	const char *dot = strrchr(name, '.');
	size_t keep, elen = 0;
	long lim = st->name_limit;

	*renamed = 0;
	if (lim <= 0 || len <= (size_t)lim)
		return len;
	if (dot && dot != name && strlen(dot) <= EXT_MAX && (long)strlen(dot) + 10 < lim) {
		elen = strlen(dot);
		memcpy(ext, dot, elen + 1);
	}
	keep = (size_t)lim - 9 - elen;
	/* never split a UTF-8 sequence */
	while (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80)
		keep--;
	snprintf(tail, sizeof(tail), "~%08x%s", (unsigned)fnv1a(name, len), ext);
	memcpy(name + keep, tail, strlen(tail) + 1);
	*renamed = 1;
	return keep + strlen(tail);
}

/* count: add a shortened name to st->renamed (when the entry is made). */
static size_t fitted(struct mnt_state *st, char *buf, size_t len, int count)
{
	int renamed;

	len = fit_name(st, buf, len, &renamed);
	if (renamed && count)
		__atomic_add_fetch(&st->renamed, 1, __ATOMIC_RELAXED);
	return len;
}

size_t mnt_dir_name(struct mnt_state *st, uint32_t dir, char *buf, int count)
{
	return fitted(st, buf, plan_dir_name(st->pl, dir, buf), count);
}

size_t mnt_file_name(struct mnt_state *st, uint64_t file, char *buf, int count)
{
	return fitted(st, buf, plan_file_name(st->pl, file, buf), count);
}

size_t mnt_link_name(struct mnt_state *st, uint32_t link, char *buf, int count)
{
	return fitted(st, buf, plan_link_name(st->pl, link, buf), count);
}

/*
 * A symbolic link's target (len bytes in buf, NUL-ended) with each
 * component shortened as the entry it names was, so that it still leads
 * there.  Returns the new length (never longer).
 */
int mnt_fit_target(struct mnt_state *st, char *buf, int len)
{
	char comp[NAME_MAX_LEN + 1];
	int in = 0, out = 0, renamed;

	if (!st->name_limit)
		return len;
	while (in < len) {
		int n = (int)strcspn(buf + in, "/");
		size_t m = (size_t)n;

		if (n > 0 && n <= NAME_MAX_LEN) {
			memcpy(comp, buf + in, (size_t)n);
			comp[n] = '\0';
			m = fit_name(st, comp, (size_t)n, &renamed);
			memcpy(buf + out, comp, m);
		} else {
			memmove(buf + out, buf + in, m);
		}
		out += (int)m;
		in += n;
		if (in < len)
			buf[out++] = buf[in++]; /* the '/' */
	}
	buf[out] = '\0';
	return out;
}

/* Path of directory dir beneath DIR as written: "" for DIR, else "a/b"; length or -ENAMETOOLONG. */
int mnt_dir_path(struct mnt_state *st, uint32_t dir, char *buf, size_t len)
{
	char name[NAME_MAX_LEN + 1];
	size_t at = len - 1, n;
	int l;

	if (!st->name_limit) {
		l = plan_dir_path(st->pl, dir, buf, len);
		if (l < 0)
			return l;
		memmove(buf, buf + 1, (size_t)l); /* "/a/b" without its '/', and the NUL */
		return l - 1;
	}
	buf[at] = '\0';
	for (uint32_t d = dir; d != 0; d = st->pl->dir_parent[d]) {
		n = mnt_dir_name(st, d, name, 0);
		if (n + (d != dir) > at)
			return -ENAMETOOLONG;
		if (d != dir)
			buf[--at] = '/';
		at -= n;
		memcpy(buf + at, name, n);
	}
	memmove(buf, buf + at, len - at);
	return (int)(len - 1 - at);
}
