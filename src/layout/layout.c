/* layout.c - block placement: Orlov-like spread, contiguous packing, exact fragmentation */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/age.h"
#include "layout/layout.h"
#include "util/rng.h"

/*
 * How it works.
 *
 * Free space.  The free runs are copied into slots, each consumed from its
 * front only, with a max tree over their free lengths for "first slot from
 * i with at least n free" in O(log slots).  Slots [0, nruns) are the runs
 * in address order; holes left behind when the packing jumps forward are
 * appended after them and used once the space ahead is exhausted.  The
 * pool is reserved first, at the tail of the last run that holds it.
 *
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
 *
 * Packing.  An object goes at the packing cursor if it fits in what is left
 * of the cursor's run.  Otherwise, if the next non-empty run can hold it,
 * the cursor moves there (the tail left behind stays free); if not, the
 * object is big for this region and goes to the first run ahead that holds
 * it whole, the cursor staying put for the small files that follow; then
 * anything behind.  Only when no free slot holds it whole is a file split,
 * longest slot first (fewest breaks): such breaks are unavoidable and are
 * counted.  A file's mapping metadata (extent tree or indirect blocks)
 * sits right before its first data run, in the same allocation; a file
 * that must be split gets its metadata first, while long runs last.
 *
 * Fragmentation.  Every block pair of every file of two or more blocks is
 * equally likely to be broken, so files are chosen weighted by size: the
 * B = round((1 - target) * pairs) breaks are drawn by selection sampling
 * over the pairs in placement order (stream "layout.frag", indexed by
 * file), which makes the total exact.  A file's first piece goes where its
 * whole data would have gone; its other pieces wait in a pool and are
 * placed between the files that follow in the same unit, at a pace that
 * drains the pool by the unit's last file, in rounds of distinct files,
 * most pieces first; so a file's pieces lie near it, with other files'
 * data in the gaps.  A piece is never put right after the file's previous
 * run: it goes to another run, or, when no other free slot can take it,
 * one spare block further, or, as a last resort, adjacent (the break is
 * lost).  Unavoidable and lost breaks are charged to the remaining budget,
 * so later files absorb them.  The score is then measured on the result.
 *
 * Space.  The check before any big allocation counts data, directories,
 * symlinks, the pool and the exact metadata of the fragmented layout (a
 * dry run of the same selection).  A build can still fail with -ENOSPC on
 * a nearly full, shredded free map: a file's metadata blocks must be
 * consecutive, and forced splits add extents; *need is then above the
 * free space.
 *
 * Spread.  With every spread parameter on auto (frag_file_share and
 * frag_extents 0, frag_select weighted, frag_sizes random) the breaks are
 * drawn over all pairs as above.  Otherwise the fragmented files are
 * chosen first (spread_plan): m of the files of two or more blocks, m =
 * frag_file_share x their count, or B / (frag_extents - 1), or on auto the
 * count the pair sampling would touch; in frag_select order (weighted:
 * Efraimidis-Spirakis keys over pairs; random; size: most blocks first;
 * type: growing files, media, archives and binaries, the rest).  Each
 * chosen file wants 1 + Geometric breaks of mean frag_extents - 1 (on
 * auto B / m), at most its pairs; the wants are scaled by one factor so
 * that they sum to B exactly.  The score wins every conflict: too few
 * pairs in the chosen files adds files in the same order (a note says the
 * share gave way), a mean the share cannot hold moves (a note says so).
 * A file's breaks are placed at random (selection sampling over its own
 * pairs), or cut it into pieces of equal or lognormal weights (cumulative
 * rounding, every piece at least one block).  Lost and forced breaks are
 * owed to the next chosen files.
 *
 * Order.  layout_order = dir is the spread above; creation packs the
 * directories in id order (a file's id is its creation order) from the
 * start of the disk with no spread; shuffled packs a seeded permutation of
 * directories and files (stream "layout.order").
 *
 * Gaps.  free_frag_share > 0 leaves free gaps between consecutive files so
 * that the free extents below free_chunk hold that share of the free
 * space: gap sizes follow a density ~ size^-free_gap_shape on
 * [free_gap_min, free_chunk), split into power-of-two buckets by exact
 * block quotas (stream "layout.gaps"), shuffled, and spread evenly over
 * the files.  A gap is skipped at the packing cursor only when the next
 * file fits right after it, so it is bounded by data on both sides and
 * keeps its size.  The build runs again (at most five more times) with
 * the quotas corrected by what the previous build measured per bucket
 * (free extents the packing leaves by itself count too).  Gaps are never
 * handed out, so the image holds only real files.
 *
 * Tiny plans: the score moves in steps of 1 / pairs, so a plan with few
 * pairs gets the nearest reachable value; a file with nothing to interleave
 * with alternates between two free runs; breaks that would need space the
 * image does not have are lost, and the measured score says so.
 *
 * Cost: O((files + pieces) log slots + pairs) time; the result (36 bytes a
 * file, 16 more a break) plus about 16 bytes a break while building.
 */

/* A run beyond a file's first, in placement order, until assembly. */
struct ovf {
	uint64_t pblk;
	uint32_t len;
	uint32_t file;
};

/* How a fragmented file's pieces are cut. */
enum frag_how {
	HOW_PAIRS, /* selection sampling over every pair of the image */
	HOW_LOCAL, /* selection sampling over the file's own pairs */
	HOW_CUMUL, /* cumulative rounding of piece weights (equal, lognormal) */
};

/* The selection-sampling state of a fragmented file, and its next piece. */
struct frag {
	uint64_t file;
	uint64_t left;	   /* pieces still to place */
	uint64_t blocks;   /* blocks not yet given to a piece */
	uint64_t R, S;	   /* breaks and pairs left in the selection */
	uint64_t prev_end; /* block after the file's last placed run */
	struct rng r;
	/* HOW_CUMUL: piece i of P, extra = blocks - P shared by weight */
	uint64_t P, i, extra, given;
	double W, cw, sigma;
	enum frag_how how;
};

/* A first-in first-out ring of waiting files, cap a power of two. */
struct ring {
	struct frag *e;
	size_t cap, head, n;
};

struct alloc {
	size_t nruns;  /* slots [0, nruns) are runs, in address order */
	size_t nslots; /* then the holes left behind */
	size_t cap;
	size_t size; /* tree leaves, a power of two >= cap */
	uint64_t *cur, *end;
	uint64_t *max;	 /* 2 * size nodes: longest free slot below */
	size_t ci;	 /* cursor run, nruns when the space ahead is used up */
	uint64_t leaked; /* blocks skipped or abandoned, never used */
	uint64_t spare;	 /* free blocks beyond what the plan needs */
};

/* Projected free blocks per unit, with a max tree (values may go negative). */
struct units {
	size_t n, size;
	int64_t *t;
};

struct build {
	const struct layout_request *rq;
	const struct plan *pl;
	struct layout *lo;
	struct alloc al;
	uint64_t max_ext;
	int frag;

	struct ovf *ovf;
	size_t novf, ovf_cap;

	uint64_t R, S; /* breaks still to make, pairs still to decide */
	uint64_t key;

	struct ring ring[65]; /* waiting files by class */
	unsigned top;	      /* highest class that may be non-empty */
	struct frag *step;    /* files served in one step */
	size_t step_cap;
	uint64_t pool;	/* pieces waiting */
	uint64_t nwait; /* files waiting */

	uint64_t extra; /* metadata blocks beyond the plan's count */

	/* spread: planned breaks per file, and what later files owe */
	int spread;
	uint32_t *kb;
	int64_t debt;

