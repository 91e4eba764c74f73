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

/* Write [off, end) of file f from the content source. */
int mnt_write_range(struct mnt_state *st, int fd, uint64_t f, uint64_t off, uint64_t end,
		       unsigned char *buf, size_t len)
{
	while (off < end) {
		size_t n = end - off < len ? (size_t)(end - off) : len;
		int ret = st->cs->fill(st->cs, f, off, buf, n);

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

/* The bytes of file f: data ranges only, holes never written (the size set first). */
static int write_data(struct mnt_state *st, int fd, uint64_t f, unsigned char *buf, size_t len)
{
	uint64_t size = st->pl->file_size[f], pos = 0;
	struct sparse_holes h = { 0 };
	int ret, pre = 0;

	if (sparse_enabled(st->pl) && sparse_file_holes(st->pl, f, &h) && st->fill_holes) {
		/* --allow-drop on a file system without holes: written as zeros */
		__atomic_add_fetch(&st->holes_filled, 1, __ATOMIC_RELAXED);
		h.n = 0;
	}
	if (!h.n && prealloc_enabled(st->pl)) {
		ret = prealloc_space(st, fd, f, &h);
		if (ret)
			return ret;
		pre = h.n > 0;
	}
	if (!h.n)
		return mnt_write_range(st, fd, f, 0, size, buf, len);
	if (ftruncate(fd, (off_t)size) != 0)
		return -errno;
	for (unsigned i = 0; i <= h.n; i++) {
		uint64_t end = i < h.n ? h.hole[i].off : size;

		ret = mnt_write_range(st, fd, f, pos, end, buf, len);
		if (ret)
			return ret;
		if (i < h.n)
			pos = h.hole[i].off + h.hole[i].len;
	}
	if (pre)
		return 0;
	__atomic_add_fetch(&st->sparse_files, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&st->hole_blocks, h.bytes / (st->vfs.f_bsize ? st->vfs.f_bsize : 4096),
			   __ATOMIC_RELAXED);
	return 0;
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
 * Create file f in dirfd (never an existing name), write its bytes, set
 * its owner, mode and times: open, write, [fchown,] futimens, close.
 */
int mnt_write_file(struct mnt_state *st, int dirfd, uint64_t f, unsigned char *buf, size_t len)
{
	char name[NAME_MAX_LEN + 1];
	struct plan_meta m;
	int fd, ret;

	mnt_file_name(st, f, name, 1);
	plan_file_meta(st->pl, f, &m);
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    m.mode & 0777);
	if (fd < 0)
		return -errno;
	st->undo.file[f] = 1;
	ret = write_data(st, fd, f, buf, len);
	if (!ret)
		ret = mnt_file_meta(st, fd, f, &m);
	if (close(fd) != 0 && !ret)
		ret = -errno;
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

/* Every directory but DIR itself, parents first, mode 0700 until its metadata is set. */
int mnt_make_dirs(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	char name[NAME_MAX_LEN + 1];
	uint32_t pdir = PLAN_NONE;
	int pfd = -1, ret = 0;

	for (uint32_t d = 1; d < pl->ndirs && !ret; d++) {
		if (mnt_cancelled(st)) {
			ret = -EINTR;
			break;
		}
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
		if (mkdirat(pfd, name, 0700) != 0)
			ret = -errno;
		else
			st->undo.dir[d] = 1;
	}
	if (pfd >= 0)
		close(pfd);
	if (ret)
		for (uint32_t d = 1; d < pl->ndirs; d++)
			if (!st->undo.dir[d]) {
				plan_dir_name(pl, d, name);
				return entry_err(st, ret, pl->dir_parent[d], name,
						 "create directory");
			}
	return ret;
}

/* What the workers share. */
struct pool {
	struct mnt_state *st;
	pthread_mutex_t lock;
	int ret;                 /* the first failure */
	uint64_t failed_file;
	uint64_t files_done, bytes_done;
	uint64_t next;           /* the first file no worker has taken */
	unsigned running;
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

/*
 * The next batch of files for a worker, [*first, *end) in plan order:
 * files until BATCH_COST of cost (bytes plus FILE_COST a file) or
 * BATCH_FILES.  Workers take batches as they finish the last, so one
 * that drew costly files (archives deflate, text is slower to make than
 * other bytes) does not leave the others idle at the end.  Returns 0
 * when none is left.
 */
static int take_batch(struct pool *p, uint64_t *first, uint64_t *end)
{
	const struct plan *pl = p->st->pl;
	uint64_t f, cost = 0;

	pthread_mutex_lock(&p->lock);
	f = *first = p->next;
	while (f < pl->nfiles && cost < BATCH_COST && f - *first < BATCH_FILES)
		cost += pl->file_size[f++] + FILE_COST;
	*end = p->next = f;
	pthread_mutex_unlock(&p->lock);
	return *end > *first;
}

/* Write files [first, end), skipping those frag.c or the aging wrote; *dir and *dfd carry over. */
static int write_batch(struct worker *w, uint64_t first, uint64_t end, uint32_t *dir, int *dfd,
		       unsigned char *buf)
{
	struct mnt_state *st = w->p->st;
	const struct plan *pl = st->pl;
	int ret = 0;

	for (uint64_t f = first; f < end && !ret; f++) {
		if (__atomic_load_n(&w->p->ret, __ATOMIC_RELAXED) || mnt_cancelled(st))
			return 0;
		if (st->skip && st->skip[f])
			continue;
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
	uint64_t first = 0, end;
	int dfd = -1, ret = buf ? 0 : -ENOMEM;

	while (!ret && !__atomic_load_n(&w->p->ret, __ATOMIC_RELAXED) && !mnt_cancelled(w->p->st) &&
	       take_batch(w->p, &first, &end))
		ret = write_batch(w, first, end, &dir, &dfd, buf);
	if (ret)
		pool_fail(w->p, ret, first);
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
	if (mknodat(lfd, name, sp.ifmt | 0600, makedev(sp.major, sp.minor)) != 0)
		return -errno;
	st->undo.link[l] = 1;
	return link_meta_at(st, lfd, name, l, &m, 1);
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
			return -errno;
		st->undo.link[l] = 1;
		return 0;
	}
	ret = plan_symlink_target(pl, l, buf, len);
	if (ret < 0)
		return ret;
	ret = mnt_fit_target(st, buf, ret); /* --allow-drop: to the names as written */
	if (ret < 0)
		return ret;
	if (symlinkat(buf, lfd, name) != 0)
		return -errno;
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
	if (!st->root_empty)
		return 0;
	ret = mnt_xattrs_save_root(st);
	if (ret)
		return mnt_err(st, ret, "cannot read the extended attributes of '%s': %s", st->root,
			       strerror(-ret));
	st->undo.root_meta = 1;
	plan_dir_meta(pl, 0, &m);
	ret = entry_meta(st, st->rootfd, PLAN_DIR, 0, &m);
	if (ret)
		return mnt_err(st, ret, "cannot set the metadata of '%s': %s", st->root,
			       strerror(-ret));
	return 0;
}
