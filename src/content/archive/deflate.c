/* deflate.c - deflate streams by random access, and the model's deflate calibration of text */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "content/gen.h"
#include "content/model.h"
#include "util/rng.h"
#include "content/archive/archive.h"

/*
 * Deflate streams by random access (the members of a ZIP, the data of a
 * gzip).  A stream's data is cut into slots of DFL_SLOT bytes (the last
 * one shorter, or a few bytes longer), each deflated on its own (no block
 * final) into a number of bytes known in advance: its deflate block, then
 * empty blocks to its exact length (up to seven empty fixed-code blocks of
 * 10 bits, an empty stored block that byte-aligns, and empty stored blocks
 * of 5 bytes).  The stream ends with an empty final fixed-code block (03
 * 00).  A slot is one block of literals coded by its own Huffman code
 * (huff.c: no match search, at memory speed, its length known before it
 * is written); only a slot whose literals would not fit its length (never
 * seen for text: data that repeats more, such as a tar's zero blocks) is
 * deflated by zlib at level 1, which finds the repeats, with the window
 * reset at the slot.  A slot's length is that of the model's calibration
 * (content_archive_init()): the largest literal-only length of samples of
 * its text, by data size band, a few percent more and DFL_MARGIN bytes; a
 * slot that would not shrink is stored blocks instead.  So every
 * compressed offset is arithmetic, a request codes only the slots it
 * overlaps, and the data's CRC-32 is a pass over the data alone.  When a
 * zlib slot's length falls on one that empty blocks cannot pad, it is
 * deflated again with a block boundary inside, or at level 9.
 */

/* Data size bands of the calibration, and the margin of each (smaller samples vary more). */
static const uint32_t dfl_band[CONTENT_DFL_BANDS] = { 512, 2048, 8192, 32768, DFL_SLOT };

static const double dfl_factor[CONTENT_DFL_BANDS] = { 1.06, 1.04, 1.02, 1.01, 1.01 };

static const uint8_t dfl_empty_stored[5] = { 0, 0, 0, 0xff, 0xff };

static const uint8_t dfl_final[DFL_FINAL] = { 0x03, 0x00 };

/* A slot in stored blocks: u data bytes in nb blocks of at most 64 KiB. */
static unsigned int stored_blocks(uint64_t u)
{
	return (unsigned int)MAX((uint64_t)1, (u + DFL_STORED_MAX - 1) / DFL_STORED_MAX);
}

static uint64_t stored_len(uint64_t u)
{
	return u + 5 * (uint64_t)stored_blocks(u);
}

/* Bytes of a deflated slot of u data bytes; UINT64_MAX without a calibration for u. */
static uint64_t dfl_len(const struct content_model *cm, uint64_t u)
{
	int b = CONTENT_DFL_BANDS - 1;

	while (b >= 0 && u < dfl_band[b])
		b--;
	if (!cm || b < 0 || !(cm->dfl_ratio[b] > 0))
		return UINT64_MAX;
	return (uint64_t)((double)u * cm->dfl_ratio[b]) + 1 + DFL_MARGIN;
}

void archive_dfl_geom(const struct content_model *cm, uint64_t d, uint64_t zeros,
		      struct dfl_geom *dg)
{
	uint64_t avail = d - DFL_FINAL, sl = stored_len(DFL_SLOT), dl = dfl_len(cm, DFL_SLOT);
	uint64_t u_d = 0;
	unsigned int nb = 1;

