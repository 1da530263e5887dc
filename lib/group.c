// SPDX-License-Identifier: MIT
/*
 * group.c - block group geometry, group descriptors and bitmaps.
 *
 * Descriptors are 32 bytes, or s_desc_size (>= 64) with the 64bit feature.
 * Their checksum is crc16 over uuid, group and descriptor (uninit_bg) or
 * the low 16 bits of crc32c (metadata_csum); the checksum field itself is
 * skipped.  Bitmap checksums live in the descriptor (metadata_csum): the
 * block bitmap covers clusters_per_group bits, the inode bitmap
 * inodes_per_group bits.  A BLOCK_UNINIT group's bitmap is computed like
 * the kernel's ext4_init_block_bitmap(); an INODE_UNINIT group has none.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

uint32_t ek_group_of_block(const struct ek_fs *fs, ek_blk_t blk)
{
	return (blk - fs->sb.first_data_block) / fs->sb.blocks_per_group;
}

uint32_t ek_group_of_ino(const struct ek_fs *fs, ek_ino_t ino)
{
	return (ino - 1) / fs->sb.inodes_per_group;
}

ek_blk_t ek_group_first_block(const struct ek_fs *fs, uint32_t g)
{
	return fs->sb.first_data_block + (ek_blk_t)g * fs->sb.blocks_per_group;
}

ek_blk_t ek_group_last_block(const struct ek_fs *fs, uint32_t g)
{
	if (g == fs->group_count - 1)
		return fs->sb.blocks_count - 1;
	return ek_group_first_block(fs, g) + fs->sb.blocks_per_group - 1;
}

uint32_t ek_group_blocks(const struct ek_fs *fs, uint32_t g)
{
	return ek_group_last_block(fs, g) - ek_group_first_block(fs, g) + 1;
}

/* the clusters of group @g, counting a last partial cluster */
static uint64_t group_clusters(const struct ek_fs *fs, uint32_t g)
{
	return (ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >> fs->cluster_bits;
}

static void scan_group(const struct ek_fs *fs, struct ek_cluster_scan *s, uint32_t g)
{
	s->g = g;
	s->first = ek_group_first_block(fs, g);
	s->end = group_clusters(fs, g);
	s->new_group = true;
}

void ek_cluster_scan_start(const struct ek_fs *fs, ek_blk_t goal, struct ek_cluster_scan *s)
{
	*s = (struct ek_cluster_scan){ 0 };
	if (!fs->group_count)
		return;
	if (goal < fs->sb.first_data_block || goal >= fs->sb.blocks_count)
		goal = fs->sb.first_data_block;
	s->g0 = ek_group_of_block(fs, goal);
	scan_group(fs, s, s->g0);
	s->goal_bit = goal < s->first ? 0 : (goal - s->first) >> fs->cluster_bits;
	s->next = s->goal_bit;
}

bool ek_cluster_scan_next(const struct ek_fs *fs, struct ek_cluster_scan *s, ek_blk_t *blk)
{
	while (s->next >= s->end) {
		if (++s->k > fs->group_count)
			return false;
		scan_group(fs, s, (s->g0 + s->k) % fs->group_count);
		s->next = 0;
		if (s->k == fs->group_count)	/* back in the goal's group */
			s->end = s->goal_bit;
	}
	s->bit = s->next++;
	*blk = s->first + (s->bit << fs->cluster_bits);
	if (s->bit != (s->k ? 0 : s->goal_bit))
		s->new_group = false;
	return true;
}

static bool is_power_of(uint32_t n, uint32_t base)
{
	while (n % base == 0)
		n /= base;
	return n == 1;
}

bool ek_super_group_has_super(uint32_t compat, uint32_t ro_compat, const uint32_t backup_bgs[2],
			      uint32_t g)
{
	if (g == 0)
		return true;
	if (compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2)
		return g == backup_bgs[0] || g == backup_bgs[1];
	if (g <= 1 || !(ro_compat & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return true;
	if (!(g & 1))
		return false;
	return is_power_of(g, 3) || is_power_of(g, 5) || is_power_of(g, 7);
}

bool ek_group_has_super(const struct ek_fs *fs, uint32_t g)
{
	const uint32_t bgs[2] = { le32_to_cpu(fs->raw_sb->s_backup_bgs[0]),
				  le32_to_cpu(fs->raw_sb->s_backup_bgs[1]) };

	return ek_super_group_has_super(fs->sb.compat, fs->sb.ro_compat, bgs, g);
}

static uint32_t gdt_blocks(const struct ek_fs *fs)
{
	return (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block;
}

uint32_t ek_group_sb_gdt_blocks(const struct ek_fs *fs, uint32_t g)
{
	uint32_t n, meta_grp;

	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG))
		return ek_group_has_super(fs, g) ?
		       1 + gdt_blocks(fs) + fs->sb.reserved_gdt_blocks : 0;
	n = ek_group_has_super(fs, g) ? 1 : 0;
	meta_grp = g / fs->desc_per_block;
	if (meta_grp < fs->sb.first_meta_bg) {
		if (n)
			n += fs->sb.first_meta_bg + fs->sb.reserved_gdt_blocks;
	} else {
		uint32_t r = g % fs->desc_per_block;

		if (r == 0 || r == 1 || r == fs->desc_per_block - 1)
			n++;
	}
	return n;
}

ek_blk_t ek_group_reserved_gdt_block(const struct ek_fs *fs, uint32_t g, uint32_t i)
{
	ek_blk_t first = ek_group_first_block(fs, g);

	/* 1 KiB blocks from block 0 (bigalloc): the superblock is block 1 */
	if (fs->sb.first_data_block == 0 && fs->blksz == 1024)
		first++;
	return first + 1 + gdt_blocks(fs) + i;
}

/* the backup groups a reserved GDT block's copies are listed for: those
 * with a superblock from group 1 on, as many as a block holds */
static uint32_t resize_backups(const struct ek_fs *fs)
{
	uint32_t n = 0;

	for (uint32_t g = 1; g < fs->group_count && n < fs->blksz / 4; g++)
		n += ek_group_has_super(fs, g);
	return n;
}

void ek_resize_dind_encode(const struct ek_fs *fs, uint8_t *buf)
{
	uint32_t apb = fs->blksz / 4;

	memset(buf, 0, fs->blksz);
	for (uint32_t i = 0; i < fs->sb.reserved_gdt_blocks && i < apb; i++)
		put_le32(buf + 4 * ((gdt_blocks(fs) + i) % apb),
			 (uint32_t)ek_group_reserved_gdt_block(fs, 0, i));
}

void ek_resize_gdt_encode(const struct ek_fs *fs, uint32_t i, uint8_t *buf)
{
	uint32_t n = 0;

	memset(buf, 0, fs->blksz);
	for (uint32_t g = 1; g < fs->group_count && n < fs->blksz / 4; g++)
		if (ek_group_has_super(fs, g))
			put_le32(buf + 4 * n++, (uint32_t)ek_group_reserved_gdt_block(fs, g, i));
}

void ek_resize_inode_encode(const struct ek_fs *fs, ek_blk_t dind, uint8_t *raw)
{
	uint64_t apb = fs->blksz / 4;
	uint64_t blocks = 1 + (uint64_t)fs->sb.reserved_gdt_blocks * (1 + resize_backups(fs));

	put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * EXT4_DIND_BLOCK, (uint32_t)dind);
	ek_inode_size_set(raw, (apb * apb + apb + EXT4_NDIR_BLOCKS) * fs->blksz);
	/* each block counted as a whole cluster with bigalloc, as mke2fs does */
	ek_inode_iblocks_set(raw, (blocks << fs->cluster_bits) << (fs->log_blksz - 9));
}

ek_blk_t ek_gdt_block(const struct ek_fs *fs, ek_blk_t sb_blk, uint32_t i)
{
	uint32_t bg;
	ek_blk_t blk;

	/* 1k blocks with bigalloc: first_data_block is 0, the sb is in block 1 */
	if (sb_blk == 0 && fs->blksz == 1024)
		sb_blk = 1;
	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG) || i < fs->sb.first_meta_bg)
		return sb_blk + 1 + i;
	bg = fs->desc_per_block * i;
	blk = ek_group_first_block(fs, bg);
	if (ek_group_has_super(fs, bg))
		blk++;
	if (blk == 0 && fs->blksz == 1024)
		blk = 1;	/* never reached for valid geometry; keeps off the boot block */
	return blk;
}

