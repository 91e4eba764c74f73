/* ops.c - the text generators (text, html, source, json, xml) and the plain-text stream */
#include <string.h>
#include <strings.h>

#include "content/gen.h"
#include "content/model.h"
#include "content/text/text.h"

static const struct {
	const char *ext;
	const struct tfmt *fmt;
} text_exts[] = {
	{ "md", &text_fmt_md },		 { "markdown", &text_fmt_md }, { "log", &text_fmt_log },
	{ "csv", &text_fmt_csv },	 { "tsv", &text_fmt_tsv },     { "ini", &text_fmt_ini },
	{ "cfg", &text_fmt_ini },	 { "conf", &text_fmt_ini },    { "inf", &text_fmt_ini },
	{ "properties", &text_fmt_ini }, { "toml", &text_fmt_ini },    { "env", &text_fmt_ini },
	{ "desktop", &text_fmt_ini },	 { "yml", &text_fmt_yaml },    { "yaml", &text_fmt_yaml },
};

static int text_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	const char *ext = text_file_ext(g);

	for (size_t i = 0; i < NELEM(text_exts); i++)
		if (!strcasecmp(text_exts[i].ext, ext))
			return text_fill(text_exts[i].fmt, g, off, buf, len);
	return text_fill(&text_fmt_prose, g, off, buf, len);
}

static int html_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&text_fmt_html, g, off, buf, len);
}

static int source_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&text_fmt_src, g, off, buf, len);
}

static int json_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&text_fmt_json, g, off, buf, len);
}

static int xml_ops_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	return text_fill(&text_fmt_xml, g, off, buf, len);
}

const struct gen_ops gen_text_ops = { .name = "text", .min_size = 0, .fill = text_ops_fill };

const struct gen_ops gen_html_ops = { .name = "html", .min_size = 0, .fill = html_ops_fill };

const struct gen_ops gen_source_ops = { .name = "source", .min_size = 0, .fill = source_ops_fill };

const struct gen_ops gen_json_ops = { .name = "json", .min_size = 0, .fill = json_ops_fill };

const struct gen_ops gen_xml_ops = { .name = "xml", .min_size = 0, .fill = xml_ops_fill };

void gen_text_bytes(const struct content_model *cm, uint64_t key, uint64_t off, uint8_t *buf,
		    size_t len)
{
	struct gen_file g = { .key = key, .size = UINT64_MAX, .ext = "", .cm = cm };

	if (text_fill(&text_fmt_stream, &g, off, buf, len))
		memset(buf, ' ', len);
}
