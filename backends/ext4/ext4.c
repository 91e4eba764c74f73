/* ext4.c - the ext2/3/4 backend: mke2fs formats, then every block goes where the layout says */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ext2fs/ext2fs.h>

#include "backends/backend.h"
#include "backends/ext4/data.h"
#include "backends/ext4/estimate.h"
#include "backends/ext4/dir.h"
#include "backends/ext4/err.h"
#include "backends/ext4/map.h"
#include "layout/layout.h"
#include "util/rng.h"
#include "content/sparse.h"

extern char **environ;

#define EXT4_CHECK_EVERY   4096 /* entries between interrupt and progress checks */
#define EXT4_WAIT_MS	   200	/* progress period while the data workers run */
#define EXT4_MKE2FS_ERRMAX 400	/* bytes of mke2fs' stderr kept for the message */

/* What open() leaves for populate(), finish() and abort(). */
struct ext4_state {
	ext2_filsys fs;
	int data_fd;
	char *target;
	unsigned jobs;
	volatile sig_atomic_t *cancel; /* the core sets it on SIGINT/SIGTERM */
	struct ext4_build *x; /* from layout_request() to populate() */
	void (*progress)(void *ctx, uint64_t files_done, uint64_t bytes_done);
	void *progress_ctx;
	int formatted; /* mke2fs ran here: abort() wipes its superblock */
	int populated;
	ext2_ino_t lpf_ino; /* lost+found, 0 if none */
	struct timespec t0;
};

/* A directory's entries, names in one arena. */
struct ext4_ents {
	struct ext4_dirent_in *e;
	size_t *off;
	size_t n, cap;
	char *names;
	size_t len, ncap;
};

/* Everything populate() works with. */
struct ext4_build {
	struct backend *b;
	struct ext4_state *st;
	ext2_filsys fs;
	const struct plan *pl;
	const struct content_source *cs;
	uint32_t bs;
	int extents;	/* map with extents (else direct/indirect blocks) */
	int inline_ok;	/* small files go inline */
	unsigned isize; /* on-disk inode size */
	unsigned extra; /* i_extra_isize written; 0 with 128-byte inodes */
	uint64_t nsym;	/* symlinks (links that take an inode) */

	ext2_ino_t *dir_ino, *file_ino, *link_ino;
	uint32_t *nsub; /* subdirectories per directory */
	struct ext4_dir_shape *shape;
	uint64_t *file_blocks; /* allocated data blocks (holes not counted) */
	uint8_t *file_holes;   /* sparse files: holes per file; NULL when none can be */
	uint64_t *file_lblocks; /* sparse files: logical blocks, holes included */
	uint64_t sparse_files, hole_blocks;
	uint32_t *dir_blocks; /* data + mapping blocks per directory */
	uint8_t *link_blocks;

	const struct layout *lo; /* the core's, from our layout request */
	struct ext4_pool pool;
	struct ext4_map map;
	struct ext4_ents ents;
	unsigned char *ibuf; /* one on-disk inode */
	unsigned char *buf;  /* directory blocks, a symlink block */
	size_t buf_cap;
	struct layout_extent *druns;
	uint64_t *dmeta;
	size_t dcap;
	char *tbuf; /* a symlink target, block size bytes */
	struct ext4_data data;
	uint64_t meta_files; /* files whose inode is written, for progress */
};

static int set_err(struct backend *b, int ret, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int set_err(struct backend *b, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->errmsg, sizeof(b->errmsg), fmt, ap);
	va_end(ap);
	return ret;
}

/* "1.2 GiB": binary units, one decimal above bytes. */
static void fmt_bytes(char *buf, size_t len, uint64_t v)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	unsigned u = 0;

	while (d >= 1024 && u + 1 < sizeof(unit) / sizeof(unit[0])) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", v);
	else
		snprintf(buf, len, "%.1f %s", d, unit[u]);
}

