/* main.c - the imprint command: the command and option tables, parsing, checks, exit status */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli/commands.h"
#include "model/impressions.h"
#include "model/params.h"
#include "util/array.h"
#include "util/util.h"

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
	OPT_ALLOW_DROP,
	OPT_EXTENTS,
	OPT_SAMPLE,
	OPT_AGAINST,
	OPT_PARAMETRIC,
	OPT_CONTENT,
	OPT_PROFILE,
	OPT_PROFILES,
	OPT_FROM_IMPRESSIONS,
	OPT_PARTITION,
	OPT_PARTITION_SIZE,
	OPT_FORMAT,
	OPT_HTML,
	OPT_OPERAND, /* not an option: the command's TARGET or DIR, in opt_rules[] */
	OPT_LAST,
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
	{ "keep-partial", no_argument, NULL, OPT_KEEP_PARTIAL },
	{ "allow-drop", no_argument, NULL, OPT_ALLOW_DROP },
	{ "quiet", no_argument, NULL, 'q' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "extents", required_argument, NULL, OPT_EXTENTS },
	{ "sample", required_argument, NULL, OPT_SAMPLE },
	{ "against", required_argument, NULL, OPT_AGAINST },
	{ "parametric", no_argument, NULL, OPT_PARAMETRIC },
	{ "content", no_argument, NULL, OPT_CONTENT },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "profiles", no_argument, NULL, OPT_PROFILES },
	{ "from-impressions", required_argument, NULL, OPT_FROM_IMPRESSIONS },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "partition-size", required_argument, NULL, OPT_PARTITION_SIZE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* How a command wants the parameters before it runs. */
enum param_load {
	LOAD_NONE,     /* params: none */
	LOAD_AS_GIVEN, /* create: resolved once the target is known */
	LOAD_RESOLVED,
};

/* One subcommand: git's commands[] in git.c. */
struct command {
	const char *name;
	int (*run)(struct cli *c, struct params *p);
	const char *help;  /* usage()'s text beside the name, wrapped lines included */
	const char *needs; /* the message when TARGET or DIR is missing; NULL: takes none */
	enum param_load load;
	int any_option; /* takes every option and ignores those it does not use */
	const int *also; /* options of other commands' rows it takes too, 0-ended */
};

/* profile replaces its output only with --force, and -q silences its progress as create's */
static const int profile_also[] = { OPT_FORCE, 'q', 0 };

/* Indexes into commands[], in the order usage() and messages list them. */
enum {
	CMD_CREATE,
	CMD_PLAN,
	CMD_VERIFY,
	CMD_CONTENT_REPORT,
	CMD_MEASURE,
	CMD_CONFIG,
	CMD_PARAMS,
	CMD_PROFILE,
	NCOMMANDS,
};

#define ON(cmd) (1u << (cmd))
#define ON_ALL (ON(NCOMMANDS) - 1)

static const struct command commands[NCOMMANDS] = {
	[CMD_CREATE] = {
		.name = "create",
		.run = cmd_create,
		.help = "build the image: imprint create [options] TARGET",
		.needs = "create needs a TARGET: an image file, a block device or a directory",
		.load = LOAD_AS_GIVEN,
	},
	[CMD_PLAN] = {
		.name = "plan",
		.run = cmd_plan,
		.help = "build the plan and write its manifest (one line per entry)",
		.load = LOAD_RESOLVED,
	},
	[CMD_VERIFY] = {
		.name = "verify",
		.run = cmd_verify,
		.help = "check a mounted image against its plan: imprint verify [options] DIR\n"
			"            (or an image or disk, which it mounts read-only itself, as root)",
		.needs = "verify needs the directory where the image is mounted",
		.load = LOAD_RESOLVED,
	},
	[CMD_CONTENT_REPORT] = {
		.name = "content-report",
		.run = cmd_content_report,
		.help = "measure content (compressibility, duplicates, zero blocks,\n"
			"            types) against the configuration's targets:\n"
			"            imprint content-report [options] TARGET (an image, a device or a directory)",
		.needs = "content-report needs a TARGET: an image, a device or a directory",
		.load = LOAD_RESOLVED,
	},
	[CMD_MEASURE] = {
		.name = "measure",
		.run = cmd_measure,
		.help = "measure what an image, device or mounted tree holds (sizes, depths,\n"
			"            files per directory, extensions, links, ages, layout score, extents,\n"
			"            free extents): imprint measure [--against CONFIG] [options] TARGET",
		.needs = "measure needs a TARGET: an image, a device or a directory",
		.load = LOAD_RESOLVED,
	},
	[CMD_CONFIG] = {
		.name = "config",
		.run = cmd_config,
		.help = "print the complete resolved configuration, seed included",
		.load = LOAD_RESOLVED,
	},
	[CMD_PARAMS] = {
		.name = "params",
		.run = cmd_params,
		.help = "list every parameter with type, unit, default and description",
		.load = LOAD_NONE,
		.any_option = 1,
	},
	[CMD_PROFILE] = {
		.name = "profile",
		.run = cmd_profile,
		.help = "measure a tree, image or device and write its statistics as a\n"
			"            configuration: imprint profile SOURCE [-o PROFILE] [--parametric]\n"
			"            [--content [--sample SHARE]] [--json] [--partition N] [--html FILE]",
		.needs = "profile needs a SOURCE: a mounted directory, an ext2/3/4 image or a device",
		.load = LOAD_NONE,
		.also = profile_also,
	},
};

