/* shard.h - one plan shared out among N clients: who makes which file, link and directory */
#ifndef IMPRINT_SHARD_H
#define IMPRINT_SHARD_H

#include <stdint.h>

#include "plan/plan.h"

#define PLAN_SHARDS_MAX 65536u /* the owner of an entry is kept in 16 bits */
#define PLAN_SHARD_ENTRY_COST 8192u /* what an entry costs beside its bytes */

/*
 * Share k of n of a plan.  Files go to the shards by a greedy partition
 * that every client computes alike: sorted by cost (bytes plus
 * PLAN_SHARD_ENTRY_COST, plus that again per hard link to it) from the
 * largest, ties by plan index, each to the least loaded shard (ties: the
 * lowest shard).  A hard link and a symbolic link to a file go with the
 * file; a symbolic link to a directory with the directory's shard (its id
 * modulo n); special files, least loaded first, after the files.  A shard
 * makes the directories above its entries and those whose id modulo n is
 * its own (so that empty directories are made too).
 */
struct plan_shard {
	unsigned k, n;          /* this share, of n (n 0: the whole plan, nothing allocated) */
	uint16_t *file_owner;   /* per file: its shard */
	uint16_t *link_owner;   /* per link: its shard */
	uint8_t *dir_need;      /* per directory: this share makes it */
	uint64_t files, links, bytes, dirs; /* what this share holds */
};

/* Compute share k of n of pl into sh; n 0: the whole plan.  Returns 0 or -ENOMEM, -EINVAL. */
int plan_shard_init(struct plan_shard *sh, const struct plan *pl, unsigned k, unsigned n);

void plan_shard_release(struct plan_shard *sh);

/* Whether share sh makes file f, link l, directory d (always with n 0). */
static inline int plan_shard_has_file(const struct plan_shard *sh, uint64_t f)
{
	return !sh->n || sh->file_owner[f] == sh->k;
}

static inline int plan_shard_has_link(const struct plan_shard *sh, uint32_t l)
{
	return !sh->n || sh->link_owner[l] == sh->k;
}

static inline int plan_shard_has_dir(const struct plan_shard *sh, uint32_t d)
{
	return !sh->n || sh->dir_need[d];
}

#endif
