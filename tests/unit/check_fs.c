// SPDX-License-Identifier: MIT
/* check_fs.c - opening a filesystem, group descriptors, bitmaps, inodes */
#include "unit.h"

#define BLK 1024
#define NBLK 256

static struct unit_fs u;

static bool has_warning(const struct ek_fs *fs, const char *what)
{
	for (unsigned i = 0; i < fs->nwarnings; i++)
		if (strstr(fs->warnings[i], what))
			return true;
	return false;
}

static void base(uint32_t ro_compat)
{
	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_FILETYPE, ro_compat);
}

static void put_simple_inode(ek_ino_t ino, uint16_t extra)
{
	struct ext4_inode raw = { 0 };

	raw.i_mode = cpu_to_le16(0100644);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_extra_isize = cpu_to_le16(extra);
	raw.i_generation = cpu_to_le32(7);
	unit_put_inode(&u, ino, &raw);
}

START_TEST(test_inode_ok)
{
	struct ek_inode ei;

	base(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	put_simple_inode(12, 32);
	ck_assert_int_eq(ek_inode_read(u.fs, 12, &ei), 0);
	ck_assert_uint_eq(ei.mode, 0100644);
	ck_assert_uint_eq(ei.generation, 7);
	ck_assert(!ei.csum_bad);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_block_uninit)
{
	const uint8_t *map;

	base(EXT4_FEATURE_RO_COMPAT_GDT_CSUM);
	u.gd.bg_flags = cpu_to_le16(EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_UNINIT);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	ck_assert_int_eq(ek_block_bitmap_get(u.fs, 0, &map), 0);
	/* block 1 (sb), 2 (gdt), 3 and 4 (bitmaps), 5..12 (table) in use; 13 free */
	for (ek_blk_t b = 1; b <= 12; b++)
		ck_assert_int_eq(ek_test_block(u.fs, b), 1);
	ck_assert_int_eq(ek_test_block(u.fs, 13), 0);
	ck_assert_int_eq(ek_test_block(u.fs, NBLK - 1), 0);
	/* padding past the end of the group is marked */
	ck_assert(ek_bit_test(map, NBLK - 1));
	ck_assert_int_eq(ek_test_inode(u.fs, 12), 0);
	ck_assert_int_eq(ek_test_block(u.fs, NBLK), -EINVAL);
	ck_assert_int_eq(ek_test_inode(u.fs, 0), -EINVAL);
	unit_fs_done(&u);
}
END_TEST

/* one case per corruption check of inode.c, group.c and fs.c */
static const struct {
	const char *what;
	int err;		/* expected from the operation */
	const char *warning;	/* expected among fs warnings after open, or NULL */
} bad[] = {
	{ "inode number 0", -EK_CORRUPT, NULL },
	{ "inode number past count", -EK_CORRUPT, NULL },
	{ "inode table outside", -EK_CORRUPT, "location out of range" },
	{ "scan: inode table outside", -EK_CORRUPT, "location out of range" },
	{ "bad i_extra_isize", -EK_CORRUPT, NULL },
	{ "inode checksum", -EK_BADCRC, NULL },
	{ "bitmap block outside", -EK_CORRUPT, "location out of range" },
	{ "bitmaps not read", -EINVAL, NULL },
	{ "descriptor checksum", 0, "descriptor checksum" },
	{ "bitmap checksum", 0, NULL },	/* warned when the bitmap is read */
	{ "read outside", -EK_CORRUPT, NULL },
	{ "backup superblock block size", -EK_CORRUPT, NULL },
	{ "no backup superblock", -EK_CORRUPT, NULL },
	{ "descriptors larger than image", -EK_CORRUPT, NULL },
	{ "descriptor block outside", -EK_CORRUPT, NULL },
	{ "first_meta_bg past table", 0, "first_meta_bg" },
	{ "fs larger than image", 0, "image holds only" },
};

static int scan_nop(void *arg, struct ek_inode *ei, int err)
{
	(void)arg, (void)ei, (void)err;
	return 0;
}

START_TEST(test_bad)
{
	struct ek_open_opts o = { 0 };
	struct ek_inode ei = { 0 };
	const uint8_t *map;
	uint8_t buf[BLK];
	int err = 0, oerr;

	base(_i == 5 || _i == 8 || _i == 9 ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	switch (_i) {
	case 2: case 3: u.gd.bg_inode_table_lo = cpu_to_le32(NBLK - 2); break;
	case 6: u.gd.bg_block_bitmap_lo = cpu_to_le32(NBLK + 10); break;
	case 13:	/* 2^17 groups of 8 blocks: 4 MiB of descriptors in a 256 KiB image */
		u.sb.s_blocks_count_lo = cpu_to_le32((1u << 20) + 1);
		u.sb.s_blocks_per_group = u.sb.s_clusters_per_group = cpu_to_le32(8);
		u.sb.s_inodes_per_group = cpu_to_le32(8);
		u.sb.s_inodes_count = cpu_to_le32(8u << 17);
		break;
	case 14: u.sb.s_blocks_count_lo = cpu_to_le32(2); break;
	case 15:
		u.sb.s_feature_incompat |= cpu_to_le32(EXT4_FEATURE_INCOMPAT_META_BG);
		u.sb.s_first_meta_bg = cpu_to_le32(5);
		break;
	case 16: u.sb.s_blocks_count_lo = cpu_to_le32(NBLK * 2); break;
	}
	oerr = unit_fs_open(&u, _i == 7 ? EK_OPEN_NO_BITMAPS : 0);
	if (_i == 11 || _i == 12) {
		/* a backup at block 100: its block size disagrees, or it is absent */
		struct ext4_super_block sb = u.sb;

		sb.s_log_block_size = cpu_to_le32(2);
		sb.s_first_data_block = 0;
		if (_i == 11)
			unit_write(&u, 100, 0, &sb, sizeof(sb));
		ek_fs_close(u.fs);
		u.fs = NULL;
		o.superblock = 100;
		o.blocksize = BLK;
		ek_error_clear();
		err = ek_fs_open(u.path, &o, &u.fs);
		goto check;
	}
	if (_i == 13 || _i == 14) {
		err = oerr;
		goto check;
	}
	ck_assert_msg(oerr == 0, "case '%s': open failed: %s", bad[_i].what, ek_error_msg(oerr));
	if (bad[_i].warning)
		ck_assert_msg(has_warning(u.fs, bad[_i].warning), "case '%s': no warning '%s'",
			      bad[_i].what, bad[_i].warning);
	ek_error_clear();
	switch (_i) {
	case 0: err = ek_inode_read(u.fs, 0, &ei); break;
	case 1: err = ek_inode_read(u.fs, UNIT_INODES + 1, &ei); break;
	case 2: err = ek_inode_read(u.fs, 12, &ei); break;
	case 3: err = ek_inode_scan(u.fs, scan_nop, NULL); break;
	case 4:
		put_simple_inode(12, 3);
		err = ek_inode_read(u.fs, 12, &ei);
		ck_assert_ptr_nonnull(ei.raw);	/* decoded despite the error */
		break;
	case 5:
		put_simple_inode(12, 32);
		buf[0] = 0x55;
		ck_assert_int_eq(pwrite(u.fd, buf, 1, (off_t)UNIT_IT * BLK + 11 * 256 + 0x30), 1);
		ek_inode_cache_drop(u.fs);
		err = ek_inode_read(u.fs, 12, &ei);
		ck_assert(ei.csum_bad);
		break;
	case 6: err = ek_block_bitmap_get(u.fs, 0, &map); break;
	case 7: err = ek_block_bitmap_get(u.fs, 0, &map); break;
	case 8: ck_assert(u.fs->groups[0].csum_bad); break;
	case 9:
		err = ek_inode_bitmap_get(u.fs, 0, &map);
		ck_assert_msg(has_warning(u.fs, "bitmap checksum"), "no bitmap checksum warning");
		break;
	case 10: err = ek_fs_read_blocks(u.fs, NBLK - 1, 2, buf); break;
	}
	if (_i == 9)
		goto done;
check:
	ck_assert_msg(err == bad[_i].err, "case '%s': got %d (%s)", bad[_i].what, err,
		      ek_last_error()->msg);
	if (err && err != -EINVAL)
		ck_assert_msg(ek_last_error()->msg[0], "case '%s' left no message", bad[_i].what);
done:
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* the descriptor's lo/hi accessors: the hi half only where desc_size reaches it */
START_TEST(test_gd_fields)
{
	struct ek_fs fs = { .desc_size = _i ? 64 : 32, .csum_seed = 0x12345678 };
	uint8_t d[64], map[BLK];
	static const enum ek_gd_field f32[] = { EK_GD_BLOCK_BITMAP, EK_GD_INODE_BITMAP, EK_GD_INODE_TABLE };
	static const enum ek_gd_field f16[] = { EK_GD_FREE_BLOCKS, EK_GD_FREE_INODES, EK_GD_USED_DIRS,
						EK_GD_ITABLE_UNUSED, EK_GD_BLOCK_BITMAP_CSUM,
						EK_GD_INODE_BITMAP_CSUM };
	uint32_t c;

	memset(d, 0xEE, sizeof(d));
	for (size_t i = 0; i < 3; i++) {
		ek_gd_set(&fs, d, f32[i], 0x0000000A12345678ull + i);
		ck_assert_uint_eq(ek_gd_get(&fs, d, f32[i]), _i ? 0x0000000A12345678ull + i : 0x12345678u + i);
	}
	for (size_t i = 0; i < 6; i++) {
		ek_gd_set(&fs, d, f16[i], 0x0003ABCDu + i);
		ck_assert_uint_eq(ek_gd_get(&fs, d, f16[i]), _i ? 0x0003ABCDu + i : 0xABCDu + i);
	}
	/* the raw layout: kernel offsets */
	ck_assert_uint_eq(get_le32(d + offsetof(struct ext4_group_desc, bg_inode_table_lo)), 0x1234567a);
	ck_assert_uint_eq(get_le16(d + offsetof(struct ext4_group_desc, bg_itable_unused_lo)), 0xABD0);
	if (_i) {
		ck_assert_uint_eq(get_le32(d + offsetof(struct ext4_group_desc, bg_inode_table_hi)), 0xA);
		ck_assert_uint_eq(get_le16(d + offsetof(struct ext4_group_desc, bg_inode_bitmap_csum_hi)), 3);
	} else {
		ck_assert_uint_eq(d[32], 0xEE);	/* nothing past a 32-byte descriptor */
	}
	/* a bitmap checksum: crc32c over the group's bits, 16 bits in a small descriptor */
	fs.sb.inodes_per_group = 256;
	fs.sb.clusters_per_group = 8192;
	memset(map, 0x5A, sizeof(map));
	c = ek_crc32c(fs.csum_seed, map, 32);
	ck_assert_uint_eq(ek_bitmap_csum(&fs, map, true), _i ? c : (c & 0xFFFF));
	c = ek_crc32c(fs.csum_seed, map, 1024);
	ck_assert_uint_eq(ek_bitmap_csum(&fs, map, false), _i ? c : (c & 0xFFFF));
}
END_TEST

/* raw inode accessors: the kernel's ext4_isize() rule and the features behind each hi half */
START_TEST(test_inode_fields)
{
	struct ek_fs fs = { 0 };
	uint8_t raw[256] = { 0 };

	ek_inode_size_set(raw, 0x0000000700001000ull);
	ek_inode_iblocks_set(raw, 0x0000000300000010ull);
	ek_inode_file_acl_set(raw, 0x0000000500000020ull);
	ek_inode_owner_set(raw, 0x00120034, 0x00560078);
	ck_assert_uint_eq(ek_inode_size_field(raw), 0x0000000700001000ull);
	put_le16(raw + offsetof(struct ext4_inode, i_mode), 040755);	/* a directory */
	ck_assert_uint_eq(ek_inode_size(&fs, raw), 0x1000);
	ck_assert_uint_eq(ek_inode_iblocks(&fs, raw), 0x10);
	ck_assert_uint_eq(ek_inode_file_acl(&fs, raw), 0x20);
	fs.sb.incompat = EXT4_FEATURE_INCOMPAT_LARGEDIR | EXT4_FEATURE_INCOMPAT_64BIT;
	fs.sb.ro_compat = EXT4_FEATURE_RO_COMPAT_HUGE_FILE;
	ck_assert_uint_eq(ek_inode_size(&fs, raw), 0x0000000700001000ull);
	ck_assert_uint_eq(ek_inode_iblocks(&fs, raw), 0x0000000300000010ull);
	ck_assert_uint_eq(ek_inode_file_acl(&fs, raw), 0x0000000500000020ull);
	fs.sb.incompat = 0;
	put_le16(raw + offsetof(struct ext4_inode, i_mode), 0100644);	/* a regular file */
	ck_assert_uint_eq(ek_inode_size(&fs, raw), 0x0000000700001000ull);
	ck_assert_uint_eq(ek_inode_uid(raw), 0x00120034);
	ck_assert_uint_eq(ek_inode_gid(raw), 0x00560078);
	ck_assert_uint_eq(get_le16(raw + offsetof(struct ext4_inode, l_i_gid_high)), 0x56);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_size_high)), 7);
}
END_TEST

