/* progress.c - the progress line of `imprint create` (files, bytes, MB/s, ETA) and its summary */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/backend.h"
#include "plan/generation.h"
#include "report/figures.h"
#include "report/gen_report.h"
#include "core/progress.h"
#include "util/strutil.h"
#include "util/util.h"

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

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
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

/* The free-extent histogram: its non-empty buckets, labelled for the text. */
static void add_free_hist(struct figs *fs, const struct create_result *res)
{
	const struct layout_free_hist *h = &res->free;
	char buf[32];

	figs_open(fs, FIG_ARRAY, "free_extent_histogram");
	for (unsigned b = 0; b < LAYOUT_HIST_BUCKETS; b++) {
		if (!h->count[b])
			continue;
		figs_open(fs, FIG_OBJECT, NULL);
		figs_u64(fs, "min_blocks", 1ULL << b);
		figs_u64(fs, "min_bytes", res->block_size << b);
		figs_u64(fs, "extents", h->count[b]);
		figs_u64(fs, "blocks", h->blocks[b]);
		bucket_label(res->block_size << b, buf, sizeof(buf));
		figs_text_string(fs, "bucket", buf);
		figs_end(fs);
	}
	figs_end(fs);
}

/* The layout's figures: the same keys as `imprint measure --json` where they exist. */
static void add_layout(struct figs *fs, const struct create_result *res)
{
	const struct layout_free_hist *h = &res->free;

	if (res->age_rounds)
		figs_null(fs, "layout_score_target");
	else
		figs_fixed(fs, "layout_score_target", res->layout_target, 4);
	figs_text_u64(fs, "age_rounds", res->age_rounds);
	figs_string(fs, "layout_notes", res->layout_notes);
	figs_u64(fs, "multi_block_files", res->frag_eligible);
	figs_u64(fs, "fragmented_files", res->frag_files);
	figs_fixed(fs, "fragmented_share", ratio(res->frag_files, res->frag_eligible), 6);
	figs_text_double(fs, "fragmented_pct", 100 * ratio(res->frag_files, res->frag_eligible));
	figs_fixed(fs, "mean_extents_fragmented", ratio(res->frag_runs, res->frag_files), 4);
	figs_u64(fs, "free_blocks", h->free_blocks);
	figs_text_u64(fs, "free_bytes", h->free_blocks * res->block_size);
	figs_u64(fs, "free_extents", h->extents);
	figs_u64(fs, "chunk_bytes", h->chunk_blocks * res->block_size);
	figs_u64(fs, "free_chunks", h->free_chunks);
	figs_fixed(fs, "free_small_share", ratio(h->small_blocks, h->free_blocks), 6);
	figs_text_double(fs, "free_small_pct", 100 * ratio(h->small_blocks, h->free_blocks));
	figs_fixed(fs, "free_small_target", res->free_small_target, 4);
	figs_text_double(fs, "free_small_target_pct", 100 * res->free_small_target);
	add_free_hist(fs, res);
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
static void add_age(struct figs *fs, const struct create_result *res)
{
	figs_open(fs, FIG_ARRAY, "age_series");
	for (uint32_t i = 0; i < age_kept(res); i++) {
		const struct create_age_round *r = age_round(res, i);

		figs_open(fs, FIG_OBJECT, NULL);
		figs_u64(fs, "round", r->round);
		if (r->layout_score >= 0)
			figs_fixed(fs, "layout_score", r->layout_score, 6);
		else
			figs_null(fs, "layout_score");
		figs_text_double(fs, "score", r->layout_score);
		figs_u64(fs, "multi_block_files", r->files);
		figs_u64(fs, "fragmented_files", r->fragmented);
		figs_u64(fs, "free_blocks", r->free_blocks);
		figs_u64(fs, "total_blocks", r->total_blocks);
		figs_text_double(fs, "free_pct", 100 * ratio(r->free_blocks, r->total_blocks));
		figs_end(fs);
	}
	figs_end(fs);
}

/* What --allow-drop dropped or renamed: in the JSON each count only when non-zero, in the
 * text all of them ("dropped"), when one is. */
static void add_dropped(struct figs *fs, const struct create_result *res)
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
	uint64_t any = 0;

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (d[i].n)
			figs_u64(fs, d[i].key, d[i].n);
	figs_text_open(fs, FIG_OBJECT, "dropped");
	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		figs_u64(fs, d[i].key, d[i].n);
		any |= d[i].n;
	}
	figs_end(fs);
	figs_text_u64(fs, "any_dropped", any != 0);
}

