/* names.c - entry names derived on demand: numeric (Impressions) or realistic per-type patterns */
#include <stdbool.h>
#include <string.h>

#include "model/names.h"
#include "model/names_int.h"
#include "util/rng.h"

/* ---- type classes ------------------------------------------------------ */

enum cls {
	CL_OTHER, CL_PHOTO, CL_PNG, CL_GRAPHIC, CL_SHLIB, CL_WIN, CL_PCH, CL_C,
	CL_PY, CL_JS, CL_GO, CL_RS, CL_SCRIPT, CL_JAVA, CL_CLASS, CL_CS, CL_TEMP,
	CL_AUDIO, CL_WAV, CL_VIDEO, CL_DOC, CL_TEXT, CL_WEB, CL_CFG, CL_LOG,
	CL_FONT, CL_ARCHIVE, CL_COMPRESS, CL_OBJECT, CL_DISK,
};

struct ext_class {
	const char *ext;
	unsigned char cls;
};

/* Most frequent first: the lookup is a linear scan */
static const struct ext_class ext_classes[] = {
	{ "h", CL_C }, { "gif", CL_GRAPHIC }, { "dll", CL_WIN },
	{ "htm", CL_WEB }, { "txt", CL_TEXT }, { "cpp", CL_C },
	{ "jpg", CL_PHOTO }, { "exe", CL_WIN }, { "lib", CL_WIN },
	{ "pdb", CL_WIN }, { "c", CL_C }, { "png", CL_PNG }, { "pch", CL_PCH },
	{ "mp3", CL_AUDIO }, { "wma", CL_AUDIO }, { "pdf", CL_DOC },
	{ "mpg", CL_VIDEO }, { "pst", CL_DOC }, { "vhd", CL_DISK },
	{ "xml", CL_CFG }, { "js", CL_JS }, { "html", CL_WEB },
	{ "o", CL_OBJECT }, { "py", CL_PY }, { "so", CL_SHLIB },
	{ "log", CL_LOG }, { "ini", CL_CFG }, { "zip", CL_ARCHIVE },
	{ "css", CL_WEB }, { "gz", CL_COMPRESS }, { "bmp", CL_GRAPHIC },
	{ "wav", CL_WAV }, { "java", CL_JAVA }, { "md", CL_TEXT },
	{ "json", CL_CFG }, { "a", CL_OBJECT }, { "tar", CL_ARCHIVE },
	{ "mp4", CL_VIDEO }, { "ico", CL_GRAPHIC }, { "cs", CL_CS },
	{ "sys", CL_WIN }, { "tmp", CL_TEMP }, { "bak", CL_TEMP },
	{ "doc", CL_DOC }, { "xls", CL_DOC }, { "cab", CL_ARCHIVE },
	{ "hpp", CL_C }, { "inf", CL_CFG }, { "cfg", CL_CFG },
	{ "php", CL_WEB }, { "sh", CL_SCRIPT }, { "pl", CL_SCRIPT },
	{ "pyc", CL_OBJECT }, { "pyd", CL_WIN }, { "jar", CL_ARCHIVE },
	{ "ttf", CL_FONT }, { "svg", CL_GRAPHIC }, { "ocx", CL_WIN },
	{ "msi", CL_WIN }, { "go", CL_GO }, { "rs", CL_RS },
	{ "rb", CL_SCRIPT }, { "conf", CL_CFG }, { "yml", CL_CFG },
	{ "csv", CL_DOC }, { "rtf", CL_DOC }, { "docx", CL_DOC },
	{ "xlsx", CL_DOC }, { "ppt", CL_DOC }, { "pptx", CL_DOC },
	{ "odt", CL_DOC }, { "tif", CL_PHOTO }, { "jpeg", CL_PHOTO },
	{ "webp", CL_GRAPHIC }, { "avi", CL_VIDEO }, { "mkv", CL_VIDEO },
	{ "mov", CL_VIDEO }, { "wmv", CL_VIDEO }, { "flac", CL_AUDIO },
	{ "ogg", CL_AUDIO }, { "m4a", CL_AUDIO }, { "aac", CL_AUDIO },
	{ "mid", CL_AUDIO }, { "iso", CL_DISK }, { "img", CL_DISK },
	{ "s", CL_C }, { "asm", CL_C }, { "inc", CL_C }, { "def", CL_C },
	{ "rc", CL_C }, { "obj", CL_OBJECT }, { "class", CL_CLASS },
	{ "pm", CL_SCRIPT }, { "lua", CL_SCRIPT }, { "m", CL_C },
	{ "mm", CL_C }, { "kt", CL_JAVA }, { "swift", CL_JAVA },
	{ "scala", CL_JAVA }, { "ts", CL_JS }, { "jsx", CL_JS },
	{ "tsx", CL_JS }, { "vue", CL_JS }, { "mjs", CL_JS }, { "cc", CL_C },
	{ "cxx", CL_C }, { "hxx", CL_C }, { "hh", CL_C }, { "inl", CL_C },
	{ "tcl", CL_SCRIPT }, { "hs", CL_SCRIPT }, { "ml", CL_SCRIPT },
	{ "erl", CL_SCRIPT }, { "ex", CL_SCRIPT }, { "el", CL_SCRIPT },
	{ "scm", CL_SCRIPT }, { "lisp", CL_SCRIPT }, { "f", CL_C },
	{ "f90", CL_C }, { "pas", CL_C }, { "bas", CL_C }, { "vb", CL_CS },
	{ "awk", CL_SCRIPT }, { "y", CL_C }, { "l", CL_C }, { "v", CL_C },
	{ "sv", CL_C }, { "vhdl", CL_C }, { "d", CL_C }, { "zsh", CL_SCRIPT },
	{ "bash", CL_SCRIPT }, { "swp", CL_TEMP }, { "swo", CL_TEMP },
	{ "old", CL_TEMP }, { "orig", CL_TEMP }, { "rej", CL_TEMP },
	{ "part", CL_TEMP }, { "temp", CL_TEMP }, { "lock", CL_TEMP },
	{ "pid", CL_TEMP }, { "dmp", CL_TEMP }, { "mp2", CL_AUDIO },
	{ "opus", CL_AUDIO }, { "aif", CL_AUDIO }, { "aiff", CL_AUDIO },
	{ "au", CL_AUDIO }, { "snd", CL_AUDIO }, { "ra", CL_AUDIO },
	{ "rm", CL_VIDEO }, { "amr", CL_AUDIO }, { "mka", CL_AUDIO },
	{ "m4v", CL_VIDEO }, { "webm", CL_VIDEO }, { "3gp", CL_VIDEO },
	{ "flv", CL_VIDEO }, { "swf", CL_VIDEO }, { "vob", CL_VIDEO },
	{ "mts", CL_VIDEO }, { "m2ts", CL_VIDEO }, { "asf", CL_VIDEO },
	{ "mpeg", CL_VIDEO }, { "tiff", CL_PHOTO }, { "heic", CL_PHOTO },
	{ "heif", CL_PHOTO }, { "raw", CL_PHOTO }, { "cr2", CL_PHOTO },
	{ "nef", CL_PHOTO }, { "dng", CL_PHOTO }, { "arw", CL_PHOTO },
	{ "jpe", CL_PHOTO }, { "psd", CL_GRAPHIC }, { "xcf", CL_GRAPHIC },
	{ "ai", CL_GRAPHIC }, { "eps", CL_GRAPHIC }, { "wmf", CL_GRAPHIC },
	{ "emf", CL_GRAPHIC }, { "pcx", CL_GRAPHIC }, { "tga", CL_GRAPHIC },
	{ "dds", CL_GRAPHIC }, { "xpm", CL_GRAPHIC }, { "xbm", CL_GRAPHIC },
	{ "pgm", CL_GRAPHIC }, { "ppm", CL_GRAPHIC }, { "jp2", CL_GRAPHIC },
	{ "exr", CL_GRAPHIC }, { "hdr", CL_GRAPHIC }, { "cur", CL_GRAPHIC },
	{ "ani", CL_GRAPHIC }, { "bz2", CL_COMPRESS }, { "xz", CL_COMPRESS },
	{ "z", CL_COMPRESS }, { "lz", CL_COMPRESS }, { "lzma", CL_COMPRESS },
	{ "zst", CL_COMPRESS }, { "tgz", CL_ARCHIVE }, { "7z", CL_ARCHIVE },
	{ "rar", CL_ARCHIVE }, { "cpio", CL_ARCHIVE }, { "deb", CL_ARCHIVE },
	{ "rpm", CL_ARCHIVE }, { "apk", CL_ARCHIVE }, { "dmg", CL_DISK },
	{ "pkg", CL_ARCHIVE }, { "whl", CL_ARCHIVE }, { "egg", CL_ARCHIVE },
	{ "gem", CL_ARCHIVE }, { "otf", CL_FONT }, { "woff", CL_FONT },
	{ "eot", CL_FONT }, { "fon", CL_FONT }, { "fnt", CL_FONT },
	{ "pfb", CL_FONT }, { "pfm", CL_FONT }, { "afm", CL_FONT },
	{ "ttc", CL_FONT }, { "vmdk", CL_DISK }, { "vdi", CL_DISK },
	{ "ova", CL_DISK }, { "qcow", CL_DISK }, { "drv", CL_WIN },
	{ "cpl", CL_WIN }, { "scr", CL_WIN }, { "com", CL_WIN },
	{ "ax", CL_WIN }, { "acm", CL_WIN }, { "mui", CL_WIN },
	{ "tlb", CL_WIN }, { "ods", CL_DOC }, { "odp", CL_DOC },
	{ "tsv", CL_DOC }, { "tex", CL_DOC }, { "epub", CL_DOC },
	{ "mobi", CL_DOC }, { "djvu", CL_DOC }, { "xps", CL_DOC },
	{ "wpd", CL_DOC }, { "wps", CL_DOC }, { "rst", CL_TEXT },
	{ "nfo", CL_TEXT }, { "asp", CL_WEB }, { "aspx", CL_WEB },
	{ "jsp", CL_WEB }, { "xht", CL_WEB }, { "mht", CL_WEB },
	{ "less", CL_WEB }, { "scss", CL_WEB }, { "sass", CL_WEB },
	{ "erb", CL_WEB }, { "twig", CL_WEB }, { "yaml", CL_CFG },
	{ "toml", CL_CFG }, { "env", CL_CFG }, { "reg", CL_CFG },
	{ "xsd", CL_CFG }, { "xsl", CL_CFG }, { "xslt", CL_CFG },
	{ "dtd", CL_CFG }, { "nib", CL_CFG }, { "out", CL_LOG },
	{ "err", CL_LOG }, { "lo", CL_OBJECT }, { "la", CL_OBJECT },
	{ "ko", CL_OBJECT }, { "bc", CL_OBJECT }, { "ll", CL_OBJECT },
	{ "elc", CL_OBJECT }, { "pyo", CL_OBJECT },
};

