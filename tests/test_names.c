/* test_names.c - unit tests of entry names and the extension model */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "model/ext.h"
#include "model/names.h"
#include "util/rng.h"
#include "util/util.h"

static const struct name_cfg cfg_default = {
	.seed = 1,
	.style = NAMES_REALISTIC,
	.space_share = 0.03,
	.utf8_share = 0.02,
	.upper_share = 0.10,
};

/* Extensions drawn from the default model, as the planner would */
struct ext_sampler {
	struct ext_model m;
	double *cum;
};

static void sampler_init(struct ext_sampler *s)
{
	double acc = 0;

	assert_int_equal(ext_model_init(&s->m, EXT_TABLE_DEFAULT), 0);
	s->cum = malloc(s->m.count * sizeof(*s->cum));
	assert_non_null(s->cum);
	for (size_t i = 0; i < s->m.count; i++) {
		acc += s->m.share[i];
		s->cum[i] = acc;
	}
}

static void sampler_release(struct ext_sampler *s)
{
	free(s->cum);
	ext_model_release(&s->m);
}

static const char *sample_ext(const struct ext_sampler *s, uint64_t id)
{
	struct rng r;
	double u;
	size_t lo = 0, hi = s->m.count - 1;

	rng_init(&r, 99, "test.ext", id);
	u = rng_uniform(&r);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->cum[mid] <= u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->m.name[lo];
}

/* 1 when p[0..n) is well-formed UTF-8 (no overlongs, surrogates, > U+10FFFF) */
static int utf8_valid(const unsigned char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned c = p[i], len, cp;

		if (c < 0x80) {
			i++;
			continue;
		} else if (c >= 0xC2 && c <= 0xDF) {
			len = 2;
			cp = c & 0x1F;
		} else if (c >= 0xE0 && c <= 0xEF) {
			len = 3;
			cp = c & 0x0F;
		} else if (c >= 0xF0 && c <= 0xF4) {
			len = 4;
			cp = c & 0x07;
		} else {
			return 0;
		}
		if (i + len > n)
			return 0;
		for (unsigned k = 1; k < len; k++) {
			if ((p[i + k] & 0xC0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i + k] & 0x3F);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
			return 0;
		i += len;
	}
	return 1;
}

static int ends_with_ci(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !strcasecmp(s + n - k, suffix);
}

/* Every property the header promises, for one name */
static void check_name(const char *name, size_t len, enum name_kind kind,
		       const char *ext, unsigned variant)
{
	char dotext[80];

	if (len != strlen(name))
		fail_msg("length %zu != strlen of '%s'", len, name);
	if (len < 1 || len > NAME_MAX_LEN)
		fail_msg("bad length %zu: '%s'", len, name);
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		fail_msg("dot name");
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c < 0x20 || c == 0x7f || c == '/')
			fail_msg("forbidden byte 0x%02x in '%s'", c, name);
		if (c == '~' && variant < NAME_VARIANT_UNIQUE)
			fail_msg("'~' in a natural name '%s'", name);
	}
	if (!utf8_valid((const unsigned char *)name, len))
		fail_msg("invalid UTF-8: '%s'", name);
	if (name[0] == ' ' || name[len - 1] == ' ' || name[0] == '-' || name[0] == '.')
		fail_msg("bad first or last byte: '%s'", name);
	if (variant >= NAME_VARIANT_UNIQUE) {
		const char *t = strchr(name, '~');

		if (!t || strchr(t + 1, '~'))
			fail_msg("unique name without exactly one '~': '%s'", name);
	}
	if (kind == NAME_DIR)
		return;
	if (!*ext) {
		if (strchr(name, '.'))
			fail_msg("'.' in a name without extension: '%s'", name);
		return;
	}
	snprintf(dotext, sizeof(dotext), ".%s", ext);
	if (ends_with_ci(name, len, dotext))
		return;
	/* the one documented exception: versioned shared libraries */
	if (!strcmp(ext, "so") && strstr(name, ".so"))
		return;
	fail_msg("'%s' does not end in '%s'", name, dotext);
}

