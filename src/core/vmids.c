/* vmids.c - what qemu-img draws at random in a VMDK or VHDX, drawn from the seed instead, so that the same options give the same bytes */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vmids.h"
#include "util/rng.h"

/* The descriptor of a monolithic sparse VMDK: where the header says, at most this long. */
#define VMDK_MAGIC    0x564d444bU /* "KDMV" */
#define VMDK_DESC_MAX (64 * 1024)

/* A little-endian field of a header. */
static uint64_t le_field(const unsigned char *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

int vmids_vmdk(int fd, uint64_t seed)
{
	static char desc[VMDK_DESC_MAX + 1], out[VMDK_DESC_MAX + 1];
	unsigned char hdr[44];
	uint64_t off, size;
	char *cid, *eol;
	struct rng r;
	int n;

	if (pread(fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) || le_field(hdr, 4) != VMDK_MAGIC)
		return -EPROTO;
	off = le_field(hdr + 28, 8) * 512;
	size = le_field(hdr + 36, 8) * 512;
	if (!off || !size || size > VMDK_DESC_MAX)
		return -EPROTO;
	if (pread(fd, desc, size, (off_t)off) != (ssize_t)size)
		return -EIO;
	desc[size] = '\0';
	cid = strstr(desc, "\nCID=");
	eol = cid ? strchr(cid + 1, '\n') : NULL;
	if (!eol)
		return -EPROTO;
	rng_init(&r, seed, "vmdk_cid", 0);
	memset(out, 0, sizeof(out));
	/* 0xffffffff means "no parent" in parentCID: keep clear of it */
	n = snprintf(out, sizeof(out), "%.*s\nCID=%08x%s", (int)(cid - desc), desc,
		     (unsigned)(rng_next(&r) % 0xffffffffU), eol);
	if (n < 0 || (size_t)n > size)
		return -EPROTO;
	return pwrite(fd, out, size, (off_t)off) == (ssize_t)size ? 0 : -EIO;
}

/*
 * VHDX: qemu-img draws the two headers' sequence number, file and data
 * write GUIDs, the log's GUID and the virtual disk ID at random; the
 * structures are little-endian and checksummed with CRC-32C.
 */
#define VHDX_HDR1      (64 * 1024)
#define VHDX_HDR2      (128 * 1024)
#define VHDX_REGIONS   (192 * 1024)
#define VHDX_BLOCK     4096
#define VHDX_LOG_ENTRY 4096 /* entries start on 4 KiB boundaries */

/* The metadata region's and the virtual disk ID item's GUIDs, as stored. */
static const unsigned char vhdx_metadata_guid[16] = { 0x06, 0xa2, 0x7c, 0x8b, 0x90, 0x47, 0x9a, 0x4b,
						      0xb8, 0xfe, 0x57, 0x5f, 0x05, 0x0f, 0x88, 0x6e };
static const unsigned char vhdx_disk_id_guid[16] = { 0xab, 0x12, 0xca, 0xbe, 0xe6, 0xb2, 0x23, 0x45,
						     0x93, 0xef, 0xc3, 0x09, 0xe0, 0x00, 0xc7, 0x46 };

/* CRC-32C (Castagnoli, reflected), as VHDX checksums its structures. */
static uint32_t crc32c(const unsigned char *p, size_t n)
{
	uint32_t crc = 0xffffffffU;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0x82f63b78U & (0U - (crc & 1)));
	}
	return ~crc;
}

