// SPDX-License-Identifier: MIT
/*
 * fastcommit.c - the ext4 fast-commit area of a jbd2 journal.
 *
 * Layout (fs/ext4/fast_commit.h, Documentation/filesystems/ext4/journal.rst):
 * journal blocks sb.last + 1 .. sb.maxlen - 1 hold packed little-endian
 * records, each
 *
 *	offset	size	field
 *	0x0	2	fc_tag	EXT4_FC_TAG_*
 *	0x2	2	fc_len	value bytes that follow
 *	0x4	fc_len	value	(ondisk.h struct ext4_fc_*), no alignment
 *
 * starting at offset 0 of each block and never crossing a block end; a
 * writer fills the rest of a block with a PAD, and a TAIL's value runs to
 * the end of its block, so the next fast commit starts a new block.
 *
 * Value lengths (ext4_fc_value_len_isvalid):
 *	HEAD		== 8
 *	ADD_RANGE	== 16
 *	DEL_RANGE	== 12
 *	CREAT/LINK/UNLINK	8 + 1..255 (the name)
 *	INODE		4 + 128..the filesystem's inode size
 *	PAD		any
 *	TAIL		>= 8
 *	other tags	never
 *
 * The scan follows ext4_fc_replay_scan() as fc_do_one_pass() calls it, one
 * block at a time from the first block of the area, and the replay count
 * it leaves (fc_replay_num_tags): see extkit.h for the rules.  The crc of a
 * tail is crc32c seeded with 0, continued over each record's header and
 * value since the previous tail and over the tail's header and fc_tid
 * (ext4_chksum() does no pre- or post-inversion, nor does ek_crc32c()).
 * Where the kernel's scan returns an error (-ECANCELED, -EFSBADCRC,
 * -EOPNOTSUPP, or -EFSCORRUPTED from reading past the journal), the
 * kernel's whole recovery fails; we record that in log->status.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

enum { FC_STOP = 0, FC_CONTINUE = 1 };	/* as JBD2_FC_REPLAY_STOP/CONTINUE */

struct fc_scan {
	struct ek_fclog *log;
	uint32_t blksz, inode_size;
	uint32_t crc;		/* since the previous tail (kernel fc_crc) */
	size_t ntags;		/* records counted so far (kernel fc_cur_tag) */
	size_t cap;		/* of log->recs */
	bool started;		/* block 0 began with a HEAD */
};

const char *ek_fc_tag_name(uint16_t tag)
{
	static const char *const names[] = {
		[EXT4_FC_TAG_ADD_RANGE] = "ADD_RANGE",
		[EXT4_FC_TAG_DEL_RANGE] = "DEL_RANGE",
		[EXT4_FC_TAG_CREAT] = "CREAT",
		[EXT4_FC_TAG_LINK] = "LINK",
		[EXT4_FC_TAG_UNLINK] = "UNLINK",
		[EXT4_FC_TAG_INODE] = "INODE",
		[EXT4_FC_TAG_PAD] = "PAD",
		[EXT4_FC_TAG_TAIL] = "TAIL",
		[EXT4_FC_TAG_HEAD] = "HEAD",
	};

	return tag < sizeof(names) / sizeof(names[0]) ? names[tag] : NULL;
}

const char *ek_fc_state_name(enum ek_fc_state s)
{
	switch (s) {
	case EK_FC_NONE:
		return "none";
	case EK_FC_EMPTY:
		return "empty";
	case EK_FC_STALE:
		return "stale";
	case EK_FC_VALID:
		return "valid";
	case EK_FC_INCOMPLETE:
		return "incomplete";
	case EK_FC_BADCRC:
		return "bad_checksum";
	case EK_FC_CORRUPT:
		return "corrupt";
	case EK_FC_UNSUPP:
		return "unsupported";
	}
	return "?";
}

