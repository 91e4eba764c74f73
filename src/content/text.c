/* text.c - text from the word model: prose, logs, CSV, Markdown, config, HTML, source, JSON, XML */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "content/gen.h"
#include "content/model.h"
#include "model/params.h"
#include "util/rng.h"

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

/*
 * Heaps' law.  A document at word position n (counted from the start of
 * the file; unit u starts at n = u UNIT_WORDS) has a vocabulary of the
 * V(n) = HEAPS_V0 + HEAPS_K n^HEAPS_BETA most popular words.  A rank is
 * drawn from the Zipf law over the whole vocabulary; one at or beyond V(n)
 * (a word the document has not reached yet) is redirected uniformly into
 * ranks [V(n) / 2, V(n)), so the document reuses its own rarer words
 * instead.  Ranks below V(n) / 2 keep their exact Zipf shares at every
 * position (truncating instead would inflate "the" at the start of every
 * document), and the distinct words of a document grow like K' N^0.6 (see
 * doc/model.md for the measured curve).
 */
#define HEAPS_V0	2000.0
#define HEAPS_K		15.0
#define HEAPS_BETA	0.6
#define UNIT_WORDS	640u

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

#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------- */
/* The samplers */

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
};

/* Words that are keywords somewhere: never an identifier alone. */
static const char *const keywords[] = {
	"if", "do", "in", "is", "or", "and", "not", "new", "for", "case", "long", "int",
	"char", "else", "return", "class", "def", "end", "let", "var", "const", "use",
	"sub", "my", "function", "import", "from", "as", "with", "try", "then", "fi",
	"done", "go", "type", "func", "map", "self", "this", "print", "switch", "static",
	"public", "private", "true", "false", "null", "none", "while", "break", "default",
	"auto", "double", "float", "short", "void", "struct", "union", "enum", "package",
	"range", "match", "loop", "move", "ref", "mut", "pub", "impl", "trait", "where",
	"yield", "global", "local", "echo", "each", "begin", "rescue", "unless", "until",
	"elif", "pass", "lambda", "del", "assert", "raise", "except", "finally", "goto",
	"volatile", "register", "extern", "signed", "unsigned", "sizeof", "typedef", "select",
	"defer", "chan", "interface", "object", "string", "final", "abstract", "throw",
	"throws", "catch", "super", "native", "delete", "typeof", "instanceof", "export",
	"of", "at", "be", "by", "on", "to", "so", "up", "no", "we", "us", "an", "it",
	"time", "coproc", "esac", "nonlocal", "async", "await", "extends", "implements",
	"protected", "debugger", "arguments", "eval", "path", "fs",
};

/* The alias table of weights (r + 1)^-s over ranks 0..n-1. */
static int build_alias(struct text_model *tm, double s)
{
	uint32_t n = tm->n, *small = malloc(n * sizeof(*small)), *large;
	double *q = malloc(n * sizeof(*q)), mass = 0;
	uint32_t ns = 0, nl = 0;

	large = malloc(n * sizeof(*large));
	if (!small || !large || !q) {
		free(small);
		free(large);
		free(q);
		return -ENOMEM;
	}
	for (uint32_t r = 0; r < n; r++)
		mass += pow((double)r + 1, -s);
	for (uint32_t r = 0; r < n; r++) {
		q[r] = pow((double)r + 1, -s) * n / mass;
		if (q[r] < 1)
			small[ns++] = r;
		else
			large[nl++] = r;
	}
	while (ns && nl) {
		uint32_t a = small[--ns], b = large[nl - 1];
		double keep = floor(q[a] * 65536.0 + 0.5);

		tm->alias[a] = (uint32_t)MIN(keep, 65535.0) | b << 16;
		q[b] -= 1 - q[a];
		if (q[b] < 1) {
			nl--;
			small[ns++] = b;
		}
	}
	/* what is left holds a whole column (up to rounding): it gives itself */
	while (nl) {
		uint32_t b = large[--nl];

		tm->alias[b] = 65535u | b << 16;
	}
	while (ns) {
		uint32_t a = small[--ns];

		tm->alias[a] = 65535u | a << 16;
	}
	free(small);
	free(large);
	free(q);
	return 0;
}

/* The source languages (below): compiled once, 0 or -ENOMEM, -EINVAL (a bad row). */
static int lang_init(void);

int content_text_init(struct content_model *cm)
{
	struct text_model *tm;
	double s = cm->zipf_exponent;
	uint32_t n = (uint32_t)cm->nwords;
	uint32_t count[WMAX + 2] = { 0 };
	int ret;

	if (cm->nwords < 1 || cm->nwords > CONTENT_WORDS_MAX || !(s > 0 && s <= 16))
		return -EINVAL;
	for (uint32_t r = 0; r < n; r++) {
		if (cm->word_len[r] < 1 || cm->word_len[r] > WMAX)
			return -EINVAL;
		count[cm->word_len[r]]++;
	}
	for (unsigned l = 1; l <= WMAX; l++)
		if (!count[l])
			return -EINVAL;
	ret = lang_init();
	if (ret)
		return ret;
	tm = calloc(1, sizeof(*tm));
	if (!tm)
		return -ENOMEM;
	tm->n = n;
	tm->mode = cm->text_mode;
	tm->len = cm->word_len;
	tm->alias = malloc((size_t)n * sizeof(*tm->alias));
	tm->slot = calloc(n, sizeof(*tm->slot));
	tm->by_len = malloc((size_t)n * sizeof(*tm->by_len));
	tm->keyword = calloc(n, 1);
	if (!tm->alias || !tm->slot || !tm->by_len || !tm->keyword || build_alias(tm, s)) {
		cm->text_priv = tm;
		content_text_release(cm);
		return -ENOMEM;
	}

	{
		uint8_t kwlen[NELEM(keywords)];

		for (size_t i = 0; i < NELEM(keywords); i++)
			kwlen[i] = (uint8_t)strlen(keywords[i]);
		for (uint32_t r = 0; r < n; r++) {
			memcpy(tm->slot[r], cm->word[r], cm->word_len[r]);
			for (size_t i = 0; i < NELEM(keywords); i++)
				if (kwlen[i] == cm->word_len[r] &&
				    keywords[i][0] == cm->word[r][0] &&
				    !memcmp(keywords[i], cm->word[r], kwlen[i]))
					tm->keyword[r] = 1;
		}
	}
	tm->lfirst[1] = 0;
	for (unsigned l = 1; l <= WMAX; l++)
		tm->lfirst[l + 1] = tm->lfirst[l] + count[l];
	memset(count, 0, sizeof(count));
	for (uint32_t r = 0; r < n; r++) {
		unsigned l = cm->word_len[r];

		tm->by_len[tm->lfirst[l] + count[l]++] = r;
	}

	/* Impressions' word-length law F(L) = 11.74 L^3 0.4^L over 1..WMAX */
	{
		double f[WMAX + 1], ftot = 0, c = 0;
		unsigned l = 1;

		for (unsigned i = 1; i <= WMAX; i++) {
			f[i] = 11.74 * i * i * i * pow(0.4, i);
			ftot += f[i];
		}
		for (unsigned i = 0; i < 1024; i++) {
			double q = (i + 0.5) / 1024;

			while (l < WMAX && c + f[l] / ftot <= q) {
				c += f[l] / ftot;
				l++;
			}
			tm->wl[i] = (uint8_t)l;
		}
	}
	cm->text_priv = tm;
	return 0;
}

void content_text_release(struct content_model *cm)
{
	struct text_model *tm = cm->text_priv;

	if (!tm)
		return;
	free(tm->alias);
	free(tm->slot);
	free(tm->by_len);
	free(tm->keyword);
	free(tm);
	cm->text_priv = NULL;
}

/* ------------------------------------------------------------------------- */
/* The writer: words, sentences and lines into a unit buffer */

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

struct tw {
	uint8_t *p;                 /* next byte */
	uint8_t *stop;              /* T_STOP text may end early once p is past it */
	const struct text_model *tm;
	struct trng r;
	uint64_t key;               /* the file's */
	uint64_t pos, pos_next;     /* word position (Heaps); when to widen the vocabulary */
	uint32_t vcur, vhalf;       /* V(pos) and V(pos) / 2 */
	uint32_t topic[NTOPIC];
	uint32_t rep;               /* text_mode repeat: the word */
	unsigned col, width;        /* column, and where lines wrap */
};

static void heaps_update(struct tw *w)
{
	const struct text_model *tm = w->tm;
	double v = HEAPS_V0 + HEAPS_K * pow((double)w->pos, HEAPS_BETA);
	uint32_t nv = v >= tm->n ? tm->n : (uint32_t)v;

	w->vcur = nv;
	w->vhalf = nv / 2;
	w->pos_next = nv == tm->n ? UINT64_MAX : w->pos + (w->pos >> 4) + 16;
}

/* A rank of the Zipf law from bits 16..63 of x. */
static inline uint32_t zipf_rank(const struct text_model *tm, uint64_t x)
{
	uint32_t c = (uint32_t)(((x >> 32) * tm->n) >> 32), e = tm->alias[c];

	return ((x >> 16) & 0xFFFF) < (e & 0xFFFF) ? c : e >> 16;
}

/* A word's rank by the text mode, from bits 16..63 of x (the caller may use bits 0..15). */
static inline uint32_t draw_word(struct tw *w, uint64_t x)
{
	const struct text_model *tm = w->tm;

	if (tm->mode == TEXT_WORDS) {
		uint32_t r = zipf_rank(tm, x);

		if (r >= w->vcur) {
			uint64_t span = w->vcur - w->vhalf;

			r = w->vhalf + (uint32_t)(((tnext(&w->r) >> 32) * span) >> 32);
		}
		if (r - TOPIC_AT < NTOPIC)
			r = w->topic[r - TOPIC_AT];
		if (++w->pos >= w->pos_next)
			heaps_update(w);
		return r;
	}
	if (tm->mode == TEXT_REPEAT)
		return w->rep;
	{
		unsigned l = tm->wl[(x >> 32) & 1023];
		uint32_t first = tm->lfirst[l], cnt = tm->lfirst[l + 1] - first;

		return tm->by_len[first + (uint32_t)(((x >> 42) * cnt) >> 22)];
	}
}

