/* build.c - layout_build(): checks the request and picks the strategy (aging, shaped or plain placement) */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "layout/age.h"
#include "layout/layout.h"
#include "layout/place.h"
#include "layout/shape.h"

/* What every strategy relies on: a plan, a free map, sizes and targets in range. */
static int request_check(const struct layout_request *rq, const struct freemap *fm)
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
	    (rq->free_chunk & (rq->free_chunk - 1)) || !(rq->free_gap_shape >= 0) ||
	    !(rq->dir_frag_share >= 0 && rq->dir_frag_share <= 1))
		return -EINVAL;
	return 0;
}

int layout_build(struct layout *lo, const struct layout_request *rq, const struct freemap *fm,
		 uint64_t *need)
{
	int ret;

	memset(lo, 0, sizeof(*lo));
	ret = request_check(rq, fm);
	if (ret)
		return ret;
	if (rq->age_rounds)
		ret = age_build(lo, rq, fm, need);
	else if (rq->free_frag_share > 0)
		ret = shape_build(lo, rq, fm, need);
	else
		ret = place_once(lo, rq, fm, need, NULL, 0, 0);
	if (!ret)
		layout_dir_tally(lo, rq);
	return ret;
}
