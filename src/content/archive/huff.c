/* huff.c - a deflate block of literals only (dynamic Huffman codes), its exact bit length known before it is written */
#include <errno.h>
#include <string.h>

#include "content/archive/archive.h"

/*
 * Deflate's own cheapest coding: every byte a literal, coded by a Huffman
 * code made for the block (RFC 1951 3.2.7), as zlib's Z_HUFFMAN_ONLY
 * does.  No match search, so it runs at memory speed (a count of the
 * bytes, then one table look-up a byte) where zlib's fastest level
 * searches matches at some 100 MB/s.  Its length is a sum over the
 * counts, known before a bit is written.  Codes are built from the counts
 * by Huffman's method and, when a code would pass the format's longest
 * (15 bits; 7 for the code of the code lengths), the counts are halved
 * (never to zero) and the code made again, as some encoders do.  Two
 * distance codes of one bit each are declared though none is used, as
 * zlib does, since some inflaters (Info-ZIP's) refuse a block without a
 * complete distance code.
 */

#define LIT_CODES  257u /* bytes, and the end of block (256) */
#define CL_CODES   19u	/* the code lengths' alphabet */
#define LIT_LIMIT  15u
#define CL_LIMIT   7u
#define DIST_CODES 2u
#define HUFF_BLOCK 8192u /* data bytes a block: each its own code, so the coded bytes hardly repeat */

/* The order code lengths' code lengths are sent in (RFC 1951 3.2.7). */
static const uint8_t cl_order[CL_CODES] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
					    11, 4, 12, 3, 13, 2, 14, 1, 15 };

/*
 * sym[0, used) (symbols in increasing order) sorted by count f[], then
 * symbol: insertion sort for a few (the code lengths' code), else a
 * stable radix sort by the count's bits, lowest first, which keeps the
 * symbols' order among equal counts.  Its digits are as few and as
 * narrow as the largest count allows (two of 6 bits for a block's counts
 * under 4096), so a pass scans 64 buckets rather than 256; any stable
 * sort by count gives the same order.
 */
static void huff_sort(const uint32_t *f, uint16_t *sym, unsigned int used)
{
	uint16_t tmp[LIT_CODES];
	uint32_t top = 0;
	unsigned int width = 0, passes, digit;

	if (used <= CL_CODES) {
		for (unsigned int i = 1; i < used; i++) {
			uint16_t s = sym[i];
			unsigned int j = i;

			while (j > 0 && f[sym[j - 1]] > f[s]) {
				sym[j] = sym[j - 1];
				j--;
			}
			sym[j] = s;
		}
		return;
	}
	for (unsigned int i = 0; i < used; i++)
		top |= f[sym[i]];
	while (width < 32 && top >> width)
		width++;
	passes = (width + 7) / 8;
	digit = passes ? (width + passes - 1) / passes : 0;
	for (unsigned int pass = 0, shift = 0; pass < passes; pass++, shift += digit) {
		unsigned int at[256] = { 0 }, sum = 0, mask = (1u << digit) - 1;

		for (unsigned int i = 0; i < used; i++)
			at[f[sym[i]] >> shift & mask]++;
		for (unsigned int b = 0; b <= mask; b++) {
			unsigned int c = at[b];

			at[b] = sum;
			sum += c;
		}
		for (unsigned int i = 0; i < used; i++)
			tmp[at[f[sym[i]] >> shift & mask]++] = sym[i];
		memcpy(sym, tmp, used * sizeof(*sym));
	}
}

