/* generation.c - generation N of a plan: generations 1..N of the change model applied in turn */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/generation.h"
#include "plan/plan_int.h"
#include "util/array.h"

#define BLOCK 4096u

/* Extensions whose files grow by appends (logs, mail folders, tables of records). */
static const char *const append_exts[] = {
	"log", "csv", "tsv", "out", "err", "mbox", "jsonl", "trace", NULL
};
/* Extensions whose files are edited in place, a few blocks at a time (databases, disks). */
static const char *const block_exts[] = {
	"db", "sqlite", "sqlite3", "dat", "img", "vmdk", "qcow2", "vdi", "vhd", "vhdx", "pst",
	"ost", "mdb", "accdb", "idx", "bin", "iso", "raw", "dbf", "ibd", "frm", "wal", "edb", NULL
};

static int ext_in(const char *ext, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(ext, *list))
			return 1;
	return 0;
}

/*
 * An entry's name as last made (unique_arrivals makes the names of a
 * directory's residents again at each arrival): what it was made of, and
 * where its text is in gstate.memo_buf.  len 0: none made yet.
 */
struct name_memo {
	uint64_t id;
	uint32_t off;
	uint16_t ext;
	uint8_t var, len;
};

/* The evolving tree, by stable key: files and directories never renumbered. */
struct gstate {
	const struct plan *b;
	const struct params *p;
	uint64_t nf, capf;
	uint8_t *f_alive, *f_pin, *f_modes, *f_var, *f_in;
	uint16_t *f_ext;
	uint32_t *f_dir, *f_tgen, *f_cgen, *f_chg, *f_last;
	uint64_t *f_size, *f_name;
	uint32_t nd, capd;
	uint8_t *d_alive, *d_pin, *d_depth, *d_var, *d_in;
	uint32_t *d_parent, *d_tgen, *d_cgen, *d_nchild;
	uint64_t *d_name;
	struct plan_gen_edit *edit;
	uint32_t nedits, capedits;
	struct plan_gen_counts c;
	uint64_t bytes0;   /* bytes of generation 0's files */
	struct name_memo *f_memo, *d_memo;
	char *memo_buf;    /* the names of the memos, NUL-terminated */
	size_t memo_used, memo_cap;
};

#define GROW(arr, n, cap) \
	do { \
		void *np_ = realloc((arr), (size_t)(cap) * sizeof(*(arr))); \
		if (!np_) \
			return -ENOMEM; \
		(arr) = np_; \
		memset((arr) + (n), 0, (size_t)((cap) - (n)) * sizeof(*(arr))); \
	} while (0)

static int files_reserve(struct gstate *s, uint64_t want)
{
	uint64_t cap = s->capf ? s->capf : 64, n = s->capf;

	if (want <= s->capf)
		return 0;
	while (cap < want)
		cap *= 2;
	GROW(s->f_alive, n, cap); GROW(s->f_pin, n, cap); GROW(s->f_modes, n, cap);
	GROW(s->f_var, n, cap); GROW(s->f_in, n, cap); GROW(s->f_ext, n, cap);
	GROW(s->f_dir, n, cap); GROW(s->f_tgen, n, cap); GROW(s->f_cgen, n, cap);
	GROW(s->f_chg, n, cap); GROW(s->f_last, n, cap); GROW(s->f_size, n, cap);
	GROW(s->f_name, n, cap); GROW(s->f_memo, n, cap);
	s->capf = cap;
	return 0;
}

static int dirs_reserve(struct gstate *s, uint32_t want)
{
	uint32_t cap = s->capd ? s->capd : 64, n = s->capd;

	if (want <= s->capd)
		return 0;
	while (cap < want)
		cap *= 2;
	GROW(s->d_alive, n, cap); GROW(s->d_pin, n, cap); GROW(s->d_depth, n, cap);
	GROW(s->d_var, n, cap); GROW(s->d_in, n, cap); GROW(s->d_parent, n, cap);
	GROW(s->d_tgen, n, cap); GROW(s->d_cgen, n, cap); GROW(s->d_nchild, n, cap);
	GROW(s->d_name, n, cap); GROW(s->d_memo, n, cap);
	s->capd = cap;
	return 0;
}

static void gstate_free(struct gstate *s)
{
	FREE_ALL(s->f_alive, s->f_pin, s->f_modes, s->f_var, s->f_in, s->f_ext, s->f_dir,
		 s->f_tgen, s->f_cgen, s->f_chg, s->f_last, s->f_size, s->f_name);
	FREE_ALL(s->d_alive, s->d_pin, s->d_depth, s->d_var, s->d_in, s->d_parent, s->d_tgen,
		 s->d_cgen, s->d_nchild, s->d_name, s->edit);
	FREE_ALL(s->f_memo, s->d_memo, s->memo_buf);
}

static int add_edit(struct gstate *s, uint64_t key, unsigned kind, uint32_t gen, uint64_t from,
		    uint64_t to)
{
	if (s->nedits == s->capedits) {
		uint32_t cap = s->capedits ? s->capedits * 2 : 256;
		void *np = realloc(s->edit, (size_t)cap * sizeof(*s->edit));

		if (!np)
			return -ENOMEM;
		s->edit = np;
		s->capedits = cap;
	}
	s->edit[s->nedits] = (struct plan_gen_edit){ .from = from, .to = to, .gen = gen,
						      .prev = s->f_last[key], .kind = (uint8_t)kind };
	s->f_last[key] = s->nedits++;
	return 0;
}

