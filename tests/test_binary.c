/* test_binary.c - binary content: access, sizes, ratios, dup/zero blocks, ELF and PE validity */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <magic.h>
#include <xxhash.h>
#include <zstd.h>

/*
 * The modules themselves, not only their header: --calibrate drives the
 * unique-block generator with an explicit mixing parameter, which is
 * internal, and the ELF and PE checks read the executables' layouts.
 * Their public symbols then come from here, not libimprint.a.
 */
#include "content/binary.c"
#include "content/exec.c"
#include "testtool.h"

#define KiB (UINT64_C(1) << 10)
#define MiB (UINT64_C(1) << 20)

/* The external-tool test was skipped (readelf or objdump missing). */
static int tools_skipped;

static void model_init(struct content_model *cm, const struct plan *pl, double ratio, double dup,
		       double zero)
{
	memset(cm, 0, sizeof(*cm));
	cm->seed = 42;
	cm->pl = pl;
	cm->compress_ratio = ratio;
	cm->dup_block_share = dup;
	cm->zero_block_share = zero;
	assert_int_equal(content_binary_init(cm), 0);
}

static uint8_t *xmalloc(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);

	assert_non_null(p);
	return p;
}

static double zlib_ratio(const uint8_t *buf, size_t n)
{
	uLongf cl = compressBound(n);
	uint8_t *c = xmalloc(cl);

	assert_int_equal(compress2(c, &cl, buf, n, 6), Z_OK);
	free(c);
	return (double)n / (double)cl;
}

static double zstd_ratio(const uint8_t *buf, size_t n)
{
	size_t cap = ZSTD_compressBound(n), cl;
	uint8_t *c = xmalloc(cap);

	cl = ZSTD_compress(c, cap, buf, n, 3);
	assert_false(ZSTD_isError(cl));
	free(c);
	return (double)n / (double)cl;
}

/* ------------------------------------------------------------------------- */
/* Shared helpers */

static void test_random(void **state)
{
	size_t n = 1 * MiB;
	uint8_t *a = xmalloc(n), *b = xmalloc(n);
	struct rng r;

	(void)state;
	gen_random(7, 0, a, n);
	gen_random(7, 0, b, n);
	assert_memory_equal(a, b, n);
	gen_random(8, 0, b, n);
	assert_memory_not_equal(a, b, 4096);
	/* any range is the same range of the whole */
	rng_init(&r, 1, "test.random", 0);
	for (int i = 0; i < 200; i++) {
		uint64_t off = rng_below(&r, n), len = rng_below(&r, n - off + 1);

		gen_random(7, off, b, len);
		assert_memory_equal(a + off, b, len);
	}
	assert_true(zlib_ratio(a, n) < 1.001);
	assert_true(zstd_ratio(a, n) < 1.001);
	free(a);
	free(b);
}

static void test_checksums(void **state)
{
	(void)state;
	assert_int_equal(gen_crc32(0, (const uint8_t *)"123456789", 9), 0xCBF43926u);
	assert_int_equal(gen_adler32(1, (const uint8_t *)"Wikipedia", 9), 0x11E60398u);
	/* continuing a checksum equals one pass */
	assert_int_equal(gen_crc32(gen_crc32(0, (const uint8_t *)"1234", 4),
				   (const uint8_t *)"56789", 5), 0xCBF43926u);
}

/* gen_crc32() (ISA-L) is zlib's crc32_z(): every length to 300 and some long ones, any start and value */
static void test_crc32_zlib(void **state)
{
	static const size_t longs[] = { 511, 1024, 4099, 65536, 65537, 200003 };
	size_t n = 200003 + 16;
	uint8_t *b = malloc(n);
	uint64_t x = 0x9e3779b97f4a7c15ull;

	(void)state;
	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		b[i] = (uint8_t)x;
	}
	for (size_t len = 0; len < 300 + ARRAY_SIZE(longs); len++) {
		size_t l = len < 300 ? len : longs[len - 300];

		for (size_t off = 0; off < 16; off += 5) {
			uint32_t v = (uint32_t)(x >> (off * 2)), z = (uint32_t)crc32_z(v, b + off, l);

			assert_int_equal(gen_crc32(v, b + off, l), z);
			assert_int_equal(gen_crc32(gen_crc32(v, b + off, l / 3), b + off + l / 3, l - l / 3), z);
		}
	}
	free(b);
}

