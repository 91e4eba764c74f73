/* frag.c - the mounted backend's layout: fragmentation steered through the kernel, measured by FIEMAP */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "read/fsread.h"
#include "analysis/measure.h"
#include "backends/mounted/mounted.h"
#include "content/prealloc.h"
#include "layout/layout.h"
#include "layout/spread.h"
#include "util/array.h"
#include "util/fiemap.h"
#include "util/rng.h"
#include "content/sparse.h"

static int add_file(struct fsread *fs, const struct fsread_entry *e, void *arg)
{
	struct measure_layout *l = arg;

	(void)fs;
	if (e->type == FSREAD_FILE && e->first_name && e->extents)
		measure_layout_add(l, e->extents, e->nextents);
	return 0;
}

/*
 * The layout score of the tree under DIR by FIEMAP, as `imprint measure`
 * computes it; none (reported as unavailable, never 1.0) where the file
 * system has no FIEMAP (tmpfs).
 */
int mnt_measure(struct mnt_state *st, struct create_result *res)
{
	struct measure_layout l;
	struct fsread_error err = { { 0 } };
	struct fsread *fs = NULL;
	int ret;

	memset(&l, 0, sizeof(l));
	res->have_score = 0;
	if (!st->caps.fiemap)
		return 0;
	/* the tree was just written: its inodes are cached, the prefetch helpers would only stat it all twice */
	ret = fsread_open(st->root, FSREAD_EXTENTS | FSREAD_WARM, &fs, &err);
	if (!ret)
		ret = fsread_walk(fs, add_file, &l, &err);
	if (!ret && fsread_has_extents(fs)) {
		res->layout_score = measure_layout_score(&l);
		res->have_score = 1;
		res->have_layout = 1;
		res->frag_eligible = l.files;
		res->frag_files = l.fragmented;
		res->frag_runs = l.frag_fragments;
		st->measured_breaks = l.pairs - l.contiguous;
	}
	fsread_close(fs);
	if (ret)
		return mnt_err(st, ret, "cannot measure '%s': %s", st->root, err.msg);
	return 0;
}

#define XFS_MAGIC 0x58465342
#define EXT4_MAGIC 0xEF53
#define FRAG_BUF (1 << 20)
#define FRAG_BATCH_FILES 64
#define FRAG_REDO_PASSES 8 /* writes again of files whose pieces the kernel merged */

/* Counting breaks: the extents seen so far and where the last one ended on disk. */
struct breaks_walk {
	uint64_t *breaks, n, prev_end;
};

static int count_break(const struct fiemap_extent *x, void *arg)
{
	struct breaks_walk *w = arg;

	if (w->n++ && x->fe_physical != w->prev_end)
		(*w->breaks)++;
	w->prev_end = x->fe_physical + x->fe_length;
	return 0;
}

/* Breaks of an open file by FIEMAP: boundaries between physically non-adjacent runs. */
static int file_breaks(int fd, uint64_t *breaks)
{
	struct breaks_walk w = { .breaks = breaks };

	return fiemap_walk(fd, FIEMAP_FLAG_SYNC, count_break, &w);
}

/*
 * Start writeback of [off, off + len) now: the kernel allocates the blocks
 * of a delayed allocation when writeback starts (ext4, xfs, btrfs), so
 * allocations follow the order of these calls, without a journal commit.
 */
static int flush_range(int fd, uint64_t off, uint64_t len)
{
	return sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE) ? -errno : 0;
}

/* A filler: one block, allocated right after the piece just written; *fd: its fd, or -1. */
static int filler(struct mnt_state *st, int sfd, const unsigned char *buf, size_t bs, int *fd)
{
	char name[32];

	snprintf(name, sizeof(name), "f%llu", (unsigned long long)st->frag_fillers);
	*fd = openat(sfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (*fd < 0)
		return -errno;
	st->frag_fillers++;
	if (pwrite(*fd, buf, bs, 0) != (ssize_t)bs)
		return errno ? -errno : -EIO;
	return 0;
}

/* Reopen fd for writing through /proc (the same inode, whatever its name is now). */
static int reopen(int keep)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", keep);
	return open(p, O_WRONLY | O_CLOEXEC);
}