static void put_le(unsigned char *p, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* A version 4 GUID of 16 bytes from the seed's stream name, index i. */
static void seed_guid(uint64_t seed, const char *name, uint64_t i, unsigned char g[16])
{
	struct rng r;

	rng_init(&r, seed, name, i);
	put_le(g, rng_next(&r), 8);
	put_le(g + 8, rng_next(&r), 8);
	g[7] = (unsigned char)((g[7] & 0x0f) | 0x40);
	g[8] = (unsigned char)((g[8] & 0x3f) | 0x80);
}

/* Set the CRC-32C of the n bytes at b, its field at b + 4 counted as zero. */
static void vhdx_checksum(unsigned char *b, size_t n)
{
	put_le(b + 4, 0, 4);
	put_le(b + 4, crc32c(b, n), 4);
}

/* Whether all n bytes at off were read into b. */
#define VHDX_IO(fd, b, n, off) (pread((fd), (b), (n), (off_t)(off)) == (ssize_t)(n))

/* The two headers: their sequence numbers (in order) and write GUIDs from seed. */
static int vhdx_headers(int fd, uint64_t seed, uint64_t *log_off, uint64_t *log_len)
{
	static unsigned char h[2][VHDX_BLOCK];
	const uint64_t at[2] = { VHDX_HDR1, VHDX_HDR2 };
	uint64_t seq[2], low, base;
	int same_file, same_data;
	struct rng r;

	for (int i = 0; i < 2; i++) {
		if (!VHDX_IO(fd, h[i], VHDX_BLOCK, at[i]) || memcmp(h[i], "head", 4))
			return -EPROTO;
		seq[i] = le_field(h[i] + 8, 8);
		for (int k = 48; k < 64; k++)
			if (h[i][k]) /* a log to replay: not what qemu-img leaves */
				return -EPROTO;
	}
	*log_len = le_field(h[0] + 68, 4);
	*log_off = le_field(h[0] + 72, 8);
	low = seq[0] < seq[1] ? seq[0] : seq[1];
	rng_init(&r, seed, "vhdx_sequence", 0);
	base = rng_next(&r) >> 16; /* room above for the numbers that follow */

	/* GUIDs the two headers share stay shared; those that differ (the newer header's) differ */
	same_file = !memcmp(h[0] + 16, h[1] + 16, 16);
	same_data = !memcmp(h[0] + 32, h[1] + 32, 16);
	for (int i = 0; i < 2; i++) {
		put_le(h[i] + 8, base + (seq[i] - low), 8);
		seed_guid(seed, "vhdx_file_write_guid", same_file ? 0 : seq[i] - low, h[i] + 16);
		seed_guid(seed, "vhdx_data_write_guid", same_data ? 0 : seq[i] - low, h[i] + 32);
		vhdx_checksum(h[i], VHDX_BLOCK);
		if (pwrite(fd, h[i], VHDX_BLOCK, (off_t)at[i]) != VHDX_BLOCK)
			return -EIO;
	}
	return 0;
}

/* The log's entries (inactive: the headers' log GUID is zero) take the seed's log GUID. */
static int vhdx_log(int fd, uint64_t seed, uint64_t off, uint64_t len)
{
	unsigned char *e = NULL;
	unsigned char head[VHDX_LOG_ENTRY];
	int ret = 0;

	for (uint64_t at = 0; at + VHDX_LOG_ENTRY <= len && !ret;) {
		uint64_t n;

		if (!VHDX_IO(fd, head, sizeof(head), off + at))
			return -EIO;
		n = le_field(head + 8, 4);
		if (memcmp(head, "loge", 4) || n < VHDX_LOG_ENTRY || n % VHDX_LOG_ENTRY ||
		    n > len - at) {
			at += VHDX_LOG_ENTRY;
			continue;
		}
		e = malloc(n);
		if (!e)
			return -ENOMEM;
		if (!VHDX_IO(fd, e, n, off + at))
			ret = -EIO;
		if (!ret) {
			seed_guid(seed, "vhdx_log_guid", 0, e + 32);
			vhdx_checksum(e, n);
			if (pwrite(fd, e, n, (off_t)(off + at)) != (ssize_t)n)
				ret = -EIO;
		}
		free(e);
		at += n;
	}
	return ret;
}

/* The virtual disk ID item of the metadata region, found through the region table. */
static int vhdx_disk_id(int fd, uint64_t seed)
{
	static unsigned char b[64 * 1024];
	uint64_t meta = 0, count;

	if (!VHDX_IO(fd, b, VHDX_BLOCK, VHDX_REGIONS) || memcmp(b, "regi", 4))
		return -EPROTO;
	count = le_field(b + 8, 4);
	for (uint64_t i = 0; i < count && 16 + 32 * (i + 1) <= VHDX_BLOCK; i++)
		if (!memcmp(b + 16 + 32 * i, vhdx_metadata_guid, 16))
			meta = le_field(b + 16 + 32 * i + 16, 8);
	if (!meta || !VHDX_IO(fd, b, sizeof(b), meta) || memcmp(b, "metadata", 8))
		return -EPROTO;
	count = le_field(b + 10, 2);
	for (uint64_t i = 0; i < count && 32 + 32 * (i + 1) <= sizeof(b); i++) {
		const unsigned char *it = b + 32 + 32 * i;
		unsigned char g[16];

		if (memcmp(it, vhdx_disk_id_guid, 16) || le_field(it + 20, 4) != 16)
			continue;
		seed_guid(seed, "vhdx_disk_id", 0, g);
		return pwrite(fd, g, 16, (off_t)(meta + le_field(it + 16, 4))) == 16 ? 0 : -EIO;
	}
	return -EPROTO;
}

int vmids_vhdx(int fd, uint64_t seed)
{
	uint64_t log_off, log_len;
	int ret;

	ret = vhdx_headers(fd, seed, &log_off, &log_len);
	if (!ret)
		ret = vhdx_log(fd, seed, log_off, log_len);
	if (!ret)
		ret = vhdx_disk_id(fd, seed);
	return ret;
}
