/* write.c - the mounted backend's writing: directories, file data on worker threads, links, metadata */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "backends/mounted/mounted.h"
#include "content/prealloc.h"
#include "content/sparse.h"

/*
 * Files up to WRITE_BUF are made in one call to the content source: an
 * archive's CRCs (in its headers, central directory or trailer) then come
 * with its data instead of costing another pass over its members.
 */
#define WRITE_BUF   (8 << 20)
#define FILE_COST   8192         /* what a file costs beside its bytes, for sharing out the work */
#define BATCH_COST  (4u << 20)   /* a worker takes files in batches of about this cost */
#define BATCH_FILES 256u

static void meta_times(const struct plan_meta *m, struct timespec ts[2])
{
	ts[0].tv_sec = m->atime;
	ts[0].tv_nsec = m->atime_ns;
	ts[1].tv_sec = m->mtime;
	ts[1].tv_nsec = m->mtime_ns;
}

/* Write [off, end) of file f from the content source (from sp, a file made in parts, if not NULL). */
static int write_range(struct mnt_state *st, int fd, uint64_t f, struct content_split *sp,
		       uint64_t off, uint64_t end, unsigned char *buf, size_t len)
{
	while (off < end) {
		size_t n = end - off < len ? (size_t)(end - off) : len;
		int ret = sp ? content_split_fill(st->cs, sp, off, buf, n)
			     : st->cs->fill(st->cs, f, off, buf, n);

		if (ret)
			return ret;
		for (size_t done = 0; done < n;) {
			ssize_t w = pwrite(fd, buf + done, n - done, (off_t)(off + done));

			if (w < 0)
				return -errno;
			done += (size_t)w;
		}
		off += n;
		if (mnt_cancelled(st))
			return -EINTR;
	}
	return 0;
}

int mnt_write_range(struct mnt_state *st, int fd, uint64_t f, uint64_t off, uint64_t end,
		    unsigned char *buf, size_t len)
{
	return write_range(st, fd, f, NULL, off, end, buf, len);
}

/*
 * A preallocated file: all of it and its space beyond the end allocated
 * unwritten first (fallocate KEEP_SIZE, from the end of the block holding
 * the last byte), its unwritten ranges into *unw, for write_data to leave
 * them unwritten as it leaves holes.
 */
