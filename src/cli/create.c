/* create.c - `imprint create`: resolve, plan, check the target, build through a backend, commit */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backends/backend.h"
#include "backends/registry.h"
#include "cli/backed.h"
#include "cli/create.h"
#include "plan/include.h"
#include "plan/shard.h"
#include "cli/page.h"
#include "core/pipeline.h"
#include "core/progress.h"
#include "core/target.h"
#include "util/cleanup.h"
#include "util/outfile.h"
#include "util/strutil.h"
#include "util/util.h"

/*
 * Fill in 'size' (and 'fs' with --no-format) from what the target is, then
 * resolve.  Returns 0, -EINVAL (parameter error) or -ENOSPC (too large).
 */
static int resolve_for_target(const struct create_args *a, const struct target *t,
			      struct params *p)
{
	struct param_error perr = { { 0 } };
	uint64_t cap = 0;
	char h1[32], h2[32];

	if (t->is_device)
		cap = t->dev_size;
	if (t->is_dir && !a->shard.given)
		cap = t->dir_free; /* --shard: every client must plan alike, whatever it sees free */
	if (a->shard.given && !params_is_set(p, "size")) {
		fprintf(stderr, "imprint: '--shard' needs 'size' (--size or in the configuration): every client must compute the same plan, and the free space each sees differs and changes as they write\n");
		return -EINVAL;
	}
	if (a->no_format && t->fs_size)
		cap = t->fs_size;
	if (a->partition) {
		char msg[256];
		int ret = disk_room(a->partition, t->is_device ? t->dev_size : 0, a->partition_size,
				    &cap, msg, sizeof(msg));

		if (ret) {
			fprintf(stderr, "imprint: '%s': %s\n", t->path, msg);
			return ret;
		}
	}
	if (cap) {
		if (!params_is_set(p, "size")) {
			p->size = cap;
		} else if (p->size > cap && !t->is_dir) {
			/* a directory: 'size' scales the plan; its backend checks what the data needs */
			fmt_bytes(p->size, FMT_BYTES_ADAPTIVE, h1, sizeof(h1));
			fmt_bytes(cap, FMT_BYTES_ADAPTIVE, h2, sizeof(h2));
			fprintf(stderr, "imprint: 'size' (%s) is larger than %s '%s' (%s)\n", h1,
				a->partition ? "the partition on" :
				a->no_format ? "the file system in" : "the device", t->path, h2);
			return -ENOSPC;
		}
	}
	if (a->no_format) {
		const char *found = backend_fs_name(t->type);

		if (params_is_set(p, "fs") && strcmp(p->fs, found) != 0) {
			fprintf(stderr, "imprint: 'fs' is %s but '%s' holds %s; with --no-format, 'fs' must match the file system there or be left unset\n",
				p->fs, t->path, found);
			return -EINVAL;
		}
		/* libblkid's name as 'fs' gives it, when a backend makes it (the target check admitted only these) */
		if (backend_fs_known(found) && strlen(found) < sizeof(p->fs))
			memcpy(p->fs, found, strlen(found) + 1);
	}
	if (params_resolve(p, &perr) ||
	    backend_check_params(p, perr.msg, sizeof(perr.msg))) {
		fprintf(stderr, "imprint: %s\n", perr.msg);
		return -EINVAL;
	}
	if (a->shard.given && p->age_rounds) {
		fprintf(stderr, "imprint: '--shard' cannot go with 'age_rounds' (%u): the aging churn deletes and rewrites across the whole tree; set 'age_rounds' to 0\n",
			(unsigned)p->age_rounds);
		return -EINVAL;
	}
	return 0;
}

/* Grown sizes are rounded up to this, like params' derived sizes. */
#define SIZE_GRANULE (4ULL << 20)

/*
 * A 'size' the user did not choose (derived from used and fill_share) may
 * be too small once blocks are rounded up and metadata counted; grow it to
 * fit with a 2% margin.  The plan does not depend on 'size', so `imprint
 * plan` still writes the manifest of what is built.
 */
