/* names_pattern.c - realistic name stems, one pattern per file type, and directory names */
#include <stdbool.h>
#include <string.h>

#include "model/names_int.h"

/* ---- patterns by type -------------------------------------------------- */

void names_pat_photo(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	struct when t;

	/* camera names only rarely carry a space (a copy) or a non-ASCII word */
	if (d->utf8_todo || r >= 62 || (d->space && names_chance(d, 50))) {
		names_generic(b, d, &v_gen, SEP_MIX, 35);
		return;
	}
	d->ext_upper = r < 42 && names_chance(d, 70);
	names_draw_when(d, &t);
	if (r < 22) {
		names_nb_put(b, "IMG_");
		names_nb_num(b, 1 + names_below(d, 9999), 4);
	} else if (r < 28) {
		names_nb_put(b, "DSC");
		names_nb_num(b, names_below(d, 100000), 5);
	} else if (r < 32) {
		names_nb_put(b, names_chance(d, 50) ? "DSC_" : "DSCN");
		names_nb_num(b, names_below(d, 10000), 4);
	} else if (r < 35) {
		names_nb_putc(b, 'P');
		names_nb_num(b, 100 + names_below(d, 900), 3);
		names_nb_num(b, 1 + names_below(d, 9999), 4);
	} else if (r < 42) {
		names_nb_put(b, "PXL_");
		names_nb_ymd(b, &t, 0);
		names_nb_putc(b, '_');
		names_nb_hms(b, &t, 0);
		names_nb_num(b, names_below(d, 1000), 3);
	} else if (r < 50) {
		names_nb_put(b, "IMG_");
		names_nb_ymd(b, &t, 0);
		names_nb_putc(b, '_');
		names_nb_hms(b, &t, 0);
	} else if (r < 55) {
		names_nb_ymd(b, &t, 0);
		names_nb_putc(b, '_');
		names_nb_hms(b, &t, 0);
	} else if (r < 58) {
		if (d->space) {
			names_nb_put(b, "WhatsApp Image ");
			names_nb_ymd(b, &t, '-');
			names_nb_put(b, " at ");
			names_nb_hms(b, &t, '.');
		} else {
			names_nb_put(b, "IMG-");
			names_nb_ymd(b, &t, 0);
			names_nb_put(b, "-WA");
			names_nb_num(b, names_below(d, 10000), 4);
		}
	} else {
		names_nb_put(b, "Screenshot_");
		names_nb_ymd(b, &t, 0);
		names_nb_putc(b, '-');
		names_nb_hms(b, &t, 0);
	}
}

static void screenshot(struct nb *b, struct draw *d)
{
	struct when t;

	names_draw_when(d, &t);
	if (d->space) {
		if (names_chance(d, 60)) {
			names_nb_put(b, "Screenshot ");
			names_nb_ymd(b, &t, '-');
			names_nb_put(b, " at ");
			names_nb_hms(b, &t, '.');
		} else {
			names_nb_put(b, "Screenshot from ");
			names_nb_ymd(b, &t, '-');
			names_nb_putc(b, ' ');
			names_nb_hms(b, &t, '-');
		}
	} else {
		names_nb_put(b, names_chance(d, 50) ? "Screenshot_" : "screenshot_");
		names_nb_ymd(b, &t, 0);
		names_nb_putc(b, names_chance(d, 50) ? '-' : '_');
		names_nb_hms(b, &t, 0);
	}
}

void names_pat_graphic(struct nb *b, struct draw *d, bool png)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;

	if (!d->utf8_todo && r < (png ? 18u : 3u)) {
		screenshot(b, d);
	} else if (r < 60) {
		names_phrase(b, d, &v_ui, 1, 2, SEP_SNAKE, &st);
		if (names_chance(d, 50) && names_plain(d))
			names_nb_put(b, PICK_FLAT(d, asset_suffixes));
		else
			names_maybe_number(b, d, &st, 25);
	} else {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 30);
	}
}

