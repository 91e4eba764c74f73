/* names_shape.c - a realistic name brought to a profile's shape: length, capitals, digits, versions */
#include <stdbool.h>
#include <string.h>

#include "model/names_int.h"

static bool is_lower(char ch)
{
	return ch >= 'a' && ch <= 'z';
}

static bool is_upper(char ch)
{
	return ch >= 'A' && ch <= 'Z';
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

static bool any_of(const struct nb *b, bool (*f)(char))
{
	for (size_t i = 0; i < b->len; i++)
		if (f(b->p[i]))
			return true;
	return false;
}

static bool all_digits(const struct nb *b)
{
	for (size_t i = 0; i < b->len; i++)
		if (!is_digit(b->p[i]))
			return false;
	return b->len > 0;
}

static bool high_byte(char ch)
{
	return (unsigned char)ch >= 0x80;
}

static bool is_space(char ch)
{
	return ch == ' ';
}

/* digit '.' digit in the stem followed by the tail, or a final '~' (tally_name() in readback) */
static bool has_version(const struct nb *b, const char *tail, size_t tl)
{
	char s[NAME_MAX_LEN + TAIL_MAX];
	size_t n = b->len;

	memcpy(s, b->p, n);
	memcpy(s + n, tail, tl);
	n += tl;
	for (size_t i = 1; i + 1 < n; i++)
		if (s[i] == '.' && is_digit(s[i - 1]) && is_digit(s[i + 1]))
			return true;
	return n && s[n - 1] == '~';
}

/* The stem without its versions: digit '.' digit becomes digit '_' digit. */
static void drop_version(struct nb *b)
{
	for (size_t i = 1; i + 1 < b->len; i++)
		if (b->p[i] == '.' && is_digit(b->p[i - 1]) && is_digit(b->p[i + 1]))
			b->p[i] = '_';
}

static void put_digits(struct nb *b, struct draw *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		names_nb_putc(b, (char)('0' + names_below(d, 10)));
}

static void set_case(struct nb *b, bool upper)
{
	for (size_t i = 0; i < b->len; i++) {
		if (upper && is_lower(b->p[i]))
			b->p[i] = (char)(b->p[i] - 'a' + 'A');
		else if (!upper && is_upper(b->p[i]))
			b->p[i] = (char)(b->p[i] - 'A' + 'a');
	}
}

/* Mixed case: letters after the first capital in lower case; a word more when none is left. */
static void make_mixed(struct nb *b, struct draw *d)
{
	size_t i = 0;

	while (i < b->len && !is_upper(b->p[i]))
		i++;
	for (i++; i < b->len; i++)
		if (is_upper(b->p[i]))
			b->p[i] = (char)(b->p[i] - 'A' + 'a');
	if (!any_of(b, is_lower)) {
		names_nb_putc(b, d->space ? ' ' : '_');
		names_nb_word(b, names_pick(d, &v_gen), WC_LOWER);
	}
}

/* Cut or pad the stem to want bytes (a whole UTF-8 character at the cut), keeping its draws. */
static void fit_length(struct nb *b, struct draw *d, size_t want, bool numeric, bool caps)
{
	if (numeric) {
		b->len = b->len > want ? want : b->len;
		put_digits(b, d, want - b->len);
		return;
	}
	while (b->len < want) {
		size_t before = b->len;

		names_nb_putc(b, d->space && names_chance(d, 50) ? ' ' : '_');
		names_nb_word(b, names_pick(d, &v_gen), caps ? WC_UPPER : WC_LOWER);
		if (b->len == before + 1 || b->len == before)
			break; /* the word does not fit: letters below */
	}
	while (b->len < want)
		names_nb_putc(b, caps ? 'X' : 'x');
	if (b->len > want) {
		b->len = want;
		while (b->len > 0 && ((unsigned char)b->p[b->len] & 0xC0) == 0x80)
			b->len--;
		while (b->len < want)
			names_nb_putc(b, '_');
	}
	if (b->len && b->p[b->len - 1] == ' ')
		b->p[b->len - 1] = '_';
	/* the cut may have taken what the draws asked for: put it back */
	if (d->utf8 && !any_of(b, high_byte) && b->len >= 3) {
		b->p[b->len - 2] = (char)0xC3; /* U+00E9 */
		b->p[b->len - 1] = (char)0xA9;
	}
	if (d->space && !any_of(b, is_space) && b->len >= 3) {
		for (size_t i = b->len / 2; i > 0; i--)
			if (!high_byte(b->p[i]) && !high_byte(b->p[i + 1])) {
				b->p[i] = ' ';
				break;
			}
	}
	if (d->upper && !any_of(b, is_upper)) {
		for (size_t i = 0; i < b->len; i++)
			if (is_lower(b->p[i])) {
				b->p[i] = (char)(b->p[i] - 'a' + 'A');
				break;
			}
	}
}

/*
 * A name length in bytes drawn from the table's cumulative shares, at
 * least min (a name holds its extension and one byte more): the table
 * truncated there, when it reaches that far.
 */
static size_t draw_length(const double *cdf, unsigned n, double u, size_t min)
{
	unsigned lo = 0, hi = n - 1;
	double below = min > 0 && min <= hi ? cdf[min - 1] : 0;

	u = below + u * (cdf[n - 1] - below);
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (cdf[mid] > u)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/* A version as people write it: -1.2, _2.0.1, " 3.4" */
static size_t make_version(char *v, struct draw *d, bool noext_file)
{
	struct nb b = { v, 0, 24 };

	if (noext_file) {
		v[0] = '~'; /* a dot would make an extension */
		return 1;
	}
	names_nb_putc(&b, d->space ? ' ' : names_chance(d, 70) ? '-' : '_');
	names_nb_num(&b, names_below(d, 10) < 7 ? names_below(d, 4) : names_below(d, 30), 0);
	names_nb_putc(&b, '.');
	names_nb_num(&b, names_below(d, 20), 0);
	if (names_chance(d, 50)) {
		names_nb_putc(&b, '.');
		names_nb_num(&b, names_below(d, 30), 0);
	}
	return b.len;
}

void names_shape(struct nb *b, struct draw *d, const struct name_cfg *c, enum name_kind kind,
		 uint64_t id, unsigned variant)
{
	double u_num, u_caps, u_ver, u_len;
	bool numeric = false, caps = false, version = false;
	char vs[24];
	size_t vl = 0;

	rng_init(&d->r, c->seed, "name.shape", (id * 8 + variant) * 4 + (uint64_t)kind);
	u_num = rng_uniform(&d->r);
	u_caps = rng_uniform(&d->r);
	u_ver = rng_uniform(&d->r);
	u_len = rng_uniform(&d->r);
	if (c->numeric_on) {
		/* digits hold no space, capital or non-ASCII word: only names drawn without them */
		double plain = (1 - c->space_share) * (1 - c->utf8_share) * (1 - c->upper_share);

		numeric = !d->space && !d->utf8 && !d->upper && plain > 0 &&
			  u_num * plain < c->numeric_share;
		if (numeric) {
			b->len = 0;
			put_digits(b, d, 1 + names_below(d, names_chance(d, 70) ? 4 : 8));
		} else if (all_digits(b)) {
			memmove(b->p + 1, b->p, b->len < b->cap ? b->len : b->cap - 1);
			b->p[0] = 'n';
			b->len += b->len < b->cap;
		}
	}
	if (c->caps_on && d->upper && c->upper_share > 0) {
		caps = u_caps * c->upper_share < c->caps_share;
		if (caps)
			set_case(b, true);
		else if (!any_of(b, is_lower))
			make_mixed(b, d);
	}
	if (c->version_on) {
		version = u_ver < c->version_share;
		if (version && !has_version(b, d->tail, d->tail_len))
			vl = make_version(vs, d, kind != NAME_DIR && d->noext);
		else if (!version && has_version(b, d->tail, d->tail_len)) {
			drop_version(b);
			if (d->tail_set && d->ext_len) {
				/* a pattern's versioned tail (libfoo.so.6): the plain extension */
				d->tail[0] = '.';
				memcpy(d->tail + 1, d->ext, d->ext_len);
				d->tail_len = d->ext_len + 1;
			}
		}
	}
	if (c->nlen || c->nlen_ext || c->nlen_dir) {
		bool ext = d->tail_len && c->nlen_ext;
		bool dir = kind == NAME_DIR && c->nlen_dir;
		const double *cdf = dir ? c->len_dir_cdf : ext || !c->nlen ? c->len_ext_cdf : c->len_cdf;
		unsigned ncdf = dir ? c->nlen_dir : ext || !c->nlen ? c->nlen_ext : c->nlen;
		/* a version takes 3 bytes at least (1.2), one more for a stem */
		size_t len = ncdf ? draw_length(cdf, ncdf, u_len, d->tail_len + 1 + (vl > 1 ? 3 : vl)) :
				    b->len + d->tail_len + vl;
		size_t want;

		if (vl > 1 && len < d->tail_len + vl + 1) {
			/* too short for the version drawn: the shortest, 1.2 */
			vs[0] = (char)('0' + names_below(d, 4));
			vs[1] = '.';
			vs[2] = (char)('0' + names_below(d, 10));
			vl = 3;
		}
		want = len > d->tail_len + vl ? len - d->tail_len - vl : 1;

		fit_length(b, d, want < b->cap ? want : b->cap, numeric, caps);
		/* a cut stem may have lost its lower-case letters or all but digits */
		if (c->caps_on && d->upper && !caps && !any_of(b, is_lower))
			for (size_t i = b->len; i-- > 0;)
				if (is_upper(b->p[i]) && (i > 0 || b->len == 1)) {
					/* one capital alone cannot be mixed case: lower */
					b->p[i] = (char)(b->p[i] - 'A' + 'a');
					break;
				}
		if (c->numeric_on && !numeric && all_digits(b))
			b->p[0] = 'n';
	}
	for (size_t i = 0; i < vl; i++)
		names_nb_putc(b, vs[i]);
}
