// SPDX-License-Identifier: MIT
/* check_quota.c - quota files (quota.c): decode, every refusal, encode, the tally */
#include "unit.h"

#define QB 1024
#define NQB 7

/*
 * A user quota file built by hand as e2fsprogs lays it out for ids 0 and
 * 1000 (0x3E8): block 0 header and info, 1 root, 2-4 the path of id 0
 * (0,0,0,0), 6 the depth-3 block of 1000's path (0,0,3,0xE8), 5 the data
 * block both land in.
 */
static uint8_t file[NQB * QB];

static uint8_t *blk(unsigned b) { return file + b * QB; }

static void entry(unsigned slot, uint32_t id, uint64_t inodes, uint64_t space)
{
	uint8_t *e = blk(5) + 16 + slot * 72;

	put_le32(e, id);
	put_le64(e + 0x08, 50);		/* inode hard limit */
	put_le64(e + 0x18, inodes);
	put_le64(e + 0x30, space);
}

static void build(void)
{
	memset(file, 0, sizeof(file));
	put_le32(blk(0), 0xd9c01f11);
	put_le32(blk(0) + 4, 1);
	put_le32(blk(0) + 0x08, 604800);
	put_le32(blk(0) + 0x0C, 604800);
	put_le32(blk(0) + 0x14, NQB);
	put_le32(blk(0) + 0x1C, 5);
	put_le32(blk(1), 2);
	put_le32(blk(2), 3);
	put_le32(blk(3), 4);
	put_le32(blk(3) + 4 * 3, 6);
	put_le32(blk(4), 5);
	put_le32(blk(6) + 4 * 0xE8, 5);
	put_le16(blk(5) + 8, 2);
	entry(0, 0, 2, 13312);
	entry(1, 1000, 7, 1 << 20);
}

START_TEST(test_quota_decode)
{
	struct ek_quota q;
	const struct ek_dquot *d;

	build();
	ck_assert_int_eq(ek_quota_decode(file, sizeof(file), EK_QUOTA_USR, 3, &q), 0);
	ck_assert_uint_eq(q.count, 2);
	ck_assert_uint_eq(q.blocks, NQB);
	ck_assert_uint_eq(q.tree_blocks, 5);
	ck_assert_uint_eq(q.data_blocks, 1);
	ck_assert_uint_eq(q.bgrace, 604800);
	ck_assert_uint_eq(q.free_entry, 5);
	d = ek_quota_find(&q, 1000);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->curinodes, 7);
	ck_assert_uint_eq(d->curspace, 1 << 20);
	ck_assert_uint_eq(d->ihardlimit, 50);
	ck_assert_uint_eq(ek_quota_find(&q, 0)->curspace, 13312);
	ck_assert_ptr_null(ek_quota_find(&q, 999));
	ek_quota_release(&q);
	/* a file cut short of its dqi_blocks */
	ck_assert_int_eq(ek_quota_decode(file, sizeof(file) - 1, EK_QUOTA_USR, 3, &q),
			 -EK_CORRUPT);
	ek_quota_release(&q);
	/* the same bytes are not a group quota file */
	ck_assert_int_eq(ek_quota_decode(file, sizeof(file), EK_QUOTA_GRP, 4, &q), -EK_CORRUPT);
	ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "inode 4: group quota file"));
	ek_quota_release(&q);
}
END_TEST

/* id 0 with nothing in it is stored with inode grace end 1, read back as 0 */
START_TEST(test_quota_zero_marker)
{
	struct ek_quota q;
	uint8_t *e = blk(5) + 16;

	build();
	memset(e, 0, 72);
	put_le64(e + 0x40, 1);
	ck_assert_int_eq(ek_quota_decode(file, sizeof(file), EK_QUOTA_USR, 3, &q), 0);
	ck_assert_uint_eq(q.count, 2);
	ck_assert_uint_eq(q.dq[0].id, 0);
	ck_assert_uint_eq(q.dq[0].itime, 0);
	ek_quota_release(&q);
}
END_TEST

