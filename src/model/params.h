/* params.h - the one table of every parameter, its parsing and printing */
#ifndef IMPRINT_PARAMS_H
#define IMPRINT_PARAMS_H

#include <stdint.h>
#include <stdio.h>

#include "model/tables.h"

/* Longest name a named parameter ('fs') holds, its NUL included. */
#define PARAMS_NAME_MAX 16

/* appended only: the values are printed and pinned (tests/golden) */
enum depth_mode { DEPTH_POISSON, DEPTH_CARE };
enum sampling_mode { SAMPLING_STRATIFIED, SAMPLING_IID };
enum name_style { NAMES_REALISTIC, NAMES_NUMERIC };
enum ext_table { EXT_TABLE_DEFAULT, EXT_TABLE_LARGE };
enum layout_order { ORDER_DIR, ORDER_CREATION, ORDER_SHUFFLED };
enum frag_select { FRAG_SELECT_WEIGHTED, FRAG_SELECT_RANDOM, FRAG_SELECT_SIZE, FRAG_SELECT_TYPE };
enum frag_sizes { FRAG_SIZES_RANDOM, FRAG_SIZES_EQUAL, FRAG_SIZES_LOGNORMAL };
enum text_mode { TEXT_WORDS, TEXT_REPEAT, TEXT_WORDLEN };
enum xattr_selinux { SELINUX_NONE, SELINUX_TARGETED };
enum dev_dir { DEV_DIR_NONE, DEV_DIR_LINUX };

/*
 * Every parameter, resolved.  Fields marked "0 = derived" are filled in by
 * params_resolve() from the others; after it, they hold real values, and
 * printing them back gives a config that reproduces the same plan.
 */
struct params {
	uint64_t seed;             /* default 1 */
	char fs[PARAMS_NAME_MAX];  /* file system to build: a name the backends' registry supplies (params_supply_names), default its default */
	uint64_t size;             /* bytes, image capacity; 0 = derived (default 1 GiB when files/used unset) */
	uint64_t used;             /* bytes of file data; 0 = derived */
	uint64_t files;            /* regular files; 0 = derived */
	double fill_share;         /* used / size when neither used nor files given: 0.45, (0,1] */
	uint64_t inode_ratio;      /* ext2/3/4 bytes per inode; 0 = by size as mke2fs (ext4_inodes_count) */
	uint64_t inodes;           /* ext2/3/4 inode count; 0 = from inode_ratio */
	unsigned char uuid[16];    /* file system UUID; all zero = derived (params_uuid) */

	/* file size model: hybrid lognormal body + Pareto tail, truncated at size_max */
	double size_mu;            /* 9.48, natural log of bytes */
	double size_sigma;         /* 2.46, > 0 */
	double size_tail_weight;   /* 0.00006, [0,1] */
	uint64_t size_tail_xm;     /* 512 MiB, > 0 */
	double size_tail_shape;    /* 0.91, > 0 */
	uint64_t size_max;         /* 64 GiB, cap of any one file, >= 1 */
	enum sampling_mode sampling; /* stratified */

	/* directory tree */
	double files_per_dir;      /* 10.2, > 0 */
	double fpd_offset;         /* 2.36, > 0 */
	double fpd_degree;         /* 2, > 1 */
	double fpd_empty_share;    /* 0.225, [0,1) */
	uint32_t fpd_max_bin;      /* 28: counts 1..fpd_max_bin are bins, above is the tail */
	double empty_dir_share;    /* -1 = as placed: directories with no file and no subdirectory */

	/* files by depth */
	enum depth_mode depth_model; /* poisson */
	double depth_lambda;       /* 6.49, > 0 */

	/* extensions */
	enum ext_table ext_table;  /* default */

	/* special directories */
	uint32_t special_dirs;     /* 0 */
	uint64_t special_dir_files; /* 10000 files each, >= 1 */
	uint32_t special_dir_depth; /* 2, >= 1 */

	/* names */
	enum name_style name_style; /* realistic */
	double name_space_share;   /* 0.03: names with spaces */
	double name_utf8_share;    /* 0.02: names with non-ASCII UTF-8 */
	double name_upper_share;   /* 0.10: mixed or upper case names */
	double name_caps_share;    /* -1 = as the patterns give: stems in capitals only */
	double name_numeric_share; /* -1 = as the patterns give: stems of digits only */
	double name_version_share; /* -1 = as the patterns give: names holding 1.2 or ending in ~ */

	/* links */
	double hardlink_share;     /* 0.005: extra hard links, per regular file */
	double symlink_share;      /* 0.01: symlinks, per regular file */
	double symlink_dir_share;  /* 0.25: of symlinks, those pointing to directories */
	double symlink_relative_share; /* 0.6: of symlinks, relative targets */
	double symlink_dangling_share; /* 0.05: of symlinks, dangling targets */

	/* owners and permissions */
	uint32_t owner_users;      /* 3: regular users, uid/gid 1000.. */
	double owner_root_share;   /* 0.1: entries owned by root */
	double perm_private_share; /* 0.05: mode 0600 / 0700 */

