// SPDX-License-Identifier: MIT
/* check_owner.c - block ownership (owner.c) and the read overlay (io.c, fs.c) */
#include "unit.h"

#define BLK 1024
#define NBLK 256

static struct unit_fs u;

/* ---- geometry: superblock copies, descriptors, reserved GDT, flex_bg ---- */

/*
 * Four groups of 64 blocks (1 KiB, first data block 1), sparse_super: copies
 * in groups 0, 1 and 3.  Plain: each copy is sb, 1 GDT block, 2 reserved.
 * meta_bg (first_meta_bg 0): descriptor block 0 in groups 0 and 1 (the
 * first and second of the meta group) right after the superblock, and no
 * reserved blocks.  Bitmaps and tables of all groups live in group 0.
 */
static void geometry_fs(bool meta)
{
	struct ext4_group_desc gd[4] = { 0 };
	uint8_t map[BLK] = { 0 };

	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_FILETYPE |
		     (meta ? EXT4_FEATURE_INCOMPAT_META_BG : 0), EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER);
	u.sb.s_blocks_per_group = cpu_to_le32(64);
	u.sb.s_clusters_per_group = cpu_to_le32(64);
	u.sb.s_inodes_count = cpu_to_le32(4 * UNIT_INODES);
	u.sb.s_reserved_gdt_blocks = cpu_to_le16(meta ? 0 : 2);
	for (int g = 0; g < 4; g++) {
		gd[g].bg_block_bitmap_lo = cpu_to_le32(5 + g);
		gd[g].bg_inode_bitmap_lo = cpu_to_le32(9 + g);
		gd[g].bg_inode_table_lo = cpu_to_le32(13 + 8 * g);
	}
	u.gd = gd[0];
	for (int g = 0; g < 4; g++)	/* 32-byte descriptors: no 64bit */
		unit_write(&u, 2, 32 * g, &gd[g], 32);
	/* group 2's bitmap: 150 in use (by nobody), 151 free */
	unit_set_bit(map, 150 - 129);
	unit_write(&u, 7, 0, map, BLK);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	ck_assert_msg(u.fs->nwarnings == 0, "%s", u.fs->nwarnings ? u.fs->warnings[0] : "");
	ck_assert_uint_eq(u.fs->group_count, 4);
}

static const struct {
	ek_blk_t blk;
	enum ek_blk_owner_kind plain, meta;
	uint32_t group;
	bool backup;
} geo[] = {
	{ 0, EK_OWNER_BOOT, EK_OWNER_BOOT, 0, false },
	{ 1, EK_OWNER_SUPER, EK_OWNER_SUPER, 0, false },
	{ 2, EK_OWNER_GDT, EK_OWNER_GDT, 0, false },
	{ 3, EK_OWNER_RESERVED_GDT, EK_OWNER_FREE, 0, false },
	{ 4, EK_OWNER_RESERVED_GDT, EK_OWNER_FREE, 0, false },
	{ 6, EK_OWNER_BLOCK_BITMAP, EK_OWNER_BLOCK_BITMAP, 1, false },
	{ 12, EK_OWNER_INODE_BITMAP, EK_OWNER_INODE_BITMAP, 3, false },
	{ 13, EK_OWNER_INODE_TABLE, EK_OWNER_INODE_TABLE, 0, false },
	{ 44, EK_OWNER_INODE_TABLE, EK_OWNER_INODE_TABLE, 3, false },
	{ 65, EK_OWNER_SUPER, EK_OWNER_SUPER, 1, true },
	{ 66, EK_OWNER_GDT, EK_OWNER_GDT, 1, true },
	{ 68, EK_OWNER_RESERVED_GDT, EK_OWNER_FREE, 1, true },
	{ 69, EK_OWNER_FREE, EK_OWNER_FREE, 0, false },
	{ 129, EK_OWNER_FREE, EK_OWNER_FREE, 0, false },	/* group 2: no copy */
	{ 150, EK_OWNER_UNKNOWN, EK_OWNER_UNKNOWN, 0, false },
	{ 151, EK_OWNER_FREE, EK_OWNER_FREE, 0, false },
	{ 193, EK_OWNER_SUPER, EK_OWNER_SUPER, 3, true },
	{ 194, EK_OWNER_GDT, EK_OWNER_FREE, 3, true },		/* meta_bg: not the last group */
	{ 196, EK_OWNER_RESERVED_GDT, EK_OWNER_FREE, 3, true },
	{ 256, EK_OWNER_OUTSIDE, EK_OWNER_OUTSIDE, 0, false },
	{ 1ull << 40, EK_OWNER_OUTSIDE, EK_OWNER_OUTSIDE, 0, false },
};

