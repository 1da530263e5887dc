// SPDX-License-Identifier: MIT
/*
 * check_extent.c - the extent node codec (ek_ext_node_check, decode, block
 * checksum) and the write path's tree editing (ek_extlist_load, punch,
 * insert, store) on trees built in memory.
 */
#include "unit.h"

#define BLK 1024
#define NBLK 256
#define INO 12
#define PER ((BLK - 12) / 12)	/* entries in a tree block (84) */

static struct unit_fs u;

/* blocks 1..UNIT_FREE-1 and inodes 1..11 in use; opened with bitmaps */
static void setup(bool csum)
{
	uint8_t b[BLK] = { 0 };

	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE,
		     csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	for (unsigned blk = 1; blk < UNIT_FREE; blk++)
		unit_set_bit(b, blk - 1);
	for (unsigned blk = NBLK; blk < BLK * 8; blk++)	/* past the end */
		unit_set_bit(b, blk - 1);
	unit_write(&u, UNIT_BB, 0, b, BLK);
	memset(b, 0, BLK);
	for (unsigned i = 1; i <= 11; i++)
		unit_set_bit(b, i - 1);
	unit_write(&u, UNIT_IB, 0, b, BLK);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
}

/* a raw 256-byte inode with i_block from @root */
static void raw_inode(uint8_t raw[256], const uint8_t root[60])
{
	memset(raw, 0, 256);
	put_le16(raw + offsetof(struct ext4_inode, i_mode), 0100644);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	put_le32(raw + offsetof(struct ext4_inode, i_flags), EXT4_EXTENTS_FL);
	put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), 32);
	memcpy(raw + offsetof(struct ext4_inode, i_block), root, 60);
}

/* ---- the header checker: one case per failure reason --------------------------- */

static const struct {
	const char *what;
	size_t size;		/* 60: a root, BLK: a tree block */
	int depth;		/* what the parent expects, -1: root */
	uint16_t magic, entries, max, d;
	int err;
	const char *msg;
} hdr[] = {
	{ "valid root", 60, -1, EXT4_EXT_MAGIC, 4, 4, 0, 0, NULL },
	{ "valid empty root", 60, -1, EXT4_EXT_MAGIC, 0, 4, 0, 0, NULL },
	{ "valid leaf", BLK, 0, EXT4_EXT_MAGIC, PER, PER, 0, 0, NULL },
	{ "valid index root", 60, -1, EXT4_EXT_MAGIC, 1, 4, 5, 0, NULL },
	{ "bad magic", 60, -1, 0x1234, 1, 4, 0, -EK_CORRUPT, "bad magic 0x1234" },
	/* __ext4_ext_check(): eh_max 0 is refused even without entries */
	{ "eh_max 0, empty root", 60, -1, EXT4_EXT_MAGIC, 0, 0, 0, -EK_CORRUPT, "eh_max 0 invalid" },
	{ "eh_max 0, empty leaf", BLK, 0, EXT4_EXT_MAGIC, 0, 0, 0, -EK_CORRUPT, "eh_max 0 invalid" },
	{ "eh_max past the root", 60, -1, EXT4_EXT_MAGIC, 1, 5, 0, -EK_CORRUPT, "eh_max 5 invalid (room for 4)" },
	{ "eh_max past the block", BLK, 0, EXT4_EXT_MAGIC, 1, PER + 1, 0, -EK_CORRUPT, "room for 84" },
	{ "entries > max", 60, -1, EXT4_EXT_MAGIC, 4, 3, 0, -EK_CORRUPT, "eh_entries 4 > eh_max 3" },
	{ "depth > 5", 60, -1, EXT4_EXT_MAGIC, 1, 4, 6, -EK_CORRUPT, "depth 6 > 5" },
	{ "depth not the parent's", BLK, 1, EXT4_EXT_MAGIC, 1, PER, 0, -EK_CORRUPT, "parent expects 1" },
	{ "empty index node", BLK, 2, EXT4_EXT_MAGIC, 0, PER, 2, -EK_CORRUPT, "without entries" },
	{ "empty index root", 60, -1, EXT4_EXT_MAGIC, 0, 4, 1, -EK_CORRUPT, "without entries" },
	{ "too small for a header", 8, -1, EXT4_EXT_MAGIC, 0, 1, 0, -EK_CORRUPT, "room for 0" },
};

