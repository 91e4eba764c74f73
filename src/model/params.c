/* params.c - the one table of every parameter: parsing, checking, deriving, printing */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include <json-c/json.h>

#include "model/dist.h"
#include "model/params.h"
#include "util/strutil.h"
#include "util/util.h"

/* Sizes in messages: "1 GiB", "1.5 GiB", "512 bytes". */
#define MSG_BYTES (FMT_BYTES_EXACT | FMT_BYTES_DIGITS(1) | FMT_BYTES_WORD)

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* Derived image sizes are rounded up to this, a multiple of any block size. */
#define SIZE_GRANULE (4 * MiB)

/* Longest key and value params_set() accepts, terminating NUL included. */
#define KEY_MAX 64
#define VALUE_MAX 128

/* The table stores enums through an int; make sure that is what they are. */
_Static_assert(sizeof(enum fs_kind) == sizeof(int), "enum fs_kind is not int-sized");
_Static_assert(sizeof(enum depth_mode) == sizeof(int), "enum depth_mode is not int-sized");
_Static_assert(sizeof(enum sampling_mode) == sizeof(int), "enum sampling_mode is not int-sized");
_Static_assert(sizeof(enum name_style) == sizeof(int), "enum name_style is not int-sized");
_Static_assert(sizeof(enum ext_table) == sizeof(int), "enum ext_table is not int-sized");
_Static_assert(sizeof(enum layout_order) == sizeof(int), "enum layout_order is not int-sized");
_Static_assert(sizeof(enum frag_select) == sizeof(int), "enum frag_select is not int-sized");
_Static_assert(sizeof(enum frag_sizes) == sizeof(int), "enum frag_sizes is not int-sized");
_Static_assert(sizeof(enum text_mode) == sizeof(int), "enum text_mode is not int-sized");

enum param_type {
	PT_SEED,	/* uint64_t, or the word 'random' */
	PT_UINT,	/* uint32_t */
	PT_INT,		/* int64_t */
	PT_DOUBLE,	/* double, finite */
	PT_SHARE,	/* double within [0, 1] */
	PT_SIZE,	/* uint64_t bytes, binary suffixes */
	PT_COUNT,	/* uint64_t, decimal suffixes */
	PT_ENUM,	/* an int-sized enum, named by choices[] */
};

static const char *const type_names[] = {
	[PT_SEED] = "seed",
	[PT_UINT] = "uint",
	[PT_INT] = "int",
	[PT_DOUBLE] = "double",
	[PT_SHARE] = "share",
	[PT_SIZE] = "size",
	[PT_COUNT] = "count",
	[PT_ENUM] = "enum",
};

/* Flags of a table entry: which bounds apply, and whether 0 means derived. */
#define PF_MIN		0x01
#define PF_MIN_OPEN	0x02	/* value > min rather than >= min */
#define PF_MAX		0x04
#define PF_MAX_OPEN	0x08	/* value < max rather than <= max */
#define PF_DERIVED	0x10	/* 0 = filled in by params_resolve() */

#define R_GT(a)		.flags = PF_MIN | PF_MIN_OPEN, .min = (a)
#define R_GE(a)		.flags = PF_MIN, .min = (a)
#define R_CLOSED(a, b)	.flags = PF_MIN | PF_MAX, .min = (a), .max = (b)
#define R_SHARE		R_CLOSED(0, 1)

union param_value {
	uint64_t u;	/* PT_SEED, PT_UINT, PT_SIZE, PT_COUNT */
	int64_t i;	/* PT_INT */
	double d;	/* PT_DOUBLE, PT_SHARE */
	int e;		/* PT_ENUM */
};

struct param_def {
	const char *name;	/* the field name, normalized: lowercase, '_' */
	const char *group;	/* heading in the printed configuration */
	enum param_type type;
	const char *unit;
	size_t offset;		/* into struct params */
	size_t size;		/* of the field, checked against type */
	union param_value def;
	unsigned int flags;
	double min, max;
	const char *const *choices;	/* PT_ENUM: names by value, NULL-ended */
	const char *desc;
};

static const char *const fs_names[] = {
	[FS_EXT2] = "ext2", [FS_EXT3] = "ext3", [FS_EXT4] = "ext4", NULL
};
static const char *const sampling_names[] = {
	[SAMPLING_STRATIFIED] = "stratified", [SAMPLING_IID] = "iid", NULL
};
static const char *const depth_names[] = {
	[DEPTH_POISSON] = "poisson", [DEPTH_CARE] = "care", NULL
};
static const char *const name_style_names[] = {
	[NAMES_REALISTIC] = "realistic", [NAMES_NUMERIC] = "numeric", NULL
};
static const char *const ext_table_names[] = {
	[EXT_TABLE_DEFAULT] = "default", [EXT_TABLE_LARGE] = "large", NULL
};
static const char *const layout_order_names[] = {
	[ORDER_DIR] = "dir", [ORDER_CREATION] = "creation", [ORDER_SHUFFLED] = "shuffled", NULL
};
static const char *const frag_select_names[] = {
	[FRAG_SELECT_WEIGHTED] = "weighted", [FRAG_SELECT_RANDOM] = "random",
	[FRAG_SELECT_SIZE] = "size", [FRAG_SELECT_TYPE] = "type", NULL
};
static const char *const frag_sizes_names[] = {
	[FRAG_SIZES_RANDOM] = "random", [FRAG_SIZES_EQUAL] = "equal",
	[FRAG_SIZES_LOGNORMAL] = "lognormal", NULL
};
static const char *const text_mode_names[] = {
	[TEXT_WORDS] = "words", [TEXT_REPEAT] = "repeat", [TEXT_WORDLEN] = "wordlen", NULL
};

#define FIELD(f) .name = #f, .offset = offsetof(struct params, f), \
	.size = sizeof(((struct params *)0)->f)

/*
 * Every parameter, in the order they are printed.  The defaults come from
 * Impressions (FAST 2009) and the studies it builds on, see doc/model.md.
 */
