// SPDX-License-Identifier: MIT
/*
 * repair_inline.c - fsck repairs of inline data (see repair.c for the
 * model: each fix edits the write set's copy of an object through its
 * codec; nothing is written before the pass's commit).
 *
 * An inline directory (EXT4_INLINE_DATA_FL) keeps its parent in the first
 * 4 bytes of i_block, then entries in the rest of i_block (offsets 4..59),
 * then entries in the value of the in-inode xattr system.data.  dir.c's
 * iterator numbers an entry's offset from the start of i_block as if the
 * value followed it (offset 60 is the value's first byte); the two
 * regions are separate: no entry crosses from one into the other.
 *
 *   ek_fix_inline_dirent  one entry of an inline directory given a new
 *                         file type, or cleared as the kernel removes one
 *                         (merged into the entry before it in its region,
 *                         or its inode set to 0 when it is the region's first)
 *   ek_fix_inline_dir_salvage  one region of an inline directory salvaged
 *                         as a block is (dir.c's ek_dir_inline_salvage)
 *   ek_fix_inode_mode     i_mode set (an inode whose inline data is a
 *                         directory's, its mode not one)
 */
#include <string.h>
#include "extkit.h"

#define IOFF(f) offsetof(struct ext4_inode, f)
#define INLINE_IBLOCK	(EXT4_N_BLOCKS * 4)
#define INLINE_DOTDOT	4

struct inline_edit {
	const struct ek_fs *fs;
	ek_ino_t ino;
	uint32_t off;		/* the entry, from the start of the region */
	int type;		/* the new file type, or -1: clear the entry */
};

/* the edit on one region @b[0..@len), its entries from offset @start */
static int region_edit(const struct inline_edit *e, uint8_t *b, uint32_t start, uint32_t len)
{
	uint32_t p = start, prev = UINT32_MAX, rl;

	if (e->off < start || e->off > len || len - e->off < 8)
		return ek_corrupt_ino(e->ino, "inline directory: no entry at offset %u", e->off);
	/* the entry before it: the walk checked these entries, the set's copy may differ */
	while (p < e->off) {
		rl = ek_rec_len_from_disk(get_le16(b + p + 4), e->fs->blksz);
		if (rl < 8 || rl > e->off - p)
			break;
		prev = p;
		p += rl;
	}
	if (p != e->off)
		return ek_corrupt_ino(e->ino, "inline directory: no entry ends at offset %u", e->off);
	if (e->type >= 0) {
		ek_dirent_set_type(e->fs, b, p, (uint8_t)e->type);
		return 0;
	}
	rl = ek_rec_len_from_disk(get_le16(b + p + 4), e->fs->blksz);
	if (rl < 8 || rl > len - p)
		return ek_corrupt_ino(e->ino, "inline directory: entry at offset %u: rec_len %u",
				      e->off, rl);
	if (prev == UINT32_MAX) {
		ek_dirent_set_ino(b, p, 0);
	} else {
		uint32_t prl = ek_rec_len_from_disk(get_le16(b + prev + 4), e->fs->blksz);

		ek_dirent_set_rec_len(e->fs, b, prev, prl + rl);
	}
	return 0;
}

static int value_edit(void *arg, uint8_t *val, uint32_t len)
{
	return region_edit(arg, val, 0, len);
}

int ek_fix_inline_dirent(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de,
			 int type)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct inline_edit e = { .fs = fs, .ino = dir->ino, .off = de->offset, .type = type };
	struct ek_inode cur;
	uint8_t *raw;
	int err;

	if (!ek_inode_has_inline(dir) || de->deleted || de->offset < INLINE_DOTDOT)
		return ek_unsupp("directory inode %u: entry at offset %u is not an inline entry",
				 dir->ino, de->offset);
	err = ek_wset_inode(ws, dir->ino, &raw);
	if (err)
		return err;
	if (de->offset < INLINE_IBLOCK) {
		err = region_edit(&e, raw + IOFF(i_block), INLINE_DOTDOT, INLINE_IBLOCK);
	} else {
		/* the set's copy, decoded: its xattrs are what is edited */
		err = ek_inode_decode(fs, dir->ino, raw, &cur);
		if (!err || err == -EK_BADCRC) {
			e.off -= INLINE_IBLOCK;
			err = ek_xattr_ibody_edit(fs, &cur, raw, EXT4_XATTR_INDEX_SYSTEM, "data",
						  value_edit, &e);
			if (err == -ENODATA)
				err = ek_corrupt_ino(dir->ino, "inline directory: no system.data "
						     "in the inode for the entry at offset %u",
						     de->offset);
		}
		ek_inode_release(&cur);
	}
	if (!err)
		ek_inode_csum_set(fs, dir->ino, raw);
	return err;
}

struct inline_salvage {
	const struct ek_fs *fs;
	const struct ek_inode *dir;
	int mended;
};

static int value_salvage(void *arg, uint8_t *val, uint32_t len)
{
	struct inline_salvage *v = arg;
	uint32_t first;

	v->mended = ek_dir_inline_salvage(v->fs, v->dir, val, 0, len, &first);
	return 0;
}

int ek_fix_inline_dir_salvage(struct ek_wset *ws, const struct ek_inode *dir, int region)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct inline_salvage v = { .fs = fs, .dir = dir };
	struct ek_inode cur;
	uint32_t first;
	uint8_t *raw;
	int err;

	if (!ek_inode_has_inline(dir) || region < 0 || region > 1)
		return ek_unsupp("directory inode %u: region %d is not an inline region", dir->ino, region);
	err = ek_wset_inode(ws, dir->ino, &raw);
	if (err)
		return err;
	if (region == 0) {
		v.mended = ek_dir_inline_salvage(fs, dir, raw + IOFF(i_block), INLINE_DOTDOT,
						 INLINE_IBLOCK, &first);
	} else {
		err = ek_inode_decode(fs, dir->ino, raw, &cur);
		if (!err || err == -EK_BADCRC)
			err = ek_xattr_ibody_edit(fs, &cur, raw, EXT4_XATTR_INDEX_SYSTEM, "data",
						  value_salvage, &v);
		ek_inode_release(&cur);
		if (err == -ENODATA)
			err = ek_corrupt_ino(dir->ino, "inline directory: no system.data in the inode");
	}
	if (!err && !v.mended)
		err = ek_unsupp("directory inode %u: inline region %d cannot be salvaged", dir->ino,
				region);
	if (!err)
		ek_inode_csum_set(fs, dir->ino, raw);
	return err;
}

int ek_fix_inode_mode(struct ek_wset *ws, ek_ino_t ino, uint16_t mode)
{
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	put_le16(raw + IOFF(i_mode), mode);
	ek_inode_csum_set(ek_wset_fs(ws), ino, raw);
	return 0;
}
