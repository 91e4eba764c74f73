/* params_util.c - what params*.c share, calling none of them: a parameter's value, error messages */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/params.h"
#include "model/params_int.h"
#include "util/textin.h"

size_t params_type_size(enum param_type t)
{
	switch (t) {
	case PT_UINT:
		return sizeof(uint32_t);
	case PT_INT:
		return sizeof(int64_t);
	case PT_DOUBLE:
	case PT_SHARE:
		return sizeof(double);
	case PT_ENUM:
		return sizeof(int);
	case PT_UUID:
		return 16;
	case PT_NAME:
		return PARAMS_NAME_MAX;
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		break;
	}
	return sizeof(uint64_t);
}

union param_value params_value_get(const struct params *p, const struct param_def *d)
{
	const char *f = (const char *)p + d->offset;
	union param_value v = { .u = 0 };
	uint32_t u32;

	/* each member starts the union: the field's bytes are its, but a PT_UINT's */
	if (d->type == PT_UINT) {
		memcpy(&u32, f, sizeof(u32));
		v.u = u32;
	} else {
		memcpy(&v, f, params_type_size(d->type));
	}
	return v;
}
char *params_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

void params_set_error(struct param_error *err, const char *where, const char *fmt, ...)
{
	char raw[sizeof(err->msg)];
	va_list ap;
	size_t n = 0;

	if (!err)
		return;
	raw[0] = '\0';
	if (where && *where)
		n = (size_t)snprintf(raw, sizeof(raw), "%s: ", where);
	if (n < sizeof(raw)) {
		va_start(ap, fmt);
		vsnprintf(raw + n, sizeof(raw) - n, fmt, ap);
		va_end(ap);
	}
	text_escape(err->msg, sizeof(err->msg), raw, strlen(raw));
}

union param_value params_default(const struct param_def *d)
{
	union param_value v = d->def;

	if (d->type == PT_NAME) {
		memset(&v, 0, sizeof(v));
		if (d->names->def)
			snprintf(v.name, sizeof(v.name), "%s", d->names->def);
	}
	return v;
}

const char *const *params_choices(const struct param_def *d)
{
	static const char *const none[] = { NULL };

	if (d->type == PT_NAME)
		return d->names->list ? d->names->list : none;
	return d->type == PT_ENUM ? d->choices : none;
}

int params_choice_index(const struct param_def *d, union param_value v)
{
	const char *const *c = params_choices(d);

	for (int i = 0; c[i]; i++)
		if (d->type == PT_NAME ? !strcmp(c[i], v.name) : i == v.e)
			return i;
	return -1;
}
