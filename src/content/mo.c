/* mo.c - GNU gettext message catalogues (.mo): header, two string tables, the strings */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/binary.h"
#include "util/bytes.h"

/*
 * A .mo file (little-endian, revision 0, no hash table): the 28-byte
 * header, the table of original strings and the table of translations
 * (length and offset of each, NUL not counted), then the strings.  Entry
 * 0 is the catalogue's header (original ""), the others are messages of
 * 2 to 9 words of the model's vocabulary and their "translation", words
 * of the same vocabulary drawn again: text that compresses as real
 * catalogues do.  The tables and strings take at most MO_CORE bytes,
 * rebuilt at each fill; a larger file's last translation runs on to the
 * end with the model's text (gen_text_bytes; a profile's, gen_file.boost
 * set: prose with that recurrence, so that large catalogues reach its
 * ratio too), so any range is cheap.
 */

#define MO_MAGIC 0x950412deu
#define MO_HEAD	 28u
#define MO_CORE	 65536u
#define MO_MIN	 64u
#define SALT_MO	 UINT64_C(0x7C0D3A5B19E2F4C1)

struct mo_core {
	uint8_t str[MO_CORE];	  /* the strings, NUL-terminated, in file order */
	uint32_t len[2][MO_CORE / 32], at[2][MO_CORE / 32]; /* within str */
	uint32_t n, used;	  /* entries, bytes of str */
};

/* A word of the model, the commoner ranks likelier; letters when there is no model. */
static size_t mo_word(const struct content_model *cm, struct wy *r, char *out)
{
	uint64_t x = wy_next(r);

	if (!cm || !cm->nwords) {
		size_t n = 2 + x % 7;

		for (size_t i = 0; i < n; i++)
			out[i] = (char)('a' + (x >> (8 + 4 * i)) % 26);
		return n;
	} else {
		uint64_t span = cm->nwords < 500 ? cm->nwords : 500;
		uint64_t u = below(x, span);
		uint64_t rank = below(wy_next(r), u + 1); /* about 1/rank */

		memcpy(out, cm->word[rank], cm->word_len[rank]);
		return cm->word_len[rank];
	}
}

/* A message of nw words into out (cap bytes at least 20 * nw): capitalised, some punctuated. */
static size_t mo_message(const struct content_model *cm, struct wy *r, unsigned nw, char *out)
{
	uint64_t x = wy_next(r);
	size_t n = 0;

	for (unsigned i = 0; i < nw; i++) {
		if (i)
			out[n++] = ' ';
		n += mo_word(cm, r, out + n);
		if (i + 1 < nw && (x >> (4 * i) & 15) == 0)
			n += (size_t)sprintf(out + n, " %%s");
	}
	if (out[0] >= 'a' && out[0] <= 'z')
		out[0] = (char)(out[0] - 'a' + 'A');
	if ((x >> 56) % 4 == 0)
		out[n++] = (x >> 60) & 1 ? ':' : '.';
	return n;
}

/* Append s (n bytes) and its NUL as string k of table t, within the core of cap bytes. */
static int mo_put(struct mo_core *c, unsigned t, const char *s, size_t n, size_t room)
{
	if (c->used + n + 1 > room)
		return -1;
	memcpy(c->str + c->used, s, n);
	c->str[c->used + n] = 0;
	c->len[t][c->n] = (uint32_t)n;
	c->at[t][c->n] = c->used;
	c->used += (uint32_t)n + 1;
	return 0;
}

/* A continued message's first letter stays lowercase. */
static void mo_lower(char *s)
{
	if (*s >= 'A' && *s <= 'Z')
		*s = (char)(*s - 'A' + 'a');
}

/* The words of string e of table t up to the middle, and a space, into out; returns the bytes. */
static size_t mo_prefix(const struct mo_core *c, unsigned t, uint32_t e, char *out)
{
	size_t n = c->len[t][e] / 2;

	while (n && c->str[c->at[t][e] + n] != ' ')
		n--;
	memcpy(out, c->str + c->at[t][e], n);
	out[n] = ' ';
	return n ? n + 1 : 0;
}