/* why value length @len does not suit @tag, or NULL (ext4_fc_value_len_isvalid) */
static const char *len_bad(uint16_t tag, uint32_t len, uint32_t inode_size)
{
	switch (tag) {
	case EXT4_FC_TAG_HEAD:
		return len == sizeof(struct ext4_fc_head) ? NULL : "HEAD length is not 8";
	case EXT4_FC_TAG_ADD_RANGE:
		return len == sizeof(struct ext4_fc_add_range) ? NULL : "ADD_RANGE length is not 16";
	case EXT4_FC_TAG_DEL_RANGE:
		return len == sizeof(struct ext4_fc_del_range) ? NULL : "DEL_RANGE length is not 12";
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		if (len <= sizeof(struct ext4_fc_dentry_info))
			return "entry without a name";
		if (len - sizeof(struct ext4_fc_dentry_info) > EXT4_NAME_LEN)
			return "entry name longer than 255 bytes";
		return NULL;
	case EXT4_FC_TAG_INODE:
		if (len < sizeof(struct ext4_fc_inode) + EXT4_GOOD_OLD_INODE_SIZE)
			return "INODE shorter than 128 bytes";
		if (len - sizeof(struct ext4_fc_inode) > inode_size)
			return "INODE longer than the inode size";
		return NULL;
	case EXT4_FC_TAG_PAD:
		return NULL;
	case EXT4_FC_TAG_TAIL:
		return len >= sizeof(struct ext4_fc_tail) ? NULL : "TAIL shorter than 8 bytes";
	}
	return "unknown tag";
}

static struct ek_fc_rec *new_rec(struct fc_scan *s)
{
	struct ek_fclog *log = s->log;

	if (ek_grow(&log->recs, &s->cap, log->nrecs + 1, sizeof(*log->recs)))
		return NULL;
	memset(&log->recs[log->nrecs], 0, sizeof(log->recs[0]));
	return &log->recs[log->nrecs++];
}

/* the scan ends at @r (NULL: at no record) in @state; @code: the kernel's refusal or 0 */
static int __attribute__((format(printf, 5, 6)))
fc_end(struct fc_scan *s, struct ek_fc_rec *r, enum ek_fc_state state, int code,
       const char *fmt, ...)
{
	struct ek_fclog *log = s->log;
	va_list ap;

	if (r)
		r->stop = true;
	log->state = state;
	va_start(ap, fmt);
	vsnprintf(log->end_reason, sizeof(log->end_reason), fmt, ap);
	va_end(ap);
	if (code) {
		if (r)
			log->status = ek__error(code, __FILE__, __LINE__, EK_AT_NONE, 0,
						"fast commit: journal block %u offset %u: %s",
						log->first_jblk + r->area_blk, r->off, log->end_reason);
		else
			log->status = ek__error(code, __FILE__, __LINE__, EK_AT_NONE, 0,
						"fast commit: %s", log->end_reason);
	}
	return FC_STOP;
}

/* a record that breaks a rule: harmless after a good tail, else recovery fails */
static int fc_bad(struct fc_scan *s, struct ek_fc_rec *r, const char *why)
{
	const char *name = ek_fc_tag_name(r->tag);
	char tag[16];

	if (!name) {
		snprintf(tag, sizeof(tag), "tag 0x%04x", r->tag);
		name = tag;
	}
	if (s->log->nreplay)
		return fc_end(s, r, EK_FC_VALID, 0, "%s of %u bytes: %s", name, r->len, why);
	return fc_end(s, r, EK_FC_CORRUPT, -EK_CORRUPT, "%s of %u bytes before any good tail: %s",
		      name, r->len, why);
}

