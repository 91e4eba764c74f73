/* format.c - mke2fs with imprint's own configuration, UUIDs and times from the seed */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/ext4/estimate.h"
#include "backends/ext4/format.h"
#include "backends/ext4/state.h"
#include "util/rng.h"
#include "util/strutil.h"
#include "util/util.h"

extern char **environ;

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

/*
 * imprint's own mke2fs.conf, so that an image does not depend on the
 * host's /etc/mke2fs.conf: 4 KiB blocks and 256-byte inodes at every size,
 * and each file system's usual features.  The usage types mke2fs looks up
 * by size (floppy, small, default, big, huge) are defined, each with the
 * values of [defaults], only so that mke2fs does not warn about them.
 * --mkfs-options still override any of it.
 */
/* A usage type with the values of [defaults]: the same file system, no warning. */
#define USAGE_TYPE(name)                                                                 \
	"\t" name " = {\n\t\tblocksize = 4096\n\t\tinode_size = 256\n\t\tinode_ratio = 16384\n\t}\n"

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
	"\t}\n"
	USAGE_TYPE("floppy") USAGE_TYPE("small") USAGE_TYPE("default") USAGE_TYPE("big")
	USAGE_TYPE("huge");

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
	for (size_t i = 0; ret == ENOENT && i < ARRAY_SIZE(fallback); i++)
		ret = posix_spawn(&pid, fallback[i], &fa, NULL, argv, env);
	if (ret) {
		ret = -ret;
		goto out_destroy_fa;
	}
	close(pfd[1]);
	pfd[1] = -1;
	errbuf_read_fd(err, err_len, pfd[0]);
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
 * spawn_wait() of mke2fs; a device the core holds is released for it (it
 * claims the device itself) and taken back after.  -EBUSY, with the
 * message set, when another program claimed it meanwhile.
 */
static int run_mke2fs(struct backend *b, const struct create_opts *o, char **argv, char **env,
		      char *err, size_t err_len, int *status)
{
	int ret, ret2;

	if (o->claim)
		o->claim(o->claim_ctx, 0);
	ret = spawn_wait(argv, env, err, err_len, status);
	ret2 = o->claim ? o->claim(o->claim_ctx, 1) : 0;
	if (ret2 == -EBUSY)
		return ext4_set_err(b, -EBUSY,
				    "another program claimed '%s' while mke2fs ran; it was left as it is",
				    o->target);
	if (ret2 && !ret)
		return ext4_set_err(b, ret2, "cannot claim '%s' again after mke2fs: %s", o->target,
				    strerror(-ret2));
	return ret;
}

/* Lines of mke2fs output kept for a failure's message: its last ones that say something. */
#define MKE2FS_ERR_LINES 3

/*
 * The meaningful lines of mke2fs's output in out, the last MKE2FS_ERR_LINES
 * of them joined by "; ": no blank lines, no warnings (a warning is not why
 * it failed), no "mke2fs: " prefix.
 */
static void mke2fs_error_lines(char *text, char *out, size_t len)
{
	char *line[MKE2FS_ERR_LINES], *save = NULL;
	size_t n = 0, at = 0;

	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		l += strspn(l, " \t");
		if (!*l || strncmp(l, "Warning:", 8) == 0 || strncmp(l, "mke2fs 1.", 9) == 0)
			continue;
		if (strncmp(l, "mke2fs: ", 8) == 0)
			l += 8;
		if (n == MKE2FS_ERR_LINES) {
			memmove(line, line + 1, (n - 1) * sizeof(*line));
			n--;
		}
		line[n++] = l;
	}
	out[0] = '\0';
	for (size_t i = 0; i < n && at < len; i++)
		at += (size_t)snprintf(out + at, len - at, "%s%s", i ? "; " : "", line[i]);
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
int ext4_format(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	const struct params *p = &pl->prm;
	char uuid[37], hseed[37], inodes[32], timeenv[64], err[EXT4_MKE2FS_ERRMAX];
	char conf[PATH_MAX + 16] = "MKE2FS_CONFIG=";
	int have_conf = 0;
	char *opts = NULL, *ext = NULL, **argv = NULL, **env = NULL;
	size_t nuser = 0, ext_len, n = 0;
	uint64_t need;
	int user_inodes = 0, status = 0, ret = -ENOMEM;

	need = ext4_inodes_wanted(pl);
	if (need > UINT32_MAX)
		return ext4_set_err(b, -EFBIG,
				    "the plan needs %" PRIu64 " inodes; ext4 allows at most %u",
				    need, UINT32_MAX);
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
				ret = ext4_set_err(b, -EINVAL,
						   "--mkfs-options: '-E' needs a value");
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
		ext4_set_err(b, ret, "cannot write a temporary mke2fs.conf: %s", strerror(-ret));
		goto out_free;
	}
	have_conf = 1;
	ret = -ENOMEM;
	env = mke2fs_env(p->time_ref, timeenv, sizeof(timeenv), conf);
	if (!env)
		goto out_free;
	ret = run_mke2fs(b, o, argv, env, err, sizeof(err), &status);
	if (ret && b->errmsg[0]) /* the device was claimed by another program meanwhile */
		goto out_free;
	if (ret) {
		ext4_set_err(b, ret, "cannot run mke2fs: %s (install e2fsprogs)", strerror(-ret));
		goto out_free;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char msg[EXT4_MKE2FS_ERRMAX];

		mke2fs_error_lines(err, msg, sizeof(msg));
		ret = ext4_set_err(b, -EIO, "mke2fs failed on '%s' (%s %d)%s%s", o->target,
				   WIFEXITED(status) ? "exit" : "signal",
				   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status),
				   msg[0] ? ": " : "", msg);
		goto out_free;
	}
	ret = 0;
out_free:
	if (ret == -ENOMEM && !b->errmsg[0])
		ext4_set_err(b, ret, "out of memory");
	if (have_conf)
		unlink(conf + 14);
	free(env);
	free(argv);
	free(ext);
	free(opts);
	return ret;
}

/* Zero the primary superblock: best effort, for a run that did not finish. */
void ext4_wipe_super(int fd)
{
	static const unsigned char zero[SUPERBLOCK_SIZE];
	ssize_t w = pwrite(fd, zero, sizeof(zero), SUPERBLOCK_OFFSET);

	(void)w;
}
