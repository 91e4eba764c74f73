/* source.c - content sources: the typed model (by extension) and the interim random bytes */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "content/source.h"
#include "content/gen.h"
#include "content/extc.h"
#include "content/memo.h"
#include "content/model.h"
#include "content/registry.h"
#include "plan/generation.h"
#include "plan/plan.h"
#include "util/rng.h"
#include "util/util.h"
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
	uint8_t *own;			/* by file, NULL: none; 1: a plan copy made as itself */
	uint64_t chance;		/* distinct small files equal to another (copies_trim()) */
};

/* The file whose bytes file has: content_file_of() but for the copies made as themselves. */
static uint64_t model_file_of(const struct model_source *ms, const struct plan *pl, uint64_t file)
{
	return ms->own && ms->own[file] ? file : content_file_of(pl, file);
}

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
	uint64_t f = model_file_of(ms, pl, file);
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

/* A typed source's fields: both generation 0's and a later generation's. */
static void model_source_set(struct content_source *cs,
			     int (*fill)(const struct content_source *, uint64_t, uint64_t, void *, size_t),
			     const struct plan *pl, const struct content_model *cm, void *priv)
{
	cs->name = "model";
	cs->fill = fill;
	cs->fill_memo = NULL; /* a later generation's parts are not memoised */
	cs->pl = pl;
	cs->seed = cm->seed;
	cs->priv = priv;
}

/*
 * A later generation (plan.gen): each file's bytes by its changes, newest
 * first.  Generation 0's bytes come from the typed source of generation
 * 0's plan (ms->base), so what no change touched keeps its bytes; a
 * change's own bytes are drawn from (file key, generation): appends as
 * text or binary by the file's format, block edits as binary blocks,
 * rewrites and new files by the file's format at their size then.
 */
struct gen_source {
	struct content_source base;    /* generation 0's typed source */
	const struct model_source *ms; /* its state */
};

static uint64_t version_key(uint64_t seed, uint64_t key, uint32_t gen)
{
	return rng_mix64(file_key(seed, key) ^ rng_mix64(((uint64_t)gen << 32) | 0x5bd1e995u));
}

static int gen_range(const struct content_source *cs, uint64_t file, uint32_t ei,
		     uint64_t off, uint8_t *buf, size_t len);

/* Bytes [off, off + len) of change e itself. */
static int gen_edit_bytes(const struct content_source *cs, uint64_t file,
			  const struct plan_gen_edit *e, uint64_t off, uint8_t *buf, size_t len)
{
	const struct plan *pl = cs->pl;
	const struct gen_source *gs = cs->priv;
	uint64_t key = pl->gen->file_key[file];
	uint64_t vk = version_key(cs->seed, key, e->gen);
	const struct gen_ops *ops = gs->ms->ops[pl->file_ext[file]];

	if (e->kind == GEN_EDIT_CREATE || e->kind == GEN_EDIT_REWRITE) {
		struct gen_file g = {
			.key = vk, .file = file, .size = e->to, .ext = plan_file_ext(pl, file),
			.cm = gs->ms->cm,
		};

		if (g.size < ops->min_size)
			ops = &gen_binary_ops;
		return ops->fill(&g, off, buf, len);
	}
	if (e->kind == GEN_EDIT_APPEND && ops != &gen_binary_ops && ops != &gen_elf_ops &&
	    ops != &gen_pe_ops)
		gen_text_bytes(gs->ms->cm, vk, off, buf, len);
	else
		gen_binary_bytes(gs->ms->cm, vk, off, buf, len);
	return 0;
}

