// SPDX-License-Identifier: MIT
/*
 * fuzz_undo.c - undo file playback: the input is an E2UNDO02 undo file;
 * the target an empty sparse 4 MiB image.  Each input is played twice:
 * checked (it must refuse or restore) and forced (every check overridden,
 * as e2undo -f), which reaches the key and data walks whatever the header.
 */
#include <stdio.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char upath[64], ipath[64];
	int ufd = fuzz_memfd(data, size, upath), ifd;
	struct ek_undo_result res;

	if (ufd < 0)
		return 0;
	ifd = fuzz_memfd(NULL, 0, ipath);
	if (ifd >= 0 && ftruncate(ifd, 4u << 20) == 0) {
		ek_undo_apply(upath, ipath, 0, &res);
		ek_undo_apply(upath, ipath, EK_UNDO_FORCE, &res);
	}
	if (ifd >= 0)
		close(ifd);
	close(ufd);
	return 0;
}