static double elapsed(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* Formatting */

/* RFC 4122 version 4 text of 16 bytes drawn from stream `stream` of the seed. */
static void seed_uuid(uint64_t seed, const char *stream, char out[37])
{
	unsigned char u[16];
	struct rng r;

	rng_init(&r, seed, stream, 0);
	for (int i = 0; i < 2; i++) {
		uint64_t v = rng_next(&r);

		for (int k = 0; k < 8; k++)
			u[i * 8 + k] = (unsigned char)(v >> (8 * k));
	}
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

static const char *fs_name(enum fs_kind k)
{
	return k == FS_EXT2 ? "ext2" : k == FS_EXT3 ? "ext3" : "ext4";
}

/* The environment with E2FSPROGS_FAKE_TIME set to t (NULL on no memory). */
/*
 * imprint's own mke2fs.conf, so that an image does not depend on the
 * host's /etc/mke2fs.conf: 4 KiB blocks and 256-byte inodes at every size
 * (no "small"/"floppy" size types), and each file system's usual features.
 * --mkfs-options still override any of it.
 */
static const char mke2fs_conf[] =
	"[defaults]\n"
	"\tbase_features = sparse_super,large_file,filetype,resize_inode,dir_index,ext_attr\n"
	"\tdefault_mntopts = acl,user_xattr\n"
	"\tenable_periodic_fsck = 0\n"
	"\tblocksize = 4096\n"
	"\tinode_size = 256\n"
	"\tinode_ratio = 16384\n"
	"\n"
	"[fs_types]\n"
	"\text3 = {\n"
	"\t\tfeatures = has_journal\n"
	"\t}\n"
	"\text4 = {\n"
	"\t\tfeatures = has_journal,extent,huge_file,flex_bg,metadata_csum,64bit,dir_nlink,extra_isize\n"
	"\t}\n";

/* Write mke2fs_conf to a temporary file; its path into path (PATH_MAX). */
static int write_mke2fs_conf(char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	size_t n = sizeof(mke2fs_conf) - 1;
	int fd;

	snprintf(path, len, "%s/imprint-mke2fs.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);
	if (fd < 0)
		return -errno;
	if (write(fd, mke2fs_conf, n) != (ssize_t)n) {
		int ret = errno ? -errno : -EIO;

		close(fd);
		unlink(path);
		return ret;
	}
	close(fd);
	return 0;
}

/*
 * The environment of mke2fs: ours, less any E2FSPROGS_FAKE_TIME or
 * MKE2FS_* setting, plus the fake time and our config file.
 */
static char **mke2fs_env(int64_t t, char *slot, size_t slot_len, char *conf_slot)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = malloc((n + 3) * sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "E2FSPROGS_FAKE_TIME=", 20) != 0 &&
		    strncmp(environ[i], "MKE2FS_", 7) != 0)
			env[k++] = environ[i];
	/* 0 would mean "use the clock" to mke2fs */
	snprintf(slot, slot_len, "E2FSPROGS_FAKE_TIME=%" PRId64, t > 0 ? t : 1);
	env[k++] = slot;
	env[k++] = conf_slot;
	env[k] = NULL;
	return env;
}

/* Run argv[0] (from PATH, then the sbin directories), its output into err. */
static int spawn_wait(char **argv, char **env, char *err, size_t err_len, int *status)
{
	static const char *const fallback[] = { "/usr/sbin/mke2fs", "/sbin/mke2fs" };
	posix_spawn_file_actions_t fa;
	size_t have = 0;
	int pfd[2], ret;
	pid_t pid;

	err[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -errno;
	ret = posix_spawn_file_actions_init(&fa);
	if (ret) {
		ret = -ret;
		goto out_close_pipe;
	}
	/* mke2fs -q prints nothing unless it fails, on either stream */
	ret = posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	if (ret) {
		ret = -ret;
		goto out_destroy_fa;
	}
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env);
	for (size_t i = 0; ret == ENOENT && i < sizeof(fallback) / sizeof(fallback[0]); i++)
		ret = posix_spawn(&pid, fallback[i], &fa, NULL, argv, env);
	if (ret) {
		ret = -ret;
		goto out_destroy_fa;
	}
	close(pfd[1]);
	pfd[1] = -1;
	for (;;) {
		char chunk[512];
		ssize_t r = read(pfd[0], chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (have + 1 < err_len) {
			size_t n = (size_t)r < err_len - 1 - have ? (size_t)r : err_len - 1 - have;

			memcpy(err + have, chunk, n);
			have += n;
			err[have] = '\0';
		}
	}
	while (waitpid(pid, status, 0) < 0) {
		if (errno != EINTR) {
			ret = -errno;
			break;
		}
	}
out_destroy_fa:
	posix_spawn_file_actions_destroy(&fa);
out_close_pipe:
	close(pfd[0]);
	if (pfd[1] >= 0)
		close(pfd[1]);
	return ret;
}

/*
 * mke2fs -q -F -t FS -U UUID -E hash_seed=UUID,lazy_itable_init=0,nodiscard
 * -N INODES [user options] TARGET.  A user -E is merged into ours (mke2fs
 * keeps only the last); a user -N or -i replaces our -N.
 *
 * Determinism: the UUID and the directory hash seed come from the seed's
 * "uuid" and "hash_seed" streams, and E2FSPROGS_FAKE_TIME (the plan's
 * time_ref) gives s_mkfs_time, s_lastcheck, s_wtime and the times of the
 * root, lost+found, resize and journal inodes.  With these, mke2fs 1.47
 * writes the same bytes every run (checked with sha256 for ext2, ext3,
 * ext4 and metadata_csum_seed, orphan_file, inline_data, ^has_journal):
 * the internal journal's superblock takes the file system's UUID,
 * s_checksum_seed (metadata_csum_seed only) derives from the UUID, and
 * lazy_itable_init=0 writes every inode table (on a block device, free
 * blocks keep what was there: nodiscard).  Nothing needs fixing; our own
 * libext2fs writes take fs->now = time_ref, inode generations are 0, and
 * s_kbytes_written counts the data written outside libext2fs.  mke2fs reads
 * imprint's own mke2fs.conf (MKE2FS_CONFIG), not the host's; the bytes do
 * depend on the e2fsprogs version.
 */
static int run_mke2fs(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	const struct params *p = &pl->prm;
	char uuid[37], hseed[37], inodes[32], timeenv[64], err[EXT4_MKE2FS_ERRMAX];
	char conf[PATH_MAX + 16] = "MKE2FS_CONFIG=";
	int have_conf = 0;
	char *opts = NULL, *ext = NULL, **argv = NULL, **env = NULL;
	size_t nuser = 0, ext_len, n = 0;
	uint64_t nsym = 0, need;
	int user_inodes = 0, status = 0, ret = -ENOMEM;

	for (uint32_t l = 0; l < pl->nlinks; l++)
		nsym += !(pl->link_kind[l] & LINK_HARD);
	/* the reserved inodes, root and lost+found among them, then the plan's, plus slack */
	need = EXT2_GOOD_OLD_FIRST_INO + (uint64_t)pl->ndirs + pl->nfiles + nsym;
	need += need / 4 + 256;
	if (need > UINT32_MAX)
		return set_err(b, -EFBIG,
			       "the plan needs %" PRIu64 " inodes; ext4 allows at most %u", need,
			       UINT32_MAX);
	seed_uuid(p->seed, "uuid", uuid);
	seed_uuid(p->seed, "hash_seed", hseed);
	snprintf(inodes, sizeof(inodes), "%" PRIu64, need);

	opts = strdup(o->mkfs_options ? o->mkfs_options : "");
	if (!opts)
		goto out_free;
	ext_len = strlen(opts) + 128;
	ext = malloc(ext_len);
	argv = calloc(strlen(opts) / 2 + 20, sizeof(*argv));
	if (!ext || !argv)
		goto out_free;
	snprintf(ext, ext_len, "hash_seed=%s,lazy_itable_init=0,nodiscard", hseed);

	argv[n++] = "mke2fs";
	argv[n++] = "-q";
	argv[n++] = "-F";
	argv[n++] = "-t";
	argv[n++] = (char *)fs_name(p->fs);
	argv[n++] = "-U";
	argv[n++] = uuid;
	argv[n++] = "-E";
	argv[n++] = ext;
	size_t n_slot = n; /* -N goes here unless the user sized the inodes */

	n += 2;
	for (char *save = NULL, *tok = strtok_r(opts, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (strncmp(tok, "-E", 2) == 0) {
			char *v = tok[2] ? tok + 2 : strtok_r(NULL, " \t\n", &save);

			if (!v) {
				ret = set_err(b, -EINVAL, "--mkfs-options: '-E' needs a value");
				goto out_free;
			}
			strcat(ext, ",");
			strcat(ext, v);
			continue;
		}
		if (strncmp(tok, "-N", 2) == 0 || strncmp(tok, "-i", 2) == 0)
			user_inodes = 1;
		argv[n++] = tok;
		nuser++;
	}
	if (user_inodes) {
		memmove(&argv[n_slot], &argv[n_slot + 2], nuser * sizeof(*argv));
		n -= 2;
	} else {
		argv[n_slot] = "-N";
		argv[n_slot + 1] = inodes;
	}
	argv[n++] = (char *)o->target;
	argv[n] = NULL;

	ret = write_mke2fs_conf(conf + 14, sizeof(conf) - 14);
	if (ret) {
		set_err(b, ret, "cannot write a temporary mke2fs.conf: %s", strerror(-ret));
		goto out_free;
	}
	have_conf = 1;
	ret = -ENOMEM;
	env = mke2fs_env(p->time_ref, timeenv, sizeof(timeenv), conf);
	if (!env)
		goto out_free;
	ret = spawn_wait(argv, env, err, sizeof(err), &status);
	if (ret) {
		set_err(b, ret, "cannot run mke2fs: %s (install e2fsprogs)", strerror(-ret));
		goto out_free;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char *msg = err + strspn(err, " \t\n"), *nl;

		/* the first line says it all; drop the program-name prefix */
		if (strncmp(msg, "mke2fs: ", 8) == 0)
			msg += 8;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = '\0';
		ret = set_err(b, -EIO, "mke2fs failed on '%s' (%s %d)%s%s", o->target,
			      WIFEXITED(status) ? "exit" : "signal",
			      WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
			      msg[0] ? ": " : "", msg);
		goto out_free;
	}
	ret = 0;
out_free:
	if (ret == -ENOMEM && !b->errmsg[0])
		set_err(b, ret, "out of memory");
	if (have_conf)
		unlink(conf + 14);
	free(env);
	free(argv);
	free(ext);
	free(opts);
	return ret;
}

static int root_entry(ext2_ino_t dir, int entry, struct ext2_dir_entry *dirent, int offset,
		      int blocksize, char *buf, void *priv)
{
	int *others = priv;
	unsigned len = ext2fs_dirent_name_len(dirent);

	(void)dir;
	(void)offset;
	(void)blocksize;
	(void)buf;
	if (entry == DIRENT_DOT_FILE || entry == DIRENT_DOT_DOT_FILE)
		return 0;
	if (len == 10 && memcmp(dirent->name, "lost+found", 10) == 0)
		return 0;
	(*others)++;
	return DIRENT_ABORT;
}

/* An existing file system may be populated only when nothing is in it yet. */
static int check_empty(struct backend *b, struct ext4_state *st)
{
	ext2_filsys fs = st->fs;
	uint64_t used = fs->super->s_inodes_count - fs->super->s_free_inodes_count;
	uint64_t want = EXT2_FIRST_INO(fs->super) - 1 + (st->lpf_ino ? 1 : 0);
	int others = 0;
	errcode_t err;

	if (ext2fs_has_feature_journal_needs_recovery(fs->super))
		return set_err(b, -EBUSY, "'%s' has a journal to recover: run e2fsck on it first",
			       st->target);
	err = ext2fs_dir_iterate2(fs, EXT2_ROOT_INO, 0, NULL, root_entry, &others);
	if (err)
		return set_err(b, ext4_errno(err), "cannot read the root directory of '%s': %s",
			       st->target, error_message(err));
	if (others || used != want)
		return set_err(b, -ENOTEMPTY,
			       "'%s' is not empty (%" PRIu64
			       " inodes in use, an empty file system has %" PRIu64
			       "); only an empty file system can be populated",
			       st->target, used, want);
	return 0;
}

/* Zero the primary superblock: best effort, for a run that did not finish. */
static void wipe_super(int fd)
{
	static const unsigned char zero[SUPERBLOCK_SIZE];
	ssize_t w = pwrite(fd, zero, sizeof(zero), SUPERBLOCK_OFFSET);

	(void)w;
}

static int ext4_open(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	static int tables;
	struct ext4_state *st;
	errcode_t err;
	int ret;

	if (!tables) {
		initialize_ext2_error_table();
		tables = 1;
	}
	b->errmsg[0] = '\0';
	st = calloc(1, sizeof(*st));
	if (!st)
		return set_err(b, -ENOMEM, "out of memory");
	clock_gettime(CLOCK_MONOTONIC, &st->t0);
	st->data_fd = -1;
	st->jobs = o->jobs ? o->jobs : 1;
	st->cancel = o->cancel;
	st->progress = o->progress;
	st->progress_ctx = o->progress_ctx;
	st->target = strdup(o->target);
	if (!st->target) {
		ret = set_err(b, -ENOMEM, "out of memory");
		goto out_free_state;
	}
	if (!o->no_format) {
		ret = run_mke2fs(b, o, pl);
		if (ret)
			goto out_free_target;
		st->formatted = 1;
	}
	if (create_cancelled(o)) {
		ret = set_err(b, -EINTR, "interrupted");
		goto out_free_target;
	}
	err = ext2fs_open2(st->target, NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS | EXT2_FLAG_EXCLUSIVE,
			   0, 0, unix_io_manager, &st->fs);
	if (err) {
		ret = set_err(b, ext4_errno(err), "cannot open '%s' as ext2/3/4: %s", st->target,
			      error_message(err));
		st->fs = NULL;
		goto out_free_target;
	}
	/* nothing may come from the clock: s_wtime and any default time is the plan's "now" */
	st->fs->now = pl->prm.time_ref > 0 ? pl->prm.time_ref : 1;
	if (ext2fs_has_feature_bigalloc(st->fs->super)) {
		ret = set_err(b, -EOPNOTSUPP, "'%s': bigalloc (clusters) is not supported",
			      st->target);
		goto out_free_fs;
	}
	if (ext2fs_has_feature_quota(st->fs->super) || ext2fs_has_feature_project(st->fs->super)) {
		/* libext2fs has no public quota API: the usage files would go stale */
		ret = set_err(
			b, -EOPNOTSUPP,
			"'%s': the quota and project features are not supported (drop them from --mkfs-options)",
			st->target);
		goto out_free_fs;
	}
	err = ext2fs_read_bitmaps(st->fs);
	if (err) {
		ret = set_err(b, ext4_errno(err), "cannot read the bitmaps of '%s': %s", st->target,
			      error_message(err));
		goto out_free_fs;
	}
	err = ext2fs_lookup(st->fs, EXT2_ROOT_INO, "lost+found", 10, NULL, &st->lpf_ino);
	if (err)
		st->lpf_ino = 0;
	if (o->no_format) {
		ret = check_empty(b, st);
		if (ret)
			goto out_free_fs;
	}
	st->data_fd = open(st->target, O_RDWR | O_CLOEXEC);
	if (st->data_fd < 0) {
		ret = set_err(b, -errno, "cannot open '%s': %s", st->target, strerror(errno));
		goto out_free_fs;
	}
	b->priv = st;
	return 0;
out_free_fs:
	ext2fs_free(st->fs);
out_free_target:
	if (st->formatted) {
		int fd = open(st->target, O_WRONLY | O_CLOEXEC);

		if (fd >= 0) {
			wipe_super(fd);
			close(fd);
		}
	}
	free(st->target);
out_free_state:
	free(st);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Populating */

static int ents_add(struct ext4_ents *d, const char *name, size_t len, ext2_ino_t ino, uint8_t type)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct ext4_dirent_in *e = realloc(d->e, cap * sizeof(*e));

		if (!e)
			return -ENOMEM;
		d->e = e;
		size_t *off = realloc(d->off, cap * sizeof(*off));

		if (!off)
			return -ENOMEM;
		d->off = off;
		d->cap = cap;
	}
	if (d->len + len > d->ncap) {
		size_t cap = d->ncap ? d->ncap : 4096;
		char *names;

		while (cap < d->len + len)
			cap *= 2;
		names = realloc(d->names, cap);
		if (!names)
			return -ENOMEM;
		d->names = names;
		d->ncap = cap;
	}
	memcpy(d->names + d->len, name, len);
	d->off[d->n] = d->len;
	d->e[d->n].name_len = (uint32_t)len;
	d->e[d->n].ino = ino;
	d->e[d->n].type = type;
	d->len += len;
	d->n++;
	return 0;
}

/* Entries of directory j: subdirectories, files, links, and lost+found in the root. */
static int collect_entries(struct ext4_build *x, uint32_t j)
{
	const struct plan *pl = x->pl;
	struct ext4_ents *d = &x->ents;
	char name[NAME_MAX_LEN + 1];
	int ret = 0;

	d->n = 0;
	d->len = 0;
	for (uint32_t c = pl->dir_first_child[j]; c != PLAN_NONE && !ret;
	     c = pl->dir_next_sibling[c])
		ret = ents_add(d, name, plan_dir_name(pl, c, name), x->dir_ino[c], EXT2_FT_DIR);
	for (uint64_t f = pl->dir_first_file[j];
	     f < pl->dir_first_file[j] + pl->dir_nfiles[j] && !ret; f++)
		ret = ents_add(d, name, plan_file_name(pl, f, name), x->file_ino[f],
			       EXT2_FT_REG_FILE);
	for (uint32_t l = pl->dir_first_link[j];
	     l < pl->dir_first_link[j] + pl->dir_nlinks[j] && !ret; l++) {
		int hard = pl->link_kind[l] & LINK_HARD;

		ret = ents_add(d, name, plan_link_name(pl, l, name),
			       hard ? x->file_ino[pl->link_target[l]] : x->link_ino[l],
			       hard ? EXT2_FT_REG_FILE : EXT2_FT_SYMLINK);
	}
	if (!ret && j == 0 && x->st->lpf_ino)
		ret = ents_add(d, "lost+found", 10, x->st->lpf_ino, EXT2_FT_DIR);
	if (ret)
		return ret;
	for (size_t i = 0; i < d->n; i++)
		d->e[i].name = d->names + d->off[i];
	return 0;
}

static void ents_release(struct ext4_ents *d)
{
	free(d->e);
	free(d->off);
	free(d->names);
}

static int buf_reserve(struct ext4_build *x, size_t len)
{
	unsigned char *nb;

	if (len <= x->buf_cap)
		return 0;
	nb = realloc(x->buf, len);
	if (!nb)
		return -ENOMEM;
	x->buf = nb;
	x->buf_cap = len;
	return 0;
}

/* Path of a directory, or of an entry in it, for messages. */
static const char *entry_path(const struct ext4_build *x, uint32_t dir, const char *name, char *buf,
			      size_t len)
{
	int n = plan_dir_path(x->pl, dir, buf, len);

	if (n < 0)
		snprintf(buf, len, "(directory %u)", dir);
	if (name) {
		size_t at = strlen(buf);

		snprintf(buf + at, len - at, "%s%s", at > 1 ? "/" : "", name);
	}
	return buf;
}

static void progress(struct ext4_build *x)
{
	if (x->st->progress)
		x->st->progress(x->st->progress_ctx, x->meta_files,
				atomic_load(&x->data.bytes_done));
}

static int cancelled(const struct ext4_state *st)
{
	return st->cancel && *st->cancel;
}

/* Every 4096 entries: stop when interrupted, report progress. */
static int tick(struct ext4_build *x, uint64_t i)
{
	if (i % EXT4_CHECK_EVERY)
		return 0;
	if (cancelled(x->st))
		return set_err(x->b, -EINTR, "interrupted");
	progress(x);
	return 0;
}

static uint32_t xtime_extra(int64_t sec, uint32_t ns)
{
	int64_t epoch = (sec - (int64_t)(int32_t)sec) >> 32;

	return (uint32_t)(epoch & EXT4_EPOCH_MASK) | (ns << EXT4_EPOCH_BITS);
}

/* Write inode ino from scratch. */
static int write_inode(struct ext4_build *x, ext2_ino_t ino, const struct plan_meta *m,
		       uint32_t links, uint64_t size, uint64_t blocks, uint32_t flags,
		       const uint32_t *i_block)
{
	struct ext2_inode_large *in = (struct ext2_inode_large *)x->ibuf;
	struct ext2_inode *small = (struct ext2_inode *)x->ibuf;
	errcode_t err;

	memset(x->ibuf, 0, x->isize);
	in->i_mode = (uint16_t)m->mode;
	in->i_uid = (uint16_t)m->uid;
	in->osd2.linux2.l_i_uid_high = (uint16_t)(m->uid >> 16);
	in->i_gid = (uint16_t)m->gid;
	in->osd2.linux2.l_i_gid_high = (uint16_t)(m->gid >> 16);
	in->i_links_count = (uint16_t)links;
	in->i_atime = (uint32_t)m->atime;
	in->i_ctime = (uint32_t)m->ctime;
	in->i_mtime = (uint32_t)m->mtime;
	in->i_flags = flags;
	memcpy(in->i_block, i_block, sizeof(in->i_block));
	err = ext2fs_inode_size_set(x->fs, small, (ext2_off64_t)size);
	if (!err)
		err = ext2fs_iblk_set(x->fs, small, blocks);
	if (err)
		return ext4_errno(err);
	if (x->extra) {
		in->i_extra_isize = (uint16_t)x->extra;
		in->i_atime_extra = xtime_extra(m->atime, m->atime_ns);
		in->i_ctime_extra = xtime_extra(m->ctime, m->ctime_ns);
		in->i_mtime_extra = xtime_extra(m->mtime, m->mtime_ns);
		in->i_crtime = (uint32_t)m->crtime;
		in->i_crtime_extra = xtime_extra(m->crtime, m->crtime_ns);
	}
	err = ext2fs_write_inode_full(x->fs, ino, small, (int)x->isize);
	return ext4_errno(err);
}

/* Mark blocks used, one call per consecutive stretch. */
static void mark_range(ext2_filsys fs, uint64_t start, uint64_t len)
{
	while (len) {
		blk_t n = len > (1u << 30) ? (1u << 30) : (blk_t)len;

		ext2fs_block_alloc_stats_range(fs, start, n, +1);
		start += n;
		len -= n;
	}
}

static void mark_meta(ext2_filsys fs, const struct ext4_map *m)
{
	for (uint64_t i = 0; i < m->nmeta;) {
		uint64_t j = i + 1;

		while (j < m->nmeta && m->meta_blk[j] == m->meta_blk[j - 1] + 1)
			j++;
		mark_range(fs, m->meta_blk[i], j - i);
		i = j;
	}
}

/* Step 1: blocks per file; inline and empty files take none. */
static int size_files(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	uint64_t apb = x->bs / 4, max;

	max = x->extents ? UINT32_MAX : EXT2_NDIR_BLOCKS + apb + apb * apb + apb * apb * apb;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t size = pl->file_size[f];
		char path[PATH_MAX], name[NAME_MAX_LEN + 1], sz[32];

		if (size == 0 || (x->inline_ok && size <= EXT4_MIN_INLINE_DATA_SIZE)) {
			x->file_blocks[f] = 0;
			continue;
		}
		x->file_blocks[f] = (size + x->bs - 1) / x->bs;
		if (x->file_holes) {
			struct sparse_holes h;

			if (sparse_file_holes(pl, f, &h)) {
				/* holes are whole 64 KiB units: whole blocks of any size up to 64 KiB */
				x->file_lblocks[f] = x->file_blocks[f];
				x->file_blocks[f] -= h.bytes / x->bs;
				x->file_holes[f] = (uint8_t)h.n;
				x->sparse_files++;
				x->hole_blocks += h.bytes / x->bs;
			}
		}
		if ((x->file_lblocks && x->file_lblocks[f] > max) || x->file_blocks[f] > max) {
			plan_file_name(pl, f, name);
			fmt_bytes(sz, sizeof(sz), size);
			return set_err(
				x->b, -EFBIG,
				"file '%s' (%s) is larger than %s with %u-byte blocks allows",
				entry_path(x, pl->file_dir[f], name, path, sizeof(path)), sz,
				x->extents ? "ext4" : "the block map of ext2/3", x->bs);
		}
		if (pl->file_nlink && pl->file_nlink[f] > EXT2_LINK_MAX)
			return set_err(x->b, -EMLINK,
				       "file %" PRIu64 " has %u links; at most %u allowed", f,
				       pl->file_nlink[f], EXT2_LINK_MAX);
	}
	return 0;
}

static int new_inode(struct ext4_build *x, ext2_ino_t parent, int mode, ext2_ino_t *ino)
{
	errcode_t err = ext2fs_new_inode(x->fs, parent, mode, NULL, ino);

	if (err == EXT2_ET_INODE_ALLOC_FAIL)
		return set_err(
			x->b, -ENOSPC,
			"'%s' has %u inodes but the plan needs %" PRIu64
			" (directories, files and symlinks); give more with --mkfs-options '-N N'",
			x->st->target, x->fs->super->s_inodes_count,
			(uint64_t)EXT2_FIRST_INO(x->fs->super) + x->pl->ndirs + x->pl->nfiles +
				x->nsym);
	if (err)
		return set_err(x->b, ext4_errno(err), "cannot allocate an inode: %s",
			       error_message(err));
	ext2fs_inode_alloc_stats2(x->fs, *ino, +1, LINUX_S_ISDIR(mode));
	return 0;
}

/*
 * Step 2: inode numbers in a fixed order, each directory followed by its
 * files and symlinks, so numbers follow directory locality as under Orlov.
 */
static int alloc_inodes(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	uint64_t done = 0;
	int ret;

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		if (j == 0)
			x->dir_ino[0] = EXT2_ROOT_INO;
		else {
			ret = new_inode(x, x->dir_ino[pl->dir_parent[j]], LINUX_S_IFDIR,
					&x->dir_ino[j]);
			if (ret)
				return ret;
		}
		for (uint64_t f = pl->dir_first_file[j];
		     f < pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
			ret = new_inode(x, x->dir_ino[j], LINUX_S_IFREG, &x->file_ino[f]);
			if (!ret)
				ret = tick(x, ++done);
			if (ret)
				return ret;
		}
		for (uint32_t l = pl->dir_first_link[j];
		     l < pl->dir_first_link[j] + pl->dir_nlinks[j]; l++) {
			if (pl->link_kind[l] & LINK_HARD)
				continue;
			ret = new_inode(x, x->dir_ino[j], LINUX_S_IFLNK, &x->link_ino[l]);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* Step 3: directory shapes, and symlink blocks. */
static int shape_entries(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	char path[PATH_MAX];
	int ret;

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint64_t nd, total;

		ret = collect_entries(x, j);
		if (ret)
			return set_err(x->b, ret, "out of memory");
		ret = ext4_dir_shape(x->fs, x->ents.e, x->ents.n, &x->shape[j]);
		if (ret == -EFBIG)
			return set_err(
				x->b, ret,
				"directory '%s' has %zu entries, more than an htree of this file system holds (try -O large_dir)",
				entry_path(x, j, NULL, path, sizeof(path)), x->ents.n);
		if (ret)
			return set_err(x->b, ret, "cannot shape directory '%s': %s",
				       entry_path(x, j, NULL, path, sizeof(path)), strerror(-ret));
		nd = x->shape[j].nblocks;
		total = nd +
			ext4_map_meta_count(x->extents, x->bs, nd,
					    (nd + EXT4_MAP_MAX_EXTENT - 1) / EXT4_MAP_MAX_EXTENT);
		if (total > UINT32_MAX / 2)
			return set_err(x->b, -EFBIG, "directory '%s' is too large",
				       entry_path(x, j, NULL, path, sizeof(path)));
		x->dir_blocks[j] = (uint32_t)total;
		if (total > x->dcap)
			x->dcap = total;
		ret = tick(x, j + 1);
		if (ret)
			return ret;
	}
	for (uint32_t l = 0; l < pl->nlinks; l++) {
		int len;

		x->link_blocks[l] = 0;
		if (pl->link_kind[l] & LINK_HARD)
			continue;
		len = plan_symlink_target(pl, l, x->tbuf, x->bs);
		if (len < 0) {
			char name[NAME_MAX_LEN + 1];

			plan_link_name(pl, l, name);
			return set_err(x->b, -ENAMETOOLONG,
				       "the target of symlink '%s' is longer than a %u-byte block",
				       entry_path(x, pl->link_dir[l], name, path, sizeof(path)),
				       x->bs);
		}
		x->link_blocks[l] = len >= (int)sizeof(((struct ext2_inode *)0)->i_block);
	}
	x->druns = malloc((x->dcap ? x->dcap : 1) * sizeof(*x->druns));
	x->dmeta = malloc((x->dcap ? x->dcap : 1) * sizeof(*x->dmeta));
	if (!x->druns || !x->dmeta)
		return set_err(x->b, -ENOMEM, "out of memory");
	return 0;
}

static int old_root_block(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
			  int ref_offset, void *priv)
{
	(void)blockcnt;
	(void)ref_blk;
	(void)ref_offset;
	ext2fs_block_alloc_stats2(fs, *blocknr, -1);
	(void)priv;
	return 0;
}

/*
 * Step 4: the free map.  The root's old blocks go back first: the root is
 * rebuilt like any other directory at the layout's blocks.
 */
static int read_freemap(struct ext4_build *x, struct freemap *fm)
{
	ext2_filsys fs = x->fs;
	blk64_t blk = fs->super->s_first_data_block, last = ext2fs_blocks_count(fs->super) - 1;
	size_t cap = 256;
	errcode_t err;

	err = ext2fs_block_iterate3(fs, EXT2_ROOT_INO, BLOCK_FLAG_READ_ONLY, NULL, old_root_block,
				    NULL);
	if (err)
		return set_err(x->b, ext4_errno(err), "cannot read the root directory of '%s': %s",
			       x->st->target, error_message(err));
	memset(fm, 0, sizeof(*fm));
	fm->nblocks = ext2fs_blocks_count(fs->super);
	fm->first_data_block = fs->super->s_first_data_block;
	fm->blocks_per_group = fs->super->s_blocks_per_group;
	fm->ngroups = fs->group_desc_count;
	fm->flex_groups =
		ext2fs_has_feature_flex_bg(fs->super) ? 1u << fs->super->s_log_groups_per_flex : 1;
	fm->runs = malloc(cap * sizeof(*fm->runs));
	if (!fm->runs)
		return set_err(x->b, -ENOMEM, "out of memory");
	while (blk <= last) {
		blk64_t zero, set;

		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, blk, last, &zero))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero, last, &set))
			set = last + 1;
		if (fm->nruns == cap) {
			struct free_run *r = realloc(fm->runs, cap * 2 * sizeof(*r));

			if (!r) {
				free(fm->runs);
				fm->runs = NULL;
				return set_err(x->b, -ENOMEM, "out of memory");
			}
			fm->runs = r;
			cap *= 2;
		}
		fm->runs[fm->nruns].start = zero;
		fm->runs[fm->nruns].len = set - zero;
		fm->nruns++;
		blk = set;
	}
	return 0;
}

