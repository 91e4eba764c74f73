/* registry.c - the backends there are: a static array, looked up by name, file system and target */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/registry.h"
#include "model/params.h"
#include "util/util.h"

/* Registry order matters to backend_for(): the first that fits wins. */
static const struct backend_ops *const backends[] = {
	&ext4_backend_ops,
	&mounted_backend_ops,
	&loopfs_backend_ops,
	&null_backend_ops,
};

#define NBACKENDS ARRAY_SIZE(backends)

/* What 'fs' is when nobody sets it: the ext4 backend's own. */
static const char fs_default[] = "ext4";

/* Every file system a backend makes, registry order, each once (backend_supply_fs). */
#define FS_MAX 16
static const char *fs_all[FS_MAX + 1];

const struct backend_ops *backend_find(const char *name)
{
	for (size_t i = 0; name && i < NBACKENDS; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

int backend_makes(const struct backend_ops *ops, const char *fs)
{
	if (!ops->fs_names)
		return 1;
	for (size_t i = 0; fs && ops->fs_names[i]; i++)
		if (strcmp(ops->fs_names[i], fs) == 0)
			return 1;
	return 0;
}

const struct backend_ops *backend_for(const char *fs, unsigned kind)
{
	for (size_t i = 0; i < NBACKENDS; i++)
		if ((backends[i]->targets & kind) && backend_makes(backends[i], fs))
			return backends[i];
	return NULL;
}

/* Whether ops edits what it makes on a TARGET of kind in place. */
static int evolves(const struct backend_ops *ops, unsigned kind)
{
	return (ops->caps & BACKEND_EVOLVES) && (ops->targets & kind);
}

const struct backend_ops *backend_evolver(const char *fs, unsigned kind)
{
	for (size_t i = 0; fs && i < NBACKENDS; i++)
		if (evolves(backends[i], kind) && backend_makes(backends[i], fs))
			return backends[i];
	return NULL;
}

void backend_evolver_fs(unsigned kind, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < NBACKENDS; i++) {
		const char *const *fs = backends[i]->fs_names;

		if (!evolves(backends[i], kind))
			continue;
		for (size_t j = 0; !fs || fs[j]; j++) {
			int n = snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					 fs ? fs[j] : "any");

			if (n < 0 || (size_t)n >= len - at) {
				buf[at] = '\0'; /* whole names only */
				return;
			}
			at += (size_t)n;
			if (!fs)
				break;
		}
	}
}

/* Append name to buf (at *at) after sep; 0, or -ENOSPC (buf as before: whole names only). */
static int fs_word(char *buf, size_t len, size_t *at, const char *sep, const char *name)
{
	int n = snprintf(buf + *at, len - *at, "%s%s", sep, name);

	if (n < 0 || (size_t)n >= len - *at) {
		buf[*at] = '\0';
		return -ENOSPC;
	}
	*at += (size_t)n;
	return 0;
}

/* The letters every one of names[0..n) begins with, and each has more after: its length. */
static size_t fs_shared(const char *const *names, size_t n)
{
	size_t p = 0;

	if (n < 2)
		return 0;
	while (isalpha((unsigned char)names[0][p]))
		p++;
	for (size_t i = 1; i < n; i++) {
		size_t k = 0;

		while (k < p && names[i][k] == names[0][k])
			k++;
		p = k;
	}
	for (size_t i = 0; i < n; i++)
		if (!names[i][p])
			return 0;
	return p;
}

void backend_fs_words(unsigned caps, unsigned options, unsigned kind, int how, char *buf,
		      size_t len)
{
	const char *names[FS_MAX + 1];
	size_t n = 0, at = 0, p;

	if (!len)
		return;
	buf[0] = '\0';
	for (size_t i = 0; i < NBACKENDS; i++) {
		const struct backend_ops *b = backends[i];
		const char *const *fs = b->fs_names;

		if ((b->caps & caps) != caps || (b->options & options) != options ||
		    (kind && !(b->targets & kind)))
			continue;
		for (size_t j = 0; !fs || fs[j]; j++) {
			const char *name = fs ? fs[j] : "any";
			size_t k = 0;

			while (k < n && strcmp(names[k], name))
				k++;
			if (k == n && n < ARRAY_SIZE(names))
				names[n++] = name;
			if (!fs)
				break;
		}
	}
	p = how == '/' ? fs_shared(names, n) : 0;
	for (size_t i = 0; i < n; i++) {
		const char *sep = !i ? "" : how == '/' ? "/" : i + 1 == n ? " or " : ", ";

		if (fs_word(buf, len, &at, sep, i ? names[i] + p : names[i]))
			return;
	}
}