/* Generation 0 as a state; links pin their targets and their directories. */
static int gstate_init(struct gstate *s, const struct plan *b)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->b = b;
	s->p = &b->prm;
	ret = files_reserve(s, b->nfiles + 1);
	if (!ret)
		ret = dirs_reserve(s, b->ndirs + 1);
	if (ret)
		return ret;
	s->nf = b->nfiles;
	s->nd = b->ndirs;
	for (uint64_t f = 0; f < b->nfiles; f++)
		s->bytes0 += b->file_size[f];
	for (uint64_t f = 0; f < b->nfiles; f++) {
		s->f_alive[f] = 1;
		s->f_var[f] = b->file_variant[f];
		s->f_ext[f] = b->file_ext[f];
		s->f_dir[f] = b->file_dir[f];
		s->f_chg[f] = UINT32_MAX;
		s->f_last[f] = PLAN_NONE;
		s->f_size[f] = b->file_size[f];
		s->f_name[f] = f;
		if (b->file_nlink && b->file_nlink[f] > 1)
			s->f_pin[f] = 1;
	}
	for (uint32_t d = 0; d < b->ndirs; d++) {
		s->d_alive[d] = 1;
		s->d_depth[d] = b->dir_depth[d];
		s->d_var[d] = b->dir_variant[d];
		s->d_parent[d] = b->dir_parent[d];
		s->d_name[d] = d;
		if (d)
			s->d_nchild[b->dir_parent[d]]++;
		if (b->dir_nlinks[d])
			s->d_pin[d] = 1;
	}
	s->d_pin[0] = 1;
	for (uint32_t l = 0; l < b->nlinks; l++) {
		uint8_t k = b->link_kind[l];

		if (k & LINK_SPECIAL)
			continue;
		if (k & (LINK_HARD | LINK_SYM_FILE))
			s->f_pin[b->link_target[l]] = 1;
		else if (k & LINK_SYM_DIR)
			s->d_pin[b->link_target[l]] = 1;
	}
	for (uint64_t f = 0; f < b->nfiles; f++)
		if (s->f_pin[f])
			s->d_pin[s->f_dir[f]] = 1;
	return 0;
}

/* The key of a stream's draws in generation g (rng_open(r, key, id) per entry). */
static uint64_t gen_key(const struct params *p, const char *stream, uint32_t g)
{
	return rng_stream_key(p->seed, stream) ^ rng_mix64((uint64_t)g + 1);
}

static void gen_rng(struct rng *r, const struct params *p, const char *stream, uint32_t g,
		    uint64_t id)
{
	rng_open(r, gen_key(p, stream, g), id);
}

/* The kind of modification a file of extension ext gets (u: a uniform draw). */
static unsigned modify_kind(const struct params *p, const char *ext, double u)
{
	if (ext_in(ext, append_exts))
		return u < p->gen_truncate_share ? GEN_EDIT_TRUNCATE : GEN_EDIT_APPEND;
	if (ext_in(ext, block_exts))
		return GEN_EDIT_BLOCKS;
	return GEN_EDIT_REWRITE;
}

static int modify(struct gstate *s, uint64_t k, uint32_t g, struct rng *r)
{
	const struct params *p = s->p;
	const char *ext = s->b->ext.name[s->f_ext[k]];
	unsigned kind = modify_kind(p, ext, rng_uniform(r));
	uint64_t size = s->f_size[k], to = size, from = 0, min = ext_min_size(ext);
	double u = rng_uniform(r);

	switch (kind) {
	case GEN_EDIT_APPEND:
		from = size;
		to = size + 64 + (uint64_t)(-log(u) * p->gen_append_share * (double)size);
		s->c.bytes[kind] += to - from;
		break;
	case GEN_EDIT_TRUNCATE:
		to = (uint64_t)(u * (double)size);
		s->c.bytes[kind] += size - to;
		break;
	case GEN_EDIT_BLOCKS:
		if (!size) {
			kind = GEN_EDIT_APPEND;
			to = 64 + (uint64_t)(u * 4096);
			s->c.bytes[kind] += to;
			break;
		}
		from = rng_below(r, (size + BLOCK - 1) / BLOCK);
		break;
	default:
		/*
		 * a document saved again: about its old size; a stub of a few bytes
		 * (whose rewrite could come out the same) gets a body
		 */
		to = size >= 256 ? (uint64_t)((double)size * (0.9 + 0.2 * u)) :
				   256 + (uint64_t)(u * 4096);
		if (to < min)
			to = min;
		s->c.bytes[kind] += to;
		break;
	}
	s->f_size[k] = to;
	s->c.files[kind]++;
	return add_edit(s, k, kind, g, from, to);
}

/* Uniform choice among the live directories in list (n of them), or 0 (the root). */
static uint32_t pick_dir(const uint32_t *list, uint32_t n, struct rng *r)
{
	return n ? list[rng_below(r, n)] : 0;
}