static const struct param_def param_table[] = {
	/* general */
	{ FIELD(seed), .group = "general", .type = PT_SEED, .unit = "",
	  .def.u = 1,
	  .desc = "seed of every random stream; 'random' draws one, printed back" },
	{ FIELD(fs), .group = "general", .type = PT_ENUM, .unit = "",
	  .def.e = FS_EXT4, .choices = fs_names,
	  .desc = "file system to build" },
	{ FIELD(size), .group = "general", .type = PT_SIZE, .unit = "bytes",
	  .def.u = 0, .flags = PF_DERIVED,
	  .desc = "image capacity; 0 = derived (1 GiB when used and files are unset)" },
	{ FIELD(used), .group = "general", .type = PT_SIZE, .unit = "bytes",
	  .def.u = 0, .flags = PF_DERIVED,
	  .desc = "bytes of file data; 0 = derived from files or fill_share" },
	{ FIELD(files), .group = "general", .type = PT_COUNT, .unit = "files",
	  .def.u = 0, .flags = PF_DERIVED,
	  .desc = "regular files; 0 = derived from used" },
	{ FIELD(fill_share), .group = "general", .type = PT_SHARE, .unit = "",
	  .def.d = 0.45, .flags = PF_MIN | PF_MIN_OPEN | PF_MAX, .min = 0, .max = 1,
	  .desc = "used / size when neither used nor files is given" },

	/* file sizes */
	{ FIELD(size_mu), .group = "file sizes", .type = PT_DOUBLE, .unit = "ln bytes",
	  .def.d = 9.48,
	  .desc = "lognormal body: mean of ln(size)" },
	{ FIELD(size_sigma), .group = "file sizes", .type = PT_DOUBLE, .unit = "ln bytes",
	  .def.d = 2.46, R_GT(0),
	  .desc = "lognormal body: standard deviation of ln(size)" },
	{ FIELD(size_tail_weight), .group = "file sizes", .type = PT_SHARE, .unit = "",
	  .def.d = 0.00006, R_SHARE,
	  .desc = "share of files drawn from the Pareto tail" },
	{ FIELD(size_tail_xm), .group = "file sizes", .type = PT_SIZE, .unit = "bytes",
	  .def.u = 512 * MiB, R_GT(0),
	  .desc = "Pareto tail: scale (smallest tail file)" },
	{ FIELD(size_tail_shape), .group = "file sizes", .type = PT_DOUBLE, .unit = "",
	  .def.d = 0.91, R_GT(0),
	  .desc = "Pareto tail: shape" },
	{ FIELD(size_max), .group = "file sizes", .type = PT_SIZE, .unit = "bytes",
	  .def.u = 64 * GiB, R_GE(1),
	  .desc = "largest file; the size model is truncated here" },
	{ FIELD(sampling), .group = "file sizes", .type = PT_ENUM, .unit = "",
	  .def.e = SAMPLING_STRATIFIED, .choices = sampling_names,
	  .desc = "file sizes from stratified quantiles or independent draws" },

	/* directory tree */
	{ FIELD(files_per_dir), .group = "tree", .type = PT_DOUBLE, .unit = "files",
	  .def.d = 10.2, R_GT(0),
	  .desc = "mean files per directory (sets the directory count)" },
	{ FIELD(fpd_offset), .group = "tree", .type = PT_DOUBLE, .unit = "files",
	  .def.d = 2.36, R_GT(0),
	  .desc = "files per directory law (i+c)^-k: offset c" },
	{ FIELD(fpd_degree), .group = "tree", .type = PT_DOUBLE, .unit = "",
	  .def.d = 2, R_GT(1),
	  .desc = "files per directory law (i+c)^-k: degree k" },
	{ FIELD(fpd_empty_share), .group = "tree", .type = PT_SHARE, .unit = "",
	  .def.d = 0.225, .flags = PF_MIN | PF_MAX | PF_MAX_OPEN, .min = 0, .max = 1,
	  .desc = "share of directories holding no files" },
	{ FIELD(fpd_max_bin), .group = "tree", .type = PT_UINT, .unit = "files",
	  .def.u = 28, R_CLOSED(1, 1000000),
	  .desc = "largest file count with its own bin; above is the tail" },

	/* files by depth */
	{ FIELD(depth_model), .group = "depth", .type = PT_ENUM, .unit = "",
	  .def.e = DEPTH_POISSON, .choices = depth_names,
	  .desc = "files by depth: Poisson, or depth with care (by size)" },
	{ FIELD(depth_lambda), .group = "depth", .type = PT_DOUBLE, .unit = "levels",
	  .def.d = 6.49, R_GT(0),
	  .desc = "Poisson mean of file depth" },

	/* extensions */
	{ FIELD(ext_table), .group = "extensions", .type = PT_ENUM, .unit = "",
	  .def.e = EXT_TABLE_DEFAULT, .choices = ext_table_names,
	  .desc = "extension popularity table (large: large file systems)" },

	/* special directories */
	{ FIELD(special_dirs), .group = "special directories", .type = PT_UINT,
	  .unit = "dirs", .def.u = 0, R_CLOSED(0, UINT32_MAX),
	  .desc = "directories holding many files each, like /lib" },
	{ FIELD(special_dir_files), .group = "special directories", .type = PT_COUNT,
	  .unit = "files", .def.u = 10000, R_GE(1),
	  .desc = "files in each special directory" },
	{ FIELD(special_dir_depth), .group = "special directories", .type = PT_UINT,
	  .unit = "levels", .def.u = 2, R_CLOSED(1, UINT32_MAX),
	  .desc = "depth of the special directories" },

	/* names */
	{ FIELD(name_style), .group = "names", .type = PT_ENUM, .unit = "",
	  .def.e = NAMES_REALISTIC, .choices = name_style_names,
	  .desc = "realistic names, or numbered ones" },
	{ FIELD(name_space_share), .group = "names", .type = PT_SHARE, .unit = "",
	  .def.d = 0.03, R_SHARE,
	  .desc = "names with spaces" },
	{ FIELD(name_utf8_share), .group = "names", .type = PT_SHARE, .unit = "",
	  .def.d = 0.02, R_SHARE,
	  .desc = "names with non-ASCII UTF-8" },
	{ FIELD(name_upper_share), .group = "names", .type = PT_SHARE, .unit = "",
	  .def.d = 0.10, R_SHARE,
	  .desc = "mixed or upper case names" },

	/* links */
	{ FIELD(hardlink_share), .group = "links", .type = PT_SHARE, .unit = "",
	  .def.d = 0.005, R_SHARE,
	  .desc = "extra hard links, per regular file" },
	{ FIELD(symlink_share), .group = "links", .type = PT_SHARE, .unit = "",
	  .def.d = 0.01, R_SHARE,
	  .desc = "symlinks, per regular file" },
	{ FIELD(symlink_dir_share), .group = "links", .type = PT_SHARE, .unit = "",
	  .def.d = 0.25, R_SHARE,
	  .desc = "of symlinks, those pointing to directories" },
	{ FIELD(symlink_relative_share), .group = "links", .type = PT_SHARE, .unit = "",
	  .def.d = 0.6, R_SHARE,
	  .desc = "of symlinks, those with relative targets" },
	{ FIELD(symlink_dangling_share), .group = "links", .type = PT_SHARE, .unit = "",
	  .def.d = 0.05, R_SHARE,
	  .desc = "of symlinks, those with dangling targets" },

	/* owners and permissions */
	{ FIELD(owner_users), .group = "owners", .type = PT_UINT, .unit = "users",
	  .def.u = 3, R_CLOSED(0, 60000),
	  .desc = "regular users owning entries, uid/gid 1000.." },
	{ FIELD(owner_root_share), .group = "owners", .type = PT_SHARE, .unit = "",
	  .def.d = 0.1, R_SHARE,
	  .desc = "entries owned by root" },
	{ FIELD(perm_private_share), .group = "owners", .type = PT_SHARE, .unit = "",
	  .def.d = 0.05, R_SHARE,
	  .desc = "entries with mode 0600 / 0700" },

	/* timestamps */
	{ FIELD(time_ref), .group = "times", .type = PT_INT, .unit = "Unix seconds",
	  .def.i = INT64_C(1767225600),
	  .desc = "\"now\" of the image (default 2026-01-01T00:00:00Z)" },
	{ FIELD(age_median_days), .group = "times", .type = PT_DOUBLE, .unit = "days",
	  .def.d = 200, R_GT(0),
	  .desc = "median file age" },
	{ FIELD(age_sigma), .group = "times", .type = PT_DOUBLE, .unit = "ln days",
	  .def.d = 1.6, R_GE(0),
	  .desc = "lognormal sigma of file age" },
	{ FIELD(age_max_days), .group = "times", .type = PT_DOUBLE, .unit = "days",
	  .def.d = 3650, R_GT(0),
	  .desc = "ages are capped here" },

	/* on-disk layout */
	{ FIELD(layout_score), .group = "layout", .type = PT_SHARE, .unit = "",
	  .def.d = 1.0, .flags = PF_MIN | PF_MIN_OPEN | PF_MAX, .min = 0, .max = 1,
	  .desc = "target layout score: contiguous share of file blocks (1 = unfragmented)" },
	{ FIELD(layout_order), .group = "layout", .type = PT_ENUM, .unit = "",
	  .def.e = ORDER_DIR, .choices = layout_order_names,
	  .desc = "on-disk order: grouped by directory (spread like Orlov), file creation order, or shuffled" },
	{ FIELD(frag_file_share), .group = "layout", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_SHARE,
	  .desc = "share of files of >= 2 blocks that are fragmented; 0 = auto (what the score needs, by size)" },
	{ FIELD(frag_extents), .group = "layout", .type = PT_DOUBLE, .unit = "extents",
	  .def.d = 0, R_GE(0),
	  .desc = "mean extents per fragmented file (geometric); 0 = auto, else >= 2" },
	{ FIELD(frag_select), .group = "layout", .type = PT_ENUM, .unit = "",
	  .def.e = FRAG_SELECT_WEIGHTED, .choices = frag_select_names,
	  .desc = "files fragmented: weighted by size, at random, largest first, or by type group" },
	{ FIELD(frag_sizes), .group = "layout", .type = PT_ENUM, .unit = "",
	  .def.e = FRAG_SIZES_RANDOM, .choices = frag_sizes_names,
	  .desc = "piece sizes of a fragmented file: random breaks, equal, or lognormal" },
	{ FIELD(frag_size_sigma), .group = "layout", .type = PT_DOUBLE, .unit = "ln blocks",
	  .def.d = 1.0, R_GT(0),
	  .desc = "lognormal sigma of piece sizes (frag_sizes = lognormal)" },
	{ FIELD(free_frag_share), .group = "layout", .type = PT_SHARE, .unit = "",
	  .def.d = 0, .flags = PF_MIN | PF_MAX | PF_MAX_OPEN, .min = 0, .max = 1,
	  .desc = "share of free space left as gaps between files, in free extents below free_chunk" },
	{ FIELD(free_chunk), .group = "layout", .type = PT_SIZE, .unit = "bytes",
	  .def.u = 1 * MiB, R_CLOSED(1024, 1 * GiB),
	  .desc = "free chunk size (e2freefrag -c), a power of two: gaps stay below it" },
	{ FIELD(free_gap_min), .group = "layout", .type = PT_SIZE, .unit = "bytes",
	  .def.u = 0, R_GE(0),
	  .desc = "smallest gap between files; 0 = one block" },
	{ FIELD(free_gap_shape), .group = "layout", .type = PT_DOUBLE, .unit = "",
	  .def.d = 1.0, R_CLOSED(0, 4),
	  .desc = "gap sizes have density ~ size^-shape: 1 = as many gaps in each power-of-two bucket" },
	{ FIELD(age_rounds), .group = "layout", .type = PT_UINT, .unit = "rounds",
	  .def.u = 0, R_CLOSED(0, 100000),
	  .desc = "offline aging: rounds of create/delete churn on a simulated ext4 allocator" },
	{ FIELD(age_churn), .group = "layout", .type = PT_SHARE, .unit = "",
	  .def.d = 0.1, .flags = PF_MIN | PF_MIN_OPEN | PF_MAX, .min = 0, .max = 1,
	  .desc = "share of live files deleted and replaced in each aging round" },
	{ FIELD(age_stream_req), .group = "layout", .type = PT_UINT, .unit = "blocks",
	  .def.u = 16, R_CLOSED(0, 1u << 20),
	  .desc = "aging: files of at most this many blocks share the locality group (mb_stream_req)" },
	{ FIELD(age_group_prealloc), .group = "layout", .type = PT_UINT, .unit = "blocks",
	  .def.u = 512, R_CLOSED(1, 1u << 20),
	  .desc = "aging: blocks of a locality-group preallocation (mb_group_prealloc)" },

	/* content */
	{ FIELD(dup_file_share), .group = "content", .type = PT_SHARE, .unit = "",
	  .def.d = 0.1, R_SHARE,
	  .desc = "share of files that are whole-file copies of another file (same size, type, bytes)" },
	/*
	 * Other-binary content (doc/model.md): Debian 12's own ELF files
	 * compress 2.9x with zlib -6 and hold 1.3% zero blocks; Meyer &
	 * Bolosky (FAST 2011) find whole-file dedup reaches 3/4 of block-level
	 * savings on live file systems, so blocks add about a third of the
	 * whole-file saving: ~3% of bytes beside dup_file_share's 10%, most
	 * of it in binary data.
	 */
	{ FIELD(compress_ratio), .group = "content", .type = PT_DOUBLE, .unit = "",
	  .def.d = 2.0, R_CLOSED(1, 5),
	  .desc = "zlib/zstd compression ratio of other-binary files (2 = they compress to half)" },
	/*
	 * Executables (ELF, PE): Debian 12's ELF files compress 2.9x with
	 * zlib -6 (doc/model.md); imprint's code and string sections hold the
	 * group to 1.45-2.64, so the default is 2.5, the nearest round figure.
	 */
	{ FIELD(compress_ratio_exec), .group = "content", .type = PT_DOUBLE, .unit = "",
	  .def.d = 2.5, R_CLOSED(1.5, 2.6),
	  .desc = "zlib/zstd compression ratio of executables (ELF and PE files)" },
	{ FIELD(dup_block_share), .group = "content", .type = PT_SHARE, .unit = "",
	  .def.d = 0.05, R_SHARE,
	  .desc = "share of other-binary 4 KiB blocks whose content occurs more than once" },
	{ FIELD(zero_block_share), .group = "content", .type = PT_SHARE, .unit = "",
	  .def.d = 0.02, R_SHARE,
	  .desc = "share of other-binary 4 KiB blocks that are all zero (written, not holes)" },
	/*
	 * Sparse files (doc/model.md, "Sparse files"): off by default, as most
	 * files on desktops and servers have no holes; VM disk images,
	 * databases and core dumps do, in large runs.
	 */
	{ FIELD(sparse_file_share), .group = "content", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_SHARE,
	  .desc = "share of other-binary files of 256 KiB or more that are sparse (holes never written)" },
	{ FIELD(sparse_hole_share), .group = "content", .type = PT_SHARE, .unit = "",
	  .def.d = 0.5, .flags = PF_MIN | PF_MIN_OPEN | PF_MAX | PF_MAX_OPEN, .min = 0, .max = 1,
	  .desc = "share of a sparse file's whole 64 KiB units that are holes" },
	/* Text (doc/model.md): Zipf's law of word popularity, exponent about 1 in English. */
	{ FIELD(text_zipf), .group = "content", .type = PT_DOUBLE, .unit = "",
	  .def.d = 1.0, .flags = PF_MIN | PF_MIN_OPEN | PF_MAX, .min = 0, .max = 3,
	  .desc = "Zipf exponent of word popularity in text (frequency ~ rank^-text_zipf)" },
	{ FIELD(text_mode), .group = "content", .type = PT_ENUM, .unit = "",
	  .def.e = TEXT_WORDS, .choices = text_mode_names,
	  .desc = "text words: Zipf with a growing vocabulary; Impressions' repeat or wordlen" },
};

