/* verify.c - check a mounted tree against its plan through the kernel: stat, readlink, read, FIEMAP */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "content/sparse.h"
#include "read/extents_file.h"
#include "analysis/verify.h"
#include "analysis/verify_include.h"
#include "analysis/verify_xattr.h"
#include "util/fiemap.h"

#define VERIFY_PATH 65536
#define VERIFY_CHUNK (1 << 20)

struct vctx {
	const struct plan *pl;
	const struct content_source *cs;
	FILE *log;
	unsigned max_report;
	struct verify_result *res;
	char *path;             /* root + entry path */
	size_t root_len;
	unsigned char *got, *want;
	struct textin ext;      /* the extents file, when has_ext */
	int has_ext;
	uint32_t block_size;
	const struct plan_shard *sh; /* one share only, or NULL */
};

static void mismatch(struct vctx *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void mismatch(struct vctx *v, const char *fmt, ...)
{
	va_list ap;

	if (v->res->mismatches++ >= v->max_report)
		return;
	fprintf(v->log, "mismatch: '%s': ", v->path + v->root_len);
	va_start(ap, fmt);
	vfprintf(v->log, fmt, ap);
	va_end(ap);
	fputc('\n', v->log);
}

/* Put root + the entry's path into v->path; returns 0 or -ENAMETOOLONG. */
static int entry_path(struct vctx *v, uint32_t dir, const char *name, size_t nl)
{
	int l = plan_dir_path(v->pl, dir, v->path + v->root_len, VERIFY_PATH - v->root_len);
	size_t at;

	if (l < 0)
		return l;
	at = v->root_len + (size_t)l;
	if (nl) {
		if (at + nl + 2 > VERIFY_PATH)
			return -ENAMETOOLONG;
		if (v->path[at - 1] != '/')
			v->path[at++] = '/';
		memcpy(v->path + at, name, nl);
		at += nl;
		v->path[at] = '\0';
	}
	return 0;
}

static void check_meta(struct vctx *v, const struct stat *st, const struct plan_meta *m,
		       uint64_t nlink)
{
	if ((st->st_mode & S_IFMT) != (m->mode & S_IFMT))
		mismatch(v, "type %o, planned %o", st->st_mode & S_IFMT, m->mode & S_IFMT);
	if (!S_ISLNK(st->st_mode) && (st->st_mode & 07777) != (m->mode & 07777))
		mismatch(v, "mode %04o, planned %04o", st->st_mode & 07777, m->mode & 07777);
	if (st->st_uid != m->uid || st->st_gid != m->gid)
		mismatch(v, "owner %u:%u, planned %u:%u", st->st_uid, st->st_gid, m->uid, m->gid);
	if (st->st_mtim.tv_sec != m->mtime || (uint32_t)st->st_mtim.tv_nsec != m->mtime_ns)
		mismatch(v, "mtime %lld.%09ld, planned %lld.%09u", (long long)st->st_mtim.tv_sec,
			 st->st_mtim.tv_nsec, (long long)m->mtime, m->mtime_ns);
	/* a directory's count of 1 means "not counted" (btrfs): not a mismatch */
	if (nlink && st->st_nlink != nlink && !(S_ISDIR(st->st_mode) && st->st_nlink == 1))
		mismatch(v, "link count %llu, planned %llu", (unsigned long long)st->st_nlink,
			 (unsigned long long)nlink);
}

/* The extended attributes of the entry at v->path. */
static int check_xattrs(struct vctx *v, enum plan_entry kind, uint64_t id)
{
	char msg[256];
	int r = verify_xattrs(v->pl, v->path, kind, id, msg, sizeof(msg), &v->res->xattr_entries,
			      &v->res->acls);

	if (r > 0)
		mismatch(v, "%s", msg);
	return r < 0 ? r : 0;
}

/* A special file's device number (its type check_meta compared). */
static void check_special(struct vctx *v, uint32_t l, const struct stat *st)
{
	struct plan_special sp;

	plan_special_info(v->pl, l, &sp);
	v->res->specials++;
	if ((sp.type == SPECIAL_CHR || sp.type == SPECIAL_BLK) &&
	    (major(st->st_rdev) != sp.major || minor(st->st_rdev) != sp.minor))
		mismatch(v, "device %u:%u, planned %u:%u", major(st->st_rdev), minor(st->st_rdev),
			 sp.major, sp.minor);
}

/* Compare a file's bytes with the content source; 0 or -errno for I/O failures. */
static int check_bytes(struct vctx *v, int fd, uint64_t file, uint64_t size)
{
	for (uint64_t off = 0; off < size;) {
		size_t want = size - off < VERIFY_CHUNK ? (size_t)(size - off) : VERIFY_CHUNK;
		ssize_t n = pread(fd, v->got, want, (off_t)off);

		if (n < 0)
			return -errno;
		if ((size_t)n != want) {
			mismatch(v, "short read at %llu", (unsigned long long)off);
			return 0;
		}
		v->cs->fill(v->cs, file, off, v->want, want);
		if (memcmp(v->got, v->want, want) != 0) {
			size_t i = 0;

			while (v->got[i] == v->want[i])
				i++;
			mismatch(v, "content differs at byte %llu", (unsigned long long)(off + i));
			return 0;
		}
		off += want;
		v->res->bytes += want;
	}
	return 0;
}

/*
 * Where the file has data and holes (SEEK_DATA, SEEK_HOLE), against the
 * plan: each planned hole is a hole, and no other hole lies before the
 * end of the file.  A file system that does not report holes (the
 * kernel's generic answer: data up to the end) only passes when nothing
 * is planned sparse.
 */
static int check_holes(struct vctx *v, int fd, uint64_t file, uint64_t size)
{
	struct sparse_holes h = { 0 };
	uint64_t pos = 0;

	if (sparse_enabled(v->pl))
		sparse_file_holes(v->pl, file, &h);
	if (h.n)
		v->res->sparse_files++;
	for (unsigned i = 0; i <= h.n; i++) {
		uint64_t data_end = i < h.n ? h.hole[i].off : size;
		off_t at;

		/* data from pos to data_end: the next hole is not before data_end */
		if (pos < data_end) {
			at = lseek(fd, (off_t)pos, SEEK_HOLE);
			if (at < 0)
				return -errno;
			if ((uint64_t)at < data_end) {
				mismatch(v, "a hole at byte %lld, planned data up to %llu", (long long)at,
					 (unsigned long long)data_end);
				return 0;
			}
		}
		if (i == h.n)
			break;
		/* the hole: no data before its end */
		at = lseek(fd, (off_t)h.hole[i].off, SEEK_DATA);
		if (at < 0 && errno != ENXIO)
			return -errno;
		if (at >= 0 && (uint64_t)at < h.hole[i].off + h.hole[i].len) {
			mismatch(v, "data at byte %lld, planned a hole of %llu bytes from %llu",
				 (long long)at, (unsigned long long)h.hole[i].len,
				 (unsigned long long)h.hole[i].off);
			return 0;
		}
		pos = h.hole[i].off + h.hole[i].len;
	}
	return 0;
}

/*
 * A preallocated file's unwritten ranges may read as holes (btrfs, and
 * any SEEK_HOLE that counts unwritten as a hole): FIEMAP checks it instead.
 */
static int check_holes_or_prealloc(struct vctx *v, int fd, uint64_t f, uint64_t size)
{
	char msg[256];
	uint64_t before = v->res->prealloc_files;
	int r = verify_prealloc(v->pl, fd, f, msg, sizeof(msg), &v->res->prealloc_files);

	if (r > 0)
		mismatch(v, "%s", msg);
	if (r < 0)
		return r;
	return v->res->prealloc_files == before ? check_holes(v, fd, f, size) : 0;
}

/* Read the next line of the extents file for file id f; NULL when absent. */
static const char *extents_line(struct vctx *v, uint64_t f)
{
	if (!v->has_ext)
		return NULL;
	return extents_file_read_line(&v->ext, f);
}

/* A file's FIEMAP runs, merged where physically adjacent, against its planned ones. */
struct extent_check {
	struct vctx *v;
	const char *p;          /* the planned runs not compared yet: "s+l,s+l" */
	uint64_t nrun;          /* runs compared */
	uint64_t run_p, run_l;  /* the run being merged, in blocks (run_l 0: none yet) */
};

/* Compare the finished run with the next planned one: 0, or 1 on a (reported) mismatch. */
static int check_run(struct extent_check *c)
{
	unsigned long long ps, pl;

	if (sscanf(c->p, "%llu+%llu", &ps, &pl) != 2 || ps != c->run_p || pl != c->run_l) {
		mismatch(c->v, "extent %llu is %llu+%llu, planned '%.40s'",
			 (unsigned long long)c->nrun, (unsigned long long)c->run_p,
			 (unsigned long long)c->run_l, c->p);
		return 1;
	}
	c->p = strchr(c->p, ',');
	c->p = c->p ? c->p + 1 : "";
	c->nrun++;
	return 0;
}

/* fiemap_walk() callback: merge x into the run, or compare the run and start another. */
static int check_extent(const struct fiemap_extent *x, void *arg)
{
	struct extent_check *c = arg;
	uint64_t bs = c->v->block_size;
	uint64_t pb = x->fe_physical / bs, lb = (x->fe_length + bs - 1) / bs;

	if (x->fe_flags & FIEMAP_EXTENT_DATA_INLINE)
		return 0;
	if (c->run_l && c->run_p + c->run_l == pb) {
		c->run_l += lb;
		return 0;
	}
	if (c->run_l && check_run(c))
		return 1;
	c->run_p = pb;
	c->run_l = lb;
	return 0;
}

/* FIEMAP runs of fd compared with planned; 0 (mismatches reported) or -errno. */
static int check_extents(struct vctx *v, int fd, const char *planned)
{
	struct extent_check c = { .v = v, .p = strcmp(planned, "-") == 0 ? "" : planned };
	int ret;

	v->res->extent_files++;
	ret = fiemap_walk(fd, FIEMAP_FLAG_SYNC, check_extent, &c);
	if (ret < 0)
		return ret;
	if (ret || (c.run_l && check_run(&c)))
		return 0;
	if (*c.p)
		mismatch(v, "fewer extents than planned (next planned '%.40s')", c.p);
	return 0;
}

static int verify_dir(struct vctx *v, uint32_t j)
{
	const struct plan *pl = v->pl;
	char name[NAME_MAX_LEN + 1];
	char target[VERIFY_PATH];
	struct plan_meta m;
	struct stat st;
	uint64_t subdirs = 0;
	int ret;

	for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE; c = pl->dir_next_sibling[c])
		subdirs++;
	ret = entry_path(v, j, NULL, 0);
	if (ret)
		return ret;
	plan_dir_meta(pl, j, &m);
	/* another share's directory holds nothing of this share */
	if (v->sh && j && !plan_shard_has_dir(v->sh, j))
		return 0;
	v->res->dirs++;
	if (lstat(v->path, &st) != 0) {
		mismatch(v, "missing directory: %s", strerror(errno));
	} else if (v->sh) {
		/* a share: the directory is there; its metadata comes with --shard finish */
		if (!S_ISDIR(st.st_mode))
			mismatch(v, "type %o, planned %o", st.st_mode & S_IFMT, m.mode & S_IFMT);
	} else {
		/* the root's owner, mode and times are also planned, and checked */
		check_meta(v, &st, &m, j ? 2 + subdirs : 0);
		ret = check_xattrs(v, PLAN_DIR, j);
		if (ret)
			return ret;
	}

	for (uint64_t f = pl->dir_first_file[j];
	     f < (uint64_t)pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
		size_t nl = plan_file_name(pl, f, name);
		const char *planned = extents_line(v, f);
		int fd;

		if (v->sh && !plan_shard_has_file(v->sh, f))
			continue;
		ret = entry_path(v, j, name, nl);
		if (ret)
			return ret;
		v->res->files++;
		plan_file_meta(pl, f, &m);
		fd = open(v->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) != 0) {
			mismatch(v, "missing file: %s", strerror(errno));
			if (fd >= 0)
				close(fd);
			continue;
		}
		check_meta(v, &st, &m, pl->file_nlink ? pl->file_nlink[f] : 1);
		ret = check_xattrs(v, PLAN_FILE, f);
		if (ret) {
			close(fd);
			return ret;
		}
		if ((uint64_t)st.st_size != pl->file_size[f])
			mismatch(v, "size %lld, planned %llu", (long long)st.st_size,
				 (unsigned long long)pl->file_size[f]);
		else
			ret = check_bytes(v, fd, f, pl->file_size[f]);
		if (!ret && (uint64_t)st.st_size == pl->file_size[f])
			ret = check_holes_or_prealloc(v, fd, f, pl->file_size[f]);
		if (!ret && planned)
			ret = check_extents(v, fd, planned);
		close(fd);
		if (ret)
			return ret;
	}

	for (uint32_t l = pl->dir_first_link[j]; l < pl->dir_first_link[j] + pl->dir_nlinks[j];
	     l++) {
		size_t nl = plan_link_name(pl, l, name);

		if (v->sh && !plan_shard_has_link(v->sh, l))
			continue;
		ret = entry_path(v, j, name, nl);
		if (ret)
			return ret;
		v->res->links++;
		if (lstat(v->path, &st) != 0) {
			mismatch(v, "missing link: %s", strerror(errno));
			continue;
		}
		if (pl->link_kind[l] & LINK_HARD) {
			struct stat ts;
			uint64_t f = pl->link_target[l];
			char keep[VERIFY_PATH];

			memcpy(keep, v->path, strlen(v->path) + 1);
			nl = plan_file_name(pl, f, name);
			ret = entry_path(v, pl->file_dir[f], name, nl);
			if (ret)
				return ret;
			if (lstat(v->path, &ts) != 0 || ts.st_ino != st.st_ino) {
				memcpy(v->path, keep, strlen(keep) + 1);
				mismatch(v, "hard link is not the same inode as its file");
			}
			continue;
		}
		plan_link_meta(pl, l, &m);
		check_meta(v, &st, &m, 1);
		ret = check_xattrs(v, PLAN_LINK, l);
		if (ret)
			return ret;
		if (pl->link_kind[l] & LINK_SPECIAL) {
			check_special(v, l, &st);
			continue;
		}
		int tl = plan_symlink_target(pl, l, target, sizeof(target));
		char got[VERIFY_PATH];
		ssize_t n = readlink(v->path, got, sizeof(got) - 1);

		if (tl < 0)
			return tl;
		if (n < 0) {
			mismatch(v, "readlink: %s", strerror(errno));
			continue;
		}
		got[n] = '\0';
		if (strcmp(got, target) != 0)
			mismatch(v, "symlink to '%s', planned '%s'", got, target);
	}
	return 0;
}

