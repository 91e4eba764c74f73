/* common.c - what the archive formats share: byte ranges, names, DOS times */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "content/gen.h"
#include "content/model.h"
#include "util/rng.h"
#include "content/archive/archive.h"

bool archive_clip(uint64_t start, uint64_t n, uint64_t off, size_t len, uint64_t *from, size_t *cnt)
{
	uint64_t a = MAX(start, off), z = MIN(start + n, off + len);

	if (a >= z)
		return false;
	*from = a;
	*cnt = (size_t)(z - a);
	return true;
}

void archive_put_region(const void *src, uint64_t start, uint64_t n, uint64_t off, uint8_t *buf,
			size_t len)
{
	uint64_t from;
	size_t cnt;

	if (archive_clip(start, n, off, len, &from, &cnt))
		memcpy(buf + (from - off), (const uint8_t *)src + (from - start), cnt);
}

unsigned int archive_ndigits(uint64_t v)
{
	unsigned int d = 1;

	while (v >= 10) {
		v /= 10;
		d++;
	}
	return d;
}

uint64_t archive_isqrt64(uint64_t v)
{
	uint64_t r = 0, bit = UINT64_C(1) << 62;

	while (bit > v)
		bit >>= 2;
	while (bit) {
		if (v >= r + bit) {
			v -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
		bit >>= 2;
	}
	return r;
}

uint64_t archive_sub_key(uint64_t key, uint64_t salt, uint64_t i)
{
	return rng_mix64(key ^ salt ^ rng_mix64(i + 1));
}

size_t archive_catf(char *s, size_t n, size_t cap, const char *fmt, ...)
{
	va_list ap;
	int w;

	if (n + 1 >= cap)
		return n;
	va_start(ap, fmt);
	w = vsnprintf(s + n, cap - n, fmt, ap);
	va_end(ap);
	if (w < 0)
		return n;
	return MIN(n + (size_t)w, cap - 1);
}

/* Names and titles when the model has no vocabulary to draw them from. */
static const char *const plain_words[] = {
	"annual",    "budget",	  "report",  "notes",	"summary",  "project",	"draft",
	"final",     "meeting",	  "minutes", "invoice", "letter",   "thesis",	"chapter",
	"review",    "plan",	  "data",    "results", "survey",   "sample",	"backup",
	"archive",   "travel",	  "recipes", "manual",	"guide",    "install",	"setup",
	"config",    "release",	  "client",  "server",	"design",   "proposal", "contract",
	"schedule",  "inventory", "sales",   "market",	"research", "lecture",	"course",
	"homework",  "paper",	  "slides",  "garden",	"house",    "family",	"school",
	"history",   "science",	  "network", "system",	"orders",   "export",	"records",
	"accounts",  "payroll",	  "taxes",   "legal",	"agenda",   "weekly",	"monthly",
	"quarterly",
};

const char *archive_pick_word(const struct content_model *cm, struct rng *r)
{
	if (cm && cm->word && cm->nwords >= 256) {
		size_t lo = 100, hi = MIN(cm->nwords, (size_t)5000);

		return cm->word[lo + rng_below(r, hi - lo)];
	}
	return plain_words[rng_below(r, ARRAY_SIZE(plain_words))];
}

void archive_dos_time(uint32_t t, uint16_t *time, uint16_t *date)
{
	time_t tt = (time_t)t;
	struct tm tm;

	gmtime_r(&tt, &tm);
	*time = (uint16_t)(tm.tm_hour << 11 | tm.tm_min << 5 | tm.tm_sec / 2);
	*date = (uint16_t)((tm.tm_year - 80) << 9 | (tm.tm_mon + 1) << 5 | tm.tm_mday);
}
