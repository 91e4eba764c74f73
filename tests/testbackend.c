/* testbackend.c - a backend for tests that wraps a real one: counts its calls, injects failures */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "testbackend.h"

struct wrap_state wrap;

/* What the wrapper keeps in b->priv: the inner backend, and the wrapped content source. */
struct wrap_priv {
	struct backend inner;
	struct content_source cs;
	const struct content_source *inner_cs;
};

#define GUARD 4096

/* The inner fill into a buffer of guard bytes: those past len must be as they were. */
static int guarded_fill(const struct wrap_priv *w, uint64_t file, uint64_t offset, void *buf,
			size_t len)
{
	unsigned char *tmp = malloc(len + GUARD);
	int ret;

	if (!tmp)
		return -ENOMEM;
	memset(tmp, 0xa5, len + GUARD);
	ret = w->inner_cs->fill(w->inner_cs, file, offset, tmp, len);
	for (size_t i = len; i < len + GUARD; i++) {
		if (tmp[i] != 0xa5) {
			__atomic_add_fetch(&wrap.overruns, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	memcpy(buf, tmp, len);
	free(tmp);
	return ret;
}

static int wrap_fill(const struct content_source *cs, uint64_t file, uint64_t offset, void *buf,
		     size_t len)
{
	const struct wrap_priv *w = cs->priv;

	if (file == wrap.fail_file)
		return -EIO;
	__atomic_add_fetch(&wrap.fills, 1, __ATOMIC_RELAXED);
	if (wrap.guard)
		return guarded_fill(w, file, offset, buf, len);
	return w->inner_cs->fill(w->inner_cs, file, offset, buf, len);
}

/* Copy the inner backend's message up, where the core looks for it. */
static int up(struct backend *b, struct wrap_priv *w, int ret)
{
	if (ret)
		memcpy(b->errmsg, w->inner.errmsg, sizeof(b->errmsg));
	return ret;
}

static int wrap_open(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	struct wrap_priv *w;
	int ret;

	wrap.opens++;
	if (wrap.fail_open)
		return wrap.fail_open;
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	backend_init(&w->inner, wrap.inner);
	ret = backend_open(&w->inner, o, pl);
	if (ret) {
		up(b, w, ret);
		free(w);
		return ret;
	}
	b->priv = w;
	return 0;
}

static int wrap_layout_request(struct backend *b, const struct plan *pl, struct layout_request *rq,
			       struct freemap *fm)
{
	struct wrap_priv *w = b->priv;

	wrap.layout_requests++;
	return up(b, w, backend_layout_request(&w->inner, pl, rq, fm));
}

static int wrap_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
			 const struct content_source *cs, struct create_result *res)
{
	struct wrap_priv *w = b->priv;

	wrap.populates++;
	wrap.populate_had_layout = lo != NULL;
	w->cs = *cs;
	w->cs.fill = wrap_fill;
	w->cs.fill_memo = NULL; /* every byte through wrap_fill, parts too */
	w->cs.priv = w;
	w->inner_cs = cs;
	return up(b, w, backend_populate(&w->inner, pl, lo, &w->cs, res));
}

static int wrap_finish(struct backend *b)
{
	struct wrap_priv *w = b->priv;
	int ret;

	wrap.finishes++;
	ret = up(b, w, backend_finish(&w->inner));
	if (!ret) {
		free(w);
		b->priv = NULL;
	}
	return ret;
}

static void wrap_abort(struct backend *b)
{
	struct wrap_priv *w = b->priv;

	wrap.aborts++;
	if (!w)
		return;
	backend_abort(&w->inner);
	free(w);
	b->priv = NULL;
}

void wrap_reset(const struct backend_ops *inner, struct backend_ops *ops)
{
	memset(&wrap, 0, sizeof(wrap));
	wrap.inner = inner;
	wrap.fail_file = UINT64_MAX;
	/* the inner backend's description, every hook wrapped but estimate */
	*ops = *inner;
	ops->open = wrap_open;
	ops->layout_request = inner->layout_request ? wrap_layout_request : NULL;
	ops->populate = wrap_populate;
	ops->finish = wrap_finish;
	ops->abort = wrap_abort;
}
