// SPDX-License-Identifier: MIT
/*
 * main.c - extkit-replay: inspect (and, later, replay) the jbd2 journal.
 * Subcommands share one table; each opens the image read-only.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

struct rp {
	const char *prog;
	struct ek_out *out;
	struct ek_fs *fs;
	struct ek_journal *j;
	struct ek_jlog log;
	bool jsonl;
};

static int fail(struct rp *r, const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", r->prog, what, ek_error_msg(err));
	return 1;
}

static const char *state_name(const struct ek_jtxn *t)
{
	switch (t->state) {
	case EK_JTXN_COMMITTED:
		return "committed";
	case EK_JTXN_TORN:
		return "torn";
	case EK_JTXN_BAD_COMMIT:
		return "bad_checksum";
	}
	return "?";
}

static const char *csum_name(uint8_t c)
{
	return c == EK_CSUM_OK ? "ok" : c == EK_CSUM_BAD ? "bad" : "none";
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

/* ---- info ---------------------------------------------------------------- */

static int do_info(struct rp *r, int argc, char **argv)
{
	const struct ek_jsb *s = &r->j->sb;
	struct ek_out *o = r->out;
	size_t committed = 0;

	(void)argc, (void)argv;
	for (size_t i = 0; i < r->log.ntxns; i++)
		committed += r->log.txns[i].state == EK_JTXN_COMMITTED;
	ek_out_text(o, "Journal:           inode %u%s, %u blocks of %u bytes\n",
		    r->fs->sb.journal_inum, r->j->from_backup ? " (mapped from the superblock's backup)" : "",
		    s->maxlen, s->blocksize);
	ek_out_text(o, "Log area:          blocks %u..%u%s\n", s->first, s->last - 1,
		    s->num_fc_blks ? " (then the fast-commit area)" : "");
	if (s->num_fc_blks)
		ek_out_text(o, "Fast-commit area:  blocks %u..%u\n", s->last, s->maxlen - 1);
	ek_out_text(o, "State:             %s\n", s->start ? "needs recovery" : "clean");
	ek_out_text(o, "Sequence:          %u\n", s->sequence);
	ek_out_text(o, "Log start:         %u\n", s->start);
	if (s->start) {
		ek_out_text(o, "Live region:       blocks %u..%u (wrapping at %u)\n", s->start,
			    r->log.end_jblk, s->last);
		ek_out_text(o, "Transactions:      %zu committed (%u..%u)%s\n", committed,
			    r->log.start_tid, r->log.end_tid - 1,
			    r->log.ntxns > committed ? ", then one not committed" : "");
		ek_out_text(o, "Log end:           %s\n", r->log.end_reason);
	}
	if (s->errno_)
		ek_out_text(o, "Journal errno:     %d\n", s->errno_);

	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "journal_inode", r->fs->sb.journal_inum);
	ek_out_bool(o, "mapped_from_backup", r->j->from_backup);
	ek_out_u64(o, "version", s->version);
	ek_out_u64(o, "block_size", s->blocksize);
	ek_out_u64(o, "blocks", s->maxlen);
	ek_out_u64(o, "first", s->first);
	ek_out_u64(o, "last", s->last);
	ek_out_u64(o, "fast_commit_blocks", s->num_fc_blks);
	ek_out_u64(o, "compat", s->compat);
	ek_out_u64(o, "incompat", s->incompat);
	ek_out_u64(o, "sequence", s->sequence);
	ek_out_u64(o, "start", s->start);
	ek_out_s64(o, "errno", s->errno_);
	ek_out_str(o, "state", s->start ? "needs_recovery" : "clean");
	ek_out_u64(o, "transactions_committed", committed);
	ek_out_u64(o, "end_tid", r->log.end_tid);
	ek_out_u64(o, "end_block", r->log.end_jblk);
	ek_out_str(o, "end_reason", r->log.end_reason);
	ek_out_obj_end(o);
	return 0;
}

/* ---- list ---------------------------------------------------------------- */

static void txn_json(struct ek_out *o, const struct ek_jtxn *t, int64_t prev_sec, uint32_t prev_nsec)
{
	char iso[32];

	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "tid", t->tid);
	ek_out_str(o, "state", state_name(t));
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
	ek_out_str(o, "commit_checksum", csum_name(t->commit_csum));
	ek_out_bool(o, "descriptor_checksum_ok", !t->desc_csum_bad);
	ek_out_u64(o, "bad_data_checksums", t->bad_tags);
	ek_out_obj_end(o);
}

