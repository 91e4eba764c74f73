/* prealloc.c - which files have preallocated space (unwritten ranges, blocks beyond the end), and where */
#include <string.h>

#include "content/gen.h"
#include "content/prealloc.h"
#include "content/registry.h"
#include "plan/plan.h"
#include "util/rng.h"

int prealloc_enabled(const struct plan *pl)
{
	return pl->prm.prealloc_file_share > 0;
}

int prealloc_file(const struct plan *pl, uint64_t f, struct prealloc *pa)
{
	const struct params *p = &pl->prm;
	uint64_t c = content_file_of(pl, f), size = pl->file_size[c], units, nu, seg, len, off;
	struct sparse_holes h;
	unsigned k;
	struct rng r;

	memset(pa, 0, sizeof(*pa));
	if (!(p->prealloc_file_share > 0) || size < SPARSE_MIN_SIZE)
		return 0;
	rng_init(&r, p->seed, "prealloc", c);
	if (!(rng_uniform(&r) < p->prealloc_file_share))
		return 0;
	if (content_ext_ops(plan_file_ext(pl, c)) != &gen_binary_ops ||
	    sparse_file_holes(pl, f, &h))
		return 0;
	/* k segments of whole units; in each, one unwritten range with data after it */
	units = size / SPARSE_UNIT;
	nu = (units + 2) / 4;
	k = 1 + (unsigned)rng_below(&r, PREALLOC_MAX_RANGES);
	if (k > units / 2)
		k = (unsigned)(units / 2);
	seg = units / k;
	len = nu / k ? nu / k : 1;
	if (len > seg - 1)
		len = seg - 1;
	for (unsigned i = 0; i < k; i++) {
		off = (uint64_t)i * seg + rng_below(&r, seg - len);
		pa->unw.hole[i].off = off * SPARSE_UNIT;
		pa->unw.hole[i].len = len * SPARSE_UNIT;
		pa->unw.bytes += len * SPARSE_UNIT;
	}
	pa->unw.n = k;
	/* beyond the end: 5% to 50% of the size, whole units */
	len = (uint64_t)((double)size * (0.05 + 0.45 * rng_uniform(&r)));
	pa->beyond = (len + SPARSE_UNIT - 1) / SPARSE_UNIT * SPARSE_UNIT;
	return 1;
}