_Static_assert(ARRAY_SIZE(param_table) <= 64 * ARRAY_SIZE(((struct params *)0)->explicit_mask),
	       "explicit_mask has too few bits for the table");

/* Storage size a type needs; the table's FIELD() sizes must match. */
static size_t type_size(enum param_type t)
{
	switch (t) {
	case PT_UINT:
		return sizeof(uint32_t);
	case PT_INT:
		return sizeof(int64_t);
	case PT_DOUBLE:
	case PT_SHARE:
		return sizeof(double);
	case PT_ENUM:
		return sizeof(int);
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		break;
	}
	return sizeof(uint64_t);
}

static union param_value value_get(const struct params *p, const struct param_def *d)
{
	const char *f = (const char *)p + d->offset;
	union param_value v = { .u = 0 };
	uint32_t u32;

	switch (d->type) {
	case PT_UINT:
		memcpy(&u32, f, sizeof(u32));
		v.u = u32;
		break;
	case PT_INT:
		memcpy(&v.i, f, sizeof(v.i));
		break;
	case PT_DOUBLE:
	case PT_SHARE:
		memcpy(&v.d, f, sizeof(v.d));
		break;
	case PT_ENUM:
		memcpy(&v.e, f, sizeof(v.e));
		break;
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		memcpy(&v.u, f, sizeof(v.u));
		break;
	}
	return v;
}

