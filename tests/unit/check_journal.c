// SPDX-License-Identifier: MIT
/* check_journal.c - journal superblock decode, tag sizes, journal mapping */
#include "unit.h"

static void base_jsb(journal_superblock_t *j)
{
	memset(j, 0, sizeof(*j));
	j->s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	j->s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	j->s_blocksize = cpu_to_be32(1024);
	j->s_maxlen = cpu_to_be32(2048);
	j->s_first = cpu_to_be32(1);
	j->s_sequence = cpu_to_be32(7);
	j->s_nr_users = cpu_to_be32(1);
	j->s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_REVOKE);
}

static void seal(journal_superblock_t *j)
{
	j->s_checksum_type = JBD2_CRC32C_CHKSUM;
	j->s_checksum = cpu_to_be32(ek_jsb_csum(j));
}

START_TEST(test_valid)
{
	journal_superblock_t j;
	struct ek_jsb d;

	base_jsb(&j);
	ck_assert_int_eq(ek_jsb_decode(&j, 1024, false, &d), 0);
	ck_assert_uint_eq(d.last, 2048);
	ck_assert_uint_eq(d.sequence, 7);
	/* fast commit: the ring ends before the fast-commit area (default 256) */
	j.s_feature_incompat |= cpu_to_be32(JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
	ck_assert_int_eq(ek_jsb_decode(&j, 1024, false, &d), 0);
	ck_assert_uint_eq(d.last, 2048 - 256);
	j.s_num_fc_blks = cpu_to_be32(64);
	ck_assert_int_eq(ek_jsb_decode(&j, 1024, false, &d), 0);
	ck_assert_uint_eq(d.last, 2048 - 64);
	/* checksum v3, sealed */
	j.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V3);
	seal(&j);
	ck_assert_int_eq(ek_jsb_decode(&j, 1024, false, &d), 0);
	/* v1: no features, no uuid */
	base_jsb(&j);
	j.s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V1);
	j.s_feature_incompat = cpu_to_be32(0xffff);	/* ignored in v1 */
	ck_assert_int_eq(ek_jsb_decode(&j, 1024, false, &d), 0);
	ck_assert_int_eq(d.version, 1);
	ck_assert_uint_eq(d.incompat, 0);
}
END_TEST

/* the encoder writes what the decoder reads, byte for byte */
START_TEST(test_encode)
{
	journal_superblock_t want, got;
	struct ek_jsb d;

	base_jsb(&want);
	ck_assert_int_eq(ek_jsb_decode(&want, 1024, false, &d), 0);
	memset(&got, 0, sizeof(got));
	ek_jsb_encode(&d, &got);
	ck_assert(!memcmp(&got, &want, sizeof(got)));
	/* checksum v3: sealed by the encoder */
	want.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V3 |
					      JBD2_FEATURE_INCOMPAT_64BIT);
	want.s_start = cpu_to_be32(5);
	want.s_errno = cpu_to_be32((uint32_t)-5);
	want.s_uuid[3] = 0x42;
	want.s_max_transaction = cpu_to_be32(99);
	seal(&want);
	ck_assert_int_eq(ek_jsb_decode(&want, 1024, false, &d), 0);
	ck_assert_int_eq(d.errno_, -5);
	memset(&got, 0, sizeof(got));
	ek_jsb_encode(&d, &got);
	ck_assert(!memcmp(&got, &want, sizeof(got)));
	/* version 1 writes no v2 field */
	d.version = 1;
	memset(&got, 0, sizeof(got));
	ek_jsb_encode(&d, &got);
	ck_assert_uint_eq(be32_to_cpu(got.s_header.h_blocktype), JBD2_SUPERBLOCK_V1);
	ck_assert_uint_eq(got.s_feature_incompat, 0);
	ck_assert_uint_eq(got.s_checksum, 0);
}
END_TEST

static const struct {
	const char *what;
	int err;
} bad[] = {
	{ "magic", -EK_CORRUPT },
	{ "block type", -EK_CORRUPT },
	{ "unknown incompat", -EK_UNSUPP },
	{ "v2 and v3", -EK_CORRUPT },
	{ "checksum type", -EK_UNSUPP },
	{ "checksum", -EK_BADCRC },
	{ "block size differs", -EK_CORRUPT },
	{ "block size invalid", -EK_CORRUPT },
	{ "too short", -EK_CORRUPT },
	{ "fast commit too big", -EK_CORRUPT },
	{ "first 0", -EK_CORRUPT },
	{ "first past end", -EK_CORRUPT },
	{ "start outside", -EK_CORRUPT },
	{ "start in fast-commit area", -EK_CORRUPT },
	{ "checksum v1 and v3", -EK_CORRUPT },
};

