/* test_text.c - text content: random access, sizes, Zipf and Heaps, shape, parsers, libmagic, dispatch */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include <json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <magic.h>

#include "content/source.h"
#include "content/registry.h"
#include "content/gen.h"
#include "content/setup.h"
#include "plan/plan.h"
#include "util/rng.h"
#include "util/words.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)

/* Every kind of text the generators write, by an extension that selects it. */
static const char *const text_exts[] = {
	"txt", "rst", "log", "csv", "tsv", "md", "ini", "yml", "htm", "json", "xml", "svg",
	"c", "h", "cpp", "hpp", "java", "cs", "js", "go", "rs", "php", "py", "sh", "pl",
	"rb", "css",
};

static struct content_model model;

static int setup(void **state)
{
	(void)state;
	return content_model_init(&model, NULL);
}

static int teardown(void **state)
{
	(void)state;
	content_model_release(&model);
	return 0;
}

static uint8_t *xmalloc(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	assert_non_null(p);
	return p;
}

static void fill(const struct content_model *cm, const char *ext, uint64_t key, uint64_t size,
		 uint64_t off, uint8_t *buf, size_t len)
{
	struct gen_file g = { .key = key, .file = 0, .size = size, .ext = ext, .cm = cm };
	const struct gen_ops *ops = content_ext_ops(ext);

	assert_int_equal(ops->fill(&g, off, buf, len), 0);
}

static uint8_t *whole(const struct content_model *cm, const char *ext, uint64_t key, uint64_t size)
{
	uint8_t *b = xmalloc((size_t)size + 1);

	fill(cm, ext, key, size, 0, b, (size_t)size);
	b[size] = '\0';
	return b;
}

/* Text: printable ASCII, tabs and line breaks only. */
static int is_text(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((b[i] >= 0x20 && b[i] < 0x7f) || b[i] == '\n' || b[i] == '\t'))
			return 0;
	return 1;
}

/* ------------------------------------------------------------------------- */
/* The vocabulary */

static void check_vocab(const struct content_model *cm)
{
	unsigned have[CONTENT_WORD_MAX + 1] = { 0 };

	assert_true(cm->nwords >= 1000);
	for (size_t r = 0; r < cm->nwords; r++) {
		size_t n = strlen(cm->word[r]);

		assert_int_equal(n, cm->word_len[r]);
		assert_true(n >= 1 && n <= CONTENT_WORD_MAX);
		for (size_t i = 0; i < n; i++)
			assert_true(cm->word[r][i] >= 'a' && cm->word[r][i] <= 'z');
		have[n]++;
	}
	for (unsigned l = 1; l <= CONTENT_WORD_MAX; l++)
		assert_true(have[l] > 0);
	assert_string_equal(cm->word[0], "the");
}

static void test_vocab(void **state)
{
	struct content_model a, b;

	(void)state;
	check_vocab(&model);
	if (access(CONTENT_WORDLIST, R_OK) == 0) {
		assert_string_equal(model.vocab, CONTENT_WORDLIST);
		assert_true(model.nwords > 50000);
	}
	/* the built-in lexicon: deterministic, about 60,000 words */
	assert_int_equal(content_model_init_words(&a, NULL, NULL), 0);
	assert_int_equal(content_model_init_words(&b, NULL, "/nonexistent/words"), 0);
	assert_string_equal(a.vocab, "built-in");
	assert_string_equal(b.vocab, "built-in");
	check_vocab(&a);
	assert_true(a.nwords >= 59000 && a.nwords <= 61000);
	assert_int_equal(a.nwords, b.nwords);
	for (size_t r = 0; r < a.nwords; r++)
		assert_string_equal(a.word[r], b.word[r]);
	content_model_release(&a);
	content_model_release(&b);
}

/* ------------------------------------------------------------------------- */
/* Random access, exact sizes, determinism */

