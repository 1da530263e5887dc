// SPDX-License-Identifier: MIT
/*
 * check_fc.c - the fast-commit area: records, tails and their crc, the
 * kernel's stop and refusal rules, the scan through a journal.
 *
 * Areas are built in memory the way the kernel's writer lays them out:
 * records packed from offset 0, a TAIL whose value runs to the block end
 * (the next fast commit starts a new block), the crc of a tail taken with
 * the table crc32c over every record since the previous tail.
 */
#include "unit.h"

#define BS	1024
#define ISIZE	256

struct fcb {			/* an area being written */
	uint8_t *a;
	uint32_t bs, nblk;
	uint32_t blk, off;	/* where the next record goes */
	uint32_t crc;		/* since the previous tail */
};

static void fcb_init(struct fcb *b, uint32_t bs, uint32_t nblk)
{
	memset(b, 0, sizeof(*b));
	b->bs = bs;
	b->nblk = nblk;
	b->a = calloc(nblk ? nblk : 1, bs);
	ck_assert_ptr_nonnull(b->a);
}

static uint8_t *fcb_at(struct fcb *b)
{
	return b->a + (size_t)b->blk * b->bs + b->off;
}

/* a record with @len value bytes from @val (zeros if NULL); returns the value */
static uint8_t *fcb_rec(struct fcb *b, uint16_t tag, uint16_t len, const void *val)
{
	uint8_t *p = fcb_at(b);

	ck_assert_uint_le(b->off + 4 + len, b->bs);
	put_le16(p, tag);
	put_le16(p + 2, len);
	if (val)
		memcpy(p + 4, val, len);
	b->crc = ek_crc32c_sw(b->crc, p, 4 + len);
	b->off += 4 + len;
	return p + 4;
}

static void fcb_head(struct fcb *b, uint32_t features, uint32_t tid)
{
	uint8_t v[8];

	put_le32(v, features);
	put_le32(v + 4, tid);
	fcb_rec(b, EXT4_FC_TAG_HEAD, 8, v);
}

static void fcb_add_range(struct fcb *b, uint32_t ino, uint32_t lblk, uint16_t ee_len, uint64_t pblk)
{
	uint8_t v[16];

	put_le32(v, ino);
	put_le32(v + 4, lblk);
	put_le16(v + 8, ee_len);
	put_le16(v + 10, pblk >> 32);
	put_le32(v + 12, (uint32_t)pblk);
	fcb_rec(b, EXT4_FC_TAG_ADD_RANGE, 16, v);
}

static void fcb_del_range(struct fcb *b, uint32_t ino, uint32_t lblk, uint32_t len)
{
	uint8_t v[12];

	put_le32(v, ino);
	put_le32(v + 4, lblk);
	put_le32(v + 8, len);
	fcb_rec(b, EXT4_FC_TAG_DEL_RANGE, 12, v);
}

static void fcb_dentry(struct fcb *b, uint16_t tag, uint32_t parent, uint32_t ino, const char *name,
		       size_t nl)
{
	uint8_t v[8 + 300];

	ck_assert_uint_le(nl, 300);
	put_le32(v, parent);
	put_le32(v + 4, ino);
	memcpy(v + 8, name, nl);
	fcb_rec(b, tag, 8 + nl, v);
}

/* an inode record of @raw_len bytes: mode 0100644, size @size, bytes after 0x80 = @fill */
static void fcb_inode(struct fcb *b, uint32_t ino, uint32_t raw_len, uint32_t size, uint8_t fill)
{
	uint8_t v[4 + 1024];

	ck_assert_uint_le(raw_len, 1024);
	memset(v, fill, sizeof(v));
	put_le32(v, ino);
	memset(v + 4, 0, 128);
	put_le16(v + 4 + offsetof(struct ext4_inode, i_mode), 0100644);
	put_le16(v + 4 + offsetof(struct ext4_inode, i_links_count), 1);
	put_le32(v + 4 + offsetof(struct ext4_inode, i_size_lo), size);
	fcb_rec(b, EXT4_FC_TAG_INODE, 4 + raw_len, v);
}

/* as ext4_fc_write_tail(): crc over the tail's header and tid, value to the block end */
static void fcb_tail_crc(struct fcb *b, uint32_t tid, uint32_t crc_xor)
{
	uint8_t *p = fcb_at(b);
	uint16_t len = b->bs - b->off - 4;

	ck_assert_uint_ge(len, 8);
	memset(p, 0, 4 + len);
	put_le16(p, EXT4_FC_TAG_TAIL);
	put_le16(p + 2, len);
	put_le32(p + 4, tid);
	b->crc = ek_crc32c_sw(b->crc, p, 8);
	put_le32(p + 8, b->crc ^ crc_xor);
	b->crc = 0;
	b->blk++;
	b->off = 0;
}

static void fcb_tail(struct fcb *b, uint32_t tid)
{
	fcb_tail_crc(b, tid, 0);
}