/*
 * Step 5: what the layout must place (the core builds it): the blocks of
 * every entry, this file system's block size, mapping and longest extent,
 * and a pool of spare blocks for metadata the request cannot foresee.
 */
static void fill_request(struct ext4_build *x, struct layout_request *rq)
{
	rq->pl = x->pl;
	rq->file_blocks = x->file_blocks;
	rq->dir_blocks = x->dir_blocks;
	rq->link_blocks = x->link_blocks;
	rq->file_holes = x->file_holes;
	rq->file_lblocks = x->file_lblocks;
	rq->block_size = x->bs;
	rq->mapping = x->extents ? LAYOUT_EXTENTS : LAYOUT_BLOCKMAP;
	rq->max_extent_len = EXT4_MAP_MAX_EXTENT;
	rq->pool_blocks = 64 + x->pl->ndirs / 64;
}

static int write_dir(struct ext4_build *x, uint32_t j)
{
	const struct plan *pl = x->pl;
	const struct ext4_dir_shape *sh = &x->shape[j];
	ext2_ino_t ino = x->dir_ino[j];
	ext2_ino_t parent = j ? x->dir_ino[pl->dir_parent[j]] : EXT2_ROOT_INO;
	uint64_t start = x->lo->dir_start[j], total = x->dir_blocks[j], off = 0;
	struct ext4_meta_src src = { 0 };
	struct plan_meta m;
	size_t nruns;
	uint64_t nmeta, links;
	char path[PATH_MAX];
	errcode_t err;
	int ret;

	ret = collect_entries(x, j);
	if (ret)
		return set_err(x->b, ret, "out of memory");
	ext4_map_place_dir(x->extents, x->bs, start, sh->nblocks, x->druns, &nruns, x->dmeta,
			   &nmeta);
	src.list = x->dmeta;
	src.len = nmeta;
	ret = ext4_map_build(&x->map, x->fs, x->druns, nruns, sh->nblocks, x->extents, &src);
	if (!ret && nmeta + sh->nblocks != total)
		ret = -EIO;
	if (ret)
		goto out_err;

	plan_dir_meta(pl, j, &m);
	links = 2 + (uint64_t)x->nsub[j] + (j == 0 && x->st->lpf_ino ? 1 : 0);
	if (links > EXT2_LINK_MAX) {
		if (!ext2fs_has_feature_dir_nlink(x->fs->super))
			return set_err(
				x->b, -EMLINK,
				"directory '%s' has %u subdirectories; without dir_nlink at most %u are allowed",
				entry_path(x, j, NULL, path, sizeof(path)), x->nsub[j],
				EXT2_LINK_MAX - 2);
		links = 1;
	}
	ret = write_inode(x, ino, &m, (uint32_t)links, (uint64_t)sh->nblocks * x->bs, total,
			  (x->extents ? EXT4_EXTENTS_FL : 0) | (sh->indexed ? EXT2_INDEX_FL : 0),
			  x->map.i_block);
	if (!ret)
		ret = ext4_map_write(&x->map, x->fs, ino);
	if (ret)
		goto out_err;

	ret = buf_reserve(x, (size_t)sh->nblocks * x->bs);
	if (ret)
		goto out_err;
	ret = ext4_dir_format(x->fs, ino, parent, x->ents.e, x->ents.n, sh, x->buf);
	if (ret)
		goto out_err;
	for (size_t r = 0; r < nruns; r++) {
		err = io_channel_write_blk64(x->fs->io, x->druns[r].pblk, (int)x->druns[r].len,
					     x->buf + off * x->bs);
		if (err) {
			ret = ext4_errno(err);
			goto out_err;
		}
		off += x->druns[r].len;
	}
	mark_range(x->fs, start, total);
	return 0;
out_err:
	return set_err(x->b, ret, "cannot write directory '%s': %s",
		       entry_path(x, j, NULL, path, sizeof(path)), strerror(-ret));
}

