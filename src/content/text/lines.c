/* lines.c - record lines (manifests, XML indexes, SVG drawings) for profiles whose ratio prose cannot reach */
#include <math.h>
#include <strings.h>

#include "content/gen.h"
#include "content/model.h"
#include "util/rng.h"
#include "content/text/text.h"

/*
 * A file of lines, each a record of a few fields, as symbol lists,
 * checksum manifests, devhelp indexes and drawings exported by a tool
 * have them: their ratio comes from whole lines that come back with
 * their last word changed, far above prose's (the .amd64 symbol lists of
 * /usr/share/doc: 12.3 where prose tops out at 3.6), or from fields of
 * dense tokens (base64, path numbers: XML signatures, 1.94) far below
 * markup's.  gen_file.boost moves both ways, one knob for
 * content/extc.c's calibration (lines_unit()):
 *
 * - boost b > 0: a line is one of the file's recurring lines (made from
 *   the stream of (file key, its index), small indexes likelier), by
 *   1 - k with k = sqrt(1 - b / 65535); their pool shrinks from
 *   POOL_LINES toward one as k falls, and the last word of one changes
 *   by k (or by fresh, if more);
 * - boost b < 0: a field is a dense token by -b / 65536.
 *
 * fresh and narrow act on the words as in prose (narrow not in a
 * recurring line but in its changed word: it would make the line differ
 * by where it comes).  Lines never cross a unit; a unit ends with line
 * breaks where the next line would not fit.  XML and SVG files are one
 * root element (valid XML, what file(1) calls them), plain ones lines of
 * text.
 */
enum { LN_PLAIN, LN_XML, LN_SVG, LN_TINY };

/* lines are at most a few hundred bytes: one past the unit's end fits in SLACK, rolled back */
#define POOL_LINES 64u
#define SALT_LINE  UINT64_C(0xD6E8FEB86659FD93)

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* n characters of base64 from the writer's stream. */
static void put_b64(struct tw *w, unsigned n)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < n; i++) {
		if (i % 10 == 0)
			x = tnext(&w->r);
		put_ch(w, b64[x & 63]);
		x >>= 6;
	}
}

/*
 * A line as it is written: the line's own stream (a recurring line's) but
 * for its last word when chg, made from the unit's (*own) with its fresh
 * and narrow words (last: only a short tail follows it, so a changed line
 * costs its word and one copy); dense: its share of dense fields.
 */
struct ln {
	const struct frame *fr;
	int chg; /* the line's last word changed */
	struct trng *own;
	uint64_t *fseq; /* the unit's last fresh number, for the changed word */
	uint32_t dense;
	uint32_t fresh, narrow; /* the unit's, for the changed word */
};

/* A name word, or by fresh a token new to the file. */
static void put_word(struct tw *w, struct ln *l, int last)
{
	struct trng save;
	uint64_t fseq = 0;
	int on = last && l->chg;

	if (on) {
		save = w->r;
		w->r = *l->own;
		fseq = w->fseq;
		w->fseq = *l->fseq;
		w->fresh = l->fresh;
		w->narrow = l->narrow;
	}
	if (text_fresh_draw(w))
		w->p += text_fresh(w, w->p);
	else
		put_rank(w, text_name_word(w), 0);
	/* a changed word: a second one by fresh (more new words than lines) */
	if (on && text_fresh_draw(w)) {
		put_ch(w, '-');
		w->p += text_fresh(w, w->p);
	}
	if (on) {
		*l->own = w->r;
		w->r = save;
		*l->fseq = w->fseq;
		w->fseq = fseq;
		w->narrow = 0;
	}
}

/* An identifier of 1 to 4 words joined by sep. */
static void put_ident(struct tw *w, struct ln *l, char sep)
{
	unsigned k = 1 + (unsigned)(tnext(&w->r) & 3);

	for (unsigned i = 0; i < k; i++) {
		if (i)
			put_ch(w, sep);
		put_word(w, l, 0);
	}
}

static int dense(struct tw *w, const struct ln *l)
{
	return l->dense && (tnext(&w->r) >> 48) < l->dense;
}

