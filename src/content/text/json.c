/* json.c - JSON: an array of records */
#include <errno.h>
#include <string.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"

/* JSON: an object holding a description and an array of records */

static void json_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	struct tw w;

	text_frame_open(&w, cm, g, fr->head, 3);
	text_schema_init(&w, &fr->sc, 1);
	put_str(&w, "{\n  \"name\": \"");
	put_rank(&w, fr->sc.root, 0);
	put_ch(&w, '-');
	put_rank(&w, text_name_word(&w), 0);
	put_str(&w, "\",\n  \"version\": \"");
	text_put_dec(&w, below(tnext(&w.r), 5), 1);
	put_ch(&w, '.');
	text_put_dec(&w, below(tnext(&w.r), 20), 1);
	put_ch(&w, '.');
	text_put_dec(&w, below(tnext(&w.r), 10), 1);
	put_str(&w, "\",\n  \"description\": \"");
	text_put_text(&w, 30 + below(tnext(&w.r), 90), 0);
	put_str(&w, "\",\n  \"");
	text_put_plural(&w, fr->sc.rec);
	put_str(&w, "\": [\n");
	fr->hlen = (size_t)(w.p - fr->head);
	memcpy(fr->foot, "\n  ]\n}\n", 7);
	fr->flen = 7;
	if (fr->hlen + fr->flen <= g->size)
		return;
	/* small files: {"name": "words"}, {} or 0, padded with blanks */
	w.p = fr->head;
	fr->variant = 1;
	fr->flen = 0;
	if (g->size >= 16) {
		put_str(&w, "{\"name\": \"");
		text_put_text(&w, (size_t)g->size - 13, T_PLAIN);
		put_str(&w, "\"}\n");
	} else if (g->size >= 3) {
		put_str(&w, "{}");
		text_put_chars(&w, ' ', (size_t)g->size - 3);
		put_ch(&w, '\n');
	} else if (g->size == 2) {
		put_str(&w, "{}");
	} else if (g->size == 1) {
		put_ch(&w, '0');
	}
	fr->hlen = (size_t)g->size;
}

static int json_rec(const struct frame *fr, struct tw *w, uint64_t u, unsigned i, const uint8_t *end)
{
	const struct schema *sc = &fr->sc;
	size_t t;

	if (u > 0 || i > 0)
		put_str(w, ",\n");
	put_str(w, "    {");
	for (unsigned f = 0; f + 1 < sc->n; f++) {
		put_str(w, "\n      \"");
		text_put_field_name(w, sc, f);
		put_str(w, "\": ");
		text_put_value(w, sc->type[f], u * 1000 + i + 1, '"');
		put_ch(w, ',');
	}
	put_str(w, "\n      \"");
	text_put_field_name(w, sc, sc->n - 1);
	put_str(w, "\": \"");
	t = text_len(w, end, 7, 400);
	if (!t)
		return -ENOSPC;
	text_put_text(w, t, 0);
	put_str(w, "\"\n    }");
	return 0;
}

static const struct records json_records = { .rec = json_rec, .rest = text_rest_blanks };

static void json_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		      size_t len)
{
	w->rc = (struct recur){ 12, 63000, 8, 0, 0 };
	(void)g;
	text_records_unit(&json_records, fr, w, u, len);
}

const struct tfmt text_fmt_json = { .frame = json_frame, .unit = json_unit };
