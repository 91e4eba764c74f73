/* place.c - placement to a target: contiguous packing, exact fragmentation, units and order */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/alloc.h"
#include "layout/arith.h"
#include "layout/dirfrag.h"
#include "layout/frag.h"
#include "layout/grow.h"
#include "layout/place.h"
#include "layout/spread.h"
#include "layout/units.h"
#include "util/rng.h"
#include "util/util.h"

/*
 * How it works.  The free space is in alloc.c, the units of the spread
 * (Orlov) in units.c, the choice of the fragmented files in spread.c, a
 * file's pieces and the pool in frag.c, and the gaps of the free space's
 * shape in shape.c.
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
 * Order.  layout_order = dir is the spread of units.c; creation packs the
 * directories in id order (a file's id is its creation order) from the
 * start of the disk with no spread; shuffled packs a seeded permutation of
 * directories and files (stream "layout.order").
 *
 * Split directories (dir_frag_share, dirfrag.c): a directory's first
 * piece goes where the whole would have gone, the others between its
 * files, piece i after i/k of its files with data (all at once when it
 * has none, or in shuffled order), never right after the previous piece
 * when another slot holds it: as a directory that grew while its files
 * were written gets its later blocks after their data.
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

	struct frag_pool wait; /* files with pieces still to place */
	struct frag *step;     /* files served in one step */
	size_t step_cap;

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

	/* the order of placement: units and directories by unit, or shuffled items */
	struct units_geom ug;
	uint32_t *dunit, *order, *items;
	uint64_t nitems;
	uint64_t *umain; /* files with data per unit */

	/* split directories: pieces per directory (NULL: none), and the one whose pieces wait */
	uint8_t *dpieces;
	struct {
		uint32_t j;
		unsigned k, next;          /* pieces, and the next to place (k = 0: none waits) */
		uint64_t len[DIRFRAG_MAX];
		uint64_t prev_end, files, seen; /* its files with data, those placed */
	} dp;
};

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
		struct ovf *o = grow_array(b->ovf, &b->ovf_cap, b->novf + 1, sizeof(*o), 4096);

		if (!o)
			return -ENOMEM;
		b->ovf = o;
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

	ret = alloc_contig(&b->al, n, avoid, &p, &adj);
	if (!ret) {
		if (adj)
			b_lost(b);
		*prev_end = p + n;
		return b_record(b, f, p, n, first);
	}
	while (left) {
		uint64_t m = alloc_longest(&b->al), take;
		size_t j;

		if (!m)
			return -ENOSPC;
		j = alloc_first(&b->al, 0, b->al.nslots, m);
		take = min_u64(m, left);
		p = alloc_take(&b->al, j, take);
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

	if (!b->wait.pieces)
		return 0;
	if (!steps_left)
		steps_left = 1;
	want = div_up(b->wait.pieces, steps_left);
	lmax = frag_pool_most(&b->wait);
	rounds = div_up(lmax, steps_left);
	per = div_up(want, rounds);
	for (uint64_t r = 0; r < rounds && want && b->wait.nwait; r++) {
		size_t cnt = 0, n = (size_t)min_u64(min_u64(per, want), b->wait.nwait);
		struct frag *e;

		if (r && b->wait.nwait < 2)
			break;
		e = grow_array(b->step, &b->step_cap, n, sizeof(*e), 64);
		if (!e)
			return -ENOMEM;
		b->step = e;
		while (cnt < n && frag_pool_take(&b->wait, &b->step[cnt]))
			cnt++;
		for (size_t k = 0; k < cnt && !ret; k++)
			ret = frag_emit(b, &b->step[k]);
		for (size_t k = 0; k < cnt && !ret; k++)
			if (b->step[k].left)
				ret = frag_pool_put(&b->wait, &b->step[k]);
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

	while (frag_pool_take(&b->wait, &t)) {
		if (t.file == last && frag_pool_take(&b->wait, &s)) {
			ret = frag_pool_put(&b->wait, &t);
			if (ret)
				return ret;
			t = s;
		}
		ret = frag_emit(b, &t);
		if (!ret && t.left)
			ret = frag_pool_put(&b->wait, &t);
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
				e->sigma =
					b->rq->frag_size_sigma > 0 ? b->rq->frag_size_sigma : 1.0;
			tmp = *e;
			for (uint64_t i = 0; i < e->P; i++)
				e->W += frag_weight(&tmp);
		}
	}
	tmp = *e;
	while (tmp.blocks) {
		E += ext_count(b->max_ext, frag_next(&tmp));
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
	uint64_t n = layout_file_blocks(rq, f), E;
	struct frag e;

	if (n < 2)
		return 0;
	E = frag_plan(b, f, n, &e, 1);
	return layout_file_meta(rq, f, n, E) - layout_contig_meta(b->rq, f, n);
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
	alloc_update(a, ci);
	b->gap_blocks += g;
	b->gi++;
}

/* A file's metadata and first piece; the rest of its pieces join the pool. */
static int b_file(struct build *b, uint64_t f, struct frag *pend)
{
	const struct layout_request *rq = b->rq;
	struct layout *lo = b->lo;
	uint64_t n = layout_file_blocks(rq, f), len1 = n, E, nmeta, planned, p, prev_end;
	int adj, ret;

	pend->left = 0;
	if (!n)
		return 0;
	E = ext_count(b->max_ext, n);
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
	ret = alloc_contig(&b->al, nmeta + len1, UINT64_MAX, &p, &adj);
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
		uint64_t rest = E - ext_count(b->max_ext, len1), m1, m2, e1, q = 0;
		size_t o0 = b->novf;

		e1 = div_up(len1, alloc_longest(&b->al) ? alloc_longest(&b->al) : 1);
		if (e1 < ext_count(b->max_ext, len1))
			e1 = ext_count(b->max_ext, len1);
		m1 = layout_file_meta(rq, f, n, rest + e1);
		if (m1) {
			ret = alloc_contig(&b->al, m1, UINT64_MAX, &q, &adj);
			if (ret)
				return ret;
		}
		ret = b_piece(b, f, len1, &prev_end, 1);
		if (ret)
			return ret;
		e1 = ext_count(b->max_ext, lo->ext[lo->file_ext[f]].len);
		for (size_t o = o0; o < b->novf; o++)
			e1 += ext_count(b->max_ext, b->ovf[o].len);
		m2 = layout_file_meta(rq, f, n, rest + e1);
		if (m2 > m1) {
			b->al.leaked += m1;
			ret = alloc_contig(&b->al, m2, UINT64_MAX, &q, &adj);
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
			if (layout_file_blocks(rq, f))
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
		uint64_t n = layout_file_blocks(rq, f), E = 0, nm, p;
		int adj;

		if (!n)
			continue;
		for (uint64_t i = lo->file_ext[f]; i < lo->file_ext[f + 1]; i++)
			E += ext_count(b->max_ext, lo->ext[i].len);
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
		ret = alloc_contig(&b->al, nm, UINT64_MAX, &p, &adj);
		if (ret)
			goto out_free_cnt;
		lo->file_meta[f] = p;
		lo->file_nmeta[f] = (uint32_t)nm;
	}

out_free_cnt:
	free(cnt);
	return ret;
}

/* Record directory j's run i (split directories only). */
static void b_dir_run(struct build *b, uint32_t j, unsigned i, uint64_t p, uint64_t len)
{
	if (b->lo->dir_ext)
		b->lo->dext[b->lo->dir_ext[j] + i] = (struct layout_extent){ p, len };
}

/* A directory's blocks, or the first piece of a split one (the rest wait in b->dp). */
static int b_dir(struct build *b, uint32_t j)
{
	uint64_t nb = layout_dir_blocks(b->rq, j), p, len;
	unsigned k = b->dpieces ? b->dpieces[j] : 1;
	int adj, ret;

	if (!nb)
		return 0;
	len = nb;
	if (k >= 2) {
		dirfrag_sizes(b->rq, j, nb, k, b->dp.len);
		len = b->dp.len[0];
	}
	ret = alloc_contig(&b->al, len, UINT64_MAX, &p, &adj);
	if (ret)
		return ret;
	b->lo->dir_start[j] = p;
	b_dir_run(b, j, 0, p, len);
	if (k >= 2) {
		b->dp.j = j;
		b->dp.k = k;
		b->dp.next = 1;
		b->dp.prev_end = p + len;
		b->dp.seen = 0;
		b->dp.files = 0;
		for (uint32_t c = 0; c < b->pl->dir_nfiles[j]; c++)
			b->dp.files += layout_file_blocks(
					       b->rq, (uint64_t)b->pl->dir_first_file[j] + c) != 0;
	}
	return 0;
}

/*
 * The waiting pieces due once b->dp.seen of its files are placed (all with
 * all): piece i after i/k of them, each apart from the one before.
 */
static int b_dir_pieces(struct build *b, int all)
{
	while (b->dp.next < b->dp.k &&
	       (all || b->dp.seen * b->dp.k >= b->dp.next * b->dp.files)) {
		uint64_t len = b->dp.len[b->dp.next], p;
		int adj, ret = alloc_contig(&b->al, len, b->dp.prev_end, &p, &adj);

		if (ret)
			return ret;
		b_dir_run(b, b->dp.j, b->dp.next, p, len);
		b->dp.prev_end = p + len;
		b->dp.next++;
	}
	if (b->dp.next >= b->dp.k)
		b->dp.k = 0;
	return 0;
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

		if (!layout_link_blocks(b->rq, l))
			continue;
		ret = alloc_contig(&b->al, 1, UINT64_MAX, &p, &adj);
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
		ret = frag_pool_put(&b->wait, &pend);
	return ret;
}

/* The breaks to make, and with a spread parameter set, which files take them. */
static int b_breaks(struct build *b, double target, uint64_t pairs)
{
	const struct layout_request *rq = b->rq;

	b->R = (uint64_t)llround((1.0 - target) * (double)pairs);
	if (b->R > pairs)
		b->R = pairs;
	b->S = pairs;
	b->frag = b->R > 0;
	b->key = rng_stream_key(rq->seed, "layout.frag");
	if (!(b->frag &&
	      (rq->frag_file_share > 0 || rq->frag_extents > 0 ||
	       rq->frag_select != FRAG_SELECT_WEIGHTED || rq->frag_sizes != FRAG_SIZES_RANDOM)))
		return 0;
	b->spread = 1;
	b->kb = calloc(b->pl->nfiles ? b->pl->nfiles : 1, sizeof(*b->kb));
	if (!b->kb)
		return -ENOMEM;
	return spread_plan(rq, b->R, pairs, b->kb, &b->lo->notes);
}

/*
 * The order of placement: each directory's unit and the directories by
 * unit (layout_order dir), or in id order; for shuffled, the seeded
 * permutation of directories and files with data (b->items); and the
 * files with data per unit, for the pool to drain within a unit.
 */
static int b_order(struct build *b)
{
	const struct layout_request *rq = b->rq;
	const struct plan *pl = b->pl;
	int ret;

	b->dunit = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*b->dunit));
	b->order = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*b->order));
	b->umain = calloc(b->ug.n, sizeof(*b->umain));
	if (!b->dunit || !b->order || !b->umain)
		return -ENOMEM;
	if (rq->order == ORDER_DIR) {
		ret = units_assign(rq, &b->al, b->gap_per_file, &b->ug, b->dunit, b->order);
		if (ret)
			return ret;
	} else {
		for (uint32_t j = 0; j < pl->ndirs; j++)
			b->order[j] = j;
	}
	if (rq->order == ORDER_SHUFFLED) {
		b->items = malloc(((uint64_t)pl->ndirs + b->nne + 1) * sizeof(*b->items));
		if (!b->items)
			return -ENOMEM;
		for (uint32_t j = 0; j < pl->ndirs; j++)
			b->items[b->nitems++] = j;
		for (uint64_t f = 0; f < pl->nfiles; f++)
			if (layout_file_blocks(rq, f))
				b->items[b->nitems++] = (uint32_t)(pl->ndirs + f);
		rng_shuffle_u32(b->items, b->nitems, rng_stream_key(rq->seed, "layout.order"), 0);
	}
	for (uint32_t j = 0; j < pl->ndirs; j++)
		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++)
			b->umain[b->dunit[j]] +=
				layout_file_blocks(rq, (uint64_t)pl->dir_first_file[j] + c) != 0;
	return 0;
}