/* A popular word of exactly l letters (1 <= l <= WMAX). */
static uint32_t exact_word(struct tw *w, unsigned l)
{
	const struct text_model *tm = w->tm;
	uint32_t first = tm->lfirst[l], cnt = tm->lfirst[l + 1] - first;

	if (tm->mode == TEXT_REPEAT && tm->len[w->rep] == l)
		return w->rep;
	return tm->by_len[first + (uint32_t)below(tnext(&w->r), MIN(cnt, 64))];
}

/* A content word (identifiers, names): uniform over IDENT_LO..IDENT_HI. */
static uint32_t name_word(struct tw *w)
{
	uint32_t lo = MIN(IDENT_LO, w->tm->n - 1), hi = MIN(IDENT_HI, w->tm->n);

	return lo + (uint32_t)below(tnext(&w->r), hi - lo);
}

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

static void put_chars(struct tw *w, char c, size_t n)
{
	memset(w->p, c, n);
	w->p += n;
}

/* Decimal, at least `digits` digits (zero-padded, up to 20), two digits a division. */
static void put_dec(struct tw *w, uint64_t v, unsigned digits)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char t[40] = { 0 };
	char *end = t + 20, *q = end;
	size_t n;

	while (v >= 100) {
		q -= 2;
		memcpy(q, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, pairs + 2 * v, 2);
	} else {
		*--q = (char)('0' + v);
	}
	while ((size_t)(end - q) < digits && q > t)
		*--q = '0';
	n = (size_t)(end - q);
	memcpy(w->p, q, 16);	/* t has 16 bytes past end: one copy for most numbers */
	if (n > 16)
		memcpy(w->p + 16, q + 16, n - 16);
	w->p += n;
}

/* A number as code and data have them: mostly small. */
static void put_number(struct tw *w)
{
	uint64_t x = tnext(&w->r);
	unsigned k = (unsigned)(x & 15);

	put_dec(w, below(x, k < 9 ? 17 : k < 14 ? 1000 : 65536), 1);
}

static void tw_open(struct tw *w, const struct content_model *cm, uint64_t key, uint64_t unit,
		    uint8_t *buf)
{
	const struct text_model *tm = cm->text_priv;
	uint64_t d = rng_mix64(key ^ SALT_DOC);
	uint32_t span = tm->n > TOPIC_LO ? MIN(tm->n, TOPIC_HI) - TOPIC_LO : 0;

	w->tm = tm;
	w->p = buf;
	w->stop = NULL;
	w->key = key;
	w->r.s = rng_mix64(key ^ rng_mix64(unit ^ SALT_UNIT));
	w->col = 0;
	/* a document's line width: 64..80, or none (paragraphs on one line) */
	w->width = (d & 7) == 0 ? 1u << 30 : 64 + (unsigned)((d >> 8) % 17);
	for (unsigned i = 0; i < NTOPIC; i++) {
		uint64_t h = rng_mix64(key ^ (SALT_TOPIC + i));

		w->topic[i] = span ? TOPIC_LO + (uint32_t)below(h, span) : TOPIC_AT + i;
	}
	w->rep = zipf_rank(tm, rng_mix64(key ^ SALT_REP));
	w->pos = unit >= UINT64_MAX / UNIT_WORDS ? 0 : unit * UNIT_WORDS;
	heaps_update(w);
}

/* ------------------------------------------------------------------------- */
/* Text of an exact length */

#define T_WRAP	0x01	/* break lines at the document's width */
#define T_PARA	0x02	/* blank lines between paragraphs */
#define T_NL	0x04	/* end with a line break */
#define T_PLAIN	0x08	/* words only: no capitals, no punctuation */
#define T_CAPS	0x10	/* capitalize every word (titles) */
#define T_STOP	0x20	/* may end at a sentence past w->stop (top-level only) */

static inline unsigned text_tail(unsigned fl)
{
	return (fl & T_PLAIN ? 0 : 1) + (fl & T_NL ? 1 : 0);
}

static inline void put_sep(struct tw *w, unsigned l, unsigned fl)
{
	if ((fl & T_WRAP) && w->col + 1 + l > w->width) {
		*w->p++ = '\n';
		w->col = 0;
	} else {
		*w->p++ = ' ';
		w->col++;
	}
}

/* Blank filler for a remainder too short for a word. */
static void put_pad(struct tw *w, size_t n, unsigned fl)
{
	put_chars(w, fl & T_NL ? '\n' : ' ', n);
	if (fl & T_NL)
		w->col = 0;
}

/*
 * Close the text with exactly `room` bytes: model words while there is
 * room, then a word of the exact remaining length, then the tail.
 */
static void text_finish(struct tw *w, size_t room, unsigned fl, int sep, int cap)
{
	const unsigned tail = text_tail(fl);

	for (;;) {
		size_t avail;
		uint32_t r;
		unsigned l;
		int last = 0;

		if (room < (size_t)sep + 1 + tail) {
			put_pad(w, room, fl);
			return;
		}
		avail = room - (size_t)sep - tail;
		if (avail <= WFIN) {
			l = (unsigned)avail;
			r = exact_word(w, l);
			last = 1;
		} else {
			r = draw_word(w, tnext(&w->r));
			l = w->tm->len[r];
			if (l + 2 > avail) {
				l = (unsigned)avail - 2;
				r = exact_word(w, l);
			}
		}
		if (sep)
			put_sep(w, l + (last ? tail : 0), fl);
		put_rank(w, r, cap || (fl & T_CAPS));
		w->col += l;
		room -= (size_t)sep + l;
		sep = 1;
		cap = 0;
		if (last) {
			if (!(fl & T_PLAIN))
				put_ch(w, '.');
			if (fl & T_NL) {
				put_ch(w, '\n');
				w->col = 0;
			}
			return;
		}
	}
}

/*
 * Exactly n bytes of text: sentences of 3 to 24 words (mean 13.5) with
 * commas, paragraphs of 1 to 6 sentences, lines wrapped at the width; the
 * last sentence is shaped to end at the last byte.
 */
static void put_text(struct tw *w, size_t n, unsigned fl)
{
	const struct text_model *tm = w->tm;
	uint8_t *end = w->p + n;
	const unsigned tail = text_tail(fl);
	const size_t reserve = WFIN + 2 + tail;
	const int plain = (fl & T_PLAIN) != 0;
	unsigned left = 0, sents = 0;
	int sep = 0, cap = 0;

	for (;;) {
		size_t room = (size_t)(end - w->p);
		unsigned l, punct = 0, para = 0;
		uint64_t x;
		uint32_t r;

		if (!left) {
			if ((fl & T_STOP) && w->p >= w->stop)
				return;
			if (room < reserve) {
				text_finish(w, room, fl, sep, !plain);
				return;
			}
			x = tnext(&w->r);
			left = 3 + (unsigned)(x & 7) + (unsigned)((x >> 3) & 7) +
			       (unsigned)((x >> 6) & 7);
			if (!sents)
				sents = 1 + (unsigned)((x >> 9) % 6);
			cap = !plain;
		}
		x = tnext(&w->r);
		r = draw_word(w, x);
		l = tm->len[r];
		if (left == 1) {
			punct = !plain;
			if ((fl & T_PARA) && --sents == 0)
				para = 2;
		} else if (!plain && (x & 15) == 0) {
			punct = 1;
		}
		if (room < sep + l + punct + para + reserve) {
			text_finish(w, room, fl, sep, cap);
			return;
		}
		if (sep)
			put_sep(w, l + punct, fl);
		put_rank(w, r, cap || (fl & T_CAPS));
		w->col += l + punct;
		if (punct) {
			unsigned e = (unsigned)(x >> 3) & 31;

			*w->p++ = left > 1 ? ',' : e == 0 ? '?' : e == 1 ? '!' : '.';
		}
		sep = 1;
		if (para) {
			*w->p++ = '\n';
			*w->p++ = '\n';
			w->col = 0;
			sep = 0;
		}
		cap = 0;
		left--;
	}
}

/* A short plain phrase (names, titles, values) of lo..hi bytes. */
static void put_phrase(struct tw *w, unsigned lo, unsigned hi, unsigned fl)
{
	put_text(w, lo + below(tnext(&w->r), hi - lo + 1), T_PLAIN | fl);
}

/*
 * Comment lines filling exactly n bytes: indent, pre, a sentence, post,
 * newline, about 40 to 78 bytes each; blank lines when n is too short.
 */
static void comment_lines(struct tw *w, size_t n, const char *indent, const char *pre,
			  const char *post)
{
	size_t fixed = strlen(indent) + strlen(pre) + strlen(post) + 1;

	while (n) {
		size_t len;

		if (n < fixed + 2) {
			put_chars(w, '\n', n);
			return;
		}
		len = 40 + below(tnext(&w->r), 39);
		if (len < fixed + 2)
			len = fixed + 2;
		if (n < len + fixed + 12)
			len = n;
		put_str(w, indent);
		put_str(w, pre);
		put_text(w, len - fixed, 0);
		put_str(w, post);
		put_ch(w, '\n');
		n -= len;
	}
}

/* ------------------------------------------------------------------------- */
/* Dates */

