// SPDX-License-Identifier: MIT
/*
 * check_orphan.c - the orphan inodes a mount processes (orphan.c): the
 * superblock list and the orphan file walked, orphans deleted and
 * truncated into a write set, and a table of damaged lists, orphan-file
 * blocks and orphan inodes.
 */
#include "unit.h"

#define BLK 1024
#define NBLK 256
#define DEL 12		/* links 0: deleted; blocks 30, 31 */
#define TRUNC 13	/* links 1, 1500 bytes: blocks 40..42, the last freed */
#define OFILE 14	/* the orphan file: one block at 50 */
#define INFILE 15	/* in the orphan file, links 0, no blocks */

static struct unit_fs u;

static void put_inode(ek_ino_t ino, uint16_t links, uint64_t size, uint32_t dtime,
		      uint64_t pblk, uint16_t len)
{
	struct ext4_inode raw = { 0 };
	uint8_t *root = (uint8_t *)raw.i_block;

	raw.i_mode = cpu_to_le16(0100644);
	raw.i_links_count = cpu_to_le16(links);
	raw.i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw.i_size_lo = cpu_to_le32((uint32_t)size);
	raw.i_dtime = cpu_to_le32(dtime);
	raw.i_blocks_lo = cpu_to_le32(len * (BLK / 512));
	raw.i_extra_isize = cpu_to_le16(32);
	put_header(root, len ? 1 : 0, 4, 0);
	if (len)
		put_extent(root, 0, 0, len, pblk);
	unit_put_inode(&u, ino, &raw);
}