/* Directory removals (leaves, unpinned) and the file loop of generation g. */
static int change_files(struct gstate *s, uint32_t g, const uint32_t *alive_dirs, uint32_t nad)
{
	const struct params *p = s->p;
	uint64_t key = gen_key(p, "gen.file", g);
	struct rng r;
	int ret;

	for (uint64_t k = 0; k < s->nf; k++) {
		uint32_t d = s->f_dir[k];
		double m, pdel, pren, pmov, pmod, pmeta, sum, u;

		if (!s->f_alive[k])
			continue;
		if (!s->d_alive[d]) {
			s->f_alive[k] = 0;
			s->c.files_deleted++;
			s->c.bytes_deleted += s->f_size[k];
			continue;
		}
		rng_open(&r, key, k);
		m = g > 1 && s->f_chg[k] == g - 1 ? p->gen_repeat_factor : 1;
		pdel = s->f_pin[k] ? 0 : p->gen_delete_share * m;
		pren = s->f_pin[k] ? 0 : p->gen_rename_share * m;
		pmov = s->f_pin[k] || nad < 2 ? 0 : p->gen_move_share * m;
		pmod = p->gen_modify_share * m;
		pmeta = p->gen_meta_share * m;
		sum = pdel + pren + pmov + pmod + pmeta;
		u = rng_uniform(&r) * (sum > 1 ? sum : 1);
		if (u < pdel) {
			s->f_alive[k] = 0;
			s->c.files_deleted++;
			s->c.bytes_deleted += s->f_size[k];
			s->d_tgen[d] = g;
			continue;
		}
		u -= pdel;
		if (u < pren) {
			s->f_name[k] = rng_mix64(k ^ ((uint64_t)g << 44)) | (UINT64_C(1) << 63);
			s->f_in[k] = 1;
			s->d_tgen[d] = g;
			s->f_chg[k] = g;
			s->c.files_renamed++;
			continue;
		}
		u -= pren;
		if (u < pmov) {
			uint32_t to = d;

			while (to == d)
				to = pick_dir(alive_dirs, nad, &r);
			s->f_dir[k] = to;
			s->f_in[k] = 1;
			s->d_tgen[d] = s->d_tgen[to] = g;
			s->f_chg[k] = g;
			s->c.files_moved++;
			continue;
		}
		u -= pmov;
		if (u < pmod) {
			ret = modify(s, k, g, &r);
			if (ret)
				return ret;
			s->f_tgen[k] = s->f_chg[k] = g;
			continue;
		}
		u -= pmod;
		if (u < pmeta) {
			s->f_tgen[k] = s->f_chg[k] = g;
			s->c.files_meta++;
			if (rng_uniform(&r) < p->gen_mode_share) {
				s->f_modes[k]++;
				s->c.files_mode++;
			}
			continue;
		}
		s->c.files_unchanged++;
	}
	return 0;
}

/* Bytes of the live files. */
static uint64_t live_bytes(const struct gstate *s)
{
	uint64_t n = 0;

	for (uint64_t k = 0; k < s->nf; k++)
		if (s->f_alive[k])
			n += s->f_size[k];
	return n;
}

/*
 * New directories and files of generation g.  With gen_growth_share >= 0,
 * new files are drawn until the tree holds (1 + gen_growth_share)^g times
 * generation 0's bytes (at most nalive_files + 1024 of them: a generation
 * whose last new file overshot makes the next one draw fewer, so the
 * fill does not drift); else gen_create_share of nalive_files.
 */
