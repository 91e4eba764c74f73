/* tables.c - the model's tables: parsing, checks and printing, and the laws drawn from them */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/dist.h"
#include "model/ext.h"
#include "model/params.h"
#include "model/params_int.h"
#include "model/tables.h"
#include "model/tables_int.h"

static const struct tab_def *tab_find(const char *key)
{
	char norm[KEY_MAX];

	if (params_normalize_key(norm, sizeof(norm), key))
		return NULL;
	for (size_t i = 0; i < TAB_NDEFS; i++)
		if (!strcmp(tab_defs[i].name, norm))
			return &tab_defs[i];
	return NULL;
}

int tables_is_key(const char *key)
{
	return tab_find(key) != NULL;
}

static uint32_t *tab_count(struct param_tables *t, const struct tab_def *d)
{
	return (uint32_t *)((char *)t + d->count_off);
}

/* An extension as tables hold it: 0..15 characters, no blank, ':' or '/'. */
static int ext_ok(const char *s, size_t len)
{
	if (len >= TAB_EXT_LEN)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (isspace((unsigned char)s[i]) || s[i] == ':' || s[i] == '/' || s[i] == '#' ||
		    s[i] == '.' || (unsigned char)s[i] < 0x20)
			return 0;
	return 1;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || *end ? -EINVAL : 0;
}

static int parse_share(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || !isfinite(*v) || *v < 0 ? -EINVAL : 0;
}

/* EXT of "EXT:..." into name (TAB_EXT_LEN bytes): what follows the colon, or NULL. */
static char *parse_ext_prefix(char *tok, char *name)
{
	char *colon = strrchr(tok, ':');

	if (!colon || !ext_ok(tok, (size_t)(colon - tok)))
		return NULL;
	memcpy(name, tok, (size_t)(colon - tok));
	name[colon - tok] = '\0';
	return colon + 1;
}

/* EXT:Q0/Q1/.../Q16 into class i */
static int parse_sbe(struct param_tables *t, uint32_t i, char *tok)
{
	char *rest = parse_ext_prefix(tok, t->sbe_name[i]), *q, *save = NULL;
	unsigned n = 0;

	if (!rest)
		return -EINVAL;
	for (q = strtok_r(rest, "/", &save); q; q = strtok_r(NULL, "/", &save)) {
		if (n == TAB_SBE_Q || parse_u64(q, &t->sbe_q[i][n]))
			return -EINVAL;
		if (n && t->sbe_q[i][n] < t->sbe_q[i][n - 1])
			return -EINVAL;
		n++;
	}
	return n == TAB_SBE_Q ? 0 : -EINVAL;
}

/*
 * EXT:RATIO/DUPF/DUPB/ZERO/TEXT[/WORDS] into entry i: a ratio >= 1, then
 * shares in [0, 1], then optionally distinct words per KiB in [0, 512]
 * (0 when absent: a profile made before it), each EXT once
 */
static int parse_extc(struct param_tables *t, uint32_t i, char *tok)
{
	char *rest = parse_ext_prefix(tok, t->extc_name[i]), *q, *save = NULL;
	unsigned n = 0;

	if (!rest)
		return -EINVAL;
	for (uint32_t k = 0; k < i; k++)
		if (!strcmp(t->extc_name[k], t->extc_name[i]))
			return -EINVAL;
	for (q = strtok_r(rest, "/", &save); q; q = strtok_r(NULL, "/", &save)) {
		if (n == TAB_EXTC_F || parse_share(q, &t->extc[i][n]))
			return -EINVAL;
		if (n == TAB_EXTC_WORDS ? t->extc[i][n] > 512 :
		    n ? t->extc[i][n] > 1 : t->extc[i][n] < 1 || t->extc[i][n] > 1000)
			return -EINVAL;
		n++;
	}
	if (n == TAB_EXTC_WORDS)
		t->extc[i][n++] = 0;
	return n == TAB_EXTC_F ? 0 : -EINVAL;
}

/* OCTAL:SHARE into mode table d at i: permission bits 0..07777, each mode once. */
static int parse_mode(struct param_tables *t, const struct tab_def *d, uint32_t i, char *tok)
{
	struct tab_modes *tm = (struct tab_modes *)((char *)t + d->data_off);
	uint16_t *mode = tm->mode;
	double *share = tm->share;
	char *colon = strrchr(tok, ':'), *end;
	unsigned long v;

	if (!colon || colon == tok || !isdigit((unsigned char)*tok))
		return -EINVAL;
	*colon = '\0';
	errno = 0;
	v = strtoul(tok, &end, 8);
	if (errno || *end || v > 07777 || parse_share(colon + 1, &share[i]))
		return -EINVAL;
	mode[i] = (uint16_t)v;
	for (uint32_t k = 0; k < i; k++)
		if (mode[k] == mode[i])
			return -EINVAL;
	return 0;
}

