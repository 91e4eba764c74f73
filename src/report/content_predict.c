/* content_predict.c - the content figures a plan will reach: copies, blocks and sampled compression */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "content/extc.h"
#include "content/gen.h"
#include "content/model.h"
#include "content/registry.h"
#include "content/source.h"
#include "content/sparse.h"
#include "model/tables.h"
#include "plan/plan.h"
#include "report/content_predict.h"
#include "analysis/content_stats.h"
#include "analysis/content_stats_int.h"
#include "report/json_fields.h"
#include "util/util.h"
#include "util/rng.h"

/* Segment lengths by power of two: 1 B to 1 MiB. */
#define LEN_CLASSES 21

/* Segments compressed a length class: at most 64, about 2 MiB of them, at least 4. */
#define SAMPLE_MAX   64u
#define SAMPLE_MIN   4u
#define SAMPLE_BYTES (2u << 20)

/*
 * Segments of 512 KiB and more are many and differ by where they lie in
 * their file (an executable's code, strings and data): up to PIECES of
 * them a class are sampled, and of each a piece of PIECE bytes at a random
 * block of each quarter, which together compress like the segment.
 */
#define PIECE_CLASS 19
#define PIECES      64u
#define PIECE       (128u << 10)
#define PIECES_A_SEGMENT 4

/* The segments of one group's distinct files, by length class. */
struct strata {
	uint64_t n[LEN_CLASSES], bytes[LEN_CLASSES];
	uint64_t seen[LEN_CLASSES];                  /* pass two: segments met so far */
	uint64_t raw[LEN_CLASSES], zl[LEN_CLASSES], zs[LEN_CLASSES]; /* the sample */
};

static unsigned len_class(uint64_t len)
{
	unsigned c = 0;

	while (c + 1 < LEN_CLASSES && (UINT64_C(2) << c) <= len)
		c++;
	return c;
}

static unsigned class_quota(const struct strata *s, unsigned c)
{
	uint64_t k = SAMPLE_BYTES >> c;

	k = k > SAMPLE_MAX ? SAMPLE_MAX : k < SAMPLE_MIN ? SAMPLE_MIN : k;
	if (c >= PIECE_CLASS)
		k = PIECES;
	return (unsigned)(k < s->n[c] ? k : s->n[c]);
}

/* Bytes of [off, off + len) outside the holes. */
static uint64_t data_bytes(const struct sparse_holes *h, uint64_t off, uint64_t len)
{
	uint64_t in = 0;

	for (unsigned i = 0; i < h->n; i++) {
		uint64_t s = h->hole[i].off > off ? h->hole[i].off : off;
		uint64_t e = h->hole[i].off + h->hole[i].len < off + len ?
			     h->hole[i].off + h->hole[i].len : off + len;

		if (e > s)
			in += e - s;
	}
	return len - in;
}

/* Squeeze segment [off, off + len) of file f, its holes cut out as content-report does. */
static int sample_segment(const struct content_source *cs, struct squeezer *q, uint8_t *buf,
			  uint64_t f, const struct sparse_holes *h, uint64_t off, size_t len,
			  uint64_t *raw, uint64_t *zl, uint64_t *zs)
{
	size_t n = 0;
	int ret = cs->fill(cs, f, off, buf, len);

	if (ret)
		return ret;
	for (size_t i = 0; i < len;) {
		size_t j = i;
		bool hole = false;

		for (unsigned k = 0; k < h->n && !hole; k++)
			hole = off + i >= h->hole[k].off && off + i < h->hole[k].off + h->hole[k].len;
		/* runs of 4 KiB keep this cheap: holes are 64 KiB-aligned */
		j = i + (BLOCK < len - i ? BLOCK : len - i);
		if (!hole) {
			memmove(buf + n, buf + i, j - i);
			n += j - i;
		}
		i = j;
	}
	*raw = n;
	return n ? content_squeeze(q, buf, n, zl, zs) : 0;
}

struct walk {
	const struct plan *pl;
	const struct content_source *cs;
	bool sparse;
	struct strata group[2];       /* 0: other binary, 1: executables */
	struct squeezer q;
	uint8_t *buf;
	uint64_t sampled;
	uint8_t *ext_group;           /* group by extension id */
	double *ext_ratio;            /* ext_content's ratio by extension id, 0: not listed */
	double bin_inv;               /* other binary bytes over their targets */
};

