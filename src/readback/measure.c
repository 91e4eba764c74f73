/* measure.c - `imprint measure`: one walk; the model's figures, the layout and the free space */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "readback/content_stats.h"
#include "readback/extents_file.h"
#include "model/dist.h"
#include "model/ext.h"
#include "readback/measure.h"
#include "plan/plan.h"
#include "readback/report.h"
#include "util/array.h"
#include "content/sparse.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in the text report: "1.50 GiB". */
#define HUMAN (FMT_BYTES_DIGITS(2))

/* Files-per-directory bins shown without a configuration (as the default model's). */
#define MEASURE_FPD_BINS 28
/* Longest extension counted (content_ext_of_path: longer ones are none). */
#define MEASURE_EXT_LEN 64

/* ---- the arithmetic --------------------------------------------------- */

unsigned measure_log2(uint64_t v)
{
	return v ? 63 - (unsigned)__builtin_clzll(v) : 0;
}

uint64_t measure_layout_add(struct measure_layout *l, const struct fsread_extent *ext, size_t n)
{
	uint64_t blocks = 0, frags = 0, contig = 0;

	for (size_t i = 0; i < n; i++) {
		blocks += ext[i].len;
		if (ext[i].len)
			contig += ext[i].len - 1;
		if (i && ext[i - 1].physical + ext[i - 1].len == ext[i].physical)
			contig++;
		else if (ext[i].len)
			frags++;
	}
	l->fragments += frags;
	if (frags > l->max_fragments)
		l->max_fragments = frags;
	l->per_file[frags > 32 ? 33 : frags]++;
	if (blocks < 2)
		return frags;
	l->files++;
	l->pairs += blocks - 1;
	l->contiguous += contig;
	if (frags < 2)
		return frags;
	l->fragmented++;
	l->frag_fragments += frags;
	l->frag_blocks += blocks;
	/* the fragments' sizes: physically adjacent runs make one */
	for (size_t i = 0; i < n;) {
		uint64_t len = ext[i].len;
		size_t j = i + 1;

		while (j < n && ext[j - 1].physical + ext[j - 1].len == ext[j].physical)
			len += ext[j++].len;
		if (len)
			l->frag_size[measure_log2(len)]++;
		i = j;
	}
	return frags;
}

double measure_layout_score(const struct measure_layout *l)
{
	return l->pairs ? (double)l->contiguous / (double)l->pairs : 1.0;
}

int measure_free_hist(const struct fsread_extent *runs, size_t n, uint64_t nblocks,
		      uint64_t first_data_block, uint64_t chunk_blocks, struct measure_free *f)
{
	uint64_t prev_end = 0;

	memset(f, 0, sizeof(*f));
	if (!chunk_blocks)
		return -EINVAL;
	f->chunk_blocks = chunk_blocks;
	f->total_chunks = (nblocks + chunk_blocks) / chunk_blocks;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = runs[i].physical, len = runs[i].len, e = s + len;
		unsigned b;

		if (!len || s < prev_end || e > nblocks || e < s)
			return -EINVAL;
		prev_end = e;
		b = measure_log2(len);
		f->count[b]++;
		f->blocks[b] += len;
		f->free_blocks += len;
		f->extents++;
		if (!f->min_len || len < f->min_len)
			f->min_len = len;
		if (len > f->max_len)
			f->max_len = len;
		if (len < chunk_blocks)
			f->small_blocks += len;
		/* wholly free aligned chunks inside [max(s, first_data_block), e) */
		if (s < first_data_block)
			s = first_data_block;
		if (s < e) {
			uint64_t c0 = (s + chunk_blocks - 1) / chunk_blocks, c1 = e / chunk_blocks;

			if (c1 > c0)
				f->free_chunks += c1 - c0;
		}
	}
	return 0;
}

int64_t measure_quantile(const int64_t *v, size_t n, double q)
{
	double r;
	size_t k;

	if (!n)
		return 0;
	r = ceil(q * (double)n);
	k = r < 1 ? 0 : (size_t)r - 1;
	return v[k < n ? k : n - 1];
}

/* ---- the walk ---------------------------------------------------------- */

/* Distinct extensions met, by hash. */
struct mext {
	char **name;
	uint64_t *files;
	size_t n, cap;
	uint32_t *slot;          /* index + 1; 0 is empty */
	size_t nslot;
};

struct mstate {
	const struct measure_opts *o;
	struct fsread *fs;
	FILE *ext_out;
	int ret;

	/* regular files, once per inode */
	uint64_t nfiles, fcap;
	uint64_t *size;
	int64_t *mtime;
	uint16_t *depth;
	uint32_t *dir;
	uint32_t *ext;

	/* directories (root first), their model depth and files */
	uint32_t ndirs, dcap;
	uint16_t *ddepth;
	uint32_t *dnfiles;
	uint32_t *stack;         /* directory index by entry depth */
	size_t stack_cap;

	unsigned skip_below;     /* skipping the entries deeper than this ... */
	int skipping;            /* ... (lost+found in the root) */