/* verify takes create's options too, so that one command line serves both */
#define CREATE_OPTS (ON(CMD_CREATE) | ON(CMD_VERIFY))
#define CREATE_OPT(o, n) \
	{ .opt = (o), .name = (n), .takes = CREATE_OPTS, .only_for = "'create'" }

/*
 * The options only some commands take, in the order the checks fire: a
 * line is refused for the first row it trips, so that a line with two
 * wrong options always names the same one.  Rows in a run with the same
 * takes and only_for (create's options) are one check: it names the
 * option of the run that came first on the line.  The OPT_OPERAND row is
 * where a missing TARGET or DIR is reported.  Options not here (-c,
 * --set, --json, ...) are for every command.
 */
static const struct opt_rule {
	int opt;              /* getopt_long()'s value */
	const char *name;     /* as the refusal spells it (-o always without quotes) */
	unsigned takes;       /* ON() bits of the commands that accept it */
	const char *only_for; /* the refusal: "<name> is only for <only_for>" */
	int clash;            /* an option it cannot go with, or 0 */
	const char *clash_msg;
} opt_rules[] = {
	{ .opt = 'o', .name = "-o", .takes = ON(CMD_PLAN) | ON(CMD_PROFILE),
	  .only_for = "'plan' and 'profile'" },
	CREATE_OPT(OPT_MKFS_OPTIONS, "'--mkfs-options'"),
	CREATE_OPT(OPT_NO_FORMAT, "'--no-format'"),
	CREATE_OPT(OPT_FORCE, "'--force'"),
	CREATE_OPT(OPT_KEEP_PARTIAL, "'--keep-partial'"),
	CREATE_OPT(OPT_ALLOW_DROP, "'--allow-drop'"),
	CREATE_OPT('q', "'--quiet'"),
	CREATE_OPT(OPT_BACKEND, "'--backend'"),
	CREATE_OPT('j', "'--jobs'"),
	CREATE_OPT(OPT_PARTITION_SIZE, "'--partition-size'"),
	CREATE_OPT(OPT_FORMAT, "'--format'"),
	/* only create has ever refused --report; the others ignore it */
	{ .opt = OPT_REPORT,
	  .name = "'--report'",
	  .takes = ON_ALL & ~ON(CMD_CREATE),
	  .only_for = "'plan'" },
	{ .opt = OPT_EXTENTS,
	  .name = "'--extents'",
	  .takes = CREATE_OPTS | ON(CMD_MEASURE),
	  .only_for = "'create', 'verify' and 'measure'" },
	{ .opt = OPT_PARTITION,
	  .name = "'--partition'",
	  .takes = CREATE_OPTS | ON(CMD_MEASURE) | ON(CMD_CONTENT_REPORT) | ON(CMD_PROFILE),
	  .only_for = "'create', 'verify', 'measure', 'content-report' and 'profile'" },
	{ .opt = OPT_OPERAND },
	{ .opt = OPT_AGAINST,
	  .name = "'--against'",
	  .takes = ON(CMD_MEASURE),
	  .only_for = "'measure'",
	  .clash = 'c',
	  .clash_msg = "give the configuration once: '--against' or '-c'" },
	{ .opt = OPT_SAMPLE,
	  .name = "'--sample'",
	  .takes = ON(CMD_CONTENT_REPORT) | ON(CMD_PROFILE),
	  .only_for = "'content-report' and 'profile'" },
	{ .opt = OPT_PARAMETRIC, .name = "'--parametric'", .takes = ON(CMD_PROFILE),
	  .only_for = "'profile'" },
	{ .opt = OPT_CONTENT, .name = "'--content'", .takes = ON(CMD_PROFILE),
	  .only_for = "'profile'" },
	{ .opt = OPT_FROM_IMPRESSIONS, .name = "'--from-impressions'", .takes = ON(CMD_CONFIG),
	  .only_for = "'config'" },
	{ .opt = OPT_HTML,
	  .name = "'--html'",
	  .takes = ON(CMD_PLAN) | ON(CMD_CREATE) | ON(CMD_MEASURE) | ON(CMD_CONTENT_REPORT) |
		   ON(CMD_PROFILE),
	  .only_for = "'plan', 'create', 'measure', 'content-report' and 'profile'" },
};