/* the writer lays the hand-built file out byte for byte */
START_TEST(test_quota_encode_layout)
{
	struct ek_dquot dq[3] = {
		{ .id = 0, .ihardlimit = 50, .curinodes = 2, .curspace = 13312 },
		{ .id = 500 },		/* nothing used, no limit: no entry */
		{ .id = 1000, .ihardlimit = 50, .curinodes = 7, .curspace = 1 << 20 },
	};
	uint8_t *out;
	size_t len;

	build();
	ck_assert_int_eq(ek_quota_encode(EK_QUOTA_USR, dq, 3, &out, &len), 0);
	ck_assert_uint_eq(len, sizeof(file));
	ck_assert(!memcmp(out, file, len));
	free(out);
	/* ids must ascend */
	dq[2].id = 0;
	ck_assert_int_eq(ek_quota_encode(EK_QUOTA_USR, dq, 3, &out, &len), -EINVAL);
	ck_assert_int_eq(ek_quota_encode(EK_QUOTA_TYPES, dq, 1, &out, &len), -EINVAL);
}
END_TEST

/* encode then decode: the same entries, for each type, over many blocks */
START_TEST(test_quota_round_trip)
{
	static struct ek_dquot dq[600];
	struct ek_quota q;
	uint8_t *out;
	size_t len, n = 0;
	uint32_t id = 0;

	for (size_t i = 0; i < 600; i++) {
		dq[n] = (struct ek_dquot){ .id = id, .curinodes = i + 1, .curspace = 4096 * i,
					   .bsoftlimit = i % 3 ? 0 : 1 << 20, .btime = i % 7 };
		n++;
		id += 1 + (uint32_t)(i * 2654435761u % 5000000u);	/* spread over the tree */
	}
	dq[n - 1].id = UINT32_MAX;
	ck_assert_int_eq(ek_quota_encode(_i, dq, n, &out, &len), 0);
	ck_assert_int_eq(ek_quota_decode(out, len, _i, 12, &q), 0);
	ck_assert_uint_eq(q.count, n);
	for (size_t i = 0; i < n; i++) {
		const struct ek_dquot *a = &q.dq[i], *b = &dq[i];

		ck_assert_uint_eq(a->id, b->id);
		ck_assert(a->curinodes == b->curinodes && a->curspace == b->curspace &&
			  a->bsoftlimit == b->bsoftlimit && a->btime == b->btime &&
			  !a->ihardlimit && !a->isoftlimit && !a->bhardlimit && !a->itime);
	}
	ck_assert_uint_eq(q.data_blocks, (n + 13) / 14);
	ek_quota_release(&q);
	free(out);
}
END_TEST

/* files e2fsck -fy wrote (the fuzz seeds): the writer gives back their bytes */
START_TEST(test_quota_e2fsck_files)
{
	static const struct { const char *path; unsigned type; size_t ids; } f[] = {
		{ "tests/fuzz/seeds/fuzz_quota/usr-mke2fs.bin", EK_QUOTA_USR, 1 },
		{ "tests/fuzz/seeds/fuzz_quota/usr-41-ids.bin", EK_QUOTA_USR, 41 },
		{ "tests/fuzz/seeds/fuzz_quota/prj-41-ids.bin", EK_QUOTA_PRJ, 41 },
	};
	static uint8_t buf[1 << 17];
	FILE *fp = fopen(f[_i].path, "rb");
	struct ek_quota q;
	uint8_t *out;
	size_t n, len;

	ck_assert_msg(fp != NULL, "%s (run from the source tree)", f[_i].path);
	n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	ck_assert_int_eq(ek_quota_decode(buf, n, f[_i].type, 3, &q), 0);
	ck_assert_uint_eq(q.count, f[_i].ids);
	ck_assert_int_eq(ek_quota_encode(f[_i].type, q.dq, q.count, &out, &len), 0);
	ck_assert_uint_eq(len, n);
	ck_assert(!memcmp(out, buf, n));
	free(out);
	ek_quota_release(&q);
}
END_TEST

