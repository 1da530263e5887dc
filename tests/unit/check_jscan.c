// SPDX-License-Identifier: MIT
/*
 * check_jscan.c - the jbd2 log scan (recovery.c) and the replay plan
 * (replay.c) on journals written block by block into a memfd filesystem.
 *
 * The builder below lays out descriptor, data, revoke and commit blocks
 * with their big-endian fields and checksums the way jbd2's commit code
 * does; each test then asserts what fs/jbd2/recovery.c would make of the
 * same blocks:
 *  - PASS_SCAN follows blocks whose magic and h_sequence match, skipping
 *    the data blocks a descriptor's tags describe (tag size by feature,
 *    16-byte UUID unless SAME_UUID, stop at LAST_TAG or where the next tag
 *    would overlap the checksum tail), wrapping at the end of the ring;
 *  - a bad commit checksum ends replay before that transaction; without
 *    async_commit it marks a failed commit, with async_commit it is an
 *    interrupted commit, unless checksum v1 finds the next transaction's
 *    commit block (then it is a failed commit again);
 *  - a bad descriptor/revoke checksum is judged at the next commit block:
 *    a commit time not older than the previous one refuses recovery, an
 *    older one ends the log there; commit times compare unsigned;
 *  - PASS_REVOKE keeps the highest revoking tid per block and rejects an
 *    r_count past the block (tail excluded) of a replayed transaction;
 *    shorter counts just carry fewer records;
 *  - PASS_REPLAY skips revoked copies (record tid >= the copy's tid,
 *    wrap-safe), then copies whose tag checksum fails, and writes the rest
 *    in log order so the newest copy wins, restoring escaped magic.
 */
#include "unit.h"

#define BS		1024u
#define NBLK		4096u	/* filesystem blocks */
#define JSTART		2048u	/* filesystem block of journal block 0 */
#define JMAP		1280u	/* journal blocks the journal inode maps */
#define FC_BLKS		128u	/* fast-commit area when the feature is on */

#define F64	JBD2_FEATURE_INCOMPAT_64BIT
#define FV2	JBD2_FEATURE_INCOMPAT_CSUM_V2
#define FV3	JBD2_FEATURE_INCOMPAT_CSUM_V3
#define FASYNC	JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT
#define FFC	JBD2_FEATURE_INCOMPAT_FAST_COMMIT
#define CV1	JBD2_FEATURE_COMPAT_CHECKSUM

/*
 * The journal UUID.  Read as a tag, its first bytes say "home 0x99,
 * SAME_UUID | LAST_TAG" in every tag layout, so a scan that forgets to
 * skip it ends the descriptor early and misplaces the commit block.
 */
static const uint8_t juuid[16] = { 0, 0, 0, 0x99, 0, 0, 0, 0x0a,
				   0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8 };

struct jb {
	struct unit_fs u;
	uint32_t compat, incompat;
	uint32_t maxlen, first, last;
	uint32_t seed;		/* crc32c(~0, uuid) for v2/v3 */
	uint32_t pos;		/* next journal block the builder writes */
	uint32_t crc1;		/* checksum v1 of the transaction being written */
	uint64_t sec;		/* commit time of the next commit block */
	struct ek_journal *j;
	struct ek_jlog log;
	struct ek_jplan plan;
	bool scanned, planned;
};

/* one logged block for jb_desc() */
struct jt {
	uint64_t home;
	uint32_t stamp;		/* content: fill(stamp) */
	uint32_t flags;		/* JBD2_FLAG_ESCAPE: the block began with the magic */
	bool bad;		/* store a wrong data checksum in the tag */
};

static void put16(void *p, uint16_t v)
{
	__be16 x = cpu_to_be16(v);

	memcpy(p, &x, 2);
}

static void put64(void *p, uint64_t v)
{
	__be64 x = cpu_to_be64(v);

	memcpy(p, &x, 8);
}

static bool v23(const struct jb *b)
{
	return b->incompat & (FV2 | FV3);
}

static uint32_t tail_bytes(const struct jb *b)
{
	return v23(b) ? 4 : 0;
}

/* journal_tag_bytes(), written out again so that a lib slip shows */
static uint32_t tag_size(const struct jb *b)
{
	if (b->incompat & FV3)
		return 16;
	return 8 + ((b->incompat & F64) ? 4 : 0) + ((b->incompat & FV2) ? 2 : 0);
}

static uint32_t jwrap(const struct jb *b, uint32_t jblk)
{
	return jblk >= b->last ? jblk - (b->last - b->first) : jblk;
}

/* a recognisable block: word k is stamp + k * 0x01000193 */
static void fill(uint8_t *buf, uint32_t stamp)
{
	for (uint32_t k = 0; k < BS / 4; k++)
		put_be32(buf + 4 * k, stamp + k * 0x01000193u);
}

/* not inlined: gcc 12 misreads &u->sb inside struct jb (-Wstringop-overread) */
static __attribute__((noinline)) int fs_open(struct unit_fs *u)
{
	return unit_fs_open(u, EK_OPEN_RW);
}

static void jb_init(struct jb *b, uint32_t compat, uint32_t incompat)
{
	struct ext4_inode raw = { 0 };
	uint8_t *root = (uint8_t *)raw.i_block;

	memset(b, 0, sizeof(*b));
	unit_fs_init(&b->u, BS, NBLK, EXT4_FEATURE_COMPAT_HAS_JOURNAL,
		     EXT4_FEATURE_INCOMPAT_EXTENTS, 0);
	b->u.sb.s_journal_inum = cpu_to_le32(8);
	ck_assert_int_eq(fs_open(&b->u), 0);
	put_le16(root, EXT4_EXT_MAGIC);
	put_le16(root + 2, 1);
	put_le16(root + 4, 4);
	put_le16(root + 16, JMAP);
	put_le32(root + 20, JSTART);
	raw.i_mode = cpu_to_le16(0100600);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw.i_size_lo = cpu_to_le32(JMAP * BS);
	unit_put_inode(&b->u, 8, &raw);

	b->compat = compat;
	b->incompat = incompat | JBD2_FEATURE_INCOMPAT_REVOKE;
	b->maxlen = JMAP;
	b->first = 1;
	b->last = (incompat & FFC) ? JMAP - FC_BLKS : JMAP;
	b->seed = ek_crc32c(~0u, juuid, 16);
	b->pos = b->first;
	b->crc1 = ~0u;
	b->sec = 1000;
}

static void jb_put(struct jb *b, uint32_t jblk, const void *buf)
{
	ck_assert_uint_lt(jblk, JMAP);
	unit_write(&b->u, JSTART + jblk, 0, buf, BS);
}

static void jb_get(struct jb *b, uint32_t jblk, void *buf)
{
	ck_assert_int_eq(pread(b->u.fd, buf, BS, (off_t)(JSTART + jblk) * BS), (ssize_t)BS);
}

static void hdr(uint8_t *d, uint32_t type, ek_tid_t tid)
{
	put_be32(d, JBD2_MAGIC_NUMBER);
	put_be32(d + 4, type);
	put_be32(d + 8, tid);
}

/* the crc32c tail of a descriptor or revoke block (v2/v3) */
static void seal_tail(const struct jb *b, uint8_t *d)
{
	if (!v23(b))
		return;
	put_be32(d + BS - 4, 0);
	put_be32(d + BS - 4, ek_crc32c(b->seed, d, BS));
}

/* the tag checksum of a logged block as it sits in the journal */
static uint32_t data_csum(const struct jb *b, ek_tid_t tid, const uint8_t *data)
{
	uint8_t seq[4];
	uint32_t c;

	put_be32(seq, tid);
	c = ek_crc32c(ek_crc32c(b->seed, seq, 4), data, BS);
	return (b->incompat & FV3) ? c : (c & 0xffff);
}

/* one tag at @off of descriptor @d; returns the offset after it (and its UUID) */
static uint32_t tag_put(const struct jb *b, uint8_t *d, uint32_t off, uint64_t home,
			uint32_t flags, uint32_t csum)
{
	put_be32(d + off, (uint32_t)home);
	if (b->incompat & FV3) {
		put_be32(d + off + 4, flags);
		put_be32(d + off + 8, (uint32_t)(home >> 32));
		put_be32(d + off + 12, csum);
	} else {
		put16(d + off + 4, (uint16_t)csum);
		put16(d + off + 6, (uint16_t)flags);
		if (b->incompat & F64)
			put_be32(d + off + 8, (uint32_t)(home >> 32));
	}
	off += tag_size(b);
	if (!(flags & JBD2_FLAG_SAME_UUID)) {
		/* a reader stops where no tag fits: the UUID may run off the block */
		memcpy(d + off, juuid, off + 16 <= BS ? 16 : BS - off);
		off += 16;
	}
	return off;
}

/* the journal copy of logged block @t: escaped blocks lose their magic */
static void logged_copy(const struct jt *t, uint8_t *buf)
{
	fill(buf, t->stamp);
	if (t->flags & JBD2_FLAG_ESCAPE)
		put_be32(buf, 0);
}

/* the data block at b->pos, advancing it; folds it into checksum v1 */
static void put_data(struct jb *b, const uint8_t *data)
{
	jb_put(b, b->pos, data);
	b->crc1 = ek_crc32_be(b->crc1, data, BS);
	b->pos = jwrap(b, b->pos + 1);
}

/*
 * A descriptor block for @n tags at b->pos, then their data blocks, as
 * jbd2 writes them: the UUID after the first tag, SAME_UUID on the
 * others, LAST_TAG on the last.  @d gets the descriptor as written.
 */
static void jb_desc_raw(struct jb *b, ek_tid_t tid, const struct jt *t, unsigned n, uint8_t *d)
{
	uint8_t data[BS];
	uint32_t off = 12;

	memset(d, 0, BS);
	hdr(d, JBD2_DESCRIPTOR_BLOCK, tid);
	for (unsigned i = 0; i < n; i++) {
		uint32_t flags = t[i].flags | (i ? JBD2_FLAG_SAME_UUID : 0) |
				 (i + 1 == n ? JBD2_FLAG_LAST_TAG : 0);

		logged_copy(&t[i], data);
		off = tag_put(b, d, off, t[i].home, flags,
			      data_csum(b, tid, data) ^ (t[i].bad ? 1 : 0));
		ck_assert_uint_le(off, BS - tail_bytes(b));
	}
	seal_tail(b, d);
}

static void jb_desc(struct jb *b, ek_tid_t tid, const struct jt *t, unsigned n)
{
	uint8_t d[BS], data[BS];

	jb_desc_raw(b, tid, t, n, d);
	put_data(b, d);
	for (unsigned i = 0; i < n; i++) {
		logged_copy(&t[i], data);
		put_data(b, data);
	}
}

/* a revoke block at b->pos; not part of checksum v1 */
static void jb_revoke(struct jb *b, ek_tid_t tid, const uint64_t *homes, unsigned n)
{
	uint32_t rs = (b->incompat & F64) ? 8 : 4, off = 16;
	uint8_t d[BS] = { 0 };

	hdr(d, JBD2_REVOKE_BLOCK, tid);
	for (unsigned i = 0; i < n; i++, off += rs) {
		if (rs == 8)
			put64(d + off, homes[i]);
		else
			put_be32(d + off, (uint32_t)homes[i]);
	}
	ck_assert_uint_le(off, BS - tail_bytes(b));
	put_be32(d + 12, off);
	seal_tail(b, d);
	jb_put(b, b->pos, d);
	b->pos = jwrap(b, b->pos + 1);
}

