/* namecheck.c - which characters of the plan's names the mounted file system keeps, and names that differ only in case */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <wctype.h>

#include "backends/mounted/mounted.h"

#define PROBE_CHARS_MAX 1024 /* distinct characters probed at most; beyond, the rest are taken as kept */

/* Characters every file system takes in a name. */
static int plain_char(uint32_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

/* A set of code points (open addressing, 0 free: NUL is never in a name). */
struct cpset {
	uint32_t slot[2 * PROBE_CHARS_MAX];
	unsigned n;
};

static void cpset_add(struct cpset *s, uint32_t c)
{
	size_t m = sizeof(s->slot) / sizeof(s->slot[0]), i = (c * 2654435761u) % m;

	if (s->n >= PROBE_CHARS_MAX)
		return;
	while (s->slot[i] && s->slot[i] != c)
		i = (i + 1) % m;
	if (!s->slot[i]) {
		s->slot[i] = c;
		s->n++;
	}
}

static void cpset_name(struct cpset *s, const char *name, size_t len, int *trail)
{
	uint32_t cp;

	for (size_t i = 0; i < len;) {
		i += mnt_utf8_next(name + i, len - i, &cp);
		if (!plain_char(cp))
			cpset_add(s, cp);
	}
	if (len && (name[len - 1] == '.' || name[len - 1] == ' '))
		*trail = 1;
}

/* Every character of the plan's names beyond [A-Za-z0-9._-]; *trail: a name ends in '.' or ' '. */
static void plan_chars(const struct plan *pl, struct cpset *s, int *trail)
{
	char name[NAME_MAX_LEN + 1];

	for (uint32_t d = 1; d < pl->ndirs; d++)
		cpset_name(s, name, plan_dir_name(pl, d, name), trail);
	for (uint64_t f = 0; f < pl->nfiles; f++)
		cpset_name(s, name, plan_file_name(pl, f, name), trail);
	for (uint32_t l = 0; l < pl->nlinks; l++)
		cpset_name(s, name, plan_link_name(pl, l, name), trail);
}

/* Remove every entry but directories from the private scratch directory dfd. */
static void clear_dir(int dfd)
{
	int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((de = readdir(d)))
		if (de->d_type != DT_DIR)
			unlinkat(dfd, de->d_name, 0);
	closedir(d);
}

/*
 * Whether name can be made in the (empty) scratch directory dfd and
 * reads back unchanged (not folded, normalised or cut); whatever was made
 * is removed.
 */
static int name_kept(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (fd < 0)
		return 0;
	close(fd);
	fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	while (d && (de = readdir(d)))
		found |= !strcmp(de->d_name, name);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
	clear_dir(dfd);
	return found;
}

/*
 * Whether dfd is on a file system known to take every byte but '/' and
 * NUL in a name, as written (ext2/3/4, xfs, btrfs, tmpfs, f2fs): the
 * probe of each character is skipped there, as it costs a pass over
 * every name of the plan.
 */
static int posix_names(int dfd)
{
	static const unsigned long known[] = { 0xEF53, 0x58465342, 0x9123683E, 0x01021994,
					       0xF2F52010 };
	struct statfs sfs;

	if (fstatfs(dfd, &sfs) != 0 || getenv("IMPRINT_MOUNTED_DENY"))
		return 0;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if ((unsigned long)sfs.f_type == known[i])
			return 1;
	return 0;
}

/*
 * Probe, in the scratch directory dfd, each character the plan's names
 * use beyond [A-Za-z0-9._-] (as "n" CHAR "n"), and a name ending in '.'
 * and in ' ' when the plan has one: those the file system refuses, or
 * does not give back as written, go into st->caps.bad (sorted) and
 * st->caps.bad_trail.
 */
void mnt_probe_names(struct mnt_state *st, int dfd)
{
	struct mnt_caps *c = &st->caps;
	struct cpset *s;
	char name[16];
	int trail = 0;

	if (posix_names(dfd))
		return;
	s = calloc(1, sizeof(*s));
	if (!s)
		return; /* nothing is refused for want of memory */
	plan_chars(st->pl, s, &trail);
	for (size_t i = 0; i < sizeof(s->slot) / sizeof(s->slot[0]); i++) {
		size_t n;

		if (!s->slot[i] || c->nbad >= MNT_BAD_MAX)
			continue;
		name[0] = 'n';
		n = 1 + mnt_utf8_put(name + 1, s->slot[i]);
		name[n] = 'n';
		name[n + 1] = '\0';
		if (!name_kept(dfd, name))
			c->bad[c->nbad++] = s->slot[i];
	}
	qsort(c->bad, c->nbad, sizeof(*c->bad), mnt_cp_cmp);
	if (trail)
		c->bad_trail = !name_kept(dfd, "n.") || !name_kept(dfd, "n ");
	free(s);
}

/* A few of the refused characters, quoted, into buf. */
void mnt_bad_list(const struct mnt_state *st, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < st->caps.nbad && i < 8 && at + 12 < len; i++) {
		char ch[5];

		ch[mnt_utf8_put(ch, st->caps.bad[i])] = '\0';
		at += (size_t)snprintf(buf + at, len - at, "%s'%s'", i ? " " : "", ch);
	}
	if (st->caps.nbad > 8 && at + 5 < len)
		snprintf(buf + at, len - at, " ...");
	if (st->caps.bad_trail && at + 24 < len)
		snprintf(buf + strlen(buf), len - strlen(buf), "%sa final '.' or ' '", at ? ", " : "");
}

