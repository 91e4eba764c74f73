/* bytes.h - fixed-width fields in a byte buffer, little- and big-endian */
#ifndef IMPRINT_BYTES_H
#define IMPRINT_BYTES_H

#include <stdint.h>

/*
 * Store the low 16, 32 or 64 bits of v at p, least significant byte first
 * (put_le*: zip, gzip, tar's binary fields, BMP, GIF, WAV) or most
 * significant first (put_be*: PNG, JPEG).  p needs no alignment.
 */
static inline void put_le16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, v);
	put_le16(p + 2, v >> 16);
}

static inline void put_le64(uint8_t *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static inline void put_be16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, v >> 16);
	put_be16(p + 2, v);
}

#endif
