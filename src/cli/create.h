/* create.h - `imprint create`: plan, check the target, run a backend, commit or clean up */
#ifndef IMPRINT_CREATE_H
#define IMPRINT_CREATE_H

#include <stdint.h>

#include "core/convert.h"
#include "core/disk.h"
#include "backends/backend.h"
#include "cli/shard_arg.h"
#include "model/params.h"
#include "plan/plan.h"

/* What the command line asked of `imprint create`. */
struct create_args {
	const char *target;        /* image file or block device */
	const char *mkfs_options;  /* extra mke2fs arguments, or NULL */
	const char *backend;       /* NULL: the first that makes 'fs' on TARGET */
	int no_format;             /* populate an existing, empty ext2/3/4 file system */
	int force;                 /* overwrite a target holding a signature */
	int keep_partial;          /* on failure, leave what was written (backends that allow it) */
	int allow_drop;            /* drop what the file system cannot hold (backends that allow it) */
	int quiet;                 /* no progress line, no text summary */
	int json;                  /* summary as one JSON object */
	unsigned jobs;             /* worker threads, >= 1 */
	const char *extents;       /* write the planned runs of every file here, or NULL */
	enum disk_label partition; /* --partition: a disk with one partition holding the file system */
	uint64_t partition_size;   /* --partition-size in bytes; 0: from 'size' or the device */
	enum image_format format;  /* --format (or TARGET's extension): qemu-img converts the raw image */
	int format_given;          /* --format was given (else the extension decides) */
	const char *backing;       /* --backing: the qcow2 image the new one is an overlay on, or NULL */
	const char *html;          /* also write the report page here (cli/page.h), or NULL */
	struct include_set *includes; /* --include, scanned (plan/include.h); NULL or empty: none */
	struct shard_arg shard;    /* --shard: one share of the plan (the mounted backend) */
	enum data_io data_io;      /* --direct-io (the ext4 backend); DATA_IO_AUTO when not given */
	int data_io_given;
	int argc;                  /* the command line, for the page */
	char **argv;
};

/*
 * Run `imprint create`.  p holds the parameters as given, not yet
 * resolved: on a block device (or with --no-format) the capacity of what
 * is there fills in 'size' when the user did not set it.  Prints its
 * messages, the progress line and the summary itself.  Returns 0; -EINVAL
 * for a parameter or usage error; -EEXIST, -EBUSY, -ENOSPC and the like
 * for a refused target; -EINTR when interrupted; another negative errno
 * when the build failed.  Nothing half-built is left behind on failure.
 */
int create_run(const struct create_args *a, struct params *p);

#endif
