/* include.c - --include SRC[:DEST]: the user's trees read into a sorted list of entries */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "plan/include.h"
#include "util/array.h"
#include "util/strutil.h"

#define INCLUDE_DEPTH_MAX 256	 /* directories nested in one SRC */
#define INCLUDE_NAME_MAX  255	 /* bytes of one DEST component */
#define INCLUDE_XATTR_LIST 65536 /* bytes of one entry's attribute names */

/* DEST's shape: absolute, below '/', no '.', '..' or empty component, components <= 255 bytes. */
static int dest_check(const char *arg, const char *dest, char *err, size_t len)
{
	const char *c = dest + 1;

	if (dest[0] != '/') {
		errbuf_set(err, len, "--include '%s': DEST '%s' must be an absolute path in the image (e.g. '/opt/%s')",
			   arg, dest, dest);
		return -EINVAL;
	}
	if (!dest[1]) {
		errbuf_set(err, len, "--include '%s': DEST must name an entry below '/' (e.g. '/data'), not the root itself",
			   arg);
		return -EINVAL;
	}
	if (strlen(dest) >= PATH_MAX) {
		errbuf_set(err, len, "--include '%s': DEST is longer than %d bytes", arg, PATH_MAX - 1);
		return -EINVAL;
	}
	while (*c) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) {
			errbuf_set(err, len, "--include '%s': DEST '%s' may not hold '.', '..' or an empty component ('//', a final '/')",
				   arg, dest);
			return -EINVAL;
		}
		if (n > INCLUDE_NAME_MAX) {
			errbuf_set(err, len, "--include '%s': a component of DEST is %zu bytes long; at most %d are allowed",
				   arg, n, INCLUDE_NAME_MAX);
			return -EINVAL;
		}
		c += n;
		if (*c == '/')
			c++;
		else
			break;
	}
	if (dest[strlen(dest) - 1] == '/') {
		errbuf_set(err, len, "--include '%s': DEST '%s' may not end in '/'", arg, dest);
		return -EINVAL;
	}
	return 0;
}

int include_add(struct include_set *s, const char *arg, char *err, size_t len)
{
	const char *colon = strrchr(arg, ':');
	struct include_spec sp = { 0 };
	int ret;

	if (!*arg) {
		errbuf_set(err, len, "--include needs SRC or SRC:DEST (got '')");
		return -EINVAL;
	}
	if (colon && colon[1] != '/' && colon[1] != '\0') {
		struct stat st;

		if (lstat(arg, &st) != 0) {
			errbuf_set(err, len, "--include '%s': DEST '%s' must be an absolute path in the image (e.g. '/opt/%s')",
				   arg, colon + 1, colon + 1);
			return -EINVAL;
		}
		colon = NULL; /* a ':' inside SRC's name */
	}
	sp.spec = strdup(arg);
	sp.src = colon ? strndup(arg, (size_t)(colon - arg)) : strdup(arg);
	if (!sp.spec || !sp.src)
		goto out_nomem;
	if (!sp.src[0]) {
		errbuf_set(err, len, "--include '%s': SRC is empty; give a file or directory to copy", arg);
		ret = -EINVAL;
		goto out_free;
	}
	if (colon && !colon[1]) {
		errbuf_set(err, len, "--include '%s': DEST after ':' is empty; give an absolute path in the image",
			   arg);
		ret = -EINVAL;
		goto out_free;
	}
	if (colon) {
		sp.dest = strdup(colon + 1);
	} else {
		/* SRC's last component, trailing slashes aside */
		size_t n = strlen(sp.src), e;
		const char *b;

		while (n > 1 && sp.src[n - 1] == '/')
			n--;
		e = n;
		while (n > 0 && sp.src[n - 1] != '/')
			n--;
		b = sp.src + n;
		if (e == n || (e - n == 1 && b[0] == '.') || (e - n == 2 && b[0] == '.' && b[1] == '.')) {
			errbuf_set(err, len, "--include '%s': SRC has no name to place it under; give SRC:DEST",
				   arg);
			ret = -EINVAL;
			goto out_free;
		}
		if (asprintf(&sp.dest, "/%.*s", (int)(e - n), b) < 0)
			sp.dest = NULL;
	}
	if (!sp.dest)
		goto out_nomem;
	ret = dest_check(arg, sp.dest, err, len);
	if (ret)
		goto out_free;
	if (array_resize(&s->specs, s->nspecs + 1, sizeof(*s->specs)))
		goto out_nomem;
	s->specs[s->nspecs++] = sp;
	return 0;
out_nomem:
	errbuf_set(err, len, "out of memory");
	ret = -ENOMEM;
out_free:
	free(sp.spec);
	free(sp.src);
	free(sp.dest);
	return ret;
}

