/* params_parse.c - parameter names and values from text: sizes, counts, numbers, choices, seeds */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>

#include "model/params_int.h"

/* --- parsing ------------------------------------------------------------- */

/*
 * "digits[.digits][ ][suffix]" scaled by the suffix: binary K M G T P
 * (2^10..2^50) with an optional "iB" or "B" when binary, else decimal K M G
 * T P (10^3..10^15).  Binary results round a fraction to the nearest byte;
 * decimal ones must come out whole.  Returns 0, -EINVAL on bad syntax or an
 * inexact count, -ERANGE when the value does not fit in 64 bits.
 */
static int parse_scaled(const char *s, int binary, uint64_t *out)
{
	static const char suffixes[] = "kmgtp";
	unsigned __int128 whole, frac_part, num;
	uint64_t ip = 0, fd = 0, fscale = 1, mult = 1;
	int overflow = 0, digits = 0;
	const char *c;

	while (isspace((unsigned char)*s))
		s++;
	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int dig = (unsigned int)(*s - '0');

		if (ip > (UINT64_MAX - dig) / 10)
			overflow = 1;
		else
			ip = ip * 10 + dig;
	}
	if (*s == '.') {
		s++;
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		/* digits past the 18th cannot change a 64-bit result that matters */
		for (; isdigit((unsigned char)*s); s++) {
			if (digits++ < 18) {
				fd = fd * 10 + (uint64_t)(*s - '0');
				fscale *= 10;
			}
		}
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s && (c = strchr(suffixes, tolower((unsigned char)*s)))) {
		int e = (int)(c - suffixes) + 1;

		for (int i = 0; i < e; i++)
			mult = binary ? mult << 10 : mult * 1000;
		s++;
		if (binary && tolower((unsigned char)s[0]) == 'i' &&
		    tolower((unsigned char)s[1]) == 'b')
			s += 2;
		else if (binary && tolower((unsigned char)s[0]) == 'b')
			s++;
	} else if (binary && tolower((unsigned char)*s) == 'b') {
		s++;
	}
	while (isspace((unsigned char)*s))
		s++;
	if (*s)
		return -EINVAL;
	if (overflow)
		return -ERANGE;

	whole = (unsigned __int128)ip * mult;
	if (whole > UINT64_MAX)
		return -ERANGE;
	num = (unsigned __int128)fd * mult;
	frac_part = num / fscale;
	if (binary) {
		if (2 * (num % fscale) >= fscale)
			frac_part++;
	} else if (num % fscale) {
		return -EINVAL;
	}
	whole += frac_part;
	if (whole > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)whole;
	return 0;
}

int params_parse_size(const char *s, uint64_t *out)
{
	return parse_scaled(s, 1, out) ? -EINVAL : 0;
}

int params_parse_count(const char *s, uint64_t *out)
{
	return parse_scaled(s, 0, out) ? -EINVAL : 0;
}

/* Plain decimal digits into a uint64.  Returns 0, -EINVAL or -ERANGE. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	for (; isdigit((unsigned char)*s); s++) {
		unsigned int dig = (unsigned int)(*s - '0');

		if (v > (UINT64_MAX - dig) / 10)
			return -ERANGE;
		v = v * 10 + dig;
	}
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_i64(const char *s, int64_t *out)
{
	const char *digits = *s == '-' ? s + 1 : s;
	char *end;
	long long v;

	if (!isdigit((unsigned char)*digits))
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

static int parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!*s || isspace((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end || errno == ERANGE || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

/* Copy s without surrounding white space.  Returns 0, or -E2BIG. */
int params_copy_trimmed(char *buf, size_t len, const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= len)
		return -E2BIG;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

/* Keys compare lowercase, with '-' spelt '_'.  Returns 0, or -E2BIG. */
int params_normalize_key(char *buf, size_t len, const char *key)
{
	int ret = params_copy_trimmed(buf, len, key);

	if (ret)
		return ret;
	for (char *c = buf; *c; c++)
		*c = *c == '-' ? '_' : (char)tolower((unsigned char)*c);
	return 0;
}

/* Table index of a normalized key, or -1. */
int param_index(const char *norm)
{
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++)
		if (!strcmp(param_table[i].name, norm))
			return (int)i;
	return -1;
}

int params_lookup(const char *key)
{
	char norm[KEY_MAX];

	if (params_normalize_key(norm, sizeof(norm), key))
		return -1;
	return param_index(norm);
}

const char *params_suggest(const char *key)
{
	char norm[KEY_MAX];
	const char *best = NULL;
	size_t best_d = SIZE_MAX, len;

	if (params_normalize_key(norm, sizeof(norm), key))
		return NULL;
	len = strlen(norm);
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		size_t d = str_distance(param_table[i].name, norm);

		if (d < best_d) {
			best_d = d;
			best = param_table[i].name;
		}
	}
	/* a far guess is noise */
	if (!str_near(best_d, len))
		return NULL;
	return best;
}

static int in_range(const struct param_def *d, double v)
{
	if (d->flags & PF_MIN && (d->flags & PF_MIN_OPEN ? v <= d->min : v < d->min))
		return 0;
	if (d->flags & PF_MAX && (d->flags & PF_MAX_OPEN ? v >= d->max : v > d->max))
		return 0;
	return 1;
}

/* The message for a value of entry d that is out of its range or type. */
void params_range_error(struct param_error *err, const char *where,
			const struct param_def *d, const char *got)
{
	char range[64];

	if (d->type == PT_SHARE) {
		params_fmt_interval(d, range, sizeof(range));
		params_set_error(err, where, "'%s' must be a share in %s (got '%s')", d->name,
			  range, got);
		return;
	}
	params_fmt_range(d, range, sizeof(range));
	params_set_error(err, where, "'%s' must be %s (got '%s')", d->name, range, got);
}