static void test_random_access(void **state)
{
	static const uint64_t sizes[] = {
		1, 2, 3, 4, 5, 7, 9, 13, 16, 31, 64, 100, 127, 200, 333, 511, 1000, 4095,
		4096, 4097, 5000, 8191, 8193, 12345, 65536, 100003, MiB + 7, 3 * MiB,
	};
	struct rng r;

	(void)state;
	rng_init(&r, 1, "test.text.access", 0);
	for (size_t e = 0; e < sizeof(text_exts) / sizeof(text_exts[0]); e++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			uint64_t size = sizes[s], key = 1000 + s;
			uint8_t *a = whole(&model, text_exts[e], key, size);
			uint8_t *b = xmalloc((size_t)size);

			if (!is_text(a, (size_t)size))
				fail_msg("'%s' of %llu bytes is not text", text_exts[e],
					 (unsigned long long)size);
			/* sequential pieces of random lengths */
			for (uint64_t off = 0; off < size;) {
				size_t n = (size_t)(1 + rng_below(&r, 20000));

				if (n > size - off)
					n = (size_t)(size - off);
				fill(&model, text_exts[e], key, size, off, b + off, n);
				off += n;
			}
			if (memcmp(a, b, (size_t)size))
				fail_msg("'%s' of %llu bytes: pieces differ from the whole",
					 text_exts[e], (unsigned long long)size);
			/* random ranges */
			for (int i = 0; i < 24; i++) {
				uint64_t off = rng_below(&r, size);
				size_t n = (size_t)(1 + rng_below(&r, i < 12 ? 64 : 70000));

				if (n > size - off)
					n = (size_t)(size - off);
				fill(&model, text_exts[e], key, size, off, b, n);
				if (memcmp(a + off, b, n))
					fail_msg("'%s' of %llu bytes: range at %llu + %zu differs",
						 text_exts[e], (unsigned long long)size,
						 (unsigned long long)off, n);
			}
			free(a);
			free(b);
		}
	}
}

static void test_determinism(void **state)
{
	struct content_model other;

	(void)state;
	assert_int_equal(content_model_init(&other, NULL), 0);
	for (size_t e = 0; e < sizeof(text_exts) / sizeof(text_exts[0]); e++) {
		uint8_t *a = whole(&model, text_exts[e], 77, 200 * KiB);
		uint8_t *b = whole(&other, text_exts[e], 77, 200 * KiB);
		uint8_t *c = whole(&model, text_exts[e], 78, 200 * KiB);

		assert_memory_equal(a, b, 200 * KiB);
		assert_memory_not_equal(a, c, 200 * KiB);
		free(a);
		free(b);
		free(c);
	}
	content_model_release(&other);
}

/* Distinct words per KiB of b[0, n) as profile --content counts them (util/words.c). */
static double words_per_kib(const uint8_t *b, size_t n)
{
	struct words wd;
	double v;

	assert_int_equal(words_init(&wd), 0);
	words_reset(&wd);
	words_feed(&wd, b, n);
	v = 1024.0 * words_end(&wd) / (double)n;
	words_release(&wd);
	return v;
}

/*
 * gen_file.narrow: words drawn again from the unit's last few lower a
 * file's distinct words, more the higher it is; the bytes stay text of the
 * format, the same at any offset (a unit's ring starts with the unit).
 */
static void test_narrow(void **state)
{
	static const char *const exts[] = { "txt", "md", "c", "html", "json" };
	const uint64_t size = 96 * KiB;

	(void)state;
	for (size_t e = 0; e < sizeof(exts) / sizeof(exts[0]); e++) {
		const struct gen_ops *ops = content_ext_ops(exts[e]);
		uint8_t *plain = whole(&model, exts[e], 5, size), *b = xmalloc(size), *part = xmalloc(size);
		double v0 = words_per_kib(plain, size), prev = v0;

		for (uint32_t narrow = 16384; narrow <= 49152; narrow += 16384) {
			struct gen_file g = { .key = 5, .size = size, .ext = exts[e], .cm = &model,
					      .narrow = narrow };
			double v;

			assert_int_equal(ops->fill(&g, 0, b, size), 0);
			assert_true(is_text(b, size));
			v = words_per_kib(b, size);
			printf("# narrow %u/65536 .%s: %.1f distinct words per KiB (none: %.1f)\n",
			       narrow, exts[e], v, v0);
			assert_true(v < prev);
			prev = v;
			assert_int_equal(ops->fill(&g, 40000, part, 20000), 0);
			assert_memory_equal(part, b + 40000, 20000);
		}
		assert_true(prev < 0.8 * v0);
		free(plain);
		free(b);
		free(part);
	}
}

