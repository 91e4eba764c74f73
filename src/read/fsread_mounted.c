/* fsread_mounted.c - the fsread reader of mounted trees, through openat, statx and FIEMAP */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>

#include "read/fsread_ops.h"
#include "util/array.h"
#include "util/fiemap.h"
#include "read/fsread_mount.h"
#include "util/cleanup.h"
#include "util/rng.h"

/* Helper threads that read a mounted tree ahead of the walk (cold caches). */
#define FSREAD_PREFETCH_THREADS 8

struct fsr_prefetch {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	char **stack;          /* directories to read, relative to the root ("." first) */
	size_t n, cap;
	unsigned busy;         /* helpers reading a directory */
	int stop;
	int rootfd;
	pthread_t th[FSREAD_PREFETCH_THREADS];
	unsigned nth;
	int started;
};

/* Inodes met with more than one name (mounted trees): open addressing. */
struct fsr_inoset {
	uint64_t *slot;        /* ino + 1; 0 is empty */
	size_t cap, n;
};

/* The reader's state (fs->priv). */
struct mnt_reader {
	int rootfd;
	dev_t dev;
	uint64_t mnt_id;
	int has_mnt_id;
	struct fsr_inoset multi;
	struct fsr_prefetch pf;
	int cur_fd;            /* the open file, or -1 */
	int cur_dirfd;
	pthread_mutex_t open_lock;
};

#define MNT(fs) ((struct mnt_reader *)(fs)->priv)

static uint64_t inoset_hash(uint64_t entry, const void *ctx)
{
	(void)ctx;
	return rng_mix64(entry);
}

/* Add ino; returns 1 when it was there already, 0 when added, -ENOMEM. */
static int inoset_add(struct fsr_inoset *s, uint64_t ino)
{
	size_t i;

	if (array_slots_reserve(&s->slot, &s->cap, s->n, 1024, inoset_hash, NULL))
		return -ENOMEM;
	for (i = rng_mix64(ino + 1) & (s->cap - 1); s->slot[i]; i = (i + 1) & (s->cap - 1))
		if (s->slot[i] == ino + 1)
			return 1;
	s->slot[i] = ino + 1;
	s->n++;
	return 0;
}

static int sys_fail(struct fsread *fs, struct fsread_error *err, int e, const char *what)
{
	fsread_set_err(err, "'%s': cannot %s '%s': %s", fs->target, what, fs->path, strerror(e));
	return -e;
}

/*
 * The prefetch helpers: each takes a directory, reads it and stats its
 * entries (which loads their inodes into the kernel's caches) and queues
 * its subdirectories.  Nothing they learn is used: the walk stats
 * everything again, in order, from warm caches.  Paths resolve beneath
 * the root without symlinks or mount crossings (openat2).
 */
