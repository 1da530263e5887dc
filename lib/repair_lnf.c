// SPDX-License-Identifier: MIT
/*
 * repair_lnf.c - the fixes of passes 3 and 4 that make and fill directories:
 * a new directory (the root, /lost+found), an entry added to a directory,
 * a directory grown by a block (a full /lost+found).
 *
 * As the fixes of repair.c, each edits blocks inside a write set through
 * the codecs: dir.c builds and fills the directory blocks, extent.c writes
 * an extent root, inode.c the split fields and the checksum.  The checker
 * (fsck_pass34.c) allocates the inodes and blocks (its allocator keeps its
 * computed maps and the bitmaps in the set equal) and passes them in; every
 * block these functions touch goes into the same set, so a pass's commit
 * writes a new directory, its block, its entry and the bitmaps together.
 *
 * What e2fsck makes (pass3.c, check_root() and e2fsck_get_lost_and_found()):
 * a directory inode with i_size one block, links 2, the three times now,
 * one block holding '.' and '..', an extent root when the filesystem has
 * extents, else i_block[0]; i_extra_isize as a new inode gets.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define IOFF(f) offsetof(struct ext4_inode, f)

/* inode @ino as the set would leave it, decoded into @out (ek_inode_release) */
static int set_inode_read(struct ek_wset *ws, ek_ino_t ino, struct ek_inode *out)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *b, *raw;
	int err;

	memset(out, 0, sizeof(*out));
	b = ek_malloc(fs->blksz);
	if (!b)
		return -ENOMEM;
	err = ek_wset_read_inode(ws, ino, b, &raw);
	if (!err)
		err = ek_inode_decode(fs, ino, raw, out);
	free(b);
	return err;
}

/* a directory whose blocks these fixes can edit: linear, not inline, mapped in the inode */
static int editable_dir(const struct ek_fs *fs, const struct ek_inode *ei)
{
	if (!ek_is_dir(ei->mode))
		return ek_corrupt_ino(ei->ino, "inode is not a directory");
	if (ek_inode_has_inline(ei))
		return ek_err(-EK_UNSUPP, "directory inode %u: adding to an inline directory "
			      "is not supported", ei->ino);
	if (ek_dir_is_htree(fs, ei))
		return ek_err(-EK_UNSUPP, "directory inode %u: adding to an htree directory "
			      "is not supported", ei->ino);
	/* a casefolded one takes a name as any linear directory: nothing hashes it */
	if (ei->flags & EXT4_ENCRYPT_FL)
		return ek_err(-EK_UNSUPP, "directory inode %u: adding to an encrypted "
			      "directory is not supported", ei->ino);
	return 0;
}

int ek_fix_dir_linkable(struct ek_wset *ws, ek_ino_t dir)
{
	struct ek_inode ei;
	int err = set_inode_read(ws, dir, &ei);

	if (!err || err == -EK_BADCRC)
		err = editable_dir(ek_wset_fs(ws), &ei);
	ek_inode_release(&ei);
	return err;
}

int ek_fix_dir_link(struct ek_wset *ws, ek_ino_t dir, const char *name, uint8_t name_len,
		    ek_ino_t ino, uint8_t file_type)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_inode ei;
	uint64_t nblocks;
	uint8_t *b = NULL;
	int err = set_inode_read(ws, dir, &ei);

	if (err && err != -EK_BADCRC)
		goto out;
	err = editable_dir(fs, &ei);
	if (err)
		goto out;
	b = ek_malloc(fs->blksz);
	if (!b) {
		err = -ENOMEM;
		goto out;
	}
	/* i_size bounds the walk: a directory of more blocks than the image
	 * holds fails at the first block its map does not have */
	nblocks = (ei.size + fs->blksz - 1) >> fs->log_blksz;
	err = -ENOSPC;
	for (uint64_t lblk = 0; lblk < nblocks && err == -ENOSPC; lblk++) {
		ek_blk_t pblk;
		bool unwritten = false, ok;

		err = ek_map_bmap(fs, &ei, lblk, &pblk, &unwritten);
		if (err)
			break;
		if (!pblk || unwritten) {
			err = -ENOSPC;	/* a hole: not a block to add to */
			continue;
		}
		err = ek_wset_read(ws, pblk, b);
		if (err)
			break;
		ok = ek_dir_block_csum_ok(fs, &ei, lblk, b);
		err = ek_dir_leaf_insert(fs, dir, pblk, b, name, name_len, ino, file_type);
		if (err == -EK_CORRUPT)
			err = -ENOSPC;	/* a damaged block is left as it is */
		if (err)
			continue;
		if (ok)
			ek_dir_block_reseal(fs, &ei, lblk, b);
		err = ek_wset_put(ws, pblk, b);
	}
	if (err == -ENOSPC)
		err = ek_err(-ENOSPC, "directory inode %u: no room for an entry", dir);
out:
	free(b);
	ek_inode_release(&ei);
	return err;
}

