/* impressions.c - an Impressions input file read as Impressions reads it, into imprint's parameters */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/impressions.h"
#include "model/params_int.h"
#include "util/textin.h"

#define IMP_MAX_VALUES 64

/* Where the reader is: Impressions reads the main lines, then two counted lists, then stops. */
enum imp_block {
	IMP_MAIN,   /* "Name: value ..." lines */
	IMP_FLAGS,  /* the lines SpecialFlags counts: "Flat 0", "Ext -1", ... */
	IMP_PRINTS, /* the lines Printwhat counts: "ext 0", "size 0", ... */
	IMP_AFTER,  /* after the Printwhat list: Impressions reads no further */
};

/* Values of a main line: "NO", "Indir FILE", "Direct N v1 ... vN" or numbers with units. */
enum imp_form { IMP_NUMBERS, IMP_NO, IMP_INDIR, IMP_DIRECT };

/* The reader's state across lines: what is only applied at the end of the file. */
struct imp_reader {
	struct params *p;
	struct param_error *err;
	FILE *notes;            /* where "not used" notes go, or NULL for stderr */
	const char *path;
	unsigned long lineno;
	char where[300];        /* "PATH line N" */
	enum imp_block block;
	unsigned long left;     /* lines left in the counted list */
	unsigned long after_from; /* first line Impressions does not read (0: none) */
	unsigned long after_lines;
	char after_name[64];    /* its name */
	unsigned long dcf_line; /* the line of the Dircountfiles flag */

	/* one line */
	const char *name;
	const char *text;       /* the values as written */
	enum imp_form form;
	double v[IMP_MAX_VALUES];
	unsigned nv;

	/* kept until the end of the file */
	double fsused, numfiles, numdirs, lambda;   /* < 0: not given */
	unsigned long lambda_line;
	int fpd_given;
	/* SpecialFlags, -1 when not given */
	int flat, deep, large2small, depthwithcare, filedepthpoisson, dircountfiles;
};