/* Huffman code lengths of counts freq[0, n) (n <= LIT_CODES), at most limit bits; 0 for unused. */
static void huff_lengths(const uint32_t *freq, unsigned int n, unsigned int limit, uint8_t *len)
{
	uint32_t f[LIT_CODES], w[2 * LIT_CODES];
	uint16_t sym[LIT_CODES], parent[2 * LIT_CODES];
	unsigned int used = 0, depth_max;

	memcpy(f, freq, n * sizeof(*f));
	memset(len, 0, n);
	for (unsigned int s = 0; s < n; s++)
		if (f[s])
			sym[used++] = (uint16_t)s;
	if (used < 2) {
		/* one symbol: one code of one bit (the block has two: see the callers) */
		if (used)
			len[sym[0]] = 1;
		return;
	}
	for (;;) {
		unsigned int leaf = 0, node = used, next = used;

		huff_sort(f, sym, used);
		for (unsigned int i = 0; i < used; i++)
			w[i] = f[sym[i]];
		/* two queues: leaves in order, then the joined nodes (made in order) */
		for (; next < 2 * used - 1; next++) {
			unsigned int pick[2];

			for (int k = 0; k < 2; k++) {
				if (leaf < used && (node >= next || w[leaf] <= w[node]))
					pick[k] = leaf++;
				else
					pick[k] = node++;
			}
			w[next] = w[pick[0]] + w[pick[1]];
			parent[pick[0]] = parent[pick[1]] = (uint16_t)next;
		}
		/* depths: the root is the last node; parents come after their children */
		depth_max = 0;
		w[2 * used - 2] = 0;
		for (unsigned int i = 2 * used - 2; i-- > 0;) {
			w[i] = w[parent[i]] + 1;
			if (i < used && w[i] > depth_max)
				depth_max = w[i];
		}
		if (depth_max <= limit)
			break;
		/* halved, never to zero; the symbols in order again for huff_sort() */
		used = 0;
		for (unsigned int s = 0; s < n; s++) {
			if (!f[s])
				continue;
			f[s] = (f[s] >> 1) | 1;
			sym[used++] = (uint16_t)s;
		}
	}
	for (unsigned int i = 0; i < used; i++)
		len[sym[i]] = (uint8_t)w[i];
}

/* The bits of every byte reversed. */
#define REV2(x) (x), (x) + 128, (x) + 64, (x) + 192
#define REV4(x) REV2(x), REV2((x) + 32), REV2((x) + 16), REV2((x) + 48)
#define REV6(x) REV4(x), REV4((x) + 8), REV4((x) + 4), REV4((x) + 12)
static const uint8_t rev8[256] = { REV6(0), REV6(2), REV6(1), REV6(3) };

/* Canonical codes of lengths len[0, n), bit-reversed (deflate sends a code's first bit first). */
static void huff_codes(const uint8_t *len, unsigned int n, uint16_t *code)
{
	uint16_t count[LIT_LIMIT + 1] = { 0 }, next[LIT_LIMIT + 2];

	for (unsigned int s = 0; s < n; s++)
		count[len[s]]++;
	count[0] = 0;
	next[1] = 0;
	for (unsigned int b = 1; b <= LIT_LIMIT; b++)
		next[b + 1] = (uint16_t)((next[b] + count[b]) << 1);
	for (unsigned int s = 0; s < n; s++) {
		unsigned int l = len[s];
		uint32_t c;

		if (!l) {
			code[s] = 0;
			continue;
		}
		/* c's 16 bits reversed, then its l low ones (c < 2^l) */
		c = next[l]++;
		c = (uint32_t)rev8[c & 255] << 8 | rev8[c >> 8];
		code[s] = (uint16_t)(c >> (16 - l));
	}
}

/* The block's codes and header: lengths, the code lengths as tokens, and its bits. */
struct huff_plan {
	uint8_t len[LIT_CODES], cl_len[CL_CODES];
	uint16_t code[LIT_CODES], cl_code[CL_CODES];
	uint16_t tok[LIT_CODES + DIST_CODES]; /* symbol | extra << 5 */
	unsigned int ntok, hclen;
	uint64_t bits; /* the whole block, its end code included */
};

