// SPDX-License-Identifier: MIT
/*
 * main.c - extkit-replay: inspect and replay the jbd2 journal.
 * Subcommands share one table; each opens the image read-only but apply,
 * which hands the image to the library's recovery driver (recover.c).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "extkit.h"
#include "cmd_mount.h"
#include "diff.h"
#include "replay.h"

static int fail(struct rp *r, const char *what, int err)
{
	char hint[200] = "";

	/* a whole disk where a filesystem was expected: name the partitions */
	if (err == -EK_CORRUPT && r->image)
		ek_partitions_hint(r->image, r->offset, "--offset", hint, sizeof(hint));
	/* a checksum alone: -n reads the rest all the same */
	if (err == -EK_BADCRC && !(r->flags & EK_OPEN_IGNORE_CSUM))
		snprintf(hint, sizeof(hint), " (-n, --ignore-csum, reads it despite the checksum)");
	fprintf(stderr, "%s: %s: %s%s\n", r->prog, what, ek_error_msg(err), hint);
	/* what is missing is the filesystem's external journal */
	if (err == -ENODEV && !r->journal_dev)
		fprintf(stderr, "%s: name the external journal device with --journal-dev\n", r->prog);
	return 1;
}

static void flush_warnings(struct rp *r)
{
	for (unsigned i = 0; r->fs && i < r->fs->nwarnings; i++) {
		fprintf(stderr, "%s: warning: %s\n", r->prog, r->fs->warnings[i]);
		free(r->fs->warnings[i]);
	}
	if (r->fs)
		r->fs->nwarnings = 0;
}

/* the transactions of the live log as "first..last", or why there are none */
static const char *log_range(const struct rp *r, char *buf, size_t len)
{
	if (!r->j->sb.start)
		snprintf(buf, len, "%s", EK_JLOG_CLEAN);
	else if (!r->log.ntxns)
		snprintf(buf, len, "the live log holds no transaction");
	else
		snprintf(buf, len, "transactions %u..%u", r->log.txns[0].tid,
			 r->log.txns[r->log.ntxns - 1].tid);
	return buf;
}

/* a commit time as list and history show it: ISO, or "impossible" */
static const char *commit_iso(const struct rp *r, const struct ek_jtxn *t, char *buf, size_t len)
{
	if (!ek_jtxn_time_ok(r->j, t))
		return snprintf(buf, len, "impossible"), buf;
	return ek_fmt_iso(t->commit_sec, buf, len);
}

/* ---- info ---------------------------------------------------------------- */

static int info_fc(struct rp *r);

static int do_info(struct rp *r, int argc, char **argv)
{
	const struct ek_jsb *s = &r->j->sb;
	struct ek_out *o = r->out;
	size_t committed = 0;
	int err;

	(void)argc, (void)argv;
	for (size_t i = 0; i < r->log.ntxns; i++)
		committed += r->log.txns[i].state == EK_JTXN_COMMITTED;
	if (r->j->dev)
		ek_out_text(o, "Journal:           external device %s, %u blocks of %u bytes, %u user%s\n",
			    r->journal_dev, s->maxlen, s->blocksize, s->nr_users,
			    s->nr_users == 1 ? "" : "s");
	else
		ek_out_text(o, "Journal:           inode %u%s, %u blocks of %u bytes\n",
			    r->fs->sb.journal_inum,
			    r->j->from_backup ? " (mapped from the superblock's backup)" : "",
			    s->maxlen, s->blocksize);
	ek_out_text(o, "Log area:          blocks %u..%u%s\n", s->first, s->last - 1,
		    s->num_fc_blks ? " (then the fast-commit area)" : "");
	ek_out_text(o, "State:             %s\n", s->start ? "needs recovery" : "clean");
	ek_out_text(o, "Sequence:          %u\n", s->sequence);
	ek_out_text(o, "Log start:         %u\n", s->start);
	if (s->start) {
		ek_out_text(o, "Live region:       blocks %u..%u (wrapping at %u)\n", s->start,
			    r->log.end_jblk, s->last);
		if (committed)
			ek_out_text(o, "Transactions:      %zu committed (%u..%u)%s\n", committed,
				    r->log.start_tid, r->log.end_tid - 1,
				    r->log.ntxns > committed ? ", then one not committed" : "");
		else
			ek_out_text(o, "Transactions:      none committed%s\n",
				    r->log.ntxns ? ", one not committed" : "");
		ek_out_text(o, "Log end:           %s\n", r->log.end_reason);
	}
	if (s->errno_)
		ek_out_text(o, "Journal errno:     %d\n", s->errno_);

	ek_out_obj_begin(o, NULL);
	ek_journal_emit(o, r->j, r->journal_dev);
	ek_jlog_emit_status(o, r->j, &r->log);
	ek_out_str(o, "state", s->start ? "needs_recovery" : "clean");
	ek_out_u64(o, "transactions_committed", committed);
	ek_out_u64(o, "end_tid", r->log.end_tid);
	ek_out_u64(o, "end_block", r->log.end_jblk);
	ek_out_str(o, "end_reason", r->log.end_reason);
	err = info_fc(r);
	ek_out_obj_end(o);
	return err ? 1 : 0;
}

/* ---- list ---------------------------------------------------------------- */

static int do_list(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	int64_t prev_sec = -1;
	uint32_t prev_nsec = 0;
	bool clean = false;

	(void)argc, (void)argv;
	/* JSON Lines carries the transactions alone */
	if (!r->jsonl) {
		ek_out_obj_begin(o, NULL);
		clean = ek_jlog_emit_status(o, r->j, &r->log);
	}
	if (!clean)
		ek_out_text(o, "%10s %7s %7s %6s %5s %5s %6s %-20s %-20s %9s %-5s %s\n", "tid",
			    "first", "commit", "data", "desc", "rvblk", "revoke", "commit time",
			    "sec.nsec", "delta", "csum", "state");
	if (!r->jsonl)
		ek_out_arr_begin(o, "transactions");
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];
		char iso[32] = "-", secs[32] = "-", delta[32] = "-", commit[16] = "-";

		if (t->commit_jblk) {
			snprintf(commit, sizeof(commit), "%u", t->commit_jblk);
			commit_iso(r, t, iso, sizeof(iso));
			snprintf(secs, sizeof(secs), "%lld.%09u", (long long)t->commit_sec, t->commit_nsec);
			if (prev_sec >= 0 && ek_jtxn_time_ok(r->j, t))
				snprintf(delta, sizeof(delta), "%.3f", (double)(t->commit_sec - prev_sec) +
					 ((double)t->commit_nsec - prev_nsec) / 1e9);
		}
		ek_out_text(o, "%10u %7u %7s %6u %5u %5u %6u %-20s %-20s %9s %-5s %s\n", t->tid,
			    t->first_jblk, commit, t->ntags, t->ndesc,
			    t->nrevoke_blocks, t->nrevokes, iso, secs, delta,
			    t->desc_csum_bad || t->bad_tags ? "bad" : ek_csum_name(t->commit_csum),
			    ek_jtxn_state_name(t->state));
		ek_jtxn_emit(o, r->j, t, prev_sec, prev_nsec);
		ek_out_record_end(o);
		if (t->commit_jblk) {
			/* no delta from (or to) a time that cannot be real */
			prev_sec = ek_jtxn_time_ok(r->j, t) ? t->commit_sec : -1;
			prev_nsec = t->commit_nsec;
		}
	}
	if (!r->jsonl) {
		ek_out_arr_end(o);
		ek_out_u64(o, "end_tid", r->log.end_tid);
		ek_out_str(o, "end_reason", r->log.end_reason);
		ek_out_obj_end(o);
	}
	return 0;
}

/* ---- show ---------------------------------------------------------------- */

struct show_owners {
	bool have_upto;		/* some committed transaction is replayed first */
	ek_tid_t upto;		/* the last one */
	struct ek_blk_owner *own;	/* per tag of the transaction, NULL if unknown */
};

/*
 * What the home blocks of @t are in the image as replaying the log up to
 * @t leaves it (up to the last committed transaction when @t is not
 * committed): a second, read-only ek_fs sees the image through that
 * plan's overlay.  Damage that leaves some owners unknown is a warning;
 * 1 when no owner could be found at all.
 */
