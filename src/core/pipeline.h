/* pipeline.h - the core's part of `imprint create`: content beside the backend's open and layout, then populate, finish */
#ifndef IMPRINT_CORE_PIPELINE_H
#define IMPRINT_CORE_PIPELINE_H

#include <stddef.h>

#include "backends/backend.h"
#include "plan/plan.h"

/* What pipeline_run() needs besides the backend, and what it leaves. */
struct pipeline_job {
	const struct create_opts *o;
	const struct plan *pl;
	const char *target;	  /* the user's TARGET, for messages */
	const char *extents_path; /* --extents, or NULL */
	struct create_result *res;
	char *msg;
	size_t len;
	int opened; /* open() succeeded (with --no-format, nothing is written before) */
};

/*
 * Build j->pl through the backend ops: open the target (j->o), and for a
 * backend that places blocks (BACKEND_PLACES_BLOCKS) take its layout
 * request and free map and build the layout, while another thread makes
 * the content source; then write the --extents file (j->extents_path),
 * populate and finish.  On failure the backend is aborted (when it was
 * opened) and j->msg says why, in the user's words (the target named as
 * j->target); a failure of the content source is told over the backend's,
 * and leaves j->opened 0 (the backend, aborted before populate, wrote
 * nothing with --no-format).  j->res is filled on success.  Returns 0;
 * -EINTR when j->o->cancel was set; -ENOSYS when the backend lacks a hook
 * it needs; another negative errno.
 */
int pipeline_run(const struct backend_ops *ops, struct pipeline_job *j);

#endif
