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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c),
		cmocka_unit_test(test_inode),
		cmocka_unit_test(test_extent_block),
		cmocka_unit_test(test_dir_block),
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