/* kind:ident@@tag_1.2.3 word (a symbol list), an ident of base64 when dense */
static void line_plain(struct tw *w, struct ln *l)
{
	put_word(w, l, 0);
	put_ch(w, ':');
	if (dense(w, l))
		put_b64(w, 16 + (unsigned)below(tnext(&w->r), 48));
	else
		put_ident(w, l, '_');
	put_str(w, "@@");
	put_word(w, l, 0);
	put_ch(w, '_');
	text_put_dec(w, 1 + below(tnext(&w->r), 4), 1);
	put_ch(w, '.');
	text_put_dec(w, below(tnext(&w->r), 10), 1);
	put_ch(w, '.');
	text_put_dec(w, below(tnext(&w->r), 40), 1);
	put_ch(w, ' ');
	put_word(w, l, 1);
	put_ch(w, '\n');
}

/* <rec type="word" name="ident" link="file.html#ident" since="word"/>, a digest of base64 when dense */
static void line_xml(struct tw *w, struct ln *l)
{
	const struct schema *sc = &l->fr->sc;
	uint8_t *name;
	size_t nlen;

	put_str(w, "  <");
	put_rank(w, sc->rec, 0);
	put_str(w, " type=\"");
	put_word(w, l, 0);
	put_str(w, "\" name=\"");
	name = w->p;
	put_ident(w, l, '_');
	nlen = (size_t)(w->p - name);
	if (dense(w, l)) {
		put_str(w, "\" digest=\"");
		put_b64(w, 32 + (unsigned)below(tnext(&w->r), 96));
	} else {
		put_str(w, "\" link=\"");
		put_ident(w, l, '-');
		put_str(w, ".html#");
		memmove(w->p, name, nlen);
		w->p += nlen;
	}
	put_str(w, "\" since=\"");
	put_word(w, l, 1);
	put_str(w, "\"/>\n");
}

/* A hex colour of the file's few (a drawing's palette). */
static void put_colour(struct tw *w)
{
	static const char hex[] = "0123456789abcdef";
	uint64_t x = rng_mix64(w->key ^ SALT_VALUE ^ (tnext(&w->r) & 7));

	put_ch(w, '#');
	for (unsigned i = 0; i < 6; i++, x >>= 4)
		put_ch(w, hex[x & 15]);
}

/* a styled rect and its label; dense: a path of random line segments */
static void line_svg(struct tw *w, struct ln *l)
{
	if (dense(w, l)) {
		unsigned k = 4 + (unsigned)below(tnext(&w->r), 24);

		put_str(w, "  <path d=\"M");
		text_put_dec(w, below(tnext(&w->r), 2000), 1);
		put_ch(w, ' ');
		text_put_dec(w, below(tnext(&w->r), 2000), 1);
		for (unsigned i = 0; i < k; i++) {
			uint64_t x = tnext(&w->r);

			put_ch(w, 'l');
			text_put_dec(w, (x >> 8) % 500, 1);
			put_ch(w, (x >> 20) & 1 ? '-' : ' ');
			text_put_dec(w, (x >> 24) % 500, 1);
		}
		put_str(w, "z\" fill=\"");
		put_colour(w);
		put_str(w, "\"/>\n");
		return;
	}
	put_str(w, "  <rect style=\"fill: ");
	put_colour(w);
	put_str(w, "; fill-opacity: 1; stroke: ");
	put_colour(w);
	put_str(w, "\" x=\"");
	text_put_dec(w, below(tnext(&w->r), 1400), 1);
	put_str(w, "\" y=\"");
	text_put_dec(w, below(tnext(&w->r), 600), 1);
	put_str(w, "\" width=\"");
	text_put_dec(w, 20 * (1 + below(tnext(&w->r), 12)), 1);
	put_str(w, "\" height=\"54\"/><text x=\"");
	text_put_dec(w, below(tnext(&w->r), 1400), 1);
	put_str(w, "\" y=\"");
	text_put_dec(w, below(tnext(&w->r), 600), 1);
	put_str(w, "\">");
	put_ident(w, l, ' ');
	put_ch(w, ' ');
	put_word(w, l, 1);
	put_str(w, "</text>\n");
}