static int write_file(struct ext4_build *x, uint64_t f)
{
	const struct plan *pl = x->pl;
	ext2_ino_t ino = x->file_ino[f];
	uint64_t size = pl->file_size[f], nb = x->file_blocks[f];
	uint32_t links = pl->file_nlink ? pl->file_nlink[f] : 1;
	struct plan_meta m;
	char path[PATH_MAX], name[NAME_MAX_LEN + 1];
	errcode_t err;
	int ret;

	plan_file_meta(pl, f, &m);
	if (nb == 0 && size > 0) {
		/* inline: the bytes live in i_block, plus an empty system.data xattr */
		uint32_t i_block[EXT2_N_BLOCKS] = { 0 };

		ret = x->cs->fill(x->cs, f, 0, i_block, (size_t)size);
		if (!ret)
			ret = write_inode(x, ino, &m, links, size, 0, EXT4_INLINE_DATA_FL, i_block);
		if (!ret) {
			err = ext2fs_inline_data_init(x->fs, ino);
			ret = ext4_errno(err);
		}
	} else {
		struct ext4_meta_src src = { 0 };
		const struct layout_extent *runs = &x->lo->ext[x->lo->file_ext[f]];
		size_t nruns = (size_t)(x->lo->file_ext[f + 1] - x->lo->file_ext[f]);

		src.start = x->lo->file_meta[f];
		src.len = x->lo->file_nmeta[f];
		src.pool = &x->pool;
		if (nb == 0)
			nruns = 0;
		if (x->file_holes && x->file_holes[f]) {
			struct sparse_holes h;

			sparse_file_holes(pl, f, &h);
			ret = ext4_map_build_sparse(&x->map, x->fs, runs, nruns, nb, &h,
						    x->file_lblocks[f], x->extents, &src);
		} else {
			ret = ext4_map_build(&x->map, x->fs, runs, nruns, nb, x->extents, &src);
		}
		if (!ret)
			ret = write_inode(x, ino, &m, links, size, nb + x->map.nmeta,
					  x->extents ? EXT4_EXTENTS_FL : 0, x->map.i_block);
		if (!ret)
			ret = ext4_map_write(&x->map, x->fs, ino);
		if (!ret) {
			for (size_t r = 0; r < nruns; r++)
				mark_range(x->fs, runs[r].pblk, runs[r].len);
			mark_meta(x->fs, &x->map);
		}
	}
	if (ret) {
		plan_file_name(pl, f, name);
		return set_err(x->b, ret, "cannot write file '%s': %s",
			       entry_path(x, pl->file_dir[f], name, path, sizeof(path)),
			       ret == -ENOSPC ? "no blocks left for its mapping" : strerror(-ret));
	}
	x->meta_files++;
	return 0;
}

