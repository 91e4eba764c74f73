/* page.c - what the commands put on their --html page: header, plan figures, the create page */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli/page.h"
#include "core/progress.h"
#include "report/html.h"
#include "cli/runs.h"
#include "report/report.h"
#include "util/array.h"

/* Append s to f as one shell word: as it is when it needs no quoting, else in '...'. */
static void put_word(FILE *f, const char *s)
{
	static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789_./=:,+-@%";

	if (s[0] && strspn(s, safe) == strlen(s)) {
		fputs(s, f);
		return;
	}
	putc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			putc(*s, f);
	}
	putc('\'', f);
}

/* The text written to a memory stream by fn, or NULL. */
static char *mem_text(void (*fn)(FILE *f, const void *ctx), const void *ctx)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fn(f, ctx);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void put_command(FILE *f, const void *ctx)
{
	const struct page_run *run = ctx;

	fputs("imprint", f);
	for (int i = 1; i < run->argc; i++) {
		putc(' ', f);
		put_word(f, run->argv[i]);
	}
}

static void put_config(FILE *f, const void *ctx)
{
	params_print_config(ctx, f);
}

/* The configuration fed back through -c /dev/stdin rebuilds the same image. */
static void put_regenerate(FILE *f, const struct page_run *run, const char *config)
{
	fputs("imprint create -c /dev/stdin", f);
	if (run->backend) {
		fputs(" --backend ", f);
		put_word(f, run->backend);
	}
	if (run->mkfs_options) {
		fputs(" --mkfs-options ", f);
		put_word(f, run->mkfs_options);
	}
	putc(' ', f);
	put_word(f, run->target ? run->target : "IMAGE");
	fprintf(f, " <<'EOF'\n%sEOF\n", config);
}

struct regen {
	const struct page_run *run;
	const char *config;
};

static void put_regen(FILE *f, const void *ctx)
{
	const struct regen *g = ctx;

	put_regenerate(f, g->run, g->config);
}

json_object *page_new(const struct page_run *run, const struct params *p)
{
	json_object *o = json_object_new_object();
	char *cmd = mem_text(put_command, run), *config = NULL, *regen = NULL;

	if (p) {
		config = mem_text(put_config, p);
		if (config) {
			struct regen g = { run, config };

			regen = mem_text(put_regen, &g);
		}
	}
	if (!o || !cmd || (p && (!config || !regen))) {
		fprintf(stderr, "imprint: out of memory\n");
		json_object_put(o);
		o = NULL;
		goto out_free;
	}
	json_object_object_add(o, "kind", json_object_new_string(run->kind));
	json_object_object_add(o, "version", json_object_new_string(PACKAGE_VERSION));
	json_object_object_add(o, "command", json_object_new_string(cmd));
	if (p) {
		json_object_object_add(o, "config", json_object_new_string(config));
		json_object_object_add(o, "regenerate", json_object_new_string(regen));
	}
	json_object_object_add(o, "notes", json_object_new_array());
out_free:
	free(cmd);
	free(config);
	free(regen);
	return o;
}

/* Names by length (255: longer): regular files' (hard links' too) and directories' (not the root's). */
static json_object *plan_names(const struct plan *pl)
{
	uint64_t count[2][256] = { { 0 } };
	json_object *o = json_object_new_object();
	char name[NAME_MAX_LEN + 1];

	for (uint64_t f = 0; f < pl->nfiles; f++) {
		size_t n = plan_file_name(pl, f, name);

		count[0][n < 255 ? n : 255]++;
	}
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		if (pl->link_kind[l] & LINK_HARD) {
			size_t n = plan_link_name(pl, l, name);

			count[0][n < 255 ? n : 255]++;
		}
	}
	for (uint32_t d = 1; d < pl->ndirs; d++) {
		size_t n = plan_dir_name(pl, d, name);

		count[1][n < 255 ? n : 255]++;
	}
	if (o) {
		json_object_object_add(o, "files", html_counts(count[0], 256));
		json_object_object_add(o, "dirs", html_counts(count[1], 256));
	}
	return o;
}

