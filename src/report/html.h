/* html.h - the --html report page: one self-contained file, its figures and Chart.js inlined */
#ifndef IMPRINT_HTML_H
#define IMPRINT_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/diskmap.h"
#include "model/dist.h"

struct json_object;

/*
 * A page is one JSON object (the "figures"), written into the page with
 * Chart.js and the page's own script (src/report/html_page.js, which
 * documents every key it draws) and style, all three built into the
 * program (scripts/embed), so the file opens offline in any browser and
 * makes no network request.  The keys the commands fill:
 *
 *   kind       "plan", "create", "measure", "content-report" or "profile"
 *   version    imprint's version
 *   command    the command line that wrote the page
 *   config     the resolved configuration (`imprint config`), or absent;
 *              profile: the profile as written
 *   regenerate the command that rebuilds the image from config, or absent
 *   plan       `imprint plan --report --json`'s object
 *   create     `imprint create --json`'s summary
 *   measure    `imprint measure --json`'s object (profile: the source against
 *              its profile, as `imprint measure --against PROFILE --json`)
 *   content    `imprint content-report --json`'s object
 *   extra      what only the page shows: size_cdf, name_lengths,
 *              dirs_by_depth, age_histogram, disk_map (html_data.c)
 *   notes      sentences about what the page lacks and why
 */

/*
 * Write the page of data to path.  The page is written under a temporary
 * name beside path and renamed over it when complete.  An existing path
 * is replaced only when it is empty or an imprint report (its generator
 * line); anything else is refused, so that a mistyped name never costs a
 * file.  Returns 0, or a negative errno with a user-ready message in err.
 */
int html_write(const char *path, struct json_object *data, char *err, size_t errlen);

/*
 * Refuse early (before a long run) what html_write() would refuse: a path
 * holding something other than an imprint report, or in a directory that
 * cannot be written.  Returns 0 or a negative errno with err set.
 */
int html_check_path(const char *path, char *err, size_t errlen);

/* ---- html_data.c: the figures only the page shows ----------------------- */

/*
 * The file-size CDF at log-spaced sizes from 1 byte to the largest: the
 * share of sorted[0..n-1] at or below each size, and the model's (sizes
 * are floor() of the continuous variate, as the fit report's K-S test
 * takes them) when sm is not NULL.  {"x": [...], "achieved": [...],
 * "model": [...] | null, "empty_share": share of size 0}.
 */
struct json_object *html_size_cdf(const uint64_t *sorted, uint64_t n, const struct size_model *sm);

/* A histogram of counts, trailing zeros dropped. */
struct json_object *html_counts(const uint64_t *v, size_t n);

/* The model's law of file ages (doc/model.md, "Times"), in days. */
struct html_age_model {
	double median_days, sigma, max_days;
	const double *q;   /* the age table (days at u = i/(nq - 1)) instead, when nq */
	uint32_t nq;
};

/*
 * Ages in days (ascending seconds before a reference) in power-of-two
 * bins: {"edges_days": [0, 1, 2, 4, ...], "files": [...], "target":
 * [shares] | null}, bin i holding ages in [edges[i], edges[i+1]) days,
 * the last bin open; target from am when not NULL.
 */
struct json_object *html_age_histogram(const int64_t *ages_sorted, uint64_t n,
				       const struct html_age_model *am);

/*
 * Files and bytes by size class of sorted[0..n-1]: {"files": [...],
 * "bytes": [...]}, [0] the empty files, [b + 1] sizes in [2^b, 2^(b+1)).
 */
struct json_object *html_size_classes(const uint64_t *sorted, uint64_t n);

/*
 * The map as JSON: {"total_blocks", "group_blocks", "row_blocks",
 * "cell_blocks", "cells_per_row", "rest": "metadata" | "unknown",
 * "rows": ["c12f1.40m3", ...]}, each row run-length coded: a class letter
 * (c contiguous, f fragmented, . free, m metadata, u unknown) and how many
 * cells in a row.  NULL on allocation failure.
 */
struct json_object *html_map_json(const struct html_map *m);

#endif
