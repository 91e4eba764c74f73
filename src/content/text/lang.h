/* lang.h - internal to src/content/text: the compiled source languages that code.c writes */
#ifndef IMPRINT_CONTENT_TEXT_LANG_H
#define IMPRINT_CONTENT_TEXT_LANG_H

#include <stdint.h>

/* clang-format off */
enum role {
	/* one template a language, or none */
	R_IND,          /* one level of indentation */
	R_LC, R_LC_END, /* line comment */
	R_DOC_OPEN, R_DOC_LINE, R_DOC_CLOSE, /* block comment */
	R_FIRST,        /* first lines (shebang, banner, package) */
	R_IMP_OPEN, R_IMP_CLOSE, /* around the imports (Go) */
	R_OPEN,         /* after the imports (class, namespace) */
	R_CLOSE,        /* the footer */
	R_FN_OPEN, R_FN_PROLOGUE, R_FN_CLOSE, R_PROTO,
	R_IF_OPEN, R_IF_CLOSE, R_LOOP_OPEN, R_LOOP_CLOSE, R_RET,
	R_REC_OPEN, R_REC_FIELD, R_REC_CLOSE, R_KONST,
	R_GUARD,        /* a header's include guard (C, C++) */
	R_ONE,
	/* lists: the imports are chosen in order, the others picked */
	R_IMPORT = R_ONE, R_STMT, R_TYPE, R_CALL,
	R_ALL
};

/* clang-format on */

#define NLIST		(R_ALL - R_ONE)
#define LIST_MAX	16u
#define IND_PAD		64u	/* indentation copied at once: deeper is cut */

/* A language, compiled. */
struct lang {
	int camel;
	unsigned depth0;
	const char *raw[R_ONE];                 /* as written, NULL: none */
	const uint8_t *one[R_ONE];              /* compiled, NULL: none */
	const uint8_t *list[NLIST][LIST_MAX];
	unsigned nlist[NLIST];
	uint8_t ind[IND_PAD];                   /* R_IND repeated */
	unsigned ind_len;
	unsigned ind_max;                       /* whole levels of it in IND_PAD: the deepest */
};

/*
 * Byte codes: 0 ends, 1..127 is a literal run of that many bytes (they
 * follow), 128 + c is the code `c.  The pool ends in 16 spare bytes so
 * that a short run is always copied as 16.
 */
#define LIT_MAX		127u
#define OP_CODE		0x80u

/* The source languages: compiled once, 0 or -ENOMEM, -EINVAL (a bad row). */
int lang_init(void);

/* Which language an extension is written in; *header: C headers get prototypes. */
const struct lang *lang_of(const char *ext, int *header);

#endif
