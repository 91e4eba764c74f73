/* html.c - HTML pages: a head, then headings, paragraphs, lists and links */
#include <string.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"

static const char html_foot[] = "</body>\n</html>\n";

static void html_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	static const char mini_open[] = "<!DOCTYPE html>\n<html>\n<head>\n<title>";
	static const char mini_close[] = "</title>\n</head>\n<body>\n";
	size_t flen = sizeof(html_foot) - 1, tl;
	uint8_t title[128];
	struct tw w;

	text_frame_open(&w, cm, g, title, 5);
	text_put_phrase(&w, 10, 60, T_CAPS);
	tl = (size_t)(w.p - title);
	w.p = fr->head;
	put_str(&w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		"<meta charset=\"utf-8\" />\n<title>");
	put_mem(&w, (const char *)title, tl);
	put_str(&w, "</title>\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n"
		"<link rel=\"stylesheet\" href=\"/css/");
	put_rank(&w, text_name_word(&w), 0);
	put_str(&w, ".css\" />\n</head>\n<body>\n<h1>");
	put_mem(&w, (const char *)title, tl);
	put_str(&w, "</h1>\n");
	fr->hlen = (size_t)(w.p - fr->head);
	memcpy(fr->foot, html_foot, flen);
	fr->flen = flen;
	if (fr->hlen + flen + 64 <= g->size)
		return;
	/* small files: the minimal document, its title cut to fit */
	fr->variant = 1;
	if (g->size >= sizeof(mini_open) - 1 + sizeof(mini_close) - 1 + flen + 1) {
		size_t room = (size_t)g->size - (sizeof(mini_open) - 1) -
			      (sizeof(mini_close) - 1) - flen;

		w.p = fr->head;
		put_str(&w, mini_open);
		if (room >= tl) {
			put_mem(&w, (const char *)title, tl);
		} else {
			text_put_text(&w, room, T_PLAIN | T_CAPS);
		}
		put_str(&w, mini_close);
		fr->hlen = (size_t)(w.p - fr->head);
		return;
	}
	/* tinier: a paragraph (the unit) */
	fr->variant = 2;
	fr->hlen = fr->flen = 0;
}

/* A link target: site-relative, absolute or a fragment. */
static void put_url(struct tw *w)
{
	uint64_t x = tnext(&w->r);

	if ((x & 3) == 0) {
		put_str(w, "https://www.");
		put_rank(w, text_name_word(w), 0);
		put_str(w, (x & 4) ? ".com/" : ".org/");
		put_rank(w, text_name_word(w), 0);
	} else if ((x & 7) == 1) {
		put_ch(w, '#');
		put_rank(w, text_name_word(w), 0);
	} else {
		put_ch(w, '/');
		put_rank(w, text_name_word(w), 0);
		put_ch(w, '/');
		put_rank(w, text_name_word(w), 0);
		put_ch(w, '-');
		put_rank(w, text_name_word(w), 0);
		put_str(w, ".html");
	}
}

/* An HTML block: a heading, a list of links or a paragraph. */
static void html_block(struct tw *w, const uint8_t *end, void *ctx)
{
	uint64_t x = tnext(&w->r);

	(void)end;
	(void)ctx;
	w->col = 0;
	switch (x % 20) {
	case 0:
	case 1:
		put_str(w, "<h2>");
		text_put_phrase(w, 8, 40, T_CAPS);
		put_str(w, "</h2>\n");
		break;
	case 2:
	case 3:
	case 4:
		put_str(w, "<ul>\n");
		for (unsigned i = 0, k = 2 + (unsigned)((x >> 8) % 5); i < k; i++) {
			put_str(w, "<li><a href=\"");
			put_url(w);
			put_str(w, "\">");
			text_put_phrase(w, 4, 30, 0);
			put_str(w, "</a></li>\n");
		}
		put_str(w, "</ul>\n");
		break;
	default:
		put_str(w, "<p>");
		text_put_text(w, 60 + below(tnext(&w->r), 400), T_WRAP);
		if ((x >> 8) & 1) {
			put_str(w, "\n<a href=\"");
			put_url(w);
			put_str(w, "\">");
			text_put_phrase(w, 4, 30, 0);
			put_str(w, "</a>");
			if ((x >> 9) & 1) {
				put_str(w, "\n<em>");
				text_put_phrase(w, 4, 20, 0);
				put_str(w, "</em>");
			}
			w->col = 0;
			put_ch(w, '\n');
			text_put_text(w, 20 + below(tnext(&w->r), 300), T_WRAP);
		}
		put_str(w, "</p>\n");
		break;
	}
}

static void html_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		      size_t len)
{
	uint8_t *end = w->p + len;

	w->rc = (struct recur){ 24, 56000, 12, 28000, 8 };
	(void)g;
	(void)u;
	if (fr->variant == 2) {
		/* a tiny file: <p>words</p> */
		if (len >= 10) {
			put_str(w, "<p>");
			text_put_text(w, len - 8, T_PLAIN);
			put_str(w, "</p>\n");
		} else {
			text_put_text(w, len, T_PLAIN | T_NL);
		}
		return;
	}
	if (!text_blocks(w, end, 1200, 200, html_block, NULL))
		return;
	if (end - w->p >= 12) {
		w->col = 0;
		put_str(w, "<p>");
		text_put_text(w, (size_t)(end - w->p) - 5, T_WRAP);
		put_str(w, "</p>\n");
	} else {
		text_put_chars(w, '\n', (size_t)(end - w->p));
	}
}

const struct tfmt text_fmt_html = { .frame = html_frame, .unit = html_unit };
