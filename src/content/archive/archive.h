/* archive.h - internal to archive/: the members, deflate streams and helpers the formats share */
#ifndef IMPRINT_CONTENT_ARCHIVE_ARCHIVE_H
#define IMPRINT_CONTENT_ARCHIVE_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "content/gen.h"
#include "content/model.h"
#include "util/bytes.h"
#include "util/rng.h"

#define MIN(a, b)     ((a) < (b) ? (a) : (b))
#define MAX(a, b)     ((a) > (b) ? (a) : (b))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Salts: each kind of draw of a file comes from (key ^ salt, index), never twice the same. */
#define SALT_NAME   UINT64_C(0x8E6E9A5CB2D1F0A7)
#define SALT_SIZE   UINT64_C(0x5A2B7C19E4D3F681)
#define SALT_FILE   UINT64_C(0x2B9F4E6A1C7D3058)
#define SALT_MEMBER UINT64_C(0xD4C3B2A1F0E9D8C7)
#define SALT_PDF    UINT64_C(0x1F2E3D4C5B6A7988)
#define SALT_PAGE   UINT64_C(0x7A6B5C4D3E2F1009)
#define SALT_IMAGE  UINT64_C(0x3C5A7E9B1D2F4861)
#define SALT_GZIP   UINT64_C(0x6D8F0A2C4E6B8D1F)
#define SALT_DFL    UINT64_C(0x9B3E5C7A1F2D4E60)

/* Smallest valid files (see the layouts below). */
#define PDF_MIN	 635u
#define ZIP_MIN	 128u
#define GZIP_MIN 32u
#define TAR_MIN	 1536u

/* Dates of archive members and documents: 2008 to 2023. */
#define TIME_BASE UINT32_C(1199145600)
#define TIME_SPAN UINT32_C(504576000)

/* The part of request [off, off + len) inside region [start, start + n), if any. */
bool archive_clip(uint64_t start, uint64_t n, uint64_t off, size_t len, uint64_t *from,
		  size_t *cnt);

/* Copy into the request the part it covers of a rendered region (n bytes at file offset start). */
void archive_put_region(const void *src, uint64_t start, uint64_t n, uint64_t off, uint8_t *buf,
			size_t len);

/* Decimal digits of v. */
unsigned int archive_ndigits(uint64_t v);

/* floor(sqrt(v)), exactly. */
uint64_t archive_isqrt64(uint64_t v);

/* Little-endian fields: put_le16, put_le32, put_le64 (util/bytes.h). */

/* The key of draw i of a kind (salt) of a file of key `key`. */
uint64_t archive_sub_key(uint64_t key, uint64_t salt, uint64_t i);

