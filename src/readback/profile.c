/* profile.c - `imprint profile`: one read-only walk of a tree or image, then the profile it gives */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "readback/profile_int.h"

/* A mounted source's absolute path, so that absolute link targets below it resolve inside. */
static void set_strip(struct pstate *s, const char *source, char *buf)
{
	if (!realpath(source, buf))
		return;
	s->strip = buf;
	s->strip_len = strcmp(buf, "/") ? strlen(buf) : 0;
}

int profile_run(const char *source, const struct profile_opts *o, FILE *out)
{
	struct fsread_error err = { { 0 } };
	struct pstate *s;
	struct fsread *fs = NULL;
	char root[PATH_MAX];
	int ret;

	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "imprint: out of memory\n");
		return -ENOMEM;
	}
	s->o = o;
	s->m.stack_cap = 64;
	s->m.stack = malloc(s->m.stack_cap * sizeof(*s->m.stack));
	if (!s->m.stack) {
		ret = -ENOMEM;
		goto out_nomem;
	}
	if (o->content) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		struct content_stats_opts co = {
			.sample_share = o->sample > 0 ? o->sample : 1,
			.jobs = n < 2 ? 0 : n > 64 ? 64 : (unsigned)n,
		};

		s->cst = calloc(1, sizeof(*s->cst));
		if (!s->cst || content_stats_init(s->cst, &co)) {
			free(s->cst);
			s->cst = NULL;
			fprintf(stderr, "imprint: cannot start the content measurement\n");
			ret = -EIO;
			goto out_release;
		}
		s->cw.st = s->cst;
		s->cw.err = &s->cerr;
	}
	ret = fsread_open(source, FSREAD_EXTENTS, &fs, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	s->m.fs = fs;
	if (!fsread_is_image(fs))
		set_strip(s, source, root);
	ret = fsread_walk(fs, profile_on_entry, s, &err);
	if (o->progress)
		fprintf(stderr, "\n");
	if (ret) {
		if (s->m.ret == -ENOMEM || ret == -ENOMEM)
			goto out_nomem;
		if (s->m.ret == -E2BIG)
			fprintf(stderr, "imprint: '%s': the tree is too deep to profile\n", source);
		else
			fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	if (fsread_unreadable(fs))
		fprintf(stderr, "imprint: '%s': %" PRIu64 " directories or files could not be read "
			"(permission): the profile leaves them out\n", source, fsread_unreadable(fs));
	if (s->m.nfiles < 2) {
		fprintf(stderr, "imprint: '%s': %" PRIu64 " regular files: a profile needs at least 2\n",
			source, s->m.nfiles);
		ret = -EINVAL;
		goto out_release;
	}
	if (s->cst) {
		s->cst->holes_unknown = !fsread_has_extents(fs);
		if (content_stats_finish(s->cst)) {
			fprintf(stderr, "imprint: cannot compress the sample of '%s'\n", source);
			ret = -EIO;
			goto out_release;
		}
	}
	ret = profile_resolve_links(s);
	if (!ret)
		ret = profile_print(s, fsread_is_image(fs) ? "an ext2/3/4 image or device" :
				    "a mounted directory tree", o, out);
	if (ret == -ENOMEM)
		goto out_nomem;
	goto out_release;
out_nomem:
	fprintf(stderr, "imprint: '%s': out of memory\n", source);
out_release:
	profile_pstate_release(s);
	free(s);
	fsread_close(fs);
	return ret;
}