/* a commit block for @tid at @sec, with the checksum its features ask for */
static void commit_build(struct jb *b, uint8_t *d, ek_tid_t tid, uint64_t sec)
{
	memset(d, 0, BS);
	hdr(d, JBD2_COMMIT_BLOCK, tid);
	put64(d + 0x30, sec);
	put_be32(d + 0x38, 12345);
	if (b->compat & CV1) {
		d[0x0c] = JBD2_CRC32_CHKSUM;
		d[0x0d] = JBD2_CRC32_CHKSUM_SIZE;
		put_be32(d + 0x10, b->crc1);
	}
	if (v23(b))
		put_be32(d + 0x10, ek_crc32c(b->seed, d, BS));
	b->crc1 = ~0u;
}

static void jb_commit(struct jb *b, ek_tid_t tid)
{
	uint8_t d[BS];

	commit_build(b, d, tid, b->sec++);
	jb_put(b, b->pos, d);
	b->pos = jwrap(b, b->pos + 1);
}

static void jb_txn(struct jb *b, ek_tid_t tid, const struct jt *t, unsigned n)
{
	jb_desc(b, tid, t, n);
	jb_commit(b, tid);
}

/* write the journal superblock, open the journal and scan it */
static int jb_scan(struct jb *b, ek_tid_t seq, uint32_t start)
{
	journal_superblock_t s = { 0 };
	int err;

	s.s_header.h_magic = cpu_to_be32(JBD2_MAGIC_NUMBER);
	s.s_header.h_blocktype = cpu_to_be32(JBD2_SUPERBLOCK_V2);
	s.s_blocksize = cpu_to_be32(BS);
	s.s_maxlen = cpu_to_be32(b->maxlen);
	s.s_first = cpu_to_be32(b->first);
	s.s_sequence = cpu_to_be32(seq);
	s.s_start = cpu_to_be32(start);
	s.s_feature_compat = cpu_to_be32(b->compat);
	s.s_feature_incompat = cpu_to_be32(b->incompat);
	s.s_nr_users = cpu_to_be32(1);
	memcpy(s.s_uuid, juuid, 16);
	if (b->incompat & FFC)
		s.s_num_fc_blks = cpu_to_be32(FC_BLKS);
	if (v23(b)) {
		s.s_checksum_type = JBD2_CRC32C_CHKSUM;
		s.s_checksum = cpu_to_be32(ek_jsb_csum(&s));
	}
	unit_write(&b->u, JSTART, 0, &s, sizeof(s));
	ck_assert_int_eq(ek_journal_open(b->u.fs, 0, &b->j), 0);
	ck_assert_uint_eq(b->j->sb.last, b->last);
	ek_error_clear();
	err = ek_journal_scan(b->j, &b->log);
	b->scanned = !err;
	return err;
}

static void jb_plan(struct jb *b, ek_tid_t upto)
{
	if (b->planned)
		ek_jplan_release(&b->plan);
	ck_assert_int_eq(ek_journal_plan(b->j, &b->log, upto, &b->plan), 0);
	b->planned = true;
}

static void jb_done(struct jb *b)
{
	if (b->planned)
		ek_jplan_release(&b->plan);
	if (b->scanned)
		ek_jlog_release(&b->log);
	if (b->j)
		ek_journal_close(b->j);
	unit_fs_done(&b->u);
}

static const struct ek_jtxn *txn(const struct jb *b, ek_tid_t tid)
{
	for (size_t i = 0; i < b->log.ntxns; i++)
		if (b->log.txns[i].tid == tid)
			return &b->log.txns[i];
	ck_abort_msg("transaction %u not in the scanned log", tid);
	return NULL;
}

/* the fate of tag @idx of transaction @tid under the current plan */
static enum ek_jfate fate(const struct jb *b, ek_tid_t tid, unsigned idx)
{
	const struct ek_jtxn *t = txn(b, tid);

	ck_assert_uint_lt(idx, t->ntags);
	return ek_jplan_fate(&b->plan, b->j, t, &t->tags[idx]);
}

#define ck_fate(b, tid, idx, want)						\
	ck_assert_msg(fate((b), (tid), (idx)) == (want),			\
		      "tid %u tag %u: %s, expected %s", (unsigned)(tid), (idx),	\
		      ek_jfate_name(fate((b), (tid), (idx))), ek_jfate_name(want))

/* the plan writes home @home from transaction @tid with content @stamp */
static void expect_write(struct jb *b, uint64_t home, ek_tid_t tid, uint32_t stamp, bool magic)
{
	const struct ek_jwrite *w = ek_jplan_find(&b->plan, home);
	uint8_t got[BS], want[BS];

	ck_assert_msg(w, "home %llu not written", (unsigned long long)home);
	ck_assert_uint_eq(w->tid, tid);
	fill(want, stamp);
	if (magic)
		put_be32(want, JBD2_MAGIC_NUMBER);
	ck_assert_int_eq(ek_jplan_read(b->j, &b->plan, home, got), 0);
	ck_assert_msg(!memcmp(got, want, BS), "home %llu: not the copy stamped 0x%x",
		      (unsigned long long)home, stamp);
}

static void expect_no_write(struct jb *b, uint64_t home)
{
	uint8_t got[BS], disk[BS];

	ck_assert_msg(!ek_jplan_find(&b->plan, home), "home %llu written",
		      (unsigned long long)home);
	if (home >= NBLK)
		return;
	ck_assert_int_eq(ek_jplan_read(b->j, &b->plan, home, got), 0);
	ck_assert_int_eq(pread(b->u.fd, disk, BS, (off_t)home * BS), (ssize_t)BS);
	ck_assert(!memcmp(got, disk, BS));
}

static void ck_reason(const struct jb *b, const char *word)
{
	ck_assert_msg(b->log.end_reason && strstr(b->log.end_reason, word),
		      "end reason '%s', expected one about '%s'",
		      b->log.end_reason ? b->log.end_reason : "(null)", word);
}

/* ---- the helpers everything else relies on ------------------------------ */

START_TEST(test_crc_and_tids)
{
	/* check values of the two CRCs (CRC-32C and CRC-32/BZIP2 over "123456789") */
	ck_assert_uint_eq(ek_crc32c(~0u, "123456789", 9) ^ ~0u, 0xe3069283u);
	ck_assert_uint_eq(ek_crc32_be(~0u, "123456789", 9) ^ ~0u, 0xfc891918u);

	/* tid_gt/tid_geq: signed distance, so 0 follows 0xffffffff */
	ck_assert(ek_tid_after(1, 0));
	ck_assert(!ek_tid_after(5, 5));
	ck_assert(ek_tid_after_eq(5, 5));
	ck_assert(ek_tid_after(0, 0xffffffffu));
	ck_assert(!ek_tid_after(0xffffffffu, 0));
	ck_assert(ek_tid_after(2, 0xfffffff0u));
	ck_assert(!ek_tid_after_eq(0xfffffff0u, 2));
	ck_assert(ek_tid_after(0x7fffffffu, 0));
	/* exactly half the space apart: neither is after the other */
	ck_assert(!ek_tid_after(0x80000000u, 0));
	ck_assert(!ek_tid_after(0, 0x80000000u));
}
END_TEST

START_TEST(test_clean)
{
	struct jb b;

	jb_init(&b, 0, 0);
	ck_assert_int_eq(jb_scan(&b, 41, 0), 0);
	ck_assert_uint_eq(b.log.ntxns, 0);
	ck_assert_uint_eq(b.log.start_tid, 41);
	ck_assert_uint_eq(b.log.end_tid, 41);
	ck_assert_int_eq(b.log.status, 0);
	ck_reason(&b, "clean");
	jb_plan(&b, b.log.end_tid - 1);
	ck_assert_uint_eq(b.plan.nwrites, 0);
	jb_done(&b);
}
END_TEST

/* ---- tag layouts -------------------------------------------------------- */