static void value_put(struct params *p, const struct param_def *d, union param_value v)
{
	char *f = (char *)p + d->offset;
	uint32_t u32;

	switch (d->type) {
	case PT_UINT:
		u32 = (uint32_t)v.u;
		memcpy(f, &u32, sizeof(u32));
		break;
	case PT_INT:
		memcpy(f, &v.i, sizeof(v.i));
		break;
	case PT_DOUBLE:
	case PT_SHARE:
		memcpy(f, &v.d, sizeof(v.d));
		break;
	case PT_ENUM:
		memcpy(f, &v.e, sizeof(v.e));
		break;
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		memcpy(f, &v.u, sizeof(v.u));
		break;
	}
}

static void set_error(struct param_error *err, const char *where, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_error(struct param_error *err, const char *where, const char *fmt, ...)
{
	va_list ap;
	size_t n = 0;

	if (!err)
		return;
	if (where && *where)
		n = (size_t)snprintf(err->msg, sizeof(err->msg), "%s: ", where);
	if (n >= sizeof(err->msg))
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg + n, sizeof(err->msg) - n, fmt, ap);
	va_end(ap);
}

/* --- formatting ---------------------------------------------------------- */

/* Shortest of %.15g, %.16g, %.17g that strtod() reads back as v exactly. */
static void fmt_double(double v, char *buf, size_t len)
{
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* Exact bytes, with the largest binary suffix that divides them. */
static void fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char suffix[] = "KMGTPE";

	for (int i = 5; i >= 0 && v; i--) {
		unsigned int shift = 10 * (unsigned int)(i + 1);

		if (!(v & ((UINT64_C(1) << shift) - 1))) {
			snprintf(buf, len, "%" PRIu64 "%c", v >> shift, suffix[i]);
			return;
		}
	}
	snprintf(buf, len, "%" PRIu64, v);
}

/* A value as the config file spells it. */
static void fmt_value(const struct param_def *d, union param_value v, char *buf, size_t len)
{
	switch (d->type) {
	case PT_SEED:
	case PT_UINT:
	case PT_COUNT:
		snprintf(buf, len, "%" PRIu64, v.u);
		break;
	case PT_INT:
		snprintf(buf, len, "%" PRId64, v.i);
		break;
	case PT_DOUBLE:
	case PT_SHARE:
		fmt_double(v.d, buf, len);
		break;
	case PT_SIZE:
		fmt_size(v.u, buf, len);
		break;
	case PT_ENUM:
		for (int i = 0; d->choices[i]; i++) {
			if (i == v.e) {
				snprintf(buf, len, "%s", d->choices[i]);
				return;
			}
		}
		snprintf(buf, len, "%d", v.e);
		break;
	}
}

/* "[0, 1)", "(0, 1]": the interval of an entry with both bounds. */
static void fmt_interval(const struct param_def *d, char *buf, size_t len)
{
	char lo[32], hi[32];

	fmt_double(d->min, lo, sizeof(lo));
	fmt_double(d->max, hi, sizeof(hi));
	snprintf(buf, len, "%c%s, %s%c", d->flags & PF_MIN_OPEN ? '(' : '[', lo, hi,
		 d->flags & PF_MAX_OPEN ? ')' : ']');
}

/* What an entry's range allows, as a phrase: "> 0", "in [0, 1)", "". */
static void fmt_range(const struct param_def *d, char *buf, size_t len)
{
	char num[32];

	if ((d->flags & (PF_MIN | PF_MAX)) == (PF_MIN | PF_MAX)) {
		size_t n = (size_t)snprintf(buf, len, "in ");

		if (n < len)
			fmt_interval(d, buf + n, len - n);
	} else if (d->flags & PF_MIN) {
		fmt_double(d->min, num, sizeof(num));
		snprintf(buf, len, "%s %s", d->flags & PF_MIN_OPEN ? ">" : ">=", num);
	} else if (d->flags & PF_MAX) {
		fmt_double(d->max, num, sizeof(num));
		snprintf(buf, len, "%s %s", d->flags & PF_MAX_OPEN ? "<" : "<=", num);
	} else {
		buf[0] = '\0';
	}
}

