/* measure.c - `imprint measure`: one walk; the model's figures, the layout and the free space */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "analysis/content_stats.h"
#include "read/extents_file.h"
#include "analysis/diskmap.h"
#include "model/dist.h"
#include "model/ext.h"
#include "analysis/measure.h"
#include "analysis/measure_int.h"
#include "plan/plan.h"
#include "content/sparse.h"

/* ---- the command ----------------------------------------------------- */

void measure_result_init(struct mresult *r, struct fsread *fs, const char *target, char *label,
			 size_t len)
{
	if (fsread_partition(fs)) {
		snprintf(label, len, "%s, partition %d", target, fsread_partition(fs));
		r->target = label;
	} else {
		r->target = target;
	}
	r->image = fsread_is_image(fs);
	r->reader = fsread_reader(fs);
	r->kind = fsread_kind(fs);
	r->block_size = fsread_geometry(fs)->block_size;
	r->total_blocks = fsread_geometry(fs)->total_blocks;
	r->have_layout = fsread_has_extents(fs);
	r->unreadable = fsread_unreadable(fs);
}

int measure_free_read(struct fsread *fs, uint64_t chunk_bytes, const char *target,
		      struct measure_free *fr, struct html_map *map)
{
	struct fsread_error err = { { 0 } };
	const struct fsread_extent *fe;
	const struct fsread_geometry *geo = fsread_geometry(fs);
	uint64_t chunk = chunk_bytes / geo->block_size;
	size_t nfe;
	int ret;

	ret = fsread_free_extents(fs, &fe, &nfe, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		return ret;
	}
	/* 1 KiB blocks: block 0 is the boot block, never free */
	ret = measure_free_hist(fe, nfe, geo->total_blocks, geo->block_size == 1024 ? 1 : 0,
				chunk ? chunk : 1, fr);
	if (ret) {
		fprintf(stderr, "imprint: '%s': corrupt: the free extents are out of order\n", target);
		return ret;
	}
	for (size_t i = 0; map && map->cnt && i < nfe; i++)
		html_map_add(map, fe[i].physical, fe[i].len, HTML_MAP_FREE);
	return 0;
}
