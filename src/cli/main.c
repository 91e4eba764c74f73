/* main.c - the imprint command: the command and option tables, parsing, checks, exit status */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "backends/registry.h"
#include "cli/commands.h"
#include "model/impressions.h"
#include "model/params.h"
#include "util/array.h"
#include "util/loopdev.h"
#include "util/strutil.h"
#include "util/util.h"

enum {
	OPT_SET = 256,
	OPT_SEED,
	OPT_UUID,
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
	OPT_BACKING,
	OPT_HTML,
	OPT_GENERATION,
	OPT_INCLUDE,
	OPT_INCLUDE_NORMALIZE,
	OPT_SHARD,
	OPT_DIRECT_IO,
	OPT_SINCE,
	OPT_UNDO,
	OPT_ROLLBACK,
	OPT_OPERAND, /* not an option: the command's TARGET or DIR, in opt_rules[] */
	OPT_LAST,
};

static const struct option long_opts[] = {
	{ "config", required_argument, NULL, 'c' },
	{ "set", required_argument, NULL, OPT_SET },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "uuid", required_argument, NULL, OPT_UUID },
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
	{ "backing", required_argument, NULL, OPT_BACKING },
	{ "html", required_argument, NULL, OPT_HTML },
	{ "generation", required_argument, NULL, OPT_GENERATION },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "include-normalize", no_argument, NULL, OPT_INCLUDE_NORMALIZE },
	{ "shard", required_argument, NULL, OPT_SHARD },
	{ "direct-io", required_argument, NULL, OPT_DIRECT_IO },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "undo", required_argument, NULL, OPT_UNDO },
	{ "rollback", no_argument, NULL, OPT_ROLLBACK },
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

/* One subcommand: git's commands[] in git.c; it drives dispatch and help alike. */
struct command {
	const char *name;
	int (*run)(struct cli *c, struct params *p);
	const char *help;  /* usage()'s text beside the name, wrapped lines included */
	const char *synopsis; /* its own help's first line, after "usage: " */
	const char *about;    /* its own help: what it does, lines of at most 78 columns */
	const char *example;  /* its own help: a command line to try, lines indented by 2 */
	const char *needs; /* the message when TARGET or DIR is missing; NULL: takes none */
	enum param_load load;
	int any_option; /* takes every option and ignores those it does not use */
	const int *also; /* options of other commands' rows it takes too, 0-ended
			  * (any_option: the options its help shows) */
	int may_mount; /* mounts an image (xfs, btrfs) itself when run as root */
};

/* profile replaces its output only with --force, and -q silences its progress as create's */
static const int profile_also[] = { OPT_FORCE, 'q', 0 };
/* params takes any option and ignores it; its help shows those it uses */
static const int params_shows[] = { OPT_PROFILES, OPT_JSON, 0 };
/* evolve makes its files' bytes on worker threads as create does */
static const int evolve_also[] = { 'j', 0 };

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
	CMD_EVOLVE,
	NCOMMANDS,
};

#define ON(cmd) (1u << (cmd))
#define ON_ALL (ON(NCOMMANDS) - 1)

