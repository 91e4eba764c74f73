/* archive.c - PDF, ZIP, gzip and tar files of exact size and valid structure, by random access */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "content/gen.h"
#include "content/model.h"
#include "util/rng.h"

#define MIN(a, b)     ((a) < (b) ? (a) : (b))
#define MAX(a, b)     ((a) > (b) ? (a) : (b))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Salts: each kind of draw of a file comes from (key ^ salt, index), never twice the same. */
#define SALT_NAME   UINT64_C(0x8E6E9A5CB2D1F0A7)
#define SALT_SIZE   UINT64_C(0x5A2B7C19E4D3F681)
#define SALT_FILE   UINT64_C(0x2B9F4E6A1C7D3058)
#define SALT_MEMBER UINT64_C(0xD4C3B2A1F0E9D8C7)
#define SALT_PDF    UINT64_C(0x1F2E3D4C5B6A7988)
#define SALT_PAGE   UINT64_C(0x7A6B5C4D3E2F1009)
#define SALT_IMAGE  UINT64_C(0x3C5A7E9B1D2F4861)
#define SALT_GZIP   UINT64_C(0x6D8F0A2C4E6B8D1F)
#define SALT_DFL    UINT64_C(0x9B3E5C7A1F2D4E60)

/* A member's bytes are made this many at a time when its whole CRC-32 is needed. */
#define CRC_CHUNK (256u << 10)

/* Smallest valid files (see the layouts below). */
#define PDF_MIN	 635u
#define ZIP_MIN	 128u
#define GZIP_MIN 32u
#define TAR_MIN	 1536u

/* Dates of archive members and documents: 2008 to 2023. */
#define TIME_BASE UINT32_C(1199145600)
#define TIME_SPAN UINT32_C(504576000)

struct entries;
static int tar_fill_entries(const struct gen_file *g, const struct entries *es, uint64_t off,
			    uint8_t *buf, size_t len);

/* ------------------------------------------------------------------------- */
/* Shared helpers */

/* The part of request [off, off + len) inside region [start, start + n), if any. */
static bool clip(uint64_t start, uint64_t n, uint64_t off, size_t len, uint64_t *from, size_t *cnt)
{
	uint64_t a = MAX(start, off), z = MIN(start + n, off + len);

	if (a >= z)
		return false;
	*from = a;
	*cnt = (size_t)(z - a);
	return true;
}

/* Copy into the request the part it covers of a rendered region (n bytes at file offset start). */
static void put_region(const void *src, uint64_t start, uint64_t n, uint64_t off, uint8_t *buf,
		       size_t len)
{
	uint64_t from;
	size_t cnt;

	if (clip(start, n, off, len, &from, &cnt))
		memcpy(buf + (from - off), (const uint8_t *)src + (from - start), cnt);
}

static int check_request(const struct gen_file *g, uint64_t min, uint64_t off, size_t len)
{
	if (g->size < min || off > g->size || len > g->size - off)
		return -EINVAL;
	return 0;
}