/* Civil date of a day count from 1970-01-01 (proleptic Gregorian). */
static void civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
	int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static const char *const month_abbr[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

/* A date YYYY-MM-DD between 2000 and 2025. */
static void put_date(struct tw *w)
{
	int64_t y;
	unsigned m, d;

	civil(10957 + (int64_t)below(tnext(&w->r), 9497), &y, &m, &d);
	put_dec(w, (uint64_t)y, 4);
	put_ch(w, '-');
	put_dec(w, m, 2);
	put_ch(w, '-');
	put_dec(w, d, 2);
}

/* ------------------------------------------------------------------------- */
/* Formats: a frame (header, footer) and units */

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

static int text_fill(const struct tfmt *f, const struct gen_file *g, uint64_t off, uint8_t *buf,
		     size_t len)
{
	const struct content_model *cm = g->cm;
	uint8_t tmp[UNIT + SLACK];
	struct frame *fr;
	uint64_t b0, b1;
	int ret = 0;

	if (!cm || !cm->text_priv)
		return -EINVAL;
	if (off > g->size || len > g->size - off)
		return -EINVAL;
	fr = malloc(sizeof(*fr));
	if (!fr)
		return -ENOMEM;
	fr->hlen = fr->flen = 0;
	fr->variant = 0;
	fr->depth0 = 0;
	fr->lang = NULL;
	if (f->frame)
		f->frame(g, cm, fr);
	b0 = fr->hlen;
	b1 = g->size - fr->flen;
	while (len) {
		size_t n;

		if (off < b0) {
			n = (size_t)MIN(b0 - off, (uint64_t)len);
			memcpy(buf, fr->head + off, n);
		} else if (off >= b1) {
			n = len;
			memcpy(buf, fr->foot + (off - b1), n);
		} else {
			uint64_t u = (off - b0) / UNIT, us = b0 + u * UNIT;
			size_t ul = (size_t)MIN((uint64_t)UNIT, b1 - us), in = (size_t)(off - us);
			struct tw w;

			n = MIN(ul - in, len);
			tw_open(&w, cm, g->key, u, tmp);
			w.stop = tmp + in + n;
			f->unit(g, fr, &w, u, ul);
			if (in + n == ul && w.p != tmp + ul) {
				ret = -EIO;	/* a unit of the wrong length: a bug */
				break;
			}
			memcpy(buf, tmp + in, n);
		}
		buf += n;
		off += n;
		len -= n;
	}
	free(fr);
	return ret;
}

/* Frame helpers: write the header or footer with a writer of its own. */
static void frame_open(struct tw *w, const struct content_model *cm, const struct gen_file *g,
		       uint8_t *buf, uint64_t salt)
{
	tw_open(w, cm, g->key, UINT64_MAX - salt, buf);
	w->r.s = rng_mix64(g->key ^ SALT_FRAME ^ salt);
}

static const char *file_ext(const struct gen_file *g)
{
	return g->ext ? g->ext : "";
}

/* ------------------------------------------------------------------------- */
/* Prose (txt and the default) */

static void prose_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		       size_t len)
{
	(void)g;
	(void)fr;
	(void)u;
	put_text(w, len, T_WRAP | T_PARA | T_NL | T_STOP);
}

static const struct tfmt fmt_prose = { .frame = NULL, .unit = prose_unit };

/* ------------------------------------------------------------------------- */
/* Markdown */

static void md_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	struct tw w;

	frame_open(&w, cm, g, fr->head, 1);
	put_str(&w, "# ");
	put_phrase(&w, 10, 48, T_CAPS);
	put_str(&w, "\n\n");
	fr->hlen = (size_t)(w.p - fr->head);
	if (fr->hlen > g->size)
		fr->hlen = 0;
}

static void md_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		    size_t len)
{
	uint8_t *end = w->p + len;

	(void)g;
	(void)fr;
	(void)u;
	for (;;) {
		uint8_t *mark = w->p;
		uint64_t x;

		if (w->p >= w->stop)
			return;
		if (end - w->p < 1000)
			break;	/* the last paragraphs take the rest: nothing to roll back */
		x = tnext(&w->r);
		switch (x % 20) {
		case 0:
		case 1:
			put_str(w, "## ");
			put_phrase(w, 8, 40, T_CAPS);
			put_str(w, "\n\n");
			break;
		case 2:
		case 3:
		case 4:
			for (unsigned i = 0, k = 2 + (unsigned)((x >> 8) % 5); i < k; i++) {
				put_str(w, "- ");
				put_text(w, 16 + below(tnext(&w->r), 80), T_NL);
			}
			put_ch(w, '\n');
			break;
		case 5:
			put_str(w, "```\n");
			for (unsigned i = 0, k = 2 + (unsigned)((x >> 8) % 6); i < k; i++) {
				put_rank(w, name_word(w), 0);
				put_ch(w, '_');
				put_rank(w, name_word(w), 0);
				put_ch(w, '(');
				put_number(w);
				put_str(w, ");\n");
			}
			put_str(w, "```\n\n");
			break;
		case 6:
			put_str(w, "> ");
			put_text(w, 40 + below(tnext(&w->r), 160), T_NL);
			put_ch(w, '\n');
			break;
		default:
			w->col = 0;
			put_text(w, 120 + below(tnext(&w->r), 700), T_WRAP | T_NL);
			put_ch(w, '\n');
			break;
		}
		if (end - w->p < 200) {
			w->p = mark;
			break;
		}
	}
	w->col = 0;
	put_text(w, (size_t)(end - w->p), T_WRAP | T_PARA | T_NL);
}

static const struct tfmt fmt_md = { .frame = md_frame, .unit = md_unit };

/* ------------------------------------------------------------------------- */
/* Logs: timestamped lines, in time order across units */

#define LOG_UNIT_MS	600000u			/* a unit spans ten minutes */
#define LOG_STEP_MS	(LOG_UNIT_MS / 128)	/* lines of >= 32 bytes: < 128 a unit */

static const char *const log_levels[] = {
	"INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO", "INFO",
	"INFO", "INFO", "INFO", "INFO", "DEBUG", "DEBUG", "DEBUG", "WARN", "WARN", "ERROR",
};

static void log_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	uint8_t *end = w->p + len;
	uint64_t d = rng_mix64(g->key ^ SALT_DOC ^ 0x1065), t0;
	unsigned style = (unsigned)(d % 3), nproc = 2 + (unsigned)((d >> 8) % 4);
	uint32_t host, proc[6], pid[6];
	struct trng fr_r = { rng_mix64(g->key ^ SALT_FRAME ^ 0x1065) };
	uint32_t names = MIN(IDENT_HI, w->tm->n) - IDENT_LO;

	(void)fr;
	/* file-level: start time (2017..2025), host and programs */
	t0 = (UINT64_C(1483228800) + below(tnext(&fr_r), 252460800)) * 1000;
	host = IDENT_LO + (uint32_t)below(tnext(&fr_r), names);
	for (unsigned i = 0; i < nproc; i++) {
		proc[i] = IDENT_LO + (uint32_t)below(tnext(&fr_r), names);
		pid[i] = 100 + (uint32_t)below(tnext(&fr_r), 32000);
	}
	for (unsigned i = 0;; i++) {
		uint8_t *mark = w->p;
		size_t room = (size_t)(end - w->p), m;
		uint64_t x = tnext(&w->r);
		uint64_t ms = t0 + u * LOG_UNIT_MS + (uint64_t)i * LOG_STEP_MS +
			      below(x, LOG_STEP_MS / 2);
		uint64_t sec = ms / 1000;
		int64_t y;
		unsigned mo, da, k = (unsigned)((x >> 40) % nproc);

		if (w->p >= w->stop)
			return;
		civil((int64_t)(sec / 86400), &y, &mo, &da);
		if (style == 0) {
			/* syslog */
			put_str(w, month_abbr[mo - 1]);
			put_ch(w, ' ');
			if (da < 10)
				put_ch(w, ' ');
			put_dec(w, da, 1);
		} else {
			put_dec(w, (uint64_t)y, 4);
			put_ch(w, '-');
			put_dec(w, mo, 2);
			put_ch(w, '-');
			put_dec(w, da, 2);
		}
		put_ch(w, style == 2 ? 'T' : ' ');
		put_dec(w, sec / 3600 % 24, 2);
		put_ch(w, ':');
		put_dec(w, sec / 60 % 60, 2);
		put_ch(w, ':');
		put_dec(w, sec % 60, 2);
		if (style == 0) {
			put_ch(w, ' ');
			put_rank(w, host, 0);
			put_ch(w, ' ');
			put_rank(w, proc[k], 0);
			put_ch(w, 'd');
			put_ch(w, '[');
			put_dec(w, pid[k], 1);
			put_str(w, "]: ");
		} else {
			const char *lv = log_levels[(x >> 48) % NELEM(log_levels)];

			put_ch(w, style == 1 ? ',' : '.');
			put_dec(w, ms % 1000, 3);
			if (style == 2)
				put_ch(w, 'Z');
			put_ch(w, ' ');
			put_str(w, lv);
			put_chars(w, ' ', 6 - strlen(lv));
			put_ch(w, '[');
			put_rank(w, proc[k], 0);
			put_ch(w, '.');
			put_rank(w, name_word(w), 0);
			put_str(w, "] ");
		}
		if ((size_t)(w->p - mark) + 3 > room) {
			/* a unit too short for a line: words */
			w->p = mark;
			w->col = 0;
			put_text(w, room, T_PLAIN | T_NL);
			return;
		}
		m = 16 + below(x << 16, 90);
		if (room < (size_t)(w->p - mark) + m + 1 + 96)
			m = room - (size_t)(w->p - mark) - 1;
		put_text(w, m, 0);
		put_ch(w, '\n');
		if (w->p == end)
			return;
	}
}

static const struct tfmt fmt_log = { .frame = NULL, .unit = log_unit };

/* ------------------------------------------------------------------------- */
/* Records: CSV, JSON and XML share a per-file schema */

static int reserved_name(const char *s, size_t n)
{
	return n >= 3 && !strncasecmp(s, "xml", 3);
}

static void schema_init(struct tw *w, struct schema *sc, unsigned variant)
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
			r = name_word(w);
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
		sc->rec = name_word(w);
	while (reserved_name((const char *)tm->slot[sc->rec], tm->len[sc->rec]));
	do
		sc->root = name_word(w);
	while (reserved_name((const char *)tm->slot[sc->root], tm->len[sc->root]) ||
	       sc->root == sc->rec);
}

/* A collection's name: the word, with an s unless it ends in one. */
static void put_plural(struct tw *w, uint32_t r)
{
	put_rank(w, r, 0);
	if (w->p[-1] != 's')
		put_ch(w, 's');
}

static void put_field_name(struct tw *w, const struct schema *sc, unsigned i)
{
	if (i == 0)
		put_str(w, "id");
	else
		put_rank(w, sc->name[i], 0);
}

/* A value; quote: the quote character strings are wrapped in (0: none). */
static void put_value(struct tw *w, unsigned type, uint64_t id, char quote)
{
	uint64_t x = tnext(&w->r);

	switch (type) {
	case F_ID:
		put_dec(w, id, 1);
		break;
	case F_INT:
		put_dec(w, below(x, (x & 1) ? 100 : 100000), 1);
		break;
	case F_DEC:
		put_dec(w, below(x, 10000), 1);
		put_ch(w, '.');
		put_dec(w, (x >> 8) % 100, 2);
		break;
	case F_BOOL:
		put_str(w, (x >> 20) & 1 ? "true" : "false");
		break;
	case F_DATE:
		if (quote)
			put_ch(w, quote);
		put_date(w);
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
			put_rank(w, name_word(w), 0);
			put_ch(w, '"');
		}
		put_ch(w, ']');
		break;
	default:
		if (quote)
			put_ch(w, quote);
		if (type == F_WORD)
			put_rank(w, name_word(w), 0);
		else
			put_phrase(w, 4, 30, 0);
		if (quote)
			put_ch(w, quote);
		break;
	}
}