static int do_list(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	int64_t prev_sec = -1;
	uint32_t prev_nsec = 0;

	(void)argc, (void)argv;
	ek_out_text(o, "%10s %7s %7s %6s %5s %5s %6s %-20s %-20s %9s %-5s %s\n", "tid", "first",
		    "commit", "data", "desc", "rvblk", "revoke", "commit time", "sec.nsec",
		    "delta", "csum", "state");
	if (!r->jsonl) {
		ek_out_obj_begin(o, NULL);
		ek_out_arr_begin(o, "transactions");
	}
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];
		char iso[32] = "-", secs[32] = "-", delta[32] = "-", commit[16] = "-";

		if (t->commit_jblk) {
			snprintf(commit, sizeof(commit), "%u", t->commit_jblk);
			ek_fmt_iso(t->commit_sec, iso, sizeof(iso));
			snprintf(secs, sizeof(secs), "%lld.%09u", (long long)t->commit_sec, t->commit_nsec);
			if (prev_sec >= 0)
				snprintf(delta, sizeof(delta), "%.3f", (double)(t->commit_sec - prev_sec) +
					 ((double)t->commit_nsec - prev_nsec) / 1e9);
		}
		ek_out_text(o, "%10u %7u %7s %6u %5u %5u %6u %-20s %-20s %9s %-5s %s\n", t->tid,
			    t->first_jblk, commit, t->ntags, t->ndesc,
			    t->nrevoke_blocks, t->nrevokes, iso, secs, delta,
			    t->desc_csum_bad || t->bad_tags ? "bad" : csum_name(t->commit_csum),
			    state_name(t));
		txn_json(o, t, prev_sec, prev_nsec);
		ek_out_record_end(o);
		if (t->commit_jblk) {
			prev_sec = t->commit_sec;
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

static int do_show(struct rp *r, int argc, char **argv)
{
	struct ek_out *o = r->out;
	const struct ek_jtxn *t = NULL;
	char *end;
	unsigned long tid;

	if (argc != 2)
		return fprintf(stderr, "usage: %s show IMAGE TID\n", r->prog), 2;
	tid = strtoul(argv[1], &end, 0);
	if (*end || !*argv[1] || tid > UINT32_MAX)
		return fprintf(stderr, "%s: bad transaction id '%s'\n", r->prog, argv[1]), 2;
	for (size_t i = 0; i < r->log.ntxns; i++)
		if (r->log.txns[i].tid == tid)
			t = &r->log.txns[i];
	if (!t) {
		fprintf(stderr, "%s: transaction %lu is not in the live log (%u..%u)\n", r->prog, tid,
			r->log.start_tid, r->log.end_tid);
		return 1;
	}
	ek_out_text(o, "Transaction %u (%s), journal blocks %u..%u\n", t->tid, state_name(t),
		    t->first_jblk, t->commit_jblk ? t->commit_jblk : t->first_jblk + t->nblocks - 1);
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "tid", t->tid);
	ek_out_str(o, "state", state_name(t));
	ek_out_text(o, "%10s %14s %6s %s\n", "jblock", "home", "flags", "checksum");
	ek_out_arr_begin(o, "blocks");
	for (uint32_t i = 0; i < t->ntags; i++) {
		const struct ek_jtag *g = &t->tags[i];

		ek_out_text(o, "%10u %14llu %#6x %s%s\n", g->jblk, (unsigned long long)g->home,
			    g->flags, csum_name(g->csum), g->flags & JBD2_FLAG_ESCAPE ? " escaped" : "");
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "journal_block", g->jblk);
		ek_out_u64(o, "home", g->home);
		ek_out_u64(o, "flags", g->flags);
		ek_out_bool(o, "escaped", g->flags & JBD2_FLAG_ESCAPE);
		ek_out_str(o, "checksum", csum_name(g->csum));
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
	return 0;
}

/* ---- main ---------------------------------------------------------------- */

struct rp_cmd {
	const char *name;
	int (*fn)(struct rp *r, int argc, char **argv);
	const char *usage;
	const char *help;
};

static const struct rp_cmd rp_cmds[] = {	/* keep sorted */
	{ "info", do_info, "IMAGE", "journal geometry, features, state and live region" },
	{ "list", do_list, "IMAGE", "one row per transaction in the live log" },
	{ "show", do_show, "IMAGE TID", "the blocks one transaction logged, and its revokes" },
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [--json | --jsonl] [-n] COMMAND IMAGE [ARGS]\n"
		"Inspect the jbd2 journal of an ext3/ext4 image (read-only).\n"
		"Commands:\n", prog);
	for (size_t i = 0; i < sizeof(rp_cmds) / sizeof(rp_cmds[0]); i++)
		fprintf(f, "  %-5s %-10s %s\n", rp_cmds[i].name, rp_cmds[i].usage, rp_cmds[i].help);
	fprintf(f, "Options:\n"
		"  --json      one JSON document on stdout\n"
		"  --jsonl     list: one JSON record per transaction\n"
		"  -n          accept a journal superblock with a bad checksum\n"
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
		{ 0 }
	};
	struct rp r = { .prog = "extkit-replay" };
	enum ek_out_mode mode = EK_OUT_TEXT;
	const struct rp_cmd *cmd = NULL;
	unsigned flags = 0;
	int c, err, ret;

	while ((c = getopt_long(argc, argv, "+nV", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			mode = EK_OUT_JSON;
			break;
		case 'L':
			mode = EK_OUT_JSONL;
			r.jsonl = true;
			break;
		case 'n':
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
	for (size_t i = 0; i < sizeof(rp_cmds) / sizeof(rp_cmds[0]); i++)
		if (!strcmp(argv[optind], rp_cmds[i].name))
			cmd = &rp_cmds[i];
	if (!cmd) {
		fprintf(stderr, "%s: unknown command '%s'\n", r.prog, argv[optind]);
		usage(stderr, r.prog);
		return 2;
	}
	err = ek_fs_open(argv[optind + 1], &(struct ek_open_opts){ .flags = flags }, &r.fs);
	if (err)
		return fail(&r, argv[optind + 1], err);
	err = ek_journal_open(r.fs, flags, &r.j);
	flush_warnings(&r);
	if (err) {
		ek_fs_close(r.fs);
		return fail(&r, "journal", err);
	}
	err = ek_journal_scan(r.j, &r.log);
	if (err) {
		ek_journal_close(r.j);
		ek_fs_close(r.fs);
		return fail(&r, "journal", err);
	}
	if (r.log.status)
		fprintf(stderr, "%s: warning: %s (the kernel would refuse this recovery)\n", r.prog,
			ek_error_msg(r.log.status));
	r.out = ek_out_new(stdout, mode);
	ret = r.out ? cmd->fn(&r, argc - optind - 1, argv + optind + 1) : 1;
	ek_out_free(r.out);
	ek_jlog_release(&r.log);
	ek_journal_close(r.j);
	ek_fs_close(r.fs);
	return ret;
}