static unsigned int ndigits(uint64_t v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

static uint64_t isqrt64(uint64_t v)
{
	uint64_t r = 0, bit = UINT64_C(1) << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static uint64_t sub_key(uint64_t key, uint64_t salt, uint64_t i)
{
	return rng_mix64(key ^ salt ^ rng_mix64(i + 1));
}

/* Append formatted text at s + n (never past cap - 1, always terminated): the new length. */
static size_t catf(char *s, size_t n, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t catf(char *s, size_t n, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (n + 1 >= cap)
		return n;
	va_start(ap, fmt);
	w = vsnprintf(s + n, cap - n, fmt, ap);
	va_end(ap);
	if (w < 0)
		return n;
	return MIN(n + (size_t)w, cap - 1);
}

/* Names and titles when the model has no vocabulary to draw them from. */
static const char *const plain_words[] = {
	"annual",    "budget",	  "report",  "notes",	"summary",  "project",	"draft",
	"final",     "meeting",	  "minutes", "invoice", "letter",   "thesis",	"chapter",
	"review",    "plan",	  "data",    "results", "survey",   "sample",	"backup",
	"archive",   "travel",	  "recipes", "manual",	"guide",    "install",	"setup",
	"config",    "release",	  "client",  "server",	"design",   "proposal", "contract",
	"schedule",  "inventory", "sales",   "market",	"research", "lecture",	"course",
	"homework",  "paper",	  "slides",  "garden",	"house",    "family",	"school",
	"history",   "science",	  "network", "system",	"orders",   "export",	"records",
	"accounts",  "payroll",	  "taxes",   "legal",	"agenda",   "weekly",	"monthly",
	"quarterly",
};

/* A fairly common word (not one of the commonest) of the model's vocabulary. */
static const char *pick_word(const struct content_model *cm, struct rng *r)
{
	if (cm && cm->word && cm->nwords >= 256) {
		size_t lo = 100, hi = MIN(cm->nwords, (size_t)5000);

		return cm->word[lo + rng_below(r, hi - lo)];
	}
	return plain_words[rng_below(r, ARRAY_SIZE(plain_words))];
}

static void dos_time(uint32_t t, uint16_t *time, uint16_t *date)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	*time = (uint16_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
	*date = (uint16_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
}

/* ------------------------------------------------------------------------- */
/*
 * Archive members, shared by ZIP and tar: a top directory with a few
 * subdirectories once the archive is 8 KiB or more, files of text
 * (gen_text_bytes(), ending with a newline) or binary (gen_binary_bytes())
 * content under plausible names, sizes drawn log-uniformly over three
 * decades and scaled to fill exactly what the format leaves for data.
 */

#define ENTRY_NAME_MAX 99 /* ustar's name field, without its prefix */
#define FILES_MAX      1024u
#define DIRS_MIN       8192u /* smaller archives hold files only */
#define NAME_SLOTS     4096u /* hash slots for duplicate names, > 2 x entries */

/* ENTRY_RANDOM: incompressible bytes (the already compressed members of a ZIP, stored) */
enum entry_kind { ENTRY_DIR, ENTRY_TEXT, ENTRY_BINARY, ENTRY_TAR, ENTRY_RANDOM };

struct entry {
	uint64_t size;	 /* data bytes (0 for a directory) */
	uint64_t csize;	 /* bytes in the archive (ZIP: deflated or stored) */
	uint64_t key;	 /* content key */
	uint64_t off;	 /* the entry's header in the archive */
	uint32_t crc;	 /* valid when has_crc */
	uint32_t mtime;	 /* seconds since the epoch */
	uint32_t weight; /* share of the data, while sizes are dealt */
	uint8_t kind;	 /* enum entry_kind */
	uint8_t has_crc;
	uint8_t fixed; /* size capped while sizes are dealt */
	uint8_t name_len;
	uint8_t method; /* ZIP: 0 stored, 8 deflated */
	char name[ENTRY_NAME_MAX + 1];
};

struct entries {
	struct entry *e;
	unsigned int n;
};

/*
 * What a format leaves for member data once its headers are paid for, in
 * its units (bytes for ZIP, 512-byte blocks for tar); negative when the
 * entries do not fit.
 */
struct entries_fmt {
	int64_t (*left)(const struct entries *es, uint64_t size);
	uint64_t part_max;   /* most units in one member */
	bool blocks;	     /* units are 512-byte blocks */
	bool text_only;	     /* every file is text (the tar of a gzip) */
	uint64_t file_bytes; /* if not 0: a file for every file_bytes */
};

static const char *const sub_dirs[] = {
	"docs", "src", "data", "notes", "logs", "reports", "old", "misc", "drafts", "backup", "tmp",
};

static const char *const text_exts[] = { ".txt", ".txt", ".txt", ".md", ".log", ".rst", ".text" };
static const char *const bin_exts[] = { ".bin", ".dat", ".db", ".idx", ".pack", ".raw", ".cache" };
static const char *const special_names[] = { "README", "NOTES", "TODO", "CHANGES", "INSTALL" };

static size_t top_dir_name(const struct gen_file *g, char *s, size_t cap)
{
	struct rng r;
	size_t n;

	rng_open(&r, g->key ^ SALT_NAME, 0);
	n = catf(s, 0, cap, "%s", pick_word(g->cm, &r));
	switch (rng_below(&r, 6)) {
	case 0:
		n = catf(s, n, cap, "-%u.%u", 1 + (unsigned int)rng_below(&r, 4),
			 (unsigned int)rng_below(&r, 10));
		break;
	case 1:
		n = catf(s, n, cap, "_%u", 2008 + (unsigned int)rng_below(&r, 16));
		break;
	case 2:
		n = catf(s, n, cap, "-%s", pick_word(g->cm, &r));
		break;
	default:
		break;
	}
	return catf(s, n, cap, "/");
}

/* Base name of file j: a stem, and an extension that says its kind. */
static size_t file_base_name(const struct gen_file *g, unsigned int j, int kind, bool tiny,
			     bool numbered, char *s, size_t cap)
{
	struct rng r;
	const char *w;
	size_t n = 0;

	rng_open(&r, g->key ^ SALT_NAME, j + 1);
	w = pick_word(g->cm, &r);
	if (tiny)
		return catf(s, 0, cap, "%.6s.txt", w);
	if (kind == ENTRY_TEXT && rng_below(&r, 16) == 0) {
		n = catf(s, n, cap, "%s", special_names[rng_below(&r, ARRAY_SIZE(special_names))]);
		if (numbered)
			n = catf(s, n, cap, "-%u", j + 1);
		return catf(s, n, cap, "%s", rng_below(&r, 2) ? "" : ".md");
	}
	n = catf(s, n, cap, "%s", w);
	switch (rng_below(&r, 5)) {
	case 0:
		n = catf(s, n, cap, "_%s", pick_word(g->cm, &r));
		break;
	case 1:
		n = catf(s, n, cap, "-%u", 1 + (unsigned int)rng_below(&r, 40));
		break;
	case 2:
		n = catf(s, n, cap, "_%u-%02u", 2008 + (unsigned int)rng_below(&r, 16),
			 1 + (unsigned int)rng_below(&r, 12));
		break;
	default:
		break;
	}
	if (numbered)
		n = catf(s, n, cap, "-%u", j + 1);
	if (kind == ENTRY_TEXT)
		return catf(s, n, cap, "%s", text_exts[rng_below(&r, ARRAY_SIZE(text_exts))]);
	return catf(s, n, cap, "%s", bin_exts[rng_below(&r, ARRAY_SIZE(bin_exts))]);
}

static uint64_t name_hash(const char *s, size_t n)
{
	uint64_t h = UINT64_C(0xCBF29CE484222325);

	while (n--)
		h = (h ^ (uint8_t)*s++) * UINT64_C(0x100000001B3);
	return h | 1;
}

/* Whether name is new; records it (open addressing over NAME_SLOTS). */
static bool name_new(uint64_t *slot, const char *s, size_t n)
{
	uint64_t h = name_hash(s, n);
	size_t i = (size_t)(h & (NAME_SLOTS - 1));

	while (slot[i]) {
		if (slot[i] == h)
			return false;
		i = (i + 1) & (NAME_SLOTS - 1);
	}
	slot[i] = h;
	return true;
}

/* Names, kinds, dates and weights of `files` files (in subdirectories when dirs). */
static int entries_name(const struct gen_file *g, struct entries *es, unsigned int files, bool dirs,
			bool tiny, bool text_only)
{
	char top[48], base[64];
	size_t tl = 0;
	unsigned int nsub = 0, n = 0, grp = 0, sub0 = 0;
	uint64_t *slot;
	uint32_t t0;
	struct rng r;

	slot = calloc(NAME_SLOTS, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	rng_open(&r, g->key ^ SALT_NAME, UINT64_MAX);
	t0 = TIME_BASE + (uint32_t)rng_below(&r, TIME_SPAN);
	if (dirs) {
		tl = top_dir_name(g, top, sizeof(top));
		if (files >= 6)
			nsub = 1 + (unsigned int)rng_below(&r, MIN(5u, files / 6));
		sub0 = (unsigned int)rng_below(&r, ARRAY_SIZE(sub_dirs));
		es->e[n] = (struct entry){ .kind = ENTRY_DIR, .mtime = t0 };
		memcpy(es->e[n].name, top, tl + 1);
		es->e[n++].name_len = (uint8_t)tl;
	}
	for (unsigned int j = 0; j < files; j++) {
		unsigned int gj = (unsigned int)((uint64_t)j * (nsub + 1) / files);
		struct entry *e;
		size_t pl = tl, bl;
		struct rng k;
		int kind;

		if (gj != grp) {
			/* a subdirectory's entry before its first file */
			grp = gj;
			e = &es->e[n++];
			*e = (struct entry){ .kind = ENTRY_DIR, .mtime = t0 };
			e->name_len = (uint8_t)catf(e->name, 0, sizeof(e->name), "%s%s/", top,
						    sub_dirs[(sub0 + gj) % ARRAY_SIZE(sub_dirs)]);
		}
		rng_open(&k, g->key ^ SALT_FILE, j);
		kind = rng_below(&k, 10) < 6 ? ENTRY_TEXT : ENTRY_BINARY;
		e = &es->e[n++];
		*e = (struct entry){
			.kind = (uint8_t)kind,
			.key = sub_key(g->key, SALT_MEMBER, j),
			.mtime = t0 - (uint32_t)rng_below(&k, 3u * 365 * 86400),
		};
		/* log-uniform over three decades */
		e->weight = (uint32_t)(64 + rng_below(&k, 64)) << rng_below(&k, 10);
		if (tiny || text_only)
			kind = ENTRY_TEXT;
		e->kind = (uint8_t)kind;
		memcpy(e->name, top, tl);
		if (gj)
			pl = catf(e->name, tl, sizeof(e->name), "%s/",
				  sub_dirs[(sub0 + gj) % ARRAY_SIZE(sub_dirs)]);
		bl = file_base_name(g, j, kind, tiny, false, base,
				    MIN(sizeof(base), sizeof(e->name) - pl));
		memcpy(e->name + pl, base, bl + 1);
		if (!name_new(slot, e->name, pl + bl)) {
			/* the same name twice in a directory: number the second */
			bl = file_base_name(g, j, kind, tiny, true, base,
					    MIN(sizeof(base), sizeof(e->name) - pl));
			memcpy(e->name + pl, base, bl + 1);
			name_new(slot, e->name, pl + bl);
		}
		e->name_len = (uint8_t)(pl + bl);
	}
	es->n = n;
	free(slot);
	return 0;
}

/* Deal total units over the files by weight, none above cap (water filling, integers only). */
static void entries_deal(struct entries *es, uint64_t total, uint64_t cap)
{
	bool again = true;

	while (again) {
		uint64_t w = 0, rest = total, cum = 0, prev = 0;

		again = false;
		for (unsigned int i = 0; i < es->n; i++) {
			if (es->e[i].kind == ENTRY_DIR)
				continue;
			if (es->e[i].fixed)
				rest -= es->e[i].size;
			else
				w += es->e[i].weight;
		}
		for (unsigned int i = 0; i < es->n && w; i++) {
			struct entry *e = &es->e[i];
			uint64_t cut;

			if (e->kind == ENTRY_DIR || e->fixed)
				continue;
			cum += e->weight;
			cut = (uint64_t)((unsigned __int128)rest * cum / w);
			e->size = cut - prev;
			prev = cut;
		}
		for (unsigned int i = 0; i < es->n; i++) {
			struct entry *e = &es->e[i];

			if (e->kind != ENTRY_DIR && !e->fixed && e->size > cap) {
				e->size = cap;
				e->fixed = 1;
				again = true;
			}
		}
	}
}

/* The members of archive g; es->e is the caller's to free. */
static int entries_build(const struct gen_file *g, const struct entries_fmt *fmt,
			 struct entries *es)
{
	uint64_t t = isqrt64(g->size / 1024) * 5 / 4 + 1;
	unsigned int files;
	bool tiny = false;
	struct rng r;
	int64_t left;
	int ret;

	rng_open(&r, g->key ^ SALT_SIZE, 0);
	files = (unsigned int)MIN((uint64_t)FILES_MAX, 1 + rng_below(&r, 2 * t));
	if (fmt->file_bytes)
		files = (unsigned int)MIN((uint64_t)FILES_MAX, 1 + g->size / fmt->file_bytes);
	es->e = NULL;
	for (;;) {
		bool dirs = g->size >= DIRS_MIN && files >= 2 && !tiny;

		free(es->e);
		es->e = calloc(files + ARRAY_SIZE(sub_dirs) + 1, sizeof(*es->e));
		if (!es->e)
			return -ENOMEM;
		ret = entries_name(g, es, files, dirs, tiny, fmt->text_only);
		if (ret)
			goto out_free_entries;
		left = fmt->left(es, g->size);
		if (left >= 0 && (uint64_t)left / fmt->part_max < files)
			break;
		if (left >= 0 && files < FILES_MAX) {
			/* members would be too large for the format */
			files = (unsigned int)MIN((uint64_t)FILES_MAX,
						  (uint64_t)left / fmt->part_max + 1);
		} else if (left < 0 && files > 1) {
			files = (files + 1) / 2;
		} else if (left < 0 && !tiny) {
			tiny = true;
		} else {
			ret = -EINVAL;
			goto out_free_entries;
		}
	}
	entries_deal(es, (uint64_t)left, fmt->part_max);
	for (unsigned int i = 0; i < es->n; i++) {
		struct entry *e = &es->e[i];

		e->fixed = 0;
		e->weight = 0;
		/* blocks to bytes: the last block partly used */
		if (fmt->blocks && e->size) {
			rng_open(&r, g->key ^ SALT_SIZE, i + 1);
			e->size = (e->size - 1) * 512 + 1 + rng_below(&r, 512);
		}
	}
	return 0;

out_free_entries:
	free(es->e);
	es->e = NULL;
	return ret;
}

/* The archive a member of kind ENTRY_TAR is (its entries prebuilt). */
struct inner_tar {
	struct gen_file g;
	struct entries es;
};

/* Bytes [at, at + len) of a member's data (inner: its archive, for ENTRY_TAR). */
static int entry_bytes(const struct gen_file *g, const struct entry *e,
		       const struct inner_tar *inner, uint64_t at, uint8_t *buf, size_t len)
{
	switch (e->kind) {
	case ENTRY_TEXT:
		gen_text_bytes(g->cm, e->key, at, buf, len);
		if (len && at + len == e->size)
			buf[len - 1] = '\n';
		return 0;
	case ENTRY_BINARY:
		gen_binary_bytes(g->cm, e->key, at, buf, len);
		return 0;
	case ENTRY_TAR:
		return tar_fill_entries(&inner->g, &inner->es, at, buf, len);
	case ENTRY_RANDOM:
		gen_random(e->key, at, buf, len);
		return 0;
	default:
		memset(buf, 0, len);
		return 0;
	}
}

/* The CRC-32 of a whole member (made once, in CRC_CHUNK pieces into *scratch). */
static int entry_crc(const struct gen_file *g, struct entry *e, const struct inner_tar *inner,
		     uint8_t **scratch)
{
	uint32_t crc = 0;
	int ret;

	if (e->has_crc)
		return 0;
	if (e->size && !*scratch) {
		*scratch = malloc(CRC_CHUNK);
		if (!*scratch)
			return -ENOMEM;
	}
	for (uint64_t at = 0; at < e->size;) {
		size_t n = (size_t)MIN((uint64_t)CRC_CHUNK, e->size - at);

		ret = entry_bytes(g, e, inner, at, *scratch, n);
		if (ret)
			return ret;
		crc = gen_crc32(crc, *scratch, n);
		at += n;
	}
	e->crc = crc;
	e->has_crc = 1;
	return 0;
}

/* ------------------------------------------------------------------------- */
/*
 * Deflate streams by random access (the members of a ZIP, the data of a
 * gzip).  A stream's data is cut into slots of DFL_SLOT bytes (the last
 * one shorter, or a few bytes longer), each deflated on its own (zlib
 * level 1, the window reset at every slot, no block final) into a number
 * of bytes known in advance: its deflate blocks, then empty blocks to its
 * exact length (up to three empty fixed-code blocks of 10 bits, an empty
 * stored block that byte-aligns, and empty stored blocks of 5 bytes).  The
 * stream ends with an empty final fixed-code block (03 00).  A slot's
 * length is that of the model's calibration (content_archive_init()): the
 * largest deflated length of samples of its text, by data size band, a
 * few percent more and DFL_MARGIN bytes; a slot that would not shrink is
 * stored blocks instead.  So every compressed offset is arithmetic, a
 * request deflates only the slots it overlaps, and the data's CRC-32 is a
 * pass over the data alone.  When a slot's deflated length falls on one
 * that empty blocks cannot pad (one in five), it is deflated again with a
 * block boundary inside; when it is too long (never seen), at level 9.
 */

#define DFL_SLOT       (128u << 10)
#define DFL_LEVEL      1
#define DFL_FINAL      2u /* the final empty fixed-code block */
#define DFL_STORED_MAX 65535u
#define DFL_MARGIN     32u /* bytes above a slot's calibrated length */
#define DFL_MIN	       16u /* shortest stream: smaller members are stored */
#define DFL_SAMPLES    6u
#define DFL_RATIO_MIN  0.25 /* data at most 4 times its stream (the "repeat" text mode) */
#define DFL_IN_MAX     (DFL_SLOT + 4096u)
#define DFL_OUT_MAX    (2 * DFL_SLOT + 4096u)

/* Data size bands of the calibration, and the margin of each (smaller samples vary more). */
static const uint32_t dfl_band[CONTENT_DFL_BANDS] = { 512, 2048, 8192, 32768, DFL_SLOT };
static const double dfl_factor[CONTENT_DFL_BANDS] = { 1.06, 1.04, 1.02, 1.01, 1.01 };

static const uint8_t dfl_empty_stored[5] = { 0, 0, 0, 0xff, 0xff };
static const uint8_t dfl_final[DFL_FINAL] = { 0x03, 0x00 };

/* A slot in stored blocks: u data bytes in nb blocks of at most 64 KiB. */
static unsigned int stored_blocks(uint64_t u)
{
	return (unsigned int)MAX((uint64_t)1, (u + DFL_STORED_MAX - 1) / DFL_STORED_MAX);
}

static uint64_t stored_len(uint64_t u)
{
	return u + 5 * (uint64_t)stored_blocks(u);
}

/* Bytes of a deflated slot of u data bytes; UINT64_MAX without a calibration for u. */
static uint64_t dfl_len(const struct content_model *cm, uint64_t u)
{
	int b = CONTENT_DFL_BANDS - 1;

	while (b >= 0 && u < dfl_band[b])
		b--;
	if (!cm || b < 0 || !(cm->dfl_ratio[b] > 0))
		return UINT64_MAX;
	return (uint64_t)((double)u * cm->dfl_ratio[b]) + 1 + DFL_MARGIN;
}

/* Where a stream's bytes are: full slots, then the last slot, then the final block. */
struct dfl_geom {
	uint64_t n;	 /* data bytes */
	uint64_t full;	 /* slots of DFL_SLOT data bytes */
	uint64_t c_full; /* bytes of a full slot */
	uint64_t u_last; /* data bytes of the last slot */
	uint64_t c_last; /* bytes of the last slot */
	unsigned int nb_last;
	bool stored_full, stored_last;
};

/*
 * The geometry of a stream of d >= 7 bytes: the most data that fits.
 * zeros: bytes of zeros that end the data (a tar's end blocks), which the
 * last slot takes beyond what its text would fill when it is deflated.
 */
static void dfl_geom(const struct content_model *cm, uint64_t d, uint64_t zeros,
		     struct dfl_geom *dg)
{
	uint64_t avail = d - DFL_FINAL, sl = stored_len(DFL_SLOT), dl = dfl_len(cm, DFL_SLOT);
	uint64_t u_d = 0;
	unsigned int nb = 1;

	memset(dg, 0, sizeof(*dg));
	dg->stored_full = sl <= dl;
	dg->c_full = MIN(sl, dl);
	dg->full = avail > DFL_MIN ? (avail - DFL_MIN) / dg->c_full : 0;
	dg->c_last = avail - dg->full * dg->c_full;
	while (dg->c_last - 5 * nb > (uint64_t)nb * DFL_STORED_MAX)
		nb++;
	for (int b = 0; cm && b < CONTENT_DFL_BANDS; b++) {
		double r = cm->dfl_ratio[b];
		uint64_t u;

		if (!(r > 0) || dg->c_last <= DFL_MARGIN + 1)
			continue;
		u = (uint64_t)((double)(dg->c_last - DFL_MARGIN - 1) / r);
		if (b + 1 < CONTENT_DFL_BANDS && u >= dfl_band[b + 1])
			u = dfl_band[b + 1] - 1;
		while (u >= dfl_band[b] && dfl_len(cm, u) > dg->c_last)
			u--;
		if (u >= dfl_band[b] && u <= DFL_IN_MAX && u > u_d)
			u_d = u;
	}
	if (u_d > dg->c_last - 5 * nb) {
		dg->u_last = u_d + MIN(zeros, DFL_IN_MAX - u_d);
	} else {
		dg->stored_last = true;
		dg->nb_last = nb;
		dg->u_last = dg->c_last - 5 * nb;
	}
	dg->n = dg->full * DFL_SLOT + dg->u_last;
}

/* A compressor and its buffers, for one request. */
struct dfl_work {
	z_stream z;
	bool ready;
	uint8_t *in, *out;
};

static int dfl_work_init(struct dfl_work *w)
{
	memset(w, 0, sizeof(*w));
	w->in = malloc(DFL_IN_MAX);
	w->out = malloc(DFL_OUT_MAX);
	if (!w->in || !w->out ||
	    deflateInit2(&w->z, DFL_LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		free(w->in);
		free(w->out);
		return -ENOMEM;
	}
	w->ready = true;
	return 0;
}

static void dfl_work_release(struct dfl_work *w)
{
	if (w->ready)
		deflateEnd(&w->z);
	free(w->in);
	free(w->out);
	memset(w, 0, sizeof(*w));
}

/* Data in[0, u) as nb stored blocks into out. */
static void dfl_stored(const uint8_t *in, uint64_t u, unsigned int nb, uint8_t *out)
{
	uint64_t at = 0;
	size_t o = 0;

	for (unsigned int i = 0; i < nb; i++) {
		uint32_t part = (uint32_t)((u - at) / (nb - i));

		out[o] = 0; /* not final, stored */
		put16(out + o + 1, part);
		put16(out + o + 3, ~part & 0xffff);
		memcpy(out + o + 5, in + at, part);
		o += 5 + (size_t)part;
		at += part;
	}
}

/*
 * After bits bits of a slot that ends in len bytes: how many empty
 * fixed-code blocks (0 to 3) make the empty stored block that follows end
 * on a length that empty stored blocks pad to len exactly; -1 if none.
 */
static int dfl_empties(uint64_t bits, uint64_t len, uint64_t *end)
{
	for (int k = 0; k < 4; k++) {
		uint64_t l = (bits + 10 * (uint64_t)k + 3 + 7) / 8 + 4;

		if (l <= len && (len - l) % 5 == 0) {
			*end = l;
			return k;
		}
	}
	return -1;
}

/* Close a slot whose blocks end at bit bits (held in the stream): k empty blocks, then padding. */
static int dfl_close(struct dfl_work *w, int k, uint64_t base, uint64_t end, uint64_t len,
		     uint8_t *out)
{
	for (int i = 0; i < k; i++)
		if (deflatePrime(&w->z, 10, 2) != Z_OK)
			return -EIO;
	if (deflate(&w->z, Z_SYNC_FLUSH) != Z_OK || base + w->z.total_out != end)
		return -EIO;
	for (; end < len; end += 5)
		memcpy(out + end, dfl_empty_stored, 5);
	return 0;
}

/* The bit length of the stream so far (base bytes before it); -1 on an error. */
static int64_t dfl_bits(struct dfl_work *w, uint64_t base)
{
	unsigned int pend;
	int bits;

	if (w->z.avail_in || deflatePending(&w->z, &pend, &bits) != Z_OK || pend)
		return -1;
	return (int64_t)((base + w->z.total_out) * 8 + (unsigned int)bits);
}

/* Ways to deflate a slot's tail, tried in turn until the slot pads exactly. */
static const struct {
	int level, strategy;
	bool split;
} dfl_tail_ways[] = {
	{ DFL_LEVEL, Z_DEFAULT_STRATEGY, false }, { DFL_LEVEL, Z_FIXED, false },
	{ DFL_LEVEL, Z_HUFFMAN_ONLY, false },	  { DFL_LEVEL, Z_DEFAULT_STRATEGY, true },
	{ 9, Z_DEFAULT_STRATEGY, false },	  { DFL_LEVEL, Z_FIXED, true },
	{ DFL_LEVEL, Z_HUFFMAN_ONLY, true },	  { 9, Z_DEFAULT_STRATEGY, true },
};

#define DFL_TAIL 4096u

/*
 * Deflate in[0, u) into exactly len bytes of out: all but the last
 * DFL_TAIL bytes, a sync flush, then the tail with the window primed from
 * the data before it, in one of dfl_tail_ways, so that a tail that would
 * not pad costs only itself again.  Returns 1 when no way fits.
 */
static int dfl_deflate_tail(struct dfl_work *w, uint64_t u, uint64_t len, uint8_t *out)
{
	uint64_t head = u - DFL_TAIL, base, end, dict = MIN(head, (uint64_t)32768);
	int ret;

	if (deflateReset(&w->z) != Z_OK ||
	    deflateParams(&w->z, DFL_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK)
		return -EIO;
	w->z.next_in = w->in;
	w->z.avail_in = (uInt)head;
	w->z.next_out = out;
	w->z.avail_out = DFL_OUT_MAX;
	if (deflate(&w->z, Z_SYNC_FLUSH) != Z_OK || w->z.avail_in)
		return -EIO;
	base = w->z.total_out;
	for (size_t t = 0; t < ARRAY_SIZE(dfl_tail_ways); t++) {
		uint64_t cut = dfl_tail_ways[t].split ? DFL_TAIL / 2 : DFL_TAIL;
		int64_t bits;
		int k;

		if (base >= len || deflateReset(&w->z) != Z_OK)
			return -EIO;
		ret = deflateParams(&w->z, dfl_tail_ways[t].level, dfl_tail_ways[t].strategy);
		if (ret != Z_OK ||
		    deflateSetDictionary(&w->z, w->in + head - dict, (uInt)dict) != Z_OK)
			return -EIO;
		w->z.next_out = out + base;
		w->z.avail_out = (uInt)(DFL_OUT_MAX - base);
		w->z.next_in = w->in + head;
		w->z.avail_in = (uInt)cut;
		if (deflate(&w->z, Z_BLOCK) != Z_OK)
			return -EIO;
		if (cut < DFL_TAIL) {
			w->z.avail_in = DFL_TAIL - (uInt)cut;
			if (deflate(&w->z, Z_BLOCK) != Z_OK)
				return -EIO;
		}
		bits = dfl_bits(w, base);
		if (bits < 0)
			return -EIO;
		k = dfl_empties((uint64_t)bits, len, &end);
		if (k >= 0)
			return dfl_close(w, k, base, end, len, out);
	}
	return 1;
}

/*
 * Deflate in[0, u) into exactly len bytes of out (see above): by its tail
 * first, else whole, with a block boundary inside or at level 9 when it
 * does not pad.  Returns 0 or -EIO.
 */
static int dfl_deflate(struct dfl_work *w, uint64_t u, uint64_t len, uint8_t *out)
{
	int ret;

	if (u >= 4 * DFL_TAIL) {
		ret = dfl_deflate_tail(w, u, len, out);
		if (ret <= 0)
			return ret;
	}
	for (unsigned int t = 0; t < 8; t++) {
		uint64_t cut = t % 4 ? u * (t % 4) / 4 : u, end;
		int64_t bits;
		int k;

		if (deflateReset(&w->z) != Z_OK ||
		    deflateParams(&w->z, t < 4 ? DFL_LEVEL : 9, Z_DEFAULT_STRATEGY) != Z_OK)
			return -EIO;
		w->z.next_out = out;
		w->z.avail_out = DFL_OUT_MAX;
		w->z.next_in = w->in;
		w->z.avail_in = (uInt)cut;
		if (deflate(&w->z, Z_BLOCK) != Z_OK)
			return -EIO;
		if (cut < u) {
			w->z.avail_in = (uInt)(u - cut);
			if (deflate(&w->z, Z_BLOCK) != Z_OK)
				return -EIO;
		}
		bits = dfl_bits(w, 0);
		if (bits < 0)
			return -EIO;
		k = dfl_empties((uint64_t)bits, len, &end);
		if (k >= 0)
			return dfl_close(w, k, 0, end, len, out);
	}
	return -EIO;
}

/*
 * Bytes [at, at + len) of the stream dg of entry e's data.  crc, when not
 * NULL, gets the CRC-32 of all the data: the request must hold the whole
 * stream.
 */
static int dfl_fill(const struct gen_file *g, const struct entry *e, const struct inner_tar *inner,
		    const struct dfl_geom *dg, struct dfl_work *w, uint64_t at, uint8_t *buf,
		    size_t len, uint32_t *crc)
{
	uint64_t k = MIN(at / dg->c_full, dg->full), end = dg->full * dg->c_full + dg->c_last;
	int ret;

	if (!w->ready) {
		ret = dfl_work_init(w);
		if (ret)
			return ret;
	}
	for (; k <= dg->full; k++) {
		bool last = k == dg->full;
		uint64_t start = k * dg->c_full, clen = last ? dg->c_last : dg->c_full;
		uint64_t u = last ? dg->u_last : DFL_SLOT;

		if (start >= at + len)
			break;
		if (start + clen <= at)
			continue;
		ret = entry_bytes(g, e, inner, k * DFL_SLOT, w->in, (size_t)u);
		if (ret)
			return ret;
		if (crc)
			*crc = gen_crc32(*crc, w->in, (size_t)u);
		if (last ? dg->stored_last : dg->stored_full) {
			dfl_stored(w->in, u, last ? dg->nb_last : stored_blocks(u), w->out);
		} else {
			ret = dfl_deflate(w, u, clen, w->out);
			if (ret)
				return ret;
		}
		put_region(w->out, start, clen, at, buf, len);
	}
	put_region(dfl_final, end, DFL_FINAL, at, buf, len);
	return 0;
}

int content_archive_init(struct content_model *cm)
{
	struct dfl_work w;
	int ret;

	ret = dfl_work_init(&w);
	if (ret)
		return ret;
	for (int b = 0; b < CONTENT_DFL_BANDS; b++) {
		uint64_t worst = 0;

		for (unsigned int i = 0; i < DFL_SAMPLES; i++) {
			gen_text_bytes(cm, rng_mix64(cm->seed ^ SALT_DFL) + i,
				       (uint64_t)i * dfl_band[b], w.in, dfl_band[b]);
			w.z.next_in = w.in;
			w.z.avail_in = dfl_band[b];
			w.z.next_out = w.out;
			w.z.avail_out = DFL_OUT_MAX;
			if (deflateReset(&w.z) != Z_OK || deflate(&w.z, Z_BLOCK) != Z_OK) {
				ret = -EIO;
				goto out_release;
			}
			worst = MAX(worst, (uint64_t)w.z.total_out + 1);
		}
		cm->dfl_ratio[b] = MAX(DFL_RATIO_MIN, (double)worst / dfl_band[b] * dfl_factor[b]);
	}

out_release:
	dfl_work_release(&w);
	return ret;
}

/* ------------------------------------------------------------------------- */
/*
 * ZIP: local header and data of each member, the central directory, the
 * end record.  Text members are deflated (method 8, as "zip -1" would:
 * see the deflate streams above), the others are already compressed data
 * (incompressible bytes) and stored (method 0), as are text members of
 * fewer than DFL_MIN bytes.  Members are dealt the archive's bytes, and a
 * deflated member holds as much text as its stream's geometry takes.
 * Archives of 1 GiB and more are ZIP64 (so that no member's data reaches
 * 4 GiB in a plain one): every header then carries its sizes and offset
 * in a ZIP64 extra field, and a ZIP64 end record and its locator come
 * before the end record.  A local header's CRC-32 costs one pass over its
 * member's data (none when the request holds the whole member); the
 * central directory's, one pass over all members.
 */

#define ZIP_LOCAL     30u
#define ZIP_CENTRAL   46u
#define ZIP_END	      22u
#define ZIP64_END     56u
#define ZIP64_LOCATOR 20u
#define ZIP64_LOCAL_X 20u /* extra field: id, length, two sizes */
#define ZIP64_CDIR_X  28u /* extra field: id, length, two sizes, offset */

struct zip_layout {
	struct entries es;
	bool z64;
	uint64_t cd_off, cd_len, end_off;
};

static bool zip64(uint64_t size)
{
	return size >= (UINT64_C(1) << 30);
}

static uint64_t zip_local_len(const struct entry *e, bool z64)
{
	return ZIP_LOCAL + e->name_len + (z64 ? ZIP64_LOCAL_X : 0);
}

static uint64_t zip_cdir_len(const struct entry *e, bool z64)
{
	return ZIP_CENTRAL + e->name_len + (z64 ? ZIP64_CDIR_X : 0);
}

static int64_t zip_left(const struct entries *es, uint64_t size)
{
	bool z64 = zip64(size);
	int64_t left = (int64_t)size - ZIP_END - (z64 ? ZIP64_END + ZIP64_LOCATOR : 0);

	for (unsigned int i = 0; i < es->n; i++)
		left -= (int64_t)(zip_local_len(&es->e[i], z64) + zip_cdir_len(&es->e[i], z64));
	return left;
}

static const struct entries_fmt zip_fmt = {
	.left = zip_left,
	.part_max = UINT64_MAX,
};

static int zip_layout(const struct gen_file *g, struct zip_layout *zl)
{
	uint64_t pos = 0;
	int ret;

	zl->z64 = zip64(g->size);
	ret = entries_build(g, &zip_fmt, &zl->es);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < zl->es.n; i++) {
		struct entry *e = &zl->es.e[i];

		/* the dealt bytes are the member's in the archive */
		e->csize = e->size;
		if (e->kind == ENTRY_BINARY)
			e->kind = ENTRY_RANDOM;
		if (e->kind == ENTRY_TEXT && e->csize >= DFL_MIN) {
			struct dfl_geom dg;

			dfl_geom(g->cm, e->csize, 0, &dg);
			e->method = 8;
			e->size = dg.n;
		}
		e->off = pos;
		pos += zip_local_len(e, zl->z64) + e->csize;
	}
	zl->cd_off = pos;
	for (unsigned int i = 0; i < zl->es.n; i++)
		pos += zip_cdir_len(&zl->es.e[i], zl->z64);
	zl->cd_len = pos - zl->cd_off;
	zl->end_off = pos;
	return 0;
}

static uint16_t zip_version(const struct entry *e, bool z64)
{
	if (z64)
		return 45;
	return e->kind == ENTRY_DIR || e->method == 8 ? 20 : 10;
}

static size_t zip_local(const struct entry *e, bool z64, uint8_t *p)
{
	uint16_t time, date;

	dos_time(e->mtime, &time, &date);
	put32(p, 0x04034b50);
	put16(p + 4, zip_version(e, z64));
	put16(p + 6, e->method == 8 ? 6 : 0); /* flags: deflated "super fast" */
	put16(p + 8, e->method);
	put16(p + 10, time);
	put16(p + 12, date);
	put32(p + 14, e->crc);
	put32(p + 18, z64 ? UINT32_MAX : (uint32_t)e->csize);
	put32(p + 22, z64 ? UINT32_MAX : (uint32_t)e->size);
	put16(p + 26, e->name_len);
	put16(p + 28, z64 ? ZIP64_LOCAL_X : 0);
	memcpy(p + ZIP_LOCAL, e->name, e->name_len);
	if (z64) {
		uint8_t *x = p + ZIP_LOCAL + e->name_len;

		put16(x, 0x0001);
		put16(x + 2, ZIP64_LOCAL_X - 4);
		put64(x + 4, e->size);
		put64(x + 12, e->csize);
	}
	return (size_t)zip_local_len(e, z64);
}

static size_t zip_cdir(const struct entry *e, bool z64, uint8_t *p)
{
	bool dir = e->kind == ENTRY_DIR;
	uint16_t time, date;

	dos_time(e->mtime, &time, &date);
	put32(p, 0x02014b50);
	put16(p + 4, 3 << 8 | (z64 ? 45 : 30)); /* made by: Unix, 3.0 or 4.5 */
	put16(p + 6, zip_version(e, z64));
	put16(p + 8, e->method == 8 ? 6 : 0);
	put16(p + 10, e->method);
	put16(p + 12, time);
	put16(p + 14, date);
	put32(p + 16, e->crc);
	put32(p + 20, z64 ? UINT32_MAX : (uint32_t)e->csize);
	put32(p + 24, z64 ? UINT32_MAX : (uint32_t)e->size);
	put16(p + 28, e->name_len);
	put16(p + 30, z64 ? ZIP64_CDIR_X : 0);
	put16(p + 32, 0); /* comment */
	put16(p + 34, 0); /* disk */
	put16(p + 36, e->kind == ENTRY_TEXT);
	put32(p + 38, (dir ? 040755u : 0100644u) << 16 | (dir ? 0x10 : 0));
	put32(p + 42, z64 ? UINT32_MAX : (uint32_t)e->off);
	memcpy(p + ZIP_CENTRAL, e->name, e->name_len);
	if (z64) {
		uint8_t *x = p + ZIP_CENTRAL + e->name_len;

		put16(x, 0x0001);
		put16(x + 2, ZIP64_CDIR_X - 4);
		put64(x + 4, e->size);
		put64(x + 12, e->csize);
		put64(x + 20, e->off);
	}
	return (size_t)zip_cdir_len(e, z64);
}

/* The ZIP64 end record and locator (if any) and the end record. */
static size_t zip_end(const struct zip_layout *zl, uint8_t *p)
{
	uint64_t n = zl->es.n;
	size_t at = 0;

	if (zl->z64) {
		put32(p, 0x06064b50);
		put64(p + 4, ZIP64_END - 12);
		put16(p + 12, 3 << 8 | 45);
		put16(p + 14, 45);
		put32(p + 16, 0);
		put32(p + 20, 0);
		put64(p + 24, n);
		put64(p + 32, n);
		put64(p + 40, zl->cd_len);
		put64(p + 48, zl->cd_off);
		put32(p + 56, 0x07064b50);
		put32(p + 60, 0);
		put64(p + 64, zl->end_off);
		put32(p + 72, 1);
		at = ZIP64_END + ZIP64_LOCATOR;
	}
	put32(p + at, 0x06054b50);
	put16(p + at + 4, 0);
	put16(p + at + 6, 0);
	put16(p + at + 8, (uint16_t)n);
	put16(p + at + 10, (uint16_t)n);
	put32(p + at + 12, zl->z64 ? UINT32_MAX : (uint32_t)zl->cd_len);
	put32(p + at + 16, zl->z64 ? UINT32_MAX : (uint32_t)zl->cd_off);
	put16(p + at + 20, 0);
	return at + ZIP_END;
}

static int zip_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	uint8_t hdr[ZIP_CENTRAL + ENTRY_NAME_MAX + ZIP64_CDIR_X],
		end[ZIP64_END + ZIP64_LOCATOR + ZIP_END];
	struct dfl_work w = { .ready = false };
	uint8_t *scratch = NULL;
	struct zip_layout zl;
	uint64_t from, pos;
	size_t cnt, n;
	int ret;

	ret = check_request(g, ZIP_MIN, off, len);
	if (ret || !len)
		return ret;
	ret = zip_layout(g, &zl);
	if (ret)
		return ret;
	for (unsigned int i = 0; i < zl.es.n; i++) {
		struct entry *e = &zl.es.e[i];
		uint64_t lh = zip_local_len(e, zl.z64), data = e->off + lh;

		if (e->off >= off + len)
			break;
		if (data + e->csize <= off)
			continue;
		if (clip(data, e->csize, off, len, &from, &cnt) && e->method == 8) {
			struct dfl_geom dg;
			uint32_t crc = 0;
			bool whole = cnt == e->csize;

			dfl_geom(g->cm, e->csize, 0, &dg);
			ret = dfl_fill(g, e, NULL, &dg, &w, from - data, buf + (from - off), cnt,
				       whole ? &crc : NULL);
			if (ret)
				goto out_free;
			if (whole) {
				e->crc = crc;
				e->has_crc = 1;
			}
		} else if (clip(data, e->csize, off, len, &from, &cnt)) {
			ret = entry_bytes(g, e, NULL, from - data, buf + (from - off), cnt);
			if (ret)
				goto out_free;
			if (cnt == e->size) {
				e->crc = gen_crc32(0, buf + (from - off), cnt);
				e->has_crc = 1;
			}
		}
		if (clip(e->off, lh, off, len, &from, &cnt)) {
			ret = entry_crc(g, e, NULL, &scratch);
			if (ret)
				goto out_free;
			n = zip_local(e, zl.z64, hdr);
			put_region(hdr, e->off, n, off, buf, len);
		}
	}
	if (clip(zl.cd_off, zl.cd_len, off, len, &from, &cnt)) {
		pos = zl.cd_off;
		for (unsigned int i = 0; i < zl.es.n && pos < off + len; i++) {
			struct entry *e = &zl.es.e[i];

			n = (size_t)zip_cdir_len(e, zl.z64);
			if (pos + n > off) {
				ret = entry_crc(g, e, NULL, &scratch);
				if (ret)
					goto out_free;
				zip_cdir(e, zl.z64, hdr);
				put_region(hdr, pos, n, off, buf, len);
			}
			pos += n;
		}
	}
	n = zip_end(&zl, end);
	put_region(end, zl.end_off, n, off, buf, len);

out_free:
	dfl_work_release(&w);
	free(scratch);
	free(zl.es.e);
	return ret;
}

const struct gen_ops gen_zip_ops = {
	.name = "zip",
	.min_size = ZIP_MIN,
	.fill = zip_fill,
};

/* ------------------------------------------------------------------------- */
/*
 * tar (POSIX ustar): a 512-byte header per member, its data padded with
 * zeros to 512 bytes, then the end of the archive: two zero blocks.  An
 * archive is whole blocks, so a planned size that is not a multiple of 512
 * ends with its remainder (1 to 511 bytes) of zeros after the two zero
 * blocks, as a short last record: GNU tar, bsdtar and Python's tarfile
 * read that without a word, while they complain about anything short
 * before the end blocks.  Hence the floor of three blocks (a member
 * header and the end), 1536 bytes.  Members stay under ustar's 8 GiB.
 */

#define TAR_BLOCK    512u
#define TAR_PART_MAX ((UINT64_C(8) << 30) / TAR_BLOCK - 1)

static const char *const tar_users[] = {
	"alice", "bob",	 "carol", "dave", "emma",  "frank", "grace", "henry",
	"irene", "jack", "karen", "leo",  "maria", "nick",  "olga",  "paul",
};

static int64_t tar_left(const struct entries *es, uint64_t size)
{
	return (int64_t)(size / TAR_BLOCK) - 2 - es->n;
}

static const struct entries_fmt tar_fmt = {
	.left = tar_left,
	.part_max = TAR_PART_MAX,
	.blocks = true,
};

static void tar_header(const struct gen_file *g, const struct entry *e, uint8_t *h)
{
	bool dir = e->kind == ENTRY_DIR;
	unsigned int user = (unsigned int)(rng_mix64(g->key ^ SALT_NAME) % ARRAY_SIZE(tar_users));
	unsigned int sum = 0;
	char *c = (char *)h;

	memset(h, 0, TAR_BLOCK);
	memcpy(c, e->name, e->name_len);
	snprintf(c + 100, 8, "%07o", dir ? 0755u : 0644u);
	snprintf(c + 108, 8, "%07o", 1000u + user);
	snprintf(c + 116, 8, "%07o", 100u);
	snprintf(c + 124, 12, "%011llo", (unsigned long long)e->size);
	snprintf(c + 136, 12, "%011llo", (unsigned long long)e->mtime);
	memset(c + 148, ' ', 8);
	c[156] = dir ? '5' : '0';
	memcpy(c + 257, "ustar", 6);
	memcpy(c + 263, "00", 2);
	snprintf(c + 265, 32, "%s", tar_users[user]);
	snprintf(c + 297, 32, "%s", "users");
	snprintf(c + 329, 8, "%07o", 0u);
	snprintf(c + 337, 8, "%07o", 0u);
	for (unsigned int i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf(c + 148, 8, "%06o", sum);
	c[155] = ' ';
}

/* Bytes [off, off + len) of tar g whose members are es. */
static int tar_fill_entries(const struct gen_file *g, const struct entries *es, uint64_t off,
			    uint8_t *buf, size_t len)
{
	uint8_t h[TAR_BLOCK];
	uint64_t pos = 0, from;
	size_t cnt;
	int ret;

	/* padding, the end blocks and the remainder are zeros */
	memset(buf, 0, len);
	for (unsigned int i = 0; i < es->n && pos < off + len; i++) {
		const struct entry *e = &es->e[i];
		uint64_t data = pos + TAR_BLOCK;

		if (clip(pos, TAR_BLOCK, off, len, &from, &cnt)) {
			tar_header(g, e, h);
			put_region(h, pos, TAR_BLOCK, off, buf, len);
		}
		if (clip(data, e->size, off, len, &from, &cnt)) {
			ret = entry_bytes(g, e, NULL, from - data, buf + (from - off), cnt);
			if (ret)
				return ret;
		}
		pos = data + (e->size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	}
	return 0;
}

static int tar_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct entries es;
	int ret;

	ret = check_request(g, TAR_MIN, off, len);
	if (ret || !len)
		return ret;
	ret = entries_build(g, &tar_fmt, &es);
	if (ret)
		return ret;
	ret = tar_fill_entries(g, &es, off, buf, len);
	free(es.e);
	return ret;
}

const struct gen_ops gen_tar_ops = {
	.name = "tar",
	.min_size = TAR_MIN,
	.fill = tar_fill,
};

/* ------------------------------------------------------------------------- */
/*
 * gzip: the header (with the original name once the file is 128 bytes or
 * more), the data as a deflate stream (see above; "gzip -1"), the CRC-32
 * and length of the data.  The data is text, or for "tgz" and one gz file
 * in five of 1 MiB or more a tar archive of text files, as much as the
 * stream's geometry takes.  The tar holds a file for every 256 KiB or so,
 * so that its headers, which deflate better than text, leave little
 * padding.  The trailer's CRC-32 costs one pass over the data, unless the
 * request holds all of it.
 */

#define GZ_NAME_MIN 128u
#define GZ_TAR_MIN  (1u << 20)

static const struct entries_fmt tar_text_fmt = {
	.left = tar_left,
	.part_max = TAR_PART_MAX,
	.blocks = true,
	.text_only = true,
	.file_bytes = 256u << 10,
};

struct gz_layout {
	struct entry data;
	struct dfl_geom dg;
	uint64_t hdr; /* header bytes */
};

static void gz_layout(const struct gen_file *g, struct gz_layout *gl)
{
	static const char *const ext[] = { ".tar", ".txt", ".log" };
	bool tgz = g->ext && !strcmp(g->ext, "tgz");
	char *name = gl->data.name;
	unsigned int u;
	size_t n = 0;
	struct rng r;

	memset(gl, 0, sizeof(*gl));
	rng_open(&r, g->key ^ SALT_GZIP, 0);
	u = (unsigned int)rng_below(&r, 100);
	gl->data.mtime = TIME_BASE + (uint32_t)rng_below(&r, TIME_SPAN);
	gl->data.key = sub_key(g->key, SALT_GZIP, 0);
	if (g->size >= GZ_NAME_MIN) {
		n = catf(name, 0, 16, "%s", pick_word(g->cm, &r));
		if (rng_below(&r, 2))
			n = catf(name, n, 16, "-%u", 1 + (unsigned int)rng_below(&r, 30));
		n += 4; /* every extension is four bytes: the layout does not depend on it */
	}
	gl->hdr = 10 + (n ? n + 1 : 0);
	/* a tar for tgz, and for one gz file in five of 1 MiB or more */
	dfl_geom(g->cm, g->size - gl->hdr - 8, 2 * TAR_BLOCK + TAR_BLOCK / 2, &gl->dg);
	gl->data.kind = ENTRY_TAR;
	if (gl->dg.n < TAR_MIN || !(tgz || (u < 20 && g->size >= GZ_TAR_MIN))) {
		dfl_geom(g->cm, g->size - gl->hdr - 8, 0, &gl->dg);
		gl->data.kind = ENTRY_TEXT;
	}
	gl->data.size = gl->dg.n;
	if (n) {
		memcpy(name + n - 4, ext[gl->data.kind == ENTRY_TAR ? 0 : 1 + (u & 1)], 5);
		gl->data.name_len = (uint8_t)n;
	}
}

static int gzip_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct inner_tar inner = { .es = { NULL, 0 } };
	struct dfl_work w = { .ready = false };
	uint8_t h[10 + 20 + 1], b[8];
	uint8_t *scratch = NULL;
	struct gz_layout gl;
	uint64_t from;
	uint32_t crc = 0;
	bool whole;
	size_t cnt;
	int ret;

	ret = check_request(g, GZIP_MIN, off, len);
	if (ret || !len)
		return ret;
	gz_layout(g, &gl);
	if (gl.data.kind == ENTRY_TAR) {
		inner.g = (struct gen_file){ .key = gl.data.key,
					     .file = g->file,
					     .size = gl.data.size,
					     .ext = "tar",
					     .cm = g->cm };
		ret = entries_build(&inner.g, &tar_text_fmt, &inner.es);
		if (ret)
			return ret;
	}
	/* the request holds all the data: its CRC comes along */
	whole = off <= gl.hdr && off + len >= g->size - 8;

	h[0] = 0x1f;
	h[1] = 0x8b;
	h[2] = 8;			 /* deflate */
	h[3] = gl.data.name_len ? 8 : 0; /* FNAME */
	put32(h + 4, gl.data.mtime);
	h[8] = 4; /* XFL: the fastest compression */
	h[9] = 3; /* Unix */
	if (gl.data.name_len)
		memcpy(h + 10, gl.data.name, gl.data.name_len + 1);
	put_region(h, 0, gl.hdr, off, buf, len);
	if (clip(gl.hdr, g->size - 8 - gl.hdr, off, len, &from, &cnt)) {
		ret = dfl_fill(g, &gl.data, &inner, &gl.dg, &w, from - gl.hdr, buf + (from - off),
			       cnt, whole ? &crc : NULL);
		if (ret)
			goto out_free;
	}
	if (clip(g->size - 8, 8, off, len, &from, &cnt)) {
		if (whole) {
			gl.data.crc = crc;
			gl.data.has_crc = 1;
		}
		ret = entry_crc(g, &gl.data, &inner, &scratch);
		if (ret)
			goto out_free;
		put32(b, gl.data.crc);
		put32(b + 4, (uint32_t)gl.data.size);
		put_region(b, g->size - 8, 8, off, buf, len);
	}

out_free:
	dfl_work_release(&w);
	free(scratch);
	free(inner.es.e);
	return ret;
}

const struct gen_ops gen_gzip_ops = {
	.name = "gzip",
	.min_size = GZIP_MIN,
	.fill = gzip_fill,
};

/* ------------------------------------------------------------------------- */
/*
 * PDF 1.4, laid out from the size alone:
 *
 *   header, catalog (1), font (3), Info (4, from 2 KiB on)
 *   pages: a page object and its content stream in 5 KiB, the last page
 *     taking what is left (up to 256 pages)
 *   the page tree (2)
 *   past 256 pages, the rest: a raw grey image, drawn on the last page
 *   the xref table, the trailer, startxref, %%EOF
 *
 * Every object starts in the first few MiB, so the xref table's 10-digit
 * offsets hold at any size.
 *
 * Object lengths are known in advance (the content stream's /Length is
 * printed in a fixed width), so every offset of the xref table is
 * computed, not searched.  A content stream is word-wrapped text from
 * gen_text_bytes() (one 4 KiB piece of the file's text stream a page),
 * shown line by line in Helvetica, and its page number; spaces fill the
 * stream to its length.  The exact size comes from the last page's
 * stream and, for startxref's digit count, up to 20 spaces in the trailer.
 */

#define PDF_UNIT      5120u /* a page object and its content stream */
#define PDF_PAGES_MAX 256u
#define PDF_RICH      2048u /* from this size on: the Info dictionary and /ID */
#define PDF_HEAD_MAX  1024u
#define PDF_LINES     48u
#define PDF_WIDTH     86u   /* characters a line */
#define PDF_CHUNK     4096u /* text read for a page: one unit of text.c */
#define PDF_TEXT_MIN  80u   /* least content stream of the last page */
#define PDF_PAD_MAX   20u
#define PDF_IMG_W     1024u /* image width, doubled while the height would pass 2^30 */
#define PDF_TAIL      18u   /* "\nendstream\nendobj\n" */

struct pdf_layout {
	bool rich;
	uint64_t first; /* object number of the first page */
	uint64_t pages;
	uint64_t head;	     /* bytes before the first page */
	uint64_t obj_off[5]; /* objects 1, 3 and 4, in the head */
	uint64_t last;	     /* bytes of the last page's unit */
	uint64_t img_off, img_len, img_rows, img_w;
	uint64_t tree_off; /* the page tree */
	uint64_t xref_off;
	uint64_t objs;	  /* xref entries, object 0 included */
	unsigned int pad; /* extra spaces in the trailer dictionary */
};

static const char *const pdf_first_names[] = {
	"Anna",	 "David",   "Maria", "James",  "Laura",	 "Peter",  "Sarah", "Thomas",
	"Julia", "Michael", "Emma",  "Robert", "Sophie", "Daniel", "Clara", "Martin",
};

static const struct {
	const char *creator, *producer;
} pdf_tools[] = {
	{ "Writer", "LibreOffice 7.4" },
	{ "Microsoft Word 2016", "Microsoft Word 2016" },
	{ "LaTeX with hyperref", "pdfTeX-1.40.21" },
	{ "Chromium", "Skia/PDF m108" },
	{ "PScript5.dll Version 5.2.2", "Acrobat Distiller 11.0 for Windows" },
	{ "Pages", "macOS Version 12.6 Quartz PDFContext" },
	{ "Impress", "LibreOffice 6.4" },
};

/* Append word w with a capital initial. */
static size_t pdf_word_cap(char *s, size_t n, size_t cap, const char *w)
{
	size_t m = catf(s, n, cap, "%s", w);

	if (m > n && s[n] >= 'a' && s[n] <= 'z')
		s[n] = (char)(s[n] - 'a' + 'A');
	return m;
}

static size_t pdf_date(char *s, size_t n, size_t cap, uint32_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	return catf(s, n, cap, "(D:%04d%02d%02d%02d%02d%02dZ)", tm.tm_year + 1900, tm.tm_mon + 1,
		    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Header and objects 1, 3 (and 4): its length; obj_off gets their offsets. */
static size_t pdf_head(const struct gen_file *g, bool rich, char *s, size_t cap, uint64_t *obj_off)
{
	size_t n;

	n = catf(s, 0, cap, "%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n");
	obj_off[1] = n;
	n = catf(s, n, cap, "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n");
	obj_off[3] = n;
	n = catf(s, n, cap,
		 "3 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica%s >>\nendobj\n",
		 rich ? " /Encoding /WinAnsiEncoding" : "");
	if (rich) {
		struct rng r;
		uint32_t t;
		unsigned int words, tool;

		rng_open(&r, g->key ^ SALT_PDF, 0);
		obj_off[4] = n;
		n = catf(s, n, cap, "4 0 obj\n<< /Title (");
		words = 2 + (unsigned int)rng_below(&r, 4);
		for (unsigned int i = 0; i < words; i++) {
			if (i)
				n = catf(s, n, cap, " ");
			n = pdf_word_cap(s, n, cap, pick_word(g->cm, &r));
		}
		n = catf(s, n, cap, ") /Author (%s ",
			 pdf_first_names[rng_below(&r, ARRAY_SIZE(pdf_first_names))]);
		n = pdf_word_cap(s, n, cap, pick_word(g->cm, &r));
		tool = (unsigned int)rng_below(&r, ARRAY_SIZE(pdf_tools));
		n = catf(s, n, cap, ") /Creator (%s) /Producer (%s) /CreationDate ",
			 pdf_tools[tool].creator, pdf_tools[tool].producer);
		t = TIME_BASE + (uint32_t)rng_below(&r, TIME_SPAN);
		n = pdf_date(s, n, cap, t);
		n = catf(s, n, cap, " /ModDate ");
		n = pdf_date(s, n, cap, t + (uint32_t)rng_below(&r, 86400 * 30));
		n = catf(s, n, cap, " >>\nendobj\n");
	}
	return n;
}

static bool pdf_img_page(const struct pdf_layout *pl, uint64_t i)
{
	return pl->img_len && i + 1 == pl->pages;
}

/* The page object of page i (s NULL: its length only). */
static size_t pdf_page_obj(const struct pdf_layout *pl, uint64_t i, bool img, char *s, size_t cap)
{
	unsigned long long p = pl->first + 2 * i;
	char x[64] = "";

	if (img)
		snprintf(x, sizeof(x), " /XObject << /Im1 %llu 0 R >>",
			 (unsigned long long)(pl->first + 2 * pl->pages));
	return (size_t)snprintf(s, s ? cap : 0,
				"%llu 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]"
				" /Resources << /Font << /F1 3 0 R >>%s >> /Contents %llu 0 R >>\n"
				"endobj\n",
				p, x, p + 1);
}

/* The content stream's object header (s NULL: its length only); /Length has a fixed width. */
static size_t pdf_stream_head(const struct pdf_layout *pl, uint64_t i, uint64_t len, char *s,
			      size_t cap)
{
	return (size_t)snprintf(s, s ? cap : 0, "%llu 0 obj\n<< /Length %7llu >>\nstream\n",
				(unsigned long long)(pl->first + 2 * i + 1),
				(unsigned long long)len);
}

static uint64_t pdf_unit_over(const struct pdf_layout *pl, uint64_t i, bool img)
{
	return pdf_page_obj(pl, i, img, NULL, 0) + pdf_stream_head(pl, i, 0, NULL, 0) + PDF_TAIL;
}

static size_t pdf_img_head(const struct pdf_layout *pl, uint64_t rows, char *s, size_t cap)
{
	return (size_t)snprintf(
		s, s ? cap : 0,
		"%llu 0 obj\n<< /Type /XObject /Subtype /Image /Width %llu /Height %llu"
		" /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %llu >>\n"
		"stream\n",
		(unsigned long long)(pl->first + 2 * pl->pages), (unsigned long long)pl->img_w,
		(unsigned long long)rows, (unsigned long long)(rows * pl->img_w));
}

static uint64_t pdf_tree_len(const struct pdf_layout *pl, uint64_t pages)
{
	uint64_t n = (uint64_t)snprintf(
		NULL, 0, "2 0 obj\n<< /Type /Pages /Count %llu /Kids [] >>\nendobj\n",
		(unsigned long long)pages);

	for (uint64_t i = 0; i < pages; i++)
		n += ndigits(pl->first + 2 * i) + 4 + (i > 0);
	return n;
}

/* The trailer, from "trailer" to the end (s NULL: its length only). */
static size_t pdf_trailer(const struct gen_file *g, const struct pdf_layout *pl, uint64_t objs,
			  unsigned int pad, uint64_t xref_off, char *s, size_t cap)
{
	unsigned long long a = rng_mix64(g->key ^ SALT_PDF), b = rng_mix64(a);
	char id[96] = "";

	if (pl->rich)
		snprintf(id, sizeof(id), " /Info 4 0 R /ID [<%016llx%016llx> <%016llx%016llx>]", a,
			 b, a, b);
	return (size_t)snprintf(
		s, s ? cap : 0,
		"trailer\n<< /Size %llu /Root 1 0 R%s%*s >>\nstartxref\n%llu\n%%%%EOF\n",
		(unsigned long long)objs, id, (int)pad, "", (unsigned long long)xref_off);
}

/* From "xref" to the end: the xref table, the trailer, startxref with d digits. */
static uint64_t pdf_xref_len(const struct gen_file *g, const struct pdf_layout *pl, uint64_t objs,
			     unsigned int pad, unsigned int d)
{
	uint64_t x = 1;

	while (--d)
		x *= 10;
	return 5 + 2 + ndigits(objs) + 1 + 20 * objs + pdf_trailer(g, pl, objs, pad, x, NULL, 0);
}

/* Whether pages fit in size: all but the last full units, the last with a little text. */
/*
 * Where the xref table starts when the file has objs objects: startxref's
 * digit count must match its value, so a space or more goes into the
 * trailer when no count does.  Returns 0, or -EINVAL when size is too small.
 */
static int pdf_xref_at(const struct gen_file *g, const struct pdf_layout *pl, uint64_t objs,
		       unsigned int *pad, uint64_t *xref_off)
{
	for (unsigned int p = 0; p <= PDF_PAD_MAX; p++) {
		for (unsigned int d = 1; d <= 20; d++) {
			uint64_t tl = pdf_xref_len(g, pl, objs, p, d);

			if (tl < g->size && ndigits(g->size - tl) == d) {
				*pad = p;
				*xref_off = g->size - tl;
				return 0;
			}
		}
	}
	return -EINVAL;
}

/* Whether pages fit: all but the last are full units, the last holds a little text. */
static bool pdf_fits(const struct gen_file *g, const struct pdf_layout *pl, uint64_t pages)
{
	uint64_t need = pl->head + (pages - 1) * PDF_UNIT + pdf_unit_over(pl, pages - 1, false) +
			PDF_TEXT_MIN + pdf_tree_len(pl, pages);
	unsigned int pad;
	uint64_t x;

	return !pdf_xref_at(g, pl, pl->first + 2 * pages, &pad, &x) && need <= x;
}

static int pdf_layout(const struct gen_file *g, struct pdf_layout *pl)
{
	char head[PDF_HEAD_MAX];
	uint64_t size = g->size, n;
	bool img = false;
	int ret;

	memset(pl, 0, sizeof(*pl));
	pl->rich = size >= PDF_RICH;
	pl->first = pl->rich ? 5 : 4;
	pl->head = pdf_head(g, pl->rich, head, sizeof(head), pl->obj_off);

	n = MAX((uint64_t)1, MIN((uint64_t)PDF_PAGES_MAX, size / (PDF_UNIT + 64)));
	while (n > 1 && !pdf_fits(g, pl, n))
		n--;
	while (n < PDF_PAGES_MAX && pdf_fits(g, pl, n + 1))
		n++;
	if (!pdf_fits(g, pl, n))
		return -EINVAL;
	pl->pages = n;
	if (n == PDF_PAGES_MAX) {
		/* the rest is an image once it would make the last page more than two units */
		unsigned int pad;
		uint64_t x;

		img = !pdf_xref_at(g, pl, pl->first + 2 * n + 1, &pad, &x) &&
		      pl->head + (n + 1) * PDF_UNIT + pdf_tree_len(pl, n) <= x;
	}
	pl->objs = pl->first + 2 * n + img;
	ret = pdf_xref_at(g, pl, pl->objs, &pl->pad, &pl->xref_off);
	if (ret)
		return ret;
	if (!img) {
		pl->last = pl->xref_off - pdf_tree_len(pl, n) - pl->head - (n - 1) * PDF_UNIT;
	} else {
		uint64_t avail = pl->xref_off - pdf_tree_len(pl, n) - pl->head - n * PDF_UNIT;
		uint64_t rows;

		for (pl->img_w = PDF_IMG_W; avail / pl->img_w > (UINT64_C(1) << 30);)
			pl->img_w *= 2;
		rows = avail / pl->img_w;

		pl->img_len = 1; /* pdf_img_page() from here on */
		while (rows &&
		       pdf_img_head(pl, rows, NULL, 0) + PDF_TAIL + rows * pl->img_w > avail)
			rows--;
		pl->img_rows = rows;
		pl->img_len = pdf_img_head(pl, rows, NULL, 0) + PDF_TAIL + rows * pl->img_w;
		pl->last = PDF_UNIT + avail - pl->img_len;
	}
	/* the tree before the image: every object starts before byte 10^10 */
	pl->tree_off = pl->head + (n - 1) * PDF_UNIT + pl->last;
	pl->img_off = pl->tree_off + pdf_tree_len(pl, n);
	return 0;
}

static bool pdf_space(uint8_t c)
{
	return c <= ' ' || c >= 0x7f;
}

/* A text line as a string shown on the next line: "(...)'\n". */
struct pdf_line {
	char s[2 * PDF_WIDTH + 8];
	size_t len;   /* bytes, escapes included */
	size_t chars; /* characters shown */
};

static void pdf_line_add(struct pdf_line *l, const uint8_t *w, size_t n)
{
	if (l->chars) {
		l->s[l->len++] = ' ';
		l->chars++;
	}
	for (size_t i = 0; i < n; i++) {
		if (w[i] == '(' || w[i] == ')' || w[i] == '\\')
			l->s[l->len++] = '\\';
		l->s[l->len++] = (char)w[i];
	}
	l->chars += n;
}

/* Content stream of page i: exactly cap bytes. */
static void pdf_content(const struct gen_file *g, const struct pdf_layout *pl, uint64_t i,
			char *out, size_t cap)
{
	static const char head[] = "BT\n/F1 10 Tf\n12 TL\n72 756 Td\n";
	static const char draw[] = "q\n468 0 0 648 72 72 cm\n/Im1 Do\nQ\n";
	uint8_t src[PDF_CHUNK];
	char foot[64];
	struct pdf_line l = { .len = 1, .s = "(" };
	size_t n = 0, fl, p = 0, lines = 0, reserve;
	bool img = pdf_img_page(pl, i);

	fl = (size_t)snprintf(foot, sizeof(foot), "ET\nBT\n/F1 9 Tf\n300 36 Td\n(%llu) Tj\nET\n",
			      (unsigned long long)(i + 1));
	if (cap < sizeof(head) + fl + (img ? sizeof(draw) : 0)) {
		/* too short for text: white space (the last page of a tiny file only) */
		memset(out, ' ', cap);
		if (cap)
			out[cap - 1] = '\n';
		return;
	}
	if (img) {
		memcpy(out, draw, sizeof(draw) - 1);
		n = sizeof(draw) - 1;
	}
	memcpy(out + n, head, sizeof(head) - 1);
	n += sizeof(head) - 1;
	reserve = fl + 1;

	gen_text_bytes(g->cm, sub_key(g->key, SALT_PAGE, 0), i * PDF_CHUNK, src, PDF_CHUNK);
	/* start at a sentence (or at least a word) */
	while (p < 512 && !(p >= 1 && src[p] == ' ' && strchr(".?!", src[p - 1])) &&
	       !(p >= 1 && src[p] == '\n' && src[p - 1] == '\n'))
		p++;
	if (p == 512)
		for (p = 0; p < 512 && !pdf_space(src[p]); p++)
			;
	/* the pending line l always fits: n + l.len + 3 + reserve <= cap */
	while (lines < PDF_LINES) {
		size_t q, nl = 0, wl = 0;

		while (p < PDF_CHUNK && pdf_space(src[p]))
			nl += src[p++] == '\n';
		for (q = p; q < PDF_CHUNK && !pdf_space(src[q]) && q - p < PDF_WIDTH; q++)
			wl += 1 + (src[q] == '(' || src[q] == ')' || src[q] == '\\');
		if (q == PDF_CHUNK)
			break; /* a word cut by the end of the piece */
		if (l.chars && (nl >= 2 || l.chars + 1 + (q - p) > PDF_WIDTH ||
				n + l.len + 1 + wl + 3 + reserve > cap)) {
			memcpy(out + n, l.s, l.len);
			n += l.len;
			memcpy(out + n, ")'\n", 3);
			n += 3;
			lines++;
			l.len = 1;
			l.chars = 0;
			if (nl >= 2 && lines < PDF_LINES && n + 3 + reserve <= cap) {
				/* a paragraph: one empty line */
				memcpy(out + n, "T*\n", 3);
				n += 3;
				lines++;
			}
			if (lines == PDF_LINES)
				break;
		}
		if (n + l.len + 1 + wl + 3 + reserve > cap)
			break;
		pdf_line_add(&l, src + p, q - p);
		p = q;
	}
	if (l.chars) {
		memcpy(out + n, l.s, l.len);
		n += l.len;
		memcpy(out + n, ")'\n", 3);
		n += 3;
	}
	memcpy(out + n, foot, fl);
	n += fl;
	memset(out + n, ' ', cap - n);
	out[cap - 1] = '\n';
}

/* Page i's unit: its page object and content stream object, len bytes. */
static void pdf_unit(const struct gen_file *g, const struct pdf_layout *pl, uint64_t i, char *out,
		     size_t len)
{
	bool img = pdf_img_page(pl, i);
	size_t sl = len - (size_t)pdf_unit_over(pl, i, img), n, hl;
	char tmp[192];

	n = pdf_page_obj(pl, i, img, tmp, sizeof(tmp));
	memcpy(out, tmp, n);
	hl = pdf_stream_head(pl, i, sl, tmp, sizeof(tmp));
	memcpy(out + n, tmp, hl);
	n += hl;
	pdf_content(g, pl, i, out + n, sl);
	memcpy(out + n + sl, "\nendstream\nendobj\n", PDF_TAIL);
}

static uint64_t pdf_obj_off(const struct pdf_layout *pl, uint64_t obj)
{
	uint64_t i;

	if (obj == 2)
		return pl->tree_off;
	if (obj < pl->first)
		return pl->obj_off[obj];
	if (pl->img_len && obj == pl->objs - 1)
		return pl->img_off;
	i = (obj - pl->first) / 2;
	if ((obj - pl->first) % 2 == 0)
		return pl->head + i * PDF_UNIT;
	return pl->head + i * PDF_UNIT + pdf_page_obj(pl, i, pdf_img_page(pl, i), NULL, 0);
}

/* The page tree into s (len + 1 bytes): its length. */
static size_t pdf_tree(const struct pdf_layout *pl, char *s, size_t len)
{
	size_t n;

	n = catf(s, 0, len + 1, "2 0 obj\n<< /Type /Pages /Count %llu /Kids [",
		 (unsigned long long)pl->pages);
	for (uint64_t i = 0; i < pl->pages; i++)
		n = catf(s, n, len + 1, "%s%llu 0 R", i ? " " : "",
			 (unsigned long long)(pl->first + 2 * i));
	return catf(s, n, len + 1, "] >>\nendobj\n");
}

/* The xref table and the trailer into s (len + 1 bytes): its length. */
static size_t pdf_xref(const struct gen_file *g, const struct pdf_layout *pl, char *s, size_t len)
{
	size_t n;

	n = catf(s, 0, len + 1, "xref\n0 %llu\n0000000000 65535 f \n",
		 (unsigned long long)pl->objs);
	for (uint64_t o = 1; o < pl->objs; o++)
		n = catf(s, n, len + 1, "%010llu 00000 n \n",
			 (unsigned long long)pdf_obj_off(pl, o));
	if (n < len)
		n += pdf_trailer(g, pl, pl->objs, pl->pad, pl->xref_off, s + n, len + 1 - n);
	return n;
}

static int pdf_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	char head[PDF_HEAD_MAX], ih[256];
	struct pdf_layout pl;
	uint64_t end = off + len, from, units, tl;
	size_t cnt;
	char *tmp;
	int ret;

	ret = check_request(g, PDF_MIN, off, len);
	if (ret || !len)
		return ret;
	ret = pdf_layout(g, &pl);
	if (ret)
		return ret;
	pdf_head(g, pl.rich, head, sizeof(head), pl.obj_off);
	put_region(head, 0, pl.head, off, buf, len);

	tmp = malloc(MAX(pl.last, (uint64_t)PDF_UNIT) + 1);
	if (!tmp)
		return -ENOMEM;
	units = (pl.pages - 1) * PDF_UNIT + pl.last;
	if (clip(pl.head, units, off, len, &from, &cnt)) {
		for (uint64_t i = (from - pl.head) / PDF_UNIT; i < pl.pages; i++) {
			uint64_t at = pl.head + i * PDF_UNIT;
			uint64_t ul = i + 1 < pl.pages ? PDF_UNIT : pl.last;

			if (at >= end)
				break;
			pdf_unit(g, &pl, i, tmp, (size_t)ul);
			put_region(tmp, at, ul, off, buf, len);
		}
	}
	free(tmp);

	if (pl.img_len) {
		uint64_t hl = pdf_img_head(&pl, pl.img_rows, ih, sizeof(ih));
		uint64_t data = pl.img_off + hl, dl = pl.img_rows * pl.img_w;

		put_region(ih, pl.img_off, hl, off, buf, len);
		if (clip(data, dl, off, len, &from, &cnt))
			gen_binary_bytes(g->cm, sub_key(g->key, SALT_IMAGE, 0), from - data,
					 buf + (from - off), cnt);
		put_region("\nendstream\nendobj\n", data + dl, PDF_TAIL, off, buf, len);
	}

	tl = pdf_tree_len(&pl, pl.pages);
	if (clip(pl.tree_off, tl, off, len, &from, &cnt)) {
		tmp = malloc(tl + 1);
		if (!tmp)
			return -ENOMEM;
		ret = pdf_tree(&pl, tmp, (size_t)tl) == tl ? 0 : -EIO;
		put_region(tmp, pl.tree_off, tl, off, buf, len);
		free(tmp);
	}
	tl = g->size - pl.xref_off;
	if (!ret && clip(pl.xref_off, tl, off, len, &from, &cnt)) {
		tmp = malloc(tl + 1);
		if (!tmp)
			return -ENOMEM;
		ret = pdf_xref(g, &pl, tmp, (size_t)tl) == tl ? 0 : -EIO;
		put_region(tmp, pl.xref_off, tl, off, buf, len);
		free(tmp);
	}
	return ret;
}

const struct gen_ops gen_pdf_ops = {
	.name = "pdf",
	.min_size = PDF_MIN,
	.fill = pdf_fill,
};
