/* mballoc.c - the simulated ext4 allocator's free space: a buddy system per group, mballoc's search */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "layout/arith.h"
#include "layout/mballoc.h"
#include "layout/maxtree.h"
#include "util/util.h"

/*
 * Free space is a buddy system per block group, as mballoc keeps it:
 * level k marks the aligned 2^k-block chunks (from the group's start)
 * that are wholly free, up to order min(block bits + 1, log2 group), with
 * counts per level and a tree over the groups of their highest free
 * level.  The search and its criteria are described at the top of age.c.
 */

#define MB_MIN_TO_SCAN 10
#define MB_MAX_TO_SCAN 200

uint64_t mb_group_start(const struct mb *m, uint32_t g)
{
	return m->fdb + (uint64_t)g * m->bpg;
}

static uint32_t g_len(const struct mb *m, uint32_t g)
{
	uint64_t s = mb_group_start(m, g);

	return s + m->bpg <= m->nblocks ? m->bpg : (uint32_t)(m->nblocks - s);
}

static uint64_t *lv(const struct mb *m, uint32_t g, unsigned k)
{
	return m->bits + (size_t)g * m->gwords + m->lvoff[k];
}

static uint32_t *gcnt(const struct mb *m, uint32_t g)
{
	return m->cnt + (size_t)g * (m->K + 1);
}

