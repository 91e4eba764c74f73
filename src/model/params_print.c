/* params_print.c - parameters as text and JSON: values, bounds, the configuration and the list */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/params_int.h"
#include "util/rng.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static const char *const type_names[] = {
	[PT_SEED] = "seed",
	[PT_UINT] = "uint",
	[PT_INT] = "int",
	[PT_DOUBLE] = "double",
	[PT_SHARE] = "share",
	[PT_SIZE] = "size",
	[PT_COUNT] = "count",
	[PT_ENUM] = "enum",
	[PT_UUID] = "uuid",
	[PT_NAME] = "enum", /* a choice among names, as an enum's, though another stage supplies them */
};

/* --- formatting ---------------------------------------------------------- */

/* Shortest of %.15g, %.16g, %.17g that strtod() reads back as v exactly. */
void params_fmt_double(double v, char *buf, size_t len)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Exact bytes, with the largest binary suffix that divides them. */
void params_fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char suffix[] = "KMGTPE";

	for (int i = 5; i >= 0 && v; i--) {
		unsigned int shift = 10 * (unsigned int)(i + 1);

		if (!(v & ((UINT64_C(1) << shift) - 1))) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift, suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

void params_fmt_uuid(const unsigned char id[16], char *buf, size_t len)
{
	static const unsigned char nil[16];

	if (!memcmp(id, nil, sizeof(nil))) {
		snprintf(buf, len, "0");
		return;
	}
	snprintf(buf, len,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", id[0],
		 id[1], id[2], id[3], id[4], id[5], id[6], id[7], id[8], id[9], id[10], id[11],
		 id[12], id[13], id[14], id[15]);
}

/* A value as the config file spells it. */
void params_fmt_value(const struct param_def *d, union param_value v, char *buf, size_t len)
{
	switch (d->type) {
	case PT_SEED:
	case PT_UINT:
	case PT_COUNT:
		snprintf(buf, len, "%" PRIu64, v.u);
		break;
	case PT_INT:
		snprintf(buf, len, "%" PRId64, v.i);
		break;
	case PT_DOUBLE:
	case PT_SHARE:
		params_fmt_double(v.d, buf, len);
		break;
	case PT_SIZE:
		params_fmt_size(v.u, buf, len);
		break;
	case PT_ENUM: {
		int i = params_choice_index(d, v);

		if (i >= 0)
			snprintf(buf, len, "%s", d->choices[i]);
		else
			snprintf(buf, len, "%d", v.e);
		break;
	}
	case PT_NAME:
		snprintf(buf, len, "%s", v.name);
		break;
	case PT_UUID:
		params_fmt_uuid(v.id, buf, len);
		break;
	}
}

/* "[0, 1)", "(0, 1]": the interval of an entry with both bounds. */
void params_fmt_interval(const struct param_def *d, char *buf, size_t len)
{
	char lo[32], hi[32];

	params_fmt_double(d->min, lo, sizeof(lo));
	params_fmt_double(d->max, hi, sizeof(hi));
	snprintf(buf, len, "%c%s, %s%c", d->flags & PF_MIN_OPEN ? '(' : '[', lo, hi,
		 d->flags & PF_MAX_OPEN ? ')' : ']');
}

/* What an entry's range allows, as a phrase: "> 0", "in [0, 1)", "". */
void params_fmt_range(const struct param_def *d, char *buf, size_t len)
{
	char num[32];

	if ((d->flags & (PF_MIN | PF_MAX)) == (PF_MIN | PF_MAX)) {
		size_t n = (size_t)snprintf(buf, len, "in ");

		if (n < len)
			params_fmt_interval(d, buf + n, len - n);
	} else if (d->flags & PF_MIN) {
		params_fmt_double(d->min, num, sizeof(num));
		snprintf(buf, len, "%s %s", d->flags & PF_MIN_OPEN ? ">" : ">=", num);
	} else if (d->flags & PF_MAX) {
		params_fmt_double(d->max, num, sizeof(num));
		snprintf(buf, len, "%s %s", d->flags & PF_MAX_OPEN ? "<" : "<=", num);
	} else {
		buf[0] = '\0';
	}
}

/* What an entry accepts, for the parameter list: "ext2, ext3, ext4", "> 0". */
void params_fmt_allowed(const struct param_def *d, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	switch (d->type) {
	case PT_ENUM:
	case PT_NAME: {
		const char *const *c = params_choices(d);

		for (int i = 0; c[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", c[i]);
		return;
	}
	case PT_SEED:
		snprintf(buf, len, "0..18446744073709551615 or 'random'");
		return;
	case PT_UUID:
		snprintf(buf, len, "0 = derived, or a UUID like 0123abcd-4567-89ab-cdef-0123456789ab");
		return;
	case PT_SHARE:
		params_fmt_interval(d, buf, len);
		return;
	default:
		break;
	}
	if (d->flags & PF_DERIVED) {
		snprintf(buf, len, "0 = derived, or %s", d->type == PT_SIZE ?
			 "a size like 4096, 512M, 1.5G" : "a count like 1000, 10K, 2.5M");
		return;
	}
	if ((d->flags & (PF_MIN | PF_MAX)) == (PF_MIN | PF_MAX)) {
		params_fmt_interval(d, buf, len);
		return;
	}
	params_fmt_range(d, buf, len);
	if (!buf[0])
		snprintf(buf, len, d->type == PT_INT ? "any integer" : "any number");
}

void params_print_config(const struct params *p, FILE *out)
{
	const char *group = NULL;
	char buf[64];

	fprintf(out, "# imprint %s resolved configuration\n", PACKAGE_VERSION);
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];

		if (!group || strcmp(group, d->group)) {
			group = d->group;
			fprintf(out, "\n# %s\n", group);
		}
		params_fmt_value(d, params_value_get(p, d), buf, sizeof(buf));
		fprintf(out, "%s = %s\n", d->name, buf);
		if (p->time_ref_from_env && !strcmp(d->name, "time_ref"))
			fprintf(out, "# time_ref from SOURCE_DATE_EPOCH\n");
	}
	tables_print(p, out);
}

/*
 * A key of the setting lines of p's resolved configuration: those of the
 * change model (names starting with gen_) when changes, else all others.
 */
static uint64_t settings_key(const struct params *p, int changes, const char *stream)
{
	char *text = NULL, *w, *line, *save = NULL;
	size_t len = 0;
	uint64_t key;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return rng_stream_key(p->seed, stream);
	params_print_config(p, f);
	if (fclose(f) != 0 || !text) {
		free(text);
		return rng_stream_key(p->seed, stream);
	}
	/* the setting lines only: the header names the program's version */
	w = text;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t n = strlen(line);

		if (line[0] == '#' || !strncmp(line, "gen_", 4) != !!changes)
			continue;
		memmove(w, line, n);
		w += n;
		*w++ = '\n';
	}
	*w = '\0';
	key = rng_stream_key(p->seed, text);
	free(text);
	return key;
}

