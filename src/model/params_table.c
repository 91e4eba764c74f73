/* params_table.c - the one table of every parameter: name, type, default, bounds, description */
#include <stddef.h>
#include <stdint.h>

#include "model/params_int.h"

/* The table stores enums through an int; make sure that is what they are. */
_Static_assert(sizeof(enum depth_mode) == sizeof(int), "enum depth_mode is not int-sized");
_Static_assert(sizeof(enum sampling_mode) == sizeof(int), "enum sampling_mode is not int-sized");
_Static_assert(sizeof(enum name_style) == sizeof(int), "enum name_style is not int-sized");
_Static_assert(sizeof(enum ext_table) == sizeof(int), "enum ext_table is not int-sized");
_Static_assert(sizeof(enum layout_order) == sizeof(int), "enum layout_order is not int-sized");
_Static_assert(sizeof(enum frag_select) == sizeof(int), "enum frag_select is not int-sized");
_Static_assert(sizeof(enum frag_sizes) == sizeof(int), "enum frag_sizes is not int-sized");
_Static_assert(sizeof(enum text_mode) == sizeof(int), "enum text_mode is not int-sized");
_Static_assert(sizeof(enum xattr_selinux) == sizeof(int), "enum xattr_selinux is not int-sized");

#define R_GT(a)		.flags = PF_MIN | PF_MIN_OPEN, .min = (a)
#define R_GE(a)		.flags = PF_MIN, .min = (a)
#define R_CLOSED(a, b)	.flags = PF_MIN | PF_MAX, .min = (a), .max = (b)
#define R_SHARE		R_CLOSED(0, 1)

/* the file systems: the backends' registry supplies them (params_supply_names) */
static struct param_names fs_names;

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
static const char *const dev_dir_names[] = {
	[DEV_DIR_NONE] = "none", [DEV_DIR_LINUX] = "linux", NULL
};
static const char *const xattr_selinux_names[] = {
	[SELINUX_NONE] = "none", [SELINUX_TARGETED] = "targeted", NULL
};

#define FIELD(f) .name = #f, .offset = offsetof(struct params, f), \
	.size = sizeof(((struct params *)0)->f)

/*
 * Every parameter, in the order they are printed.  The defaults come from
 * Impressions (FAST 2009) and the studies it builds on, see doc/model.md.
 */
