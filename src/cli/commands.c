/* commands.c - what each imprint command does once main.c has checked its command line */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "cli/commands.h"
#include "cli/page.h"
#include "content/setup.h"
#include "plan/manifest.h"
#include "plan/plan.h"
#include "report/gen_report.h"
#include "report/content_predict.h"
#include "analysis/content_stats.h"
#include "report/html.h"
#include "cli/runs.h"
#include "report/report.h"
#include "analysis/verify.h"
#include "read/fsread_mount.h"
#include "util/outfile.h"

/*
 * Write the manifest to path via a temporary file renamed when complete,
 * so that a failure never leaves a half-written manifest in its place.
 */
static int write_manifest_file(const struct plan *pl, const struct include_set *inc,
			       const char *path)
{
	struct outfile o;
	char err[512];
	int ret;

	ret = outfile_open(&o, path, "-o", OUTFILE_STDOUT, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err);
		return ret;
	}
	ret = manifest_write(pl, o.f);
	if (!ret)
		ret = include_manifest_write(inc, o.f);
	if (ret) {
		outfile_abort(&o);
		fprintf(stderr, "imprint: cannot write manifest '%s': %s\n", path, strerror(-ret));
		return ret;
	}
	ret = outfile_commit(&o, err, sizeof(err));
	if (ret)
		fprintf(stderr, "imprint: %s\n", err);
	return ret;
}

/*
 * The content figures plan pl will reach (content_predict()), with the
 * typed content create would write.  Errors are printed; returns 0 or a
 * negative errno.
 */
static int plan_predict(const struct plan *pl, struct content_prediction *pr)
{
	struct content_model cm;
	struct content_source cs;
	int ret = content_model_init(&cm, pl);

	if (ret) {
		fprintf(stderr, "imprint: cannot build the content model: %s\n", strerror(-ret));
		return ret;
	}
	ret = content_model_source_init(&cs, &cm, pl, 0);
	if (ret) {
		fprintf(stderr, "imprint: cannot build the content source: %s\n", strerror(-ret));
		goto out_model;
	}
	ret = content_predict(pl, &cm, &cs, pr);
	if (ret)
		fprintf(stderr, "imprint: cannot predict the content figures: %s\n",
			strerror(-ret));
	content_source_release(&cs);
out_model:
	content_model_release(&cm);
	return ret;
}

/* The fit report of pl and its content prediction, to out. */
static int plan_report(struct cli *c, const struct plan *pl, FILE *out)
{
	struct report r;
	struct content_prediction pr;
	struct content_targets t;
	int ret = report_compute(pl, &r);

	if (ret) {
		fprintf(stderr, "imprint: cannot compute the report: %s\n", strerror(-ret));
		return ret;
	}
	content_targets_from_params(&t, &pl->prm);
	if (pl->gen) {
		/* the predictions read whole-file copies and sizes from the plan: generation 0's */
		if (c->json) {
			r.generation = gen_report_json(pl->gen);
			report_print_json(&r, out);
			json_object_put(r.generation);
		} else {
			report_print_text(&r, out);
			fprintf(out, "\ncontent predictions: those of generation 0 ('plan --report' "
				     "without --generation)\n\n");
			ret = gen_report_text(pl->gen, out);
		}
		report_release(&r);
		return ret;
	}
	ret = plan_predict(pl, &pr);
	if (!ret && c->json) {
		/* only what will be missed: the report of a plan that meets its targets is unchanged */
		r.content_missed = content_predict_json_missed(&pr, &t);
		report_print_json(&r, out);
		json_object_put(r.content_missed);
	} else if (!ret) {
		report_print_text(&r, out);
		content_predict_print_text(&pr, &t, out);
	}
	report_release(&r);
	return ret;
}

/*
 * --partition N of measure, content-report and verify into *n (0: not
 * given).  verify takes create's options too: its gpt, mbr or none is
 * create's and means nothing here.  Returns 0 or EXIT_USAGE after a message.
 */
int partition_number(const struct cli *c, const char *cmd, int *n)
{
	enum disk_label label;
	char *end;
	long v;

	*n = 0;
	if (!c->partition || (!strcmp(cmd, "verify") && !disk_label_parse(c->partition, &label)))
		return 0;
	errno = 0;
	v = strtol(c->partition, &end, 10);
	if (errno || end == c->partition || *end || v < 1 || v > 256) {
		fprintf(stderr, "imprint: %s: '--partition' must be a partition number from 1 to 256 (got '%s')\n",
			cmd, c->partition);
		return EXIT_USAGE;
	}
	*n = (int)v;
	return 0;
}

int html_precheck(const struct cli *c)
{
	char err[600];

	if (!c->html || !html_check_path(c->html, err, sizeof(err)))
		return 0;
	fprintf(stderr, "imprint: %s\n", err);
	return 1;
}