/* The endless stream: random access; without a text model, spaces. */
static void test_text_bytes(void **state)
{
	size_t n = 2 * MiB;
	uint8_t *a = xmalloc(n), *b = xmalloc(n);

	(void)state;
	gen_text_bytes(&model, 5, 0, a, n);
	assert_true(is_text(a, n));
	for (size_t off = 0; off < n; off += 777)
		gen_text_bytes(&model, 5, off, b + off, n - off < 777 ? n - off : 777);
	assert_memory_equal(a, b, n);
	gen_text_bytes(NULL, 5, 0, b, 4096);
	for (size_t i = 0; i < 4096; i++)
		assert_int_equal(b[i], ' ');
	gen_text_bytes(&model, 5, UINT64_C(1) << 40, b, 4096);
	assert_true(is_text(b, 4096));
	free(a);
	free(b);
}

/* ------------------------------------------------------------------------- */
/* Word statistics */

struct counts {
	uint64_t *hash;
	uint64_t *count;
	size_t cap, n;
};

static void counts_init(struct counts *c)
{
	c->cap = 1 << 20;
	c->n = 0;
	c->hash = calloc(c->cap, sizeof(*c->hash));
	c->count = calloc(c->cap, sizeof(*c->count));
	assert_non_null(c->hash);
	assert_non_null(c->count);
}

static void counts_free(struct counts *c)
{
	free(c->hash);
	free(c->count);
}

/* Count one word (lowercased); returns 1 if it is new. */
static int counts_add(struct counts *c, const uint8_t *w, size_t n)
{
	uint64_t h = UINT64_C(0xCBF29CE484222325);
	size_t i;

	for (size_t k = 0; k < n; k++) {
		h ^= (uint64_t)(w[k] | 0x20);
		h *= UINT64_C(0x100000001B3);
	}
	h |= 1;
	i = (size_t)(rng_mix64(h) & (c->cap - 1));
	while (c->hash[i] && c->hash[i] != h)
		i = (i + 1) & (c->cap - 1);
	c->count[i]++;
	if (c->hash[i])
		return 0;
	c->hash[i] = h;
	c->n++;
	assert_true(c->n < c->cap / 2);
	return 1;
}

static int is_letter(uint8_t b)
{
	return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z');
}

/* Call fn on every word (maximal run of letters) of buf. */
static void words(const uint8_t *buf, size_t n, void (*fn)(void *, const uint8_t *, size_t),
		  void *arg)
{
	for (size_t i = 0; i < n;) {
		size_t j;

		while (i < n && !is_letter(buf[i]))
			i++;
		j = i;
		while (j < n && is_letter(buf[j]))
			j++;
		if (j > i)
			fn(arg, buf + i, j - i);
		i = j;
	}
}

static void count_word(void *arg, const uint8_t *w, size_t n)
{
	counts_add(arg, w, n);
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x < y) - (x > y);
}

/* Least-squares slope of log(frequency) over log(rank), ranks lo..hi (from 1). */
static double zipf_slope(const uint8_t *buf, size_t n, size_t lo, size_t hi)
{
	struct counts c;
	uint64_t *f;
	double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
	size_t m = 0;

	counts_init(&c);
	words(buf, n, count_word, &c);
	f = calloc(c.n, sizeof(*f));
	assert_non_null(f);
	for (size_t i = 0; i < c.cap; i++)
		if (c.hash[i])
			f[m++] = c.count[i];
	qsort(f, m, sizeof(*f), cmp_desc);
	assert_true(m >= hi);
	for (size_t r = lo; r <= hi; r++) {
		double x = log((double)r), y = log((double)f[r - 1]);

		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		k++;
	}
	free(f);
	counts_free(&c);
	return -(k * sxy - sx * sy) / (k * sxx - sx * sx);
}

static void model_with(struct content_model *cm, double zipf, int mode)
{
	assert_int_equal(content_model_init(cm, NULL), 0);
	content_text_release(cm);
	cm->zipf_exponent = zipf;
	cm->text_mode = mode;
	assert_int_equal(content_text_init(cm), 0);
}

