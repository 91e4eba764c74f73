/* exec.c - executables: ELF and PE files of x86 code, strings and data */
#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "content/gen.h"
#include "content/binary.h"
#include "util/bytes.h"

/*
 * Section contents of executables, by 4 KiB blocks of file offsets so that
 * any range can be made on its own: x86-64 code (functions of common
 * instructions with random operands) and read-only strings.
 */

/* An instruction: len fixed bytes, then `imm` operand bytes (1: disp8/rel8, 4: rel32/imm32). */
struct x86_insn {
	uint8_t weight;		/* out of 256 */
	uint8_t len;
	uint8_t imm;
	uint8_t b[8];		/* copied whole, len of them kept */
};

static const struct x86_insn x86_insns[] = {
	{ 21, 3, 1, { 0x48, 0x8b, 0x45 } },		/* mov rax, [rbp-d8] */
	{ 18, 3, 1, { 0x48, 0x89, 0x45 } },		/* mov [rbp-d8], rax */
	{ 16, 3, 0, { 0x48, 0x89, 0xc7 } },		/* mov rdi, rax */
	{ 12, 3, 0, { 0x48, 0x89, 0xde } },		/* mov rsi, rbx */
	{ 10, 3, 0, { 0x48, 0x89, 0xfb } },		/* mov rbx, rdi */
	{ 20, 1, 4, { 0xe8 } },				/* call rel32 */
	{ 14, 2, 0, { 0x85, 0xc0 } },			/* test eax, eax */
	{ 12, 1, 1, { 0x74 } },				/* je rel8 */
	{ 10, 1, 1, { 0x75 } },				/* jne rel8 */
	{ 10, 2, 0, { 0x31, 0xc0 } },			/* xor eax, eax */
	{ 12, 3, 4, { 0x48, 0x8d, 0x3d } },		/* lea rdi, [rip+rel32] */
	{ 10, 3, 4, { 0x48, 0x8d, 0x05 } },		/* lea rax, [rip+rel32] */
	{ 8, 2, 4, { 0x8b, 0x05 } },			/* mov eax, [rip+rel32] */
	{ 8, 1, 4, { 0xbf } },				/* mov edi, imm32 */
	{ 6, 1, 4, { 0xbe } },				/* mov esi, imm32 */
	{ 8, 2, 1, { 0x83, 0xf8 } },			/* cmp eax, imm8 */
	{ 6, 3, 1, { 0x48, 0x83, 0xc0 } },		/* add rax, imm8 */
	{ 6, 3, 1, { 0x0f, 0xb6, 0x47 } },		/* movzx eax, byte [rdi+d8] */
	{ 6, 3, 1, { 0x48, 0x8b, 0x40 } },		/* mov rax, [rax+d8] */
	{ 6, 3, 0, { 0x48, 0x39, 0xd0 } },		/* cmp rax, rdx */
	{ 5, 1, 4, { 0xe9 } },				/* jmp rel32 */
	{ 5, 2, 4, { 0x0f, 0x84 } },			/* je rel32 */
	{ 4, 2, 4, { 0x0f, 0x85 } },			/* jne rel32 */
	{ 4, 1, 1, { 0xeb } },				/* jmp rel8 */
	{ 4, 4, 4, { 0xf2, 0x0f, 0x10, 0x05 } },	/* movsd xmm0, [rip+rel32] */
	{ 4, 2, 0, { 0x89, 0xc7 } },			/* mov edi, eax */
	{ 3, 1, 0, { 0x53 } },				/* push rbx */
	{ 3, 1, 0, { 0x5b } },				/* pop rbx */
	{ 3, 5, 0, { 0x0f, 0x1f, 0x44, 0x00, 0x00 } },	/* nop dword [rax+rax] */
	{ 2, 2, 1, { 0xc1, 0xe0 } },			/* shl eax, imm8 */
};

/* Function boundaries: epilogue, padding to 16 bytes, prologue. */
static const uint8_t x86_epilogue[] = { 0x5d, 0xc3 };	/* pop rbp; ret */

static const uint8_t x86_prologue[] = {
	0xf3, 0x0f, 0x1e, 0xfa,		/* endbr64 */
	0x55,				/* push rbp */
	0x48, 0x89, 0xe5,		/* mov rbp, rsp */
	0x48, 0x83, 0xec,		/* sub rsp, imm8 (the imm follows) */
};

/*
 * The instruction of each 8 random bits, following the weights, ready to
 * store: its fixed bytes (copied whole, len of them kept), its operand's
 * length imm, and imm8: 0xff when that operand is one byte (a frame
 * offset, x86_emit() puts it in the low byte of the operand word), else 0.
 */
struct x86_slot {
	uint8_t b[8];
	uint32_t imm8;
	uint8_t len, imm;
};

static struct x86_slot x86_pick[256];

static pthread_once_t x86_pick_once = PTHREAD_ONCE_INIT;

static void x86_pick_set(struct x86_slot *s, const struct x86_insn *in)
{
	memcpy(s->b, in->b, sizeof(s->b));
	s->imm8 = in->imm == 1 ? 0xff : 0;
	s->len = in->len;
	s->imm = in->imm;
}

