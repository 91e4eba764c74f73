/* gen.h - typed content generators: one ops struct per format, all pure functions of (file key, offset) */
#ifndef IMPRINT_GEN_H
#define IMPRINT_GEN_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

struct content_model;
struct gen_memo;

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
	struct gen_memo *memo;           /* NULL, or the record of a file made in parts (below) */
	int32_t boost;                   /* text: recurrence moved toward a profile's ratio
					    (ext_content, content/extc.h), -65535..65535; 0: the
					    format's own (pdf, jpeg, gif: their own knobs of
					    the ratio, see there; gif's goes on down to
					    GEN_GIF_BOOST_LEAST) */
	uint32_t fresh;                  /* text: words, names and numbers made new to the
					    file (not of the vocabulary) by fresh / 65536, to
					    reach a profile's distinct words (0..65535; 0: none) */
	uint32_t narrow;                 /* text: a word or name is one of the last few the
					    file drew by narrow / 65536, to come down to a
					    profile's distinct words (0..65535; 0: never) */
	/*
	 * A shared prefix (typed formats of a profile's ext_content with a
	 * duplicate-block share, content/extc.c): bytes [0, plen) are the
	 * same in every file of the group of key pkey, the rest the file's
	 * own, the format valid (its sums over each file's own bytes).
	 * psize: the group's smallest size (a PNG's image takes it).  plen 0:
	 * none, the format's own bytes.
	 */
	uint64_t pkey, plen, psize;
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
	/*
	 * 1: a file is made by one thread, never in parts (PNG: its Adler-32
	 * trailer would cost the part that holds it a pass over the image).
	 */
	int whole;
	int (*fill)(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len);
};

/* 0 when the file can be valid (size >= min) and [off, off + len) lies in it, else -EINVAL. */
static inline int gen_check_request(const struct gen_file *g, uint64_t min, uint64_t off,
				    size_t len)
{
	if (g->size < min || off > g->size || len > g->size - off)
		return -EINVAL;
	return 0;
}

/* The formats (src/content/<name>.c). */
extern const struct gen_ops gen_text_ops;    /* txt, log, csv, md, ... (text/) */
extern const struct gen_ops gen_html_ops;    /* htm, html (text/) */
extern const struct gen_ops gen_source_ops;  /* c, cpp, h, py, js, java, ... (text/) */
extern const struct gen_ops gen_json_ops;    /* json (text/) */
extern const struct gen_ops gen_xml_ops;     /* xml (text/) */
extern const struct gen_ops gen_png_ops;     /* image/ */
extern const struct gen_ops gen_jpeg_ops;
extern const struct gen_ops gen_gif_ops;
/*
 * gif's boost: -65535..0 the share of noise runs, below it every run noise
 * and a share of codes references to the string table, down to all
 * (image/gif.c)
 */
#define GEN_GIF_BOOST_LEAST (-2 * 65535)
/*
 * source code's (gen_source_ops, text/code.c): -65535..0 the recurrence
 * toward none, below it variety (more distinct names, numbers and
 * statements), down to all
 */
#define GEN_SOURCE_BOOST_LEAST (-2 * 65535)
extern const struct gen_ops gen_bmp_ops;
extern const struct gen_ops gen_wav_ops;     /* media/ */
extern const struct gen_ops gen_mp3_ops;
extern const struct gen_ops gen_mp4_ops;
extern const struct gen_ops gen_pdf_ops;     /* archive/ */
extern const struct gen_ops gen_zip_ops;
extern const struct gen_ops gen_gzip_ops;
extern const struct gen_ops gen_tar_ops;
extern const struct gen_ops gen_elf_ops;     /* exec.c */
extern const struct gen_ops gen_pe_ops;
extern const struct gen_ops gen_mo_ops;      /* gettext catalogues (mo.c) */
extern const struct gen_ops gen_binary_ops;  /* everything else (binary.c) */
/* record lines, plain and XML/SVG: only profiles' calibrated extensions (text/lines.c, content/extc.c) */
extern const struct gen_ops gen_lines_ops;
extern const struct gen_ops gen_lines_xml_ops;

/*
 * Shared building blocks, safe to call from any generator.
 * gen_random(): incompressible bytes of stream (key, off).
 * gen_text_bytes(): bytes [off, off + len) of an endless plain-text stream
 *   of the word model for key (text/).
 * gen_binary_bytes(): bytes [off, off + len) of "other binary" content for
 *   key, following the model's compressibility, duplicate-block and
 *   zero-block targets (binary.c).
 */
