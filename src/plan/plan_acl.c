/* plan_acl.c - POSIX ACLs of a plan's entries: drawn ones, and those inherited from default ACLs */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "plan/plan_int.h"

/* The kernel's ACL xattr format (linux/posix_acl_xattr.h), little-endian */
#define ACL_XATTR_VERSION 2
#define ACL_USER_OBJ	  0x01
#define ACL_USER	  0x02
#define ACL_GROUP_OBJ	  0x04
#define ACL_GROUP	  0x08
#define ACL_MASK	  0x10
#define ACL_OTHER	  0x20
#define ACL_UNDEFINED_ID  0xffffffffu

#define ACL_NAMED_MAX 4

/* What a drawn ACL holds beside the owner, owning group and others: named users and groups. */
struct acl_draw {
	unsigned n;
	uint16_t tag[ACL_NAMED_MAX];
	uint32_t id[ACL_NAMED_MAX];
	uint16_t perm[ACL_NAMED_MAX];
	int has_default;     /* directories: a default ACL too */
	uint16_t def_other;  /* its others' permissions */
};

/*
 * Whether entry (kind, id) has an ACL of its own, and its named entries:
 * one to three users (uid 1000 on, sorted, distinct) and, for 30%, a
 * group; read, read-write or all (directories: r-x or rwx).
 */
static int acl_own(const struct plan *pl, enum plan_entry kind, uint64_t id, struct acl_draw *a)
{
	struct rng r;
	unsigned users;
	uint32_t uid;

	memset(a, 0, sizeof(*a));
	rng_init(&r, pl->prm.seed, kind == PLAN_DIR ? "acl.dir" : "acl.file", id);
	if (!(rng_uniform(&r) < pl->prm.acl_share) || (kind == PLAN_DIR && id == 0))
		return 0;
	users = 1 + (rng_uniform(&r) < 0.4) + (rng_uniform(&r) < 0.2);
	uid = 1000 + (uint32_t)rng_below(&r, 4);
	for (unsigned i = 0; i < users; i++) {
		double u = rng_uniform(&r);

		a->tag[a->n] = ACL_USER;
		a->id[a->n] = uid;
		uid += 1 + (uint32_t)rng_below(&r, 3);
		if (kind == PLAN_DIR)
			a->perm[a->n] = u < 0.5 ? 5 : 7;
		else
			a->perm[a->n] = u < 0.4 ? 4 : u < 0.8 ? 6 : 7;
		a->n++;
	}
	if (rng_uniform(&r) < 0.3) {
		a->tag[a->n] = ACL_GROUP;
		a->id[a->n] = rng_uniform(&r) < 0.5 ? 100 : 1000 + (uint32_t)rng_below(&r, 4);
		a->perm[a->n] = kind == PLAN_DIR ? 5 : 4;
		a->n++;
	}
	if (kind == PLAN_DIR) {
		a->has_default = rng_uniform(&r) < 0.5;
		a->def_other = rng_uniform(&r) < 0.5 ? 5 : 0;
	}
	return 1;
}

/* One entry at out + at, little-endian as the kernel keeps it; the offset after it. */
static size_t put_entry(uint8_t *out, size_t at, uint16_t tag, uint16_t perm, uint32_t id)
{
	uint8_t *p = out + at;

	p[0] = (uint8_t)tag;
	p[1] = (uint8_t)(tag >> 8);
	p[2] = (uint8_t)perm;
	p[3] = (uint8_t)(perm >> 8);
	for (int i = 0; i < 4; i++)
		p[4 + i] = (uint8_t)(id >> (8 * i));
	return at + 8;
}

/* The drawn entries tagged tag (named users or groups), in drawing order; the offset after. */
static size_t put_named(uint8_t *out, size_t at, const struct acl_draw *a, uint16_t tag)
{
	for (unsigned i = 0; i < a->n; i++)
		if (a->tag[i] == tag)
			at = put_entry(out, at, tag, a->perm[i], a->id[i]);
	return at;
}

