/* profile_cmd.c - `imprint profile SOURCE [-o PROFILE]`: the profile to stdout or, whole, to a file */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "config.h"
#include "cli/commands.h"
#include "cli/runs.h"
#include "util/outfile.h"

/*
 * Write the profile to path: under a temporary name beside it, renamed
 * over it once complete; an existing path only with --force.
 */
static int profile_to_file(struct cli *c, const struct profile_opts *o)
{
	struct outfile out;
	char err[512];
	int ret;

	ret = outfile_open(&out, c->output, "-o", c->create.force ? 0 : OUTFILE_NO_REPLACE, err,
			   sizeof(err));
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err);
		return ret == -EEXIST || ret == -EISDIR || ret == -EINVAL ? EXIT_USAGE : 1;
	}
	if (profile_run(c->operand, o, out.f)) {
		outfile_abort(&out);
		return 1;
	}
	if (outfile_commit(&out, err, sizeof(err))) {
		fprintf(stderr, "imprint: %s\n", err);
		return 1;
	}
	return 0;
}

int cmd_profile(struct cli *c, struct params *p)
{
	struct page_run run = page_run_of(c, "profile");
	int ret;
	struct profile_opts o = {
		.json = c->json,
		.parametric = c->parametric,
		.content = c->content,
		.sample = c->sample,
		.progress = isatty(STDERR_FILENO) && !c->create.quiet,
		.version = PACKAGE_VERSION,
		.html_path = c->html,
		.name = c->output && strcmp(c->output, "-") ? c->output : NULL,
		.since = c->since,
	};

	(void)p;
	if (partition_number(c, "profile", &o.partition))
		return EXIT_USAGE;
	if (c->since && (c->html || o.partition)) {
		fprintf(stderr, "imprint: profile: '--since' writes the change model into the configuration (or, with '--json', its figures): not with '--html' or '--partition' yet\n");
		return EXIT_USAGE;
	}
	if (c->since) {
		struct stat st;

		if (stat(c->since, &st)) {
			fprintf(stderr, "imprint: profile: '--since': cannot access '%s': %s\n",
				c->since, strerror(errno));
			return EXIT_USAGE;
		}
	}
	if (output_precheck("-o", c->output)) {
		struct stat st;

		/* as profile_write() says of a directory: a usage error */
		return c->output && stat(c->output, &st) == 0 && S_ISDIR(st.st_mode) ? EXIT_USAGE : 1;
	}
	if (c->html) {
		if (html_precheck(c))
			return 1;
		o.html_page = page_new(&run, NULL);
		if (!o.html_page)
			return 1;
	}
	if (c->output && strcmp(c->output, "-"))
		ret = profile_to_file(c, &o);
	else if (profile_run(c->operand, &o, stdout))
		ret = 1;
	else
		ret = fflush(stdout) ? 1 : 0;
	json_object_put(o.html_page);
	return ret;
}
