/* verify_xattr.h - an entry's extended attributes, and a file's preallocated space, through the kernel against its plan */
#ifndef IMPRINT_VERIFY_XATTR_H
#define IMPRINT_VERIFY_XATTR_H

#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

/*
 * Compare the extended attributes of path (not followed) with the plan's
 * for entry (kind, id): each planned one's value, and no other in the
 * namespaces the plan fills (user.* when xattr_user_share > 0,
 * security.selinux when labelled, system.posix_acl_* with ACLs; the
 * kernel's ACL values are compared byte for byte).  Adds the attributes
 * compared to *checked, the ACLs among them to *acls.  Returns 0 when they match, 1 with msg saying the first
 * difference, or -ENOMEM.
 */
int verify_xattrs(const struct plan *pl, const char *path, enum plan_entry kind, uint64_t id,
		  char *msg, size_t msglen, uint64_t *checked, uint64_t *acls);

/*
 * verify_prealloc.c: when file f (open as fd) is preallocated, its planned
 * unwritten ranges must be unwritten extents (FIEMAP) and at least its
 * planned bytes beyond the end allocated (st_blocks where FIEMAP is not
 * answered).  Adds 1 to *checked for such a file.  Returns 0, 1 with msg
 * saying the difference, or a negative errno.
 */
int verify_prealloc(const struct plan *pl, int fd, uint64_t f, char *msg, size_t msglen,
		    uint64_t *checked);

#endif
