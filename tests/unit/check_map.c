// SPDX-License-Identifier: MIT
/* check_map.c - extent trees, indirect maps, bmap and file reading */
#include "unit.h"

#define BLK 1024
#define NBLK 256

static struct unit_fs u;

static void setup(bool csum)
{
	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE,
		     csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	ck_assert_int_eq(unit_fs_open(&u, EK_OPEN_NO_BITMAPS), 0);
}

/* an inode with i_block from @root (60 bytes) and @flags */
static void make_inode(struct ek_inode *ei, const uint8_t *root, uint32_t flags, uint64_t size)
{
	struct ext4_inode raw = { 0 };

	raw.i_mode = cpu_to_le16(0100644);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(flags);
	raw.i_size_lo = cpu_to_le32((uint32_t)size);
	raw.i_blocks_lo = cpu_to_le32(2);
	raw.i_extra_isize = cpu_to_le16(32);
	memcpy(raw.i_block, root, 60);
	unit_put_inode(&u, 12, &raw);
	ck_assert_int_eq(ek_inode_read(u.fs, 12, ei), 0);
}

/* seal a leaf/index block with its checksum tail */
static void seal(uint8_t *blk, const struct ek_inode *ei)
{
	size_t off = 12 + 12 * (size_t)get_le16(blk + 4);
	uint32_t c = ek_crc32c(ek_inode_csum_seed(u.fs, ei->ino, ei->generation), blk, off);

	put_le32(blk + off, c);
}

struct collect {
	struct ek_mapping m[64];
	int n;
};

static int collect(void *arg, const struct ek_mapping *m)
{
	struct collect *c = arg;

	if (c->n < 64)
		c->m[c->n++] = *m;
	return 0;
}

