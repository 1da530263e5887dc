// SPDX-License-Identifier: MIT
/*
 * orphan.c - the orphan inodes a mount processes after journal replay.
 *
 * Two places hold them: the superblock list (s_last_orphan, each inode's
 * i_dtime naming the next) and, with the orphan_file feature, the orphan
 * file, whose blocks hold arrays of inode numbers followed by a tail:
 *   __le32 inodes[(blocksize - 8) / 4]; __le32 ob_magic (0x0b10ca04);
 *   __le32 ob_checksum (crc32c of the inode seed and block number).
 * Blocks are read through a caller's reader so the same walk serves the
 * image as it is and as a replay would leave it.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define EXT4_ORPHAN_BLOCK_MAGIC 0x0b10ca04

/* the raw inode @ino through @read (inode tables located as on disk) */
static int read_raw_inode(struct ek_fs *fs, ek_block_reader read, void *rarg, ek_ino_t ino,
			  uint8_t *blkbuf, const uint8_t **raw)
{
	ek_blk_t blk;
	uint32_t off;
	int err = ek_inode_loc(fs, ino, &blk, &off);

	if (err)
		return err;
	err = read(rarg, blk, blkbuf);
	*raw = blkbuf + off;
	return err;
}

int ek_orphans_iterate(struct ek_fs *fs, const struct ext4_super_block *sb, ek_block_reader read,
		       void *rarg, ek_orphan_fn fn, void *arg)
{
	struct ek_set seen = { 0 };
	uint8_t *buf = ek_malloc(fs->blksz);
	ek_ino_t ino = le32_to_cpu(sb->s_last_orphan), ofile;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (ino && !err) {
		const uint8_t *raw;
		const struct ext4_inode *r;
		struct ek_orphan o = { .ino = ino };

		if (ino < 1 || ino > fs->sb.inodes_count) {
			err = ek_corrupt_ino(ino, "orphan list names an inode out of range");
			break;
		}
		err = ek_set_add(&seen, ino);
		if (err > 0) {
			err = ek_corrupt_ino(ino, "orphan list loops back to this inode");
			break;
		}
		if (!err)
			err = read_raw_inode(fs, read, rarg, ino, buf, &raw);
		if (err)
			break;
		r = (const void *)raw;
		o.links = le16_to_cpu(r->i_links_count);
		o.mode = le16_to_cpu(r->i_mode);
		o.size = le32_to_cpu(r->i_size_lo) | (uint64_t)le32_to_cpu(r->i_size_high) << 32;
		err = fn(arg, &o);
		ino = le32_to_cpu(r->i_dtime);	/* the next orphan */
	}

	ofile = (le32_to_cpu(sb->s_feature_compat) & EXT4_FEATURE_COMPAT_ORPHAN_FILE) ?
		le32_to_cpu(sb->s_orphan_file_inum) : 0;
	if (!err && ofile) {
		struct ek_inode ei = { 0 };
		uint32_t per = (fs->blksz - 8) / 4;

		err = ek_inode_read(fs, ofile, &ei);
		if (err == -EK_BADCRC)
			err = 0;
		for (uint64_t lb = 0; !err && lb < ei.size >> fs->log_blksz && lb < fs->sb.blocks_count; lb++) {
			ek_blk_t pblk;

			err = ek_map_bmap(fs, &ei, lb, &pblk, NULL);
			if (err || !pblk)
				break;
			err = read(rarg, pblk, buf);
			if (err)
				break;
			if (get_le32(buf + fs->blksz - 8) != EXT4_ORPHAN_BLOCK_MAGIC) {
				err = ek_corrupt(pblk, "orphan file block %llu has no tail magic",
						 (unsigned long long)lb);
				break;
			}
			for (uint32_t i = 0; i < per && !err; i++) {
				struct ek_orphan o = { .ino = get_le32(buf + 4 * i), .in_file = true };
				uint8_t *ibuf;
				const uint8_t *raw;

				if (!o.ino)
					continue;
				if (o.ino > fs->sb.inodes_count) {
					err = ek_corrupt(pblk, "orphan file names inode %u out of range", o.ino);
					break;
				}
				ibuf = ek_malloc(fs->blksz);
				err = ibuf ? read_raw_inode(fs, read, rarg, o.ino, ibuf, &raw) : -ENOMEM;
				if (!err) {
					o.links = get_le16(raw + offsetof(struct ext4_inode, i_links_count));
					o.mode = get_le16(raw + offsetof(struct ext4_inode, i_mode));
					o.size = get_le32(raw + offsetof(struct ext4_inode, i_size_lo)) |
						 (uint64_t)get_le32(raw + offsetof(struct ext4_inode, i_size_high)) << 32;
					err = fn(arg, &o);
				}
				free(ibuf);
			}
		}
		ek_inode_release(&ei);
	}
	ek_set_release(&seen);
	free(buf);
	return err;
}