static void x86_pick_build(void)
{
	unsigned slot = 0;

	for (size_t i = 0; i < ARRAY_SIZE(x86_insns); i++)
		for (unsigned k = 0; k < x86_insns[i].weight && slot < 256; k++)
			x86_pick_set(&x86_pick[slot++], &x86_insns[i]);
	while (slot < 256)
		x86_pick_set(&x86_pick[slot++], &x86_insns[0]);
}

/* The most bytes x86_emit() writes from p: a function end (2 + 15 + 11 + 1). */
#define X86_EMIT_MAX 29

/*
 * One instruction at p from 32 random bits (8: which, 5: whether a
 * function ends here, the rest: operand); returns where the next goes.
 * Operands look like real ones: small frame offsets, nearby targets.
 * Functions start 16-byte aligned from base.
 */
static inline __attribute__((always_inline)) uint8_t *x86_emit(const uint8_t *base, uint8_t *p,
							       uint32_t x)
{
	const struct x86_slot *in = &x86_pick[x & 0xff];
	uint32_t v, frame;

	if (((x >> 8) & 31) == 0) {
		memcpy(p, x86_epilogue, sizeof(x86_epilogue));
		p += sizeof(x86_epilogue);
		while ((p - base) % 16)
			*p++ = 0xcc;
		memcpy(p, x86_prologue, sizeof(x86_prologue));
		p += sizeof(x86_prologue);
		*p++ = (uint8_t)(8 * ((x >> 13) & 15) + 8);
		return p;
	}
	/*
	 * Without branches (the kind of operand is unpredictable): the fixed
	 * bytes and 4 operand bytes are stored whole, and p moves past only
	 * those that belong; an imm32 is a signed 19-bit displacement (top
	 * bytes 00 or ff), an imm8 a frame offset (imm8 takes it into the
	 * low byte, the one kept).
	 */
	memcpy(p, in->b, 8);
	p += in->len;
	v = (uint32_t)((int32_t)(x >> 13) - 0x40000);
	frame = 0xf8 - 8 * ((x >> 13) & 15);
	v ^= (v ^ frame) & in->imm8;
	v = htole32(v);
	memcpy(p, &v, 4);
	return p + in->imm;
}

/*
 * The first end bytes of block b (file offsets 4096 b ...) of code for key
 * into out: instructions from the block's start until end, two a draw
 * (the second may start past end: tmp has room for both).
 */
static void code_block(uint64_t key, uint64_t b, uint8_t *out, unsigned end)
{
	uint8_t tmp[BLOCK + 2 * X86_EMIT_MAX], *p = tmp;
	struct wy r;

	pthread_once(&x86_pick_once, x86_pick_build);
	wy_open(&r, key ^ SALT_CODE, b);
	while (p < tmp + end) {
		uint64_t x = wy_next(&r);

		p = x86_emit(tmp, p, (uint32_t)x);
		p = x86_emit(tmp, p, (uint32_t)(x >> 32));
	}
	memcpy(out, tmp, end);
}

/* Words for strings and symbol names. */
static const char *const bin_words[] = {
	"alloc", "buffer", "cache", "check", "client", "close", "config", "connect", "context",
	"copy", "count", "create", "data", "debug", "decode", "default", "device", "entry",
	"error", "event", "file", "find", "flags", "format", "frame", "free", "get", "handle",
	"hash", "header", "index", "init", "input", "item", "key", "length", "list", "load",
	"lock", "map", "message", "mode", "name", "node", "object", "open", "option", "output",
	"parse", "path", "read", "record", "register", "release", "request", "reset", "result",
	"server", "session", "set", "size", "socket", "start", "state", "status", "stop",
	"stream", "string", "table", "thread", "time", "update", "user", "value", "write",
};

#define NWORDS ARRAY_SIZE(bin_words)

static unsigned put_word(char *p, uint64_t x)
{
	const char *w = bin_words[below(x, NWORDS)];
	size_t n = strlen(w);

	memcpy(p, w, n);
	return (unsigned)n;
}

/* The words again, each in 8 bytes (none is longer), and their lengths: for .rodata. */
static char bin_word8[NWORDS][8];
static uint8_t bin_word_len[NWORDS];

static pthread_once_t bin_word8_once = PTHREAD_ONCE_INIT;

static void bin_word8_build(void)
{
	for (size_t i = 0; i < NWORDS; i++) {
		bin_word_len[i] = (uint8_t)strlen(bin_words[i]);
		memcpy(bin_word8[i], bin_words[i], bin_word_len[i]);
	}
}

/* put_word() storing 8 bytes whole: p needs room for 8 (those past the word are not kept). */
static inline unsigned put_word8(char *p, uint64_t x)
{
	uint64_t i = below(x, NWORDS);

	memcpy(p, bin_word8[i], 8);
	return bin_word_len[i];
}