/* ------------------------------------------------------------------------- */
/* Random access and determinism, all three formats */

struct fmt {
	const struct gen_ops *ops;
	const char *ext;
	const char *mime;	/* libmagic's answer, NULL: the PE ones */
};

static const struct fmt formats[] = {
	{ &gen_binary_ops, "dat", NULL },
	{ &gen_elf_ops, "", "application/x-executable" },
	{ &gen_elf_ops, "so", "application/x-sharedlib" },
	{ &gen_elf_ops, "o", "application/x-object" },
	{ &gen_pe_ops, "exe", NULL },
	{ &gen_pe_ops, "dll", NULL },
	{ &gen_pe_ops, "sys", NULL },
};

static void fill_whole(const struct fmt *f, const struct content_model *cm, uint64_t key,
		       uint64_t size, uint8_t *buf)
{
	struct gen_file g = { .key = key, .file = 1, .size = size, .ext = f->ext, .cm = cm };

	assert_int_equal(f->ops->fill(&g, 0, buf, size), 0);
}

static void test_determinism(void **state)
{
	struct content_model cm, cm2;
	uint64_t size = 300 * KiB + 17;
	uint8_t *a = xmalloc(size), *b = xmalloc(size);

	(void)state;
	model_init(&cm, NULL, 2.0, 0.05, 0.02);
	model_init(&cm2, NULL, 2.0, 0.05, 0.02);
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		fill_whole(&formats[i], &cm, 99, size, a);
		fill_whole(&formats[i], &cm2, 99, size, b);
		assert_memory_equal(a, b, size);
		fill_whole(&formats[i], &cm, 100, size, b);
		assert_memory_not_equal(a, b, size);
	}
	content_binary_release(&cm);
	content_binary_release(&cm2);
	free(a);
	free(b);
}

static void test_random_access(void **state)
{
	static const uint64_t sizes[] = { 1024, 1500, 4095, 4096, 70000, 3 * MiB + 123 };
	struct content_model cm;
	struct rng r;

	(void)state;
	model_init(&cm, NULL, 2.5, 0.1, 0.05);
	rng_init(&r, 1, "test.access", 0);
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		for (size_t k = 0; k < ARRAY_SIZE(sizes); k++) {
			const struct fmt *f = &formats[i];
			uint64_t size = sizes[k];
			struct gen_file g = { .key = 5 + k, .size = size, .ext = f->ext, .cm = &cm };
			uint8_t *whole = xmalloc(size), *part = xmalloc(size);

			fill_whole(f, &cm, g.key, size, whole);
			/* random ranges */
			for (int n = 0; n < 40; n++) {
				uint64_t off = rng_below(&r, size), room = MIN(size - off, 300 * KiB);
				uint64_t len = rng_below(&r, room + 1);

				assert_int_equal(f->ops->fill(&g, off, part, len), 0);
				assert_memory_equal(whole + off, part, len);
			}
			/* the whole file in random pieces, back to front */
			for (uint64_t end = size; end > 0;) {
				uint64_t draw = 1 + rng_below(&r, 20000), len = MIN(end, draw);

				assert_int_equal(f->ops->fill(&g, end - len, part + end - len, len), 0);
				end -= len;
			}
			assert_memory_equal(whole, part, size);
			free(whole);
			free(part);
		}
	}
	content_binary_release(&cm);
}

/* ------------------------------------------------------------------------- */
/* Structure at exact sizes */

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return le16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return le32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return le64toh(v);
}