/* A piece of PIECE bytes at a random block of each quarter of a large segment. */
static int sample_pieces(struct walk *w, uint64_t f, const struct sparse_holes *h, uint64_t off,
			 uint64_t len, uint64_t *raw, uint64_t *zl, uint64_t *zs)
{
	uint64_t q = len / PIECES_A_SEGMENT;

	for (unsigned k = 0; k < PIECES_A_SEGMENT; k++) {
		uint64_t at = off + k * q, r = 0, l = 0, s = 0;
		int ret;

		at += rng_mix64(f ^ rng_mix64(at)) % ((q - PIECE) / BLOCK + 1) * BLOCK;
		ret = sample_segment(w->cs, &w->q, w->buf, f, h, at, PIECE, &r, &l, &s);
		if (ret)
			return ret;
		*raw += r;
		*zl += l;
		*zs += s;
	}
	return 0;
}

/* Pass one counts the segments; pass two squeezes the ones the systematic sample picks. */
static int walk_segments(struct walk *w, uint64_t f, unsigned g, int pass)
{
	struct strata *s = &w->group[g];
	struct sparse_holes h = { 0 };
	uint64_t size = w->pl->file_size[f];

	if (w->sparse)
		sparse_file_holes(w->pl, f, &h);
	for (uint64_t off = 0; off < size; off += SEGMENT) {
		uint64_t len = size - off < SEGMENT ? size - off : SEGMENT;
		uint64_t data = h.n ? data_bytes(&h, off, len) : len;
		unsigned c, k;
		uint64_t i, raw = 0, zl = 0, zs = 0;
		int ret;

		if (!data)
			continue;
		c = len_class(data);
		if (pass == 1) {
			s->n[c]++;
			s->bytes[c] += data;
			continue;
		}
		k = class_quota(s, c);
		i = s->seen[c]++;
		/* every n/k-th segment of the class, from the middle of the first stride */
		if ((i * k + s->n[c] / 2) % s->n[c] >= k)
			continue;
		if (c >= PIECE_CLASS) {
			ret = sample_pieces(w, f, &h, off, len, &raw, &zl, &zs);
		} else {
			ret = sample_segment(w->cs, &w->q, w->buf, f, &h, off, (size_t)len, &raw,
					     &zl, &zs);
		}
		if (ret)
			return ret;
		s->raw[c] += raw;
		s->zl[c] += zl;
		s->zs[c] += zs;
		w->sampled += raw;
	}
	return 0;
}

/* Ratio of a group: its bytes over each class's bytes scaled by the sample's ratio. */
static void strata_ratio(const struct strata *s, double *zlib, double *zstd)
{
	double bytes = 0, zl = 0, zs = 0;

	for (unsigned c = 0; c < LEN_CLASSES; c++) {
		if (!s->raw[c])
			continue;
		bytes += (double)s->bytes[c];
		zl += (double)s->bytes[c] * (double)s->zl[c] / (double)s->raw[c];
		zs += (double)s->bytes[c] * (double)s->zs[c] / (double)s->raw[c];
	}
	*zlib = zl > 0 ? bytes / zl : 0;
	*zstd = zs > 0 ? bytes / zs : 0;
}

/* Open-addressing set of 64-bit content hashes (0 stands for an empty slot). */
struct hash64 {
	uint64_t *slot;
	size_t mask;
};

/* 1 when h was in the set already, 0 when added. */
static int hash64_add(struct hash64 *s, uint64_t h)
{
	size_t i;

	h |= 1;
	for (i = h & s->mask; s->slot[i]; i = (i + 1) & s->mask)
		if (s->slot[i] == h)
			return 1;
	s->slot[i] = h;
	return 0;
}

/* The group of file f, as content-report finds it from the file's name. */
static enum content_group file_group(const struct walk *w, uint64_t f)
{
	return (enum content_group)w->ext_group[w->pl->file_ext[f]];
}

