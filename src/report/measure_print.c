/* measure_print.c - the measured figures as text or JSON */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/tables.h"
#include "report/figures.h"
#include "report/report.h"
#include "report/measure_print.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in the text report: "1.50 GiB". */
#define HUMAN (FMT_BYTES_DIGITS(2))

/* ---- printing -------------------------------------------------------- */

/* The median age the configuration asks for: its age table's, or the lognormal's. */
static double age_median_target(const struct params *p)
{
	if (p->tab.nage_q)
		return tables_quantile_at(p->tab.age_q, p->tab.nage_q, 0.5);
	return p->age_median_days;
}

/* e2freefrag's range label of bucket b (extents of [2^b, 2^(b+1)) blocks): "  4K...    8K-" */
static void free_range(unsigned block_size, unsigned b, char *buf, size_t len)
{
	static const char units[] = "KMGTPEZY";
	uint64_t lo = (uint64_t)block_size << b, hi = lo * 2;
	unsigned ul = 0, uh = 0;

	lo >>= 10;
	hi >>= 10;
	while (lo >= 1024 && ul < 7) {
		lo >>= 10;
		ul++;
	}
	while (hi >= 1024 && uh < 7) {
		hi >>= 10;
		uh++;
	}
	snprintf(buf, len, "%5" PRIu64 "%c...%5" PRIu64 "%c-", lo, units[ul], hi, units[uh]);
}