static void lines_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	static const char decl[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	struct tw w;
	uint8_t *f;

	text_frame_open(&w, cm, g, fr->head, 11);
	text_schema_init(&w, &fr->sc, 0);
	if (fr->variant == LN_PLAIN)
		return; /* no frame */
	put_str(&w, decl);
	if (fr->variant == LN_SVG) {
		put_str(&w,
			"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"1400\" height=\"600\" "
			"viewBox=\"0 0 1400 600\">\n");
	} else {
		put_ch(&w, '<');
		text_put_plural(&w, fr->sc.root);
		put_str(&w, " name=\"");
		put_rank(&w, text_name_word(&w), 0);
		put_str(&w, "\">\n");
	}
	fr->hlen = (size_t)(w.p - fr->head);
	w.p = f = fr->foot;
	text_put_xml_close(&w, &fr->sc, fr->variant == LN_SVG);
	fr->flen = (size_t)(w.p - f);
	if (fr->hlen + fr->flen <= g->size)
		return;
	/* small files: <r/> padded with line breaks, or blanks */
	w.p = fr->head;
	fr->variant = LN_TINY;
	fr->flen = 0;
	text_put_xml_stub(&w, (size_t)g->size);
	fr->hlen = (size_t)g->size;
}

static void lines_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		       size_t len)
{
	/*
	 * recurring lines by 1 - k, one changed by k, the pool shrinking with
	 * k: the new bytes fall about as k, so that the ratio climbs evenly
	 * enough for the calibration's bisection up to the largest ratios,
	 * and small files get there too (few distinct lines).  Fresh words
	 * come in changed words: as many changed lines as fresh asks (else a
	 * file of few new bytes could not have more words).
	 */
	double keep = w->boost > 0 ? sqrt(1 - w->boost / 65535.0) : 1;
	uint32_t t = (uint32_t)((1 - keep) * 65536);
	uint32_t m = MAX((uint32_t)(keep * 65535), w->fresh);
	uint64_t pool = 256 + (uint64_t)((POOL_LINES - 1) * 256 * keep); /* in 1/256 of a line */
	uint8_t *end = w->p + len;
	uint32_t fresh = w->fresh, narrow = w->narrow;
	uint64_t fseq = 0;
	struct trng own;
	struct ln l = {
		.fr = fr,
		.own = &own,
		.fseq = &fseq,
		.dense = w->boost < 0 ? (uint32_t)-w->boost : 0,
		.fresh = w->fresh,
		.narrow = w->narrow,
	};

	(void)g;
	(void)u;
	own = w->r;
	while (w->p < w->stop && w->p < end) {
		uint8_t *mark = w->p;
		uint64_t x = tnext(&w->r);
		int rec = t && (x >> 48) < t;

		l.chg = 0;
		if (rec) {
			/*
			 * a recurring line: index by 1 / sqrt density, the same
			 * wherever it comes (no narrowed word, fresh ones from
			 * its own stream; the changed word from the unit's)
			 */
			uint64_t a = x & 0xFFFFFF, b = (x >> 24) & 0xFFFFFF;
			uint64_t j = (((a * b) >> 24) * pool) >> 32;
			uint64_t y = tnext(&w->r);

			l.chg = (y >> 48) < m;
			own = w->r;
			w->r.s = rng_mix64(w->key ^ SALT_LINE ^ j);
			w->narrow = 0;
			fseq = w->fseq;
			w->fseq = 0;
		}
		if (fr->variant == LN_XML)
			line_xml(w, &l);
		else if (fr->variant == LN_SVG)
			line_svg(w, &l);
		else
			line_plain(w, &l);
		if (rec) {
			w->r = own;
			w->fresh = fresh;
			w->narrow = narrow;
			w->fseq = fseq;
		}
		if (w->p > end) {
			w->p = mark;
			text_put_chars(w, '\n', (size_t)(end - mark));
			return;
		}
	}
}

static void lines_frame_plain(const struct gen_file *g, const struct content_model *cm,
			      struct frame *fr)
{
	fr->variant = LN_PLAIN;
	lines_frame(g, cm, fr);
}

static void lines_frame_xml(const struct gen_file *g, const struct content_model *cm,
			    struct frame *fr)
{
	fr->variant = !strcasecmp(text_file_ext(g), "svg") ? LN_SVG : LN_XML;
	lines_frame(g, cm, fr);
}

static const struct tfmt text_fmt_lines = { .frame = lines_frame_plain, .unit = lines_unit };
static const struct tfmt text_fmt_lines_xml = { .frame = lines_frame_xml, .unit = lines_unit };

static int lines_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&text_fmt_lines, g, off, buf, len);
}

static int lines_xml_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&text_fmt_lines_xml, g, off, buf, len);
}

const struct gen_ops gen_lines_ops = { .name = "lines", .min_size = 0, .fill = lines_fill };

const struct gen_ops gen_lines_xml_ops = { .name = "lines-xml",
					   .min_size = 0,
					   .fill = lines_xml_fill };