/* Copies, chance copies and whole blocks: one walk over the files. */
static int predict_files(struct walk *w, struct content_prediction *pr)
{
	const struct plan *pl = w->pl;
	struct hash64 set = { 0 };
	uint64_t small = 0;
	int ret = 0;

	for (uint64_t f = 0; f < pl->nfiles; f++)
		small += content_source_file_of(w->cs, f) == f &&
			 pl->file_size[f] <= CONTENT_PREDICT_SMALL;
	for (set.mask = 1023; set.mask < 2 * small; set.mask = set.mask * 2 + 1)
		;
	set.slot = calloc(set.mask + 1, sizeof(*set.slot));
	if (!set.slot)
		return -ENOMEM;
	for (uint64_t f = 0; f < pl->nfiles; f++) {
		uint64_t size = pl->file_size[f];
		enum content_group g = file_group(w, f);

		if (content_source_file_of(w->cs, f) != f) {
			pr->copies++;
			continue;
		}
		if (size <= CONTENT_PREDICT_SMALL) {
			ret = w->cs->fill(w->cs, f, 0, w->buf, (size_t)size);
			if (ret)
				break;
			pr->empty_files += size == 0;
			pr->chance_copies += (uint64_t)hash64_add(&set, XXH3_64bits(w->buf, size));
		}
		pr->plan_blocks += size / BLOCK;
		if (g == CONTENT_BINARY) {
			struct sparse_holes h = { 0 };

			if (w->sparse)
				sparse_file_holes(pl, f, &h);
			double want = w->ext_ratio[pl->file_ext[f]];

			pr->bin_files++;
			w->bin_inv += (double)(size - h.bytes) / (want > 0 ? want : pl->prm.compress_ratio);
			pr->bin_blocks += size / BLOCK - h.bytes / BLOCK;
			pr->bin_bytes += size - h.bytes;
			if (size < BLOCK)
				pr->bin_small_bytes += size;
		} else if (g == CONTENT_EXEC) {
			pr->exec_files++;
			pr->exec_bytes += size;
			if (size < BLOCK)
				pr->exec_small_bytes += size;
		}
		if (g == CONTENT_BINARY || g == CONTENT_EXEC) {
			ret = walk_segments(w, f, g == CONTENT_EXEC, 1);
			if (ret)
				break;
		}
	}
	free(set.slot);
	return ret;
}

/*
 * Duplicate blocks: each whole block is drawn from the pool with the
 * dealt share d; a draw counts when its pool block is drawn again, which
 * for D draws over P pool blocks has probability 1 - (1 - 1/P)^(D - 1).
 */
static void predict_blocks(const struct content_model *cm, struct content_prediction *pr)
{
	struct content_binary_deal d;
	double draws;

	content_binary_deal(cm, &d);
	pr->pool_blocks = d.pool_blocks;
	pr->zero_block_share = pr->bin_blocks ? d.zero_share : 0;
	pr->dup_dealt = d.dup_share;
	draws = d.dup_share * (double)pr->bin_blocks;
	pr->pool_draws = d.pool_blocks ? draws / (double)d.pool_blocks : 0;
	if (!pr->bin_blocks || draws <= 1 || !d.pool_blocks)
		return;
	pr->dup_block_share =
		d.dup_share * (1 - exp((draws - 1) * log1p(-1.0 / (double)d.pool_blocks)));
	if (d.pool_blocks == 1)
		pr->dup_block_share = d.dup_share;
}

/* The per-extension rows of a profile's ext_content. */
static void predict_exts(const struct plan *pl, const struct content_model *cm,
			 const struct content_source *cs, struct content_prediction *pr)
{
	const struct param_tables *t = &pl->prm.tab;

	for (uint32_t k = 0; k < t->nextc && pr->next < CONTENT_PREDICT_EXT_MAX; k++) {
		struct content_ext_prediction *e = &pr->ext[pr->next++];
		struct content_binary_deal d;
		double draws;

		snprintf(e->ext, sizeof(e->ext), "%s", t->extc_name[k]);
		e->dup_target = t->extc[k][2];
		e->zero_target = t->extc[k][3];
		for (uint64_t f = 0; f < pl->nfiles; f++)
			if (content_source_file_of(cs, f) == f && !strcmp(plan_file_ext(pl, f), e->ext)) {
				e->files++;
				e->blocks += pl->file_size[f] / BLOCK;
			}
		e->known = content_extc_deal(cm, e->ext, &d) >= 0;
		draws = d.dup_share * (double)e->blocks;
		if (!e->known || !e->blocks)
			continue;
		e->zero = d.zero_share;
		if (draws >= 2)
			e->dup = d.pool_blocks == 1 ? d.dup_share :
				 d.dup_share * (1 - exp((draws - 1) * log1p(-1.0 / (double)d.pool_blocks)));
	}
}