/* Split [off, off + len) by what change ei covers; the rest from the changes before it. */
static int gen_range(const struct content_source *cs, uint64_t file, uint32_t ei,
		     uint64_t off, uint8_t *buf, size_t len)
{
	const struct plan *pl = cs->pl;
	const struct plan_gen *g = pl->gen;
	const struct gen_source *gs = cs->priv;
	const struct plan_gen_edit *e;
	uint64_t key = g->file_key[file];
	int ret = 0;

	if (!len)
		return 0;
	if (ei == PLAN_NONE) {
		if (key >= g->base->nfiles)
			return -EINVAL;
		return gs->base.fill(&gs->base, key, off, buf, len);
	}
	e = &g->edit[ei];
	switch (e->kind) {
	case GEN_EDIT_CREATE:
	case GEN_EDIT_REWRITE:
		return gen_edit_bytes(cs, file, e, off, buf, len);
	case GEN_EDIT_TRUNCATE:
		return gen_range(cs, file, e->prev, off, buf, len);
	case GEN_EDIT_APPEND: {
		uint64_t end = off + len;
		size_t before = off < e->from ? (size_t)(MIN(end, e->from) - off) : 0;

		ret = gen_range(cs, file, e->prev, off, buf, before);
		if (!ret && before < len)
			ret = gen_edit_bytes(cs, file, e, off + before, buf + before, len - before);
		return ret;
	}
	default:
		/* in-place block edits: block by block */
		while (!ret && len) {
			uint64_t b = off / 4096;
			size_t n = (size_t)MIN((uint64_t)len, (b + 1) * 4096 - off);

			if (plan_gen_block_edited(key, e, b, pl->prm.gen_edit_block_share))
				ret = gen_edit_bytes(cs, file, e, off, buf, n);
			else
				ret = gen_range(cs, file, e->prev, off, buf, n);
			off += n;
			buf += n;
			len -= n;
		}
		return ret;
	}
}

static int gen_fill(const struct content_source *cs, uint64_t file, uint64_t offset, void *buf,
		    size_t len)
{
	const struct plan *pl = cs->pl;

	if (file >= pl->nfiles || offset > pl->file_size[file] ||
	    len > pl->file_size[file] - offset)
		return -EINVAL;
	return gen_range(cs, file, pl->gen->file_last_edit[file], offset, buf, len);
}

static int gen_source_init(struct content_source *cs, struct content_model *cm,
			   const struct plan *pl, unsigned threads)
{
	struct gen_source *gs = calloc(1, sizeof(*gs));
	int ret;

	memset(cs, 0, sizeof(*cs));
	if (!gs)
		return -ENOMEM;
	ret = content_model_source_init(&gs->base, cm, pl->gen->base, threads);
	if (ret) {
		free(gs);
		return ret;
	}
	gs->ms = gs->base.priv;
	model_source_set(cs, gen_fill, pl, cm, gs);
	return 0;
}

/*
 * Whole-file copies as content-report counts them: the plan's copies,
 * and the small files that are equal by chance (empty files, a word or
 * two of text).  When those two together exceed round(dup_file_share n)
 * by more than COPIES_SLACK n (a plan of many small files), plan copies
 * of more than CONTENT_CHANCE_MAX bytes, as many as the excess, drawn
 * from the content key, are made as themselves instead: a plan that
 * meets its share keeps its bytes.  Copies of at most SPARSE_MIN_SIZE
 * bytes only: a larger one's holes are its source's.
 */
#define COPIES_SLACK 0.0025

/* The most threads that hash the small files for chance_copies(); the count found does not
 * depend on how many. */
#define CHANCE_THREADS_MAX 8

/* One thread's share of the small files: every nth from the first, hashed into h. */
struct chance_part {
	const struct content_source *cs;
	const uint64_t *file;
	uint64_t *h;
	uint64_t n, first, step;
	int ret;
};

static void *chance_hash(void *arg)
{
	struct chance_part *p = arg;
	const struct plan *pl = p->cs->pl;
	uint8_t buf[CONTENT_CHANCE_MAX];

	for (uint64_t i = p->first; i < p->n && !p->ret; i += p->step) {
		uint64_t f = p->file[i], size = pl->file_size[f];

		p->ret = p->cs->fill(p->cs, f, 0, buf, (size_t)size);
		p->h[i] = XXH3_64bits(buf, (size_t)size) | 1;
	}
	return NULL;
}

/* Hash small files file[0..n) into h, on this one and threads - 1 others (0: one a CPU
 * online; at most CHANCE_THREADS_MAX in all; fewer: this one hashes their share). */
static int chance_hash_all(const struct content_source *cs, const uint64_t *file, uint64_t n,
			   uint64_t *h, unsigned threads)
{
	struct chance_part part[CHANCE_THREADS_MAX];
	pthread_t tid[CHANCE_THREADS_MAX];
	long want = threads ? (long)threads : sysconf(_SC_NPROCESSORS_ONLN);
	unsigned k = want < 1 ? 1 : want > CHANCE_THREADS_MAX ? CHANCE_THREADS_MAX : (unsigned)want;
	unsigned started = 1;
	int ret = 0;

	if (n < 4096)
		k = 1;
	for (unsigned t = 0; t < k; t++)
		part[t] = (struct chance_part){ cs, file, h, n, t, k, 0 };
	for (unsigned t = 1; t < k; t++, started++)
		if (pthread_create(&tid[t], NULL, chance_hash, &part[t]) != 0)
			break;
	/* a thread that did not start: this one hashes its share too */
	for (unsigned t = started; t < k; t++)
		chance_hash(&part[t]);
	chance_hash(&part[0]);
	for (unsigned t = 1; t < started; t++)
		pthread_join(tid[t], NULL);
	for (unsigned t = 0; t < k && !ret; t++)
		ret = part[t].ret;
	return ret;
}

