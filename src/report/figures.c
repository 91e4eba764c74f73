/* figures.c - one description of a report's figures, rendered to text and to JSON */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "report/figures.h"
#include "util/array.h"
#include "util/strutil.h"
#include "util/util.h"

void figs_init(struct figs *fs)
{
	memset(fs, 0, sizeof(*fs));
}

void figs_release(struct figs *fs)
{
	for (size_t k = 0; k < fs->n; k++) {
		free(fs->f[k].key);
		if (fs->f[k].type == FIG_STRING)
			free(fs->f[k].v.s);
		else if (fs->f[k].type == FIG_JSON)
			json_object_put(fs->f[k].v.j);
	}
	free(fs->f);
	figs_init(fs);
}

/* A new figure of this type under key, or NULL (fs->err set). */
static struct fig *add(struct figs *fs, const char *key, enum fig_type type)
{
	struct fig *f;

	if (fs->err)
		return NULL;
	if (array_grow((void **)&fs->f, &fs->cap, fs->n + 1, sizeof(*fs->f))) {
		fs->err = -ENOMEM;
		return NULL;
	}
	f = &fs->f[fs->n];
	memset(f, 0, sizeof(*f));
	if (key && !(f->key = strdup(key))) {
		fs->err = -ENOMEM;
		return NULL;
	}
	f->type = type;
	fs->n++;
	return f;
}

void figs_u64(struct figs *fs, const char *key, uint64_t v)
{
	struct fig *f = add(fs, key, FIG_U64);

	if (f)
		f->v.u = v;
}

void figs_i64(struct figs *fs, const char *key, int64_t v)
{
	struct fig *f = add(fs, key, FIG_I64);

	if (f)
		f->v.i = v;
}

void figs_double(struct figs *fs, const char *key, double v)
{
	struct fig *f = add(fs, key, FIG_DOUBLE);

	if (f)
		f->v.d = v;
}

void figs_fixed(struct figs *fs, const char *key, double v, int decimals)
{
	struct fig *f = add(fs, key, FIG_DOUBLE);

	if (f) {
		f->v.d = v;
		f->fixed = (unsigned char)(decimals < 0 ? 0 : decimals > 30 ? 31 : decimals + 1);
	}
}

void figs_bool(struct figs *fs, const char *key, bool v)
{
	struct fig *f = add(fs, key, FIG_BOOL);

	if (f)
		f->v.u = v;
}

void figs_string(struct figs *fs, const char *key, const char *s)
{
	struct fig *f = add(fs, key, FIG_STRING);

	if (f && !(f->v.s = strdup(s))) {
		/* a string-less FIG_STRING is never printed: undo it */
		fs->n--;
		free(f->key);
		fs->err = -ENOMEM;
	}
}

void figs_null(struct figs *fs, const char *key)
{
	add(fs, key, FIG_NULL);
}

void figs_json_value(struct figs *fs, const char *key, struct json_object *j)
{
	struct fig *f = add(fs, key, j ? FIG_JSON : FIG_NULL);

	if (f && j)
		f->v.j = json_object_get(j);
}

void figs_open(struct figs *fs, enum fig_type type, const char *key)
{
	if (!fs->err && (fs->depth == ARRAY_SIZE(fs->open) ||
			 (type != FIG_OBJECT && type != FIG_ARRAY && type != FIG_MERGE)))
		fs->err = -EINVAL;
	if (!add(fs, key, type))
		return;
	fs->open[fs->depth++] = fs->n - 1;
}

void figs_end(struct figs *fs)
{
	if (!fs->err && !fs->depth)
		fs->err = -EINVAL;
	if (fs->err)
		return;
	fs->depth--;
	fs->f[fs->open[fs->depth]].end = fs->n;
}

/* Mark the figure added since fs->n was before (if one was) text-only. */
static void text_only(struct figs *fs, size_t before)
{
	if (fs->n > before)
		fs->f[before].text_only = true;
}