void content_predict_print_ext(const struct content_prediction *pr,
			       const struct content_stats *st, FILE *out)
{
	if (!pr || !pr->next)
		return;
	fprintf(out, "  by extension (the profile's ext_content): 4 KiB blocks of distinct files%s\n"
		"  ext               blocks  zero target  predicted%s   dup target  predicted%s\n",
		st ? ", achieved by content-report" : "", st ? "   achieved" : "",
		st ? "   achieved" : "");
	for (unsigned i = 0; i < pr->next; i++) {
		const struct content_ext_prediction *e = &pr->ext[i];
		const struct content_ext_stats *m = NULL;

		for (size_t k = 0; st && k < st->next && !m; k++)
			if (!strcmp(st->ext[k].ext, e->ext))
				m = &st->ext[k];
		fprintf(out, "  %-15s %8llu  %11.4f", e->ext[0] ? e->ext : "(none)",
			(unsigned long long)e->blocks, e->zero_target);
		fprintf(out, e->known ? "  %9.4f" : "          -", e->zero);
		if (st)
			fprintf(out, m ? "  %9.4f" : "          -",
				m ? content_zero_block_share(&m->g) : 0);
		fprintf(out, "  %11.4f", e->dup_target);
		fprintf(out, e->known ? "  %9.4f" : "          -", e->dup);
		if (st)
			fprintf(out, m ? "  %9.4f" : "          -",
				m ? content_dup_block_share(&m->g) : 0);
		fputc('\n', out);
	}
	fprintf(out, "  (predicted: the extension's binary model deals them, text its duplicate blocks too, "
		".gz and .png their shared prefixes; - other typed formats, not predicted)\n\n");
}

int content_predict(const struct plan *pl, const struct content_model *cm,
		    const struct content_source *cs, struct content_prediction *pr)
{
	struct walk w = { .pl = pl, .cs = cs, .sparse = sparse_enabled(pl) };
	int ret, listed = 0;

	memset(pr, 0, sizeof(*pr));
	pr->files = pl->nfiles;
	pr->copies_wanted = (uint64_t)llround(pl->prm.dup_file_share * (double)pl->nfiles);
	w.buf = malloc(SEGMENT);
	w.ext_group = malloc(pl->ext.count ? pl->ext.count : 1);
	w.ext_ratio = calloc(pl->ext.count ? pl->ext.count : 1, sizeof(*w.ext_ratio));
	ret = content_squeezer_init(&w.q);
	if (!ret && (!w.buf || !w.ext_group || !w.ext_ratio))
		ret = -ENOMEM;
	for (size_t i = 0; !ret && i < pl->ext.count; i++) {
		const struct param_tables *t = &pl->prm.tab;

		w.ext_group[i] = (uint8_t)content_group_of_ext(pl->ext.name[i]);
		for (uint32_t k = 0; k < t->nextc; k++)
			if (!strcmp(t->extc_name[k], pl->ext.name[i])) {
				w.ext_ratio[i] = t->extc[k][0];
				listed = 1;
			}
	}
	if (!ret)
		ret = predict_files(&w, pr);
	for (uint64_t f = 0; !ret && f < pl->nfiles; f++) {
		enum content_group g = file_group(&w, f);

		if (content_source_file_of(w.cs, f) == f && (g == CONTENT_BINARY || g == CONTENT_EXEC))
			ret = walk_segments(&w, f, g == CONTENT_EXEC, 2);
	}
	if (!ret) {
		pr->dup_file_share = pl->nfiles ?
			(double)(pr->copies + pr->chance_copies) / (double)pl->nfiles : 0;
		predict_blocks(cm, pr);
		strata_ratio(&w.group[0], &pr->ratio_zlib, &pr->ratio_zstd);
		strata_ratio(&w.group[1], &pr->exec_zlib, &pr->exec_zstd);
		pr->sampled_bytes = w.sampled;
		predict_exts(pl, cm, cs, pr);
		if (listed && w.bin_inv > 0)
			pr->bin_target = (double)pr->bin_bytes / w.bin_inv;
	}
	content_squeezer_release(&w.q);
	free(w.ext_ratio);
	free(w.ext_group);
	free(w.buf);
	return ret;
}

