/* generation.h - generation N of a plan: the same tree after N rounds of realistic change */
#ifndef IMPRINT_PLAN_GENERATION_H
#define IMPRINT_PLAN_GENERATION_H

#include <stdint.h>

#include "model/params.h"
#include "util/rng.h"

struct plan;
struct plan_error;

/* Kinds of a file's content change (struct plan_gen_edit.kind). */
enum gen_edit_kind {
	GEN_EDIT_CREATE,   /* a new file: [0, to) made fresh */
	GEN_EDIT_APPEND,   /* [from, to) appended */
	GEN_EDIT_BLOCKS,   /* some 4 KiB blocks of [0, to) rewritten in place (gen_edit_block_share) */
	GEN_EDIT_REWRITE,  /* the whole file, [0, to), rewritten */
	GEN_EDIT_TRUNCATE, /* cut to `to` bytes */
	GEN_EDIT_KINDS,
};

/* One content change of one file; a file's changes are a list, newest first. */
struct plan_gen_edit {
	uint64_t from, to;
	uint32_t gen;
	uint32_t prev;     /* the file's previous change, or PLAN_NONE */
	uint8_t kind;      /* enum gen_edit_kind */
};

/* What generation n changed against n - 1: entries and bytes by kind of change. */
struct plan_gen_counts {
	uint64_t files_unchanged;
	uint64_t files[GEN_EDIT_KINDS];   /* by enum gen_edit_kind; CREATE: new files */
	uint64_t bytes[GEN_EDIT_KINDS];   /* bytes written (APPEND: appended; BLOCKS: blocks
					   * rewritten; TRUNCATE: bytes cut off) */
	uint64_t files_deleted, bytes_deleted;  /* dir removals' files included */
	uint64_t files_renamed, files_moved;
	uint64_t files_meta, files_mode;        /* metadata-only changes; of them, mode */
	uint64_t dirs_created, dirs_removed;
	uint64_t blocks, blocks_kept;   /* 4 KiB blocks of generation n's files; of them, those
					 * whose bytes generation n - 1 holds at the same file's offset */
};

/* The is-a-generation part of a plan (plan.gen), NULL in generation 0. */
struct plan_gen {
	uint32_t n;                  /* the generation */
	struct plan *base;           /* generation 0, owned unless base_borrowed */
	uint8_t base_borrowed;       /* base is another plan's (plan_generation_apply2's prev) */
	uint64_t *file_key;          /* each file's stable id: its generation-0 id, or
				      * base->nfiles + k for the k-th file created since */
	uint64_t *file_name_id;      /* id its name is drawn from (its key unless renamed or new) */
	uint32_t *file_tgen;         /* generation of its last mtime change, 0: generation 0's */
	uint32_t *file_cgen;         /* generation it was created, 0 */
	uint8_t *file_modes;         /* mode changes (each toggles S_IWGRP) */
	uint32_t *file_last_edit;    /* its newest content change in edit[], or PLAN_NONE */
	uint32_t *dir_key;           /* each directory's stable id (base->ndirs + k if new) */
	uint64_t *dir_name_id;
	uint32_t *dir_tgen;          /* generation its entries last changed, 0 */
	uint32_t *dir_cgen;          /* generation it was created, 0 */
	struct plan_gen_edit *edit;
	uint32_t nedits;
	struct plan_gen_counts counts;   /* generation n against n - 1 */
};

/*
 * Turn pl (a plan just built, generation 0) into generation n of it:
 * applies generations 1..n of the change model (the gen_* parameters) in
 * turn, each drawn from (seed, generation, entry).  Refuses (-EINVAL, err
 * says why) what the change model does not handle yet: special
 * directories, a /dev directory, special files, extended attributes,
 * ACLs, sparse and preallocated files.  Returns 0, -EINVAL or -ENOMEM
 * (pl is then generation 0 still).
 */
int plan_generation_apply(struct plan *pl, uint32_t n, struct plan_error *err);

/*
 * The same, and with prev not NULL and n >= 2, generation n - 1 into prev
 * (zeroed first by the caller) from the same replay: prev borrows pl's
 * generation 0, so release prev before pl.  On failure prev is released.
 */
int plan_generation_apply2(struct plan *pl, struct plan *prev, uint32_t n,
			   struct plan_error *err);

/* Free a plan's generation part but not its base (plan_release() frees both). */
void plan_gen_free(struct plan_gen *g);

/* Name of a change kind: "created", "appended", "edited", "rewritten", "truncated". */
const char *plan_gen_kind_name(unsigned kind);

/* The time (seconds) generation g ends at: time_ref + g * gen_interval_days. */
static inline double plan_gen_time(const struct params *p, uint32_t g)
{
	return (double)p->time_ref + (double)g * p->gen_interval_days * 86400.0;
}

/*
 * Whether block b (4 KiB) of a file of key `key` is rewritten by its
 * GEN_EDIT_BLOCKS change e: block e->from always, the others each with
 * probability share (gen_edit_block_share).  The plan's counts and the
 * content source both ask this.
 */
static inline int plan_gen_block_edited(uint64_t key, const struct plan_gen_edit *e, uint64_t b,
					double share)
{
	uint64_t h = rng_mix64(rng_mix64(key + 0x9E3779B97F4A7C15u) ^ ((uint64_t)e->gen << 40) ^ b);

	return b == e->from || (double)(h >> 11) * (1.0 / 9007199254740992.0) < share;
}

#endif
