/* frag.h - a fragmented file's pieces one by one, and the pool where files wait to give them */
#ifndef IMPRINT_LAYOUT_FRAG_H
#define IMPRINT_LAYOUT_FRAG_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

/* How a fragmented file's pieces are cut. */
enum frag_how {
	HOW_PAIRS, /* selection sampling over every pair of the image */
	HOW_LOCAL, /* selection sampling over the file's own pairs */
	HOW_CUMUL, /* cumulative rounding of piece weights (equal, lognormal) */
};

/* The selection-sampling state of a fragmented file, and its next piece. */
struct frag {
	uint64_t file;
	uint64_t left;	   /* pieces still to place */
	uint64_t blocks;   /* blocks not yet given to a piece */
	uint64_t R, S;	   /* breaks and pairs left in the selection */
	uint64_t prev_end; /* block after the file's last placed run */
	struct rng r;
	/* HOW_CUMUL: piece i of P, extra = blocks - P shared by weight */
	uint64_t P, i, extra, given;
	double W, cw, sigma;
	enum frag_how how;
};

/* Length of s's next piece (selection sampling decides each pair, or the weights cut it). */
uint64_t frag_next(struct frag *s);

/* A piece's weight: 1, or lognormal of s->sigma (HOW_CUMUL), drawn from s->r. */
double frag_weight(struct frag *s);

/* A first-in first-out ring of waiting files, cap a power of two. */
struct ring {
	struct frag *e;
	size_t cap, head, n;
};

/* Files waiting to give pieces, by class (see frag.c); zeroed is empty. */
struct frag_pool {
	struct ring ring[65]; /* waiting files by class */
	unsigned top;	      /* highest class that may be non-empty */
	uint64_t pieces;      /* pieces waiting */
	uint64_t nwait;	      /* files waiting */
};

/* Add e (a copy) to the waiting files.  Returns 0 or -ENOMEM. */
int frag_pool_put(struct frag_pool *fp, const struct frag *e);

/* The next waiting file into *e, biggest class first; returns 0 when none waits, else 1. */
int frag_pool_take(struct frag_pool *fp, struct frag *e);

/* Pieces left of the file to be taken next (0 when none waits). */
uint64_t frag_pool_most(struct frag_pool *fp);

void frag_pool_release(struct frag_pool *fp);

#endif