static void test_zipf_slope(void **state)
{
	static const double targets[] = { 0.8, 1.0, 1.2 };
	size_t n = 5 * MiB;
	uint8_t *buf = xmalloc(n);

	(void)state;
	for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
		struct content_model cm;
		double slope;

		model_with(&cm, targets[t], TEXT_WORDS);
		gen_text_bytes(&cm, 11 + t, 0, buf, n);
		slope = zipf_slope(buf, n, 10, 1000);
		printf("# text_zipf %.1f: fitted slope %.3f (ranks 10..1000 of 5 MiB)\n",
		       targets[t], slope);
		assert_true(fabs(slope - targets[t]) < 0.1);
		/* negative twin: the fit tells the exponents apart */
		if (t == 0)
			assert_false(fabs(slope - 1.0) < 0.1);
		content_model_release(&cm);
	}
	free(buf);
}

struct heaps {
	struct counts c;
	uint64_t seen;
	size_t next;
	uint64_t at[8], distinct[8];
};

static void heaps_word(void *arg, const uint8_t *w, size_t n)
{
	struct heaps *h = arg;

	counts_add(&h->c, w, n);
	h->seen++;
	if (h->next < 8 && h->seen == h->at[h->next])
		h->distinct[h->next++] = h->c.n;
}

static void test_heaps(void **state)
{
	size_t n = 8 * MiB;
	uint8_t *buf = xmalloc(n);
	struct heaps h = { .at = { 1000, 10000, 100000, 1000000 } };

	(void)state;
	counts_init(&h.c);
	gen_text_bytes(&model, 3, 0, buf, n);
	words(buf, n, heaps_word, &h);
	assert_int_equal(h.next, 4);
	printf("# Heaps: distinct words in the first 1e3 .. 1e6 words: %llu %llu %llu %llu\n",
	       (unsigned long long)h.distinct[0], (unsigned long long)h.distinct[1],
	       (unsigned long long)h.distinct[2], (unsigned long long)h.distinct[3]);
	assert_true(h.distinct[0] >= 300 && h.distinct[0] <= 900);
	for (int i = 1; i < 4; i++) {
		double beta = log10((double)h.distinct[i] / (double)h.distinct[i - 1]);

		/* sublinear growth, as in real text (0.4 to 0.8) */
		assert_true(beta > 0.35 && beta < 0.85);
	}
	counts_free(&h.c);
	free(buf);
}

static void len_word(void *arg, const uint8_t *w, size_t n)
{
	uint64_t *hist = arg;

	(void)w;
	hist[n <= CONTENT_WORD_MAX ? n : 0]++;
	hist[CONTENT_WORD_MAX + 1]++;
}

static void test_modes(void **state)
{
	struct content_model cm;
	size_t n = 2 * MiB;
	uint8_t *buf = xmalloc(n);
	uint64_t hist[CONTENT_WORD_MAX + 2] = { 0 }, top = 0;
	double ftot = 0;
	struct counts c;

	(void)state;
	/* repeat: one word (the few exact-length words that close a 4 KiB unit aside) */
	model_with(&cm, 1.0, TEXT_REPEAT);
	gen_text_bytes(&cm, 9, 0, buf, n);
	counts_init(&c);
	words(buf, n, count_word, &c);
	for (size_t i = 0; i < c.cap; i++)
		if (c.count[i] > top)
			top = c.count[i];
	for (size_t i = 0; i < c.cap; i++)
		hist[0] += c.count[i];
	assert_true((double)top / (double)hist[0] > 0.97);
	counts_free(&c);
	content_model_release(&cm);

	/* wordlen: lengths follow F(L) = 11.74 L^3 0.4^L */
	memset(hist, 0, sizeof(hist));
	model_with(&cm, 1.0, TEXT_WORDLEN);
	gen_text_bytes(&cm, 9, 0, buf, n);
	words(buf, n, len_word, hist);
	for (unsigned l = 1; l <= CONTENT_WORD_MAX; l++)
		ftot += 11.74 * l * l * l * pow(0.4, l);
	for (unsigned l = 1; l <= 12; l++) {
		double want = 11.74 * l * l * l * pow(0.4, l) / ftot;
		double got = (double)hist[l] / (double)hist[CONTENT_WORD_MAX + 1];

		assert_true(fabs(got - want) < 0.01);
	}
	content_model_release(&cm);
	free(buf);
}

/* ------------------------------------------------------------------------- */
/* Shape: sentences, paragraphs, lines; code that nests */

static int is_end(const uint8_t *b, size_t i, size_t n)
{
	return (b[i] == '.' || b[i] == '?' || b[i] == '!') &&
	       (i + 1 == n || b[i + 1] == ' ' || b[i + 1] == '\n');
}

