/* impressions.c - an Impressions input file read into imprint's parameters */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/impressions.h"
#include "model/params_int.h"

#define IMP_MAX_VALUES 32

/* One line of the input file: its parameter name and its values, units folded in. */
struct imp_line {
	const char *name;
	double v[IMP_MAX_VALUES];
	unsigned nv;
	const char *text; /* the values as written */
	const char *where;
	double *numdirs; /* where Numdirs goes until the end of the file */
};

/* "100", "100 MB", "1.5GB", "512K": bytes; a plain number is taken as given. */
static double unit_factor(const char *u)
{
	static const struct {
		const char *name;
		double f;
	} units[] = {
		{ "b", 1 }, { "bytes", 1 }, { "k", 1024 }, { "kb", 1024 }, { "kib", 1024 },
		{ "m", 1048576 }, { "mb", 1048576 }, { "mib", 1048576 },
		{ "g", 1073741824.0 }, { "gb", 1073741824.0 }, { "gib", 1073741824.0 },
		{ "t", 1099511627776.0 }, { "tb", 1099511627776.0 }, { "tib", 1099511627776.0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcasecmp(units[i].name, u))
			return units[i].f;
	return 0;
}

/* The numbers of text into l->v, a unit word multiplying the number before it.  0 or -EINVAL. */
static int imp_values(struct imp_line *l, char *text)
{
	char *save = NULL;

	l->nv = 0;
	for (char *t = strtok_r(text, " \t,", &save); t; t = strtok_r(NULL, " \t,", &save)) {
		char *end;
		double v = strtod(t, &end), f;

		if (end == t) {
			f = unit_factor(t);
			if (!f || !l->nv)
				return -EINVAL;
			l->v[l->nv - 1] *= f;
			continue;
		}
		if (*end) {
			f = unit_factor(end);
			if (!f)
				return -EINVAL;
			v *= f;
		}
		if (l->nv == IMP_MAX_VALUES || !isfinite(v))
			return -EINVAL;
		l->v[l->nv++] = v;
	}
	return 0;
}

static int set_num(struct params *p, const char *key, double v, const char *where,
		   struct param_error *err)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.17g", v);
	return params_set(p, key, buf, where, err);
}

/* An Impressions parameter with a meaning here, and how it maps. */
struct imp_map {
	const char *name;   /* as Impressions spells it, compared without case */
	unsigned min_values;
	int (*apply)(struct params *p, const struct imp_line *l, struct param_error *err);
};

static int map_fsused(struct params *p, const struct imp_line *l, struct param_error *err)
{
	return set_num(p, "used", floor(l->v[0]), l->where, err);
}

static int map_fssize(struct params *p, const struct imp_line *l, struct param_error *err)
{
	return set_num(p, "size", floor(l->v[0]), l->where, err);
}

static int map_numfiles(struct params *p, const struct imp_line *l, struct param_error *err)
{
	return set_num(p, "files", floor(l->v[0]), l->where, err);
}

/* Numdirs: kept until the end, then files per directory (Numfiles may come later). */
static int map_numdirs(struct params *p, const struct imp_line *l, struct param_error *err)
{
	(void)p;
	(void)err;
	*l->numdirs = l->v[0];
	return 0;
}

static int map_fpd(struct params *p, const struct imp_line *l, struct param_error *err)
{
	return set_num(p, "files_per_dir", l->v[0], l->where, err);
}

/*
 * FilesizeDistr: "mu sigma" (a lognormal alone), or the hybrid as the
 * paper's Table 2 lists it: "alpha1 mu sigma k Xm" (body weight, the
 * lognormal, the Pareto shape and scale in bytes).
 */
static int map_sizes(struct params *p, const struct imp_line *l, struct param_error *err)
{
	int ret;

	if (l->nv == 2) {
		ret = set_num(p, "size_mu", l->v[0], l->where, err);
		if (!ret)
			ret = set_num(p, "size_sigma", l->v[1], l->where, err);
		if (!ret)
			ret = set_num(p, "size_tail_weight", 0, l->where, err);
		return ret;
	}
	if (l->nv != 5) {
		params_set_error(err, l->where, "'FilesizeDistr' takes 'mu sigma' or 'alpha1 mu sigma k "
				 "Xm' (got '%s')", l->text);
		return -EINVAL;
	}
	ret = set_num(p, "size_tail_weight", 1 - l->v[0], l->where, err);
	if (!ret)
		ret = set_num(p, "size_mu", l->v[1], l->where, err);
	if (!ret)
		ret = set_num(p, "size_sigma", l->v[2], l->where, err);
	if (!ret)
		ret = set_num(p, "size_tail_shape", l->v[3], l->where, err);
	if (!ret)
		ret = set_num(p, "size_tail_xm", floor(l->v[4]), l->where, err);
	return ret;
}

/* Dirdepth / Filesbydepth: the Poisson mean of file depth. */
static int map_depth(struct params *p, const struct imp_line *l, struct param_error *err)
{
	int ret = params_set(p, "depth_model", "poisson", l->where, err);

	return ret ? ret : set_num(p, "depth_lambda", l->v[l->nv - 1], l->where, err);
}

static int map_layout(struct params *p, const struct imp_line *l, struct param_error *err)
{
	return set_num(p, "layout_score", l->v[0], l->where, err);
}