static void *prefetch_main(void *arg)
{
	struct fsr_prefetch *pf = arg;

	for (;;) {
		struct open_how how = {
			.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV,
		};
		char **sub = NULL, *path;
		size_t nsub = 0, capsub = 0, plen;
		struct dirent *d;
		DIR *dir;
		int fd;

		pthread_mutex_lock(&pf->mu);
		while (!pf->stop && !pf->n && pf->busy)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->stop || !pf->n) {
			pthread_cond_broadcast(&pf->cv);
			pthread_mutex_unlock(&pf->mu);
			return NULL;
		}
		path = pf->stack[--pf->n];
		pf->busy++;
		pthread_mutex_unlock(&pf->mu);

		plen = strlen(path);
		how.flags |= O_NOATIME;
		fd = (int)syscall(SYS_openat2, pf->rootfd, path, &how, sizeof(how));
		if (fd < 0 && errno == EPERM) {
			how.flags &= ~(uint64_t)O_NOATIME;
			fd = (int)syscall(SYS_openat2, pf->rootfd, path, &how, sizeof(how));
		}
		dir = fd >= 0 ? fdopendir(fd) : NULL;
		if (!dir && fd >= 0)
			close(fd);
		while (dir && !__atomic_load_n(&pf->stop, __ATOMIC_RELAXED) && (d = readdir(dir))) {
			struct stat st;
			char *p;

			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			if (fstatat(fd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
				continue;
			if (array_grow(&sub, &capsub, nsub + 1, sizeof(*sub)))
				break;
			p = malloc(plen + strlen(d->d_name) + 2);
			if (!p)
				break;
			sprintf(p, "%s/%s", path, d->d_name);
			sub[nsub++] = p;
		}
		if (dir)
			closedir(dir);
		free(path);

		pthread_mutex_lock(&pf->mu);
		pf->busy--;
		for (size_t i = 0; i < nsub; i++) {
			if (pf->stop || array_grow(&pf->stack, &pf->cap, pf->n + 1,
					     sizeof(*pf->stack))) {
				free(sub[i]);
				continue;
			}
			/* the walk goes in name order: have the first names read first */
			pf->stack[pf->n++] = sub[nsub - 1 - i];
		}
		pthread_cond_broadcast(&pf->cv);
		pthread_mutex_unlock(&pf->mu);
		free(sub);
	}
}

static void prefetch_start(struct fsread *fs)
{
	struct fsr_prefetch *pf = &MNT(fs)->pf;
	char *root = strdup(".");

	pthread_mutex_init(&pf->mu, NULL);
	pthread_cond_init(&pf->cv, NULL);
	pf->started = 1;
	pf->rootfd = MNT(fs)->rootfd;
	if (!root || array_grow(&pf->stack, &pf->cap, 1, sizeof(*pf->stack))) {
		free(root);
		return;
	}
	pf->stack[pf->n++] = root;
	for (unsigned i = 0; i < FSREAD_PREFETCH_THREADS; i++)
		if (!pthread_create(&pf->th[pf->nth], NULL, prefetch_main, pf))
			pf->nth++;
}

static void prefetch_stop(struct fsread *fs)
{
	struct fsr_prefetch *pf = &MNT(fs)->pf;

	if (!pf->started)
		return;
	pthread_mutex_lock(&pf->mu);
	__atomic_store_n(&pf->stop, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	for (unsigned i = 0; i < pf->nth; i++)
		pthread_join(pf->th[i], NULL);
	for (size_t i = 0; i < pf->n; i++)
		free(pf->stack[i]);
	free(pf->stack);
	pthread_mutex_destroy(&pf->mu);
	pthread_cond_destroy(&pf->cv);
	memset(pf, 0, sizeof(*pf));
}

int fsread_mounted_open_dir(struct fsread *fs, const char *dir, struct fsread_error *err)
{
	struct statfs sf;
	struct statx stx;

	fs->priv = calloc(1, sizeof(struct mnt_reader));
	if (!fs->priv) {
		fsread_set_err(err, "'%s': out of memory", fs->target);
		return -ENOMEM;
	}
	MNT(fs)->cur_fd = -1;
	MNT(fs)->cur_dirfd = -1;
	pthread_mutex_init(&MNT(fs)->open_lock, NULL);
	MNT(fs)->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME);
	if (MNT(fs)->rootfd < 0 && errno == EPERM)
		MNT(fs)->rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (MNT(fs)->rootfd < 0) {
		int e = errno;

		fsread_set_err(err, "cannot open '%s': %s", fs->target, strerror(e));
		return -e;
	}
	if (fstatfs(MNT(fs)->rootfd, &sf) ||
	    statx(MNT(fs)->rootfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, &stx)) {
		int e = errno;

		fsread_set_err(err, "'%s': %s", fs->target, strerror(e));
		return -e;
	}
	fs->geo.block_size = (unsigned)sf.f_bsize;
	fs->geo.total_blocks = (uint64_t)sf.f_blocks *
			       ((uint64_t)sf.f_frsize ? sf.f_frsize : sf.f_bsize) /
			       fs->geo.block_size;
	MNT(fs)->dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	MNT(fs)->has_mnt_id = !!(stx.stx_mask & STATX_MNT_ID);
	MNT(fs)->mnt_id = stx.stx_mnt_id;
	return 0;
}

static int mounted_open(struct fsread *fs, struct fsread_error *err)
{
	snprintf(fs->kind, sizeof(fs->kind), "a mounted directory tree");
	return fsread_mounted_open_dir(fs, fs->target, err);
}

static void fill_from_statx(struct fsread_entry *e, const struct statx *x)
{
	uint16_t m = x->stx_mode;

	e->ino = x->stx_ino;
	e->mode = m;
	e->type = S_ISREG(m) ? FSREAD_FILE : S_ISDIR(m) ? FSREAD_DIR :
		  S_ISLNK(m) ? FSREAD_SYMLINK : FSREAD_OTHER;
	e->size = x->stx_size;
	e->uid = x->stx_uid;
	e->gid = x->stx_gid;
	e->nlink = x->stx_nlink;
	e->atime = (struct fsread_time){ x->stx_atime.tv_sec, x->stx_atime.tv_nsec };
	e->mtime = (struct fsread_time){ x->stx_mtime.tv_sec, x->stx_mtime.tv_nsec };
	e->ctime = (struct fsread_time){ x->stx_ctime.tv_sec, x->stx_ctime.tv_nsec };
	e->has_crtime = !!(x->stx_mask & STATX_BTIME);
	e->crtime = e->has_crtime ?
		(struct fsread_time){ x->stx_btime.tv_sec, x->stx_btime.tv_nsec } :
		(struct fsread_time){ 0, 0 };
}

/* Open the current regular file (fs->ent) for reading, once. */
static int mounted_open_file(struct fsread *fs, struct fsread_error *err)
{
	int fd, ret = 0;
	struct stat st;

	pthread_mutex_lock(&MNT(fs)->open_lock);
	if (MNT(fs)->cur_fd >= 0)
		goto out_unlock;
	fd = openat(MNT(fs)->cur_dirfd, fs->ent.name,
		    O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = openat(MNT(fs)->cur_dirfd, fs->ent.name,
			    O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		ret = sys_fail(fs, err, errno, "open");
		goto out_unlock;
	}
	if (fstat(fd, &st) || st.st_ino != fs->ent.ino || !S_ISREG(st.st_mode)) {
		close(fd);
		fsread_set_err(err, "'%s': '%s' changed while it was read", fs->target, fs->path);
		ret = -ESTALE;
		goto out_unlock;
	}
	MNT(fs)->cur_fd = fd;
out_unlock:
	pthread_mutex_unlock(&MNT(fs)->open_lock);
	return ret;
}

/*
 * One FIEMAP extent of the current file into fs->ext, or fs->unp when it
 * has no place.  Returns 0, or 1 when out of memory (so that the walk's
 * own negative errno stays the kernel's).
 */
static int mounted_extent(const struct fiemap_extent *x, void *arg)
{
	struct fsread *fs = arg;
	uint64_t bs = fs->geo.block_size;

	if (x->fe_flags & FIEMAP_EXTENT_DATA_INLINE)
		fs->ent.inline_data = 1;
	if (x->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DATA_INLINE |
			   FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_DELALLOC)) {
		/* data without a place of its own: not a hole either */
		uint64_t l = x->fe_logical / bs;

		if (array_grow(&fs->unp, &fs->unp_cap, fs->nunp + 1, sizeof(*fs->unp)))
			return 1;
		fs->unp[fs->nunp++] = (struct fsread_extent){
			l, 0, (x->fe_logical + x->fe_length + bs - 1) / bs - l, 0
		};
		return 0;
	}
	if (fsread_add_run(fs, x->fe_logical / bs, x->fe_physical / bs, (x->fe_length + bs - 1) / bs,
		    (x->fe_flags & FIEMAP_EXTENT_UNWRITTEN) ? FSREAD_EXTENT_UNWRITTEN : 0))
		return 1;
	return 0;
}

static int mounted_fiemap(struct fsread *fs, struct fsread_error *err)
{
	int ret = fiemap_walk(MNT(fs)->cur_fd, 0, mounted_extent, fs);

	if ((ret == -EOPNOTSUPP || ret == -ENOTTY) && !fs->next) {
		/* tmpfs, procfs, some FUSE: no extents to report */
		fs->no_fiemap = 1;
		return 0;
	}
	if (ret > 0)
		return -ENOMEM;
	if (ret)
		return sys_fail(fs, err, -ret, "get the extents (FIEMAP) of");
	fsread_normalize_runs(fs);
	return 0;
}

/*
 * A directory's extents by FIEMAP where the file system gives them (ext4
 * does; xfs and btrfs do not): none, silently, otherwise.  Returns 0 or
 * -ENOMEM.
 */
static int mounted_dir_fiemap(struct fsread *fs, int dirfd, const char *name)
{
	struct fsread_entry *e = &fs->ent;
	struct stat st;
	int fd, ret;

	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || st.st_ino != e->ino) {
		close(fd);
		return 0;
	}
	ret = fiemap_walk(fd, 0, mounted_extent, fs);
	close(fd);
	if (ret > 0)
		return -ENOMEM;
	if (ret || fs->nunp) {
		fs->next = fs->nunp = 0;
		return 0;
	}
	fsread_normalize_runs(fs);
	for (size_t i = 0; i < fs->next; i++)
		e->blocks += fs->ext[i].len;
	e->extents = fs->ext ? fs->ext : fsread_no_extents;
	e->nextents = fs->next;
	return 0;
}