START_TEST(test_extent_depth1)
{
	uint8_t root[60] = { 0 }, leaf[BLK] = { 0 };
	struct ek_inode ei;
	struct collect c = { 0 };
	ek_blk_t p;
	bool unw;

	setup(true);
	put_header(root, 1, 4, 1);
	put_index(root, 0, 0, 100);
	make_inode(&ei, root, EXT4_EXTENTS_FL, 20 * BLK);
	put_header(leaf, 2, (BLK - 12 - 4) / 12, 0);
	put_extent(leaf, 0, 0, 3, 120);
	put_extent(leaf, 1, 10, 32768 + 5, 140);	/* unwritten */
	seal(leaf, &ei);
	unit_write(&u, 100, 0, leaf, BLK);

	ck_assert_int_eq(ek_map_walk(u.fs, &ei, collect, &c), 0);
	ck_assert_int_eq(c.n, 4);
	ck_assert_int_eq(c.m[0].kind, EK_MAP_INDEX);
	ck_assert_int_eq(c.m[1].kind, EK_MAP_TREE);
	ck_assert_uint_eq(c.m[1].pblk, 100);
	ck_assert_uint_eq(c.m[2].pblk, 120);
	ck_assert_uint_eq(c.m[3].len, 5);
	ck_assert(c.m[3].unwritten);

	ck_assert_int_eq(ek_map_bmap(u.fs, &ei, 2, &p, &unw), 0);
	ck_assert_uint_eq(p, 122);
	ck_assert_int_eq(ek_map_bmap(u.fs, &ei, 5, &p, &unw), 0);
	ck_assert_uint_eq(p, 0);
	ck_assert_int_eq(ek_map_bmap(u.fs, &ei, 12, &p, &unw), 0);
	ck_assert_uint_eq(p, 142);
	ck_assert(unw);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

static int sum_data(void *arg, uint64_t off, const void *buf, size_t len)
{
	uint64_t *s = arg;

	(void)off;
	for (size_t i = 0; i < len; i++)
		*s += ((const uint8_t *)buf)[i];
	return 0;
}

START_TEST(test_file_read)
{
	uint8_t root[60] = { 0 }, data[BLK];
	struct ek_inode ei;
	uint64_t sum = 0;
	struct ek_read_cb cb = { .data = sum_data, .arg = &sum };

	setup(false);
	put_header(root, 2, 4, 0);
	put_extent(root, 0, 0, 1, 120);
	put_extent(root, 1, 2, 1, 121);
	memset(data, 1, BLK);
	unit_write(&u, 120, 0, data, BLK);
	unit_write(&u, 121, 0, data, BLK);
	make_inode(&ei, root, EXT4_EXTENTS_FL, 2 * BLK + 10);	/* hole at block 1 */
	ck_assert_int_eq(ek_file_read(u.fs, &ei, 0, &cb), 0);
	ck_assert_uint_eq(sum, BLK + 10);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_indirect)
{
	uint8_t root[60] = { 0 }, ind[BLK] = { 0 };
	struct ek_inode ei;
	struct collect c = { 0 };
	ek_blk_t p;

	setup(false);
	for (int i = 0; i < 12; i++)
		put_le32(root + 4 * i, 150 + i);
	put_le32(root + 4 * 12, 170);
	put_le32(ind, 162);	/* lblk 12 continues the run */
	put_le32(ind + 8, 200);	/* lblk 14, after a hole */
	unit_write(&u, 170, 0, ind, BLK);
	make_inode(&ei, root, 0, 15 * BLK);
	ck_assert_int_eq(ek_map_walk(u.fs, &ei, collect, &c), 0);
	/* run 0..11, then the IND block flushes it, then 12, then 14 */
	ck_assert_int_eq(c.n, 4);
	ck_assert_uint_eq(c.m[0].len, 12);
	ck_assert_int_eq(c.m[1].kind, EK_MAP_TREE);
	ck_assert_uint_eq(c.m[2].lblk, 12);
	ck_assert_uint_eq(c.m[3].pblk, 200);
	ck_assert_int_eq(ek_map_bmap(u.fs, &ei, 14, &p, NULL), 0);
	ck_assert_uint_eq(p, 200);
	ck_assert_int_eq(ek_map_bmap(u.fs, &ei, 13, &p, NULL), 0);
	ck_assert_uint_eq(p, 0);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

/* malformed maps: each reaches one check in map.c */
enum { WALK, BMAP };
static const struct {
	const char *what;
	int op;
	uint64_t lblk;
	int err;
} bad[] = {
	{ "root magic", WALK, 0, -EK_CORRUPT },
	{ "root eh_max 0", WALK, 0, -EK_CORRUPT },
	{ "root eh_max too big", WALK, 0, -EK_CORRUPT },
	{ "entries > max", WALK, 0, -EK_CORRUPT },
	{ "depth > 5", WALK, 0, -EK_CORRUPT },
	{ "child depth mismatch", WALK, 0, -EK_CORRUPT },
	{ "extent length 0", WALK, 0, -EK_CORRUPT },
	{ "extents out of order", WALK, 0, -EK_CORRUPT },
	{ "extent outside fs", WALK, 0, -EK_CORRUPT },
	{ "index out of order", WALK, 0, -EK_CORRUPT },
	{ "index child outside fs", WALK, 0, -EK_CORRUPT },
	{ "shared leaf", WALK, 0, -EK_CORRUPT },
	{ "leaf checksum", WALK, 0, -EK_BADCRC },
	{ "indirect data outside fs", WALK, 0, -EK_CORRUPT },
	{ "indirect block outside fs", WALK, 0, -EK_CORRUPT },
	{ "indirect block twice", WALK, 0, -EK_CORRUPT },
	{ "bmap extent outside fs", BMAP, 0, -EK_CORRUPT },
	{ "bmap index outside fs", BMAP, 0, -EK_CORRUPT },
	{ "bmap indirect block outside fs", BMAP, 20, -EK_CORRUPT },
	{ "bmap direct block outside fs", BMAP, 0, -EK_CORRUPT },
	{ "bmap root magic", BMAP, 0, -EK_CORRUPT },
};

static int nop(void *arg, const struct ek_mapping *m)
{
	(void)arg, (void)m;
	return 0;
}

/* ek_ind_map_write's sink: data from a list, indirect blocks from alloc_meta, open_after */
struct listsink {
	ek_blk_t data[300];
	size_t n, next;
	ek_blk_t meta_next;		/* alloc_meta hands these out in turn */
	int puts;
	ek_blk_t put_blk[8];
	uint8_t put_buf[8][BLK];
};

static int ls_alloc(void *arg, ek_blk_t goal, uint64_t want, ek_blk_t *start, uint64_t *got)
{
	struct listsink *l = arg;

	(void)goal;
	ck_assert_uint_lt(l->next, l->n);
	*start = l->data[l->next++];
	*got = 1;
	(void)want;
	return 0;
}

static int ls_meta(void *arg, ek_blk_t goal, ek_blk_t *blk)
{
	struct listsink *l = arg;

	(void)goal;
	*blk = l->meta_next++;
	return 0;
}

static int ls_put(void *arg, ek_blk_t blk, const uint8_t *buf)
{
	struct listsink *l = arg;

	ck_assert_int_lt(l->puts, 8);
	l->put_blk[l->puts] = blk;
	memcpy(l->put_buf[l->puts++], buf, BLK);
	return 0;
}

START_TEST(test_ind_write_list)
{
	/* @_i: 0 -> 5 blocks, 1 -> 12 (IND opened, empty), 2 -> 13, 3 -> 268 (DIND and its IND) */
	static const size_t counts[] = { 5, 12, 13, 12 + 256 };
	static const int puts[] = { 0, 1, 1, 3 };
	size_t cnt = counts[_i];
	struct listsink l = { .n = cnt, .meta_next = 200 };
	struct ek_ind_sink sink = { .alloc = ls_alloc, .alloc_meta = ls_meta, .put = ls_put,
				    .arg = &l, .open_after = true };
	struct ek_ext run = { .lblk = 0, .len = (uint32_t)cnt }, *v = NULL;
	uint8_t raw[256] = { 0 };
	size_t nv;

	setup(false);
	for (size_t i = 0; i < cnt; i++)
		l.data[i] = 20 + 2 * i;	/* never contiguous: one extent each */
	ck_assert_int_eq(ek_ind_map_write(u.fs, raw, &run, 1, 0, &sink, &v, &nv), 0);
	ck_assert_uint_eq(nv, cnt);
	ck_assert_int_eq(l.puts, puts[_i]);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * 4), 28);
	if (_i == 1) {	/* the IND after the last block: linked, all zeros */
		static const uint8_t zero[BLK];

		ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_block) + 48), 200);
		ck_assert_uint_eq(l.put_blk[0], 200);
		ck_assert_mem_eq(l.put_buf[0], zero, BLK);
	}
	if (_i == 2)
		ck_assert_uint_eq(get_le32(l.put_buf[0] + 0), 20 + 2 * 12);
	if (_i == 3) {	/* IND 200 full, DIND 201 -> IND 202 (empty) */
		ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_block) + 52), 201);
		ck_assert_uint_eq(get_le32(l.put_buf[0] + 4 * 255), 20 + 2 * 267);
		ck_assert_uint_eq(l.put_blk[1], 202);
		ck_assert_uint_eq(l.put_blk[2], 201);
		ck_assert_uint_eq(get_le32(l.put_buf[2]), 202);
	}
	/* i_blocks: data and indirect blocks (the caller may set its own) */
	ck_assert_uint_eq(ek_inode_iblocks(u.fs, raw), (cnt + (uint64_t)puts[_i]) * (BLK / 512));
	free(v);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_bad)
{
	uint8_t root[60] = { 0 }, b1[BLK] = { 0 }, b2[BLK] = { 0 };
	uint32_t flags = EXT4_EXTENTS_FL;
	struct ek_inode ei;
	bool seal1 = false;
	ek_blk_t p;
	int err;

	setup(true);
	put_header(root, 1, 4, 0);
	put_extent(root, 0, 0, 1, 120);
	switch (_i) {
	case 0: put_le16(root, 0x1234); break;
	case 1: put_le16(root + 4, 0); break;
	case 2: put_le16(root + 4, 5); break;
	case 3: put_le16(root + 2, 5); break;
	case 4: put_le16(root + 6, 6); break;
	case 5:
		put_header(root, 1, 4, 2);
		put_index(root, 0, 0, 100);
		put_header(b1, 1, 84, 0);	/* depth 0 where 1 is expected */
		put_extent(b1, 0, 0, 1, 120);
		break;
	case 6: put_extent(root, 0, 0, 0, 120); break;
	case 7:
		put_header(root, 2, 4, 0);
		put_extent(root, 0, 5, 2, 120);
		put_extent(root, 1, 6, 1, 130);
		break;
	case 8: put_extent(root, 0, 0, 10, NBLK - 5); break;
	case 9:
		put_header(root, 2, 4, 1);
		put_index(root, 0, 10, 100);
		put_index(root, 1, 5, 101);
		put_header(b1, 0, 84, 0);
		seal1 = true;
		break;
	case 10:
		put_header(root, 1, 4, 1);
		put_index(root, 0, 0, NBLK + 7);
		break;
	case 11:
		put_header(root, 2, 4, 1);
		put_index(root, 0, 0, 100);
		put_index(root, 1, 10, 100);
		put_header(b1, 1, 84, 0);
		put_extent(b1, 0, 0, 1, 120);
		seal1 = true;
		break;
	case 12:
		put_header(root, 1, 4, 1);
		put_index(root, 0, 0, 100);
		put_header(b1, 1, 84, 0);
		put_extent(b1, 0, 0, 1, 120);
		put_le32(b1 + 12 + 12 * 84, 0xdeadbeef);
		break;
	case 13:
		flags = 0;
		memset(root, 0, 60);
		put_le32(root, NBLK + 1);
		break;
	case 14:
		flags = 0;
		memset(root, 0, 60);
		put_le32(root + 48, NBLK + 1);
		break;
	case 15:
		flags = 0;
		memset(root, 0, 60);
		put_le32(root + 52, 100);	/* DIND at 100 */
		put_le32(b1, 101);		/* two entries, same IND block */
		put_le32(b1 + 4, 101);
		put_le32(b2, 150);
		unit_write(&u, 101, 0, b2, BLK);
		break;
	case 16: put_extent(root, 0, 0, 10, NBLK - 5); break;
	case 17:
		put_header(root, 1, 4, 1);
		put_index(root, 0, 0, NBLK + 7);
		break;
	case 18:
		flags = 0;
		memset(root, 0, 60);
		put_le32(root + 48, NBLK + 1);
		break;
	case 19:
		flags = 0;
		memset(root, 0, 60);
		put_le32(root, NBLK + 1);
		break;
	case 20: put_le16(root, 0x1234); break;
	}
	make_inode(&ei, root, flags, 4 * BLK);
	if (seal1)
		seal(b1, &ei);
	unit_write(&u, 100, 0, b1, BLK);
	ek_error_clear();
	if (bad[_i].op == WALK)
		err = ek_map_walk(u.fs, &ei, nop, NULL);
	else
		err = ek_map_bmap(u.fs, &ei, bad[_i].lblk, &p, NULL);
	ck_assert_msg(err == bad[_i].err, "case '%s': got %d (%s)", bad[_i].what, err,
		      ek_last_error()->msg);
	ck_assert_msg(strstr(ek_last_error()->msg, "inode 12") || strstr(ek_last_error()->msg, "block"),
		      "case '%s': message '%s' names no inode or block", bad[_i].what,
		      ek_last_error()->msg);
	ek_inode_release(&ei);
	unit_fs_done(&u);
}
END_TEST

static Suite *map_suite(void)
{
	Suite *s = suite_create("map");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_extent_depth1);
	tcase_add_test(tc, test_file_read);
	tcase_add_test(tc, test_indirect);
	tcase_add_loop_test(tc, test_ind_write_list, 0, 4);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(map_suite)
