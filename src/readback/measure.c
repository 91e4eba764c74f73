/* measure.c - `imprint measure`: one walk; the model's figures, the layout and the free space */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "readback/content_stats.h"
#include "readback/extents_file.h"
#include "model/dist.h"
#include "model/ext.h"
#include "readback/measure.h"
#include "readback/measure_int.h"
#include "plan/plan.h"
#include "readback/report.h"
#include "content/sparse.h"

/* ---- the arithmetic --------------------------------------------------- */

unsigned measure_log2(uint64_t v)
{
	return v ? 63 - (unsigned)__builtin_clzll(v) : 0;
}

uint64_t measure_layout_add(struct measure_layout *l, const struct fsread_extent *ext, size_t n)
{
	uint64_t blocks = 0, frags = 0, contig = 0;

	for (size_t i = 0; i < n; i++) {
		blocks += ext[i].len;
		if (ext[i].len)
			contig += ext[i].len - 1;
		if (i && ext[i - 1].physical + ext[i - 1].len == ext[i].physical)
			contig++;
		else if (ext[i].len)
			frags++;
	}
	l->fragments += frags;
	if (frags > l->max_fragments)
		l->max_fragments = frags;
	l->per_file[frags > 32 ? 33 : frags]++;
	if (blocks < 2)
		return frags;
	l->files++;
	l->pairs += blocks - 1;
	l->contiguous += contig;
	if (frags < 2)
		return frags;
	l->fragmented++;
	l->frag_fragments += frags;
	l->frag_blocks += blocks;
	/* the fragments' sizes: physically adjacent runs make one */
	for (size_t i = 0; i < n;) {
		uint64_t len = ext[i].len;
		size_t j = i + 1;

		while (j < n && ext[j - 1].physical + ext[j - 1].len == ext[j].physical)
			len += ext[j++].len;
		if (len)
			l->frag_size[measure_log2(len)]++;
		i = j;
	}
	return frags;
}

double measure_layout_score(const struct measure_layout *l)
{
	return l->pairs ? (double)l->contiguous / (double)l->pairs : 1.0;
}

int measure_free_hist(const struct fsread_extent *runs, size_t n, uint64_t nblocks,
		      uint64_t first_data_block, uint64_t chunk_blocks, struct measure_free *f)
{
	uint64_t prev_end = 0;

	memset(f, 0, sizeof(*f));
	if (!chunk_blocks)
		return -EINVAL;
	f->chunk_blocks = chunk_blocks;
	f->total_chunks = (nblocks + chunk_blocks) / chunk_blocks;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = runs[i].physical, len = runs[i].len, e = s + len;
		unsigned b;

		if (!len || s < prev_end || e > nblocks || e < s)
			return -EINVAL;
		prev_end = e;
		b = measure_log2(len);
		f->count[b]++;
		f->blocks[b] += len;
		f->free_blocks += len;
		f->extents++;
		if (!f->min_len || len < f->min_len)
			f->min_len = len;
		if (len > f->max_len)
			f->max_len = len;
		if (len < chunk_blocks)
			f->small_blocks += len;
		/* wholly free aligned chunks inside [max(s, first_data_block), e) */
		if (s < first_data_block)
			s = first_data_block;
		if (s < e) {
			uint64_t c0 = (s + chunk_blocks - 1) / chunk_blocks, c1 = e / chunk_blocks;

			if (c1 > c0)
				f->free_chunks += c1 - c0;
		}
	}
	return 0;
}

int64_t measure_quantile(const int64_t *v, size_t n, double q)
{
	double r;
	size_t k;

	if (!n)
		return 0;
	r = ceil(q * (double)n);
	k = r < 1 ? 0 : (size_t)r - 1;
	return v[k < n ? k : n - 1];
}

/* ---- the command ----------------------------------------------------- */

int measure_run(const char *target, const struct measure_opts *o, FILE *out)
{
	struct fsread_error err = { { 0 } };
	struct mstate m = { 0 };
	struct mresult r = { 0 };
	struct fsread *fs = NULL;
	uint64_t chunk;
	int ret;

	m.o = o;
	m.stack_cap = 64;
	m.stack = malloc(m.stack_cap * sizeof(*m.stack));
	if (!m.stack) {
		ret = -ENOMEM;
		goto out_nomem;
	}
	ret = fsread_open(target, FSREAD_EXTENTS | FSREAD_FREE, &fs, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	m.fs = fs;
	if (o->extents_path) {
		m.ext_out = fopen(o->extents_path, "w");
		if (!m.ext_out) {
			ret = -errno;
			fprintf(stderr, "imprint: cannot create '%s': %s\n", o->extents_path,
				strerror(errno));
			goto out_release;
		}
		extents_file_write_header(m.ext_out, fsread_block_size(fs));
	}
	ret = fsread_walk(fs, on_entry, &m, &err);
	if (ret) {
		if (m.ret == -ENOMEM || ret == -ENOMEM)
			goto out_nomem;
		if (m.ret == -E2BIG)
			fprintf(stderr, "imprint: '%s': the tree is too deep to measure\n", target);
		else
			fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	if (m.ext_out) {
		FILE *f = m.ext_out;

		m.ext_out = NULL;
		if (ferror(f) | fclose(f)) {
			ret = -EIO;
			fprintf(stderr, "imprint: cannot write '%s'\n", o->extents_path);
			goto out_release;
		}
	}
	r.target = target;
	r.image = fsread_is_image(fs);
	r.block_size = fsread_block_size(fs);
	r.total_blocks = fsread_total_blocks(fs);
	r.have_layout = fsread_has_extents(fs);
	r.unreadable = fsread_unreadable(fs);
	if (r.unreadable)
		fprintf(stderr, "imprint: '%s': %" PRIu64 " directories or files could not be read (permission): the figures leave them out\n",
			target, r.unreadable);
	if (r.image) {
		const struct fsread_extent *fe;
		size_t nfe;

		ret = fsread_free_extents(fs, &fe, &nfe, &err);
		if (ret) {
			fprintf(stderr, "imprint: %s\n", err.msg);
			goto out_release;
		}
		chunk = o->chunk_bytes ? o->chunk_bytes :
			o->against && o->against->free_chunk ? o->against->free_chunk : 1 << 20;
		chunk /= r.block_size;
		if (!chunk)
			chunk = 1;
		/* 1 KiB blocks: block 0 is the boot block, never free */
		ret = measure_free_hist(fe, nfe, r.total_blocks, r.block_size == 1024 ? 1 : 0, chunk,
					&r.fr);
		if (ret) {
			fprintf(stderr, "imprint: '%s': corrupt: the free extents are out of order\n",
				target);
			goto out_release;
		}
		r.have_free = 1;
	}
	ret = compute(&r, &m, o);
	if (ret == -ENOMEM)
		goto out_nomem;
	if (ret)
		goto out_release;
	if (o->json)
		print_json(&r, &m, o, out);
	else
		print_text(&r, &m, o, out);
	goto out_release;
out_nomem:
	fprintf(stderr, "imprint: '%s': out of memory\n", target);
out_release:
	if (m.ext_out)
		fclose(m.ext_out);
	mresult_release(&r);
	mstate_release(&m);
	fsread_close(fs);
	return ret;
}