START_TEST(test_geometry)
{
	bool meta = _i;
	size_t n = sizeof(geo) / sizeof(geo[0]);
	ek_blk_t blocks[sizeof(geo) / sizeof(geo[0])];
	struct ek_blk_owner out[sizeof(geo) / sizeof(geo[0])];
	char what[128];

	geometry_fs(meta);
	/* asked in reverse: the answer follows the caller's order */
	for (size_t i = 0; i < n; i++)
		blocks[i] = geo[n - 1 - i].blk;
	ck_assert_int_eq(ek_blocks_owner(u.fs, blocks, n, out), 0);
	for (size_t i = 0; i < n; i++) {
		const struct ek_blk_owner *o = &out[n - 1 - i];
		enum ek_blk_owner_kind want = meta ? geo[i].meta : geo[i].plain;

		ck_assert_msg(o->kind == want, "block %llu: %s, expected %s",
			      (unsigned long long)geo[i].blk, ek_blk_owner_kind_name(o->kind),
			      ek_blk_owner_kind_name(want));
		switch (want) {
		case EK_OWNER_SUPER:
		case EK_OWNER_GDT:
		case EK_OWNER_RESERVED_GDT:
			ck_assert_uint_eq(o->backup, geo[i].backup);
			/* fallthrough */
		case EK_OWNER_BLOCK_BITMAP:
		case EK_OWNER_INODE_BITMAP:
		case EK_OWNER_INODE_TABLE:
			ck_assert_uint_eq(o->group, geo[i].group);
			break;
		default:
			break;
		}
		if (want == EK_OWNER_GDT) {
			ck_assert_uint_eq(o->first_group, 0);
			ck_assert_uint_eq(o->last_group, 3);
		}
	}
	/* the last inode table block of group 3: inodes 97 + 28..31 */
	ck_assert_uint_eq(out[n - 1 - 8].first_ino, 3 * UNIT_INODES + 29);
	ck_assert_uint_eq(out[n - 1 - 8].last_ino, 4 * UNIT_INODES);
	ck_assert_str_eq(ek_blk_owner_describe(&out[n - 1 - 8], what, sizeof(what)),
			 "inode table of group 3 (inodes 125-128)");
	ck_assert_str_eq(ek_blk_owner_describe(&out[n - 1 - 9], what, sizeof(what)),
			 "superblock (backup in group 1)");
	ck_assert_str_eq(ek_blk_owner_describe(&out[n - 1 - 10], what, sizeof(what)),
			 "group descriptors (groups 0-3, backup in group 1)");
	unit_fs_done(&u);
}
END_TEST

/* ---- the inode pass --------------------------------------------------- */

static void inode(ek_ino_t ino, uint16_t mode, uint32_t flags, const void *iblock,
		  uint32_t file_acl, uint32_t dtime, uint16_t links)
{
	struct ext4_inode raw = { 0 };

	raw.i_mode = cpu_to_le16(mode);
	raw.i_links_count = cpu_to_le16(links);
	raw.i_flags = cpu_to_le32(flags);
	raw.i_size_lo = cpu_to_le32(64 * BLK);
	raw.i_blocks_lo = cpu_to_le32(16);
	raw.i_file_acl_lo = cpu_to_le32(file_acl);
	raw.i_dtime = cpu_to_le32(dtime);
	raw.i_extra_isize = cpu_to_le16(32);
	if (iblock)
		memcpy(raw.i_block, iblock, 60);
	unit_put_inode(&u, ino, &raw);
}

static void extent_inode(ek_ino_t ino, uint16_t mode, uint32_t lblk, uint16_t len, uint64_t pblk)
{
	uint8_t root[60] = { 0 };

	put_header(root, 1, 4, 0);
	put_extent(root, 0, lblk, len, pblk);
	inode(ino, mode, EXT4_EXTENTS_FL, root, 0, 0, 1);
}