/* One NUL-terminated string of a program's .rodata at p (at most 128 bytes; p has room for 8 more). */
static unsigned rodata_string(char *p, struct wy *r)
{
	uint64_t x = wy_next(r);
	unsigned n = 0, words = 1 + (unsigned)((x >> 4) & 3);
	const char sep = (x & 7) == 1 ? '/' : (x & 8) ? '_' : ' ';

	switch (x & 7) {
	case 0:
		memcpy(p, "%s: ", 4);
		n = 4;
		break;
	case 1:
		memcpy(p, "/usr/lib/", 9);
		n = 9;
		words = 2;
		break;
	default:
		break;
	}
	for (unsigned i = 0; i < words; i++) {
		if (i)
			p[n++] = sep;
		n += put_word8(p + n, wy_next(r));
	}
	switch ((x >> 8) & 7) {
	case 0:
		memcpy(p + n, " %d\n", 4);
		n += 4;
		break;
	case 1:
		memcpy(p + n, ": %s", 4);
		n += 4;
		break;
	case 2:
		memcpy(p + n, " failed", 7);
		n += 7;
		break;
	default:
		break;
	}
	p[n++] = 0;
	return n;
}

/* The first end bytes of block b of strings for key into out. */
static void rodata_block(uint64_t key, uint64_t b, uint8_t *out, unsigned end)
{
	char tmp[BLOCK + 256];
	unsigned pos = 0;
	struct wy r;

	pthread_once(&bin_word8_once, bin_word8_build);
	wy_open(&r, key ^ SALT_STR, b);
	while (pos < end) {
		pos += rodata_string(tmp + pos, &r);
		/* tables of pointers or numbers between runs of strings */
		if ((wy_next(&r) & 15) == 0) {
			while (pos % 8)
				tmp[pos++] = 0;
			for (unsigned i = 0; i < 8 && pos < BLOCK; i++, pos += 8) {
				uint64_t v = htole64(0x400000 + below(wy_next(&r), 0x100000));

				memcpy(tmp + pos, &v, 8);
			}
		}
	}
	memcpy(out, tmp, end);
}

/*
 * Bytes [off, off + len) of a section of kind fn, by blocks of file
 * offsets, each made from its start up to the last byte wanted.
 */
static void section_bytes(void (*fn)(uint64_t, uint64_t, uint8_t *, unsigned), uint64_t key,
			  uint64_t off, uint8_t *buf, size_t len)
{
	uint8_t tmp[BLOCK];

	while (len) {
		uint64_t b = off / BLOCK;
		unsigned in = off % BLOCK;
		size_t n = MIN((size_t)(BLOCK - in), len);

		if (n == BLOCK) {
			fn(key, b, buf, BLOCK);
		} else {
			fn(key, b, tmp, (unsigned)(in + n));
			memcpy(buf, tmp + in, n);
		}
		buf += n;
		off += n;
		len -= n;
	}
}

/* A file region [start, end) and the part of a request [off, off + len) inside it. */
static int overlap(uint64_t start, uint64_t end, uint64_t off, size_t len, uint64_t *from,
		   size_t *n)
{
	uint64_t a = MAX(start, off), z = MIN(end, off + len);

	if (a >= z)
		return 0;
	*from = a;
	*n = (size_t)(z - a);
	return 1;
}

/* ------------------------------------------------------------------------- */
/*
 * ELF64 x86-64: ET_EXEC (default), ET_DYN ("so"), ET_REL ("o", "ko").
 *
 *   ELF header, program headers (not for ET_REL), .note.gnu.build-id,
 *   .text, .rodata, .data (4 KiB-aligned once the file is 64 KiB or more,
 *   so its blocks are the file's blocks), .bss, then .symtab, the section
 *   headers, .strtab, .shstrtab and .comment, which ends exactly at the
 *   planned size (its tail is NUL padding of 0..7 bytes).  Files under
 *   4 KiB leave out the note, .bss and .comment.
 *
 * The body between the headers and .symtab is split 45% code, 15%
 * strings, 40% data (gen_binary_bytes()).  Symbols: a file symbol, static
 * and global functions spread over .text (one per 8 KiB of file, up to
 * 1024), objects in .data and .rodata (one per 64 KiB, up to 256).
 */

enum elf_sec_id {
	ES_NULL, ES_NOTE, ES_TEXT, ES_RODATA, ES_DATA, ES_BSS, ES_COMMENT, ES_SYMTAB, ES_STRTAB,
	ES_SHSTRTAB, ES_MAX
};

static const char *const elf_sec_name[ES_MAX] = {
	[ES_NULL] = "", [ES_NOTE] = ".note.gnu.build-id", [ES_TEXT] = ".text",
	[ES_RODATA] = ".rodata", [ES_DATA] = ".data", [ES_BSS] = ".bss",
	[ES_COMMENT] = ".comment", [ES_SYMTAB] = ".symtab", [ES_STRTAB] = ".strtab",
	[ES_SHSTRTAB] = ".shstrtab",
};

static const char elf_comment[] = "GCC: (Debian 12.2.0-14) 12.2.0";

#define ELF_NOTE_SIZE	36	/* namesz, descsz, type, "GNU\0", 20-byte id */
#define ELF_SMALL	4096	/* below: no note, .bss, .comment */
#define ELF_MAX_FUNCS	1024
#define ELF_MAX_OBJS	256
#define ELF_NAME_MAX	40

struct elf_sec {
	int present;
	unsigned index;		/* in the section header table */
	uint32_t name;		/* offset in .shstrtab */
	uint64_t off, size, addr;
};