START_TEST(test_node_check)
{
	uint8_t node[BLK] = { 0 };
	int err;

	put_le16(node, hdr[_i].magic);
	put_le16(node + 2, hdr[_i].entries);
	put_le16(node + 4, hdr[_i].max);
	put_le16(node + 6, hdr[_i].d);
	ek_error_clear();
	err = ek_ext_node_check(INO, hdr[_i].size == 60 ? 0 : 100, node, hdr[_i].size, hdr[_i].depth);
	ck_assert_msg(err == hdr[_i].err, "case '%s': got %d", hdr[_i].what, err);
	if (hdr[_i].msg) {
		ck_assert_msg(strstr(ek_last_error()->msg, hdr[_i].msg), "case '%s': message '%s'",
			      hdr[_i].what, ek_last_error()->msg);
		ck_assert_msg(strstr(ek_last_error()->msg, "inode 12"), "case '%s': '%s' names no inode",
			      hdr[_i].what, ek_last_error()->msg);
	}
}
END_TEST

START_TEST(test_decode)
{
	uint8_t node[BLK] = { 0 };
	struct ek_ext e;

	put_header(node, 2, 4, 0);
	put_extent(node, 0, 7, 32768, 0x123456789aull);	/* 32768: initialized, not unwritten */
	put_extent(node, 1, 9, 32769, 40);		/* unwritten, 1 block */
	e = ek_ext_decode(node + 12);
	ck_assert_uint_eq(e.lblk, 7);
	ck_assert_uint_eq(e.len, 32768);
	ck_assert(!e.unwritten);
	ck_assert_uint_eq(e.pblk, 0x123456789aull);
	e = ek_ext_decode(node + 24);
	ck_assert_uint_eq(e.len, 1);
	ck_assert(e.unwritten);
	put_index(node, 0, 0, 0xabcd00000011ull);
	ck_assert_uint_eq(ek_ext_idx_child(node + 12), 0xabcd00000011ull);
	ek_ext_root_init(node);
	ck_assert_int_eq(ek_ext_node_check(INO, 0, node, 60, -1), 0);
	ck_assert_uint_eq(get_le16(node + 2), 0);
	ck_assert_uint_eq(get_le16(node + 4), 4);
}
END_TEST

/* ---- the write path's reader refuses what the read path refuses ---------------- */

/* the phrase is ek_extlist_load's message; map.c refuses the same trees */
static const struct unit_bad bad[] = {
	{ "eh_max 0 in the root", -EK_CORRUPT, "eh_max 0 invalid" },
	{ "eh_max 0 in a leaf block", -EK_CORRUPT, "eh_max 0 invalid" },
	{ "extent of length 0", -EK_CORRUPT, "length 0" },
	{ "extent past the end", -EK_CORRUPT, "outside the filesystem" },
	{ "extents out of order", -EK_CORRUPT, "out of order" },
	{ "index past the end", -EK_CORRUPT, "outside the filesystem" },
	{ "tree block used twice", -EK_CORRUPT, "uses this block twice" },
	{ "leaf of the wrong depth", -EK_CORRUPT, "parent expects 0" },
	{ "bad magic in a leaf", -EK_CORRUPT, "bad magic" },
	{ "empty index root", -EK_CORRUPT, "without entries" },
	{ "leaf starts past its index entry", -EK_CORRUPT, "does not match logical start 0" },
};

static int nop(void *arg, const struct ek_mapping *m)
{
	(void)arg, (void)m;
	return 0;
}

