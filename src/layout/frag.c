/* frag.c - a fragmented file's pieces one by one, and the pool where files wait to give them */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/frag.h"
#include "util/rng.h"

/* A standard normal draw (Box-Muller, one of the pair). */
static double normal_draw(struct rng *r)
{
	double u = rng_uniform(r), v = rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

double frag_weight(struct frag *s)
{
	return s->sigma > 0 ? exp(s->sigma * normal_draw(&s->r)) : 1.0;
}

uint64_t frag_next(struct frag *s)
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
		s->cw += frag_weight(s);
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

int frag_pool_put(struct frag_pool *fp, const struct frag *e)
{
	unsigned c = pool_class(e->left);
	struct ring *r = &fp->ring[c];

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
	if (c > fp->top)
		fp->top = c;
	fp->pieces += e->left;
	fp->nwait++;
	return 0;
}

int frag_pool_take(struct frag_pool *fp, struct frag *e)
{
	struct ring *r;

	while (fp->top && !fp->ring[fp->top].n)
		fp->top--;
	if (!fp->top)
		return 0;
	r = &fp->ring[fp->top];
	*e = r->e[r->head];
	r->head = (r->head + 1) & (r->cap - 1);
	r->n--;
	fp->pieces -= e->left;
	fp->nwait--;
	return 1;
}


uint64_t frag_pool_most(struct frag_pool *fp)
{
	while (fp->top && !fp->ring[fp->top].n)
		fp->top--;
	return fp->ring[fp->top].e[fp->ring[fp->top].head].left;
}

void frag_pool_release(struct frag_pool *fp)
{
	for (size_t c = 0; c < 65; c++)
		free(fp->ring[c].e);
	memset(fp, 0, sizeof(*fp));
}