uint16_t ek_group_desc_csum(const struct ek_fs *fs, uint32_t g, const void *desc)
{
	const uint32_t off = offsetof(struct ext4_group_desc, bg_checksum);
	__le32 le_g = cpu_to_le32(g);
	const uint8_t *d = desc;

	if (fs->has_csum) {
		uint16_t zero = 0;
		uint32_t c = ek_crc32c(fs->csum_seed, &le_g, 4);

		c = ek_crc32c(c, d, off);
		c = ek_crc32c(c, &zero, 2);
		if (fs->desc_size > off + 2)
			c = ek_crc32c(c, d + off + 2, fs->desc_size - off - 2);
		return c & 0xFFFF;
	}
	if (fs->has_gdt_csum) {
		uint16_t c = ek_crc16(~0, fs->sb.uuid, 16);

		c = ek_crc16(c, &le_g, 4);
		c = ek_crc16(c, d, off);
		if (fs->desc_size > off + 2)
			c = ek_crc16(c, d + off + 2, fs->desc_size - off - 2);
		return c;
	}
	return 0;
}

/*
 * The descriptor's split fields: the low half at @lo, the high half at @hi
 * (0: none) when the descriptor reaches past it (64-byte descriptors of 64bit; the
 * kernel's EXT4_BG_*_CSUM_HI_END for the bitmap checksums).
 */
