/* spread.c - which files are fragmented, and how many breaks each takes */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/arith.h"
#include "layout/spread.h"
#include "util/array.h"
#include "util/rng.h"

/*
 * Spread.  With every spread parameter on auto (frag_file_share and
 * frag_extents 0, frag_select weighted, frag_sizes random) the breaks are
 * drawn over all pairs as above.  Otherwise the fragmented files are
 * chosen first (spread_plan): m of the files of two or more blocks, m =
 * frag_file_share x their count, or B / (frag_extents - 1), or on auto the
 * count the pair sampling would touch; in frag_select order (weighted:
 * Efraimidis-Spirakis keys over pairs; random; size: most blocks first;
 * type: growing files, media, archives and binaries, the rest).  Each
 * chosen file wants 1 + Geometric breaks of mean frag_extents - 1 (on
 * auto B / m), at most its pairs; the wants are scaled by one factor so
 * that they sum to B exactly.  The score wins every conflict: too few
 * pairs in the chosen files adds files in the same order (a note says the
 * share gave way), a mean the share cannot hold moves (a note says so).
 * A file's breaks are placed at random (selection sampling over its own
 * pairs), or cut it into pieces of equal or lognormal weights (cumulative
 * rounding, every piece at least one block).  Lost and forced breaks are
 * owed to the next chosen files.
 */

static int in_list(const char *e, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(e, *list))
			return 1;
	return 0;
}

/*
 * frag_select = type: files that grow in place (logs, mailboxes,
 * databases, disk images) first, then media, then archives and binaries,
 * then everything else.
 */
unsigned layout_ext_group(const char *e)
{
	static const char *const grow[] = { "log",  "pst", "ost",   "mbox", "db",  "sqlite",
					    "vhd",  "vhdx", "vmdk", "qcow2", "vdi", "img",
					    "iso",  "mdb", "edb",   "dat",  "journal", NULL };
	static const char *const media[] = { "mp3", "wma", "wav",  "flac", "ogg", "m4a",
					     "aac", "mpg", "mpeg", "mp4",  "avi", "mkv",
					     "mov", "wmv", "jpg",  "jpeg", "png", "gif",
					     "bmp", "tif", "tiff", "psd",  "raw", NULL };
	static const char *const pack[] = { "zip", "gz",  "tgz", "bz2", "xz",  "7z",
					    "rar", "tar", "cab", "jar", "msi", "deb",
					    "rpm", "exe", "dll", "lib", "so",  "o",
					    "a",   "pdb", "pch", "sys", "bin", NULL };

	if (in_list(e, grow))
		return 0;
	if (in_list(e, media))
		return 1;
	if (in_list(e, pack))
		return 2;
	return 3;
}

/* Breaks the chosen files take at factor lam: sum of clamp(round(lam d), 1, cap). */
static uint64_t spread_total(const double *d, const uint64_t *cap, uint64_t m, double lam)
{
	uint64_t t = 0;

	for (uint64_t i = 0; i < m; i++) {
		double v = nearbyint(lam * d[i]);

		t += v < 1 ? 1 : v >= (double)cap[i] ? cap[i] : (uint64_t)v;
	}
	return t;
}

/*
 * The files of two or more blocks in frag_select order: key[i] holds a
 * file id in its low 32 bits, sorted.  Returns how many (N) or -ENOMEM.
 */
static int64_t spread_keys(const struct layout_request *rq, uint64_t *key)
{
	const struct plan *pl = rq->pl;
	uint64_t kr = rng_stream_key(rq->seed, "layout.select"), N = 0;
	unsigned char *grp = NULL;

	if (rq->frag_select == FRAG_SELECT_TYPE && pl->file_ext && pl->ext.name) {
		grp = malloc(pl->ext.count ? pl->ext.count : 1);
		if (!grp)
			return -ENOMEM;
		for (size_t e = 0; e < pl->ext.count; e++)
			grp[e] = (unsigned char)layout_ext_group(pl->ext.name[e]);
	}
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t n = layout_file_blocks(rq, f), x;
		uint32_t k32 = 0;
		struct rng r;
		float e;

		if (n < 2)
			continue;
		rng_open(&r, kr, f);
		x = rng_next(&r);
		switch (rq->frag_select) {
		case FRAG_SELECT_WEIGHTED:
			/* Efraimidis-Spirakis: the smallest -ln(u) / weight first */
			e = (float)(-log(rng_uniform(&r)) / (double)(n - 1));
			memcpy(&k32, &e, sizeof(k32));
			break;
		case FRAG_SELECT_RANDOM:
			k32 = (uint32_t)(x >> 32);
			break;
		case FRAG_SELECT_SIZE:
			k32 = UINT32_MAX - (uint32_t)min_u64(n, UINT32_MAX);
			break;
		case FRAG_SELECT_TYPE:
			k32 = (uint32_t)(grp ? grp[pl->file_ext[f]] : 3) << 29;
			k32 |= (uint32_t)(x >> 35);
			break;
		}
		key[N++] = (uint64_t)k32 << 32 | f;
	}
	qsort(key, N, sizeof(*key), array_cmp_u64);
	free(grp);
	return (int64_t)N;
}

