/* plan_special.c - special files of a plan: FIFOs, sockets and device nodes with Linux's numbers */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "plan/plan_int.h"

/*
 * Shares of the four types among special files (doc/model.md, "Special
 * files"): no study counts them on disk; these follow a Debian host's root
 * and /run, where sockets and character devices dominate.
 */
static const double type_share[SPECIAL_TYPES] = { 0.20, 0.30, 0.35, 0.15 };

/*
 * Device families, from Linux's Documentation/admin-guide/devices.txt: the
 * name (a prefix for a number; for disks, sd, a letter and a partition
 * number), major, the minor of number 0, how many numbers, weight within the
 * type, mode and group (5 tty, 6 disk).
 */
enum fam_name { FAM_FIXED, FAM_NUM, FAM_DISK };

struct dev_family {
	const char *fmt;
	enum fam_name naming;
	uint8_t type;
	uint16_t major, minor0, count, weight;
	uint16_t perm, gid;
};

static const struct dev_family families[] = {
	{ "null", FAM_FIXED, SPECIAL_CHR, 1, 3, 1, 4, 0666, 0 },
	{ "zero", FAM_FIXED, SPECIAL_CHR, 1, 5, 1, 2, 0666, 0 },
	{ "full", FAM_FIXED, SPECIAL_CHR, 1, 7, 1, 1, 0666, 0 },
	{ "random", FAM_FIXED, SPECIAL_CHR, 1, 8, 1, 2, 0666, 0 },
	{ "urandom", FAM_FIXED, SPECIAL_CHR, 1, 9, 1, 2, 0666, 0 },
	{ "kmsg", FAM_FIXED, SPECIAL_CHR, 1, 11, 1, 1, 0644, 0 },
	{ "tty", FAM_FIXED, SPECIAL_CHR, 5, 0, 1, 1, 0666, 5 },
	{ "console", FAM_FIXED, SPECIAL_CHR, 5, 1, 1, 1, 0600, 0 },
	{ "ptmx", FAM_FIXED, SPECIAL_CHR, 5, 2, 1, 1, 0666, 5 },
	{ "tty", FAM_NUM, SPECIAL_CHR, 4, 0, 64, 12, 0620, 5 },
	{ "ttyS", FAM_NUM, SPECIAL_CHR, 4, 64, 32, 6, 0660, 20 },
	{ "vcs", FAM_NUM, SPECIAL_CHR, 7, 0, 64, 3, 0620, 5 },
	{ "input_event", FAM_NUM, SPECIAL_CHR, 13, 64, 32, 3, 0660, 0 },
	{ "fuse", FAM_FIXED, SPECIAL_CHR, 10, 229, 1, 1, 0666, 0 },
	{ "loop-control", FAM_FIXED, SPECIAL_CHR, 10, 237, 1, 1, 0660, 6 },
	{ "sg", FAM_NUM, SPECIAL_CHR, 21, 0, 16, 2, 0660, 6 },
	{ "nvidia", FAM_NUM, SPECIAL_CHR, 195, 0, 8, 1, 0666, 0 },
	{ "sd", FAM_DISK, SPECIAL_BLK, 8, 0, 256, 10, 0660, 6 },
	{ "loop", FAM_NUM, SPECIAL_BLK, 7, 0, 256, 8, 0660, 6 },
	{ "sr", FAM_NUM, SPECIAL_BLK, 11, 0, 2, 1, 0660, 24 },
	{ "dm-", FAM_NUM, SPECIAL_BLK, 253, 0, 16, 3, 0660, 6 },
	{ "md", FAM_NUM, SPECIAL_BLK, 9, 0, 8, 1, 0660, 6 },
	{ "nvme0n1p", FAM_NUM, SPECIAL_BLK, 259, 0, 16, 3, 0660, 6 },
};

/*
 * The /dev-like directory (dev_dir = linux): what a static /dev holds (a
 * chroot, a container image, a system before devtmpfs), numbers from
 * devices.txt, modes and groups as udev's default rules leave them
 * (5 tty, 6 disk, 15 kmem, 20 dialout, 24 cdrom).  A numbered entry names
 * count nodes fmt0..; a disk (FAM_DISK) names the whole disk, then its
 * partitions 1..count-1.
 */
