/* plan_int.h - inside the planner: the steps of plan_build() and the helpers plan*.c share */
#ifndef IMPRINT_PLAN_PLAN_INT_H
#define IMPRINT_PLAN_PLAN_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/tree.h"
#include "plan/plan.h"
#include "util/rng.h"
#include "util/strutil.h"
#include "util/util.h"

/* Depths a plan tells apart (per-depth tables) */
#define DEPTH_SLOTS 256

/* pin[] of a sample that is the source of duplicates (plan_ext_floors_and_dups()) */
#define DUP_SOURCE (PLAN_NONE - 1)

/*
 * ---- plan_util.c: helpers
 *
 * plan_fail() formats a message into err (when not NULL); plan_xalloc() is
 * calloc() that never asks for 0 elements; plan_cum_search() finds u in a cumulative table.
 * plan_group() sorts the indices 0..n-1 by a small key (key8 or else key16, each < nkeys),
 * keeping index order within a key: start[0..nkeys] bounds the groups in by_key; cur
 * (nkeys entries) is scratch.
 */

#define plan_fail(err, ...) errbuf_set((err) ? (err)->msg : NULL, sizeof((err)->msg), __VA_ARGS__)
void *plan_xalloc(size_t count, size_t size);
size_t plan_cum_search(const double *cum, size_t len, double u);
int plan_cmp_u32_desc(const void *a, const void *b);
void plan_group(const uint8_t *key8, const uint16_t *key16, uint64_t n, size_t nkeys,
		uint64_t *start, uint64_t *cur, uint32_t *by_key);

/*
 * ---- plan_build()'s steps, in the order it calls them; each returns 0 or
 * a negative errno (plan_fail() says why where the user can act on it).
 */

/* plan_files.c: sizes, extensions, duplicates */

int plan_sizes(struct plan *pl, uint64_t *s, struct plan_error *err);
int plan_ext_floors_and_dups(struct plan *pl, uint64_t *s, uint16_t *e, uint32_t *pin);
int plan_exts(struct plan *pl, uint16_t *e);
int plan_size_by_ext(struct plan *pl, uint64_t *s, const uint16_t *e);

/* plan_tree.c: depths, files per directory, special directories, placement, links */

int plan_depths(struct plan *pl, const uint64_t *s, uint8_t *d, const uint32_t *m_d);
int plan_fpd(struct plan *pl, const uint64_t *t_d, const uint32_t *m_d);
int plan_special_dirs(struct plan *pl, struct plan_error *err);
void plan_children(struct plan *pl);
int plan_place(struct plan *pl, const uint64_t *s, const uint16_t *e, const uint8_t *d,
	       uint32_t *pin);
int plan_links(struct plan *pl);

/* plan_special.c: special files (LINK_SPECIAL links) */

uint8_t plan_special_draw_kind(struct rng *r);
size_t plan_special_name(const struct plan *pl, uint32_t link, unsigned variant, char *buf);
/* Nodes of the /dev-like directory (dev_dir = linux); kind of node i (LINK_SPECIAL and type). */
uint32_t plan_dev_nodes(void);
uint8_t plan_dev_node_kind(uint32_t i);

/* plan_xattr.c: each directory's SELinux type, when labels are asked for */

int plan_xattr_prepare(struct plan *pl);

/* plan_acl.c: the default ACL in force in each directory; an entry's ACLs into xa */

int plan_acl_prepare(struct plan *pl);
void plan_acl_add(const struct plan *pl, enum plan_entry kind, uint64_t id, struct plan_xattrs *xa);

/* plan_names.c: names made unique within their directory */

/* plan_unique_names(): the most threads, and the fewest entries a thread is worth (one under twice this) */
#define PLAN_NAMES_MAX_THREADS	 64
#define PLAN_NAMES_THREAD_ENTRIES 4096
/* plan_build_jobs(): the files' names are kept when their estimate (PLAN_NAME_COST a file) fits */
#define PLAN_NAMES_KEEP		 ((uint64_t)64 << 20)
#define PLAN_NAME_COST		 32

/* Every entry's name variant, on up to jobs threads (the same at any count).  0 or -ENOMEM. */
int plan_unique_names(struct plan *pl, unsigned jobs, int keep);

/*
 * A set of names (one directory's): reset it for about `entries` names
 * (0 or -ENOMEM), add a name (1 added, 0 already there, -ENOMEM), free it.
 */
struct plan_name_set {
	uint64_t *hash;       /* 0 = empty slot */
	uint32_t *off;        /* offset of the name in arena */
	uint32_t cap;         /* slots in use for this directory, a power of two */
	uint32_t alloc;       /* slots allocated */
	char *arena;
	size_t arena_len, arena_cap;
};

int plan_name_set_reset(struct plan_name_set *ns, uint64_t entries);
int plan_name_set_add(struct plan_name_set *ns, const char *s, size_t len);
void plan_name_set_free(struct plan_name_set *ns);

#endif
