/* extents_file.c - the extents file (create/measure --extents, verify): its one writer and reader */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "read/extents_file.h"
#include "util/strutil.h"

/* The header line, without its newline (one format for printf and scanf). */
#define EXTENTS_HEADER "# imprint extents block_size=%u"

int extents_file_write_header(FILE *out, unsigned block_size)
{
	fprintf(out, EXTENTS_HEADER "\n", block_size);
	return ferror(out) ? -EIO : 0;
}

void extents_file_begin_line(FILE *out, uint64_t id, const char *dir, const char *name)
{
	if (!name)
		fprintf(out, "%" PRIu64 "\t%s\t", id, dir);
	else
		fprintf(out, "%" PRIu64 "\t%s%s%s\t", id, dir, strlen(dir) > 1 ? "/" : "", name);
}

void extents_file_put_run(FILE *out, size_t i, uint64_t start, uint64_t len)
{
	fprintf(out, "%s%" PRIu64 "+%" PRIu64, i ? "," : "", start, len);
}

void extents_file_end_line(FILE *out, size_t nruns)
{
	if (!nruns)
		fputc('-', out);
	fputc('\n', out);
}

int extents_file_open(struct textin *in, const char *path, unsigned *block_size)
{
	unsigned bs = 0;
	int ret;

	ret = textin_open(in, path, "an extents file", EXTENTS_FILE_MAX_LINE, EXTENTS_FILE_MAX_TOTAL);
	if (ret)
		return ret;
	ret = textin_next(in);
	if (ret < 0)
		return ret;
	if (!ret || sscanf(in->line, EXTENTS_HEADER, &bs) != 1 || bs == 0) {
		errbuf_set(in->err, sizeof(in->err), "%s: not an extents file (its first line is not "
			   "'" EXTENTS_HEADER "')", path, 4096u);
		return -EINVAL;
	}
	*block_size = bs;
	return 0;
}

const char *extents_file_read_line(struct textin *in, uint64_t id)
{
	unsigned long long got;
	char *end;

	if (textin_next(in) <= 0)
		return NULL;
	got = strtoull(in->line, &end, 10);
	if (got != id || *end != '\t')
		return NULL;
	end = strchr(end + 1, '\t');
	return end ? end + 1 : NULL;
}