	memset(dg, 0, sizeof(*dg));
	dg->stored_full = sl <= dl;
	dg->c_full = MIN(sl, dl);
	dg->full = avail > DFL_MIN ? (avail - DFL_MIN) / dg->c_full : 0;
	dg->c_last = avail - dg->full * dg->c_full;
	while (dg->c_last - 5 * nb > (uint64_t)nb * DFL_STORED_MAX)
		nb++;
	for (int b = 0; cm && b < CONTENT_DFL_BANDS; b++) {
		double r = cm->dfl_ratio[b];
		uint64_t u;

		if (!(r > 0) || dg->c_last <= DFL_MARGIN + 1)
			continue;
		u = (uint64_t)((double)(dg->c_last - DFL_MARGIN - 1) / r);
		if (b + 1 < CONTENT_DFL_BANDS && u >= dfl_band[b + 1])
			u = dfl_band[b + 1] - 1;
		while (u >= dfl_band[b] && dfl_len(cm, u) > dg->c_last)
			u--;
		if (u >= dfl_band[b] && u <= DFL_IN_MAX && u > u_d)
			u_d = u;
	}
	if (u_d > dg->c_last - 5 * nb) {
		dg->u_last = u_d + MIN(zeros, DFL_IN_MAX - u_d);
	} else {
		dg->stored_last = true;
		dg->nb_last = nb;
		dg->u_last = dg->c_last - 5 * nb;
	}
	dg->n = dg->full * DFL_SLOT + dg->u_last;
}

static int dfl_work_init(struct dfl_work *w)
{
	memset(w, 0, sizeof(*w));
	w->in = malloc(DFL_IN_MAX);
	w->out = malloc(DFL_OUT_MAX);
	if (!w->in || !w->out) {
		free(w->in);
		free(w->out);
		return -ENOMEM;
	}
	w->ready = true;
	return 0;
}