int ek_fix_dir_expand(struct ek_wset *ws, ek_ino_t dir, ek_blk_t blk)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_inode ei;
	uint64_t lblk;
	uint8_t *raw, *b = NULL;
	int err = set_inode_read(ws, dir, &ei);

	if (err && err != -EK_BADCRC)
		goto out;
	err = editable_dir(fs, &ei);
	if (err)
		goto out;
	lblk = (ei.size + fs->blksz - 1) >> fs->log_blksz;
	err = ek_wset_inode(ws, dir, &raw);
	if (err)
		goto out;
	if (ei.flags & EXT4_EXTENTS_FL) {
		/* an extent root in the inode: the new block extends the last
		 * extent or takes a free slot (a deeper tree is not grown here) */
		const uint8_t *root = raw + IOFF(i_block);
		struct ek_ext v[5];
		uint16_t n = get_le16(root + 2), depth = get_le16(root + 6);

		err = ek_ext_node_check(dir, 0, root, EXT4_N_BLOCKS * 4, -1);
		if (!err && depth)
			err = ek_err(-EK_UNSUPP, "directory inode %u: growing an extent tree of "
				     "depth %u is not supported", dir, depth);
		if (err)
			goto out;
		for (uint16_t i = 0; i < n; i++)
			v[i] = ek_ext_decode(root + 12 + 12 * i);
		if (n && (uint64_t)v[n - 1].lblk + v[n - 1].len > lblk) {
			err = ek_corrupt_ino(dir, "extent past i_size");
			goto out;
		}
		if (lblk > UINT32_MAX - 1) {
			err = ek_corrupt_ino(dir, "directory too large to grow");
			goto out;
		}
		if (n && !v[n - 1].unwritten && v[n - 1].pblk + v[n - 1].len == blk &&
		    v[n - 1].lblk + v[n - 1].len == lblk && v[n - 1].len < 32768) {
			v[n - 1].len++;
		} else if (n < 4) {
			v[n++] = (struct ek_ext){ .lblk = (uint32_t)lblk, .len = 1, .pblk = blk };
		} else {
			err = ek_err(-EK_UNSUPP, "directory inode %u: its extent root is full", dir);
			goto out;
		}
		err = ek_extent_tree_write(fs, dir, raw, v, n, NULL);
		if (err)
			goto out;
	} else {
		/* a block map: the direct blocks only */
		if (lblk >= EXT4_NDIR_BLOCKS) {
			err = ek_err(-EK_UNSUPP, "directory inode %u: growing past its direct "
				     "blocks is not supported", dir);
			goto out;
		}
		put_le32(raw + IOFF(i_block) + 4 * lblk, (uint32_t)blk);
	}
	ek_inode_size_set(raw, (lblk + 1) << fs->log_blksz);
	ek_inode_add_blocks(fs, raw, 1);
	ek_inode_csum_set(fs, dir, raw);
	b = ek_malloc(fs->blksz);
	if (!b) {
		err = -ENOMEM;
		goto out;
	}
	ek_dir_block_empty(fs, dir, ei.generation, b);
	err = ek_wset_put(ws, blk, b);
out:
	free(b);
	ek_inode_release(&ei);
	return err;
}

int ek_fix_dir_new(struct ek_wset *ws, ek_ino_t ino, ek_ino_t parent, uint16_t mode,
		   ek_blk_t blk, int64_t now)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_timespec ts = { .sec = now };
	uint8_t *raw, *out = NULL;
	uint32_t nblocks;
	bool indexed;
	int err = ek_dir_build(fs, ino, 0, 0, parent, 0, false, NULL, 0, &out, &nblocks, &indexed);

	if (!err && nblocks != 1)
		err = ek_err(-EINVAL, "directory inode %u: %u blocks for no entries", ino, nblocks);
	if (!err)
		err = ek_wset_put(ws, blk, out);
	free(out);
	if (!err)
		err = ek_wset_inode(ws, ino, &raw);
	if (err)
		return err;
	ek_inode_init_new(fs, raw, 0040000 | (mode & 07777), 2, ts, true);
	ek_inode_size_set(raw, fs->blksz);
	ek_inode_add_blocks(fs, raw, 1);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		struct ek_ext e = { .lblk = 0, .len = 1, .pblk = blk };

		put_le32(raw + IOFF(i_flags), EXT4_EXTENTS_FL);
		err = ek_extent_tree_write(fs, ino, raw, &e, 1, NULL);
		if (err)
			return err;
	} else {
		put_le32(raw + IOFF(i_block), (uint32_t)blk);
	}
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}

/* ---- quota usage ---------------------------------------------------------------- */

int ek_fix_quota_usage(struct ek_wset *ws, ek_ino_t ino, unsigned type, uint32_t id,
		       uint64_t inodes, uint64_t space)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_inode ei;
	uint8_t *buf = NULL, *b;
	size_t len, off;
	ek_blk_t pblk;
	int err = ek_quota_read_raw(fs, ino, type, &buf, &len);

	memset(&ei, 0, sizeof(ei));
	if (!err)
		err = ek_quota_entry_offset(buf, len, id, &off);
	if (!err)
		err = ek_inode_read(fs, ino, &ei);
	if (err == -EK_BADCRC)
		err = 0;
	if (!err)
		err = ek_map_bmap(fs, &ei, off >> fs->log_blksz, &pblk, NULL);
	if (!err && !pblk)
		err = ek_corrupt_ino(ino, "quota file: the entry of id %u lies in a hole", id);
	if (!err)
		err = ek_wset_block(ws, pblk, &b);
	/* quota blocks (1 KiB) never straddle a filesystem block */
	if (!err)
		ek_quota_entry_set_usage(b + (off & (fs->blksz - 1)), inodes, space);
	ek_inode_release(&ei);
	free(buf);
	return err;
}
