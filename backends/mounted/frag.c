/* frag.c - the mounted backend's layout: fragmentation steered through the kernel, measured by FIEMAP */
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "readback/fsread.h"
#include "readback/measure.h"
#include "backends/mounted/mounted.h"
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
	ret = fsread_open(st->root, FSREAD_EXTENTS, &fs, &err);
	if (!ret)
		ret = fsread_walk(fs, add_file, &l, &err);
	if (!ret && fsread_has_extents(fs)) {
		res->layout_score = measure_layout_score(&l);
		res->have_score = 1;
		res->have_layout = 1;
		res->frag_eligible = l.files;
		res->frag_files = l.fragmented;
		res->frag_runs = l.frag_fragments;
	}
	fsread_close(fs);
	if (ret)
		return mnt_err(st, ret, "cannot measure '%s': %s", st->root, err.msg);
	return 0;
}


#define FRAG_BATCH 256
#define XFS_MAGIC 0x58465342
#define FRAG_BUF (1 << 20)
#define FRAG_MAX_PIECES 64 /* at least this cap, when frag_extents is auto: rounds cost a syncfs each */

/* Breaks of an open file by FIEMAP: boundaries between physically non-adjacent runs. */
static int file_breaks(int fd, uint64_t *breaks)
{
	struct fiemap *fm = malloc(sizeof(*fm) + FRAG_BATCH * sizeof(struct fiemap_extent));
	uint64_t start = 0, prev_end = 0, n = 0;
	int last = 0, ret = 0;

	if (!fm)
		return -ENOMEM;
	while (!last) {
		memset(fm, 0, sizeof(*fm));
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = FRAG_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0) {
			ret = -errno;
			break;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &fm->fm_extents[i];

			last |= !!(e->fe_flags & FIEMAP_EXTENT_LAST);
			start = e->fe_logical + e->fe_length;
			if (n++ && e->fe_physical != prev_end)
				(*breaks)++;
			prev_end = e->fe_physical + e->fe_length;
		}
	}
	free(fm);
	return ret;
}

/* A filler: one block, made to take the place after the piece just written. */
static int filler(struct mnt_state *st, int sfd, uint64_t i, const unsigned char *buf,
		  size_t bs)
{
	char name[32];
	int fd, ret = 0;

	snprintf(name, sizeof(name), "f%llu", (unsigned long long)i);
	fd = openat(sfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	st->frag_fillers++;
	if (pwrite(fd, buf, bs, 0) != (ssize_t)bs || fsync(fd) != 0)
		ret = errno ? -errno : -EIO;
	close(fd);
	return ret;
}

/* Reopen fd for writing through /proc (the same inode, whatever its name is now). */
static int reopen(int keep)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", keep);
	return open(p, O_WRONLY | O_CLOEXEC);
}

/* One file being fragmented: its id, pieces, and an O_RDONLY fd kept open. */
struct piece_file {
	uint64_t f;
	unsigned k;
	int keep;
};

/* Create the batch's files (their names, never an existing one); keep a read fd each. */
static int batch_open(struct mnt_state *st, struct piece_file *p, unsigned n)
{
	char name[NAME_MAX_LEN + 1];
	struct plan_meta m;
	int dfd, fd, ret = 0;

	for (unsigned i = 0; i < n && !ret; i++) {
		ret = mnt_open_dir(st, st->pl->file_dir[p[i].f], &dfd);
		if (ret)
			break;
		plan_file_name(st->pl, p[i].f, name);
		plan_file_meta(st->pl, p[i].f, &m);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    m.mode & 0777);
		if (fd < 0) {
			ret = -errno;
		} else {
			st->undo.file[p[i].f] = 1;
			st->skip[p[i].f] = 1;
			p[i].keep = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
			if (p[i].keep < 0)
				ret = -errno;
			close(fd);
		}
		close(dfd);
	}
	return ret;
}

/*
 * Piece r of every file of the batch that has one, a filler after each,
 * then one syncfs: the kernel allocates the pieces one after another, so
 * each file's next piece cannot follow its last.  Opening and closing a
 * file for writing before its piece drops its preallocation (ext4).
 */
static int batch_round(struct mnt_state *st, struct piece_file *p, unsigned n, unsigned r,
		       int sfd, unsigned char *buf)
{
	uint64_t bs = st->vfs.f_bsize;
	int ret = 0;

	for (unsigned i = 0; i < n && !ret; i++) {
		uint64_t size = st->pl->file_size[p[i].f], blocks = (size + bs - 1) / bs;
		unsigned q = st->frag_reverse ? p[i].k - 1 - r : r;
		uint64_t a, b;
		int fd;

		if (r >= p[i].k)
			continue;
		a = blocks * q / p[i].k * bs;
		b = q + 1 == p[i].k ? size : blocks * (q + 1) / p[i].k * bs;
		fd = reopen(p[i].keep);
		if (fd >= 0)
			close(fd);
		fd = reopen(p[i].keep);
		if (fd < 0)
			return -errno;
		ret = mnt_write_range(st, fd, p[i].f, a, b, buf, FRAG_BUF);
		close(fd);
		if (!ret && r + 1 < p[i].k)
			ret = filler(st, sfd, st->frag_fillers, buf, bs);
	}
	if (!ret && syncfs(st->rootfd) != 0)
		ret = -errno;
	return ret;
}

