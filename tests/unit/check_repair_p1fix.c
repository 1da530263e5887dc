// SPDX-License-Identifier: MIT
/*
 * check_repair_p1fix.c - the pieces of fsck's pass 1 repairs: the map walk
 * that reports bad entries and goes on past them (map.c), the extent block
 * checksum setter (extent.c), and repair_inode.c's fixes inside a write set.
 */
#include "unit.h"

#define BLK 1024
#define NBLK 256
#define INO 12

static struct unit_fs u;

static void setup(void)
{
	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE,
		     EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
}

static void make_inode(struct ek_inode *ei, const uint8_t *root, uint32_t flags)
{
	struct ext4_inode raw = { 0 };

	raw.i_mode = cpu_to_le16(0100644);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(flags);
	raw.i_size_lo = cpu_to_le32(40 * BLK);
	raw.i_extra_isize = cpu_to_le16(32);
	memcpy(raw.i_block, root, 60);
	unit_put_inode(&u, INO, &raw);
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei[0]), 0);
}

static void seal(uint8_t *blk, const struct ek_inode *ei)
{
	ck_assert_int_eq(ek_ext_block_csum_set(u.fs, ei->ino, ei->generation, blk), 0);
}

/* what a walk emitted and which bad entries it met */
struct seen {
	uint64_t data;		/* data blocks emitted */
	unsigned trees;		/* tree blocks emitted */
	struct ek_map_bad bad[4];
	unsigned nbad;
	int stop;		/* returned by the bad callback */
};

static int on_map(void *arg, const struct ek_mapping *m)
{
	struct seen *s = arg;

	if (m->kind == EK_MAP_DATA)
		s->data += m->len;
	else if (m->kind == EK_MAP_TREE)
		s->trees++;
	return 0;
}

static int on_bad(void *arg, const struct ek_map_bad *b)
{
	struct seen *s = arg;

	if (s->nbad < 4)
		s->bad[s->nbad++] = *b;
	return s->stop;
}

/* one bad entry each: what the walk names and what it still emits */
static const struct {
	const char *what;
	enum ek_map_bad_kind kind;
	ek_blk_t node;
	unsigned slot, level;
	uint64_t data;		/* data blocks emitted besides */
	unsigned trees;
} bad[] = {
	{ "extent outside the fs", EK_MAPBAD_EXTENT, 0, 1, 0, 2, 0 },
	{ "extent of length 0", EK_MAPBAD_EXTENT, 0, 1, 0, 2, 0 },
	{ "extents out of order", EK_MAPBAD_EXTENT, 0, 1, 0, 2, 0 },
	{ "index to a block outside", EK_MAPBAD_INDEX, 0, 0, 1, 0, 0 },
	{ "child with a bad magic", EK_MAPBAD_INDEX, 0, 0, 1, 0, 0 },
	{ "child starting elsewhere", EK_MAPBAD_START, 0, 0, 1, 4, 1 },
	{ "leaf checksum", EK_MAPBAD_CSUM, 0, 0, 0, 4, 1 },
	{ "bad extent in a leaf", EK_MAPBAD_EXTENT, 100, 1, 0, 3, 1 },
	{ "direct pointer outside", EK_MAPBAD_IND, 0, 2, 0, 1, 0 },
	{ "indirect block outside", EK_MAPBAD_IND, 0, 12, 1, 1, 0 },
	{ "pointer in an indirect block", EK_MAPBAD_IND, 101, 1, 0, 2, 1 },
};