static void decode(struct ek_fc_rec *r, const uint8_t *v)
{
	switch (r->tag) {
	case EXT4_FC_TAG_HEAD:
		r->u.head.features = get_le32(v + offsetof(struct ext4_fc_head, fc_features));
		r->u.head.tid = get_le32(v + offsetof(struct ext4_fc_head, fc_tid));
		break;
	case EXT4_FC_TAG_TAIL:
		r->u.tail.tid = get_le32(v + offsetof(struct ext4_fc_tail, fc_tid));
		r->u.tail.crc = get_le32(v + offsetof(struct ext4_fc_tail, fc_crc));
		break;
	case EXT4_FC_TAG_ADD_RANGE: {
		struct ek_ext e = ek_ext_decode(v + offsetof(struct ext4_fc_add_range, fc_ex));

		r->u.range.ino = get_le32(v + offsetof(struct ext4_fc_add_range, fc_ino));
		r->u.range.lblk = e.lblk;
		r->u.range.unwritten = e.unwritten;
		r->u.range.len = e.len;
		r->u.range.pblk = e.pblk;
		break;
	}
	case EXT4_FC_TAG_DEL_RANGE:
		r->u.del.ino = get_le32(v + offsetof(struct ext4_fc_del_range, fc_ino));
		r->u.del.lblk = get_le32(v + offsetof(struct ext4_fc_del_range, fc_lblk));
		r->u.del.len = get_le32(v + offsetof(struct ext4_fc_del_range, fc_len));
		break;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		r->u.dentry.parent = get_le32(v + offsetof(struct ext4_fc_dentry_info, fc_parent_ino));
		r->u.dentry.ino = get_le32(v + offsetof(struct ext4_fc_dentry_info, fc_ino));
		r->u.dentry.name_len = r->len - sizeof(struct ext4_fc_dentry_info);
		break;	/* name: set by fix_pointers() once the area stops moving */
	case EXT4_FC_TAG_INODE:
		r->u.inode.ino = get_le32(v + offsetof(struct ext4_fc_inode, fc_ino));
		r->u.inode.raw_len = r->len - sizeof(struct ext4_fc_inode);
		break;
	}
}

/* one block of the area, as ext4_fc_replay_scan(): FC_CONTINUE or FC_STOP, or -ENOMEM */
static int fc_block(struct fc_scan *s, uint32_t blk, const uint8_t *b)
{
	struct ek_fclog *log = s->log;
	const uint32_t hdr = sizeof(struct ext4_fc_tl);
	uint32_t off, len;

	if (!s->started) {
		/* only the very first block may start the area */
		if (get_le16(b) != EXT4_FC_TAG_HEAD)
			return fc_end(s, NULL, EK_FC_EMPTY, 0,
				      "the area does not start with a HEAD (tag 0x%04x)", get_le16(b));
		s->started = true;
	}
	/* a header needs 4 bytes; fewer left in the block are skipped */
	for (off = 0; off + hdr <= s->blksz; off += hdr + len) {
		struct ek_fc_rec *r = new_rec(s);
		const uint8_t *v = b + off + hdr;
		const char *why;

		if (!r)
			return -ENOMEM;
		r->tag = get_le16(b + off + offsetof(struct ext4_fc_tl, fc_tag));
		r->len = len = get_le16(b + off + offsetof(struct ext4_fc_tl, fc_len));
		r->area_blk = blk;
		r->off = off;
		if (len > s->blksz - off - hdr)
			return fc_bad(s, r, "it runs past the block end");
		why = len_bad(r->tag, len, s->inode_size);
		if (why)
			return fc_bad(s, r, why);
		decode(r, v);
		r->decoded = true;

		switch (r->tag) {
		case EXT4_FC_TAG_HEAD:
			/* unknown features refuse recovery, even after good tails */
			if (r->u.head.features & ~EXT4_FC_SUPPORTED_FEATURES)
				return fc_end(s, r, EK_FC_UNSUPP, -EK_UNSUPP,
					      "HEAD with unknown features 0x%x", r->u.head.features);
			if (r->u.head.tid != log->expect_tid) {
				enum ek_fc_state st = log->nreplay ? EK_FC_VALID :
						      log->nrecs == 1 ? EK_FC_STALE : EK_FC_INCOMPLETE;

				return fc_end(s, r, st, 0, "HEAD of transaction %u, expected %u",
					      r->u.head.tid, log->expect_tid);
			}
			break;
		case EXT4_FC_TAG_TAIL:
			s->ntags++;
			/* the tail's header and fc_tid, not fc_crc nor what follows */
			s->crc = ek_crc32c(s->crc, b + off, hdr + offsetof(struct ext4_fc_tail, fc_crc));
			r->u.tail.crc_calc = s->crc;
			s->crc = 0;
			if (r->u.tail.tid != log->expect_tid || r->u.tail.crc != r->u.tail.crc_calc) {
				const char *what = r->u.tail.tid != log->expect_tid ?
						   "TAIL of another transaction" : "TAIL crc mismatch";

				if (log->nreplay)
					return fc_end(s, r, EK_FC_VALID, 0,
						      "%s (tid %u, crc 0x%08x; expected %u, 0x%08x)",
						      what, r->u.tail.tid, r->u.tail.crc,
						      log->expect_tid, r->u.tail.crc_calc);
				return fc_end(s, r, EK_FC_BADCRC, -EK_BADCRC,
					      "first %s (tid %u, crc 0x%08x; expected %u, 0x%08x)",
					      what, r->u.tail.tid, r->u.tail.crc,
					      log->expect_tid, r->u.tail.crc_calc);
			}
			log->nreplay = s->ntags;
			log->ncommits++;
			continue;
		}
		s->ntags++;
		s->crc = ek_crc32c(s->crc, b + off, hdr + len);
	}
	return FC_CONTINUE;
}

