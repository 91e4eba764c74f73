/* memo.c - the record shared by the parts of a file made by several threads (gen_memo, gen.h) */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zlib.h>

#include "content/gen.h"
#include "content/memo.h"

/* The CRC-32 of bytes [at, at + len) of a member. */
struct memo_sum {
	uint64_t member, at, len;
	uint32_t crc;
};

struct gen_memo {
	pthread_mutex_t lock;
	struct memo_sum *sum;
	size_t nsum, capsum;
	bool sorted;
	uint64_t *doff, *dlen; /* deferred ranges of the file */
	size_t nd, capd;
	bool final;
	int err;
};

struct gen_memo *gen_memo_new(void)
{
	struct gen_memo *m = calloc(1, sizeof(*m));

	if (m && pthread_mutex_init(&m->lock, NULL)) {
		free(m);
		m = NULL;
	}
	return m;
}

void gen_memo_free(struct gen_memo *m)
{
	if (!m)
		return;
	pthread_mutex_destroy(&m->lock);
	free(m->sum);
	free(m->doff);
	free(m->dlen);
	free(m);
}

/* Room for one more of n in *cap elements of size at *p (and at *q, when not NULL). */
static bool memo_room(void **p, void **q, size_t n, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 64;
	void *np, *nq;

	if (n < *cap)
		return true;
	np = realloc(*p, c * size);
	if (!np)
		return false;
	*p = np;
	if (q) {
		nq = realloc(*q, c * size);
		if (!nq)
			return false;
		*q = nq;
	}
	*cap = c;
	return true;
}

void gen_memo_sum(struct gen_memo *m, uint64_t member, uint64_t at, uint64_t len, uint32_t crc)
{
	if (!m || !len)
		return;
	pthread_mutex_lock(&m->lock);
	if (m->final) {
		/* the fixup's sums: the parts' tile every member already */
	} else if (memo_room((void **)&m->sum, NULL, m->nsum, &m->capsum, sizeof(*m->sum))) {
		m->sum[m->nsum++] = (struct memo_sum){ member, at, len, crc };
		m->sorted = false;
	} else {
		m->err = -ENOMEM;
	}
	pthread_mutex_unlock(&m->lock);
}

static int sum_cmp(const void *a, const void *b)
{
	const struct memo_sum *x = a, *y = b;

	if (x->member != y->member)
		return x->member < y->member ? -1 : 1;
	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->len < y->len ? -1 : x->len > y->len;
}

int gen_memo_crc(struct gen_memo *m, uint64_t member, uint64_t size, uint32_t *crc)
{
	size_t lo = 0, hi;
	uint64_t covered = 0;
	uint32_t c = 0;

	if (!m)
		return 0;
	if (!size) {
		*crc = 0;
		return 1;
	}
	pthread_mutex_lock(&m->lock);
	if (!m->sorted) {
		qsort(m->sum, m->nsum, sizeof(*m->sum), sum_cmp);
		m->sorted = true;
	}
	hi = m->nsum;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->sum[mid].member < member)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* the sums tile the member from 0 (a range made twice counts once) */
	for (; lo < m->nsum && m->sum[lo].member == member && covered < size; lo++) {
		const struct memo_sum *s = &m->sum[lo];

		if (s->at + s->len <= covered)
			continue;
		if (s->at != covered)
			break;
		c = (uint32_t)crc32_combine(c, s->crc, (z_off_t)s->len);
		covered += s->len;
	}
	pthread_mutex_unlock(&m->lock);
	if (covered != size)
		return 0;
	*crc = c;
	return 1;
}

int gen_memo_defer(struct gen_memo *m, uint64_t off, uint64_t len)
{
	int ok = 0;

	if (!m)
		return 0;
	pthread_mutex_lock(&m->lock);
	if (!m->final) {
		ok = 1;
		if (memo_room((void **)&m->doff, (void **)&m->dlen, m->nd, &m->capd,
			      sizeof(*m->doff))) {
			m->doff[m->nd] = off;
			m->dlen[m->nd++] = len;
		} else {
			m->err = -ENOMEM;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return ok;
}

static int u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

long gen_memo_finish(struct gen_memo *m, const uint64_t **off, const uint64_t **len)
{
	size_t n = 0;

	pthread_mutex_lock(&m->lock);
	m->final = true;
	pthread_mutex_unlock(&m->lock);
	if (m->err)
		return m->err;
	/* sort the ranges by start: the pairs as one array of (off, end) */
	{
		uint64_t *pair = malloc((m->nd ? m->nd : 1) * 2 * sizeof(*pair));

		if (!pair)
			return -ENOMEM;
		for (size_t i = 0; i < m->nd; i++) {
			pair[2 * i] = m->doff[i];
			pair[2 * i + 1] = m->doff[i] + m->dlen[i];
		}
		qsort(pair, m->nd, 2 * sizeof(*pair), u64_cmp);
		for (size_t i = 0; i < m->nd; i++) {
			uint64_t s = pair[2 * i], e = pair[2 * i + 1];

			if (n && s <= m->doff[n - 1] + m->dlen[n - 1]) {
				if (e > m->doff[n - 1] + m->dlen[n - 1])
					m->dlen[n - 1] = e - m->doff[n - 1];
				continue;
			}
			m->doff[n] = s;
			m->dlen[n++] = e - s;
		}
		free(pair);
	}
	m->nd = n;
	*off = m->doff;
	*len = m->dlen;
	return (long)n;
}