int output_precheck(const char *opt, const char *path)
{
	struct stat st;
	char *dir, *slash;
	int ret = 0;

	if (!path || strcmp(path, "-") == 0)
		return 0;
	if (!path[0]) {
		fprintf(stderr, "imprint: '%s' needs a file name (got '')\n", opt);
		return 1;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fprintf(stderr, "imprint: '%s' is a directory: '%s' needs a file name\n", path, opt);
		return 1;
	}
	dir = strdup(path);
	if (!dir) {
		fprintf(stderr, "imprint: out of memory\n");
		return 1;
	}
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	if (stat(slash ? dir : ".", &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "imprint: cannot write '%s' for '%s': directory '%s' %s\n", path,
			opt, slash ? dir : ".", errno == ENOENT ? "does not exist" : "is not a directory");
		ret = 1;
	} else if (access(slash ? dir : ".", W_OK | X_OK) != 0) {
		fprintf(stderr, "imprint: cannot write '%s' for '%s': %s (directory '%s')\n", path,
			opt, strerror(errno), slash ? dir : ".");
		ret = 1;
	}
	free(dir);
	return ret;
}

/* The page's run: the command and its line. */
struct page_run page_run_of(const struct cli *c, const char *kind)
{
	struct page_run run = { .kind = kind, .argc = c->argc, .argv = c->argv };

	return run;
}

/* The --html page of a plan; 0 or 1 after a message. */
static int plan_page(const struct cli *c, const struct plan *pl)
{
	struct page_run run = page_run_of(c, "plan");
	json_object *page = page_new(&run, &pl->prm);
	char err[600];
	int ret;

	if (!page)
		return 1;
	ret = page_add_plan(page, pl);
	if (!ret) {
		ret = html_write(c->html, page, err, sizeof(err));
		if (ret)
			fprintf(stderr, "imprint: %s\n", err);
	}
	json_object_put(page);
	return ret ? 1 : 0;
}

/* Build the plan; write its manifest and, with --report, the fit report. */
int cmd_plan(struct cli *c, struct params *p)
{
	struct plan pl;
	struct plan_error err = { { 0 } };
	const char *output = c->output;
	int ret;

	if (!output && !c->report)
		output = "-";
	if (html_precheck(c) || output_precheck("-o", c->output))
		return 1;
	ret = plan_build(&pl, p, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret == -EINVAL ? EXIT_USAGE : 1;
	}
	if (output && strcmp(output, "-") == 0) {
		ret = manifest_write(&pl, stdout);
		if (!ret)
			ret = include_manifest_write(&c->includes, stdout);
		if (ret) {
			fprintf(stderr, "imprint: cannot write manifest to stdout: %s\n",
				strerror(-ret));
			goto out_release;
		}
	} else if (output) {
		ret = write_manifest_file(&pl, &c->includes, output);
		if (ret)
			goto out_release;
	}
	if (c->report)
		ret = plan_report(c, &pl, output && strcmp(output, "-") == 0 ? stderr : stdout);
	if (!ret && c->html)
		ret = plan_page(c, &pl);
out_release:
	plan_release(&pl);
	return ret ? 1 : 0;
}

/*
 * verify_tree() on DIR; an image or device is first mounted read-only
 * (as root), its partition found through its table.  Returns as
 * verify_tree(); *said is set when a failure's message is printed.
 */
static int verify_at(const struct cli *c, const struct plan *pl, const struct content_source *cs,
		     const struct plan_shard *sh, struct verify_result *res, int *said)
{
	struct fsread_error err = { { 0 } };
	struct fsread_place where;
	struct fsread_mount m;
	struct stat st;
	char msg[768];
	int part, ret, ret2;

	*said = 1;
	if (partition_number(c, "verify", &part))
		return -EINVAL;
	if (stat(c->operand, &st) != 0 || S_ISDIR(st.st_mode)) {
		if (!part) {
			*said = 0;
			return verify_tree_shard(pl, cs, c->operand, c->create.extents, stderr, 20,
						 sh, res);
		}
		fprintf(stderr, "imprint: '%s' is a directory; --partition %d is for partitioned disks\n",
			c->operand, part);
		return -EINVAL;
	}
	/* opening a FIFO would wait for a writer forever */
	if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
		fprintf(stderr, "imprint: '%s' is neither an image file, a block device nor a directory\n",
			c->operand);
		return -EINVAL;
	}
	ret = fsread_find(c->operand, part, &where, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret;
	}
	ret = fsread_mount(c->operand, &where, "verify checks a mounted tree", &m, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "imprint: %s\n", msg);
	} else {
		*said = 0;
		ret = verify_tree_shard(pl, cs, m.dir, c->create.extents, stderr, 20, sh, res);
	}
	ret2 = fsread_unmount(&m, msg, sizeof(msg));
	if (ret2) {
		fprintf(stderr, "imprint: %s\n", msg);
		*said = 1;
		return ret < 0 ? ret : ret2;
	}
	return ret;
}

