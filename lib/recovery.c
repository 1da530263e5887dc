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
	struct ek_jfmt f;	/* the log blocks' layout and checksums */
	uint8_t *buf;
	uint8_t *data;		/* chunk blocks: data blocks being checked */
	uint32_t chunk;
	size_t tag_cap, rev_cap, txn_cap;
	/* why the current transaction's first revoke block whose r_count runs
	 * past the block (t->bad_revoke_jblk) fails recovery if it commits */
	int bad_rcount_err;
	char bad_rcount_msg[sizeof(((struct ek_jlog *)0)->refused)];
};

static uint32_t wrap(const struct ek_jsb *sb, uint64_t jblk)
{
	if (jblk >= sb->last)
		jblk -= sb->last - sb->first;
	return jblk;
}

/*
 * Record why recovery would be refused (the first reason, as the kernel
 * stops at it; one found by the scan itself, PASS_SCAN, comes before one
 * PASS_REVOKE would find in a transaction the scan accepted earlier).
 */
static void refuse(struct ek_jlog *log, int err, bool pass_scan)
{
	if (log->status && !(pass_scan && log->refused_late))
		return;
	log->status = err;
	log->refused_late = !pass_scan;
	snprintf(log->refused, sizeof(log->refused), "%s", ek_error_msg(err));
}

static struct ek_jtxn *cur_txn(struct scan *s, ek_tid_t tid, uint32_t jblk)
{
	struct ek_jlog *log = s->log;
	struct ek_jtxn *t;

	if (log->ntxns && log->txns[log->ntxns - 1].tid == tid &&
	    log->txns[log->ntxns - 1].state == EK_JTXN_TORN)
		return &log->txns[log->ntxns - 1];
	if (ek_grow(&log->txns, &s->txn_cap, log->ntxns + 1, sizeof(*log->txns)))
		return NULL;
	t = &log->txns[log->ntxns++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first_jblk = jblk;
	t->state = EK_JTXN_TORN;	/* until its commit block is found */
	s->tag_cap = s->rev_cap = 0;
	return t;
}

static int add_tag(struct scan *s, struct ek_jtxn *t, const struct ek_jtag *tag)
{
	if (ek_grow(&t->tags, &s->tag_cap, t->ntags + 1, sizeof(*t->tags)))
		return -ENOMEM;
	t->tags[t->ntags++] = *tag;
	return 0;
}

static int add_revoke(struct scan *s, struct ek_jtxn *t, uint64_t blk)
{
	if (ek_grow(&t->revokes, &s->rev_cap, t->nrevokes + 1, sizeof(*t->revokes)))
		return -ENOMEM;
	t->revokes[t->nrevokes++] = blk;
	return 0;
}

bool ek_jtag_csum_ok(const struct ek_journal *j, ek_tid_t tid, uint32_t want_csum,
		     const void *data)
{
	struct ek_jfmt f;

	ek_jfmt_init(&f, &j->sb);
	return ek_jtag_csum(&f, tid, data) == want_csum;
}

/*
 * Check the data blocks of tags [first, t->ntags): read in stretches that
 * are consecutive in the log, up to s->chunk blocks at a time.
 */
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

