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

/*
 * Write the profile to path: under a temporary name beside it, renamed
 * over it once complete; an existing path only with --force.
 */
static int profile_to_file(struct cli *c, const struct profile_opts *o)
{
	size_t len = strlen(c->output) + 16;
	char *tmp = malloc(len);
	struct stat st;
	FILE *f = NULL;
	int fd, ret = 1;

	if (!tmp) {
		fprintf(stderr, "imprint: out of memory\n");
		return 1;
	}
	if (!c->create.force && lstat(c->output, &st) == 0) {
		fprintf(stderr, "imprint: '%s' exists: give --force to replace it\n", c->output);
		ret = EXIT_USAGE;
		goto out_free;
	}
	snprintf(tmp, len, "%s.tmp-XXXXXX", c->output);
	fd = mkstemp(tmp);
	if (fd < 0) {
		fprintf(stderr, "imprint: cannot create '%s': %s\n", tmp, strerror(errno));
		goto out_free;
	}
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		goto out_free;
	}
	if (profile_run(c->operand, o, f)) {
		fclose(f);
		unlink(tmp);
		goto out_free;
	}
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "imprint: cannot write '%s'\n", tmp);
		unlink(tmp);
		goto out_free;
	}
	if (rename(tmp, c->output)) {
		fprintf(stderr, "imprint: cannot rename '%s' to '%s': %s\n", tmp, c->output,
			strerror(errno));
		unlink(tmp);
		goto out_free;
	}
	ret = 0;
out_free:
	free(tmp);
	return ret;
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
	};

	(void)p;
	if (partition_number(c, "profile", &o.partition))
		return EXIT_USAGE;
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