static int show_owners(struct rp *r, const struct ek_jtxn *t, struct show_owners *so)
{
	struct ek_jplan plan;
	struct ek_jplan_view view = { r->j, &plan };
	struct ek_fs *rfs = NULL;
	ek_blk_t *homes = NULL;
	const char *stage = "replay plan";
	int err;

	so->have_upto = false;
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *u = &r->log.txns[i];

		if (u->state == EK_JTXN_COMMITTED && ek_tid_after(r->log.end_tid, u->tid) &&
		    (t->state != EK_JTXN_COMMITTED || ek_tid_after_eq(t->tid, u->tid))) {
			so->have_upto = true;
			so->upto = u->tid;
		}
	}
	err = ek_journal_plan(r->j, &r->log, so->have_upto ? so->upto : r->log.start_tid - 1,
			      &plan);
	if (err)
		goto out_warn;
	stage = "the replayed image";
	err = ek_fs_open(r->image, &(struct ek_open_opts){
				.flags = r->fs->flags & EK_OPEN_IGNORE_CSUM,
				.overlay = ek_jplan_overlay, .overlay_arg = &view }, &rfs);
	if (err)
		goto out_release_plan;
	for (unsigned i = 0; i < rfs->nwarnings; i++)
		fprintf(stderr, "%s: warning: replayed image: %s\n", r->prog, rfs->warnings[i]);
	homes = calloc(t->ntags, sizeof(*homes));
	so->own = calloc(t->ntags, sizeof(*so->own));
	if (!homes || !so->own) {
		err = -ENOMEM;
		goto out_close;
	}
	for (uint32_t i = 0; i < t->ntags; i++)
		homes[i] = t->tags[i].home;
	stage = "block owners";
	err = ek_blocks_owner(rfs, homes, t->ntags, so->own);
	if (err && err != -ENOMEM && err != -EINVAL) {
		fprintf(stderr, "%s: warning: some block owners may be unknown: %s\n", r->prog,
			ek_error_msg(err));
		err = 0;
	}
out_close:
	free(homes);
	ek_fs_close(rfs);
out_release_plan:
	ek_jplan_release(&plan);
out_warn:
	if (err) {
		fprintf(stderr, "%s: cannot tell what the home blocks are: %s: %s\n", r->prog,
			stage, ek_error_msg(err));
		free(so->own);
		so->own = NULL;
		return 1;
	}
	return 0;
}

static void owner_json(struct ek_out *o, const struct ek_blk_owner *w)
{
	ek_out_obj_begin(o, "owner");
	ek_out_str(o, "kind", ek_blk_owner_kind_name(w->kind));
	switch (w->kind) {
	case EK_OWNER_SUPER:
	case EK_OWNER_GDT:
	case EK_OWNER_RESERVED_GDT:
		ek_out_u64(o, "group", w->group);
		ek_out_bool(o, "backup", w->backup);
		if (w->kind == EK_OWNER_GDT) {
			ek_out_u64(o, "first_group", w->first_group);
			ek_out_u64(o, "last_group", w->last_group);
		}
		break;
	case EK_OWNER_BLOCK_BITMAP:
	case EK_OWNER_INODE_BITMAP:
		ek_out_u64(o, "group", w->group);
		break;
	case EK_OWNER_INODE_TABLE:
		ek_out_u64(o, "group", w->group);
		ek_out_u64(o, "first_inode", w->first_ino);
		ek_out_u64(o, "last_inode", w->last_ino);
		break;
	case EK_OWNER_JOURNAL:
	case EK_OWNER_DIR:
	case EK_OWNER_DATA:
		ek_out_u64(o, "inode", w->ino);
		ek_out_u64(o, "logical_block", w->lblk);
		if (w->kind != EK_OWNER_JOURNAL)
			ek_out_bool(o, "unwritten", w->unwritten);
		break;
	case EK_OWNER_EXTENT_INDEX:
	case EK_OWNER_EXTENT_LEAF:
	case EK_OWNER_INDIRECT:
		ek_out_u64(o, "inode", w->ino);
		ek_out_u64(o, "level", w->level);
		ek_out_u64(o, "logical_block", w->lblk);
		break;
	case EK_OWNER_XATTR:
		ek_out_u64(o, "inodes", w->refs);
		ek_out_u64(o, "first_inode", w->first_ino);
		ek_out_u64(o, "last_inode", w->last_ino);
		break;
	default:
		break;
	}
	ek_out_obj_end(o);
}

static int do_show(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	const struct ek_jtxn *t = NULL;
	struct show_owners so = { 0 };
	char *end, what[128], range[80];
	unsigned long tid;
	int ret = 0;

	(void)argc;	/* main checked: IMAGE TID */
	tid = strtoul(argv[1], &end, 0);
	if (*end || !*argv[1] || tid > UINT32_MAX)
		return fprintf(stderr, "%s: bad transaction id '%s'\n", r->prog, argv[1]), 2;
	for (size_t i = 0; i < r->log.ntxns; i++)
		if (r->log.txns[i].tid == tid)
			t = &r->log.txns[i];
	if (!t) {
		fprintf(stderr, "%s: transaction %lu is not in the live log (%s)\n", r->prog, tid,
			log_range(r, range, sizeof(range)));
		return 1;
	}
	if (t->ntags)
		ret = show_owners(r, t, &so);
	ek_out_text(o, "Transaction %u (%s), journal blocks %u..%u\n", t->tid, ek_jtxn_state_name(t->state),
		    t->first_jblk, t->commit_jblk ? t->commit_jblk : t->first_jblk + t->nblocks - 1);
	if (so.own && so.have_upto)
		ek_out_text(o, "Owners: the image as replaying transactions up to %u leaves it\n",
			    so.upto);
	else if (so.own)
		ek_out_text(o, "Owners: the image as it is (no committed transaction before it)\n");
	ek_out_obj_begin(o, NULL);
	ek_jlog_emit_status(o, r->j, &r->log);
	if (t->bad_revoke_jblk)
		ek_out_text(o, "Revoke block at journal block %u: r_count past the block, records not read\n",
			    t->bad_revoke_jblk);
	ek_out_u64(o, "tid", t->tid);
	ek_out_str(o, "state", ek_jtxn_state_name(t->state));
	if (so.own && so.have_upto)
		ek_out_u64(o, "owners_after_tid", so.upto);
	else
		ek_out_null(o, "owners_after_tid");
	ek_out_text(o, "%10s %14s %6s %-8s %-13s %s\n", "jblock", "home", "flags", "checksum",
		    "replay", "owner");
	ek_out_arr_begin(o, "blocks");
	for (uint32_t i = 0; i < t->ntags; i++) {
		const struct ek_jtag *g = &t->tags[i];

		enum ek_jfate fate = ek_jplan_fate(&r->plan, r->j, t, g);

		ek_out_text(o, "%10u %14llu %#6x %-8s %-13s %s%s\n", g->jblk,
			    (unsigned long long)g->home, g->flags, ek_csum_name(g->csum),
			    ek_jfate_name(fate),
			    so.own ? ek_blk_owner_describe(&so.own[i], what, sizeof(what)) : "-",
			    g->flags & JBD2_FLAG_ESCAPE ? " [escaped]" : "");
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "journal_block", g->jblk);
		ek_out_u64(o, "home", g->home);
		ek_out_u64(o, "flags", g->flags);
		ek_out_bool(o, "escaped", g->flags & JBD2_FLAG_ESCAPE);
		ek_out_str(o, "checksum", ek_csum_name(g->csum));
		ek_out_str(o, "replay", ek_jfate_name(fate));
		if (so.own)
			owner_json(o, &so.own[i]);
		else
			ek_out_null(o, "owner");
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	if (t->nrevokes)
		ek_out_text(o, "Revoked:");
	ek_out_arr_begin(o, "revoked");
	for (uint32_t i = 0; i < t->nrevokes; i++) {
		ek_out_text(o, " %llu", (unsigned long long)t->revokes[i]);
		ek_out_u64(o, NULL, t->revokes[i]);
	}
	ek_out_arr_end(o);
	if (t->nrevokes)
		ek_out_text(o, "\n");
	ek_out_obj_end(o);
	free(so.own);
	return ret;
}

/* ---- revokes -------------------------------------------------------------- */