static const struct command commands[NCOMMANDS] = {
	[CMD_CREATE] = {
		.may_mount = 1,
		.name = "create",
		.run = cmd_create,
		.help = "build the image: imprint create [options] TARGET",
		.needs = "create needs a TARGET: an image file, a block device or a directory",
		.load = LOAD_AS_GIVEN,
		.synopsis = "imprint create [options] TARGET",
		.about = "Build an image of 'size' (default 1G) holding the planned tree: TARGET is an\n"
			 "image file (built under a temporary name beside it, renamed over it when\n"
			 "complete), a block device (its whole size unless --size) or a directory of a\n"
			 "mounted file system (filled through the kernel, up to its free space).\n"
			 "'imprint plan' with the same options writes the manifest of what it builds.",
		.example = "imprint create --size 256M --used 100M --files 2000 disk.img\n"
			   "imprint create --profile linux-source --partition gpt disk.qcow2",
	},
	[CMD_PLAN] = {
		.name = "plan",
		.run = cmd_plan,
		.help = "build the plan and write its manifest (one line per entry)",
		.load = LOAD_RESOLVED,
		.synopsis = "imprint plan [options] [-o MANIFEST]",
		.about = "Build the plan and write its manifest (one line per entry) to stdout or -o.\n"
			 "With --report, the fit report (targets against what the plan reaches) goes\n"
			 "to stdout and the manifest only where -o says (with -o -, the report goes\n"
			 "to stderr).",
		.example = "imprint plan --used 100M --files 2000 --report",
	},
	[CMD_VERIFY] = {
		.may_mount = 1,
		.name = "verify",
		.run = cmd_verify,
		.help = "check a mounted image against its plan: imprint verify [options] DIR\n"
			"            (or an image or disk, which it mounts read-only itself, as root)",
		.needs = "verify needs the directory where the image is mounted",
		.load = LOAD_RESOLVED,
		.synopsis = "imprint verify [options] DIR|IMAGE|DEVICE",
		.about = "Check a mounted image against its plan: every entry's kind, size, content,\n"
			 "owner, mode and times, and with --extents each file's physical runs.  Give\n"
			 "it the options create was given (it takes them all, so one line serves\n"
			 "both).  An image or a disk it mounts read-only itself, as root.",
		.example = "imprint create --used 50M --extents ext.txt disk.img\n"
			   "sudo imprint verify --used 50M --extents ext.txt disk.img",
	},
	[CMD_CONTENT_REPORT] = {
		.may_mount = 1,
		.name = "content-report",
		.run = cmd_content_report,
		.help = "measure content (compressibility, duplicates, zero blocks,\n"
			"            types) against the configuration's targets:\n"
			"            imprint content-report [options] TARGET (an image, a device or a directory)",
		.needs = "content-report needs a TARGET: an image, a device or a directory",
		.load = LOAD_RESOLVED,
		.synopsis = "imprint content-report [options] TARGET",
		.about = "Measure the content of an image, a device or a directory (compressibility,\n"
			 "duplicates, zero blocks, types) against the configuration's targets.",
		.example = "imprint content-report --sample 0.1 disk.img",
	},
	[CMD_MEASURE] = {
		.may_mount = 1,
		.name = "measure",
		.run = cmd_measure,
		.help = "measure what an image, device or mounted tree holds (sizes, depths,\n"
			"            files per directory, extensions, links, ages, layout score, extents,\n"
			"            free extents): imprint measure [--against CONFIG] [options] TARGET",
		.needs = "measure needs a TARGET: an image, a device or a directory",
		.load = LOAD_RESOLVED,
		.synopsis = "imprint measure [--against CONFIG] [options] TARGET",
		.about = "Measure what an image, a device or a mounted tree holds: sizes, depths, files\n"
			 "per directory, extensions, links, ages, layout score, extents, free extents.\n"
			 "With --against (or -c, --set) it compares them with that configuration.",
		.example = "imprint measure --against my.conf disk.img",
	},
	[CMD_CONFIG] = {
		.name = "config",
		.run = cmd_config,
		.help = "print the complete resolved configuration, seed included",
		.load = LOAD_RESOLVED,
		.synopsis = "imprint config [options] [--from-impressions FILE]",
		.about = "Print the complete resolved configuration, seed included: a file that -c\n"
			 "reads back to the same image.",
		.example = "imprint config --profile linux-source --seed 7 > my.conf",
	},
	[CMD_PARAMS] = {
		.name = "params",
		.run = cmd_params,
		.help = "list every parameter with type, unit, default and description",
		.load = LOAD_NONE,
		.any_option = 1,
		.also = params_shows,
		.synopsis = "imprint params [--json] [--profiles]",
		.about = "List every parameter with its type, unit, default and description, or with\n"
			 "--profiles the shipped profiles.",
		.example = "imprint params --profiles",
	},
	[CMD_PROFILE] = {
		.may_mount = 1,
		.name = "profile",
		.run = cmd_profile,
		.help = "measure a tree, image or device and write its statistics as a\n"
			"            configuration: imprint profile SOURCE [-o PROFILE] [--parametric]\n"
			"            [--content [--sample SHARE]] [--json] [--partition N] [--html FILE]\n"
			"            [--since OLD]: with the change from OLD as the gen_* rates",
		.needs = "profile needs a SOURCE: a mounted directory, an ext2/3/4 image or a device",
		.load = LOAD_NONE,
		.also = profile_also,
		.synopsis = "imprint profile [options] SOURCE",
		.about = "Measure a tree, an image or a device and write its statistics as a\n"
			 "configuration (to stdout, or whole to -o PROFILE), which create then\n"
			 "reproduces.",
		.example = "imprint profile /usr/share/doc -o doc.conf\n"
			   "imprint create -c doc.conf doc.img",
	},
	[CMD_EVOLVE] = {
		.name = "evolve",
		.run = cmd_evolve,
		.also = evolve_also,
		.help = "turn a directory, or an ext2/3/4 image or device, holding generation\n"
			"            N-1 of a plan into generation N: imprint evolve --generation N\n"
			"            [options] TARGET",
		.needs = "evolve needs a TARGET: a directory of a mounted file system, or an ext2/3/4 "
			 "image or device, holding generation N-1",
		.load = LOAD_RESOLVED,
		.synopsis = "imprint evolve --generation N [options] TARGET",
		.about = "Turn TARGET, which 'imprint create' (or evolve) filled with generation\n"
			 "N-1 of a plan, into generation N: files deleted, renamed and moved,\n"
			 "appended to, edited in place, rewritten, truncated and created,\n"
			 "directories made and removed, owners, modes and times set.  TARGET is a\n"
			 "directory of a mounted file system (changed through the kernel) or an\n"
			 "ext2/3/4 image or device that is not mounted (changed offline through\n"
			 "libext2fs: only what changes is written).  Give it the options create\n"
			 "was given ('--size', '--used' or '--files' among them).  It refuses a\n"
			 "TARGET that is not generation N-1 of the same plan (the files generation\n"
			 "N changes, and a sample of the others, by size and mtime) before\n"
			 "changing anything.  An image that fails or is interrupted half-way\n"
			 "is rolled back to generation N-1 from an undo file (--undo FILE\n"
			 "keeps one for e2undo); one killed half-way carries a mark that every\n"
			 "command refuses, and 'evolve --rollback TARGET' rolls it back; a\n"
			 "directory's failure says which steps were done.",
		.example = "imprint create --size 200M --files 5000 /mnt/data\n"
			   "imprint evolve --size 200M --files 5000 --generation 1 /mnt/data\n"
			   "imprint create --size 200M --files 5000 data.img\n"
			   "imprint evolve --size 200M --files 5000 --generation 1 data.img",
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
	{ .opt = 'j', .name = "'--jobs'", .takes = CREATE_OPTS, .only_for = "'create' and 'evolve'" },
	CREATE_OPT(OPT_PARTITION_SIZE, "'--partition-size'"),
	CREATE_OPT(OPT_FORMAT, "'--format'"),
	CREATE_OPT(OPT_SHARD, "'--shard'"),
	CREATE_OPT(OPT_DIRECT_IO, "'--direct-io'"),
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
	{ .opt = OPT_GENERATION,
	  .name = "'--generation'",
	  .takes = CREATE_OPTS | ON(CMD_PLAN) | ON(CMD_EVOLVE) | ON(CMD_MEASURE) |
		   ON(CMD_CONTENT_REPORT),
	  .only_for = "'create', 'plan', 'verify', 'evolve', 'measure' and 'content-report'" },
	{ .opt = OPT_INCLUDE,
	  .name = "'--include'",
	  .takes = CREATE_OPTS | ON(CMD_PLAN),
	  .only_for = "'create', 'plan' and 'verify'" },
	{ .opt = OPT_BACKING, .name = "'--backing'", .takes = ON(CMD_CREATE),
	  .only_for = "'create'" },
	{ .opt = OPT_SINCE, .name = "'--since'", .takes = ON(CMD_PROFILE),
	  .only_for = "'profile'" },
	{ .opt = OPT_UNDO, .name = "'--undo'", .takes = ON(CMD_EVOLVE), .only_for = "'evolve'" },
	{ .opt = OPT_ROLLBACK, .name = "'--rollback'", .takes = ON(CMD_EVOLVE),
	  .only_for = "'evolve'" },
	{ .opt = OPT_INCLUDE_NORMALIZE,
	  .name = "'--include-normalize'",
	  .takes = CREATE_OPTS | ON(CMD_PLAN),
	  .only_for = "'create', 'plan' and 'verify'" },
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
	{ .opt = OPT_PROFILES, .name = "'--profiles'", .takes = ON(CMD_PARAMS), .only_for = "'params'" },
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
	{ OPT_FS, "fs", "--fs" }, { OPT_UUID, "uuid", "--uuid" },
};

/*
 * One option's help: its spelling and what it does, for usage() and each
 * command's help.  shown_for limits it to some commands (the same option
 * means different things to them); 0: every command that takes it.
 */
/* Help text lines are at most this wide (the text from the backends is broken to it). */
#define HELP_TEXT_WIDTH 59

static const struct opt_help {
	int opt;
	const char *spelling; /* "-c, --config FILE" */
	const char *text;     /* lines; usage() indents the ones after the first */
	unsigned shown_for;
} opt_helps[] = {
#define HELP_GLOBAL (1u << 31) /* shown_for: only in usage() */
	{ 'c', "-c, --config FILE", "read parameters from FILE ('key = value' lines)", 0 },
	{ OPT_PROFILE, "    --profile NAME",
	  "start from a shipped profile ('imprint params --profiles'\n"
	  "lists them); -c and --set override it", 0 },
	{ OPT_SET, "    --set KEY=VALUE", "set a parameter (repeatable, applied after -c)", 0 },
	{ OPT_PROFILES, "    --profiles", "params: list the shipped profiles", 0 },
	{ OPT_SEED, "    --seed N", "random seed ('random' draws one; default 1)", 0 },
	{ OPT_UUID, "    --uuid UUID", "file-system UUID (default: from the configuration and seed)", 0 },
	{ OPT_USED, "    --used SIZE",
	  "bytes of file data (K/M/G/T binary suffixes: 100M and\n"
	  "100MB are both 100 MiB; no unit: bytes)", 0 },
	{ OPT_FILES, "    --files N", "number of regular files (K/M decimal suffixes)", 0 },
	{ OPT_SIZE, "    --size SIZE", "capacity of the image (default 1G)", 0 },
	{ OPT_FS, "    --fs FS", NULL, 0 }, /* from the backends (backend_help) */
	{ 'o', "-o, --output FILE",
	  "plan: write the manifest to FILE ('-' for stdout);\n"
	  "profile: write the profile to FILE", 0 },
	{ OPT_REPORT, "    --report", "plan: print the fit report (target against achieved)",
	  ON(CMD_PLAN) },
	{ OPT_JSON, "    --json", "print reports, config, params and the create summary as JSON", 0 },
	{ 'h', "-h, --help", "show this help ('imprint help COMMAND': a command's own)", 0 },
	{ OPT_VERSION, "    --version", "show the version", HELP_GLOBAL },
	{ OPT_BACKEND, "    --backend NAME", NULL, 0 }, /* from the backends (backend_help) */
	{ OPT_MKFS_OPTIONS, "    --mkfs-options S",
	  "ext4, loopfs: extra mke2fs (or mkfs.xfs, mkfs.btrfs)\n"
	  "arguments, e.g. \"-O ^has_journal\"", 0 },
	{ OPT_NO_FORMAT, "    --no-format", "ext4: populate the empty ext2/3/4 file system in TARGET", 0 },
	{ OPT_FORCE, "    --force",
	  "create: overwrite a TARGET that holds a file system, partition\n"
	  "table or other signature (never a mounted or busy one, nor\n"
	  "a system directory); profile: replace -o's file", 0 },
	{ OPT_PARTITION, "    --partition gpt|mbr",
	  "make TARGET a disk: one Linux partition at 1 MiB\n"
	  "holding the file system ('size' is the file system's;\n"
	  "MBR addresses 2 TiB at most)", ON(CMD_CREATE) },
	{ OPT_PARTITION_SIZE, "    --partition-size SIZE",
	  "the partition's size (default: 'size' in whole\n"
	  "MiB; on a device, the whole device)", 0 },
	{ OPT_FORMAT, "    --format FMT",
	  "raw (default), qcow2, vmdk or vhdx (default from TARGET's\n"
	  "extension): converted by qemu-img once built", 0 },
	{ OPT_BACKING, "    --backing FILE",
	  "qcow2: an overlay on FILE (the qcow2 image of the\n"
	  "generation before) holding only what differs from it;\n"
	  "with --generation N and FILE holding N-1 (ext2/3/4),\n"
	  "N is evolved from a copy of FILE: only what changed", 0 },
	{ OPT_INCLUDE, "    --include SRC[:DEST]",
	  "copy the file or directory SRC into the image at DEST\n"
	  "(absolute; default '/' and SRC's name), owners, modes,\n"
	  "times and extended attributes kept, links kept as links\n"
	  "(repeatable); the plan's files fill the rest of the budget", 0 },
	{ OPT_INCLUDE_NORMALIZE, "    --include-normalize",
	  "included entries owned by root:root, modes 0755\n"
	  "(directories, executables) or 0644, times at 'time_ref',\n"
	  "no extended attributes", 0 },
	{ OPT_KEEP_PARTIAL, "    --keep-partial", "mounted, loopfs: on failure, keep what was written", 0 },
	{ OPT_ALLOW_DROP, "    --allow-drop",
	  "mounted: what the file system lacks is dropped and\n"
	  "counted (else refused): links skipped, its owners, modes\n"
	  "and time resolution kept, holes written as zeros, names\n"
	  "too long, with refused characters or case twins renamed", 0 },
	{ OPT_SHARD, "    --shard K/N",
	  "mounted: write (verify: check) share K of N of the plan,\n"
	  "0 <= K < N <= 65536, beside the other shards' clients\n"
	  "(needs 'size'); auto: K and N from mpirun, srun, a Slurm\n"
	  "job array or a Kubernetes Indexed Job; finish: after all\n"
	  "shards, the directories' metadata (doc/scale-out.md)", 0 },
	{ 'q', "-q, --quiet", "no progress line and no summary (--json still prints)", 0 },
	{ 'j', "-j, --jobs N", "create, evolve: worker threads for file data, and for\n"
	  "create's plan and directory shapes (default: online CPUs)", 0 },
	{ OPT_DIRECT_IO, "    --direct-io WAY",
	  "ext4: file data around the page cache (on), through it\n"
	  "(off), or auto (default): both timed at the target\n"
	  "first, the faster taken; the same image either way", 0 },
	{ OPT_EXTENTS, "    --extents FILE",
	  "create: write every file's planned physical runs to FILE;\n"
	  "verify: check each file's FIEMAP extents against it;\n"
	  "measure: write every file's measured physical runs to FILE", 0 },
	{ OPT_SAMPLE, "    --sample SHARE",
	  "content-report: share of 1 MiB segments compressed, (0, 1]\n"
	  "(default 1: every byte)", 0 },
	{ OPT_PARAMETRIC, "    --parametric",
	  "profile: file sizes from the fitted law, not the quantile table", 0 },
	{ OPT_CONTENT, "    --content",
	  "profile: read every file (--sample SHARE of the segments\n"
	  "compressed): compressibility, duplicates, zero blocks", 0 },
	{ OPT_FROM_IMPRESSIONS, "    --from-impressions FILE", "config: convert an Impressions input file", 0 },
	{ OPT_PARTITION, "    --partition N",
	  "measure, content-report, verify, profile: read partition N of a\n"
	  "partitioned disk (default: the one with a file system)",
	  ON(CMD_VERIFY) | ON(CMD_MEASURE) | ON(CMD_CONTENT_REPORT) | ON(CMD_PROFILE) },
	{ OPT_AGAINST, "    --against CONFIG",
	  "measure: compare with CONFIG (the fit report of\n"
	  "'plan --report', layout and free-space targets); -c and\n"
	  "--set also turn the comparison on", 0 },
	{ OPT_GENERATION, "    --generation N",
	  "plan, create, verify, evolve, measure, content-report:\n"
	  "generation N of the plan: the\n"
	  "same tree after N rounds of change (the gen_* parameters:\n"
	  "files modified, deleted, renamed, moved, created;\n"
	  "directories made and removed); 0 (default) is the plan;\n"
	  "measure (with --against, -c or --set): also how much of\n"
	  "generation N's change TARGET holds, by kind;\n"
	  "content-report: predicted from generation N's plan", 0 },
	{ OPT_SINCE, "    --since OLD",
	  "profile: also the change from OLD (an earlier state of\n"
	  "SOURCE: image, device or directory) to SOURCE, as the\n"
	  "gen_* rates of one generation", 0 },
	{ OPT_UNDO, "    --undo FILE",
	  "evolve: keep the undo file of an ext2/3/4 image or\n"
	  "device (a new FILE): 'e2undo FILE TARGET' gives back\n"
	  "generation N-1", 0 },
	{ OPT_ROLLBACK, "    --rollback",
	  "evolve: roll an image or device whose evolve was killed\n"
	  "(it carries the mark) back to generation N-1 byte for\n"
	  "byte from its undo file; only TARGET is needed", 0 },
	{ OPT_HTML, "    --html FILE",
	  "plan, create, measure, content-report, profile: also write the\n"
	  "report as one self-contained HTML page (charts of target\n"
	  "against achieved, a map of the disk) to FILE", 0 },
};

/* Whether the opt_rules[] row of opt exists: options without one are every command's. */
static const struct opt_rule *rule_of(int opt)
{
	for (size_t i = 0; i < ARRAY_SIZE(opt_rules); i++)
		if (opt_rules[i].opt == opt)
			return &opt_rules[i];
	return NULL;
}

static int takes_also(const struct command *cmd, int opt);
static int is_model_opt(int opt);

/* Whether cmd accepts opt: what check_line() lets through. */
static int command_takes(const struct command *cmd, int opt)
{
	const struct opt_rule *r = rule_of(opt);
	unsigned on = ON(cmd - commands);

	if (cmd->any_option)
		return 1;
	if (cmd->load == LOAD_NONE && is_model_opt(opt))
		return 0;
	return !r || (r->takes & on) || takes_also(cmd, opt);
}

/* Whether cmd's help shows h: the options it takes and uses. */
static int help_shows(const struct command *cmd, const struct opt_help *h)
{
	if (h->shown_for)
		return !!(h->shown_for & ON(cmd - commands));
	if (cmd->any_option)
		return takes_also(cmd, h->opt) || h->opt == 'h';
	return command_takes(cmd, h->opt);
}

/* One option's help: the spelling in a column of 21, its lines beside it. */
static void opt_help_print(const struct opt_help *h, FILE *out)
{
	char from_registry[1024];
	const char *line = h->text, *nl;
	int w = (int)strlen(h->spelling);

	if (!line) {
		backend_help(h->opt == OPT_FS ? 'f' : 'b', HELP_TEXT_WIDTH, from_registry,
			     sizeof(from_registry));
		line = from_registry;
	}

	fprintf(out, "  %s%*s", h->spelling, w < 20 ? 21 - w : 2, "");
	for (;;) {
		nl = strchr(line, '\n');
		fprintf(out, "%.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
		if (!nl)
			break;
		line = nl + 1;
		fprintf(out, "%23s", "");
	}
}

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
	fprintf(out, "\noptions:\n");
	for (size_t i = 0; i < ARRAY_SIZE(opt_helps); i++)
		if (!rule_of(opt_helps[i].opt))
			opt_help_print(&opt_helps[i], out);
	fprintf(out, "\ncreate options (TARGET is an image file, a block device or a directory):\n");
	for (size_t i = 0; i < ARRAY_SIZE(opt_helps); i++)
		if (rule_of(opt_helps[i].opt))
			opt_help_print(&opt_helps[i], out);
	fprintf(out,
		"\n"
		"'imprint help COMMAND' (or 'imprint COMMAND --help') shows one command's\n"
		"synopsis, its options and an example.\n"
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

/* A command's own help: its synopsis, what it does, its options, an example. */
static void command_help(const struct command *cmd, FILE *out)
{
	const char *line, *nl;

	fprintf(out, "usage: %s\n\n%s\n\noptions:\n", cmd->synopsis, cmd->about);
	for (size_t i = 0; i < ARRAY_SIZE(opt_helps); i++)
		if (help_shows(cmd, &opt_helps[i]))
			opt_help_print(&opt_helps[i], out);
	if (cmd == &commands[CMD_VERIFY])
		fprintf(out, "  (and every option of create, so that one command line serves both)\n");
	fprintf(out, "\nexample%s:\n", strchr(cmd->example, '\n') ? "s" : "");
	for (line = cmd->example;; line = nl + 1) {
		nl = strchr(line, '\n');
		fprintf(out, "  %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
		if (!nl)
			break;
	}
	fprintf(out, "\n'imprint --help' lists every command and option; 'imprint params' every\nparameter (--set KEY=VALUE, or 'KEY = VALUE' lines in a -c file).\n");
}

/* The entry of commands[] named name, or NULL. */
static const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

/* The command nearest name, when near enough to suggest (str_near()), or NULL. */
static const struct command *command_nearest(const char *name)
{
	const struct command *best = NULL;
	size_t best_d = SIZE_MAX;

	for (size_t i = 0; i < NCOMMANDS; i++) {
		size_t d = str_distance(name, commands[i].name);

		if (d < best_d) {
			best_d = d;
			best = &commands[i];
		}
	}
	return str_near(best_d, strlen(name)) ? best : NULL;
}

/* "imprint: unknown command 'x' (expected create, plan, ... or params)", and the nearest */
static void unknown_command(const char *name)
{
	const struct command *near = command_nearest(name);

	fprintf(stderr, "imprint: unknown command '%s' (expected ", name);
	for (size_t i = 0; i < NCOMMANDS; i++) {
		const char *sep = i == NCOMMANDS - 1 ? " or " : ", ";

		fprintf(stderr, "%s%s", i == 0 ? "" : sep, commands[i].name);
	}
	fprintf(stderr, ")");
	if (near)
		fprintf(stderr, "; did you mean '%s'?", near->name);
	fprintf(stderr, "\n");
}

/*
 * An unknown long option arg ("--sise" or "--sise=1G"): the options it
 * abbreviates when it is ambiguous, else the nearest one cmd takes (any
 * option when none is near).
 */
static void unknown_long_option(const struct command *cmd, const char *arg)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name), nprefix = 0;
	const struct option *best = NULL;
	size_t best_d = SIZE_MAX;
	char word[STR_DISTANCE_MAX + 1];

	for (const struct option *o = long_opts; o->name; o++)
		nprefix += strncmp(o->name, name, len) == 0;
	if (len && nprefix > 1) {
		fprintf(stderr, "imprint: option '--%.*s' is ambiguous: it could be", (int)len, name);
		for (const struct option *o = long_opts; o->name; o++)
			if (strncmp(o->name, name, len) == 0)
				fprintf(stderr, " '--%s'", o->name);
		fprintf(stderr, "\n");
		return;
	}
	snprintf(word, sizeof(word), "%.*s", (int)(len < STR_DISTANCE_MAX ? len : STR_DISTANCE_MAX),
		 name);
	for (int pass = 0; pass < 2 && !best; pass++) {
		for (const struct option *o = long_opts; o->name; o++) {
			size_t d = str_distance(word, o->name);

			if ((pass || command_takes(cmd, o->val)) && d < best_d &&
			    str_near(d, len)) {
				best_d = d;
				best = o;
			}
		}
	}
	fprintf(stderr, "imprint: unknown option '%s'", arg);
	if (best)
		fprintf(stderr, " (did you mean '--%s'?)", best->name);
	fprintf(stderr, "\n");
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
	include_release(&c->includes);
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

/* Returns 0 when arg is a whole number from 0 to 100000, else EXIT_USAGE after a message. */
static int parse_generation(struct cli *c, const char *arg)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || n > 100000) {
		fprintf(stderr,
			"imprint: '--generation' must be a whole number from 0 to 100000 (got '%s')\n",
			arg);
		return EXIT_USAGE;
	}
	c->generation = (uint32_t)n;
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

/* --direct-io auto, on or off. */
static int parse_direct_io(struct cli *c, const char *arg)
{
	static const struct {
		const char *name;
		enum data_io v;
	} way[] = { { "auto", DATA_IO_AUTO }, { "on", DATA_IO_DIRECT }, { "off", DATA_IO_BUFFERED } };

	for (size_t i = 0; i < ARRAY_SIZE(way); i++) {
		if (!strcmp(arg, way[i].name)) {
			c->create.data_io = way[i].v;
			c->create.data_io_given = 1;
			return 0;
		}
	}
	fprintf(stderr, "imprint: '--direct-io' must be auto, on or off (got '%s')\n", arg);
	return EXIT_USAGE;
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
static int parse_option(struct cli *c, const struct command *cmd, int opt, char **argv)
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
	case OPT_UUID:
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
	case OPT_SINCE:
		c->since = optarg;
		break;
	case OPT_UNDO:
		c->undo = optarg;
		break;
	case OPT_ROLLBACK:
		c->rollback = 1;
		break;
	case OPT_SHARD:
		return shard_arg_parse(optarg, &c->create.shard, stderr) ? EXIT_USAGE : 0;
	case OPT_DIRECT_IO:
		return parse_direct_io(c, optarg);
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
	case OPT_BACKING:
		c->create.backing = optarg;
		break;
	case OPT_HTML:
		c->html = optarg;
		break;
	case OPT_GENERATION:
		return parse_generation(c, optarg);
	case OPT_INCLUDE: {
		char err[PATH_MAX + 256];

		if (include_add(&c->includes, optarg, err, sizeof(err))) {
			fprintf(stderr, "imprint: %s\n", err);
			return EXIT_USAGE;
		}
		break;
	}
	case OPT_INCLUDE_NORMALIZE:
		c->includes.normalize = 1;
		break;
	case 'h':
		command_help(cmd, stdout);
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
		else if (strncmp(argv[optind - 1], "--", 2) == 0)
			unknown_long_option(cmd, argv[optind - 1]);
		else
			fprintf(stderr, "imprint: unknown option '%s'\n", argv[optind - 1]);
		fprintf(stderr, "Try 'imprint %s --help'.\n", cmd->name);
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
		ret = parse_option(&l->c, l->cmd, opt, argv);
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

/*
 * Of the run of rows sharing r's check (the same commands take them), the one
 * given first on the line.  --jobs is one of create's options that evolve
 * takes too (evolve_also), so its refusal names both.
 */
static const struct opt_rule *first_given(const struct line *l, const struct opt_rule *r)
{
	const struct opt_rule *first = r;

	for (r++; r < opt_rules + ARRAY_SIZE(opt_rules) && r->takes == first->takes && r->only_for;
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
static const int model_opts[] = { 'c', OPT_SET, OPT_PROFILE, OPT_SEED, OPT_UUID, OPT_USED,
				  OPT_FILES, OPT_SIZE, OPT_FS };

static int is_model_opt(int opt)
{
	for (size_t i = 0; i < ARRAY_SIZE(model_opts); i++)
		if (model_opts[i] == opt)
			return 1;
	return 0;
}

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
				struct stat st;

				fprintf(stderr, "imprint: %s\n", l->cmd->needs);
				/* 'measure --against TARGET': the target went in as the CONFIG */
				if (l->c.against && stat(l->c.against, &st) == 0 && !S_ISREG(st.st_mode))
					fprintf(stderr, "imprint: '--against' takes a CONFIG file and "
							"took '%s'; give TARGET after it\n",
						l->c.against);
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
 * Read the --include trees and take what they need off the budget: bytes
 * in 4 KiB blocks (the most any block size needs), inodes, and their names
 * in the root.  Returns 0, EXIT_USAGE (a DEST or SRC refused) or 1.
 */
static int load_includes(struct cli *c, struct params *p)
{
	char err[PATH_MAX + 256];
	int ret;

	ret = include_scan(&c->includes, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err);
		return ret == -ENOMEM || ret == -EIO ? 1 : EXIT_USAGE;
	}
	p->reserved_bytes = include_blocks(&c->includes, 4096) * 4096;
	p->reserved_inodes = include_inodes(&c->includes);
	p->reserved_names = (const char *const *)c->includes.top;
	p->nreserved = c->includes.ntop;
	p->reserved_key = include_key(&c->includes);
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
	p->generation = c->generation;
	if (c->includes.nspecs) {
		if (c->generation) {
			fprintf(stderr, "imprint: '--include' is not built for '--generation' above 0 yet "
					"(generation %u asked for)\n", c->generation);
			return EXIT_USAGE;
		}
		ret = load_includes(c, p);
		if (ret)
			return ret;
	}
	if (resolve && (params_resolve(p, &err) ||
			backend_check_params(p, err.msg, sizeof(err.msg))))
		goto out_err;
	if (resolve)
		include_set_time(&c->includes, p->time_ref);
	return 0;
out_err:
	fprintf(stderr, "imprint: %s\n", err.msg);
	return EXIT_USAGE;
}

/*
 * Whether the command line ends in a directory: the target of create,
 * evolve, verify, measure, profile and content-report, which none of them
 * mounts anything to read or write.  A stat, not an open (see main()).
 */
static int ends_in_directory(int argc, char **argv)
{
	struct stat st;

	return argc > 2 && argv[argc - 1][0] != '-' && stat(argv[argc - 1], &st) == 0 &&
	       S_ISDIR(st.st_mode);
}

/*
 * Descriptors 0-2 open, on /dev/null where the caller closed them: else the
 * first file imprint opens takes the number, and what is printed to stdout
 * goes into it (the cleanup watcher's pipe, or an image).  Checked in order,
 * so /dev/null lands on the one closed.
 */
static int std_fds_open(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF &&
		    open("/dev/null", fd ? O_WRONLY : O_RDONLY) != fd)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct line l = { 0 };
	struct params p, *pp = NULL;
	int ret;

	if (std_fds_open() != 0)
		return 1; /* nowhere to say so: stderr was closed and /dev/null cannot be opened */
	/* the names 'fs' takes are the backends': the model knows none */
	ret = backend_supply_fs();
	if (ret) {
		fprintf(stderr, "imprint: cannot list the file systems of the backends: %s\n",
			strerror(-ret));
		return 1;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(argv[1], "help") == 0 && argc > 2) {
		l.cmd = command_find(argv[2]);
		if (!l.cmd || argc > 3) {
			if (!l.cmd)
				unknown_command(argv[2]);
			else
				fprintf(stderr, "imprint: help takes one command (got '%s' too)\n",
					argv[3]);
			return EXIT_USAGE;
		}
		command_help(l.cmd, stdout);
		return 0;
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
	/*
	 * before any file is opened (a descriptor from the host's mounts cannot
	 * be linked into the namespace's copy of them): what imprint mounts goes
	 * with it, however it ends; refused, it mounts where it is, as before.
	 * Not for a directory: nothing is mounted, and the copy of the host's
	 * mounts would keep a file system the host unmounts meanwhile active
	 * until imprint ends (where the host's mounts are private).
	 */
	if (l.cmd->may_mount && geteuid() == 0 && !ends_in_directory(argc, argv))
		loopdev_private_ns();
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
