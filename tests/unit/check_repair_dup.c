// SPDX-License-Identifier: MIT
/*
 * check_repair_dup.c - ek_inode_unshare (extent.c), the edit behind
 * extkit-fsck's pass 1D: an inode gets its own copy of the blocks a
 * callback picks, on extent trees and indirect maps built in memory.
 * Planning writes nothing and asks at least what the copy takes; the copy
 * points the map at new blocks holding the old contents; maps the walk
 * refuses (a loop, a block outside the filesystem) are refused while
 * planning.
 */
#include "unit.h"

#define BLK 1024
#define NBLK 512
#define INO 12

static struct unit_fs u;

static void setup(bool extents, bool csum)
{
	unit_fs_init(&u, BLK, NBLK, 0,
		     (extents ? EXT4_FEATURE_INCOMPAT_EXTENTS : 0) | EXT4_FEATURE_INCOMPAT_FILETYPE,
		     csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
}

/* the test's side of the edit: which blocks to copy, where copies go */
struct pick {
	ek_blk_t lo, hi;	/* copy blocks in [lo, hi), and @also */
	ek_blk_t also;
	ek_blk_t next;		/* the next block handed out */
	unsigned step;		/* blocks between those handed out (bigalloc: a cluster) */
	unsigned decided, copied, allocs, releases;
	uint8_t answers[4096];	/* decide's answers, in order */
	bool replay;		/* the second call: the same answers */
};

static int pick_decide(void *arg, ek_blk_t blk, bool tree)
{
	struct pick *p = arg;
	int d = (blk >= p->lo && blk < p->hi) || (p->also && blk == p->also);

	(void)tree;
	ck_assert_uint_lt(p->decided, sizeof(p->answers));
	if (p->replay)
		ck_assert_int_eq(p->answers[p->decided], d);
	p->answers[p->decided++] = (uint8_t)d;
	return d;
}

static int pick_alloc(void *arg, ek_blk_t goal, ek_blk_t *out)
{
	struct pick *p = arg;

	(void)goal;
	p->allocs++;
	*out = p->next;
	p->next += p->step ? p->step : 1;
	return 0;
}

static int pick_release(void *arg, ek_blk_t blk)
{
	struct pick *p = arg;

	(void)blk;
	p->releases++;
	return 0;
}

/* block @blk filled with a pattern of its own */
static void fill(ek_blk_t blk)
{
	uint8_t b[BLK];

	for (unsigned i = 0; i < BLK; i++)
		b[i] = (uint8_t)(blk * 31 + i);
	unit_write(&u, blk, 0, b, BLK);
}

static bool holds_pattern_of(struct ek_wset *ws, ek_blk_t blk, ek_blk_t of)
{
	uint8_t b[BLK];

	ck_assert_int_eq(ek_wset_read(ws, blk, b), 0);
	for (unsigned i = 0; i < BLK; i++)
		if (b[i] != (uint8_t)(of * 31 + i))
			return false;
	return true;
}

static void raw_inode(uint8_t *raw, uint32_t flags)
{
	memset(raw, 0, 256);
	put_le16(raw + offsetof(struct ext4_inode, i_mode), 0100644);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	put_le32(raw + offsetof(struct ext4_inode, i_flags), flags);
	put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), 32);
}

/* plan, then copy; returns what planning asked for */
static uint64_t unshare(struct ek_wset *ws, uint8_t *raw, struct pick *p)
{
	struct ek_unshare_ops ops = { pick_decide, pick_alloc, pick_release, NULL, p };
	uint64_t need = 0, copies = 0;
	unsigned decided;
	uint8_t before[256];

	memcpy(before, raw, 256);
	ck_assert_int_eq(ek_inode_unshare(u.fs, ws, INO, raw, &ops, true, &need, NULL), 0);
	ck_assert_int_eq(memcmp(before, raw, 256), 0);	/* planning changes nothing */
	ck_assert_uint_eq(p->allocs, 0);
	decided = p->decided;
	p->decided = 0;
	p->replay = true;
	ck_assert_int_eq(ek_inode_unshare(u.fs, ws, INO, raw, &ops, false, NULL, &copies), 0);
	ck_assert_uint_eq(p->decided, decided);	/* asked the same places, in order */
	ck_assert_uint_le(p->allocs, need);
	p->copied = (unsigned)copies;
	return need;
}

/* ---- indirect maps ---------------------------------------------------------------- */

