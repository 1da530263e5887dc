// SPDX-License-Identifier: MIT
/*
 * repair_dir.c - directory repairs of extkit-fsck's pass 2 (repair.c holds
 * the fixes of single entries).
 *
 * A directory whose blocks or index are damaged, or that holds a name
 * twice, is rewritten whole from the entries that could be read, as
 * e2fsck's pass 3A (rehash.c) does: the blocks come from dir.c's builder
 * (ek_dir_build, the one that extkit-mkfs -d uses), so a directory that
 * needs more than one block is indexed again when the filesystem has
 * dir_index, with fresh leaf and index checksums.  The new blocks go into
 * the directory's first logical blocks; the blocks past them are freed
 * (ek_inode_truncate) and i_size shrinks to the new length.
 *
 * Refused (-EK_UNSUPP, nothing changed): inline directories, casefolded
 * ones (their hash folds names first), a directory whose first blocks are
 * not all mapped and written, or one the new blocks would not fit in.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define IOFF(f) offsetof(struct ext4_inode, f)

int ek_fix_dir_rebuild(struct ek_wset *ws, ek_ino_t ino, ek_ino_t parent,
		       struct ek_dirent_new *ents, size_t n, bool *indexed)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_inode ei;
	uint8_t *raw, *blocks = NULL;
	uint32_t nb = 0, flags;
	uint64_t old;
	int err = ek_wset_inode(ws, ino, &raw);

	*indexed = false;
	if (err)
		return err;
	err = ek_inode_decode(fs, ino, raw, &ei);
	if (err && err != -EK_BADCRC)
		return err;
	err = 0;
	flags = get_le32(raw + IOFF(i_flags));
	if (!ek_is_dir(ei.mode)) {
		err = ek_err(-EINVAL, "inode %u is not a directory", ino);
		goto out;
	}
	if (flags & EXT4_INLINE_DATA_FL) {
		err = ek_unsupp("directory inode %u: an inline directory is not rebuilt", ino);
		goto out;
	}
	if (flags & EXT4_CASEFOLD_FL) {
		err = ek_unsupp("directory inode %u: a casefolded directory is not rebuilt "
				"(its names hash after folding)", ino);
		goto out;
	}
	err = ek_dir_build(fs, ino, ei.generation, parent, ents, n, &blocks, &nb, indexed);
	if (err)
		goto out;
	old = (ei.size + fs->blksz - 1) >> fs->log_blksz;
	if (nb > old) {
		err = ek_unsupp("directory inode %u: its %u rebuilt blocks do not fit in its %llu",
				ino, nb, (unsigned long long)old);
		goto out;
	}
	/* every block written into must be the directory's own already */
	for (uint32_t l = 0; l < nb; l++) {
		ek_blk_t pblk;
		bool unwritten = false;

		err = ek_map_bmap(fs, &ei, l, &pblk, &unwritten);
		if (err)
			goto out;
		if (!pblk || unwritten || !ek_fs_block_valid(fs, pblk)) {
			err = ek_unsupp("directory inode %u: block %u is not allocated, "
					"the rebuilt directory is not written", ino, l);
			goto out;
		}
	}
	for (uint32_t l = 0; l < nb && !err; l++) {
		ek_blk_t pblk;

		err = ek_map_bmap(fs, &ei, l, &pblk, NULL);
		if (!err)
			err = ek_wset_put(ws, pblk, blocks + (size_t)l * fs->blksz);
	}
	if (err)
		goto out;
	if (*indexed)
		flags |= EXT4_INDEX_FL;
	else
		flags &= ~(uint32_t)EXT4_INDEX_FL;
	put_le32(raw + IOFF(i_flags), flags);
	if (nb < old) {
		ek_inode_size_set(raw, (uint64_t)nb << fs->log_blksz);
		err = ek_inode_truncate(fs, ws, ino, raw);
	}
	ek_inode_csum_set(fs, ino, raw);
out:
	free(blocks);
	ek_inode_release(&ei);
	return err;
}