struct name_case {
	enum name_kind kind;
	uint64_t id;
	const char *ext;
	unsigned variant;
	const char *want;
};

/* Each case's name under c, and its length. */
static void check_names(const struct name_cfg *c, const struct name_case *cases, size_t n)
{
	char buf[NAME_MAX_LEN + 1];

	for (size_t i = 0; i < n; i++) {
		size_t len = name_make(buf, c, cases[i].kind, cases[i].id, cases[i].ext,
				       cases[i].variant);

		assert_string_equal(buf, cases[i].want);
		assert_int_equal(len, strlen(cases[i].want));
	}
}

static void test_numeric(void **state)
{
	static const struct name_case cases[] = {
		{ NAME_FILE, 42, "txt", 0, "f42.txt" },
		{ NAME_FILE, 42, "", 0, "f42" },
		{ NAME_DIR, 7, "", 0, "d7" },
		{ NAME_DIR, 7, "txt", 0, "d7" },
		{ NAME_LINK, 3, "", 0, "l3" },
		{ NAME_FILE, 0, "h", 0, "f0.h" },
		{ NAME_FILE, 42, "txt", 2, "f42.txt" },
		{ NAME_FILE, 42, "txt", NAME_VARIANT_UNIQUE, "f42~f16.txt" },
		{ NAME_DIR, 36, "", NAME_VARIANT_UNIQUE, "d36~d10" },
		{ NAME_FILE, UINT64_MAX, "gz", 0, "f18446744073709551615.gz" },
	};
	struct name_cfg c = cfg_default;

	(void)state;
	c.style = NAMES_NUMERIC;
	check_names(&c, cases, ARRAY_SIZE(cases));
}

static void test_cfg_from_params(void **state)
{
	struct params p;
	struct name_cfg c;

	(void)state;
	memset(&p, 0, sizeof(p));
	p.seed = 1234;
	p.name_style = NAMES_NUMERIC;
	p.name_space_share = 0.25;
	p.name_utf8_share = 0.5;
	p.name_upper_share = 0.75;
	name_cfg_from_params(&c, &p);
	assert_true(c.seed == 1234);
	assert_int_equal(c.style, NAMES_NUMERIC);
	assert_true(c.space_share == 0.25);
	assert_true(c.utf8_share == 0.5);
	assert_true(c.upper_share == 0.75);
}

static void test_determinism(void **state)
{
	struct ext_sampler s;
	struct name_cfg other = cfg_default;
	char a[NAME_MAX_LEN + 1], b[NAME_MAX_LEN + 1];
	unsigned same = 0, n = 20000;

	(void)state;
	sampler_init(&s);
	other.seed = 2;
	for (unsigned k = 0; k < 3; k++) {
		same = 0;
		for (uint64_t id = 0; id < n; id++) {
			const char *ext = k == NAME_DIR ? "" : sample_ext(&s, id);
			size_t la = name_make(a, &cfg_default, k, id, ext, 0);
			size_t lb = name_make(b, &cfg_default, k, id, ext, 0);

			assert_int_equal(la, lb);
			assert_string_equal(a, b);
			name_make(b, &other, k, id, ext, 0);
			same += !strcmp(a, b);
		}
		/* the common fixed names (src, README, index.htm) do repeat */
		if (same > n / 10)
			fail_msg("kind %u: %u of %u names equal under another seed", k, same, n);
	}
	sampler_release(&s);
}

/*
 * Pinned names: the same on every machine and build.  A change here means
 * every image made with names changes; update the list knowingly.
 */
