/* measure_print.c - the measured figures as text or JSON */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "model/tables.h"
#include "report/json_fields.h"
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

static void print_layout_text(const struct measure_layout *l, uint64_t sparse_files,
			      uint64_t hole_blocks, FILE *out)
{
	fprintf(out, "  layout score    %.6f (%" PRIu64 " files of two or more blocks)\n",
		measure_layout_score(l), l->files);
	fprintf(out, "  fragmented      %" PRIu64 " files (%.4f of them), %.2f fragments each on average\n",
		l->fragmented, share(l->fragmented, l->files),
		l->fragmented ? (double)l->frag_fragments / (double)l->fragmented : 0);
	fprintf(out, "  extents         %" PRIu64 " (physically adjacent runs merged)\n", l->fragments);
	fprintf(out, "  sparse files    %" PRIu64 ", %" PRIu64 " hole blocks (in i_size, unmapped)\n",
		sparse_files, hole_blocks);
	fprintf(out, "  extents per file\n");
	for (unsigned k = 0; k < 34; k++)
		if (l->per_file[k]) {
			if (k == 33)
				fprintf(out, "    >32  %7" PRIu64 "\n", l->per_file[k]);
			else
				fprintf(out, "  %5u  %7" PRIu64 "\n", k, l->per_file[k]);
		}
	if (l->fragmented) {
		fprintf(out, "  fragment sizes (blocks, fragmented files)\n");
		for (unsigned b = 0; b < MEASURE_BUCKETS; b++)
			if (l->frag_size[b])
				fprintf(out, "  %7" PRIu64 "..  %7" PRIu64 "\n", (uint64_t)1 << b,
					l->frag_size[b]);
	}
}

/* Extended attributes and ACLs, when there are any. */
static void print_meta_text(const struct measure_meta *t, int image, FILE *out)
{
	if (t->dir_bytes)
		fprintf(out, "  directory fill  %.3f (entry records / size, %" PRIu64 " directories of 2 blocks or more)\n",
			(double)t->dirent_bytes / (double)t->dir_bytes, t->fill_dirs);
	if (t->dl_dirs)
		fprintf(out,
			"  directory layout score %.4f: %" PRIu64 " of %" PRIu64
			" directories of 2 blocks or more in more than one run (%.4f), %.2f runs on average\n",
			(double)t->dl_contig / (double)t->dl_pairs, t->dl_frag, t->dl_dirs,
			(double)t->dl_frag / (double)t->dl_dirs, (double)t->dl_runs / (double)t->dl_dirs);
	if (t->spread_dirs)
		fprintf(out,
			"  inode order     a directory's entries span %.2fx their count (median; 90th "
			"percentile %.2fx); %.1f%% of %" PRIu64 " directories consecutive\n",
			t->spread_median, t->spread_p90, 100 * t->spread_tight, t->spread_dirs);
	if (t->prealloc_files)
		fprintf(out,
			"  preallocated    %" PRIu64 " files: %" PRIu64 " unwritten blocks inside, %" PRIu64
			" blocks beyond the end\n",
			t->prealloc_files, t->unwritten_blocks, t->beyond_blocks);
	if (!t->entries)
		return;
	fprintf(out,
		"  xattrs          %" PRIu64 " on %" PRIu64 " inodes: %" PRIu64 " user, %" PRIu64
		" security, %" PRIu64 " system, %" PRIu64 " trusted\n",
		t->user + t->security + t->system + t->trusted, t->entries, t->user, t->security,
		t->system, t->trusted);
	if (image)
		fprintf(out,
			"                  %" PRIu64 " in inodes, %" PRIu64 " in blocks; %" PRIu64
			" inodes share %" PRIu64 " xattr blocks\n",
			t->in_inode, t->in_block, t->block_refs, t->shared_blocks);
	if (t->acl_access || t->acl_default)
		fprintf(out, "  ACLs            %" PRIu64 " access, %" PRIu64 " default\n",
			t->acl_access, t->acl_default);
}

#define M(m) JSON_U64(struct measure_meta, m)
/* Attribute counters of every target, then those only an image knows */
static const struct json_u64_field meta_counts[] = {
	JSON_U64_AS(struct measure_meta, "inodes", entries),
	M(user), M(security), M(system), M(trusted), M(acl_access), M(acl_default),
};
static const struct json_u64_field meta_image_counts[] = {
	M(in_inode), M(in_block), M(block_refs),
	JSON_U64_AS(struct measure_meta, "blocks", shared_blocks),
};
#undef M