/* What an entry accepts, for the parameter list: "ext2, ext3, ext4", "> 0". */
static void fmt_allowed(const struct param_def *d, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	switch (d->type) {
	case PT_ENUM:
		for (int i = 0; d->choices[i] && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
					      d->choices[i]);
		return;
	case PT_SEED:
		snprintf(buf, len, "0..18446744073709551615 or 'random'");
		return;
	case PT_SHARE:
		fmt_interval(d, buf, len);
		return;
	default:
		break;
	}
	if (d->flags & PF_DERIVED) {
		snprintf(buf, len, "0 = derived, or %s", d->type == PT_SIZE ?
			 "a size like 4096, 512M, 1.5G" : "a count like 1000, 10K, 2.5M");
		return;
	}
	if ((d->flags & (PF_MIN | PF_MAX)) == (PF_MIN | PF_MAX)) {
		fmt_interval(d, buf, len);
		return;
	}
	fmt_range(d, buf, len);
	if (!buf[0])
		snprintf(buf, len, d->type == PT_INT ? "any integer" : "any number");
}

/* --- parsing ------------------------------------------------------------- */

/*
 * "digits[.digits][ ][suffix]" scaled by the suffix: binary K M G T P
 * (2^10..2^50) with an optional "iB" or "B" when binary, else decimal K M G
 * T P (10^3..10^15).  Binary results round a fraction to the nearest byte;
 * decimal ones must come out whole.  Returns 0, -EINVAL on bad syntax or an
 * inexact count, -ERANGE when the value does not fit in 64 bits.
 */
static int parse_scaled(const char *s, int binary, uint64_t *out)
{
	static const char suffixes[] = "kmgtp";
	unsigned __int128 whole, frac_part, num;
	uint64_t ip = 0, fd = 0, fscale = 1, mult = 1;
	int overflow = 0, digits = 0;
	const char *c;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int dig = (unsigned int)(*s - '0');

		if (ip > (UINT64_MAX - dig) / 10)
			overflow = 1;
		else
			ip = ip * 10 + dig;
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		/* digits past the 18th cannot change a 64-bit result that matters */
		for (; isdigit((unsigned char)*s); s++) {
			if (digits++ < 18) {
				fd = fd * 10 + (uint64_t)(*s - '0');
				fscale *= 10;
			}
		}
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s && (c = strchr(suffixes, tolower((unsigned char)*s)))) {
		int e = (int)(c - suffixes) + 1;

		for (int i = 0; i < e; i++)
			mult = binary ? mult << 10 : mult * 1000;
		s++;
		if (binary && tolower((unsigned char)s[0]) == 'i' &&
		    tolower((unsigned char)s[1]) == 'b')
			s += 2;
		else if (binary && tolower((unsigned char)s[0]) == 'b')
			s++;
	} else if (binary && tolower((unsigned char)*s) == 'b') {
		s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return -EINVAL;
	if (overflow)
		return -ERANGE;

	whole = (unsigned __int128)ip * mult;
	if (whole > UINT64_MAX)
		return -ERANGE;
	num = (unsigned __int128)fd * mult;
	frac_part = num / fscale;
	if (binary) {
		if (2 * (num % fscale) >= fscale)
			frac_part++;
	} else if (num % fscale) {
		return -EINVAL;
	}
	whole += frac_part;
	if (whole > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)whole;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	return parse_scaled(s, 1, out) ? -EINVAL : 0;
}

int parse_count(const char *s, uint64_t *out)
{
	return parse_scaled(s, 0, out) ? -EINVAL : 0;
}

/* Plain decimal digits into a uint64.  Returns 0, -EINVAL or -ERANGE. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int dig = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - dig) / 10)
			return -ERANGE;
		v = v * 10 + dig;
	}
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	const char *digits = *s == '-' ? s + 1 : s;
	char *end;
	long long v;

	if (!isdigit((unsigned char)*digits))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* Copy s without surrounding white space.  Returns 0, or -E2BIG. */
static int copy_trimmed(char *buf, size_t len, const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		return -E2BIG;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

/* Keys compare lowercase, with '-' spelt '_'.  Returns 0, or -E2BIG. */
static int normalize_key(char *buf, size_t len, const char *key)
{
	int ret = copy_trimmed(buf, len, key);

	if (ret)
		return ret;
	for (char *c = buf; *c; c++)
		*c = *c == '-' ? '_' : (char)tolower((unsigned char)*c);
	return 0;
}

/* Table index of a normalized key, or -1. */
static int param_index(const char *norm)
{
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++)
		if (!strcmp(param_table[i].name, norm))
			return (int)i;
	return -1;
}

static int lookup(const char *key)
{
	char norm[KEY_MAX];

	if (normalize_key(norm, sizeof(norm), key))
		return -1;
	return param_index(norm);
}

static size_t levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[KEY_MAX + 1];

	if (lb > KEY_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *params_suggest(const char *key)
{
	char norm[KEY_MAX];
	const char *best = NULL;
	size_t best_d = SIZE_MAX, len;

	if (normalize_key(norm, sizeof(norm), key))
		return NULL;
	len = strlen(norm);
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		size_t d = levenshtein(param_table[i].name, norm);

		if (d < best_d) {
			best_d = d;
			best = param_table[i].name;
		}
	}
	/* a far guess is noise: only small edits, and less than half the key */
	if (best_d > 3 || 2 * best_d >= len)
		return NULL;
	return best;
}

static int in_range(const struct param_def *d, double v)
{
	if (d->flags & PF_MIN && (d->flags & PF_MIN_OPEN ? v <= d->min : v < d->min))
		return 0;
	if (d->flags & PF_MAX && (d->flags & PF_MAX_OPEN ? v >= d->max : v > d->max))
		return 0;
	return 1;
}

/* The message for a value of entry d that is out of its range or type. */
static void range_error(struct param_error *err, const char *where,
			const struct param_def *d, const char *got)
{
	char range[64];

	if (d->type == PT_SHARE) {
		fmt_interval(d, range, sizeof(range));
		set_error(err, where, "'%s' must be a share in %s (got '%s')", d->name,
			  range, got);
		return;
	}
	fmt_range(d, range, sizeof(range));
	set_error(err, where, "'%s' must be %s (got '%s')", d->name, range, got);
}

static void enum_error(struct param_error *err, const char *where,
		       const struct param_def *d, const char *got)
{
	char allowed[128];

	fmt_allowed(d, allowed, sizeof(allowed));
	set_error(err, where, "'%s' must be one of %s (got '%s')", d->name, allowed, got);
}