START_TEST(test_bad)
{
	journal_superblock_t j;
	struct ek_jsb d;
	uint32_t blksz = 1024;
	int err;

	base_jsb(&j);
	switch (_i) {
	case 0: j.s_header.h_magic = 0; break;
	case 1: j.s_header.h_blocktype = cpu_to_be32(JBD2_COMMIT_BLOCK); break;
	case 2: j.s_feature_incompat = cpu_to_be32(0x100); break;
	case 3: j.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V2 |
						   JBD2_FEATURE_INCOMPAT_CSUM_V3); break;
	case 4:
		j.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V3);
		j.s_checksum_type = JBD2_CRC32_CHKSUM;
		break;
	case 5:
		j.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V2);
		seal(&j);
		j.s_sequence = cpu_to_be32(8);	/* changed after sealing */
		break;
	case 6: blksz = 4096; break;
	case 7: j.s_blocksize = cpu_to_be32(1000); blksz = 0; break;
	case 8: j.s_maxlen = cpu_to_be32(100); break;
	case 9:
		j.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
		j.s_num_fc_blks = cpu_to_be32(2000);
		break;
	case 10: j.s_first = 0; break;
	case 11: j.s_first = cpu_to_be32(2048); break;
	case 12: j.s_start = cpu_to_be32(5000); break;
	case 13:
		j.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_FAST_COMMIT);
		j.s_start = cpu_to_be32(2048 - 10);
		break;
	case 14:
		j.s_feature_compat = cpu_to_be32(JBD2_FEATURE_COMPAT_CHECKSUM);
		j.s_feature_incompat = cpu_to_be32(JBD2_FEATURE_INCOMPAT_CSUM_V3);
		seal(&j);
		break;
	}
	ek_error_clear();
	err = ek_jsb_decode(&j, blksz, false, &d);
	ck_assert_msg(err == bad[_i].err, "case '%s': got %d (%s)", bad[_i].what, err,
		      ek_last_error()->msg);
	ck_assert_msg(strstr(ek_last_error()->msg, "journal superblock"),
		      "case '%s': message '%s'", bad[_i].what, ek_last_error()->msg);
	if (err == -EK_BADCRC || err == -EK_UNSUPP)
		ck_assert_int_eq(ek_jsb_decode(&j, blksz, true, &d), _i == 2 ? -EK_UNSUPP : 0);
}
END_TEST

START_TEST(test_tag_bytes)
{
	/* journal_tag_bytes(): v3 is always 16; else 8, +4 for 64bit, +2 for v2 */
	ck_assert_int_eq(ek_jbd2_tag_bytes(0), 8);
	ck_assert_int_eq(ek_jbd2_tag_bytes(JBD2_FEATURE_INCOMPAT_64BIT), 12);
	ck_assert_int_eq(ek_jbd2_tag_bytes(JBD2_FEATURE_INCOMPAT_CSUM_V2), 10);
	ck_assert_int_eq(ek_jbd2_tag_bytes(JBD2_FEATURE_INCOMPAT_CSUM_V2 |
					   JBD2_FEATURE_INCOMPAT_64BIT), 14);
	ck_assert_int_eq(ek_jbd2_tag_bytes(JBD2_FEATURE_INCOMPAT_CSUM_V3), 16);
	ck_assert_int_eq(ek_jbd2_tag_bytes(JBD2_FEATURE_INCOMPAT_CSUM_V3 |
					   JBD2_FEATURE_INCOMPAT_64BIT), 16);
}
END_TEST