static json_object *meta_json(const struct measure_meta *t, int image)
{
	json_object *j = json_object_new_object();

	json_add_u64s(j, t, meta_counts, ARRAY_SIZE(meta_counts));
	if (image)
		json_add_u64s(j, t, meta_image_counts, ARRAY_SIZE(meta_image_counts));
	return j;
}

void measure_print_text(const struct mresult *r, const struct mstate *m,
			const struct measure_opts *o, FILE *out)
{
	const struct measure_layout *l = &m->lay;
	char b1[32], b2[32], b3[32];
	uint64_t n = m->nfiles;

	fprintf(out, "imprint measure: '%s' (%s, block size %u)\n\n", r->target,
		r->image ? "ext2/3/4 read through libext2fs" :
		r->reader && !strcmp(r->reader, "loop") ? r->kind : "mounted tree read through the kernel",
		r->block_size);
	fprintf(out, "  files           %" PRIu64 "\n", n);
	fprintf(out, "  directories     %" PRIu64 "\n", (uint64_t)m->ndirs);
	fprintf(out, "  links           %" PRIu64 " (%" PRIu64 " hard, %" PRIu64 " symbolic)\n",
		m->hardlinks + m->symlinks, m->hardlinks, m->symlinks);
	if (m->others)
		fprintf(out,
			"  other entries   %" PRIu64 " (%" PRIu64 " FIFOs, %" PRIu64 " sockets, %" PRIu64
			" character and %" PRIu64 " block devices)\n",
			m->others, m->fifos, m->sockets, m->chardevs, m->blockdevs);
	print_meta_text(&m->meta, r->image, out);
	fprintf(out, "  bytes           %" PRIu64 " (%s)\n", m->bytes, fmt_bytes(m->bytes, HUMAN, b1, sizeof(b1)));
	fprintf(out, "  file size       mean %s, median %s, max %s\n",
		fmt_bytes(n ? m->bytes / n : 0, HUMAN, b1, sizeof(b1)),
		fmt_bytes(n ? r->sorted_size[(n - 1) / 2] : 0, HUMAN, b2, sizeof(b2)),
		fmt_bytes(n ? r->sorted_size[n - 1] : 0, HUMAN, b3, sizeof(b3)));
	fprintf(out, "  max depth       %u (directories), %u (files)\n\n", r->max_dir_depth,
		r->max_file_depth);

	fprintf(out, "file sizes\n  bytes                  files     share\n");
	for (unsigned b = 0; b <= MEASURE_BUCKETS; b++) {
		if (!r->size_hist[b])
			continue;
		if (b == 0)
			fprintf(out, "  %-20s %7" PRIu64 "  %8.5f\n", "0", r->size_hist[b],
				share(r->size_hist[b], n));
		else {
			char range[48];

			snprintf(range, sizeof(range), "%s..", fmt_bytes(1ULL << (b - 1), HUMAN, b1, sizeof(b1)));
			fprintf(out, "  %-20s %7" PRIu64 "  %8.5f\n", range, r->size_hist[b],
				share(r->size_hist[b], n));
		}
	}
	fprintf(out, "\nfiles by depth\n  depth    files     share\n");
	for (unsigned d = 0; d <= REPORT_DEPTHS; d++)
		if (r->depth_files[d])
			fprintf(out, "  %5u  %7" PRIu64 "  %8.5f\n", d, r->depth_files[d],
				share(r->depth_files[d], n));
	fprintf(out, "\nfiles per directory\n  files     dirs     share\n");
	for (unsigned b = 0; b < MEASURE_FPD_BINS + 2; b++) {
		if (!r->fpd[b])
			continue;
		if (b == MEASURE_FPD_BINS + 1)
			fprintf(out, "  >%4u  %7" PRIu64 "  %8.5f\n", MEASURE_FPD_BINS, r->fpd[b],
				share(r->fpd[b], m->ndirs));
		else
			fprintf(out, "  %5u  %7" PRIu64 "  %8.5f\n", b, r->fpd[b],
				share(r->fpd[b], m->ndirs));
	}
	fprintf(out, "\ntop extensions (of %zu)\n  ext       files     share\n", m->ext_tab.n);
	for (size_t i = 0; i < m->ext_tab.n && i < REPORT_TOP_EXT; i++) {
		size_t k = r->ext_order[i];

		fprintf(out, "  %-6s  %7" PRIu64 "  %8.5f\n",
			m->ext_tab.name[k][0] ? m->ext_tab.name[k] : "(none)", m->ext_tab.files[k],
			share(m->ext_tab.files[k], n));
	}
	fprintf(out, "\nfile ages (days before %s)\n ",
		o->against ? "the configuration's time_ref" : "the newest mtime");
	for (size_t i = 0; i < ARRAY_SIZE(age_q); i++)
		fprintf(out, " %s %.1f", age_qname[i], days(measure_quantile(r->ages, n, age_q[i])));
	fprintf(out, "\n\nlayout\n");
	if (!r->have_layout)
		fprintf(out, "  not measured: the file system does not report extents (FIEMAP)\n");
	else
		print_layout_text(l, m->sparse_files, m->hole_blocks, out);
	if (r->have_free) {
		const struct measure_free *f = &r->fr;
		uint64_t kb = r->block_size >> 10;

		fprintf(out, "\nfree space (as e2freefrag counts it)\n");
		fprintf(out, "  free blocks     %" PRIu64 " of %" PRIu64 " (%.1f%%)\n", f->free_blocks,
			r->total_blocks, 100.0 * share(f->free_blocks, r->total_blocks));
		fprintf(out, "  free extents    %" PRIu64 ": min %" PRIu64 " KB, max %" PRIu64
			" KB, avg %" PRIu64 " KB\n", f->extents, f->min_len * kb, f->max_len * kb,
			f->extents ? f->free_blocks / f->extents * kb : 0);
		fprintf(out, "  free chunks     %" PRIu64 " of %" PRIu64 " (%s chunks)\n",
			f->free_chunks, f->total_chunks,
			fmt_bytes(f->chunk_blocks * r->block_size, HUMAN, b1, sizeof(b1)));
		fprintf(out, "  Extent Size Range :  Free extents   Free Blocks  Percent\n");
		for (unsigned b = 0; b < MEASURE_BUCKETS; b++) {
			char range[48];

			if (!f->count[b])
				continue;
			free_range(r->block_size, b, range, sizeof(range));
			fprintf(out, "  %s  :  %12" PRIu64 "  %12" PRIu64 "  %6.2f%%\n", range,
				f->count[b], f->blocks[b], 100.0 * share(f->blocks[b], f->free_blocks));
		}
	}
	if (!r->against)
		return;
	fprintf(out, "\nagainst '%s' (seed %" PRIu64 ")\n\n", o->against_name ? o->against_name : "-",
		r->p->seed);
	fprintf(out, "  special dirs    %" PRIu64 " (%" PRIu64 " files), excluded from depth and files/dir\n\n",
		r->special_dirs, r->special_files);
	report_print_fit(&r->rep, out);
	fprintf(out, "\nlayout and free space    target    achieved\n");
	if (r->have_layout && r->p->age_rounds)
		fprintf(out, "  layout score          (aged)    %.6f\n", measure_layout_score(l));
	else if (r->have_layout)
		fprintf(out, "  layout score          %.6f  %.6f\n", r->p->layout_score,
			measure_layout_score(l));
	if (r->have_layout && r->p->frag_file_share > 0)
		fprintf(out, "  fragmented share      %.6f  %.6f\n", r->p->frag_file_share,
			share(l->fragmented, l->files));
	if (r->have_layout && r->p->frag_extents > 0)
		fprintf(out, "  extents/fragmented    %8.4f  %8.4f\n", r->p->frag_extents,
			l->fragmented ? (double)l->frag_fragments / (double)l->fragmented : 0);
	if (r->have_layout) {
		fprintf(out, "  sparse files          %8" PRIu64 "  %8" PRIu64 "\n",
			r->sparse_files_target, m->sparse_files);
		fprintf(out, "  hole blocks           %8" PRIu64 "  %8" PRIu64 "\n",
			r->hole_blocks_target, m->hole_blocks);
	}
	if (r->have_free && r->p->age_rounds)
		fprintf(out, "  free below chunk      (aged)    %.6f\n",
			share(r->fr.small_blocks, r->fr.free_blocks));
	else if (r->have_free)
		fprintf(out, "  free below chunk      %.6f  %.6f\n", r->p->free_frag_share,
			share(r->fr.small_blocks, r->fr.free_blocks));
	fprintf(out, "  median age (days)     %8.2f  %8.2f\n", age_median_target(r->p),
		days(measure_quantile(r->ages, n, 0.5)));
}

