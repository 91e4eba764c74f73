/* html_data.c - the figures only the --html page shows: size CDF, ages, the disk map */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/html.h"

/* Points of the CDF per doubling of the size: smooth enough, small enough. */
#define CDF_STEPS_PER_DOUBLING 8

/* Shares are printed with 6 significant digits: the page needs no more. */
static json_object *share6(double v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%.6g", v);
	return json_object_new_double_s(v, buf);
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

/* A chart of the page: points along x, what was measured there, the model's values (if any). */
struct chart {
	json_object *o, *x, *got, *model;
};

/* A new chart, its model series only when with_model; -ENOMEM with nothing held. */
static int chart_new(struct chart *c, bool with_model)
{
	c->o = json_object_new_object();
	c->x = json_object_new_array();
	c->got = json_object_new_array();
	c->model = with_model ? json_object_new_array() : NULL;
	if (c->o && c->x && c->got && (!with_model || c->model))
		return 0;
	json_object_put(c->o);
	json_object_put(c->x);
	json_object_put(c->got);
	json_object_put(c->model);
	return -ENOMEM;
}

/* The chart's series under these keys (the model's null without one); the chart's object. */
static json_object *chart_object(struct chart *c, const char *x, const char *got, const char *model)
{
	json_object_object_add(c->o, x, c->x);
	json_object_object_add(c->o, got, c->got);
	json_object_object_add(c->o, model, c->model);
	return c->o;
}

json_object *html_size_cdf(const uint64_t *sorted, uint64_t n, const struct size_model *sm)
{
	struct chart c;
	json_object *o;
	uint64_t max = n ? sorted[n - 1] : 0, last = 0;

	if (chart_new(&c, sm != NULL))
		return NULL;
	if (max < 1)
		max = 1;
	for (unsigned k = 0;; k++) {
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
		json_object_array_add(c.x, json_object_new_uint64(s));
		json_object_array_add(c.got,
				      share6(n ? (double)count_le(sorted, n, s) / (double)n : 0));
		/* sizes are floor() of the variate: P(size <= s) = F(s + 1) */
		if (sm)
			json_object_array_add(c.model, share6(size_model_cdf(sm, (double)s + 1.0)));
		if (s == max)
			break;
	}
	o = chart_object(&c, "x", "achieved", "model");
	json_object_object_add(o, "empty_share",
			       share6(n ? (double)count_le(sorted, n, 0) / (double)n : 0));
	return o;
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
	json_object *o = json_object_new_object();
	uint64_t files[66] = { 0 }, bytes[66] = { 0 };
	unsigned last = 0;

	if (!o)
		return NULL;
	for (uint64_t i = 0; i < n; i++) {
		unsigned b = sorted[i] ? 64 - (unsigned)__builtin_clzll(sorted[i]) : 0;

		files[b]++;
		/* saturates: a class's bytes never wrap */
		if (__builtin_add_overflow(bytes[b], sorted[i], &bytes[b]))
			bytes[b] = UINT64_MAX;
		if (b > last)
			last = b;
	}
	json_object_object_add(o, "files", html_counts(files, last + 1));
	json_object_object_add(o, "bytes", html_counts(bytes, last + 1));
	return o;
}

json_object *html_age_histogram(const int64_t *ages_sorted, uint64_t n,
				const struct html_age_model *am)
{
	struct chart c;
	uint64_t i = 0;

	if (chart_new(&c, am != NULL))
		return NULL;
	/* [0, 1) day, [1, 2), [2, 4), ... up to the oldest file */
	for (unsigned b = 0; i < n && b < 40; b++) {
		int64_t lo = b ? (int64_t)86400 << (b - 1) : 0, hi = (int64_t)86400 << b;
		uint64_t k = 0;

		/* negative ages (times after the reference) count in the first bin */
		while (i < n && ages_sorted[i] < hi) {
			k++;
			i++;
		}
		if (b == 39) {
			k += n - i;
			i = n;
		}
		json_object_array_add(c.x, json_object_new_int64(lo / 86400));
		json_object_array_add(c.got, json_object_new_uint64(k));
		if (am) {
			double from = age_cdf(am, (double)lo / 86400);
			double to = i == n ? 1 : age_cdf(am, (double)hi / 86400);

			json_object_array_add(c.model, share6(to - from));
		}
	}
	return chart_object(&c, "edges_days", "files", "target");
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
	json_object *o = json_object_new_object(), *rows = json_object_new_array();
	char *buf = malloc(m->cells_per_row * 22 + 1);

	if (!o || !rows || !buf) {
		json_object_put(o);
		json_object_put(rows);
		free(buf);
		return NULL;
	}
	for (uint64_t r = 0; r < m->rows; r++) {
		row_rle(m, r, buf);
		json_object_array_add(rows, json_object_new_string(buf));
	}
	free(buf);
	json_object_object_add(o, "total_blocks", json_object_new_uint64(m->total_blocks));
	json_object_object_add(o, "group_blocks", json_object_new_uint64(m->group_blocks));
	json_object_object_add(o, "row_blocks", json_object_new_uint64(m->row_blocks));
	json_object_object_add(o, "cell_blocks", json_object_new_uint64(m->cell_blocks));
	json_object_object_add(o, "cells_per_row", json_object_new_uint64(m->cells_per_row));
	json_object_object_add(o, "outside_blocks", json_object_new_uint64(m->outside));
	json_object_object_add(o, "rest", json_object_new_string(m->known_rest ? "metadata" :
								 "unknown"));
	json_object_object_add(o, "rows", rows);
	return o;
}
