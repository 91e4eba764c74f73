/* mp4.c - MP4: ftyp, moov with one AAC sound track, optional free box, mdat */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/media/media.h"

/*
 * MP4: ftyp, moov (one sound track of AAC-LC, 'mp4a' with its esds), an
 * optional 'free' box taking up what whole frames cannot, then mdat.  The
 * samples are raw AAC frames of constant size (a constant bitrate),
 * stored in chunks of MP4_CHUNK frames (the last one shorter), so the
 * sample tables have a fixed size but for the chunk offsets.
 *
 * Each frame decodes to silence: one channel element whose channels
 * carry no scale factor band (max_sfb 0), then fill elements whose
 * payload (EXT_FILL, "other bits" any decoder skips) is random, then
 * END.  Like the entropy-coded data of a real encoder, the stream does
 * not compress (gzip about 1.0), and every reader parses and decodes it.
 */

#define MP4_CHUNK 128u
#define MP4_FTYP  28u
#define MP4_ESDS  39u /* esds: ES, decoder config, AudioSpecificConfig, SL descriptors */
/* moov without stco entries and the second stsc entry */
#define MP4_MOOV0                                                                          \
	(8 + 108 + 8 + 92 + 8 + 32 + 45 + 8 + 16 + 36 + 8 + 52 + MP4_ESDS + 24 + 28 + 20 + 16)
#define AAC_FRAME 1024u /* PCM frames an AAC frame codes */
#define MP4_EPOCH UINT64_C(2082844800) /* 1904-01-01 to 1970-01-01 in seconds */