static enum cls classify(const char *lext)
{
	for (size_t i = 0; i < ARRAY_SIZE(ext_classes); i++)
		if (ext_classes[i].ext[0] == lext[0] && !strcmp(ext_classes[i].ext, lext))
			return (enum cls)ext_classes[i].cls;
	return CL_OTHER;
}

static void pattern(struct nb *b, struct draw *d, enum name_kind kind)
{
	char lext[8];
	size_t i;

	if (kind == NAME_DIR) {
		names_pat_dir(b, d);
		return;
	}
	if (!d->ext_len) {
		names_pat_noext(b, d);
		return;
	}
	if (d->ext_len >= sizeof(lext)) {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 20);
		return;
	}
	for (i = 0; i < d->ext_len; i++) {
		char ch = d->ext[i];

		lext[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
	}
	lext[i] = '\0';
	switch (classify(lext)) {
	case CL_PHOTO:
		names_pat_photo(b, d);
		break;
	case CL_PNG:
		names_pat_graphic(b, d, true);
		break;
	case CL_GRAPHIC:
		names_pat_graphic(b, d, false);
		break;
	case CL_SHLIB:
		names_pat_shlib(b, d);
		break;
	case CL_WIN:
	case CL_PCH:
		names_pat_win(b, d, lext);
		break;
	case CL_C:
		names_pat_code(b, d, LANG_C);
		break;
	case CL_PY:
		names_pat_code(b, d, LANG_PY);
		break;
	case CL_JS:
		names_pat_code(b, d, LANG_JS);
		break;
	case CL_GO:
		names_pat_code(b, d, LANG_GO);
		break;
	case CL_RS:
		names_pat_code(b, d, LANG_RS);
		break;
	case CL_SCRIPT:
		names_pat_code(b, d, LANG_OTHER);
		break;
	case CL_JAVA:
		names_pat_oo(b, d, false, false);
		break;
	case CL_CLASS:
		names_pat_oo(b, d, true, false);
		break;
	case CL_CS:
		names_pat_oo(b, d, false, true);
		break;
	case CL_TEMP:
		names_pat_temp(b, d);
		break;
	case CL_AUDIO:
		names_pat_audio(b, d, false);
		break;
	case CL_WAV:
		names_pat_audio(b, d, true);
		break;
	case CL_VIDEO:
		names_pat_video(b, d);
		break;
	case CL_DOC:
		names_pat_doc(b, d);
		break;
	case CL_TEXT:
		names_pat_text(b, d);
		break;
	case CL_WEB:
		names_pat_web(b, d);
		break;
	case CL_CFG:
		names_pat_fixed_or_words(b, d, cfg_fixed, ARRAY_SIZE(cfg_fixed), false);
		break;
	case CL_LOG:
		names_pat_fixed_or_words(b, d, log_fixed, ARRAY_SIZE(log_fixed), true);
		break;
	case CL_FONT:
		names_pat_font(b, d);
		break;
	case CL_ARCHIVE:
		names_pat_archive(b, d, lext);
		break;
	case CL_COMPRESS:
		names_pat_compress(b, d);
		break;
	case CL_OBJECT:
		names_pat_object(b, d, lext);
		break;
	case CL_DISK:
		names_pat_disk(b, d);
		break;
	default:
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 20);
		break;
	}
}

