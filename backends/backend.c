/* backend.c - the registry of backends: a static array, looked up by name */
#include <string.h>

#include "backends/backend.h"

volatile sig_atomic_t backend_interrupted;

static const struct backend_ops *const backends[] = {
	&ext4_backend_ops,
	&null_backend_ops,
};

const struct backend_ops *backend_find(const char *name)
{
	for (size_t i = 0; i < sizeof(backends) / sizeof(backends[0]); i++)
		if (strcmp(backends[i]->name, name) == 0)
			return backends[i];
	return NULL;
}