/*
 * The length of the closing text field of a record: natural, or all that
 * is left when another record would not fit after this one.  0: the
 * record does not fit (roll it back).
 */
static size_t text_len(struct tw *w, const uint8_t *end, size_t closing, size_t next_min)
{
	size_t room = w->p < end ? (size_t)(end - w->p) : 0, t = 20 + below(tnext(&w->r), 200);

	if (room < closing + 2)
		return 0;
	if (room < closing + t + next_min)
		t = room - closing;
	return t;
}

/*
 * A unit of records: rec() writes record i of unit u before end, or
 * returns -ENOSPC when it does not fit; then it is rolled back and rest()
 * fills what is left.
 */
struct records {
	int (*rec)(const struct frame *fr, struct tw *w, uint64_t u, unsigned i, const uint8_t *end);
	void (*rest)(struct tw *w, size_t n);
};

static void records_unit(const struct records *rs, const struct frame *fr, struct tw *w, uint64_t u,
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

static void rest_words(struct tw *w, size_t n)
{
	w->col = 0;
	put_text(w, n, T_PLAIN | T_NL);
}

static void rest_blanks(struct tw *w, size_t n)
{
	put_chars(w, ' ', n);
}

static void rest_lines(struct tw *w, size_t n)
{
	put_chars(w, '\n', n);
}

/* CSV and TSV */

static void csv_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	struct tw w;
	char sep = fr->variant ? '\t' : ',';

	frame_open(&w, cm, g, fr->head, 2);
	schema_init(&w, &fr->sc, 0);
	for (unsigned i = 0; i < fr->sc.n; i++) {
		if (i)
			put_ch(&w, sep);
		put_field_name(&w, &fr->sc, i);
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

		put_value(w, type, u * 1000 + i + 1, sep == ',' && type == F_WORDS ? '"' : 0);
		put_ch(w, sep);
	}
	t = text_len(w, end, sep == ',' ? 3 : 1, 300);
	if (!t)
		return -ENOSPC;
	if (sep == ',')
		put_ch(w, '"');
	put_text(w, t, 0);
	if (sep == ',')
		put_ch(w, '"');
	put_ch(w, '\n');
	return 0;
}

static const struct records csv_records = { .rec = csv_rec, .rest = rest_words };

static void csv_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	(void)g;
	records_unit(&csv_records, fr, w, u, len);
}

static void tsv_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	fr->variant = 1;
	csv_frame(g, cm, fr);
}

static const struct tfmt fmt_csv = { .frame = csv_frame, .unit = csv_unit };
static const struct tfmt fmt_tsv = { .frame = tsv_frame, .unit = csv_unit };

/* JSON: an object holding a description and an array of records */

static void json_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	struct tw w;

	frame_open(&w, cm, g, fr->head, 3);
	schema_init(&w, &fr->sc, 1);
	put_str(&w, "{\n  \"name\": \"");
	put_rank(&w, fr->sc.root, 0);
	put_ch(&w, '-');
	put_rank(&w, name_word(&w), 0);
	put_str(&w, "\",\n  \"version\": \"");
	put_dec(&w, below(tnext(&w.r), 5), 1);
	put_ch(&w, '.');
	put_dec(&w, below(tnext(&w.r), 20), 1);
	put_ch(&w, '.');
	put_dec(&w, below(tnext(&w.r), 10), 1);
	put_str(&w, "\",\n  \"description\": \"");
	put_text(&w, 30 + below(tnext(&w.r), 90), 0);
	put_str(&w, "\",\n  \"");
	put_plural(&w, fr->sc.rec);
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
		put_text(&w, (size_t)g->size - 13, T_PLAIN);
		put_str(&w, "\"}\n");
	} else if (g->size >= 3) {
		put_str(&w, "{}");
		put_chars(&w, ' ', (size_t)g->size - 3);
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
		put_field_name(w, sc, f);
		put_str(w, "\": ");
		put_value(w, sc->type[f], u * 1000 + i + 1, '"');
		put_ch(w, ',');
	}
	put_str(w, "\n      \"");
	put_field_name(w, sc, sc->n - 1);
	put_str(w, "\": \"");
	t = text_len(w, end, 7, 400);
	if (!t)
		return -ENOSPC;
	put_text(w, t, 0);
	put_str(w, "\"\n    }");
	return 0;
}

static const struct records json_records = { .rec = json_rec, .rest = rest_blanks };

static void json_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		      size_t len)
{
	(void)g;
	records_unit(&json_records, fr, w, u, len);
}

static const struct tfmt fmt_json = { .frame = json_frame, .unit = json_unit };

/* XML: a root element holding records; SVG: a drawing of groups */

static void xml_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	static const char decl[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
	int svg = !strcasecmp(file_ext(g), "svg");
	struct tw w;
	uint8_t *f;

	frame_open(&w, cm, g, fr->head, 4);
	schema_init(&w, &fr->sc, 0);
	put_str(&w, decl);
	if (svg) {
		unsigned wd = 200 + (unsigned)below(tnext(&w.r), 1800);
		unsigned ht = 200 + (unsigned)below(tnext(&w.r), 1800);

		put_str(&w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"");
		put_dec(&w, wd, 1);
		put_str(&w, "\" height=\"");
		put_dec(&w, ht, 1);
		put_str(&w, "\" viewBox=\"0 0 ");
		put_dec(&w, wd, 1);
		put_ch(&w, ' ');
		put_dec(&w, ht, 1);
		put_str(&w, "\">\n<title>");
		put_phrase(&w, 8, 40, T_CAPS);
		put_str(&w, "</title>\n");
	} else {
		put_ch(&w, '<');
		put_plural(&w, fr->sc.root);
		put_str(&w, " version=\"");
		put_dec(&w, 1 + below(tnext(&w.r), 3), 1);
		put_str(&w, ".0\">\n");
	}
	fr->hlen = (size_t)(w.p - fr->head);
	w.p = f = fr->foot;
	if (svg) {
		put_str(&w, "</svg>\n");
	} else {
		put_str(&w, "</");
		put_plural(&w, fr->sc.root);
		put_str(&w, ">\n");
	}
	fr->flen = (size_t)(w.p - f);
	fr->variant = (unsigned)svg;
	if (fr->hlen + fr->flen <= g->size)
		return;
	/* small files: <root>words</root>, <r/> padded with blanks, or blanks */
	w.p = fr->head;
	fr->variant = 2;
	fr->flen = 0;
	if (g->size >= 2u * w.tm->len[fr->sc.root] + 7) {
		size_t l = w.tm->len[fr->sc.root];

		put_ch(&w, '<');
		put_rank(&w, fr->sc.root, 0);
		put_ch(&w, '>');
		put_text(&w, (size_t)g->size - 2 * l - 6, T_PLAIN);
		put_str(&w, "</");
		put_rank(&w, fr->sc.root, 0);
		put_str(&w, ">\n");
	} else if (g->size >= 4) {
		put_str(&w, "<r/>");
		put_chars(&w, '\n', (size_t)g->size - 4);
	} else {
		put_chars(&w, ' ', (size_t)g->size);
	}
	fr->hlen = (size_t)g->size;
}

/* An attribute: name="v" after a blank. */
static inline void put_attr(struct tw *w, const char *name, uint64_t v)
{
	put_ch(w, ' ');
	put_str(w, name);
	put_str(w, "=\"");
	put_dec(w, v, 1);
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
	put_dec(w, id, 1);
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
	put_phrase(w, 4, 30, 0);
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
		put_chars(w, '\n', n);
		return;
	}
	put_str(w, "<desc>");
	put_text(w, n - 14, 0);
	put_str(w, "</desc>\n");
}

static int xml_rec(const struct frame *fr, struct tw *w, uint64_t u, unsigned i, const uint8_t *end)
{
	const struct schema *sc = &fr->sc;
	size_t t, closing;

	put_str(w, "  <");
	put_rank(w, sc->rec, 0);
	put_str(w, " id=\"");
	put_dec(w, u * 1000 + i + 1, 1);
	put_str(w, "\">\n");
	for (unsigned f = 1; f + 1 < sc->n; f++) {
		put_str(w, "    <");
		put_field_name(w, sc, f);
		put_ch(w, '>');
		put_value(w, sc->type[f] == F_TAGS ? F_WORDS : sc->type[f], 0, 0);
		put_str(w, "</");
		put_field_name(w, sc, f);
		put_str(w, ">\n");
	}
	put_str(w, "    <");
	put_field_name(w, sc, sc->n - 1);
	put_ch(w, '>');
	closing = 2 + w->tm->len[sc->name[sc->n - 1]] + 2 + 4 + w->tm->len[sc->rec] + 2;
	t = text_len(w, end, closing, 400);
	if (!t)
		return -ENOSPC;
	put_text(w, t, 0);
	put_str(w, "</");
	put_field_name(w, sc, sc->n - 1);
	put_str(w, ">\n  </");
	put_rank(w, sc->rec, 0);
	put_str(w, ">\n");
	return 0;
}

static const struct records xml_records = { .rec = xml_rec, .rest = rest_lines };
static const struct records svg_records = { .rec = svg_rec, .rest = svg_rest };

static void xml_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	(void)g;
	records_unit(fr->variant == 1 ? &svg_records : &xml_records, fr, w, u, len);
}

static const struct tfmt fmt_xml = { .frame = xml_frame, .unit = xml_unit };

/* ------------------------------------------------------------------------- */
/* Configuration files: ini and YAML */

static void put_conf_value(struct tw *w)
{
	uint64_t x = tnext(&w->r);

	switch (x % 6) {
	case 0:
		put_number(w);
		break;
	case 1:
		put_str(w, (x >> 8) & 1 ? "true" : "false");
		break;
	case 2:
		put_str(w, "/var/lib/");
		put_rank(w, name_word(w), 0);
		put_ch(w, '/');
		put_rank(w, name_word(w), 0);
		put_str(w, (x >> 8) & 1 ? ".conf" : ".db");
		break;
	default:
		put_phrase(w, 3, 24, 0);
		break;
	}
}

