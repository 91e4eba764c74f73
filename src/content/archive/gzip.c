/* gzip.c - gzip files: a header, a deflate stream of text or of a tar, the trailer */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/archive/archive.h"

/*
 * gzip: the header (with the original name once the file is 128 bytes or
 * more), the data as a deflate stream (see above; "gzip -1"), the CRC-32
 * and length of the data.  The data is text, or for "tgz" and one gz file
 * in five of 1 MiB or more a tar archive of text files, as much as the
 * stream's geometry takes.  The tar holds a file for every 256 KiB or so,
 * so that its headers, which deflate better than text, leave little
 * padding.  The trailer's CRC-32 costs one pass over the data, unless the
 * request holds all of it.
 */

#define GZ_NAME_MIN 128u
#define GZ_TAR_MIN  (1u << 20)

static const struct entries_fmt tar_text_fmt = {
	.left = archive_tar_left,
	.part_max = TAR_PART_MAX,
	.blocks = true,
	.text_only = true,
	.file_bytes = 256u << 10,
};

struct gz_layout {
	struct entry data;
	struct dfl_geom dg;
	uint64_t hdr; /* header bytes */
};

/*
 * The layout of a gzip file of the given key and size; plain: its data is
 * text whatever its size (a shared prefix's part, gzip_prefix_fill()).
 */
static void gz_layout_of(const struct content_model *cm, uint64_t key, uint64_t size, bool tgz,
			 bool plain, struct gz_layout *gl)
{
	static const char *const ext[] = { ".tar", ".txt", ".log" };
	char *name = gl->data.name;
	unsigned int u;
	size_t n = 0;
	struct rng r;

	memset(gl, 0, sizeof(*gl));
	rng_open(&r, key ^ SALT_GZIP, 0);
	u = (unsigned int)rng_below(&r, 100);
	gl->data.mtime = TIME_BASE + (uint32_t)rng_below(&r, TIME_SPAN);
	gl->data.key = archive_sub_key(key, SALT_GZIP, 0);
	if (size >= GZ_NAME_MIN) {
		n = archive_catf(name, 0, 16, "%s", archive_pick_word(cm, &r));
		if (rng_below(&r, 2))
			n = archive_catf(name, n, 16, "-%u", 1 + (unsigned int)rng_below(&r, 30));
		n += 4; /* every extension is four bytes: the layout does not depend on it */
	}
	gl->hdr = 10 + (n ? n + 1 : 0);
	/* a tar for tgz, and for one gz file in five of 1 MiB or more */
	archive_dfl_geom(cm, size - gl->hdr - 8, 2 * TAR_BLOCK + TAR_BLOCK / 2, &gl->dg);
	gl->data.kind = ENTRY_TAR;
	if (plain || gl->dg.n < TAR_MIN || !(tgz || (u < 20 && size >= GZ_TAR_MIN))) {
		archive_dfl_geom(cm, size - gl->hdr - 8, 0, &gl->dg);
		gl->data.kind = ENTRY_TEXT;
	}
	gl->data.size = gl->dg.n;
	if (n) {
		memcpy(name + n - 4, ext[gl->data.kind == ENTRY_TAR ? 0 : 1 + (u & 1)], 5);
		gl->data.name_len = (uint8_t)n;
	}
}

static void gz_layout(const struct gen_file *g, struct gz_layout *gl)
{
	gz_layout_of(g->cm, g->key, g->size, g->ext && !strcmp(g->ext, "tgz"), false, gl);
}

/* The 10-byte header and the original name of layout gl into h; its length. */
static uint64_t gz_head(const struct gz_layout *gl, uint8_t *h)
{
	h[0] = 0x1f;
	h[1] = 0x8b;
	h[2] = 8;			  /* deflate */
	h[3] = gl->data.name_len ? 8 : 0; /* FNAME */
	put_le32(h + 4, gl->data.mtime);
	h[8] = 4; /* XFL: the fastest compression */
	h[9] = 3; /* Unix */
	if (gl->data.name_len)
		memcpy(h + 10, gl->data.name, gl->data.name_len + 1);
	return gl->hdr;
}

/*
 * A file of a shared prefix (g->plen > 0, gen.h): one gzip member whose
 * deflate stream is two runs of slots, each of them text: the group's
 * (header and slots from g->pkey, exactly the prefix's bytes, no final
 * block) and then the file's own (slots from g->key and the final
 * block).  Slots are deflated each on its own and end on a byte, so the
 * prefix's bytes are the same in every file of the group; the trailer's
 * CRC-32 combines the two runs' and its length is theirs together.
 */
