/* plan_names.c - names of a plan's entries: unique variants, paths and symbolic link targets */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "plan/generation.h"
#include "plan/plan_int.h"
#include "util/array.h"

static uint64_t name_hash(const char *s, size_t len)
{
	uint64_t h = UINT64_C(0xCBF29CE484222325);

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(0x100000001B3);
	}
	h = rng_mix64(h);
	return h ? h : 1;
}

/* Size the set for one directory; clears only the slots it will use. */
int plan_name_set_reset(struct plan_name_set *ns, uint64_t entries)
{
	uint64_t want = 16;

	while (want < entries * 2)
		want <<= 1;
	if (want > ns->alloc) {
		free(ns->hash);
		free(ns->off);
		ns->hash = malloc(want * sizeof(*ns->hash));
		ns->off = malloc(want * sizeof(*ns->off));
		if (!ns->hash || !ns->off)
			return -ENOMEM;
		ns->alloc = (uint32_t)want;
	}
	ns->cap = (uint32_t)want;
	memset(ns->hash, 0, want * sizeof(*ns->hash));
	ns->arena_len = 0;
	return 0;
}

/* Insert name; returns 1 if inserted, 0 if already present, -ENOMEM. */
int plan_name_set_add(struct plan_name_set *ns, const char *s, size_t len)
{
	uint64_t h = name_hash(s, len);
	uint32_t mask = ns->cap - 1, i = (uint32_t)h & mask;

	while (ns->hash[i]) {
		if (ns->hash[i] == h) {
			const char *o = ns->arena + ns->off[i];

			if (strlen(o) == len && memcmp(o, s, len) == 0)
				return 0;
		}
		i = (i + 1) & mask;
	}
	if (array_grow(&ns->arena, &ns->arena_cap, ns->arena_len + len + 1, 1))
		return -ENOMEM;
	memcpy(ns->arena + ns->arena_len, s, len + 1);
	ns->hash[i] = h;
	ns->off[i] = (uint32_t)ns->arena_len;
	ns->arena_len += len + 1;
	return 1;
}

static const char *link_ext(const struct plan *pl, uint32_t l)
{
	if (pl->link_kind[l] & (LINK_HARD | LINK_SYM_FILE))
		return plan_file_ext(pl, pl->link_target[l]);
	return "";
}

/* The name of link l under variant v: a special file's from plan_special_name(). */
static size_t link_name_v(const struct plan *pl, uint32_t l, unsigned v, char *buf)
{
	if (pl->link_kind[l] & LINK_SPECIAL)
		return plan_special_name(pl, l, v, buf);
	return name_make(buf, &pl->names, NAME_LINK, l, link_ext(pl, l), v);
}

/* The name of directory d under variant v: the /dev-like directory's is "dev". */
static size_t dir_name_v(const struct plan *pl, uint32_t d, unsigned v, char *buf)
{
	if (d && d == pl->dev_dir)
		return (size_t)(v ? snprintf(buf, NAME_MAX_LEN + 1, "dev_%u", v) :
				    snprintf(buf, NAME_MAX_LEN + 1, "dev"));
	return name_make(buf, &pl->names, NAME_DIR, pl->gen ? pl->gen->dir_name_id[d] : d, "", v);
}

static unsigned next_variant(unsigned v)
{
	return v < NAME_VARIANT_REDRAWS ? v + 1 : NAME_VARIANT_UNIQUE;
}

/*
 * The first variant of entry (kind, id, ext) whose name ns does not hold
 * yet, added to ns; returns it, or -ENOMEM.  buf: NAME_MAX_LEN + 1 bytes.
 */
static int add_unique(struct plan_name_set *ns, const struct plan *pl, enum name_kind kind,
		      uint64_t id, const char *ext, char *buf)
{
	for (unsigned v = 0;; v = next_variant(v)) {
		size_t len = kind == NAME_LINK ? link_name_v(pl, (uint32_t)id, v, buf) :
			     kind == NAME_DIR  ? dir_name_v(pl, (uint32_t)id, v, buf) :
						 name_make(buf, &pl->names, kind, id, ext, v);
		int ret = plan_name_set_add(ns, buf, len);

		if (ret)
			return ret < 0 ? ret : (int)v;
	}
}

