/* progress.h - the progress line of `imprint create` and its final summary */
#ifndef IMPRINT_PROGRESS_H
#define IMPRINT_PROGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct create_result;
struct json_object;

/*
 * A one-line progress display on a terminal: files done, bytes of file
 * data written of the plan's total (and their whole percent, rounded
 * down), MB/s and an ETA from the bytes, redrawn at most four times a
 * second, and at once when files and bytes reach their totals.  Used from
 * one thread only (the backend calls its progress hook from the
 * populating thread).  A backend counts a file done once its bytes are
 * written.
 */
struct progress {
	FILE *out;                 /* NULL: show nothing */
	uint64_t total_files, total_bytes;
	struct timespec start, last;
	int shown;                 /* a line is on the screen */
	int complete_shown;        /* the line of the totals is drawn */
};

/*
 * Start timing.  The line is drawn on out only when out is a terminal and
 * enabled is set; the clock runs either way (see progress_seconds()).
 */
void progress_init(struct progress *pr, FILE *out, int enabled, uint64_t total_files,
		   uint64_t total_bytes);

/* The create_opts.progress hook: ctx is a struct progress. */
void progress_update(void *ctx, uint64_t files_done, uint64_t bytes_done);

/* Erase the line, if one is shown. */
void progress_end(struct progress *pr);

/* Seconds since progress_init(). */
double progress_seconds(const struct progress *pr);

struct plan_gen;

/* What the summary of a build shows besides the backend's result. */
struct build_summary {
	const char *target;
	const char *fs;            /* "ext4" */
	uint64_t size;             /* capacity in bytes */
	uint64_t seed;
	double seconds;            /* wall time of the build */
	const char *partition;     /* --partition: "gpt" or "mbr"; NULL: a bare file system */
	uint64_t disk_size, part_start, part_size; /* with partition, in bytes */
	const char *format;        /* --format other than raw ("qcow2"), else NULL */
	double convert_seconds;    /* the time the conversion added (in seconds too) */
	uint64_t file_size;        /* with format: the converted file's length */
	const char *backing;       /* qcow2 --backing: the name the overlay records, else NULL */
	const char *evolved_from;  /* the same when generation N was evolved from its copy, else NULL */
	const char *diskless;      /* a backend that wrote nothing (its name), else NULL */
	const struct plan_gen *gen; /* a later generation's changes (plan.gen), else NULL */
};

/*
 * Print the summary of a build: a few lines of text, or with json one
 * object with keys files, dirs, links, bytes, seconds, mb_per_s,
 * layout_score, block_size, blocks_used, target, seed (and fs, size);
 * when res->have_layout, the layout's spread, notes and free-space figures
 * too (layout_notes, fragmented_files, free_small_share,
 * free_extent_histogram ...: doc/imprint.1).
 * MB are 10^6 bytes.  Returns 0 or -EIO when out cannot be written.
 */
/* The summary's JSON object (the caller puts it), or NULL when out of memory. */
struct json_object *progress_summary_json(const struct create_result *res,
					  const struct build_summary *s);

int progress_print_summary(const struct create_result *res, const struct build_summary *s,
			   int json, FILE *out);

#endif