static int prealloc_space(struct mnt_state *st, int fd, uint64_t f, struct sparse_holes *unw)
{
	uint64_t size = st->pl->file_size[f], bs = st->vfs.f_bsize ? st->vfs.f_bsize : 4096;
	struct prealloc pa;

	if (!prealloc_file(st->pl, f, &pa))
		return 0;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)((size + bs - 1) / bs * bs + pa.beyond)))
		return -errno;
	*unw = pa.unw;
	__atomic_add_fetch(&st->prealloc_files, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * A preallocated file written by another path (the fragmenter): its
 * unwritten ranges made unwritten again (FALLOC_FL_ZERO_RANGE leaves
 * unwritten extents on ext4 and xfs) and its space beyond the end added.
 */
int mnt_prealloc_after(struct mnt_state *st, int fd, uint64_t f)
{
	uint64_t size = st->pl->file_size[f], bs = st->vfs.f_bsize ? st->vfs.f_bsize : 4096;
	struct prealloc pa;

	if (!prealloc_enabled(st->pl) || !prealloc_file(st->pl, f, &pa))
		return 0;
	for (unsigned i = 0; i < pa.unw.n; i++)
		if (fallocate(fd, FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, (off_t)pa.unw.hole[i].off,
			      (off_t)pa.unw.hole[i].len))
			return -errno;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)((size + bs - 1) / bs * bs), (off_t)pa.beyond))
		return -errno;
	__atomic_add_fetch(&st->prealloc_files, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Ready file f for its bytes: the ranges never written (its holes, or the
 * unwritten ranges of its preallocated space) into *h, and with some, the
 * size set first; *pre: they are preallocated space.
 */
static int data_prepare(struct mnt_state *st, int fd, uint64_t f, struct sparse_holes *h,
			int *pre)
{
	int ret;

	h->n = 0;
	*pre = 0;
	if (sparse_enabled(st->pl) && sparse_file_holes(st->pl, f, h) && st->fill_holes) {
		/* --allow-drop on a file system without holes: written as zeros */
		__atomic_add_fetch(&st->holes_filled, 1, __ATOMIC_RELAXED);
		h->n = 0;
	}
	if (!h->n && prealloc_enabled(st->pl)) {
		ret = prealloc_space(st, fd, f, h);
		if (ret)
			return ret;
		*pre = h->n > 0;
	}
	if (h->n && ftruncate(fd, (off_t)st->pl->file_size[f]) != 0)
		return -errno;
	return 0;
}

/* The bytes of file f in [from, to) but those of the ranges h leaves unwritten. */
static int data_write(struct mnt_state *st, int fd, uint64_t f, struct content_split *sp,
		      const struct sparse_holes *h, uint64_t from, uint64_t to, unsigned char *buf,
		      size_t len)
{
	uint64_t size = st->pl->file_size[f], pos = 0;
	int ret = 0;

	for (unsigned i = 0; i <= h->n && !ret; i++) {
		uint64_t end = i < h->n ? h->hole[i].off : size;
		uint64_t a = pos > from ? pos : from, b = end < to ? end : to;

		if (a < b)
			ret = write_range(st, fd, f, sp, a, b, buf, len);
		if (i < h->n)
			pos = h->hole[i].off + h->hole[i].len;
	}
	return ret;
}

/* Count a sparse file once its bytes are written. */
static void data_done(struct mnt_state *st, const struct sparse_holes *h, int pre)
{
	if (!h->n || pre)
		return;
	__atomic_add_fetch(&st->sparse_files, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&st->hole_blocks, h->bytes / (st->vfs.f_bsize ? st->vfs.f_bsize : 4096),
			   __ATOMIC_RELAXED);
}

/* The bytes of file f: data ranges only, holes never written (the size set first). */
static int write_data(struct mnt_state *st, int fd, uint64_t f, unsigned char *buf, size_t len)
{
	struct sparse_holes h = { 0 };
	int ret, pre;

	ret = data_prepare(st, fd, f, &h, &pre);
	if (!ret)
		ret = data_write(st, fd, f, NULL, &h, 0, st->pl->file_size[f], buf, len);
	if (!ret)
		data_done(st, &h, pre);
	return ret;
}

/*
 * Extended attributes, owner, mode and times of open entry id of kind.
 * A regular file was created with its permission bits, so it needs a
 * chmod only for the special bits (chown and writes clear setuid/setgid:
 * set them last); a directory always gets one.
 */
static int entry_meta(struct mnt_state *st, int fd, enum plan_entry kind, uint64_t id,
		      const struct plan_meta *m)
{
	struct timespec ts[2];
	int ret = mnt_xattrs_fd(st, fd, kind, id);

	if (ret)
		return ret;
	if (st->set_owners && fchown(fd, m->uid, m->gid) != 0)
		return -errno;
	if (!st->drop_modes && (kind != PLAN_FILE || (m->mode & 07000)) &&
	    fchmod(fd, m->mode & 07777) != 0)
		return -errno;
	meta_times(m, ts);
	return futimens(fd, ts) ? -errno : 0;
}

/* Owner, special mode bits and times of an open regular file (after its data). */
int mnt_file_meta(struct mnt_state *st, int fd, uint64_t f, const struct plan_meta *m)
{
	return entry_meta(st, fd, PLAN_FILE, f, m);
}

/*
 * Create file f in dirfd (never an existing name): its fd, or a negative
 * errno.  With --shard, under its temporary name (what a killed run left
 * there removed first), renamed by mnt_shard_commit once complete.
 */
static int file_create(struct mnt_state *st, int dirfd, uint64_t f, struct plan_meta *m)
{
	char name[NAME_MAX_LEN + 1];
	int fd;

	if (st->shard.n) {
		mnt_shard_tmp_name(f, name, sizeof(name));
		if (unlinkat(dirfd, name, 0) != 0 && errno != ENOENT)
			return -errno;
	} else {
		mnt_file_name(st, f, name, 1);
	}
	plan_file_meta(st->pl, f, m);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    m->mode & 0777);
	if (fd < 0)
		return -errno;
	st->undo.file[f] = 1;
	return fd;
}