static void test_pinned(void **state)
{
	static const struct name_case pins[] = {
		{ NAME_FILE, 12345, "txt", 0, "todo.txt" },
		{ NAME_DIR, 777, "", 0, "Silver-Summer" },
		{ NAME_FILE, 4242, "jpg", 0, "img_20210223_040239.jpg" },
		{ NAME_LINK, 99, "so", 0, "libcache_block.so.12" },
		{ NAME_FILE, 8, "c", 2, "Window6_38.c" },
		{ NAME_FILE, 31337, "", NAME_VARIANT_UNIQUE, "tmpg19hdf9g~fo6h" },
		{ NAME_FILE, 399, "jpg", 0, "IMG_8652.JPG" },
	};

	(void)state;
	check_names(&cfg_default, pins, ARRAY_SIZE(pins));
}

static void test_validity(void **state)
{
	struct ext_sampler s;
	char buf[NAME_MAX_LEN + 1];
	struct name_cfg heavy = cfg_default;

	(void)state;
	sampler_init(&s);
	for (unsigned k = 0; k < 3; k++) {
		for (uint64_t id = 0; id < 1000000; id++) {
			const char *ext = k == NAME_DIR ? "" : sample_ext(&s, id);
			size_t len = name_make(buf, &cfg_default, k, id, ext, 0);

			check_name(buf, len, k, ext, 0);
		}
	}
	/* every variant, with every share high to stress the combinations */
	heavy.space_share = 0.5;
	heavy.utf8_share = 0.5;
	heavy.upper_share = 0.5;
	for (unsigned k = 0; k < 3; k++) {
		for (uint64_t id = 0; id < 100000; id++) {
			const char *ext = k == NAME_DIR ? "" : sample_ext(&s, id);
			unsigned v = (unsigned)(id % (NAME_VARIANT_UNIQUE + 2));
			size_t len = name_make(buf, &heavy, k, id, ext, v);

			check_name(buf, len, k, ext, v);
		}
	}
	sampler_release(&s);
}

