/* code.c - source code: a file of the language of its extension, from the compiled templates */
#include <string.h>
#include <strings.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"
#include "content/text/lang.h"

/* A source writer: the current function's names and depth. */
struct src {
	struct tw *w;
	const struct lang *lg;
	const struct frame *fr;
	unsigned depth;
	uint32_t var[4][2];
	unsigned nv, seq;
	int in_seq;                 /* `v in order (parameters) */
	uint32_t fn[2];
	uint32_t defs[16][2];
	unsigned ndefs;
	uint32_t vary;              /* variety (below) out of 65536; 0: none, and no draw */
};

/*
 * Variety, vary = -boost - CODE_BOOST_MAX for gen_file.boost below
 * -CODE_BOOST_MAX (the recurrence then none; content/extc.c): for a
 * profile's ratio below what code without recurrence compresses to.  Its
 * repeated constructs set that floor (/usr/share/doc's .go: 2.85 against
 * the source's 2.36): the same few name words of the file's pool, the
 * same statements with no name in them (`if err != nil { return nil,
 * err }`), small numbers.  By vary / 65536 a name word is drawn from a
 * wider range of the vocabulary, a statement without a name is drawn
 * again, a variable is a name of its own and a number is larger, each
 * one draw (none when vary is 0).
 */
#define CODE_BOOST_MAX	65535
#define VARY_HI		(IDENT_HI * 8u)

static inline int vary_draw(struct src *s)
{
	return s->vary && (tnext(&s->w->r) >> 48) < s->vary;
}

/* A name word: text_name_word(), or by vary one of a wider range, uniformly. */
static uint32_t name_word(struct src *s)
{
	struct tw *w = s->w;
	uint32_t lo = MIN(IDENT_LO, w->tm->n - 1), hi = MIN(VARY_HI, w->tm->n);

	if (vary_draw(s))
		return lo + (uint32_t)below(tnext(&w->r), hi - lo);
	return text_name_word(w);
}

enum { ID_LANG, ID_SNAKE, ID_CAMEL, ID_PASCAL, ID_UPPER };

static void new_ident(struct src *s, uint32_t id[2])
{
	struct tw *w = s->w;

	id[0] = name_word(s);
	id[1] = (tnext(&w->r) & 1) || w->tm->keyword[id[0]] ? name_word(s) : UINT32_MAX;
}

/* Upper-case n letters at p (lowercase ASCII, at most WMAX). */
static inline void upcase(uint8_t *p, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] -= 'a' - 'A';
}

static void put_ident(struct src *s, const uint32_t id[2], int style)
{
	struct tw *w = s->w;
	const struct text_model *tm = w->tm;
	uint8_t *at = w->p;

	if (style == ID_LANG)
		style = s->lg->camel ? ID_CAMEL : ID_SNAKE;
	put_rank(w, id[0], style == ID_PASCAL);
	if (style == ID_UPPER)
		upcase(at, tm->len[id[0]]);
	if (id[1] == UINT32_MAX)
		return;
	if (style == ID_SNAKE || style == ID_UPPER)
		put_ch(w, '_');
	at = w->p;
	put_rank(w, id[1], style == ID_PASCAL || style == ID_CAMEL);
	if (style == ID_UPPER)
		upcase(at, tm->len[id[1]]);
}

static void put_fresh(struct src *s, int style)
{
	uint32_t id[2];

	new_ident(s, id);
	put_ident(s, id, style);
}

/* One of a language's list, uniformly. */
static inline const uint8_t *pick(struct src *s, unsigned role)
{
	unsigned k = role - R_ONE;

	return s->lg->list[k][below(tnext(&s->w->r), s->lg->nlist[k])];
}

/* Whether a compiled template writes a name or a value (else it is the same every time). */
static int has_hole(const uint8_t *c)
{
	for (unsigned op; (op = *c); c += op < OP_CODE ? op + 1 : 1)
		if (op >= OP_CODE && strchr("iIUwvtnsmcfNGL", (int)(op - OP_CODE)))
			return 1;
	return 0;
}

/*
 * A number (text_put_number()): a fresh hexadecimal one with a letter in
 * it gets its 0x, which code needs (written bare, "60E5A" is no Go).
 */
static void put_number(struct tw *w)
{
	uint8_t *at = w->p;
	size_t n;

	text_put_number(w);
	n = (size_t)(w->p - at);
	if (!w->fresh)
		return;
	for (size_t i = 0; i < n; i++) {
		if (at[i] >= 'A' && at[i] <= 'F') {
			memmove(at + 2, at, n);
			memcpy(at, "0x", 2);
			w->p += 2;
			return;
		}
	}
}