	/* gaps: sizes in placement order, the next due, files placed so far */
	const uint64_t *gap;
	size_t ngap, gi;
	uint64_t placed, nne, gap_blocks;
	double gap_per_file;
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

uint64_t layout_meta_blocks(enum layout_mapping m, uint32_t block_size, uint64_t blocks,
			    uint64_t extents)
{
	uint64_t level, total, apb, r, d;

	if (m == LAYOUT_EXTENTS) {
		/* 12-byte header, 12-byte entries; the tail checksum fits the slack */
		uint64_t epb = block_size >= 36 ? (block_size - 12) / 12 : 2;

		if (extents <= 4)
			return 0;
		level = div_up(extents, epb);
		total = level;
		while (level > 4) {
			level = div_up(level, epb);
			total += level;
		}
		return total;
	}

	apb = block_size >= 8 ? block_size / 4 : 2;
	if (blocks <= 12)
		return 0;
	r = blocks - 12;
	if (r <= apb)
		return 1;
	r -= apb;
	total = 1;
	d = min_u64(r, apb * apb);
	total += 1 + div_up(d, apb);
	r -= d;
	if (r)
		total += 1 + div_up(r, apb * apb) + div_up(r, apb);
	return total;
}

double layout_score_of(const struct layout *lo)
{
	uint64_t num = 0, den = 0;

	if (!lo->file_ext || !lo->ext)
		return 1.0;
	for (uint64_t f = 0; f < lo->nfiles; f++) {
		uint64_t s = lo->file_ext[f], e = lo->file_ext[f + 1], blocks = 0, adj = 0;

		for (uint64_t i = s; i < e; i++) {
			blocks += lo->ext[i].len;
			if (i > s && lo->ext[i - 1].pblk + lo->ext[i - 1].len == lo->ext[i].pblk)
				adj++;
		}
		if (blocks < 2)
			continue;
		den += blocks - 1;
		num += blocks - (e - s) + adj;
	}
	return den ? (double)num / (double)den : 1.0;
}

/* ---- free space ---- */

static void al_update(struct alloc *a, size_t i)
{
	size_t k = a->size + i;

	a->max[k] = a->end[i] - a->cur[i];
	for (k >>= 1; k; k >>= 1) {
		uint64_t l = a->max[2 * k], r = a->max[2 * k + 1], m = l > r ? l : r;

		if (a->max[k] == m)
			break;
		a->max[k] = m;
	}
}

static size_t al_find(const struct alloc *a, size_t k, size_t kl, size_t kr, size_t lo, size_t hi,
		      uint64_t n)
{
	size_t mid, r;

	if (kr <= lo || hi <= kl || a->max[k] < n)
		return SIZE_MAX;
	if (kr - kl == 1)
		return kl;
	mid = kl + (kr - kl) / 2;
	r = al_find(a, 2 * k, kl, mid, lo, hi, n);
	if (r != SIZE_MAX)
		return r;
	return al_find(a, 2 * k + 1, mid, kr, lo, hi, n);
}

/* First slot in [lo, hi) with at least n (>= 1) free blocks, or SIZE_MAX. */
static size_t al_first(const struct alloc *a, size_t lo, size_t hi, uint64_t n)
{
	if (lo >= hi)
		return SIZE_MAX;
	return al_find(a, 1, 0, a->size, lo, hi, n);
}

static void al_advance(struct alloc *a)
{
	size_t j = al_first(a, a->ci + 1, a->nruns, 1);

	a->ci = j == SIZE_MAX ? a->nruns : j;
}

static uint64_t al_take(struct alloc *a, size_t i, uint64_t n)
{
	uint64_t p = a->cur[i];

	a->cur[i] += n;
	al_update(a, i);
	if (i == a->ci && a->cur[i] == a->end[i])
		al_advance(a);
	return p;
}

/*
 * Copy the free runs (merging touching ones), reserve the pool at the tail
 * of the last run that holds it, and build the tree.  Returns 0, -EINVAL
 * for runs out of order or outside the file system, -ENOSPC when no run
 * holds the pool, -ENOMEM.
 */
static int al_init(struct alloc *a, const struct freemap *fm, size_t nholes, uint64_t pool,
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

	a->size = 1;
	while (a->size < a->cap)
		a->size <<= 1;
	a->max = calloc(2 * a->size, sizeof(*a->max));
	if (!a->max)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		a->max[a->size + i] = a->end[i] - a->cur[i];
	for (size_t k = a->size - 1; k; k--)
		a->max[k] = a->max[2 * k] > a->max[2 * k + 1] ? a->max[2 * k] : a->max[2 * k + 1];
	a->ci = 0;
	if (n && a->cur[0] == a->end[0])
		al_advance(a);
	if (!n)
		a->ci = 0;
	return 0;
}

static void al_release(struct alloc *a)
{
	free(a->cur);
	free(a->end);
	free(a->max);
	memset(a, 0, sizeof(*a));
}

/*
 * Move the packing to goal (a unit's first block) unless it is already
 * there or past it; what is skipped in the cursor's run becomes a hole.
 */
static void al_jump(struct alloc *a, uint64_t goal)
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
			al_update(a, h);
		} else {
			a->leaked += goal - a->cur[r];
		}
		a->cur[r] = goal;
		al_update(a, r);
	}
	a->ci = r;
	if (a->cur[r] == a->end[r])
		al_advance(a);
}

/*
 * n contiguous blocks, not starting at avoid (the block right after the
 * previous run of the same file; UINT64_MAX for none).  Sets *adj when
 * they had to start there after all.  Returns 0 or -ENOSPC.
 */
