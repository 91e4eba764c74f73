/* params_util.c - what params*.c share, calling none of them: a parameter's value, error messages */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/params.h"
#include "model/params_int.h"

union param_value params_value_get(const struct params *p, const struct param_def *d)
{
	const char *f = (const char *)p + d->offset;
	union param_value v = { .u = 0 };
	uint32_t u32;

	switch (d->type) {
	case PT_UINT:
		memcpy(&u32, f, sizeof(u32));
		v.u = u32;
		break;
	case PT_INT:
		memcpy(&v.i, f, sizeof(v.i));
		break;
	case PT_DOUBLE:
	case PT_SHARE:
		memcpy(&v.d, f, sizeof(v.d));
		break;
	case PT_ENUM:
		memcpy(&v.e, f, sizeof(v.e));
		break;
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		memcpy(&v.u, f, sizeof(v.u));
		break;
	}
	return v;
}
void params_set_error(struct param_error *err, const char *where, const char *fmt, ...)
{
	va_list ap;
	size_t n = 0;

	if (!err)
		return;
	if (where && *where)
		n = (size_t)snprintf(err->msg, sizeof(err->msg), "%s: ", where);
	if (n >= sizeof(err->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
}