static void conf_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		      size_t len)
{
	uint8_t *end = w->p + len;
	int yaml = fr->variant == 1;

	(void)g;
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
			put_text(w, 20 + below(x, 60), T_NL);
		}
		if (yaml) {
			put_rank(w, name_word(w), 0);
			put_str(w, ":\n");
		} else {
			put_ch(w, '[');
			put_rank(w, name_word(w), 0);
			put_str(w, "]\n");
		}
		for (unsigned i = 0, k = 2 + (unsigned)((x >> 8) % 7); i < k; i++) {
			put_str(w, yaml ? "  " : "");
			put_rank(w, name_word(w), 0);
			put_ch(w, '_');
			put_rank(w, name_word(w), 0);
			if (yaml && ((x >> (16 + i)) & 7) == 0) {
				put_str(w, ":\n");
				unsigned m = 1 + (unsigned)((x >> 40) % 4);

				for (unsigned j = 0; j < m; j++) {
					put_str(w, "    - ");
					put_rank(w, name_word(w), 0);
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
	comment_lines(w, (size_t)(end - w->p), "", "# ", "");
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

static const struct tfmt fmt_ini = { .frame = NULL, .unit = conf_unit };
static const struct tfmt fmt_yaml = { .frame = yaml_frame, .unit = conf_unit };

/* ------------------------------------------------------------------------- */
/* HTML */

static const char html_foot[] = "</body>\n</html>\n";

static void html_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	static const char mini_open[] = "<!DOCTYPE html>\n<html>\n<head>\n<title>";
	static const char mini_close[] = "</title>\n</head>\n<body>\n";
	size_t flen = sizeof(html_foot) - 1, tl;
	uint8_t title[128];
	struct tw w;

	frame_open(&w, cm, g, title, 5);
	put_phrase(&w, 10, 60, T_CAPS);
	tl = (size_t)(w.p - title);
	w.p = fr->head;
	put_str(&w, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		"<meta charset=\"utf-8\" />\n<title>");
	put_mem(&w, (const char *)title, tl);
	put_str(&w, "</title>\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\" />\n"
		"<link rel=\"stylesheet\" href=\"/css/");
	put_rank(&w, name_word(&w), 0);
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
			put_text(&w, room, T_PLAIN | T_CAPS);
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
		put_rank(w, name_word(w), 0);
		put_str(w, (x & 4) ? ".com/" : ".org/");
		put_rank(w, name_word(w), 0);
	} else if ((x & 7) == 1) {
		put_ch(w, '#');
		put_rank(w, name_word(w), 0);
	} else {
		put_ch(w, '/');
		put_rank(w, name_word(w), 0);
		put_ch(w, '/');
		put_rank(w, name_word(w), 0);
		put_ch(w, '-');
		put_rank(w, name_word(w), 0);
		put_str(w, ".html");
	}
}

static void html_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		      size_t len)
{
	uint8_t *end = w->p + len;

	(void)g;
	(void)u;
	if (fr->variant == 2) {
		/* a tiny file: <p>words</p> */
		if (len >= 10) {
			put_str(w, "<p>");
			put_text(w, len - 8, T_PLAIN);
			put_str(w, "</p>\n");
		} else {
			put_text(w, len, T_PLAIN | T_NL);
		}
		return;
	}
	for (;;) {
		uint8_t *mark = w->p;
		uint64_t x;

		if (w->p >= w->stop)
			return;
		if (end - w->p < 1200)
			break;	/* the last paragraph takes the rest: nothing to roll back */
		x = tnext(&w->r);
		w->col = 0;
		switch (x % 20) {
		case 0:
		case 1:
			put_str(w, "<h2>");
			put_phrase(w, 8, 40, T_CAPS);
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
				put_phrase(w, 4, 30, 0);
				put_str(w, "</a></li>\n");
			}
			put_str(w, "</ul>\n");
			break;
		default:
			put_str(w, "<p>");
			put_text(w, 60 + below(tnext(&w->r), 400), T_WRAP);
			if ((x >> 8) & 1) {
				put_str(w, "\n<a href=\"");
				put_url(w);
				put_str(w, "\">");
				put_phrase(w, 4, 30, 0);
				put_str(w, "</a>");
				if ((x >> 9) & 1) {
					put_str(w, "\n<em>");
					put_phrase(w, 4, 20, 0);
					put_str(w, "</em>");
				}
				w->col = 0;
				put_ch(w, '\n');
				put_text(w, 20 + below(tnext(&w->r), 300), T_WRAP);
			}
			put_str(w, "</p>\n");
			break;
		}
		if (end - w->p < 200) {
			w->p = mark;
			break;
		}
	}
	if (end - w->p >= 12) {
		w->col = 0;
		put_str(w, "<p>");
		put_text(w, (size_t)(end - w->p) - 5, T_WRAP);
		put_str(w, "</p>\n");
	} else {
		put_chars(w, '\n', (size_t)(end - w->p));
	}
}

static const struct tfmt fmt_html = { .frame = html_frame, .unit = html_unit };

/* ------------------------------------------------------------------------- */
/* Source code */

/*
 * Languages are rows of templates, each row a role and the languages it
 * serves, so that what the C family shares is written once.  In a
 * template, a backquote starts a code:
 *   `i identifier (the language's case)  `I PascalCase  `U UPPER_CASE
 *   `w a plain word   `v a variable of the function   `t a type
 *   `n a number       `s a few words (strings)        `m a sentence (comments)
 *   `c a callee (library or defined before)           `f the function's name
 *   `N `G `L the file's own name (Pascal, UPPER, lower)
 *   `> new line and indent   `+ `- indent in, out
 * Lines are indented by the current depth.  The rows are compiled once
 * (lang_compile()) into byte codes: literal runs with their lengths,
 * copied 16 bytes at a time, and one byte a code.
 */
enum lang_id {
	LANG_C, LANG_CPP, LANG_JAVA, LANG_CS, LANG_JS, LANG_GO, LANG_RS, LANG_PHP, LANG_PY,
	LANG_SH, LANG_PL, LANG_RB, LANG_CSS, NLANG
};

#define B_C	(1u << LANG_C)
#define B_CPP	(1u << LANG_CPP)
#define B_JAVA	(1u << LANG_JAVA)
#define B_CS	(1u << LANG_CS)
#define B_JS	(1u << LANG_JS)
#define B_GO	(1u << LANG_GO)
#define B_RS	(1u << LANG_RS)
#define B_PHP	(1u << LANG_PHP)
#define B_PY	(1u << LANG_PY)
#define B_SH	(1u << LANG_SH)
#define B_PL	(1u << LANG_PL)
#define B_RB	(1u << LANG_RB)
#define B_CSS	(1u << LANG_CSS)
/* blocks closed by a brace */
#define B_BRACE	(B_C | B_CPP | B_JAVA | B_CS | B_JS | B_GO | B_RS | B_PHP | B_PL)
#define B_CLIKE	(B_C | B_CPP | B_JAVA | B_CS | B_JS)
#define B_HASH	(B_PY | B_SH | B_PL | B_RB)

enum role {
	/* one template a language, or none */
	R_IND,          /* one level of indentation */
	R_LC, R_LC_END, /* line comment */
	R_DOC_OPEN, R_DOC_LINE, R_DOC_CLOSE, /* block comment */
	R_FIRST,        /* first lines (shebang, banner, package) */
	R_IMP_OPEN, R_IMP_CLOSE, /* around the imports (Go) */
	R_OPEN,         /* after the imports (class, namespace) */
	R_CLOSE,        /* the footer */
	R_FN_OPEN, R_FN_PROLOGUE, R_FN_CLOSE, R_PROTO,
	R_IF_OPEN, R_IF_CLOSE, R_LOOP_OPEN, R_LOOP_CLOSE, R_RET,
	R_REC_OPEN, R_REC_FIELD, R_REC_CLOSE, R_KONST,
	R_GUARD,        /* a header's include guard (C, C++) */
	R_ONE,
	/* lists: the imports are chosen in order, the others picked */
	R_IMPORT = R_ONE, R_STMT, R_TYPE, R_CALL,
	R_ALL
};

#define NLIST		(R_ALL - R_ONE)
#define LIST_MAX	16u
#define IND_PAD		64u	/* indentation copied at once: deeper is cut */

static const struct {
	const char *name;
	int camel;                  /* `i in camelCase, else snake_case */
	unsigned depth0;            /* depth inside R_OPEN */
} langs[NLANG] = {
	[LANG_C] = { "c", 0, 0 },      [LANG_CPP] = { "cpp", 0, 0 }, [LANG_JAVA] = { "java", 1, 1 },
	[LANG_CS] = { "cs", 1, 2 },    [LANG_JS] = { "js", 1, 0 },   [LANG_GO] = { "go", 1, 0 },
	[LANG_RS] = { "rs", 0, 0 },    [LANG_PHP] = { "php", 0, 0 }, [LANG_PY] = { "py", 0, 0 },
	[LANG_SH] = { "sh", 0, 0 },    [LANG_PL] = { "pl", 0, 0 },   [LANG_RB] = { "rb", 0, 0 },
	[LANG_CSS] = { "css", 0, 0 },
};