static int do_revokes(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;

	(void)argc, (void)argv;
	ek_out_obj_begin(o, NULL);
	if (!ek_jlog_emit_status(o, r->j, &r->log))
		ek_out_text(o, "%10s %14s %s\n", "tid", "home", "cancels (tid:journal block)");
	ek_out_arr_begin(o, "revokes");
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];

		for (uint32_t k = 0; k < t->nrevokes; k++) {
			uint64_t home = t->revokes[k];

			ek_out_text(o, "%10u %14llu", t->tid, (unsigned long long)home);
			ek_out_obj_begin(o, NULL);
			ek_out_u64(o, "tid", t->tid);
			ek_out_u64(o, "home", home);
			ek_out_bool(o, "committed", t->state == EK_JTXN_COMMITTED);
			ek_out_arr_begin(o, "cancels");
			/* the copies this record cancels: same home, transaction <= its own */
			for (size_t m = 0; m <= i && t->state == EK_JTXN_COMMITTED; m++) {
				const struct ek_jtxn *u = &r->log.txns[m];

				for (uint32_t g = 0; g < u->ntags; g++) {
					if (u->tags[g].home != home)
						continue;
					ek_out_text(o, " %u:%u", u->tid, u->tags[g].jblk);
					ek_out_obj_begin(o, NULL);
					ek_out_u64(o, "tid", u->tid);
					ek_out_u64(o, "journal_block", u->tags[g].jblk);
					ek_out_obj_end(o);
				}
			}
			ek_out_arr_end(o);
			ek_out_obj_end(o);
			ek_out_text(o, "\n");
		}
	}
	ek_out_arr_end(o);
	ek_out_arr_begin(o, "bad_revoke_blocks");
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];

		if (!t->bad_revoke_jblk)
			continue;
		ek_out_text(o, "transaction %u: revoke block at journal block %u has an r_count past the block: its records are not read\n",
			    t->tid, t->bad_revoke_jblk);
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "tid", t->tid);
		ek_out_u64(o, "journal_block", t->bad_revoke_jblk);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	ek_out_u64(o, "revoked_copies", r->plan.revoked);
	ek_out_obj_end(o);
	ek_out_text(o, "%llu logged copies revoked\n", (unsigned long long)r->plan.revoked);
	return 0;
}

/* ---- history: the offline /proc/fs/jbd2/<dev>/history -------------------- */

int do_history(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	uint64_t n = 0, blocks = 0, logged = 0, revokes = 0;
	double dsum = 0;
	uint64_t dcount = 0;
	const struct ek_jtxn *prev = NULL;

	(void)argc, (void)argv;
	ek_out_obj_begin(o, NULL);
	if (!ek_jlog_emit_status(o, r->j, &r->log))
		ek_out_text(o, "%-10s %-20s %9s %7s %7s %7s\n", "R/C", "commit time", "delta",
			    "blocks", "logged", "revokes");
	ek_out_arr_begin(o, "transactions");
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];
		char iso[32] = "-", delta[24] = "-";
		bool time_ok;
		double d = 0;

		if (t->state != EK_JTXN_COMMITTED)
			continue;
		time_ok = ek_jtxn_time_ok(r->j, t);
		commit_iso(r, t, iso, sizeof(iso));
		if (prev && time_ok) {
			d = (double)(t->commit_sec - prev->commit_sec) +
			    ((double)t->commit_nsec - prev->commit_nsec) / 1e9;
			snprintf(delta, sizeof(delta), "%.3f", d);
			dsum += d;
			dcount++;
		}
		ek_out_text(o, "%-10u %-20s %9s %7u %7u %7u\n", t->tid, iso, delta, t->ntags,
			    t->nblocks, t->nrevokes);
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "tid", t->tid);
		ek_out_s64(o, "commit_sec", t->commit_sec);
		ek_out_u64(o, "commit_nsec", t->commit_nsec);
		ek_out_bool(o, "commit_time_ok", time_ok);
		if (prev && time_ok)
			ek_out_double(o, "delta_sec", d);
		ek_out_u64(o, "blocks", t->ntags);
		ek_out_u64(o, "blocks_logged", t->nblocks);
		ek_out_u64(o, "revokes", t->nrevokes);
		ek_out_obj_end(o);
		n++;
		blocks += t->ntags;
		logged += t->nblocks;
		revokes += t->nrevokes;
		prev = time_ok ? t : NULL;
	}
	ek_out_arr_end(o);
	ek_out_text(o, "%llu transactions: %llu blocks (%llu logged with descriptors, revokes and commits), "
		    "%llu revokes\n", (unsigned long long)n, (unsigned long long)blocks,
		    (unsigned long long)logged, (unsigned long long)revokes);
	if (n)
		ek_out_text(o, "average: %.1f blocks, %.1f logged, %.1f revokes, %.3f s between commits\n",
			    (double)blocks / n, (double)logged / n, (double)revokes / n,
			    dcount ? dsum / dcount : 0.0);
	ek_out_obj_begin(o, "totals");
	ek_out_u64(o, "transactions", n);
	ek_out_u64(o, "blocks", blocks);
	ek_out_u64(o, "blocks_logged", logged);
	ek_out_u64(o, "revokes", revokes);
	ek_out_double(o, "average_blocks", n ? (double)blocks / n : 0);
	ek_out_double(o, "average_blocks_logged", n ? (double)logged / n : 0);
	ek_out_double(o, "average_delta_sec", dcount ? dsum / dcount : 0);
	ek_out_obj_end(o);
	ek_out_obj_end(o);
	return 0;
}

/* ---- seeks: the checkpoint seek profile ----------------------------------- */

static void seek_json(struct ek_out *o, const char *key, const struct ek_seekstat *s)
{
	ek_out_obj_begin(o, key);
	ek_out_u64(o, "writes", s->writes);
	ek_out_u64(o, "jumps", s->jumps);
	ek_out_u64(o, "distance", s->distance);
	ek_out_obj_end(o);
}

static int do_seeks(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	struct ek_seekstat total = { 0 }, sorted = { 0 };

	(void)argc, (void)argv;
	ek_out_obj_begin(o, NULL);
	ek_jlog_emit_status(o, r->j, &r->log);
	ek_out_text(o, "Checkpoint seek profile: a jump is a move of more than %llu blocks\n",
		    (unsigned long long)r->gap);
	ek_out_text(o, "%10s %8s %8s %14s %8s %14s\n", "tid", "writes", "jumps", "distance",
		    "sorted", "sorted dist");
	ek_out_u64(o, "gap", r->gap);
	ek_out_arr_begin(o, "transactions");
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];
		struct ek_seekstat st = { 0 }, ss = { 0 };
		uint64_t *homes;
		uint32_t n = 0;

		if (t->state != EK_JTXN_COMMITTED)
			continue;
		homes = calloc(t->ntags ? t->ntags : 1, sizeof(*homes));
		if (!homes)
			return fail(r, "seeks", -ENOMEM);
		for (uint32_t g = 0; g < t->ntags; g++) {
			if (ek_jplan_fate(&r->plan, r->j, t, &t->tags[g]) != EK_JFATE_WRITTEN)
				continue;
			ek_seek_add(&st, t->tags[g].home, r->gap);
			ek_seek_add(&total, t->tags[g].home, r->gap);
			homes[n++] = t->tags[g].home;
		}
		/* the same blocks written in block order */
		qsort(homes, n, sizeof(*homes), ek_cmp_u64);
		for (uint32_t a = 0; a < n; a++)
			ek_seek_add(&ss, homes[a], r->gap);
		free(homes);
		ek_out_text(o, "%10u %8llu %8llu %14llu %8llu %14llu\n", t->tid,
			    (unsigned long long)st.writes, (unsigned long long)st.jumps,
			    (unsigned long long)st.distance, (unsigned long long)ss.jumps,
			    (unsigned long long)ss.distance);
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "tid", t->tid);
		seek_json(o, "log_order", &st);
		seek_json(o, "sorted", &ss);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	/* a whole replay writes the plan in block order, each home once */
	for (size_t i = 0; i < r->plan.nwrites; i++)
		ek_seek_add(&sorted, r->plan.writes[i].home, r->gap);
	ek_out_text(o, "overall, log order: %llu writes, %llu jumps, distance %llu\n",
		    (unsigned long long)total.writes, (unsigned long long)total.jumps,
		    (unsigned long long)total.distance);
	ek_out_text(o, "overall, sorted (one write per home, as replay does): %llu writes, %llu jumps, distance %llu\n",
		    (unsigned long long)sorted.writes, (unsigned long long)sorted.jumps,
		    (unsigned long long)sorted.distance);
	seek_json(o, "log_order", &total);
	seek_json(o, "sorted", &sorted);
	ek_out_obj_end(o);
	return 0;
}

/* ---- apply: the library's recovery driver, planned, shown or applied ------------ */

/* a bar on stderr while home blocks are written, when stderr is a terminal */
static void apply_progress(void *arg, uint64_t done, uint64_t total)
{
	ek_out_bar(stderr, "Replaying", arg, done, total);
}

static void discarded_text(struct rp *r, const struct ek_recovery *rec, FILE *f)
{
	fprintf(f, "%s: --upto %u leaves %zu committed transaction%s unreplayed (%u", r->prog,
		rec->plan.upto, rec->ndiscarded, rec->ndiscarded == 1 ? "" : "s", rec->discarded[0]);
	if (rec->ndiscarded > 1)
		fprintf(f, "..%u", rec->discarded[rec->ndiscarded - 1]);
	fprintf(f, "): what they changed is lost and the image may be inconsistent\n");
}

