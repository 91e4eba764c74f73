/* test_ext4_csum.c - imprint's metadata checksums against libext2fs' on the same bytes */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "backends/ext4/csum.h"
#include "backends/ext4/stats.h"

static char img[] = "/tmp/test_ext4_csum.XXXXXX";
static uint64_t rnd = 0x9e3779b97f4a7c15ull;

static uint32_t next(void)
{
	rnd ^= rnd << 13;
	rnd ^= rnd >> 7;
	rnd ^= rnd << 17;
	return (uint32_t)(rnd >> 16);
}

static void fill(void *p, size_t n)
{
	unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)next();
}

/* A small file system of the given mke2fs options, opened read-write. */
static ext2_filsys make_fs(const char *opts)
{
	char cmd[512];
	ext2_filsys fs;

	snprintf(cmd, sizeof(cmd), "mke2fs -q -F -t ext4 -b 4096 %s '%s' 8M >/dev/null 2>&1", opts,
		 img);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ext2fs_open2(img, NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0,
				      unix_io_manager, &fs),
			 0);
	return fs;
}

/* Two buffers of size bytes (0: the block size) to compare, zeroed. */
static void two_bufs(ext2_filsys fs, size_t size, unsigned char **a, unsigned char **b)
{
	*a = calloc(1, size ? size : fs->blocksize);
	*b = calloc(1, size ? size : fs->blocksize);
	assert_non_null(*a);
	assert_non_null(*b);
}

static void done(ext2_filsys fs, unsigned char *a, unsigned char *b)
{
	free(a);
	free(b);
	ext2fs_close_free(&fs);
}

/* An inode of generation gen at ino, as the checksums of its blocks read it. */
static void put_owner(ext2_filsys fs, ext2_ino_t ino, uint32_t gen)
{
	struct ext2_inode in;

	memset(&in, 0, sizeof(in));
	in.i_mode = LINUX_S_IFREG | 0644;
	in.i_links_count = 1;
	in.i_generation = gen;
	assert_int_equal(ext2fs_write_new_inode(fs, ino, &in), 0);
}

static void test_crc32c(void **state)
{
	unsigned char buf[8192];

	(void)state;
	fill(buf, sizeof(buf));
	for (size_t n = 0; n <= sizeof(buf); n += 1 + n / 3) {
		uint32_t seed = next();

		assert_int_equal(ext4_crc32c(seed, buf, n), ext2fs_crc32c_le(seed, buf, n));
		assert_int_equal(ext4_crc32c(~0u, buf + 1, n ? n - 1 : 0),
				 ext2fs_crc32c_le(~0u, buf + 1, n ? n - 1 : 0));
	}
}

/* Random inodes of each i_extra_isize around the checksum's high half. */
static void test_inode(void **state)
{
	static const uint16_t extra[] = { 0, 2, 4, 28, 32 };
	ext2_filsys fs = make_fs("-I 256");
	size_t size = EXT2_INODE_SIZE(fs->super);
	unsigned char *a, *b;

	(void)state;
	two_bufs(fs, size, &a, &b);
	for (int k = 0; k < 500; k++) {
		struct ext2_inode_large *in = (struct ext2_inode_large *)a;
		ext2_ino_t ino = 1 + next() % fs->super->s_inodes_count;

		fill(a, size);
		in->i_extra_isize = ext2fs_cpu_to_le16(extra[k % 5]);
		memcpy(b, a, size);
		ext4_csum_inode(fs, ino, in);
		assert_int_equal(ext2fs_inode_csum_set(fs, ino, (struct ext2_inode_large *)b), 0);
		assert_memory_equal(a, b, size);
		assert_true(ext2fs_inode_csum_verify(fs, ino, in));
		/* another inode number gives another checksum */
		ext4_csum_inode(fs, ino % fs->super->s_inodes_count + 1, in);
		assert_false(ext2fs_inode_csum_verify(fs, ino, in));
	}
	done(fs, a, b);
}