static int map_seeds(struct params *p, const struct imp_line *l, struct param_error *err)
{
	if (l->nv > 1)
		fprintf(stderr, "imprint: %s: 'Randseeds': imprint draws every stream from one seed; "
			"the first (%.0f) is used, the other %u are not needed\n", l->where, l->v[0],
			l->nv - 1);
	return set_num(p, "seed", floor(l->v[0]), l->where, err);
}

static int map_special(struct params *p, const struct imp_line *l, struct param_error *err)
{
	return set_num(p, "special_dirs", floor(l->v[0]), l->where, err);
}

static const struct imp_map imp_maps[] = {
	{ "FSused", 1, map_fsused },
	{ "FSsize", 1, map_fssize },
	{ "Numfiles", 1, map_numfiles },
	{ "Numdirs", 1, map_numdirs },
	{ "Filesperdir", 1, map_fpd },
	{ "FilesizeDistr", 2, map_sizes },
	{ "Dirdepth", 1, map_depth },
	{ "Filesbydepth", 1, map_depth },
	{ "Fileswithdepth", 1, map_depth },
	{ "Layoutscore", 1, map_layout },
	{ "Randseeds", 1, map_seeds },
	{ "Specialdirs", 1, map_special },
};

/* Impressions parameters with no meaning here, and why. */
static const struct {
	const char *name;
	const char *why;
} imp_unmapped[] = {
	{ "Parent_Path", "imprint create takes the target on its command line" },
	{ "Actualfilecontent", "imprint always writes typed content ('text_mode' chooses the text)" },
	{ "Printwhat", "imprint's reports are 'plan --report' and 'measure'" },
	{ "Flat", "imprint's tree is always the generative one (flat and deep modes are not kept)" },
	{ "Deep", "imprint's tree is always the generative one (flat and deep modes are not kept)" },
	{ "Dirsizesubdir", "subdirectories follow the generative tree (subdirectories + 2)" },
	{ "Wordfreq", "text follows Zipf's law ('text_zipf')" },
	{ "Largefile", "the Pareto tail ('size_tail_*') makes the large files" },
	{ "Constraint", "imprint meets 'used' exactly without the size-constraint solver" },
};

/* Apply one line: 0, or -EINVAL with err set. */
static int imp_apply(struct params *p, struct imp_line *l, char *text, struct param_error *err)
{
	for (size_t i = 0; i < ARRAY_SIZE(imp_maps); i++) {
		if (strcasecmp(imp_maps[i].name, l->name))
			continue;
		if (imp_values(l, text) || l->nv < imp_maps[i].min_values) {
			params_set_error(err, l->where, "'%s' needs %u number%s (got '%s')", l->name,
					 imp_maps[i].min_values, imp_maps[i].min_values > 1 ? "s" : "",
					 l->text);
			return -EINVAL;
		}
		return imp_maps[i].apply(p, l, err);
	}
	for (size_t i = 0; i < ARRAY_SIZE(imp_unmapped); i++) {
		if (!strcasecmp(imp_unmapped[i].name, l->name)) {
			fprintf(stderr, "imprint: %s: Impressions' '%s' is not used: %s\n", l->where,
				l->name, imp_unmapped[i].why);
			return 0;
		}
	}
	fprintf(stderr, "imprint: %s: Impressions' '%s' is not known here: skipped\n", l->where,
		l->name);
	return 0;
}

int impressions_load(struct params *p, const char *path, struct param_error *err)
{
	char where[256], line[4096], text[4096];
	unsigned long lineno = 0;
	FILE *f = fopen(path, "r");
	double numdirs = 0;
	int ret = 0, have_files = 0;

	if (!f) {
		ret = -errno;
		params_set_error(err, path, "cannot open: %s", strerror(errno));
		return ret;
	}
	while (!ret && fgets(line, sizeof(line), f)) {
		struct imp_line l = { 0 };
		char *s = line, *sep, *end;

		lineno++;
		snprintf(where, sizeof(where), "%s line %lu", path, lineno);
		s[strcspn(s, "#\n")] = '\0';
		s = params_trim(s);
		if (!*s)
			continue;
		sep = s + strcspn(s, ":=");
		if (!*sep) {
			/* "Name value ...": the first word is the name */
			sep = s + strcspn(s, " \t");
			if (!*sep) {
				params_set_error(err, where, "expected 'Name: value' (got '%s')", s);
				ret = -EINVAL;
				break;
			}
		}
		*sep = '\0';
		for (end = sep; end > s && isspace((unsigned char)end[-1]);)
			*--end = '\0';
		l.name = s;
		l.where = where;
		l.numdirs = &numdirs;
		l.text = sep + 1 + strspn(sep + 1, " \t");
		snprintf(text, sizeof(text), "%s", l.text);
		have_files |= !strcasecmp(s, "Numfiles");
		ret = imp_apply(p, &l, text, err);
	}
	if (!ret && ferror(f)) {
		ret = -EIO;
		params_set_error(err, path, "cannot read");
	}
	fclose(f);
	if (!ret && numdirs > 0) {
		if (have_files)
			ret = set_num(p, "files_per_dir", (double)p->files / numdirs, path, err);
		else
			fprintf(stderr, "imprint: %s: 'Numdirs' without 'Numfiles' is not used: the "
				"directories follow from the files and 'Filesperdir'\n", path);
	}
	return ret;
}
