/* plan_xattr.c - extended attributes of a plan's entries: SELinux labels and user.* attributes */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <gsl/gsl_cdf.h>

#include "plan/plan_int.h"

/*
 * SELinux types in the style of the targeted policy's file_contexts
 * (doc/model.md, "Extended attributes"): a directory whose name says what
 * it holds has that type, any other takes its parent's (as a new file
 * takes its directory's type); a file's extension can say more.
 */
enum sectype {
	ST_ROOT, ST_HOME, ST_BIN, ST_LIB, ST_ETC, ST_LOG, ST_TMP, ST_RUN, ST_USR, ST_WWW,
	ST_SSH, ST_CACHE, ST_NULLDEV, ST_RANDDEV, ST_TTYDEV, ST_DISKDEV, ST_DEVICE,
	ST_TYPES
};

static const char *const sectype_name[ST_TYPES] = {
	[ST_ROOT] = "root_t", [ST_HOME] = "user_home_t", [ST_BIN] = "bin_t",
	[ST_LIB] = "lib_t", [ST_ETC] = "etc_t", [ST_LOG] = "var_log_t", [ST_TMP] = "tmp_t",
	[ST_RUN] = "var_run_t", [ST_USR] = "usr_t", [ST_WWW] = "httpd_sys_content_t",
	[ST_SSH] = "ssh_home_t", [ST_CACHE] = "cache_home_t",
	[ST_NULLDEV] = "null_device_t", [ST_RANDDEV] = "random_device_t",
	[ST_TTYDEV] = "tty_device_t", [ST_DISKDEV] = "fixed_disk_device_t",
	[ST_DEVICE] = "device_t",
};

struct secrule {
	const char *word;
	uint8_t type;
};

/* directory names (case-insensitive) */
static const struct secrule dir_rules[] = {
	{ "bin", ST_BIN },     { "sbin", ST_BIN },    { "lib", ST_LIB },   { "lib64", ST_LIB },
	{ "lib32", ST_LIB },   { "etc", ST_ETC },     { "config", ST_ETC }, { ".config", ST_ETC },
	{ "conf", ST_ETC },    { "log", ST_LOG },     { "logs", ST_LOG },  { "tmp", ST_TMP },
	{ "temp", ST_TMP },    { "run", ST_RUN },     { "cache", ST_CACHE }, { ".cache", ST_CACHE },
	{ "share", ST_USR },   { "include", ST_USR }, { "src", ST_USR },   { "doc", ST_USR },
	{ "www", ST_WWW },     { "html", ST_WWW },    { "public_html", ST_WWW },
	{ ".ssh", ST_SSH },
};

/* file extensions */
static const struct secrule ext_rules[] = {
	{ "so", ST_LIB },  { "a", ST_LIB },    { "exe", ST_BIN },  { "bin", ST_BIN },
	{ "sh", ST_BIN },  { "run", ST_BIN },  { "log", ST_LOG },  { "conf", ST_ETC },
	{ "cfg", ST_ETC }, { "ini", ST_ETC },  { "pid", ST_RUN },  { "lock", ST_RUN },
	{ "tmp", ST_TMP }, { "html", ST_WWW }, { "htm", ST_WWW },  { "css", ST_WWW },
	{ "php", ST_WWW },
};

static int rule_find(const struct secrule *r, size_t n, const char *word, uint8_t *type)
{
	for (size_t i = 0; i < n; i++)
		if (!strcasecmp(r[i].word, word)) {
			*type = r[i].type;
			return 1;
		}
	return 0;
}

int plan_xattr_prepare(struct plan *pl)
{
	char name[NAME_MAX_LEN + 1];

	if (pl->prm.xattr_selinux == SELINUX_NONE || pl->ndirs == 0)
		return 0;
	pl->dir_sectype = plan_xalloc(pl->ndirs, 1);
	if (!pl->dir_sectype)
		return -ENOMEM;
	pl->dir_sectype[0] = ST_ROOT;
	/* parents come before children */
	for (uint32_t j = 1; j < pl->ndirs; j++) {
		uint8_t t = pl->dir_parent[j] ? pl->dir_sectype[pl->dir_parent[j]] : ST_HOME;

		plan_dir_name(pl, j, name);
		rule_find(dir_rules, ARRAY_SIZE(dir_rules), name, &t);
		if (j == pl->dev_dir)
			t = ST_DEVICE; /* /dev: device_t */
		pl->dir_sectype[j] = t;
	}
	return 0;
}

