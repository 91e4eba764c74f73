/* params.c - parameters: set, load, check, derive (table, parsing, printing in params_*.c) */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <sys/random.h>
#include <unistd.h>

#include <json-c/json.h>

#include "model/dist.h"
#include "model/params.h"
#include "model/params_int.h"
#include "util/array.h"
#include "util/textin.h"

static void value_put(struct params *p, const struct param_def *d, union param_value v)
{
	char *f = (char *)p + d->offset;
	uint32_t u32 = (uint32_t)v.u;

	/* each member starts the union: its bytes are the field's, but a PT_UINT's */
	if (d->type == PT_UINT)
		memcpy(f, &u32, sizeof(u32));
	else
		memcpy(f, &v, params_type_size(d->type));
}

/* --- the public interface ------------------------------------------------ */

void params_init(struct params *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		assert(param_table[i].size == params_type_size(param_table[i].type));
		value_put(p, &param_table[i], params_default(&param_table[i]));
	}
}

int params_supply_names(const char *key, const char *const *names, const char *def)
{
	int i = params_lookup(key), found = 0;

	if (i < 0 || param_table[i].type != PT_NAME || !names || !def)
		return -EINVAL;
	for (size_t k = 0; names[k]; k++) {
		if (strlen(names[k]) >= PARAMS_NAME_MAX)
			return -EINVAL;
		found |= !strcmp(names[k], def);
	}
	if (!found)
		return -EINVAL;
	param_table[i].names->list = names;
	param_table[i].names->def = def;
	return 0;
}

/* Profiles loading profiles: how deep, and the limit */
static int profile_depth;
#define PROFILE_DEPTH_MAX 4

/* The directories a profile NAME.conf is looked for in, in order; NULL ends. */
static void profile_dirs(const char *dirs[4])
{
	int n = 0;

	dirs[n] = getenv("IMPRINT_PROFILE_DIR");
	if (dirs[n] && *dirs[n])
		n++;
#ifdef IMPRINT_PROFILE_DIR
	dirs[n++] = IMPRINT_PROFILE_DIR;
#endif
#ifdef IMPRINT_SRC_PROFILE_DIR
	dirs[n++] = IMPRINT_SRC_PROFILE_DIR;
#endif
	dirs[n] = NULL;
}

/* A profile's name: letters, digits, '-', '_' and '.', not starting with '.'. */
static int profile_name_ok(const char *name)
{
	size_t len = strlen(name);

	if (!len || len > 64 || name[0] == '.')
		return 0;
	for (const char *c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("-_.", *c))
			return 0;
	return 1;
}

/*
 * profile = NAME (or a path with a '/'): load that profile's file here,
 * so that what comes later overrides it.
 */
static int load_profile(struct params *p, const char *value, const char *where,
			struct param_error *err)
{
	char name[VALUE_MAX], path[4096];
	const char *dirs[4];
	int ret = -ENOENT;

	if (params_copy_trimmed(name, sizeof(name), value) ||
	    (!strchr(name, '/') && !profile_name_ok(name))) {
		params_set_error(err, where, "'profile' must be a profile name or a path (got '%.40s')",
				 value);
		return -EINVAL;
	}
	if (profile_depth >= PROFILE_DEPTH_MAX) {
		params_set_error(err, where, "profiles load each other more than %d deep",
				 PROFILE_DEPTH_MAX);
		return -EINVAL;
	}
	profile_depth++;
	if (strchr(name, '/')) {
		ret = params_load_file(p, name, err);
	} else {
		profile_dirs(dirs);
		for (int i = 0; dirs[i] && ret == -ENOENT; i++) {
			snprintf(path, sizeof(path), "%s/%s.conf", dirs[i], name);
			if (access(path, F_OK) == 0)
				ret = params_load_file(p, path, err);
		}
		if (ret == -ENOENT)
			params_set_error(err, where, "unknown profile '%s' ('imprint params --profiles' "
					 "lists them)", name);
	}
	profile_depth--;
	return ret ? -EINVAL : 0;
}

