/* profile_int.h - inside profile: the walk's tallies beyond measure's, and the steps of profile_run() */
#ifndef IMPRINT_PROFILE_INT_H
#define IMPRINT_PROFILE_INT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/measure_int.h"
#include "analysis/profile.h"

#define PROFILE_NAME_LEN 256
#define PROFILE_MODES 4096
#define PROFILE_FREE_CHUNK (1u << 20) /* free space in chunks of free_chunk's default */
#define PROFILE_UIDS 4096 /* distinct owners told apart; more are counted, not kept */

/*
 * Paths by hash, for resolving symbolic links after the walk (no path is
 * kept): every entry's hash with its type in the low bits, appended as
 * met and sorted after the walk; each link's own hash and its target's.
 */
struct phash {
	uint64_t *key;  /* hash & ~3 | enum fsread_type */
	uint64_t n, cap;
	uint64_t (*link)[2]; /* {link's hash, target's hash (0: cannot tell)} */
	uint64_t nlink, link_cap;
};

struct change_model;

struct pstate {
	const struct change_model *change; /* --since: the gen_* rates come from it, or NULL */
	struct mstate m;
	const struct profile_opts *o;
	uint64_t seen; /* entries, for the progress line */

	/* names of every entry but the root */
	uint64_t names, name_len[PROFILE_NAME_LEN + 1];
	uint64_t name_len_ext[PROFILE_NAME_LEN + 1]; /* of them, files and links with an extension */
	uint64_t name_len_dir[PROFILE_NAME_LEN + 1]; /* of them, directories */
	uint64_t upper, caps, spaces, utf8, numeric, versioned; /* caps: the stem in capitals */

	/* owners and modes of every entry but the root (hard links once) */
	uint64_t entries, root_owned;
	uint64_t moded, private_mode; /* files and directories; those with a private mode */
	uint32_t uid[PROFILE_UIDS];
	uint64_t uid_files[PROFILE_UIDS];
	uint32_t nuid;
	int uid_overflow;
	uint64_t mode_file[PROFILE_MODES], mode_dir[PROFILE_MODES];

	/* subdirectories of each directory (measure's index), its parent */
	uint32_t *nsub, *dparent;
	uint32_t nsub_cap;

	/* the special directories (profile_print.c): which, their files */
	uint8_t *special;
	uint32_t nspecial;
	uint64_t special_files;

	/* symbolic links */
	uint64_t sym_relative, sym_to_dir, sym_dangling;
	struct phash paths;
	const char *strip;   /* a mounted source's absolute path: absolute targets below it */
	size_t strip_len;

	/* metadata and layout (profile_meta.c): each file's atime, as measure's mtime */
	int64_t *atime;
	size_t atime_cap;
	uint64_t sparse_unit_bytes; /* sparse files: their whole 64 KiB units */
	int have_free;              /* images: the free space, in chunks of 1 MiB */
	struct measure_free fr;
	uint64_t total_bytes;       /* images: the capacity */

	/* --content: every file's bytes */
	struct content_stats *cst;
	struct content_walk cw;
	struct fsread_error cerr;
};

/* ---- profile_walk.c: the walk's callback (arg a struct pstate) and the links' resolution */

int profile_on_entry(struct fsread *fs, const struct fsread_entry *e, void *arg);
/* Resolve the symbolic links met: sym_to_dir and sym_dangling.  0 or -ENOMEM. */
int profile_resolve_links(struct pstate *s);
void profile_pstate_release(struct pstate *s);


/* ---- profile_names.c: a sample of the name generator's names under a profile */

struct profile_name_fit {
	uint64_t n, len[PROFILE_NAME_LEN + 1];
	uint64_t upper, caps, numeric, versioned;
	double len_d; /* K-S D of the lengths against the source's */
};

/* Make names under p (directories and files as the source has them) and count them into f. */
void profile_name_fit(const struct pstate *s, const struct params *p, struct profile_name_fit *f);

/* ---- profile_meta.c: modes, ages, layout, free space and holes as parameters and tables */

/* What the walk adds for them after measure_on_entry() counted e (files_before: m.nfiles before). */
int profile_meta_entry(struct pstate *s, const struct fsread_entry *e, uint64_t files_before,
		       uint64_t sparse_before);

/* The figures the header gives beside the parameters. */
/* Points of the age and atime tables: u = 0, 0.01, ..., 1 (the profile's header names it). */
#define PROFILE_AGEQ_POINTS 101

struct pmeta {
	double age_ks_law, age_ks_table;  /* K-S D of the lognormal and of the table, source ages */
	unsigned nmodes_files, nmodes_dirs; /* distinct modes seen */
	double mode_files_left, mode_dirs_left; /* share of entries whose mode is beyond the tables */
	double frag_share, frag_extents;  /* images and FIEMAP trees */
	uint64_t sparse_eligible;         /* files a sparse file can be in the model */
	double free_share_small, free_shape; /* images: the free space below 1 MiB, the fitted shape */
	double fill;                      /* images: file bytes over the capacity */
};

/* Set p's metadata and layout parameters and tables from the tallies; 0 or -ENOMEM. */
int profile_meta(const struct pstate *s, struct params *p, struct pmeta *f);


#endif