/* Paths in order component by component: '/' sorts before every other byte. */
static int path_cmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	if (*a == *b)
		return 0;
	if (!*a)
		return -1;
	if (!*b)
		return 1;
	if (*a == '/')
		return -1;
	if (*b == '/')
		return 1;
	return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
}

static int entry_cmp(const void *a, const void *b)
{
	return path_cmp(((const struct include_entry *)a)->dest,
			((const struct include_entry *)b)->dest);
}

/* Whether path lies inside dir (or is dir). */
static int path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 1 && dir[0] == '/')
		return 1;
	return !strncmp(path, dir, n) && (path[n] == '/' || path[n] == '\0');
}

/* A new entry at the end of s->e, zeroed; NULL when out of memory. */
static struct include_entry *entry_new(struct include_set *s)
{
	if (array_grow(&s->e, &s->cap, s->n + 1, sizeof(*s->e)))
		return NULL;
	memset(&s->e[s->n], 0, sizeof(s->e[0]));
	return &s->e[s->n++];
}

/* The attributes of path (not followed): -errno on a read error other than "none here". */
static int read_xattrs(struct include_entry *e, const char *path)
{
	char *names;
	ssize_t n;

	n = llistxattr(path, NULL, 0);
	if (n < 0)
		return errno == ENOTSUP ? 0 : -errno;
	if (n == 0)
		return 0;
	if (n > INCLUDE_XATTR_LIST)
		return -E2BIG;
	names = malloc((size_t)n);
	if (!names)
		return -ENOMEM;
	n = llistxattr(path, names, (size_t)n);
	if (n < 0) {
		free(names);
		return -errno;
	}
	/* in name order, so that the image does not depend on the host's */
	for (char *nm = names; nm < names + n; nm += strlen(nm) + 1) {
		ssize_t v = lgetxattr(path, nm, NULL, 0);
		struct include_xattr *x;
		size_t at;

		if (v < 0) {
			free(names);
			return -errno;
		}
		if (array_resize(&e->xattrs, e->nxattrs + 1, sizeof(*e->xattrs))) {
			free(names);
			return -ENOMEM;
		}
		at = e->nxattrs;
		while (at > 0 && strcmp(e->xattrs[at - 1].name, nm) > 0) {
			e->xattrs[at] = e->xattrs[at - 1];
			at--;
		}
		x = &e->xattrs[at];
		memset(x, 0, sizeof(*x));
		e->nxattrs++;
		x->name = strdup(nm);
		x->value = malloc(v ? (size_t)v : 1);
		if (!x->name || !x->value) {
			free(names);
			return -ENOMEM;
		}
		v = lgetxattr(path, nm, x->value, (size_t)v);
		if (v < 0) {
			free(names);
			return -errno;
		}
		x->len = (size_t)v;
	}
	free(names);
	return 0;
}

/* What a special file is, in words. */
static const char *special_word(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" : "not a regular file";
}

