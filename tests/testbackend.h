/* testbackend.h - a backend for tests that wraps a real one: counts its calls, injects failures */
#ifndef IMPRINT_TESTBACKEND_H
#define IMPRINT_TESTBACKEND_H

#include <stdint.h>

#include "backends/backend.h"

/* What the wrapper saw and what it is told to do; one wrapper at a time (tests are serial). */
struct wrap_state {
	const struct backend_ops *inner; /* the wrapped backend */
	unsigned opens, layout_requests, populates, finishes, aborts;
	int populate_had_layout;	 /* populate() got a layout */
	uint64_t fills;			 /* content requests that went through */
	uint64_t fail_file;		 /* content of this file fails with -EIO; UINT64_MAX: none */
	int fail_open;			 /* open() fails with this negative errno; 0: no */
	int guard;			 /* content made beside guard bytes, which must stay */
	uint64_t overruns;		 /* fills that wrote past their length (with guard) */
};

/* The wrapper's state: reset it with wrap_reset() before each use. */
extern struct wrap_state wrap;

/*
 * Reset wrap to wrap inner, with no failure injected, and fill in ops: the
 * wrapper's ops, with inner's name, caps, targets and options unless the
 * test changes them afterwards (e.g. to claim a capability the inner
 * backend's hooks do not provide).
 */
void wrap_reset(const struct backend_ops *inner, struct backend_ops *ops);

#endif