void plan_name_set_free(struct plan_name_set *ns)
{
	FREE_ALL(ns->hash, ns->off, ns->arena);
	memset(ns, 0, sizeof(*ns));
}

/*
 * The names a share of plan_unique_names() keeps: its files' names one
 * after another, each at file_name_at[f] from the arena's start, up to
 * most bytes (past them it keeps none: on is cleared).
 */
struct names_kept {
	char *arena;
	size_t len, cap, most;
	uint64_t files;
	int on;
};

static void keep_name(struct plan *pl, struct names_kept *k, uint64_t f, const char *name)
{
	size_t l = strlen(name) + 1;

	if (!k->on)
		return;
	if (k->len + l > k->most || array_grow(&k->arena, &k->cap, k->len + l, 1)) {
		k->on = 0; /* too many bytes, or no memory: names are made again */
		return;
	}
	memcpy(k->arena + k->len, name, l);
	pl->file_name_at[f] = (uint32_t)k->len;
	k->len += l;
	k->files++;
}

/* Each name variant of directories from..to-1's entries, so that names are unique in each. */
static int unique_names_range(struct plan *pl, uint32_t from, uint32_t to, struct names_kept *k)
{
	struct plan_name_set ns = { 0 };
	char buf[NAME_MAX_LEN + 1];
	int ret = 0;

	for (uint32_t j = from; j < to; j++) {
		uint64_t entries = (uint64_t)pl->dir_nfiles[j] + pl->dir_nlinks[j] + 1 +
				   (j == 0 ? pl->prm.nreserved : 0);

		for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE; c = pl->dir_next_sibling[c])
			entries++;
		ret = plan_name_set_reset(&ns, entries);
		if (ret)
			goto out_free;
		if (j == 0 && plan_name_set_add(&ns, "lost+found", 10) < 0) {
			ret = -ENOMEM;
			goto out_free;
		}
		/* the names --include takes in the root */
		for (size_t r = 0; j == 0 && r < pl->prm.nreserved; r++)
			if (plan_name_set_add(&ns, pl->prm.reserved_names[r],
					 strlen(pl->prm.reserved_names[r])) < 0) {
				ret = -ENOMEM;
				goto out_free;
			}
		for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE;
		     c = pl->dir_next_sibling[c]) {
			ret = add_unique(&ns, pl, NAME_DIR, c, "", buf);
			if (ret < 0)
				goto out_free;
			pl->dir_variant[c] = (uint8_t)ret;
		}
		for (uint64_t f = pl->dir_first_file[j];
		     f < (uint64_t)pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
			ret = add_unique(&ns, pl, NAME_FILE, f, plan_file_ext(pl, f), buf);
			if (ret < 0)
				goto out_free;
			pl->file_variant[f] = (uint8_t)ret;
			keep_name(pl, k, f, buf);
		}
		for (uint32_t l = pl->dir_first_link[j];
		     l < pl->dir_first_link[j] + pl->dir_nlinks[j]; l++) {
			ret = add_unique(&ns, pl, NAME_LINK, l, link_ext(pl, l), buf);
			if (ret < 0)
				goto out_free;
			pl->link_variant[l] = (uint8_t)ret;
		}
	}
	ret = 0;
out_free:
	free(ns.hash);
	free(ns.off);
	free(ns.arena);
	return ret;
}

/* A thread's share of plan_unique_names(): directories from..to-1. */
struct names_share {
	struct plan *pl;
	uint32_t from, to;
	struct names_kept kept;
	int ret;
	pthread_t tid;
	int started;
};

static void *unique_names_thread(void *arg)
{
	struct names_share *sh = arg;

	sh->ret = unique_names_range(sh->pl, sh->from, sh->to, &sh->kept);
	return NULL;
}

/*
 * The shares' kept names in one block, in share order, each file's place
 * moved by its share's start; none (file_names NULL) unless every share
 * kept every name.
 */
