/* extc.c - a profile's content by extension (ext_content): per-extension generators and their calibration */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#include "content/extc.h"
#include "content/binary.h"
#include "content/gen.h"
#include "content/model.h"
#include "content/registry.h"
#include "model/params.h"
#include "model/tables.h"
#include "plan/plan.h"
#include "util/rng.h"
#include "util/words.h"

/* Blocks of 4 KiB: a text file's duplicate blocks (text_dups_init()). */
#define TBLOCK 4096u

/*
 * EXTC_PYC: a generator of its own (pyc, mo) whose text follows gen_file.boost;
 * EXTC_PREFIX: a typed format (gzip, PNG) whose files share prefixes (prefix_init())
 */
enum extc_kind { EXTC_KEEP, EXTC_TEXT, EXTC_BIN, EXTC_PYC, EXTC_PREFIX };

/* A file of a shared prefix (EXTC_PREFIX): gen_file's pkey, plen and psize. */
struct extc_prefix {
	uint64_t file, key, len, size;
};

struct extc_ent {
	char name[TAB_EXT_LEN];
	enum extc_kind kind;
	const struct gen_ops *base; /* EXTC_TEXT: the text format; EXTC_PYC: pyc's */
	int32_t boost;              /* EXTC_TEXT, EXTC_PYC: of the text */
	uint32_t fresh;             /* EXTC_TEXT: gen_file.fresh, up to the profile's distinct words */
	uint32_t narrow;            /* EXTC_TEXT: gen_file.narrow, down to them */
	void *bm;                   /* EXTC_BIN: its binary model; EXTC_TEXT: its duplicate
				       blocks' deal (NULL: none) */
	uint64_t pool_key;          /* EXTC_TEXT: the text of its duplicate pool */
	uint64_t pool_blocks;
	double dup_reach;           /* EXTC_TEXT: the share of its full blocks that may be duplicates */
	struct extc_prefix *pre;    /* EXTC_PREFIX: its files of shared prefixes, by file */
	uint64_t npre;
	double pre_share;           /* EXTC_PREFIX: the duplicate-block share they make */
};

struct extc {
	uint32_t n;
	struct extc_ent e[TAB_EXTC_MAX];
};

/* Calibration sample: this many files of the plan, their first SAMPLE_CAP bytes. */
#define SAMPLE_FILES 16u
#define SAMPLE_CAP   (64u << 10)
#define WARM	     (32u << 10) /* deflate's window */
#define SEGMENT	     (1u << 20) /* what a content report compresses at once */
#define BISECT_STEPS 10

static const struct gen_ops gen_pyc_ops = { .name = "pyc", .min_size = 0, .fill = content_pyc_fill };

static const struct extc_ent *extc_find(const struct content_model *cm, const char *ext)
{
	const struct extc *x = cm ? cm->extc_priv : NULL;

	if (!x || !ext)
		return NULL;
	for (uint32_t i = 0; i < x->n; i++)
		if (!strcmp(x->e[i].name, ext))
			return &x->e[i];
	return NULL;
}

static int is_text_ops(const struct gen_ops *o)
{
	return o == &gen_text_ops || o == &gen_html_ops || o == &gen_source_ops ||
	       o == &gen_json_ops || o == &gen_xml_ops;
}

/* An extension's calibration sample (sample_pick()). */
struct extc_sample {
	uint32_t n;
	bool planned; /* the picks are the plan's files (else made up: none in the plan) */
	uint64_t size[SAMPLE_FILES];
	uint64_t file[SAMPLE_FILES];
	uint32_t weight[SAMPLE_FILES]; /* how many of the evenly spaced bytes each pick holds */
};

struct size_pick {
	uint64_t size, file;
};