static int create_entries(struct gstate *s, uint32_t g, const uint32_t *alive_dirs, uint32_t nad,
			  uint64_t nalive_files)
{
	const struct params *p = s->p;
	const struct plan *b = s->b;
	int by_bytes = p->gen_growth_share >= 0;
	uint32_t first_new = s->nd, ndn;
	uint64_t nfn, now = 0, target = 0;
	struct rng r;
	int ret;

	gen_rng(&r, p, "gen.create", g, 0);
	ndn = (uint32_t)floor(p->gen_dir_create_share * nad + rng_uniform(&r));
	ret = dirs_reserve(s, s->nd + ndn + 1);
	if (ret)
		return ret;
	for (uint32_t i = 0; i < ndn; i++) {
		uint32_t par = pick_dir(alive_dirs, nad, &r), d = s->nd;

		if (s->d_depth[par] >= DEPTH_SLOTS - 2)
			par = 0;
		s->nd++;
		s->d_alive[d] = 1;
		s->d_parent[d] = par;
		s->d_depth[d] = (uint8_t)(s->d_depth[par] + 1);
		s->d_name[d] = d;
		s->d_cgen[d] = s->d_tgen[d] = g;
		s->d_in[d] = 1;
		s->d_nchild[par]++;
		s->d_tgen[par] = g;
		s->c.dirs_created++;
	}
	if (by_bytes) {
		now = live_bytes(s);
		target = (uint64_t)((double)s->bytes0 * pow(1 + p->gen_growth_share, g));
		nfn = now < target ? nalive_files + 1024 : 0;
	} else {
		nfn = (uint64_t)floor(p->gen_create_share * (double)nalive_files + rng_uniform(&r));
	}
	for (uint64_t i = 0; i < nfn && (!by_bytes || now < target); i++) {
		uint64_t k, size, min;
		uint32_t d;
		size_t e;

		ret = files_reserve(s, s->nf + 2);
		if (ret)
			return ret;
		k = s->nf++;
		gen_rng(&r, p, "gen.new", g, i);
		if (b->nfiles) {
			/* size and extension together, as generation 0 has them (its sizes
			 * were fitted to 'used': the law's own draws are not) */
			uint64_t like = rng_below(&r, b->nfiles);

			size = b->file_size[like];
			e = b->file_ext[like];
		} else {
			size = size_model_bytes(&b->size, rng_uniform(&r));
			e = draw_index(b->ext.share, b->ext.count, rng_uniform(&r));
		}
		min = ext_min_size(b->ext.name[e]);
		if (size < min)
			size = min;
		if (ndn && rng_uniform(&r) < p->gen_new_dir_files_share)
			d = first_new + (uint32_t)rng_below(&r, ndn);
		else
			d = pick_dir(alive_dirs, nad, &r);
		s->f_alive[k] = 1;
		s->f_ext[k] = (uint16_t)e;
		s->f_dir[k] = d;
		s->f_size[k] = size;
		s->f_name[k] = k;
		s->f_cgen[k] = s->f_tgen[k] = s->f_chg[k] = g;
		s->f_last[k] = PLAN_NONE;
		s->f_in[k] = 1;
		s->d_tgen[d] = g;
		s->c.files[GEN_EDIT_CREATE]++;
		s->c.bytes[GEN_EDIT_CREATE] += size;
		now += size;
		ret = add_edit(s, k, GEN_EDIT_CREATE, g, 0, size);
		if (ret)
			return ret;
	}
	return 0;
}

/* Live entries by directory: start[d]..start[d+1] in by[] (keys ascending). */
struct by_dir {
	uint64_t *fstart, *fby;
	uint32_t *dstart, *dby;
};

static int by_dir_build(const struct gstate *s, struct by_dir *x)
{
	x->fstart = calloc((size_t)s->nd + 1, sizeof(*x->fstart));
	x->dstart = calloc((size_t)s->nd + 1, sizeof(*x->dstart));
	x->fby = plan_xalloc(s->nf, sizeof(*x->fby));
	x->dby = plan_xalloc(s->nd, sizeof(*x->dby));
	if (!x->fstart || !x->dstart || !x->fby || !x->dby)
		return -ENOMEM;
	for (uint64_t k = 0; k < s->nf; k++)
		if (s->f_alive[k])
			x->fstart[s->f_dir[k] + 1]++;
	for (uint32_t d = 1; d < s->nd; d++)
		if (s->d_alive[d])
			x->dstart[s->d_parent[d] + 1]++;
	for (uint32_t d = 0; d < s->nd; d++) {
		x->fstart[d + 1] += x->fstart[d];
		x->dstart[d + 1] += x->dstart[d];
	}
	{
		uint64_t *fcur = malloc(((size_t)s->nd + 1) * sizeof(*fcur));
		uint32_t *dcur = malloc(((size_t)s->nd + 1) * sizeof(*dcur));

		if (!fcur || !dcur) {
			free(fcur);
			free(dcur);
			return -ENOMEM;
		}
		memcpy(fcur, x->fstart, ((size_t)s->nd + 1) * sizeof(*fcur));
		memcpy(dcur, x->dstart, ((size_t)s->nd + 1) * sizeof(*dcur));
		for (uint64_t k = 0; k < s->nf; k++)
			if (s->f_alive[k])
				x->fby[fcur[s->f_dir[k]]++] = k;
		for (uint32_t d = 1; d < s->nd; d++)
			if (s->d_alive[d])
				x->dby[dcur[s->d_parent[d]]++] = d;
		free(fcur);
		free(dcur);
	}
	return 0;
}

static void by_dir_free(struct by_dir *x)
{
	FREE_ALL(x->fstart, x->fby, x->dstart, x->dby);
}

static size_t file_name_v(const struct gstate *s, uint64_t k, unsigned v, char *buf)
{
	return name_make(buf, &s->b->names, NAME_FILE, s->f_name[k], s->b->ext.name[s->f_ext[k]], v);
}

static size_t dir_name_v(const struct gstate *s, uint32_t d, unsigned v, char *buf)
{
	return name_make(buf, &s->b->names, NAME_DIR, s->d_name[d], "", v);
}

/*
 * The name of file k (is_dir 0) or directory k under variant v, as
 * file_name_v() or dir_name_v() make it, from the entry's memo: made again
 * only when its name id, extension or variant changed since.  buf (of
 * NAME_MAX_LEN + 1) holds it only when it cannot be kept.  *len gets its
 * length; NULL on -ENOMEM.
 */
