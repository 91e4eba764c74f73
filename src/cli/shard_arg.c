/* shard_arg.c - `--shard`: K/N given, or read from the environment of MPI launchers, Slurm, Kubernetes */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/shard_arg.h"
#include "plan/shard.h"
#include "util/util.h"

/* A whole number in [min, max] into *v; 0 or -EINVAL. */
static int whole(const char *s, unsigned long min, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno || *end || *v < min || *v > max ? -EINVAL : 0;
}

/* Where --shard auto looks: the rank's and the size's variables, the offset's (or NULL). */
static const struct shard_source {
	const char *who, *rank, *size, *min;
} sources[] = {
	{ "Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL },
	{ "PMIx", "PMIX_RANK", "PMIX_SIZE", NULL },
	{ "MPICH/Hydra (PMI)", "PMI_RANK", "PMI_SIZE", NULL },
	{ "a Slurm job array", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN" },
	{ "Slurm", "SLURM_PROCID", "SLURM_NTASKS", NULL },
	{ "a Kubernetes Indexed Job", "JOB_COMPLETION_INDEX", "IMPRINT_SHARD_COUNT", NULL },
};

static const struct shard_source pmix_slurm = { "PMIx under Slurm", "PMIX_RANK", "SLURM_NTASKS",
					       NULL };

/* One source's K and N into *s; 0, 1 when its rank is not set, -EINVAL after a message. */
static int from_source(const struct shard_source *src, struct shard_arg *s, FILE *log)
{
	const char *rank = getenv(src->rank), *size = getenv(src->size);
	const char *min = src->min ? getenv(src->min) : NULL;
	unsigned long k, n, m = 0;

	if (!rank)
		return 1;
	/* a PMIx launcher without PMIX_SIZE: Slurm's srun --mpi=pmix says the size */
	if (!size && !strcmp(src->rank, "PMIX_RANK") && getenv(pmix_slurm.size)) {
		src = &pmix_slurm;
		size = getenv(src->size);
	}
	if (!size) {
		fprintf(log, "imprint: --shard auto: %s sets %s but not %s; give --shard K/N\n",
			src->who, src->rank, src->size);
		return -EINVAL;
	}
	if (whole(rank, 0, PLAN_SHARDS_MAX - 1, &k) || whole(size, 1, PLAN_SHARDS_MAX, &n) ||
	    (min && whole(min, 0, ~0ul, &m)) || k < m || k - m >= n) {
		fprintf(log, "imprint: --shard auto: %s=%s, %s=%s%s%s%s from %s do not make a share (expected 0 <= K < N <= %u)\n",
			src->rank, rank, src->size, size, min ? ", " : "", min ? src->min : "",
			min ? "=" : "", src->who, PLAN_SHARDS_MAX);
		if (min)
			fprintf(log, "imprint: (K is %s - %s)\n", src->rank, src->min);
		return -EINVAL;
	}
	s->k = (unsigned)(k - m);
	s->n = (unsigned)n;
	fprintf(log, "imprint: --shard auto: share %u of %u from %s (%s=%s, %s=%s%s%s%s)\n", s->k,
		s->n, src->who, src->rank, rank, src->size, size, min ? ", " : "", min ? src->min : "",
		min ? "=" : "");
	if (min)
		fprintf(log, "imprint: --shard auto: %s=%s\n", src->min, min);
	return 0;
}

static int from_env(struct shard_arg *s, FILE *log)
{
	/* in that order: a launcher's rank before Slurm's; a job array's tasks have SLURM_PROCID 0 of 1 */
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++) {
		int ret = from_source(&sources[i], s, log);

		if (ret <= 0)
			return ret;
	}
	fprintf(log, "imprint: --shard auto: no launcher's variables found (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK, SLURM_ARRAY_TASK_ID, SLURM_PROCID, JOB_COMPLETION_INDEX); give --shard K/N\n");
	return -EINVAL;
}

int shard_arg_parse(const char *arg, struct shard_arg *s, FILE *log)
{
	const char *slash = strchr(arg, '/');
	unsigned long k, n;
	char kbuf[32];

	memset(s, 0, sizeof(*s));
	s->given = 1;
	if (!strcmp(arg, "finish")) {
		s->finish = 1;
		return 0;
	}
	if (!strcmp(arg, "auto"))
		return from_env(s, log);
	if (slash && (size_t)(slash - arg) < sizeof(kbuf)) {
		memcpy(kbuf, arg, (size_t)(slash - arg));
		kbuf[slash - arg] = '\0';
		if (!whole(kbuf, 0, ~0ul, &k) && !whole(slash + 1, 0, ~0ul, &n) && n >= 1 &&
		    n <= PLAN_SHARDS_MAX && k < n) {
			s->k = (unsigned)k;
			s->n = (unsigned)n;
			return 0;
		}
	}
	fprintf(log, "imprint: '--shard' must be K/N with whole numbers 0 <= K < N <= %u (share K of N, counting from 0), 'auto' or 'finish' (got '%s')\n",
		PLAN_SHARDS_MAX, arg);
	return -EINVAL;
}
