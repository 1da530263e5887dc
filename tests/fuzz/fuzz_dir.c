// SPDX-License-Identifier: MIT
/*
 * fuzz_dir.c - directories: open the input as an image, walk the tree from
 * the root (depth and entry budgets), look up every name met plus a few
 * fixed ones, parse htree roots, salvage block 0 of each directory as fsck
 * does (twice: the second finds nothing to mend), read symlinks and
 * resolve some paths.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz.h"

#define MAX_DEPTH	8
#define MAX_ENTRIES	2000

struct walk {
	struct ek_fs *fs;
	unsigned entries;
	unsigned depth;
	ek_ino_t subdirs[64];
	unsigned nsub;
	char names[16][256];
	uint8_t lens[16];
	unsigned nnames;
};

static int visit(void *arg, const struct ek_dirent *de)
{
	struct walk *w = arg;

	if (++w->entries > MAX_ENTRIES)
		return 1;
	if (w->nnames < 16) {
		memcpy(w->names[w->nnames], de->name, de->name_len);
		w->lens[w->nnames++] = de->name_len;
	}
	if (de->file_type == EXT4_FT_DIR && w->nsub < 64 &&
	    !(de->name_len == 1 && de->name[0] == '.') &&
	    !(de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		w->subdirs[w->nsub++] = de->ino;
	return 0;
}

static void walk_dir(struct walk *w, ek_ino_t ino)
{
	struct ek_inode ei;
	struct walk sub;
	int err = ek_inode_read(w->fs, ino, &ei);

	if (err && err != -EK_BADCRC && err != -EK_CORRUPT) {
		ek_inode_release(&ei);
		return;
	}
	if (ek_is_lnk(ei.mode)) {
		char buf[256];

		ek_readlink(w->fs, &ei, buf, sizeof(buf));
	}
	if (!ek_is_dir(ei.mode)) {
		ek_inode_release(&ei);
		return;
	}
	sub = (struct walk){ .fs = w->fs, .entries = w->entries, .depth = w->depth };
	ek_dir_iterate(w->fs, &ei, EK_DIR_INCLUDE_EMPTY | EK_DIR_INCLUDE_DELETED, visit, &sub);
	w->entries = sub.entries;
	for (unsigned i = 0; i < sub.nnames; i++) {
		ek_ino_t out;

		ek_dir_lookup(w->fs, &ei, sub.names[i], sub.lens[i], &out);
	}
	{
		static const char *const fixed[] = { ".", "..", "lost+found", "a", "file" };
		ek_ino_t out;

		for (unsigned i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
			ek_dir_lookup(w->fs, &ei, fixed[i], strlen(fixed[i]), &out);
	}
	if (ei.flags & EXT4_INDEX_FL) {
		uint8_t *b = ek_malloc(w->fs->blksz);
		ek_blk_t pblk;
		struct ek_dx_node n;

		if (b && ek_map_bmap(w->fs, &ei, 0, &pblk, NULL) == 0 && pblk &&
		    ek_fs_read_blocks(w->fs, pblk, 1, b) == 0 &&
		    ek_dx_root_parse(w->fs, &ei, pblk, b, &n) != -EK_CORRUPT)
			for (unsigned i = 0; i < n.count; i++)
				(void)ek_dx_entry_block(&n, i);
		free(b);
	}
	if (!(ei.flags & EXT4_INLINE_DATA_FL)) {
		/* fsck's salvage of block 0: a salvaged block needs no more */
		uint8_t *b = ek_malloc(w->fs->blksz);
		ek_blk_t pblk;
		uint32_t off;

		if (b && ek_map_bmap(w->fs, &ei, 0, &pblk, NULL) == 0 && pblk &&
		    ek_fs_read_blocks(w->fs, pblk, 1, b) == 0 &&
		    ek_dir_block_salvage(w->fs, &ei, 0, b, &off) &&
		    ek_dir_block_salvage(w->fs, &ei, 0, b, &off))
			abort();
		free(b);
	}
	ek_inode_release(&ei);
	if (w->depth >= MAX_DEPTH)
		return;
	for (unsigned i = 0; i < sub.nsub && w->entries <= MAX_ENTRIES; i++) {
		w->depth++;
		walk_dir(w, sub.subdirs[i]);
		w->depth--;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const paths[] = {
		"/", "/lost+found", "/a/b", "/dir/sub/../file", "/link", "/dir/link/x",
		"//./a/../../dir/", "/sym/sym/sym",
	};
	struct ek_open_opts o = { .flags = EK_OPEN_NO_BITMAPS };
	struct ek_fs *fs;
	char path[64];
	int fd = fuzz_memfd(data, size, path);

	if (fd < 0)
		return 0;
	if (ek_fs_open(path, &o, &fs) == 0) {
		struct walk w = { .fs = fs };

		walk_dir(&w, EXT4_ROOT_INO);
		for (unsigned i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
			ek_ino_t ino;

			ek_namei(fs, EXT4_ROOT_INO, EXT4_ROOT_INO, paths[i], true, &ino);
			ek_namei(fs, EXT4_ROOT_INO, EXT4_ROOT_INO, paths[i], false, &ino);
		}
		ek_fs_close(fs);
	}
	close(fd);
	return 0;
}
