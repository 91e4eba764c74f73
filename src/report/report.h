/* report.h - the fit report: how closely a plan follows its model */
#ifndef IMPRINT_REPORT_H
#define IMPRINT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/fit.h"

struct json_object;

/* Human-readable text, or one JSON object (json-c). */
void report_print_text(const struct report *r, FILE *out);
void report_print_json(const struct report *r, FILE *out);

/* The fit part of the text report alone (K-S, share differences and their tables). */
void report_print_fit(const struct report *r, FILE *out);

/* The object report_print_json() prints (the caller puts it). */
struct json_object *report_json(const struct report *r);

/* Add the report's keys to the JSON object o (what report_print_json prints). */
void report_add_json(const struct report *r, struct json_object *o);

#endif
