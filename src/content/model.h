/* model.h - the content model: what the generators share (word model, targets), data only */
#ifndef IMPRINT_CONTENT_MODEL_H
#define IMPRINT_CONTENT_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct plan;

/* Longest vocabulary word: the text generators copy words 16 bytes at a time. */
#define CONTENT_WORD_MAX 16

/* Most words a vocabulary keeps (its most popular): ranks fit in 16 bits. */
#define CONTENT_WORDS_MAX 65535

/* Data size bands of the deflate calibration of archives (archive/deflate.c). */
#define CONTENT_DFL_BANDS 5

/* The system word list used when it is readable (Debian package wamerican). */
#define CONTENT_WORDLIST "/usr/share/dict/words"

/*
 * Data only: the vocabulary and targets (model.c), and the parts each
 * generator derives from them (text_priv, binary_priv, dfl_ratio: built
 * by the generators' own init, see content/setup.h).  Read-only once
 * built; shared by all generator threads, passed to the generators in
 * struct gen_file.  Fields may be added.
 */
struct content_model {
	uint64_t seed;              /* content key of the plan */
	const struct plan *pl;

	/* word model (model.c, text/) */
	size_t nwords;
	const char **word;          /* vocabulary, by popularity rank, NUL-terminated */
	const uint8_t *word_len;
	const char *vocab;          /* where the words came from: a path, or "built-in" */
	double zipf_exponent;       /* text_zipf */
	int text_mode;              /* enum text_mode: words, repeat, wordlen (Impressions) */
	void *text_priv;            /* sampler tables (text/sampler.c) */
	char *word_buf;             /* storage of word[] */

	/* targets (binary.c) */
	double compress_ratio;      /* zlib ratio of "other binary" files */
	double dup_block_share;     /* 4 KiB blocks duplicated across files */
	double zero_block_share;    /* 4 KiB blocks all zero */
	double compress_ratio_exec; /* zlib/zstd ratio of ELF and PE files; 0: as other binary */
	void *binary_priv;
	void *binary_exec_priv;     /* the data of executables, for compress_ratio_exec */

	/*
	 * by plan extension id, 1 for the extensions whose files the shared
	 * other-binary model makes (not those of a profile's ext_content:
	 * they have models of their own); NULL without a plan (setup.c)
	 */
	uint8_t *binary_ext;

	/* a profile's content by extension (extc.c), NULL without an ext_content table */
	void *extc_priv;

	/* archives (archive/deflate.c): deflated / data bytes of text by size band, with margin */
	double dfl_ratio[CONTENT_DFL_BANDS];
};

/*
 * The data of the model for plan pl (NULL: the default parameters, seed
 * 1): its seed and targets, and the vocabulary from the word list at
 * `path` (one word a line; NULL or an unreadable file: the built-in
 * lexicon).  Only lines of 1 to CONTENT_WORD_MAX lowercase ASCII letters
 * are kept.  The generators' parts are not built (content_model_init() in
 * content/setup.h builds both).  Returns 0, -EINVAL or -ENOMEM; on error
 * *cm holds nothing to release.
 */
int content_model_data_init(struct content_model *cm, const struct plan *pl, const char *path);

/* Free the vocabulary and clear *cm (the generators' parts must be released first). */
void content_model_data_release(struct content_model *cm);

#endif