static int al_contig(struct alloc *a, uint64_t n, uint64_t avoid, uint64_t *pblk, int *adj)
{
	size_t ci = a->ci, j, k, skipped = SIZE_MAX;

	*adj = 0;
	if (ci < a->nruns) {
		if (a->end[ci] - a->cur[ci] >= n) {
			if (a->cur[ci] != avoid) {
				*pblk = al_take(a, ci, n);
				return 0;
			}
			skipped = ci;
		}
		j = al_first(a, ci + 1, a->nruns, n);
		if (j != SIZE_MAX && a->cur[j] == avoid) {
			skipped = j;
			j = al_first(a, j + 1, a->nruns, n);
		}
		if (j != SIZE_MAX) {
			/* a small object moves the cursor on; a big one goes ahead */
			if (skipped == SIZE_MAX) {
				k = al_first(a, ci + 1, a->nruns, 1);
				if (k == j)
					a->ci = j;
			}
			*pblk = al_take(a, j, n);
			return 0;
		}
	}
	j = al_first(a, 0, a->nslots, n);
	if (j != SIZE_MAX && a->cur[j] == avoid) {
		skipped = j;
		j = al_first(a, j + 1, a->nslots, n);
	}
	if (j != SIZE_MAX) {
		*pblk = al_take(a, j, n);
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
	*pblk = al_take(a, skipped, n);
	return 0;
}

/* ---- units (Orlov-like spread) ---- */

static void un_set(struct units *u, size_t i, int64_t v)
{
	size_t k = u->size + i;

	u->t[k] = v;
	for (k >>= 1; k; k >>= 1)
		u->t[k] = u->t[2 * k] > u->t[2 * k + 1] ? u->t[2 * k] : u->t[2 * k + 1];
}

/* Lowest unit holding the maximum. */
static size_t un_argmax(const struct units *u)
{
	size_t k = 1;

	while (k < u->size)
		k = u->t[2 * k] >= u->t[2 * k + 1] ? 2 * k : 2 * k + 1;
	return k - u->size;
}

static size_t un_find(const struct units *u, size_t k, size_t kl, size_t kr, size_t lo, size_t hi,
		      int64_t v)
{
	size_t mid, r;

	if (kr <= lo || hi <= kl || u->t[k] < v)
		return SIZE_MAX;
	if (kr - kl == 1)
		return kl;
	mid = kl + (kr - kl) / 2;
	r = un_find(u, 2 * k, kl, mid, lo, hi, v);
	if (r != SIZE_MAX)
		return r;
	return un_find(u, 2 * k + 1, mid, kr, lo, hi, v);
}

/* First unit in [lo, hi) with at least v projected free blocks, or SIZE_MAX. */
static size_t un_first(const struct units *u, size_t lo, size_t hi, int64_t v)
{
	if (lo >= hi)
		return SIZE_MAX;
	return un_find(u, 1, 0, u->size, lo, hi, v);
}

/* ---- the build ---- */

static uint64_t ext_count(const struct build *b, uint64_t len)
{
	return b->max_ext ? div_up(len, b->max_ext) : 1;
}

static uint64_t file_blocks(const struct layout_request *rq, uint64_t f)
{
	return rq->file_blocks ? rq->file_blocks[f] : 0;
}

static uint64_t dir_blocks(const struct layout_request *rq, uint32_t j)
{
	return rq->dir_blocks ? rq->dir_blocks[j] : 0;
}

static uint64_t link_blocks(const struct layout_request *rq, uint32_t l)
{
	return rq->link_blocks ? rq->link_blocks[l] : 0;
}

uint64_t layout_file_meta(const struct layout_request *rq, uint64_t f, uint64_t n, uint64_t E)
{
	unsigned h = rq->file_holes && f != UINT64_MAX ? rq->file_holes[f] : 0;

	if (!h)
		return layout_meta_blocks(rq->mapping, rq->block_size, n, E);
	if (rq->mapping == LAYOUT_EXTENTS)
		return layout_meta_blocks(rq->mapping, rq->block_size, n, E + h);
	return layout_meta_blocks(rq->mapping, rq->block_size, rq->file_lblocks[f], E);
}

/* Metadata of a contiguous file: the least it can need. */
static uint64_t meta_contig(const struct build *b, uint64_t f, uint64_t n)
{
	if (!n)
		return 0;
	return layout_file_meta(b->rq, f, n, ext_count(b, n));
}

/* A break the layout could not make: give it back to the budget. */
static void b_lost(struct build *b)
{
	if (b->spread)
		b->debt++;
	else if (b->R < b->S)
		b->R++;
}

/* Breaks the free space forced: take them from the budget. */
static void b_forced(struct build *b, uint64_t k)
{
	if (b->spread)
		b->debt -= (int64_t)k;
	else
		b->R = b->R > k ? b->R - k : 0;
}

static int b_record(struct build *b, uint64_t f, uint64_t pblk, uint64_t len, int first)
{
	struct layout *lo = b->lo;

	if (first) {
		lo->ext[lo->file_ext[f]].pblk = pblk;
		lo->ext[lo->file_ext[f]].len = len;
		return 0;
	}
	while (len) {
		uint64_t chunk = min_u64(len, UINT32_MAX);

		if (b->novf == b->ovf_cap) {
			size_t cap = b->ovf_cap ? 2 * b->ovf_cap : 4096;
			struct ovf *o = realloc(b->ovf, cap * sizeof(*o));

			if (!o)
				return -ENOMEM;
			b->ovf = o;
			b->ovf_cap = cap;
		}
		b->ovf[b->novf].pblk = pblk;
		b->ovf[b->novf].len = (uint32_t)chunk;
		b->ovf[b->novf].file = (uint32_t)f;
		b->novf++;
		pblk += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * Place n data blocks of file f: its first piece (first) or the piece after
 * the one ending at *prev_end.  Contiguous when any free slot allows, else
 * split over the longest slots.  Updates *prev_end and the break budget.
 */
static int b_piece(struct build *b, uint64_t f, uint64_t n, uint64_t *prev_end, int first)
{
	uint64_t avoid = first ? UINT64_MAX : *prev_end, p, end = avoid, left = n, breaks = 0;
	uint64_t planned = first ? 0 : 1;
	int adj, ret, chunk0 = 1;

	ret = al_contig(&b->al, n, avoid, &p, &adj);
	if (!ret) {
		if (adj)
			b_lost(b);
		*prev_end = p + n;
		return b_record(b, f, p, n, first);
	}
	while (left) {
		uint64_t m = b->al.max[1], take;
		size_t j;

		if (!m)
			return -ENOSPC;
		j = al_first(&b->al, 0, b->al.nslots, m);
		take = min_u64(m, left);
		p = al_take(&b->al, j, take);
		if (!(first && chunk0) && p != end)
			breaks++;
		ret = b_record(b, f, p, take, first && chunk0);
		if (ret)
			return ret;
		end = p + take;
		left -= take;
		chunk0 = 0;
	}
	if (breaks > planned)
		b_forced(b, breaks - planned);
	else if (breaks < planned)
		b_lost(b);
	*prev_end = end;
	return 0;
}

/* A standard normal draw (Box-Muller, one of the pair). */
static double normal_draw(struct rng *r)
{
	double u = rng_uniform(r), v = rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

static double piece_weight(struct frag *s)
{
	return s->sigma > 0 ? exp(s->sigma * normal_draw(&s->r)) : 1.0;
}

/* Length of the next piece; selection sampling decides each pair. */
static uint64_t frag_next(struct frag *s)
{
	uint64_t len = 1;

	if (s->how == HOW_CUMUL) {
		uint64_t to;

		if (s->i + 1 >= s->P) {
			len = s->blocks;
			s->blocks = 0;
			s->i++;
			return len;
		}
		s->cw += piece_weight(s);
		s->i++;
		to = (uint64_t)floor((double)s->extra * (s->cw / s->W));
		if (to > s->extra)
			to = s->extra;
		if (to < s->given)
			to = s->given;
		len = 1 + to - s->given;
		s->given = to;
		s->blocks -= len;
		return len;
	}
	s->blocks--;
	while (s->blocks) {
		int brk;

		if (!s->R) {
			len += s->blocks;
			s->S -= s->blocks;
			s->blocks = 0;
			break;
		}
		brk = s->R >= s->S || rng_below(&s->r, s->S) < s->R;
		s->S--;
		if (brk) {
			s->R--;
			break;
		}
		len++;
		s->blocks--;
	}
	return len;
}

/*
 * The pool: waiting files in classes by the bit length of their pieces
 * left, served biggest class first, first in first out within a class.
 * Each class is a ring of the states themselves: served in order, they
 * stream through memory.
 */
static unsigned pool_class(uint64_t left)
{
	return left ? 64 - (unsigned)__builtin_clzll(left) : 0;
}

static int pool_put(struct build *b, const struct frag *e)
{
	unsigned c = pool_class(e->left);
	struct ring *r = &b->ring[c];

	if (r->n == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		struct frag *n = malloc(cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		for (size_t k = 0; k < r->n; k++)
			n[k] = r->e[(r->head + k) & (r->cap - 1)];
		free(r->e);
		r->e = n;
		r->cap = cap;
		r->head = 0;
	}
	r->e[(r->head + r->n) & (r->cap - 1)] = *e;
	r->n++;
	if (c > b->top)
		b->top = c;
	b->pool += e->left;
	b->nwait++;
	return 0;
}

/* The next waiting file into *e; 0 when none waits. */
static int pool_take(struct build *b, struct frag *e)
{
	struct ring *r;

	while (b->top && !b->ring[b->top].n)
		b->top--;
	if (!b->top)
		return 0;
	r = &b->ring[b->top];
	*e = r->e[r->head];
	r->head = (r->head + 1) & (r->cap - 1);
	r->n--;
	b->pool -= e->left;
	b->nwait--;
	return 1;
}

static int frag_emit(struct build *b, struct frag *e)
{
	uint64_t len = frag_next(e);

	e->left--;
	return b_piece(b, e->file, len, &e->prev_end, 0);
}

/*
 * After a file: place a share of the pool, so that it drains evenly over
 * the files still to come in this unit (fragments stay near their file).
 * The share is served in rounds of distinct files, biggest first, as many
 * rounds as the file with the most pieces needs to keep pace; a file's
 * pieces are thus always separated by other files' data.
 */
static int pool_step(struct build *b, uint64_t steps_left)
{
	uint64_t want, rounds, per, lmax;
	int ret = 0;

	if (!b->pool)
		return 0;
	if (!steps_left)
		steps_left = 1;
	want = div_up(b->pool, steps_left);
	while (b->top && !b->ring[b->top].n)
		b->top--;
	lmax = b->ring[b->top].e[b->ring[b->top].head].left;
	rounds = div_up(lmax, steps_left);
	per = div_up(want, rounds);
	for (uint64_t r = 0; r < rounds && want && b->nwait; r++) {
		size_t cnt = 0, n = (size_t)min_u64(min_u64(per, want), b->nwait);

		if (r && b->nwait < 2)
			break;
		if (n > b->step_cap) {
			size_t cap = b->step_cap ? b->step_cap : 64;
			struct frag *e;

			while (cap < n)
				cap *= 2;
			e = realloc(b->step, cap * sizeof(*e));
			if (!e)
				return -ENOMEM;
			b->step = e;
			b->step_cap = cap;
		}
		while (cnt < n && pool_take(b, &b->step[cnt]))
			cnt++;
		for (size_t k = 0; k < cnt && !ret; k++)
			ret = frag_emit(b, &b->step[k]);
		for (size_t k = 0; k < cnt && !ret; k++)
			if (b->step[k].left)
				ret = pool_put(b, &b->step[k]);
		if (ret)
			return ret;
		want -= cnt < want ? cnt : want;
	}
	return 0;
}

/* At the end: whatever waits, never two pieces of a file in a row if avoidable. */
static int pool_drain(struct build *b)
{
	uint64_t last = UINT64_MAX;
	struct frag t, s;
	int ret;

	while (pool_take(b, &t)) {
		if (t.file == last && pool_take(b, &s)) {
			ret = pool_put(b, &t);
			if (ret)
				return ret;
			t = s;
		}
		ret = frag_emit(b, &t);
		if (!ret && t.left)
			ret = pool_put(b, &t);
		if (ret)
			return ret;
		last = t.file;
	}
	return 0;
}

/*
 * Decide the breaks of file f (n >= 2 blocks): the selection moves on by
 * its pairs (or the file takes its planned breaks, plus what is owed
 * unless dry), and *e is left ready to give its pieces.  Returns the
 * number of extents the pieces make.
 */
static uint64_t frag_plan(struct build *b, uint64_t f, uint64_t n, struct frag *e, int dry)
{
	struct frag tmp;
	uint64_t E = 0;

	memset(e, 0, sizeof(*e));
	e->file = f;
	e->blocks = n;
	rng_open(&e->r, b->key, f);
	if (!b->spread) {
		e->how = HOW_PAIRS;
		e->R = b->R;
		e->S = b->S;
	} else {
		int64_t k = b->kb[f];

		if (!dry && k && b->debt) {
			int64_t want = k + b->debt;

			if (want < 1)
				want = 1;
			if (want > (int64_t)n - 1)
				want = (int64_t)n - 1;
			b->debt -= want - k;
			k = want;
		}
		if (b->rq->frag_sizes == FRAG_SIZES_RANDOM || !k) {
			e->how = HOW_LOCAL;
			e->R = (uint64_t)k;
			e->S = n - 1;
		} else {
			e->how = HOW_CUMUL;
			e->P = (uint64_t)k + 1;
			e->extra = n - e->P;
			e->sigma = 0;
			if (b->rq->frag_sizes == FRAG_SIZES_LOGNORMAL)
				e->sigma = b->rq->frag_size_sigma > 0 ? b->rq->frag_size_sigma :
									1.0;
			tmp = *e;
			for (uint64_t i = 0; i < e->P; i++)
				e->W += piece_weight(&tmp);
		}
	}
	tmp = *e;
	while (tmp.blocks) {
		E += ext_count(b, frag_next(&tmp));
		e->left++;
	}
	if (!b->spread) {
		b->R = tmp.R;
		b->S = tmp.S;
	}
	return E;
}

/*
 * Metadata the fragmented files will need beyond their contiguous count:
 * a dry run of the selection in placement order, so the space check
 * before the build counts it (exact unless the free space forces breaks).
 */
static uint64_t frag_meta_file(struct build *b, uint64_t f)
{
	const struct layout_request *rq = b->rq;
	uint64_t n = file_blocks(rq, f), E;
	struct frag e;

	if (n < 2)
		return 0;
	E = frag_plan(b, f, n, &e, 1);
	return layout_file_meta(rq, f, n, E) - meta_contig(b, f, n);
}

static uint64_t frag_meta(struct build *b, const uint32_t *order, const uint32_t *items,
			  uint64_t nitems)
{
	const struct plan *pl = b->pl;
	uint64_t R = b->R, S = b->S, extra = 0;

	if (items) {
		for (uint64_t i = 0; i < nitems; i++)
			if (items[i] >= pl->ndirs)
				extra += frag_meta_file(b, items[i] - pl->ndirs);
	} else {
		for (uint32_t oi = 0; oi < pl->ndirs; oi++) {
			uint32_t j = order[oi];

			for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++)
				extra += frag_meta_file(b, (uint64_t)pl->dir_first_file[j] + c);
		}
	}
	b->R = R;
	b->S = S;
	return extra;
}

/*
 * A gap before the next file (n blocks with its metadata) when one is
 * due and the file fits right after it in the cursor's run: so the gap is
 * bounded by data on both sides.  Otherwise it waits for the next file.
 */
static void gap_before(struct build *b, uint64_t n)
{
	struct alloc *a = &b->al;
	size_t ci = a->ci;
	uint64_t g;

	if (b->gi >= b->ngap || ci >= a->nruns)
		return;
	/* gap i is due at file floor((i + 1/2) * files / gaps) */
	if ((double)b->placed + 0.5 < ((double)b->gi + 0.5) * (double)b->nne / (double)b->ngap)
		return;
	g = b->gap[b->gi];
	if (a->end[ci] - a->cur[ci] < g + n)
		return;
	a->cur[ci] += g;
	al_update(a, ci);
	b->gap_blocks += g;
	b->gi++;
}

/* A file's metadata and first piece; the rest of its pieces join the pool. */
static int b_file(struct build *b, uint64_t f, struct frag *pend)
{
	const struct layout_request *rq = b->rq;
	struct layout *lo = b->lo;
	uint64_t n = file_blocks(rq, f), len1 = n, E, nmeta, planned, p, prev_end;
	int adj, ret;

	pend->left = 0;
	if (!n)
		return 0;
	E = ext_count(b, n);
	if (b->frag && n >= 2) {
		E = frag_plan(b, f, n, pend, 0);
		len1 = frag_next(pend);
		pend->left--;
	}
	nmeta = layout_file_meta(rq, f, n, E);
	planned = nmeta;

	if (b->ngap)
		gap_before(b, nmeta + len1);
	b->placed++;
	ret = al_contig(&b->al, nmeta + len1, UINT64_MAX, &p, &adj);
	if (!ret) {
		lo->file_meta[f] = nmeta ? p : 0;
		lo->file_nmeta[f] = (uint32_t)nmeta;
		pend->prev_end = p + nmeta + len1;
		return b_record(b, f, p + nmeta, len1, 1);
	}

	/*
	 * No room for it whole: its metadata first, while long runs last, for
	 * at least as many extents as the split will make; then the data over
	 * the longest free slots; then the count for what it actually got.
	 */
	{
		uint64_t rest = E - ext_count(b, len1), m1, m2, e1, q = 0;
		size_t o0 = b->novf;

		e1 = div_up(len1, b->al.max[1] ? b->al.max[1] : 1);
		if (e1 < ext_count(b, len1))
			e1 = ext_count(b, len1);
		m1 = layout_file_meta(rq, f, n, rest + e1);
		if (m1) {
			ret = al_contig(&b->al, m1, UINT64_MAX, &q, &adj);
			if (ret)
				return ret;
		}
		ret = b_piece(b, f, len1, &prev_end, 1);
		if (ret)
			return ret;
		e1 = ext_count(b, lo->ext[lo->file_ext[f]].len);
		for (size_t o = o0; o < b->novf; o++)
			e1 += ext_count(b, b->ovf[o].len);
		m2 = layout_file_meta(rq, f, n, rest + e1);
		if (m2 > m1) {
			b->al.leaked += m1;
			ret = al_contig(&b->al, m2, UINT64_MAX, &q, &adj);
			if (ret)
				return ret;
		} else {
			b->al.leaked += m1 - m2;
		}
		lo->file_meta[f] = m2 ? q : 0;
		lo->file_nmeta[f] = (uint32_t)m2;
		if (m2 > planned)
			b->extra += m2 - planned;
	}
	pend->prev_end = prev_end;
	return 0;
}

/*
 * Give each directory an allocation unit (see the top of the file), and
 * order the directories by unit, creation order within one.
 */
static int b_spread(struct build *b, uint64_t ustart0, uint64_t usize, size_t nunits,
		    uint32_t *dunit, uint32_t *order)
{
	const struct plan *pl = b->pl;
	const struct layout_request *rq = b->rq;
	struct units u = { 0 };
	uint64_t okey = rng_stream_key(rq->seed, "layout.orlov");
	int64_t *pf, sum = 0;
	size_t *cnt = NULL;
	int ret = 0;

	u.n = nunits;
	u.size = 1;
	while (u.size < nunits)
		u.size <<= 1;
	u.t = calloc(2 * u.size, sizeof(*u.t));
	pf = calloc(nunits, sizeof(*pf));
	cnt = calloc(nunits + 1, sizeof(*cnt));
	if (!u.t || !pf || !cnt) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (size_t k = 0; k < 2 * u.size; k++)
		u.t[k] = INT64_MIN;

	/* free blocks per unit */
	for (size_t i = 0; i < b->al.nruns; i++) {
		uint64_t s = b->al.cur[i], e = b->al.end[i];

		while (s < e) {
			uint64_t k = s >= ustart0 ? (s - ustart0) / usize : 0, ue;

			if (k >= nunits - 1) {
				k = nunits - 1;
				ue = e;
			} else {
				ue = min_u64(e, ustart0 + (k + 1) * usize);
			}
			pf[k] += (int64_t)(ue - s);
			s = ue;
		}
	}
	for (size_t k = 0; k < nunits; k++) {
		un_set(&u, k, pf[k]);
		sum += pf[k];
	}

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint64_t need = dir_blocks(rq, j), left;
		uint32_t f0 = pl->dir_first_file[j], l0 = pl->dir_first_link[j];
		int64_t minfree = sum / (int64_t)nunits - (int64_t)(usize / 4), thr;
		size_t k, v;

		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++) {
			uint64_t n = file_blocks(rq, (uint64_t)f0 + c);

			need += n + meta_contig(b, (uint64_t)f0 + c, n);
			if (n)
				need += (uint64_t)b->gap_per_file;
		}
		for (uint32_t c = 0; c < pl->dir_nlinks[j]; c++)
			need += link_blocks(rq, l0 + c);

		if (j == 0) {
			k = 0;
		} else if (pl->dir_depth[j] <= 1) {
			/* the most free unit, searched from a seeded start */
			struct rng r;
			size_t start;

			rng_open(&r, okey, j);
			start = (size_t)rng_below(&r, nunits);
			k = un_first(&u, start, nunits, u.t[1]);
			if (k == SIZE_MAX)
				k = un_first(&u, 0, start, u.t[1]);
		} else {
			/* the parent's unit while it stays above a quarter group below average */
			size_t pu = dunit[pl->dir_parent[j]];

			thr = (minfree > 0 ? minfree : 0) + (int64_t)need;
			k = pf[pu] >= thr ? pu : un_first(&u, pu + 1, nunits, thr);
			if (k == SIZE_MAX)
				k = un_first(&u, 0, pu, thr);
			if (k == SIZE_MAX)
				k = pf[pu] >= (int64_t)need ?
					    pu :
					    un_first(&u, pu + 1, nunits, (int64_t)need);
			if (k == SIZE_MAX)
				k = un_first(&u, 0, pu, (int64_t)need);
			if (k == SIZE_MAX)
				k = un_argmax(&u);
		}
		dunit[j] = (uint32_t)k;
		cnt[k + 1]++;

		/* what does not fit spills into the following units */
		left = need;
		v = k;
		while (left) {
			uint64_t take = pf[v] > 0 ? min_u64(left, (uint64_t)pf[v]) : 0;

			pf[v] -= (int64_t)take;
			un_set(&u, v, pf[v]);
			left -= take;
			if (!left)
				break;
			v = un_first(&u, v + 1, nunits, 1);
			if (v == SIZE_MAX)
				break;
		}
		if (left) {
			pf[k] -= (int64_t)left;
			un_set(&u, k, pf[k]);
		}
		sum -= (int64_t)need;
	}

	for (size_t k = 0; k < nunits; k++)
		cnt[k + 1] += cnt[k];
	for (uint32_t j = 0; j < pl->ndirs; j++)
		order[cnt[dunit[j]]++] = j;

out_free:
	free(u.t);
	free(pf);
	free(cnt);
	return ret;
}

/* Runs of a file in file order, maximal; metadata counts for what they are. */
static int b_assemble(struct build *b)
{
	struct layout *lo = b->lo;
	const struct layout_request *rq = b->rq;
	uint64_t nf = lo->nfiles, nne = lo->file_ext[nf], w = 0, s;
	uint64_t *cnt = NULL;
	int ret = 0;

	if (b->novf) {
		uint64_t acc = 0, eb;
		struct layout_extent *ext;

		cnt = calloc(nf ? nf : 1, sizeof(*cnt));
		if (!cnt)
			return -ENOMEM;
		ext = realloc(lo->ext, (nne + b->novf) * sizeof(*ext));
		if (!ext) {
			ret = -ENOMEM;
			goto out_free_cnt;
		}
		lo->ext = ext;
		for (size_t o = 0; o < b->novf; o++)
			cnt[b->ovf[o].file]++;
		for (uint64_t f = 0; f < nf; f++) {
			lo->file_ext[f] += acc;
			acc += cnt[f];
		}
		lo->file_ext[nf] = nne + acc;
		/* first runs move up to their final slots, from the end down */
		eb = acc;
		for (uint64_t f = nf; f-- > 0;) {
			eb -= cnt[f];
			if (file_blocks(rq, f))
				ext[lo->file_ext[f]] = ext[lo->file_ext[f] - eb];
		}
		memset(cnt, 0, nf * sizeof(*cnt));
		for (size_t o = 0; o < b->novf; o++) {
			uint64_t f = b->ovf[o].file, i = lo->file_ext[f] + 1 + cnt[f]++;

			ext[i].pblk = b->ovf[o].pblk;
			ext[i].len = b->ovf[o].len;
		}
		free(b->ovf);
		b->ovf = NULL;
		b->novf = b->ovf_cap = 0;
	}

	/* runs are maximal: merge what ended up physically adjacent */
	s = lo->file_ext[0];
	for (uint64_t f = 0; f < nf; f++) {
		uint64_t e = lo->file_ext[f + 1];

		lo->file_ext[f] = w;
		for (uint64_t i = s; i < e; i++) {
			struct layout_extent x = lo->ext[i];

			if (w > lo->file_ext[f] &&
			    lo->ext[w - 1].pblk + lo->ext[w - 1].len == x.pblk)
				lo->ext[w - 1].len += x.len;
			else
				lo->ext[w++] = x;
		}
		s = e;
	}
	lo->file_ext[nf] = w;
	lo->next = w;

	/* metadata for the extents actually produced */
	for (uint64_t f = 0; f < nf; f++) {
		uint64_t n = file_blocks(rq, f), E = 0, nm, p;
		int adj;

		if (!n)
			continue;
		for (uint64_t i = lo->file_ext[f]; i < lo->file_ext[f + 1]; i++)
			E += ext_count(b, lo->ext[i].len);
		nm = layout_file_meta(rq, f, n, E);
		if (nm <= lo->file_nmeta[f]) {
			b->al.leaked += lo->file_nmeta[f] - nm;
			lo->file_nmeta[f] = (uint32_t)nm;
			if (!nm)
				lo->file_meta[f] = 0;
			continue;
		}
		b->extra += nm - lo->file_nmeta[f];
		b->al.leaked += lo->file_nmeta[f];
		ret = al_contig(&b->al, nm, UINT64_MAX, &p, &adj);
		if (ret)
			goto out_free_cnt;
		lo->file_meta[f] = p;
		lo->file_nmeta[f] = (uint32_t)nm;
	}

out_free_cnt:
	free(cnt);
	return ret;
}

static int b_check(const struct layout_request *rq, const struct freemap *fm)
{
	const struct plan *pl = rq->pl;

	if (!pl || !fm || (fm->nruns && !fm->runs))
		return -EINVAL;
	if (rq->block_size < 1024 || (rq->block_size & (rq->block_size - 1)))
		return -EINVAL;
	if (!(rq->layout_score > 0.0) || isnan(rq->layout_score))
		return -EINVAL;
	if (pl->nfiles >= UINT32_MAX)
		return -EINVAL;
	if (!(rq->frag_file_share >= 0 && rq->frag_file_share <= 1) ||
	    !(rq->frag_extents == 0 || rq->frag_extents >= 2) ||
	    !(rq->free_frag_share >= 0 && rq->free_frag_share < 1) ||
	    (rq->free_chunk & (rq->free_chunk - 1)) || !(rq->free_gap_shape >= 0))
		return -EINVAL;
	return 0;
}

/* ---- spread: which files are fragmented, and how much ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int in_list(const char *e, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(e, *list))
			return 1;
	return 0;
}

/*
 * frag_select = type: files that grow in place (logs, mailboxes,
 * databases, disk images) first, then media, then archives and binaries,
 * then everything else.
 */
unsigned layout_ext_group(const char *e)
{
	static const char *const grow[] = { "log",  "pst", "ost",   "mbox", "db",  "sqlite",
					    "vhd",  "vhdx", "vmdk", "qcow2", "vdi", "img",
					    "iso",  "mdb", "edb",   "dat",  "journal", NULL };
	static const char *const media[] = { "mp3", "wma", "wav",  "flac", "ogg", "m4a",
					     "aac", "mpg", "mpeg", "mp4",  "avi", "mkv",
					     "mov", "wmv", "jpg",  "jpeg", "png", "gif",
					     "bmp", "tif", "tiff", "psd",  "raw", NULL };
	static const char *const pack[] = { "zip", "gz",  "tgz", "bz2", "xz",  "7z",
					    "rar", "tar", "cab", "jar", "msi", "deb",
					    "rpm", "exe", "dll", "lib", "so",  "o",
					    "a",   "pdb", "pch", "sys", "bin", NULL };

	if (in_list(e, grow))
		return 0;
	if (in_list(e, media))
		return 1;
	if (in_list(e, pack))
		return 2;
	return 3;
}

/* Breaks the chosen files take at factor lam: sum of clamp(round(lam d), 1, cap). */
static uint64_t spread_total(const double *d, const uint64_t *cap, uint64_t m, double lam)
{
	uint64_t t = 0;

	for (uint64_t i = 0; i < m; i++) {
		double v = nearbyint(lam * d[i]);

		t += v < 1 ? 1 : v >= (double)cap[i] ? cap[i] : (uint64_t)v;
	}
	return t;
}

/*
 * Choose the fragmented files and their breaks, B in all (see the top of
 * the file): fills b->kb.  Returns 0 or -ENOMEM.
 */
static int spread_plan(struct build *b, uint64_t B, uint64_t pairs)
{
	const struct layout_request *rq = b->rq;
	const struct plan *pl = b->pl;
	uint64_t kr = rng_stream_key(rq->seed, "layout.select");
	uint64_t ke = rng_stream_key(rq->seed, "layout.extents");
	uint64_t N = 0, m, asked, C = 0, sum, *key = NULL, *cap = NULL;
	double p = (double)B / (double)pairs, mauto = 0, M, q, lo, hi, *d = NULL;
	unsigned char *grp = NULL;
	int ret = 0;

	b->spread = 1;
	b->kb = calloc(pl->nfiles ? pl->nfiles : 1, sizeof(*b->kb));
	if (!b->kb)
		return -ENOMEM;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t n = file_blocks(rq, f);

		if (n < 2)
			continue;
		N++;
		/* the chance that pair sampling at rate p breaks this file at all */
		mauto += p >= 1 ? 1 : -expm1((double)(n - 1) * log1p(-p));
	}
	if (!N || !B)
		return 0;
	key = malloc(N * sizeof(*key));
	if (!key) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (rq->frag_select == FRAG_SELECT_TYPE && pl->file_ext && pl->ext.name) {
		grp = malloc(pl->ext.count ? pl->ext.count : 1);
		if (!grp) {
			ret = -ENOMEM;
			goto out_free;
		}
		for (size_t e = 0; e < pl->ext.count; e++)
			grp[e] = (unsigned char)layout_ext_group(pl->ext.name[e]);
	}
	N = 0;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t n = file_blocks(rq, f), x;
		uint32_t k32 = 0;
		struct rng r;
		float e;

		if (n < 2)
			continue;
		rng_open(&r, kr, f);
		x = rng_next(&r);
		switch (rq->frag_select) {
		case FRAG_SELECT_WEIGHTED:
			/* Efraimidis-Spirakis: the smallest -ln(u) / weight first */
			e = (float)(-log(rng_uniform(&r)) / (double)(n - 1));
			memcpy(&k32, &e, sizeof(k32));
			break;
		case FRAG_SELECT_RANDOM:
			k32 = (uint32_t)(x >> 32);
			break;
		case FRAG_SELECT_SIZE:
			k32 = UINT32_MAX - (uint32_t)min_u64(n, UINT32_MAX);
			break;
		case FRAG_SELECT_TYPE:
			k32 = (uint32_t)(grp ? grp[pl->file_ext[f]] : 3) << 29;
			k32 |= (uint32_t)(x >> 35);
			break;
		}
		key[N++] = (uint64_t)k32 << 32 | f;
	}
	qsort(key, N, sizeof(*key), cmp_u64);

	if (rq->frag_file_share > 0)
		asked = (uint64_t)llround(rq->frag_file_share * (double)N);
	else if (rq->frag_extents > 0)
		asked = (uint64_t)llround((double)B / (rq->frag_extents - 1));
	else
		asked = (uint64_t)llround(mauto);
	m = asked < 1 ? 1 : asked > N ? N : asked;
	if (m > B)
		m = B;
	for (uint64_t i = 0; i < m; i++)
		C += file_blocks(rq, (uint32_t)key[i]) - 1;
	while (C < B && m < N)
		C += file_blocks(rq, (uint32_t)key[m++]) - 1;
	if (rq->frag_file_share > 0 &&
	    (m > asked ? m - asked : asked - m) > (N / 200 > 1 ? N / 200 : 1))
		b->lo->notes |= LAYOUT_NOTE_SHARE;

	/* wants: 1 + Geometric extra breaks of mean M - 2 */
	M = rq->frag_extents > 0 ? rq->frag_extents : 1.0 + (double)B / (double)m;
	q = M > 2 ? (M - 2) / (M - 1) : 0;
	d = malloc(m * sizeof(*d));
	cap = malloc(m * sizeof(*cap));
	if (!d || !cap) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (uint64_t i = 0; i < m; i++) {
		uint64_t f = (uint32_t)key[i];
		struct rng r;
		double g = 0;

		rng_open(&r, ke, f);
		if (q > 0)
			g = floor(log(rng_uniform(&r)) / log(q));
		cap[i] = file_blocks(rq, f) - 1;
		d[i] = 1 + (g < 1e15 ? g : 1e15);
	}

	/* one factor for all, so that the breaks sum to B */
	lo = 0;
	hi = 1;
	while (spread_total(d, cap, m, hi) < B && hi < 1e30)
		hi *= 2;
	for (int it = 0; it < 64; it++) {
		double mid = (lo + hi) / 2;

		if (spread_total(d, cap, m, mid) >= B)
			hi = mid;
		else
			lo = mid;
	}
	sum = 0;
	for (uint64_t i = 0; i < m; i++) {
		double v = nearbyint(hi * d[i]);
		uint64_t k = v < 1 ? 1 : v >= (double)cap[i] ? cap[i] : (uint64_t)v;

		b->kb[(uint32_t)key[i]] = (uint32_t)min_u64(k, UINT32_MAX);
		sum += b->kb[(uint32_t)key[i]];
	}
	/* the rounding's overshoot comes off the last files, a break each */
	while (sum > B) {
		uint64_t before = sum;

		for (uint64_t i = m; sum > B && i-- > 0;) {
			uint32_t *k = &b->kb[(uint32_t)key[i]];

			if (*k > 1) {
				(*k)--;
				sum--;
			}
		}
		if (sum == before)
			break;
	}
	for (uint64_t i = 0; sum < B && i < m; i++) {
		uint32_t *k = &b->kb[(uint32_t)key[i]];

		while (sum < B && *k < cap[i] && *k < UINT32_MAX) {
			(*k)++;
			sum++;
		}
	}
	if (rq->frag_extents > 0 && fabs(1.0 + (double)B / (double)m - M) > 0.05 * M)
		b->lo->notes |= LAYOUT_NOTE_EXTENTS;

out_free:
	free(key);
	free(grp);
	free(d);
	free(cap);
	return ret;
}