struct scan {
	struct include_set *s;
	unsigned source;
	const char *arg;
	char *err;
	size_t len;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int scan_path(struct scan *sc, const char *src, const char *dest, int depth, int follow);

/* The names of directory src, sorted, read without touching its access time where allowed. */
static int scan_dir(struct scan *sc, const char *src, const char *dest, int depth)
{
	struct dirent *de;
	char **names = NULL, *sp = NULL, *dp = NULL;
	size_t n = 0, cap = 0;
	int fd, ret = 0;
	DIR *d;

	fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(src, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		errbuf_set(sc->err, sc->len, "--include '%s': cannot read directory '%s': %s", sc->arg,
			   src, strerror(-ret));
		return ret;
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (array_grow(&names, &cap, n + 1, sizeof(*names)) || !(names[n] = strdup(de->d_name))) {
			ret = -ENOMEM;
			break;
		}
		n++;
	}
	if (!ret && errno) {
		ret = -errno;
		errbuf_set(sc->err, sc->len, "--include '%s': cannot read directory '%s': %s", sc->arg,
			   src, strerror(-ret));
	}
	closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);
	for (size_t i = 0; !ret && i < n; i++) {
		if (asprintf(&sp, "%s/%s", src, names[i]) < 0 ||
		    asprintf(&dp, "%s/%s", dest, names[i]) < 0) {
			ret = -ENOMEM;
			break;
		}
		if (strlen(dp) >= PATH_MAX) {
			errbuf_set(sc->err, sc->len, "--include '%s': '%s' would be longer than %d bytes in the image",
				   sc->arg, dp, PATH_MAX - 1);
			ret = -ENAMETOOLONG;
		} else {
			ret = scan_path(sc, sp, dp, depth + 1, 0);
		}
		free(sp);
		free(dp);
		sp = dp = NULL;
	}
	free(sp);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (ret == -ENOMEM)
		errbuf_set(sc->err, sc->len, "out of memory");
	return ret;
}

/* One entry of SRC, and below it for a directory. */
static int scan_path(struct scan *sc, const char *src, const char *dest, int depth, int follow)
{
	struct include_set *s = sc->s;
	struct include_entry *e;
	struct stat st;
	int ret, fd;

	if ((follow ? stat(src, &st) : lstat(src, &st)) != 0) {
		ret = -errno;
		errbuf_set(sc->err, sc->len, "--include '%s': cannot read '%s': %s", sc->arg, src,
			   strerror(-ret));
		return ret;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		errbuf_set(sc->err, sc->len, "--include '%s': '%s' is %s: special files (devices, FIFOs, sockets) are refused, not copied; leave them out of SRC",
			   sc->arg, src, special_word(st.st_mode));
		return -EINVAL;
	}
	if (depth > INCLUDE_DEPTH_MAX) {
		errbuf_set(sc->err, sc->len, "--include '%s': '%s' is nested deeper than %d directories",
			   sc->arg, src, INCLUDE_DEPTH_MAX);
		return -ELOOP;
	}
	if (S_ISREG(st.st_mode)) {
		/* refused now rather than halfway through writing the image */
		fd = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOATIME);
		if (fd < 0 && errno == EPERM)
			fd = open(src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd < 0) {
			ret = -errno;
			errbuf_set(sc->err, sc->len, "--include '%s': cannot read '%s': %s", sc->arg, src,
				   strerror(-ret));
			return ret;
		}
		close(fd);
	}
	e = entry_new(s);
	if (!e)
		goto out_nomem;
	e->dest = strdup(dest);
	e->src = strdup(src);
	if (!e->dest || !e->src)
		goto out_nomem;
	e->source = sc->source;
	e->mode = (uint32_t)st.st_mode;
	e->uid = st.st_uid;
	e->gid = st.st_gid;
	/* reading a link (readlink) moves its access time: its mtime stands in, or no two runs agree */
	e->atime = S_ISLNK(st.st_mode) ? st.st_mtim : st.st_atim;
	e->mtime = st.st_mtim;
	e->ctime = st.st_ctim;
	e->host_mtime = st.st_mtim;
	e->nlink = 1;
	e->link_of = SIZE_MAX;
	e->size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
	e->host_dev = (uint64_t)st.st_dev;
	e->host_ino = S_ISREG(st.st_mode) && st.st_nlink > 1 ? (uint64_t)st.st_ino : 0;
	if (S_ISLNK(st.st_mode)) {
		char buf[PATH_MAX];
		ssize_t n = readlink(src, buf, sizeof(buf) - 1);

		if (n < 0) {
			ret = -errno;
			errbuf_set(sc->err, sc->len, "--include '%s': cannot read link '%s': %s", sc->arg,
				   src, strerror(-ret));
			return ret;
		}
		buf[n] = '\0';
		e->kind = INCLUDE_SYMLINK;
		e->target = strdup(buf);
		if (!e->target)
			goto out_nomem;
		e->size = (uint64_t)n;
	} else {
		e->kind = S_ISDIR(st.st_mode) ? INCLUDE_DIR : INCLUDE_FILE;
	}
	if (!s->normalize) {
		ret = read_xattrs(e, src);
		if (ret) {
			errbuf_set(sc->err, sc->len, "--include '%s': cannot read the extended attributes of '%s': %s",
				   sc->arg, src, strerror(-ret));
			return ret;
		}
	}
	if (e->kind == INCLUDE_DIR)
		return scan_dir(sc, src, dest, depth);
	return 0;