void names_pat_shlib(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	char t[48];
	struct nb tb = { t, 0, sizeof(t) - 1 };
	struct pstyle st;

	if (!names_plain(d) || r < 10) {
		/* plugins without the lib prefix: pam_unix.so */
		names_generic(b, d, &v_tech, SEP_SNAKE, 10);
		return;
	}
	if (r < 18) {
		/* a Python extension module */
		names_nb_putc(b, '_');
		names_nb_word(b, names_pick(d, &v_tech), WC_LOWER);
		names_nb_put(b, ".cpython-3");
		names_nb_num(b, 6 + names_below(d, 7), 0);
		names_nb_put(b, "-x86_64-linux-gnu");
		return;
	}
	names_nb_put(b, "lib");
	if (d->upper && names_chance(d, 40)) {
		/* libGL, libX11, libSDL2 */
		names_nb_word(b, PICK_FLAT(d, abbrevs), WC_UPPER);
		if (names_chance(d, 50))
			names_nb_num(b, 1 + names_below(d, 11), 0);
	} else {
		names_phrase(b, d, &v_tech, 1, 2, SEP_JOIN, &st);
		if (names_chance(d, 15)) {
			names_nb_putc(b, '-');
			names_nb_num(b, 1 + names_below(d, 4), 0);
		}
	}
	r = names_below(d, 100);
	names_nb_put(&tb, ".so");
	if (r < 40) {
		return;
	} else if (r < 85) {
		names_nb_putc(&tb, '.');
		names_nb_num(&tb, names_below(d, 13), 0);
		if (r >= 70) {
			names_nb_putc(&tb, '.');
			names_nb_num(&tb, names_below(d, 30), 0);
			names_nb_putc(&tb, '.');
			names_nb_num(&tb, names_below(d, 10), 0);
		}
	} else {
		/* libc-2.31.so */
		names_nb_putc(b, '-');
		names_nb_num(b, 1 + names_below(d, 3), 0);
		names_nb_putc(b, '.');
		names_nb_num(b, names_below(d, 40), 2);
	}
	t[tb.len] = '\0';
	names_set_tail(d, t);
}

static const char *const win_fixed[] = {
	"setup", "install", "uninstall", "unins000", "update", "updater",
	"launcher", "helper", "crashreporter", "vcruntime140", "msvcp140",
	"msvcr100", "ucrtbase", "kernel32", "user32", "gdi32", "ntdll",
	"advapi32", "shell32", "ole32", "comctl32", "d3d11", "dxgi", "opengl32",
	"ws2_32", "msvcrt", "mfc140u", "Qt5Core", "Qt5Gui", "libcurl", "zlib1",
	"sqlite3", "python39", "Setup", "Uninstall", "SETUP", "INSTALL",
	"MSVCR71", "MFC42",
};

static const char *const win_suffixes[] = { "32", "64", "Ex", "2", "Lib", "Res", "Host", "UI" };

void names_pat_win(struct nb *b, struct draw *d, const char *lext)
{
	bool pch = !strcmp(lext, "pch");
	unsigned r = names_below(d, 100);
	struct pstyle st;

	if (!names_plain(d)) {
		names_generic(b, d, names_chance(d, 50) ? &v_win : &v_gen, SEP_MIX, 15);
		return;
	}
	if (pch && r < 60) {
		names_nb_put(b, r < 30 ? "stdafx" : r < 40 ? "StdAfx" : r < 50 ? "pch" : "precomp");
		return;
	}
	if (r < 20) {
		names_nb_put(b, PICK_FLAT(d, win_fixed));
	} else if (r < 25 && !d->upper && !strcmp(lext, "dll")) {
		names_nb_put(b, "api-ms-win-core-");
		names_nb_word(b, names_pick(d, &v_tech), WC_LOWER);
		names_nb_put(b, "-l1-");
		names_nb_num(b, 1 + names_below(d, 2), 0);
		names_nb_putc(b, '-');
		names_nb_num(b, names_below(d, 3), 0);
	} else if (r < 80) {
		/* CamelCase: MsoUtil, ShellHost64 (lower-cased when no capitals) */
		const char *prev = names_pick(d, &v_win);

		names_nb_word(b, prev, WC_CAP);
		for (unsigned i = names_chance(d, 75) ? 1 : 2; i; i--) {
			const char *w = names_pick(d, names_chance(d, 50) ? &v_win : &v_tech);

			if (strcmp(w, prev))
				names_nb_word(b, w, WC_CAP);
			prev = w;
		}
		if (names_chance(d, 20))
			names_nb_put(b, PICK_FLAT(d, win_suffixes));
	} else {
		st.sep = 0;
		st.pc = d->upper ? PC_UPPER : PC_LOWER;
		names_put_styled(b, &st, 0, names_pick(d, &v_win));
		names_put_styled(b, &st, 1, names_pick(d, &v_tech));
		if (names_chance(d, 30))
			names_nb_put(b, "32");
	}
}