void params_print_profiles(FILE *out)
{
	const char *dirs[4];
	char seen[64][72];
	int nseen = 0;

	profile_dirs(dirs);
	for (int i = 0; dirs[i]; i++) {
		struct dirent **ents;
		int n = scandir(dirs[i], &ents, NULL, alphasort);

		for (int k = 0; k < n; k++) {
			char *name = ents[k]->d_name, path[4096], shown[2][1024];
			size_t len = strlen(name);
			struct textin in;
			int dup = 0;

			if (len > 5 && !strcmp(name + len - 5, ".conf") && len - 5 < 64) {
				name[len - 5] = '\0';
				for (int s = 0; s < nseen; s++)
					dup |= !strcmp(seen[s], name);
				snprintf(path, sizeof(path), "%s/%s.conf", dirs[i], name);
				/* the first line, a comment, says what the profile is */
				if (!dup && nseen < 64 &&
				    !textin_open(&in, path, "a profile", 256, 256)) {
					const char *line = textin_next(&in) > 0 ? in.line : "";

					snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
					fprintf(out, "%-20s %s\n", text_escaped(name, shown[0], sizeof(shown[0])),
						text_escaped(line[0] == '#' ? line + 1 + (line[1] == ' ') : "",
							     shown[1], sizeof(shown[1])));
					textin_close(&in);
				}
			}
			free(ents[k]);
		}
		if (n >= 0)
			free(ents);
	}
}

/*
 * What a size's text may not say plainly: a capacity ('size', 'used')
 * without a unit is bytes, and "MB" is a MiB here.  A note on stderr, the
 * "MB" one once a run.
 */
static void size_note(const struct param_def *d, const char *text, uint64_t v, const char *where)
{
	static int said_binary;
	const char *unit = text + strspn(text, "0123456789. ");
	char c = (char)tolower((unsigned char)unit[0]);
	int num = (int)strcspn(text, " ");

	/* 0: derived, no size at all */
	if (!*unit && v && v < (1u << 20) && (!strcmp(d->name, "size") || !strcmp(d->name, "used"))) {
		fprintf(stderr, "imprint: note: %s: '%s' has no unit, so '%s' is %" PRIu64 " bytes; sizes take K, M, G or T (binary: %sM is %s MiB)\n",
			where, text, d->name, v, text, text);
		return;
	}
	if (said_binary || !c || !strchr("kmgt", c) || tolower((unsigned char)unit[1]) != 'b')
		return;
	said_binary = 1;
	fprintf(stderr, "imprint: note: %s: '%s' is read as %.*s %ciB (%" PRIu64 " bytes): K, M, G and T are binary here (powers of 1024), with or without 'B' or 'iB'\n",
		where, text, num < unit - text ? num : (int)(unit - text), text,
		toupper((unsigned char)c), v);
}

int params_set(struct params *p, const char *key, const char *value,
	       const char *where, struct param_error *err)
{
	char norm[KEY_MAX], text[VALUE_MAX];
	const struct param_def *d;
	union param_value v = { .u = 0 };
	const char *hint;
	int i;

	i = tables_set(p, key, value, 0, where, err);
	if (i <= 0)
		return i;
	if (params_normalize_key(norm, sizeof(norm), key) == 0 && !strcmp(norm, "profile"))
		return load_profile(p, value, where, err);
	if (params_normalize_key(norm, sizeof(norm), key) || (i = param_index(norm)) < 0) {
		char shown[KEY_MAX];

		if (params_copy_trimmed(shown, sizeof(shown), key))
			snprintf(shown, sizeof(shown), "%.40s...", key);
		hint = params_suggest(key);
		if (hint)
			params_set_error(err, where, "unknown parameter '%s' (did you mean '%s'?)",
				  shown, hint);
		else
			params_set_error(err, where, "unknown parameter '%s'", shown);
		return -EINVAL;
	}
	d = &param_table[i];
	if (params_copy_trimmed(text, sizeof(text), value)) {
		params_set_error(err, where, "'%s' value is too long (got '%.40s...')", d->name, value);
		return -EINVAL;
	}
	if (params_parse_value(d, text, where, &v, err))
		return -EINVAL;
	if (d->type == PT_SIZE)
		size_note(d, text, v.u, where);
	value_put(p, d, v);
	p->explicit_mask[i / 64] |= UINT64_C(1) << (i % 64);
	return 0;
}