/* The metadata written: special files, attributes, ACLs, preallocation; split directories. */
static void add_meta(struct figs *fs, const struct create_result *res)
{
	static const char *const key[SPECIAL_TYPES] = { "fifos", "sockets", "char_devices",
							 "block_devices" };

	figs_text_u64(fs, "have_meta", res->have_meta);
	figs_open(fs, FIG_OBJECT, "metadata");
	for (int t = 0; t < SPECIAL_TYPES; t++)
		figs_u64(fs, key[t], res->specials[t]);
	figs_u64(fs, "xattr_inodes", res->xattr_inodes);
	figs_u64(fs, "xattr_user", res->xattr_user);
	figs_u64(fs, "xattr_security", res->xattr_security);
	if (res->have_xattr_blocks) {
		figs_u64(fs, "xattr_block_inodes", res->xattr_block_inodes);
		figs_u64(fs, "xattr_blocks", res->xattr_blocks);
	} else {
		figs_null(fs, "xattr_block_inodes");
		figs_null(fs, "xattr_blocks");
	}
	figs_u64(fs, "acl_access", res->acl_access);
	figs_u64(fs, "acl_default", res->acl_default);
	figs_u64(fs, "prealloc_files", res->prealloc_files);
	figs_u64(fs, "unwritten_bytes", res->unwritten_bytes);
	figs_u64(fs, "beyond_bytes", res->beyond_bytes);
	if (res->have_layout) {
		figs_u64(fs, "dir_multiblock", res->dir_multiblock);
		figs_u64(fs, "dir_fragmented", res->dir_fragmented);
		figs_fixed(fs, "dir_frag_share", ratio(res->dir_fragmented, res->dir_multiblock), 6);
		figs_text_double(fs, "dir_frag_pct", 100 * ratio(res->dir_fragmented, res->dir_multiblock));
		figs_fixed(fs, "dir_frag_target", res->dir_frag_target, 4);
		figs_text_double(fs, "dir_frag_target_pct", 100 * res->dir_frag_target);
		figs_fixed(fs, "dir_layout_score", res->dir_layout_score, 6);
	}
	figs_end(fs);
}

/* --include: what was copied beside the plan (its files are not in files/bytes above). */
static void add_included(struct figs *fs, const struct create_result *res)
{
	if (!res->have_included)
		return;
	figs_open(fs, FIG_OBJECT, "included");
	figs_u64(fs, "files", res->included_files);
	figs_u64(fs, "dirs", res->included_dirs);
	figs_u64(fs, "symlinks", res->included_symlinks);
	figs_u64(fs, "hardlinks", res->included_hardlinks);
	figs_u64(fs, "bytes", res->included_bytes);
	figs_u64(fs, "xattrs", res->included_xattrs);
	figs_bool(fs, "normalized", res->included_normalized);
	figs_end(fs);
}

