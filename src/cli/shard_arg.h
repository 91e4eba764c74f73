/* shard_arg.h - `--shard K/N|auto|finish`: which share of the plan this client writes or checks */
#ifndef IMPRINT_SHARD_ARG_H
#define IMPRINT_SHARD_ARG_H

#include <stdio.h>

/* What --shard asked. */
struct shard_arg {
	int given;      /* --shard was on the line */
	int finish;     /* --shard finish: the step after all shards */
	unsigned k, n;  /* share k of n (0 <= k < n <= PLAN_SHARDS_MAX) */
};

/*
 * Parse the argument of --shard into *s: "K/N", "finish", or "auto" (K
 * and N from the launcher's environment: Open MPI, PMIx, MPICH/Hydra's
 * PMI, Slurm's task or job array, a Kubernetes Indexed Job with
 * IMPRINT_SHARD_COUNT; which one is said on log).  Returns 0, or -EINVAL
 * after a message on log.
 */
int shard_arg_parse(const char *arg, struct shard_arg *s, FILE *log);

#endif
