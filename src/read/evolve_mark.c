/* evolve_mark.c - the mark an ext2/3/4 image or device carries while `imprint evolve` changes it */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "read/evolve_mark.h"

/* The first line: what a person who looks at the bytes reads first. */
static const char magic[] = "imprint evolve: half-done unless running; "
			    "'imprint evolve --rollback TARGET' undoes it\n";

void evolve_mark_format(const struct evolve_mark *m, char *buf)
{
	memset(buf, 0, EVOLVE_MARK_SIZE);
	snprintf(buf, EVOLVE_MARK_SIZE, "%sfrom %" PRIu32 " to %" PRIu32 "\nundo %s\nkeep %s\n",
		 magic, m->from, m->to, m->undo, m->keep);
}

/* The rest of the line after "key " at *p into out (len bytes), *p moved past it; 0 or -1. */
static int field(const char **p, const char *key, char *out, size_t len)
{
	size_t k = strlen(key), n;
	const char *nl;

	if (strncmp(*p, key, k) || (*p)[k] != ' ' || !(nl = strchr(*p + k + 1, '\n')))
		return -1;
	n = (size_t)(nl - (*p + k + 1));
	if (n >= len)
		return -1;
	memcpy(out, *p + k + 1, n);
	out[n] = '\0';
	*p = nl + 1;
	return 0;
}

int evolve_mark_parse(const char *buf, struct evolve_mark *m)
{
	const char *p = buf + sizeof(magic) - 1;

	if (memcmp(buf, magic, sizeof(magic) - 1) || !memchr(buf, '\0', EVOLVE_MARK_SIZE))
		return 0;
	memset(m, 0, sizeof(*m));
	if (sscanf(p, "from %" SCNu32 " to %" SCNu32 "\n", &m->from, &m->to) != 2 ||
	    !(p = strchr(p, '\n')))
		return 0;
	p++;
	return !field(&p, "undo", m->undo, sizeof(m->undo)) &&
	       !field(&p, "keep", m->keep, sizeof(m->keep));
}

int evolve_mark_read(int fd, uint64_t base, struct evolve_mark *m)
{
	char buf[EVOLVE_MARK_SIZE];
	ssize_t n = pread(fd, buf, sizeof(buf), (off_t)base);

	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(buf) && evolve_mark_parse(buf, m);
}

int evolve_mark_refuse(int fd, uint64_t base, const char *target, char *msg, size_t len)
{
	struct evolve_mark m;

	if (evolve_mark_read(fd, base, &m) != 1)
		return 0;
	evolve_mark_tell(&m, target, msg, len);
	return -EBUSY;
}

/* Whether the evolve that wrote the mark still runs: it holds its undo file locked. */
static int running(const char *undo)
{
	int fd = open(undo, O_RDONLY | O_CLOEXEC), busy;

	if (fd < 0)
		return 0;
	busy = flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK;
	close(fd);
	return busy;
}

void evolve_mark_tell(const struct evolve_mark *m, const char *target, char *msg, size_t len)
{
	int gone = access(m->undo, F_OK) != 0;

	if (running(m->undo)) {
		snprintf(msg, len, "'%s' is being evolved from generation %" PRIu32 " to %" PRIu32
			 " by an imprint still running (its undo file '%s' is locked): let it end",
			 target, m->from, m->to, m->undo);
		return;
	}

	snprintf(msg, len, "'%s' is half-evolved: an 'imprint evolve' from generation %" PRIu32
		 " to %" PRIu32 " was interrupted, and it holds part of each; %s%s%s",
		 target, m->from, m->to,
		 gone ? "its undo file is gone ('" : "'imprint evolve --rollback ",
		 gone ? m->undo : target,
		 gone ? "'): restore the image, or create it afresh"
		      : "' puts the earlier generation back byte for byte");
}
