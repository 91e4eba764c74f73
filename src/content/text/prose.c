/* prose.c - prose (txt and the default) and Markdown */

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"

static void prose_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		       size_t len)
{
	const char *ext = text_file_ext(g);

	/* man pages (section digits) repeat their option and macro lines more than prose */
	if (ext[0] >= '1' && ext[0] <= '9' && !ext[1])
		w->rc = (struct recur){ 48, 40000, 24, 0, 0 };
	else
		w->rc = (struct recur){ 64, 24000, 32, 0, 0 };
	(void)fr;
	(void)u;
	text_put_text(w, len, T_WRAP | T_PARA | T_NL | T_STOP);
}

const struct tfmt text_fmt_prose = { .frame = NULL, .unit = prose_unit };

/*
 * The plain-text stream (gen_text_bytes): prose without recurrence, as
 * before it.  Archives and PDF pages size their deflate output from a
 * sample of it (archive/deflate.c): recurring sentences would make its
 * chunks vary more than the sample allows.
 */
static void stream_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
			size_t len)
{
	(void)g;
	(void)fr;
	(void)u;
	text_put_text(w, len, T_WRAP | T_PARA | T_NL | T_STOP);
}

const struct tfmt text_fmt_stream = { .frame = NULL, .unit = stream_unit };

/* ------------------------------------------------------------------------- */
/* Markdown */

static void md_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	struct tw w;

	text_frame_open(&w, cm, g, fr->head, 1);
	put_str(&w, "# ");
	text_put_phrase(&w, 10, 48, T_CAPS);
	put_str(&w, "\n\n");
	fr->hlen = (size_t)(w.p - fr->head);
	if (fr->hlen > g->size)
		fr->hlen = 0;
}

/* A Markdown block: a heading, a list, a code fence, a quote or a paragraph. */
static void md_block(struct tw *w, const uint8_t *end, void *ctx)
{
	uint64_t x = tnext(&w->r);

	(void)end;
	(void)ctx;
	switch (x % 20) {
	case 0:
	case 1:
		put_str(w, "## ");
		text_put_phrase(w, 8, 40, T_CAPS);
		put_str(w, "\n\n");
		break;
	case 2:
	case 3:
	case 4:
		for (unsigned i = 0, k = 2 + (unsigned)((x >> 8) % 5); i < k; i++) {
			put_str(w, "- ");
			text_put_text(w, 16 + below(tnext(&w->r), 80), T_NL);
		}
		put_ch(w, '\n');
		break;
	case 5:
		put_str(w, "```\n");
		for (unsigned i = 0, k = 2 + (unsigned)((x >> 8) % 6); i < k; i++) {
			put_rank(w, text_name_word(w), 0);
			put_ch(w, '_');
			put_rank(w, text_name_word(w), 0);
			put_ch(w, '(');
			text_put_number(w);
			put_str(w, ");\n");
		}
		put_str(w, "```\n\n");
		break;
	case 6:
		put_str(w, "> ");
		text_put_text(w, 40 + below(tnext(&w->r), 160), T_NL);
		put_ch(w, '\n');
		break;
	default:
		w->col = 0;
		text_put_text(w, 120 + below(tnext(&w->r), 700), T_WRAP | T_NL);
		put_ch(w, '\n');
		break;
	}
}

static void md_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		    size_t len)
{
	uint8_t *end = w->p + len;

	w->rc = (struct recur){ 24, 44000, 16, 24000, 8 };
	(void)g;
	(void)fr;
	(void)u;
	if (!text_blocks(w, end, 1000, 200, md_block, NULL))
		return;
	w->col = 0;
	text_put_text(w, (size_t)(end - w->p), T_WRAP | T_PARA | T_NL);
}

const struct tfmt text_fmt_md = { .frame = md_frame, .unit = md_unit };
