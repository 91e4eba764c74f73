/* layout.c - the layout's core: metadata block arithmetic, tally and score, the free space left, notes */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/arith.h"
#include "layout/layout.h"
#include "util/util.h"

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

size_t layout_dir_runs(const struct layout *lo, const struct layout_request *rq, uint32_t j,
		       struct layout_extent *one, const struct layout_extent **runs)
{
	if (lo->dir_ext) {
		*runs = lo->dext + lo->dir_ext[j];
		return (size_t)(lo->dir_ext[j + 1] - lo->dir_ext[j]);
	}
	one->pblk = lo->dir_start[j];
	one->len = layout_dir_blocks(rq, j);
	*runs = one;
	return one->len ? 1 : 0;
}

void layout_dir_tally(struct layout *lo, const struct layout_request *rq)
{
	const struct plan *pl = rq->pl;

	lo->dir_eligible = lo->dir_frag = lo->dir_pairs = lo->dir_contig = 0;
	for (uint32_t j = 0; lo->dir_start && j < pl->ndirs; j++) {
		const struct layout_extent *r;
		struct layout_extent one;
		size_t n = layout_dir_runs(lo, rq, j, &one, &r);
		uint64_t nb = layout_dir_blocks(rq, j);

		if (nb < 2)
			continue;
		lo->dir_eligible++;
		lo->dir_frag += n > 1;
		lo->dir_pairs += nb - 1;
		lo->dir_contig += nb - n;
	}
	lo->dir_score = lo->dir_pairs ? (double)lo->dir_contig / (double)lo->dir_pairs : 1.0;
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

uint64_t layout_contig_meta(const struct layout_request *rq, uint64_t f, uint64_t n)
{
	if (!n)
		return 0;
	return layout_file_meta(rq, f, n, ext_count(layout_max_ext(rq), n));
}

void layout_need_count(struct layout_need *n, const struct layout_request *rq,
		       const struct freemap *fm)
{
	const struct plan *pl = rq->pl;
	memset(n, 0, sizeof(*n));
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t b = layout_file_blocks(rq, f);

		n->data += b;
		n->meta += layout_contig_meta(rq, f, b);
		n->pairs += b >= 2 ? b - 1 : 0;
		n->nne += b != 0;
	}
	for (uint32_t j = 0; j < pl->ndirs; j++)
		n->dirs += layout_dir_blocks(rq, j);
	for (uint32_t l = 0; l < pl->nlinks; l++)
		n->links += layout_link_blocks(rq, l);
	for (size_t i = 0; i < fm->nruns; i++)
		n->free += fm->runs[i].len;
	n->base = n->data + n->meta + n->dirs + n->links + rq->pool_blocks;
}

int layout_arrays_alloc(struct layout *lo, const struct plan *pl)
{
	lo->nfiles = pl->nfiles;
	lo->file_ext = calloc(pl->nfiles + 1, sizeof(*lo->file_ext));
	lo->file_meta = calloc(pl->nfiles ? pl->nfiles : 1, sizeof(*lo->file_meta));
	lo->file_nmeta = calloc(pl->nfiles ? pl->nfiles : 1, sizeof(*lo->file_nmeta));
	lo->dir_start = calloc(pl->ndirs ? pl->ndirs : 1, sizeof(*lo->dir_start));
	lo->link_block = calloc(pl->nlinks ? pl->nlinks : 1, sizeof(*lo->link_block));
	if (!lo->file_ext || !lo->file_meta || !lo->file_nmeta || !lo->dir_start || !lo->link_block)
		return -ENOMEM;
	return 0;
}

void layout_finish(struct layout *lo, const struct layout_need *n)
{
	uint64_t meta = 0;

	for (uint64_t f = 0; f < lo->nfiles; f++)
		meta += lo->file_nmeta[f];
	lo->blocks_used = n->data + meta + n->dirs + n->links + lo->pool_len;
	layout_tally(lo);
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
	cap = lo->next + lo->nfiles + (lo->dir_ext ? lo->dir_ext[pl->ndirs] : pl->ndirs) +
	      pl->nlinks + 1;
	u = malloc(cap * sizeof(*u));
	if (!u)
		return -ENOMEM;
	for (uint64_t i = 0; i < lo->next; i++)
		u[nu++] = (struct span){ lo->ext[i].pblk, lo->ext[i].len };
	for (uint64_t f = 0; f < lo->nfiles; f++)
		if (lo->file_nmeta[f])
			u[nu++] = (struct span){ lo->file_meta[f], lo->file_nmeta[f] };
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		const struct layout_extent *dr;
		struct layout_extent one;
		size_t n = layout_dir_runs(lo, rq, j, &one, &dr);

		for (size_t i = 0; i < n; i++)
			u[nu++] = (struct span){ dr[i].pblk, dr[i].len };
	}
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (layout_link_blocks(rq, l))
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
	rq->age_scaled_sizes = params_is_set(p, "files") && params_is_set(p, "used");
	rq->dir_frag_share = p->dir_frag_share;
}

void layout_release(struct layout *lo)
{
	FREE_ALL(lo->file_ext, lo->ext, lo->file_meta, lo->file_nmeta, lo->dir_start,
		 lo->link_block, lo->dir_ext, lo->dext);
	memset(lo, 0, sizeof(*lo));
}