uint64_t params_identity(const struct params *p)
{
	/* the change model is not the image's identity: generations keep their UUIDs */
	uint64_t key = settings_key(p, 0, "identity");

	/* the included files are part of what the image is */
	return p->reserved_key ? rng_mix64(key ^ p->reserved_key) : key;
}

uint64_t params_change_identity(const struct params *p)
{
	return settings_key(p, 1, "changes");
}

void params_fs_uuid(const struct params *p, const char *stream, char out[37])
{
	static const unsigned char nil[16];

	if (memcmp(p->uuid, nil, sizeof(nil)))
		params_fmt_uuid(p->uuid, out, 37);
	else
		rng_uuid(params_identity(p), stream, out);
}

/* The default column: the value, or "derived" for 0 = derived. */
static void fmt_default(const struct param_def *d, char *buf, size_t len)
{
	if (d->flags & PF_DERIVED && !d->def.u)
		snprintf(buf, len, "derived");
	else
		params_fmt_value(d, params_default(d), buf, len);
}

/* Names only, one line per group, wrapped: the parameter part of --help. */
void params_print_names(FILE *out, unsigned width)
{
	const char *group = NULL;
	unsigned col = 0;

	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		unsigned len = (unsigned)strlen(d->name);

		if (!group || strcmp(group, d->group) != 0) {
			if (group)
				fputc('\n', out);
			group = d->group;
			col = (unsigned)fprintf(out, "  %-20s", group);
		} else if (col + len + 1 > width) {
			col = (unsigned)fprintf(out, "\n  %-20s", "") - 1;
		} else {
			col += (unsigned)fprintf(out, " ");
		}
		col += (unsigned)fprintf(out, "%s", d->name);
	}
	fputc('\n', out);
}