/* as ext4_fc_reserve_space(): a PAD to the block end, then the next block */
static void fcb_pad_block(struct fcb *b)
{
	fcb_rec(b, EXT4_FC_TAG_PAD, b->bs - b->off - 4, NULL);
	b->blk++;
	b->off = 0;
}

static void parse(struct fcb *b, uint32_t expect, struct ek_fclog *log, int want)
{
	ek_error_clear();
	ck_assert_int_eq(ek_fc_parse(b->a, b->nblk, b->bs, ISIZE, expect, log), want);
}

/* every record kind decoded, names and raw inodes pointing into the area */
START_TEST(test_each_tag)
{
	struct fcb b;
	struct ek_fclog log;
	const struct ek_fc_rec *r;
	uint8_t *raw;

	fcb_init(&b, BS, 4);
	fcb_head(&b, 0, 7);
	fcb_add_range(&b, 12, 5, EXT_INIT_MAX_LEN + 2, 0x100000010ull);
	fcb_add_range(&b, 12, 9, EXT_INIT_MAX_LEN, 300);
	fcb_del_range(&b, 13, 100, 7);
	fcb_dentry(&b, EXT4_FC_TAG_CREAT, 2, 14, "foo", 3);
	fcb_dentry(&b, EXT4_FC_TAG_LINK, 2, 14, "bar", 3);
	fcb_dentry(&b, EXT4_FC_TAG_UNLINK, 11, 15, "z", 1);
	raw = fcb_at(&b) + 8;
	fcb_inode(&b, 14, 160, 5000, 0xab);
	fcb_rec(&b, EXT4_FC_TAG_PAD, 10, NULL);
	fcb_tail(&b, 7);	/* block 1 and on: zeros */

	parse(&b, 7, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_int_eq(log.status, 0);
	ck_assert_uint_eq(log.nreplay, 10);
	ck_assert_uint_eq(log.ncommits, 1);
	ck_assert_uint_eq(log.nrecs, 11);
	ck_assert_uint_eq(log.blocks_read, 2);
	ck_assert_uint_eq(log.expect_tid, 7);

	r = log.recs;
	ck_assert_uint_eq(r[0].tag, EXT4_FC_TAG_HEAD);
	ck_assert_uint_eq(r[0].u.head.tid, 7);
	ck_assert_uint_eq(r[0].u.head.features, 0);
	ck_assert_uint_eq(r[0].off, 0);
	ck_assert_uint_eq(r[1].off, 12);
	ck_assert_uint_eq(r[1].u.range.ino, 12);
	ck_assert_uint_eq(r[1].u.range.lblk, 5);
	ck_assert_uint_eq(r[1].u.range.len, 2);
	ck_assert(r[1].u.range.unwritten);
	ck_assert_uint_eq(r[1].u.range.pblk, 0x100000010ull);
	ck_assert_uint_eq(r[2].u.range.len, EXT_INIT_MAX_LEN);	/* 32768: initialized */
	ck_assert(!r[2].u.range.unwritten);
	ck_assert_uint_eq(r[2].u.range.pblk, 300);
	ck_assert_uint_eq(r[3].tag, EXT4_FC_TAG_DEL_RANGE);
	ck_assert_uint_eq(r[3].u.del.ino, 13);
	ck_assert_uint_eq(r[3].u.del.lblk, 100);
	ck_assert_uint_eq(r[3].u.del.len, 7);
	ck_assert_uint_eq(r[4].tag, EXT4_FC_TAG_CREAT);
	ck_assert_uint_eq(r[4].u.dentry.parent, 2);
	ck_assert_uint_eq(r[4].u.dentry.ino, 14);
	ck_assert_uint_eq(r[4].u.dentry.name_len, 3);
	ck_assert(!memcmp(r[4].u.dentry.name, "foo", 3));
	ck_assert_ptr_eq(r[4].u.dentry.name, b.a + r[4].off + 12);
	ck_assert_uint_eq(r[5].tag, EXT4_FC_TAG_LINK);
	ck_assert(!memcmp(r[5].u.dentry.name, "bar", 3));
	ck_assert_uint_eq(r[6].tag, EXT4_FC_TAG_UNLINK);
	ck_assert_uint_eq(r[6].u.dentry.parent, 11);
	ck_assert_uint_eq(r[6].u.dentry.name_len, 1);
	ck_assert_uint_eq(r[7].tag, EXT4_FC_TAG_INODE);
	ck_assert_uint_eq(r[7].u.inode.ino, 14);
	ck_assert_uint_eq(r[7].u.inode.raw_len, 160);
	ck_assert_ptr_eq(r[7].u.inode.raw, raw);
	ck_assert_uint_eq(get_le32(r[7].u.inode.raw + offsetof(struct ext4_inode, i_size_lo)), 5000);
	ck_assert_uint_eq(r[7].u.inode.raw[159], 0xab);
	ck_assert_uint_eq(r[8].tag, EXT4_FC_TAG_PAD);
	ck_assert_uint_eq(r[8].len, 10);
	ck_assert_uint_eq(r[9].tag, EXT4_FC_TAG_TAIL);
	ck_assert_uint_eq(r[9].u.tail.tid, 7);
	ck_assert_uint_eq(r[9].u.tail.crc, r[9].u.tail.crc_calc);
	ck_assert_uint_eq(r[9].off + 4 + r[9].len, BS);
	for (int i = 0; i < 10; i++)
		ck_assert(r[i].decoded && !r[i].stop);
	/* a zero header in block 1: tag 0 is no record, the scan stops there */
	ck_assert_uint_eq(r[10].area_blk, 1);
	ck_assert_uint_eq(r[10].tag, 0);
	ck_assert(r[10].stop && !r[10].decoded);
	ck_assert_ptr_nonnull(strstr(log.end_reason, "unknown tag"));
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* the first tail decides: a bad crc or tid refuses the recovery */
START_TEST(test_first_tail)
{
	struct fcb b;
	struct ek_fclog log;

	for (int kase = 0; kase < 3; kase++) {
		fcb_init(&b, BS, 2);
		fcb_head(&b, 0, 7);
		fcb_inode(&b, 12, 128, 1, 0);
		if (kase == 0)
			fcb_tail_crc(&b, 7, 0x1);	/* crc off by a bit */
		else
			fcb_tail(&b, kase == 1 ? 8 : 6);	/* another transaction */
		parse(&b, 7, &log, 0);
		ck_assert_int_eq(log.state, EK_FC_BADCRC);
		ck_assert_int_eq(log.status, -EK_BADCRC);
		ck_assert_uint_eq(log.nreplay, 0);
		ck_assert_uint_eq(log.nrecs, 3);
		ck_assert(log.recs[2].stop && log.recs[2].decoded);
		ck_assert_ptr_nonnull(strstr(ek_error_msg(log.status), "fast commit: journal block 0 offset"));
		ek_fclog_release(&log);
		free(b.a);
	}
	/* a byte of a record changed after its tail was sealed */
	fcb_init(&b, BS, 2);
	fcb_head(&b, 0, 7);
	fcb_inode(&b, 12, 128, 1, 0);
	fcb_tail(&b, 7);
	parse(&b, 7, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);	/* as built */
	ck_assert_uint_eq(log.nreplay, 3);
	ek_fclog_release(&log);
	b.a[20] ^= 0x40;	/* inside the inode */
	parse(&b, 7, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_BADCRC);
	ck_assert_uint_ne(log.recs[2].u.tail.crc, log.recs[2].u.tail.crc_calc);
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* several fast commits: replay runs up to the last good tail */
START_TEST(test_prefix)
{
	struct fcb b;
	struct ek_fclog log;

	fcb_init(&b, BS, 8);
	fcb_head(&b, 0, 40);
	fcb_inode(&b, 12, 160, 1, 0);
	fcb_tail(&b, 40);			/* recs 0-2 */
	fcb_add_range(&b, 12, 0, 1, 500);
	fcb_tail(&b, 40);			/* recs 3-4 */
	fcb_del_range(&b, 12, 0, 1);
	fcb_tail_crc(&b, 40, 0x80000000);	/* rec 5, bad tail 6 */
	fcb_inode(&b, 13, 160, 1, 0);
	fcb_tail(&b, 40);			/* good, but after the stop */
	parse(&b, 40, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_int_eq(log.status, 0);
	ck_assert_uint_eq(log.nreplay, 5);
	ck_assert_uint_eq(log.ncommits, 2);
	ck_assert_uint_eq(log.nrecs, 7);
	ck_assert(log.recs[6].stop);
	ck_assert_uint_eq(log.recs[6].area_blk, 2);
	ck_assert_uint_eq(log.blocks_read, 3);
	ck_assert_ptr_nonnull(strstr(log.end_reason, "crc mismatch"));
	ek_fclog_release(&log);

	/* the third tail names an older transaction: the same prefix */
	memset(b.a + 2 * BS, 0, BS);
	b.blk = 2, b.off = 0, b.crc = 0;
	fcb_del_range(&b, 12, 0, 1);
	fcb_tail(&b, 39);
	parse(&b, 40, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_uint_eq(log.nreplay, 5);
	ck_assert_ptr_nonnull(strstr(log.end_reason, "TAIL of another transaction"));
	ek_fclog_release(&log);

	/* a later HEAD of the same transaction continues; of another one stops */
	memset(b.a + 2 * BS, 0, BS);
	b.blk = 2, b.off = 0, b.crc = 0;
	fcb_head(&b, 0, 40);
	fcb_del_range(&b, 12, 0, 1);
	fcb_tail(&b, 40);
	fcb_head(&b, 0, 12);
	parse(&b, 40, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_uint_eq(log.nreplay, 8);
	ck_assert_uint_eq(log.ncommits, 3);
	ck_assert_uint_eq(log.nrecs, 9);
	ck_assert(log.recs[8].stop && log.recs[8].tag == EXT4_FC_TAG_HEAD);
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* HEAD rules: stale, unknown features, another HEAD before any tail */
START_TEST(test_head)
{
	struct fcb b;
	struct ek_fclog log;

	fcb_init(&b, BS, 4);
	fcb_head(&b, 0, 381);
	fcb_inode(&b, 12, 128, 1, 0);
	fcb_tail(&b, 381);
	parse(&b, 382, &log, 0);	/* the full log already holds 381 */
	ck_assert_int_eq(log.state, EK_FC_STALE);
	ck_assert_int_eq(log.status, 0);
	ck_assert_uint_eq(log.nrecs, 1);
	ck_assert_uint_eq(log.nreplay, 0);
	ck_assert(log.recs[0].stop && log.recs[0].decoded);
	ck_assert_uint_eq(log.recs[0].u.head.tid, 381);
	ck_assert_ptr_nonnull(strstr(log.end_reason, "HEAD of transaction 381, expected 382"));
	ek_fclog_release(&log);
	/* tid comparison is exact, whatever the wrap */
	parse(&b, 381u + 0x80000000u, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_STALE);
	ek_fclog_release(&log);
	free(b.a);

	/* unknown features refuse, even with a matching tid */
	fcb_init(&b, BS, 2);
	fcb_head(&b, 0x2, 5);
	parse(&b, 5, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_UNSUPP);
	ck_assert_int_eq(log.status, -EK_UNSUPP);
	ek_fclog_release(&log);
	free(b.a);

	/* ... and after good tails too */
	fcb_init(&b, BS, 3);
	fcb_head(&b, 0, 5);
	fcb_tail(&b, 5);
	fcb_head(&b, 1, 5);
	parse(&b, 5, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_UNSUPP);
	ck_assert_int_eq(log.status, -EK_UNSUPP);
	ck_assert_uint_eq(log.nreplay, 2);
	ek_fclog_release(&log);
	free(b.a);

	/* a HEAD of another transaction before any tail: nothing, no refusal */
	fcb_init(&b, BS, 2);
	fcb_head(&b, 0, 5);
	fcb_inode(&b, 12, 128, 1, 0);
	fcb_head(&b, 0, 4);
	parse(&b, 5, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_INCOMPLETE);
	ck_assert_int_eq(log.status, 0);
	ck_assert_uint_eq(log.nreplay, 0);
	ck_assert_uint_eq(log.nrecs, 3);
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* an area without a HEAD at offset 0 of its first block holds nothing */
START_TEST(test_empty)
{
	struct fcb b;
	struct ek_fclog log;

	fcb_init(&b, BS, 4);		/* zeros */
	parse(&b, 1, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_EMPTY);
	ck_assert_int_eq(log.status, 0);
	ck_assert_uint_eq(log.nrecs, 0);
	ck_assert_uint_eq(log.blocks_read, 1);
	ek_fclog_release(&log);
	/* a HEAD in the second block only: the kernel looks at the first */
	b.blk = 1;
	fcb_head(&b, 0, 1);
	fcb_tail(&b, 1);
	parse(&b, 1, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_EMPTY);
	ek_fclog_release(&log);
	/* a PAD first */
	b.blk = 0, b.off = 0;
	fcb_pad_block(&b);
	parse(&b, 1, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_EMPTY);
	ck_assert_ptr_nonnull(strstr(log.end_reason, "tag 0x0007"));
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* value lengths each tag must have (ext4_fc_value_len_isvalid) */
static const struct {
	const char *what;
	uint16_t tag, len;
} bad_len[] = {
	{ "HEAD 7", EXT4_FC_TAG_HEAD, 7 },
	{ "HEAD 9", EXT4_FC_TAG_HEAD, 9 },
	{ "ADD_RANGE 15", EXT4_FC_TAG_ADD_RANGE, 15 },
	{ "ADD_RANGE 17", EXT4_FC_TAG_ADD_RANGE, 17 },
	{ "DEL_RANGE 11", EXT4_FC_TAG_DEL_RANGE, 11 },
	{ "DEL_RANGE 13", EXT4_FC_TAG_DEL_RANGE, 13 },
	{ "CREAT without name", EXT4_FC_TAG_CREAT, 8 },
	{ "LINK name 256", EXT4_FC_TAG_LINK, 8 + 256 },
	{ "UNLINK 4", EXT4_FC_TAG_UNLINK, 4 },
	{ "INODE 127", EXT4_FC_TAG_INODE, 4 + 127 },
	{ "INODE past inode size", EXT4_FC_TAG_INODE, 4 + ISIZE + 1 },
	{ "TAIL 7", EXT4_FC_TAG_TAIL, 7 },
	{ "tag 0", 0, 0 },
	{ "tag 10", 10, 8 },
	{ "tag 0xffff", 0xffff, 4 },
	{ "past the block end", EXT4_FC_TAG_PAD, BS - 12 - 4 + 1 },
	{ "INODE past the block end", EXT4_FC_TAG_INODE, 0xffff },
};

START_TEST(test_bad_len)
{
	struct fcb b;
	struct ek_fclog log;

	/* right after the HEAD: the recovery is refused */
	fcb_init(&b, BS, 3);
	fcb_head(&b, 0, 9);
	fcb_rec(&b, bad_len[_i].tag, 0, NULL);
	put_le16(b.a + 12 + 2, bad_len[_i].len);
	parse(&b, 9, &log, 0);
	ck_assert_msg(log.state == EK_FC_CORRUPT, "case '%s': state %s", bad_len[_i].what,
		      ek_fc_state_name(log.state));
	ck_assert_int_eq(log.status, -EK_CORRUPT);
	ck_assert_uint_eq(log.nrecs, 2);
	ck_assert(log.recs[1].stop && !log.recs[1].decoded);
	ck_assert_uint_eq(log.recs[1].len, bad_len[_i].len);
	ck_assert_msg(strstr(ek_error_msg(log.status), "before any good tail"), "case '%s': '%s'",
		      bad_len[_i].what, ek_error_msg(log.status));
	ek_fclog_release(&log);
	free(b.a);

	/* after a good tail: replay what the tail covers */
	fcb_init(&b, BS, 3);
	fcb_head(&b, 0, 9);
	fcb_tail(&b, 9);
	fcb_head(&b, 0, 9);
	fcb_rec(&b, bad_len[_i].tag, 0, NULL);
	put_le16(b.a + BS + 12 + 2, bad_len[_i].len);
	parse(&b, 9, &log, 0);
	ck_assert_msg(log.state == EK_FC_VALID, "case '%s': state %s", bad_len[_i].what,
		      ek_fc_state_name(log.state));
	ck_assert_int_eq(log.status, 0);
	ck_assert_uint_eq(log.nreplay, 2);
	ck_assert_uint_eq(log.nrecs, 4);
	ck_assert(log.recs[3].stop && !log.recs[3].decoded);
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* the longest and shortest values each tag may have */
START_TEST(test_len_limits)
{
	struct fcb b;
	struct ek_fclog log;
	char name[255];

	memset(name, 'n', sizeof(name));
	fcb_init(&b, BS, 4);
	fcb_head(&b, 0, 3);
	fcb_dentry(&b, EXT4_FC_TAG_LINK, 2, 12, name, 255);
	fcb_inode(&b, 12, ISIZE, 1, 0);
	fcb_tail(&b, 3);
	fcb_inode(&b, 12, 128, 1, 0);
	fcb_rec(&b, EXT4_FC_TAG_PAD, 0, NULL);
	/* padded so that the tail has its smallest value: 8 bytes, to the block end */
	fcb_rec(&b, EXT4_FC_TAG_PAD, BS - 12 - b.off - 4, NULL);
	fcb_tail(&b, 3);
	parse(&b, 3, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_uint_eq(log.nreplay, 8);
	ck_assert_uint_eq(log.recs[1].u.dentry.name_len, 255);
	ck_assert_uint_eq(log.recs[2].u.inode.raw_len, ISIZE);
	ck_assert_uint_eq(log.recs[7].len, 8);
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* fewer than 4 bytes left in a block are no record: skipped, not checksummed */
START_TEST(test_block_slack)
{
	struct fcb b;
	struct ek_fclog log;

	fcb_init(&b, BS, 3);
	fcb_head(&b, 0, 3);
	fcb_rec(&b, EXT4_FC_TAG_PAD, BS - 12 - 4 - 3, NULL);
	memset(fcb_at(&b), 0xee, 3);	/* 3 bytes of junk at the block end */
	b.blk = 1, b.off = 0;
	fcb_inode(&b, 12, 128, 1, 0);
	fcb_tail(&b, 3);
	parse(&b, 3, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_uint_eq(log.nreplay, 4);
	ck_assert_uint_eq(log.recs[2].area_blk, 1);
	ek_fclog_release(&log);
	free(b.a);

	/* but 4 bytes are a record: a PAD of no value at the very end */
	fcb_init(&b, BS, 3);
	fcb_head(&b, 0, 3);
	fcb_rec(&b, EXT4_FC_TAG_PAD, BS - 12 - 4 - 4, NULL);
	fcb_rec(&b, EXT4_FC_TAG_PAD, 0, NULL);
	b.blk = 1, b.off = 0;
	fcb_tail(&b, 3);
	parse(&b, 3, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_uint_eq(log.nreplay, 4);
	ck_assert_uint_eq(log.recs[2].off, BS - 4);
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

/* records up to the last block: the kernel reads past the journal and fails */
START_TEST(test_past_end)
{
	struct fcb b;
	struct ek_fclog log;

	fcb_init(&b, BS, 3);
	for (int i = 0; i < 3; i++) {
		if (!i)
			fcb_head(&b, 0, 3);
		fcb_tail(&b, 3);
	}
	parse(&b, 3, &log, 0);
	ck_assert_int_eq(log.state, EK_FC_CORRUPT);
	ck_assert_int_eq(log.status, -EK_CORRUPT);
	ck_assert_uint_eq(log.nreplay, 4);
	ck_assert_uint_eq(log.ncommits, 3);
	ck_assert_uint_eq(log.blocks_read, 3);
	ck_assert_ptr_nonnull(strstr(ek_error_msg(log.status), "reads past the journal"));
	ek_fclog_release(&log);
	/* an area of no blocks at all (s_num_fc_blks 1) */
	ck_assert_int_eq(ek_fc_parse(b.a, 0, BS, ISIZE, 3, &log), 0);
	ck_assert_int_eq(log.state, EK_FC_CORRUPT);
	ck_assert_uint_eq(log.blocks_read, 0);
	ek_fclog_release(&log);
	free(b.a);
}
END_TEST

START_TEST(test_args_names)
{
	struct ek_fclog log;
	uint8_t blk[4096] = { 0 };

	ck_assert_int_eq(ek_fc_parse(blk, 1, 1000, ISIZE, 1, &log), -EINVAL);
	ck_assert_int_eq(ek_fc_parse(blk, 1, 512, ISIZE, 1, &log), -EINVAL);
	ck_assert_int_eq(ek_fc_parse(blk, 1, 131072, ISIZE, 1, &log), -EINVAL);
	ck_assert_int_eq(ek_fc_parse(blk, 1, 1024, 64, 1, &log), -EINVAL);
	ck_assert_int_eq(ek_fc_parse(blk, 1, 1024, 2048, 1, &log), -EINVAL);
	ck_assert_int_eq(ek_fc_parse(blk, 1, 4096, 4096, 1, &log), 0);
	ek_fclog_release(&log);

	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_ADD_RANGE), "ADD_RANGE");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_DEL_RANGE), "DEL_RANGE");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_CREAT), "CREAT");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_LINK), "LINK");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_UNLINK), "UNLINK");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_INODE), "INODE");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_PAD), "PAD");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_TAIL), "TAIL");
	ck_assert_str_eq(ek_fc_tag_name(EXT4_FC_TAG_HEAD), "HEAD");
	ck_assert_ptr_null(ek_fc_tag_name(0));
	ck_assert_ptr_null(ek_fc_tag_name(10));
	ck_assert_ptr_null(ek_fc_tag_name(0xffff));
	ck_assert_str_eq(ek_fc_state_name(EK_FC_NONE), "none");
	ck_assert_str_eq(ek_fc_state_name(EK_FC_STALE), "stale");
	ck_assert_str_eq(ek_fc_state_name(EK_FC_BADCRC), "bad_checksum");
	ck_assert_str_eq(ek_fc_state_name(EK_FC_UNSUPP), "unsupported");
}
END_TEST

