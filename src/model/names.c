/* names.c - entry names derived on demand: numeric (Impressions) or realistic per-type patterns */
#include <stdbool.h>
#include <string.h>

#include "model/names.h"
#include "util/rng.h"
#include "util/util.h"

/* Longest stem a pattern writes; the rest of NAME_MAX_LEN is for the tail */
#define STEM_MAX 200
/* Longest extension kept; the tail may add a version (".so.12.3.4") */
#define EXT_MAX 64
#define TAIL_MAX (EXT_MAX + 24)

/* ---- vocabulary -------------------------------------------------------- */

/*
 * Word lists, most common first: a word is drawn as the lower of two uniform
 * indices, so the head of a list is about twice as likely as its middle.
 * All lower-case ASCII letters and digits; the case is applied when written.
 */
static const char *const tech_words[] = {
	"test", "main", "util", "config", "data", "file", "core", "common",
	"base", "app", "server", "client", "api", "net", "io", "buffer",
	"cache", "list", "map", "hash", "table", "tree", "node", "queue",
	"stack", "pool", "ring", "thread", "lock", "mutex", "sync", "async",
	"event", "loop", "timer", "time", "clock", "log", "debug", "error",
	"trace", "stream", "socket", "http", "tcp", "udp", "dns", "url", "json",
	"xml", "parser", "lexer", "token", "scanner", "format", "print",
	"string", "text", "char", "byte", "bits", "math", "vector", "matrix",
	"array", "slice", "range", "iter", "sort", "search", "index", "key",
	"value", "entry", "record", "field", "schema", "model", "view",
	"handler", "service", "manager", "factory", "builder", "helper",
	"wrapper", "adapter", "proxy", "bridge", "driver", "device", "disk",
	"block", "inode", "dir", "path", "mount", "journal", "alloc", "memory",
	"page", "heap", "object", "type", "proto", "message", "packet", "frame",
	"header", "body", "request", "response", "session", "user", "auth",
	"login", "crypto", "cipher", "cert", "ssl", "zlib", "compress",
	"encode", "decode", "codec", "audio", "video", "image", "font",
	"render", "draw", "canvas", "window", "widget", "button", "menu",
	"dialog", "panel", "layout", "style", "theme", "color", "shader",
	"texture", "mesh", "scene", "input", "output", "keyboard", "mouse",
	"usb", "pci", "gpu", "cpu", "arch", "kernel", "irq", "signal", "proc",
	"process", "task", "job", "worker", "sched", "plugin", "module",
	"loader", "linker", "symbol", "elf", "dwarf", "compiler", "ast", "eval",
	"vm", "jit", "runtime", "env", "shell", "cmd", "cli", "args", "options",
	"flags", "settings", "prefs", "version", "build", "install", "setup",
	"update", "patch", "diff", "merge", "commit", "branch", "repo", "db",
	"sql", "query", "store", "storage", "backup", "router", "route", "link",
	"port", "host", "addr", "serial", "uart", "spi", "gpio", "dma", "flash",
	"rom", "boot", "init", "exit", "start", "stop", "run", "exec", "spawn",
	"fork", "pipe", "poll", "select", "notify", "watch", "monitor", "stats",
	"metrics", "counter", "report", "check", "verify", "mock", "stub",
	"bench", "perf", "profile", "sample", "demo", "example", "tool", "misc",
	"internal", "private", "public", "shared", "global", "local", "remote",
	"mirror", "gateway", "cloud", "docker", "web", "site", "page", "form",
	"upload", "download",
};

static const char *const gen_words[] = {
	"photo", "holiday", "beach", "family", "summer", "winter", "spring",
	"autumn", "trip", "party", "wedding", "birthday", "christmas", "garden",
	"house", "home", "kitchen", "dog", "cat", "baby", "kids", "school",
	"work", "office", "meeting", "project", "report", "notes", "draft",
	"final", "budget", "invoice", "receipt", "tax", "bank", "statement",
	"letter", "contract", "resume", "cover", "paper", "thesis", "chapter",
	"book", "story", "poem", "song", "music", "album", "track", "live",
	"remix", "mix", "intro", "blue", "red", "green", "black", "white",
	"golden", "silver", "dark", "light", "night", "day", "morning",
	"evening", "sun", "moon", "star", "sky", "sea", "ocean", "river",
	"lake", "mountain", "forest", "city", "street", "road", "bridge",
	"park", "island", "paris", "london", "berlin", "tokyo", "rome", "new",
	"old", "big", "little", "small", "happy", "sweet", "love", "heart",
	"dream", "fire", "water", "rain", "snow", "wind", "storm", "ice",
	"stone", "gold", "glass", "world", "life", "time", "people", "friends",
	"team", "club", "game", "match", "season", "week", "month", "year",
	"plan", "schedule", "agenda", "minutes", "summary", "overview",
	"proposal", "presentation", "slides", "review", "feedback", "survey",
	"results", "analysis", "research", "study", "lecture", "lesson",
	"course", "exam", "homework", "assignment", "essay", "manual", "guide",
	"handbook", "policy", "form", "application", "request", "order",
	"quote", "price", "list", "inventory", "sales", "marketing", "client",
	"customer", "product", "design", "sketch", "logo", "banner", "poster",
	"flyer", "card", "map", "travel", "flight", "hotel", "ticket", "visa",
	"passport", "recipe", "dinner", "lunch", "breakfast", "coffee", "wine",
	"health", "doctor", "insurance", "car", "bike", "train", "camera",
	"phone", "screen", "backup", "archive", "scan", "copy", "misc", "stuff",
	"things", "ideas", "todo", "journal", "diary", "blog", "news",
	"article", "interview", "video", "movie", "film", "show", "episode",
	"concert", "festival", "vacation", "weekend", "anniversary",
	"graduation", "portrait", "landscape", "sunset", "sunrise", "flowers",
	"tree", "bird", "horse", "puppy", "grandma", "grandpa", "mom", "dad",
	"brother", "sister", "uncle", "aunt", "cousin", "neighbors", "spain",
	"italy", "greece", "alps", "lisbon",
};

/* Words of song titles */
static const char *const song_words[] = {
	"love", "night", "heart", "baby", "time", "blue", "dream", "fire",
	"rain", "sun", "moon", "star", "sky", "sea", "river", "dance", "home",
	"road", "world", "life", "light", "dark", "golden", "summer", "winter",
	"forever", "tonight", "yesterday", "tomorrow", "alone", "together",
	"lost", "wild", "free", "young", "heaven", "angel", "song", "girl",
	"boy", "crazy", "sweet", "little", "city", "lights", "rose", "gold",
	"silver", "stone", "storm", "wind", "shadow", "ocean", "paradise",
	"midnight", "morning", "sunday", "highway", "train", "letter",
	"memories", "kiss", "tears", "run", "fly", "fall", "rise", "shine",
	"burn", "goodbye", "hello", "again", "never", "always", "my", "your",
	"you", "me", "the", "of", "in", "on", "down", "up", "away", "over",
	"under", "blues", "intro", "outro", "interlude", "reprise", "remix",
	"live", "acoustic", "version",
};

/* Document nouns, for "<words> <noun> <year>" names */
static const char *const doc_nouns[] = {
	"report", "notes", "minutes", "summary", "proposal", "invoice",
	"letter", "budget", "plan", "agenda", "slides", "presentation", "draft",
	"contract", "manual", "guide", "cv", "resume", "thesis", "paper",
	"chapter", "schedule", "receipt", "statement", "form", "memo", "brief",
	"outline", "checklist", "timeline", "roadmap", "specs", "requirements",
	"quote", "estimate", "review", "analysis", "overview", "handout",
	"results",
};