static void test_odd_input(void **state)
{
	char buf[NAME_MAX_LEN + 1];
	char longext[300];
	size_t len;

	(void)state;
	memset(longext, 'x', sizeof(longext) - 1);
	longext[sizeof(longext) - 1] = '\0';
	for (uint64_t id = 0; id < 2000; id++) {
		len = name_make(buf, &cfg_default, NAME_FILE, id, longext, NAME_VARIANT_UNIQUE);
		assert_true(len <= NAME_MAX_LEN);
		assert_non_null(strchr(buf, '~'));
		len = name_make(buf, &cfg_default, NAME_FILE, id, "a/b~c d\n", 0);
		check_name(buf, len, NAME_FILE, "abcd", 0);
		len = name_make(buf, &cfg_default, NAME_LINK, id, NULL, 0);
		check_name(buf, len, NAME_LINK, "", 0);
		len = name_make(buf, &cfg_default, NAME_FILE, id, "JPG", 0);
		check_name(buf, len, NAME_FILE, "JPG", 0);
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_unique(void **state)
{
	struct ext_sampler s;
	enum { N = 100000 };
	char **all = malloc(3 * N * sizeof(*all));
	char buf[NAME_MAX_LEN + 1];
	size_t n = 0;

	(void)state;
	assert_non_null(all);
	sampler_init(&s);
	/* all three kinds in one list: they may share a directory */
	for (unsigned k = 0; k < 3; k++) {
		for (uint64_t id = 0; id < N; id++) {
			const char *ext = k == NAME_DIR ? "" : sample_ext(&s, id);

			name_make(buf, &cfg_default, k, id, ext, NAME_VARIANT_UNIQUE);
			all[n] = strdup(buf);
			assert_non_null(all[n]);
			n++;
		}
	}
	qsort(all, n, sizeof(*all), cmp_str);
	for (size_t i = 1; i < n; i++)
		if (!strcmp(all[i - 1], all[i]))
			fail_msg("duplicate unique name '%s'", all[i]);
	for (size_t i = 0; i < n; i++)
		free(all[i]);
	free(all);
	sampler_release(&s);
}

static void test_redraws(void **state)
{
	char a[NAME_MAX_LEN + 1], b[NAME_MAX_LEN + 1];
	unsigned same = 0;

	(void)state;
	for (uint64_t id = 0; id < 10000; id++) {
		name_make(a, &cfg_default, NAME_FILE, id, "c", 0);
		for (unsigned v = 1; v <= NAME_VARIANT_REDRAWS; v++) {
			name_make(b, &cfg_default, NAME_FILE, id, "c", v);
			same += !strcmp(a, b);
		}
	}
	if (same > 30000 / 20)
		fail_msg("%u of 30000 redraws equal the natural name", same);
}

/* Open-addressing set of strings, enough for one directory's names */
struct strset {
	char **slot;
	size_t mask;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = UINT64_C(0xCBF29CE484222325);

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= UINT64_C(0x100000001B3);
	}
	return h;
}

/* 1 if s was added, 0 if it was already there */
static int strset_add(struct strset *set, const char *s)
{
	size_t i = fnv1a(s) & set->mask;

	while (set->slot[i]) {
		if (!strcmp(set->slot[i], s))
			return 0;
		i = (i + 1) & set->mask;
	}
	set->slot[i] = strdup(s);
	assert_non_null(set->slot[i]);
	return 1;
}

static void strset_free(struct strset *set)
{
	for (size_t i = 0; i <= set->mask; i++)
		free(set->slot[i]);
	free(set->slot);
}

/* How many of n entries in one directory need the unique variant */
static unsigned dir_uniques(enum name_kind kind, unsigned n, const char *ext)
{
	struct strset set = { calloc(1u << 16, sizeof(char *)), (1u << 16) - 1 };
	char buf[NAME_MAX_LEN + 1];
	unsigned uniques = 0;

	assert_non_null(set.slot);
	for (uint64_t id = 0; id < n; id++) {
		unsigned v;

		for (v = 0; v <= NAME_VARIANT_REDRAWS; v++) {
			name_make(buf, &cfg_default, kind, id, ext, v);
			if (strset_add(&set, buf))
				break;
		}
		if (v > NAME_VARIANT_REDRAWS) {
			name_make(buf, &cfg_default, kind, id, ext, NAME_VARIANT_UNIQUE);
			assert_true(strset_add(&set, buf));
			uniques++;
		}
	}
	strset_free(&set);
	return uniques;
}

static void test_collisions(void **state)
{
	(void)state;
	/* a directory of 1,000 subdirectories, of 10,000 headers or plain files */
	assert_true(dir_uniques(NAME_DIR, 1000, "") <= 2);
	assert_true(dir_uniques(NAME_FILE, 10000, "h") <= 10);
	assert_true(dir_uniques(NAME_FILE, 10000, "") <= 10);
}

struct share_count {
	unsigned space, utf8, upper;
};

static void count_shares(const struct name_cfg *c, enum name_kind kind,
			 unsigned n, struct share_count *sc)
{
	struct ext_sampler s;
	char buf[NAME_MAX_LEN + 1];

	sampler_init(&s);
	memset(sc, 0, sizeof(*sc));
	for (uint64_t id = 0; id < n; id++) {
		const char *ext = kind == NAME_DIR ? "" : sample_ext(&s, id);
		size_t len = name_make(buf, c, kind, id, ext, 0);
		int sp = 0, hi = 0, up = 0;

		for (size_t i = 0; i < len; i++) {
			unsigned char ch = (unsigned char)buf[i];

			sp |= ch == ' ';
			hi |= ch >= 0x80;
			up |= ch >= 'A' && ch <= 'Z';
		}
		sc->space += sp;
		sc->utf8 += hi;
		sc->upper += up;
	}
	sampler_release(&s);
}

static void check_share(const char *what, unsigned got, unsigned n, double want)
{
	double share = (double)got / n;

	if (want == 0 ? got != 0 : fabs(share - want) > 0.01)
		fail_msg("%s share %.4f, configured %.4f", what, share, want);
}

static void test_shares(void **state)
{
	static const double sets[][3] = {
		{ 0.03, 0.02, 0.10 },
		{ 0, 0, 0 },
		{ 0.25, 0.15, 0.40 },
		{ 1, 1, 1 },
	};
	struct share_count sc;
	unsigned n = 100000;

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(sets); i++) {
		struct name_cfg c = cfg_default;

		c.space_share = sets[i][0];
		c.utf8_share = sets[i][1];
		c.upper_share = sets[i][2];
		for (unsigned k = 0; k < 3; k++) {
			count_shares(&c, k, n, &sc);
			check_share("space", sc.space, n, c.space_share);
			check_share("utf8", sc.utf8, n, c.utf8_share);
			check_share("upper", sc.upper, n, c.upper_share);
		}
	}
}

