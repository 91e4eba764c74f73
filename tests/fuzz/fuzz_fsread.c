/* fuzz_fsread.c - libFuzzer harness: the ext2 reader's walk and measure over an image given as bytes */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/measure.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct measure_opts o = { 0 };
	char path[64];
	int fd;

	if (size > (8u << 20))
		return 0;
	if (!null)
		null = fopen("/dev/null", "w");
	fd = memfd_create("fuzz.img", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	o.json = 1;
	measure_run(path, &o, null);
	close(fd);
	return 0;
}
