/* members.c - the members of ZIP and tar archives: a tree of text, binary and archive files */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/archive/archive.h"

/*
 * Archive members, shared by ZIP and tar: a top directory with a few
 * subdirectories once the archive is 8 KiB or more, files of text
 * (gen_text_bytes(), ending with a newline) or binary (gen_binary_bytes())
 * content under plausible names, sizes drawn log-uniformly over three
 * decades and scaled to fill exactly what the format leaves for data.
 */

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
	n = archive_catf(s, 0, cap, "%s", archive_pick_word(g->cm, &r));
	switch (rng_below(&r, 6)) {
	case 0:
		n = archive_catf(s, n, cap, "-%u.%u", 1 + (unsigned int)rng_below(&r, 4),
				 (unsigned int)rng_below(&r, 10));
		break;
	case 1:
		n = archive_catf(s, n, cap, "_%u", 2008 + (unsigned int)rng_below(&r, 16));
		break;
	case 2:
		n = archive_catf(s, n, cap, "-%s", archive_pick_word(g->cm, &r));
		break;
	default:
		break;
	}
	return archive_catf(s, n, cap, "/");
}

/* Base name of file j: a stem, and an extension that says its kind. */
static size_t file_base_name(const struct gen_file *g, unsigned int j, int kind, bool tiny,
			     bool numbered, char *s, size_t cap)
{
	struct rng r;
	const char *w;
	size_t n = 0;

	rng_open(&r, g->key ^ SALT_NAME, j + 1);
	w = archive_pick_word(g->cm, &r);
	if (tiny)
		return archive_catf(s, 0, cap, "%.6s.txt", w);
	if (kind == ENTRY_TEXT && rng_below(&r, 16) == 0) {
		n = archive_catf(s, n, cap, "%s",
				 special_names[rng_below(&r, ARRAY_SIZE(special_names))]);
		if (numbered)
			n = archive_catf(s, n, cap, "-%u", j + 1);
		return archive_catf(s, n, cap, "%s", rng_below(&r, 2) ? "" : ".md");
	}
	n = archive_catf(s, n, cap, "%s", w);
	switch (rng_below(&r, 5)) {
	case 0:
		n = archive_catf(s, n, cap, "_%s", archive_pick_word(g->cm, &r));
		break;
	case 1:
		n = archive_catf(s, n, cap, "-%u", 1 + (unsigned int)rng_below(&r, 40));
		break;
	case 2:
		n = archive_catf(s, n, cap, "_%u-%02u", 2008 + (unsigned int)rng_below(&r, 16),
				 1 + (unsigned int)rng_below(&r, 12));
		break;
	default:
		break;
	}
	if (numbered)
		n = archive_catf(s, n, cap, "-%u", j + 1);
	if (kind == ENTRY_TEXT)
		return archive_catf(s, n, cap, "%s",
				    text_exts[rng_below(&r, ARRAY_SIZE(text_exts))]);
	return archive_catf(s, n, cap, "%s", bin_exts[rng_below(&r, ARRAY_SIZE(bin_exts))]);
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
		uint32_t mant;
		struct entry *e;
		size_t pl = tl, bl;
		struct rng k;
		int kind;

		if (gj != grp) {
			/* a subdirectory's entry before its first file */
			grp = gj;
			e = &es->e[n++];
			*e = (struct entry){ .kind = ENTRY_DIR, .mtime = t0 };
			e->name_len =
				(uint8_t)archive_catf(e->name, 0, sizeof(e->name), "%s%s/", top,
						      sub_dirs[(sub0 + gj) % ARRAY_SIZE(sub_dirs)]);
		}
		rng_open(&k, g->key ^ SALT_FILE, j);
		kind = rng_below(&k, 10) < 6 ? ENTRY_TEXT : ENTRY_BINARY;
		e = &es->e[n++];
		*e = (struct entry){
			.kind = (uint8_t)kind,
			.key = archive_sub_key(g->key, SALT_MEMBER, j),
			.mtime = t0 - (uint32_t)rng_below(&k, 3u * 365 * 86400),
		};
		/*
		 * log-uniform over three decades; two statements, because the order
		 * of two draws in one expression is the compiler's choice
		 */
		mant = (uint32_t)(64 + rng_below(&k, 64));
		e->weight = mant << rng_below(&k, 10);
		if (tiny || text_only)
			kind = ENTRY_TEXT;
		e->kind = (uint8_t)kind;
		memcpy(e->name, top, tl);
		if (gj)
			pl = archive_catf(e->name, tl, sizeof(e->name), "%s/",
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

int archive_entries_build(const struct gen_file *g, const struct entries_fmt *fmt,
			  struct entries *es)
{
	uint64_t t = archive_isqrt64(g->size / 1024) * 5 / 4 + 1;
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