static void test_extent_block(void **state)
{
	ext2_filsys fs = make_fs("");
	uint32_t bs = fs->blocksize, gen = 0xdecaf001u;
	unsigned char *a, *b;

	(void)state;
	two_bufs(fs, 0, &a, &b);
	put_owner(fs, 12, gen);
	for (int k = 0; k < 100; k++) {
		struct ext3_extent_header *eh = (struct ext3_extent_header *)a;

		fill(a, bs);
		eh->eh_magic = ext2fs_cpu_to_le16(EXT3_EXT_MAGIC);
		eh->eh_max = ext2fs_cpu_to_le16(
			(uint16_t)((bs - sizeof(*eh)) / sizeof(struct ext3_extent) - k % 3));
		memcpy(b, a, bs);
		ext4_csum_extent_block(fs, 12, gen, eh);
		assert_int_equal(
			ext2fs_extent_block_csum_set(fs, 12, (struct ext3_extent_header *)b), 0);
		assert_memory_equal(a, b, bs);
		/* the generation is covered */
		ext4_csum_extent_block(fs, 12, gen + 1, eh);
		assert_false(ext2fs_extent_block_csum_verify(fs, 12, eh));
	}
	done(fs, a, b);
}

/* A leaf, the htree's root and an index node, made by hand; then a block that is neither. */
static void test_dir_block(void **state)
{
	ext2_filsys fs = make_fs("");
	uint32_t bs = fs->blocksize, gen = 0x5eed5eedu;
	unsigned char *a, *b;
	struct ext2_dir_entry *d;
	struct ext2_dx_countlimit *c;
	ext2_ino_t ino = 13;

	(void)state;
	two_bufs(fs, 0, &a, &b);
	d = (struct ext2_dir_entry *)a;
	put_owner(fs, ino, gen);

	/* leaf: one entry up to the tail */
	d->inode = 20;
	d->name_len = 3 | EXT2_FT_REG_FILE << 8;
	memcpy(d->name, "abc", 3);
	d->rec_len = (uint16_t)(bs - 12);
	ext2fs_initialize_dirent_tail(fs, (struct ext2_dir_entry_tail *)(a + bs - 12));
	memcpy(b, a, bs);
	assert_int_equal(ext4_csum_dir_block(fs, ino, gen, a), 0);
	assert_int_equal(ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)b), 0);
	assert_memory_equal(a, b, bs);
	assert_true(ext2fs_dir_block_csum_verify(fs, ino, (struct ext2_dir_entry *)a));

	/* index node: an empty record over the block, then count and limit */
	memset(a, 0, bs);
	d->rec_len = (uint16_t)bs;
	c = (struct ext2_dx_countlimit *)(a + 8);
	c->limit = (uint16_t)((bs - 8 - sizeof(struct ext2_dx_tail)) / 8);
	c->count = 7;
	fill(a + 12, 7 * 8 - 4);
	fill(a + bs - 8, 4); /* the tail's reserved word is covered */
	memcpy(b, a, bs);
	assert_int_equal(ext4_csum_dir_block(fs, ino, gen, a), 0);
	assert_int_equal(ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)b), 0);
	assert_memory_equal(a, b, bs);

	/* root: ".", "..", the root info, count and limit */
	memset(a, 0, bs);
	d->inode = ino;
	d->name_len = 1 | EXT2_FT_DIR << 8;
	d->name[0] = '.';
	d->rec_len = 12;
	d = (struct ext2_dir_entry *)(a + 12);
	d->inode = EXT2_ROOT_INO;
	d->name_len = 2 | EXT2_FT_DIR << 8;
	memcpy(d->name, "..", 2);
	d->rec_len = (uint16_t)(bs - 12);
	((struct ext2_dx_root_info *)(a + 24))->hash_version = EXT2_HASH_HALF_MD4;
	((struct ext2_dx_root_info *)(a + 24))->info_length = 8;
	c = (struct ext2_dx_countlimit *)(a + 32);
	c->limit = (uint16_t)((bs - 32 - sizeof(struct ext2_dx_tail)) / 8);
	c->count = 5;
	fill(a + 36, 5 * 8 - 4);
	memcpy(b, a, bs);
	assert_int_equal(ext4_csum_dir_block(fs, ino, gen, a), 0);
	assert_int_equal(ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)b), 0);
	assert_memory_equal(a, b, bs);
	assert_true(ext2fs_dir_block_csum_verify(fs, ino, (struct ext2_dir_entry *)a));

	/* a root whose limit leaves no room for the tail, and a leaf whose records overrun it */
	c->limit = (uint16_t)((bs - 32) / 8);
	assert_int_equal(ext4_csum_dir_block(fs, ino, gen, a), EXT2_ET_DIR_NO_SPACE_FOR_CSUM);
	assert_int_equal(ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)a),
			 EXT2_ET_DIR_NO_SPACE_FOR_CSUM);
	memset(a, 0, bs);
	d = (struct ext2_dir_entry *)a;
	d->inode = 20;
	d->name_len = 1;
	d->rec_len = (uint16_t)(bs - 8);
	ext2fs_initialize_dirent_tail(fs, (struct ext2_dir_entry_tail *)(a + bs - 12));
	assert_int_equal(ext4_csum_dir_block(fs, ino, gen, a), EXT2_ET_DIR_NO_SPACE_FOR_CSUM);
	assert_int_equal(ext2fs_dir_block_csum_set(fs, ino, (struct ext2_dir_entry *)a),
			 EXT2_ET_DIR_NO_SPACE_FOR_CSUM);
	done(fs, a, b);
}

