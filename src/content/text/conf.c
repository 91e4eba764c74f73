/* conf.c - configuration files: ini and YAML */
#include <string.h>
#include <strings.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"

static void put_conf_value(struct tw *w)
{
	uint64_t x = tnext(&w->r);

	switch (x % 6) {
	case 0:
		text_put_number(w);
		break;
	case 1:
		put_str(w, (x >> 8) & 1 ? "true" : "false");
		break;
	case 2:
		put_str(w, "/var/lib/");
		put_rank(w, text_name_word(w), 0);
		put_ch(w, '/');
		put_rank(w, text_name_word(w), 0);
		put_str(w, (x >> 8) & 1 ? ".conf" : ".db");
		break;
	default:
		text_put_phrase(w, 3, 24, 0);
		break;
	}
}

static void conf_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		      size_t len)
{
	uint8_t *end = w->p + len;
	int yaml = fr->variant == 1;

	const char *ext = text_file_ext(g);

	/* real .ini and .cfg files are tables of near-identical lines; .conf are commented */
	if (!strcasecmp(ext, "ini") || !strcasecmp(ext, "cfg"))
		w->rc = (struct recur){ 6, 65000, 3, 0, 0 };
	else
		w->rc = (struct recur){ 24, 16384, 16, 0, 0 };
	(void)u;
	for (;;) {
		uint8_t *mark = w->p;
		uint64_t x = tnext(&w->r);

		if (w->p >= w->stop)
			return;
		if (end - w->p < 600)
			break;
		if ((x & 3) == 0) {
			put_str(w, yaml ? "# " : (x & 4) ? "; " : "# ");
			text_put_text(w, 20 + below(x, 60), T_NL);
		}
		if (yaml) {
			put_rank(w, text_name_word(w), 0);
			put_str(w, ":\n");
		} else {
			put_ch(w, '[');
			put_rank(w, text_name_word(w), 0);
			put_str(w, "]\n");
		}
		for (unsigned i = 0, k = 2 + (unsigned)((x >> 8) % 7); i < k; i++) {
			put_str(w, yaml ? "  " : "");
			put_rank(w, text_name_word(w), 0);
			put_ch(w, '_');
			put_rank(w, text_name_word(w), 0);
			if (yaml && ((x >> (16 + i)) & 7) == 0) {
				put_str(w, ":\n");
				unsigned m = 1 + (unsigned)((x >> 40) % 4);

				for (unsigned j = 0; j < m; j++) {
					put_str(w, "    - ");
					put_rank(w, text_name_word(w), 0);
					put_ch(w, '\n');
				}
				continue;
			}
			put_str(w, yaml ? ": " : " = ");
			put_conf_value(w);
			put_ch(w, '\n');
		}
		put_ch(w, '\n');
		if (end - w->p < 300) {
			w->p = mark;
			break;
		}
	}
	text_comment_lines(w, (size_t)(end - w->p), "", "# ", "");
}

static void yaml_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	(void)cm;
	fr->variant = 1;
	if (g->size >= 4) {
		memcpy(fr->head, "---\n", 4);
		fr->hlen = 4;
	}
}

const struct tfmt text_fmt_ini = { .frame = NULL, .unit = conf_unit };

const struct tfmt text_fmt_yaml = { .frame = yaml_frame, .unit = conf_unit };
