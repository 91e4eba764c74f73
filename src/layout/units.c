/* units.c - allocation units (flex groups or groups) and an Orlov-like unit for every directory */
#include <errno.h>
#include <stdlib.h>

#include "layout/arith.h"
#include "layout/maxtree.h"
#include "layout/units.h"
#include "util/rng.h"

/*
 * Spread.  Block groups are gathered into allocation units (flex groups
 * with flex_bg, else groups), as the kernel's Orlov allocator does, and
 * each directory gets a unit from projected free blocks (a directory's
 * own blocks plus its files and slow symlinks).  The root takes unit 0; a
 * top-level directory the unit with the most projected free blocks,
 * searched from a seeded start (stream "layout.orlov"), like Orlov's
 * hashed start; a deeper one stays in its parent's unit while that keeps
 * at least the average free minus a quarter unit (Orlov's min_blocks),
 * else the first unit after it (wrapping) that does, else one that holds
 * it, else the most free.  What a unit cannot hold spills into the next.
 * Directories are then packed unit by unit, in creation order within a
 * unit: a directory's blocks, its files in id order right after, then its
 * slow symlinks.  On entering a unit the packing jumps to the unit's first
 * block unless earlier units overflowed past it.
 */

/* Free blocks of al per unit into pf. */
static void units_free(const struct alloc *al, const struct units_geom *ug, int64_t *pf)
{
	for (size_t i = 0; i < al->nruns; i++) {
		uint64_t s = al->cur[i], e = al->end[i];

		while (s < e) {
			uint64_t k = s >= ug->start ? (s - ug->start) / ug->size : 0, ue;

			if (k >= ug->n - 1) {
				k = ug->n - 1;
				ue = e;
			} else {
				ue = min_u64(e, ug->start + (k + 1) * ug->size);
			}
			pf[k] += (int64_t)(ue - s);
			s = ue;
		}
	}
}

/* What directory j will hold: its blocks, its files contiguous with their gaps, its slow symlinks. */
static uint64_t dir_need(const struct layout_request *rq, uint32_t j, double gap_per_file)
{
	const struct plan *pl = rq->pl;
	uint64_t need = layout_dir_blocks(rq, j);
	uint32_t f0 = pl->dir_first_file[j], l0 = pl->dir_first_link[j];

	for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++) {
		uint64_t n = layout_file_blocks(rq, (uint64_t)f0 + c);

		need += n + layout_contig_meta(rq, (uint64_t)f0 + c, n);
		if (n)
			need += (uint64_t)gap_per_file;
	}
	for (uint32_t c = 0; c < pl->dir_nlinks[j]; c++)
		need += layout_link_blocks(rq, l0 + c);
	return need;
}

/*
 * A deeper directory's unit: its parent's pu while that keeps minfree
 * beside need, else the first after it (wrapping) that does, else one that
 * holds need, else the most free.
 */
static size_t unit_near(const struct maxtree *u, const int64_t *pf, size_t nunits, size_t pu,
			int64_t minfree, uint64_t need)
{
	int64_t thr = (minfree > 0 ? minfree : 0) + (int64_t)need;
	size_t k;

	k = pf[pu] >= thr ? pu : maxtree_first(u, pu + 1, nunits, thr);
	if (k == SIZE_MAX)
		k = maxtree_first(u, 0, pu, thr);
	if (k == SIZE_MAX)
		k = pf[pu] >= (int64_t)need ? pu : maxtree_first(u, pu + 1, nunits, (int64_t)need);
	if (k == SIZE_MAX)
		k = maxtree_first(u, 0, pu, (int64_t)need);
	if (k == SIZE_MAX)
		k = maxtree_argmax(u);
	return k;
}

/* Take need blocks from unit k's projection; what does not fit spills into the following units. */
static void unit_take(struct maxtree *u, int64_t *pf, size_t nunits, size_t k, uint64_t need)
{
	uint64_t left = need;
	size_t v = k;

	while (left) {
		uint64_t take = pf[v] > 0 ? min_u64(left, (uint64_t)pf[v]) : 0;

		pf[v] -= (int64_t)take;
		maxtree_set(u, v, pf[v]);
		left -= take;
		if (!left)
			break;
		v = maxtree_first(u, v + 1, nunits, 1);
		if (v == SIZE_MAX)
			break;
	}
	if (left) {
		pf[k] -= (int64_t)left;
		maxtree_set(u, k, pf[k]);
	}
}

int units_assign(const struct layout_request *rq, const struct alloc *al, double gap_per_file,
		 const struct units_geom *ug, uint32_t *dunit, uint32_t *order)
{
	const struct plan *pl = rq->pl;
	size_t nunits = ug->n, *cnt = NULL;
	uint64_t okey = rng_stream_key(rq->seed, "layout.orlov");
	struct maxtree u = { 0 };
	int64_t *pf, sum = 0;
	int ret;

	/* projected free blocks per unit (they may go negative), with a max tree */
	ret = maxtree_init(&u, nunits, INT64_MIN);
	pf = calloc(nunits, sizeof(*pf));
	cnt = calloc(nunits + 1, sizeof(*cnt));
	if (ret || !pf || !cnt) {
		ret = -ENOMEM;
		goto out_free;
	}
	units_free(al, ug, pf);
	for (size_t k = 0; k < nunits; k++) {
		maxtree_set(&u, k, pf[k]);
		sum += pf[k];
	}

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint64_t need = dir_need(rq, j, gap_per_file);
		int64_t minfree = sum / (int64_t)nunits - (int64_t)(ug->size / 4);
		size_t k;

		if (j == 0) {
			k = 0;
		} else if (pl->dir_depth[j] <= 1) {
			/* the most free unit, searched from a seeded start */
			struct rng r;
			size_t start;

			rng_open(&r, okey, j);
			start = (size_t)rng_below(&r, nunits);
			k = maxtree_first(&u, start, nunits, maxtree_top(&u));
			if (k == SIZE_MAX)
				k = maxtree_first(&u, 0, start, maxtree_top(&u));
		} else {
			/* the parent's unit while it stays above a quarter group below average */
			k = unit_near(&u, pf, nunits, dunit[pl->dir_parent[j]], minfree, need);
		}
		dunit[j] = (uint32_t)k;
		cnt[k + 1]++;
		unit_take(&u, pf, nunits, k, need);
		sum -= (int64_t)need;
	}

	for (size_t k = 0; k < nunits; k++)
		cnt[k + 1] += cnt[k];
	for (uint32_t j = 0; j < pl->ndirs; j++)
		order[cnt[dunit[j]]++] = j;

out_free:
	maxtree_release(&u);
	free(pf);
	free(cnt);
	return ret;
}

void units_geom(const struct freemap *fm, enum layout_order order, struct units_geom *ug)
{
	ug->start = fm->first_data_block;
	if (fm->blocks_per_group && fm->ngroups && order == ORDER_DIR) {
		uint64_t flex = fm->flex_groups ? fm->flex_groups : 1;

		ug->size = (uint64_t)fm->blocks_per_group * flex;
		ug->n = (size_t)div_up(fm->ngroups, flex);
	} else {
		ug->size = fm->nblocks ? fm->nblocks : 1;
		ug->n = 1;
	}
}
