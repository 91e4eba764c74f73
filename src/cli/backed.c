/* backed.c - create --generation N --backing: generation N evolved from a raw copy of generation N-1's qcow2, so that the overlay stores only what changed */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backends/registry.h"
#include "cli/backed.h"
#include "core/convert.h"
#include "cli/evolve.h"
#include "plan/generation.h"
#include "plan/include.h"
#include "util/cleanup.h"

int backed_evolves(const struct create_args *a, const struct backend_ops *ops,
		   const struct plan *pl)
{
	const char *why = NULL;
	char fs[128], only[sizeof(fs) + 48];

	if (!a->backing || !pl->gen || (ops->caps & BACKEND_DISKLESS))
		return 0;
	if (!(ops->caps & BACKEND_EVOLVES)) {
		/* the file systems of the image files a backend evolves */
		backend_fs_words(BACKEND_EVOLVES, 0, BACKEND_TARGET_FILE, '/', fs, sizeof(fs));
		snprintf(only, sizeof(only), "only %s %s image is evolved in place",
			 strchr("aeiou", fs[0]) ? "an" : "a", fs);
		why = fs[0] ? only : "no image is evolved in place";
	} else if (a->partition)
		why = "with '--partition' the file system sits behind a partition table, which evolve does not read";
	else if (a->includes && a->includes->n)
		why = "'--include' adds entries that evolve does not carry from one generation to the next";
	if (!why)
		return 1;
	fprintf(stderr, "imprint: note: generation %" PRIu32 " is laid out afresh, not evolved from the backing image '%s' (%s): the overlay stores most of the disk\n",
		pl->gen->n, a->backing, why);
	return 0;
}

int backed_build(struct target *t, const char *path, const char *backing, const struct plan *pl,
		 uint64_t disk_size, volatile sig_atomic_t *cancel, struct create_result *res,
		 char *msg, size_t len)
{
	struct backend_edit_usage u;
	char why[512], name[PATH_MAX + 64];
	uint32_t n = pl->gen->n;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = convert_copy_backing(t, backing, path, msg, len);
	if (ret)
		return ret;
	cleanup_test_pause("backing-copied");
	if (*cancel)
		return -EINTR;
	snprintf(name, sizeof(name), "the copy of the backing image '%s'", backing);
	ret = evolve_image(path, name, &pl->prm, cancel, &u, why, sizeof(why));
	if (ret == -ESRCH) {
		fprintf(stderr, "imprint: note: the backing image '%s' does not hold generation %" PRIu32 " of this plan (%s): generation %" PRIu32 " is laid out afresh, so the overlay stores most of the disk\n",
			backing, n - 1, why, n);
		/* the copy goes: the backend starts from an empty sparse file, as without --backing */
		if (ftruncate(target_fd(t), 0) || ftruncate(target_fd(t), (off_t)disk_size)) {
			ret = -errno;
			snprintf(msg, len, "cannot empty the temporary image of '%s': %s", t->path,
				 strerror(-ret));
			return ret;
		}
		return 1;
	}
	if (ret == -EINTR)
		return ret;
	if (ret) {
		snprintf(msg, len, "generation %" PRIu32 " could not be evolved from the backing image '%s'",
			 n, backing);
		return ret;
	}
	res->files = pl->nfiles;
	res->dirs = pl->ndirs;
	res->links = pl->nlinks;
	res->bytes = pl->bytes;
	res->block_size = u.block_size;
	res->blocks_used = u.blocks_used;
	res->have_inodes = 1;
	res->inodes = u.inodes;
	res->inodes_free = u.inodes_free;
	return 0;
}
