/* churn.h - the aging's schedule: the round each plan file is created in, and room for a round's operations */
#ifndef IMPRINT_LAYOUT_CHURN_H
#define IMPRINT_LAYOUT_CHURN_H

#include <stdint.h>

#include "layout/layout.h"

/* When each plan file is created (see the top of age.c), and a round's operations. */
struct churn {
	uint64_t N;	    /* rounds after the initial population */
	double c;	    /* share of the live files replaced per round */
	uint64_t *quota;    /* plan files created in round r, r = 0..N */
	uint64_t *rstart;   /* round r creates rfiles[rstart[r] .. rstart[r + 1]) */
	uint32_t *rfiles;   /* plan files by round, shuffled */
	uint32_t *round_of; /* plan file -> its round */
	uint8_t *kinds;	    /* a round's operations: 0 delete, 1 plan file, 2 temporary */
};

/*
 * With h->N and h->c set: every plan file's round, exact quotas of the
 * survival law, shuffled (stream "age.round"), and kinds sized for the
 * busiest round.  Returns 0 or -ENOMEM (release with churn_release()).
 */
int churn_plan(struct churn *h, const struct layout_request *rq);
void churn_release(struct churn *h);

#endif