static void names_join(struct plan *pl, struct names_share *sh, unsigned n)
{
	uint64_t files = 0;
	size_t total = 0, at = 0;
	int all = 1;

	for (unsigned k = 0; k < n; k++) {
		files += sh[k].kept.files;
		total += sh[k].kept.len;
		all = all && sh[k].kept.on;
	}
	if (all && files == pl->nfiles && total <= UINT32_MAX)
		pl->file_names = malloc(total ? total : 1);
	for (unsigned k = 0; pl->file_names && k < n; k++) {
		memcpy(pl->file_names + at, sh[k].kept.arena, sh[k].kept.len);
		for (uint32_t j = sh[k].from; j < sh[k].to; j++)
			for (uint64_t f = pl->dir_first_file[j];
			     f < (uint64_t)pl->dir_first_file[j] + pl->dir_nfiles[j]; f++)
				pl->file_name_at[f] += (uint32_t)at;
		at += sh[k].kept.len;
	}
	if (!pl->file_names) {
		free(pl->file_name_at);
		pl->file_name_at = NULL;
	}
	for (unsigned k = 0; k < n; k++)
		free(sh[k].kept.arena);
}

/*
 * A directory's variants depend on its own entries' names alone: the
 * directories go to the threads in consecutive ranges of about as many
 * entries each, and every thread writes the variants of its own
 * directories' entries only.
 */
int plan_unique_names(struct plan *pl, unsigned jobs, int keep)
{
	struct names_share sh[PLAN_NAMES_MAX_THREADS];
	uint64_t total = pl->nfiles + pl->nlinks + pl->ndirs, seen = 0;
	unsigned n = jobs < 1 ? 1 : jobs > PLAN_NAMES_MAX_THREADS ? PLAN_NAMES_MAX_THREADS : jobs;
	uint32_t j = 0;
	int ret = 0;

	if (total < PLAN_NAMES_THREAD_ENTRIES * 2)
		n = 1;
	if (keep && pl->nfiles) {
		pl->file_name_at = malloc(pl->nfiles * sizeof(*pl->file_name_at));
		keep = pl->file_name_at != NULL;
	}
	for (unsigned k = 0; k < n; k++) {
		memset(&sh[k].kept, 0, sizeof(sh[k].kept));
		sh[k].kept.on = keep;
		sh[k].kept.most = PLAN_NAMES_KEEP / n;
		sh[k].pl = pl;
		sh[k].from = j;
		/* up to k + 1 shares of the entries, the last share to the end */
		while (j < pl->ndirs && (k + 1 == n || seen < total / n * (k + 1))) {
			seen += (uint64_t)pl->dir_nfiles[j] + pl->dir_nlinks[j] + 1;
			j++;
		}
		sh[k].to = j;
		sh[k].ret = 0;
		sh[k].started = 0;
	}
	/* a thread that cannot be started leaves its share to this one */
	for (unsigned k = 1; k < n; k++)
		sh[k].started = !pthread_create(&sh[k].tid, NULL, unique_names_thread, &sh[k]);
	sh[0].ret = unique_names_range(pl, sh[0].from, sh[0].to, &sh[0].kept);
	for (unsigned k = 1; k < n; k++) {
		if (sh[k].started)
			pthread_join(sh[k].tid, NULL);
		else
			sh[k].ret = unique_names_range(pl, sh[k].from, sh[k].to, &sh[k].kept);
	}
	for (unsigned k = 0; k < n && !ret; k++)
		ret = sh[k].ret;
	if (keep)
		names_join(pl, sh, n);
	return ret;
}

size_t plan_dir_name(const struct plan *pl, uint32_t dir, char *buf)
{
	if (dir == 0) {
		buf[0] = '\0';
		return 0;
	}
	return dir_name_v(pl, dir, pl->dir_variant[dir], buf);
}

size_t plan_file_name(const struct plan *pl, uint64_t file, char *buf)
{
	if (pl->file_names) {
		const char *s = pl->file_names + pl->file_name_at[file];
		size_t l = strlen(s);

		memcpy(buf, s, l + 1);
		return l;
	}
	return name_make(buf, &pl->names, NAME_FILE, pl->gen ? pl->gen->file_name_id[file] : file,
			 plan_file_ext(pl, file), pl->file_variant[file]);
}

int plan_names_alike(const struct plan *a, const struct plan *b)
{
	return !memcmp(&a->names, &b->names, sizeof(a->names));
}

