// SPDX-License-Identifier: MIT
/*
 * fuzz_undo.c - undo file playback: the input is an E2UNDO02 undo file;
 * the target an empty sparse 4 MiB image.  Each input is played twice:
 * checked (it must refuse or restore) and forced (every check overridden,
 * as e2undo -f), which reaches the key and data walks whatever the header.
 * Then it is resumed as mke2fs -z goes on with one (ek_undo_resume), the
 * image given the superblock the file records so the key walk is reached,
 * and one write saved through it.
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
		struct ek_undo_hdr h;
		struct ek_undo *u = NULL;
		struct ek_io *io = NULL;

		ek_undo_apply(upath, ipath, 0, &res);
		ek_undo_apply(upath, ipath, EK_UNDO_FORCE, &res);
		if (size >= 512 && !ek_undo_hdr_decode(data, false, &h) &&
		    h.super_offset <= (size - 1024) / h.block_size) {
			uint8_t sb[1024];

			memcpy(sb, data + h.super_offset * h.block_size, sizeof(sb));
			sb[0x38] ^= 0xFF;	/* the copy's s_magic is inverted */
			sb[0x39] ^= 0xFF;
			if (pwrite(ifd, sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb))
				goto out;
		}
		if (!ek_io_open(ipath, EK_IO_RW, 0, &io) && !ek_undo_resume(upath, io, 1024, &u) &&
		    !ek_io_set_undo(io, u)) {
			static const uint8_t junk[3000] = { 1 };

			ek_io_pwrite(io, junk, sizeof(junk), 8000);
			ek_io_set_undo(io, NULL);
		}
		ek_undo_close(u);
		ek_io_close(io);
	}
out:
	if (ifd >= 0)
		close(ifd);
	close(ufd);
	return 0;
}