static const char *const code_fixed[] = {
	"main", "util", "utils", "common", "config", "types", "init", "defs",
	"version", "internal", "debug", "error", "log", "test", "api", "core",
	"helpers", "compat", "platform", "options",
};

static const char *const py_fixed[] = {
	"__init__", "__init__", "__init__", "setup", "conftest", "__main__",
	"manage", "settings", "models", "views", "urls", "tests", "utils",
	"admin", "apps",
};

static const char *const js_fixed[] = {
	"index", "index", "app", "main", "bundle", "vendor", "polyfills",
	"server", "routes", "config", "webpack.config", "jquery.min", "utils",
	"constants", "store",
};

void names_pat_code(struct nb *b, struct draw *d, enum lang lang)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;

	if (!names_plain(d) || d->upper) {
		/* BufferPool.cpp, Ring_buffer.h, or words with spaces */
		names_phrase(b, d, &v_tech, 1, 3, lang == LANG_JS ? SEP_KEBAB : SEP_SNAKE, &st);
		names_maybe_number(b, d, &st, 8);
		return;
	}
	if (r < 14) {
		switch (lang) {
		case LANG_PY:
			names_nb_put(b, PICK_FLAT(d, py_fixed));
			break;
		case LANG_JS:
			names_nb_put(b, PICK_FLAT(d, js_fixed));
			break;
		case LANG_GO:
			names_nb_put(b, r < 5 ? "main" : r < 8 ? "doc" : PICK_FLAT(d, code_fixed));
			break;
		case LANG_RS:
			names_nb_put(b, r < 5 ? "mod" : r < 8 ? "lib" : r < 10 ? "main" : "build");
			break;
		default:
			names_nb_put(b, PICK_FLAT(d, code_fixed));
			break;
		}
	} else if (r < 60) {
		names_phrase(b, d, &v_tech, 1, 3, lang == LANG_JS ? SEP_KEBAB : SEP_SNAKE, &st);
		names_maybe_number(b, d, &st, 8);
	} else if (r < 80 && lang != LANG_JS && lang != LANG_PY) {
		/* strbuf, sockopt, xmalloc */
		names_nb_word(b, PICK_FLAT(d, abbrevs), WC_LOWER);
		names_nb_word(b, names_chance(d, 60) ? PICK_FLAT(d, abbrevs) : names_pick(d, &v_tech), WC_LOWER);
	} else if (r < 90) {
		if (lang == LANG_GO || lang == LANG_RS || names_chance(d, 40)) {
			names_nb_word(b, names_pick(d, &v_tech), WC_LOWER);
			names_nb_put(b, names_chance(d, 70) ? "_test" : "_impl");
		} else {
			names_nb_put(b, "test_");
			names_nb_word(b, names_pick(d, &v_tech), WC_LOWER);
		}
	} else if (lang == LANG_JS) {
		names_nb_word(b, names_pick(d, &v_tech), WC_LOWER);
		names_nb_put(b, names_chance(d, 50) ? ".min" : names_chance(d, 50) ? ".test" : ".spec");
	} else {
		/* sha256, base64, ext4 */
		names_nb_word(b, PICK_FLAT(d, abbrevs), WC_LOWER);
		names_nb_num(b, 1 + names_below(d, 256), 0);
	}
}

static const char *const oo_roles[] = {
	"Factory", "Manager", "Service", "Impl", "Test", "Utils", "Handler",
	"Builder", "Exception", "Controller", "Provider", "Adapter", "Helper",
	"Config", "Listener", "Visitor", "Parser", "Writer", "Reader",
	"Activity", "View", "Model", "Repository",
};

void names_pat_oo(struct nb *b, struct draw *d, bool cls, bool cs)
{
	struct pstyle st;

	if (!names_plain(d) || !d->upper) {
		/* without capitals the class name runs together: httpclient */
		if (names_plain(d) && names_chance(d, 8)) {
			names_nb_put(b, names_chance(d, 50) ? "package-info" : "module-info");
			return;
		}
		names_phrase(b, d, &v_tech, 1, 3, SEP_JOIN, &st);
		return;
	}
	if (cs && names_chance(d, 8))
		names_nb_putc(b, 'I');
	for (unsigned i = names_draw_nwords(d, 1, 3); i; i--)
		names_nb_word(b, names_pick(d, &v_tech), WC_CAP);
	if (names_chance(d, 45))
		names_nb_put(b, PICK_FLAT(d, oo_roles));
	if (cls && names_chance(d, 15)) {
		names_nb_putc(b, '$');
		if (names_chance(d, 50))
			names_nb_num(b, 1 + names_below(d, 5), 0);
		else
			names_nb_word(b, names_pick(d, &v_tech), WC_CAP);
	}
}