/* Sizes and ages sorted, for the CDF, the size classes and the age bins. */
static json_object *plan_extra(const struct plan *pl)
{
	uint64_t *sizes = malloc((pl->nfiles ? pl->nfiles : 1) * sizeof(*sizes));
	int64_t *ages = malloc((pl->nfiles ? pl->nfiles : 1) * sizeof(*ages));
	uint64_t dirs[256] = { 0 };
	struct html_age_model am = { pl->prm.age_median_days, pl->prm.age_sigma,
				     pl->prm.age_max_days, pl->prm.tab.age_q, pl->prm.tab.nage_q };
	json_object *x = json_object_new_object();

	if (!sizes || !ages || !x) {
		free(sizes);
		free(ages);
		json_object_put(x);
		return NULL;
	}
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		struct plan_meta m;

		plan_file_meta(pl, f, &m);
		sizes[f] = pl->file_size[f];
		ages[f] = pl->prm.time_ref - m.mtime;
	}
	qsort(sizes, pl->nfiles, sizeof(*sizes), array_cmp_u64);
	qsort(ages, pl->nfiles, sizeof(*ages), array_cmp_i64);
	for (uint32_t d = 0; d < pl->ndirs; d++)
		dirs[pl->dir_depth[d]]++;
	json_object_object_add(x, "size_cdf", html_size_cdf(sizes, pl->nfiles, &pl->size));
	json_object_object_add(x, "size_classes", html_size_classes(sizes, pl->nfiles));
	json_object_object_add(x, "name_lengths", plan_names(pl));
	json_object_object_add(x, "dirs_by_depth", html_counts(dirs, 256));
	json_object_object_add(x, "age_histogram", html_age_histogram(ages, pl->nfiles, &am));
	free(sizes);
	free(ages);
	return x;
}

int page_add_plan(json_object *page, const struct plan *pl)
{
	struct report r;
	json_object *x;
	int ret;

	ret = report_compute(pl, &r);
	if (ret) {
		fprintf(stderr, "imprint: cannot compute the report: %s\n", strerror(-ret));
		return ret;
	}
	json_object_object_add(page, "plan", report_json(&r));
	report_release(&r);
	x = plan_extra(pl);
	if (!x) {
		fprintf(stderr, "imprint: out of memory\n");
		return -ENOMEM;
	}
	json_object_object_add(page, "extra", x);
	return 0;
}

static void page_note(json_object *page, const char *text)
{
	json_object *notes;

	if (json_object_object_get_ex(page, "notes", &notes))
		json_object_array_add(notes, json_object_new_string(text));
}

int page_create(const char *path, const struct page_run *run, const struct plan *pl,
		const struct create_result *res, const struct build_summary *sum,
		const char *measured_target)
{
	json_object *page = page_new(run, &pl->prm), *s;
	struct measure_opts o = { 0 };
	char err[600];
	int ret;

	if (!page)
		return -ENOMEM;
	s = progress_summary_json(res, sum);
	if (!s) {
		fprintf(stderr, "imprint: out of memory\n");
		ret = -ENOMEM;
		goto out_put;
	}
	json_object_object_add(page, "create", s);
	ret = page_add_plan(page, pl);
	if (ret)
		goto out_put;
	json_object_object_add(page, "plan_age_rounds", json_object_new_uint64(pl->prm.age_rounds));
	if (measured_target) {
		/* measure's figures replace the plan's extra with what the image holds */
		o.against = &pl->prm;
		o.against_name = "the configuration it was built with";
		o.html_path = path;
		o.html_page = page;
		ret = measure_run(measured_target, &o, NULL);
		goto out_put;
	}
	page_note(page, "The image was not measured (imprint reads back raw images and directories, of a backend that measures): "
		  "the figures are the plan's, which the image holds exactly.");
	ret = html_write(path, page, err, sizeof(err));
	if (ret)
		fprintf(stderr, "imprint: %s\n", err);
out_put:
	json_object_put(page);
	return ret;
}