/* every refusal of the decoder, each from the hand-built file */
static void set32(unsigned b, unsigned off, uint32_t v) { put_le32(blk(b) + off, v); }

static const struct {
	const char *what;
	unsigned b, off;
	uint32_t v;
	int err;
	const char *msg;
} bad[] = {
	{ "magic", 0, 0, 0x12345678, -EK_CORRUPT, "magic 0x12345678" },
	{ "big-endian magic", 0, 0, 0x111fc0d9, -EK_CORRUPT, "stored big-endian" },
	{ "version 0", 0, 4, 0, -EK_UNSUPP, "version 0" },
	{ "blocks past the file", 0, 0x14, NQB + 1, -EK_CORRUPT, "8 blocks, the file holds 7" },
	{ "blocks below the root", 0, 0x14, 1, -EK_CORRUPT, "1 blocks" },
	{ "free block past", 0, 0x18, NQB, -EK_CORRUPT, "free block 7" },
	{ "free entry past", 0, 0x1C, NQB, -EK_CORRUPT, "free entry block 7" },
	{ "pointer past the file", 1, 0, 99, -EK_CORRUPT, "pointer 99 is outside" },
	{ "pointer to the root", 2, 0, 1, -EK_CORRUPT, "pointer 1 is outside" },
	{ "tree block twice", 2, 4, 3, -EK_CORRUPT, "reached twice" },
	{ "data block as tree", 2, 4, 5, -EK_CORRUPT, "quota block 5: a tree block reached twice" },
	{ "data pointer to a tree block", 4, 4, 3, -EK_CORRUPT, "names a tree block" },
	{ "free-entry next", 5, 0, NQB, -EK_CORRUPT, "next 7" },
	{ "free-entry prev", 5, 4, 100, -EK_CORRUPT, "prev 100" },
	{ "entries above 14", 5, 8, 15, -EK_CORRUPT, "15 entries" },
	{ "entries miscounted", 5, 8, 3, -EK_CORRUPT, "counts 3 entries, 2 are in use" },
	{ "id not in its block", 4, 4, 5, -EK_CORRUPT, "for id 1, which it does not hold" },
	{ "entry off the tree", 5, 16 + 72, 1001, -EK_CORRUPT, "for id 1000, which it does not hold" },
};

START_TEST(test_quota_refused)
{
	struct ek_quota q;
	int err;

	build();
	set32(bad[_i].b, bad[_i].off, bad[_i].v);
	err = ek_quota_decode(file, sizeof(file), EK_QUOTA_USR, 3, &q);
	ck_assert_msg(err == bad[_i].err, "%s: %d %s", bad[_i].what, err, ek_error_msg(err));
	if (bad[_i].msg)
		ck_assert_msg(strstr(ek_last_error()->msg, bad[_i].msg), "%s: %s", bad[_i].what,
			      ek_last_error()->msg);
	ck_assert_ptr_null(q.dq);
	ek_quota_release(&q);
}
END_TEST

/* an entry the tree does not reach, and a file shorter than two blocks */
START_TEST(test_quota_unreached)
{
	struct ek_quota q;

	build();
	entry(2, 77, 1, 1024);
	put_le16(blk(5) + 8, 3);
	ck_assert_int_eq(ek_quota_decode(file, sizeof(file), EK_QUOTA_USR, 3, &q), -EK_CORRUPT);
	ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "entry 2 (id 77) is not reached"));
	ek_quota_release(&q);
	ck_assert_int_eq(ek_quota_decode(file, 2 * QB - 1, EK_QUOTA_USR, 3, &q), -EK_CORRUPT);
	ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "less than its header"));
	ck_assert_int_eq(ek_quota_decode(file, sizeof(file), 3, 3, &q), -EINVAL);
}
END_TEST