/* Fragments of Windows binary names, for CamelCase like MsoUtil.dll */
static const char *const win_words[] = {
	"mso", "win", "ms", "sys", "shell", "core", "util", "mgr", "svc",
	"host", "ui", "res", "intl", "ext", "net", "web", "com", "ole", "gdi",
	"dx", "media", "audio", "print", "spool", "setup", "update", "sync",
	"search", "crypt", "cert", "auth", "policy", "reg", "task", "power",
	"device", "input", "font", "theme", "explorer", "office", "word",
	"excel", "outlook", "acro", "sql", "data", "client", "server", "agent",
	"launcher", "helper", "runtime", "engine", "plugin", "addin", "interop",
	"manager", "service", "provider", "loader", "native", "shared",
	"direct",
};

/* Short forms C programmers run together: strbuf, sockopt, blkdev */
static const char *const abbrevs[] = {
	"str", "buf", "mem", "ctx", "cfg", "fs", "io", "net", "sock", "dev",
	"blk", "ino", "dir", "msg", "pkt", "req", "res", "tbl", "vec", "arr",
	"obj", "ptr", "ref", "tmp", "num", "len", "idx", "ops", "priv", "hdr",
	"evt", "cb", "fn", "mgr", "svc", "usr", "sys", "proc", "crc", "md5",
	"sha1", "utf8", "x", "opt", "arg", "err", "util", "list",
};

/* User-interface asset words, for icons and sprites */
static const char *const ui_words[] = {
	"icon", "logo", "button", "btn", "arrow", "bg", "background", "banner",
	"header", "footer", "avatar", "thumb", "spinner", "loading", "close",
	"open", "search", "menu", "home", "back", "next", "prev", "play",
	"pause", "star", "check", "cross", "plus", "minus", "user", "folder",
	"file", "edit", "delete", "save", "share", "settings", "info",
	"warning", "error", "spacer", "dot", "bullet", "left", "right", "up",
	"down", "sprite",
};

static const char *const asset_suffixes[] = {
	"_16", "_32", "-48", "_64", "@2x", "_small", "_large", "-hover",
	"_active", "_disabled", "-white", "_dark", "_32x32", "-16x16", "_sm",
	"-on",
};

/* Well-known names of files without an extension, in their usual case */
static const char *const noext_known[] = {
	"README", "Makefile", "LICENSE", "COPYING", "AUTHORS", "ChangeLog",
	"CHANGELOG", "INSTALL", "NEWS", "TODO", "HACKING", "CONTRIBUTING",
	"THANKS", "NOTICE", "VERSION", "Dockerfile", "Vagrantfile", "Gemfile",
	"Rakefile", "Procfile", "Jenkinsfile", "Kconfig", "Kbuild", "HEAD",
	"ORIG_HEAD", "FETCH_HEAD", "COMMIT_EDITMSG", "MAINTAINERS", "CREDITS",
	"Makefile", "README", "LICENSE", "configure", "config", "description",
	"packed-refs", "index", "exclude", "hosts", "passwd", "group", "shadow",
	"fstab", "crontab", "profile", "environment", "hostname", "localtime",
	"services", "protocols", "magic", "modules",
};

/* Commands, as in /usr/bin */
static const char *const commands[] = {
	"ls", "cat", "cp", "mv", "rm", "bash", "sh", "grep", "sed", "awk",
	"find", "sort", "uniq", "tar", "gzip", "ssh", "scp", "curl", "wget",
	"git", "vim", "less", "more", "make", "gcc", "ld", "as", "python3",
	"perl", "ruby", "node", "java", "top", "ps", "kill", "mount", "umount",
	"chmod", "chown", "ln", "mkdir", "rmdir", "touch", "date", "env",
	"xargs", "head", "tail", "wc", "diff", "patch", "file", "du", "df",
	"free", "uname", "id", "who", "sudo", "su", "login", "ip", "ping", "ss",
	"systemctl", "journalctl", "dmesg", "lsblk", "fdisk", "dd", "rsync",
	"zip", "unzip", "xz", "bzip2", "cmake", "ninja", "pkg-config",
	"objdump", "strace", "gdb", "nm", "strip", "readelf", "tee", "tr",
	"cut", "paste", "join", "split", "e2fsck", "mke2fs", "tune2fs",
	"debugfs", "blkid", "lsof", "htop", "tmux", "screen", "zsh",
};

/* Directory names, lower case */
static const char *const dir_names[] = {
	"src", "lib", "include", "bin", "share", "doc", "docs", "man", "test",
	"tests", "build", "dist", "assets", "images", "img", "css", "js",
	"scripts", "tools", "util", "utils", "config", "conf", "etc", "var",
	"tmp", "cache", "data", "logs", "res", "resources", "static",
	"templates", "vendor", "node_modules", "third_party", "modules",
	"plugins", "drivers", "kernel", "arch", "net", "fs", "mm", "crypto",
	"firmware", "locale", "po", "icons", "themes", "fonts", "sounds",
	"media", "backup", "archive", "old", "misc", "private", "public",
	"shared", "home", "work", "projects", "local", "opt", "usr", "sbin",
	"boot", "srv", "mnt", "x86", "x86_64", "arm64", "amd64", "debug",
	"release", "obj", "out", "target", "pkg", "cmd", "internal", "api",
	"app", "apps", "web", "www", "html", "python", "perl", "java", "go",
	"site-packages", "__pycache__", "_build", "_static", "objects", "refs",
	"hooks", "info", "pack", "man1", "man3", "man8",
};

/* Directory names in their usual mixed or upper case */
static const char *const dir_names_cap[] = {
	"Photos", "Documents", "Desktop", "Downloads", "Music", "Videos",
	"Pictures", "Projects", "Backup", "Archive", "Work", "Personal",
	"Private", "Public", "Shared", "Templates", "Library", "Applications",
	"Users", "Movies", "Camera", "Screenshots", "Wallpapers", "Games",
	"Mail", "Notes", "Books", "School", "Taxes", "Invoices", "Receipts",
	"Scans", "DCIM", "CVS", "RCS", "Resources", "Fonts", "Include",
	"Source", "Debug", "Release", "Common", "System32", "AppData",
	"Roaming", "Microsoft", "Windows", "Temp",
};

/* Non-ASCII words: lower-case form and capitalised form */
struct uword {
	const char *lower;
	const char *cap;
};

static const struct uword utf8_words[] = {
	{ "résumé", "Résumé" }, { "übersicht", "Übersicht" },
	{ "café", "Café" }, { "naïve", "Naïve" }, { "日本語", "日本語" },
	{ "документ", "Документ" }, { "ελληνικά", "Ελληνικά" },
	{ "straße", "Straße" }, { "größe", "Größe" }, { "fête", "Fête" },
	{ "été", "Été" }, { "noël", "Noël" }, { "crème", "Crème" },
	{ "déjà", "Déjà" }, { "señal", "Señal" }, { "año", "Año" },
	{ "niño", "Niño" }, { "canción", "Canción" },
	{ "información", "Información" }, { "ação", "Ação" },
	{ "coração", "Coração" }, { "smörgås", "Smörgås" }, { "møde", "Møde" },
	{ "ærlig", "Ærlig" }, { "kraków", "Kraków" }, { "łódź", "Łódź" },
	{ "żółw", "Żółw" }, { "čeština", "Čeština" }, { "příloha", "Příloha" },
	{ "şehir", "Şehir" }, { "çalışma", "Çalışma" }, { "müller", "Müller" },
	{ "zürich", "Zürich" }, { "köln", "Köln" }, { "mañana", "Mañana" },
	{ "отчёт", "Отчёт" }, { "фото", "Фото" }, { "москва", "Москва" },
	{ "файлы", "Файлы" }, { "данные", "Данные" },
	{ "φωτογραφία", "Φωτογραφία" }, { "αρχεία", "Αρχεία" },
	{ "写真", "写真" }, { "資料", "資料" }, { "音楽", "音楽" },
	{ "文档", "文档" }, { "报告", "报告" }, { "사진", "사진" },
	{ "문서", "문서" }, { "تقرير", "تقرير" }, { "מסמך", "מסמך" },
	{ "दस्तावेज़", "दस्तावेज़" }, { "🎵", "🎵" }, { "piñata", "Piñata" },
	{ "jalapeño", "Jalapeño" },
};

