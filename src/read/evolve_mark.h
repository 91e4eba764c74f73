/* evolve_mark.h - the mark an ext2/3/4 image or device carries while `imprint evolve` changes it: what a later run reads to refuse it and roll it back */
#ifndef IMPRINT_READ_EVOLVE_MARK_H
#define IMPRINT_READ_EVOLVE_MARK_H

#include <stddef.h>
#include <stdint.h>

/*
 * The mark is text in the first EVOLVE_MARK_SIZE bytes of the file
 * system (its boot area: no part of ext2/3/4, which e2fsck, libext2fs and
 * the kernel never read), written and synced before the first change and
 * put back as it was as the last write of a completed evolve or rollback.
 * While it is there, the image holds part of generation N-1 and part of N.
 */
#define EVOLVE_MARK_SIZE 1024

struct evolve_mark {
	uint32_t from, to;  /* the generations: from is what the undo file gives back */
	char undo[400];     /* imprint's undo file */
	char keep[400];     /* --undo's e2undo file, or "" */
};

/* m as the mark's EVOLVE_MARK_SIZE bytes into buf (zero-padded). */
void evolve_mark_format(const struct evolve_mark *m, char *buf);

/* Whether buf (EVOLVE_MARK_SIZE bytes) is a mark: 1 with *m filled, or 0. */
int evolve_mark_parse(const char *buf, struct evolve_mark *m);

/*
 * The mark of the file system at byte base of fd into *m: 1 when there
 * is one, 0 when not, or a negative errno.
 */
int evolve_mark_read(int fd, uint64_t base, struct evolve_mark *m);

/*
 * Why target, marked with m, cannot be read or evolved, and how to get
 * generation m->from back, into msg.
 */
void evolve_mark_tell(const struct evolve_mark *m, const char *target, char *msg, size_t len);

/*
 * -EBUSY with evolve_mark_tell()'s words in msg when the file system at
 * byte base of fd (target) carries a mark, else 0: what a reader checks.
 */
int evolve_mark_refuse(int fd, uint64_t base, const char *target, char *msg, size_t len);

#endif
