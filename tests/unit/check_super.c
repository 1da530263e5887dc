// SPDX-License-Identifier: MIT
/* check_super.c - superblock decode/validation and feature names */
#include "unit.h"

static void base_sb(struct ext4_super_block *s)
{
	memset(s, 0, sizeof(*s));
	s->s_inodes_count = cpu_to_le32(2048);
	s->s_blocks_count_lo = cpu_to_le32(8192);
	s->s_first_data_block = cpu_to_le32(1);
	s->s_log_block_size = cpu_to_le32(0);
	s->s_blocks_per_group = cpu_to_le32(8192);
	s->s_clusters_per_group = cpu_to_le32(8192);
	s->s_inodes_per_group = cpu_to_le32(2048);
	s->s_magic = cpu_to_le16(EXT4_SUPER_MAGIC);
	s->s_rev_level = cpu_to_le32(1);
	s->s_first_ino = cpu_to_le32(11);
	s->s_inode_size = cpu_to_le16(256);
}

START_TEST(test_valid)
{
	struct ext4_super_block s;
	struct ek_super d;

	base_sb(&s);
	ck_assert_int_eq(ek_super_decode(&s, false, &d), 0);
	ck_assert_uint_eq(d.blocks_count, 8192);
	ck_assert_uint_eq(d.inode_size, 256);
	ck_assert_uint_eq(d.desc_size, 32);
}
END_TEST

/* each case breaks one rule; every check in ek_super_decode is reached */
static const struct { const char *what; int err; } bad[] = {
	{ "magic", -EK_CORRUPT },
	{ "journal dev", -EK_UNSUPP },
	{ "unknown incompat", -EK_UNSUPP },
	{ "known unsupported incompat", -EK_UNSUPP },
	{ "csum type", -EK_UNSUPP },
	{ "csum", -EK_BADCRC },
	{ "log block size", -EK_CORRUPT },
	{ "bigalloc cluster", -EK_CORRUPT },
	{ "blocks count huge", -EK_CORRUPT },
	{ "first data block >= count", -EK_CORRUPT },
	{ "first data block with 4k", -EK_CORRUPT },
	{ "bigalloc cpg 0", -EK_CORRUPT },
	{ "bigalloc bpg mismatch", -EK_CORRUPT },
	{ "blocks per group", -EK_CORRUPT },
	{ "inode size", -EK_CORRUPT },
	{ "first ino", -EK_CORRUPT },
	{ "inodes per group 0", -EK_CORRUPT },
	{ "group count", -EK_CORRUPT },
	{ "inode count", -EK_CORRUPT },
	{ "first ino >= count", -EK_CORRUPT },
	{ "desc size", -EK_CORRUPT },
	{ "reserved gdt", -EK_CORRUPT },
	{ "flex", -EK_CORRUPT },
};

