/* strutil.c - text for people: human byte sizes, messages into fixed buffers */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
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
