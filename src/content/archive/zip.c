/* zip.c - ZIP archives: local headers and data, the central directory and the end records */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "content/gen.h"
#include "content/archive/archive.h"

/*
 * ZIP: local header and data of each member, the central directory, the
 * end record.  Text members are deflated (method 8, as "zip -1" would:
 * see the deflate streams above), the others are already compressed data
 * (incompressible bytes) and stored (method 0), as are text members of
 * fewer than DFL_MIN bytes.  Members are dealt the archive's bytes, and a
 * deflated member holds as much text as its stream's geometry takes.
 * Archives of 1 GiB and more are ZIP64 (so that no member's data reaches
 * 4 GiB in a plain one): every header then carries its sizes and offset
 * in a ZIP64 extra field, and a ZIP64 end record and its locator come
 * before the end record.  A local header's CRC-32 costs one pass over its
 * member's data (none when the request holds the whole member); the
 * central directory's, one pass over all members.
 */

#define ZIP_LOCAL     30u
#define ZIP_CENTRAL   46u
#define ZIP_END	      22u
#define ZIP64_END     56u
#define ZIP64_LOCATOR 20u
#define ZIP64_LOCAL_X 20u /* extra field: id, length, two sizes */
#define ZIP64_CDIR_X  28u /* extra field: id, length, two sizes, offset */

struct zip_layout {
	struct entries es;
	bool z64;
	uint64_t cd_off, cd_len, end_off;
};

static bool zip64(uint64_t size)
{
	return size >= (UINT64_C(1) << 30);
}

static uint64_t zip_local_len(const struct entry *e, bool z64)
{
	return ZIP_LOCAL + e->name_len + (z64 ? ZIP64_LOCAL_X : 0);
}

static uint64_t zip_cdir_len(const struct entry *e, bool z64)
{
	return ZIP_CENTRAL + e->name_len + (z64 ? ZIP64_CDIR_X : 0);
}

static int64_t zip_left(const struct entries *es, uint64_t size)
{
	bool z64 = zip64(size);
	int64_t left = (int64_t)size - ZIP_END - (z64 ? ZIP64_END + ZIP64_LOCATOR : 0);

	for (unsigned int i = 0; i < es->n; i++)
		left -= (int64_t)(zip_local_len(&es->e[i], z64) + zip_cdir_len(&es->e[i], z64));
	return left;
}

static const struct entries_fmt zip_fmt = {
	.left = zip_left,
	.part_max = UINT64_MAX,
};

static int zip_layout(const struct gen_file *g, struct zip_layout *zl)
{
	uint64_t pos = 0;
	int ret;

	zl->z64 = zip64(g->size);
	ret = archive_entries_build(g, &zip_fmt, &zl->es);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < zl->es.n; i++) {
		struct entry *e = &zl->es.e[i];

		/* the dealt bytes are the member's in the archive */
		e->csize = e->size;
		if (e->kind == ENTRY_BINARY)
			e->kind = ENTRY_RANDOM;
		if (e->kind == ENTRY_TEXT && e->csize >= DFL_MIN) {
			struct dfl_geom dg;

			archive_dfl_geom(g->cm, e->csize, 0, &dg);
			e->method = 8;
			e->size = dg.n;
		}
		e->off = pos;
		pos += zip_local_len(e, zl->z64) + e->csize;
	}
	zl->cd_off = pos;
	for (unsigned int i = 0; i < zl->es.n; i++)
		pos += zip_cdir_len(&zl->es.e[i], zl->z64);
	zl->cd_len = pos - zl->cd_off;
	zl->end_off = pos;
	return 0;
}

static uint16_t zip_version(const struct entry *e, bool z64)
{
	if (z64)
		return 45;
	return e->kind == ENTRY_DIR || e->method == 8 ? 20 : 10;
}

/*
 * The fields a local header and a central directory entry share, from
 * "version needed" to "file name length" (24 bytes at p).
 */