START_TEST(test_walk_checked)
{
	uint8_t root[60] = { 0 }, leaf[BLK] = { 0 };
	uint32_t flags = EXT4_EXTENTS_FL;
	struct ek_inode ei;
	struct seen s = { 0 };
	bool seal_leaf = true;
	int err;

	setup();
	put_header(root, 2, 4, 0);
	put_extent(root, 0, 0, 2, 120);
	switch (_i) {
	case 0: put_extent(root, 1, 5, 3, NBLK - 1); break;
	case 1: put_extent(root, 1, 5, 0, 130); break;
	case 2: put_extent(root, 1, 1, 1, 130); break;
	case 3:
	case 4:
	case 5:
	case 6:
	case 7:
		put_header(root, 1, 4, 1);
		put_index(root, 0, 0, _i == 3 ? NBLK + 9 : 100);
		put_header(leaf, 2, (BLK - 16) / 12, 0);
		put_extent(leaf, 0, 0, 3, 120);
		put_extent(leaf, 1, 10, 1, _i == 7 ? NBLK + 5 : 130);
		if (_i == 4)
			put_le16(leaf, 0x1234);
		if (_i == 5)
			put_index(root, 0, 7, 100);	/* the leaf starts at 0 */
		if (_i == 6)
			seal_leaf = false;
		break;
	case 8:
	case 9:
	case 10:
		flags = 0;
		memset(root, 0, 60);
		put_le32(root, 120);
		if (_i == 8)
			put_le32(root + 8, NBLK + 3);
		if (_i == 9)
			put_le32(root + 48, NBLK + 3);
		if (_i == 10) {
			put_le32(root + 48, 101);
			put_le32(leaf, 121);
			put_le32(leaf + 4, NBLK + 3);
			unit_write(&u, 101, 0, leaf, BLK);
		}
		break;
	}
	make_inode(&ei, root, flags);
	if (flags && seal_leaf && le16_to_cpu(((struct ext4_extent_header *)leaf)->eh_magic) ==
	    EXT4_EXT_MAGIC)
		seal(leaf, &ei);
	if (flags)
		unit_write(&u, 100, 0, leaf, BLK);
	err = ek_map_walk_checked(u.fs, &ei, on_map, on_bad, &s);
	ck_assert_msg(err == 0, "case '%s': walk got %d", bad[_i].what, err);
	ck_assert_msg(s.nbad == 1, "case '%s': %u bad entries", bad[_i].what, s.nbad);
	ck_assert_msg(s.bad[0].kind == bad[_i].kind && s.bad[0].node == bad[_i].node &&
		      s.bad[0].slot == bad[_i].slot && s.bad[0].level == bad[_i].level,
		      "case '%s': kind %d node %llu slot %u level %u", bad[_i].what, s.bad[0].kind,
		      (unsigned long long)s.bad[0].node, s.bad[0].slot, s.bad[0].level);
	ck_assert_msg(s.data == bad[_i].data && s.trees == bad[_i].trees,
		      "case '%s': %llu data blocks, %u tree blocks", bad[_i].what,
		      (unsigned long long)s.data, s.trees);
	ck_assert_int_eq(s.bad[0].err, s.bad[0].kind == EK_MAPBAD_CSUM ? -EK_BADCRC : -EK_CORRUPT);

	/* without a bad callback the same map stops the walk (the checksum at its end) */
	memset(&s, 0, sizeof(s));
	err = ek_map_walk(u.fs, &ei, on_map, &s);
	ck_assert_msg(err == (bad[_i].kind == EK_MAPBAD_CSUM ? -EK_BADCRC : -EK_CORRUPT),
		      "case '%s': plain walk got %d", bad[_i].what, err);
	/* and a callback's nonzero answer stops it, returned as is */
	memset(&s, 0, sizeof(s));
	s.stop = 7;
	ck_assert_int_eq(ek_map_walk_checked(u.fs, &ei, on_map, on_bad, &s), 7);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* the checksum setter: what the walk then accepts; no room for a tail refused */
START_TEST(test_csum_set)
{
	uint8_t node[BLK] = { 0 };
	struct ek_wset *ws;
	struct ek_inode ei;
	uint8_t root[60] = { 0 };
	struct seen s = { 0 };

	setup();
	put_header(root, 1, 4, 1);
	put_index(root, 0, 0, 100);
	make_inode(&ei, root, EXT4_EXTENTS_FL);
	put_header(node, 1, (BLK - 16) / 12, 0);
	put_extent(node, 0, 0, 2, 120);
	unit_write(&u, 100, 0, node, BLK);
	ck_assert_int_eq(ek_map_walk_checked(u.fs, &ei, on_map, on_bad, &s), 0);
	ck_assert_int_eq(s.nbad, 1);
	ck_assert_int_eq(s.bad[0].kind, EK_MAPBAD_CSUM);
	ck_assert_uint_eq(s.bad[0].pblk, 100);

	/* the fix, through a write set, then written: the walk is quiet */
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_fix_extent_csum(ws, INO, 100), 0);
	ck_assert_int_eq(ek_wset_write(ws), 0);
	ek_wset_free(ws);
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(ek_map_walk_checked(u.fs, &ei, on_map, on_bad, &s), 0);
	ck_assert_int_eq(s.nbad, 0);
	ck_assert_uint_eq(s.data, 2);

	put_header(node, 1, BLK / 12, 0);	/* eh_max leaves no room for the tail */
	ck_assert_int_eq(ek_ext_block_csum_set(u.fs, INO, 0, node), -EK_CORRUPT);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* repair_inode.c's inode fixes, read back through the read path */
START_TEST(test_inode_fixes)
{
	uint8_t root[60] = { 0 }, ind[BLK] = { 0 };
	struct ek_wset *ws;
	struct ek_inode ei;
	uint8_t *raw;

	setup();
	put_le32(root, 120);
	put_le32(root + 4, NBLK + 5);
	put_le32(root + 48, 101);
	put_le32(ind + 8, NBLK + 6);
	unit_write(&u, 101, 0, ind, BLK);
	make_inode(&ei, root, 0);
	ek_inode_release(&ei);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_fix_ind_pointer(ws, INO, 0, 1), 0);
	ck_assert_int_eq(ek_fix_ind_pointer(ws, INO, 101, 2), 0);
	ck_assert_int_eq(ek_fix_ind_pointer(ws, INO, 0, EXT4_N_BLOCKS), -EINVAL);
	ck_assert_int_eq(ek_fix_ind_pointer(ws, INO, 101, BLK / 4), -EINVAL);
	ck_assert_int_eq(ek_fix_inode(ws, INO, EK_IFIX_FADDR, 0), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	put_le32(raw + offsetof(struct ext4_inode, i_obso_faddr), 9);	/* cleared next */
	ck_assert_int_eq(ek_fix_inode(ws, INO, EK_IFIX_FADDR, 0), 0);
	ck_assert_int_eq(ek_fix_inode(ws, INO, EK_IFIX_FILE_ACL, 77), 0);
	ck_assert_int_eq(ek_wset_write(ws), 0);
	ek_wset_free(ws);
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);	/* its checksum holds */
	ck_assert_uint_eq(le32_to_cpu(ek_inode_i_block(&ei)[1]), 0);
	ck_assert_uint_eq(le32_to_cpu(ek_inode_i_block(&ei)[0]), 120);
	ck_assert_uint_eq(ei.file_acl, 77);
	ck_assert_uint_eq(get_le32(ei.raw + offsetof(struct ext4_inode, i_obso_faddr)), 0);
	ek_inode_release(&ei);
	ck_assert_int_eq(ek_fs_read_blocks(u.fs, 101, 1, ind), 0);
	ck_assert_uint_eq(get_le32(ind + 8), 0);

	/* cleared: unlinked, deleted at @now, no flags; a reserved inode loses its map */
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_fix_inode_clear(ws, INO, 1234), 0);
	ck_assert_int_eq(ek_fix_inode_clear(ws, 7, 1234), 0);
	ck_assert_int_eq(ek_wset_write(ws), 0);
	ek_wset_free(ws);
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	ck_assert_uint_eq(ei.links_count, 0);
	ck_assert_uint_eq(ei.dtime, 1234);
	ck_assert_uint_eq(ei.flags, 0);
	ck_assert_uint_eq(le32_to_cpu(ek_inode_i_block(&ei)[0]), 120);	/* kept: pass 5 frees */
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* an inline data inode without its system.data (INLINE_DATA_NO_ATTR):
 * i_size 0 (both halves), only the inline data flag cleared, i_block zeroed */