static const struct dev_family dev_nodes[] = {
	{ "console", FAM_FIXED, SPECIAL_CHR, 5, 1, 1, 0, 0600, 0 },
	{ "full", FAM_FIXED, SPECIAL_CHR, 1, 7, 1, 0, 0666, 0 },
	{ "fuse", FAM_FIXED, SPECIAL_CHR, 10, 229, 1, 0, 0666, 0 },
	{ "kmsg", FAM_FIXED, SPECIAL_CHR, 1, 11, 1, 0, 0644, 0 },
	{ "loop-control", FAM_FIXED, SPECIAL_CHR, 10, 237, 1, 0, 0660, 6 },
	{ "mem", FAM_FIXED, SPECIAL_CHR, 1, 1, 1, 0, 0640, 15 },
	{ "null", FAM_FIXED, SPECIAL_CHR, 1, 3, 1, 0, 0666, 0 },
	{ "port", FAM_FIXED, SPECIAL_CHR, 1, 4, 1, 0, 0640, 15 },
	{ "ptmx", FAM_FIXED, SPECIAL_CHR, 5, 2, 1, 0, 0666, 5 },
	{ "random", FAM_FIXED, SPECIAL_CHR, 1, 8, 1, 0, 0666, 0 },
	{ "tty", FAM_FIXED, SPECIAL_CHR, 5, 0, 1, 0, 0666, 5 },
	{ "urandom", FAM_FIXED, SPECIAL_CHR, 1, 9, 1, 0, 0666, 0 },
	{ "vcs", FAM_FIXED, SPECIAL_CHR, 7, 0, 1, 0, 0660, 5 },
	{ "vcsa", FAM_FIXED, SPECIAL_CHR, 7, 128, 1, 0, 0660, 5 },
	{ "zero", FAM_FIXED, SPECIAL_CHR, 1, 5, 1, 0, 0666, 0 },
	{ "tty", FAM_NUM, SPECIAL_CHR, 4, 0, 13, 0, 0620, 5 },
	{ "ttyS", FAM_NUM, SPECIAL_CHR, 4, 64, 4, 0, 0660, 20 },
	{ "loop", FAM_NUM, SPECIAL_BLK, 7, 0, 8, 0, 0660, 6 },
	{ "sda", FAM_DISK, SPECIAL_BLK, 8, 0, 4, 0, 0660, 6 },
	{ "sdb", FAM_DISK, SPECIAL_BLK, 8, 16, 2, 0, 0660, 6 },
	{ "sr0", FAM_FIXED, SPECIAL_BLK, 11, 0, 1, 0, 0660, 24 },
	{ "nvme0n1", FAM_DISK, SPECIAL_BLK, 259, 0, 3, 0, 0660, 6 },
	{ "dm-", FAM_NUM, SPECIAL_BLK, 253, 0, 2, 0, 0660, 6 },
	{ "md0", FAM_FIXED, SPECIAL_BLK, 9, 0, 1, 0, 0660, 6 },
	{ "initctl", FAM_FIXED, SPECIAL_FIFO, 0, 0, 1, 0, 0600, 0 },
	{ "log", FAM_FIXED, SPECIAL_SOCK, 0, 0, 1, 0, 0666, 0 },
};

/* Node i of the table: its family and number within it. */
static const struct dev_family *dev_node(uint32_t i, uint32_t *num)
{
	for (size_t k = 0; k < ARRAY_SIZE(dev_nodes); k++) {
		if (i < dev_nodes[k].count) {
			*num = i;
			return &dev_nodes[k];
		}
		i -= dev_nodes[k].count;
	}
	*num = 0;
	return &dev_nodes[0];
}

uint32_t plan_dev_nodes(void)
{
	uint32_t n = 0;

	for (size_t k = 0; k < ARRAY_SIZE(dev_nodes); k++)
		n += dev_nodes[k].count;
	return n;
}

uint8_t plan_dev_node_kind(uint32_t i)
{
	uint32_t num;

	return (uint8_t)(LINK_SPECIAL | (dev_node(i, &num)->type << 6));
}

/* A /dev-like directory node's name: unique in its directory by construction. */
static size_t dev_node_name(uint32_t i, unsigned variant, char *buf)
{
	uint32_t num;
	const struct dev_family *fam = dev_node(i, &num);
	int len;

	if (fam->naming == FAM_FIXED || (fam->naming == FAM_DISK && !num))
		len = snprintf(buf, NAME_MAX_LEN + 1, "%s", fam->fmt);
	else if (fam->naming == FAM_DISK)
		len = snprintf(buf, NAME_MAX_LEN + 1, "%s%s%u", fam->fmt,
			       fam->fmt[strlen(fam->fmt) - 1] >= '0' &&
					       fam->fmt[strlen(fam->fmt) - 1] <= '9' ? "p" : "",
			       num);
	else
		len = snprintf(buf, NAME_MAX_LEN + 1, "%s%u", fam->fmt, num);
	if (variant)
		len += snprintf(buf + len, NAME_MAX_LEN + 1 - (size_t)len, "_%u", variant);
	return (size_t)len;
}