/* The command line as parsed: what it asks for and which options it gave. */
struct line {
	const struct command *cmd;
	struct cli c;
	unsigned seen[OPT_LAST]; /* the order of each option's first use, from 1; 0: not given */
	unsigned nseen;
};

/* The short forms of --set KEY=VALUE. */
static const struct {
	int opt;
	const char *key;
	const char *where; /* for messages */
} set_opts[] = {
	{ OPT_SEED, "seed", "--seed" }, { OPT_USED, "used", "--used" },
	{ OPT_FILES, "files", "--files" }, { OPT_SIZE, "size", "--size" },
	{ OPT_FS, "fs", "--fs" },
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: imprint <command> [options]\n"
		"\n"
		"Build realistic, reproducible file-system images (Impressions model).\n"
		"\n"
		"commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-8s  %s\n", commands[i].name, commands[i].help);
	fprintf(out,
		"\n"
		"options:\n"
		"  -c, --config FILE    read parameters from FILE ('key = value' lines)\n"
		"      --profile NAME   start from a shipped profile ('imprint params --profiles'\n"
		"                       lists them); -c and --set override it\n"
		"      --set KEY=VALUE  set a parameter (repeatable, applied after -c)\n"
		"      --profiles       params: list the shipped profiles\n"
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
		"      --backend NAME   ext4 (image files and devices), mounted (a directory of\n"
		"                       a mounted file system), loopfs (xfs, btrfs, f2fs images,\n"
		"                       as root), null (writes nothing)\n"
		"      --mkfs-options S ext4, loopfs: extra mke2fs (or mkfs.xfs, mkfs.btrfs)\n"
		"                       arguments, e.g. \"-O ^has_journal\"\n"
		"      --no-format      ext4: populate the empty ext2/3/4 file system in TARGET\n"
		"      --force          overwrite a TARGET that holds a file system, partition\n"
		"                       table or other signature (never a mounted or busy one)\n"
		"      --partition gpt|mbr  make TARGET a disk: one Linux partition at 1 MiB\n"
		"                       holding the file system ('size' is the file system's)\n"
		"      --partition-size SIZE  the partition's size (default: 'size' in whole\n"
		"                       MiB; on a device, the whole device)\n"
		"      --format FMT     raw (default), qcow2, vmdk or vhdx (default from TARGET's\n"
		"                       extension): converted by qemu-img once built\n"
		"      --keep-partial   mounted, loopfs: on failure, keep what was written\n"
		"      --allow-drop     mounted: what the file system lacks is dropped and\n"
		"                       counted (else refused): links skipped, its owners, modes\n"
		"                       and time resolution kept, holes written as zeros, names\n"
		"                       too long, with refused characters or case twins renamed\n"
		"  -q, --quiet          no progress line and no summary (--json still prints)\n"
		"  -j, --jobs N         worker threads for file data (default: online CPUs)\n"
		"      --extents FILE   create: write every file's planned physical runs to FILE;\n"
		"                       verify: check each file's FIEMAP extents against it;\n"
		"                       measure: write every file's measured physical runs to FILE\n"
		"      --sample SHARE   content-report: share of 1 MiB segments compressed, (0, 1]\n"
		"                       (default 1: every byte)\n"
		"      --parametric     profile: file sizes from the fitted law, not the quantile table\n"
		"      --content        profile: read every file (--sample SHARE of the segments\n"
		"                       compressed): compressibility, duplicates, zero blocks\n"
		"      --from-impressions FILE  config: convert an Impressions input file\n"
		"      --partition N    measure, content-report, verify, profile: read partition N of a\n"
		"                       partitioned disk (default: the one with a file system)\n"
		"      --against CONFIG measure: compare with CONFIG (the fit report of\n"
		"                       'plan --report', layout and free-space targets); -c and\n"
		"                       --set also turn the comparison on\n"		"      --html FILE      plan, create, measure, content-report, profile: also write the\n"
		"                       report as one self-contained HTML page (charts of target\n"
		"                       against achieved, a map of the disk) to FILE\n"
		"\n"
		"plan writes the manifest to stdout unless --report is given; with --report\n"
		"the report goes to stdout and the manifest only where -o says (with -o -,\n"
		"the report goes to stderr).  Run 'imprint params' for every parameter.\n"
		"\n"
		"create builds an image file of 'size' (default 1G) under a temporary name\n"
		"beside TARGET and renames it over TARGET when complete; on a block device,\n"
		"'size' defaults to the whole device; in a directory (the mounted backend, which\n"
		"writes through the kernel into any mounted file system) to its free space.\n"
		"'imprint plan' with the same options (and --size on a device or directory)\n"
		"writes the manifest of what create builds.\n"
		"\n"
		"exit status: 0 success, 1 runtime failure (for create also a refused or\n"
		"interrupted build: nothing half-built is left, unless --keep-partial), 2 usage\n"
		"or parameter error\n"
		"\n"
		"parameters (--set KEY=VALUE or 'KEY = VALUE' in a config file;\n"
		"'imprint params' gives each one's type, unit, default and meaning):\n");
	params_print_names(out, 78);
}