/* names and raw inodes point into the area, now that it stays put */
static void fix_pointers(struct ek_fclog *log, const uint8_t *area, uint32_t blksz)
{
	for (size_t i = 0; i < log->nrecs; i++) {
		struct ek_fc_rec *r = &log->recs[i];
		const uint8_t *v = area + (size_t)r->area_blk * blksz + r->off + sizeof(struct ext4_fc_tl);

		if (!r->decoded)
			continue;
		switch (r->tag) {
		case EXT4_FC_TAG_CREAT:
		case EXT4_FC_TAG_LINK:
		case EXT4_FC_TAG_UNLINK:
			r->u.dentry.name = v + offsetof(struct ext4_fc_dentry_info, fc_dname);
			break;
		case EXT4_FC_TAG_INODE:
			r->u.inode.raw = v + offsetof(struct ext4_fc_inode, fc_raw_inode);
			break;
		}
	}
}

static void fc_init(struct fc_scan *s, struct ek_fclog *log, uint32_t blksz, uint32_t inode_size)
{
	memset(s, 0, sizeof(*s));
	s->log = log;
	s->blksz = blksz;
	s->inode_size = inode_size;
}

/*
 * fc_do_one_pass() asks for the block after the last one of the area while
 * the records still go on; its read fails (past s_maxlen) and so does the
 * recovery.
 */
static void fc_past_end(struct fc_scan *s)
{
	fc_end(s, NULL, EK_FC_CORRUPT, -EK_CORRUPT,
	       "the records go on to the end of the area (%u blocks): the kernel reads past the journal",
	       s->log->nblocks);
}

int ek_fc_parse(const void *area, uint32_t nblocks, uint32_t blksz, uint32_t inode_size,
		ek_tid_t expect_tid, struct ek_fclog *out)
{
	struct fc_scan s;
	int ret = FC_CONTINUE;

	memset(out, 0, sizeof(*out));
	if (blksz < 1024 || blksz > 65536 || (blksz & (blksz - 1)) ||
	    inode_size < EXT4_GOOD_OLD_INODE_SIZE || inode_size > blksz)
		return ek_err(-EINVAL, "fast commit: block size %u, inode size %u", blksz, inode_size);
	out->expect_tid = expect_tid;
	out->nblocks = nblocks;
	fc_init(&s, out, blksz, inode_size);
	for (uint32_t blk = 0; ret == FC_CONTINUE; blk++) {
		if (blk == nblocks) {
			fc_past_end(&s);
			break;
		}
		out->blocks_read++;
		ret = fc_block(&s, blk, (const uint8_t *)area + (size_t)blk * blksz);
	}
	if (ret < 0) {
		ek_fclog_release(out);
		return ret;
	}
	fix_pointers(out, area, blksz);
	return 0;
}