const struct param_def param_table[] = {
	/* general */
	{ FIELD(seed), .group = "general", .type = PT_SEED, .unit = "",
	  .def.u = 1,
	  .desc = "seed of every random stream; 'random' draws one, printed back" },
	{ FIELD(fs), .group = "general", .type = PT_NAME, .unit = "",
	  .names = &fs_names,
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
	{ FIELD(inode_ratio), .group = "general", .type = PT_SIZE, .unit = "bytes",
	  .def.u = 0, .flags = PF_DERIVED | PF_MIN | PF_MAX, .min = 1024, .max = 64 * MiB,
	  .desc = "ext2/3/4: bytes of file system per inode (mke2fs -i); 0 = as mke2fs by size: 8K below 3 MiB, 4K below 512 MiB, 16K below 4 TiB, 32K below 16 TiB, 64K above; never fewer inodes than the plan needs" },
	{ FIELD(inodes), .group = "general", .type = PT_COUNT, .unit = "inodes",
	  .def.u = 0, .flags = PF_DERIVED | PF_MIN | PF_MAX, .min = 1, .max = UINT32_MAX,
	  .desc = "ext2/3/4: inodes of the file system (mke2fs -N); 0 = from inode_ratio" },
	{ FIELD(uuid), .group = "general", .type = PT_UUID, .unit = "",
	  .flags = PF_DERIVED,
	  .desc = "file system UUID; 0 = derived from the whole configuration and the seed" },

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
	{ FIELD(empty_dir_share), .group = "tree", .type = PT_DOUBLE, .unit = "",
	  .def.d = -1, .flags = PF_MIN | PF_MAX | PF_MAX_OPEN, .min = -1, .max = 1,
	  .desc = "directories with no file and no subdirectory; below 0 (-1): as files fall" },

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
	{ FIELD(name_caps_share), .group = "names", .type = PT_DOUBLE, .unit = "",
	  .def.d = -1, R_CLOSED(-1, 1),
	  .desc = "names whose stem has capitals only (README); -1: as the patterns give" },
	{ FIELD(name_numeric_share), .group = "names", .type = PT_DOUBLE, .unit = "",
	  .def.d = -1, R_CLOSED(-1, 1),
	  .desc = "names whose stem is digits only (0042.dat); -1: as the patterns give" },
	{ FIELD(name_version_share), .group = "names", .type = PT_DOUBLE, .unit = "",
	  .def.d = -1, R_CLOSED(-1, 1),
	  .desc = "names holding a version (foo-1.2.3) or ending in ~; -1: as the patterns give" },

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

	/* metadata (doc/model.md, "Metadata"): off by default, as in a fresh unpack */
	{ FIELD(special_file_share), .group = "metadata", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_SHARE,
	  .desc = "FIFOs, sockets, character and block devices, per regular file" },
	{ FIELD(xattr_selinux), .group = "metadata", .type = PT_ENUM, .unit = "",
	  .def.e = SELINUX_NONE, .choices = xattr_selinux_names,
	  .desc = "security.selinux label of every entry: none, or targeted-policy types by directory name and extension" },
	{ FIELD(xattr_user_share), .group = "metadata", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_SHARE,
	  .desc = "share of files and directories with user.* extended attributes" },
	{ FIELD(acl_share), .group = "metadata", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_SHARE,
	  .desc = "share of files and directories with a POSIX access ACL (half such directories: a default ACL, inherited below)" },
	{ FIELD(prealloc_file_share), .group = "metadata", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_SHARE,
	  .desc = "share of other-binary files of 256 KiB or more with preallocated space: unwritten ranges, blocks beyond the end (ext4, mounted)" },
	{ FIELD(inode_order), .group = "metadata", .type = PT_ENUM, .unit = "",
	  .def.e = ORDER_DIR, .choices = layout_order_names,
	  .desc = "inode numbers (ext2/3/4): in directory order, in creation (birth time) order, or shuffled within each group" },
	{ FIELD(dir_slack), .group = "metadata", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_CLOSED(0, 0.8),
	  .desc = "ext2/3/4 directories: share of entry space left free by deleted entries (aged directories)" },
	{ FIELD(dir_frag_share), .group = "metadata", .type = PT_SHARE, .unit = "",
	  .def.d = 0, R_SHARE,
	  .desc = "ext2/3/4: share of directories of two or more blocks whose blocks lie in 2 to 4 runs apart (aged directories)" },
	{ FIELD(dev_dir), .group = "metadata", .type = PT_ENUM, .unit = "",
	  .def.e = DEV_DIR_NONE, .choices = dev_dir_names,
	  .desc = "a top-level 'dev' directory: none, or linux (a static /dev: null, zero, tty*, sd*, loop* and more, with their real numbers)" },

	/*
	 * Generations (doc/model.md, "Generations"): what changes between
	 * generation N-1 and N of a plan (--generation N); rates per generation
	 * (a day by default), from studies of backup and file-system change.
	 * Names start with gen_: params_identity() leaves them out, so every
	 * generation of a plan keeps its file-system UUID.
	 */
	{ FIELD(gen_interval_days), .group = "generations", .type = PT_DOUBLE, .unit = "days",
	  .def.d = 1, R_GT(0),
	  .desc = "time between two generations (mtimes of changed entries advance by this)" },
	{ FIELD(gen_modify_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.02, R_SHARE,
	  .desc = "files modified per generation (append, in-place block edits, rewrite or truncation by type)" },
	{ FIELD(gen_delete_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.005, R_SHARE,
	  .desc = "files deleted per generation" },
	{ FIELD(gen_create_share), .group = "generations", .type = PT_DOUBLE, .unit = "",
	  .def.d = 0.01, R_CLOSED(0, 10),
	  .desc = "files created per generation, per live file (sizes and extensions from the model), when gen_growth_share is negative" },
	{ FIELD(gen_growth_share), .group = "generations", .type = PT_DOUBLE, .unit = "",
	  .def.d = 0.0005, R_CLOSED(-1, 10),
	  .desc = "bytes the tree grows by per generation, as a share of its bytes: new files are drawn until the tree holds that much more than the generation before (files deleted, truncated or in removed directories are made up for, so the file system keeps its fill); negative: as many new files as gen_create_share says, whatever their bytes" },
	{ FIELD(gen_rename_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.002, R_SHARE,
	  .desc = "files renamed within their directory per generation" },
	{ FIELD(gen_move_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.001, R_SHARE,
	  .desc = "files moved to another directory per generation" },
	{ FIELD(gen_meta_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.005, R_SHARE,
	  .desc = "files whose metadata only changes per generation (mtime; mode too for gen_mode_share of them)" },
	{ FIELD(gen_mode_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.2, R_SHARE,
	  .desc = "of metadata-only changes, those that also toggle the group write bit" },
	{ FIELD(gen_repeat_factor), .group = "generations", .type = PT_DOUBLE, .unit = "",
	  .def.d = 5, R_CLOSED(1, 1000),
	  .desc = "rates of a file changed in the previous generation, multiplied (recently changed files change again)" },
	{ FIELD(gen_append_share), .group = "generations", .type = PT_DOUBLE, .unit = "",
	  .def.d = 0.1, R_CLOSED(0, 100),
	  .desc = "mean bytes appended to a log-like file, as a share of its size (at least 64 bytes)" },
	{ FIELD(gen_edit_block_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.05, .flags = PF_MIN | PF_MIN_OPEN | PF_MAX, .min = 0, .max = 1,
	  .desc = "of a database-like file's 4 KiB blocks, those an in-place edit rewrites" },
	{ FIELD(gen_truncate_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.05, R_SHARE,
	  .desc = "of modifications of log-like files, truncations (rotation) instead of appends" },
	{ FIELD(gen_dir_create_share), .group = "generations", .type = PT_DOUBLE, .unit = "",
	  .def.d = 0.002, R_CLOSED(0, 10),
	  .desc = "directories created per generation, per live directory" },
	{ FIELD(gen_dir_remove_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.001, R_SHARE,
	  .desc = "leaf directories removed with their files per generation" },
	{ FIELD(gen_new_dir_files_share), .group = "generations", .type = PT_SHARE, .unit = "",
	  .def.d = 0.2, R_SHARE,
	  .desc = "of new files, those placed in directories created in the same generation (when there are any)" },
};

_Static_assert(ARRAY_SIZE(param_table) <= 64 * ARRAY_SIZE(((struct params *)0)->explicit_mask),
	       "explicit_mask has too few bits for the table");