/* the refusal as a JSON object (its text goes to stdout or stderr) */
static void plan_refusal_json(struct ek_out *o, const struct ek_recovery *rec)
{
	ek_out_obj_begin(o, "refused");
	ek_out_str(o, "step", rec->refused_step);
	ek_out_str(o, "reason", rec->refused_msg);
	if (rec->refused_hint)
		ek_out_str(o, "hint", rec->refused_hint);
	else
		ek_out_null(o, "hint");
	ek_out_obj_end(o);
}

static void plan_refusal(struct ek_out *o, const struct ek_recovery *rec)
{
	if (!rec->refused) {
		ek_out_null(o, "refused");
		return;
	}
	ek_out_text(o, "apply would refuse (%s): %s%s%s\n", rec->refused_step,
		    rec->refused_msg, rec->refused_hint ? "; " : "",
		    rec->refused_hint ? rec->refused_hint : "");
	plan_refusal_json(o, rec);
}

/* --dry-run: everything apply would do, in the order it would do it */
static void print_plan(struct rp *r, const struct ek_recovery *rec)
{
	struct ek_out *o = r->out;
	const struct ek_jplan *p = &rec->plan;

	ek_out_obj_begin(o, NULL);
	ek_out_bool(o, "dry_run", true);
	ek_out_str(o, "target", r->image);
	plan_refusal(o, rec);
	ek_out_bool(o, "clean", rec->clean);
	if (rec->clean) {
		ek_out_text(o, "%s%s\n", EK_JLOG_CLEAN,
			    rec->finish_only ? " (needs_recovery would be cleared)" : "");
		ek_out_null(o, "first_tid");
		ek_out_null(o, "last_tid");
	} else if (rec->log.start_tid == rec->log.end_tid) {
		ek_out_text(o, "No committed transaction to replay: the log ends at transaction %u (%s)\n",
			    rec->log.start_tid, rec->log.end_reason);
		ek_out_null(o, "first_tid");
		ek_out_null(o, "last_tid");
	} else {
		ek_out_text(o, "Replay plan: transactions %u..%u, %zu home blocks to write\n",
			    rec->log.start_tid, p->upto, p->nwrites);
		ek_out_u64(o, "first_tid", rec->log.start_tid);
		ek_out_u64(o, "last_tid", p->upto);
	}
	ek_out_str(o, "log_end", rec->log.end_reason);
	ek_out_bool(o, "failed_commit", rec->log.failed_commit);
	if (rec->log.failed_commit || p->bad_csum)
		ek_out_text(o, "the filesystem will be marked as having errors (%s)\n",
			    rec->log.failed_commit ? "a corrupt commit block ends the log" :
			    "logged blocks fail their checksum");
	ek_out_bool(o, "needs_recovery_cleared", rec->finish_only || !rec->clean);
	ek_out_arr_begin(o, "discarded_tids");
	for (size_t i = 0; i < rec->ndiscarded; i++)
		ek_out_u64(o, NULL, rec->discarded[i]);
	ek_out_arr_end(o);
	if (rec->ndiscarded)
		ek_out_text(o, "not replayed (--upto): %zu committed transactions, %u..%u: the image may be inconsistent\n",
			    rec->ndiscarded, rec->discarded[0], rec->discarded[rec->ndiscarded - 1]);
	if (!rec->clean)
		ek_out_text(o, "skipped: %llu superseded, %llu revoked, %llu bad checksum, %llu outside the filesystem\n",
			    (unsigned long long)p->superseded, (unsigned long long)p->revoked,
			    (unsigned long long)p->bad_csum, (unsigned long long)p->outside);
	ek_out_u64(o, "superseded", p->superseded);
	ek_out_u64(o, "revoked", p->revoked);
	ek_out_u64(o, "bad_checksum", p->bad_csum);
	ek_out_u64(o, "outside", p->outside);
	if (p->nwrites)
		ek_out_text(o, "%14s %10s %10s\n", "home", "jblock", "tid");
	ek_out_arr_begin(o, "writes");
	for (size_t i = 0; i < p->nwrites; i++) {
		const struct ek_jwrite *w = &p->writes[i];

		ek_out_text(o, "%14llu %10u %10u%s\n", (unsigned long long)w->home, w->jblk, w->tid,
			    w->flags & JBD2_FLAG_ESCAPE ? " escaped" : "");
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "home", w->home);
		ek_out_u64(o, "journal_block", w->jblk);
		ek_out_u64(o, "tid", w->tid);
		ek_out_bool(o, "escaped", w->flags & JBD2_FLAG_ESCAPE);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);

	/* step 2: the fast-commit records, as `fc` prints them */
	ek_out_obj_begin(o, "fast_commits");
	ek_out_str(o, "state", rec->have_fc ? ek_fc_state_name(rec->fc.state) : "none");
	ek_out_u64(o, "records", rec->fc_records);
	if (rec->fc_records)
		ek_out_text(o, "Fast-commit records to replay after the log: %zu\n", rec->fc_records);
	ek_out_arr_begin(o, "replayed");
	for (size_t i = 0; i < rec->fc_records; i++)
		ek_fc_rec_emit(o, &rec->fc, i);
	ek_out_arr_end(o);
	ek_out_obj_end(o);

	/* step 3: the orphan inodes */
	if (r->journal_only)
		ek_out_text(o, "Orphan inodes: left as they are (--journal-only)\n");
	else if (rec->norphans)
		ek_out_text(o, "Orphan inodes to process after replay: %zu\n%10s  %-8s  %-12s %s\n",
			    rec->norphans, "inode", "action", "size", "blocks freed");
	ek_out_arr_begin(o, "orphans");
	for (size_t i = 0; i < rec->norphans; i++) {
		const struct ek_recover_orphan *op = &rec->orphans[i];

		ek_out_text(o, "%10u  %-8s  %-12llu %llu%s\n", op->ino,
			    op->truncate ? "truncate" : "delete", (unsigned long long)op->size,
			    (unsigned long long)op->blocks_freed, op->in_file ? "  (orphan file)" : "");
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "inode", op->ino);
		ek_out_str(o, "list", op->in_file ? "orphan_file" : "superblock");
		ek_out_str(o, "action", op->truncate ? "truncate" : "delete");
		if (op->truncate)
			ek_out_u64(o, "truncate_to", op->size);
		else
			ek_out_null(o, "truncate_to");
		ek_out_u64(o, "blocks_freed", op->blocks_freed);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	ek_out_obj_end(o);
}

static void apply_result(struct rp *r, const struct ek_recovery *rec,
			 const struct ek_recover_result *res)
{
	struct ek_out *o = r->out;
	const char *target = r->output ? r->output : r->image;

	if (res->replayed && rec->log.start_tid == rec->log.end_tid) {
		ek_out_text(o, "no committed transaction to replay (%s); journal marked clean in %s\n",
			    rec->log.end_reason, target);
	} else if (res->replayed) {
		ek_out_text(o, "replayed transactions %u..%u: %llu blocks written to %s\n",
			    rec->log.start_tid, rec->plan.upto, (unsigned long long)res->written, target);
	} else {
		ek_out_text(o, "%s%s\n", EK_JLOG_CLEAN, res->finished ? " (needs_recovery cleared)" : "");
	}
	if (res->fc_records)
		ek_out_text(o, "replayed %llu fast-commit records\n", (unsigned long long)res->fc_records);
	if (!r->journal_only)
		ek_out_text(o, "released %llu orphan inodes\n", (unsigned long long)res->orphans_released);
	ek_out_obj_begin(o, NULL);
	ek_out_str(o, "target", target);
	ek_out_bool(o, "clean", rec->clean);
	if (res->replayed && rec->log.start_tid != rec->log.end_tid) {
		ek_out_u64(o, "first_tid", rec->log.start_tid);
		ek_out_u64(o, "last_tid", rec->plan.upto);
	} else {
		ek_out_null(o, "first_tid");
		ek_out_null(o, "last_tid");
	}
	ek_out_arr_begin(o, "discarded_tids");
	for (size_t i = 0; i < rec->ndiscarded; i++)
		ek_out_u64(o, NULL, rec->discarded[i]);
	ek_out_arr_end(o);
	ek_out_u64(o, "written", res->written);
	ek_out_bool(o, "needs_recovery_cleared", res->replayed || res->finished);
	ek_out_u64(o, "superseded", rec->plan.superseded);
	ek_out_u64(o, "revoked", rec->plan.revoked);
	ek_out_u64(o, "bad_checksum", rec->plan.bad_csum);
	ek_out_u64(o, "fast_commit_records", res->fc_records);
	ek_out_u64(o, "orphans_released", res->orphans_released);
	ek_out_obj_end(o);
}