int ek_fc_scan(struct ek_journal *j, ek_tid_t expect_tid, struct ek_fclog *out)
{
	const struct ek_jsb *sb = &j->sb;
	uint32_t bs = sb->blocksize;
	struct fc_scan s;
	size_t cap = 0;
	int ret = FC_CONTINUE;

	memset(out, 0, sizeof(*out));
	out->expect_tid = expect_tid;
	if (!(sb->incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT)) {
		snprintf(out->end_reason, sizeof(out->end_reason), "no fast-commit area");
		return 0;
	}
	/* ek_jsb_decode() keeps num_fc_blks >= 1 and last < maxlen */
	out->first_jblk = sb->last + 1;
	out->nblocks = sb->maxlen - sb->last - 1;
	if (!sb->start) {
		snprintf(out->end_reason, sizeof(out->end_reason),
			 "the journal is clean: recovery does not read the area");
		return 0;
	}
	fc_init(&s, out, bs, j->fs->inode_size);
	for (uint32_t blk = 0; ret == FC_CONTINUE; blk++) {
		if (blk == out->nblocks) {
			fc_past_end(&s);
			break;
		}
		/* grow as the scan goes: a hostile area costs only what it holds */
		if (blk == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			uint8_t *v;

			if (ncap > out->nblocks)
				ncap = out->nblocks;
			v = ncap <= SIZE_MAX / bs ? realloc(out->buf, ncap * bs) : NULL;
			if (!v) {
				ret = -ENOMEM;
				break;
			}
			out->buf = v;
			cap = ncap;
		}
		ret = ek_journal_read(j, out->first_jblk + blk, out->buf + (size_t)blk * bs);
		if (ret)
			break;
		out->blocks_read++;
		ret = fc_block(&s, blk, out->buf + (size_t)blk * bs);
	}
	if (ret < 0) {
		ek_fclog_release(out);
		return ret;
	}
	fix_pointers(out, out->buf, bs);
	return 0;
}

void ek_fclog_release(struct ek_fclog *log)
{
	free(log->recs);
	free(log->buf);
	log->recs = NULL;
	log->buf = NULL;
	log->nrecs = log->nreplay = 0;
}

/* ---- checks against the filesystem, for replay ----------------------------- */

static int ino_check(const struct ek_fs *fs, const char *tag, const char *what, ek_ino_t ino)
{
	if (ino < 1 || ino > fs->sb.inodes_count)
		return ek_corrupt_fs("fast commit: %s %s %u outside 1..%u", tag, what, ino,
				     fs->sb.inodes_count);
	return 0;
}

static int range_check(const char *tag, ek_ino_t ino, uint32_t lblk, uint32_t len)
{
	if (!len)
		return ek_corrupt_ino(ino, "fast commit: %s of no blocks", tag);
	if ((uint64_t)lblk + len > (1ull << 32))
		return ek_corrupt_ino(ino, "fast commit: %s %u+%u past the last logical block",
				      tag, lblk, len);
	return 0;
}