struct elf_layout {
	uint64_t size;
	uint16_t type;
	int small;
	unsigned nph, nsec;
	struct elf_sec s[ES_MAX];
	uint64_t head_end;	/* ELF header, program headers, note */
	uint64_t base, data_vaddr;
	uint64_t shoff;
	unsigned nfuncs, nlocal_funcs, nobjs, nsyms, nlocal_syms;
	uint64_t strtab_size, shstrtab_size, comment_pad;
};

static uint16_t elf_type(const char *ext)
{
	if (!ext)
		return ET_EXEC;
	if (!strcmp(ext, "so") || !strncmp(ext, "so.", 3))
		return ET_DYN;
	if (!strcmp(ext, "o") || !strcmp(ext, "ko"))
		return ET_REL;
	return ET_EXEC;
}

/*
 * Name of symbol i (>= 1) into p (ELF_NAME_MAX bytes, NUL not counted);
 * returns its length.  Symbol 1 is the file symbol; an executable's first
 * global function is _start, its second main.
 */
static unsigned elf_sym_name(const struct elf_layout *el, uint64_t key, unsigned i, char *p)
{
	uint64_t x = rng_mix64(key ^ rng_mix64(i ^ SALT_META));
	unsigned n = 0, words;

	if (i == 1) {
		n = put_word(p, x);
		memcpy(p + n, ".c", 2);
		return n + 2;
	}
	if (el->type == ET_EXEC && i == 2 + el->nlocal_funcs) {
		memcpy(p, "_start", 6);
		return 6;
	}
	if (el->type == ET_EXEC && i == 3 + el->nlocal_funcs) {
		memcpy(p, "main", 4);
		return 4;
	}
	words = 1 + (unsigned)((x >> 60) % 3);
	for (unsigned k = 0; k < words; k++) {
		if (k)
			p[n++] = '_';
		n += put_word(p + n, rng_mix64(x + k));
	}
	return n;
}

static int elf_layout(const struct gen_file *g, struct elf_layout *el)
{
	uint64_t size = g->size, tail, body, pos, cut1, cut2, align;
	char name[ELF_NAME_MAX];
	unsigned idx = 0;

	memset(el, 0, sizeof(*el));
	el->size = size;
	el->type = elf_type(g->ext);
	el->small = size < ELF_SMALL;
	el->nph = el->type == ET_REL ? 0 : el->small ? 3 : 4;
	for (int i = 0; i < ES_MAX; i++)
		el->s[i].present = 1;
	if (el->small)
		el->s[ES_NOTE].present = el->s[ES_BSS].present = el->s[ES_COMMENT].present = 0;
	el->shstrtab_size = 0;
	for (int i = 0; i < ES_MAX; i++) {
		if (!el->s[i].present)
			continue;
		el->s[i].index = idx++;
		el->s[i].name = (uint32_t)el->shstrtab_size;
		el->shstrtab_size += strlen(elf_sec_name[i]) + 1;
	}
	el->nsec = idx;

	/* symbols: null, file, local functions, global functions, objects */
	el->nfuncs = (unsigned)MIN(MAX(size / 8192, 1), ELF_MAX_FUNCS);
	if (el->type == ET_EXEC && el->nfuncs < 2)
		el->nfuncs = 2;
	el->nlocal_funcs = el->nfuncs / 4;
	el->nobjs = (unsigned)MIN(MAX(size / 65536, 1), ELF_MAX_OBJS);
	el->nsyms = 2 + el->nfuncs + el->nobjs;
	el->nlocal_syms = 2 + el->nlocal_funcs;
	el->strtab_size = 1;
	for (unsigned i = 1; i < el->nsyms; i++)
		el->strtab_size += elf_sym_name(el, g->key, i, name) + 1;

	/* the tail, from the end of the file backwards */
	tail = el->strtab_size + el->shstrtab_size + (el->small ? 0 : sizeof(elf_comment));
	if (size < tail + 64 * el->nsec + 24 * el->nsyms)
		return -EINVAL;
	el->shoff = (size - tail - 64 * el->nsec) & ~UINT64_C(7);
	el->comment_pad = size - tail - 64 * el->nsec - el->shoff;
	el->s[ES_SYMTAB].off = el->shoff - 24 * el->nsyms;
	el->s[ES_SYMTAB].size = 24 * el->nsyms;
	el->s[ES_STRTAB].off = el->shoff + 64 * el->nsec;
	el->s[ES_STRTAB].size = el->strtab_size;
	el->s[ES_SHSTRTAB].off = el->s[ES_STRTAB].off + el->strtab_size;
	el->s[ES_SHSTRTAB].size = el->shstrtab_size;
	if (el->small) {
		el->s[ES_SHSTRTAB].size += el->comment_pad;
	} else {
		el->s[ES_COMMENT].off = el->s[ES_SHSTRTAB].off + el->shstrtab_size;
		el->s[ES_COMMENT].size = sizeof(elf_comment) + el->comment_pad;
	}

	/* the head */
	pos = 64 + 56 * el->nph;
	if (!el->small) {
		el->s[ES_NOTE].off = pos;
		el->s[ES_NOTE].size = ELF_NOTE_SIZE;
		pos += ELF_NOTE_SIZE;
	}
	el->head_end = pos;

	/* the body: text, rodata, data */
	el->s[ES_TEXT].off = ALIGN_UP(pos, 16);
	if (el->s[ES_TEXT].off + 48 > el->s[ES_SYMTAB].off)
		return -EINVAL;
	body = el->s[ES_SYMTAB].off - el->s[ES_TEXT].off;
	align = body >= 65536 ? BLOCK : 8;
	cut1 = el->s[ES_TEXT].off + MAX(ALIGN_UP(body * 45 / 100, 16), 16);
	cut2 = ALIGN_UP(cut1 + MAX(body * 15 / 100, 16), align);
	if (cut2 + 8 > el->s[ES_SYMTAB].off)
		cut2 = (el->s[ES_SYMTAB].off - 8) & ~UINT64_C(7);
	if (cut1 + 8 > cut2)
		return -EINVAL;
	el->s[ES_TEXT].size = cut1 - el->s[ES_TEXT].off;
	el->s[ES_RODATA].off = cut1;
	el->s[ES_RODATA].size = cut2 - cut1;
	el->s[ES_DATA].off = cut2;
	el->s[ES_DATA].size = el->s[ES_SYMTAB].off - cut2;
	el->s[ES_BSS].off = el->s[ES_SYMTAB].off;
	el->s[ES_BSS].size = el->small ? 0 : 64 * (1 + (rng_mix64(g->key ^ SALT_BSS) & 1023));

	/* addresses: one R+X segment from offset 0, one RW segment for data and bss */
	if (el->type != ET_REL) {
		el->base = el->type == ET_EXEC ? 0x400000 : 0;
		for (int i = ES_NOTE; i <= ES_RODATA; i++)
			el->s[i].addr = el->base + el->s[i].off;
		el->data_vaddr = el->base + el->s[ES_DATA].off + 0x1000;
		el->s[ES_DATA].addr = el->data_vaddr;
		el->s[ES_BSS].addr = ALIGN_UP(el->data_vaddr + el->s[ES_DATA].size, 32);
	}
	return 0;
}

