/* html.c - the --html report page: one file with the figures, Chart.js, the page's script and style */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "report/html.h"
#include "util/outfile.h"
#include "util/strutil.h"

/* Built into the program by scripts/embed (html_assets.c, generated). */
extern const unsigned char html_chartjs[], html_page_js[], html_page_css[];
extern const size_t html_chartjs_len, html_page_js_len, html_page_css_len;

/* What marks a page as imprint's: an existing file holding it may be replaced. */
#define HTML_GENERATOR "<meta name=\"generator\" content=\"imprint"

/*
 * The page may load nothing: no script, style, image, font or connection
 * from anywhere but the page itself (inline), so it cannot make a network
 * request whatever a library in it tries.
 */
#define HTML_CSP "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " \
		 "img-src data:"

/* 1 when path holds an imprint report or nothing, 0 when something else, -errno. */
static int replaceable(const char *path, const struct stat *st)
{
	char head[4096];
	ssize_t n;
	int fd, ret;

	if (st->st_size == 0)
		return 1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	n = read(fd, head, sizeof(head) - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	head[n] = '\0';
	return strstr(head, HTML_GENERATOR) != NULL;
}

int html_check_path(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int ret;

#ifndef HAVE_CHARTJS
	errbuf_set(err, errlen, "this imprint was built without Chart.js (configure found none, or "
		   "--without-chartjs), which every '--html' page embeds: install the Debian package "
		   "libjs-chart.js and rebuild, or leave out '--html' ('%s')", path);
	return -ENOTSUP;
#endif
	ret = outfile_check(path, "'--html'", 0, err, errlen);
	if (ret || lstat(path, &st) != 0)
		return ret;
	ret = replaceable(path, &st);
	if (ret < 0) {
		errbuf_set(err, errlen, "cannot read '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (!ret) {
		errbuf_set(err, errlen, "'%s' exists and is not an imprint report: remove it "
			   "or choose another name for '--html'", path);
		return -EEXIST;
	}
	return 0;
}

/* The JSON of the figures, with '<' escaped so no "</script" or "<!--" can end the block. */
static int put_json(FILE *f, struct json_object *data)
{
	const char *s = json_object_to_json_string_ext(data, JSON_C_TO_STRING_PLAIN);

	if (!s)
		return -ENOMEM;
	for (; *s; s++) {
		if (*s == '<')
			fputs("\\u003c", f);
		else
			putc(*s, f);
	}
	return 0;
}

static int put_page(FILE *f, struct json_object *data)
{
	int ret;

	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		HTML_GENERATOR " %s\">\n"
		"<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>imprint report</title>\n<style>\n",
		PACKAGE_VERSION, HTML_CSP);
	fwrite(html_page_css, 1, html_page_css_len, f);
	fputs("</style>\n</head>\n<body>\n"
	      "<noscript><p>This report draws its charts and tables with JavaScript, which is "
	      "off: its figures are in the JSON block of this file "
	      "(id imprint-data).</p></noscript>\n"
	      "<main id=\"report\"></main>\n"
	      "<script type=\"application/json\" id=\"imprint-data\">", f);
	ret = put_json(f, data);
	if (ret)
		return ret;
	/* Chart.js as Debian ships it (libjs-chart.js), unchanged */
	fputs("</script>\n<script>\n", f);
	fwrite(html_chartjs, 1, html_chartjs_len, f);
	fputs("\n</script>\n<script>\n", f);
	fwrite(html_page_js, 1, html_page_js_len, f);
	fputs("</script>\n</body>\n</html>\n", f);
	return 0;
}

int html_write(const char *path, struct json_object *data, char *err, size_t errlen)
{
	struct outfile o;
	int ret;

	ret = html_check_path(path, err, errlen);
	if (!ret)
		ret = outfile_open(&o, path, "'--html'", 0, err, errlen);
	if (ret)
		return ret;
	ret = put_page(o.f, data);
	if (ret) {
		outfile_abort(&o);
		errbuf_set(err, errlen, "cannot write '%s': %s", path, strerror(-ret));
		return ret;
	}
	return outfile_commit(&o, err, errlen);
}
