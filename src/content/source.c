/* source.c - content sources: the typed model (by extension) and the interim random bytes */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "content/source.h"
#include "content/gen.h"
#include "content/memo.h"
#include "content/model.h"
#include "content/registry.h"
#include "plan/plan.h"
#include "util/rng.h"
#include "content/prealloc.h"
#include "content/sparse.h"

static uint64_t file_key(uint64_t seed, uint64_t file)
{
	return rng_mix64(seed ^ rng_mix64(file + 1));
}

/* Zero what falls in the holes of a sparse file and the unwritten ranges of a preallocated one. */
static void zero_holes(const struct plan *pl, uint64_t file, uint64_t offset, void *buf,
		       size_t len)
{
	struct sparse_holes h;
	struct prealloc pa;

	if (sparse_enabled(pl) && sparse_file_holes(pl, file, &h))
		sparse_zero(&h, offset, buf, len);
	/* unwritten ranges read as zeros too */
	if (prealloc_enabled(pl) && prealloc_file(pl, file, &pa))
		sparse_zero(&pa.unw, offset, buf, len);
}

static int random_fill(const struct content_source *cs, uint64_t file, uint64_t offset,
		       void *buf, size_t len)
{
	gen_random(file_key(cs->seed, file), offset, buf, len);
	zero_holes(cs->pl, file, offset, buf, len);
	return 0;
}

void content_random_init(struct content_source *cs, const struct plan *pl)
{
	memset(cs, 0, sizeof(*cs));
	cs->name = "random";
	cs->fill = random_fill;
	cs->pl = pl;
	cs->seed = rng_stream_key(pl->prm.seed, "content");
}

/* The model source's state: the generator of each extension of the plan. */
struct model_source {
	const struct content_model *cm;
	const struct gen_ops **ops;	/* by plan extension id */
	uint64_t too_small;
};

static const struct gen_ops *file_ops(const struct model_source *ms, const struct plan *pl,
				      uint64_t file)
{
	const struct gen_ops *ops = ms->ops[pl->file_ext[file]];

	return pl->file_size[file] < ops->min_size ? &gen_binary_ops : ops;
}

static int model_fill_memo(const struct content_source *cs, uint64_t file, uint64_t offset,
			   void *buf, size_t len, struct gen_memo *memo)
{
	const struct model_source *ms = cs->priv;
	const struct plan *pl = cs->pl;
	uint64_t f = content_file_of(pl, file);
	struct gen_file g = {
		.key = file_key(cs->seed, f),
		.file = f,
		.size = pl->file_size[f],
		.ext = plan_file_ext(pl, f),
		.cm = ms->cm,
		.memo = memo,
	};

	int ret;

	if (offset > g.size || len > g.size - offset)
		return -EINVAL;
	ret = file_ops(ms, pl, f)->fill(&g, offset, buf, len);
	if (!ret)
		zero_holes(pl, f, offset, buf, len);
	return ret;
}

static int model_fill(const struct content_source *cs, uint64_t file, uint64_t offset, void *buf,
		      size_t len)
{
	return model_fill_memo(cs, file, offset, buf, len, NULL);
}

int content_model_source_init(struct content_source *cs, struct content_model *cm,
			      const struct plan *pl)
{
	struct model_source *ms;

	memset(cs, 0, sizeof(*cs));
	ms = calloc(1, sizeof(*ms));
	if (!ms)
		return -ENOMEM;
	ms->cm = cm;
	ms->ops = calloc(pl->ext.count ? pl->ext.count : 1, sizeof(*ms->ops));
	if (!ms->ops) {
		free(ms);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pl->ext.count; i++)
		ms->ops[i] = content_ext_ops(pl->ext.name[i]);
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (pl->file_size[f] < ms->ops[pl->file_ext[f]]->min_size)
			ms->too_small++;
	cs->name = "model";
	cs->fill = model_fill;
	cs->fill_memo = model_fill_memo;
	cs->pl = pl;
	cs->seed = cm->seed;
	cs->priv = ms;
	return 0;
}

uint64_t content_source_too_small(const struct content_source *cs)
{
	const struct model_source *ms = cs->fill == model_fill ? cs->priv : NULL;

	return ms ? ms->too_small : 0;
}

void content_source_release(struct content_source *cs)
{
	if (cs->fill == model_fill) {
		struct model_source *ms = cs->priv;

		free(ms->ops);
		free(ms);
	}
	memset(cs, 0, sizeof(*cs));
}

struct content_split {
	uint64_t file;
	struct gen_memo *memo; /* NULL: the source keeps no memo */
};

int content_split_begin(const struct content_source *cs, uint64_t file, struct content_split **sp)
{
	const struct plan *pl = cs->pl;
	struct content_split *s;

	*sp = NULL;
	if (pl->file_size[file] < CONTENT_SPLIT_MIN)
		return 0;
	if (cs->fill == model_fill &&
	    file_ops(cs->priv, pl, content_file_of(pl, file))->whole)
		return 0;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->file = file;
	if (cs->fill_memo) {
		s->memo = gen_memo_new();
		if (!s->memo) {
			free(s);
			return -ENOMEM;
		}
	}
	*sp = s;
	return 0;
}

int content_split_fill(const struct content_source *cs, struct content_split *sp, uint64_t offset,
		       void *buf, size_t len)
{
	if (sp->memo)
		return cs->fill_memo(cs, sp->file, offset, buf, len, sp->memo);
	return cs->fill(cs, sp->file, offset, buf, len);
}

long content_split_fixups(struct content_split *sp, const uint64_t **off, const uint64_t **len)
{
	*off = *len = NULL;
	if (!sp->memo)
		return 0;
	return gen_memo_finish(sp->memo, off, len);
}

void content_split_end(struct content_split *sp)
{
	if (!sp)
		return;
	gen_memo_free(sp->memo);
	free(sp);
}