static void zip_shared(const struct entry *e, bool z64, uint8_t *p)
{
	uint16_t time, date;

	archive_dos_time(e->mtime, &time, &date);
	put_le16(p, zip_version(e, z64));
	put_le16(p + 2, e->method == 8 ? 6 : 0); /* flags: deflated "super fast" */
	put_le16(p + 4, e->method);
	put_le16(p + 6, time);
	put_le16(p + 8, date);
	put_le32(p + 10, e->crc);
	put_le32(p + 14, z64 ? UINT32_MAX : (uint32_t)e->csize);
	put_le32(p + 18, z64 ? UINT32_MAX : (uint32_t)e->size);
	put_le16(p + 22, e->name_len);
}

/*
 * The name at p, then with z64 the ZIP64 extra field of xlen bytes: the
 * sizes, and in the central directory's the offset too.
 */
static void zip_name_x(const struct entry *e, bool z64, unsigned xlen, uint8_t *p)
{
	memcpy(p, e->name, e->name_len);
	if (!z64)
		return;
	p += e->name_len;
	put_le16(p, 0x0001);
	put_le16(p + 2, xlen - 4);
	put_le64(p + 4, e->size);
	put_le64(p + 12, e->csize);
	if (xlen == ZIP64_CDIR_X)
		put_le64(p + 20, e->off);
}

static size_t zip_local(const struct entry *e, bool z64, uint8_t *p)
{
	put_le32(p, 0x04034b50);
	zip_shared(e, z64, p + 4);
	put_le16(p + 28, z64 ? ZIP64_LOCAL_X : 0);
	zip_name_x(e, z64, ZIP64_LOCAL_X, p + ZIP_LOCAL);
	return (size_t)zip_local_len(e, z64);
}

static size_t zip_cdir(const struct entry *e, bool z64, uint8_t *p)
{
	bool dir = e->kind == ENTRY_DIR;

	put_le32(p, 0x02014b50);
	put_le16(p + 4, 3 << 8 | (z64 ? 45 : 30)); /* made by: Unix, 3.0 or 4.5 */
	zip_shared(e, z64, p + 6);
	put_le16(p + 30, z64 ? ZIP64_CDIR_X : 0);
	put_le16(p + 32, 0); /* comment */
	put_le16(p + 34, 0); /* disk */
	put_le16(p + 36, e->kind == ENTRY_TEXT);
	put_le32(p + 38, (dir ? 040755u : 0100644u) << 16 | (dir ? 0x10 : 0));
	put_le32(p + 42, z64 ? UINT32_MAX : (uint32_t)e->off);
	zip_name_x(e, z64, ZIP64_CDIR_X, p + ZIP_CENTRAL);
	return (size_t)zip_cdir_len(e, z64);
}

/* The ZIP64 end record and locator (if any) and the end record. */
static size_t zip_end(const struct zip_layout *zl, uint8_t *p)
{
	uint64_t n = zl->es.n;
	size_t at = 0;

	if (zl->z64) {
		put_le32(p, 0x06064b50);
		put_le64(p + 4, ZIP64_END - 12);
		put_le16(p + 12, 3 << 8 | 45);
		put_le16(p + 14, 45);
		put_le32(p + 16, 0);
		put_le32(p + 20, 0);
		put_le64(p + 24, n);
		put_le64(p + 32, n);
		put_le64(p + 40, zl->cd_len);
		put_le64(p + 48, zl->cd_off);
		put_le32(p + 56, 0x07064b50);
		put_le32(p + 60, 0);
		put_le64(p + 64, zl->end_off);
		put_le32(p + 72, 1);
		at = ZIP64_END + ZIP64_LOCATOR;
	}
	put_le32(p + at, 0x06054b50);
	put_le16(p + at + 4, 0);
	put_le16(p + at + 6, 0);
	put_le16(p + at + 8, (uint16_t)n);
	put_le16(p + at + 10, (uint16_t)n);
	put_le32(p + at + 12, zl->z64 ? UINT32_MAX : (uint32_t)zl->cd_len);
	put_le32(p + at + 16, zl->z64 ? UINT32_MAX : (uint32_t)zl->cd_off);
	put_le16(p + at + 20, 0);
	return at + ZIP_END;
}