static int write_symlink(struct ext4_build *x, uint32_t l)
{
	const struct plan *pl = x->pl;
	ext2_ino_t ino = x->link_ino[l];
	uint32_t i_block[EXT2_N_BLOCKS] = { 0 };
	struct plan_meta m;
	char path[PATH_MAX], name[NAME_MAX_LEN + 1];
	errcode_t err;
	int len, ret;

	plan_link_meta(pl, l, &m);
	len = plan_symlink_target(pl, l, x->tbuf, x->bs);
	if (len < 0) {
		ret = len;
	} else if (!x->link_blocks[l]) {
		/* fast: the target in i_block, no mapping */
		memcpy(i_block, x->tbuf, (size_t)len);
		ret = write_inode(x, ino, &m, 1, (uint64_t)len, 0, 0, i_block);
	} else {
		struct layout_extent run = { x->lo->link_block[l], 1 };

		ret = ext4_map_build(&x->map, x->fs, &run, 1, 1, x->extents, NULL);
		if (!ret)
			ret = write_inode(x, ino, &m, 1, (uint64_t)len, 1,
					  x->extents ? EXT4_EXTENTS_FL : 0, x->map.i_block);
		if (!ret)
			ret = buf_reserve(x, x->bs);
		if (!ret) {
			memset(x->buf, 0, x->bs);
			memcpy(x->buf, x->tbuf, (size_t)len);
			err = io_channel_write_blk64(x->fs->io, run.pblk, 1, x->buf);
			ret = ext4_errno(err);
		}
		if (!ret)
			mark_range(x->fs, run.pblk, 1);
	}
	if (ret) {
		plan_link_name(pl, l, name);
		return set_err(x->b, ret, "cannot write symlink '%s': %s",
			       entry_path(x, pl->link_dir[l], name, path, sizeof(path)),
			       strerror(-ret));
	}
	return 0;
}