static void mutate(int i, struct ext4_super_block *s)
{
	switch (i) {
	case 0: s->s_magic = 0; break;
	case 1: s->s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_JOURNAL_DEV); break;
	case 2: s->s_feature_incompat = cpu_to_le32(0x80000000); break;
	case 3: s->s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_DIRDATA); break;
	case 4: s->s_feature_ro_compat = cpu_to_le32(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM), s->s_checksum_type = 7; break;
	case 5: s->s_feature_ro_compat = cpu_to_le32(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM), s->s_checksum_type = 1; break;
	case 6: s->s_log_block_size = cpu_to_le32(7); break;
	case 7: s->s_feature_ro_compat = cpu_to_le32(EXT4_FEATURE_RO_COMPAT_BIGALLOC), s->s_log_cluster_size = 0, s->s_log_block_size = cpu_to_le32(2), s->s_first_data_block = 0; break;
	case 8: s->s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_64BIT), s->s_desc_size = cpu_to_le16(64), s->s_blocks_count_hi = cpu_to_le32(0x10000); break;
	case 9: s->s_first_data_block = cpu_to_le32(9000); break;
	case 10: s->s_log_block_size = cpu_to_le32(2), s->s_first_data_block = cpu_to_le32(1); break;
	case 11: s->s_feature_ro_compat = cpu_to_le32(EXT4_FEATURE_RO_COMPAT_BIGALLOC), s->s_log_cluster_size = cpu_to_le32(4), s->s_log_block_size = cpu_to_le32(2), s->s_first_data_block = 0, s->s_clusters_per_group = 0; break;
	case 12: s->s_feature_ro_compat = cpu_to_le32(EXT4_FEATURE_RO_COMPAT_BIGALLOC), s->s_log_cluster_size = cpu_to_le32(4), s->s_log_block_size = cpu_to_le32(2), s->s_first_data_block = 0, s->s_clusters_per_group = cpu_to_le32(100); break;
	case 13: s->s_blocks_per_group = cpu_to_le32(4); break;
	case 14: s->s_inode_size = cpu_to_le16(200); break;
	case 15: s->s_first_ino = cpu_to_le32(5); break;
	case 16: s->s_inodes_per_group = 0; break;
	case 17: s->s_blocks_per_group = cpu_to_le32(8), s->s_clusters_per_group = cpu_to_le32(8), s->s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_64BIT), s->s_desc_size = cpu_to_le16(64), s->s_blocks_count_hi = cpu_to_le32(0x1000); break;
	case 18: s->s_inodes_count = cpu_to_le32(100); break;
	case 19: s->s_first_ino = cpu_to_le32(4096); break;
	case 20: s->s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_64BIT), s->s_desc_size = cpu_to_le16(48); break;
	case 21: s->s_reserved_gdt_blocks = cpu_to_le16(300); break;
	case 22: s->s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_FLEX_BG), s->s_log_groups_per_flex = 40; break;
	}
}

START_TEST(test_bad)
{
	struct ext4_super_block s;
	struct ek_super d;
	int err;

	base_sb(&s);
	mutate(_i, &s);
	ek_error_clear();
	err = ek_super_decode(&s, false, &d);
	ck_assert_msg(err == bad[_i].err, "case '%s': got %d (%s)",
		      bad[_i].what, err, ek_last_error()->msg);
	ck_assert_msg(ek_last_error()->msg[0], "case '%s' left no message", bad[_i].what);
}
END_TEST

START_TEST(test_csum_ok)
{
	struct ext4_super_block s;
	struct ek_super d;

	base_sb(&s);
	s.s_feature_ro_compat = cpu_to_le32(EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	s.s_checksum_type = 1;
	s.s_checksum = cpu_to_le32(ek_super_csum(&s));
	ck_assert_int_eq(ek_super_decode(&s, false, &d), 0);
	s.s_checksum ^= cpu_to_le32(1);
	ck_assert_int_eq(ek_super_decode(&s, true, &d), 0);
}
END_TEST

START_TEST(test_features)
{
	int type;
	uint32_t mask;

	ck_assert_str_eq(ek_feature_name(EK_FEAT_INCOMPAT, EXT4_FEATURE_INCOMPAT_EXTENTS), "extent");
	ck_assert_int_eq(ek_feature_lookup("extents", &type, &mask), 0);
	ck_assert_uint_eq(mask, EXT4_FEATURE_INCOMPAT_EXTENTS);
	ck_assert_int_eq(ek_feature_lookup("metadata_csum", &type, &mask), 0);
	ck_assert_int_eq(type, EK_FEAT_RO_COMPAT);
	ck_assert_int_eq(ek_feature_lookup("FEATURE_C31", &type, &mask), 0);
	ck_assert_uint_eq(mask, 0x80000000u);
	ck_assert_int_eq(type, EK_FEAT_COMPAT);
	ck_assert_int_eq(ek_feature_lookup("FEATURE_X1", &type, &mask), -ENOENT);
	ck_assert_int_eq(ek_feature_lookup("FEATURE_I32", &type, &mask), -ENOENT);
	ck_assert_int_eq(ek_feature_lookup("nonsense", &type, &mask), -ENOENT);
	/* every named feature round-trips */
	size_t n;
	const struct ek_feature *t = ek_feature_table(&n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(ek_feature_lookup(t[i].name, &type, &mask), 0);
		ck_assert_uint_eq(mask, t[i].mask);
		ck_assert_int_eq(type, t[i].type);
	}
}
END_TEST

START_TEST(test_fields)
{
	struct ext4_super_block s;
	size_t n;
	const struct ek_field *f = ek_super_fields(&n);

	base_sb(&s);
	s.s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_64BIT);
	s.s_blocks_count_hi = cpu_to_le32(3);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(f[i].name, "blocks_count"))
			ck_assert_uint_eq(ek_field_get(&s, &f[i], 0), (3ull << 32) | 8192);
}
END_TEST