static const struct layout {
	const char *what;
	uint32_t compat, incompat;
	uint32_t fill_same;	/* tags that fit when all carry SAME_UUID */
	uint32_t fill_uuid;	/* tags that fit when none does (16 bytes more each) */
} layouts[] = {
	/* 12-byte header; the n-th tag must end by 1024 (1020 with a tail) */
	{ "no csum, 32-bit", 0, 0, 126, 42 },		/* 8-byte tags */
	{ "no csum, 64bit", 0, F64, 84, 36 },		/* 12 */
	{ "csum v1, 32-bit", CV1, 0, 126, 42 },		/* 8 */
	{ "csum v2, 32-bit", 0, FV2, 100, 39 },		/* 10, tail */
	{ "csum v2, 64bit", 0, FV2 | F64, 72, 34 },	/* 14, tail */
	{ "csum v3, 32-bit", 0, FV3, 63, 32 },		/* 16, tail */
	{ "csum v3, 64bit", 0, FV3 | F64, 63, 32 },	/* 16, tail */
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

/*
 * Three tags: the first followed by the UUID, the others SAME_UUID, the
 * last LAST_TAG, and tag-shaped bytes after it that must be ignored.
 * With 64bit the third home has high bits; without, the high word of a
 * v3 tag holds junk that must not reach the home.
 */
START_TEST(test_tag_layout)
{
	const struct layout *l = &layouts[_i];
	bool wide = l->incompat & F64;
	uint64_t third = wide ? 0x500000016ull : 0x16;
	struct jt t[3] = { { 20, 0x5000 }, { 21, 0x5001 }, { third, 0x5002 } };
	uint8_t d[BS], data[BS];
	uint32_t off;
	struct jb b;

	jb_init(&b, l->compat, l->incompat);
	jb_desc_raw(&b, 7, t, 3, d);
	off = 12 + tag_size(&b) + 16 + 2 * tag_size(&b);
	for (int k = 0; k < 3; k++)	/* more tags after LAST_TAG */
		off = tag_put(&b, d, off, 900 + k, JBD2_FLAG_SAME_UUID, 0);
	if ((l->incompat & FV3) && !wide)
		put_be32(d + 12 + 8, 0xdeadbeef);	/* blocknr_high of tag 0 */
	seal_tail(&b, d);
	put_data(&b, d);
	for (int i = 0; i < 3; i++) {
		logged_copy(&t[i], data);
		put_data(&b, data);
	}
	jb_commit(&b, 7);

	ck_assert_int_eq(jb_scan(&b, 7, 1), 0);
	ck_assert_uint_eq(b.log.ntxns, 1);
	const struct ek_jtxn *x = txn(&b, 7);
	ck_assert_int_eq(x->state, EK_JTXN_COMMITTED);
	ck_assert_uint_eq(x->ntags, 3);
	ck_assert_uint_eq(x->ndesc, 1);
	ck_assert_uint_eq(x->nblocks, 5);
	ck_assert_uint_eq(x->first_jblk, 1);
	ck_assert_uint_eq(x->commit_jblk, 5);
	ck_assert_int_eq(x->commit_sec, 1000);
	ck_assert_uint_eq(x->commit_nsec, 12345);
	for (int i = 0; i < 3; i++) {
		ck_assert_uint_eq(x->tags[i].home, t[i].home);
		ck_assert_uint_eq(x->tags[i].jblk, 2 + i);
		ck_assert_int_eq(x->tags[i].csum, (l->incompat & (FV2 | FV3)) ? EK_CSUM_OK :
						   EK_CSUM_NONE);
	}
	ck_assert(!(x->tags[0].flags & JBD2_FLAG_SAME_UUID));
	ck_assert(x->tags[1].flags & JBD2_FLAG_SAME_UUID);
	ck_assert(x->tags[2].flags & JBD2_FLAG_LAST_TAG);
	ck_assert_int_eq(x->commit_csum, (l->incompat & (FV2 | FV3)) || l->compat ?
					 EK_CSUM_OK : EK_CSUM_NONE);
	ck_assert_uint_eq(b.log.end_tid, 8);
	ck_assert_uint_eq(b.log.end_jblk, 6);
	ck_reason(&b, "magic");

	jb_plan(&b, 7);
	expect_write(&b, 20, 7, 0x5000, false);
	expect_write(&b, 21, 7, 0x5001, false);
	if (wide) {
		/* 0x500000016 is past the filesystem: reported, not written */
		ck_assert_uint_eq(b.plan.outside, 1);
		ck_fate(&b, 7, 2, EK_JFATE_OUTSIDE);
		expect_no_write(&b, 0x16);
	} else {
		expect_write(&b, 0x16, 7, 0x5002, false);
	}
	jb_done(&b);
}
END_TEST

/*
 * A descriptor without LAST_TAG: the tags run until the next one would
 * overlap the checksum tail (v2/v3) or the end of the block.  A tag-shaped
 * record sits in the bytes that remain.  With @_i odd no tag has SAME_UUID,
 * so each is followed by 16 bytes of UUID.
 */
START_TEST(test_tag_fill)
{
	const struct layout *l = &layouts[_i / 2];
	bool same = !(_i & 1);
	uint32_t n = same ? l->fill_same : l->fill_uuid, off = 12, flags;
	uint32_t per, end;
	uint8_t d[BS] = { 0 }, data[BS];
	struct jb b;

	jb_init(&b, l->compat, l->incompat);
	per = tag_size(&b) + (same ? 0 : 16);
	end = BS - tail_bytes(&b);
	hdr(d, JBD2_DESCRIPTOR_BLOCK, 3);
	flags = same ? JBD2_FLAG_SAME_UUID : 0;
	for (uint32_t i = 0; i < n; i++) {
		struct jt t = { 100 + i, 0x7000 + i };

		logged_copy(&t, data);
		off = tag_put(&b, d, off, t.home, flags, data_csum(&b, 3, data));
	}
	/* the table's count: the n-th tag fits before @end, the next would not */
	ck_assert_uint_le(12 + (n - 1) * per + tag_size(&b), end);
	ck_assert_uint_gt(12 + n * per + tag_size(&b), end);
	off = 12 + n * per;
	if (off + tag_size(&b) <= BS)	/* a tag in the leftover bytes, into the tail */
		tag_put(&b, d, off, 999, JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG, 0);
	seal_tail(&b, d);
	put_data(&b, d);
	for (uint32_t i = 0; i < n; i++) {
		fill(data, 0x7000 + i);
		put_data(&b, data);
	}
	jb_commit(&b, 3);

	ck_assert_int_eq(jb_scan(&b, 3, 1), 0);
	const struct ek_jtxn *x = txn(&b, 3);
	ck_assert_msg(x->ntags == n, "%s%s: %u tags, expected %u", l->what,
		      same ? "" : " (UUIDs)", x->ntags, n);
	ck_assert_int_eq(x->state, EK_JTXN_COMMITTED);
	ck_assert_uint_eq(x->commit_jblk, 2 + n);
	ck_assert_uint_eq(x->tags[n - 1].home, 100 + n - 1);
	ck_assert_uint_eq(x->bad_tags, 0);
	jb_plan(&b, 3);
	ck_assert_uint_eq(b.plan.nwrites, n);
	expect_write(&b, 100 + n - 1, 3, 0x7000 + n - 1, false);
	jb_done(&b);
}
END_TEST

/* ---- checksums ------------------------------------------------------------ */

/*
 * Checksum v1: crc32_be over descriptor and data blocks (revoke blocks
 * not included) in the commit block.  Transactions 20 and 21 are good; 22
 * is varied by case.
 */
static const struct {
	const char *what;
	bool good;
} v1_cases[] = {
	{ "all good", true },
	{ "a data block changed after the commit", false },
	{ "a descriptor changed after the commit", false },
	{ "unused checksum (type 0, size 0, value 0)", true },
	{ "type 0 with a value", false },
	{ "crc32c type with the crc32 value", false },
	{ "size 16", false },
};

START_TEST(test_csum_v1)
{
	struct jt t20[2] = { { 30, 0x100 }, { 31, 0x101 } };
	struct jt t21[1] = { { 32, 0x110 } };
	struct jt t22[2] = { { 30, 0x120 }, { 33, 0x121 } };
	const uint64_t rv[2] = { 31, 44 };
	uint8_t d[BS];
	uint32_t desc22, commit22;
	struct jb b;

	jb_init(&b, CV1, 0);
	jb_txn(&b, 20, t20, 2);
	jb_revoke(&b, 21, rv, 2);	/* outside the v1 checksum */
	jb_txn(&b, 21, t21, 1);
	desc22 = b.pos;
	jb_desc(&b, 22, t22, 2);
	commit22 = b.pos;
	commit_build(&b, d, 22, 2000);
	switch (_i) {
	case 3:
		d[0x0c] = d[0x0d] = 0;
		put_be32(d + 0x10, 0);
		break;
	case 4:
		d[0x0c] = d[0x0d] = 0;
		break;
	case 5:
		d[0x0c] = JBD2_CRC32C_CHKSUM;
		break;
	case 6:
		d[0x0d] = 16;
		break;
	}
	jb_put(&b, commit22, d);
	if (_i == 1 || _i == 2) {
		uint32_t at = _i == 1 ? desc22 + 2 : desc22;

		jb_get(&b, at, d);
		d[BS - 1] ^= 0x40;
		jb_put(&b, at, d);
	}

	ck_assert_int_eq(jb_scan(&b, 20, 1), 0);
	ck_assert_uint_eq(b.log.ntxns, 3);
	ck_assert_int_eq(b.log.status, 0);
	ck_assert_int_eq(txn(&b, 20)->state, EK_JTXN_COMMITTED);
	ck_assert_int_eq(txn(&b, 21)->commit_csum, EK_CSUM_OK);
	ck_assert_uint_eq(txn(&b, 21)->nrevokes, 2);
	if (v1_cases[_i].good) {
		ck_assert_int_eq(txn(&b, 22)->state, EK_JTXN_COMMITTED);
		ck_assert_uint_eq(b.log.end_tid, 23);
	} else {
		ck_assert_msg(txn(&b, 22)->state == EK_JTXN_BAD_COMMIT, "%s", v1_cases[_i].what);
		ck_assert_int_eq(txn(&b, 22)->commit_csum, EK_CSUM_BAD);
		ck_assert_uint_eq(b.log.end_tid, 22);
		ck_reason(&b, "checksum");
	}
	jb_plan(&b, b.log.end_tid - 1);
	if (v1_cases[_i].good) {
		expect_write(&b, 30, 22, 0x120, false);
		expect_write(&b, 33, 22, 0x121, false);
	} else {
		/* replay stops before transaction 22 */
		expect_write(&b, 30, 20, 0x100, false);
		expect_no_write(&b, 33);
		ck_fate(&b, 22, 0, EK_JFATE_NOT_COMMITTED);
	}
	expect_no_write(&b, 31);	/* revoked in 21 */
	expect_write(&b, 32, 21, 0x110, false);
	jb_done(&b);
}
END_TEST

/* v2 and v3: a commit block whose crc32c fails ends replay before it */
START_TEST(test_csum_commit_v23)
{
	struct jt t[2] = { { 40, 0x200 }, { 41, 0x201 } };
	struct jt u[2] = { { 40, 0x210 }, { 42, 0x211 } };
	uint8_t d[BS];
	uint32_t c;
	struct jb b;

	jb_init(&b, 0, _i ? FV3 : FV2);
	jb_txn(&b, 9, t, 2);
	jb_desc(&b, 10, u, 2);
	c = b.pos;
	jb_commit(&b, 10);
	jb_get(&b, c, d);
	d[0x3c] ^= 1;		/* a byte past the commit time: only the crc notices */
	jb_put(&b, c, d);

	ck_assert_int_eq(jb_scan(&b, 9, 1), 0);
	ck_assert_int_eq(b.log.status, 0);
	ck_assert_uint_eq(b.log.ntxns, 2);
	ck_assert_int_eq(txn(&b, 9)->commit_csum, EK_CSUM_OK);
	ck_assert_int_eq(txn(&b, 10)->state, EK_JTXN_BAD_COMMIT);
	ck_assert_int_eq(txn(&b, 10)->commit_csum, EK_CSUM_BAD);
	ck_assert_uint_eq(txn(&b, 10)->commit_jblk, c);
	ck_assert(!txn(&b, 10)->desc_csum_bad);
	ck_assert_uint_eq(b.log.end_tid, 10);
	ck_reason(&b, "checksum");
	jb_plan(&b, b.log.end_tid - 1);
	expect_write(&b, 40, 9, 0x200, false);
	expect_write(&b, 41, 9, 0x201, false);
	expect_no_write(&b, 42);
	ck_fate(&b, 10, 0, EK_JFATE_NOT_COMMITTED);
	jb_done(&b);
}
END_TEST

/*
 * What apply leaves after a bad commit checksum in transaction 6 (5 is
 * good): replay stops before 6 in every case.  Whether the kernel also
 * marks a failed commit (jbd2 j_failed_commit; e2fsck: s_errno, so the
 * filesystem gets EXT4_ERROR_FS):
 *  - without async_commit: yes;
 *  - with async_commit: no, an interrupted commit, unless checksum v1
 *    finds the commit block of the transaction after it.
 */
static const struct {
	const char *what;
	uint32_t compat, incompat;
	bool next_committed;	/* transaction 7 follows with a good commit */
	bool failed;
} commit_cases[] = {
	{ "v3", 0, FV3, false, true },
	{ "v3 async", 0, FV3 | FASYNC, false, false },
	{ "v3 async, next committed", 0, FV3 | FASYNC, true, false },
	{ "v1", CV1, 0, false, true },
	{ "v1 async", CV1, FASYNC, false, false },
	{ "v1 async, next committed", CV1, FASYNC, true, true },
	{ "v1, next committed", CV1, 0, true, true },
};

START_TEST(test_bad_commit_apply)
{
	struct jt t5[1] = { { 50, 0x500 } }, t6[1] = { { 51, 0x600 } }, t7[1] = { { 52, 0x700 } };
	struct ext4_super_block sb;
	journal_superblock_t js;
	uint8_t d[BS], home[BS], want[BS];
	uint32_t c;
	struct jb b;

	jb_init(&b, commit_cases[_i].compat, commit_cases[_i].incompat);
	jb_txn(&b, 5, t5, 1);
	jb_desc(&b, 6, t6, 1);
	c = b.pos;
	jb_commit(&b, 6);
	jb_get(&b, c, d);
	put_be32(d + 0x10, get_be32(d + 0x10) ^ 0x80);	/* the stored checksum */
	jb_put(&b, c, d);
	if (commit_cases[_i].next_committed)
		jb_txn(&b, 7, t7, 1);

	ck_assert_int_eq(jb_scan(&b, 5, 1), 0);
	ck_assert_int_eq(b.log.status, 0);
	ck_assert_uint_eq(b.log.end_tid, 6);
	ck_assert_int_eq(txn(&b, 6)->state, EK_JTXN_BAD_COMMIT);
	jb_plan(&b, b.log.end_tid - 1);
	ck_assert_uint_eq(b.plan.nwrites, 1);
	expect_write(&b, 50, 5, 0x500, false);
	expect_no_write(&b, 51);
	expect_no_write(&b, 52);

	ck_assert_int_eq(ek_journal_apply(b.j, &b.log, &b.plan, NULL, 1700000000), 0);
	ck_assert_int_eq(pread(b.u.fd, &sb, sizeof(sb), 1024), (ssize_t)sizeof(sb));
	ck_assert_msg(!!(le16_to_cpu(sb.s_state) & EXT4_ERROR_FS) == commit_cases[_i].failed,
		      "%s: error state %d, expected %d", commit_cases[_i].what,
		      !!(le16_to_cpu(sb.s_state) & EXT4_ERROR_FS), commit_cases[_i].failed);
	jb_get(&b, 0, &js);
	ck_assert_uint_eq(be32_to_cpu(js.s_start), 0);
	ck_assert_uint_eq(be32_to_cpu(js.s_errno), 0);	/* carried into the superblock */
	ck_assert_uint_eq(be32_to_cpu(js.s_sequence), 6 + 1);
	fill(want, 0x500);
	ck_assert_int_eq(pread(b.u.fd, home, BS, 50 * BS), (ssize_t)BS);
	ck_assert(!memcmp(home, want, BS));
	ck_assert_int_eq(pread(b.u.fd, home, BS, 51 * BS), (ssize_t)BS);
	fill(want, 0x600);
	ck_assert(memcmp(home, want, BS));
	jb_done(&b);
}
END_TEST

/*
 * The commit-time rule (kernel fc750a3b44bd, for stale blocks left by
 * lazy journal init): a bad descriptor or revoke checksum, or a bad commit
 * checksum, in transaction 12 after a good 11 committed at time 5000.
 */
enum { BAD_DESC = 1, BAD_REVOKE = 2, BAD_COMMIT = 4, NO_COMMIT = 8 };
static const struct {
	const char *what;
	unsigned bad;
	uint64_t sec;		/* commit time of transaction 12 */
	int status;		/* -EK_BADCRC: recovery refused */
	int state;		/* of 12, -1: dropped from the log (stale) */
} time_cases[] = {
	{ "bad descriptor, newer", BAD_DESC, 5001, -EK_BADCRC, EK_JTXN_BAD_COMMIT },
	{ "bad descriptor, same time", BAD_DESC, 5000, -EK_BADCRC, EK_JTXN_BAD_COMMIT },
	{ "bad descriptor, older", BAD_DESC, 4999, 0, -1 },
	{ "bad revoke block, newer", BAD_REVOKE, 6000, -EK_BADCRC, EK_JTXN_BAD_COMMIT },
	{ "bad revoke block, older", BAD_REVOKE, 100, 0, -1 },
	{ "bad commit, older", BAD_COMMIT, 4000, 0, -1 },
	{ "bad commit, newer", BAD_COMMIT, 5001, 0, EK_JTXN_BAD_COMMIT },
	/* commit times are u64 in jbd2: the top bit makes it newer, not older */
	{ "bad commit, time with the top bit", BAD_COMMIT, 0x8000000000000000ull, 0,
	  EK_JTXN_BAD_COMMIT },
	{ "bad descriptor, time with the top bit", BAD_DESC, 0xffffffff00000000ull, -EK_BADCRC,
	  EK_JTXN_BAD_COMMIT },
	/* the commit time is judged before the commit checksum */
	{ "bad descriptor and commit, newer", BAD_DESC | BAD_COMMIT, 5001, -EK_BADCRC,
	  EK_JTXN_BAD_COMMIT },
	{ "bad descriptor and commit, older", BAD_DESC | BAD_COMMIT, 10, 0, -1 },
	{ "bad descriptor, no commit", BAD_DESC | NO_COMMIT, 0, 0, EK_JTXN_TORN },
};

START_TEST(test_commit_time)
{
	struct jt t11[1] = { { 60, 0x1100 } }, t12[2] = { { 60, 0x1200 }, { 61, 0x1201 } };
	const uint64_t rv[1] = { 62 };
	unsigned bad = time_cases[_i].bad;
	uint8_t d[BS];
	uint32_t at_desc, at_rev;
	struct jb b;

	jb_init(&b, 0, FV3 | F64);
	b.sec = 5000;
	jb_txn(&b, 11, t11, 1);
	at_rev = b.pos;
	jb_revoke(&b, 12, rv, 1);
	at_desc = b.pos;
	jb_desc(&b, 12, t12, 2);
	if (!(bad & NO_COMMIT)) {
		commit_build(&b, d, 12, time_cases[_i].sec);
		if (bad & BAD_COMMIT)
			d[0x40] ^= 1;
		jb_put(&b, b.pos, d);
	}
	if (bad & BAD_DESC) {
		jb_get(&b, at_desc, d);
		d[BS - 8] ^= 1;	/* unused descriptor space, before the tail */
		jb_put(&b, at_desc, d);
	}
	if (bad & BAD_REVOKE) {
		jb_get(&b, at_rev, d);
		d[BS - 1] ^= 1;	/* the tail itself */
		jb_put(&b, at_rev, d);
	}

	ck_assert_int_eq(jb_scan(&b, 11, 1), 0);
	ck_assert_msg(b.log.status == time_cases[_i].status, "%s: status %d, expected %d",
		      time_cases[_i].what, b.log.status, time_cases[_i].status);
	ck_assert_int_eq(txn(&b, 11)->state, EK_JTXN_COMMITTED);
	if (time_cases[_i].state < 0) {
		ck_assert_msg(b.log.ntxns == 1, "%s: stale transaction kept", time_cases[_i].what);
		ck_reason(&b, "stale");
	} else {
		ck_assert_uint_eq(b.log.ntxns, 2);
		ck_assert_msg((int)txn(&b, 12)->state == time_cases[_i].state,
			      "%s: state %d, expected %d", time_cases[_i].what,
			      txn(&b, 12)->state, time_cases[_i].state);
		ck_assert_int_eq(txn(&b, 12)->desc_csum_bad, !!(bad & (BAD_DESC | BAD_REVOKE)));
	}
	if (b.log.status)
		ck_assert_msg(strstr(ek_error_msg(b.log.status), "12"), "message '%s'",
			      ek_error_msg(b.log.status));
	/* whatever else happens, transaction 12 is never replayed */
	ck_assert_uint_eq(b.log.end_tid, 12);
	jb_plan(&b, b.log.end_tid - 1);
	expect_write(&b, 60, 11, 0x1100, false);
	expect_no_write(&b, 61);
	ck_assert_uint_eq(b.plan.nrevokes, 0);
	jb_done(&b);
}
END_TEST

/*
 * A logged block whose tag checksum fails is skipped and counted; the
 * rest of the transaction replays.  An older good copy of the same home
 * then stays the one written; a revoked copy is "revoked", not "bad".
 */
START_TEST(test_bad_tag_csum)
{
	struct jt t30[4] = { { 70, 0x3000 }, { 71, 0x3001, 0, true }, { 72, 0x3002 },
			     { 74, 0x3004, 0, true } };
	struct jt t31[3] = { { 70, 0x3100 }, { 72, 0x3102, 0, true }, { 73, 0x3103 } };
	const uint64_t rv[1] = { 74 };
	struct jb b;

	jb_init(&b, 0, _i ? FV3 : FV2);
	jb_txn(&b, 30, t30, 4);
	jb_revoke(&b, 31, rv, 1);
	jb_txn(&b, 31, t31, 3);

	ck_assert_int_eq(jb_scan(&b, 30, 1), 0);
	ck_assert_int_eq(b.log.status, 0);
	ck_assert_uint_eq(b.log.end_tid, 32);
	ck_assert_uint_eq(txn(&b, 30)->bad_tags, 2);
	ck_assert_uint_eq(txn(&b, 31)->bad_tags, 1);
	ck_assert_int_eq(txn(&b, 30)->tags[1].csum, EK_CSUM_BAD);
	ck_assert_int_eq(txn(&b, 30)->tags[2].csum, EK_CSUM_OK);
	ck_assert_int_eq(txn(&b, 30)->state, EK_JTXN_COMMITTED);
	ck_assert_int_eq(txn(&b, 31)->state, EK_JTXN_COMMITTED);

	jb_plan(&b, 31);
	ck_assert_uint_eq(b.plan.bad_csum, 2);	/* 71 in 30, 72 in 31 */
	ck_assert_uint_eq(b.plan.revoked, 1);	/* 74 in 30, bad as well */
	ck_assert_uint_eq(b.plan.superseded, 1);	/* 70 in 30 */
	expect_write(&b, 70, 31, 0x3100, false);
	expect_no_write(&b, 71);
	expect_write(&b, 72, 30, 0x3002, false);	/* 31's copy is bad */
	expect_write(&b, 73, 31, 0x3103, false);
	expect_no_write(&b, 74);
	ck_fate(&b, 30, 0, EK_JFATE_SUPERSEDED);
	ck_fate(&b, 30, 1, EK_JFATE_BAD_CSUM);
	ck_fate(&b, 30, 2, EK_JFATE_WRITTEN);
	ck_fate(&b, 30, 3, EK_JFATE_REVOKED);
	ck_fate(&b, 31, 1, EK_JFATE_BAD_CSUM);
	jb_done(&b);
}
END_TEST

/* ---- where the log is ----------------------------------------------------- */

/*
 * A log that starts 4 blocks before the end of the ring: transaction 10's
 * descriptor and three data blocks fit, two data blocks and the commit
 * come after the wrap to s_first, then transaction 11.  With fast_commit
 * the ring ends before the fast-commit area, which holds decoys: what a
 * scan that wrapped at s_maxlen would read instead.
 */
START_TEST(test_log_wrap)
{
	struct jt t10[5] = { { 80, 0x8000 }, { 81, 0x8001 }, { 82, 0x8002 }, { 83, 0x8003 },
			     { 84, 0x8004 } };
	struct jt t11[1] = { { 80, 0x8100 } };
	uint8_t d[BS];
	uint32_t start;
	struct jb b;

	jb_init(&b, 0, FV3 | (_i ? FFC : 0));
	start = b.last - 4;
	b.pos = start;
	if (_i) {
		/* decoys in the fast-commit area */
		for (uint32_t k = 0; k < 2; k++) {
			fill(d, 0xdec0 + k);
			jb_put(&b, b.last + k, d);
		}
		commit_build(&b, d, 10, 1);
		jb_put(&b, b.last + 2, d);
	}
	jb_txn(&b, 10, t10, 5);
	ck_assert_uint_eq(b.pos, b.first + 3);
	jb_txn(&b, 11, t11, 1);

	ck_assert_int_eq(jb_scan(&b, 10, start), 0);
	ck_assert_uint_eq(b.log.ntxns, 2);
	const struct ek_jtxn *x = txn(&b, 10);
	ck_assert_int_eq(x->state, EK_JTXN_COMMITTED);
	ck_assert_uint_eq(x->first_jblk, start);
	ck_assert_uint_eq(x->nblocks, 7);
	ck_assert_uint_eq(x->tags[0].jblk, b.last - 3);
	ck_assert_uint_eq(x->tags[2].jblk, b.last - 1);
	ck_assert_uint_eq(x->tags[3].jblk, b.first);
	ck_assert_uint_eq(x->tags[4].jblk, b.first + 1);
	ck_assert_uint_eq(x->commit_jblk, b.first + 2);
	ck_assert_uint_eq(txn(&b, 11)->first_jblk, b.first + 3);
	ck_assert_int_eq(txn(&b, 11)->state, EK_JTXN_COMMITTED);
	ck_assert_uint_eq(b.log.end_tid, 12);
	ck_assert_uint_eq(b.log.end_jblk, b.first + 6);
	jb_plan(&b, 11);
	expect_write(&b, 80, 11, 0x8100, false);
	expect_write(&b, 82, 10, 0x8002, false);
	expect_write(&b, 83, 10, 0x8003, false);	/* after the wrap */
	expect_write(&b, 84, 10, 0x8004, false);
	jb_done(&b);
}
END_TEST

/*
 * Transaction ids across 0xffffffff -> 0: a revoke in 0 cancels copies
 * logged in 0xfffffffe and 0xffffffff, not the one in 1.
 */
START_TEST(test_tid_wrap)
{
	struct jt ta[3] = { { 90, 0xa000 }, { 91, 0xa001 }, { 92, 0xa002 } };
	struct jt tb[2] = { { 91, 0xb001 }, { 93, 0xb003 } };
	struct jt tc[1] = { { 94, 0xc004 } };
	struct jt td[1] = { { 91, 0xd001 } };
	const uint64_t rv[2] = { 90, 91 };
	struct jb b;

	jb_init(&b, 0, _i ? FV3 : 0);
	jb_txn(&b, 0xfffffffeu, ta, 3);
	jb_txn(&b, 0xffffffffu, tb, 2);
	jb_revoke(&b, 0, rv, 2);
	jb_txn(&b, 0, tc, 1);
	jb_txn(&b, 1, td, 1);

	ck_assert_int_eq(jb_scan(&b, 0xfffffffeu, 1), 0);
	ck_assert_uint_eq(b.log.ntxns, 4);
	ck_assert_uint_eq(b.log.start_tid, 0xfffffffeu);
	ck_assert_uint_eq(b.log.end_tid, 2);
	ck_assert_uint_eq(b.log.txns[2].tid, 0);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(b.log.txns[i].state, EK_JTXN_COMMITTED);

	jb_plan(&b, b.log.end_tid - 1);
	ck_assert_uint_eq(b.plan.upto, 1);
	ck_assert_uint_eq(b.plan.nrevokes, 2);
	ck_assert_uint_eq(b.plan.revokes[0].home, 90);
	ck_assert_uint_eq(b.plan.revokes[0].tid, 0);
	expect_no_write(&b, 90);
	expect_write(&b, 91, 1, 0xd001, false);
	expect_write(&b, 92, 0xfffffffeu, 0xa002, false);
	expect_write(&b, 93, 0xffffffffu, 0xb003, false);
	expect_write(&b, 94, 0, 0xc004, false);
	ck_fate(&b, 0xfffffffeu, 0, EK_JFATE_REVOKED);
	ck_fate(&b, 0xfffffffeu, 1, EK_JFATE_REVOKED);
	ck_fate(&b, 0xffffffffu, 0, EK_JFATE_REVOKED);
	ck_fate(&b, 1, 0, EK_JFATE_WRITTEN);

	/* up to 0xffffffff: 0 and 1 (and the revoke in 0) are left out */
	jb_plan(&b, 0xffffffffu);
	ck_assert_uint_eq(b.plan.nrevokes, 0);
	expect_write(&b, 90, 0xfffffffeu, 0xa000, false);
	expect_write(&b, 91, 0xffffffffu, 0xb001, false);
	expect_no_write(&b, 94);
	ck_fate(&b, 0, 0, EK_JFATE_NOT_COMMITTED);
	ck_fate(&b, 1, 0, EK_JFATE_NOT_COMMITTED);
	ck_fate(&b, 0xfffffffeu, 0, EK_JFATE_WRITTEN);
	ck_fate(&b, 0xfffffffeu, 1, EK_JFATE_SUPERSEDED);
	jb_done(&b);
}
END_TEST

/*
 * A block that began with the jbd2 magic is logged with its first four
 * bytes zeroed and JBD2_FLAG_ESCAPE; the tag checksum (and checksum v1)
 * cover the escaped copy.  ek_jplan_read and apply put the magic back;
 * the journal copy itself stays escaped.
 */
START_TEST(test_escape)
{
	static const uint32_t feats[][2] = { { 0, 0 }, { CV1, 0 }, { 0, FV2 }, { 0, FV3 | F64 } };
	struct jt t[3] = { { 100, 0xe000, JBD2_FLAG_ESCAPE }, { 101, 0xe001 },
			   { 102, 0xe002, JBD2_FLAG_ESCAPE } };
	struct jt u[1] = { { 102, 0xe102 } };
	uint8_t got[BS], want[BS];
	struct jb b;

	jb_init(&b, feats[_i][0], feats[_i][1]);
	jb_txn(&b, 4, t, 3);
	jb_txn(&b, 5, u, 1);

	ck_assert_int_eq(jb_scan(&b, 4, 1), 0);
	ck_assert_uint_eq(b.log.ntxns, 2);
	const struct ek_jtxn *x = txn(&b, 4);
	ck_assert_int_eq(x->state, EK_JTXN_COMMITTED);
	ck_assert_uint_eq(x->bad_tags, 0);
	ck_assert(x->tags[0].flags & JBD2_FLAG_ESCAPE);
	ck_assert(!(x->tags[1].flags & JBD2_FLAG_ESCAPE));
	jb_plan(&b, 5);
	ck_assert(ek_jplan_find(&b.plan, 100)->flags & JBD2_FLAG_ESCAPE);
	expect_write(&b, 100, 4, 0xe000, true);
	expect_write(&b, 101, 4, 0xe001, false);
	/* superseded by a copy that was not escaped */
	expect_write(&b, 102, 5, 0xe102, false);
	ck_assert(!(ek_jplan_find(&b.plan, 102)->flags & JBD2_FLAG_ESCAPE));
	/* the journal keeps the escaped copy */
	ck_assert_int_eq(ek_journal_read(b.j, x->tags[0].jblk, got), 0);
	ck_assert_uint_eq(get_be32(got), 0);

	ck_assert_int_eq(ek_journal_apply(b.j, &b.log, &b.plan, NULL, 1700000000), 0);
	fill(want, 0xe000);
	put_be32(want, JBD2_MAGIC_NUMBER);
	ck_assert_int_eq(pread(b.u.fd, got, BS, 100 * BS), (ssize_t)BS);
	ck_assert(!memcmp(got, want, BS));
	fill(want, 0xe102);
	ck_assert_int_eq(pread(b.u.fd, got, BS, 102 * BS), (ssize_t)BS);
	ck_assert(!memcmp(got, want, BS));
	jb_done(&b);
}
END_TEST

/* ---- revokes ---------------------------------------------------------------- */

/*
 * Scope and order of revokes (jbd2_journal_set_revoke keeps the highest
 * tid per block; test_revoke: record tid >= the copy's tid):
 *   10 logs 110..113
 *   11 revokes 110, 113, 117 (and, with 64bit, 0x1_0000_0070 = 2^32 + 112);
 *      logs 111, 113, 114, 117
 *   12 logs 110, 115, 117, then revokes 115 after the descriptor
 *   13 revokes 114, 116 (never logged) and 117
 *   14 logs 114
 */
START_TEST(test_revoke_scope)
{
	bool wide = _i;
	struct jt t10[4] = { { 110, 0x10 }, { 111, 0x11 }, { 112, 0x12 }, { 113, 0x13 } };
	struct jt t11[4] = { { 111, 0x21 }, { 113, 0x23 }, { 114, 0x24 }, { 117, 0x27 } };
	struct jt t12[3] = { { 110, 0x30 }, { 115, 0x35 }, { 117, 0x37 } };
	struct jt t14[1] = { { 114, 0x54 } };
	const uint64_t r11[4] = { 110, 113, 117, 0x100000070ull };
	const uint64_t r12[1] = { 115 };
	const uint64_t r13[3] = { 114, 116, 117 };
	struct jb b;

	jb_init(&b, 0, FV3 | (wide ? F64 : 0));
	jb_txn(&b, 10, t10, 4);
	jb_revoke(&b, 11, r11, wide ? 4 : 3);
	jb_txn(&b, 11, t11, 4);
	jb_desc(&b, 12, t12, 3);
	jb_revoke(&b, 12, r12, 1);
	jb_commit(&b, 12);
	jb_revoke(&b, 13, r13, 3);
	jb_commit(&b, 13);
	jb_txn(&b, 14, t14, 1);

	ck_assert_int_eq(jb_scan(&b, 10, 1), 0);
	ck_assert_uint_eq(b.log.ntxns, 5);
	ck_assert_uint_eq(b.log.end_tid, 15);
	ck_assert_uint_eq(txn(&b, 11)->nrevokes, wide ? 4 : 3);
	ck_assert_uint_eq(txn(&b, 11)->nrevoke_blocks, 1);
	ck_assert_uint_eq(txn(&b, 11)->revokes[1], 113);
	if (wide)
		ck_assert_uint_eq(txn(&b, 11)->revokes[3], 0x100000070ull);
	ck_assert_uint_eq(txn(&b, 13)->ntags, 0);
	ck_assert_uint_eq(txn(&b, 13)->nrevokes, 3);
	ck_assert_uint_eq(txn(&b, 13)->nblocks, 2);

	jb_plan(&b, 14);
	ck_assert_uint_eq(b.plan.nrevokes, wide ? 7 : 6);
	static const struct { uint64_t home; ek_tid_t tid; } rv[] = {
		{ 110, 11 }, { 113, 11 }, { 114, 13 }, { 115, 12 }, { 116, 13 }, { 117, 13 },
		{ 0x100000070ull, 11 },
	};
	for (size_t i = 0; i < b.plan.nrevokes; i++) {
		ck_assert_uint_eq(b.plan.revokes[i].home, rv[i].home);
		ck_assert_uint_eq(b.plan.revokes[i].tid, rv[i].tid);
	}
	expect_write(&b, 110, 12, 0x30, false);		/* logged after its revoke */
	expect_write(&b, 111, 11, 0x21, false);		/* newest copy */
	expect_write(&b, 112, 10, 0x12, false);		/* 2^32 + 112 is another block */
	expect_no_write(&b, 113);			/* revoked in the same transaction */
	expect_write(&b, 114, 14, 0x54, false);
	expect_no_write(&b, 115);			/* revoke block after the descriptor */
	expect_no_write(&b, 116);
	expect_no_write(&b, 117);			/* highest revoke (13) wins over 11 */
	ck_assert_uint_eq(b.plan.nwrites, 4);
	ck_assert_uint_eq(b.plan.superseded, 1);	/* 111 in 10 */
	/* 110@10, 113@10, 113@11, 114@11, 117@11, 115@12, 117@12 */
	ck_assert_uint_eq(b.plan.revoked, 7);
	ck_fate(&b, 10, 0, EK_JFATE_REVOKED);
	ck_fate(&b, 10, 1, EK_JFATE_SUPERSEDED);
	ck_fate(&b, 10, 2, EK_JFATE_WRITTEN);
	ck_fate(&b, 11, 1, EK_JFATE_REVOKED);
	ck_fate(&b, 11, 2, EK_JFATE_REVOKED);
	ck_fate(&b, 12, 0, EK_JFATE_WRITTEN);
	ck_fate(&b, 12, 1, EK_JFATE_REVOKED);
	ck_fate(&b, 12, 2, EK_JFATE_REVOKED);
	ck_fate(&b, 14, 0, EK_JFATE_WRITTEN);

	/* up to 12: the revokes in 13 do not count yet */
	jb_plan(&b, 12);
	expect_write(&b, 114, 11, 0x24, false);
	expect_write(&b, 117, 12, 0x37, false);
	ck_fate(&b, 11, 2, EK_JFATE_WRITTEN);
	ck_fate(&b, 14, 0, EK_JFATE_NOT_COMMITTED);
	jb_done(&b);
}
END_TEST

/*
 * r_count of a revoke block (bytes used, header included).  The kernel's
 * scan_revoke_records refuses one past the block (less the tail) with
 * -EINVAL, which fails recovery, and reads whole records below r_count
 * only: a count below the header or between records just means fewer.
 * Transaction 5 logs 120; transaction 6 has the revoke block (records
 * 121, 122, ... filling the block) and logs 1990.
 */
static const struct {
	const char *what;
	uint32_t incompat;
	uint32_t rcount;	/* with from_end: added to the largest valid count */
	bool from_end;
	bool torn;		/* transaction 6 has no commit block */
	int err;
	uint32_t nrev;
	bool warn;
} rcount_cases[] = {
	{ "zero", 0, 0, false, false, 0, 0, true },
	{ "inside the header", 0, 15, false, false, 0, 0, true },
	{ "header only", 0, 16, false, false, 0, 0, false },
	{ "three and a half records", 0, 16 + 3 * 4 + 2, false, false, 0, 3, false },
	{ "three and a half 64-bit records", F64, 16 + 3 * 8 + 4, false, false, 0, 3, false },
	{ "whole block", 0, 0, true, false, 0, (BS - 16) / 4, false },
	{ "whole block, 64bit", F64, 0, true, false, 0, (BS - 16) / 8, false },
	{ "up to the tail", FV3, 0, true, false, 0, (BS - 4 - 16) / 4, false },
	{ "up to the tail, 64bit", FV3 | F64, 0, true, false, 0, (BS - 4 - 16) / 8, false },
	{ "one past the block", 0, 1, true, false, -EK_CORRUPT, 0, false },
	{ "into the tail", FV3, 1, true, false, -EK_CORRUPT, 0, false },
	{ "into the tail, 64bit", FV2 | F64, 2, true, false, -EK_CORRUPT, 0, false },
	{ "huge", FV3, 0xffffffffu, false, false, -EK_CORRUPT, 0, false },
	{ "huge, in a torn transaction", FV3, 0xfffffff0u, false, true, 0, 0, false },
	{ "past the block, in a torn transaction", 0, 100, true, true, 0, 0, false },
};

START_TEST(test_rcount)
{
	struct jt t5[1] = { { 120, 0x9500 } }, t6[1] = { { 1990, 0x9600 } };
	uint32_t rs = (rcount_cases[_i].incompat & F64) ? 8 : 4, rc, off;
	uint8_t d[BS] = { 0 };
	size_t warn0;
	struct jb b;
	int err;

	jb_init(&b, 0, rcount_cases[_i].incompat);
	jb_txn(&b, 5, t5, 1);
	rc = rcount_cases[_i].rcount;
	if (rcount_cases[_i].from_end)
		rc += BS - tail_bytes(&b);
	hdr(d, JBD2_REVOKE_BLOCK, 6);
	put_be32(d + 12, rc);
	for (off = 16; off + rs <= BS - tail_bytes(&b); off += rs) {
		if (rs == 8)
			put64(d + off, 121 + (off - 16) / 8);
		else
			put_be32(d + off, 121 + (off - 16) / 4);
	}
	seal_tail(&b, d);
	jb_put(&b, b.pos, d);
	b.pos++;
	jb_desc(&b, 6, t6, 1);
	if (!rcount_cases[_i].torn)
		jb_commit(&b, 6);

	warn0 = b.u.fs->nwarnings;
	/* a refused recovery is a status: the scan keeps what it found */
	err = jb_scan(&b, 5, 1);
	ck_assert_int_eq(err, 0);
	ck_assert_msg(b.log.status == rcount_cases[_i].err, "%s: status %d (%s), expected %d",
		      rcount_cases[_i].what, b.log.status, b.log.refused, rcount_cases[_i].err);
	ck_assert_uint_eq(b.log.ntxns, 2);
	const struct ek_jtxn *x = txn(&b, 6);
	ck_assert_int_eq(x->state, rcount_cases[_i].torn ? EK_JTXN_TORN : EK_JTXN_COMMITTED);
	ck_assert_uint_eq(x->nrevoke_blocks, 1);
	ck_assert_uint_eq(x->ntags, 1);		/* the scan went on past the revoke block */
	ck_assert_uint_eq(b.log.end_tid, rcount_cases[_i].torn ? 6 : 7);
	if (b.log.status) {
		ck_assert_msg(strstr(b.log.refused, "r_count") && strstr(b.log.refused, "block 4"),
			      "reason '%s'", b.log.refused);
		ck_assert_str_eq(ek_error_msg(b.log.status), b.log.refused);
		ck_assert_uint_eq(x->bad_revoke_jblk, 4);
		ck_assert_uint_eq(x->nrevokes, 0);
	} else if (!rcount_cases[_i].torn) {
		ck_assert_msg(x->nrevokes == rcount_cases[_i].nrev, "%s: %u records, expected %u",
			      rcount_cases[_i].what, x->nrevokes, rcount_cases[_i].nrev);
		if (x->nrevokes)
			ck_assert_uint_eq(x->revokes[x->nrevokes - 1], 121 + x->nrevokes - 1);
	}
	ck_assert_msg((b.u.fs->nwarnings > warn0) == rcount_cases[_i].warn,
		      "%s: warnings %zu -> %zu", rcount_cases[_i].what, warn0,
		      (size_t)b.u.fs->nwarnings);
	if (rcount_cases[_i].warn)
		ck_assert(strstr(b.u.fs->warnings[b.u.fs->nwarnings - 1], "r_count"));
	jb_plan(&b, b.log.end_tid - 1);
	expect_write(&b, 120, 5, 0x9500, false);
	if (!rcount_cases[_i].torn)
		expect_write(&b, 1990, 6, 0x9600, false);
	jb_done(&b);
}
END_TEST

/* ---- how the log ends --------------------------------------------------------- */

enum { END_TORN, END_WRONG_SEQ, END_STALE, END_TYPE, END_DESC_SEQ };
static const struct {
	const char *what;
	const char *reason;	/* a word of end_reason */
	ek_tid_t end_tid;
	int state6;		/* state of transaction 6, -1: none */
} end_cases[] = {
	[END_TORN] = { "descriptor without commit", "magic", 6, EK_JTXN_TORN },
	[END_WRONG_SEQ] = { "commit with the next sequence", "sequence", 6, EK_JTXN_TORN },
	[END_STALE] = { "an older transaction after the last commit", "sequence", 7,
			EK_JTXN_COMMITTED },
	[END_TYPE] = { "unknown block type", "type", 6, EK_JTXN_TORN },
	[END_DESC_SEQ] = { "a descriptor of the wrong transaction", "sequence", 6, -1 },
};

START_TEST(test_log_end)
{
	struct jt t5[2] = { { 140, 0x5500 }, { 141, 0x5501 } };
	struct jt t6[2] = { { 141, 0x5601 }, { 142, 0x5602 } };
	uint8_t d[BS];
	uint32_t after5, after6;
	struct jb b;

	jb_init(&b, 0, FV3);
	jb_txn(&b, 5, t5, 2);
	after5 = b.pos;
	switch (_i) {
	case END_TORN:
		jb_desc(&b, 6, t6, 2);
		break;
	case END_WRONG_SEQ:
		jb_desc(&b, 6, t6, 2);
		jb_commit(&b, 7);
		break;
	case END_STALE:
		jb_txn(&b, 6, t6, 2);
		jb_txn(&b, 2, t5, 2);	/* left over from an older pass */
		break;
	case END_TYPE:
		jb_desc(&b, 6, t6, 2);
		memset(d, 0, BS);
		hdr(d, 9, 6);
		jb_put(&b, b.pos++, d);
		break;
	case END_DESC_SEQ:
		jb_desc(&b, 8, t6, 2);
		jb_commit(&b, 8);
		break;
	}
	after6 = b.pos;
	ck_assert_int_eq(jb_scan(&b, 5, 1), 0);
	ck_reason(&b, end_cases[_i].reason);
	ck_assert_int_eq(b.log.status, 0);
	ck_assert_uint_eq(b.log.start_tid, 5);
	ck_assert_msg(b.log.end_tid == end_cases[_i].end_tid, "%s: end tid %u",
		      end_cases[_i].what, b.log.end_tid);
	ck_assert_int_eq(txn(&b, 5)->state, EK_JTXN_COMMITTED);
	if (end_cases[_i].state6 < 0) {
		ck_assert_uint_eq(b.log.ntxns, 1);
		ck_assert_uint_eq(b.log.end_jblk, after5);
	} else {
		const struct ek_jtxn *x = txn(&b, 6);

		ck_assert_uint_eq(b.log.ntxns, 2);
		ck_assert_int_eq(x->state, end_cases[_i].state6);
		if (x->state == EK_JTXN_TORN)
			ck_assert_uint_eq(x->commit_jblk, 0);
		if (_i == END_TORN || _i == END_WRONG_SEQ) {
			ck_assert_uint_eq(x->ntags, 2);
			ck_assert_uint_eq(b.log.end_jblk, after6 - (_i == END_WRONG_SEQ));
		}
	}
	jb_plan(&b, b.log.end_tid - 1);
	expect_write(&b, 140, 5, 0x5500, false);
	if (end_cases[_i].state6 == EK_JTXN_COMMITTED) {
		expect_write(&b, 141, 6, 0x5601, false);
		expect_write(&b, 142, 6, 0x5602, false);
	} else {
		expect_write(&b, 141, 5, 0x5501, false);
		expect_no_write(&b, 142);
		if (end_cases[_i].state6 >= 0 && txn(&b, 6)->ntags)
			ck_fate(&b, 6, 0, EK_JFATE_NOT_COMMITTED);
	}
	jb_done(&b);
}
END_TEST

/* every block of the ring a revoke block of one transaction: the scan stops */
START_TEST(test_log_loop)
{
	uint8_t d[BS];
	struct jb b;

	jb_init(&b, 0, _i ? FV3 | FFC : 0);
	for (uint32_t k = b.first; k < b.last; k++) {
		memset(d, 0, BS);
		hdr(d, JBD2_REVOKE_BLOCK, 6);
		put_be32(d + 12, 16);
		seal_tail(&b, d);
		jb_put(&b, k, d);
	}
	ck_assert_int_eq(jb_scan(&b, 6, b.last - 1), 0);
	ck_reason(&b, "longer");
	ck_assert_uint_eq(b.log.ntxns, 1);
	ck_assert_int_eq(b.log.txns[0].state, EK_JTXN_TORN);
	ck_assert_uint_ge(b.log.txns[0].nrevoke_blocks, b.last - b.first);
	ck_assert_uint_le(b.log.txns[0].nrevoke_blocks, b.maxlen);
	ck_assert_uint_eq(b.log.end_tid, 6);
	jb_plan(&b, b.log.end_tid - 1);
	ck_assert_uint_eq(b.plan.nwrites, 0);
	jb_done(&b);
}
END_TEST

/*
 * ek_journal_commit_wset() writes a change as one transaction at the start
 * of the empty log, then home, then marks the log empty.  Pointing the
 * journal back at it must give a transaction our scan accepts in every
 * tag layout (several descriptor blocks, escaping, every checksum kind)
 * whose plan writes exactly the change.
 */
START_TEST(test_commit_wset)
{
	const struct layout *l = &layouts[_i];
	struct ek_wset *ws;
	const struct ek_jtxn *t;
	uint8_t buf[BS], disk[BS];
	unsigned n = 130;	/* more tags than one descriptor holds */
	struct jb b;

	jb_init(&b, l->compat, l->incompat);
	ck_assert_int_eq(jb_scan(&b, 7, 0), 0);		/* a clean, empty log */
	ck_assert_int_eq(ek_wset_init(b.u.fs, &ws), 0);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *blk;

		ck_assert_int_eq(ek_wset_block(ws, 200 + i, &blk), 0);
		fill(blk, 0x5000 + i);
		if (i == 3)
			put_be32(blk, JBD2_MAGIC_NUMBER);	/* must be escaped */
	}
	ck_assert_int_eq(ek_wset_seal(ws), 0);
	ck_assert_int_eq(ek_journal_commit_wset(b.j, ws, 1700000000), 0);
	ek_wset_free(ws);
	ck_assert_uint_eq(b.j->sb.start, 0);
	ck_assert_uint_eq(b.j->sb.sequence, 9);
	for (unsigned i = 0; i < n; i++) {
		fill(buf, 0x5000 + i);
		if (i == 3)
			put_be32(buf, JBD2_MAGIC_NUMBER);
		ck_assert_int_eq(pread(b.u.fd, disk, BS, (off_t)(200 + i) * BS), (ssize_t)BS);
		ck_assert_msg(!memcmp(buf, disk, BS), "%s: home %u not written", l->what, 200 + i);
	}

	/* the transaction is still in the log: point the journal at it */
	ek_jlog_release(&b.log);
	ek_journal_close(b.j);
	b.j = NULL;
	ck_assert_int_eq(jb_scan(&b, 7, b.first), 0);
	ck_assert_int_eq(b.log.status, 0);
	ck_assert_uint_eq(b.log.ntxns, 1);
	t = &b.log.txns[0];
	ck_assert_int_eq(t->state, EK_JTXN_COMMITTED);
	ck_assert_uint_eq(t->commit_sec, 1700000000);
	if (l->compat || v23(&b))
		ck_assert_int_eq(t->commit_csum, EK_CSUM_OK);
	ck_assert(!t->desc_csum_bad);
	ck_assert_uint_eq(t->bad_tags, 0);
	ck_assert_uint_ge(t->ndesc, 2);
	ck_assert_uint_eq(t->ntags, n + 1);	/* and the superblock's block */
	jb_plan(&b, 7);
	for (unsigned i = 0; i < n; i++)
		expect_write(&b, 200 + i, 7, 0x5000 + i, i == 3);
	ck_assert_ptr_nonnull(ek_jplan_find(&b.plan, 1));
	jb_done(&b);
}
END_TEST