/* Everything inside the file, and something ending exactly at its end. */
static void check_elf(const uint8_t *b, uint64_t size, uint16_t type)
{
	uint64_t shoff = get64(b + 40), end;
	unsigned shnum = get16(b + 60);

	assert_memory_equal(b, ELFMAG, SELFMAG);
	assert_int_equal(get16(b + 16), type);
	assert_int_equal(get16(b + 18), EM_X86_64);
	assert_true(shoff % 8 == 0);
	assert_true(shoff + 64 * shnum <= size);
	end = shoff + 64 * shnum;
	for (unsigned i = 1; i < shnum; i++) {
		const uint8_t *sh = b + shoff + 64 * i;
		uint64_t off = get64(sh + 24), len = get64(sh + 32);

		if (get32(sh + 4) == SHT_NOBITS)
			continue;
		assert_true(off + len <= size);
		end = MAX(end, off + len);
		/* data is block-aligned in larger files, so its blocks are the file's */
		if (len > 64 * KiB && get64(sh + 8) == (SHF_ALLOC | SHF_WRITE))
			assert_true(off % BLOCK == 0);
	}
	assert_true(end == size);
}

static void check_pe(const uint8_t *b, uint64_t size)
{
	uint32_t pe = get32(b + 0x3c);
	const uint8_t *sec = b + pe + 24 + get16(b + pe + 20);

	assert_true(b[0] == 'M' && b[1] == 'Z');
	assert_memory_equal(b + pe, "PE\0\0", 4);
	assert_int_equal(get16(b + pe + 4), 0x8664);
	assert_int_equal(get16(b + pe + 24), 0x20b);
	for (unsigned i = 0; i < get16(b + pe + 6); i++, sec += 40) {
		uint32_t raw = get32(sec + 16), off = get32(sec + 20);

		assert_true(off % PE_FALIGN == 0 && raw % PE_FALIGN == 0);
		assert_true((uint64_t)off + raw <= size);
		if (i == 2 && raw > 64 * KiB)
			assert_true(off % BLOCK == 0);
	}
}

static void check_format(const struct fmt *f, const uint8_t *b, uint64_t size)
{
	if (f->ops == &gen_elf_ops)
		check_elf(b, size, elf_type(f->ext));
	else if (f->ops == &gen_pe_ops)
		check_pe(b, size);
}

/* min_size .. 16 MiB: the edges of every layout change, then log-uniform sizes. */
static size_t size_sweep(uint64_t min, uint64_t *out, size_t max)
{
	static const uint64_t edges[] = {
		0, 1, 7, 8, 63, 511, 512, 513, 1024, 3000, 4095, 4096, 4097, 8191, 8192,
		65535, 65536, 65537, 131072, MiB - 1, MiB, MiB + 1, 16 * MiB - 1,
	};
	size_t n = 0;
	struct rng r;

	for (size_t i = 0; i < ARRAY_SIZE(edges) && n < max; i++)
		if (min + edges[i] <= 16 * MiB)
			out[n++] = min + edges[i];
	out[n++] = 16 * MiB;
	rng_init(&r, 1, "test.sizes", min);
	while (n < max)
		out[n++] = (uint64_t)(min * exp(rng_uniform(&r) * log((double)(16 * MiB) / min)));
	return n;
}

static void test_exact_sizes(void **state)
{
	struct content_model cm;
	uint8_t *buf = xmalloc(16 * MiB);
	uint64_t sizes[48];

	(void)state;
	model_init(&cm, NULL, 2.0, 0.05, 0.02);
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++) {
		const struct fmt *f = &formats[i];
		size_t n = size_sweep(f->ops->min_size ? f->ops->min_size : 1, sizes,
				      ARRAY_SIZE(sizes));

		for (size_t k = 0; k < n; k++) {
			fill_whole(f, &cm, 1000 + k, sizes[k], buf);
			check_format(f, buf, sizes[k]);
		}
		/* the smallest size holds for every key (names, hence tables, vary) */
		for (uint64_t key = 0; key < 2000; key++) {
			fill_whole(f, &cm, key, f->ops->min_size, buf);
			check_format(f, buf, f->ops->min_size);
		}
	}
	content_binary_release(&cm);
	free(buf);
}