/* The entry of commands[] named name, or NULL. */
static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* "imprint: unknown command 'x' (expected create, plan, ... or params)" */
static void unknown_command(const char *name)
{
	fprintf(stderr, "imprint: unknown command '%s' (expected ", name);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const char *sep = i == NCOMMANDS - 1 ? " or " : ", ";

		fprintf(stderr, "%s%s", i == 0 ? "" : sep, commands[i].name);
	}
	fprintf(stderr, ")\n");
}

static int add_set(struct cli *c, const char *key, const char *value, const char *where)
{
	size_t len = strlen(key) + strlen(value) + 2;

	if (array_resize(&c->sets, c->nsets + 1, sizeof(*c->sets)) ||
	    array_resize(&c->set_where, c->nsets + 1, sizeof(*c->set_where)))
		return -ENOMEM;
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
	free(c->impressions_notes);
}

/* Returns 0 when arg is a share in (0, 1], else EXIT_USAGE after a message. */
static int parse_sample(struct cli *c, const char *arg)
{
	char *end;

	errno = 0;
	c->sample = strtod(arg, &end);
	if (errno || end == arg || *end || !(c->sample > 0 && c->sample <= 1)) {
		fprintf(stderr, "imprint: '--sample' must be a share in (0, 1] (got '%s')\n", arg);
		return EXIT_USAGE;
	}
	return 0;
}

/* Returns 0 when arg is a whole number from 1 to 1024, else EXIT_USAGE after a message. */
static int parse_jobs(struct cli *c, const char *arg)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || n < 1 || n > 1024) {
		fprintf(stderr,
			"imprint: '--jobs' must be a whole number from 1 to 1024 (got '%s')\n", arg);
		return EXIT_USAGE;
	}
	c->create.jobs = (unsigned)n;
	c->jobs_given = 1;
	return 0;
}

/* Returns 0 when arg is a size of whole 4 KiB units, at least 1 MiB; else EXIT_USAGE after a message. */
static int parse_partition_size(struct cli *c, const char *arg)
{
	uint64_t v;

	if (params_parse_size(arg, &v) || v < DISK_ALIGN || v % 4096) {
		fprintf(stderr, "imprint: '--partition-size' must be a size of at least 1M in whole 4K units, like 2G or 1500M (got '%s')\n",
			arg);
		return EXIT_USAGE;
	}
	c->create.partition_size = v;
	return 0;
}

