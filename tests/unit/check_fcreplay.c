// SPDX-License-Identifier: MIT
/*
 * check_fcreplay.c - fast-commit replay (fcreplay.c) on a filesystem built
 * in memory: ranges added and deleted, names linked and unlinked, a whole
 * 64 KiB block in one entry, and a table of the records and directories
 * it refuses.
 */
#include "unit.h"

#define NBLK 64
#define DIR 13		/* a directory: blocks 20 and 21 */
#define FILE_INO 12	/* a regular file with extents, no blocks */
#define FREE_INO 14	/* not in use */
#define IND_FILE 15	/* a regular file without extents */

static struct unit_fs u;
static uint32_t bs;

static void put_inode(ek_ino_t ino, uint16_t mode, uint16_t links, uint32_t flags, uint64_t size,
		      const uint8_t root[60])
{
	struct ext4_inode raw = { 0 };

	raw.i_mode = cpu_to_le16(mode);
	raw.i_links_count = cpu_to_le16(links);
	raw.i_flags = cpu_to_le32(flags);
	raw.i_size_lo = cpu_to_le32((uint32_t)size);
	raw.i_extra_isize = cpu_to_le16(32);
	if (root)
		memcpy(raw.i_block, root, 60);
	unit_put_inode(&u, ino, &raw);
}

/* one entry at @off of @b; rec_len as stored */
static void dent(uint8_t *b, uint32_t off, uint32_t ino, uint16_t rec_raw, const char *name)
{
	put_le32(b + off, ino);
	put_le16(b + off + 4, rec_raw);
	b[off + 6] = (uint8_t)strlen(name);
	b[off + 7] = EXT4_FT_REG_FILE;
	memcpy(b + off + 8, name, strlen(name));
}

/*
 * @blksz-byte blocks, no metadata_csum.  Blocks 1..19 used and 20, 21 (the
 * directory's); inodes 1..13 and 15 in use.  Directory 13: block 20 holds
 * "." and "..", block 21 "a" and "b" (both inode 12).
 */