/*
 * statx the entry `name` of directory dirfd (path in fs->path) into fs->ent.
 * Returns 0, 1 when the entry is on another mount (skipped), or a
 * negative errno with err set.
 */
static int mounted_entry(struct fsread *fs, int dirfd, const char *name, struct fsread_error *err)
{
	struct fsread_entry *e = &fs->ent;
	struct statx x;
	int ret;

	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
		  STATX_BASIC_STATS | STATX_BTIME | STATX_MNT_ID, &x)) {
		if (!fsread_gone(-errno) && errno != EACCES && errno != EPERM)
			return sys_fail(fs, err, errno, "stat");
		/* gone since its directory was listed (a live tree), or not ours: walk on */
		fsread_skipped(fs, -errno);
		return 1;
	}
	if (makedev(x.stx_dev_major, x.stx_dev_minor) != MNT(fs)->dev ||
	    (MNT(fs)->has_mnt_id && (x.stx_mask & STATX_MNT_ID) && x.stx_mnt_id != MNT(fs)->mnt_id))
		return 1;
	fill_from_statx(e, &x);
	fsread_entry_reset(e);
	fs->next = 0;
	fs->nunp = 0;
	MNT(fs)->cur_fd = -1;
	MNT(fs)->cur_dirfd = dirfd;
	if (e->type == FSREAD_FILE) {
		if (e->nlink > 1) {
			ret = inoset_add(&MNT(fs)->multi, e->ino);
			if (ret < 0)
				return ret;
			e->first_name = !ret;
		}
		if ((fs->flags & FSREAD_EXTENTS) && !fs->no_fiemap) {
			ret = mounted_open_file(fs, err);
			if (ret == -EACCES || ret == -EPERM || fsread_gone(ret)) {
				/* not ours, or gone or replaced since its statx (a live tree) */
				fsread_skipped(fs, ret);
				e->extents_unknown = 1;
				return 0;
			}
			if (!ret)
				ret = mounted_fiemap(fs, err);
			if (ret)
				return ret;
			for (size_t i = 0; i < fs->next; i++)
				e->blocks += fs->ext[i].len;
			if (!fs->no_fiemap) {
				e->extents = fs->ext ? fs->ext : fsread_no_extents;
				e->nextents = fs->next;
				e->unplaced = fs->unp;
				e->nunplaced = fs->nunp;
			}
		}
	} else if (e->type == FSREAD_DIR && (fs->flags & FSREAD_EXTENTS) && !fs->no_fiemap) {
		return mounted_dir_fiemap(fs, dirfd, name);
	} else if (e->type == FSREAD_SYMLINK) {
		ssize_t n;

		if (x.stx_size > 65536) {
			fsread_set_err(err, "'%s': symbolic link '%s' claims %llu bytes", fs->target,
				fs->path, (unsigned long long)x.stx_size);
			return -EINVAL;
		}
		/* procfs' links say 0 bytes: room for a path */
		size_t cap = x.stx_size ? x.stx_size + 1 : PATH_MAX;

		if (array_grow(&fs->link, &fs->link_cap, cap + 1, 1))
			return -ENOMEM;
		n = readlinkat(dirfd, name, fs->link, cap);
		if (n < 0) {
			/* gone (a live tree), or one procfs does not show (another's /proc/PID/cwd) */
			fsread_skipped(fs, -errno);
			return 1;
		}
		fs->link[n] = '\0';
		e->symlink_target = fs->link;
		e->symlink_len = (size_t)n;
	}
	return 0;
}

