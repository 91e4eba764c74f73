/* model.c - the content model's data: the vocabulary by popularity rank, the plan's targets */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/model.h"
#include "model/params.h"
#include "plan/plan.h"
#include "util/rng.h"

#define WMAX CONTENT_WORD_MAX
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Size of the built-in lexicon, about that of the filtered Debian list (63,875). */
#define LEXICON_WORDS 60000

/* Longest word list read: the Debian lists are about 1 MB. */
#define WORDLIST_MAX (64u << 20)

/*
 * The most frequent English words, most frequent first (the usual
 * function words and the commonest content words of written English).
 * They take the top ranks in that order, so that the head of the Zipf
 * law, which holds half of all word occurrences, reads like English
 * whichever list supplies the rest.  The built-in lexicon includes them.
 */
static const char *const common_words[] = {
	"the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "was", "on",
	"with", "as", "he", "be", "by", "at", "this", "have", "from", "or", "are",
	"not", "but", "had", "his", "they", "you", "which", "an", "were", "her",
	"she", "all", "one", "there", "their", "we", "been", "has", "would", "will",
	"can", "if", "more", "when", "who", "so", "no", "what", "about", "said",
	"out", "up", "them", "some", "could", "him", "into", "its", "then", "two",
	"time", "only", "do", "than", "other", "new", "may", "these", "first",
	"any", "my", "now", "such", "like", "our", "over", "man", "me", "even",
	"most", "made", "after", "also", "did", "many", "before", "must",
	"through", "years", "where", "much", "your", "way", "well", "down",
	"should", "because", "each", "just", "those", "people", "how", "too",
	"little", "state", "good", "very", "make", "world", "still", "own", "see",
	"men", "work", "long", "get", "here", "between", "both", "life", "being",
	"under", "never", "day", "same", "another", "know", "while", "last",
	"might", "us", "great", "old", "year", "off", "come", "since", "against",
	"go", "came", "right", "used", "take", "three", "himself", "few", "house",
	"use", "during", "without", "again", "place", "around", "however", "home",
	"small", "found", "thought", "went", "say", "part", "once", "general",
	"high", "upon", "school", "every", "does", "got", "united", "left",
	"number", "course", "war", "until", "always", "away", "something", "fact",
	"though", "water", "less", "public", "put", "think", "almost", "hand",
	"enough", "far", "took", "head", "yet", "government", "system", "better",
	"set", "told", "nothing", "night", "end", "why", "called",
	"find", "going", "look", "asked", "later", "knew", "point", "next",
	"program", "city", "business", "give", "group", "toward", "young", "days",
	"let", "room", "president", "side", "social", "given", "present", "several",
	"order", "national", "possible", "rather", "second", "face", "per", "among",
	"form", "important", "often", "things", "looked", "early", "white", "case",
	"become", "large", "big", "need", "four", "within", "felt", "along",
	"children", "saw", "best", "church", "ever", "least", "power",
	"development", "light", "thing", "family", "interest", "want", "members",
	"mind", "country", "area", "others", "done", "turned", "although", "open",
	"god", "service", "certain", "kind", "problem", "began", "different",
	"door", "thus", "help", "means", "sense", "whole", "matter", "perhaps",
	"itself", "times", "law", "human", "line", "above", "name",
	"example", "action", "company", "local", "show", "whether", "five",
	"history", "gave", "either", "today", "act", "feet", "across", "taken",
	"past", "quite", "anything", "seen", "having", "death", "experience",
	"body", "word", "half", "really", "field", "am", "car", "words", "already",
	"themselves", "information", "tell", "together", "college", "shall",
	"money", "period", "held", "keep", "sure", "real", "probably", "free",
	"seems", "political", "cannot", "behind", "miss", "question", "air",
	"office", "making", "brought", "whose", "special", "major", "heard",
	"problems", "federal", "became", "study", "ago", "moment", "available",
	"known", "result", "street", "economic", "boy", "position", "reason",
	"change", "south", "board", "individual", "job", "areas", "society",
	"west", "close", "turn", "love", "community", "true", "court", "force",
	"full", "seem", "front", "nature", "policy", "research", "value",
};

/*
 * Words a system list holds that generated documents should not: common
 * profanity and slurs, by prefix and exactly.
 */