void params_enum_error(struct param_error *err, const char *where,
		       const struct param_def *d, const char *got)
{
	char allowed[128];

	params_fmt_allowed(d, allowed, sizeof(allowed));
	params_set_error(err, where, "'%s' must be one of %s (got '%s')", d->name, allowed, got);
}

/* Whether a stored value is acceptable for its entry. */
int params_value_ok(const struct param_def *d, union param_value v)
{
	switch (d->type) {
	case PT_DOUBLE:
	case PT_SHARE:
		return isfinite(v.d) && in_range(d, v.d);
	case PT_INT:
		return in_range(d, (double)v.i);
	case PT_ENUM:
		return params_choice_index(d, v) >= 0;
	case PT_NAME:
		/* not supplied: no name, and nothing to check it against */
		return params_choice_index(d, v) >= 0 || (!d->names->list && !v.name[0]);
	case PT_SIZE:
	case PT_COUNT:
		if (d->flags & PF_DERIVED && !v.u)
			return 1;
		return in_range(d, (double)v.u);
	case PT_UINT:
		return v.u <= UINT32_MAX && in_range(d, (double)v.u);
	case PT_SEED:
	case PT_UUID:
		break;
	}
	return 1;
}

/* "0" (all zero: derived) or xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx into id; 0 or -EINVAL. */
static int parse_uuid(const char *text, unsigned char id[16])
{
	static const char shape[] = "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx";
	size_t k = 0;

	memset(id, 0, 16);
	if (!strcmp(text, "0"))
		return 0;
	if (strlen(text) != sizeof(shape) - 1)
		return -EINVAL;
	for (size_t i = 0; shape[i]; i++) {
		int c = (unsigned char)text[i];

		if (shape[i] == '-') {
			if (c != '-')
				return -EINVAL;
			continue;
		}
		if (!isxdigit(c))
			return -EINVAL;
		c = isdigit(c) ? c - '0' : tolower(c) - 'a' + 10;
		id[k / 2] = (unsigned char)(id[k / 2] | (k % 2 ? c : c << 4));
		k++;
	}
	return 0;
}

static int draw_seed(uint64_t *seed)
{
	ssize_t n;

	do {
		n = getrandom(seed, sizeof(*seed), 0);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*seed) ? 0 : -EIO;
}

/* Parse text (trimmed) for entry d.  Returns 0 or -EINVAL with err set. */
int params_parse_value(const struct param_def *d, const char *text, const char *where,
		       union param_value *v, struct param_error *err)
{
	int ret = 0;

	switch (d->type) {
	case PT_SEED:
		if (!strcasecmp(text, "random")) {
			ret = draw_seed(&v->u);
			if (ret) {
				params_set_error(err, where, "'%s': cannot draw a random seed: %s",
					  d->name, strerror(-ret));
				return -EINVAL;
			}
			return 0;
		}
		if (parse_u64(text, &v->u)) {
			params_set_error(err, where,
				  "'%s' must be an integer in [0, 18446744073709551615] or 'random' (got '%s')",
				  d->name, text);
			return -EINVAL;
		}
		return 0;
	case PT_UINT:
		ret = parse_u64(text, &v->u);
		if (ret == -EINVAL) {
			params_set_error(err, where, "'%s' must be a whole number (got '%s')",
				  d->name, text);
			return -EINVAL;
		}
		break;
	case PT_INT:
		ret = parse_i64(text, &v->i);
		if (ret == -EINVAL) {
			params_set_error(err, where, "'%s' must be an integer (got '%s')", d->name, text);
			return -EINVAL;
		}
		if (ret) {
			params_set_error(err, where, "'%s' must fit in 64 bits (got '%s')", d->name, text);
			return -EINVAL;
		}
		break;
	case PT_DOUBLE:
		if (parse_double(text, &v->d)) {
			params_set_error(err, where, "'%s' must be a number (got '%s')", d->name, text);
			return -EINVAL;
		}
		break;
	case PT_SHARE:
		if (parse_double(text, &v->d)) {
			params_range_error(err, where, d, text);
			return -EINVAL;
		}
		break;
	case PT_SIZE:
	case PT_COUNT: {
		/* what a count or a size (binary) must be: the syntax, then the range */
		static const char *const must[2][2] = {
			{ "be a whole count like 1000, 10K or 2.5M", "fit in 64 bits" },
			{ "be a size like 4096, 512M or 1.5G", "be below 16 EiB" },
		};
		int binary = d->type == PT_SIZE;

		ret = parse_scaled(text, binary, &v->u);
		if (ret) {
			params_set_error(err, where, "'%s' must %s (got '%s')", d->name,
					 must[binary][ret != -EINVAL], text);
			return -EINVAL;
		}
		break;
	}
	case PT_ENUM:
	case PT_NAME: {
		const char *const *c = params_choices(d);

		for (int i = 0; c[i]; i++) {
			if (strcasecmp(text, c[i]))
				continue;
			if (d->type == PT_ENUM)
				v->e = i;
			else
				snprintf(v->name, sizeof(v->name), "%s", c[i]);
			return 0;
		}
		params_enum_error(err, where, d, text);
		return -EINVAL;
	}
	case PT_UUID:
		if (parse_uuid(text, v->id)) {
			params_set_error(err, where,
					 "'%s' must be 0 (derived) or a UUID of 32 hex digits as 8-4-4-4-12, like 0123abcd-4567-89ab-cdef-0123456789ab (got '%s')",
					 d->name, text);
			return -EINVAL;
		}
		return 0;
	}
	if (ret || !params_value_ok(d, *v)) {
		params_range_error(err, where, d, text);
		return -EINVAL;
	}
	return 0;
}