static void grow_derived_size(const struct backend_ops *ops, struct plan *pl, int quiet)
{
	struct backend_estimate e;
	uint64_t old = pl->prm.size;
	char h1[32], h2[32], h3[32];

	for (int it = 0; it < 4; it++) {
		uint64_t want;

		if (backend_estimate(ops, pl, &e))
			return;
		if (e.total <= pl->prm.size)
			break;
		want = e.total + e.total / 50;
		pl->prm.size = (want + SIZE_GRANULE - 1) & ~(SIZE_GRANULE - 1);
	}
	if (pl->prm.size == old || quiet)
		return;
	fmt_bytes(old, FMT_BYTES_ADAPTIVE, h1, sizeof(h1));
	fmt_bytes(e.total, FMT_BYTES_ADAPTIVE, h2, sizeof(h2));
	fmt_bytes(pl->prm.size, FMT_BYTES_ADAPTIVE, h3, sizeof(h3));
	fprintf(stderr, "imprint: note: the derived 'size' (%s) is too small for the plan (about %s with metadata); using %s (give --size to choose)\n",
		h1, h2, h3);
}

/* Refuse a plan the backend's estimate says cannot fit (no estimate: the backend checks). */
static int check_fit(const struct backend_ops *ops, const struct plan *pl, const struct target *t)
{
	struct backend_estimate e;
	char need[32], cap[32], data[32], dirs[32], ino[32], jnl[32], meta[32];

	if (backend_estimate(ops, pl, &e) || e.total <= pl->prm.size)
		return 0;
	if (pl->prm.size < e.floor) {
		fmt_bytes(pl->prm.size, FMT_BYTES_ADAPTIVE, cap, sizeof(cap));
		fmt_bytes(e.floor, FMT_BYTES_ADAPTIVE, need, sizeof(need));
		fprintf(stderr, "imprint: 'size' (%s) is too small for any %s file system; it must be at least %s\n",
			cap, pl->prm.fs, need);
		return -EINVAL;
	}
	fmt_bytes(e.total, FMT_BYTES_ADAPTIVE, need, sizeof(need));
	fmt_bytes(pl->prm.size, FMT_BYTES_ADAPTIVE, cap, sizeof(cap));
	fmt_bytes(e.data, FMT_BYTES_ADAPTIVE, data, sizeof(data));
	fmt_bytes(e.dirs, FMT_BYTES_ADAPTIVE, dirs, sizeof(dirs));
	fmt_bytes(e.inodes, FMT_BYTES_ADAPTIVE, ino, sizeof(ino));
	fmt_bytes(e.journal, FMT_BYTES_ADAPTIVE, jnl, sizeof(jnl));
	fmt_bytes(e.meta, FMT_BYTES_ADAPTIVE, meta, sizeof(meta));
	fprintf(stderr,
		"imprint: the plan does not fit in '%s': it needs about %s (%" PRIu64 " bytes: %s of file data in 4 KiB blocks, %s of directories, %s of inode tables, %s of journal, %s of other metadata) but %s %s; raise --size or lower --used / --files\n",
		t->path, need, e.total, data, dirs, ino, jnl, meta,
		t->is_dir && !params_is_set(&pl->prm, "size") ? "the file system has free" :
		t->is_device && !params_is_set(&pl->prm, "size") ? "the device holds" : "'size' is",
		cap);
	return -ENOSPC;
}

/* The kind of TARGET t is, as backends declare what they take. */
static unsigned target_kind(const struct target *t)
{
	return t->is_dir ? BACKEND_TARGET_DIR :
	       t->is_device ? BACKEND_TARGET_DEVICE : BACKEND_TARGET_FILE;
}