/* Print one note: on r->notes as "line N: ...", else on stderr. */
static void imp_note(struct imp_reader *r, unsigned long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void imp_note(struct imp_reader *r, unsigned long line, const char *fmt, ...)
{
	char raw[512], shown[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	text_escape(shown, sizeof(shown), raw, strlen(raw));
	if (r->notes && line)
		fprintf(r->notes, "line %lu: %s\n", line, shown);
	else if (r->notes)
		fprintf(r->notes, "%s\n", shown);
	else if (line)
		fprintf(stderr, "imprint: %s line %lu: %s\n", r->path, line, shown);
	else
		fprintf(stderr, "imprint: %s: %s\n", r->path, shown);
}

/*
 * A unit word's factor, 0 when unknown.  Impressions' own (ScaleByUnit,
 * case as written): GB, MB, KB in powers of 1024 for bytes; B, M, K, N in
 * powers of 1000 for counts (B a billion).  Beside them imprint takes
 * bytes, KiB, MiB, GiB, TiB and TB, and kb, mb, gb, tb in any case.
 */
static double unit_factor(const char *u)
{
	static const struct {
		const char *name;
		double f;
	} exact[] = {
		{ "GB", 1073741824.0 }, { "MB", 1048576 }, { "KB", 1024 },
		{ "B", 1e9 }, { "M", 1e6 }, { "K", 1e3 }, { "N", 1 },
	}, nocase[] = {
		{ "bytes", 1 }, { "kb", 1024 }, { "kib", 1024 }, { "mb", 1048576 }, { "mib", 1048576 },
		{ "gb", 1073741824.0 }, { "gib", 1073741824.0 },
		{ "tb", 1099511627776.0 }, { "tib", 1099511627776.0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (!strcmp(exact[i].name, u))
			return exact[i].f;
	for (size_t i = 0; i < ARRAY_SIZE(nocase); i++)
		if (!strcasecmp(nocase[i].name, u))
			return nocase[i].f;
	return 0;
}

static int bad_values(struct imp_reader *r, const char *what)
{
	params_set_error(r->err, r->where, "'%s' %s (got '%s')", r->name, what, r->text);
	return -EINVAL;
}

/* One number of a value list: a unit word multiplies the number before it.  0 or -EINVAL. */
static int imp_number(struct imp_reader *r, const char *t)
{
	char *end;
	double v = strtod(t, &end), f;

	if (end == t) {
		f = unit_factor(t);
		if (!f || !r->nv)
			return bad_values(r, "takes numbers, each with an optional unit: N, K, M, B "
					  "(x 1000), KB, MB, GB, TB (x 1024)");
		r->v[r->nv - 1] *= f;
		return 0;
	}
	if (*end) {
		f = unit_factor(end);
		if (!f)
			return bad_values(r, "takes numbers, each with an optional unit: N, K, M, B "
					  "(x 1000), KB, MB, GB, TB (x 1024)");
		v *= f;
	}
	if (r->nv == IMP_MAX_VALUES)
		return bad_values(r, "has too many numbers (at most 64)");
	if (!isfinite(v))
		return bad_values(r, "takes finite numbers");
	r->v[r->nv++] = v;
	return 0;
}

/*
 * The values of a main line into r->form and r->v: "NO [unit]" (derived,
 * as Impressions computes it), "Indir FILE" (a distribution in a file),
 * "Direct N v1 ... vN" (N numbers; Impressions takes every number after N
 * and uses N of them; "Direct v" when direct_value: Fileswithdepth's
 * form) or numbers with units.  0 or -EINVAL.
 */
static int imp_values(struct imp_reader *r, char *text, int direct_value)
{
	char *save = NULL, *t = strtok_r(text, " \t,", &save);
	double count = -1;
	int ret = 0;

	r->nv = 0;
	r->form = IMP_NUMBERS;
	if (t && !strcmp(t, "NO")) {
		r->form = IMP_NO;
		return 0;
	}
	if (t && !strcmp(t, "Indir")) {
		r->form = IMP_INDIR;
		return 0;
	}
	if (t && !strcmp(t, "Direct") && direct_value) {
		r->form = IMP_DIRECT;
		t = strtok_r(NULL, " \t,", &save);
	} else if (t && !strcmp(t, "Direct")) {
		char *end;

		r->form = IMP_DIRECT;
		t = strtok_r(NULL, " \t,", &save);
		count = t ? strtod(t, &end) : -1;
		if (!t || *end || count < 0 || count > IMP_MAX_VALUES || count != floor(count))
			return bad_values(r, "'Direct' is followed by how many numbers come (0 to 64)");
		t = strtok_r(NULL, " \t,", &save);
	}
	for (; !ret && t; t = strtok_r(NULL, " \t,", &save))
		ret = imp_number(r, t);
	if (ret)
		return ret;
	if (count >= 0 && r->nv < (unsigned)count) {
		char what[96];

		snprintf(what, sizeof(what), "says 'Direct %.0f' but gives %u number%s", count, r->nv,
			 r->nv == 1 ? "" : "s");
		return bad_values(r, what);
	}
	if (count >= 0 && r->nv > (unsigned)count) {
		imp_note(r, r->lineno, "'%s': %u numbers after 'Direct %.0f': the first %.0f are used, "
			 "as Impressions does", r->name, r->nv, count, count);
		r->nv = (unsigned)count;
	}
	return 0;
}

static int set_num(struct imp_reader *r, const char *key, double v, const char *where)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.17g", v);
	return params_set(r->p, key, buf, where, r->err);
}

/* The first value of a single-number line, or -EINVAL for a line without one. */
static int one_number(struct imp_reader *r, double *v)
{
	if (r->nv < 1)
		return bad_values(r, "needs a number");
	*v = r->v[0];
	return 0;
}

/* A main line's parameter, and how it maps. */
struct imp_map {
	const char *name; /* as Impressions spells it, compared without case */
	int (*apply)(struct imp_reader *r);
	int direct_value; /* "Direct v": no count after Direct (Fileswithdepth) */
};

static int map_randseeds(struct imp_reader *r)
{
	double seed;

	if (r->form != IMP_DIRECT && r->form != IMP_NUMBERS) {
		imp_note(r, r->lineno, "'Randseeds' without seeds: Impressions seeds from the clock; "
			 "imprint keeps its seed");
		return 0;
	}
	if (r->nv < 1)
		return bad_values(r, "needs at least one seed");
	/* Impressions' deseeder() takes the seeds from the last one back */
	seed = r->v[r->nv - 1];
	if (seed < 0 || seed != floor(seed))
		return bad_values(r, "takes whole numbers >= 0 as seeds");
	if (r->nv > 1)
		imp_note(r, r->lineno, "'Randseeds': imprint draws every stream from one seed: the one "
			 "Impressions draws first (the last listed, %.0f) is used, the other %u are not "
			 "needed", seed, r->nv - 1);
	return set_num(r, "seed", seed, r->where);
}

/* A size or count line: "NO" leaves it derived; the value is kept in *dst until the end. */
static int keep_value(struct imp_reader *r, double *dst)
{
	double v;
	int ret;

	if (r->form == IMP_NO)
		return 0;
	ret = one_number(r, &v);
	if (!ret && v < 0)
		ret = bad_values(r, "must be >= 0");
	if (!ret)
		*dst = v;
	return ret;
}

static int map_fscapacity(struct imp_reader *r)
{
	double v = -1;
	int ret = keep_value(r, &v);

	return ret || v < 0 ? ret : set_num(r, "size", floor(v), r->where);
}

static int map_fsused(struct imp_reader *r)
{
	int ret = keep_value(r, &r->fsused);

	return ret || r->fsused < 0 ? ret : set_num(r, "used", floor(r->fsused), r->where);
}

static int map_numfiles(struct imp_reader *r)
{
	return keep_value(r, &r->numfiles);
}

static int map_numdirs(struct imp_reader *r)
{
	return keep_value(r, &r->numdirs);
}

static int map_fpd(struct imp_reader *r)
{
	double v;
	int ret;

	if (r->form == IMP_NO)
		return 0;
	ret = one_number(r, &v);
	if (!ret)
		ret = set_num(r, "files_per_dir", v, r->where);
	return ret;
}

/* "Indir FILE": Impressions reads the distribution from FILE; imprint does not. */
static int indir_note(struct imp_reader *r, const char *kept)
{
	imp_note(r, r->lineno, "'%s: Indir': a distribution in a file is not read here: %s",
		 r->name, kept);
	return 0;
}

/*
 * FilesizeDistr: Impressions' "Direct 3 alpha1 e k": the lognormal body
 * takes alpha1 of 100000 files, the Pareto tail the others, with scale
 * 2^e bytes and shape k.  imprint's older forms stay: "mu sigma" (a
 * lognormal alone) and "alpha1 mu sigma k Xm" (Table 2 of the paper).
 */
static int map_sizes(struct imp_reader *r)
{
	int ret;

	if (r->form == IMP_NO)
		return 0;
	if (r->form == IMP_INDIR)
		return indir_note(r, "the size_tail_* defaults stay");
	if (r->form == IMP_DIRECT) {
		if (r->nv != 3)
			return bad_values(r, "takes 'Direct 3 alpha1 e k' (body share of 100000, "
					  "Pareto scale 2^e bytes, Pareto shape)");
		if (r->v[0] < 0 || r->v[0] > 100000 || r->v[1] < 0 || r->v[1] > 62)
			return bad_values(r, "takes alpha1 in [0, 100000] and e in [0, 62]");
		ret = set_num(r, "size_tail_weight", 1 - r->v[0] / 100000, r->where);
		if (!ret)
			ret = set_num(r, "size_tail_xm", ldexp(1, (int)r->v[1]), r->where);
		if (!ret)
			ret = set_num(r, "size_tail_shape", r->v[2], r->where);
		if (!ret && r->v[1] != floor(r->v[1]))
			imp_note(r, r->lineno, "'FilesizeDistr': the Pareto scale 2^%g is taken as 2^%d",
				 r->v[1], (int)r->v[1]);
		return ret;
	}
	if (r->nv == 2) {
		ret = set_num(r, "size_mu", r->v[0], r->where);
		if (!ret)
			ret = set_num(r, "size_sigma", r->v[1], r->where);
		if (!ret)
			ret = set_num(r, "size_tail_weight", 0, r->where);
		return ret;
	}
	if (r->nv != 5)
		return bad_values(r, "takes 'Direct 3 alpha1 e k', 'mu sigma' or 'alpha1 mu sigma k Xm'");
	ret = set_num(r, "size_tail_weight", 1 - r->v[0], r->where);
	if (!ret)
		ret = set_num(r, "size_mu", r->v[1], r->where);
	if (!ret)
		ret = set_num(r, "size_sigma", r->v[2], r->where);
	if (!ret)
		ret = set_num(r, "size_tail_shape", r->v[3], r->where);
	if (!ret)
		ret = set_num(r, "size_tail_xm", floor(r->v[4]), r->where);
	return ret;
}

/* A distribution of two numbers, "Direct 2 x y", into k0 and k1; usage says what they are. */
static int map_two(struct imp_reader *r, const char *k0, const char *k1, const char *usage)
{
	char kept[96];
	int ret;

	if (r->form == IMP_NO)
		return 0;
	if (r->form == IMP_INDIR) {
		snprintf(kept, sizeof(kept), "%s and %s keep their defaults", k0, k1);
		return indir_note(r, kept);
	}
	if (r->nv != 2)
		return bad_values(r, usage);
	ret = set_num(r, k0, r->v[0], r->where);
	return ret ? ret : set_num(r, k1, r->v[1], r->where);
}

/* FilecountDistr: the lognormal body of file sizes (natural logarithms). */
static int map_body(struct imp_reader *r)
{
	return map_two(r, "size_mu", "size_sigma",
		       "takes 'Direct 2 mu sigma' (the lognormal body of file sizes)");
}

/* Dircountfiles: files per directory, (degree - 1) offset^(degree - 1) (i + offset)^-degree. */
static int map_fpd_law(struct imp_reader *r)
{
	int ret = map_two(r, "fpd_degree", "fpd_offset",
			  "takes 'Direct 2 degree offset' (the files per directory law)");

	r->fpd_given |= !ret && r->nv == 2 && r->form != IMP_INDIR && r->form != IMP_NO;
	return ret;
}

/* Fileswithdepth (Dirdepth, Filesbydepth): the Poisson mean, applied by the flags at the end. */
static int map_depth(struct imp_reader *r)
{
	if (r->form == IMP_NO)
		return 0;
	if (r->form == IMP_INDIR)
		return indir_note(r, "depth_lambda keeps its default");
	if (r->nv < 1)
		return bad_values(r, "needs the Poisson mean of file depth");
	if (r->v[r->nv - 1] <= 0)
		return bad_values(r, "must be > 0");
	r->lambda = r->v[r->nv - 1];
	r->lambda_line = r->lineno;
	return 0;
}

static int map_layout(struct imp_reader *r)
{
	double v;
	int ret = one_number(r, &v);

	return ret ? ret : set_num(r, "layout_score", v, r->where);
}

static int map_special(struct imp_reader *r)
{
	double v;
	int ret = one_number(r, &v);

	return ret ? ret : set_num(r, "special_dirs", floor(v), r->where);
}

static int map_creation(struct imp_reader *r)
{
	double v;
	int ret = one_number(r, &v);

	if (!ret && v != 1)
		imp_note(r, r->lineno, "'Actualfilecreation %g' (Impressions: 0 creates nothing, 2 "
			 "directories only) is not used: 'imprint plan' writes nothing, 'imprint create' "
			 "makes every file", v);
	return ret;
}

/* "SpecialFlags: N" and "Printwhat: N": the N lines after them are the list. */
static int map_list(struct imp_reader *r, enum imp_block block)
{
	double v;
	int ret = one_number(r, &v);

	if (ret)
		return ret;
	if (v < 0 || v > 1000 || v != floor(v))
		return bad_values(r, "counts the lines after it (0 to 1000)");
	r->block = block;
	r->left = (unsigned long)v;
	if (block == IMP_PRINTS)
		imp_note(r, r->lineno, "'Printwhat' and the %lu print flags after it are not used: "
			 "imprint's reports are 'plan --report' and 'measure'", r->left);
	if (!r->left && block == IMP_PRINTS) {
		r->block = IMP_AFTER;
	} else if (!r->left) {
		r->block = IMP_MAIN;
	}
	return 0;
}

static int map_flags(struct imp_reader *r)
{
	return map_list(r, IMP_FLAGS);
}

static int map_prints(struct imp_reader *r)
{
	return map_list(r, IMP_PRINTS);
}

static const struct imp_map imp_maps[] = {
	{ "Randseeds", map_randseeds, 0 },
	{ "FScapacity", map_fscapacity, 0 },
	{ "FSsize", map_fscapacity, 0 },
	{ "FSused", map_fsused, 0 },
	{ "Numfiles", map_numfiles, 0 },
	{ "Numdirs", map_numdirs, 0 },
	{ "Filesperdir", map_fpd, 0 },
	{ "FilesizeDistr", map_sizes, 0 },
	{ "FilecountDistr", map_body, 0 },
	{ "Dircountfiles", map_fpd_law, 0 },
	{ "Fileswithdepth", map_depth, 1 },
	{ "Dirdepth", map_depth, 1 },
	{ "Filesbydepth", map_depth, 1 },
	{ "Layoutscore", map_layout, 0 },
	{ "Actualfilecreation", map_creation, 0 },
	{ "SpecialFlags", map_flags, 0 },
	{ "Printwhat", map_prints, 0 },
	{ "Specialdirs", map_special, 0 },
};

/* Main lines with no meaning here, and why. */
static const struct {
	const char *name;
	const char *why;
} imp_unmapped[] = {
	{ "Parent_Path", "imprint create takes the target on its command line" },
	{ "Actuallogfile", "imprint keeps no log; 'plan' prints the plan" },
	{ "DirsizesubdirDistr", "subdirectories follow imprint's generative tree (a directory "
	  "draws children in proportion to its subdirectories + 2, as Impressions' Monte Carlo "
	  "tree without a file)" },
	{ "Dirsizesubdir", "subdirectories follow imprint's generative tree" },
	{ "Actualfilecontent", "imprint always writes typed content ('text_mode' chooses the text)" },
	{ "Largefile", "the Pareto tail ('size_tail_*') makes the large files" },
	{ "SpecialDirBias", "Impressions does not read it either" },
};

/* One "Name value" line of the SpecialFlags list: 0 or -EINVAL. */
static int imp_flag(struct imp_reader *r, char *value)
{
	static const struct {
		const char *name;
		size_t off;
	} kept[] = {
		{ "Flat", offsetof(struct imp_reader, flat) },
		{ "Deep", offsetof(struct imp_reader, deep) },
		{ "Large2Small", offsetof(struct imp_reader, large2small) },
		{ "Depthwithcare", offsetof(struct imp_reader, depthwithcare) },
		{ "Filedepthpoisson", offsetof(struct imp_reader, filedepthpoisson) },
		{ "Dircountfiles", offsetof(struct imp_reader, dircountfiles) },
	};
	char *end;
	long v;

	if (!strcmp(r->name, "Ext")) {
		if (strcmp(value, "-1"))
			imp_note(r, r->lineno, "'Ext %s' (one extension for every file) is not used: "
				 "imprint draws extensions from 'ext_table' (Impressions' popularity "
				 "table, as 'Ext -1' does)", value);
		return 0;
	}
	v = strtol(value, &end, 10);
	if (end == value || *end)
		return bad_values(r, "takes a whole number");
	if (!strcmp(r->name, "Wordfreq")) {
		/* Impressions: 1 word lengths (Sigurd et al.), 2 word popularity (BNC) */
		if (v == 1 || v == 2)
			return params_set(r->p, "text_mode", v == 1 ? "wordlen" : "words", r->where,
					  r->err);
		imp_note(r, r->lineno, "'Wordfreq %ld' (one random block repeated through each file) "
			 "is not used: imprint writes typed content; text follows 'text_mode' (words)", v);
		return 0;
	}
	if (!strcmp(r->name, "Small2Large")) {
		if (v)
			imp_note(r, r->lineno, "'Small2Large' is not used (Impressions does not use it "
				 "either)");
		return 0;
	}
	if (!strcmp(r->name, "Constraint")) {
		if (v)
			imp_note(r, r->lineno, "'Constraint 1' is not used: imprint meets 'used' exactly "
				 "without Impressions' size-constraint solver");
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++) {
		if (!strcmp(r->name, kept[i].name)) {
			*(int *)((char *)r + kept[i].off) = v != 0;
			if (!strcmp(r->name, "Dircountfiles"))
				r->dcf_line = r->lineno;
			return 0;
		}
	}
	params_set_error(r->err, r->where, "'%s' is not one of Impressions' special flags (allowed: "
			 "Flat, Deep, Ext, Wordfreq, Large2Small, Small2Large, Depthwithcare, "
			 "Filedepthpoisson, Dircountfiles, Constraint)", r->name);
	return -EINVAL;
}

/* One main line: 0, or -EINVAL with err set. */
static int imp_main(struct imp_reader *r, char *values)
{
	for (size_t i = 0; i < ARRAY_SIZE(imp_maps); i++) {
		if (strcasecmp(imp_maps[i].name, r->name))
			continue;
		if (imp_values(r, values, imp_maps[i].direct_value))
			return -EINVAL;
		return imp_maps[i].apply(r);
	}
	for (size_t i = 0; i < ARRAY_SIZE(imp_unmapped); i++) {
		if (!strcasecmp(imp_unmapped[i].name, r->name)) {
			imp_note(r, r->lineno, "'%s' is not used: %s", imp_unmapped[i].name,
				 imp_unmapped[i].why);
			return 0;
		}
	}
	imp_note(r, r->lineno, "'%s' is not known to Impressions or here: skipped", r->name);
	return 0;
}

/* One line, its comment and blanks gone: 0, or -EINVAL with err set. */
static int imp_line(struct imp_reader *r, char *s)
{
	char *sep, *end, *values;

	sep = s + strcspn(s, ":= \t");
	values = *sep ? sep + 1 : sep;
	*sep = '\0';
	for (end = sep; end > s && isspace((unsigned char)end[-1]);)
		*--end = '\0';
	values += strspn(values, ":= \t");
	r->name = s;
	r->text = values;
	snprintf(r->where, sizeof(r->where), "%s line %lu", r->path, r->lineno);
	switch (r->block) {
	case IMP_AFTER:
		if (!r->after_lines++) {
			r->after_from = r->lineno;
			snprintf(r->after_name, sizeof(r->after_name), "%s", r->name);
		}
		return 0;
	case IMP_PRINTS:
		if (!--r->left)
			r->block = IMP_AFTER;
		return 0;
	case IMP_FLAGS:
		if (!--r->left)
			r->block = IMP_MAIN;
		return imp_flag(r, values);
	case IMP_MAIN:
		break;
	}
	return imp_main(r, values);
}

/* What only the whole file decides: counts, the depth law, the flags.  0 or -EINVAL. */
static int imp_finish(struct imp_reader *r)
{
	int ret = 0;

	if (r->block == IMP_FLAGS || r->block == IMP_PRINTS)
		imp_note(r, 0, "the file ends %lu line%s before the end of the %s list", r->left,
			 r->left == 1 ? "" : "s", r->block == IMP_FLAGS ? "SpecialFlags" : "Printwhat");
	if (r->after_lines)
		imp_note(r, r->after_from, "'%s'%s not used: Impressions reads nothing after the "
			 "Printwhat list", r->after_name,
			 r->after_lines > 1 ? " and the lines after it are" : " is");
	/* Impressions: with FSused, Numfiles = FSused / mean and Numdirs = Numfiles / Filesperdir */
	if (r->fsused > 0) {
		if (r->numfiles >= 0)
			imp_note(r, 0, "'Numfiles' is not used: with 'FSused' Impressions derives the "
				 "file count from the size model, as imprint does");
		if (r->numdirs >= 0)
			imp_note(r, 0, "'Numdirs' is not used: with 'FSused' Impressions derives the "
				 "directories from the files and 'Filesperdir', as imprint does");
	} else {
		if (r->numfiles >= 0)
			ret = set_num(r, "files", floor(r->numfiles), r->path);
		if (!ret && r->numdirs > 0 && r->numfiles >= 0)
			ret = set_num(r, "files_per_dir", floor(r->numfiles) / floor(r->numdirs),
				      r->path);
		else if (!ret && r->numdirs >= 0)
			imp_note(r, 0, "'Numdirs' without 'Numfiles' is not used: the directories "
				 "follow from the files and 'Filesperdir'");
	}
	if (!ret && r->large2small == 1) {
		/* Impressions' Large2Small: the large file systems' lognormal and extensions */
		ret = set_num(r, "size_mu", 12.37, r->path);
		if (!ret)
			ret = set_num(r, "size_sigma", 3.35, r->path);
		if (!ret)
			ret = params_set(r->p, "ext_table", "large", r->path, r->err);
	}
	if (!ret && (r->flat == 1 || r->deep == 1))
		imp_note(r, 0, "'%s 1' is not used: imprint's tree is always the generative one "
			 "(Impressions' default, 'Flat 0' and 'Deep 0')", r->flat == 1 ? "Flat" : "Deep");
	if (!ret && r->dircountfiles == 0 && r->fpd_given)
		imp_note(r, r->dcf_line, "'Dircountfiles 0' (files placed without the files per directory law) "
			 "is not used: imprint always follows the law; 'Dircountfiles: Direct' gave its "
			 "degree and offset");
	if (ret)
		return ret;
	if (r->depthwithcare == 0) {
		imp_note(r, r->lambda_line, "'Depthwithcare 0' (parents drawn uniformly) is not used: "
			 "imprint places files by depth; 'depth_model' and 'depth_lambda' keep their "
			 "defaults");
	} else if (r->depthwithcare == 1 && r->filedepthpoisson == 0) {
		/* Impressions' depth by file size (fn_depthsize_prob) */
		ret = params_set(r->p, "depth_model", "care", r->path, r->err);
		if (!ret && r->lambda > 0)
			imp_note(r, r->lambda_line, "'Fileswithdepth' is not used: 'Filedepthpoisson 0' "
				 "places files by size ('depth_model = care')");
	} else if (r->lambda > 0) {
		snprintf(r->where, sizeof(r->where), "%s line %lu", r->path, r->lambda_line);
		ret = params_set(r->p, "depth_model", "poisson", r->where, r->err);
		if (!ret)
			ret = set_num(r, "depth_lambda", r->lambda, r->where);
	}
	return ret;
}

int impressions_load(struct params *p, const char *path, FILE *notes, struct param_error *err)
{
	struct imp_reader r = {
		.p = p, .err = err, .notes = notes, .path = path,
		.fsused = -1, .numfiles = -1, .numdirs = -1, .lambda = -1,
		.flat = -1, .deep = -1, .large2small = -1, .depthwithcare = -1,
		.filedepthpoisson = -1, .dircountfiles = -1,
	};
	struct textin in;
	int ret, got;

	ret = textin_open(&in, path, "an Impressions input file", TEXTIN_CONFIG_LINE,
			  TEXTIN_CONFIG_TOTAL);
	if (ret) {
		params_set_error(err, NULL, "%s", in.err);
		return ret;
	}
	while ((got = textin_next(&in)) > 0) {
		char *s = in.line;

		r.lineno = in.lineno;
		/* '#' comments are imprint's: Impressions has none, its sample ends with one */
		s[strcspn(s, "#")] = '\0';
		s = params_trim(s);
		if (*s && (ret = imp_line(&r, s)))
			break;
	}
	if (!ret && got < 0) {
		ret = got;
		params_set_error(err, NULL, "%s", in.err);
	}
	textin_close(&in);
	return ret ? ret : imp_finish(&r);
}