static inline void indent(struct src *s)
{
	const struct lang *lg = s->lg;
	unsigned n = MIN(s->depth * lg->ind_len, lg->ind_max);

	memcpy(s->w->p, lg->ind, IND_PAD);
	s->w->p += n;
}

static void run(struct src *s, const uint8_t *c)
{
	struct tw *w = s->w;
	int star = 0;   /* a type ending in '*' was just written: "char *name" */

	for (;;) {
		unsigned op = *c++;

		if (!op)
			return;
		if (op < OP_CODE) {
			const uint8_t *q = c;
			unsigned n = op;

			if (star && *q == ' ') {
				q++;
				n--;
			}
			if (n <= 16)
				memcpy(w->p, q, 16);
			else
				memcpy(w->p, q, n);
			w->p += n;
			c += op;
			star = 0;
			continue;
		}
		star = 0;
		switch (op - OP_CODE) {
		case 'i':
			put_fresh(s, ID_LANG);
			break;
		case 'I':
			put_fresh(s, ID_PASCAL);
			break;
		case 'U':
			put_fresh(s, ID_UPPER);
			break;
		case 'w':
			put_rank(w, name_word(s), 0);
			break;
		case 'v':
			if (!s->nv || (!s->in_seq && vary_draw(s))) {
				put_fresh(s, ID_LANG);
				break;
			}
			put_ident(s, s->var[s->in_seq ? s->seq++ % s->nv
						     : below(tnext(&w->r), s->nv)], ID_LANG);
			break;
		case 't':
			run(s, pick(s, R_TYPE));
			star = w->p[-1] == '*';
			break;
		case 'n':
			if (vary_draw(s))
				text_put_dec(w, below(tnext(&w->r), 1000000), 1);
			else
				put_number(w);
			break;
		case 's':
			text_put_phrase(w, 4, 24, 0);
			break;
		case 'm':
			text_put_text(w, 20 + below(tnext(&w->r), 50), 0);
			break;
		case 'c':
			if (s->ndefs && (tnext(&w->r) & 1))
				put_ident(s, s->defs[below(tnext(&w->r), s->ndefs)], ID_LANG);
			else
				run(s, pick(s, R_CALL));
			break;
		case 'f':
			put_ident(s, s->fn, ID_LANG);
			break;
		case 'N':
			put_ident(s, s->fr->name, ID_PASCAL);
			break;
		case 'G':
			put_ident(s, s->fr->name, ID_UPPER);
			break;
		case 'L':
			put_ident(s, s->fr->name, ID_SNAKE);
			break;
		case '>':
			put_ch(w, '\n');
			indent(s);
			break;
		case '+':
			s->depth++;
			break;
		case '-':
			s->depth--;
			break;
		}
	}
}

/* One indented line from a compiled template. */
static void line(struct src *s, const uint8_t *c)
{
	indent(s);
	run(s, c);
	put_ch(s->w, '\n');
}

/* The same, of a language's role (none: nothing). */
static inline void line_of(struct src *s, unsigned role)
{
	if (s->lg->one[role])
		line(s, s->lg->one[role]);
}

static void doc_comment(struct src *s)
{
	struct tw *w = s->w;
	const struct lang *lg = s->lg;

	if (lg->one[R_DOC_OPEN] && (tnext(&w->r) & 1)) {
		line(s, lg->one[R_DOC_OPEN]);
		for (unsigned i = 0, k = 1 + (unsigned)below(tnext(&w->r), 3); i < k; i++) {
			indent(s);
			run(s, lg->one[R_DOC_LINE]);
			text_put_text(w, 30 + below(tnext(&w->r), 40), 0);
			put_ch(w, '\n');
		}
		line(s, lg->one[R_DOC_CLOSE]);
	} else {
		indent(s);
		run(s, lg->one[R_LC]);
		text_put_text(w, 20 + below(tnext(&w->r), 50), 0);
		if (lg->one[R_LC_END])
			run(s, lg->one[R_LC_END]);
		put_ch(w, '\n');
	}
}

static void simple_stmt(struct src *s)
{
	const uint8_t *c = pick(s, R_STMT);

	if (vary_draw(s) && !has_hole(c))
		c = pick(s, R_STMT);
	line(s, c);
}