/* ---- the guarantees ---------------------------------------------------- */

static bool has_upper(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] >= 'A' && p[i] <= 'Z')
			return true;
	return false;
}

static bool has_byte(const char *p, size_t n, char ch)
{
	return memchr(p, ch, n) != NULL;
}

static bool has_high(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)p[i] >= 0x80)
			return true;
	return false;
}

static const char *const copy_marks[] = {
	" (1)", " (2)", " (3)", " (1)", " copy", " copy 2", " - copy",
	" - Copy",
};

/*
 * Make the stem honour the three draws whatever the pattern wrote: the shares
 * of names with spaces, non-ASCII words and capitals are exactly the
 * configured probabilities.
 */
static void enforce(struct nb *b, struct draw *d)
{
	if (!b->len)
		names_nb_put(b, "file");
	for (size_t i = 0; i < b->len; i++) {
		char ch = b->p[i];

		if (!d->upper && ch >= 'A' && ch <= 'Z')
			b->p[i] = (char)(ch - 'A' + 'a');
		else if ((!d->space && ch == ' ') || (d->noext && ch == '.'))
			b->p[i] = '_';
	}
	if (d->utf8 && !has_high(b->p, b->len)) {
		names_nb_putc(b, d->space ? ' ' : '_');
		names_put_utf8_word(b, d, d->upper ? WC_CAP : WC_LOWER);
	}
	if (d->space && !has_byte(b->p, b->len, ' ')) {
		const char *m = PICK_FLAT(d, copy_marks);

		names_nb_put(b, !d->upper && m[3] == 'C' ? " - copy" : m);
	}
	if (d->upper && !has_upper(b->p, b->len)) {
		size_t i;

		for (i = 0; i < b->len; i++)
			if (b->p[i] >= 'a' && b->p[i] <= 'z')
				break;
		if (i < b->len) {
			b->p[i] = (char)(b->p[i] - 'a' + 'A');
		} else {
			/* no ASCII letter at all: lead with a capitalised word */
			char w[32];
			struct nb wb = { w, 0, sizeof(w) };

			names_nb_word(&wb, names_pick(d, &v_gen), WC_CAP);
			names_nb_putc(&wb, d->space ? ' ' : '_');
			if (b->len + wb.len > b->cap)
				b->len = b->cap - wb.len;
			memmove(b->p + wb.len, b->p, b->len);
			memcpy(b->p, w, wb.len);
			b->len += wb.len;
		}
	}
	if (b->p[0] == '-' || b->p[0] == '.')
		b->p[0] = '_';
}

