/* measure_html.c - the --html page of a measurement: measure's figures and what only the page draws */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "report/html.h"
#include "report/measure_print.h"

/* Directories by depth (the root at 0), lost+found left out as the walk leaves it. */
static json_object *dirs_by_depth(const struct mstate *m)
{
	uint64_t count[REPORT_DEPTHS + 1] = { 0 };

	for (uint32_t d = 0; d < m->ndirs; d++)
		count[m->ddepth[d] < REPORT_DEPTHS ? m->ddepth[d] : REPORT_DEPTHS]++;
	return html_counts(count, REPORT_DEPTHS + 1);
}

/* The "extra" figures: size CDF and classes, names, directories, ages, the disk map. */
static json_object *extra(const struct mresult *r, const struct mstate *m)
{
	json_object *x = json_object_new_object(), *names = json_object_new_object();
	struct html_age_model am;

	if (!x || !names) {
		json_object_put(x);
		json_object_put(names);
		return NULL;
	}
	json_object_object_add(x, "size_cdf", html_size_cdf(r->sorted_size, m->nfiles,
							      r->against ? &r->sm : NULL));
	json_object_object_add(x, "size_classes", html_size_classes(r->sorted_size, m->nfiles));
	json_object_object_add(names, "files", html_counts(m->name_len[0], 256));
	json_object_object_add(names, "dirs", html_counts(m->name_len[1], 256));
	json_object_object_add(x, "name_lengths", names);
	json_object_object_add(x, "dirs_by_depth", dirs_by_depth(m));
	if (r->against) {
		am.median_days = r->p->age_median_days;
		am.sigma = r->p->age_sigma;
		am.max_days = r->p->age_max_days;
		am.q = r->p->tab.age_q;
		am.nq = r->p->tab.nage_q;
	}
	json_object_object_add(x, "age_histogram",
			       html_age_histogram(r->ages, m->nfiles, r->against ? &am : NULL));
	if (m->map.cnt)
		json_object_object_add(x, "disk_map", html_map_json(&m->map));
	return x;
}

int measure_html(const struct mresult *r, const struct mstate *m, const struct measure_opts *o)
{
	json_object *page = o->html_page, *x;
	char err[600];
	int ret;

	x = extra(r, m);
	if (!x) {
		fprintf(stderr, "imprint: '%s': out of memory\n", r->target);
		return -ENOMEM;
	}
	json_object_object_add(page, "measure", measure_json(r, m, o));
	json_object_object_add(page, "extra", x);
	ret = html_write(o->html_path, page, err, sizeof(err));
	if (ret)
		fprintf(stderr, "imprint: %s\n", err);
	return ret;
}