static const char *const blocked_prefix[] = {
	"fuck", "shit", "cunt", "nigg", "fagg", "whore", "slut", "bitch", "wank", "dildo",
	"jizz", "asshole", "bullshit", "motherfuck", "pussies", "pussy", "twat", "porn",
};
static const char *const blocked_word[] = {
	"fag", "fags", "dyke", "dykes", "kike", "kikes", "spic", "spics", "chink", "chinks",
	"gook", "gooks", "turd", "turds", "tit", "tits", "titty", "titties", "cum", "cums",
	"wop", "wops", "coon", "coons", "homo", "homos", "retard", "retards", "tranny",
};

/*
 * The blocked lists by first letter (bit i: entry i), with their lengths:
 * a word is checked against the few entries that start as it does.
 */
_Static_assert(NELEM(blocked_prefix) <= 32 && NELEM(blocked_word) <= 32,
	       "struct block_index holds 32 entries of each list");

struct block_index {
	uint32_t prefix[256], word[256];
	uint8_t prefix_len[NELEM(blocked_prefix)], word_len[NELEM(blocked_word)];
};

static void block_index_init(struct block_index *bi)
{
	memset(bi, 0, sizeof(*bi));
	for (size_t i = 0; i < NELEM(blocked_prefix); i++) {
		bi->prefix[(unsigned char)blocked_prefix[i][0]] |= UINT32_C(1) << i;
		bi->prefix_len[i] = (uint8_t)strlen(blocked_prefix[i]);
	}
	for (size_t i = 0; i < NELEM(blocked_word); i++) {
		bi->word[(unsigned char)blocked_word[i][0]] |= UINT32_C(1) << i;
		bi->word_len[i] = (uint8_t)strlen(blocked_word[i]);
	}
}

static int blocked(const struct block_index *bi, const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];

	for (uint32_t m = bi->prefix[c]; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);

		if (n >= bi->prefix_len[i] && !memcmp(s, blocked_prefix[i], bi->prefix_len[i]))
			return 1;
	}
	for (uint32_t m = bi->word[c]; m; m &= m - 1) {
		unsigned i = (unsigned)__builtin_ctz(m);

		if (bi->word_len[i] == n && !memcmp(s, blocked_word[i], n))
			return 1;
	}
	return 0;
}

/* FNV-1a of a word, for the lexicon's hash set and the rank keys. */
static uint64_t word_hash(const char *s, size_t n)
{
	uint64_t h = UINT64_C(0xCBF29CE484222325);

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= UINT64_C(0x100000001B3);
	}
	return h;
}

/*
 * Impressions' word-length model (reference file): F(L) = 11.74 L^3 0.4^L,
 * the share in percent of word occurrences of length L.
 */
static double wordlen_f(unsigned l)
{
	return 11.74 * l * l * l * pow(0.4, l);
}

/* A vocabulary being built: words as (offset, length) into one buffer. */
struct vocab {
	char *buf;
	size_t used, cap;
	uint32_t *off;
	uint8_t *len;
	size_t n, ncap;
};

static int vocab_add(struct vocab *v, const char *s, size_t n)
{
	if (v->used + n + 1 > v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 1 << 20;
		char *b;

		while (cap < v->used + n + 1)
			cap *= 2;
		b = realloc(v->buf, cap);
		if (!b)
			return -ENOMEM;
		v->buf = b;
		v->cap = cap;
	}
	if (v->n == v->ncap) {
		size_t ncap = v->ncap ? v->ncap * 2 : 1 << 16;
		uint32_t *o = realloc(v->off, ncap * sizeof(*o));
		uint8_t *l;

		if (!o)
			return -ENOMEM;
		v->off = o;
		l = realloc(v->len, ncap);
		if (!l)
			return -ENOMEM;
		v->len = l;
		v->ncap = ncap;
	}
	memcpy(v->buf + v->used, s, n);
	v->buf[v->used + n] = '\0';
	v->off[v->n] = (uint32_t)v->used;
	v->len[v->n] = (uint8_t)n;
	v->used += n + 1;
	v->n++;
	return 0;
}

static void vocab_free(struct vocab *v)
{
	free(v->buf);
	free(v->off);
	free(v->len);
	memset(v, 0, sizeof(*v));
}