static void block(struct src *s, unsigned open, unsigned close)
{
	line_of(s, open);
	s->depth++;
	for (unsigned i = 0, k = 1 + (unsigned)below(tnext(&s->w->r), 3); i < k; i++)
		simple_stmt(s);
	s->depth--;
	line_of(s, close);
}

static void function(struct src *s, int proto, size_t room)
{
	struct tw *w = s->w;
	const struct lang *lg = s->lg;
	/* a statement takes at most about 160 bytes (a block of four lines) */
	unsigned most = room > 560 ? (unsigned)MIN((room - 400) / 160, 10) : 1;

	s->nv = 2 + (unsigned)below(tnext(&w->r), 3);
	/* distinct: parameters may not repeat (Python, strict JavaScript) */
	for (unsigned i = 0; i < s->nv; i++) {
		unsigned j;

		do {
			new_ident(s, s->var[i]);
			for (j = 0; j < i; j++)
				if (s->var[j][0] == s->var[i][0] && s->var[j][1] == s->var[i][1])
					break;
		} while (j < i);
	}
	new_ident(s, s->fn);
	doc_comment(s);
	s->in_seq = 1;
	s->seq = 0;
	line(s, lg->one[proto ? R_PROTO : R_FN_OPEN]);
	s->in_seq = 0;
	if (!proto) {
		s->depth++;
		if (lg->one[R_FN_PROLOGUE]) {
			s->in_seq = 1;
			s->seq = 0;
			line(s, lg->one[R_FN_PROLOGUE]);
			s->in_seq = 0;
		}
		unsigned k = MIN(2 + (unsigned)below(tnext(&w->r), 9), most);

		for (unsigned i = 0; i < k; i++) {
			unsigned kind = (unsigned)below(tnext(&w->r), 20);

			if (kind < 3 && lg->one[R_IF_OPEN])
				block(s, R_IF_OPEN, R_IF_CLOSE);
			else if (kind < 5 && lg->one[R_LOOP_OPEN])
				block(s, R_LOOP_OPEN, R_LOOP_CLOSE);
			else if (kind < 6)
				doc_comment(s);
			else
				simple_stmt(s);
		}
		line_of(s, R_RET);
		s->depth--;
		line_of(s, R_FN_CLOSE);
	}
	if (s->ndefs < NELEM(s->defs)) {
		s->defs[s->ndefs][0] = s->fn[0];
		s->defs[s->ndefs][1] = s->fn[1];
		s->ndefs++;
	}
}

static void record(struct src *s)
{
	s->nv = 0;
	doc_comment(s);
	line_of(s, R_REC_OPEN);
	s->depth++;
	for (unsigned i = 0, k = 2 + (unsigned)below(tnext(&s->w->r), 5); i < k; i++)
		line_of(s, R_REC_FIELD);
	s->depth--;
	line_of(s, R_REC_CLOSE);
}

static void src_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	int header;
	const struct lang *lg = lang_of(text_file_ext(g), &header);
	struct src s = { .lg = lg, .fr = fr };
	const int guard = header && lg->one[R_GUARD];
	struct tw w;
	uint8_t *at;
	size_t guard_at, imp_from, imp_to, open_at, flen, guard_len = guard ? 8 : 0, best = 0;
	int chosen = 0, kind = 0;
	const unsigned nimp = lg->nlist[R_IMPORT - R_ONE];

	text_frame_open(&w, cm, g, fr->head, 6);
	s.w = &w;
	fr->lang = lg;
	fr->variant = (unsigned)header;
	new_ident(&s, fr->name);
	line_of(&s, R_FIRST);
	guard_at = (size_t)(w.p - fr->head);
	if (guard)
		line_of(&s, R_GUARD);
	put_ch(&w, '\n');
	imp_from = imp_to = (size_t)(w.p - fr->head);
	line_of(&s, R_IMP_OPEN);
	for (unsigned i = 0; i < nimp; i++) {
		if ((tnext(&w.r) % 5 < 3) || (i + 1 == nimp && !chosen)) {
			line(&s, lg->list[R_IMPORT - R_ONE][i]);
			chosen = 1;
		}
	}
	if (lg->one[R_IMP_CLOSE]) {
		line_of(&s, R_IMP_CLOSE);
		imp_to = (size_t)(w.p - fr->head);
	}
	open_at = (size_t)(w.p - fr->head);
	if (lg->one[R_OPEN]) {
		put_ch(&w, '\n');
		run(&s, lg->one[R_OPEN]);
		fr->depth0 = lg->depth0;
	}
	fr->hlen = (size_t)(w.p - fr->head);
	w.p = at = fr->foot;
	if (lg->one[R_CLOSE]) {
		put_ch(&w, '\n');
		run(&s, lg->one[R_CLOSE]);
		put_ch(&w, '\n');
	}
	if (guard)
		put_str(&w, "\n#endif\n");	/* guard_len bytes */
	fr->flen = flen = (size_t)(w.p - at);
	if (fr->hlen + fr->flen + 64 <= g->size)
		return;
	/*
	 * Small files: the longest run of whole header lines that fits with
	 * the footer it needs (#endif once the guard is open, the closing
	 * brace once the class is), never inside an import block nor inside
	 * the opening of a class or namespace (all of it or none).
	 */
	for (const uint8_t *nl = fr->head, *hend = fr->head + fr->hlen;
	     (nl = memchr(nl, '\n', (size_t)(hend - nl))) != NULL;) {
		size_t c = (size_t)(++nl - fr->head);	/* the header's first c bytes: whole lines */
		int k = c > open_at ? 2 : guard && c > guard_at ? 1 : 0;
		size_t need = k == 2 ? flen : k == 1 ? guard_len : 0;

		if ((c > imp_from && c < imp_to) || (k == 2 && c < fr->hlen))
			continue;
		if (c + need <= g->size) {
			best = c;
			kind = k;
		}
	}
	fr->hlen = best;
	if (kind == 1)
		memmove(fr->foot, fr->foot + flen - guard_len, guard_len);
	fr->flen = kind == 2 ? flen : kind == 1 ? guard_len : 0;
	if (kind != 2)
		fr->depth0 = 0;
}

