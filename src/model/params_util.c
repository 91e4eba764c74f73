/* params_util.c - what params*.c share, calling none of them: a parameter's value, error messages */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "model/params.h"
#include "model/params_int.h"

size_t params_type_size(enum param_type t)
{
	switch (t) {
	case PT_UINT:
		return sizeof(uint32_t);
	case PT_INT:
		return sizeof(int64_t);
	case PT_DOUBLE:
	case PT_SHARE:
		return sizeof(double);
	case PT_ENUM:
		return sizeof(int);
	case PT_UUID:
		return 16;
	case PT_SEED:
	case PT_SIZE:
	case PT_COUNT:
		break;
	}
	return sizeof(uint64_t);
}

union param_value params_value_get(const struct params *p, const struct param_def *d)
{
	const char *f = (const char *)p + d->offset;
	union param_value v = { .u = 0 };
	uint32_t u32;

	/* each member starts the union: the field's bytes are its, but a PT_UINT's */
	if (d->type == PT_UINT) {
		memcpy(&u32, f, sizeof(u32));
		v.u = u32;
	} else {
		memcpy(&v, f, params_type_size(d->type));
	}
	return v;
}
char *params_trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
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

size_t params_escape(char *out, size_t outlen, const char *in, size_t inlen)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t o = 0;

	if (!outlen)
		return 0;
	for (size_t i = 0; i < inlen;) {
		size_t u = utf8_len(s + i, inlen - i);
		char esc[8];
		size_t el;

		if (u == 0 || (u == 1 && (s[i] < 0x20 || s[i] == 0x7f))) {
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

/*
 * Messages echo what the user gave (keys, values, lines): control
 * characters and bytes that are not UTF-8 are shown as \xHH, so that a
 * message never carries a terminal escape or a broken character.
 */
void params_set_error(struct param_error *err, const char *where, const char *fmt, ...)
{
	char raw[sizeof(err->msg)];
	va_list ap;
	size_t n = 0;

	if (!err)
		return;
	raw[0] = '\0';
	if (where && *where)
		n = (size_t)snprintf(raw, sizeof(raw), "%s: ", where);
	if (n < sizeof(raw)) {
		va_start(ap, fmt);
		vsnprintf(raw + n, sizeof(raw) - n, fmt, ap);
		va_end(ap);
	}
	params_escape(err->msg, sizeof(err->msg), raw, strlen(raw));
}
