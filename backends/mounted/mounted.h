/* mounted.h - the mounted-path backend's shared state and its subsystems' entry points */
#ifndef IMPRINT_MOUNTED_H
#define IMPRINT_MOUNTED_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "backends/backend.h"
#include "plan/shard.h"

#define MNT_BAD_MAX 256 /* refused characters kept */

/* What the file system under DIR can hold (mnt_probe). */
struct mnt_caps {
	int symlinks, hardlinks, chown, case_sensitive, holes, fiemap;
	int ns_times;                   /* nanosecond times are kept */
	int perms, modes;               /* permission bits are kept; setuid, setgid, sticky too */
	int xattr_user, xattr_security; /* user.* and security.selinux are kept */
	int acl;                        /* POSIX ACLs are kept */
	int fail_last;                  /* test hook: fail after the last step (the undo's test) */
	long name_max;
	uint64_t file_max;              /* largest file size it takes (0: not known) */
	uint32_t bad[MNT_BAD_MAX];      /* characters of the plan's names it refuses or alters, sorted */
	unsigned nbad;
	int bad_trail;                  /* it refuses or alters a name ending in '.' or ' ' */
};

/* Everything the backend made, so that it can remove exactly that. */
struct mnt_undo {
	uint8_t *dir;   /* per plan directory (0, DIR itself, is never made) */
	uint8_t *file;  /* per plan file; set by the worker that created it */
	uint8_t *link;  /* per plan link */
	int root_meta;  /* DIR's owner, mode and attributes were changed */
	int root_saved; /* root_orig holds DIR as it was when the run began */
	struct stat root_orig;
	/* DIR's attributes of the names the plan sets on it, as they were (len -1: absent) */
	unsigned root_nx;
	char *root_xname[PLAN_XATTRS_MAX];
	void *root_xval[PLAN_XATTRS_MAX];
	ssize_t root_xlen[PLAN_XATTRS_MAX];
};

struct mnt_state {
	struct backend *b;
	const struct create_opts *o;
	const struct plan *pl;
	const struct content_source *cs;
	char *root;              /* DIR as given */
	int rootfd;              /* DIR, opened once with O_DIRECTORY | O_NOFOLLOW */
	int root_empty;          /* DIR held nothing (lost+found aside) */
	int have_openat2;        /* the kernel has openat2 (else O_NOFOLLOW walking) */
	int as_root;             /* owners can be set */
	int set_owners;          /* as root, and the file system keeps them (else --allow-drop) */
	int drop_hard, drop_sym; /* --allow-drop: the file system lacks them, skip them */
	long name_limit;         /* --allow-drop: shorten longer names to this many bytes; 0: none */
	int rename_bad;          /* --allow-drop: names with refused characters renamed */
	uint8_t *case_dir, *case_file, *case_link; /* --allow-drop: case twins renamed (or NULL) */
	int drop_modes, fill_holes, round_times;    /* --allow-drop: the file system lacks them */
	uint64_t modes_dropped, holes_filled;
	uint64_t dropped_hard, dropped_sym, renamed; /* what --allow-drop did */
	uint64_t prealloc_files; /* files given preallocated space */
	struct statvfs vfs;
	struct mnt_caps caps;
	struct mnt_undo undo;
	int populating;          /* populate() has started: abort() has work to do */
	int cleaned;             /* removal already done (or kept) */
	uint8_t *skip;           /* per file: written by frag.c, not by the workers (or NULL) */
	int quiet;
	uint64_t sparse_files, hole_blocks;
	uint64_t frag_files, frag_breaks, frag_fillers; /* what mnt_fragment did */
	int frag_syncfs;          /* a syncfs() per round (ext4), not writeback of each piece */
	uint8_t *age_live;        /* per temporary of the aging churn: it exists now */
	uint64_t age_dropped;     /* temporaries the full file system had no room for */
	uint64_t age_forced;      /* temporaries deleted early to make room for plan files */
	uint64_t frag_need;       /* breaks the target needs */
	uint64_t frag_chosen;     /* files frag_file_share/frag_extents chose */
	uint64_t measured_breaks; /* breaks the last mnt_measure saw (pairs not contiguous) */
	uint32_t *frag_got;       /* per file: the breaks FIEMAP saw after frag.c wrote it */
	uint32_t frag_notes;      /* LAYOUT_NOTE_SHARE / _EXTENTS: those gave way to the score */
	int frag_reverse;        /* write the pieces last first (xfs: no speculative preallocation) */
	unsigned long long removed, remove_failed;
	uint8_t *inc_made;        /* per --include entry: made here (include.c), or NULL */
	struct plan_shard shard;  /* --shard K/N: this share (shard.n 0: the whole plan) */
	int shard_finish;         /* --shard finish: the directories' metadata, after the shards */
	int shard_refinish;       /* a finish stopped after removing the markers: again from DIR's attribute */
	uint64_t shard_done;      /* files of the share a run before completed */
	unsigned shards_marked;   /* the count of shards DIR's marker names */
};

/* Whether the run was cancelled (the one place that knows how). */
int mnt_cancelled(const struct mnt_state *st);

/* Set b->errmsg; returns ret (a negative errno). */
#define mnt_err(st, ret, ...) backend_set_err((st)->b, (ret), __VA_ARGS__)

/* safe.c: DIR, directories beneath it, removal of what was made */
int mnt_open_root(struct mnt_state *st);
/* Whether DIR holds nothing but lost+found (and with own_names, .imprint-*); 0 or -errno. */
int mnt_dir_empty(struct mnt_state *st, int own_names, int *empty);
int mnt_open_dir(struct mnt_state *st, uint32_t dir, int *fd);
int mnt_open_rel(struct mnt_state *st, const char *rel, int *fd);
void mnt_remove_made(struct mnt_state *st);