/* ---- against the targets ------------------------------------------------- */

/* Each figure's name, and what it is measured over (content-report's note). */
static const struct {
	const char *name, *note;
} figures[CF_COUNT] = {
	[CF_RATIO_ZLIB] = { "compress_ratio zlib", "other binary, level 6" },
	[CF_RATIO_ZSTD] = { "compress_ratio zstd", "other binary, level 3" },
	[CF_EXEC_ZLIB] = { "compress_ratio_exec zlib", "executables, level 6" },
	[CF_EXEC_ZSTD] = { "compress_ratio_exec zstd", "executables, level 3" },
	[CF_DUP_FILES] = { "dup_file_share", "all files" },
	[CF_DUP_BLOCKS] = { "dup_block_share", "other binary" },
	[CF_ZERO_BLOCKS] = { "zero_block_share", "other binary" },
};

const char *content_figure_name(enum content_figure f)
{
	return f < CF_COUNT ? figures[f].name : "?";
}

const char *content_figure_note(enum content_figure f)
{
	return f < CF_COUNT ? figures[f].note : "?";
}

double content_predicted(const struct content_prediction *pr, enum content_figure f)
{
	switch (f) {
	case CF_RATIO_ZLIB: return pr->ratio_zlib;
	case CF_RATIO_ZSTD: return pr->ratio_zstd;
	case CF_EXEC_ZLIB: return pr->exec_zlib;
	case CF_EXEC_ZSTD: return pr->exec_zstd;
	case CF_DUP_FILES: return pr->dup_file_share;
	case CF_DUP_BLOCKS: return pr->dup_block_share;
	case CF_ZERO_BLOCKS: return pr->zero_block_share;
	default: return NAN;
	}
}

double content_figure_target(const struct content_targets *t, enum content_figure f)
{
	switch (f) {
	case CF_RATIO_ZLIB:
	case CF_RATIO_ZSTD: return t->compress_ratio;
	case CF_EXEC_ZLIB:
	case CF_EXEC_ZSTD: return t->compress_ratio_exec;
	case CF_DUP_FILES: return t->dup_file_share;
	case CF_DUP_BLOCKS: return t->dup_block_share;
	case CF_ZERO_BLOCKS: return t->zero_block_share;
	default: return NAN;
	}
}

double content_pred_target(const struct content_prediction *pr, const struct content_targets *t,
			   enum content_figure f)
{
	if ((f == CF_RATIO_ZLIB || f == CF_RATIO_ZSTD) && pr && pr->bin_target > 0)
		return pr->bin_target;
	return content_figure_target(t, f);
}

/* Whether figure f has anything to measure in the plan. */
static bool figure_has_data(const struct content_prediction *pr, enum content_figure f)
{
	switch (f) {
	case CF_RATIO_ZLIB:
	case CF_RATIO_ZSTD: return pr->bin_bytes > 0;
	case CF_EXEC_ZLIB:
	case CF_EXEC_ZSTD: return pr->exec_bytes > 0;
	case CF_DUP_FILES: return pr->files > 0;
	default: return pr->bin_files > 0;
	}
}

static double share_d(double part, double whole)
{
	return whole > 0 ? part / whole : 0;
}

static double share(uint64_t part, uint64_t whole)
{
	return share_d((double)part, (double)whole);
}

/* Why a ratio of a group misses: its small files, or the model's reach. */
static void why_ratio(char *why, size_t len, const char *group, uint64_t small, uint64_t bytes,
		      uint64_t files, double pred, double target)
{
	if (pred < target && share(small, bytes) >= 0.05)
		snprintf(why, len, "%.0f%% of the bytes of %s are in files under 4 KiB (mean "
			 "%.0f B), which compress less: stream headers, little to match",
			 100 * share(small, bytes), group, (double)bytes / (double)files);
	else
		snprintf(why, len, "with this content model, the %s of this plan (%llu distinct "
			 "files, mean %.0f B) compress %.3f", group, (unsigned long long)files,
			 (double)bytes / (double)files, pred);
}

