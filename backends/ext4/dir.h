/* dir.h - directory blocks built in one pass: linear or hash-indexed (htree), with checksums */
#ifndef IMPRINT_EXT4_DIR_H
#define IMPRINT_EXT4_DIR_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

/* One entry to put in a directory ("." and ".." are added by the builder). */
struct ext4_dirent_in {
	const char *name;
	uint32_t name_len;   /* 1..255 */
	ext2_ino_t ino;
	uint8_t type;        /* EXT2_FT_REG_FILE, EXT2_FT_DIR, EXT2_FT_SYMLINK, ... */
	uint16_t slack;      /* free bytes after the entry (a deleted one's record), multiple of 4 */
};

/* How a directory will be laid out. */
struct ext4_dir_shape {
	uint32_t nblocks;    /* directory blocks, dx blocks included */
	int indexed;         /* 1: htree (inode needs EXT2_INDEX_FL) */
	unsigned levels;     /* htree indirect levels (0 or 1, 2 with largedir) */
};

/*
 * Shape of a directory holding entries e[0..n-1] on fs: linear when it fits
 * one block or dir_index is off, else an htree as the kernel would leave it
 * (entries sorted by the file system's directory hash).  Deterministic.
 * Returns 0, -ENOMEM, or -EFBIG when the htree would need more levels
 * than the features allow.
 * Also -EINVAL for a bad entry (name_len 0 or > 255, '/' or NUL in the name,
 * "." or "..", type >= EXT2_FT_MAX), -EEXIST when two entries of an htree
 * share a name (a linear directory is not checked), -EOPNOTSUPP when
 * libext2fs lacks the file system's hash.  Hashes as for a directory
 * without the casefold flag.
 */
int ext4_dir_shape(ext2_filsys fs, const struct ext4_dirent_in *e, size_t n,
		   struct ext4_dir_shape *shape);

/*
 * Format the directory's blocks into buf (shape->nblocks * block size
 * bytes; logical block i at buf + i * block size), entries e[0..n-1] plus
 * "." (dir_ino) and ".." (parent_ino), checksums set when metadata_csum is
 * on.  shape must come from ext4_dir_shape() with the same entries.
 * The checksums cover dir_gen, dir_ino's i_generation (the inode need
 * not be written yet).  Returns 0, -ENOMEM, or -EIO when a block has no
 * room for its checksum.  Also -EINVAL when shape does not match the
 * entries, and the errors of ext4_dir_shape().
 */
int ext4_dir_format(ext2_filsys fs, ext2_ino_t dir_ino, uint32_t dir_gen, ext2_ino_t parent_ino,
		    const struct ext4_dirent_in *e, size_t n, const struct ext4_dir_shape *shape,
		    void *buf);

/*
 * libext2fs splits a full leaf of an indexed directory through a buffer it
 * does not clear (link.c, dx_split_leaf), and what the heap held there
 * reaches the disk in the leaves' unused space: the same plan and seed gave
 * other bytes under another heap (MALLOC_PERTURB_, another build).  Between
 * ext4_heap_zeroed(1) and (0), fresh heap memory is zeros (glibc's
 * M_PERTURB), for ext2fs_link() and ext2fs_mkdir() (which links).
 */
void ext4_heap_zeroed(int on);

/* ext2fs_link() of ino as name in dir, dir grown by a block when full, on a zeroed heap. */
errcode_t ext4_link_grow(ext2_filsys fs, ext2_ino_t dir, const char *name, ext2_ino_t ino,
			 int ft);

#endif
