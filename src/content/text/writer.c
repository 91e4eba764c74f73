/* writer.c - the unit writer: words, sentences, lines and dates of an exact length into a buffer */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "content/model.h"
#include "model/params.h"
#include "util/rng.h"
#include "content/text/text.h"

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

/* ------------------------------------------------------------------------- */
/* The writer: words, sentences and lines into a unit buffer */

static double heaps_v(uint64_t pos)
{
	return HEAPS_V0 + HEAPS_K * pow((double)pos, HEAPS_BETA);
}

/*
 * The updates come at pos_next, which only pos decides, so those from
 * word 0 (the first unit of every file, and every frame) come at the same
 * positions 0, 16, 33, 51, ...: their V, truncated, is in the model's
 * table (V >= n exactly when its integer part is), a pow() spared.
 */
void text_heaps_init(struct text_model *tm)
{
	uint64_t pos = 0;

	for (unsigned k = 0; k < HEAPS0_N; k++) {
		tm->heaps0[k] = (uint32_t)heaps_v(pos);
		pos += (pos >> 4) + 16;
	}
}

static void heaps_update(struct tw *w)
{
	const struct text_model *tm = w->tm;
	uint32_t nv;

	if (w->hk < HEAPS0_N) {
		nv = MIN(tm->heaps0[w->hk], tm->n);
		w->hk++;
	} else {
		double v = heaps_v(w->pos);

		nv = v >= tm->n ? tm->n : (uint32_t)v;
	}
	w->vcur = nv;
	w->vhalf = nv / 2;
	w->pos_next = nv == tm->n ? UINT64_MAX : w->pos + (w->pos >> 4) + 16;
}

/* The alias table's column of a draw, from bits 32..63 of x. */
static inline uint32_t zipf_column(const struct text_model *tm, uint64_t x)
{
	return (uint32_t)(((x >> 32) * tm->n) >> 32);
}

