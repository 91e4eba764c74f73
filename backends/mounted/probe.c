/* probe.c - what the mounted file system can hold, what the plan needs of it, and whether it fits */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "backends/mounted/mounted.h"
#include "content/sparse.h"
#include "util/strutil.h"

#define PROBE_UID 54321
#define PROBE_SPAN (1 << 20)

/* Whether FIEMAP answers on fd (tmpfs and some FUSE file systems do not). */
static int has_fiemap(int fd)
{
	struct {
		struct fiemap fm;
		struct fiemap_extent e[1];
	} q;

	memset(&q, 0, sizeof(q));
	q.fm.fm_length = FIEMAP_MAX_OFFSET;
	q.fm.fm_flags = FIEMAP_FLAG_SYNC;
	q.fm.fm_extent_count = 1;
	return ioctl(fd, FS_IOC_FIEMAP, &q.fm) == 0;
}

/* Nanosecond modification times are kept (exFAT keeps 10 ms, FAT 2 s). */
static int has_ns_times(int fd)
{
	struct timespec ts[2] = { { 1000000000, 123456789 }, { 1000000001, 987654321 } };
	struct stat s;

	return futimens(fd, ts) == 0 && fstat(fd, &s) == 0 && s.st_mtim.tv_sec == ts[1].tv_sec &&
	       s.st_mtim.tv_nsec == ts[1].tv_nsec;
}

/* Holes are reported: a file with data only at its middle has a hole at 0. */
static int has_holes(int fd)
{
	static const char data[4096] = { 1 };

	if (ftruncate(fd, PROBE_SPAN) != 0 ||
	    pwrite(fd, data, sizeof(data), PROBE_SPAN / 2) != (ssize_t)sizeof(data))
		return 0;
	return lseek(fd, 0, SEEK_HOLE) == 0;
}

/* The largest file of the plan, in bytes. */
static uint64_t largest_file(const struct plan *pl)
{
	uint64_t m = 0;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		m = pl->file_size[f] > m ? pl->file_size[f] : m;
	return m;
}

#define MSDOS_MAGIC 0x4d44

/*
 * The largest file size the file system takes, when the plan's largest
 * file is refused: found by setting the size of the (sparse) probe file,
 * which allocates nothing; FAT (no holes) takes 4 GiB - 1.  0: no limit
 * the plan meets.
 */