void params_print_list(FILE *out)
{
	int wn = 4, wt = 4, wu = 4, wd = 7;
	char def[64], allowed[128];

	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		int n;

		fmt_default(d, def, sizeof(def));
		if ((n = (int)strlen(d->name)) > wn)
			wn = n;
		if ((n = (int)strlen(type_names[d->type])) > wt)
			wt = n;
		if ((n = (int)strlen(d->unit)) > wu)
			wu = n;
		if ((n = (int)strlen(def)) > wd)
			wd = n;
	}
	fprintf(out, "%-*s  %-*s  %-*s  %-*s  %s\n", wn, "NAME", wt, "TYPE", wu, "UNIT",
		wd, "DEFAULT", "DESCRIPTION");
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];

		fmt_default(d, def, sizeof(def));
		params_fmt_allowed(d, allowed, sizeof(allowed));
		fprintf(out, "%-*s  %-*s  %-*s  %-*s  %s (allowed: %s)\n", wn, d->name, wt,
			type_names[d->type], wu, d->unit[0] ? d->unit : "-", wd, def,
			d->desc, allowed);
	}
}

/* A value as JSON: numbers as numbers (doubles round-trip), enums as names. */
static struct json_object *json_value(const struct param_def *d, union param_value v)
{
	char buf[64];

	switch (d->type) {
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		return json_object_new_uint64(v.u);
	case PT_UINT:
		return json_object_new_int64((int64_t)v.u);
	case PT_INT:
		return json_object_new_int64(v.i);
	case PT_DOUBLE:
	case PT_SHARE:
		params_fmt_double(v.d, buf, sizeof(buf));
		return json_object_new_double_s(v.d, buf);
	case PT_ENUM:
	case PT_UUID:
	case PT_NAME:
		params_fmt_value(d, v, buf, sizeof(buf));
		return json_object_new_string(buf);
	}
	return NULL;
}

static void json_print(struct json_object *obj, FILE *out)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(obj,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
}

void params_print_config_json(const struct params *p, FILE *out)
{
	struct json_object *obj = json_object_new_object();

	if (!obj)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];

		json_object_object_add(obj, d->name, json_value(d, params_value_get(p, d)));
	}
	tables_add_json(p, obj);
	json_print(obj, out);
	json_object_put(obj);
}

void params_print_list_json(FILE *out)
{
	struct json_object *arr = json_object_new_array();
	char allowed[128];

	if (!arr)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		struct json_object *o = json_object_new_object();

		if (!o)
			break;
		params_fmt_allowed(d, allowed, sizeof(allowed));
		json_object_object_add(o, "name", json_object_new_string(d->name));
		json_object_object_add(o, "group", json_object_new_string(d->group));
		json_object_object_add(o, "type", json_object_new_string(type_names[d->type]));
		json_object_object_add(o, "unit", json_object_new_string(d->unit));
		json_object_object_add(o, "default", json_value(d, params_default(d)));
		json_object_object_add(o, "derived",
				       json_object_new_boolean(!!(d->flags & PF_DERIVED)));
		json_object_object_add(o, "description", json_object_new_string(d->desc));
		json_object_object_add(o, "allowed", json_object_new_string(allowed));
		if (d->type == PT_ENUM || d->type == PT_NAME) {
			const char *const *c = params_choices(d);
			struct json_object *names = json_object_new_array();

			for (int j = 0; names && c[j]; j++)
				json_object_array_add(names, json_object_new_string(c[j]));
			json_object_object_add(o, "values", names);
		}
		json_object_array_add(arr, o);
	}
	tables_list_json(arr);
	json_print(arr, out);
	json_object_put(arr);
}