/* The result's arrays, each file's first run reserved, and room for the runs beyond. */
static int b_outputs(struct build *b)
{
	const struct plan *pl = b->pl;
	struct layout *lo = b->lo;
	int ret;

	ret = layout_arrays_alloc(lo, pl);
	if (ret)
		return ret;
	lo->ext = calloc(b->nne ? b->nne : 1, sizeof(*lo->ext));
	if (!lo->ext)
		return -ENOMEM;
	ret = dirfrag_plan(b->rq, &b->dpieces);
	if (!ret && b->dpieces)
		ret = dirfrag_alloc(lo, b->rq, b->dpieces);
	if (ret)
		return ret;
	for (uint64_t f = 0, k = 0; f <= pl->nfiles; f++) {
		lo->file_ext[f] = k;
		if (f < pl->nfiles)
			k += layout_file_blocks(b->rq, f) != 0;
	}
	if (b->frag) {
		/* about one extra run per break */
		b->ovf_cap = (size_t)b->R + 1024;
		b->ovf = malloc(b->ovf_cap * sizeof(*b->ovf));
		if (!b->ovf)
			return -ENOMEM;
	}
	return 0;
}

/* layout_order shuffled: the items one by one.  Counts the files placed in *done. */
static int b_place_items(struct build *b, uint64_t *done)
{
	const struct plan *pl = b->pl;
	uint64_t uleft = b->nne;
	int ret;

	for (uint64_t i = 0; i < b->nitems; i++) {
		uint32_t v = b->items[i];

		if (v < pl->ndirs) {
			ret = b_dir(b, v);
			if (!ret)
				ret = b_dir_pieces(b, 1);
			if (!ret)
				ret = b_links(b, v);
		} else {
			ret = b_one_file(b, v - pl->ndirs, &uleft);
			(*done)++;
		}
		if (ret)
			return ret;
	}
	return 0;
}