/* The zlib compressor, made when a slot first needs it. */
static int dfl_zlib_init(struct dfl_work *w)
{
	if (w->z_ready)
		return 0;
	if (deflateInit2(&w->z, DFL_LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	w->z_ready = true;
	return 0;
}

void archive_dfl_work_release(struct dfl_work *w)
{
	if (w->z_ready)
		deflateEnd(&w->z);
	free(w->in);
	free(w->out);
	memset(w, 0, sizeof(*w));
}

/* Data in[0, u) as nb stored blocks into out. */
static void dfl_stored(const uint8_t *in, uint64_t u, unsigned int nb, uint8_t *out)
{
	uint64_t at = 0;
	size_t o = 0;

	for (unsigned int i = 0; i < nb; i++) {
		uint32_t part = (uint32_t)((u - at) / (nb - i));

		out[o] = 0; /* not final, stored */
		put_le16(out + o + 1, part);
		put_le16(out + o + 3, ~part & 0xffff);
		memcpy(out + o + 5, in + at, part);
		o += 5 + (size_t)part;
		at += part;
	}
}

/*
 * After bits bits of a slot that ends in len bytes: how many empty
 * fixed-code blocks (0 to 3) make the empty stored block that follows end
 * on a length that empty stored blocks pad to len exactly; -1 if none.
 */
static int dfl_empties(uint64_t bits, uint64_t len, uint64_t *end)
{
	for (int k = 0; k < 4; k++) {
		uint64_t l = (bits + 10 * (uint64_t)k + 3 + 7) / 8 + 4;

		if (l <= len && (len - l) % 5 == 0) {
			*end = l;
			return k;
		}
	}
	return -1;
}

/* Close a slot whose blocks end at bit bits (held in the stream): k empty blocks, then padding. */
static int dfl_close(struct dfl_work *w, int k, uint64_t base, uint64_t end, uint64_t len,
		     uint8_t *out)
{
	for (int i = 0; i < k; i++)
		if (deflatePrime(&w->z, 10, 2) != Z_OK)
			return -EIO;
	if (deflate(&w->z, Z_SYNC_FLUSH) != Z_OK || base + w->z.total_out != end)
		return -EIO;
	for (; end < len; end += 5)
		memcpy(out + end, dfl_empty_stored, 5);
	return 0;
}

/* The bit length of the stream so far (base bytes before it); -1 on an error. */
static int64_t dfl_bits(struct dfl_work *w, uint64_t base)
{
	unsigned int pend;
	int bits;

	if (w->z.avail_in || deflatePending(&w->z, &pend, &bits) != Z_OK || pend)
		return -1;
	return (int64_t)((base + w->z.total_out) * 8 + (unsigned int)bits);
}

/* Ways to deflate a slot's tail, tried in turn until the slot pads exactly. */
static const struct {
	int level, strategy;
	bool split;
} dfl_tail_ways[] = {
	{ DFL_LEVEL, Z_DEFAULT_STRATEGY, false }, { DFL_LEVEL, Z_FIXED, false },
	{ DFL_LEVEL, Z_HUFFMAN_ONLY, false },	  { DFL_LEVEL, Z_DEFAULT_STRATEGY, true },
	{ 9, Z_DEFAULT_STRATEGY, false },	  { DFL_LEVEL, Z_FIXED, true },
	{ DFL_LEVEL, Z_HUFFMAN_ONLY, true },	  { 9, Z_DEFAULT_STRATEGY, true },
};

#define DFL_TAIL 4096u

/* Ways to deflate a whole slot (dfl_deflate()): 8, then 9 levels by 5 cuts. */
#define DFL_WAYS (8u + 9u * 5u)

/*
 * Deflate in[0, u) into exactly len bytes of out: all but the last
 * DFL_TAIL bytes, a sync flush, then the tail with the window primed from
 * the data before it, in one of dfl_tail_ways, so that a tail that would
 * not pad costs only itself again.  Returns 1 when no way fits.
 */
static int dfl_deflate_tail(struct dfl_work *w, uint64_t u, uint64_t len, uint8_t *out)
{
	uint64_t head = u - DFL_TAIL, base, end, dict = MIN(head, (uint64_t)32768);
	int ret;

	if (deflateReset(&w->z) != Z_OK ||
	    deflateParams(&w->z, DFL_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		return -EIO;
	w->z.next_in = w->in;
	w->z.avail_in = (uInt)head;
	w->z.next_out = out;
	w->z.avail_out = DFL_OUT_MAX;
	if (deflate(&w->z, Z_SYNC_FLUSH) != Z_OK || w->z.avail_in)
		return -EIO;
	base = w->z.total_out;
	for (size_t t = 0; t < ARRAY_SIZE(dfl_tail_ways); t++) {
		uint64_t cut = dfl_tail_ways[t].split ? DFL_TAIL / 2 : DFL_TAIL;
		int64_t bits;
		int k;

		if (base >= len || deflateReset(&w->z) != Z_OK)
			return -EIO;
		ret = deflateParams(&w->z, dfl_tail_ways[t].level, dfl_tail_ways[t].strategy);
		if (ret != Z_OK ||
		    deflateSetDictionary(&w->z, w->in + head - dict, (uInt)dict) != Z_OK)
			return -EIO;
		w->z.next_out = out + base;
		w->z.avail_out = (uInt)(DFL_OUT_MAX - base);
		w->z.next_in = w->in + head;
		w->z.avail_in = (uInt)cut;
		if (deflate(&w->z, Z_BLOCK) != Z_OK)
			return -EIO;
		if (cut < DFL_TAIL) {
			w->z.avail_in = DFL_TAIL - (uInt)cut;
			if (deflate(&w->z, Z_BLOCK) != Z_OK)
				return -EIO;
		}
		bits = dfl_bits(w, base);
		if (bits < 0)
			return -EIO;
		k = dfl_empties((uint64_t)bits, len, &end);
		if (k >= 0)
			return dfl_close(w, k, base, end, len, out);
	}
	return 1;
}

/*
 * Deflate in[0, u) into exactly len bytes of out (see above): by its tail
 * first, else whole, with a block boundary inside or at level 9 when it
 * does not pad.  Returns 0 or -EIO.
 */
static int dfl_deflate(struct dfl_work *w, uint64_t u, uint64_t len, uint8_t *out)
{
	int ret = dfl_zlib_init(w);

	if (ret)
		return ret;
	if (u >= 4 * DFL_TAIL) {
		ret = dfl_deflate_tail(w, u, len, out);
		if (ret <= 0)
			return ret;
	}
	/*
	 * Empty blocks reach 4 of the 5 residues of a length modulo 5 (four
	 * of them are 5 bytes), so each way misses one in five slots.  Ways 8
	 * and on, tried only when the first 8 all missed (one gzip member of
	 * 798 bytes in the default seed's 10 M-file plan), are every level
	 * with the stream cut at fifths: slots that padded before pad the same.
	 */
	for (unsigned int t = 0; t < DFL_WAYS; t++) {
		uint64_t cut = t % 4 ? u * (t % 4) / 4 : u, end;
		int level = t < 4 ? DFL_LEVEL : 9;
		int64_t bits;
		int k;

		if (t >= 8) {
			level = 1 + (int)((t - 8) % 9);
			cut = u * (1 + (t - 8) / 9) / 5;
		}
		if (deflateReset(&w->z) != Z_OK ||
		    deflateParams(&w->z, level, Z_DEFAULT_STRATEGY) != Z_OK)
			return -EIO;
		w->z.next_out = out;
		w->z.avail_out = DFL_OUT_MAX;
		w->z.next_in = w->in;
		w->z.avail_in = (uInt)cut;
		if (deflate(&w->z, Z_BLOCK) != Z_OK)
			return -EIO;
		if (cut < u) {
			w->z.avail_in = (uInt)(u - cut);
			if (deflate(&w->z, Z_BLOCK) != Z_OK)
				return -EIO;
		}
		bits = dfl_bits(w, 0);
		if (bits < 0)
			return -EIO;
		k = dfl_empties((uint64_t)bits, len, &end);
		if (k >= 0)
			return dfl_close(w, k, 0, end, len, out);
	}
	return -EIO;
}

int archive_dfl_fill(const struct gen_file *g, const struct entry *e, const struct inner_tar *inner,
		     const struct dfl_geom *dg, struct dfl_work *w, uint64_t at, uint8_t *buf,
		     size_t len, uint32_t *crc)
{
	uint64_t k = MIN(at / dg->c_full, dg->full), end = dg->full * dg->c_full + dg->c_last;
	int ret;

	if (!w->ready) {
		ret = dfl_work_init(w);
		if (ret)
			return ret;
	}
	for (; k <= dg->full; k++) {
		bool last = k == dg->full;
		uint64_t start = k * dg->c_full, clen = last ? dg->c_last : dg->c_full;
		uint64_t u = last ? dg->u_last : DFL_SLOT;

		if (start >= at + len)
			break;
		if (start + clen <= at)
			continue;
		ret = archive_entry_bytes(g, e, inner, k * DFL_SLOT, w->in, (size_t)u);
		if (ret)
			return ret;
		if (crc)
			*crc = gen_crc32(*crc, w->in, (size_t)u);
		if (g->memo)
			gen_memo_sum(g->memo, e->key, k * DFL_SLOT, u, gen_crc32(0, w->in, (size_t)u));
		if (last ? dg->stored_last : dg->stored_full) {
			dfl_stored(w->in, u, last ? dg->nb_last : stored_blocks(u), w->out);
		} else {
			ret = archive_huff_slot(w->in, u, clen, w->out);
			if (ret > 0)
				ret = dfl_deflate(w, u, clen, w->out);
			if (ret)
				return ret;
		}
		archive_put_region(w->out, start, clen, at, buf, len);
	}
	archive_put_region(dfl_final, end, DFL_FINAL, at, buf, len);
	return 0;
}

int content_archive_init(struct content_model *cm)
{
	struct dfl_work w;
	int ret;

	ret = dfl_work_init(&w);
	if (ret)
		return ret;
	for (int b = 0; b < CONTENT_DFL_BANDS; b++) {
		uint64_t worst = 0;

		for (unsigned int i = 0; i < DFL_SAMPLES; i++) {
			gen_text_bytes(cm, rng_mix64(cm->seed ^ SALT_DFL) + i,
				       (uint64_t)i * dfl_band[b], w.in, dfl_band[b]);
			worst = MAX(worst, (archive_huff_bits(w.in, dfl_band[b]) + 7) / 8 + 1);
		}
		cm->dfl_ratio[b] = MAX(DFL_RATIO_MIN, (double)worst / dfl_band[b] * dfl_factor[b]);
	}
	archive_dfl_work_release(&w);
	return ret;
}
