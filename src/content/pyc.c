/* pyc.c - CPython 3.11 byte-compiled modules: a header and a marshalled code object that fills the file */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "content/extc.h"
#include "content/gen.h"
#include "util/rng.h"

/* importlib.util.MAGIC_NUMBER of CPython 3.11 (3495): b'\xa7\r\r\n' */
static const uint8_t pyc_magic[4] = { 0xa7, 0x0d, 0x0d, 0x0a };

#define PYC_MIN 128 /* below this, the header and text (file(1) still names it) */

struct out {
	uint8_t *p, *end;
};

static void put(struct out *o, const void *s, size_t n)
{
	memcpy(o->p, s, n);
	o->p += n;
}

static void put8(struct out *o, unsigned v)
{
	*o->p++ = (uint8_t)v;
}

static void put32(struct out *o, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		put8(o, (v >> (8 * i)) & 0xff);
}

/* A marshalled str: 'z' (short ASCII) up to 255 bytes, else 'a' (ASCII); the next n bytes of text. */
static void put_str(struct out *o, const uint8_t *text, uint64_t *tpos, size_t n, int intern)
{
	if (n <= 255) {
		put8(o, intern ? 'Z' : 'z');
		put8(o, (unsigned)n);
	} else {
		put8(o, intern ? 'A' : 'a');
		put32(o, (uint32_t)n);
	}
	memcpy(o->p, text + *tpos, n);
	/* marshal's ASCII strings: no byte above 0x7f */
	for (size_t i = 0; i < n; i++)
		o->p[i] &= 0x7f;
	o->p += n;
	*tpos += n;
}

static void put_name(struct out *o, const char *s)
{
	put8(o, 'Z');
	put8(o, (unsigned)strlen(s));
	put(o, s, strlen(s));
}

/* The whole file into buf (g->size bytes), its strings from text (g->size bytes). */
static void pyc_make(const struct gen_file *g, uint8_t *buf, const uint8_t *text)
{
	static const uint8_t code[] = { 0x97, 0x00, 0x64, 0x00, 0x53, 0x00 }; /* RESUME, LOAD_CONST 0, RETURN_VALUE */
	uint64_t x = rng_mix64(g->key ^ UINT64_C(0x7079632D68656164)), tpos = 0;
	struct out o = { buf, buf + g->size };
	uint8_t *nconst;
	uint32_t items = 1;
	size_t tail;

	put(&o, pyc_magic, 4);
	put32(&o, 0);                                  /* flags: timestamp-based */
	put32(&o, 1577836800u + (uint32_t)(x % 157680000u)); /* source mtime */
	put32(&o, (uint32_t)(g->size * 3 / 2 + (x >> 40) % 4096)); /* source size */
	if (g->size < PYC_MIN) {
		size_t n = g->size < 16 ? 0 : (size_t)g->size - 16;

		memcpy(buf + 16, text, n);
		return;
	}
	put8(&o, 'c');
	for (int i = 0; i < 5; i++)
		put32(&o, i == 3 ? 1 : 0);              /* args 0, posonly 0, kwonly 0, stack 1, flags 0 */
	put8(&o, 's');
	put32(&o, sizeof(code));
	put(&o, code, sizeof(code));
	put8(&o, '(');                                 /* co_consts: None and the strings */
	nconst = o.p;
	put32(&o, 0);
	put8(&o, 'N');
	/* what follows the constants: names, locals, kinds, file and names, line, tables */
	tail = 2 + 2 + 5 + 11 + 10 + 10 + 4 + 6 + 5;
	for (;;) {
		size_t room = (size_t)(o.end - o.p) - tail, n;

		x = rng_mix64(x + 1);
		n = 8 + (size_t)(x % 248);              /* a docstring or a name's text */
		if (room < n + 2 + 8) {
			/* the last string takes what is left, exactly */
			if (room <= 2 + 255)
				put_str(&o, text, &tpos, room - 2, 0);
			else
				put_str(&o, text, &tpos, room - 5, 0);
			items++;
			break;
		}
		put_str(&o, text, &tpos, n, (x >> 60) == 0);
		items++;
	}
	nconst[0] = (uint8_t)items;
	nconst[1] = (uint8_t)(items >> 8);
	nconst[2] = (uint8_t)(items >> 16);
	nconst[3] = (uint8_t)(items >> 24);
	put8(&o, ')');                                 /* co_names: () */
	put8(&o, 0);
	put8(&o, ')');                                 /* co_localsplusnames: () */
	put8(&o, 0);
	put8(&o, 's');                                 /* co_localspluskinds: b'' */
	put32(&o, 0);
	put_name(&o, "module.py");                     /* co_filename */
	put_name(&o, "<module>");                      /* co_name */
	put_name(&o, "<module>");                      /* co_qualname */
	put32(&o, 1);                                  /* co_firstlineno */
	put8(&o, 's');                                 /* co_linetable: no location, 3 units */
	put32(&o, 1);
	put8(&o, 0xfa);
	put8(&o, 's');                                 /* co_exceptiontable: b'' */
	put32(&o, 0);
}

int content_pyc_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	uint8_t *whole;

	if (gen_check_request(g, 0, off, len))
		return -EINVAL;
	if (g->size < 16) {
		static const uint8_t head[16] = { 0xa7, 0x0d, 0x0d, 0x0a };

		memcpy(buf, head + off, len);
		return 0;
	}
	{
		/* the strings: prose of the file's key (its recurrence moved by g->boost) */
		struct gen_file t = *g;
		int ret;

		t.ext = "txt";
		t.memo = NULL;
		whole = malloc(2 * g->size);
		if (!whole)
			return -ENOMEM;
		ret = gen_text_ops.fill(&t, 0, whole + g->size, (size_t)g->size);
		if (!ret) {
			pyc_make(g, whole, whole + g->size);
			memcpy(buf, whole + off, len);
		}
		free(whole);
		return ret;
	}
}