static const char *const inner_exts[] = {
	"c", "txt", "conf", "h", "py", "cfg", "doc", "ini", "json", "xml",
	"html", "js",
};

void names_pat_temp(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;

	if (!names_plain(d) || r >= 85) {
		names_phrase(b, d, names_mixed_vocab(d), 1, 2, SEP_SNAKE, &st);
		if (names_plain(d) || names_chance(d, 50)) {
			if (st.sep)
				names_nb_putc(b, st.sep);
			names_nb_word(b, names_chance(d, 50) ? "old" : "backup", names_word_case(&st, 1));
		}
	} else if (r < 25) {
		names_nb_hex(b, d, 8 + 2 * names_below(d, 5), d->upper);
	} else if (r < 45) {
		names_nb_put(b, "tmp");
		names_nb_token(b, d, 6 + names_below(d, 5), d->upper);
	} else {
		/* main.c.bak, config.ini.old */
		names_phrase(b, d, &v_tech, 1, 2, SEP_SNAKE, &st);
		names_nb_putc(b, '.');
		names_nb_put(b, PICK_FLAT(d, inner_exts));
	}
}

static const char *const sound_words[] = {
	"click", "beep", "notify", "alarm", "ding", "chimes", "tada", "chord",
	"error", "startup", "shutdown", "ringtone", "voice", "sample", "kick",
	"snare",
};

void names_pat_audio(struct nb *b, struct draw *d, bool wav)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;

	if (wav && r < 40 && names_plain(d)) {
		names_nb_word(b, PICK_FLAT(d, sound_words), d->upper ? WC_CAP : WC_LOWER);
		if (names_chance(d, 50)) {
			names_nb_putc(b, names_chance(d, 60) ? '_' : '-');
			names_nb_num(b, 1 + names_below(d, 20), 2);
		}
		return;
	}
	r = names_below(d, 100);
	if (r < 55) {
		/* 03 - Blue Morning */
		names_nb_num(b, 1 + names_below(d, names_below(d, 20) + 1), 2);
		if (d->space)
			names_nb_put(b, names_chance(d, 70) ? " - " : " ");
		else
			names_nb_putc(b, names_chance(d, 60) ? '_' : '-');
		names_phrase(b, d, &v_song, 1, 4, SEP_SNAKE, &st);
	} else if (r < 70) {
		/* Artist - Title */
		names_phrase(b, d, &v_gen, 1, 2, SEP_SNAKE, &st);
		names_nb_put(b, d->space ? " - " : "-");
		names_put_words(b, d, &v_song, 0, names_draw_nwords(d, 1, 3), &st);
	} else if (r < 80 && names_plain(d)) {
		names_nb_word(b, names_chance(d, 50) ? "track" : "audio", d->upper ? WC_CAP : WC_LOWER);
		if (names_chance(d, 50))
			names_nb_putc(b, '_');
		names_nb_num(b, 1 + names_below(d, 30), 2);
	} else {
		names_generic(b, d, &v_song, SEP_MIX, 30);
	}
}

void names_pat_video(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	struct when t;
	struct pstyle st;

	if (!names_plain(d) || r >= 44) {
		if (names_plain(d) && r >= 84) {
			names_nb_word(b, names_chance(d, 50) ? "clip" : names_chance(d, 50) ? "video" : "movie",
				d->upper ? WC_CAP : WC_LOWER);
			if (names_chance(d, 50))
				names_nb_putc(b, '_');
			names_nb_num(b, 1 + names_below(d, 40), 2);
			return;
		}
		names_phrase(b, d, &v_gen, 1, 3, SEP_MIX, &st);
		if (names_chance(d, 40)) {
			if (d->space) {
				names_nb_put(b, " (");
				names_nb_num(b, names_draw_year(d), 4);
				names_nb_putc(b, ')');
			} else {
				names_nb_putc(b, st.sep ? st.sep : '_');
				names_nb_num(b, names_draw_year(d), 4);
			}
		}
		return;
	}
	d->ext_upper = names_chance(d, 60);
	if (r < 18) {
		names_draw_when(d, &t);
		names_nb_put(b, "VID_");
		names_nb_ymd(b, &t, 0);
		names_nb_putc(b, '_');
		names_nb_hms(b, &t, 0);
	} else if (r < 26) {
		names_nb_put(b, "MVI_");
		names_nb_num(b, names_below(d, 10000), 4);
	} else if (r < 31) {
		names_nb_put(b, "MOV_");
		names_nb_num(b, names_below(d, 10000), 4);
	} else if (r < 36) {
		names_nb_put(b, names_chance(d, 50) ? "GOPR" : "GH01");
		names_nb_num(b, names_below(d, 10000), 4);
	} else if (r < 40) {
		names_nb_put(b, "DJI_");
		names_nb_num(b, names_below(d, 10000), 4);
	} else {
		names_nb_put(b, "VTS_0");
		names_nb_num(b, 1 + names_below(d, 9), 0);
		names_nb_putc(b, '_');
		names_nb_num(b, names_below(d, 10), 0);
	}
}