/* How file data went to the target (--direct-io), when the backend chose. */
static void add_io(struct figs *fs, const struct create_result *res)
{
	const struct data_io_report *io = &res->io;
	const char *why = io->why ? io->why : "?";

	if (!io->have)
		return;
	figs_open(fs, FIG_OBJECT, "data_io");
	figs_string(fs, "way", io->direct ? "direct" : "buffered");
	figs_string(fs, "why", why);
	if (!strcmp(why, "measured") && io->direct_mbps > 0) {
		figs_fixed(fs, "direct_mb_per_s", io->direct_mbps, 1);
		figs_fixed(fs, "buffered_mb_per_s", io->buffered_mbps, 1);
	}
	figs_text_string(fs, "path", io->direct ? "around (direct I/O)" : "through");
	figs_text_string(fs, "reason",
			 !strcmp(why, "forced") ? "as --direct-io asked" :
			 !strcmp(why, "small") ? "too little data to measure: the default" :
			 !strcmp(why, "refused") ? "the target refused direct I/O" : why);
	figs_end(fs);
}

/* --partition and --format, when given: where the file system lies and what the file is. */
static void add_disk(struct figs *fs, const struct build_summary *s)
{
	if (s->partition) {
		figs_open(fs, FIG_OBJECT, "disk");
		figs_string(fs, "table", s->partition);
		figs_text_string(fs, "table_name", !strcmp(s->partition, "gpt") ? "GPT" : "MBR");
		figs_u64(fs, "disk_size", s->disk_size);
		figs_u64(fs, "partition", 1);
		figs_u64(fs, "start", s->part_start);
		figs_u64(fs, "length", s->part_size);
		figs_end(fs);
	}
	if (!s->format)
		return;
	figs_string(fs, "format", s->format);
	figs_fixed(fs, "convert_seconds", s->convert_seconds, 3);
	figs_u64(fs, "file_size", s->file_size);
	if (s->backing) {
		figs_string(fs, "backing", s->backing);
		/* true: the backing's generation evolved, its layout kept; false: laid out afresh */
		figs_bool(fs, "evolved_from_backing", s->evolved_from != NULL);
	}
	if (s->evolved_from && s->gen) {
		figs_text_string(fs, "evolved_from", s->evolved_from);
		figs_text_u64(fs, "evolved_gen", s->gen->n - 1);
	}
}

/* The summary's figures, in the JSON's order. */
static void summary_figs(struct figs *fs, const struct create_result *res,
			 const struct build_summary *s)
{
	double mbps = s->seconds > 0 ? (double)res->bytes / 1e6 / s->seconds : 0;

	figs_string(fs, "target", s->target);
	if (s->diskless) { /* TARGET was left as it was */
		figs_bool(fs, "written", false);
		figs_text_string(fs, "diskless", s->diskless);
	}
	figs_string(fs, "fs", s->fs);
	figs_u64(fs, "size", s->size);
	figs_u64(fs, "seed", s->seed);
	figs_u64(fs, "files", res->files);
	figs_u64(fs, "dirs", res->dirs);
	figs_u64(fs, "links", res->links);
	figs_u64(fs, "bytes", res->bytes);
	figs_fixed(fs, "seconds", s->seconds, 3);
	figs_fixed(fs, "mb_per_s", mbps, 1);
	if (res->have_score)
		figs_fixed(fs, "layout_score", res->layout_score, 4);
	else
		figs_null(fs, "layout_score");
	figs_u64(fs, "block_size", res->block_size);
	figs_u64(fs, "blocks_used", res->blocks_used);
	figs_u64(fs, "sparse_files", res->sparse_files);
	figs_u64(fs, "hole_blocks", res->hole_blocks);
	figs_text_u64(fs, "hole_bytes", res->hole_blocks * res->block_size);
	if (res->have_inodes) {
		figs_u64(fs, "inodes", res->inodes);
		figs_u64(fs, "inodes_free", res->inodes_free);
	}
	if (res->notes[0])
		figs_string(fs, "notes", res->notes);
	add_dropped(fs, res);
	add_included(fs, res);
	add_io(fs, res);
	add_disk(fs, s);
	if (s->gen) {
		struct json_object *g = gen_report_json(s->gen);

		figs_json_value(fs, "generation", g);
		json_object_put(g);
	}
	add_meta(fs, res);
	if (res->have_layout)
		add_layout(fs, res);
	if (res->age_series_n)
		add_age(fs, res);
}

