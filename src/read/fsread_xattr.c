/* fsread_xattr.c - an entry's extended attributes for the two readers: on-disk entries, or llistxattr */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include <ext2fs/ext2_fs.h>
#include <ext2fs/ext2fs.h>

#include "read/fsread_ops.h"

#define XLIST_MAX 65536

/* ext4's name indexes (fs/ext4/xattr.h) */
enum { XI_USER = 1, XI_ACL_ACCESS = 2, XI_ACL_DEFAULT = 3, XI_TRUSTED = 4, XI_SECURITY = 6,
       XI_SYSTEM = 7 };

static void count_index(struct fsread_xattrs *x, unsigned idx)
{
	switch (idx) {
	case XI_USER:
		x->user++;
		break;
	case XI_ACL_ACCESS:
		x->acl_access = 1;
		x->system++;
		break;
	case XI_ACL_DEFAULT:
		x->acl_default = 1;
		x->system++;
		break;
	case XI_TRUSTED:
		x->trusted++;
		break;
	case XI_SECURITY:
		x->security++;
		break;
	default:
		x->system++;
	}
}

/* Entries from start, within len bytes; returns how many. */
static unsigned walk_entries(struct fsread_xattrs *x, const unsigned char *start, size_t len)
{
	const struct ext2_ext_attr_entry *e = (const void *)start;
	unsigned n = 0;

	while ((const unsigned char *)e + sizeof(*e) <= start + len && !EXT2_EXT_IS_LAST_ENTRY(e)) {
		/* the empty system.data of inline data is the file's, not an attribute */
		if (!(e->e_name_index == XI_SYSTEM && e->e_name_len == 4 &&
		      !memcmp(EXT2_EXT_ATTR_NAME(e), "data", 4))) {
			count_index(x, e->e_name_index);
			n++;
		}
		e = EXT2_EXT_ATTR_NEXT(e);
	}
	return n;
}

int fsread_ext2_xattrs_of(struct fsread *fs, ext2_filsys efs, pthread_mutex_t *lock,
			  const struct fsread_entry *e, struct fsread_xattrs *x,
			  struct fsread_error *err)
{
	unsigned isize = EXT2_INODE_SIZE(efs->super);
	unsigned char *in = NULL, *blk = NULL;
	struct ext2_inode_large *li;
	errcode_t rc;
	int ret = -ENOMEM;

	in = calloc(1, isize < sizeof(*li) ? sizeof(*li) : isize);
	blk = malloc(fs->geo.block_size);
	if (!in || !blk)
		goto out;
	li = (struct ext2_inode_large *)in;
	pthread_mutex_lock(lock);
	rc = ext2fs_read_inode_full(efs, (ext2_ino_t)e->ino, EXT2_INODE(li), (int)isize);
	pthread_mutex_unlock(lock);
	ret = -EIO;
	if (rc)
		goto out;
	if (isize > EXT2_GOOD_OLD_INODE_SIZE + 4 && li->i_extra_isize >= 4 &&
	    EXT2_GOOD_OLD_INODE_SIZE + li->i_extra_isize + 4u <= isize) {
		unsigned char *p = in + EXT2_GOOD_OLD_INODE_SIZE + li->i_extra_isize;

		if (*(uint32_t *)p == EXT2_EXT_ATTR_MAGIC)
			x->in_inode = walk_entries(x, p + 4, isize - (size_t)(p + 4 - in));
	}
	x->block = ext2fs_file_acl_block(efs, EXT2_INODE(li));
	if (x->block) {
		pthread_mutex_lock(lock);
		rc = x->block < ext2fs_blocks_count(efs->super) ?
			     io_channel_read_blk64(efs->io, x->block, 1, blk) :
			     EXT2_ET_BAD_EA_BLOCK_NUM;
		pthread_mutex_unlock(lock);
		if (rc || ((struct ext2_ext_attr_header *)blk)->h_magic != EXT2_EXT_ATTR_MAGIC)
			goto out;
		x->block_refcount = ((struct ext2_ext_attr_header *)blk)->h_refcount;
		x->in_block =
			walk_entries(x, blk + sizeof(struct ext2_ext_attr_header),
				     fs->geo.block_size - sizeof(struct ext2_ext_attr_header));
	}
	ret = 0;
out:
	if (ret)
		fsread_set_err(err, "'%s': cannot read the extended attributes of inode %llu",
			       fs->target, (unsigned long long)e->ino);
	free(in);
	free(blk);
	return ret;
}

int fsread_mounted_xattrs_of(int rootfd, const struct fsread_entry *e,
			     struct fsread_xattrs *x, struct fsread_error *err)
{
	char *list = malloc(XLIST_MAX), proc[64];
	const char *rel = e->path[1] ? e->path + 1 : ".";
	char *path = malloc(strlen(rel) + sizeof(proc) + 2);
	ssize_t n;

	if (!list || !path) {
		free(list);
		free(path);
		fsread_set_err(err, "out of memory");
		return -ENOMEM;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", rootfd);
	sprintf(path, "%s/%s", proc, rel);
	n = llistxattr(path, list, XLIST_MAX);
	for (ssize_t at = 0; n > 0 && at < n; at += (ssize_t)strlen(list + at) + 1) {
		const char *name = list + at;

		if (!strncmp(name, "user.", 5))
			count_index(x, XI_USER);
		else if (!strcmp(name, "system.posix_acl_access"))
			count_index(x, XI_ACL_ACCESS);
		else if (!strcmp(name, "system.posix_acl_default"))
			count_index(x, XI_ACL_DEFAULT);
		else if (!strncmp(name, "trusted.", 8))
			count_index(x, XI_TRUSTED);
		else if (!strncmp(name, "security.", 9))
			count_index(x, XI_SECURITY);
		else
			count_index(x, XI_SYSTEM);
	}
	free(list);
	free(path);
	/* no attributes there at all is not a failure */
	return 0;
}
