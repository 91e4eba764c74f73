/* plan_tree.c - the tree of a plan: depths, files per directory, placement, links */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plan/plan_int.h"

int plan_depths(struct plan *pl, const uint64_t *s, uint8_t *d, const uint32_t *m_d)
{
	const struct params *p = &pl->prm;
	uint64_t nreg = pl->nregular_files;
	unsigned h = 0;
	unsigned char allowed[DEPTH_SLOTS] = { 0 };
	double probs[DEPTH_SLOTS];
	uint64_t key = rng_stream_key(p->seed, "depth");
	struct rng r;

	for (unsigned i = 0; i < DEPTH_SLOTS; i++) {
		if (m_d[i]) {
			allowed[i] = 1;
			h = i;
		}
	}
	memset(pl->depth_target, 0, sizeof(pl->depth_target));
	if (p->depth_model == DEPTH_POISSON) {
		if (tables_depth_probs(p, h, probs))
			return -EINVAL;
		memcpy(pl->depth_target, probs, (h + 1) * sizeof(double));
		if (p->sampling == SAMPLING_STRATIFIED) {
			uint64_t q[DEPTH_SLOTS], k = 0;

			quotas_from_probs(probs, h + 1, nreg, q);
			for (unsigned i = 0; i <= h; i++)
				for (uint64_t c = 0; c < q[i]; c++)
					d[k++] = (uint8_t)i;
			rng_shuffle(d, nreg, sizeof(*d), rng_stream_key(p->seed, "depth.order"), 0);
		} else {
			for (uint64_t k = 0; k < nreg; k++) {
				rng_open(&r, key, k);
				d[k] = (uint8_t)draw_index(probs, h + 1, rng_uniform(&r));
			}
		}
		return 0;
	}

	for (uint64_t k = 0; k < nreg; k++) {
		if (depth_care_probs(s[k], h, allowed, probs))
			return -EINVAL;
		for (unsigned i = 0; i <= h; i++)
			pl->depth_target[i] += probs[i];
		rng_open(&r, key, k);
		d[k] = (uint8_t)draw_index(probs, h + 1, rng_uniform(&r));
	}
	for (unsigned i = 0; i <= h && nreg; i++)
		pl->depth_target[i] /= (double)nreg;
	return 0;
}

/*
 * Spread `mass` files over the k tail directories, each at least lo, shaped
 * like the files-per-directory law beyond its bins.  Writes t[0..k-1].
 */
static void fpd_tail_counts(const struct params *p, uint32_t k, uint64_t mass, uint32_t lo,
			    uint64_t nreg, uint32_t *t)
{
	double mean = (double)mass / k, hi_lo = lo, hi_hi = (double)nreg + 1;
	double c = p->fpd_offset, deg = p->fpd_degree, hi;
	uint64_t key = rng_stream_key(p->seed, "fpd.tail");
	uint64_t above = 0, want = mass - (uint64_t)k * lo, got = 0;
	struct rng r;

	/* the cap of the tail law that gives the wanted mean */
	if (fpd_tail_mean(c, deg, lo, hi_hi) <= mean) {
		hi = hi_hi;
	} else {
		for (int it = 0; it < 200; it++) {
			double mid = 0.5 * (hi_lo + hi_hi);

			if (fpd_tail_mean(c, deg, lo, mid) < mean)
				hi_lo = mid;
			else
				hi_hi = mid;
		}
		hi = hi_hi;
	}
	for (uint32_t i = 0; i < k; i++) {
		double u;

		rng_open(&r, key, i);
		u = rng_uniform(&r);
		if (p->sampling == SAMPLING_STRATIFIED)
			u = (i + u) / k;
		t[i] = (uint32_t)fmin(floor(fpd_tail_quantile(c, deg, lo, hi, u) + 0.5), hi);
		if (t[i] < lo)
			t[i] = lo;
		above += t[i] - lo;
	}
	/* scale the part above lo so that the total is exact */
	qsort(t, k, sizeof(*t), plan_cmp_u32_desc);
	for (uint32_t i = 0; i < k; i++) {
		uint64_t a = t[i] - lo;

		a = above ? (uint64_t)((long double)a * want / above) : want / k;
		t[i] = lo + (uint32_t)a;
		got += a;
	}
	for (uint32_t i = 0; got < want; i = (i + 1) % k) {
		t[i]++;
		got++;
	}
}