/* ek_inode_time_set is what the decoder reads back: epoch bits past 2038, clamping */
START_TEST(test_inode_times)
{
	uint8_t raw[256] = { 0 };
	struct ek_inode ei;

	base(0);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	put_le16(raw + offsetof(struct ext4_inode, i_mode), 0100644);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), _i ? 32 : 0);
	ek_inode_time_set(u.fs, raw, EK_TIME_MTIME, (struct ek_timespec){ 0x100000005ll, 7 });
	ek_inode_time_set(u.fs, raw, EK_TIME_ATIME, (struct ek_timespec){ -5, 0 });
	ek_inode_time_set(u.fs, raw, EK_TIME_CRTIME, (struct ek_timespec){ 1700000000, 9 });
	ek_inode_time_set(u.fs, raw, EK_TIME_CTIME, (struct ek_timespec){ 1ll << 40, 0 });
	ck_assert_int_eq(ek_inode_decode(u.fs, 12, raw, &ei), 0);
	ck_assert_int_eq(ei.mtime.sec, _i ? 0x100000005ll : INT32_MAX);
	ck_assert_uint_eq(ei.mtime.nsec, _i ? 7 : 0);
	ck_assert_int_eq(ei.atime.sec, -5);
	ck_assert_int_eq(ei.ctime.sec, _i ? (int64_t)INT32_MAX + (3ll << 32) : INT32_MAX);
	ck_assert_int_eq(ei.crtime.present, _i);
	if (_i)
		ck_assert_int_eq(ei.crtime.sec, 1700000000);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* the allocation order: goal to its group's end, the next groups wrapping,
 * then the start of goal's group; bigalloc steps by cluster */
