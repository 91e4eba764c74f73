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

/* Holes are reported: a file with data only at its middle has a hole at 0. */
static int has_holes(int fd)
{
	static const char data[4096] = { 1 };

	if (ftruncate(fd, PROBE_SPAN) != 0 ||
	    pwrite(fd, data, sizeof(data), PROBE_SPAN / 2) != (ssize_t)sizeof(data))
		return 0;
	return lseek(fd, 0, SEEK_HOLE) == 0;
}

static void probe_file(struct mnt_state *st, int dfd, int fd)
{
	struct mnt_caps *c = &st->caps;
	struct stat s;
	int cfd;

	c->holes = has_holes(fd);
	c->fiemap = has_fiemap(fd);
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
 * symlinks, chown, modes, case, holes, fiemap and name_max=N, makes the
 * probe report those capabilities missing (or names at most N bytes
 * long), to test refusals and --allow-drop on a file system that has
 * them all; fail_last makes the run fail after its last step (DIR's own
 * metadata set), to test the undo.  Nothing else reads it.
 */
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
		{ "case", offsetof(struct mnt_caps, case_sensitive) },
		{ "holes", offsetof(struct mnt_caps, holes) },
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
 * DIR: symbolic and hard links, owners, mode bits, case, name length,
 * holes and FIEMAP.
 */
int mnt_probe(struct mnt_state *st)
{
	char name[64];
	int dfd = -1, fd, ret = 0;

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
	probe_deny(&st->caps);
	close(fd);
	unlinkat(dfd, "h", 0);
	unlinkat(dfd, "s", 0);
	unlinkat(dfd, "F", 0);
	unlinkat(dfd, "f", 0);
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

/*
 * What the file system lacks that --allow-drop can do without: hard and
 * symbolic links (skipped), owners (the caller's), long names (shortened).
 * Added to miss unless --allow-drop was given; *droppable set if any.
 */
static void check_droppable(struct mnt_state *st, int hard, int sym, char *miss, size_t len,
			    int *droppable)
{
	const struct mnt_caps *c = &st->caps;
	int allow = st->o->allow_drop;
	size_t longest;

	*droppable = 0;
	if (sym && !c->symlinks) {
		*droppable = 1;
		if (!(st->drop_sym = allow))
			add_missing(miss, len, "symbolic links");
	}
	if (hard && !c->hardlinks) {
		*droppable = 1;
		if (!(st->drop_hard = allow))
			add_missing(miss, len, "hard links");
	}
	if (st->as_root && !c->chown) {
		*droppable = 1;
		if (!allow)
			add_missing(miss, len, "owners (chown)");
	}
	st->set_owners = st->as_root && c->chown;
	if (c->name_max > 0 && c->name_max < NAME_MAX_LEN &&
	    (longest = longest_name(st->pl)) > (size_t)c->name_max) {
		char buf[80];

		*droppable = c->name_max >= NAME_LIMIT_MIN;
		if (allow && *droppable) {
			st->name_limit = c->name_max;
			return;
		}
		snprintf(buf, sizeof(buf), "names of %zu bytes (at most %ld)", longest,
			 c->name_max);
		add_missing(miss, len, buf);
	}
}

/*
 * Refuse a plan that needs what the file system lacks, with the list;
 * with --allow-drop, what can be dropped is (and counted), not refused.
 */
int mnt_check_plan(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	const struct mnt_caps *c = &st->caps;
	int hard = 0, sym = 0, sparse = 0, devices = 0, droppable;
	char miss[512] = "";

	for (uint32_t l = 0; l < pl->nlinks; l++) {
		uint8_t k = pl->link_kind[l];

		if (k & LINK_HARD)
			hard = 1;
		else if (LINK_IS_SYMLINK(k))
			sym = 1;
		else if (LINK_SPECIAL_TYPE(k) >= SPECIAL_CHR)
			devices = 1;
	}
	if (sparse_enabled(pl)) {
		struct sparse_holes h;

		for (uint64_t f = 0; f < pl->nfiles && !sparse; f++)
			sparse = sparse_file_holes(pl, f, &h) > 0;
	}
	check_droppable(st, hard, sym, miss, sizeof(miss), &droppable);
	if (!c->modes)
		add_missing(miss, sizeof(miss), "mode bits (setuid, setgid, sticky)");
	if (devices && !st->as_root)
		add_missing(miss, sizeof(miss), "device nodes (mknod needs root)");
	if (pl->prm.xattr_user_share > 0 && !c->xattr_user)
		add_missing(miss, sizeof(miss), "user.* extended attributes");
	if (pl->prm.acl_share > 0 && !c->acl)
		add_missing(miss, sizeof(miss), "POSIX ACLs");
	if (pl->prm.xattr_selinux != SELINUX_NONE && !c->xattr_security)
		add_missing(miss, sizeof(miss),
			    st->as_root ? "security.selinux labels" : "security.selinux labels (they need root)");
	if (!c->case_sensitive)
		add_missing(miss, sizeof(miss), "names that differ only in case");
	if (sparse && !c->holes)
		add_missing(miss, sizeof(miss), "sparse files (SEEK_HOLE)");
	if (!miss[0])
		return 0;
	return mnt_err(st, -EOPNOTSUPP,
		       "the file system of '%s' cannot hold this plan: it lacks %s; choose a file system that has them or a plan without them%s",
		       st->root, miss,
		       droppable && !st->o->allow_drop
			       ? ", or --allow-drop to skip the links, keep the caller's owners and shorten the names (counted in the summary)"
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

		blocks = (pl->file_size[f] + bs - 1) / bs;
		if (sparse_enabled(pl) && sparse_file_holes(pl, f, &h))
			blocks -= h.bytes / bs;
		data += blocks * bs;
	}
	for (uint32_t l = 0; l < pl->nlinks; l++)
		if (LINK_IS_SYMLINK(pl->link_kind[l]) &&
		    plan_symlink_target(pl, l, target, sizeof(target)) > 60)
			data += bs;
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