/* plan_fpd's first step: how many directories fall in each bin of the files-per-directory model. */
static void fpd_quotas(const struct params *p, const double *probs, unsigned nb, uint32_t nd,
		       uint64_t *q)
{
	if (p->sampling == SAMPLING_STRATIFIED) {
		quotas_from_probs(probs, nb, nd, q);
	} else {
		uint64_t key = rng_stream_key(p->seed, "fpd");
		struct rng r;

		for (uint32_t j = 0; j < nd; j++) {
			rng_open(&r, key, j);
			q[draw_index(probs, nb, rng_uniform(&r))]++;
		}
	}
}

/*
 * Bins 0..maxbin hold their value; the tail (bin nb - 1, each at least lo
 * files) takes the rest of the nreg files: adjust the quotas q until that
 * rest fits.  Returns the rest (the tail's mass); its directories into *k.
 */
static int64_t fpd_fit_tail(uint64_t *q, unsigned maxbin, uint32_t lo, uint64_t nreg,
			    uint64_t *k_out)
{
	unsigned nb = maxbin + 2;
	uint64_t s0 = 0, k = q[nb - 1];
	int64_t mass;

	for (unsigned b = 1; b <= maxbin; b++)
		s0 += (uint64_t)b * q[b];
	mass = (int64_t)nreg - (int64_t)s0;
	if (k == 0 && mass > 0) {
		/* no tail directory drawn: promote one from the fullest bin */
		unsigned best = 0;

		for (unsigned b = 1; b <= maxbin; b++)
			if (q[b] > q[best])
				best = b;
		q[best]--;
		mass += best;
		q[nb - 1] = k = 1;
	}
	while (k > 0 && mass < (int64_t)(k * lo)) {
		/* too few files for the tail: tail directories become empty */
		k--;
		q[nb - 1]--;
		q[0]++;
	}
	while (mass < 0) {
		/* more files in the bins than there are: lower the fullest */
		unsigned b = maxbin;

		while (b > 0 && q[b] == 0)
			b--;
		unsigned to = (int64_t)b > -mass ? b + (unsigned)mass : 0;

		q[b]--;
		q[to]++;
		mass += b - to;
	}
	*k_out = k;
	return mass;
}

/* The nd counts themselves from the quotas and the tail, largest first, into cnt. */
static void fpd_counts(const struct params *p, const uint64_t *q, unsigned maxbin, uint64_t k,
		       int64_t mass, uint32_t lo, uint64_t nreg, uint32_t nd, uint32_t *cnt)
{
	uint32_t j = 0;

	for (unsigned b = 0; b <= maxbin; b++)
		for (uint64_t c = 0; c < q[b]; c++)
			cnt[j++] = b;
	if (k > 0) {
		fpd_tail_counts(p, (uint32_t)k, (uint64_t)mass, lo, nreg, cnt + j);
	} else if (mass > 0) {
		/* no room for a tail: raise the lowest directories to place the rest */
		for (uint32_t i = 0; mass > 0; i = (i + 1) % nd) {
			cnt[i]++;
			mass--;
		}
	}
	qsort(cnt, nd, sizeof(*cnt), plan_cmp_u32_desc);
}

/*
 * Give counts to depths, largest first.  A count goes to the depth whose
 * unmet need per free slot is highest among those it does not overshoot
 * (else to the largest unmet need): big counts land where directories
 * must be full, small ones and empties where they must be sparse.  Depth
 * d's counts go to bucket[start[d]..start[d + 1]); its unmet need is left
 * in need[d].
 */
static void fpd_to_depths(const uint32_t *cnt, uint32_t nd, const uint64_t *t_d,
			  const uint32_t *m_d, uint64_t *start, int64_t *need, uint32_t *bucket)
{
	uint64_t fill[DEPTH_SLOTS];
	unsigned active[DEPTH_SLOTS], nactive = 0;

	for (unsigned d = 0; d < DEPTH_SLOTS; d++) {
		start[d + 1] = start[d] + m_d[d];
		fill[d] = start[d];
		need[d] = (int64_t)t_d[d];
		if (m_d[d])
			active[nactive++] = d;
	}
	for (uint32_t i = 0; i < nd; i++) {
		int best = -1, most = -1;
		double best_avg = 0;

		for (unsigned a = 0; a < nactive; a++) {
			unsigned d = active[a];
			double avg;

			if (fill[d] == start[d + 1])
				continue;
			if (most < 0 || need[d] > need[most])
				most = (int)d;
			if (need[d] < (int64_t)cnt[i])
				continue;
			avg = (double)need[d] / (double)(start[d + 1] - fill[d]);
			if (best < 0 || avg > best_avg) {
				best = (int)d;
				best_avg = avg;
			}
		}
		if (best < 0)
			best = most;
		bucket[fill[best]++] = cnt[i];
		need[best] -= cnt[i];
	}
}