static const char *name_memo(struct gstate *s, int is_dir, uint64_t k, unsigned v, char *buf,
			     size_t *len)
{
	struct name_memo *m = is_dir ? &s->d_memo[k] : &s->f_memo[k];
	uint64_t id = is_dir ? s->d_name[k] : s->f_name[k];
	uint16_t ext = is_dir ? 0 : s->f_ext[k];
	size_t n;

	if (m->len && m->id == id && m->ext == ext && m->var == v) {
		*len = m->len;
		return s->memo_buf + m->off;
	}
	n = is_dir ? dir_name_v(s, (uint32_t)k, v, buf) : file_name_v(s, k, v, buf);
	*len = n;
	m->len = 0;
	if (!n || n > UINT8_MAX || v > UINT8_MAX || s->memo_used + n + 1 > UINT32_MAX)
		return buf;
	if (array_grow(&s->memo_buf, &s->memo_cap, s->memo_used + n + 1, 1))
		return NULL;
	memcpy(s->memo_buf + s->memo_used, buf, n + 1);
	*m = (struct name_memo){ .id = id, .off = (uint32_t)s->memo_used, .ext = ext,
				 .var = (uint8_t)v, .len = (uint8_t)n };
	s->memo_used += n + 1;
	return s->memo_buf + m->off;
}

static unsigned next_variant(unsigned v)
{
	return v < NAME_VARIANT_REDRAWS ? v + 1 : NAME_VARIANT_UNIQUE;
}

/* The first variant of an arriving directory (is_dir) or file whose name ns lacks; 0 or -ENOMEM. */
static int take_variant(struct plan_name_set *ns, struct gstate *s, int is_dir, uint64_t id)
{
	char buf[NAME_MAX_LEN + 1];

	for (unsigned v = 0;; v = next_variant(v)) {
		size_t len;
		const char *name = name_memo(s, is_dir, id, v, buf, &len);
		int r = name ? plan_name_set_add(ns, name, len) : -ENOMEM;

		if (r < 0)
			return r;
		if (r) {
			if (is_dir) {
				s->d_var[id] = (uint8_t)v;
				s->d_in[id] = 0;
			} else {
				s->f_var[id] = (uint8_t)v;
				s->f_in[id] = 0;
			}
			return 0;
		}
	}
}

/* A resident's name into ns (name_memo()); 0 or -ENOMEM. */
static int add_memo(struct plan_name_set *ns, struct gstate *s, int is_dir, uint64_t k,
		    unsigned v, char *buf)
{
	size_t len;
	const char *name = name_memo(s, is_dir, k, v, buf, &len);

	if (!name || plan_name_set_add(ns, name, len) < 0)
		return -ENOMEM;
	return 0;
}

/*
 * Names of the entries that arrived in a directory in this generation
 * (renamed, moved, new), unique among those already there: they keep
 * theirs, the arrivals take the first free variant, directories first.
 */
static int unique_arrivals(struct gstate *s)
{
	struct plan_name_set ns = { 0 };
	struct by_dir x = { 0 };
	char buf[NAME_MAX_LEN + 1];
	int ret = by_dir_build(s, &x);

	for (uint32_t d = 0; !ret && d < s->nd; d++) {
		int any = 0;
		uint64_t entries = 1 + (x.fstart[d + 1] - x.fstart[d]) + (x.dstart[d + 1] - x.dstart[d]);

		if (!s->d_alive[d])
			continue;
		for (uint64_t i = x.fstart[d]; i < x.fstart[d + 1] && !any; i++)
			any = s->f_in[x.fby[i]];
		for (uint32_t i = x.dstart[d]; i < x.dstart[d + 1] && !any; i++)
			any = s->d_in[x.dby[i]];
		if (!any)
			continue;
		if (d < s->b->ndirs)
			entries += s->b->dir_nlinks[d];
		ret = plan_name_set_reset(&ns, entries);
		if (ret)
			break;
		if (d == 0 && plan_name_set_add(&ns, "lost+found", 10) < 0)
			ret = -ENOMEM;
		for (uint32_t i = x.dstart[d]; !ret && i < x.dstart[d + 1]; i++)
			if (!s->d_in[x.dby[i]])
				ret = add_memo(&ns, s, 1, x.dby[i], s->d_var[x.dby[i]], buf);
		for (uint64_t i = x.fstart[d]; !ret && i < x.fstart[d + 1]; i++)
			if (!s->f_in[x.fby[i]])
				ret = add_memo(&ns, s, 0, x.fby[i], s->f_var[x.fby[i]], buf);
		if (d < s->b->ndirs)
			for (uint32_t l = s->b->dir_first_link[d];
			     !ret && l < s->b->dir_first_link[d] + s->b->dir_nlinks[d]; l++)
				if (plan_name_set_add(&ns, buf, plan_link_name(s->b, l, buf)) < 0)
					ret = -ENOMEM;
		for (uint32_t i = x.dstart[d]; !ret && i < x.dstart[d + 1]; i++)
			if (s->d_in[x.dby[i]])
				ret = take_variant(&ns, s, 1, x.dby[i]);
		for (uint64_t i = x.fstart[d]; !ret && i < x.fstart[d + 1]; i++)
			if (s->f_in[x.fby[i]])
				ret = take_variant(&ns, s, 0, x.fby[i]);
	}
	plan_name_set_free(&ns);
	by_dir_free(&x);
	return ret;
}

