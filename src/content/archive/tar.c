/* tar.c - tar (ustar) archives, and the bytes of a member, which may itself be a tar */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/archive/archive.h"

/* A member's bytes are made this many at a time when its whole CRC-32 is needed. */
#define CRC_CHUNK (256u << 10)

static int tar_fill_entries(const struct gen_file *g, const struct entries *es, uint64_t off,
			    uint8_t *buf, size_t len);

int archive_entry_bytes(const struct gen_file *g, const struct entry *e,
			const struct inner_tar *inner, uint64_t at, uint8_t *buf, size_t len)
{
	switch (e->kind) {
	case ENTRY_TEXT:
		gen_text_bytes(g->cm, e->key, at, buf, len);
		if (len && at + len == e->size)
			buf[len - 1] = '\n';
		return 0;
	case ENTRY_BINARY:
		gen_binary_bytes(g->cm, e->key, at, buf, len);
		return 0;
	case ENTRY_TAR:
		return tar_fill_entries(&inner->g, &inner->es, at, buf, len);
	case ENTRY_RANDOM:
		gen_random(e->key, at, buf, len);
		return 0;
	default:
		memset(buf, 0, len);
		return 0;
	}
}

int archive_entry_crc(const struct gen_file *g, struct entry *e, const struct inner_tar *inner,
		      uint8_t **scratch)
{
	uint32_t crc = 0;
	int ret;

	if (e->has_crc)
		return 0;
	if (e->size && !*scratch) {
		*scratch = malloc(CRC_CHUNK);
		if (!*scratch)
			return -ENOMEM;
	}
	for (uint64_t at = 0; at < e->size;) {
		size_t n = (size_t)MIN((uint64_t)CRC_CHUNK, e->size - at);

		ret = archive_entry_bytes(g, e, inner, at, *scratch, n);
		if (ret)
			return ret;
		crc = gen_crc32(crc, *scratch, n);
		at += n;
	}
	e->crc = crc;
	e->has_crc = 1;
	return 0;
}

/* ------------------------------------------------------------------------- */
/*
 * tar (POSIX ustar): a 512-byte header per member, its data padded with
 * zeros to 512 bytes, then the end of the archive: two zero blocks.  An
 * archive is whole blocks, so a planned size that is not a multiple of 512
 * ends with its remainder (1 to 511 bytes) of zeros after the two zero
 * blocks, as a short last record: GNU tar, bsdtar and Python's tarfile
 * read that without a word, while they complain about anything short
 * before the end blocks.  Hence the floor of three blocks (a member
 * header and the end), 1536 bytes.  Members stay under ustar's 8 GiB.
 */

static const char *const tar_users[] = {
	"alice", "bob",	 "carol", "dave", "emma",  "frank", "grace", "henry",
	"irene", "jack", "karen", "leo",  "maria", "nick",  "olga",  "paul",
};

int64_t archive_tar_left(const struct entries *es, uint64_t size)
{
	return (int64_t)(size / TAR_BLOCK) - 2 - es->n;
}

static const struct entries_fmt tar_fmt = {
	.left = archive_tar_left,
	.part_max = TAR_PART_MAX,
	.blocks = true,
};

static void tar_header(const struct gen_file *g, const struct entry *e, uint8_t *h)
{
	bool dir = e->kind == ENTRY_DIR;
	unsigned int user = (unsigned int)(rng_mix64(g->key ^ SALT_NAME) % ARRAY_SIZE(tar_users));
	unsigned int sum = 0;
	char *c = (char *)h;

	memset(h, 0, TAR_BLOCK);
	memcpy(c, e->name, e->name_len);
	snprintf(c + 100, 8, "%07o", dir ? 0755u : 0644u);
	snprintf(c + 108, 8, "%07o", 1000u + user);
	snprintf(c + 116, 8, "%07o", 100u);
	snprintf(c + 124, 12, "%011llo", (unsigned long long)e->size);
	snprintf(c + 136, 12, "%011llo", (unsigned long long)e->mtime);
	memset(c + 148, ' ', 8);
	c[156] = dir ? '5' : '0';
	memcpy(c + 257, "ustar", 6);
	memcpy(c + 263, "00", 2);
	snprintf(c + 265, 32, "%s", tar_users[user]);
	snprintf(c + 297, 32, "%s", "users");
	snprintf(c + 329, 8, "%07o", 0u);
	snprintf(c + 337, 8, "%07o", 0u);
	for (unsigned int i = 0; i < TAR_BLOCK; i++)
		sum += h[i];
	snprintf(c + 148, 8, "%06o", sum);
	c[155] = ' ';
}

/* Bytes [off, off + len) of tar g whose members are es. */
static int tar_fill_entries(const struct gen_file *g, const struct entries *es, uint64_t off,
			    uint8_t *buf, size_t len)
{
	uint8_t h[TAR_BLOCK];
	uint64_t pos = 0, from;
	size_t cnt;
	int ret;

	/* padding, the end blocks and the remainder are zeros */
	memset(buf, 0, len);
	for (unsigned int i = 0; i < es->n && pos < off + len; i++) {
		const struct entry *e = &es->e[i];
		uint64_t data = pos + TAR_BLOCK;

		if (archive_clip(pos, TAR_BLOCK, off, len, &from, &cnt)) {
			tar_header(g, e, h);
			archive_put_region(h, pos, TAR_BLOCK, off, buf, len);
		}
		if (archive_clip(data, e->size, off, len, &from, &cnt)) {
			ret = archive_entry_bytes(g, e, NULL, from - data, buf + (from - off), cnt);
			if (ret)
				return ret;
		}
		pos = data + (e->size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;
	}
	return 0;
}

static int tar_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	struct entries es;
	int ret;

	ret = gen_check_request(g, TAR_MIN, off, len);
	if (ret || !len)
		return ret;
	ret = archive_entries_build(g, &tar_fmt, &es);
	if (ret)
		return ret;
	ret = tar_fill_entries(g, &es, off, buf, len);
	free(es.e);
	return ret;
}

const struct gen_ops gen_tar_ops = {
	.name = "tar",
	.min_size = TAR_MIN,
	.fill = tar_fill,
};