START_TEST(test_quota_tally)
{
	struct ek_quota_tally t = { 0 };
	struct ek_quota_usage *u;

	for (uint32_t i = 0; i < 1000; i++)
		ck_assert_int_eq(ek_quota_tally_add(&t, (i * 7919u) % 500, 1, 1024, i == 3), 0);
	ck_assert_uint_eq(t.count, 500);
	ck_assert_int_eq(ek_quota_tally_sorted(&t, &u), 0);
	for (uint32_t i = 0; i < 500; i++) {
		ck_assert_uint_eq(u[i].id, i);
		ck_assert_uint_eq(u[i].inodes, 2);
		ck_assert_uint_eq(u[i].space, 2048);
		ck_assert(u[i].uncertain == (i == (3 * 7919u) % 500));
	}
	free(u);
	ek_quota_tally_release(&t);
	ck_assert_uint_eq(t.count, 0);
	ck_assert_int_eq(ek_quota_tally_sorted(&t, &u), 0);	/* empty */
	free(u);
	ck_assert_str_eq(ek_quota_type_name(EK_QUOTA_PRJ), "project");
}
END_TEST

/* salvaging: what sound pointers reach is kept, a bad one passed over;
 * the header is checked as by the strict decoder */
START_TEST(test_quota_salvage)
{
	static struct ek_dquot dq[40];
	struct ek_quota q;
	uint8_t *out;
	size_t len;

	for (unsigned i = 0; i < 40; i++)
		dq[i] = (struct ek_dquot){ .id = i < 20 ? i : 0x01000000u + i, .curinodes = 1,
					   .bsoftlimit = 100 + i };
	ck_assert_int_eq(ek_quota_encode(EK_QUOTA_GRP, dq, 40, &out, &len), 0);
	/* the root's pointer for ids 0x01xxxxxx out of the file */
	uint32_t root1 = get_le32(out + EK_QUOTA_BLKSZ + 4);

	put_le32(out + EK_QUOTA_BLKSZ + 4, 0xffffffffu);
	ck_assert_int_eq(ek_quota_decode(out, len, EK_QUOTA_GRP, 4, &q), -EK_CORRUPT);
	ek_quota_release(&q);
	ck_assert_int_eq(ek_quota_salvage(out, len, EK_QUOTA_GRP, 4, &q), 0);
	ck_assert_uint_eq(q.count, 20);
	for (unsigned i = 0; i < 20; i++) {
		ck_assert_uint_eq(q.dq[i].id, i);
		ck_assert_uint_eq(q.dq[i].bsoftlimit, 100 + i);
	}
	ek_quota_release(&q);
	/* a data block's header (block 5: ids 0-13, after the header, the
	 * root and id 0's three tree blocks): its entries are passed over,
	 * the others kept */
	put_le32(out + EK_QUOTA_BLKSZ + 4, root1);
	put_le16(out + 5 * EK_QUOTA_BLKSZ + 8, 15);
	ck_assert_int_eq(ek_quota_salvage(out, len, EK_QUOTA_GRP, 4, &q), 0);
	ck_assert_uint_eq(q.count, 26);
	ck_assert_uint_eq(q.dq[0].id, 14);
	ek_quota_release(&q);
	/* the header: nothing */
	put_le32(out, 0);
	ck_assert_int_eq(ek_quota_salvage(out, len, EK_QUOTA_GRP, 4, &q), -EK_CORRUPT);
	ck_assert_uint_eq(q.count, 0);
	ek_quota_release(&q);
	free(out);
}
END_TEST

static Suite *quota_suite(void)
{
	Suite *s = suite_create("quota");
	TCase *tc = tcase_create("quota");

	tcase_add_test(tc, test_quota_decode);
	tcase_add_test(tc, test_quota_zero_marker);
	tcase_add_test(tc, test_quota_encode_layout);
	tcase_add_loop_test(tc, test_quota_round_trip, 0, EK_QUOTA_TYPES);
	tcase_add_loop_test(tc, test_quota_e2fsck_files, 0, 3);
	tcase_add_loop_test(tc, test_quota_refused, 0, sizeof(bad) / sizeof(bad[0]));
	tcase_add_test(tc, test_quota_unreached);
	tcase_add_test(tc, test_quota_salvage);
	tcase_add_test(tc, test_quota_tally);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(quota_suite)