static const char *const numbered_docs[] = {
	"invoice", "receipt", "order", "statement", "ticket", "quote",
	"contract", "case", "claim", "ref", "po", "scan", "doc", "report",
	"payslip", "bill",
};

static const char *const doc_versions[] = {
	"v2", "v3", "final", "draft", "rev2", "final_final", "new", "old",
	"signed", "copy",
};

void names_pat_doc(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;
	struct when t;

	if (r < 30) {
		/* Holiday budget 2019 */
		names_choose_style(d, SEP_MIX, &st);
		if (st.sep == 0 && st.pc == PC_LOWER)
			st.sep = '_';
		names_put_words(b, d, &v_gen, 0, names_draw_nwords(d, 1, 2), &st);
		names_put_styled(b, &st, 2, names_pick(d, &v_doc));
		if (names_chance(d, 40)) {
			if (st.sep)
				names_nb_putc(b, st.sep);
			names_nb_num(b, names_draw_year(d), 4);
		}
	} else if (r < 42) {
		/* 2021-03-04 minutes */
		names_draw_when(d, &t);
		names_nb_ymd(b, &t, names_chance(d, 70) ? '-' : 0);
		names_choose_style(d, SEP_SNAKE, &st);
		if (!st.sep)
			names_nb_putc(b, '_');
		if (names_chance(d, 60))
			names_put_styled(b, &st, 1, names_pick(d, &v_doc));
		else
			names_put_words(b, d, &v_gen, 1, names_draw_nwords(d, 1, 2), &st);
	} else if (r < 52 && names_plain(d)) {
		/* invoice_12345, Invoice-2021-0042 */
		names_nb_word(b, PICK_FLAT(d, numbered_docs), d->upper ? WC_CAP : WC_LOWER);
		names_nb_putc(b, names_chance(d, 60) ? '_' : '-');
		if (names_chance(d, 40)) {
			names_nb_num(b, names_draw_year(d), 4);
			names_nb_putc(b, '-');
			names_nb_num(b, names_below(d, 1000), 4);
		} else {
			names_nb_num(b, names_below(d, 1000000), 0);
		}
	} else if (r < 65) {
		names_phrase(b, d, &v_doc, 1, 1, SEP_SNAKE, &st);
		if (names_chance(d, 40)) {
			names_nb_putc(b, st.sep ? st.sep : '_');
			names_nb_word(b, PICK_FLAT(d, doc_versions), WC_LOWER);
		}
	} else {
		names_generic(b, d, &v_gen, SEP_MIX, 25);
	}
}

static const char *const text_fixed[] = {
	"notes", "todo", "readme", "README", "changelog", "CHANGES", "LICENSE",
	"install", "output", "results", "list", "urls", "links", "keys",
	"hosts", "requirements", "CMakeLists", "robots", "license", "copying",
	"credits", "version", "words", "data", "input", "log", "INSTALL",
	"index", "CONTRIBUTING", "HISTORY",
};

void names_pat_text(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);

	if (r < 25 && names_plain(d))
		names_nb_put(b, PICK_FLAT(d, text_fixed));
	else if (r < 65)
		names_pat_doc(b, d);
	else
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 20);
}

static const char *const web_fixed[] = {
	"index", "index", "default", "home", "main", "about", "contact",
	"search", "login", "404", "style", "styles", "print", "reset",
	"bootstrap", "layout",
};

