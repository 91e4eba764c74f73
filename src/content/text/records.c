/* records.c - the per-file schema and the records CSV, JSON and XML share */
#include <string.h>
#include <strings.h>

#include "content/text/text.h"

static int reserved_name(const char *s, size_t n)
{
	return n >= 3 && !strncasecmp(s, "xml", 3);
}

void text_schema_init(struct tw *w, struct schema *sc, unsigned variant)
{
	static const uint8_t mid[] = {
		F_WORD, F_WORDS, F_INT, F_DEC, F_DATE, F_BOOL, F_TAGS, F_WORD,
	};
	const struct text_model *tm = w->tm;

	sc->n = 4 + (unsigned)below(tnext(&w->r), FIELDS_MAX - 3);
	for (unsigned i = 0; i < sc->n; i++) {
		uint32_t r;
		int dup;

		do {
			r = text_name_word(w);
			dup = reserved_name((const char *)tm->slot[r], tm->len[r]) ||
			      (tm->len[r] == 2 && !memcmp(tm->slot[r], "id", 2));
			for (unsigned j = 1; j < i; j++)
				dup |= sc->name[j] == r;
		} while (dup);
		sc->name[i] = r;
		sc->type[i] = i == 0 ? F_ID : i == sc->n - 1 ? F_TEXT
			      : mid[below(tnext(&w->r), variant ? NELEM(mid) : NELEM(mid) - 2)];
	}
	do
		sc->rec = text_name_word(w);
	while (reserved_name((const char *)tm->slot[sc->rec], tm->len[sc->rec]));
	do
		sc->root = text_name_word(w);
	while (reserved_name((const char *)tm->slot[sc->root], tm->len[sc->root]) ||
	       sc->root == sc->rec);
}

void text_put_plural(struct tw *w, uint32_t r)
{
	put_rank(w, r, 0);
	if (w->p[-1] != 's')
		put_ch(w, 's');
}

void text_put_xml_close(struct tw *w, const struct schema *sc, int svg)
{
	if (svg) {
		put_str(w, "</svg>\n");
		return;
	}
	put_str(w, "</");
	text_put_plural(w, sc->root);
	put_str(w, ">\n");
}

void text_put_xml_stub(struct tw *w, size_t n)
{
	if (n >= 4) {
		put_str(w, "<r/>");
		text_put_chars(w, '\n', n - 4);
	} else {
		text_put_chars(w, ' ', n);
	}
}

void text_put_field_name(struct tw *w, const struct schema *sc, unsigned i)
{
	if (i == 0)
		put_str(w, "id");
	else
		put_rank(w, sc->name[i], 0);
}

void text_put_value(struct tw *w, unsigned type, uint64_t id, char quote)
{
	struct trng save;
	/*
	 * a profile's boost (toward more recurrence) makes values recur too:
	 * with about its chance, one of the file's recurring values (real data
	 * repeats its dates, counts and names); no draw without it
	 */
	int rec = w->boost > 0 && type != F_ID && text_recur_begin(w, 1, 64, SALT_VALUE, &save);
	uint64_t x = tnext(&w->r);

	switch (type) {
	case F_ID:
		text_put_dec(w, id, 1);
		break;
	case F_INT:
		text_put_dec(w, below(x, (x & 1) ? 100 : 100000), 1);
		break;
	case F_DEC:
		text_put_dec(w, below(x, 10000), 1);
		put_ch(w, '.');
		text_put_dec(w, (x >> 8) % 100, 2);
		break;
	case F_BOOL:
		put_str(w, (x >> 20) & 1 ? "true" : "false");
		break;
	case F_DATE:
		if (quote)
			put_ch(w, quote);
		text_put_date(w);
		if (quote)
			put_ch(w, quote);
		break;
	case F_TAGS:
		/* JSON only: an array of words */
		put_ch(w, '[');
		for (unsigned i = 0, k = 1 + (unsigned)((x >> 30) % 4); i < k; i++) {
			if (i)
				put_str(w, ", ");
			put_ch(w, '"');
			put_rank(w, text_name_word(w), 0);
			put_ch(w, '"');
		}
		put_ch(w, ']');
		break;
	default:
		if (quote)
			put_ch(w, quote);
		if (type == F_WORD)
			put_rank(w, text_name_word(w), 0);
		else
			text_put_phrase(w, 4, 30, 0);
		if (quote)
			put_ch(w, quote);
		break;
	}
	text_recur_end(w, rec, &save);
}

size_t text_len(struct tw *w, const uint8_t *end, size_t closing, size_t next_min)
{
	size_t room = w->p < end ? (size_t)(end - w->p) : 0, t = 20 + below(tnext(&w->r), 200);

	if (room < closing + 2)
		return 0;
	if (room < closing + t + next_min)
		t = room - closing;
	return t;
}

void text_records_unit(const struct records *rs, const struct frame *fr, struct tw *w, uint64_t u,
		       size_t len)
{
	uint8_t *end = w->p + len;

	for (unsigned i = 0;; i++) {
		uint8_t *mark = w->p;

		if (w->p >= w->stop || w->p == end)
			return;
		if (rs->rec(fr, w, u, i, end)) {
			w->p = mark;
			rs->rest(w, (size_t)(end - w->p));
			return;
		}
	}
}

void text_rest_words(struct tw *w, size_t n)
{
	w->col = 0;
	text_put_text(w, n, T_PLAIN | T_NL);
}

void text_rest_blanks(struct tw *w, size_t n)
{
	text_put_chars(w, ' ', n);
}

void text_rest_lines(struct tw *w, size_t n)
{
	text_put_chars(w, '\n', n);
}
