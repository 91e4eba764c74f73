/* age.c - offline aging: create/delete churn on a simulated ext4 allocator (mballoc's policies) */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/age.h"
#include "layout/arith.h"
#include "model/dist.h"
#include "util/rng.h"

/*
 * The churn.  Every plan file gets the round it is created in: round 0
 * (the initial population) with probability (1-c)^N, round r >= 1 with
 * c (1-c)^(N-r), c = age_churn, N = age_rounds (exact quotas, shuffled;
 * stream "age.round"): the law of when a file that survives N rounds of
 * "each round, a share c of the live files is deleted and replaced" was
 * created.  Temporary files fill the population up to the plan's file
 * count: round 0 makes the plan's directories (parents first) and, one
 * directory after another, its round-0 files and temporaries in random
 * order; each later round deletes D = max(plan files of the round,
 * round(c x files)) random live temporaries (all of them in the last
 * round) and creates the round's plan files and D - (those) temporaries,
 * the operations in random order (stream "age.ops").  A temporary's size
 * is drawn from the plan's size model (stream "age.size"), scaled as the
 * plan scaled its own sizes when both files and used were given (by the
 * plan's mean over the model's), capped at the plan's largest file (the
 * plan's own sizes when it has no model); it lives in the directory of a
 * random plan file ("age.dir").  So the live
 * population stays at the plan's count, the survivors are exactly the
 * plan's files, and conditioned on that, which files die when is what
 * uniform random deletion gives.
 *
 * The allocator follows Linux's ext4 mballoc (6.x) in its main policies:
 *
 * - Free space is a buddy system per block group, as mballoc keeps it:
 *   level k marks the aligned 2^k-block chunks (from the group's start)
 *   that are wholly free, up to order min(block bits + 1, log2 group).
 * - Directories: Orlov over flex groups (groups without flex_bg).  A
 *   top-level directory takes, from a seeded start (stream "age.orlov"),
 *   the flex group with the fewest directories among those with at least
 *   the average free blocks; a deeper one its parent's, or the first
 *   after it with fewer than ndirs/nflex + inodes_per_flex/16 directories
 *   and at least the average free less a quarter of a flex group.  Its
 *   blocks and its slow symlinks' blocks go near the first group of that
 *   flex group (the metadata group).
 * - Goals: a file's inode is in its directory's flex group, so its goal is
 *   the second group of it (the first with fewer than 4 groups per flex,
 *   the directory's group without flex_bg), ext4_inode_to_goal_block().
 * - Small files (at most age_stream_req blocks, mb_stream_req 16) use the
 *   locality group: up to 8 group preallocations of age_group_prealloc
 *   blocks (mb_group_prealloc 512), each consumed from its start; a file
 *   takes the one closest to its goal that holds it, else a new one is
 *   allocated from the goal's group (the one with least left goes when
 *   there are more than 8).
 * - Larger files are stream allocations with an inode preallocation: the
 *   file is allocated window by window, a window being the request
 *   normalised as ext4_mb_normalize_request() does (16 KiB .. 1 MiB by
 *   size class, then 2, 4 and 8 MiB windows aligned in the file, at most a
 *   group); a window continues the previous one in place when the free
 *   run there holds it (the merge-left goal), else the search starts at
 *   the group of the last stream allocation (s_mb_last_group).  The part
 *   of the last window past the file's end is given back (the inode
 *   preallocation is discarded when the file is closed).
 * - The search (linear, as with mb_optimize_scan=0): for a power-of-two
 *   request, the first group (wrapping) with a free buddy of that order or
 *   more, not the first group of a flex group for data, and in it the
 *   first buddy of the smallest such order (CR_POWER2_ALIGNED); then the
 *   groups whose average free extent holds the request (CR_GOAL_LEN_FAST),
 *   the same with the request trimmed by up to three orders, not below
 *   what the file needs (CR_BEST_AVAIL_LEN), the groups with enough free
 *   blocks (CR_GOAL_LEN_SLOW), any group (CR_ANY_FREE).  A group's free
 *   extents are scanned in address order; the smallest that fits is
 *   taken once 10 extents have been seen or at the group's end, and after
 *   200 the largest seen (mb_min_to_scan, mb_max_to_scan): a partial
 *   allocation, whose rest is asked for again.
 * - Directory blocks, symlink blocks and extent-tree (or indirect) blocks
 *   are requests of their exact length near their goal, found whole.
 * - A deleted file's blocks become free space at the next journal commit
 *   (ext4 keeps freed data blocks busy until the transaction that freed
 *   them commits): here at the end of each round, where the replay syncs.
 * - Data never takes the last min(2 %, 4096) free blocks (ext4's
 *   s_resv_clusters, kept for metadata), as far as the plan leaves them.
 * - ENOSPC: a commit, then the locality group's preallocations are
 *   discarded, and the request tried again (ext4_should_retry_alloc); a
 *   temporary that still finds no room is never created (counted as
 *   dropped); a plan file deletes random temporaries until it fits
 *   (counted as forced).
 *
 * Limits, documented in doc/model.md: no delayed-allocation timing (a
 * file is allocated when created, as if written and synced while open:
 * with writeback after close the kernel neither normalises nor
 * preallocates large files); commits only between rounds (the kernel
 * also commits every 5 s); one CPU (one locality group, one stream
 * goal, where Linux 6.17+ keeps one per CPU or inode hash); the scan
 * order is the linear one of mb_optimize_scan=0; inode tables, inode
 * counts (only estimated, for Orlov's directory limit) and the journal
 * are not modelled; directories are never deleted and get their final
 * size when made; no multi-block preallocation discard timing, no
 * stripe, no bigalloc.
 */