/*
 * How many of the N ordered files are fragmented: as asked (share, mean
 * extents or, on auto, mauto), then more until their pairs hold the B
 * breaks (LAYOUT_NOTE_SHARE when the share gave way).
 */
static uint64_t spread_count(const struct layout_request *rq, const uint64_t *key, uint64_t N,
			     uint64_t B, double mauto, uint32_t *notes)
{
	uint64_t asked, m, C = 0;

	if (rq->frag_file_share > 0)
		asked = (uint64_t)llround(rq->frag_file_share * (double)N);
	else if (rq->frag_extents > 0)
		asked = (uint64_t)llround((double)B / (rq->frag_extents - 1));
	else
		asked = (uint64_t)llround(mauto);
	m = asked < 1 ? 1 : asked > N ? N : asked;
	if (m > B)
		m = B;
	for (uint64_t i = 0; i < m; i++)
		C += layout_file_blocks(rq, (uint32_t)key[i]) - 1;
	while (C < B && m < N)
		C += layout_file_blocks(rq, (uint32_t)key[m++]) - 1;
	if (rq->frag_file_share > 0 &&
	    (m > asked ? m - asked : asked - m) > (N / 200 > 1 ? N / 200 : 1))
		*notes |= LAYOUT_NOTE_SHARE;
	return m;
}

/*
 * The breaks of the m chosen files from their wants d (capped at their
 * pairs, cap), scaled by one factor so that they sum to B, the rounding
 * corrected a break at a time, into kb.
 */
static void spread_scale(const uint64_t *key, const double *d, const uint64_t *cap, uint64_t m,
			 uint64_t B, uint32_t *kb)
{
	double lo = 0, hi = 1;
	uint64_t sum = 0;

	while (spread_total(d, cap, m, hi) < B && hi < 1e30)
		hi *= 2;
	for (int it = 0; it < 64; it++) {
		double mid = (lo + hi) / 2;

		if (spread_total(d, cap, m, mid) >= B)
			hi = mid;
		else
			lo = mid;
	}
	for (uint64_t i = 0; i < m; i++) {
		double v = nearbyint(hi * d[i]);
		uint64_t k = v < 1 ? 1 : v >= (double)cap[i] ? cap[i] : (uint64_t)v;

		kb[(uint32_t)key[i]] = (uint32_t)min_u64(k, UINT32_MAX);
		sum += kb[(uint32_t)key[i]];
	}
	/* the rounding's overshoot comes off the last files, a break each */
	while (sum > B) {
		uint64_t before = sum;

		for (uint64_t i = m; sum > B && i-- > 0;) {
			uint32_t *k = &kb[(uint32_t)key[i]];

			if (*k > 1) {
				(*k)--;
				sum--;
			}
		}
		if (sum == before)
			break;
	}
	for (uint64_t i = 0; sum < B && i < m; i++) {
		uint32_t *k = &kb[(uint32_t)key[i]];

		while (sum < B && *k < cap[i] && *k < UINT32_MAX) {
			(*k)++;
			sum++;
		}
	}
}

int spread_plan(const struct layout_request *rq, uint64_t B, uint64_t pairs, uint32_t *kb,
		uint32_t *notes)
{
	const struct plan *pl = rq->pl;
	uint64_t ke = rng_stream_key(rq->seed, "layout.extents");
	uint64_t N = 0, m, *key = NULL, *cap = NULL;
	double p = (double)B / (double)pairs, mauto = 0, M, q, *d = NULL;
	int64_t nk;
	int ret = 0;

	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t n = layout_file_blocks(rq, f);

		if (n < 2)
			continue;
		N++;
		/* the chance that pair sampling at rate p breaks this file at all */
		mauto += p >= 1 ? 1 : -expm1((double)(n - 1) * log1p(-p));
	}
	if (!N || !B)
		return 0;
	key = malloc(N * sizeof(*key));
	if (!key)
		return -ENOMEM;
	nk = spread_keys(rq, key);
	if (nk < 0) {
		ret = (int)nk;
		goto out_free;
	}
	m = spread_count(rq, key, (uint64_t)nk, B, mauto, notes);

	/* wants: 1 + Geometric extra breaks of mean M - 2 */
	M = rq->frag_extents > 0 ? rq->frag_extents : 1.0 + (double)B / (double)m;
	q = M > 2 ? (M - 2) / (M - 1) : 0;
	d = malloc(m * sizeof(*d));
	cap = malloc(m * sizeof(*cap));
	if (!d || !cap) {
		ret = -ENOMEM;
		goto out_free;
	}
	for (uint64_t i = 0; i < m; i++) {
		uint64_t f = (uint32_t)key[i];
		struct rng r;
		double g = 0;

		rng_open(&r, ke, f);
		if (q > 0)
			g = floor(log(rng_uniform(&r)) / log(q));
		cap[i] = layout_file_blocks(rq, f) - 1;
		d[i] = 1 + (g < 1e15 ? g : 1e15);
	}
	spread_scale(key, d, cap, m, B, kb);
	if (rq->frag_extents > 0 && fabs(1.0 + (double)B / (double)m - M) > 0.05 * M)
		*notes |= LAYOUT_NOTE_EXTENTS;

out_free:
	free(key);
	free(d);
	free(cap);
	return ret;
}