/* One entry of table d at index i from tok (modified). */
static int parse_entry(struct param_tables *t, const struct tab_def *d, uint32_t i, char *tok)
{
	char *colon;

	switch (d->kind) {
	case TK_SIZEQ:
		if (parse_u64(tok, &t->size_q[i]))
			return -EINVAL;
		return i && t->size_q[i] < t->size_q[i - 1] ? -EINVAL : 0;
	case TK_SHARES:
		return parse_share(tok, (double *)((char *)t + d->data_off) + i);
	case TK_EXT:
		colon = strrchr(tok, ':');
		if (!colon || !ext_ok(tok, (size_t)(colon - tok)) ||
		    parse_share(colon + 1, &t->ext_share[i]))
			return -EINVAL;
		memcpy(t->ext_name[i], tok, (size_t)(colon - tok));
		t->ext_name[i][colon - tok] = '\0';
		for (uint32_t k = 0; k < i; k++)
			if (!strcmp(t->ext_name[k], t->ext_name[i]))
				return -EINVAL;
		return 0;
	case TK_SBE:
		return parse_sbe(t, i, tok);
	case TK_EXTC:
		return parse_extc(t, i, tok);
	case TK_SPECIAL:
		colon = strchr(tok, '@');
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		{
			uint64_t f, dep;

			if (parse_u64(tok, &f) || parse_u64(colon + 1, &dep) || f < 1 || f > UINT32_MAX ||
			    dep < 1 || dep > 255)
				return -EINVAL;
			t->special_files[i] = (uint32_t)f;
			t->special_depth[i] = (uint8_t)dep;
		}
		return 0;
	case TK_SPARSE:
		colon = strchr(tok, ':');
		if (!colon)
			return -EINVAL;
		*colon = '\0';
		{
			uint64_t n;

			if (parse_u64(tok, &n) || n > UINT32_MAX || (i && n <= t->subdirs_n[i - 1]) ||
			    parse_share(colon + 1, &t->subdirs_share[i]))
				return -EINVAL;
			t->subdirs_n[i] = (uint32_t)n;
		}
		return 0;
	case TK_MODE:
		return parse_mode(t, d, i, tok);
	case TK_QUANT: {
		double *q = (double *)((char *)t + d->data_off);

		if (parse_share(tok, &q[i]))
			return -EINVAL;
		return i && q[i] < q[i - 1] ? -EINVAL : 0;
	}
	case TK_COUNT:
		break;
	}
	return -EINVAL;
}

int tables_set(struct params *p, const char *key, const char *value, int append,
	       const char *where, struct param_error *err)
{
	const struct tab_def *d = tab_find(key);
	uint32_t *n;
	char *buf, *tok, *save = NULL;
	int ret = 0;

	if (!d)
		return 1;
	if (d->kind == TK_COUNT) {
		uint64_t *v = (uint64_t *)((char *)&p->tab + d->data_off);
		char text[VALUE_MAX];

		if (append || params_copy_trimmed(text, sizeof(text), value) ||
		    params_parse_count(text, v)) {
			params_set_error(err, where, "'%s' must be %s (got '%.40s')", d->name, d->what,
					 value);
			return -EINVAL;
		}
		return 0;
	}
	n = tab_count(&p->tab, d);
	buf = strdup(value);
	if (!buf)
		return -ENOMEM;
	if (!append)
		*n = 0;
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		if (!append && *n == 0 && !strcmp(tok, "none") && !strtok_r(NULL, " \t", &save))
			break;
		if (*n == d->max) {
			params_set_error(err, where, "'%s' holds at most %" PRIu32 " entries",
					 d->name, d->max);
			ret = -EINVAL;
			break;
		}
		char shown[48];

		snprintf(shown, sizeof(shown), "%s", tok);
		if (parse_entry(&p->tab, d, *n, tok)) {
			params_set_error(err, where, "'%s' entry %" PRIu32 " must be %s%s (got '%s')",
					 d->name, *n + 1, d->what,
					 d->kind == TK_SIZEQ ? ", not below the one before" :
					 d->kind == TK_MODE ? " (octal bits up to 07777, each mode once)" :
					 d->kind == TK_EXTC ? " (ratio 1..1000, shares 0..1, words per "
					 "KiB 0..512, each extension once)" : "",
					 shown);
			ret = -EINVAL;
			break;
		}
		(*n)++;
	}
	free(buf);
	return ret;
}

