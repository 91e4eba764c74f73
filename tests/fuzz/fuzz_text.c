/* fuzz_text.c - libFuzzer harnesses of the text readers: Impressions input files (FUZZ_IMPRESSIONS) or config files and profiles read back */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "model/impressions.h"
#include "model/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct param_error err;
	struct params p;
	char path[64];
	int fd;

	if (size > (1u << 20))
		return 0;
	if (!null)
		null = fopen("/dev/null", "w");
	fd = memfd_create("fuzz.txt", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	params_init(&p);
#ifdef FUZZ_IMPRESSIONS
	if (!impressions_load(&p, path, null, &err))
#else
	/* a profile's output is a config file: loaded, then resolved as 'create -c' does */
	if (!params_load_file(&p, path, &err))
#endif
		params_resolve(&p, &err);
	close(fd);
	return 0;
}