/* The kinds of target in kinds, in words ("image files and block devices"). */
static void kinds_text(unsigned kinds, char *buf, size_t len)
{
	static const char *const word[] = { "image files", "block devices", "directories" };
	size_t at = 0, n = 0, k = 0;

	for (size_t i = 0; i < 3; i++)
		n += !!(kinds & (1u << i));
	buf[0] = '\0';
	for (size_t i = 0; i < 3 && at < len; i++) {
		if (!(kinds & (1u << i)))
			continue;
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       k ? (k + 1 == n ? " and " : ", ") : "", word[i]);
		k++;
	}
}

/* Say that ops does not take t's kind of target, and which backends making fs do. */
static void refuse_kind(const struct backend_ops *ops, const struct target *t, const char *fs)
{
	const struct backend_ops *const *all;
	char mine[64], others[256] = "";
	size_t n, at = 0;

	kinds_text(ops->targets, mine, sizeof(mine));
	all = backend_list(&n);
	for (size_t i = 0; i < n && at < sizeof(others); i++)
		if (all[i]->targets & target_kind(t) && all[i]->fs_names != NULL &&
		    all[i]->fs_names[0] == NULL)
			continue; /* only by name: not worth naming */
		else if ((all[i]->targets & target_kind(t)) && backend_makes(all[i], fs))
			at += (size_t)snprintf(others + at, sizeof(others) - at, "%sthe %s backend",
					       at ? " or " : "", all[i]->name);
	fprintf(stderr, "imprint: '%s' is %s; the %s backend takes %s", t->path,
		t->is_dir ? "a directory" : t->is_device ? "a block device" :
		t->exists ? "a file" : "a new image file",
		ops->name, mine);
	if (others[0])
		fprintf(stderr, " (%s: %s)", t->is_dir ? "directories" :
				t->is_device ? "block devices" : "image files", others);
	fputc('\n', stderr);
}

/* Refuse the options of another backend (--mkfs-options, --no-format, --keep-partial, --allow-drop). */
static int backend_takes_options(const struct backend_ops *ops, const struct create_args *a)
{
	static const struct {
		unsigned bit;
		const char *name;
	} opts[] = {
		{ BACKEND_OPT_MKFS_OPTIONS, "--mkfs-options" },
		{ BACKEND_OPT_NO_FORMAT, "--no-format" },
		{ BACKEND_OPT_KEEP_PARTIAL, "--keep-partial" },
		{ BACKEND_OPT_ALLOW_DROP, "--allow-drop" },
		{ BACKEND_OPT_PARTITION, "--partition" },
		{ BACKEND_OPT_SHARD, "--shard" },
		{ BACKEND_OPT_DIRECT_IO, "--direct-io" },
	};
	unsigned given = (a->mkfs_options ? BACKEND_OPT_MKFS_OPTIONS : 0) |
			 (a->no_format ? BACKEND_OPT_NO_FORMAT : 0) |
			 (a->keep_partial ? BACKEND_OPT_KEEP_PARTIAL : 0) |
			 (a->allow_drop ? BACKEND_OPT_ALLOW_DROP : 0) |
			 (a->partition ? BACKEND_OPT_PARTITION : 0) |
			 (a->shard.given ? BACKEND_OPT_SHARD : 0) |
			 (a->data_io_given ? BACKEND_OPT_DIRECT_IO : 0);

	for (size_t i = 0; i < ARRAY_SIZE(opts); i++) {
		if ((given & opts[i].bit) && !(ops->options & opts[i].bit)) {
			fprintf(stderr, "imprint: '%s' is not an option of the %s backend\n",
				opts[i].name, ops->name);
			return 0;
		}
	}
	return 1;
}

/* Refuse a --backend that does not make 'fs' (one picked only by name makes what it is given). */
static int backend_takes_fs(const struct backend_ops *ops, const struct params *p)
{
	char names[128] = "";
	size_t n = 0, at = 0;

	if (!ops->fs_names || !ops->fs_names[0] || backend_makes(ops, p->fs))
		return 1;
	while (ops->fs_names[n])
		n++;
	for (size_t i = 0; i < n && at < sizeof(names); i++)
		at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
				       i ? (i + 1 == n ? " or " : ", ") : "", ops->fs_names[i]);
	fprintf(stderr, "imprint: the %s backend makes %s, not %s%s; give one of those with --fs\n",
		ops->name, names, p->fs, params_is_set(p, "fs") ? "" : " (the default)");
	return 0;
}

