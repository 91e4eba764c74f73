/* strutil.c - text for people: human byte sizes, messages into fixed buffers */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"

char *fmt_bytes(uint64_t v, unsigned flags, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned max = (flags & FMT_BYTES_PIB) ? 5 : 6, u = 0;
	double x = (double)v;
	int digits;

	if (v < 1024) {
		snprintf(buf, len, "%" PRIu64 " %s", v, (flags & FMT_BYTES_WORD) ? "bytes" : "B");
		return buf;
	}
	if (flags & FMT_BYTES_EXACT) {
		while (u < max && (v >> (10 * (u + 1))) != 0)
			u++;
		if (!(v & ((UINT64_C(1) << (10 * u)) - 1))) {
			snprintf(buf, len, "%" PRIu64 " %s", v >> (10 * u), unit[u]);
			return buf;
		}
		/* division by a power of two is exact: the same as ldexp() */
		for (unsigned i = 0; i < u; i++)
			x /= 1024;
	} else {
		while (x >= 1024 && u < max) {
			x /= 1024;
			u++;
		}
	}
	if (flags & FMT_BYTES_ADAPTIVE)
		digits = x < 10 ? 2 : x < 100 ? 1 : 0;
	else
		digits = (int)FMT_BYTES_DIGITS(flags);
	snprintf(buf, len, "%.*f %s", digits, x, unit[u]);
	return buf;
}

void errbuf_vset(char *buf, size_t len, const char *fmt, va_list ap)
{
	if (buf)
		vsnprintf(buf, len, fmt, ap);
}

void errbuf_set(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errbuf_vset(buf, len, fmt, ap);
	va_end(ap);
}

void errbuf_read_fd(char *buf, size_t len, int fd)
{
	size_t have = 0;

	buf[0] = '\0';
	for (;;) {
		char chunk[512];
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (have + 1 < len) {
			size_t n = (size_t)r < len - 1 - have ? (size_t)r : len - 1 - have;

			memcpy(buf + have, chunk, n);
			have += n;
			buf[have] = '\0';
		}
	}
}

size_t str_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* three rows: two back for a swap, the last, the one being filled */
	size_t rows[3][STR_DISTANCE_MAX + 1];
	size_t *pp = rows[0], *prev = rows[1], *cur = rows[2];

	if (la > STR_DISTANCE_MAX || lb > STR_DISTANCE_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t best = prev[j - 1] + (a[i - 1] != b[j - 1]);

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			cur[j] = best;
		}
		t = pp;
		pp = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb];
}

int str_near(size_t d, size_t len)
{
	return d <= 3 && 2 * d < len;
}

int path_names_link(const char *path)
{
	size_t n = strlen(path);
	struct stat st;
	char *copy;
	int link;

	while (n > 1 && path[n - 1] == '/')
		n--;
	copy = strndup(path, n);
	if (!copy)
		return 0;
	link = lstat(copy, &st) == 0 && S_ISLNK(st.st_mode);
	free(copy);
	return link;
}