/* Prose: sentences of 3 to 24 words, paragraphs of a few, lines wrapped at 64..80 or not at all. */
static void test_prose_shape(void **state)
{
	uint64_t sents = 0, swords = 0, long_sents = 0, caps = 0, paras = 0, psents = 0;
	unsigned wrapped = 0, docs = 16;

	(void)state;
	for (uint64_t k = 0; k < docs; k++) {
		size_t n = 256 * KiB, line = 0, maxline = 0, nlines = 0, bytes = 0, nparas = 0;
		uint8_t *b = whole(&model, "txt", 700 + k, n);
		unsigned words = 0, in_para = 0;
		int start = 1;

		for (size_t i = 0; i < n; i++) {
			if (is_letter(b[i]) && (i == 0 || !is_letter(b[i - 1]))) {
				words++;
				if (start)
					caps += b[i] >= 'A' && b[i] <= 'Z';
				start = 0;
			}
			if (is_end(b, i, n)) {
				sents++;
				swords += words;
				long_sents += words > 24;
				in_para++;
				words = 0;
				start = 1;
			}
			if (b[i] == '\n') {
				if (line) {
					nlines++;
					bytes += line;
				}
				maxline = line > maxline ? line : maxline;
				if (!line && in_para) {
					nparas++;
					psents += in_para;
					in_para = 0;
				}
				line = 0;
			} else {
				line++;
			}
		}
		paras += nparas;
		if (maxline <= 80) {
			/* wrapped: full lines */
			wrapped++;
			assert_true((double)bytes / (double)nlines > 50);
		} else {
			/* or one line a paragraph (and a line break closing each 4 KiB unit) */
			assert_true(nlines <= nparas + n / 4096 + 1);
			assert_true((double)bytes / (double)nlines > 200);
		}
		free(b);
	}
	printf("# prose: %.1f words a sentence, %.2f sentences a paragraph, %u of %u documents "
	       "wrapped at <= 80 columns\n", (double)swords / (double)sents,
	       (double)psents / (double)paras, wrapped, docs);
	assert_true((double)swords / (double)sents > 10 && (double)swords / (double)sents < 17);
	assert_true(long_sents * 100 < sents);
	assert_true(caps * 100 > sents * 99);
	assert_true((double)psents / (double)paras > 2 && (double)psents / (double)paras < 5.5);
	assert_true(wrapped >= docs / 2 && wrapped < docs);
}

/* Brackets of every kind close in order; 0 if they do. */
static int unbalanced(const uint8_t *b, size_t n)
{
	static const char open[] = "([{", close[] = ")]}";
	char st[256];
	size_t d = 0;

	for (size_t i = 0; i < n; i++) {
		const char *o = b[i] ? strchr(open, b[i]) : NULL;
		const char *c = b[i] ? strchr(close, b[i]) : NULL;

		if (o) {
			if (d == sizeof(st))
				return 1;
			st[d++] = *o;
		} else if (c && (!d || st[--d] != open[c - close])) {
			return 1;
		}
	}
	return d != 0;
}

/* Python: four-space indentation, one level deeper after a colon, never jumping in. */
static int bad_python(const uint8_t *b, size_t n)
{
	size_t prev = 0, i = 0;
	int colon = 0;

	while (i < n) {
		size_t ind = 0, j;

		while (i + ind < n && b[i + ind] == ' ')
			ind++;
		for (j = i + ind; j < n && b[j] != '\n'; j++)
			if (b[j] == '\t')
				return 1;
		if (j > i + ind && b[i + ind] != '#') {
			if (ind % 4 || ind > prev + 4 || (colon && ind != prev + 4) ||
			    (!colon && ind > prev))
				return 1;
			colon = b[j - 1] == ':';
			prev = ind;
		}
		i = j + 1;
	}
	return 0;
}

