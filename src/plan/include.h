/* include.h - the user's own files copied into the image: --include SRC[:DEST] */
#ifndef IMPRINT_INCLUDE_H
#define IMPRINT_INCLUDE_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>

/* What an included entry is. */
enum include_kind {
	INCLUDE_DIR,	  /* a directory (of SRC, or made to hold a DEST) */
	INCLUDE_FILE,	  /* a regular file: its first name in the image */
	INCLUDE_SYMLINK,  /* a symbolic link, copied as a link */
	INCLUDE_HARDLINK, /* another name of the file entry link_of */
};

/* One extended attribute of an included entry, as llistxattr and lgetxattr gave it. */
struct include_xattr {
	char *name;
	void *value;
	size_t len;
};

/*
 * One entry of the image's included part.  Entries are kept sorted by
 * dest, component by component, so that a directory comes before what it
 * holds and the order is that of the paths, not of the host's readdir.
 */
struct include_entry {
	char *dest;		  /* absolute path in the image: "/opt/bench/run.sh" */
	char *src;		  /* the host path it is read from; NULL: a directory made for a DEST */
	enum include_kind kind;
	uint32_t mode;		  /* with the S_IF* type bits */
	uint32_t uid, gid;
	struct timespec atime, mtime, ctime;
	uint64_t size;		  /* regular files: bytes; symbolic links: the target's length */
	char *target;		  /* symbolic links: the target, as readlink gave it */
	size_t link_of;		  /* hard links: the index of the file entry */
	uint32_t nlink;		  /* files: 1 + the hard links to it inside the included part */
	struct include_xattr *xattrs;
	size_t nxattrs;
	unsigned source;	  /* which --include it came from, in command-line order */
	uint64_t host_dev, host_ino; /* the host's inode of a file of several names (else ino 0) */
	struct timespec host_mtime; /* SRC's mtime as read (normalising leaves it): a file changed since is refused */
};

/* One --include SRC[:DEST] as given. */
struct include_spec {
	char *spec; /* as typed, for messages */
	char *src;
	char *dest;
};

/* Every --include of a command line, and what they hold once scanned. */
struct include_set {
	struct include_spec *specs;
	size_t nspecs;
	int normalize;	   /* --include-normalize: root:root, 0644/0755, time_ref, no xattrs */
	struct include_entry *e;
	size_t n, cap;
	/* totals, by include_scan() */
	uint64_t files, dirs, symlinks, hardlinks, bytes, xattrs;
	char **top;	   /* first components of the DESTs: names the plan leaves free in the root */
	size_t ntop;
};

/*
 * Add one --include argument: SRC, or SRC:DEST (the last ':' splits when
 * what follows it starts with '/').  DEST must be absolute, below '/',
 * without '.', '..' or empty components, each at most 255 bytes; it
 * defaults to '/' and SRC's last component.  Returns 0, or -EINVAL with
 * err saying what is wrong and what is allowed.
 */
int include_add(struct include_set *s, const char *arg, char *err, size_t len);

/*
 * Read every SRC's tree (lstat, readlink, llistxattr; a SRC that is a
 * symbolic link is followed, links inside it are kept as links) into
 * s->e, sorted, with totals; with s->normalize, owners root:root and
 * modes 0755 (directories, files with an execute bit) or 0644.  Refuses (-EINVAL, -ENOENT,
 * -EACCES ... with err set): a missing or unreadable SRC or entry, a
 * special file (device, FIFO, socket), DESTs that are one inside another,
 * a DEST named lost+found.  Returns 0 or a negative errno.
 */
int include_scan(struct include_set *s, char *err, size_t len);

/*
 * Give the directories made to hold a DEST, and with s->normalize every
 * entry, the times time_ref (the resolved 'time_ref').
 */
void include_set_time(struct include_set *s, int64_t time_ref);

/* A key of what the included part is (paths, kinds, owners, modes, sizes, times); 0: empty. */
uint64_t include_key(const struct include_set *s);

/*
 * Refuse a target that lies inside a SRC, or a directory target that holds
 * a SRC (reading it while writing it): 0, or -EINVAL with err set.  target
 * need not exist yet; is_dir says whether it is a directory target.
 */
int include_check_target(const struct include_set *s, const char *target, int is_dir,
			 char *err, size_t len);

/*
 * The space the included part takes in blocks of bs bytes: data, a block
 * a directory, a slow symbolic link's block, an attribute block when the
 * attributes do not fit the inode; a little over, never under.
 */
uint64_t include_blocks(const struct include_set *s, unsigned bs);

/* The inodes the included part takes (files, directories, symbolic links). */
uint64_t include_inodes(const struct include_set *s);

/* The last component of an entry's dest, and its parent's index (SIZE_MAX: the root). */
const char *include_name(const struct include_entry *e);
size_t include_parent(const struct include_set *s, size_t i);

/*
 * The included entries as manifest lines after a '#included' header: the
 * plan's columns (path type size ext depth target mode uid gid mtime) and
 * the host path each is read from ('-': a directory made for a DEST).
 * Nothing when s is empty.  Returns 0 or -EIO.
 */
int include_manifest_write(const struct include_set *s, FILE *out);

/*
 * Open file entry e's SRC for copying and check that it is still what was
 * planned: a regular file of the same size and mtime.  Returns the
 * descriptor, or a negative errno with err naming the file and what
 * changed (-ESTALE for a changed file).
 */
int include_open_source(const struct include_entry *e, char *err, size_t len);

/*
 * After copying: the n bytes read from fd must be e->size and the file
 * unchanged meanwhile.  Returns 0, or -ESTALE with err set.
 */
int include_check_copied(const struct include_entry *e, int fd, uint64_t n, char *err, size_t len);

/* Free everything. */
void include_release(struct include_set *s);

#endif
