// SPDX-License-Identifier: MIT
/*
 * repair_dup.c - the fixes of pass 1D (multiply-claimed blocks) that are
 * not a block map's: an xattr block copied, and inodes pointed at the
 * copy.  The map's own copies are ek_inode_unshare() (extent.c).
 */
#include <string.h>
#include "extkit.h"

/* ---- dup ---- */

int ek_fix_xattr_block_copy(struct ek_wset *ws, ek_blk_t from, ek_blk_t to)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *b;
	int err = ek_wset_block(ws, to, &b);
	bool sealed;

	if (!err)
		err = ek_wset_read(ws, from, b);
	if (err)
		return err;
	/* the checksum covers the block number: a block that passed it
	 * before passes it at its new place too */
	sealed = fs->has_csum && get_le32(b + offsetof(struct ext4_xattr_header, h_checksum)) ==
				 ek_xattr_block_csum(fs, from, b);
	if (sealed)
		ek_xattr_block_csum_set(fs, to, b);
	return 0;
}

int ek_fix_file_acl(struct ek_wset *ws, ek_ino_t ino, ek_blk_t blk)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	ek_inode_file_acl_set(raw, blk);
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}