/* ek_fc_rec_check: what replay must not apply blindly */
static const struct {
	const char *what;
	int err;
} checks[] = {
	{ "good extent", 0 },
	{ "extent ino 0", -EK_CORRUPT },
	{ "extent ino past count", -EK_CORRUPT },
	{ "extent past the fs", -EK_CORRUPT },
	{ "extent before first data block", -EK_CORRUPT },
	{ "extent of 0 blocks", -EK_CORRUPT },
	{ "extent past 2^32 lblk", -EK_CORRUPT },
	{ "extent ends at 2^32", 0 },
	{ "good del", 0 },
	{ "del of 0 blocks", -EK_CORRUPT },
	{ "del past 2^32", -EK_CORRUPT },
	{ "good name", 0 },
	{ "name with /", -EK_CORRUPT },
	{ "name with NUL", -EK_CORRUPT },
	{ "name .", -EK_CORRUPT },
	{ "name ..", -EK_CORRUPT },
	{ "name ...", 0 },
	{ "parent 0", -EK_CORRUPT },
	{ "good inode", 0 },
	{ "inode past count", -EK_CORRUPT },
	{ "not decoded", -EK_CORRUPT },
	{ "head", 0 },
};

START_TEST(test_rec_check)
{
	struct unit_fs u;
	struct ek_fc_rec r = { .decoded = true };
	const char *name = "a";
	int err;

	unit_fs_init(&u, 1024, 256, 0, 0, 0);
	ck_assert_int_eq(unit_fs_open(&u, 0), 0);
	r.tag = EXT4_FC_TAG_ADD_RANGE;
	r.u.range.ino = 12;
	r.u.range.lblk = 0;
	r.u.range.len = 4;
	r.u.range.pblk = 100;
	switch (_i) {
	case 1: r.u.range.ino = 0; break;
	case 2: r.u.range.ino = UNIT_INODES + 1; break;
	case 3: r.u.range.pblk = 253; break;
	case 4: r.u.range.pblk = 0; break;	/* 1k blocks: block 0 is the boot block */
	case 5: r.u.range.len = 0; break;
	case 6: r.u.range.lblk = 0xfffffffe; break;
	case 7: r.u.range.lblk = 0xfffffffc; break;
	}
	if (_i >= 8 && _i <= 10) {
		r.tag = EXT4_FC_TAG_DEL_RANGE;
		r.u.del.ino = 12;
		r.u.del.lblk = _i == 10 ? 0xffffff00 : 7;
		r.u.del.len = _i == 9 ? 0 : 0x100 + (_i == 10);
	}
	if (_i >= 11 && _i <= 17) {
		static const char *const names[] = { "good", "a/b", "a\0b", ".", "..", "...", "x" };
		static const uint32_t lens[] = { 4, 3, 3, 1, 2, 3, 1 };

		r.tag = EXT4_FC_TAG_LINK;
		r.u.dentry.parent = _i == 17 ? 0 : 2;
		r.u.dentry.ino = 12;
		name = names[_i - 11];
		r.u.dentry.name = (const uint8_t *)name;
		r.u.dentry.name_len = lens[_i - 11];
	}
	if (_i == 18 || _i == 19) {
		r.tag = EXT4_FC_TAG_INODE;
		r.u.inode.ino = _i == 18 ? UNIT_INODES : UNIT_INODES + 1;
	}
	if (_i == 20)
		r.decoded = false;
	if (_i == 21)
		r.tag = EXT4_FC_TAG_HEAD;
	ek_error_clear();
	err = ek_fc_rec_check(u.fs, &r);
	ck_assert_msg(err == checks[_i].err, "case '%s': got %d (%s)", checks[_i].what, err,
		      ek_last_error()->msg);
	if (err)
		ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "fast commit"));
	unit_fs_done(&u);
}
END_TEST

