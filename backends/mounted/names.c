/* names.c - the names the mounted backend writes: the plan's, shortened or renamed where the file system will not take them (--allow-drop) */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
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

/* The code point at s (len bytes left) into *cp; returns its length in bytes (1 when not UTF-8). */
size_t mnt_utf8_next(const char *s, size_t len, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = u[0] < 0x80 ? 1 : u[0] >= 0xF0 ? 4 : u[0] >= 0xE0 ? 3 : u[0] >= 0xC0 ? 2 : 1;
	uint32_t c = n == 1 ? u[0] : u[0] & (0x7F >> n);

	if (n > len)
		n = 1, c = u[0];
	for (size_t i = 1; i < n; i++) {
		if ((u[i] & 0xC0) != 0x80) {
			*cp = u[0];
			return 1;
		}
		c = c << 6 | (u[i] & 0x3F);
	}
	*cp = c;
	return n;
}

size_t mnt_utf8_put(char *out, uint32_t c)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xC0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3F));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xE0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3F));
		out[2] = (char)(0x80 | (c & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3F));
	out[2] = (char)(0x80 | (c >> 6 & 0x3F));
	out[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

int mnt_cp_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether code point c is one the file system refuses or alters. */
static int bad_cp(const struct mnt_caps *c, uint32_t cp)
{
	return c->nbad && bsearch(&cp, c->bad, c->nbad, sizeof(*c->bad), mnt_cp_cmp);
}

int mnt_name_is_bad(const struct mnt_state *st, const char *name, size_t len)
{
	const struct mnt_caps *c = &st->caps;
	uint32_t cp;

	if (!c->nbad && !c->bad_trail)
		return 0;
	if (len && c->bad_trail && (name[len - 1] == '.' || name[len - 1] == ' '))
		return 1;
	for (size_t i = 0; i < len;) {
		i += mnt_utf8_next(name + i, len - i, &cp);
		if (bad_cp(c, cp))
			return 1;
	}
	return 0;
}

size_t mnt_name_clean(const struct mnt_state *st, char *name, size_t len)
{
	size_t in = 0, out = 0;
	uint32_t cp;

	while (in < len) {
		size_t n = mnt_utf8_next(name + in, len - in, &cp);

		if (bad_cp(&st->caps, cp)) {
			name[out++] = '_';
		} else {
			memmove(name + out, name + in, n);
			out += n;
		}
		in += n;
	}
	while (st->caps.bad_trail && out && (name[out - 1] == '.' || name[out - 1] == ' '))
		name[out - 1] = '_';
	name[out] = '\0';
	return out;
}

/* Whether any name is written other than the plan has it (--allow-drop). */
int mnt_renaming(const struct mnt_state *st)
{
	return st->name_limit > 0 || st->rename_bad || st->case_dir || st->case_file || st->case_link;
}

/*
 * The name written for name (len bytes): the plan's, unless it is longer
 * than st->name_limit, holds characters the file system refuses (with
 * st->rename_bad) or force is set (a case twin).  Then: the start of the
 * name (refused characters made '_'), cut at a character boundary to fit,
 * "~", 8 hex digits of the whole plan name's hash, and its extension when
 * it fits.  The same name always gives the same result.  Returns the new
 * length; *renamed set when it changed.
 */
static size_t fit_name(const struct mnt_state *st, char *name, size_t len, int force,
		       int *renamed)
{
	char ext[EXT_MAX + 1] = "", tail[EXT_MAX + 16];
	long lim = st->name_limit > 0 ? st->name_limit : NAME_MAX_LEN;
	size_t keep, elen = 0;
	const char *dot;
	uint32_t h;

	*renamed = 0;
	if (st->rename_bad && mnt_name_is_bad(st, name, len))
		force = 1;
	if (!force && len <= (size_t)lim)
		return len;
	h = fnv1a(name, len);
	if (st->rename_bad)
		len = mnt_name_clean(st, name, len);
	dot = strrchr(name, '.');
	if (dot && dot != name && strlen(dot) <= EXT_MAX && (long)strlen(dot) + 10 < lim) {
		elen = strlen(dot);
		memcpy(ext, dot, elen + 1);
	}
	keep = len - elen < (size_t)lim - 9 - elen ? len - elen : (size_t)lim - 9 - elen;
	/* never split a UTF-8 sequence */
	while (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80)
		keep--;
	snprintf(tail, sizeof(tail), "~%08x%s", (unsigned)h, ext);
	memcpy(name + keep, tail, strlen(tail) + 1);
	*renamed = 1;
	return keep + strlen(tail);
}

/* count: add a renamed name to st->renamed (when the entry is made). */
static size_t fitted(struct mnt_state *st, char *buf, size_t len, int count, int force)
{
	int renamed;

	if (!mnt_renaming(st))
		return len;
	len = fit_name(st, buf, len, force, &renamed);
	if (renamed && count)
		__atomic_add_fetch(&st->renamed, 1, __ATOMIC_RELAXED);
	return len;
}

size_t mnt_dir_name(struct mnt_state *st, uint32_t dir, char *buf, int count)
{
	return fitted(st, buf, plan_dir_name(st->pl, dir, buf), count,
		      st->case_dir && st->case_dir[dir]);
}

size_t mnt_file_name(struct mnt_state *st, uint64_t file, char *buf, int count)
{
	return fitted(st, buf, plan_file_name(st->pl, file, buf), count,
		      st->case_file && st->case_file[file]);
}

size_t mnt_link_name(struct mnt_state *st, uint32_t link, char *buf, int count)
{
	return fitted(st, buf, plan_link_name(st->pl, link, buf), count,
		      st->case_link && st->case_link[link]);
}

/*
 * A symbolic link's target (len bytes in buf, NUL-ended, buf PATH_MAX
 * bytes) with each component shortened or renamed as the entry it names
 * was, so that it still leads there.  Returns the new length, or
 * -ENAMETOOLONG when it no longer fits.
 */
int mnt_fit_target(struct mnt_state *st, char *buf, int len)
{
	char comp[NAME_MAX_LEN + 1], *out;
	int in = 0, o = 0, renamed;

	if (!mnt_renaming(st))
		return len;
	out = malloc(PATH_MAX);
	if (!out)
		return -ENOMEM;
	while (in < len) {
		int n = (int)strcspn(buf + in, "/");
		size_t m = (size_t)n;

		const char *from = buf + in;

		if (n > 0 && n <= NAME_MAX_LEN) {
			memcpy(comp, buf + in, (size_t)n);
			comp[n] = '\0';
			m = fit_name(st, comp, (size_t)n, 0, &renamed);
			from = comp;
		}
		if (o + (int)m + 2 > PATH_MAX) {
			free(out);
			return -ENAMETOOLONG;
		}
		memcpy(out + o, from, m);
		o += (int)m;
		in += n;
		if (in < len)
			out[o++] = buf[in++]; /* the '/' */
	}
	memcpy(buf, out, (size_t)o);
	buf[o] = '\0';
	free(out);
	return o;
}

/* Path of directory dir beneath DIR as written: "" for DIR, else "a/b"; length or -ENAMETOOLONG. */
int mnt_dir_path(struct mnt_state *st, uint32_t dir, char *buf, size_t len)
{
	char name[NAME_MAX_LEN + 1];
	size_t at = len - 1, n;
	int l;

	if (!mnt_renaming(st)) {
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
