/* disk.c - `imprint create --partition`: the disk's geometry and its GPT or MBR table, written with libfdisk */
#include <errno.h>
#include <inttypes.h>
#include <libfdisk/libfdisk.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "core/disk.h"
#include "util/rng.h"
#include "util/strutil.h"

/* The Linux file-system partition type. */
#define GPT_LINUX_FS "0FC63DAF-8483-4772-8E79-3D69D8477DE4"
#define MBR_LINUX_FS 0x83

static const struct {
	const char *name;
	enum disk_label label;
} labels[] = {
	{ "none", DISK_NONE },
	{ "gpt", DISK_GPT },
	{ "mbr", DISK_MBR },
	{ "dos", DISK_MBR },
};

int disk_label_parse(const char *s, enum disk_label *out)
{
	for (size_t i = 0; i < sizeof(labels) / sizeof(labels[0]); i++) {
		if (strcmp(s, labels[i].name) == 0) {
			*out = labels[i].label;
			return 0;
		}
	}
	return -EINVAL;
}

/* What the disk keeps after the partition: GPT's backup table, and whole MiBs. */
static uint64_t tail_bytes(enum disk_label label)
{
	return label == DISK_GPT ? DISK_ALIGN : 0;
}

int disk_room(enum disk_label label, uint64_t dev_size, uint64_t part_size, uint64_t *room,
	      char *msg, size_t len)
{
	uint64_t overhead = DISK_ALIGN + tail_bytes(label), avail;
	char h1[32], h2[32];

	*room = part_size;
	if (!dev_size)
		return 0;
	avail = dev_size > overhead ? (dev_size - overhead) / DISK_ALIGN * DISK_ALIGN : 0;
	if (avail < DISK_ALIGN || part_size > avail) {
		fmt_bytes(dev_size, FMT_BYTES_ADAPTIVE, h1, sizeof(h1));
		fmt_bytes(part_size ? part_size + overhead : 2 * DISK_ALIGN + tail_bytes(label),
			  FMT_BYTES_ADAPTIVE, h2, sizeof(h2));
		snprintf(msg, len, "the device (%s) is too small for %s partition table and its partition (%s at least)",
			 h1, label == DISK_GPT ? "a GPT" : "an MBR", h2);
		return -ENOSPC;
	}
	*room = part_size ? part_size : avail;
	return 0;
}

int disk_geometry(enum disk_label label, uint64_t fs_size, uint64_t part_size, uint64_t dev_size,
		  struct disk_geom *g, char *msg, size_t len)
{
	uint64_t room;
	char h1[32], h2[32];
	int ret;

	memset(g, 0, sizeof(*g));
	g->label = label;
	if (label == DISK_NONE) {
		g->disk_size = dev_size ? dev_size : fs_size;
		g->part_size = fs_size;
		return 0;
	}
	ret = disk_room(label, dev_size, part_size, &room, msg, len);
	if (ret)
		return ret;
	g->part_start = DISK_ALIGN;
	g->part_size = room ? room : (fs_size + DISK_ALIGN - 1) / DISK_ALIGN * DISK_ALIGN;
	if (fs_size > g->part_size) {
		fmt_bytes(fs_size, FMT_BYTES_ADAPTIVE, h1, sizeof(h1));
		fmt_bytes(g->part_size, FMT_BYTES_ADAPTIVE, h2, sizeof(h2));
		snprintf(msg, len, "'size' (%s) is larger than the partition (%s); raise --partition-size or lower --size",
			 h1, h2);
		return -ENOSPC;
	}
	if (label == DISK_MBR && g->part_start + g->part_size > DISK_MBR_LIMIT) {
		fmt_bytes(g->part_start + g->part_size, FMT_BYTES_ADAPTIVE, h1, sizeof(h1));
		snprintf(msg, len, "an MBR partition table addresses at most 2 TiB (2^32 sectors of 512 bytes) but the partition would end at %s; use '--partition gpt' or a smaller %s",
			 h1, part_size || dev_size ? "--partition-size" : "--size");
		return -EFBIG;
	}
	g->disk_size = dev_size ? dev_size : g->part_start + g->part_size + tail_bytes(label);
	return 0;
}

