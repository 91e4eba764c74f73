/* tables.h - the model's tables (a profile's empirical laws): storage, text form, and the laws they give */
#ifndef IMPRINT_TABLES_H
#define IMPRINT_TABLES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TAB_SIZEQ_MAX 1025 /* file size quantiles */
#define TAB_DEPTH_MAX 64   /* depths a depth table holds */
#define TAB_FPD_MAX 502    /* files-per-directory bins, the tail included */
#define TAB_EXT_MAX 400    /* extensions of an extension table */
#define TAB_EXT_LEN 16     /* longest extension, NUL included */
#define TAB_SBE_MAX (TAB_EXT_MAX + 1) /* extension classes with their own sizes, "*" too */
#define TAB_SBE_Q 17       /* quantiles of one class's sizes */
#define TAB_NAMELEN_MAX 256 /* name lengths 0..255 bytes */
#define TAB_SUBDIRS_MAX 1024 /* distinct subdirectory counts of a subdirs_table */
#define TAB_SPECIAL_MAX 64  /* special directories of a special_dir_table */
#define TAB_MODE_MAX 64    /* permission modes of a mode table */
#define TAB_AGEQ_MAX 1025  /* age quantiles */
#define TAB_EXTC_MAX 32    /* extensions with content figures of their own */
#define TAB_EXTC_F 6       /* the figures: gzip ratio, dup files, dup blocks, zero blocks, text,
			      distinct words per KiB (0: not measured) */
#define TAB_EXTC_WORDS 5   /* the last, optional in a profile */

/*
 * Tables that replace a parametric law when they are not empty (a count
 * of 0 is the default: the model as it was).  They live inside struct
 * params, so copying the parameters copies them.  doc/model.md,
 * "Profiles", gives their meaning; their keys in a config file:
 *
 *   size_quantiles = q0 q1 ... qN  sizes in bytes at u = i/N, nondecreasing
 *   depth_files = s0 s1 ...        share of regular files by depth 0, 1, ...
 *   depth_dirs = s0 s1 ...         share of directories by depth (0 = root)
 *   fpd_table = s0 s1 ... sT       directories with 0..fpd_max_bin files, then the tail
 *   ext_shares = :s e1:s1 ...      extension:share ("" is no extension)
 *   size_by_ext = e1:q0/../q16 ... sizes of the files of extension e1 by quantile
 *   name_lengths = s0 s1 ...       names without extension (directories among them, unless
 *                                  name_dir_lengths is set) by length in bytes 0, 1, ...
 *   name_dir_lengths = s0 s1 ...   names of directories, the same
 *   name_ext_lengths = s0 s1 ...   names of files and links with an extension, the same
 *   subdirs_table = n1:s1 n2:s2 ... directories with n1 subdirectories, ... (n ascending)
 *   depth_leaves = s0 s1 ...       of the directories at depth d, the share with no subdirectory
 *   depth_fileless = s0 s1 ...     of the directories at depth d, the share holding no file
 *   special_dir_table = F@D ...    special directories, each holding F files at depth D
 *                                  (F scaled by files / source_files); replaces
 *                                  special_dirs, special_dir_files, special_dir_depth
 *   mode_files = 0644:s 0755:s ... permission bits of regular files and their shares
 *   mode_dirs = 0755:s ...         the same of directories (the root aside)
 *   age_quantiles = a0 a1 ... aN   file ages in days before time_ref at u = i/N
 *   atime_quantiles = f0 ... fN    where atime lies from mtime (0) to time_ref (1)
 *   ext_content = e1:r/f/b/z/t[/w] ... content of extension e1's files as the source
 *                                  had it: gzip -6 ratio r (>= 1), duplicate-file share f,
 *                                  duplicate-block share b, zero-block share z, text
 *                                  share t (each in [0, 1]), and distinct words per KiB w
 *                                  (util/words.h; optional, 0 or absent: not measured);
 *                                  content/extc.c
 *   source_files = N               the profiled source's files: 'files' when none
 *                                  of files, used and size is given (so that any
 *                                  one of them scales the tree instead)
 *   source_bytes = N               the profiled source's file bytes: the mean file size
 *                                  that derives used from files (or files from used) is
 *                                  source_bytes / source_files, not the size table's own
 *
 * A long table continues on "key += more" lines.
 */
/* A mode table: permission bits and their shares. */
struct tab_modes {
	uint16_t mode[TAB_MODE_MAX];
	double share[TAB_MODE_MAX];
};