static void elf_phdr(uint8_t *p, uint32_t type, uint32_t flags, uint64_t off, uint64_t vaddr,
		     uint64_t filesz, uint64_t memsz, uint64_t align)
{
	put_le32(p, type);
	put_le32(p + 4, flags);
	put_le64(p + 8, off);
	put_le64(p + 16, vaddr);
	put_le64(p + 24, vaddr);
	put_le64(p + 32, filesz);
	put_le64(p + 40, memsz);
	put_le64(p + 48, align);
}

/* The ELF header, program headers and build-id note: bytes [0, head_end). */
static void elf_head(const struct elf_layout *el, uint64_t key, uint8_t *h)
{
	const struct elf_sec *s = el->s;
	uint8_t *ph = h + 64;

	memset(h, 0, el->head_end);
	memcpy(h, ELFMAG, SELFMAG);
	h[EI_CLASS] = ELFCLASS64;
	h[EI_DATA] = ELFDATA2LSB;
	h[EI_VERSION] = EV_CURRENT;
	h[EI_OSABI] = ELFOSABI_SYSV;
	put_le16(h + 16, el->type);
	put_le16(h + 18, EM_X86_64);
	put_le32(h + 20, EV_CURRENT);
	put_le64(h + 24, el->type == ET_EXEC ? s[ES_TEXT].addr : 0);
	put_le64(h + 32, el->nph ? 64 : 0);
	put_le64(h + 40, el->shoff);
	put_le16(h + 52, 64);
	put_le16(h + 54, el->nph ? 56 : 0);
	put_le16(h + 56, (uint16_t)el->nph);
	put_le16(h + 58, 64);
	put_le16(h + 60, (uint16_t)el->nsec);
	put_le16(h + 62, (uint16_t)s[ES_SHSTRTAB].index);
	if (el->nph) {
		uint64_t rx_end = s[ES_RODATA].off + s[ES_RODATA].size;
		uint64_t rw_mem = s[ES_DATA].size + (s[ES_BSS].present ?
			s[ES_BSS].addr + s[ES_BSS].size - s[ES_DATA].addr - s[ES_DATA].size : 0);

		elf_phdr(ph, PT_LOAD, PF_R | PF_X, 0, el->base, rx_end, rx_end, 0x1000);
		ph += 56;
		elf_phdr(ph, PT_LOAD, PF_R | PF_W, s[ES_DATA].off, el->data_vaddr, s[ES_DATA].size,
			 rw_mem, 0x1000);
		ph += 56;
		if (s[ES_NOTE].present) {
			elf_phdr(ph, PT_NOTE, PF_R, s[ES_NOTE].off, s[ES_NOTE].addr, ELF_NOTE_SIZE,
				 ELF_NOTE_SIZE, 4);
			ph += 56;
		}
		elf_phdr(ph, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16);
	}
	if (s[ES_NOTE].present) {
		uint8_t *n = h + s[ES_NOTE].off;

		put_le32(n, 4);
		put_le32(n + 4, 20);
		put_le32(n + 8, NT_GNU_BUILD_ID);
		memcpy(n + 12, "GNU", 4);
		for (int i = 0; i < 20; i += 4)
			put_le32(n + 16 + i, (uint32_t)rng_mix64(key ^ rng_mix64((uint64_t)i ^ SALT_NOTE)));
	}
}

