/* main.c - the imprint command: subcommands, options, exit status */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "content/model.h"
#include "readback/content_stats.h"
#include "cli/create.h"
#include "plan/manifest.h"
#include "readback/measure.h"
#include "model/params.h"
#include "plan/plan.h"
#include "readback/report.h"
#include "readback/verify.h"

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
	OPT_MKFS_OPTIONS,
	OPT_NO_FORMAT,
	OPT_FORCE,
	OPT_BACKEND,
	OPT_KEEP_PARTIAL,
	OPT_EXTENTS,
	OPT_SAMPLE,
	OPT_AGAINST,
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
	{ "mkfs-options", required_argument, NULL, OPT_MKFS_OPTIONS },
	{ "no-format", no_argument, NULL, OPT_NO_FORMAT },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "quiet", no_argument, NULL, 'q' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "keep-partial", no_argument, NULL, OPT_KEEP_PARTIAL },
	{ "extents", required_argument, NULL, OPT_EXTENTS },
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "against", required_argument, NULL, OPT_AGAINST },
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
	/* create */
	struct create_args create;
	const char *only_create;   /* the first create-only option given, for messages */
	const char *verify_dir;    /* verify: the mounted tree */
	const char *measured;      /* content-report, measure: the image, device or directory */
	double sample;             /* content-report --sample; 0: not given */
	const char *against;       /* measure --against: the configuration compared with */
	int jobs_given;
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
		"  create    build the image: imprint create [options] TARGET\n"
		"  plan      build the plan and write its manifest (one line per entry)\n"
		"  verify    check a mounted image against its plan: imprint verify [options] DIR\n"
		"  content-report  measure content (compressibility, duplicates, zero blocks,\n"
		"            types) against the configuration's targets:\n"
		"            imprint content-report [options] TARGET (an image, a device or a directory)\n"
		"  measure   measure what an image, device or mounted tree holds (sizes, depths,\n"
		"            files per directory, extensions, links, ages, layout score, extents,\n"
		"            free extents): imprint measure [--against CONFIG] [options] TARGET\n"
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
		"      --fs FS          ext2, ext3, ext4 (default), or xfs, btrfs, f2fs (create as\n"
		"                       root: mkfs, a loop device and a mount)\n"
		"  -o, --output FILE    plan: write the manifest to FILE ('-' for stdout)\n"
		"      --report         plan: print the fit report (target against achieved)\n"
		"      --json           print reports, config, params and the create summary as JSON\n"
		"  -h, --help           show this help\n"
		"      --version        show the version\n"
		"\n"
		"create options (TARGET is an image file, a block device or a directory):\n"
		"      --mkfs-options S extra mke2fs (or mkfs.xfs, mkfs.btrfs) arguments, e.g.\n"
		"                       \"-O ^has_journal\"\n"
		"      --backend NAME   ext4, mounted (a directory) or loopfs (xfs, btrfs, f2fs)\n"
		"      --keep-partial   mounted, loopfs: keep what was made when the build fails\n"
		"      --no-format      populate the empty ext2/3/4 file system already in TARGET\n"
		"      --force          overwrite a TARGET that holds a file system, partition\n"
		"                       table or other signature (never a mounted or busy one)\n"
		"  -q, --quiet          no progress line and no summary (--json still prints)\n"
		"  -j, --jobs N         worker threads for file data (default: online CPUs)\n"
		"      --extents FILE   create: write every file's planned physical runs to FILE;\n"
		"                       verify: check each file's FIEMAP extents against it;\n"
		"                       measure: write every file's measured physical runs to FILE\n"
		"      --sample SHARE   content-report: share of 1 MiB segments compressed, (0, 1]\n"
		"                       (default 1: every byte)\n"
		"      --against CONFIG measure: compare with CONFIG (the fit report of\n"
		"                       'plan --report', layout and free-space targets); -c and\n"
		"                       --set also turn the comparison on\n"
		"\n"
		"plan writes the manifest to stdout unless --report is given; with --report\n"
		"the report goes to stdout and the manifest only where -o says (with -o -,\n"
		"the report goes to stderr).  Run 'imprint params' for every parameter.\n"
		"\n"
		"create builds an image file of 'size' (default 1G) under a temporary name\n"
		"beside TARGET and renames it over TARGET when complete; on a block device,\n"
		"'size' defaults to the whole device.  'imprint plan' with the same options\n"
		"(and --size on a device) writes the manifest of what create builds.\n"
		"\n"
		"exit status: 0 success, 1 runtime failure (for create also a refused or\n"
		"interrupted build: nothing half-built is left), 2 usage or parameter error\n"
		"\n"
		"parameters (--set KEY=VALUE or 'KEY = VALUE' in a config file;\n"
		"'imprint params' gives each one's type, unit, default and meaning):\n");
	params_print_names(out, 78);
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
	while ((opt = getopt_long(argc, argv, ":c:o:hqj:", long_opts, NULL)) != -1) {
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
		case OPT_MKFS_OPTIONS:
			c->create.mkfs_options = optarg;
			c->only_create = c->only_create ? c->only_create : "--mkfs-options";
			break;
		case OPT_NO_FORMAT:
			c->create.no_format = 1;
			c->only_create = c->only_create ? c->only_create : "--no-format";
			break;
		case OPT_EXTENTS:
			c->create.extents = optarg;
			break;
		case OPT_SAMPLE: {
			char *end;

			errno = 0;
			c->sample = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(c->sample > 0 && c->sample <= 1)) {
				fprintf(stderr, "imprint: '--sample' must be a share in (0, 1] (got '%s')\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case OPT_AGAINST:
			c->against = optarg;
			break;
		case OPT_FORCE:
			c->create.force = 1;
			c->only_create = c->only_create ? c->only_create : "--force";
			break;
		case 'q':
			c->create.quiet = 1;
			c->only_create = c->only_create ? c->only_create : "--quiet";
			break;
		case OPT_BACKEND:
			c->create.backend = optarg;
			c->only_create = c->only_create ? c->only_create : "--backend";
			break;
		case OPT_KEEP_PARTIAL:
			c->create.keep_partial = 1;
			c->only_create = c->only_create ? c->only_create : "--keep-partial";
			break;
		case 'j': {
			char *end;
			unsigned long n;

			errno = 0;
			n = strtoul(optarg, &end, 10);
			if (errno || end == optarg || *end || optarg[0] == '-' || n < 1 || n > 1024) {
				fprintf(stderr, "imprint: '--jobs' must be a whole number from 1 to 1024 (got '%s')\n",
					optarg);
				return EXIT_USAGE;
			}
			c->create.jobs = (unsigned)n;
			c->jobs_given = 1;
			c->only_create = c->only_create ? c->only_create : "--jobs";
			break;
		}
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
	if (strcmp(c->cmd, "create") == 0 && optind < argc)
		c->create.target = argv[optind++];
	else if (strcmp(c->cmd, "verify") == 0 && optind < argc)
		c->verify_dir = argv[optind++];
	else if (strcmp(c->cmd, "content-report") == 0 && optind < argc)
		c->measured = argv[optind++];
	else if (strcmp(c->cmd, "measure") == 0 && optind < argc)
		c->measured = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "imprint: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

/*
 * Defaults, then the file, then --set and short forms in order; then
 * resolve unless resolve is 0 (create resolves once it knows the target).
 */
static int load_params(const struct cli *c, struct params *p, int resolve)
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
	if (resolve && params_resolve(p, &err))
		goto out_err;
	return 0;
out_err:
	fprintf(stderr, "imprint: %s\n", err.msg);
	return EXIT_USAGE;
}

/*
 * Write the manifest to path via a temporary file renamed when complete,
 * so that a failure never leaves a half-written manifest in its place.
 */
static int write_manifest_file(const struct plan *pl, const char *path)
{
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	struct stat st;
	FILE *f;
	int fd, ret;

	if (!tmp)
		return -ENOMEM;
	/* a device or FIFO (/dev/null, a pipe) is written as it is, never replaced */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		free(tmp);
		f = fopen(path, "w");
		if (!f) {
			ret = -errno;
			fprintf(stderr, "imprint: cannot open '%s': %s\n", path, strerror(errno));
			return ret;
		}
		ret = manifest_write(pl, f);
		if (fclose(f) != 0 && !ret)
			ret = -errno;
		if (ret)
			fprintf(stderr, "imprint: cannot write manifest '%s': %s\n", path,
				strerror(-ret));
		return ret;
	}
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

/* Check a mounted image against the plan of the same options. */
static int cmd_verify(const struct cli *c, const struct params *p)
{
	struct plan pl;
	struct plan_error err = { { 0 } };
	struct content_model cm;
	struct content_source cs;
	struct verify_result res;
	int ret;

	ret = plan_build(&pl, p, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret == -EINVAL ? EXIT_USAGE : 1;
	}
	/* the same typed content as imprint create */
	ret = content_model_init(&cm, &pl);
	if (ret) {
		fprintf(stderr, "imprint: cannot build the content model: %s\n", strerror(-ret));
		plan_release(&pl);
		return 1;
	}
	ret = content_model_source_init(&cs, &cm, &pl);
	if (ret) {
		fprintf(stderr, "imprint: cannot build the content source: %s\n", strerror(-ret));
		content_model_release(&cm);
		plan_release(&pl);
		return 1;
	}
	ret = verify_tree(&pl, &cs, c->verify_dir, c->create.extents, stderr, 20, &res);
	content_source_release(&cs);
	content_model_release(&cm);
	if (ret < 0) {
		fprintf(stderr, "imprint: cannot verify '%s': %s\n", c->verify_dir, strerror(-ret));
		plan_release(&pl);
		return 1;
	}
	printf("%llu dirs, %llu files, %llu links, %llu bytes, %llu files' extents checked, "
	       "%llu sparse files' holes checked: %llu mismatches\n",
	       (unsigned long long)res.dirs, (unsigned long long)res.files,
	       (unsigned long long)res.links, (unsigned long long)res.bytes,
	       (unsigned long long)res.extent_files, (unsigned long long)res.sparse_files,
	       (unsigned long long)res.mismatches);
	plan_release(&pl);
	return ret ? 1 : 0;
}

/* Measure the content of an image or a directory against the configuration's targets. */
static int cmd_content_report(const struct cli *c, const struct params *p)
{
	struct content_stats_opts o = { .sample_share = c->sample > 0 ? c->sample : 1 };
	struct content_targets t;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	/* compressor threads beside the reading one */
	o.jobs = n < 2 ? 0 : n > 64 ? 64 : (unsigned)n;
	content_targets_from_params(&t, p);
	if (content_report_run(c->measured, &o, &t, c->json, stdout))
		return 1;
	return fflush(stdout) ? 1 : 0;
}

/* Measure an image, device or mounted tree; with a configuration, against it. */
static int cmd_measure(const struct cli *c, const struct params *p)
{
	struct measure_opts o = {
		.json = c->json,
		.against = c->against || c->config || c->nsets ? p : NULL,
		.against_name = c->config ? c->config : "the defaults and --set",
		.extents_path = c->create.extents,
	};

	if (measure_run(c->measured, &o, stdout))
		return 1;
	return fflush(stdout) ? 1 : 0;
}

static int cmd_create(struct cli *c, struct params *p)
{
	int ret;

	if (!c->jobs_given) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		c->create.jobs = n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
	}
	c->create.json = c->json;
	ret = create_run(&c->create, p);
	if (ret == -EINVAL)
		return EXIT_USAGE;
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
	if (strcmp(c.cmd, "plan") && strcmp(c.cmd, "config") && strcmp(c.cmd, "params") &&
	    strcmp(c.cmd, "create") && strcmp(c.cmd, "verify") &&
	    strcmp(c.cmd, "content-report") && strcmp(c.cmd, "measure")) {
		fprintf(stderr, "imprint: unknown command '%s' "
			"(expected create, plan, verify, content-report, measure, config or params)\n",
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
	/* verify takes create's options too, so that one command line serves both */
	if (c.only_create && strcmp(c.cmd, "create") && strcmp(c.cmd, "verify")) {
		fprintf(stderr, "imprint: '%s' is only for 'create'\n", c.only_create);
		cli_release(&c);
		return EXIT_USAGE;
	}
	if (strcmp(c.cmd, "create") == 0 && (c.report || !c.create.target)) {
		if (c.report)
			fprintf(stderr, "imprint: '--report' is only for 'plan'\n");
		else
			fprintf(stderr, "imprint: create needs a TARGET: an image file or a block device\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	if (c.create.extents && strcmp(c.cmd, "create") && strcmp(c.cmd, "verify") &&
	    strcmp(c.cmd, "measure")) {
		fprintf(stderr, "imprint: '--extents' is only for 'create', 'verify' and 'measure'\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	if (strcmp(c.cmd, "verify") == 0 && !c.verify_dir) {
		fprintf(stderr, "imprint: verify needs the directory where the image is mounted\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	if (strcmp(c.cmd, "content-report") == 0 && !c.measured) {
		fprintf(stderr, "imprint: content-report needs a TARGET: an image, a device or a directory\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	if (strcmp(c.cmd, "measure") == 0 && !c.measured) {
		fprintf(stderr, "imprint: measure needs a TARGET: an image, a device or a directory\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	if (c.against && (strcmp(c.cmd, "measure") || c.config)) {
		fprintf(stderr, strcmp(c.cmd, "measure") ? "imprint: '--against' is only for 'measure'\n" :
			"imprint: give the configuration once: '--against' or '-c'\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	if (c.against)
		c.config = c.against;
	if (c.sample > 0 && strcmp(c.cmd, "content-report")) {
		fprintf(stderr, "imprint: '--sample' is only for 'content-report'\n");
		cli_release(&c);
		return EXIT_USAGE;
	}
	ret = load_params(&c, &p, strcmp(c.cmd, "create") != 0);
	if (ret) {
		cli_release(&c);
		return ret;
	}
	if (strcmp(c.cmd, "create") == 0) {
		ret = cmd_create(&c, &p);
	} else if (strcmp(c.cmd, "verify") == 0) {
		ret = cmd_verify(&c, &p);
	} else if (strcmp(c.cmd, "content-report") == 0) {
		ret = cmd_content_report(&c, &p);
	} else if (strcmp(c.cmd, "measure") == 0) {
		ret = cmd_measure(&c, &p);
	} else if (strcmp(c.cmd, "config") == 0) {
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