static json_object *u64_array(const uint64_t *v, size_t n)
{
	json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_uint64(v[i]));
	return a;
}

json_object *measure_json(const struct mresult *r, const struct mstate *m,
			  const struct measure_opts *o)
{
	const struct measure_layout *l = &m->lay;
	json_object *j = json_object_new_object(), *a, *x;
	uint64_t n = m->nfiles;
	size_t last;

#define ADD(k, v) json_object_object_add(j, k, v)
	ADD("target", json_object_new_string(r->target));
	ADD("reader", json_object_new_string(r->image ? "libext2fs" : r->reader ? r->reader : "mounted"));
	ADD("block_size", json_object_new_int((int)r->block_size));
	ADD("total_blocks", json_object_new_uint64(r->total_blocks));
	ADD("files", json_object_new_uint64(n));
	ADD("dirs", json_object_new_uint64(m->ndirs));
	ADD("links", json_object_new_uint64(m->hardlinks + m->symlinks));
	ADD("hardlinks", json_object_new_uint64(m->hardlinks));
	ADD("symlinks", json_object_new_uint64(m->symlinks));
	ADD("other_entries", json_object_new_uint64(m->others));
	ADD("fifos", json_object_new_uint64(m->fifos));
	ADD("sockets", json_object_new_uint64(m->sockets));
	ADD("char_devices", json_object_new_uint64(m->chardevs));
	ADD("block_devices", json_object_new_uint64(m->blockdevs));
	ADD("xattrs", meta_json(&m->meta, r->image));
	ADD("dir_fill", json_object_new_double(m->meta.dir_bytes ? (double)m->meta.dirent_bytes /
								    (double)m->meta.dir_bytes : 0));
	ADD("dir_multiblock", json_object_new_uint64(m->meta.dl_dirs));
	ADD("dir_fragmented", json_object_new_uint64(m->meta.dl_frag));
	ADD("dir_frag_share", json_object_new_double(m->meta.dl_dirs ? (double)m->meta.dl_frag /
									(double)m->meta.dl_dirs : 0));
	ADD("dir_layout_score", json_object_new_double(m->meta.dl_pairs ? (double)m->meta.dl_contig /
									  (double)m->meta.dl_pairs : 1));
	ADD("inode_spread_median", json_object_new_double(m->meta.spread_median));
	ADD("inode_spread_p90", json_object_new_double(m->meta.spread_p90));
	ADD("inode_consecutive_dirs", json_object_new_double(m->meta.spread_tight));
	ADD("prealloc_files", json_object_new_uint64(m->meta.prealloc_files));
	ADD("unwritten_blocks", json_object_new_uint64(m->meta.unwritten_blocks));
	ADD("beyond_blocks", json_object_new_uint64(m->meta.beyond_blocks));
	ADD("unreadable", json_object_new_uint64(r->unreadable));
	ADD("bytes", json_object_new_uint64(m->bytes));
	ADD("mean_size", json_object_new_double(n ? (double)m->bytes / (double)n : 0));
	ADD("median_size", json_object_new_uint64(n ? r->sorted_size[(n - 1) / 2] : 0));
	ADD("max_size", json_object_new_uint64(n ? r->sorted_size[n - 1] : 0));
	ADD("max_depth", json_object_new_int((int)r->max_dir_depth));
	ADD("max_file_depth", json_object_new_int((int)r->max_file_depth));
	/* [0] empty files, [b] files of [2^(b-1), 2^b) bytes */
	for (last = MEASURE_BUCKETS + 1; last > 1 && !r->size_hist[last - 1]; last--)
		;
	ADD("size_histogram", u64_array(r->size_hist, last));
	for (last = REPORT_DEPTHS + 1; last > 1 && !r->depth_files[last - 1]; last--)
		;
	ADD("files_by_depth", u64_array(r->depth_files, last));
	ADD("dirs_by_files", u64_array(r->fpd, MEASURE_FPD_BINS + 2));
	a = json_object_new_array();
	for (size_t i = 0; i < m->ext_tab.n && i < REPORT_TOP_EXT; i++) {
		size_t k = r->ext_order[i];

		x = json_object_new_object();
		json_object_object_add(x, "ext", json_object_new_string(m->ext_tab.name[k]));
		json_object_object_add(x, "files", json_object_new_uint64(m->ext_tab.files[k]));
		json_object_object_add(x, "share", json_object_new_double(share(m->ext_tab.files[k], n)));
		json_object_array_add(a, x);
	}
	ADD("extensions", json_object_new_uint64(m->ext_tab.n));
	ADD("ext_top", a);
	x = json_object_new_object();
	json_object_object_add(x, "ref", json_object_new_int64(r->age_ref));
	for (size_t i = 0; i < ARRAY_SIZE(age_q); i++)
		json_object_object_add(x, age_qname[i],
				       json_object_new_double(days(measure_quantile(r->ages, n, age_q[i]))));
	ADD("age_days", x);

	if (r->have_layout) {
		ADD("layout_score", json_object_new_double(measure_layout_score(l)));
		ADD("layout_files", json_object_new_uint64(l->files));
		ADD("fragmented_files", json_object_new_uint64(l->fragmented));
		ADD("extents", json_object_new_uint64(l->fragments));
		ADD("fragmented_extents", json_object_new_uint64(l->frag_fragments));
		ADD("max_extents", json_object_new_uint64(l->max_fragments));
		ADD("extents_per_file", u64_array(l->per_file, 34));
		for (last = MEASURE_BUCKETS; last > 0 && !l->frag_size[last - 1]; last--)
			;
		ADD("fragment_size_histogram", u64_array(l->frag_size, last));
		ADD("sparse_files", json_object_new_uint64(m->sparse_files));
		ADD("hole_blocks", json_object_new_uint64(m->hole_blocks));
	} else {
		/* the file system reports no extents (no FIEMAP) */
		ADD("layout_score", NULL);
		ADD("fragmented_files", NULL);
		ADD("extents", NULL);
		ADD("sparse_files", NULL);
		ADD("hole_blocks", NULL);
	}

	if (r->have_free) {
		const struct measure_free *f = &r->fr;

		ADD("free_blocks", json_object_new_uint64(f->free_blocks));
		ADD("free_extents", json_object_new_uint64(f->extents));
		ADD("min_free_extent", json_object_new_uint64(f->min_len));
		ADD("max_free_extent", json_object_new_uint64(f->max_len));
		ADD("chunk_bytes", json_object_new_uint64(f->chunk_blocks * r->block_size));
		ADD("total_chunks", json_object_new_uint64(f->total_chunks));
		ADD("free_chunks", json_object_new_uint64(f->free_chunks));
		ADD("free_small_share", json_object_new_double(share(f->small_blocks, f->free_blocks)));
		a = json_object_new_array();
		for (unsigned b = 0; b < MEASURE_BUCKETS; b++) {
			if (!f->count[b])
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "min_blocks", json_object_new_uint64(1ULL << b));
			json_object_object_add(x, "min_bytes",
					       json_object_new_uint64((uint64_t)r->block_size << b));
			json_object_object_add(x, "extents", json_object_new_uint64(f->count[b]));
			json_object_object_add(x, "blocks", json_object_new_uint64(f->blocks[b]));
			json_object_array_add(a, x);
		}
		ADD("free_extent_histogram", a);
	} else {
		ADD("free_extent_histogram", NULL);
	}
	if (r->against) {
		report_add_json(&r->rep, j);
		ADD("against", json_object_new_string(o->against_name ? o->against_name : ""));
		/* aging decides the layout: no score target applies (null) */
		ADD("layout_score_target",
		    r->p->age_rounds ? NULL : json_object_new_double(r->p->layout_score));
		if (r->have_layout && !r->p->age_rounds)
			ADD("layout_score_diff",
			    json_object_new_double(fabs(measure_layout_score(l) - r->p->layout_score)));
		if (r->have_free)
			ADD("free_frag_share_target", r->p->age_rounds ? NULL :
			    json_object_new_double(r->p->free_frag_share));
		ADD("age_median_days_target", json_object_new_double(age_median_target(r->p)));
		ADD("sparse_files_target", json_object_new_uint64(r->sparse_files_target));
		ADD("hole_blocks_target", json_object_new_uint64(r->hole_blocks_target));
	}
#undef ADD
	return j;
}

void measure_print_json(const struct mresult *r, const struct mstate *m,
			const struct measure_opts *o, FILE *out)
{
	json_object *j = measure_json(r, m, o);

	fprintf(out, "%s\n", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
}