struct mp4 {
	uint64_t frame_key;
	uint32_t rate, channels;
	uint32_t fbytes;  /* bytes of every AAC frame */
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

/* MPEG-4 sampling frequency index of a rate (ISO 14496-3, 1.6.3.4). */
static unsigned int aac_rate_index(uint32_t rate)
{
	return rate == 48000 ? 3 : rate == 44100 ? 4 : 7; /* 22050 */
}

static int mp4_layout(struct mp4 *x, const struct gen_file *g)
{
	static const unsigned int kbps[4] = { 96, 128, 160, 256 };
	static const unsigned int kbps_w[4] = { 20, 45, 15, 20 };
	uint32_t bpf;
	uint64_t n, t = 0, fixed;
	struct rng r;

	media_audio_params(g->key, MEDIA_DRAW_MP4, &x->rate, &x->channels);
	x->frame_key = media_key(g->key, MEDIA_DRAW_FRAME);
	rng_open(&r, media_key(g->key, MEDIA_DRAW_MP4), 1);
	x->created = (uint32_t)(MP4_EPOCH + UINT64_C(1104537600) +
				rng_below(&r, UINT64_C(20) * 365 * 86400));
	bpf = kbps[media_pick(&r, kbps_w, 4)] * 1000 / 8 * AAC_FRAME / x->rate;
	fixed = MP4_FTYP + MP4_MOOV0 + 12 + 8;
	if (g->size < fixed + 16)
		return -EINVAL;
	/* short clips: mono, and frames small enough for four of them */
	if (g->size < fixed + 8 * (uint64_t)bpf) {
		x->channels = 1;
		bpf = (uint32_t)((g->size - fixed - 8) / 4);
		bpf = bpf < 8 ? 8 : bpf;
	}
	x->fbytes = bpf;
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
	uint32_t bpf = x->fbytes, bps = bpf * 8 * x->rate / AAC_FRAME;
	unsigned int esz = x->co64 ? 8 : 4;
	uint64_t j;

	box(w, stbl, "stbl");
	full_box(w, 52 + MP4_ESDS, "stsd", 0);
	media_win_be32(w, 1);
	box(w, 36 + MP4_ESDS, "mp4a");
	media_win_zeros(w, 6);
	media_win_be16(w, 1);  /* data reference */
	media_win_zeros(w, 8); /* version, revision, vendor */
	media_win_be16(w, x->channels);
	media_win_be16(w, 16);
	media_win_be32(w, 0); /* compression id, packet size */
	media_win_be32(w, x->rate << 16);
	full_box(w, MP4_ESDS, "esds", 0);
	media_win_u8(w, 0x03); /* ES descriptor: id 1, no flags */
	media_win_u8(w, 25);
	media_win_be16(w, 1);
	media_win_u8(w, 0);
	media_win_u8(w, 0x04); /* decoder config: MPEG-4 audio, audio stream */
	media_win_u8(w, 17);
	media_win_u8(w, 0x40);
	media_win_u8(w, 0x15);
	media_win_u8(w, 0); /* buffer size, 24 bits */
	media_win_be16(w, bpf);
	media_win_be32(w, bps); /* max and average bitrate */
	media_win_be32(w, bps);
	media_win_u8(w, 0x05); /* AudioSpecificConfig: AAC-LC, rate index, channels */
	media_win_u8(w, 2);
	media_win_be16(w, 2u << 11 | aac_rate_index(x->rate) << 7 | x->channels << 3);
	media_win_u8(w, 0x06); /* SL config: predefined for MP4 */
	media_win_u8(w, 1);
	media_win_u8(w, 0x02);
	full_box(w, 24, "stts", 0);
	media_win_be32(w, 1);
	media_win_be32(w, (uint32_t)x->frames);
	media_win_be32(w, AAC_FRAME);
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
	uint32_t bpf = x->fbytes;
	uint64_t pcm = x->frames * AAC_FRAME;
	uint32_t ms = (uint32_t)((pcm * 1000 + x->rate / 2) / x->rate);
	uint64_t rest = mp4_short_tail(x->frames) ? x->frames % MP4_CHUNK : 0;
	uint64_t stbl, minf, mdia, trak, stco;
	unsigned int esz = x->co64 ? 8 : 4;

	box(w, MP4_FTYP, "ftyp");
	media_win_str(w, "isom");
	media_win_be32(w, 0x200);
	media_win_str(w, "isomiso2mp41");

	stco = 16 + (uint64_t)esz * x->chunks;
	stbl = 8 + 52 + MP4_ESDS + 24 + 16 + (rest ? 24 : 12) + 20 + stco;
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
	media_win_be32(w, x->rate);
	media_win_be32(w, (uint32_t)pcm);
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

/* The channel stream of a silent channel: no scale factor band, nothing coded. */
static void aac_ics(struct media_bits *b, struct rng *r)
{
	media_bits_put(b, 90 + (uint32_t)rng_below(r, 80), 8); /* global_gain */
	/* reserved, long window, window shape, max_sfb 0, no prediction */
	media_bits_put(b, (uint32_t)rng_below(r, 2) << 7, 11);
	media_bits_put(b, 0, 3); /* no pulse, TNS or gain control data */
}

/* AAC frame i (x->fbytes bytes) into out. */
static void aac_frame(const struct mp4 *x, uint64_t i, uint8_t *out)
{
	struct media_bits b = { .p = out, .n = 0 };
	uint64_t avail;
	struct rng r;

	rng_open(&r, x->frame_key, i);
	/* random bytes first: the fill payloads are left as they are */
	for (uint32_t at = 0; at < x->fbytes; at += 8) {
		uint64_t v = htole64(rng_next(&r)); /* the same bytes on any machine */

		memcpy(out + at, &v, x->fbytes - at < 8 ? x->fbytes - at : 8);
	}
	if (x->channels == 1) {
		media_bits_put(&b, 0, 7); /* SCE, tag 0 */
		aac_ics(&b, &r);
	} else {
		media_bits_put(&b, 1 << 5, 8); /* CPE, tag 0, no common window */
		aac_ics(&b, &r);
		aac_ics(&b, &r);
	}
	/* fill elements up to the last byte: FIL, count (escaped from 15), EXT_FILL, bits */
	avail = (uint64_t)x->fbytes * 8 - b.n - 3;
	while (avail >= 15) {
		uint64_t cnt;

		if (avail >= 15 + 8 * 15) {
			cnt = (avail - 15) / 8 < 269 ? (avail - 15) / 8 : 269;
			media_bits_put(&b, 6 << 4 | 15, 7);
			media_bits_put(&b, (uint32_t)(cnt - 14), 8);
			avail -= 15 + 8 * cnt;
		} else {
			cnt = (avail - 7) / 8 < 14 ? (avail - 7) / 8 : 14;
			media_bits_put(&b, 6 << 4 | (uint32_t)cnt, 7);
			avail -= 7 + 8 * cnt;
		}
		media_bits_put(&b, 0, 4); /* EXT_FILL, then the random bits already there */
		b.n += 8 * cnt - 4;
	}
	if (avail >= 8)
		media_bits_put(&b, 6 << 4, 7); /* an empty fill element */
	media_bits_put(&b, 7, 3); /* END */
}

static int mp4_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct win w = { .buf = buf, .off = off, .len = len, .pos = 0 };
	uint8_t frame[AAC_FRAME * 4];
	uint64_t i, last, end = off + len;
	struct mp4 x;
	int ret;

	ret = mp4_layout(&x, g);
	if (ret)
		return ret;
	if (media_win_meets(&w, x.data))
		mp4_header(&x, &w);
	if (end <= x.data || !x.frames)
		return 0;
	i = off > x.data ? (off - x.data) / x.fbytes : 0;
	last = (end - 1 - x.data) / x.fbytes;
	for (; i <= last && i < x.frames; i++) {
		aac_frame(&x, i, frame);
		media_win_put_unit(&w, x.data + i * x.fbytes, frame, x.fbytes);
	}
	return 0;
}

const struct gen_ops gen_mp4_ops = {
	.name = "mp4",
	.min_size = 640,
	.fill = mp4_fill,
};
