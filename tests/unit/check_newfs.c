// SPDX-License-Identifier: MIT
/*
 * check_newfs.c - the layout ek_newfs_create() computes, in memory (no
 * target), against where mke2fs 1.47.0 put the same tables (dumpe2fs of
 * real images, mkfs/NOTES.md §4-5): flex_bg packing, the last flex group
 * packed tight, a one-group filesystem's gaps, a table pushed past a
 * backup, the journal at the midpoint group or in group 0 when block
 * mapped; and the allocator: no block handed out twice or over metadata,
 * bigalloc files in whole clusters at the right offset.
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
	uint32_t group;			/* the group checked */
	ek_blk_t bb, ib, it;		/* its tables */
	ek_blk_t journal;		/* first journal block, 0: none */
} cases[] = {
	{ "1 MiB ext4", 1 * MiB, EK_FS_EXT4, 0, 0, 10, 26, 42, 0 },
	{ "64 MiB ext4", 64 * MiB, EK_FS_EXT4, 0, 0, 259, 267, 275, 16385 },
	{ "64 MiB ext4 group 7", 64 * MiB, EK_FS_EXT4, 0, 7, 266, 274, 275 + 7 * 512, 16385 },
	{ "1 GiB ext4", 1 * GiB, EK_FS_EXT4, 0, 0, 129, 137, 145, 131072 },
	{ "16 GiB ext4 group 16", 16 * GiB, EK_FS_EXT4, 0, 16, 524288, 524304, 524320, 2129920 },
	{ "1 TiB ext4", 1 * TiB, EK_FS_EXT4, 0, 0, 1153, 1169, 1185, 134250496 },
	{ "64 MiB ext2 group 2", 64 * MiB, EK_FS_EXT2, 0, 2, 16385, 16386, 16387, 0 },
	{ "500 MiB group 15", 500 * MiB, EK_FS_EXT4, 0, 15, 277, 293, 8454, 0 },
};

static struct ek_newfs *make(uint64_t size, enum ek_fs_type type, uint32_t bs)
{
	struct ek_newfs_opts o = { .geo = { .size = size, .type = type, .blocksize = bs },
				   .now = 1700000000, .zeroed = true, .lazy_itable_init = true };
	struct ek_newfs *nf;

	ck_assert_int_eq(ek_newfs_create(NULL, &o, &nf), 0);
	return nf;
}

START_TEST(test_mke2fs_layout)
{
	struct ek_newfs *nf = make(cases[_i].size, cases[_i].type, cases[_i].bs);
	const struct ek_group *g = &ek_newfs_fs(nf)->groups[cases[_i].group];

	ck_assert_msg(g->block_bitmap == cases[_i].bb && g->inode_bitmap == cases[_i].ib &&
		      g->inode_table == cases[_i].it, "%s: tables at %llu %llu %llu", cases[_i].what,
		      (unsigned long long)g->block_bitmap, (unsigned long long)g->inode_bitmap,
		      (unsigned long long)g->inode_table);
	if (cases[_i].journal)
		ck_assert_msg(ek_newfs_journal_start(nf) == cases[_i].journal,
			      "%s: journal at %llu", cases[_i].what,
			      (unsigned long long)ek_newfs_journal_start(nf));
	ek_newfs_free(nf);
}
END_TEST

/* every block handed out is new and lies on no table */
START_TEST(test_alloc_never_twice)
{
	struct ek_newfs *nf = make(64 * MiB, EK_FS_EXT4, 0);
	struct ek_fs *fs = ek_newfs_fs(nf);
	uint64_t total = 0, got;
	uint8_t *seen = ek_calloc(fs->sb.blocks_count, 1);
	ek_blk_t start;

	ck_assert_ptr_nonnull(seen);
	for (uint32_t g = 0; g < fs->group_count; g++) {
		seen[fs->groups[g].block_bitmap] = seen[fs->groups[g].inode_bitmap] = 1;
		for (uint32_t i = 0; i < fs->itable_blocks; i++)
			seen[fs->groups[g].inode_table + i] = 1;
	}
	for (ek_blk_t b = ek_newfs_journal_start(nf); b < ek_newfs_journal_start(nf) + 4096; b++)
		seen[b] = 1;
	while (ek_newfs_alloc(nf, 0, 777, &start, &got) == 0) {
		ck_assert_uint_gt(got, 0);
		for (uint64_t k = 0; k < got; k++) {
			ck_assert_msg(!seen[start + k], "block %llu handed out twice",
				      (unsigned long long)(start + k));
			seen[start + k] = 1;
		}
		total += got;
	}
	ck_assert_int_eq(ek_last_error()->code, -ENOSPC);
	ck_assert_uint_eq(ek_newfs_free_blocks(nf), 0);
	ck_assert_uint_gt(total, 40000);
	free(seen);
	ek_newfs_free(nf);
}
END_TEST