/*
 * The xattr value of an ACL into out: the owner's, the named users', the
 * owning group's, the named groups', the mask's and others' entries, in
 * the kernel's order.  Returns its length.
 */
static size_t acl_value(const struct acl_draw *a, uint16_t user, uint16_t group, uint16_t mask,
			uint16_t other, uint8_t *out)
{
	size_t at = 4;

	out[0] = ACL_XATTR_VERSION;
	out[1] = out[2] = out[3] = 0;
	at = put_entry(out, at, ACL_USER_OBJ, user, ACL_UNDEFINED_ID);
	at = put_named(out, at, a, ACL_USER);
	at = put_entry(out, at, ACL_GROUP_OBJ, group, ACL_UNDEFINED_ID);
	at = put_named(out, at, a, ACL_GROUP);
	at = put_entry(out, at, ACL_MASK, mask, ACL_UNDEFINED_ID);
	return put_entry(out, at, ACL_OTHER, other, ACL_UNDEFINED_ID);
}

int plan_acl_prepare(struct plan *pl)
{
	struct acl_draw a;

	if (!(pl->prm.acl_share > 0) || pl->ndirs == 0)
		return 0;
	pl->dir_acl_src = plan_xalloc(pl->ndirs, sizeof(*pl->dir_acl_src));
	if (!pl->dir_acl_src)
		return -ENOMEM;
	/* the default ACL in force in each directory: its own, else its parent's (inherited) */
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint32_t up = j ? pl->dir_acl_src[pl->dir_parent[j]] : PLAN_NONE;

		pl->dir_acl_src[j] = acl_own(pl, PLAN_DIR, j, &a) && a.has_default ? j : up;
	}
	return 0;
}

static void add(struct plan_xattrs *xa, const char *name, size_t len)
{
	xa->name[xa->n] = name;
	xa->value[xa->n] = xa->data + xa->used;
	xa->len[xa->n] = len;
	xa->used += len;
	xa->n++;
}

void plan_acl_add(const struct plan *pl, enum plan_entry kind, uint64_t id, struct plan_xattrs *xa)
{
	struct plan_meta m;
	struct acl_draw own, def;
	uint32_t dir, src;
	uint16_t group;
	int has_own;

	if (kind == PLAN_LINK && !(pl->link_kind[id] & LINK_SPECIAL))
		return; /* symbolic links have none */
	if (kind == PLAN_DIR) {
		plan_dir_meta(pl, (uint32_t)id, &m);
		dir = id ? pl->dir_parent[id] : PLAN_NONE;
	} else if (kind == PLAN_FILE) {
		plan_file_meta(pl, id, &m);
		dir = pl->file_dir[id];
	} else {
		plan_link_meta(pl, (uint32_t)id, &m);
		dir = pl->link_dir[id];
	}
	has_own = kind != PLAN_LINK && acl_own(pl, kind, id, &own);
	group = (m.mode >> 3) & 7;
	src = dir == PLAN_NONE ? PLAN_NONE : pl->dir_acl_src[dir];
	if (!has_own && src != PLAN_NONE) {
		/* inherited as the kernel creates it: the parent's default (owning group r-x) */
		acl_own(pl, PLAN_DIR, src, &own);
		has_own = 1;
		group = 5;
	}
	/* owner, mask and others are the mode's, as a chmod leaves them */
	if (has_own)
		add(xa, "system.posix_acl_access",
		    acl_value(&own, (m.mode >> 6) & 7, group, (m.mode >> 3) & 7, m.mode & 7,
			      xa->data + xa->used));
	if (kind != PLAN_DIR || pl->dir_acl_src[id] == PLAN_NONE)
		return;
	acl_own(pl, PLAN_DIR, pl->dir_acl_src[id], &def);
	{
		uint16_t mask = 5;

		for (unsigned i = 0; i < def.n; i++)
			mask |= def.perm[i];
		add(xa, "system.posix_acl_default",
		    acl_value(&def, 7, 5, mask, def.def_other, xa->data + xa->used));
	}
}