	uint64_t hardlinks, symlinks, others, bytes, skipped;
	uint64_t sparse_files, hole_blocks;  /* files with holes; their unmapped blocks */
	int64_t max_mtime;
	struct measure_layout lay;
	struct mext ext_tab;
};

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* Id of ext in the table, added when new; -ENOMEM. */
static int64_t mext_id(struct mext *t, const char *ext)
{
	size_t i;

	if ((t->n + 1) * 2 > t->nslot) {
		size_t ns = t->nslot ? t->nslot * 2 : 256;
		uint32_t *slot = calloc(ns, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (size_t k = 0; k < t->n; k++) {
			for (i = str_hash(t->name[k]) & (ns - 1); slot[i]; i = (i + 1) & (ns - 1))
				;
			slot[i] = (uint32_t)k + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslot = ns;
	}
	for (i = str_hash(ext) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1))
		if (!strcmp(t->name[t->slot[i] - 1], ext))
			return t->slot[i] - 1;
	if (t->n == t->cap) {
		size_t c = t->cap ? t->cap * 2 : 64;

		/* two arrays, one capacity */
		if (array_resize(&t->name, c, sizeof(*t->name)) ||
		    array_resize(&t->files, c, sizeof(*t->files)))
			return -ENOMEM;
		t->cap = c;
	}
	t->name[t->n] = strdup(ext);
	if (!t->name[t->n])
		return -ENOMEM;
	t->files[t->n] = 0;
	t->slot[i] = (uint32_t)t->n + 1;
	return (int64_t)t->n++;
}

static void mext_release(struct mext *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->name[i]);
	free(t->name);
	free(t->files);
	free(t->slot);
}

static int grow_files(struct mstate *m)
{
	uint64_t c = m->fcap ? m->fcap * 2 : 4096;

	if (m->nfiles < m->fcap)
		return 0;
	/* parallel arrays, one capacity */
	if (array_resize(&m->size, c, sizeof(*m->size)) ||
	    array_resize(&m->mtime, c, sizeof(*m->mtime)) ||
	    array_resize(&m->depth, c, sizeof(*m->depth)) ||
	    array_resize(&m->dir, c, sizeof(*m->dir)) || array_resize(&m->ext, c, sizeof(*m->ext)))
		return -ENOMEM;
	m->fcap = c;
	return 0;
}

static int grow_dirs(struct mstate *m)
{
	uint32_t c = m->dcap ? m->dcap * 2 : 1024;

	if (m->ndirs < m->dcap)
		return 0;
	if (m->dcap >= UINT32_MAX / 2)
		return -E2BIG;
	if (array_resize(&m->ddepth, c, sizeof(*m->ddepth)) ||
	    array_resize(&m->dnfiles, c, sizeof(*m->dnfiles)))
		return -ENOMEM;
	m->dcap = c;
	return 0;
}

static void write_extents_line(struct mstate *m, const struct fsread_entry *e)
{
	FILE *f = m->ext_out;
	size_t nruns = 0;

	extents_file_begin_line(f, m->nfiles - 1, e->path, NULL);
	for (size_t i = 0; i < e->nextents;) {
		uint64_t start = e->extents[i].physical, len = e->extents[i].len;
		size_t j = i + 1;

		while (j < e->nextents &&
		       e->extents[j - 1].physical + e->extents[j - 1].len == e->extents[j].physical)
			len += e->extents[j++].len;
		extents_file_put_run(f, nruns++, start, len);
		i = j;
	}
	extents_file_end_line(f, nruns);
}

static int on_entry(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct mstate *m = arg;
	char ext[MEASURE_EXT_LEN + 1];
	int64_t id;
	uint64_t f, holes;

	if (m->skipping) {
		if (e->depth > m->skip_below) {
			m->skipped++;
			return 0;
		}
		m->skipping = 0;
	}
	if (e->path[1] == '\0') {
		/* the root */
		if (grow_dirs(m))
			goto out_nomem;
		m->ddepth[0] = 0;
		m->dnfiles[0] = 0;
		m->ndirs = 1;
		m->stack[0] = 0;
		return 0;
	}
	switch (e->type) {
	case FSREAD_DIR:
		if (e->depth == 0 && !strcmp(e->name, "lost+found")) {
			/* mke2fs's, not the model's */
			m->skipping = 1;
			m->skip_below = 0;
			m->skipped++;
			return 0;
		}
		if (e->depth + 1 >= 65535) {
			m->ret = -E2BIG;
			return -E2BIG;
		}
		if (grow_dirs(m))
			goto out_nomem;
		if (array_grow(&m->stack, &m->stack_cap, e->depth + 2, sizeof(*m->stack)))
			goto out_nomem;
		m->ddepth[m->ndirs] = (uint16_t)(e->depth + 1);
		m->dnfiles[m->ndirs] = 0;
		m->stack[e->depth + 1] = m->ndirs;
		m->ndirs++;
		return 0;
	case FSREAD_SYMLINK:
		m->symlinks++;
		return 0;
	case FSREAD_OTHER:
		m->others++;
		return 0;
	case FSREAD_FILE:
		break;
	}
	if (!e->first_name) {
		m->hardlinks++;
		return 0;
	}
	if (grow_files(m))
		goto out_nomem;
	content_ext_of_path(e->name, ext, sizeof(ext));
	id = mext_id(&m->ext_tab, ext);
	if (id < 0)
		goto out_nomem;
	m->ext_tab.files[id]++;
	f = m->nfiles++;
	m->size[f] = e->size;
	m->mtime[f] = e->mtime.sec;
	m->depth[f] = (uint16_t)e->depth;
	m->dir[f] = m->stack[e->depth];
	m->ext[f] = (uint32_t)id;
	m->dnfiles[m->dir[f]]++;
	m->bytes += e->size;
	if (f == 0 || e->mtime.sec > m->max_mtime)
		m->max_mtime = e->mtime.sec;
	if (e->extents_unknown)
		return 0;
	holes = fsread_hole_blocks(e, fsread_block_size(fs));
	if (holes) {
		m->sparse_files++;
		m->hole_blocks += holes;
	}
	measure_layout_add(&m->lay, e->extents, e->nextents);
	if (m->ext_out)
		write_extents_line(m, e);
	return 0;
out_nomem:
	m->ret = -ENOMEM;
	return -ENOMEM;
}

