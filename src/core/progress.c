/* progress.c - the progress line of `imprint create` (files, bytes, MB/s, ETA) and its summary */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "plan/generation.h"
#include "report/gen_report.h"
#include "core/progress.h"
#include "util/strutil.h"

/* Redraw at most this often (nanoseconds). */
#define REDRAW_NS 250000000LL

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void progress_init(struct progress *pr, FILE *out, int enabled, uint64_t total_files,
		   uint64_t total_bytes)
{
	memset(pr, 0, sizeof(*pr));
	if (enabled && out && isatty(fileno(out)))
		pr->out = out;
	pr->total_files = total_files;
	pr->total_bytes = total_bytes;
	clock_gettime(CLOCK_MONOTONIC, &pr->start);
	pr->last = pr->start;
}

double progress_seconds(const struct progress *pr)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return elapsed(&pr->start, &now);
}

static void fmt_eta(double s, char *buf, size_t len)
{
	unsigned long t = s > 0 ? (unsigned long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

/* Whole percent of done in total, rounded down: 100 only when all is done. */
static unsigned percent(uint64_t done, uint64_t total)
{
	if (!total || done >= total)
		return 100;
	return (unsigned)((long double)done * 100 / (long double)total);
}

void progress_update(void *ctx, uint64_t files_done, uint64_t bytes_done)
{
	struct progress *pr = ctx;
	struct timespec now;
	char done[32], total[32], eta[32];
	double secs, rate;
	int complete = files_done >= pr->total_files && bytes_done >= pr->total_bytes;

	if (!pr->out)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	/* the line of a finished build is drawn at once (once), whatever the last one's age */
	if (complete ? pr->complete_shown :
		       pr->shown && (now.tv_sec - pr->last.tv_sec) * 1000000000LL +
						    (now.tv_nsec - pr->last.tv_nsec) < REDRAW_NS)
		return;
	pr->last = now;
	pr->complete_shown = complete;
	secs = elapsed(&pr->start, &now);
	rate = secs > 0 ? (double)bytes_done / secs : 0;
	fmt_bytes(bytes_done, FMT_BYTES_ADAPTIVE, done, sizeof(done));
	fmt_bytes(pr->total_bytes, FMT_BYTES_ADAPTIVE, total, sizeof(total));
	/* the ETA follows the bytes (files are not all alike); by files only when no byte is done */
	if (rate > 0 && bytes_done <= pr->total_bytes)
		fmt_eta((double)(pr->total_bytes - bytes_done) / rate, eta, sizeof(eta));
	else if (files_done && pr->total_files >= files_done && secs > 0)
		fmt_eta((double)(pr->total_files - files_done) * secs / (double)files_done, eta,
			sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "?");
	/* \r and erase to the end: one line, rewritten in place */
	fprintf(pr->out,
		"\rimprint: %" PRIu64 "/%" PRIu64 " files, %s / %s (%u%%) written, %.1f MB/s, ETA %s\033[K",
		files_done, pr->total_files, done, total, percent(bytes_done, pr->total_bytes),
		rate / 1e6, eta);
	fflush(pr->out);
	pr->shown = 1;
}

void progress_end(struct progress *pr)
{
	if (pr->out && pr->shown) {
		fputs("\r\033[K", pr->out);
		fflush(pr->out);
	}
	pr->shown = 0;
}

/* A double printed with that many decimals, as a person would write it. */
static struct json_object *new_double(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* The layout's figures: the same keys as `imprint measure --json` where they exist. */
static int add_layout_json(struct json_object *o, const struct create_result *res)
{
	const struct layout_free_hist *h = &res->free;
	struct json_object *a = json_object_new_array(), *x;

	if (!a)
		return -ENOMEM;
	json_object_object_add(o, "layout_score_target",
			       res->age_rounds ? NULL : new_double(res->layout_target, 4));
	json_object_object_add(o, "layout_notes", json_object_new_string(res->layout_notes));
	json_object_object_add(o, "multi_block_files", json_object_new_uint64(res->frag_eligible));
	json_object_object_add(o, "fragmented_files", json_object_new_uint64(res->frag_files));
	json_object_object_add(o, "fragmented_share",
			       new_double(ratio(res->frag_files, res->frag_eligible), 6));
	json_object_object_add(o, "mean_extents_fragmented",
			       new_double(ratio(res->frag_runs, res->frag_files), 4));
	json_object_object_add(o, "free_blocks", json_object_new_uint64(h->free_blocks));
	json_object_object_add(o, "free_extents", json_object_new_uint64(h->extents));
	json_object_object_add(o, "chunk_bytes",
			       json_object_new_uint64(h->chunk_blocks * res->block_size));
	json_object_object_add(o, "free_chunks", json_object_new_uint64(h->free_chunks));
	json_object_object_add(o, "free_small_share",
			       new_double(ratio(h->small_blocks, h->free_blocks), 6));
	json_object_object_add(o, "free_small_target", new_double(res->free_small_target, 4));
	for (unsigned b = 0; b < LAYOUT_HIST_BUCKETS; b++) {
		if (!h->count[b])
			continue;
		x = json_object_new_object();
		if (!x) {
			json_object_put(a);
			return -ENOMEM;
		}
		json_object_object_add(x, "min_blocks", json_object_new_uint64(1ULL << b));
		json_object_object_add(x, "min_bytes",
				       json_object_new_uint64(res->block_size << b));
		json_object_object_add(x, "extents", json_object_new_uint64(h->count[b]));
		json_object_object_add(x, "blocks", json_object_new_uint64(h->blocks[b]));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "free_extent_histogram", a);
	return 0;
}

/* A bucket's lower bound as e2freefrag labels it: "4K", "1M", "2G". */
static void bucket_label(uint64_t bytes, char *buf, size_t len)
{
	static const char unit[] = "BKMGTPE";
	unsigned u = 0;

	while (bytes >= 1024 && bytes % 1024 == 0 && u < sizeof(unit) - 2) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 "%c", bytes, unit[u]);
}

/* The layout's figures as text: spread, free space, what gave way. */
static int print_layout_text(const struct create_result *res, FILE *out)
{
	const struct layout_free_hist *h = &res->free;
	char buf[32], chunk[32];
	int n = 0;

	fprintf(out,
		"  fragmented files %" PRIu64 " of %" PRIu64
		" with two or more blocks (%.1f %%), %.2f extents each\n",
		res->frag_files, res->frag_eligible,
		100 * ratio(res->frag_files, res->frag_eligible),
		ratio(res->frag_runs, res->frag_files));
	if (!h->chunk_blocks) /* no free-space figures (a mounted tree) */
		return ferror(out) ? -EIO : 0;
	fmt_bytes(h->free_blocks * res->block_size, FMT_BYTES_ADAPTIVE, buf, sizeof(buf));
	fmt_bytes(h->chunk_blocks * res->block_size, FMT_BYTES_ADAPTIVE, chunk, sizeof(chunk));
	fprintf(out, "  free space %s in %" PRIu64 " extents, %.1f %% below %s", buf, h->extents,
		100 * ratio(h->small_blocks, h->free_blocks), chunk);
	if (res->free_small_target > 0)
		fprintf(out, " (target %.1f %%)", 100 * res->free_small_target);
	fprintf(out, ", %" PRIu64 " free chunks of %s\n", h->free_chunks, chunk);
	fprintf(out, "  free extents");
	for (unsigned b = 0; b < LAYOUT_HIST_BUCKETS; b++) {
		if (!h->count[b])
			continue;
		bucket_label(res->block_size << b, buf, sizeof(buf));
		if (n && n % 8 == 0)
			fprintf(out, "\n              ");
		fprintf(out, "%s %s+ %" PRIu64, n % 8 ? "," : "", buf, h->count[b]);
		n++;
	}
	fprintf(out, "\n");
	if (res->layout_notes[0])
		fprintf(out, "  note: %s\n", res->layout_notes);
	return ferror(out) ? -EIO : 0;
}

/* The rounds kept of aging through the kernel, oldest first: ring index of the i-th. */
static const struct create_age_round *age_round(const struct create_result *res, uint32_t i)
{
	uint32_t n = res->age_series_n, kept = n < CREATE_AGE_SERIES ? n : CREATE_AGE_SERIES;

	return &res->age_series[(n - kept + i) % CREATE_AGE_SERIES];
}

static uint32_t age_kept(const struct create_result *res)
{
	return res->age_series_n < CREATE_AGE_SERIES ? res->age_series_n : CREATE_AGE_SERIES;
}

/* "age_series": per round, its score, fragmented files and free space (aging through the kernel). */
static int add_age_json(struct json_object *o, const struct create_result *res)
{
	struct json_object *a = json_object_new_array(), *x;

	if (!a)
		return -ENOMEM;
	for (uint32_t i = 0; i < age_kept(res); i++) {
		const struct create_age_round *r = age_round(res, i);

		x = json_object_new_object();
		if (!x) {
			json_object_put(a);
			return -ENOMEM;
		}
		json_object_object_add(x, "round", json_object_new_uint64(r->round));
		json_object_object_add(x, "layout_score",
				       r->layout_score >= 0 ? new_double(r->layout_score, 6) : NULL);
		json_object_object_add(x, "multi_block_files", json_object_new_uint64(r->files));
		json_object_object_add(x, "fragmented_files", json_object_new_uint64(r->fragmented));
		json_object_object_add(x, "free_blocks", json_object_new_uint64(r->free_blocks));
		json_object_object_add(x, "total_blocks", json_object_new_uint64(r->total_blocks));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "age_series", a);
	return 0;
}

/* The aging series as text: one line per round kept. */
static int print_age_text(const struct create_result *res, FILE *out)
{
	fprintf(out, "  aged through the kernel: round, layout score, fragmented files, free %%\n");
	for (uint32_t i = 0; i < age_kept(res); i++) {
		const struct create_age_round *r = age_round(res, i);

		fprintf(out, "    %4" PRIu32 "  %.6f  %" PRIu64 " of %" PRIu64 "  %.1f %%\n", r->round,
			r->layout_score, r->fragmented, r->files,
			100 * ratio(r->free_blocks, r->total_blocks));
	}
	return ferror(out) ? -EIO : 0;
}

/* What --allow-drop dropped or renamed: each count only when non-zero. */
static void add_dropped_json(struct json_object *o, const struct create_result *res)
{
	const struct {
		const char *key;
		uint64_t n;
	} d[] = {
		{ "dropped_hardlinks", res->dropped_hardlinks },
		{ "dropped_symlinks", res->dropped_symlinks },
		{ "owners_dropped", res->owners_dropped },
		{ "renamed", res->renamed },
		{ "modes_dropped", res->modes_dropped },
		{ "holes_filled", res->holes_filled },
		{ "times_rounded", res->times_rounded },
	};

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (d[i].n)
			json_object_object_add(o, d[i].key, json_object_new_uint64(d[i].n));
}

/* The same as text, one line, only when something was dropped or renamed. */
static int print_dropped_text(const struct create_result *res, FILE *out)
{
	if (!res->dropped_hardlinks && !res->dropped_symlinks && !res->owners_dropped &&
	    !res->renamed && !res->modes_dropped && !res->holes_filled && !res->times_rounded)
		return 0;
	return fprintf(out,
		       "  dropped (--allow-drop): %" PRIu64 " hard links, %" PRIu64
		       " symbolic links, %" PRIu64 " owners kept as the caller's, %" PRIu64
		       " modes as the file system's, %" PRIu64 " times rounded, %" PRIu64
		       " sparse files written whole; %" PRIu64 " names shortened or renamed\n",
		       res->dropped_hardlinks, res->dropped_symlinks, res->owners_dropped,
		       res->modes_dropped, res->times_rounded, res->holes_filled,
		       res->renamed) < 0 ? -EIO : 0;
}

/* How file data went to the target (--direct-io), when the backend chose. */
static void add_io_json(struct json_object *o, const struct create_result *res)
{
	const struct data_io_report *io = &res->io;
	struct json_object *j;

	if (!io->have || !(j = json_object_new_object()))
		return;
	json_object_object_add(j, "way", json_object_new_string(io->direct ? "direct" : "buffered"));
	json_object_object_add(j, "why", json_object_new_string(io->why ? io->why : "?"));
	if (io->why && !strcmp(io->why, "measured") && io->direct_mbps > 0) {
		json_object_object_add(j, "direct_mb_per_s", new_double(io->direct_mbps, 1));
		json_object_object_add(j, "buffered_mb_per_s", new_double(io->buffered_mbps, 1));
	}
	json_object_object_add(o, "data_io", j);
}

static void print_io_text(const struct create_result *res, FILE *out)
{
	const struct data_io_report *io = &res->io;
	const char *why = io->why ? io->why : "?";

	if (!io->have)
		return;
	fprintf(out, "  file data %s the page cache", io->direct ? "around (direct I/O)" : "through");
	if (!strcmp(why, "measured") && io->direct_mbps > 0)
		fprintf(out, " (measured at the target: direct %.0f MB/s, page cache %.0f MB/s)\n",
			io->direct_mbps, io->buffered_mbps);
	else
		fprintf(out, " (%s)\n",
			!strcmp(why, "forced") ? "as --direct-io asked" :
			!strcmp(why, "small") ? "too little data to measure: the default" :
			!strcmp(why, "refused") ? "the target refused direct I/O" : why);
}

/* --partition and --format, when given: where the file system lies and what the file is. */
/* The metadata written: special files, attributes, ACLs, preallocation; split directories. */
static int add_meta_json(struct json_object *o, const struct create_result *res)
{
	static const char *const key[SPECIAL_TYPES] = { "fifos", "sockets", "char_devices",
							 "block_devices" };
	struct json_object *m = json_object_new_object();

	if (!m)
		return -ENOMEM;
	for (int t = 0; t < SPECIAL_TYPES; t++)
		json_object_object_add(m, key[t], json_object_new_uint64(res->specials[t]));
	json_object_object_add(m, "xattr_inodes", json_object_new_uint64(res->xattr_inodes));
	json_object_object_add(m, "xattr_user", json_object_new_uint64(res->xattr_user));
	json_object_object_add(m, "xattr_security", json_object_new_uint64(res->xattr_security));
	json_object_object_add(m, "xattr_block_inodes",
			       res->have_xattr_blocks ? json_object_new_uint64(res->xattr_block_inodes) : NULL);
	json_object_object_add(m, "xattr_blocks",
			       res->have_xattr_blocks ? json_object_new_uint64(res->xattr_blocks) : NULL);
	json_object_object_add(m, "acl_access", json_object_new_uint64(res->acl_access));
	json_object_object_add(m, "acl_default", json_object_new_uint64(res->acl_default));
	json_object_object_add(m, "prealloc_files", json_object_new_uint64(res->prealloc_files));
	json_object_object_add(m, "unwritten_bytes", json_object_new_uint64(res->unwritten_bytes));
	json_object_object_add(m, "beyond_bytes", json_object_new_uint64(res->beyond_bytes));
	if (res->have_layout) {
		json_object_object_add(m, "dir_multiblock", json_object_new_uint64(res->dir_multiblock));
		json_object_object_add(m, "dir_fragmented", json_object_new_uint64(res->dir_fragmented));
		json_object_object_add(m, "dir_frag_share",
				       new_double(ratio(res->dir_fragmented, res->dir_multiblock), 6));
		json_object_object_add(m, "dir_frag_target", new_double(res->dir_frag_target, 4));
		json_object_object_add(m, "dir_layout_score", new_double(res->dir_layout_score, 6));
	}
	json_object_object_add(o, "metadata", m);
	return 0;
}

/* --include: what was copied beside the plan (its files are not in files/bytes above). */
static void add_included_json(struct json_object *o, const struct create_result *res)
{
	struct json_object *x;

	if (!res->have_included || !(x = json_object_new_object()))
		return;
	json_object_object_add(x, "files", json_object_new_uint64(res->included_files));
	json_object_object_add(x, "dirs", json_object_new_uint64(res->included_dirs));
	json_object_object_add(x, "symlinks", json_object_new_uint64(res->included_symlinks));
	json_object_object_add(x, "hardlinks", json_object_new_uint64(res->included_hardlinks));
	json_object_object_add(x, "bytes", json_object_new_uint64(res->included_bytes));
	json_object_object_add(x, "xattrs", json_object_new_uint64(res->included_xattrs));
	json_object_object_add(x, "normalized", json_object_new_boolean(res->included_normalized));
	json_object_object_add(o, "included", x);
}

static void print_included_text(const struct create_result *res, FILE *out)
{
	char b[32];

	if (!res->have_included)
		return;
	fmt_bytes(res->included_bytes, FMT_BYTES_ADAPTIVE, b, sizeof(b));
	fprintf(out,
		"  included (--include%s): %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64
		" symbolic and %" PRIu64 " hard links, %s (%" PRIu64 " bytes), %" PRIu64 " xattrs\n",
		res->included_normalized ? ", normalised" : "", res->included_files,
		res->included_dirs, res->included_symlinks, res->included_hardlinks, b,
		res->included_bytes, res->included_xattrs);
}

static int print_meta_text(const struct create_result *res, FILE *out)
{
	char b1[32], b2[32];

	if (res->have_meta) {
		fprintf(out,
			"  special files %" PRIu64 " FIFOs, %" PRIu64 " sockets, %" PRIu64
			" character and %" PRIu64 " block devices\n",
			res->specials[SPECIAL_FIFO], res->specials[SPECIAL_SOCK],
			res->specials[SPECIAL_CHR], res->specials[SPECIAL_BLK]);
		fprintf(out,
			"  xattrs on %" PRIu64 " inodes (%" PRIu64 " user, %" PRIu64
			" security); ACLs: %" PRIu64 " access, %" PRIu64 " default",
			res->xattr_inodes, res->xattr_user, res->xattr_security, res->acl_access,
			res->acl_default);
		if (res->have_xattr_blocks && res->xattr_inodes)
			fprintf(out, "; %" PRIu64 " inodes with an xattr block (%" PRIu64
				" distinct), the others all in the inode",
				res->xattr_block_inodes, res->xattr_blocks);
		fprintf(out, "\n  preallocated %" PRIu64 " files: %s unwritten inside, %s beyond the end\n",
			res->prealloc_files,
			fmt_bytes(res->unwritten_bytes, FMT_BYTES_ADAPTIVE, b1, sizeof(b1)),
			fmt_bytes(res->beyond_bytes, FMT_BYTES_ADAPTIVE, b2, sizeof(b2)));
	}
	if (res->have_layout && res->dir_frag_target > 0)
		fprintf(out,
			"  split directories %" PRIu64 " of %" PRIu64
			" with two or more blocks (%.1f %%, target %.1f %%), directory layout score %.4f\n",
			res->dir_fragmented, res->dir_multiblock,
			100 * ratio(res->dir_fragmented, res->dir_multiblock),
			100 * res->dir_frag_target, res->dir_layout_score);
	return ferror(out) ? -EIO : 0;
}

static void add_disk_json(struct json_object *o, const struct build_summary *s)
{
	if (s->partition) {
		struct json_object *d = json_object_new_object();

		json_object_object_add(d, "table", json_object_new_string(s->partition));
		json_object_object_add(d, "disk_size", json_object_new_uint64(s->disk_size));
		json_object_object_add(d, "partition", json_object_new_uint64(1));
		json_object_object_add(d, "start", json_object_new_uint64(s->part_start));
		json_object_object_add(d, "length", json_object_new_uint64(s->part_size));
		json_object_object_add(o, "disk", d);
	}
	if (s->format) {
		json_object_object_add(o, "format", json_object_new_string(s->format));
		json_object_object_add(o, "convert_seconds", new_double(s->convert_seconds, 3));
		json_object_object_add(o, "file_size", json_object_new_uint64(s->file_size));
		if (s->backing) {
			json_object_object_add(o, "backing", json_object_new_string(s->backing));
			/* true: the backing's generation evolved, its layout kept; false: laid out afresh */
			json_object_object_add(o, "evolved_from_backing",
					       json_object_new_boolean(s->evolved_from != NULL));
		}
	}
}

static void print_disk_text(const struct build_summary *s, FILE *out)
{
	char a[32], b[32], c[32];

	if (s->partition) {
		fmt_bytes(s->disk_size, FMT_BYTES_ADAPTIVE, a, sizeof(a));
		fmt_bytes(s->part_start, FMT_BYTES_ADAPTIVE, b, sizeof(b));
		fmt_bytes(s->part_size, FMT_BYTES_ADAPTIVE, c, sizeof(c));
		fprintf(out, "  disk of %s, %s table: partition 1 at %s, %s\n", a,
			!strcmp(s->partition, "gpt") ? "GPT" : "MBR", b, c);
	}
	if (s->format) {
		fmt_bytes(s->file_size, FMT_BYTES_ADAPTIVE, a, sizeof(a));
		fprintf(out, "  converted to %s by qemu-img in %.2f s (a %s file%s%s)\n", s->format,
			s->convert_seconds, a, s->backing ? ", an overlay on " : "",
			s->backing ? s->backing : "");
		if (s->evolved_from && s->gen)
			fprintf(out, "  evolved from generation %" PRIu32 " in %s: its layout kept, only what changed written\n",
				s->gen->n - 1, s->evolved_from);
	}
}

struct json_object *progress_summary_json(const struct create_result *res,
					  const struct build_summary *s)
{
	double mbps = s->seconds > 0 ? (double)res->bytes / 1e6 / s->seconds : 0;
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "target", json_object_new_string(s->target));
	if (s->diskless) /* TARGET was left as it was */
		json_object_object_add(o, "written", json_object_new_boolean(0));
	json_object_object_add(o, "fs", json_object_new_string(s->fs));
	json_object_object_add(o, "size", json_object_new_uint64(s->size));
	json_object_object_add(o, "seed", json_object_new_uint64(s->seed));
	json_object_object_add(o, "files", json_object_new_uint64(res->files));
	json_object_object_add(o, "dirs", json_object_new_uint64(res->dirs));
	json_object_object_add(o, "links", json_object_new_uint64(res->links));
	json_object_object_add(o, "bytes", json_object_new_uint64(res->bytes));
	json_object_object_add(o, "seconds", new_double(s->seconds, 3));
	json_object_object_add(o, "mb_per_s", new_double(mbps, 1));
	json_object_object_add(o, "layout_score",
			       res->have_score ? new_double(res->layout_score, 4) : NULL);
	json_object_object_add(o, "block_size", json_object_new_uint64(res->block_size));
	json_object_object_add(o, "blocks_used", json_object_new_uint64(res->blocks_used));
	json_object_object_add(o, "sparse_files", json_object_new_uint64(res->sparse_files));
	json_object_object_add(o, "hole_blocks", json_object_new_uint64(res->hole_blocks));
	if (res->have_inodes) {
		json_object_object_add(o, "inodes", json_object_new_uint64(res->inodes));
		json_object_object_add(o, "inodes_free", json_object_new_uint64(res->inodes_free));
	}
	if (res->notes[0])
		json_object_object_add(o, "notes", json_object_new_string(res->notes));
	add_dropped_json(o, res);
	add_included_json(o, res);
	add_io_json(o, res);
	add_disk_json(o, s);
	if (s->gen)
		json_object_object_add(o, "generation", gen_report_json(s->gen));
	if (add_meta_json(o, res) || (res->have_layout && add_layout_json(o, res)) ||
	    (res->age_series_n && add_age_json(o, res))) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int print_json(const struct create_result *res, const struct build_summary *s, FILE *out)
{
	struct json_object *o = progress_summary_json(res, s);
	int ret = 0;

	if (!o)
		return -ENOMEM;
	if (fprintf(out, "%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(o);
	return ret;
}

int progress_print_summary(const struct create_result *res, const struct build_summary *s,
			   int json, FILE *out)
{
	double mbps = s->seconds > 0 ? (double)res->bytes / 1e6 / s->seconds : 0;
	char bytes[32], size[32];
	int ret;

	if (json) {
		ret = print_json(res, s, out);
	} else {
		fmt_bytes(res->bytes, FMT_BYTES_ADAPTIVE, bytes, sizeof(bytes));
		fmt_bytes(s->size, FMT_BYTES_ADAPTIVE, size, sizeof(size));
		if (s->diskless)
			fprintf(out, "planned '%s' (the %s backend writes nothing: left as it was): %s, %s, seed %" PRIu64 "\n",
				s->target, s->diskless, s->fs, size, s->seed);
		else
			fprintf(out, "created '%s': %s, %s, seed %" PRIu64 "\n", s->target, s->fs,
				size, s->seed);
		print_disk_text(s, out);
		fprintf(out, "  %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64 " links\n",
			res->files, res->dirs, res->links);
		if (res->have_inodes)
			fprintf(out, "  inodes: %" PRIu64 ", free %" PRIu64 "\n", res->inodes,
				res->inodes_free);
		fprintf(out, "  %s (%" PRIu64 " bytes) of file data in %.2f s, %.1f MB/s\n", bytes,
			res->bytes, s->seconds, mbps);
		print_included_text(res, out);
		print_io_text(res, out);
		if (res->sparse_files) {
			fmt_bytes(res->hole_blocks * res->block_size, FMT_BYTES_ADAPTIVE, bytes, sizeof(bytes));
			fprintf(out, "  sparse files %" PRIu64 ", holes of %s never written\n",
				res->sparse_files, bytes);
		}
		if (res->have_score)
			fprintf(out, "  layout score %.4f", res->layout_score);
		else
			fprintf(out, "  layout score unavailable");
		if (res->have_layout && res->age_rounds)
			fprintf(out, " (aged %" PRIu32 " rounds: no target)", res->age_rounds);
		else if (res->have_layout)
			fprintf(out, " (target %.4f)", res->layout_target);
		ret = fprintf(out, ", %" PRIu64 " blocks of %" PRIu64 " bytes used\n",
			      res->blocks_used, res->block_size) < 0 ? -EIO : 0;
		if (!ret && res->have_layout)
			ret = print_layout_text(res, out);
		if (!ret)
			ret = print_meta_text(res, out);
		if (!ret && res->age_series_n)
			ret = print_age_text(res, out);
		if (!ret)
			ret = print_dropped_text(res, out);
		if (!ret && s->gen)
			ret = gen_report_text(s->gen, out);
		if (!ret && res->notes[0])
			ret = fprintf(out, "  note: %s\n", res->notes) < 0 ? -EIO : 0;
	}
	if (fflush(out) != 0)
		ret = -EIO;
	return ret;
}