static void test_code_shape(void **state)
{
	static const char *const exts[] = {
		"c", "h", "cpp", "hpp", "java", "kt", "cs", "js", "go", "rs", "php", "py", "sh",
		"pl", "rb", "css",
	};
	static const uint64_t sizes[] = { 60, 100, 150, 200, 333, 700, 4096, 20000, 300 * KiB };
	unsigned files = 0;

	(void)state;
	for (size_t e = 0; e < sizeof(exts) / sizeof(exts[0]); e++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (uint64_t k = 0; k < 6; k++) {
				uint8_t *b = whole(&model, exts[e], 900 + k * 31 + s, sizes[s]);

				if (unbalanced(b, (size_t)sizes[s]))
					fail_msg("'%s' of %llu bytes (key %llu): brackets do not nest",
						 exts[e], (unsigned long long)sizes[s],
						 (unsigned long long)(900 + k * 31 + s));
				if (!strcmp(exts[e], "py") && bad_python(b, (size_t)sizes[s]))
					fail_msg("'py' of %llu bytes: indentation is not Python's",
						 (unsigned long long)sizes[s]);
				files++;
				free(b);
			}
		}
	}
	printf("# code: brackets nest in %u files of 16 languages\n", files);
	/* negative twins: the checks can fail */
	assert_true(unbalanced((const uint8_t *)"f(a[1)]", 7));
	assert_true(unbalanced((const uint8_t *)"{ {", 3));
	assert_true(bad_python((const uint8_t *)"if x:\nreturn\n", 13));
	assert_true(bad_python((const uint8_t *)"x = 1\n  y = 2\n", 14));
}

/* ------------------------------------------------------------------------- */
/* Parsers: JSON, XML, HTML as XML */

static uint64_t sample_size(struct rng *r, int i)
{
	if (i < 300)
		return (uint64_t)i + 1;
	if (i < 340)
		return 4096 * (uint64_t)(i - 299) + rng_below(r, 400);
	return 1 + rng_below(r, i % 4 ? 200 * KiB : 2 * MiB);
}

static void test_json_parses(void **state)
{
	struct rng r;

	(void)state;
	rng_init(&r, 1, "test.text.json", 0);
	for (int i = 0; i < 400; i++) {
		uint64_t size = sample_size(&r, i);
		uint8_t *b = whole(&model, "json", 50 + (uint64_t)i, size);
		struct json_tokener *tok = json_tokener_new();
		struct json_object *o;
		size_t end;

		assert_non_null(tok);
		/* the NUL tells json-c the input ends (a bare number could go on) */
		o = json_tokener_parse_ex(tok, (const char *)b, (int)size + 1);
		if (!o || json_tokener_get_error(tok) != json_tokener_success)
			fail_msg("json of %llu bytes does not parse: %s", (unsigned long long)size,
				 json_tokener_error_desc(json_tokener_get_error(tok)));
		end = json_tokener_get_parse_end(tok);
		for (size_t k = end; k < size; k++)
			assert_true(b[k] == ' ' || b[k] == '\n');
		if (size >= 2 * KiB) {
			struct json_object_iterator it = json_object_iter_begin(o);
			struct json_object_iterator stop = json_object_iter_end(o);
			int arrays = 0;

			for (; !json_object_iter_equal(&it, &stop); json_object_iter_next(&it)) {
				struct json_object *v = json_object_iter_peek_value(&it);

				if (json_object_is_type(v, json_type_array)) {
					arrays++;
					assert_true(json_object_array_length(v) > 0);
				}
			}
			assert_int_equal(arrays, 1);
		}
		json_object_put(o);
		json_tokener_free(tok);
		free(b);
	}
}

static int xml_errors;

static void count_xml_error(void *ctx, const xmlError *e)
{
	(void)ctx;
	(void)e;
	xml_errors++;
}

/* Parse strictly (no recovery, no network); NULL if not well-formed. */
static xmlDocPtr parse_xml(const uint8_t *b, uint64_t size)
{
	xmlDocPtr d;

	xml_errors = 0;
	d = xmlReadMemory((const char *)b, (int)size, "sample.xml", NULL, XML_PARSE_NONET);
	if (d && xml_errors) {
		xmlFreeDoc(d);
		d = NULL;
	}
	return d;
}

static xmlNodePtr child(xmlNodePtr n, const char *name)
{
	for (xmlNodePtr c = n ? n->children : NULL; c; c = c->next)
		if (c->type == XML_ELEMENT_NODE && !strcmp((const char *)c->name, name))
			return c;
	return NULL;
}