static uint8_t device_type(const struct plan *pl, uint32_t link)
{
	struct plan_special sp;

	plan_special_info(pl, link, &sp);
	if (sp.type == SPECIAL_BLK)
		return ST_DISKDEV;
	if (sp.major == 1)
		return sp.minor >= 8 && sp.minor <= 9 ? ST_RANDDEV : ST_NULLDEV;
	if (sp.major == 4 || sp.major == 5 || sp.major == 7)
		return ST_TTYDEV;
	return ST_DEVICE;
}

/* The label "user:object_r:type:s0" and its NUL (as setfiles stores it) into xa. */
static void add_selinux(const struct plan *pl, enum plan_entry kind, uint64_t id,
			struct plan_xattrs *xa)
{
	struct plan_meta m;
	uint8_t t;
	int len;

	if (kind == PLAN_DIR) {
		plan_dir_meta(pl, (uint32_t)id, &m);
		t = pl->dir_sectype[id];
	} else if (kind == PLAN_FILE) {
		plan_file_meta(pl, id, &m);
		t = pl->dir_sectype[pl->file_dir[id]];
		if (t == ST_ROOT)
			t = ST_HOME;
		rule_find(ext_rules, ARRAY_SIZE(ext_rules), plan_file_ext(pl, id), &t);
	} else {
		uint8_t k = pl->link_kind[id];

		plan_link_meta(pl, (uint32_t)id, &m);
		t = pl->dir_sectype[pl->link_dir[id]];
		if (k & LINK_SPECIAL)
			t = LINK_SPECIAL_TYPE(k) >= SPECIAL_CHR ? device_type(pl, (uint32_t)id) :
								  ST_RUN;
	}
	len = snprintf((char *)xa->data + xa->used, sizeof(xa->data) - xa->used,
		       "%s:object_r:%s:s0", m.uid >= 1000 ? "unconfined_u" : "system_u",
		       sectype_name[t]);
	xa->name[xa->n] = "security.selinux";
	xa->value[xa->n] = xa->data + xa->used;
	xa->len[xa->n] = (size_t)len + 1;
	xa->used += (size_t)len + 1;
	xa->n++;
}

/*
 * user.* attributes as desktop tools, browsers, Samba and sync clients
 * leave them (doc/model.md): name, weight, and the shape of the value.
 */
enum uval { UV_URL, UV_MIME, UV_HEX64, UV_DOS, UV_B64, UV_TEXT, UV_RATING };

struct uattr {
	const char *name;
	unsigned weight;
	enum uval shape;
	int files_only;
};

static const struct uattr user_attrs[] = {
	{ "user.xdg.origin.url", 20, UV_URL, 1 },
	{ "user.xdg.referrer.url", 8, UV_URL, 1 },
	{ "user.mime_type", 12, UV_MIME, 1 },
	{ "user.checksum.sha256", 12, UV_HEX64, 1 },
	{ "user.DOSATTRIB", 25, UV_DOS, 0 },
	{ "user.com.dropbox.attributes", 10, UV_B64, 0 },
	{ "user.xdg.comment", 8, UV_TEXT, 0 },
	{ "user.baloo.rating", 5, UV_RATING, 1 },
};

static const char *const mime_values[] = {
	"text/plain", "application/pdf", "image/jpeg", "image/png", "application/octet-stream",
	"text/html", "application/zip", "audio/mpeg",
};

static const char *const url_hosts[] = {
	"https://github.com/", "https://www.example.org/downloads/", "https://cdn.example.com/",
	"https://mail.example.net/attachments/", "https://files.example.edu/pub/",
};

static size_t val_text(struct rng *r, char *out, size_t cap, size_t want, const char *alpha,
		       size_t nalpha)
{
	size_t n = want < cap ? want : cap;

	for (size_t i = 0; i < n; i++)
		out[i] = alpha[rng_below(r, nalpha)];
	return n;
}

