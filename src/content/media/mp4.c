/* mp4.c - MP4: ftyp, moov with one 16-bit PCM sound track, optional free box, mdat */
#include <errno.h>
#include <stdbool.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/media/media.h"

/*
 * MP4: ftyp, moov (one sound track of 16-bit PCM, 'sowt'), an optional
 * 'free' box taking up what whole PCM frames cannot, then mdat.  The
 * samples are PCM frames of constant size, stored in chunks of
 * MP4_CHUNK frames (the last one shorter), so the sample tables have a
 * fixed size but for the chunk offsets.
 */

#define MP4_CHUNK 4096u
#define MP4_FTYP  28u
/* moov without stco entries and the second stsc entry */
#define MP4_MOOV0 (8 + 108 + 8 + 92 + 8 + 32 + 45 + 8 + 16 + 36 + 8 + 52 + 24 + 28 + 20 + 16)
#define MP4_EPOCH UINT64_C(2082844800) /* 1904-01-01 to 1970-01-01 in seconds */

struct mp4 {
	struct synth syn;
	uint32_t created; /* seconds since 1904 */
	uint64_t frames;
	uint64_t chunks;
	unsigned int co64;     /* chunk offsets on 64 bits */
	unsigned int mdat_hdr; /* 8, or 16 with a 64-bit size */
	uint64_t moov;
	uint64_t free; /* bytes of the free box, 0 for none */
	uint64_t data; /* file offset of the first PCM byte */
};

/* Whether n frames end in a shorter chunk after full ones (a second stsc entry). */
static bool mp4_short_tail(uint64_t n)
{
	return n > MP4_CHUNK && n % MP4_CHUNK;
}

/* Bytes of everything but the free box for n frames. */
static uint64_t mp4_total(struct mp4 *x, uint64_t n, uint32_t bpf)
{
	uint64_t payload = n * bpf;

	x->chunks = (n + MP4_CHUNK - 1) / MP4_CHUNK;
	x->mdat_hdr = payload + 8 > UINT32_MAX ? 16 : 8;
	/* offsets reach past 4 GiB: the moov is small, so the payload decides */
	x->co64 = MP4_FTYP + MP4_MOOV0 + 8 * x->chunks + 12 + 8 + 16 + payload > UINT32_MAX;
	x->moov = MP4_MOOV0 + (x->co64 ? 8 : 4) * x->chunks + (mp4_short_tail(n) ? 12 : 0);
	return MP4_FTYP + x->moov + x->mdat_hdr + payload;
}

static int mp4_layout(struct mp4 *x, const struct gen_file *g)
{
	uint32_t rate, channels, bpf;
	uint64_t n, t = 0, fixed;
	struct rng r;

	media_audio_params(g->key, MEDIA_DRAW_MP4, &rate, &channels);
	media_synth_init(&x->syn, g->key, rate, channels);
	rng_open(&r, media_key(g->key, MEDIA_DRAW_MP4), 1);
	x->created = (uint32_t)(MP4_EPOCH + UINT64_C(1104537600) +
				rng_below(&r, UINT64_C(20) * 365 * 86400));
	bpf = channels * 2;
	fixed = MP4_FTYP + MP4_MOOV0 + 12 + 8;
	if (g->size < fixed + bpf + 8)
		return -EINVAL;
	/* each frame costs bpf bytes plus a share of a chunk offset */
	n = (g->size - fixed) * MP4_CHUNK / ((uint64_t)bpf * MP4_CHUNK + 4) + 2;
	for (; n > 0; n--) {
		t = mp4_total(x, n, bpf);
		if (t == g->size || (t < g->size && g->size - t >= 8))
			break;
	}
	if (n == 0)
		return -EINVAL;
	x->frames = n;
	x->free = g->size - t;
	x->data = MP4_FTYP + x->moov + x->free + x->mdat_hdr;
	/* the 32-bit sample counts of stts and stsz */
	if (n > UINT32_MAX)
		return -EFBIG;
	return 0;
}

static void box(struct win *w, uint64_t size, const char *type)
{
	media_win_be32(w, (uint32_t)size);
	media_win_str(w, type);
}

static void full_box(struct win *w, uint64_t size, const char *type, uint32_t flags)
{
	box(w, size, type);
	media_win_be32(w, flags);
}

static void matrix(struct win *w)
{
	media_win_be32(w, 0x00010000);
	media_win_be32(w, 0);
	media_win_be32(w, 0);
	media_win_be32(w, 0);
	media_win_be32(w, 0x00010000);
	media_win_be32(w, 0);
	media_win_be32(w, 0);
	media_win_be32(w, 0);
	media_win_be32(w, 0x40000000);
}

/*
 * The sample table box (stbl, stbl bytes): one sound description, one
 * duration, the frames by chunk (rest: frames of a shorter last chunk, 0
 * for none), their size and the chunk offsets (stco bytes).
 */
