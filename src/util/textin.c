/* textin.c - the one bounded reader of text inputs: line and size limits, NUL bytes, non-regular files, escaping */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/strutil.h"
#include "util/textin.h"

void textin_init(struct textin *t, FILE *f, const char *path, const char *what, size_t max_line,
		 uint64_t max_total)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->path = path;
	t->what = what;
	t->max_line = max_line;
	t->max_total = max_total;
}

int textin_open(struct textin *t, const char *path, const char *what, size_t max_line,
		uint64_t max_total)
{
	struct stat st;
	int fd, ret;
	FILE *f;

	textin_init(t, NULL, path, what, max_line, max_total);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ret = -errno;
		errbuf_set(t->err, sizeof(t->err), "%s: cannot open: %s", path, strerror(-ret));
		return ret;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		errbuf_set(t->err, sizeof(t->err), "%s: cannot stat: %s", path, strerror(-ret));
		goto out_close;
	}
	if (S_ISDIR(st.st_mode)) {
		ret = -EISDIR;
		errbuf_set(t->err, sizeof(t->err), "%s: is a directory, not %s", path, what);
		goto out_close;
	}
	if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) {
		ret = -EINVAL;
		errbuf_set(t->err, sizeof(t->err), "%s: is a %s, not %s (allowed: a regular file, "
			   "a pipe or a character device such as /dev/stdin)", path,
			   S_ISBLK(st.st_mode) ? "block device" : "special file", what);
		goto out_close;
	}
	f = fdopen(fd, "r");
	if (!f) {
		ret = -errno;
		errbuf_set(t->err, sizeof(t->err), "%s: cannot open: %s", path, strerror(-ret));
		goto out_close;
	}
	t->f = f;
	t->own = 1;
	return 0;
out_close:
	close(fd);
	return ret;
}

/* Room for one more byte and the NUL after it: 0 or -ENOMEM. */
static int textin_grow(struct textin *t)
{
	size_t nc;
	char *p;

	if (t->len + 2 <= t->cap)
		return 0;
	nc = t->cap ? t->cap * 2 : 256;
	p = realloc(t->line, nc);
	if (!p)
		return -ENOMEM;
	t->line = p;
	t->cap = nc;
	return 0;
}

/* "64 KiB", "16 MiB": the limits as people write them */
#define TEXTIN_BYTES (FMT_BYTES_EXACT | FMT_BYTES_DIGITS(1) | FMT_BYTES_WORD)

int textin_next(struct textin *t)
{
	char size[32];
	int c = EOF, ret;

	t->len = 0;
	if (textin_grow(t))
		return -ENOMEM;
	t->lineno++;
	while ((c = getc(t->f)) != EOF) {
		if (++t->total > t->max_total) {
			errbuf_set(t->err, sizeof(t->err), "%s: larger than %s: not %s", t->path,
				   fmt_bytes(t->max_total, TEXTIN_BYTES, size, sizeof(size)), t->what);
			return -EINVAL;
		}
		if (c == '\n')
			break;
		if (c == '\0') {
			errbuf_set(t->err, sizeof(t->err), "%s line %lu: a NUL byte at column %zu: not %s",
				   t->path, t->lineno, t->len + 1, t->what);
			return -EINVAL;
		}
		if (t->len >= t->max_line) {
			errbuf_set(t->err, sizeof(t->err), "%s line %lu: longer than %s: not %s",
				   t->path, t->lineno,
				   fmt_bytes(t->max_line, TEXTIN_BYTES, size, sizeof(size)), t->what);
			return -EINVAL;
		}
		ret = textin_grow(t);
		if (ret)
			return ret;
		t->line[t->len++] = (char)c;
	}
	if (c == EOF && ferror(t->f)) {
		ret = errno ? -errno : -EIO;
		errbuf_set(t->err, sizeof(t->err), "%s: cannot read: %s", t->path, strerror(-ret));
		return ret;
	}
	if (c == EOF && t->len == 0) {
		t->lineno--;
		t->line[0] = '\0';
		return 0;
	}
	if (t->len && t->line[t->len - 1] == '\r')
		t->len--;
	t->line[t->len] = '\0';
	/* a UTF-8 byte order mark, as some editors write */
	if (t->lineno == 1 && t->len >= 3 && !memcmp(t->line, "\xef\xbb\xbf", 3)) {
		memmove(t->line, t->line + 3, t->len - 2);
		t->len -= 3;
	}
	return 1;
}

void textin_close(struct textin *t)
{
	if (t->own && t->f)
		fclose(t->f);
	t->f = NULL;
	free(t->line);
	t->line = NULL;
	t->cap = t->len = 0;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	uint32_t c;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates, beyond U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

size_t text_escape(char *out, size_t outlen, const char *in, size_t inlen)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; i < inlen;) {
		size_t u = utf8_len(s + i, inlen - i);
		char esc[8];
		size_t el;

		/* C1 controls (U+0080..U+009F) act as escapes on some terminals too */
		if (u == 0 || (u == 1 && (s[i] < 0x20 || s[i] == 0x7f)) ||
		    (u == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0)) {
			el = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", s[i]);
			u = 1;
		} else {
			if (o + u >= outlen)
				break;
			memcpy(out + o, s + i, u);
			o += u;
			i += u;
			continue;
		}
		if (o + el >= outlen)
			break;
		memcpy(out + o, esc, el);
		o += el;
		i += u;
	}
	out[o] = '\0';
	return o;
}

const char *text_escaped(const char *s, char *buf, size_t len)
{
	text_escape(buf, len, s, strlen(s));
	return buf;
}