void names_pat_web(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;

	if (r < 15 && names_plain(d)) {
		names_nb_put(b, PICK_FLAT(d, web_fixed));
	} else if (r < 25 && names_plain(d)) {
		if (names_chance(d, 50))
			names_nb_put(b, names_chance(d, 50) ? "page" : "article_");
		names_nb_num(b, names_below(d, 10000000), 0);
	} else {
		names_phrase(b, d, names_mixed_vocab(d), 1, 3, SEP_KEBAB, &st);
		names_maybe_number(b, d, &st, 15);
		if (names_plain(d) && names_chance(d, 8))
			names_nb_put(b, ".min");
	}
}

const char *const cfg_fixed[] = {
	"config", "settings", "desktop", "default", "app", "local", "user",
	"system", "package", "tsconfig", "docker-compose", "manifest",
	"database", "server", "client", "logging", "options", "preferences",
	"Info", "php", "my", "boot", "win", "setup", "autorun", "sources",
	"services", "schema", "defaults", "env",
};

const char *const log_fixed[] = {
	"error", "access", "debug", "install", "setup", "system", "messages",
	"syslog", "kern", "auth", "daemon", "build", "test", "output", "server",
	"application", "WindowsUpdate", "setupapi", "Xorg", "dpkg", "boot",
	"cron", "mail", "update",
};

void names_pat_fixed_or_words(struct nb *b, struct draw *d,
			      const char *const *fixed, unsigned nfixed, bool dated)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;
	struct when t;

	if (r < 35 && names_plain(d)) {
		names_nb_put(b, names_pick_flat(d, fixed, nfixed));
	} else if (dated && r < 70) {
		names_phrase(b, d, &v_tech, 1, 2, SEP_SNAKE, &st);
		names_draw_when(d, &t);
		names_nb_putc(b, st.sep ? st.sep : '_');
		names_nb_ymd(b, &t, names_chance(d, 50) ? '-' : 0);
	} else {
		names_generic(b, d, &v_tech, SEP_KEBAB, 10);
	}
}

static const char *const font_styles[] = {
	"Regular", "Bold", "Italic", "BoldItalic", "Light", "Medium",
	"SemiBold", "Black", "Thin", "Condensed", "Oblique", "ExtraLight",
};

static const char *const font_families[] = {
	"Sans", "Serif", "Mono", "Display", "Text", "Grotesk", "Gothic", "Book",
};

void names_pat_font(struct nb *b, struct draw *d)
{
	struct pstyle st;

	if (!names_plain(d)) {
		names_generic(b, d, &v_gen, SEP_MIX, 10);
		return;
	}
	/* DejaVuSans-Bold, NotoSerif-Regular; lower-cased without capitals */
	names_nb_word(b, names_pick(d, names_chance(d, 50) ? &v_gen : &v_tech), WC_CAP);
	if (names_chance(d, 70))
		names_nb_put(b, PICK_FLAT(d, font_families));
	if (names_chance(d, 70)) {
		names_nb_putc(b, '-');
		names_nb_put(b, PICK_FLAT(d, font_styles));
	} else if (names_chance(d, 30)) {
		st.sep = 0;
		st.pc = PC_LOWER;
		names_maybe_number(b, d, &st, 100);
	}
}

static const char *const distros[] = {
	"ubuntu", "debian", "fedora", "centos", "alpine", "archlinux",
	"linuxmint", "kali", "opensuse", "freebsd", "rocky", "manjaro", "popos",
	"netbsd",
};

static const char *const arches[] = { "amd64", "x86_64", "i386", "arm64", "aarch64", "all" };

static void tarball(struct nb *b, struct draw *d)
{
	struct pstyle st;

	names_phrase(b, d, &v_tech, 1, 2, SEP_KEBAB, &st);
	names_nb_putc(b, '-');
	names_nb_version(b, d);
}