#define MB_MIN_TO_SCAN 10
#define MB_MAX_TO_SCAN 200
#define LG_MAX_PAS 8
#define MAX_LEVELS 40

struct mb {
	uint64_t fdb, nblocks;
	uint32_t bpg, ngroups, flex, nflex;
	unsigned K; /* highest buddy order */
	size_t lvoff[MAX_LEVELS], lvwords[MAX_LEVELS];
	size_t gwords;	 /* words a group's levels take */
	uint64_t *bits;	 /* free bits: group by group, level by level */
	uint32_t *cnt;	 /* wholly free chunks per group and level */
	uint32_t *frags; /* free extents per group (bb_fragments) */
	uint64_t *ffree; /* free blocks per flex group */
	uint64_t free;
	size_t tsize;
	int8_t *tmax; /* over groups: highest level with a free chunk, -1 none */
	uint32_t last_group;
};

struct ex {
	uint64_t s, n;
};

/* A group preallocation of the locality group. */
struct pa {
	uint64_t cur, end, seq;
};

/* A file's placement: its runs (first inline) and mapping metadata. */
struct fobj {
	struct ex r0;
	struct ex *more;
	uint32_t nmore, nmeta;
	uint64_t meta;
};

/* Runs being gathered for one file, merged as they come. */
struct runs {
	struct ex *r;
	size_t n, cap;
};

struct sim {
	const struct layout_request *rq;
	const struct plan *pl;
	struct mb m;
	uint64_t max_ext;

	struct pa pa[LG_MAX_PAS + 1];
	unsigned npa;
	uint64_t pa_seq;

	uint32_t *dgrp;	   /* directory -> its inode's group */
	uint32_t *fdirs;   /* flex group -> directories */
	uint64_t ndirs;
	uint64_t ipf;	   /* inodes per flex group (estimated) */
	struct runs rs;

	struct runs pend;  /* freed, reusable after the next commit */

	struct fobj *pf;   /* plan files */
	struct fobj *tf;   /* temporary slots */
	uint64_t *tbytes;  /* size of the temporary in a slot */
	uint64_t *tid;     /* id of the temporary in a slot */
	uint32_t *tdir;
	uint32_t *tfree;   /* free slots */
	uint32_t *live;    /* live temporaries (slots) */
	uint64_t ntf, ntfree, nlive, cap_t;

	struct rng rdel;
	uint64_t next_tid, max_bytes;
	uint64_t resv; /* blocks data may not take (ext4's s_resv_clusters) */
	double scale; /* temporaries' sizes: the size model times this; 0: the plan's sizes */
	uint64_t kdir, ksize;
	uint64_t temps, dropped, forced;
	const struct age_trace *trace;
};

static unsigned ilog2(uint64_t x)
{
	return 63 - (unsigned)__builtin_clzll(x);
}

/* ---- the buddy model ---- */

static uint64_t g_start(const struct mb *m, uint32_t g)
{
	return m->fdb + (uint64_t)g * m->bpg;
}