/*
 * Through a journal: a 1k-block filesystem of 8192 blocks whose journal
 * inode maps 1100 blocks at 2048; 20 fast-commit blocks make the ring
 * 1..1079 and the area journal blocks 1081..1099.
 */
#define J_START	2048
#define J_LEN	1100
#define J_FC	20

static void journal_fs(struct unit_fs *u, uint32_t incompat, uint32_t start, uint32_t mapped)
{
	struct ext4_inode raw = { 0 };
	uint8_t *root = (uint8_t *)raw.i_block;
	journal_superblock_t j = { 0 };

	unit_fs_init(u, 1024, 8192, EXT4_FEATURE_COMPAT_HAS_JOURNAL, EXT4_FEATURE_INCOMPAT_EXTENTS, 0);
	u->sb.s_journal_inum = cpu_to_le32(8);
	ck_assert_int_eq(unit_fs_open(u, 0), 0);
	put_le16(root, EXT4_EXT_MAGIC);
	put_le16(root + 2, 1);
	put_le16(root + 4, 4);
	put_le16(root + 16, mapped);
	put_le32(root + 20, J_START);
	raw.i_mode = cpu_to_le16(0100600);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw.i_size_lo = cpu_to_le32(J_LEN * 1024);
	unit_put_inode(u, 8, &raw);
	j.s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	j.s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	j.s_blocksize = cpu_to_be32(1024);
	j.s_maxlen = cpu_to_be32(J_LEN);
	j.s_first = cpu_to_be32(1);
	j.s_sequence = cpu_to_be32(50);
	j.s_start = cpu_to_be32(start);
	j.s_nr_users = cpu_to_be32(1);
	j.s_feature_incompat = cpu_to_be32(incompat);
	j.s_num_fc_blks = cpu_to_be32(J_FC);
	unit_write(u, J_START, 0, &j, sizeof(j));
}

