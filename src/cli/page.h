/* page.h - what the commands put on their --html page: header, plan figures, the create page */
#ifndef IMPRINT_PAGE_H
#define IMPRINT_PAGE_H

#include "model/params.h"
#include "plan/plan.h"

struct json_object;
struct create_result;
struct build_summary;

/* What the header of a page says about the run that wrote it. */
struct page_run {
	const char *kind;          /* "plan", "create", "measure", "content-report" */
	int argc;                  /* the command line, from "imprint" on */
	char **argv;
	const char *backend;       /* create: --backend and --mkfs-options as given, or NULL */
	const char *mkfs_options;
	const char *target;        /* the image the rebuild command names, or NULL: "IMAGE" */
};

/*
 * A page's figures (src/report/html.h) with its header: kind, version,
 * the command line, and when p is not NULL (a resolved configuration)
 * the configuration and the command that rebuilds the image from it.
 * NULL when out of memory (a message is printed).
 */
struct json_object *page_new(const struct page_run *run, const struct params *p);

/*
 * Add a plan's figures to page: "plan" (the report of `plan --report
 * --json`) and "extra" (size CDF against the model, size classes, name
 * lengths, directories by depth, ages).  Returns 0 or a negative errno
 * (a message is printed).
 */
int page_add_plan(struct json_object *page, const struct plan *pl);

/*
 * The page of a finished create: its summary, the plan's report, and the
 * image measured against the plan's configuration (layout, free space,
 * disk map) when imprint can read it (ext2/3/4, or a directory); written
 * to path.  Returns 0 or a negative errno (a message is printed).
 */
int page_create(const char *path, const struct page_run *run, const struct plan *pl,
		const struct create_result *res, const struct build_summary *sum,
		const char *measured_target);

#endif
