/* sparse.c - which files have holes, and where */
#include <string.h>

#include "content/registry.h"
#include "content/gen.h"
#include "plan/plan.h"
#include "util/rng.h"
#include "content/sparse.h"

int sparse_enabled(const struct plan *pl)
{
	return pl->prm.sparse_file_share > 0;
}

/* Split total into k >= 1 parts of at least lo each (total >= k * lo), at random. */
static void split(struct rng *r, uint64_t total, unsigned k, uint64_t lo, uint64_t *part)
{
	uint64_t free_units = total - (uint64_t)k * lo, cut[SPARSE_MAX_HOLES + 1];

	/* k - 1 sorted cut points in [0, free_units]: the gaps are the parts' excess */
	for (unsigned i = 0; i + 1 < k; i++) {
		uint64_t c = rng_below(r, free_units + 1);
		unsigned j = i;

		while (j > 0 && cut[j - 1] > c) {
			cut[j] = cut[j - 1];
			j--;
		}
		cut[j] = c;
	}
	for (unsigned i = 0; i < k; i++) {
		uint64_t a = i ? cut[i - 1] : 0, b = i + 1 < k ? cut[i] : free_units;

		part[i] = lo + (b - a);
	}
}

unsigned sparse_file_holes(const struct plan *pl, uint64_t f, struct sparse_holes *h)
{
	const struct params *p = &pl->prm;
	uint64_t c = content_file_of(pl, f), size = pl->file_size[c], units, nh, nd;
	uint64_t hole[SPARSE_MAX_HOLES], data[SPARSE_MAX_HOLES + 1], off;
	unsigned k;
	struct rng r;

	h->n = 0;
	h->bytes = 0;
	if (!(p->sparse_file_share > 0) || size < SPARSE_MIN_SIZE)
		return 0;
	rng_init(&r, p->seed, "sparse", c);
	if (!(rng_uniform(&r) < p->sparse_file_share))
		return 0;
	if (content_ext_ops(plan_file_ext(pl, c)) != &gen_binary_ops)
		return 0;

	/* whole units only: a partial last unit stays data */
	units = size / SPARSE_UNIT;
	nh = (uint64_t)(p->sparse_hole_share * (double)units + rng_uniform(&r));
	if (nh < 1)
		nh = 1;
	if (nh > units - 1)
		nh = units - 1;
	nd = units - nh;
	/* k holes need k - 1 data runs between them */
	k = 1 + (unsigned)rng_below(&r, SPARSE_MAX_HOLES);
	if (k > nh)
		k = (unsigned)nh;
	if (k > nd + 1)
		k = (unsigned)(nd + 1);
	split(&r, nh, k, 1, hole);
	/* k + 1 data runs: the inner ones at least a unit, the two ends maybe empty */
	split(&r, nd + 2, k + 1, 1, data);
	data[0]--;
	data[k]--;

	off = data[0];
	for (unsigned i = 0; i < k; i++) {
		h->hole[i].off = off * SPARSE_UNIT;
		h->hole[i].len = hole[i] * SPARSE_UNIT;
		h->bytes += h->hole[i].len;
		off += hole[i] + data[i + 1];
	}
	h->n = k;
	return k;
}

void sparse_zero(const struct sparse_holes *h, uint64_t off, void *buf, size_t len)
{
	uint64_t end = off + len;

	for (unsigned i = 0; i < h->n; i++) {
		uint64_t s = h->hole[i].off, e = s + h->hole[i].len;

		if (s < off)
			s = off;
		if (e > end)
			e = end;
		if (s < e)
			memset((char *)buf + (s - off), 0, e - s);
	}
}

uint64_t sparse_lblk(const struct sparse_holes *h, uint32_t bs, uint64_t a)
{
	uint64_t l = a;

	for (unsigned i = 0; i < h->n; i++) {
		if (h->hole[i].off / bs > l)
			break;
		l += h->hole[i].len / bs;
	}
	return l;
}

uint64_t sparse_data_left(const struct sparse_holes *h, uint32_t bs, uint64_t l)
{
	for (unsigned i = 0; i < h->n; i++)
		if (h->hole[i].off / bs > l)
			return h->hole[i].off / bs - l;
	return UINT64_MAX;
}

int sparse_all_hole(const struct sparse_holes *h, uint32_t bs, uint64_t l, uint64_t n)
{
	for (unsigned i = 0; i < h->n; i++) {
		uint64_t s = h->hole[i].off / bs, e = s + h->hole[i].len / bs;

		if (l >= s && l + n <= e)
			return 1;
	}
	return 0;
}