static int plain_word(const char *s, size_t n)
{
	if (n < 1 || n > WMAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 'a' || s[i] > 'z')
			return 0;
	return 1;
}

/*
 * Words of 1 or 2 letters in a dictionary are mostly letters and
 * abbreviations ("b", "qt"): keep only those among the common words.
 */
static int is_common(const char *s, size_t n)
{
	for (size_t i = 0; i < sizeof(common_words) / sizeof(common_words[0]); i++)
		if (strlen(common_words[i]) == n && !memcmp(common_words[i], s, n))
			return 1;
	return 0;
}

/* Read the word list; 0 (words added), 1 (unreadable: use the lexicon) or -ENOMEM. */
static int load_wordlist(struct vocab *v, const char *path)
{
	/* close-on-exec: read while the backend may be starting mke2fs (core/pipeline.c) */
	FILE *f = fopen(path, "re");
	struct block_index bi;
	char *text;
	size_t n = 0;
	int ret = 0;

	if (!f)
		return 1;
	text = malloc(WORDLIST_MAX);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(text, 1, WORDLIST_MAX, f);
	if (ferror(f))
		ret = 1;
	fclose(f);
	block_index_init(&bi);
	for (size_t i = 0; !ret && i < n;) {
		const char *nl = memchr(text + i, '\n', n - i);
		size_t j = nl ? (size_t)(nl - text) : n;

		if (plain_word(text + i, j - i) && (j - i > 2 || is_common(text + i, j - i)) &&
		    !blocked(&bi, text + i, j - i))
			ret = vocab_add(v, text + i, j - i);
		i = j + 1;
	}
	free(text);
	if (!ret && v->n < 1000)
		ret = 1;	/* too few words to be a vocabulary */
	return ret;
}

/*
 * The built-in lexicon: the common words, then pseudo-words of one to four
 * syllables (onset, vowel, coda), drawn from a fixed stream so that every
 * machine without a word list makes the same ones.
 */
static const char *const onsets[] = {
	"", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "r", "s", "t",
	"v", "w", "y", "z", "bl", "br", "ch", "cl", "cr", "dr", "fl", "fr", "gl",
	"gr", "pl", "pr", "sc", "sh", "sl", "sm", "sn", "sp", "st", "str", "th",
	"tr", "wh", "qu",
};
static const char *const vowels[] = {
	"a", "e", "i", "o", "u", "a", "e", "i", "o", "ai", "ea", "ee", "ie", "oa",
	"oo", "ou", "y",
};
static const char *const codas[] = {
	"", "", "", "n", "r", "s", "t", "l", "m", "nd", "nt", "st", "ck", "ng",
	"rt", "ll", "ss", "th", "x", "ph",
};

static int lexicon(struct vocab *v)
{
	size_t cap = 1 << 17;	/* hash set of offsets + 1, load below one half */
	uint32_t *set = calloc(cap, sizeof(*set));
	uint64_t key = rng_stream_key(0, "content.lexicon");
	struct block_index bi;
	int ret = 0;

	if (!set)
		return -ENOMEM;
	block_index_init(&bi);
	for (size_t i = 0; i < NELEM(common_words) + (1u << 22) && v->n < LEXICON_WORDS; i++) {
		char w[64];
		size_t n = 0, h;
		struct rng r;

		if (i < NELEM(common_words)) {
			n = strlen(common_words[i]);
			memcpy(w, common_words[i], n);
		} else {
			unsigned syl;

			rng_open(&r, key, i);
			/* one draw a statement: the order in one expression is the compiler's */
			syl = 1 + (unsigned)rng_below(&r, 3);
			syl += rng_below(&r, 4) == 0;
			for (unsigned k = 0; k < syl; k++) {
				const char *o = onsets[rng_below(&r, NELEM(onsets))];
				const char *a = vowels[rng_below(&r, NELEM(vowels))];
				const char *c = codas[rng_below(&r, NELEM(codas))];

				n += (size_t)sprintf(w + n, "%s%s%s", o, a, c);
			}
			if (!plain_word(w, n) || n < 3 || blocked(&bi, w, n))
				continue;
		}
		h = word_hash(w, n) & (cap - 1);
		while (set[h] && (v->len[set[h] - 1] != n ||
				  memcmp(v->buf + v->off[set[h] - 1], w, n)))
			h = (h + 1) & (cap - 1);
		if (set[h])
			continue;
		ret = vocab_add(v, w, n);
		if (ret)
			break;
		set[h] = (uint32_t)v->n;
	}
	free(set);
	return ret;
}

