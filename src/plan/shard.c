/* shard.c - the deterministic partition of a plan among N clients (plan/shard.h) */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plan/shard.h"

/* A min-heap of shards by load, ties by shard number: the same answer on every client. */
struct load_heap {
	uint64_t *load;
	uint32_t *shard;
	unsigned n;
};

static int heap_less(const struct load_heap *h, unsigned a, unsigned b)
{
	return h->load[a] < h->load[b] || (h->load[a] == h->load[b] && h->shard[a] < h->shard[b]);
}

static void heap_swap(struct load_heap *h, unsigned a, unsigned b)
{
	uint64_t l = h->load[a];
	uint32_t s = h->shard[a];

	h->load[a] = h->load[b];
	h->shard[a] = h->shard[b];
	h->load[b] = l;
	h->shard[b] = s;
}

/* Give the least loaded shard cost more; returns that shard. */
static unsigned heap_take(struct load_heap *h, uint64_t cost)
{
	unsigned s = h->shard[0], i = 0;

	h->load[0] += cost;
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < h->n && heap_less(h, l, m))
			m = l;
		if (r < h->n && heap_less(h, r, m))
			m = r;
		if (m == i)
			break;
		heap_swap(h, i, m);
		i = m;
	}
	return s;
}

/* A file and what it costs to make. */
struct costed {
	uint64_t key, index;
};

static int by_cost_desc(const void *a, const void *b)
{
	const struct costed *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* The shard of a link: its file's, its directory's, or the least loaded (special files). */
static void share_links(struct plan_shard *sh, const struct plan *pl, struct load_heap *h)
{
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		uint8_t k = pl->link_kind[l];
		uint32_t t = pl->link_target[l];

		if ((k & LINK_SPECIAL) == 0 && (k & (LINK_HARD | LINK_SYM_FILE)) && t < pl->nfiles)
			sh->link_owner[l] = sh->file_owner[t];
		else if ((k & LINK_SPECIAL) == 0 && (k & LINK_SYM_DIR) && t < pl->ndirs)
			sh->link_owner[l] = (uint16_t)(t % sh->n);
		else
			sh->link_owner[l] = (uint16_t)heap_take(h, PLAN_SHARD_ENTRY_COST);
	}
}

static int share_files(struct plan_shard *sh, const struct plan *pl, struct load_heap *h)
{
	struct costed *c = NULL;
	uint32_t *hard = NULL;

	if (pl->nfiles) {
		c = malloc(pl->nfiles * sizeof(*c));
		hard = calloc(pl->nfiles, sizeof(*hard));
		if (!c || !hard) {
			free(c);
			free(hard);
			return -ENOMEM;
		}
	}
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (!(pl->link_kind[l] & LINK_SPECIAL) &&
		    (pl->link_kind[l] & (LINK_HARD | LINK_SYM_FILE)) && pl->link_target[l] < pl->nfiles)
			hard[pl->link_target[l]]++;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		c[f].index = f;
		c[f].key = pl->file_size[f] + (uint64_t)PLAN_SHARD_ENTRY_COST * (1 + hard[f]);
	}
	if (pl->nfiles)
		qsort(c, pl->nfiles, sizeof(*c), by_cost_desc);
	for (uint64_t i = 0; i < pl->nfiles; i++)
		sh->file_owner[c[i].index] = (uint16_t)heap_take(h, c[i].key);
	free(c);
	free(hard);
	return 0;
}

/* Mark d and the directories above it (the root is always there). */
static void need_dir(struct plan_shard *sh, const struct plan *pl, uint32_t d)
{
	while (d && d < pl->ndirs && !sh->dir_need[d]) {
		sh->dir_need[d] = 1;
		d = pl->dir_parent[d];
	}
}

static void share_dirs(struct plan_shard *sh, const struct plan *pl)
{
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (sh->file_owner[f] == sh->k) {
			need_dir(sh, pl, pl->file_dir[f]);
			sh->files++;
			sh->bytes += pl->file_size[f];
		}
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (sh->link_owner[l] == sh->k) {
			need_dir(sh, pl, pl->link_dir[l]);
			sh->links++;
		}
	for (uint32_t d = 1; d < pl->ndirs; d++)
		if (d % sh->n == sh->k)
			need_dir(sh, pl, d);
	for (uint32_t d = 1; d < pl->ndirs; d++)
		sh->dirs += sh->dir_need[d];
}

int plan_shard_init(struct plan_shard *sh, const struct plan *pl, unsigned k, unsigned n)
{
	struct load_heap h = { 0 };
	int ret = -ENOMEM;

	memset(sh, 0, sizeof(*sh));
	if (!n)
		return 0;
	if (n > PLAN_SHARDS_MAX || k >= n)
		return -EINVAL;
	sh->k = k;
	sh->n = n;
	sh->file_owner = malloc((pl->nfiles + 1) * sizeof(*sh->file_owner));
	sh->link_owner = malloc(((size_t)pl->nlinks + 1) * sizeof(*sh->link_owner));
	sh->dir_need = calloc((size_t)pl->ndirs + 1, 1);
	h.load = calloc(n, sizeof(*h.load));
	h.shard = malloc(n * sizeof(*h.shard));
	h.n = n;
	if (!sh->file_owner || !sh->link_owner || !sh->dir_need || !h.load || !h.shard)
		goto out_free;
	/* loads all 0: shards in order is already a heap */
	for (unsigned i = 0; i < n; i++)
		h.shard[i] = i;
	ret = share_files(sh, pl, &h);
	if (ret)
		goto out_free;
	share_links(sh, pl, &h);
	share_dirs(sh, pl);
out_free:
	free(h.load);
	free(h.shard);
	if (ret)
		plan_shard_release(sh);
	return ret;
}

void plan_shard_release(struct plan_shard *sh)
{
	free(sh->file_owner);
	free(sh->link_owner);
	free(sh->dir_need);
	memset(sh, 0, sizeof(*sh));
}