static const struct {
	uint8_t lo, hi, width;
} gd_fields[] = {
#define GDF(f, w) { offsetof(struct ext4_group_desc, f##_lo), offsetof(struct ext4_group_desc, f##_hi), w }
	[EK_GD_BLOCK_BITMAP] = GDF(bg_block_bitmap, 4),
	[EK_GD_INODE_BITMAP] = GDF(bg_inode_bitmap, 4),
	[EK_GD_INODE_TABLE] = GDF(bg_inode_table, 4),
	[EK_GD_FREE_BLOCKS] = GDF(bg_free_blocks_count, 2),
	[EK_GD_FREE_INODES] = GDF(bg_free_inodes_count, 2),
	[EK_GD_USED_DIRS] = GDF(bg_used_dirs_count, 2),
	[EK_GD_ITABLE_UNUSED] = GDF(bg_itable_unused, 2),
	[EK_GD_BLOCK_BITMAP_CSUM] = GDF(bg_block_bitmap_csum, 2),
	[EK_GD_INODE_BITMAP_CSUM] = GDF(bg_inode_bitmap_csum, 2),
	[EK_GD_FLAGS] = { offsetof(struct ext4_group_desc, bg_flags), 0, 2 },	/* no high half */
#undef GDF
};

static bool gd_has_hi(const struct ek_fs *fs, enum ek_gd_field f)
{
	return gd_fields[f].hi && fs->desc_size >= (uint32_t)gd_fields[f].hi + gd_fields[f].width;
}

uint64_t ek_gd_get(const struct ek_fs *fs, const void *desc, enum ek_gd_field f)
{
	const uint8_t *d = desc;
	unsigned w = gd_fields[f].width;
	uint64_t v = w == 4 ? get_le32(d + gd_fields[f].lo) : get_le16(d + gd_fields[f].lo);

	if (gd_has_hi(fs, f))
		v |= (w == 4 ? (uint64_t)get_le32(d + gd_fields[f].hi) :
			       (uint64_t)get_le16(d + gd_fields[f].hi)) << (8 * w);
	return v;
}

void ek_gd_set(const struct ek_fs *fs, void *desc, enum ek_gd_field f, uint64_t v)
{
	uint8_t *d = desc;

	if (gd_fields[f].width == 4) {
		put_le32(d + gd_fields[f].lo, (uint32_t)v);
		if (gd_has_hi(fs, f))
			put_le32(d + gd_fields[f].hi, (uint32_t)(v >> 32));
	} else {
		put_le16(d + gd_fields[f].lo, (uint16_t)v);
		if (gd_has_hi(fs, f))
			put_le16(d + gd_fields[f].hi, (uint16_t)(v >> 16));
	}
}

uint32_t ek_bitmap_csum(const struct ek_fs *fs, const void *map, bool inode)
{
	uint32_t bytes = inode ? fs->sb.inodes_per_group / 8 : fs->sb.clusters_per_group / 8;
	uint32_t c = ek_crc32c(fs->csum_seed, map, bytes);

	return gd_has_hi(fs, inode ? EK_GD_INODE_BITMAP_CSUM : EK_GD_BLOCK_BITMAP_CSUM) ? c :
										       c & 0xFFFF;
}