/* Append formatted text at s + n (never past cap - 1, always terminated): the new length. */
size_t archive_catf(char *s, size_t n, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* A fairly common word (not one of the commonest) of the model's vocabulary. */
const char *archive_pick_word(const struct content_model *cm, struct rng *r);

/* MS-DOS time and date (ZIP) of a Unix time. */
void archive_dos_time(uint32_t t, uint16_t *time, uint16_t *date);

#define ENTRY_NAME_MAX 99 /* ustar's name field, without its prefix */
#define FILES_MAX      1024u
#define DIRS_MIN       8192u /* smaller archives hold files only */
#define NAME_SLOTS     4096u /* hash slots for duplicate names, > 2 x entries */

/* ENTRY_RANDOM: incompressible bytes (the already compressed members of a ZIP, stored) */
enum entry_kind { ENTRY_DIR, ENTRY_TEXT, ENTRY_BINARY, ENTRY_TAR, ENTRY_RANDOM };

struct entry {
	uint64_t size;	 /* data bytes (0 for a directory) */
	uint64_t csize;	 /* bytes in the archive (ZIP: deflated or stored) */
	uint64_t key;	 /* content key */
	uint64_t off;	 /* the entry's header in the archive */
	uint32_t crc;	 /* valid when has_crc */
	uint32_t mtime;	 /* seconds since the epoch */
	uint32_t weight; /* share of the data, while sizes are dealt */
	uint8_t kind;	 /* enum entry_kind */
	uint8_t has_crc;
	uint8_t fixed; /* size capped while sizes are dealt */
	uint8_t name_len;
	uint8_t method; /* ZIP: 0 stored, 8 deflated */
	char name[ENTRY_NAME_MAX + 1];
};

struct entries {
	struct entry *e;
	unsigned int n;
};

/*
 * What a format leaves for member data once its headers are paid for, in
 * its units (bytes for ZIP, 512-byte blocks for tar); negative when the
 * entries do not fit.
 */
struct entries_fmt {
	int64_t (*left)(const struct entries *es, uint64_t size);
	uint64_t part_max;   /* most units in one member */
	bool blocks;	     /* units are 512-byte blocks */
	bool text_only;	     /* every file is text (the tar of a gzip) */
	uint64_t file_bytes; /* if not 0: a file for every file_bytes */
};

/* The members of archive g; es->e is the caller's to free. */
int archive_entries_build(const struct gen_file *g, const struct entries_fmt *fmt,
			  struct entries *es);

/* The archive a member of kind ENTRY_TAR is (its entries prebuilt). */
struct inner_tar {
	struct gen_file g;
	struct entries es;
};

/* Bytes [at, at + len) of a member's data (inner: its archive, for ENTRY_TAR). */
int archive_entry_bytes(const struct gen_file *g, const struct entry *e,
			const struct inner_tar *inner, uint64_t at, uint8_t *buf, size_t len);

/* The CRC-32 of a whole member (made once, in CRC_CHUNK pieces into *scratch). */
int archive_entry_crc(const struct gen_file *g, struct entry *e, const struct inner_tar *inner,
		      uint8_t **scratch);

#define DFL_SLOT       (128u << 10)
#define DFL_LEVEL      1
#define DFL_FINAL      2u /* the final empty fixed-code block */
#define DFL_STORED_MAX 65535u
#define DFL_MARGIN     32u /* bytes above a slot's calibrated length */
#define DFL_MIN	       16u /* shortest stream: smaller members are stored */
#define DFL_SAMPLES    6u
#define DFL_RATIO_MIN  0.25 /* data at most 4 times its stream (the "repeat" text mode) */
#define DFL_IN_MAX     (DFL_SLOT + 4096u)
#define DFL_OUT_MAX    (2 * DFL_SLOT + 4096u)

/* Bits of the literal-only deflate block of in[0, u) (huff.c), its end code included. */
uint64_t archive_huff_bits(const uint8_t *in, uint64_t u);

/*
 * in[0, u) as a literal-only block, padded by empty blocks to exactly len
 * bytes of out (which has room for len + 8): 0, 1 when it does not fit,
 * -EIO on an internal error.
 */
int archive_huff_slot(const uint8_t *in, uint64_t u, uint64_t len, uint8_t *out);

/* Where a stream's bytes are: full slots, then the last slot, then the final block. */
struct dfl_geom {
	uint64_t n;	 /* data bytes */
	uint64_t full;	 /* slots of DFL_SLOT data bytes */
	uint64_t c_full; /* bytes of a full slot */
	uint64_t u_last; /* data bytes of the last slot */
	uint64_t c_last; /* bytes of the last slot */
	unsigned int nb_last;
	bool stored_full, stored_last;
};

/*
 * The geometry of a stream of d >= 7 bytes: the most data that fits.
 * zeros: bytes of zeros that end the data (a tar's end blocks), which the
 * last slot takes beyond what its text would fill when it is deflated.
 */
void archive_dfl_geom(const struct content_model *cm, uint64_t d, uint64_t zeros,
		      struct dfl_geom *dg);

/* A compressor and its buffers, for one request. */
struct dfl_work {
	z_stream z;
	bool ready, z_ready;
	uint8_t *in, *out;
};

/* Free the compressor and buffers (archive_dfl_fill() sets them up on first use). */
void archive_dfl_work_release(struct dfl_work *w);

/*
 * Bytes [at, at + len) of the stream dg of entry e's data.  crc, when not
 * NULL, gets the CRC-32 of all the data: the request must hold the whole
 * stream.
 */
int archive_dfl_fill(const struct gen_file *g, const struct entry *e, const struct inner_tar *inner,
		     const struct dfl_geom *dg, struct dfl_work *w, uint64_t at, uint8_t *buf,
		     size_t len, uint32_t *crc);

#define TAR_BLOCK    512u
#define TAR_PART_MAX ((UINT64_C(8) << 30) / TAR_BLOCK - 1)

/* Blocks a tar of `size` bytes leaves for data after the headers of es and the end blocks. */
int64_t archive_tar_left(const struct entries *es, uint64_t size);

#endif