int ek_fc_rec_check(const struct ek_fs *fs, const struct ek_fc_rec *r)
{
	const char *tag = ek_fc_tag_name(r->tag);
	int err;

	if (!r->decoded)
		return ek_corrupt_fs("fast commit: record at block %u offset %u was not decoded",
				     r->area_blk, r->off);
	switch (r->tag) {
	case EXT4_FC_TAG_ADD_RANGE:
		if ((err = ino_check(fs, tag, "inode", r->u.range.ino)) ||
		    (err = range_check(tag, r->u.range.ino, r->u.range.lblk, r->u.range.len)))
			return err;
		if (r->u.range.pblk < fs->sb.first_data_block ||
		    r->u.range.pblk + r->u.range.len > fs->sb.blocks_count)
			return ek_corrupt_ino(r->u.range.ino,
					      "fast commit: ADD_RANGE blocks %llu+%u outside the filesystem (%llu blocks)",
					      (unsigned long long)r->u.range.pblk, r->u.range.len,
					      (unsigned long long)fs->sb.blocks_count);
		return 0;
	case EXT4_FC_TAG_DEL_RANGE:
		if ((err = ino_check(fs, tag, "inode", r->u.del.ino)))
			return err;
		return range_check(tag, r->u.del.ino, r->u.del.lblk, r->u.del.len);
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK: {
		const uint8_t *n = r->u.dentry.name;
		uint32_t nl = r->u.dentry.name_len;

		if ((err = ino_check(fs, tag, "directory", r->u.dentry.parent)) ||
		    (err = ino_check(fs, tag, "inode", r->u.dentry.ino)))
			return err;
		if (memchr(n, '/', nl) || memchr(n, 0, nl))
			return ek_corrupt_ino(r->u.dentry.parent, "fast commit: %s name with '/' or NUL", tag);
		if ((nl == 1 && n[0] == '.') || (nl == 2 && n[0] == '.' && n[1] == '.'))
			return ek_corrupt_ino(r->u.dentry.parent, "fast commit: %s of '%.*s'", tag,
					      (int)nl, (const char *)n);
		return 0;
	}
	case EXT4_FC_TAG_INODE:
		return ino_check(fs, tag, "inode", r->u.inode.ino);
	}
	return 0;
}

/* ---- output (shared by extkit-replay fc/info and extkit-debugfs logdump) ---- */

static const char *fc_tag(uint16_t tag, char *buf, size_t len)
{
	const char *name = ek_fc_tag_name(tag);

	if (name)
		return name;
	snprintf(buf, len, "tag_0x%04x", tag);
	return buf;
}

/* a name in text output: printable ASCII as is, other bytes as \xNN */
static void fc_name_text(struct ek_out *o, const uint8_t *n, uint32_t len)
{
	ek_out_text(o, "\"");
	for (uint32_t i = 0; i < len; i++) {
		if (n[i] >= 0x20 && n[i] < 0x7f && n[i] != '"' && n[i] != '\\')
			ek_out_text(o, "%c", n[i]);
		else
			ek_out_text(o, "\\x%02x", n[i]);
	}
	ek_out_text(o, "\"");
}

