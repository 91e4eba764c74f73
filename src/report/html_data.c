/* html_data.c - the figures only the --html page shows: size CDF, ages, the disk map (report/figures) */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/figures.h"
#include "report/html.h"

/* Points of the CDF per doubling of the size: smooth enough, small enough. */
#define CDF_STEPS_PER_DOUBLING 8

/* A share with 6 significant digits (the page needs no more), passed through to the JSON. */
static void share6(struct figs *fs, const char *key, double v)
{
	char buf[32];
	json_object *j;

	snprintf(buf, sizeof(buf), "%.6g", v);
	j = json_object_new_double_s(v, buf);
	if (!j && !fs->err)
		fs->err = -ENOMEM;
	figs_json_value(fs, key, j);
	json_object_put(j);
}

/* How many of sorted[0..n-1] are <= x. */
static uint64_t count_le(const uint64_t *sorted, uint64_t n, uint64_t x)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (sorted[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The object of the figures, or NULL (out of memory); fs released. */
static json_object *figs_done(struct figs *fs)
{
	json_object *o = figs_json(fs, NULL);

	figs_release(fs);
	return o;
}

/* Counts under key, trailing zeros dropped. */
static void counts_figs(struct figs *fs, const char *key, const uint64_t *v, size_t n)
{
	while (n > 0 && !v[n - 1])
		n--;
	figs_u64s(fs, key, v, n);
}

/* Sizes 2^(k/8) up to the largest: 8 a doubling, 64 doublings at most. */
#define CDF_POINTS (64 * CDF_STEPS_PER_DOUBLING + 2)

json_object *html_size_cdf(const uint64_t *sorted, uint64_t n, const struct size_model *sm)
{
	uint64_t max = n ? sorted[n - 1] : 0, last = 0, x[CDF_POINTS];
	size_t np = 0;
	struct figs fs;

	if (max < 1)
		max = 1;
	for (unsigned k = 0; np < CDF_POINTS; k++) {
		double v = pow(2.0, (double)k / CDF_STEPS_PER_DOUBLING);
		uint64_t s = (uint64_t)floor(v);

		if (s > max)
			s = max;
		if (k && s == last) {
			if (s == max)
				break;
			continue;
		}
		last = s;
		x[np++] = s;
		if (s == max)
			break;
	}
	figs_init(&fs);
	figs_u64s(&fs, "x", x, np);
	figs_open(&fs, FIG_ARRAY, "achieved");
	for (size_t i = 0; i < np; i++)
		share6(&fs, NULL, n ? (double)count_le(sorted, n, x[i]) / (double)n : 0);
	figs_end(&fs);
	if (sm) {
		/* sizes are floor() of the variate: P(size <= s) = F(s + 1) */
		figs_open(&fs, FIG_ARRAY, "model");
		for (size_t i = 0; i < np; i++)
			share6(&fs, NULL, size_model_cdf(sm, (double)x[i] + 1.0));
		figs_end(&fs);
	} else {
		figs_null(&fs, "model");
	}
	share6(&fs, "empty_share", n ? (double)count_le(sorted, n, 0) / (double)n : 0);
	return figs_done(&fs);
}

json_object *html_counts(const uint64_t *v, size_t n)
{
	json_object *a = json_object_new_array();

	while (n > 0 && !v[n - 1])
		n--;
	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

/* P(age <= d days): the age table's law, or the capped lognormal. */
static double age_cdf(const struct html_age_model *am, double d)
{
	if (am->nq)
		return quantile_table_cdf(am->q, am->nq, d);
	return age_lognormal_cdf(am->median_days, am->sigma, am->max_days, d);
}

json_object *html_size_classes(const uint64_t *sorted, uint64_t n)
{
	uint64_t files[66] = { 0 }, bytes[66] = { 0 };
	unsigned last = 0;
	struct figs fs;

	for (uint64_t i = 0; i < n; i++) {
		unsigned b = sorted[i] ? 64 - (unsigned)__builtin_clzll(sorted[i]) : 0;

		files[b]++;
		/* saturates: a class's bytes never wrap */
		if (__builtin_add_overflow(bytes[b], sorted[i], &bytes[b]))
			bytes[b] = UINT64_MAX;
		if (b > last)
			last = b;
	}
	figs_init(&fs);
	counts_figs(&fs, "files", files, last + 1);
	counts_figs(&fs, "bytes", bytes, last + 1);
	return figs_done(&fs);
}

/* [0, 1) day, [1, 2), [2, 4), ... up to the oldest file: 40 bins at most */
#define AGE_BINS 40

json_object *html_age_histogram(const int64_t *ages_sorted, uint64_t n,
				const struct html_age_model *am)
{
	int64_t edge[AGE_BINS];
	uint64_t count[AGE_BINS], i = 0;
	double target[AGE_BINS];
	unsigned nb = 0;
	struct figs fs;

	for (unsigned b = 0; i < n && b < AGE_BINS; b++, nb++) {
		int64_t lo = b ? (int64_t)86400 << (b - 1) : 0, hi = (int64_t)86400 << b;
		uint64_t k = 0;

		/* negative ages (times after the reference) count in the first bin */
		while (i < n && ages_sorted[i] < hi) {
			k++;
			i++;
		}
		if (b == AGE_BINS - 1) {
			k += n - i;
			i = n;
		}
		edge[b] = lo / 86400;
		count[b] = k;
		if (am)
			target[b] = (i == n ? 1 : age_cdf(am, (double)hi / 86400)) -
				    age_cdf(am, (double)lo / 86400);
	}
	figs_init(&fs);
	figs_open(&fs, FIG_ARRAY, "edges_days");
	for (unsigned b = 0; b < nb; b++)
		figs_i64(&fs, NULL, edge[b]);
	figs_end(&fs);
	figs_u64s(&fs, "files", count, nb);
	if (am) {
		figs_open(&fs, FIG_ARRAY, "target");
		for (unsigned b = 0; b < nb; b++)
			share6(&fs, NULL, target[b]);
		figs_end(&fs);
	} else {
		figs_null(&fs, "target");
	}
	return figs_done(&fs);
}

/* ---- the disk map ------------------------------------------------------ */

/* The letter of cell i: the class of most of its blocks, the rest counting too. */
static char cell_class(const struct html_map *m, uint64_t row, uint64_t i)
{
	static const char letter[HTML_MAP_CLASSES] = { 'c', 'f', '.' };
	const uint32_t *c = m->cnt[row * m->cells_per_row + i];
	uint64_t first = row * m->row_blocks + i * m->cell_blocks, size = m->cell_blocks;
	uint64_t covered = 0, best = 0;
	char ch;

	if (first >= m->total_blocks)
		return 0;
	if (size > m->total_blocks - first)
		size = m->total_blocks - first;
	if (i * m->cell_blocks + size > m->row_blocks)
		size = m->row_blocks - i * m->cell_blocks;
	for (int k = 0; k < HTML_MAP_CLASSES; k++)
		covered += c[k];
	ch = m->known_rest ? 'm' : 'u';
	best = covered < size ? size - covered : 0;
	for (int k = 0; k < HTML_MAP_CLASSES; k++)
		if (c[k] > best) {
			best = c[k];
			ch = letter[k];
		}
	return ch;
}

/* Row r run-length coded into buf (room for 2 + 20 chars a cell). */
static void row_rle(const struct html_map *m, uint64_t r, char *buf)
{
	char *p = buf, run = 0;
	uint64_t count = 0;

	for (uint64_t i = 0; i <= m->cells_per_row; i++) {
		char ch = i < m->cells_per_row ? cell_class(m, r, i) : 0;

		if (ch == run && ch) {
			count++;
			continue;
		}
		if (run)
			p += sprintf(p, "%c%llu", run, (unsigned long long)count);
		run = ch;
		count = 1;
	}
	*p = '\0';
}

json_object *html_map_json(const struct html_map *m)
{
	char *buf = malloc(m->cells_per_row * 22 + 1);
	struct figs fs;

	if (!buf)
		return NULL;
	figs_init(&fs);
	figs_u64(&fs, "total_blocks", m->total_blocks);
	figs_u64(&fs, "group_blocks", m->group_blocks);
	figs_u64(&fs, "row_blocks", m->row_blocks);
	figs_u64(&fs, "cell_blocks", m->cell_blocks);
	figs_u64(&fs, "cells_per_row", m->cells_per_row);
	figs_u64(&fs, "outside_blocks", m->outside);
	figs_string(&fs, "rest", m->known_rest ? "metadata" : "unknown");
	figs_open(&fs, FIG_ARRAY, "rows");
	for (uint64_t r = 0; r < m->rows; r++) {
		row_rle(m, r, buf);
		figs_string(&fs, NULL, buf);
	}
	figs_end(&fs);
	free(buf);
	return figs_done(&fs);
}
