/* plan_meta.c - owners, modes and times of a plan's entries, derived on demand */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>

#include "model/tables.h"
#include "plan/generation.h"
#include "plan/plan_int.h"

static void meta_owner(const struct params *p, struct rng *r, struct plan_meta *m)
{
	double u = rng_uniform(r);

	if (u < p->owner_root_share || p->owner_users == 0) {
		m->uid = m->gid = 0;
		return;
	}
	double v = rng_uniform(r);
	uint32_t i = (uint32_t)(exp(v * log((double)p->owner_users + 1)) - 1);

	if (i >= p->owner_users)
		i = p->owner_users - 1;
	m->uid = 1000 + i;
	m->gid = rng_uniform(r) < 0.1 ? 100 : m->uid;
}

/* The age in days at u: the age table's where it is set, else the capped lognormal. */
static double meta_age(const struct params *p, struct rng *r, double u)
{
	const struct param_tables *t = &p->tab;
	double age;

	if (t->nage_q)
		return fmax(0, tables_quantile_at(t->age_q, t->nage_q, u));
	age = exp(log(p->age_median_days) + p->age_sigma * gsl_cdf_ugaussian_Pinv(u));
	if (age > p->age_max_days)
		age = p->age_max_days * rng_uniform(r);
	return age;
}

/*
 * u of item id of n drawn from r, stratified over the n items when n is
 * not 0 (rng_permute() under stream's key): a table's shares then hold
 * to one item each.
 */
static double meta_u(const struct params *p, struct rng *r, const char *stream, uint64_t id,
		     uint64_t n)
{
	double u = rng_uniform(r);

	if (!n)
		return u;
	return ((double)rng_permute(id, n, rng_stream_key(p->seed, stream)) + u) / (double)n;
}

/*
 * Times: age in days (meta_age(); with an age table stratified over the n
 * items when n is not 0); atime, ctime after mtime; crtime before.
 */
static void meta_times(const struct params *p, struct rng *r, struct plan_meta *m, uint64_t id,
		       uint64_t n)
{
	double age = meta_age(p, r, meta_u(p, r, "meta.age.rank", id, p->tab.nage_q ? n : 0));
	double now = (double)p->time_ref, mt, ct, at, bt, u;

	/* a table's ages in whole seconds: its point masses (a package's files) stay exact */
	mt = now - (p->tab.nage_q ? round(age * 86400.0) : age * 86400.0);
	ct = mt + fmin(now - mt, -log(rng_uniform(r)) * 3600.0);
	u = rng_uniform(r);
	if (p->tab.natime_q)
		u = fmin(1, fmax(0, tables_quantile_at(p->tab.atime_q, p->tab.natime_q, u)));
	at = mt + (now - mt) * u;
	/* one draw a statement: the order of two draws in one expression is the compiler's */
	bt = fmin(age * 86400.0, -log(rng_uniform(r)) * 86400.0 * 7);
	bt = mt - bt * rng_uniform(r);
	m->mtime = (int64_t)floor(mt);
	m->mtime_ns = (uint32_t)((mt - floor(mt)) * 1e9);
	m->ctime = (int64_t)floor(ct);
	m->ctime_ns = (uint32_t)((ct - floor(ct)) * 1e9);
	m->atime = (int64_t)floor(at);
	m->atime_ns = (uint32_t)((at - floor(at)) * 1e9);
	m->crtime = (int64_t)floor(bt);
	m->crtime_ns = (uint32_t)((bt - floor(bt)) * 1e9);
	if (m->mtime_ns > 999999999)
		m->mtime_ns = 999999999;
	if (m->ctime < m->mtime || (m->ctime == m->mtime && m->ctime_ns < m->mtime_ns)) {
		m->ctime = m->mtime;
		m->ctime_ns = m->mtime_ns;
	}
}

static int ext_is_exec(const char *ext)
{
	static const char *const exec[] = {
		"exe", "dll", "so", "sh", "bin", "run", "com", "bat", "cmd", "pl", "py", NULL
	};

	for (const char *const *e = exec; *e; e++)
		if (strcmp(*e, ext) == 0)
			return 1;
	return 0;
}

static void set_time(int64_t *s, uint32_t *ns, double t)
{
	*s = (int64_t)floor(t);
	*ns = (uint32_t)fmin((t - floor(t)) * 1e9, 999999999);
}