/* Check a mounted image against the plan of the same options. */
int cmd_verify(struct cli *c, struct params *p)
{
	struct plan pl;
	struct plan_error err = { { 0 } };
	struct content_model cm;
	struct content_source cs;
	struct verify_result res;
	struct plan_shard sh;
	int ret, said;

	if (c->create.shard.finish) {
		fprintf(stderr, "imprint: verify: '--shard finish' is a step of create; give --shard K/N to check one share, or no --shard to check the whole\n");
		return EXIT_USAGE;
	}

	ret = plan_build(&pl, p, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret == -EINVAL ? EXIT_USAGE : 1;
	}
	if (c->includes.n)
		pl.inc = &c->includes;
	/* the same typed content as imprint create */
	ret = content_model_init(&cm, &pl);
	if (ret) {
		fprintf(stderr, "imprint: cannot build the content model: %s\n", strerror(-ret));
		plan_release(&pl);
		return 1;
	}
	ret = content_model_source_init(&cs, &cm, &pl, 0);
	if (ret) {
		fprintf(stderr, "imprint: cannot build the content source: %s\n", strerror(-ret));
		content_model_release(&cm);
		plan_release(&pl);
		return 1;
	}
	ret = plan_shard_init(&sh, &pl, c->create.shard.k, c->create.shard.n);
	if (!ret)
		ret = verify_at(c, &pl, &cs, &sh, &res, &said);
	else
		said = 0;
	plan_shard_release(&sh);
	content_source_release(&cs);
	content_model_release(&cm);
	if (ret < 0) {
		if (!said)
			fprintf(stderr, "imprint: cannot verify '%s': %s\n", c->operand,
				strerror(-ret));
		plan_release(&pl);
		return 1;
	}
	/* a count of 0 says what was not checked, so no line reads as a check that passed */
	if (!res.dirs && !res.files && !res.links)
		printf("nothing to check: the plan has no entries");
	else
		printf("%llu dirs, %llu files, %llu links, %llu bytes", (unsigned long long)res.dirs,
		       (unsigned long long)res.files, (unsigned long long)res.links,
		       (unsigned long long)res.bytes);
	if (res.extent_files)
		printf(", %llu files' extents checked", (unsigned long long)res.extent_files);
	else
		printf(", extents not checked (%s)",
		       c->create.extents ? "no file has planned runs" : "no --extents");
	if (res.sparse_files)
		printf(", %llu sparse files' holes checked", (unsigned long long)res.sparse_files);
	else
		printf(", no sparse files");
	if (res.included)
		printf(", %llu included entries (--include)", (unsigned long long)res.included);
	printf(": %llu mismatches\n", (unsigned long long)res.mismatches);
	if (res.specials || res.xattr_entries || res.acls || res.prealloc_files)
		printf("metadata checked: %llu special files, %llu extended attributes, %llu ACLs, "
		       "%llu preallocated files\n",
		       (unsigned long long)res.specials, (unsigned long long)res.xattr_entries,
		       (unsigned long long)res.acls, (unsigned long long)res.prealloc_files);
	plan_release(&pl);
	return ret ? 1 : 0;
}

