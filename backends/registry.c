/* registry.c - the backends there are: a static array, looked up by name, file system and target */
#include <string.h>

#include "backends/backend.h"
#include "backends/registry.h"
#include "util/util.h"

/* Registry order matters to backend_for(): the first that fits wins. */
static const struct backend_ops *const backends[] = {
	&ext4_backend_ops,
	&mounted_backend_ops,
	&loopfs_backend_ops,
	&null_backend_ops,
};

#define NBACKENDS ARRAY_SIZE(backends)

const struct backend_ops *backend_find(const char *name)
{
	for (size_t i = 0; name && i < NBACKENDS; i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}

int backend_makes(const struct backend_ops *ops, const char *fs)
{
	if (!ops->fs_names)
		return 1;
	for (size_t i = 0; fs && ops->fs_names[i]; i++)
		if (strcmp(ops->fs_names[i], fs) == 0)
			return 1;
	return 0;
}

const struct backend_ops *backend_for(const char *fs, unsigned kind)
{
	for (size_t i = 0; i < NBACKENDS; i++)
		if ((backends[i]->targets & kind) && backend_makes(backends[i], fs))
			return backends[i];
	return NULL;
}

const struct backend_ops *const *backend_list(size_t *n)
{
	*n = NBACKENDS;
	return backends;
}