START_TEST(test_load_bad)
{
	uint8_t root[60] = { 0 }, leaf[BLK] = { 0 }, raw[256];
	struct ek_extlist l;
	struct ek_inode ei;
	struct ek_wset *ws;
	int err;

	setup(false);
	put_header(root, 1, 4, 1);
	put_index(root, 0, 0, 100);
	put_header(leaf, 1, PER, 0);
	put_extent(leaf, 0, 0, 2, 120);
	switch (_i) {
	case 0: put_header(root, 0, 0, 0); break;
	case 1: put_header(leaf, 0, 0, 0); break;
	case 2: put_extent(leaf, 0, 0, 0, 120); break;
	case 3: put_extent(leaf, 0, 0, 10, NBLK - 5); break;
	case 4:
		put_index(root, 0, 5, 100);
		put_header(leaf, 2, PER, 0);
		put_extent(leaf, 0, 5, 2, 120);
		put_extent(leaf, 1, 6, 1, 130);
		break;
	case 5: put_index(root, 0, 0, NBLK + 3); break;
	case 6:
		put_header(root, 2, 4, 1);
		put_index(root, 1, 10, 100);
		break;
	case 7: put_header(leaf, 1, PER, 1); break;
	case 8: put_le16(leaf, 0xf30b); break;
	case 9: put_header(root, 0, 4, 1); break;
	case 10: put_extent(leaf, 0, 3, 2, 120); break;	/* the index says 0 */
	}
	unit_write(&u, 100, 0, leaf, BLK);
	raw_inode(raw, root);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ek_error_clear();
	err = ek_extlist_load(u.fs, ws, INO, raw, &l);
	unit_assert_bad(&bad[_i], err, NULL);
	ek_wset_free(ws);

	/* the read path (map.c) refuses the same tree */
	unit_put_inode(&u, INO, (struct ext4_inode *)raw);
	ck_assert_int_eq(ek_inode_read(u.fs, INO, &ei), 0);
	err = ek_map_walk(u.fs, &ei, nop, NULL);
	ck_assert_msg(err == -EK_CORRUPT, "case '%s': walk got %d", bad[_i].what, err);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* ---- edit and store ------------------------------------------------------------ */

struct collect {
	struct ek_mapping m[16];
	int n;
};

START_TEST(test_store_roundtrip)
{
	uint8_t root[60], *raw, *leaf;
	struct ek_extlist l, back;
	struct ek_wset *ws;
	uint64_t freed = 0;
	int64_t tree = 0;
	ek_blk_t tblk;

	setup(_i);	/* with and without metadata_csum */
	ek_ext_root_init(root);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, INO, &raw), 0);
	raw_inode(raw, root);
	ck_assert_int_eq(ek_extlist_load(u.fs, ws, INO, raw, &l), 0);
	ck_assert_uint_eq(l.n, 0);
	/* six separate extents: more than the root holds */
	for (uint32_t i = 0; i < 6; i++) {
		struct ek_ext e = { .lblk = 10 * i, .len = 2, .pblk = 100 + 10 * i, .unwritten = i == 3 };

		ck_assert_int_eq(ek_extlist_insert(&l, &e), 0);
	}
	/* contiguous in both: merged */
	ck_assert_int_eq(ek_extlist_insert(&l, &(struct ek_ext){ .lblk = 2, .len = 1, .pblk = 102 }), 0);
	ck_assert_uint_eq(l.n, 6);
	ck_assert_uint_eq(l.v[0].len, 3);
	/* overlapping: refused */
	ck_assert_int_eq(ek_extlist_insert(&l, &(struct ek_ext){ .lblk = 1, .len = 1, .pblk = 200 }),
			 -EINVAL);
	ck_assert_int_eq(ek_extlist_insert(&l, &(struct ek_ext){ .lblk = 9, .len = 2, .pblk = 200 }),
			 -EINVAL);
	ck_assert_int_eq(ek_extlist_store(u.fs, ws, INO, raw, &l, &tree), 0);
	ck_assert_int_eq(tree, 1);
	/* the root indexes one leaf, which the checker and the checksum accept */
	ck_assert_int_eq(ek_ext_node_check(INO, 0, raw + offsetof(struct ext4_inode, i_block), 60, -1), 0);
	ck_assert_uint_eq(get_le16(raw + offsetof(struct ext4_inode, i_block) + 6), 1);
	tblk = ek_ext_idx_child(raw + offsetof(struct ext4_inode, i_block) + 12);
	ck_assert_int_eq(ek_wset_block(ws, tblk, &leaf), 0);
	ck_assert_int_eq(ek_ext_node_check(INO, tblk, leaf, BLK, 0), 0);
	ck_assert_uint_eq(get_le16(leaf + 4), PER);
	if (_i)
		ck_assert_uint_eq(get_le32(leaf + 12 + 12 * PER),
				  ek_ext_block_csum(u.fs, INO, 0, leaf));

	ck_assert_int_eq(ek_extlist_load(u.fs, ws, INO, raw, &back), 0);
	ck_assert_uint_eq(back.n, l.n);
	ck_assert_uint_eq(back.ntree, 1);
	for (size_t i = 0; i < l.n; i++) {
		ck_assert_uint_eq(back.v[i].lblk, l.v[i].lblk);
		ck_assert_uint_eq(back.v[i].len, l.v[i].len);
		ck_assert_uint_eq(back.v[i].pblk, l.v[i].pblk);
		ck_assert_int_eq(back.v[i].unwritten, l.v[i].unwritten);
	}
	ek_extlist_release(&l);

	/* a hole in the middle of the first extent splits it */
	ck_assert_int_eq(ek_extlist_punch(&back, ws, 1, 2, &freed), 0);
	ck_assert_uint_eq(freed, 1);
	ck_assert_uint_eq(back.n, 7);
	ck_assert_uint_eq(back.v[1].lblk, 2);
	ck_assert_uint_eq(back.v[1].pblk, 102);
	/* all but the first two: back into the root, the leaf freed */
	ck_assert_int_eq(ek_extlist_punch(&back, ws, 10, 100, &freed), 0);
	ck_assert_uint_eq(back.n, 2);
	ck_assert_uint_eq(freed, 1 + 5 * 2);
	tree = 0;
	ck_assert_int_eq(ek_extlist_store(u.fs, ws, INO, raw, &back, &tree), 0);
	ck_assert_int_eq(tree, -1);
	ck_assert_uint_eq(get_le16(raw + offsetof(struct ext4_inode, i_block) + 2), 2);
	ck_assert_uint_eq(get_le16(raw + offsetof(struct ext4_inode, i_block) + 6), 0);
	ek_extlist_release(&back);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* ek_extent_tree_write: two levels of index over 84 * 5 + 1 extents */
