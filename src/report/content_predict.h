/* content_predict.h - the content figures a plan will reach, computed before anything is written */
#ifndef IMPRINT_CONTENT_PREDICT_H
#define IMPRINT_CONTENT_PREDICT_H

#include <stdint.h>
#include <stdio.h>

struct plan;
struct content_model;
struct content_source;
struct content_targets;

/*
 * A target is called reachable when the prediction is within this
 * relative distance of it: the tolerance tests/content_report.sh holds
 * the default image's measured figures to.
 */
#define CONTENT_PREDICT_TOL 0.05

/*
 * Zero and duplicate 4 KiB blocks of one extension of a profile's
 * ext_content, over its distinct files (a duplicate counted when its
 * first occurrence is in a file of the extension too, as profile
 * --content measures it).
 */
struct content_ext_prediction {
	char ext[16];
	uint64_t files, blocks;
	double zero_target, dup_target;
	int known;             /* 0: the extension's generator is typed: not predicted */
	double zero, dup;
};

#define CONTENT_PREDICT_EXT_MAX 32

/* The figures content-report will measure on the plan's image, and what they come from. */
struct content_prediction {
	/* duplicate files (all files) */
	uint64_t files;
	uint64_t copies;        /* whole-file copies the plan holds */
	uint64_t copies_wanted; /* round(dup_file_share x files) */
	uint64_t chance_copies; /* distinct files of at most CONTENT_PREDICT_SMALL bytes equal to another */
	uint64_t empty_files;   /* distinct files of 0 bytes */
	double dup_file_share;

	/* blocks of distinct other-binary files (whole 4 KiB blocks outside holes) */
	uint64_t bin_files, bin_blocks, plan_blocks, pool_blocks;
	double pool_draws;      /* duplicate draws per pool block */
	double dup_dealt;       /* share of blocks drawn from the pool */
	double dup_block_share, zero_block_share;

	/* compression, by 1 MiB segment of distinct files, holes left out; 0: no bytes */
	uint64_t bin_bytes, bin_small_bytes;   /* small: in files under 4 KiB */
	uint64_t exec_files, exec_bytes, exec_small_bytes;
	double ratio_zlib, ratio_zstd, exec_zlib, exec_zstd;
	/*
	 * the other binary group's ratio target when the plan's profile lists
	 * extensions of it in ext_content: their ratios and compress_ratio for
	 * the rest, by bytes (harmonic); 0: none listed, compress_ratio
	 */
	double bin_target;
	uint64_t sampled_bytes; /* bytes generated and compressed for the ratios */

	/* the extensions of the profile's ext_content, in its order (none without one) */
	struct content_ext_prediction ext[CONTENT_PREDICT_EXT_MAX];
	unsigned next;
};

/* Files up to this size are generated and hashed to count the ones equal by chance. */
#define CONTENT_PREDICT_SMALL 512

/*
 * Predict the figures of plan pl with its typed content source cs (built
 * from cm for pl): copies and blocks from the plan and the binary model
 * exactly, in expectation; duplicate files that arise by chance by
 * hashing every small distinct file; compression ratios by generating
 * and compressing a stratified sample of segments (by length, up to 64
 * a power of two).  Returns 0, -ENOMEM or -EIO.
 */
int content_predict(const struct plan *pl, const struct content_model *cm,
		    const struct content_source *cs, struct content_prediction *pr);

struct content_stats;

/*
 * The table of pr->ext (nothing when it is empty): each extension's zero
 * and duplicate block shares, target and predicted, and with st (NULL:
 * none) what content-report measured for the extension.
 */
void content_predict_print_ext(const struct content_prediction *pr,
			       const struct content_stats *st, FILE *out);

/* The figures content_predict() predicts, in content-report's order. */
enum content_figure {
	CF_RATIO_ZLIB,
	CF_RATIO_ZSTD,
	CF_EXEC_ZLIB,
	CF_EXEC_ZSTD,
	CF_DUP_FILES,
	CF_DUP_BLOCKS,
	CF_ZERO_BLOCKS,
	CF_COUNT
};

/* The predicted value of figure f, and its target in t (NAN: none). */
double content_predicted(const struct content_prediction *pr, enum content_figure f);
double content_figure_target(const struct content_targets *t, enum content_figure f);
/* The same, the ratios of other binary from pr->bin_target when it has one (pr may be NULL). */
double content_pred_target(const struct content_prediction *pr, const struct content_targets *t,
			   enum content_figure f);
/* Figure f's name, and what content-report measures it over ("?" out of range). */
const char *content_figure_name(enum content_figure f);
const char *content_figure_note(enum content_figure f);

/*
 * Whether figure f is predicted within CONTENT_PREDICT_TOL of its target
 * (1), not (0), or has nothing to compare (-1: no target or no bytes of
 * its group).  When not, why[] (len bytes) says why in one line.
 */
int content_predict_check(const struct content_prediction *pr, const struct content_targets *t,
			  enum content_figure f, char *why, size_t len);

/*
 * Print the prediction against the targets: a table of target, predicted
 * and verdict, then _missed()'s lines.  content_predict_print_missed()
 * prints one line for each target that will be missed, with why (nothing
 * when none is).
 */
void content_predict_print_text(const struct content_prediction *pr,
				const struct content_targets *t, FILE *out);
void content_predict_print_missed(const struct content_prediction *pr,
				  const struct content_targets *t, FILE *out);

/*
 * JSON: {"figures": [{figure, target, predicted, reachable, why}, ...],
 * copies, copies_wanted, chance_copies, binary_blocks, pool_blocks,
 * sampled_bytes}; _missed() gives the array of the figures that will be
 * missed only, or NULL when none is.
 */
struct json_object *content_predict_json(const struct content_prediction *pr,
					 const struct content_targets *t);
struct json_object *content_predict_json_missed(const struct content_prediction *pr,
						const struct content_targets *t);

#endif
