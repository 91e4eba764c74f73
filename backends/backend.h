/* backend.h - the backends: a const ops struct each, with capability flags */
#ifndef IMPRINT_BACKEND_H
#define IMPRINT_BACKEND_H

#include <signal.h>
#include <stdint.h>

#include "content/source.h"
#include "layout/layout.h"
#include "plan/plan.h"

/* Capabilities (backend_ops.caps). */
#define BACKEND_PLACES_BLOCKS 0x01  /* puts every block where the layout says */
#define BACKEND_FORMATS       0x02  /* makes the file system itself */
#define BACKEND_MEASURES      0x04  /* can read back what it made */

/* What `imprint create` asks of a backend. */
struct create_opts {
	const char *target;        /* the path the backend writes (a temporary file or a device) */
	const char *mkfs_options;  /* extra mke2fs arguments, or NULL */
	int no_format;             /* populate an existing, empty file system */
	unsigned jobs;             /* worker threads for file data, >= 1 */
	const char *extents_path;  /* write every file's planned runs here (verify_write_extents), or NULL */
	/* called now and then from the populating thread; may be NULL */
	void (*progress)(void *ctx, uint64_t files_done, uint64_t bytes_done);
	void *progress_ctx;
};

/*
 * Set by the SIGINT/SIGTERM handler of `imprint create`; backends poll it
 * between entries and data batches and fail with -EINTR when it is set.
 */
extern volatile sig_atomic_t backend_interrupted;

/* The summary of a build. */
struct create_result {
	uint64_t files, dirs, links, bytes;
	uint64_t blocks_used, block_size;
	double seconds;
	double layout_score;
	uint64_t sparse_files, hole_blocks; /* files with holes, and the blocks never written */

	/* what the layout reached beside the score (backends that place blocks) */
	int have_layout;
	double layout_target;          /* the score aimed at */
	uint32_t age_rounds;           /* aged: no score target applies */
	uint64_t frag_eligible;        /* files of two or more blocks */
	uint64_t frag_files, frag_runs; /* of them, fragmented, and their runs */
	double free_small_target;      /* 'free_frag_share' asked (0: no shape asked) */
	struct layout_free_hist free;  /* the free space left, from the block bitmap */
	char layout_notes[512];        /* layout_notes_text(): what gave way, or "" */
};

struct backend {
	const struct backend_ops *ops;
	void *priv;
	char errmsg[512];          /* user-ready message when a hook fails */
};

/*
 * Hooks return 0 or a negative errno, with b->errmsg set.  populate() may
 * be called once; finish() makes the result durable (fsync); abort()
 * releases everything after a failure and must be safe at any point.
 */
struct backend_ops {
	const char *name;
	unsigned caps;
	int (*open)(struct backend *b, const struct create_opts *o, const struct plan *pl);
	int (*populate)(struct backend *b, const struct plan *pl, const struct content_source *cs,
			struct create_result *res);
	int (*finish)(struct backend *b);
	void (*abort)(struct backend *b);
};

extern const struct backend_ops ext4_backend_ops;
extern const struct backend_ops null_backend_ops;

/* The backend named name ("ext4", "null"), or NULL. */
const struct backend_ops *backend_find(const char *name);

#endif