/*
 * One group (unit.h layout: sb 1, GDT 2, bitmaps 3 and 4, inode table
 * 5..12) with a journal:
 *   2  root directory, block 20
 *   8  journal, blocks 30..33
 *   12 extent tree of depth 1: leaf 40, data 41..42 (0..1), 50..52 unwritten (10..12)
 *   13 indirect: 60 (0), IND 61 -> 62, 63 (12, 13), DIND 64 -> IND 65 -> 66 (268)
 *   14, 15 share xattr block 70; 16 has xattr block 71
 *   17 deleted (not in the inode bitmap): claims 80 (in use) and 81 (free)
 *   18 claims inode table block 5 as data: the table wins
 *   19 claims 41 too: inode 12 came first
 *   20 fast symlink whose text looks like block numbers
 * Block bitmap: everything below 100 but 81 and 90, and 100 (by nobody).
 */
static void inode_fs(void)
{
	uint8_t root[60] = { 0 }, b[BLK] = { 0 };
	__le32 ib[15] = { 0 };

	unit_fs_init(&u, BLK, NBLK, EXT4_FEATURE_COMPAT_HAS_JOURNAL,
		     EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	u.sb.s_journal_inum = cpu_to_le32(8);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);

	extent_inode(2, 040755, 0, 1, 20);
	extent_inode(8, 0100600, 0, 4, 30);
	put_header(root, 1, 4, 1);
	put_index(root, 0, 0, 40);
	inode(12, 0100644, EXT4_EXTENTS_FL, root, 0, 0, 1);
	put_header(b, 2, (BLK - 12 - 4) / 12, 0);
	put_extent(b, 0, 0, 2, 41);
	put_extent(b, 1, 10, 32768 + 3, 50);
	unit_write(&u, 40, 0, b, BLK);

	ib[0] = cpu_to_le32(60);
	ib[12] = cpu_to_le32(61);
	ib[13] = cpu_to_le32(64);
	inode(13, 0100644, 0, ib, 0, 0, 1);
	memset(b, 0, BLK);
	put_le32(b, 62);
	put_le32(b + 4, 63);
	unit_write(&u, 61, 0, b, BLK);
	memset(b, 0, BLK);
	put_le32(b, 65);
	unit_write(&u, 64, 0, b, BLK);
	memset(b, 0, BLK);
	put_le32(b, 66);
	unit_write(&u, 65, 0, b, BLK);

	inode(14, 0100644, 0, NULL, 70, 0, 1);
	inode(15, 0100644, 0, NULL, 70, 0, 1);
	inode(16, 0100644, 0, NULL, 71, 0, 1);
	memset(ib, 0, sizeof(ib));
	ib[0] = cpu_to_le32(80);
	ib[1] = cpu_to_le32(81);
	inode(17, 0100644, 0, ib, 0, 1700000000, 0);
	extent_inode(18, 0100644, 3, 1, 5);
	extent_inode(19, 0100644, 7, 1, 41);
	{
		struct ext4_inode raw = { 0 };

		raw.i_mode = cpu_to_le16(0120777);
		raw.i_links_count = cpu_to_le16(1);
		raw.i_size_lo = cpu_to_le32(5);
		raw.i_extra_isize = cpu_to_le16(32);
		memcpy(raw.i_block, "Z\0\0\0[", 5);	/* as block numbers: 90, 91 */
		unit_put_inode(&u, 20, &raw);
	}

	memset(b, 0, BLK);
	for (unsigned i = 1; i <= 20; i++)
		if (i != 17)
			unit_set_bit(b, i - 1);
	unit_write(&u, UNIT_IB, 0, b, BLK);
	memset(b, 0, BLK);
	for (unsigned blk = 1; blk < 100; blk++)
		if (blk != 81 && blk != 90)
			unit_set_bit(b, blk - 1);
	unit_set_bit(b, 100 - 1);
	unit_write(&u, UNIT_BB, 0, b, BLK);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
}