static void desc_decode(const struct ek_fs *fs, const uint8_t *d, struct ek_group *g)
{
	const struct ext4_group_desc *gd = (const void *)d;

	g->block_bitmap = ek_gd_get(fs, d, EK_GD_BLOCK_BITMAP);
	g->inode_bitmap = ek_gd_get(fs, d, EK_GD_INODE_BITMAP);
	g->inode_table = ek_gd_get(fs, d, EK_GD_INODE_TABLE);
	g->free_blocks = (uint32_t)ek_gd_get(fs, d, EK_GD_FREE_BLOCKS);
	g->free_inodes = (uint32_t)ek_gd_get(fs, d, EK_GD_FREE_INODES);
	g->used_dirs = (uint32_t)ek_gd_get(fs, d, EK_GD_USED_DIRS);
	g->itable_unused = (uint32_t)ek_gd_get(fs, d, EK_GD_ITABLE_UNUSED);
	g->flags = le16_to_cpu(gd->bg_flags);
	g->checksum = le16_to_cpu(gd->bg_checksum);
	g->block_bitmap_csum = (uint32_t)ek_gd_get(fs, d, EK_GD_BLOCK_BITMAP_CSUM);
	g->inode_bitmap_csum = (uint32_t)ek_gd_get(fs, d, EK_GD_INODE_BITMAP_CSUM);
}

int ek_groups_load(struct ek_fs *fs)
{
	unsigned bad_csum = 0, bad_loc = 0;

	for (uint32_t g = 0; g < fs->group_count; g++) {
		const uint8_t *d = fs->gd_raw + (size_t)g * fs->desc_size;
		struct ek_group *grp = &fs->groups[g];

		desc_decode(fs, d, grp);
		if ((fs->has_csum || fs->has_gdt_csum) &&
		    ek_group_desc_csum(fs, g, d) != grp->checksum) {
			grp->csum_bad = true;
			if (bad_csum++ < 8)
				ek_fs_warn(fs, "group %u: descriptor checksum 0x%04x does not match 0x%04x",
					   g, grp->checksum, ek_group_desc_csum(fs, g, d));
		}
		if (!ek_fs_block_valid(fs, grp->block_bitmap) ||
		    !ek_fs_block_valid(fs, grp->inode_bitmap) ||
		    !ek_fs_range_valid(fs, grp->inode_table, fs->itable_blocks)) {
			if (bad_loc++ < 8)
				ek_fs_warn(fs, "group %u: bitmap or inode table location out of range", g);
		}
	}
	if (bad_csum > 8)
		ek_fs_warn(fs, "%u groups with bad descriptor checksums in all", bad_csum);
	if (bad_loc > 8)
		ek_fs_warn(fs, "%u groups with bad metadata locations in all", bad_loc);
	return 0;
}

static void set_bit_range(uint8_t *map, uint64_t first, uint64_t count)
{
	for (uint64_t b = first; b < first + count; b++)
		map[b >> 3] |= 1u << (b & 7);
}

/* mark a block of this group (by block number) in a cluster bitmap */
static void mark_block(const struct ek_fs *fs, uint8_t *map, uint32_t g, ek_blk_t blk)
{
	ek_blk_t first = ek_group_first_block(fs, g);

	if (blk >= first && blk <= ek_group_last_block(fs, g))
		set_bit_range(map, (blk - first) >> fs->cluster_bits, 1);
}