struct vocab {
	const char *const *w;
	unsigned n;
};

#define VOCAB(a) { a, (unsigned)ARRAY_SIZE(a) }

static const struct vocab v_tech = VOCAB(tech_words);
static const struct vocab v_gen = VOCAB(gen_words);
static const struct vocab v_win = VOCAB(win_words);
static const struct vocab v_ui = VOCAB(ui_words);
static const struct vocab v_doc = VOCAB(doc_nouns);
static const struct vocab v_song = VOCAB(song_words);

/* ---- output buffer ----------------------------------------------------- */

/* A bounded writer; a piece that does not fit whole is dropped whole */
struct nb {
	char *p;
	size_t len;
	size_t cap;
};

static void nb_putc(struct nb *b, char ch)
{
	if (b->len < b->cap)
		b->p[b->len++] = ch;
}

static void nb_put(struct nb *b, const char *s)
{
	size_t n = strlen(s);

	if (b->len + n > b->cap)
		return;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

enum wcase { WC_LOWER, WC_CAP, WC_UPPER };

static void nb_word(struct nb *b, const char *w, enum wcase c)
{
	size_t n = strlen(w);

	if (b->len + n > b->cap)
		return;
	for (size_t i = 0; i < n; i++) {
		char ch = w[i];

		if ((c == WC_UPPER || (c == WC_CAP && i == 0)) && ch >= 'a' && ch <= 'z')
			ch = (char)(ch - 'a' + 'A');
		b->p[b->len++] = ch;
	}
}

/* Decimal, zero-padded to width */
static void nb_num(struct nb *b, uint64_t v, int width)
{
	char t[24];
	int n = 0;

	do {
		t[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width && n < (int)sizeof(t))
		t[n++] = '0';
	if (b->len + (size_t)n > b->cap)
		return;
	while (n)
		b->p[b->len++] = t[--n];
}

/* ---- draws ------------------------------------------------------------- */

struct draw {
	struct rng r;
	bool space;      /* the name must hold a space; else it holds none */
	bool utf8;       /* the name must hold a non-ASCII word; else none */
	bool upper;      /* the name must hold an ASCII capital; else none */
	bool utf8_todo;  /* no non-ASCII word written yet */
	bool noext;      /* a file without extension: no '.' in the stem */
	bool ext_upper;  /* the pattern wants the extension in capitals */
	bool tail_set;   /* the pattern wrote tail itself */
	char ext[EXT_MAX + 1];
	size_t ext_len;
	char tail[TAIL_MAX];
	size_t tail_len;
};

static unsigned below(struct draw *d, unsigned n)
{
	return (unsigned)rng_below(&d->r, n);
}

static bool chance(struct draw *d, unsigned pct)
{
	return below(d, 100) < pct;
}

static const char *pick(struct draw *d, const struct vocab *v)
{
	unsigned a = below(d, v->n), c = below(d, v->n);

	return v->w[a < c ? a : c];
}

static const char *pick_flat(struct draw *d, const char *const *list, unsigned n)
{
	return list[below(d, n)];
}

#define PICK_FLAT(d, a) pick_flat(d, a, (unsigned)ARRAY_SIZE(a))

static unsigned draw_year(struct draw *d)
{
	unsigned a = below(d, 28), c = below(d, 28);

	return 2025 - (a < c ? a : c);
}

struct when {
	unsigned y, mo, dd, h, mi, s;
};

static void draw_when(struct draw *d, struct when *t)
{
	uint64_t x = rng_next(&d->r);

	t->y = draw_year(d);
	t->mo = 1 + (unsigned)(x % 12);
	x /= 12;
	t->dd = 1 + (unsigned)(x % 28);
	x /= 28;
	t->h = (unsigned)(x % 24);
	x /= 24;
	t->mi = (unsigned)(x % 60);
	x /= 60;
	t->s = (unsigned)(x % 60);
}

/* 2021-05-14 (sep '-') or 20210514 (sep 0) */
static void nb_ymd(struct nb *b, const struct when *t, char sep)
{
	nb_num(b, t->y, 4);
	if (sep)
		nb_putc(b, sep);
	nb_num(b, t->mo, 2);
	if (sep)
		nb_putc(b, sep);
	nb_num(b, t->dd, 2);
}

/* 12.03.44, 12-03-44 or 120344 */
static void nb_hms(struct nb *b, const struct when *t, char sep)
{
	nb_num(b, t->h, 2);
	if (sep)
		nb_putc(b, sep);
	nb_num(b, t->mi, 2);
	if (sep)
		nb_putc(b, sep);
	nb_num(b, t->s, 2);
}

/* 1.2, 1.2.3, 0.31.4: majors small, as in real version numbers */
static void nb_version(struct nb *b, struct draw *d)
{
	unsigned a = below(d, 13), c = below(d, 13);

	nb_num(b, a < c ? a : c, 0);
	nb_putc(b, '.');
	nb_num(b, below(d, below(d, 40) + 1), 0);
	if (chance(d, 60)) {
		nb_putc(b, '.');
		nb_num(b, below(d, 20), 0);
	}
}

static void nb_hex(struct nb *b, struct draw *d, unsigned n, bool upper)
{
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	uint64_t bits = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!(i & 15))
			bits = rng_next(&d->r);
		nb_putc(b, dig[bits & 15]);
		bits >>= 4;
	}
}