/* ", " before a free-extent bucket, a new line after eight. */
static void bucket_sep(size_t i, size_t n, char *buf, size_t len)
{
	(void)n;
	snprintf(buf, len, "%s", !i ? "" : i % 8 ? "," : "\n              ");
}

/* The text before a generation's changes. */
static const struct fig_line summary_lines[] = {
	{ .when = "diskless", .fmt = "planned '{target}' (the {diskless} backend writes nothing: left as it was): {fs}, {size:h}, seed {seed}\n" },
	{ .when = "!diskless", .fmt = "created '{target}': {fs}, {size:h}, seed {seed}\n" },
	{ .when = "?disk", .fmt = "  disk of {disk.disk_size:h}, {disk.table_name} table: partition 1 at {disk.start:h}, {disk.length:h}\n" },
	{ .when = "format backing", .fmt = "  converted to {format} by qemu-img in {convert_seconds:.2} s (a {file_size:h} file, an overlay on {backing})\n" },
	{ .when = "format !backing", .fmt = "  converted to {format} by qemu-img in {convert_seconds:.2} s (a {file_size:h} file)\n" },
	{ .when = "evolved_from", .fmt = "  evolved from generation {evolved_gen} in {evolved_from}: its layout kept, only what changed written\n" },
	{ .fmt = "  {files} files, {dirs} directories, {links} links\n" },
	{ .when = "?inodes", .fmt = "  inodes: {inodes}, free {inodes_free}\n" },
	{ .fmt = "  {bytes:h} ({bytes} bytes) of file data in {seconds:.2} s, {mb_per_s:.1} MB/s\n" },
	{ .when = "?included included.normalized", .fmt = "  included (--include, normalised): {included.files} files, {included.dirs} directories, {included.symlinks} symbolic and {included.hardlinks} hard links, {included.bytes:h} ({included.bytes} bytes), {included.xattrs} xattrs\n" },
	{ .when = "?included !included.normalized", .fmt = "  included (--include): {included.files} files, {included.dirs} directories, {included.symlinks} symbolic and {included.hardlinks} hard links, {included.bytes:h} ({included.bytes} bytes), {included.xattrs} xattrs\n" },
	{ .when = "?data_io ?data_io.direct_mb_per_s", .fmt = "  file data {data_io.path} the page cache (measured at the target: direct {data_io.direct_mb_per_s:.0} MB/s, page cache {data_io.buffered_mb_per_s:.0} MB/s)\n" },
	{ .when = "?data_io !?data_io.direct_mb_per_s", .fmt = "  file data {data_io.path} the page cache ({data_io.reason})\n" },
	{ .when = "sparse_files", .fmt = "  sparse files {sparse_files}, holes of {hole_bytes:h} never written\n" },
	{ .when = "?layout_score", .fmt = "  layout score {layout_score:.4}" },
	{ .when = "!?layout_score", .fmt = "  layout score unavailable" },
	{ .when = "age_rounds", .fmt = " (aged {age_rounds} rounds: no target)" },
	{ .when = "?layout_score_target", .fmt = " (target {layout_score_target:.4})" },
	{ .fmt = ", {blocks_used} blocks of {block_size} bytes used\n" },
	/* the layout: spread, free space (not of a mounted tree), what gave way */
	{ .when = "?multi_block_files", .fmt = "  fragmented files {fragmented_files} of {multi_block_files} with two or more blocks ({fragmented_pct:.1} %), {mean_extents_fragmented:.2} extents each\n" },
	{ .when = "chunk_bytes", .fmt = "  free space {free_bytes:h} in {free_extents} extents, {free_small_pct:.1} % below {chunk_bytes:h}" },
	{ .when = "chunk_bytes free_small_target", .fmt = " (target {free_small_target_pct:.1} %)" },
	{ .when = "chunk_bytes", .fmt = ", {free_chunks} free chunks of {chunk_bytes:h}\n  free extents" },
	{ .when = "chunk_bytes", .rows = "free_extent_histogram", .label = bucket_sep, .fmt = "{label} {bucket}+ {extents}" },
	{ .when = "chunk_bytes", .fmt = "\n" },
	{ .when = "chunk_bytes layout_notes", .fmt = "  note: {layout_notes}\n" },
	/* the metadata */
	{ .when = "have_meta", .fmt = "  special files {metadata.fifos} FIFOs, {metadata.sockets} sockets, {metadata.char_devices} character and {metadata.block_devices} block devices\n  xattrs on {metadata.xattr_inodes} inodes ({metadata.xattr_user} user, {metadata.xattr_security} security); ACLs: {metadata.acl_access} access, {metadata.acl_default} default" },
	{ .when = "have_meta ?metadata.xattr_block_inodes metadata.xattr_inodes", .fmt = "; {metadata.xattr_block_inodes} inodes with an xattr block ({metadata.xattr_blocks} distinct), the others all in the inode" },
	{ .when = "have_meta", .fmt = "\n  preallocated {metadata.prealloc_files} files: {metadata.unwritten_bytes:h} unwritten inside, {metadata.beyond_bytes:h} beyond the end\n" },
	{ .when = "metadata.dir_frag_target", .fmt = "  split directories {metadata.dir_fragmented} of {metadata.dir_multiblock} with two or more blocks ({metadata.dir_frag_pct:.1} %, target {metadata.dir_frag_target_pct:.1} %), directory layout score {metadata.dir_layout_score:.4}\n" },
	/* aging through the kernel, one line per round kept */
	{ .when = "?age_series", .fmt = "  aged through the kernel: round, layout score, fragmented files, free %\n" },
	{ .when = "?age_series", .rows = "age_series", .fmt = "    {round:4}  {score:.6}  {fragmented_files} of {multi_block_files}  {free_pct:.1} %\n" },
	{ .when = "any_dropped", .fmt = "  dropped (--allow-drop): {dropped.dropped_hardlinks} hard links, {dropped.dropped_symlinks} symbolic links, {dropped.owners_dropped} owners kept as the caller's, {dropped.modes_dropped} modes as the file system's, {dropped.times_rounded} times rounded, {dropped.holes_filled} sparse files written whole; {dropped.renamed} names shortened or renamed\n" },
};