/* A rank of the Zipf law from bits 16..63 of x. */
static inline uint32_t zipf_rank(const struct text_model *tm, uint64_t x)
{
	uint32_t c = zipf_column(tm, x), e = tm->alias[c];

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
		return text_narrow(w, r);
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

/* An index in [0, n), small ones likelier (density ~ 1 / sqrt(j)), from bits 0..47 of x. */
static inline uint32_t skewed(uint64_t x, unsigned n)
{
	uint64_t a = x & 0xFFFFFF, b = (x >> 24) & 0xFFFFFF;

	return (uint32_t)((((a * b) >> 24) * n) >> 24);
}

/*
 * A fresh number: hexadecimal of 4 or 5 digits, in a run that climbs by 1
 * to 8 from a value drawn at the unit's first one (as the code points of
 * a table do: distinct words that still share their leading digits, so
 * that a compressor finds them), or, one in four, a decimal of 5 to 7
 * digits anywhere.
 */
static unsigned text_fresh_number(struct tw *w, uint8_t *out)
{
	static const char hex[] = "0123456789ABCDEF";
	uint64_t x = tnext(&w->r), v;
	unsigned n = 0;

	if ((x & 3) == 3) {
		v = 10000 + below(x, 9990000);
		for (uint64_t t = v; t; t /= 10)
			n++;
		for (unsigned i = 0; i < n; i++, v /= 10)
			out[n - 1 - i] = (uint8_t)('0' + v % 10);
		return n;
	}
	if (!w->fseq || w->fseq >= 0xFFFF8)
		w->fseq = 0x1000 + below(x, 0xFE000);
	w->fseq += 1 + ((x >> 2) & 7);
	v = w->fseq;
	n = v >= 0x10000 ? 5 : 4;
	for (unsigned i = 0; i < n; i++, v >>= 4)
		out[n - 1 - i] = (uint8_t)hex[v & 15];
	return n;
}

unsigned text_fresh(struct tw *w, uint8_t *out)
{
	return text_fresh_number(w, out);
}

uint32_t text_name_word(struct tw *w)
{
	uint32_t lo = MIN(IDENT_LO, w->tm->n - 1), hi = MIN(IDENT_HI, w->tm->n);
	uint64_t x;

	x = tnext(&w->r);

	if (w->rc.kn)
		x = rng_mix64(w->key ^ SALT_NAME ^
			      skewed(x, w->boost > 0 ? w->rc.kn - (unsigned)(((uint64_t)(w->rc.kn - 1) *
								    (uint32_t)w->boost) >> 16) :
						 w->rc.kn));
	return text_narrow(w, lo + (uint32_t)below(x, hi - lo));
}

int text_recur_begin(struct tw *w, unsigned p, unsigned n, uint64_t salt, struct trng *save)
{
	uint64_t x;

	if (!p)
		return 0;
	if (w->boost > 0) {
		p += (unsigned)(((uint64_t)(65536 - p) * (uint32_t)w->boost) >> 16);
		n -= (unsigned)(((uint64_t)(n - 1) * (uint32_t)w->boost) >> 16);
	} else if (w->boost < 0) {
		p -= (unsigned)(((uint64_t)p * (uint32_t)-w->boost) >> 16);
	}
	x = tnext(&w->r);
	if ((x >> 48) >= p)
		return 0;
	*save = w->r;
	w->r.s = rng_mix64(w->key ^ salt ^ skewed(x, n));
	return 1;
}

void text_put_chars(struct tw *w, char c, size_t n)
{
	memset(w->p, c, n);
	w->p += n;
}

void text_put_dec(struct tw *w, uint64_t v, unsigned digits)
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

void text_put_number(struct tw *w)
{
	uint64_t x;
	unsigned k;

	if (text_fresh_draw(w)) {
		uint8_t t[WMAX];

		put_mem(w, (const char *)t, text_fresh_number(w, t));
		return;
	}
	x = tnext(&w->r);
	k = (unsigned)(x & 15);

	text_put_dec(w, below(x, k < 9 ? 17 : k < 14 ? 1000 : 65536), 1);
}

void text_tw_open(struct tw *w, const struct content_model *cm, uint64_t key, uint64_t unit,
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
	memset(&w->rc, 0, sizeof(w->rc));
	w->boost = 0;
	w->fresh = 0;
	w->fseq = 0;
	w->narrow = 0;
	w->nrecent = 0;
	/* a document's line width: 64..80, or none (paragraphs on one line) */
	w->width = (d & 7) == 0 ? 1u << 30 : 64 + (unsigned)((d >> 8) % 17);
	for (unsigned i = 0; i < NTOPIC; i++) {
		uint64_t h = rng_mix64(key ^ (SALT_TOPIC + i));

		w->topic[i] = span ? TOPIC_LO + (uint32_t)below(h, span) : TOPIC_AT + i;
	}
	w->rep = zipf_rank(tm, rng_mix64(key ^ SALT_REP));
	w->pos = unit >= UINT64_MAX / UNIT_WORDS ? 0 : unit * UNIT_WORDS;
	w->hk = w->pos ? HEAPS0_N : 0;
	heaps_update(w);
}

/* ------------------------------------------------------------------------- */
/* Text of an exact length */

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
	text_put_chars(w, fl & T_NL ? '\n' : ' ', n);
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
 * Words drawn ahead.  A word's draws (its rank, the Heaps and narrowing
 * state, whether it is fresh) never depend on the bytes written or the
 * column, only the room check after them does.  So while the room left
 * surely holds a word of the longest kind (BATCH_WORD: separator, WMAX
 * letters, punctuation) for each of the next k words of the sentence,
 * with a paragraph's break and the reserve after them, those k words are
 * drawn first, in the same order, and written after: the draws no longer
 * wait on the stores, whose byte pointer may alias the writer.
 */
#define BATCH_WORD	(1u + WMAX + 1u)
#define BATCH_MAX	24u	/* the longest sentence: 3 + 3 * 7 words */

struct drawn {
	uint64_t x;                 /* the word's first draw (punctuation) */
	uint32_t r;                 /* its rank, or UINT32_MAX: fresh token i */
	uint32_t l;
};

/* The wyrand output of state s (tnext() after its add). */
static inline uint64_t wymix(uint64_t s)
{
	unsigned __int128 m = (unsigned __int128)s * (s ^ WY_P1);

	return (uint64_t)m ^ (uint64_t)(m >> 64);
}

/*
 * Draw the next k words as text_put_text()'s loop does, fresh tokens into
 * tok.  Words of the model without narrowing or fresh tokens (the default)
 * are drawn by draw_word()'s steps on locals.  The table reads of a word
 * (alias column, slot) are independent of the other words', so the core
 * overlaps them without help.  The word-at-a-time loop prefetched the
 * tables for the stream's values 7 and 20 draws ahead; that cost more
 * than it saved once the draws no longer wait on the stores (without it:
 * code +8 %, narrowed or fresh text +10 to 17 %), so it is gone.  Only
 * the drawn word's slot is prefetched, for the copy after.
 */
