// SPDX-License-Identifier: MIT
/*
 * check_geometry.c - ek_geometry_compute() against what mke2fs 1.47.0
 * chose for the same sizes (dumpe2fs of real images, mkfs/NOTES.md):
 * size types, inodes rounded to whole table blocks, reserved GDT blocks,
 * and the last group dropped when too small.  Every row was checked
 * against dumpe2fs -h of an image the installed mke2fs made (-t ext4 or
 * -t ext2 on a sparse file of that size).
 */
#include "unit.h"

#define KiB 1024ull
#define MiB (1024ull * KiB)
#define GiB (1024ull * MiB)
#define TiB (1024ull * GiB)

static const struct {
	const char *what;
	uint64_t size;
	enum ek_fs_type type;
	uint32_t bs;
	uint64_t blocks;
	uint32_t groups, ipg, itb;
	uint64_t inodes;
	uint32_t desc_blocks, rsv_gdt;
	uint64_t reserved;	/* 0: not measured */
} cases[] = {
	{ "1 MiB ext4", 1 * MiB, EK_FS_EXT4, 1024, 1024, 1, 128, 32, 128, 1, 7, 51 },
	{ "1 MiB ext2", 1 * MiB, EK_FS_EXT2, 1024, 1024, 1, 128, 32, 128, 1, 3, 51 },
	{ "64 MiB ext4", 64 * MiB, EK_FS_EXT4, 1024, 65536, 8, 2048, 512, 16384, 1, 256, 3276 },
	{ "64 MiB ext2", 64 * MiB, EK_FS_EXT2, 1024, 65536, 8, 2048, 512, 16384, 1, 255, 3276 },
	{ "500 MiB ext4", 500 * MiB, EK_FS_EXT4, 1024, 512000, 63, 2032, 508, 128016, 4, 256, 25600 },
	{ "1 GiB ext4", 1 * GiB, EK_FS_EXT4, 4096, 262144, 8, 8192, 512, 65536, 1, 127, 13107 },
	{ "1 GiB ext2", 1 * GiB, EK_FS_EXT2, 4096, 262144, 8, 8192, 512, 65536, 1, 63, 13107 },
	{ "16 GiB ext4", 16 * GiB, EK_FS_EXT4, 4096, 4194304, 128, 8192, 512, 1048576, 2, 1024, 209715 },
	{ "1 TiB ext4", 1 * TiB, EK_FS_EXT4, 4096, 268435456, 8192, 8192, 512, 67108864, 128, 1024, 13421772 },
	{ "1 TiB ext2", 1 * TiB, EK_FS_EXT2, 4096, 268435456, 8192, 8192, 512, 67108864, 64, 960, 13421772 },
	/* a last group too small for its metadata is dropped; inodes were asked for before */
	{ "1 GiB + 400 KiB", 1 * GiB + 400 * KiB, EK_FS_EXT4, 4096, 262144, 8, 8208, 513, 65664, 1, 127, 13107 },
	{ "1 GiB + 4 MiB", 1 * GiB + 4 * MiB, EK_FS_EXT4, 4096, 263168, 9, 7312, 457, 65808, 1, 128, 13158 },
	{ "64 MiB + 100 KiB", 64 * MiB + 100 * KiB, EK_FS_EXT4, 1024, 65537, 8, 2048, 512, 16384, 1, 256, 3276 },
	{ "64 MiB + 1000 KiB", 64 * MiB + 1000 * KiB, EK_FS_EXT4, 1024, 66536, 9, 1848, 462, 16632, 1, 256, 3326 },
};

START_TEST(test_mke2fs_sizes)
{
	struct ek_geometry_opts o = { .size = cases[_i].size, .type = cases[_i].type };
	struct ek_geometry g;

	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_msg(g.blocksize == cases[_i].bs, "%s: block size %u", cases[_i].what, g.blocksize);
	ck_assert_msg(g.blocks == cases[_i].blocks, "%s: %llu blocks", cases[_i].what,
		      (unsigned long long)g.blocks);
	ck_assert_msg(g.groups == cases[_i].groups, "%s: %u groups", cases[_i].what, g.groups);
	ck_assert_msg(g.inodes_per_group == cases[_i].ipg, "%s: %u inodes per group", cases[_i].what,
		      g.inodes_per_group);
	ck_assert_msg(g.inode_table_blocks == cases[_i].itb, "%s: %u table blocks", cases[_i].what,
		      g.inode_table_blocks);
	ck_assert_msg(g.inodes == cases[_i].inodes, "%s: %llu inodes", cases[_i].what,
		      (unsigned long long)g.inodes);
	ck_assert_msg(g.desc_blocks == cases[_i].desc_blocks, "%s: %u descriptor blocks",
		      cases[_i].what, g.desc_blocks);
	ck_assert_msg(g.reserved_gdt == cases[_i].rsv_gdt, "%s: %u reserved GDT blocks",
		      cases[_i].what, g.reserved_gdt);
	if (cases[_i].reserved)
		ck_assert_msg(g.reserved_blocks == cases[_i].reserved, "%s: %llu reserved blocks",
			      cases[_i].what, (unsigned long long)g.reserved_blocks);
}
END_TEST