/* ---- the recovery driver (recover.c) over the same logs ------------------ */

/* the whole file as bytes, to show a refusal wrote nothing */
static uint8_t *snapshot(const struct jb *b)
{
	size_t len = (size_t)NBLK * BS;
	uint8_t *img = malloc(len);

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(pread(b->u.fd, img, len, 0), (ssize_t)len);
	return img;
}

static void ck_block(const struct jb *b, uint64_t home, uint32_t stamp)
{
	uint8_t got[BS], want[BS];

	fill(want, stamp);
	ck_assert_int_eq(pread(b->u.fd, got, BS, (off_t)home * BS), (ssize_t)BS);
	ck_assert_msg(!memcmp(got, want, BS), "block %llu: not the copy stamped 0x%x",
		      (unsigned long long)home, stamp);
}

enum { REC_FULL, REC_UPTO, REC_REFUSED, REC_CLEAN, REC_DEFERRED, NREC };

/*
 * ek_recover_plan() then ek_recover_apply(): the plan is what the scan and
 * plan say; a bad data checksum marks the filesystem with errors; --upto
 * names what it leaves out; a log the kernel refuses is refused whole,
 * the image untouched; a clean journal plans nothing.
 */
START_TEST(test_recover)
{
	struct jt t30[3] = { { 70, 0x3000 }, { 71, 0x3001, 0, true }, { 72, 0x3002 } };
	struct jt t31[3] = { { 70, 0x3100 }, { 73, 0x3103 }, { 72, 0x3102, 0, true } };
	struct ek_recover_opts o = { .flags = EK_OPEN_RW, .journal_only = true, .now = 1700000000 };
	struct ek_recover_apply_opts a = { .now = 1700000000 };
	struct ek_recover_result res;
	struct ek_recovery *r = NULL;
	uint8_t *before, *after = NULL, d[BS], want[BS];
	struct jb b;

	jb_init(&b, 0, FV3);
	b.sec = 5000;
	jb_txn(&b, 30, t30, 3);
	if (_i == REC_REFUSED) {
		/* transaction 31's descriptor fails its checksum, a newer commit follows */
		uint32_t at = b.pos;

		jb_txn(&b, 31, t31, 3);
		jb_get(&b, at, d);
		d[BS - 8] ^= 1;
		jb_put(&b, at, d);
	} else {
		jb_txn(&b, 31, t31, 3);
	}
	ck_assert_int_eq(jb_scan(&b, 30, _i == REC_CLEAN ? 0 : 1), 0);
	ek_journal_close(b.j);	/* the driver opens its own */
	b.j = NULL;
	o.image = b.u.path;
	o.no_data_csum = _i == REC_DEFERRED;
	o.have_upto = _i == REC_UPTO;
	o.upto = 30;
	before = snapshot(&b);

	ck_assert_int_eq(ek_recover_plan(&o, &r), 0);
	switch (_i) {
	case REC_FULL:
		ck_assert(!r->clean && !r->refused);
		ck_assert_uint_eq(r->plan.upto, 31);
		ck_assert_uint_eq(r->ndiscarded, 0);
		ck_assert_uint_eq(r->plan.nwrites, 3);	/* 70 from 31, 72 from 30, 73 */
		ck_assert_uint_eq(r->plan.bad_csum, 2);	/* 71, 72 from 31 */
		/* the view after recovery, before any write */
		ck_assert_int_eq(ek_recover_overlay(r, 72, d), 0);
		fill(want, 0x3002);
		ck_assert(!memcmp(d, want, BS));
		ck_assert_int_eq(ek_recover_overlay(r, 71, d), 1);	/* stays as on disk */
		ck_assert_int_eq(ek_recover_apply(r, &a, &res), 0);
		ck_assert(res.replayed);
		ck_assert_uint_eq(res.written, 3);
		ck_block(&b, 70, 0x3100);
		ck_block(&b, 72, 0x3002);
		ck_block(&b, 73, 0x3103);
		/* the skipped copy of 71 leaves the filesystem marked with errors */
		ck_assert_int_eq(pread(b.u.fd, d, BS, EXT4_SUPERBLOCK_OFFSET), (ssize_t)BS);
		ck_assert(le16_to_cpu(((struct ext4_super_block *)d)->s_state) & EXT4_ERROR_FS);
		ek_recover_free(r);
		/* and the journal is clean now */
		ck_assert_int_eq(ek_recover_plan(&o, &r), 0);
		ck_assert(r->clean && !r->finish_only);
		break;
	case REC_DEFERRED:
		/* data checksums checked as apply reads each copy: 71 has no
		 * good copy, 72's newest fails and 30's is written instead */
		ck_assert_uint_eq(r->plan.bad_csum, 0);
		ck_assert_uint_eq(r->plan.nwrites, 4);
		ck_assert_uint_eq(r->plan.superseded, 2);
		ck_assert_int_eq(ek_recover_apply(r, &a, &res), 0);
		ck_assert_uint_eq(res.written, 3);
		ck_assert_uint_eq(r->plan.bad_csum, 2);
		ck_assert_uint_eq(r->plan.superseded, 1);
		ck_block(&b, 70, 0x3100);
		ck_block(&b, 72, 0x3002);
		ck_block(&b, 73, 0x3103);
		after = snapshot(&b);
		ck_assert_msg(!memcmp(after + 71 * BS, before + 71 * BS, BS), "71 written");
		ck_assert_int_eq(pread(b.u.fd, d, BS, EXT4_SUPERBLOCK_OFFSET), (ssize_t)BS);
		ck_assert(le16_to_cpu(((struct ext4_super_block *)d)->s_state) & EXT4_ERROR_FS);
		break;
	case REC_UPTO:
		ck_assert_uint_eq(r->plan.upto, 30);
		ck_assert_uint_eq(r->ndiscarded, 1);
		ck_assert_uint_eq(r->discarded[0], 31);
		ck_assert_uint_eq(r->plan.nwrites, 2);	/* 70 and 72 from 30 (71 is bad) */
		break;
	case REC_REFUSED:
		ck_assert_int_eq(r->refused, -EK_BADCRC);
		ck_assert_str_eq(r->refused_step, "journal");
		ck_assert_int_eq(ek_recover_apply(r, &a, &res), -EK_BADCRC);
		after = snapshot(&b);
		ck_assert_msg(!memcmp(after, before, (size_t)NBLK * BS), "a refused recovery wrote");
		break;
	case REC_CLEAN:
		ck_assert(r->clean && !r->refused);
		ck_assert_uint_eq(r->plan.nwrites, 0);
		ck_assert_int_eq(ek_recover_apply(r, &a, &res), 0);
		ck_assert(!res.replayed && !res.finished);
		after = snapshot(&b);
		ck_assert_msg(!memcmp(after, before, (size_t)NBLK * BS),
			      "recovering a clean journal wrote");
		break;
	}
	ek_recover_free(r);
	free(before);
	free(after);
	jb_done(&b);
}
END_TEST
/* ---- the block codec (jbd2.c) against the builder above ---------------------- */