out_nomem:
	errbuf_set(sc->err, sc->len, "out of memory");
	return -ENOMEM;
}

/* The directories a DEST needs above it, made root:root 0755 (at time_ref: include_set_time()). */
static int add_parents(struct include_set *s, const char *dest)
{
	for (const char *c = strchr(dest + 1, '/'); c; c = strchr(c + 1, '/')) {
		struct include_entry *e;

		for (size_t i = 0; i < s->n; i++)
			if (strlen(s->e[i].dest) == (size_t)(c - dest) &&
			    !strncmp(s->e[i].dest, dest, (size_t)(c - dest)))
				goto next;
		e = entry_new(s);
		if (!e || !(e->dest = strndup(dest, (size_t)(c - dest))))
			return -ENOMEM;
		e->kind = INCLUDE_DIR;
		e->mode = S_IFDIR | 0755;
		e->nlink = 1;
		e->link_of = SIZE_MAX;
		e->source = UINT32_MAX;
next:;
	}
	return 0;
}

/* The DESTs may not overlap, nor take the root's lost+found. */
static int check_dests(const struct include_set *s, char *err, size_t len)
{
	for (size_t i = 0; i < s->nspecs; i++) {
		const char *d = s->specs[i].dest;

		if (path_within(d, "/lost+found")) {
			errbuf_set(err, len, "--include '%s': DEST '%s' is inside /lost+found, which the file system keeps for itself",
				   s->specs[i].spec, d);
			return -EINVAL;
		}
		for (size_t j = 0; j < i; j++) {
			const char *o = s->specs[j].dest;

			if (path_within(d, o) || path_within(o, d)) {
				errbuf_set(err, len, "--include '%s': DEST '%s' %s DEST '%s' of --include '%s'; give each include its own destination",
					   s->specs[i].spec, d, !strcmp(d, o) ? "is also" : "overlaps",
					   o, s->specs[j].spec);
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* Entry indexes by host (device, inode), then by index: path order within an inode. */
static const struct include_entry *pair_entries;

static int pair_cmp(const void *a, const void *b)
{
	const struct include_entry *x = &pair_entries[*(const size_t *)a];
	const struct include_entry *y = &pair_entries[*(const size_t *)b];

	if (x->host_dev != y->host_dev)
		return x->host_dev < y->host_dev ? -1 : 1;
	if (x->host_ino != y->host_ino)
		return x->host_ino < y->host_ino ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Hard links: the names of one host inode become its first name's file and other names. */
static int pair_links(struct include_set *s)
{
	size_t *k, nk = 0;

	for (size_t i = 0; i < s->n; i++)
		nk += s->e[i].kind == INCLUDE_FILE && s->e[i].host_ino;
	if (!nk)
		return 0;
	k = calloc(nk, sizeof(*k));
	if (!k)
		return -ENOMEM;
	nk = 0;
	for (size_t i = 0; i < s->n; i++)
		if (s->e[i].kind == INCLUDE_FILE && s->e[i].host_ino)
			k[nk++] = i;
	pair_entries = s->e;
	qsort(k, nk, sizeof(*k), pair_cmp);
	for (size_t a = 0, b; a < nk; a = b) {
		struct include_entry *first = &s->e[k[a]];

		for (b = a + 1; b < nk && s->e[k[b]].host_dev == first->host_dev &&
				s->e[k[b]].host_ino == first->host_ino; b++) {
			s->e[k[b]].kind = INCLUDE_HARDLINK;
			s->e[k[b]].link_of = k[a];
			first->nlink++;
		}
	}
	free(k);
	return 0;
}

int include_scan(struct include_set *s, char *err, size_t len)
{
	int ret = check_dests(s, err, len);

	for (size_t i = 0; !ret && i < s->nspecs; i++) {
		struct scan sc = { .s = s, .source = (unsigned)i, .arg = s->specs[i].spec,
				   .err = err, .len = len };

		ret = scan_path(&sc, s->specs[i].src, s->specs[i].dest, 0, 1);
		if (!ret && add_parents(s, s->specs[i].dest))
			ret = -ENOMEM;
	}
	if (!ret) {
		qsort(s->e, s->n, sizeof(*s->e), entry_cmp);
		ret = pair_links(s);
	}
	if (ret == -ENOMEM)
		errbuf_set(err, len, "out of memory");
	if (ret)
		return ret;
	for (size_t i = 0; i < s->n; i++) {
		struct include_entry *e = &s->e[i];

		if (s->normalize && e->src) {
			int exec = e->kind == INCLUDE_DIR || (e->mode & 0111);

			e->uid = e->gid = 0;
			if (e->kind != INCLUDE_SYMLINK)
				e->mode = (e->mode & S_IFMT) | (exec ? 0755 : 0644);
		}
		switch (e->kind) {
		case INCLUDE_DIR:
			s->dirs++;
			break;
		case INCLUDE_FILE:
			s->files++;
			s->bytes += e->size;
			break;
		case INCLUDE_SYMLINK:
			s->symlinks++;
			break;
		case INCLUDE_HARDLINK:
			s->hardlinks++;
			break;
		}
		s->xattrs += e->nxattrs;
		/* the root's names the plan must leave free */
		if (!strchr(e->dest + 1, '/')) {
			if (array_resize(&s->top, s->ntop + 1, sizeof(*s->top))) {
				errbuf_set(err, len, "out of memory");
				return -ENOMEM;
			}
			s->top[s->ntop++] = e->dest + 1;
		}
	}
	return 0;
}

int include_check_target(const struct include_set *s, const char *target, int is_dir,
			 char *err, size_t len)
{
	char t[PATH_MAX], dir[PATH_MAX], src[PATH_MAX];
	const char *slash;

	if (!s->nspecs)
		return 0;
	/* the target's directory resolved, and its name beside it (it may not exist yet) */
	if (!realpath(target, t)) {
		slash = strrchr(target, '/');
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash == target ? 1 : slash - target),
				 target);
		if (!realpath(dir, t))
			return 0; /* the target's own checks name what is missing */
		if (strlen(t) + strlen(slash ? slash : target) + 2 > sizeof(t))
			return 0;
		strcat(t, "/");
		strcat(t, slash ? slash + 1 : target);
	}
	for (size_t i = 0; i < s->nspecs; i++) {
		if (!realpath(s->specs[i].src, src))
			continue; /* include_scan() names it */
		if (path_within(t, src) || (is_dir && path_within(src, t))) {
			errbuf_set(err, len, "--include '%s': SRC '%s' %s the target '%s'; an image cannot hold what it is written into",
				   s->specs[i].spec, s->specs[i].src,
				   path_within(t, src) ? (strcmp(t, src) ? "holds" : "is") :
							 "lies inside",
				   target);
			return -EINVAL;
		}
	}
	return 0;
}

uint64_t include_blocks(const struct include_set *s, unsigned bs)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct include_entry *e = &s->e[i];
		uint64_t names = 0, xbytes = 0;

		switch (e->kind) {
		case INCLUDE_FILE:
			/* data, and an extent index block a 340 blocks (never under) */
			n += (e->size + bs - 1) / bs;
			n += (e->size / bs) / 340;
			break;
		case INCLUDE_SYMLINK:
			n += e->size > 59;
			break;
		case INCLUDE_DIR:
			for (size_t j = i + 1; j < s->n && path_within(s->e[j].dest, e->dest); j++)
				if (include_parent(s, j) == i)
					names += 8 + strlen(include_name(&s->e[j])) + 4;
			n += 1 + (names + 24) / (bs - 24);
			break;
		case INCLUDE_HARDLINK:
			break;
		}
		for (size_t x = 0; x < e->nxattrs; x++)
			xbytes += 16 + strlen(e->xattrs[x].name) + e->xattrs[x].len;
		n += xbytes > 96; /* beyond what a 256-byte inode holds: a block */
	}
	return n;
}

void include_set_time(struct include_set *s, int64_t time_ref)
{
	for (size_t i = 0; i < s->n; i++) {
		struct include_entry *e = &s->e[i];

		if (e->src && !s->normalize)
			continue;
		e->atime.tv_sec = e->mtime.tv_sec = e->ctime.tv_sec = time_ref;
		e->atime.tv_nsec = e->mtime.tv_nsec = e->ctime.tv_nsec = 0;
	}
}

/* FNV-1a over n bytes, continued from h. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ULL;
	return h;
}

uint64_t include_key(const struct include_set *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	if (!s->n)
		return 0;
	h = fnv(h, &s->normalize, sizeof(s->normalize));
	for (size_t i = 0; i < s->n; i++) {
		const struct include_entry *e = &s->e[i];
		int64_t t[2] = { e->mtime.tv_sec, e->mtime.tv_nsec };

		h = fnv(h, e->dest, strlen(e->dest) + 1);
		h = fnv(h, &e->kind, sizeof(e->kind));
		h = fnv(h, &e->mode, sizeof(e->mode));
		h = fnv(h, &e->uid, sizeof(e->uid));
		h = fnv(h, &e->gid, sizeof(e->gid));
		h = fnv(h, &e->size, sizeof(e->size));
		if (e->src && !s->normalize)
			h = fnv(h, t, sizeof(t));
	}
	return h ? h : 1;
}

/* A path or link target for the manifest: '\\', tab and newline escaped. */
static void put_escaped(FILE *out, const char *t)
{
	for (; *t; t++)
		if (*t == '\\' || *t == '\t' || *t == '\n')
			fprintf(out, "\\%c", *t == '\t' ? 't' : *t == '\n' ? 'n' : '\\');
		else
			putc(*t, out);
}

int include_manifest_write(const struct include_set *s, FILE *out)
{
	static const char *const kind[] = { "dir", "file", "symlink", "hardlink" };

	if (!s->n)
		return 0;
	fprintf(out, "#included (--include%s): path\ttype\tsize\text\tdepth\ttarget\tmode\tuid\tgid\tmtime\tsource\n",
		s->normalize ? ", --include-normalize" : "");
	for (size_t i = 0; i < s->n; i++) {
		const struct include_entry *e = &s->e[i];
		unsigned depth = 0;

		for (const char *c = e->dest + 1; *c; c++)
			depth += *c == '/';
		put_escaped(out, e->dest);
		fprintf(out, "\t%s\t%" PRIu64 "\t-\t%u\t", kind[e->kind],
			e->kind == INCLUDE_HARDLINK ? s->e[e->link_of].size : e->size, depth);
		if (e->kind == INCLUDE_SYMLINK)
			put_escaped(out, e->target);
		else if (e->kind == INCLUDE_HARDLINK)
			put_escaped(out, s->e[e->link_of].dest);
		else
			putc('-', out);
		fprintf(out, "\t%04o\t%" PRIu32 "\t%" PRIu32 "\t%lld.%09ld\t", e->mode & 07777,
			e->uid, e->gid, (long long)e->mtime.tv_sec, (long)e->mtime.tv_nsec);
		put_escaped(out, e->src ? e->src : "-");
		putc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

uint64_t include_inodes(const struct include_set *s)
{
	return s->files + s->dirs + s->symlinks;
}

const char *include_name(const struct include_entry *e)
{
	return strrchr(e->dest, '/') + 1;
}

size_t include_parent(const struct include_set *s, size_t i)
{
	const char *d = s->e[i].dest, *slash = strrchr(d, '/');
	size_t lo = 0, hi = i, n = (size_t)(slash - d);
	char *p;

	if (slash == d)
		return SIZE_MAX;
	p = strndup(d, n);
	if (!p)
		return SIZE_MAX;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = path_cmp(s->e[mid].dest, p);

		if (!c) {
			free(p);
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	free(p);
	return SIZE_MAX;
}

void include_release(struct include_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].dest);
		free(s->e[i].src);
		free(s->e[i].target);
		for (size_t x = 0; x < s->e[i].nxattrs; x++) {
			free(s->e[i].xattrs[x].name);
			free(s->e[i].xattrs[x].value);
		}
		free(s->e[i].xattrs);
	}
	free(s->e);
	for (size_t i = 0; i < s->nspecs; i++) {
		free(s->specs[i].spec);
		free(s->specs[i].src);
		free(s->specs[i].dest);
	}
	free(s->specs);
	free(s->top);
	memset(s, 0, sizeof(*s));
}

/* Whether st is still the file e was planned from: size and mtime. */
static int source_same(const struct include_entry *e, const struct stat *st, char *err, size_t len)
{
	if (!S_ISREG(st->st_mode)) {
		errbuf_set(err, len, "--include: '%s' is no longer a regular file since it was planned; run again",
			   e->src);
		return -ESTALE;
	}
	if ((uint64_t)st->st_size != e->size || st->st_mtim.tv_sec != e->host_mtime.tv_sec ||
	    st->st_mtim.tv_nsec != e->host_mtime.tv_nsec) {
		errbuf_set(err, len, "--include: '%s' changed since it was planned (size %lld, mtime %lld.%09ld; planned %" PRIu64 ", %lld.%09ld); nothing of it is copied, run again",
			   e->src, (long long)st->st_size, (long long)st->st_mtim.tv_sec,
			   st->st_mtim.tv_nsec, e->size, (long long)e->host_mtime.tv_sec,
			   e->host_mtime.tv_nsec);
		return -ESTALE;
	}
	return 0;
}

int include_open_source(const struct include_entry *e, char *err, size_t len)
{
	struct stat st;
	int fd, ret;

	fd = open(e->src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | O_NOATIME);
	if (fd < 0 && errno == EPERM)
		fd = open(e->src, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		errbuf_set(err, len, "--include: cannot read '%s': %s", e->src, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st) != 0) {
		ret = -errno;
		close(fd);
		errbuf_set(err, len, "--include: cannot read '%s': %s", e->src, strerror(-ret));
		return ret;
	}
	ret = source_same(e, &st, err, len);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

int include_check_copied(const struct include_entry *e, int fd, uint64_t n, char *err, size_t len)
{
	struct stat st;

	if (fstat(fd, &st) != 0) {
		int ret = -errno;

		errbuf_set(err, len, "--include: cannot read '%s': %s", e->src, strerror(-ret));
		return ret;
	}
	if (n != e->size) {
		errbuf_set(err, len, "--include: '%s' gave %" PRIu64 " bytes where %" PRIu64 " were planned: it changed while it was copied, or its size is not its length (as in /proc and /sys); nothing of it is kept",
			   e->src, n, e->size);
		return -ESTALE;
	}
	return source_same(e, &st, err, len);
}
