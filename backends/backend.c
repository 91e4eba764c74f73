/* backend.c - the wrappers through which the core calls a backend's hooks */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "util/strutil.h"

void backend_init(struct backend *b, const struct backend_ops *ops)
{
	memset(b, 0, sizeof(*b));
	b->ops = ops;
}

/* -ENOSYS with a message naming the backend and what it lacks. */
static int unsupported(struct backend *b, const char *what)
{
	snprintf(b->errmsg, sizeof(b->errmsg), "the %s backend cannot %s", b->ops->name, what);
	return -ENOSYS;
}

int backend_estimate(const struct backend_ops *ops, const struct plan *pl,
		     struct backend_estimate *e)
{
	memset(e, 0, sizeof(*e));
	if (!ops || !pl)
		return -EINVAL;
	if (!ops->estimate)
		return -ENOSYS;
	return ops->estimate(pl, e);
}

int backend_open(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	if (!b || !b->ops || !o || !pl)
		return -EINVAL;
	b->errmsg[0] = '\0';
	if (!b->ops->open)
		return unsupported(b, "open a target");
	return b->ops->open(b, o, pl);
}

int backend_layout_request(struct backend *b, const struct plan *pl, struct layout_request *rq,
			   struct freemap *fm)
{
	if (!b || !b->ops || !pl || !rq || !fm)
		return -EINVAL;
	b->errmsg[0] = '\0';
	if (!(b->ops->caps & BACKEND_PLACES_BLOCKS) || !b->ops->layout_request)
		return unsupported(b, "place blocks");
	return b->ops->layout_request(b, pl, rq, fm);
}

int backend_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
		     const struct content_source *cs, struct create_result *res)
{
	if (!b || !b->ops || !pl || !cs || !res)
		return -EINVAL;
	b->errmsg[0] = '\0';
	if (!b->ops->populate)
		return unsupported(b, "write a plan");
	/* a block-placing backend writes exactly a layout, and only it */
	if (!(b->ops->caps & BACKEND_PLACES_BLOCKS) != !lo)
		return -EINVAL;
	return b->ops->populate(b, pl, lo, cs, res);
}

int backend_finish(struct backend *b)
{
	if (!b || !b->ops)
		return -EINVAL;
	b->errmsg[0] = '\0';
	if (!b->ops->finish)
		return 0;
	return b->ops->finish(b);
}

void backend_abort(struct backend *b)
{
	if (b && b->ops && b->ops->abort)
		b->ops->abort(b);
}

int backend_set_err(struct backend *b, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
	return ret;
}
