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
		o.has_blocks = r->i_blocks_lo || r->l_i_blocks_high || r->i_file_acl_lo ||
			       r->l_i_file_acl_high;
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
					o.has_blocks = get_le32(raw + offsetof(struct ext4_inode, i_blocks_lo)) ||
						       get_le32(raw + offsetof(struct ext4_inode, i_file_acl_lo));
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

/* ---- releasing orphans (what a mount does after replay) -------------------- */

struct release {
	struct ek_fs *fs;
	ek_ino_t *inos;
	size_t n, cap;
	int err;
};

int ek_orphan_supported(const struct ek_orphan *o)
{
	if (o->in_file)
		return ek_unsupp("inode %u: processing the orphan file is not implemented yet", o->ino);
	if (o->links)
		return ek_unsupp("inode %u: truncating orphans is not implemented yet", o->ino);
	if (o->has_blocks)
		return ek_unsupp("inode %u: freeing an orphan's blocks is not implemented yet", o->ino);
	return 0;
}

static int collect_orphan(void *arg, const struct ek_orphan *o)
{
	struct release *r = arg;
	int err = ek_orphan_supported(o);

	if (err)
		return err;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		ek_ino_t *v = realloc(r->inos, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		r->inos = v;
		r->cap = cap;
	}
	r->inos[r->n++] = o->ino;
	return 0;
}

static int disk_read(void *arg, ek_blk_t blk, void *buf)
{
	return ek_fs_read_blocks(arg, blk, 1, buf);
}

/* write the descriptor of group @g from fs->gd_raw, checksummed */
static int write_group_desc(struct ek_fs *fs, uint32_t g)
{
	uint8_t *d = fs->gd_raw + (size_t)g * fs->desc_size;
	uint32_t per = fs->desc_per_block, i = g / per;
	ek_blk_t blk = ek_gdt_block(fs, fs->sb_block ? fs->sb_block : fs->sb.first_data_block, i);

	if (fs->has_csum || fs->has_gdt_csum)
		put_le16(d + offsetof(struct ext4_group_desc, bg_checksum),
			 ek_group_desc_csum(fs, g, d));
	return ek_io_pwrite(fs->io, fs->gd_raw + (size_t)i * per * fs->desc_size, fs->blksz,
			    blk << fs->log_blksz);
}

/* add @delta to a lo/hi 16-bit pair of a 64-byte descriptor */
static void gd_add16(struct ek_fs *fs, uint8_t *d, size_t lo, size_t hi, int delta)
{
	uint32_t v = get_le16(d + lo);

	if (fs->desc_size >= EXT4_MIN_DESC_SIZE_64BIT)
		v |= (uint32_t)get_le16(d + hi) << 16;
	v += delta;
	put_le16(d + lo, v & 0xFFFF);
	if (fs->desc_size >= EXT4_MIN_DESC_SIZE_64BIT)
		put_le16(d + hi, v >> 16);
}

int ek_orphans_release(struct ek_fs *fs, int64_t now, uint64_t *released)
{
	struct release r = { .fs = fs };
	struct ext4_super_block *sb = fs->raw_sb;
	int err;

	*released = 0;
	/* collect first: nothing is written unless every orphan can be handled */
	err = ek_orphans_iterate(fs, sb, disk_read, fs, collect_orphan, &r);
	for (size_t i = 0; !err && i < r.n; i++) {
		ek_ino_t ino = r.inos[i];
		uint32_t g = ek_group_of_ino(fs, ino), off;
		uint8_t *raw = ek_malloc(fs->inode_size), *d = fs->gd_raw + (size_t)g * fs->desc_size;
		const uint8_t *map;
		ek_blk_t blk;
		bool dir;

		err = raw ? ek_inode_loc(fs, ino, &blk, &off) : -ENOMEM;
		if (!err)
			err = ek_io_pread(fs->io, raw, fs->inode_size, (blk << fs->log_blksz) + off);
		if (err) {
			free(raw);
			break;
		}
		/* the inode: deleted now (e2fsck: i_dtime = now), checksummed */
		dir = ek_is_dir(get_le16(raw));
		put_le32(raw + offsetof(struct ext4_inode, i_dtime), (uint32_t)now);
		if (fs->has_csum) {
			uint32_t c = ek_inode_csum(fs, ino, raw);

			put_le16(raw + offsetof(struct ext4_inode, l_i_checksum_lo), c & 0xFFFF);
			if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE &&
			    get_le16(raw + offsetof(struct ext4_inode, i_extra_isize)) >= EXT4_INODE_CSUM_HI_EXTRA_END)
				put_le16(raw + offsetof(struct ext4_inode, i_checksum_hi), c >> 16);
		}
		err = ek_io_pwrite(fs->io, raw, fs->inode_size, (blk << fs->log_blksz) + off);
		free(raw);
		ek_inode_cache_drop(fs);
		/* its bit in the inode bitmap, the group's counts, the superblock's */
		if (!err)
			err = ek_inode_bitmap_get(fs, g, &map);
		if (err)
			break;
		((uint8_t *)map)[((ino - 1) % fs->sb.inodes_per_group) >> 3] &=
			~(1u << (((ino - 1) % fs->sb.inodes_per_group) & 7));
		err = ek_io_pwrite(fs->io, map, fs->blksz, fs->groups[g].inode_bitmap << fs->log_blksz);
		if (err)
			break;
		gd_add16(fs, d, offsetof(struct ext4_group_desc, bg_free_inodes_count_lo),
			 offsetof(struct ext4_group_desc, bg_free_inodes_count_hi), 1);
		if (dir)
			gd_add16(fs, d, offsetof(struct ext4_group_desc, bg_used_dirs_count_lo),
				 offsetof(struct ext4_group_desc, bg_used_dirs_count_hi), -1);
		put_le16(d + offsetof(struct ext4_group_desc, bg_flags),
			 get_le16(d + offsetof(struct ext4_group_desc, bg_flags)) & ~EXT4_BG_INODE_UNINIT);
		if (fs->has_csum) {
			uint32_t c = ek_crc32c(fs->csum_seed, map, fs->sb.inodes_per_group / 8);

			put_le16(d + offsetof(struct ext4_group_desc, bg_inode_bitmap_csum_lo), c & 0xFFFF);
			if (fs->desc_size >= 0x3C)
				put_le16(d + offsetof(struct ext4_group_desc, bg_inode_bitmap_csum_hi), c >> 16);
		}
		err = write_group_desc(fs, g);
		sb->s_free_inodes_count = cpu_to_le32(le32_to_cpu(sb->s_free_inodes_count) + 1);
		(*released)++;
	}
	if (!err && r.n) {
		sb->s_last_orphan = 0;
		if (fs->has_csum)
			sb->s_checksum = cpu_to_le32(ek_super_csum(sb));
		err = ek_io_pwrite(fs->io, sb, EXT4_SUPERBLOCK_SIZE, EXT4_SUPERBLOCK_OFFSET);
	}
	if (!err)
		err = ek_io_sync(fs->io);
	free(r.inos);
	return err;
}