void gen_random(uint64_t key, uint64_t off, uint8_t *buf, size_t len);
void gen_text_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		    size_t len);
void gen_binary_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		      size_t len);

/*
 * A file made in parts by several threads at once (content_split_begin(),
 * content/source.h) shares a memo.  A part records the CRC-32 of the
 * member bytes it made (gen_memo_sum(): bytes [at, at + len) of the
 * member of key `member`); a field that sums a whole member (a ZIP
 * header's CRC-32, a gzip trailer) is taken from the memo when the parts
 * made so far cover the member (gen_memo_crc() returns 1), else left to
 * the fixup: gen_memo_defer() records the file's bytes [off, off + len)
 * and returns 1, and the part leaves them zero.  Once every part is made,
 * the fixup makes the deferred ranges again: gen_memo_defer() then returns
 * 0 (as it does without a memo), and the generator finds the sums in the
 * memo or, failing that, computes them (the fixup's own sums are not
 * recorded: it may make bytes the parts made, cut elsewhere).  The bytes
 * are the same as a one-call fill's in every case.
 */
void gen_memo_sum(struct gen_memo *m, uint64_t member, uint64_t at, uint64_t len, uint32_t crc);
int gen_memo_crc(struct gen_memo *m, uint64_t member, uint64_t size, uint32_t *crc);
int gen_memo_defer(struct gen_memo *m, uint64_t off, uint64_t len);

/* CRC-32 (zlib's) and Adler-32 over a buffer, continuing from crc/adler. */
uint32_t gen_crc32(uint32_t crc, const uint8_t *buf, size_t len);
uint32_t gen_adler32(uint32_t adler, const uint8_t *buf, size_t len);

/*
 * The binary part of the content model (binary.c), built by
 * content_model_init() once cm->seed, cm->pl, compress_ratio,
 * dup_block_share and zero_block_share are set.  Builds cm->binary_priv:
 * the mixing parameter of unique blocks (from a fixed calibration table)
 * and the shared duplicate pool, sized from the plan's distinct files
 * (round(full blocks x dup_block_share / 32) blocks; 4 GiB of blocks
 * assumed when cm->pl is NULL).  Returns 0, -EINVAL (ratio below 1, a
 * share outside [0, 1], or the two shares above 1 together) or -ENOMEM.
 * Until it has run, gen_binary_bytes() gives incompressible bytes.
 *
 * What the shares mean, for measuring them: over the full 4 KiB blocks
 * (at file offsets multiple of 4096) of the files of "other binary"
 * content, each set of whole-file copies counted once, zero_block_share
 * is the share of all-zero blocks and dup_block_share the share of
 * non-zero blocks whose content occurs more than once, every occurrence
 * counted (the first one too).  compress_ratio is that of whole files,
 * zero and duplicate blocks included (zlib -6 and zstd -3 both, within
 * 5% for 1 to 4 on files of 64 KiB and more).
 */
int content_binary_init(struct content_model *cm);
void content_binary_release(struct content_model *cm);

/*
 * How other-binary blocks are dealt once content_binary_init() has run:
 * the share of 4 KiB blocks that are zero and that are drawn from the
 * shared pool (after the cap that keeps their sum at most 1), and the
 * pool's size in blocks (sized for every block of the plan's distinct
 * files, so a group of few blocks draws each pool block fewer times).
 * All 0 before content_binary_init().
 */
struct content_binary_deal {
	double zero_share, dup_share;
	uint64_t pool_blocks;
};
void content_binary_deal(const struct content_model *cm, struct content_binary_deal *d);

/*
 * The text part of the model (text/sampler.c), built once the vocabulary,
 * zipf_exponent and text_mode are set: the Zipf inverse-CDF tables and
 * the words by length.  Needs at least one word of every length
 * 1..CONTENT_WORD_MAX.  Until it has run, the text generators fail with
 * -EINVAL (gen_text_bytes() gives spaces).  Returns 0, -EINVAL or -ENOMEM.
 */
int content_text_init(struct content_model *cm);
void content_text_release(struct content_model *cm);

/*
 * The archive part (archive/deflate.c), built once the text part is: the
 * deflated size of samples of the model's text by size band, which gives
 * the geometry of the deflate streams of ZIP and gzip files.  Returns 0,
 * -ENOMEM or -EIO.
 */
int content_archive_init(struct content_model *cm);

#endif