static int gzip_prefix_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct dfl_work w = { .ready = false };
	struct gz_layout a, b;
	uint8_t h[10 + 20 + 1], t[8];
	uint8_t *scratch = NULL;
	uint64_t from, plen = g->plen;
	uint32_t ca = 0, cb = 0;
	size_t cnt;
	bool whole;
	int ret = 0;

	/* the group's: a layout whose stream ends, final block aside, at plen */
	gz_layout_of(g->cm, g->pkey, plen + 8 + DFL_FINAL, false, true, &a);
	/* the file's own: its data stream from plen to the trailer */
	memset(&b, 0, sizeof(b));
	b.data.key = archive_sub_key(g->key, SALT_GZIP, 0);
	b.data.kind = ENTRY_TEXT;
	archive_dfl_geom(g->cm, g->size - plen - 8, 0, &b.dg);
	b.data.size = b.dg.n;
	whole = off <= a.hdr && off + len >= g->size - 8;

	archive_put_region(h, 0, gz_head(&a, h), off, buf, len);
	if (archive_clip(a.hdr, plen - a.hdr, off, len, &from, &cnt)) {
		ret = archive_dfl_fill(g, &a.data, NULL, &a.dg, &w, from - a.hdr,
				       buf + (from - off), cnt, whole ? &ca : NULL);
		if (ret)
			goto out_free;
	}
	if (archive_clip(plen, g->size - 8 - plen, off, len, &from, &cnt)) {
		ret = archive_dfl_fill(g, &b.data, NULL, &b.dg, &w, from - plen, buf + (from - off),
				       cnt, whole ? &cb : NULL);
		if (ret)
			goto out_free;
	}
	if (!archive_clip(g->size - 8, 8, off, len, &from, &cnt))
		goto out_free;
	if (whole) {
		a.data.crc = ca;
		b.data.crc = cb;
		a.data.has_crc = b.data.has_crc = 1;
	} else if (gen_memo_crc(g->memo, a.data.key, a.data.size, &a.data.crc) &&
		   gen_memo_crc(g->memo, b.data.key, b.data.size, &b.data.crc)) {
		a.data.has_crc = b.data.has_crc = 1;
	} else if (gen_memo_defer(g->memo, from, cnt)) {
		memset(buf + (from - off), 0, cnt);
		goto out_free;
	}
	ret = archive_entry_crc(g, &a.data, NULL, &scratch);
	if (!ret)
		ret = archive_entry_crc(g, &b.data, NULL, &scratch);
	if (ret)
		goto out_free;
	put_le32(t, (uint32_t)crc32_combine(a.data.crc, b.data.crc, (z_off_t)b.data.size));
	put_le32(t + 4, (uint32_t)(a.data.size + b.data.size));
	archive_put_region(t, g->size - 8, 8, off, buf, len);

out_free:
	archive_dfl_work_release(&w);
	free(scratch);
	return ret;
}

static int gzip_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct inner_tar inner = { .es = { NULL, 0 } };
	struct dfl_work w = { .ready = false };
	uint8_t h[10 + 20 + 1], b[8];
	uint8_t *scratch = NULL;
	struct gz_layout gl;
	uint64_t from;
	uint32_t crc = 0;
	bool whole;
	size_t cnt;
	int ret;

	ret = gen_check_request(g, GZIP_MIN, off, len);
	if (ret || !len)
		return ret;
	if (g->plen)
		return gzip_prefix_fill(g, off, buf, len);
	gz_layout(g, &gl);
	if (gl.data.kind == ENTRY_TAR) {
		inner.g = (struct gen_file){ .key = gl.data.key,
					     .file = g->file,
					     .size = gl.data.size,
					     .ext = "tar",
					     .cm = g->cm };
		ret = archive_entries_build(&inner.g, &tar_text_fmt, &inner.es);
		if (ret)
			return ret;
	}
	/* the request holds all the data: its CRC comes along */
	whole = off <= gl.hdr && off + len >= g->size - 8;

	archive_put_region(h, 0, gz_head(&gl, h), off, buf, len);
	if (archive_clip(gl.hdr, g->size - 8 - gl.hdr, off, len, &from, &cnt)) {
		ret = archive_dfl_fill(g, &gl.data, &inner, &gl.dg, &w, from - gl.hdr,
				       buf + (from - off), cnt, whole ? &crc : NULL);
		if (ret)
			goto out_free;
	}
	if (archive_clip(g->size - 8, 8, off, len, &from, &cnt)) {
		if (whole) {
			gl.data.crc = crc;
			gl.data.has_crc = 1;
		} else if (gen_memo_crc(g->memo, gl.data.key, gl.data.size, &gl.data.crc)) {
			gl.data.has_crc = 1;
		} else if (gen_memo_defer(g->memo, from, cnt)) {
			/* a part of a file made in parts: the fixup writes the trailer */
			memset(buf + (from - off), 0, cnt);
			goto out_free;
		}
		ret = archive_entry_crc(g, &gl.data, &inner, &scratch);
		if (ret)
			goto out_free;
		put_le32(b, gl.data.crc);
		put_le32(b + 4, (uint32_t)gl.data.size);
		archive_put_region(b, g->size - 8, 8, off, buf, len);
	}

out_free:
	archive_dfl_work_release(&w);
	free(scratch);
	free(inner.es.e);
	return ret;
}

const struct gen_ops gen_gzip_ops = {
	.name = "gzip",
	.min_size = GZIP_MIN,
	.fill = gzip_fill,
};
