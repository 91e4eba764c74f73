/* fsread_part.c - the file system inside a partitioned disk: which partition, where it lies (libblkid) */
#include <blkid/blkid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "read/fsread_ops.h"

/* Partitions named in messages, at most. */
#define PART_LIST_MAX 16

int fsread_is_ext_type(const char *type)
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


/*
 * The partition of the table in pr to read: part, or (0) the one holding
 * ext2/3/4.  Returns 0 with *pick set, or -ENOENT/-EINVAL with err set.
 */
static int pick_partition(const char *target, blkid_probe pr, int fd, int part,
			  struct fsread_place *pick, struct fsread_error *err)
{
	blkid_partlist pl = blkid_probe_get_partitions(pr);
	blkid_parttable tab = pl ? blkid_partlist_get_table(pl) : NULL;
	struct fsread_place first = { 0 };
	const char *tt = tab ? blkid_parttable_get_type(tab) : "unknown";
	char list[256] = "";
	int n = pl ? blkid_partlist_numof_partitions(pl) : 0, found = 0;
	size_t at = 0;

	for (int i = 0; i < n; i++) {
		blkid_partition p = blkid_partlist_get_partition(pl, i);
		struct fsread_place s;

		s.partno = blkid_partition_get_partno(p);
		s.start = (uint64_t)blkid_partition_get_start(p) * 512;
		s.len = (uint64_t)blkid_partition_get_size(p) * 512;
		probe_range(fd, s.start, s.len, s.type, sizeof(s.type));
		if (part && s.partno == part) {
			*pick = s;
			return 0;
		}
		if (!part && fsread_is_ext_type(s.type) && found++ == 0)
			*pick = s;
		if (i == 0)
			first = s;
		if (i < PART_LIST_MAX && at < sizeof(list))
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%d (%s)",
					       i ? ", " : "", s.partno, s.type[0] ? s.type : "no file system");
	}
	if (part) {
		fsread_set_err(err, "'%s' has no partition %d (its %s table has %s%s)", target, part,
			       tt, n ? "partitions " : "no partitions", list);
		return -ENOENT;
	}
	if (found == 1)
		return 0;
	if (!found && n == 1) {
		*pick = first; /* the one partition: the caller says what it holds */
		return 0;
	}
	if (!found)
		fsread_set_err(err, "'%s' holds a %s partition table and no ext2/3/4 file system in it (partitions: %s)",
			       target, tt, n ? list : "none");
	else
		fsread_set_err(err, "'%s' holds %d ext2/3/4 file systems (partitions: %s); choose one with --partition N",
			       target, found, list);
	return found ? -EINVAL : -ENOENT;
}

/* A VM image format's name from target's first bytes, or NULL. */
static const char *vm_format(const char *target)
{
	static const struct {
		const char *magic;
		size_t len;
		const char *name;
	} fmts[] = {
		{ "QFI\xfb", 4, "qcow2" },
		{ "KDMV", 4, "vmdk" },
		{ "vhdxfile", 8, "vhdx" },
	};
	char head[8] = { 0 };
	int fd = open(target, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	if (pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head))
		memset(head, 0, sizeof(head));
	close(fd);
	for (size_t i = 0; i < sizeof(fmts) / sizeof(fmts[0]); i++)
		if (memcmp(head, fmts[i].magic, fmts[i].len) == 0)
			return fmts[i].name;
	return NULL;
}

int fsread_find(const char *target, int part, struct fsread_place *where, struct fsread_error *err)
{
	const char *v, *vm = NULL;
	blkid_probe pr;
	int fd, rc, ret = 0;

	memset(where, 0, sizeof(*where));
	fd = open(target, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		fsread_set_err(err, "cannot open '%s': %s", target, strerror(-ret));
		return ret;
	}
	pr = blkid_new_probe();
	if (!pr || blkid_probe_set_device(pr, fd, 0, 0) != 0) {
		fsread_set_err(err, "cannot probe '%s' for a partition table (libblkid failed)", target);
		ret = -EIO;
		goto out_free;
	}
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_ENTRY_DETAILS);
	rc = blkid_do_fullprobe(pr);
	if (rc != 0 || blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) != 0) {
		/* no table: the target is the file system, as it always was */
		if (part) {
			fsread_set_err(err, "'%s' holds no partition table; --partition %d is for partitioned disks",
				       target, part);
			ret = -EINVAL;
		} else {
			probe_range(fd, 0, 0, where->type, sizeof(where->type));
			vm = where->type[0] ? NULL : vm_format(target);
		}
		if (vm) {
			fsread_set_err(err, "'%s' is a %s image: imprint reads raw images; convert it first (qemu-img convert -O raw '%s' disk.img)",
				       target, vm, target);
			ret = -EINVAL;
		}
		goto out_free;
	}
	ret = pick_partition(target, pr, fd, part, where, err);
	if (!ret && !where->type[0]) {
		fsread_set_err(err, "partition %d of '%s' holds no file system imprint knows",
			       where->partno, target);
		ret = -EINVAL;
	}
out_free:
	/* an image whose evolve was killed is no generation: refused before it is mounted or read */
	if (!ret)
		ret = fsread_refuse_marked(fd, where->start, target, err);
	if (pr)
		blkid_free_probe(pr);
	close(fd);
	return ret;
}
