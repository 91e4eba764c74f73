/* figures.h - one description of a report's figures, rendered to text and to JSON
 *
 * A report builds its figures once, in JSON order, into a struct figs (keys,
 * typed values, nested objects and arrays); figs_json() renders them to a
 * json-c object and figs_print() to text through a table of line templates
 * that name the figures by key.  A figure marked text-only (a condition, a
 * percentage, a label) is left out of the JSON.
 */
#ifndef IMPRINT_FIGURES_H
#define IMPRINT_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct json_object;

enum fig_type {
	FIG_U64,
	FIG_I64,
	FIG_DOUBLE,
	FIG_STRING,
	FIG_BOOL,	/* JSON true or false; for the text, 1 or 0 */
	FIG_NULL,	/* JSON null; absent for the text's conditions */
	FIG_JSON,	/* a json-c value passed through (a reference held) */
	FIG_OBJECT,	/* a nested object: the figures up to figs_end() */
	FIG_ARRAY,	/* an array: its elements up to figs_end() */
	FIG_MERGE,	/* an object whose keys the JSON adds to its parent's (a key already there
			   keeps its place and takes the new value, as json_object_object_add does) */
};

struct fig {
	char *key;		/* NULL for an array's element */
	enum fig_type type;
	bool text_only;
	unsigned char fixed;	/* a double: 1 + the decimals the JSON writes it with (0: json-c's) */
	size_t end;		/* containers: the index after their last figure */
	union {
		uint64_t u;
		int64_t i;
		double d;
		char *s;
		struct json_object *j;
	} v;
};

struct figs {
	struct fig *f;
	size_t n, cap;
	size_t open[8];		/* the containers not ended yet */
	unsigned depth;
	int err;		/* the first error (-ENOMEM, -EINVAL): every later call does nothing */
};

void figs_init(struct figs *fs);
void figs_release(struct figs *fs);

/* Add one figure under key (NULL inside an array); keys and strings are copied. */
void figs_u64(struct figs *fs, const char *key, uint64_t v);
void figs_i64(struct figs *fs, const char *key, int64_t v);
void figs_double(struct figs *fs, const char *key, double v);
/* A double the JSON writes with that many decimals ("%.*f"). */
void figs_fixed(struct figs *fs, const char *key, double v, int decimals);
void figs_bool(struct figs *fs, const char *key, bool v);
void figs_string(struct figs *fs, const char *key, const char *s);
void figs_null(struct figs *fs, const char *key);
/* j is passed through to the JSON (a reference taken); NULL is JSON null. */
void figs_json_value(struct figs *fs, const char *key, struct json_object *j);
/* An array of n numbers. */
void figs_u64s(struct figs *fs, const char *key, const uint64_t *v, size_t n);
void figs_doubles(struct figs *fs, const char *key, const double *v, size_t n);
/* Open a container (FIG_OBJECT, FIG_ARRAY or FIG_MERGE); figs_end() closes the last one. */
void figs_open(struct figs *fs, enum fig_type type, const char *key);
void figs_end(struct figs *fs);

/* A text-only figure: in the text's conditions and lines, left out of the JSON (a
 * percentage, a label, a condition).  figs_text_open() opens a text-only container,
 * whose figures the JSON leaves out with it (the figures inside are added with the
 * plain calls).  These are the only way to add a text-only figure. */
void figs_text_u64(struct figs *fs, const char *key, uint64_t v);
void figs_text_double(struct figs *fs, const char *key, double v);
void figs_text_string(struct figs *fs, const char *key, const char *s);
void figs_text_open(struct figs *fs, enum fig_type type, const char *key);

/* The figure at path ("key", "obj.key", "array.3"), looked up in scope (an index of a
 * container, or SIZE_MAX for the top level); NULL if there is none. */
const struct fig *figs_get(const struct figs *fs, size_t scope, const char *path);

/* The JSON figures added to into (a new object when into is NULL): the object, or NULL
 * (out of memory, or fs->err set). */
struct json_object *figs_json(const struct figs *fs, struct json_object *into);

/* A row's label: the text for element i of n of an array, into buf. */
typedef void fig_label_fn(size_t i, size_t n, char *buf, size_t len);

/* One template of the text.
 * when: space-separated conditions, all of which must hold (NULL: always):
 *   "key" the figure is there, not null, not zero (an empty string is zero);
 *   "?key" it is there and not null; a leading '!' negates either.
 * fmt: literal text with {path} or {path:spec|empty} for a figure; spec is printf's
 *   flags, width and precision ("-20", "8.5"), the conversion coming from the type
 *   (a double is printed with 'f'), or "h" for a human byte size ("11h": in 11 columns);
 *   empty is printed instead of an empty string or a null.
 * rows: the path of an array or an object: fmt is printed once for each element, its
 *   paths looked up in the element first; "{.}" is the element, "{@}" its key (an
 *   object's), "{#}" its index (and a path
 *   component "#" too: "achieved.#"), "{label}" label's text for it, "{share}" the
 *   element divided by the figure per (0 if that is 0); skip_zero skips elements
 *   equal to 0.
 * each: when is a row's condition: consecutive such lines of the same rows are one
 *   group, each element printed by the first whose conditions hold.
 */
struct fig_line {
	const char *when;
	const char *fmt;
	const char *rows;
	fig_label_fn *label;
	const char *per;
	bool skip_zero;
	bool each;
};

/* Print the lines whose conditions hold, paths looked up in the container at scope
 * first (NULL: the top only), human sizes in fmt_bytes style human; 0, or -EINVAL for
 * a template naming no figure, or fs->err (a message printed). */
int figs_print(const struct figs *fs, const char *scope, const struct fig_line *lines, size_t n,
	       unsigned human, FILE *out);

#endif
