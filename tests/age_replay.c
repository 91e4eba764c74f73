/* age_replay.c - aging benchmarks' helper: time the simulation, print its churn, replay it */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <et/com_err.h>
#include <ext2fs/ext2fs.h>

#include "backends/ext4/state.h"
#include "layout/age.h"
#include "layout/layout.h"
#include "plan/plan.h"

/*
 * Usage:
 *   age_replay sim [--image IMG] KEY=VALUE...   age the plan of the parameters; figures on stdout
 *   age_replay ops --image IMG KEY=VALUE...     the same, and every operation on stdout
 *   age_replay run DIR                          replay the operations read from stdin under DIR
 *
 * The free space is that of IMG (an empty ext2/3/4 image, opened
 * read-only; its root directory's blocks count as free, as imprint create
 * rebuilds the root), or without --image an ext4-like map of 'size'
 * (groups of 32768 blocks, flex groups of 16).  Directory and symlink
 * blocks are estimated from the names; imprint create knows them exactly.
 *
 * The operations, one a line, tab-separated: "R round", "D path" (mkdir),
 * "C bytes path" (create and write), "U path" (unlink).  Temporaries are
 * named ".age~ID" in their directory.  run writes each file whole with one
 * pwrite per MiB, then sync_file_range() before close, so the kernel
 * allocates it while it is open (as the simulation assumes); at each
 * round it calls syncfs(), a journal commit, after which what the round
 * deleted is free space again (the simulation commits there too).  It
 * prints nothing but errors.
 */

#define PATHLEN 4096