const char *backend_fs_name(const char *type)
{
	for (size_t i = 0; type && i < NBACKENDS; i++) {
		const char *const *a = backends[i]->fs_aliases;

		for (size_t j = 0; a && a[j] && a[j + 1]; j += 2)
			if (!strcmp(a[j], type))
				return a[j + 1];
	}
	return type;
}

const struct backend_ops *backend_with_fs(const char *type, unsigned options)
{
	const char *fs = backend_fs_name(type);

	for (size_t i = 0; fs && i < NBACKENDS; i++) {
		const struct backend_ops *b = backends[i];

		if ((b->options & options) != options || !b->fs_names)
			continue;
		for (size_t j = 0; b->fs_names[j]; j++)
			if (!strcmp(b->fs_names[j], fs))
				return b;
	}
	return NULL;
}

int backend_fs_known(const char *fs)
{
	for (size_t i = 0; fs && i < NBACKENDS; i++)
		for (size_t j = 0; backends[i]->fs_names && backends[i]->fs_names[j]; j++)
			if (!strcmp(backends[i]->fs_names[j], fs))
				return 1;
	return 0;
}

int backend_supply_fs(void)
{
	size_t n = 0;

	for (size_t i = 0; i < NBACKENDS; i++) {
		for (size_t j = 0; backends[i]->fs_names && backends[i]->fs_names[j]; j++) {
			const char *fs = backends[i]->fs_names[j];
			size_t k = 0;

			while (k < n && strcmp(fs_all[k], fs))
				k++;
			if (k < n)
				continue;
			if (n == FS_MAX)
				return -ENOSPC;
			fs_all[n++] = fs;
		}
	}
	fs_all[n] = NULL;
	return params_supply_names("fs", fs_all, fs_default);
}

const char *const *backend_fs_list(void)
{
	return fs_all;
}

int backend_check_params(const struct params *p, char *msg, size_t len)
{
	const char *fs = p->fs;

	for (size_t i = 0; i < NBACKENDS; i++) {
		int ret;

		if (!backends[i]->check || !backends[i]->fs_names || !backend_makes(backends[i], fs))
			continue;
		ret = backends[i]->check(p, msg, len);
		if (ret)
			return ret;
	}
	return 0;
}

/* Append word to buf (at *at), breaking the line before it when it would pass width. */
static void help_word(char *buf, size_t len, size_t *at, size_t *col, unsigned width,
		      const char *word)
{
	size_t w = strlen(word);
	int n;

	if (*col && *col + 1 + w > width) {
		n = snprintf(buf + *at, len - *at, "\n%s", word);
		*col = w;
	} else {
		n = snprintf(buf + *at, len - *at, "%s%s", *col ? " " : "", word);
		*col += w + (*col ? 1 : 0);
	}
	if (n > 0)
		*at = *at + (size_t)n < len ? *at + (size_t)n : len - 1;
}

/* Append text to buf word by word (help_word). */
static void help_text(char *buf, size_t len, size_t *at, size_t *col, unsigned width,
		      const char *text)
{
	char word[128];

	while (*text) {
		size_t w = strcspn(text, " ");

		snprintf(word, sizeof(word), "%.*s", (int)w, text);
		if (w)
			help_word(buf, len, at, col, width, word);
		text += w;
		text += strspn(text, " ");
	}
}

void backend_help(int which, unsigned width, char *buf, size_t len)
{
	size_t at = 0, col = 0, k = 0;
	char part[256];

	buf[0] = '\0';
	for (size_t i = 0; i < NBACKENDS; i++) {
		const struct backend_ops *b = backends[i];

		if (which == 'b') {
			snprintf(part, sizeof(part), "%s (%s)%s", b->name, b->summary ? b->summary : "",
				 i + 1 < NBACKENDS ? "," : "");
			help_text(buf, len, &at, &col, width, part);
			continue;
		}
		if (!b->fs_names || !b->fs_names[0])
			continue;
		for (size_t j = 0; b->fs_names[j]; j++) {
			int last = !b->fs_names[j + 1];

			snprintf(part, sizeof(part), "%s%s%s%s%s%s,", k && !j ? "or " : "",
				 b->fs_names[j],
				 !strcmp(b->fs_names[j], fs_default) ? " (default)" : "",
				 last && b->fs_note ? " (" : "", last && b->fs_note ? b->fs_note : "",
				 last && b->fs_note ? ")" : "");
			help_text(buf, len, &at, &col, width, part);
		}
		k++;
	}
	/* the last comma */
	if (at && buf[at - 1] == ',')
		buf[--at] = '\0';
}

const struct backend_ops *const *backend_list(size_t *n)
{
	*n = NBACKENDS;
	return backends;
}

