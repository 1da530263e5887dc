// SPDX-License-Identifier: MIT
/*
 * recovery.c - scanning the jbd2 log as the kernel's recovery does.
 *
 * The log runs from s_start, transaction s_sequence, around the ring
 * [s_first, last).  Each transaction is descriptor blocks (each followed
 * by the data blocks its tags describe), revoke blocks, then one commit
 * block, all with the transaction's id in h_sequence.  The scan follows
 * fs/jbd2/recovery.c do_one_pass(PASS_SCAN):
 *  - a block without the magic, or with another sequence, ends the log;
 *  - checksum v1 (COMPAT_CHECKSUM): crc32_be over descriptor and data
 *    blocks, compared in the commit block;
 *  - v2/v3: descriptor and revoke blocks end in a crc32c tail, commit
 *    blocks carry one in h_chksum[0], tags carry their data's checksum;
 *  - a bad commit checksum ends replay before that transaction, unless
 *    its commit time is older than the last good one (stale blocks); it
 *    is a failed commit (j_failed_commit) without async_commit, or with
 *    async_commit and v1 when the next transaction's commit block follows,
 *    else an interrupted async commit;
 *  - a bad descriptor/revoke checksum is judged at the next commit: an
 *    older commit time means stale blocks (end cleanly), else the kernel
 *    refuses recovery (-EFSBADCRC; commit fc750a3b44bd).
 * Every step consumes at least one journal block and the scan stops after
 * s_maxlen of them, so a hostile log cannot loop.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

struct scan {
	struct ek_journal *j;
	struct ek_jlog *log;
	const struct ek_jsb *sb;
	uint32_t seed;		/* crc32c(~0, uuid) for v2/v3 */
	bool csum_v23, csum_v1;
	uint32_t tail;		/* bytes of the descriptor/revoke tail */
	uint8_t *buf;
	uint8_t *data;		/* chunk blocks: data blocks being checked */
	uint32_t chunk;
	size_t tag_cap, rev_cap, txn_cap;
	/* the first revoke block of the current transaction whose r_count
	 * runs past the block: fatal only if the transaction commits */
	uint32_t bad_rcount_jblk, bad_rcount;
};

static uint32_t wrap(const struct ek_jsb *sb, uint64_t jblk)
{
	if (jblk >= sb->last)
		jblk -= sb->last - sb->first;
	return jblk;
}

/* crc32c tail of a descriptor or revoke block (jbd2_descriptor_block_csum_verify) */
static bool block_tail_ok(const struct scan *s, const uint8_t *blk)
{
	uint32_t bs = s->sb->blocksize, want = get_be32(blk + bs - 4), got;

	got = ek_crc32c(s->seed, blk, bs - 4);
	got = ek_crc32c(got, "\0\0\0\0", 4);
	return got == want;
}

static bool commit_csum_ok(const struct scan *s, const uint8_t *blk)
{
	uint32_t bs = s->sb->blocksize, off = offsetof(struct commit_header, h_chksum);
	uint32_t want = get_be32(blk + off), got;

	got = ek_crc32c(s->seed, blk, off);
	got = ek_crc32c(got, "\0\0\0\0", 4);
	got = ek_crc32c(got, blk + off + 4, bs - off - 4);
	return got == want;
}

static struct ek_jtxn *cur_txn(struct scan *s, ek_tid_t tid, uint32_t jblk)
{
	struct ek_jlog *log = s->log;
	struct ek_jtxn *t;