/* Whether hash h (never 0) is in slot (mask + 1 entries, open addressing); put it in. */
static int chance_seen(uint64_t *slot, uint64_t mask, uint64_t h)
{
	uint64_t i;

	for (i = h & mask; slot[i] && slot[i] != h; i = (i + 1) & mask)
		;
	if (slot[i] == h)
		return 1;
	slot[i] = h;
	return 0;
}

/* h (a file's bytes) as a content of extension x: the same bytes under another are another. */
static uint64_t chance_ext_hash(uint64_t h, uint16_t x)
{
	return rng_mix64(h ^ rng_mix64((uint64_t)x + 1)) | 1;
}

/* The small files' bytes seen so far: all of them, and by extension (chance_ext_hash()). */
struct chance_set {
	uint64_t mask;
	uint64_t *all, *ext;
};

static void chance_set_release(struct chance_set *set)
{
	FREE_ALL(set->all, set->ext);
}

/*
 * Distinct files of at most CONTENT_CHANCE_MAX bytes whose bytes another
 * such file has, into *out.  With set: also, into by_ext (an entry per
 * plan extension, zeroed), those whose bytes another such file of their
 * own extension has, as a profile's per-extension share counts them, and
 * every hash seen kept in set (room for extra more; chance_set_release()).
 */
static int chance_copies(const struct content_source *cs, uint64_t *out, uint64_t *by_ext,
			 struct chance_set *set, uint64_t extra, unsigned threads)
{
	const struct plan *pl = cs->pl;
	uint64_t mask = 1023, small = 0, *slot, *file, *h, *xslot = NULL;
	int ret = 0;

	*out = 0;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		small += content_file_of(pl, f) == f && pl->file_size[f] <= CONTENT_CHANCE_MAX;
	while (mask < 2 * (small + extra))
		mask = mask * 2 + 1;
	slot = calloc(mask + 1, sizeof(*slot));
	file = malloc((small ? small : 1) * sizeof(*file));
	h = malloc((small ? small : 1) * sizeof(*h));
	if (set)
		xslot = calloc(mask + 1, sizeof(*xslot));
	if (!slot || !file || !h || (set && !xslot)) {
		ret = -ENOMEM;
		goto out;
	}
	small = 0;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (content_file_of(pl, f) == f && pl->file_size[f] <= CONTENT_CHANCE_MAX)
			file[small++] = f;
	ret = chance_hash_all(cs, file, small, h, threads);
	/* in file order, as one thread would */
	for (uint64_t k = 0; !ret && k < small; k++) {
		uint16_t x = pl->file_ext[file[k]];

		*out += chance_seen(slot, mask, h[k]);
		if (set && chance_seen(xslot, mask, chance_ext_hash(h[k], x)))
			by_ext[x]++;
	}
	if (!ret && set) {
		*set = (struct chance_set){ mask, slot, xslot };
		slot = xslot = NULL;
	}
out:
	FREE_ALL(slot, file, h, xslot);
	return ret;
}

/*
 * Make copy f as itself when its bytes are then no other small file's of
 * its extension (a copy of at most CONTENT_CHANCE_MAX bytes, hashed; a
 * larger one always): 1 if made so, 0 if not, or a negative errno.
 */
static int copy_own(struct content_source *cs, struct model_source *ms, struct chance_set *set,
		    uint64_t f)
{
	const struct plan *pl = cs->pl;
	uint64_t size = pl->file_size[f], h;
	uint8_t buf[CONTENT_CHANCE_MAX];
	int ret;

	ms->own[f] = 1;
	if (size > CONTENT_CHANCE_MAX)
		return 1;
	ret = cs->fill(cs, f, 0, buf, (size_t)size);
	if (ret) {
		ms->own[f] = 0;
		return ret;
	}
	h = XXH3_64bits(buf, (size_t)size) | 1;
	if (chance_seen(set->ext, set->mask, chance_ext_hash(h, pl->file_ext[f]))) {
		/* a newline, a word: a copy still */
		ms->own[f] = 0;
		return 0;
	}
	/* distinct in its extension, equal to another extension's file: a chance copy overall */
	ms->chance += chance_seen(set->all, set->mask, h);
	return 1;
}

