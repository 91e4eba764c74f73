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

uint64_t backend_fs_size(const struct backend_ops *ops, const char *path)
{
	if (!ops || !path || !ops->fs_size)
		return 0;
	return ops->fs_size(path);
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

/* ops' editor, or NULL when it does not declare BACKEND_EVOLVES or has none. */
static const struct backend_edit_ops *editor(const struct backend_ops *ops)
{
	return ops && (ops->caps & BACKEND_EVOLVES) ? ops->edit : NULL;
}

/* -ENOSYS into msg: ops cannot edit (open, undo). */
static int edit_unsupported(const struct backend_ops *ops, char *msg, size_t len)
{
	snprintf(msg, len, "the %s backend cannot edit a file system in place", ops->name);
	return -ENOSYS;
}

int backend_edit_open(const struct backend_ops *ops, const char *path, int rw, int64_t now,
		      const struct evolve_mark *mark, struct backend_edit **out, char *msg,
		      size_t len)
{
	if (out)
		*out = NULL;
	if (!ops || !path || !out || !msg || !len)
		return -EINVAL;
	msg[0] = '\0';
	if (!editor(ops) || !editor(ops)->open)
		return edit_unsupported(ops, msg, len);
	return editor(ops)->open(path, rw, now, rw ? mark : NULL, out, msg, len);
}

int backend_edit_usage(const struct backend_ops *ops, const struct backend_edit *e,
		       struct backend_edit_usage *u)
{
	if (!e || !u)
		return -EINVAL;
	memset(u, 0, sizeof(*u));
	if (!editor(ops) || !editor(ops)->usage)
		return -ENOSYS;
	editor(ops)->usage(e, u);
	return 0;
}

int backend_edit_close(const struct backend_ops *ops, struct backend_edit *e)
{
	if (!e)
		return 0;
	if (!editor(ops) || !editor(ops)->close)
		return -ENOSYS;
	return editor(ops)->close(e);
}

void backend_edit_abandon(const struct backend_ops *ops, struct backend_edit *e)
{
	if (e && editor(ops) && editor(ops)->abandon)
		editor(ops)->abandon(e);
}

int backend_edit_undo(const struct backend_ops *ops, const char *path, char *msg, size_t len)
{
	if (!ops || !path || !msg || !len)
		return -EINVAL;
	msg[0] = '\0';
	if (!editor(ops) || !editor(ops)->undo)
		return edit_unsupported(ops, msg, len);
	return editor(ops)->undo(path, msg, len);
}

/* ops' editor's hook, or NULL (none, or no editor). */
#define EDIT_HOOK(ops, hook) (editor(ops) ? editor(ops)->hook : NULL)

int backend_edit_stat(const struct backend_ops *ops, struct backend_edit *e, const char *path,
		      struct backend_edit_stat *st)
{
	if (!e || !path || !st)
		return -EINVAL;
	return EDIT_HOOK(ops, stat) ? editor(ops)->stat(e, path, st) : -ENOSYS;
}

int backend_edit_unlink(const struct backend_ops *ops, struct backend_edit *e, const char *path)
{
	if (!e || !path)
		return -EINVAL;
	return EDIT_HOOK(ops, unlink) ? editor(ops)->unlink(e, path) : -ENOSYS;
}

int backend_edit_rename(const struct backend_ops *ops, struct backend_edit *e, const char *from,
			const char *to)
{
	if (!e || !from || !to)
		return -EINVAL;
	return EDIT_HOOK(ops, rename) ? editor(ops)->rename(e, from, to) : -ENOSYS;
}

int backend_edit_mkdir(const struct backend_ops *ops, struct backend_edit *e, const char *path)
{
	if (!e || !path)
		return -EINVAL;
	return EDIT_HOOK(ops, mkdir) ? editor(ops)->mkdir(e, path) : -ENOSYS;
}

int backend_edit_rmdir(const struct backend_ops *ops, struct backend_edit *e, const char *path)
{
	if (!e || !path)
		return -EINVAL;
	return EDIT_HOOK(ops, rmdir) ? editor(ops)->rmdir(e, path) : -ENOSYS;
}

int backend_edit_set_meta(const struct backend_ops *ops, struct backend_edit *e, const char *path,
			  const struct plan_meta *m)
{
	if (!e || !path || !m)
		return -EINVAL;
	return EDIT_HOOK(ops, set_meta) ? editor(ops)->set_meta(e, path, m) : -ENOSYS;
}

int backend_edit_file_open(const struct backend_ops *ops, struct backend_edit *e,
			   const char *path, int create, int trunc, struct backend_edit_file **out)
{
	if (out)
		*out = NULL;
	if (!e || !path || !out)
		return -EINVAL;
	return EDIT_HOOK(ops, file_open) ? editor(ops)->file_open(e, path, create, trunc, out)
					 : -ENOSYS;
}

int backend_edit_file_pwrite(const struct backend_ops *ops, struct backend_edit_file *f,
			     const void *buf, size_t n, uint64_t off)
{
	if (!f || (!buf && n))
		return -EINVAL;
	return EDIT_HOOK(ops, file_pwrite) ? editor(ops)->file_pwrite(f, buf, n, off) : -ENOSYS;
}

int backend_edit_file_truncate(const struct backend_ops *ops, struct backend_edit_file *f,
			       uint64_t size)
{
	if (!f)
		return -EINVAL;
	return EDIT_HOOK(ops, file_truncate) ? editor(ops)->file_truncate(f, size) : -ENOSYS;
}

int backend_edit_file_close(const struct backend_ops *ops, struct backend_edit_file *f)
{
	if (!f)
		return -EINVAL;
	return EDIT_HOOK(ops, file_close) ? editor(ops)->file_close(f) : -ENOSYS;
}

int backend_set_err(struct backend *b, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
	return ret;
}