static void fmt_of(const struct jb *b, struct ek_jfmt *f)
{
	struct ek_jsb sb = { .blocksize = BS, .compat = b->compat, .incompat = b->incompat };

	memcpy(sb.uuid, juuid, 16);
	ek_jfmt_init(f, &sb);
}

/*
 * Each layout: tags, tails, revoke and commit blocks that lib encodes are
 * byte for byte the builder's; what it decodes is what the builder wrote;
 * a flipped byte fails the checksum it covers.
 */
START_TEST(test_codec)
{
	const struct layout *l = &layouts[_i];
	bool wide = l->incompat & F64;
	struct jt t[3] = { { 0x21, 0x100 }, { wide ? 0x700000022ull : 0x22, 0x101, JBD2_FLAG_ESCAPE },
			   { 0x23, 0x102 } };
	uint64_t homes[3] = { 0x31, wide ? 0x900000032ull : 0x32, 0x33 };
	uint8_t want[BS], got[BS], data[BS];
	uint32_t off = 12, nrec;
	struct ek_jtag_raw raw;
	struct ek_jcommit c;
	struct ek_jfmt f;
	struct jb b;

	jb_init(&b, l->compat, l->incompat);
	fmt_of(&b, &f);
	ck_assert_uint_eq(f.tag_bytes, tag_size(&b));
	ck_assert_uint_eq(f.tail, tail_bytes(&b));
	ck_assert_int_eq(f.v23, v23(&b));

	/* descriptor: decode the builder's, then encode the same tags */
	jb_desc_raw(&b, 9, t, 3, want);
	ck_assert_uint_eq(ek_jdesc_count(&f, want), 3);
	memset(got, 0, BS);
	ek_jhdr_encode(got, JBD2_DESCRIPTOR_BLOCK, 9);
	for (unsigned i = 0; i < 3; i++) {
		uint32_t flags = t[i].flags | (i ? JBD2_FLAG_SAME_UUID : 0) |
				 (i == 2 ? JBD2_FLAG_LAST_TAG : 0);
		uint32_t before = off, put = off;

		ck_assert(ek_jdesc_tag(&f, want, &off, &raw));
		ck_assert_uint_eq(raw.home, t[i].home);
		ck_assert_uint_eq(raw.flags, flags);
		logged_copy(&t[i], data);
		ck_assert_uint_eq(raw.csum, v23(&b) ? data_csum(&b, 9, data) : 0);
		ck_assert_uint_eq(ek_jtag_csum(&f, 9, data), raw.csum);
		ek_jdesc_put_tag(&f, got, &put, &raw, juuid);
		ck_assert_uint_eq(put, off);
		ck_assert_uint_eq(off - before, tag_size(&b) + (i ? 0 : 16));
	}
	ek_jtail_set(&f, got);
	if (!v23(&b))	/* the builder fills t_checksum regardless; jbd2 leaves it 0 */
		for (unsigned i = 0; i < 3; i++)
			put16(want + 12 + i * tag_size(&b) + (i ? 16 : 0) + 4, 0);
	ck_assert_msg(!memcmp(got, want, BS), "%s: encoded descriptor differs", l->what);
	ck_assert(ek_jtail_ok(&f, got));
	got[BS - 8] ^= 1;
	ck_assert(ek_jtail_ok(&f, got) == !v23(&b));
	/* v3 keeps t_flags in 32 bits: jbd2 reads the low 16 only */
	if (l->incompat & FV3) {
		off = 12;
		put_be32(want + 12 + 4, 0x00ff0000u | JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG);
		ck_assert(ek_jdesc_tag(&f, want, &off, &raw));
		ck_assert_uint_eq(raw.flags, JBD2_FLAG_SAME_UUID | JBD2_FLAG_LAST_TAG);
		ck_assert_uint_eq(ek_jdesc_count(&f, want), 1);
	}

	/* revoke: lib's block is the builder's; records and r_count read back */
	b.pos = 5;
	jb_revoke(&b, 9, homes, 3);
	jb_get(&b, 5, want);
	ek_jrevoke_encode(&f, got, 9, homes, 3);
	ck_assert_msg(!memcmp(got, want, BS), "%s: encoded revoke block differs", l->what);
	ck_assert_int_eq(ek_jrevoke_decode(&f, got, 5, &nrec), 0);
	ck_assert_uint_eq(nrec, 3);
	for (unsigned i = 0; i < 3; i++)
		ck_assert_uint_eq(ek_jrevoke_rec(&f, got, i), homes[i]);
	put_be32(got + 12, BS - f.tail + 1);
	ck_assert_int_eq(ek_jrevoke_decode(&f, got, 5, &nrec), -EK_CORRUPT);
	ck_assert(strstr(ek_last_error()->msg, "journal block 5"));
	put_be32(got + 12, 8);
	ck_assert_int_eq(ek_jrevoke_decode(&f, got, 5, &nrec), 1);
	ck_assert_uint_eq(nrec, 0);

	/* commit */
	b.crc1 = 0x1234abcd;
	commit_build(&b, want, 9, 1700000000);
	ek_jcommit_encode(&f, got, 9, 1700000000, 12345, 0x1234abcd);
	ck_assert_msg(!memcmp(got, want, BS), "%s: encoded commit block differs", l->what);
	ek_jcommit_decode(got, &c);
	ck_assert_uint_eq(c.tid, 9);
	ck_assert_uint_eq(c.sec, 1700000000);
	ck_assert_uint_eq(c.nsec, 12345);
	ck_assert(ek_jcommit_csum_ok(&f, got, 0x1234abcd));
	got[0x40] ^= 1;
	ck_assert(ek_jcommit_csum_ok(&f, got, 0x1234abcd) == !v23(&b));
	ck_assert(ek_jcommit_csum_ok(&f, want, 0x1234abce) == !f.v1);
	jb_done(&b);
}
END_TEST