static void mstate_release(struct mstate *m)
{
	free(m->size);
	free(m->mtime);
	free(m->depth);
	free(m->dir);
	free(m->ext);
	free(m->ddepth);
	free(m->dnfiles);
	free(m->stack);
	mext_release(&m->ext_tab);
}

/* ---- what is reported ------------------------------------------------ */

struct mresult {
	const char *target;
	int image;
	unsigned block_size;
	uint64_t total_blocks;
	uint64_t *sorted_size;       /* ascending */
	int64_t *ages;               /* seconds before ref, ascending */
	int64_t age_ref;
	uint64_t size_hist[MEASURE_BUCKETS + 1]; /* [0] empty files, [b + 1] log2 bucket b */
	uint64_t depth_files[REPORT_DEPTHS + 1]; /* every file; last: deeper */
	unsigned max_file_depth, max_dir_depth;
	uint64_t fpd[MEASURE_FPD_BINS + 2];      /* every directory */
	size_t *ext_order;           /* extension table ids, most files first */
	int have_free;
	int have_layout;             /* the reader gave extents */
	uint64_t unreadable;         /* entries not read for want of permission */
	struct measure_free fr;

	/* --against */
	int against;
	struct report rep;
	uint64_t special_dirs, special_files;
	uint64_t sparse_files_target, hole_blocks_target;
	const struct params *p;
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static int cmp_ext_files(const void *a, const void *b, void *ctx)
{
	const struct mext *t = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t fx = t->files[x], fy = t->files[y];

	if (fx != fy)
		return (fx < fy) - (fx > fy);
	return strcmp(t->name[x], t->name[y]);
}

static int cmp_special(const void *a, const void *b, void *ctx)
{
	const uint32_t *n = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (n[x] != n[y])
		return (n[x] < n[y]) - (n[x] > n[y]);
	return (x > y) - (x < y);
}

/*
 * Mark the special directories of p: the p->special_dirs directories at
 * depth special_dir_depth holding the most files (the plan's are there,
 * with special_dir_files each).  Returns 0 or -ENOMEM.
 */
static int find_special(const struct mstate *m, const struct params *p, uint8_t *special,
			uint64_t *ndirs, uint64_t *nfiles)
{
	uint32_t *cand, nc = 0;

	*ndirs = *nfiles = 0;
	if (!p->special_dirs)
		return 0;
	cand = malloc((m->ndirs ? m->ndirs : 1) * sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (uint32_t j = 0; j < m->ndirs; j++)
		if (m->ddepth[j] == p->special_dir_depth)
			cand[nc++] = j;
	qsort_r(cand, nc, sizeof(*cand), cmp_special, m->dnfiles);
	for (uint32_t k = 0; k < nc && k < p->special_dirs; k++) {
		special[cand[k]] = 1;
		(*ndirs)++;
		*nfiles += m->dnfiles[cand[k]];
	}
	free(cand);
	return 0;
}

/*
 * The fit report against p: the same computation as plan --report, from
 * what was found.  The depth target is truncated to the deepest regular
 * directory found, as the plan truncates it to its tree.
 */
static int compute_against(struct mresult *r, const struct mstate *m, const struct params *p)
{
	struct report_input in = { 0 };
	struct size_model sm;
	struct ext_model em = { 0 };
	uint8_t *special = NULL;
	uint64_t *ext_count = NULL, *fpd_count = NULL, *sizes = NULL;
	uint64_t depth_count[REPORT_DEPTHS] = { 0 };
	double depth_target[REPORT_DEPTHS] = { 0 };
	unsigned char allowed[REPORT_DEPTHS] = { 0 };
	unsigned h = 0, maxbin = p->fpd_max_bin;
	uint64_t unknown_best = 0;
	const char *unknown = NULL;
	double cap = (double)p->size_max;
	int ret = -ENOMEM;

	if (p->used && (double)p->used < cap)
		cap = (double)p->used;
	if (cap < 1)
		cap = 1;
	if (size_model_init(&sm, p->size_mu, p->size_sigma, p->size_tail_weight,
			    (double)p->size_tail_xm, p->size_tail_shape, cap)) {
		fprintf(stderr, "imprint: the file size parameters admit no distribution\n");
		return -EINVAL;
	}
	if (ext_model_init(&em, p->ext_table))
		goto out_free;
	special = calloc(m->ndirs ? m->ndirs : 1, 1);
	ext_count = calloc(em.count, sizeof(*ext_count));
	fpd_count = calloc(maxbin + 2, sizeof(*fpd_count));
	sizes = malloc((m->nfiles ? m->nfiles : 1) * sizeof(*sizes));
	if (!special || !ext_count || !fpd_count || !sizes)
		goto out_free;
	ret = find_special(m, p, special, &r->special_dirs, &r->special_files);
	if (ret)
		goto out_free;
	ret = -ENOMEM;

	/* the regular tree: depths, files per directory */
	for (uint32_t j = 0; j < m->ndirs; j++) {
		uint32_t c = m->dnfiles[j];

		if (special[j])
			continue;
		if (m->ddepth[j] >= REPORT_DEPTHS) {
			fprintf(stderr, "imprint: '%s': directories deeper than %d levels are beyond the model\n",
				r->target, REPORT_DEPTHS - 1);
			ret = -EINVAL;
			goto out_free;
		}
		allowed[m->ddepth[j]] = 1;
		if (m->ddepth[j] > h)
			h = m->ddepth[j];
		fpd_count[c > maxbin ? maxbin + 1 : c]++;
		in.nregular_dirs++;
	}
	for (uint64_t f = 0; f < m->nfiles; f++) {
		if (special[m->dir[f]])
			continue;
		depth_count[m->depth[f]]++;
		in.nregular_files++;
	}
	if (p->depth_model == DEPTH_POISSON) {
		if (depth_poisson_probs(p->depth_lambda, h, depth_target)) {
			ret = -EINVAL;
			goto out_free;
		}
	} else {
		double probs[REPORT_DEPTHS];

		for (uint64_t f = 0; f < m->nfiles; f++) {
			if (special[m->dir[f]])
				continue;
			if (depth_care_probs(m->size[f], h, allowed, probs)) {
				ret = -EINVAL;
				goto out_free;
			}
			for (unsigned i = 0; i <= h; i++)
				depth_target[i] += probs[i];
		}
		for (unsigned i = 0; i <= h && in.nregular_files; i++)
			depth_target[i] /= (double)in.nregular_files;
	}

	/* extensions: the model's ids; the commonest one outside the model */
	for (size_t i = 0; i < m->ext_tab.n; i++) {
		int id = ext_model_find(&em, m->ext_tab.name[i]);

		if (id >= 0) {
			ext_count[id] += m->ext_tab.files[i];
		} else if (m->ext_tab.files[i] > unknown_best ||
			   (m->ext_tab.files[i] == unknown_best && unknown &&
			    strcmp(m->ext_tab.name[i], unknown) < 0)) {
			unknown_best = m->ext_tab.files[i];
			unknown = m->ext_tab.name[i];
		}
	}

	if (m->nfiles)
		memcpy(sizes, r->sorted_size, m->nfiles * sizeof(*sizes));
	in.seed = p->seed;
	in.files = m->nfiles;
	in.dirs = m->ndirs;
	in.links = m->hardlinks + m->symlinks;
	in.hardlinks = m->hardlinks;
	in.symlinks = m->symlinks;
	in.special_dirs = r->special_dirs;
	in.special_files = r->special_files;
	in.bytes = m->bytes;
	in.max_depth = h;
	in.sizes = sizes;
	in.size = &sm;
	in.depth_count = depth_count;
	in.depth_target = depth_target;
	in.ext = &em;
	in.ext_count = ext_count;
	in.ext_unknown = unknown;
	in.ext_unknown_count = unknown_best;
	in.fpd_count = fpd_count;
	in.prm = p;
	ret = report_compute_input(&in, &r->rep);
	if (ret)
		goto out_free;
	/* the report's labels point into em and the table: keep them alive in r */
	for (unsigned i = 0; i < r->rep.next; i++)
		r->rep.ext_top[i].label = strdup(r->rep.ext_top[i].label);
	if (r->rep.ext_worst)
		r->rep.ext_worst = strdup(r->rep.ext_worst);
	r->against = 1;
	r->p = p;
out_free:
	ext_model_release(&em);
	free(special);
	free(ext_count);
	free(fpd_count);
	free(sizes);
	return ret;
}

/*
 * The sparse files of p's plan and their hole blocks (of the block size
 * measured): the files for which sparse_file_holes() gives holes.  The
 * plan is built only when p has sparse files (sparse_enabled()).  Returns
 * 0, -ENOMEM or -EINVAL (the configuration cannot be planned).
 */
static int sparse_target(struct mresult *r, const struct params *p)
{
	struct plan_error err = { { 0 } };
	struct plan pl;
	int ret;

	r->sparse_files_target = 0;
	r->hole_blocks_target = 0;
	if (!(p->sparse_file_share > 0))
		return 0;
	ret = plan_build(&pl, p, &err);
	if (ret) {
		if (ret != -ENOMEM)
			fprintf(stderr, "imprint: %s\n", err.msg);
		return ret;
	}
	for (uint64_t f = 0; f < pl.nfiles; f++) {
		struct sparse_holes h;

		if (sparse_file_holes(&pl, f, &h)) {
			r->sparse_files_target++;
			r->hole_blocks_target += h.bytes / r->block_size;
		}
	}
	plan_release(&pl);
	return 0;
}

static void mresult_release(struct mresult *r)
{
	free(r->sorted_size);
	free(r->ages);
	free(r->ext_order);
	if (r->against) {
		for (unsigned i = 0; i < r->rep.next; i++)
			free((char *)r->rep.ext_top[i].label);
		free((char *)r->rep.ext_worst);
		report_release(&r->rep);
	}
}

static int compute(struct mresult *r, struct mstate *m, const struct measure_opts *o)
{
	int ret;

	memset(r->size_hist, 0, sizeof(r->size_hist));
	r->sorted_size = malloc((m->nfiles ? m->nfiles : 1) * sizeof(*r->sorted_size));
	r->ages = malloc((m->nfiles ? m->nfiles : 1) * sizeof(*r->ages));
	r->ext_order = malloc((m->ext_tab.n ? m->ext_tab.n : 1) * sizeof(*r->ext_order));
	if (!r->sorted_size || !r->ages || !r->ext_order)
		return -ENOMEM;
	if (m->nfiles)
		memcpy(r->sorted_size, m->size, m->nfiles * sizeof(*m->size));
	qsort(r->sorted_size, m->nfiles, sizeof(*r->sorted_size), cmp_u64);
	r->age_ref = o->against ? o->against->time_ref : m->max_mtime;
	for (uint64_t f = 0; f < m->nfiles; f++) {
		uint64_t s = m->size[f];
		unsigned d = m->depth[f];

		r->ages[f] = r->age_ref - m->mtime[f];
		r->size_hist[s ? measure_log2(s) + 1 : 0]++;
		r->depth_files[d < REPORT_DEPTHS ? d : REPORT_DEPTHS]++;
		if (d > r->max_file_depth)
			r->max_file_depth = d;
	}
	qsort(r->ages, m->nfiles, sizeof(*r->ages), cmp_i64);
	for (uint32_t j = 0; j < m->ndirs; j++) {
		uint32_t c = m->dnfiles[j];

		r->fpd[c > MEASURE_FPD_BINS ? MEASURE_FPD_BINS + 1 : c]++;
		if (m->ddepth[j] > r->max_dir_depth)
			r->max_dir_depth = m->ddepth[j];
	}
	for (size_t i = 0; i < m->ext_tab.n; i++)
		r->ext_order[i] = i;
	qsort_r(r->ext_order, m->ext_tab.n, sizeof(*r->ext_order), cmp_ext_files, &m->ext_tab);
	if (!o->against)
		return 0;
	ret = compute_against(r, m, o->against);
	if (!ret)
		ret = sparse_target(r, o->against);
	return ret;
}

/* e2freefrag's range label of bucket b (extents of [2^b, 2^(b+1)) blocks): "  4K...    8K-" */
static void free_range(unsigned block_size, unsigned b, char *buf, size_t len)
{
	static const char units[] = "KMGTPEZY";
	uint64_t lo = (uint64_t)block_size << b, hi = lo * 2;
	unsigned ul = 0, uh = 0;

	lo >>= 10;
	hi >>= 10;
	while (lo >= 1024 && ul < 7) {
		lo >>= 10;
		ul++;
	}
	while (hi >= 1024 && uh < 7) {
		hi >>= 10;
		uh++;
	}
	snprintf(buf, len, "%5" PRIu64 "%c...%5" PRIu64 "%c-", lo, units[ul], hi, units[uh]);
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static double days(int64_t s)
{
	return (double)s / 86400.0;
}

static const double age_q[] = { 0.01, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 1.0 };
static const char *const age_qname[] = { "p1", "p10", "p25", "median", "p75", "p90", "p99", "max" };

static void print_layout_text(const struct measure_layout *l, uint64_t sparse_files,
			      uint64_t hole_blocks, FILE *out)
{
	fprintf(out, "  layout score    %.6f (%" PRIu64 " files of two or more blocks)\n",
		measure_layout_score(l), l->files);
	fprintf(out, "  fragmented      %" PRIu64 " files (%.4f of them), %.2f fragments each on average\n",
		l->fragmented, share(l->fragmented, l->files),
		l->fragmented ? (double)l->frag_fragments / (double)l->fragmented : 0);
	fprintf(out, "  extents         %" PRIu64 " (physically adjacent runs merged)\n", l->fragments);
	fprintf(out, "  sparse files    %" PRIu64 ", %" PRIu64 " hole blocks (in i_size, unmapped)\n",
		sparse_files, hole_blocks);
	fprintf(out, "  extents per file\n");
	for (unsigned k = 0; k < 34; k++)
		if (l->per_file[k]) {
			if (k == 33)
				fprintf(out, "    >32  %7" PRIu64 "\n", l->per_file[k]);
			else
				fprintf(out, "  %5u  %7" PRIu64 "\n", k, l->per_file[k]);
		}
	if (l->fragmented) {
		fprintf(out, "  fragment sizes (blocks, fragmented files)\n");
		for (unsigned b = 0; b < MEASURE_BUCKETS; b++)
			if (l->frag_size[b])
				fprintf(out, "  %7" PRIu64 "..  %7" PRIu64 "\n", (uint64_t)1 << b,
					l->frag_size[b]);
	}
}

static void print_text(const struct mresult *r, const struct mstate *m,
		        const struct measure_opts *o, FILE *out)
{
	const struct measure_layout *l = &m->lay;
	char b1[32], b2[32], b3[32];
	uint64_t n = m->nfiles;

	fprintf(out, "imprint measure: '%s' (%s, block size %u)\n\n", r->target,
		r->image ? "ext2/3/4 read through libext2fs" : "mounted tree read through the kernel",
		r->block_size);
	fprintf(out, "  files           %" PRIu64 "\n", n);
	fprintf(out, "  directories     %" PRIu64 "\n", (uint64_t)m->ndirs);
	fprintf(out, "  links           %" PRIu64 " (%" PRIu64 " hard, %" PRIu64 " symbolic)\n",
		m->hardlinks + m->symlinks, m->hardlinks, m->symlinks);
	if (m->others)
		fprintf(out, "  other entries   %" PRIu64 " (devices, FIFOs, sockets)\n", m->others);
	fprintf(out, "  bytes           %" PRIu64 " (%s)\n", m->bytes, fmt_bytes(m->bytes, HUMAN, b1, sizeof(b1)));
	fprintf(out, "  file size       mean %s, median %s, max %s\n",
		fmt_bytes(n ? m->bytes / n : 0, HUMAN, b1, sizeof(b1)),
		fmt_bytes(n ? r->sorted_size[(n - 1) / 2] : 0, HUMAN, b2, sizeof(b2)),
		fmt_bytes(n ? r->sorted_size[n - 1] : 0, HUMAN, b3, sizeof(b3)));
	fprintf(out, "  max depth       %u (directories), %u (files)\n\n", r->max_dir_depth,
		r->max_file_depth);

	fprintf(out, "file sizes\n  bytes                  files     share\n");
	for (unsigned b = 0; b <= MEASURE_BUCKETS; b++) {
		if (!r->size_hist[b])
			continue;
		if (b == 0)
			fprintf(out, "  %-20s %7" PRIu64 "  %8.5f\n", "0", r->size_hist[b],
				share(r->size_hist[b], n));
		else {
			char range[48];

			snprintf(range, sizeof(range), "%s..", fmt_bytes(1ULL << (b - 1), HUMAN, b1, sizeof(b1)));
			fprintf(out, "  %-20s %7" PRIu64 "  %8.5f\n", range, r->size_hist[b],
				share(r->size_hist[b], n));
		}
	}
	fprintf(out, "\nfiles by depth\n  depth    files     share\n");
	for (unsigned d = 0; d <= REPORT_DEPTHS; d++)
		if (r->depth_files[d])
			fprintf(out, "  %5u  %7" PRIu64 "  %8.5f\n", d, r->depth_files[d],
				share(r->depth_files[d], n));
	fprintf(out, "\nfiles per directory\n  files     dirs     share\n");
	for (unsigned b = 0; b < MEASURE_FPD_BINS + 2; b++) {
		if (!r->fpd[b])
			continue;
		if (b == MEASURE_FPD_BINS + 1)
			fprintf(out, "  >%4u  %7" PRIu64 "  %8.5f\n", MEASURE_FPD_BINS, r->fpd[b],
				share(r->fpd[b], m->ndirs));
		else
			fprintf(out, "  %5u  %7" PRIu64 "  %8.5f\n", b, r->fpd[b],
				share(r->fpd[b], m->ndirs));
	}
	fprintf(out, "\ntop extensions (of %zu)\n  ext       files     share\n", m->ext_tab.n);
	for (size_t i = 0; i < m->ext_tab.n && i < REPORT_TOP_EXT; i++) {
		size_t k = r->ext_order[i];

		fprintf(out, "  %-6s  %7" PRIu64 "  %8.5f\n",
			m->ext_tab.name[k][0] ? m->ext_tab.name[k] : "(none)", m->ext_tab.files[k],
			share(m->ext_tab.files[k], n));
	}
	fprintf(out, "\nfile ages (days before %s)\n ",
		o->against ? "the configuration's time_ref" : "the newest mtime");
	for (size_t i = 0; i < ARRAY_SIZE(age_q); i++)
		fprintf(out, " %s %.1f", age_qname[i], days(measure_quantile(r->ages, n, age_q[i])));
	fprintf(out, "\n\nlayout\n");
	if (!r->have_layout)
		fprintf(out, "  not measured: the file system does not report extents (FIEMAP)\n");
	else
		print_layout_text(l, m->sparse_files, m->hole_blocks, out);
	if (r->have_free) {
		const struct measure_free *f = &r->fr;
		uint64_t kb = r->block_size >> 10;

		fprintf(out, "\nfree space (as e2freefrag counts it)\n");
		fprintf(out, "  free blocks     %" PRIu64 " of %" PRIu64 " (%.1f%%)\n", f->free_blocks,
			r->total_blocks, 100.0 * share(f->free_blocks, r->total_blocks));
		fprintf(out, "  free extents    %" PRIu64 ": min %" PRIu64 " KB, max %" PRIu64
			" KB, avg %" PRIu64 " KB\n", f->extents, f->min_len * kb, f->max_len * kb,
			f->extents ? f->free_blocks / f->extents * kb : 0);
		fprintf(out, "  free chunks     %" PRIu64 " of %" PRIu64 " (%s chunks)\n",
			f->free_chunks, f->total_chunks,
			fmt_bytes(f->chunk_blocks * r->block_size, HUMAN, b1, sizeof(b1)));
		fprintf(out, "  Extent Size Range :  Free extents   Free Blocks  Percent\n");
		for (unsigned b = 0; b < MEASURE_BUCKETS; b++) {
			char range[48];

			if (!f->count[b])
				continue;
			free_range(r->block_size, b, range, sizeof(range));
			fprintf(out, "  %s  :  %12" PRIu64 "  %12" PRIu64 "  %6.2f%%\n", range,
				f->count[b], f->blocks[b], 100.0 * share(f->blocks[b], f->free_blocks));
		}
	}
	if (!r->against)
		return;
	fprintf(out, "\nagainst '%s' (seed %" PRIu64 ")\n\n", o->against_name ? o->against_name : "-",
		r->p->seed);
	fprintf(out, "  special dirs    %" PRIu64 " (%" PRIu64 " files), excluded from depth and files/dir\n\n",
		r->special_dirs, r->special_files);
	report_print_fit(&r->rep, out);
	fprintf(out, "\nlayout and free space    target    achieved\n");
	if (r->have_layout && r->p->age_rounds)
		fprintf(out, "  layout score          (aged)    %.6f\n", measure_layout_score(l));
	else if (r->have_layout)
		fprintf(out, "  layout score          %.6f  %.6f\n", r->p->layout_score,
			measure_layout_score(l));
	if (r->have_layout && r->p->frag_file_share > 0)
		fprintf(out, "  fragmented share      %.6f  %.6f\n", r->p->frag_file_share,
			share(l->fragmented, l->files));
	if (r->have_layout && r->p->frag_extents > 0)
		fprintf(out, "  extents/fragmented    %8.4f  %8.4f\n", r->p->frag_extents,
			l->fragmented ? (double)l->frag_fragments / (double)l->fragmented : 0);
	if (r->have_layout) {
		fprintf(out, "  sparse files          %8" PRIu64 "  %8" PRIu64 "\n",
			r->sparse_files_target, m->sparse_files);
		fprintf(out, "  hole blocks           %8" PRIu64 "  %8" PRIu64 "\n",
			r->hole_blocks_target, m->hole_blocks);
	}
	if (r->have_free && r->p->age_rounds)
		fprintf(out, "  free below chunk      (aged)    %.6f\n",
			share(r->fr.small_blocks, r->fr.free_blocks));
	else if (r->have_free)
		fprintf(out, "  free below chunk      %.6f  %.6f\n", r->p->free_frag_share,
			share(r->fr.small_blocks, r->fr.free_blocks));
	fprintf(out, "  median age (days)     %8.2f  %8.2f\n", r->p->age_median_days,
		days(measure_quantile(r->ages, n, 0.5)));
}

static json_object *u64_array(const uint64_t *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

static void print_json(const struct mresult *r, const struct mstate *m,
		        const struct measure_opts *o, FILE *out)
{
	const struct measure_layout *l = &m->lay;
	json_object *j = json_object_new_object(), *a, *x;
	uint64_t n = m->nfiles;
	size_t last;

#define ADD(k, v) json_object_object_add(j, k, v)
	ADD("target", json_object_new_string(r->target));
	ADD("reader", json_object_new_string(r->image ? "libext2fs" : "mounted"));
	ADD("block_size", json_object_new_int((int)r->block_size));
	ADD("total_blocks", json_object_new_uint64(r->total_blocks));
	ADD("files", json_object_new_uint64(n));
	ADD("dirs", json_object_new_uint64(m->ndirs));
	ADD("links", json_object_new_uint64(m->hardlinks + m->symlinks));
	ADD("hardlinks", json_object_new_uint64(m->hardlinks));
	ADD("symlinks", json_object_new_uint64(m->symlinks));
	ADD("other_entries", json_object_new_uint64(m->others));
	ADD("unreadable", json_object_new_uint64(r->unreadable));
	ADD("bytes", json_object_new_uint64(m->bytes));
	ADD("mean_size", json_object_new_double(n ? (double)m->bytes / (double)n : 0));
	ADD("median_size", json_object_new_uint64(n ? r->sorted_size[(n - 1) / 2] : 0));
	ADD("max_size", json_object_new_uint64(n ? r->sorted_size[n - 1] : 0));
	ADD("max_depth", json_object_new_int((int)r->max_dir_depth));
	ADD("max_file_depth", json_object_new_int((int)r->max_file_depth));
	/* [0] empty files, [b] files of [2^(b-1), 2^b) bytes */
	for (last = MEASURE_BUCKETS + 1; last > 1 && !r->size_hist[last - 1]; last--)
		;
	ADD("size_histogram", u64_array(r->size_hist, last));
	for (last = REPORT_DEPTHS + 1; last > 1 && !r->depth_files[last - 1]; last--)
		;
	ADD("files_by_depth", u64_array(r->depth_files, last));
	ADD("dirs_by_files", u64_array(r->fpd, MEASURE_FPD_BINS + 2));
	a = json_object_new_array();
	for (size_t i = 0; i < m->ext_tab.n && i < REPORT_TOP_EXT; i++) {
		size_t k = r->ext_order[i];

		x = json_object_new_object();
		json_object_object_add(x, "ext", json_object_new_string(m->ext_tab.name[k]));
		json_object_object_add(x, "files", json_object_new_uint64(m->ext_tab.files[k]));
		json_object_object_add(x, "share", json_object_new_double(share(m->ext_tab.files[k], n)));
		json_object_array_add(a, x);
	}
	ADD("extensions", json_object_new_uint64(m->ext_tab.n));
	ADD("ext_top", a);
	x = json_object_new_object();
	json_object_object_add(x, "ref", json_object_new_int64(r->age_ref));
	for (size_t i = 0; i < ARRAY_SIZE(age_q); i++)
		json_object_object_add(x, age_qname[i],
				       json_object_new_double(days(measure_quantile(r->ages, n, age_q[i]))));
	ADD("age_days", x);

	if (r->have_layout) {
		ADD("layout_score", json_object_new_double(measure_layout_score(l)));
		ADD("layout_files", json_object_new_uint64(l->files));
		ADD("fragmented_files", json_object_new_uint64(l->fragmented));
		ADD("extents", json_object_new_uint64(l->fragments));
		ADD("fragmented_extents", json_object_new_uint64(l->frag_fragments));
		ADD("max_extents", json_object_new_uint64(l->max_fragments));
		ADD("extents_per_file", u64_array(l->per_file, 34));
		for (last = MEASURE_BUCKETS; last > 0 && !l->frag_size[last - 1]; last--)
			;
		ADD("fragment_size_histogram", u64_array(l->frag_size, last));
		ADD("sparse_files", json_object_new_uint64(m->sparse_files));
		ADD("hole_blocks", json_object_new_uint64(m->hole_blocks));
	} else {
		/* the file system reports no extents (no FIEMAP) */
		ADD("layout_score", NULL);
		ADD("fragmented_files", NULL);
		ADD("extents", NULL);
		ADD("sparse_files", NULL);
		ADD("hole_blocks", NULL);
	}

	if (r->have_free) {
		const struct measure_free *f = &r->fr;

		ADD("free_blocks", json_object_new_uint64(f->free_blocks));
		ADD("free_extents", json_object_new_uint64(f->extents));
		ADD("min_free_extent", json_object_new_uint64(f->min_len));
		ADD("max_free_extent", json_object_new_uint64(f->max_len));
		ADD("chunk_bytes", json_object_new_uint64(f->chunk_blocks * r->block_size));
		ADD("total_chunks", json_object_new_uint64(f->total_chunks));
		ADD("free_chunks", json_object_new_uint64(f->free_chunks));
		ADD("free_small_share", json_object_new_double(share(f->small_blocks, f->free_blocks)));
		a = json_object_new_array();
		for (unsigned b = 0; b < MEASURE_BUCKETS; b++) {
			if (!f->count[b])
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "min_blocks", json_object_new_uint64(1ULL << b));
			json_object_object_add(x, "min_bytes",
					       json_object_new_uint64((uint64_t)r->block_size << b));
			json_object_object_add(x, "extents", json_object_new_uint64(f->count[b]));
			json_object_object_add(x, "blocks", json_object_new_uint64(f->blocks[b]));
			json_object_array_add(a, x);
		}
		ADD("free_extent_histogram", a);
	} else {
		ADD("free_extent_histogram", NULL);
	}
	if (r->against) {
		report_add_json(&r->rep, j);
		ADD("against", json_object_new_string(o->against_name ? o->against_name : ""));
		/* aging decides the layout: no score target applies (null) */
		ADD("layout_score_target",
		    r->p->age_rounds ? NULL : json_object_new_double(r->p->layout_score));
		if (r->have_layout && !r->p->age_rounds)
			ADD("layout_score_diff",
			    json_object_new_double(fabs(measure_layout_score(l) - r->p->layout_score)));
		if (r->have_free)
			ADD("free_frag_share_target", r->p->age_rounds ? NULL :
			    json_object_new_double(r->p->free_frag_share));
		ADD("age_median_days_target", json_object_new_double(r->p->age_median_days));
		ADD("sparse_files_target", json_object_new_uint64(r->sparse_files_target));
		ADD("hole_blocks_target", json_object_new_uint64(r->hole_blocks_target));
	}
#undef ADD
	fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}

/* ---- the command ----------------------------------------------------- */

int measure_run(const char *target, const struct measure_opts *o, FILE *out)
{
	struct fsread_error err = { { 0 } };
	struct mstate m = { 0 };
	struct mresult r = { 0 };
	struct fsread *fs = NULL;
	uint64_t chunk;
	int ret;

	m.o = o;
	m.stack_cap = 64;
	m.stack = malloc(m.stack_cap * sizeof(*m.stack));
	if (!m.stack) {
		ret = -ENOMEM;
		goto out_nomem;
	}
	ret = fsread_open(target, FSREAD_EXTENTS | FSREAD_FREE, &fs, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	m.fs = fs;
	if (o->extents_path) {
		m.ext_out = fopen(o->extents_path, "w");
		if (!m.ext_out) {
			ret = -errno;
			fprintf(stderr, "imprint: cannot create '%s': %s\n", o->extents_path,
				strerror(errno));
			goto out_release;
		}
		extents_file_write_header(m.ext_out, fsread_block_size(fs));
	}
	ret = fsread_walk(fs, on_entry, &m, &err);
	if (ret) {
		if (m.ret == -ENOMEM || ret == -ENOMEM)
			goto out_nomem;
		if (m.ret == -E2BIG)
			fprintf(stderr, "imprint: '%s': the tree is too deep to measure\n", target);
		else
			fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	if (m.ext_out) {
		FILE *f = m.ext_out;

		m.ext_out = NULL;
		if (ferror(f) | fclose(f)) {
			ret = -EIO;
			fprintf(stderr, "imprint: cannot write '%s'\n", o->extents_path);
			goto out_release;
		}
	}
	r.target = target;
	r.image = fsread_is_image(fs);
	r.block_size = fsread_block_size(fs);
	r.total_blocks = fsread_total_blocks(fs);
	r.have_layout = fsread_has_extents(fs);
	r.unreadable = fsread_unreadable(fs);
	if (r.unreadable)
		fprintf(stderr, "imprint: '%s': %" PRIu64 " directories or files could not be read (permission): the figures leave them out\n",
			target, r.unreadable);
	if (r.image) {
		const struct fsread_extent *fe;
		size_t nfe;

		ret = fsread_free_extents(fs, &fe, &nfe, &err);
		if (ret) {
			fprintf(stderr, "imprint: %s\n", err.msg);
			goto out_release;
		}
		chunk = o->chunk_bytes ? o->chunk_bytes :
			o->against && o->against->free_chunk ? o->against->free_chunk : 1 << 20;
		chunk /= r.block_size;
		if (!chunk)
			chunk = 1;
		/* 1 KiB blocks: block 0 is the boot block, never free */
		ret = measure_free_hist(fe, nfe, r.total_blocks, r.block_size == 1024 ? 1 : 0, chunk,
					&r.fr);
		if (ret) {
			fprintf(stderr, "imprint: '%s': corrupt: the free extents are out of order\n",
				target);
			goto out_release;
		}
		r.have_free = 1;
	}
	ret = compute(&r, &m, o);
	if (ret == -ENOMEM)
		goto out_nomem;
	if (ret)
		goto out_release;
	if (o->json)
		print_json(&r, &m, o, out);
	else
		print_text(&r, &m, o, out);
	goto out_release;
out_nomem:
	fprintf(stderr, "imprint: '%s': out of memory\n", target);
out_release:
	if (m.ext_out)
		fclose(m.ext_out);
	mresult_release(&r);
	mstate_release(&m);
	fsread_close(fs);
	return ret;
}