#define LIST(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* An empty template is no template, except in a list (an empty type). */
static const struct {
	uint8_t role;
	uint16_t langs;
	const char *const *t;
} lang_rows[] = {
	{ R_IND, B_C | B_GO | B_SH, LIST("\t") },
	{ R_IND, B_CPP | B_JAVA | B_CS | B_RS | B_PHP | B_PY | B_PL, LIST("    ") },
	{ R_IND, B_JS | B_RB | B_CSS, LIST("  ") },
	{ R_LC, B_C | B_CSS, LIST("/* ") },
	{ R_LC, B_CPP | B_JAVA | B_CS | B_JS | B_GO | B_RS | B_PHP, LIST("// ") },
	{ R_LC, B_HASH, LIST("# ") },
	{ R_LC_END, B_C | B_CSS, LIST(" */") },
	{ R_DOC_OPEN, B_C, LIST("/*") },
	{ R_DOC_OPEN, B_JAVA | B_JS, LIST("/**") },
	{ R_DOC_LINE, B_C | B_JAVA | B_JS, LIST(" * ") },
	{ R_DOC_CLOSE, B_C | B_JAVA | B_JS, LIST(" */") },

	{ R_FIRST, B_C | B_CSS, LIST("/* `m */") },
	{ R_FIRST, B_CPP, LIST("// `m") },
	{ R_FIRST, B_JAVA, LIST("package org.`w.`w;") },
	{ R_FIRST, B_CS, LIST("using System;") },
	{ R_FIRST, B_JS, LIST("'use strict';") },
	{ R_FIRST, B_GO, LIST("package `w") },
	{ R_FIRST, B_RS, LIST("//! `m") },
	{ R_FIRST, B_PHP, LIST("<?php") },
	{ R_FIRST, B_PY, LIST("#!/usr/bin/env python3\n\"\"\"`m\"\"\"") },
	{ R_FIRST, B_SH, LIST("#!/bin/sh\n# `m") },
	{ R_FIRST, B_PL, LIST("#!/usr/bin/perl") },
	{ R_FIRST, B_RB, LIST("# frozen_string_literal: true") },

	{ R_GUARD, B_C | B_CPP, LIST("#ifndef `G_H\n#define `G_H") },
	{ R_IMP_OPEN, B_GO, LIST("import (") },
	{ R_IMP_CLOSE, B_GO, LIST(")") },
	{ R_IMPORT, B_C, LIST("#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>",
			      "#include <stdint.h>", "#include <errno.h>", "#include <unistd.h>",
			      "#include <fcntl.h>", "#include <sys/types.h>", "#include <pthread.h>",
			      "#include \"`L.h\"", "#include \"`w.h\"") },
	{ R_IMPORT, B_CPP, LIST("#include <iostream>", "#include <vector>", "#include <string>",
				"#include <map>", "#include <memory>", "#include <algorithm>",
				"#include <cstdint>", "#include \"`L.h\"", "#include \"`w.hpp\"") },
	{ R_IMPORT, B_JAVA, LIST("import java.util.List;", "import java.util.ArrayList;",
				 "import java.util.Map;", "import java.util.HashMap;",
				 "import java.io.IOException;", "import java.util.Objects;",
				 "import java.util.concurrent.TimeUnit;") },
	{ R_IMPORT, B_CS, LIST("using System.Collections.Generic;", "using System.IO;",
			       "using System.Linq;", "using System.Text;",
			       "using System.Threading.Tasks;") },
	/* PascalCase: a function (camelCase) never takes the name again */
	{ R_IMPORT, B_JS, LIST("const fs = require('fs');", "const path = require('path');",
			       "const `I = require('./`w');", "const { `I } = require('`w');") },
	{ R_IMPORT, B_GO, LIST("\t\"errors\"", "\t\"fmt\"", "\t\"io\"", "\t\"os\"", "\t\"strings\"",
			       "\t\"sync\"", "\t\"time\"") },
	{ R_IMPORT, B_RS, LIST("use std::collections::HashMap;", "use std::fs;",
			       "use std::io::{self, Read, Write};", "use std::path::Path;",
			       "use std::sync::Arc;") },
	{ R_IMPORT, B_PHP, LIST("namespace App\\`N;", "use App\\`N\\`N;", "use RuntimeException;") },
	{ R_IMPORT, B_PY, LIST("import argparse", "import json", "import logging", "import os",
			       "import re", "import sys", "from collections import defaultdict",
			       "from pathlib import Path") },
	{ R_IMPORT, B_SH, LIST("set -e", "set -u", "PATH=/usr/local/bin:/usr/bin:/bin",
			       "`U=\"${`U:-`w}\"") },
	{ R_IMPORT, B_PL, LIST("use strict;", "use warnings;", "use File::Basename;",
			       "use Getopt::Long;", "use POSIX qw(floor ceil);") },
	{ R_IMPORT, B_RB, LIST("require 'json'", "require 'fileutils'", "require 'set'",
			       "require_relative '`w'") },
	{ R_IMPORT, B_CSS, LIST("@import url(\"`w.css\");", "@charset \"utf-8\";") },

	{ R_OPEN, B_CPP, LIST("namespace `L {\n") },
	{ R_OPEN, B_JAVA, LIST("public class `N {\n") },
	{ R_OPEN, B_CS, LIST("namespace `N\n{\n    public class `N\n    {\n") },
	{ R_CLOSE, B_CPP, LIST("}  // namespace `L") },
	{ R_CLOSE, B_JAVA, LIST("}") },
	{ R_CLOSE, B_CS, LIST("    }\n}") },
	{ R_CLOSE, B_PY, LIST("if __name__ == \"__main__\":\n    main()") },

	{ R_FN_OPEN, B_C, LIST("static `t `f(`t `v, `t `v)`>{") },
	{ R_FN_OPEN, B_CPP, LIST("`t `f(const `t &`v, `t `v)`>{") },
	{ R_FN_OPEN, B_JAVA, LIST("public `t `f(`t `v, `t `v) {") },
	{ R_FN_OPEN, B_CS, LIST("public `t `I(`t `v, `t `v)`>{") },
	{ R_FN_OPEN, B_JS, LIST("function `f(`v, `v) {") },
	{ R_FN_OPEN, B_GO, LIST("func `f(`v `t, `v `t) (`t, error) {") },
	{ R_FN_OPEN, B_RS, LIST("pub fn `f(`v: `t, `v: `t) -> `t {") },
	{ R_FN_OPEN, B_PHP, LIST("function `f($`v, $`v)`>{") },
	{ R_FN_OPEN, B_PY, LIST("def `f(`v, `v):") },
	{ R_FN_OPEN, B_SH, LIST("`f() {") },
	{ R_FN_OPEN, B_PL, LIST("sub `f {") },
	{ R_FN_OPEN, B_RB, LIST("def `f(`v, `v)") },
	{ R_FN_OPEN, B_CSS, LIST(".`f, .`f `w {") },
	{ R_FN_PROLOGUE, B_PL, LIST("my ($`v, $`v) = @_;") },
	{ R_FN_CLOSE, B_BRACE | B_SH | B_CSS, LIST("}") },
	{ R_FN_CLOSE, B_RB, LIST("end") },
	{ R_PROTO, B_C, LIST("`t `f(`t `v, `t `v);") },
	{ R_PROTO, B_CPP, LIST("`t `f(const `t &`v, `t `v);") },

	{ R_STMT, B_C, LIST("`t `v = `n;", "`v = `v + `n;", "`v += `c(`v, `n);", "`c(`v, `v);",
			    "`v = `v->`i;", "`v[`n] = `v;", "memset(`v, 0, sizeof(*`v));",
			    "printf(\"`s: %d\\n\", `v);", "`v->`i = `v;", "`v = `c(`v);",
			    "if (`v < 0)`>`+return -EINVAL;`-", "`v++;") },
	{ R_STMT, B_CPP, LIST("auto `v = `c(`v);", "`v.push_back(`v);",
			      "std::cout << \"`s \" << `v << std::endl;", "`v += `n;",
			      "`t `v = `v * `n;", "`v = std::max(`v, `v);", "`v.clear();",
			      "std::sort(`v.begin(), `v.end());",
			      "if (`v.empty())`>`+return `v;`-") },
	{ R_STMT, B_JAVA, LIST("`t `v = `c(`v);", "`v = `v + `n;",
			       "System.out.println(\"`s \" + `v);", "`v.add(`v);", "this.`v = `v;",
			       "`v += `n;", "Objects.requireNonNull(`v, \"`s\");") },
	{ R_STMT, B_CS, LIST("var `v = `c(`v);", "`v = `v + `n;",
			     "Console.WriteLine(\"`s {0}\", `v);", "`v.Add(`v);", "`v += `n;") },
	/* JS: var (here and in loops), as a parameter or a local may be declared again */
	{ R_STMT, B_JS, LIST("var `v = `c(`v, `n);", "var `v = `v + `n;", "`v.push(`v);",
			     "console.log('`s', `v);", "`v = `v || {};", "`v += `n;",
			     "if (!`v) {`+`>return null;`-`>}") },
	{ R_STMT, B_GO, LIST("`v := `c(`v, `n)", "`v += `n", "fmt.Printf(\"`s: %v\\n\", `v)",
			     "if err != nil {`+`>return nil, err`-`>}", "`v = append(`v, `v)",
			     "defer `v.Close()") },
	{ R_STMT, B_RS, LIST("let `v = `c(`v, `n);", "let mut `v = `v + `n;", "`v += `n;",
			     "println!(\"`s {}\", `v);", "`v.push(`v);", "let `v = `v.len();") },
	{ R_STMT, B_PHP, LIST("$`v = `c($`v, `n);", "$`v[] = $`v;",
			      "echo \"`s \" . $`v . \"\\n\";", "$`v = $`v + `n;",
			      "$`v = array_merge($`v, $`v);") },
	{ R_STMT, B_PY, LIST("`v = `c(`v, `n)", "`v += `n", "print(\"`s\", `v)", "`v.append(`v)",
			     "`v = [x for x in `v if x]", "`v = `v.get(\"`w\", `n)") },
	{ R_STMT, B_SH, LIST("local `v=\"$1\"", "`v=$((`v + `n))", "echo \"`s: $`v\"",
			     "`c \"$`v\" >/dev/null", "[ -n \"$`v\" ] || return 1") },
	{ R_STMT, B_PL, LIST("my $`v = `c($`v, `n);", "$`v += `n;", "print \"`s: $`v\\n\";",
			     "push @`v, $`v;", "$`v{`w} = $`v;") },
	{ R_STMT, B_RB, LIST("`v = `c(`v, `n)", "`v += `n", "puts \"`s #{`v}\"", "`v << `v",
			     "`v = `v.map { |x| x * `n }") },
	{ R_STMT, B_CSS, LIST("margin: `npx;", "padding: `npx `npx;", "font-size: `npx;",
			      "display: block;", "color: #333;",
			      "background: url(\"`w.png\") no-repeat;", "border: 1px solid #ccc;",
			      "text-align: center;", "width: `n%;", "line-height: 1.5;") },

	{ R_IF_OPEN, B_C | B_CPP | B_JS, LIST("if (`v > `n) {") },
	{ R_IF_OPEN, B_JAVA, LIST("if (`v != null) {") },
	{ R_IF_OPEN, B_CS, LIST("if (`v != null)`>{") },
	{ R_IF_OPEN, B_GO | B_RS, LIST("if `v > `n {") },
	{ R_IF_OPEN, B_PHP | B_PL, LIST("if ($`v > `n) {") },
	{ R_IF_OPEN, B_PY, LIST("if `v > `n:") },
	{ R_IF_OPEN, B_SH, LIST("if [ \"$`v\" -gt `n ]; then") },
	{ R_IF_OPEN, B_RB, LIST("if `v > `n") },
	{ R_IF_CLOSE, B_BRACE, LIST("}") },
	{ R_IF_CLOSE, B_SH, LIST("fi") },
	{ R_IF_CLOSE, B_RB, LIST("end") },
	{ R_LOOP_OPEN, B_C, LIST("for (`v = 0; `v < `n; `v++) {") },
	{ R_LOOP_OPEN, B_CPP, LIST("for (const auto &`v : `v) {") },
	{ R_LOOP_OPEN, B_JAVA, LIST("for (int `v = 0; `v < `n; `v++) {") },
	{ R_LOOP_OPEN, B_CS, LIST("foreach (var `v in `v)`>{") },
	{ R_LOOP_OPEN, B_JS, LIST("for (var `v of `v) {") },
	{ R_LOOP_OPEN, B_GO, LIST("for _, `v := range `v {") },
	{ R_LOOP_OPEN, B_RS, LIST("for `v in 0..`n {") },
	{ R_LOOP_OPEN, B_PHP, LIST("foreach ($`v as $`v) {") },
	{ R_LOOP_OPEN, B_PY, LIST("for `v in `v:") },
	{ R_LOOP_OPEN, B_SH, LIST("for `v in `s; do") },
	{ R_LOOP_OPEN, B_PL, LIST("foreach my $`v (@`v) {") },
	{ R_LOOP_OPEN, B_RB, LIST("`v.each do |`v|") },
	{ R_LOOP_CLOSE, B_BRACE, LIST("}") },
	{ R_LOOP_CLOSE, B_SH, LIST("done") },
	{ R_LOOP_CLOSE, B_RB, LIST("end") },
	{ R_RET, B_CLIKE, LIST("return `v;") },
	{ R_RET, B_GO, LIST("return `v, nil") },
	{ R_RET, B_RS | B_RB, LIST("`v") },
	{ R_RET, B_PHP | B_PL, LIST("return $`v;") },
	{ R_RET, B_PY, LIST("return `v") },
	{ R_RET, B_SH, LIST("return 0") },

	{ R_REC_OPEN, B_C, LIST("struct `i {") },
	{ R_REC_OPEN, B_CPP, LIST("struct `I {") },
	{ R_REC_OPEN, B_JAVA, LIST("private static final class `I {") },
	{ R_REC_OPEN, B_CS, LIST("private sealed class `I`>{") },
	{ R_REC_OPEN, B_JS, LIST("exports.`i = {") },	/* may come again: no const */
	{ R_REC_OPEN, B_GO, LIST("type `I struct {") },
	{ R_REC_OPEN, B_RS, LIST("pub struct `I {") },
	{ R_REC_OPEN, B_PHP, LIST("class `I`>{") },
	{ R_REC_OPEN, B_PY, LIST("class `I:") },
	{ R_REC_OPEN, B_RB, LIST("class `I") },
	{ R_REC_FIELD, B_C | B_CPP, LIST("`t `i;") },
	{ R_REC_FIELD, B_JAVA, LIST("private `t `i;") },
	{ R_REC_FIELD, B_CS, LIST("public `t `I { get; set; }") },
	{ R_REC_FIELD, B_JS, LIST("`i: `n,") },
	{ R_REC_FIELD, B_GO, LIST("`I `t") },
	{ R_REC_FIELD, B_RS, LIST("pub `i: `t,") },
	{ R_REC_FIELD, B_PHP, LIST("private $`i;") },
	{ R_REC_FIELD, B_PY, LIST("`i = `n") },
	{ R_REC_FIELD, B_RB, LIST("attr_reader :`i") },
	{ R_REC_CLOSE, B_C | B_CPP | B_JS, LIST("};") },
	{ R_REC_CLOSE, B_JAVA | B_CS | B_GO | B_RS | B_PHP, LIST("}") },
	{ R_REC_CLOSE, B_RB, LIST("end") },
	{ R_KONST, B_C, LIST("#define `U `n") },
	{ R_KONST, B_CPP, LIST("constexpr int k`I = `n;") },
	{ R_KONST, B_JAVA, LIST("private static final int `U = `n;") },
	{ R_KONST, B_CS, LIST("private const int `I = `n;") },
	{ R_KONST, B_JS, LIST("exports.`U = `n;") },
	{ R_KONST, B_PHP, LIST("const `U = `n;") },
	{ R_KONST, B_GO, LIST("const `I = `n") },
	{ R_KONST, B_RS, LIST("const `U: u32 = `n;") },
	{ R_KONST, B_PY | B_RB, LIST("`U = `n") },
	{ R_KONST, B_SH, LIST("`U=`n") },
	{ R_KONST, B_PL, LIST("use constant `U => `n;") },

	{ R_TYPE, B_C, LIST("int", "unsigned int", "long", "size_t", "char *", "const char *",
			    "uint32_t", "uint64_t", "double", "struct `i *", "void *", "ssize_t",
			    "uint8_t *") },
	{ R_TYPE, B_CPP, LIST("int", "std::string", "std::size_t", "bool", "double",
			      "std::vector<int>", "std::uint64_t", "std::map<std::string, int>",
			      "`I") },
	{ R_TYPE, B_JAVA, LIST("int", "long", "String", "boolean", "double", "List<String>",
			       "Map<String, Integer>", "`I") },
	{ R_TYPE, B_CS, LIST("int", "long", "string", "bool", "double", "List<string>", "`I") },
	{ R_TYPE, B_GO, LIST("int", "string", "[]byte", "bool", "float64", "uint64", "*`I",
			     "map[string]int") },
	{ R_TYPE, B_RS, LIST("u32", "u64", "usize", "i64", "&str", "String", "Vec<u8>", "bool",
			     "f64") },
	{ R_TYPE, B_JS | B_PHP | B_HASH | B_CSS, LIST("") },
	{ R_CALL, B_C, LIST("strlen", "malloc", "free", "memcmp", "strcmp", "abs", "close", "atoi",
			    "fflush", "puts") },
	{ R_CALL, B_CPP, LIST("std::abs", "std::to_string", "std::move", "std::size", "`v.size") },
	{ R_CALL, B_JAVA, LIST("Math.max", "String.valueOf", "Integer.parseInt", "`i", "`i") },
	{ R_CALL, B_CS, LIST("Math.Max", "Convert.ToString", "int.Parse", "`I") },
	{ R_CALL, B_JS, LIST("Math.max", "JSON.stringify", "Object.keys", "parseInt", "`i") },
	{ R_CALL, B_GO, LIST("strings.TrimSpace", "len", "fmt.Sprint", "`i", "`I") },
	{ R_CALL, B_RS, LIST("std::cmp::max", "`i", "`i") },
	{ R_CALL, B_PHP, LIST("count", "strlen", "intval", "`i") },
	{ R_CALL, B_PY, LIST("len", "sorted", "int", "str", "os.path.join", "`i") },
	{ R_CALL, B_SH, LIST("grep -q", "mkdir -p", "rm -f", "cat", "test -f", "`i") },
	{ R_CALL, B_PL, LIST("length", "scalar", "int", "`i") },
	{ R_CALL, B_RB, LIST("Integer", "format", "`i") },
	{ R_CALL, B_CSS, LIST("") },
};

