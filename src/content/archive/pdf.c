/* pdf.c - PDF 1.4 documents laid out from the size alone: pages of text and images */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "content/gen.h"
#include "util/rng.h"
#include "content/archive/archive.h"

/*
 * PDF 1.4, laid out from the size alone:
 *
 *   header, catalog (1), font (3), Info (4, from 2 KiB on)
 *   pages: a page object and its content stream in 5 KiB, the last page
 *     taking what is left (up to 256 pages)
 *   the page tree (2)
 *   past 256 pages, the rest: a raw grey image, drawn on the last page
 *   the xref table, the trailer, startxref, %%EOF
 *
 * Every object starts in the first few MiB, so the xref table's 10-digit
 * offsets hold at any size.
 *
 * Object lengths are known in advance (the content stream's /Length is
 * printed in a fixed width), so every offset of the xref table is
 * computed, not searched.  A content stream is word-wrapped text from
 * gen_text_bytes() (one 4 KiB piece of the file's text stream a page),
 * shown line by line in Helvetica, and its page number; spaces fill the
 * stream to its length.  The exact size comes from the last page's
 * stream and, for startxref's digit count, up to 20 spaces in the trailer.
 */

#define PDF_UNIT      5120u /* a page object and its content stream */
#define PDF_PAGES_MAX 256u
#define PDF_RICH      2048u /* from this size on: the Info dictionary and /ID */
#define PDF_HEAD_MAX  1024u
#define PDF_LINES     48u
#define PDF_WIDTH     86u   /* characters a line */
#define PDF_CHUNK     4096u /* text read for a page: one unit of text.c */
#define PDF_TEXT_MIN  80u   /* least content stream of the last page */
#define PDF_PAD_MAX   20u
#define PDF_IMG_W     1024u /* image width, doubled while the height would pass 2^30 */
#define PDF_TAIL      18u   /* "\nendstream\nendobj\n" */
#define PDF_FLATE_MIN 256u  /* least deflated content stream */
#define PDF_IMG_PIECE 4096u /* an image's bytes noise or not by pieces (pdf_flate_draw()) */
/*
 * A deflated stream's bytes after its sync flush, at least: a comment of
 * 2 bytes stored, the final block, the Adler-32.
 */
#define PDF_FLATE_END 13u
#define SALT_FLATE    UINT64_C(0x4E1D7C2B9A3F5860)

struct pdf_layout {
	bool rich;
	uint64_t first; /* object number of the first page */
	uint64_t pages;
	uint64_t head;	     /* bytes before the first page */
	uint64_t obj_off[5]; /* objects 1, 3 and 4, in the head */
	uint64_t last;	     /* bytes of the last page's unit */
	uint64_t img_off, img_len, img_rows, img_w;
	uint64_t tree_off; /* the page tree */
	uint64_t xref_off;
	uint64_t objs;	  /* xref entries, object 0 included */
	unsigned int pad; /* extra spaces in the trailer dictionary */
	/*
	 * A profile's ratio (ext_content, gen_file.boost below 0): the share
	 * by flate / 65535 of pages whose content stream is deflated, and of
	 * the image's pieces that are noise (real PDFs deflate their streams
	 * and hold JPEG images: gzip -6 about 1.02); 0: none (the default).
	 */
	uint32_t flate;
	uint64_t key;
};

static const char *const pdf_first_names[] = {
	"Anna",	 "David",   "Maria", "James",  "Laura",	 "Peter",  "Sarah", "Thomas",
	"Julia", "Michael", "Emma",  "Robert", "Sophie", "Daniel", "Clara", "Martin",
};

static const struct {
	const char *creator, *producer;
} pdf_tools[] = {
	{ "Writer", "LibreOffice 7.4" },
	{ "Microsoft Word 2016", "Microsoft Word 2016" },
	{ "LaTeX with hyperref", "pdfTeX-1.40.21" },
	{ "Chromium", "Skia/PDF m108" },
	{ "PScript5.dll Version 5.2.2", "Acrobat Distiller 11.0 for Windows" },
	{ "Pages", "macOS Version 12.6 Quartz PDFContext" },
	{ "Impress", "LibreOffice 6.4" },
};

