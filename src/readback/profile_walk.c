/* profile_walk.c - the profile walk: measure's tallies, then names, owners, modes, subdirectories and links */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "readback/profile_int.h"
#include "util/array.h"

static uint64_t path_hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	h ^= h >> 29;
	return h ? h : 1;
}

/* Slot of key in t (where it is or would go). */
static uint64_t phash_slot(const struct phash *t, uint64_t key)
{
	uint64_t i = key & (t->nslot - 1);

	while (t->key[i] && t->key[i] != key)
		i = (i + 1) & (t->nslot - 1);
	return i;
}

static int phash_put(struct phash *t, uint64_t key, uint8_t type, uint64_t link)
{
	uint64_t i;

	if ((t->n + 1) * 2 > t->nslot) {
		struct phash g = { .nslot = t->nslot ? t->nslot * 2 : 1 << 16 };

		g.key = calloc(g.nslot, sizeof(*g.key));
		g.type = calloc(g.nslot, sizeof(*g.type));
		g.link = calloc(g.nslot, sizeof(*g.link));
		if (!g.key || !g.type || !g.link) {
			free(g.key);
			free(g.type);
			free(g.link);
			return -ENOMEM;
		}
		for (uint64_t k = 0; k < t->nslot; k++) {
			if (!t->key[k])
				continue;
			i = phash_slot(&g, t->key[k]);
			g.key[i] = t->key[k];
			g.type[i] = t->type[k];
			g.link[i] = t->link[k];
		}
		g.n = t->n;
		free(t->key);
		free(t->type);
		free(t->link);
		*t = g;
	}
	i = phash_slot(t, key);
	if (!t->key[i])
		t->n++;
	t->key[i] = key;
	t->type[i] = type;
	t->link[i] = link;
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
static void tally_name(struct pstate *s, const char *name, size_t len)
{
	int upper = 0, space = 0, high = 0, digits = 1, version = 0;
	const char *dot = memrchr(name, '.', len);
	size_t stem = dot && dot != name ? (size_t)(dot - name) : len;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		upper |= c >= 'A' && c <= 'Z';
		space |= c == ' ';
		high |= c >= 0x80;
		if (i < stem && !isdigit(c))
			digits = 0;
		if (i > 0 && i + 1 < len && c == '.' && isdigit((unsigned char)name[i - 1]) &&
		    isdigit((unsigned char)name[i + 1]))
			version = 1;
	}
	if (len && name[len - 1] == '~')
		version = 1;
	s->names++;
	s->name_len[len < PROFILE_NAME_LEN ? len : PROFILE_NAME_LEN]++;
	s->upper += upper;
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

		if (array_resize(&s->nsub, c, sizeof(*s->nsub)))
			return -ENOMEM;
		memset(s->nsub + s->nsub_cap, 0, (c - s->nsub_cap) * sizeof(*s->nsub));
		s->nsub_cap = c;
	}
	s->nsub[m->ndirs - 1] = 0;
	if (m->ndirs > 1)
		s->nsub[parent]++;
	return 0;
}

int profile_on_entry(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct pstate *s = arg;
	struct mstate *m = &s->m;
	uint64_t skipped = m->skipped, link = 0;
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
	if (e->type == FSREAD_DIR && (ret = tally_dir(s, parent)))
		goto out_err;
	if (s->cst && (ret = content_walk_entry(fs, e, &s->cw))) {
		fprintf(stderr, "imprint: %s\n", s->cerr.msg);
		goto out_err;
	}
	if (e->path[1] == '\0')
		return phash_put(&s->paths, path_hash("/", 1), FSREAD_DIR + 1, 0);
	tally_name(s, e->name, e->name_len);
	if (e->type != FSREAD_FILE || e->first_name)
		tally_owner(s, e);
	if (e->type == FSREAD_SYMLINK && e->symlink_target) {
		s->sym_relative += e->symlink_target[0] != '/';
		link = target_hash(s, e->path, e->symlink_target);
	}
	ret = phash_put(&s->paths, path_hash(e->path, strlen(e->path)), (uint8_t)(e->type + 1),
			link);
	if (!ret)
		return 0;
out_err:
	m->ret = ret;
	return ret;
}

int profile_resolve_links(struct pstate *s)
{
	const struct phash *t = &s->paths;

	for (uint64_t k = 0; k < t->nslot; k++) {
		uint64_t h;
		int hops;

		if (!t->key[k] || t->type[k] != FSREAD_SYMLINK + 1)
			continue;
		h = t->link[k];
		for (hops = 0; hops < 40 && h; hops++) {
			uint64_t i = phash_slot(t, h);

			if (!t->key[i]) {
				h = 0;
				break;
			}
			if (t->type[i] != FSREAD_SYMLINK + 1) {
				s->sym_to_dir += t->type[i] == FSREAD_DIR + 1;
				break;
			}
			h = t->link[i];
		}
		if (!h || hops == 40)
			s->sym_dangling++;
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
	free(s->paths.key);
	free(s->paths.type);
	free(s->paths.link);
}