static int size_pick_cmp(const void *a, const void *b)
{
	const struct size_pick *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/*
 * The calibration sample: SAMPLE_FILES of the plan's files of the extension
 * picked with probability by size (the file holding each of SAMPLE_FILES
 * evenly spaced bytes of all of them), each by SAMPLE_CAP bytes:
 * the extension's ratio by bytes is then the harmonic mean of the picks'.
 * The files are laid end to end smallest first, so that each pick stands
 * for its own share of the sizes (distinct words per KiB fall by half
 * from files of 1 KiB to files of 64 KiB: in the plan's order, 16 picks
 * of /usr/share/doc's 555 .txt made 62.6 of what its clone had at 51.8).
 * A large file holds several of the bytes (its weight).
 */
/*
 * A plan's whole-file copy: not sampled, as the profile's figures count
 * each set of copies once (three of the five .svg of /usr/share/doc's
 * clone were one 1.3 KB file: sampled three times, they held the sample
 * 16% under the ratio the distinct files had).
 */
static bool sample_copy(const struct plan *pl, uint64_t f)
{
	return pl->file_dup_of && pl->file_dup_of[f] != PLAN_NONE;
}

static int sample_pick(const struct content_model *cm, const char *ext, struct extc_sample *sm)
{
	const struct plan *pl = cm->pl;
	struct size_pick *p = NULL;
	uint64_t np = 0, total = 0, at = 0, next;
	uint32_t k = 0;

	sm->n = 0;
	for (uint64_t f = 0; pl && f < pl->nfiles; f++)
		if (pl->file_size[f] && !sample_copy(pl, f) && !strcmp(plan_file_ext(pl, f), ext))
			np++;
	if (np) {
		p = malloc(np * sizeof(*p));
		if (!p)
			return -ENOMEM;
		np = 0;
		for (uint64_t f = 0; f < pl->nfiles; f++) {
			if (!pl->file_size[f] || sample_copy(pl, f) || strcmp(plan_file_ext(pl, f), ext))
				continue;
			p[np].size = pl->file_size[f];
			p[np++].file = f;
			total += pl->file_size[f];
		}
		qsort(p, np, sizeof(*p), size_pick_cmp);
	}
	next = total / (2 * SAMPLE_FILES);
	for (uint64_t i = 0; i < np && k < SAMPLE_FILES; i++) {
		at += p[i].size;
		if (at <= next)
			continue;
		sm->weight[sm->n] = 0;
		while (k < SAMPLE_FILES && next < at) {
			k++;
			next = total * (2 * k + 1) / (2 * SAMPLE_FILES);
			sm->weight[sm->n]++;
		}
		sm->size[sm->n] = p[i].size;
		sm->file[sm->n++] = p[i].file;
	}
	free(p);
	sm->planned = sm->n > 0;
	if (!sm->n) { /* no file of the extension in the plan: files of 16 KiB */
		for (sm->n = 0; sm->n < 8; sm->n++) {
			sm->size[sm->n] = 16384;
			sm->file[sm->n] = sm->n;
			sm->weight[sm->n] = 1;
		}
	}
	return 0;
}

/*
 * The sample's pick i as e makes it with boost b.  A plan's file with the
 * key the clone makes it with (content/source.c's file_key()): an
 * extension of a few files is then calibrated on the very bytes of its
 * clone (with keys of their own, /usr/share/doc's 4 .perl of 1.4-2.4 KB
 * were calibrated to 2.58 and made at 2.84, their distinct words per KiB
 * at 29.4 against 39.2).
 */
static struct gen_file sample_file(const struct content_model *cm, const struct extc_ent *e,
				   const struct extc_sample *sm, uint32_t i, int32_t b)
{
	uint64_t f = sm->file[i];
	struct gen_file g = {
		.key = sm->planned ?
			       rng_mix64(cm->seed ^ rng_mix64(f + 1)) :
			       rng_mix64(cm->seed ^ rng_mix64(f ^ UINT64_C(0x6578742D63616C31))),
		.file = f,
		.size = sm->size[i],
		.ext = e->name,
		.cm = cm,
		.boost = b,
		.fresh = e->fresh,
		.narrow = e->narrow,
	};

	return g;
}

/* zlib -6 ratio of the sample made with boost b (harmonic mean of the files' ratios). */
static int sample_ratio(const struct content_model *cm, const struct extc_ent *e, int32_t b,
			const struct extc_sample *sm, uint8_t *buf, uint8_t *out, double *ratio)
{
	double inv = 0;
	uint32_t wsum = 0;

	for (uint32_t i = 0; i < sm->n; i++) {
		struct gen_file g = sample_file(cm, e, sm, i, b);
		/*
		 * a larger file: SAMPLE_CAP bytes from the middle of its first 1 MiB
		 * (text compresses better further in: a prefix would understate
		 * it), after WARM bytes that fill deflate's window: their own
		 * compressed size is taken off
		 */
		uint64_t seg = sm->size[i] < SEGMENT ? sm->size[i] : SEGMENT;
		size_t len = (size_t)(seg < SAMPLE_CAP + WARM ? seg : SAMPLE_CAP + WARM);
		size_t warm = len == SAMPLE_CAP + WARM ? WARM : 0;
		uLongf zl = compressBound(SAMPLE_CAP + WARM), zw = zl;
		int ret = e->base->fill(&g, (seg - len) / 2, buf, len);

		if (ret)
			return ret;
		if (compress2(out, &zl, buf, (uLong)len, 6) != Z_OK ||
		    (warm && compress2(out, &zw, buf, (uLong)warm, 6) != Z_OK))
			return -ENOMEM;
		if (warm && zw < zl)
			zl -= zw;
		inv += sm->weight[i] * (double)zl / (double)(len - warm);
		wsum += sm->weight[i];
	}
	*ratio = inv > 0 ? wsum / inv : 1;
	return 0;
}

/*
 * The boost whose sample compresses nearest the target ratio (bisection over
 * -65535..65535, then, where -65535 compresses too well, over least..-65535:
 * a format's range below, gif's references).
 */
static int calibrate(const struct content_model *cm, struct extc_ent *e, double target,
		     const struct extc_sample *sm, int32_t least)
{
	int32_t lo, hi;
	uint8_t *buf = malloc(SAMPLE_CAP + WARM), *out = malloc(compressBound(SAMPLE_CAP + WARM));
	double r, r0 = 0;
	int ret = -ENOMEM;

	e->boost = 0;
	if (!buf || !out)
		goto out;
	ret = sample_ratio(cm, e, 0, sm, buf, out, &r0);
	if (ret || r0 == target)
		goto out; /* boost 0 */
	/* the end on the target's side: can it be reached at all? */
	e->boost = r0 < target ? 65535 : -65535;
	ret = sample_ratio(cm, e, e->boost, sm, buf, out, &r);
	if (ret || (r0 < target ? r <= target : r >= target && least >= e->boost))
		goto out;
	lo = r0 < target ? 0 : e->boost;  /* ratio below the target at lo, above at hi */
	hi = r0 < target ? e->boost : 0;
	if (r0 > target && r >= target) {
		e->boost = least;
		ret = sample_ratio(cm, e, least, sm, buf, out, &r);
		if (ret || r >= target)
			goto out;
		hi = lo;
		lo = least;
	}
	for (int s = 0; s < BISECT_STEPS; s++) {
		int32_t mid = lo + (hi - lo) / 2;

		ret = sample_ratio(cm, e, mid, sm, buf, out, &r);
		if (ret)
			goto out;
		if (r < target)
			lo = mid;
		else
			hi = mid;
	}
	e->boost = lo + (hi - lo) / 2;
out:
	free(buf);
	free(out);
	return ret;
}

/*
 * Distinct words per KiB of the sample made with e's boost, fresh and
 * narrow: each file's first WORDS_HEAD bytes as profile --content counts
 * them, the files' figures averaged by their weights (the picks are by
 * size: an average by bytes, as the profile's; unweighted, a large file
 * picked for several of the sample's bytes counted once, and its fewer
 * words per KiB too little: the .pod clone of /usr/share/perl fell to 23
 * against 29).
 */
static int sample_words(const struct content_model *cm, const struct extc_ent *e,
			const struct extc_sample *sm, uint8_t *buf, struct words *wd, double *wpk)
{
	double sum = 0;
	uint32_t wsum = 0;

	for (uint32_t i = 0; i < sm->n; i++) {
		struct gen_file g = sample_file(cm, e, sm, i, e->boost);
		size_t len = (size_t)(sm->size[i] < WORDS_HEAD ? sm->size[i] : WORDS_HEAD);
		int ret = e->base->fill(&g, 0, buf, len);

		if (ret)
			return ret;
		words_reset(wd);
		words_feed(wd, buf, len);
		sum += sm->weight[i] * 1024.0 * words_end(wd) / (double)len;
		wsum += sm->weight[i];
	}
	*wpk = wsum ? sum / wsum : 0;
	return 0;
}

/* Near enough the profile's words to end the search (calibrate_words()): within 1%. */
#define WORDS_NEAR 0.01

/* The largest fresh and narrow shares tried: 15 words of 16 new to their file, or drawn again. */
#define FRESH_MAX 61440

/* A text format's least boost: source code's goes on into variety (text/code.c). */
static int32_t text_least(const struct extc_ent *e)
{
	return e->base == &gen_source_ops ? GEN_SOURCE_BOOST_LEAST : -65535;
}

/* The vocabulary knob k: fresh tokens by k (k > 0), or words drawn again by -k (k < 0). */
static void set_vocab(struct extc_ent *e, int32_t k)
{
	e->fresh = k > 0 ? (uint32_t)k : 0;
	e->narrow = k < 0 ? (uint32_t)-k : 0;
}

/*
 * The profile's distinct words per KiB (words > 0) as well as its ratio
 * (e's boost calibrated for it without fresh or narrow words).  The two
 * pull against each other (recurrence makes fewer words), and narrowing
 * moves the ratio both ways (a little lowers it, much raises it), so one
 * calibrated after the other undoes the first: ending on the ratio,
 * /usr/share/doc's .html clone had 7.9 distinct words per KiB against 16.0.
 * Instead one search in two dimensions: the vocabulary knob k
 * (set_vocab(), -FRESH_MAX..FRESH_MAX) bisected for the words, the boost
 * calibrated for the ratio at each of its steps (at the ratio held, the
 * words rise with k).  Ends on the step whose words came nearest, its
 * boost calibrated; where no k reaches the words at the ratio (the text
 * model cannot have both), on the nearest end: the ratio is kept.
 */
static int calibrate_words(const struct content_model *cm, struct extc_ent *e, double ratio,
			   double target, const struct extc_sample *sm)
{
	uint8_t *buf = malloc(WORDS_HEAD);
	struct words wd;
	int32_t lo = 0, hi, k, best_k = 0, best_b = e->boost;
	double v, best;
	int up, ret;

	if (!buf || words_init(&wd)) {
		free(buf);
		return -ENOMEM;
	}
	set_vocab(e, 0);
	ret = sample_words(cm, e, sm, buf, &wd, &v);
	if (ret || v == target)
		goto out;
	best = fabs(v - target);
	up = v < target;
	hi = up ? FRESH_MAX : -FRESH_MAX; /* words on the start's side at lo, past the target at hi */
	for (int s = -1; s < BISECT_STEPS && abs(hi - lo) > 1; s++) {
		k = s < 0 ? hi : lo + (hi - lo) / 2; /* first the far end: can it be reached? */
		set_vocab(e, k);
		ret = calibrate(cm, e, ratio, sm, text_least(e));
		if (!ret)
			ret = sample_words(cm, e, sm, buf, &wd, &v);
		if (ret)
			goto out;
		if (fabs(v - target) < best) {
			best = fabs(v - target);
			best_k = k;
			best_b = e->boost;
		}
		if (s < 0 && (up ? v < target : v > target))
			break; /* not even there */
		if (best <= target * WORDS_NEAR)
			break;
		if (s >= 0 && (up ? v < target : v > target))
			lo = k;
		else if (s >= 0)
			hi = k;
	}
	set_vocab(e, best_k);
	e->boost = best_b;
out:
	words_release(&wd);
	free(buf);
	return ret;
}

/*
 * XML by name that imprint's table has as "other binary" (gtk-doc's
 * indexes): a profile that had them as text gets XML lines, valid and
 * what file(1) calls the source's, not prose.
 */
static const char *const xml_named[] = { "devhelp2", "devhelp", "xbel", "glade", "metainfo" };

static bool is_xml_named(const char *ext)
{
	for (size_t i = 0; i < sizeof(xml_named) / sizeof(xml_named[0]); i++)
		if (!strcasecmp(xml_named[i], ext))
			return true;
	return false;
}

/* A text extension's calibration: the ratio, then with the profile's words both. */
static int calibrate_text(const struct content_model *cm, struct extc_ent *e, const double *f,
			  const struct extc_sample *sm)
{
	int ret;

	set_vocab(e, 0);
	ret = calibrate(cm, e, f[0], sm, text_least(e));
	if (!ret && f[TAB_EXTC_WORDS] > 0)
		ret = calibrate_words(cm, e, f[0], f[TAB_EXTC_WORDS], sm);
	return ret;
}

/* The larger relative miss of e's sample: its ratio's, and its words' where the profile has them. */
static int sample_miss(const struct content_model *cm, const struct extc_ent *e, const double *f,
		       const struct extc_sample *sm, double *miss)
{
	uint8_t *buf = malloc(MAX(SAMPLE_CAP + WARM, WORDS_HEAD));
	uint8_t *out = malloc(compressBound(SAMPLE_CAP + WARM));
	struct words wd;
	double r, v;
	int ret = -ENOMEM;

	if (!buf || !out)
		goto out_free_buf;
	ret = sample_ratio(cm, e, e->boost, sm, buf, out, &r);
	if (ret)
		goto out_free_buf;
	*miss = fabs(r / f[0] - 1);
	if (f[TAB_EXTC_WORDS] > 0) {
		ret = words_init(&wd) ? -ENOMEM : sample_words(cm, e, sm, buf, &wd, &v);
		if (ret)
			goto out_free_buf;
		words_release(&wd);
		*miss = fmax(*miss, fabs(v / f[TAB_EXTC_WORDS] - 1));
	}
out_free_buf:
	free(buf);
	free(out);
	return ret;
}

/*
 * Where the text format misses the profile (its sample more than
 * LINES_MISS off the ratio or the words: above prose's ceiling, a symbol
 * list at 12.3 against 3.6; below markup's floor, XML signatures at 1.94
 * against 2.92), record lines of the same kind (alt: plain or XML,
 * text/lines.c), calibrated the same way, if their sample comes nearer.
 */
#define LINES_MISS 0.10

static int try_lines(const struct content_model *cm, struct extc_ent *e, const struct gen_ops *alt,
		     const double *f, const struct extc_sample *sm)
{
	struct extc_ent was = *e;
	double m0, m1;
	int ret = sample_miss(cm, e, f, sm, &m0);

	if (ret || m0 <= LINES_MISS)
		return ret;
	e->base = alt;
	ret = calibrate_text(cm, e, f, sm);
	if (!ret)
		ret = sample_miss(cm, e, f, sm, &m1);
	if (ret || m1 >= m0)
		*e = was;
	return ret;
}

/*
 * Duplicate 4 KiB blocks of a text extension (the profile's share d > 0):
 * blocks of text the files of the extension share, as real trees have
 * them (a header copied with its boilerplate, the same file in two
 * places with a line changed near its start).  Which of a file's blocks
 * are duplicates and which pool block each is, a binary model of the
 * extension deals (content_binary_model_pool_block(): its pool sized so
 * that almost every pool block is drawn twice or more); the pool is text
 * of the extension's own format made for a key of its own.  A file's
 * first block (its header) and its last full one (with the footer, the
 * partial block after it) stay its own, so the share dealt is raised to make up for them.
 */
static int text_dups_init(const struct content_model *cm, struct extc_ent *e, double d)
{
	const struct plan *pl = cm->pl;
	uint64_t full = 0, reach = 0;
	struct content_binary_deal deal;
	char pool[64];
	int ret;

	for (uint64_t f = 0; pl && d > 0 && f < pl->nfiles; f++) {
		uint64_t n = pl->file_size[f] / TBLOCK;

		if ((pl->file_dup_of && pl->file_dup_of[f] != PLAN_NONE) ||
		    strcmp(plan_file_ext(pl, f), e->name))
			continue;
		full += n;
		reach += n > 2 ? n - 2 : 0;
	}
	if (!reach)
		return 0;
	e->dup_reach = (double)reach / (double)full;
	snprintf(pool, sizeof(pool), "content.pool.text.%s", e->name);
	ret = content_binary_model_new(cm, 1, 0, fmin(1, d / e->dup_reach), pool, e->name, &e->bm);
	if (ret)
		return ret;
	content_binary_model_deal(e->bm, &deal);
	e->pool_key = rng_stream_key(cm->seed, pool);
	e->pool_blocks = deal.pool_blocks;
	return 0;
}

/* Overwrite the duplicate blocks of [off, off + len) of a text file g with its pool's text. */
static int text_dups(const struct extc_ent *e, const struct gen_file *g, uint64_t off,
		     uint8_t *buf, size_t len)
{
	struct gen_file p = *g;

	p.key = e->pool_key;
	p.size = (e->pool_blocks + 2) * TBLOCK; /* block j at j + 1: the pool's frame aside */
	p.memo = NULL;
	for (uint64_t b = off / TBLOCK ? off / TBLOCK : 1;
	     b * TBLOCK < off + len && (b + 2) * TBLOCK <= g->size; b++) {
		uint64_t j, from = MAX(b * TBLOCK, off), to = MIN((b + 1) * TBLOCK, off + len);
		int ret;

		if (!content_binary_model_pool_block(e->bm, g->key, b, &j))
			continue;
		ret = e->base->fill(&p, (j + 1) * TBLOCK + (from - b * TBLOCK), buf + (from - off),
				    (size_t)(to - from));
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Duplicate 4 KiB blocks of a typed format (gzip, PNG: the profile's share
 * d > 0).  In real trees they are shared first blocks: files that begin
 * alike (the changelogs of a few packages of one source, renderings of
 * an image) and part further on; overwriting blocks afterwards would
 * break the format's sums.  So files are grouped, each group sharing its
 * first blocks (gen_file.plen, the format makes them alike and stays
 * valid, its sums over each file's own bytes): runs of neighbours by size
 * among the extension's distinct files, 2 to 4 of them (PREFIX_GROUP: 2.7
 * on average, as /usr/share/doc's .gz share a block 2.68 times), taken in
 * a seeded order, each sharing a seeded share of its smallest one's
 * blocks, until the groups' blocks (every occurrence counts) make the
 * share of all the full blocks.  margin: bytes of its own a file keeps
 * after the prefix; near: every other file of a group at most an eighth
 * larger than its smallest (PNG: the group shares one image, the size of
 * its smallest file or PREFIX_PAD_MIN less, and a file larger than it
 * pads with a text chunk of PREFIX_PAD_MIN bytes or more).
 */
#define PREFIX_MIN_SHARE 0.25
#define PREFIX_PAD_MIN	 20u /* near: the least padding chunk (PNG's tEXt "Comment") */

/* A group's size from u in [0, 1): 2, 3 or 4 files by 1/2, 3/10 and 1/5 (mean 2.7). */
static unsigned prefix_group(double u)
{
	return u < 0.5 ? 2 : u < 0.8 ? 3 : 4;
}

static int prefix_file_cmp(const void *a, const void *b)
{
	const struct extc_prefix *x = a, *y = b;

	return x->file < y->file ? -1 : x->file > y->file;
}

/*
 * Whether candidate c[i + k] may join the group of c[i] (near: the format's
 * sizes).  Sizes a few bytes apart (real renderings of one image: the
 * source's PNGs within 32 bytes of each other) join too when the group's
 * image can be made PREFIX_PAD_MIN smaller than its smallest file, so that
 * every file of it pads (prefix_base()).
 */
static bool prefix_joins(const struct size_pick *c, uint64_t i, uint64_t k, bool near,
			 uint64_t margin)
{
	uint64_t diff = c[i + k].size - c[i].size;

	if (!near)
		return true;
	if (!diff || diff >= PREFIX_PAD_MIN)
		return diff <= c[i + k].size / 8;
	return c[i].size >= TBLOCK + margin + PREFIX_PAD_MIN &&
	       diff + PREFIX_PAD_MIN <= c[i + k].size / 8;
}

/* The size of the image group c[i..i + g) shares: its smallest's, or less by the least padding. */
static uint64_t prefix_base(const struct size_pick *c, uint64_t i, uint64_t g, bool near)
{
	for (uint64_t m = i + 1; near && m < i + g; m++) {
		uint64_t diff = c[m].size - c[i].size;

		if (diff && diff < PREFIX_PAD_MIN)
			return c[i].size - PREFIX_PAD_MIN;
	}
	return c[i].size;
}

static int prefix_init(const struct content_model *cm, struct extc_ent *e, double d,
		       uint64_t margin, bool near)
{
	const struct plan *pl = cm->pl;
	struct size_pick *c = NULL; /* the candidates, by size then file */
	uint64_t *grp = NULL, nc = 0, ng = 0, full = 0, want, made = 0, key;
	char stream[64];
	struct rng r;
	int ret = -ENOMEM;

	for (uint64_t f = 0; pl && d > 0 && f < pl->nfiles; f++)
		if (!(pl->file_dup_of && pl->file_dup_of[f] != PLAN_NONE) &&
		    !strcmp(plan_file_ext(pl, f), e->name)) {
			full += pl->file_size[f] / TBLOCK;
			nc += pl->file_size[f] >= TBLOCK + margin;
		}
	want = (uint64_t)llround(d * (double)full);
	if (want < 2 || nc < 2)
		return 0;
	c = malloc(nc * sizeof(*c));
	grp = malloc(nc / 2 * sizeof(*grp));
	e->pre = malloc(nc * sizeof(*e->pre));
	if (!c || !grp || !e->pre)
		goto out;
	nc = 0;
	for (uint64_t f = 0; f < pl->nfiles; f++)
		if (!(pl->file_dup_of && pl->file_dup_of[f] != PLAN_NONE) &&
		    !strcmp(plan_file_ext(pl, f), e->name) && pl->file_size[f] >= TBLOCK + margin)
			c[nc++] = (struct size_pick){ pl->file_size[f], f };
	qsort(c, nc, sizeof(*c), size_pick_cmp);
	snprintf(stream, sizeof(stream), "content.prefix.%s", e->name);
	key = rng_stream_key(cm->seed, stream);
	rng_open(&r, key, 0);
	/* groups: c[i] and the next g - 1 that may join it; grp[] holds i and g (low 3 bits) */
	for (uint64_t i = 0; i + 1 < nc;) {
		unsigned g = prefix_group(rng_uniform(&r)), k = 1;

		while (k < g && i + k < nc && prefix_joins(c, i, k, near, margin))
			k++;
		if (k < 2) {
			i++;
			continue;
		}
		grp[ng++] = i << 3 | k;
		i += k;
	}
	for (uint64_t k = 0; k < ng && made + 1 < want; k++) {
		/* group j: a seeded order (Fisher-Yates, one step a group) */
		uint64_t j = k + rng_below(&r, ng - k), t = grp[j], i = t >> 3, g = t & 7;
		uint64_t base = prefix_base(c, i, g, near), cap = (base - margin) / TBLOCK, n;
		double u = rng_uniform(&r);

		grp[j] = grp[k];
		grp[k] = t;
		n = MAX((uint64_t)1, (uint64_t)((PREFIX_MIN_SHARE + (1 - PREFIX_MIN_SHARE) * u) * cap));
		n = MIN(n, (want - made) / g);
		if (!n) { /* the last: a block in as many of its files as are wanted (2 or more) */
			g = MIN(g, want - made);
			n = 1;
		}
		for (uint64_t m = i; m < i + g; m++)
			e->pre[e->npre++] = (struct extc_prefix){
				.file = c[m].file,
				.key = rng_mix64(key ^ rng_mix64(k + 1)),
				.len = n * TBLOCK,
				.size = base,
			};
		made += g * n;
	}
	qsort(e->pre, e->npre, sizeof(*e->pre), prefix_file_cmp);
	e->pre_share = full ? (double)made / (double)full : 0;
	ret = 0;
out:
	free(c);
	free(grp);
	return ret;
}

static const struct extc_prefix *prefix_find(const struct extc_ent *e, uint64_t file)
{
	uint64_t lo = 0, hi = e->npre;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (e->pre[mid].file == file)
			return &e->pre[mid];
		if (e->pre[mid].file < file)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int content_extc_init(struct content_model *cm)
{
	const struct param_tables *t = cm->pl ? &cm->pl->prm.tab : NULL;
	struct extc_sample sm;
	struct extc *x;
	int ret = 0;

	cm->extc_priv = NULL;
	if (!t || !t->nextc)
		return 0;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	cm->extc_priv = x;
	for (uint32_t i = 0; i < t->nextc && !ret; i++) {
		struct extc_ent *e = &x->e[x->n++];
		const double *f = t->extc[i];
		const struct gen_ops *ops = content_ext_ops(t->extc_name[i]);

		snprintf(e->name, sizeof(e->name), "%s", t->extc_name[i]);
		ret = sample_pick(cm, e->name, &sm);
		if (ret)
			break;
		if (is_text_ops(ops) || (ops == &gen_binary_ops && f[4] >= 0.5)) {
			const struct gen_ops *alt;

			e->kind = EXTC_TEXT;
			e->base = is_text_ops(ops)	    ? ops
				  : is_xml_named(e->name) ? &gen_lines_xml_ops
							    : &gen_text_ops;
			alt = e->base == &gen_text_ops ? &gen_lines_ops
			      : e->base == &gen_xml_ops ? &gen_lines_xml_ops
							: NULL;
			ret = calibrate_text(cm, e, f, &sm);
			if (!ret && alt)
				ret = try_lines(cm, e, alt, f, &sm);
			if (!ret)
				ret = text_dups_init(cm, e, f[2]);
		} else if (ops == &gen_mo_ops) {
			/* catalogues: how many messages continue an earlier one */
			e->kind = EXTC_PYC;
			e->base = ops;
			ret = calibrate(cm, e, f[0], &sm, -65535);
		} else if (ops == &gen_pdf_ops || ops == &gen_jpeg_ops || ops == &gen_gif_ops) {
			/*
			 * to its ratio: PDF down by deflated pages (gen_file.boost
			 * below 0, archive/pdf.c), JPEG up by MCUs of a pattern
			 * ending each restart interval (above 0, image/jpeg.c),
			 * GIF down by runs of noise pixels (below 0, image/gif.c),
			 * then by codes naming its string table's entries
			 */
			e->kind = EXTC_PYC;
			e->base = ops;
			ret = calibrate(cm, e, f[0], &sm,
					ops == &gen_gif_ops ? GEN_GIF_BOOST_LEAST : -65535);
		} else if (ops == &gen_binary_ops && !strcasecmp(e->name, "pyc")) {
			e->kind = EXTC_PYC;
			e->base = &gen_pyc_ops;
			ret = calibrate(cm, e, f[0], &sm, -65535);
		} else if (((ops == &gen_gzip_ops && strcasecmp(e->name, "tgz")) ||
			    ops == &gen_png_ops) && f[2] > 0) {
			/* not .tgz: a prefix's data is text, a .tgz holds a tar */
			e->kind = EXTC_PREFIX;
			e->base = ops;
			ret = prefix_init(cm, e, f[2], ops == &gen_png_ops ? 128 : 72,
					  ops == &gen_png_ops);
		} else if (ops == &gen_binary_ops) {
			char pool[64];
			double z = f[3], d = f[2] + z > 1 ? 1 - z : f[2];

			snprintf(pool, sizeof(pool), "content.pool.ext.%s", e->name);
			e->kind = EXTC_BIN;
			ret = content_binary_model_new(cm, f[0], z, d, pool, e->name, &e->bm);
		} else {
			e->kind = EXTC_KEEP;
		}
	}
	if (ret)
		content_extc_release(cm);
	return ret;
}

void content_extc_release(struct content_model *cm)
{
	struct extc *x = cm->extc_priv;

	if (!x)
		return;
	for (uint32_t i = 0; i < x->n; i++) {
		free(x->e[i].bm);
		free(x->e[i].pre);
	}
	free(x);
	cm->extc_priv = NULL;
}

long content_extc_boost(const struct content_model *cm, const char *ext)
{
	const struct extc_ent *e = extc_find(cm, ext);

	return e && e->kind == EXTC_TEXT ? (long)e->boost : -1;
}

int content_extc_deal(const struct content_model *cm, const char *ext,
		      struct content_binary_deal *d)
{
	const struct extc_ent *e = extc_find(cm, ext);

	memset(d, 0, sizeof(*d));
	if (!e || e->kind == EXTC_KEEP)
		return -1;
	if (e->kind == EXTC_PREFIX) {
		d->dup_share = e->pre_share; /* made, not drawn: exactly */
		d->pool_blocks = 1;
		return 1;
	}
	if (e->kind == EXTC_PYC || !e->bm)
		return 0;
	content_binary_model_deal(e->bm, d);
	if (e->kind == EXTC_TEXT)
		d->dup_share *= e->dup_reach; /* of all its full blocks */
	return 1;
}

long content_extc_fresh(const struct content_model *cm, const char *ext)
{
	const struct extc_ent *e = extc_find(cm, ext);

	return e && e->kind == EXTC_TEXT ? (long)e->fresh : -1;
}

long content_extc_narrow(const struct content_model *cm, const char *ext)
{
	const struct extc_ent *e = extc_find(cm, ext);

	return e && e->kind == EXTC_TEXT ? (long)e->narrow : -1;
}

static int extc_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	const struct extc_ent *e = extc_find(g->cm, g->ext);
	const struct extc_prefix *pre;
	struct gen_file t;
	int ret;

	if (gen_check_request(g, 0, off, len))
		return -EINVAL;
	switch (e ? e->kind : EXTC_KEEP) {
	case EXTC_TEXT:
	case EXTC_PYC:
		if (g->size < e->base->min_size)
			break; /* as without the profile's entry (a .jpg of 163 bytes: binary) */
		t = *g;
		t.boost = e->boost;
		t.fresh = e->fresh;
		t.narrow = e->narrow;
		ret = e->base->fill(&t, off, buf, len);
		return ret || !e->bm ? ret : text_dups(e, &t, off, buf, len);
	case EXTC_BIN:
		content_binary_model_bytes(e->bm, g->key, g->size, off, buf, len);
		return 0;
	case EXTC_PREFIX:
		/*
		 * the plan's file at its planned size only (a later generation's
		 * file of another size, rewritten, is made as itself)
		 */
		pre = prefix_find(e, g->file);
		if (!pre || g->size < e->base->min_size || g->file >= g->cm->pl->nfiles ||
		    g->size != g->cm->pl->file_size[g->file])
			break;
		t = *g;
		t.pkey = pre->key;
		t.plen = pre->len;
		t.psize = pre->size;
		return e->base->fill(&t, off, buf, len);
	case EXTC_KEEP:
		break;
	}
	if (g->size < content_ext_ops(g->ext)->min_size)
		return gen_binary_ops.fill(g, off, buf, len);
	return content_ext_ops(g->ext)->fill(g, off, buf, len);
}

static const struct gen_ops gen_extc_ops = { .name = "profile", .min_size = 0, .fill = extc_fill };

/* A format made by one thread (PNG): so are its files of shared prefixes. */
static const struct gen_ops gen_extc_whole_ops = {
	.name = "profile", .min_size = 0, .whole = 1, .fill = extc_fill
};

const struct gen_ops *content_extc_ops(const struct content_model *cm, const char *ext)
{
	const struct extc_ent *e = extc_find(cm, ext);

	if (!e || e->kind == EXTC_KEEP)
		return NULL;
	return e->kind == EXTC_PREFIX && e->base->whole ? &gen_extc_whole_ops : &gen_extc_ops;
}
