/* test_params.c - unit tests of the parameter table: parsing, messages, derivation, round trip */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "model/params.h"

#define MiB (UINT64_C(1) << 20)
#define GiB (UINT64_C(1) << 30)

/* The names 'fs' takes here: the model knows none, its user (the backends' registry) supplies them. */
static const char *const fs_names[] = { "ext2", "ext3", "ext4", "xfs", "btrfs", "f2fs", NULL };

/* Write text to a fresh temporary file; the caller unlinks and frees path. */
static char *write_temp(const char *text)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	FILE *f;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	assert_true(asprintf(&path, "%s/test_params.XXXXXX", dir) > 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Load text as a config file; returns params_load_file()'s result. */
static int load_text(struct params *p, const char *text, struct param_error *err,
		     char **path_out)
{
	char *path = write_temp(text);
	int ret = params_load_file(p, path, err);

	unlink(path);
	if (path_out)
		*path_out = path;
	else
		free(path);
	return ret;
}

static void test_defaults(void **state)
{
	struct params p;

	(void)state;
	params_init(&p);
	assert_int_equal(p.seed, 1);
	assert_string_equal(p.fs, "ext4");
	assert_int_equal(p.size, 0);
	assert_int_equal(p.used, 0);
	assert_int_equal(p.files, 0);
	assert_true(p.fill_share == 0.45);
	assert_true(p.size_mu == 9.48);
	assert_true(p.size_sigma == 2.46);
	assert_true(p.size_tail_weight == 0.00006);
	assert_int_equal(p.size_tail_xm, 512 * MiB);
	assert_true(p.size_tail_shape == 0.91);
	assert_int_equal(p.size_max, 64 * GiB);
	assert_int_equal(p.sampling, SAMPLING_STRATIFIED);
	assert_true(p.files_per_dir == 10.2);
	assert_true(p.fpd_offset == 2.36);
	assert_true(p.fpd_degree == 2);
	assert_true(p.fpd_empty_share == 0.225);
	assert_int_equal(p.fpd_max_bin, 28);
	assert_int_equal(p.depth_model, DEPTH_POISSON);
	assert_true(p.depth_lambda == 6.49);
	assert_int_equal(p.ext_table, EXT_TABLE_DEFAULT);
	assert_int_equal(p.special_dirs, 0);
	assert_int_equal(p.special_dir_files, 10000);
	assert_int_equal(p.special_dir_depth, 2);
	assert_int_equal(p.name_style, NAMES_REALISTIC);
	assert_true(p.name_space_share == 0.03);
	assert_true(p.name_utf8_share == 0.02);
	assert_true(p.name_upper_share == 0.10);
	assert_true(p.hardlink_share == 0.005);
	assert_true(p.symlink_share == 0.01);
	assert_true(p.symlink_dir_share == 0.25);
	assert_true(p.symlink_relative_share == 0.6);
	assert_true(p.symlink_dangling_share == 0.05);
	assert_int_equal(p.owner_users, 3);
	assert_true(p.owner_root_share == 0.1);
	assert_true(p.perm_private_share == 0.05);
	assert_true(p.time_ref == INT64_C(1767225600));
	assert_true(p.age_median_days == 200);
	assert_true(p.age_sigma == 1.6);
	assert_true(p.age_max_days == 3650);
	assert_int_equal(p.explicit_mask[0], 0);
	assert_int_equal(p.explicit_mask[1], 0);
	assert_false(params_is_set(&p, "seed"));
	assert_false(params_is_set(&p, "no_such_key"));
}

static void set_ok(struct params *p, const char *key, const char *value)
{
	struct param_error err = { "" };
	int ret = params_set(p, key, value, "--set", &err);

	if (ret)
		fail_msg("params_set(%s, %s): %s", key, value, err.msg);
}

static void test_set_each_type(void **state)
{
	struct params p;

	(void)state;
	params_init(&p);
	set_ok(&p, "seed", " 42 ");
	assert_int_equal(p.seed, 42);
	set_ok(&p, "seed", "18446744073709551615");
	assert_true(p.seed == UINT64_MAX);
	set_ok(&p, "fs", "ext2");
	assert_string_equal(p.fs, "ext2");
	set_ok(&p, "fs", "EXT3");
	assert_string_equal(p.fs, "ext3");
	set_ok(&p, "size", "4K");
	assert_int_equal(p.size, 4096);
	set_ok(&p, "used", "1.5G");
	assert_int_equal(p.used, 3 * GiB / 2);
	set_ok(&p, "files", "10K");
	assert_int_equal(p.files, 10000);
	set_ok(&p, "fill_share", "1");
	assert_true(p.fill_share == 1);
	set_ok(&p, "size_mu", "-3.5");
	assert_true(p.size_mu == -3.5);
	set_ok(&p, "size-sigma", "\t1.25\n");
	assert_true(p.size_sigma == 1.25);
	set_ok(&p, "fpd_empty_share", "0");
	assert_true(p.fpd_empty_share == 0);
	set_ok(&p, "fpd_max_bin", "30");
	assert_int_equal(p.fpd_max_bin, 30);
	set_ok(&p, "Depth-Model", "care");
	assert_int_equal(p.depth_model, DEPTH_CARE);
	set_ok(&p, "sampling", "iid");
	assert_int_equal(p.sampling, SAMPLING_IID);
	set_ok(&p, "ext_table", "large");
	assert_int_equal(p.ext_table, EXT_TABLE_LARGE);
	set_ok(&p, "name_style", "numeric");
	assert_int_equal(p.name_style, NAMES_NUMERIC);
	set_ok(&p, "special_dir_files", "2.5M");
	assert_int_equal(p.special_dir_files, 2500000);
	set_ok(&p, "time_ref", "-86400");
	assert_true(p.time_ref == -86400);
	set_ok(&p, "age_sigma", "0");
	assert_true(p.age_sigma == 0);
	set_ok(&p, "size_max", "1");
	assert_int_equal(p.size_max, 1);

	assert_true(params_is_set(&p, "size_sigma"));
	assert_true(params_is_set(&p, "size-sigma"));
	assert_true(params_is_set(&p, "time_ref"));
	assert_false(params_is_set(&p, "age_max_days"));
}

static void test_seed_random(void **state)
{
	struct params p;
	char *buf = NULL, num[32];
	size_t len = 0;
	FILE *f;

	(void)state;
	params_init(&p);
	set_ok(&p, "seed", "random");
	assert_true(params_is_set(&p, "seed"));
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	params_print_config(&p, f);
	fclose(f);
	snprintf(num, sizeof(num), "\nseed = %llu\n", (unsigned long long)p.seed);
	assert_non_null(strstr(buf, num));
	free(buf);
}

/* params_set must fail with exactly msg and leave p untouched. */
static void set_fails(const char *key, const char *value, const char *where,
		      const char *msg)
{
	struct params p, before;
	struct param_error err = { "" };

	params_init(&p);
	before = p;
	assert_int_equal(params_set(&p, key, value, where, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
	assert_memory_equal(&p, &before, sizeof(p));
}

static void test_set_errors(void **state)
{
	(void)state;
	set_fails("size_sigm", "1", "--set",
		  "--set: unknown parameter 'size_sigm' (did you mean 'size_sigma'?)");
	set_fails("size-sigm", "1", "--set",
		  "--set: unknown parameter 'size-sigm' (did you mean 'size_sigma'?)");
	set_fails("frobnicate", "1", "--set", "--set: unknown parameter 'frobnicate'");
	set_fails("size_sigma", "abc", "config.cfg line 12",
		  "config.cfg line 12: 'size_sigma' must be a number (got 'abc')");
	set_fails("size_sigma", "", "config.cfg line 12",
		  "config.cfg line 12: 'size_sigma' must be a number (got '')");
	set_fails("size_sigma", "nan", "config.cfg line 12",
		  "config.cfg line 12: 'size_sigma' must be a number (got 'nan')");
	set_fails("size_sigma", "-1", "config.cfg line 12",
		  "config.cfg line 12: 'size_sigma' must be > 0 (got '-1')");
	set_fails("size_sigma", " 0 ", "config.cfg line 12",
		  "config.cfg line 12: 'size_sigma' must be > 0 (got '0')");
	set_fails("fpd_degree", "1", "--set", "--set: 'fpd_degree' must be > 1 (got '1')");
	set_fails("age_sigma", "-0.1", "--set", "--set: 'age_sigma' must be >= 0 (got '-0.1')");
	set_fails("fpd_empty_share", "1.5", "config.cfg line 7",
		  "config.cfg line 7: 'fpd_empty_share' must be a share in [0, 1) (got '1.5')");
	set_fails("fpd_empty_share", "1", "config.cfg line 7",
		  "config.cfg line 7: 'fpd_empty_share' must be a share in [0, 1) (got '1')");
	set_fails("symlink_share", "1.5", "config.cfg line 7",
		  "config.cfg line 7: 'symlink_share' must be a share in [0, 1] (got '1.5')");
	set_fails("symlink_share", "lots", "--set",
		  "--set: 'symlink_share' must be a share in [0, 1] (got 'lots')");
	set_fails("fill_share", "0", "--set",
		  "--set: 'fill_share' must be a share in (0, 1] (got '0')");
	set_fails("fs", "vfat", "config.cfg line 3",
		  "config.cfg line 3: 'fs' must be one of ext2, ext3, ext4, xfs, btrfs, f2fs (got "
		  "'vfat')");
	set_fails("sampling", "sobol", "--set",
		  "--set: 'sampling' must be one of stratified, iid (got 'sobol')");
	set_fails("seed", "-1", "--seed",
		  "--seed: 'seed' must be an integer in [0, 18446744073709551615] or 'random' (got '-1')");
	set_fails("seed", "18446744073709551616", "--seed",
		  "--seed: 'seed' must be an integer in [0, 18446744073709551615] or 'random' (got '18446744073709551616')");
	set_fails("fpd_max_bin", "0", "--set",
		  "--set: 'fpd_max_bin' must be in [1, 1000000] (got '0')");
	set_fails("fpd_max_bin", "2.5", "--set",
		  "--set: 'fpd_max_bin' must be a whole number (got '2.5')");
	set_fails("special_dirs", "4294967296", "--set",
		  "--set: 'special_dirs' must be in [0, 4294967295] (got '4294967296')");
	set_fails("size", "lots", "--set",
		  "--set: 'size' must be a size like 4096, 512M or 1.5G (got 'lots')");
	set_fails("size", "16384P", "--set",
		  "--set: 'size' must be below 16 EiB (got '16384P')");
	set_fails("size_max", "0", "--set", "--set: 'size_max' must be >= 1 (got '0')");
	set_fails("files", "1.5", "--set",
		  "--set: 'files' must be a whole count like 1000, 10K or 2.5M (got '1.5')");
	set_fails("time_ref", "soon", "--set", "--set: 'time_ref' must be an integer (got 'soon')");
	/* no where: no prefix */
	set_fails("fs", "vfat", NULL,
		  "'fs' must be one of ext2, ext3, ext4, xfs, btrfs, f2fs (got 'vfat')");
}

/*
 * The names 'fs' takes are whatever its user supplies: the model knows no
 * file system.  Other names give other messages, list and default.
 */
static void test_supplied_names(void **state)
{
	static const char *const other[] = { "zfs", "ntfs", NULL };
	static const char *const long_name[] = { "a-file-system-name", NULL };
	struct param_error err = { .msg = "" };
	struct params p;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_int_equal(params_supply_names("seed", other, "zfs"), -EINVAL);
	assert_int_equal(params_supply_names("no_such_key", other, "zfs"), -EINVAL);
	assert_int_equal(params_supply_names("fs", other, "ext4"), -EINVAL);
	assert_int_equal(params_supply_names("fs", long_name, "a-file-system-name"), -EINVAL);
	assert_int_equal(params_supply_names("fs", other, "ntfs"), 0);
	params_init(&p);
	assert_string_equal(p.fs, "ntfs");
	assert_int_equal(params_set(&p, "fs", "ext4", "--fs", &err), -EINVAL);
	assert_string_equal(err.msg, "--fs: 'fs' must be one of zfs, ntfs (got 'ext4')");
	set_ok(&p, "fs", " ZFS ");
	assert_string_equal(p.fs, "zfs");
	f = open_memstream(&text, &len);
	assert_non_null(f);
	params_print_list(f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "\nfs "));
	assert_non_null(strstr(text, "file system to build (allowed: zfs, ntfs)\n"));
	free(text);
	assert_int_equal(params_supply_names("fs", fs_names, "ext4"), 0);
}

static void test_suggest(void **state)
{
	(void)state;
	assert_string_equal(params_suggest("size_sigm"), "size_sigma");
	assert_string_equal(params_suggest("Size-Sigmaa"), "size_sigma");
	assert_string_equal(params_suggest("fill_shar"), "fill_share");
	assert_string_equal(params_suggest("seeed"), "seed");
	assert_null(params_suggest("frobnicate"));
	assert_null(params_suggest("x"));
	assert_null(params_suggest("fx"));
	assert_null(params_suggest(""));
}

struct size_case {
	const char *text;
	int ret;
	uint64_t value;
};

/* Each case through parse (named what): the result, the value, and v untouched on failure. */
static void check_parse(const char *what, int (*parse)(const char *, uint64_t *),
			const struct size_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = 12345;
		int ret = parse(cases[i].text, &v);

		if (ret != cases[i].ret || (!ret && v != cases[i].value))
			fail_msg("%s('%s') = %d, %llu; want %d, %llu", what, cases[i].text, ret,
				 (unsigned long long)v, cases[i].ret,
				 (unsigned long long)cases[i].value);
		if (ret && v != 12345)
			fail_msg("%s('%s') wrote its output on failure", what, cases[i].text);
	}
}

static void test_parse_size(void **state)
{
	static const struct size_case cases[] = {
		{ "0", 0, 0 },
		{ "4096", 0, 4096 },
		{ "4K", 0, 4096 },
		{ "4k", 0, 4096 },
		{ "4KiB", 0, 4096 },
		{ "4kib", 0, 4096 },
		{ "4KB", 0, 4096 },
		{ "4096B", 0, 4096 },
		{ " 4 K ", 0, 4096 },
		{ "1.5G", 0, 3 * GiB / 2 },
		{ "2T", 0, UINT64_C(2) << 40 },
		{ "512M", 0, 512 * MiB },
		{ "1P", 0, UINT64_C(1) << 50 },
		{ "0.5K", 0, 512 },
		{ "1.3K", 0, 1331 },		/* 1331.2 rounds to 1331 */
		{ "100.5", 0, 101 },		/* half rounds up */
		{ "15.99999999999999999999P", 0, UINT64_C(16) << 50 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "16383.999P", 0, UINT64_C(18446742947809644773) },
		{ "", -EINVAL, 0 },
		{ " ", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "+1", -EINVAL, 0 },
		{ "K", -EINVAL, 0 },
		{ ".5K", -EINVAL, 0 },
		{ "5.K", -EINVAL, 0 },
		{ "1X", -EINVAL, 0 },
		{ "1KK", -EINVAL, 0 },
		{ "1 2", -EINVAL, 0 },
		{ "1e3", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 },
		{ "4KiBs", -EINVAL, 0 },
		{ "18446744073709551616", -EINVAL, 0 },
		{ "16384P", -EINVAL, 0 },
		{ "99999999999999999999999", -EINVAL, 0 },
	};

	(void)state;
	check_parse("params_parse_size", params_parse_size, cases, sizeof(cases) / sizeof(cases[0]));
}

static void test_parse_count(void **state)
{
	static const struct size_case cases[] = {
		{ "0", 0, 0 },
		{ "1000", 0, 1000 },
		{ "10K", 0, 10000 },
		{ "10k", 0, 10000 },
		{ "1M", 0, 1000000 },
		{ "2.5M", 0, 2500000 },
		{ "1G", 0, 1000000000 },
		{ "1.000001M", 0, 1000001 },
		{ "3T", 0, UINT64_C(3000000000000) },
		{ "2P", 0, UINT64_C(2000000000000000) },
		{ " 7 ", 0, 7 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "1.5", -EINVAL, 0 },
		{ "1.0001K", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "-5", -EINVAL, 0 },
		{ "ten", -EINVAL, 0 },
		{ "10KiB", -EINVAL, 0 },
		{ "10B", -EINVAL, 0 },
		{ "1e6", -EINVAL, 0 },
		{ "18446744073709551616", -EINVAL, 0 },
		{ "18447P", -EINVAL, 0 },
	};

	(void)state;
	check_parse("params_parse_count", params_parse_count, cases,
		    sizeof(cases) / sizeof(cases[0]));
}

static void test_file_syntax(void **state)
{
	struct params p;
	struct param_error err = { "" };

	(void)state;
	params_init(&p);
	assert_int_equal(load_text(&p,
		"# a comment\n"
		"\n"
		"   \t\n"
		"  # indented comment\n"
		"seed=7\n"
		"size_sigma = 2.0   # trailing comment\n"
		"  fill-share\t=\t0.5  \r\n"
		"fs = ext3\n"
		"fs = ext2\n"		/* the later wins */
		"files = 1M", &err, NULL), 0);
	assert_int_equal(p.seed, 7);
	assert_true(p.size_sigma == 2.0);
	assert_true(p.fill_share == 0.5);
	assert_string_equal(p.fs, "ext2");
	assert_int_equal(p.files, 1000000);
	assert_true(params_is_set(&p, "fill_share"));
	assert_false(params_is_set(&p, "size"));
}

static void test_file_errors(void **state)
{
	struct params p;
	struct param_error err = { "" };
	char want[512], *path;

	(void)state;
	params_init(&p);
	assert_int_equal(load_text(&p, "seed = 3\n\ngarbage\n", &err, &path), -EINVAL);
	snprintf(want, sizeof(want), "%s line 3: expected 'key = value' (got 'garbage')", path);
	assert_string_equal(err.msg, want);
	free(path);

	assert_int_equal(load_text(&p, "= 5\n", &err, &path), -EINVAL);
	snprintf(want, sizeof(want), "%s line 1: expected 'key = value' (got '= 5')", path);
	assert_string_equal(err.msg, want);
	free(path);

	assert_int_equal(load_text(&p, "# x\nsize_sigma = -1\n", &err, &path), -EINVAL);
	snprintf(want, sizeof(want), "%s line 2: 'size_sigma' must be > 0 (got '-1')", path);
	assert_string_equal(err.msg, want);
	free(path);

	assert_int_equal(load_text(&p, "\n\nfs = vfat\n", &err, &path), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s line 3: 'fs' must be one of ext2, ext3, ext4, xfs, btrfs, f2fs (got 'vfat')", path);
	assert_string_equal(err.msg, want);
	free(path);

	assert_int_equal(load_text(&p, "size_sigm = 1\n", &err, &path), -EINVAL);
	snprintf(want, sizeof(want),
		 "%s line 1: unknown parameter 'size_sigm' (did you mean 'size_sigma'?)", path);
	assert_string_equal(err.msg, want);
	free(path);

	assert_int_equal(params_load_file(&p, "/nonexistent/config.cfg", &err), -ENOENT);
	assert_string_equal(err.msg,
			    "/nonexistent/config.cfg: cannot open: No such file or directory");
}

static uint64_t round_up_4m(double bytes)
{
	uint64_t v = (uint64_t)ceil(bytes);

	return (v + 4 * MiB - 1) / (4 * MiB) * (4 * MiB);
}

static void resolve_ok(struct params *p)
{
	struct param_error err = { "" };

	if (params_resolve(p, &err))
		fail_msg("params_resolve: %s", err.msg);
}

static void test_mean_file_size(void **state)
{
	struct params p;
	double full, capped;

	(void)state;
	params_init(&p);
	full = params_mean_file_size(&p);
	p.used = 100 * MiB;
	capped = params_mean_file_size(&p);
	assert_true(isfinite(full) && full > 0);
	assert_true(capped > 0 && capped < full);
	/* a body entirely beyond the cap and no tail: no law */
	p.size_mu = 1e6;
	p.size_tail_weight = 0;
	p.used = 0;
	assert_true(isnan(params_mean_file_size(&p)));
}

static void test_resolve_neither(void **state)
{
	struct params p, q;
	uint64_t used = (uint64_t)floor(0.45 * (double)GiB);
	uint64_t files;

	(void)state;
	params_init(&p);
	q = p;
	q.used = used;
	files = (uint64_t)llround((double)used / params_mean_file_size(&q));
	resolve_ok(&p);
	assert_int_equal(p.size, GiB);
	assert_int_equal(p.used, used);
	assert_int_equal(p.files, files);
	assert_true(p.files > 1);

	/* an explicit size scales used */
	params_init(&p);
	set_ok(&p, "size", "10G");
	set_ok(&p, "fill_share", "0.5");
	resolve_ok(&p);
	assert_int_equal(p.size, 10 * GiB);
	assert_int_equal(p.used, 5 * GiB);
	assert_true(p.files > 0);
}

static void test_resolve_used_only(void **state)
{
	struct params p, q;

	(void)state;
	params_init(&p);
	set_ok(&p, "used", "1G");
	q = p;
	resolve_ok(&p);
	assert_int_equal(p.used, GiB);
	assert_int_equal(p.files, (uint64_t)llround((double)GiB / params_mean_file_size(&q)));
	assert_int_equal(p.size, round_up_4m((double)GiB / 0.45));
	assert_int_equal(p.size, UINT64_C(2386558976));
	assert_int_equal(p.size % (4 * MiB), 0);

	/* tiny used: the rule still holds, size is one granule */
	params_init(&p);
	set_ok(&p, "used", "1");
	q = p;
	resolve_ok(&p);
	assert_int_equal(p.files, (uint64_t)llround(1 / params_mean_file_size(&q)));
	assert_true(p.files >= 1);
	assert_int_equal(p.size, 4 * MiB);
}

static void test_resolve_files_only(void **state)
{
	struct params p;
	double mean;

	(void)state;
	params_init(&p);
	mean = params_mean_file_size(&p);	/* capped at size_max: used unset */
	set_ok(&p, "files", "1000");
	resolve_ok(&p);
	assert_int_equal(p.files, 1000);
	/* used is the fixed point used = round(files * mean(min(size_max, used))) */
	assert_true(p.used < (uint64_t)llround(1000 * mean));
	assert_int_equal(p.used, (uint64_t)llround(1000 * params_mean_file_size(&p)));
	assert_int_equal(p.size, round_up_4m((double)p.used / 0.45));
	assert_true(p.size >= p.used);
}

static void test_resolve_both(void **state)
{
	struct params p;

	(void)state;
	params_init(&p);
	set_ok(&p, "used", "1G");
	set_ok(&p, "files", "5000");
	resolve_ok(&p);
	assert_int_equal(p.used, GiB);
	assert_int_equal(p.files, 5000);
	assert_int_equal(p.size, UINT64_C(2386558976));

	params_init(&p);
	set_ok(&p, "used", "1G");
	set_ok(&p, "files", "5000");
	set_ok(&p, "size", "1G");
	resolve_ok(&p);
	assert_int_equal(p.size, GiB);
}

static void resolve_fails(struct params *p, const char *msg)
{
	struct param_error err = { "" };

	assert_int_equal(params_resolve(p, &err), -EINVAL);
	assert_string_equal(err.msg, msg);
}

/* The defaults, then kv[0] = kv[1], kv[2] = kv[3] ... (NULL-terminated), unresolved. */
static void init_set(struct params *p, const char *const *kv)
{
	params_init(p);
	for (; *kv; kv += 2)
		set_ok(p, kv[0], kv[1]);
}

#define KV(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_resolve_errors(void **state)
{
	struct params p;
	char want[512];

	(void)state;
	init_set(&p, KV("size", "1G", "used", "2G"));
	resolve_fails(&p, "'used' (2 GiB) must not exceed 'size' (1 GiB)");
	init_set(&p, KV("size", "1G", "used", "1.5G", "files", "10"));
	resolve_fails(&p, "'used' (1.5 GiB) must not exceed 'size' (1 GiB)");

	init_set(&p, KV("size", "1G", "files", "1M"));
	{
		struct params q = p;

		q.used = (uint64_t)llround(1e6 * params_mean_file_size(&p));
		snprintf(want, sizeof(want),
			 "'files' (1000000) needs about %.1f GiB of file data, more than 'size' (1 GiB)",
			 (double)q.used / (double)GiB);
	}
	resolve_fails(&p, want);

	init_set(&p, KV("files", "2000", "special_dirs", "3"));
	resolve_fails(&p, "'special_dirs' (3) times 'special_dir_files' (10000) is more than 'files' (2000)");
	init_set(&p, KV("files", "30000", "special_dirs", "3"));
	resolve_ok(&p);
	init_set(&p, KV("fpd_empty_share", "0.9"));
	resolve_fails(&p, "'fpd_empty_share' (0.9) plus the bins 1..28 (0.7406) exceed 1; "
		      "lower 'fpd_empty_share' or 'fpd_max_bin'");

	/* fields set directly, bypassing params_set, are checked too */
	params_init(&p);
	p.size_sigma = -1;
	resolve_fails(&p, "'size_sigma' must be > 0 (got '-1')");
	params_init(&p);
	p.symlink_share = 2;
	resolve_fails(&p, "'symlink_share' must be a share in [0, 1] (got '2')");
	params_init(&p);
	snprintf(p.fs, sizeof(p.fs), "7");
	resolve_fails(&p, "'fs' must be one of ext2, ext3, ext4, xfs, btrfs, f2fs (got '7')");
}

static char *config_text(const struct params *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	params_print_config(p, f);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Print p (resolved), load it into fresh defaults, resolve: the same values. */
static void round_trip(struct params *p)
{
	struct params q;
	struct param_error err = { "" };
	char *text, *again, *path;

	resolve_ok(p);
	text = config_text(p);
	path = write_temp(text);
	params_init(&q);
	if (params_load_file(&q, path, &err))
		fail_msg("reload: %s\n%s", err.msg, text);
	unlink(path);
	free(path);
	resolve_ok(&q);
	/* everything but which keys were given explicitly */
	memcpy(q.explicit_mask, p->explicit_mask, sizeof(q.explicit_mask));
	assert_memory_equal(p, &q, sizeof(q));
	again = config_text(&q);
	assert_string_equal(text, again);
	free(again);
	free(text);
}

static void test_round_trip(void **state)
{
	struct params p;

	(void)state;
	params_init(&p);
	round_trip(&p);

	params_init(&p);
	set_ok(&p, "seed", "random");
	set_ok(&p, "files", "12345");
	set_ok(&p, "fs", "ext3");
	set_ok(&p, "fill_share", "0.3333333333333333");
	set_ok(&p, "size_mu", "9.123456789012345678");
	set_ok(&p, "size_sigma", "2.0000000000000004");
	set_ok(&p, "size_tail_xm", "1234567");
	set_ok(&p, "depth_model", "care");
	set_ok(&p, "time_ref", "-1");
	set_ok(&p, "age_sigma", "1e-300");
	round_trip(&p);

	params_init(&p);
	p.fill_share = 0.1 + 0.2;	/* not the double nearest 0.3 */
	p.age_median_days = 1.0 / 3.0;
	p.used = 12345678901;
	round_trip(&p);

	params_init(&p);
	set_ok(&p, "used", "3G");
	set_ok(&p, "files", "777");
	set_ok(&p, "size", "100G");
	round_trip(&p);
}

/* The tables: continued lines, emptied, their errors, and a round trip through the printed form. */
static void test_tables(void **state)
{
	struct params p;
	struct param_error err = { "" };

	(void)state;
	params_init(&p);
	assert_int_equal(load_text(&p, "files = 500\n"
				   "size_quantiles = 0 10 4096 4096\n"
				   "size_quantiles += 9000 1000000\n"
				   "depth_files = 0.2 0.5 0.3\n"
				   "depth_dirs = 0.1 0.6 0.3\n"
				   "fpd_max_bin = 2\n"
				   "fpd_table = 0.2 0.3 0.3 0.2\n"
				   "ext_shares = :0.1 c:0.5 h:0.3\n"
				   "size_by_ext = c:1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17\n"
				   "source_files = 123\n", &err, NULL), 0);
	assert_int_equal(p.tab.nsize_q, 6);
	assert_int_equal(p.tab.size_q[5], 1000000);
	assert_int_equal(p.tab.next, 3);
	assert_string_equal(p.tab.ext_name[1], "c");
	assert_int_equal(p.tab.sbe_q[0][16], 17);
	round_trip(&p);
	/* source_files is the count only when nothing scales the tree */
	params_init(&p);
	set_ok(&p, "source_files", "123");
	resolve_ok(&p);
	assert_int_equal(p.files, 123);
	params_init(&p);
	set_ok(&p, "source_files", "123");
	set_ok(&p, "used", "1M");
	resolve_ok(&p);
	assert_true(p.files != 123);

	params_init(&p);
	set_ok(&p, "size_quantiles", "1 2 3");
	set_ok(&p, "size_quantiles", "none");
	assert_int_equal(p.tab.nsize_q, 0);
	assert_int_equal(params_set(&p, "size_quantiles", "5 7 6", "--set", &err), -EINVAL);
	assert_string_equal(err.msg, "--set: 'size_quantiles' entry 3 must be a size in bytes, "
			    "not below the one before (got '6')");
	assert_int_equal(params_set(&p, "ext_shares", "c:0.1 c:0.2", "--set", &err), -EINVAL);
	assert_int_equal(params_set(&p, "size_by_ext", "c:1/2/3", "--set", &err), -EINVAL);
	assert_int_equal(params_set(&p, "depth_files", "0.5 -1", "--set", &err), -EINVAL);
	params_init(&p);
	assert_int_equal(load_text(&p, "seed += 3\n", &err, NULL), -EINVAL);
	assert_non_null(strstr(err.msg, "'+=' continues a table; 'seed' is not one"));
	params_init(&p);
	set_ok(&p, "fpd_table", "0.5 0.5");
	assert_int_equal(params_resolve(&p, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "'fpd_table' has 2 entries"));
	params_init(&p);
	assert_int_equal(params_set(&p, "profile", "no/such/file.conf", "--set", &err), -EINVAL);
	assert_int_equal(params_set(&p, "profile", "bad name", "--set", &err), -EINVAL);
}

static void test_print_config(void **state)
{
	struct params p;
	char *text;

	(void)state;
	params_init(&p);
	resolve_ok(&p);
	text = config_text(&p);
	assert_true(!strncmp(text, "# imprint ", 10));
	assert_non_null(strstr(text, " resolved configuration\n\n# general\nseed = 1\nfs = ext4\nsize = 1G\n"));
	assert_non_null(strstr(text, "\nsize_tail_xm = 512M\n"));
	assert_non_null(strstr(text, "\nsize_max = 64G\n"));
	assert_non_null(strstr(text, "\nsize_tail_weight = 6e-05\n"));
	assert_non_null(strstr(text, "\n# file sizes\nsize_mu = 9.48\n"));
	assert_non_null(strstr(text, "\n\n# times\ntime_ref = 1767225600\n"));
	assert_non_null(strstr(text, "\nused = 483183820\n"));
	free(text);
}

static size_t count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *s = text; (s = strstr(s, needle)); s += strlen(needle))
		n++;
	return n;
}

static void test_print_list(void **state)
{
	char *buf = NULL, *cfg;
	size_t len = 0, nparams;
	struct json_object *obj, *item, *v;
	struct params p;
	FILE *f;

	(void)state;
	params_init(&p);
	cfg = config_text(&p);
	nparams = count_lines_with(cfg, " = ");
	assert_true(nparams >= 40);

	f = open_memstream(&buf, &len);
	params_print_list(f);
	fclose(f);
	assert_true(!strncmp(buf, "NAME ", 5));
	assert_non_null(strstr(buf, "size_sigma "));
	assert_non_null(strstr(buf, "ext2, ext3, ext4"));
	assert_int_equal(count_lines_with(buf, "\n"), nparams + 1);
	free(buf);

	f = open_memstream(&buf, &len);
	params_print_list_json(f);
	fclose(f);
	obj = json_tokener_parse(buf);
	assert_non_null(obj);
	assert_true(json_object_is_type(obj, json_type_array));
	/* every parameter once, then the tables (group "tables"), which config prints only when set */
	{
		size_t nonempty = 0;

		for (size_t i = 0; i < json_object_array_length(obj); i++) {
			struct json_object *g;

			assert_true(json_object_object_get_ex(json_object_array_get_idx(obj, i), "group", &g));
			nonempty += strcmp(json_object_get_string(g), "tables") != 0;
		}
		assert_int_equal(nonempty, nparams);
		assert_true(json_object_array_length(obj) > nonempty);
	}
	item = json_object_array_get_idx(obj, 1);
	assert_true(json_object_object_get_ex(item, "name", &v));
	assert_string_equal(json_object_get_string(v), "fs");
	assert_true(json_object_object_get_ex(item, "default", &v));
	assert_string_equal(json_object_get_string(v), "ext4");
	assert_true(json_object_object_get_ex(item, "allowed", &v));
	assert_string_equal(json_object_get_string(v), "ext2, ext3, ext4, xfs, btrfs, f2fs");
	for (size_t i = 0; i < nparams; i++) {
		item = json_object_array_get_idx(obj, i);
		assert_true(json_object_object_get_ex(item, "type", &v));
		assert_true(json_object_object_get_ex(item, "unit", &v));
		assert_true(json_object_object_get_ex(item, "description", &v));
	}
	json_object_put(obj);
	free(buf);

	p.fill_share = 0.1 + 0.2;
	f = open_memstream(&buf, &len);
	params_print_config_json(&p, f);
	fclose(f);
	obj = json_tokener_parse(buf);
	assert_non_null(obj);
	assert_int_equal(json_object_object_length(obj), nparams);
	assert_true(json_object_object_get_ex(obj, "size_max", &v));
	assert_true(json_object_get_uint64(v) == 64 * GiB);
	assert_true(json_object_object_get_ex(obj, "fill_share", &v));
	assert_true(json_object_get_double(v) == 0.1 + 0.2);
	assert_true(json_object_object_get_ex(obj, "sampling", &v));
	assert_string_equal(json_object_get_string(v), "stratified");
	json_object_put(obj);
	free(buf);
	free(cfg);
}

/* Finding 9 (issue 16): bounded lines and files, NUL bytes, escaped echoes. */
static int load_bytes(struct params *p, const void *buf, size_t len, struct param_error *err)
{
	char path[] = "/tmp/imprint-test-params-XXXXXX";
	int fd = mkstemp(path), ret;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	ret = params_load_file(p, path, err);
	unlink(path);
	return ret;
}

static void test_config_limits(void **state)
{
	static const char nul[] = "seed = 5\nfiles = 10\0garbage\n";
	struct params p;
	struct param_error err;
	char *big;
	size_t n;

	(void)state;
	params_init(&p);
	assert_int_equal(load_bytes(&p, nul, sizeof(nul) - 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "line 2: a NUL byte at column 11"));

	/* a line of 64 KiB and more */
	n = 70 * 1024;
	big = malloc(n);
	assert_non_null(big);
	memset(big, 'a', n);
	params_init(&p);
	assert_int_equal(load_bytes(&p, big, n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "line 1: longer than 64 KiB"));
	free(big);

	/* a file of more than 16 MiB, in short lines (comments) */
	n = 17u * 1024 * 1024;
	big = malloc(n);
	assert_non_null(big);
	for (size_t i = 0; i < n; i++)
		big[i] = (i % 64 == 63) ? '\n' : '#';
	params_init(&p);
	assert_int_equal(load_bytes(&p, big, n, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "larger than 16 MiB"));
	free(big);

	/* /dev/zero: a NUL byte on line 1, at once */
	params_init(&p);
	assert_int_equal(params_load_file(&p, "/dev/zero", &err), -EINVAL);
	assert_non_null(strstr(err.msg, "/dev/zero line 1: a NUL byte"));
}

static void test_config_escape(void **state)
{
	static const char bad[] = "se\x1b[31med = 5\n";
	static const char utf[] = "caf\xc3\xa9\xff = 1\n";
	struct params p;
	struct param_error err;

	(void)state;
	params_init(&p);
	assert_int_equal(load_bytes(&p, bad, sizeof(bad) - 1, &err), -EINVAL);
	assert_null(strchr(err.msg, '\x1b'));
	assert_non_null(strstr(err.msg, "se\\x1b[31med"));
	params_init(&p);
	assert_int_equal(load_bytes(&p, utf, sizeof(utf) - 1, &err), -EINVAL);
	/* valid UTF-8 as is, the stray byte escaped */
	assert_non_null(strstr(err.msg, "caf\xc3\xa9\\xff"));
	params_init(&p);
	assert_int_equal(params_set(&p, "seed", "1\t2", "--set", &err), -EINVAL);
	assert_null(strchr(err.msg, '\t'));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_set_each_type),
		cmocka_unit_test(test_seed_random),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_supplied_names),
		cmocka_unit_test(test_suggest),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_parse_count),
		cmocka_unit_test(test_file_syntax),
		cmocka_unit_test(test_file_errors),
		cmocka_unit_test(test_mean_file_size),
		cmocka_unit_test(test_resolve_neither),
		cmocka_unit_test(test_resolve_used_only),
		cmocka_unit_test(test_resolve_files_only),
		cmocka_unit_test(test_resolve_both),
		cmocka_unit_test(test_resolve_errors),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_print_config),
		cmocka_unit_test(test_print_list),
		cmocka_unit_test(test_config_limits),
		cmocka_unit_test(test_config_escape),
	};

	if (params_supply_names("fs", fs_names, "ext4"))
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