struct ctx {
	const struct plan *pl;
	FILE *out;
	char dpath[PATHLEN];
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int on_op(void *arg, const struct age_op *op)
{
	struct ctx *c = arg;
	const struct plan *pl = c->pl;
	char name[NAME_MAX_LEN + 1];
	const char *dp;
	int n;

	switch (op->kind) {
	case AGE_ROUND:
		fprintf(c->out, "R\t%" PRIu32 "\n", op->round);
		break;
	case AGE_MKDIR:
		n = plan_dir_path(pl, (uint32_t)op->id, c->dpath, PATHLEN);
		if (n < 0)
			return 1;
		if (op->id)
			fprintf(c->out, "D\t%s\n", c->dpath);
		break;
	case AGE_CREATE:
	case AGE_UNLINK:
		if (plan_dir_path(pl, op->dir, c->dpath, PATHLEN) < 0)
			return 1;
		dp = c->dpath;
		if (!strcmp(dp, "/"))
			dp = "";
		if (op->temp)
			snprintf(name, sizeof(name), ".age~%" PRIu64, op->id);
		else
			plan_file_name(pl, op->id, name);
		if (op->kind == AGE_CREATE)
			fprintf(c->out, "C\t%" PRIu64 "\t%s/%s\n", op->bytes, dp, name);
		else
			fprintf(c->out, "U\t%s/%s\n", dp, name);
		break;
	}
	return ferror(c->out) ? 1 : 0;
}

/* The free space of an empty image, its root's blocks free. */
static int freemap_of_image(const char *img, struct freemap *fm, uint32_t *bs)
{
	ext2_filsys fs;
	errcode_t err;
	int ret;

	err = ext2fs_open(img, EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &fs);
	if (!err)
		err = ext2fs_read_bitmaps(fs);
	if (err) {
		fprintf(stderr, "age_replay: cannot read '%s': %s\n", img, error_message(err));
		return -1;
	}
	ext4_free_root_blocks(fs);
	*bs = fs->blocksize;
	ret = ext4_read_freemap(fs, fm);
	ext2fs_close_free(&fs);
	return ret ? -1 : 0;
}

/* An ext4-like map of nblocks: 32768-block groups, flex groups of 16. */
static int freemap_synthetic(uint64_t nblocks, struct freemap *fm)
{
	uint32_t bpg = 32768, ng = (uint32_t)((nblocks + bpg - 1) / bpg);

	memset(fm, 0, sizeof(*fm));
	fm->nblocks = nblocks;
	fm->blocks_per_group = bpg;
	fm->ngroups = ng;
	fm->flex_groups = 16;
	fm->runs = calloc(ng, sizeof(*fm->runs));
	if (!fm->runs)
		return -1;
	for (uint32_t g = 0; g < ng; g++) {
		uint64_t s = (uint64_t)g * bpg, e = s + bpg < nblocks ? s + bpg : nblocks;
		uint64_t hole = g % 16 == 0 ? 2 * 16 + 64 + 16 * 512 : g % 2 ? 2 : 0;

		if (e <= s + hole)
			continue;
		if (!hole && fm->nruns &&
		    fm->runs[fm->nruns - 1].start + fm->runs[fm->nruns - 1].len == s) {
			fm->runs[fm->nruns - 1].len += e - s;
			continue;
		}
		fm->runs[fm->nruns].start = s + hole;
		fm->runs[fm->nruns].len = e - s - hole;
		fm->nruns++;
	}
	return 0;
}

static int age(int argc, char **argv, int ops)
{
	const char *img = NULL;
	struct params p;
	struct param_error perr;
	struct plan_error plerr;
	struct plan pl;
	struct freemap fm;
	struct layout_request rq = { 0 };
	struct layout lo;
	struct layout_free_hist h;
	struct age_trace tr;
	static struct ctx c;
	uint64_t *fb, need = 0;
	uint32_t *db, bs = 4096;
	uint8_t *lb;
	double t0, t1, t2;
	int ret;

	params_init(&p);
	for (int i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!strcmp(argv[i], "--image") && i + 1 < argc) {
			img = argv[++i];
			continue;
		}
		if (!eq) {
			fprintf(stderr, "age_replay: expected KEY=VALUE, got '%s'\n", argv[i]);
			return 2;
		}
		*eq = 0;
		if (params_set(&p, argv[i], eq + 1, "age_replay", &perr)) {
			fprintf(stderr, "%s\n", perr.msg);
			return 2;
		}
	}
	if (params_resolve(&p, &perr)) {
		fprintf(stderr, "%s\n", perr.msg);
		return 2;
	}
	if (img ? freemap_of_image(img, &fm, &bs) : freemap_synthetic(p.size / 4096, &fm))
		return 1;
	t0 = now();
	if (plan_build(&pl, &p, &plerr)) {
		fprintf(stderr, "%s\n", plerr.msg);
		return 1;
	}
	t1 = now();
	fb = calloc(pl.nfiles + 1, sizeof(*fb));
	db = calloc(pl.ndirs + 1, sizeof(*db));
	lb = calloc(pl.nlinks + 1, sizeof(*lb));
	if (!fb || !db || !lb)
		return 1;
	for (uint64_t f = 0; f < pl.nfiles; f++)
		fb[f] = (pl.file_size[f] + bs - 1) / bs;
	for (uint32_t j = 0; j < pl.ndirs; j++) {
		uint64_t bytes = 24;

		for (uint32_t k = 0; k < pl.dir_nfiles[j]; k++) {
			char name[NAME_MAX_LEN + 1];
			size_t nl = plan_file_name(&pl, pl.dir_first_file[j] + k, name);

			bytes += 8 + ((nl + 3) & ~(size_t)3);
		}
		for (uint32_t k = pl.dir_first_child[j]; k != PLAN_NONE; k = pl.dir_next_sibling[k])
			bytes += 24;
		db[j] = (uint32_t)((bytes + bs - 13) / (bs - 12));
	}
	for (uint32_t l = 0; l < pl.nlinks; l++) {
		char t[PATHLEN];

		lb[l] = !(pl.link_kind[l] & LINK_HARD) &&
			plan_symlink_target(&pl, l, t, sizeof(t)) > 59;
	}
	layout_request_set_params(&rq, &p);
	rq.pl = &pl;
	rq.file_blocks = fb;
	rq.dir_blocks = db;
	rq.link_blocks = lb;
	rq.block_size = bs;
	rq.mapping = LAYOUT_EXTENTS;
	rq.max_extent_len = 32768;
	rq.pool_blocks = 64 + pl.ndirs / 64;
	rq.seed = p.seed;
	if (ops) {
		c.pl = &pl;
		c.out = stdout;
		tr.ctx = &c;
		tr.op = on_op;
		rq.age_trace = &tr;
	}
	ret = layout_build(&lo, &rq, &fm, &need);
	t2 = now();
	if (ret) {
		fprintf(stderr, "age_replay: layout: %s (need %" PRIu64 " blocks)\n",
			strerror(-ret), need);
		return 1;
	}
	layout_free_hist(&lo, &rq, &fm, p.free_chunk, &h);
	{
		FILE *o = ops ? stderr : stdout;

		fprintf(o, "files %" PRIu64 " dirs %" PRIu32 " bytes %" PRIu64 " blocks %" PRIu64
			   " rounds %" PRIu32 " churn %g\n",
			pl.nfiles, pl.ndirs, pl.bytes, fm.nblocks, p.age_rounds, p.age_churn);
		fprintf(o, "plan_seconds %.3f layout_seconds %.3f\n", t1 - t0, t2 - t1);
		fprintf(o, "layout_score %.6f fragmented_files %" PRIu64 " of %" PRIu64
			   " temporaries %" PRIu64 " dropped %" PRIu64 " forced %" PRIu64 "\n",
			lo.score, lo.frag_files, lo.frag_eligible, lo.age_temps, lo.age_dropped,
			lo.age_forced);
		fprintf(o, "free_blocks %" PRIu64 " free_extents %" PRIu64 " small_share %.4f"
			   " free_chunks %" PRIu64 "\n",
			h.free_blocks, h.extents, (double)h.small_blocks / (double)h.free_blocks,
			h.free_chunks);
		for (int b = 0; b < LAYOUT_HIST_BUCKETS; b++)
			if (h.count[b])
				fprintf(o, "hist %d %" PRIu64 " %" PRIu64 "\n", b, h.count[b],
					h.blocks[b]);
	}
	layout_release(&lo);
	plan_release(&pl);
	free(fm.runs);
	free(fb);
	free(db);
	free(lb);
	return fflush(stdout) ? 1 : 0;
}

