/* test_tree.c - the generative tree: structure, attachment law, determinism */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <gsl/gsl_cdf.h>

#include "model/tree.h"

#define N 200000

static void test_structure(void **state)
{
	uint32_t *parent = malloc(N * sizeof(*parent));
	uint8_t *depth = malloc(N);

	(void)state;
	assert_int_equal(tree_build(7, N, parent, depth), 0);
	assert_int_equal(parent[0], 0);
	assert_int_equal(depth[0], 0);
	for (uint32_t i = 1; i < N; i++) {
		assert_true(parent[i] < i);
		assert_int_equal(depth[i], depth[parent[i]] + 1);
	}
	free(parent);
	free(depth);
}

static void test_tiny(void **state)
{
	uint32_t parent[2] = { 99, 99 };
	uint8_t depth[2] = { 99, 99 };

	(void)state;
	assert_int_equal(tree_build(1, 1, parent, depth), 0);
	assert_int_equal(parent[0], 0);
	assert_int_equal(depth[0], 0);
	assert_int_equal(tree_build(1, 2, parent, depth), 0);
	assert_int_equal(parent[1], 0);
	assert_int_equal(depth[1], 1);
}

/*
 * Replay the build: at step i the chosen parent had some number of
 * subdirectories s.  Under the model the expected number of choices of a
 * parent with s subdirectories is the sum over steps of N_s (s + 2) / total.
 * A chi-square over s = 0..9 and ">= 10" must not reject the model; and the
 * same statistic must reject a uniform-attachment tree.
 */
static double attachment_chi2(const uint32_t *parent, uint32_t n)
{
	enum { CLASSES = 11 };
	uint32_t *subdirs = calloc(n, sizeof(*subdirs));
	uint64_t ns[CLASSES] = { 0 };   /* dirs by subdirectory class */
	double expected[CLASSES] = { 0 }, observed[CLASSES] = { 0 }, chi2 = 0;
	double total = 2;

	ns[0] = 1;
	for (uint32_t i = 1; i < n; i++) {
		double acc = 0;
		uint32_t p = parent[i], s = subdirs[p];
		unsigned cls = s < CLASSES - 1 ? s : CLASSES - 1;

		for (unsigned c = 0; c < CLASSES - 1; c++) {
			double e = (double)ns[c] * (c + 2) / total;

			expected[c] += e;
			acc += e;
		}
		expected[CLASSES - 1] += 1.0 - acc;
		observed[cls] += 1;
		/* p moves from class s to s + 1; the new dir joins class 0 */
		if (s < CLASSES - 1) {
			ns[s]--;
			if (s + 1 < CLASSES - 1)
				ns[s + 1]++;
		}
		subdirs[p]++;
		ns[0]++;
		total += 3;
	}
	for (unsigned c = 0; c < CLASSES; c++)
		chi2 += (observed[c] - expected[c]) * (observed[c] - expected[c]) / expected[c];
	free(subdirs);
	return chi2;
}

static void test_attachment_law(void **state)
{
	uint32_t *parent = malloc(N * sizeof(*parent));
	uint8_t *depth = malloc(N);
	double limit = gsl_cdf_chisq_Qinv(0.001, 10);

	(void)state;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		assert_int_equal(tree_build(seed, N, parent, depth), 0);
		assert_true(attachment_chi2(parent, N) < limit);
	}
	/* a uniform random recursive tree is a different law: it must be rejected */
	srand(1);
	for (uint32_t i = 1; i < N; i++)
		parent[i] = (uint32_t)(rand() % i);
	assert_true(attachment_chi2(parent, N) > limit);
	free(parent);
	free(depth);
}

static void test_determinism(void **state)
{
	uint32_t *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b));
	uint8_t *da = malloc(N), *db = malloc(N);

	(void)state;
	assert_int_equal(tree_build(11, N, a, da), 0);
	assert_int_equal(tree_build(11, N, b, db), 0);
	assert_memory_equal(a, b, N * sizeof(*a));
	assert_int_equal(tree_build(12, N, b, db), 0);
	assert_memory_not_equal(a, b, N * sizeof(*a));
	free(a);
	free(b);
	free(da);
	free(db);
}

/*
 * The tree by depth: directories by depth as the quotas of the table
 * (the root alone at 0), each parent one level up and numbered before its
 * child; a level the table leaves empty ends the tree; the same seed the
 * same tree.
 */
