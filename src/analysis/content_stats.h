/* content_stats.h - achieved content statistics of a set of files: compressibility, duplicates, zero blocks, types */
#ifndef IMPRINT_CONTENT_STATS_H
#define IMPRINT_CONTENT_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What a content report measures, file by file, from the bytes alone (and
 * the file's name, for its extension).  The figures do not depend on the
 * order in which the files are fed, so an image read through libext2fs and
 * the same tree read through a mount give the same report (one exception:
 * identical files whose extensions fall in different groups count their
 * blocks in the group of the one fed first).
 *
 * Definitions (doc/model.md, "The content report"), chosen to match the
 * targets' (src/content/gen.h, content_binary_init()):
 *
 * - dup_file_share: (files - distinct file contents) / files: every file
 *   whose content equals another file's, except one file per content
 *   ("all but the first occurrence"), as the plan's whole-file copies.
 *   Empty files are a content like any other.
 * - Everything else is measured over distinct files: of a set of
 *   identical files, only one counts (whole-file copies are
 *   dup_file_share's, not the blocks' or the compressor's).
 * - blocks: the full 4 KiB blocks of a file at offsets 0, 4096, ...; a
 *   file's last partial block is not a block.  A block wholly inside the
 *   file's holes (content_stats_hole(): bytes no block of the file system
 *   maps, which read as zeros) is a hole block, not a block: hole blocks
 *   are counted on their own and are never zero or duplicate blocks.
 * - zero_block_share: all-zero blocks / blocks (written zero blocks).
 * - dup_block_share: blocks whose non-zero content occurs in more than one
 *   block, every occurrence counted (the first one too) / blocks.
 *   dedup_block_share, what block-level dedup saves, counts all but one
 *   occurrence per content.  Zero blocks are never duplicates.
 * - compression ratio: sampled bytes / compressed bytes, each 1 MiB
 *   segment of a file (at offsets 0, 1 MiB, ...) compressed on its own as
 *   one zlib stream (level 6) and as one zstd frame (level 3), summed over
 *   the sampled segments; a segment is its bytes outside the holes (a
 *   segment wholly in holes is none).  A segment is sampled when a hash of (path,
 *   segment index) falls below sample_share.
 * - typed files: files whose extension names a format imprint generates
 *   (png, jpg, gif, bmp, wav, mp3, mp4, pdf, zip, gz, tar, elf: so, o, ko,
 *   pe: exe, dll, sys); identified when libmagic's MIME type of the first
 *   64 KiB is one of that format's types.  Type figures count every file.
 *
 * The group of a file comes from its extension (content_group_of_ext()).
 * A report's headline figures are those of the other-binary group, the
 * population the targets are set for, and dup_file_share that of all files.
 */

struct json_object;

/* Groups of files, by the generator of their extension (content_ext_ops()). */
enum content_group {
	CONTENT_TEXT,     /* text, html, source, json, xml */
	CONTENT_MEDIA,    /* png, jpeg, gif, bmp, wav, mp3, mp4 */
	CONTENT_ARCHIVE,  /* pdf, zip, gzip, tar and any other typed format */
	CONTENT_EXEC,     /* elf, pe */
	CONTENT_BINARY,   /* "other binary": everything else, no extension included */
	CONTENT_GROUPS
};

/* Figures of one group (or of all files); duplicates within the group. */
struct content_group_stats {
	uint64_t files;           /* every file */
	uint64_t bytes;
	uint64_t dup_files;       /* files - distinct contents */
	/* the rest over distinct files */
	uint64_t blocks;          /* full 4 KiB blocks, hole blocks aside */
	uint64_t hole_blocks;     /* full 4 KiB blocks wholly in holes */
	uint64_t zero_blocks;
	uint64_t dup_blocks;      /* blocks of a repeated non-zero content, every occurrence */
	uint64_t dedup_blocks;    /* the same, all but one occurrence per content */
	uint64_t sampled_bytes;   /* bytes in compressed segments */
	uint64_t zlib_bytes;      /* their zlib size */
	uint64_t zstd_bytes;      /* their zstd size */
};

/* Files and bytes of one MIME type. */
struct content_mime {
	char *type;
	uint64_t files;
	uint64_t bytes;
};

/* A typed file that libmagic did not identify as its type. */
struct content_miss {
	char *path;
	char *got;
};

#define CONTENT_MAX_MISSES 16

