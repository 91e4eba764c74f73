/* alloc.c - the free space of a placement: slots consumed from the front, a max tree, a packing cursor */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/alloc.h"

/*
 * Free space.  The free runs are copied into slots, each consumed from its
 * front only, with a max tree over their free lengths for "first slot from
 * i with at least n free" in O(log slots).  Slots [0, nruns) are the runs
 * in address order; holes left behind when the packing jumps forward are
 * appended after them and used once the space ahead is exhausted.  The
 * pool is reserved first, at the tail of the last run that holds it.
 */

void alloc_update(struct alloc *a, size_t i)
{
	maxtree_set(&a->tree, i, (int64_t)(a->end[i] - a->cur[i]));
}

size_t alloc_first(const struct alloc *a, size_t lo, size_t hi, uint64_t n)
{
	return maxtree_first(&a->tree, lo, hi, (int64_t)n);
}

static void alloc_advance(struct alloc *a)
{
	size_t j = alloc_first(a, a->ci + 1, a->nruns, 1);

	a->ci = j == SIZE_MAX ? a->nruns : j;
}

uint64_t alloc_take(struct alloc *a, size_t i, uint64_t n)
{
	uint64_t p = a->cur[i];

	a->cur[i] += n;
	alloc_update(a, i);
	if (i == a->ci && a->cur[i] == a->end[i])
		alloc_advance(a);
	return p;
}

int alloc_init(struct alloc *a, const struct freemap *fm, size_t nholes, uint64_t pool,
	       uint64_t *pool_start)
{
	size_t n = 0;
	uint64_t last = 0;

	memset(a, 0, sizeof(*a));
	a->cap = fm->nruns + nholes + 1;
	a->cur = calloc(a->cap, sizeof(*a->cur));
	a->end = calloc(a->cap, sizeof(*a->end));
	if (!a->cur || !a->end)
		return -ENOMEM;
	for (size_t i = 0; i < fm->nruns; i++) {
		uint64_t s = fm->runs[i].start, len = fm->runs[i].len;

		if (!len)
			continue;
		if (s < last || s + len < s || s + len > fm->nblocks)
			return -EINVAL;
		if (n && a->end[n - 1] == s) {
			a->end[n - 1] += len;
		} else {
			a->cur[n] = s;
			a->end[n] = s + len;
			n++;
		}
		last = s + len;
	}
	a->nruns = a->nslots = n;

	*pool_start = 0;
	if (pool) {
		size_t i = n;

		while (i-- > 0)
			if (a->end[i] - a->cur[i] >= pool)
				break;
		if (i == SIZE_MAX)
			return -ENOSPC;
		a->end[i] -= pool;
		*pool_start = a->end[i];
	}

	if (maxtree_init(&a->tree, a->cap, 0))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		maxtree_put(&a->tree, i, (int64_t)(a->end[i] - a->cur[i]));
	maxtree_rebuild(&a->tree);
	a->ci = 0;
	if (n && a->cur[0] == a->end[0])
		alloc_advance(a);
	if (!n)
		a->ci = 0;
	return 0;
}

void alloc_release(struct alloc *a)
{
	free(a->cur);
	free(a->end);
	maxtree_release(&a->tree);
	memset(a, 0, sizeof(*a));
}

void alloc_jump(struct alloc *a, uint64_t goal)
{
	size_t lo = a->ci, hi = a->nruns, r;

	if (a->ci >= a->nruns || a->cur[a->ci] >= goal)
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (a->end[mid] <= goal)
			lo = mid + 1;
		else
			hi = mid;
	}
	r = lo;
	if (r == a->nruns)
		return;
	if (a->cur[r] < goal) {
		if (a->nslots < a->cap) {
			size_t h = a->nslots++;

			a->cur[h] = a->cur[r];
			a->end[h] = goal;
			alloc_update(a, h);
		} else {
			a->leaked += goal - a->cur[r];
		}
		a->cur[r] = goal;
		alloc_update(a, r);
	}
	a->ci = r;
	if (a->cur[r] == a->end[r])
		alloc_advance(a);
}

int alloc_contig(struct alloc *a, uint64_t n, uint64_t avoid, uint64_t *pblk, int *adj)
{
	size_t ci = a->ci, j, k, skipped = SIZE_MAX;

	*adj = 0;
	if (ci < a->nruns) {
		if (a->end[ci] - a->cur[ci] >= n) {
			if (a->cur[ci] != avoid) {
				*pblk = alloc_take(a, ci, n);
				return 0;
			}
			skipped = ci;
		}
		j = alloc_first(a, ci + 1, a->nruns, n);
		if (j != SIZE_MAX && a->cur[j] == avoid) {
			skipped = j;
			j = alloc_first(a, j + 1, a->nruns, n);
		}
		if (j != SIZE_MAX) {
			/* a small object moves the cursor on; a big one goes ahead */
			if (skipped == SIZE_MAX) {
				k = alloc_first(a, ci + 1, a->nruns, 1);
				if (k == j)
					a->ci = j;
			}
			*pblk = alloc_take(a, j, n);
			return 0;
		}
	}
	j = alloc_first(a, 0, a->nslots, n);
	if (j != SIZE_MAX && a->cur[j] == avoid) {
		skipped = j;
		j = alloc_first(a, j + 1, a->nslots, n);
	}
	if (j != SIZE_MAX) {
		*pblk = alloc_take(a, j, n);
		return 0;
	}
	if (skipped == SIZE_MAX)
		return -ENOSPC;
	if (a->end[skipped] - a->cur[skipped] > n && a->leaked < a->spare / 2) {
		/*
		 * Nothing else holds it: one spare block apart rather than
		 * adjacent, keeping half the spare for unforeseen metadata.
		 */
		a->cur[skipped]++;
		a->leaked++;
	} else {
		*adj = 1;
	}
	*pblk = alloc_take(a, skipped, n);
	return 0;
}