/*
 * A journal block that cannot be read (a hole in the journal inode) ends
 * the scan with the transactions before it kept and a refused recovery,
 * not a failed scan.
 */
START_TEST(test_unreadable)
{
	struct jt t5[1] = { { 150, 0x1500 } }, t6[1] = { { 151, 0x1600 } };
	struct ext4_inode raw = { 0 };
	uint8_t *root = (uint8_t *)raw.i_block;
	struct jb b;

	jb_init(&b, 0, 0);
	/* journal blocks 0..5 and 8.. mapped: 6 and 7 are a hole */
	put_le16(root, EXT4_EXT_MAGIC);
	put_le16(root + 2, 2);
	put_le16(root + 4, 4);
	put_le16(root + 16, 6);
	put_le32(root + 20, JSTART);
	put_le32(root + 24, 8);
	put_le16(root + 28, JMAP - 8);
	put_le32(root + 32, JSTART + 8);
	raw.i_mode = cpu_to_le16(0100600);
	raw.i_links_count = cpu_to_le16(1);
	raw.i_flags = cpu_to_le32(EXT4_EXTENTS_FL);
	raw.i_size_lo = cpu_to_le32(JMAP * BS);
	unit_put_inode(&b.u, 8, &raw);
	jb_txn(&b, 5, t5, 1);		/* 1..3 */
	jb_desc(&b, 6, t6, 1);		/* 4..5, its commit block would be 6 */
	ck_assert_int_eq(jb_scan(&b, 5, 1), 0);
	ck_assert_uint_eq(b.log.ntxns, 2);
	ck_assert_int_eq(txn(&b, 5)->state, EK_JTXN_COMMITTED);
	ck_assert_int_eq(txn(&b, 6)->state, EK_JTXN_TORN);
	ck_assert_int_eq(b.log.status, -EK_CORRUPT);
	ck_assert_msg(strstr(b.log.refused, "journal block 6"), "reason '%s'", b.log.refused);
	ck_reason(&b, "read");
	ck_assert_uint_eq(b.log.end_tid, 6);
	jb_done(&b);
}
END_TEST