static uint32_t g_len(const struct mb *m, uint32_t g)
{
	uint64_t s = g_start(m, g);

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

static void t_set(struct mb *m, uint32_t g, int8_t v)
{
	size_t k = m->tsize + g;

	m->tmax[k] = v;
	for (k >>= 1; k; k >>= 1) {
		int8_t a = m->tmax[2 * k], b = m->tmax[2 * k + 1], x = a > b ? a : b;

		if (m->tmax[k] == x)
			break;
		m->tmax[k] = x;
	}
}

static int64_t t_find(const struct mb *m, size_t k, size_t kl, size_t kr, size_t lo, size_t hi,
		      int v)
{
	size_t mid;
	int64_t r;

	if (kr <= lo || hi <= kl || m->tmax[k] < v)
		return -1;
	if (kr - kl == 1)
		return (int64_t)kl;
	mid = kl + (kr - kl) / 2;
	r = t_find(m, 2 * k, kl, mid, lo, hi, v);
	if (r >= 0)
		return r;
	return t_find(m, 2 * k + 1, mid, kr, lo, hi, v);
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
		int64_t g = it->next < hi ? t_find(m, 1, 0, m->tsize, it->next, hi, v) : -1;

		if (g >= 0) {
			it->next = (size_t)g + 1;
			return g;
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
	t_set(m, g, (int8_t)top);
}

/* Mark n blocks from s (any groups) free or used. */
static void mb_mark(struct mb *m, uint64_t s, uint64_t n, int fr)
{
	while (n) {
		uint32_t g = (uint32_t)((s - m->fdb) / m->bpg), off = (uint32_t)(s - g_start(m, g));
		uint32_t take = (uint32_t)min_u64(n, g_len(m, g) - off);

		mb_mark_group(m, g, off, take, fr);
		s += take;
		n -= take;
	}
}

static uint32_t mb_group_of(const struct mb *m, uint64_t b)
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

/* Free blocks from b on within its group, up to limit. */
static uint64_t mb_run_at(const struct mb *m, uint64_t b, uint64_t limit)
{
	uint32_t g, off, len, e;

	if (b < m->fdb || b >= m->nblocks)
		return 0;
	g = mb_group_of(m, b);
	off = (uint32_t)(b - g_start(m, g));
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
		x.s = g_start(m, g) + s;
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

/*
 * Find room for a request of L blocks (o of them needed, o <= L) from
 * group g0, as ext4_mb_regular_allocator does without mb_optimize_scan
 * (see the top of the file); data requests keep out of the first group
 * of a flex group in the buddy pass.  Sets *out to a start and a length
 * of at most L: at least o unless the free space is too broken (a partial
 * allocation).  Returns 0 or -ENOSPC.
 */
static int mb_search(const struct mb *m, uint32_t g0, uint64_t L, uint64_t o, int data,
		     struct ex *out)
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
					out->s = g_start(m, (uint32_t)g) +
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

/* n blocks in one piece near group g0 (directories, symlinks, metadata). */
static int mb_alloc_whole(struct mb *m, uint32_t g0, uint64_t n, uint64_t *start)
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
					e.s = g_start(m, (uint32_t)g) + s;
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

static int mb_init(struct mb *m, const struct freemap *fm, uint32_t block_size)
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
	m->tsize = 1;
	while (m->tsize < m->ngroups)
		m->tsize <<= 1;
	m->tmax = malloc(2 * m->tsize);
	if (!m->bits || !m->cnt || !m->frags || !m->ffree || !m->tmax)
		return -ENOMEM;
	memset(m->tmax, -1, 2 * m->tsize);
	return 0;
}

static void mb_release(struct mb *m)
{
	free(m->bits);
	free(m->cnt);
	free(m->frags);
	free(m->ffree);
	free(m->tmax);
	memset(m, 0, sizeof(*m));
}

/* ---- files ---- */

static int runs_add(struct runs *rs, uint64_t p, uint64_t n)
{
	if (rs->n && rs->r[rs->n - 1].s + rs->r[rs->n - 1].n == p) {
		rs->r[rs->n - 1].n += n;
		return 0;
	}
	if (rs->n == rs->cap) {
		size_t cap = rs->cap ? 2 * rs->cap : 64;
		struct ex *r = realloc(rs->r, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		rs->r = r;
		rs->cap = cap;
	}
	rs->r[rs->n].s = p;
	rs->r[rs->n].n = n;
	rs->n++;
	return 0;
}

/* Give back every run gathered so far (a failed allocation). */
static void runs_undo(struct sim *s)
{
	for (size_t i = 0; i < s->rs.n; i++)
		mb_mark(&s->m, s->rs.r[i].s, s->rs.r[i].n, 1);
	s->rs.n = 0;
}

static void pa_drop(struct sim *s, unsigned i)
{
	struct pa *p = &s->pa[i];

	if (p->end > p->cur)
		mb_mark(&s->m, p->cur, p->end - p->cur, 1);
	s->pa[i] = s->pa[--s->npa];
}

static void pa_discard_all(struct sim *s)
{
	while (s->npa)
		pa_drop(s, 0);
}

/* Data goal group of a file in directory j. */
static uint32_t goal_group(const struct sim *s, uint32_t j)
{
	uint32_t g = s->dgrp[j], flex = s->m.flex;

	if (flex >= 4) {
		g &= ~(flex - 1);
		if (g + 1 < s->m.ngroups)
			g++;
	}
	return g;
}

/* A small file through the locality group. */
static int alloc_small(struct sim *s, uint64_t n, uint32_t j)
{
	uint32_t g = goal_group(s, j);
	uint64_t goal = g_start(&s->m, g), best = UINT64_MAX, L;
	unsigned pick = UINT_MAX;
	struct ex e;
	int ret;

	for (unsigned i = 0; i < s->npa; i++) {
		uint64_t d;

		if (s->pa[i].end - s->pa[i].cur < n)
			continue;
		d = s->pa[i].cur > goal ? s->pa[i].cur - goal : goal - s->pa[i].cur;
		if (d < best) {
			best = d;
			pick = i;
		}
	}
	if (pick == UINT_MAX) {
		L = s->rq->age_group_prealloc ? s->rq->age_group_prealloc : 512;
		if (L < n)
			L = n;
		if (L > s->m.bpg)
			L = s->m.bpg;
		ret = mb_search(&s->m, g, L, n, 1, &e);
		if (ret)
			return ret;
		mb_mark(&s->m, e.s, e.n, 0);
		if (e.n < n) {
			/* a partial allocation: the rest as a plain request */
			uint64_t left = n - e.n;

			ret = runs_add(&s->rs, e.s, e.n);
			while (!ret && left) {
				ret = mb_search(&s->m, mb_group_of(&s->m, e.s), left, left, 1,
						&e);
				if (ret)
					break;
				mb_mark(&s->m, e.s, e.n, 0);
				ret = runs_add(&s->rs, e.s, e.n);
				left -= e.n;
			}
			return ret;
		}
		if (s->npa == LG_MAX_PAS) {
			/* the list is full: the preallocation with least left goes */
			unsigned v = 0;

			for (unsigned i = 1; i < s->npa; i++) {
				uint64_t fi = s->pa[i].end - s->pa[i].cur;
				uint64_t fv = s->pa[v].end - s->pa[v].cur;

				if (fi < fv || (fi == fv && s->pa[i].seq < s->pa[v].seq))
					v = i;
			}
			pa_drop(s, v);
		}
		pick = s->npa++;
		s->pa[pick].cur = e.s;
		s->pa[pick].end = e.s + e.n;
		s->pa[pick].seq = s->pa_seq++;
	}
	ret = runs_add(&s->rs, s->pa[pick].cur, n);
	s->pa[pick].cur += n;
	if (!ret && s->pa[pick].cur == s->pa[pick].end)
		pa_drop(s, pick);
	return ret;
}

/* The normalised request (window) of a file of n blocks, as ext4_mb_normalize_request. */
static uint64_t window_of(const struct sim *s, uint64_t n)
{
	uint64_t bs = s->rq->block_size, bytes = n * bs, w;

	if (bytes <= 16 << 10)
		w = 16 << 10;
	else if (bytes <= 1 << 20)
		w = UINT64_C(1) << (ilog2(bytes - 1) + 1);
	else if (bytes <= 4 << 20)
		w = 2 << 20;
	else if (bytes <= 8 << 20)
		w = 4 << 20;
	else
		w = 8 << 20;
	w /= bs;
	if (w < 1)
		w = 1;
	if (w > s->m.bpg)
		w = s->m.bpg;
	return w;
}

/* A larger file, window by window, as a stream allocation. */
static int alloc_stream(struct sim *s, uint64_t n)
{
	uint64_t W = window_of(s, n), done = 0, prev_end = UINT64_MAX;
	int ret;

	while (done < n) {
		uint64_t L = W - done % W, o = min_u64(L, n - done);
		struct ex e;

		if (prev_end != UINT64_MAX && mb_run_at(&s->m, prev_end, L) >= L) {
			e.s = prev_end;
			e.n = o;
		} else {
			ret = mb_search(&s->m, s->m.last_group, L, o, 1, &e);
			if (ret)
				return ret;
			e.n = min_u64(e.n, o);
		}
		mb_mark(&s->m, e.s, e.n, 0);
		s->m.last_group = mb_group_of(&s->m, e.s);
		ret = runs_add(&s->rs, e.s, e.n);
		if (ret)
			return ret;
		done += e.n;
		prev_end = e.s + e.n;
	}
	return 0;
}

/*
 * Allocate file f (UINT64_MAX: a temporary) of n blocks in directory j
 * into *o: data, then its mapping metadata.  On -ENOSPC nothing stays allocated.
 */
static int alloc_file(struct sim *s, struct fobj *o, uint64_t f, uint64_t n, uint32_t j)
{
	const struct layout_request *rq = s->rq;
	uint64_t E = 0, nmeta, meta = 0;
	int ret;

	memset(o, 0, sizeof(*o));
	if (!n)
		return 0;
	s->rs.n = 0;
	if (n <= rq->age_stream_req)
		ret = alloc_small(s, n, j);
	else
		ret = alloc_stream(s, n);
	if (ret) {
		runs_undo(s);
		return ret;
	}
	for (size_t i = 0; i < s->rs.n; i++)
		E += ext_count(s->max_ext, s->rs.r[i].n);
	nmeta = layout_file_meta(rq, f, n, E);
	if (nmeta) {
		ret = mb_alloc_whole(&s->m, mb_group_of(&s->m, s->rs.r[0].s), nmeta, &meta);
		if (ret) {
			runs_undo(s);
			return ret;
		}
	}
	o->r0 = s->rs.r[0];
	if (s->rs.n > 1) {
		o->more = malloc((s->rs.n - 1) * sizeof(*o->more));
		if (!o->more) {
			runs_undo(s);
			if (nmeta)
				mb_mark(&s->m, meta, nmeta, 1);
			return -ENOMEM;
		}
		memcpy(o->more, s->rs.r + 1, (s->rs.n - 1) * sizeof(*o->more));
		o->nmore = (uint32_t)(s->rs.n - 1);
	}
	o->meta = meta;
	o->nmeta = (uint32_t)nmeta;
	return 0;
}

/* A deleted file's blocks wait for the journal commit (ext4 does not reuse them before). */
static int free_file(struct sim *s, struct fobj *o)
{
	int ret = 0;

	if (o->r0.n)
		ret = runs_add(&s->pend, o->r0.s, o->r0.n);
	for (uint32_t i = 0; i < o->nmore && !ret; i++)
		ret = runs_add(&s->pend, o->more[i].s, o->more[i].n);
	if (o->nmeta && !ret)
		ret = runs_add(&s->pend, o->meta, o->nmeta);
	free(o->more);
	memset(o, 0, sizeof(*o));
	return ret;
}

/* The commit: what deleted files held is free space again.  Returns whether there was any. */
static int commit(struct sim *s)
{
	int any = s->pend.n != 0;

	for (size_t i = 0; i < s->pend.n; i++)
		mb_mark(&s->m, s->pend.r[i].s, s->pend.r[i].n, 1);
	s->pend.n = 0;
	return any;
}

static int trace_op(struct sim *s, enum age_op_kind kind, uint32_t round, int temp, uint64_t id,
		    uint32_t dir, uint64_t bytes)
{
	struct age_op op = { kind, round, temp, id, dir, bytes };

	if (!s->trace || !s->trace->op)
		return 0;
	return s->trace->op(s->trace->ctx, &op);
}

/* ---- directories (Orlov) ---- */

static int make_dir(struct sim *s, uint32_t j)
{
	const struct plan *pl = s->pl;
	const struct layout_request *rq = s->rq;
	const struct mb *m = &s->m;
	uint32_t fg = 0, nflex = m->nflex;
	uint64_t avg = m->free / nflex;

	if (j && pl->dir_depth[j] <= 1) {
		struct rng r;
		uint32_t start, best_nd = UINT32_MAX, most = 0;
		int found = 0;

		rng_init(&r, rq->seed, "age.orlov", j);
		start = (uint32_t)rng_below(&r, nflex);
		for (uint32_t i = 0; i < nflex; i++) {
			uint32_t f = (start + i) % nflex;

			if (m->ffree[f] > m->ffree[most])
				most = f;
			if (s->fdirs[f] >= best_nd || m->ffree[f] < avg)
				continue;
			fg = f;
			best_nd = s->fdirs[f];
			found = 1;
		}
		if (!found)
			fg = most;
	} else if (j) {
		uint32_t pf = s->dgrp[pl->dir_parent[j]] / m->flex;
		uint64_t quarter = (uint64_t)m->bpg * m->flex / 4;
		uint64_t min_free = avg > quarter ? avg - quarter : 0;
		uint64_t max_dirs = s->ndirs / nflex + s->ipf / 16;

		fg = pf;
		for (uint32_t i = 0; i < nflex; i++) {
			uint32_t f = (pf + i) % nflex;

			if (s->fdirs[f] >= max_dirs || m->ffree[f] < min_free)
				continue;
			fg = f;
			break;
		}
	}
	s->dgrp[j] = fg * m->flex;
	s->fdirs[fg]++;
	s->ndirs++;
	return trace_op(s, AGE_MKDIR, 0, 0, j, j, 0) ? -ECANCELED : 0;
}

/* ---- the churn ---- */

static int del_temp(struct sim *s, uint32_t round);

/*
 * After -ENOSPC for something the plan needs: the locality group's
 * preallocations go first, then random temporaries (counted as forced).
 * Returns 0 to try again, -ENOSPC when nothing is left to free.
 */
static int make_room(struct sim *s, uint32_t round)
{
	if (commit(s))
		return 0;
	if (s->npa) {
		pa_discard_all(s);
		return 0;
	}
	if (!s->nlive)
		return -ENOSPC;
	s->forced++;
	return del_temp(s, round);
}

/* n blocks in one piece for the plan, room made as needed. */
static int plan_whole(struct sim *s, uint32_t g0, uint64_t n, uint64_t *start)
{
	int ret;

	while ((ret = mb_alloc_whole(&s->m, g0, n, start)) == -ENOSPC) {
		ret = make_room(s, 0);
		if (ret)
			return ret;
	}
	return ret;
}

/* A directory's blocks and its slow symlinks' blocks, near its group. */
static int dir_blocks_place(struct sim *s, struct layout *lo, uint32_t j)
{
	const struct layout_request *rq = s->rq;
	const struct plan *pl = s->pl;
	uint64_t nb = rq->dir_blocks ? rq->dir_blocks[j] : 0;
	int ret;

	if (nb) {
		ret = plan_whole(s, s->dgrp[j], nb, &lo->dir_start[j]);
		if (ret)
			return ret;
	}
	for (uint32_t c = 0; c < pl->dir_nlinks[j]; c++) {
		uint32_t l = pl->dir_first_link[j] + c;

		if (!rq->link_blocks || !rq->link_blocks[l])
			continue;
		ret = plan_whole(s, s->dgrp[j], 1, &lo->link_block[l]);
		if (ret)
			return ret;
	}
	return 0;
}

static uint64_t blocks_of(const struct sim *s, uint64_t bytes)
{
	return div_up(bytes, s->rq->block_size);
}

/* Delete a random live temporary. */
static int del_temp(struct sim *s, uint32_t round)
{
	uint64_t i, t;

	if (!s->nlive)
		return 0;
	i = rng_below(&s->rdel, s->nlive);
	t = s->live[i];
	s->live[i] = s->live[--s->nlive];
	if (free_file(s, &s->tf[t]))
		return -ENOMEM;
	s->tfree[s->ntfree++] = (uint32_t)t;
	return trace_op(s, AGE_UNLINK, round, 1, s->tid[t], s->tdir[t], s->tbytes[t]) ? -ECANCELED :
										 0;
}

/* Create a temporary of its drawn size in a random directory; dropped when no room. */
static int new_temp(struct sim *s, uint32_t round, int has_dir, uint32_t dir)
{
	const struct plan *pl = s->pl;
	uint64_t id = s->next_tid++, bytes, t;
	struct rng r;
	int ret;

	if (!has_dir) {
		rng_open(&r, s->kdir, id);
		dir = pl->nfiles ? pl->file_dir[rng_below(&r, pl->nfiles)] : 0;
	}
	rng_open(&r, s->ksize, id);
	if (s->scale > 0)
		bytes = (uint64_t)floor((double)size_model_bytes(&pl->size, rng_uniform(&r)) *
					s->scale);
	else
		bytes = pl->nfiles ? pl->file_size[rng_below(&r, pl->nfiles)] : 0;
	if (bytes > s->max_bytes)
		bytes = s->max_bytes;
	if (!s->ntfree) {
		if (s->ntf == s->cap_t)
			return -ENOMEM;
		s->tfree[s->ntfree++] = (uint32_t)s->ntf++;
	}
	t = s->tfree[s->ntfree - 1];
	/* not even the blocks are free: no use trying */
	if (s->m.free < blocks_of(s, bytes) + 1 + s->resv) {
		commit(s);
		if (s->m.free < blocks_of(s, bytes) + 1 + s->resv)
			pa_discard_all(s);
	}
	ret = -ENOSPC;
	if (s->m.free >= blocks_of(s, bytes) + 1 + s->resv) {
		ret = alloc_file(s, &s->tf[t], UINT64_MAX, blocks_of(s, bytes), dir);
		if (ret == -ENOSPC && (s->pend.n || s->npa)) {
			/* as ext4_should_retry_alloc: commit, drop preallocations, once more */
			commit(s);
			pa_discard_all(s);
			ret = alloc_file(s, &s->tf[t], UINT64_MAX, blocks_of(s, bytes), dir);
		}
	}
	if (ret == -ENOSPC) {
		s->dropped++;
		return 0;
	}
	if (ret)
		return ret;
	s->ntfree--;
	s->tbytes[t] = bytes;
	s->tid[t] = id;
	s->tdir[t] = dir;
	s->live[s->nlive++] = (uint32_t)t;
	s->temps++;
	return trace_op(s, AGE_CREATE, round, 1, id, dir, bytes) ? -ECANCELED : 0;
}

/* Create plan file f; temporaries make room when it does not fit. */
static int new_plan_file(struct sim *s, uint64_t f, uint32_t round)
{
	const struct plan *pl = s->pl;
	uint64_t n = layout_file_blocks(s->rq, f);
	int ret;

	/* room for the blocks and a guess at the metadata before any attempt */
	while (s->m.free < n + n / 256 + 1 + s->resv) {
		ret = make_room(s, round);
		if (ret)
			return ret;
	}
	while ((ret = alloc_file(s, &s->pf[f], f, n, pl->file_dir[f])) == -ENOSPC) {
		ret = make_room(s, round);
		if (ret)
			return ret;
	}
	if (ret)
		return ret;
	return trace_op(s, AGE_CREATE, round, 0, f, pl->file_dir[f], pl->file_size[f]) ?
		       -ECANCELED :
		       0;
}

/* The result, in the layout's terms. */
static int assemble(struct sim *s, struct layout *lo)
{
	const struct plan *pl = s->pl;
	uint64_t next = 0;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		next += s->pf[f].r0.n ? 1 + s->pf[f].nmore : 0;
	lo->ext = calloc(next ? next : 1, sizeof(*lo->ext));
	if (!lo->ext)
		return -ENOMEM;
	next = 0;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		const struct fobj *o = &s->pf[f];

		lo->file_ext[f] = next;
		if (!o->r0.n)
			continue;
		lo->ext[next].pblk = o->r0.s;
		lo->ext[next++].len = o->r0.n;
		for (uint32_t i = 0; i < o->nmore; i++) {
			struct layout_extent *prev = &lo->ext[next - 1];

			if (prev->pblk + prev->len == o->more[i].s) {
				prev->len += o->more[i].n;
			} else {
				lo->ext[next].pblk = o->more[i].s;
				lo->ext[next++].len = o->more[i].n;
			}
		}
		lo->file_meta[f] = o->meta;
		lo->file_nmeta[f] = o->nmeta;
	}
	lo->file_ext[pl->nfiles] = next;
	lo->next = next;
	return 0;
}

int age_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
	      uint64_t *need)
{
	const struct plan *pl = rq->pl;
	uint64_t N = rq->age_rounds, n = pl->nfiles, total_free, base;
	uint64_t *quota = NULL, *rstart = NULL, pool = rq->pool_blocks;
	double c = rq->age_churn > 0 && rq->age_churn <= 1 ? rq->age_churn : 0.1, *prob = NULL;
	uint32_t *rfiles = NULL, *round_of = NULL, *itdir = NULL, *scratch = NULL;
	uint64_t *itstart = NULL;
	uint8_t *kinds = NULL;
	struct layout_need nd;
	struct sim s;
	int ret;

	memset(lo, 0, sizeof(*lo));
	memset(&s, 0, sizeof(s));
	s.rq = rq;
	s.pl = pl;
	s.trace = rq->age_trace;
	s.max_ext = layout_max_ext(rq);

	for (uint64_t f = 0; f < n; f++)
		if (pl->file_size[f] > s.max_bytes)
			s.max_bytes = pl->file_size[f];
	layout_need_count(&nd, rq, fm);
	total_free = nd.free;
	base = nd.base;
	if (need)
		*need = base;
	if (base > total_free)
		return -ENOSPC;

	ret = mb_init(&s.m, fm, rq->block_size);
	if (ret)
		goto out_free;
	{
		/* the free runs, the pool taken off the tail of the last that holds it */
		size_t pr = SIZE_MAX;

		for (size_t i = fm->nruns; pool && i-- > 0;)
			if (fm->runs[i].len >= pool) {
				pr = i;
				break;
			}
		if (pool && pr == SIZE_MAX) {
			ret = -ENOSPC;
			goto out_free;
		}
		for (size_t i = 0; i < fm->nruns; i++) {
			uint64_t st = fm->runs[i].start, len = fm->runs[i].len;

			if (st < s.m.fdb || st + len > fm->nblocks || st + len < st) {
				ret = -EINVAL;
				goto out_free;
			}
			if (i == pr) {
				len -= pool;
				lo->pool_start = st + len;
				lo->pool_len = pool;
			}
			if (len)
				mb_mark(&s.m, st, len, 1);
		}
	}

	ret = layout_arrays_alloc(lo, pl);
	if (ret)
		goto out_free;
	s.pf = calloc(n ? n : 1, sizeof(*s.pf));
	s.dgrp = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*s.dgrp));
	s.fdirs = calloc(s.m.nflex, sizeof(*s.fdirs));
	s.cap_t = 2 * n + 2;
	s.tf = calloc(s.cap_t, sizeof(*s.tf));
	s.tbytes = calloc(s.cap_t, sizeof(*s.tbytes));
	s.tid = calloc(s.cap_t, sizeof(*s.tid));
	s.tdir = calloc(s.cap_t, sizeof(*s.tdir));
	s.tfree = calloc(s.cap_t, sizeof(*s.tfree));
	s.live = calloc(s.cap_t, sizeof(*s.live));
	prob = calloc(N + 1, sizeof(*prob));
	quota = calloc(N + 1, sizeof(*quota));
	rstart = calloc(N + 2, sizeof(*rstart));
	round_of = calloc(n ? n : 1, sizeof(*round_of));
	rfiles = calloc(n ? n : 1, sizeof(*rfiles));
	if (!s.pf || !s.dgrp || !s.fdirs || !s.tf || !s.tbytes || !s.tid ||
	    !s.tdir || !s.tfree || !s.live || !prob || !quota || !rstart || !round_of || !rfiles) {
		ret = -ENOMEM;
		goto out_free;
	}
	s.ipf = (uint64_t)s.m.bpg * rq->block_size / 16384 * s.m.flex;
	if (!s.ipf)
		s.ipf = 1;
	/* a plan given both files and used scaled its sizes: so are the temporaries' */
	if (pl->size.sigma > 0 && pl->size.mean > 0 && n) {
		s.scale = 1;
		if (rq->age_scaled_sizes)
			s.scale = (double)pl->bytes / ((double)n * pl->size.mean);
	}
	/* ext4 keeps min(2 %, 4096) clusters for metadata: data cannot have them */
	s.resv = min_u64(fm->nblocks / 50, 4096);
	if (s.resv > total_free - base)
		s.resv = total_free - base;
	s.kdir = rng_stream_key(rq->seed, "age.dir");
	s.ksize = rng_stream_key(rq->seed, "age.size");
	rng_init(&s.rdel, rq->seed, "age.del", 0);

	/* the round each plan file is created in */
	prob[0] = pow(1 - c, (double)N);
	for (uint64_t r = 1; r <= N; r++)
		prob[r] = c * pow(1 - c, (double)(N - r));
	quotas_from_probs(prob, N + 1, n, quota);
	for (uint64_t f = 0; f < n; f++)
		rfiles[f] = (uint32_t)f;
	rng_shuffle_u32(rfiles, n, rng_stream_key(rq->seed, "age.round"), 0);
	for (uint64_t r = 0, k = 0; r <= N; r++) {
		rstart[r] = k;
		for (uint64_t q = 0; q < quota[r]; q++)
			round_of[rfiles[k++]] = (uint32_t)r;
	}
	rstart[N + 1] = n;

	/* round 0: the tree, then each directory's files and temporaries */
	ret = trace_op(&s, AGE_ROUND, 0, 0, 0, 0, 0) ? -ECANCELED : 0;
	if (ret)
		goto out_free;
	{
		uint64_t t0 = n - quota[0], maxd = 0;
		struct rng r;

		itdir = calloc(t0 ? t0 : 1, sizeof(*itdir));
		itstart = calloc((uint64_t)pl->ndirs + 1, sizeof(*itstart));
		if (!itdir || !itstart) {
			ret = -ENOMEM;
			goto out_free;
		}
		/* the initial temporaries' directories, counted by directory */
		for (uint64_t i = 0; i < t0; i++) {
			rng_open(&r, s.kdir, i);
			itdir[i] = n ? pl->file_dir[rng_below(&r, n)] : 0;
			itstart[itdir[i] + 1]++;
		}
		for (uint32_t j = 0; j < pl->ndirs; j++) {
			uint64_t here = itstart[j + 1] + pl->dir_nfiles[j];

			if (here > maxd)
				maxd = here;
			itstart[j + 1] += itstart[j];
		}
		scratch = calloc(maxd + 1, sizeof(*scratch));
		if (!scratch) {
			ret = -ENOMEM;
			goto out_free;
		}
		for (uint32_t j = 0; j < pl->ndirs; j++) {
			uint64_t k = 0, nt = itstart[j + 1] - itstart[j];

			ret = make_dir(&s, j);
			if (!ret)
				ret = dir_blocks_place(&s, lo, j);
			if (ret)
				goto out_free;
			/* entries: plan file ids, or UINT32_MAX for a temporary */
			for (uint32_t i = 0; i < pl->dir_nfiles[j]; i++)
				if (!round_of[pl->dir_first_file[j] + i])
					scratch[k++] = pl->dir_first_file[j] + i;
			for (uint64_t i = 0; i < nt; i++)
				scratch[k++] = UINT32_MAX;
			rng_shuffle_u32(scratch, k, rng_stream_key(rq->seed, "age.ops"),
					(uint64_t)UINT32_MAX + j);
			for (uint64_t i = 0; i < k && !ret; i++)
				ret = scratch[i] == UINT32_MAX ? new_temp(&s, 0, 1, j) :
								 new_plan_file(&s, scratch[i], 0);
			if (ret)
				goto out_free;
		}
		/* the initial temporaries took ids 0..t0-1 in directory order */
	}

	/* rounds 1..N */
	{
		uint64_t maxops = 0;

		for (uint64_t r = 1; r <= N; r++) {
			uint64_t d = (uint64_t)llround(c * (double)n);

			if (d < quota[r])
				d = quota[r];
			if (d > maxops)
				maxops = d;
		}
		kinds = malloc(2 * maxops + 2);
		if (!kinds && maxops) {
			ret = -ENOMEM;
			goto out_free;
		}
	}
	for (uint64_t r = 1; r <= N; r++) {
		uint64_t D = (uint64_t)llround(c * (double)n), T = s.nlive, nk = 0, pi = rstart[r];
		uint64_t C;
		struct rng ro;

		/* a round ends with a commit (the replay syncs the file system there) */
		commit(&s);
		ret = trace_op(&s, AGE_ROUND, (uint32_t)r, 0, r, 0, 0) ? -ECANCELED : 0;
		if (ret)
			goto out_free;
		if (D < quota[r])
			D = quota[r];
		if (D > T || r == N)
			D = T;
		C = D > quota[r] ? D - quota[r] : 0;
		for (uint64_t i = 0; i < D; i++)
			kinds[nk++] = 0;
		for (uint64_t i = 0; i < quota[r]; i++)
			kinds[nk++] = 1;
		for (uint64_t i = 0; i < C; i++)
			kinds[nk++] = 2;
		rng_init(&ro, rq->seed, "age.ops", r);
		for (uint64_t i = nk; i > 1; i--) {
			uint64_t x = rng_below(&ro, i);
			uint8_t t = kinds[i - 1];

			kinds[i - 1] = kinds[x];
			kinds[x] = t;
		}
		for (uint64_t i = 0; i < nk && !ret; i++) {
			if (kinds[i] == 0)
				ret = del_temp(&s, (uint32_t)r);
			else if (kinds[i] == 1)
				ret = new_plan_file(&s, rfiles[pi++], (uint32_t)r);
			else
				ret = new_temp(&s, (uint32_t)r, 0, 0);
		}
		while (!ret && r == N && s.nlive)
			ret = del_temp(&s, (uint32_t)r);
		if (ret)
			goto out_free;
	}
	/* unmount: the last commit, and the locality group's preallocations go back */
	commit(&s);
	pa_discard_all(&s);

	ret = assemble(&s, lo);
	if (ret)
		goto out_free;
	layout_finish(lo, &nd);
	lo->notes |= LAYOUT_NOTE_AGED;
	lo->target = 1.0;
	if (rq->layout_score < 1.0 || rq->order != ORDER_DIR || rq->frag_file_share > 0 ||
	    rq->frag_extents > 0 || rq->frag_select != FRAG_SELECT_WEIGHTED ||
	    rq->frag_sizes != FRAG_SIZES_RANDOM || rq->free_frag_share > 0)
		lo->notes |= LAYOUT_NOTE_IGNORED;
	lo->age_temps = s.temps;
	lo->age_dropped = s.dropped;
	lo->age_forced = s.forced;

out_free:
	if (ret == -ENOSPC && need && *need <= total_free)
		*need = total_free + 1;
	if (ret)
		layout_release(lo);
	if (s.pf)
		for (uint64_t f = 0; f < n; f++)
			free(s.pf[f].more);
	if (s.tf)
		for (uint64_t t = 0; t < s.ntf; t++)
			free(s.tf[t].more);
	free(s.pf);
	free(s.tf);
	free(s.tbytes);
	free(s.tid);
	free(s.tdir);
	free(s.tfree);
	free(s.live);
	free(s.dgrp);
	free(s.fdirs);
	free(s.rs.r);
	free(s.pend.r);
	free(prob);
	free(quota);
	free(rstart);
	free(round_of);
	free(rfiles);
	free(itdir);
	free(itstart);
	free(scratch);
	free(kinds);
	mb_release(&s.m);
	return ret;
}
