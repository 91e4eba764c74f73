/* content_cmd.c - `imprint content-report`: one walk measuring the content, then the report */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "analysis/content_stats.h"
#include "cli/runs.h"
#include "read/fsread.h"
#include "report/content_predict.h"
#include "report/html.h"

int content_report_run(const char *target, const struct content_stats_opts *o,
		       const struct content_targets *t, int json, FILE *out)
{
	return content_report_run_html(target, o, t, json, out, NULL, NULL);
}

int content_report_run_html(const char *target, const struct content_stats_opts *o,
			    const struct content_targets *t, int json, FILE *out,
			    const char *html_path, struct json_object *page)
{
	struct content_stats st;
	struct fsread_error err = { { 0 } };
	struct content_walk w = { .st = &st, .err = &err };
	struct fsread *fs;
	char note[256];
	int ret;

	ret = fsread_open_part(target, o->partition, FSREAD_EXTENTS, &fs, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret;
	}
	ret = content_stats_init(&st, o);
	if (ret) {
		fprintf(stderr, "imprint: cannot start the measurement: %s\n", strerror(-ret));
		goto out_close;
	}
	ret = fsread_walk(fs, content_walk_entry, &w, &err);
	if (ret) {
		fprintf(stderr, "imprint: cannot measure '%s': %s\n", target, err.msg);
		goto out_release;
	}
	if (fsread_skipped_note(fs, note, sizeof(note)))
		fprintf(stderr, "imprint: '%s': %s: the figures leave them out\n", target, note);
	st.holes_unknown = !fsread_has_extents(fs);
	ret = content_stats_finish(&st);
	if (ret) {
		fprintf(stderr, "imprint: cannot compress the sample of '%s': %s\n", target,
			strerror(-ret));
		goto out_release;
	}
	if (json)
		content_report_print_json(&st, t, target, out);
	else
		content_report_print_text(&st, t, target, out);
	if (html_path) {
		char msg[600];

		json_object_object_add(page, "content", content_report_json(&st, t, target));
		ret = html_write(html_path, page, msg, sizeof(msg));
		if (ret)
			fprintf(stderr, "imprint: %s\n", msg);
	}
out_release:
	content_stats_release(&st);
	content_walk_release(&w);
out_close:
	fsread_close(fs);
	return ret;
}