static double share(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static double days(int64_t s)
{
	return (double)s / 86400.0;
}

static const double age_q[] = { 0.01, 0.10, 0.25, 0.50, 0.75, 0.90, 0.99, 1.0 };
static const char *const age_qname[] = { "p1", "p10", "p25", "median", "p75", "p90", "p99", "max" };

/* A size class's label: "0", then "1 B..", "2 B..", "4 B..". */
static void size_label(size_t i, size_t n, char *buf, size_t len)
{
	char b[32];

	(void)n;
	if (i == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%s..", fmt_bytes(1ULL << (i - 1), HUMAN, b, sizeof(b)));
}

/* Extents per file: k, ">32" for the last. */
static void extents_label(size_t i, size_t n, char *buf, size_t len)
{
	if (i + 1 == n)
		snprintf(buf, len, ">%zu", n - 2);
	else
		snprintf(buf, len, "%zu", i);
}

/* A fragment size class: its least size in blocks. */
static void frag_label(size_t i, size_t n, char *buf, size_t len)
{
	(void)n;
	snprintf(buf, len, "%" PRIu64, (uint64_t)1 << i);
}

/* Extended attributes and ACLs: "xattrs", the counters of every target, then those only an image knows. */
static void meta_figs(const struct measure_meta *t, int image, struct figs *fs)
{
	figs_open(fs, FIG_OBJECT, "xattrs");
	figs_u64(fs, "inodes", t->entries);
	figs_u64(fs, "user", t->user);
	figs_u64(fs, "security", t->security);
	figs_u64(fs, "system", t->system);
	figs_u64(fs, "trusted", t->trusted);
	figs_u64(fs, "acl_access", t->acl_access);
	figs_u64(fs, "acl_default", t->acl_default);
	if (image) {
		figs_u64(fs, "in_inode", t->in_inode);
		figs_u64(fs, "in_block", t->in_block);
		figs_u64(fs, "block_refs", t->block_refs);
		figs_u64(fs, "blocks", t->shared_blocks);
	}
	figs_text_u64(fs, "total", t->user + t->security + t->system + t->trusted);
	figs_text_u64(fs, "acls", t->acl_access + t->acl_default);
	figs_end(fs);

	figs_double(fs, "dir_fill", t->dir_bytes ? (double)t->dirent_bytes / (double)t->dir_bytes : 0);
	figs_u64(fs, "dir_multiblock", t->dl_dirs);
	figs_u64(fs, "dir_fragmented", t->dl_frag);
	figs_double(fs, "dir_frag_share", t->dl_dirs ? (double)t->dl_frag / (double)t->dl_dirs : 0);
	figs_double(fs, "dir_layout_score", t->dl_pairs ? (double)t->dl_contig / (double)t->dl_pairs : 1);
	figs_double(fs, "inode_spread_median", t->spread_median);
	figs_double(fs, "inode_spread_p90", t->spread_p90);
	figs_double(fs, "inode_consecutive_dirs", t->spread_tight);
	figs_u64(fs, "prealloc_files", t->prealloc_files);
	figs_u64(fs, "unwritten_blocks", t->unwritten_blocks);
	figs_u64(fs, "beyond_blocks", t->beyond_blocks);
	figs_text_u64(fs, "dir_bytes", t->dir_bytes);
	figs_text_u64(fs, "fill_dirs", t->fill_dirs);
	figs_text_double(fs, "dir_runs_mean", t->dl_dirs ? (double)t->dl_runs / (double)t->dl_dirs : 0);
	figs_text_u64(fs, "spread_dirs", t->spread_dirs);
	figs_text_double(fs, "inode_consecutive_pct", 100 * t->spread_tight);
}

/* The layout's figures (null without FIEMAP). */
static void layout_figs(const struct mresult *r, const struct mstate *m, struct figs *fs)
{
	const struct measure_layout *l = &m->lay;
	size_t last;

	if (!r->have_layout) {
		/* the file system reports no extents (no FIEMAP) */
		figs_null(fs, "layout_score");
		figs_null(fs, "fragmented_files");
		figs_null(fs, "extents");
		figs_null(fs, "sparse_files");
		figs_null(fs, "hole_blocks");
		return;
	}
	figs_double(fs, "layout_score", measure_layout_score(l));
	figs_u64(fs, "layout_files", l->files);
	figs_u64(fs, "fragmented_files", l->fragmented);
	figs_u64(fs, "extents", l->fragments);
	figs_u64(fs, "fragmented_extents", l->frag_fragments);
	figs_u64(fs, "max_extents", l->max_fragments);
	figs_u64s(fs, "extents_per_file", l->per_file, 34);
	for (last = MEASURE_BUCKETS; last > 0 && !l->frag_size[last - 1]; last--)
		;
	figs_u64s(fs, "fragment_size_histogram", l->frag_size, last);
	figs_u64(fs, "sparse_files", m->sparse_files);
	figs_u64(fs, "hole_blocks", m->hole_blocks);
	figs_text_double(fs, "fragmented_share", share(l->fragmented, l->files));
	figs_text_double(fs, "fragments_mean",
			 l->fragmented ? (double)l->frag_fragments / (double)l->fragmented : 0);
}

/* Free space as e2freefrag counts it (null when not read). */
static void free_figs(const struct mresult *r, struct figs *fs)
{
	const struct measure_free *f = &r->fr;
	uint64_t kb = r->block_size >> 10;

	if (!r->have_free) {
		figs_null(fs, "free_extent_histogram");
		return;
	}
	figs_u64(fs, "free_blocks", f->free_blocks);
	figs_u64(fs, "free_extents", f->extents);
	figs_u64(fs, "min_free_extent", f->min_len);
	figs_u64(fs, "max_free_extent", f->max_len);
	figs_u64(fs, "chunk_bytes", f->chunk_blocks * r->block_size);
	figs_u64(fs, "total_chunks", f->total_chunks);
	figs_u64(fs, "free_chunks", f->free_chunks);
	figs_double(fs, "free_small_share", share(f->small_blocks, f->free_blocks));
	figs_open(fs, FIG_ARRAY, "free_extent_histogram");
	for (unsigned b = 0; b < MEASURE_BUCKETS; b++) {
		char range[48];

		if (!f->count[b])
			continue;
		figs_open(fs, FIG_OBJECT, NULL);
		figs_u64(fs, "min_blocks", 1ULL << b);
		figs_u64(fs, "min_bytes", (uint64_t)r->block_size << b);
		figs_u64(fs, "extents", f->count[b]);
		figs_u64(fs, "blocks", f->blocks[b]);
		free_range(r->block_size, b, range, sizeof(range));
		figs_text_string(fs, "range", range);
		figs_text_double(fs, "percent", 100.0 * share(f->blocks[b], f->free_blocks));
		figs_end(fs);
	}
	figs_end(fs);
	figs_text_double(fs, "free_pct", 100.0 * share(f->free_blocks, r->total_blocks));
	figs_text_u64(fs, "min_free_kb", f->min_len * kb);
	figs_text_u64(fs, "max_free_kb", f->max_len * kb);
	figs_text_u64(fs, "avg_free_kb", f->extents ? f->free_blocks / f->extents * kb : 0);
}

/* The comparison with the configuration: the fit report's figures (merged into the
 * JSON's top level, under "fit" for the text), then layout, free space and ages. */
static void against_figs(const struct mresult *r, const struct mstate *m,
			 const struct measure_opts *o, struct figs *fs)
{
	const struct measure_layout *l = &m->lay;

	figs_open(fs, FIG_MERGE, "fit");
	report_figs(&r->rep, fs);
	figs_end(fs);
	figs_string(fs, "against", o->against_name ? o->against_name : "");
	/* aging decides the layout: no score target applies (null) */
	if (r->p->age_rounds)
		figs_null(fs, "layout_score_target");
	else
		figs_double(fs, "layout_score_target", r->p->layout_score);
	if (r->have_layout && !r->p->age_rounds)
		figs_double(fs, "layout_score_diff", fabs(measure_layout_score(l) - r->p->layout_score));
	if (r->have_free && r->p->age_rounds)
		figs_null(fs, "free_frag_share_target");
	else if (r->have_free)
		figs_double(fs, "free_frag_share_target", r->p->free_frag_share);
	figs_double(fs, "age_median_days_target", age_median_target(r->p));
	figs_u64(fs, "sparse_files_target", r->sparse_files_target);
	figs_u64(fs, "hole_blocks_target", r->hole_blocks_target);
	figs_text_double(fs, "frag_file_share_target", r->p->frag_file_share);
	figs_text_double(fs, "frag_extents_target", r->p->frag_extents);
}

/* Every figure of a measurement, in the JSON's order. */
static void measure_figs(const struct mresult *r, const struct mstate *m,
			 const struct measure_opts *o, struct figs *fs)
{
	uint64_t n = m->nfiles;
	size_t last;

	figs_string(fs, "target", r->target);
	figs_string(fs, "reader", r->image ? "libext2fs" : r->reader ? r->reader : "mounted");
	figs_i64(fs, "block_size", (int)r->block_size);
	figs_u64(fs, "total_blocks", r->total_blocks);
	figs_u64(fs, "files", n);
	figs_u64(fs, "dirs", m->ndirs);
	figs_u64(fs, "links", m->hardlinks + m->symlinks);
	figs_u64(fs, "hardlinks", m->hardlinks);
	figs_u64(fs, "symlinks", m->symlinks);
	figs_u64(fs, "other_entries", m->others);
	figs_u64(fs, "fifos", m->fifos);
	figs_u64(fs, "sockets", m->sockets);
	figs_u64(fs, "char_devices", m->chardevs);
	figs_u64(fs, "block_devices", m->blockdevs);
	meta_figs(&m->meta, r->image, fs);
	figs_u64(fs, "unreadable", r->unreadable);
	figs_u64(fs, "bytes", m->bytes);
	figs_double(fs, "mean_size", n ? (double)m->bytes / (double)n : 0);
	figs_u64(fs, "median_size", n ? r->sorted_size[(n - 1) / 2] : 0);
	figs_u64(fs, "max_size", n ? r->sorted_size[n - 1] : 0);
	figs_i64(fs, "max_depth", (int)r->max_dir_depth);
	figs_i64(fs, "max_file_depth", (int)r->max_file_depth);
	/* [0] empty files, [b] files of [2^(b-1), 2^b) bytes */
	for (last = MEASURE_BUCKETS + 1; last > 1 && !r->size_hist[last - 1]; last--)
		;
	figs_u64s(fs, "size_histogram", r->size_hist, last);
	for (last = REPORT_DEPTHS + 1; last > 1 && !r->depth_files[last - 1]; last--)
		;
	figs_u64s(fs, "files_by_depth", r->depth_files, last);
	figs_u64s(fs, "dirs_by_files", r->fpd, MEASURE_FPD_BINS + 2);
	figs_u64(fs, "extensions", m->ext_tab.n);
	figs_open(fs, FIG_ARRAY, "ext_top");
	for (size_t i = 0; i < m->ext_tab.n && i < REPORT_TOP_EXT; i++) {
		size_t k = r->ext_order[i];

		figs_open(fs, FIG_OBJECT, NULL);
		figs_string(fs, "ext", m->ext_tab.name[k]);
		figs_u64(fs, "files", m->ext_tab.files[k]);
		figs_double(fs, "share", share(m->ext_tab.files[k], n));
		figs_end(fs);
	}
	figs_end(fs);
	figs_open(fs, FIG_OBJECT, "age_days");
	figs_i64(fs, "ref", r->age_ref);
	for (size_t i = 0; i < ARRAY_SIZE(age_q); i++)
		figs_double(fs, age_qname[i], days(measure_quantile(r->ages, n, age_q[i])));
	figs_end(fs);
	layout_figs(r, m, fs);
	free_figs(r, fs);
	if (r->against)
		against_figs(r, m, o, fs);

	figs_text_string(fs, "reader_text", r->image ? "ext2/3/4 read through libext2fs" :
			r->reader && !strcmp(r->reader, "loop") ? r->kind :
			"mounted tree read through the kernel");
	figs_text_string(fs, "age_base", o->against ? "the configuration's time_ref" : "the newest mtime");
}

/* The text, from those figures. */
static const struct fig_line text_lines[] = {
	{ .fmt = "imprint measure: '{target}' ({reader_text}, block size {block_size})\n\n"
		 "  files           {files}\n"
		 "  directories     {dirs}\n"
		 "  links           {links} ({hardlinks} hard, {symlinks} symbolic)\n" },
	{ .when = "other_entries",
	  .fmt = "  other entries   {other_entries} ({fifos} FIFOs, {sockets} sockets, {char_devices}"
		 " character and {block_devices} block devices)\n" },
	{ .when = "dir_bytes",
	  .fmt = "  directory fill  {dir_fill:.3} (entry records / size, {fill_dirs} directories of 2"
		 " blocks or more)\n" },
	{ .when = "dir_multiblock",
	  .fmt = "  directory layout score {dir_layout_score:.4}: {dir_fragmented} of {dir_multiblock}"
		 " directories of 2 blocks or more in more than one run ({dir_frag_share:.4}),"
		 " {dir_runs_mean:.2} runs on average\n" },
	{ .when = "spread_dirs",
	  .fmt = "  inode order     a directory's entries span {inode_spread_median:.2}x their count"
		 " (median; 90th percentile {inode_spread_p90:.2}x); {inode_consecutive_pct:.1}% of"
		 " {spread_dirs} directories consecutive\n" },
	{ .when = "prealloc_files",
	  .fmt = "  preallocated    {prealloc_files} files: {unwritten_blocks} unwritten blocks inside,"
		 " {beyond_blocks} blocks beyond the end\n" },
	{ .when = "xattrs.inodes",
	  .fmt = "  xattrs          {xattrs.total} on {xattrs.inodes} inodes: {xattrs.user} user,"
		 " {xattrs.security} security, {xattrs.system} system, {xattrs.trusted} trusted\n" },
	{ .when = "xattrs.inodes ?xattrs.in_inode",
	  .fmt = "                  {xattrs.in_inode} in inodes, {xattrs.in_block} in blocks;"
		 " {xattrs.block_refs} inodes share {xattrs.blocks} xattr blocks\n" },
	{ .when = "xattrs.inodes xattrs.acls",
	  .fmt = "  ACLs            {xattrs.acl_access} access, {xattrs.acl_default} default\n" },
	{ .fmt = "  bytes           {bytes} ({bytes:h})\n"
		 "  file size       mean {mean_size:h}, median {median_size:h}, max {max_size:h}\n"
		 "  max depth       {max_depth} (directories), {max_file_depth} (files)\n\n"
		 "file sizes\n  bytes                  files     share\n" },
	{ .rows = "size_histogram", .skip_zero = true, .label = size_label, .per = "files",
	  .fmt = "  {label:-20} {.:7}  {share:8.5}\n" },
	{ .fmt = "\nfiles by depth\n  depth    files     share\n" },
	{ .rows = "files_by_depth", .skip_zero = true, .per = "files",
	  .fmt = "  {#:5}  {.:7}  {share:8.5}\n" },
	{ .fmt = "\nfiles per directory\n  files     dirs     share\n" },
	{ .rows = "dirs_by_files", .skip_zero = true, .label = report_fpd_label, .per = "dirs",
	  .fmt = "  {label:5}  {.:7}  {share:8.5}\n" },
	{ .fmt = "\ntop extensions (of {extensions})\n  ext       files     share\n" },
	{ .rows = "ext_top", .fmt = "  {ext:-6|(none)}  {files:7}  {share:8.5}\n" },
	{ .fmt = "\nfile ages (days before {age_base})\n "
		 " p1 {age_days.p1:.1} p10 {age_days.p10:.1} p25 {age_days.p25:.1}"
		 " median {age_days.median:.1} p75 {age_days.p75:.1} p90 {age_days.p90:.1}"
		 " p99 {age_days.p99:.1} max {age_days.max:.1}\n\nlayout\n" },
	{ .when = "!?layout_score",
	  .fmt = "  not measured: the file system does not report extents (FIEMAP)\n" },
	{ .when = "?layout_score",
	  .fmt = "  layout score    {layout_score:.6} ({layout_files} files of two or more blocks)\n"
		 "  fragmented      {fragmented_files} files ({fragmented_share:.4} of them),"
		 " {fragments_mean:.2} fragments each on average\n"
		 "  extents         {extents} (physically adjacent runs merged)\n"
		 "  sparse files    {sparse_files}, {hole_blocks} hole blocks (in i_size, unmapped)\n"
		 "  extents per file\n" },
	{ .when = "?layout_score", .rows = "extents_per_file", .skip_zero = true,
	  .label = extents_label, .fmt = "  {label:5}  {.:7}\n" },
	{ .when = "?layout_score fragmented_files",
	  .fmt = "  fragment sizes (blocks, fragmented files)\n" },
	{ .when = "?layout_score fragmented_files", .rows = "fragment_size_histogram",
	  .skip_zero = true, .label = frag_label, .fmt = "  {label:7}..  {.:7}\n" },
	{ .when = "?free_blocks",
	  .fmt = "\nfree space (as e2freefrag counts it)\n"
		 "  free blocks     {free_blocks} of {total_blocks} ({free_pct:.1}%)\n"
		 "  free extents    {free_extents}: min {min_free_kb} KB, max {max_free_kb} KB,"
		 " avg {avg_free_kb} KB\n"
		 "  free chunks     {free_chunks} of {total_chunks} ({chunk_bytes:h} chunks)\n"
		 "  Extent Size Range :  Free extents   Free Blocks  Percent\n" },
	{ .when = "?free_blocks", .rows = "free_extent_histogram",
	  .fmt = "  {range}  :  {extents:12}  {blocks:12}  {percent:6.2}%\n" },
};

/* The comparison's text: its paths in "fit" first, then the top. */
static const struct fig_line against_lines[] = {
	{ .fmt = "\nagainst '{against|-}' (seed {seed})\n\n"
		 "  special dirs    {special_dirs} ({special_files} files), excluded from depth and"
		 " files/dir\n\n" },
};

static const struct fig_line against_tail[] = {
	{ .fmt = "\nlayout and free space    target    achieved\n" },
	{ .when = "?layout_score !?layout_score_target",
	  .fmt = "  layout score          (aged)    {layout_score:.6}\n" },
	{ .when = "?layout_score ?layout_score_target",
	  .fmt = "  layout score          {layout_score_target:.6}  {layout_score:.6}\n" },
	{ .when = "?layout_score frag_file_share_target",
	  .fmt = "  fragmented share      {frag_file_share_target:.6}  {fragmented_share:.6}\n" },
	{ .when = "?layout_score frag_extents_target",
	  .fmt = "  extents/fragmented    {frag_extents_target:8.4}  {fragments_mean:8.4}\n" },
	{ .when = "?layout_score",
	  .fmt = "  sparse files          {sparse_files_target:8}  {sparse_files:8}\n"
		 "  hole blocks           {hole_blocks_target:8}  {hole_blocks:8}\n" },
	{ .when = "?free_blocks !?free_frag_share_target",
	  .fmt = "  free below chunk      (aged)    {free_small_share:.6}\n" },
	{ .when = "?free_frag_share_target",
	  .fmt = "  free below chunk      {free_frag_share_target:.6}  {free_small_share:.6}\n" },
	{ .fmt = "  median age (days)     {age_median_days_target:8.2}  {age_days.median:8.2}\n" },
};

void measure_print_text(const struct mresult *r, const struct mstate *m,
			const struct measure_opts *o, FILE *out)
{
	struct figs fs;

	figs_init(&fs);
	measure_figs(r, m, o, &fs);
	if (!figs_print(&fs, NULL, text_lines, ARRAY_SIZE(text_lines), HUMAN, out) && r->against &&
	    !figs_print(&fs, "fit", against_lines, ARRAY_SIZE(against_lines), HUMAN, out) &&
	    !report_print_fit_figs(&fs, "fit", out))
		figs_print(&fs, NULL, against_tail, ARRAY_SIZE(against_tail), HUMAN, out);
	figs_release(&fs);
}

json_object *measure_json(const struct mresult *r, const struct mstate *m,
			  const struct measure_opts *o)
{
	struct figs fs;
	json_object *j;

	figs_init(&fs);
	measure_figs(r, m, o, &fs);
	j = figs_json(&fs, NULL);
	figs_release(&fs);
	return j;
}

void measure_print_json(const struct mresult *r, const struct mstate *m,
			const struct measure_opts *o, FILE *out)
{
	json_object *j = measure_json(r, m, o);

	if (j && o->json_extra) {
		json_object_object_foreach(o->json_extra, key, val)
			json_object_object_add(j, key, json_object_get(val));
	}
	fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}
