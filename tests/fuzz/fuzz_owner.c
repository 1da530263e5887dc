// SPDX-License-Identifier: MIT
/*
 * fuzz_owner.c - block ownership and the read overlay: classify the first
 * blocks of the image, some past its end, and every logged home block,
 * on the image as it is and on the image seen through the replay plan of
 * its journal (a second, read-only ek_fs with ek_jplan_overlay), as
 * `extkit-replay show` does; and from a short list of inodes alone
 * (ek_blocks_owner_among), as `extkit-replay diff` does.  Then the census
 * debugfs map draws, both ways (bitmaps and inodes; descriptors only),
 * over 64 cells.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

#define FIXED 600

static void classify(struct ek_fs *fs, const ek_blk_t *blocks, size_t n)
{
	struct ek_blk_owner *out = calloc(n ? n : 1, sizeof(*out));
	char buf[128];

	/* a list of inodes as diff gives one: a few in use, one past the end */
	ek_ino_t inos[] = { 2, 11, 12, 13, fs->sb.inodes_count, fs->sb.inodes_count + 1 };

	if (out && ek_blocks_owner(fs, blocks, n, out) != -ENOMEM)
		for (size_t i = 0; i < n; i++)
			ek_blk_owner_describe(&out[i], buf, sizeof(buf));
	if (out && ek_blocks_owner_among(fs, blocks, n, inos, 6, out) != -ENOMEM)
		for (size_t i = 0; i < n; i++)
			ek_blk_owner_describe(&out[i], buf, sizeof(buf));
	free(out);
}

/* what debugfs map counts: 64 cells over the whole filesystem */
static void census(struct ek_fs *fs, bool detail)
{
	static uint64_t count[64][EK_OWNER_NKINDS];
	struct ek_owner_census c = {
		.first = fs->sb.first_data_block, .ncells = 64, .count = count,
		.per_cell = fs->sb.blocks_count / 64 + 1, .read_bitmaps = detail, .walk_inodes = detail,
	};

	memset(count, 0, sizeof(count));
	ek_owner_census(fs, &c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ek_fs *fs, *rfs;
	struct ek_journal *j;
	struct ek_jlog log;
	struct ek_jplan plan;
	ek_blk_t *blocks;
	size_t n = 0, cap = FIXED;
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	if (ek_fs_open(path, NULL, &fs)) {
		close(fd);
		return 0;
	}
	blocks = calloc(cap, sizeof(*blocks));
	for (; blocks && n < FIXED - 8; n++)
		blocks[n] = n;
	for (int i = 0; blocks && i < 8; i++)
		blocks[n++] = fs->sb.blocks_count - 4 + i;	/* the end, and past it */
	if (blocks)
		classify(fs, blocks, n);
	census(fs, true);
	census(fs, false);
	if (blocks && ek_journal_open(fs, EK_OPEN_IGNORE_CSUM, &j) == 0) {
		if (ek_journal_scan(j, &log) == 0) {
			for (size_t i = 0; i < log.ntxns && blocks; i++)
				for (uint32_t k = 0; k < log.txns[i].ntags && blocks; k++) {
					if (n == cap) {
						ek_blk_t *b = realloc(blocks, 2 * cap * sizeof(*b));

						if (!b) {
							free(blocks);
							blocks = NULL;
							break;
						}
						blocks = b;
						cap *= 2;
					}
					blocks[n++] = log.txns[i].tags[k].home;
				}
			if (blocks && ek_journal_plan(j, &log, log.end_tid - 1, &plan) == 0) {
				struct ek_jplan_view view = { j, &plan };

				if (ek_fs_open(path, &(struct ek_open_opts){ .flags = EK_OPEN_IGNORE_CSUM,
						.overlay = ek_jplan_overlay, .overlay_arg = &view }, &rfs) == 0) {
					classify(rfs, blocks, n);
					ek_fs_close(rfs);
				}
				ek_jplan_release(&plan);
			}
			ek_jlog_release(&log);
		}
		ek_journal_close(j);
	}
	free(blocks);
	ek_fs_close(fs);
	close(fd);
	return 0;
}