/* ---- one build ---- */

/* A directory's blocks. */
static int b_dir(struct build *b, uint32_t j)
{
	uint64_t nb = dir_blocks(b->rq, j), p;
	int adj, ret;

	if (!nb)
		return 0;
	ret = al_contig(&b->al, nb, UINT64_MAX, &p, &adj);
	if (!ret)
		b->lo->dir_start[j] = p;
	return ret;
}

/* A directory's slow symlinks. */
static int b_links(struct build *b, uint32_t j)
{
	const struct plan *pl = b->pl;
	uint32_t l0 = pl->dir_first_link[j];
	uint64_t p;
	int adj, ret;

	for (uint32_t c = 0; c < pl->dir_nlinks[j]; c++) {
		uint32_t l = l0 + c;

		if (!link_blocks(b->rq, l))
			continue;
		ret = al_contig(&b->al, 1, UINT64_MAX, &p, &adj);
		if (ret)
			return ret;
		b->lo->link_block[l] = p;
	}
	return 0;
}

/* A file with data, then a share of the waiting pieces; uleft: files left in the unit. */
static int b_one_file(struct build *b, uint64_t f, uint64_t *uleft)
{
	struct frag pend;
	int ret;

	ret = b_file(b, f, &pend);
	if (!ret)
		ret = pool_step(b, (*uleft)--);
	if (!ret && pend.left)
		ret = pool_put(b, &pend);
	return ret;
}

