/* names_int.h - inside the name generator: what names*.c share (not for other modules) */
#ifndef IMPRINT_MODEL_NAMES_INT_H
#define IMPRINT_MODEL_NAMES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/names.h"
#include "util/rng.h"
#include "util/util.h"

/* Longest stem a pattern writes; the rest of NAME_MAX_LEN is for the tail */
#define STEM_MAX 200
/* Longest extension kept; the tail may add a version (".so.12.3.4") */
#define EXT_MAX	 64
#define TAIL_MAX (EXT_MAX + 24)

/* A non-ASCII word, lower-case and capitalised */
struct uword {
	const char *lower;
	const char *cap;
};

/* A word list and its length, most common first (names_pick()) */
struct vocab {
	const char *const *w;
	unsigned n;
};

#define VOCAB(a)                           \
	{                                  \
		a, (unsigned)ARRAY_SIZE(a) \
	}

/* A bounded writer; a piece that does not fit whole is dropped whole */
struct nb {
	char *p;
	size_t len;
	size_t cap;
};

enum wcase { WC_LOWER, WC_CAP, WC_UPPER };

/* The random stream of one name and what the name must honour */
struct draw {
	struct rng r;
	bool space;	/* the name must hold a space; else it holds none */
	bool utf8;	/* the name must hold a non-ASCII word; else none */
	bool upper;	/* the name must hold an ASCII capital; else none */
	bool utf8_todo; /* no non-ASCII word written yet */
	bool noext;	/* a file without extension: no '.' in the stem */
	bool ext_upper; /* the pattern wants the extension in capitals */
	bool tail_set;	/* the pattern wrote tail itself */
	char ext[EXT_MAX + 1];
	size_t ext_len;
	char tail[TAIL_MAX];
	size_t tail_len;
};

#define PICK_FLAT(d, a) names_pick_flat(d, a, (unsigned)ARRAY_SIZE(a))

/* A date and time drawn for a name */
struct when {
	unsigned y, mo, dd, h, mi, s;
};

/* Case and separator of a phrase (names_choose_style()) */
enum pcase { PC_LOWER, PC_FIRST, PC_TITLE, PC_CAMEL, PC_UPPER };
enum sepstyle { SEP_MIX, SEP_SNAKE, SEP_KEBAB, SEP_JOIN };

struct pstyle {
	char sep; /* between words; 0 runs them together */
	enum pcase pc;
};

/* The language of a source file name (names_pat_code()) */
enum lang { LANG_C, LANG_PY, LANG_JS, LANG_GO, LANG_RS, LANG_OTHER };

/* ---- names_words.c: word lists */

/* Lists the patterns draw from directly; the sizes are checked where they are defined. */
extern const char *const abbrevs[48];
extern const char *const asset_suffixes[16];
extern const char *const noext_known[52];
extern const char *const commands[100];
extern const char *const dir_names[104];
extern const char *const dir_names_cap[48];
extern const struct uword utf8_words[55];
extern const struct vocab v_tech;
extern const struct vocab v_gen;
extern const struct vocab v_win;
extern const struct vocab v_ui;
extern const struct vocab v_doc;
extern const struct vocab v_song;

/*
 * ---- names_draw.c: writer, draws and phrases
 *
 * names_nb_*() append to a bounded writer (a piece that does not fit is
 * dropped whole); names_below(), names_chance(), names_pick*() and
 * names_draw_*() draw from the name's stream; the phrase helpers write
 * words in a drawn case and separator.
 */
void names_nb_putc(struct nb *b, char ch);
void names_nb_put(struct nb *b, const char *s);
void names_nb_word(struct nb *b, const char *w, enum wcase c);
void names_nb_num(struct nb *b, uint64_t v, int width);
unsigned names_below(struct draw *d, unsigned n);
bool names_chance(struct draw *d, unsigned pct);
const char *names_pick(struct draw *d, const struct vocab *v);
const char *names_pick_flat(struct draw *d, const char *const *list, unsigned n);
unsigned names_draw_year(struct draw *d);
void names_draw_when(struct draw *d, struct when *t);
void names_nb_ymd(struct nb *b, const struct when *t, char sep);
void names_nb_hms(struct nb *b, const struct when *t, char sep);
void names_nb_version(struct nb *b, struct draw *d);
void names_nb_hex(struct nb *b, struct draw *d, unsigned n, bool upper);
void names_nb_token(struct nb *b, struct draw *d, unsigned n, bool mixed);
void names_choose_style(struct draw *d, enum sepstyle ss, struct pstyle *st);
enum wcase names_word_case(const struct pstyle *st, unsigned i);
void names_put_styled(struct nb *b, const struct pstyle *st, unsigned i, const char *w);
void names_put_utf8_word(struct nb *b, struct draw *d, enum wcase c);
void names_put_words(struct nb *b, struct draw *d, const struct vocab *v, unsigned first, unsigned n,
		     const struct pstyle *st);
unsigned names_draw_nwords(struct draw *d, unsigned lo, unsigned hi);
void names_phrase(struct nb *b, struct draw *d, const struct vocab *v, unsigned lo, unsigned hi,
		  enum sepstyle ss, struct pstyle *st);
void names_maybe_number(struct nb *b, struct draw *d, const struct pstyle *st, unsigned pct);
void names_generic(struct nb *b, struct draw *d, const struct vocab *v, enum sepstyle ss,
		   unsigned num_pct);
const struct vocab *names_mixed_vocab(struct draw *d);
bool names_plain(const struct draw *d);
void names_set_tail(struct draw *d, const char *s);

/* ---- names_shape.c: the stem (in b, the tail already made) brought to c's shape */
void names_shape(struct nb *b, struct draw *d, const struct name_cfg *c, enum name_kind kind,
		 uint64_t id, unsigned variant);

/* ---- names_pattern.c: patterns by type, each writing a stem for its class of extension */

/* Fixed names of configuration and log files, for names_pat_fixed_or_words(). */
extern const char *const cfg_fixed[30];
extern const char *const log_fixed[24];

void names_pat_photo(struct nb *b, struct draw *d);
void names_pat_graphic(struct nb *b, struct draw *d, bool png);
void names_pat_shlib(struct nb *b, struct draw *d);
void names_pat_win(struct nb *b, struct draw *d, const char *lext);
void names_pat_code(struct nb *b, struct draw *d, enum lang lang);
void names_pat_oo(struct nb *b, struct draw *d, bool cls, bool cs);
void names_pat_temp(struct nb *b, struct draw *d);
void names_pat_audio(struct nb *b, struct draw *d, bool wav);
void names_pat_video(struct nb *b, struct draw *d);
void names_pat_doc(struct nb *b, struct draw *d);
void names_pat_text(struct nb *b, struct draw *d);
void names_pat_web(struct nb *b, struct draw *d);
void names_pat_fixed_or_words(struct nb *b, struct draw *d, const char *const *fixed, unsigned nfixed,
			      bool dated);
void names_pat_font(struct nb *b, struct draw *d);
void names_pat_archive(struct nb *b, struct draw *d, const char *lext);
void names_pat_compress(struct nb *b, struct draw *d);
void names_pat_object(struct nb *b, struct draw *d, const char *lext);
void names_pat_disk(struct nb *b, struct draw *d);
void names_pat_noext(struct nb *b, struct draw *d);
void names_pat_dir(struct nb *b, struct draw *d);

#endif