static const struct {
	ek_blk_t blk;
	enum ek_blk_owner_kind kind;
	ek_ino_t ino;
	uint64_t lblk;
	uint32_t level;
	const char *text;
} own[] = {
	{ 20, EK_OWNER_DIR, 2, 0, 0, "directory block of inode 2 (logical block 0)" },
	{ 32, EK_OWNER_JOURNAL, 8, 2, 0, "journal (inode 8), block 2" },
	{ 40, EK_OWNER_EXTENT_LEAF, 12, 0, 0, "extent leaf block of inode 12 (from logical block 0)" },
	{ 42, EK_OWNER_DATA, 12, 1, 0, "data of inode 12 (logical block 1)" },
	{ 52, EK_OWNER_DATA, 12, 12, 0, "data of inode 12 (logical block 12, unwritten)" },
	{ 41, EK_OWNER_DATA, 12, 0, 0, "data of inode 12 (logical block 0)" },
	{ 60, EK_OWNER_DATA, 13, 0, 0, NULL },
	{ 61, EK_OWNER_INDIRECT, 13, 12, 1,
	  "single indirect block of inode 13 (from logical block 12)" },
	{ 63, EK_OWNER_DATA, 13, 13, 0, NULL },
	{ 64, EK_OWNER_INDIRECT, 13, 268, 2,
	  "double indirect block of inode 13 (from logical block 268)" },
	{ 65, EK_OWNER_INDIRECT, 13, 268, 1, NULL },
	{ 66, EK_OWNER_DATA, 13, 268, 0, NULL },
	{ 70, EK_OWNER_XATTR, 0, 0, 0, "xattr block of 2 inodes (14..15)" },
	{ 71, EK_OWNER_XATTR, 0, 0, 0, "xattr block of inode 16" },
	{ 80, EK_OWNER_UNKNOWN, 0, 0, 0, "in use, owner not found" },
	{ 81, EK_OWNER_FREE, 0, 0, 0, "free" },
	{ 5, EK_OWNER_INODE_TABLE, 0, 0, 0, "inode table of group 0 (inodes 1-4)" },
	{ 90, EK_OWNER_FREE, 0, 0, 0, NULL },
	{ 91, EK_OWNER_UNKNOWN, 0, 0, 0, NULL },
	{ 100, EK_OWNER_UNKNOWN, 0, 0, 0, NULL },
	{ 101, EK_OWNER_FREE, 0, 0, 0, NULL },
	{ 41, EK_OWNER_DATA, 12, 0, 0, NULL },	/* asked twice */
};

static void check_owners(const struct ek_blk_owner *out)
{
	char what[128];

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		const struct ek_blk_owner *o = &out[i];

		ck_assert_msg(o->kind == own[i].kind, "block %llu: %s, expected %s",
			      (unsigned long long)own[i].blk, ek_blk_owner_kind_name(o->kind),
			      ek_blk_owner_kind_name(own[i].kind));
		if (own[i].ino)
			ck_assert_uint_eq(o->ino, own[i].ino);
		if (own[i].ino)
			ck_assert_uint_eq(o->lblk, own[i].lblk);
		if (o->kind == EK_OWNER_INDIRECT)
			ck_assert_uint_eq(o->level, own[i].level);
		if (own[i].text)
			ck_assert_str_eq(ek_blk_owner_describe(o, what, sizeof(what)), own[i].text);
	}
}

START_TEST(test_inodes)
{
	size_t n = sizeof(own) / sizeof(own[0]);
	ek_blk_t blocks[sizeof(own) / sizeof(own[0])];
	struct ek_blk_owner out[sizeof(own) / sizeof(own[0])];

	inode_fs();
	for (size_t i = 0; i < n; i++)
		blocks[i] = own[i].blk;
	ck_assert_int_eq(ek_blocks_owner(u.fs, blocks, n, out), 0);
	check_owners(out);
	ck_assert_uint_eq(out[12].refs, 2);
	ck_assert_uint_eq(out[12].first_ino, 14);
	ck_assert_uint_eq(out[12].last_ino, 15);
	ck_assert(out[4].unwritten && !out[3].unwritten);
	/* nothing asked: nothing done */
	ck_assert_int_eq(ek_blocks_owner(u.fs, blocks, 0, out), 0);
	unit_fs_done(&u);
}
END_TEST

