/* manifest.c - write the plan as a tab-separated manifest */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan/manifest.h"

#define PATH_BUF (DEPTH_BUF_LEVELS * (NAME_MAX_LEN + 1) + 2)
#define DEPTH_BUF_LEVELS 257

/* A growing line buffer flushed with fwrite: far faster than fprintf per field. */
struct out_buf {
	char *buf;
	size_t len, cap;
	FILE *out;
	int err;
};

static void ob_flush(struct out_buf *ob)
{
	if (ob->len && fwrite(ob->buf, 1, ob->len, ob->out) != ob->len && !ob->err)
		ob->err = errno ? -errno : -EIO;
	ob->len = 0;
}

static void ob_put(struct out_buf *ob, const char *s, size_t n)
{
	if (ob->len + n > ob->cap)
		ob_flush(ob);
	if (n > ob->cap) {
		if (fwrite(s, 1, n, ob->out) != n && !ob->err)
			ob->err = errno ? -errno : -EIO;
		return;
	}
	memcpy(ob->buf + ob->len, s, n);
	ob->len += n;
}

static void ob_str(struct out_buf *ob, const char *s)
{
	ob_put(ob, s, strlen(s));
}

static void ob_u64(struct out_buf *ob, uint64_t v)
{
	char t[24];
	int i = sizeof(t);

	do {
		t[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	ob_put(ob, t + i, sizeof(t) - i);
}

static void ob_tab(struct out_buf *ob)
{
	ob_put(ob, "\t", 1);
}

static void ob_meta(struct out_buf *ob, const struct plan_meta *m)
{
	char t[64];
	int n;

	n = snprintf(t, sizeof(t), "\t%04o\t%" PRIu32 "\t%" PRIu32 "\t%" PRId64 ".%09" PRIu32 "\n",
		     m->mode & 07777, m->uid, m->gid, m->mtime, m->mtime_ns);
	ob_put(ob, t, (size_t)n);
}

static void ob_ext(struct out_buf *ob, const char *ext)
{
	ob_str(ob, *ext ? ext : "-");
}

static int write_dir(struct out_buf *ob, const struct plan *pl, uint32_t j, char *path,
		     size_t plen, char *tbuf)
{
	struct plan_meta m;
	char name[NAME_MAX_LEN + 1];

	plan_dir_meta(pl, j, &m);
	ob_put(ob, plen ? path : "/", plen ? plen : 1);
	ob_str(ob, "\tdir\t0\t-\t");
	ob_u64(ob, pl->dir_depth[j]);
	ob_str(ob, "\t-");
	ob_meta(ob, &m);

	for (uint64_t f = pl->dir_first_file[j];
	     f < (uint64_t)pl->dir_first_file[j] + pl->dir_nfiles[j]; f++) {
		size_t nl = plan_file_name(pl, f, name);

		plan_file_meta(pl, f, &m);
		ob_put(ob, path, plen);
		ob_put(ob, "/", 1);
		ob_put(ob, name, nl);
		ob_str(ob, "\tfile\t");
		ob_u64(ob, pl->file_size[f]);
		ob_tab(ob);
		ob_ext(ob, plan_file_ext(pl, f));
		ob_tab(ob);
		ob_u64(ob, pl->dir_depth[j]);
		ob_str(ob, "\t-");
		ob_meta(ob, &m);
	}
	for (uint32_t l = pl->dir_first_link[j]; l < pl->dir_first_link[j] + pl->dir_nlinks[j];
	     l++) {
		size_t nl = plan_link_name(pl, l, name);
		int tl;

		plan_link_meta(pl, l, &m);
		ob_put(ob, path, plen);
		ob_put(ob, "/", 1);
		ob_put(ob, name, nl);
		if (pl->link_kind[l] & LINK_HARD) {
			uint64_t f = pl->link_target[l];

			tl = plan_dir_path(pl, pl->file_dir[f], tbuf, PATH_BUF);
			if (tl < 0)
				return tl;
			if (tl > 1)
				tbuf[tl++] = '/';
			tl += (int)plan_file_name(pl, f, tbuf + tl);
			ob_str(ob, "\thardlink\t");
			ob_u64(ob, pl->file_size[f]);
			ob_tab(ob);
			ob_ext(ob, plan_file_ext(pl, f));
		} else if (pl->link_kind[l] & LINK_SPECIAL) {
			struct plan_special sp;

			/* target: a device node's major:minor */
			plan_special_info(pl, l, &sp);
			tl = sp.type >= SPECIAL_CHR ?
				     snprintf(tbuf, PATH_BUF, "%u:%u", sp.major, sp.minor) :
				     snprintf(tbuf, PATH_BUF, "-");
			ob_tab(ob);
			ob_str(ob, plan_special_type_name(sp.type));
			ob_str(ob, "\t0\t-");
		} else {
			tl = plan_symlink_target(pl, l, tbuf, PATH_BUF);
			if (tl < 0)
				return tl;
			ob_str(ob, "\tsymlink\t");
			ob_u64(ob, (uint64_t)tl);
			ob_str(ob, "\t-");
		}
		ob_tab(ob);
		ob_u64(ob, pl->dir_depth[j]);
		ob_tab(ob);
		ob_put(ob, tbuf, (size_t)tl);
		ob_meta(ob, &m);
	}
	return ob->err;
}

int manifest_write(const struct plan *pl, FILE *out)
{
	struct out_buf ob = { .cap = 1 << 20, .out = out };
	uint32_t *stack = NULL;
	size_t *plen = NULL;
	char *path = NULL, *tbuf = NULL;
	char name[NAME_MAX_LEN + 1];
	unsigned sp = 0;
	int ret = -ENOMEM;

	ob.buf = malloc(ob.cap);
	stack = malloc(DEPTH_BUF_LEVELS * sizeof(*stack));
	plen = malloc(DEPTH_BUF_LEVELS * sizeof(*plen));
	path = malloc(PATH_BUF);
	tbuf = malloc(PATH_BUF);
	if (!ob.buf || !stack || !plen || !path || !tbuf)
		goto out_free;

	ob_str(&ob, "#path\ttype\tsize\text\tdepth\ttarget\tmode\tuid\tgid\tmtime\n");
	/* iterative depth-first walk; stack[i] is the next child to visit at level i */
	path[0] = '\0';
	ret = write_dir(&ob, pl, 0, path, 0, tbuf);
	if (ret)
		goto out_free;
	stack[0] = pl->ndirs ? pl->dir_first_child[0] : PLAN_NONE;
	plen[0] = 0;
	while (1) {
		uint32_t c = stack[sp];

		if (c == PLAN_NONE) {
			if (sp == 0)
				break;
			sp--;
			continue;
		}
		stack[sp] = pl->dir_next_sibling[c];
		size_t at = plen[sp], nl = plan_dir_name(pl, c, name);

		path[at] = '/';
		memcpy(path + at + 1, name, nl);
		at += nl + 1;
		path[at] = '\0';
		ret = write_dir(&ob, pl, c, path, at, tbuf);
		if (ret)
			goto out_free;
		sp++;
		stack[sp] = pl->dir_first_child[c];
		plen[sp] = at;
	}
	ob_flush(&ob);
	if (!ob.err && fflush(out) != 0)
		ob.err = -errno;
	ret = ob.err;
out_free:
	free(ob.buf);
	free(stack);
	free(plen);
	free(path);
	free(tbuf);
	return ret;
}
