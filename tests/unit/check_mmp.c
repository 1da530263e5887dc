// SPDX-License-Identifier: MIT
/* check_mmp.c - the multi-mount protection block (mmp.c) */
#include "unit.h"

#define BLK 1024
#define NBLK 64
#define MMP_BLK 20

static struct unit_fs u;

/* an MMP block at MMP_BLK; @csum: metadata_csum on, the checksum set */
static void mmp_fs(bool csum, uint32_t magic, uint64_t at)
{
	struct ext4_mmp_block m = { 0 };

	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_FILETYPE | EXT4_FEATURE_INCOMPAT_MMP,
		     csum ? EXT4_FEATURE_RO_COMPAT_METADATA_CSUM : 0);
	u.sb.s_mmp_block = cpu_to_le64(at);
	u.sb.s_mmp_update_interval = cpu_to_le16(5);
	m.mmp_magic = cpu_to_le32(magic);
	m.mmp_seq = cpu_to_le32(EXT4_MMP_SEQ_CLEAN);
	m.mmp_time = cpu_to_le64(1700000000);
	memcpy(m.mmp_nodename, "host-with-a-name", 16);
	memset(m.mmp_bdevname, 'd', sizeof(m.mmp_bdevname));	/* no NUL: all 32 */
	m.mmp_check_interval = cpu_to_le16(7);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	if (csum)
		m.mmp_checksum = cpu_to_le32(ek_crc32c(u.fs->csum_seed, &m,
						       offsetof(struct ext4_mmp_block, mmp_checksum)));
	unit_write(&u, MMP_BLK, 0, &m, sizeof(m));
}

START_TEST(test_mmp_good)
{
	struct ek_mmp m;

	mmp_fs(_i, EXT4_MMP_MAGIC, MMP_BLK);
	ck_assert_int_eq(ek_mmp_read(u.fs, &m), 0);
	ck_assert_uint_eq(m.block, MMP_BLK);
	ck_assert_uint_eq(m.seq, EXT4_MMP_SEQ_CLEAN);
	ck_assert_int_eq(m.time, 1700000000);
	ck_assert_str_eq(m.nodename, "host-with-a-name");
	ck_assert_uint_eq(strlen(m.bdevname), 32);
	ck_assert_uint_eq(m.check_interval, 7);
	ck_assert(!m.csum_bad);
	unit_fs_done(&u);
}
END_TEST

START_TEST(test_mmp_bad_csum)
{
	struct ek_mmp m;
	uint8_t b = 'X';

	mmp_fs(true, EXT4_MMP_MAGIC, MMP_BLK);
	unit_write(&u, MMP_BLK, 16, &b, 1);	/* the node name changes behind the checksum */
	ck_assert_int_eq(ek_mmp_read(u.fs, &m), 0);
	ck_assert(m.csum_bad);
	ck_assert_uint_ne(m.csum_want, m.checksum);
	ck_assert_str_eq(m.nodename, "Xost-with-a-name");
	unit_fs_done(&u);
}
END_TEST

/* every refusal: wrong magic, outside the filesystem (past the end, block 0 at 1 KiB) */
static const struct {
	uint32_t magic;
	uint64_t at;
	const char *msg;
} bad[] = {
	{ 0x12345678, MMP_BLK, "magic" },
	{ EXT4_MMP_MAGIC, NBLK, "outside" },
	{ EXT4_MMP_MAGIC, 0, "outside" },
	{ EXT4_MMP_MAGIC, UINT64_MAX, "outside" },
	{ EXT4_MMP_MAGIC, 1, "outside" },	/* first_data_block: the superblock */
	{ EXT4_MMP_MAGIC, 2, "metadata" },	/* the descriptors */
};

START_TEST(test_mmp_refused)
{
	struct ek_mmp m;

	mmp_fs(false, bad[_i].magic, bad[_i].at);
	ck_assert_int_eq(ek_mmp_read(u.fs, &m), -EK_CORRUPT);
	ck_assert_msg(strstr(ek_last_error()->msg, bad[_i].msg), "%s", ek_last_error()->msg);
	unit_fs_done(&u);
}
END_TEST

/* the sequence's meaning, at each boundary */
START_TEST(test_mmp_seq_state)
{
	ck_assert_int_eq(ek_mmp_seq_state(EXT4_MMP_SEQ_CLEAN), EK_MMP_CLEAN);
	ck_assert_int_eq(ek_mmp_seq_state(EXT4_MMP_SEQ_FSCK), EK_MMP_FSCK);
	ck_assert_int_eq(ek_mmp_seq_state(EXT4_MMP_SEQ_MAX), EK_MMP_LIVE);
	ck_assert_int_eq(ek_mmp_seq_state(1), EK_MMP_LIVE);
	ck_assert_int_eq(ek_mmp_seq_state(EXT4_MMP_SEQ_FSCK + 1), EK_MMP_UNKNOWN);
}
END_TEST

START_TEST(test_mmp_no_feature)
{
	struct ek_mmp m;

	unit_fs_init(&u, BLK, NBLK, 0, EXT4_FEATURE_INCOMPAT_FILETYPE, 0);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	ck_assert_int_eq(ek_mmp_read(u.fs, &m), -EINVAL);
	unit_fs_done(&u);
}
END_TEST

/* the encoder's block reads back through ek_mmp_read(), checksum and all */
START_TEST(test_mmp_encode)
{
	struct ek_mmp in = { .magic = EXT4_MMP_MAGIC, .seq = EXT4_MMP_SEQ_CLEAN, .time = 1700000000,
			     .check_interval = 9 }, out;
	uint8_t b[BLK];

	mmp_fs(_i, 0, MMP_BLK);		/* a bad magic: the encoder's block replaces it */
	memcpy(in.nodename, "node", 4);
	memset(in.bdevname, 'x', sizeof(in.bdevname) - 1);	/* 32 bytes, no NUL on disk */
	memset(b, 0xAA, sizeof(b));
	ek_mmp_encode(u.fs, &in, b);
	ck_assert_uint_eq(b[0x50 + 31], 'x');
	ck_assert_uint_eq(b[0x74], 0);	/* the rest zeroed */
	unit_write(&u, MMP_BLK, 0, b, sizeof(b));
	ck_assert_int_eq(ek_mmp_read(u.fs, &out), 0);
	ck_assert_uint_eq(out.seq, EXT4_MMP_SEQ_CLEAN);
	ck_assert_int_eq(out.time, 1700000000);
	ck_assert_str_eq(out.nodename, "node");
	ck_assert_uint_eq(strlen(out.bdevname), 32);
	ck_assert_uint_eq(out.check_interval, 9);
	ck_assert(!out.csum_bad);
	ck_assert_uint_eq(out.checksum, _i ? out.csum_want : 0);
	unit_fs_done(&u);
}
END_TEST

static Suite *mmp_suite(void)
{
	Suite *s = suite_create("mmp");
	TCase *tc = tcase_create("mmp");

	tcase_add_loop_test(tc, test_mmp_good, 0, 2);
	tcase_add_test(tc, test_mmp_bad_csum);
	tcase_add_loop_test(tc, test_mmp_refused, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_mmp_seq_state);
	tcase_add_test(tc, test_mmp_no_feature);
	tcase_add_loop_test(tc, test_mmp_encode, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(mmp_suite)
