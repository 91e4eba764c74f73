/* setup.h - the content model ready for the generators: its data, then each generator's part */
#ifndef IMPRINT_CONTENT_SETUP_H
#define IMPRINT_CONTENT_SETUP_H

#include "content/model.h"

struct plan;

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

/* Free what content_model_init() built, the generators' parts and the data. */
void content_model_release(struct content_model *cm);

#endif
