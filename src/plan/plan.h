/* plan.h - the logical image: directories, files and links as compact arrays */
#ifndef IMPRINT_PLAN_H
#define IMPRINT_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "model/dist.h"
#include "model/ext.h"
#include "model/names.h"
#include "model/params.h"

#define PLAN_NONE UINT32_MAX

struct plan_gen;
struct include_set;

/* Link kinds and flags (plan.link_kind). */
#define LINK_HARD      0x01  /* extra name of a regular file */
#define LINK_SYM_FILE  0x02  /* symlink to a regular file */
#define LINK_SYM_DIR   0x04  /* symlink to a directory */
#define LINK_RELATIVE  0x10  /* symlink target is relative to the link */
#define LINK_DANGLING  0x20  /* symlink target does not exist */
#define LINK_SPECIAL   0x08  /* a special file (FIFO, socket, device node): its type in
			      * LINK_SPECIAL_TYPE(kind), its ordinal in link_target */
#define LINK_SPECIAL_TYPE(k) (((k) >> 6) & 3u)
#define LINK_IS_SYMLINK(k)   (((k) & (LINK_SYM_FILE | LINK_SYM_DIR)) != 0)

/* Types of special files (LINK_SPECIAL_TYPE) */
enum plan_special_type { SPECIAL_FIFO, SPECIAL_SOCK, SPECIAL_CHR, SPECIAL_BLK, SPECIAL_TYPES };

/* A special file as plan_special_info() derives it. */
struct plan_special {
	unsigned type;         /* enum plan_special_type */
	uint32_t ifmt;         /* S_IFIFO, S_IFSOCK, S_IFCHR or S_IFBLK */
	uint32_t major, minor; /* device nodes; 0 else */
	uint32_t perm, gid;    /* device nodes: their usual mode and group (tty, disk) */
	int fixed;             /* a node of the /dev-like directory: root's, perm and gid set */
};

/* link_target of a special file in the /dev-like directory: this bit and its table index */
#define PLAN_DEV_NODE 0x80000000u

/* Entry metadata derived on demand (plan_*_meta). */
struct plan_meta {
	uint32_t mode;     /* with the S_IF* type bits */
	uint32_t uid, gid;
	int64_t atime, mtime, ctime, crtime;       /* seconds */
	uint32_t atime_ns, mtime_ns, ctime_ns, crtime_ns;
};

/*
 * The plan.  Directories are numbered in creation order (0 = root; parents
 * before children); files are numbered in directory order, so directory j
 * holds files [dir_first_file[j], dir_first_file[j] + dir_nfiles[j]); links
 * likewise.  Names, owners, modes and times are not stored: they are derived
 * from (seed, id) when asked for.  About 20 bytes per file.
 */
struct plan {
	struct params prm;
	struct size_model size;
	struct ext_model ext;
	struct name_cfg names;

	uint32_t ndirs;
	uint32_t nregular_dirs;     /* dirs 0..nregular_dirs-1 follow the model */
	uint32_t dev_dir;           /* the /dev-like directory (dev_dir, the last id), or 0 */
	uint32_t *dir_parent;
	uint8_t *dir_depth;
	uint8_t *dir_variant;
	uint32_t *dir_first_child;  /* PLAN_NONE if none */
	uint32_t *dir_next_sibling; /* PLAN_NONE if last */
	uint32_t *dir_first_file;
	uint32_t *dir_nfiles;
	uint32_t *dir_first_link;
	uint32_t *dir_nlinks;
	unsigned maxdepth;          /* deepest directory */

	uint64_t nfiles;
	uint64_t nregular_files;    /* files outside special directories */
	uint64_t *file_size;
	uint16_t *file_ext;
	uint32_t *file_dir;
	uint8_t *file_variant;
	/*
	 * The files' names as plan_unique_names() made them, kept by
	 * plan_build_jobs() within PLAN_NAMES_KEEP bytes: file f's at
	 * file_names + file_name_at[f], NUL-terminated; NULL: plan_file_name()
	 * makes them again each time (the same bytes).
	 */
	char *file_names;
	uint32_t *file_name_at;
	uint32_t *file_nlink;       /* 1 + hard links to it; NULL when none exist */
	uint32_t *file_dup_of;      /* the file this one is a byte-for-byte copy of, or
				     * PLAN_NONE; NULL when the plan has no copies */
	uint64_t ndups;             /* files that are copies */

	uint32_t nlinks;
	uint32_t *link_dir;
	uint32_t *link_target;      /* file id (hard, sym file) or dir id */
	uint8_t *link_kind;
	uint8_t *link_variant;

	uint8_t *dir_sectype;       /* SELinux type of each directory; NULL when xattr_selinux is none */
	uint32_t *dir_acl_src;      /* the directory whose default ACL is in force in each, or
				     * PLAN_NONE; NULL when acl_share is 0 */

	uint64_t bytes;             /* sum of file sizes */
	struct plan_gen *gen;       /* generation N > 0 of the plan (plan/generation.h: the
				     * stable ids names, times and content are drawn from); NULL
				     * in generation 0 */
	double depth_target[256];   /* target share of regular files by depth */
	/*
	 * --include: the user's entries the backends write beside the plan's
	 * (plan/include.h), times resolved; not owned (the CLI's), NULL when
	 * none.  plan_build() leaves it NULL; the caller sets it.
	 */
	const struct include_set *inc;
};

/* Why plan_build failed; message is user-ready. */
struct plan_error {
	char msg[512];
};