/* ------------------------------------------------------------------------- */
/* Compressibility: whole files, zlib -6 and zstd -3, within 5% */

static void check_ratio(double target, uint64_t file_size, unsigned nfiles)
{
	struct content_model cm;
	uint8_t *buf = xmalloc(file_size);
	double zin = 0, zout = 0, sout = 0;

	model_init(&cm, NULL, target, 0.05, 0.02);
	for (unsigned i = 0; i < nfiles; i++) {
		gen_binary_bytes(&cm, 500 + i, 0, buf, file_size);
		zin += (double)file_size;
		zout += (double)file_size / zlib_ratio(buf, file_size);
		sout += (double)file_size / zstd_ratio(buf, file_size);
	}
	print_message("  ratio %.2f, %u x %llu bytes: zlib %.4f, zstd %.4f\n", target, nfiles,
		      (unsigned long long)file_size, zin / zout, zin / sout);
	assert_true(fabs(zin / zout / target - 1) < 0.05);
	assert_true(fabs(zin / sout / target - 1) < 0.05);
	content_binary_release(&cm);
	free(buf);
}

static void test_compress_ratio(void **state)
{
	static const double targets[] = { 1.0, 1.2, 1.5, 2.0, 3.0, 4.0 };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++)
		check_ratio(targets[i], 8 * MiB, 1);
	/* smaller whole files, each compressed on its own */
	check_ratio(2.0, 64 * KiB, 64);
	check_ratio(3.0, 256 * KiB, 16);
}

/* It looks like binary data, not text, whatever the ratio. */
static void test_looks_binary(void **state)
{
	static const double targets[] = { 1.0, 1.25, 2.0, 4.0 };
	magic_t mg = test_magic_open();
	size_t n = 64 * KiB;
	uint8_t *buf = xmalloc(n);

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		struct content_model cm;
		size_t printable = 0;

		model_init(&cm, NULL, targets[i], 0.05, 0.02);
		gen_binary_bytes(&cm, 3, 0, buf, n);
		for (size_t k = 0; k < n; k++)
			printable += buf[k] >= 0x20 && buf[k] < 0x7f;
		assert_string_equal(magic_buffer(mg, buf, n), "application/octet-stream");
		assert_true(printable < n / 2);
		content_binary_release(&cm);
	}
	magic_close(mg);
	free(buf);
}

/* ------------------------------------------------------------------------- */
/* Zero and duplicate blocks over ~10,000 files, measured by hashing */

struct block_hash {
	XXH128_hash_t h;
};

static int cmp_hash(const void *a, const void *b)
{
	const XXH128_hash_t *x = a, *y = b;

	if (x->high64 != y->high64)
		return x->high64 < y->high64 ? -1 : 1;
	if (x->low64 != y->low64)
		return x->low64 < y->low64 ? -1 : 1;
	return 0;
}

/*
 * Shares as gen.h defines them: zero blocks, and non-zero blocks whose
 * content occurs more than once (every occurrence), over full blocks.
 */