struct mem_sink {
	ek_blk_t next;
	int puts;
	uint8_t blocks[8][BLK];
};

static int mem_alloc(void *arg, ek_blk_t *blk)
{
	struct mem_sink *m = arg;

	*blk = m->next++;
	return 0;
}

static int mem_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	struct mem_sink *m = arg;

	ck_assert_uint_lt(blk - 200, 8);
	memcpy(m->blocks[blk - 200], node, BLK);
	m->puts++;
	return 0;
}

START_TEST(test_tree_write)
{
	static struct mem_sink m;
	struct ek_tree_sink sink = { mem_alloc, mem_put, &m };
	uint32_t n = PER * 5 + 1;
	struct ek_ext *v = ek_calloc(n, sizeof(*v));
	uint8_t raw[256] = { 0 };
	const uint8_t *root = raw + offsetof(struct ext4_inode, i_block);

	setup(true);
	memset(&m, 0, sizeof(m));
	m.next = 200;
	for (uint32_t i = 0; i < n; i++)
		v[i] = (struct ek_ext){ .lblk = 2 * i, .len = 1, .pblk = 16 + (i % 200) };
	ck_assert_int_eq(ek_extent_tree_write(u.fs, INO, raw, v, n, &sink), 0);
	/* 6 leaves, then one index block over them (6 > 4), then the root */
	ck_assert_int_eq(m.puts, 7);
	ck_assert_int_eq(ek_ext_node_check(INO, 0, root, 60, -1), 0);
	ck_assert_uint_eq(get_le16(root + 6), 2);
	ck_assert_uint_eq(get_le16(root + 2), 1);
	ck_assert_uint_eq(ek_ext_idx_child(root + 12), 206);
	ck_assert_int_eq(ek_ext_node_check(INO, 206, m.blocks[6], BLK, 1), 0);
	ck_assert_uint_eq(get_le16(m.blocks[6] + 2), 6);
	for (int k = 0; k < 6; k++) {
		ck_assert_int_eq(ek_ext_node_check(INO, 200 + k, m.blocks[k], BLK, 0), 0);
		ck_assert_uint_eq(get_le32(m.blocks[k] + 12 + 12 * PER),
				  ek_ext_block_csum(u.fs, INO, 0, m.blocks[k]));
	}
	ck_assert_uint_eq(get_le16(m.blocks[5] + 2), 1);
	free(v);
	unit_fs_done(&u);
}
END_TEST

/* ---- a tree grown one extent at a time (mke2fs's huge files) --------------------- */

struct grow_alloc {
	ek_blk_t goals[8];
	int n;
};

static int grow_alloc(void *arg, ek_blk_t goal, ek_blk_t *blk)
{
	struct grow_alloc *a = arg;

	ck_assert_int_lt(a->n, 8);
	a->goals[a->n] = goal;
	*blk = 200 + (ek_blk_t)a->n++;
	return 0;
}

static uint64_t ext_pblk(const uint8_t *e)
{
	return get_le32(e + 8) | (uint64_t)get_le16(e + 6) << 32;
}