/* The text after it. */
static const struct fig_line summary_notes[] = {
	{ .when = "notes", .fmt = "  note: {notes}\n" },
};

struct json_object *progress_summary_json(const struct create_result *res,
					  const struct build_summary *s)
{
	struct figs fs;
	struct json_object *o;

	figs_init(&fs);
	summary_figs(&fs, res, s);
	o = figs_json(&fs, NULL);
	figs_release(&fs);
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

static int print_text(const struct create_result *res, const struct build_summary *s, FILE *out)
{
	struct figs fs;
	int ret;

	figs_init(&fs);
	summary_figs(&fs, res, s);
	ret = figs_print(&fs, NULL, summary_lines, ARRAY_SIZE(summary_lines), FMT_BYTES_ADAPTIVE,
			 out);
	if (!ret && s->gen)
		ret = gen_report_text(s->gen, out);
	if (!ret)
		ret = figs_print(&fs, NULL, summary_notes, ARRAY_SIZE(summary_notes),
				 FMT_BYTES_ADAPTIVE, out);
	figs_release(&fs);
	if (!ret && ferror(out))
		ret = -EIO;
	return ret;
}

int progress_print_summary(const struct create_result *res, const struct build_summary *s,
			   int json, FILE *out)
{
	int ret = json ? print_json(res, s, out) : print_text(res, s, out);

	if (fflush(out) != 0)
		ret = -EIO;
	return ret;
}