/* commit times that cannot be real: past 2500, before mkfs, negative */
START_TEST(test_commit_time_ok)
{
	ck_assert(ek_jcommit_time_ok(1700000000, 0));
	ck_assert(ek_jcommit_time_ok(1700000000, 1600000000));
	ck_assert(ek_jcommit_time_ok(1600000000, 1600000000));
	ck_assert(!ek_jcommit_time_ok(1599999999, 1600000000));
	ck_assert(ek_jcommit_time_ok(EK_JCOMMIT_TIME_MAX - 1, 0));
	ck_assert(!ek_jcommit_time_ok(EK_JCOMMIT_TIME_MAX, 0));
	/* e2fsprogs' writer: a 32-bit time in the high half */
	ck_assert(!ek_jcommit_time_ok((int64_t)1700000000 << 32, 0));
	ck_assert(!ek_jcommit_time_ok(-1, 0));
}
END_TEST

/* the JSON of a transaction with an impossible commit time, and of a clean log */
START_TEST(test_emit_times)
{
	struct jt t5[1] = { { 150, 0x1500 } };
	char *buf = NULL, *p, *q;
	size_t len = 0;
	struct ek_out *o;
	FILE *f;
	struct jb b;

	jb_init(&b, 0, 0);
	b.sec = (uint64_t)1700000000 << 32;
	jb_txn(&b, 5, t5, 1);
	b.sec = 1700000000;
	jb_txn(&b, 6, t5, 1);
	ck_assert_int_eq(jb_scan(&b, 5, 1), 0);
	ck_assert(!ek_jtxn_time_ok(b.j, txn(&b, 5)));
	ck_assert(ek_jtxn_time_ok(b.j, txn(&b, 6)));
	f = open_memstream(&buf, &len);
	o = ek_out_new(f, EK_OUT_JSON);
	ek_out_obj_begin(o, NULL);
	ck_assert(!ek_jlog_emit_status(o, b.j, &b.log));
	ek_out_arr_begin(o, "t");
	ek_jtxn_emit(o, b.j, txn(&b, 5), -1, 0);
	ek_jtxn_emit(o, b.j, txn(&b, 6), 1690000000, 0);
	ek_out_arr_end(o);
	ek_out_free(o);
	fclose(f);
	for (p = q = buf; *p; p++)	/* without white space */
		if (*p != ' ' && *p != '\n')
			*q++ = *p;
	*q = 0;
	ck_assert_msg(strstr(buf, "\"clean\":false,\"recovery_refused\":null"), "%s", buf);
	ck_assert_msg(strstr(buf, "\"commit_sec\":7301444403200000000,\"commit_nsec\":12345,"
				  "\"commit_time\":null,\"commit_time_ok\":false,\"commit_checksum\""),
		      "%s", buf);
	ck_assert_msg(strstr(buf, "\"commit_time\":\"2023-11-14T22:13:20Z\",\"commit_time_ok\":true,"
				  "\"delta_sec\":"), "%s", buf);
	free(buf);
	jb_done(&b);
}
END_TEST