static void huff_plan(const uint8_t *in, uint64_t u, struct huff_plan *hp)
{
	uint32_t c4[4][256] = { { 0 } }, freq[LIT_CODES], cl_freq[CL_CODES] = { 0 };
	uint8_t all[LIT_CODES + DIST_CODES];
	uint64_t i = 0, bits;

	/* four tables: a run of one byte does not wait on its own count; 8 bytes a turn */
	for (; i + 8 <= u; i += 8) {
		c4[0][in[i]]++;
		c4[1][in[i + 1]]++;
		c4[2][in[i + 2]]++;
		c4[3][in[i + 3]]++;
		c4[0][in[i + 4]]++;
		c4[1][in[i + 5]]++;
		c4[2][in[i + 6]]++;
		c4[3][in[i + 7]]++;
	}
	for (; i < u; i++)
		c4[0][in[i]]++;
	for (unsigned int s = 0; s < 256; s++)
		freq[s] = c4[0][s] + c4[1][s] + c4[2][s] + c4[3][s];
	freq[256] = 1;
	huff_lengths(freq, LIT_CODES, LIT_LIMIT, hp->len);
	huff_codes(hp->len, LIT_CODES, hp->code);

	/* the code lengths, literals then the two distance codes, zero runs as 17 and 18 */
	memcpy(all, hp->len, LIT_CODES);
	all[LIT_CODES] = all[LIT_CODES + 1] = 1;
	hp->ntok = 0;
	for (unsigned int s = 0; s < LIT_CODES + DIST_CODES;) {
		unsigned int run = 1;

		if (all[s]) {
			hp->tok[hp->ntok++] = all[s++];
			continue;
		}
		while (s + run < LIT_CODES + DIST_CODES && !all[s + run] && run < 138)
			run++;
		if (run >= 11)
			hp->tok[hp->ntok++] = (uint16_t)(18 | (run - 11) << 5);
		else if (run >= 3)
			hp->tok[hp->ntok++] = (uint16_t)(17 | (run - 3) << 5);
		else
			for (unsigned int k = 0; k < run; k++)
				hp->tok[hp->ntok++] = 0;
		s += run;
	}
	for (unsigned int t = 0; t < hp->ntok; t++)
		cl_freq[hp->tok[t] & 31]++;
	huff_lengths(cl_freq, CL_CODES, CL_LIMIT, hp->cl_len);
	huff_codes(hp->cl_len, CL_CODES, hp->cl_code);
	hp->hclen = CL_CODES;
	while (hp->hclen > 4 && !hp->cl_len[cl_order[hp->hclen - 1]])
		hp->hclen--;

	bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)hp->hclen;
	for (unsigned int t = 0; t < hp->ntok; t++) {
		unsigned int s = hp->tok[t] & 31;

		bits += hp->cl_len[s] + (s == 18 ? 7 : s == 17 ? 3 : 0);
	}
	for (unsigned int s = 0; s < 256; s++)
		bits += (uint64_t)freq[s] * hp->len[s];
	hp->bits = bits + hp->len[256];
}

/* Bits into bytes, first bit lowest. */
struct bitw {
	uint8_t *p;
	uint64_t acc;
	unsigned int n;
};

static inline void bw_put(struct bitw *b, uint64_t v, unsigned int bits)
{
	b->acc |= v << b->n;
	b->n += bits;
	if (b->n >= 32) {
		put_le32(b->p, (uint32_t)b->acc);
		b->p += 4;
		b->acc >>= 32;
		b->n -= 32;
	}
}

/* Write out what is held, up to the next byte boundary. */
static void bw_align(struct bitw *b)
{
	for (; b->n > 0; b->n = b->n > 8 ? b->n - 8 : 0) {
		*b->p++ = (uint8_t)b->acc;
		b->acc >>= 8;
	}
	b->acc = 0;
}

/* Blocks of data in[0, u) (the last one up to twice as long), and where block i starts. */
static unsigned int huff_nblocks(uint64_t u)
{
	return (unsigned int)(u / HUFF_BLOCK > 1 ? u / HUFF_BLOCK : 1);
}

static uint64_t huff_start(uint64_t i)
{
	return i * HUFF_BLOCK;
}

/*
 * Padding: an empty block of dynamic codes is 92 bits (below), one of
 * fixed codes 10; then an empty stored block ends at the next byte and 4
 * bytes on, and empty stored blocks of 5 bytes follow.  Fixed ones alone
 * reach 4 of the 5 residues of a length modulo 5 (4 of them are 5 bytes);
 * with 0 or 1 dynamic one and 0 to 3 fixed ones every residue is reached,
 * whatever the bits before (checked over all 40 phases).
 */