int do_apply(struct rp *r)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	int64_t now = sde && *sde ? strtoll(sde, NULL, 10) : (int64_t)time(NULL);
	bool copy = r->output && !r->dry_run;
	struct ek_recover_opts opts = {
		.image = copy ? r->output : r->image, .journal_dev = r->journal_dev,
		.offset = r->offset,
		.flags = r->flags | (r->dry_run ? 0 : EK_OPEN_RW), .copy = copy,
		.have_upto = r->have_upto, .upto = r->upto, .journal_only = r->journal_only,
		/* apply checks data checksums as it reads each copy, once (the
		 * kernel's PASS_REPLAY); a dry run checks them all to show them */
		.no_data_csum = !r->dry_run, .now = now,
	};
	struct ek_recover_apply_opts aopts = { .now = now };
	struct ek_recover_result res;
	struct ek_recovery *rec = NULL;
	struct ek_undo *u = NULL, *ju = NULL;
	unsigned last_pct = ~0u;
	int err, ret = 1;

	/* in place: never into a mounted filesystem (nor the image behind a loop device) */
	if (!r->dry_run && !copy && ek_target_mounted(r->image)) {
		fprintf(stderr, "%s: apply: '%s' is mounted: refusing to write into it; "
			"unmount it, or pass --output COPY\n", r->prog, r->image);
		return 1;
	}
	if (copy && (err = ek_recover_copy(r->image, r->output)))
		return fail(r, "apply", err);
	err = ek_recover_plan(&opts, &rec);
	if (rec) {
		r->fs = rec->fs;
		flush_warnings(r);
		r->fs = NULL;
	}
	if (err) {
		fail(r, "apply", err);
		goto out;
	}
	if (r->dry_run) {
		print_plan(r, rec);
		ret = rec->refused ? 1 : 0;
		goto out;
	}
	if (rec->refused) {
		/* the kernel refuses to mount this: so do we, writing nothing */
		fprintf(stderr, "%s: apply: refusing to replay (%s): %s%s%s; nothing written\n",
			r->prog, rec->refused_step, rec->refused_msg,
			rec->refused_hint ? "; " : "", rec->refused_hint ? rec->refused_hint : "");
		/* --json still gets its one document */
		ek_out_obj_begin(r->out, NULL);
		ek_out_str(r->out, "target", r->image);
		plan_refusal_json(r->out, rec);
		ek_out_u64(r->out, "written", 0);
		ek_out_obj_end(r->out);
		goto out;
	}
	if (rec->ndiscarded) {
		discarded_text(r, rec, stderr);
		if (!copy && !r->force) {
			fprintf(stderr, "%s: apply: refusing to replay part of the log in place: "
				"pass --output COPY, or --force\n", r->prog);
			goto out;
		}
	}
	if (r->undo) {
		/* one undo file per device written: an external journal's beside it */
		err = ek_undo_create(r->undo, rec->fs->io, rec->fs->blksz, &u);
		if (!err && rec->j->dev && !rec->j->leave_journal) {
			char jpath[4096];

			if (snprintf(jpath, sizeof(jpath), "%s.journal", r->undo) >= (int)sizeof(jpath))
				err = ek_err(-ENAMETOOLONG, "undo file name '%s' is too long", r->undo);
			else
				err = ek_undo_create(jpath, rec->j->dev, rec->fs->blksz, &ju);
		}
		if (err) {
			ek_undo_close(u);
			fail(r, "apply", err);
			goto out;
		}
		aopts.undo = u;
		aopts.journal_undo = ju;
	}
	if (isatty(STDERR_FILENO) && r->out_mode == EK_OUT_TEXT && rec->plan.nwrites >= 4096) {
		aopts.progress = apply_progress;
		aopts.progress_arg = &last_pct;
	}
	err = ek_recover_apply(rec, &aopts, &res);
	{
		/* closing marks each undo file finished (not after a cut) */
		int e1 = ek_undo_close(u), e2 = ek_undo_close(ju);

		if (!err)
			err = e1 ? e1 : e2;
	}
	if (err) {
		fail(r, "apply", err);
		goto out;
	}
	apply_result(r, rec, &res);
	r->applied = true;
	ret = 0;
	if (copy && r->journal_dev && res.replayed)
		fprintf(stderr, "%s: note: the journal device '%s' was only read: it still holds the log, "
			"and '%s' still needs recovery\n", r->prog, r->journal_dev, r->image);
	if (rec->plan.bad_csum) {
		/* as jbd2: replay what we can, report the failure at the end */
		fprintf(stderr, "%s: apply: %llu logged blocks failed their checksum and were not written; "
			"the filesystem is marked as having errors, so its next check is a full one\n",
			r->prog, (unsigned long long)rec->plan.bad_csum);
		ret = 1;
	}
out:
	ek_recover_free(rec);
	if (!r->applied && copy)
		unlink(r->output);	/* a failed apply leaves no half-made copy */
	return ret;
}

/* ---- orphans: buffers replay will not write, stale homes, orphan inodes ---- */

static int overlay_read(void *arg, ek_blk_t blk, void *buf)
{
	struct rp *r = arg;

	return ek_jplan_read(r->j, &r->plan, blk, buf);
}

/* is @home allocated in the bitmaps as the replay leaves them? 1/0, <0 error */
static int replayed_in_use(struct rp *r, uint64_t home, uint8_t *buf)
{
	struct ek_fs *fs = r->fs;
	uint32_t g;
	ek_blk_t bb;

	if (home < fs->sb.first_data_block || home >= fs->sb.blocks_count)
		return -EINVAL;
	g = ek_group_of_block(fs, home);
	bb = fs->groups[g].block_bitmap;
	/* a bitmap block the log carries is read from the log */
	if (!ek_jplan_find(&r->plan, bb))
		return ek_test_block(fs, home);
	if (ek_jplan_read(r->j, &r->plan, bb, buf))
		return -EIO;
	return ek_bit_test(buf, (home - ek_group_first_block(fs, g)) >> fs->cluster_bits);
}

struct orphan_out {
	struct ek_out *o;
	uint64_t n;
};

static int print_orphan(void *arg, const struct ek_orphan *op)
{
	struct orphan_out *oo = arg;

	ek_out_text(oo->o, "  inode %u (%s, links %u, size %llu): %s\n", op->ino,
		    op->in_file ? "orphan file" : "superblock list", op->links,
		    (unsigned long long)op->size, op->links ? "truncate" : "delete");
	ek_out_obj_begin(oo->o, NULL);
	ek_out_u64(oo->o, "inode", op->ino);
	ek_out_str(oo->o, "source", op->in_file ? "orphan_file" : "superblock");
	ek_out_u64(oo->o, "links", op->links);
	ek_out_u64(oo->o, "mode", op->mode);
	ek_out_u64(oo->o, "size", op->size);
	ek_out_str(oo->o, "action", op->links ? "truncate" : "delete");
	ek_out_obj_end(oo->o);
	oo->n++;
	return 0;
}

struct stale_count {
	uint64_t desc, data, other;
};

static int count_stale(void *arg, const struct ek_jstale_blk *b)
{
	struct stale_count *c = arg;

	if (b->type == JBD2_DESCRIPTOR_BLOCK)
		c->desc++;
	else
		c->other++;
	c->data += b->ndata;
	return 0;
}

