/* age.c - offline aging: create/delete churn on a simulated ext4 allocator (mballoc's policies) */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/age.h"
#include "layout/arith.h"
#include "layout/churn.h"
#include "layout/dirfrag.h"
#include "layout/grow.h"
#include "layout/mballoc.h"
#include "model/dist.h"
#include "util/rng.h"
#include "util/util.h"

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

#define LG_MAX_PAS 8

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
	uint8_t *dpieces;  /* split directories (dirfrag.h): pieces per directory, or NULL */
	uint64_t dlen[DIRFRAG_MAX];
};

/* ---- files ---- */

static int runs_add(struct runs *rs, uint64_t p, uint64_t n)
{
	struct ex *r;

	if (rs->n && rs->r[rs->n - 1].s + rs->r[rs->n - 1].n == p) {
		rs->r[rs->n - 1].n += n;
		return 0;
	}
	r = grow_array(rs->r, &rs->cap, rs->n + 1, sizeof(*r), 64);
	if (!r)
		return -ENOMEM;
	rs->r = r;
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
	uint64_t goal = mb_group_start(&s->m, g), best = UINT64_MAX, L;
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

/*
 * A directory's blocks (the first piece of a split one: s->dlen holds the
 * pieces) and its slow symlinks' blocks, near its group.
 */
static int dir_blocks_place(struct sim *s, struct layout *lo, uint32_t j)
{
	const struct layout_request *rq = s->rq;
	const struct plan *pl = s->pl;
	uint64_t nb = layout_dir_blocks(rq, j), len = nb;
	unsigned k = s->dpieces ? s->dpieces[j] : 1;
	int ret;

	if (nb) {
		if (k >= 2) {
			dirfrag_sizes(rq, j, nb, k, s->dlen);
			len = s->dlen[0];
		}
		ret = plan_whole(s, s->dgrp[j], len, &lo->dir_start[j]);
		if (ret)
			return ret;
		if (lo->dir_ext)
			lo->dext[lo->dir_ext[j]] = (struct layout_extent){ lo->dir_start[j], len };
	}
	for (uint32_t c = 0; c < pl->dir_nlinks[j]; c++) {
		uint32_t l = pl->dir_first_link[j] + c;

		if (!layout_link_blocks(rq, l))
			continue;
		ret = plan_whole(s, s->dgrp[j], 1, &lo->link_block[l]);
		if (ret)
			return ret;
	}
	return 0;
}

/* A split directory's other pieces, once its first entries are made: as it grew. */
static int dir_pieces_place(struct sim *s, struct layout *lo, uint32_t j)
{
	unsigned k = s->dpieces && layout_dir_blocks(s->rq, j) ? s->dpieces[j] : 1;
	int ret;

	for (unsigned i = 1; i < k; i++) {
		struct layout_extent *x = &lo->dext[lo->dir_ext[j] + i];
		uint64_t end = x[-1].pblk + x[-1].len;
		/* a block the kernel would have given another file meanwhile: not right after */
		int hold = end < s->m.nblocks && mb_run_at(&s->m, end, 1) == 1;

		if (hold)
			mb_mark(&s->m, end, 1, 0);
		ret = plan_whole(s, s->dgrp[j], s->dlen[i], &x->pblk);
		if (hold)
			mb_mark(&s->m, end, 1, 1);
		if (ret)
			return ret;
		x->len = s->dlen[i];
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

/* The free runs of fm are free, less the pool taken off the tail of the last run that holds it. */
static int sim_free_space(struct sim *s, struct layout *lo, const struct freemap *fm)
{
	uint64_t pool = s->rq->pool_blocks;
	size_t pr = SIZE_MAX;

	for (size_t i = fm->nruns; pool && i-- > 0;)
		if (fm->runs[i].len >= pool) {
			pr = i;
			break;
		}
	if (pool && pr == SIZE_MAX)
		return -ENOSPC;
	for (size_t i = 0; i < fm->nruns; i++) {
		uint64_t st = fm->runs[i].start, len = fm->runs[i].len;

		if (st < s->m.fdb || st + len > fm->nblocks || st + len < st)
			return -EINVAL;
		if (i == pr) {
			len -= pool;
			lo->pool_start = st + len;
			lo->pool_len = pool;
		}
		if (len)
			mb_mark(&s->m, st, len, 1);
	}
	return 0;
}

/*
 * The simulation's arrays (plan files, directories, temporary slots) and
 * settings: inodes per flex group, the temporaries' size scale, ext4's
 * reserve, the streams.  Returns 0 or -ENOMEM.
 */
static int sim_setup(struct sim *s, const struct freemap *fm, const struct layout_need *nd)
{
	const struct layout_request *rq = s->rq;
	const struct plan *pl = s->pl;
	uint64_t n = pl->nfiles;

	s->pf = calloc(n ? n : 1, sizeof(*s->pf));
	s->dgrp = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*s->dgrp));
	s->fdirs = calloc(s->m.nflex, sizeof(*s->fdirs));
	s->cap_t = 2 * n + 2;
	s->tf = calloc(s->cap_t, sizeof(*s->tf));
	s->tbytes = calloc(s->cap_t, sizeof(*s->tbytes));
	s->tid = calloc(s->cap_t, sizeof(*s->tid));
	s->tdir = calloc(s->cap_t, sizeof(*s->tdir));
	s->tfree = calloc(s->cap_t, sizeof(*s->tfree));
	s->live = calloc(s->cap_t, sizeof(*s->live));
	if (!s->pf || !s->dgrp || !s->fdirs || !s->tf || !s->tbytes || !s->tid || !s->tdir ||
	    !s->tfree || !s->live)
		return -ENOMEM;
	s->ipf = (uint64_t)s->m.bpg * rq->block_size / 16384 * s->m.flex;
	if (!s->ipf)
		s->ipf = 1;
	/* a plan given both files and used scaled its sizes: so are the temporaries' */
	if (pl->size.sigma > 0 && pl->size.mean > 0 && n) {
		s->scale = 1;
		if (rq->age_scaled_sizes)
			s->scale = (double)pl->bytes / ((double)n * pl->size.mean);
	}
	/* ext4 keeps min(2 %, 4096) clusters for metadata: data cannot have them */
	s->resv = min_u64(fm->nblocks / 50, 4096);
	if (s->resv > nd->free - nd->base)
		s->resv = nd->free - nd->base;
	s->kdir = rng_stream_key(rq->seed, "age.dir");
	s->ksize = rng_stream_key(rq->seed, "age.size");
	rng_init(&s->rdel, rq->seed, "age.del", 0);
	return 0;
}

static void sim_release(struct sim *s)
{
	if (s->pf)
		for (uint64_t f = 0; f < s->pl->nfiles; f++)
			free(s->pf[f].more);
	if (s->tf)
		for (uint64_t t = 0; t < s->ntf; t++)
			free(s->tf[t].more);
	FREE_ALL(s->pf, s->tf, s->tbytes, s->tid, s->tdir, s->tfree, s->live, s->dgrp, s->fdirs,
		 s->rs.r, s->pend.r);
	mb_release(&s->m);
}

/* Round 0: the tree, then each directory's round-0 files and temporaries in random order. */
static int round_zero(struct sim *s, struct layout *lo, const struct churn *h)
{
	const struct plan *pl = s->pl;
	uint64_t n = pl->nfiles, t0 = n - h->quota[0], maxd = 0, *itstart = NULL;
	uint32_t *itdir = NULL, *scratch = NULL;
	struct rng r;
	int ret;

	ret = trace_op(s, AGE_ROUND, 0, 0, 0, 0, 0) ? -ECANCELED : 0;
	if (ret)
		return ret;
	itdir = calloc(t0 ? t0 : 1, sizeof(*itdir));
	itstart = calloc((uint64_t)pl->ndirs + 1, sizeof(*itstart));
	ret = -ENOMEM;
	if (!itdir || !itstart)
		goto out_free_scratch;
	/* the initial temporaries' directories, counted by directory */
	for (uint64_t i = 0; i < t0; i++) {
		rng_open(&r, s->kdir, i);
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
	if (!scratch)
		goto out_free_scratch;
	ret = 0;
	for (uint32_t j = 0; j < pl->ndirs && !ret; j++) {
		uint64_t k = 0, nt = itstart[j + 1] - itstart[j];

		ret = make_dir(s, j);
		if (!ret)
			ret = dir_blocks_place(s, lo, j);
		if (ret)
			break;
		/* entries: plan file ids, or UINT32_MAX for a temporary */
		for (uint32_t i = 0; i < pl->dir_nfiles[j]; i++)
			if (!h->round_of[pl->dir_first_file[j] + i])
				scratch[k++] = pl->dir_first_file[j] + i;
		for (uint64_t i = 0; i < nt; i++)
			scratch[k++] = UINT32_MAX;
		rng_shuffle_u32(scratch, k, rng_stream_key(s->rq->seed, "age.ops"),
				(uint64_t)UINT32_MAX + j);
		for (uint64_t i = 0; i < k && !ret; i++)
			ret = scratch[i] == UINT32_MAX ? new_temp(s, 0, 1, j) :
							 new_plan_file(s, scratch[i], 0);
		if (!ret)
			ret = dir_pieces_place(s, lo, j);
	}
	/* the initial temporaries took ids 0..t0-1 in directory order */

out_free_scratch:
	free(itdir);
	free(itstart);
	free(scratch);
	return ret;
}

/*
 * Round r >= 1: after a commit, D deletions, the round's plan files and
 * D - (those) temporaries in random order; the last round deletes every
 * temporary left.
 */
static int round_run(struct sim *s, struct churn *h, uint64_t r)
{
	uint64_t D = (uint64_t)llround(h->c * (double)s->pl->nfiles), T = s->nlive, nk = 0;
	uint64_t C, pi = h->rstart[r], q = h->quota[r];
	uint8_t *kinds = h->kinds;
	struct rng ro;
	int ret;

	/* a round ends with a commit (the replay syncs the file system there) */
	commit(s);
	ret = trace_op(s, AGE_ROUND, (uint32_t)r, 0, r, 0, 0) ? -ECANCELED : 0;
	if (ret)
		return ret;
	if (D < q)
		D = q;
	if (D > T || r == h->N)
		D = T;
	C = D > q ? D - q : 0;
	for (uint64_t i = 0; i < D; i++)
		kinds[nk++] = 0;
	for (uint64_t i = 0; i < q; i++)
		kinds[nk++] = 1;
	for (uint64_t i = 0; i < C; i++)
		kinds[nk++] = 2;
	rng_init(&ro, s->rq->seed, "age.ops", r);
	for (uint64_t i = nk; i > 1; i--) {
		uint64_t x = rng_below(&ro, i);
		uint8_t t = kinds[i - 1];

		kinds[i - 1] = kinds[x];
		kinds[x] = t;
	}
	for (uint64_t i = 0; i < nk && !ret; i++) {
		if (kinds[i] == 0)
			ret = del_temp(s, (uint32_t)r);
		else if (kinds[i] == 1)
			ret = new_plan_file(s, h->rfiles[pi++], (uint32_t)r);
		else
			ret = new_temp(s, (uint32_t)r, 0, 0);
	}
	while (!ret && r == h->N && s->nlive)
		ret = del_temp(s, (uint32_t)r);
	return ret;
}

/* The aged layout's notes and counts. */
static void age_notes(struct layout *lo, const struct layout_request *rq, const struct sim *s)
{
	lo->notes |= LAYOUT_NOTE_AGED;
	lo->target = 1.0;
	if (rq->layout_score < 1.0 || rq->order != ORDER_DIR || rq->frag_file_share > 0 ||
	    rq->frag_extents > 0 || rq->frag_select != FRAG_SELECT_WEIGHTED ||
	    rq->frag_sizes != FRAG_SIZES_RANDOM || rq->free_frag_share > 0)
		lo->notes |= LAYOUT_NOTE_IGNORED;
	lo->age_temps = s->temps;
	lo->age_dropped = s->dropped;
	lo->age_forced = s->forced;
}

int age_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
	      uint64_t *need)
{
	const struct plan *pl = rq->pl;
	struct layout_need nd;
	struct churn h;
	struct sim s;
	int ret;

	memset(lo, 0, sizeof(*lo));
	memset(&s, 0, sizeof(s));
	memset(&h, 0, sizeof(h));
	s.rq = rq;
	s.pl = pl;
	s.trace = rq->age_trace;
	s.max_ext = layout_max_ext(rq);
	h.N = rq->age_rounds;
	h.c = rq->age_churn > 0 && rq->age_churn <= 1 ? rq->age_churn : 0.1;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (pl->file_size[f] > s.max_bytes)
			s.max_bytes = pl->file_size[f];
	layout_need_count(&nd, rq, fm);
	if (need)
		*need = nd.base;
	if (nd.base > nd.free)
		return -ENOSPC;

	ret = mb_init(&s.m, fm, rq->block_size);
	if (!ret)
		ret = sim_free_space(&s, lo, fm);
	if (!ret)
		ret = layout_arrays_alloc(lo, pl);
	if (!ret)
		ret = dirfrag_plan(rq, &s.dpieces);
	if (!ret && s.dpieces)
		ret = dirfrag_alloc(lo, rq, s.dpieces);
	if (!ret)
		ret = sim_setup(&s, fm, &nd);
	if (!ret)
		ret = churn_plan(&h, rq);
	if (!ret)
		ret = round_zero(&s, lo, &h);
	for (uint64_t r = 1; !ret && r <= h.N; r++)
		ret = round_run(&s, &h, r);
	if (ret)
		goto out_free_sim;
	/* unmount: the last commit, and the locality group's preallocations go back */
	commit(&s);
	pa_discard_all(&s);

	ret = assemble(&s, lo);
	if (ret)
		goto out_free_sim;
	if (lo->dir_ext)
		dirfrag_compact(lo, pl->ndirs);
	layout_finish(lo, &nd);
	age_notes(lo, rq, &s);

out_free_sim:
	if (ret == -ENOSPC && need && *need <= nd.free)
		*need = nd.free + 1;
	if (ret)
		layout_release(lo);
	churn_release(&h);
	free(s.dpieces);
	sim_release(&s);
	return ret;
}
