/* words.h - distinct words of a file's head: the vocabulary figure of profile --content */
#ifndef IMPRINT_UTIL_WORDS_H
#define IMPRINT_UTIL_WORDS_H

#include <stddef.h>
#include <stdint.h>

/*
 * A word is a run of ASCII letters and digits, case folded (what a search
 * indexer such as recoll or Xapian makes a term of; '_' and every other
 * byte separate words).  Only the first WORDS_HEAD bytes of a file count,
 * so that a file's figure costs the same to measure on a real tree and on
 * a clone's calibration sample: the vocabulary figure of an extension is
 * 1024 * distinct words / bytes counted, per file, averaged by file size
 * (ext_content's sixth field, content/extc.c).
 */
#define WORDS_HEAD (128u << 10)

struct words {
	uint64_t *set;      /* open addressing, 0 = empty */
	uint32_t *used;     /* the slots filled, to clear them */
	uint32_t n;         /* distinct words */
	uint64_t fed;       /* bytes counted */
	uint64_t h;         /* the word being read: its hash, 0 none */
};

/* 0 or -ENOMEM.  words_release() frees. */
int words_init(struct words *w);
void words_release(struct words *w);

/* Start a file. */
void words_reset(struct words *w);

/* The next len bytes of the file (past WORDS_HEAD: ignored). */
void words_feed(struct words *w, const uint8_t *b, size_t len);

/* The file's distinct words (the word cut at the end counted); w->fed: the bytes counted. */
uint32_t words_end(struct words *w);

#endif