/* One generation, g, applied to the state of g - 1. */
static int apply_one(struct gstate *s, uint32_t g)
{
	const struct params *p = s->p;
	uint32_t *alive = plan_xalloc(s->nd, sizeof(*alive)), nad = 0;
	uint64_t nfiles = 0, key = gen_key(p, "gen.dir", g);
	struct rng r;
	int ret;

	if (!alive)
		return -ENOMEM;
	memset(&s->c, 0, sizeof(s->c));
	/* directory removals: leaves of g - 1 that nothing pins */
	for (uint32_t d = 1; d < s->nd; d++) {
		if (!s->d_alive[d] || s->d_pin[d] || s->d_nchild[d])
			continue;
		rng_open(&r, key, d);
		if (rng_uniform(&r) < p->gen_dir_remove_share) {
			s->d_alive[d] = 0;
			s->d_nchild[s->d_parent[d]]--;
			s->d_tgen[s->d_parent[d]] = g;
			s->c.dirs_removed++;
		}
	}
	for (uint32_t d = 0; d < s->nd; d++)
		if (s->d_alive[d])
			alive[nad++] = d;
	ret = change_files(s, g, alive, nad);
	if (ret)
		goto out;
	for (uint64_t k = 0; k < s->nf; k++)
		nfiles += s->f_alive[k];
	ret = create_entries(s, g, alive, nad, nfiles);
	if (!ret)
		ret = unique_arrivals(s);
out:
	free(alive);
	return ret;
}

/* 4 KiB blocks of the files of generation g, and those generation g left as they were. */
static void count_blocks(struct gstate *s, uint32_t g)
{
	for (uint64_t k = 0; k < s->nf; k++) {
		uint64_t nb, changed = 0;
		const struct plan_gen_edit *e;

		if (!s->f_alive[k])
			continue;
		nb = (s->f_size[k] + BLOCK - 1) / BLOCK;
		s->c.blocks += nb;
		if (s->f_last[k] == PLAN_NONE || (e = &s->edit[s->f_last[k]])->gen != g) {
			s->c.blocks_kept += nb;
			continue;
		}
		switch (e->kind) {
		case GEN_EDIT_APPEND:
			changed = nb - e->from / BLOCK;
			break;
		case GEN_EDIT_TRUNCATE:
			changed = e->to % BLOCK ? 1 : 0;
			break;
		case GEN_EDIT_BLOCKS:
			for (uint64_t b = 0; b < nb; b++) {
				if (plan_gen_block_edited(k, e, b, s->p->gen_edit_block_share)) {
					changed++;
					s->c.bytes[GEN_EDIT_BLOCKS] += MIN((uint64_t)BLOCK,
									   e->to - b * BLOCK);
				}
			}
			break;
		default:
			changed = nb;
			break;
		}
		s->c.blocks_kept += nb - changed;
	}
}

static int refuse(const struct params *p, struct plan_error *err)
{
	const char *what = p->special_dirs ? "special_dirs" :
			   p->dev_dir != DEV_DIR_NONE ? "dev_dir" :
			   p->special_file_share > 0 ? "special_file_share" :
			   p->xattr_selinux != SELINUX_NONE ? "xattr_selinux" :
			   p->xattr_user_share > 0 ? "xattr_user_share" :
			   p->acl_share > 0 ? "acl_share" :
			   p->sparse_file_share > 0 ? "sparse_file_share" :
			   p->prealloc_file_share > 0 ? "prealloc_file_share" : NULL;

	if (!what)
		return 0;
	plan_fail(err, "--generation: '%s' is not supported by the change model yet "
		  "(allowed with --generation above 0: its default, none or 0)", what);
	return -EINVAL;
}

