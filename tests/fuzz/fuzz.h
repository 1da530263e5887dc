/* SPDX-License-Identifier: MIT */
/* fuzz.h - open fuzzer bytes as a filesystem image through a memfd */
#ifndef EK_FUZZ_H
#define EK_FUZZ_H

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "extkit.h"

/* Returns an fd holding @data (caller closes) and fills @path. */
static inline int fuzz_memfd(const uint8_t *data, size_t size, char path[64])
{
	int fd = memfd_create("fuzz", 0);

	if (fd < 0)
		return -1;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	snprintf(path, 64, "/proc/self/fd/%d", fd);
	return fd;
}

#endif