static int build_once(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
		      uint64_t *need, const uint64_t *gap, size_t ngap, uint64_t gap_total)
{
	const struct plan *pl = rq->pl;
	struct build b;
	uint64_t data = 0, meta = 0, dirs = 0, links = 0, pairs = 0, total_free = 0, nne = 0;
	uint64_t usize, ustart0, base, done = 0, nitems = 0;
	uint32_t *dunit = NULL, *order = NULL, *items = NULL;
	uint64_t *umain = NULL, uleft = 0;
	size_t nunits;
	uint32_t cur_unit = UINT32_MAX;
	double target;
	int ret;

	memset(lo, 0, sizeof(*lo));
	memset(&b, 0, sizeof(b));
	b.rq = rq;
	b.pl = pl;
	b.lo = lo;
	b.max_ext = rq->max_extent_len;
	if (rq->mapping == LAYOUT_EXTENTS && !b.max_ext)
		b.max_ext = 32768;

	/* what it needs, before any big allocation */
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t n = file_blocks(rq, f);

		data += n;
		meta += meta_contig(&b, f, n);
		pairs += n >= 2 ? n - 1 : 0;
		nne += n != 0;
	}
	for (uint32_t j = 0; j < pl->ndirs; j++)
		dirs += dir_blocks(rq, j);
	for (uint32_t l = 0; l < pl->nlinks; l++)
		links += link_blocks(rq, l);
	for (size_t i = 0; i < fm->nruns; i++)
		total_free += fm->runs[i].len;
	base = data + meta + dirs + links + rq->pool_blocks;
	if (need)
		*need = base;
	if (base > total_free)
		return -ENOSPC;
	if (rq->order == ORDER_SHUFFLED && (uint64_t)pl->ndirs + nne >= UINT32_MAX)
		return -EINVAL;

	target = rq->layout_score > 1.0 ? 1.0 : rq->layout_score;
	b.R = (uint64_t)llround((1.0 - target) * (double)pairs);
	if (b.R > pairs)
		b.R = pairs;
	b.S = pairs;
	b.frag = b.R > 0;
	b.key = rng_stream_key(rq->seed, "layout.frag");
	if (b.frag && (rq->frag_file_share > 0 || rq->frag_extents > 0 ||
		       rq->frag_select != FRAG_SELECT_WEIGHTED ||
		       rq->frag_sizes != FRAG_SIZES_RANDOM)) {
		ret = spread_plan(&b, b.R, pairs);
		if (ret)
			goto out_free_scratch;
	}
	b.gap = gap;
	b.ngap = ngap;
	b.nne = nne;
	b.gap_per_file = nne ? (double)gap_total / (double)nne : 0;

	/* allocation units: flex groups with flex_bg, else block groups; one for other orders */
	ustart0 = fm->first_data_block;
	if (fm->blocks_per_group && fm->ngroups && rq->order == ORDER_DIR) {
		uint64_t flex = fm->flex_groups ? fm->flex_groups : 1;

		usize = (uint64_t)fm->blocks_per_group * flex;
		nunits = (size_t)div_up(fm->ngroups, flex);
	} else {
		usize = fm->nblocks ? fm->nblocks : 1;
		nunits = 1;
	}

	/* free space, spread and the fragmented metadata: all small arrays */
	ret = al_init(&b.al, fm, nunits, rq->pool_blocks, &lo->pool_start);
	if (ret)
		goto out_free_scratch;
	lo->pool_len = rq->pool_blocks;
	dunit = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*dunit));
	order = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*order));
	umain = calloc(nunits, sizeof(*umain));
	if (!dunit || !order || !umain) {
		ret = -ENOMEM;
		goto out_free_scratch;
	}
	if (rq->order == ORDER_DIR) {
		ret = b_spread(&b, ustart0, usize, nunits, dunit, order);
		if (ret)
			goto out_free_scratch;
	} else {
		for (uint32_t j = 0; j < pl->ndirs; j++)
			order[j] = j;
	}
	if (rq->order == ORDER_SHUFFLED) {
		items = malloc(((uint64_t)pl->ndirs + nne + 1) * sizeof(*items));
		if (!items) {
			ret = -ENOMEM;
			goto out_free_scratch;
		}
		for (uint32_t j = 0; j < pl->ndirs; j++)
			items[nitems++] = j;
		for (uint64_t f = 0; f < pl->nfiles; f++)
			if (file_blocks(rq, f))
				items[nitems++] = (uint32_t)(pl->ndirs + f);
		rng_shuffle_u32(items, nitems, rng_stream_key(rq->seed, "layout.order"), 0);
	}
	/* files with data per unit: the pool drains within a unit */
	for (uint32_t j = 0; j < pl->ndirs; j++)
		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++)
			umain[dunit[j]] +=
				file_blocks(rq, (uint64_t)pl->dir_first_file[j] + c) != 0;
	if (b.frag && rq->mapping == LAYOUT_EXTENTS) {
		/* indirect blocks do not depend on the extents: only trees need this */
		base += frag_meta(&b, order, items, nitems);
		if (need)
			*need = base;
		if (base > total_free) {
			ret = -ENOSPC;
			goto out_free_scratch;
		}
	}
	b.al.spare = total_free - base > gap_total ? total_free - base - gap_total : 0;

	lo->nfiles = pl->nfiles;
	lo->file_ext = calloc(pl->nfiles + 1, sizeof(*lo->file_ext));
	lo->ext = calloc(nne ? nne : 1, sizeof(*lo->ext));
	lo->file_meta = calloc(pl->nfiles ? pl->nfiles : 1, sizeof(*lo->file_meta));
	lo->file_nmeta = calloc(pl->nfiles ? pl->nfiles : 1, sizeof(*lo->file_nmeta));
	lo->dir_start = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*lo->dir_start));
	lo->link_block = calloc(pl->nlinks ? pl->nlinks : 1, sizeof(*lo->link_block));
	if (!lo->file_ext || !lo->ext || !lo->file_meta || !lo->file_nmeta || !lo->dir_start ||
	    !lo->link_block) {
		ret = -ENOMEM;
		goto out_free_scratch;
	}
	for (uint64_t f = 0, k = 0; f <= pl->nfiles; f++) {
		lo->file_ext[f] = k;
		if (f < pl->nfiles)
			k += file_blocks(rq, f) != 0;
	}
	if (b.frag) {
		/* about one extra run per break */
		b.ovf_cap = (size_t)b.R + 1024;
		b.ovf = malloc(b.ovf_cap * sizeof(*b.ovf));
		if (!b.ovf) {
			ret = -ENOMEM;
			goto out_free_scratch;
		}
	}

	if (items) {
		uleft = nne;
		for (uint64_t i = 0; i < nitems; i++) {
			uint32_t v = items[i];

			if (v < pl->ndirs) {
				ret = b_dir(&b, v);
				if (!ret)
					ret = b_links(&b, v);
			} else {
				ret = b_one_file(&b, v - pl->ndirs, &uleft);
				done++;
			}
			if (ret)
				goto out_free_scratch;
		}
	} else {
		for (uint32_t oi = 0; oi < pl->ndirs; oi++) {
			uint32_t j = order[oi], f0 = pl->dir_first_file[j];

			if (dunit[j] != cur_unit) {
				cur_unit = dunit[j];
				uleft = umain[cur_unit];
				al_jump(&b.al, ustart0 + (uint64_t)cur_unit * usize);
			}
			ret = b_dir(&b, j);
			if (ret)
				goto out_free_scratch;
			for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++) {
				uint64_t f = (uint64_t)f0 + c;

				if (!file_blocks(rq, f))
					continue;
				ret = b_one_file(&b, f, &uleft);
				done++;
				if (ret)
					goto out_free_scratch;
			}
			ret = b_links(&b, j);
			if (ret)
				goto out_free_scratch;
		}
	}
	if (done != nne) {
		/* a file outside every directory: not a plan */
		ret = -EINVAL;
		goto out_free_scratch;
	}
	ret = pool_drain(&b);
	if (!ret)
		ret = b_assemble(&b);
	if (ret)
		goto out_free_scratch;

	meta = 0;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		meta += lo->file_nmeta[f];
	lo->blocks_used = data + meta + dirs + links + lo->pool_len;
	layout_tally(lo);
	lo->target = target;
	lo->gap_blocks = b.gap_blocks;
	if (b.gi < b.ngap)
		lo->notes |= LAYOUT_NOTE_FREE;
	if (fabs(lo->score - target) > 0.005 && pairs >= 400)
		lo->notes |= LAYOUT_NOTE_LOST;

