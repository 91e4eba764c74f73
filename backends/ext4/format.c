/* format.c - mke2fs with imprint's own configuration, UUIDs from the configuration and seed, times from the plan */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/ext4/estimate.h"
#include "backends/ext4/format.h"
#include "backends/ext4/state.h"
#include "util/cleanup.h"
#include "util/rng.h"
#include "util/spawn.h"
#include "util/util.h"

extern char **environ;

/* ------------------------------------------------------------------------ */
/* Formatting */

static const char *fs_name(enum ext4_kind k)
{
	return k == EXT4_KIND_EXT2 ? "ext2" : k == EXT4_KIND_EXT3 ? "ext3" : "ext4";
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

/*
 * mke2fs_conf where mke2fs can read it, its path into path (PATH_MAX): a
 * memory file mke2fs inherits (/proc/self/fd/N), which nothing can leave
 * behind, not even SIGKILL; else a temporary file, tracked for removal on
 * a signal (*named set).  The descriptor to close after mke2fs, or -errno.
 */
static int write_mke2fs_conf(char *path, size_t len, int *named)
{
	const char *dir = getenv("TMPDIR");
	size_t n = sizeof(mke2fs_conf) - 1;
	int fd;

	*named = 0;
	fd = memfd_create("imprint-mke2fs.conf", 0); /* not close-on-exec: mke2fs opens it */
	if (fd >= 0) {
		snprintf(path, len, "/proc/self/fd/%d", fd);
		if (access(path, R_OK) != 0) { /* no /proc */
			close(fd);
			fd = -1;
		}
	}
	if (fd < 0) {
		snprintf(path, len, "%s/imprint-mke2fs.XXXXXX", dir && *dir ? dir : "/tmp");
		fd = mkostemp(path, O_CLOEXEC);
		if (fd < 0)
			return -errno;
		cleanup_track(path, CLEANUP_FILE);
		*named = 1;
	}
	if (write(fd, mke2fs_conf, n) != (ssize_t)n) {
		int ret = errno ? -errno : -EIO;

		close(fd);
		if (*named) {
			unlink(path);
			cleanup_untrack(path);
		}
		return ret;
	}
	return fd;
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

/* Where mke2fs is when PATH (a user's, without the sbin directories) lacks it. */
static const char *const mke2fs_paths[] = { "/usr/sbin/mke2fs", "/sbin/mke2fs", NULL };

/*
 * spawn_capture() of mke2fs; a device the core holds is released for it (it
 * claims the device itself) and taken back after.  -EBUSY, with the
 * message set, when another program claimed it meanwhile.
 */
static int run_mke2fs(struct backend *b, const struct create_opts *o, char **argv, char **env,
		      char *err, size_t err_len, int *status)
{
	int ret, ret2;

	if (o->claim)
		o->claim(o->claim_ctx, 0);
	ret = spawn_capture(argv, env, mke2fs_paths, err, err_len, status);
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
 * -N is ext4_inodes_count(): mke2fs's own count for this size (its usage
 * types' inode_ratio), at least what the plan needs, or the user's.
 *
 * Determinism: the UUID ('uuid', or params_fs_uuid's "uuid" stream) and
 * the directory hash seed come from params_identity() (the configuration
 * and the seed), and E2FSPROGS_FAKE_TIME (the plan's
 * time_ref) gives s_mkfs_time, s_lastcheck, s_wtime and the times of the
 * root, lost+found, resize and journal inodes.  With these, mke2fs 1.47
 * writes the same bytes every run (checked with sha256 for ext2, ext3,
 * ext4 and metadata_csum_seed, orphan_file, inline_data, ^has_journal):
 * the internal journal's superblock takes the file system's UUID,
 * s_checksum_seed (metadata_csum_seed only) derives from the UUID, and
 * lazy_itable_init=0 writes every inode table (on a block device, free
 * blocks keep what was there: nodiscard).  Nothing needs fixing; our own
 * libext2fs writes take fs->now = time_ref, inode generations are 0, and
 * s_kbytes_written adds to mke2fs's count the blocks imprint put in use
 * (ext4_finish(); not libext2fs' I/O statistics, which follow its cache).  mke2fs reads
 * imprint's own mke2fs.conf (MKE2FS_CONFIG), not the host's; the bytes do
 * depend on the e2fsprogs version.
 */
int ext4_format(struct backend *b, const struct create_opts *o, const struct plan *pl)
{
	const struct params *p = &pl->prm;
	char uuid[37], hseed[37], inodes[32], timeenv[64], err[EXT4_MKE2FS_ERRMAX], kib[32];
	char conf[PATH_MAX + 16] = "MKE2FS_CONFIG=";
	int conf_fd = -1, conf_named = 0;
	char *opts = NULL, *ext = NULL, **argv = NULL, **env = NULL;
	size_t nuser = 0, ext_len, n = 0;
	uint64_t need, count;
	int set, user_inodes = 0, status = 0, ret = -ENOMEM;

	need = ext4_inodes_wanted(pl);
	if (need > UINT32_MAX)
		return ext4_set_err(b, -EFBIG,
				    "the plan needs %" PRIu64 " inodes; ext4 allows at most %u",
				    need, UINT32_MAX);
	count = ext4_inodes_count(pl, o->fs_size ? o->fs_size : p->size, &set);
	if (count < need)
		return ext4_set_err(b, -EINVAL,
				    "%s gives %" PRIu64 " inodes but the plan needs %" PRIu64
				    " (its entries and room to place them); raise it, or leave 'inodes' and 'inode_ratio' 0",
				    p->inodes ? "'inodes'" : "'inode_ratio'", count, need);
	if (count > UINT32_MAX)
		count = UINT32_MAX;
	params_fs_uuid(p, "uuid", uuid);
	rng_uuid(params_identity(p), "hash_seed", hseed);
	snprintf(inodes, sizeof(inodes), "%" PRIu64, count);

	opts = strdup(o->mkfs_options ? o->mkfs_options : "");
	if (!opts)
		goto out_free;
	ext_len = strlen(opts) + 160;
	ext = malloc(ext_len);
	argv = calloc(strlen(opts) / 2 + 20, sizeof(*argv));
	if (!ext || !argv)
		goto out_free;
	snprintf(ext, ext_len, "hash_seed=%s,lazy_itable_init=0,nodiscard", hseed);
	if (o->offset) /* a partition: mke2fs writes there, as large as the partition says */
		snprintf(ext + strlen(ext), ext_len - strlen(ext), ",offset=%" PRIu64, o->offset);
	snprintf(kib, sizeof(kib), "%" PRIu64 "k", o->fs_size / 1024);

	argv[n++] = "mke2fs";
	argv[n++] = "-q";
	argv[n++] = "-F";
	argv[n++] = "-t";
	argv[n++] = (char *)fs_name(ext4_kind_of(p));
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
	if (o->offset)
		argv[n++] = kib;
	argv[n] = NULL;

	conf_fd = write_mke2fs_conf(conf + 14, sizeof(conf) - 14, &conf_named);
	if (conf_fd < 0) {
		ret = conf_fd;
		ext4_set_err(b, ret, "cannot write a temporary mke2fs.conf: %s", strerror(-ret));
		goto out_free;
	}
	cleanup_test_pause("mke2fs");
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
	if (conf_fd >= 0)
		close(conf_fd);
	if (conf_named) {
		unlink(conf + 14);
		cleanup_untrack(conf + 14);
	}
	free(env);
	free(argv);
	free(ext);
	free(opts);
	return ret;
}

/* Zero the primary superblock: best effort, for a run that did not finish. */
void ext4_wipe_super(int fd, uint64_t offset)
{
	static const unsigned char zero[SUPERBLOCK_SIZE];
	ssize_t w = pwrite(fd, zero, sizeof(zero), (off_t)(offset + SUPERBLOCK_OFFSET));

	(void)w;
}