/* One value of shape s into out (at most cap bytes); returns its length. */
static size_t user_value(const struct plan *pl, enum plan_entry kind, uint64_t id, enum uval s,
			 struct rng *r, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char words[] = "abcdefghijklmnopqrstuvwxyz     ";
	char name[NAME_MAX_LEN + 1];
	size_t len;

	switch (s) {
	case UV_URL:
		/* host, a lognormal path of median 40 bytes, the file's name */
		len = (size_t)snprintf(out, cap, "%s", url_hosts[rng_below(r, ARRAY_SIZE(url_hosts))]);
		len += val_text(r, out + len, cap - len,
				(size_t)fmin(150, exp(log(40) + 0.8 * gsl_cdf_ugaussian_Pinv(rng_uniform(r)))), hex, 16);
		if (kind == PLAN_FILE && len + 2 < cap) {
			out[len++] = '/';
			plan_file_name(pl, id, name);
			len += (size_t)snprintf(out + len, cap - len, "%s", name);
		}
		return len < cap ? len : cap - 1;
	case UV_MIME:
		return (size_t)snprintf(out, cap, "%s", mime_values[rng_below(r, ARRAY_SIZE(mime_values))]);
	case UV_HEX64:
		return val_text(r, out, cap, 64, hex, 16);
	case UV_DOS:
		return (size_t)snprintf(out, cap, "%s", kind == PLAN_DIR ? "0x10" : "0x20");
	case UV_B64:
		return val_text(r, out, cap, 60 + rng_below(r, 140), b64, 64);
	case UV_TEXT:
		return val_text(r, out, cap, (size_t)fmin(256, exp(log(60) + 1.0 * gsl_cdf_ugaussian_Pinv(rng_uniform(r)))),
				words, sizeof(words) - 1);
	case UV_RATING:
		return (size_t)snprintf(out, cap, "%u", (unsigned)(2 * (1 + rng_below(r, 5))));
	}
	return 0;
}

/* One to three distinct user.* attributes for an entry drawn to have them. */
static void add_user(const struct plan *pl, enum plan_entry kind, uint64_t id,
		     struct plan_xattrs *xa)
{
	struct rng r;
	unsigned want, total = 0, picked = 0;

	rng_init(&r, pl->prm.seed, kind == PLAN_DIR ? "xattr.dir" : "xattr.file", id);
	if (rng_uniform(&r) >= pl->prm.xattr_user_share)
		return;
	want = 1 + (rng_uniform(&r) < 0.35) + (rng_uniform(&r) < 0.25);
	for (size_t i = 0; i < ARRAY_SIZE(user_attrs); i++)
		if (kind == PLAN_FILE || !user_attrs[i].files_only)
			total += user_attrs[i].weight;
	for (unsigned tries = 0; tries < 8 && xa->n < PLAN_XATTRS_MAX && want; tries++) {
		uint64_t u = rng_below(&r, total);
		size_t i, len;

		for (i = 0; i < ARRAY_SIZE(user_attrs); i++) {
			if (kind != PLAN_FILE && user_attrs[i].files_only)
				continue;
			if (u < user_attrs[i].weight)
				break;
			u -= user_attrs[i].weight;
		}
		if (picked & (1u << i))
			continue;
		picked |= 1u << i;
		len = user_value(pl, kind, id, user_attrs[i].shape, &r,
				 (char *)xa->data + xa->used, PLAN_XATTR_VALUE_MAX);
		xa->name[xa->n] = user_attrs[i].name;
		xa->value[xa->n] = xa->data + xa->used;
		xa->len[xa->n] = len;
		xa->used += len;
		xa->n++;
		want--;
	}
}

int plan_xattrs_enabled(const struct plan *pl)
{
	return pl->prm.xattr_selinux != SELINUX_NONE || pl->prm.xattr_user_share > 0 ||
	       pl->prm.acl_share > 0;
}

unsigned plan_xattrs(const struct plan *pl, enum plan_entry kind, uint64_t id,
		     struct plan_xattrs *xa)
{
	xa->n = 0;
	xa->used = 0;
	if (kind == PLAN_LINK && (pl->link_kind[id] & LINK_HARD)) {
		kind = PLAN_FILE;
		id = pl->link_target[id];
	}
	if (pl->dir_sectype)
		add_selinux(pl, kind, id, xa);
	/* the kernel keeps user.* to regular files and directories */
	if (pl->prm.xattr_user_share > 0 && kind != PLAN_LINK)
		add_user(pl, kind, id, xa);
	if (pl->dir_acl_src)
		plan_acl_add(pl, kind, id, xa);
	return xa->n;
}