/*
 * Only the listed inodes' maps: 12's blocks are named, 13's and 2's
 * (not listed) are UNKNOWN in use, the geometry and the free blocks are
 * as before; 15 listed alone makes a one-user xattr record.
 */
START_TEST(test_among)
{
	ek_blk_t blocks[] = { 20, 40, 41, 52, 60, 61, 70, 81, 5 };
	ek_ino_t inos[] = { 12, 15, 17 };	/* 17: not in use, walked as nothing */
	struct ek_blk_owner out[9];

	inode_fs();
	ck_assert_int_eq(ek_blocks_owner_among(u.fs, blocks, 9, inos, 3, out), 0);
	ck_assert_int_eq(out[0].kind, EK_OWNER_UNKNOWN);	/* root's, not listed */
	ck_assert_int_eq(out[1].kind, EK_OWNER_EXTENT_LEAF);
	ck_assert_uint_eq(out[1].ino, 12);
	ck_assert_int_eq(out[2].kind, EK_OWNER_DATA);
	ck_assert_uint_eq(out[2].lblk, 0);
	ck_assert_int_eq(out[3].kind, EK_OWNER_DATA);
	ck_assert(out[3].unwritten);
	ck_assert_int_eq(out[4].kind, EK_OWNER_UNKNOWN);
	ck_assert_int_eq(out[5].kind, EK_OWNER_UNKNOWN);
	ck_assert_int_eq(out[6].kind, EK_OWNER_XATTR);
	ck_assert_uint_eq(out[6].refs, 1);
	ck_assert_uint_eq(out[6].first_ino, 15);
	ck_assert_int_eq(out[7].kind, EK_OWNER_FREE);
	ck_assert_int_eq(out[8].kind, EK_OWNER_INODE_TABLE);
	/* no inode listed: geometry and bitmaps only */
	ck_assert_int_eq(ek_blocks_owner_among(u.fs, blocks, 9, NULL, 0, out), 0);
	ck_assert_int_eq(out[1].kind, EK_OWNER_UNKNOWN);
	ck_assert_int_eq(out[8].kind, EK_OWNER_INODE_TABLE);
	/* an inode number outside the filesystem is damage, the rest still named */
	inos[1] = 1u << 30;
	ck_assert_int_lt(ek_blocks_owner_among(u.fs, blocks, 9, inos, 2, out), 0);
	ck_assert_int_eq(out[1].kind, EK_OWNER_EXTENT_LEAF);
	unit_fs_done(&u);
}
END_TEST

/* a map that cannot be walked: what it named before stays, the rest is
 * classified, and the damage is returned at the end */
START_TEST(test_damage)
{
	ek_blk_t blocks[] = { 20, 40, 62, 66, 70 };
	struct ek_blk_owner out[5];
	uint8_t bad[BLK] = { 0 };

	inode_fs();
	put_le32(bad, 9999);	/* DIND -> IND 65 -> outside */
	unit_write(&u, 65, 0, bad, BLK);
	ck_assert_int_eq(ek_blocks_owner(u.fs, blocks, 5, out), -EK_CORRUPT);
	ck_assert_msg(strstr(ek_error_msg(-EK_CORRUPT), "inode 13"), "%s",
		      ek_error_msg(-EK_CORRUPT));
	ck_assert_int_eq(out[0].kind, EK_OWNER_DIR);
	ck_assert_int_eq(out[1].kind, EK_OWNER_EXTENT_LEAF);
	ck_assert_int_eq(out[2].kind, EK_OWNER_DATA);	/* before the bad pointer */
	ck_assert_int_eq(out[3].kind, EK_OWNER_UNKNOWN);	/* in use, never reached */
	ck_assert_int_eq(out[4].kind, EK_OWNER_XATTR);
	unit_fs_done(&u);
}
END_TEST

/* ---- the read overlay ----------------------------------------------------- */

struct overlay {
	uint8_t blk[4][BLK];
	ek_blk_t at[4];
	int n;
	ek_blk_t fail;		/* block that returns -EIO, 0: none */
	unsigned calls;
};

