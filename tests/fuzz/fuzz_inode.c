// SPDX-License-Identifier: MIT
/*
 * fuzz_inode.c - inodes and block mapping: open the input as an image and
 * for the first inodes decode them, walk their block maps, look up a few
 * logical blocks, read their content (bounded) and read symlinks.
 */
#include <stdio.h>
#include "fuzz.h"

static int count_map(void *arg, const struct ek_mapping *m)
{
	(*(uint64_t *)arg)++;
	return *(uint64_t *)arg > 100000 || m->len == 0;
}

static int read_disk(void *arg, ek_blk_t blk, void *buf)
{
	return ek_fs_read_blocks(arg, blk, 1, buf);
}

static int count_orphan(void *arg, const struct ek_orphan *o)
{
	(void)o;
	return ++*(int *)arg > 100000;
}

static int sink(void *arg, uint64_t off, const void *buf, size_t len)
{
	(void)buf;
	/* stop after 4 MiB so a huge sparse file does not dominate the run */
	return off + len > (4u << 20) ? (*(int *)arg = 1) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ek_fs *fs;
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	if (ek_fs_open(path, NULL, &fs) == 0) {
		uint32_t n = fs->sb.inodes_count < 64 ? fs->sb.inodes_count : 64;

		for (ek_ino_t ino = 1; ino <= n; ino++) {
			struct ek_inode ei;
			uint64_t count = 0;
			ek_blk_t pblk;
			int stop = 0, err = ek_inode_read(fs, ino, &ei);
			struct ek_read_cb cb = { .data = sink, .arg = &stop };
			char link[512];

			if (!ei.raw)
				continue;
			(void)err;
			ek_map_walk(fs, &ei, count_map, &count);
			ek_map_bmap(fs, &ei, 0, &pblk, NULL);
			ek_map_bmap(fs, &ei, 13, &pblk, NULL);
			ek_map_bmap(fs, &ei, 70000, &pblk, NULL);
			if (ek_is_lnk(ei.mode))
				ek_readlink(fs, &ei, link, sizeof(link));
			else
				ek_file_read(fs, &ei, 0, &cb);
			ek_inode_release(&ei);
		}
		{
			int norphans = 0;

			ek_orphans_iterate(fs, fs->raw_sb, read_disk, fs, count_orphan, &norphans);
		}
		ek_fs_close(fs);
	}
	close(fd);
	return 0;
}