/* Write a batch in rounds, then count its breaks and set its files' metadata. */
static int batch_write(struct mnt_state *st, struct piece_file *p, unsigned n, int sfd,
		       unsigned char *buf)
{
	unsigned rounds = 0;
	struct plan_meta m;
	int ret = batch_open(st, p, n);

	for (unsigned i = 0; i < n; i++)
		if (p[i].k > rounds)
			rounds = p[i].k;
	for (unsigned r = 0; r < rounds && !ret; r++)
		ret = mnt_cancelled(st) ? -EINTR : batch_round(st, p, n, r, sfd, buf);
	for (unsigned i = 0; i < n && !ret; i++) {
		ret = file_breaks(p[i].keep, &st->frag_breaks);
		plan_file_meta(st->pl, p[i].f, &m);
		if (!ret)
			ret = mnt_file_meta(st, p[i].keep, &m);
	}
	for (unsigned i = 0; i < n; i++)
		if (p[i].keep >= 0)
			close(p[i].keep);
	st->frag_files += n;
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

struct cand {
	double key;
	uint64_t f;
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key;
}

/*
 * Files that can be fragmented (two or more blocks, no holes), in a
 * size-weighted random order from the seed (exponential race: smaller
 * -log(u)/blocks first).  Also the score's pairs over every file.
 */
static struct cand *candidates(struct mnt_state *st, uint64_t *n, uint64_t *pairs,
			       uint64_t *cpairs)
{
	const struct plan *pl = st->pl;
	uint64_t bs = st->vfs.f_bsize, key = rng_stream_key(pl->prm.seed, "mounted-frag");
	struct cand *c = malloc((pl->nfiles + 1) * sizeof(*c));
	struct sparse_holes h;

	*n = *pairs = *cpairs = 0;
	for (uint64_t f = 0; c && f < pl->nfiles; f++) {
		uint64_t b = plan_blocks(pl, f, bs);
		double u;

		if (b < 2)
			continue;
		*pairs += b - 1;
		if (sparse_enabled(pl) && sparse_file_holes(pl, f, &h))
			continue;
		u = ((double)(rng_mix64(key ^ rng_mix64(f)) >> 11) + 0.5) / 9007199254740992.0;
		*cpairs += b - 1;
		c[*n].key = -log(u) / (double)b;
		c[(*n)++].f = f;
	}
	if (c)
		qsort(c, *n, sizeof(*c), cand_cmp);
	return c;
}

#define FRAG_BATCH_FILES 256

/*
 * Fragment files, a batch at a time, until the breaks FIEMAP sees reach
 * the target's.  A file's pieces: frag_extents when set, else its share
 * of the breaks still needed, spread over a share of the candidates
 * (frag_file_share, or half when auto).
 */
static int fragment_files(struct mnt_state *st, int sfd, const struct cand *c, uint64_t n,
			  uint64_t need, uint64_t cpairs, unsigned char *buf)
{
	const struct plan *pl = st->pl;
	double share = pl->prm.frag_file_share > 0 ? pl->prm.frag_file_share : 0.5;
	uint64_t bs = st->vfs.f_bsize, i = 0;
	uint64_t cap = n ? 4 * need / n : 0;
	struct piece_file p[FRAG_BATCH_FILES];
	int ret = 0;

	cap = cap < FRAG_MAX_PIECES ? FRAG_MAX_PIECES : cap;

	while (i < n && st->frag_breaks < need && !ret) {
		uint64_t left = need - st->frag_breaks, planned = 0;
		unsigned nb = 0;

		for (; i < n && nb < FRAG_BATCH_FILES && planned < left; i++) {
			uint64_t b = plan_blocks(pl, c[i].f, bs), k;

			if (pl->prm.frag_extents >= 2)
				k = (uint64_t)(pl->prm.frag_extents + 0.5);
			else
				k = 1 + (uint64_t)ceil((double)left * (double)(b - 1) /
						       (share * (double)cpairs));
			if (pl->prm.frag_extents < 2 && k > cap)
				k = cap;
			k = k < 2 ? 2 : k > b ? b : k;
			if (k - 1 > left - planned)
				k = 1 + left - planned;
			cpairs -= b - 1;
			p[nb++] = (struct piece_file){ .f = c[i].f, .k = (unsigned)k, .keep = -1 };
			planned += k - 1;
		}
		ret = batch_write(st, p, nb, sfd, buf);
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
	uint64_t n, pairs, cpairs, need;
	struct statfs sfs;
	unsigned char *buf = NULL;
	struct cand *c = NULL;
	char scratch[64];
	int sfd, ret;

	*target = t;
	if (!(t < 1) || !st->caps.fiemap)
		return 0;
	st->skip = calloc(st->pl->nfiles + 1, 1);
	c = candidates(st, &n, &pairs, &cpairs);
	buf = malloc(FRAG_BUF);
	if (!st->skip || !c || !buf) {
		ret = mnt_err(st, -ENOMEM, "out of memory");
		goto out_free;
	}
	memset(buf, 0xa5, FRAG_BUF);
	/* xfs keeps speculative preallocation past EOF across closes: fill holes instead */
	st->frag_reverse = fstatfs(st->rootfd, &sfs) == 0 && sfs.f_type == XFS_MAGIC;
	need = (uint64_t)ceil((1 - t) * (double)pairs);
	snprintf(scratch, sizeof(scratch), ".imprint-frag-%ld", (long)getpid());
	if (mkdirat(st->rootfd, scratch, 0700) != 0 ||
	    (sfd = openat(st->rootfd, scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		ret = mnt_err(st, -errno, "cannot create a scratch directory '%s' in '%s': %s",
			      scratch, st->root, strerror(errno));
		goto out_free;
	}
	ret = fragment_files(st, sfd, c, n, need, cpairs, buf);
	remove_fillers(st, sfd, scratch);
	if (ret == -EINTR)
		st->b->errmsg[0] = '\0';
	else if (ret)
		mnt_err(st, ret, "cannot write the fragmented files in '%s': %s", st->root,
			strerror(-ret));
out_free:
	free(c);
	free(buf);
	return ret;
}
