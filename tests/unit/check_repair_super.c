// SPDX-License-Identifier: MIT
/*
 * check_repair_super.c - the superblock and descriptor repairs
 * (repair_super.c) and the bitmap padding check (group.c): a table of
 * padding cases, the large_file feature on a revision 0 superblock, a
 * bitmap moved (copied or zeroed, padded), the journal dropped; a write
 * set holding frees back for pass 5 (wset.c).
 */
#include "unit.h"

#define BLK 1024
#define NBLK 256

static struct unit_fs u;

static void setup(uint32_t compat)
{
	unit_fs_init(&u, BLK, NBLK, compat, EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
}

/* padding: @inode bitmap all ones but byte @byte (bit @bit cleared) */
static const struct { bool inode; unsigned byte, bit; bool ok; } pad[] = {
	{ false, 0, 0, true },		/* block 1: inside the filesystem */
	{ false, 31, 6, true },		/* block 255: the last block */
	{ false, 31, 7, false },	/* block 256: past the end */
	{ false, 1023, 7, false },	/* the last bit of the group */
	{ true, 3, 7, true },		/* inode 32: the last inode */
	{ true, 4, 0, false },		/* the first byte past the inodes */
	{ true, 1023, 7, false },
};

START_TEST(test_padding)
{
	uint8_t map[BLK];

	setup(0);
	memset(map, 0xFF, sizeof(map));
	ck_assert(ek_bitmap_padding_ok(u.fs, 0, pad[_i].inode, map));
	map[pad[_i].byte] &= ~(1u << pad[_i].bit);
	ck_assert_int_eq(ek_bitmap_padding_ok(u.fs, 0, pad[_i].inode, map), pad[_i].ok);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_large_file_rev0)
{
	struct ek_wset *ws;
	struct ext4_super_block *sb;

	setup(0);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	sb = ek_wset_super(ws);
	ck_assert_ptr_nonnull(sb);
	sb->s_rev_level = cpu_to_le32(EXT4_GOOD_OLD_REV);
	sb->s_first_ino = 0;
	sb->s_inode_size = 0;
	ck_assert_int_eq(ek_fix_super_feature(ws, EK_FEAT_RO_COMPAT,
					      EXT4_FEATURE_RO_COMPAT_LARGE_FILE, true), 0);
	ck_assert_uint_eq(le32_to_cpu(sb->s_feature_ro_compat), EXT4_FEATURE_RO_COMPAT_LARGE_FILE);
	ck_assert_uint_eq(le32_to_cpu(sb->s_rev_level), EXT4_DYNAMIC_REV);
	ck_assert_uint_eq(le32_to_cpu(sb->s_first_ino), 11);
	ck_assert_uint_eq(le16_to_cpu(sb->s_inode_size), 128);
	/* a dynamic superblock keeps its own fields; clearing leaves the revision */
	sb->s_inode_size = cpu_to_le16(256);
	ck_assert_int_eq(ek_fix_super_feature(ws, EK_FEAT_RO_COMPAT,
					      EXT4_FEATURE_RO_COMPAT_LARGE_FILE, false), 0);
	ck_assert_uint_eq(le32_to_cpu(sb->s_feature_ro_compat), 0);
	ck_assert_uint_eq(le16_to_cpu(sb->s_inode_size), 256);
	ck_assert_int_eq(ek_fix_super_rev(ws), 0);
	ck_assert_uint_eq(le16_to_cpu(sb->s_inode_size), 256);
	ck_assert_int_eq(ek_fix_super_feature(ws, 7, 1, true), -EINVAL);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_table_move)
{
	struct ek_wset *ws;
	uint8_t old[BLK], *b, *d;

	setup(0);
	memset(old, 0, sizeof(old));
	old[0] = 0x5A;
	unit_write(&u, UNIT_BB, 0, old, BLK);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	/* copied from the old place, the blocks past the end set */
	ck_assert_int_eq(ek_fix_table_move(ws, 0, EK_GD_BLOCK_BITMAP, UNIT_BB, 20), 0);
	b = ek_wset_find(ws, 20);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(b[0], 0x5A);
	ck_assert_uint_eq(b[1], 0);
	ck_assert(ek_bitmap_padding_ok(u.fs, 0, false, b));
	ck_assert_int_eq(ek_wset_desc(ws, 0, &d), 0);
	ck_assert_uint_eq(ek_gd_get(u.fs, d, EK_GD_BLOCK_BITMAP), 20);
	/* zeros, padded past the group's inodes */
	ck_assert_int_eq(ek_fix_table_move(ws, 0, EK_GD_INODE_BITMAP, 0, 21), 0);
	b = ek_wset_find(ws, 21);
	ck_assert_uint_eq(b[0], 0);
	ck_assert_uint_eq(b[3], 0);
	ck_assert(ek_bitmap_padding_ok(u.fs, 0, true, b));
	ck_assert_uint_eq(ek_gd_get(u.fs, d, EK_GD_INODE_BITMAP), 21);
	/* a block outside the filesystem */
	ck_assert_int_eq(ek_fix_table_move(ws, 0, EK_GD_BLOCK_BITMAP, 0, NBLK), -EINVAL);
	/* an inode table: made anew (zeroed), never copied, inside the filesystem */
	ck_assert_int_eq(ek_fix_table_move(ws, 0, EK_GD_INODE_TABLE, 5, 22), -EINVAL);
	ck_assert_int_eq(ek_fix_table_move(ws, 0, EK_GD_INODE_TABLE, 0, NBLK - 1), -EINVAL);
	ck_assert_int_eq(ek_fix_table_move(ws, 0, EK_GD_INODE_TABLE, 0, 22), 0);
	ck_assert_uint_eq(ek_gd_get(u.fs, d, EK_GD_INODE_TABLE), 22);
	ck_assert_int_eq(ek_wset_block(ws, 22, &b), 0);
	for (unsigned i = 0; i < BLK; i++)
		ck_assert_uint_eq(b[i], 0);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_journal_clear)
{
	struct ek_wset *ws;
	struct ext4_super_block *sb;
	struct ext4_inode raw = { 0 };
	uint8_t *ri;

	unit_fs_init(&u, BLK, NBLK, EXT4_FEATURE_COMPAT_HAS_JOURNAL, EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	u.sb.s_journal_inum = cpu_to_le32(EXT4_JOURNAL_INO);
	u.sb.s_jnl_blocks[0] = cpu_to_le32(1234);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
	raw.i_mode = cpu_to_le16(0100600);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_block[0] = cpu_to_le32(99);
	unit_put_inode(&u, EXT4_JOURNAL_INO, &raw);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_fix_journal_clear(ws), 0);
	sb = ek_wset_super(ws);
	ck_assert_uint_eq(le32_to_cpu(sb->s_feature_compat) & EXT4_FEATURE_COMPAT_HAS_JOURNAL, 0);
	ck_assert_uint_eq(le32_to_cpu(sb->s_journal_inum), 0);
	ck_assert_uint_eq(le32_to_cpu(sb->s_jnl_blocks[0]), 0);
	ck_assert_int_eq(ek_wset_inode(ws, EXT4_JOURNAL_INO, &ri), 0);
	for (unsigned i = 0; i < 256; i++)
		ck_assert_uint_eq(ri[i], 0);
	/* a new journal needs 1024 blocks at least, and fewer fast-commit ones */
	{
		struct ek_ext *v = NULL;
		size_t nv = 0;

		ck_assert_int_eq(ek_fix_journal_inode(ws, 1023, 0, 0, NULL, 0, &v, &nv), -EINVAL);
		ck_assert_int_eq(ek_fix_journal_inode(ws, 1024, 1024, 0, NULL, 0, &v, &nv), -EINVAL);
		ck_assert_ptr_null(v);
	}
	/* turning on a journal inode 8 that holds none */
	ck_assert_int_eq(ek_fix_journal_on(ws), -EK_CORRUPT);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_super_primary_needs_backup)
{
	struct ek_wset *ws;

	setup(0);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	/* opened from the primary: nothing to write back */
	ck_assert_int_eq(ek_fix_super_primary(ws), -EINVAL);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* ek_wset_hold_frees: a taking undone, a free of a block in use held back
 * (bitmap and counts as on disk, the bitmap not written), taken back by a
 * use, carried to the next set; without the hold, freed at once */
START_TEST(test_hold_frees)
{
	struct ek_wset *ws, *next;
	const struct ek_held_free *h;
	const ek_blk_t used = 100, spare = 101;
	const ek_ino_t ino = 12;
	uint8_t bits[BLK] = { 0 }, *map, *d;
	uint32_t nfree;
	size_t n;

	/* block 100 and inode 12 in use on disk, block 101 free */
	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	u.gd.bg_free_blocks_count_lo = cpu_to_le16(50);
	bits[(used - 1) / 8] = 1u << ((used - 1) % 8);
	unit_write(&u, UNIT_BB, 0, bits, BLK);
	bits[(used - 1) / 8] = 0;
	bits[(ino - 1) / 8] = 1u << ((ino - 1) % 8);
	unit_write(&u, UNIT_IB, 0, bits, BLK);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
	nfree = u.fs->groups[0].free_blocks;
	ck_assert_int_eq(ek_test_block(u.fs, used), 1);
	ck_assert_int_eq(ek_test_block(u.fs, spare), 0);
	ck_assert_int_eq(ek_test_inode(u.fs, ino), 1);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ek_wset_hold_frees(ws, true);
	/* taken, then given back in the same set: undone */
	ck_assert_int_eq(ek_wset_mark_block(ws, spare, true), 0);
	ck_assert_int_eq(ek_wset_bitmap(ws, 0, false, &map), 0);
	ck_assert(ek_bit_test(map, spare - u.fs->sb.first_data_block));
	ck_assert_int_eq(ek_wset_mark_block(ws, spare, false), 0);
	ck_assert(!ek_bit_test(map, spare - u.fs->sb.first_data_block));
	ck_assert(!ek_wset_is_held(ws, spare, false));
	/* in use on disk: held, the bitmap and count left alone */
	ck_assert_int_eq(ek_wset_mark_block(ws, used, false), 0);
	ck_assert(ek_bit_test(map, used - u.fs->sb.first_data_block));
	ck_assert(ek_wset_is_held(ws, used, false));
	ck_assert_int_eq(ek_wset_desc(ws, 0, &d), 0);
	ck_assert_uint_eq(ek_gd_get(u.fs, d, EK_GD_FREE_BLOCKS), nfree);
	/* used again: no longer held */
	ck_assert_int_eq(ek_wset_mark_block(ws, used, true), 0);
	ck_assert(!ek_wset_is_held(ws, used, false));
	ck_assert_int_eq(ek_wset_mark_block(ws, used, false), 0);
	ck_assert_int_eq(ek_wset_mark_inode(ws, ino, false, false), 0);
	h = ek_wset_held(ws, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert(!h[0].inode && h[0].num == used && h[1].inode && h[1].num == ino);
	/* sealed: the bitmaps equal the image's, so neither is written */
	ck_assert_int_eq(ek_wset_seal(ws), 0);
	ck_assert_ptr_null(ek_wset_find(ws, u.fs->groups[0].block_bitmap));
	ck_assert_ptr_null(ek_wset_find(ws, u.fs->groups[0].inode_bitmap));
	/* the next set takes the record over; released, the free is counted */
	ck_assert_int_eq(ek_wset_init(u.fs, &next), 0);
	ek_wset_carry(next, ws);
	ek_wset_free(ws);
	ck_assert(ek_wset_is_held(next, used, false) && ek_wset_is_held(next, ino, true));
	ek_wset_hold_frees(next, false);
	ck_assert_int_eq(ek_wset_mark_block(next, used, false), 0);
	ck_assert_int_eq(ek_wset_bitmap(next, 0, false, &map), 0);
	ck_assert(!ek_bit_test(map, used - u.fs->sb.first_data_block));
	ck_assert_int_eq(ek_wset_desc(next, 0, &d), 0);
	ck_assert_uint_eq(ek_gd_get(u.fs, d, EK_GD_FREE_BLOCKS), nfree + 1);
	ek_wset_held_clear(next);
	ek_wset_held(next, &n);
	ck_assert_uint_eq(n, 0);
	ek_wset_free(next);
	unit_fs_done(&u);
}
END_TEST

/*
 * e2fsck's skip step: the superblock's free counts set to the descriptors'
 * sums, in the primary superblock on disk, checksummed; a descriptor that
 * counts more free blocks or inodes than its group holds is not believed
 */
START_TEST(test_skip_counts)
{
	struct ext4_super_block sb;
	struct ek_super dec;
	uint64_t blocks;
	uint32_t inodes;

	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_FILETYPE,
		     EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	u.gd.bg_free_blocks_count_lo = cpu_to_le16(200);
	u.gd.bg_free_inodes_count_lo = cpu_to_le16(20);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
	ck_assert(ek_fsck_desc_free_counts(u.fs, &blocks, &inodes));
	ck_assert_uint_eq(blocks, 200);
	ck_assert_uint_eq(inodes, 20);
	ck_assert_int_eq(ek_fsck_skip_counts(u.fs), 1);
	ck_assert_int_eq(ek_super_read_primary(u.fs->io, &sb), 0);
	ck_assert_int_eq(ek_super_decode(&sb, false, &dec), 0);
	ck_assert_uint_eq(dec.free_blocks_count, 200);
	ck_assert_uint_eq(dec.free_inodes_count, 20);
	/* already equal: nothing to write */
	ck_assert_int_eq(ek_fsck_skip_counts(u.fs), 0);

	/* one block more than the group's 255, or one inode more than its 32 */
	u.gd.bg_free_blocks_count_lo = cpu_to_le16(NBLK);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
	ck_assert(!ek_fsck_desc_free_counts(u.fs, &blocks, &inodes));
	ck_assert_int_eq(ek_fsck_skip_counts(u.fs), -EK_CORRUPT);
	u.gd.bg_free_blocks_count_lo = cpu_to_le16(NBLK - 1);
	u.gd.bg_free_inodes_count_lo = cpu_to_le16(UNIT_INODES + 1);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
	ck_assert(!ek_fsck_desc_free_counts(u.fs, &blocks, &inodes));
	u.gd.bg_free_inodes_count_lo = cpu_to_le16(UNIT_INODES);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
	ck_assert(ek_fsck_desc_free_counts(u.fs, &blocks, &inodes));
	ck_assert_uint_eq(blocks, NBLK - 1);
	unit_fs_done(&u);
}
END_TEST

static Suite *repair_super_suite(void)
{
	Suite *s = suite_create("repair_super");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_padding, 0, sizeof(pad) / sizeof(pad[0]));
	tcase_add_test(tc, test_large_file_rev0);
	tcase_add_test(tc, test_hold_frees);
	tcase_add_test(tc, test_table_move);
	tcase_add_test(tc, test_journal_clear);
	tcase_add_test(tc, test_super_primary_needs_backup);
	tcase_add_test(tc, test_skip_counts);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(repair_super_suite)
