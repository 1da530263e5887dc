// SPDX-License-Identifier: MIT
/*
 * repair_inode.c - the fixes of fsck's pass 1: inodes and their block maps
 * (see repair.c for the model: each fix edits blocks inside a write set
 * through the object's codec; nothing is written before the pass's commit).
 *
 *   ek_fix_inode_clear    an inode beyond repair, as e2fsck's
 *                         e2fsck_clear_inode(): unlinked and deleted now;
 *                         its blocks are not claimed, so pass 5 frees them,
 *                         and pass 2 clears the entries naming it
 *   ek_fix_inode          one field set (dtime, flags, size, i_blocks, links,
 *                         i_file_acl, i_faddr...), the checksum sealed
 *   ek_fix_inode_extra_isize  an invalid i_extra_isize, as e2fsck sets it
 *   ek_fix_inode_xattrs_clear the in-inode xattr area emptied (damaged)
 *   ek_fix_ind_pointer    an illegal pointer of an indirect map zeroed
 *   ek_fix_extent_csum    an extent block that passes checks resealed
 *   ek_fix_map_to_extents a block map made an extent tree (bigalloc)
 *   ek_fix_extent_tree    the extent tree rewritten around its bad entries
 *                         (extent.c's writer: full leaves, fewest levels)
 */
#include <string.h>
#include "extkit.h"

#define IOFF(f) offsetof(struct ext4_inode, f)

int ek_fix_inode_clear(struct ek_wset *ws, ek_ino_t ino, uint32_t now)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	put_le16(raw + IOFF(i_links_count), 0);
	put_le32(raw + IOFF(i_dtime), now);
	put_le32(raw + IOFF(i_flags), 0);
	/* a reserved inode is checked whatever its link count: its map goes too */
	if (ino < fs->sb.first_ino)
		memset(raw + IOFF(i_block), 0, EXT4_N_BLOCKS * 4);
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}

int ek_fix_inode(struct ek_wset *ws, ek_ino_t ino, enum ek_inode_fix what, uint64_t v)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	switch (what) {
	case EK_IFIX_CSUM:
		break;
	case EK_IFIX_DTIME:
		put_le32(raw + IOFF(i_dtime), 0);
		break;
	case EK_IFIX_DTIME_SET:
		put_le32(raw + IOFF(i_dtime), (uint32_t)v);
		break;
	case EK_IFIX_FLAGS_CLEAR:
		put_le32(raw + IOFF(i_flags), get_le32(raw + IOFF(i_flags)) & ~(uint32_t)v);
		break;
	case EK_IFIX_FLAGS_SET:
		put_le32(raw + IOFF(i_flags), get_le32(raw + IOFF(i_flags)) | (uint32_t)v);
		break;
	case EK_IFIX_EA_REFS:
		ek_xattr_ea_ref_set(raw, v);
		break;
	case EK_IFIX_SIZE:
		ek_inode_size_set(raw, v);
		break;
	case EK_IFIX_IBLOCKS:
		/* huge_file with EXT4_HUGE_FILE_FL: i_blocks counts filesystem blocks */
		if (ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE) &&
		    (get_le32(raw + IOFF(i_flags)) & EXT4_HUGE_FILE_FL))
			v >>= fs->log_blksz - 9;
		if (v >> 48 || (v >> 32 && !ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE)))
			return ek_corrupt_ino(ino, "i_blocks %llu does not fit the inode",
					      (unsigned long long)v);
		ek_inode_iblocks_set(raw, v);
		break;
	case EK_IFIX_ACL_HI:
		put_le16(raw + IOFF(l_i_file_acl_high), 0);
		break;
	case EK_IFIX_FILE_ACL:
		ek_inode_file_acl_set(raw, v);
		break;
	case EK_IFIX_FADDR:
		put_le32(raw + IOFF(i_obso_faddr), (uint32_t)v);
		break;
	case EK_IFIX_SIZE_HIGH:
		put_le32(raw + IOFF(i_size_high), (uint32_t)v);
		break;
	case EK_IFIX_BLOCKS_HI:
		put_le16(raw + IOFF(l_i_blocks_high), (uint16_t)v);
		break;
	case EK_IFIX_LINKS:
		if (v > 0xFFFF)
			return ek_corrupt_ino(ino, "link count %llu does not fit the inode",
					      (unsigned long long)v);
		put_le16(raw + IOFF(i_links_count), (uint16_t)v);
		break;
	case EK_IFIX_INLINE_DROP:
		ek_inode_inline_drop(raw);
		break;
	default:
		return -EINVAL;
	}
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}

