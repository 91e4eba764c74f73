/* shard.c - the mounted backend's --shard: the marker shared by the shards, temporary names, reruns */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "backends/mounted/mounted.h"
#include "model/params.h"
#include "util/cleanup.h"

#define MARKER ".imprint-shard"
#define MARKER_MAX 512
/*
 * While --shard finish removes the markers and sets DIR's own times, the
 * marker's text is kept in this attribute of DIR (an attribute changes only
 * its ctime), so that a finish stopped in between can be run again.
 */
#define FINISHING_XATTR "user.imprint.shard-finishing"

/* What a marker says: the plan the shards write, and in how many shards. */
struct marker {
	uint64_t identity, changes; /* params_identity(), params_change_identity() */
	unsigned generation, shards;
	int root_empty; /* DIR held nothing when the first shard began */
};

static void marker_mine(const struct mnt_state *st, struct marker *m, int root_empty)
{
	m->identity = params_identity(&st->pl->prm);
	m->changes = params_change_identity(&st->pl->prm);
	m->generation = st->pl->prm.generation;
	m->shards = st->shard.n;
	m->root_empty = root_empty;
}

static int marker_format(const struct marker *m, char *buf, size_t len)
{
	return snprintf(buf, len,
			"imprint-shard 2\nidentity %016" PRIx64 "\nchanges %016" PRIx64
			"\ngeneration %u\nshards %u\nroot_empty %d\n",
			m->identity, m->changes, m->generation, m->shards, m->root_empty);
}

static int marker_parse(struct mnt_state *st, const char *buf, struct marker *m, const char *where);

/* Read DIR's marker into *m: 0, -ENOENT when there is none, another negative errno after a message. */
static int marker_read(struct mnt_state *st, struct marker *m)
{
	char buf[MARKER_MAX + 1];
	ssize_t n;
	int fd = openat(st->rootfd, MARKER, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT)
		return -ENOENT;
	if (fd < 0)
		return mnt_err(st, -errno, "cannot open the shard marker '%s/%s': %s", st->root,
			       MARKER, strerror(errno));
	n = read(fd, buf, MARKER_MAX);
	close(fd);
	if (n < 0)
		return mnt_err(st, -errno, "cannot read the shard marker '%s/%s': %s", st->root,
			       MARKER, strerror(errno));
	buf[n] = '\0';
	return marker_parse(st, buf, m, MARKER);
}

/* Parse a marker's text (read from where) into *m: 0, or -EINVAL after a message. */
static int marker_parse(struct mnt_state *st, const char *buf, struct marker *m, const char *where)
{
	if (sscanf(buf, "imprint-shard 2\nidentity %" SCNx64 "\nchanges %" SCNx64
		   "\ngeneration %u\nshards %u\nroot_empty %d",
		   &m->identity, &m->changes, &m->generation, &m->shards, &m->root_empty) != 5)
		return mnt_err(st, -EINVAL,
			       "'%s' %s is not a shard marker imprint wrote; remove it only if no shards are writing '%s'",
			       st->root, where, st->root);
	return 0;
}

/*
 * The marker a finish stopped after removing the marker files left in
 * DIR's attribute: 0 with *m set, -ENOENT when there is none, another
 * negative errno after a message.
 */
static int finishing_read(struct mnt_state *st, struct marker *m)
{
	char buf[MARKER_MAX + 1];
	ssize_t n = fgetxattr(st->rootfd, FINISHING_XATTR, buf, MARKER_MAX);

	if (n < 0 && (errno == ENODATA || errno == ENOTSUP))
		return -ENOENT;
	if (n < 0)
		return mnt_err(st, -errno, "cannot read the attribute %s of '%s': %s",
			       FINISHING_XATTR, st->root, strerror(errno));
	buf[n] = '\0';
	return marker_parse(st, buf, m, "attribute " FINISHING_XATTR);
}

/* Refuse a marker of another plan, or of another count of shards. */
static int marker_check(struct mnt_state *st, const struct marker *have)
{
	struct marker mine;

	marker_mine(st, &mine, 0);
	if (have->identity != mine.identity || have->generation != mine.generation)
		return mnt_err(st, -EINVAL,
			       "'%s' holds the shards of another plan (its marker %s names plan %016" PRIx64 " generation %u; this run's is %016" PRIx64 " generation %u); give the configuration, seed, size and generation of the shards there, or an empty directory",
			       st->root, MARKER, have->identity, have->generation, mine.identity,
			       mine.generation);
	if (have->changes != mine.changes && mine.generation)
		return mnt_err(st, -EINVAL,
			       "'%s' holds the shards of generation %u under another change model (the gen_* settings; its marker %s names %016" PRIx64 ", this run's is %016" PRIx64 "); give the gen_* settings of the shards there",
			       st->root, mine.generation, MARKER, have->changes, mine.changes);
	if (!st->shard_finish && have->shards != mine.shards)
		return mnt_err(st, -EINVAL,
			       "'%s' is being written in %u shards (its marker %s), not %u; give --shard K/%u, or an empty directory",
			       st->root, have->shards, MARKER, mine.shards, have->shards);
	st->root_empty = have->root_empty;
	st->shards_marked = have->shards;
	return 0;
}