/* --set KEY=VALUE and its short forms; 0 or -ENOMEM, EXIT_USAGE after a message. */
static int parse_set(struct cli *c, int opt, char *arg)
{
	char *eq = strchr(arg, '=');
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(set_opts); i++)
		if (set_opts[i].opt == opt)
			return add_set(c, set_opts[i].key, arg, set_opts[i].where);
	if (!eq || eq == arg) {
		fprintf(stderr, "imprint: --set: expected KEY=VALUE (got '%s')\n", arg);
		return EXIT_USAGE;
	}
	*eq = '\0';
	ret = add_set(c, arg, eq + 1, "--set");
	*eq = '=';
	return ret;
}

/*
 * One option from getopt_long().  Returns 0 to go on, 1 when done (help,
 * version), EXIT_USAGE after a message, or -ENOMEM.
 */
static int parse_option(struct cli *c, int opt, char **argv)
{
	switch (opt) {
	case 'c':
		c->config = optarg;
		break;
	case 'o':
		c->output = optarg;
		break;
	case OPT_SET:
	case OPT_SEED:
	case OPT_USED:
	case OPT_FILES:
	case OPT_SIZE:
	case OPT_FS:
		return parse_set(c, opt, optarg);
	case OPT_REPORT:
		c->report = 1;
		break;
	case OPT_JSON:
		c->json = 1;
		break;
	case OPT_MKFS_OPTIONS:
		c->create.mkfs_options = optarg;
		break;
	case OPT_NO_FORMAT:
		c->create.no_format = 1;
		break;
	case OPT_FORCE:
		c->create.force = 1;
		break;
	case OPT_KEEP_PARTIAL:
		c->create.keep_partial = 1;
		break;
	case OPT_ALLOW_DROP:
		c->create.allow_drop = 1;
		break;
	case 'q':
		c->create.quiet = 1;
		break;
	case OPT_BACKEND:
		c->create.backend = optarg;
		break;
	case 'j':
		return parse_jobs(c, optarg);
	case OPT_EXTENTS:
		c->create.extents = optarg;
		break;
	case OPT_SAMPLE:
		return parse_sample(c, optarg);
	case OPT_AGAINST:
		c->against = optarg;
		break;
	case OPT_PARAMETRIC:
		c->parametric = 1;
		break;
	case OPT_CONTENT:
		c->content = 1;
		break;
	case OPT_PROFILE:
		c->profile = optarg;
		break;
	case OPT_PROFILES:
		c->profiles = 1;
		break;
	case OPT_FROM_IMPRESSIONS:
		c->from_impressions = optarg;
		break;
	case OPT_PARTITION:
		c->partition = optarg;
		break;
	case OPT_PARTITION_SIZE:
		return parse_partition_size(c, optarg);
	case OPT_FORMAT:
		if (convert_format_parse(optarg, &c->create.format)) {
			fprintf(stderr, "imprint: '--format' must be raw, qcow2, vmdk or vhdx (got '%s')\n",
				optarg);
			return EXIT_USAGE;
		}
		c->create.format_given = 1;
		break;
	case OPT_HTML:
		c->html = optarg;
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
	return 0;
}

/* Returns 0 to go on, 1 when done (help, version, out of memory), or EXIT_USAGE. */
static int parse_line(struct line *l, int argc, char **argv)
{
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:o:hqj:", long_opts, NULL)) != -1) {
		ret = parse_option(&l->c, opt, argv);
		if (ret == -ENOMEM) {
			fprintf(stderr, "imprint: out of memory\n");
			return 1;
		}
		if (ret)
			return ret;
		if (opt < OPT_LAST && !l->seen[opt])
			l->seen[opt] = ++l->nseen;
	}
	if (l->cmd->needs && optind < argc)
		l->c.operand = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "imprint: unexpected argument '%s'\n", argv[optind]);
		return EXIT_USAGE;
	}
	return 0;
}

/* Of the run of rows sharing r's check, the one given first on the line. */
static const struct opt_rule *first_given(const struct line *l, const struct opt_rule *r)
{
	const struct opt_rule *first = r;

	for (r++; r < opt_rules + ARRAY_SIZE(opt_rules) && r->takes == first->takes &&
		  r->only_for && strcmp(r->only_for, first->only_for) == 0;
	     r++)
		if (l->seen[r->opt] && l->seen[r->opt] < l->seen[first->opt])
			first = r;
	return first;
}

