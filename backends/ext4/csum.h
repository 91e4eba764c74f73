/* csum.h - ext4 metadata checksums (metadata_csum) computed here, with the CPU's CRC32C */
#ifndef IMPRINT_EXT4_CSUM_H
#define IMPRINT_EXT4_CSUM_H

#include <stddef.h>
#include <stdint.h>

#include <ext2fs/ext2fs.h>

/*
 * The values libext2fs' ext2fs_inode_csum_set(), ext2fs_dir_block_csum_set()
 * and ext2fs_extent_block_csum_set() store, made in two ways it does not:
 * the CRC32C is ISA-L's (the CPU's CRC instructions; libext2fs runs a
 * table loop, 5% of a 1 M-file create's CPU), and the owner's generation
 * is given rather than read back through libext2fs, so the inode need not
 * have reached libext2fs or the disk first.  Each does nothing when the
 * file system has no metadata_csum.
 */

/* CRC32C of n bytes at p, continuing crc (no inversion: ext2fs_crc32c_le()'s). */
uint32_t ext4_crc32c(uint32_t crc, const void *p, size_t n);

/*
 * Set the checksum of inode ino, in its on-disk (little-endian) form,
 * the file system's inode size of bytes at in.
 */
void ext4_csum_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in);

/*
 * Set the checksum of a directory block of inode ino (generation gen): a
 * leaf ending in a checksum tail, or an htree node (root or index).
 * Returns 0, or EXT2_ET_DIR_NO_SPACE_FOR_CSUM (libext2fs' error) for a
 * block that is neither.
 */
errcode_t ext4_csum_dir_block(ext2_filsys fs, ext2_ino_t ino, uint32_t gen, void *block);

/* Set the checksum of an extent tree block of inode ino (generation gen). */
void ext4_csum_extent_block(ext2_filsys fs, ext2_ino_t ino, uint32_t gen,
			    struct ext3_extent_header *eh);

#endif