/*
 * Make DIR's marker: written under a name of this process's own, then
 * linked to its name, which fails when another shard made it first (then
 * its marker is the one checked).  Returns 0, -EEXIST when another was
 * first, or another negative errno after a message.
 */
static int marker_make(struct mnt_state *st, int root_empty)
{
	char tmp[128], host[64] = "", buf[MARKER_MAX];
	struct marker m;
	int fd, n, ret = 0;

	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, "/")] = '\0';
	snprintf(tmp, sizeof(tmp), ".imprint-shard-tmp-%.40s-%ld", host, (long)getpid());
	marker_mine(st, &m, root_empty);
	n = marker_format(&m, buf, sizeof(buf));
	fd = openat(st->rootfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return mnt_err(st, -errno, "cannot create '%s/%s': %s", st->root, tmp, strerror(errno));
	if (write(fd, buf, (size_t)n) != n || fsync(fd) != 0)
		ret = -(errno ? errno : EIO);
	if (close(fd) != 0 && !ret)
		ret = -errno;
	if (!ret && linkat(st->rootfd, tmp, st->rootfd, MARKER, 0) != 0)
		ret = -errno;
	unlinkat(st->rootfd, tmp, 0);
	if (ret && ret != -EEXIST)
		return mnt_err(st, ret, "cannot make the shard marker '%s/%s': %s", st->root, MARKER,
			       strerror(-ret));
	return ret;
}

int mnt_shard_open(struct mnt_state *st)
{
	struct marker have;
	int ret, fresh = 0;

	ret = plan_shard_init(&st->shard, st->pl, st->o->shard_k, st->o->shard_n);
	if (ret)
		return mnt_err(st, ret, "cannot share out the plan: %s", strerror(-ret));
	for (int tries = 0; tries < 2; tries++) {
		ret = marker_read(st, &have);
		if (!ret)
			return marker_check(st, &have);
		if (ret != -ENOENT)
			return ret;
		if (st->shard_finish) {
			/* a finish stopped between removing the markers and DIR's times: again */
			ret = finishing_read(st, &have);
			if (!ret) {
				st->shard_refinish = 1;
				return marker_check(st, &have);
			}
			if (ret != -ENOENT)
				return ret;
		}
		if (st->shard_finish)
			return mnt_err(st, -EINVAL,
				       "'%s' holds no shard marker (%s): '--shard finish' comes after the shards ('--shard K/N') and only once",
				       st->root, MARKER);
		ret = mnt_dir_empty(st, 1, &fresh);
		if (ret)
			return mnt_err(st, ret, "cannot read directory '%s': %s", st->root,
				       strerror(-ret));
		if (!fresh && !st->o->force)
			return mnt_err(st, -EEXIST,
				       "'%s' is not empty and holds no shard marker (%s); give an empty directory (lost+found is allowed), or --force to add to it (nothing there is overwritten)",
				       st->root, MARKER);
		ret = marker_make(st, fresh);
		if (!ret) {
			st->root_empty = fresh;
			return 0;
		}
		if (ret != -EEXIST)
			return ret;
		/* another shard was first: check its marker */
	}
	return mnt_err(st, -EAGAIN, "the shard marker '%s/%s' came and went; run again", st->root,
		       MARKER);
}

/*
 * The shards' own names (the marker, .imprint-tmp-N) start with '.', which
 * no planned name does (name_make() never begins one with '.' or '-'), so
 * they cannot clash with an entry of the plan.
 */
size_t mnt_shard_tmp_name(uint64_t f, char *buf, size_t len)
{
	int n = snprintf(buf, len, ".imprint-tmp-%" PRIu64, f);

	return n < 0 ? 0 : (size_t)n;
}

int mnt_shard_commit(struct mnt_state *st, int dirfd, uint64_t f)
{
	char tmp[64], name[NAME_MAX_LEN + 1];

	mnt_shard_tmp_name(f, tmp, sizeof(tmp));
	mnt_file_name(st, f, name, 1);
	return renameat(dirfd, tmp, dirfd, name) ? -errno : 0;
}

/* Name what is in the way of file f: "'DIR/a/b' exists ...". */
static int in_the_way(struct mnt_state *st, uint64_t f, const char *name, const struct stat *s)
{
	char path[PATH_MAX];

	if (mnt_dir_path(st, st->pl->file_dir[f], path, sizeof(path)) < 0)
		snprintf(path, sizeof(path), "...");
	return mnt_err(st, -EEXIST,
		       "'%s/%s%s%s' exists but is not the planned file (%s of %lld bytes, planned a file of %" PRIu64 " bytes); remove it, or give an empty directory",
		       st->root, path, path[0] ? "/" : "", name,
		       S_ISREG(s->st_mode) ? "a file" : "not a regular file", (long long)s->st_size,
		       st->pl->file_size[f]);
}