#define DYN_EMPTY_BITS 92u

/*
 * After bits bits of a slot of len bytes: the dynamic (*j) and fixed (the
 * return) empty blocks that make the stored block after them end (*end)
 * where 5-byte ones reach len; -1 when the slot has no room for them.
 */
static int huff_empties(uint64_t bits, uint64_t len, unsigned int *j, uint64_t *end)
{
	for (unsigned int d = 0; d < 2; d++)
		for (int k = 0; k < 4; k++) {
			uint64_t l = (bits + DYN_EMPTY_BITS * d + 10 * (uint64_t)k + 3 + 7) / 8 + 4;

			if (l <= len && (len - l) % 5 == 0) {
				*j = d;
				*end = l;
				return k;
			}
		}
	return -1;
}

/*
 * The empty block of dynamic codes: HLIT 257, HDIST 2, HCLEN 18; code
 * length codes 1 and 18 of one bit each; literal 0 and the end of block
 * of one bit, bytes 1-255 as runs of 138 and 117 zeros, the two distance
 * codes of one bit; then the end of block (code 1).  92 bits.
 */
static void huff_dyn_empty(struct bitw *b)
{
	bw_put(b, 2 << 1, 3);
	bw_put(b, 0, 5);
	bw_put(b, 1, 5);
	bw_put(b, 18 - 4, 4);
	for (unsigned int i = 0; i < 18; i++)
		bw_put(b, cl_order[i] == 18 || cl_order[i] == 1, 3);
	bw_put(b, 0, 1);		     /* literal 0: length 1 */
	bw_put(b, 1 | (138 - 11) << 1, 8); /* 18: 138 zeros */
	bw_put(b, 1 | (117 - 11) << 1, 8); /* 18: 117 zeros */
	bw_put(b, 0, 3);		     /* the end of block and the distances: length 1 */
	bw_put(b, 1, 1);		     /* the end of block */
}

uint64_t archive_huff_bits(const uint8_t *in, uint64_t u)
{
	struct huff_plan hp;
	unsigned int nb = huff_nblocks(u);
	uint64_t bits = 0;

	for (unsigned int i = 0; i < nb; i++) {
		uint64_t at = huff_start(i), n = (i + 1 < nb ? huff_start(i + 1) : u) - at;

		huff_plan(in + at, n, &hp);
		bits += hp.bits;
	}
	return bits;
}

/*
 * The block's literals in[0, u) into b.  Most of them `per` codes at a
 * time (three, or four when no code is longer than HUFF_FOUR bits: at
 * most 56 bits, as text's blocks are) and then a store of 8 bytes
 * whatever is complete, without a branch; the same bits as bw_put() one
 * code at a time.  A store writes up to 8 bytes on from b->p, so the last
 * HUFF_TAIL bytes go by bw_put(): each is at least one bit, and the
 * stored block's 4 bytes of lengths end every slot, so the 8 bytes are
 * the slot's (later stores write over the zeros past the bits).
 */
#define HUFF_TAIL 32u
#define HUFF_FOUR 14u

static inline __attribute__((always_inline)) uint64_t
huff_run(const uint32_t *t, const uint8_t *in, uint64_t u, unsigned int per, struct bitw *b)
{
	uint64_t i = 0, acc = b->acc;
	unsigned int n = b->n;
	uint8_t *p = b->p;

	for (; i + per + HUFF_TAIL <= u; i += per) {
		uint32_t c0 = t[in[i]], c1 = t[in[i + 1]], c2 = t[in[i + 2]];
		uint32_t c3 = per > 3 ? t[in[i + 3]] : 0;

		put_le64(p, acc); /* flush first: n < 32 on entry, < 8 after */
		p += n >> 3;
		acc >>= n & 56;
		n &= 7;
		acc |= (uint64_t)(c0 & 0xFFFF) << n;
		n += c0 >> 16;
		acc |= (uint64_t)(c1 & 0xFFFF) << n;
		n += c1 >> 16;
		acc |= (uint64_t)(c2 & 0xFFFF) << n;
		n += c2 >> 16;
		if (per > 3) {
			acc |= (uint64_t)(c3 & 0xFFFF) << n;
			n += c3 >> 16;
		}
	}
	/* n <= 63: bytes until fewer than 32 bits are held, as bw_put() holds them */
	for (; n >= 32; n -= 8, acc >>= 8)
		*p++ = (uint8_t)acc;
	b->acc = acc;
	b->n = n;
	b->p = p;
	return i;
}