static void test_xml_parses(void **state)
{
	static const char *const exts[] = { "xml", "svg" };
	struct rng r;

	(void)state;
	xmlSetStructuredErrorFunc(NULL, (xmlStructuredErrorFunc)count_xml_error);
	rng_init(&r, 1, "test.text.xml", 0);
	for (size_t e = 0; e < 2; e++) {
		for (int i = 3; i < 400; i++) {
			uint64_t size = sample_size(&r, i);
			uint8_t *b = whole(&model, exts[e], 90 + (uint64_t)i, size);
			xmlDocPtr d = parse_xml(b, size);

			if (!d)
				fail_msg("%s of %llu bytes is not well-formed", exts[e],
					 (unsigned long long)size);
			if (e == 1 && size >= 400) {
				xmlNodePtr root = xmlDocGetRootElement(d);

				assert_string_equal((const char *)root->name, "svg");
			}
			xmlFreeDoc(d);
			free(b);
		}
	}
	xmlSetStructuredErrorFunc(NULL, NULL);
}

/* HTML parses as XML (every element closed, attributes quoted) with head, title, body. */
static void test_html_wellformed(void **state)
{
	struct rng r;

	(void)state;
	xmlSetStructuredErrorFunc(NULL, (xmlStructuredErrorFunc)count_xml_error);
	rng_init(&r, 1, "test.text.html", 0);
	for (int i = 80; i < 500; i++) {
		/* 80 .. 299 bytes, then as the other parsers (all at least 80 bytes) */
		uint64_t size = i < 300 ? (uint64_t)i : sample_size(&r, i - 100);
		uint8_t *b = whole(&model, "htm", 300 + (uint64_t)i, size);
		xmlDocPtr d = parse_xml(b, size);
		xmlNodePtr root, head, body;

		if (!d)
			fail_msg("htm of %llu bytes is not well-formed", (unsigned long long)size);
		root = xmlDocGetRootElement(d);
		assert_string_equal((const char *)root->name, "html");
		head = child(root, "head");
		body = child(root, "body");
		assert_non_null(head);
		assert_non_null(child(head, "title"));
		assert_non_null(body);
		if (size >= 8 * KiB) {
			assert_non_null(child(body, "h1"));
			assert_non_null(child(body, "p"));
		}
		assert_memory_equal(b, "<!DOCTYPE html>\n", 16);
		assert_memory_equal(b + size - 16, "</body>\n</html>\n", 16);
		xmlFreeDoc(d);
		free(b);
	}
	xmlSetStructuredErrorFunc(NULL, NULL);
}

/* ------------------------------------------------------------------------- */
/* libmagic */

static void test_magic(void **state)
{
	static const struct {
		const char *ext, *mime;
	} want[] = {
		{ "txt", "text/plain" }, { "log", "text/plain" }, { "md", "text/plain" },
		{ "ini", "text/plain" }, { "yml", "text/plain" }, { "tsv", "text/plain" },
		{ "csv", "text/csv" }, { "htm", "text/html" }, { "json", "application/json" },
		{ "xml", "text/xml" }, { "svg", "image/svg+xml" }, { "c", "text/x-c" },
		{ "h", "text/x-c" }, { "cpp", "text/x-c++" }, { "hpp", "text/x-c++" },
		{ "java", "text/x-java" }, { "js", "application/javascript" },
		{ "php", "text/x-php" }, { "py", "text/x-script.python" },
		{ "sh", "text/x-shellscript" }, { "pl", "text/x-perl" }, { "rb", "text/x-ruby" },
		{ "go", "text/" }, { "rs", "text/" }, { "cs", "text/" }, { "css", "text/" },
	};
	static const uint64_t sizes[] = { 2 * KiB, 9 * KiB, 100 * KiB, MiB + 333 };
	magic_t m = magic_open(MAGIC_MIME_TYPE);
	unsigned total = 0, ok = 0;

	(void)state;
	assert_non_null(m);
	if (magic_load(m, NULL)) {
		magic_close(m);
		skip();
	}
	for (size_t e = 0; e < sizeof(want) / sizeof(want[0]); e++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			for (uint64_t k = 0; k < 4; k++) {
				uint8_t *b = whole(&model, want[e].ext, 500 + k, sizes[s]);
				const char *got = magic_buffer(m, b, (size_t)sizes[s]);

				total++;
				if (got && !strncmp(got, want[e].mime, strlen(want[e].mime)))
					ok++;
				else
					printf("# libmagic: '%s' of %llu bytes is %s, not %s\n",
					       want[e].ext, (unsigned long long)sizes[s],
					       got ? got : "?", want[e].mime);
				free(b);
			}
		}
	}
	printf("# libmagic: %u of %u samples as expected\n", ok, total);
	assert_true(ok >= total * 99 / 100);
	magic_close(m);
}