static double shares_sum(const double *v, uint32_t n)
{
	double s = 0;

	for (uint32_t i = 0; i < n; i++)
		s += v[i];
	return s;
}

int tables_check(const struct params *p, struct param_error *err)
{
	const struct param_tables *t = &p->tab;
	double ext_sum = 0;

	if (t->nsize_q == 1) {
		params_set_error(err, NULL, "'size_quantiles' needs at least 2 entries (got 1)");
		return -EINVAL;
	}
	if (t->nsize_q && t->size_q[0] > p->size_max) {
		params_set_error(err, NULL, "'size_quantiles' starts above 'size_max'");
		return -EINVAL;
	}
	{
		/* the share tables must hold some weight (name lengths: beyond length 0) */
		const struct { const char *key; const double *v; uint32_t n, from; } w[] = {
			{ "depth_files", t->depth_files, t->ndepth_files, 0 },
			{ "depth_dirs", t->depth_dirs, t->ndepth_dirs, 0 },
			{ "fpd_table", t->fpd, t->nfpd, 0 },
			{ "name_lengths", t->name_len, t->nname_len, 1 },
			{ "name_ext_lengths", t->name_ext_len, t->nname_ext_len, 1 },
			{ "name_dir_lengths", t->name_dir_len, t->nname_dir_len, 1 },
			{ "subdirs_table", t->subdirs_share, t->nsubdirs, 0 },
		};

		for (size_t k = 0; k < sizeof(w) / sizeof(w[0]); k++)
			if (w[k].n && !(shares_sum(w[k].v, w[k].n) - shares_sum(w[k].v, w[k].from) > 0)) {
				params_set_error(err, NULL, "'%s' sums to 0%s", w[k].key,
						 w[k].from ? " beyond length 0" : "");
				return -EINVAL;
			}
	}
	if (t->nfpd && t->nfpd != p->fpd_max_bin + 2) {
		params_set_error(err, NULL,
				 "'fpd_table' has %" PRIu32 " entries: it must have 'fpd_max_bin' + 2 "
				 "(%" PRIu32 ": counts 0..%" PRIu32 " and the tail)",
				 t->nfpd, p->fpd_max_bin + 2, p->fpd_max_bin);
		return -EINVAL;
	}
	if (t->nfpd && t->fpd[0] >= shares_sum(t->fpd, t->nfpd)) {
		params_set_error(err, NULL, "'fpd_table' has no directory holding files");
		return -EINVAL;
	}
	for (uint32_t d = 0; d < TAB_DEPTH_MAX; d++)
		if ((d < t->ndepth_leaves && t->depth_leaves[d] > 1) ||
		    (d < t->ndepth_fileless && t->depth_fileless[d] > 1)) {
			params_set_error(err, NULL, "'%s' entry %" PRIu32 " is above 1: a share of the "
					 "directories at a depth", d < t->ndepth_leaves &&
					 t->depth_leaves[d] > 1 ? "depth_leaves" : "depth_fileless", d + 1);
			return -EINVAL;
		}
	if (t->nage_q == 1 || t->natime_q == 1) {
		params_set_error(err, NULL, "'%s' needs at least 2 entries (got 1)",
				 t->nage_q == 1 ? "age_quantiles" : "atime_quantiles");
		return -EINVAL;
	}
	if (t->natime_q && t->atime_q[t->natime_q - 1] > 1) {
		params_set_error(err, NULL, "'atime_quantiles' must stay within 0..1 (ends at %.6g)",
				 t->atime_q[t->natime_q - 1]);
		return -EINVAL;
	}
	if ((t->nmode_files && !(shares_sum(t->mode_files.share, t->nmode_files) > 0)) ||
	    (t->nmode_dirs && !(shares_sum(t->mode_dirs.share, t->nmode_dirs) > 0))) {
		params_set_error(err, NULL, "a mode table ('mode_files', 'mode_dirs') sums to 0");
		return -EINVAL;
	}
	/*
	 * a profile prints each share to 6 significant digits (up to 5e-7
	 * off): its shares of all files may sum a little over 1 (seven of
	 * 0.112149533 printed 0.11215: 3.3e-6 over)
	 */
	ext_sum = shares_sum(t->ext_share, t->next);
	if (t->next && ext_sum > 1 + 1e-6 + 5e-7 * t->next) {
		params_set_error(err, NULL, "'ext_shares' sum to %.6g, more than 1", ext_sum);
		return -EINVAL;
	}
	return 0;
}