	/* timestamps */
	int64_t time_ref;          /* 1767225600 (2026-01-01T00:00:00Z): "now" of the image */
	double age_median_days;    /* 200: median file age */
	double age_sigma;          /* 1.6: lognormal sigma of age */
	double age_max_days;       /* 3650: ages are capped here */

	/* on-disk layout (backends that place blocks) */
	double layout_score;       /* 1.0: target image-wide layout score, (0, 1] */
	enum layout_order layout_order; /* dir: grouped by directory; creation; shuffled */
	double frag_file_share;    /* 0 = auto: share of files of >= 2 blocks that are fragmented */
	double frag_extents;       /* 0 = auto, else >= 2: mean extents per fragmented file */
	enum frag_select frag_select; /* weighted: which files are fragmented */
	enum frag_sizes frag_sizes; /* random: how a fragmented file's pieces are sized */
	double frag_size_sigma;    /* 1.0: lognormal sigma of piece sizes (frag_sizes = lognormal) */
	double free_frag_share;    /* 0: share of free space left in free extents below free_chunk */
	uint64_t free_chunk;       /* 1 MiB: chunk size (e2freefrag -c), bound of "small" free extents */
	uint64_t free_gap_min;     /* 0 = one block: smallest gap left between files */
	double free_gap_shape;     /* 1.0: gap sizes have density ~ size^-shape (1: as many per bucket) */
	uint32_t age_rounds;       /* 0: rounds of create/delete churn on a simulated allocator */
	double age_churn;          /* 0.1: share of live files deleted and replaced per round */
	uint32_t age_stream_req;   /* 16: files of at most this many blocks use the locality group */
	uint32_t age_group_prealloc; /* 512: blocks of a locality-group preallocation */

	/* content (the plan's part: which files are whole-file copies) */
	double dup_file_share;     /* 0.1: files that are whole-file duplicates of another */
	double compress_ratio;     /* 2.0: zlib/zstd ratio of "other binary" files, [1, 5] */
	double compress_ratio_exec; /* 2.5: zlib/zstd ratio of ELF and PE files, [1.5, 2.6] */
	double dup_block_share;    /* 0.05: of their 4 KiB blocks, duplicated across files */
	double zero_block_share;   /* 0.02: of their 4 KiB blocks, all zero */
	double sparse_file_share;  /* 0: of other-binary files >= 256 KiB, those with holes */
	double sparse_hole_share;  /* 0.5: of a sparse file's whole 64 KiB units, the holes, (0, 1) */
	double text_zipf;          /* 1.0: Zipf exponent of word popularity in text, (0, 3] */
	enum text_mode text_mode;  /* words: Zipf and Heaps; repeat, wordlen: Impressions' modes */

	/* metadata beyond owners and times (doc/model.md, "Metadata"); all off by default */
	double special_file_share; /* 0: FIFOs, sockets and device nodes, per regular file */
	enum xattr_selinux xattr_selinux; /* none: security.selinux on every entry (targeted) */
	double xattr_user_share;   /* 0: files and directories with user.* attributes */
	double acl_share;          /* 0: files and directories with a POSIX access ACL */
	double prealloc_file_share; /* 0: of other-binary files >= 256 KiB, those with preallocated space */
	enum layout_order inode_order; /* dir: inode numbers follow the directory walk; creation; shuffled */
	double dir_slack;          /* 0: share of directory entry space left free by deleted entries */
	double dir_frag_share;     /* 0: of directories of two or more blocks, those split apart */
	enum dev_dir dev_dir;      /* none: a top-level 'dev' with a Linux system's device nodes (linux) */
	/* generations (doc/model.md, "Generations"): change between generation N-1 and N */
	double gen_interval_days;  /* 1: time between generations */
	double gen_modify_share;   /* 0.02: files modified per generation */
	double gen_delete_share;   /* 0.005: files deleted */
	double gen_create_share;   /* 0.01: files created, per live file (gen_growth_share < 0) */
	double gen_growth_share;   /* 0.0005: bytes the tree grows by per generation, per byte;
				    * new files are drawn until it has; < 0: by gen_create_share */
	double gen_rename_share;   /* 0.002: files renamed in their directory */
	double gen_move_share;     /* 0.001: files moved to another directory */
	double gen_meta_share;     /* 0.005: metadata-only changes */
	double gen_mode_share;     /* 0.2: of those, mode changes too */
	double gen_repeat_factor;  /* 5: rate multiplier of files changed in the previous generation */
	double gen_append_share;   /* 0.1: mean appended bytes / size */
	double gen_edit_block_share; /* 0.05: blocks an in-place edit rewrites */
	double gen_truncate_share; /* 0.05: of log-like modifications, truncations */
	double gen_dir_create_share; /* 0.002: directories created, per live directory */
	double gen_dir_remove_share; /* 0.001: leaf directories removed with their files */
	double gen_new_dir_files_share; /* 0.2: new files placed in new directories */

	/* empirical laws (a profile's); empty by default (model/tables.h) */
	struct param_tables tab;

	/*
	 * The generation to plan (--generation N; not a table entry, so not
	 * printed): 0 is the plan itself, N applies generations 1..N to it.
	 */
	uint32_t generation;