/* Whether cmd takes opt beyond the rows' takes bits. */
static int takes_also(const struct command *cmd, int opt)
{
	for (const int *o = cmd->also; o && *o; o++)
		if (*o == opt)
			return 1;
	return 0;
}

/* The options that shape a configuration: a command that loads none refuses them. */
static const int model_opts[] = { 'c', OPT_SET, OPT_PROFILE, OPT_SEED, OPT_USED,
				  OPT_FILES, OPT_SIZE, OPT_FS };

/* Refuse a configuration option given to a command that reads none: 0 or EXIT_USAGE. */
static int check_no_model(const struct line *l)
{
	if (l->cmd->load != LOAD_NONE)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(model_opts); i++) {
		const struct option *o = long_opts;

		if (!l->seen[model_opts[i]])
			continue;
		while (o->name && o->val != model_opts[i])
			o++;
		fprintf(stderr, "imprint: '--%s' means nothing to '%s': it reads no configuration\n",
			o->name ? o->name : "?", l->cmd->name);
		return EXIT_USAGE;
	}
	return 0;
}

/* Refuse options the command does not take and a missing operand: 0 or EXIT_USAGE. */
static int check_line(const struct line *l)
{
	unsigned on = ON(l->cmd - commands);

	if (l->cmd->any_option)
		return 0;
	if (check_no_model(l))
		return EXIT_USAGE;
	for (const struct opt_rule *r = opt_rules; r < opt_rules + ARRAY_SIZE(opt_rules); r++) {
		if (r->opt == OPT_OPERAND) {
			if (l->cmd->needs && !l->c.operand) {
				fprintf(stderr, "imprint: %s\n", l->cmd->needs);
				return EXIT_USAGE;
			}
		} else if (l->seen[r->opt] && !(r->takes & on) && !takes_also(l->cmd, r->opt)) {
			r = first_given(l, r);
			fprintf(stderr, "imprint: %s is only for %s\n", r->name, r->only_for);
			return EXIT_USAGE;
		} else if (l->seen[r->opt] && r->clash && l->seen[r->clash]) {
			fprintf(stderr, "imprint: %s\n", r->clash_msg);
			return EXIT_USAGE;
		}
	}
	return 0;
}

/*
 * Defaults, then the file, then --set and short forms in order; then
 * resolve unless resolve is 0 (create resolves once it knows the target).
 */
static int load_params(struct cli *c, struct params *p, int resolve)
{
	struct param_error err = { { 0 } };
	size_t notes_len = 0;
	FILE *notes;
	int ret;

	params_init(p);
	if (c->profile && params_set(p, "profile", c->profile, "--profile", &err))
		goto out_err;
	if (c->from_impressions) {
		/* the notes become comments of the configuration 'config' prints */
		notes = open_memstream(&c->impressions_notes, &notes_len);
		if (!notes) {
			perror("imprint: open_memstream");
			return 1;
		}
		ret = impressions_load(p, c->from_impressions, notes, &err);
		if (fclose(notes) || ret)
			goto out_err;
	}
	if (c->config && params_load_file(p, c->config, &err))
		goto out_err;
	for (size_t i = 0; i < c->nsets; i++) {
		char *eq = strchr(c->sets[i], '=');

		*eq = '\0';
		ret = params_set(p, c->sets[i], eq + 1, c->set_where[i], &err);

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

int main(int argc, char **argv)
{
	struct line l = { 0 };
	struct params p, *pp = NULL;
	int ret;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		printf("imprint %s\n", PACKAGE_VERSION);
		return 0;
	}
	l.cmd = command_find(argv[1]);
	if (!l.cmd) {
		unknown_command(argv[1]);
		return EXIT_USAGE;
	}
	ret = parse_line(&l, argc - 1, argv + 1);
	if (ret) {
		cli_release(&l.c);
		return ret == 1 ? 0 : ret;
	}
	ret = check_line(&l);
	if (ret)
		goto out;
	if (l.c.against)
		l.c.config = l.c.against;
	if (l.cmd->load != LOAD_NONE) {
		ret = load_params(&l.c, &p, l.cmd->load == LOAD_RESOLVED);
		if (ret)
			goto out;
		pp = &p;
	}
	l.c.argc = argc;
	l.c.argv = argv;
	ret = l.cmd->run(&l.c, pp);
out:
	cli_release(&l.c);
	return ret;
}
