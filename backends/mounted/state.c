/* state.c - what every part of the mounted-path backend uses: cancellation and its message */
#include <stdarg.h>
#include <stdio.h>

#include "backends/mounted/mounted.h"

int mnt_cancelled(const struct mnt_state *st)
{
	return create_cancelled(st->o);
}

int mnt_err(struct mnt_state *st, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->b->errmsg, sizeof(st->b->errmsg), fmt, ap);
	va_end(ap);
	return ret;
}