/* as the kernel's ext4_init_block_bitmap() */
static void init_block_bitmap(const struct ek_fs *fs, uint32_t g, uint8_t *map)
{
	const struct ek_group *grp = &fs->groups[g];
	ek_blk_t first = ek_group_first_block(fs, g);
	uint32_t meta = ek_group_sb_gdt_blocks(fs, g);
	uint64_t nclusters = ((uint64_t)ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >>
			     fs->cluster_bits;

	memset(map, 0, fs->blksz);
	for (uint32_t i = 0; i < meta; i++)
		mark_block(fs, map, g, first + i);
	mark_block(fs, map, g, grp->block_bitmap);
	mark_block(fs, map, g, grp->inode_bitmap);
	for (uint32_t i = 0; i < fs->itable_blocks; i++)
		mark_block(fs, map, g, grp->inode_table + i);
	/* bits past the end of the last group, up to the block's end, are set */
	set_bit_range(map, nclusters, (uint64_t)fs->blksz * 8 - nclusters);
}

int ek_bitmap_read(struct ek_fs *fs, uint32_t g, bool inode, uint8_t *map)
{
	const struct ek_group *grp;
	ek_blk_t blk;

	if (g >= fs->group_count)
		return -EINVAL;
	grp = &fs->groups[g];
	if (!inode && (fs->has_csum || fs->has_gdt_csum) && (grp->flags & EXT4_BG_BLOCK_UNINIT)) {
		init_block_bitmap(fs, g, map);
		return 0;
	}
	if (inode && (fs->has_csum || fs->has_gdt_csum) && (grp->flags & EXT4_BG_INODE_UNINIT)) {
		memset(map, 0, fs->blksz);
		return 0;
	}
	blk = inode ? grp->inode_bitmap : grp->block_bitmap;
	if (!ek_fs_block_valid(fs, blk))
		return ek_corrupt_grp(g, "%s bitmap block %llu out of range",
				      inode ? "inode" : "block", (unsigned long long)blk);
	return ek_fs_read_blocks(fs, blk, 1, map);
}

bool ek_bitmap_padding_ok(const struct ek_fs *fs, uint32_t g, bool inode, const uint8_t *map)
{
	uint64_t bits = inode ? fs->sb.inodes_per_group : fs->sb.clusters_per_group;

	for (uint64_t i = bits / 8; i < fs->blksz; i++)
		if (map[i] != 0xFF)
			return false;
	if (!inode && g == fs->group_count - 1)
		for (uint64_t c = (ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >> fs->cluster_bits;
		     c < bits; c++)
			if (!ek_bit_test(map, c))
				return false;
	return true;
}

static int bitmap_load(struct ek_fs *fs, uint32_t g, bool inode, const uint8_t **out)
{
	uint8_t **slot = inode ? &fs->inode_bitmaps[g] : &fs->block_bitmaps[g];
	const struct ek_group *grp = &fs->groups[g];
	uint8_t *map;
	int err;

	if (*slot) {
		*out = *slot;
		return 0;
	}
	if (fs->flags & EK_OPEN_NO_BITMAPS)
		return ek_err(-EINVAL, "bitmaps were not read (-c)");
	map = ek_malloc(fs->blksz);
	if (!map)
		return -ENOMEM;
	err = ek_bitmap_read(fs, g, inode, map);
	if (err) {
		free(map);
		return err;
	}
	if (fs->has_csum && !(grp->flags & (inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT))) {
		uint32_t c = ek_bitmap_csum(fs, map, inode);
		uint32_t want = inode ? grp->inode_bitmap_csum : grp->block_bitmap_csum;

		if (c != want)
			ek_fs_warn(fs, "group %u: %s bitmap checksum 0x%08x does not match 0x%08x",
				   g, inode ? "inode" : "block", want, c);
	}
	*slot = map;
	*out = map;
	return 0;
}

int ek_block_bitmap_get(struct ek_fs *fs, uint32_t g, const uint8_t **out)
{
	if (g >= fs->group_count)
		return -EINVAL;
	return bitmap_load(fs, g, false, out);
}

int ek_inode_bitmap_get(struct ek_fs *fs, uint32_t g, const uint8_t **out)
{
	if (g >= fs->group_count)
		return -EINVAL;
	return bitmap_load(fs, g, true, out);
}

int ek_test_block(struct ek_fs *fs, ek_blk_t blk)
{
	const uint8_t *map;
	uint32_t g;
	int err;

	if (blk < fs->sb.first_data_block || blk >= fs->sb.blocks_count)
		return -EINVAL;
	g = ek_group_of_block(fs, blk);
	err = ek_block_bitmap_get(fs, g, &map);
	if (err)
		return err;
	return ek_bit_test(map, (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits);
}

int ek_test_inode(struct ek_fs *fs, ek_ino_t ino)
{
	const uint8_t *map;
	uint32_t g;
	int err;

	if (ino < 1 || ino > fs->sb.inodes_count)
		return -EINVAL;
	g = ek_group_of_ino(fs, ino);
	err = ek_inode_bitmap_get(fs, g, &map);
	if (err)
		return err;
	return ek_bit_test(map, (ino - 1) % fs->sb.inodes_per_group);
}