int params_is_set(const struct params *p, const char *key)
{
	int i = params_lookup(key);

	if (i < 0)
		return 0;
	return !!(p->explicit_mask[i / 64] & (UINT64_C(1) << (i % 64)));
}

/*
 * One "key = value" per line; '#' starts a comment anywhere (no value needs
 * one); blank lines are skipped.  A key given twice: the later line wins,
 * like a later --set over the file.
 */
/* A key a configuration file set, and on which line: to warn when it comes again. */
struct key_line {
	char key[KEY_MAX];
	unsigned long line;
};

/*
 * Note that key was set on line; warn (on stderr) when the file set it
 * before, since only the last value counts.  Returns 0 or -ENOMEM.
 */
static int note_key(struct key_line **keys, size_t *n, size_t *cap, const char *path,
		    const char *key, unsigned long line)
{
	char norm[KEY_MAX];

	if (params_normalize_key(norm, sizeof(norm), key))
		return 0; /* params_set() refuses it */
	for (size_t i = 0; i < *n; i++) {
		if (strcmp((*keys)[i].key, norm) == 0) {
			fprintf(stderr, "imprint: warning: %s: '%s' is set twice, on lines %lu and %lu: line %lu wins\n",
				path, norm, (*keys)[i].line, line, line);
			(*keys)[i].line = line;
			return 0;
		}
	}
	if (array_grow(keys, cap, *n + 1, sizeof(**keys)))
		return -ENOMEM;
	snprintf((*keys)[*n].key, KEY_MAX, "%s", norm);
	(*keys)[(*n)++].line = line;
	return 0;
}

int params_load_file(struct params *p, const char *path, struct param_error *err)
{
	struct key_line *keys = NULL;
	size_t nkeys = 0, keys_cap = 0;
	char where[256];
	struct textin in;
	int ret, got;

	ret = textin_open(&in, path, "a config file", TEXTIN_CONFIG_LINE, TEXTIN_CONFIG_TOTAL);
	if (ret) {
		params_set_error(err, NULL, "%s", in.err);
		return ret;
	}
	while ((got = textin_next(&in)) > 0) {
		char *s = in.line, *hash, *eq;

		hash = strchr(s, '#');
		if (hash)
			*hash = '\0';
		s = params_trim(s);
		if (!*s)
			continue;
		snprintf(where, sizeof(where), "%s line %lu", path, in.lineno);
		eq = strchr(s, '=');
		if (!eq || eq == s) {
			params_set_error(err, where, "expected 'key = value' (got '%s')", s);
			ret = -EINVAL;
			goto out_free_line;
		}
		*eq = '\0';
		if (eq[-1] == '+') {
			/* "key += more": a table continued */
			eq[-1] = '\0';
			s = params_trim(s);
			ret = tables_set(p, s, eq + 1, 1, where, err);
			if (ret == 1) {
				params_set_error(err, where, "'+=' continues a table; '%s' is not one", s);
				ret = -EINVAL;
			}
		} else {
			ret = note_key(&keys, &nkeys, &keys_cap, path, s, in.lineno);
			if (ret)
				params_set_error(err, where, "out of memory");
			else
				ret = params_set(p, s, eq + 1, where, err);
		}
		if (ret)
			goto out_free_line;
	}
	if (got < 0) {
		ret = got;
		params_set_error(err, NULL, "%s", in.err);
	}
out_free_line:
	free(keys);
	textin_close(&in);
	return ret;
}

double params_mean_file_size(const struct params *p)
{
	struct size_model m;
	uint64_t cap = p->size_max;

	if (p->used && p->used < cap)
		cap = p->used;
	if (tables_size_model(p, (double)cap, &m))
		return NAN;
	if (p->tab.source_bytes && p->tab.source_files) {
		/*
		 * A profile's own mean: the table's pieces put a heavy tail's
		 * bytes in the wrong place (/usr/share/doc: 1.7% over), so its
		 * mean is scaled to the source's, the cap's effect kept.
		 */
		double full = m.mean;
		struct size_model u;

		if (cap < p->size_max && !tables_size_model(p, (double)p->size_max, &u))
			full = u.mean;
		if (full > 0)
			return m.mean * ((double)p->tab.source_bytes / (double)p->tab.source_files) / full;
	}
	return m.mean;
}

