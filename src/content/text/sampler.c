/* sampler.c - the text part of the content model: the Zipf alias table and the words by length */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "content/model.h"
#include "content/text/text.h"
#include "content/text/lang.h"

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

/* Words of keywords[] for each first letter, a bit each. */
#define KW_SETS ((NELEM(keywords) + 63) / 64)

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
	for (uint32_t r = 0; r < n; r++) {
		q[r] = pow((double)r + 1, -s);
		mass += q[r];
	}
	for (uint32_t r = 0; r < n; r++) {
		q[r] = q[r] * n / mass;
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
		/* the keywords by first letter (a bit each): a word meets only those */
		uint64_t kwset[256][KW_SETS] = { { 0 } };
		uint8_t kwlen[NELEM(keywords)];

		for (size_t i = 0; i < NELEM(keywords); i++) {
			kwlen[i] = (uint8_t)strlen(keywords[i]);
			kwset[(unsigned char)keywords[i][0]][i / 64] |= UINT64_C(1) << (i % 64);
		}
		for (uint32_t r = 0; r < n; r++) {
			const uint64_t *set = kwset[(unsigned char)cm->word[r][0]];

			memcpy(tm->slot[r], cm->word[r], cm->word_len[r]);
			for (unsigned k = 0; k < KW_SETS && !tm->keyword[r]; k++)
				for (uint64_t m = set[k]; m; m &= m - 1) {
					size_t i = k * 64 + (size_t)__builtin_ctzll(m);

					if (kwlen[i] == cm->word_len[r] &&
					    !memcmp(keywords[i], cm->word[r], kwlen[i])) {
						tm->keyword[r] = 1;
						break;
					}
				}
		}
	}
	text_heaps_init(tm);
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