int mnt_shard_skip(struct mnt_state *st)
{
	const struct plan *pl = st->pl;
	char name[NAME_MAX_LEN + 1];
	uint32_t dir = PLAN_NONE;
	int dfd = -1, ret = 0;
	struct stat s;

	st->skip = calloc(pl->nfiles + 1, 1);
	if (!st->skip)
		return mnt_err(st, -ENOMEM, "out of memory");
	for (uint64_t f = 0; f < pl->nfiles && !ret; f++) {
		if (!plan_shard_has_file(&st->shard, f)) {
			st->skip[f] = 1;
			continue;
		}
		if (pl->file_dir[f] != dir) {
			if (dfd >= 0)
				close(dfd);
			dir = pl->file_dir[f];
			ret = mnt_open_dir(st, dir, &dfd);
			if (ret) {
				dfd = -1;
				ret = mnt_err(st, ret, "cannot open a directory of '%s': %s", st->root,
					      strerror(-ret));
				break;
			}
		}
		mnt_file_name(st, f, name, 0);
		if (fstatat(dfd, name, &s, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno != ENOENT)
				ret = mnt_err(st, -errno, "cannot stat '%s' in '%s': %s", name,
					      st->root, strerror(errno));
			continue;
		}
		/* a name appears only by the rename after the file's last byte and metadata */
		if (!S_ISREG(s.st_mode) || (uint64_t)s.st_size != pl->file_size[f])
			ret = in_the_way(st, f, name, &s);
		st->skip[f] = 1;
		st->shard_done++;
	}
	if (dfd >= 0)
		close(dfd);
	return ret;
}

static void done_name(unsigned k, char *buf, size_t len)
{
	snprintf(buf, len, "%s-done-%u", MARKER, k);
}

int mnt_shard_done(struct mnt_state *st)
{
	char name[64];
	int fd;

	/* what the share wrote is durable before it says so */
	if (syncfs(st->rootfd) != 0)
		return mnt_err(st, -errno, "cannot sync the file system of '%s': %s", st->root,
			       strerror(errno));
	done_name(st->shard.k, name, sizeof(name));
	fd = openat(st->rootfd, name, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || fsync(fd) != 0 || close(fd) != 0)
		return mnt_err(st, -errno, "cannot make '%s/%s': %s", st->root, name,
			       strerror(errno));
	return 0;
}

int mnt_shard_all_done(struct mnt_state *st)
{
	unsigned n = st->shards_marked;
	char name[64], list[200] = "";
	unsigned missing = 0;
	size_t at = 0;

	for (unsigned k = 0; k < n; k++) {
		done_name(k, name, sizeof(name));
		if (faccessat(st->rootfd, name, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (missing++ < 10 && at < sizeof(list))
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%u", at ? ", " : "", k);
	}
	if (!missing)
		return 0;
	return mnt_err(st, -EAGAIN,
		       "%u of the %u shards of '%s' have not completed (%s%s: no %s/%s-done-K); run them (a rerun completes a share), then '--shard finish' again",
		       missing, n, st->root, list, missing > 10 ? ", ..." : "", st->root, MARKER);
}

int mnt_shard_unmark(struct mnt_state *st)
{
	char name[64], buf[MARKER_MAX];
	struct marker m;
	int n;

	/* what the marker said, kept in DIR's attribute until DIR's times are set */
	marker_mine(st, &m, st->root_empty);
	m.shards = st->shards_marked;
	n = marker_format(&m, buf, sizeof(buf));
	if (fsetxattr(st->rootfd, FINISHING_XATTR, buf, (size_t)n, 0) != 0 && errno != ENOTSUP)
		return mnt_err(st, -errno, "cannot set the attribute %s of '%s': %s",
			       FINISHING_XATTR, st->root, strerror(errno));
	for (unsigned k = 0; k < st->shards_marked; k++) {
		done_name(k, name, sizeof(name));
		if (unlinkat(st->rootfd, name, 0) != 0 && errno != ENOENT)
			return mnt_err(st, -errno, "cannot remove '%s/%s': %s", st->root, name,
				       strerror(errno));
	}
	if (unlinkat(st->rootfd, MARKER, 0) != 0 && errno != ENOENT)
		return mnt_err(st, -errno, "cannot remove the shard marker '%s/%s': %s", st->root,
			       MARKER, strerror(errno));
	cleanup_test_pause("unmarked");
	return 0;
}

int mnt_shard_finished(struct mnt_state *st)
{
	if (fremovexattr(st->rootfd, FINISHING_XATTR) != 0 && errno != ENODATA &&
	    errno != ENOTSUP)
		return mnt_err(st, -errno, "cannot remove the attribute %s of '%s': %s",
			       FINISHING_XATTR, st->root, strerror(errno));
	return 0;
}