START_TEST(test_indirect)
{
	uint8_t *raw, ind[BLK] = { 0 };
	struct ek_wset *ws;
	struct pick p = { .next = 400 };
	uint64_t need;

	setup(false, false);
	/* data 100..114: 12 direct, 3 under the single indirect block 200 */
	for (ek_blk_t b = 100; b < 115; b++)
		fill(b);
	for (int i = 0; i < 3; i++)
		put_le32(ind + 4 * i, 112 + i);
	unit_write(&u, 200, 0, ind, BLK);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	raw_inode(raw, 0);
	for (int i = 0; i < 12; i++)
		put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * i, 100 + i);
	put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * EXT4_IND_BLOCK, 200);

	/* copy blocks 105..106, the indirect block 200 and 113 under it */
	p.lo = 105, p.hi = 107;
	need = unshare(ws, raw, &p);
	ck_assert_uint_eq(need, 2);
	ck_assert_uint_eq(p.copied, 2);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * 5), 400);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * 6), 401);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * 7), 107);
	ck_assert(holds_pattern_of(ws, 400, 105));
	ck_assert(holds_pattern_of(ws, 401, 106));
	ek_wset_free(ws);

	/* the indirect block and one block under it: the copy of 200 names the copy of 113 */
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	raw_inode(raw, 0);
	put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * EXT4_IND_BLOCK, 200);
	memset(&p, 0, sizeof(p));
	p.next = 400, p.lo = 113, p.hi = 201;	/* 113, 114 and 200 */
	need = unshare(ws, raw, &p);
	ck_assert_uint_eq(need, 3);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * EXT4_IND_BLOCK), 400);
	ck_assert_int_eq(ek_wset_read(ws, 400, ind), 0);
	ck_assert_uint_eq(get_le32(ind), 112);	/* kept */
	ck_assert_uint_eq(get_le32(ind + 4), 401);
	ck_assert_uint_eq(get_le32(ind + 8), 402);
	ck_assert(holds_pattern_of(ws, 401, 113));
	/* the shared indirect block itself is left as the other owner has it */
	ck_assert_int_eq(ek_wset_read(ws, 200, ind), 0);
	ck_assert_uint_eq(get_le32(ind + 4), 113);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* ---- extent trees ------------------------------------------------------------------- */

