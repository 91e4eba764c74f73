/* names_draw.c - the pieces names are built of: a bounded writer, random draws, phrases */
#include <stdbool.h>
#include <string.h>

#include "model/names_int.h"

/* ---- output buffer ----------------------------------------------------- */

void names_nb_putc(struct nb *b, char ch)
{
	if (b->len < b->cap)
		b->p[b->len++] = ch;
}

void names_nb_put(struct nb *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n > b->cap)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void names_nb_word(struct nb *b, const char *w, enum wcase c)
{
	size_t n = strlen(w);

	if (b->len + n > b->cap)
		return;
	for (size_t i = 0; i < n; i++) {
		char ch = w[i];

		if ((c == WC_UPPER || (c == WC_CAP && i == 0)) && ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		b->p[b->len++] = ch;
	}
}

/* Decimal, zero-padded to width */
void names_nb_num(struct nb *b, uint64_t v, int width)
{
	char t[24];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width && n < (int)sizeof(t))
		t[n++] = '0';
	if (b->len + (size_t)n > b->cap)
		return;
	while (n)
		b->p[b->len++] = t[--n];
}

/* ---- draws ------------------------------------------------------------- */

unsigned names_below(struct draw *d, unsigned n)
{
	return (unsigned)rng_below(&d->r, n);
}

bool names_chance(struct draw *d, unsigned pct)
{
	return names_below(d, 100) < pct;
}

const char *names_pick(struct draw *d, const struct vocab *v)
{
	unsigned a = names_below(d, v->n), c = names_below(d, v->n);

	return v->w[a < c ? a : c];
}

const char *names_pick_flat(struct draw *d, const char *const *list, unsigned n)
{
	return list[names_below(d, n)];
}

unsigned names_draw_year(struct draw *d)
{
	unsigned a = names_below(d, 28), c = names_below(d, 28);

	return 2025 - (a < c ? a : c);
}

void names_draw_when(struct draw *d, struct when *t)
{
	uint64_t x = rng_next(&d->r);

	t->y = names_draw_year(d);
	t->mo = 1 + (unsigned)(x % 12);
	x /= 12;
	t->dd = 1 + (unsigned)(x % 28);
	x /= 28;
	t->h = (unsigned)(x % 24);
	x /= 24;
	t->mi = (unsigned)(x % 60);
	x /= 60;
	t->s = (unsigned)(x % 60);
}

/* Three numbers of the given widths, sep between them unless sep is 0. */
static void nb_three(struct nb *b, const unsigned v[3], const int width[3], char sep)
{
	for (int i = 0; i < 3; i++) {
		if (i && sep)
			names_nb_putc(b, sep);
		names_nb_num(b, v[i], width[i]);
	}
}

/* 2021-05-14 (sep '-') or 20210514 (sep 0) */
void names_nb_ymd(struct nb *b, const struct when *t, char sep)
{
	static const int width[3] = { 4, 2, 2 };

	nb_three(b, (const unsigned[3]){ t->y, t->mo, t->dd }, width, sep);
}

/* 12.03.44, 12-03-44 or 120344 */
void names_nb_hms(struct nb *b, const struct when *t, char sep)
{
	static const int width[3] = { 2, 2, 2 };

	nb_three(b, (const unsigned[3]){ t->h, t->mi, t->s }, width, sep);
}

/* 1.2, 1.2.3, 0.31.4: majors small, as in real version numbers */
void names_nb_version(struct nb *b, struct draw *d)
{
	unsigned a = names_below(d, 13), c = names_below(d, 13);

	names_nb_num(b, a < c ? a : c, 0);
	names_nb_putc(b, '.');
	names_nb_num(b, names_below(d, names_below(d, 40) + 1), 0);
	if (names_chance(d, 60)) {
		names_nb_putc(b, '.');
		names_nb_num(b, names_below(d, 20), 0);
	}
}

void names_nb_hex(struct nb *b, struct draw *d, unsigned n, bool upper)
{
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	uint64_t bits = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!(i & 15))
			bits = rng_next(&d->r);
		names_nb_putc(b, dig[bits & 15]);
		bits >>= 4;
	}
}

