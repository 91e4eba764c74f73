/* measure.c - `imprint measure`: one walk; the model's figures, the layout and the free space */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "readback/content_stats.h"
#include "readback/extents_file.h"
#include "readback/html.h"
#include "model/dist.h"
#include "model/ext.h"
#include "readback/measure.h"
#include "readback/measure_int.h"
#include "plan/plan.h"
#include "readback/report.h"
#include "content/sparse.h"

/* ---- the command ----------------------------------------------------- */

int measure_run(const char *target, const struct measure_opts *o, FILE *out)
{
	char label[4200];
	struct fsread_error err = { { 0 } };
	struct mstate m = { 0 };
	struct mresult r = { 0 };
	struct fsread *fs = NULL;
	const struct fsread_geometry *geo;
	uint64_t chunk;
	int ret;

	m.o = o;
	m.stack_cap = 64;
	m.stack = malloc(m.stack_cap * sizeof(*m.stack));
	if (!m.stack) {
		ret = -ENOMEM;
		goto out_nomem;
	}
	ret = fsread_open_part(target, o->partition, FSREAD_EXTENTS | FSREAD_FREE, &fs, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	m.fs = fs;
	geo = fsread_geometry(fs);
	if (o->html_path) {
		/* an image's blocks that are neither file data nor free are metadata */
		ret = html_map_init(&m.map, geo->total_blocks, geo->group_blocks,
				    fsread_is_image(fs));
		if (ret == -ENOMEM)
			goto out_nomem;
	}
	if (o->extents_path) {
		m.ext_out = fopen(o->extents_path, "w");
		if (!m.ext_out) {
			ret = -errno;
			fprintf(stderr, "imprint: cannot create '%s': %s\n", o->extents_path,
				strerror(errno));
			goto out_release;
		}
		extents_file_write_header(m.ext_out, geo->block_size);
	}
	ret = fsread_walk(fs, measure_on_entry, &m, &err);
	measure_meta_finish(&m, geo->block_size);
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
	if (fsread_partition(fs)) {
		snprintf(label, sizeof(label), "%s, partition %d", target, fsread_partition(fs));
		r.target = label;
	} else {
		r.target = target;
	}
	r.image = fsread_is_image(fs);
	r.block_size = geo->block_size;
	r.total_blocks = geo->total_blocks;
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
		for (size_t i = 0; m.map.cnt && i < nfe; i++)
			html_map_add(&m.map, fe[i].physical, fe[i].len, HTML_MAP_FREE);
	}
	ret = measure_compute(&r, &m, o);
	if (ret == -ENOMEM)
		goto out_nomem;
	if (ret)
		goto out_release;
	if (out && o->json)
		measure_print_json(&r, &m, o, out);
	else if (out)
		measure_print_text(&r, &m, o, out);
	if (o->html_path)
		ret = measure_html(&r, &m, o);
	goto out_release;
out_nomem:
	fprintf(stderr, "imprint: '%s': out of memory\n", target);
out_release:
	if (m.ext_out)
		fclose(m.ext_out);
	measure_mresult_release(&r);
	measure_mstate_release(&m);
	fsread_close(fs);
	return ret;
}