/* The plan of the state: arrays in directory order, as plan_build makes them. */
static int build_plan(struct plan *pl, struct gstate *s, struct plan_gen *g)
{
	const struct plan *b = s->b;
	uint32_t *didx = plan_xalloc(s->nd, sizeof(*didx)), nd = 0, lrun = 0;
	uint64_t *fidx = plan_xalloc(s->nf, sizeof(*fidx)), nf = 0;
	struct by_dir x = { 0 };
	int ret = -ENOMEM;

	if (!didx || !fidx || by_dir_build(s, &x))
		goto out;
	for (uint32_t d = 0; d < s->nd; d++)
		if (s->d_alive[d])
			didx[d] = nd++;
	pl->ndirs = pl->nregular_dirs = nd;
	pl->dir_parent = plan_xalloc(nd, sizeof(uint32_t));
	pl->dir_depth = plan_xalloc(nd, 1);
	pl->dir_variant = plan_xalloc(nd, 1);
	pl->dir_first_child = plan_xalloc(nd, sizeof(uint32_t));
	pl->dir_next_sibling = plan_xalloc(nd, sizeof(uint32_t));
	pl->dir_first_file = plan_xalloc(nd, sizeof(uint32_t));
	pl->dir_nfiles = plan_xalloc(nd, sizeof(uint32_t));
	pl->dir_first_link = plan_xalloc(nd, sizeof(uint32_t));
	pl->dir_nlinks = plan_xalloc(nd, sizeof(uint32_t));
	g->dir_key = plan_xalloc(nd, sizeof(uint32_t));
	g->dir_name_id = plan_xalloc(nd, sizeof(uint64_t));
	g->dir_tgen = plan_xalloc(nd, sizeof(uint32_t));
	g->dir_cgen = plan_xalloc(nd, sizeof(uint32_t));
	for (uint64_t k = 0; k < s->nf; k++)
		nf += s->f_alive[k];
	pl->nfiles = pl->nregular_files = nf;
	pl->file_size = plan_xalloc(nf, sizeof(uint64_t));
	pl->file_ext = plan_xalloc(nf, sizeof(uint16_t));
	pl->file_dir = plan_xalloc(nf, sizeof(uint32_t));
	pl->file_variant = plan_xalloc(nf, 1);
	g->file_key = plan_xalloc(nf, sizeof(uint64_t));
	g->file_name_id = plan_xalloc(nf, sizeof(uint64_t));
	g->file_tgen = plan_xalloc(nf, sizeof(uint32_t));
	g->file_cgen = plan_xalloc(nf, sizeof(uint32_t));
	g->file_modes = plan_xalloc(nf, 1);
	g->file_last_edit = plan_xalloc(nf, sizeof(uint32_t));
	if (!pl->dir_parent || !pl->dir_depth || !pl->dir_variant || !pl->dir_first_child ||
	    !pl->dir_next_sibling || !pl->dir_first_file || !pl->dir_nfiles ||
	    !pl->dir_first_link || !pl->dir_nlinks || !g->dir_key || !g->dir_name_id ||
	    !g->dir_tgen || !g->dir_cgen || !pl->file_size || !pl->file_ext || !pl->file_dir ||
	    !pl->file_variant || !g->file_key || !g->file_name_id || !g->file_tgen ||
	    !g->file_cgen || !g->file_modes || !g->file_last_edit)
		goto out;
	nf = 0;
	for (uint32_t d = 0; d < s->nd; d++) {
		uint32_t j;

		if (!s->d_alive[d])
			continue;
		j = didx[d];
		pl->dir_parent[j] = d ? didx[s->d_parent[d]] : 0;
		pl->dir_depth[j] = s->d_depth[d];
		pl->dir_variant[j] = s->d_var[d];
		g->dir_key[j] = d;
		g->dir_name_id[j] = s->d_name[d];
		g->dir_tgen[j] = s->d_tgen[d];
		g->dir_cgen[j] = s->d_cgen[d];
		pl->dir_first_file[j] = (uint32_t)nf;
		pl->dir_nfiles[j] = (uint32_t)(x.fstart[d + 1] - x.fstart[d]);
		if (d < b->ndirs && b->dir_nlinks[d]) {
			pl->dir_first_link[j] = b->dir_first_link[d];
			pl->dir_nlinks[j] = b->dir_nlinks[d];
			lrun = b->dir_first_link[d] + b->dir_nlinks[d];
		} else {
			pl->dir_first_link[j] = lrun;
		}
		for (uint64_t i = x.fstart[d]; i < x.fstart[d + 1]; i++, nf++) {
			uint64_t k = x.fby[i];

			fidx[k] = nf;
			pl->file_size[nf] = s->f_size[k];
			pl->file_ext[nf] = s->f_ext[k];
			pl->file_dir[nf] = j;
			pl->file_variant[nf] = s->f_var[k];
			pl->bytes += s->f_size[k];
			g->file_key[nf] = k;
			g->file_name_id[nf] = s->f_name[k];
			g->file_tgen[nf] = s->f_tgen[k];
			g->file_cgen[nf] = s->f_cgen[k];
			g->file_modes[nf] = s->f_modes[k];
			g->file_last_edit[nf] = s->f_last[k];
		}
	}
	plan_children(pl);
	pl->nlinks = b->nlinks;
	if (b->nlinks) {
		pl->link_dir = plan_xalloc(b->nlinks, sizeof(uint32_t));
		pl->link_target = plan_xalloc(b->nlinks, sizeof(uint32_t));
		pl->link_kind = plan_xalloc(b->nlinks, 1);
		pl->link_variant = plan_xalloc(b->nlinks, 1);
		if (!pl->link_dir || !pl->link_target || !pl->link_kind || !pl->link_variant)
			goto out;
		for (uint32_t l = 0; l < b->nlinks; l++) {
			uint8_t k = b->link_kind[l];
			uint32_t t = b->link_target[l];

			pl->link_dir[l] = didx[b->link_dir[l]];
			pl->link_kind[l] = k;
			pl->link_variant[l] = b->link_variant[l];
			if (k & (LINK_HARD | LINK_SYM_FILE))
				t = (uint32_t)fidx[t];
			else if (k & LINK_SYM_DIR)
				t = didx[t];
			pl->link_target[l] = t;
		}
	}
	if (b->file_nlink) {
		pl->file_nlink = plan_xalloc(pl->nfiles, sizeof(uint32_t));
		if (!pl->file_nlink)
			goto out;
		for (uint64_t f = 0; f < pl->nfiles; f++)
			pl->file_nlink[f] = g->file_key[f] < b->nfiles ? b->file_nlink[g->file_key[f]] : 1;
	}
	ret = 0;
out:
	by_dir_free(&x);
	FREE_ALL(didx, fidx);
	return ret;
}