int verify_tree(const struct plan *pl, const struct content_source *cs, const char *root,
		const char *extents, FILE *log, unsigned max_report, struct verify_result *res)
{
	return verify_tree_shard(pl, cs, root, extents, log, max_report, NULL, res);
}

int verify_tree_shard(const struct plan *pl, const struct content_source *cs, const char *root,
		      const char *extents, FILE *log, unsigned max_report,
		      const struct plan_shard *sh, struct verify_result *res)
{
	struct vctx v = {
		.pl = pl, .cs = cs, .log = log, .max_report = max_report, .res = res,
		.sh = sh && sh->n ? sh : NULL,
	};
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	v.root_len = strlen(root);
	while (v.root_len > 1 && root[v.root_len - 1] == '/')
		v.root_len--;
	v.path = malloc(VERIFY_PATH);
	v.got = malloc(VERIFY_CHUNK);
	v.want = malloc(VERIFY_CHUNK);
	if (!v.path || !v.got || !v.want || v.root_len + 2 > VERIFY_PATH)
		goto out_free;
	memcpy(v.path, root, v.root_len);
	v.path[v.root_len] = '\0';
	if (v.root_len == 1 && root[0] == '/')
		v.root_len = 0;
	if (extents) {
		unsigned bs = 0;

		v.has_ext = 1;
		ret = extents_file_open(&v.ext, extents, &bs);
		if (ret) {
			fprintf(log, "imprint: %s\n", v.ext.err);
			goto out_free;
		}
		v.block_size = bs;
	}
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		ret = verify_dir(&v, j);
		if (ret)
			goto out_free;
	}
	ret = verify_includes(pl, root, log, max_report, res);
	if (ret)
		goto out_free;
	ret = res->mismatches ? 1 : 0;
out_free:
	if (v.has_ext)
		textin_close(&v.ext);
	free(v.path);
	free(v.got);
	free(v.want);
	return ret;
}

int verify_write_extents(const struct plan *pl, const struct layout *lo, uint32_t block_size,
			 FILE *out)
{
	char path[VERIFY_PATH], name[NAME_MAX_LEN + 1];

	extents_file_write_header(out, block_size);
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t first = lo->file_ext[f], end = lo->file_ext[f + 1];
		int l = plan_dir_path(pl, pl->file_dir[f], path, sizeof(path));

		if (l < 0)
			return l;
		plan_file_name(pl, f, name);
		extents_file_begin_line(out, f, path, name);
		for (uint64_t e = first; e < end; e++)
			extents_file_put_run(out, (size_t)(e - first), lo->ext[e].pblk, lo->ext[e].len);
		extents_file_end_line(out, (size_t)(end - first));
	}
	return ferror(out) ? -EIO : 0;
}
