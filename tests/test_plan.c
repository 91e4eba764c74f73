/* test_plan.c - plan invariants, fit, stream independence and error paths */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "plan/plan.h"
#include "report/report.h"
#include "testutil.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files whose typed extension asks for more bytes than they have. */
static uint64_t below_floor(const struct plan *pl)
{
	uint64_t low = 0;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		low += pl->file_size[f] < ext_min_size(plan_file_ext(pl, f));
	return low;
}

/* Every structural promise of struct plan, checked from the arrays. */
static void check_invariants(const struct plan *pl)
{
	uint64_t files = 0, bytes = 0;
	char buf[NAME_MAX_LEN + 1];

	assert_true(pl->ndirs >= 1);
	assert_int_equal(pl->dir_depth[0], 0);
	for (uint32_t j = 1; j < pl->ndirs; j++) {
		assert_true(pl->dir_parent[j] < j || j >= pl->nregular_dirs);
		assert_int_equal(pl->dir_depth[j], pl->dir_depth[pl->dir_parent[j]] + 1);
	}
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		assert_int_equal(pl->dir_first_file[j], files);
		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++)
			assert_int_equal(pl->file_dir[files + c], j);
		files += pl->dir_nfiles[j];
	}
	assert_int_equal(files, pl->nfiles);
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		bytes += pl->file_size[f];
		assert_true(pl->file_size[f] <= (uint64_t)pl->size.cap);
		assert_true(pl->file_ext[f] < pl->ext.count);
	}
	assert_int_equal(bytes, pl->bytes);
	assert_int_equal(bytes, pl->prm.used);
	assert_int_equal(pl->nfiles, pl->prm.files);
	/* copies: same size and extension as a source that is not itself a copy */
	if (pl->file_dup_of) {
		uint64_t copies = 0;

		for (uint64_t f = 0; f < pl->nfiles; f++) {
			uint32_t src = pl->file_dup_of[f];

			if (src == PLAN_NONE)
				continue;
			copies++;
			assert_true(src < pl->nfiles && src != f);
			assert_int_equal(pl->file_size[f], pl->file_size[src]);
			assert_int_equal(pl->file_ext[f], pl->file_ext[src]);
			assert_int_equal(pl->file_dup_of[src], PLAN_NONE);
		}
		assert_int_equal(copies, pl->ndups);
	}
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		uint8_t k = pl->link_kind[l];

		assert_true(pl->link_dir[l] < pl->ndirs);
		if (k & (LINK_HARD | LINK_SYM_FILE))
			assert_true(pl->link_target[l] < pl->nfiles);
		else
			assert_true(pl->link_target[l] < pl->ndirs);
	}

	/* names: unique within each directory, across dirs, files and links */
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		size_t n = 0, cap = pl->dir_nfiles[j] + pl->dir_nlinks[j] + 1;
		char **names;

		for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE; c = pl->dir_next_sibling[c])
			cap++;
		names = calloc(cap, sizeof(*names));
		assert_non_null(names);
		for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE;
		     c = pl->dir_next_sibling[c]) {
			assert_int_equal(pl->dir_parent[c], j);
			plan_dir_name(pl, c, buf);
			names[n++] = strdup(buf);
		}
		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++) {
			plan_file_name(pl, pl->dir_first_file[j] + c, buf);
			names[n++] = strdup(buf);
		}
		for (uint32_t c = 0; c < pl->dir_nlinks[j]; c++) {
			assert_int_equal(pl->link_dir[pl->dir_first_link[j] + c], j);
			plan_link_name(pl, pl->dir_first_link[j] + c, buf);
			names[n++] = strdup(buf);
		}
		qsort(names, n, sizeof(*names), cmp_str);
		for (size_t i = 0; i < n; i++) {
			assert_true(strlen(names[i]) > 0);
			assert_null(strchr(names[i], '/'));
			if (i)
				assert_true(strcmp(names[i - 1], names[i]) != 0);
			if (j == 0)
				assert_true(strcmp(names[i], "lost+found") != 0);
		}
		for (size_t i = 0; i < n; i++)
			free(names[i]);
		free(names);
	}
}

static void test_default_plan(void **state)
{
	struct params p;
	struct plan pl;
	struct plan_error err = { { 0 } };

	(void)state;
	test_resolved(&p, NULL);
	assert_int_equal(plan_build(&pl, &p, &err), 0);
	check_invariants(&pl);
	plan_release(&pl);
}

static void test_fit_100k(void **state)
{
	static const char *const kv[] = { "files", "100K", "seed", "3", NULL };
	struct params p;
	struct plan pl;
	struct plan_error err = { { 0 } };
	struct report r;

	(void)state;
	test_resolved(&p, kv);
	assert_int_equal(plan_build(&pl, &p, &err), 0);
	check_invariants(&pl);
	assert_int_equal(report_compute(&pl, &r), 0);
	assert_int_equal(r.files, 100000);
	assert_true(r.size_ks_d < r.size_ks_crit);
	assert_true(r.depth_ks_d < r.depth_ks_crit);
	assert_true(r.ext_max_abs_diff < 0.001);
	/* with the default model there is always a file to swap extensions with */
	assert_int_equal(below_floor(&pl), 0);
	/* dup_file_share 0.1 by default: nearly every wanted copy is made */
	assert_true(pl.ndups <= 10000 && pl.ndups > 9900);
	assert_true(r.fpd_max_abs_diff < 0.02);
	/* the files-per-directory ratio follows the parameter */
	assert_true(r.dirs == (uint64_t)(100000 / 10.2 + 0.5));
	report_release(&r);
	plan_release(&pl);
}