/* What a profile counts of a name (tally_name() in analysis/profile_walk.c). */
struct shape_count {
	unsigned n, caps, numeric, versioned, upper, len[NAME_MAX_LEN + 1];
};

static void count_shape(const char *b, size_t len, struct shape_count *sc)
{
	const char *dot = memrchr(b, '.', len);
	size_t stem = dot && dot != b ? (size_t)(dot - b) : len;
	int up = 0, low = 0, dig = stem > 0, ver = b[len - 1] == '~', any = 0;

	for (size_t i = 0; i < len; i++) {
		any |= b[i] >= 'A' && b[i] <= 'Z';
		up |= i < stem && b[i] >= 'A' && b[i] <= 'Z';
		low |= i < stem && b[i] >= 'a' && b[i] <= 'z';
		dig &= i >= stem || (b[i] >= '0' && b[i] <= '9');
		ver |= i > 0 && i + 1 < len && b[i] == '.' && b[i - 1] >= '0' && b[i - 1] <= '9' &&
		       b[i + 1] >= '0' && b[i + 1] <= '9';
	}
	sc->n++;
	sc->caps += up && !low;
	sc->upper += any;
	sc->numeric += dig;
	sc->versioned += ver;
	sc->len[len]++;
}

/* K-S D of the lengths counted against lengths uniform over lo..hi. */
static double len_d(const struct shape_count *sc, unsigned lo, unsigned hi)
{
	double a = 0, b = 0, d = 0;

	for (unsigned l = 0; l <= NAME_MAX_LEN; l++) {
		a += (double)sc->len[l] / sc->n;
		b += l >= lo && l <= hi ? 1.0 / (hi - lo + 1) : 0;
		d = fmax(d, fabs(a - b));
	}
	return d;
}