/*
 * Figures of one extension (case kept, "" none: content_ext_of_path_case()),
 * as for a group but with duplicates across all files: a copy or a block
 * seen before in any file counts for the extension of the file it is met
 * in (dup_blocks: dedup_blocks plus the first occurrence when it was in a
 * file of the same extension).  text_files: distinct files whose first
 * 8 KiB hold no NUL byte and are UTF-8 (a character cut at the end aside).
 * words_kib, words_bytes: over those text files, the sum of size times
 * distinct words per KiB of the file's head (util/words.h), and the sum of
 * sizes: content_words_per_kib() is the one by the other.
 */
#define CONTENT_EXT_MAX 256
struct content_ext_stats {
	char ext[16];
	struct content_group_stats g;
	uint64_t text_files;
	uint64_t distinct_files;
	double words_kib;
	uint64_t words_bytes;
};

struct content_stats_opts {
	double sample_share;      /* share of 1 MiB segments compressed, (0, 1]; 0 = none */
	int no_magic;             /* 1: no libmagic (type mix and typed files stay empty) */
	unsigned jobs;            /* compressor threads; 0 or 1: compress in the caller */
	int partition;            /* content-report: a partitioned disk's partition; 0: found */
};

struct content_stats {
	struct content_stats_opts opts;
	struct content_group_stats group[CONTENT_GROUPS];
	struct content_group_stats all;

	struct content_mime *mime;  /* by first appearance; content_stats_finish() sorts */
	size_t nmime;
	uint64_t typed_files;       /* files of a typed extension */
	uint64_t typed_identified;
	struct content_miss miss[CONTENT_MAX_MISSES];
	size_t nmiss;
	int holes_unknown;          /* the holes were not known (no extents): hole_blocks says nothing */
	uint64_t read_bytes;        /* bytes content_stats_read() read: the data, not the holes it skipped */
	/* by extension, first met first; the extensions past CONTENT_EXT_MAX are in none */
	struct content_ext_stats *ext;
	size_t next;

	void *priv;                 /* hash sets, compressors, the current file */
};

/*
 * Start a measurement.  o may be NULL (sample everything, use libmagic).
 * Returns 0, -ENOMEM, or -EIO when libmagic or a compressor cannot start.
 */
int content_stats_init(struct content_stats *st, const struct content_stats_opts *o);
void content_stats_release(struct content_stats *st);

/*
 * Feed one file: content_stats_begin() with its path (for the extension
 * and the sample choice) and size, then its bytes in order, in chunks of
 * any length, through content_stats_data(), then content_stats_end().
 * One file at a time.  Return 0, -ENOMEM, -EINVAL (call out of order) or
 * -EIO (end: the bytes fed differ from the size given).
 */
int content_stats_begin(struct content_stats *st, const char *path, uint64_t size);
int content_stats_data(struct content_stats *st, const void *buf, size_t len);
/*
 * Instead of content_stats_data(): pass len bytes that lie wholly in the
 * file's holes (content_stats_hole()) without reading them, from a
 * position on a 1 MiB boundary, len a multiple of 1 MiB.  The figures are
 * those of feeding len zeros.  0 or -EINVAL.
 */
int content_stats_skip(struct content_stats *st, uint64_t len);
int content_stats_end(struct content_stats *st);

/* A hole of a file: bytes [off, off + len) that no block maps (they read as zeros). */
struct content_hole {
	uint64_t off, len;
};

/*
 * Declare a hole of the current file, after content_stats_begin() and
 * before its first content_stats_data(); holes in increasing order, not
 * overlapping (touching ones merge), within the size.  The bytes of the
 * holes are still fed (as zeros: they are the file's content for
 * dup_file_share and libmagic).  Returns 0, -ENOMEM or -EINVAL.
 */
int content_stats_hole(struct content_stats *st, uint64_t off, uint64_t len);

/* The three calls above for a file held in memory.  Returns as they do. */
int content_stats_add(struct content_stats *st, const char *path, const void *buf, size_t len);

/*
 * The calls above for a file with nholes holes (content_stats_hole()'s
 * order) read through read(ctx, off, buf, len), which fills buf with len
 * bytes at offset off and returns 0 or a negative errno; the file is read
 * in order, 1 MiB at a time.  Returns 0 or the first error.
 */
int content_stats_read(struct content_stats *st, const char *path, uint64_t size,
		       const struct content_hole *holes, size_t nholes,
		       int (*read)(void *ctx, uint64_t off, void *buf, size_t len), void *ctx);

/*
 * Wait for the compressors and sort the MIME list (most files first, then
 * by name).  Call once, after the last file and before reading the
 * figures.  Returns 0, or -EIO when a compressor failed.
 */
