/* plan_meta.c - owners, modes and times of a plan's entries, derived on demand */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>

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

/* Times: age lognormal in days, capped; atime, ctime after mtime; crtime before. */
static void meta_times(const struct params *p, struct rng *r, struct plan_meta *m)
{
	double z = gsl_cdf_ugaussian_Pinv(rng_uniform(r));
	double age = exp(log(p->age_median_days) + p->age_sigma * z);
	double now = (double)p->time_ref, mt, ct, at, bt;

	if (age > p->age_max_days)
		age = p->age_max_days * rng_uniform(r);
	mt = now - age * 86400.0;
	ct = mt + fmin(now - mt, -log(rng_uniform(r)) * 3600.0);
	at = mt + (now - mt) * rng_uniform(r);
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

void plan_file_meta(const struct plan *pl, uint64_t file, struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;
	int exec;

	rng_init(&r, p->seed, "meta.file", file);
	meta_owner(p, &r, m);
	meta_times(p, &r, m);
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

void plan_dir_meta(const struct plan *pl, uint32_t dir, struct plan_meta *m)
{
	const struct params *p = &pl->prm;
	struct rng r;

	rng_init(&r, p->seed, "meta.dir", dir);
	meta_owner(p, &r, m);
	meta_times(p, &r, m);
	if (dir == 0 || dir == pl->dev_dir) {
		m->uid = m->gid = 0;
		m->mode = 0755;
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
	meta_times(p, &r, m);
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