/* Exact fix: a depth's need goes to (or comes from) its largest dirs. */
static void fpd_fix_need(uint32_t *bucket, const uint64_t *start, const uint32_t *m_d,
			 int64_t *need, uint32_t lo)
{
	for (unsigned d = 0; d < DEPTH_SLOTS; d++) {
		uint32_t *b = bucket + start[d];
		uint64_t len = m_d[d];

		if (len == 0)
			continue;
		if (need[d] > 0)
			b[0] += (uint32_t)need[d];
		for (int pass = 0; pass < 2 && need[d] < 0; pass++) {
			uint32_t floor_v = pass == 0 ? lo : 0;

			for (uint64_t i = 0; i < len && need[d] < 0; i++) {
				uint64_t can = b[i] > floor_v ? b[i] - floor_v : 0;

				if (can > (uint64_t)-need[d])
					can = (uint64_t)-need[d];
				b[i] -= (uint32_t)can;
				need[d] += (int64_t)can;
			}
		}
	}
}

/* Which directory of a depth gets which count: at random.  Writes dir_nfiles. */
static void fpd_place(struct plan *pl, uint32_t *bucket, uint32_t *dirs, const uint64_t *start,
		      const uint32_t *m_d)
{
	uint64_t fill[DEPTH_SLOTS];
	uint32_t nd = pl->nregular_dirs;

	for (unsigned d = 0; d < DEPTH_SLOTS; d++)
		fill[d] = start[d];
	for (uint32_t i = 0; i < nd; i++)
		dirs[fill[pl->dir_depth[i]]++] = i;
	for (unsigned d = 0; d < DEPTH_SLOTS; d++) {
		if (m_d[d] == 0)
			continue;
		rng_shuffle_u32(bucket + start[d], m_d[d],
				rng_stream_key(pl->prm.seed, "fpd.place"), d);
		for (uint64_t i = start[d]; i < start[d + 1]; i++)
			pl->dir_nfiles[dirs[i]] = bucket[i];
	}
}

/*
 * Files per directory for the regular directories: a multiset of counts
 * drawn from the model, summing to nreg, then given to the directories so
 * that each depth gets the files its samples need (largest count first to
 * the depth with the largest unmet need), with a final exact fix that
 * touches the largest directories of a depth first.  Writes dir_nfiles.
 */
int plan_fpd(struct plan *pl, const uint64_t *t_d, const uint32_t *m_d)
{
	const struct params *p = &pl->prm;
	uint32_t nd = pl->nregular_dirs;
	uint64_t nreg = pl->nregular_files;
	unsigned maxbin = p->fpd_max_bin, nb = maxbin + 2;
	uint32_t lo = maxbin + 1;
	double *probs = NULL;
	uint64_t *q = NULL;
	uint32_t *cnt = NULL, *bucket = NULL, *dirs = NULL;
	uint64_t start[DEPTH_SLOTS + 1] = { 0 }, k;
	int64_t need[DEPTH_SLOTS], mass;
	int ret = -ENOMEM;

	if (nd == 1) {
		pl->dir_nfiles[0] = (uint32_t)nreg;
		return 0;
	}
	probs = plan_xalloc(nb, sizeof(*probs));
	q = plan_xalloc(nb, sizeof(*q));
	cnt = plan_xalloc(nd, sizeof(*cnt));
	bucket = plan_xalloc(nd, sizeof(*bucket));
	dirs = plan_xalloc(nd, sizeof(*dirs));
	if (!probs || !q || !cnt || !bucket || !dirs)
		goto out_free;
	if (tables_fpd_probs(p, maxbin, probs)) {
		ret = -EINVAL;
		goto out_free;
	}
	fpd_quotas(p, probs, nb, nd, q);
	mass = fpd_fit_tail(q, maxbin, lo, nreg, &k);
	fpd_counts(p, q, maxbin, k, mass, lo, nreg, nd, cnt);
	fpd_to_depths(cnt, nd, t_d, m_d, start, need, bucket);
	fpd_fix_need(bucket, start, m_d, need, lo);
	fpd_place(pl, bucket, dirs, start, m_d);
	ret = 0;
out_free:
	free(probs);
	free(q);
	free(cnt);
	free(bucket);
	free(dirs);
	return ret;
}