/* Measure the content of an image or a directory against the configuration's targets. */
int cmd_content_report(struct cli *c, struct params *p)
{
	struct content_stats_opts o = { .sample_share = c->sample > 0 ? c->sample : 1 };
	struct content_targets t;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	struct content_prediction pr;
	struct plan pl;
	struct plan_error err = { { 0 } };
	int ret;

	if (partition_number(c, "content-report", &o.partition))
		return EXIT_USAGE;
	/* compressor threads beside the reading one */
	o.jobs = n < 2 ? 0 : n > 64 ? 64 : (unsigned)n;
	content_targets_from_params(&t, p);
	/* with a configuration (or a generation of it), what its plan predicts beside what was measured */
	if (c->config || c->nsets || p->generation) {
		ret = plan_build(&pl, p, &err);
		if (ret) {
			fprintf(stderr, "imprint: %s\n", err.msg);
			return ret == -EINVAL ? EXIT_USAGE : 1;
		}
		ret = plan_predict(&pl, &pr);
		plan_release(&pl);
		if (ret)
			return 1;
		t.pred = &pr;
		t.generation = p->generation;
	}
	if (c->html) {
		struct page_run run = page_run_of(c, "content-report");
		json_object *page;

		if (html_precheck(c))
			return 1;
		page = page_new(&run, c->config || c->nsets || p->generation ? p : NULL);
		if (!page)
			return 1;
		ret = content_report_run_html(c->operand, &o, &t, c->json, stdout, c->html, page);
		json_object_put(page);
		if (ret)
			return 1;
	} else if (content_report_run(c->operand, &o, &t, c->json, stdout)) {
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}

/* Measure an image, device or mounted tree; with a configuration, against it. */
int cmd_measure(struct cli *c, struct params *p)
{
	struct measure_opts o = {
		.json = c->json,
		.against = c->against || c->config || c->nsets ? p : NULL,
		.against_name = c->config ? c->config : "the defaults and --set",
		.extents_path = c->create.extents,
		.html_path = c->html,
	};
	struct page_run run = page_run_of(c, "measure");
	struct json_object *census = NULL;
	int ret;

	if (partition_number(c, "measure", &o.partition))
		return EXIT_USAGE;
	if (p->generation && (!o.against || o.partition || c->html)) {
		fprintf(stderr, "imprint: measure: '--generation' needs '--against' (or '-c', "
				"'--set') and a whole image, device or directory, in text or JSON (not "
				"with '--partition' or '--html' yet)\n");
		return EXIT_USAGE;
	}
	if (output_precheck("--extents", c->create.extents))
		return 1;
	if (p->generation && c->json) {
		/* the census first: its object goes into measure's */
		o.json_extra = json_object_new_object();
		if (!o.json_extra)
			return 1;
		ret = evolve_census(c->operand, p, NULL, &census);
		if (ret) {
			json_object_put(o.json_extra);
			return ret;
		}
		json_object_object_add(o.json_extra, "generation_census", census);
	}
	if (c->html) {
		if (html_precheck(c))
			return 1;
		o.html_page = page_new(&run, o.against);
		if (!o.html_page)
			return 1;
	}
	ret = measure_run(c->operand, &o, stdout);
	json_object_put(o.html_page);
	json_object_put(o.json_extra);
	if (ret)
		return 1;
	if (p->generation && !c->json) {
		fflush(stdout);
		ret = evolve_census(c->operand, p, stdout, NULL);
		if (ret)
			return ret;
	}
	return fflush(stdout) ? 1 : 0;
}

/* Build the image on TARGET (create.c does the work). */
int cmd_create(struct cli *c, struct params *p)
{
	int ret;

	if (!c->jobs_given) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		c->create.jobs = n < 1 ? 1 : n > 1024 ? 1024 : (unsigned)n;
	}
	c->create.target = c->operand;
	c->create.includes = &c->includes;
	c->create.json = c->json;
	if (c->partition && disk_label_parse(c->partition, &c->create.partition)) {
		fprintf(stderr, "imprint: create: '--partition' must be gpt, mbr or none (got '%s')\n",
			c->partition);
		return EXIT_USAGE;
	}
	if (!c->create.format_given)
		c->create.format = convert_format_of(c->operand);
	c->create.html = c->html;
	c->create.argc = c->argc;
	c->create.argv = c->argv;
	if (html_precheck(c) || output_precheck("--extents", c->create.extents))
		return 1;
	ret = create_run(&c->create, p);
	if (ret == -EINVAL)
		return EXIT_USAGE;
	return ret ? 1 : 0;
}

/* Print the complete resolved configuration, seed included. */
int cmd_config(struct cli *c, struct params *p)
{
	const char *n = c->impressions_notes;
	size_t lines = 0;

	for (const char *s = n; s && *s; s++)
		lines += *s == '\n';
	if (lines && c->json) {
		fprintf(stderr, "imprint: %s: not used here:\n%s", c->from_impressions, n);
	} else if (lines) {
		fprintf(stderr, "imprint: %zu line%s of notes on what %s holds that imprint does "
			"not use: the '#' lines at the top of the configuration\n", lines,
			lines == 1 ? "" : "s", c->from_impressions);
		printf("# converted from the Impressions input file %s; not used here:\n",
		       c->from_impressions);
		for (const char *s = n; *s;) {
			size_t len = strcspn(s, "\n");

			printf("#   %.*s\n", (int)len, s);
			s += len + (s[len] == '\n');
		}
		printf("\n");
	}
	if (c->json)
		params_print_config_json(p, stdout);
	else
		params_print_config(p, stdout);
	return fflush(stdout) ? 1 : 0;
}

/* List every parameter; p is NULL: nothing is loaded. */
int cmd_params(struct cli *c, struct params *p)
{
	(void)p;
	if (c->profiles) {
		params_print_profiles(stdout);
	} else if (c->json) {
		params_print_list_json(stdout);
	} else {
		params_print_list(stdout);
		tables_print_list(stdout);
	}
	return 0;
}
