/* model.h - the content model: what the generators share (word model, targets), built once per plan */
#ifndef IMPRINT_CONTENT_MODEL_H
#define IMPRINT_CONTENT_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct plan;

/* Longest vocabulary word: the text generators copy words 16 bytes at a time. */
#define CONTENT_WORD_MAX 16

/* Most words a vocabulary keeps (its most popular): ranks fit in 16 bits. */
#define CONTENT_WORDS_MAX 65535

/* Data size bands of the deflate calibration of archives (archive.c). */
#define CONTENT_DFL_BANDS 5

/* The system word list used when it is readable (Debian package wamerican). */
#define CONTENT_WORDLIST "/usr/share/dict/words"

/*
 * Read-only after content_model_init(); shared by all generator threads.
 * Owned by src/content/model.c; fields may be added.
 */
struct content_model {
	uint64_t seed;              /* content key of the plan */
	const struct plan *pl;

	/* word model (text.c, model.c) */
	size_t nwords;
	const char **word;          /* vocabulary, by popularity rank, NUL-terminated */
	const uint8_t *word_len;
	const char *vocab;          /* where the words came from: a path, or "built-in" */
	double zipf_exponent;       /* text_zipf */
	int text_mode;              /* enum text_mode: words, repeat, wordlen (Impressions) */
	void *text_priv;            /* sampler tables (text.c) */
	char *word_buf;             /* storage of word[] */

	/* targets (binary.c) */
	double compress_ratio;      /* zlib ratio of "other binary" files */
	double dup_block_share;     /* 4 KiB blocks duplicated across files */
	double zero_block_share;    /* 4 KiB blocks all zero */
	double compress_ratio_exec; /* zlib/zstd ratio of ELF and PE files; 0: as other binary */
	void *binary_priv;
	void *binary_exec_priv;     /* the data of executables, for compress_ratio_exec */

	/* archives (archive.c): deflated / data bytes of text by size band, with margin */
	double dfl_ratio[CONTENT_DFL_BANDS];
};

/*
 * Build the model for plan pl (NULL: the default parameters, seed 1):
 * the vocabulary from CONTENT_WORDLIST when it is readable, else the
 * built-in lexicon, the text samplers and the binary targets.  Returns 0,
 * -EINVAL (a parameter out of range) or -ENOMEM.
 */
int content_model_init(struct content_model *cm, const struct plan *pl);

/*
 * The same with the vocabulary from the word list at `path` (one word a
 * line; NULL or an unreadable file: the built-in lexicon).  Only lines of
 * 1 to CONTENT_WORD_MAX lowercase ASCII letters are kept.
 */
int content_model_init_words(struct content_model *cm, const struct plan *pl, const char *path);

void content_model_release(struct content_model *cm);

/*
 * The text part of the model (text.c), called by content_model_init()
 * once the vocabulary, zipf_exponent and text_mode are set: the Zipf
 * inverse-CDF tables and the words by length.  Needs at least one word of
 * every length 1..CONTENT_WORD_MAX.  Returns 0, -EINVAL or -ENOMEM.
 */
int content_text_init(struct content_model *cm);
void content_text_release(struct content_model *cm);

/*
 * The archive part (archive.c), called once the text part is built: the
 * deflated size of samples of the model's text by size band, which gives
 * the geometry of the deflate streams of ZIP and gzip files.  Returns 0,
 * -ENOMEM or -EIO.
 */
int content_archive_init(struct content_model *cm);

#endif
