/* impressions.h - an Impressions input file read into imprint's parameters */
#ifndef IMPRINT_IMPRESSIONS_H
#define IMPRINT_IMPRESSIONS_H

#include "model/params.h"

/*
 * Read an Impressions input file ("Name: value [unit]" lines, '#'
 * comments; Agrawal et al., FAST 2009) into p, mapping each parameter
 * that has a meaning here (FSused, FSsize, Numfiles, Numdirs,
 * Filesperdir, FilesizeDistr, Dirdepth, Layoutscore, Randseeds,
 * Specialdirs) and saying on stderr, one line each, why the others
 * (Parent_Path, Actualfilecontent, Printwhat, ...) are not.  Returns 0,
 * -EINVAL with err->msg naming "PATH line N", or a negative errno.
 */
int impressions_load(struct params *p, const char *path, struct param_error *err);

#endif