int plan_special_dirs(struct plan *pl, struct plan_error *err)
{
	const struct params *p = &pl->prm;
	uint32_t nreg = pl->nregular_dirs, want = p->special_dir_depth - 1;
	uint32_t *cand, ncand = 0;
	struct rng r;

	if (p->special_dirs == 0)
		return 0;
	cand = plan_xalloc(nreg, sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (uint32_t j = 0; j < nreg; j++)
		if (pl->dir_depth[j] == want)
			cand[ncand++] = j;
	if (ncand == 0) {
		plan_fail(err, "'special_dir_depth' %u is deeper than the tree allows "
			  "(at most %u with %u directories)",
			  p->special_dir_depth, pl->maxdepth + 1, nreg);
		free(cand);
		return -EINVAL;
	}
	rng_init(&r, p->seed, "special", 0);
	for (uint32_t i = 0; i < p->special_dirs; i++) {
		uint32_t j = nreg + i, par = cand[rng_below(&r, ncand)];

		pl->dir_parent[j] = par;
		pl->dir_depth[j] = (uint8_t)(want + 1);
		pl->dir_nfiles[j] = (uint32_t)p->special_dir_files;
	}
	free(cand);
	return 0;
}

void plan_children(struct plan *pl)
{
	for (uint32_t j = 0; j < pl->ndirs; j++)
		pl->dir_first_child[j] = pl->dir_next_sibling[j] = PLAN_NONE;
	for (uint32_t j = pl->ndirs; j-- > 1;) {
		uint32_t par = pl->dir_parent[j];

		pl->dir_next_sibling[j] = pl->dir_first_child[par];
		pl->dir_first_child[par] = j;
	}
	pl->maxdepth = 0;
	for (uint32_t j = 0; j < pl->ndirs; j++)
		if (pl->dir_depth[j] > pl->maxdepth)
			pl->maxdepth = pl->dir_depth[j];
}

/*
 * Files in directory order: directory j takes the next dir_nfiles[j]
 * samples of its depth (special directories take theirs in turn).
 */
int plan_place(struct plan *pl, const uint64_t *s, const uint16_t *e, const uint8_t *d,
		      uint32_t *pin)
{
	uint64_t n = pl->nfiles, nreg = pl->nregular_files;
	uint64_t start[DEPTH_SLOTS + 1] = { 0 }, cur[DEPTH_SLOTS];
	uint64_t special_cur = nreg, f = 0;
	uint32_t *by_depth = plan_xalloc(nreg, sizeof(*by_depth));
	uint32_t *by_file = plan_xalloc(n, sizeof(*by_file));

	if (!by_depth || !by_file) {
		free(by_depth);
		free(by_file);
		return -ENOMEM;
	}
	plan_group(d, NULL, nreg, DEPTH_SLOTS, start, cur, by_depth);
	for (unsigned i = 0; i < DEPTH_SLOTS; i++)
		cur[i] = start[i];

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		pl->dir_first_file[j] = (uint32_t)f;
		for (uint32_t c = 0; c < pl->dir_nfiles[j]; c++, f++) {
			uint64_t k;

			if (j < pl->nregular_dirs)
				k = by_depth[cur[pl->dir_depth[j]]++];
			else
				k = special_cur++;
			pl->file_size[f] = s[k];
			pl->file_ext[f] = e[k];
			pl->file_dir[f] = j;
			by_file[f] = (uint32_t)k;
		}
	}
	free(by_depth);
	if (f != n) {
		free(by_file);
		return -EINVAL;
	}
	/* copies point at their source's final id: pin[] becomes sample -> file */
	for (uint64_t g = 0; g < n; g++)
		if (pin[by_file[g]] != PLAN_NONE && pin[by_file[g]] != DUP_SOURCE)
			pl->ndups++;
	if (pl->ndups) {
		pl->file_dup_of = malloc(n * sizeof(*pl->file_dup_of));
		if (!pl->file_dup_of) {
			free(by_file);
			return -ENOMEM;
		}
		/* file_dup_of first holds sample -> file, then file -> its source's file */
		uint32_t *file_of = pl->file_dup_of;

		for (uint64_t g = 0; g < n; g++)
			file_of[by_file[g]] = (uint32_t)g;
		for (uint64_t g = 0; g < n; g++) {
			uint32_t src = pin[by_file[g]];

			by_file[g] = src != PLAN_NONE && src != DUP_SOURCE ? file_of[src] : PLAN_NONE;
		}
		memcpy(pl->file_dup_of, by_file, n * sizeof(*by_file));
	}
	free(by_file);
	return 0;
}