/*
 * The backend --backend names, or the first that makes 'fs' on this kind
 * of target.  Returns it, or NULL with the reason printed.
 */
static const struct backend_ops *choose_backend(const struct create_args *a, const struct params *p,
						const struct target *t)
{
	const struct backend_ops *const *all;
	const struct backend_ops *ops;
	char names[128] = "";
	size_t n, at = 0;

	if (!a->backend)
		ops = backend_for(p->fs, target_kind(t));
	else
		ops = backend_find(a->backend);
	if (!ops && a->backend) {
		all = backend_list(&n);
		for (size_t i = 0; i < n && at < sizeof(names); i++)
			at += (size_t)snprintf(names + at, sizeof(names) - at, "%s%s",
					       i ? (i + 1 == n ? " or " : ", ") : "", all[i]->name);
		fprintf(stderr, "imprint: unknown backend '%s' (expected %s)\n", a->backend, names);
	} else if (!ops && t->is_dir) {
		fprintf(stderr, "imprint: '%s' is a directory; expected an image file or a block device\n",
			t->path);
	} else if (!ops) {
		fprintf(stderr, "imprint: no backend makes %s on '%s'\n", p->fs, t->path);
	} else if (!(ops->targets & target_kind(t))) {
		refuse_kind(ops, t, p->fs);
		ops = NULL;
	} else if (!backend_takes_options(ops, a) || !backend_takes_fs(ops, p)) {
		ops = NULL;
	} else if (a->includes && a->includes->nspecs && !(ops->caps & BACKEND_INCLUDES)) {
		fprintf(stderr, "imprint: the %s backend does not write '--include' (ext4, mounted and loopfs do); leave it out\n",
			ops->name);
		ops = NULL;
	}
	return ops;
}

/* Everything that can refuse TARGET happens here, before the first write. */
static int check_target(const struct create_args *a, struct target *t)
{
	struct target_error terr = { { 0 } };
	int ret;

	ret = target_open(t, a->target, &terr);
	if (!ret)
		ret = target_check_busy(t, &terr);
	if (!ret)
		ret = target_check_contents(t, a->force, a->no_format, &terr);
	if (!ret && t->is_dir && t->dir_readonly) {
		snprintf(terr.msg, sizeof(terr.msg),
			 "'%s' is on a read-only file system; expected a writable directory", a->target);
		ret = -EROFS;
	}
	if (ret) {
		if (terr.msg[0])
			fprintf(stderr, "imprint: %s\n", terr.msg);
		else
			fprintf(stderr, "imprint: '%s': %s\n", a->target, strerror(-ret));
	}
	return ret;
}

/*
 * The length of the image holding a file system of fs_size bytes (the
 * disk with --partition) into *bytes; 0, or a negative errno after the
 * message when no disk can hold it (MBR's 2 TiB, a small partition).
 */
static int disk_bytes(const struct create_args *a, const struct target *t, uint64_t fs_size,
		      uint64_t *bytes)
{
	struct disk_geom g;
	char msg[400];
	int ret;

	ret = disk_geometry(a->partition, fs_size, a->partition_size,
			    t->is_device ? t->dev_size : 0, &g, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "imprint: '%s': %s\n", t->path, msg);
		return ret;
	}
	*bytes = g.disk_size;
	return 0;
}

/*
 * Plan for what the target is, and refuse a plan the backend says cannot
 * fit; before planning, what the host cannot hold.
 */
static int plan_for_target(const struct create_args *a, const struct backend_ops *ops,
			   struct target *t, struct params *p, struct plan *pl)
{
	struct target_error terr = { { 0 } };
	struct plan_error plerr = { { 0 } };
	uint64_t bytes;
	int ret;