static void measure_shares(double dup, double zero, double *mdup, double *mzero)
{
	enum { NFILES = 10000 };
	static const uint8_t zeros[BLOCK];
	uint64_t *sizes = calloc(NFILES, sizeof(*sizes)), nblocks = 0, nzero = 0, nh = 0, ndup = 0;
	struct plan pl = { 0 };
	struct content_model cm;
	XXH128_hash_t *h;
	uint8_t *buf;
	struct rng r;

	assert_non_null(sizes);
	/* lognormal sizes (median 48 KiB), capped at 4 MiB: about 300,000 blocks */
	rng_init(&r, 2, "test.shares", 0);
	for (int i = 0; i < NFILES; i++) {
		double u1 = rng_uniform(&r), u2 = rng_uniform(&r);
		double g = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);

		sizes[i] = (uint64_t)MIN(exp(log(48.0 * KiB) + 1.5 * g), 4.0 * MiB);
		nblocks += sizes[i] / BLOCK;
	}
	pl.nfiles = NFILES;
	pl.file_size = sizes;
	model_init(&cm, &pl, 2.0, dup, zero);
	h = calloc(nblocks, sizeof(*h));
	buf = xmalloc(4 * MiB);
	assert_non_null(h);
	for (int i = 0; i < NFILES; i++) {
		gen_binary_bytes(&cm, rng_mix64(i + 1), 0, buf, sizes[i]);
		for (uint64_t b = 0; b < sizes[i] / BLOCK; b++) {
			if (!memcmp(buf + b * BLOCK, zeros, BLOCK))
				nzero++;
			else
				h[nh++] = XXH3_128bits(buf + b * BLOCK, BLOCK);
		}
	}
	qsort(h, nh, sizeof(*h), cmp_hash);
	for (uint64_t i = 0; i < nh;) {
		uint64_t j = i + 1;

		while (j < nh && !cmp_hash(&h[i], &h[j]))
			j++;
		if (j - i > 1)
			ndup += j - i;
		i = j;
	}
	*mdup = (double)ndup / (double)nblocks;
	*mzero = (double)nzero / (double)nblocks;
	print_message("  %llu blocks, pool %llu: zero %.5f (target %.3f), dup %.5f (target %.3f)\n",
		      (unsigned long long)nblocks,
		      (unsigned long long)((struct binary_model *)cm.binary_priv)->pool_blocks,
		      *mzero, zero, *mdup, dup);
	content_binary_release(&cm);
	free(buf);
	free(h);
	free(sizes);
}

static void test_block_shares(void **state)
{
	static const double cases[][2] = { { 0.05, 0.02 }, { 0.3, 0.1 }, { 0, 0 } };

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double dup = cases[i][0], zero = cases[i][1], mdup, mzero;

		measure_shares(dup, zero, &mdup, &mzero);
		if (dup > 0)
			assert_true(fabs(mdup / dup - 1) < 0.05);
		else
			assert_true(mdup == 0);
		if (zero > 0)
			assert_true(fabs(mzero / zero - 1) < 0.05);
		else
			assert_true(mzero == 0);
	}
}

/* ------------------------------------------------------------------------- */
/* External readers: readelf, objdump and libmagic over a size sweep */

/* Run cmd on path; 0 when it exits 0 and writes nothing to stderr. */
static int run_clean(const char *cmd, const char *path, const char *err)
{
	char line[1024];
	struct stat st;
	int ret;

	snprintf(line, sizeof(line), "%s '%s' >/dev/null 2>'%s'", cmd, path, err);
	ret = system(line);
	if (ret != 0)
		return -1;
	if (stat(err, &st) || st.st_size) {
		print_error("%s %s wrote to stderr\n", cmd, path);
		return -1;
	}
	return 0;
}