static int replay(const char *dir)
{
	static char buf[1 << 20];
	char *line = NULL, path[PATHLEN * 2];
	size_t cap = 0;
	ssize_t n;
	uint64_t lines = 0, dropped = 0;
	int dfd, werr;

	memset(buf, 0x5a, sizeof(buf));
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	if (dfd < 0) {
		fprintf(stderr, "age_replay: '%s': %s\n", dir, strerror(errno));
		return 1;
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		char *f1, *f2;

		lines++;
		if (line[n - 1] == '\n')
			line[--n] = 0;
		f1 = strchr(line, '\t');
		if (!f1)
			continue;
		*f1++ = 0;
		if (line[0] == 'R') {
			/* a round ends: commit, so that its deletions are free space now */
			if (syncfs(dfd)) {
				snprintf(path, sizeof(path), "%s", dir);
				goto fail;
			}
			continue;
		}
		if (line[0] == 'C') {
			uint64_t bytes = strtoull(f1, &f2, 10), off = 0;
			int fd;

			if (*f2 != '\t')
				goto bad;
			snprintf(path, sizeof(path), "%s%s", dir, f2 + 1);
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
			if (fd < 0)
				goto fail;
			werr = 0;
			while (off < bytes && !werr) {
				size_t k = bytes - off < sizeof(buf) ? (size_t)(bytes - off) :
								       sizeof(buf);
				ssize_t w = pwrite(fd, buf, k, (off_t)off);

				if (w <= 0)
					werr = w < 0 ? errno : ENOSPC;
				else
					off += (uint64_t)w;
			}
			if (!werr && bytes &&
			    sync_file_range(fd, 0, 0,
					    SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
						    SYNC_FILE_RANGE_WAIT_AFTER))
				werr = errno;
			if (close(fd) && !werr)
				werr = errno;
			if (werr) {
				/* no room for a temporary: dropped, as in the simulation */
				errno = werr;
				if (werr != ENOSPC || !strstr(f2, "/.age~"))
					goto fail;
				unlink(path);
				dropped++;
			}
			continue;
		}
		snprintf(path, sizeof(path), "%s%s", dir, f1);
		if (line[0] == 'D' && mkdir(path, 0755) && errno != EEXIST)
			goto fail;
		if (line[0] == 'U' && unlink(path) && !(errno == ENOENT && dropped))
			goto fail;
	}
	free(line);
	close(dfd);
	if (dropped)
		fprintf(stderr, "age_replay: %" PRIu64 " temporaries found no room (dropped)\n",
			dropped);
	return 0;
bad:
	fprintf(stderr, "age_replay: line %" PRIu64 ": malformed\n", lines);
	free(line);
	close(dfd);
	return 1;
fail:
	fprintf(stderr, "age_replay: line %" PRIu64 ": '%s': %s\n", lines, path, strerror(errno));
	free(line);
	close(dfd);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "sim"))
		return age(argc - 2, argv + 2, 0);
	if (argc >= 2 && !strcmp(argv[1], "ops"))
		return age(argc - 2, argv + 2, 1);
	if (argc == 3 && !strcmp(argv[1], "run"))
		return replay(argv[2]);
	fprintf(stderr, "usage: age_replay sim [--image IMG] KEY=VALUE...\n"
			"       age_replay ops --image IMG KEY=VALUE... > OPS\n"
			"       age_replay run DIR < OPS\n");
	return 2;
}