	ret = resolve_for_target(a, t, p);
	if (!ret)
		ret = disk_bytes(a, t, p->size, &bytes);
	if (ret)
		return ret;
	ret = target_check_room(t, bytes, p->used, a->no_format, &terr);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", terr.msg);
		return ret;
	}
	ret = plan_build_jobs(pl, p, a->jobs, &plerr);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", ret == -EINVAL ? plerr.msg : strerror(-ret));
		return ret;
	}
	if (a->includes && a->includes->n) {
		/* the directories made for a DEST (all, normalised) take the resolved time_ref */
		include_set_time(a->includes, pl->prm.time_ref);
		pl->inc = a->includes;
	}
	/* a device, an existing file system or --partition-size fixed 'size': it does not grow */
	if (!params_is_set(p, "size") && !t->is_device && !t->is_dir &&
	    !(a->no_format && t->fs_size) && !a->partition_size) {
		uint64_t old = pl->prm.size;

		grow_derived_size(ops, pl, a->quiet);
		/* a grown image must fit on the host too */
		if (pl->prm.size != old) {
			ret = disk_bytes(a, t, pl->prm.size, &bytes);
			if (ret) {
				plan_release(pl);
				return ret;
			}
			ret = target_check_room(t, bytes, p->used, a->no_format, &terr);
		}
		if (ret) {
			fprintf(stderr, "imprint: %s\n", terr.msg);
			plan_release(pl);
			return ret;
		}
	}
	ret = check_fit(ops, pl, t);
	if (ret)
		plan_release(pl);
	return ret;
}

/*
 * After a failure or a signal: say what happened, remove or invalidate
 * what was written (keep it with --keep-partial).
 */
static void discard(struct target *t, int ret, const char *msg, int keep)
{
	struct target_error terr = { { 0 } };
	char what[800] = "";
	int ret2;

	if (keep)
		ret2 = target_keep(t, what, sizeof(what));
	else
		ret2 = target_discard(t, what, sizeof(what), &terr);
	if (ret == -EINTR) {
		if (ret2)
			fprintf(stderr, "imprint: interrupted (%s); %s\n",
				cleanup_signal_name(cleanup_caught), terr.msg);
		else if (what[0] || msg[0]) /* msg: a directory's backend says what it removed */
			fprintf(stderr, "imprint: interrupted (%s): %s\n",
				cleanup_signal_name(cleanup_caught), what[0] ? what : msg);
		else
			fprintf(stderr, "imprint: interrupted (%s) before anything was written\n",
				cleanup_signal_name(cleanup_caught));
		return;
	}
	if (msg[0])
		fprintf(stderr, "imprint: %s\n", msg);
	if (ret2)
		fprintf(stderr, "imprint: %s\n", terr.msg);
	else if (what[0])
		fprintf(stderr, "imprint: %s\n", what);
}

/* The backend's handle on the device claim (create_opts.claim). */
static int claim_target(void *ctx, int on)
{
	return target_claim(ctx, on);
}

/*
 * After the backend: the partition table around the file system, then the
 * conversion (--format), their identifiers drawn from id (params_identity:
 * the configuration and the seed); the time it adds in sum.  Returns 0 or a negative
 * errno with msg set.
 */
static int finish_disk(const struct create_args *a, struct target *t, const struct disk_geom *g,
		       uint64_t id, struct build_summary *sum, char *msg, size_t len)
{
	struct stat st;
	int ret;

	ret = disk_write_table(target_fd(t), t->path, g, id, msg, len);
	if (ret || a->format == IMAGE_RAW)
		return ret;
	ret = sum->backing ? convert_image_backed(t, sum->backing, id, &sum->convert_seconds, msg, len)
			   : convert_image(t, a->format, id, &sum->convert_seconds, msg, len);
	if (!ret && fstat(target_fd(t), &st) == 0)
		sum->file_size = (uint64_t)st.st_size;
	return ret;
}