/* Create plan file f (never over an existing name); *keep: an O_RDONLY fd on it. */
static int frag_create(struct mnt_state *st, uint64_t f, int *keep)
{
	char name[NAME_MAX_LEN + 1];
	struct plan_meta m;
	int dfd, fd, ret;

	*keep = -1;
	ret = mnt_open_dir(st, st->pl->file_dir[f], &dfd);
	if (ret)
		return ret;
	mnt_file_name(st, f, name, 1);
	plan_file_meta(st->pl, f, &m);
	fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, m.mode & 0777);
	if (fd < 0) {
		ret = -errno;
	} else {
		st->undo.file[f] = 1;
		st->skip[f] = 1;
		*keep = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (*keep < 0)
			ret = -errno;
		close(fd);
	}
	close(dfd);
	return ret;
}

/* Open plan file f, written before by frag_create, and empty it; *keep: an O_RDONLY fd on it. */
static int frag_reopen(struct mnt_state *st, uint64_t f, int *keep)
{
	char name[NAME_MAX_LEN + 1];
	int dfd, fd, ret;

	*keep = -1;
	ret = mnt_open_dir(st, st->pl->file_dir[f], &dfd);
	if (ret)
		return ret;
	mnt_file_name(st, f, name, 0);
	*keep = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ret = *keep < 0 ? -errno : 0;
	close(dfd);
	if (ret)
		return ret;
	fd = reopen(*keep);
	if (fd < 0)
		return -errno;
	ret = ftruncate(fd, 0) ? -errno : 0;
	close(fd);
	return ret;
}

/* One file being fragmented: its id, pieces, where they start (blocks), an O_RDONLY fd kept open. */
struct piece_file {
	uint64_t f, k;
	uint64_t *cut; /* piece q is blocks [cut[q], cut[q + 1]); cut[k] is the file's blocks */
	int keep;
	int redo;      /* written before: emptied and written again in more pieces */
};

/*
 * Where file p->f's k pieces start, as frag_sizes asks: equal (within a
 * block), random (breaks at k - 1 distinct random block boundaries, by
 * selection sampling), lognormal (each piece one block plus a share of
 * the rest weighted exp(frag_size_sigma N(0,1))).  Draws from stream
 * "mounted-frag-sizes", index the file.
 */
static int piece_cuts(const struct mnt_state *st, struct piece_file *p)
{
	const struct params *prm = &st->pl->prm;
	uint64_t bs = st->vfs.f_bsize, blocks = (st->pl->file_size[p->f] + bs - 1) / bs, k = p->k;
	double sigma = prm->frag_size_sigma > 0 ? prm->frag_size_sigma : 1.0, *w, tot = 0, acc = 0;
	struct rng r;

	p->cut = malloc((k + 1) * sizeof(*p->cut));
	if (!p->cut)
		return -ENOMEM;
	rng_init(&r, prm->seed, "mounted-frag-sizes", p->f);
	p->cut[0] = 0;
	p->cut[k] = blocks;
	if (prm->frag_sizes == FRAG_SIZES_EQUAL || k < 2 || k >= blocks) {
		for (uint64_t q = 1; q < k; q++)
			p->cut[q] = blocks * q / k;
	} else if (prm->frag_sizes == FRAG_SIZES_RANDOM) {
		/* boundary j (1 .. blocks - 1) is taken with probability wanted / left */
		for (uint64_t j = 1, q = 1; q < k; j++)
			if (rng_below(&r, blocks - j) < k - q)
				p->cut[q++] = j;
	} else {
		w = malloc(k * sizeof(*w));
		if (!w)
			return -ENOMEM;
		for (uint64_t q = 0; q < k; q++) {
			double u = 1.0 - rng_uniform(&r), v = rng_uniform(&r);

			w[q] = exp(sigma * sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v));
			tot += w[q];
		}
		for (uint64_t q = 1; q < k; q++) {
			acc += w[q - 1];
			p->cut[q] = q + (uint64_t)((double)(blocks - k) * acc / tot + 0.5);
		}
		free(w);
	}
	return 0;
}

/*
 * Piece r of every file of the batch that has one, a filler block after
 * each, then their writeback started in that order: the kernel allocates
 * them one after another, as syncfs() would but without a journal
 * commit, so a file's next piece cannot follow its last.  Opening and
 * closing a file for writing before its piece drops its preallocation
 * (ext4); on xfs the pieces go last first (speculative preallocation past
 * EOF would otherwise hold the place).
 */