void figs_text_u64(struct figs *fs, const char *key, uint64_t v)
{
	size_t before = fs->n;

	figs_u64(fs, key, v);
	text_only(fs, before);
}

void figs_text_double(struct figs *fs, const char *key, double v)
{
	size_t before = fs->n;

	figs_double(fs, key, v);
	text_only(fs, before);
}

void figs_text_string(struct figs *fs, const char *key, const char *s)
{
	size_t before = fs->n;

	figs_string(fs, key, s);
	text_only(fs, before);
}

void figs_text_open(struct figs *fs, enum fig_type type, const char *key)
{
	size_t before = fs->n;

	figs_open(fs, type, key);
	text_only(fs, before);
}

void figs_u64s(struct figs *fs, const char *key, const uint64_t *v, size_t n)
{
	figs_open(fs, FIG_ARRAY, key);
	for (size_t i = 0; i < n; i++)
		figs_u64(fs, NULL, v[i]);
	figs_end(fs);
}

void figs_doubles(struct figs *fs, const char *key, const double *v, size_t n)
{
	figs_open(fs, FIG_ARRAY, key);
	for (size_t i = 0; i < n; i++)
		figs_double(fs, NULL, v[i]);
	figs_end(fs);
}

/* ---- lookup ----------------------------------------------------------- */

static bool is_container(const struct fig *f)
{
	return f->type == FIG_OBJECT || f->type == FIG_ARRAY || f->type == FIG_MERGE;
}

/* The index after figure k and everything inside it. */
static size_t next(const struct figs *fs, size_t k)
{
	return is_container(&fs->f[k]) ? fs->f[k].end : k + 1;
}

/* The child of scope named by the len bytes at name (a key, or an array's index). */
static size_t child(const struct figs *fs, size_t scope, const char *name, size_t len)
{
	size_t k = scope == SIZE_MAX ? 0 : scope + 1, end = scope == SIZE_MAX ? fs->n : fs->f[scope].end;
	bool array = scope != SIZE_MAX && fs->f[scope].type == FIG_ARRAY;
	size_t want = 0, i = 0;

	if (array) {
		char *e;

		want = strtoul(name, &e, 10);
		if (e != name + len)
			return SIZE_MAX;
	}
	for (; k < end; k = next(fs, k), i++) {
		const char *key = fs->f[k].key;

		if (array ? i == want : key && strlen(key) == len && !memcmp(key, name, len))
			return k;
	}
	return SIZE_MAX;
}

const struct fig *figs_get(const struct figs *fs, size_t scope, const char *path)
{
	size_t k = scope;

	if (fs->err)
		return NULL;
	for (const char *p = path;;) {
		const char *dot = strchr(p, '.');
		size_t len = dot ? (size_t)(dot - p) : strlen(p);

		if (k != SIZE_MAX && !is_container(&fs->f[k]))
			return NULL;
		k = child(fs, k, p, len);
		if (k == SIZE_MAX)
			return NULL;
		if (!dot)
			return &fs->f[k];
		p = dot + 1;
	}
}

/* ---- JSON -------------------------------------------------------------- */

static json_object *value_json(const struct figs *fs, size_t k);

/* The JSON figures inside container c added to o (an object or an array). */
static void fill_json(const struct figs *fs, size_t c, json_object *o)
{
	for (size_t k = c == SIZE_MAX ? 0 : c + 1; k < (c == SIZE_MAX ? fs->n : fs->f[c].end);
	     k = next(fs, k)) {
		const struct fig *f = &fs->f[k];

		if (f->text_only)
			continue;
		if (f->type == FIG_MERGE)
			fill_json(fs, k, o);
		else if (json_object_is_type(o, json_type_array))
			json_object_array_add(o, value_json(fs, k));
		else
			json_object_object_add(o, f->key, value_json(fs, k));
	}
}