static void draw_ahead(struct tw *w, struct drawn *d, unsigned k, uint8_t (*tok)[WMAX])
{
	const struct text_model *tm = w->tm;
	const uint8_t *const lens = tm->len;

	if (tm->mode == TEXT_WORDS && !w->narrow && !w->fresh) {
		const uint32_t *const alias = tm->alias;
		const uint64_t nw = tm->n;
		uint64_t s = w->r.s, pos = w->pos;

		for (unsigned i = 0; i < k; i++) {
			uint64_t x = wymix(s += WY_P0), c = ((x >> 32) * nw) >> 32;
			uint32_t e = alias[c];
			uint32_t r = ((x >> 16) & 0xFFFF) < (e & 0xFFFF) ? (uint32_t)c : e >> 16;

			if (r >= w->vcur) {
				uint64_t span = w->vcur - w->vhalf;

				r = w->vhalf + (uint32_t)(((wymix(s += WY_P0) >> 32) * span) >> 32);
			}
			if (r - TOPIC_AT < NTOPIC)
				r = w->topic[r - TOPIC_AT];
			if (++pos >= w->pos_next) {
				w->pos = pos;
				heaps_update(w);
			}
			__builtin_prefetch(tm->slot[r]);
			d[i].x = x;
			d[i].r = r;
			d[i].l = lens[r];
		}
		w->r.s = s;
		w->pos = pos;
		return;
	}
	for (unsigned i = 0; i < k; i++) {
		d[i].x = tnext(&w->r);
		d[i].r = draw_word(w, d[i].x);
		d[i].l = lens[d[i].r];
		if (text_fresh_draw(w)) {
			memset(tok[i], 0, WMAX);
			d[i].l = text_fresh(w, tok[i]);
			d[i].r = UINT32_MAX;
		}
	}
}

/*
 * The writer's position, column and the model's tables are kept in
 * locals: a store through a byte pointer may alias any field, so through
 * w they were loaded again after every byte written.  w->p and w->col
 * are given back before anything else reads them (text_finish, return).
 */
void text_put_text(struct tw *w, size_t n, unsigned fl)
{
	const struct text_model *tm = w->tm;
	const uint8_t(*const slot)[WMAX] = (const uint8_t(*)[WMAX])tm->slot;
	const uint8_t *const lens = tm->len;
	uint8_t *p = w->p, *const end = p + n;
	const unsigned tail = text_tail(fl), width = fl & T_WRAP ? w->width : UINT_MAX / 2;
	const size_t reserve = WFIN + 2 + tail;
	const int plain = (fl & T_PLAIN) != 0, caps = (fl & T_CAPS) != 0;
	unsigned left = 0, sents = 0, col = w->col;
	int sep = 0, cap = 0, rec = 0, fresh;
	uint8_t tok[WMAX];
	struct trng save;

	for (;;) {
		size_t room = (size_t)(end - p);
		unsigned l, punct = 0, para = 0;
		uint64_t x;
		uint32_t r;

		if (!left) {
			text_recur_end(w, rec, &save);
			if ((fl & T_STOP) && p >= w->stop)
				break;
			if (room < reserve) {
				w->p = p;
				w->col = col;
				text_finish(w, room, fl, sep, !plain);
				return;
			}
			rec = w->rc.sp && text_recur_begin(w, w->rc.sp, w->rc.sn, SALT_SENT, &save);
			x = tnext(&w->r);
			left = 3 + (unsigned)(x & 7) + (unsigned)((x >> 3) & 7) +
			       (unsigned)((x >> 6) & 7);
			if (!sents)
				sents = 1 + (unsigned)((x >> 9) % 6);
			cap = !plain;
		}
		if (room >= reserve + 2 + 2 * BATCH_WORD) {
			struct drawn d[BATCH_MAX];
			uint8_t btok[BATCH_MAX][WMAX];
			unsigned k = (unsigned)MIN((size_t)left, (room - reserve - 2) / BATCH_WORD);

			draw_ahead(w, d, k, btok);
			for (unsigned i = 0; i < k; i++, left--) {
				l = d[i].l;
				x = d[i].x;
				punct = 0;
				para = 0;
				if (left == 1) {
					punct = !plain;
					if ((fl & T_PARA) && --sents == 0)
						para = 2;
				} else if (!plain && (x & 15) == 0) {
					punct = 1;
				}
				if (sep) {
					if (col + 1 + l + punct > width) {
						*p++ = '\n';
						col = 0;
					} else {
						*p++ = ' ';
						col++;
					}
				}
				if (d[i].r == UINT32_MAX) {
					memcpy(p, btok[i], WMAX);
				} else {
					memcpy(p, slot[d[i].r], WMAX);
					if (cap || caps)
						p[0] -= 'a' - 'A';
				}
				p += l;
				col += l + punct;
				if (punct) {
					unsigned e = (unsigned)(x >> 3) & 31;

					*p++ = left > 1 ? ',' : e == 0 ? '?' : e == 1 ? '!' : '.';
				}
				sep = 1;
				if (para) {
					*p++ = '\n';
					*p++ = '\n';
					col = 0;
					sep = 0;
				}
				cap = 0;
			}
			continue;
		}
		x = tnext(&w->r);
		r = draw_word(w, x);
		l = lens[r];
		fresh = text_fresh_draw(w);
		if (fresh)
			l = text_fresh(w, tok);
		if (left == 1) {
			punct = !plain;
			if ((fl & T_PARA) && --sents == 0)
				para = 2;
		} else if (!plain && (x & 15) == 0) {
			punct = 1;
		}
		if (room < sep + l + punct + para + reserve) {
			w->p = p;
			w->col = col;
			text_finish(w, room, fl, sep, cap);
			text_recur_end(w, rec, &save);
			return;
		}
		/* put_sep(), put_mem() and put_rank() on the locals */
		if (sep) {
			if (col + 1 + l + punct > width) {
				*p++ = '\n';
				col = 0;
			} else {
				*p++ = ' ';
				col++;
			}
		}
		if (fresh) {
			memcpy(p, tok, l);
		} else {
			memcpy(p, slot[r], WMAX);
			if (cap || caps)
				p[0] -= 'a' - 'A';
		}
		p += l;
		col += l + punct;
		if (punct) {
			unsigned e = (unsigned)(x >> 3) & 31;

			*p++ = left > 1 ? ',' : e == 0 ? '?' : e == 1 ? '!' : '.';
		}
		sep = 1;
		if (para) {
			*p++ = '\n';
			*p++ = '\n';
			col = 0;
			sep = 0;
		}
		cap = 0;
		left--;
	}
	w->p = p;
	w->col = col;
}