/*
 * Whether a listing cut short by errno e means the directory went away:
 * fsread_gone(), or EINVAL from procfs, whose per-task net directory
 * (/proc/PID/task/TID/net) answers EINVAL once its task has let go of its
 * namespaces on the way out.
 */
static int listing_gone(int dfd, int e)
{
	struct statfs sf;

	if (fsread_gone(-e))
		return 1;
	return e == EINVAL && !fstatfs(dfd, &sf) && sf.f_type == PROC_SUPER_MAGIC;
}

static int mounted_read_dir(struct fsread *fs, int fd, struct fsr_level *lv,
			    struct fsread_error *err)
{
	int dfd = dup(fd);
	struct dirent *d;
	DIR *dir;
	int ret = 0, e;

	if (dfd < 0)
		return sys_fail(fs, err, errno, "read the directory");
	dir = fdopendir(dfd);
	if (!dir) {
		e = errno;
		close(dfd);
		return sys_fail(fs, err, e, "read the directory");
	}
	errno = 0;
	while ((d = readdir(dir))) {
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		ret = fsread_level_add(lv, d->d_ino, d->d_name, strlen(d->d_name));
		if (ret)
			break;
		errno = 0;
	}
	e = errno;
	if (!ret && e && listing_gone(dirfd(dir), e)) {
		/* emptied while listed (procfs: its task exited): what was listed stands */
		fsread_skipped(fs, fsread_gone(-e) ? -e : -ENOENT);
	} else if (!ret && e) {
		ret = sys_fail(fs, err, e, "read the directory");
	}
	closedir(dir);
	if (!ret)
		fsread_level_sort(lv);
	return ret;
}