/* The strings of a core of cap bytes (the last translation not yet stretched). */
static void mo_build(const struct gen_file *g, uint64_t cap, struct mo_core *c)
{
	char msg[512], head[400], name[20];
	uint64_t seen[MO_CORE / 16] = { 0 }; /* msgid hashes: msgids are unique */
	struct wy r;
	size_t hn, nl;
	uint64_t lang;
	unsigned again = 0;

	wy_open(&r, g->key ^ SALT_MO, 0);
	nl = mo_word(g->cm, &r, name);
	name[nl] = 0;
	lang = wy_next(&r);
	hn = (size_t)snprintf(head, sizeof(head),
			      "Project-Id-Version: %.12s %u.%u\nReport-Msgid-Bugs-To: \n"
			      "POT-Creation-Date: 20%02u-%02u-%02u 12:%02u+0000\n"
			      "PO-Revision-Date: 20%02u-%02u-%02u 09:%02u+0100\n"
			      "Language-Team: %c%c <LL@li.org>\nLanguage: %c%c\n"
			      "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
			      "Content-Transfer-Encoding: 8bit\n"
			      "Plural-Forms: nplurals=2; plural=(n != 1);\n",
			      name, (unsigned)(wy_next(&r) % 9), (unsigned)(wy_next(&r) % 30),
			      10 + (unsigned)(wy_next(&r) % 14), 1 + (unsigned)(wy_next(&r) % 12),
			      1 + (unsigned)(wy_next(&r) % 28), (unsigned)(wy_next(&r) % 60),
			      10 + (unsigned)(wy_next(&r) % 14), 1 + (unsigned)(wy_next(&r) % 12),
			      1 + (unsigned)(wy_next(&r) % 28), (unsigned)(wy_next(&r) % 60),
			      (char)('A' + lang % 26), (char)('A' + lang / 26 % 26),
			      (char)('a' + lang % 26), (char)('a' + lang / 26 % 26));
	memset(c->len, 0, sizeof(c->len));
	c->n = 0;
	c->used = 0;
	/* entry 0: the header, cut to what a tiny file holds */
	{
		size_t room = cap - MO_HEAD - 16;
		size_t keep = hn + 2 <= room ? hn : room - 2;

		mo_put(c, 0, "", 0, room);
		mo_put(c, 1, head, keep, room);
		c->n = 1;
	}
	for (;;) {
		unsigned nw = 2 + (unsigned)(wy_next(&r) % 8);
		uint64_t x = wy_next(&r);
		/*
		 * half the messages start as an earlier one does (its translation
		 * too); a profile's boost (ext_content) moves the half toward all
		 * or none
		 */
		int cont = g->boost == 0 ? (int)(x & 1) :
			   (x >> 48) < (uint64_t)(32768 + (int64_t)g->boost / 2);
		uint32_t e = c->n > 1 && cont ? c->n - 1 - (uint32_t)below(x, MIN(c->n - 1, 32)) : 0;
		size_t p0 = e ? mo_prefix(c, 0, e, msg) : 0;
		size_t n = p0 + mo_message(g->cm, &r, e ? nw / 2 + 1 : nw, msg + p0), room;

		if (p0)
			mo_lower(msg + p0);
		uint32_t used = c->used, k = c->n;
		uint64_t h = UINT64_C(0xCBF29CE484222325), slot;

		if (k + 1 >= MO_CORE / 32)
			break;
		for (size_t i = 0; i < n; i++)
			h = (h ^ (uint8_t)msg[i]) * UINT64_C(0x100000001B3);
		h |= 1;
		for (slot = h % ARRAY_SIZE(seen); seen[slot] && seen[slot] != h;
		     slot = (slot + 1) % ARRAY_SIZE(seen))
			;
		if (seen[slot]) {
			if (++again > 64)
				break;
			continue; /* drawn before: draw another */
		}
		again = 0;
		room = cap - MO_HEAD - 16 * ((size_t)k + 1);
		if (mo_put(c, 0, msg, n, room))
			break;
		p0 = e ? mo_prefix(c, 1, e, msg) : 0;
		n = p0 + mo_message(g->cm, &r, (e ? nw / 2 + 1 : nw) + (unsigned)(wy_next(&r) % 3),
				    msg + p0);
		if (p0)
			mo_lower(msg + p0);
		if (mo_put(c, 1, msg, n, room)) {
			c->used = used;
			break;
		}
		seen[slot] = h;
		c->n++;
	}
}

static int mo_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	uint64_t cap = g->size < MO_CORE ? g->size : MO_CORE, strs, end = off + len, last;
	struct mo_core *c;
	uint8_t head[MO_HEAD];

	if (gen_check_request(g, MO_MIN, off, len))
		return -EINVAL;
	c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	mo_build(g, cap, c);
	strs = MO_HEAD + 16 * (uint64_t)c->n;
	/* the last translation runs to the end of the file */
	last = strs + c->at[1][c->n - 1];
	c->len[1][c->n - 1] = (uint32_t)(g->size - 1 - last);
	put_le32(head, MO_MAGIC);
	put_le32(head + 4, 0);
	put_le32(head + 8, c->n);
	put_le32(head + 12, MO_HEAD);
	put_le32(head + 16, MO_HEAD + 8 * c->n);
	put_le32(head + 20, 0);
	put_le32(head + 24, (uint32_t)strs);
	for (uint64_t p = off; p < end;) {
		uint8_t *o = buf + (p - off);

		if (p < MO_HEAD) {
			*o = head[p];
			p++;
		} else if (p < strs) {
			uint64_t i = (p - MO_HEAD) / 8, t = i / c->n, e = i % c->n;
			uint8_t f[8];

			put_le32(f, c->len[t][e]);
			put_le32(f + 4, (uint32_t)(strs + c->at[t][e]));
			*o = f[(p - MO_HEAD) % 8];
			p++;
		} else if (p < strs + c->used - 1) {
			uint64_t n = MIN(end, strs + c->used - 1) - p;

			memcpy(o, c->str + (p - strs), n);
			p += n;
		} else if (p < g->size - 1) {
			uint64_t n = MIN(end, g->size - 1) - p;

			if (g->boost) {
				/* a profile's catalogue: its text recurs as the boost says too */
				struct gen_file t = *g;
				int ret;

				t.ext = "txt";
				t.memo = NULL;
				t.key = g->key ^ SALT_MO;
				ret = gen_text_ops.fill(&t, p, o, (size_t)n);
				if (ret) {
					free(c);
					return ret;
				}
			} else {
				gen_text_bytes(g->cm, g->key ^ SALT_MO, p, o, n);
			}
			for (uint64_t i = 0; i < n; i++)
				o[i] = o[i] ? o[i] : ' ';
			p += n;
		} else {
			*o = 0;
			p++;
		}
	}
	free(c);
	return 0;
}

const struct gen_ops gen_mo_ops = {
	.name = "mo",
	.min_size = MO_MIN,
	.fill = mo_fill,
};
