/* ext.c - extension popularity: the Impressions tables plus a Zipf tail of real extensions */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/ext.h"
#include "util/util.h"

struct ext_pct {
	const char *name;
	double pct;
};

/* Impressions' default table (percent of files); "" is its "nul" */
static const struct ext_pct table_default[] = {
	{ "", 6.91 }, { "txt", 3.64 }, { "jpg", 3.08 }, { "exe", 2.88 },
	{ "cpp", 3.26 }, { "htm", 4.45 }, { "h", 6.69 }, { "dll", 6.63 },
	{ "gif", 6.77 }, { "pdb", 1.34 }, { "lib", 1.46 }, { "pst", 1.0 },
	{ "pch", 1.0 }, { "mp3", 1.0 }, { "wma", 1.0 }, { "vhd", 1.0 },
	{ "pdf", 1.0 }, { "mpg", 1.0 },
};

/* Impressions' table for large file systems; it has no pst or mpg row */
static const struct ext_pct table_large[] = {
	{ "", 7.79 }, { "txt", 5.02 }, { "jpg", 1.45 }, { "exe", 2.08 },
	{ "cpp", 4.88 }, { "htm", 3.24 }, { "h", 9.32 }, { "dll", 3.64 },
	{ "gif", 3.43 }, { "pdb", 1.94 }, { "pch", 0.10 }, { "mp3", 0.16 },
	{ "lib", 1.76 }, { "wma", 0.19 }, { "vhd", 0.01 }, { "pdf", 0.04 },
};

/*
 * The long tail, most popular first.  Impressions drew random three-letter
 * strings here; real extensions keep the measured extension list meaningful
 * and give the content generator types it can write.  The types it writes
 * (png, bmp, wav, mp4, zip, gz, tar, so, o) sit near the top so that their
 * shares are not negligible.  A name that is also in the model's table is
 * skipped, which lets the large table (no pst, mpg) still meet them here.
 */
static const char *const tail_names[] = {
	/* 1-50 */
	"c", "png", "xml", "js", "html", "o", "py", "so", "log", "ini", "zip",
	"css", "gz", "bmp", "wav", "java", "md", "json", "dat", "a", "tar",
	"mp4", "ico", "cs", "sys", "tmp", "bak", "doc", "xls", "cab", "hpp",
	"inf", "cfg", "php", "sh", "pl", "pyc", "pyd", "jar", "bin", "ttf",
	"svg", "ocx", "chm", "msi", "go", "rs", "rb", "conf", "yml",
	/* 51-100 */
	"csv", "rtf", "docx", "xlsx", "ppt", "pptx", "mpg", "pst", "odt", "tif",
	"jpeg", "webp", "avi", "mkv", "mov", "wmv", "flac", "ogg", "m4a", "aac",
	"mid", "iso", "img", "db", "sql", "lnk", "url", "reg", "bat", "cmd",
	"ps1", "vbs", "asp", "aspx", "jsp", "s", "asm", "inc", "def", "rc",
	"res", "idl", "tlb", "resx", "sln", "obj", "ilk", "exp", "map", "sym",
	/* 101-150 */
	"po", "mo", "pot", "pm", "pod", "t", "tcl", "lua", "m", "mm", "kt",
	"hs", "ml", "erl", "ex", "el", "elc", "scm", "lisp", "f", "f90", "pas",
	"bas", "vb", "awk", "sed", "y", "l", "am", "in", "ac", "m4", "mk", "d",
	"v", "sv", "vhdl", "tex", "bib", "sty", "cls", "dvi", "ps", "eps", "ai",
	"psd", "xcf", "fig", "dwg", "dxf",
	/* 151-200 */
	"stl", "fbx", "dae", "glb", "gltf", "mtl", "mp2", "m3u", "pls", "aif",
	"aiff", "au", "snd", "ra", "rm", "opus", "amr", "mka", "m4v", "webm",
	"3gp", "flv", "swf", "vob", "ifo", "ts", "mts", "m2ts", "asf", "wmf",
	"emf", "pcx", "tga", "dds", "xpm", "xbm", "pgm", "ppm", "jp2", "heic",
	"raw", "cr2", "nef", "dng", "arw", "exr", "hdr", "bz2", "xz", "tgz",
	/* 201-250 */
	"7z", "rar", "z", "lz", "lzma", "zst", "cpio", "deb", "rpm", "apk",
	"dmg", "pkg", "whl", "egg", "gem", "otf", "woff", "eot", "fon", "fnt",
	"pfb", "pfm", "afm", "bdf", "pcf", "psf", "idx", "pack", "dbf", "mdb",
	"ldb", "ibd", "sdf", "mdf", "ldf", "key", "pem", "crt", "cer", "der",
	"p12", "pfx", "csr", "asc", "gpg", "sig", "pub", "pid", "lock", "swp",
	/* 251-300 */
	"old", "orig", "rej", "odp", "diff", "part", "toml", "env", "yaml",
	"nib", "rss", "xsd", "xsl", "xslt", "dtd", "rdf", "kml", "gpx", "vmdk",
	"vdi", "ova", "ovf", "com", "scr", "hlp", "cnt", "dmp", "etl", "evtx",
	"nls", "mui", "ax", "acm", "cur", "ani", "msc", "mof", "cat", "dic",
	"aff", "info", "rst", "nfo", "1", "3", "8", "r", "mat", "npy", "npz",
	/* 301-340 */
	"h5", "nc", "pkl", "pt", "pb", "vim", "zsh", "csh", "ics", "vcf", "eml",
	"msg", "mbox", "epub", "mobi", "djvu", "cbz", "xps", "wpd", "wps",
	"pak", "wad", "srt", "ass", "vtt", "cue", "tsv", "jsx", "tsx", "vue",
	"less", "scss", "sass", "erb", "twig", "qml", "ui", "qrc", "pro", "cc",
	/* 341-360 */
	"cxx", "hxx", "hh", "inl", "la", "lo", "ko", "bc", "ll", "wasm", "elf",
	"out", "hex", "dtb", "dts", "efi", "ods", "ldif", "kdbx", "xul",
};

