/* err.c - the loopfs backend's message setter, shared by its parts */
#include <stdarg.h>
#include <stdio.h>

#include "backends/loopfs/loopfs.h"

int lfs_err(struct lfs_state *st, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(st->b->errmsg, sizeof(st->b->errmsg), fmt, ap);
	va_end(ap);
	return ret;
}