/* Append word w with a capital initial. */
static size_t pdf_word_cap(char *s, size_t n, size_t cap, const char *w)
{
	size_t m = archive_catf(s, n, cap, "%s", w);

	if (m > n && s[n] >= 'a' && s[n] <= 'z')
		s[n] = (char)(s[n] - 'a' + 'A');
	return m;
}

static size_t pdf_date(char *s, size_t n, size_t cap, uint32_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	return archive_catf(s, n, cap, "(D:%04d%02d%02d%02d%02d%02dZ)", tm.tm_year + 1900,
			    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

/* Header and objects 1, 3 (and 4): its length; obj_off gets their offsets. */
static size_t pdf_head(const struct gen_file *g, bool rich, char *s, size_t cap, uint64_t *obj_off)
{
	size_t n;

	n = archive_catf(s, 0, cap, "%%PDF-1.4\n%%\xe2\xe3\xcf\xd3\n");
	obj_off[1] = n;
	n = archive_catf(s, n, cap, "1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n");
	obj_off[3] = n;
	n = archive_catf(
		s, n, cap,
		"3 0 obj\n<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica%s >>\nendobj\n",
		rich ? " /Encoding /WinAnsiEncoding" : "");
	if (rich) {
		struct rng r;
		uint32_t t;
		unsigned int words, tool;

		rng_open(&r, g->key ^ SALT_PDF, 0);
		obj_off[4] = n;
		n = archive_catf(s, n, cap, "4 0 obj\n<< /Title (");
		words = 2 + (unsigned int)rng_below(&r, 4);
		for (unsigned int i = 0; i < words; i++) {
			if (i)
				n = archive_catf(s, n, cap, " ");
			n = pdf_word_cap(s, n, cap, archive_pick_word(g->cm, &r));
		}
		n = archive_catf(s, n, cap, ") /Author (%s ",
				 pdf_first_names[rng_below(&r, ARRAY_SIZE(pdf_first_names))]);
		n = pdf_word_cap(s, n, cap, archive_pick_word(g->cm, &r));
		tool = (unsigned int)rng_below(&r, ARRAY_SIZE(pdf_tools));
		n = archive_catf(s, n, cap, ") /Creator (%s) /Producer (%s) /CreationDate ",
				 pdf_tools[tool].creator, pdf_tools[tool].producer);
		t = TIME_BASE + (uint32_t)rng_below(&r, TIME_SPAN);
		n = pdf_date(s, n, cap, t);
		n = archive_catf(s, n, cap, " /ModDate ");
		n = pdf_date(s, n, cap, t + (uint32_t)rng_below(&r, 86400 * 30));
		n = archive_catf(s, n, cap, " >>\nendobj\n");
	}
	return n;
}

static bool pdf_img_page(const struct pdf_layout *pl, uint64_t i)
{
	return pl->img_len && i + 1 == pl->pages;
}

/* The page object of page i (s NULL: its length only). */
static size_t pdf_page_obj(const struct pdf_layout *pl, uint64_t i, bool img, char *s, size_t cap)
{
	unsigned long long p = pl->first + 2 * i;
	char x[64] = "";

	if (img)
		snprintf(x, sizeof(x), " /XObject << /Im1 %llu 0 R >>",
			 (unsigned long long)(pl->first + 2 * pl->pages));
	return (size_t)snprintf(s, s ? cap : 0,
				"%llu 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792]"
				" /Resources << /Font << /F1 3 0 R >>%s >> /Contents %llu 0 R >>\n"
				"endobj\n",
				p, x, p + 1);
}

/* The content stream's object header (s NULL: its length only); /Length has a fixed width. */
static size_t pdf_stream_head(const struct pdf_layout *pl, uint64_t i, uint64_t len, bool flate,
			      char *s, size_t cap)
{
	return (size_t)snprintf(s, s ? cap : 0, "%llu 0 obj\n<< /Length %7llu%s >>\nstream\n",
				(unsigned long long)(pl->first + 2 * i + 1),
				(unsigned long long)len, flate ? " /Filter /FlateDecode" : "");
}

static uint64_t pdf_unit_over(const struct pdf_layout *pl, uint64_t i, bool img, bool flate)
{
	return pdf_page_obj(pl, i, img, NULL, 0) + pdf_stream_head(pl, i, 0, flate, NULL, 0) +
	       PDF_TAIL;
}

/* Whether draw i of the file (a page, a piece of the image) is deflated or noise. */
static bool pdf_flate_draw(const struct pdf_layout *pl, uint64_t i)
{
	return pl->flate && rng_mix64(pl->key ^ SALT_FLATE ^ rng_mix64(i)) % 65535 < pl->flate;
}

static size_t pdf_img_head(const struct pdf_layout *pl, uint64_t rows, char *s, size_t cap)
{
	return (size_t)snprintf(
		s, s ? cap : 0,
		"%llu 0 obj\n<< /Type /XObject /Subtype /Image /Width %llu /Height %llu"
		" /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %llu >>\n"
		"stream\n",
		(unsigned long long)(pl->first + 2 * pl->pages), (unsigned long long)pl->img_w,
		(unsigned long long)rows, (unsigned long long)(rows * pl->img_w));
}

static uint64_t pdf_tree_len(const struct pdf_layout *pl, uint64_t pages)
{
	uint64_t n = (uint64_t)snprintf(
		NULL, 0, "2 0 obj\n<< /Type /Pages /Count %llu /Kids [] >>\nendobj\n",
		(unsigned long long)pages);

	for (uint64_t i = 0; i < pages; i++)
		n += archive_ndigits(pl->first + 2 * i) + 4 + (i > 0);
	return n;
}

/* The trailer, from "trailer" to the end (s NULL: its length only). */
static size_t pdf_trailer(const struct gen_file *g, const struct pdf_layout *pl, uint64_t objs,
			  unsigned int pad, uint64_t xref_off, char *s, size_t cap)
{
	unsigned long long a = rng_mix64(g->key ^ SALT_PDF), b = rng_mix64(a);
	char id[96] = "";

	if (pl->rich)
		snprintf(id, sizeof(id), " /Info 4 0 R /ID [<%016llx%016llx> <%016llx%016llx>]", a,
			 b, a, b);
	return (size_t)snprintf(
		s, s ? cap : 0,
		"trailer\n<< /Size %llu /Root 1 0 R%s%*s >>\nstartxref\n%llu\n%%%%EOF\n",
		(unsigned long long)objs, id, (int)pad, "", (unsigned long long)xref_off);
}

/* From "xref" to the end: the xref table, the trailer, startxref with d digits. */
static uint64_t pdf_xref_len(const struct gen_file *g, const struct pdf_layout *pl, uint64_t objs,
			     unsigned int pad, unsigned int d)
{
	uint64_t x = 1;

	while (--d)
		x *= 10;
	return 5 + 2 + archive_ndigits(objs) + 1 + 20 * objs +
	       pdf_trailer(g, pl, objs, pad, x, NULL, 0);
}

/* Whether pages fit in size: all but the last full units, the last with a little text. */
/*
 * Where the xref table starts when the file has objs objects: startxref's
 * digit count must match its value, so a space or more goes into the
 * trailer when no count does.  Returns 0, or -EINVAL when size is too small.
 */
static int pdf_xref_at(const struct gen_file *g, const struct pdf_layout *pl, uint64_t objs,
		       unsigned int *pad, uint64_t *xref_off)
{
	for (unsigned int p = 0; p <= PDF_PAD_MAX; p++) {
		for (unsigned int d = 1; d <= 20; d++) {
			uint64_t tl = pdf_xref_len(g, pl, objs, p, d);

			if (tl < g->size && archive_ndigits(g->size - tl) == d) {
				*pad = p;
				*xref_off = g->size - tl;
				return 0;
			}
		}
	}
	return -EINVAL;
}

/* Whether pages fit: all but the last are full units, the last holds a little text. */
static bool pdf_fits(const struct gen_file *g, const struct pdf_layout *pl, uint64_t pages)
{
	uint64_t need = pl->head + (pages - 1) * PDF_UNIT +
			pdf_unit_over(pl, pages - 1, false, false) + PDF_TEXT_MIN +
			pdf_tree_len(pl, pages);
	unsigned int pad;
	uint64_t x;

	return !pdf_xref_at(g, pl, pl->first + 2 * pages, &pad, &x) && need <= x;
}

static int pdf_layout(const struct gen_file *g, struct pdf_layout *pl)
{
	char head[PDF_HEAD_MAX];
	uint64_t size = g->size, n;
	bool img = false;
	int ret;

	memset(pl, 0, sizeof(*pl));
	pl->flate = g->boost < 0 ? (uint32_t)-g->boost : 0;
	pl->key = g->key;
	pl->rich = size >= PDF_RICH;
	pl->first = pl->rich ? 5 : 4;
	pl->head = pdf_head(g, pl->rich, head, sizeof(head), pl->obj_off);

	n = MAX((uint64_t)1, MIN((uint64_t)PDF_PAGES_MAX, size / (PDF_UNIT + 64)));
	while (n > 1 && !pdf_fits(g, pl, n))
		n--;
	while (n < PDF_PAGES_MAX && pdf_fits(g, pl, n + 1))
		n++;
	if (!pdf_fits(g, pl, n))
		return -EINVAL;
	pl->pages = n;
	if (n == PDF_PAGES_MAX) {
		/* the rest is an image once it would make the last page more than two units */
		unsigned int pad;
		uint64_t x;

		img = !pdf_xref_at(g, pl, pl->first + 2 * n + 1, &pad, &x) &&
		      pl->head + (n + 1) * PDF_UNIT + pdf_tree_len(pl, n) <= x;
	}
	pl->objs = pl->first + 2 * n + img;
	ret = pdf_xref_at(g, pl, pl->objs, &pl->pad, &pl->xref_off);
	if (ret)
		return ret;
	if (!img) {
		pl->last = pl->xref_off - pdf_tree_len(pl, n) - pl->head - (n - 1) * PDF_UNIT;
	} else {
		uint64_t avail = pl->xref_off - pdf_tree_len(pl, n) - pl->head - n * PDF_UNIT;
		uint64_t rows;

		for (pl->img_w = PDF_IMG_W; avail / pl->img_w > (UINT64_C(1) << 30);)
			pl->img_w *= 2;
		rows = avail / pl->img_w;

		pl->img_len = 1; /* pdf_img_page() from here on */
		while (rows &&
		       pdf_img_head(pl, rows, NULL, 0) + PDF_TAIL + rows * pl->img_w > avail)
			rows--;
		pl->img_rows = rows;
		pl->img_len = pdf_img_head(pl, rows, NULL, 0) + PDF_TAIL + rows * pl->img_w;
		pl->last = PDF_UNIT + avail - pl->img_len;
	}
	/* the tree before the image: every object starts before byte 10^10 */
	pl->tree_off = pl->head + (n - 1) * PDF_UNIT + pl->last;
	pl->img_off = pl->tree_off + pdf_tree_len(pl, n);
	return 0;
}

static bool pdf_space(uint8_t c)
{
	return c <= ' ' || c >= 0x7f;
}

/* A text line as a string shown on the next line: "(...)'\n". */
struct pdf_line {
	char s[2 * PDF_WIDTH + 8];
	size_t len;   /* bytes, escapes included */
	size_t chars; /* characters shown */
};

static void pdf_line_add(struct pdf_line *l, const uint8_t *w, size_t n)
{
	if (l->chars) {
		l->s[l->len++] = ' ';
		l->chars++;
	}
	for (size_t i = 0; i < n; i++) {
		if (w[i] == '(' || w[i] == ')' || w[i] == '\\')
			l->s[l->len++] = '\\';
		l->s[l->len++] = (char)w[i];
	}
	l->chars += n;
}

/* Content stream of page i: exactly cap bytes. */
static void pdf_content(const struct gen_file *g, const struct pdf_layout *pl, uint64_t i,
			char *out, size_t cap)
{
	static const char head[] = "BT\n/F1 10 Tf\n12 TL\n72 756 Td\n";
	static const char draw[] = "q\n468 0 0 648 72 72 cm\n/Im1 Do\nQ\n";
	uint8_t src[PDF_CHUNK];
	char foot[64];
	struct pdf_line l = { .len = 1, .s = "(" };
	size_t n = 0, fl, p = 0, lines = 0, reserve;
	bool img = pdf_img_page(pl, i);

	fl = (size_t)snprintf(foot, sizeof(foot), "ET\nBT\n/F1 9 Tf\n300 36 Td\n(%llu) Tj\nET\n",
			      (unsigned long long)(i + 1));
	if (cap < sizeof(head) + fl + (img ? sizeof(draw) : 0)) {
		/* too short for text: white space (the last page of a tiny file only) */
		memset(out, ' ', cap);
		if (cap)
			out[cap - 1] = '\n';
		return;
	}
	if (img) {
		memcpy(out, draw, sizeof(draw) - 1);
		n = sizeof(draw) - 1;
	}
	memcpy(out + n, head, sizeof(head) - 1);
	n += sizeof(head) - 1;
	reserve = fl + 1;

	gen_text_bytes(g->cm, archive_sub_key(g->key, SALT_PAGE, 0), i * PDF_CHUNK, src, PDF_CHUNK);
	/* start at a sentence (or at least a word) */
	while (p < 512 && !(p >= 1 && src[p] == ' ' && strchr(".?!", src[p - 1])) &&
	       !(p >= 1 && src[p] == '\n' && src[p - 1] == '\n'))
		p++;
	if (p == 512)
		for (p = 0; p < 512 && !pdf_space(src[p]); p++)
			;
	/* the pending line l always fits: n + l.len + 3 + reserve <= cap */
	while (lines < PDF_LINES) {
		size_t q, nl = 0, wl = 0;

		while (p < PDF_CHUNK && pdf_space(src[p]))
			nl += src[p++] == '\n';
		for (q = p; q < PDF_CHUNK && !pdf_space(src[q]) && q - p < PDF_WIDTH; q++)
			wl += 1 + (src[q] == '(' || src[q] == ')' || src[q] == '\\');
		if (q == PDF_CHUNK)
			break; /* a word cut by the end of the piece */
		if (l.chars && (nl >= 2 || l.chars + 1 + (q - p) > PDF_WIDTH ||
				n + l.len + 1 + wl + 3 + reserve > cap)) {
			memcpy(out + n, l.s, l.len);
			n += l.len;
			memcpy(out + n, ")'\n", 3);
			n += 3;
			lines++;
			l.len = 1;
			l.chars = 0;
			if (nl >= 2 && lines < PDF_LINES && n + 3 + reserve <= cap) {
				/* a paragraph: one empty line */
				memcpy(out + n, "T*\n", 3);
				n += 3;
				lines++;
			}
			if (lines == PDF_LINES)
				break;
		}
		if (n + l.len + 1 + wl + 3 + reserve > cap)
			break;
		pdf_line_add(&l, src + p, q - p);
		p = q;
	}
	if (l.chars) {
		memcpy(out + n, l.s, l.len);
		n += l.len;
		memcpy(out + n, ")'\n", 3);
		n += 3;
	}
	memcpy(out + n, foot, fl);
	n += fl;
	memset(out + n, ' ', cap - n);
	out[cap - 1] = '\n';
}

/*
 * The text of a deflated content stream of page i: lines of the file's
 * text shown one after the other (the page's text block begun again every
 * PDF_LINES lines), into buf (cap bytes); at[k]: where line k ends (at[0]:
 * the start of the first), up to max lines.  Returns how many lines.
 */
static size_t pdf_flate_lines(const struct gen_file *g, uint64_t i, char *buf, size_t cap,
			      size_t *at, size_t max)
{
	static const char head[] = "BT\n/F1 10 Tf\n12 TL\n72 756 Td\n";
	uint8_t src[PDF_CHUNK];
	size_t n = sizeof(head) - 1, lines = 0, p = PDF_CHUNK;
	uint64_t piece = 0;

	memcpy(buf, head, n);
	at[0] = n;
	while (lines < max) {
		struct pdf_line l = { .len = 1, .s = "(" };

		if (lines && lines % PDF_LINES == 0) {
			if (n + 3 + sizeof(head) - 1 > cap)
				break;
			memcpy(buf + n, "ET\n", 3);
			memcpy(buf + n + 3, head, sizeof(head) - 1);
			n += 3 + sizeof(head) - 1;
		}
		while (l.chars < PDF_WIDTH - 16) {
			size_t q;

			while (p < PDF_CHUNK && pdf_space(src[p]))
				p++;
			for (q = p; q < PDF_CHUNK && !pdf_space(src[q]) && q - p < 16; q++)
				;
			if (q == PDF_CHUNK) {
				gen_text_bytes(g->cm, archive_sub_key(g->key, SALT_FLATE, i),
					       piece++ * PDF_CHUNK, src, PDF_CHUNK);
				p = 0;
				continue;
			}
			pdf_line_add(&l, src + p, q - p);
			p = q;
		}
		if (n + l.len + 3 > cap)
			break;
		memcpy(buf + n, l.s, l.len);
		memcpy(buf + n + l.len, ")'\n", 3);
		n += l.len + 3;
		at[++lines] = n;
	}
	return lines;
}

/* Bytes of the zlib stream of text[0, n) and "ET\n", sync-flushed (z reset first). */
static int pdf_deflate(z_stream *z, const char *text, size_t n, uint8_t *out, size_t cap)
{
	static const char et[] = "ET\n";

	if (deflateReset(z) != Z_OK)
		return -EIO;
	z->next_in = (Bytef *)(uintptr_t)text;
	z->avail_in = (uInt)n;
	z->next_out = out;
	z->avail_out = (uInt)cap;
	if (deflate(z, Z_NO_FLUSH) != Z_OK)
		return -EIO;
	z->next_in = (Bytef *)(uintptr_t)et;
	z->avail_in = sizeof(et) - 1;
	if (deflate(z, Z_SYNC_FLUSH) != Z_OK || z->avail_in || !z->avail_out)
		return -EIO;
	return (int)z->total_out;
}

/*
 * A deflated content stream of page i, exactly cap bytes (a zlib stream):
 * as many lines of text as deflate into cap less PDF_FLATE_END bytes, then
 * a stored block holding a comment of its own (random letters, "%...\n")
 * that makes up the length, the final empty block and the Adler-32 of it
 * all.  0, -ENOMEM or -EIO.
 */
static int pdf_flate_content(const struct gen_file *g, uint64_t i, char *out, size_t cap)
{
	size_t tcap = 4 * cap + PDF_CHUNK, max = tcap / 8, lines, lo, hi, m;
	size_t *at = malloc((max + 1) * sizeof(*at));
	char *text = malloc(tcap);
	uint8_t *z = malloc(2 * cap + 1024), h[5];
	uint32_t adler;
	z_stream zs;
	int ret = -ENOMEM, len;

	memset(&zs, 0, sizeof(zs));
	if (!at || !text || !z || deflateInit(&zs, 6) != Z_OK)
		goto out;
	lines = pdf_flate_lines(g, i, text, tcap, at, max);
	/* the most lines that fit: bisection over [lo, hi] */
	lo = 0;
	hi = lines;
	while (lo < hi) {
		size_t mid = hi - (hi - lo) / 2;

		len = pdf_deflate(&zs, text, at[mid], z, 2 * cap + 1024);
		if (len < 0) {
			ret = len;
			goto out_end;
		}
		if ((size_t)len + PDF_FLATE_END <= cap)
			lo = mid;
		else
			hi = mid - 1;
	}
	len = pdf_deflate(&zs, text, at[lo], z, 2 * cap + 1024);
	ret = len < 0 ? len : (size_t)len + PDF_FLATE_END > cap ? -EIO : 0;
	if (ret)
		goto out_end;
	memcpy(out, z, (size_t)len);
	adler = (uint32_t)adler32(adler32(0, Z_NULL, 0), (const Bytef *)text, (uInt)at[lo]);
	adler = (uint32_t)adler32(adler, (const Bytef *)"ET\n", 3);
	/* the comment: m bytes in a stored block, "%", letters, "\n" */
	m = cap - (size_t)len - 11;
	h[0] = 0;
	put_le16(h + 1, (uint16_t)m);
	put_le16(h + 3, (uint16_t)~m);
	memcpy(out + len, h, 5);
	gen_random(archive_sub_key(g->key, SALT_FLATE, ~i), 0, (uint8_t *)out + len + 5, m);
	for (size_t k = 0; k < m; k++)
		out[len + 5 + k] = (char)('a' + (uint8_t)out[len + 5 + k] % 26);
	out[len + 5] = '%';
	out[len + 5 + m - 1] = '\n';
	adler = (uint32_t)adler32(adler, (const Bytef *)out + len + 5, (uInt)m);
	out[len + 5 + m] = 0x03; /* the final block: fixed codes, empty */
	out[len + 5 + m + 1] = 0x00;
	put_be32((uint8_t *)out + cap - 4, adler);
out_end:
	deflateEnd(&zs);
out:
	free(at);
	free(text);
	free(z);
	return ret;
}

/* Page i's unit: its page object and content stream object, len bytes. */
static int pdf_unit(const struct gen_file *g, const struct pdf_layout *pl, uint64_t i, char *out,
		    size_t len)
{
	bool img = pdf_img_page(pl, i);
	bool flate =
		pdf_flate_draw(pl, i) && len >= pdf_unit_over(pl, i, img, true) + PDF_FLATE_MIN;
	size_t sl = len - (size_t)pdf_unit_over(pl, i, img, flate), n, hl;
	char tmp[192];
	int ret = 0;

	n = pdf_page_obj(pl, i, img, tmp, sizeof(tmp));
	memcpy(out, tmp, n);
	hl = pdf_stream_head(pl, i, sl, flate, tmp, sizeof(tmp));
	memcpy(out + n, tmp, hl);
	n += hl;
	if (flate)
		ret = pdf_flate_content(g, i, out + n, sl);
	else
		pdf_content(g, pl, i, out + n, sl);
	memcpy(out + n + sl, "\nendstream\nendobj\n", PDF_TAIL);
	return ret;
}

static uint64_t pdf_obj_off(const struct pdf_layout *pl, uint64_t obj)
{
	uint64_t i;

	if (obj == 2)
		return pl->tree_off;
	if (obj < pl->first)
		return pl->obj_off[obj];
	if (pl->img_len && obj == pl->objs - 1)
		return pl->img_off;
	i = (obj - pl->first) / 2;
	if ((obj - pl->first) % 2 == 0)
		return pl->head + i * PDF_UNIT;
	return pl->head + i * PDF_UNIT + pdf_page_obj(pl, i, pdf_img_page(pl, i), NULL, 0);
}

/* The page tree into s (len + 1 bytes): its length. */
static size_t pdf_tree(const struct pdf_layout *pl, char *s, size_t len)
{
	size_t n;

	n = archive_catf(s, 0, len + 1, "2 0 obj\n<< /Type /Pages /Count %llu /Kids [",
			 (unsigned long long)pl->pages);
	for (uint64_t i = 0; i < pl->pages; i++)
		n = archive_catf(s, n, len + 1, "%s%llu 0 R", i ? " " : "",
				 (unsigned long long)(pl->first + 2 * i));
	return archive_catf(s, n, len + 1, "] >>\nendobj\n");
}

/* The xref table and the trailer into s (len + 1 bytes): its length. */
static size_t pdf_xref(const struct gen_file *g, const struct pdf_layout *pl, char *s, size_t len)
{
	size_t n;

	n = archive_catf(s, 0, len + 1, "xref\n0 %llu\n0000000000 65535 f \n",
			 (unsigned long long)pl->objs);
	for (uint64_t o = 1; o < pl->objs; o++)
		n = archive_catf(s, n, len + 1, "%010llu 00000 n \n",
				 (unsigned long long)pdf_obj_off(pl, o));
	if (n < len)
		n += pdf_trailer(g, pl, pl->objs, pl->pad, pl->xref_off, s + n, len + 1 - n);
	return n;
}

/* Image bytes [at, at + n) of a PDF of a profile's ratio: noise by pieces (pdf_flate_draw()). */
static void pdf_img_flate(const struct gen_file *g, const struct pdf_layout *pl, uint64_t at,
			  uint8_t *buf, size_t n)
{
	uint64_t key = archive_sub_key(g->key, SALT_IMAGE, 0);

	while (n) {
		uint64_t piece = at / PDF_IMG_PIECE;
		size_t k = (size_t)MIN((uint64_t)n, (piece + 1) * PDF_IMG_PIECE - at);

		if (pdf_flate_draw(pl, pl->pages + piece))
			gen_random(key, at, buf, k);
		else
			gen_binary_bytes(g->cm, key, at, buf, k);
		at += k;
		buf += k;
		n -= k;
	}
}

static int pdf_fill(const struct gen_file *g, uint64_t off, uint8_t *buf, size_t len)
{
	char head[PDF_HEAD_MAX], ih[256];
	struct pdf_layout pl;
	uint64_t end = off + len, from, units, tl;
	size_t cnt;
	char *tmp;
	int ret;

	ret = gen_check_request(g, PDF_MIN, off, len);
	if (ret || !len)
		return ret;
	ret = pdf_layout(g, &pl);
	if (ret)
		return ret;
	pdf_head(g, pl.rich, head, sizeof(head), pl.obj_off);
	archive_put_region(head, 0, pl.head, off, buf, len);

	tmp = malloc(MAX(pl.last, (uint64_t)PDF_UNIT) + 1);
	if (!tmp)
		return -ENOMEM;
	units = (pl.pages - 1) * PDF_UNIT + pl.last;
	if (archive_clip(pl.head, units, off, len, &from, &cnt)) {
		for (uint64_t i = (from - pl.head) / PDF_UNIT; i < pl.pages; i++) {
			uint64_t at = pl.head + i * PDF_UNIT;
			uint64_t ul = i + 1 < pl.pages ? PDF_UNIT : pl.last;

			if (at >= end)
				break;
			ret = pdf_unit(g, &pl, i, tmp, (size_t)ul);
			if (ret)
				break;
			archive_put_region(tmp, at, ul, off, buf, len);
		}
	}
	free(tmp);
	if (ret)
		return ret;

	if (pl.img_len) {
		uint64_t hl = pdf_img_head(&pl, pl.img_rows, ih, sizeof(ih));
		uint64_t data = pl.img_off + hl, dl = pl.img_rows * pl.img_w;

		archive_put_region(ih, pl.img_off, hl, off, buf, len);
		if (archive_clip(data, dl, off, len, &from, &cnt) && pl.flate)
			pdf_img_flate(g, &pl, from - data, buf + (from - off), cnt);
		else if (archive_clip(data, dl, off, len, &from, &cnt))
			gen_binary_bytes(g->cm, archive_sub_key(g->key, SALT_IMAGE, 0), from - data,
					 buf + (from - off), cnt);
		archive_put_region("\nendstream\nendobj\n", data + dl, PDF_TAIL, off, buf, len);
	}

	tl = pdf_tree_len(&pl, pl.pages);
	if (archive_clip(pl.tree_off, tl, off, len, &from, &cnt)) {
		tmp = malloc(tl + 1);
		if (!tmp)
			return -ENOMEM;
		ret = pdf_tree(&pl, tmp, (size_t)tl) == tl ? 0 : -EIO;
		archive_put_region(tmp, pl.tree_off, tl, off, buf, len);
		free(tmp);
	}
	tl = g->size - pl.xref_off;
	if (!ret && archive_clip(pl.xref_off, tl, off, len, &from, &cnt)) {
		tmp = malloc(tl + 1);
		if (!tmp)
			return -ENOMEM;
		ret = pdf_xref(g, &pl, tmp, (size_t)tl) == tl ? 0 : -EIO;
		archive_put_region(tmp, pl.xref_off, tl, off, buf, len);
		free(tmp);
	}
	return ret;
}

const struct gen_ops gen_pdf_ops = {
	.name = "pdf",
	.min_size = PDF_MIN,
	.fill = pdf_fill,
};
