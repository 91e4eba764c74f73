/* measure_arith.c - measure's arithmetic: log2 buckets, layout score, free space, quantiles */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "read/fsread.h"
#include "analysis/measure.h"

unsigned measure_log2(uint64_t v)
{
	return v ? 63 - (unsigned)__builtin_clzll(v) : 0;
}

uint64_t measure_layout_add(struct measure_layout *l, const struct fsread_extent *ext, size_t n)
{
	uint64_t blocks = 0, frags = 0, contig = 0;

	for (size_t i = 0; i < n; i++) {
		blocks += ext[i].len;
		if (ext[i].len)
			contig += ext[i].len - 1;
		if (i && ext[i - 1].physical + ext[i - 1].len == ext[i].physical)
			contig++;
		else if (ext[i].len)
			frags++;
	}
	l->fragments += frags;
	if (frags > l->max_fragments)
		l->max_fragments = frags;
	l->per_file[frags > 32 ? 33 : frags]++;
	if (blocks < 2)
		return frags;
	l->files++;
	l->pairs += blocks - 1;
	l->contiguous += contig;
	if (frags < 2)
		return frags;
	l->fragmented++;
	l->frag_fragments += frags;
	l->frag_blocks += blocks;
	/* the fragments' sizes: physically adjacent runs make one */
	for (size_t i = 0; i < n;) {
		uint64_t len = ext[i].len;
		size_t j = i + 1;

		while (j < n && ext[j - 1].physical + ext[j - 1].len == ext[j].physical)
			len += ext[j++].len;
		if (len)
			l->frag_size[measure_log2(len)]++;
		i = j;
	}
	return frags;
}

double measure_layout_score(const struct measure_layout *l)
{
	return l->pairs ? (double)l->contiguous / (double)l->pairs : 1.0;
}

int measure_free_hist(const struct fsread_extent *runs, size_t n, uint64_t nblocks,
		      uint64_t first_data_block, uint64_t chunk_blocks, struct measure_free *f)
{
	uint64_t prev_end = 0;

	memset(f, 0, sizeof(*f));
	if (!chunk_blocks)
		return -EINVAL;
	f->chunk_blocks = chunk_blocks;
	f->total_chunks = (nblocks + chunk_blocks) / chunk_blocks;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = runs[i].physical, len = runs[i].len, e = s + len;
		unsigned b;

		if (!len || s < prev_end || e > nblocks || e < s)
			return -EINVAL;
		prev_end = e;
		b = measure_log2(len);
		f->count[b]++;
		f->blocks[b] += len;
		f->free_blocks += len;
		f->extents++;
		if (!f->min_len || len < f->min_len)
			f->min_len = len;
		if (len > f->max_len)
			f->max_len = len;
		if (len < chunk_blocks)
			f->small_blocks += len;
		/* wholly free aligned chunks inside [max(s, first_data_block), e) */
		if (s < first_data_block)
			s = first_data_block;
		if (s < e) {
			uint64_t c0 = (s + chunk_blocks - 1) / chunk_blocks, c1 = e / chunk_blocks;

			if (c1 > c0)
				f->free_chunks += c1 - c0;
		}
	}
	return 0;
}

int64_t measure_quantile(const int64_t *v, size_t n, double q)
{
	double r;
	size_t k;

	if (!n)
		return 0;
	r = ceil(q * (double)n);
	k = r < 1 ? 0 : (size_t)r - 1;
	return v[k < n ? k : n - 1];
}