int mnt_write_file(struct mnt_state *st, int dirfd, uint64_t f, unsigned char *buf, size_t len)
{
	struct plan_meta m;
	int fd, ret;

	fd = file_create(st, dirfd, f, &m);
	if (fd < 0)
		return fd;
	ret = write_data(st, fd, f, buf, len);
	if (!ret)
		ret = mnt_file_meta(st, fd, f, &m);
	if (close(fd) != 0 && !ret)
		ret = -errno;
	if (st->shard.n && !ret)
		ret = mnt_shard_commit(st, dirfd, f);
	if (st->shard.n && ret) {
		char tmp[64];

		mnt_shard_tmp_name(f, tmp, sizeof(tmp));
		unlinkat(dirfd, tmp, 0);
	}
	return ret;
}

/* Name a failed entry: "'DIR/a/b': what". */
static int entry_err(struct mnt_state *st, int ret, uint32_t dir, const char *name,
		     const char *what)
{
	char path[PATH_MAX];

	if (plan_dir_path(st->pl, dir, path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "/...");
	if (ret == -EINTR) {
		st->b->errmsg[0] = '\0';
		return ret;
	}
	return mnt_err(st, ret, "cannot %s '%s%s%s%s': %s", what, st->root, path,
		       path[1] ? "/" : "", name, strerror(-ret));
}

/* Whether name in dfd is a directory: 0, or -EEXIST (something else), another negative errno. */
static int dir_exists(int dfd, const char *name)
{
	struct stat s;

	if (fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	return S_ISDIR(s.st_mode) ? 0 : -EEXIST;
}

/*
 * Every directory but DIR itself (with --shard, those of the share, and
 * one another shard made is fine), parents first, mode 0700 until its
 * metadata is set.
 */
int mnt_make_dirs(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	char name[NAME_MAX_LEN + 1];
	uint32_t pdir = PLAN_NONE;
	uint32_t d, failed = 0;
	int pfd = -1, ret = 0;

	for (d = 1; d < pl->ndirs && !ret; d++) {
		if (mnt_cancelled(st)) {
			ret = -EINTR;
			break;
		}
		if (!plan_shard_has_dir(&st->shard, d))
			continue;
		failed = d;
		mnt_dir_name(st, d, name, 1);
		if (pl->dir_parent[d] != pdir) {
			if (pfd >= 0)
				close(pfd);
			pdir = pl->dir_parent[d];
			ret = mnt_open_dir(st, pdir, &pfd);
			if (ret) {
				pfd = -1;
				break;
			}
		}
		if (mkdirat(pfd, name, 0700) == 0)
			st->undo.dir[d] = 1;
		else if (errno != EEXIST || !st->shard.n)
			ret = -errno;
		else
			ret = dir_exists(pfd, name); /* another shard made it */
	}
	if (pfd >= 0)
		close(pfd);
	if (ret && failed) {
		plan_dir_name(pl, failed, name);
		return entry_err(st, ret, pl->dir_parent[failed], name, "create directory");
	}
	return ret;
}

/*
 * A large file made by every worker at once: cut into parts of
 * CONTENT_SPLIT_PART bytes by offset (content_split_*), each part written
 * where it goes; the worker that writes its last part writes the fixups
 * (the fields that sum whole members), then its metadata, and closes it.
 */
struct big {
	struct big *next_big;
	uint64_t f;
	int fd;
	int dfd;	       /* --shard: its directory, for the rename (else -1) */
	struct content_split *sp;
	struct plan_meta m;
	struct sparse_holes h; /* ranges left unwritten */
	int pre;
	uint64_t taken;	       /* bytes handed out as parts, under the pool's lock */
	uint64_t left;	       /* parts not yet written, under the pool's lock */
	int failed;
};

/* What the workers share. */
struct pool {
	struct mnt_state *st;
	pthread_mutex_t lock;
	int ret;                 /* the first failure */
	uint64_t failed_file;
	uint64_t files_done, bytes_done;
	uint64_t next;           /* the first file no worker has taken */
	unsigned running;
	struct big *bigs;        /* large files begun, newest first (freed at the end) */
};

struct worker {
	struct pool *p;
	pthread_t tid;
};

static void pool_fail(struct pool *p, int ret, uint64_t f)
{
	pthread_mutex_lock(&p->lock);
	if (!p->ret) {
		p->ret = ret;
		p->failed_file = f;
	}
	pthread_mutex_unlock(&p->lock);
}

/* Whether file f is made in parts: *sp then holds its split (under the pool's lock). */
static int file_split(struct pool *p, uint64_t f, struct content_split **sp)
{
	struct mnt_state *st = p->st;

	*sp = NULL;
	if (st->pl->file_size[f] < CONTENT_SPLIT_MIN || (st->skip && st->skip[f]))
		return 0;
	return content_split_begin(st->cs, f, sp);
}

/* What a worker takes: files [first, end), or a part [from, to) of a large file. */
struct job {
	uint64_t first, end;
	struct big *big;
	uint64_t from, to;
	struct content_split *sp; /* a large file to begin: first, alone */
};

/*
 * The next job, under the pool's lock: a part of a large file begun, else
 * the next batch of files in plan order, files until BATCH_COST of cost
 * (bytes plus FILE_COST a file) or BATCH_FILES, a batch ending before a
 * large file, which is a job of its own (its worker begins it, then takes
 * its parts like every other).  Workers take jobs as they finish the
 * last, so one that drew costly files (archives deflate, text is slower
 * to make than other bytes) does not leave the others idle at the end.
 * Returns 0 when none is left, or a negative errno.
 */
static int take_job(struct pool *p, struct job *j)
{
	const struct plan *pl = p->st->pl;
	uint64_t f, cost = 0;
	int ret = 0;

	memset(j, 0, sizeof(*j));
	for (struct big *b = p->bigs; b; b = b->next_big) {
		uint64_t size = pl->file_size[b->f];

		if (b->failed || b->taken >= size)
			continue;
		j->big = b;
		j->from = b->taken;
		j->to = size - b->taken > CONTENT_SPLIT_PART ? b->taken + CONTENT_SPLIT_PART : size;
		b->taken = j->to;
		return 1;
	}
	f = j->first = p->next;
	while (f < pl->nfiles && cost < BATCH_COST && f - j->first < BATCH_FILES) {
		ret = file_split(p, f, &j->sp);
		if (ret)
			return ret;
		if (j->sp && f > j->first) {
			/* ends the batch: begun again as a job of its own */
			content_split_end(j->sp);
			j->sp = NULL;
			break;
		}
		cost += pl->file_size[f++] + FILE_COST;
		if (j->sp)
			break;
	}
	j->end = p->next = f;
	return j->end > j->first;
}

/* Fail large file b (the first failure of the pool is the one reported). */
static void big_fail(struct pool *p, struct big *b, int ret)
{
	pool_fail(p, ret, b->f);
	pthread_mutex_lock(&p->lock);
	b->failed = 1;
	pthread_mutex_unlock(&p->lock);
}

/* Create large file f in dfd and offer its parts to the workers. */
static int big_begin(struct pool *p, uint64_t f, int dfd, struct content_split *sp)
{
	struct mnt_state *st = p->st;
	struct big *b = calloc(1, sizeof(*b));
	int ret;

	if (!b) {
		content_split_end(sp);
		return -ENOMEM;
	}
	b->f = f;
	b->sp = sp;
	b->dfd = st->shard.n ? fcntl(dfd, F_DUPFD_CLOEXEC, 0) : -1;
	b->left = (st->pl->file_size[f] + CONTENT_SPLIT_PART - 1) / CONTENT_SPLIT_PART;
	b->fd = st->shard.n && b->dfd < 0 ? -errno : file_create(st, dfd, f, &b->m);
	ret = b->fd < 0 ? b->fd : data_prepare(st, b->fd, f, &b->h, &b->pre);
	if (ret)
		b->failed = 1;
	pthread_mutex_lock(&p->lock);
	b->next_big = p->bigs;
	p->bigs = b;
	pthread_mutex_unlock(&p->lock);
	return ret;
}

/* The fixups of large file b (every part written), its metadata; it is closed. */
static int big_end(struct pool *p, struct big *b, unsigned char *buf)
{
	struct mnt_state *st = p->st;
	const uint64_t *off, *len;
	long n = content_split_fixups(b->sp, &off, &len);
	int ret = n < 0 ? (int)n : 0;

	for (long i = 0; i < n && !ret; i++)
		ret = data_write(st, b->fd, b->f, b->sp, &b->h, off[i], off[i] + len[i], buf,
				 WRITE_BUF);
	if (!ret)
		data_done(st, &b->h, b->pre);
	if (!ret)
		ret = mnt_file_meta(st, b->fd, b->f, &b->m);
	if (close(b->fd) != 0 && !ret)
		ret = -errno;
	b->fd = -1;
	if (!ret && b->dfd >= 0)
		ret = mnt_shard_commit(st, b->dfd, b->f);
	return ret;
}

/* Write part [j->from, j->to) of a large file; the last part written ends it. */
static int write_part(struct worker *w, const struct job *j, unsigned char *buf)
{
	struct pool *p = w->p;
	struct big *b = j->big;
	int ret, last;

	ret = data_write(p->st, b->fd, b->f, b->sp, &b->h, j->from, j->to, buf, WRITE_BUF);
	if (ret) {
		big_fail(p, b, ret);
		return ret;
	}
	__atomic_add_fetch(&p->bytes_done, j->to - j->from, __ATOMIC_RELAXED);
	pthread_mutex_lock(&p->lock);
	last = --b->left == 0;
	pthread_mutex_unlock(&p->lock);
	if (!last)
		return 0;
	ret = big_end(p, b, buf);
	if (ret) {
		big_fail(p, b, ret);
		return ret;
	}
	__atomic_add_fetch(&p->files_done, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * Write files [first, end), skipping those frag.c or the aging wrote, or
 * begin the large file of j->sp; *dir and *dfd carry over.
 */
static int write_batch(struct worker *w, struct job *j, uint32_t *dir, int *dfd,
		       unsigned char *buf)
{
	struct mnt_state *st = w->p->st;
	const struct plan *pl = st->pl;
	int ret = 0;

	for (uint64_t f = j->first; f < j->end && !ret; f++) {
		if (__atomic_load_n(&w->p->ret, __ATOMIC_RELAXED) || mnt_cancelled(st))
			return 0;
		if (st->skip && st->skip[f]) {
			/* written before the workers (fragmentation, aging, a shard's rerun): done; another shard's: not counted */
			if (plan_shard_has_file(&st->shard, f)) {
				__atomic_add_fetch(&w->p->files_done, 1, __ATOMIC_RELAXED);
				__atomic_add_fetch(&w->p->bytes_done, pl->file_size[f], __ATOMIC_RELAXED);
			}
			continue;
		}
		if (pl->file_dir[f] != *dir) {
			if (*dfd >= 0)
				close(*dfd);
			*dir = pl->file_dir[f];
			ret = mnt_open_dir(st, *dir, dfd);
			if (ret) {
				*dfd = -1;
				pool_fail(w->p, ret, f); /* name the file whose directory failed */
				return ret;
			}
		}
		if (j->sp) {
			ret = big_begin(w->p, f, *dfd, j->sp);
			j->sp = NULL; /* big_begin's now */
			if (ret)
				pool_fail(w->p, ret, f);
			return ret;
		}
		ret = mnt_write_file(st, *dfd, f, buf, WRITE_BUF);
		if (ret)
			pool_fail(w->p, ret, f);
		__atomic_add_fetch(&w->p->files_done, 1, __ATOMIC_RELAXED);
		__atomic_add_fetch(&w->p->bytes_done, pl->file_size[f], __ATOMIC_RELAXED);
	}
	return ret;
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	unsigned char *buf = malloc(WRITE_BUF);
	uint32_t dir = PLAN_NONE;
	struct job j = { 0 };
	int dfd = -1, ret = buf ? 0 : -ENOMEM;

	while (!ret && !__atomic_load_n(&w->p->ret, __ATOMIC_RELAXED) && !mnt_cancelled(w->p->st)) {
		pthread_mutex_lock(&w->p->lock);
		ret = take_job(w->p, &j);
		pthread_mutex_unlock(&w->p->lock);
		if (ret <= 0)
			break;
		ret = j.big ? write_part(w, &j, buf) : write_batch(w, &j, &dir, &dfd, buf);
		content_split_end(j.sp); /* a large file not begun (a failure, a cancel) */
		j.sp = NULL;
	}
	if (ret < 0)
		pool_fail(w->p, ret, j.big ? j.big->f : j.first);
	if (dfd >= 0)
		close(dfd);
	free(buf);
	__atomic_sub_fetch(&w->p->running, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Wait for the workers, reporting progress from this (the populating) thread. */
static void pool_wait(struct pool *p)
{
	const struct create_opts *o = p->st->o;
	struct timespec nap = { 0, 50 * 1000 * 1000 };

	while (__atomic_load_n(&p->running, __ATOMIC_ACQUIRE)) {
		nanosleep(&nap, NULL);
		if (o->progress)
			o->progress(o->progress_ctx, __atomic_load_n(&p->files_done, __ATOMIC_RELAXED),
				    __atomic_load_n(&p->bytes_done, __ATOMIC_RELAXED));
	}
	/* the last figures: what the workers did after the last look */
	if (o->progress)
		o->progress(o->progress_ctx, __atomic_load_n(&p->files_done, __ATOMIC_ACQUIRE),
			    __atomic_load_n(&p->bytes_done, __ATOMIC_ACQUIRE));
}

/* Free the large files, closing those a failure left open. */
static void pool_free_bigs(struct pool *p)
{
	while (p->bigs) {
		struct big *b = p->bigs;

		p->bigs = b->next_big;
		if (b->fd >= 0)
			close(b->fd);
		if (b->dfd >= 0)
			close(b->dfd);
		content_split_end(b->sp);
		free(b);
	}
}

int mnt_write_files(struct mnt_state *st)
{
	unsigned n = st->o->jobs ? st->o->jobs : 1;
	struct pool p = { .st = st, .lock = PTHREAD_MUTEX_INITIALIZER };
	struct worker *w;
	char name[NAME_MAX_LEN + 1];
	unsigned started = 0;

	if (n > 256)
		n = 256;
	w = calloc(n, sizeof(*w));
	if (!w)
		return mnt_err(st, -ENOMEM, "out of memory");
	p.running = n;
	for (unsigned i = 0; i < n; i++) {
		w[i].p = &p;
		if (pthread_create(&w[i].tid, NULL, worker_run, &w[i]) != 0) {
			p.running -= n - i;
			pool_fail(&p, -EAGAIN, st->pl->nfiles);
			break;
		}
		started++;
	}
	pool_wait(&p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	free(w);
	pool_free_bigs(&p);
	if (!p.ret && mnt_cancelled(st))
		p.ret = -EINTR;
	if (!p.ret)
		return 0;
	if (p.failed_file >= st->pl->nfiles)
		return mnt_err(st, p.ret, "cannot write files: %s", strerror(-p.ret));
	plan_file_name(st->pl, p.failed_file, name);
	return entry_err(st, p.ret, st->pl->file_dir[p.failed_file], name, "write file");
}

/* A directory fd kept open while consecutive entries share it. */
static int dir_fd(struct mnt_state *st, uint32_t dir, uint32_t *cur, int *fd)
{
	int ret;

	if (*fd >= 0 && *cur == dir)
		return 0;
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
	ret = mnt_open_dir(st, dir, fd);
	if (ret)
		*fd = -1;
	*cur = dir;
	return ret;
}

/*
 * Owner, mode (with set_mode: a symbolic link has none of its own), extended
 * attributes and times of link l, just made as name in lfd.
 */
static int link_meta_at(struct mnt_state *st, int lfd, const char *name, uint32_t l,
			const struct plan_meta *m, int set_mode)
{
	struct timespec ts[2];
	int ret;

	if (st->set_owners && fchownat(lfd, name, m->uid, m->gid, AT_SYMLINK_NOFOLLOW) != 0)
		return -errno;
	if (set_mode && !st->drop_modes && fchmodat(lfd, name, m->mode & 07777, 0) != 0)
		return -errno;
	ret = mnt_xattrs_at(st, lfd, name, l);
	if (ret)
		return ret;
	meta_times(m, ts);
	return utimensat(lfd, name, ts, AT_SYMLINK_NOFOLLOW) ? -errno : 0;
}

/* A FIFO, socket or device node with mknodat, then its owner, mode (no umask) and times. */
static int make_special(struct mnt_state *st, uint32_t l, int lfd)
{
	char name[NAME_MAX_LEN + 1];
	struct plan_special sp;
	struct plan_meta m;

	mnt_link_name(st, l, name, 1);
	plan_special_info(st->pl, l, &sp);
	plan_link_meta(st->pl, l, &m);
	if (mknodat(lfd, name, sp.ifmt | 0600, makedev(sp.major, sp.minor)) != 0) {
		int err = errno;
		struct stat s;

		/* --shard: made by a run before, its metadata set again */
		if (err != EEXIST || !st->shard.n)
			return -err;
		if (fstatat(lfd, name, &s, AT_SYMLINK_NOFOLLOW) != 0)
			return -errno;
		if ((s.st_mode & S_IFMT) != (sp.ifmt & S_IFMT) ||
		    ((S_ISCHR(s.st_mode) || S_ISBLK(s.st_mode)) &&
		     s.st_rdev != makedev(sp.major, sp.minor)))
			return -EEXIST;
	}
	st->undo.link[l] = 1;
	return link_meta_at(st, lfd, name, l, &m, 1);
}

/* --shard, a link a run before made: 0 when a and b are one inode, else -EEXIST. */
static int same_inode(int adfd, const char *a, int bdfd, const char *b)
{
	struct stat x, y;

	if (fstatat(adfd, a, &x, AT_SYMLINK_NOFOLLOW) || fstatat(bdfd, b, &y, AT_SYMLINK_NOFOLLOW))
		return -errno;
	return x.st_ino == y.st_ino && x.st_dev == y.st_dev ? 0 : -EEXIST;
}

/* --shard, a symbolic link a run before made: 0 when name in dfd points to target, else -EEXIST. */
static int same_target(int dfd, const char *name, const char *target)
{
	char got[PATH_MAX];
	ssize_t n = readlinkat(dfd, name, got, sizeof(got) - 1);

	if (n < 0)
		return errno == EINVAL ? -EEXIST : -errno;
	got[n] = '\0';
	return strcmp(got, target) ? -EEXIST : 0;
}

static int make_link(struct mnt_state *st, uint32_t l, int lfd, uint32_t *tdir, int *tfd,
		     char *buf, size_t len)
{
	const struct plan *pl = st->pl;
	char name[NAME_MAX_LEN + 1], fname[NAME_MAX_LEN + 1];
	struct plan_meta m;
	int ret;

	if (pl->link_kind[l] & LINK_SPECIAL)
		return make_special(st, l, lfd);
	if ((pl->link_kind[l] & LINK_HARD) ? st->drop_hard : st->drop_sym) {
		/* --allow-drop: the file system has no such links; skipped, not copied */
		uint64_t *n = (pl->link_kind[l] & LINK_HARD) ? &st->dropped_hard : &st->dropped_sym;

		__atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
		return 0;
	}
	mnt_link_name(st, l, name, 1);
	if (pl->link_kind[l] & LINK_HARD) {
		uint64_t f = pl->link_target[l];

		ret = dir_fd(st, pl->file_dir[f], tdir, tfd);
		if (ret)
			return ret;
		mnt_file_name(st, f, fname, 0);
		if (linkat(*tfd, fname, lfd, name, 0) != 0)
			return errno == EEXIST && st->shard.n ? same_inode(*tfd, fname, lfd, name) : -errno;
		st->undo.link[l] = 1;
		return 0;
	}
	ret = plan_symlink_target(pl, l, buf, len);
	if (ret < 0)
		return ret;
	ret = mnt_fit_target(st, buf, ret); /* --allow-drop: to the names as written */
	if (ret < 0)
		return ret;
	if (symlinkat(buf, lfd, name) != 0) {
		if (errno != EEXIST || !st->shard.n)
			return -errno;
		ret = same_target(lfd, name, buf);
		if (ret)
			return ret;
	}
	st->undo.link[l] = 1;
	plan_link_meta(pl, l, &m);
	return link_meta_at(st, lfd, name, l, &m, 0);
}

/* Hard links (their files exist now) and symbolic links, in plan order. */
int mnt_make_links(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	uint32_t ldir = PLAN_NONE, tdir = PLAN_NONE;
	int lfd = -1, tfd = -1, ret = 0;
	char *buf = malloc(PATH_MAX);
	char name[NAME_MAX_LEN + 1];
	uint32_t l;

	if (!buf)
		return mnt_err(st, -ENOMEM, "out of memory");
	for (l = 0; l < pl->nlinks && !ret; l++) {
		if (mnt_cancelled(st)) {
			ret = -EINTR;
			break;
		}
		if (!plan_shard_has_link(&st->shard, l))
			continue;
		ret = dir_fd(st, pl->link_dir[l], &ldir, &lfd);
		if (!ret)
			ret = make_link(st, l, lfd, &tdir, &tfd, buf, PATH_MAX);
	}
	free(buf);
	if (lfd >= 0)
		close(lfd);
	if (tfd >= 0)
		close(tfd);
	if (!ret)
		return 0;
	l--;
	plan_link_name(pl, l, name);
	return entry_err(st, ret, pl->link_dir[l], name, "create link");
}

/*
 * Owners, modes and times of the directories, children before parents
 * (making an entry changes its directory's mtime), DIR last when it was
 * empty (its original metadata is kept for the undo).
 */
int mnt_set_dir_meta(struct mnt_state *st)
{
	int ret = mnt_set_subdir_meta(st);

	return ret ? ret : mnt_set_root_meta(st);
}

int mnt_set_subdir_meta(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	char name[NAME_MAX_LEN + 1];
	struct plan_meta m;
	int fd, ret = 0;
	uint32_t d;

	for (d = pl->ndirs; d-- > 1 && !ret;) {
		ret = mnt_open_dir(st, d, &fd);
		if (ret)
			break;
		plan_dir_meta(pl, d, &m);
		ret = entry_meta(st, fd, PLAN_DIR, d, &m);
		close(fd);
	}
	if (ret) {
		d++;
		plan_dir_name(pl, d, name);
		return entry_err(st, ret, pl->dir_parent[d], name, "set the metadata of directory");
	}
	return 0;
}

int mnt_set_root_meta(struct mnt_state *st)
{
	struct plan_meta m;
	int ret;

	if (!st->root_empty)
		return 0;
	ret = mnt_xattrs_save_root(st);
	if (ret)
		return mnt_err(st, ret, "cannot read the extended attributes of '%s': %s", st->root,
			       strerror(-ret));
	st->undo.root_meta = 1;
	plan_dir_meta(st->pl, 0, &m);
	ret = entry_meta(st, st->rootfd, PLAN_DIR, 0, &m);
	if (ret)
		return mnt_err(st, ret, "cannot set the metadata of '%s': %s", st->root,
			       strerror(-ret));
	return 0;
}
