/* csv.c - CSV and TSV: a header line and one record a line */
#include <errno.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"

/* CSV and TSV */

static void csv_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	struct tw w;
	char sep = fr->variant ? '\t' : ',';

	text_frame_open(&w, cm, g, fr->head, 2);
	text_schema_init(&w, &fr->sc, 0);
	for (unsigned i = 0; i < fr->sc.n; i++) {
		if (i)
			put_ch(&w, sep);
		text_put_field_name(&w, &fr->sc, i);
	}
	put_ch(&w, '\n');
	fr->hlen = (size_t)(w.p - fr->head);
	if (fr->hlen > g->size)
		fr->hlen = 0;
}

static int csv_rec(const struct frame *fr, struct tw *w, uint64_t u, unsigned i, const uint8_t *end)
{
	const struct schema *sc = &fr->sc;
	const char sep = fr->variant ? '\t' : ',';
	size_t t;

	for (unsigned f = 0; f + 1 < sc->n; f++) {
		unsigned type = sc->type[f] == F_TAGS ? F_WORDS : sc->type[f];

		text_put_value(w, type, u * 1000 + i + 1, sep == ',' && type == F_WORDS ? '"' : 0);
		put_ch(w, sep);
	}
	t = text_len(w, end, sep == ',' ? 3 : 1, 300);
	if (!t)
		return -ENOSPC;
	if (sep == ',')
		put_ch(w, '"');
	text_put_text(w, t, 0);
	if (sep == ',')
		put_ch(w, '"');
	put_ch(w, '\n');
	return 0;
}

static const struct records csv_records = { .rec = csv_rec, .rest = text_rest_words };

static void csv_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	w->rc = (struct recur){ 8, 40000, 8, 0, 0 };
	(void)g;
	text_records_unit(&csv_records, fr, w, u, len);
}

static void tsv_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	fr->variant = 1;
	csv_frame(g, cm, fr);
}

const struct tfmt text_fmt_csv = { .frame = csv_frame, .unit = csv_unit };

const struct tfmt text_fmt_tsv = { .frame = tsv_frame, .unit = csv_unit };