int tables_size_model(const struct params *p, double cap, struct size_model *m)
{
	if (p->tab.nsize_q)
		return size_model_init_table(m, p->tab.size_q, p->tab.nsize_q, cap);
	return size_model_init(m, p->size_mu, p->size_sigma, p->size_tail_weight,
			       (double)p->size_tail_xm, p->size_tail_shape, cap);
}

int tables_depth_probs(const struct params *p, unsigned maxdepth, double *probs)
{
	const struct param_tables *t = &p->tab;
	double sum = 0;

	if (!t->ndepth_files)
		return depth_poisson_probs(p->depth_lambda, maxdepth, probs);
	for (unsigned d = 0; d <= maxdepth; d++) {
		probs[d] = d < t->ndepth_files ? t->depth_files[d] : 0;
		sum += probs[d];
	}
	if (!(sum > 0)) {
		/* the tree is shallower than every tabled depth: the deepest level takes all */
		memset(probs, 0, (maxdepth + 1) * sizeof(*probs));
		probs[maxdepth] = 1;
		return 0;
	}
	for (unsigned d = 0; d <= maxdepth; d++)
		probs[d] /= sum;
	return 0;
}

int tables_fpd_probs(const struct params *p, unsigned maxbin, double *probs)
{
	const struct param_tables *t = &p->tab;
	double sum;

	if (!t->nfpd)
		return fpd_probs(p->fpd_empty_share, p->fpd_offset, p->fpd_degree, maxbin, probs);
	if (t->nfpd != maxbin + 2)
		return -EINVAL;
	sum = shares_sum(t->fpd, t->nfpd);
	for (unsigned i = 0; i < t->nfpd; i++)
		probs[i] = t->fpd[i] / sum;
	return 0;
}

int tables_ext_model(const struct params *p, struct ext_model *m)
{
	const struct param_tables *t = &p->tab;
	const char *names[TAB_EXT_MAX + 1];
	double shares[TAB_EXT_MAX + 1];
	size_t n = 1;

	if (!t->next)
		return ext_model_init(m, p->ext_table);
	/* entry 0 is always "no extension" */
	names[0] = "";
	shares[0] = 0;
	for (uint32_t i = 0; i < t->next; i++) {
		if (!t->ext_name[i][0]) {
			shares[0] = t->ext_share[i];
			continue;
		}
		names[n] = t->ext_name[i];
		shares[n++] = t->ext_share[i];
	}
	return ext_model_init_list(m, names, shares, n, 1);
}

uint32_t tables_special_dirs(const struct params *p)
{
	return p->tab.nspecial ? p->tab.nspecial : p->special_dirs;
}

uint64_t tables_special_files(const struct params *p, uint32_t i)
{
	const struct param_tables *t = &p->tab;
	double v;

	if (!t->nspecial)
		return p->special_dir_files;
	if (!t->source_files || !p->files)
		return t->special_files[i];
	v = round((double)t->special_files[i] * (double)p->files / (double)t->source_files);
	return v < 1 ? 1 : (uint64_t)v;
}

unsigned tables_special_depth(const struct params *p, uint32_t i)
{
	return p->tab.nspecial ? p->tab.special_depth[i] : p->special_dir_depth;
}

uint64_t tables_special_total(const struct params *p)
{
	uint64_t sum = 0;

	if (!p->tab.nspecial)
		return (uint64_t)p->special_dirs * p->special_dir_files; /* checked by the caller */
	for (uint32_t i = 0; i < p->tab.nspecial; i++)
		sum += tables_special_files(p, i);
	return sum;
}

int tables_mode_draw(const struct params *p, int dir, double u)
{
	const struct param_tables *t = &p->tab;
	uint32_t n = dir ? t->nmode_dirs : t->nmode_files;
	const struct tab_modes *tm = dir ? &t->mode_dirs : &t->mode_files;
	const double *share = tm->share;
	const uint16_t *mode = tm->mode;
	double x, acc = 0;

	if (!n)
		return -1;
	x = u * shares_sum(share, n);
	for (uint32_t i = 0; i + 1 < n; i++) {
		acc += share[i];
		if (x < acc)
			return mode[i];
	}
	return mode[n - 1];
}

double tables_quantile_at(const double *q, uint32_t n, double u)
{
	double x = u * (double)(n - 1), t;
	uint32_t i;

	if (!(x > 0))
		return q[0];
	if (x >= (double)(n - 1))
		return q[n - 1];
	i = (uint32_t)x;
	t = x - (double)i;
	return q[i] + t * (q[i + 1] - q[i]);
}