/* files = max(1, round(used / mean)), the mean capped at min(size_max, used). */
static int files_from_used(struct params *p, struct param_error *err)
{
	double mean = params_mean_file_size(p), q;
	char cap[32];

	if (!isfinite(mean) || mean <= 0) {
		fmt_bytes(p->used < p->size_max ? p->used : p->size_max, MSG_BYTES, cap, sizeof(cap));
		params_set_error(err, NULL,
			  "the file size model ('size_*') has no distribution below %s", cap);
		return -EINVAL;
	}
	q = round((double)p->used / mean);
	if (q >= 18446744073709551616.0) {
		params_set_error(err, NULL, "'used' (%" PRIu64 ") makes more than 2^64 files of mean %g bytes",
			  p->used, mean);
		return -EINVAL;
	}
	p->files = q < 1 ? 1 : (uint64_t)q;
	return 0;
}

/* size = ceil(used / fill_share), rounded up to a multiple of SIZE_GRANULE. */
static int size_from_used(struct params *p, struct param_error *err)
{
	double s = ceil(((double)p->used + (double)p->reserved_bytes) / p->fill_share);
	uint64_t v;

	if (s >= 18446744073709551616.0 - (double)SIZE_GRANULE) {
		params_set_error(err, NULL, "'used' (%" PRIu64 ") over 'fill_share' (%g) is more than 16 EiB",
			  p->used, p->fill_share);
		return -EINVAL;
	}
	v = (uint64_t)s;
	if (v < p->used + p->reserved_bytes)
		v = p->used + p->reserved_bytes;
	p->size = (v + SIZE_GRANULE - 1) & ~(SIZE_GRANULE - 1);
	return 0;
}

/*
 * files per directory: P(0) = fpd_empty_share plus the bins 1..fpd_max_bin
 * must leave a non-negative remainder for the tail (see fpd_probs()).
 */
static int check_fpd(const struct params *p, struct param_error *err)
{
	double k = p->fpd_degree, c = p->fpd_offset;
	double scale = (k - 1) * pow(c, k - 1), mass = 0;
	char a[32], b[32];

	if (p->tab.nfpd)
		return 0; /* the table replaces the law's bins (tables_check) */
	for (uint32_t i = 1; i <= p->fpd_max_bin; i++)
		mass += scale * pow(i + c, -k);
	if (p->fpd_empty_share + mass <= 1 + 1e-12)
		return 0;
	params_fmt_double(p->fpd_empty_share, a, sizeof(a));
	snprintf(b, sizeof(b), "%.4g", mass);
	params_set_error(err, NULL,
		  "'fpd_empty_share' (%s) plus the bins 1..%" PRIu32
		  " (%s) exceed 1; lower 'fpd_empty_share' or 'fpd_max_bin'",
		  a, p->fpd_max_bin, b);
	return -EINVAL;
}

/*
 * params_resolve's first step: every field in its range (fields set
 * directly by a caller skipped params_set()'s checks), then the rules
 * between fields.  Returns 0 or -EINVAL.
 */
static int check_fields(const struct params *p, struct param_error *err)
{
	char a[32], b[32];
	int ret;

	for (size_t i = 0; i < ARRAY_SIZE(param_table); i++) {
		const struct param_def *d = &param_table[i];
		union param_value v = params_value_get(p, d);

		if (!params_value_ok(d, v)) {
			params_fmt_value(d, v, a, sizeof(a));
			if (d->type == PT_ENUM || d->type == PT_NAME)
				params_enum_error(err, NULL, d, a);
			else
				params_range_error(err, NULL, d, a);
			return -EINVAL;
		}
	}
	ret = check_fpd(p, err);
	if (!ret)
		ret = tables_check(p, err);
	if (ret)
		return ret;
	if (p->frag_extents != 0 && p->frag_extents < 2) {
		params_fmt_double(p->frag_extents, a, sizeof(a));
		params_set_error(err, NULL, "'frag_extents' must be 0 (auto) or >= 2 (got '%s')", a);
		return -EINVAL;
	}
	if (p->inodes && p->inode_ratio) {
		params_set_error(err, NULL,
				 "'inodes' (%" PRIu64 ") and 'inode_ratio' both size the inode table; set one of them",
				 p->inodes);
		return -EINVAL;
	}
	if (p->free_chunk & (p->free_chunk - 1)) {
		params_fmt_size(p->free_chunk, a, sizeof(a));
		params_set_error(err, NULL, "'free_chunk' must be a power of two (got '%s')", a);
		return -EINVAL;
	}
	if (p->dup_block_share + p->zero_block_share > 1 + 1e-12) {
		params_fmt_double(p->dup_block_share, a, sizeof(a));
		params_fmt_double(p->zero_block_share, b, sizeof(b));
		params_set_error(err, NULL, "'dup_block_share' (%s) plus 'zero_block_share' (%s) exceed 1",
			  a, b);
		return -EINVAL;
	}
	return 0;
}