static json_object *value_json(const struct figs *fs, size_t k)
{
	const struct fig *f = &fs->f[k];
	json_object *o;
	char buf[64];

	switch (f->type) {
	case FIG_U64:
		return json_object_new_uint64(f->v.u);
	case FIG_BOOL:
		return json_object_new_boolean(f->v.u != 0);
	case FIG_I64:
		return json_object_new_int64(f->v.i);
	case FIG_DOUBLE:
		if (!f->fixed)
			return json_object_new_double(f->v.d);
		/* as a person would write it: "0.5000" */
		snprintf(buf, sizeof(buf), "%.*f", f->fixed - 1, f->v.d);
		return json_object_new_double_s(f->v.d, buf);
	case FIG_STRING:
		return json_object_new_string(f->v.s);
	case FIG_JSON:
		return json_object_get(f->v.j);
	case FIG_OBJECT:
	case FIG_MERGE:
	case FIG_ARRAY:
		o = f->type == FIG_ARRAY ? json_object_new_array() : json_object_new_object();
		if (o)
			fill_json(fs, k, o);
		return o;
	case FIG_NULL:
		break;
	}
	return NULL;
}

json_object *figs_json(const struct figs *fs, json_object *into)
{
	json_object *o = into ? into : json_object_new_object();

	if (fs->err || fs->depth) {
		if (!into)
			json_object_put(o);
		return NULL;
	}
	if (o)
		fill_json(fs, SIZE_MAX, o);
	return o;
}

/* ---- text ------------------------------------------------------------------ */

/* What a line is printed with: the figures, the scope of its paths, the output. */
struct ctx {
	const struct figs *fs;
	size_t scope;
	unsigned human;
	FILE *out;
};

/* One row's context: the element, its index and count, its line. */
struct row {
	size_t elem, i, n;
	const struct fig_line *line;
};

/* A value to print: a figure's, or one a row makes up. */
struct val {
	enum fig_type type;
	uint64_t u;
	int64_t i;
	double d;
	const char *s;
};

static double as_double(const struct fig *f)
{
	switch (f->type) {
	case FIG_U64:
		return (double)f->v.u;
	case FIG_I64:
		return (double)f->v.i;
	case FIG_DOUBLE:
		return f->v.d;
	default:
		return 0;
	}
}

static struct val to_val(const struct fig *f)
{
	struct val v = { .type = f->type };

	v.u = f->type == FIG_U64 || f->type == FIG_BOOL ? f->v.u : 0;
	v.i = f->type == FIG_I64 ? f->v.i : 0;
	v.d = f->type == FIG_DOUBLE ? f->v.d : 0;
	v.s = f->type == FIG_STRING ? f->v.s : NULL;
	return v;
}

/* The figure at path: in the row's element, then the line's scope, then the top. */
static const struct fig *find(const struct ctx *c, const struct row *row, const char *path)
{
	const struct fig *f = NULL;
	char sub[160];

	if (row && strstr(path, "#")) {
		/* an index component "#" is the row's index: depth_achieved.# */
		char *q = sub;

		for (const char *p = path; *p && q < sub + sizeof(sub) - 24; p++) {
			if (*p == '#' && (p == path || p[-1] == '.'))
				q += snprintf(q, 24, "%zu", row->i);
			else
				*q++ = *p;
		}
		*q = '\0';
		path = sub;
	}
	if (row && is_container(&c->fs->f[row->elem]))
		f = figs_get(c->fs, row->elem, path);
	if (!f && c->scope != SIZE_MAX)
		f = figs_get(c->fs, c->scope, path);
	if (!f)
		f = figs_get(c->fs, SIZE_MAX, path);
	return f;
}

