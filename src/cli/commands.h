/* commands.h - what the command line asked for, and the function that runs each command */
#ifndef IMPRINT_COMMANDS_H
#define IMPRINT_COMMANDS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/create.h"
#include "cli/page.h"
#include "model/params.h"
#include "plan/include.h"

#define EXIT_USAGE 2

/* What the command line asked for, before the parameters are applied. */
struct cli {
	const char *config;
	const char *output;
	int report;
	int json;
	const char *operand;       /* create, verify, content-report, measure: TARGET or DIR */
	/* create, and verify with create's options */
	struct create_args create;
	double sample;             /* content-report --sample; 0: not given */
	const char *against;       /* measure --against: the configuration compared with */
	const char *since;         /* profile --since OLD: the earlier state, or NULL */
	const char *undo;          /* evolve --undo FILE: the undo file to keep, or NULL */
	int rollback;              /* evolve --rollback: an interrupted evolve undone */
	const char *partition;     /* --partition: create's table (gpt, mbr) or the others' N */
	const char *html;          /* --html: the report page to write, or NULL */
	uint32_t generation;       /* --generation N: plan, create, verify (0: the plan itself) */
	int argc;                  /* the command line, for the page */
	char **argv;
	int jobs_given;
	int parametric;            /* profile --parametric */
	int content;               /* profile --content */
	const char *profile;       /* --profile NAME: loaded before -c */
	int profiles;              /* params --profiles */
	const char *from_impressions; /* config --from-impressions FILE */
	char *impressions_notes;   /* what FILE holds that is not used, "line N: why" lines */
	struct include_set includes; /* --include, --include-normalize */
	/* --set and short forms, in command-line order: "key=value" */
	char **sets;
	const char **set_where;
	size_t nsets;
};

/*
 * Each runs one command with the parameters loaded as that command's
 * entry in main.c says (p is NULL for params) and returns the exit
 * status: 0, 1 for a runtime failure, EXIT_USAGE for a usage or
 * parameter error.  Messages go to stderr, results to stdout.
 */
int cmd_create(struct cli *c, struct params *p);
int cmd_plan(struct cli *c, struct params *p);
int cmd_verify(struct cli *c, struct params *p);
int cmd_content_report(struct cli *c, struct params *p);
int cmd_measure(struct cli *c, struct params *p);
int cmd_config(struct cli *c, struct params *p);
int cmd_params(struct cli *c, struct params *p);
int cmd_profile(struct cli *c, struct params *p);
int cmd_evolve(struct cli *c, struct params *p);

/*
 * measure --against --generation N (evolve.c): how much of the change
 * generation N of p's plan makes to generation N-1 TARGET holds, by kind
 * (created, appended, ..., deleted), each file judged by its size and mtime
 * (a deleted one: gone), with the rate planned and achieved (files of the
 * kind as planned over generation N-1's files): printed to out, or with
 * json (not NULL) a new JSON object there instead (generation,
 * files_before, kinds: {planned, as_planned, share_as_planned,
 * rate_planned, rate_achieved} by kind, files_planned, files_as_planned,
 * share_as_planned).  0, or an exit code after a message (TARGET
 * unreadable, the plan refused).
 */
struct json_object;
int evolve_census(const char *target, const struct params *p, FILE *out,
		  struct json_object **json);

/* --partition N of the commands that read a disk into *n (0: not given); 0 or EXIT_USAGE. */
int partition_number(const struct cli *c, const char *cmd, int *n);
/* Refuse a --html FILE that would be refused at the end, before the work: 0 or 1. */
int html_precheck(const struct cli *c);
/*
 * Refuse an output file (-o, --extents; opt names it) that could not be
 * written at the end, before the work: a directory, or one whose
 * directory is missing or not writable.  NULL and "-" (stdout) pass.
 * Returns 0 or 1 after a message.
 */
int output_precheck(const char *opt, const char *path);
/* What a page's header says of this run (page.h), kind its command. */
struct page_run page_run_of(const struct cli *c, const char *kind);

#endif
