/* wav.c - WAV: RIFF header, PCM format and data, then a JUNK chunk as padding */
#include <errno.h>

#include "content/gen.h"
#include "content/media/media.h"

/*
 * WAV: RIFF header, 'fmt ' (PCM), 'data', then a 'JUNK' chunk taking up
 * what whole frames cannot.  RIFF chunks are word aligned, so a file of odd
 * size ends in an odd-sized JUNK chunk whose pad byte is left out.
 */

#define WAV_HDR 44u

struct wav {
	struct synth syn;
	uint64_t frames;
	uint64_t junk; /* bytes of the JUNK chunk including its header, 0 for none */
};

static int wav_layout(struct wav *wv, const struct gen_file *g)
{
	uint32_t rate, channels, bpf;
	uint64_t avail, data, rem;

	media_audio_params(g->key, MEDIA_DRAW_WAV, &rate, &channels);
	media_synth_init(&wv->syn, g->key, rate, channels);
	bpf = channels * 2;
	if (g->size < WAV_HDR + bpf)
		return -EINVAL;
	avail = g->size - WAV_HDR;
	/* the 32-bit chunk sizes cap the data; the rest, if any, is JUNK */
	data = avail < UINT32_C(0xFFFFFF00) ? avail : UINT32_C(0xFFFFFF00);
	data -= data % bpf;
	rem = avail - data;
	if (rem > 0 && rem < 8) {
		uint64_t cut = (8 - rem + bpf - 1) / bpf * bpf;

		if (data < cut + bpf)
			return -EINVAL;
		data -= cut;
		rem += cut;
	}
	wv->frames = data / bpf;
	wv->junk = rem;
	return 0;
}

static int wav_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct win w = { .buf = buf, .off = off, .len = len, .pos = 0 };
	const struct synth *s;
	struct wav wv;
	uint64_t data, riff;
	int ret;

	ret = wav_layout(&wv, g);
	if (ret)
		return ret;
	s = &wv.syn;
	data = wv.frames * s->channels * 2;
	if (media_win_meets(&w, WAV_HDR)) {
		riff = g->size - 8 < UINT32_MAX ? g->size - 8 : UINT32_MAX;
		media_win_str(&w, "RIFF");
		media_win_le32(&w, (uint32_t)riff);
		media_win_str(&w, "WAVEfmt ");
		media_win_le32(&w, 16);
		media_win_le16(&w, 1);
		media_win_le16(&w, s->channels);
		media_win_le32(&w, s->rate);
		media_win_le32(&w, s->rate * s->channels * 2);
		media_win_le16(&w, s->channels * 2);
		media_win_le16(&w, 16);
		media_win_str(&w, "data");
		media_win_le32(&w, (uint32_t)data);
	}
	media_synth_put(s, &w, WAV_HDR, wv.frames);
	w.pos = WAV_HDR + data;
	if (wv.junk && media_win_meets(&w, wv.junk)) {
		media_win_str(&w, "JUNK");
		media_win_le32(&w, (uint32_t)(wv.junk - 8));
		media_win_zeros(&w, wv.junk - 8);
	}
	return 0;
}

const struct gen_ops gen_wav_ops = {
	.name = "wav",
	.min_size = 64,
	.fill = wav_fill,
};