out_free_scratch:
	if (ret == -ENOSPC && need && lo->file_ext) {
		/* it fitted on paper: forced breaks cost metadata there was no room for */
		*need = base + b.extra + b.al.leaked;
		if (*need <= total_free)
			*need = total_free + 1;
	}
	if (ret)
		layout_release(lo);
	free(dunit);
	free(order);
	free(items);
	free(umain);
	free(b.ovf);
	free(b.kb);
	for (size_t c = 0; c < 65; c++)
		free(b.ring[c].e);
	free(b.step);
	al_release(&b.al);
	return ret;
}

void layout_tally(struct layout *lo)
{
	lo->score = layout_score_of(lo);
	lo->frag_eligible = lo->frag_files = lo->frag_runs = 0;
	if (!lo->file_ext || !lo->ext)
		return;
	for (uint64_t f = 0; f < lo->nfiles; f++) {
		uint64_t s = lo->file_ext[f], e = lo->file_ext[f + 1], blocks = 0;

		for (uint64_t i = s; i < e; i++)
			blocks += lo->ext[i].len;
		if (blocks < 2)
			continue;
		lo->frag_eligible++;
		if (e - s > 1) {
			lo->frag_files++;
			lo->frag_runs += e - s;
		}
	}
}

/* ---- the free space left ---- */