static void elf_shdr(uint8_t *p, const struct elf_sec *s, uint32_t type, uint64_t flags,
		     uint32_t link, uint32_t info, uint64_t align, uint64_t entsize)
{
	put_le32(p, s->name);
	put_le32(p + 4, type);
	put_le64(p + 8, flags);
	put_le64(p + 16, s->addr);
	put_le64(p + 24, s->off);
	put_le64(p + 32, s->size);
	put_le32(p + 40, link);
	put_le32(p + 44, info);
	put_le64(p + 48, align);
	put_le64(p + 56, entsize);
}

/* The tail [symtab.off, size): .symtab, section headers, .strtab, .shstrtab, .comment. */
static void elf_tail(const struct elf_layout *el, uint64_t key, uint8_t *t)
{
	const struct elf_sec *s = el->s;
	uint64_t base = s[ES_SYMTAB].off;
	uint8_t *sym = t, *sh = t + (el->shoff - base);
	char *str = (char *)t + (s[ES_STRTAB].off - base);
	char *shstr = (char *)t + (s[ES_SHSTRTAB].off - base);
	uint32_t name = 1;
	uint64_t fstep = ALIGN_UP(s[ES_TEXT].size / el->nfuncs, 16);

	memset(t, 0, el->size - base);
	/* symbols (entry 0 stays zero) */
	for (unsigned i = 1; i < el->nsyms; i++) {
		uint8_t *e = sym + 24 * i;
		unsigned n = elf_sym_name(el, key, i, str + name);
		uint64_t value, size;
		uint16_t shndx;
		unsigned char info;

		if (i == 1) {
			info = ELF64_ST_INFO(STB_LOCAL, STT_FILE);
			shndx = SHN_ABS;
			value = size = 0;
		} else if (i < 2 + el->nfuncs) {
			/* in address order, globals first: _start is the entry point */
			unsigned f = (i - 2 + el->nfuncs - el->nlocal_funcs) % el->nfuncs;

			info = ELF64_ST_INFO(i < el->nlocal_syms ? STB_LOCAL : STB_GLOBAL, STT_FUNC);
			shndx = (uint16_t)s[ES_TEXT].index;
			value = MIN(f * fstep, s[ES_TEXT].size - 1);
			size = MIN(fstep, s[ES_TEXT].size - value);
			value += s[ES_TEXT].addr;
		} else {
			unsigned o = i - 2 - el->nfuncs;
			const struct elf_sec *in = &s[o % 4 == 3 ? ES_RODATA : ES_DATA];
			uint64_t step = in->size / el->nobjs;

			info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
			shndx = (uint16_t)in->index;
			value = in->addr + (uint64_t)o * step / 8 * 8 % MAX(in->size, 1);
			size = MAX(MIN(step, 256), 1);
			size = MIN(size, in->addr + in->size - value);
		}
		put_le32(e, name);
		e[4] = info;
		e[5] = STV_DEFAULT;
		put_le16(e + 6, shndx);
		put_le64(e + 8, value);
		put_le64(e + 16, size);
		name += n + 1;
	}
	/* section names */
	for (int i = 0; i < ES_MAX; i++)
		if (s[i].present)
			memcpy(shstr + s[i].name, elf_sec_name[i], strlen(elf_sec_name[i]) + 1);
	if (s[ES_COMMENT].present)
		memcpy((char *)t + (s[ES_COMMENT].off - base), elf_comment, sizeof(elf_comment));
	/* section headers (entry 0 stays zero) */
	for (int i = 1; i < ES_MAX; i++) {
		uint8_t *p;

		if (!s[i].present)
			continue;
		p = sh + 64 * s[i].index;
		switch (i) {
		case ES_NOTE:
			elf_shdr(p, &s[i], SHT_NOTE, SHF_ALLOC, 0, 0, 4, 0);
			break;
		case ES_TEXT:
			elf_shdr(p, &s[i], SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0, 16, 0);
			break;
		case ES_RODATA:
			elf_shdr(p, &s[i], SHT_PROGBITS, SHF_ALLOC, 0, 0, 16, 0);
			break;
		case ES_DATA:
			elf_shdr(p, &s[i], SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0, 0, 8, 0);
			break;
		case ES_BSS:
			elf_shdr(p, &s[i], SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 0, 0, 32, 0);
			break;
		case ES_COMMENT:
			elf_shdr(p, &s[i], SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, 0, 0, 1, 1);
			break;
		case ES_SYMTAB:
			elf_shdr(p, &s[i], SHT_SYMTAB, 0, s[ES_STRTAB].index, el->nlocal_syms, 8, 24);
			break;
		case ES_STRTAB:
		case ES_SHSTRTAB:
			elf_shdr(p, &s[i], SHT_STRTAB, 0, 0, 0, 1, 0);
			break;
		}
	}
}

