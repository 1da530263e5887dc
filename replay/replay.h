/* SPDX-License-Identifier: MIT */
/*
 * replay.h - what extkit-replay's command files share: the state every
 * command gets (opened image, journal, scanned log, plan) and the commands
 * that others reuse (report prints history, orphans and the apply plan).
 */
#ifndef EK_REPLAY_H
#define EK_REPLAY_H

#include "extkit.h"

struct rp {
	const char *prog;
	struct ek_out *out;
	struct ek_fs *fs;
	struct ek_journal *j;
	struct ek_jlog log;
	struct ek_jplan plan;	/* all committed transactions, or up to --upto */
	bool jsonl;
	bool dry_run;
	const char *output;	/* apply: write a copy here instead of in place */
	bool journal_only;	/* apply: no orphan processing after the journal */
	const char *undo;	/* apply: record the original bytes here */
	const char *journal_dev;	/* external journal device */
	bool applied;		/* apply finished writing: keep its copy whatever the status */
	bool force;		/* apply: replay part of the log (--upto) in place;
				 * undo: go past the checks, as e2undo -f */
	bool have_upto;
	ek_tid_t upto;		/* --upto */
	unsigned flags;		/* EK_OPEN_IGNORE_CSUM (-n) */
	uint64_t offset;	/* --offset: the filesystem's byte offset in the image */
	enum ek_out_mode out_mode;
	const char *image;
	uint64_t gap;		/* seeks: a jump is a move of more than gap blocks */
	const char *svg;	/* timeline: draw into this file ("-": stdout) */
	const char *html;	/* report: write the page into this file ("-": stdout) */
};

/* the commands (main.c, cmd_*.c): 0 success, 1 failure, 2 usage */
int do_history(struct rp *r, int argc, char **argv);
int do_orphans(struct rp *r, int argc, char **argv);
int do_apply(struct rp *r);
int do_timeline(struct rp *r, int argc, char **argv);
int do_report(struct rp *r, int argc, char **argv);

/* the timeline picture (cmd_timeline.c) drawn into @s, for report too;
 * 0, or 1 after a message on stderr */
int timeline_draw(struct rp *r, struct ek_svg *s);

#endif