/* Blank lines and comment lines filling exactly n bytes at top level. */
static void src_filler(struct src *s, size_t n)
{
	const struct lang *lg = s->lg;
	char ind[IND_PAD + 1];
	size_t k = MIN(s->depth * lg->ind_len, lg->ind_max);

	memcpy(ind, lg->ind, k);
	ind[k] = '\0';
	if (n >= 1) {
		put_ch(s->w, '\n');
		n--;
	}
	text_comment_lines(s->w, n, ind, lg->raw[R_LC], lg->raw[R_LC_END] ? lg->raw[R_LC_END] : "");
}

/* A top-level block: constants, a record or a function. */
static void src_block(struct tw *w, const uint8_t *end, void *ctx)
{
	struct src *s = ctx;
	unsigned kind = (unsigned)below(tnext(&w->r), 20);

	put_ch(w, '\n');
	if (kind < 2 && s->lg->one[R_KONST]) {
		s->nv = 0;
		for (unsigned i = 0, k = 2 + (unsigned)below(tnext(&w->r), 4); i < k; i++)
			line_of(s, R_KONST);
	} else if (kind < 5 && s->lg->one[R_REC_OPEN]) {
		record(s);
	} else {
		function(s, s->fr->variant && s->lg->one[R_PROTO], (size_t)(end - w->p));
	}
}

/*
 * Recurrence by extension (text.h), calibrated so that gzip -6 and zstd -3
 * find what they find in real files of the kind (doc/content.md); the
 * first row is the default.
 */
static const struct {
	const char *ext;
	struct recur rc;
} src_recur[] = {
	{ "", { 40, 50000, 16, 8192, 8 } },
	{ "pl", { 64, 22000, 24, 0, 0 } },
	{ "css", { 16, 62000, 8, 24000, 8 } },
	{ "h", { 24, 56000, 12, 24000, 8 } },
};

static void src_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	struct src s = { .w = w, .lg = fr->lang, .fr = fr, .depth = fr->depth0 };
	uint8_t *end = w->p + len;
	const char *ext = text_file_ext(g);

	(void)u;
	/* past the recurrence's end: none of it, and variety (above) */
	if (w->boost < -CODE_BOOST_MAX) {
		s.vary = (uint32_t)MIN(-(int64_t)w->boost - CODE_BOOST_MAX, (int64_t)65535);
		w->boost = -CODE_BOOST_MAX;
	}
	w->rc = src_recur[0].rc;
	for (size_t i = 1; i < NELEM(src_recur); i++)
		if (!strcasecmp(src_recur[i].ext, ext))
			w->rc = src_recur[i].rc;
	if (text_blocks(w, end, 400, 64, src_block, &s))
		src_filler(&s, (size_t)(end - w->p));
}

const struct tfmt text_fmt_src = { .frame = src_frame, .unit = src_unit };