static int batch_round(struct mnt_state *st, struct piece_file *p, unsigned n, uint64_t r,
		       int sfd, unsigned char *buf)
{
	uint64_t bs = st->vfs.f_bsize;
	int fds[2 * FRAG_BATCH_FILES];
	unsigned nf = 0;
	int ret = 0;

	for (unsigned i = 0; i < n && !ret; i++) {
		uint64_t size = st->pl->file_size[p[i].f];
		uint64_t q = st->frag_reverse ? p[i].k - 1 - r : r, a, b;
		int fd;

		if (r >= p[i].k)
			continue;
		a = p[i].cut[q] * bs;
		b = q + 1 == p[i].k ? size : p[i].cut[q + 1] * bs;
		fd = reopen(p[i].keep);
		if (fd >= 0)
			close(fd);
		fd = reopen(p[i].keep);
		if (fd < 0) {
			ret = -errno;
			break;
		}
		fds[nf++] = fd;
		ret = mnt_write_range(st, fd, p[i].f, a, b, buf, FRAG_BUF);
		if (!ret && r + 1 < p[i].k)
			ret = filler(st, sfd, buf, bs, &fds[nf++]);
	}
	for (unsigned i = 0; i < nf; i++) {
		if (!ret && fds[i] >= 0 && !st->frag_syncfs)
			ret = flush_range(fds[i], 0, 0);
		if (fds[i] >= 0)
			close(fds[i]);
	}
	if (!ret && st->frag_syncfs && syncfs(st->rootfd) != 0)
		ret = -errno;
	return ret;
}

/* Write a batch in rounds, then count its breaks by FIEMAP and set its files' metadata. */
static int batch_write(struct mnt_state *st, struct piece_file *p, unsigned n, int sfd,
		       unsigned char *buf)
{
	uint64_t rounds = 0;
	struct plan_meta m;
	int ret = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!ret)
			ret = p[i].redo ? frag_reopen(st, p[i].f, &p[i].keep)
					: frag_create(st, p[i].f, &p[i].keep);
		if (!ret)
			ret = piece_cuts(st, &p[i]);
		rounds = p[i].k > rounds ? p[i].k : rounds;
	}
	for (uint64_t r = 0; r < rounds && !ret; r++)
		ret = mnt_cancelled(st) ? -EINTR : batch_round(st, p, n, r, sfd, buf);
	for (unsigned i = 0; i < n && !ret; i++) {
		uint64_t got = 0;

		ret = file_breaks(p[i].keep, &got);
		if (p[i].redo) {
			st->frag_breaks -= st->frag_got[p[i].f];
			st->frag_files -= st->frag_got[p[i].f] > 0;
		}
		st->frag_got[p[i].f] = (uint32_t)(got < UINT32_MAX ? got : UINT32_MAX);
		st->frag_breaks += got;
		st->frag_files += got > 0;
		plan_file_meta(st->pl, p[i].f, &m);
		if (!ret && prealloc_enabled(st->pl)) {
			int w = reopen(p[i].keep);

			ret = w < 0 ? -errno : mnt_prealloc_after(st, w, p[i].f);
			if (w >= 0)
				close(w);
		}
		if (!ret)
			ret = mnt_file_meta(st, p[i].keep, p[i].f, &m);
	}
	for (unsigned i = 0; i < n; i++) {
		if (p[i].keep >= 0)
			close(p[i].keep);
		free(p[i].cut);
	}
	return ret;
}

/* Block pairs of the plan's files (the score's denominator), data blocks of bs bytes. */
static uint64_t plan_blocks(const struct plan *pl, uint64_t f, uint64_t bs)
{
	struct sparse_holes h = { 0 };
	uint64_t b = (pl->file_size[f] + bs - 1) / bs;

	if (sparse_enabled(pl) && sparse_file_holes(pl, f, &h))
		b -= h.bytes / bs;
	return b;
}

/* The order key of file f of b blocks under frag_select (smallest first); u in (0, 1). */
static double select_key(const struct plan *pl, uint64_t f, uint64_t b, double u)
{
	switch (pl->prm.frag_select) {
	case FRAG_SELECT_RANDOM:
		return u;
	case FRAG_SELECT_SIZE:
		return -(double)b;
	case FRAG_SELECT_TYPE:
		if (pl->file_ext && pl->ext.name)
			return layout_ext_group(plan_file_ext(pl, f)) + u;
		return 3 + u;
	default:
		/* weighted, Efraimidis-Spirakis: the smallest -ln(u) / pairs first */
		return -log(u) / (double)(b - 1);
	}
}