START_TEST(test_cluster_scan)
{
	struct ek_fs fs = { 0 };
	struct ek_cluster_scan s;
	ek_blk_t blk, want[64];
	size_t n = 0, groups = 0;

	fs.sb.first_data_block = 1;
	fs.sb.blocks_per_group = 8;
	fs.sb.blocks_count = 1 + 8 + 8 + 5;	/* 3 groups, the last one short */
	fs.group_count = 3;
	fs.cluster_bits = _i;
	for (ek_blk_t b = 11; b < 22; b += 1u << _i)	/* from the goal, 11 */
		want[n++] = b;
	for (ek_blk_t b = 1; b < 11; b += 1u << _i)
		want[n++] = b;
	ek_cluster_scan_start(&fs, 11, &s);
	for (size_t i = 0; i < n; i++) {
		ck_assert(ek_cluster_scan_next(&fs, &s, &blk));
		ck_assert_uint_eq(blk, want[i]);
		ck_assert_uint_eq(s.g, (blk - 1) / 8);
		ck_assert_uint_eq(s.bit, ((blk - 1) % 8) >> _i);
		groups += s.new_group;
	}
	ck_assert(!ek_cluster_scan_next(&fs, &s, &blk));
	ck_assert_uint_eq(groups, 4);	/* group 1, 2, 0, and 1 again */
	/* a group skipped whole; a goal out of range starts at the first block */
	ek_cluster_scan_start(&fs, 999, &s);
	ck_assert(ek_cluster_scan_next(&fs, &s, &blk));
	ck_assert_uint_eq(blk, 1);
	ek_cluster_scan_skip_group(&s);
	ck_assert(ek_cluster_scan_next(&fs, &s, &blk));
	ck_assert_uint_eq(blk, 9);
	ck_assert(s.new_group);
	fs.group_count = 0;
	ek_cluster_scan_start(&fs, 1, &s);
	ck_assert(!ek_cluster_scan_next(&fs, &s, &blk));
}
END_TEST

