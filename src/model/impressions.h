/* impressions.h - an Impressions input file read as Impressions reads it, into imprint's parameters */
#ifndef IMPRINT_IMPRESSIONS_H
#define IMPRINT_IMPRESSIONS_H

#include <stdio.h>

#include "model/params.h"

/*
 * Read an Impressions input file (Agrawal et al., FAST 2009; the grammar
 * of the release's get_spec.cpp and inputfile.sample: "Name: value
 * [unit]", "Name: NO", "Name: Direct N v1 ... vN", "Name: Indir FILE",
 * then "SpecialFlags: N" and "Printwhat: N" each followed by N "Name v"
 * lines, after which Impressions reads nothing) into p.  Every parameter
 * imprint models is mapped (doc/model.md, "Impressions input files");
 * each one it does not, and why, is written to notes as one line
 * "line N: ..." (no newline inside), or to stderr when notes is NULL.
 * The file is read through the bounded text reader (util/textin.h).
 * Returns 0, -EINVAL with err->msg naming "PATH line N", or a negative
 * errno with err->msg set.
 */
int impressions_load(struct params *p, const char *path, FILE *notes, struct param_error *err);

#endif