/* bigalloc: a file's runs keep their offset inside the cluster, one cluster per logical one */
START_TEST(test_bigalloc_map)
{
	struct ek_newfs_opts o = {
		.geo = { .size = 256 * MiB, .type = EK_FS_EXT4, .blocksize = 1024,
			 .ro_on = EXT4_FEATURE_RO_COMPAT_BIGALLOC, .cluster_size = 16384 },
		.now = 1700000000, .zeroed = true };
	struct ek_ext runs[] = { { .lblk = 3, .len = 2 }, { .lblk = 9, .len = 10 },
				 { .lblk = 100, .len = 1 } }, *v;
	struct ek_newfs *nf;
	ek_ino_t ino;
	uint8_t *raw;
	size_t nv;

	ck_assert_int_eq(ek_newfs_create(NULL, &o, &nf), 0);
	ck_assert_int_eq(ek_newfs_inode_new(nf, 0100644, &ino, &raw), 0);
	ck_assert_int_eq(ek_newfs_map(nf, ino, raw, runs, 3, 0, 0, &v, &nv), 0);
	for (size_t i = 0; i < nv; i++)
		ck_assert_msg(v[i].lblk % 16 == v[i].pblk % 16, "extent %zu: lblk %u at %llu", i,
			      v[i].lblk, (unsigned long long)v[i].pblk);
	/* logical cluster 0 (blocks 3-4, 9-15) is one physical cluster */
	ck_assert_uint_eq(v[0].pblk / 16, v[1].pblk / 16);
	/* clusters 0, 1 and 6: 3 clusters of 16 KiB in i_blocks (512-byte units) */
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_blocks_lo)), 3 * 32);
	free(v);
	ek_newfs_free(nf);
}
END_TEST

/* unwritten runs become unwritten extents of at most 32767 blocks, never merged with data */
START_TEST(test_unwritten_map)
{
	struct ek_newfs_opts o = {
		.geo = { .size = 512 * MiB, .type = EK_FS_EXT4, .blocksize = 4096 },
		.now = 1700000000, .zeroed = true };
	struct ek_ext runs[] = { { .lblk = 0, .len = 5 },
				 { .lblk = 5, .len = 40000, .unwritten = true },
				 { .lblk = 40005, .len = 5 } }, *v;
	const uint8_t *root;
	struct ek_newfs *nf;
	ek_ino_t ino;
	uint8_t *raw;
	uint64_t next = 0;
	size_t nv;

	ck_assert_int_eq(ek_newfs_create(NULL, &o, &nf), 0);
	ck_assert_int_eq(ek_newfs_inode_new(nf, 0100644, &ino, &raw), 0);
	ck_assert_int_eq(ek_newfs_map(nf, ino, raw, runs, 3, 0, 0, &v, &nv), 0);
	ck_assert_uint_ge(nv, 4);
	for (size_t i = 0; i < nv; i++) {
		bool want = v[i].lblk >= 5 && v[i].lblk < 40005;

		ck_assert_uint_eq(v[i].lblk, next);
		ck_assert_msg(v[i].unwritten == want, "extent %zu at %u: unwritten %d", i,
			      v[i].lblk, v[i].unwritten);
		ck_assert_uint_le(v[i].len, want ? 32767 : 32768);
		next = (uint64_t)v[i].lblk + v[i].len;
		if (want)
			ck_assert_uint_le(next, 40005);
	}
	ck_assert_uint_eq(next, 40010);
	/* in the inode: ee_len above 32768 marks the unwritten ones */
	root = raw + offsetof(struct ext4_inode, i_block);
	if (get_le16(root + 6) == 0)	/* eh_depth 0: the extents are in the inode */
		for (size_t i = 0; i < get_le16(root + 2); i++)
			ck_assert_uint_eq(get_le16(root + 12 + 12 * i + 4) > 32768, v[i].unwritten);
	ck_assert_uint_ge(get_le32(raw + offsetof(struct ext4_inode, i_blocks_lo)), 40010 * 8);
	free(v);
	ek_newfs_free(nf);
}
END_TEST

static Suite *newfs_suite(void)
{
	Suite *s = suite_create("newfs");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_mke2fs_layout, 0, sizeof(cases) / sizeof(cases[0]));
	tcase_add_test(tc, test_alloc_never_twice);
	tcase_add_test(tc, test_bigalloc_map);
	tcase_add_test(tc, test_unwritten_map);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(newfs_suite)