static void test_by_depth(void **state)
{
	const double share[] = { 0, 0.1, 0.3, 0.4, 0.2 };
	const double gap[] = { 0, 0.5, 0, 0.5 };
	uint32_t n = 10001, parent[10001], parent2[10001];
	uint8_t depth[10001];
	uint32_t at[5] = { 0 };

	(void)state;
	assert_int_equal(tree_build_depths(3, n, share, 5, parent, depth), 0);
	for (uint32_t j = 0; j < n; j++) {
		at[depth[j]]++;
		if (j) {
			assert_true(parent[j] < j);
			assert_int_equal(depth[parent[j]] + 1, depth[j]);
		}
	}
	assert_int_equal(at[0], 1);
	assert_int_equal(at[1], 1000);
	assert_int_equal(at[2], 3000);
	assert_int_equal(at[3], 4000);
	assert_int_equal(at[4], 2000);
	assert_int_equal(tree_build_depths(3, n, share, 5, parent2, depth), 0);
	assert_memory_equal(parent, parent2, sizeof(parent));
	/* depth 2 empty: depth 3's directories stay at depth 1 */
	assert_int_equal(tree_build_depths(3, 101, gap, 4, parent, depth), 0);
	for (uint32_t j = 1; j < 101; j++)
		assert_int_equal(depth[j], 1);
	assert_int_equal(tree_build_depths(3, 10, share, 1, parent, depth), -EINVAL);
}

/* The largest difference between the shares of directories holding 0..3 children and want[]. */
static double children_diff(const uint32_t *parent, uint32_t nd, const double *want)
{
	uint32_t *kids = calloc(nd, sizeof(*kids));
	double got[4] = { 0 }, diff = 0;

	for (uint32_t i = 1; i < nd; i++)
		kids[parent[i]]++;
	for (uint32_t i = 0; i < nd; i++)
		if (kids[i] < 4)
			got[kids[i]] += 1.0 / nd;
	for (int k = 0; k < 4; k++)
		diff = diff > fabs(got[k] - want[k]) ? diff : fabs(got[k] - want[k]);
	free(kids);
	return diff;
}

static void check_tree(const uint32_t *parent, const uint8_t *depth, uint32_t nd)
{
	assert_int_equal(parent[0], 0);
	assert_int_equal(depth[0], 0);
	for (uint32_t i = 1; i < nd; i++) {
		assert_true(parent[i] < i);
		assert_int_equal(depth[i], depth[parent[i]] + 1);
	}
}

static void test_subdirs(void **state)
{
	static const uint32_t n[] = { 0, 1, 2, 3, 10 };
	static const double share[] = { 0.6, 0.2, 0.1, 0.07, 0.03 };
	static const double other[] = { 0.5, 0.3, 0.1, 0.07 };
	static const double dshare[] = { 0, 0.1, 0.3, 0.35, 0.25 }, leaves[] = { 0, 0.2, 0.3, 0.686, 1 };
	const uint32_t nd = 20000;
	uint32_t *parent = malloc(nd * sizeof(*parent)), at[5] = { 0 }, leaf[5] = { 0 };
	uint8_t *depth = malloc(nd);
	uint32_t *kids = calloc(nd, sizeof(*kids));
	struct tree_shape sh = { n, share, 5, NULL, 0, NULL, 0 };

	(void)state;
	/* breadth-first, no depth table: the counts as the table says */
	assert_int_equal(tree_build_subdirs(3, nd, &sh, parent, depth), 0);
	check_tree(parent, depth, nd);
	assert_true(children_diff(parent, nd, share) < 0.001);
	/* negative twin: the same tree against a table 0.1 away is rejected */
	assert_true(children_diff(parent, nd, other) > 0.05);
	/* level by level, with leaves by depth */
	sh.dshare = dshare;
	sh.ndshare = 5;
	sh.leaves = leaves;
	sh.nleaves = 5;
	assert_int_equal(tree_build_subdirs(3, nd, &sh, parent, depth), 0);
	check_tree(parent, depth, nd);
	for (uint32_t i = 1; i < nd; i++)
		kids[parent[i]]++;
	for (uint32_t i = 0; i < nd; i++) {
		assert_true(depth[i] < 5);
		at[depth[i]]++;
		leaf[depth[i]] += kids[i] == 0;
	}
	for (int d = 1; d < 5; d++) {
		assert_true(fabs((double)at[d] / (nd - 1) - dshare[d] / 1.0) < 0.001);
		assert_true(fabs((double)leaf[d] / at[d] - leaves[d]) < 0.01);
	}
	print_message("level by level: children diff %.4f\n", children_diff(parent, nd, share));
	assert_true(children_diff(parent, nd, share) < 0.02);
	/* no table: refused */
	sh.nsh = 0;
	assert_int_equal(tree_build_subdirs(3, nd, &sh, parent, depth), -EINVAL);
	free(parent);
	free(depth);
	free(kids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_tiny),
		cmocka_unit_test(test_attachment_law),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_by_depth),
		cmocka_unit_test(test_subdirs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
