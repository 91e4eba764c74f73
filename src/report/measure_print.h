/* measure_print.h - measure's figures as text, JSON and the --html page */
#ifndef IMPRINT_MEASURE_PRINT_H
#define IMPRINT_MEASURE_PRINT_H

#include <stdio.h>

#include "analysis/measure_int.h"

struct json_object;

/* ---- measure_print.c: the figures to out, as text or JSON */

void measure_print_text(const struct mresult *r, const struct mstate *m,
			const struct measure_opts *o, FILE *out);
struct json_object *measure_json(const struct mresult *r, const struct mstate *m,
				 const struct measure_opts *o);
void measure_print_json(const struct mresult *r, const struct mstate *m,
			const struct measure_opts *o, FILE *out);


/* ---- measure_html.c: the --html page of a measurement; 0 or a negative errno (message printed) */

int measure_html(const struct mresult *r, const struct mstate *m, const struct measure_opts *o);

#endif
