/* inode_order.c - the ext2/3/4 backend's inode numbers in birth order, or shuffled within each group */
#include <errno.h>
#include <stdlib.h>

#include "backends/ext4/inode_order.h"
#include "util/rng.h"

/* An entry that takes an inode, and its birth time. */
struct born {
	int64_t sec;
	uint32_t ns;
	uint8_t kind; /* enum plan_entry */
	uint64_t id;
};

static int born_cmp(const void *a, const void *b)
{
	const struct born *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

int ext4_inodes_by_birth(struct ext4_build *x, int (*dir)(struct ext4_build *, uint32_t),
			 int (*file)(struct ext4_build *, uint64_t),
			 int (*link)(struct ext4_build *, uint32_t))
{
	const struct plan *pl = x->pl;
	uint64_t n = 0, cap = (uint64_t)pl->ndirs + pl->nfiles + pl->nlinks;
	struct born *b = malloc((cap ? cap : 1) * sizeof(*b));
	struct plan_meta m;
	int ret = 0;

	if (!b)
		return ext4_set_err(x->b, -ENOMEM, "out of memory");
	for (uint32_t j = 1; j < pl->ndirs; j++) {
		plan_dir_meta(pl, j, &m);
		b[n++] = (struct born){ m.crtime, m.crtime_ns, PLAN_DIR, j };
	}
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		plan_file_meta(pl, f, &m);
		b[n++] = (struct born){ m.crtime, m.crtime_ns, PLAN_FILE, f };
	}
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		if (pl->link_kind[l] & LINK_HARD)
			continue;
		plan_link_meta(pl, l, &m);
		b[n++] = (struct born){ m.crtime, m.crtime_ns, PLAN_LINK, l };
	}
	qsort(b, n, sizeof(*b), born_cmp);
	ret = dir(x, 0);
	for (uint64_t i = 0; i < n && !ret; i++) {
		if (b[i].kind == PLAN_DIR)
			ret = dir(x, (uint32_t)b[i].id);
		else if (b[i].kind == PLAN_FILE)
			ret = file(x, b[i].id);
		else
			ret = link(x, (uint32_t)b[i].id);
		if (!ret)
			ret = ext4_tick(x, i + 1);
	}
	free(b);
	return ret;
}

/* Where entry e's inode number is kept. */
static ext2_ino_t *slot(struct ext4_build *x, uint64_t e)
{
	const struct plan *pl = x->pl;

	if (e < pl->ndirs)
		return &x->dir_ino[e];
	e -= pl->ndirs;
	if (e < pl->nfiles)
		return &x->file_ino[e];
	return &x->link_ino[e - pl->nfiles];
}

int ext4_inodes_shuffle(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	uint32_t ipg = x->fs->super->s_inodes_per_group, ngroups = x->fs->group_desc_count;
	uint64_t total = (uint64_t)pl->ndirs + pl->nfiles + pl->nlinks, *start = NULL;
	uint32_t *ent = NULL, *ino = NULL;
	uint64_t key = rng_stream_key(pl->prm.seed, "inode.order");
	int ret = -ENOMEM;

	if (total >= UINT32_MAX)
		return ext4_set_err(x->b, -E2BIG, "too many entries to shuffle their inodes");
	start = calloc((size_t)ngroups + 1, sizeof(*start));
	ent = malloc((total ? total : 1) * sizeof(*ent));
	ino = malloc((total ? total : 1) * sizeof(*ino));
	if (!start || !ent || !ino)
		goto out;
	/* entries by group (counting sort), the root and hard links left out */
	for (uint64_t e = 1; e < total; e++) {
		ext2_ino_t i = *slot(x, e);

		if (i)
			start[(i - 1) / ipg + 1]++;
	}
	for (uint32_t g = 0; g < ngroups; g++)
		start[g + 1] += start[g];
	for (uint64_t e = 1; e < total; e++) {
		ext2_ino_t i = *slot(x, e);

		if (i) {
			uint64_t at = start[(i - 1) / ipg]++;

			ent[at] = (uint32_t)e;
			ino[at] = i;
		}
	}
	/* start[g] is now the end of group g: deal each group's numbers out again */
	for (uint32_t g = 0, from = 0; g < ngroups; from = (uint32_t)start[g], g++) {
		uint64_t n = start[g] - from;

		rng_shuffle_u32(ino + from, n, key, g);
		for (uint64_t k = 0; k < n; k++)
			*slot(x, ent[from + k]) = ino[from + k];
	}
	ret = 0;
out:
	free(start);
	free(ent);
	free(ino);
	return ret ? ext4_set_err(x->b, ret, "out of memory") : 0;
}