/*
 * copies_trim() for a profile's ext_content: an extension the profile
 * lists has its own duplicate-file share, and the chance copies that
 * exceed it are its own (/usr/lib/python3's clone: empty and one-byte .txt
 * files, every one-byte text file a newline), so its own plan copies are
 * made as themselves first, as many as its excess; then, when the whole
 * tree still exceeds round(dup_file_share n) by more than COPIES_SLACK n,
 * copies of the extensions not listed, which share what is left of it.
 * A listed extension's copies are never trimmed below its own share.
 */
static int copies_trim_by_ext(struct content_source *cs, struct model_source *ms,
			      unsigned threads)
{
	const struct plan *pl = cs->pl;
	const struct param_tables *t = &pl->prm.tab;
	size_t ne = pl->ext.count ? pl->ext.count : 1;
	uint64_t n = pl->nfiles, copies = 0, small = 0, k = 0, made = 0;
	uint64_t want = (uint64_t)llround(pl->prm.dup_file_share * (double)n);
	double slack = COPIES_SLACK * (double)n;
	struct chance_set set = { 0 };
	uint64_t *cnt = calloc(ne, sizeof(*cnt)), *cp = calloc(ne, sizeof(*cp));
	uint64_t *sm = calloc(ne, sizeof(*sm)), *ch = calloc(ne, sizeof(*ch));
	int64_t *need = calloc(ne, sizeof(*need));
	int *in = calloc(ne, sizeof(*in)), any = 0, ret = -ENOMEM;
	uint32_t *pick = NULL;

	if (!cnt || !cp || !sm || !ch || !need || !in)
		goto out_free;
	for (uint64_t f = 0; f < n; f++) {
		uint16_t x = pl->file_ext[f];

		cnt[x]++;
		cp[x] += content_file_of(pl, f) != f;
		sm[x] += content_file_of(pl, f) == f && pl->file_size[f] <= CONTENT_CHANCE_MAX;
	}
	for (size_t x = 0; x < pl->ext.count; x++) {
		copies += cp[x];
		small += sm[x];
		for (uint32_t i = 0; i < t->nextc; i++)
			if (!strcmp(t->extc_name[i], pl->ext.name[x])) {
				in[x] = 1;
				need[x] = llround(t->extc[i][1] * (double)cnt[x]);
				/* chance copies are fewer than the small files */
				any |= cp[x] && (int64_t)(cp[x] + sm[x]) > need[x];
				break;
			}
	}
	ret = 0;
	if (!copies || (!any && (double)(copies + small) <= (double)want + slack))
		goto out_free;
	ret = chance_copies(cs, &ms->chance, ch, &set, copies, threads);
	if (ret)
		goto out_free;
	/* need[x]: the copies of a listed extension x to make as themselves */
	any = 0;
	for (size_t x = 0; x < pl->ext.count; x++) {
		need[x] = in[x] ? (int64_t)(cp[x] + ch[x]) - need[x] : 0;
		any |= need[x] > 0;
	}
	if (!any && (double)(copies + ms->chance) <= (double)want + slack)
		goto out_free;
	pick = malloc(copies * sizeof(*pick));
	ms->own = calloc(n, 1);
	if (!pick || !ms->own) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (uint64_t f = 0; f < n; f++)
		if (content_file_of(pl, f) != f && pl->file_size[f] < SPARSE_MIN_SIZE)
			pick[k++] = (uint32_t)f;
	rng_shuffle_u32(pick, k, rng_stream_key(cs->seed, "content.copies.trim"), 0);
	for (uint64_t i = 0; i < k && ret >= 0; i++) {
		uint16_t x = pl->file_ext[pick[i]];

		if (need[x] <= 0)
			continue;
		ret = copy_own(cs, ms, &set, pick[i]);
		need[x] -= ret > 0;
		made += ret > 0;
	}
	/* the whole tree: the extensions not listed, down to round(dup_file_share n) */
	if ((double)(copies - made + ms->chance) <= (double)want + slack)
		k = 0;
	for (uint64_t i = 0; i < k && ret >= 0 && copies - made + ms->chance > want; i++) {
		if (in[pl->file_ext[pick[i]]] || ms->own[pick[i]])
			continue;
		ret = copy_own(cs, ms, &set, pick[i]);
		made += ret > 0;
	}
	ret = ret < 0 ? ret : 0;
out_free:
	chance_set_release(&set);
	FREE_ALL(cnt, cp, sm, ch, need, in, pick);
	return ret;
}