struct param_tables {
	uint64_t source_files;
	uint64_t source_bytes;
	uint32_t nsize_q;
	uint64_t size_q[TAB_SIZEQ_MAX];
	uint32_t ndepth_files;
	double depth_files[TAB_DEPTH_MAX];
	uint32_t ndepth_dirs;
	double depth_dirs[TAB_DEPTH_MAX];
	uint32_t nfpd;
	double fpd[TAB_FPD_MAX];
	uint32_t next;
	char ext_name[TAB_EXT_MAX][TAB_EXT_LEN];
	double ext_share[TAB_EXT_MAX];
	uint32_t nsbe;
	char sbe_name[TAB_SBE_MAX][TAB_EXT_LEN];
	uint64_t sbe_q[TAB_SBE_MAX][TAB_SBE_Q];
	uint32_t nname_len, nname_ext_len;
	double name_len[TAB_NAMELEN_MAX];
	double name_ext_len[TAB_NAMELEN_MAX];
	uint32_t nname_dir_len;
	double name_dir_len[TAB_NAMELEN_MAX];
	uint32_t nsubdirs;
	uint32_t subdirs_n[TAB_SUBDIRS_MAX];
	double subdirs_share[TAB_SUBDIRS_MAX];
	uint32_t ndepth_leaves;
	double depth_leaves[TAB_DEPTH_MAX];
	uint32_t ndepth_fileless;
	double depth_fileless[TAB_DEPTH_MAX];
	uint32_t nspecial;
	uint32_t special_files[TAB_SPECIAL_MAX];
	uint8_t special_depth[TAB_SPECIAL_MAX];
	uint32_t nmode_files, nmode_dirs;
	struct tab_modes mode_files, mode_dirs;
	uint32_t nage_q, natime_q;
	double age_q[TAB_AGEQ_MAX], atime_q[TAB_AGEQ_MAX];
	uint32_t nextc;
	char extc_name[TAB_EXTC_MAX][TAB_EXT_LEN];
	double extc[TAB_EXTC_MAX][TAB_EXTC_F];
};

struct params;
struct param_error;
struct size_model;
struct ext_model;

/*
 * Set the table named key from value (its entries, separated by blanks;
 * "none" empties it), or add value's entries to it when append is set.
 * Returns 1 when key names no table, 0, or -EINVAL with err->msg (where
 * names the source, as for params_set()).
 */
int tables_set(struct params *p, const char *key, const char *value, int append,
	       const char *where, struct param_error *err);

/* Whether key names a table (normalized as params_set() does). */
int tables_is_key(const char *key);

/* The tables' rules between entries and with the parameters: 0 or -EINVAL with a message. */
int tables_check(const struct params *p, struct param_error *err);

/* The tables that are set as keys of the JSON object o (imprint config --json). */
struct json_object;
void tables_add_json(const struct params *p, struct json_object *o);

/* Each table key with what it holds, for 'imprint params'. */
void tables_print_list(FILE *out);

/* The tables (and 'profile') as entries of `imprint params --json`: name, group "tables",
 * type "table" (or "string"), description and what an entry is. */
void tables_list_json(struct json_object *arr);

/* The tables that are set, in config-file form (nothing for the default model). */
void tables_print(const struct params *p, FILE *out);

/*
 * The laws the model draws from, a table's where one is set and the
 * parameters' otherwise: the file size law truncated at cap, files by
 * depth 0..maxdepth (renormalised), files per directory (maxbin + 2
 * entries, as fpd_probs()), the extension list.  Each returns 0 or a
 * negative errno (-EINVAL: no law, -ENOMEM).
 */
int tables_size_model(const struct params *p, double cap, struct size_model *m);
int tables_depth_probs(const struct params *p, unsigned maxdepth, double *probs);
int tables_fpd_probs(const struct params *p, unsigned maxbin, double *probs);
int tables_ext_model(const struct params *p, struct ext_model *m);

/*
 * The special directories: how many (*ndirs), and the files of the i-th
 * (special_dir_table's, scaled by files / source_files and at least 1, or
 * special_dir_files) and its depth.  tables_special_total() is the files
 * of them all.
 */
uint32_t tables_special_dirs(const struct params *p);
uint64_t tables_special_files(const struct params *p, uint32_t i);
unsigned tables_special_depth(const struct params *p, uint32_t i);
uint64_t tables_special_total(const struct params *p);

/*
 * The metadata tables' draws from u in [0, 1): the mode of a regular file
 * (dir 0) or directory (dir 1) by its table's shares (-1 when the table is
 * empty: the model's own modes), and the value of q[0..n-1] at u,
 * linear between quantiles (n >= 2).
 */
int tables_mode_draw(const struct params *p, int dir, double u);
double tables_quantile_at(const double *q, uint32_t n, double u);

#endif