void names_pat_archive(struct nb *b, struct draw *d, const char *lext)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;
	struct when t;

	if (!names_plain(d) || r >= 60) {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 25);
	} else if (!strcmp(lext, "deb")) {
		tarball(b, d);
		names_nb_putc(b, '-');
		names_nb_num(b, 1 + names_below(d, 3), 0);
		names_nb_putc(b, '_');
		names_nb_put(b, PICK_FLAT(d, arches));
	} else if (!strcmp(lext, "rpm")) {
		tarball(b, d);
		names_nb_putc(b, '-');
		names_nb_num(b, 1 + names_below(d, 3), 0);
		names_nb_put(b, names_chance(d, 50) ? ".el8." : ".fc38.");
		names_nb_put(b, names_chance(d, 70) ? "x86_64" : "noarch");
	} else if (!strcmp(lext, "whl")) {
		tarball(b, d);
		names_nb_put(b, "-py3-none-any");
	} else if (r < 35) {
		tarball(b, d);
	} else if (r < 50) {
		names_phrase(b, d, &v_gen, 1, 1, SEP_SNAKE, &st);
		names_nb_put(b, d->upper && st.pc != PC_LOWER ? "_Backup_" : "_backup_");
		names_draw_when(d, &t);
		names_nb_ymd(b, &t, names_chance(d, 50) ? '-' : 0);
	} else {
		names_nb_word(b, names_chance(d, 50) ? "archive" : names_chance(d, 50) ? "export" : "files",
			d->upper ? WC_CAP : WC_LOWER);
		if (names_chance(d, 50)) {
			names_nb_putc(b, names_chance(d, 50) ? '_' : '-');
			names_nb_num(b, 1 + names_below(d, 20), 0);
		}
	}
}

static const char *const log_words[] = {
	"syslog", "messages", "kern", "auth", "daemon", "access", "error",
	"dpkg", "mail", "debug",
};

static const char *const inner_data[] = { "txt", "json", "csv", "sql", "log", "xml", "tar", "bin" };

static const char *const man_cmds[] = {
	"ls", "cp", "tar", "bash", "grep", "printf", "malloc", "open", "read",
	"write", "socket", "mount", "fstab", "passwd", "ssh", "git", "make",
	"gcc", "systemd", "init",
};

void names_pat_compress(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);

	if (!names_plain(d) || r >= 90) {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 20);
	} else if (r < 45) {
		tarball(b, d);
		names_nb_put(b, ".tar");
	} else if (r < 60) {
		/* logrotate: syslog.2.gz, access.log.4.gz */
		names_nb_put(b, PICK_FLAT(d, log_words));
		if (names_chance(d, 40))
			names_nb_put(b, ".log");
		names_nb_putc(b, '.');
		names_nb_num(b, 1 + names_below(d, 9), 0);
	} else if (r < 80) {
		names_generic(b, d, &v_tech, SEP_SNAKE, 20);
		names_nb_putc(b, '.');
		names_nb_put(b, PICK_FLAT(d, inner_data));
	} else {
		/* man pages: ls.1.gz */
		names_nb_put(b, PICK_FLAT(d, man_cmds));
		names_nb_putc(b, '.');
		names_nb_num(b, r < 85 ? 1 : r < 88 ? 3 : 8, 0);
	}
}

void names_pat_object(struct nb *b, struct draw *d, const char *lext)
{
	struct pstyle st;

	if (names_plain(d) && (!strcmp(lext, "pyc") || !strcmp(lext, "pyo")) && names_chance(d, 60)) {
		names_phrase(b, d, &v_tech, 1, 2, SEP_SNAKE, &st);
		names_nb_put(b, ".cpython-3");
		names_nb_num(b, 6 + names_below(d, 7), 0);
		if (names_chance(d, 10))
			names_nb_put(b, ".opt-1");
	} else if (names_plain(d) && (!strcmp(lext, "a") || !strcmp(lext, "la")) && names_chance(d, 60)) {
		names_nb_put(b, "lib");
		names_phrase(b, d, &v_tech, 1, 2, SEP_JOIN, &st);
	} else if (!strcmp(lext, "ko")) {
		names_phrase(b, d, &v_tech, 1, 3, names_chance(d, 70) ? SEP_SNAKE : SEP_KEBAB, &st);
		names_maybe_number(b, d, &st, 10);
	} else {
		names_pat_code(b, d, LANG_C);
	}
}

static const char *const disk_words[] = {
	"disk", "disk0", "disk1", "hdd", "drive_c", "sda1", "boot", "rootfs",
	"system", "data", "swap", "efi", "recovery", "backup",
};

