/* cleanup.h - temporaries and mount points removed on every way out: signals that can be caught, and SIGKILL */
#ifndef IMPRINT_UTIL_CLEANUP_H
#define IMPRINT_UTIL_CLEANUP_H

#include <signal.h>

/* What a tracked path is, so the cleanup knows how to remove it. */
enum cleanup_kind {
	CLEANUP_FILE,  /* unlink */
	CLEANUP_MOUNT, /* a mount point of ours: detach what is mounted there, then rmdir */
};

/*
 * Remove path (kind) if imprint dies before cleanup_untrack(path): on
 * SIGINT, SIGTERM, SIGHUP and SIGPIPE (a handler removes it, then the
 * signal kills as before; a signal the caller ignored stays ignored), and
 * on anything else (SIGKILL included) through a small watcher process that
 * removes what is still tracked once imprint is gone.  At most
 * CLEANUP_SLOTS paths at a time; a path too long or a full table is not
 * tracked (-ENOSPC), which costs only the cleanup.  0 or -errno.
 */
int cleanup_track(const char *path, enum cleanup_kind kind);

/*
 * Start the watcher now (cleanup_track() starts it otherwise): before a
 * private mount namespace is entered, so that it stays in the host's and
 * does not keep that namespace, and the copies of the host's mounts in
 * it, alive after imprint ends.  0 or -errno.
 */
int cleanup_start(void);

/* Forget path (removed, renamed or kept on purpose): nothing touches it any more. */
void cleanup_untrack(const char *path);

/*
 * The signal (SIGINT, SIGTERM or SIGHUP) that asked a cancellable run to
 * stop, or 0: set between cleanup_cancel_begin() and cleanup_cancel_end().
 */
extern volatile sig_atomic_t cleanup_caught;

/*
 * From now until cleanup_cancel_end(), SIGINT, SIGTERM and SIGHUP do not
 * end imprint: they set cleanup_caught, which the run checks between its
 * steps to stop, undo or discard what it made, and say so.
 */
void cleanup_cancel_begin(void);
void cleanup_cancel_end(void);

/* "SIGINT", "SIGTERM", "SIGHUP" or "a signal", for messages. */
const char *cleanup_signal_name(int sig);

/* How many paths can be tracked at once. */
#define CLEANUP_SLOTS 16

/*
 * Test-only: stop imprint (raise(SIGSTOP)) when the environment variable
 * IMPRINT_TEST_PAUSE_AT names point, so that a test can signal it at a
 * known place (tests/signals.sh, tests/live_tree.sh).  Points: "mounted"
 * (a file system of ours is mounted), "mke2fs" (just before mke2fs runs),
 * "listed" (a mounted tree's top directory is listed, its entries not yet
 * read), "backing-copied" (create --backing: the backing's disk is copied
 * into the temporary raw image, not yet evolved), "evolve-moved" (evolve:
 * files deleted, moved and directories made and removed, no file
 * written yet).
 */
void cleanup_test_pause(const char *point);

/*
 * For tests: whether IMPRINT_TEST_FAIL_AT names point, a failure the
 * caller then injects (what it is, its own comment says).
 */
int cleanup_test_fail(const char *point);

#endif