/* an internal journal in a memfd fs: inode map, then the s_jnl_blocks backup */
START_TEST(test_open)
{
	struct unit_fs u;
	struct ext4_inode raw = { 0 };
	journal_superblock_t j;
	struct ek_journal *jr;
	uint8_t *root = (uint8_t *)raw.i_block;
	ek_blk_t p;
	const uint32_t nblk = 4096, jstart = 1024, jlen = 1024;

	unit_fs_init(&u, 1024, nblk, EXT4_FEATURE_COMPAT_HAS_JOURNAL,
		     EXT4_FEATURE_INCOMPAT_EXTENTS, 0);
	u.sb.s_journal_inum = cpu_to_le32(8);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	/* inode 8: one extent of 1024 blocks at 1024 */
	put_le16(root, EXT4_EXT_MAGIC);
	put_le16(root + 2, 1);
	put_le16(root + 4, 4);
	put_le32(root + 12, 0);
	put_le16(root + 16, jlen);
	put_le32(root + 20, jstart);
	raw.i_mode = cpu_to_le16(0100600);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw.i_size_lo = cpu_to_le32(jlen * 1024);
	unit_put_inode(&u, 8, &raw);
	base_jsb(&j);
	j.s_maxlen = cpu_to_be32(jlen);
	unit_write(&u, jstart, 0, &j, sizeof(j));

	ck_assert_int_eq(ek_journal_open(u.fs, 0, &jr), 0);
	ck_assert(!jr->from_backup);
	ck_assert_int_eq(ek_journal_bmap(jr, 5, &p), 0);
	ck_assert_uint_eq(p, jstart + 5);
	ck_assert_int_eq(ek_journal_bmap(jr, jlen, &p), -EK_CORRUPT);
	ek_journal_close(jr);

	/* damage the inode; the superblock's copy still finds the journal */
	memcpy(u.sb.s_jnl_blocks, raw.i_block, sizeof(raw.i_block));
	u.sb.s_jnl_blocks[16] = raw.i_size_lo;
	u.sb.s_jnl_backup_type = 1;
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	raw.i_block[0] = 0;	/* extent magic gone */
	unit_put_inode(&u, 8, &raw);
	ck_assert_int_eq(ek_journal_open(u.fs, 0, &jr), 0);
	ck_assert(jr->from_backup);
	ck_assert_uint_eq(jr->sb.maxlen, jlen);
	ek_journal_close(jr);

	/* a journal superblock claiming more blocks than the inode maps */
	j.s_maxlen = cpu_to_be32(jlen * 2);
	unit_write(&u, jstart, 0, &j, sizeof(j));
	ck_assert_int_eq(ek_journal_open(u.fs, 0, &jr), -EK_CORRUPT);
	unit_fs_done(&u);
}
END_TEST

/*
 * A journal in two extents (blocks 0..599 at 1024, 600..1199 at 2048): a
 * stretch read across the seam gets each block from its own place, and
 * one past the mapped end fails without reading.
 */
START_TEST(test_read_blocks)
{
	struct unit_fs u;
	struct ext4_inode raw = { 0 };
	journal_superblock_t j;
	struct ek_journal *jr;
	uint8_t *root = (uint8_t *)raw.i_block, blk[1024], got[6 * 1024];

	unit_fs_init(&u, 1024, 4096, EXT4_FEATURE_COMPAT_HAS_JOURNAL,
		     EXT4_FEATURE_INCOMPAT_EXTENTS, 0);
	u.sb.s_journal_inum = cpu_to_le32(8);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	put_le16(root, EXT4_EXT_MAGIC);
	put_le16(root + 2, 2);
	put_le16(root + 4, 4);
	put_le32(root + 12, 0);		/* logical 0, 600 blocks at 1024 */
	put_le16(root + 16, 600);
	put_le32(root + 20, 1024);
	put_le32(root + 24, 600);	/* logical 600, 600 blocks at 2048 */
	put_le16(root + 28, 600);
	put_le32(root + 32, 2048);
	raw.i_mode = cpu_to_le16(0100600);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw.i_size_lo = cpu_to_le32(1200 * 1024);
	unit_put_inode(&u, 8, &raw);
	for (uint32_t b = 595; b < 605; b++) {
		memset(blk, (int)(b & 0xFF), sizeof(blk));
		unit_write(&u, b < 600 ? 1024 + b : 2048 + b - 600, 0, blk, sizeof(blk));
	}
	base_jsb(&j);
	j.s_maxlen = cpu_to_be32(1200);
	unit_write(&u, 1024, 0, &j, sizeof(j));

	ck_assert_int_eq(ek_journal_open(u.fs, 0, &jr), 0);
	ck_assert_int_eq(ek_journal_read_blocks(jr, 597, 6, got), 0);
	for (uint32_t i = 0; i < 6; i++) {
		memset(blk, (int)((597 + i) & 0xFF), sizeof(blk));
		ck_assert_mem_eq(got + i * 1024, blk, sizeof(blk));
	}
	ck_assert_int_eq(ek_journal_read_blocks(jr, 1198, 3, got), -EK_CORRUPT);
	ck_assert_int_eq(ek_journal_read_blocks(jr, 0, 0, got), 0);
	ek_journal_close(jr);
	unit_fs_done(&u);
}
END_TEST

static Suite *journal_suite(void)
{
	Suite *s = suite_create("journal");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_encode);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_tag_bytes);
	tcase_add_test(tc, test_open);
	tcase_add_test(tc, test_read_blocks);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(journal_suite)
