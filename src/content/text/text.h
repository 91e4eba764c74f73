/* text.h - internal to text/: the unit writer, the frame and the formats the generators share */
#ifndef IMPRINT_CONTENT_TEXT_TEXT_H
#define IMPRINT_CONTENT_TEXT_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "content/gen.h"
#include "content/model.h"

/*
 * Random access.  A file is a header, body units and a footer.  Unit u
 * holds bytes [hlen + u UNIT, hlen + (u + 1) UNIT) of the file (the last
 * one is cut at size - flen) and is made from (file key, u, its length)
 * alone, as a whole: sentences, lines and elements never cross a unit
 * boundary, and each unit ends exactly at its last byte (its last
 * sentence, line or element is sized to fit).  The header and footer
 * depend on (key, size).  So any byte range is made by building the units
 * it touches, and a file is the same whether it is made in one call or in
 * many.
 */
#define UNIT		4096u
#define SLACK		8192u	/* unit buffers are this much longer (roll-back) */
#define FRAME_MAX	1536u	/* longest header or footer */
#define WMAX		CONTENT_WORD_MAX
#define WFIN		12u	/* longest exact-length word closing a line */
#define HEAPS0_N	64u	/* Heaps updates from word 0 kept in a table (writer.c) */

/*
 * Topic words.  Popularity ranks TOPIC_AT .. TOPIC_AT + NTOPIC - 1 of a
 * document are given to words drawn per file from ranks TOPIC_LO ..
 * TOPIC_HI: each document has a few frequent content words of its own, as
 * real ones do, while its rank-frequency curve stays the same.
 */
#define TOPIC_AT	30u
#define NTOPIC		8u
#define TOPIC_LO	200u
#define TOPIC_HI	20000u

/* Identifiers, names and keys come from these ranks: content words, not "the". */
#define IDENT_LO	40u
#define IDENT_HI	2500u

#define SALT_UNIT	UINT64_C(0x7A3F9E2C41D85B17)
#define SALT_FRAME	UINT64_C(0x1F83D9ABFB41BD6B)
#define SALT_DOC	UINT64_C(0x5BE0CD19137E2179)
#define SALT_TOPIC	UINT64_C(0x6A09E667F3BCC908)
#define SALT_REP	UINT64_C(0xBB67AE8584CAA73B)
#define SALT_NAME	UINT64_C(0x3C6EF372FE94F82B)
#define SALT_SENT	UINT64_C(0xA54FF53A5F1D36F1)
#define SALT_BLOCK	UINT64_C(0x510E527FADE682D1)
#define SALT_VALUE	UINT64_C(0x9B05688C2B3E6C1F)

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/*
 * The Zipf sampler: Walker's alias table (Vose's construction) over all
 * ranks, one 32-bit entry a column: a 16-bit keep threshold and the 16-bit
 * rank given instead.  A draw is one read of a 256 KiB table and no
 * branch, which matters: a CDF search with a guide table (branches, two
 * dependent reads) made text generation 1.5 times slower.  Exact up to
 * the 16-bit rounding of the keep shares: a relative error of at most
 * about 2^-16 on a rank's probability, 2^-16 / (n p(r)) for rare ranks.
 * Ranks fit in 16 bits: vocabularies have at most CONTENT_WORDS_MAX words.
 */
struct text_model {
	uint32_t n;                 /* words */
	uint32_t *alias;            /* column c: keep threshold (low 16 bits), other rank */
	uint8_t (*slot)[WMAX];      /* word r, zero-padded: copied WMAX bytes at a time */
	const uint8_t *len;
	uint32_t lfirst[WMAX + 2];  /* words of length l: by_len[lfirst[l] .. lfirst[l + 1]) */
	uint32_t *by_len;           /* ranks by length, then by rank */
	uint8_t wl[1024];           /* Impressions' F(L) as an inverse CDF */
	uint8_t *keyword;           /* keyword[r]: word r is a keyword of some language */
	int mode;
	uint32_t heaps0[HEAPS0_N];  /* the vocabulary (uncapped) at the first Heaps updates from
				       word 0 (writer.c) */
};