START_TEST(test_grow)
{
	static struct mem_sink m;
	struct ek_tree_sink sink = { mem_alloc, mem_put, &m };
	struct grow_alloc a = { .n = 0 };
	struct ek_extent_grow *g = NULL;
	uint8_t raw[256] = { 0 };
	const uint8_t *root = raw + offsetof(struct ext4_inode, i_block);
	uint64_t blocks = 0;

	setup(true);
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(ek_extent_grow_begin(u.fs, INO, raw, grow_alloc, &a, &g), 0);
	for (uint32_t i = 0; i < 4 * (PER - 1) + 2; i++) {
		struct ek_ext e = { .lblk = i, .len = 1, .pblk = 1000 + 2 * i };

		ck_assert_int_eq(ek_extent_grow_add(g, &e), 0);
		if (i == 3)	/* four fit in the root */
			ck_assert_int_eq(a.n, 0);
		if (i == 4) {	/* the fifth: the root's four move to a leaf before the first */
			ck_assert_int_eq(a.n, 1);
			ck_assert_uint_eq(a.goals[0], 999);
			ck_assert_uint_eq(get_le16(root + 6), 1);
			ck_assert_uint_eq(get_le16(root + 2), 1);
			/* slots past the index entry keep the extents they held */
			ck_assert_uint_eq(ext_pblk(root + 24), 1002);
		}
	}
	/* leaves split off at the end (83 kept, 1 moved), then the root, then a leaf */
	ck_assert_int_eq(a.n, 6);
	ck_assert_uint_eq(a.goals[1], 999);
	ck_assert_uint_eq(a.goals[2], 1000 + 2 * (PER - 1) - 1);
	ck_assert_uint_eq(a.goals[3], 1000 + 4 * (PER - 1) - 1);
	ck_assert_uint_eq(a.goals[4], 199);	/* the index block: before the first leaf */
	ck_assert_uint_eq(a.goals[5], 1000 + 6 * (PER - 1) - 1);
	m.next = 200;
	ck_assert_int_eq(ek_extent_grow_finish(g, &sink, &blocks), 0);
	ck_assert_uint_eq(blocks, 6);
	ck_assert_int_eq(m.puts, 6);
	ek_extent_grow_free(g);
	/* root: depth 2, one entry (the index block); stale index entries after it */
	ck_assert_int_eq(ek_ext_node_check(INO, 0, root, 60, -1), 0);
	ck_assert_uint_eq(get_le16(root + 6), 2);
	ck_assert_uint_eq(get_le16(root + 2), 1);
	ck_assert_uint_eq(ek_ext_idx_child(root + 12), 204);
	ck_assert_uint_eq(ek_ext_idx_child(root + 24), 201);
	/* the index block: the five leaves in order */
	ck_assert_int_eq(ek_ext_node_check(INO, 204, m.blocks[4], BLK, 1), 0);
	ck_assert_uint_eq(get_le16(m.blocks[4] + 2), 5);
	ck_assert_uint_eq(ek_ext_idx_child(m.blocks[4] + 12 + 4 * 12), 205);
	ck_assert_uint_eq(get_le32(m.blocks[4] + 12 + 4 * 12), 4 * (PER - 1));
	for (int k = 0; k < 6; k++)
		ck_assert_uint_eq(get_le32(m.blocks[k] + 12 + 12 * PER),
				  ek_ext_block_csum(u.fs, INO, 0, m.blocks[k]));
	/* a full leaf keeps 83, its moved last entry stale after them */
	ck_assert_int_eq(ek_ext_node_check(INO, 200, m.blocks[0], BLK, 0), 0);
	ck_assert_uint_eq(get_le16(m.blocks[0] + 2), PER - 1);
	ck_assert_uint_eq(ext_pblk(m.blocks[0] + 12 + 12 * (PER - 1)), 1000 + 2 * (PER - 1));
	ck_assert_uint_eq(get_le16(m.blocks[5] + 2), 2);
	ck_assert_uint_eq(ext_pblk(m.blocks[5] + 12), 1000 + 2 * 4 * (PER - 1));
	unit_fs_done(&u);
}
END_TEST

static Suite *extent_suite(void)
{
	Suite *s = suite_create("extent");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_node_check, 0, sizeof(hdr) / sizeof(hdr[0]));
	tcase_add_test(tc, test_decode);
	tcase_add_loop_test(tc, test_load_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_loop_test(tc, test_store_roundtrip, 0, 2);
	tcase_add_test(tc, test_tree_write);
	tcase_add_test(tc, test_grow);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(extent_suite)
