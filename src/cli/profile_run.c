/* profile_run.c - `imprint profile`: one read-only walk of a tree or image, then the profile it gives */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <json-c/json.h>

#include "analysis/change.h"
#include "cli/runs.h"
#include "report/measure_print.h"
#include "report/profile_print.h"
#include "util/util.h"

/* A mounted source's absolute path, so that absolute link targets below it resolve inside. */
static void set_strip(struct pstate *s, const char *source, char *buf)
{
	if (!realpath(source, buf))
		return;
	s->strip = buf;
	s->strip_len = strcmp(buf, "/") ? strlen(buf) : 0;
}

/* The parameters of the profile text (len bytes), loaded and resolved as -c loads a file. */
static int profile_reload(const char *text, size_t len, struct params *p)
{
	struct param_error err = { { 0 } };
	char path[64];
	int fd = memfd_create("imprint-profile", MFD_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, text, len) == (ssize_t)len ? 0 : -EIO;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	params_init(p);
	if (!ret && (params_load_file(p, path, &err) || params_resolve(p, &err))) {
		fprintf(stderr, "imprint: the profile does not load back: %s\n", err.msg);
		ret = -EINVAL;
	}
	close(fd);
	return ret;
}

/*
 * The profile to out, and the --html page: the profile as its
 * configuration, the source measured against it (measure's figures).
 */
static int profile_with_page(struct pstate *s, const char *source, const struct profile_opts *o,
			     FILE *out)
{
	struct fsread *fs = s->m.fs;
	struct params *p = malloc(sizeof(*p));
	struct measure_opts mo = {
		.json = o->json,
		.against = p,
		.against_name = o->name ? o->name : "the profile",
		.partition = o->partition,
		.html_path = o->html_path,
		.html_page = o->html_page,
	};
	struct mresult r = { 0 };
	char *text = NULL, label[4200];
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);
	int ret = -ENOMEM;

	struct profile_opts as_text = *o;
	const char *kind = fsread_kind(fs);

	if (!p || !mem)
		goto out_free;
	/* the page holds the profile itself, also when out gets the figures as JSON */
	as_text.json = 0;
	ret = profile_print(s, kind, &as_text, mem);
	if (fclose(mem) && !ret)
		ret = -ENOMEM;
	mem = NULL;
	if (!ret && o->json)
		ret = profile_print(s, kind, o, out);
	else if (!ret && fputs(text, out) < 0)
		ret = -EIO;
	if (ret)
		goto out_free;
	/* the page measures against the profile as written, as measure -c PROFILE would */
	ret = profile_reload(text, len, p);
	if (ret)
		goto out_free;
	json_object_object_add(o->html_page, "config", json_object_new_string(text));
	measure_result_init(&r, fs, source, label, sizeof(label));
	r.have_free = s->have_free;
	r.fr = s->fr;
	ret = measure_compute(&r, &s->m, &mo);
	if (!ret)
		ret = measure_html(&r, &s->m, &mo);
	measure_mresult_release(&r);
out_free:
	if (mem)
		fclose(mem);
	FREE_ALL(p, text);
	return ret;
}

int profile_run(const char *source, const struct profile_opts *o, FILE *out)
{
	struct fsread_error err = { { 0 } };
	struct change_model cm;
	struct pstate *s;
	struct fsread *fs = NULL;
	char root[PATH_MAX], note[256];
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
	ret = fsread_open_part(source, o->partition, FSREAD_EXTENTS | FSREAD_FREE, &fs, &err);
	if (ret) {
		fprintf(stderr, "imprint: %s\n", err.msg);
		goto out_release;
	}
	s->m.fs = fs;
	if (o->html_path) {
		const struct fsread_geometry *geo = fsread_geometry(fs);

		ret = html_map_init(&s->m.map, geo->total_blocks, geo->group_blocks,
				    fsread_is_image(fs));
		if (ret == -ENOMEM)
			goto out_nomem;
	}
	if (!fsread_is_image(fs))
		set_strip(s, source, root);
	ret = fsread_walk(fs, profile_on_entry, s, &err);
	measure_meta_finish(&s->m, fsread_geometry(fs)->block_size);
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
	if (fsread_skipped_note(fs, note, sizeof(note)))
		fprintf(stderr, "imprint: '%s': %s: the profile leaves them out\n", source, note);
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
	if (fsread_is_image(fs)) {
		ret = measure_free_read(fs, PROFILE_FREE_CHUNK, source, &s->fr, &s->m.map);
		if (ret)
			goto out_release;
		s->have_free = 1;
		s->total_bytes = fsread_geometry(fs)->total_blocks *
				 fsread_geometry(fs)->block_size;
	}
	ret = profile_resolve_links(s);
	if (!ret && o->since) {
		ret = change_model_build(o->since, source, &cm);
		s->change = &cm;
		if (ret)
			goto out_release;
	}
	if (!ret && o->html_path)
		ret = profile_with_page(s, source, o, out);
	else if (!ret)
		ret = profile_print(s, fsread_kind(fs), o, out);
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