static void huff_literals(const struct huff_plan *hp, const uint8_t *in, uint64_t u,
			  struct bitw *b)
{
	uint64_t i = 0;

	if (u > HUFF_TAIL + 4) {
		uint32_t t[256];
		unsigned int top = 0;

		for (unsigned int s = 0; s < 256; s++) {
			t[s] = hp->code[s] | (uint32_t)hp->len[s] << 16;
			top = MAX(top, (unsigned int)hp->len[s]);
		}
		if (top <= HUFF_FOUR)
			i = huff_run(t, in, u, 4, b);
		else
			i = huff_run(t, in, u, 3, b);
	}
	for (; i < u; i++)
		bw_put(b, hp->code[in[i]], hp->len[in[i]]);
}

/* Block hp of in[0, u) into b. */
static void huff_block(const struct huff_plan *hp, const uint8_t *in, uint64_t u, struct bitw *bw)
{
	struct bitw b = *bw;

	bw_put(&b, 2 << 1, 3); /* not final, dynamic codes */
	bw_put(&b, LIT_CODES - 257, 5);
	bw_put(&b, DIST_CODES - 1, 5);
	bw_put(&b, hp->hclen - 4, 4);
	for (unsigned int i = 0; i < hp->hclen; i++)
		bw_put(&b, hp->cl_len[cl_order[i]], 3);
	for (unsigned int t = 0; t < hp->ntok; t++) {
		unsigned int s = hp->tok[t] & 31, x = hp->tok[t] >> 5;

		bw_put(&b, hp->cl_code[s], hp->cl_len[s]);
		if (s == 17)
			bw_put(&b, x, 3);
		else if (s == 18)
			bw_put(&b, x, 7);
	}
	huff_literals(hp, in, u, &b);
	bw_put(&b, hp->code[256], hp->len[256]);
	*bw = b;
}

int archive_huff_slot(const uint8_t *in, uint64_t u, uint64_t len, uint8_t *out)
{
	struct huff_plan hp[DFL_IN_MAX / HUFF_BLOCK];
	struct bitw b = { out, 0, 0 };
	unsigned int nb = huff_nblocks(u);
	uint64_t end, bits = 0;
	unsigned int j;
	int k;

	for (unsigned int i = 0; i < nb; i++) {
		uint64_t at = huff_start(i), n = (i + 1 < nb ? huff_start(i + 1) : u) - at;

		huff_plan(in + at, n, &hp[i]);
		bits += hp[i].bits;
	}
	k = huff_empties(bits, len, &j, &end);
	if (k < 0)
		return 1;
	for (unsigned int i = 0; i < nb; i++) {
		uint64_t at = huff_start(i), n = (i + 1 < nb ? huff_start(i + 1) : u) - at;

		huff_block(&hp[i], in + at, n, &b);
	}
	if (j)
		huff_dyn_empty(&b);
	for (int i = 0; i < k; i++)
		bw_put(&b, 2, 10); /* an empty block of fixed codes */
	bw_put(&b, 0, 3);	   /* an empty stored block: to the byte, then its lengths */
	bw_align(&b);
	for (uint8_t *p = b.p; p + 4 <= out + len; p += 5)
		memcpy(p, (const uint8_t[]){ 0, 0, 0xff, 0xff, 0 }, p + 5 <= out + len ? 5 : 4);
	return (uint64_t)(b.p - out) + 4 == end ? 0 : -EIO;
}
