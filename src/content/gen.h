/* gen.h - typed content generators: one ops struct per format, all pure functions of (file key, offset) */
#ifndef IMPRINT_GEN_H
#define IMPRINT_GEN_H

#include <stddef.h>
#include <stdint.h>

struct content_model;

/*
 * One file as a generator sees it.  Every byte must be a pure function of
 * (key, size, offset): the same whether the file is produced in one call
 * or many, in any order, from any thread.
 */
struct gen_file {
	uint64_t key;                    /* per-file key; derive every draw from it */
	uint64_t file;                   /* plan file id */
	uint64_t size;                   /* exact size in bytes */
	const char *ext;                 /* planned extension, "" for none */
	const struct content_model *cm;  /* shared read-only model (vocabulary, targets) */
};

/*
 * A format.  fill() writes bytes [off, off + len) of the file into buf
 * (off + len <= size) and returns 0 or a negative errno.  Files smaller
 * than min_size cannot be valid in the format; the plan never gives the
 * format's extensions such sizes (see ext_min_size()).
 */
struct gen_ops {
	const char *name;
	uint64_t min_size;
	int (*fill)(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len);
};

/* The formats (src/content/<name>.c). */
extern const struct gen_ops gen_text_ops;    /* txt, log, csv, md, ... (text.c) */
extern const struct gen_ops gen_html_ops;    /* htm, html (text.c) */
extern const struct gen_ops gen_source_ops;  /* c, cpp, h, py, js, java, ... (text.c) */
extern const struct gen_ops gen_json_ops;    /* json (text.c) */
extern const struct gen_ops gen_xml_ops;     /* xml (text.c) */
extern const struct gen_ops gen_png_ops;     /* image.c */
extern const struct gen_ops gen_jpeg_ops;
extern const struct gen_ops gen_gif_ops;
extern const struct gen_ops gen_bmp_ops;
extern const struct gen_ops gen_wav_ops;     /* media.c */
extern const struct gen_ops gen_mp3_ops;
extern const struct gen_ops gen_mp4_ops;
extern const struct gen_ops gen_pdf_ops;     /* archive.c */
extern const struct gen_ops gen_zip_ops;
extern const struct gen_ops gen_gzip_ops;
extern const struct gen_ops gen_tar_ops;
extern const struct gen_ops gen_elf_ops;     /* binary.c */
extern const struct gen_ops gen_pe_ops;
extern const struct gen_ops gen_binary_ops;  /* everything else (binary.c) */

/*
 * Shared building blocks, safe to call from any generator.
 * gen_random(): incompressible bytes of stream (key, off).
 * gen_text_bytes(): bytes [off, off + len) of an endless plain-text stream
 *   of the word model for key (text.c).
 * gen_binary_bytes(): bytes [off, off + len) of "other binary" content for
 *   key, following the model's compressibility, duplicate-block and
 *   zero-block targets (binary.c).
 */
void gen_random(uint64_t key, uint64_t off, uint8_t *buf, size_t len);
void gen_text_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		    size_t len);
void gen_binary_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		      size_t len);

/* CRC-32 (zlib's) and Adler-32 over a buffer, continuing from crc/adler. */
uint32_t gen_crc32(uint32_t crc, const uint8_t *buf, size_t len);
uint32_t gen_adler32(uint32_t adler, const uint8_t *buf, size_t len);

#endif