/*
 * Start the progress line: its totals are the plan's, or with --shard K/N
 * the share's (what the backend counts); short of memory for the share, the
 * plan's.
 */
static void progress_begin(struct progress *pr, const struct create_args *a,
			   const struct plan *pl)
{
	struct plan_shard sh;
	uint64_t files = pl->nfiles, bytes = pl->bytes;

	if (a->shard.finish) {
		files = bytes = 0; /* finish writes no file */
	} else if (a->shard.n && !plan_shard_init(&sh, pl, a->shard.k, a->shard.n)) {
		files = sh.files;
		bytes = sh.bytes;
		plan_shard_release(&sh);
	}
	progress_init(pr, stderr, !a->quiet, files, bytes);
}

/* Prepare the target, build through the backend, commit; the summary's seconds in sum. */
static int build_target(const struct create_args *a, const struct backend_ops *ops,
			struct target *t, const struct plan *pl, const struct disk_geom *g,
			struct create_result *res, struct build_summary *sum, char *msg, size_t len)
{
	struct target_error terr = { { 0 } };
	struct pipeline_job j;
	struct progress pr;
	struct create_opts o;
	const char *path;
	int ret;

	/* a backend that writes nothing is given TARGET untouched: nothing made, truncated or formatted */
	if (ops->caps & BACKEND_DISKLESS) {
		path = t->path;
		ret = 0;
	} else {
		ret = target_prepare(t, g->disk_size, a->no_format, &path, &terr);
	}
	if (ret) {
		snprintf(msg, len, "%s", terr.msg);
		return ret;
	}
	memset(&o, 0, sizeof(o));
	o.target = path;
	o.mkfs_options = a->mkfs_options;
	o.no_format = a->no_format;
	o.force = a->force;
	o.keep_partial = a->keep_partial;
	o.allow_drop = a->allow_drop;
	o.offset = g->part_start;
	o.fs_size = g->label ? pl->prm.size : 0;
	t->fs_offset = g->part_start;
	o.jobs = a->jobs ? a->jobs : 1;
	o.data_io = a->data_io;
	o.shard_k = a->shard.k;
	o.shard_n = a->shard.n;
	o.shard_finish = a->shard.finish;
	o.cancel = &cleanup_caught;
	o.progress = progress_update;
	o.progress_ctx = &pr;
	if (t->is_device) {
		o.claim = claim_target;
		o.claim_ctx = t;
	}
	memset(&j, 0, sizeof(j));
	j.o = &o;
	j.pl = pl;
	j.target = t->path;
	j.extents_path = a->extents;
	j.res = res;
	j.msg = msg;
	j.len = len;
	progress_begin(&pr, a, pl);
	ret = 1;
	if (sum->evolved_from) {
		/* generation N from the backing's N-1: the layout kept, only what changed written */
		ret = backed_build(t, path, sum->backing, pl, g->disk_size, &cleanup_caught, res, msg,
				   len);
		if (ret == 1)
			sum->evolved_from = NULL;
	}
	if (ret == 1)
		ret = pipeline_run(ops, &j);
	/* a refused --no-format (not empty, say) wrote nothing: keep the user's file system */
	if (ret && a->no_format && !j.opened)
		target_untouched(t);
	if (!ret && cleanup_caught)
		ret = -EINTR;
	if (!ret && !(ops->caps & BACKEND_DISKLESS))
		ret = finish_disk(a, t, g, params_identity(&pl->prm), sum, msg, len);
	if (!ret && cleanup_caught)
		ret = -EINTR;
	if (!ret && !(ops->caps & BACKEND_DISKLESS)) {
		ret = target_commit(t, &terr);
		if (ret)
			snprintf(msg, len, "%s", terr.msg);
	}
	/* through the exclusive open: the kernel refuses a rescan while another holder claims it */
	if (!ret && t->is_device && g->label &&
	    disk_reread(t->excl_fd >= 0 ? t->excl_fd : target_fd(t)))
		fprintf(stderr, "imprint: note: the kernel has not read the new partition table of '%s' yet (partprobe or blockdev --rereadpt will tell it)\n",
			t->path);
	sum->seconds = progress_seconds(&pr);
	progress_end(&pr);
	return ret;
}

