/* e2err.h - libext2fs error codes: one com_err set-up and one map to negative errno */
#ifndef IMPRINT_E2ERR_H
#define IMPRINT_E2ERR_H

#include <ext2fs/ext2fs.h>

/*
 * Register libext2fs' com_err table, so error_message() has words for
 * EXT2_ET_* codes.  Safe to call any number of times from any thread
 * (pthread_once); call it before the first libext2fs call.
 */
void e2err_init(void);

/*
 * The negative errno closest to a libext2fs error code: 0 stays 0;
 * system errors (errno values) pass through; EXT2_ET_NO_MEMORY is
 * -ENOMEM; allocation failures (block, inode, directory, inline data or
 * extended attribute space) -ENOSPC; EXT2_ET_FILE_TOO_BIG -EFBIG; every
 * other code (corruption, checksums, bad arguments) -EIO.
 *
 * The backend writing an image can meet all of these.  The reader
 * (src/read/fsread.c) meets the corruption ones, which it used to
 * map to -EINVAL: no user sees the difference, since every reader caller
 * prints the reader's own message and exits 1 whatever the errno.
 */
int e2err_errno(errcode_t err);

#endif