int do_orphans(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	const struct ek_jsb *sb = &r->j->sb;
	uint64_t torn = 0, bad = 0, outside = 0;
	struct stale_count sc = { 0 };
	uint64_t stale_homes = 0;
	struct orphan_out oo = { .o = o };
	uint8_t *buf = ek_malloc(sb->blocksize), sbbuf[EXT4_SUPERBLOCK_SIZE];
	int err = 0;

	(void)argc, (void)argv;
	if (!buf)
		return fail(r, "orphans", -ENOMEM);
	ek_out_obj_begin(o, NULL);
	ek_jlog_emit_status(o, r->j, &r->log);

	/* buffers in the live log that replay will not write */
	ek_out_text(o, "Orphaned buffers in the live log:\n");
	ek_out_arr_begin(o, "orphaned_buffers");
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];

		for (uint32_t g = 0; g < t->ntags; g++) {
			const struct ek_jtag *tag = &t->tags[g];
			const char *cat = NULL;

			if (t->state != EK_JTXN_COMMITTED)
				cat = "torn_tail", torn++;
			else if (tag->home >= r->fs->sb.blocks_count)
				cat = "outside", outside++;
			else if (tag->csum == EK_CSUM_BAD)
				cat = "bad_checksum", bad++;
			if (!cat)
				continue;
			ek_out_text(o, "  %-12s tid %u journal block %u home %llu\n", cat, t->tid,
				    tag->jblk, (unsigned long long)tag->home);
			ek_out_obj_begin(o, NULL);
			ek_out_str(o, "category", cat);
			ek_out_u64(o, "tid", t->tid);
			ek_out_u64(o, "journal_block", tag->jblk);
			ek_out_u64(o, "home", tag->home);
			ek_out_obj_end(o);
		}
	}
	ek_out_arr_end(o);
	ek_out_text(o, "  %llu torn tail, %llu bad checksum, %llu outside the filesystem\n",
		    (unsigned long long)torn, (unsigned long long)bad, (unsigned long long)outside);

	/* the rest of the ring: older transactions' blocks, never replayed */
	err = ek_jlog_stale_walk(r->j, &r->log, count_stale, &sc);
	if (err) {
		free(buf);
		return fail(r, "orphans", err);
	}
	ek_out_text(o, "Stale region (outside the live log): %llu descriptor blocks, %llu data blocks they describe, %llu commit/revoke blocks\n",
		    (unsigned long long)sc.desc, (unsigned long long)sc.data,
		    (unsigned long long)sc.other);
	ek_out_obj_begin(o, "stale_region");
	ek_out_u64(o, "descriptor_blocks", sc.desc);
	ek_out_u64(o, "data_blocks", sc.data);
	ek_out_u64(o, "other_blocks", sc.other);
	ek_out_obj_end(o);

	/* logged blocks whose home is free once the log is replayed */
	ek_out_text(o, "Stale homes (written by replay, free in the replayed bitmaps):");
	ek_out_arr_begin(o, "stale_homes");
	for (size_t i = 0; i < r->plan.nwrites; i++) {
		int used = replayed_in_use(r, r->plan.writes[i].home, buf);

		if (used != 0)
			continue;
		stale_homes++;
		if (stale_homes <= 64)
			ek_out_text(o, " %llu", (unsigned long long)r->plan.writes[i].home);
		ek_out_u64(o, NULL, r->plan.writes[i].home);
	}
	ek_out_arr_end(o);
	ek_out_text(o, "%s (%llu)\n", stale_homes > 64 ? " ..." : "", (unsigned long long)stale_homes);

	/* orphan inodes, from the superblock as replay leaves it */
	ek_out_text(o, "Orphan inodes to process after replay:\n");
	ek_out_arr_begin(o, "orphan_inodes");
	{
		ek_blk_t sbblk = r->fs->blksz == 1024 ? 1 : 0;
		uint32_t sboff = r->fs->blksz == 1024 ? 0 : 1024;
		uint8_t *blk = ek_malloc(r->fs->blksz);

		err = blk ? ek_jplan_read(r->j, &r->plan, sbblk, blk) : -ENOMEM;
		if (!err) {
			memcpy(sbbuf, blk + sboff, sizeof(sbbuf));
			err = ek_orphans_iterate(r->fs, (const void *)sbbuf, overlay_read, r,
						 print_orphan, &oo);
		}
		free(blk);
	}
	ek_out_arr_end(o);
	if (err)
		fprintf(stderr, "%s: orphans: %s\n", r->prog, ek_error_msg(err));
	ek_out_text(o, "  %llu orphan inodes\n", (unsigned long long)oo.n);
	ek_out_obj_end(o);
	free(buf);
	return err ? 1 : 0;
}

/* ---- fc: the fast-commit area ---------------------------------------------- */

/* the area as recovery would read it after the full transactions */
static int fc_load(struct rp *r, struct ek_fclog *fc)
{
	int err = ek_fc_scan(r->j, r->log.end_tid, fc);

	if (err)
		fprintf(stderr, "%s: fast commits: %s\n", r->prog, ek_error_msg(err));
	else if (fc->status)
		fprintf(stderr, "%s: warning: %s (the kernel would refuse this recovery)\n", r->prog,
			ek_error_msg(fc->status));
	return err;
}

static const char *fc_state_text(const struct ek_fclog *fc, char *buf, size_t len)
{
	switch (fc->state) {
	case EK_FC_VALID:
		snprintf(buf, len, "valid: %zu records of %zu fast commit%s to replay", fc->nreplay,
			 fc->ncommits, fc->ncommits == 1 ? "" : "s");
		break;
	case EK_FC_STALE:
		snprintf(buf, len, "stale: left by an earlier transaction, nothing to replay");
		break;
	case EK_FC_EMPTY:
		snprintf(buf, len, "empty: no fast commits");
		break;
	case EK_FC_INCOMPLETE:
		snprintf(buf, len, "incomplete: no fast commit finished, nothing to replay");
		break;
	default:
		snprintf(buf, len, "%s%s", ek_fc_state_name(fc->state),
			 fc->status ? ": the kernel refuses the recovery" : "");
	}
	return buf;
}

static void fc_summary_text(struct ek_out *o, const struct ek_fclog *fc)
{
	char buf[160];

	if (fc->nblocks)
		ek_out_text(o, "Fast-commit area:  journal blocks %u..%u\n", fc->first_jblk,
			    fc->first_jblk + fc->nblocks - 1);
	else
		ek_out_text(o, "Fast-commit area:  no blocks\n");
	ek_out_text(o, "Fast commits:      %s\n", fc_state_text(fc, buf, sizeof(buf)));
	ek_out_text(o, "Fast-commit scan:  expected tid %u, %zu record%s in %u block%s; end: %s\n",
		    fc->expect_tid, fc->nrecs, fc->nrecs == 1 ? "" : "s", fc->blocks_read,
		    fc->blocks_read == 1 ? "" : "s", fc->end_reason);
}

/* info: the fast-commit part (text at the end, JSON "fast_commit") */
static int info_fc(struct rp *r)
{
	struct ek_out *o = r->out;
	struct ek_fclog fc;
	int err;

	if (!(r->j->sb.incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT)) {
		ek_out_null(o, "fast_commit");
		return 0;
	}
	err = fc_load(r, &fc);
	if (err)
		return err;
	if (fc.state == EK_FC_NONE)
		ek_out_text(o, "Fast-commit area:  journal blocks %u..%u, not read (%s)\n", fc.first_jblk,
			    fc.first_jblk + fc.nblocks - 1, fc.end_reason);
	else
		fc_summary_text(o, &fc);
	ek_out_obj_begin(o, "fast_commit");
	ek_fc_summary_emit(o, &fc);
	ek_out_obj_end(o);
	ek_fclog_release(&fc);
	return 0;
}

/* fc IMAGE: every record of the fast-commit area the scan read */
static int do_fc(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	struct ek_fclog fc;

	(void)argc, (void)argv;
	if (!(r->j->sb.incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT)) {
		fprintf(stderr, "%s: the journal has no fast-commit area\n", r->prog);
		return 1;
	}
	if (fc_load(r, &fc))
		return 1;
	if (fc.state == EK_FC_NONE) {
		ek_out_text(o, "Fast-commit area:  journal blocks %u..%u, not read (%s)\n",
			    fc.first_jblk, fc.first_jblk + fc.nblocks - 1, fc.end_reason);
	} else {
		fc_summary_text(o, &fc);
		if (fc.nrecs)
			ek_out_text(o, "%10s %6s %-6s %s\n", "jblock", "offset", "replay", "record");
	}
	if (!r->jsonl) {
		ek_out_obj_begin(o, NULL);
		ek_fc_summary_emit(o, &fc);
		ek_out_arr_begin(o, "records");
	}
	for (size_t i = 0; i < fc.nrecs; i++) {
		ek_fc_rec_emit(o, &fc, i);
		ek_out_record_end(o);
	}
	if (!r->jsonl) {
		ek_out_arr_end(o);
		ek_out_obj_end(o);
	}
	ek_fclog_release(&fc);
	return 0;
}

/* ---- main ---------------------------------------------------------------- */

/*
 * undo FILE IMAGE: put back the bytes an undo file (ours, or e2fsprogs' -z)
 * saved.  Refusals (a mounted image, another or changed filesystem, a
 * damaged file) write nothing; --force goes past all but the mount check.
 * Exit 1 when the result wants a check: an unfinished file, or a check
 * that --force overrode.
 */