/*
 * Refuse --partition, --format and --backing where they cannot go, before
 * anything is planned; the name a qcow2 overlay records for --backing into
 * backing (PATH_MAX bytes), the backing's virtual size into *backing_size.
 */
static int check_disk_options(const struct create_args *a, const struct target *t, char *backing,
			      uint64_t *backing_size)
{
	const char *fmt = convert_format_name(a->format);
	char msg[PATH_MAX + 300];

	if (a->partition_size && !a->partition) {
		fprintf(stderr, "imprint: '--partition-size' needs '--partition gpt' or '--partition mbr'\n");
		return -EINVAL;
	}
	if (a->partition && a->no_format) {
		fprintf(stderr, "imprint: '--no-format' cannot go with '--partition': it populates the file system '%s' already holds\n",
			t->path);
		return -EINVAL;
	}
	if (t->is_dir && (a->partition || a->format != IMAGE_RAW)) {
		fprintf(stderr, "imprint: '%s' is a directory; '%s' is for image files%s\n", t->path,
			a->partition ? "--partition" : "--format",
			a->partition ? " and block devices" : "");
		return -EINVAL;
	}
	if (t->is_device && a->format != IMAGE_RAW) {
		fprintf(stderr, "imprint: '%s' is a block device; '--format %s' makes an image file (a device takes --format raw)\n",
			t->path, fmt);
		return -EINVAL;
	}
	if (a->format != IMAGE_RAW && a->no_format) {
		fprintf(stderr, "imprint: '--no-format' cannot go with '--format %s': it populates the raw file system '%s' holds\n",
			fmt, t->path);
		return -EINVAL;
	}
	if (convert_check(a->format, msg, sizeof(msg))) {
		fprintf(stderr, "imprint: %s\n", msg);
		return -ENOENT;
	}
	if (a->backing && a->format != IMAGE_QCOW2) {
		fprintf(stderr, "imprint: '--backing' makes a qcow2 overlay: it needs '--format qcow2' (or a TARGET ending in .qcow2), not %s%s\n",
			t->is_dir ? "a directory" : t->is_device ? "a block device" : "--format ",
			t->is_dir || t->is_device ? "" : fmt);
		return -EINVAL;
	}
	if (a->backing) {
		int ret = convert_backing_check(a->backing, t->path, backing, PATH_MAX,
						backing_size, msg, sizeof(msg));

		if (ret) {
			fprintf(stderr, "imprint: %s\n", msg);
			return ret;
		}
	}
	return 0;
}

/* The disk's geometry once planned, into g and the summary; 0 or -ENOSPC/-EINVAL after a message. */
static int plan_disk(const struct create_args *a, const struct target *t, const struct plan *pl,
		     struct disk_geom *g, struct build_summary *sum)
{
	char msg[256];
	int ret;

	ret = disk_geometry(a->partition, pl->prm.size, a->partition_size,
			    t->is_device ? t->dev_size : 0, g, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "imprint: '%s': %s\n", t->path, msg);
		return ret;
	}
	if (a->partition) {
		sum->partition = a->partition == DISK_GPT ? "gpt" : "mbr";
		sum->disk_size = g->disk_size;
		sum->part_start = g->part_start;
		sum->part_size = g->part_size;
	}
	if (a->format != IMAGE_RAW)
		sum->format = convert_format_name(a->format);
	return 0;
}

