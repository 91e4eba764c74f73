/* report.h - the fit report: how closely a plan follows its model */
#ifndef IMPRINT_REPORT_H
#define IMPRINT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/fit.h"

struct json_object;
struct figs;

/* Human-readable text, or one JSON object (json-c). */
void report_print_text(const struct report *r, FILE *out);
void report_print_json(const struct report *r, FILE *out);

/* The fit part of the text report alone (K-S, share differences and their tables). */
void report_print_fit(const struct report *r, FILE *out);

/* The object report_print_json() prints (the caller puts it). */
struct json_object *report_json(const struct report *r);

/* Add the report's keys to the JSON object o (what report_print_json prints). */
void report_add_json(const struct report *r, struct json_object *o);

/* The fit report's figures added to fs (report_add_json's keys, in its order, and the
 * text-only ones its text needs). */
void report_figs(const struct report *r, struct figs *fs);

/* The fit part of the text from figures report_figs() added, in the container at scope
 * (NULL: the top); 0 or a negative errno (a message printed). */
int report_print_fit_figs(const struct figs *fs, const char *scope, FILE *out);

/* A files-per-directory row's label: i, or ">N" (N = n - 2) for the tail, the last. */
void report_fpd_label(size_t i, size_t n, char *buf, size_t len);

#endif