	if (log->ntxns && log->txns[log->ntxns - 1].tid == tid &&
	    log->txns[log->ntxns - 1].state == EK_JTXN_TORN)
		return &log->txns[log->ntxns - 1];
	if (log->ntxns == s->txn_cap) {
		size_t cap = s->txn_cap ? s->txn_cap * 2 : 64;
		struct ek_jtxn *v = realloc(log->txns, cap * sizeof(*v));

		if (!v)
			return NULL;
		log->txns = v;
		s->txn_cap = cap;
	}
	t = &log->txns[log->ntxns++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first_jblk = jblk;
	t->state = EK_JTXN_TORN;	/* until its commit block is found */
	s->tag_cap = s->rev_cap = 0;
	s->bad_rcount_jblk = 0;
	return t;
}

static int add_tag(struct scan *s, struct ek_jtxn *t, const struct ek_jtag *tag)
{
	if (t->ntags == s->tag_cap) {
		size_t cap = s->tag_cap ? s->tag_cap * 2 : 32;
		struct ek_jtag *v = realloc(t->tags, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->tags = v;
		s->tag_cap = cap;
	}
	t->tags[t->ntags++] = *tag;
	return 0;
}

static int add_revoke(struct scan *s, struct ek_jtxn *t, uint64_t blk)
{
	if (t->nrevokes == s->rev_cap) {
		size_t cap = s->rev_cap ? s->rev_cap * 2 : 32;
		uint64_t *v = realloc(t->revokes, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->revokes = v;
		s->rev_cap = cap;
	}
	t->revokes[t->nrevokes++] = blk;
	return 0;
}

/*
 * Check the data blocks of tags [first, t->ntags): read in stretches that
 * are consecutive in the log, up to s->chunk blocks at a time.
 */
bool ek_jtag_csum_ok(const struct ek_journal *j, ek_tid_t tid, uint32_t want_csum,
		     const void *data)
{
	__be32 seq = cpu_to_be32(tid);
	uint32_t seed = ek_crc32c(~0u, j->sb.uuid, 16);
	uint32_t c = ek_crc32c(ek_crc32c(seed, &seq, 4), data, j->sb.blocksize);

	if (!(j->sb.incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3))
		c &= 0xFFFF;
	return c == want_csum;
}

static int scan_data(struct scan *s, struct ek_jtxn *t, uint32_t first, uint32_t *crc_v1)
{
	const struct ek_jsb *sb = s->sb;
	uint32_t bs = sb->blocksize;

	for (uint32_t i = first, n; i < t->ntags; i += n) {
		int err;

		for (n = 1; n < s->chunk && i + n < t->ntags &&
		     t->tags[i + n].jblk == t->tags[i].jblk + n; n++)
			;
		err = ek_journal_read_blocks(s->j, t->tags[i].jblk, n, s->data);
		if (err)
			return err;
		for (uint32_t k = 0; k < n; k++) {
			struct ek_jtag *tag = &t->tags[i + k];
			const uint8_t *data = s->data + (size_t)k * bs;

			if (s->csum_v1)
				*crc_v1 = ek_crc32_be(*crc_v1, data, bs);
			if (s->csum_v23 && !s->j->no_data_csum) {
				tag->csum = ek_jtag_csum_ok(s->j, t->tid, tag->want_csum, data) ?
					    EK_CSUM_OK : EK_CSUM_BAD;
				t->bad_tags += tag->csum == EK_CSUM_BAD;
			}
		}
	}
	return 0;
}

/* the tags of a descriptor block; *jblk moves past its data blocks */
static int scan_descriptor(struct scan *s, struct ek_jtxn *t, uint32_t *jblk,
			   uint64_t *visited, uint32_t *crc_v1)
{
	const struct ek_jsb *sb = s->sb;
	uint32_t bs = sb->blocksize, tag_bytes = ek_jbd2_tag_bytes(sb->incompat);
	uint32_t off = sizeof(journal_header_t), end = bs - s->tail, first = t->ntags;
	const uint8_t *d = s->buf;
	int err, ret = 0;

	while (off + tag_bytes <= end) {
		struct ek_jtag tag = { 0 };

		tag.home = get_be32(d + off);
		if (s->csum_v23 && (sb->incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3)) {
			/* the kernel reads the low 16 bits (its t_flags at offset 6) */
			tag.flags = get_be32(d + off + 4) & 0xFFFF;
			tag.want_csum = get_be32(d + off + 12);
		} else {
			tag.flags = get_be16(d + off + 6);
			tag.want_csum = get_be16(d + off + 4);
		}
		if (sb->incompat & JBD2_FEATURE_INCOMPAT_64BIT)
			tag.home |= (uint64_t)get_be32(d + off + 8) << 32;
		*jblk = wrap(sb, (uint64_t)*jblk + 1);
		if (++*visited > sb->maxlen) {
			ret = 1;
			break;
		}
		tag.jblk = *jblk;
		err = add_tag(s, t, &tag);
		if (err)
			return err;
		off += tag_bytes;
		if (!(tag.flags & JBD2_FLAG_SAME_UUID))
			off += 16;
		if (tag.flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	if (s->csum_v1 || (s->csum_v23 && !s->j->no_data_csum)) {
		err = scan_data(s, t, first, crc_v1);
		if (err)
			return err;
	}
	return ret;
}

/*
 * The records of a revoke block, as jbd2 scan_revoke_records(): whole
 * records below r_count.  An r_count past the block fails recovery there,
 * in PASS_REVOKE, which only reaches transactions that committed: noted
 * here, raised when the transaction's commit block is accepted.  One
 * inside the header just has no records.
 */
static int scan_revoke(struct scan *s, struct ek_jtxn *t, uint32_t jblk)
{
	uint32_t bs = s->sb->blocksize, count = get_be32(s->buf + 12);
	uint32_t rsize = (s->sb->incompat & JBD2_FEATURE_INCOMPAT_64BIT) ? 8 : 4;
	int err;

	if (count > bs - s->tail) {
		if (!s->bad_rcount_jblk) {
			s->bad_rcount_jblk = jblk;
			s->bad_rcount = count;
		}
		return 0;
	}
	if (count < sizeof(jbd2_journal_revoke_header_t))
		ek_fs_warn(s->j->fs, "journal block %u: revoke r_count %u is inside its %zu-byte header",
			   jblk, count, sizeof(jbd2_journal_revoke_header_t));
	for (uint32_t off = sizeof(jbd2_journal_revoke_header_t); off + rsize <= count; off += rsize) {
		err = add_revoke(s, t, rsize == 8 ? get_be64(s->buf + off) : get_be32(s->buf + off));
		if (err)
			return err;
	}
	return 0;
}

/* as jbd2 count_tags(): the data blocks descriptor @d describes */
static uint32_t count_tags(const struct scan *s, const uint8_t *d)
{
	uint32_t tag_bytes = ek_jbd2_tag_bytes(s->sb->incompat);
	uint32_t off = sizeof(journal_header_t), end = s->sb->blocksize - s->tail, n = 0;

	while (off + tag_bytes <= end) {
		uint16_t flags = get_be16(d + off + 6);	/* low half of tag3's t_flags too */

		n++;
		off += tag_bytes + ((flags & JBD2_FLAG_SAME_UUID) ? 0 : 16);
		if (flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	return n;
}

/*
 * After an async commit whose v1 checksum failed, jbd2 scans on: finding
 * the next transaction's commit block makes it a corrupt commit rather
 * than an interrupted one (do_one_pass: "Commit block found").  Sets
 * *found when transaction @tid, starting at @jblk, has its commit block.
 */
static int next_commit_found(struct scan *s, uint32_t jblk, ek_tid_t tid, uint64_t visited,
			     bool *found)
{
	const struct ek_jsb *sb = s->sb;

	*found = false;
	while (++visited <= sb->maxlen) {
		int err = ek_journal_read(s->j, jblk, s->buf);

		if (err)
			return err;
		if (get_be32(s->buf) != JBD2_MAGIC_NUMBER || get_be32(s->buf + 8) != tid)
			return 0;
		switch (get_be32(s->buf + 4)) {
		case JBD2_COMMIT_BLOCK:
			*found = true;
			return 0;
		case JBD2_DESCRIPTOR_BLOCK:
			for (uint32_t n = count_tags(s, s->buf); n; n--, visited++)
				jblk = wrap(sb, (uint64_t)jblk + 1);
			break;
		case JBD2_REVOKE_BLOCK:
			break;
		default:
			return 0;
		}
		jblk = wrap(sb, (uint64_t)jblk + 1);
	}
	return 0;
}

int ek_journal_scan(struct ek_journal *j, struct ek_jlog *log)
{
	struct scan s = { .j = j, .log = log, .sb = &j->sb };
	const struct ek_jsb *sb = &j->sb;
	ek_tid_t next = sb->sequence;
	uint32_t jblk = sb->start, crc_v1 = ~0u;
	uint64_t visited = 0;
	uint64_t last_commit_time = 0;	/* __u64 in jbd2: compared unsigned */
	bool need_check_time = false;
	struct ek_jtxn *t = NULL;
	int err = 0;

	memset(log, 0, sizeof(*log));
	log->start_tid = log->end_tid = next;
	log->end_jblk = jblk;
	if (!sb->start) {
		log->end_reason = "journal is clean";
		return 0;
	}
	s.csum_v23 = sb->incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3);
	s.csum_v1 = !s.csum_v23 && (sb->compat & JBD2_FEATURE_COMPAT_CHECKSUM);
	s.tail = s.csum_v23 ? sizeof(struct jbd2_journal_block_tail) : 0;
	s.seed = ek_crc32c(~0u, sb->uuid, 16);
	/* data blocks are checked 64 KiB at a time (it stays in the cache) */
	s.chunk = (1u << 16) / sb->blocksize;
	s.buf = ek_malloc(sb->blocksize);
	s.data = ek_calloc(s.chunk, sb->blocksize);
	if (!s.buf || !s.data) {
		err = -ENOMEM;
		goto out;
	}

	for (;;) {
		uint32_t magic, type, seq;

		if (++visited > sb->maxlen) {
			log->end_reason = "the log is longer than the journal";
			break;
		}
		err = ek_journal_read(j, jblk, s.buf);
		if (err)
			goto out;
		magic = get_be32(s.buf);
		type = get_be32(s.buf + 4);
		seq = get_be32(s.buf + 8);
		if (magic != JBD2_MAGIC_NUMBER) {
			log->end_reason = "no magic number";
			break;
		}
		if (seq != next) {
			log->end_reason = "sequence number of another transaction";
			break;
		}
		if (type == JBD2_DESCRIPTOR_BLOCK || type == JBD2_REVOKE_BLOCK) {
			uint32_t here = jblk;

			t = cur_txn(&s, next, jblk);
			if (!t) {
				err = -ENOMEM;
				goto out;
			}
			t->nblocks++;
			if (s.csum_v23 && !block_tail_ok(&s, s.buf)) {
				t->desc_csum_bad = true;
				need_check_time = true;
			}
			if (type == JBD2_DESCRIPTOR_BLOCK) {
				uint32_t before = t->ntags;

				t->ndesc++;
				if (s.csum_v1)
					crc_v1 = ek_crc32_be(crc_v1, s.buf, sb->blocksize);
				err = scan_descriptor(&s, t, &jblk, &visited, &crc_v1);
				if (err == 1) {
					log->end_reason = "the log is longer than the journal";
					err = 0;
					break;
				}
				if (err)
					goto out;
				t->nblocks += t->ntags - before;
			} else {
				t->nrevoke_blocks++;
				err = scan_revoke(&s, t, here);
				if (err)
					goto out;
			}
			jblk = wrap(sb, (uint64_t)jblk + 1);
			continue;
		}
		if (type == JBD2_COMMIT_BLOCK) {
			const struct commit_header *ch = (const void *)s.buf;
			uint64_t commit_time = be64_to_cpu(ch->h_commit_sec);
			bool bad = false;

			t = cur_txn(&s, next, jblk);
			if (!t) {
				err = -ENOMEM;
				goto out;
			}
			t->nblocks++;
			t->commit_jblk = jblk;
			t->commit_sec = (int64_t)commit_time;
			t->commit_nsec = be32_to_cpu(ch->h_commit_nsec);
			if (s.csum_v1) {
				uint32_t found = be32_to_cpu(ch->h_chksum[0]);

				bad = !((crc_v1 == found && ch->h_chksum_type == JBD2_CRC32_CHKSUM &&
					 ch->h_chksum_size == JBD2_CRC32_CHKSUM_SIZE) ||
					(ch->h_chksum_type == 0 && ch->h_chksum_size == 0 && found == 0));
				t->commit_csum = bad ? EK_CSUM_BAD : EK_CSUM_OK;
				crc_v1 = ~0u;
			} else if (s.csum_v23) {
				bad = !commit_csum_ok(&s, s.buf);
				t->commit_csum = bad ? EK_CSUM_BAD : EK_CSUM_OK;
			}
			/* as jbd2: the commit time is judged before the commit checksum */
			if (need_check_time) {
				if (commit_time >= last_commit_time) {
					log->status = ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
								"journal: invalid descriptor or revoke checksum in transaction %u",
								next);
					t->state = EK_JTXN_BAD_COMMIT;
					log->end_reason = "descriptor or revoke block checksum mismatch";
				} else {
					log->ntxns--;
					free(t->tags);
					free(t->revokes);
					log->end_reason = "stale blocks after a checksum mismatch";
				}
				break;
			}
			if (bad) {
				if (commit_time < last_commit_time) {
					/* older than what came before: stale blocks */
					log->ntxns--;
					free(t->tags);
					free(t->revokes);
					log->end_reason = "stale commit block (older commit time)";
					break;
				}
				t->state = EK_JTXN_BAD_COMMIT;
				log->failed_commit = !(sb->incompat & JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT);
				if (!log->failed_commit && s.csum_v1) {
					err = next_commit_found(&s, wrap(sb, (uint64_t)jblk + 1), next + 1,
								visited, &log->failed_commit);
					if (err)
						goto out;
				}
				log->end_reason = log->failed_commit ?
						  "commit block checksum mismatch" :
						  "commit block checksum mismatch (interrupted async commit)";
				break;
			}
			if (s.bad_rcount_jblk) {
				err = ek_corrupt_fs("journal block %u: revoke r_count %u is past the block (%u)",
						    s.bad_rcount_jblk, s.bad_rcount,
						    sb->blocksize - s.tail);
				goto out;
			}
			t->state = EK_JTXN_COMMITTED;
			last_commit_time = commit_time;
			next++;
			t = NULL;
			jblk = wrap(sb, (uint64_t)jblk + 1);
			continue;
		}
		log->end_reason = "unknown block type";
		break;
	}
	log->end_tid = next;
	log->end_jblk = jblk;
out:
	free(s.buf);
	free(s.data);
	if (err)
		ek_jlog_release(log);
	return err;
}

void ek_jlog_release(struct ek_jlog *log)
{
	for (size_t i = 0; i < log->ntxns; i++) {
		free(log->txns[i].tags);
		free(log->txns[i].revokes);
	}
	free(log->txns);
	log->txns = NULL;
	log->ntxns = 0;
}

/* ---- names and output (shared by extkit-replay and extkit-debugfs) ---------- */

const char *ek_jtxn_state_name(enum ek_jtxn_state s)
{
	switch (s) {
	case EK_JTXN_COMMITTED:
		return "committed";
	case EK_JTXN_TORN:
		return "torn";
	case EK_JTXN_BAD_COMMIT:
		return "bad_checksum";
	}
	return "?";
}

const char *ek_csum_name(uint8_t c)
{
	return c == EK_CSUM_OK ? "ok" : c == EK_CSUM_BAD ? "bad" : "none";
}

void ek_jtxn_emit(struct ek_out *o, const struct ek_journal *j, const struct ek_jtxn *t,
		  int64_t prev_sec, uint32_t prev_nsec)
{
	bool unchecked = j->no_data_csum &&
			 (j->sb.incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3));
	char iso[32];

	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "tid", t->tid);
	ek_out_str(o, "state", ek_jtxn_state_name(t->state));
	ek_out_u64(o, "first_block", t->first_jblk);
	if (t->commit_jblk)
		ek_out_u64(o, "commit_block", t->commit_jblk);
	else
		ek_out_null(o, "commit_block");
	ek_out_u64(o, "blocks", t->nblocks);
	ek_out_u64(o, "data_blocks", t->ntags);
	ek_out_u64(o, "descriptor_blocks", t->ndesc);
	ek_out_u64(o, "revoke_blocks", t->nrevoke_blocks);
	ek_out_u64(o, "revoke_records", t->nrevokes);
	if (t->commit_jblk) {
		ek_out_s64(o, "commit_sec", t->commit_sec);
		ek_out_u64(o, "commit_nsec", t->commit_nsec);
		ek_out_str(o, "commit_time", ek_fmt_iso(t->commit_sec, iso, sizeof(iso)));
		if (prev_sec >= 0)
			ek_out_double(o, "delta_sec", (double)(t->commit_sec - prev_sec) +
				      ((double)t->commit_nsec - prev_nsec) / 1e9);
	}
	ek_out_str(o, "commit_checksum", ek_csum_name(t->commit_csum));
	ek_out_bool(o, "descriptor_checksum_ok", !t->desc_csum_bad);
	if (unchecked)
		ek_out_null(o, "bad_data_checksums");
	else
		ek_out_u64(o, "bad_data_checksums", t->bad_tags);
	ek_out_obj_end(o);
}