static int copies_trim(struct content_source *cs, struct model_source *ms, unsigned threads)
{
	const struct plan *pl = cs->pl;
	uint64_t n = pl->nfiles, copies = 0, small = 0, excess, k = 0;
	uint64_t want = (uint64_t)llround(pl->prm.dup_file_share * (double)n);
	double slack = COPIES_SLACK * (double)n;
	uint32_t *pick;
	int ret;

	/* a profile's ext_content: each listed extension's share its own */
	if (pl->prm.tab.nextc)
		return copies_trim_by_ext(cs, ms, threads);
	for (uint64_t f = 0; f < n; f++) {
		copies += content_file_of(pl, f) != f;
		small += content_file_of(pl, f) == f && pl->file_size[f] <= CONTENT_CHANCE_MAX;
	}
	/* the chance copies are fewer than the small files: nothing to do without them */
	if (!copies || (double)(copies + small) <= (double)want + slack)
		return 0;
	ret = chance_copies(cs, &ms->chance, NULL, NULL, 0, threads);
	if (ret || (double)(copies + ms->chance) <= (double)want + slack)
		return ret;
	excess = copies + ms->chance - want;
	pick = malloc(copies * sizeof(*pick));
	ms->own = calloc(n, 1);
	if (!pick || !ms->own) {
		free(pick);
		return -ENOMEM;
	}
	for (uint64_t f = 0; f < n; f++)
		if (content_file_of(pl, f) != f && pl->file_size[f] > CONTENT_CHANCE_MAX &&
		    pl->file_size[f] < SPARSE_MIN_SIZE)
			pick[k++] = (uint32_t)f;
	rng_shuffle_u32(pick, k, rng_stream_key(cs->seed, "content.copies.trim"), 0);
	for (uint64_t i = 0; i < k && i < excess; i++)
		ms->own[pick[i]] = 1;
	free(pick);
	return 0;
}

int content_model_source_init(struct content_source *cs, struct content_model *cm,
			      const struct plan *pl, unsigned threads)
{
	int ret;
	struct model_source *ms;

	if (pl->gen)
		return gen_source_init(cs, cm, pl, threads);

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
	for (size_t i = 0; i < pl->ext.count; i++) {
		/* a profile's ext_content first (none: every extension its own generator) */
		ms->ops[i] = content_extc_ops(cm, pl->ext.name[i]);
		if (!ms->ops[i])
			ms->ops[i] = content_ext_ops(pl->ext.name[i]);
	}
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (pl->file_size[f] < ms->ops[pl->file_ext[f]]->min_size)
			ms->too_small++;
	model_source_set(cs, model_fill, pl, cm, ms);
	cs->fill_memo = model_fill_memo;
	ret = copies_trim(cs, ms, threads);
	if (ret)
		content_source_release(cs);
	return ret;
}

uint64_t content_source_file_of(const struct content_source *cs, uint64_t file)
{
	if (cs->fill == model_fill)
		return model_file_of(cs->priv, cs->pl, file);
	return content_file_of(cs->pl, file);
}

uint64_t content_source_chance_copies(const struct content_source *cs)
{
	return cs->fill == model_fill ? ((const struct model_source *)cs->priv)->chance : 0;
}

uint64_t content_source_too_small(const struct content_source *cs)
{
	const struct model_source *ms = cs->fill == model_fill ? cs->priv : NULL;

	if (cs->fill == gen_fill)
		ms = ((const struct gen_source *)cs->priv)->ms;
	return ms ? ms->too_small : 0;
}

void content_source_release(struct content_source *cs)
{
	if (cs->fill == gen_fill) {
		struct gen_source *gs = cs->priv;

		content_source_release(&gs->base);
		free(gs);
	}
	if (cs->fill == model_fill) {
		struct model_source *ms = cs->priv;

		free(ms->ops);
		free(ms->own);
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
	    file_ops(cs->priv, pl, model_file_of(cs->priv, pl, file))->whole)
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