static int time_before(int64_t s, uint32_t ns, int64_t s2, uint32_t ns2)
{
	return s < s2 || (s == s2 && ns < ns2);
}

/*
 * Times in a later generation: an entry made in generation cgen was born
 * then; one changed in generation tgen (its content, or a directory's
 * entries) has its mtime then, its ctime and atime no earlier.  Each a
 * point within its generation's interval, drawn from (key, generation).
 */
static void gen_times(const struct plan *pl, const char *stream, uint64_t key, uint32_t cgen,
		      uint32_t tgen, struct plan_meta *m)
{
	double span = pl->prm.gen_interval_days * 86400.0;
	struct rng r;

	if (cgen) {
		double t;

		rng_init(&r, pl->prm.seed, stream, key ^ ((uint64_t)cgen << 48));
		t = plan_gen_time(&pl->prm, cgen - 1) + span * rng_uniform(&r);
		set_time(&m->crtime, &m->crtime_ns, t);
		set_time(&m->mtime, &m->mtime_ns, t);
		set_time(&m->ctime, &m->ctime_ns, t);
		set_time(&m->atime, &m->atime_ns, t);
	}
	if (tgen > cgen) {
		int64_t s;
		uint32_t ns;

		rng_init(&r, pl->prm.seed, stream, key ^ ((uint64_t)tgen << 48) ^ (UINT64_C(1) << 47));
		set_time(&s, &ns, plan_gen_time(&pl->prm, tgen - 1) + span * rng_uniform(&r));
		m->mtime = s;
		m->mtime_ns = ns;
		if (time_before(m->ctime, m->ctime_ns, s, ns)) {
			m->ctime = s;
			m->ctime_ns = ns;
		}
		if (time_before(m->atime, m->atime_ns, s, ns)) {
			m->atime = s;
			m->atime_ns = ns;
		}
	}
}

static void file_meta_of(const struct plan *pl, uint64_t file, uint64_t id, uint64_t n,
			 struct plan_meta *m);

void plan_file_meta(const struct plan *pl, uint64_t file, struct plan_meta *m)
{
	const struct plan_gen *g = pl->gen;
	uint64_t key;

	if (!g) {
		file_meta_of(pl, file, file, pl->nfiles, m);
		return;
	}
	key = g->file_key[file];
	file_meta_of(pl, file, key, key < g->base->nfiles ? g->base->nfiles : 0, m);
	gen_times(pl, "gen.meta.file", key, g->file_cgen[file], g->file_tgen[file], m);
	if (g->file_modes[file] & 1)
		m->mode ^= S_IWGRP;
}

int plan_meta_alike(const struct plan *a, const struct plan *b)
{
	struct params pa;

	/* the generation is not drawn from; a copy of a's parameters with b's */
	memcpy(&pa, &a->prm, sizeof(pa));
	pa.generation = b->prm.generation;
	return !memcmp(&pa, &b->prm, sizeof(pa));
}

/* What plan_file_meta() draws file f's metadata from, its parameters and extension aside. */
static void file_meta_draws(const struct plan *pl, uint64_t f, uint64_t d[5])
{
	const struct plan_gen *g = pl->gen;
	uint64_t key = g ? g->file_key[f] : f;

	d[0] = key;
	d[1] = !g ? pl->nfiles : key < g->base->nfiles ? g->base->nfiles : 0;
	d[2] = g ? g->file_cgen[f] : 0;
	d[3] = g ? g->file_tgen[f] : 0;
	d[4] = g ? g->file_modes[f] & 1 : 0;
}

int plan_file_same_meta(const struct plan *a, uint64_t fa, const struct plan *b, uint64_t fb)
{
	uint64_t da[5], db[5];

	file_meta_draws(a, fa, da);
	file_meta_draws(b, fb, db);
	return !memcmp(da, db, sizeof(da)) && (a->file_ext[fa] == 0) == (b->file_ext[fb] == 0) &&
	       !strcmp(plan_file_ext(a, fa), plan_file_ext(b, fb));
}