void text_put_phrase(struct tw *w, unsigned lo, unsigned hi, unsigned fl)
{
	text_put_text(w, lo + below(tnext(&w->r), hi - lo + 1), T_PLAIN | fl);
}

int text_blocks(struct tw *w, const uint8_t *end, size_t room, size_t keep,
		void (*block)(struct tw *w, const uint8_t *end, void *ctx), void *ctx)
{
	for (;;) {
		uint8_t *mark = w->p;
		struct trng save;
		int rec;

		if (w->p >= w->stop)
			return 0;

		if (end - w->p < (ptrdiff_t)room)
			return 1;
		rec = text_recur_begin(w, w->rc.bp, w->rc.bn, SALT_BLOCK, &save);
		block(w, end, ctx);
		text_recur_end(w, rec, &save);
		if (end - w->p < (ptrdiff_t)keep) {
			w->p = mark;
			return 1;
		}
	}
}

void text_comment_lines(struct tw *w, size_t n, const char *indent, const char *pre,
			const char *post)
{
	size_t fixed = strlen(indent) + strlen(pre) + strlen(post) + 1;

	while (n) {
		size_t len;

		if (n < fixed + 2) {
			text_put_chars(w, '\n', n);
			return;
		}
		len = 40 + below(tnext(&w->r), 39);
		if (len < fixed + 2)
			len = fixed + 2;
		if (n < len + fixed + 12)
			len = n;
		put_str(w, indent);
		put_str(w, pre);
		text_put_text(w, len - fixed, 0);
		put_str(w, post);
		put_ch(w, '\n');
		n -= len;
	}
}

/* ------------------------------------------------------------------------- */
/* Dates */

void text_civil(int64_t days, int64_t *y, unsigned *m, unsigned *d)
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

const char *const text_month_abbr[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
};

void text_put_date(struct tw *w)
{
	int64_t y;
	unsigned m, d;

	text_civil(10957 + (int64_t)below(tnext(&w->r), 9497), &y, &m, &d);
	text_put_dec(w, (uint64_t)y, 4);
	put_ch(w, '-');
	text_put_dec(w, m, 2);
	put_ch(w, '-');
	text_put_dec(w, d, 2);
}