void names_pat_disk(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);

	if (!names_plain(d) || r >= 75) {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 30);
	} else if (r < 35) {
		/* ubuntu-20.04-desktop-amd64 */
		names_nb_put(b, PICK_FLAT(d, distros));
		names_nb_putc(b, '-');
		names_nb_num(b, 2 + names_below(d, 38), 0);
		names_nb_putc(b, '.');
		names_nb_num(b, names_below(d, 12), 2);
		names_nb_putc(b, '-');
		names_nb_put(b, names_chance(d, 50) ? "desktop" : names_chance(d, 50) ? "server" : "live");
		names_nb_putc(b, '-');
		names_nb_put(b, PICK_FLAT(d, arches));
	} else if (r < 60) {
		names_nb_put(b, PICK_FLAT(d, disk_words));
	} else {
		names_nb_put(b, names_chance(d, 50) ? "win" : "vm-");
		names_nb_num(b, 7 + names_below(d, 5), 0);
		names_nb_put(b, names_chance(d, 50) ? "-x64" : "");
	}
}

void names_pat_noext(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	struct pstyle st;

	if (!names_plain(d)) {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 10);
		return;
	}
	if (d->upper) {
		/* README, Makefile, or CamelCase words */
		if (r < 40)
			names_nb_put(b, noext_known[names_below(d, 32)]);
		else
			names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 15);
		return;
	}
	if (r < 16) {
		names_nb_put(b, PICK_FLAT(d, noext_known));
	} else if (r < 34) {
		names_nb_put(b, PICK_FLAT(d, commands));
	} else if (r < 48) {
		/* git loose objects (38), SHA-1 (40), MD5 (32), SHA-256 (64) */
		r = names_below(d, 20);
		names_nb_hex(b, d, r < 10 ? 38 : r < 15 ? 40 : r < 18 ? 32 : 64, false);
	} else if (r < 56) {
		/* mail spool, MH folders */
		names_nb_num(b, 1 + names_below(d, 1 + names_below(d, 99999)), 0);
	} else if (r < 82) {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 10);
	} else if (r < 92) {
		names_phrase(b, d, &v_tech, 1, 1, SEP_SNAKE, &st);
		names_nb_putc(b, names_chance(d, 50) ? '_' : '-');
		names_nb_num(b, names_below(d, 100000), 0);
	} else if (names_chance(d, 50)) {
		names_nb_put(b, "tmp");
		names_nb_token(b, d, 8, false);
	} else {
		/* PHP session files */
		names_nb_put(b, "sess_");
		names_nb_token(b, d, 26, false);
	}
}

void names_pat_dir(struct nb *b, struct draw *d)
{
	unsigned r = names_below(d, 100);
	struct when t;

	if (!names_plain(d)) {
		/* "New folder", "Program Files", "Old Photos 2019" */
		names_generic(b, d, names_chance(d, 60) ? &v_gen : &v_tech, SEP_MIX, 15);
		return;
	}
	if (d->upper) {
		if (r < 40) {
			names_nb_put(b, PICK_FLAT(d, dir_names_cap));
		} else if (r < 75) {
			names_generic(b, d, names_chance(d, 60) ? &v_gen : &v_tech, SEP_MIX, 10);
		} else if (r < 90) {
			names_nb_word(b, names_pick(d, &v_gen), WC_CAP);
			names_nb_putc(b, names_chance(d, 50) ? '_' : '-');
			names_nb_num(b, names_chance(d, 50) ? names_draw_year(d) : 1 + names_below(d, 9), 0);
		} else {
			names_nb_word(b, names_pick(d, names_chance(d, 50) ? &v_gen : &v_tech), WC_UPPER);
		}
		return;
	}
	if (r < 40) {
		names_nb_put(b, PICK_FLAT(d, dir_names));
	} else if (r < 62) {
		names_generic(b, d, names_mixed_vocab(d), SEP_MIX, 10);
	} else if (r < 70) {
		names_draw_when(d, &t);
		if (names_chance(d, 70))
			names_nb_num(b, t.y, 4);
		else
			names_nb_ymd(b, &t, '-');
	} else if (r < 78) {
		if (names_chance(d, 40)) {
			names_nb_putc(b, 'v');
			names_nb_version(b, d);
		} else {
			tarball(b, d);
		}
	} else if (r < 85) {
		/* git object fan-out */
		names_nb_hex(b, d, 2, false);
	} else if (r < 89) {
		names_nb_num(b, names_below(d, 100000), names_chance(d, 30) ? 6 : 0);
	} else {
		/* conf.d, init.d, cron.daily */
		r = names_below(d, 100);
		if (r < 8) {
			names_nb_put(b, r < 4 ? "cron.daily" : "cron.weekly");
		} else {
			names_nb_word(b, names_pick(d, &v_tech), WC_LOWER);
			names_nb_put(b, r < 80 ? ".d" : ".old");
		}
	}
}
