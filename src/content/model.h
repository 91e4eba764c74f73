/* model.h - the content model: what the generators share (word model, targets), built once per plan */
#ifndef IMPRINT_CONTENT_MODEL_H
#define IMPRINT_CONTENT_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct plan;

/*
 * Read-only after content_model_init(); shared by all generator threads.
 * Owned by src/content/model.c; fields may be added.
 */
struct content_model {
	uint64_t seed;              /* content key of the plan */
	const struct plan *pl;

	/* word model (text.c, model.c) */
	size_t nwords;
	const char **word;          /* vocabulary, by popularity rank */
	const uint8_t *word_len;
	double zipf_exponent;       /* text_zipf */
	int text_mode;              /* words, repeat (Impressions), wordlen (Impressions) */
	void *text_priv;            /* sampler tables */

	/* targets (binary.c) */
	double compress_ratio;      /* zlib ratio of "other binary" files */
	double dup_block_share;     /* 4 KiB blocks duplicated across files */
	double zero_block_share;    /* 4 KiB blocks all zero */
	void *binary_priv;
};

/* Build the model for plan pl.  Returns 0 or -ENOMEM. */
int content_model_init(struct content_model *cm, const struct plan *pl);
void content_model_release(struct content_model *cm);

#endif