static int overlay_read(void *arg, ek_blk_t blk, void *buf)
{
	struct overlay *ov = arg;

	ov->calls++;
	if (ov->fail && blk == ov->fail)
		return -EIO;
	for (int i = 0; i < ov->n; i++)
		if (ov->at[i] == blk) {
			memcpy(buf, ov->blk[i], BLK);
			return 0;
		}
	memset(buf, 0xEE, BLK);	/* scribbled on: must not be seen */
	return 1;
}

static uint8_t *overlay_add(struct overlay *ov, ek_blk_t blk)
{
	uint8_t *b = ov->blk[ov->n];

	ov->at[ov->n++] = blk;
	ck_assert_int_eq(pread(u.fd, b, BLK, (off_t)blk * BLK), BLK);
	return b;
}

/*
 * The log's view: inode 21 (table block 10) maps 90 at logical block 7,
 * its bit is set in the inode bitmap and 90's in the block bitmap.  The
 * image itself still says 90 is free.
 */
static void overlay_new_inode(struct overlay *ov)
{
	uint8_t *it = overlay_add(ov, 10), *ibm = overlay_add(ov, UNIT_IB);
	uint8_t *bbm = overlay_add(ov, UNIT_BB);
	struct ext4_inode *raw = (void *)it;

	memset(raw, 0, 256);
	raw->i_mode = cpu_to_le16(0100644);
	raw->i_links_count = cpu_to_le16(1);
	raw->i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw->i_extra_isize = cpu_to_le16(32);
	put_header((uint8_t *)raw->i_block, 1, 4, 0);
	put_extent((uint8_t *)raw->i_block, 0, 7, 1, 90);
	unit_set_bit(ibm, 20);
	unit_set_bit(bbm, 89);
}

START_TEST(test_overlay)
{
	struct overlay ov = { 0 };
	struct ek_fs *rfs;
	struct ek_inode ei;
	ek_blk_t blocks[] = { 90, 41 };
	struct ek_blk_owner out[2];
	uint8_t before[3 * BLK], after[3 * BLK], got[3 * BLK];

	inode_fs();
	overlay_new_inode(&ov);
	ck_assert_int_eq(pread(u.fd, before, sizeof(before), 9 * BLK), (ssize_t)sizeof(before));

	ck_assert_int_eq(ek_fs_open(u.path, &(struct ek_open_opts){
				.overlay = overlay_read, .overlay_arg = &ov }, &rfs), 0);
	/* the image as it is: 90 is free */
	ck_assert_int_eq(ek_blocks_owner(u.fs, blocks, 2, out), 0);
	ck_assert_int_eq(out[0].kind, EK_OWNER_FREE);
	/* through the overlay: inode 21's, found by the scan, the bitmaps and
	 * single inode reads (the chunk cache) */
	ck_assert_int_eq(ek_blocks_owner(rfs, blocks, 2, out), 0);
	ck_assert_int_eq(out[0].kind, EK_OWNER_DATA);
	ck_assert_uint_eq(out[0].ino, 21);
	ck_assert_uint_eq(out[0].lblk, 7);
	ck_assert_int_eq(out[1].kind, EK_OWNER_DATA);
	ck_assert_uint_eq(out[1].ino, 12);
	ck_assert_int_eq(ek_test_block(rfs, 90), 1);
	ck_assert_int_eq(ek_test_block(u.fs, 90), 0);
	ck_assert_int_eq(ek_test_inode(rfs, 21), 1);
	ck_assert_int_eq(ek_inode_read(rfs, 21, &ei), 0);
	ck_assert_uint_eq(ei.links_count, 1);
	ek_inode_release(&ei);
	ck_assert_int_eq(ek_inode_read(u.fs, 21, &ei), 0);
	ck_assert_uint_eq(ei.links_count, 0);
	ek_inode_release(&ei);

	/* a read across blocks 9..11, not aligned: disk, overlay, disk */
	ck_assert_int_eq(ek_io_pread(rfs->io, got, 2 * BLK, 9 * BLK + 100), 0);
	ck_assert(!memcmp(got, before + 100, BLK - 100));
	ck_assert(!memcmp(got + BLK - 100, ov.blk[0], BLK));
	ck_assert(!memcmp(got + 2 * BLK - 100, before + 2 * BLK, 100));
	/* the image is untouched, and the overlaid io never writes */
	ck_assert_int_eq(pread(u.fd, after, sizeof(after), 9 * BLK), (ssize_t)sizeof(after));
	ck_assert(!memcmp(before, after, sizeof(before)));
	ck_assert_int_eq(ek_io_pwrite(rfs->io, got, BLK, 90 * BLK), -EBADF);
	ek_fs_close(rfs);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_overlay_super)
{
	struct overlay ov = { 0 };
	struct ek_fs *rfs;
	struct ext4_super_block *sb;

	inode_fs();
	/* the superblock comes through the overlay too */
	sb = (void *)overlay_add(&ov, 1);
	sb->s_free_inodes_count = cpu_to_le32(7);
	ck_assert_int_eq(ek_fs_open(u.path, &(struct ek_open_opts){
				.overlay = overlay_read, .overlay_arg = &ov }, &rfs), 0);
	ck_assert_uint_eq(rfs->sb.free_inodes_count, 7);
	ck_assert_uint_ne(u.fs->sb.free_inodes_count, 7);
	ek_fs_close(rfs);
	/* but may not change the block size the overlay's blocks have */
	sb->s_log_block_size = cpu_to_le32(2);
	sb->s_log_cluster_size = cpu_to_le32(2);
	sb->s_first_data_block = 0;
	ck_assert_int_eq(ek_fs_open(u.path, &(struct ek_open_opts){
				.overlay = overlay_read, .overlay_arg = &ov }, &rfs), -EK_CORRUPT);
	ck_assert_msg(strstr(ek_error_msg(-EK_CORRUPT), "through the overlay: block size 4096"),
		      "%s", ek_error_msg(-EK_CORRUPT));
	/* an overlay's error is the read's */
	ov.n = 0;
	ov.fail = 2;
	ck_assert_int_eq(ek_fs_open(u.path, &(struct ek_open_opts){
				.overlay = overlay_read, .overlay_arg = &ov }, &rfs), -EIO);
	/* only for read-only opens */
	ov.fail = 0;
	ck_assert_int_eq(ek_fs_open(u.path, &(struct ek_open_opts){ .flags = EK_OPEN_RW,
				.overlay = overlay_read, .overlay_arg = &ov }, &rfs), -EINVAL);
	unit_fs_done(&u);
}
END_TEST

