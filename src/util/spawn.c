/* spawn.c - run a program and keep what it printed, for the tools imprint calls (mke2fs, qemu-img) */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <string.h>

#include "util/spawn.h"
#include "util/strutil.h"

extern char **environ;

int spawn_capture(char **argv, char **env, const char *const *fallback, char *err, size_t err_len,
		  int *status)
{
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
	/* both streams: tools like mke2fs -q print nothing unless they fail, on either */
	ret = posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	if (!ret)
		ret = posix_spawn_file_actions_adddup2(&fa, pfd[1], 2);
	if (ret) {
		ret = -ret;
		goto out_destroy_fa;
	}
	ret = posix_spawnp(&pid, argv[0], &fa, NULL, argv, env ? env : environ);
	for (size_t i = 0; ret == ENOENT && fallback && fallback[i]; i++)
		ret = posix_spawn(&pid, fallback[i], &fa, NULL, argv, env ? env : environ);
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

/* Whether path is an executable regular file. */
static int executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

int spawn_find(const char *name, const char *const *fallback)
{
	const char *path = getenv("PATH"), *at, *end;
	char full[PATH_MAX];

	if (strchr(name, '/'))
		return executable(name) ? 0 : -ENOENT;
	/* posix_spawnp's search when PATH is unset */
	if (!path)
		path = "/bin:/usr/bin";
	for (at = path; ; at = end + 1) {
		size_t n;

		end = strchr(at, ':');
		n = end ? (size_t)(end - at) : strlen(at);
		/* an empty entry is the current directory */
		if (snprintf(full, sizeof(full), "%.*s%s%s", (int)n, at, n ? "/" : "", name) <
			    (int)sizeof(full) &&
		    executable(full))
			return 0;
		if (!end)
			break;
	}
	for (size_t i = 0; fallback && fallback[i]; i++)
		if (executable(fallback[i]))
			return 0;
	return -ENOENT;
}
