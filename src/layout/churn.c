/* churn.c - the aging's schedule: the round each plan file is created in, and room for a round's operations */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "layout/churn.h"
#include "model/dist.h"
#include "util/rng.h"
#include "util/util.h"

int churn_plan(struct churn *h, const struct layout_request *rq)
{
	uint64_t N = h->N, n = rq->pl->nfiles, maxops = 0;
	double c = h->c, *prob = calloc(N + 1, sizeof(*prob));
	int ret = -ENOMEM;

	h->quota = calloc(N + 1, sizeof(*h->quota));
	h->rstart = calloc(N + 2, sizeof(*h->rstart));
	h->round_of = calloc(n ? n : 1, sizeof(*h->round_of));
	h->rfiles = calloc(n ? n : 1, sizeof(*h->rfiles));
	if (!prob || !h->quota || !h->rstart || !h->round_of || !h->rfiles)
		goto out_free_prob;
	prob[0] = pow(1 - c, (double)N);
	for (uint64_t r = 1; r <= N; r++)
		prob[r] = c * pow(1 - c, (double)(N - r));
	quotas_from_probs(prob, N + 1, n, h->quota);
	for (uint64_t f = 0; f < n; f++)
		h->rfiles[f] = (uint32_t)f;
	rng_shuffle_u32(h->rfiles, n, rng_stream_key(rq->seed, "age.round"), 0);
	for (uint64_t r = 0, k = 0; r <= N; r++) {
		h->rstart[r] = k;
		for (uint64_t q = 0; q < h->quota[r]; q++)
			h->round_of[h->rfiles[k++]] = (uint32_t)r;
	}
	h->rstart[N + 1] = n;

	/* room for the busiest round's operations */
	for (uint64_t r = 1; r <= N; r++) {
		uint64_t d = (uint64_t)llround(c * (double)n);

		if (d < h->quota[r])
			d = h->quota[r];
		if (d > maxops)
			maxops = d;
	}
	h->kinds = malloc(2 * maxops + 2);
	if (!h->kinds && maxops)
		goto out_free_prob;
	ret = 0;

out_free_prob:
	free(prob);
	return ret;
}

void churn_release(struct churn *h)
{
	FREE_ALL(h->quota, h->rstart, h->round_of, h->rfiles, h->kinds);
}