static int elf_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct elf_layout el;
	const struct elf_sec *s = el.s;
	uint64_t from;
	size_t n;
	int ret;

	if (off > g->size || len > g->size - off)
		return -EINVAL;
	ret = elf_layout(g, &el);
	if (ret)
		return ret;
	if (overlap(0, s[ES_TEXT].off, off, len, &from, &n)) {
		uint8_t head[64 + 4 * 56 + ELF_NOTE_SIZE + 16] = { 0 };

		elf_head(&el, g->key, head);
		memcpy(buf + (from - off), head + from, n);
	}
	if (overlap(s[ES_TEXT].off, s[ES_RODATA].off, off, len, &from, &n))
		section_bytes(code_block, g->key, from, buf + (from - off), n);
	if (overlap(s[ES_RODATA].off, s[ES_DATA].off, off, len, &from, &n))
		section_bytes(rodata_block, g->key, from, buf + (from - off), n);
	if (overlap(s[ES_DATA].off, s[ES_SYMTAB].off, off, len, &from, &n))
		gen_exec_bytes(g->cm, g->key, from, buf + (from - off), n);
	if (overlap(s[ES_SYMTAB].off, g->size, off, len, &from, &n)) {
		uint8_t *tail = malloc(g->size - s[ES_SYMTAB].off);

		if (!tail)
			return -ENOMEM;
		elf_tail(&el, g->key, tail);
		memcpy(buf + (from - off), tail + (from - s[ES_SYMTAB].off), n);
		free(tail);
	}
	return 0;
}

const struct gen_ops gen_elf_ops = {
	.name = "elf",
	.min_size = 960,	/* the smallest layout with the longest names is 954 bytes */
	.fill = elf_fill,
};

/* ------------------------------------------------------------------------- */
/*
 * PE32+ x86-64: exe (console or GUI), dll, sys (native driver).
 *
 *   0x000 MZ header and DOS stub, 0x080 "PE\0\0", COFF header, optional
 *   header (240 bytes, 16 data directories, all empty), section table
 *   (.text, .rdata, .data), ending at 0x200 = SizeOfHeaders;
 *   then the sections' raw data in 512-byte units (FileAlignment), split
 *   45% code, 15% strings, 40% data (gen_binary_bytes(); 4 KiB-aligned
 *   once it is 64 KiB or more);
 *   then an overlay (bytes past the last section, which the loader
 *   ignores) of the remaining 0..511 bytes, or more past 1 GiB of sections.
 *
 * Sections too small for a 512-byte unit keep no raw data (uninitialised,
 * like .bss).  The checksum is 0, as linkers leave it for applications.
 */

#define PE_FALIGN	512u
#define PE_SALIGN	4096u
#define PE_MAX_UNITS	((UINT64_C(1) << 30) / PE_FALIGN)

enum pe_kind { PE_EXE, PE_DLL, PE_SYS };

struct pe_layout {
	enum pe_kind kind;
	uint32_t raw_off[3], raw_size[3], va[3], vsize[3];
	uint64_t overlay;	/* file offset where the overlay starts */
	uint32_t image_size;
};

static const char *const pe_sec_name[3] = { ".text", ".rdata", ".data" };

static const uint32_t pe_sec_flags[3] = {
	0x60000020,	/* code, execute, read */
	0x40000040,	/* initialised data, read */
	0xC0000040,	/* initialised data, read, write */
};

static int pe_layout(const struct gen_file *g, struct pe_layout *pl)
{
	uint64_t units, t, r, d, off = PE_FALIGN;
	uint32_t va = PE_SALIGN;

	if (g->size < 2 * PE_FALIGN)
		return -EINVAL;
	memset(pl, 0, sizeof(*pl));
	pl->kind = PE_EXE;
	/* ActiveX controls, control panel items, drivers, resources: DLLs */
	if (g->ext && (!strcmp(g->ext, "dll") || !strcmp(g->ext, "ocx") || !strcmp(g->ext, "cpl") ||
		       !strcmp(g->ext, "drv") || !strcmp(g->ext, "mui") || !strcmp(g->ext, "ax") ||
		       !strcmp(g->ext, "acm")))
		pl->kind = PE_DLL;
	else if (g->ext && !strcmp(g->ext, "sys"))
		pl->kind = PE_SYS;
	units = MIN((g->size - PE_FALIGN) / PE_FALIGN, PE_MAX_UNITS);
	t = MAX(units * 45 / 100, 1);
	r = units * 15 / 100;
	d = units - t - r;
	if (d >= 65536 / PE_FALIGN) {
		uint64_t extra = (8 - (1 + t + r) % 8) % 8;

		r += extra;
		d -= extra;
	}
	pl->raw_size[0] = (uint32_t)(t * PE_FALIGN);
	pl->raw_size[1] = (uint32_t)(r * PE_FALIGN);
	pl->raw_size[2] = (uint32_t)(d * PE_FALIGN);
	for (int i = 0; i < 3; i++) {
		if (pl->raw_size[i]) {
			pl->raw_off[i] = (uint32_t)off;
			off += pl->raw_size[i];
		}
		pl->vsize[i] = pl->raw_size[i] ? pl->raw_size[i] : PE_SALIGN;
		pl->va[i] = va;
		va += ALIGN_UP(pl->vsize[i], PE_SALIGN);
	}
	pl->image_size = va;
	pl->overlay = off;
	return 0;
}

