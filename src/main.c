/* main.c - the imprint command: subcommands, options, exit status */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "manifest.h"
#include "params.h"
#include "plan.h"
#include "report.h"

#define EXIT_USAGE 2

enum {
	OPT_SET = 256,
	OPT_SEED,
	OPT_USED,
	OPT_FILES,
	OPT_SIZE,
	OPT_FS,
	OPT_REPORT,
	OPT_JSON,
	OPT_VERSION,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "set", required_argument, NULL, OPT_SET },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "used", required_argument, NULL, OPT_USED },
	{ "files", required_argument, NULL, OPT_FILES },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "fs", required_argument, NULL, OPT_FS },
	{ "output", required_argument, NULL, 'o' },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* What the command line asked for, before the parameters are applied. */
struct cli {
	const char *cmd;
	const char *config;
	const char *output;
	int report;
	int json;
	/* --set and short forms, in command-line order: "key=value" */
	char **sets;
	const char **set_where;
	size_t nsets;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: imprint <command> [options]\n"
		"\n"
		"Build realistic, reproducible file-system images (Impressions model).\n"
		"\n"
		"commands:\n"
		"  plan      build the plan and write its manifest (one line per entry)\n"
		"  config    print the complete resolved configuration, seed included\n"
		"  params    list every parameter with type, unit, default and description\n"
		"\n"
		"options:\n"
		"  -c, --config FILE    read parameters from FILE ('key = value' lines)\n"
		"      --set KEY=VALUE  set a parameter (repeatable, applied after -c)\n"
		"      --seed N         random seed ('random' draws one; default 1)\n"
		"      --used SIZE      bytes of file data (K/M/G/T binary suffixes)\n"
		"      --files N        number of regular files (K/M decimal suffixes)\n"
		"      --size SIZE      capacity of the image (default 1G)\n"
		"      --fs FS          ext2, ext3 or ext4 (default ext4)\n"
		"  -o, --output FILE    plan: write the manifest to FILE ('-' for stdout)\n"
		"      --report         plan: print the fit report (target against achieved)\n"
		"      --json           print reports, config and params as JSON\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\n"
		"plan writes the manifest to stdout unless --report is given; with --report\n"
		"the report goes to stdout and the manifest only where -o says (with -o -,\n"
		"the report goes to stderr).  Run 'imprint params' for every parameter.\n"
		"\n"
		"exit status: 0 success, 1 runtime failure, 2 usage or parameter error\n");
}

static int add_set(struct cli *c, const char *key, const char *value, const char *where)
{
	size_t len = strlen(key) + strlen(value) + 2;
	char **sets = realloc(c->sets, (c->nsets + 1) * sizeof(*sets));
	const char **wh;

	if (!sets)
		return -ENOMEM;
	c->sets = sets;
	wh = realloc(c->set_where, (c->nsets + 1) * sizeof(*wh));
	if (!wh)
		return -ENOMEM;
	c->set_where = wh;
	c->sets[c->nsets] = malloc(len);
	if (!c->sets[c->nsets])
		return -ENOMEM;
	snprintf(c->sets[c->nsets], len, "%s=%s", key, value);
	c->set_where[c->nsets] = where;
	c->nsets++;
	return 0;
}

static void cli_release(struct cli *c)
{
	for (size_t i = 0; i < c->nsets; i++)
		free(c->sets[i]);
	free(c->sets);
	free(c->set_where);
}

