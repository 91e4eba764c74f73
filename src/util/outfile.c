/* outfile.c - output files written whole under a temporary name, refused when not a regular file */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cleanup.h"
#include "util/outfile.h"
#include "util/strutil.h"

/* What an existing non-regular file is, in words. */
static const char *kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISLNK(m) ? "a symbolic link" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int outfile_check(const char *path, const char *what, unsigned flags, char *err, size_t errlen)
{
	struct stat st;
	char *dir, *slash;
	int ret;

	if (!path[0] || (strcmp(path, "-") == 0 && !(flags & OUTFILE_STDOUT))) {
		errbuf_set(err, errlen, "%s needs a file name (got '%s')", what, path);
		return -EINVAL;
	}
	if (strcmp(path, "-") == 0)
		return 0;
	if (lstat(path, &st) == 0) {
		if (!S_ISREG(st.st_mode)) {
			errbuf_set(err, errlen,
				   "'%s' is %s: %s writes a regular file (a new one, or one it replaces)%s",
				   path, kind_of(st.st_mode), what,
				   flags & OUTFILE_STDOUT ? "; '-' is standard output" : "");
			return S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
		}
		if (flags & OUTFILE_NO_REPLACE) {
			errbuf_set(err, errlen, "'%s' exists: give --force to replace it", path);
			return -EEXIST;
		}
	} else if (errno != ENOENT) {
		ret = -errno;
		errbuf_set(err, errlen, "cannot use '%s' for %s: %s", path, what, strerror(errno));
		return ret;
	}
	dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir] = '\0';
	ret = access(slash ? dir : ".", W_OK | X_OK) ? -errno : 0;
	if (ret)
		errbuf_set(err, errlen, "cannot write '%s' for %s: %s", path, what, strerror(-ret));
	free(dir);
	return ret;
}

int outfile_open(struct outfile *o, const char *path, const char *what, unsigned flags, char *err,
		 size_t errlen)
{
	size_t len = strlen(path) + 16;
	mode_t mask;
	int fd, ret;

	memset(o, 0, sizeof(*o));
	ret = outfile_check(path, what, flags, err, errlen);
	if (ret)
		return ret;
	o->path = path;
	if (strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->tmp = malloc(len);
	if (!o->tmp)
		return -ENOMEM;
	snprintf(o->tmp, len, "%s.tmp.XXXXXX", path);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		ret = -errno;
		errbuf_set(err, errlen, "cannot create '%s': %s", o->tmp, strerror(errno));
		goto out_free;
	}
	cleanup_track(o->tmp, CLEANUP_FILE);
	/* mkstemp makes 0600; an output is an ordinary file */
	mask = umask(0);
	umask(mask);
	o->f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "w") : NULL;
	if (!o->f) {
		ret = -errno;
		errbuf_set(err, errlen, "cannot create '%s': %s", o->tmp, strerror(errno));
		close(fd);
		unlink(o->tmp);
		cleanup_untrack(o->tmp);
		goto out_free;
	}
	return 0;
out_free:
	free(o->tmp);
	o->tmp = NULL;
	return ret;
}

int outfile_commit(struct outfile *o, char *err, size_t errlen)
{
	int ret = 0;

	if (!o->tmp) { /* stdout: flushed, left open */
		if (o->f && (fflush(o->f) != 0 || ferror(o->f)))
			ret = errno ? -errno : -EIO;
		if (ret)
			errbuf_set(err, errlen, "cannot write to standard output: %s",
				   strerror(-ret));
		o->f = NULL;
		return ret;
	}
	if (ferror(o->f))
		ret = -EIO;
	if (fclose(o->f) != 0 && !ret)
		ret = -errno;
	o->f = NULL;
	if (!ret && rename(o->tmp, o->path) != 0)
		ret = -errno;
	if (ret) {
		errbuf_set(err, errlen, "cannot write '%s': %s", o->path, strerror(-ret));
		unlink(o->tmp);
	}
	cleanup_untrack(o->tmp);
	free(o->tmp);
	o->tmp = NULL;
	return ret;
}

void outfile_abort(struct outfile *o)
{
	if (o->tmp) {
		if (o->f)
			fclose(o->f);
		unlink(o->tmp);
		cleanup_untrack(o->tmp);
		free(o->tmp);
	}
	memset(o, 0, sizeof(*o));
}