START_TEST(test_inline_drop)
{
	uint8_t root[60];
	struct ek_wset *ws;
	struct ek_inode ei;
	uint8_t *raw;

	setup();
	memset(root, 0x5a, sizeof(root));
	make_inode(&ei, root, EXT4_INLINE_DATA_FL | EXT4_NOATIME_FL);
	ek_inode_release(&ei);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	put_le32(raw + offsetof(struct ext4_inode, i_size_high), 3);
	ck_assert_int_eq(ek_fix_inode(ws, INO, EK_IFIX_INLINE_DROP, 0), 0);
	ck_assert_int_eq(ek_wset_write(ws), 0);
	ek_wset_free(ws);
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);	/* its checksum holds */
	ck_assert_uint_eq(ei.size, 0);
	ck_assert_uint_eq(get_le32(ei.raw + offsetof(struct ext4_inode, i_size_high)), 0);
	ck_assert_uint_eq(ei.flags, EXT4_NOATIME_FL);
	for (int i = 0; i < EXT4_N_BLOCKS; i++)
		ck_assert_uint_eq(le32_to_cpu(ek_inode_i_block(&ei)[i]), 0);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* the extent tree rewritten from a list: what the walk then reads */
static ek_blk_t next_blk = 200;

static int sink_alloc(void *arg, ek_blk_t *blk)
{
	(void)arg;
	*blk = next_blk++;
	return 0;
}

static int sink_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	return ek_wset_put(arg, blk, node);
}

START_TEST(test_extent_tree)
{
	struct ek_ext v[6];
	uint8_t root[60] = { 0 };
	struct ek_wset *ws;
	struct ek_inode ei;
	struct seen s = { 0 };

	setup();
	put_header(root, 0, 4, 0);
	make_inode(&ei, root, EXT4_EXTENTS_FL);
	ek_inode_release(&ei);
	for (int i = 0; i < 6; i++)
		v[i] = (struct ek_ext){ (uint32_t)i * 4, 2, 120 + (ek_blk_t)i * 4, false };
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	struct ek_tree_sink sink = { sink_alloc, sink_put, ws };
	ck_assert_int_eq(ek_fix_extent_tree(ws, INO, v, 6, &sink), 0);	/* 6 > 4: a leaf */
	ck_assert_int_eq(ek_fix_extent_tree(ws, 3, v, 1, &sink), -EINVAL);	/* no extents flag */
	ck_assert_int_eq(ek_wset_write(ws), 0);
	ek_wset_free(ws);
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	ck_assert_int_eq(ek_map_walk_checked(u.fs, &ei, on_map, on_bad, &s), 0);
	ck_assert_int_eq(s.nbad, 0);
	ck_assert_uint_eq(s.data, 12);
	ck_assert_uint_eq(s.trees, 1);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

static Suite *repair_p1fix_suite(void)
{
	Suite *s = suite_create("repair_p1fix");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_walk_checked, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_csum_set);
	tcase_add_test(tc, test_inode_fixes);
	tcase_add_test(tc, test_inline_drop);
	tcase_add_test(tc, test_extent_tree);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(repair_p1fix_suite)
