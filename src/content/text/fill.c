/* fill.c - random access over a text file: its frame (header, footer) and the units between */
#include <errno.h>
#include <string.h>

#include "content/gen.h"
#include "content/model.h"
#include "util/rng.h"
#include "content/text/text.h"

int text_fill(const struct tfmt *f, const struct gen_file *g, uint64_t off, uint8_t *buf,
	      size_t len)
{
	const struct content_model *cm = g->cm;
	uint8_t tmp[UNIT + SLACK];
	/* on the stack: a malloc() and free() a call were 2 % of the text of a small-file create */
	struct frame frame, *const fr = &frame;
	uint64_t b0, b1;
	int ret = 0;

	if (!cm || !cm->text_priv)
		return -EINVAL;
	if (off > g->size || len > g->size - off)
		return -EINVAL;
	fr->hlen = fr->flen = 0;
	fr->variant = 0;
	fr->depth0 = 0;
	fr->lang = NULL;
	if (f->frame)
		f->frame(g, cm, fr);
	b0 = fr->hlen;
	b1 = g->size - fr->flen;
	while (len) {
		size_t n;

		if (off < b0) {
			n = (size_t)MIN(b0 - off, (uint64_t)len);
			memcpy(buf, fr->head + off, n);
		} else if (off >= b1) {
			n = len;
			memcpy(buf, fr->foot + (off - b1), n);
		} else {
			uint64_t u = (off - b0) / UNIT, us = b0 + u * UNIT;
			size_t ul = (size_t)MIN((uint64_t)UNIT, b1 - us), in = (size_t)(off - us);
			/* a whole unit with SLACK bytes of room after it is made in place */
			uint8_t *to = !in && len >= ul + SLACK ? buf : tmp;
			struct tw w;

			n = MIN(ul - in, len);
			text_tw_open(&w, cm, g->key, u, to);
			w.boost = g->boost;
			w.fresh = g->fresh;
			w.narrow = g->narrow;
			w.stop = to + in + n;
			f->unit(g, fr, &w, u, ul);
			if (in + n == ul && w.p != to + ul) {
				ret = -EIO;	/* a unit of the wrong length: a bug */
				break;
			}
			if (to == tmp)
				memcpy(buf, tmp + in, n);
		}
		buf += n;
		off += n;
		len -= n;
	}
	return ret;
}

void text_frame_open(struct tw *w, const struct content_model *cm, const struct gen_file *g,
		     uint8_t *buf, uint64_t salt)
{
	text_tw_open(w, cm, g->key, UINT64_MAX - salt, buf);
	w->r.s = rng_mix64(g->key ^ SALT_FRAME ^ salt);
}

const char *text_file_ext(const struct gen_file *g)
{
	return g->ext ? g->ext : "";
}
