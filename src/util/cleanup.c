/* cleanup.c - temporaries and mount points removed on every way out: signals that can be caught, and SIGKILL */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/util.h"

/*
 * One tracked path.  The table lives in memory shared with the watcher, so
 * that what is tracked at imprint's death is what the watcher removes; the
 * handler reads it too, so a slot is filled before it is marked used.
 */
struct cleanup_slot {
	volatile sig_atomic_t used;
	int kind;
	char path[PATH_MAX];
};

static struct cleanup_slot *slots;
/* The signals whose handler removes what is tracked; the watcher covers the rest. */
static const int caught[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };

/* Remove what the table holds; async-signal-safe (umount2, rmdir and unlink are system calls). */
static void remove_tracked(void)
{
	for (int i = 0; i < CLEANUP_SLOTS; i++) {
		if (!slots[i].used)
			continue;
		if (slots[i].kind == CLEANUP_MOUNT) {
			umount2(slots[i].path, MNT_DETACH | UMOUNT_NOFOLLOW);
			rmdir(slots[i].path);
		} else {
			unlink(slots[i].path);
		}
		slots[i].used = 0;
	}
}

static void on_signal(int sig)
{
	int saved = errno;

	remove_tracked();
	errno = saved;
	/* SA_RESETHAND restored the default: the signal kills once the handler returns */
	raise(sig);
}

/* Catch the signals that were not ignored (nohup's SIGHUP stays ignored). */
static void install_handlers(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESETHAND;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		if (sigaction(caught[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(caught[i], &sa, NULL);
}

/*
 * Every descriptor from first up but keep closed: close_range(2), two calls
 * (a loop over the limit, 20,000 here, cost 25 ms of CPU on every start;
 * it stays for kernels before 5.9).
 */
static void close_from(int first, int keep)
{
#ifdef SYS_close_range
	if ((keep <= first || !syscall(SYS_close_range, first, keep - 1, 0)) &&
	    !syscall(SYS_close_range, MAX(first, keep + 1), ~0U, 0))
		return;
#endif
	for (int fd = first, max = (int)sysconf(_SC_OPEN_MAX); fd < (max > 0 ? max : 1024); fd++)
		if (fd != keep)
			close(fd);
}

/* The watcher: waits for the pipe's end (imprint gone, however), then removes what is left. */
static void watch(int rfd)
{
	ssize_t n;
	char c;
	int null = open("/dev/null", O_RDWR);

	/* hold nothing of imprint's: not its image, its loop device nor its terminal */
	for (int fd = 0; fd < 3; fd++)
		dup2(null, fd);
	close_from(3, rfd);
	setsid(); /* the terminal's ^C and hang-up are for imprint, not for us */
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++)
		signal(caught[i], SIG_IGN);
	do
		n = read(rfd, &c, 1);
	while (n < 0 && errno == EINTR);
	remove_tracked();
	_exit(0);
}

/*
 * Start the watcher, a grandchild so that imprint never waits for it: it
 * keeps the read end of a pipe whose write end only imprint holds
 * (close-on-exec, so not the programs imprint runs either).
 */
static int start_watcher(void)
{
	int pfd[2], status;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC) != 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int ret = -errno;

		close(pfd[0]);
		close(pfd[1]);
		return ret;
	}
	if (pid == 0) {
		close(pfd[1]);
		if (fork() == 0)
			watch(pfd[0]);
		_exit(0);
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return 0; /* pfd[1] stays open until imprint ends */
}

static int setup(void)
{
	void *p;

	if (slots)
		return 0;
	p = mmap(NULL, CLEANUP_SLOTS * sizeof(*slots), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	slots = p;
	install_handlers();
	return start_watcher();
}

int cleanup_start(void)
{
	return setup();
}

int cleanup_track(const char *path, enum cleanup_kind kind)
{
	int ret = setup();

	if (ret && !slots)
		return ret;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	for (int i = 0; i < CLEANUP_SLOTS; i++) {
		if (slots[i].used)
			continue;
		slots[i].kind = kind;
		memcpy(slots[i].path, path, strlen(path) + 1);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		slots[i].used = 1;
		return ret;
	}
	return -ENOSPC;
}

void cleanup_untrack(const char *path)
{
	if (!slots || !path)
		return;
	for (int i = 0; i < CLEANUP_SLOTS; i++)
		if (slots[i].used && strcmp(slots[i].path, path) == 0)
			slots[i].used = 0;
}

void cleanup_test_pause(const char *point)
{
	const char *at = getenv("IMPRINT_TEST_PAUSE_AT");

	if (at && strcmp(at, point) == 0)
		raise(SIGSTOP);
}

int cleanup_test_fail(const char *point)
{
	const char *at = getenv("IMPRINT_TEST_FAIL_AT");

	return at && strcmp(at, point) == 0;
}

volatile sig_atomic_t cleanup_caught;

/* The signals a cancellable run catches, and the handlers they had before. */
static const int cancel_sigs[] = { SIGINT, SIGTERM, SIGHUP };
static struct sigaction cancel_old[sizeof(cancel_sigs) / sizeof(cancel_sigs[0])];

static void on_cancel(int sig)
{
	cleanup_caught = sig;
}

void cleanup_cancel_begin(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_cancel;
	sigemptyset(&sa.sa_mask);
	cleanup_caught = 0;
	for (size_t i = 0; i < sizeof(cancel_sigs) / sizeof(cancel_sigs[0]); i++)
		sigaction(cancel_sigs[i], &sa, &cancel_old[i]);
}

void cleanup_cancel_end(void)
{
	for (size_t i = 0; i < sizeof(cancel_sigs) / sizeof(cancel_sigs[0]); i++)
		sigaction(cancel_sigs[i], &cancel_old[i], NULL);
}

const char *cleanup_signal_name(int sig)
{
	return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP"
									     : "a signal";
}