int ek_fix_inode_extra_isize(struct ek_wset *ws, ek_ino_t ino)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint32_t max = fs->inode_size - EXT4_GOOD_OLD_INODE_SIZE;
	uint16_t x, want;
	uint8_t *raw;
	int err;

	if (fs->inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return ek_err(-EINVAL, "inode %llu: no extra fields", (unsigned long long)ino);
	err = ek_wset_inode(ws, ino, &raw);
	if (err)
		return err;
	x = get_le16(raw + IOFF(i_extra_isize));
	/* e2fsck's rule: at least i_extra_isize and i_checksum_hi, at most the
	 * room, a multiple of 4; out of range: the superblock's wish */
	if (!x || (x >= 4 && x <= max && !(x & 3)))
		return ek_err(-EINVAL, "inode %llu: i_extra_isize %u is valid",
			      (unsigned long long)ino, x);
	want = x < 4 || x > max ? le16_to_cpu(fs->raw_sb->s_want_extra_isize) : (x + 3) & ~3u;
	if (want > max || (want & 3))
		want = 32 <= max ? 32 : 0;
	put_le16(raw + IOFF(i_extra_isize), want);
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}

int ek_fix_inode_xattrs_clear(struct ek_wset *ws, ek_ino_t ino)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw;
	uint16_t x;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	x = fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE ? get_le16(raw + IOFF(i_extra_isize)) : 0;
	if (!x || x & 3 || EXT4_GOOD_OLD_INODE_SIZE + (uint32_t)x + 4 > fs->inode_size)
		return ek_err(-EINVAL, "inode %llu: no room for in-inode xattrs",
			      (unsigned long long)ino);
	/* as e2fsck: the header's magic zeroed, every in-inode xattr gone */
	put_le32(raw + EXT4_GOOD_OLD_INODE_SIZE + x, 0);
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}

int ek_fix_ind_pointer(struct ek_wset *ws, ek_ino_t ino, ek_blk_t node, unsigned slot)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *b;
	int err;

	if (!node) {
		if (slot >= EXT4_N_BLOCKS)
			return -EINVAL;
		err = ek_wset_inode(ws, ino, &b);
		if (err)
			return err;
		put_le32(b + IOFF(i_block) + 4 * slot, 0);
		ek_inode_csum_set(fs, ino, b);
		return 0;
	}
	if (slot >= fs->blksz / 4)
		return -EINVAL;
	err = ek_wset_block(ws, node, &b);	/* indirect blocks carry no checksum */
	if (!err)
		put_le32(b + 4 * slot, 0);
	return err;
}

int ek_fix_extent_csum(struct ek_wset *ws, ek_ino_t ino, ek_blk_t blk)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw, *b;
	uint32_t gen;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	gen = get_le32(raw + IOFF(i_generation));
	err = ek_wset_block(ws, blk, &b);
	if (!err)
		err = ek_ext_node_check(ino, blk, b, fs->blksz, -1);
	if (!err)
		err = ek_ext_block_csum_set(fs, ino, gen, b);
	return err;
}

int ek_fix_map_to_extents(struct ek_wset *ws, ek_ino_t ino, const struct ek_ext *v, size_t n,
			  const struct ek_tree_sink *sink)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	if (get_le32(raw + IOFF(i_flags)) & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL))
		return ek_err(-EINVAL, "inode %llu has no block map", (unsigned long long)ino);
	memset(raw + IOFF(i_block), 0, EXT4_N_BLOCKS * 4);
	put_le32(raw + IOFF(i_flags), get_le32(raw + IOFF(i_flags)) | EXT4_EXTENTS_FL);
	err = ek_extent_tree_write(fs, ino, raw, v, n, sink);
	if (!err)
		ek_inode_csum_set(fs, ino, raw);
	return err;
}

int ek_fix_extent_tree(struct ek_wset *ws, ek_ino_t ino, const struct ek_ext *v, size_t n,
		       const struct ek_tree_sink *sink)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	if (!(get_le32(raw + IOFF(i_flags)) & EXT4_EXTENTS_FL))
		return ek_err(-EINVAL, "inode %llu has no extent tree", (unsigned long long)ino);
	err = ek_extent_tree_write(fs, ino, raw, v, n, sink);
	if (!err)
		ek_inode_csum_set(fs, ino, raw);
	return err;
}
