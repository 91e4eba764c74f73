/* runs.h - the read-back commands: one walk of a target, then its report (text, JSON, --html) */
#ifndef IMPRINT_CLI_RUNS_H
#define IMPRINT_CLI_RUNS_H

#include <stdio.h>

#include "analysis/content_stats.h"
#include "analysis/measure.h"
#include "analysis/profile.h"

struct json_object;

/*
 * Measure target (an image, a device or a mounted tree) and print the
 * report on out (text or JSON; nothing when out is NULL); with
 * o->html_path, add the figures ("measure", "extra") to o->html_page and
 * write the page there.  Error messages go to stderr.  Returns 0,
 * or a negative errno (-EINVAL: not a readable file system or corrupt).
 */
int measure_run(const char *target, const struct measure_opts *o, FILE *out);

/*
 * Profile source (a mounted directory, an ext2/3/4 image or an unmounted
 * device, read only; o->partition of a partitioned disk) and print the
 * configuration (or with json, the figures) on out; with o->html_path,
 * add "config" (the profile) and measure's figures of the source against
 * it to o->html_page and write the page there.  Messages go to stderr.
 * Returns 0 or a negative errno.
 */
int profile_run(const char *source, const struct profile_opts *o, FILE *out);

/*
 * Measure TARGET (an ext2/3/4 image or device, or a directory, such as a
 * mounted image) and print the report to out, as JSON when json is set.
 * A file's holes are the blocks of its size that no extent maps (none
 * when the file system does not report extents: hole_blocks is then null).
 * Each regular file counts once (hard links are not copies); paths are
 * taken from the file system's root ("/dir/name"), so an image and its
 * mount give the same report.  Errors are printed to stderr.  Returns 0
 * or a negative errno.
 */
int content_report_run(const char *target, const struct content_stats_opts *o,
		       const struct content_targets *t, int json, FILE *out);

/*
 * content_report_run(), then the --html page: the report's JSON object
 * added to page (html.h) as "content" and the page written to html_path.
 */
int content_report_run_html(const char *target, const struct content_stats_opts *o,
			    const struct content_targets *t, int json, FILE *out,
			    const char *html_path, struct json_object *page);

#endif