int plan_links(struct plan *pl)
{
	const struct params *p = &pl->prm;
	uint64_t n = pl->nfiles;
	uint64_t nhard = n ? (uint64_t)llround(p->hardlink_share * (double)n) : 0;
	uint64_t nsym = (uint64_t)llround(p->symlink_share * (double)(n ? n : 1));
	uint64_t nspec = (uint64_t)llround(p->special_file_share * (double)n);
	uint64_t ndev = pl->dev_dir ? plan_dev_nodes() : 0;
	uint32_t nd = pl->ndirs - (pl->dev_dir != 0); /* links go anywhere but the /dev-like directory */
	uint64_t total = nhard + nsym + nspec + ndev;
	uint32_t *dir = NULL, *target = NULL, *start = NULL;
	uint8_t *kind = NULL;
	uint64_t key = rng_stream_key(p->seed, "link");
	struct rng r;
	int ret = -ENOMEM;

	if (p->symlink_share == 0)
		nsym = 0, total = nhard + nspec + ndev;
	if (total >= UINT32_MAX)
		return -E2BIG;
	pl->nlinks = (uint32_t)total;
	pl->link_dir = plan_xalloc(total, sizeof(*pl->link_dir));
	pl->link_target = plan_xalloc(total, sizeof(*pl->link_target));
	pl->link_kind = plan_xalloc(total, 1);
	pl->link_variant = plan_xalloc(total, 1);
	dir = plan_xalloc(total, sizeof(*dir));
	target = plan_xalloc(total, sizeof(*target));
	kind = plan_xalloc(total, 1);
	start = plan_xalloc((size_t)pl->ndirs + 1, sizeof(*start));
	if (!pl->link_dir || !pl->link_target || !pl->link_kind || !pl->link_variant ||
	    !dir || !target || !kind || !start)
		goto out_free;
	if (nhard) {
		pl->file_nlink = plan_xalloc(n, sizeof(*pl->file_nlink));
		if (!pl->file_nlink)
			goto out_free;
		for (uint64_t f = 0; f < n; f++)
			pl->file_nlink[f] = 1;
	}

	for (uint64_t i = 0; i < nhard + nsym; i++) {
		uint8_t k;

		rng_open(&r, key, i);
		if (i < nhard) {
			k = LINK_HARD;
			target[i] = (uint32_t)rng_below(&r, n);
			pl->file_nlink[target[i]]++;
		} else {
			double u_dir = rng_uniform(&r);

			if (n == 0 || u_dir < p->symlink_dir_share) {
				k = LINK_SYM_DIR;
				target[i] = (uint32_t)rng_below(&r, nd);
			} else {
				k = LINK_SYM_FILE;
				target[i] = (uint32_t)rng_below(&r, n);
			}
			if (rng_uniform(&r) < p->symlink_relative_share)
				k |= LINK_RELATIVE;
			if (rng_uniform(&r) < p->symlink_dangling_share)
				k |= LINK_DANGLING;
		}
		kind[i] = k;
		/* links live where files live: the directory of a random file */
		dir[i] = n ? pl->file_dir[rng_below(&r, n)] : (uint32_t)rng_below(&r, nd);
	}
	/* special files: their own stream, where files live too; link_target is their ordinal */
	for (uint64_t s = 0, i = nhard + nsym; s < nspec; s++, i++) {
		rng_init(&r, p->seed, "special", s);
		kind[i] = plan_special_draw_kind(&r);
		target[i] = (uint32_t)s;
		dir[i] = pl->file_dir[rng_below(&r, n)];
	}
	/* the /dev-like directory's nodes: a fixed table, in its order */
	for (uint64_t d = 0, i = nhard + nsym + nspec; d < ndev; d++, i++) {
		kind[i] = plan_dev_node_kind((uint32_t)d);
		target[i] = PLAN_DEV_NODE | (uint32_t)d;
		dir[i] = pl->dev_dir;
	}

	/* stable counting sort by directory */
	for (uint64_t i = 0; i < total; i++)
		start[dir[i] + 1]++;
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		start[j + 1] += start[j];
		pl->dir_first_link[j] = start[j];
		pl->dir_nlinks[j] = 0;
	}
	for (uint64_t i = 0; i < total; i++) {
		uint32_t at = pl->dir_first_link[dir[i]] + pl->dir_nlinks[dir[i]]++;

		pl->link_dir[at] = dir[i];
		pl->link_target[at] = target[i];
		pl->link_kind[at] = kind[i];
	}
	ret = 0;
out_free:
	free(dir);
	free(target);
	free(kind);
	free(start);
	return ret;
}

/* Open-addressing set of the names of one directory, for uniqueness. */
