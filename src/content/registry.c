/* registry.c - which generator writes an extension, and which file's bytes a copy has */
#include <strings.h>

#include "content/registry.h"
#include "content/gen.h"
#include "plan/plan.h"

/*
 * Which generator writes an extension (compared without case).  Anything
 * not listed is "other binary".  A typed format is listed only for the
 * extensions whose floor the plan knows (ext_min_size()), so that a plan
 * never gives it a file too small to be valid; the text formats take any
 * size.
 */
/* clang-format off */
static const struct {
	const char *ext;
	const struct gen_ops *ops;
} ext_ops[] = {
	/* images, audio and video */
	{ "png", &gen_png_ops }, { "jpg", &gen_jpeg_ops }, { "jpeg", &gen_jpeg_ops },
	{ "gif", &gen_gif_ops }, { "bmp", &gen_bmp_ops },
	{ "wav", &gen_wav_ops }, { "mp3", &gen_mp3_ops }, { "mp4", &gen_mp4_ops },
	{ "m4a", &gen_mp4_ops }, { "m4v", &gen_mp4_ops }, { "mov", &gen_mp4_ops },
	/* documents and archives (ZIP containers: a plain ZIP) */
	{ "pdf", &gen_pdf_ops }, { "zip", &gen_zip_ops }, { "gz", &gen_gzip_ops },
	{ "tgz", &gen_gzip_ops }, { "tar", &gen_tar_ops },
	{ "jar", &gen_zip_ops }, { "apk", &gen_zip_ops }, { "whl", &gen_zip_ops },
	{ "egg", &gen_zip_ops }, { "docx", &gen_zip_ops }, { "xlsx", &gen_zip_ops },
	{ "pptx", &gen_zip_ops }, { "odt", &gen_zip_ops }, { "ods", &gen_zip_ops },
	{ "odp", &gen_zip_ops }, { "epub", &gen_zip_ops }, { "cbz", &gen_zip_ops },
	{ "xps", &gen_zip_ops },
	/* executables */
	{ "exe", &gen_pe_ops }, { "dll", &gen_pe_ops }, { "sys", &gen_pe_ops },
	{ "ocx", &gen_pe_ops }, { "cpl", &gen_pe_ops }, { "scr", &gen_pe_ops },
	{ "drv", &gen_pe_ops }, { "mui", &gen_pe_ops }, { "ax", &gen_pe_ops },
	{ "acm", &gen_pe_ops },
	{ "o", &gen_elf_ops }, { "so", &gen_elf_ops }, { "ko", &gen_elf_ops },
	{ "elf", &gen_elf_ops }, { "out", &gen_elf_ops },
	/* gettext message catalogues */
	{ "mo", &gen_mo_ops }, { "gmo", &gen_mo_ops },
	/* plain text and its line-structured kinds (text/ops.c picks the kind) */
	{ "txt", &gen_text_ops }, { "text", &gen_text_ops }, { "log", &gen_text_ops },
	{ "csv", &gen_text_ops }, { "tsv", &gen_text_ops }, { "md", &gen_text_ops },
	{ "markdown", &gen_text_ops }, { "rst", &gen_text_ops }, { "nfo", &gen_text_ops },
	{ "info", &gen_text_ops }, { "readme", &gen_text_ops }, { "ini", &gen_text_ops },
	{ "cfg", &gen_text_ops }, { "conf", &gen_text_ops }, { "inf", &gen_text_ops },
	{ "properties", &gen_text_ops }, { "toml", &gen_text_ops }, { "env", &gen_text_ops },
	{ "yml", &gen_text_ops }, { "yaml", &gen_text_ops }, { "tex", &gen_text_ops },
	{ "bib", &gen_text_ops }, { "po", &gen_text_ops }, { "pot", &gen_text_ops },
	{ "srt", &gen_text_ops }, { "vtt", &gen_text_ops }, { "sql", &gen_text_ops },
	{ "bat", &gen_text_ops }, { "cmd", &gen_text_ops }, { "diff", &gen_text_ops },
	{ "1", &gen_text_ops }, { "3", &gen_text_ops }, { "8", &gen_text_ops },
	/* markup and data */
	{ "htm", &gen_html_ops }, { "html", &gen_html_ops }, { "xhtml", &gen_html_ops },
	{ "shtml", &gen_html_ops }, { "asp", &gen_html_ops }, { "aspx", &gen_html_ops },
	{ "jsp", &gen_html_ops },
	{ "json", &gen_json_ops },
	{ "xml", &gen_xml_ops }, { "xsd", &gen_xml_ops }, { "xsl", &gen_xml_ops },
	{ "xslt", &gen_xml_ops }, { "rss", &gen_xml_ops }, { "rdf", &gen_xml_ops },
	{ "kml", &gen_xml_ops }, { "gpx", &gen_xml_ops }, { "svg", &gen_xml_ops },
	{ "ui", &gen_xml_ops }, { "qrc", &gen_xml_ops }, { "resx", &gen_xml_ops },
	{ "xul", &gen_xml_ops }, { "ovf", &gen_xml_ops }, { "plist", &gen_xml_ops },
	/* source code (text/code.c picks the language) */
	{ "c", &gen_source_ops }, { "h", &gen_source_ops }, { "cpp", &gen_source_ops },
	{ "cc", &gen_source_ops }, { "cxx", &gen_source_ops }, { "hpp", &gen_source_ops },
	{ "hh", &gen_source_ops }, { "hxx", &gen_source_ops }, { "inl", &gen_source_ops },
	{ "m", &gen_source_ops }, { "mm", &gen_source_ops }, { "y", &gen_source_ops },
	{ "l", &gen_source_ops }, { "idl", &gen_source_ops }, { "inc", &gen_source_ops },
	{ "def", &gen_source_ops }, { "rc", &gen_source_ops }, { "dts", &gen_source_ops },
	{ "java", &gen_source_ops }, { "kt", &gen_source_ops }, { "scala", &gen_source_ops },
	{ "cs", &gen_source_ops }, { "js", &gen_source_ops }, { "jsx", &gen_source_ops },
	{ "mjs", &gen_source_ops }, { "ts", &gen_source_ops }, { "tsx", &gen_source_ops },
	{ "go", &gen_source_ops }, { "rs", &gen_source_ops }, { "php", &gen_source_ops },
	{ "py", &gen_source_ops }, { "pyw", &gen_source_ops }, { "sh", &gen_source_ops },
	{ "bash", &gen_source_ops }, { "zsh", &gen_source_ops }, { "csh", &gen_source_ops },
	{ "ksh", &gen_source_ops }, { "awk", &gen_source_ops }, { "tcl", &gen_source_ops },
	{ "r", &gen_source_ops }, { "pl", &gen_source_ops }, { "pm", &gen_source_ops },
	{ "t", &gen_source_ops }, { "rb", &gen_source_ops }, { "css", &gen_source_ops },
	{ "less", &gen_source_ops }, { "scss", &gen_source_ops },
};
/* clang-format on */

