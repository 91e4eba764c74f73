/* measure_cmd.c - `imprint measure`: one walk, the figures, then text, JSON or the --html page */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/measure_print.h"
#include "cli/runs.h"
#include "read/extents_file.h"
#include "report/html.h"
#include "util/outfile.h"

int measure_run(const char *target, const struct measure_opts *o, FILE *out)
{
	char label[4200];
	struct fsread_error err = { { 0 } };
	struct mstate m = { 0 };
	struct mresult r = { 0 };
	struct outfile ext = { 0 };
	char emsg[512], note[256];
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
		ret = outfile_open(&ext, o->extents_path, "'--extents'", 0, emsg, sizeof(emsg));
		if (ret) {
			fprintf(stderr, "imprint: %s\n", emsg);
			goto out_release;
		}
		m.ext_out = ext.f;
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
		m.ext_out = NULL;
		ret = outfile_commit(&ext, emsg, sizeof(emsg));
		if (ret) {
			fprintf(stderr, "imprint: %s\n", emsg);
			goto out_release;
		}
	}
	measure_result_init(&r, fs, target, label, sizeof(label));
	if (fsread_skipped_note(fs, note, sizeof(note)))
		fprintf(stderr, "imprint: '%s': %s: the figures leave them out\n", target, note);
	if (r.image) {
		chunk = o->chunk_bytes ? o->chunk_bytes :
			o->against && o->against->free_chunk ? o->against->free_chunk : 1 << 20;
		ret = measure_free_read(fs, chunk, target, &r.fr, &m.map);
		if (ret)
			goto out_release;
		r.have_free = 1;
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
	outfile_abort(&ext);
	measure_mresult_release(&r);
	measure_mstate_release(&m);
	fsread_close(fs);
	return ret;
}