static void test_tools(void **state)
{
	char dir[] = "/tmp/test_binary.XXXXXX", path[64], err[64];
	struct content_model cm;
	uint8_t *buf = xmalloc(16 * MiB);
	unsigned files = 0, named = 0;
	uint64_t sizes[24];
	magic_t mg;

	(void)state;
	if (!test_have("readelf") || !test_have("objdump")) {
		tools_skipped = 1;
		skip();
	}
	mg = test_magic_open();
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/f", dir);
	snprintf(err, sizeof(err), "%s/err", dir);
	model_init(&cm, NULL, 2.0, 0.05, 0.02);
	for (size_t i = 1; i < ARRAY_SIZE(formats); i++) {
		const struct fmt *f = &formats[i];
		size_t n = size_sweep(f->ops->min_size, sizes, ARRAY_SIZE(sizes));

		for (size_t k = 0; k < n; k++) {
			const char *mime;

			fill_whole(f, &cm, 77 + k, sizes[k], buf);
			test_write_file(path, buf, sizes[k]);
			/* not executable: libmagic names an executable ET_DYN a PIE */
			chmod(path, 0644);
			if (f->ops == &gen_elf_ops)
				assert_int_equal(run_clean("readelf -a -W", path, err), 0);
			assert_int_equal(run_clean("objdump -x", path, err), 0);
			mime = magic_file(mg, path);
			assert_non_null(mime);
			files++;
			if (f->mime ? !strcmp(mime, f->mime) :
			    !strcmp(mime, "application/vnd.microsoft.portable-executable") ||
			    !strcmp(mime, "application/x-dosexec"))
				named++;
			else
				print_error("%s of %llu bytes: %s\n", f->ext,
					    (unsigned long long)sizes[k], mime);
		}
	}
	print_message("  %u files, %u named right by libmagic\n", files, named);
	assert_int_equal(named, files);
	content_binary_release(&cm);
	unlink(path);
	unlink(err);
	rmdir(dir);
	magic_close(mg);
	free(buf);
}

/* ------------------------------------------------------------------------- */
/*
 * --calibrate: the tables calib_lz and calib_skew of binary.c, measured on
 * 16 MiB of unique blocks (two keys, 8 MiB each): the geometric mean of
 * the zlib -6 and zstd -3 ratios for each value of the mixing parameter.
 */

static double calib_measure(struct binary_model *bm, uint8_t *buf, size_t n)
{
	double zin = 0, zout = 0, sout = 0;

	for (uint64_t key = 1; key <= 2; key++) {
		for (size_t b = 0; b < n / BLOCK; b++)
			block_unique(bm, key, b, buf + b * BLOCK, BLOCK);
		zin += (double)n;
		zout += (double)n / zlib_ratio(buf, n);
		sout += (double)n / zstd_ratio(buf, n);
	}
	return sqrt(zin / zout * zin / sout);
}

static int calibrate(void)
{
	struct binary_model *bm = calloc(1, sizeof(*bm));
	size_t n = 8 * MiB;
	uint8_t *buf = malloc(n);

	if (!bm || !buf)
		return 1;
	printf("static const struct calib calib_lz[] = {");
	for (int i = 0; i <= 29; i++) {
		double p = 0.14 + 0.02 * i;

		bm->skewed = 0;
		bm->lit_span = lz_span(p);
		printf("%s{ %.2f, %.4f },", i % 5 ? " " : "\n\t", p, calib_measure(bm, buf, n));
	}
	printf("\n};\n\nstatic const struct calib calib_skew[] = {");
	for (unsigned a = 0; a <= 64; a += 4) {
		bm->skewed = 1;
		build_lit_map(bm, a);
		bm->favoured = a;
		printf("%s{ %u, %.4f },", a % 20 ? " " : "\n\t", a, calib_measure(bm, buf, n));
	}
	printf("\n};\n");
	free(buf);
	free(bm);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_checksums),
		cmocka_unit_test(test_crc32_zlib),
		cmocka_unit_test(test_determinism),
		cmocka_unit_test(test_random_access),
		cmocka_unit_test(test_exact_sizes),
		cmocka_unit_test(test_compress_ratio),
		cmocka_unit_test(test_looks_binary),
		cmocka_unit_test(test_block_shares),
		cmocka_unit_test(test_tools),
	};
	int failed;

	if (argc > 1 && !strcmp(argv[1], "--calibrate"))
		return calibrate();
	failed = cmocka_run_group_tests(tests, NULL, NULL);
	/* all else passed, only the external readers were missing */
	if (!failed && tools_skipped)
		return 77;
	return failed;
}