/* Keep printable ASCII other than '/', '~' and space; at most EXT_MAX bytes */
static size_t clean_ext(char *out, const char *ext)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)ext; *p && n < EXT_MAX; p++)
		if (*p > 0x20 && *p < 0x7f && *p != '/' && *p != '~')
			out[n++] = (char)*p;
	out[n] = '\0';
	return n;
}

static size_t put_unique(char *out, enum name_kind kind, uint64_t id)
{
	static const char b36[] = "0123456789abcdefghijklmnopqrstuvwxyz";
	char t[16];
	size_t n = 0, k = 0;

	out[n++] = '~';
	out[n++] = kind == NAME_DIR ? 'd' : kind == NAME_LINK ? 'l' : 'f';
	do {
		t[k++] = b36[id % 36];
		id /= 36;
	} while (id);
	while (k)
		out[n++] = t[--k];
	return n;
}

/* stem (already in buf) + unique suffix + tail, cut to NAME_MAX_LEN */
static size_t assemble(char *buf, size_t slen, const char *suf, size_t sufl,
		       const char *tail, size_t tl)
{
	size_t room = NAME_MAX_LEN - sufl - tl;

	if (slen > room) {
		slen = room;
		while (slen > 1 && ((unsigned char)buf[slen] & 0xC0) == 0x80)
			slen--;
		while (slen > 1 && buf[slen - 1] == ' ')
			slen--;
	}
	memcpy(buf + slen, suf, sufl);
	memcpy(buf + slen + sufl, tail, tl);
	buf[slen + sufl + tl] = '\0';
	return slen + sufl + tl;
}