/*
 * A file made in parts (g->memo): a field of e's CRC-32 at the file's
 * bytes [from, from + cnt) (at p in the request) when the parts so far do
 * not cover e's data is left zero for the fixup (returns 1); else e's CRC
 * comes from the memo when it has it, or from archive_entry_crc().
 */
static bool zip_defer(const struct gen_file *g, struct entry *e, uint64_t from, size_t cnt,
		      uint8_t *p)
{
	if (!g->memo || e->has_crc)
		return false;
	if (gen_memo_crc(g->memo, e->key, e->size, &e->crc)) {
		e->has_crc = 1;
		return false;
	}
	if (!gen_memo_defer(g->memo, from, cnt))
		return false;
	memset(p, 0, cnt);
	return true;
}

static int zip_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	uint8_t hdr[ZIP_CENTRAL + ENTRY_NAME_MAX + ZIP64_CDIR_X],
		end[ZIP64_END + ZIP64_LOCATOR + ZIP_END];
	struct dfl_work w = { .ready = false };
	uint8_t *scratch = NULL;
	struct zip_layout zl;
	uint64_t from, pos;
	size_t cnt, n;
	int ret;

	ret = gen_check_request(g, ZIP_MIN, off, len);
	if (ret || !len)
		return ret;
	ret = zip_layout(g, &zl);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < zl.es.n; i++) {
		struct entry *e = &zl.es.e[i];
		uint64_t lh = zip_local_len(e, zl.z64), data = e->off + lh;

		if (e->off >= off + len)
			break;
		if (data + e->csize <= off)
			continue;
		if (archive_clip(data, e->csize, off, len, &from, &cnt) && e->method == 8) {
			struct dfl_geom dg;
			uint32_t crc = 0;
			bool whole = cnt == e->csize;

			archive_dfl_geom(g->cm, e->csize, 0, &dg);
			ret = archive_dfl_fill(g, e, NULL, &dg, &w, from - data, buf + (from - off),
					       cnt, whole ? &crc : NULL);
			if (ret)
				goto out_free;
			if (whole) {
				e->crc = crc;
				e->has_crc = 1;
			}
		} else if (archive_clip(data, e->csize, off, len, &from, &cnt)) {
			ret = archive_entry_bytes(g, e, NULL, from - data, buf + (from - off), cnt);
			if (ret)
				goto out_free;
			if (cnt == e->size) {
				e->crc = gen_crc32(0, buf + (from - off), cnt);
				e->has_crc = 1;
			} else if (g->memo) {
				gen_memo_sum(g->memo, e->key, from - data, cnt,
					     gen_crc32(0, buf + (from - off), cnt));
			}
		}
		if (archive_clip(e->off, lh, off, len, &from, &cnt)) {
			if (zip_defer(g, e, from, cnt, buf + (from - off)))
				continue;
			ret = archive_entry_crc(g, e, NULL, &scratch);
			if (ret)
				goto out_free;
			n = zip_local(e, zl.z64, hdr);
			archive_put_region(hdr, e->off, n, off, buf, len);
		}
	}
	if (archive_clip(zl.cd_off, zl.cd_len, off, len, &from, &cnt)) {
		pos = zl.cd_off;
		for (unsigned int i = 0; i < zl.es.n && pos < off + len; i++) {
			struct entry *e = &zl.es.e[i];

			n = (size_t)zip_cdir_len(e, zl.z64);
			if (pos + n > off && archive_clip(pos, n, off, len, &from, &cnt) &&
			    zip_defer(g, e, from, cnt, buf + (from - off))) {
				pos += n;
				continue;
			}
			if (pos + n > off) {
				ret = archive_entry_crc(g, e, NULL, &scratch);
				if (ret)
					goto out_free;
				zip_cdir(e, zl.z64, hdr);
				archive_put_region(hdr, pos, n, off, buf, len);
			}
			pos += n;
		}
	}
	n = zip_end(&zl, end);
	archive_put_region(end, zl.end_off, n, off, buf, len);

out_free:
	archive_dfl_work_release(&w);
	free(scratch);
	free(zl.es.e);
	return ret;
}

const struct gen_ops gen_zip_ops = {
	.name = "zip",
	.min_size = ZIP_MIN,
	.fill = zip_fill,
};