/*
 * Files that can be fragmented (two or more blocks, no holes), in
 * frag_select order from the seed.  Also the score's pairs over every
 * file, and *mauto: the files pair sampling at the target's rate touches.
 */
static struct array_keyed *candidates(struct mnt_state *st, uint64_t *n, uint64_t *pairs,
				      double *mauto)
{
	const struct plan *pl = st->pl;
	uint64_t bs = st->vfs.f_bsize, key = rng_stream_key(pl->prm.seed, "mounted-frag");
	double p = 1 - pl->prm.layout_score;
	struct array_keyed *c = malloc((pl->nfiles + 1) * sizeof(*c));
	struct sparse_holes h;

	*n = *pairs = 0;
	*mauto = 0;
	for (uint64_t f = 0; c && f < pl->nfiles; f++) {
		uint64_t b = plan_blocks(pl, f, bs);
		double u;

		if (b < 2)
			continue;
		*pairs += b - 1;
		if (sparse_enabled(pl) && sparse_file_holes(pl, f, &h))
			continue;
		*mauto += p >= 1 ? 1 : -expm1((double)(b - 1) * log1p(-p));
		u = ((double)(rng_mix64(key ^ rng_mix64(f)) >> 11) + 0.5) / 9007199254740992.0;
		c[*n].key = select_key(pl, f, b, u);
		c[(*n)++].idx = f;
	}
	if (c)
		qsort(c, *n, sizeof(*c), array_cmp_keyed);
	return c;
}

/* Whether every spread parameter is on auto (as on ext4, no files are chosen first then). */
static int spread_auto(const struct params *p)
{
	return !(p->frag_file_share > 0) && !(p->frag_extents > 0) &&
	       p->frag_select == FRAG_SELECT_WEIGHTED && p->frag_sizes == FRAG_SIZES_RANDOM;
}

/*
 * Every spread parameter on auto: the first mauto candidates share the
 * need in proportion to their pairs (the largest take the most, as pair
 * sampling at the target's rate would), into kb.
 */
static void auto_breaks(struct mnt_state *st, const struct array_keyed *c, uint64_t n,
			uint64_t need, double mauto, uint32_t *kb)
{
	uint64_t bs = st->vfs.f_bsize, m = (uint64_t)nearbyint(mauto), mpairs = 0;

	m = m < 1 ? 1 : m > n ? n : m > need ? need : m;
	for (uint64_t j = 0; j < m; j++)
		mpairs += plan_blocks(st->pl, c[j].idx, bs) - 1;
	for (uint64_t j = 0; j < m && mpairs; j++) {
		uint64_t b = plan_blocks(st->pl, c[j].idx, bs) - 1;
		uint64_t k = (uint64_t)ceil((double)need * (double)b / (double)mpairs);

		kb[c[j].idx] = (uint32_t)(k < b ? k : b);
	}
}

/*
 * Otherwise: breaks per file (kb, zeroed, one per file) as the ext4 layout spreads
 * them (spread_plan): the same files chosen by frag_file_share,
 * frag_extents and frag_select, the same wants, scaled so that they sum
 * to need; *notes gets LAYOUT_NOTE_SHARE / _EXTENTS when those gave way.
 * Files with holes are not chosen (written by the workers).
 */
static int spread_breaks(struct mnt_state *st, uint64_t need, uint64_t pairs, uint32_t *kb,
			 uint32_t *notes)
{
	const struct plan *pl = st->pl;
	uint64_t *fb = calloc(pl->nfiles + 1, sizeof(*fb));
	struct layout_request rq;
	struct sparse_holes h;
	int ret;

	if (!fb)
		return -ENOMEM;
	memset(&rq, 0, sizeof(rq));
	layout_request_set_params(&rq, &pl->prm);
	rq.pl = pl;
	rq.seed = pl->prm.seed;
	rq.block_size = (uint32_t)st->vfs.f_bsize;
	rq.file_blocks = fb;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (!(sparse_enabled(pl) && sparse_file_holes(pl, f, &h)))
			fb[f] = plan_blocks(pl, f, st->vfs.f_bsize);
	ret = spread_plan(&rq, need, pairs ? pairs : 1, kb, notes);
	free(fb);
	return ret;
}

/*
 * The breaks file f of b blocks takes: its share kb (rest: the shares of
 * the files not taken yet, f's included), plus what the files before it
 * could not take (the kernel merged pieces) or less what they took beyond
 * theirs, so that the breaks FIEMAP sees reach the target's: the score
 * wins.  A chosen file keeps at least one break.
 */
