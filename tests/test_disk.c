/* test_disk.c - create --partition's geometry and table (src/core/disk.c), read back by libblkid */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/disk.h"

#define MiB (1ULL << 20)

static void test_label_parse(void **state)
{
	enum disk_label l;

	(void)state;
	assert_int_equal(disk_label_parse("gpt", &l), 0);
	assert_int_equal(l, DISK_GPT);
	assert_int_equal(disk_label_parse("mbr", &l), 0);
	assert_int_equal(l, DISK_MBR);
	assert_int_equal(disk_label_parse("dos", &l), 0);
	assert_int_equal(l, DISK_MBR);
	assert_int_equal(disk_label_parse("none", &l), 0);
	assert_int_equal(l, DISK_NONE);
	assert_int_equal(disk_label_parse("GPT", &l), -EINVAL);
	assert_int_equal(disk_label_parse("", &l), -EINVAL);
}

/* An image: the partition is 'size' in whole MiB at 1 MiB; GPT keeps 1 MiB behind it. */
static void test_geometry_image(void **state)
{
	struct disk_geom g;
	char msg[256];

	(void)state;
	assert_int_equal(disk_geometry(DISK_GPT, 64 * MiB, 0, 0, &g, msg, sizeof(msg)), 0);
	assert_int_equal(g.part_start, MiB);
	assert_int_equal(g.part_size, 64 * MiB);
	assert_int_equal(g.disk_size, 66 * MiB);
	assert_int_equal(disk_geometry(DISK_MBR, 64 * MiB, 0, 0, &g, msg, sizeof(msg)), 0);
	assert_int_equal(g.disk_size, 65 * MiB);
	/* a size not in whole MiB: the partition rounds up, the file system stays */
	assert_int_equal(disk_geometry(DISK_GPT, 64 * MiB + 4096, 0, 0, &g, msg, sizeof(msg)), 0);
	assert_int_equal(g.part_size, 65 * MiB);
	/* --partition-size */
	assert_int_equal(disk_geometry(DISK_GPT, 64 * MiB, 80 * MiB, 0, &g, msg, sizeof(msg)), 0);
	assert_int_equal(g.part_size, 80 * MiB);
	assert_int_equal(g.disk_size, 82 * MiB);
	assert_int_equal(disk_geometry(DISK_GPT, 64 * MiB, 32 * MiB, 0, &g, msg, sizeof(msg)),
			 -ENOSPC);
	assert_non_null(strstr(msg, "larger than the partition"));
	/* none: the image is the file system */
	assert_int_equal(disk_geometry(DISK_NONE, 64 * MiB, 0, 0, &g, msg, sizeof(msg)), 0);
	assert_int_equal(g.part_start, 0);
	assert_int_equal(g.disk_size, 64 * MiB);
}

/* A device: the partition fills it less 1 MiB at each end (GPT), or what fits. */
static void test_geometry_device(void **state)
{
	struct disk_geom g;
	uint64_t room;
	char msg[256];

	(void)state;
	assert_int_equal(disk_room(DISK_GPT, 80 * MiB, 0, &room, msg, sizeof(msg)), 0);
	assert_int_equal(room, 78 * MiB);
	assert_int_equal(disk_room(DISK_MBR, 80 * MiB + 512, 0, &room, msg, sizeof(msg)), 0);
	assert_int_equal(room, 79 * MiB);
	assert_int_equal(disk_geometry(DISK_GPT, 78 * MiB, 0, 80 * MiB, &g, msg, sizeof(msg)), 0);
	assert_int_equal(g.disk_size, 80 * MiB);
	assert_int_equal(g.part_size, 78 * MiB);
	assert_int_equal(disk_room(DISK_GPT, 79 * MiB, 78 * MiB, &room, msg, sizeof(msg)), -ENOSPC);
	assert_int_equal(disk_room(DISK_GPT, 2 * MiB, 0, &room, msg, sizeof(msg)), -ENOSPC);
	assert_non_null(strstr(msg, "too small"));
	/* an image has no limit: room is --partition-size, or 0 */
	assert_int_equal(disk_room(DISK_GPT, 0, 0, &room, msg, sizeof(msg)), 0);
	assert_int_equal(room, 0);
}

/* Write g's table with seed into a new sparse file; its fd, or -1. */
static int table_file(char *path, const struct disk_geom *g, uint64_t seed)
{
	char msg[256];
	int fd;

	strcpy(path, "/tmp/imprint-test-disk.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)g->disk_size), 0);
	assert_int_equal(disk_write_table(fd, path, g, seed, msg, sizeof(msg)), 0);
	return fd;
}

static int same_file(int a, int b, uint64_t len)
{
	static char x[65536], y[65536];

	for (uint64_t off = 0; off < len; off += sizeof(x)) {
		if (pread(a, x, sizeof(x), (off_t)off) != (ssize_t)sizeof(x) ||
		    pread(b, y, sizeof(y), (off_t)off) != (ssize_t)sizeof(y))
			return 0;
		if (memcmp(x, y, sizeof(x)) != 0)
			return 0;
	}
	return 1;
}

/* What libblkid reads back: the label, one partition where it was put; same seed, same bytes. */
static void check_table(enum disk_label label, const char *pttype)
{
	struct disk_geom g;
	char p1[64], p2[64], p3[64], msg[256];
	blkid_probe pr;
	blkid_partlist pl;
	blkid_partition part;
	const char *v;
	int a, b, c;

	assert_int_equal(disk_geometry(label, 8 * MiB, 0, 0, &g, msg, sizeof(msg)), 0);
	a = table_file(p1, &g, 7);
	b = table_file(p2, &g, 7);
	c = table_file(p3, &g, 8);
	pr = blkid_new_probe_from_filename(p1);
	assert_non_null(pr);
	blkid_probe_enable_partitions(pr, 1);
	assert_int_equal(blkid_do_fullprobe(pr), 0);
	assert_int_equal(blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL), 0);
	assert_string_equal(v, pttype);
	pl = blkid_probe_get_partitions(pr);
	assert_non_null(pl);
	assert_int_equal(blkid_partlist_numof_partitions(pl), 1);
	part = blkid_partlist_get_partition(pl, 0);
	assert_int_equal(blkid_partition_get_partno(part), 1);
	assert_int_equal(blkid_partition_get_start(part), 2048);
	assert_int_equal(blkid_partition_get_size(part), 8 * MiB / 512);
	blkid_free_probe(pr);
	assert_true(same_file(a, b, g.disk_size));
	assert_false(same_file(a, c, g.disk_size));
	close(a);
	close(b);
	close(c);
	unlink(p1);
	unlink(p2);
	unlink(p3);
}

static void test_table_gpt(void **state)
{
	(void)state;
	check_table(DISK_GPT, "gpt");
}

static void test_table_mbr(void **state)
{
	(void)state;
	check_table(DISK_MBR, "dos");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_parse),
		cmocka_unit_test(test_geometry_image),
		cmocka_unit_test(test_geometry_device),
		cmocka_unit_test(test_table_gpt),
		cmocka_unit_test(test_table_mbr),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