/* names.c: the names written, the plan's unless --allow-drop shortened or renamed them */
int mnt_renaming(const struct mnt_state *st);
size_t mnt_utf8_next(const char *s, size_t len, uint32_t *cp); /* bytes of the code point at s */
size_t mnt_utf8_put(char *out, uint32_t c);
int mnt_cp_cmp(const void *a, const void *b);                  /* uint32_t code points */
int mnt_name_is_bad(const struct mnt_state *st, const char *name, size_t len); /* refused characters */
size_t mnt_name_clean(const struct mnt_state *st, char *name, size_t len);     /* made '_' */
size_t mnt_dir_name(struct mnt_state *st, uint32_t dir, char *buf, int count);
size_t mnt_file_name(struct mnt_state *st, uint64_t file, char *buf, int count);
size_t mnt_link_name(struct mnt_state *st, uint32_t link, char *buf, int count);
int mnt_dir_path(struct mnt_state *st, uint32_t dir, char *buf, size_t len);
int mnt_fit_target(struct mnt_state *st, char *buf, int len);

/* namecheck.c: the characters the file system refuses, names differing only in case */
void mnt_probe_names(struct mnt_state *st, int dfd);
void mnt_bad_list(const struct mnt_state *st, char *buf, size_t len);
int mnt_case_twins(struct mnt_state *st, uint64_t *n, char *example, size_t len, int mark);

/* probe.c: capabilities, the plan's needs against them, free space */
int mnt_probe(struct mnt_state *st);
int mnt_check_plan(struct mnt_state *st);
int mnt_check_space(struct mnt_state *st);

/* write.c: directories, file data (worker threads), links, metadata */
int mnt_make_dirs(struct mnt_state *st);
int mnt_write_files(struct mnt_state *st);
int mnt_make_links(struct mnt_state *st);
int mnt_set_dir_meta(struct mnt_state *st);    /* mnt_set_subdir_meta, then mnt_set_root_meta */
int mnt_set_subdir_meta(struct mnt_state *st); /* every directory but DIR, children first */
int mnt_set_root_meta(struct mnt_state *st);   /* DIR's, when it was empty */
int mnt_write_range(struct mnt_state *st, int fd, uint64_t f, uint64_t off, uint64_t end,
		    unsigned char *buf, size_t len);
struct plan_meta;
int mnt_file_meta(struct mnt_state *st, int fd, uint64_t f, const struct plan_meta *m);
int mnt_prealloc_after(struct mnt_state *st, int fd, uint64_t f);
int mnt_write_file(struct mnt_state *st, int dirfd, uint64_t f, unsigned char *buf, size_t len);

/*
 * shard.c: --shard.  mnt_shard_open computes the share and checks DIR's
 * marker (.imprint-shard: the plan's identity and the count of shards),
 * making it when there is none (refused on a DIR not empty without
 * --force); mnt_shard_skip marks in st->skip the files of other shards and
 * those a run before completed (a file's name appears only by the rename
 * from its temporary name, once complete); a file is written under
 * mnt_shard_tmp_name and renamed by mnt_shard_commit; mnt_shard_done makes
 * the share's .imprint-shard-done-K (after a syncfs).  For --shard finish,
 * mnt_shard_all_done refuses while one is missing (naming the shards), and
 * mnt_shard_unmark removes them and the marker, keeping its text in DIR's
 * attribute user.imprint.shard-finishing until mnt_shard_finished (after
 * DIR's times), so that a finish stopped in between runs again.  Each returns 0 or a
 * negative errno with the message set.
 */
int mnt_shard_open(struct mnt_state *st);
int mnt_shard_skip(struct mnt_state *st);
size_t mnt_shard_tmp_name(uint64_t f, char *buf, size_t len);
int mnt_shard_commit(struct mnt_state *st, int dirfd, uint64_t f);
int mnt_shard_done(struct mnt_state *st);
int mnt_shard_all_done(struct mnt_state *st);
int mnt_shard_unmark(struct mnt_state *st);
int mnt_shard_finished(struct mnt_state *st);

/* frag.c: fragmentation through the kernel, and the FIEMAP measure */
int mnt_fragment(struct mnt_state *st, double *target);
int mnt_measure(struct mnt_state *st, struct create_result *res);
/* age.c: the aging churn through the kernel */
int mnt_age(struct mnt_state *st, struct create_result *res);
void mnt_age_note(const struct mnt_state *st, char *notes, size_t len);

/* xattr.c: the planned extended attributes of an open entry, of link l in dirfd; the probe */
int mnt_xattrs_fd(struct mnt_state *st, int fd, enum plan_entry kind, uint64_t id);
int mnt_xattrs_at(struct mnt_state *st, int dirfd, const char *name, uint32_t link);
int mnt_xattr_probe(int fd, const char *name, const void *value, size_t len);
/*
 * Keep DIR's attributes of the names the plan sets on it (before they are
 * set), and put them back after a failure: the kept values, and the names
 * it did not have removed.  Save returns 0 or a negative errno.
 */
int mnt_xattrs_save_root(struct mnt_state *st);
void mnt_xattrs_restore_root(struct mnt_state *st);
void mnt_xattrs_release_root(struct mnt_state *st);

/*
 * Say in res->notes what gave way to the score, from what mnt_measure
 * measured (the figures of the summary's fragmentation line).
 */
void mnt_frag_note(const struct mnt_state *st, struct create_result *res);

#endif