START_TEST(test_crc)
{
	/* crc32c("123456789") with ~0 seed and final inversion is 0xE3069283 */
	ck_assert_uint_eq(~ek_crc32c(~0u, "123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(~ek_crc32c_sw(~0u, "123456789", 9), 0xE3069283u);
	/* hardware and table paths agree on every length and alignment */
	uint8_t buf[300];
	for (int i = 0; i < 300; i++)
		buf[i] = i * 7 + 3;
	for (int off = 0; off < 8; off++)
		for (int len = 0; len < 280; len += 13)
			ck_assert_uint_eq(ek_crc32c(0x1234, buf + off, len),
					  ek_crc32c_sw(0x1234, buf + off, len));
	/* crc16/ARC("123456789") = 0xBB3D; crc32/MPEG-2 ("123456789") = 0x0376E6E7 */
	ck_assert_uint_eq(ek_crc16(0, "123456789", 9), 0xBB3D);
	ck_assert_uint_eq(ek_crc32_be(~0u, "123456789", 9), 0x0376E6E7u);
}
END_TEST

/* casefold's encodings by name, and the flag words -E encoding_flags= takes */
START_TEST(test_encoding)
{
	uint16_t e = 0, f = 7;

	ck_assert_int_eq(ek_encoding_lookup("utf8", &e), 0);
	ck_assert_uint_eq(e, EXT4_ENC_UTF8_12_1);
	ck_assert_int_eq(ek_encoding_lookup("utf8-12.1", &e), 0);
	ck_assert_int_eq(ek_encoding_lookup("latin1", &e), -EINVAL);
	ck_assert_int_eq(ek_encoding_lookup("utf", &e), -EINVAL);
	ck_assert_str_eq(ek_encoding_name(1), "utf8-12.1");
	ck_assert_ptr_null(ek_encoding_name(2));
	ck_assert_int_eq(ek_encoding_flags_parse(1, "strict", &f), 0);
	ck_assert_uint_eq(f, EXT4_ENC_STRICT_MODE_FL);
	ck_assert_int_eq(ek_encoding_flags_parse(1, "nostrict", &f), 0);
	ck_assert_uint_eq(f, 0);
	ck_assert_int_eq(ek_encoding_flags_parse(1, "nostrict-strict", &f), 0);
	ck_assert_uint_eq(f, EXT4_ENC_STRICT_MODE_FL);
	ck_assert_int_eq(ek_encoding_flags_parse(1, "", &f), 0);
	ck_assert_uint_eq(f, 0);
	f = 5;
	ck_assert_int_eq(ek_encoding_flags_parse(1, "strictly", &f), -EINVAL);
	ck_assert_int_eq(ek_encoding_flags_parse(1, "no", &f), -EINVAL);
	ck_assert_int_eq(ek_encoding_flags_parse(0, "strict", &f), -EINVAL);
	ck_assert_uint_eq(f, 5);	/* untouched on failure */
}
END_TEST

static Suite *super_suite(void)
{
	Suite *s = suite_create("super");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_valid);
	tcase_add_loop_test(tc, test_bad, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_csum_ok);
	tcase_add_test(tc, test_features);
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_crc);
	tcase_add_test(tc, test_encoding);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(super_suite)
