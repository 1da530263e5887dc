// SPDX-License-Identifier: MIT
/*
 * fuzz_super.c - superblock, group descriptors and bitmaps: open the
 * input as an image, then touch every group's bitmaps and the first
 * inode of each group.
 */
#include <stdio.h>
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ek_open_opts o = { .flags = 0 };
	struct ek_fs *fs;
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	if (ek_fs_open(path, &o, &fs) == 0) {
		for (uint32_t g = 0; g < fs->group_count && g < 64; g++) {
			const uint8_t *map;
			struct ek_inode ei;

			ek_block_bitmap_get(fs, g, &map);
			ek_inode_bitmap_get(fs, g, &map);
			ek_inode_read(fs, g * fs->sb.inodes_per_group + 1, &ei);
			ek_inode_release(&ei);
		}
		ek_fs_close(fs);
	}
	close(fd);
	return 0;
}