static void setup(uint32_t blksz)
{
	uint8_t *b = calloc(1, blksz), root[60] = { 0 };

	bs = blksz;
	unit_fs_init(&u, blksz, NBLK, 0, EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	if (blksz == 65536) {	/* at least a block of inodes: the table's one block */
		u.sb.s_inodes_count = u.sb.s_inodes_per_group = cpu_to_le32(256);
		u.sb.s_free_inodes_count = cpu_to_le32(256 - 11);
	}
	for (unsigned blk = blksz == 1024; blk < 22; blk++)
		unit_set_bit(b, blk - (blksz == 1024));
	for (unsigned blk = NBLK; blk < blksz * 8; blk++)
		unit_set_bit(b, blk - (blksz == 1024));
	unit_write(&u, UNIT_BB, 0, b, blksz);
	memset(b, 0, blksz);
	for (unsigned i = 1; i <= 13; i++)
		unit_set_bit(b, i - 1);
	unit_set_bit(b, IND_FILE - 1);
	unit_write(&u, UNIT_IB, 0, b, blksz);
	ck_assert_msg(unit_fs_open(&u, 0) == 0, "open: %s", ek_last_error()->msg);

	put_header(root, 0, 4, 0);
	put_inode(FILE_INO, 0100644, 2, EXT4_EXTENTS_FL, 0, root);
	put_inode(IND_FILE, 0100644, 1, 0, 0, NULL);
	put_header(root, 1, 4, 0);
	put_extent(root, 0, 0, 2, 20);
	put_inode(DIR, 040755, 2, EXT4_EXTENTS_FL, 2ull * blksz, root);
	memset(b, 0, blksz);
	dent(b, 0, DIR, 12, ".");
	dent(b, 12, EXT4_ROOT_INO, ek_rec_len_to_disk(blksz - 12, blksz), "..");
	unit_write(&u, 20, 0, b, blksz);
	memset(b, 0, blksz);
	dent(b, 0, FILE_INO, 12, "a");
	dent(b, 12, FILE_INO, ek_rec_len_to_disk(blksz - 12, blksz), "b");
	unit_write(&u, 21, 0, b, blksz);
	free(b);
}

static int replay(struct ek_fc_rec *recs, size_t n, struct ek_wset **ws)
{
	struct ek_fclog log = { .recs = recs, .nrecs = n, .nreplay = n, .state = EK_FC_VALID };

	ck_assert_int_eq(ek_wset_init(u.fs, ws), 0);
	ek_error_clear();
	return ek_fc_replay(u.fs, *ws, &log);
}

static struct ek_fc_rec dentry_rec(uint16_t tag, ek_ino_t parent, ek_ino_t ino, const char *name)
{
	return (struct ek_fc_rec){ .tag = tag, .decoded = true,
				   .u.dentry = { parent, ino, (const uint8_t *)name,
						 (uint32_t)strlen(name) } };
}

START_TEST(test_ranges)
{
	struct ek_fc_rec r[2] = {
		{ .tag = EXT4_FC_TAG_ADD_RANGE, .decoded = true,
		  .u.range = { .ino = FILE_INO, .lblk = 0, .len = 6, .pblk = 30 } },
		{ .tag = EXT4_FC_TAG_DEL_RANGE, .decoded = true,
		  .u.del = { .ino = FILE_INO, .lblk = 2, .len = 2 } },
	};
	struct ek_extlist l;
	struct ek_wset *ws;
	uint8_t *raw, bmap[1024];

	setup(1024);
	ck_assert_int_eq(replay(r, 2, &ws), 0);
	ck_assert_int_eq(ek_wset_inode(ws, FILE_INO, &raw), 0);
	ck_assert_int_eq(ek_extlist_load(u.fs, ws, FILE_INO, raw, &l), 0);
	ck_assert_uint_eq(l.n, 2);
	ck_assert_uint_eq(l.v[0].pblk, 30);
	ck_assert_uint_eq(l.v[0].len, 2);
	ck_assert_uint_eq(l.v[1].lblk, 4);
	ck_assert_uint_eq(l.v[1].pblk, 34);
	/* 30, 31, 34, 35 in use; 32, 33 free again */
	ck_assert_int_eq(ek_wset_read(ws, UNIT_BB, bmap), 0);
	ck_assert(ek_bit_test(bmap, 30 - 1) && ek_bit_test(bmap, 35 - 1));
	ck_assert(!ek_bit_test(bmap, 32 - 1) && !ek_bit_test(bmap, 33 - 1));
	ek_extlist_release(&l);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* walk the entries of @b: names joined by ',' into @out */
struct names {
	char s[256];
};

static int name_cb(void *arg, uint8_t *b, uint32_t prev, uint32_t off, uint32_t rec)
{
	struct names *n = arg;

	(void)prev, (void)rec;
	if (get_le32(b + off))
		snprintf(n->s + strlen(n->s), sizeof(n->s) - strlen(n->s), "%s%.*s",
			 n->s[0] ? "," : "", b[off + 6], (const char *)b + off + 8);
	return 0;
}

static const char *names_of(struct ek_wset *ws, ek_blk_t blk, struct names *n)
{
	uint8_t *b = malloc(bs);

	n->s[0] = 0;
	ck_assert_int_eq(ek_wset_read(ws, blk, b), 0);
	ck_assert_int_eq(ek_dirent_walk(u.fs, DIR, blk, b, 0, bs, false, name_cb, n), 0);
	free(b);
	return n->s;
}

START_TEST(test_link_unlink)
{
	struct ek_fc_rec r[2] = {
		dentry_rec(EXT4_FC_TAG_LINK, DIR, FILE_INO, "hello"),
		dentry_rec(EXT4_FC_TAG_UNLINK, DIR, FILE_INO, "a"),
	};
	struct ek_wset *ws;
	struct names n;
	uint8_t *raw;

	setup(1024);
	ck_assert_int_eq(replay(r, 2, &ws), 0);
	/* first fit: after ".." in the first block */
	ck_assert_str_eq(names_of(ws, 20, &n), ".,..,hello");
	/* "a" was first in its block: cleared, its rec_len kept */
	ck_assert_str_eq(names_of(ws, 21, &n), "b");
	ck_assert_int_eq(ek_wset_inode(ws, FILE_INO, &raw), 0);
	/* LINK leaves the count to the INODE record; UNLINK drops one */
	ck_assert_uint_eq(get_le16(raw + offsetof(struct ext4_inode, i_links_count)), 1);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* a casefolded parent: UNLINK of "A" removes "a", as the kernel's lookup finds it */
START_TEST(test_unlink_casefold)
{
	struct ek_fc_rec r = dentry_rec(EXT4_FC_TAG_UNLINK, DIR, FILE_INO, "A");
	struct ek_wset *ws;
	struct names n;
	uint8_t *raw, root[60] = { 0 };

	setup(1024);
	/* not casefolded: "A" is not there, "a" stays */
	replay(&r, 1, &ws);
	ck_assert_str_eq(names_of(ws, 21, &n), "a,b");
	ek_wset_free(ws);
	u.sb.s_feature_incompat |= cpu_to_le32(EXT4_FEATURE_INCOMPAT_CASEFOLD);
	u.sb.s_encoding = cpu_to_le16(EXT4_ENC_UTF8_12_1);
	put_header(root, 1, 4, 0);
	put_extent(root, 0, 0, 2, 20);
	put_inode(DIR, 040755, 2, EXT4_EXTENTS_FL | EXT4_CASEFOLD_FL, 2ull * bs, root);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	ck_assert_int_eq(replay(&r, 1, &ws), 0);
	ck_assert_str_eq(names_of(ws, 21, &n), "b");
	ck_assert_int_eq(ek_wset_inode(ws, FILE_INO, &raw), 0);
	ck_assert_uint_eq(get_le16(raw + offsetof(struct ext4_inode, i_links_count)), 1);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/*
 * 64 KiB blocks: unlinking "b" merges it into "a", which then covers the
 * whole block: rec_len 65536 is stored as 0xFFFF (ext4_rec_len_to_disk),
 * where adding the two raw values wrapped to 0.
 */
START_TEST(test_unlink_64k)
{
	struct ek_fc_rec r = dentry_rec(EXT4_FC_TAG_UNLINK, DIR, FILE_INO, "b");
	struct ek_wset *ws;
	struct names n;
	uint8_t *b = malloc(65536);

	setup(65536);
	ck_assert_int_eq(replay(&r, 1, &ws), 0);
	ck_assert_int_eq(ek_wset_read(ws, 21, b), 0);
	ck_assert_uint_eq(get_le16(b + 4), 0xFFFF);
	ck_assert_str_eq(names_of(ws, 21, &n), "a");
	free(b);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

/* ---- refused records and directories ------------------------------------------- */

static const struct unit_bad bad[] = {
	{ "inode record too short", -EK_CORRUPT, "record of 100 bytes" },
	{ "parent not in use", -EK_CORRUPT, "directory not in use" },
	{ "parent not a directory", -EK_CORRUPT, "no directory" },
	{ "range of a block-mapped inode", -EK_UNSUPP, "block-mapped inode" },
	{ "rec_len below the minimum", -EK_CORRUPT, "below the minimum" },
	/* the dirent checker of dir.c; fcreplay's own walk let this one through */
	{ "entry naming an inode out of range", -EK_CORRUPT, "out of range" },
	{ "rec_len past the block", -EK_CORRUPT, "runs past the end" },
	{ "unknown tag", -EK_UNSUPP, "not replayed" },
	{ "new block-mapped directory", -EK_UNSUPP, "block-mapped directory" },
	{ "undecoded record", -EK_CORRUPT, "not decoded" },
	{ "DEL_RANGE of a block-mapped inode", -EK_UNSUPP, "block-mapped inode" },
};

START_TEST(test_bad)
{
	uint8_t raw[256] = { 0 }, blk[1024] = { 0 };
	struct ek_fc_rec r = dentry_rec(EXT4_FC_TAG_LINK, DIR, FILE_INO, "new");
	struct ek_wset *ws;
	int err;

	setup(1024);
	switch (_i) {
	case 0:
		r = (struct ek_fc_rec){ .tag = EXT4_FC_TAG_INODE, .decoded = true,
					.u.inode = { FILE_INO, raw, 100 } };
		break;
	case 1: r.u.dentry.parent = FREE_INO; break;
	case 2: r.u.dentry.parent = IND_FILE; break;
	case 3:
		r = (struct ek_fc_rec){ .tag = EXT4_FC_TAG_ADD_RANGE, .decoded = true,
					.u.range = { .ino = IND_FILE, .lblk = 0, .len = 1, .pblk = 30 } };
		break;
	case 4:
		unit_write(&u, 20, 4, (uint8_t[]){ 8, 0 }, 2);	/* "." rec_len 8 */
		break;
	case 5:	/* "..", then "x" naming inode 33 of 32 */
		dent(blk, 0, DIR, 12, ".");
		dent(blk, 12, EXT4_ROOT_INO, 12, "..");
		dent(blk, 24, UNIT_INODES + 1, 1000, "x");
		unit_write(&u, 20, 0, blk, 1024);
		break;
	case 6:
		unit_write(&u, 20, 16, (uint8_t[]){ 0x00, 0x08 }, 2);	/* ".." rec_len 2048 */
		break;
	case 7:
		r = (struct ek_fc_rec){ .tag = 0x77, .decoded = true };
		break;
	case 8:
		put_inode(FREE_INO, 040755, 0, 0, 0, NULL);
		r = dentry_rec(EXT4_FC_TAG_CREAT, DIR, FREE_INO, "sub");
		break;
	case 9: r.decoded = false; break;
	case 10:
		r = (struct ek_fc_rec){ .tag = EXT4_FC_TAG_DEL_RANGE, .decoded = true,
					.u.del = { .ino = IND_FILE, .lblk = 0, .len = 1 } };
		break;
	}
	err = replay(&r, 1, &ws);
	unit_assert_bad(&bad[_i], err, NULL);
	ek_wset_free(ws);
	unit_fs_done(&u);
}
END_TEST

static Suite *fcreplay_suite(void)
{
	Suite *s = suite_create("fcreplay");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_ranges);
	tcase_add_test(tc, test_link_unlink);
	tcase_add_test(tc, test_unlink_64k);
	tcase_add_test(tc, test_unlink_casefold);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(fcreplay_suite)
