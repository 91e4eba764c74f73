/* params_int.h - inside params: the table's types and what params*.c share */
#ifndef IMPRINT_MODEL_PARAMS_INT_H
#define IMPRINT_MODEL_PARAMS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "model/params.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in messages: "1 GiB", "1.5 GiB", "512 bytes". */
#define MSG_BYTES (FMT_BYTES_EXACT | FMT_BYTES_DIGITS(1) | FMT_BYTES_WORD)

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* Derived image sizes are rounded up to this, a multiple of any block size. */
#define SIZE_GRANULE (4 * MiB)

/* Longest key and value params_set() accepts, terminating NUL included. */
#define KEY_MAX	  64
#define VALUE_MAX 128

enum param_type {
	PT_SEED,   /* uint64_t, or the word 'random' */
	PT_UINT,   /* uint32_t */
	PT_INT,	   /* int64_t */
	PT_DOUBLE, /* double, finite */
	PT_SHARE,  /* double within [0, 1] */
	PT_SIZE,   /* uint64_t bytes, binary suffixes */
	PT_COUNT,  /* uint64_t, decimal suffixes */
	PT_ENUM,   /* an int-sized enum, named by choices[] */
	PT_UUID,   /* unsigned char[16], an RFC 4122 UUID; all zero = derived */
	PT_NAME,   /* char[PARAMS_NAME_MAX], one of the names supplied (params_supply_names) */
};

/* Flags of a table entry: which bounds apply, and whether 0 means derived. */
#define PF_MIN	    0x01
#define PF_MIN_OPEN 0x02 /* value > min rather than >= min */
#define PF_MAX	    0x04
#define PF_MAX_OPEN 0x08 /* value < max rather than <= max */
#define PF_DERIVED  0x10 /* 0 = filled in by params_resolve() */

union param_value {
	uint64_t u; /* PT_SEED, PT_UINT, PT_SIZE, PT_COUNT */
	int64_t i;  /* PT_INT */
	double d;   /* PT_DOUBLE, PT_SHARE */
	int e;	    /* PT_ENUM */
	unsigned char id[16]; /* PT_UUID */
	char name[PARAMS_NAME_MAX]; /* PT_NAME */
};

/* The names of a PT_NAME entry and its default, as supplied; both NULL until then. */
struct param_names {
	const char *const *list;
	const char *def;
};

struct param_def {
	const char *name;  /* the field name, normalized: lowercase, '_' */
	const char *group; /* heading in the printed configuration */
	enum param_type type;
	const char *unit;
	size_t offset; /* into struct params */
	size_t size;   /* of the field, checked against type */
	union param_value def;
	unsigned int flags;
	double min, max;
	const char *const *choices; /* PT_ENUM: names by value, NULL-ended */
	struct param_names *names;  /* PT_NAME: where params_supply_names() puts them */
	const char *desc;
};

/* ---- params_util.c: what params*.c share; it calls none of them */

/* Format a message into err (when not NULL), after "where: " when where is given. */
void params_set_error(struct param_error *err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Storage size a type needs; the table's FIELD() sizes must match. */
size_t params_type_size(enum param_type t);
/* s without its leading blanks, its trailing ones cut off in place */
char *params_trim(char *s);

/* The value of parameter d in p */
union param_value params_value_get(const struct params *p, const struct param_def *d);

/* The default of entry d (a PT_NAME's as supplied, "" until then). */
union param_value params_default(const struct param_def *d);

/* The names a PT_ENUM or PT_NAME entry takes, NULL-ended (none for a PT_NAME not supplied). */
const char *const *params_choices(const struct param_def *d);

/* Which of params_choices(d) value v is, or -1 (an enum out of range, an unknown name). */
int params_choice_index(const struct param_def *d, union param_value v);

/* ---- params_table.c: every parameter, in the order they are printed */

extern const struct param_def param_table[96];

/*
 * ---- params_parse.c
 *
 * params_copy_trimmed() and params_normalize_key() clean a key or value
 * into buf; param_index() and params_lookup() find a key in the table (-1
 * when unknown); params_range_error() and params_enum_error() say what is
 * allowed; params_value_ok() checks a value against the table;
 * params_parse_value() reads one.  Those returning int return 0 or a
 * negative errno.
 */

int params_copy_trimmed(char *buf, size_t len, const char *s);
int params_normalize_key(char *buf, size_t len, const char *key);
int param_index(const char *norm);
int params_lookup(const char *key);
void params_range_error(struct param_error *err, const char *where,
			const struct param_def *d, const char *got);
void params_enum_error(struct param_error *err, const char *where,
		       const struct param_def *d, const char *got);
int params_value_ok(const struct param_def *d, union param_value v);
int params_parse_value(const struct param_def *d, const char *text, const char *where,
		       union param_value *v, struct param_error *err);

/* ---- params_print.c: a value, its bounds or its choices as text, into buf */

void params_fmt_double(double v, char *buf, size_t len);
void params_fmt_size(uint64_t v, char *buf, size_t len);
/* "0" for the nil UUID (derived), else its 36-character text */
void params_fmt_uuid(const unsigned char id[16], char *buf, size_t len);
void params_fmt_value(const struct param_def *d, union param_value v, char *buf, size_t len);
void params_fmt_interval(const struct param_def *d, char *buf, size_t len);
void params_fmt_range(const struct param_def *d, char *buf, size_t len);
void params_fmt_allowed(const struct param_def *d, char *buf, size_t len);

#endif