/* The MBR disk identifier of seed, as libfdisk takes it ("0x1234abcd"). */
static void mbr_id(uint64_t seed, char *out, size_t len)
{
	struct rng r;
	uint32_t id;

	rng_init(&r, seed, "mbr_disk_id", 0);
	id = (uint32_t)rng_next(&r);
	snprintf(out, len, "0x%08" PRIx32, id ? id : 1); /* 0 reads as "no identifier" */
}

/* The one partition of g in cxt's new label, its GUID from seed (GPT). */
static int add_partition(struct fdisk_context *cxt, const struct disk_geom *g, uint64_t seed)
{
	struct fdisk_label *lb = fdisk_get_label(cxt, NULL);
	unsigned long ss = fdisk_get_sector_size(cxt);
	struct fdisk_partition *pa = fdisk_new_partition();
	struct fdisk_parttype *type;
	char uuid[37];
	int ret = -ENOMEM;

	if (!pa)
		return ret;
	type = g->label == DISK_GPT ? fdisk_label_get_parttype_from_string(lb, GPT_LINUX_FS)
				    : fdisk_label_get_parttype_from_code(lb, MBR_LINUX_FS);
	if (!type)
		goto out_unref;
	ret = fdisk_partition_set_type(pa, type);
	if (!ret)
		ret = fdisk_partition_set_partno(pa, 0);
	if (!ret)
		ret = fdisk_partition_set_start(pa, g->part_start / ss);
	if (!ret)
		ret = fdisk_partition_set_size(pa, g->part_size / ss);
	if (!ret && g->label == DISK_GPT) {
		rng_uuid(seed, "gpt_partition_guid", uuid);
		ret = fdisk_partition_set_uuid(pa, uuid);
	}
	if (!ret)
		ret = fdisk_add_partition(cxt, pa, NULL);
	fdisk_unref_parttype(type);
out_unref:
	fdisk_unref_partition(pa);
	return ret < 0 ? ret : ret ? -EINVAL : 0;
}

int disk_write_table(int fd, const char *fd_name, const struct disk_geom *g, uint64_t seed,
		     char *msg, size_t len)
{
	struct fdisk_context *cxt;
	char id[40];
	const char *step = "open";
	int ret, ret2;

	if (g->label == DISK_NONE)
		return 0;
	cxt = fdisk_new_context();
	if (!cxt) {
		snprintf(msg, len, "out of memory");
		return -ENOMEM;
	}
	fdisk_disable_dialogs(cxt, 1);
	ret = fdisk_assign_device_by_fd(cxt, fd, fd_name, 0);
	if (ret)
		goto out_free;
	if ((g->part_start | g->part_size) % fdisk_get_sector_size(cxt)) {
		step = "align the partition to the sectors of";
		ret = -EINVAL;
		goto out_deassign;
	}
	step = "make the table of";
	ret = fdisk_create_disklabel(cxt, g->label == DISK_GPT ? "gpt" : "dos");
	if (g->label == DISK_GPT)
		rng_uuid(seed, "gpt_disk_guid", id);
	else
		mbr_id(seed, id, sizeof(id));
	if (!ret)
		ret = fdisk_set_disklabel_id_from_string(cxt, id);
	if (!ret) {
		step = "add the partition to";
		ret = add_partition(cxt, g, seed);
	}
	if (!ret) {
		step = "write the partition table to";
		ret = fdisk_write_disklabel(cxt);
	}
out_deassign:
	/* syncs fd (not the whole system); fd stays open, it is the caller's */
	ret2 = fdisk_deassign_device(cxt, 1);
	if (!ret && ret2) {
		step = "sync the partition table of";
		ret = ret2;
	}
out_free:
	fdisk_unref_context(cxt);
	if (ret) {
		ret = ret < 0 ? ret : -EIO;
		snprintf(msg, len, "cannot %s '%s' (libfdisk): %s", step, fd_name, strerror(-ret));
	}
	return ret;
}

int disk_reread(int fd)
{
	return ioctl(fd, BLKRRPART) == 0 ? 0 : -errno;
}