/*
 * Only files set: used = max(1, round(files * mean(size_max))), then
 * iterated to the fixed point.  Returns 0 or -EINVAL.
 */
static int used_from_files(struct params *p, struct param_error *err)
{
	double mean = params_mean_file_size(p), u;
	char a[32];

	if (!isfinite(mean) || mean <= 0) {
		fmt_bytes(p->size_max, MSG_BYTES, a, sizeof(a));
		params_set_error(err, NULL,
			  "the file size model ('size_*') has no distribution below %s", a);
		return -EINVAL;
	}
	u = round((double)p->files * mean);
	if (u >= 18446744073709551616.0) {
		params_set_error(err, NULL,
			  "'files' (%" PRIu64 ") needs more than 16 EiB of file data",
			  p->files);
		return -EINVAL;
	}
	p->used = u < 1 ? 1 : (uint64_t)u;
	/*
	 * The plan truncates sizes at min(size_max, used): iterate to the
	 * fixed point used = round(files * mean(min(size_max, used))) so
	 * that the sample's own mean matches.  The map is monotone and
	 * settles in a few steps.
	 */
	for (int it = 0; it < 100 && p->used < p->size_max; it++) {
		uint64_t prev = p->used;

		mean = params_mean_file_size(p);
		if (!isfinite(mean) || mean <= 0)
			break;
		u = round((double)p->files * mean);
		p->used = u < 1 ? 1 : (uint64_t)u;
		if (p->used == prev)
			break;
	}
	return 0;
}

/* The resolved totals must fit: used within size, the special directories' files within files. */
static int check_totals(const struct params *p, int files_given, int used_given,
			struct param_error *err)
{
	uint64_t special;
	char a[32], b[32];

	if (p->reserved_bytes > p->size) {
		fmt_bytes(p->reserved_bytes, MSG_BYTES, a, sizeof(a));
		fmt_bytes(p->size, MSG_BYTES, b, sizeof(b));
		params_set_error(err, NULL,
				 "the included files (--include) alone need about %s, more than 'size' (%s); raise --size or include less",
				 a, b);
		return -EINVAL;
	}
	if (p->reserved_bytes && p->used > p->size - p->reserved_bytes) {
		char c[32];

		fmt_bytes(p->used, MSG_BYTES, a, sizeof(a));
		fmt_bytes(p->reserved_bytes, MSG_BYTES, b, sizeof(b));
		fmt_bytes(p->size, MSG_BYTES, c, sizeof(c));
		params_set_error(err, NULL,
				 "'used' (%s) and the included files (about %s) exceed 'size' (%s); raise --size or lower --used / --files",
				 a, b, c);
		return -EINVAL;
	}
	if (p->used > p->size) {
		fmt_bytes(p->used, MSG_BYTES, a, sizeof(a));
		fmt_bytes(p->size, MSG_BYTES, b, sizeof(b));
		if (files_given && !used_given)
			params_set_error(err, NULL,
				  "'files' (%" PRIu64 ") needs about %s of file data, more than 'size' (%s)",
				  p->files, a, b);
		else
			params_set_error(err, NULL, "'used' (%s) must not exceed 'size' (%s)", a, b);
		return -EINVAL;
	}