/*
 * Build the plan of resolved parameters p (see params_resolve()), in
 * generation p->generation (plan_generation_apply()).
 * Returns 0, -ENOMEM, or -EINVAL with err->msg saying why the parameters
 * cannot be planned (e.g. a special directory deeper than the tree).
 */
int plan_build(struct plan *pl, const struct params *p, struct plan_error *err);

/*
 * plan_build() on up to jobs threads where it can: the same plan at any
 * count.  Generation 0 keeps its files' names too (plan.file_names) when
 * they fit PLAN_NAMES_KEEP bytes, for the backends that ask for each name
 * more than once.
 */
int plan_build_jobs(struct plan *pl, const struct params *p, unsigned jobs,
		    struct plan_error *err);

/*
 * plan_build() of generation N (p->generation) into pl and of N - 1 into
 * prev, from one build of generation 0 and one replay (N >= 2; prev then
 * borrows pl's generation 0: release prev before pl).  N - 1 of 0 is 0.
 */
int plan_build_pair(struct plan *pl, struct plan *prev, const struct params *p,
		    struct plan_error *err);

/* Free everything plan_build allocated. */
void plan_release(struct plan *pl);

/* Name of an entry into buf (NAME_MAX_LEN + 1 bytes); returns its length. */
size_t plan_dir_name(const struct plan *pl, uint32_t dir, char *buf);
size_t plan_file_name(const struct plan *pl, uint64_t file, char *buf);
size_t plan_link_name(const struct plan *pl, uint32_t link, char *buf);

/* Whether plans a and b draw names with the same model (their names.*). */
int plan_names_alike(const struct plan *a, const struct plan *b);

/*
 * 1 when file fa of plan a and file fb of plan b, two plans whose names
 * are alike (plan_names_alike()), are named from the same draws (id,
 * extension and variant): their names are the same without making them;
 * 0 when that is not known (make both and compare).
 */
int plan_file_same_name(const struct plan *a, uint64_t fa, const struct plan *b, uint64_t fb);

/*
 * Path of a directory from the image root, "/" for the root, "/a/b" else,
 * into buf of len bytes.  Returns its length, or -ENAMETOOLONG.
 */
int plan_dir_path(const struct plan *pl, uint32_t dir, char *buf, size_t len);

/* Target of a symlink (as stored in the link), into buf; length or -ENAMETOOLONG. */
int plan_symlink_target(const struct plan *pl, uint32_t link, char *buf, size_t len);

/* Metadata of an entry, derived from the seed. */
void plan_dir_meta(const struct plan *pl, uint32_t dir, struct plan_meta *m);
void plan_file_meta(const struct plan *pl, uint64_t file, struct plan_meta *m);

/* Whether plans a and b draw metadata alike (their parameters but the generation equal). */
int plan_meta_alike(const struct plan *a, const struct plan *b);

/*
 * 1 when file fa of plan a and file fb of plan b, two plans that draw
 * metadata alike (plan_meta_alike()), have theirs from the same draws
 * (key, generations, extension): the same plan_file_meta() without
 * making it; 0 when that is not known (make both and compare).
 */
int plan_file_same_meta(const struct plan *a, uint64_t fa, const struct plan *b, uint64_t fb);
void plan_link_meta(const struct plan *pl, uint32_t link, struct plan_meta *m);

/* Type, device numbers and usual mode of special file `link` (LINK_SPECIAL). */
void plan_special_info(const struct plan *pl, uint32_t link, struct plan_special *s);

/* "fifo", "socket", "chardev", "blockdev": the manifest's word for a special type. */
const char *plan_special_type_name(unsigned type);

/* Which array an entry id indexes. */
enum plan_entry { PLAN_DIR, PLAN_FILE, PLAN_LINK };

#define PLAN_XATTRS_MAX 8          /* attributes of one entry */
#define PLAN_XATTR_VALUE_MAX 256   /* bytes of one user.* value */

/* The extended attributes of one entry, as plan_xattrs() derives them. */
struct plan_xattrs {
	unsigned n;
	const char *name[PLAN_XATTRS_MAX];     /* full names: "security.selinux", "user.x" */
	const uint8_t *value[PLAN_XATTRS_MAX]; /* into data */
	size_t len[PLAN_XATTRS_MAX];
	size_t used;
	uint8_t data[PLAN_XATTRS_MAX * PLAN_XATTR_VALUE_MAX + 256];
};

/* Whether the plan gives any entry extended attributes. */
int plan_xattrs_enabled(const struct plan *pl);

/*
 * The extended attributes of an entry: security.selinux (xattr_selinux),
 * user.* (xattr_user_share; regular files and directories only), the
 * POSIX ACLs system.posix_acl_access and _default (acl_share; not on
 * symbolic links), in that order.  A hard link has its file's.  Returns xa->n.
 */
unsigned plan_xattrs(const struct plan *pl, enum plan_entry kind, uint64_t id,
		     struct plan_xattrs *xa);

/*
 * Bytes a deleted entry left after entry number pos of directory dir (in
 * any fixed order of its entries): 0, or with probability
 * dir_slack / (1 - dir_slack) the record of a deleted name of 1 to 40
 * bytes (12 to 48 bytes, a multiple of 4).
 */
unsigned plan_dirent_slack(const struct plan *pl, uint32_t dir, uint64_t pos);

/* Extension text of a file ("" for none). */
static inline const char *plan_file_ext(const struct plan *pl, uint64_t file)
{
	return pl->ext.name[pl->file_ext[file]];
}

#endif
