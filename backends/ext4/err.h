/* err.h - libext2fs error codes turned into negative errno at the backend's edge */
#ifndef IMPRINT_EXT4_ERR_H
#define IMPRINT_EXT4_ERR_H

#include <errno.h>

#include <ext2fs/ext2fs.h>

/*
 * The negative errno closest to a libext2fs error: system errors pass
 * through, allocation failures become -ENOSPC, memory -ENOMEM, the rest
 * (corruption, checksums, bad arguments) -EIO.  0 stays 0.
 */
static inline int ext4_errno(errcode_t err)
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

#endif