/* Free what build_plan() and its caller gave pl (not its base) and zero it. */
static void gen_plan_free(struct plan *pl)
{
	plan_gen_free(pl->gen);
	FREE_ALL(pl->dir_parent, pl->dir_depth, pl->dir_variant, pl->dir_first_child,
		 pl->dir_next_sibling, pl->dir_first_file, pl->dir_nfiles, pl->dir_first_link,
		 pl->dir_nlinks, pl->file_size, pl->file_ext, pl->file_dir, pl->file_variant,
		 pl->file_nlink, pl->link_dir, pl->link_target, pl->link_kind, pl->link_variant);
	memset(pl, 0, sizeof(*pl));
}

/*
 * prev (zeroed) as generation s's state, n - 1, of base (borrowed: pl owns
 * it); its edits are a copy of those so far.
 */
static int build_prev(struct plan *prev, struct gstate *s, struct plan *base, uint32_t n)
{
	struct plan_gen *g = calloc(1, sizeof(*g));
	int ret;

	if (!g)
		return -ENOMEM;
	count_blocks(s, n - 1);
	prev->prm = base->prm;
	prev->prm.generation = n - 1;
	prev->size = base->size;
	prev->ext = base->ext;
	prev->names = base->names;
	memcpy(prev->depth_target, base->depth_target, sizeof(prev->depth_target));
	g->n = n - 1;
	g->base = base;
	g->base_borrowed = 1;
	g->counts = s->c;
	prev->gen = g;
	ret = build_plan(prev, s, g);
	if (!ret && s->nedits) {
		g->edit = malloc((size_t)s->nedits * sizeof(*g->edit));
		if (g->edit)
			memcpy(g->edit, s->edit, (size_t)s->nedits * sizeof(*g->edit));
		else
			ret = -ENOMEM;
	}
	g->nedits = s->nedits;
	if (ret)
		gen_plan_free(prev);
	return ret;
}

int plan_generation_apply(struct plan *pl, uint32_t n, struct plan_error *err)
{
	return plan_generation_apply2(pl, NULL, n, err);
}

int plan_generation_apply2(struct plan *pl, struct plan *prev, uint32_t n,
			   struct plan_error *err)
{
	struct plan *base;
	struct plan_gen *g;
	struct gstate s;
	int ret;

	if (!n)
		return 0;
	ret = refuse(&pl->prm, err);
	if (ret)
		return ret;
	base = malloc(sizeof(*base));
	g = calloc(1, sizeof(*g));
	if (!base || !g) {
		free(base);
		free(g);
		return -ENOMEM;
	}
	*base = *pl;
	ret = gstate_init(&s, base);
	for (uint32_t i = 1; !ret && i <= n; i++) {
		ret = apply_one(&s, i);
		if (!ret && prev && n >= 2 && i == n - 1)
			ret = build_prev(prev, &s, base, n);
		if (!ret && i == n)
			count_blocks(&s, i);
	}
	if (ret) {
		if (prev && prev->gen)
			gen_plan_free(prev);
		goto out_fail;
	}
	memset(pl, 0, sizeof(*pl));
	pl->prm = base->prm;
	pl->size = base->size;
	pl->ext = base->ext;
	pl->names = base->names;
	memcpy(pl->depth_target, base->depth_target, sizeof(pl->depth_target));
	g->n = n;
	g->base = base;
	g->counts = s.c;
	pl->gen = g;
	ret = build_plan(pl, &s, g);
	if (ret) {
		if (prev && prev->gen)
			gen_plan_free(prev);
		gen_plan_free(pl);
		*pl = *base;
		free(base);
		gstate_free(&s);
		plan_fail(err, "out of memory while planning generation %u", n);
		return ret;
	}
	g->edit = s.edit;
	g->nedits = s.nedits;
	s.edit = NULL;
	gstate_free(&s);
	return 0;

out_fail:
	gstate_free(&s);
	free(g);
	*pl = *base;
	free(base);
	if (ret == -ENOMEM)
		plan_fail(err, "out of memory while planning generation %u", n);
	return ret;
}

void plan_gen_free(struct plan_gen *g)
{
	if (!g)
		return;
	FREE_ALL(g->file_key, g->file_name_id, g->file_tgen, g->file_cgen, g->file_modes,
		 g->file_last_edit, g->dir_key, g->dir_name_id, g->dir_tgen, g->dir_cgen, g->edit);
	free(g);
}

const char *plan_gen_kind_name(unsigned kind)
{
	static const char *const names[GEN_EDIT_KINDS] = {
		[GEN_EDIT_CREATE] = "created", [GEN_EDIT_APPEND] = "appended",
		[GEN_EDIT_BLOCKS] = "edited", [GEN_EDIT_REWRITE] = "rewritten",
		[GEN_EDIT_TRUNCATE] = "truncated",
	};

	return kind < GEN_EDIT_KINDS ? names[kind] : "?";
}
