/* mkfs.c - the loopfs backend's mkfs.<fs> run: arguments that make the result as reproducible as the tool allows */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/loopfs/loopfs.h"
#include "util/rng.h"
#include "util/strutil.h"

#define MAX_ARGS 64

/* A version 4 UUID drawn from seed (not the ext4 backend's: another stream). */
static void seed_uuid(uint64_t seed, char out[37])
{
	unsigned char u[16];
	struct rng r;

	rng_init(&r, seed, "loopfs_uuid", 0);
	for (int i = 0; i < 16; i += 8) {
		uint64_t v = rng_next(&r);

		for (int k = 0; k < 8; k++)
			u[i + k] = (unsigned char)(v >> (8 * k));
	}
	u[6] = (u[6] & 0x0f) | 0x40;
	u[8] = (u[8] & 0x3f) | 0x80;
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12],
		 u[13], u[14], u[15]);
}

/* Run argv, its stderr (the first len - 1 bytes) into err; *status as from waitpid. */
static int run(char *const *argv, char *err, size_t len, int *status)
{
	int pipefd[2], ret = 0;
	pid_t pid;

	err[0] = '\0';
	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		ret = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return ret;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(pipefd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pipefd[1]);
	errbuf_read_fd(err, len, pipefd[0]);
	close(pipefd[0]);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/* The arguments for st->fs that come before the user's: quiet, forced, the seed's UUID. */
static int base_args(struct lfs_state *st, char **argv, size_t *n, char *prog, size_t plen,
		     char *uuidopt, size_t ulen, const char *uuid)
{
	snprintf(prog, plen, "mkfs.%s", st->fs);
	argv[(*n)++] = prog;
	argv[(*n)++] = "-f";
	if (!strcmp(st->fs, "xfs")) {
		argv[(*n)++] = "-q";
		argv[(*n)++] = "-m";
		snprintf(uuidopt, ulen, "uuid=%s", uuid);
		argv[(*n)++] = uuidopt;
	} else if (!strcmp(st->fs, "btrfs")) {
		argv[(*n)++] = "-q";
		argv[(*n)++] = "-U";
		snprintf(uuidopt, ulen, "%s", uuid);
		argv[(*n)++] = uuidopt;
	} else if (!strcmp(st->fs, "f2fs")) {
		argv[(*n)++] = "-q";
	} else {
		return lfs_err(st, -EINVAL,
			       "the loopfs backend cannot make %s; expected xfs, btrfs or f2fs",
			       st->fs);
	}
	return 0;
}

/* Say why mkfs failed: its first line of stderr, or that it is missing. */
static int mkfs_failed(struct lfs_state *st, const char *prog, int status, char *err)
{
	char *msg = err + strspn(err, " \t\n"), *nl = strchr(msg, '\n');

	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return lfs_err(st, -ENOENT, "cannot run %s: not found (install %s)", prog,
			       !strcmp(st->fs, "xfs")	? "xfsprogs" :
			       !strcmp(st->fs, "btrfs") ? "btrfs-progs" :
							  "f2fs-tools");
	if (nl)
		*nl = '\0';
	if (WIFEXITED(status))
		return lfs_err(st, -EIO, "%s failed on '%s' (exit %d)%s%s", prog, st->o->target,
			       WEXITSTATUS(status), msg[0] ? ": " : "", msg);
	return lfs_err(st, -EIO, "%s was killed by signal %d", prog, WTERMSIG(status));
}

int lfs_mkfs(struct lfs_state *st, uint64_t seed)
{
	char *argv[MAX_ARGS + 8], prog[32], uuid[37], uuidopt[48], err[1024];
	char *opts = strdup(st->o->mkfs_options ? st->o->mkfs_options : "");
	size_t n = 0;
	int status = 0, ret;

	if (!opts)
		return lfs_err(st, -ENOMEM, "out of memory");
	seed_uuid(seed, uuid);
	ret = base_args(st, argv, &n, prog, sizeof(prog), uuidopt, sizeof(uuidopt), uuid);
	if (ret)
		goto out;
	for (char *save = NULL, *tok = strtok_r(opts, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (n >= MAX_ARGS) {
			ret = lfs_err(st, -E2BIG, "--mkfs-options: more than %d arguments",
				      MAX_ARGS - 8);
			goto out;
		}
		argv[n++] = tok;
	}
	argv[n++] = (char *)st->o->target;
	argv[n] = NULL;
	ret = run(argv, err, sizeof(err), &status);
	if (ret) {
		ret = lfs_err(st, ret, "cannot run %s: %s", prog, strerror(-ret));
		goto out;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		ret = mkfs_failed(st, prog, status, err);
out:
	free(opts);
	return ret;
}