/* Returns 0 to go on, 1 when done (help, version), or EXIT_USAGE. */
static int parse_cli(struct cli *c, int argc, char **argv)
{
	int opt, ret = 0;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:o:h", long_opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			c->config = optarg;
			break;
		case 'o':
			c->output = optarg;
			break;
		case OPT_SET: {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg) {
				fprintf(stderr, "imprint: --set: expected KEY=VALUE (got '%s')\n",
					optarg);
				return EXIT_USAGE;
			}
			*eq = '\0';
			ret = add_set(c, optarg, eq + 1, "--set");
			*eq = '=';
			break;
		}
		case OPT_SEED:
			ret = add_set(c, "seed", optarg, "--seed");
			break;
		case OPT_USED:
			ret = add_set(c, "used", optarg, "--used");
			break;
		case OPT_FILES:
			ret = add_set(c, "files", optarg, "--files");
			break;
		case OPT_SIZE:
			ret = add_set(c, "size", optarg, "--size");
			break;
		case OPT_FS:
			ret = add_set(c, "fs", optarg, "--fs");
			break;
		case OPT_REPORT:
			c->report = 1;
			break;
		case OPT_JSON:
			c->json = 1;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("imprint %s\n", PACKAGE_VERSION);
			return 1;
		case ':':
			fprintf(stderr, "imprint: option '%s' needs a value\n", argv[optind - 1]);
			return EXIT_USAGE;
		default:
			if (optopt)
				fprintf(stderr, "imprint: unknown option '-%c'\n", optopt);
			else
				fprintf(stderr, "imprint: unknown option '%s'\n", argv[optind - 1]);
			fprintf(stderr, "Try 'imprint --help'.\n");
			return EXIT_USAGE;
		}
		if (ret) {
			fprintf(stderr, "imprint: out of memory\n");
			return 1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "imprint: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

/* Defaults, then the file, then --set and short forms in order; then resolve. */
static int load_params(const struct cli *c, struct params *p)
{
	struct param_error err = { { 0 } };

	params_init(p);
	if (c->config && params_load_file(p, c->config, &err))
		goto out_err;
	for (size_t i = 0; i < c->nsets; i++) {
		char *eq = strchr(c->sets[i], '=');

		*eq = '\0';
		int ret = params_set(p, c->sets[i], eq + 1, c->set_where[i], &err);

		*eq = '=';
		if (ret)
			goto out_err;
	}
	if (params_resolve(p, &err))
		goto out_err;
	return 0;
out_err:
	fprintf(stderr, "imprint: %s\n", err.msg);
	return EXIT_USAGE;
}

/* Write the manifest to path via a temporary file renamed when complete. */
static int write_manifest_file(const struct plan *pl, const char *path)
{
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	FILE *f;
	int fd, ret;

	if (!tmp)
		return -ENOMEM;
	snprintf(tmp, len, "%s.tmp.XXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ret = -errno;
		fprintf(stderr, "imprint: cannot create '%s': %s\n", tmp, strerror(errno));
		free(tmp);
		return ret;
	}
	/* mkstemp makes 0600; a manifest is an ordinary file */
	mode_t mask = umask(0);

	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = -errno;
		close(fd);
		goto out_unlink;
	}
	ret = manifest_write(pl, f);
	if (fclose(f) != 0 && !ret)
		ret = -errno;
	if (ret)
		goto out_unlink;
	if (rename(tmp, path) != 0) {
		ret = -errno;
		goto out_unlink;
	}
	free(tmp);
	return 0;
out_unlink:
	fprintf(stderr, "imprint: cannot write manifest '%s': %s\n", path, strerror(-ret));
	unlink(tmp);
	free(tmp);
	return ret;
}

static int cmd_plan(const struct cli *c, const struct params *p)
{
	struct plan pl;
	struct plan_error err = { { 0 } };
	const char *output = c->output;
	int ret;

	if (!output && !c->report)
		output = "-";
	ret = plan_build(&pl, p, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret == -EINVAL ? EXIT_USAGE : 1;
	}
	if (output && strcmp(output, "-") == 0) {
		ret = manifest_write(&pl, stdout);
		if (ret) {
			fprintf(stderr, "imprint: cannot write manifest to stdout: %s\n",
				strerror(-ret));
			goto out_release;
		}
	} else if (output) {
		ret = write_manifest_file(&pl, output);
		if (ret)
			goto out_release;
	}
	if (c->report) {
		struct report r;
		FILE *out = output && strcmp(output, "-") == 0 ? stderr : stdout;

		ret = report_compute(&pl, &r);
		if (ret) {
			fprintf(stderr, "imprint: cannot compute the report: %s\n", strerror(-ret));
			goto out_release;
		}
		if (c->json)
			report_print_json(&r, out);
		else
			report_print_text(&r, out);
		report_release(&r);
	}
out_release:
	plan_release(&pl);
	return ret ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct cli c = { 0 };
	struct params p;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	c.cmd = argv[1];
	if (strcmp(c.cmd, "-h") == 0 || strcmp(c.cmd, "--help") == 0 ||
	    strcmp(c.cmd, "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(c.cmd, "--version") == 0 || strcmp(c.cmd, "version") == 0) {
		printf("imprint %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(c.cmd, "plan") && strcmp(c.cmd, "config") && strcmp(c.cmd, "params")) {
		fprintf(stderr, "imprint: unknown command '%s' (expected plan, config or params)\n",
			c.cmd);
		return EXIT_USAGE;
	}
	ret = parse_cli(&c, argc - 1, argv + 1);
	if (ret) {
		cli_release(&c);
		return ret == 1 ? 0 : ret;
	}
	if (strcmp(c.cmd, "params") == 0) {
		if (c.json)
			params_print_list_json(stdout);
		else
			params_print_list(stdout);
		cli_release(&c);
		return 0;
	}
	if (c.output && strcmp(c.cmd, "plan")) {
		fprintf(stderr, "imprint: -o is only for 'plan'\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	ret = load_params(&c, &p);
	if (ret) {
		cli_release(&c);
		return ret;
	}
	if (strcmp(c.cmd, "config") == 0) {
		if (c.json)
			params_print_config_json(&p, stdout);
		else
			params_print_config(&p, stdout);
		ret = fflush(stdout) ? 1 : 0;
	} else {
		ret = cmd_plan(&c, &p);
	}
	cli_release(&c);
	return ret;
}
