/* e2err.c - libext2fs error codes: one com_err set-up and one map to negative errno */
#include <errno.h>
#include <pthread.h>

#include "util/e2err.h"

/* pthread_once wants a function of no arguments returning void */
static void e2err_init_once(void)
{
	initialize_ext2_error_table();
}

void e2err_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, e2err_init_once);
}

int e2err_errno(errcode_t err)
{
	if (!err)
		return 0;
	if (err > 0 && err < 4096)
		return -(int)err;
	switch (err) {
	case EXT2_ET_NO_MEMORY:
		return -ENOMEM;
	case EXT2_ET_BLOCK_ALLOC_FAIL:
	case EXT2_ET_INODE_ALLOC_FAIL:
	case EXT2_ET_DIR_NO_SPACE:
	case EXT2_ET_INLINE_DATA_NO_SPACE:
	case EXT2_ET_EA_NO_SPACE:
		return -ENOSPC;
	case EXT2_ET_FILE_TOO_BIG:
		return -EFBIG;
	default:
		return -EIO;
	}
}