	if (p->tab.nspecial && tables_special_total(p) > p->files) {
		params_set_error(err, NULL, "'special_dir_table' holds %" PRIu64 " files (scaled to "
				 "'files'), more than 'files' (%" PRIu64 ")", tables_special_total(p),
				 p->files);
		return -EINVAL;
	}
	if (!p->tab.nspecial &&
	    (__builtin_mul_overflow((uint64_t)p->special_dirs, p->special_dir_files, &special) ||
	     special > p->files)) {
		params_set_error(err, NULL,
			  "'special_dirs' (%" PRIu32 ") times 'special_dir_files' (%" PRIu64
			  ") is more than 'files' (%" PRIu64 ")",
			  p->special_dirs, p->special_dir_files, p->files);
		return -EINVAL;
	}
	return 0;
}

/*
 * Deriving size, used and files (0 means "derive it"), with
 * mean(cap) = mean file size of the size model truncated at cap:
 *
 * - used and files both unset: size = size if set, else 1 GiB;
 *   used = max(1, floor(fill_share * size));
 *   files = max(1, round(used / mean(min(size_max, used)))).
 * - only used set: files = max(1, round(used / mean(min(size_max, used)))).
 * - only files set: used = max(1, round(files * mean(size_max))), then
 *   iterated to the fixed point used = round(files * mean(min(size_max, used))).
 * - both set: both kept.
 * In the last three, an unset size = ceil(used / fill_share) rounded up to a
 * multiple of 4 MiB.  A size set explicitly must hold used.  Then
 * special_dirs * special_dir_files must not exceed files.
 *
 * After this every field is non-zero where it is derived, and resolving
 * the printed result again changes nothing (all three are then "set").
 */
/*
 * SOURCE_DATE_EPOCH, when set, is the time reference unless 'time_ref' was
 * set explicitly (a configuration that names its time keeps it), as the
 * reproducible-builds specification asks of a build's "now".  Returns 0,
 * or -EINVAL when it is not a whole number of seconds.
 */
static int time_from_env(struct params *p, struct param_error *err)
{
	const char *v = getenv("SOURCE_DATE_EPOCH");
	char shown[64];
	int64_t t = 0;

	p->time_ref_from_env = 0;
	if (!v)
		return 0;
	for (const char *c = v; *c; c++) {
		if (!isdigit((unsigned char)*c) || t > (INT64_MAX - (*c - '0')) / 10) {
			t = -1;
			break;
		}
		t = t * 10 + (*c - '0');
	}
	if (!*v || t < 0) {
		text_escape(shown, sizeof(shown), v, strlen(v));
		params_set_error(err, NULL,
				 "SOURCE_DATE_EPOCH must be a whole number of seconds since 1970-01-01, at most %" PRId64 " (got '%s')",
				 INT64_MAX, shown);
		return -EINVAL;
	}
	if (params_is_set(p, "time_ref"))
		return 0;
	p->time_ref = t;
	p->time_ref_from_env = 1;
	return 0;
}

int params_resolve(struct params *p, struct param_error *err)
{
	int size_given = p->size != 0, used_given = p->used != 0;
	int files_given = p->files != 0;
	int ret;

	ret = check_fields(p, err);
	if (!ret)
		ret = time_from_env(p, err);
	if (ret)
		return ret;
	if (!size_given && !used_given && !files_given && p->tab.source_files) {
		/* a profile's own count, unless the command line scales it */
		p->files = p->tab.source_files;
		files_given = 1;
	}

	if (!used_given && !files_given) {
		if (!size_given)
			p->size = GiB;
		p->used = (uint64_t)floor(p->fill_share * (double)p->size);
		if (p->used > p->size)
			p->used = p->size;
		/* the included files are part of the fill */
		p->used = p->used > p->reserved_bytes ? p->used - p->reserved_bytes : 0;
		if (!p->used)
			p->used = 1;
		ret = files_from_used(p, err);
	} else if (!files_given) {
		ret = files_from_used(p, err);
	} else if (!used_given) {
		ret = used_from_files(p, err);
	}
	if (ret)
		return ret;
	if (!p->size) {
		int i = params_lookup("size");

		ret = size_from_used(p, err);
		if (ret)
			return ret;
		/*
		 * 'size = 0' (as a profile writes it) asks for the derived size,
		 * which create may grow to hold the plan's metadata: not a choice
		 */
		p->explicit_mask[i / 64] &= ~(UINT64_C(1) << (i % 64));
	}
	return check_totals(p, files_given, used_given, err);
}
