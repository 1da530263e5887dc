// SPDX-License-Identifier: MIT
/*
 * check_layout.c - per-file fragmentation and the free-space histogram
 * (layout.c) on a filesystem built in memory, and the errors they pass on.
 */
#include "unit.h"

#define BLK 1024
#define NBLK 256

static struct unit_fs u;

/*
 * Blocks 1..15 used, 100..105 and 200 (the file's), 255; free: 16..99
 * (84), 106..199 (94), 201..254 (54).
 */
static void setup(unsigned flags)
{
	uint8_t b[BLK] = { 0 };

	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	for (unsigned blk = 1; blk < UNIT_FREE; blk++)
		unit_set_bit(b, blk - 1);
	for (unsigned blk = 100; blk < 106; blk++)
		unit_set_bit(b, blk - 1);
	unit_set_bit(b, 200 - 1);
	for (unsigned blk = NBLK - 1; blk <= BLK * 8; blk++)
		unit_set_bit(b, blk - 1);
	unit_write(&u, UNIT_BB, 0, b, BLK);
	ck_assert_int_eq(unit_fs_open(&u, flags), 0);
}

/* inode 12: 0..3 -> 100, 4..5 -> 104 (physically next), 10 -> 200 (after a hole) */
static void file(struct ek_inode *ei, bool damage)
{
	struct ext4_inode raw = { 0 };
	uint8_t *root = (uint8_t *)raw.i_block;

	raw.i_mode = cpu_to_le16(0100644);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw.i_size_lo = cpu_to_le32(11 * BLK);
	raw.i_extra_isize = cpu_to_le16(32);
	put_header(root, 3, 4, 0);
	put_extent(root, 0, 0, 4, 100);
	put_extent(root, 1, 4, 2, 104);
	put_extent(root, 2, 10, 1, 200);
	if (damage)
		put_extent(root, 2, 5, 1, 200);	/* overlaps the one before */
	unit_put_inode(&u, 12, &raw);
	ck_assert_int_eq(ek_inode_read(u.fs, 12, ei), 0);
}

START_TEST(test_file)
{
	struct ek_inode ei;
	struct ek_frag f;

	setup(0);
	file(&ei, false);
	ck_assert_int_eq(ek_layout_file(u.fs, &ei, &f), 0);
	ck_assert_uint_eq(f.blocks, 7);
	ck_assert_uint_eq(f.extents, 3);
	ck_assert_uint_eq(f.runs, 2);
	ck_assert_uint_eq(f.holes, 1);
	ck_assert_uint_eq(f.ideal, 1);
	ck_assert_uint_eq(f.tree_blocks, 0);
	ck_assert_uint_eq(f.hist[2], 1);	/* 4 blocks */
	ck_assert_uint_eq(f.hist[1], 1);	/* 2 */
	ck_assert_uint_eq(f.hist[0], 1);	/* 1 */
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_free)
{
	struct ek_freefrag ff;

	setup(0);
	ck_assert_int_eq(ek_layout_free(u.fs, 64, &ff), 0);
	ck_assert_uint_eq(ff.total_blocks, NBLK);
	ck_assert_uint_eq(ff.free_blocks, 84 + 94 + 54);
	ck_assert_uint_eq(ff.extents, 3);
	ck_assert_uint_eq(ff.min_extent, 54);
	ck_assert_uint_eq(ff.max_extent, 94);
	ck_assert_uint_eq(ff.hist[6], 2);	/* 64..127: 84, 94 */
	ck_assert_uint_eq(ff.hist[5], 1);	/* 32..63: 54 */
	ck_assert_uint_eq(ff.hist_blocks[6], 84 + 94);
	/* chunks of 64 from block 1: 1..64 (used 1..15), 65..128 (100..105), 129..192 free, 193.. */
	ck_assert_uint_eq(ff.total_chunks, 4);
	ck_assert_uint_eq(ff.free_chunks, 1);
	unit_fs_done(&u);
}
END_TEST

/* errors are the map walk's and the bitmap reader's, passed on */
START_TEST(test_errors)
{
	struct ek_freefrag ff;
	struct ek_inode ei;
	struct ek_frag f;

	setup(0);
	file(&ei, true);
	ek_error_clear();
	ck_assert_int_eq(ek_layout_file(u.fs, &ei, &f), -EK_CORRUPT);
	ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "out of order"));
	ek_inode_release(&ei);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_NO_BITMAPS), 0);
	ck_assert_int_eq(ek_layout_free(u.fs, 0, &ff), -EINVAL);
	unit_fs_done(&u);
}
END_TEST

static Suite *layout_suite(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_file);
	tcase_add_test(tc, test_free);
	tcase_add_test(tc, test_errors);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(layout_suite)