static int do_undo(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	struct ek_undo_result res;
	const char *file, *image;
	bool forced;
	int err;

	if (argc != 3) {
		fprintf(stderr, "usage: %s undo [--force] UNDO_FILE IMAGE\n", r->prog);
		return 2;
	}
	file = argv[1];
	image = argv[2];
	if (ek_target_mounted(image)) {
		fprintf(stderr, "%s: undo: '%s' is mounted: refusing to write to it\n", r->prog, image);
		return 1;
	}
	err = ek_undo_apply(file, image, r->force ? EK_UNDO_FORCE : 0, &res);
	if (err)
		return fail(r, "undo", err);
	if (res.hdr.crc_bad)
		fprintf(stderr, "%s: warning: the header of '%s' fails its checksum (forced)\n", r->prog, file);
	if (res.hdr.unknown_features)
		fprintf(stderr, "%s: warning: '%s' has unknown features (forced)\n", r->prog, file);
	if (res.sb_crc_bad)
		fprintf(stderr, "%s: warning: the superblock copy in '%s' fails its checksum (forced)\n",
			r->prog, file);
	if (res.sb_mismatch)
		fprintf(stderr, "%s: warning: %s (forced)\n", r->prog,
			res.other_fs ? "the undo file was made for another filesystem" :
				       "the image has changed since the undo file was written");
	if (res.bad_keyblocks)
		fprintf(stderr, "%s: warning: %llu key blocks fail their checks (forced)\n", r->prog,
			(unsigned long long)res.bad_keyblocks);
	if (res.bad_data)
		fprintf(stderr, "%s: warning: %llu saved ranges fail their checksums, restored anyway (forced)\n",
			r->prog, (unsigned long long)res.bad_data);
	if (res.skipped)
		fprintf(stderr, "%s: warning: %llu saved ranges lie outside the file or the image, skipped (forced)\n",
			r->prog, (unsigned long long)res.skipped);
	if (!res.finished)
		fprintf(stderr, "%s: warning: undo file '%s' is incomplete (the tool that wrote it did not "
			"finish): restored what it holds\n", r->prog, file);
	if (res.marked)
		fprintf(stderr, "%s: '%s' is marked for a check: run e2fsck\n", r->prog, image);
	else if (res.not_marked)
		fprintf(stderr, "%s: warning: '%s' holds no ext superblock to mark for a check\n",
			r->prog, image);
	forced = res.hdr.crc_bad || res.hdr.unknown_features || res.sb_crc_bad || res.sb_mismatch ||
		 res.bad_keyblocks || res.bad_data || res.skipped;
	ek_out_text(o, "restored %llu ranges (%llu bytes) of '%s' from '%s'\n",
		    (unsigned long long)res.keys, (unsigned long long)res.bytes, image, file);
	ek_out_obj_begin(o, NULL);
	ek_out_str(o, "undo_file", file);
	ek_out_str(o, "image", image);
	ek_out_u64(o, "block_size", res.hdr.block_size);
	ek_out_u64(o, "fs_block_size", res.hdr.fs_block_size);
	ek_out_u64(o, "fs_offset", res.hdr.fs_offset);
	ek_out_u64(o, "keys", res.hdr.num_keys);
	ek_out_bool(o, "finished", res.finished);
	ek_out_u64(o, "ranges_restored", res.keys);
	ek_out_u64(o, "bytes_restored", res.bytes);
	ek_out_bool(o, "forced", forced);
	ek_out_bool(o, "header_crc_bad", res.hdr.crc_bad);
	ek_out_bool(o, "unknown_features", res.hdr.unknown_features);
	ek_out_bool(o, "superblock_crc_bad", res.sb_crc_bad);
	ek_out_bool(o, "superblock_mismatch", res.sb_mismatch);
	ek_out_bool(o, "other_filesystem", res.other_fs);
	ek_out_u64(o, "bad_key_blocks", res.bad_keyblocks);
	ek_out_u64(o, "bad_data", res.bad_data);
	ek_out_u64(o, "skipped", res.skipped);
	ek_out_bool(o, "marked_for_check", res.marked);
	ek_out_obj_end(o);
	{
		/* apply --undo FILE with an external journal left FILE.journal too */
		char jpath[4096];

		if (snprintf(jpath, sizeof(jpath), "%s.journal", file) < (int)sizeof(jpath) &&
		    access(jpath, F_OK) == 0)
			fprintf(stderr, "%s: note: '%s' holds the journal device's original bytes: "
				"restore it onto the journal device too\n", r->prog, jpath);
	}
	return res.finished && !forced ? 0 : 1;
}

struct rp_cmd {
	const char *name;
	int (*fn)(struct rp *r, int argc, char **argv);
	const char *usage;
	const char *help;
	bool plan;	/* needs the replay plan */
	int nargs;	/* arguments after IMAGE */
	int maxargs;	/* more are optional, up to this many (0: exactly nargs) */
	bool no_data_csum;	/* with the plan: data checksums not read (as list) */
};

static int do_diff(struct rp *r, int argc, char **argv)
{
	return rp_diff(r->prog, r->out, r->image,
		       &(struct ek_open_opts){ .flags = r->fs->flags, .offset = r->offset },
		       r->j, &r->log, argc - 1, argv + 1);
}

