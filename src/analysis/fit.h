/* fit.h - the fit report's figures: how closely a plan or a measured tree follows its model */
#ifndef IMPRINT_FIT_H
#define IMPRINT_FIT_H

#include <stdint.h>

#include "plan/plan.h"

#define REPORT_DEPTHS 256
#define REPORT_TOP_EXT 20

/*
 * A figure beyond the model's four (measure --against a profile's tables):
 * a largest difference with its worst entry, a K-S D, or a share's target
 * against what was achieved.
 */
enum report_extra_kind { REPORT_EXTRA_DIFF, REPORT_EXTRA_KS, REPORT_EXTRA_SHARE };
#define REPORT_EXTRAS 10

struct report_extra {
	enum report_extra_kind kind;
	const char *label; /* the text line's ("file modes") */
	const char *key;   /* the JSON keys' stem ("mode_files") */
	double value;      /* the difference or D; a share's achieved */
	double target;     /* a share's target */
	char worst[24];    /* DIFF: the worst entry, as printed */
};

/* One compared share: target against achieved. */
struct report_share {
	const char *label;
	double target, achieved;
};

struct report {
	uint64_t seed;
	uint64_t files, dirs, links, hardlinks, symlinks;
	uint64_t special_dirs, special_files;
	uint64_t bytes;
	double mean_size;
	uint64_t median_size, max_size;
	unsigned max_depth;

	/* a plan's sparse files (report_compute() only, when sparse_file_share > 0) */
	int have_sparse;
	uint64_t sparse_files, sparse_hole_bytes;

	/* a plan's metadata beyond owners and times (report_compute() only, when asked for) */
	int have_meta;
	uint64_t specials[SPECIAL_TYPES];  /* FIFOs, sockets, char and block devices */
	uint64_t xattr_inodes, xattr_user, xattr_security, acl_access, acl_default;
	uint64_t prealloc_files, unwritten_bytes, beyond_bytes;

	double size_ks_d, size_ks_crit;   /* vs the truncated hybrid CDF */
	double depth_ks_d, depth_ks_crit; /* regular files, vs the depth target */
	double ext_max_abs_diff;
	const char *ext_worst;
	double fpd_max_abs_diff;
	unsigned fpd_worst;               /* bin; fpd_bins - 1 is the tail */

	unsigned ndepth;                  /* depths 0..ndepth-1 shown */
	double depth_target[REPORT_DEPTHS], depth_achieved[REPORT_DEPTHS];
	unsigned fpd_bins;                /* 0..max_bin, then the tail */
	double *fpd_target, *fpd_achieved;
	unsigned next;                    /* extensions in the top list */
	struct report_share ext_top[REPORT_TOP_EXT];

	/* set by the caller: more fit lines (none by default) */
	unsigned nextra;
	struct report_extra extra[REPORT_EXTRAS];

	/* set by the caller: printed as "content_unreachable" when not NULL (a reference is taken) */
	struct json_object *content_missed;
	struct json_object *generation;  /* a later generation's changes (gen_report_json), or NULL */
};

/*
 * What a report compares, from a plan or from a measured file system:
 * observed counts against the model's targets.  Regular files and
 * directories are those outside the special directories.
 */
struct report_input {
	uint64_t seed;
	uint64_t files, dirs, links, hardlinks, symlinks;
	uint64_t special_dirs, special_files;
	uint64_t bytes;
	unsigned max_depth;
	uint64_t *sizes;                 /* every file's size (files entries); sorted in place */
	const struct size_model *size;   /* the size law */
	const uint64_t *depth_count;     /* regular files by depth, REPORT_DEPTHS entries */
	uint64_t nregular_files;
	const double *depth_target;      /* target share by depth, REPORT_DEPTHS entries */
	const struct ext_model *ext;     /* the extension list and its shares */
	const uint64_t *ext_count;       /* files by extension id (ext->count entries) */
	const char *ext_unknown;         /* the commonest extension outside ext, or NULL */
	uint64_t ext_unknown_count;      /* its files (target share 0) */
	const uint64_t *fpd_count;       /* regular dirs by files: 0..fpd_max_bin, then the tail */
	uint64_t nregular_dirs;
	const struct params *prm;        /* the files-per-directory law */
};

/* Compute a report from observed counts.  Returns 0, -ENOMEM or -EINVAL. */
int report_compute_input(const struct report_input *in, struct report *r);

/*
 * Fill only r's metadata figures from pl (have_meta, specials, xattrs,
 * ACLs, preallocation), as report_compute() does: for a summary that
 * needs no more.
 */
void report_meta(const struct plan *pl, struct report *r);

/* Compute the report of a plan.  Returns 0 or -ENOMEM. */
int report_compute(const struct plan *pl, struct report *r);
void report_release(struct report *r);

#endif