/* The value at path; false if there is none. */
static bool lookup(const struct ctx *c, const struct row *row, const char *path, char *buf,
		   size_t len, struct val *v)
{
	const struct fig *f;

	if (row && !strcmp(path, ".")) {
		*v = to_val(&c->fs->f[row->elem]);
		return true;
	}
	if (row && !strcmp(path, "@")) {
		const char *key = c->fs->f[row->elem].key;

		*v = (struct val){ .type = FIG_STRING, .s = key ? key : "" };
		return true;
	}
	if (row && !strcmp(path, "#")) {
		*v = (struct val){ .type = FIG_U64, .u = row->i };
		return true;
	}
	if (row && row->line->label && !strcmp(path, "label")) {
		row->line->label(row->i, row->n, buf, len);
		*v = (struct val){ .type = FIG_STRING, .s = buf };
		return true;
	}
	if (row && row->line->per && !strcmp(path, "share")) {
		const struct fig *per = find(c, NULL, row->line->per);
		double d = per ? as_double(per) : 0;

		if (!per)
			return false;
		*v = (struct val){ .type = FIG_DOUBLE,
				   .d = d ? as_double(&c->fs->f[row->elem]) / d : 0 };
		return true;
	}
	f = find(c, row, path);
	if (!f)
		return false;
	*v = to_val(f);
	return true;
}

/* Does one condition hold? */
static bool holds(const struct ctx *c, const struct row *row, const char *cond, size_t len)
{
	char path[128], buf[64];
	bool neg = false, present = false, ok;
	struct val v;

	if (len && *cond == '!') {
		neg = true;
		cond++, len--;
	}
	if (len && *cond == '?') {
		present = true;
		cond++, len--;
	}
	snprintf(path, sizeof(path), "%.*s", (int)len, cond);
	if (!lookup(c, row, path, buf, sizeof(buf), &v) || v.type == FIG_NULL)
		ok = false;
	else if (present)
		ok = true;
	else if (v.type == FIG_U64 || v.type == FIG_BOOL || v.type == FIG_I64 ||
		 v.type == FIG_DOUBLE)
		ok = v.u || v.i || v.d != 0;
	else
		ok = v.type != FIG_STRING || *v.s;
	return ok != neg;
}

