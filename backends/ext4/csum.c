/* csum.c - ext4 metadata checksums (metadata_csum) computed here, with the CPU's CRC32C */
#include <stddef.h>
#include <string.h>

#include <isa-l/crc.h>

#include "backends/ext4/csum.h"

uint32_t ext4_crc32c(uint32_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	/* ISA-L takes an int length: large buffers in pieces */
	while (n > (size_t)1 << 30) {
		crc = crc32_iscsi((unsigned char *)b, 1 << 30, crc);
		b += (size_t)1 << 30;
		n -= (size_t)1 << 30;
	}
	return crc32_iscsi((unsigned char *)b, (int)n, crc);
}

/* The start every owned block's checksum shares: the seed, then inode number and generation. */
static uint32_t owner_crc(ext2_filsys fs, ext2_ino_t ino, uint32_t gen)
{
	uint32_t le[2] = { ext2fs_cpu_to_le32(ino), ext2fs_cpu_to_le32(gen) };

	return ext4_crc32c(fs->csum_seed, le, sizeof(le));
}

void ext4_csum_inode(ext2_filsys fs, ext2_ino_t ino, struct ext2_inode_large *in)
{
	size_t size = EXT2_INODE_SIZE(fs->super);
	int hi = size > EXT2_GOOD_OLD_INODE_SIZE &&
		 ext2fs_le16_to_cpu(in->i_extra_isize) >= EXT4_INODE_CSUM_HI_EXTRA_END;
	uint32_t crc;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return;
	/* the generation as stored: the inode is in its on-disk order already */
	in->i_checksum_lo = 0;
	if (hi)
		in->i_checksum_hi = 0;
	crc = owner_crc(fs, ino, ext2fs_le32_to_cpu(in->i_generation));
	crc = ext4_crc32c(crc, in, size);
	in->i_checksum_lo = ext2fs_cpu_to_le16((uint16_t)(crc & 0xffff));
	if (hi)
		in->i_checksum_hi = ext2fs_cpu_to_le16((uint16_t)(crc >> 16));
}

static uint16_t le16_at(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/*
 * The checksum tail of a leaf: the entries' records, as stored, lead
 * exactly to a 12-byte record at the block's end with inode 0, name
 * length 0 and file type 0xde.  NULL when the block is not such a leaf.
 */
static struct ext2_dir_entry_tail *leaf_tail(unsigned char *b, uint32_t bs)
{
	size_t top = bs - sizeof(struct ext2_dir_entry_tail), at = 0;
	struct ext2_dir_entry_tail *t;

	while (at < top) {
		uint16_t len = le16_at(b + at + 4);

		if (len < 8 || (len & 3))
			return NULL;
		at += len;
	}
	if (at != top)
		return NULL;
	t = (struct ext2_dir_entry_tail *)(b + top);
	if (t->det_reserved_zero1 ||
	    ext2fs_le16_to_cpu(t->det_rec_len) != sizeof(struct ext2_dir_entry_tail) ||
	    ext2fs_le16_to_cpu(t->det_reserved_name_len) != EXT2_DIR_NAME_LEN_CSUM)
		return NULL;
	return t;
}

/*
 * The count and limit of an htree node: after an empty record spanning
 * the block (an index node, at byte 8), or after "." (12 bytes) and ".."
 * (the rest of the block) and the root's info (the root, at byte 32).
 * Returns the offset, 0 when the block is no htree node, -1 when its
 * count or limit is beyond the block.
 */
static int dx_count_offset(const unsigned char *b, uint32_t bs)
{
	const struct ext2_dx_root_info *info;
	const struct ext2_dx_countlimit *c;
	int at;
	uint32_t most;

	if (le16_at(b + 4) == bs && b[6] == 0 && b[7] == 0) {
		at = 8;
	} else if (le16_at(b + 4) == 12) {
		if (le16_at(b + 12 + 4) != bs - 12)
			return 0;
		info = (const struct ext2_dx_root_info *)(b + 24);
		if (info->reserved_zero || info->info_length != sizeof(*info))
			return 0;
		at = 32;
	} else {
		return 0;
	}
	c = (const struct ext2_dx_countlimit *)(b + at);
	most = (bs - (uint32_t)at) / sizeof(struct ext2_dx_entry);
	if (ext2fs_le16_to_cpu(c->limit) > most || ext2fs_le16_to_cpu(c->count) > most)
		return -1;
	return at;
}

errcode_t ext4_csum_dir_block(ext2_filsys fs, ext2_ino_t ino, uint32_t gen, void *block)
{
	unsigned char *b = block;
	uint32_t bs = fs->blocksize, crc;
	struct ext2_dir_entry_tail *t;
	const struct ext2_dx_countlimit *c;
	struct ext2_dx_tail *dt;
	uint32_t zero = 0;
	size_t limit;
	int at;

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return 0;
	t = leaf_tail(b, bs);
	if (t) {
		crc = ext4_crc32c(owner_crc(fs, ino, gen), b, (size_t)((unsigned char *)t - b));
		t->det_checksum = ext2fs_cpu_to_le32(crc);
		return 0;
	}
	at = dx_count_offset(b, bs);
	if (at <= 0)
		return EXT2_ET_DIR_NO_SPACE_FOR_CSUM;
	c = (const struct ext2_dx_countlimit *)(b + at);
	limit = ext2fs_le16_to_cpu(c->limit);
	if ((size_t)at + limit * sizeof(struct ext2_dx_entry) > bs - sizeof(struct ext2_dx_tail))
		return EXT2_ET_DIR_NO_SPACE_FOR_CSUM;
	/* the entries in use, the tail's reserved word, and 0 for the checksum itself */
	dt = (struct ext2_dx_tail *)(b + at + limit * sizeof(struct ext2_dx_entry));
	crc = ext4_crc32c(owner_crc(fs, ino, gen), b,
			  (size_t)at + ext2fs_le16_to_cpu(c->count) * sizeof(struct ext2_dx_entry));
	crc = ext4_crc32c(crc, &dt->dt_reserved, sizeof(dt->dt_reserved));
	crc = ext4_crc32c(crc, &zero, sizeof(zero));
	dt->dt_checksum = ext2fs_cpu_to_le32(crc);
	return 0;
}

void ext4_csum_extent_block(ext2_filsys fs, ext2_ino_t ino, uint32_t gen,
			    struct ext3_extent_header *eh)
{
	size_t tail = sizeof(*eh) + sizeof(struct ext3_extent) * ext2fs_le16_to_cpu(eh->eh_max);
	struct ext3_extent_tail *t = (struct ext3_extent_tail *)((unsigned char *)eh + tail);

	if (!ext2fs_has_feature_metadata_csum(fs->super))
		return;
	t->et_checksum = ext2fs_cpu_to_le32(ext4_crc32c(owner_crc(fs, ino, gen), eh, tail));
}