static void why_dup_files(const struct content_prediction *pr, char *why, size_t len)
{
	int n = 0;

	if (pr->copies < pr->copies_wanted)
		n = snprintf(why, len, "the plan holds %llu whole-file copies of the %llu wanted%s",
			     (unsigned long long)pr->copies,
			     (unsigned long long)pr->copies_wanted,
			     pr->copies ? "" : " (copies of the drawn sizes would hold more bytes "
			     "than --used, so none are made)");
	if (!n && pr->copies_wanted == pr->copies && !pr->chance_copies)
		n = snprintf(why, len, "%llu files hold %llu whole-file copies at that share "
			     "(it rounds to a whole count)", (unsigned long long)pr->files,
			     (unsigned long long)pr->copies_wanted);
	else if (pr->chance_copies && n >= 0 && (size_t)n < len)
		snprintf(why + n, len - (size_t)n, "%s%llu small files are equal by chance "
			 "(%llu empty)", n ? "; " : "", (unsigned long long)pr->chance_copies,
			 (unsigned long long)pr->empty_files);
}

static void why_blocks(const struct content_prediction *pr, enum content_figure f, char *why,
		       size_t len)
{
	if (!pr->bin_blocks)
		snprintf(why, len, "other binary has no whole 4 KiB block in this plan (%llu files, "
			 "%llu bytes)", (unsigned long long)pr->bin_files,
			 (unsigned long long)pr->bin_bytes);
	else if (f == CF_DUP_BLOCKS && pr->dup_dealt * (double)pr->bin_blocks < 2)
		snprintf(why, len, "other binary holds %llu whole blocks: at a share of %.4f, fewer "
			 "than two are drawn as duplicates, and one block cannot repeat",
			 (unsigned long long)pr->bin_blocks, pr->dup_dealt);
	else if (f == CF_DUP_BLOCKS)
		snprintf(why, len, "other binary holds %llu of the plan's %llu whole blocks; the "
			 "shared pool (%llu blocks) is drawn %.2f times a block, so only %.0f%% of the "
			 "duplicate draws repeat",
			 (unsigned long long)pr->bin_blocks, (unsigned long long)pr->plan_blocks,
			 (unsigned long long)pr->pool_blocks, pr->pool_draws,
			 100 * share_d(pr->dup_block_share, pr->dup_dealt));
	else
		snprintf(why, len, "other binary has only %llu whole blocks",
			 (unsigned long long)pr->bin_blocks);
}

int content_predict_check(const struct content_prediction *pr, const struct content_targets *t,
			  enum content_figure f, char *why, size_t len)
{
	double want = content_pred_target(pr, t, f), got = content_predicted(pr, f);

	if (len)
		why[0] = '\0';
	if (isnan(want) || !figure_has_data(pr, f) || (want == 0 && f != CF_DUP_FILES))
		return -1;
	if (want == 0 ? got == 0 : fabs(got / want - 1) <= CONTENT_PREDICT_TOL)
		return 1;
	switch (f) {
	case CF_RATIO_ZLIB:
	case CF_RATIO_ZSTD:
		why_ratio(why, len, "other binary", pr->bin_small_bytes, pr->bin_bytes,
			  pr->bin_files, got, want);
		break;
	case CF_EXEC_ZLIB:
	case CF_EXEC_ZSTD:
		why_ratio(why, len, "executables", pr->exec_small_bytes, pr->exec_bytes,
			  pr->exec_files, got, want);
		break;
	case CF_DUP_FILES:
		why_dup_files(pr, why, len);
		break;
	default:
		why_blocks(pr, f, why, len);
		break;
	}
	return 0;
}

void content_predict_print_missed(const struct content_prediction *pr,
				  const struct content_targets *t, FILE *out)
{
	char why[400];
	int any = 0;

	for (int f = 0; f < CF_COUNT; f++) {
		if (content_predict_check(pr, t, (enum content_figure)f, why, sizeof(why)))
			continue;
		fprintf(out, "  predicted miss: %s reaches %.4f, not %.4f: %s\n", figures[f].name,
			content_predicted(pr, (enum content_figure)f),
			content_pred_target(pr, t, (enum content_figure)f), why);
		any = 1;
	}
	if (any)
		fputc('\n', out);
}