/* Whether a stored value is acceptable for its entry. */
static int value_ok(const struct param_def *d, union param_value v)
{
	switch (d->type) {
	case PT_DOUBLE:
	case PT_SHARE:
		return isfinite(v.d) && in_range(d, v.d);
	case PT_INT:
		return in_range(d, (double)v.i);
	case PT_ENUM:
		for (int i = 0; d->choices[i]; i++)
			if (i == v.e)
				return 1;
		return 0;
	case PT_SIZE:
	case PT_COUNT:
		if (d->flags & PF_DERIVED && !v.u)
			return 1;
		return in_range(d, (double)v.u);
	case PT_UINT:
		return v.u <= UINT32_MAX && in_range(d, (double)v.u);
	case PT_SEED:
		break;
	}
	return 1;
}

static int draw_seed(uint64_t *seed)
{
	ssize_t n;

	do {
		n = getrandom(seed, sizeof(*seed), 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*seed) ? 0 : -EIO;
}

/* Parse text (trimmed) for entry d.  Returns 0 or -EINVAL with err set. */
static int parse_value(const struct param_def *d, const char *text, const char *where,
		       union param_value *v, struct param_error *err)
{
	int ret = 0;

	switch (d->type) {
	case PT_SEED:
		if (!strcasecmp(text, "random")) {
			ret = draw_seed(&v->u);
			if (ret) {
				set_error(err, where, "'%s': cannot draw a random seed: %s",
					  d->name, strerror(-ret));
				return -EINVAL;
			}
			return 0;
		}
		if (parse_u64(text, &v->u)) {
			set_error(err, where,
				  "'%s' must be an integer in [0, 18446744073709551615] or 'random' (got '%s')",
				  d->name, text);
			return -EINVAL;
		}
		return 0;
	case PT_UINT:
		ret = parse_u64(text, &v->u);
		if (ret == -EINVAL) {
			set_error(err, where, "'%s' must be a whole number (got '%s')",
				  d->name, text);
			return -EINVAL;
		}
		break;
	case PT_INT:
		ret = parse_i64(text, &v->i);
		if (ret == -EINVAL) {
			set_error(err, where, "'%s' must be an integer (got '%s')", d->name, text);
			return -EINVAL;
		}
		if (ret) {
			set_error(err, where, "'%s' must fit in 64 bits (got '%s')", d->name, text);
			return -EINVAL;
		}
		break;
	case PT_DOUBLE:
		if (parse_double(text, &v->d)) {
			set_error(err, where, "'%s' must be a number (got '%s')", d->name, text);
			return -EINVAL;
		}
		break;
	case PT_SHARE:
		if (parse_double(text, &v->d)) {
			range_error(err, where, d, text);
			return -EINVAL;
		}
		break;
	case PT_SIZE:
		ret = parse_scaled(text, 1, &v->u);
		if (ret == -EINVAL) {
			set_error(err, where,
				  "'%s' must be a size like 4096, 512M or 1.5G (got '%s')",
				  d->name, text);
			return -EINVAL;
		}
		if (ret) {
			set_error(err, where, "'%s' must be below 16 EiB (got '%s')", d->name, text);
			return -EINVAL;
		}
		break;
	case PT_COUNT:
		ret = parse_scaled(text, 0, &v->u);
		if (ret == -EINVAL) {
			set_error(err, where,
				  "'%s' must be a whole count like 1000, 10K or 2.5M (got '%s')",
				  d->name, text);
			return -EINVAL;
		}
		if (ret) {
			set_error(err, where, "'%s' must fit in 64 bits (got '%s')", d->name, text);
			return -EINVAL;
		}
		break;
	case PT_ENUM:
		for (int i = 0; d->choices[i]; i++) {
			if (!strcasecmp(text, d->choices[i])) {
				v->e = i;
				return 0;
			}
		}
		enum_error(err, where, d, text);
		return -EINVAL;
	}
	if (ret || !value_ok(d, *v)) {
		range_error(err, where, d, text);
		return -EINVAL;
	}
	return 0;
}

/* --- the public interface ------------------------------------------------ */

void params_init(struct params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		assert(param_table[i].size == type_size(param_table[i].type));
		value_put(p, &param_table[i], param_table[i].def);
	}
}

int params_set(struct params *p, const char *key, const char *value,
	       const char *where, struct param_error *err)
{
	char norm[KEY_MAX], text[VALUE_MAX];
	const struct param_def *d;
	union param_value v = { .u = 0 };
	const char *hint;
	int i;

	if (normalize_key(norm, sizeof(norm), key) || (i = param_index(norm)) < 0) {
		char shown[KEY_MAX];

		if (copy_trimmed(shown, sizeof(shown), key))
			snprintf(shown, sizeof(shown), "%.40s...", key);
		hint = params_suggest(key);
		if (hint)
			set_error(err, where, "unknown parameter '%s' (did you mean '%s'?)",
				  shown, hint);
		else
			set_error(err, where, "unknown parameter '%s'", shown);
		return -EINVAL;
	}
	d = &param_table[i];
	if (copy_trimmed(text, sizeof(text), value)) {
		set_error(err, where, "'%s' value is too long (got '%.40s...')", d->name, value);
		return -EINVAL;
	}
	if (parse_value(d, text, where, &v, err))
		return -EINVAL;
	value_put(p, d, v);
	p->explicit_mask[i / 64] |= UINT64_C(1) << (i % 64);
	return 0;
}

int params_is_set(const struct params *p, const char *key)
{
	int i = lookup(key);

	if (i < 0)
		return 0;
	return !!(p->explicit_mask[i / 64] & (UINT64_C(1) << (i % 64)));
}

/*
 * One "key = value" per line; '#' starts a comment anywhere (no value needs
 * one); blank lines are skipped.  A key given twice: the later line wins,
 * like a later --set over the file.
 */
int params_load_file(struct params *p, const char *path, struct param_error *err)
{
	char where[256];
	char *line = NULL;
	size_t cap = 0;
	unsigned long lineno = 0;
	int ret = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		ret = -errno;
		set_error(err, path, "cannot open: %s", strerror(errno));
		return ret;
	}
	while (getline(&line, &cap, f) >= 0) {
		char *s = line, *hash, *eq, *end;

		lineno++;
		/* a UTF-8 byte order mark, as some editors write */
		if (lineno == 1 && !strncmp(s, "\xef\xbb\xbf", 3))
			s += 3;
		hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		while (isspace((unsigned char)*s))
			s++;
		end = s + strlen(s);
		while (end > s && isspace((unsigned char)end[-1]))
			*--end = '\0';
		if (!*s)
			continue;
		snprintf(where, sizeof(where), "%s line %lu", path, lineno);
		eq = strchr(s, '=');
		if (!eq || eq == s) {
			set_error(err, where, "expected 'key = value' (got '%s')", s);
			ret = -EINVAL;
			goto out_free_line;
		}
		*eq = '\0';
		ret = params_set(p, s, eq + 1, where, err);
		if (ret)
			goto out_free_line;
	}
	if (ferror(f)) {
		ret = errno ? -errno : -EIO;
		set_error(err, path, "cannot read: %s", strerror(-ret));
	}
