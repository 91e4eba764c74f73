/* dirfrag.c - aged directories: which directories' blocks are split, into how many pieces, how long */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/dirfrag.h"
#include "util/rng.h"

int dirfrag_eligible(const struct layout_request *rq, uint64_t nb)
{
	if (nb < 2)
		return 0;
	return rq->mapping != LAYOUT_EXTENTS || nb <= layout_max_ext(rq);
}

int dirfrag_plan(const struct layout_request *rq, uint8_t **pieces)
{
	const struct plan *pl = rq->pl;
	uint64_t elig = 0, want, seen = 0, key, kp;
	uint8_t *p;

	*pieces = NULL;
	if (!(rq->dir_frag_share > 0))
		return 0;
	for (uint32_t j = 0; j < pl->ndirs; j++)
		elig += dirfrag_eligible(rq, layout_dir_blocks(rq, j));
	want = (uint64_t)llround(rq->dir_frag_share * (double)elig);
	if (want > elig)
		want = elig;
	if (!want)
		return 0;
	p = malloc(pl->ndirs);
	if (!p)
		return -ENOMEM;
	key = rng_stream_key(rq->seed, "layout.dir_frag");
	kp = rng_stream_key(rq->seed, "layout.dir_frag.pieces");
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint64_t nb = layout_dir_blocks(rq, j), most;
		struct rng r;

		p[j] = 1;
		if (!dirfrag_eligible(rq, nb))
			continue;
		/* selection sampling: exactly `want` of the eligible, each equally likely */
		rng_open(&r, key, j);
		if ((double)(elig - seen) * rng_uniform(&r) < (double)want) {
			most = nb < DIRFRAG_MAX ? nb : DIRFRAG_MAX;
			rng_open(&r, kp, j);
			p[j] = (uint8_t)(2 + rng_below(&r, most - 1));
			want--;
		}
		seen++;
	}
	*pieces = p;
	return 0;
}

void dirfrag_sizes(const struct layout_request *rq, uint32_t j, uint64_t nb, unsigned k,
		   uint64_t *len)
{
	uint64_t cut[DIRFRAG_MAX + 1];
	unsigned n = 0;
	struct rng r;

	rng_init(&r, rq->seed, "layout.dir_frag.cuts", j);
	cut[n++] = 0;
	while (n < k) {
		uint64_t c = 1 + rng_below(&r, nb - 1);
		unsigned i = n;

		for (unsigned q = 1; q < n; q++)
			if (cut[q] == c)
				i = 0;
		if (!i)
			continue;
		/* insertion keeps the cuts sorted */
		while (cut[i - 1] > c) {
			cut[i] = cut[i - 1];
			i--;
		}
		cut[i] = c;
		n++;
	}
	for (unsigned i = 0; i < k; i++)
		len[i] = (i + 1 < k ? cut[i + 1] : nb) - cut[i];
}

int dirfrag_alloc(struct layout *lo, const struct layout_request *rq, const uint8_t *pieces)
{
	const struct plan *pl = rq->pl;
	uint64_t n = 0;

	lo->dir_ext = malloc(((uint64_t)pl->ndirs + 1) * sizeof(*lo->dir_ext));
	if (!lo->dir_ext)
		return -ENOMEM;
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		lo->dir_ext[j] = n;
		if (layout_dir_blocks(rq, j))
			n += pieces[j] ? pieces[j] : 1;
	}
	lo->dir_ext[pl->ndirs] = n;
	lo->dext = calloc(n ? n : 1, sizeof(*lo->dext));
	return lo->dext ? 0 : -ENOMEM;
}

void dirfrag_compact(struct layout *lo, uint32_t ndirs)
{
	uint64_t w = 0, s = lo->dir_ext[0];

	for (uint32_t j = 0; j < ndirs; j++) {
		uint64_t e = lo->dir_ext[j + 1];

		lo->dir_ext[j] = w;
		for (uint64_t i = s; i < e; i++) {
			struct layout_extent x = lo->dext[i];

			if (w > lo->dir_ext[j] && lo->dext[w - 1].pblk + lo->dext[w - 1].len == x.pblk)
				lo->dext[w - 1].len += x.len;
			else
				lo->dext[w++] = x;
		}
		if (w > lo->dir_ext[j])
			lo->dir_start[j] = lo->dext[lo->dir_ext[j]].pblk;
		s = e;
	}
	lo->dir_ext[ndirs] = w;
}
