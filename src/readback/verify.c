/* verify.c - check a mounted tree against its plan through the kernel: stat, readlink, read, FIEMAP */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "content/sparse.h"
#include "readback/verify.h"

#define VERIFY_PATH 65536
#define VERIFY_CHUNK (1 << 20)
#define FIEMAP_BATCH 512

struct vctx {
	const struct plan *pl;
	const struct content_source *cs;
	FILE *log;
	unsigned max_report;
	struct verify_result *res;
	char *path;             /* root + entry path */
	size_t root_len;
	unsigned char *got, *want;
	struct fiemap *fm;
	FILE *ext;              /* the extents file, or NULL */
	uint32_t block_size;
	char *line;
	size_t line_cap;
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

/* Read the next line of the extents file for file id f; NULL when absent. */
static const char *extents_line(struct vctx *v, uint64_t f)
{
	ssize_t n;

	if (!v->ext)
		return NULL;
	n = getline(&v->line, &v->line_cap, v->ext);
	if (n <= 0)
		return NULL;
	if (v->line[n - 1] == '\n')
		v->line[n - 1] = '\0';
	char *end;
	unsigned long long id = strtoull(v->line, &end, 10);

	if (id != f || *end != '\t')
		return NULL;
	end = strchr(end + 1, '\t');
	return end ? end + 1 : NULL;
}

/* FIEMAP runs of fd, merged where physically adjacent, compared with "s+l,s+l". */
static int check_extents(struct vctx *v, int fd, const char *planned)
{
	uint64_t start = 0, nrun = 0, run_p = 0, run_l = 0;
	const char *p = planned;
	int last = 0;

	if (strcmp(planned, "-") == 0)
		p = "";
	v->res->extent_files++;
	while (!last) {
		memset(v->fm, 0, sizeof(*v->fm));
		v->fm->fm_start = start;
		v->fm->fm_length = FIEMAP_MAX_OFFSET - start;
		v->fm->fm_flags = FIEMAP_FLAG_SYNC;
		v->fm->fm_extent_count = FIEMAP_BATCH;
		if (ioctl(fd, FS_IOC_FIEMAP, v->fm) < 0)
			return -errno;
		if (v->fm->fm_mapped_extents == 0)
			break;
		for (unsigned i = 0; i < v->fm->fm_mapped_extents; i++) {
			struct fiemap_extent *e = &v->fm->fm_extents[i];
			uint64_t pb = e->fe_physical / v->block_size;
			uint64_t lb = (e->fe_length + v->block_size - 1) / v->block_size;

			if (e->fe_flags & FIEMAP_EXTENT_LAST)
				last = 1;
			start = e->fe_logical + e->fe_length;
			if (e->fe_flags & FIEMAP_EXTENT_DATA_INLINE)
				continue;
			if (run_l && run_p + run_l == pb) {
				run_l += lb;
				continue;
			}
			if (run_l) {
				/* compare the finished run with the next planned one */
				unsigned long long ps, pl;

				if (sscanf(p, "%llu+%llu", &ps, &pl) != 2 || ps != run_p || pl != run_l) {
					mismatch(v, "extent %llu is %llu+%llu, planned '%.40s'",
						 (unsigned long long)nrun, (unsigned long long)run_p,
						 (unsigned long long)run_l, p);
					return 0;
				}
				p = strchr(p, ',');
				p = p ? p + 1 : "";
				nrun++;
			}
			run_p = pb;
			run_l = lb;
		}
	}
	if (run_l) {
		unsigned long long ps, pl;

		if (sscanf(p, "%llu+%llu", &ps, &pl) != 2 || ps != run_p || pl != run_l) {
			mismatch(v, "extent %llu is %llu+%llu, planned '%.40s'",
				 (unsigned long long)nrun, (unsigned long long)run_p,
				 (unsigned long long)run_l, p);
			return 0;
		}
		p = strchr(p, ',');
		p = p ? p + 1 : "";
	}
	if (*p)
		mismatch(v, "fewer extents than planned (next planned '%.40s')", p);
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
	v->res->dirs++;
	if (lstat(v->path, &st) != 0) {
		mismatch(v, "missing directory: %s", strerror(errno));
	} else if (j != 0) {
		/* the root's owner, mode and times are also planned, and checked */
		check_meta(v, &st, &m, 2 + subdirs);
	} else {
		check_meta(v, &st, &m, 0);
	}

	for (uint64_t f = pl->dir_first_file[j];
	     f < (uint64_t)pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
		size_t nl = plan_file_name(pl, f, name);
		const char *planned = extents_line(v, f);
		int fd;

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
		if ((uint64_t)st.st_size != pl->file_size[f])
			mismatch(v, "size %lld, planned %llu", (long long)st.st_size,
				 (unsigned long long)pl->file_size[f]);
		else
			ret = check_bytes(v, fd, f, pl->file_size[f]);
		if (!ret && (uint64_t)st.st_size == pl->file_size[f])
			ret = check_holes(v, fd, f, pl->file_size[f]);
		if (!ret && planned)
			ret = check_extents(v, fd, planned);
		close(fd);
		if (ret)
			return ret;
	}

	for (uint32_t l = pl->dir_first_link[j]; l < pl->dir_first_link[j] + pl->dir_nlinks[j];
	     l++) {
		size_t nl = plan_link_name(pl, l, name);

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
	struct vctx v = {
		.pl = pl, .cs = cs, .log = log, .max_report = max_report, .res = res,
	};
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	v.root_len = strlen(root);
	while (v.root_len > 1 && root[v.root_len - 1] == '/')
		v.root_len--;
	v.path = malloc(VERIFY_PATH);
	v.got = malloc(VERIFY_CHUNK);
	v.want = malloc(VERIFY_CHUNK);
	v.fm = malloc(sizeof(*v.fm) + FIEMAP_BATCH * sizeof(struct fiemap_extent));
	if (!v.path || !v.got || !v.want || !v.fm || v.root_len + 2 > VERIFY_PATH)
		goto out_free;
	memcpy(v.path, root, v.root_len);
	v.path[v.root_len] = '\0';
	if (v.root_len == 1 && root[0] == '/')
		v.root_len = 0;
	if (extents) {
		unsigned bs = 0;

		v.ext = fopen(extents, "r");
		if (!v.ext) {
			ret = -errno;
			fprintf(log, "imprint: cannot open '%s': %s\n", extents, strerror(errno));
			goto out_free;
		}
		if (getline(&v.line, &v.line_cap, v.ext) <= 0 ||
		    sscanf(v.line, "# imprint extents block_size=%u", &bs) != 1 || bs == 0) {
			fprintf(log, "imprint: '%s' is not an extents file\n", extents);
			ret = -EINVAL;
			goto out_free;
		}
		v.block_size = bs;
	}
	for (uint32_t j = 0; j < pl->ndirs; j++) {
		ret = verify_dir(&v, j);
		if (ret)
			goto out_free;
	}
	ret = res->mismatches ? 1 : 0;
out_free:
	if (v.ext)
		fclose(v.ext);
	free(v.line);
	free(v.path);
	free(v.got);
	free(v.want);
	free(v.fm);
	return ret;
}

int verify_write_extents(const struct plan *pl, const struct layout *lo, uint32_t block_size,
			 FILE *out)
{
	char path[VERIFY_PATH], name[NAME_MAX_LEN + 1];

	fprintf(out, "# imprint extents block_size=%u\n", block_size);
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		int l = plan_dir_path(pl, pl->file_dir[f], path, sizeof(path));

		if (l < 0)
			return l;
		plan_file_name(pl, f, name);
		fprintf(out, "%" PRIu64 "\t%s%s%s\t", f, path, l > 1 ? "/" : "", name);
		if (lo->file_ext[f] == lo->file_ext[f + 1])
			fputs("-", out);
		for (uint64_t e = lo->file_ext[f]; e < lo->file_ext[f + 1]; e++)
			fprintf(out, "%s%" PRIu64 "+%" PRIu64, e == lo->file_ext[f] ? "" : ",",
				lo->ext[e].pblk, lo->ext[e].len);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}