/* The --html page of a finished build: the image is there, whatever the page does. */
static int write_page(const struct create_args *a, const struct backend_ops *ops,
		      const struct target *t, const struct plan *pl,
		      const struct create_result *res, const struct build_summary *sum)
{
	struct page_run run = {
		.kind = "create",
		.argc = a->argc,
		.argv = a->argv,
		.backend = a->backend,
		.mkfs_options = a->mkfs_options,
		.target = a->target,
	};
	/* what a backend that measures made in a raw image (a partition too) or a directory is read back */
	int readable = (ops->caps & BACKEND_MEASURES) && !(ops->caps & BACKEND_DISKLESS) &&
		       a->format == IMAGE_RAW;
	int ret = page_create(a->html, &run, pl, res, sum, readable ? t->path : NULL);

	if (ret)
		fprintf(stderr, "imprint: '%s' is built, but its report page '%s' is not\n",
			t->path, a->html);
	return ret;
}

int create_run(const struct create_args *a, struct params *p)
{
	const struct backend_ops *ops;
	struct create_result res;
	struct build_summary sum;
	char msg[800] = "", backing[PATH_MAX] = "";
	uint64_t backing_size = 0;
	struct disk_geom g;
	struct target t;
	struct plan pl;
	int ret;

	memset(&sum, 0, sizeof(sum));
	ret = check_target(a, &t);
	if (!ret)
		ret = check_disk_options(a, &t, backing, &backing_size);
	if (!ret && a->backing)
		sum.backing = backing;
	if (!ret && a->includes) {
		ret = include_check_target(a->includes, t.path, t.is_dir, msg, sizeof(msg));
		if (ret)
			fprintf(stderr, "imprint: %s\n", msg);
	}
	if (!ret && a->extents) { /* refused before anything is built */
		ret = outfile_check(a->extents, "'--extents'", 0, msg, sizeof(msg));
		if (ret)
			fprintf(stderr, "imprint: %s\n", msg);
	}
	if (ret)
		goto out_target;
	ops = choose_backend(a, p, &t);
	if (!ops) {
		ret = -EINVAL;
		goto out_target;
	}
	ret = plan_for_target(a, ops, &t, p, &pl);
	if (ret)
		goto out_target;
	ret = plan_disk(a, &t, &pl, &g, &sum);
	if (!ret && a->backing && g.disk_size != backing_size) {
		fprintf(stderr, "imprint: the backing image '%s' is a disk of %llu bytes but this plan makes one of %llu: an overlay keeps its backing's size (give the backing made with the same 'size' and --partition)\n",
			a->backing, (unsigned long long)backing_size,
			(unsigned long long)g.disk_size);
		ret = -EINVAL;
	}
	if (!ret && backed_evolves(a, ops, &pl))
		sum.evolved_from = backing;
	if (ret)
		goto out_plan;

	cleanup_cancel_begin();
	ret = build_target(a, ops, &t, &pl, &g, &res, &sum, msg, sizeof(msg));
	if (ret || cleanup_caught) {
		discard(&t, cleanup_caught ? -EINTR : ret, msg, a->keep_partial);
		ret = cleanup_caught ? -EINTR : ret;
		cleanup_cancel_end();
		goto out_plan;
	}
	cleanup_cancel_end();

	sum.target = t.path;
	if (ops->caps & BACKEND_DISKLESS) {
		sum.diskless = ops->name;
		sum.format = NULL; /* nothing converted */
	}
	sum.fs = t.is_dir ? (t.type[0] ? t.type : "unknown file system") : pl.prm.fs;
	sum.size = pl.prm.size;
	sum.seed = pl.prm.seed;
	sum.gen = pl.gen;
	if (!a->quiet || a->json) {
		ret = progress_print_summary(&res, &sum, a->json, stdout);
		if (ret)
			fprintf(stderr, "imprint: cannot write the summary to stdout: %s\n",
				strerror(-ret));
	}
	if (!ret && a->html)
		ret = write_page(a, ops, &t, &pl, &res, &sum);
out_plan:
	plan_release(&pl);
out_target:
	target_release(&t);
	return ret;
}