START_TEST(test_scan_journal)
{
	const uint32_t fc = JBD2_FEATURE_INCOMPAT_REVOKE | JBD2_FEATURE_INCOMPAT_FAST_COMMIT;
	const uint32_t first = J_LEN - J_FC + 1, nblk = J_FC - 1;
	struct unit_fs u;
	struct ek_journal *j;
	struct ek_fclog log;
	struct fcb b;
	char name[16];

	/* twelve fast commits, one a block: the buffer grows while records point into it */
	fcb_init(&b, 1024, nblk);
	fcb_head(&b, 0, 60);
	for (int i = 0; i < 12; i++) {
		snprintf(name, sizeof(name), "file%02d", i);
		fcb_dentry(&b, EXT4_FC_TAG_CREAT, 2, 12 + i, name, strlen(name));
		fcb_tail(&b, 60);
	}
	journal_fs(&u, fc, 1, J_LEN);
	unit_write(&u, J_START + first, 0, b.a, (size_t)nblk * 1024);
	ck_assert_int_eq(ek_journal_open(u.fs, 0, &j), 0);
	ck_assert_uint_eq(j->sb.last, J_LEN - J_FC);
	ck_assert_int_eq(ek_fc_scan(j, 60, &log), 0);
	ck_assert_int_eq(log.state, EK_FC_VALID);
	ck_assert_uint_eq(log.first_jblk, first);
	ck_assert_uint_eq(log.nblocks, nblk);
	ck_assert_uint_eq(log.blocks_read, 13);
	ck_assert_uint_eq(log.nreplay, 25);
	ck_assert_uint_eq(log.ncommits, 12);
	ck_assert_ptr_nonnull(log.buf);
	ck_assert_uint_eq(log.recs[23].tag, EXT4_FC_TAG_CREAT);
	ck_assert_uint_eq(log.recs[23].area_blk, 11);
	ck_assert_uint_eq(log.recs[23].u.dentry.name_len, 6);
	ck_assert(!memcmp(log.recs[23].u.dentry.name, "file11", 6));
	ck_assert_ptr_eq(log.recs[23].u.dentry.name, log.buf + 11 * 1024 + 12);
	ck_assert_uint_eq(log.recs[1].u.dentry.ino, 12);
	ek_fclog_release(&log);
	/* expecting another transaction: stale */
	ck_assert_int_eq(ek_fc_scan(j, 61, &log), 0);
	ck_assert_int_eq(log.state, EK_FC_STALE);
	ek_fclog_release(&log);
	ek_journal_close(j);
	unit_fs_done(&u);

	/* the area's last blocks unmapped: a read error ends the scan with it */
	journal_fs(&u, fc, 1, J_LEN - 4);
	unit_write(&u, J_START + first, 0, b.a, (size_t)nblk * 1024);
	for (uint32_t k = 12; k < nblk - 4; k++) {
		/* more fast commits, up to the unmapped blocks */
		uint8_t blk[1024];

		memcpy(blk, b.a + 1024, 1024);	/* block 1 of the area: a CREAT and a TAIL */
		unit_write(&u, J_START + first + k, 0, blk, 1024);
	}
	ck_assert_int_eq(ek_journal_open(u.fs, 0, &j), 0);
	ek_error_clear();
	ck_assert_int_eq(ek_fc_scan(j, 60, &log), -EK_CORRUPT);
	ck_assert_ptr_nonnull(strstr(ek_last_error()->msg, "not mapped"));
	ck_assert_ptr_null(log.recs);
	ck_assert_ptr_null(log.buf);
	ek_journal_close(j);
	unit_fs_done(&u);

	/* fast commits in every block of the area: the kernel reads past the journal */
	journal_fs(&u, fc, 1, J_LEN);
	unit_write(&u, J_START + first, 0, b.a, 1024);
	for (uint32_t k = 1; k < nblk; k++)
		unit_write(&u, J_START + first + k, 0, b.a + 1024, 1024);
	ck_assert_int_eq(ek_journal_open(u.fs, 0, &j), 0);
	ck_assert_int_eq(ek_fc_scan(j, 60, &log), 0);
	ck_assert_int_eq(log.state, EK_FC_CORRUPT);
	ck_assert_int_eq(log.status, -EK_CORRUPT);
	ck_assert_uint_eq(log.blocks_read, nblk);
	ck_assert_uint_eq(log.ncommits, nblk);
	ek_fclog_release(&log);
	ek_journal_close(j);
	unit_fs_done(&u);

	/* a clean journal: recovery reads nothing */
	journal_fs(&u, fc, 0, J_LEN);
	ck_assert_int_eq(ek_journal_open(u.fs, 0, &j), 0);
	ck_assert_int_eq(ek_fc_scan(j, 60, &log), 0);
	ck_assert_int_eq(log.state, EK_FC_NONE);
	ck_assert_uint_eq(log.first_jblk, first);
	ck_assert_uint_eq(log.nrecs, 0);
	ek_fclog_release(&log);
	ek_journal_close(j);
	unit_fs_done(&u);

	/* no fast_commit feature: no area */
	journal_fs(&u, JBD2_FEATURE_INCOMPAT_REVOKE, 1, J_LEN);
	ck_assert_int_eq(ek_journal_open(u.fs, 0, &j), 0);
	ck_assert_int_eq(ek_fc_scan(j, 60, &log), 0);
	ck_assert_int_eq(log.state, EK_FC_NONE);
	ck_assert_uint_eq(log.nblocks, 0);
	ek_fclog_release(&log);
	ek_journal_close(j);
	unit_fs_done(&u);
	free(b.a);
}
END_TEST

static Suite *fc_suite(void)
{
	Suite *s = suite_create("fastcommit");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_each_tag);
	tcase_add_test(tc, test_first_tail);
	tcase_add_test(tc, test_prefix);
	tcase_add_test(tc, test_head);
	tcase_add_test(tc, test_empty);
	tcase_add_loop_test(tc, test_bad_len, 0, sizeof(bad_len) / sizeof(bad_len[0]));
	tcase_add_test(tc, test_len_limits);
	tcase_add_test(tc, test_block_slack);
	tcase_add_test(tc, test_past_end);
	tcase_add_test(tc, test_args_names);
	tcase_add_loop_test(tc, test_rec_check, 0, sizeof(checks) / sizeof(checks[0]));
	tcase_add_test(tc, test_scan_journal);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(fc_suite)
