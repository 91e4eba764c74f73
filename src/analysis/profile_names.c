/* profile_names.c - how well the name generator follows a profile: a sample of its names against the source's */
#include <math.h>
#include <string.h>

#include "model/names.h"
#include "analysis/profile_int.h"

#define NAME_SAMPLE 20000

/* The extension of the i-th of n sampled files: the profile's shares, stratified ("dat": the tail). */
static const char *sample_ext(const struct params *p, uint64_t i, uint64_t n)
{
	const struct param_tables *t = &p->tab;
	double u = ((double)i + 0.5) / (double)n, acc = 0;

	for (uint32_t k = 0; k < t->next; k++) {
		acc += t->ext_share[k];
		if (u < acc)
			return t->ext_name[k];
	}
	return "dat";
}

/* What tally_name() counts, for one generated name: into the sample's counts. */
static void count_name(const char *name, size_t len, struct profile_name_fit *f)
{
	const char *dot = memrchr(name, '.', len);
	size_t stem = dot && dot != name ? (size_t)(dot - name) : len;
	int upper = 0, scap = 0, slow = 0, digits = stem > 0, version = len && name[len - 1] == '~';

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		upper |= c >= 'A' && c <= 'Z';
		scap |= i < stem && c >= 'A' && c <= 'Z';
		slow |= i < stem && c >= 'a' && c <= 'z';
		if (i < stem && (c < '0' || c > '9'))
			digits = 0;
		if (i > 0 && i + 1 < len && c == '.' && name[i - 1] >= '0' && name[i - 1] <= '9' &&
		    name[i + 1] >= '0' && name[i + 1] <= '9')
			version = 1;
	}
	f->len[len < PROFILE_NAME_LEN ? len : PROFILE_NAME_LEN]++;
	f->upper += upper;
	f->caps += scap && !slow;
	f->numeric += digits;
	f->versioned += version;
	f->n++;
}

void profile_name_fit(const struct pstate *s, const struct params *p, struct profile_name_fit *f)
{
	struct name_cfg c;
	char buf[NAME_MAX_LEN + 1];
	uint64_t n = s->names < NAME_SAMPLE ? s->names : NAME_SAMPLE;
	uint64_t ndirs = s->m.ndirs > 1 ? (uint64_t)llround((double)(s->m.ndirs - 1) * (double)n /
							    (double)s->names) : 0;
	double a = 0, b = 0;

	memset(f, 0, sizeof(*f));
	name_cfg_from_params(&c, p);
	for (uint64_t i = 0; i < n; i++) {
		size_t len = i < ndirs ? name_make(buf, &c, NAME_DIR, i, "", 0) :
			     name_make(buf, &c, NAME_FILE, i, sample_ext(p, i - ndirs, n - ndirs), 0);

		count_name(buf, len, f);
	}
	/* K-S D of the lengths: the sample against the source */
	for (unsigned l = 0; l <= PROFILE_NAME_LEN && f->n; l++) {
		a += (double)f->len[l] / (double)f->n;
		b += (double)s->name_len[l] / (double)s->names;
		f->len_d = fmax(f->len_d, fabs(a - b));
	}
}