out_free_line:
	free(line);
	fclose(f);
	return ret;
}

double params_mean_file_size(const struct params *p)
{
	struct size_model m;
	uint64_t cap = p->size_max;

	if (p->used && p->used < cap)
		cap = p->used;
	if (size_model_init(&m, p->size_mu, p->size_sigma, p->size_tail_weight,
			    (double)p->size_tail_xm, p->size_tail_shape, (double)cap))
		return NAN;
	return m.mean;
}

/* files = max(1, round(used / mean)), the mean capped at min(size_max, used). */
static int files_from_used(struct params *p, struct param_error *err)
{
	double mean = params_mean_file_size(p), q;
	char cap[32];

	if (!isfinite(mean) || mean <= 0) {
		fmt_bytes(p->used < p->size_max ? p->used : p->size_max, MSG_BYTES, cap, sizeof(cap));
		set_error(err, NULL,
			  "the file size model ('size_*') has no distribution below %s", cap);
		return -EINVAL;
	}
	q = round((double)p->used / mean);
	if (q >= 18446744073709551616.0) {
		set_error(err, NULL, "'used' (%" PRIu64 ") makes more than 2^64 files of mean %g bytes",
			  p->used, mean);
		return -EINVAL;
	}
	p->files = q < 1 ? 1 : (uint64_t)q;
	return 0;
}

/* size = ceil(used / fill_share), rounded up to a multiple of SIZE_GRANULE. */
static int size_from_used(struct params *p, struct param_error *err)
{
	double s = ceil((double)p->used / p->fill_share);
	uint64_t v;

	if (s >= 18446744073709551616.0 - (double)SIZE_GRANULE) {
		set_error(err, NULL, "'used' (%" PRIu64 ") over 'fill_share' (%g) is more than 16 EiB",
			  p->used, p->fill_share);
		return -EINVAL;
	}
	v = (uint64_t)s;
	if (v < p->used)
		v = p->used;
	p->size = (v + SIZE_GRANULE - 1) & ~(SIZE_GRANULE - 1);
	return 0;
}

/*
 * files per directory: P(0) = fpd_empty_share plus the bins 1..fpd_max_bin
 * must leave a non-negative remainder for the tail (see fpd_probs()).
 */
static int check_fpd(const struct params *p, struct param_error *err)
{
	double k = p->fpd_degree, c = p->fpd_offset;
	double scale = (k - 1) * pow(c, k - 1), mass = 0;
	char a[32], b[32];

	for (uint32_t i = 1; i <= p->fpd_max_bin; i++)
		mass += scale * pow(i + c, -k);
	if (p->fpd_empty_share + mass <= 1 + 1e-12)
		return 0;
	fmt_double(p->fpd_empty_share, a, sizeof(a));
	snprintf(b, sizeof(b), "%.4g", mass);
	set_error(err, NULL,
		  "'fpd_empty_share' (%s) plus the bins 1..%" PRIu32
		  " (%s) exceed 1; lower 'fpd_empty_share' or 'fpd_max_bin'",
		  a, p->fpd_max_bin, b);
	return -EINVAL;
}

/*
 * Deriving size, used and files (0 means "derive it"), with
 * mean(cap) = mean file size of the size model truncated at cap:
 *
 * - used and files both unset: size = size if set, else 1 GiB;
 *   used = max(1, floor(fill_share * size));
 *   files = max(1, round(used / mean(min(size_max, used)))).
 * - only used set: files = max(1, round(used / mean(min(size_max, used)))).
 * - only files set: used = max(1, round(files * mean(size_max))), then
 *   iterated to the fixed point used = round(files * mean(min(size_max, used))).
 * - both set: both kept.
 * In the last three, an unset size = ceil(used / fill_share) rounded up to a
 * multiple of 4 MiB.  A size set explicitly must hold used.  Then
 * special_dirs * special_dir_files must not exceed files.
 *
 * After this every field is non-zero where it is derived, and resolving
 * the printed result again changes nothing (all three are then "set").
 */
int params_resolve(struct params *p, struct param_error *err)
{
	int size_given = p->size != 0, used_given = p->used != 0;
	int files_given = p->files != 0;
	uint64_t special;
	char a[32], b[32];
	int ret;

	/* fields set directly by a caller skipped params_set()'s checks */
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		union param_value v = value_get(p, d);

		if (!value_ok(d, v)) {
			fmt_value(d, v, a, sizeof(a));
			if (d->type == PT_ENUM)
				enum_error(err, NULL, d, a);
			else
				range_error(err, NULL, d, a);
			return -EINVAL;
		}
	}
	ret = check_fpd(p, err);
	if (ret)
		return ret;
	if (p->frag_extents != 0 && p->frag_extents < 2) {
		fmt_double(p->frag_extents, a, sizeof(a));
		set_error(err, NULL, "'frag_extents' must be 0 (auto) or >= 2 (got '%s')", a);
		return -EINVAL;
	}
	if (p->free_chunk & (p->free_chunk - 1)) {
		fmt_size(p->free_chunk, a, sizeof(a));
		set_error(err, NULL, "'free_chunk' must be a power of two (got '%s')", a);
		return -EINVAL;
	}
	if (p->dup_block_share + p->zero_block_share > 1 + 1e-12) {
		fmt_double(p->dup_block_share, a, sizeof(a));
		fmt_double(p->zero_block_share, b, sizeof(b));
		set_error(err, NULL, "'dup_block_share' (%s) plus 'zero_block_share' (%s) exceed 1",
			  a, b);
		return -EINVAL;
	}

	if (!used_given && !files_given) {
		if (!size_given)
			p->size = GiB;
		p->used = (uint64_t)floor(p->fill_share * (double)p->size);
		if (p->used > p->size)
			p->used = p->size;
		if (!p->used)
			p->used = 1;
		ret = files_from_used(p, err);
	} else if (!files_given) {
		ret = files_from_used(p, err);
	} else if (!used_given) {
		double mean = params_mean_file_size(p), u;

		if (!isfinite(mean) || mean <= 0) {
			fmt_bytes(p->size_max, MSG_BYTES, a, sizeof(a));
			set_error(err, NULL,
				  "the file size model ('size_*') has no distribution below %s", a);
			return -EINVAL;
		}
		u = round((double)p->files * mean);
		if (u >= 18446744073709551616.0) {
			set_error(err, NULL,
				  "'files' (%" PRIu64 ") needs more than 16 EiB of file data",
				  p->files);
			return -EINVAL;
		}
		p->used = u < 1 ? 1 : (uint64_t)u;
		/*
		 * The plan truncates sizes at min(size_max, used): iterate to the
		 * fixed point used = round(files * mean(min(size_max, used))) so
		 * that the sample's own mean matches.  The map is monotone and
		 * settles in a few steps.
		 */
		for (int it = 0; it < 100 && p->used < p->size_max; it++) {
			uint64_t prev = p->used;

			mean = params_mean_file_size(p);
			if (!isfinite(mean) || mean <= 0)
				break;
			u = round((double)p->files * mean);
			p->used = u < 1 ? 1 : (uint64_t)u;
			if (p->used == prev)
				break;
		}
	}
	if (ret)
		return ret;
	if (!p->size) {
		ret = size_from_used(p, err);
		if (ret)
			return ret;
	}

	if (p->used > p->size) {
		fmt_bytes(p->used, MSG_BYTES, a, sizeof(a));
		fmt_bytes(p->size, MSG_BYTES, b, sizeof(b));
		if (files_given && !used_given)
			set_error(err, NULL,
				  "'files' (%" PRIu64 ") needs about %s of file data, more than 'size' (%s)",
				  p->files, a, b);
		else
			set_error(err, NULL, "'used' (%s) must not exceed 'size' (%s)", a, b);
		return -EINVAL;
	}

	if (__builtin_mul_overflow((uint64_t)p->special_dirs, p->special_dir_files, &special) ||
	    special > p->files) {
		set_error(err, NULL,
			  "'special_dirs' (%" PRIu32 ") times 'special_dir_files' (%" PRIu64
			  ") is more than 'files' (%" PRIu64 ")",
			  p->special_dirs, p->special_dir_files, p->files);
		return -EINVAL;
	}
	return 0;
}