			if (s->f.v1)
				*crc_v1 = ek_crc32_be(*crc_v1, data, bs);
			if (s->f.v23 && !s->j->no_data_csum) {
				tag->csum = ek_jtag_csum(&s->f, t->tid, data) == tag->want_csum ?
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
	uint32_t off = sizeof(journal_header_t), first = t->ntags;
	struct ek_jtag_raw raw;
	int err, ret = 0;

	while (ek_jdesc_tag(&s->f, s->buf, &off, &raw)) {
		struct ek_jtag tag = { .home = raw.home, .flags = raw.flags };

		tag.want_csum = raw.csum;
		*jblk = wrap(sb, (uint64_t)*jblk + 1);
		if (++*visited > sb->maxlen) {
			ret = 1;
			break;
		}
		tag.jblk = *jblk;
		err = add_tag(s, t, &tag);
		if (err)
			return err;
		if (tag.flags & JBD2_FLAG_LAST_TAG)
			break;
	}
	if (s->f.v1 || (s->f.v23 && !s->j->no_data_csum)) {
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
	uint32_t nrec;
	int err = ek_jrevoke_decode(&s->f, s->buf, jblk, &nrec);

	if (err < 0) {
		if (!t->bad_revoke_jblk) {
			t->bad_revoke_jblk = jblk;
			s->bad_rcount_err = err;
			snprintf(s->bad_rcount_msg, sizeof(s->bad_rcount_msg), "%s",
				 ek_error_msg(err));
		}
		return 0;
	}
	if (err)
		ek_fs_warn(s->j->fs, "journal block %u: revoke r_count %u is inside its %zu-byte header",
			   jblk, ek_jrevoke_count(s->buf), sizeof(jbd2_journal_revoke_header_t));
	for (uint32_t i = 0; i < nrec; i++) {
		err = add_revoke(s, t, ek_jrevoke_rec(&s->f, s->buf, i));
		if (err)
			return err;
	}
	return 0;
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
		uint32_t type;
		ek_tid_t seq;

		if (!ek_jhdr_decode(s->buf, &type, &seq) || seq != tid)
			return 0;
		switch (type) {
		case JBD2_COMMIT_BLOCK:
			*found = true;
			return 0;
		case JBD2_DESCRIPTOR_BLOCK:
			for (uint32_t n = ek_jdesc_count(&s->f, s->buf); n; n--, visited++)
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

/*
 * A journal block that cannot be read ends the scan: the kernel fails
 * recovery on it (an I/O error); what came before is still shown.
 * Returns the error when it is one to pass up (-ENOMEM), else 0.
 */
static int read_failed(struct ek_jlog *log, int err)
{
	if (err == -ENOMEM)
		return err;
	refuse(log, err, true);
	log->end_reason = "a journal block cannot be read";
	return 0;
}

/* drop the last transaction: stale blocks the kernel ends the log before */
static void drop_last(struct ek_jlog *log, struct ek_jtxn *t, const char *why)
{
	log->ntxns--;
	free(t->tags);
	free(t->revokes);
	log->end_reason = why;
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
	uint32_t bad_tail_jblk = 0, bad_tail_type = 0;	/* the first failing tail */
	struct ek_jtxn *t = NULL;
	int err = 0;

	memset(log, 0, sizeof(*log));
	log->start_tid = log->end_tid = next;
	log->end_jblk = jblk;
	if (!sb->start) {
		log->end_reason = EK_JLOG_CLEAN;
		return 0;
	}
	ek_jfmt_init(&s.f, sb);
	/* data blocks are checked 64 KiB at a time (it stays in the cache) */
	s.chunk = (1u << 16) / sb->blocksize;
	s.buf = ek_malloc(sb->blocksize);
	s.data = ek_calloc(s.chunk, sb->blocksize);
	if (!s.buf || !s.data) {
		err = -ENOMEM;
		goto out;
	}

	for (;;) {
		uint32_t type;
		ek_tid_t seq;

		if (++visited > sb->maxlen) {
			log->end_reason = "the log is longer than the journal";
			break;
		}
		err = ek_journal_read(j, jblk, s.buf);
		if (err) {
			err = read_failed(log, err);
			break;
		}
		if (!ek_jhdr_decode(s.buf, &type, &seq)) {
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
			if (!ek_jtail_ok(&s.f, s.buf)) {
				t->desc_csum_bad = true;
				if (!need_check_time) {
					bad_tail_jblk = jblk;
					bad_tail_type = type;
				}
				need_check_time = true;
			}
			if (type == JBD2_DESCRIPTOR_BLOCK) {
				uint32_t before = t->ntags;

				t->ndesc++;
				if (s.f.v1)
					crc_v1 = ek_crc32_be(crc_v1, s.buf, sb->blocksize);
				err = scan_descriptor(&s, t, &jblk, &visited, &crc_v1);
				if (err == 1) {
					log->end_reason = "the log is longer than the journal";
					err = 0;
					break;
				}
				if (err) {
					err = read_failed(log, err);
					break;
				}
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
			struct ek_jcommit c;
			bool bad;

			ek_jcommit_decode(s.buf, &c);
			t = cur_txn(&s, next, jblk);
			if (!t) {
				err = -ENOMEM;
				goto out;
			}
			t->nblocks++;
			t->commit_jblk = jblk;
			t->commit_sec = (int64_t)c.sec;
			t->commit_nsec = c.nsec;
			bad = !ek_jcommit_csum_ok(&s.f, s.buf, crc_v1);
			if (s.f.v1 || s.f.v23)
				t->commit_csum = bad ? EK_CSUM_BAD : EK_CSUM_OK;
			crc_v1 = ~0u;
			/* as jbd2: the commit time is judged before the commit checksum */
			if (need_check_time) {
				if (c.sec >= last_commit_time) {
					refuse(log, ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
							      "journal block %u: the %s block of transaction %u fails its checksum and a commit block not older follows",
							      bad_tail_jblk,
							      bad_tail_type == JBD2_REVOKE_BLOCK ? "revoke" : "descriptor",
							      next), true);
					t->state = EK_JTXN_BAD_COMMIT;
					log->end_reason = "descriptor or revoke block checksum mismatch";
				} else {
					drop_last(log, t, "stale blocks after a checksum mismatch");
				}
				break;
			}
			if (bad) {
				if (c.sec < last_commit_time) {
					/* older than what came before: stale blocks */
					drop_last(log, t, "stale commit block (older commit time)");
					break;
				}
				t->state = EK_JTXN_BAD_COMMIT;
				log->failed_commit = !(sb->incompat & JBD2_FEATURE_INCOMPAT_ASYNC_COMMIT);
				log->end_reason = log->failed_commit ?
						  "commit block checksum mismatch" :
						  "commit block checksum mismatch (interrupted async commit)";
				if (!log->failed_commit && s.f.v1) {
					err = next_commit_found(&s, wrap(sb, (uint64_t)jblk + 1), next + 1,
								visited, &log->failed_commit);
					if (err)
						err = read_failed(log, err);
					else if (log->failed_commit)
						log->end_reason = "commit block checksum mismatch";
				}
				break;
			}
			/* PASS_REVOKE fails on this committed transaction's revoke block */
			if (t->bad_revoke_jblk) {
				ek__error(s.bad_rcount_err, __FILE__, __LINE__, EK_AT_NONE, 0, "%s",
					  s.bad_rcount_msg);
				refuse(log, s.bad_rcount_err, false);
			}
			t->state = EK_JTXN_COMMITTED;
			last_commit_time = c.sec;
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
	/* callers print ek_error_msg(log->status): the reason is the last error */
	if (log->status)
		ek__error(log->status, __FILE__, __LINE__, EK_AT_NONE, 0, "%s", log->refused);
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

bool ek_jtxn_time_ok(const struct ek_journal *j, const struct ek_jtxn *t)
{
	return ek_jcommit_time_ok(t->commit_sec, j->fs ? j->fs->sb.mkfs_time : 0);
}

bool ek_jlog_emit_status(struct ek_out *o, const struct ek_journal *j, const struct ek_jlog *log)
{
	bool clean = !j->sb.start;

	if (clean)
		ek_out_text(o, "%s\n", EK_JLOG_CLEAN);
	if (log->status)
		ek_out_text(o, "recovery would be refused: %s\n", log->refused);
	ek_out_bool(o, "clean", clean);
	if (log->status)
		ek_out_str(o, "recovery_refused", log->refused);
	else
		ek_out_null(o, "recovery_refused");
	return clean;
}

void ek_jtxn_emit_fields(struct ek_out *o, const struct ek_journal *j, const struct ek_jtxn *t,
			 int64_t prev_sec, uint32_t prev_nsec)
{
	bool unchecked = j->no_data_csum &&
			 (j->sb.incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 | JBD2_FEATURE_INCOMPAT_CSUM_V3));
	bool time_ok = ek_jtxn_time_ok(j, t);
	char iso[32];

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
	if (t->bad_revoke_jblk)
		ek_out_u64(o, "bad_revoke_block", t->bad_revoke_jblk);
	if (t->commit_jblk) {
		ek_out_s64(o, "commit_sec", t->commit_sec);
		ek_out_u64(o, "commit_nsec", t->commit_nsec);
		/* an impossible time keeps its raw value, never a made-up date */
		if (time_ok)
			ek_out_str(o, "commit_time", ek_fmt_iso(t->commit_sec, iso, sizeof(iso)));
		else
			ek_out_null(o, "commit_time");
		ek_out_bool(o, "commit_time_ok", time_ok);
		if (prev_sec >= 0 && time_ok)
			ek_out_double(o, "delta_sec", (double)(t->commit_sec - prev_sec) +
				      ((double)t->commit_nsec - prev_nsec) / 1e9);
	}
	ek_out_str(o, "commit_checksum", ek_csum_name(t->commit_csum));
	ek_out_bool(o, "descriptor_checksum_ok", !t->desc_csum_bad);
	if (unchecked)
		ek_out_null(o, "bad_data_checksums");
	else
		ek_out_u64(o, "bad_data_checksums", t->bad_tags);
}

void ek_jtxn_emit(struct ek_out *o, const struct ek_journal *j, const struct ek_jtxn *t,
		  int64_t prev_sec, uint32_t prev_nsec)
{
	ek_out_obj_begin(o, NULL);
	ek_jtxn_emit_fields(o, j, t, prev_sec, prev_nsec);
	ek_out_obj_end(o);
}

/* ---- the ring outside the live log ---------------------------------------- */

bool ek_jlog_live(const struct ek_journal *j, const struct ek_jlog *log, uint32_t jblk)
{
	uint32_t s = j->sb.start, e = log->end_jblk;

	if (!s)
		return false;
	return s <= e ? jblk >= s && jblk < e : jblk >= s || jblk < e;
}

int ek_jlog_stale_walk(struct ek_journal *j, const struct ek_jlog *log,
		       int (*fn)(void *arg, const struct ek_jstale_blk *b), void *arg)
{
	const struct ek_jsb *sb = &j->sb;
	/* read ahead in windows of up to 256 blocks: most of a big ring is
	 * old data or never written, and one read per block is a syscall each */
	enum { WIN = 256 };
	uint8_t *win = ek_calloc(WIN, sb->blocksize), *buf;
	uint32_t wstart = 0, wn = 0;
	struct ek_jfmt f;
	int ret = 0;

	if (!win)
		return -ENOMEM;
	ek_jfmt_init(&f, sb);
	/* one step per block at least: b only grows, up to sb->last */
	for (uint32_t b = sb->first; b < sb->last && !ret; b++) {
		struct ek_jstale_blk sbk = { .jblk = b };
		uint32_t skip = 0;

		if (ek_jlog_live(j, log, b))
			continue;
		if (b < wstart || b - wstart >= wn) {
			uint32_t n = sb->last - b < WIN ? sb->last - b : WIN, hole;

			/* the window stops at the live region: it is not read */
			for (uint32_t k = 1; k < n; k++)
				if (ek_jlog_live(j, log, b + k)) {
					n = k;
					break;
				}
			/* never-written journal blocks of a sparse image: all zeros */
			hole = ek_journal_hole_blocks(j, b, n);
			if (hole) {
				b += hole - 1;
				continue;
			}
			wstart = b;
			wn = ek_journal_read_blocks(j, b, n, win) ? 0 : n;
			if (!wn) {
				/* a bad block in the window: this one alone */
				if (ek_journal_read(j, b, win))
					continue;
				wn = 1;
			}
		}
		buf = win + (size_t)(b - wstart) * sb->blocksize;
		if (!ek_jhdr_decode(buf, &sbk.type, &sbk.seq))
			continue;
		if (sbk.type == JBD2_DESCRIPTOR_BLOCK)
			skip = ek_jdesc_count(&f, buf);
		/* the data blocks a stale descriptor names follow it (not wrapped) */
		for (; skip && b + 1 < sb->last && !ek_jlog_live(j, log, b + 1); skip--, b++)
			sbk.ndata++;
		ret = fn(arg, &sbk);
	}
	free(win);
	return ret;
}