/* A language, compiled. */
struct lang {
	int camel;
	unsigned depth0;
	const char *raw[R_ONE];                 /* as written, NULL: none */
	const uint8_t *one[R_ONE];              /* compiled, NULL: none */
	const uint8_t *list[NLIST][LIST_MAX];
	unsigned nlist[NLIST];
	uint8_t ind[IND_PAD];                   /* R_IND repeated */
	unsigned ind_len;
};

/*
 * Byte codes: 0 ends, 1..127 is a literal run of that many bytes (they
 * follow), 128 + c is the code `c.  The pool ends in 16 spare bytes so
 * that a short run is always copied as 16.
 */
#define LIT_MAX		127u
#define OP_CODE		0x80u

static struct lang lang_tab[NLANG];
static uint8_t *lang_pool;
static pthread_once_t lang_once = PTHREAD_ONCE_INIT;
static int lang_err;

static int is_code(char c)
{
	return c && strchr("iIUwvtnsmcfNGL>+-", c) != NULL;
}

/* Compile template t at *at; returns where it starts. */
static const uint8_t *tpl_compile(const char *t, uint8_t **at)
{
	uint8_t *start = *at, *p = *at;

	while (*t) {
		size_t n = 0;

		if (t[0] == '`' && is_code(t[1])) {
			*p++ = (uint8_t)(OP_CODE | (uint8_t)t[1]);
			t += 2;
			continue;
		}
		/* a literal run: up to the next code (a stray backquote is a letter) */
		while (t[n] && n < LIT_MAX && !(n && t[n] == '`' && is_code(t[n + 1])))
			n++;
		*p++ = (uint8_t)n;
		memcpy(p, t, n);
		p += n;
		t += n;
	}
	*p++ = 0;
	*at = p;
	return start;
}

