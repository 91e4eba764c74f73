/* progress.c - the progress line of `imprint create` (files, bytes, MB/s, ETA) and its summary */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "progress.h"

/* Redraw at most this often (nanoseconds). */
#define REDRAW_NS 250000000LL

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void progress_init(struct progress *pr, FILE *out, int enabled, uint64_t total_files,
		   uint64_t total_bytes)
{
	memset(pr, 0, sizeof(*pr));
	if (enabled && out && isatty(fileno(out)))
		pr->out = out;
	pr->total_files = total_files;
	pr->total_bytes = total_bytes;
	clock_gettime(CLOCK_MONOTONIC, &pr->start);
	pr->last = pr->start;
}

double progress_seconds(const struct progress *pr)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return elapsed(&pr->start, &now);
}

void progress_fmt_bytes(uint64_t bytes, char *buf, size_t len)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	unsigned u = 0;

	while (v >= 1024 && u < sizeof(unit) / sizeof(unit[0]) - 1) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%" PRIu64 " B", bytes);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, unit[u]);
}

static void fmt_eta(double s, char *buf, size_t len)
{
	unsigned long t = s > 0 ? (unsigned long)(s + 0.5) : 0;

	if (t >= 3600)
		snprintf(buf, len, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%lu:%02lu", t / 60, t % 60);
}

void progress_update(void *ctx, uint64_t files_done, uint64_t bytes_done)
{
	struct progress *pr = ctx;
	struct timespec now;
	char done[32], total[32], eta[32];
	double secs, rate;

	if (!pr->out)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (pr->shown && (now.tv_sec - pr->last.tv_sec) * 1000000000LL +
				 (now.tv_nsec - pr->last.tv_nsec) < REDRAW_NS)
		return;
	pr->last = now;
	secs = elapsed(&pr->start, &now);
	rate = secs > 0 ? (double)bytes_done / secs : 0;
	progress_fmt_bytes(bytes_done, done, sizeof(done));
	progress_fmt_bytes(pr->total_bytes, total, sizeof(total));
	if (rate > 0 && bytes_done <= pr->total_bytes)
		fmt_eta((double)(pr->total_bytes - bytes_done) / rate, eta, sizeof(eta));
	else if (files_done && pr->total_files >= files_done && secs > 0)
		fmt_eta((double)(pr->total_files - files_done) * secs / (double)files_done, eta,
			sizeof(eta));
	else
		snprintf(eta, sizeof(eta), "?");
	/* \r and erase to the end: one line, rewritten in place */
	fprintf(pr->out, "\rimprint: %" PRIu64 "/%" PRIu64 " files, %s / %s, %.1f MB/s, ETA %s\033[K",
		files_done, pr->total_files, done, total, rate / 1e6, eta);
	fflush(pr->out);
	pr->shown = 1;
}

void progress_end(struct progress *pr)
{
	if (pr->out && pr->shown) {
		fputs("\r\033[K", pr->out);
		fflush(pr->out);
	}
	pr->shown = 0;
}

/* A double printed with that many decimals, as a person would write it. */
static struct json_object *new_double(double v, int decimals)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

static int print_json(const struct create_result *res, const struct build_summary *s,
		      double mbps, FILE *out)
{
	struct json_object *o = json_object_new_object();
	int ret = 0;

	if (!o)
		return -ENOMEM;
	json_object_object_add(o, "target", json_object_new_string(s->target));
	json_object_object_add(o, "fs", json_object_new_string(s->fs));
	json_object_object_add(o, "size", json_object_new_uint64(s->size));
	json_object_object_add(o, "seed", json_object_new_uint64(s->seed));
	json_object_object_add(o, "files", json_object_new_uint64(res->files));
	json_object_object_add(o, "dirs", json_object_new_uint64(res->dirs));
	json_object_object_add(o, "links", json_object_new_uint64(res->links));
	json_object_object_add(o, "bytes", json_object_new_uint64(res->bytes));
	json_object_object_add(o, "seconds", new_double(s->seconds, 3));
	json_object_object_add(o, "mb_per_s", new_double(mbps, 1));
	json_object_object_add(o, "layout_score", new_double(res->layout_score, 4));
	json_object_object_add(o, "block_size", json_object_new_uint64(res->block_size));
	json_object_object_add(o, "blocks_used", json_object_new_uint64(res->blocks_used));
	if (fprintf(out, "%s\n",
		    json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
						      JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		ret = -EIO;
	json_object_put(o);
	return ret;
}

int progress_print_summary(const struct create_result *res, const struct build_summary *s,
			   int json, FILE *out)
{
	double mbps = s->seconds > 0 ? (double)res->bytes / 1e6 / s->seconds : 0;
	char bytes[32], size[32];
	int ret;

	if (json) {
		ret = print_json(res, s, mbps, out);
	} else {
		progress_fmt_bytes(res->bytes, bytes, sizeof(bytes));
		progress_fmt_bytes(s->size, size, sizeof(size));
		fprintf(out, "created '%s': %s, %s, seed %" PRIu64 "\n", s->target, s->fs, size,
			s->seed);
		fprintf(out, "  %" PRIu64 " files, %" PRIu64 " directories, %" PRIu64 " links\n",
			res->files, res->dirs, res->links);
		fprintf(out, "  %s (%" PRIu64 " bytes) of file data in %.2f s, %.1f MB/s\n", bytes,
			res->bytes, s->seconds, mbps);
		ret = fprintf(out, "  layout score %.4f, %" PRIu64 " blocks of %" PRIu64 " bytes used\n",
			      res->layout_score, res->blocks_used, res->block_size) < 0 ? -EIO : 0;
	}
	if (fflush(out) != 0)
		ret = -EIO;
	return ret;
}