/*
 * Zipf-Mandelbrot weights 1 / (rank + ZIPF_OFFSET): exponent 1 as the
 * studies find, with a small offset so that the tail's first entry is not
 * larger than the table's big ones.  With the offset the top 30 extensions
 * hold about 70% of files, as Douceur & Bolosky measured.
 */
#define ZIPF_OFFSET 2.0

static int in_list(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return 1;
	return 0;
}

int ext_model_init_list(struct ext_model *m, const char *const *names, const double *shares,
			size_t nt, int flat_tail)
{
	size_t ntail = ARRAY_SIZE(tail_names);
	double head_sum = 0, tail_w = 0, rest;
	size_t n = 0;

	memset(m, 0, sizeof(*m));
	m->name = malloc((nt + ntail) * sizeof(*m->name));
	m->share = malloc((nt + ntail) * sizeof(*m->share));
	if (!m->name || !m->share) {
		ext_model_release(m);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nt; i++) {
		m->name[n] = names[i];
		m->share[n++] = shares[i];
		head_sum += shares[i];
	}
	m->head = n;
	for (size_t i = 0; i < ntail; i++) {
		if (in_list(names, nt, tail_names[i]))
			continue;
		m->name[n] = tail_names[i];
		m->share[n] = flat_tail ? 1.0 : 1.0 / ((double)(n - m->head + 1) + ZIPF_OFFSET);
		tail_w += m->share[n++];
	}
	m->count = n;
	rest = 1.0 - head_sum;
	if (rest < 0)
		rest = 0;
	for (size_t i = m->head; i < n; i++)
		m->share[i] *= rest / tail_w;
	return 0;
}

int ext_model_init(struct ext_model *m, enum ext_table which)
{
	const struct ext_pct *t = table_default;
	size_t nt = ARRAY_SIZE(table_default);
	const char *names[ARRAY_SIZE(table_default)];
	double shares[ARRAY_SIZE(table_default)];

	if (which == EXT_TABLE_LARGE) {
		t = table_large;
		nt = ARRAY_SIZE(table_large);
	}
	for (size_t i = 0; i < nt; i++) {
		names[i] = t[i].name;
		shares[i] = t[i].pct / 100.0;
	}
	return ext_model_init_list(m, names, shares, nt, 0);
}

void ext_model_release(struct ext_model *m)
{
	free(m->name);
	free(m->share);
	memset(m, 0, sizeof(*m));
}

int ext_model_find(const struct ext_model *m, const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < m->count; i++)
		if (!strcmp(m->name[i], name))
			return (int)i;
	return -1;
}

int ext_model_find_nocase(const struct ext_model *m, const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < m->count; i++)
		if (!strcasecmp(m->name[i], name))
			return (int)i;
	return -1;
}

/* Floors of the typed formats (see ext.h); real files of these types are never smaller. */
static const struct {
	const char *ext;
	uint64_t min;
} ext_floor[] = {
	{ "png", 256 },	  { "gif", 256 },   { "bmp", 256 },   { "jpg", 1024 },	{ "jpeg", 1024 },
	{ "wav", 256 },	  { "mp3", 1024 },  { "mp4", 1024 },  { "m4a", 1024 },	{ "m4v", 1024 },
	{ "mov", 1024 },  { "pdf", 1024 },  { "zip", 256 },   { "gz", 256 },	{ "tgz", 256 },
	{ "tar", 1536 },  { "exe", 1024 },  { "dll", 1024 },  { "sys", 1024 },	{ "ocx", 1024 },
	{ "cpl", 1024 },  { "scr", 1024 },  { "drv", 1024 },  { "mui", 1024 },	{ "ax", 1024 },
	{ "acm", 1024 },  { "so", 1024 },   { "o", 1024 },    { "ko", 1024 },	{ "elf", 1024 },
	{ "out", 1024 },  { "mo", 64 },     { "gmo", 64 },
	/* ZIP containers: a manifest and a few members at least */
	{ "jar", 1024 },  { "apk", 4096 },  { "whl", 1024 },  { "egg", 1024 },	{ "docx", 4096 },
	{ "xlsx", 4096 }, { "pptx", 8192 }, { "odt", 4096 },  { "ods", 4096 },	{ "odp", 8192 },
	{ "epub", 4096 }, { "cbz", 4096 },  { "xps", 4096 },
};

uint64_t ext_min_size(const char *ext)
{
	if (!ext)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(ext_floor); i++)
		if (!strcasecmp(ext_floor[i].ext, ext))
			return ext_floor[i].min;
	return 0;
}
