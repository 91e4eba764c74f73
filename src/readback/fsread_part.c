/* fsread_part.c - the file system inside a partitioned disk: which partition, where it lies (libblkid) */
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "readback/fsread_ops.h"

/* Partitions named in messages, at most. */
#define PART_LIST_MAX 16

static int is_ext_type(const char *type)
{
	return !strcmp(type, "ext2") || !strcmp(type, "ext3") || !strcmp(type, "ext4") ||
	       !strcmp(type, "ext4dev");
}

/* The TYPE of what [off, off + len) of fd holds, into type ("" when nothing). */
static void probe_range(int fd, uint64_t off, uint64_t len, char *type, size_t tlen)
{
	blkid_probe pr = blkid_new_probe();
	const char *v;

	type[0] = '\0';
	if (!pr)
		return;
	if (blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)len) == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE);
		if (blkid_do_safeprobe(pr) == 0 && blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0)
			snprintf(type, tlen, "%s", v);
	}
	blkid_free_probe(pr);
}

/* One partition as the search sees it. */
struct part_seen {
	int no;
	uint64_t start, len;
	char type[32];
};

/*
 * The partition of the table in pr to read: part, or (0) the one holding
 * ext2/3/4.  Returns 0 with *pick set, or -ENOENT/-EINVAL with err set.
 */
static int pick_partition(struct fsread *fs, blkid_probe pr, int fd, int part,
			  struct part_seen *pick, struct fsread_error *err)
{
	blkid_partlist pl = blkid_probe_get_partitions(pr);
	blkid_parttable tab = pl ? blkid_partlist_get_table(pl) : NULL;
	const char *tt = tab ? blkid_parttable_get_type(tab) : "unknown";
	char list[256] = "";
	int n = pl ? blkid_partlist_numof_partitions(pl) : 0, found = 0;
	size_t at = 0;

	for (int i = 0; i < n; i++) {
		blkid_partition p = blkid_partlist_get_partition(pl, i);
		struct part_seen s;

		s.no = blkid_partition_get_partno(p);
		s.start = (uint64_t)blkid_partition_get_start(p) * 512;
		s.len = (uint64_t)blkid_partition_get_size(p) * 512;
		probe_range(fd, s.start, s.len, s.type, sizeof(s.type));
		if (part && s.no == part) {
			*pick = s;
			return 0;
		}
		if (!part && is_ext_type(s.type) && found++ == 0)
			*pick = s;
		if (i < PART_LIST_MAX && at < sizeof(list))
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%d (%s)",
					       i ? ", " : "", s.no, s.type[0] ? s.type : "no file system");
	}
	if (part) {
		fsread_set_err(err, "'%s' has no partition %d (its %s table has %s%s)", fs->target, part,
			       tt, n ? "partitions " : "no partitions", list);
		return -ENOENT;
	}
	if (found == 1)
		return 0;
	if (!found)
		fsread_set_err(err, "'%s' holds a %s partition table and no ext2/3/4 file system in it (partitions: %s)",
			       fs->target, tt, n ? list : "none");
	else
		fsread_set_err(err, "'%s' holds %d ext2/3/4 file systems (partitions: %s); choose one with --partition N",
			       fs->target, found, list);
	return found ? -EINVAL : -ENOENT;
}

int fsread_locate(struct fsread *fs, int part, struct fsread_error *err)
{
	struct part_seen pick;
	const char *v;
	blkid_probe pr;
	int fd, rc, ret = 0;

	fd = open(fs->target, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fsread_set_err(err, "cannot open '%s': %s", fs->target, strerror(-ret));
		return ret;
	}
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		fsread_set_err(err, "cannot probe '%s' for a partition table (libblkid failed)", fs->target);
		ret = -EIO;
		goto out_close;
	}
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	rc = blkid_do_fullprobe(pr);
	if (rc != 0 || blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) != 0) {
		/* no table: the target is the file system, as it always was */
		if (part) {
			fsread_set_err(err, "'%s' holds no partition table; --partition %d is for partitioned disks",
				       fs->target, part);
			ret = -EINVAL;
		}
		goto out_free;
	}
	ret = pick_partition(fs, pr, fd, part, &pick, err);
	if (ret)
		goto out_free;
	if (!is_ext_type(pick.type)) {
		if (pick.type[0])
			fsread_set_err(err, "partition %d of '%s' holds %s, not ext2/3/4; imprint reads ext2/3/4 images, and any file system once mounted (measure its mount point)",
				       pick.no, fs->target, pick.type);
		else
			fsread_set_err(err, "partition %d of '%s' holds no file system imprint knows", pick.no,
				       fs->target);
		ret = -EINVAL;
		goto out_free;
	}
	fs->base = pick.start;
	fs->part_bytes = pick.len;
	fs->partno = pick.no;
out_free:
	if (pr)
		blkid_free_probe(pr);
out_close:
	close(fd);
	return ret;
}