void content_predict_print_text(const struct content_prediction *pr,
				const struct content_targets *t, FILE *out)
{
	char why[400];

	fprintf(out, "\ncontent targets (predicted from the plan; reachable: within %.0f%%)\n",
		100 * CONTENT_PREDICT_TOL);
	fprintf(out, "  figure                       target  predicted\n");
	for (int f = 0; f < CF_COUNT; f++) {
		int v = content_predict_check(pr, t, (enum content_figure)f, why, sizeof(why));

		fprintf(out, "  %-26s %8.4f   %8.4f  %s\n", figures[f].name,
			content_pred_target(pr, t, (enum content_figure)f),
			content_predicted(pr, (enum content_figure)f),
			v > 0 ? "ok" : v < 0 ? "-" : "not reachable");
	}
	fprintf(out, "  (copies %llu of %llu wanted, %llu more files equal by chance; other binary "
		"%llu whole blocks; %.1f MiB sampled for the ratios)\n",
		(unsigned long long)pr->copies, (unsigned long long)pr->copies_wanted,
		(unsigned long long)pr->chance_copies, (unsigned long long)pr->bin_blocks,
		(double)pr->sampled_bytes / 1048576.0);
	content_predict_print_missed(pr, t, out);
	content_predict_print_ext(pr, NULL, out);
}

/* {"target", "predicted", "reachable", "why"} of figure f. */
static json_object *figure_json(const struct content_prediction *pr,
				const struct content_targets *t, enum content_figure f)
{
	json_object *o = json_object_new_object();
	double want = content_pred_target(pr, t, f);
	char why[400];
	int v = content_predict_check(pr, t, f, why, sizeof(why));

	json_object_object_add(o, "figure", json_object_new_string(figures[f].name));
	json_object_object_add(o, "target", isnan(want) ? NULL : json_object_new_double(want));
	/* three decimals: the sampled ratios depend on the installed zlib and zstd a little */
	json_object_object_add(o, "predicted",
			       json_object_new_double(round(content_predicted(pr, f) * 1000) / 1000));
	json_object_object_add(o, "reachable", v < 0 ? NULL : json_object_new_boolean(v));
	json_object_object_add(o, "why", v ? NULL : json_object_new_string(why));
	return o;
}

/* The prediction's counts in its JSON object, in this order */
static const struct json_u64_field counts[] = {
	JSON_U64(struct content_prediction, copies),
	JSON_U64(struct content_prediction, copies_wanted),
	JSON_U64(struct content_prediction, chance_copies),
	JSON_U64_AS(struct content_prediction, "binary_blocks", bin_blocks),
	JSON_U64(struct content_prediction, pool_blocks),
	JSON_U64(struct content_prediction, sampled_bytes),
};

/* pr->ext as [{"ext", "blocks", "zero_target", "zero", "dup_target", "dup"}], null: not predicted. */
static json_object *ext_json(const struct content_prediction *pr)
{
	json_object *a = json_object_new_array();

	for (unsigned i = 0; i < pr->next; i++) {
		const struct content_ext_prediction *e = &pr->ext[i];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "ext", json_object_new_string(e->ext));
		json_object_object_add(o, "blocks", json_object_new_int64((int64_t)e->blocks));
		json_object_object_add(o, "zero_target", json_object_new_double(e->zero_target));
		json_object_object_add(o, "zero", e->known ? json_object_new_double(e->zero) : NULL);
		json_object_object_add(o, "dup_target", json_object_new_double(e->dup_target));
		json_object_object_add(o, "dup", e->known ? json_object_new_double(e->dup) : NULL);
		json_object_array_add(a, o);
	}
	return a;
}

json_object *content_predict_json(const struct content_prediction *pr,
				  const struct content_targets *t)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();

	for (int f = 0; f < CF_COUNT; f++)
		json_object_array_add(a, figure_json(pr, t, (enum content_figure)f));
	json_object_object_add(o, "figures", a);
	json_add_u64s(o, pr, counts, ARRAY_SIZE(counts));
	if (pr->next)
		json_object_object_add(o, "extensions", ext_json(pr));
	return o;
}

json_object *content_predict_json_missed(const struct content_prediction *pr,
					 const struct content_targets *t)
{
	json_object *a = NULL;

	for (int f = 0; f < CF_COUNT; f++) {
		if (content_predict_check(pr, t, (enum content_figure)f, NULL, 0))
			continue;
		if (!a)
			a = json_object_new_array();
		json_object_array_add(a, figure_json(pr, t, (enum content_figure)f));
	}
	return a;
}
