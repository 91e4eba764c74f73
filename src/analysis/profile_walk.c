/* profile_walk.c - the profile walk: measure's tallies, then names, owners, modes, subdirectories and links */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/profile_int.h"
#include "util/array.h"

static uint64_t path_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	h ^= h >> 29;
	return h & ~UINT64_C(3) ? h : 4;
}

static int phash_put(struct phash *t, uint64_t key, enum fsread_type type, uint64_t link)
{
	if (array_grow(&t->key, &t->cap, t->n + 1, sizeof(*t->key)))
		return -ENOMEM;
	t->key[t->n++] = (key & ~UINT64_C(3)) | (uint64_t)type;
	if (type != FSREAD_SYMLINK)
		return 0;
	if (array_grow(&t->link, &t->link_cap, t->nlink + 1, sizeof(*t->link)))
		return -ENOMEM;
	t->link[t->nlink][0] = key & ~UINT64_C(3);
	t->link[t->nlink++][1] = link & ~UINT64_C(3);
	return 0;
}

/*
 * The hash of where a symbolic link at path points, resolved lexically
 * ("." and ".." against the link's directory; an absolute target from the
 * source's root).  0 when it cannot be told (too long).
 */
static uint64_t target_hash(const struct pstate *s, const char *path, const char *target)
{
	char buf[2 * PATH_MAX + 2];
	size_t len = 0, tl = strlen(target);
	const char *slash, *t = target;

	if (target[0] == '/') {
		if (s->strip_len && !strncmp(target, s->strip, s->strip_len) &&
		    (target[s->strip_len] == '/' || !target[s->strip_len]))
			t += s->strip_len;
	} else {
		slash = strrchr(path, '/');
		len = (size_t)(slash - path);
		if (len >= PATH_MAX)
			return 0;
		memcpy(buf, path, len);
	}
	if (tl >= PATH_MAX)
		return 0;
	while (*t) {
		const char *end = strchr(t, '/');
		size_t cl = end ? (size_t)(end - t) : strlen(t);

		if (cl == 0 || (cl == 1 && t[0] == '.')) {
			/* nothing */
		} else if (cl == 2 && t[0] == '.' && t[1] == '.') {
			while (len > 0 && buf[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
		} else {
			buf[len++] = '/';
			memcpy(buf + len, t, cl);
			len += cl;
		}
		t += cl + (end ? 1 : 0);
	}
	if (len == 0)
		buf[len++] = '/';
	return path_hash(buf, len);
}

/* What an entry's name says: length, case, spaces, bytes beyond ASCII, digits, versions. */
static void tally_name(struct pstate *s, const char *name, size_t len, int dir)
{
	int upper = 0, space = 0, high = 0, digits = 1, version = 0, scap = 0, slow = 0;
	const char *dot = memrchr(name, '.', len);
	size_t stem = dot && dot != name ? (size_t)(dot - name) : len;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		upper |= c >= 'A' && c <= 'Z';
		space |= c == ' ';
		high |= c >= 0x80;
		if (i < stem && !isdigit(c))
			digits = 0;
		scap |= i < stem && c >= 'A' && c <= 'Z';
		slow |= i < stem && c >= 'a' && c <= 'z';
		if (i > 0 && i + 1 < len && c == '.' && isdigit((unsigned char)name[i - 1]) &&
		    isdigit((unsigned char)name[i + 1]))
			version = 1;
	}
	if (len && name[len - 1] == '~')
		version = 1;
	s->names++;
	s->name_len[len < PROFILE_NAME_LEN ? len : PROFILE_NAME_LEN]++;
	if (!dir && stem < len)
		s->name_len_ext[len < PROFILE_NAME_LEN ? len : PROFILE_NAME_LEN]++;
	if (dir)
		s->name_len_dir[len < PROFILE_NAME_LEN ? len : PROFILE_NAME_LEN]++;
	s->upper += upper;
	s->caps += scap && !slow;
	s->spaces += space;
	s->utf8 += high;
	s->numeric += digits && stem > 0;
	s->versioned += version;
}

static void tally_owner(struct pstate *s, const struct fsread_entry *e)
{
	uint32_t perm = e->mode & 07777;

	s->entries++;
	if (e->uid == 0) {
		s->root_owned++;
	} else {
		uint32_t i;

		for (i = 0; i < s->nuid && s->uid[i] != e->uid; i++)
			;
		if (i == s->nuid && s->nuid < PROFILE_UIDS) {
			s->uid[s->nuid] = e->uid;
			s->uid_files[s->nuid++] = 0;
		} else if (i == s->nuid) {
			s->uid_overflow = 1;
		}
		if (i < s->nuid)
			s->uid_files[i]++;
	}
	/* the model's private modes: 0700 directories, 0600 and 0700 files */
	if (e->type == FSREAD_DIR) {
		s->mode_dir[perm]++;
		s->moded++;
		s->private_mode += (perm & 0777) == 0700;
	} else if (e->type == FSREAD_FILE) {
		s->mode_file[perm]++;
		s->moded++;
		s->private_mode += (perm & 0777) == 0600 || (perm & 0777) == 0700;
	}
}

static int tally_dir(struct pstate *s, uint32_t parent)
{
	struct mstate *m = &s->m;

	if (m->ndirs > s->nsub_cap) {
		uint32_t c = m->dcap;

		if (array_resize(&s->nsub, c, sizeof(*s->nsub)) ||
		    array_resize(&s->dparent, c, sizeof(*s->dparent)))
			return -ENOMEM;
		memset(s->nsub + s->nsub_cap, 0, (c - s->nsub_cap) * sizeof(*s->nsub));
		s->nsub_cap = c;
	}
	s->nsub[m->ndirs - 1] = 0;
	s->dparent[m->ndirs - 1] = parent;
	if (m->ndirs > 1)
		s->nsub[parent]++;
	return 0;
}

int profile_on_entry(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct pstate *s = arg;
	struct mstate *m = &s->m;
	uint64_t skipped = m->skipped, link = 0, nfiles = m->nfiles, sparse = m->sparse_files;
	uint32_t parent = e->depth < m->stack_cap && m->ndirs ? m->stack[e->depth] : 0;
	int ret;

	ret = measure_on_entry(fs, e, m);
	if (ret)
		return ret;
	if (s->o->progress && (++s->seen & 0xffff) == 0)
		fprintf(stderr, "\rimprint: profiling: %llu files, %u directories",
			(unsigned long long)m->nfiles, m->ndirs);
	if (m->skipped != skipped)
		return 0;
	if ((ret = profile_meta_entry(s, e, nfiles, sparse)))
		goto out_err;
	if (e->type == FSREAD_DIR && (ret = tally_dir(s, parent)))
		goto out_err;
	if (s->cst && (ret = content_walk_entry(fs, e, &s->cw))) {
		fprintf(stderr, "imprint: %s\n", s->cerr.msg);
		goto out_err;
	}
	if (e->path[1] == '\0')
		return phash_put(&s->paths, path_hash("/", 1), FSREAD_DIR, 0);
	tally_name(s, e->name, e->name_len, e->type == FSREAD_DIR);
	if (e->type != FSREAD_FILE || e->first_name)
		tally_owner(s, e);
	if (e->type == FSREAD_SYMLINK && e->symlink_target) {
		s->sym_relative += e->symlink_target[0] != '/';
		link = target_hash(s, e->path, e->symlink_target);
	}
	ret = phash_put(&s->paths, path_hash(e->path, strlen(e->path)), e->type, link);
	if (!ret)
		return 0;
out_err:
	m->ret = ret;
	return ret;
}

static int cmp_key(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a & ~UINT64_C(3), y = *(const uint64_t *)b & ~UINT64_C(3);

	return (x > y) - (x < y);
}

/* The entry of hash h in the sorted keys: its type + 1, 0 when there is none. */
static int key_type(const struct phash *t, uint64_t h)
{
	uint64_t *k = h ? bsearch(&h, t->key, t->n, sizeof(*t->key), cmp_key) : NULL;

	return k ? (int)(*k & 3) + 1 : 0;
}

/* The target of the link of hash h (links sorted by their hash), 0 when unknown. */
static uint64_t link_target(const struct phash *t, uint64_t h)
{
	uint64_t (*l)[2] = bsearch(&h, t->link, t->nlink, sizeof(*t->link), cmp_key);

	return l ? (*l)[1] : 0;
}

int profile_resolve_links(struct pstate *s)
{
	struct phash *t = &s->paths;

	if (!t->nlink)
		return 0;
	/* by the whole key: the hashes ascending, as cmp_key() has them */
	if (array_sort_u64(t->key, t->n))
		return -ENOMEM;
	qsort(t->link, t->nlink, sizeof(*t->link), cmp_key);
	for (uint64_t k = 0; k < t->nlink; k++) {
		uint64_t h = t->link[k][1];
		int hops, type = 0;

		/* follow links to links, a chain too long being dangling as the kernel has it */
		for (hops = 0; hops < 40 && h; hops++) {
			type = key_type(t, h);
			if (type != FSREAD_SYMLINK + 1)
				break;
			h = link_target(t, h);
		}
		if (!h || !type || hops == 40)
			s->sym_dangling++;
		else
			s->sym_to_dir += type == FSREAD_DIR + 1;
	}
	return 0;
}

void profile_pstate_release(struct pstate *s)
{
	measure_mstate_release(&s->m);
	if (s->cst)
		content_stats_release(s->cst);
	free(s->cst);
	content_walk_release(&s->cw);
	free(s->nsub);
	free(s->dparent);
	free(s->special);
	free(s->atime);
	free(s->paths.key);
	free(s->paths.link);
}