/* Directory by directory, unit by unit: its blocks, its files, its symlinks.  Counts files in *done. */
static int b_place_dirs(struct build *b, uint64_t *done)
{
	const struct plan *pl = b->pl;
	uint32_t cur_unit = UINT32_MAX;
	uint64_t uleft = 0;
	int ret;

	for (uint32_t oi = 0; oi < pl->ndirs; oi++) {
		uint32_t j = b->order[oi], f0 = pl->dir_first_file[j];

		if (b->dunit[j] != cur_unit) {
			cur_unit = b->dunit[j];
			uleft = b->umain[cur_unit];
			alloc_jump(&b->al, b->ug.start + (uint64_t)cur_unit * b->ug.size);
		}
		ret = b_dir(b, j);
		if (ret)
			return ret;
		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++) {
			uint64_t f = (uint64_t)f0 + c;

			if (!layout_file_blocks(b->rq, f))
				continue;
			ret = b_one_file(b, f, &uleft);
			(*done)++;
			b->dp.seen++;
			if (!ret && b->dp.k)
				ret = b_dir_pieces(b, 0);
			if (ret)
				return ret;
		}
		ret = b->dp.k ? b_dir_pieces(b, 1) : 0;
		if (!ret)
			ret = b_links(b, j);
		if (ret)
			return ret;
	}
	return 0;
}