/* Random token as mkstemp or Python's tempfile make them */
void names_nb_token(struct nb *b, struct draw *d, unsigned n, bool mixed)
{
	static const char lower[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char mix[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *set = mixed ? mix : lower;
	unsigned k = mixed ? sizeof(mix) - 1 : sizeof(lower) - 1;

	for (unsigned i = 0; i < n; i++)
		names_nb_putc(b, set[names_below(d, k)]);
}

/* ---- phrases ----------------------------------------------------------- */

/*
 * Separator and case of a phrase: a space when the name must hold one,
 * capitals only when it must hold them.
 */
void names_choose_style(struct draw *d, enum sepstyle ss, struct pstyle *st)
{
	unsigned r = names_below(d, 100);

	if (d->space) {
		st->sep = ' ';
	} else {
		switch (ss) {
		case SEP_SNAKE:
			st->sep = r < 88 ? '_' : '-';
			break;
		case SEP_KEBAB:
			st->sep = r < 75 ? '-' : '_';
			break;
		case SEP_JOIN:
			st->sep = r < 80 ? 0 : '_';
			break;
		default:
			st->sep = r < 58 ? '_' : r < 92 ? '-' : r < 97 ? 0 : '.';
			break;
		}
		if (st->sep == '.' && d->noext)
			st->sep = '_';
	}
	st->pc = PC_LOWER;
	if (!d->upper)
		return;
	r = names_below(d, 100);
	if (d->space)
		st->pc = r < 55 ? PC_TITLE : PC_FIRST;
	else if (r < 40 || (st->sep == 0 && r < 90))
		st->pc = PC_CAMEL;
	else if (r < 75)
		st->pc = PC_FIRST;
	else if (r < 90)
		st->pc = PC_TITLE;
	else
		st->pc = PC_UPPER;
	if (st->pc == PC_CAMEL)
		st->sep = 0;
}

enum wcase names_word_case(const struct pstyle *st, unsigned i)
{
	switch (st->pc) {
	case PC_FIRST:
		return i ? WC_LOWER : WC_CAP;
	case PC_TITLE:
	case PC_CAMEL:
		return WC_CAP;
	case PC_UPPER:
		return WC_UPPER;
	default:
		return WC_LOWER;
	}
}

/* Word i of a phrase, with its separator */
void names_put_styled(struct nb *b, const struct pstyle *st, unsigned i,
		      const char *w)
{
	if (i && st->sep)
		names_nb_putc(b, st->sep);
	names_nb_word(b, w, names_word_case(st, i));
}

void names_put_utf8_word(struct nb *b, struct draw *d, enum wcase c)
{
	const struct uword *u = &utf8_words[names_below(d, ARRAY_SIZE(utf8_words))];

	names_nb_put(b, c == WC_LOWER ? u->lower : u->cap);
	d->utf8_todo = false;
}

/*
 * Words first..first+n-1 of a phrase from v; one of them becomes a non-ASCII
 * word when the name still needs one.
 */
void names_put_words(struct nb *b, struct draw *d, const struct vocab *v,
		     unsigned first, unsigned n, const struct pstyle *st)
{
	unsigned upos = d->utf8_todo ? first + names_below(d, n) : ~0u;
	/* a non-ASCII word is not run into lower-case ones: token_файлы */
	bool apart = !st->sep && st->pc != PC_CAMEL;
	const char *prev = NULL;

	for (unsigned i = first; i < first + n; i++) {
		if (i == upos) {
			if (i && (st->sep || apart))
				names_nb_putc(b, st->sep ? st->sep : '_');
			names_put_utf8_word(b, d, names_word_case(st, i));
		} else {
			const char *w = names_pick(d, v);

			/* "dog_dog" is a draw, not a name */
			if (w == prev)
				w = names_pick(d, v);
			prev = w;
			if (i && i == upos + 1 && apart)
				names_nb_putc(b, '_');
			names_put_styled(b, st, i, w);
		}
	}
}

/* Words in a name: 1 35%, 2 40%, 3 20%, 4 5% (stems of about 12 bytes) */
unsigned names_draw_nwords(struct draw *d, unsigned lo, unsigned hi)
{
	static const unsigned char dist[20] = {
		1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4,
	};
	unsigned n = dist[names_below(d, 20)];

	/* a space needs two words; so does a capital beside a non-ASCII word */
	if ((d->space || (d->utf8_todo && d->upper)) && lo < 2)
		lo = 2;
	if (hi < lo)
		hi = lo;
	return n < lo ? lo : n > hi ? hi : n;
}

/* A phrase of lo..hi words from v; returns its style for what follows */
void names_phrase(struct nb *b, struct draw *d, const struct vocab *v,
		  unsigned lo, unsigned hi, enum sepstyle ss, struct pstyle *st)
{
	unsigned n = names_draw_nwords(d, lo, hi);

	names_choose_style(d, ss, st);
	names_put_words(b, d, v, 0, n, st);
}

/* Sometimes a number after a phrase: notes_2, Word64, trip 2019, draft-v3 */
void names_maybe_number(struct nb *b, struct draw *d, const struct pstyle *st,
			unsigned pct)
{
	unsigned r;

	if (!names_chance(d, pct))
		return;
	r = names_below(d, 10);
	if (st->sep)
		names_nb_putc(b, st->sep);
	else if (r >= 6 && r < 8)
		names_nb_putc(b, '_');
	switch (r) {
	case 0: case 1: case 2: case 3:
		names_nb_num(b, 1 + names_below(d, 9), 0);
		break;
	case 4: case 5:
		names_nb_num(b, 1 + names_below(d, 99), 2);
		break;
	case 6: case 7:
		names_nb_num(b, names_draw_year(d), 4);
		break;
	case 8:
		names_nb_putc(b, d->upper && st->pc != PC_LOWER && names_chance(d, 30) ? 'V' : 'v');
		names_nb_num(b, 1 + names_below(d, 4), 0);
		break;
	default:
		names_nb_num(b, names_below(d, 1000), 0);
		break;
	}
}

void names_generic(struct nb *b, struct draw *d, const struct vocab *v,
		   enum sepstyle ss, unsigned num_pct)
{
	struct pstyle st;

	names_phrase(b, d, v, 1, 3, ss, &st);
	names_maybe_number(b, d, &st, num_pct);
}

/* Either vocabulary, half and half */
const struct vocab *names_mixed_vocab(struct draw *d)
{
	return names_chance(d, 50) ? &v_tech : &v_gen;
}

bool names_plain(const struct draw *d)
{
	return !d->space && !d->utf8_todo;
}

void names_set_tail(struct draw *d, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(d->tail))
		n = sizeof(d->tail) - 1;
	memcpy(d->tail, s, n);
	d->tail_len = n;
	d->tail_set = true;
}