static uint64_t file_want(uint64_t kb, uint64_t b, uint64_t left, uint64_t rest)
{
	uint64_t cap = b - 1, want = kb < cap ? kb : cap, d;

	if (left > rest) {
		d = left - rest;
		want += d < cap - want ? d : cap - want;
	} else if (want > 1) {
		d = rest - left;
		want -= d < want - 1 ? d : want - 1;
	}
	return want;
}

/*
 * Breaks still owed when no file is left to take them (the kernel merged
 * pieces, on ext4 mostly those of large files): the candidates that can
 * take more, in their order, are written in as many more pieces as owed,
 * those fragmented already emptied and written again.
 */
static int fragment_again(struct mnt_state *st, int sfd, const struct array_keyed *c, uint64_t n,
			  uint64_t need, unsigned char *buf)
{
	uint64_t bs = st->vfs.f_bsize, i = 0;
	struct piece_file p[FRAG_BATCH_FILES];
	int ret = 0;

	while (i < n && st->frag_breaks < need && !ret) {
		uint64_t left = need - st->frag_breaks, planned = 0;
		unsigned nb = 0;

		for (; i < n && nb < FRAG_BATCH_FILES && planned < left; i++) {
			uint64_t f = c[i].idx, cap = plan_blocks(st->pl, f, bs) - 1, have = st->frag_got[f];
			uint64_t more = cap - (have < cap ? have : cap);

			if (!more)
				continue;
			more = more < left - planned ? more : left - planned;
			p[nb++] = (struct piece_file){ .f = f, .k = have + more + 1, .keep = -1,
						       .redo = st->skip[f] };
			planned += more;
		}
		if (nb)
			ret = batch_write(st, p, nb, sfd, buf);
	}
	return ret;
}

/*
 * Fragment the files spread_breaks chose, in candidate (frag_select)
 * order, a batch at a time, checking each file's breaks by FIEMAP: what
 * the kernel merged is owed by the next files, and when the chosen files
 * cannot hold it, the other candidates follow in the same order, until
 * the breaks reach need.
 */
static int fragment_files(struct mnt_state *st, int sfd, const struct array_keyed *c, uint64_t n,
			  uint64_t need, const uint32_t *kb, unsigned char *buf)
{
	const struct plan *pl = st->pl;
	uint64_t bs = st->vfs.f_bsize, rest = 0, i = 0;
	struct piece_file p[FRAG_BATCH_FILES];
	int ret = 0;

	for (uint64_t j = 0; j < n; j++) {
		rest += kb[c[j].idx];
		st->frag_chosen += kb[c[j].idx] > 0;
	}
	while (i < n && st->frag_breaks < need && !ret) {
		uint64_t left = need - st->frag_breaks, planned = 0;
		unsigned nb = 0;

		for (; i < n && nb < FRAG_BATCH_FILES; i++) {
			uint64_t f = c[i].idx, k = kb[f], want;

			if (!k && left <= planned + rest)
				continue; /* not chosen, and nothing owed */
			want = file_want(k, plan_blocks(pl, f, bs), left > planned ? left - planned : 0,
					 rest);
			rest -= k;
			if (!want)
				continue;
			p[nb++] = (struct piece_file){ .f = f, .k = want + 1, .cut = NULL, .keep = -1 };
			planned += want;
		}
		if (nb)
			ret = batch_write(st, p, nb, sfd, buf);
	}
	for (int pass = 0, idle = 0; pass < FRAG_REDO_PASSES && st->frag_breaks < need && !ret;
	     pass++) {
		uint64_t before = st->frag_breaks;

		ret = fragment_again(st, sfd, c, n, need, buf);
		idle = st->frag_breaks > before ? 0 : idle + 1;
		if (idle == 2)
			break; /* no progress twice: the kernel merges whatever is tried */
	}
	return ret;
}

static void remove_fillers(struct mnt_state *st, int sfd, const char *scratch)
{
	char name[32];

	for (uint64_t i = 0; i < st->frag_fillers; i++) {
		snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
		unlinkat(sfd, name, 0);
	}
	close(sfd);
	unlinkat(st->rootfd, scratch, AT_REMOVEDIR);
}

/*
 * layout_score < 1: write the chosen files first, in pieces between
 * filler files (in a scratch directory inside DIR, removed at the end),
 * checking each file's extents by FIEMAP as it goes; the workers skip
 * them.  *target is the score aimed at.
 */