static void b_release(struct build *b)
{
	FREE_ALL(b->dunit, b->order, b->items, b->umain, b->ovf, b->kb, b->dpieces);
	frag_pool_release(&b->wait);
	free(b->step);
	alloc_release(&b->al);
}

int place_once(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
	       uint64_t *need, const uint64_t *gap, size_t ngap, uint64_t gap_total)
{
	const struct plan *pl = rq->pl;
	struct layout_need n;
	struct build b;
	uint64_t base, done = 0;
	double target;
	int ret;

	memset(lo, 0, sizeof(*lo));
	memset(&b, 0, sizeof(b));
	b.rq = rq;
	b.pl = pl;
	b.lo = lo;
	b.max_ext = layout_max_ext(rq);

	/* what it needs, before any big allocation */
	layout_need_count(&n, rq, fm);
	base = n.base;
	if (need)
		*need = base;
	if (base > n.free)
		return -ENOSPC;
	if (rq->order == ORDER_SHUFFLED && (uint64_t)pl->ndirs + n.nne >= UINT32_MAX)
		return -EINVAL;

	target = rq->layout_score > 1.0 ? 1.0 : rq->layout_score;
	ret = b_breaks(&b, target, n.pairs);
	if (ret)
		goto out_free_scratch;
	b.gap = gap;
	b.ngap = ngap;
	b.nne = n.nne;
	b.gap_per_file = n.nne ? (double)gap_total / (double)n.nne : 0;

	/* free space, spread and the fragmented metadata: all small arrays */
	units_geom(fm, rq->order, &b.ug);
	ret = alloc_init(&b.al, fm, b.ug.n, rq->pool_blocks, &lo->pool_start);
	if (ret)
		goto out_free_scratch;
	lo->pool_len = rq->pool_blocks;
	ret = b_order(&b);
	if (ret)
		goto out_free_scratch;
	if (b.frag && rq->mapping == LAYOUT_EXTENTS) {
		/* indirect blocks do not depend on the extents: only trees need this */
		base += frag_meta(&b, b.order, b.items, b.nitems);
		if (need)
			*need = base;
		if (base > n.free) {
			ret = -ENOSPC;
			goto out_free_scratch;
		}
	}
	b.al.spare = n.free - base > gap_total ? n.free - base - gap_total : 0;

	ret = b_outputs(&b);
	if (!ret)
		ret = b.items ? b_place_items(&b, &done) : b_place_dirs(&b, &done);
	if (!ret && done != n.nne)
		ret = -EINVAL; /* a file outside every directory: not a plan */
	if (!ret)
		ret = pool_drain(&b);
	if (!ret)
		ret = b_assemble(&b);
	if (ret)
		goto out_free_scratch;
	if (lo->dir_ext)
		dirfrag_compact(lo, pl->ndirs);

	layout_finish(lo, &n);
	lo->target = target;
	lo->gap_blocks = b.gap_blocks;
	if (b.gi < b.ngap)
		lo->notes |= LAYOUT_NOTE_FREE;
	if (fabs(lo->score - target) > 0.005 && n.pairs >= 400)
		lo->notes |= LAYOUT_NOTE_LOST;

out_free_scratch:
	if (ret == -ENOSPC && need && lo->file_ext) {
		/* it fitted on paper: forced breaks cost metadata there was no room for */
		*need = base + b.extra + b.al.leaked;
		if (*need <= n.free)
			*need = n.free + 1;
	}
	if (ret)
		layout_release(lo);
	b_release(&b);
	return ret;
}