int content_stats_finish(struct content_stats *st);

/* Shares and ratios of a group's figures; 0 when the denominator is 0. */
double content_dup_file_share(const struct content_group_stats *g);
double content_dup_block_share(const struct content_group_stats *g);
double content_dedup_block_share(const struct content_group_stats *g);
double content_zero_block_share(const struct content_group_stats *g);
/* An extension's distinct words per KiB of its text files (0: none). */
double content_words_per_kib(const struct content_ext_stats *e);
double content_ratio_zlib(const struct content_group_stats *g);
double content_ratio_zstd(const struct content_group_stats *g);

/*
 * The extensions of a measurement, most bytes first (ties by name), at
 * most max of them, as indexes into st->ext in *idx (room for max).
 * Returns how many.
 */
size_t content_ext_top(const struct content_stats *st, size_t *idx, size_t max);

/* What a content report compares the figures with; NAN: no target. */
struct content_targets {
	double compress_ratio;          /* zlib and zstd ratio of "other binary" files */
	double compress_ratio_exec;     /* zlib and zstd ratio of executables (ELF, PE) */
	double dup_file_share;
	double dup_block_share;         /* of "other binary" files */
	double zero_block_share;        /* of "other binary" files */
	double typed_identified_share;  /* at least this share of typed files identified */
	const struct content_prediction *pred; /* what the plan predicts (content_predict.h), or NULL */
	uint32_t generation;            /* with pred: of this generation of the plan (0: the plan) */
};

/*
 * Print the report: each achieved figure beside its target with the
 * relative difference, the figures by group, the type mix and the typed
 * files that were not identified.  `name` is what was measured (a path).
 * The JSON form is one object with the keys compress_ratio_zlib,
 * compress_ratio_zstd, compress_ratio_exec_zlib, compress_ratio_exec_zstd,
 * dup_file_share, dup_block_share, zero_block_share, hole_blocks,
 * typed_identified_share, type_mix and targets, and more detail.
 */
void content_report_print_text(const struct content_stats *st, const struct content_targets *t,
			       const char *name, FILE *out);
void content_report_print_json(const struct content_stats *st, const struct content_targets *t,
			       const char *name, FILE *out);
/* The object content_report_print_json() prints (the caller puts it). */
struct json_object *content_report_json(const struct content_stats *st,
					const struct content_targets *t, const char *name);

struct params;

/*
 * Targets from a resolved configuration: compress_ratio, compress_ratio_exec, dup_file_share,
 * dup_block_share and zero_block_share as configured, and
 * typed_identified_share 0.99 (the floor issue 4 sets).
 */
void content_targets_from_params(struct content_targets *t, const struct params *p);

struct fsread_error;
struct fsread_extent;

/* A walk feeding every regular file's bytes to a measurement (content_walk_entry()). */
struct content_walk {
	struct content_stats *st;
	struct fsread_error *err;    /* where a failure's message goes */
	struct fsread_extent *run;   /* the current file's holes in blocks ... */
	size_t run_cap;
	struct content_hole *hole;   /* ... and in bytes */
	size_t nhole, hole_cap;
};

/*
 * fsread_walk()'s callback (arg a struct content_walk): a regular file's
 * first name fed to w->st with its holes, anything else skipped (a hard
 * link's other names are not copies).  Returns 0 or a negative errno with
 * w->err set.  content_walk_release() frees the hole buffers.
 */
struct fsread;
struct fsread_entry;
int content_walk_entry(struct fsread *fs, const struct fsread_entry *e, void *arg);
void content_walk_release(struct content_walk *w);

/*
 * The lower-case extension of a path's last component into buf (size len):
 * what follows its last dot, except that a version after ".so"
 * ("libz.so.1.2") gives "so", and a leading dot (".profile") is no
 * extension.  Returns the extension's length (0 for none).
 */
size_t content_ext_of_path(const char *path, char *buf, size_t len);

/* The same with the extension's case kept ("README.Debian": "Debian"), as measure and profile count it. */
size_t content_ext_of_path_case(const char *path, char *buf, size_t len);

/*
 * The group of an extension (without the dot; "" for none): that of the
 * generator content_ext_ops() gives it.
 */
enum content_group content_group_of_ext(const char *ext);
const char *content_group_name(enum content_group g);

/*
 * The MIME types libmagic may give a typed extension, as a NULL-terminated
 * list; NULL when the extension is not a typed format.
 */
const char *const *content_typed_mimes(const char *ext);

#endif