static void lang_compile(void)
{
	size_t need = 16;
	uint8_t *p;

	for (size_t i = 0; i < NELEM(lang_rows); i++)
		for (const char *const *t = lang_rows[i].t; *t; t++)
			need += 2 * strlen(*t) + 2;
	lang_pool = p = calloc(1, need * NLANG);
	if (!lang_pool) {
		lang_err = -ENOMEM;
		return;
	}
	for (unsigned l = 0; l < NLANG; l++) {
		struct lang *lg = &lang_tab[l];

		lg->camel = langs[l].camel;
		lg->depth0 = langs[l].depth0;
		for (size_t i = 0; i < NELEM(lang_rows); i++) {
			unsigned role = lang_rows[i].role;

			if (!(lang_rows[i].langs & (1u << l)))
				continue;
			for (const char *const *t = lang_rows[i].t; *t; t++) {
				if (role < R_ONE) {
					/* one non-empty template a role */
					if (lg->raw[role] || !**t || t[1]) {
						lang_err = -EINVAL;
						return;
					}
					lg->raw[role] = *t;
					lg->one[role] = tpl_compile(*t, &p);
				} else if (lg->nlist[role - R_ONE] < LIST_MAX) {
					lg->list[role - R_ONE][lg->nlist[role - R_ONE]++] =
						tpl_compile(*t, &p);
				} else {
					lang_err = -EINVAL;
				}
			}
		}
		/* every language needs an indentation, a line comment and every list */
		if (!lg->raw[R_IND] || !lg->raw[R_LC])
			lang_err = -EINVAL;
		for (unsigned k = 0; k < NLIST; k++)
			if (!lg->nlist[k])
				lang_err = -EINVAL;
		if (lang_err)
			return;
		lg->ind_len = (unsigned)strlen(lg->raw[R_IND]);
		for (unsigned k = 0; k + lg->ind_len <= IND_PAD; k += lg->ind_len)
			memcpy(lg->ind + k, lg->raw[R_IND], lg->ind_len);
	}
}

static int lang_init(void)
{
	pthread_once(&lang_once, lang_compile);
	return lang_err;
}

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
};

enum { ID_LANG, ID_SNAKE, ID_CAMEL, ID_PASCAL, ID_UPPER };

static void new_ident(struct src *s, uint32_t id[2])
{
	struct tw *w = s->w;

	id[0] = name_word(w);
	id[1] = (tnext(&w->r) & 1) || w->tm->keyword[id[0]] ? name_word(w) : UINT32_MAX;
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

static inline void indent(struct src *s)
{
	const struct lang *lg = s->lg;
	unsigned n = MIN(s->depth * lg->ind_len, IND_PAD / lg->ind_len * lg->ind_len);

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
			put_rank(w, name_word(w), 0);
			break;
		case 'v':
			if (!s->nv) {
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
			put_number(w);
			break;
		case 's':
			put_phrase(w, 4, 24, 0);
			break;
		case 'm':
			put_text(w, 20 + below(tnext(&w->r), 50), 0);
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
			put_text(w, 30 + below(tnext(&w->r), 40), 0);
			put_ch(w, '\n');
		}
		line(s, lg->one[R_DOC_CLOSE]);
	} else {
		indent(s);
		run(s, lg->one[R_LC]);
		put_text(w, 20 + below(tnext(&w->r), 50), 0);
		if (lg->one[R_LC_END])
			run(s, lg->one[R_LC_END]);
		put_ch(w, '\n');
	}
}

static void simple_stmt(struct src *s)
{
	line(s, pick(s, R_STMT));
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

/* Which language an extension is written in; c headers get prototypes. */
static const struct {
	const char *ext;
	uint8_t lang;
	uint8_t header;
} lang_exts[] = {
	{ "c", LANG_C, 0 }, { "h", LANG_C, 1 }, { "y", LANG_C, 0 }, { "l", LANG_C, 0 },
	{ "idl", LANG_C, 1 }, { "inc", LANG_C, 1 }, { "def", LANG_C, 1 }, { "rc", LANG_C, 1 },
	{ "dts", LANG_C, 1 }, { "m", LANG_C, 0 },
	{ "cpp", LANG_CPP, 0 }, { "cc", LANG_CPP, 0 }, { "cxx", LANG_CPP, 0 },
	{ "c++", LANG_CPP, 0 }, { "mm", LANG_CPP, 0 }, { "hpp", LANG_CPP, 1 },
	{ "hh", LANG_CPP, 1 }, { "hxx", LANG_CPP, 1 }, { "inl", LANG_CPP, 0 },
	{ "java", LANG_JAVA, 0 }, { "kt", LANG_JAVA, 0 }, { "scala", LANG_JAVA, 0 },
	{ "groovy", LANG_JAVA, 0 }, { "cs", LANG_CS, 0 },
	{ "js", LANG_JS, 0 }, { "jsx", LANG_JS, 0 }, { "mjs", LANG_JS, 0 },
	{ "ts", LANG_JS, 0 }, { "tsx", LANG_JS, 0 },
	{ "go", LANG_GO, 0 }, { "rs", LANG_RS, 0 }, { "php", LANG_PHP, 0 },
	{ "py", LANG_PY, 0 }, { "pyw", LANG_PY, 0 }, { "pyx", LANG_PY, 0 },
	{ "sh", LANG_SH, 0 }, { "bash", LANG_SH, 0 }, { "zsh", LANG_SH, 0 },
	{ "ksh", LANG_SH, 0 }, { "csh", LANG_SH, 0 }, { "awk", LANG_SH, 0 },
	{ "tcl", LANG_SH, 0 }, { "r", LANG_SH, 0 },
	{ "pl", LANG_PL, 0 }, { "pm", LANG_PL, 0 }, { "t", LANG_PL, 0 },
	{ "rb", LANG_RB, 0 }, { "rake", LANG_RB, 0 },
	{ "css", LANG_CSS, 0 }, { "less", LANG_CSS, 0 }, { "scss", LANG_CSS, 0 },
};

static const struct lang *lang_of(const char *ext, int *header)
{
	for (size_t i = 0; i < NELEM(lang_exts); i++) {
		if (!strcasecmp(lang_exts[i].ext, ext)) {
			*header = lang_exts[i].header;
			return &lang_tab[lang_exts[i].lang];
		}
	}
	*header = 0;
	return &lang_tab[LANG_C];
}

static void src_frame(const struct gen_file *g, const struct content_model *cm, struct frame *fr)
{
	int header;
	const struct lang *lg = lang_of(file_ext(g), &header);
	struct src s = { .lg = lg, .fr = fr };
	const int guard = header && lg->one[R_GUARD];
	struct tw w;
	uint8_t *at;
	size_t guard_at, imp_from, imp_to, open_at, flen, guard_len = guard ? 8 : 0, best = 0;
	int chosen = 0, kind = 0;
	const unsigned nimp = lg->nlist[R_IMPORT - R_ONE];

	frame_open(&w, cm, g, fr->head, 6);
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
	for (size_t c = 1; c <= fr->hlen; c++) {
		int k = c > open_at ? 2 : guard && c > guard_at ? 1 : 0;
		size_t need = k == 2 ? flen : k == 1 ? guard_len : 0;

		if (fr->head[c - 1] != '\n' || (c > imp_from && c < imp_to) ||
		    (k == 2 && c < fr->hlen))
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
	size_t k = MIN(s->depth * lg->ind_len, IND_PAD / lg->ind_len * lg->ind_len);

	memcpy(ind, lg->ind, k);
	ind[k] = '\0';
	if (n >= 1) {
		put_ch(s->w, '\n');
		n--;
	}
	comment_lines(s->w, n, ind, lg->raw[R_LC], lg->raw[R_LC_END] ? lg->raw[R_LC_END] : "");
}

static void src_unit(const struct gen_file *g, const struct frame *fr, struct tw *w, uint64_t u,
		     size_t len)
{
	struct src s = { .w = w, .lg = fr->lang, .fr = fr, .depth = fr->depth0 };
	uint8_t *end = w->p + len;

	(void)g;
	(void)u;
	for (;;) {
		uint8_t *mark = w->p;
		unsigned kind;

		if (w->p >= w->stop)
			return;
		if (end - w->p < 400)
			break;
		kind = (unsigned)below(tnext(&w->r), 20);
		put_ch(w, '\n');
		if (kind < 2 && s.lg->one[R_KONST]) {
			s.nv = 0;
			for (unsigned i = 0, k = 2 + (unsigned)below(tnext(&w->r), 4); i < k; i++)
				line_of(&s, R_KONST);
		} else if (kind < 5 && s.lg->one[R_REC_OPEN]) {
			record(&s);
		} else {
			function(&s, fr->variant && s.lg->one[R_PROTO], (size_t)(end - w->p));
		}
		if (end - w->p < 64) {
			w->p = mark;
			break;
		}
	}
	src_filler(&s, (size_t)(end - w->p));
}

static const struct tfmt fmt_src = { .frame = src_frame, .unit = src_unit };

/* ------------------------------------------------------------------------- */
/* The ops */

static const struct {
	const char *ext;
	const struct tfmt *fmt;
} text_exts[] = {
	{ "md", &fmt_md }, { "markdown", &fmt_md },
	{ "log", &fmt_log }, { "csv", &fmt_csv }, { "tsv", &fmt_tsv },
	{ "ini", &fmt_ini }, { "cfg", &fmt_ini }, { "conf", &fmt_ini }, { "inf", &fmt_ini },
	{ "properties", &fmt_ini }, { "toml", &fmt_ini }, { "env", &fmt_ini },
	{ "desktop", &fmt_ini },
	{ "yml", &fmt_yaml }, { "yaml", &fmt_yaml },
};

static int text_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	const char *ext = file_ext(g);

	for (size_t i = 0; i < NELEM(text_exts); i++)
		if (!strcasecmp(text_exts[i].ext, ext))
			return text_fill(text_exts[i].fmt, g, off, buf, len);
	return text_fill(&fmt_prose, g, off, buf, len);
}

static int html_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&fmt_html, g, off, buf, len);
}

static int source_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&fmt_src, g, off, buf, len);
}

static int json_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&fmt_json, g, off, buf, len);
}

static int xml_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&fmt_xml, g, off, buf, len);
}

const struct gen_ops gen_text_ops = { .name = "text", .min_size = 0, .fill = text_ops_fill };
const struct gen_ops gen_html_ops = { .name = "html", .min_size = 0, .fill = html_ops_fill };
const struct gen_ops gen_source_ops = { .name = "source", .min_size = 0, .fill = source_ops_fill };
const struct gen_ops gen_json_ops = { .name = "json", .min_size = 0, .fill = json_ops_fill };
const struct gen_ops gen_xml_ops = { .name = "xml", .min_size = 0, .fill = xml_ops_fill };

void gen_text_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		    size_t len)
{
	struct gen_file g = { .key = key, .size = UINT64_MAX, .ext = "", .cm = cm };

	if (text_fill(&fmt_prose, &g, off, buf, len))
		memset(buf, ' ', len);
}