/* File `file`'s metadata drawn as entry id of n (n 0: no table stratification). */
static void file_meta_of(const struct plan *pl, uint64_t file, uint64_t id, uint64_t n,
			 struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;
	int exec;

	rng_init(&r, p->seed, "meta.file", id);
	meta_owner(p, &r, m);
	meta_times(p, &r, m, id, n);
	/* a profile's mode table: its shares exactly, whatever the extension */
	if (p->tab.nmode_files) {
		m->mode = S_IFREG | (uint32_t)tables_mode_draw(p, 0, meta_u(p, &r, "meta.mode.rank",
									    id, n));
		return;
	}
	exec = ext_is_exec(plan_file_ext(pl, file));
	if (!exec && pl->file_ext[file] == 0)
		exec = rng_uniform(&r) < 0.15;   /* scripts and binaries without a suffix */
	if (rng_uniform(&r) < p->perm_private_share)
		m->mode = exec ? 0700 : 0600;
	else if (rng_uniform(&r) < 0.1)
		m->mode = exec ? 0775 : 0664;
	else
		m->mode = exec ? 0755 : 0644;
	m->mode |= S_IFREG;
}

static void dir_meta_of(const struct plan *pl, uint32_t dir, uint32_t id, uint32_t n,
			struct plan_meta *m);

void plan_dir_meta(const struct plan *pl, uint32_t dir, struct plan_meta *m)
{
	const struct plan_gen *g = pl->gen;
	uint32_t key;

	if (!g) {
		dir_meta_of(pl, dir, dir, pl->ndirs, m);
		return;
	}
	key = g->dir_key[dir];
	dir_meta_of(pl, dir, key, key < g->base->ndirs ? g->base->ndirs : 0, m);
	gen_times(pl, "gen.meta.dir", key, g->dir_cgen[dir], g->dir_tgen[dir], m);
}

/* Directory dir's metadata drawn as directory id of n (n 0: no table stratification). */
static void dir_meta_of(const struct plan *pl, uint32_t dir, uint32_t id, uint32_t n,
			struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;

	rng_init(&r, p->seed, "meta.dir", id);
	meta_owner(p, &r, m);
	meta_times(p, &r, m, 0, 0);
	if (dir == 0 || dir == pl->dev_dir) {
		m->uid = m->gid = 0;
		m->mode = 0755;
	} else if (p->tab.nmode_dirs) {
		m->mode = (uint32_t)tables_mode_draw(p, 1, meta_u(p, &r, "meta.mode.rank", id - 1,
								  n ? n - 1 : 0));
	} else if (rng_uniform(&r) < p->perm_private_share) {
		m->mode = 0700;
	} else {
		m->mode = rng_uniform(&r) < 0.1 ? 0775 : 0755;
	}
	m->mode |= S_IFDIR;
}

/*
 * A special file: device nodes root's with their usual mode and group;
 * FIFOs private or shared, sockets open to all as daemons leave them.
 */
static void special_meta(const struct plan *pl, uint32_t link, struct rng *r,
			 struct plan_meta *m)
{
	struct plan_special s;

	plan_special_info(pl, link, &s);
	if (s.type == SPECIAL_CHR || s.type == SPECIAL_BLK || s.fixed) {
		m->uid = 0;
		m->gid = s.gid;
		m->mode = s.ifmt | s.perm;
	} else if (s.type == SPECIAL_FIFO) {
		m->mode = s.ifmt | (rng_uniform(r) < 0.5 ? 0600 : 0620);
	} else {
		m->mode = s.ifmt | (rng_uniform(r) < 0.6 ? 0777 : 0666);
	}
}

void plan_link_meta(const struct plan *pl, uint32_t link, struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;

	if (pl->link_kind[link] & LINK_HARD) {
		plan_file_meta(pl, pl->link_target[link], m);
		return;
	}
	rng_init(&r, p->seed, "meta.link", link);
	meta_owner(p, &r, m);
	meta_times(p, &r, m, 0, 0);
	m->mode = S_IFLNK | 0777;
	if (pl->link_kind[link] & LINK_SPECIAL)
		special_meta(pl, link, &r, m);
}

unsigned plan_dirent_slack(const struct plan *pl, uint32_t dir, uint64_t pos)
{
	double s = pl->prm.dir_slack;
	struct rng r;

	if (!(s > 0))
		return 0;
	rng_init(&r, pl->prm.seed, "dir.slack", ((uint64_t)dir << 32) ^ pos);
	if (!(rng_uniform(&r) < s / (1 - s)))
		return 0;
	/* a deleted entry's record: 8 bytes of header and its name, rounded up to 4 */
	return (unsigned)((8 + 1 + rng_below(&r, 40) + 3) & ~3u);
}