static void test_shape(void **state)
{
	struct name_cfg c = cfg_default;
	struct ext_sampler s;
	struct shape_count dirs = { 0 }, files = { 0 }, plain = { 0 };
	char buf[NAME_MAX_LEN + 1];
	unsigned n = 40000;

	(void)state;
	c.upper_share = 0.2;
	c.caps_on = c.numeric_on = c.version_on = 1;
	c.caps_share = 0.05;
	c.numeric_share = 0.1;
	c.version_share = 0.08;
	/* without an extension 3..12 bytes, with one 8..30, each length alike */
	c.nlen = 13;
	c.nlen_ext = 31;
	for (unsigned l = 0; l < 31; l++) {
		if (l < 13)
			c.len_cdf[l] = l < 3 ? 0 : l - 2;
		c.len_ext_cdf[l] = l < 8 ? 0 : l - 7;
	}
	sampler_init(&s);
	for (uint64_t id = 0; id < n; id++) {
		const char *ext = sample_ext(&s, id);
		size_t len = name_make(buf, &c, NAME_DIR, id, "", 0);

		assert_true(len > 0 && !memchr(buf, '/', len) && strcmp(buf, ".") && strcmp(buf, ".."));
		count_shape(buf, len, &dirs);
		len = name_make(buf, &c, NAME_FILE, id, ext, 0);
		assert_true(len > 0 && !memchr(buf, '/', len));
		if (!*ext)
			assert_null(memchr(buf, '.', len));
		else if (strlen(ext) < 6)
			count_shape(buf, len, &files);
		len = name_make(buf, &cfg_default, NAME_DIR, id, "", 0);
		count_shape(buf, len, &plain);
	}
	sampler_release(&s);
	print_message("dirs: caps %.4f numeric %.4f versioned %.4f upper %.4f length D %.4f; "
		      "files with an extension: caps %.4f numeric %.4f versioned %.4f length D %.4f\n",
		      (double)dirs.caps / n, (double)dirs.numeric / n, (double)dirs.versioned / n,
		      (double)dirs.upper / n, len_d(&dirs, 3, 12), (double)files.caps / files.n,
		      (double)files.numeric / files.n, (double)files.versioned / files.n,
		      len_d(&files, 8, 30));
	check_share("caps", dirs.caps, n, 0.05);
	check_share("numeric", dirs.numeric, n, 0.1);
	check_share("versioned", dirs.versioned, n, 0.08);
	check_share("upper", dirs.upper, n, 0.2);
	check_share("caps (files)", files.caps, files.n, 0.05);
	check_share("numeric (files)", files.numeric, files.n, 0.1);
	check_share("versioned (files)", files.versioned, files.n, 0.08);
	assert_true(len_d(&dirs, 3, 12) < 0.015);
	assert_true(len_d(&files, 8, 30) < 0.02);
	/* negative twin: the patterns' own names are far from these lengths */
	assert_true(len_d(&plain, 3, 12) > 0.1);
}