struct span {
	uint64_t s, n;
};

static int cmp_span(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

void layout_free_hist_add(struct layout_free_hist *h, uint64_t s, uint64_t n)
{
	if (!n)
		return;
	unsigned bkt = 63 - (unsigned)__builtin_clzll(n);
	uint64_t c = h->chunk_blocks, first;

	h->count[bkt]++;
	h->blocks[bkt] += n;
	h->free_blocks += n;
	h->extents++;
	if (n < c)
		h->small_blocks += n;
	/* aligned chunks wholly inside [s, s + n) */
	first = div_up(s, c);
	if ((s + n) / c > first)
		h->free_chunks += (s + n) / c - first;
}

int layout_free_hist(const struct layout *lo, const struct layout_request *rq,
		     const struct freemap *fm, uint64_t chunk_bytes, struct layout_free_hist *h)
{
	const struct plan *pl = rq->pl;
	struct span *u;
	uint64_t nu = 0, cap;
	size_t r = 0;

	memset(h, 0, sizeof(*h));
	if (!lo->file_ext || !pl || !rq->block_size)
		return -EINVAL;
	if (!chunk_bytes)
		chunk_bytes = 1 << 20;
	h->chunk_blocks = chunk_bytes / rq->block_size ? chunk_bytes / rq->block_size : 1;
	cap = lo->next + lo->nfiles + pl->ndirs + pl->nlinks + 1;
	u = malloc(cap * sizeof(*u));
	if (!u)
		return -ENOMEM;
	for (uint64_t i = 0; i < lo->next; i++)
		u[nu++] = (struct span){ lo->ext[i].pblk, lo->ext[i].len };
	for (uint64_t f = 0; f < lo->nfiles; f++)
		if (lo->file_nmeta[f])
			u[nu++] = (struct span){ lo->file_meta[f], lo->file_nmeta[f] };
	for (uint32_t j = 0; j < pl->ndirs; j++)
		if (dir_blocks(rq, j))
			u[nu++] = (struct span){ lo->dir_start[j], dir_blocks(rq, j) };
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (link_blocks(rq, l))
			u[nu++] = (struct span){ lo->link_block[l], 1 };
	qsort(u, nu, sizeof(*u), cmp_span);

	/* free runs (touching ones merge) minus the used spans */
	while (r < fm->nruns) {
		uint64_t s = fm->runs[r].start, e = s + fm->runs[r].len;

		r++;
		while (r < fm->nruns && fm->runs[r].start == e)
			e += fm->runs[r++].len;
		if (s == e)
			continue;
		{
			/* first used span that may overlap */
			uint64_t lo_i = 0, hi_i = nu, pos = s;

			while (lo_i < hi_i) {
				uint64_t mid = lo_i + (hi_i - lo_i) / 2;

				if (u[mid].s + u[mid].n <= s)
					lo_i = mid + 1;
				else
					hi_i = mid;
			}
			for (uint64_t i = lo_i; i < nu && u[i].s < e; i++) {
				if (u[i].s > pos)
					layout_free_hist_add(h, pos, u[i].s - pos);
				if (u[i].s + u[i].n > pos)
					pos = u[i].s + u[i].n;
			}
			if (pos < e)
				layout_free_hist_add(h, pos, e - pos);
		}
	}
	free(u);
	return 0;
}

/* ---- the free space's shape: gaps between files ---- */

/* Blocks a density x^-a puts in [lo, hi), up to a constant. */
static double shape_mass(double a, double lo, double hi)
{
	if (fabs(a - 2) < 1e-9)
		return log(hi / lo);
	return (pow(hi, 2 - a) - pow(lo, 2 - a)) / (2 - a);
}

/* A size in [lo, hi) from the density x^-a. */
static double shape_draw(double a, double lo, double hi, double u)
{
	if (fabs(a - 1) < 1e-9)
		return lo * pow(hi / lo, u);
	return pow(pow(lo, 1 - a) + u * (pow(hi, 1 - a) - pow(lo, 1 - a)), 1 / (1 - a));
}

/*
 * Gap sizes for the block quota of each bucket (want[b]), shuffled, into
 * *gap (allocated).  Returns the count, or -ENOMEM.
 */
static int64_t gaps_make(const double *want, unsigned b0, unsigned b1, uint64_t gmin, uint64_t c,
			 double a, uint64_t seed, unsigned pass, uint64_t **gap, uint64_t *total)
{
	uint64_t key = rng_stream_key(seed, "layout.gaps"), n = 0, cap = 1024, *g;

	*total = 0;
	g = malloc(cap * sizeof(*g));
	if (!g)
		return -ENOMEM;
	for (unsigned bk = b0; bk <= b1; bk++) {
		double lo = fmax((double)(UINT64_C(1) << bk), (double)gmin);
		double hi = fmin((double)(UINT64_C(1) << (bk + 1)), (double)c);
		double left = want[bk];
		struct rng r;

		if (hi <= lo)
			continue;
		rng_open(&r, key, (uint64_t)pass << 8 | bk);
		while (left >= lo) {
			uint64_t x = (uint64_t)shape_draw(a, lo, hi, rng_uniform(&r));

			if (x < (uint64_t)lo)
				x = (uint64_t)lo;
			if ((double)x >= hi)
				x = (uint64_t)ceil(hi) - 1;
			if ((double)x > left)
				x = (uint64_t)left;
			if (n == cap) {
				uint64_t *t = realloc(g, 2 * cap * sizeof(*g));

				if (!t) {
					free(g);
					return -ENOMEM;
				}
				g = t;
				cap *= 2;
			}
			g[n++] = x;
			*total += x;
			left -= (double)x;
		}
	}
	/* Fisher-Yates, one stream */
	{
		struct rng r;

		rng_open(&r, key, (uint64_t)pass << 8 | 0xff);
		for (uint64_t i = n; i > 1; i--) {
			uint64_t j = rng_below(&r, i), t = g[i - 1];

			g[i - 1] = g[j];
			g[j] = t;
		}
	}
	*gap = g;
	return (int64_t)n;
}

/*
 * free_frag_share > 0: a build without gaps measures the free space,
 * then builds with gaps whose quotas are corrected by what each build
 * measured; the best of them is kept.
 */
static int build_shaped(struct layout *lo, const struct layout_request *rq,
			const struct freemap *fm, uint64_t *need)
{
	uint64_t bs = rq->block_size, chunk = rq->free_chunk ? rq->free_chunk : 1 << 20;
	uint64_t c = chunk / bs, gmin = rq->free_gap_min ? div_up(rq->free_gap_min, bs) : 1;
	double a = rq->free_gap_shape, target[LAYOUT_HIST_BUCKETS] = { 0 };
	double want[LAYOUT_HIST_BUCKETS] = { 0 }, mass = 0, best_err = INFINITY, best_worst = 0, T;
	double best_small = 0;
	struct layout_free_hist h;
	struct layout cur;
	unsigned b0, b1;
	int ret, have = 0;

	ret = build_once(lo, rq, fm, need, NULL, 0, 0);
	if (ret)
		return ret;
	if (c < 2 || gmin >= c) {
		/* no free extent can be smaller than a chunk and at least a gap */
		lo->notes |= LAYOUT_NOTE_FREE;
		return 0;
	}
	ret = layout_free_hist(lo, rq, fm, chunk, &h);
	if (ret)
		goto out_release;
	b0 = 63 - (unsigned)__builtin_clzll(gmin);
	b1 = 63 - (unsigned)__builtin_clzll(c - 1);
	for (unsigned bk = b0; bk <= b1; bk++) {
		double l = fmax((double)(UINT64_C(1) << bk), (double)gmin);
		double u = fmin((double)(UINT64_C(1) << (bk + 1)), (double)c);

		target[bk] = u > l ? shape_mass(a, l, u) : 0;
		mass += target[bk];
	}
	T = rq->free_frag_share * (double)h.free_blocks;
	for (unsigned bk = b0; bk <= b1; bk++) {
		target[bk] = mass > 0 ? T * target[bk] / mass : 0;
		want[bk] = fmax(0, target[bk] - (double)h.blocks[bk]);
	}

	for (unsigned pass = 0; pass < 6; pass++) {
		uint64_t *gap = NULL, total, spare;
		int64_t n;
		double err = 0, worst;

		n = gaps_make(want, b0, b1, gmin, c, a, rq->seed, pass, &gap, &total);
		if (n < 0) {
			ret = (int)n;
			goto out_release;
		}
		/* gaps take free space the placement could have used: keep some spare */
		spare = h.free_blocks > lo->pool_len ? h.free_blocks - lo->pool_len : 0;
		if (total > spare - spare / 50) {
			free(gap);
			lo->notes |= LAYOUT_NOTE_FREE;
			break;
		}
		ret = build_once(&cur, rq, fm, NULL, gap, (size_t)n, total);
		free(gap);
		if (ret == -ENOSPC) {
			/* the gaps crowded the files out: keep what there is */
			lo->notes |= LAYOUT_NOTE_FREE;
			break;
		}
		if (ret)
			goto out_release;
		ret = layout_free_hist(&cur, rq, fm, chunk, &h);
		if (ret) {
			layout_release(&cur);
			goto out_release;
		}
		worst = 0;
		for (unsigned bk = 0; bk < b1 + 1; bk++) {
			err += fabs((double)h.blocks[bk] - target[bk]);
			worst = fmax(worst, fabs((double)h.blocks[bk] - target[bk]));
		}
		if (err < best_err) {
			best_err = err;
			best_worst = worst / (double)h.free_blocks;
			best_small = (double)h.small_blocks / (double)h.free_blocks;
			layout_release(lo);
			*lo = cur;
			have = 1;
		} else {
			layout_release(&cur);
		}
		if (err <= 0.002 * (double)h.free_blocks)
			break;
		for (unsigned bk = b0; bk <= b1; bk++)
			want[bk] = fmax(0, want[bk] - ((double)h.blocks[bk] - target[bk]));
	}
	/* the stated tolerance: each bucket and the small share within 0.005 of the free space */
	lo->free_small_share = have		   ? best_small :
			       h.free_blocks ? (double)h.small_blocks / (double)h.free_blocks :
					       0;
	if (have) {
		lo->notes &= ~LAYOUT_NOTE_FREE;
		if (best_worst > 0.005 || fabs(best_small - rq->free_frag_share) > 0.005)
			lo->notes |= LAYOUT_NOTE_FREE;
	} else {
		lo->notes |= LAYOUT_NOTE_FREE;
	}
	return 0;

out_release:
	layout_release(lo);
	return ret;
}

int layout_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
		 uint64_t *need)
{
	int ret;

	memset(lo, 0, sizeof(*lo));
	ret = b_check(rq, fm);
	if (ret)
		return ret;
	if (rq->age_rounds)
		return age_build(lo, rq, fm, need);
	if (rq->free_frag_share > 0)
		return build_shaped(lo, rq, fm, need);
	return build_once(lo, rq, fm, need, NULL, 0, 0);
}