/* The headers: bytes [0, 512). */
static void pe_head(const struct pe_layout *pl, uint64_t key, uint8_t *h)
{
	static const uint8_t stub[] = {
		0x0e, 0x1f, 0xba, 0x0e, 0x00, 0xb4, 0x09, 0xcd, 0x21, 0xb8, 0x01, 0x4c, 0xcd, 0x21,
	};
	static const char stub_msg[] = "This program cannot be run in DOS mode.\r\r\n$";
	uint64_t x = rng_mix64(key ^ SALT_PE);
	uint8_t *coff = h + 0x84, *opt = h + 0x98, *sec = opt + 240;
	uint16_t subsystem = pl->kind == PE_SYS ? 1 : pl->kind == PE_DLL ? 2 : 2 + (x & 1);
	uint16_t chars = 0x0022 | (pl->kind == PE_DLL ? 0x2000 : 0);
	uint16_t dllchars = pl->kind == PE_EXE ? 0x8160 : 0x0160;
	uint64_t image_base = pl->kind == PE_DLL ? UINT64_C(0x180000000) : UINT64_C(0x140000000);

	memset(h, 0, PE_FALIGN);
	/* DOS header: MZ, one 512-byte page of 0x90 bytes in use, stub at 0x40 */
	h[0] = 'M';
	h[1] = 'Z';
	put_le16(h + 0x02, 0x90);
	put_le16(h + 0x04, 3);
	put_le16(h + 0x08, 4);
	put_le16(h + 0x0c, 0xffff);
	put_le16(h + 0x10, 0xb8);
	put_le16(h + 0x18, 0x40);
	put_le32(h + 0x3c, 0x80);
	memcpy(h + 0x40, stub, sizeof(stub));
	memcpy(h + 0x40 + sizeof(stub), stub_msg, sizeof(stub_msg) - 1);

	memcpy(h + 0x80, "PE\0\0", 4);
	put_le16(coff, 0x8664);
	put_le16(coff + 2, 3);
	/* link time: 2015 .. 2025 */
	put_le32(coff + 4, (uint32_t)(1420070400 + below(rng_mix64(x), 11 * UINT64_C(31556952))));
	put_le16(coff + 16, 240);
	put_le16(coff + 18, chars);

	put_le16(opt, 0x20b);
	opt[2] = 14;
	opt[3] = 36;
	put_le32(opt + 4, pl->raw_size[0]);
	put_le32(opt + 8, pl->raw_size[1] + pl->raw_size[2]);
	put_le32(opt + 12, 0);
	put_le32(opt + 16, pl->va[0]);
	put_le32(opt + 20, pl->va[0]);
	put_le64(opt + 24, image_base);
	put_le32(opt + 32, PE_SALIGN);
	put_le32(opt + 36, PE_FALIGN);
	put_le16(opt + 40, 6);
	put_le16(opt + 48, 6);
	put_le32(opt + 56, pl->image_size);
	put_le32(opt + 60, PE_FALIGN);
	put_le16(opt + 68, subsystem);
	put_le16(opt + 70, dllchars);
	put_le64(opt + 72, 0x100000);
	put_le64(opt + 80, 0x1000);
	put_le64(opt + 88, 0x100000);
	put_le64(opt + 96, 0x1000);
	put_le32(opt + 108, 16);

	for (int i = 0; i < 3; i++, sec += 40) {
		memcpy(sec, pe_sec_name[i], strlen(pe_sec_name[i]));
		put_le32(sec + 8, pl->vsize[i]);
		put_le32(sec + 12, pl->va[i]);
		put_le32(sec + 16, pl->raw_size[i]);
		put_le32(sec + 20, pl->raw_off[i]);
		put_le32(sec + 36, pe_sec_flags[i]);
	}
}

static int pe_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct pe_layout pl;
	uint64_t from;
	size_t n;
	int ret;

	if (off > g->size || len > g->size - off)
		return -EINVAL;
	ret = pe_layout(g, &pl);
	if (ret)
		return ret;
	if (overlap(0, PE_FALIGN, off, len, &from, &n)) {
		uint8_t head[PE_FALIGN];

		pe_head(&pl, g->key, head);
		memcpy(buf + (from - off), head + from, n);
	}
	if (overlap(pl.raw_off[0], pl.raw_off[0] + pl.raw_size[0], off, len, &from, &n))
		section_bytes(code_block, g->key, from, buf + (from - off), n);
	if (overlap(pl.raw_off[1], pl.raw_off[1] + pl.raw_size[1], off, len, &from, &n))
		section_bytes(rodata_block, g->key, from, buf + (from - off), n);
	if (overlap(pl.raw_off[2], pl.raw_off[2] + pl.raw_size[2], off, len, &from, &n))
		gen_exec_bytes(g->cm, g->key, from, buf + (from - off), n);
	if (overlap(pl.overlay, g->size, off, len, &from, &n))
		gen_exec_bytes(g->cm, g->key, from, buf + (from - off), n);
	return 0;
}

const struct gen_ops gen_pe_ops = {
	.name = "pe",
	.min_size = 2 * PE_FALIGN,
	.fill = pe_fill,
};