/*
 * plan_build_jobs() keeps generation 0's file names as it makes them
 * unique, on one thread and on several: each the name plan_build() makes
 * again (the variants too); a later generation keeps none.
 */
static void test_kept_names(void **state)
{
	static const char *const kv[] = { "files", "40K", "seed", "5", NULL };
	char a[NAME_MAX_LEN + 1], b[NAME_MAX_LEN + 1];
	struct plan_error err = { { 0 } };
	struct params p;
	struct plan made, kept;

	(void)state;
	test_resolved(&p, kv);
	assert_int_equal(plan_build(&made, &p, &err), 0);
	assert_null(made.file_names);
	for (unsigned jobs = 1; jobs <= 4; jobs += 3) {
		assert_int_equal(plan_build_jobs(&kept, &p, jobs, &err), 0);
		assert_non_null(kept.file_names);
		for (uint64_t f = 0; f < made.nfiles; f++) {
			size_t la = plan_file_name(&made, f, a), lb = plan_file_name(&kept, f, b);

			assert_int_equal(la, lb);
			assert_string_equal(a, b);
			assert_int_equal(made.file_variant[f], kept.file_variant[f]);
		}
		plan_release(&kept);
	}
	plan_release(&made);
	p.generation = 1;
	assert_int_equal(plan_build_jobs(&kept, &p, 2, &err), 0);
	assert_null(kept.file_names);
	plan_release(&kept);
}

static void test_modes(void **state)
{
	static const char *const iid[] = { "files", "20000", "sampling", "iid", NULL };
	static const char *const care[] = { "files", "20000", "depth_model", "care", NULL };
	static const char *const numeric[] = { "files", "3000", "name_style", "numeric", NULL };
	static const char *const special[] = { "files", "30000", "special_dirs", "2",
						"special_dir_files", "5000", "special_dir_depth", "3",
						NULL };
	static const char *const tiny[] = { "files", "1", NULL };
	static const char *const few[] = { "files", "7", "used", "100K", NULL };
	/* both given, far below the model's mean: sizes must shrink, never wrap */
	static const char *const dense[] = { "files", "10K", "used", "10M", NULL };
	static const char *const sparse[] = { "files", "50", "used", "20G", NULL };
	static const char *const links[] = { "files", "5000", "hardlink_share", "0.2",
					     "symlink_share", "0.3", NULL };
	const char *const *cases[] = { iid, care, numeric, special, tiny, few, dense, sparse, links };

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct params p;
		struct plan pl;
		struct plan_error err = { { 0 } };
		struct report r;

		test_resolved(&p, cases[i]);
		assert_int_equal(plan_build(&pl, &p, &err), 0);
		check_invariants(&pl);
		assert_int_equal(report_compute(&pl, &r), 0);
		if (pl.nfiles >= 20000) {
			assert_int_equal(below_floor(&pl), 0);
			assert_true(r.size_ks_d < r.size_ks_crit);
			assert_true(r.depth_ks_d < r.depth_ks_crit);
		}
		report_release(&r);
		if (cases[i] == special) {
			assert_int_equal(pl.ndirs - pl.nregular_dirs, 2);
			for (uint32_t j = pl.nregular_dirs; j < pl.ndirs; j++) {
				assert_int_equal(pl.dir_nfiles[j], 5000);
				assert_int_equal(pl.dir_depth[j], 3);
			}
		}
		if (cases[i] == links) {
			uint32_t hard = 0;
			char t[65536];

			for (uint32_t l = 0; l < pl.nlinks; l++) {
				hard += (pl.link_kind[l] & LINK_HARD) != 0;
				if (!(pl.link_kind[l] & LINK_HARD)) {
					int len = plan_symlink_target(&pl, l, t, sizeof(t));

					assert_true(len > 0);
					assert_true(((pl.link_kind[l] & LINK_RELATIVE) != 0) ==
						    (t[0] != '/'));
				}
			}
			assert_int_equal(hard, 1000);
			assert_int_equal(pl.nlinks - hard, 1500);
		}
		plan_release(&pl);
	}
}

/* Changing one part of the model must not reshuffle unrelated decisions. */
static void test_stream_independence(void **state)
{
	static const char *const a[] = { "files", "20000", "seed", "9", NULL };
	static const char *const b[] = { "files", "20000", "seed", "9", "ext_table", "large",
					 "hardlink_share", "0.1", NULL };
	struct params pa, pb;
	struct plan x, y;
	struct plan_error err;

	(void)state;
	test_resolved(&pa, a);
	test_resolved(&pb, b);
	assert_int_equal(plan_build(&x, &pa, &err), 0);
	assert_int_equal(plan_build(&y, &pb, &err), 0);
	assert_int_equal(x.ndirs, y.ndirs);
	assert_memory_equal(x.dir_parent, y.dir_parent, x.ndirs * sizeof(uint32_t));
	assert_memory_equal(x.dir_nfiles, y.dir_nfiles, x.ndirs * sizeof(uint32_t));
	assert_memory_equal(x.file_size, y.file_size, x.nfiles * sizeof(uint64_t));
	plan_release(&x);
	plan_release(&y);
}

static void test_errors(void **state)
{
	static const char *const deep[] = { "files", "100", "special_dirs", "1",
					    "special_dir_files", "10", "special_dir_depth", "40",
					    NULL };
	struct params p;
	struct plan pl;
	struct plan_error err = { { 0 } };

	(void)state;
	test_resolved(&p, deep);
	assert_int_equal(plan_build(&pl, &p, &err), -22);
	assert_non_null(strstr(err.msg, "'special_dir_depth' 40 is deeper than the tree allows"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_plan),
		cmocka_unit_test(test_fit_100k),
		cmocka_unit_test(test_kept_names),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_stream_independence),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