/* Sorting context: qsort has none, and the buffer is per call. */
struct rank_item {
	const char *s;
	uint8_t len;
	int32_t common;	/* index in common_words, or -1 */
	double key;
};

/* The bits of a rank key: positive doubles order as these. */
static uint64_t key_bits(const struct rank_item *x)
{
	uint64_t b;

	memcpy(&b, &x->key, sizeof(b));
	return b;
}

static int cmp_text(const void *a, const void *b)
{
	const struct rank_item *x = a, *y = b;

	return strcmp(x->s, y->s);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct rank_item *x = a, *y = b;

	if (x->common >= 0 || y->common >= 0) {
		if (x->common < 0)
			return 1;
		if (y->common < 0)
			return -1;
		return (x->common > y->common) - (x->common < y->common);
	}
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return strcmp(x->s, y->s);
}

/*
 * Sort it[0, n), distinct words in text order, as qsort with cmp_rank
 * would, without a call a comparison: the common words (a few hundred) by
 * their place, then the others by a radix sort of their keys, positive
 * doubles ordered as their bits.  The radix sort is stable and the words
 * come in text order, so equal keys stay in text order as cmp_rank puts
 * them.  Returns 0 or -ENOMEM.
 */
static int rank_sort(struct rank_item *it, size_t n)
{
	struct rank_item *tmp = malloc((n ? n : 1) * sizeof(*tmp)), *src, *dst, *t;
	size_t nc = 0, no = 0;

	if (!tmp)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (it[i].common >= 0)
			tmp[nc++] = it[i];
	qsort(tmp, nc, sizeof(*tmp), cmp_rank);
	for (size_t i = 0; i < n; i++)
		if (it[i].common < 0)
			it[no++] = it[i];
	/* it[0, no): the others; tmp[0, nc): the common words, sorted */
	memmove(it + nc, it, no * sizeof(*it));
	memcpy(it, tmp, nc * sizeof(*it));
	src = it + nc;
	dst = tmp;
	for (unsigned sh = 0; sh < 64; sh += 8) {
		size_t cnt[256] = { 0 }, at = 0;

		for (size_t i = 0; i < no; i++)
			cnt[0xff & (key_bits(&src[i]) >> sh)]++;
		if (no && cnt[0xff & (key_bits(&src[0]) >> sh)] == no)
			continue;	/* one value of this byte: the order stays */
		for (unsigned d = 0; d < 256; d++) {
			size_t c = cnt[d];

			cnt[d] = at;
			at += c;
		}
		for (size_t i = 0; i < no; i++)
			dst[cnt[0xff & (key_bits(&src[i]) >> sh)]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != it + nc)
		memcpy(it + nc, src, no * sizeof(*it));
	free(tmp);
	return 0;
}

/*
 * Rank the vocabulary: the common words first, in their order; then the
 * others by a weighted random order with weight F(L) / n(L) for a word of
 * length L (n(L) words of that length), so that going down the ranks the
 * lengths follow Impressions' word-length law until a length runs out:
 * short words rank high, as in real text, without a frequency list.  The
 * random keys come from each word's text, so the order depends on the word
 * set only, not on its order in the file or on the seed.
 */
static int build_ranks(struct content_model *cm, struct vocab *v)
{
	struct rank_item *it = calloc(v->n + WMAX, sizeof(*it));
	size_t count[WMAX + 1] = { 0 }, n = 0, bytes = 0;
	double flen[WMAX + 1];
	char *buf = NULL, *at;
	const char **word = NULL;
	uint8_t *len = NULL;
	int ret = -ENOMEM;

	if (!it)
		return -ENOMEM;
	for (size_t i = 0; i < v->n; i++) {
		it[i].s = v->buf + v->off[i];
		it[i].len = v->len[i];
	}
	/* deterministic order, duplicates removed (a system list comes sorted already) */
	for (n = 1; n < v->n && strcmp(it[n - 1].s, it[n].s) <= 0; n++)
		;
	if (n < v->n)
		qsort(it, v->n, sizeof(*it), cmp_text);
	n = 0;
	for (size_t i = 0; i < v->n; i++)
		if (!n || strcmp(it[n - 1].s, it[i].s))
			it[n++] = it[i];
	for (size_t i = 0; i < n; i++)
		it[i].common = -1;
	for (size_t c = NELEM(common_words); c-- > 0;) {
		struct rank_item k = { .s = common_words[c] };
		struct rank_item *f = bsearch(&k, it, n, sizeof(*it), cmp_text);

		if (f)
			f->common = (int32_t)c;	/* downwards: a word keeps its first place */
	}
	for (size_t i = 0; i < n; i++)
		if (it[i].common < 0)
			count[it[i].len]++;
	for (unsigned l = 1; l <= WMAX; l++)
		flen[l] = wordlen_f(l);
	for (size_t i = 0; i < n; i++) {
		uint64_t h = word_hash(it[i].s, it[i].len) ^ UINT64_C(0x5851F42D4C957F2D);
		double u;

		h = rng_mix64(h);
		u = ((double)(h >> 11) + 0.5) * (1.0 / 9007199254740992.0);

		if (it[i].common < 0)
			it[i].key = -log(u) * (double)count[it[i].len] / flen[it[i].len];
	}
	if (rank_sort(it, n))
		goto out_free_all;
	if (n > CONTENT_WORDS_MAX - WMAX)
		n = CONTENT_WORDS_MAX - WMAX;	/* room for the lengths added below */

	/* every length must exist: the generators end lines with a word of an exact length */
	for (unsigned l = 1; l <= WMAX; l++) {
		int have = 0;
		static const char letters[] = "abcdefghijklmnopqrstuvwxyz";

		for (size_t i = 0; i < n && !have; i++)
			have = it[i].len == l;
		if (!have) {
			it[n].s = letters + 26 - l;	/* "z", "yz", ...: a last resort */
			it[n].len = (uint8_t)l;
			it[n].common = -1;
			n++;
		}
	}
	for (size_t i = 0; i < n; i++)
		bytes += it[i].len + 1u;
	buf = malloc(bytes);
	word = malloc(n * sizeof(*word));
	len = malloc(n);
	if (!buf || !word || !len)
		goto out_free_all;
	at = buf;
	for (size_t i = 0; i < n; i++) {
		memcpy(at, it[i].s, it[i].len);
		at[it[i].len] = '\0';
		word[i] = at;
		len[i] = it[i].len;
		at += it[i].len + 1;
	}
	cm->word_buf = buf;
	cm->word = word;
	cm->word_len = len;
	cm->nwords = n;
	free(it);
	return 0;

out_free_all:
	free(buf);
	free(word);
	free(len);
	free(it);
	return ret;
}

int content_model_data_init(struct content_model *cm, const struct plan *pl, const char *path)
{
	struct params def;
	const struct params *p = pl ? &pl->prm : &def;
	struct vocab v = { 0 };
	int ret = 1;

	memset(cm, 0, sizeof(*cm));
	if (!pl)
		params_init(&def);
	cm->pl = pl;
	cm->seed = rng_stream_key(p->seed, "content");
	cm->zipf_exponent = p->text_zipf;
	cm->text_mode = (int)p->text_mode;
	cm->compress_ratio = p->compress_ratio;
	cm->compress_ratio_exec = p->compress_ratio_exec;
	cm->dup_block_share = p->dup_block_share;
	cm->zero_block_share = p->zero_block_share;

	if (path)
		ret = load_wordlist(&v, path);
	if (ret == 1) {
		vocab_free(&v);
		ret = lexicon(&v);
		cm->vocab = "built-in";
	} else {
		cm->vocab = path;
	}
	if (!ret)
		ret = build_ranks(cm, &v);
	vocab_free(&v);
	if (ret)
		goto out_release;
	return 0;

out_release:
	content_model_data_release(cm);
	return ret;
}

void content_model_data_release(struct content_model *cm)
{
	free(cm->word_buf);
	free(cm->word);
	free((void *)cm->word_len);
	memset(cm, 0, sizeof(*cm));
}
