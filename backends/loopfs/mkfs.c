/* mkfs.c - the loopfs backend's mkfs.<fs> run: arguments that make the result as reproducible as the tool allows */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/loopfs/loopfs.h"
#include "model/params.h"
#include "util/spawn.h"

#define MAX_ARGS 64

/* The arguments for st->fs that come before the user's: quiet, forced, the configuration's UUID. */
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

int lfs_mkfs(struct lfs_state *st, const struct params *p, const char *on)
{
	char *argv[MAX_ARGS + 8], prog[32], uuid[37], uuidopt[48], err[1024];
	char *opts = strdup(st->o->mkfs_options ? st->o->mkfs_options : "");
	size_t n = 0;
	int status = 0, ret;

	if (!opts)
		return lfs_err(st, -ENOMEM, "out of memory");
	params_fs_uuid(p, "loopfs_uuid", uuid); /* not the ext4 backend's stream */
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
	argv[n++] = (char *)on;
	argv[n] = NULL;
	ret = spawn_capture(argv, NULL, NULL, err, sizeof(err), &status);
	if (ret == -ENOENT) { /* as a shell says it: the message below names the package */
		status = 127 << 8;
		ret = 0;
	}
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