static bool all_hold(const struct ctx *c, const struct row *row, const char *when)
{
	while (when && *when) {
		size_t len = strcspn(when, " ");

		if (len && !holds(c, row, when, len))
			return false;
		when += len;
		when += strspn(when, " ");
	}
	return true;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
/* Print one {path:spec|empty}; -EINVAL if path names no figure. */
static int put_field(const struct ctx *c, const struct row *row, const char *field, size_t len)
{
	char path[128], spec[32] = "", empty[64] = "", fmt[48], buf[64];
	const char *colon = memchr(field, ':', len), *bar = memchr(field, '|', len);
	size_t plen = colon ? (size_t)(colon - field) : bar ? (size_t)(bar - field) : len;
	struct val v;

	snprintf(path, sizeof(path), "%.*s", (int)plen, field);
	if (colon)
		snprintf(spec, sizeof(spec), "%.*s",
			 (int)((bar ? bar : field + len) - colon - 1), colon + 1);
	if (bar)
		snprintf(empty, sizeof(empty), "%.*s", (int)(field + len - bar - 1), bar + 1);
	if (!lookup(c, row, path, buf, sizeof(buf), &v)) {
		fprintf(stderr, "imprint: report template: no figure '%s'\n", path);
		return -EINVAL;
	}
	if (*spec && spec[strlen(spec) - 1] == 'h') {
		char hb[32];
		uint64_t b = v.type == FIG_DOUBLE ? (uint64_t)v.d : v.type == FIG_I64 ? (uint64_t)v.i : v.u;

		/* what comes before the 'h' is a string's width: "11h" */
		spec[strlen(spec) - 1] = '\0';
		snprintf(fmt, sizeof(fmt), "%%%ss", spec);
		fprintf(c->out, fmt, fmt_bytes(b, c->human, hb, sizeof(hb)));
		return 0;
	}
	switch (v.type) {
	case FIG_BOOL:
	case FIG_U64:
		snprintf(fmt, sizeof(fmt), "%%%s%s", spec, PRIu64);
		fprintf(c->out, fmt, v.u);
		break;
	case FIG_I64:
		snprintf(fmt, sizeof(fmt), "%%%s%s", spec, PRId64);
		fprintf(c->out, fmt, v.i);
		break;
	case FIG_DOUBLE:
		snprintf(fmt, sizeof(fmt), "%%%s%s", spec,
			 *spec && isalpha((unsigned char)spec[strlen(spec) - 1]) ? "" : "f");
		fprintf(c->out, fmt, v.d);
		break;
	case FIG_STRING:
		snprintf(fmt, sizeof(fmt), "%%%ss", spec);
		fprintf(c->out, fmt, *v.s || !bar ? v.s : empty);
		break;
	default:
		fputs(empty, c->out);
		break;
	}
	return 0;
}
#pragma GCC diagnostic pop

/* fmt with its fields filled in. */
static int put_fmt(const struct ctx *c, const struct row *row, const char *fmt)
{
	for (const char *p = fmt; *p;) {
		const char *open = strchr(p, '{'), *close;
		int ret;

		if (!open) {
			fputs(p, c->out);
			break;
		}
		fwrite(p, 1, (size_t)(open - p), c->out);
		close = strchr(open, '}');
		if (!close) {
			fprintf(stderr, "imprint: report template: unclosed '{' in '%s'\n", fmt);
			return -EINVAL;
		}
		ret = put_field(c, row, open + 1, (size_t)(close - open - 1));
		if (ret)
			return ret;
		p = close + 1;
	}
	return 0;
}

/* Is lines[k] part of the group of row lines that lines[0] starts? */
static bool same_group(const struct fig_line *lines, size_t k)
{
	return lines[k].each && lines[k].rows && !strcmp(lines[k].rows, lines[0].rows);
}

/* The rows of lines[0] (and of its group: *used lines); 0 or -EINVAL. */
static int put_rows(const struct ctx *c, const struct fig_line *lines, size_t nlines,
		    size_t *used)
{
	const struct fig *a = find(c, NULL, lines[0].rows);
	size_t first, n = 0, i = 0, group = 1;

	if (lines[0].each)
		while (group < nlines && same_group(lines, group))
			group++;
	*used = group;
	if (!a || (a->type != FIG_ARRAY && a->type != FIG_OBJECT)) {
		fprintf(stderr, "imprint: report template: no array or object '%s'\n", lines[0].rows);
		return -EINVAL;
	}
	first = (size_t)(a - c->fs->f);
	for (size_t k = first + 1; k < a->end; k = next(c->fs, k))
		n++;
	for (size_t k = first + 1; k < a->end; k = next(c->fs, k), i++) {
		for (size_t g = 0; g < group; g++) {
			struct row row = { .elem = k, .i = i, .n = n, .line = &lines[g] };
			int ret;

			if (lines[g].skip_zero && !holds(c, &row, ".", 1))
				break;
			if (lines[g].each && !all_hold(c, &row, lines[g].when))
				continue;
			ret = put_fmt(c, &row, lines[g].fmt);
			if (ret)
				return ret;
			break;
		}
	}
	return 0;
}

int figs_print(const struct figs *fs, const char *scope, const struct fig_line *lines, size_t n,
	       unsigned human, FILE *out)
{
	struct ctx c = { .fs = fs, .scope = SIZE_MAX, .human = human, .out = out };

	if (fs->err || fs->depth) {
		fprintf(stderr, "imprint: report: %s\n", strerror(fs->err ? -fs->err : EINVAL));
		return fs->err ? fs->err : -EINVAL;
	}
	if (scope) {
		const struct fig *f = figs_get(fs, SIZE_MAX, scope);

		if (!f || !is_container(f)) {
			fprintf(stderr, "imprint: report template: no scope '%s'\n", scope);
			return -EINVAL;
		}
		c.scope = (size_t)(f - fs->f);
	}
	for (size_t k = 0; k < n;) {
		size_t used = 1;
		int ret = 0;

		if (!lines[k].each && !all_hold(&c, NULL, lines[k].when))
			;
		else if (lines[k].rows)
			ret = put_rows(&c, &lines[k], n - k, &used);
		else
			ret = put_fmt(&c, NULL, lines[k].fmt);
		if (ret)
			return ret;
		k += used;
	}
	return 0;
}