/* ek_grow: at least @need, doubling from 16, untouched on failure */
START_TEST(test_grow)
{
	uint32_t *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(ek_grow(&v, &cap, 1, sizeof(*v)), 0);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(cap, 16);
	v[15] = 7;
	ck_assert_int_eq(ek_grow(&v, &cap, 16, sizeof(*v)), 0);
	ck_assert_uint_eq(cap, 16);
	ck_assert_int_eq(ek_grow(&v, &cap, 17, sizeof(*v)), 0);
	ck_assert_uint_eq(cap, 32);
	ck_assert_uint_eq(v[15], 7);
	ck_assert_int_eq(ek_grow(&v, &cap, 100, sizeof(*v)), 0);
	ck_assert_uint_eq(cap, 128);
	uint32_t *was = v;
	ck_assert_int_eq(ek_grow(&v, &cap, SIZE_MAX / 2, sizeof(*v)), -ENOMEM);
	ck_assert_ptr_eq(v, was);
	ck_assert_uint_eq(cap, 128);
	ck_assert_int_eq(ek_grow(&v, &cap, (1u << 30) / 4 + 1, sizeof(*v)), -ENOMEM);
	ck_assert_uint_eq(cap, 128);
	free(v);
}
END_TEST

/* sorted arrays: the first element >= the key, duplicates and both ends */
START_TEST(test_lower)
{
	uint64_t b[] = { 3, 5, 5, 9, 1ull << 40 };
	uint32_t i[] = { 2, 11, 12 };
	uint64_t u[] = { 9, 3, 1ull << 40, 5, 5 };

	ck_assert_uint_eq(ek_lower_u64(b, 5, 0), 0);
	ck_assert_uint_eq(ek_lower_u64(b, 5, 3), 0);
	ck_assert_uint_eq(ek_lower_u64(b, 5, 4), 1);
	ck_assert_uint_eq(ek_lower_u64(b, 5, 5), 1);
	ck_assert_uint_eq(ek_lower_u64(b, 5, 6), 3);
	ck_assert_uint_eq(ek_lower_u64(b, 5, 1ull << 40), 4);
	ck_assert_uint_eq(ek_lower_u64(b, 5, UINT64_MAX), 5);
	ck_assert_uint_eq(ek_lower_u64(b, 0, 7), 0);
	ck_assert_uint_eq(ek_lower_u32(i, 3, 1), 0);
	ck_assert_uint_eq(ek_lower_u32(i, 3, 11), 1);
	ck_assert_uint_eq(ek_lower_u32(i, 3, 13), 3);
	qsort(u, 5, sizeof(*u), ek_cmp_u64);
	ck_assert_mem_eq(u, b, sizeof(b));
	ck_assert_int_lt(ek_cmp_u32(&i[0], &i[1]), 0);
	ck_assert_int_gt(ek_cmp_u32(&i[2], &i[1]), 0);
	ck_assert_int_eq(ek_cmp_u32(&i[1], &i[1]), 0);
}
END_TEST

static Suite *fs_suite(void)
{
	Suite *s = suite_create("fs");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_inode_ok);
	tcase_add_test(tc, test_block_uninit);
	tcase_add_loop_test(tc, test_gd_fields, 0, 2);
	tcase_add_test(tc, test_inode_fields);
	tcase_add_test(tc, test_grow);
	tcase_add_test(tc, test_lower);
	tcase_add_loop_test(tc, test_cluster_scan, 0, 2);
	tcase_add_loop_test(tc, test_inode_times, 0, 2);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(fs_suite)