static const struct rp_cmd rp_cmds[] = {	/* keep sorted */
	{ "apply", NULL, "IMAGE", "replay the journal and process orphans (--dry-run, --output COPY, --upto TID)" },
	{ "diff", do_diff, "IMAGE TID1 [TID2]", "what changed, file by file, from the image as of TID2 (TID1-1) to as of TID1", false, 1, 2 },
	{ "fc", do_fc, "IMAGE", "the fast-commit area: its state and each record" },
	{ "history", do_history, "IMAGE", "per transaction: commit time, delta, blocks, logged, revokes" },
	{ "info", do_info, "IMAGE", "journal geometry, features, state and live region" },
	{ "list", do_list, "IMAGE", "one row per transaction in the live log" },
	{ "mount", NULL, "IMAGE DIR", "serve IMAGE as recovery leaves it, read-only, at DIR (FUSE; --upto TID)" },
	{ "orphans", do_orphans, "IMAGE", "buffers replay won't write, stale homes, orphan inodes", true },
	{ "report", do_report, "IMAGE", "one HTML page: timeline, history, orphans, apply plan (--html F)", true },
	{ "revokes", do_revokes, "IMAGE", "each revoke record and the logged copies it cancels", true },
	{ "seeks", do_seeks, "IMAGE", "checkpoint seek profile (--gap N, default 16)", true },
	{ "show", do_show, "IMAGE TID", "the blocks one transaction logged, their fate, its revokes", true, 1 },
	{ "timeline", do_timeline, "IMAGE", "transactions by kind of block, the ring, seeks (--svg F)", true, 0, 0, true },
	{ "undo", NULL, "UNDO IMAGE", "restore IMAGE from an undo file (ours or e2fsprogs' -z)" },
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [--json | --jsonl] [-n] [--upto TID] [--gap N] [--dry-run] COMMAND IMAGE [ARGS]\n"
		"Inspect the jbd2 journal of an ext3/ext4 image; apply replays it as a mount would.\n"
		"Only apply writes, and only without --dry-run.\n"
		"Commands:\n", prog);
	for (size_t i = 0; i < sizeof(rp_cmds) / sizeof(rp_cmds[0]); i++)
		fprintf(f, "  %-8s %-16s %s\n", rp_cmds[i].name, rp_cmds[i].usage, rp_cmds[i].help);
	fprintf(f, "Options:\n"
		"  --json      one JSON document on stdout\n"
		"  --jsonl     list, fc: one JSON record per transaction or record\n"
		"  -n, --ignore-csum  accept a journal superblock with a bad checksum\n"
		"              (apply takes only --ignore-csum: -n never writes)\n"
		"  --upto TID  plan (show, seeks, apply, mount) up to this transaction\n"
		"  --gap N     seeks, timeline: a jump moves more than N blocks (16)\n"
		"  --svg F     timeline: draw the picture into F (- for stdout)\n"
		"  --html F    report: write the page into F (- for stdout)\n"
		"  --dry-run   apply: print the plan, write nothing\n"
		"  --output F  apply: write a new copy F instead of the image\n"
		"  --undo F    apply: save what is overwritten in the new undo file F\n"
		"              (e2undo format; an external journal's in F.journal)\n"
		"  -f, --force apply: replay part of the log (--upto) in place;\n"
		"              undo: restore despite a failed check, as e2undo -f;\n"
		"              mount: stay in the foreground (fusermount3 -u DIR ends it)\n"
		"  --offset N  the filesystem starts N bytes into IMAGE (a partition)\n"
		"  --journal-dev DEV  the external journal device (with --output it\n"
		"              is read, never written)\n"
		"  --journal-only  apply: replay the journal, leave the orphan inodes\n"
		"  -V          print the version\n"
		"Exit status: 0 success, 1 failure, 2 usage error.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "jsonl", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'H' },
		{ "version", no_argument, NULL, 'V' },
		{ "dry-run", no_argument, NULL, 'D' },
		{ "upto", required_argument, NULL, 'U' },
		{ "gap", required_argument, NULL, 'G' },
		{ "output", required_argument, NULL, 'O' },
		{ "journal-only", no_argument, NULL, 'j' },
		{ "undo", required_argument, NULL, 'u' },
		{ "journal-dev", required_argument, NULL, 'd' },
		{ "force", no_argument, NULL, 'f' },
		{ "ignore-csum", no_argument, NULL, 'I' },
		{ "offset", required_argument, NULL, 'o' },
		{ "svg", required_argument, NULL, 'S' },
		{ "html", required_argument, NULL, 'T' },
		{ 0 }
	};
	struct rp r = { .prog = "extkit-replay", .gap = 16 };
	bool have_upto = false;
	unsigned long long upto = 0;
	char *end;
	enum ek_out_mode mode = EK_OUT_TEXT;
	const struct rp_cmd *cmd = NULL;
	unsigned flags = 0;
	bool short_n = false;
	int c, err, ret;

	/* options may stand anywhere: "list IMG --json" works too */
	while ((c = getopt_long(argc, argv, "fnV", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			r.force = true;
			break;
		case 'D':
			r.dry_run = true;
			break;
		case 'O':
			r.output = optarg;
			break;
		case 'S':
			r.svg = optarg;
			break;
		case 'T':
			r.html = optarg;
			break;
		case 'j':
			r.journal_only = true;
			break;
		case 'u':
			r.undo = optarg;
			break;
		case 'd':
			r.journal_dev = optarg;
			break;
		case 'U':
			upto = strtoull(optarg, &end, 0);
			if (*end || !*optarg || upto > UINT32_MAX) {
				fprintf(stderr, "%s: bad transaction id '%s'\n", r.prog, optarg);
				return 2;
			}
			have_upto = true;
			break;
		case 'o':
			r.offset = strtoull(optarg, &end, 0);
			if (*end || !*optarg || *optarg == '-') {
				fprintf(stderr, "%s: bad offset '%s'\n", r.prog, optarg);
				return 2;
			}
			break;
		case 'G':
			errno = 0;
			r.gap = strtoull(optarg, &end, 0);
			if (*end || !*optarg || *optarg == '-' || errno == ERANGE) {
				fprintf(stderr, "%s: bad gap '%s'\n", r.prog, optarg);
				return 2;
			}
			break;
		case 'J':
			mode = EK_OUT_JSON;
			break;
		case 'L':
			mode = EK_OUT_JSONL;
			r.jsonl = true;
			break;
		case 'n':
			short_n = true;
			/* fall through */
		case 'I':
			flags |= EK_OPEN_IGNORE_CSUM;
			break;
		case 'V':
			printf("extkit-replay %s\n", EK_VERSION);
			return 0;
		case 'H':
			usage(stdout, r.prog);
			return 0;
		default:
			usage(stderr, r.prog);
			return 2;
		}
	}
	if (argc - optind < 2) {
		usage(stderr, r.prog);
		return 2;
	}
	if (!strcmp(argv[optind], "undo")) {
		r.out = ek_out_new(stdout, mode);
		ret = r.out ? do_undo(&r, argc - optind, argv + optind) : 1;
		ek_out_free(r.out);
		return ret;
	}
	for (size_t i = 0; i < sizeof(rp_cmds) / sizeof(rp_cmds[0]); i++)
		if (!strcmp(argv[optind], rp_cmds[i].name))
			cmd = &rp_cmds[i];
	if (!cmd) {
		fprintf(stderr, "%s: unknown command '%s'\n", r.prog, argv[optind]);
		usage(stderr, r.prog);
		return 2;
	}
	r.image = argv[optind + 1];
	if (!strcmp(cmd->name, "mount")) {
		/* cmd_mount.c; -f keeps it in the foreground */
		if (argc - optind != 3 || r.output || r.undo || r.dry_run || r.journal_only) {
			fprintf(stderr, "%s: usage: %s mount [--upto TID] [--journal-dev DEV] [-f] IMAGE DIR\n",
				r.prog, r.prog);
			return 2;
		}
		return rp_mount(&(struct rp_mount_opts){
			.prog = r.prog, .image = r.image, .dir = argv[optind + 2],
			.journal_dev = r.journal_dev, .offset = r.offset, .flags = flags,
			.have_upto = have_upto, .upto = (ek_tid_t)upto, .foreground = r.force });
	}
	if (!cmd->fn) {
		/* apply, the one writing command: the library's recovery driver */
		if (argc - optind != 2) {
			fprintf(stderr, "%s: apply takes one image\n", r.prog);
			return 2;
		}
		if (r.dry_run && (r.undo || r.output)) {
			fprintf(stderr, "%s: %s with --dry-run: a dry run writes nothing\n", r.prog,
				r.undo ? "--undo" : "--output");
			return 2;
		}
		/* -n means "write nothing" to every e2fsprogs user: never with apply */
		if (short_n && !r.dry_run) {
			fprintf(stderr, "%s: apply -n: -n only accepts a bad journal superblock checksum "
				"and apply writes; use --dry-run to write nothing, or --ignore-csum "
				"to replay such a journal\n", r.prog);
			return 2;
		}
		r.flags = flags;
		r.have_upto = have_upto;
		r.upto = (ek_tid_t)upto;
		r.out_mode = mode;
		r.out = ek_out_new(stdout, mode);
		ret = r.out ? do_apply(&r) : 1;
		ek_out_free(r.out);
		return ret;
	}
	if (argc - optind - 2 < cmd->nargs ||
	    argc - optind - 2 > (cmd->maxargs ? cmd->maxargs : cmd->nargs)) {
		fprintf(stderr, "%s: usage: %s %s %s\n", r.prog, r.prog, cmd->name, cmd->usage);
		return 2;
	}
	/* report prints the apply plan: it needs what apply reads */
	r.flags = flags;
	r.have_upto = have_upto;
	r.upto = (ek_tid_t)upto;
	r.out_mode = mode;
	if ((r.svg && strcmp(cmd->name, "timeline")) || (r.html && strcmp(cmd->name, "report"))) {
		fprintf(stderr, "%s: --svg is for 'timeline', --html for 'report'\n", r.prog);
		return 2;
	}
	if (r.output || r.undo || r.force) {
		fprintf(stderr, "%s: --output, --undo and --force are for 'apply' (--force: and 'undo')\n",
			r.prog);
		return 2;
	}
	ret = 1;
	err = ek_fs_open(r.image, &(struct ek_open_opts){ .flags = flags, .offset = r.offset }, &r.fs);
	if (err) {
		fail(&r, r.image, err);
		goto out;
	}
	if (r.journal_dev) {
		err = ek_journal_open_dev(r.fs, r.journal_dev, flags, &r.j);
	} else {
		err = ek_journal_open(r.fs, flags, &r.j);
	}
	flush_warnings(&r);
	/* data-block checksums cost a read of the whole log: only where they count */
	if (!err)
		r.j->no_data_csum = !cmd->plan || cmd->no_data_csum;
	if (!err)
		err = ek_journal_scan(r.j, &r.log);
	if (err) {
		fail(&r, "journal", err);
		goto out;
	}
	/* the inspection commands say it in their output (JSON Lines has no
	 * place for it); apply refuses */
	if (r.log.status && r.jsonl)
		fprintf(stderr, "%s: warning: %s (the kernel would refuse this recovery)\n", r.prog,
			r.log.refused);
	if (have_upto && (r.log.end_tid == r.log.start_tid ||
			  ek_tid_after((ek_tid_t)upto, r.log.end_tid - 1) ||
			  ek_tid_after(r.log.start_tid, (ek_tid_t)upto))) {
		if (r.log.end_tid == r.log.start_tid)
			fprintf(stderr, "%s: --upto %llu: %s\n", r.prog, upto,
				r.j->sb.start ? "the log has no committed transaction" : EK_JLOG_CLEAN);
		else
			fprintf(stderr, "%s: --upto %llu is not a committed transaction of the log (%u..%u)\n",
				r.prog, upto, r.log.start_tid, r.log.end_tid - 1);
		goto out;
	}
	/* only the commands that use it pay for the plan (memory, time) */
	if (cmd->plan)
		err = ek_journal_plan(r.j, &r.log, have_upto ? (ek_tid_t)upto : r.log.end_tid - 1, &r.plan);
	if (err) {
		fail(&r, "journal", err);
		goto out;
	}
	r.out = ek_out_new(stdout, mode);
	ret = r.out ? cmd->fn(&r, argc - optind - 1, argv + optind + 1) : 1;
	ek_out_free(r.out);
out:
	ek_jplan_release(&r.plan);
	ek_jlog_release(&r.log);
	ek_journal_close(r.j);
	ek_fs_close(r.fs);
	return ret;
}