/* the draws plan_file_name() makes the name of: as it does */
int plan_file_same_name(const struct plan *a, uint64_t fa, const struct plan *b, uint64_t fb)
{
	uint64_t ia = a->gen ? a->gen->file_name_id[fa] : fa, ib = b->gen ? b->gen->file_name_id[fb] : fb;

	return ia == ib && a->file_variant[fa] == b->file_variant[fb] &&
	       !strcmp(plan_file_ext(a, fa), plan_file_ext(b, fb));
}

size_t plan_link_name(const struct plan *pl, uint32_t link, char *buf)
{
	return link_name_v(pl, link, pl->link_variant[link], buf);
}

/* Append "/" name components of dirs from below `top` (exclusive) down to dir. */
static int append_down(const struct plan *pl, uint32_t top, uint32_t dir, char *buf,
		       size_t len, size_t *at)
{
	uint32_t chain[DEPTH_SLOTS];
	unsigned n = 0;
	char name[NAME_MAX_LEN + 1];

	for (uint32_t c = dir; c != top; c = pl->dir_parent[c])
		chain[n++] = c;
	while (n--) {
		size_t l = plan_dir_name(pl, chain[n], name);

		if (*at + l + 2 > len)
			return -ENAMETOOLONG;
		if (*at && buf[*at - 1] != '/')
			buf[(*at)++] = '/';
		memcpy(buf + *at, name, l);
		*at += l;
	}
	buf[*at] = '\0';
	return 0;
}

int plan_dir_path(const struct plan *pl, uint32_t dir, char *buf, size_t len)
{
	size_t at = 1;

	if (len < 2)
		return -ENAMETOOLONG;
	buf[0] = '/';
	buf[1] = '\0';
	if (append_down(pl, 0, dir, buf, len, &at))
		return -ENAMETOOLONG;
	return (int)at;
}

static int append_str(char *buf, size_t len, size_t *at, const char *s, size_t l)
{
	if (*at + l + 1 > len)
		return -ENAMETOOLONG;
	memcpy(buf + *at, s, l);
	*at += l;
	buf[*at] = '\0';
	return 0;
}

int plan_symlink_target(const struct plan *pl, uint32_t link, char *buf, size_t len)
{
	uint8_t k = pl->link_kind[link];
	uint32_t tdir, from = pl->link_dir[link];
	char name[NAME_MAX_LEN + 1];
	size_t nl = 0, at = 0;
	int ret;

	if (len < 2)
		return -ENAMETOOLONG;
	buf[0] = '\0';
	if (k & LINK_SYM_FILE) {
		uint64_t f = pl->link_target[link];

		tdir = pl->file_dir[f];
		nl = plan_file_name(pl, f, name);
	} else {
		tdir = pl->link_target[link];
	}
	if (k & LINK_DANGLING) {
		/* a name of the link kind with an id no link has: never exists */
		nl = name_make(name, &pl->names, NAME_LINK, (uint64_t)pl->nlinks + link,
			       link_ext(pl, link), NAME_VARIANT_UNIQUE);
	}

	if (!(k & LINK_RELATIVE)) {
		buf[at++] = '/';
		buf[at] = '\0';
		ret = append_down(pl, 0, tdir, buf, len, &at);
	} else {
		/* climb from the link's directory to the common ancestor */
		uint32_t a = from, b = tdir;

		while (pl->dir_depth[a] > pl->dir_depth[b])
			a = pl->dir_parent[a];
		while (pl->dir_depth[b] > pl->dir_depth[a])
			b = pl->dir_parent[b];
		while (a != b) {
			a = pl->dir_parent[a];
			b = pl->dir_parent[b];
		}
		for (unsigned up = pl->dir_depth[from] - pl->dir_depth[a]; up; up--) {
			ret = append_str(buf, len, &at, at ? "/.." : "..", at ? 3 : 2);
			if (ret)
				return ret;
		}
		ret = append_down(pl, a, tdir, buf, len, &at);
	}
	if (ret)
		return ret;
	if (nl) {
		if (at && buf[at - 1] != '/' && append_str(buf, len, &at, "/", 1))
			return -ENAMETOOLONG;
		if (append_str(buf, len, &at, name, nl))
			return -ENAMETOOLONG;
	}
	if (at == 0 && append_str(buf, len, &at, ".", 1))
		return -ENAMETOOLONG;
	return (int)at;
}

/* Owner: root with owner_root_share, else one of owner_users, Zipf-like. */
