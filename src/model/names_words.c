/* names_words.c - the word lists realistic names are drawn from */
#include "model/names_int.h"

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
const char *const abbrevs[] = {
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

const char *const asset_suffixes[] = {
	"_16", "_32", "-48", "_64", "@2x", "_small", "_large", "-hover",
	"_active", "_disabled", "-white", "_dark", "_32x32", "-16x16", "_sm",
	"-on",
};

/* Well-known names of files without an extension, in their usual case */
const char *const noext_known[] = {
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
const char *const commands[] = {
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
const char *const dir_names[] = {
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
const char *const dir_names_cap[] = {
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
const struct uword utf8_words[] = {
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

const struct vocab v_tech = VOCAB(tech_words);
const struct vocab v_gen = VOCAB(gen_words);
const struct vocab v_win = VOCAB(win_words);
const struct vocab v_ui = VOCAB(ui_words);
const struct vocab v_doc = VOCAB(doc_nouns);
const struct vocab v_song = VOCAB(song_words);