/* Fill tm->heaps0 (writer.c). */
void text_heaps_init(struct text_model *tm);

/* A counter-based generator (wyrand): one multiply per 64 bits. */
#define WY_P0 UINT64_C(0xA0761D6478BD642F)
#define WY_P1 UINT64_C(0xE7037ED1A0B428DB)

struct trng {
	uint64_t s;
};

static inline uint64_t tnext(struct trng *r)
{
	unsigned __int128 m;

	r->s += WY_P0;
	m = (unsigned __int128)r->s * (r->s ^ WY_P1);
	return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/* Uniform in [0, n) from 64 random bits. */
static inline uint64_t below(uint64_t x, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

/*
 * Recurrence, as real code, markup and data have it (each format sets its
 * own, calibrated against real files: doc/content.md).  Names and keys
 * come from a pool of kn words of the file (0: any content word); a
 * sentence is, with probability sp / 65536, one of the file's sn
 * recurring sentences, and a block (text_blocks) one of its bn recurring
 * blocks with probability bp / 65536.  A recurring piece is made from the
 * stream of (file key, its index), small indexes likelier, so it comes
 * back the same in any unit, which is what a compressor finds.
 */
struct recur {
	uint16_t kn, sp, sn, bp, bn;
};

/* The words gen_file.narrow draws again from: a sentence or two. */
#define NRECENT 32u

struct tw {
	uint8_t *p;                 /* next byte */
	uint8_t *stop;              /* T_STOP text may end early once p is past it */
	const struct text_model *tm;
	struct trng r;
	uint64_t key;               /* the file's */
	uint64_t pos, pos_next;     /* word position (Heaps); when to widen the vocabulary */
	uint32_t hk;                /* updates since word 0 (tm->heaps0), HEAPS0_N: not from 0 */
	uint32_t vcur, vhalf;       /* V(pos) and V(pos) / 2 */
	uint32_t topic[NTOPIC];
	uint32_t rep;               /* text_mode repeat: the word */
	unsigned col, width;        /* column, and where lines wrap */
	struct recur rc;            /* the format's recurrence (all 0 from text_tw_open) */
	int32_t boost;              /* gen_file.boost: p and n of every recurrence moved toward
				       always and one piece by boost / 65536, or p toward never by
				       -boost / 65536 (0: as the format says) */
	uint32_t fresh;             /* gen_file.fresh: a word is a fresh token (text_fresh())
				       with probability fresh / 65536 (0: never, and no draw) */
	uint64_t fseq;              /* the last fresh hexadecimal number (0: none yet) */
	uint32_t narrow;            /* gen_file.narrow: a word or name is one of the unit's last
				       NRECENT by narrow / 65536 (0: never, and no draw) */
	uint32_t nrecent;           /* words drawn into recent (with narrow) */
	uint32_t recent[NRECENT];
};

/*
 * With probability p / 65536 (0: never, and no draw), give w the stream of
 * the file's recurring piece j of n (salt: the kind of piece), saving its
 * own in *save, and return 1; else 0.  text_recur_end() gives it back.
 */
int text_recur_begin(struct tw *w, unsigned p, unsigned n, uint64_t salt, struct trng *save);

static inline void text_recur_end(struct tw *w, int on, const struct trng *save)
{
	if (on)
		w->r = *save;
}

/*
 * A token new to the file, at out (WMAX bytes of room; returns its length,
 * 4 to 7): a hexadecimal number as code points and tables have them
 * (4 or 5 digits, climbing through the unit), or a decimal of 5 to 7
 * digits.  Its space is large enough that a file meets
 * few of its tokens twice: each one adds a distinct word, as the rare
 * identifiers, numbers and names of real files do.
 */
unsigned text_fresh(struct tw *w, uint8_t *out);

/*
 * With w->narrow: by narrow / 65536 one of the unit's last NRECENT words
 * instead of r (one draw), else r, kept among them.  r without narrow.
 */
static inline uint32_t text_narrow(struct tw *w, uint32_t r)
{
	uint64_t x;

	if (!w->narrow)
		return r;
	x = tnext(&w->r);
	if (w->nrecent && (x >> 48) < w->narrow)
		return w->recent[below(x << 16, MIN(w->nrecent, NRECENT))];
	w->recent[w->nrecent++ % NRECENT] = r;
	return r;
}

/* Whether the next word is fresh (one draw, none when w->fresh is 0). */
static inline int text_fresh_draw(struct tw *w)
{
	return w->fresh && (tnext(&w->r) >> 48) < w->fresh;
}

/*
 * A content word (identifiers, names): uniform over IDENT_LO..IDENT_HI, or
 * one of the file's pool of w->rc.kn such words (small indexes likelier).
 */
uint32_t text_name_word(struct tw *w);

static inline void put_rank(struct tw *w, uint32_t r, int cap)
{
	memcpy(w->p, w->tm->slot[r], WMAX);
	if (cap)
		w->p[0] -= 'a' - 'A';
	w->p += w->tm->len[r];
}

static inline void put_mem(struct tw *w, const char *s, size_t n)
{
	memcpy(w->p, s, n);
	w->p += n;
}

static inline void put_str(struct tw *w, const char *s)
{
	put_mem(w, s, strlen(s));
}

static inline void put_ch(struct tw *w, char c)
{
	*w->p++ = (uint8_t)c;
}

/* n copies of c. */
void text_put_chars(struct tw *w, char c, size_t n);

/* Decimal, at least `digits` digits (zero-padded, up to 20), two digits a division. */
void text_put_dec(struct tw *w, uint64_t v, unsigned digits);

/* A number as code and data have them: mostly small. */
void text_put_number(struct tw *w);

/*
 * Open a writer on buf for unit `unit` of the file of key `key`: its
 * random stream, line width, topic words and Heaps position.
 */
void text_tw_open(struct tw *w, const struct content_model *cm, uint64_t key, uint64_t unit,
		  uint8_t *buf);

#define T_WRAP	0x01	/* break lines at the document's width */
#define T_PARA	0x02	/* blank lines between paragraphs */
#define T_NL	0x04	/* end with a line break */
#define T_PLAIN	0x08	/* words only: no capitals, no punctuation */
#define T_CAPS	0x10	/* capitalize every word (titles) */
#define T_STOP	0x20	/* may end at a sentence past w->stop (top-level only) */

/*
 * Exactly n bytes of text: sentences of 3 to 24 words (mean 13.5) with
 * commas, paragraphs of 1 to 6 sentences, lines wrapped at the width; the
 * last sentence is shaped to end at the last byte.
 */
void text_put_text(struct tw *w, size_t n, unsigned fl);

/* A short plain phrase (names, titles, values) of lo..hi bytes. */
void text_put_phrase(struct tw *w, unsigned lo, unsigned hi, unsigned fl);

/*
 * Blocks (headings, lists, functions, ...) by block(w, end, ctx), one after
 * another while room bytes or more are left before end; a block that
 * leaves fewer than keep bytes is taken back.  Returns 0 when the writer
 * passed its stop (the unit ends there), else 1: the caller fills the
 * rest, end - w->p bytes.
 */
int text_blocks(struct tw *w, const uint8_t *end, size_t room, size_t keep,
		void (*block)(struct tw *w, const uint8_t *end, void *ctx), void *ctx);

/*
 * Comment lines filling exactly n bytes: indent, pre, a sentence, post,
 * newline, about 40 to 78 bytes each; blank lines when n is too short.
 */
void text_comment_lines(struct tw *w, size_t n, const char *indent, const char *pre,
			const char *post);

/* Civil date of a day count from 1970-01-01 (proleptic Gregorian). */
void text_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d);

extern const char *const text_month_abbr[];

/* A date YYYY-MM-DD between 2000 and 2025. */
void text_put_date(struct tw *w);

/* Record fields (CSV columns, JSON members, XML elements). */
enum ftype { F_ID, F_WORD, F_WORDS, F_INT, F_DEC, F_DATE, F_BOOL, F_TAGS, F_TEXT };

#define FIELDS_MAX 8

struct schema {
	unsigned n;
	uint32_t name[FIELDS_MAX];  /* ranks; field 0 is "id" */
	uint8_t type[FIELDS_MAX];   /* the last is F_TEXT */
	uint32_t rec, root;         /* record and root element names (XML) */
};

struct frame {
	size_t hlen, flen;
	unsigned variant;           /* format-specific */
	unsigned depth0;            /* source: depth of top-level items */
	const struct lang *lang;    /* source */
	uint32_t name[2];           /* file-level identifier */
	struct schema sc;
	uint8_t head[FRAME_MAX + SLACK];
	uint8_t foot[FRAME_MAX + SLACK];
};

struct tfmt {
	/* set hlen, flen (hlen + flen <= size) and their bytes; NULL: none */
	void (*frame)(const struct gen_file *g, const struct content_model *cm, struct frame *fr);
	/* write exactly len bytes of unit u at w->p (or stop early past w->stop) */
	void (*unit)(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len);
};

/*
 * Bytes [off, off + len) of file g in format f: the frame's bytes and the
 * units they touch.  Returns 0, -EINVAL (no text model in g->cm, or a
 * range past the size) or -EIO (a unit of the wrong length).
 */
int text_fill(const struct tfmt *f, const struct gen_file *g, uint64_t off, uint8_t *buf,
	      size_t len);

/* Frame helpers: write the header or footer with a writer of its own. */
void text_frame_open(struct tw *w, const struct content_model *cm, const struct gen_file *g,
		     uint8_t *buf, uint64_t salt);

/* The file's extension, "" for none. */
const char *text_file_ext(const struct gen_file *g);

/* The per-file schema of records (variant: the format's). */
void text_schema_init(struct tw *w, struct schema *sc, unsigned variant);

/* A collection's name: the word, with an s unless it ends in one. */
void text_put_plural(struct tw *w, uint32_t r);

/* The closing tag of an XML file's root element (the schema's), or of an SVG drawing. */
void text_put_xml_close(struct tw *w, const struct schema *sc, int svg);

/* n bytes of a file too small for its XML frame: <r/> and line breaks, or n blanks under 4. */
void text_put_xml_stub(struct tw *w, size_t n);

/* The name of field i of the schema. */
void text_put_field_name(struct tw *w, const struct schema *sc, unsigned i);

/* A value; quote: the quote character strings are wrapped in (0: none). */
void text_put_value(struct tw *w, unsigned type, uint64_t id, char quote);

/*
 * The length of the closing text field of a record: natural, or all that
 * is left when another record would not fit after this one.  0: the
 * record does not fit (roll it back).
 */
size_t text_len(struct tw *w, const uint8_t *end, size_t closing, size_t next_min);

/*
 * A unit of records: rec() writes record i of unit u before end, or
 * returns -ENOSPC when it does not fit; then it is rolled back and rest()
 * fills what is left.
 */
struct records {
	int (*rec)(const struct frame *fr, struct tw *w, uint64_t u, unsigned i, const uint8_t *end);
	void (*rest)(struct tw *w, size_t n);
};

/* Unit u of records, exactly len bytes. */
void text_records_unit(const struct records *rs, const struct frame *fr, struct tw *w, uint64_t u,
		       size_t len);

/* Fill what a unit of records has left: words, blanks, or whole lines. */
void text_rest_words(struct tw *w, size_t n);
void text_rest_blanks(struct tw *w, size_t n);
void text_rest_lines(struct tw *w, size_t n);

/*
 * The formats (prose.c, log.c, csv.c, json.c, xml.c, conf.c, html.c,
 * code.c), chosen by ops.c from the file's generator and extension.
 */
extern const struct tfmt text_fmt_prose;
extern const struct tfmt text_fmt_stream;
extern const struct tfmt text_fmt_md;
extern const struct tfmt text_fmt_log;
extern const struct tfmt text_fmt_csv;
extern const struct tfmt text_fmt_tsv;
extern const struct tfmt text_fmt_json;
extern const struct tfmt text_fmt_xml;
extern const struct tfmt text_fmt_ini;
extern const struct tfmt text_fmt_yaml;
extern const struct tfmt text_fmt_html;
extern const struct tfmt text_fmt_src;

#endif
