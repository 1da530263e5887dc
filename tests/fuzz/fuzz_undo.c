// SPDX-License-Identifier: MIT
/*
 * fuzz_undo.c - undo file playback: the input is an undo file; the target
 * is an empty sparse image of the size its header names (up to 64 MiB).
 */
#include <stdio.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char upath[64], ipath[64];
	int ufd = fuzz_memfd(data, size, upath), ifd;
	uint64_t isize = size >= 16 ? get_le64(data + 8) : 0;
	struct ek_io *io;
	uint64_t n;

	if (ufd < 0)
		return 0;
	if (isize > (64u << 20))
		isize = 64u << 20;
	ifd = fuzz_memfd(NULL, 0, ipath);
	if (ifd >= 0 && ftruncate(ifd, isize) == 0 && ek_io_open(ipath, EK_IO_RW, 0, &io) == 0) {
		ek_undo_apply(upath, io, &n);
		ek_io_close(io);
	}
	if (ifd >= 0)
		close(ifd);
	close(ufd);
	return 0;
}