/* Step 7: every inode, directory block and mapping block, in inode order. */
static int write_metadata(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	uint64_t done = 0;
	int ret;

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		ret = write_dir(x, j);
		if (ret)
			return ret;
		for (uint64_t f = pl->dir_first_file[j];
		     f < pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
			ret = write_file(x, f);
			if (!ret)
				ret = tick(x, ++done);
			if (ret)
				return ret;
		}
		for (uint32_t l = pl->dir_first_link[j];
		     l < pl->dir_first_link[j] + pl->dir_nlinks[j]; l++) {
			if (pl->link_kind[l] & LINK_HARD)
				continue;
			ret = write_symlink(x, l);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static int build_init(struct ext4_build *x)
{
	const struct plan *pl = x->pl;
	ext2_filsys fs = x->fs;
	size_t nf = pl->nfiles ? (size_t)pl->nfiles : 1, nd = pl->ndirs ? pl->ndirs : 1;
	size_t nl = pl->nlinks ? pl->nlinks : 1;

	x->bs = fs->blocksize;
	x->extents = ext2fs_has_feature_extents(fs->super);
	x->isize = EXT2_INODE_SIZE(fs->super);
	x->extra = 0;
	if (x->isize > EXT2_GOOD_OLD_INODE_SIZE) {
		x->extra = sizeof(struct ext2_inode_large) - EXT2_GOOD_OLD_INODE_SIZE;
		if (x->extra > x->isize - EXT2_GOOD_OLD_INODE_SIZE)
			x->extra = x->isize - EXT2_GOOD_OLD_INODE_SIZE;
	}
	/* the system.data xattr needs in-inode space */
	x->inline_ok =
		ext2fs_has_feature_inline_data(fs->super) && x->isize > EXT2_GOOD_OLD_INODE_SIZE;
	for (uint32_t l = 0; l < pl->nlinks; l++)
		x->nsym += !(pl->link_kind[l] & LINK_HARD);

	x->dir_ino = calloc(nd, sizeof(*x->dir_ino));
	x->file_ino = calloc(nf, sizeof(*x->file_ino));
	x->link_ino = calloc(nl, sizeof(*x->link_ino));
	x->nsub = calloc(nd, sizeof(*x->nsub));
	x->shape = calloc(nd, sizeof(*x->shape));
	x->file_blocks = calloc(nf, sizeof(*x->file_blocks));
	x->dir_blocks = calloc(nd, sizeof(*x->dir_blocks));
	x->link_blocks = calloc(nl, sizeof(*x->link_blocks));
	if (sparse_enabled(pl)) {
		x->file_holes = calloc(nf, sizeof(*x->file_holes));
		x->file_lblocks = calloc(nf, sizeof(*x->file_lblocks));
		if (!x->file_holes || !x->file_lblocks)
			return set_err(x->b, -ENOMEM, "out of memory");
	}
	x->ibuf = calloc(1, x->isize);
	x->tbuf = malloc(x->bs);
	if (!x->dir_ino || !x->file_ino || !x->link_ino || !x->nsub || !x->shape ||
	    !x->file_blocks || !x->dir_blocks || !x->link_blocks || !x->ibuf || !x->tbuf)
		return set_err(x->b, -ENOMEM, "out of memory");
	for (uint32_t j = 1; j < pl->ndirs; j++)
		x->nsub[pl->dir_parent[j]]++;
	ext4_map_init(&x->map);
	return 0;
}

static void build_release(struct ext4_build *x)
{
	ext4_data_release(&x->data);
	ext4_map_release(&x->map);
	ents_release(&x->ents);
	free(x->dir_ino);
	free(x->file_ino);
	free(x->link_ino);
	free(x->nsub);
	free(x->shape);
	free(x->file_blocks);
	free(x->file_holes);
	free(x->file_lblocks);
	free(x->dir_blocks);
	free(x->link_blocks);
	free(x->ibuf);
	free(x->buf);
	free(x->druns);
	free(x->dmeta);
	free(x->tbuf);
}

/*
 * For the summary: the free space the block bitmap leaves (free extents
 * across groups, as e2freefrag counts them), in res->free, whose
 * chunk_blocks the core has set.
 */
static void report_free(const struct ext4_build *x, struct create_result *res)
{
	ext2_filsys fs = x->fs;
	blk64_t blk = fs->super->s_first_data_block, last = ext2fs_blocks_count(fs->super) - 1;

	while (blk <= last) {
		blk64_t zero, set;

		if (ext2fs_find_first_zero_block_bitmap2(fs->block_map, blk, last, &zero))
			break;
		if (ext2fs_find_first_set_block_bitmap2(fs->block_map, zero, last, &set))
			set = last + 1;
		layout_free_hist_add(&res->free, zero, set - zero);
		blk = set;
	}
}

static void build_free(struct ext4_state *st)
{
	if (!st->x)
		return;
	build_release(st->x);
	free(st->x);
	st->x = NULL;
}

/*
 * Steps 1 to 4: blocks per file, inode numbers, directory shapes, the free
 * map; then the request for the core's layout.
 */
static int ext4_layout_request(struct backend *b, const struct plan *pl, struct layout_request *rq,
			       struct freemap *fm)
{
	struct ext4_state *st = b->priv;
	struct ext4_build *x;
	int ret;

	if (!st || !st->fs)
		return set_err(b, -EINVAL, "the ext4 backend was not opened");
	if (st->x)
		return set_err(b, -EINVAL, "the layout may be requested only once");
	x = calloc(1, sizeof(*x));
	if (!x)
		return set_err(b, -ENOMEM, "out of memory");
	st->x = x;
	x->b = b;
	x->st = st;
	x->fs = st->fs;
	x->pl = pl;
	x->data.fd = -1;
	ret = build_init(x);
	if (!ret)
		ret = size_files(x);
	if (!ret)
		ret = alloc_inodes(x);
	if (!ret)
		ret = shape_entries(x);
	if (!ret)
		ret = read_freemap(x, fm);
	if (!ret)
		fill_request(x, rq);
	return ret;
}

/* Steps 6 and 7: file data on worker threads while this one writes the metadata. */
static int write_all(struct ext4_build *x)
{
	struct ext4_state *st = x->st;
	struct backend *b = x->b;
	int ret, data_ret;

	ret = ext4_data_init(&x->data, x->pl, x->lo, x->file_blocks, x->bs);
	if (ret)
		return set_err(b, ret,
			       ret == -EINVAL ? "the layout's runs do not match the files' blocks" :
						"out of memory");
	ret = ext4_data_start(&x->data, x->cs, st->data_fd, st->jobs, st->cancel);
	if (ret)
		return set_err(b, ret, "cannot start the data writers: %s", strerror(-ret));
	ret = write_metadata(x);
	while (!ret && ext4_data_wait(&x->data, EXT4_WAIT_MS)) {
		if (cancelled(st))
			ret = set_err(b, -EINTR, "interrupted");
		else
			progress(x);
	}
	data_ret = ext4_data_join(&x->data, ret);
	if (!ret && data_ret) {
		ret = data_ret;
		if (ret == -EINTR)
			set_err(b, ret, "interrupted");
		else
			set_err(b, ret, "cannot write file data to '%s': %s", st->target,
				strerror(-ret));
	}
	return ret;
}

static int ext4_populate(struct backend *b, const struct plan *pl, const struct layout *lo,
			 const struct content_source *cs, struct create_result *res)
{
	struct ext4_state *st = b->priv;
	struct ext4_build *x = st ? st->x : NULL;
	uint64_t data_blocks = 0;
	int ret;

	if (!x || x->pl != pl)
		return set_err(b, -EINVAL, "the ext4 backend populates only the plan it laid out");
	if (st->populated)
		return set_err(b, -EINVAL, "populate may run only once");
	x->lo = lo;
	x->cs = cs;
	x->pool.start = lo->pool_start;
	x->pool.len = lo->pool_len;
	x->pool.used = 0;
	ret = write_all(x);
	if (ret)
		goto out_release;
	progress(x);
	/* "Lifetime writes" counts what went around libext2fs too, as the kernel's would */
	for (uint64_t f = 0; f < pl->nfiles; f++)
		data_blocks += x->file_blocks[f];
	x->fs->super->s_kbytes_written += data_blocks * x->bs / 1024;
	ext2fs_mark_super_dirty(x->fs);

	res->files = pl->nfiles;
	res->dirs = pl->ndirs;
	res->links = pl->nlinks;
	res->bytes = pl->bytes;
	res->block_size = x->bs;
	res->blocks_used = ext2fs_blocks_count(x->fs->super) - ext2fs_free_blocks_count(x->fs->super);
	res->sparse_files = x->sparse_files;
	res->hole_blocks = x->hole_blocks;
	report_free(x, res);
	res->seconds = elapsed(&st->t0);
	st->populated = 1;
out_release:
	build_free(st);
	return ret;
}

/* ------------------------------------------------------------------------ */
/* Ending */

static int ext4_finish(struct backend *b)
{
	struct ext4_state *st = b->priv;
	errcode_t err;
	int ret = 0;

	if (!st)
		return set_err(b, -EINVAL, "the ext4 backend was not opened");
	build_free(st);
	if (st->fs) {
		/* superblock, group descriptors, bitmaps; then fsync */
		err = ext2fs_close2(st->fs, 0);
		if (err) {
			ret = set_err(b, ext4_errno(err),
				      "cannot write the file system to '%s': %s", st->target,
				      error_message(err));
			ext2fs_free(st->fs);
		}
		st->fs = NULL;
	}
	if (!ret && fsync(st->data_fd) != 0)
		ret = set_err(b, -errno, "cannot sync '%s': %s", st->target, strerror(errno));
	/* on failure the descriptor stays for abort(), which wipes the superblock */
	if (ret)
		return ret;
	ret = close(st->data_fd);
	st->data_fd = -1;
	if (ret != 0)
		return set_err(b, -errno, "cannot close '%s': %s", st->target, strerror(errno));
	free(st->target);
	free(st);
	b->priv = NULL;
	return 0;
}

static void ext4_abort(struct backend *b)
{
	struct ext4_state *st = b->priv;

	if (!st)
		return;
	build_free(st);
	/* no ext2fs_close: the bitmaps and descriptors of this run stay unwritten */
	if (st->fs)
		ext2fs_free(st->fs);
	st->fs = NULL;
	if (st->data_fd >= 0) {
		/* what mke2fs made here must not pass for a finished image */
		if (st->formatted)
			wipe_super(st->data_fd);
		close(st->data_fd);
	}
	free(st->target);
	free(st);
	b->priv = NULL;
}

static const char *const ext4_fs_names[] = { "ext2", "ext3", "ext4", NULL };

const struct backend_ops ext4_backend_ops = {
	.name = "ext4",
	.caps = BACKEND_PLACES_BLOCKS | BACKEND_FORMATS | BACKEND_MEASURES,
	.targets = BACKEND_TARGET_FILE | BACKEND_TARGET_DEVICE,
	.options = BACKEND_OPT_MKFS_OPTIONS | BACKEND_OPT_NO_FORMAT,
	.fs_names = ext4_fs_names,
	.estimate = ext4_estimate,
	.open = ext4_open,
	.layout_request = ext4_layout_request,
	.populate = ext4_populate,
	.finish = ext4_finish,
	.abort = ext4_abort,
};