/* Append "; " (unless first) and a formatted clause at buf + n; returns the new length. */
static size_t note_add(char *buf, size_t len, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t note_add(char *buf, size_t len, size_t n, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (n) {
		w = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, "; ");
		n += w > 0 ? (size_t)w : 0;
	}
	va_start(ap, fmt);
	w = vsnprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, fmt, ap);
	va_end(ap);
	return n + (w > 0 ? (size_t)w : 0);
}

size_t layout_notes_text(const struct layout *lo, char *buf, size_t len)
{
	double share = lo->frag_eligible ? (double)lo->frag_files / (double)lo->frag_eligible : 0;
	double ext = lo->frag_files ? (double)lo->frag_runs / (double)lo->frag_files : 0;
	size_t n = 0;

	if (len)
		buf[0] = 0;
	if (lo->notes & LAYOUT_NOTE_SHARE)
		n = note_add(buf, len, n,
			     "'frag_file_share' gave way to 'layout_score' (%.1f %% of the files of two or more blocks are fragmented)",
			     100.0 * share);
	if (lo->notes & LAYOUT_NOTE_EXTENTS)
		n = note_add(buf, len, n,
			     "'frag_extents' gave way to 'layout_score' (%.2f extents per fragmented file)",
			     ext);
	if (lo->notes & LAYOUT_NOTE_FREE)
		n = note_add(buf, len, n,
			     "the free-space shape was not reached in full (%.1f %% of the free space below 'free_chunk'; too few files to put gaps between, or too little room)",
			     100.0 * lo->free_small_share);
	if (lo->notes & LAYOUT_NOTE_LOST)
		n = note_add(buf, len, n,
			     "layout score %.4f instead of %.4f: the free space could not take every break",
			     lo->score, lo->target);
	if (lo->notes & LAYOUT_NOTE_IGNORED)
		n = note_add(buf, len, n, "%s",
			     "'age_rounds' is set: the layout is what the simulated churn left, and 'layout_score', 'layout_order', 'frag_*' and 'free_*' do not apply");
	return n;
}

void layout_request_set_params(struct layout_request *rq, const struct params *p)
{
	rq->layout_score = p->layout_score;
	rq->order = p->layout_order;
	rq->frag_file_share = p->frag_file_share;
	rq->frag_extents = p->frag_extents;
	rq->frag_select = p->frag_select;
	rq->frag_sizes = p->frag_sizes;
	rq->frag_size_sigma = p->frag_size_sigma;
	rq->free_frag_share = p->free_frag_share;
	rq->free_chunk = p->free_chunk;
	rq->free_gap_min = p->free_gap_min;
	rq->free_gap_shape = p->free_gap_shape;
	rq->age_rounds = p->age_rounds;
	rq->age_churn = p->age_churn;
	rq->age_stream_req = p->age_stream_req;
	rq->age_group_prealloc = p->age_group_prealloc;
}

void layout_release(struct layout *lo)
{
	free(lo->file_ext);
	free(lo->ext);
	free(lo->file_meta);
	free(lo->file_nmeta);
	free(lo->dir_start);
	free(lo->link_block);
	memset(lo, 0, sizeof(*lo));
}
