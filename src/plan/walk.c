/* walk.c - the plan in its one order: each directory, then its files, then its links */
#include "plan/walk.h"

int plan_walk(const struct plan *pl, const struct plan_walk_ops *ops, void *ctx)
{
	int ret;

	for (uint32_t j = 0; j < pl->ndirs; j++) {
		uint64_t f0 = pl->dir_first_file[j];
		uint32_t l0 = pl->dir_first_link[j];

		if (ops->dir && (ret = ops->dir(ctx, j)))
			return ret;
		for (uint64_t f = f0; ops->file && f < f0 + pl->dir_nfiles[j]; f++)
			if ((ret = ops->file(ctx, j, f)))
				return ret;
		for (uint32_t l = l0; ops->link && l < l0 + pl->dir_nlinks[j]; l++)
			if ((ret = ops->link(ctx, j, l)))
				return ret;
	}
	return 0;
}