static uint64_t file_max(int fd, uint64_t largest, int holes)
{
	uint64_t lo = PROBE_SPAN, hi = largest;
	struct statfs sfs;

	if (!holes)
		return fstatfs(fd, &sfs) == 0 && sfs.f_type == MSDOS_MAGIC ? 0xFFFFFFFFull : 0;
	if (largest <= PROBE_SPAN || ftruncate(fd, (off_t)largest) == 0)
		return 0;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (ftruncate(fd, (off_t)mid) == 0)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static void probe_file(struct mnt_state *st, int dfd, int fd)
{
	struct mnt_caps *c = &st->caps;
	struct stat s;
	int cfd;

	c->ns_times = has_ns_times(fd);
	c->holes = has_holes(fd);
	c->fiemap = has_fiemap(fd);
	c->file_max = file_max(fd, largest_file(st->pl), c->holes);
	c->perms = fchmod(fd, 0640) == 0 && fstat(fd, &s) == 0 && (s.st_mode & 07777) == 0640;
	c->modes = fchmod(fd, 04751) == 0 && fstat(fd, &s) == 0 && (s.st_mode & 07777) == 04751;
	c->chown = st->as_root && fchown(fd, PROBE_UID, PROBE_UID) == 0 && fstat(fd, &s) == 0 &&
		   s.st_uid == PROBE_UID && s.st_gid == PROBE_UID;
	c->symlinks = symlinkat("f", dfd, "s") == 0;
	c->hardlinks = linkat(dfd, "f", dfd, "h", 0) == 0;
	/* "F" finds "f" only where names are compared without case */
	cfd = openat(dfd, "F", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	c->case_sensitive = cfd >= 0;
	if (cfd >= 0)
		close(cfd);
	c->name_max = fpathconf(dfd, _PC_NAME_MAX);
	c->xattr_user = mnt_xattr_probe(fd, "user.imprint-probe", "1", 1);
	c->xattr_security = mnt_xattr_probe(fd, "security.selinux", "system_u:object_r:tmp_t:s0", 27);
	/* version 2; user::rw-, user:PROBE_UID:r--, group::r--, mask::r--, other::r-- */
	{
		static const unsigned char acl[] = {
			2, 0, 0, 0, 1, 0, 6, 0, 255, 255, 255, 255, 2, 0, 4, 0, 0x31, 0xd4, 0, 0,
			4, 0, 4, 0, 255, 255, 255, 255, 16, 0, 4, 0, 255, 255, 255, 255,
			32, 0, 4, 0, 255, 255, 255, 255,
		};

		c->acl = mnt_xattr_probe(fd, "system.posix_acl_access", acl, sizeof(acl));
	}
}

/*
 * A test hook: IMPRINT_MOUNTED_DENY, a comma-separated list of hardlinks,
 * symlinks, chown, perms, modes, ns_times, case, holes, fiemap,
 * xattr_user, xattr_security, acl, name_max=N, file_max=N (bytes) and
 * chars=CHARS (characters refused in names, no comma), makes the probe
 * report those capabilities missing, to test refusals and --allow-drop on
 * a file system that has them all; fail_last makes the run fail after its
 * last step (DIR's own metadata set), to test the undo.  Nothing else
 * reads it.
 */
static void deny_chars(struct mnt_caps *c, const char *s, size_t n)
{
	uint32_t cp;

	for (size_t i = 0; i < n && c->nbad < MNT_BAD_MAX;) {
		i += mnt_utf8_next(s + i, n - i, &cp);
		c->bad[c->nbad++] = cp;
	}
	qsort(c->bad, c->nbad, sizeof(*c->bad), mnt_cp_cmp);
}

static void probe_deny(struct mnt_caps *c)
{
	static const struct {
		const char *name;
		size_t off;
	} caps[] = {
		{ "hardlinks", offsetof(struct mnt_caps, hardlinks) },
		{ "symlinks", offsetof(struct mnt_caps, symlinks) },
		{ "chown", offsetof(struct mnt_caps, chown) },
		{ "modes", offsetof(struct mnt_caps, modes) },
		{ "perms", offsetof(struct mnt_caps, perms) },
		{ "case", offsetof(struct mnt_caps, case_sensitive) },
		{ "holes", offsetof(struct mnt_caps, holes) },
		{ "ns_times", offsetof(struct mnt_caps, ns_times) },
		{ "fiemap", offsetof(struct mnt_caps, fiemap) },
		{ "xattr_user", offsetof(struct mnt_caps, xattr_user) },
		{ "xattr_security", offsetof(struct mnt_caps, xattr_security) },
		{ "acl", offsetof(struct mnt_caps, acl) },
	};
	const char *fail = "fail_last";
	const char *s = getenv("IMPRINT_MOUNTED_DENY");

	while (s && *s) {
		size_t n = strcspn(s, ",");

		if (n > 9 && !strncmp(s, "name_max=", 9))
			c->name_max = strtol(s + 9, NULL, 10);
		if (n > 9 && !strncmp(s, "file_max=", 9))
			c->file_max = strtoull(s + 9, NULL, 10);
		if (n > 6 && !strncmp(s, "chars=", 6))
			deny_chars(c, s + 6, n - 6);
		if (n == strlen(fail) && !strncmp(s, fail, n))
			c->fail_last = 1;
		for (size_t i = 0; i < sizeof(caps) / sizeof(caps[0]); i++)
			if (strlen(caps[i].name) == n && !strncmp(s, caps[i].name, n))
				*(int *)((char *)c + caps[i].off) = 0;
		s += n + (s[n] == ',');
	}
}

/*
 * Probe the file system in a scratch directory made (and removed) inside
 * DIR: symbolic and hard links, owners, mode bits, case, name length, the
 * characters of the plan's names, holes, the largest file size and FIEMAP.
 */
int mnt_probe(struct mnt_state *st)
{
	char name[64];
	int dfd = -1, fd, ret = 0;

	if (st->shard.n) /* shards on other hosts may have this pid */
		snprintf(name, sizeof(name), ".imprint-probe-%u-%ld", st->shard.k, (long)getpid());
	else
		snprintf(name, sizeof(name), ".imprint-probe-%ld", (long)getpid());
	if (mkdirat(st->rootfd, name, 0700) != 0) {
		ret = -errno;
		return mnt_err(st, ret, "cannot create a scratch directory '%s' in '%s': %s", name,
			       st->root, strerror(-ret));
	}
	dfd = openat(st->rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		ret = -errno;
		goto out_rmdir;
	}
	fd = openat(dfd, "f", O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		ret = -errno;
		goto out_close;
	}
	probe_file(st, dfd, fd);
	close(fd);
	unlinkat(dfd, "h", 0);
	unlinkat(dfd, "s", 0);
	unlinkat(dfd, "F", 0);
	unlinkat(dfd, "f", 0);
	mnt_probe_names(st, dfd);
	probe_deny(&st->caps);
out_close:
	close(dfd);
out_rmdir:
	if (unlinkat(st->rootfd, name, AT_REMOVEDIR) != 0 && !ret)
		ret = -errno;
	if (ret)
		return mnt_err(st, ret, "cannot probe the file system in '%s' (scratch '%s'): %s",
			       st->root, name, strerror(-ret));
	return 0;
}

/* The longest name of the plan, in bytes. */
static size_t longest_name(const struct plan *pl)
{
	char name[NAME_MAX_LEN + 1];
	size_t m = 0, n;

	for (uint32_t d = 1; d < pl->ndirs; d++)
		if ((n = plan_dir_name(pl, d, name)) > m)
			m = n;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if ((n = plan_file_name(pl, f, name)) > m)
			m = n;
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if ((n = plan_link_name(pl, l, name)) > m)
			m = n;
	return m;
}

static void add_missing(char *buf, size_t len, const char *what)
{
	size_t at = strlen(buf);

	snprintf(buf + at, len - at, "%s%s", at ? ", " : "", what);
}

/* The smallest name limit --allow-drop shortens to: a start, "~" and 8 hex digits. */
#define NAME_LIMIT_MIN 12

/* What the plan has that a file system may lack. */
struct plan_needs {
	int hard, sym, sparse, devices, special_modes;
};

static void plan_needs(const struct plan *pl, struct plan_needs *n)
{
	struct plan_meta m;

	memset(n, 0, sizeof(*n));
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		uint8_t k = pl->link_kind[l];

		if (k & LINK_HARD)
			n->hard = 1;
		else if (LINK_IS_SYMLINK(k))
			n->sym = 1;
		else if (LINK_SPECIAL_TYPE(k) >= SPECIAL_CHR)
			n->devices = 1;
	}
	if (sparse_enabled(pl)) {
		struct sparse_holes h;

		for (uint64_t f = 0; f < pl->nfiles && !n->sparse; f++)
			n->sparse = sparse_file_holes(pl, f, &h) > 0;
	}
	for (uint64_t f = 0; f < pl->nfiles && !n->special_modes; f++) {
		plan_file_meta(pl, f, &m);
		n->special_modes = (m.mode & 07000) != 0;
	}
	for (uint32_t d = 0; d < pl->ndirs && !n->special_modes; d++) {
		plan_dir_meta(pl, d, &m);
		n->special_modes = (m.mode & 07000) != 0;
	}
}

/* One lack --allow-drop does without: *flag set with it, else what is added to miss. */
static void droppable_lack(struct mnt_state *st, int lacks, int *flag, const char *what,
			   char *miss, size_t len, int *droppable)
{
	if (!lacks)
		return;
	*droppable = 1;
	if (st->o->allow_drop)
		*flag = 1;
	else
		add_missing(miss, len, what);
}

/* Names longer than the file system takes: shortened with --allow-drop (unless too short a limit). */
static void check_long_names(struct mnt_state *st, char *miss, size_t len, int *droppable)
{
	const struct mnt_caps *c = &st->caps;
	size_t longest;
	char buf[80];

	if (c->name_max <= 0 || c->name_max >= NAME_MAX_LEN ||
	    (longest = longest_name(st->pl)) <= (size_t)c->name_max)
		return;
	if (c->name_max >= NAME_LIMIT_MIN) {
		*droppable = 1;
		if (st->o->allow_drop) {
			st->name_limit = c->name_max;
			return;
		}
	}
	snprintf(buf, sizeof(buf), "names of %zu bytes (at most %ld)", longest, c->name_max);
	add_missing(miss, len, buf);
}

/* Names with characters it refuses or alters; then names (as written) differing only in case. */
static int check_names(struct mnt_state *st, char *miss, size_t len, int *droppable)
{
	const struct plan *pl = st->pl;
	char name[NAME_MAX_LEN + 1], list[128], buf[600];
	uint64_t bad = 0, twins;
	int ret;

	if (st->caps.nbad || st->caps.bad_trail) {
		for (uint64_t f = 0; f < pl->nfiles; f++)
			bad += mnt_name_is_bad(st, name, plan_file_name(pl, f, name));
		for (uint32_t d = 1; d < pl->ndirs; d++)
			bad += mnt_name_is_bad(st, name, plan_dir_name(pl, d, name));
		for (uint32_t l = 0; l < pl->nlinks; l++)
			bad += mnt_name_is_bad(st, name, plan_link_name(pl, l, name));
	}
	if (bad) {
		mnt_bad_list(st, list, sizeof(list));
		snprintf(buf, sizeof(buf), "names with %s (%llu names)", list, (unsigned long long)bad);
		droppable_lack(st, 1, &st->rename_bad, buf, miss, len, droppable);
	}
	if (st->caps.case_sensitive)
		return 0;
	ret = mnt_case_twins(st, &twins, list, sizeof(list), 0);
	if (ret || !twins)
		return ret;
	snprintf(buf, sizeof(buf), "names that differ only in case (%llu, e.g. %s)",
		 (unsigned long long)twins, list);
	*droppable = 1;
	if (!st->o->allow_drop) {
		add_missing(miss, len, buf);
		return 0;
	}
	st->case_dir = calloc(pl->ndirs + 1, 1);
	st->case_file = calloc(pl->nfiles + 1, 1);
	st->case_link = calloc(pl->nlinks + 1, 1);
	if (!st->case_dir || !st->case_file || !st->case_link)
		return -ENOMEM;
	return mnt_case_twins(st, &twins, list, sizeof(list), 1);
}

/*
 * What the file system lacks that --allow-drop can do without: hard and
 * symbolic links (skipped), owners, mode bits and time resolution (the
 * file system's), holes (written as zeros), long names (shortened), names with refused
 * characters and case twins (renamed).  Added to miss unless
 * --allow-drop was given; *droppable set if any.
 */
static int check_droppable(struct mnt_state *st, const struct plan_needs *n, char *miss,
			   size_t len, int *droppable)
{
	const struct mnt_caps *c = &st->caps;
	int owners = 0;

	*droppable = 0;
	droppable_lack(st, n->sym && !c->symlinks, &st->drop_sym, "symbolic links", miss, len,
		       droppable);
	droppable_lack(st, n->hard && !c->hardlinks, &st->drop_hard, "hard links", miss, len,
		       droppable);
	droppable_lack(st, st->as_root && !c->chown, &owners, "owners (chown)", miss, len,
		       droppable);
	st->set_owners = st->as_root && c->chown;
	droppable_lack(st, !c->perms || (n->special_modes && !c->modes), &st->drop_modes,
		       c->perms ? "mode bits (setuid, setgid, sticky)" : "mode bits", miss, len,
		       droppable);
	droppable_lack(st, !c->ns_times, &st->round_times, "nanosecond times", miss, len,
		       droppable);
	droppable_lack(st, n->sparse && !c->holes, &st->fill_holes, "sparse files (SEEK_HOLE)",
		       miss, len, droppable);
	check_long_names(st, miss, len, droppable);
	return check_names(st, miss, len, droppable);
}

/*
 * Refuse a plan that needs what the file system lacks, with the list;
 * with --allow-drop, what can be dropped is (and counted), not refused.
 */
int mnt_check_plan(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	const struct mnt_caps *c = &st->caps;
	uint64_t largest = largest_file(pl);
	struct plan_needs n;
	char miss[1536] = "", buf[128];
	int droppable, ret;

	plan_needs(pl, &n);
	ret = check_droppable(st, &n, miss, sizeof(miss), &droppable);
	if (ret)
		return mnt_err(st, ret, "out of memory");
	if (n.devices && !st->as_root)
		add_missing(miss, sizeof(miss), "device nodes (mknod needs root)");
	if (pl->prm.xattr_user_share > 0 && !c->xattr_user)
		add_missing(miss, sizeof(miss), "user.* extended attributes");
	if (pl->prm.acl_share > 0 && !c->acl)
		add_missing(miss, sizeof(miss), "POSIX ACLs");
	if (pl->prm.xattr_selinux != SELINUX_NONE && !c->xattr_security)
		add_missing(miss, sizeof(miss),
			    st->as_root ? "security.selinux labels" : "security.selinux labels (they need root)");
	if (c->file_max && largest > c->file_max) {
		snprintf(buf, sizeof(buf), "files of %" PRIu64 " bytes (it takes at most %" PRIu64 ")",
			 largest, c->file_max);
		add_missing(miss, sizeof(miss), buf);
	}
	if (!miss[0])
		return st->fill_holes ? mnt_check_space(st) : 0; /* the holes take room now */
	return mnt_err(st, -EOPNOTSUPP,
		       "the file system of '%s' cannot hold this plan: it lacks %s; choose a file system that has them or a plan without them%s",
		       st->root, miss,
		       droppable && !st->o->allow_drop
			       ? ", or --allow-drop to skip the links, keep the file system's owners, modes and time resolution, write holes as zeros and shorten or rename the names (counted in the summary)"
			       : "");
}

/* File data in blocks of bs bytes, holes left out; slow symlinks and directories a block each. */
static uint64_t plan_need(struct mnt_state *st, uint64_t bs, uint64_t *entries)
{
	const struct plan *pl = st->pl;
	uint64_t data = 0, blocks;
	char target[PATH_MAX];

	for (uint64_t f = 0; f < pl->nfiles; f++) {
		struct sparse_holes h = { 0 };

		if (!plan_shard_has_file(&st->shard, f))
			continue; /* --shard: another shard's */
		blocks = (pl->file_size[f] + bs - 1) / bs;
		if (!st->fill_holes && sparse_enabled(pl) && sparse_file_holes(pl, f, &h))
			blocks -= h.bytes / bs;
		data += blocks * bs;
	}
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (plan_shard_has_link(&st->shard, l) && LINK_IS_SYMLINK(pl->link_kind[l]) &&
		    plan_symlink_target(pl, l, target, sizeof(target)) > 60)
			data += bs;
	if (st->shard.n) {
		/* its directories, though other shards may make them first */
		data += st->shard.dirs * bs;
		*entries = st->shard.files + st->shard.dirs + st->shard.links;
		return data + data / 32 + *entries * 1024;
	}
	data += (uint64_t)pl->ndirs * bs;
	*entries = pl->nfiles + pl->ndirs + pl->nlinks;
	/* metadata: inodes, directory growth, extent maps, journal churn */
	return data + data / 32 + *entries * 1024;
}

/*
 * Refuse a read-only mount, and a plan that does not fit the free space
 * and inodes statvfs reports (IMPRINT_MOUNTED_ASSUME_FREE, bytes, stands
 * in for the free space: a test hook to reach ENOSPC mid-way).
 */
int mnt_check_space(struct mnt_state *st)
{
	const struct statvfs *v = &st->vfs;
	uint64_t bs = v->f_bsize ? v->f_bsize : 4096, entries;
	uint64_t need = plan_need(st, bs, &entries);
	uint64_t fr = v->f_frsize ? v->f_frsize : bs;
	uint64_t avail = (uint64_t)(st->as_root ? v->f_bfree : v->f_bavail) * fr;
	const char *hook = getenv("IMPRINT_MOUNTED_ASSUME_FREE");
	char h1[32], h2[32];

	if (v->f_flag & ST_RDONLY)
		return mnt_err(st, -EROFS, "'%s' is on a read-only file system; remount it read-write or choose another directory",
			       st->root);
	if (hook && *hook)
		avail = strtoull(hook, NULL, 10);
	if (need > avail) {
		fmt_bytes(need, FMT_BYTES_ADAPTIVE, h1, sizeof(h1));
		fmt_bytes(avail, FMT_BYTES_ADAPTIVE, h2, sizeof(h2));
		return mnt_err(st, -ENOSPC,
			       "the plan does not fit in '%s': it needs about %s (%" PRIu64 " bytes: data in blocks of %" PRIu64 " bytes plus metadata) but %s is free; free space or lower --used / --files",
			       st->root, h1, need, bs, h2);
	}
	if (v->f_files && entries + 16 > (uint64_t)v->f_favail)
		return mnt_err(st, -ENOSPC,
			       "the plan does not fit in '%s': it needs %" PRIu64 " inodes but %llu are free; lower --files",
			       st->root, entries, (unsigned long long)v->f_favail);
	return 0;
}