/* the list 12 -> 13; with @ofile, the orphan file holding 15 in slot 3 */
static void setup(bool ofile)
{
	uint8_t b[BLK] = { 0 };

	unit_fs_init(&u, BLK, NBLK, ofile ? EXT4_FEATURE_COMPAT_ORPHAN_FILE : 0,
		     EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	u.sb.s_last_orphan = cpu_to_le32(DEL);
	if (ofile)
		u.sb.s_orphan_file_inum = cpu_to_le32(OFILE);
	for (unsigned blk = 1; blk < UNIT_FREE; blk++)
		unit_set_bit(b, blk - 1);
	for (unsigned blk = NBLK; blk < BLK * 8; blk++)
		unit_set_bit(b, blk - 1);
	unit_set_bit(b, 30 - 1), unit_set_bit(b, 31 - 1);
	unit_set_bit(b, 40 - 1), unit_set_bit(b, 41 - 1), unit_set_bit(b, 42 - 1);
	unit_set_bit(b, 50 - 1);
	unit_write(&u, UNIT_BB, 0, b, BLK);
	memset(b, 0, BLK);
	for (unsigned i = 1; i <= INFILE; i++)
		unit_set_bit(b, i - 1);
	unit_write(&u, UNIT_IB, 0, b, BLK);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	put_inode(DEL, 0, 2 * BLK, TRUNC, 30, 2);
	put_inode(TRUNC, 1, 1500, 0, 40, 3);
	put_inode(OFILE, 1, BLK, 0, 50, 1);
	put_inode(INFILE, 0, 0, 0, 0, 0);
	memset(b, 0, BLK);
	put_le32(b + 4 * 3, INFILE);
	put_le32(b + BLK - 8, EK_ORPHAN_BLOCK_MAGIC);
	unit_write(&u, 50, 0, b, BLK);
}

static int fs_reader(void *arg, ek_blk_t blk, void *buf)
{
	return ek_fs_read_blocks(arg, blk, 1, buf);
}

struct seen {
	struct ek_orphan o[8];
	int n;
};

static int collect(void *arg, const struct ek_orphan *o)
{
	struct seen *s = arg;

	if (s->n < 8)
		s->o[s->n++] = *o;
	return 0;
}

/* ek_orphans_release's report: the blocks each inode gives back */
static int sum_freed(void *arg, const struct ek_orphan *o, uint64_t blocks)
{
	(void)o;
	*(uint64_t *)arg += blocks;
	return 0;
}

START_TEST(test_iterate)
{
	struct seen s = { 0 };

	setup(true);
	ck_assert_int_eq(ek_orphans_iterate(u.fs, u.fs->raw_sb, fs_reader, u.fs, collect, &s), 0);
	ck_assert_int_eq(s.n, 3);
	ck_assert_uint_eq(s.o[0].ino, DEL);
	ck_assert_uint_eq(s.o[0].links, 0);
	ck_assert(s.o[0].has_blocks);
	ck_assert_uint_eq(s.o[1].ino, TRUNC);
	ck_assert_uint_eq(s.o[1].size, 1500);
	ck_assert(!s.o[1].in_file);
	ck_assert_uint_eq(s.o[2].ino, INFILE);
	ck_assert(s.o[2].in_file);
	ck_assert(!s.o[2].has_blocks);
	ck_assert_uint_eq(s.o[2].file_blk, 50);
	ck_assert_uint_eq(s.o[2].slot, 3);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_release)
{
	struct ek_wset *ws;
	uint64_t released, freed = 0;
	uint8_t *raw, bmap[BLK], ob[BLK];
	struct ek_extlist l;

	setup(true);
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ck_assert_int_eq(ek_orphans_release(u.fs, ws, 1700000000, sum_freed, &freed, &released), 0);
	ck_assert_uint_eq(released, 3);
	/* what each inode gave back adds up to what the bitmaps gained */
	ck_assert_int_eq((int64_t)freed, ek_wset_free_blocks_delta(ws));
	ck_assert_uint_gt(freed, 0);
	ck_assert_uint_eq(le32_to_cpu(ek_wset_super(ws)->s_last_orphan), 0);
	/* deleted: dtime set, blocks and inode free */
	ck_assert_int_eq(ek_wset_inode(ws, DEL, &raw), 0);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_dtime)), 1700000000);
	ck_assert_int_eq(ek_wset_read(ws, UNIT_BB, bmap), 0);
	ck_assert(!ek_bit_test(bmap, 30 - 1) && !ek_bit_test(bmap, 31 - 1));
	/* truncated to 2 blocks: the third freed, off the list */
	ck_assert(ek_bit_test(bmap, 41 - 1) && !ek_bit_test(bmap, 42 - 1));
	ck_assert_int_eq(ek_wset_inode(ws, TRUNC, &raw), 0);
	ck_assert_uint_eq(get_le32(raw + offsetof(struct ext4_inode, i_dtime)), 0);
	ck_assert_int_eq(ek_extlist_load(u.fs, ws, TRUNC, raw, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_uint_eq(l.v[0].len, 2);
	ek_extlist_release(&l);
	ck_assert_int_eq(ek_wset_read(ws, UNIT_IB, bmap), 0);
	ck_assert(!ek_bit_test(bmap, DEL - 1) && ek_bit_test(bmap, TRUNC - 1));
	ck_assert(!ek_bit_test(bmap, INFILE - 1));
	/* the orphan-file slot cleared, the tail kept */
	ck_assert_int_eq(ek_wset_read(ws, 50, ob), 0);
	ck_assert_uint_eq(get_le32(ob + 12), 0);
	ck_assert_uint_eq(get_le32(ob + BLK - 8), EK_ORPHAN_BLOCK_MAGIC);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* ---- damage: one case per error site --------------------------------------------- */

static const struct unit_bad bad[] = {
	{ "list names an inode out of range", -EK_CORRUPT, "out of range" },
	{ "list loops", -EK_CORRUPT, "loops back" },
	{ "orphan-file block without its magic", -EK_CORRUPT, "no tail magic" },
	{ "orphan file names an inode out of range", -EK_CORRUPT, "inode 33 out of range" },
	{ "xattr block outside the filesystem", -EK_CORRUPT, "outside the filesystem" },
	{ "xattr block without its magic", -EK_CORRUPT, "bad magic" },
	{ "orphan to truncate with a bad extent tree", -EK_CORRUPT, "bad magic" },
	{ "orphan to delete with an extent past the end", -EK_CORRUPT, "outside the filesystem" },
};

START_TEST(test_bad)
{
	struct ek_wset *ws;
	uint64_t released;
	uint8_t b[BLK] = { 0 };
	int err;

	setup(true);
	switch (_i) {
	case 0: put_inode(TRUNC, 1, 1500, UNIT_INODES + 1, 40, 3); break;
	case 1: put_inode(TRUNC, 1, 1500, DEL, 40, 3); break;
	case 2: unit_write(&u, 50, BLK - 8, b, 4); break;
	case 3: put_le32(b, UNIT_INODES + 1); unit_write(&u, 50, 0, b, 4); break;
	case 4:
	case 5: {
		struct ext4_inode raw;

		ck_assert_int_eq(pread(u.fd, &raw, sizeof(raw), (off_t)UNIT_IT * BLK + (DEL - 1) * 256),
				 (ssize_t)sizeof(raw));
		raw.i_file_acl_lo = cpu_to_le32(_i == 4 ? NBLK + 9 : 60);
		unit_put_inode(&u, DEL, &raw);
		break;
	}
	case 6: unit_write(&u, UNIT_IT, (TRUNC - 1) * 256 + offsetof(struct ext4_inode, i_block),
			   (uint8_t[]){ 0x34, 0x12 }, 2);
		break;
	case 7: put_inode(DEL, 0, 2 * BLK, TRUNC, NBLK - 1, 2); break;
	}
	ck_assert_int_eq(ek_wset_init(u.fs, &ws), 0);
	ek_error_clear();
	err = ek_orphans_release(u.fs, ws, 1700000000, NULL, NULL, &released);
	unit_assert_bad(&bad[_i], err, NULL);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

static Suite *orphan_suite(void)
{
	Suite *s = suite_create("orphan");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_iterate);
	tcase_add_test(tc, test_release);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(orphan_suite)