void params_print_config(const struct params *p, FILE *out)
{
	const char *group = NULL;
	char buf[64];

	fprintf(out, "# imprint %s resolved configuration\n", PACKAGE_VERSION);
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];

		if (!group || strcmp(group, d->group)) {
			group = d->group;
			fprintf(out, "\n# %s\n", group);
		}
		fmt_value(d, value_get(p, d), buf, sizeof(buf));
		fprintf(out, "%s = %s\n", d->name, buf);
	}
}

/* The default column: the value, or "derived" for 0 = derived. */
static void fmt_default(const struct param_def *d, char *buf, size_t len)
{
	if (d->flags & PF_DERIVED && !d->def.u)
		snprintf(buf, len, "derived");
	else
		fmt_value(d, d->def, buf, len);
}

/* Names only, one line per group, wrapped: the parameter part of --help. */
void params_print_names(FILE *out, unsigned width)
{
	const char *group = NULL;
	unsigned col = 0;

	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		unsigned len = (unsigned)strlen(d->name);

		if (!group || strcmp(group, d->group) != 0) {
			if (group)
				fputc('\n', out);
			group = d->group;
			col = (unsigned)fprintf(out, "  %-20s", group);
		} else if (col + len + 1 > width) {
			col = (unsigned)fprintf(out, "\n  %-20s", "") - 1;
		} else {
			col += (unsigned)fprintf(out, " ");
		}
		col += (unsigned)fprintf(out, "%s", d->name);
	}
	fputc('\n', out);
}

void params_print_list(FILE *out)
{
	int wn = 4, wt = 4, wu = 4, wd = 7;
	char def[64], allowed[128];

	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		int n;

		fmt_default(d, def, sizeof(def));
		if ((n = (int)strlen(d->name)) > wn)
			wn = n;
		if ((n = (int)strlen(type_names[d->type])) > wt)
			wt = n;
		if ((n = (int)strlen(d->unit)) > wu)
			wu = n;
		if ((n = (int)strlen(def)) > wd)
			wd = n;
	}
	fprintf(out, "%-*s  %-*s  %-*s  %-*s  %s\n", wn, "NAME", wt, "TYPE", wu, "UNIT",
		wd, "DEFAULT", "DESCRIPTION");
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];

		fmt_default(d, def, sizeof(def));
		fmt_allowed(d, allowed, sizeof(allowed));
		fprintf(out, "%-*s  %-*s  %-*s  %-*s  %s (allowed: %s)\n", wn, d->name, wt,
			type_names[d->type], wu, d->unit[0] ? d->unit : "-", wd, def,
			d->desc, allowed);
	}
}

/* A value as JSON: numbers as numbers (doubles round-trip), enums as names. */
static struct json_object *json_value(const struct param_def *d, union param_value v)
{
	char buf[64];

	switch (d->type) {
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		return json_object_new_uint64(v.u);
	case PT_UINT:
		return json_object_new_int64((int64_t)v.u);
	case PT_INT:
		return json_object_new_int64(v.i);
	case PT_DOUBLE:
	case PT_SHARE:
		fmt_double(v.d, buf, sizeof(buf));
		return json_object_new_double_s(v.d, buf);
	case PT_ENUM:
		fmt_value(d, v, buf, sizeof(buf));
		return json_object_new_string(buf);
	}
	return NULL;
}

static void json_print(struct json_object *obj, FILE *out)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(obj,
		JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
		JSON_C_TO_STRING_NOSLASHESCAPE));
}

void params_print_config_json(const struct params *p, FILE *out)
{
	struct json_object *obj = json_object_new_object();

	if (!obj)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];

		json_object_object_add(obj, d->name, json_value(d, value_get(p, d)));
	}
	json_print(obj, out);
	json_object_put(obj);
}

void params_print_list_json(FILE *out)
{
	struct json_object *arr = json_object_new_array();
	char allowed[128];

	if (!arr)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		struct json_object *o = json_object_new_object();

		if (!o)
			break;
		fmt_allowed(d, allowed, sizeof(allowed));
		json_object_object_add(o, "name", json_object_new_string(d->name));
		json_object_object_add(o, "group", json_object_new_string(d->group));
		json_object_object_add(o, "type", json_object_new_string(type_names[d->type]));
		json_object_object_add(o, "unit", json_object_new_string(d->unit));
		json_object_object_add(o, "default", json_value(d, d->def));
		json_object_object_add(o, "derived",
				       json_object_new_boolean(!!(d->flags & PF_DERIVED)));
		json_object_object_add(o, "description", json_object_new_string(d->desc));
		json_object_object_add(o, "allowed", json_object_new_string(allowed));
		if (d->type == PT_ENUM) {
			struct json_object *names = json_object_new_array();

			for (int j = 0; names && d->choices[j]; j++)
				json_object_array_add(names, json_object_new_string(d->choices[j]));
			json_object_object_add(o, "values", names);
		}
		json_object_array_add(arr, o);
	}
	json_print(arr, out);
	json_object_put(arr);
}