static size_t numeric(char *buf, enum name_kind kind, uint64_t id,
		      const char *ext, size_t ext_len, bool unique)
{
	struct nb b = { buf, 0, STEM_MAX };
	char suf[20], tail[EXT_MAX + 2];
	size_t sufl = unique ? put_unique(suf, kind, id) : 0, tl = 0;

	names_nb_putc(&b, kind == NAME_DIR ? 'd' : kind == NAME_LINK ? 'l' : 'f');
	names_nb_num(&b, id, 0);
	if (ext_len && kind != NAME_DIR) {
		tail[tl++] = '.';
		memcpy(tail + tl, ext, ext_len);
		tl += ext_len;
	}
	return assemble(buf, b.len, suf, sufl, tail, tl);
}

void name_cfg_from_params(struct name_cfg *c, const struct params *p)
{
	c->seed = p->seed;
	c->style = p->name_style;
	c->space_share = p->name_space_share;
	c->utf8_share = p->name_utf8_share;
	c->upper_share = p->name_upper_share;
	c->caps_on = p->name_caps_share >= 0;
	c->caps_share = p->name_caps_share;
	c->numeric_on = p->name_numeric_share >= 0;
	c->numeric_share = p->name_numeric_share;
	c->version_on = p->name_version_share >= 0;
	c->version_share = p->name_version_share;
	c->nlen = p->tab.nname_len;
	for (unsigned i = 0; i < c->nlen; i++)
		c->len_cdf[i] = (i ? c->len_cdf[i - 1] : 0) + (i ? p->tab.name_len[i] : 0);
	c->nlen_ext = p->tab.nname_ext_len;
	for (unsigned i = 0; i < c->nlen_ext; i++)
		c->len_ext_cdf[i] = (i ? c->len_ext_cdf[i - 1] : 0) + (i ? p->tab.name_ext_len[i] : 0);
	c->nlen_dir = p->tab.nname_dir_len;
	for (unsigned i = 0; i < c->nlen_dir; i++)
		c->len_dir_cdf[i] = (i ? c->len_dir_cdf[i - 1] : 0) + (i ? p->tab.name_dir_len[i] : 0);
}

size_t name_make(char *buf, const struct name_cfg *c, enum name_kind kind,
		 uint64_t id, const char *ext, unsigned variant)
{
	static const char *const streams[] = { "name.file", "name.dir", "name.link" };
	bool unique = variant >= NAME_VARIANT_UNIQUE;
	struct draw d;
	struct nb b = { buf, 0, STEM_MAX };
	char suf[20];
	size_t sufl;

	if (kind > NAME_LINK)
		kind = NAME_FILE;
	d.ext_len = clean_ext(d.ext, ext ? ext : "");
	if (c->style == NAMES_NUMERIC)
		return numeric(buf, kind, id, d.ext, d.ext_len, unique);
	if (kind == NAME_DIR)
		d.ext_len = 0;

	rng_init(&d.r, c->seed, streams[kind], id * 8 + (unique ? 0 : variant));
	d.space = rng_uniform(&d.r) < c->space_share;
	d.utf8 = rng_uniform(&d.r) < c->utf8_share;
	d.upper = rng_uniform(&d.r) < c->upper_share;
	d.utf8_todo = d.utf8;
	d.noext = kind != NAME_DIR && !d.ext_len;
	d.ext_upper = false;
	d.tail_set = false;
	d.tail_len = 0;

	pattern(&b, &d, kind);
	if (!unique && variant >= 2) {
		/* the later redraws number themselves, as people do: src_2 */
		names_nb_putc(&b, d.space ? ' ' : names_chance(&d, 70) ? '_' : '-');
		names_nb_num(&b, 2 + names_below(&d, 98), 0);
	}
	enforce(&b, &d);

	if (!d.tail_set && d.ext_len) {
		d.tail[0] = '.';
		for (size_t i = 0; i < d.ext_len; i++) {
			char ch = d.ext[i];

			if (d.ext_upper && d.upper && ch >= 'a' && ch <= 'z')
				ch = (char)(ch - 'a' + 'A');
			d.tail[i + 1] = ch;
		}
		d.tail_len = d.ext_len + 1;
	}
	if (c->caps_on || c->numeric_on || c->version_on || c->nlen || c->nlen_ext || c->nlen_dir)
		names_shape(&b, &d, c, kind, id, variant);
	sufl = unique ? put_unique(suf, kind, id) : 0;
	return assemble(buf, b.len, suf, sufl, d.tail, d.tail_len);
}