/* ------------------------------------------------------------------------- */
/* The model source: dispatch by extension, copies, sizes */

static void test_model_source(void **state)
{
	static const char *const typed[] = {
		"png", "jpg", "jpeg", "gif", "bmp", "wav", "mp3", "mp4", "pdf", "zip", "gz", "tar",
		"exe", "dll", "sys", "o", "so",
	};
	struct params p;
	struct param_error perr;
	struct plan_error err;
	struct plan pl;
	struct content_model cm;
	struct content_source cs;
	uint64_t copies = 0;

	(void)state;
	assert_ptr_equal(content_ext_ops("TXT"), &gen_text_ops);
	assert_ptr_equal(content_ext_ops("htm"), &gen_html_ops);
	assert_ptr_equal(content_ext_ops("c"), &gen_source_ops);
	assert_ptr_equal(content_ext_ops("json"), &gen_json_ops);
	assert_ptr_equal(content_ext_ops("xml"), &gen_xml_ops);
	assert_ptr_equal(content_ext_ops("no-such"), &gen_binary_ops);
	assert_ptr_equal(content_ext_ops(""), &gen_binary_ops);
	/* a typed format's extensions are never planned below what it needs */
	for (size_t i = 0; i < sizeof(typed) / sizeof(typed[0]); i++) {
		const struct gen_ops *ops = content_ext_ops(typed[i]);

		assert_ptr_not_equal(ops, &gen_binary_ops);
		if (ext_min_size(typed[i]) < ops->min_size)
			fail_msg("'%s' may be planned at %llu bytes, its generator needs %llu",
				 typed[i], (unsigned long long)ext_min_size(typed[i]),
				 (unsigned long long)ops->min_size);
	}

	params_init(&p);
	assert_int_equal(params_set(&p, "files", "3000", "test", &perr), 0);
	assert_int_equal(params_set(&p, "seed", "5", "test", &perr), 0);
	assert_int_equal(params_resolve(&p, &perr), 0);
	assert_int_equal(plan_build(&pl, &p, &err), 0);
	assert_int_equal(content_model_init(&cm, &pl), 0);
	assert_int_equal(content_model_source_init(&cs, &cm, &pl, 0), 0);
	assert_int_equal(content_source_too_small(&cs), 0);
	assert_non_null(pl.file_dup_of);
	for (uint64_t f = 0; f < pl.nfiles; f++) {
		uint64_t size = pl.file_size[f], src = pl.file_dup_of[f];
		size_t n = size < 256 * KiB ? (size_t)size : 256 * KiB;
		uint8_t *a, *b;

		if (src == PLAN_NONE && f % 7)
			continue;
		a = xmalloc(n);
		b = xmalloc(n);
		assert_int_equal(cs.fill(&cs, f, 0, a, n), 0);
		if (src != PLAN_NONE) {
			/* a copy has exactly its source's bytes */
			assert_int_equal(cs.fill(&cs, src, 0, b, n), 0);
			assert_memory_equal(a, b, n);
			copies++;
		}
		if (content_ext_ops(plan_file_ext(&pl, f)) == &gen_text_ops)
			assert_true(is_text(a, n));
		/* the last bytes, alone */
		if (n > 10) {
			assert_int_equal(cs.fill(&cs, f, size - 10, b, 10), 0);
			if (n == size)
				assert_memory_equal(a + n - 10, b, 10);
		}
		free(a);
		free(b);
	}
	assert_true(copies > 0);
	content_source_release(&cs);
	content_model_release(&cm);
	plan_release(&pl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vocab),
		cmocka_unit_test(test_random_access),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_narrow),
		cmocka_unit_test(test_text_bytes),
		cmocka_unit_test(test_zipf_slope),
		cmocka_unit_test(test_heaps),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_prose_shape),
		cmocka_unit_test(test_code_shape),
		cmocka_unit_test(test_json_parses),
		cmocka_unit_test(test_xml_parses),
		cmocka_unit_test(test_html_wellformed),
		cmocka_unit_test(test_magic),
		cmocka_unit_test(test_model_source),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