START_TEST(test_extents)
{
	struct ek_ext v[6];
	struct ek_extlist l = { .v = v, .n = 6 };
	struct ek_extlist back;
	struct ek_wset *ws;
	struct pick p = { .next = 400 };
	uint8_t *raw, root[60];
	int64_t tree = 0;
	bool csum = _i;

	setup(true, csum);
	/* six extents of 4 blocks: a tree of one leaf */
	for (int i = 0; i < 6; i++) {
		v[i] = (struct ek_ext){ .lblk = 10 * i, .len = 4, .pblk = 100 + 10 * i };
		for (int b = 0; b < 4; b++)
			fill(100 + 10 * i + b);
	}
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	ek_ext_root_init(root);
	raw_inode(raw, EXT4_EXTENTS_FL);
	memcpy(raw + offsetof(struct ext4_inode, i_block), root, 60);
	ck_assert_int_eq(ek_extlist_store(u.fs, ws, INO, raw, &l, &tree), 0);
	ck_assert_int_eq(tree, 1);
	ck_assert_uint_eq(get_le16(raw + offsetof(struct ext4_inode, i_block) + 6), 1);

	/* the middle two blocks of the third extent, and the leaf itself */
	p.lo = 121, p.hi = 123;
	p.also = ek_ext_idx_child(raw + offsetof(struct ext4_inode, i_block) + 12);
	ck_assert_uint_eq(unshare(ws, raw, &p), 2 + 1);	/* worst case: the leaf */
	ck_assert_uint_eq(p.copied, 2);
	ck_assert_int_eq(ek_extlist_load(u.fs, ws, INO, raw, &back), 0);
	ck_assert_uint_eq(back.n, 8);	/* the third extent split in three */
	for (size_t i = 0; i < back.n; i++)
		for (uint32_t b = 0; b < back.v[i].len; b++) {
			ek_blk_t old = 100 + back.v[i].lblk + b, now = back.v[i].pblk + b;

			ck_assert(holds_pattern_of(ws, now, old));
			ck_assert_int_eq(now != old, old == 121 || old == 122);
		}
	ck_assert_uint_eq(back.ntree, 1);
	ck_assert_uint_ne(back.tree[0], p.also);	/* a new leaf: the old one is another's */
	ck_assert_uint_eq(p.allocs, 3);
	if (csum) {
		uint8_t leaf[BLK];

		ck_assert_int_eq(ek_wset_read(ws, back.tree[0], leaf), 0);
		ck_assert_uint_eq(get_le32(leaf + 12 + 12 * ((BLK - 12) / 12)),
				  ek_ext_block_csum(u.fs, INO, 0, leaf));
	}
	ck_assert_uint_eq(p.releases, 0);
	ek_extlist_release(&back);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* ---- bigalloc: one decision and one new cluster per logical cluster ---------------- */

START_TEST(test_bigalloc)
{
	struct ek_ext v[2] = {
		{ .lblk = 0, .len = 8, .pblk = 100 },	/* clusters 25, 26, aligned */
		{ .lblk = 8, .len = 2, .pblk = 113 },	/* cluster 28 at offset 1: misaligned */
	};
	struct ek_extlist l = { .v = v, .n = 2 }, back;
	struct ek_wset *ws;
	struct pick p = { .next = 400, .step = 4, .lo = 104, .hi = 105, .also = 112 };
	uint8_t *raw, root[60];
	int64_t tree = 0;

	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE,
		     EXT4_FEATURE_RO_COMPAT_BIGALLOC);
	u.sb.s_log_cluster_size = cpu_to_le32(2);	/* 4 blocks a cluster */
	u.sb.s_first_data_block = 0;
	u.sb.s_blocks_per_group = cpu_to_le32(BLK * 8 * 4);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_RW), 0);
	for (ek_blk_t b = 100; b < 116; b++)
		fill(b);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	ek_ext_root_init(root);
	raw_inode(raw, EXT4_EXTENTS_FL);
	memcpy(raw + offsetof(struct ext4_inode, i_block), root, 60);
	ck_assert_int_eq(ek_extlist_store(u.fs, ws, INO, raw, &l, &tree), 0);
	/* copy the logical clusters in physical clusters 104 and 112 */
	ck_assert_uint_eq(unshare(ws, raw, &p), 2 + 1);	/* worst case: a leaf */
	ck_assert_uint_eq(p.decided, 3);	/* one per logical cluster */
	ck_assert_uint_eq(p.allocs, 2);
	ck_assert_uint_eq(p.copied, 6);
	ck_assert_int_eq(ek_extlist_load(u.fs, ws, INO, raw, &back), 0);
	/* 0-3 kept; 4-7 into cluster 400; 8-9 at their logical offsets in 404 */
	ck_assert_uint_eq(back.n, 2);
	ck_assert_uint_eq(back.v[0].lblk, 0);
	ck_assert_uint_eq(back.v[0].pblk, 100);
	ck_assert_uint_eq(back.v[0].len, 4);
	ck_assert_uint_eq(back.v[1].lblk, 4);
	ck_assert_uint_eq(back.v[1].pblk, 400);
	ck_assert_uint_eq(back.v[1].len, 6);
	for (int i = 0; i < 4; i++)
		ck_assert(holds_pattern_of(ws, 400 + i, 104 + i));
	ck_assert(holds_pattern_of(ws, 404, 113));
	ck_assert(holds_pattern_of(ws, 405, 114));
	ek_extlist_release(&back);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* ---- maps the walk refuses: refused while planning, nothing written -------------- */

START_TEST(test_refused)
{
	uint8_t *raw, ind[BLK] = { 0 };
	struct ek_wset *ws;
	struct pick p = { .next = 400, .lo = 0, .hi = NBLK };
	struct ek_unshare_ops ops = { pick_decide, pick_alloc, pick_release, NULL, &p };
	uint64_t need = 0;

	setup(false, false);
	put_le32(ind, 200);	/* the indirect block names itself as a double's child */
	unit_write(&u, 200, 0, ind, BLK);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	raw_inode(raw, 0);
	put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * EXT4_DIND_BLOCK, 200);
	ck_assert_int_eq(ek_inode_unshare(u.fs, ws, INO, raw, &ops, true, &need, NULL), -EK_CORRUPT);
	/* a data or indirect pointer past the end is left where it is (the
	 * checker zeroes it once the block holding it is the inode's own) */
	raw_inode(raw, 0);
	put_le32(raw + offsetof(struct ext4_inode, i_block), NBLK + 5);
	put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * EXT4_IND_BLOCK, NBLK + 9);
	ck_assert_int_eq(ek_inode_unshare(u.fs, ws, INO, raw, &ops, true, &need, NULL), 0);
	ck_assert_uint_eq(need, 0);
	ck_assert_uint_eq(p.allocs, 0);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

static Suite *repair_dup_suite(void)
{
	Suite *s = suite_create("repair_dup");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_indirect);
	tcase_add_loop_test(tc, test_extents, 0, 2);
	tcase_add_test(tc, test_bigalloc);
	tcase_add_test(tc, test_refused);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(repair_dup_suite)