/* a long read: the overlay is asked for each block, the rest is the image's */
START_TEST(test_overlay_runs)
{
	struct overlay ov = { 0 };
	struct ek_io *io;
	uint8_t disk[8 * BLK], want[8 * BLK], got[8 * BLK];

	inode_fs();
	memset(overlay_add(&ov, 23), 0x5A, BLK);
	ck_assert_int_eq(pread(u.fd, disk, sizeof(disk), 20 * BLK), (ssize_t)sizeof(disk));
	memcpy(want, disk, sizeof(want));
	memset(want + 3 * BLK, 0x5A, BLK);
	ck_assert_int_eq(ek_io_open(u.path, 0, 0, &io), 0);
	ck_assert_int_eq(ek_io_set_overlay(io, overlay_read, &ov, 10), 0);
	ck_assert_int_eq(ek_io_pread(io, got, sizeof(got), 20 * BLK), 0);
	ck_assert(!memcmp(want, got, sizeof(got)));
	ck_assert_uint_eq(ov.calls, 8);
	/* an odd block size is refused; removing the overlay reads the image */
	ck_assert_int_eq(ek_io_set_overlay(io, overlay_read, &ov, 9), -EINVAL);
	ck_assert_int_eq(ek_io_set_overlay(io, NULL, NULL, 0), 0);
	ck_assert_int_eq(ek_io_pread(io, got, BLK, 23 * BLK), 0);
	ck_assert(!memcmp(got, disk + 3 * BLK, BLK));
	ek_io_close(io);
	/* an io open for writing takes none */
	ck_assert_int_eq(ek_io_open(u.path, EK_IO_RW, 0, &io), 0);
	ck_assert_int_eq(ek_io_set_overlay(io, overlay_read, &ov, 10), -EINVAL);
	ek_io_close(io);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_names)
{
	struct ek_blk_owner o = { .kind = EK_OWNER_DATA };

	ck_assert_str_eq(ek_blk_owner_kind_name(EK_OWNER_INODE_TABLE), "inode_table");
	ck_assert_str_eq(ek_blk_owner_kind_name(EK_OWNER_GDT), "group_descriptors");
	ck_assert_str_eq(ek_blk_owner_kind_name((enum ek_blk_owner_kind)99), "?");
	for (int k = EK_OWNER_UNKNOWN; k <= EK_OWNER_DATA; k++) {
		char buf[128];

		o.kind = k;
		ck_assert_str_ne(ek_blk_owner_kind_name(k), "?");
		ck_assert_str_ne(ek_blk_owner_describe(&o, buf, sizeof(buf)), "?");
	}
}
END_TEST