/* One name as the file system compares them: folded to lower case, code point by code point. */
static size_t fold(char *out, const char *name, size_t len, locale_t loc)
{
	size_t o = 0;
	uint32_t cp;

	for (size_t i = 0; i < len;) {
		i += mnt_utf8_next(name + i, len - i, &cp);
		if (loc)
			cp = (uint32_t)towlower_l((wint_t)cp, loc);
		else if (cp < 0x80 && cp >= 'A' && cp <= 'Z')
			cp += 'a' - 'A';
		o += mnt_utf8_put(out + o, cp);
	}
	out[o] = '\0';
	return o;
}

struct folded {
	uint64_t hash;
	uint32_t dir;
	uint8_t kind; /* PLAN_DIR, PLAN_FILE or PLAN_LINK */
	uint64_t id;
};

static int folded_cmp(const void *a, const void *b)
{
	const struct folded *x = a, *y = b;

	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* The name entry e is written under (count 0: not counted as renamed). */
static size_t entry_name(struct mnt_state *st, const struct folded *e, char *buf)
{
	if (e->kind == PLAN_DIR)
		return mnt_dir_name(st, (uint32_t)e->id, buf, 0);
	if (e->kind == PLAN_FILE)
		return mnt_file_name(st, e->id, buf, 0);
	return mnt_link_name(st, (uint32_t)e->id, buf, 0);
}

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int fill_folded(struct mnt_state *st, struct folded *v, locale_t loc)
{
	const struct plan *pl = st->pl;
	char name[NAME_MAX_LEN + 1], f[4 * NAME_MAX_LEN + 1];
	size_t k = 0;

	for (uint32_t d = 1; d < pl->ndirs; d++)
		v[k++] = (struct folded){ .dir = pl->dir_parent[d], .kind = PLAN_DIR, .id = d };
	for (uint64_t i = 0; i < pl->nfiles; i++)
		v[k++] = (struct folded){ .dir = pl->file_dir[i], .kind = PLAN_FILE, .id = i };
	for (uint32_t l = 0; l < pl->nlinks; l++)
		v[k++] = (struct folded){ .dir = pl->link_dir[l], .kind = PLAN_LINK, .id = l };
	for (size_t i = 0; i < k; i++)
		v[i].hash = hash_bytes(f, fold(f, name, entry_name(st, &v[i], name), loc));
	return 0;
}

/* Whether entries a and b (same directory, same hash) fold to the same name. */
static int same_folded(struct mnt_state *st, const struct folded *a, const struct folded *b,
		       locale_t loc)
{
	char n1[NAME_MAX_LEN + 1], n2[NAME_MAX_LEN + 1], f1[4 * NAME_MAX_LEN + 1], f2[4 * NAME_MAX_LEN + 1];
	size_t l1 = fold(f1, n1, entry_name(st, a, n1), loc), l2 = fold(f2, n2, entry_name(st, b, n2), loc);

	return l1 == l2 && !memcmp(f1, f2, l1);
}

static void mark_twin(struct mnt_state *st, const struct folded *e)
{
	uint8_t *m = e->kind == PLAN_DIR ? st->case_dir : e->kind == PLAN_FILE ? st->case_file : st->case_link;

	m[e->id] = 1;
}

/*
 * Entries of one directory whose names (as written) differ only in case:
 * their count into *n, the first pair into example ("a/Foo and a/foo").
 * With mark (st->case_* allocated), every twin after the first of its
 * name is marked to be renamed.  0 or -ENOMEM.
 */
int mnt_case_twins(struct mnt_state *st, uint64_t *n, char *example, size_t len, int mark)
{
	const struct plan *pl = st->pl;
	size_t total = (size_t)(pl->ndirs - 1) + pl->nfiles + pl->nlinks;
	struct folded *v = malloc((total + 1) * sizeof(*v));
	locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);

	*n = 0;
	example[0] = '\0';
	if (!v) {
		if (loc)
			freelocale(loc);
		return -ENOMEM;
	}
	fill_folded(st, v, loc);
	qsort(v, total, sizeof(*v), folded_cmp);
	for (size_t i = 1; i < total; i++) {
		for (size_t j = i; j-- > 0 && v[j].dir == v[i].dir && v[j].hash == v[i].hash;) {
			char a[NAME_MAX_LEN + 1], b[NAME_MAX_LEN + 1];

			if (!same_folded(st, &v[j], &v[i], loc))
				continue;
			if (!(*n)++) {
				entry_name(st, &v[j], a);
				entry_name(st, &v[i], b);
				snprintf(example, len, "'%s' and '%s'", a, b);
			}
			if (mark)
				mark_twin(st, &v[i]);
			break;
		}
	}
	free(v);
	if (loc)
		freelocale(loc);
	return 0;
}