START_TEST(test_types_and_limits)
{
	struct ek_geometry_opts o = { .size = 1 * GiB, .type = EK_FS_EXT4 };
	struct ek_geometry g;

	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_uint_eq(g.compat, 0x3c);
	ck_assert_uint_eq(g.incompat, 0x2c2);
	ck_assert_uint_eq(g.ro_compat, 0x46b);
	ck_assert_str_eq(g.size_type, "default");
	o.type = EK_FS_EXT2;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_uint_eq(g.compat, 0x38);
	ck_assert_uint_eq(g.incompat, 0x002);
	ck_assert_uint_eq(g.ro_compat, 0x003);
	/* size types by bytes: 3071 KiB floppy, 3 MiB small, 512 MiB default */
	o.size = 3071 * KiB;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_str_eq(g.size_type, "floppy");
	o.size = 3 * MiB;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_str_eq(g.size_type, "small");
	o.size = 512 * MiB;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_str_eq(g.size_type, "default");
	ck_assert_uint_eq(g.blocksize, 4096);
	/* the small type's ratio holds with an explicit 4 KiB block: one inode per block */
	o.size = 64 * MiB;
	o.blocksize = 4096;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_uint_eq(g.inodes, 16384);
	/* no journal below 2048 blocks */
	o = (struct ek_geometry_opts){ .size = 1 * MiB, .type = EK_FS_EXT4 };
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert(!(g.compat & EXT4_FEATURE_COMPAT_HAS_JOURNAL));
	/* impossible requests: a clear error */
	o.size = 16 * KiB;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);
	o.size = 1 * GiB;
	o.blocksize = 3000;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);
	ck_assert(strstr(ek_last_error()->msg, "block size 3000"));
	o.blocksize = 0;
	o.inode_size = 200;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);
	o.inode_size = 0;
	o.type = EK_FS_EXT2;
	o.size = 32 * TiB;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);	/* needs 64bit */
}
END_TEST

/*
 * Superblock copies with sparse_super2 (s_backup_bgs: group 1 and the
 * last, as many as num_backup_sb asks), without sparse_super (every
 * group), and meta_bg turned on when descriptors would fill 3/4 of a group
 * (dumpe2fs of the installed mke2fs: "Backup block groups: 1 7" at 64 MiB)
 */
START_TEST(test_backups_and_meta_bg)
{
	struct ek_geometry_opts o = { .size = 64 * MiB, .type = EK_FS_EXT4,
				      .compat_on = EXT4_FEATURE_COMPAT_SPARSE_SUPER2 };
	struct ek_geometry g;

	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_uint_eq(g.backup_bgs[0], 1);
	ck_assert_uint_eq(g.backup_bgs[1], 7);
	ck_assert(ek_geometry_has_super(&g, 0) && ek_geometry_has_super(&g, 1) &&
		  ek_geometry_has_super(&g, 7));
	ck_assert(!ek_geometry_has_super(&g, 3) && !ek_geometry_has_super(&g, 5));
	o.num_backup_given = true;
	o.num_backup_sb = 1;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert_uint_eq(g.backup_bgs[0], 0);	/* in ascending order, as mke2fs stores them */
	ck_assert_uint_eq(g.backup_bgs[1], 1);
	ck_assert(ek_geometry_has_super(&g, 1) && !ek_geometry_has_super(&g, 7));
	o.num_backup_sb = 0;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert(!g.backup_bgs[0] && !g.backup_bgs[1] && !ek_geometry_has_super(&g, 1));
	o.num_backup_sb = 3;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);
	/* one group: nothing to back up in */
	o = (struct ek_geometry_opts){ .size = 1 * MiB, .type = EK_FS_EXT4,
				       .compat_on = EXT4_FEATURE_COMPAT_SPARSE_SUPER2 };
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert(!g.backup_bgs[0] && !g.backup_bgs[1]);
	/* no sparse_super: every group; refused with resize_inode, as mke2fs */
	o = (struct ek_geometry_opts){ .size = 64 * MiB, .type = EK_FS_EXT2,
				       .ro_off = EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER };
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);
	o.compat_off = EXT4_FEATURE_COMPAT_RESIZE_INODE;
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert(ek_geometry_has_super(&g, 2) && ek_geometry_has_super(&g, 6));
	/* meta_bg with resize_inode: refused */
	o = (struct ek_geometry_opts){ .size = 64 * MiB, .type = EK_FS_EXT4,
				       .incompat_on = EXT4_FEATURE_INCOMPAT_META_BG };
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);
	ck_assert(strstr(ek_last_error()->msg, "meta_bg"));
	/* m_resize_inode_meta_bg: 60 descriptor blocks and 196 reserved fill 256-block groups */
	o = (struct ek_geometry_opts){ .size = 15 * MiB, .type = EK_FS_EXT4, .blocksize = 4096,
				       .blocks_per_group = 256 };
	ck_assert_int_eq(ek_geometry_compute(&o, &g), 0);
	ck_assert(g.incompat & EXT4_FEATURE_INCOMPAT_META_BG);
	ck_assert(!(g.compat & EXT4_FEATURE_COMPAT_RESIZE_INODE));
	ck_assert_uint_eq(g.reserved_gdt, 0);
	ck_assert_uint_eq(g.groups, 15);
	/* project quota needs i_projid */
	o = (struct ek_geometry_opts){ .size = 64 * MiB, .type = EK_FS_EXT4, .inode_size = 128,
				       .ro_on = EXT4_FEATURE_RO_COMPAT_PROJECT };
	ck_assert_int_eq(ek_geometry_compute(&o, &g), -EINVAL);
}
END_TEST

static Suite *geometry_suite(void)
{
	Suite *s = suite_create("geometry");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_mke2fs_sizes, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_types_and_limits);
	tcase_add_test(tc, test_backups_and_meta_bg);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(geometry_suite)