static ssize_t mounted_read(struct fsread *fs, const struct fsread_entry *e, char *buf, size_t len,
			    uint64_t off, struct fsread_error *err)
{
	int ret = mounted_open_file(fs, err);
	size_t done = 0;

	(void)e;
	if (ret)
		return ret;
	while (done < len) {
		ssize_t n = pread(MNT(fs)->cur_fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return sys_fail(fs, err, errno, "read");
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

static void mounted_close(struct fsread *fs)
{
	struct mnt_reader *r = MNT(fs);

	if (!r)
		return;
	prefetch_stop(fs);
	if (r->rootfd >= 0)
		close(r->rootfd);
	if (r->cur_fd >= 0)
		close(r->cur_fd);
	pthread_mutex_destroy(&r->open_lock);
	free(r->multi.slot);
	free(r);
	fs->priv = NULL;
}

static int mounted_xattrs(struct fsread *fs, const struct fsread_entry *e,
			  struct fsread_xattrs *x, struct fsread_error *err)
{
	return fsread_mounted_xattrs_of(MNT(fs)->rootfd, e, x, err);
}

static int mounted_probe(const struct fsread_probe *p)
{
	return p->is_dir;
}

/*
 * The loop reader: an image (or a disk's partition) of a file system
 * libext2fs does not read (xfs, btrfs, ...) but the kernel mounts.  As
 * root, it is mounted read-only through a read-only loop device on a
 * directory of its own, its root opened, and at once detached from that
 * directory (MNT_DETACH) and the directory removed: nothing is left
 * behind on any path, a crash included; the kernel lets go of the file
 * system and the loop device when the walk closes its last descriptor.
 * Then it reads as a mounted tree.
 */
static int loop_probe(const struct fsread_probe *p)
{
	return !p->is_dir && p->type[0] && !fsread_is_ext_type(p->type);
}

static int loop_open(struct fsread *fs, struct fsread_error *err)
{
	struct fsread_mount m;
	char why[128], msg[sizeof(err->msg)];
	int ret, ret2;

	snprintf(why, sizeof(why), "imprint reads %s through the kernel, which needs root to mount it",
		 fs->place.type);
	ret = fsread_mount(fs->target, &fs->place, why, &m, msg, sizeof(msg));
	if (!ret)
		ret = fsread_mounted_open_dir(fs, m.dir, err);
	else
		fsread_set_err(err, "%s", msg);
	ret2 = fsread_mount_detach(&m, msg, sizeof(msg));
	if (ret2 && !ret) {
		fsread_set_err(err, "%s", msg);
		ret = ret2;
	}
	snprintf(fs->kind, sizeof(fs->kind), "an %s image or device, mounted read-only and read through the kernel",
		 fs->place.type);
	return ret;
}

static int mounted_root(struct fsread *fs, struct fsread_error *err)
{
	int ret = mounted_entry(fs, MNT(fs)->rootfd, ".", err);

	if (!ret && !(fs->flags & FSREAD_WARM))
		prefetch_start(fs);
	return ret;
}

static int mounted_dirent(struct fsread *fs, const struct fsr_level *lv, const struct fsr_dent *d,
			  const char *name, struct fsread_error *err)
{
	(void)d;
	return mounted_entry(fs, lv->fd, name, err);
}

static int mounted_dir(struct fsread *fs, const struct fsr_level *parent, const char *name,
		       struct fsr_level *lv, struct fsread_error *err)
{
	if (!parent) {
		int ret;

		lv->fd = dup(MNT(fs)->rootfd);
		ret = lv->fd < 0 ? sys_fail(fs, err, errno, "read the directory") :
				   mounted_read_dir(fs, lv->fd, lv, err);
		if (!ret)
			cleanup_test_pause("listed");
		return ret;
	}
	/* reading a directory must not touch its atime: O_NOATIME where we may */
	lv->fd = openat(parent->fd, name,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
	if (lv->fd < 0 && errno == EPERM)
		lv->fd = openat(parent->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lv->fd < 0 && (errno == EACCES || errno == EPERM || fsread_gone(-errno))) {
		/* not ours to read, or gone since its statx (a live tree): walk on without its entries */
		fsread_skipped(fs, -errno);
		return 1;
	}
	return lv->fd < 0 ? sys_fail(fs, err, errno, "open the directory") :
			    mounted_read_dir(fs, lv->fd, lv, err);
}

static void mounted_entry_done(struct fsread *fs)
{
	if (MNT(fs)->cur_fd >= 0) {
		close(MNT(fs)->cur_fd);
		MNT(fs)->cur_fd = -1;
	}
}

/* The walk through the kernel, the mounted and loop readers' alike. */
#define MOUNTED_WALK_HOOKS \
	.close = mounted_close, \
	.root = mounted_root, \
	.entry = mounted_dirent, \
	.read_dir = mounted_dir, \
	.entry_done = mounted_entry_done, \
	.walk_done = prefetch_stop, \
	.read = mounted_read, \
	.xattrs = mounted_xattrs

const struct fsread_ops fsread_mounted_ops = {
	.name = "mounted",
	.probe = mounted_probe,
	.open = mounted_open,
	MOUNTED_WALK_HOOKS,
};

const struct fsread_ops fsread_loop_ops = {
	.name = "loop",
	.probe = loop_probe,
	.open = loop_open,
	MOUNTED_WALK_HOOKS,
};