void ek_fc_rec_emit(struct ek_out *o, const struct ek_fclog *fc, size_t i)
{
	const struct ek_fc_rec *c = &fc->recs[i];
	const char *replay = c->stop ? "stop" : i < fc->nreplay ? "yes" : "no";
	char tb[16];

	ek_out_text(o, "%10u %6u %-6s %s", fc->first_jblk + c->area_blk, c->off, replay,
		    fc_tag(c->tag, tb, sizeof(tb)));
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "index", i);
	ek_out_u64(o, "journal_block", fc->first_jblk + c->area_blk);
	ek_out_u64(o, "offset", c->off);
	ek_out_str(o, "tag", ek_fc_tag_name(c->tag) ? ek_fc_tag_name(c->tag) : "unknown");
	ek_out_u64(o, "tag_value", c->tag);
	ek_out_u64(o, "value_bytes", c->len);
	ek_out_bool(o, "replay", i < fc->nreplay);
	ek_out_bool(o, "stop", c->stop);
	ek_out_bool(o, "decoded", c->decoded);
	if (!c->decoded) {
		ek_out_text(o, " (%u bytes, not decoded)\n", c->len);
		ek_out_obj_end(o);
		return;
	}
	switch (c->tag) {
	case EXT4_FC_TAG_HEAD:
		ek_out_text(o, " tid %u features 0x%x", c->u.head.tid, c->u.head.features);
		ek_out_u64(o, "tid", c->u.head.tid);
		ek_out_u64(o, "features", c->u.head.features);
		break;
	case EXT4_FC_TAG_TAIL:
		ek_out_text(o, " tid %u crc 0x%08x", c->u.tail.tid, c->u.tail.crc);
		if (c->u.tail.crc != c->u.tail.crc_calc)
			ek_out_text(o, " (records give 0x%08x)", c->u.tail.crc_calc);
		ek_out_u64(o, "tid", c->u.tail.tid);
		ek_out_u64(o, "crc", c->u.tail.crc);
		ek_out_u64(o, "crc_calc", c->u.tail.crc_calc);
		ek_out_bool(o, "crc_ok", c->u.tail.crc == c->u.tail.crc_calc);
		break;
	case EXT4_FC_TAG_ADD_RANGE:
		ek_out_text(o, " inode %u lblk %u len %u pblk %llu%s", c->u.range.ino, c->u.range.lblk,
			    c->u.range.len, (unsigned long long)c->u.range.pblk,
			    c->u.range.unwritten ? " unwritten" : "");
		ek_out_u64(o, "inode", c->u.range.ino);
		ek_out_u64(o, "lblk", c->u.range.lblk);
		ek_out_u64(o, "blocks", c->u.range.len);
		ek_out_u64(o, "pblk", c->u.range.pblk);
		ek_out_bool(o, "unwritten", c->u.range.unwritten);
		break;
	case EXT4_FC_TAG_DEL_RANGE:
		ek_out_text(o, " inode %u lblk %u len %u", c->u.del.ino, c->u.del.lblk, c->u.del.len);
		ek_out_u64(o, "inode", c->u.del.ino);
		ek_out_u64(o, "lblk", c->u.del.lblk);
		ek_out_u64(o, "blocks", c->u.del.len);
		break;
	case EXT4_FC_TAG_CREAT:
	case EXT4_FC_TAG_LINK:
	case EXT4_FC_TAG_UNLINK:
		ek_out_text(o, " parent %u inode %u name ", c->u.dentry.parent, c->u.dentry.ino);
		fc_name_text(o, c->u.dentry.name, c->u.dentry.name_len);
		ek_out_u64(o, "parent", c->u.dentry.parent);
		ek_out_u64(o, "inode", c->u.dentry.ino);
		ek_out_name(o, "name", (const char *)c->u.dentry.name, c->u.dentry.name_len);
		break;
	case EXT4_FC_TAG_INODE: {
		const uint8_t *raw = c->u.inode.raw;
		uint64_t size = ek_inode_size_field(raw);

		ek_out_text(o, " inode %u mode 0%o links %u size %llu (%u bytes)", c->u.inode.ino,
			    get_le16(raw + offsetof(struct ext4_inode, i_mode)),
			    get_le16(raw + offsetof(struct ext4_inode, i_links_count)),
			    (unsigned long long)size, c->u.inode.raw_len);
		ek_out_u64(o, "inode", c->u.inode.ino);
		ek_out_u64(o, "raw_bytes", c->u.inode.raw_len);
		ek_out_u64(o, "mode", get_le16(raw + offsetof(struct ext4_inode, i_mode)));
		ek_out_u64(o, "links", get_le16(raw + offsetof(struct ext4_inode, i_links_count)));
		ek_out_u64(o, "size", size);
		break;
	}
	case EXT4_FC_TAG_PAD:
		ek_out_text(o, " %u bytes", c->len);
		break;
	}
	ek_out_text(o, "\n");
	ek_out_obj_end(o);
}

/* the area's summary fields (JSON only) */
void ek_fc_summary_emit(struct ek_out *o, const struct ek_fclog *fc)
{
	ek_out_str(o, "state", ek_fc_state_name(fc->state));
	ek_out_u64(o, "expect_tid", fc->expect_tid);
	ek_out_u64(o, "first_block", fc->first_jblk);
	ek_out_u64(o, "blocks", fc->nblocks);
	ek_out_u64(o, "blocks_read", fc->blocks_read);
	ek_out_u64(o, "record_count", fc->nrecs);
	ek_out_u64(o, "replay_records", fc->nreplay);
	ek_out_u64(o, "fast_commits", fc->ncommits);
	ek_out_str(o, "end_reason", fc->end_reason);
	if (fc->status)
		ek_out_str(o, "refused", ek_error_msg(fc->status));
	else
		ek_out_null(o, "refused");
}