	/* time_ref came from SOURCE_DATE_EPOCH (params_resolve); printed as a comment */
	int time_ref_from_env;

	/*
	 * --include: what the user's own files take of the image (bytes in
	 * blocks, inodes), off the budget before 'used' and 'files' are
	 * derived, and the names the plan leaves free in the root; not
	 * parameters (never printed), 0 and NULL without --include.  key is
	 * mixed into the identity (params_identity()).
	 */
	uint64_t reserved_bytes, reserved_inodes, reserved_key;
	const char *const *reserved_names;
	size_t nreserved;

	/* bit i set: table entry i was set explicitly (private to params.c) */
	uint64_t explicit_mask[2];
};

/* Why a param_set() or config parse failed; message is user-ready. */
struct param_error {
	char msg[512];
};

/* Fill p with every default (derived fields zero). */
void params_init(struct params *p);

/*
 * Set one parameter from text, as in a config file or --set.  `where` names
 * the source for messages ("config.cfg line 12", "--set", "--seed").  Returns
 * 0, or -EINVAL with err->msg like:
 *   config.cfg line 12: 'size_sigma' must be > 0 (got '-1')
 *   --set: unknown parameter 'size_sigm' (did you mean 'size_sigma'?)
 * Marks the parameter as explicitly set (see params_is_set()).
 */
int params_set(struct params *p, const char *key, const char *value,
	       const char *where, struct param_error *err);

/*
 * Parse a config file ("key = value" lines, '#' comments, blank lines; a key
 * given twice: the later wins).  Returns 0, -EINVAL with a message naming
 * "PATH line N", or the negative errno of a failed open or read.
 */
int params_load_file(struct params *p, const char *path, struct param_error *err);

/* Whether the user set key explicitly (file, --set or a short option). */
int params_is_set(const struct params *p, const char *key);

/*
 * Check cross-parameter constraints and derive size/used/files (see
 * doc/model.md for the rule).  Returns 0 or -EINVAL with a message.
 */
int params_resolve(struct params *p, struct param_error *err);

/*
 * Mean file size in bytes of the size model (size_mu .. size_tail_shape)
 * truncated at min(size_max, used), or at size_max while used is 0,
 * scaled to a profile's source_bytes / source_files when both are set.
 * NAN when the model admits no distribution there.
 */
double params_mean_file_size(const struct params *p);

/*
 * Print the resolved configuration in config-file format (round-trips).
 * Says in a comment when time_ref came from SOURCE_DATE_EPOCH.
 */
void params_print_config(const struct params *p, FILE *out);

/*
 * The identity key of a resolved configuration: a hash of its printed
 * setting lines (params_print_config, comments left out) mixed with the
 * seed.  The same configuration and seed give the same key; any other
 * setting, table or seed gives another.  File-system UUIDs, directory hash
 * seeds and partition and disk GUIDs are drawn from it (rng_uuid()).
 * Returns the key; on a failed allocation, a key of the seed alone.
 */
uint64_t params_identity(const struct params *p);

/*
 * A key of the change model alone (the gen_* settings, which
 * params_identity() leaves out) and the seed: the shards of one generation
 * must agree on it as well.
 */
uint64_t params_change_identity(const struct params *p);

/*
 * The file-system UUID of p as text: 'uuid' when set, else drawn from
 * params_identity() on the named stream (each backend its own).
 */
void params_fs_uuid(const struct params *p, const char *stream, char out[37]);

/*
 * The shipped profiles ('profile = NAME', --profile NAME): each name with
 * the first line of its file, from $IMPRINT_PROFILE_DIR, the installed
 * directory and the source tree's profiles/, a name listed once.
 */
void params_print_profiles(FILE *out);

/* Print the parameter list (name, type, unit, default, description). */
void params_print_list(FILE *out);

/* Print every parameter name, grouped, wrapped to width columns (for --help). */
void params_print_names(FILE *out, unsigned width);

/* The same two as JSON text. */
void params_print_config_json(const struct params *p, FILE *out);
void params_print_list_json(FILE *out);

/* Text helpers shared with the CLI.  Return 0 or -EINVAL. */
int params_parse_size(const char *s, uint64_t *out);   /* 4096, 4K, 1.5G, 2TiB: binary */
int params_parse_count(const char *s, uint64_t *out);  /* 1000, 10K, 1M: decimal */

/* Name of the parameter closest to key (edit distance), or NULL. */
const char *params_suggest(const char *key);

/*
 * Supply the names a named parameter takes, which the model does not know:
 * 'fs', whose names and default the backends' registry holds (the model
 * knows no file system; the rules a file system sets on the other
 * parameters are its backend's check hook, backends/backend.h).  names:
 * NULL-ended, each shorter than PARAMS_NAME_MAX, in the order the
 * parameter list and the errors give them; def: one of them, the value
 * params_init() gives.  Supply before params_init(); until then the
 * parameter is "" and takes no value.  The arrays must outlive every use.
 * Returns 0, or -EINVAL when key is no named parameter or def not a name.
 */
int params_supply_names(const char *key, const char *const *names, const char *def);

#endif