/* Random token as mkstemp or Python's tempfile make them */
static void nb_token(struct nb *b, struct draw *d, unsigned n, bool mixed)
{
	static const char lower[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	static const char mix[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *set = mixed ? mix : lower;
	unsigned k = mixed ? sizeof(mix) - 1 : sizeof(lower) - 1;

	for (unsigned i = 0; i < n; i++)
		nb_putc(b, set[below(d, k)]);
}

/* ---- phrases ----------------------------------------------------------- */

enum pcase { PC_LOWER, PC_FIRST, PC_TITLE, PC_CAMEL, PC_UPPER };
enum sepstyle { SEP_MIX, SEP_SNAKE, SEP_KEBAB, SEP_JOIN };

struct pstyle {
	char sep;        /* between words; 0 runs them together */
	enum pcase pc;
};

/*
 * Separator and case of a phrase: a space when the name must hold one,
 * capitals only when it must hold them.
 */
static void choose_style(struct draw *d, enum sepstyle ss, struct pstyle *st)
{
	unsigned r = below(d, 100);

	if (d->space) {
		st->sep = ' ';
	} else {
		switch (ss) {
		case SEP_SNAKE:
			st->sep = r < 88 ? '_' : '-';
			break;
		case SEP_KEBAB:
			st->sep = r < 75 ? '-' : '_';
			break;
		case SEP_JOIN:
			st->sep = r < 80 ? 0 : '_';
			break;
		default:
			st->sep = r < 58 ? '_' : r < 92 ? '-' : r < 97 ? 0 : '.';
			break;
		}
		if (st->sep == '.' && d->noext)
			st->sep = '_';
	}
	st->pc = PC_LOWER;
	if (!d->upper)
		return;
	r = below(d, 100);
	if (d->space)
		st->pc = r < 55 ? PC_TITLE : PC_FIRST;
	else if (r < 40 || (st->sep == 0 && r < 90))
		st->pc = PC_CAMEL;
	else if (r < 75)
		st->pc = PC_FIRST;
	else if (r < 90)
		st->pc = PC_TITLE;
	else
		st->pc = PC_UPPER;
	if (st->pc == PC_CAMEL)
		st->sep = 0;
}

static enum wcase word_case(const struct pstyle *st, unsigned i)
{
	switch (st->pc) {
	case PC_FIRST:
		return i ? WC_LOWER : WC_CAP;
	case PC_TITLE:
	case PC_CAMEL:
		return WC_CAP;
	case PC_UPPER:
		return WC_UPPER;
	default:
		return WC_LOWER;
	}
}

/* Word i of a phrase, with its separator */
static void put_styled(struct nb *b, const struct pstyle *st, unsigned i,
		       const char *w)
{
	if (i && st->sep)
		nb_putc(b, st->sep);
	nb_word(b, w, word_case(st, i));
}

static void put_utf8_word(struct nb *b, struct draw *d, enum wcase c)
{
	const struct uword *u = &utf8_words[below(d, ARRAY_SIZE(utf8_words))];

	nb_put(b, c == WC_LOWER ? u->lower : u->cap);
	d->utf8_todo = false;
}

/*
 * Words first..first+n-1 of a phrase from v; one of them becomes a non-ASCII
 * word when the name still needs one.
 */
static void put_words(struct nb *b, struct draw *d, const struct vocab *v,
		      unsigned first, unsigned n, const struct pstyle *st)
{
	unsigned upos = d->utf8_todo ? first + below(d, n) : ~0u;
	/* a non-ASCII word is not run into lower-case ones: token_файлы */
	bool apart = !st->sep && st->pc != PC_CAMEL;
	const char *prev = NULL;

	for (unsigned i = first; i < first + n; i++) {
		if (i == upos) {
			if (i && (st->sep || apart))
				nb_putc(b, st->sep ? st->sep : '_');
			put_utf8_word(b, d, word_case(st, i));
		} else {
			const char *w = pick(d, v);

			/* "dog_dog" is a draw, not a name */
			if (w == prev)
				w = pick(d, v);
			prev = w;
			if (i && i == upos + 1 && apart)
				nb_putc(b, '_');
			put_styled(b, st, i, w);
		}
	}
}

/* Words in a name: 1 35%, 2 40%, 3 20%, 4 5% (stems of about 12 bytes) */
static unsigned draw_nwords(struct draw *d, unsigned lo, unsigned hi)
{
	static const unsigned char dist[20] = {
		1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 4,
	};
	unsigned n = dist[below(d, 20)];

	/* a space needs two words; so does a capital beside a non-ASCII word */
	if ((d->space || (d->utf8_todo && d->upper)) && lo < 2)
		lo = 2;
	if (hi < lo)
		hi = lo;
	return n < lo ? lo : n > hi ? hi : n;
}

/* A phrase of lo..hi words from v; returns its style for what follows */
static void phrase(struct nb *b, struct draw *d, const struct vocab *v,
		   unsigned lo, unsigned hi, enum sepstyle ss, struct pstyle *st)
{
	unsigned n = draw_nwords(d, lo, hi);

	choose_style(d, ss, st);
	put_words(b, d, v, 0, n, st);
}

/* Sometimes a number after a phrase: notes_2, Word64, trip 2019, draft-v3 */
static void maybe_number(struct nb *b, struct draw *d, const struct pstyle *st,
			 unsigned pct)
{
	unsigned r;

	if (!chance(d, pct))
		return;
	r = below(d, 10);
	if (st->sep)
		nb_putc(b, st->sep);
	else if (r >= 6 && r < 8)
		nb_putc(b, '_');
	switch (r) {
	case 0: case 1: case 2: case 3:
		nb_num(b, 1 + below(d, 9), 0);
		break;
	case 4: case 5:
		nb_num(b, 1 + below(d, 99), 2);
		break;
	case 6: case 7:
		nb_num(b, draw_year(d), 4);
		break;
	case 8:
		nb_putc(b, d->upper && st->pc != PC_LOWER && chance(d, 30) ? 'V' : 'v');
		nb_num(b, 1 + below(d, 4), 0);
		break;
	default:
		nb_num(b, below(d, 1000), 0);
		break;
	}
}

static void generic(struct nb *b, struct draw *d, const struct vocab *v,
		    enum sepstyle ss, unsigned num_pct)
{
	struct pstyle st;

	phrase(b, d, v, 1, 3, ss, &st);
	maybe_number(b, d, &st, num_pct);
}

/* Either vocabulary, half and half */
static const struct vocab *mixed_vocab(struct draw *d)
{
	return chance(d, 50) ? &v_tech : &v_gen;
}

static bool plain(const struct draw *d)
{
	return !d->space && !d->utf8_todo;
}

static void set_tail(struct draw *d, const char *s)
{
	size_t n = strlen(s);

	if (n >= sizeof(d->tail))
		n = sizeof(d->tail) - 1;
	memcpy(d->tail, s, n);
	d->tail_len = n;
	d->tail_set = true;
}

/* ---- patterns by type -------------------------------------------------- */

static void pat_photo(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	struct when t;

	/* camera names only rarely carry a space (a copy) or a non-ASCII word */
	if (d->utf8_todo || r >= 62 || (d->space && chance(d, 50))) {
		generic(b, d, &v_gen, SEP_MIX, 35);
		return;
	}
	d->ext_upper = r < 42 && chance(d, 70);
	draw_when(d, &t);
	if (r < 22) {
		nb_put(b, "IMG_");
		nb_num(b, 1 + below(d, 9999), 4);
	} else if (r < 28) {
		nb_put(b, "DSC");
		nb_num(b, below(d, 100000), 5);
	} else if (r < 32) {
		nb_put(b, chance(d, 50) ? "DSC_" : "DSCN");
		nb_num(b, below(d, 10000), 4);
	} else if (r < 35) {
		nb_putc(b, 'P');
		nb_num(b, 100 + below(d, 900), 3);
		nb_num(b, 1 + below(d, 9999), 4);
	} else if (r < 42) {
		nb_put(b, "PXL_");
		nb_ymd(b, &t, 0);
		nb_putc(b, '_');
		nb_hms(b, &t, 0);
		nb_num(b, below(d, 1000), 3);
	} else if (r < 50) {
		nb_put(b, "IMG_");
		nb_ymd(b, &t, 0);
		nb_putc(b, '_');
		nb_hms(b, &t, 0);
	} else if (r < 55) {
		nb_ymd(b, &t, 0);
		nb_putc(b, '_');
		nb_hms(b, &t, 0);
	} else if (r < 58) {
		if (d->space) {
			nb_put(b, "WhatsApp Image ");
			nb_ymd(b, &t, '-');
			nb_put(b, " at ");
			nb_hms(b, &t, '.');
		} else {
			nb_put(b, "IMG-");
			nb_ymd(b, &t, 0);
			nb_put(b, "-WA");
			nb_num(b, below(d, 10000), 4);
		}
	} else {
		nb_put(b, "Screenshot_");
		nb_ymd(b, &t, 0);
		nb_putc(b, '-');
		nb_hms(b, &t, 0);
	}
}

static void screenshot(struct nb *b, struct draw *d)
{
	struct when t;

	draw_when(d, &t);
	if (d->space) {
		if (chance(d, 60)) {
			nb_put(b, "Screenshot ");
			nb_ymd(b, &t, '-');
			nb_put(b, " at ");
			nb_hms(b, &t, '.');
		} else {
			nb_put(b, "Screenshot from ");
			nb_ymd(b, &t, '-');
			nb_putc(b, ' ');
			nb_hms(b, &t, '-');
		}
	} else {
		nb_put(b, chance(d, 50) ? "Screenshot_" : "screenshot_");
		nb_ymd(b, &t, 0);
		nb_putc(b, chance(d, 50) ? '-' : '_');
		nb_hms(b, &t, 0);
	}
}

static void pat_graphic(struct nb *b, struct draw *d, bool png)
{
	unsigned r = below(d, 100);
	struct pstyle st;

	if (!d->utf8_todo && r < (png ? 18u : 3u)) {
		screenshot(b, d);
	} else if (r < 60) {
		phrase(b, d, &v_ui, 1, 2, SEP_SNAKE, &st);
		if (chance(d, 50) && plain(d))
			nb_put(b, PICK_FLAT(d, asset_suffixes));
		else
			maybe_number(b, d, &st, 25);
	} else {
		generic(b, d, mixed_vocab(d), SEP_MIX, 30);
	}
}

static void pat_shlib(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	char t[48];
	struct nb tb = { t, 0, sizeof(t) - 1 };
	struct pstyle st;

	if (!plain(d) || r < 10) {
		/* plugins without the lib prefix: pam_unix.so */
		generic(b, d, &v_tech, SEP_SNAKE, 10);
		return;
	}
	if (r < 18) {
		/* a Python extension module */
		nb_putc(b, '_');
		nb_word(b, pick(d, &v_tech), WC_LOWER);
		nb_put(b, ".cpython-3");
		nb_num(b, 6 + below(d, 7), 0);
		nb_put(b, "-x86_64-linux-gnu");
		return;
	}
	nb_put(b, "lib");
	if (d->upper && chance(d, 40)) {
		/* libGL, libX11, libSDL2 */
		nb_word(b, PICK_FLAT(d, abbrevs), WC_UPPER);
		if (chance(d, 50))
			nb_num(b, 1 + below(d, 11), 0);
	} else {
		phrase(b, d, &v_tech, 1, 2, SEP_JOIN, &st);
		if (chance(d, 15)) {
			nb_putc(b, '-');
			nb_num(b, 1 + below(d, 4), 0);
		}
	}
	r = below(d, 100);
	nb_put(&tb, ".so");
	if (r < 40) {
		return;
	} else if (r < 85) {
		nb_putc(&tb, '.');
		nb_num(&tb, below(d, 13), 0);
		if (r >= 70) {
			nb_putc(&tb, '.');
			nb_num(&tb, below(d, 30), 0);
			nb_putc(&tb, '.');
			nb_num(&tb, below(d, 10), 0);
		}
	} else {
		/* libc-2.31.so */
		nb_putc(b, '-');
		nb_num(b, 1 + below(d, 3), 0);
		nb_putc(b, '.');
		nb_num(b, below(d, 40), 2);
	}
	t[tb.len] = '\0';
	set_tail(d, t);
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

static void pat_win(struct nb *b, struct draw *d, const char *lext)
{
	bool pch = !strcmp(lext, "pch");
	unsigned r = below(d, 100);
	struct pstyle st;

	if (!plain(d)) {
		generic(b, d, chance(d, 50) ? &v_win : &v_gen, SEP_MIX, 15);
		return;
	}
	if (pch && r < 60) {
		nb_put(b, r < 30 ? "stdafx" : r < 40 ? "StdAfx" : r < 50 ? "pch" : "precomp");
		return;
	}
	if (r < 20) {
		nb_put(b, PICK_FLAT(d, win_fixed));
	} else if (r < 25 && !d->upper && !strcmp(lext, "dll")) {
		nb_put(b, "api-ms-win-core-");
		nb_word(b, pick(d, &v_tech), WC_LOWER);
		nb_put(b, "-l1-");
		nb_num(b, 1 + below(d, 2), 0);
		nb_putc(b, '-');
		nb_num(b, below(d, 3), 0);
	} else if (r < 80) {
		/* CamelCase: MsoUtil, ShellHost64 (lower-cased when no capitals) */
		const char *prev = pick(d, &v_win);

		nb_word(b, prev, WC_CAP);
		for (unsigned i = chance(d, 75) ? 1 : 2; i; i--) {
			const char *w = pick(d, chance(d, 50) ? &v_win : &v_tech);

			if (strcmp(w, prev))
				nb_word(b, w, WC_CAP);
			prev = w;
		}
		if (chance(d, 20))
			nb_put(b, PICK_FLAT(d, win_suffixes));
	} else {
		st.sep = 0;
		st.pc = d->upper ? PC_UPPER : PC_LOWER;
		put_styled(b, &st, 0, pick(d, &v_win));
		put_styled(b, &st, 1, pick(d, &v_tech));
		if (chance(d, 30))
			nb_put(b, "32");
	}
}

enum lang { LANG_C, LANG_PY, LANG_JS, LANG_GO, LANG_RS, LANG_OTHER };

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

static void pat_code(struct nb *b, struct draw *d, enum lang lang)
{
	unsigned r = below(d, 100);
	struct pstyle st;

	if (!plain(d) || d->upper) {
		/* BufferPool.cpp, Ring_buffer.h, or words with spaces */
		phrase(b, d, &v_tech, 1, 3, lang == LANG_JS ? SEP_KEBAB : SEP_SNAKE, &st);
		maybe_number(b, d, &st, 8);
		return;
	}
	if (r < 14) {
		switch (lang) {
		case LANG_PY:
			nb_put(b, PICK_FLAT(d, py_fixed));
			break;
		case LANG_JS:
			nb_put(b, PICK_FLAT(d, js_fixed));
			break;
		case LANG_GO:
			nb_put(b, r < 5 ? "main" : r < 8 ? "doc" : PICK_FLAT(d, code_fixed));
			break;
		case LANG_RS:
			nb_put(b, r < 5 ? "mod" : r < 8 ? "lib" : r < 10 ? "main" : "build");
			break;
		default:
			nb_put(b, PICK_FLAT(d, code_fixed));
			break;
		}
	} else if (r < 60) {
		phrase(b, d, &v_tech, 1, 3, lang == LANG_JS ? SEP_KEBAB : SEP_SNAKE, &st);
		maybe_number(b, d, &st, 8);
	} else if (r < 80 && lang != LANG_JS && lang != LANG_PY) {
		/* strbuf, sockopt, xmalloc */
		nb_word(b, PICK_FLAT(d, abbrevs), WC_LOWER);
		nb_word(b, chance(d, 60) ? PICK_FLAT(d, abbrevs) : pick(d, &v_tech), WC_LOWER);
	} else if (r < 90) {
		if (lang == LANG_GO || lang == LANG_RS || chance(d, 40)) {
			nb_word(b, pick(d, &v_tech), WC_LOWER);
			nb_put(b, chance(d, 70) ? "_test" : "_impl");
		} else {
			nb_put(b, "test_");
			nb_word(b, pick(d, &v_tech), WC_LOWER);
		}
	} else if (lang == LANG_JS) {
		nb_word(b, pick(d, &v_tech), WC_LOWER);
		nb_put(b, chance(d, 50) ? ".min" : chance(d, 50) ? ".test" : ".spec");
	} else {
		/* sha256, base64, ext4 */
		nb_word(b, PICK_FLAT(d, abbrevs), WC_LOWER);
		nb_num(b, 1 + below(d, 256), 0);
	}
}

static const char *const oo_roles[] = {
	"Factory", "Manager", "Service", "Impl", "Test", "Utils", "Handler",
	"Builder", "Exception", "Controller", "Provider", "Adapter", "Helper",
	"Config", "Listener", "Visitor", "Parser", "Writer", "Reader",
	"Activity", "View", "Model", "Repository",
};

static void pat_oo(struct nb *b, struct draw *d, bool cls, bool cs)
{
	struct pstyle st;

	if (!plain(d) || !d->upper) {
		/* without capitals the class name runs together: httpclient */
		if (plain(d) && chance(d, 8)) {
			nb_put(b, chance(d, 50) ? "package-info" : "module-info");
			return;
		}
		phrase(b, d, &v_tech, 1, 3, SEP_JOIN, &st);
		return;
	}
	if (cs && chance(d, 8))
		nb_putc(b, 'I');
	for (unsigned i = draw_nwords(d, 1, 3); i; i--)
		nb_word(b, pick(d, &v_tech), WC_CAP);
	if (chance(d, 45))
		nb_put(b, PICK_FLAT(d, oo_roles));
	if (cls && chance(d, 15)) {
		nb_putc(b, '$');
		if (chance(d, 50))
			nb_num(b, 1 + below(d, 5), 0);
		else
			nb_word(b, pick(d, &v_tech), WC_CAP);
	}
}

static const char *const inner_exts[] = {
	"c", "txt", "conf", "h", "py", "cfg", "doc", "ini", "json", "xml",
	"html", "js",
};

static void pat_temp(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	struct pstyle st;

	if (!plain(d) || r >= 85) {
		phrase(b, d, mixed_vocab(d), 1, 2, SEP_SNAKE, &st);
		if (plain(d) || chance(d, 50)) {
			if (st.sep)
				nb_putc(b, st.sep);
			nb_word(b, chance(d, 50) ? "old" : "backup", word_case(&st, 1));
		}
	} else if (r < 25) {
		nb_hex(b, d, 8 + 2 * below(d, 5), d->upper);
	} else if (r < 45) {
		nb_put(b, "tmp");
		nb_token(b, d, 6 + below(d, 5), d->upper);
	} else {
		/* main.c.bak, config.ini.old */
		phrase(b, d, &v_tech, 1, 2, SEP_SNAKE, &st);
		nb_putc(b, '.');
		nb_put(b, PICK_FLAT(d, inner_exts));
	}
}

static const char *const sound_words[] = {
	"click", "beep", "notify", "alarm", "ding", "chimes", "tada", "chord",
	"error", "startup", "shutdown", "ringtone", "voice", "sample", "kick",
	"snare",
};

static void pat_audio(struct nb *b, struct draw *d, bool wav)
{
	unsigned r = below(d, 100);
	struct pstyle st;

	if (wav && r < 40 && plain(d)) {
		nb_word(b, PICK_FLAT(d, sound_words), d->upper ? WC_CAP : WC_LOWER);
		if (chance(d, 50)) {
			nb_putc(b, chance(d, 60) ? '_' : '-');
			nb_num(b, 1 + below(d, 20), 2);
		}
		return;
	}
	r = below(d, 100);
	if (r < 55) {
		/* 03 - Blue Morning */
		nb_num(b, 1 + below(d, below(d, 20) + 1), 2);
		if (d->space)
			nb_put(b, chance(d, 70) ? " - " : " ");
		else
			nb_putc(b, chance(d, 60) ? '_' : '-');
		phrase(b, d, &v_song, 1, 4, SEP_SNAKE, &st);
	} else if (r < 70) {
		/* Artist - Title */
		phrase(b, d, &v_gen, 1, 2, SEP_SNAKE, &st);
		nb_put(b, d->space ? " - " : "-");
		put_words(b, d, &v_song, 0, draw_nwords(d, 1, 3), &st);
	} else if (r < 80 && plain(d)) {
		nb_word(b, chance(d, 50) ? "track" : "audio", d->upper ? WC_CAP : WC_LOWER);
		if (chance(d, 50))
			nb_putc(b, '_');
		nb_num(b, 1 + below(d, 30), 2);
	} else {
		generic(b, d, &v_song, SEP_MIX, 30);
	}
}

static void pat_video(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	struct when t;
	struct pstyle st;

	if (!plain(d) || r >= 44) {
		if (plain(d) && r >= 84) {
			nb_word(b, chance(d, 50) ? "clip" : chance(d, 50) ? "video" : "movie",
				d->upper ? WC_CAP : WC_LOWER);
			if (chance(d, 50))
				nb_putc(b, '_');
			nb_num(b, 1 + below(d, 40), 2);
			return;
		}
		phrase(b, d, &v_gen, 1, 3, SEP_MIX, &st);
		if (chance(d, 40)) {
			if (d->space) {
				nb_put(b, " (");
				nb_num(b, draw_year(d), 4);
				nb_putc(b, ')');
			} else {
				nb_putc(b, st.sep ? st.sep : '_');
				nb_num(b, draw_year(d), 4);
			}
		}
		return;
	}
	d->ext_upper = chance(d, 60);
	if (r < 18) {
		draw_when(d, &t);
		nb_put(b, "VID_");
		nb_ymd(b, &t, 0);
		nb_putc(b, '_');
		nb_hms(b, &t, 0);
	} else if (r < 26) {
		nb_put(b, "MVI_");
		nb_num(b, below(d, 10000), 4);
	} else if (r < 31) {
		nb_put(b, "MOV_");
		nb_num(b, below(d, 10000), 4);
	} else if (r < 36) {
		nb_put(b, chance(d, 50) ? "GOPR" : "GH01");
		nb_num(b, below(d, 10000), 4);
	} else if (r < 40) {
		nb_put(b, "DJI_");
		nb_num(b, below(d, 10000), 4);
	} else {
		nb_put(b, "VTS_0");
		nb_num(b, 1 + below(d, 9), 0);
		nb_putc(b, '_');
		nb_num(b, below(d, 10), 0);
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

static void pat_doc(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	struct pstyle st;
	struct when t;

	if (r < 30) {
		/* Holiday budget 2019 */
		choose_style(d, SEP_MIX, &st);
		if (st.sep == 0 && st.pc == PC_LOWER)
			st.sep = '_';
		put_words(b, d, &v_gen, 0, draw_nwords(d, 1, 2), &st);
		put_styled(b, &st, 2, pick(d, &v_doc));
		if (chance(d, 40)) {
			if (st.sep)
				nb_putc(b, st.sep);
			nb_num(b, draw_year(d), 4);
		}
	} else if (r < 42) {
		/* 2021-03-04 minutes */
		draw_when(d, &t);
		nb_ymd(b, &t, chance(d, 70) ? '-' : 0);
		choose_style(d, SEP_SNAKE, &st);
		if (!st.sep)
			nb_putc(b, '_');
		if (chance(d, 60))
			put_styled(b, &st, 1, pick(d, &v_doc));
		else
			put_words(b, d, &v_gen, 1, draw_nwords(d, 1, 2), &st);
	} else if (r < 52 && plain(d)) {
		/* invoice_12345, Invoice-2021-0042 */
		nb_word(b, PICK_FLAT(d, numbered_docs), d->upper ? WC_CAP : WC_LOWER);
		nb_putc(b, chance(d, 60) ? '_' : '-');
		if (chance(d, 40)) {
			nb_num(b, draw_year(d), 4);
			nb_putc(b, '-');
			nb_num(b, below(d, 1000), 4);
		} else {
			nb_num(b, below(d, 1000000), 0);
		}
	} else if (r < 65) {
		phrase(b, d, &v_doc, 1, 1, SEP_SNAKE, &st);
		if (chance(d, 40)) {
			nb_putc(b, st.sep ? st.sep : '_');
			nb_word(b, PICK_FLAT(d, doc_versions), WC_LOWER);
		}
	} else {
		generic(b, d, &v_gen, SEP_MIX, 25);
	}
}

static const char *const text_fixed[] = {
	"notes", "todo", "readme", "README", "changelog", "CHANGES", "LICENSE",
	"install", "output", "results", "list", "urls", "links", "keys",
	"hosts", "requirements", "CMakeLists", "robots", "license", "copying",
	"credits", "version", "words", "data", "input", "log", "INSTALL",
	"index", "CONTRIBUTING", "HISTORY",
};

static void pat_text(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);

	if (r < 25 && plain(d))
		nb_put(b, PICK_FLAT(d, text_fixed));
	else if (r < 65)
		pat_doc(b, d);
	else
		generic(b, d, mixed_vocab(d), SEP_MIX, 20);
}

static const char *const web_fixed[] = {
	"index", "index", "default", "home", "main", "about", "contact",
	"search", "login", "404", "style", "styles", "print", "reset",
	"bootstrap", "layout",
};

static void pat_web(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	struct pstyle st;

	if (r < 15 && plain(d)) {
		nb_put(b, PICK_FLAT(d, web_fixed));
	} else if (r < 25 && plain(d)) {
		if (chance(d, 50))
			nb_put(b, chance(d, 50) ? "page" : "article_");
		nb_num(b, below(d, 10000000), 0);
	} else {
		phrase(b, d, mixed_vocab(d), 1, 3, SEP_KEBAB, &st);
		maybe_number(b, d, &st, 15);
		if (plain(d) && chance(d, 8))
			nb_put(b, ".min");
	}
}

static const char *const cfg_fixed[] = {
	"config", "settings", "desktop", "default", "app", "local", "user",
	"system", "package", "tsconfig", "docker-compose", "manifest",
	"database", "server", "client", "logging", "options", "preferences",
	"Info", "php", "my", "boot", "win", "setup", "autorun", "sources",
	"services", "schema", "defaults", "env",
};

static const char *const log_fixed[] = {
	"error", "access", "debug", "install", "setup", "system", "messages",
	"syslog", "kern", "auth", "daemon", "build", "test", "output", "server",
	"application", "WindowsUpdate", "setupapi", "Xorg", "dpkg", "boot",
	"cron", "mail", "update",
};

static void pat_fixed_or_words(struct nb *b, struct draw *d,
			       const char *const *fixed, unsigned nfixed, bool dated)
{
	unsigned r = below(d, 100);
	struct pstyle st;
	struct when t;

	if (r < 35 && plain(d)) {
		nb_put(b, pick_flat(d, fixed, nfixed));
	} else if (dated && r < 70) {
		phrase(b, d, &v_tech, 1, 2, SEP_SNAKE, &st);
		draw_when(d, &t);
		nb_putc(b, st.sep ? st.sep : '_');
		nb_ymd(b, &t, chance(d, 50) ? '-' : 0);
	} else {
		generic(b, d, &v_tech, SEP_KEBAB, 10);
	}
}

static const char *const font_styles[] = {
	"Regular", "Bold", "Italic", "BoldItalic", "Light", "Medium",
	"SemiBold", "Black", "Thin", "Condensed", "Oblique", "ExtraLight",
};

static const char *const font_families[] = {
	"Sans", "Serif", "Mono", "Display", "Text", "Grotesk", "Gothic", "Book",
};

static void pat_font(struct nb *b, struct draw *d)
{
	struct pstyle st;

	if (!plain(d)) {
		generic(b, d, &v_gen, SEP_MIX, 10);
		return;
	}
	/* DejaVuSans-Bold, NotoSerif-Regular; lower-cased without capitals */
	nb_word(b, pick(d, chance(d, 50) ? &v_gen : &v_tech), WC_CAP);
	if (chance(d, 70))
		nb_put(b, PICK_FLAT(d, font_families));
	if (chance(d, 70)) {
		nb_putc(b, '-');
		nb_put(b, PICK_FLAT(d, font_styles));
	} else if (chance(d, 30)) {
		st.sep = 0;
		st.pc = PC_LOWER;
		maybe_number(b, d, &st, 100);
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

	phrase(b, d, &v_tech, 1, 2, SEP_KEBAB, &st);
	nb_putc(b, '-');
	nb_version(b, d);
}

static void pat_archive(struct nb *b, struct draw *d, const char *lext)
{
	unsigned r = below(d, 100);
	struct pstyle st;
	struct when t;

	if (!plain(d) || r >= 60) {
		generic(b, d, mixed_vocab(d), SEP_MIX, 25);
	} else if (!strcmp(lext, "deb")) {
		tarball(b, d);
		nb_putc(b, '-');
		nb_num(b, 1 + below(d, 3), 0);
		nb_putc(b, '_');
		nb_put(b, PICK_FLAT(d, arches));
	} else if (!strcmp(lext, "rpm")) {
		tarball(b, d);
		nb_putc(b, '-');
		nb_num(b, 1 + below(d, 3), 0);
		nb_put(b, chance(d, 50) ? ".el8." : ".fc38.");
		nb_put(b, chance(d, 70) ? "x86_64" : "noarch");
	} else if (!strcmp(lext, "whl")) {
		tarball(b, d);
		nb_put(b, "-py3-none-any");
	} else if (r < 35) {
		tarball(b, d);
	} else if (r < 50) {
		phrase(b, d, &v_gen, 1, 1, SEP_SNAKE, &st);
		nb_put(b, d->upper && st.pc != PC_LOWER ? "_Backup_" : "_backup_");
		draw_when(d, &t);
		nb_ymd(b, &t, chance(d, 50) ? '-' : 0);
	} else {
		nb_word(b, chance(d, 50) ? "archive" : chance(d, 50) ? "export" : "files",
			d->upper ? WC_CAP : WC_LOWER);
		if (chance(d, 50)) {
			nb_putc(b, chance(d, 50) ? '_' : '-');
			nb_num(b, 1 + below(d, 20), 0);
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

static void pat_compress(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);

	if (!plain(d) || r >= 90) {
		generic(b, d, mixed_vocab(d), SEP_MIX, 20);
	} else if (r < 45) {
		tarball(b, d);
		nb_put(b, ".tar");
	} else if (r < 60) {
		/* logrotate: syslog.2.gz, access.log.4.gz */
		nb_put(b, PICK_FLAT(d, log_words));
		if (chance(d, 40))
			nb_put(b, ".log");
		nb_putc(b, '.');
		nb_num(b, 1 + below(d, 9), 0);
	} else if (r < 80) {
		generic(b, d, &v_tech, SEP_SNAKE, 20);
		nb_putc(b, '.');
		nb_put(b, PICK_FLAT(d, inner_data));
	} else {
		/* man pages: ls.1.gz */
		nb_put(b, PICK_FLAT(d, man_cmds));
		nb_putc(b, '.');
		nb_num(b, r < 85 ? 1 : r < 88 ? 3 : 8, 0);
	}
}

static void pat_object(struct nb *b, struct draw *d, const char *lext)
{
	struct pstyle st;

	if (plain(d) && (!strcmp(lext, "pyc") || !strcmp(lext, "pyo")) && chance(d, 60)) {
		phrase(b, d, &v_tech, 1, 2, SEP_SNAKE, &st);
		nb_put(b, ".cpython-3");
		nb_num(b, 6 + below(d, 7), 0);
		if (chance(d, 10))
			nb_put(b, ".opt-1");
	} else if (plain(d) && (!strcmp(lext, "a") || !strcmp(lext, "la")) && chance(d, 60)) {
		nb_put(b, "lib");
		phrase(b, d, &v_tech, 1, 2, SEP_JOIN, &st);
	} else if (!strcmp(lext, "ko")) {
		phrase(b, d, &v_tech, 1, 3, chance(d, 70) ? SEP_SNAKE : SEP_KEBAB, &st);
		maybe_number(b, d, &st, 10);
	} else {
		pat_code(b, d, LANG_C);
	}
}

static const char *const disk_words[] = {
	"disk", "disk0", "disk1", "hdd", "drive_c", "sda1", "boot", "rootfs",
	"system", "data", "swap", "efi", "recovery", "backup",
};

static void pat_disk(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);

	if (!plain(d) || r >= 75) {
		generic(b, d, mixed_vocab(d), SEP_MIX, 30);
	} else if (r < 35) {
		/* ubuntu-20.04-desktop-amd64 */
		nb_put(b, PICK_FLAT(d, distros));
		nb_putc(b, '-');
		nb_num(b, 2 + below(d, 38), 0);
		nb_putc(b, '.');
		nb_num(b, below(d, 12), 2);
		nb_putc(b, '-');
		nb_put(b, chance(d, 50) ? "desktop" : chance(d, 50) ? "server" : "live");
		nb_putc(b, '-');
		nb_put(b, PICK_FLAT(d, arches));
	} else if (r < 60) {
		nb_put(b, PICK_FLAT(d, disk_words));
	} else {
		nb_put(b, chance(d, 50) ? "win" : "vm-");
		nb_num(b, 7 + below(d, 5), 0);
		nb_put(b, chance(d, 50) ? "-x64" : "");
	}
}

static void pat_noext(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	struct pstyle st;

	if (!plain(d)) {
		generic(b, d, mixed_vocab(d), SEP_MIX, 10);
		return;
	}
	if (d->upper) {
		/* README, Makefile, or CamelCase words */
		if (r < 40)
			nb_put(b, noext_known[below(d, 32)]);
		else
			generic(b, d, mixed_vocab(d), SEP_MIX, 15);
		return;
	}
	if (r < 16) {
		nb_put(b, PICK_FLAT(d, noext_known));
	} else if (r < 34) {
		nb_put(b, PICK_FLAT(d, commands));
	} else if (r < 48) {
		/* git loose objects (38), SHA-1 (40), MD5 (32), SHA-256 (64) */
		r = below(d, 20);
		nb_hex(b, d, r < 10 ? 38 : r < 15 ? 40 : r < 18 ? 32 : 64, false);
	} else if (r < 56) {
		/* mail spool, MH folders */
		nb_num(b, 1 + below(d, 1 + below(d, 99999)), 0);
	} else if (r < 82) {
		generic(b, d, mixed_vocab(d), SEP_MIX, 10);
	} else if (r < 92) {
		phrase(b, d, &v_tech, 1, 1, SEP_SNAKE, &st);
		nb_putc(b, chance(d, 50) ? '_' : '-');
		nb_num(b, below(d, 100000), 0);
	} else if (chance(d, 50)) {
		nb_put(b, "tmp");
		nb_token(b, d, 8, false);
	} else {
		/* PHP session files */
		nb_put(b, "sess_");
		nb_token(b, d, 26, false);
	}
}

static void pat_dir(struct nb *b, struct draw *d)
{
	unsigned r = below(d, 100);
	struct when t;

	if (!plain(d)) {
		/* "New folder", "Program Files", "Old Photos 2019" */
		generic(b, d, chance(d, 60) ? &v_gen : &v_tech, SEP_MIX, 15);
		return;
	}
	if (d->upper) {
		if (r < 40) {
			nb_put(b, PICK_FLAT(d, dir_names_cap));
		} else if (r < 75) {
			generic(b, d, chance(d, 60) ? &v_gen : &v_tech, SEP_MIX, 10);
		} else if (r < 90) {
			nb_word(b, pick(d, &v_gen), WC_CAP);
			nb_putc(b, chance(d, 50) ? '_' : '-');
			nb_num(b, chance(d, 50) ? draw_year(d) : 1 + below(d, 9), 0);
		} else {
			nb_word(b, pick(d, chance(d, 50) ? &v_gen : &v_tech), WC_UPPER);
		}
		return;
	}
	if (r < 40) {
		nb_put(b, PICK_FLAT(d, dir_names));
	} else if (r < 62) {
		generic(b, d, mixed_vocab(d), SEP_MIX, 10);
	} else if (r < 70) {
		draw_when(d, &t);
		if (chance(d, 70))
			nb_num(b, t.y, 4);
		else
			nb_ymd(b, &t, '-');
	} else if (r < 78) {
		if (chance(d, 40)) {
			nb_putc(b, 'v');
			nb_version(b, d);
		} else {
			tarball(b, d);
		}
	} else if (r < 85) {
		/* git object fan-out */
		nb_hex(b, d, 2, false);
	} else if (r < 89) {
		nb_num(b, below(d, 100000), chance(d, 30) ? 6 : 0);
	} else {
		/* conf.d, init.d, cron.daily */
		r = below(d, 100);
		if (r < 8) {
			nb_put(b, r < 4 ? "cron.daily" : "cron.weekly");
		} else {
			nb_word(b, pick(d, &v_tech), WC_LOWER);
			nb_put(b, r < 80 ? ".d" : ".old");
		}
	}
}

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
		pat_dir(b, d);
		return;
	}
	if (!d->ext_len) {
		pat_noext(b, d);
		return;
	}
	if (d->ext_len >= sizeof(lext)) {
		generic(b, d, mixed_vocab(d), SEP_MIX, 20);
		return;
	}
	for (i = 0; i < d->ext_len; i++) {
		char ch = d->ext[i];

		lext[i] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
	}
	lext[i] = '\0';
	switch (classify(lext)) {
	case CL_PHOTO:
		pat_photo(b, d);
		break;
	case CL_PNG:
		pat_graphic(b, d, true);
		break;
	case CL_GRAPHIC:
		pat_graphic(b, d, false);
		break;
	case CL_SHLIB:
		pat_shlib(b, d);
		break;
	case CL_WIN:
	case CL_PCH:
		pat_win(b, d, lext);
		break;
	case CL_C:
		pat_code(b, d, LANG_C);
		break;
	case CL_PY:
		pat_code(b, d, LANG_PY);
		break;
	case CL_JS:
		pat_code(b, d, LANG_JS);
		break;
	case CL_GO:
		pat_code(b, d, LANG_GO);
		break;
	case CL_RS:
		pat_code(b, d, LANG_RS);
		break;
	case CL_SCRIPT:
		pat_code(b, d, LANG_OTHER);
		break;
	case CL_JAVA:
		pat_oo(b, d, false, false);
		break;
	case CL_CLASS:
		pat_oo(b, d, true, false);
		break;
	case CL_CS:
		pat_oo(b, d, false, true);
		break;
	case CL_TEMP:
		pat_temp(b, d);
		break;
	case CL_AUDIO:
		pat_audio(b, d, false);
		break;
	case CL_WAV:
		pat_audio(b, d, true);
		break;
	case CL_VIDEO:
		pat_video(b, d);
		break;
	case CL_DOC:
		pat_doc(b, d);
		break;
	case CL_TEXT:
		pat_text(b, d);
		break;
	case CL_WEB:
		pat_web(b, d);
		break;
	case CL_CFG:
		pat_fixed_or_words(b, d, cfg_fixed, ARRAY_SIZE(cfg_fixed), false);
		break;
	case CL_LOG:
		pat_fixed_or_words(b, d, log_fixed, ARRAY_SIZE(log_fixed), true);
		break;
	case CL_FONT:
		pat_font(b, d);
		break;
	case CL_ARCHIVE:
		pat_archive(b, d, lext);
		break;
	case CL_COMPRESS:
		pat_compress(b, d);
		break;
	case CL_OBJECT:
		pat_object(b, d, lext);
		break;
	case CL_DISK:
		pat_disk(b, d);
		break;
	default:
		generic(b, d, mixed_vocab(d), SEP_MIX, 20);
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
		nb_put(b, "file");
	for (size_t i = 0; i < b->len; i++) {
		char ch = b->p[i];

		if (!d->upper && ch >= 'A' && ch <= 'Z')
			b->p[i] = (char)(ch - 'A' + 'a');
		else if ((!d->space && ch == ' ') || (d->noext && ch == '.'))
			b->p[i] = '_';
	}
	if (d->utf8 && !has_high(b->p, b->len)) {
		nb_putc(b, d->space ? ' ' : '_');
		put_utf8_word(b, d, d->upper ? WC_CAP : WC_LOWER);
	}
	if (d->space && !has_byte(b->p, b->len, ' ')) {
		const char *m = PICK_FLAT(d, copy_marks);

		nb_put(b, !d->upper && m[3] == 'C' ? " - copy" : m);
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

			nb_word(&wb, pick(d, &v_gen), WC_CAP);
			nb_putc(&wb, d->space ? ' ' : '_');
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

	nb_putc(&b, kind == NAME_DIR ? 'd' : kind == NAME_LINK ? 'l' : 'f');
	nb_num(&b, id, 0);
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
		nb_putc(&b, d.space ? ' ' : chance(&d, 70) ? '_' : '-');
		nb_num(&b, 2 + below(&d, 98), 0);
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
	sufl = unique ? put_unique(suf, kind, id) : 0;
	return assemble(buf, b.len, suf, sufl, d.tail, d.tail_len);
}