/*
 * The census (debugfs map) against the per-block classifier: one block a
 * cell, every block of the geometry fixtures (plain, meta_bg) and of the
 * inode fixture; each cell counts the kind ek_blocks_owner names (and more
 * where two sources name a block, e.g. metadata free in a zeroed bitmap).
 * Then 16 blocks a cell: the cells' totals are what the single-block
 * census counts.
 */
START_TEST(test_census)
{
	static ek_blk_t blocks[NBLK];
	static struct ek_blk_owner out[NBLK];
	static uint64_t count[NBLK][EK_OWNER_NKINDS], count16[NBLK / 16][EK_OWNER_NKINDS];
	struct ek_owner_census c = { .first = 0, .per_cell = 1, .ncells = NBLK,
				     .count = count, .read_bitmaps = true, .walk_inodes = true };
	struct ek_owner_census c16 = c;
	uint64_t tot1[EK_OWNER_NKINDS] = { 0 }, tot16[EK_OWNER_NKINDS] = { 0 };

	if (_i < 2)
		geometry_fs(_i);
	else
		inode_fs();
	memset(count, 0, sizeof(count));
	memset(count16, 0, sizeof(count16));
	for (ek_blk_t b = 0; b < NBLK; b++)
		blocks[b] = b;
	ck_assert_int_eq(ek_blocks_owner(u.fs, blocks, NBLK, out), 0);
	ck_assert_int_eq(ek_owner_census(u.fs, &c), 0);
	for (ek_blk_t b = 0; b < NBLK; b++)
		ck_assert_msg(count[b][out[b].kind] >= 1, "block %llu: census has no %s",
			      (unsigned long long)b, ek_blk_owner_kind_name(out[b].kind));
	c16.per_cell = 16;
	c16.ncells = NBLK / 16;
	c16.count = count16;
	ck_assert_int_eq(ek_owner_census(u.fs, &c16), 0);
	for (size_t k = 0; k < NBLK; k++)
		for (int kind = 0; kind < EK_OWNER_NKINDS; kind++)
			tot1[kind] += count[k][kind];
	for (size_t k = 0; k < NBLK / 16; k++)
		for (int kind = 0; kind < EK_OWNER_NKINDS; kind++)
			tot16[kind] += count16[k][kind];
	/* named kinds add up the same; unknown fills only cells short of blocks */
	for (int kind = EK_OWNER_FREE; kind < EK_OWNER_NKINDS; kind++)
		ck_assert_msg(tot1[kind] == tot16[kind], "%s: %llu one a cell, %llu 16 a cell",
			      ek_blk_owner_kind_name(kind), (unsigned long long)tot1[kind],
			      (unsigned long long)tot16[kind]);
	c.per_cell = 0;
	ck_assert_int_eq(ek_owner_census(u.fs, &c), -EINVAL);
	unit_fs_done(&u);
}
END_TEST

static Suite *owner_suite(void)
{
	Suite *s = suite_create("owner");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_geometry, 0, 2);
	tcase_add_test(tc, test_inodes);
	tcase_add_test(tc, test_among);
	tcase_add_test(tc, test_damage);
	tcase_add_test(tc, test_overlay);
	tcase_add_test(tc, test_overlay_super);
	tcase_add_test(tc, test_overlay_runs);
	tcase_add_test(tc, test_names);
	tcase_add_loop_test(tc, test_census, 0, 3);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(owner_suite)
