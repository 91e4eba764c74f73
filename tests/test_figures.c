/* test_figures.c - text-only figures: in the text and its conditions, never in the JSON */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "report/figures.h"
#include "util/util.h"

/* A report with one figure of each text-only kind beside the JSON's own. */
static void build(struct figs *fs)
{
	figs_init(fs);
	figs_u64(fs, "files", 3);
	figs_text_u64(fs, "have_x", 1);
	figs_text_double(fs, "pct", 12.5);
	figs_text_string(fs, "label", "three");
	figs_open(fs, FIG_ARRAY, "rows");
	figs_open(fs, FIG_OBJECT, NULL);
	figs_u64(fs, "n", 7);
	figs_text_string(fs, "name", "seven");
	figs_end(fs);
	figs_end(fs);
	figs_text_open(fs, FIG_OBJECT, "hidden");
	figs_u64(fs, "inside", 9);
	figs_end(fs);
	figs_u64(fs, "bytes", 4096);
}

static void test_json_leaves_text_only_out(void **state)
{
	struct figs fs;
	struct json_object *o;

	(void)state;
	build(&fs);
	assert_int_equal(fs.err, 0);
	o = figs_json(&fs, NULL);
	assert_non_null(o);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
			    "{\"files\":3,\"rows\":[{\"n\":7}],\"bytes\":4096}");
	json_object_put(o);
	/* the figures after a text-only one are not text-only */
	assert_false(figs_get(&fs, SIZE_MAX, "bytes")->text_only);
	assert_false(figs_get(&fs, SIZE_MAX, "rows.0.n")->text_only);
	figs_release(&fs);
}

static void test_text_shows_text_only(void **state)
{
	static const struct fig_line lines[] = {
		{ .when = "have_x", .fmt = "{files} files, {pct:.1} %, {label}; {hidden.inside}\n" },
		{ .rows = "rows", .fmt = "  {n} {name}\n" },
	};
	struct figs fs;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(out);
	build(&fs);
	assert_int_equal(figs_print(&fs, NULL, lines, ARRAY_SIZE(lines), 0, out), 0);
	fclose(out);
	assert_string_equal(buf, "3 files, 12.5 %, three; 9\n  7 seven\n");
	free(buf);
	figs_release(&fs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_leaves_text_only_out),
		cmocka_unit_test(test_text_shows_text_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