static void test_stem_length(void **state)
{
	struct ext_sampler s;
	char buf[NAME_MAX_LEN + 1];
	double sum = 0, dsum = 0;
	unsigned n = 100000;
	struct timespec t0, t1;

	(void)state;
	sampler_init(&s);
	for (uint64_t id = 0; id < n; id++) {
		const char *ext = sample_ext(&s, id);
		size_t len = name_make(buf, &cfg_default, NAME_FILE, id, ext, 0);
		char *dot = strrchr(buf, '.');

		sum += dot ? (double)(dot - buf) : (double)len;
		dsum += (double)name_make(buf, &cfg_default, NAME_DIR, id, "", 0);
	}
	sum /= n;
	dsum /= n;
	print_message("mean stem %.1f bytes (files), %.1f bytes (dirs)\n", sum, dsum);
	assert_true(sum >= 8 && sum <= 18);
	assert_true(dsum >= 5 && dsum <= 18);

	/* informational only: a slow machine must not fail the suite */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (uint64_t id = 0; id < 1000000; id++)
		name_make(buf, &cfg_default, NAME_FILE, id, s.m.name[id % 40], 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("%.0f ns per name\n",
		      ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e6);
	sampler_release(&s);
}

static void check_model(enum ext_table t, size_t head)
{
	struct ext_model m;
	double sum = 0;

	assert_int_equal(ext_model_init(&m, t), 0);
	assert_int_equal(m.head, head);
	assert_true(m.count >= head + 250);
	assert_string_equal(m.name[0], "");
	for (size_t i = 0; i < m.count; i++) {
		assert_true(m.share[i] > 0);
		sum += m.share[i];
		assert_int_equal(ext_model_find(&m, m.name[i]), (int)i);
		for (size_t j = 0; j < i; j++)
			if (!strcmp(m.name[i], m.name[j]))
				fail_msg("duplicate extension '%s'", m.name[i]);
		if (i >= m.head) {
			size_t n = strlen(m.name[i]);

			if (n < 1 || n > 4 || strspn(m.name[i], "abcdefghijklmnopqrstuvwxyz0123456789") != n)
				fail_msg("bad tail extension '%s'", m.name[i]);
			/* Zipf: never rising along the tail */
			if (i > m.head && m.share[i] > m.share[i - 1])
				fail_msg("tail share rises at '%s'", m.name[i]);
		}
	}
	assert_true(fabs(sum - 1.0) < 1e-9);
	assert_int_equal(ext_model_find(&m, "nosuch"), -1);
	assert_int_equal(ext_model_find(&m, NULL), -1);
	ext_model_release(&m);
}

static void test_ext_model(void **state)
{
	static const struct { const char *name; double pct; } def[] = {
		{ "", 6.91 }, { "txt", 3.64 }, { "jpg", 3.08 }, { "exe", 2.88 },
		{ "cpp", 3.26 }, { "htm", 4.45 }, { "h", 6.69 }, { "dll", 6.63 },
		{ "gif", 6.77 }, { "pdb", 1.34 }, { "lib", 1.46 }, { "pst", 1.0 },
		{ "pch", 1.0 }, { "mp3", 1.0 }, { "wma", 1.0 }, { "vhd", 1.0 },
		{ "pdf", 1.0 }, { "mpg", 1.0 },
	}, large[] = {
		{ "", 7.79 }, { "txt", 5.02 }, { "jpg", 1.45 }, { "exe", 2.08 },
		{ "cpp", 4.88 }, { "htm", 3.24 }, { "h", 9.32 }, { "dll", 3.64 },
		{ "gif", 3.43 }, { "pdb", 1.94 }, { "pch", 0.10 }, { "mp3", 0.16 },
		{ "lib", 1.76 }, { "wma", 0.19 }, { "vhd", 0.01 }, { "pdf", 0.04 },
	};
	static const char *const typed[] = {
		"png", "bmp", "wav", "mp4", "zip", "gz", "tar", "so", "o",
		"jpg", "gif", "mp3", "pdf", "exe", "dll", "c", "html", "xml",
	};
	struct ext_model m;

	(void)state;
	check_model(EXT_TABLE_DEFAULT, ARRAY_SIZE(def));
	check_model(EXT_TABLE_LARGE, ARRAY_SIZE(large));

	assert_int_equal(ext_model_init(&m, EXT_TABLE_DEFAULT), 0);
	for (size_t i = 0; i < ARRAY_SIZE(def); i++) {
		assert_string_equal(m.name[i], def[i].name);
		assert_true(fabs(m.share[i] - def[i].pct / 100) < 1e-12);
	}
	for (size_t i = 0; i < ARRAY_SIZE(typed); i++) {
		int k = ext_model_find(&m, typed[i]);

		if (k < 0 || m.share[k] <= 0.001)
			fail_msg("typed extension '%s' missing or rare", typed[i]);
	}
	ext_model_release(&m);

	assert_int_equal(ext_model_init(&m, EXT_TABLE_LARGE), 0);
	for (size_t i = 0; i < ARRAY_SIZE(large); i++) {
		assert_string_equal(m.name[i], large[i].name);
		assert_true(fabs(m.share[i] - large[i].pct / 100) < 1e-12);
	}
	/* the large table has no pst or mpg row: the tail still has them */
	assert_true(ext_model_find(&m, "pst") >= (int)m.head);
	assert_true(ext_model_find(&m, "mpg") >= (int)m.head);
	for (size_t i = 0; i < ARRAY_SIZE(typed); i++) {
		int k = ext_model_find(&m, typed[i]);

		if (k < 0 || (k >= (int)m.head && m.share[k] <= 0.001))
			fail_msg("typed extension '%s' missing or rare", typed[i]);
	}
	ext_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numeric),
		cmocka_unit_test(test_cfg_from_params),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_pinned),
		cmocka_unit_test(test_validity),
		cmocka_unit_test(test_odd_input),
		cmocka_unit_test(test_unique),
		cmocka_unit_test(test_redraws),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_shares),
		cmocka_unit_test(test_shape),
		cmocka_unit_test(test_stem_length),
		cmocka_unit_test(test_ext_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
