/* evolve_feed.h - the bytes `imprint evolve` writes, made ahead on worker threads (-j) in the order they are written */
#ifndef IMPRINT_CLI_EVOLVE_FEED_H
#define IMPRINT_CLI_EVOLVE_FEED_H

#include <stddef.h>
#include <stdint.h>

#include "content/source.h"

/*
 * A feed: the ranges of the files evolve writes (file, offset, length of
 * at most EVOLVE_FEED_MAX bytes), listed with evolve_feed_add() in the
 * order the writes take them, then made by `jobs` worker threads from
 * the content source, a bounded number of batches ahead of the writer.
 * The thread that took evolve_feed_start() takes each range in order with
 * evolve_feed_take() and keeps every write: only content_source fill()
 * runs on the workers.  The bytes are fill()'s, the same as made inline.
 */
#define EVOLVE_FEED_MAX (1u << 20)

struct evolve_feed;

/* An empty feed to list ranges in: 0 and *out, or -ENOMEM. */
int evolve_feed_new(struct evolve_feed **out);

/* Range [off, off + len) of file, next in the writer's order: 0 or -ENOMEM (or -EINVAL: len). */
int evolve_feed_add(struct evolve_feed *fd, uint64_t file, uint64_t off, size_t len);

/*
 * Start `jobs` workers (1 at least) making the listed ranges from cs
 * (which must outlive the feed).  fail_at: a test's failure injected
 * into the fill of the range half-way through the list (-EIO).  0 or a
 * negative errno (nothing started).
 */
int evolve_feed_start(struct evolve_feed *fd, const struct content_source *cs, unsigned jobs,
		      int fail_at);

/*
 * The bytes of range [off, off + len) of file, the next listed: 0 and *p
 * (valid until the next take or the end), or 0 and *p NULL when that is
 * not the next range listed (the caller makes it itself; the feed stops
 * and takes no more), or the negative errno fill() returned for it on a
 * worker.
 */
int evolve_feed_take(struct evolve_feed *fd, uint64_t file, uint64_t off, size_t len,
		     const void **p);

/* Stop the workers (a batch being made is finished), join them, free fd (NULL: nothing). */
void evolve_feed_end(struct evolve_feed *fd);

#endif
