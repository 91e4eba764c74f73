/* verify_xattr.c - an entry's extended attributes through the kernel against its plan */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

#include "analysis/verify_xattr.h"

#define LIST_MAX 65536

/* Whether the plan speaks for attribute name: its namespace is one it fills. */
static int managed(const struct plan *pl, const char *name)
{
	if (!strncmp(name, "user.", 5))
		return pl->prm.xattr_user_share > 0;
	if (!strcmp(name, "security.selinux"))
		return pl->prm.xattr_selinux != SELINUX_NONE;
	if (!strncmp(name, "system.posix_acl_", 17))
		return pl->prm.acl_share > 0;
	return 0;
}

static int planned(const struct plan_xattrs *xa, const char *name)
{
	for (unsigned i = 0; i < xa->n; i++)
		if (!strcmp(xa->name[i], name))
			return 1;
	return 0;
}

int verify_xattrs(const struct plan *pl, const char *path, enum plan_entry kind, uint64_t id,
		  char *msg, size_t msglen, uint64_t *checked, uint64_t *acls)
{
	struct plan_xattrs xa;
	char *list = NULL;
	unsigned char *got = NULL;
	ssize_t n;
	int bad = 0;

	if (!plan_xattrs_enabled(pl))
		return 0;
	plan_xattrs(pl, kind, id, &xa);
	got = malloc(LIST_MAX);
	list = malloc(LIST_MAX);
	if (!got || !list) {
		snprintf(msg, msglen, "out of memory");
		bad = -ENOMEM;
		goto out;
	}
	for (unsigned i = 0; i < xa.n && !bad; i++) {
		n = lgetxattr(path, xa.name[i], got, LIST_MAX);
		(*checked)++;
		*acls += !strncmp(xa.name[i], "system.posix_acl_", 17);
		if (n < 0) {
			snprintf(msg, msglen, "attribute %s: %s", xa.name[i], strerror(errno));
			bad = 1;
		} else if ((size_t)n != xa.len[i] || memcmp(got, xa.value[i], xa.len[i])) {
			snprintf(msg, msglen, "attribute %s: %zd bytes '%.*s', planned %zu bytes '%.*s'",
				 xa.name[i], n, (int)(n > 60 ? 60 : n), (const char *)got, xa.len[i],
				 (int)(xa.len[i] > 60 ? 60 : xa.len[i]), (const char *)xa.value[i]);
			bad = 1;
		}
	}
	n = bad ? 0 : llistxattr(path, list, LIST_MAX);
	if (n < 0 && errno != ENOTSUP) {
		snprintf(msg, msglen, "listxattr: %s", strerror(errno));
		bad = 1;
	}
	for (ssize_t at = 0; n > 0 && at < n && !bad; at += (ssize_t)strlen(list + at) + 1)
		if (managed(pl, list + at) && !planned(&xa, list + at)) {
			snprintf(msg, msglen, "attribute %s is not planned", list + at);
			bad = 1;
		}
out:
	free(got);
	free(list);
	return bad;
}