int mnt_fragment(struct mnt_state *st, double *target)
{
	double t = st->pl->prm.layout_score;
	uint64_t n, pairs, need;
	uint32_t *kb = NULL;
	double mauto;
	struct statfs sfs;
	unsigned char *buf = NULL;
	struct array_keyed *c = NULL;
	char scratch[64];
	int sfd, ret;

	*target = t;
	if (!(t < 1) || !st->caps.fiemap)
		return 0;
	st->skip = calloc(st->pl->nfiles + 1, 1);
	st->frag_got = calloc(st->pl->nfiles + 1, sizeof(*st->frag_got));
	c = candidates(st, &n, &pairs, &mauto);
	buf = malloc(FRAG_BUF);
	if (!st->skip || !st->frag_got || !c || !buf) {
		ret = mnt_err(st, -ENOMEM, "out of memory");
		goto out_free;
	}
	memset(buf, 0xa5, FRAG_BUF);
	/* xfs keeps speculative preallocation past EOF across closes: fill holes instead */
	st->frag_reverse = fstatfs(st->rootfd, &sfs) == 0 && sfs.f_type == XFS_MAGIC;
	/* ext4 merges pieces whose writeback is merely started: commit a round at a time */
	st->frag_syncfs = fstatfs(st->rootfd, &sfs) == 0 && sfs.f_type == EXT4_MAGIC;
	need = (uint64_t)ceil((1 - t) * (double)pairs);
	snprintf(scratch, sizeof(scratch), ".imprint-frag-%ld", (long)getpid());
	if (mkdirat(st->rootfd, scratch, 0700) != 0 ||
	    (sfd = openat(st->rootfd, scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		ret = mnt_err(st, -errno, "cannot create a scratch directory '%s' in '%s': %s",
			      scratch, st->root, strerror(errno));
		goto out_free;
	}
	st->frag_need = need;
	kb = calloc(st->pl->nfiles + 1, sizeof(*kb));
	ret = kb ? 0 : -ENOMEM;
	if (!ret && spread_auto(&st->pl->prm))
		auto_breaks(st, c, n, need, mauto, kb);
	else if (!ret)
		ret = spread_breaks(st, need, pairs, kb, &st->frag_notes);
	if (!ret)
		ret = fragment_files(st, sfd, c, n, need, kb, buf);
	remove_fillers(st, sfd, scratch);
	if (ret == -EINTR)
		st->b->errmsg[0] = '\0';
	else if (ret)
		mnt_err(st, ret, "cannot write the fragmented files in '%s': %s", st->root,
			strerror(-ret));
out_free:
	free(kb);
	free(c);
	free(buf);
	return ret;
}

/* Append "; " and a formatted note to notes. */
static void note_add(char *notes, size_t len, const char *fmt, ...)
{
	size_t at = strlen(notes);
	va_list ap;

	if (at + 3 >= len)
		return;
	if (at) {
		memcpy(notes + at, "; ", 3);
		at += 2;
	}
	va_start(ap, fmt);
	vsnprintf(notes + at, len - at, fmt, ap);
	va_end(ap);
}

/*
 * Say in notes what gave way to the score (frag_file_share, frag_extents,
 * as on ext4) and how close the breaks came when the kernel would not
 * take them all: in the figures measured after the writeback (the
 * summary's), not in those seen while writing, which the kernel may have
 * merged or split since.
 */
void mnt_frag_note(const struct mnt_state *st, struct create_result *res)
{
	char *notes = res->notes;
	size_t len = sizeof(res->notes);

	if (!res->have_layout)
		return;
	if ((st->frag_notes & LAYOUT_NOTE_SHARE) ||
	    (st->pl->prm.frag_file_share > 0 && res->frag_files != st->frag_chosen))
		note_add(notes, len, "'frag_file_share' gave way to 'layout_score' (%llu files fragmented)",
			 (unsigned long long)res->frag_files);
	if ((st->frag_notes & LAYOUT_NOTE_EXTENTS) && res->frag_files)
		note_add(notes, len,
			 "'frag_extents' gave way to 'layout_score' (%.2f extents per fragmented file)",
			 (double)res->frag_runs / (double)res->frag_files);
	if (st->measured_breaks < st->frag_need)
		note_add(notes, len,
			 "layout_score not reached: %llu of the %llu breaks it needs (the kernel merged pieces, or too few files of two or more blocks)",
			 (unsigned long long)st->measured_breaks, (unsigned long long)st->frag_need);
}