static void mp4_sample_table(const struct mp4 *x, struct win *w, uint64_t stbl, uint64_t stco,
			     uint64_t rest)
{
	const struct synth *s = &x->syn;
	uint32_t bpf = s->channels * 2;
	unsigned int esz = x->co64 ? 8 : 4;
	uint64_t j;

	box(w, stbl, "stbl");
	full_box(w, 52, "stsd", 0);
	media_win_be32(w, 1);
	box(w, 36, "sowt"); /* 16-bit little-endian PCM */
	media_win_zeros(w, 6);
	media_win_be16(w, 1);  /* data reference */
	media_win_zeros(w, 8); /* version, revision, vendor */
	media_win_be16(w, s->channels);
	media_win_be16(w, 16);
	media_win_be32(w, 0); /* compression id, packet size */
	media_win_be32(w, s->rate << 16);
	full_box(w, 24, "stts", 0);
	media_win_be32(w, 1);
	media_win_be32(w, (uint32_t)x->frames);
	media_win_be32(w, 1);
	full_box(w, rest ? 40 : 28, "stsc", 0);
	media_win_be32(w, rest ? 2 : 1);
	media_win_be32(w, 1);
	media_win_be32(w, x->frames < MP4_CHUNK ? (uint32_t)x->frames : MP4_CHUNK);
	media_win_be32(w, 1);
	if (rest) {
		media_win_be32(w, (uint32_t)x->chunks);
		media_win_be32(w, (uint32_t)rest);
		media_win_be32(w, 1);
	}
	full_box(w, 20, "stsz", 0);
	media_win_be32(w, bpf);
	media_win_be32(w, (uint32_t)x->frames);
	full_box(w, stco, x->co64 ? "co64" : "stco", 0);
	media_win_be32(w, (uint32_t)x->chunks);
	if (!media_win_meets(w, esz * x->chunks)) {
		w->pos += esz * x->chunks;
	} else {
		for (j = 0; j < x->chunks; j++) {
			uint64_t at = x->data + j * MP4_CHUNK * bpf;

			if (x->co64)
				media_win_be64(w, at);
			else
				media_win_be32(w, (uint32_t)at);
		}
	}
}

static void mp4_header(const struct mp4 *x, struct win *w)
{
	const struct synth *s = &x->syn;
	uint32_t bpf = s->channels * 2;
	uint32_t ms = (uint32_t)((x->frames * 1000 + s->rate / 2) / s->rate);
	uint64_t rest = mp4_short_tail(x->frames) ? x->frames % MP4_CHUNK : 0;
	uint64_t stbl, minf, mdia, trak, stco;
	unsigned int esz = x->co64 ? 8 : 4;

	box(w, MP4_FTYP, "ftyp");
	media_win_str(w, "isom");
	media_win_be32(w, 0x200);
	media_win_str(w, "isomiso2mp41");

	stco = 16 + (uint64_t)esz * x->chunks;
	stbl = 8 + 52 + 24 + 16 + (rest ? 24 : 12) + 20 + stco;
	minf = 8 + 16 + 36 + stbl;
	mdia = 8 + 32 + 45 + minf;
	trak = 8 + 92 + mdia;
	box(w, x->moov, "moov");

	full_box(w, 108, "mvhd", 0);
	media_win_be32(w, x->created);
	media_win_be32(w, x->created);
	media_win_be32(w, 1000);
	media_win_be32(w, ms);
	media_win_be32(w, 0x00010000); /* rate 1.0 */
	media_win_be16(w, 0x0100);     /* volume 1.0 */
	media_win_zeros(w, 10);
	matrix(w);
	media_win_zeros(w, 24);
	media_win_be32(w, 2); /* next track id */

	box(w, trak, "trak");
	full_box(w, 92, "tkhd", 3); /* enabled, in movie */
	media_win_be32(w, x->created);
	media_win_be32(w, x->created);
	media_win_be32(w, 1); /* track id */
	media_win_be32(w, 0);
	media_win_be32(w, ms);
	media_win_zeros(w, 8);
	media_win_be16(w, 0); /* layer */
	media_win_be16(w, 1); /* alternate group: audio */
	media_win_be16(w, 0x0100);
	media_win_be16(w, 0);
	matrix(w);
	media_win_be32(w, 0);
	media_win_be32(w, 0);

	box(w, mdia, "mdia");
	full_box(w, 32, "mdhd", 0);
	media_win_be32(w, x->created);
	media_win_be32(w, x->created);
	media_win_be32(w, s->rate);
	media_win_be32(w, (uint32_t)x->frames);
	media_win_be16(w, 0x55c4); /* language 'und' */
	media_win_be16(w, 0);
	full_box(w, 45, "hdlr", 0);
	media_win_be32(w, 0);
	media_win_str(w, "soun");
	media_win_zeros(w, 12);
	media_win_bytes(w, "SoundHandler", 13);

	box(w, minf, "minf");
	full_box(w, 16, "smhd", 0);
	media_win_be32(w, 0);
	box(w, 36, "dinf");
	full_box(w, 28, "dref", 0);
	media_win_be32(w, 1);
	full_box(w, 12, "url ", 1); /* data in this file */

	mp4_sample_table(x, w, stbl, stco, rest);

	if (x->free) {
		box(w, x->free, "free");
		media_win_zeros(w, x->free - 8);
	}
	if (x->mdat_hdr == 16) {
		box(w, 1, "mdat");
		media_win_be64(w, 16 + x->frames * bpf);
	} else {
		box(w, 8 + x->frames * bpf, "mdat");
	}
}

static int mp4_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct win w = { .buf = buf, .off = off, .len = len, .pos = 0 };
	struct mp4 x;
	int ret;

	ret = mp4_layout(&x, g);
	if (ret)
		return ret;
	if (media_win_meets(&w, x.data))
		mp4_header(&x, &w);
	media_synth_put(&x.syn, &w, x.data, x.frames);
	return 0;
}

const struct gen_ops gen_mp4_ops = {
	.name = "mp4",
	.min_size = 640,
	.fill = mp4_fill,
};