static Suite *jscan_suite(void)
{
	Suite *s = suite_create("jscan");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_crc_and_tids);
	tcase_add_test(tc, test_clean);
	tcase_add_loop_test(tc, test_tag_layout, 0, NLAYOUTS);
	tcase_add_loop_test(tc, test_tag_fill, 0, 2 * NLAYOUTS);
	tcase_add_loop_test(tc, test_csum_v1, 0, sizeof(v1_cases) / sizeof(v1_cases[0]));
	tcase_add_loop_test(tc, test_csum_commit_v23, 0, 2);
	tcase_add_loop_test(tc, test_bad_commit_apply, 0,
			    sizeof(commit_cases) / sizeof(commit_cases[0]));
	tcase_add_loop_test(tc, test_commit_time, 0, sizeof(time_cases) / sizeof(time_cases[0]));
	tcase_add_loop_test(tc, test_bad_tag_csum, 0, 2);
	tcase_add_loop_test(tc, test_log_wrap, 0, 2);
	tcase_add_loop_test(tc, test_tid_wrap, 0, 2);
	tcase_add_loop_test(tc, test_escape, 0, 4);
	tcase_add_loop_test(tc, test_revoke_scope, 0, 2);
	tcase_add_loop_test(tc, test_rcount, 0, sizeof(rcount_cases) / sizeof(rcount_cases[0]));
	tcase_add_loop_test(tc, test_log_end, 0, sizeof(end_cases) / sizeof(end_cases[0]));
	tcase_add_loop_test(tc, test_log_loop, 0, 2);
	tcase_add_loop_test(tc, test_commit_wset, 0, NLAYOUTS);
	tcase_add_loop_test(tc, test_recover, 0, NREC);
	tcase_add_loop_test(tc, test_codec, 0, NLAYOUTS);
	tcase_add_test(tc, test_unreadable);
	tcase_add_test(tc, test_commit_time_ok);
	tcase_add_test(tc, test_emit_times);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(jscan_suite)