/* Bit i of the result: bits 2i and 2i + 1 of x are both set. */
static uint64_t pair_and(uint64_t x)
{
	uint64_t y = x & (x >> 1) & UINT64_C(0x5555555555555555);

	y = (y | (y >> 1)) & UINT64_C(0x3333333333333333);
	y = (y | (y >> 2)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
	y = (y | (y >> 4)) & UINT64_C(0x00FF00FF00FF00FF);
	y = (y | (y >> 8)) & UINT64_C(0x0000FFFF0000FFFF);
	y = (y | (y >> 16)) & UINT64_C(0x00000000FFFFFFFF);
	return y;
}

/* Groups whose largest free chunk has level >= v, from g0 on, wrapping. */
struct giter {
	uint32_t g0;
	int wrapped;
	size_t next;
};

static int64_t giter_next(const struct mb *m, struct giter *it, int v)
{
	for (;;) {
		size_t hi = it->wrapped ? it->g0 : m->ngroups;
		size_t g = maxtree_first(&m->top, it->next, hi, v);

		if (g != SIZE_MAX) {
			it->next = g + 1;
			return (int64_t)g;
		}
		if (it->wrapped)
			return -1;
		it->wrapped = 1;
		it->next = 0;
	}
}

/* Free extents starting at a position in [a, b] (b included) of a group's bitmap of len bits. */
static uint32_t starts_in(const uint64_t *w, uint32_t len, uint32_t a, uint32_t b)
{
	uint32_t n = 0;

	if (b >= len)
		b = len - 1;
	for (uint32_t wi = a / 64; wi <= b / 64; wi++) {
		uint64_t x = w[wi], carry = wi ? w[wi - 1] >> 63 : 0, st = x & ~(x << 1 | carry);
		uint32_t lo = wi * 64 < a ? a - wi * 64 : 0;
		uint32_t hi = b - wi * 64 < 63 ? b - wi * 64 : 63;
		uint64_t mask = (hi == 63 ? ~UINT64_C(0) : (UINT64_C(1) << (hi + 1)) - 1) &
				~((UINT64_C(1) << lo) - 1);

		n += (uint32_t)__builtin_popcountll(st & mask);
	}
	return n;
}

/* Mark [off, off + len) of group g free or used, and the levels above. */
static void mb_mark_group(struct mb *m, uint32_t g, uint32_t off, uint32_t len, int fr)
{
	uint64_t *w0 = lv(m, g, 0);
	uint32_t *c = gcnt(m, g), end = off + len, glen = g_len(m, g), s0;
	int64_t d0 = 0;
	int top = -1;

	s0 = starts_in(w0, glen, off, end);
	for (uint32_t i = off; i < end;) {
		uint32_t b = i % 64, n = (uint32_t)min_u64(64 - b, end - i);
		uint64_t mask = (n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1) << b;
		uint64_t old = w0[i / 64], nw = fr ? old | mask : old & ~mask;

		d0 += __builtin_popcountll(nw) - __builtin_popcountll(old);
		w0[i / 64] = nw;
		i += n;
	}
	c[0] = (uint32_t)((int64_t)c[0] + d0);
	m->frags[g] = m->frags[g] + starts_in(w0, glen, off, end) - s0;
	m->ffree[g / m->flex] = (uint64_t)((int64_t)m->ffree[g / m->flex] + d0);
	m->free = (uint64_t)((int64_t)m->free + d0);
	for (unsigned k = 1; k <= m->K; k++) {
		const uint64_t *ch = lv(m, g, k - 1);
		uint64_t *pa = lv(m, g, k);
		size_t cw = m->lvwords[k - 1], a = (off >> k) / 64, z = ((end - 1) >> k) / 64;
		int64_t dk = 0;

		for (size_t w = a; w <= z && w < m->lvwords[k]; w++) {
			uint64_t lo = 2 * w < cw ? ch[2 * w] : 0;
			uint64_t hi = 2 * w + 1 < cw ? ch[2 * w + 1] : 0;
			uint64_t nw = pair_and(lo) | pair_and(hi) << 32;

			dk += __builtin_popcountll(nw) - __builtin_popcountll(pa[w]);
			pa[w] = nw;
		}
		c[k] = (uint32_t)((int64_t)c[k] + dk);
	}
	for (unsigned k = 0; k <= m->K; k++)
		if (c[k])
			top = (int)k;
	maxtree_set(&m->top, g, top);
}

void mb_mark(struct mb *m, uint64_t s, uint64_t n, int fr)
{
	while (n) {
		uint32_t g = (uint32_t)((s - m->fdb) / m->bpg),
			 off = (uint32_t)(s - mb_group_start(m, g));
		uint32_t take = (uint32_t)min_u64(n, g_len(m, g) - off);

		mb_mark_group(m, g, off, take, fr);
		s += take;
		n -= take;
	}
}

uint32_t mb_group_of(const struct mb *m, uint64_t b)
{
	uint64_t g = b >= m->fdb ? (b - m->fdb) / m->bpg : 0;

	return g < m->ngroups ? (uint32_t)g : m->ngroups - 1;
}

/* First bit at or after from that is set (set) or clear (!set), or n. */
static uint32_t bit_next(const uint64_t *w, uint32_t n, uint32_t from, int set)
{
	while (from < n) {
		uint64_t x = set ? w[from / 64] : ~w[from / 64];

		x &= ~UINT64_C(0) << (from % 64);
		if (x) {
			uint32_t r = (from & ~63u) + (uint32_t)__builtin_ctzll(x);

			return r < n ? r : n;
		}
		from = (from & ~63u) + 64;
	}
	return n;
}

uint64_t mb_run_at(const struct mb *m, uint64_t b, uint64_t limit)
{
	uint32_t g, off, len, e;

	if (b < m->fdb || b >= m->nblocks)
		return 0;
	g = mb_group_of(m, b);
	off = (uint32_t)(b - mb_group_start(m, g));
	len = g_len(m, g);
	e = bit_next(lv(m, g, 0), len, off, 0);
	return min_u64(e - off, limit);
}

static int64_t mb_first_buddy(const struct mb *m, uint32_t g, unsigned k)
{
	const uint64_t *w = lv(m, g, k);

	for (size_t i = 0; i < m->lvwords[k]; i++) {
		uint64_t x = w[i], b = x;

		if (!x)
			continue;
		if (k < m->K) {
			uint64_t y = x & (x >> 1) & UINT64_C(0x5555555555555555);

			b = x & ~(y | (y << 1));
		}
		if (b)
			return ((int64_t)(i * 64) + __builtin_ctzll(b)) << k;
	}
	return -1;
}

static uint64_t mb_buddies(const struct mb *m, uint32_t g, unsigned k)
{
	const uint32_t *c = gcnt(m, g);

	return k < m->K ? c[k] - 2 * c[k + 1] : c[k];
}

/*
 * Free extents of group g in address order, as ext4_mb_complex_scan_group
 * measures them against the goal length L.  Returns 1 when *best is to be
 * used, -1 when the scan limit was reached, 0 to go on.
 */
static int mb_scan_group(const struct mb *m, uint32_t g, uint64_t L, unsigned *found,
			 struct ex *best)
{
	const uint64_t *w = lv(m, g, 0);
	uint32_t len = g_len(m, g), pos = 0;

	while (pos < len) {
		uint32_t s = bit_next(w, len, pos, 1), e;
		struct ex x;

		if (s >= len)
			break;
		e = bit_next(w, len, s, 0);
		x.s = mb_group_start(m, g) + s;
		x.n = e - s;
		(*found)++;
		if (x.n == L) {
			*best = x;
			return 1;
		}
		if (!best->n)
			*best = x;
		else if (best->n < L) {
			if (x.n > best->n)
				*best = x;
		} else if (x.n > L && x.n < best->n) {
			*best = x;
		}
		if (*found > MB_MAX_TO_SCAN)
			return -1;
		if (best->n >= L && *found > MB_MIN_TO_SCAN)
			return 1;
		pos = e;
	}
	return best->n >= L;
}

/* The kernel's group criteria after the buddy pass: average extent, free blocks, any. */
enum { CR_AVG, CR_FREE, CR_ANY };

/*
 * One criterion's pass over the groups from g0 (linear, wrapping): the
 * good ones are scanned (mb_scan_group) against goal L.  Returns 1 found,
 * -1 scan limit, 0 nothing.
 */
static int mb_pass(const struct mb *m, uint32_t g0, uint64_t L, int cr, unsigned *found,
		   struct ex *best)
{
	for (uint32_t i = 0; i < m->ngroups; i++) {
		uint32_t g = (g0 + i) % m->ngroups, fr = m->frags[g];
		uint64_t free = gcnt(m, g)[0];
		int st;

		if (!free || !fr)
			continue;
		if (cr != CR_ANY && free < L)
			continue;
		if (cr == CR_AVG && free / fr < L)
			continue;
		st = mb_scan_group(m, g, L, found, best);
		if (st)
			return st;
	}
	return 0;
}

int mb_search(const struct mb *m, uint32_t g0, uint64_t L, uint64_t o, int data, struct ex *out)
{
	struct ex best = { 0, 0 };
	unsigned found = 0;
	uint64_t goal = L;
	int st = 0;

	if (!m->free)
		return -ENOSPC;
	if (g0 >= m->ngroups)
		g0 = 0;
	if (L >= 2 && !(L & (L - 1)) && ilog2(L) <= m->K) {
		unsigned r = ilog2(L);
		struct giter it = { g0, 0, g0 };
		int64_t g;

		while ((g = giter_next(m, &it, (int)r)) >= 0) {
			if (data && m->flex >= 4 && g % m->flex == 0)
				continue;
			for (unsigned k = r; k <= m->K; k++) {
				if (mb_buddies(m, (uint32_t)g, k)) {
					out->s = mb_group_start(m, (uint32_t)g) +
						 (uint64_t)mb_first_buddy(m, (uint32_t)g, k);
					out->n = L;
					return 0;
				}
			}
		}
	}
	st = mb_pass(m, g0, L, CR_AVG, &found, &best);
	/* CR_BEST_AVAIL_LEN: the goal trimmed by up to three orders, not below the need */
	for (unsigned t = 1; !st && t <= 3 && (L >> t) >= o && (L >> t); t++) {
		goal = L >> t;
		st = mb_pass(m, g0, goal, CR_AVG, &found, &best);
	}
	if (!st) {
		goal = L;
		st = mb_pass(m, g0, L, CR_FREE, &found, &best);
	}
	if (!st)
		st = mb_pass(m, g0, L, CR_ANY, &found, &best);
	if (!best.n)
		return -ENOSPC;
	/* found, or the best so far when the scan gave up (a partial allocation) */
	*out = best;
	out->n = min_u64(best.n, st == 1 ? goal : L);
	return 0;
}

int mb_alloc_whole(struct mb *m, uint32_t g0, uint64_t n, uint64_t *start)
{
	struct ex e;
	int ret = mb_search(m, g0, n, n, 0, &e);

	if (ret || e.n < n) {
		/* first fit anywhere, without the scan limit */
		int lvl = n >= 4 ? (int)ilog2(n) - 1 : 0;
		struct giter it = { g0 < m->ngroups ? g0 : 0, 0, g0 < m->ngroups ? g0 : 0 };
		int64_t g;

		ret = -ENOSPC;
		while ((g = giter_next(m, &it, lvl)) >= 0) {
			const uint64_t *w = lv(m, (uint32_t)g, 0);
			uint32_t len = g_len(m, (uint32_t)g), pos = 0;

			while (pos < len) {
				uint32_t s = bit_next(w, len, pos, 1), x;

				if (s >= len)
					break;
				x = bit_next(w, len, s, 0);
				if (x - s >= n) {
					e.s = mb_group_start(m, (uint32_t)g) + s;
					ret = 0;
					break;
				}
				pos = x;
			}
			if (!ret)
				break;
		}
		if (ret)
			return ret;
	}
	mb_mark(m, e.s, n, 0);
	*start = e.s;
	return 0;
}

int mb_init(struct mb *m, const struct freemap *fm, uint32_t block_size)
{
	uint64_t w = 0;
	unsigned bsbits = ilog2(block_size);

	memset(m, 0, sizeof(*m));
	m->fdb = fm->first_data_block;
	m->nblocks = fm->nblocks;
	m->bpg = fm->blocks_per_group;
	if (!m->bpg || m->nblocks <= m->fdb)
		return -EINVAL;
	m->ngroups = (uint32_t)div_up(m->nblocks - m->fdb, m->bpg);
	m->flex = fm->flex_groups ? fm->flex_groups : 1;
	m->nflex = (uint32_t)div_up(m->ngroups, m->flex);
	m->K = ilog2(m->bpg);
	if (m->K > bsbits + 1)
		m->K = bsbits + 1;
	if (m->K >= MAX_LEVELS)
		m->K = MAX_LEVELS - 1;
	for (unsigned k = 0; k <= m->K; k++) {
		uint64_t chunks = div_up(m->bpg, UINT64_C(1) << k);

		m->lvoff[k] = (size_t)w;
		m->lvwords[k] = (size_t)div_up(chunks, 64);
		w += m->lvwords[k];
	}
	m->gwords = (size_t)w;
	m->bits = calloc((size_t)m->ngroups * m->gwords, sizeof(*m->bits));
	m->cnt = calloc((size_t)m->ngroups * (m->K + 1), sizeof(*m->cnt));
	m->frags = calloc(m->ngroups, sizeof(*m->frags));
	m->ffree = calloc(m->nflex, sizeof(*m->ffree));
	if (maxtree_init(&m->top, m->ngroups, -1))
		return -ENOMEM;
	if (!m->bits || !m->cnt || !m->frags || !m->ffree)
		return -ENOMEM;
	return 0;
}

void mb_release(struct mb *m)
{
	FREE_ALL(m->bits, m->cnt, m->frags, m->ffree);
	maxtree_release(&m->top);
	memset(m, 0, sizeof(*m));
}
