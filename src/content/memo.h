/* memo.h - the record shared by the parts of a file made by several threads (gen_memo, gen.h) */
#ifndef IMPRINT_CONTENT_MEMO_H
#define IMPRINT_CONTENT_MEMO_H

#include <stddef.h>
#include <stdint.h>

struct gen_memo;

/* A new, empty memo, or NULL (out of memory). */
struct gen_memo *gen_memo_new(void);
void gen_memo_free(struct gen_memo *m);

/*
 * Every part is made: from now on gen_memo_defer() refuses (the fixup
 * makes its ranges whole).  Returns the deferred ranges, sorted and
 * merged, in *off and *len (the memo's, valid until it is freed) and
 * their count; -ENOMEM when recording failed on the way (then a part's
 * sums or ranges may be missing: the file must be made again whole).
 */
long gen_memo_finish(struct gen_memo *m, const uint64_t **off, const uint64_t **len);

#endif