static const char *const type_names[SPECIAL_TYPES] = { "fifo", "socket", "chardev", "blockdev" };

const char *plan_special_type_name(unsigned type)
{
	return type < SPECIAL_TYPES ? type_names[type] : "?";
}

uint8_t plan_special_draw_kind(struct rng *r)
{
	double u = rng_uniform(r), acc = 0;
	unsigned t;

	for (t = 0; t + 1 < SPECIAL_TYPES; t++) {
		acc += type_share[t];
		if (u < acc)
			break;
	}
	return (uint8_t)(LINK_SPECIAL | (t << 6));
}

/* The device family and number of a node, drawn for (ordinal, variant). */
static const struct dev_family *dev_draw(const struct plan *pl, uint32_t link, unsigned variant,
					 uint32_t *num)
{
	unsigned type = LINK_SPECIAL_TYPE(pl->link_kind[link]);
	uint64_t total = 0, u;
	struct rng r;

	/* the unique variant keeps the last redraw's device, its name gets a suffix */
	if (variant > NAME_VARIANT_REDRAWS)
		variant = NAME_VARIANT_REDRAWS;
	rng_init(&r, pl->prm.seed, "special.dev", (uint64_t)pl->link_target[link] * 8 + variant);
	for (size_t i = 0; i < ARRAY_SIZE(families); i++)
		if (families[i].type == type)
			total += families[i].weight;
	u = rng_below(&r, total);
	for (size_t i = 0; i < ARRAY_SIZE(families); i++) {
		if (families[i].type != type)
			continue;
		if (u < families[i].weight) {
			*num = (uint32_t)rng_below(&r, families[i].count);
			return &families[i];
		}
		u -= families[i].weight;
	}
	*num = 0;
	return &families[0];
}

size_t plan_special_name(const struct plan *pl, uint32_t link, unsigned variant, char *buf)
{
	unsigned type = LINK_SPECIAL_TYPE(pl->link_kind[link]);
	const struct dev_family *fam;
	uint32_t num;
	int len;

	if (pl->link_target[link] & PLAN_DEV_NODE)
		return dev_node_name(pl->link_target[link] & ~PLAN_DEV_NODE, variant, buf);
	if (type == SPECIAL_FIFO || type == SPECIAL_SOCK || pl->prm.name_style == NAMES_NUMERIC)
		return name_make(buf, &pl->names, NAME_LINK, link,
				 type == SPECIAL_SOCK ? "sock" : "", variant);
	fam = dev_draw(pl, link, variant, &num);
	if (fam->naming == FAM_FIXED)
		len = snprintf(buf, NAME_MAX_LEN + 1, "%s", fam->fmt);
	else if (fam->naming == FAM_DISK)
		len = num % 16 ? snprintf(buf, NAME_MAX_LEN + 1, "sd%c%u", 'a' + num / 16, num % 16) :
				 snprintf(buf, NAME_MAX_LEN + 1, "sd%c", 'a' + num / 16);
	else
		len = snprintf(buf, NAME_MAX_LEN + 1, "%s%u", fam->fmt, num);
	if (variant == NAME_VARIANT_UNIQUE)
		len += snprintf(buf + len, NAME_MAX_LEN + 1 - (size_t)len, "_%u",
				pl->link_target[link]);
	return (size_t)len;
}

void plan_special_info(const struct plan *pl, uint32_t link, struct plan_special *s)
{
	static const uint32_t ifmt[SPECIAL_TYPES] = { S_IFIFO, S_IFSOCK, S_IFCHR, S_IFBLK };
	const struct dev_family *fam;
	uint32_t num;

	memset(s, 0, sizeof(*s));
	s->type = LINK_SPECIAL_TYPE(pl->link_kind[link]);
	s->ifmt = ifmt[s->type];
	if (pl->link_target[link] & PLAN_DEV_NODE) {
		fam = dev_node(pl->link_target[link] & ~PLAN_DEV_NODE, &num);
		s->fixed = 1;
		s->perm = fam->perm;
		s->gid = fam->gid;
		if (s->type != SPECIAL_CHR && s->type != SPECIAL_BLK)
			return;
		s->major = fam->major;
		s->minor = fam->minor0 + num;
		return;
	}
	if (s->type != SPECIAL_CHR && s->type != SPECIAL_BLK)
		return;
	fam = dev_draw(pl, link, pl->link_variant[link], &num);
	s->major = fam->major;
	s->minor = fam->minor0 + num;
	s->perm = fam->perm;
	s->gid = fam->gid;
}
