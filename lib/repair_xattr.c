// SPDX-License-Identifier: MIT
/*
 * repair_xattr.c - the fixes of extended attributes and their value
 * inodes (fsck_xattr.c applies them), through xattr.c's and inode.c's
 * codecs:
 *
 *   ek_fix_xattr_block_csum   an xattr block's checksum recomputed
 *   ek_fix_ea_inode_flag      EXT4_EA_INODE_FL set on a value inode
 *   ek_fix_ea_inode_ref       a value inode's reference count set
 */
#include <string.h>
#include "extkit.h"

int ek_fix_xattr_block_csum(struct ek_wset *ws, ek_blk_t blk)
{
	uint8_t *b;
	int err = ek_wset_block(ws, blk, &b);

	if (err)
		return err;
	if (get_le32(b) != EXT4_XATTR_MAGIC)
		return ek_corrupt(blk, "xattr block: bad magic 0x%08x", get_le32(b));
	ek_xattr_block_csum_set(ek_wset_fs(ws), blk, b);
	return 0;
}

int ek_fix_ea_inode_flag(struct ek_wset *ws, ek_ino_t ino)
{
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);
	uint32_t off = offsetof(struct ext4_inode, i_flags);

	if (err)
		return err;
	put_le32(raw + off, get_le32(raw + off) | EXT4_EA_INODE_FL);
	ek_inode_csum_set(ek_wset_fs(ws), ino, raw);
	return 0;
}

int ek_fix_ea_inode_ref(struct ek_wset *ws, ek_ino_t ino, uint64_t refs)
{
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	ek_xattr_ea_ref_set(raw, refs);
	ek_inode_csum_set(ek_wset_fs(ws), ino, raw);
	return 0;
}