/*
 * The same inodes and block ranges taken through ext4_stats_*() on one
 * file system and through libext2fs' calls on a copy: the same group
 * descriptors (counts, flags, unused inodes, checksums once flushed) and
 * superblock counts; before the flush the checksums are stale.
 */
static void test_alloc_stats(void **state)
{
	ext2_filsys a = make_fs("-N 2048 -g 512"), b;
	struct ext4_stats s;
	size_t gdsize;
	int stale = 0, ranges = 0;

	(void)state;
	assert_int_equal(ext2fs_read_bitmaps(a), 0);
	assert_int_equal(
		ext2fs_open2(img, NULL, EXT2_FLAG_RW | EXT2_FLAG_64BITS, 0, 0, unix_io_manager, &b),
		0);
	assert_int_equal(ext2fs_read_bitmaps(b), 0);
	assert_true(a->group_desc_count > 1);
	assert_int_equal(ext4_stats_init(&s, a), 0);
	for (int k = 0; k < 400; k++) {
		ext2_ino_t ino = EXT2_FIRST_INO(a->super) + 1 +
				 next() % (a->super->s_inodes_count - EXT2_FIRST_INO(a->super));
		blk64_t blk = a->super->s_first_data_block + next() % ext2fs_blocks_count(a->super);
		blk_t num = 1 + next() % (k % 7 ? 8 : 1500); /* some across groups of 512 */

		if (blk + num > ext2fs_blocks_count(a->super))
			num = (blk_t)(ext2fs_blocks_count(a->super) - blk);

		if (ext2fs_test_inode_bitmap2(a->inode_map, ino))
			continue;
		ext4_stats_inode(&s, ino, k % 5 == 0);
		ext2fs_inode_alloc_stats2(b, ino, +1, k % 5 == 0);
		if (ext2fs_test_block_bitmap_range2(a->block_map, blk, num)) {
			ext4_stats_blocks(&s, blk, num);
			ext2fs_block_alloc_stats_range(b, blk, num, +1);
			ranges++;
		}
	}
	assert_true(ranges > 40);
	gdsize = (size_t)a->desc_blocks * a->blocksize;
	for (dgrp_t g = 0; g < a->group_desc_count; g++)
		stale += !ext2fs_group_desc_csum_verify(a, g);
	assert_true(stale > 0);
	ext4_stats_flush(&s);
	assert_memory_equal(a->group_desc, b->group_desc, gdsize);
	assert_int_equal(a->super->s_free_inodes_count, b->super->s_free_inodes_count);
	assert_int_equal(ext2fs_free_blocks_count(a->super), ext2fs_free_blocks_count(b->super));
	for (dgrp_t g = 0; g < a->group_desc_count; g++)
		assert_true(ext2fs_group_desc_csum_verify(a, g));
	ext4_stats_release(&s);
	ext2fs_free(a);
	ext2fs_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),	     cmocka_unit_test(test_inode),
		cmocka_unit_test(test_extent_block), cmocka_unit_test(test_dir_block),
		cmocka_unit_test(test_alloc_stats),
	};
	int fd, ret;

	if (system("mke2fs -V >/dev/null 2>&1")) {
		fprintf(stderr, "mke2fs not found: skipped\n");
		return 77;
	}
	fd = mkstemp(img);
	if (fd < 0)
		return 99;
	close(fd);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(img);
	return ret;
}