const struct gen_ops *content_ext_ops(const char *ext)
{
	if (ext)
		for (size_t i = 0; i < sizeof(ext_ops) / sizeof(ext_ops[0]); i++)
			if (!strcasecmp(ext_ops[i].ext, ext))
				return ext_ops[i].ops;
	return &gen_binary_ops;
}

uint64_t content_file_of(const struct plan *pl, uint64_t file)
{
	uint32_t src;

	if (!pl->file_dup_of)
		return file;
	src = pl->file_dup_of[file];
	if (src == PLAN_NONE || pl->file_size[src] != pl->file_size[file])
		return file;
	return src;
}

/*
 * Real files by extension (Debian 12: /usr/include, /usr/share,
 * /usr/lib/python3*, /etc), for profiles made without --content: the
 * gzip -6 ratio of up to 300 files each, bytes taken together, each
 * file's first 1 MiB; duplicate files (of all the files of the extension,
 * by sha256), duplicate and zero 4 KiB blocks of the distinct ones, and
 * the share of them that is text (doc/content-calibration.md).
 */
/* clang-format off */
static const struct content_ext_default ext_default[] = {
	{ "c",    3.31, 0,      0,      0, 1 },    { "h",    4.81, 0.2674, 0.0242, 0, 1 },
	{ "hpp",  3.00, 0,      0,      0, 1 },    { "html", 5.54, 0.0068, 0,      0, 0.99 },
	{ "py",   3.97, 0.0869, 0.0186, 0, 1 },    { "json", 9.46, 0.2222, 0.0170, 0, 1 },
	{ "md",   4.35, 0.0236, 0,      0, 1 },    { "xml",  4.11, 0.0052, 0.0033, 0, 1 },
	{ "txt",  3.03, 0.0525, 0,      0, 1 },    { "rst",  2.36, 0.0065, 0,      0, 1 },
	{ "js",   3.58, 0.0400, 0,      0, 0.96 }, { "css",  3.71, 0.0588, 0,      0, 1 },
	{ "svg",  3.05, 0.1697, 0,      0, 1 },    { "pl",   3.52, 0.0045, 0.0121, 0, 1 },
	{ "pm",   3.01, 0,      0.0017, 0, 1 },    { "sh",   3.58, 0,      0,      0, 1 },
	{ "conf", 4.21, 0.0124, 0,      0, 1 },    { "cfg",  5.57, 0,      0,      0, 1 },
	{ "pyc",  2.52, 0,      0.0254, 0, 0 },    { "mo",   3.08, 0.0022, 0.2195, 0, 0 },
	{ "png",  1.01, 0.1385, 0.0600, 0, 0 },    { "gz",   1.02, 0.0182, 0.0756, 0, 0 },
};
/* clang-format on */

const struct content_ext_default *content_ext_default(const char *ext)
{
	if (ext)
		for (size_t i = 0; i < sizeof(ext_default) / sizeof(ext_default[0]); i++)
			if (!strcasecmp(ext_default[i].ext, ext))
				return &ext_default[i];
	return NULL;
}
