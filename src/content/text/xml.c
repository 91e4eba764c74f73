/* xml.c - XML (and SVG): a root element of records */
#include <errno.h>
#include <strings.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"

/* XML: a root element holding records; SVG: a drawing of groups */

static void xml_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	static const char decl[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	int svg = !strcasecmp(text_file_ext(g), "svg");
	struct tw w;
	uint8_t *f;

	text_frame_open(&w, cm, g, fr->head, 4);
	text_schema_init(&w, &fr->sc, 0);
	put_str(&w, decl);
	if (svg) {
		unsigned wd = 200 + (unsigned)below(tnext(&w.r), 1800);
		unsigned ht = 200 + (unsigned)below(tnext(&w.r), 1800);

		put_str(&w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
		text_put_dec(&w, wd, 1);
		put_str(&w, "\" height=\"");
		text_put_dec(&w, ht, 1);
		put_str(&w, "\" viewBox=\"0 0 ");
		text_put_dec(&w, wd, 1);
		put_ch(&w, ' ');
		text_put_dec(&w, ht, 1);
		put_str(&w, "\">\n<title>");
		text_put_phrase(&w, 8, 40, T_CAPS);
		put_str(&w, "</title>\n");
	} else {
		put_ch(&w, '<');
		text_put_plural(&w, fr->sc.root);
		put_str(&w, " version=\"");
		text_put_dec(&w, 1 + below(tnext(&w.r), 3), 1);
		put_str(&w, ".0\">\n");
	}
	fr->hlen = (size_t)(w.p - fr->head);
	w.p = f = fr->foot;
	text_put_xml_close(&w, &fr->sc, svg);
	fr->flen = (size_t)(w.p - f);
	fr->variant = (unsigned)svg;
	if (fr->hlen + fr->flen <= g->size)
		return;
	/* small files: <root>words</root>, <r/> padded with line breaks, or blanks */
	w.p = fr->head;
	fr->variant = 2;
	fr->flen = 0;
	if (g->size >= 2u * w.tm->len[fr->sc.root] + 7) {
		size_t l = w.tm->len[fr->sc.root];

		put_ch(&w, '<');
		put_rank(&w, fr->sc.root, 0);
		put_ch(&w, '>');
		text_put_text(&w, (size_t)g->size - 2 * l - 6, T_PLAIN);
		put_str(&w, "</");
		put_rank(&w, fr->sc.root, 0);
		put_str(&w, ">\n");
	} else {
		text_put_xml_stub(&w, (size_t)g->size);
	}
	fr->hlen = (size_t)g->size;
}

/* An attribute: name="v" after a blank. */
static inline void put_attr(struct tw *w, const char *name, uint64_t v)
{
	put_ch(w, ' ');
	put_str(w, name);
	put_str(w, "=\"");
	text_put_dec(w, v, 1);
	put_ch(w, '"');
}

/* A colour attribute of n hex digits from bits 40.. of x. */
static inline void put_colour(struct tw *w, const char *name, uint64_t x, unsigned n)
{
	static const char hex[] = "0123456789abcdef";

	put_ch(w, ' ');
	put_str(w, name);
	put_str(w, "=\"#");
	for (unsigned i = 0; i < n; i++)
		put_ch(w, hex[(x >> (40 + 4 * i)) & 15]);
	put_ch(w, '"');
}

static void svg_item(struct tw *w, uint64_t id)
{
	uint64_t x = tnext(&w->r);

	put_str(w, "<g id=\"g");
	text_put_dec(w, id, 1);
	put_str(w, "\">\n  <rect");
	put_attr(w, "x", below(x, 1000));
	put_attr(w, "y", (x >> 10) % 1000);
	put_attr(w, "width", 1 + (x >> 20) % 400);
	put_attr(w, "height", 1 + (x >> 30) % 400);
	put_colour(w, "fill", x, 6);
	put_str(w, " />\n  <circle");
	x = tnext(&w->r);
	put_attr(w, "cx", below(x, 1000));
	put_attr(w, "cy", (x >> 10) % 1000);
	put_attr(w, "r", 1 + (x >> 20) % 200);
	put_colour(w, "stroke", x, 3);
	put_str(w, " fill=\"none\" />\n  <text");
	put_attr(w, "x", (x >> 30) % 1000);
	put_attr(w, "y", (x >> 52) % 1000);
	put_ch(w, '>');
	text_put_phrase(w, 4, 30, 0);
	put_str(w, "</text>\n</g>\n");
}

/* SVG: groups while 400 bytes are left, then a description absorbs the rest */
static int svg_rec(const struct frame *fr, struct tw *w, uint64_t u, unsigned i, const uint8_t *end)
{
	(void)fr;
	svg_item(w, u * 1000 + i + 1);
	return end - w->p < 400 ? -ENOSPC : 0;
}

static void svg_rest(struct tw *w, size_t n)
{
	if (n < 16) {
		text_put_chars(w, '\n', n);
		return;
	}
	put_str(w, "<desc>");
	text_put_text(w, n - 14, 0);
	put_str(w, "</desc>\n");
}

static int xml_rec(const struct frame *fr, struct tw *w, uint64_t u, unsigned i, const uint8_t *end)
{
	const struct schema *sc = &fr->sc;
	size_t t, closing;

	put_str(w, "  <");
	put_rank(w, sc->rec, 0);
	put_str(w, " id=\"");
	text_put_dec(w, u * 1000 + i + 1, 1);
	put_str(w, "\">\n");
	for (unsigned f = 1; f + 1 < sc->n; f++) {
		put_str(w, "    <");
		text_put_field_name(w, sc, f);
		put_ch(w, '>');
		text_put_value(w, sc->type[f] == F_TAGS ? F_WORDS : sc->type[f], 0, 0);
		put_str(w, "</");
		text_put_field_name(w, sc, f);
		put_str(w, ">\n");
	}
	put_str(w, "    <");
	text_put_field_name(w, sc, sc->n - 1);
	put_ch(w, '>');
	closing = 2 + w->tm->len[sc->name[sc->n - 1]] + 2 + 4 + w->tm->len[sc->rec] + 2;
	t = text_len(w, end, closing, 400);
	if (!t)
		return -ENOSPC;
	text_put_text(w, t, 0);
	put_str(w, "</");
	text_put_field_name(w, sc, sc->n - 1);
	put_str(w, ">\n  </");
	put_rank(w, sc->rec, 0);
	put_str(w, ">\n");
	return 0;
}

static const struct records xml_records = { .rec = xml_rec, .rest = text_rest_lines };

static const struct records svg_records = { .rec = svg_rec, .rest = svg_rest };

static void xml_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	w->rc = (struct recur){ 24, 16384, 16, 0, 0 };
	(void)g;
	text_records_unit(fr->variant == 1 ? &svg_records : &xml_records, fr, w, u, len);
}

const struct tfmt text_fmt_xml = { .frame = xml_frame, .unit = xml_unit };
