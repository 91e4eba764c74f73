/* fsread_util.c - the helpers fsread's readers share: extent runs, directory levels, entries */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/evolve_mark.h"
#include "read/fsread_ops.h"

/* The extents of a file that has none (entries' extents are never NULL when known). */
const struct fsread_extent fsread_no_extents[1];

/* Append a run, merging it into the last one when it continues it. */
int fsread_add_run(struct fsread *fs, uint64_t logical, uint64_t physical, uint64_t len,
		   uint32_t flags)
{
	struct fsread_extent *l = fs->next ? &fs->ext[fs->next - 1] : NULL;

	if (!len)
		return 0;
	if (l && l->flags == flags && l->logical + l->len == logical &&
	    l->physical + l->len == physical) {
		l->len += len;
		return 0;
	}
	if (array_grow(&fs->ext, &fs->ext_cap, fs->next + 1, sizeof(*fs->ext)))
		return -ENOMEM;
	fs->ext[fs->next++] = (struct fsread_extent){ logical, physical, len, flags };
	return 0;
}

static int cmp_ext_logical(const void *a, const void *b)
{
	const struct fsread_extent *x = a, *y = b;

	return (x->logical > y->logical) - (x->logical < y->logical);
}

/* Sort by logical block and merge again (FIEMAP and block maps come in order; this is cheap). */
void fsread_normalize_runs(struct fsread *fs)
{
	size_t w = 0;

	for (size_t i = 1; i < fs->next; i++) {
		if (fs->ext[i].logical < fs->ext[i - 1].logical) {
			qsort(fs->ext, fs->next, sizeof(*fs->ext), cmp_ext_logical);
			break;
		}
	}
	for (size_t i = 0; i < fs->next; i++) {
		struct fsread_extent *l = w ? &fs->ext[w - 1] : NULL, *e = &fs->ext[i];

		if (l && l->flags == e->flags && l->logical + l->len == e->logical &&
		    l->physical + l->len == e->physical)
			l->len += e->len;
		else
			fs->ext[w++] = *e;
	}
	fs->next = w;
}

int fsread_level_add(struct fsr_level *lv, uint64_t ino, const char *name, size_t len)
{
	if (array_grow(&lv->d, &lv->cap, lv->n + 1, sizeof(*lv->d)) ||
	    array_grow(&lv->names, &lv->ncap, lv->nlen + len + 1, 1))
		return -ENOMEM;
	memcpy(lv->names + lv->nlen, name, len);
	lv->names[lv->nlen + len] = '\0';
	lv->d[lv->n++] = (struct fsr_dent){ ino, lv->nlen, (uint32_t)len };
	lv->nlen += len + 1;
	return 0;
}

static int cmp_dent(const void *a, const void *b, void *ctx)
{
	const struct fsr_dent *x = a, *y = b;
	const char *names = ctx;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(names + x->name_off, names + y->name_off, n);

	if (c)
		return c;
	return (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

void fsread_level_sort(struct fsr_level *lv)
{
	if (lv->n > 1)
		qsort_r(lv->d, lv->n, sizeof(*lv->d), cmp_dent, lv->names);
}

/* What an entry holds before its inode is read: no target, no extents, a first name. */
void fsread_entry_reset(struct fsread_entry *e)
{
	e->symlink_target = NULL;
	e->symlink_len = 0;
	e->extents = NULL;
	e->nextents = 0;
	e->unplaced = NULL;
	e->nunplaced = 0;
	e->map_blocks = NULL;
	e->nmap_blocks = 0;
	e->blocks = 0;
	e->extents_unknown = 0;
	e->inline_data = 0;
	e->first_name = 1;
}

uint64_t fsread_vanished(const struct fsread *fs)
{
	return fs->vanished;
}

int fsread_skipped_note(const struct fsread *fs, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (fs->unreadable)
		n = snprintf(buf, len, "%" PRIu64 " directories or files could not be read (permission, or /proc and /sys files that do not hold what they list)",
			     fs->unreadable);
	if (fs->vanished && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, "%s%" PRIu64 " vanished or changed while read (a live tree)",
			 n ? ", " : "", fs->vanished);
	return buf[0] != '\0';
}

int fsread_gone(int err)
{
	return err == -ENOENT || err == -ESTALE || err == -ENOTDIR || err == -ESRCH;
}

void fsread_skipped(struct fsread *fs, int err)
{
	if (fsread_gone(err))
		fs->vanished++;
	else
		fs->unreadable++;
}

int fsread_refuse_marked(int fd, uint64_t base, const char *target, struct fsread_error *err)
{
	char msg[sizeof(err->msg)];
	int ret = evolve_mark_refuse(fd, base, target, msg, sizeof(msg));

	if (ret)
		fsread_set_err(err, "%s", msg);
	return ret;
}
