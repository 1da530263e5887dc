// SPDX-License-Identifier: MIT
/*
 * main.c - extkit-fsck: check an ext2/ext3/ext4 image as e2fsck does.
 *
 * The journal first, by the library's recovery driver: under -n nothing
 * is written and the check reads the image as recovery would leave it
 * (ek_recover_overlay); otherwise the journal is replayed and the orphans
 * processed, as e2fsck does before it checks.  Then lib's checker
 * (fsck.c) runs the passes; this file holds the options, the output and
 * the exit codes of fsck(8).
 *
 * Repairs (-p, -y, or asked per finding on a terminal) are the library's
 * (lib/repair.c): this file answers its questions as e2fsck's modes do,
 * and prints what was fixed.  -z keeps an undo file of every write, the
 * journal recovery's included.
 */
#include <signal.h>
#include <getopt.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "extkit.h"

/* fsck(8) exit codes, as e2fsck */
enum { FSCK_OK = 0, FSCK_NONDESTRUCT = 1, FSCK_UNCORRECTED = 4, FSCK_ERROR = 8,
       FSCK_USAGE = 16, FSCK_CANCELED = 32 };

enum mode { MODE_ASK, MODE_NO, MODE_PREEN, MODE_YES };

struct fk {
	const char *prog;
	const char *image;
	const char *journal_dev;
	bool no_change, force, verbose;
	enum mode fix_mode;
	bool yes_all;		/* interactive: answered 'a' */
	bool preen_halt;	/* -p met a finding preen does not fix */
	bool pending_json;	/* a finding being fixed: its record waits for the outcome */
	uint64_t asked_seq;	/* the finding asked on the terminal last, + 1 (its
				 * line is printed: fixed() adds only its state) */
	struct ek_finding pending;
	/* the fixes applied since the last commit, by index in @recs (--json)
	 * or in @held (else): the commit can still fail (committed()) */
	size_t *unc;
	size_t nunc, unc_cap;
	struct frec *held;
	size_t nheld, held_cap;
	const char *undo_path;	/* -z */
	struct ek_undo *jundo;	/* -z with -j: the journal device's, in "<undo>.journal" */
	bool optimize_dirs;	/* -D */
	enum ek_out_mode mode;
	struct ek_out *out;
	struct ek_out *lines;	/* --jsonl: the findings, one per line (else NULL) */
	FILE *devnull;
	uint64_t superblock;
	uint32_t blocksize;
	uint64_t offset;	/* --offset: the filesystem's byte offset in the image */
	/* -t: per-pass timing; pass 0 is the whole check */
	bool timing;
	bool journal_only;	/* -E journal_only: recover the journal, check nothing */
	bool unshare_blocks;	/* -E unshare_blocks: copy the blocks shared_blocks shares */
	unsigned pass;		/* the pass running (0: none yet) */
	struct stamp { double wall, user, sys; long rss_kib; } start[6], took[6];
	/* -C: progress; fd > 0 gets e2fsck's completion lines, 0 a bar on a terminal */
	int progress_fd;	/* -1: none */
	bool bar;
	unsigned bar_last;
	uint64_t fd_last;	/* the last line's per mille, + 1 (0: none yet this pass) */
	/* what recovery refused (kept after the plan is freed): the check
	 * reports it, and repairing clears it */
	char refused[sizeof(((struct ek_recovery *)0)->refused_msg)];
	const char *refused_step;	/* NULL: nothing refused */
	uint32_t refused_lost;	/* "journal": the log's committed transactions */
	struct ek_recover_result jres;	/* what the journal step's apply did */
	/* --json: the findings kept until their paths are known (the check's end) */
	struct frec *recs;
	size_t nrecs, recs_cap;
	char **paths;		/* by finding number, or NULL */
	size_t npaths, paths_cap;
	bool oom;		/* a record could not be kept: the check stops */
};

/* one finding's JSON record, kept (--json) until the paths are told */
struct frec {
	enum ek_problem_id id;
	ek_ino_t ino, dir;
	ek_blk_t blk;
	int64_t group;
	uint64_t seq;
	bool has_blk, fixable, fixed;
	char *message;
};

static const char *const pass_names[] = {
	NULL,
	"Pass 1: Checking inodes, blocks, and sizes",
	"Pass 2: Checking directory structure",
	"Pass 3: Checking directory connectivity",
	"Pass 4: Checking reference counts",
	"Pass 5: Checking group summary information",
};

static void lower(char *dst, const char *src, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n && src[i]; i++)
		dst[i] = src[i] >= 'A' && src[i] <= 'Z' ? src[i] - 'A' + 'a' : src[i];
	dst[i] = 0;
}

static struct stamp stamp_now(void)
{
	struct timespec ts;
	struct rusage ru;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	getrusage(RUSAGE_SELF, &ru);
	return (struct stamp){ ts.tv_sec + ts.tv_nsec / 1e9,
			       ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
			       ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6, ru.ru_maxrss };
}

/* -t: the time pass @pass took (0: the whole check), e2fsck -tt's line */
static void pass_done(struct fk *f, unsigned pass)
{
	struct stamp now = stamp_now(), *s = &f->start[pass];

	f->took[pass] = (struct stamp){ now.wall - s->wall, now.user - s->user, now.sys - s->sys,
					now.rss_kib };
	if (pass)
		ek_out_text(f->out, "Pass %u: ", pass);
	ek_out_text(f->out, "Memory used: %ldk, time: %5.2f/%5.2f/%5.2f\n", now.rss_kib,
		    f->took[pass].wall, f->took[pass].user, f->took[pass].sys);
}

static void progress(void *arg, unsigned pass)
{
	struct fk *f = arg;

	/* (its time is counted in pass 3's) */
	if (pass == EK_FSCK_PASS_3A) {
		if (f->fix_mode != MODE_PREEN)
			ek_out_text(f->out, "Pass 3A: Optimizing directories\n");
		return;
	}
	if (f->timing && f->pass)
		pass_done(f, f->pass);
	f->pass = pass;
	if (f->timing && pass < 6)
		f->start[pass] = stamp_now();
	/* e2fsck -p names no passes */
	if (pass < sizeof(pass_names) / sizeof(pass_names[0]) && f->fix_mode != MODE_PREEN)
		ek_out_text(f->out, "%s\n", pass_names[pass]);
	f->bar_last = ~0u;
	f->fd_last = 0;
}

/*
 * -C: within a pass.  To a descriptor: e2fsck's "pass done total device"
 * lines, at most one per thousandth of the pass; on a terminal: the bar.
 */
static void progress_units(void *arg, unsigned pass, uint64_t done, uint64_t total)
{
	struct fk *f = arg;

	if (f->progress_fd > 0) {
		uint64_t pm = total ? done * 1000 / total + 1 : 1001;

		if (pm != f->fd_last || done == total) {
			if (pm == f->fd_last && done == total)
				return;
			f->fd_last = pm;
			dprintf(f->progress_fd, "%u %llu %llu %s\n", pass, (unsigned long long)done,
				(unsigned long long)total, f->image);
		}
	} else if (f->bar) {
		char label[16];

		snprintf(label, sizeof(label), "Pass %u", pass);
		ek_out_bar(stderr, label, &f->bar_last, done, total);
	}
}

static volatile int cancel_flag;

static void on_sigint(int sig)
{
	(void)sig;
	cancel_flag = 1;
}

/* one finding's JSON record, "fixed" as it ended, with its @path (or NULL) */
static void finding_emit(struct ek_out *o, const struct frec *r, const char *path)
{
	const struct ek_problem *p = ek_problem_get(r->id);
	char id[64];

	lower(id, p->name, sizeof(id));
	ek_out_obj_begin(o, NULL);
	ek_out_str(o, "id", id);
	ek_out_u64(o, "pass", p->pass);
	ek_out_str(o, "severity", p->severity == EK_SEV_ERROR ? "error" : "warning");
	ek_out_str(o, "message", r->message);
	if (r->ino)
		ek_out_u64(o, "inode", r->ino);
	else
		ek_out_null(o, "inode");
	if (r->dir)
		ek_out_u64(o, "directory", r->dir);
	else
		ek_out_null(o, "directory");
	if (r->has_blk)
		ek_out_u64(o, "block", r->blk);
	else
		ek_out_null(o, "block");
	if (r->group >= 0)
		ek_out_u64(o, "group", (uint64_t)r->group);
	else
		ek_out_null(o, "group");
	if (path)
		ek_out_str(o, "path", path);
	else
		ek_out_null(o, "path");
	ek_out_bool(o, "fixable", r->fixable);
	ek_out_bool(o, "fixed", r->fixed);
	ek_out_obj_end(o);
}

/*
 * A finding as it ended: --jsonl streams it at once (its path is not known
 * yet: null), --json keeps it for the end of the check, when the paths are.
 */
static void finding_json(struct fk *f, const struct ek_finding *fd)
{
	struct frec r = { fd->id, fd->ino, fd->dir, fd->blk, fd->group, fd->seq, fd->has_blk,
			  fd->fixable, fd->fixed, (char *)fd->message };
	bool json = f->mode == EK_OUT_JSON && !f->lines;

	if (!fd->fixed && f->lines) {
		finding_emit(f->lines, &r, NULL);
		return;
	}
	if (!fd->fixed && !json)
		return;
	/* a fix: kept until its commit says whether it was written */
	r.message = strdup(fd->message);
	if (!r.message || (json ? ek_grow(&f->recs, &f->recs_cap, f->nrecs + 1, sizeof(*f->recs)) :
			   ek_grow(&f->held, &f->held_cap, f->nheld + 1, sizeof(*f->held))) ||
	    (fd->fixed && ek_grow(&f->unc, &f->unc_cap, f->nunc + 1, sizeof(*f->unc)))) {
		free(r.message);
		f->oom = true;
		return;
	}
	if (fd->fixed)
		f->unc[f->nunc++] = json ? f->nrecs : f->nheld;
	if (json)
		f->recs[f->nrecs++] = r;
	else
		f->held[f->nheld++] = r;
}

/* the path of finding @seq (ek_fsck_opts.path) */
static void found_path(void *arg, uint64_t seq, const char *path)
{
	struct fk *f = arg;
	char *dup;

	if (seq >= f->npaths) {
		size_t n = seq + 1;

		if (seq > SIZE_MAX / 2 || ek_grow(&f->paths, &f->paths_cap, n, sizeof(*f->paths))) {
			f->oom = true;
			return;
		}
		memset(f->paths + f->npaths, 0, (n - f->npaths) * sizeof(*f->paths));
		f->npaths = n;
	}
	dup = strdup(path);
	if (!dup) {
		f->oom = true;
		return;
	}
	free(f->paths[seq]);
	f->paths[seq] = dup;
}

/* --json: the findings kept, with their paths, then freed */
static void findings_flush(struct fk *f)
{
	for (size_t i = 0; i < f->nrecs; i++) {
		const struct frec *r = &f->recs[i];

		finding_emit(f->out, r, r->seq < f->npaths ? f->paths[r->seq] : NULL);
		free(r->message);
	}
	for (size_t i = 0; i < f->npaths; i++)
		free(f->paths[i]);
	free(f->recs);
	free(f->paths);
	f->recs = NULL;
	f->paths = NULL;
	f->nrecs = f->npaths = 0;
}

/* interactive: e2fsck's "Fix<y>? " (its question) with y, n, or a (yes to all) */
static int ask(struct fk *f, FILE *pf, const char *question)
{
	char line[64];

	for (;;) {
		fprintf(pf, "%s<y>? ", question);
		fflush(pf);
		if (!fgets(line, sizeof(line), stdin))
			return -1;	/* end of input: stop, as a cancel */
		switch (line[0]) {
		case '\n': case 'y': case 'Y': return EK_FSCK_FIX;
		case 'n': case 'N': return EK_FSCK_LEAVE;
		case 'a': case 'A': f->yes_all = true; return EK_FSCK_FIX;
		}
	}
}

/*
 * A finding's text line: e2fsck's ("IMAGE: " first under -p, as e2fsck
 * -p), the message and @tail ("  Fix? yes", "  FIXED."...), then the
 * finding's JSON id and what became of it: "[id: fixed]", "[id: left]",
 * "[id: failed]" (a fix not applied, or not written), "[id]" under -n
 * (@state NULL).  The one place these lines are printed.
 */
static void finding_line(struct fk *f, enum ek_problem_id id, const char *message,
			 const char *tail, const char *state)
{
	struct ek_out *o = f->lines ? f->lines : f->out;
	char name[64];

	lower(name, ek_problem_get(id)->name, sizeof(name));
	/* e2fsck -p prints nothing for what it fixes silently (EK_PREEN_NOMSG;
	 * JSON lists it) */
	if (f->fix_mode == MODE_PREEN && ek_problem_get(id)->preen_nomsg && state &&
	    !strcmp(state, "fixed"))
		return;
	if (f->fix_mode == MODE_PREEN)
		ek_out_text(o, "%s: ", f->image);
	ek_out_text(o, "%s.%s  [%s%s%s]\n", message, tail, name, state ? ": " : "",
		    state ? state : "");
}

/* a finding: printed, and under repair the answer to "fix it?" */
static int finding(void *arg, const struct ek_finding *fd)
{
	struct fk *f = arg;
	const struct ek_problem *p = ek_problem_get(fd->id);
	int answer = EK_FSCK_LEAVE;
	char tail[80];

	if (f->preen_halt)
		return -1;
	if (!fd->fixable) {
		if (f->fix_mode == MODE_NO) {
			/* as e2fsck -n: every question answered no, fix or not */
			snprintf(tail, sizeof(tail), "  %s? no", p->question);
			finding_line(f, fd->id, fd->message, tail, NULL);
		} else {
			finding_line(f, fd->id, fd->message, p->fix ? "  Not fixed" :
				     "  Not fixed (no repair for it yet)", "left");
		}
		finding_json(f, fd);
		/* preen stops at damage it may not fix, and at what e2fsck's
		 * preen stops at (a warning it would fix is left) */
		if (f->fix_mode == MODE_PREEN &&
		    (p->severity == EK_SEV_ERROR || fd->preen == EK_PREEN_HALT)) {
			f->preen_halt = true;
			return -1;
		}
		return 0;
	}
	switch (f->fix_mode) {
	case MODE_PREEN:
		/* left unasked, as e2fsck's PR_PREEN_NO */
		if (fd->preen == EK_PREEN_LEAVE) {
			finding_line(f, fd->id, fd->message, "  IGNORED.", "left");
			finding_json(f, fd);
			return 0;
		}
		if (fd->preen != EK_PREEN_FIX) {
			finding_line(f, fd->id, fd->message, "", "left");
			finding_json(f, fd);
			f->preen_halt = true;
			return -1;
		}
		answer = EK_FSCK_FIX;	/* its line says how the fix went (fixed()) */
		break;
	case MODE_YES:
		answer = EK_FSCK_FIX;
		break;
	default:
		if (f->yes_all) {
			answer = EK_FSCK_FIX;
		} else {
			FILE *pf = f->mode == EK_OUT_TEXT ? stdout : stderr;

			fflush(stdout);
			fprintf(pf, "%s.  ", fd->message);
			answer = ask(f, pf, p->question);
			f->asked_seq = fd->seq + 1;
			if (answer == EK_FSCK_LEAVE) {
				char name[64];

				lower(name, p->name, sizeof(name));
				ek_out_text(f->out, "  [%s: left]\n", name);
			}
		}
		break;
	}
	if (answer == EK_FSCK_FIX) {
		f->pending = *fd;
		f->pending_json = true;
	} else {
		finding_json(f, fd);
	}
	return answer;
}

/* the outcome of a fix the tool asked for: its line (e2fsck's "Fix? yes",
 * -p's "FIXED."), printed once the fix is applied or failed */
static void fixed(void *arg, const struct ek_finding *fd)
{
	struct fk *f = arg;
	const char *state = fd->fixed ? "fixed" : "failed";
	char tail[80];

	/* (by number: a fix may wait for the findings its fix makes first) */
	if (fd->seq + 1 == f->asked_seq) {
		char name[64];

		lower(name, ek_problem_get(fd->id)->name, sizeof(name));
		ek_out_text(f->lines ? f->lines : f->out, "  [%s: %s]\n", name, state);
	} else if (f->fix_mode == MODE_PREEN) {
		finding_line(f, fd->id, fd->message, fd->fixed ? "  FIXED." :
			     "  NOT FIXED (the repair could not be applied here)", state);
	} else {
		snprintf(tail, sizeof(tail), "  %s? yes%s", ek_problem_get(fd->id)->question,
			 fd->fixed ? "" : " (the repair could not be applied here)");
		finding_line(f, fd->id, fd->message, tail, state);
	}
	f->pending_json = false;
	finding_json(f, fd);
}

/*
 * The fixes applied since the last commit were written (@err 0) or not:
 * each one whose commit failed (or never came) says so on a line of its
 * own, with its id, and its JSON record says "fixed": false (a journal
 * that took the transaction before the failure may still replay it).
 * --jsonl streams them now.
 */
static void committed(void *arg, int err)
{
	struct fk *f = arg;
	bool json = f->mode == EK_OUT_JSON && !f->lines;

	for (size_t i = 0; i < f->nunc; i++) {
		struct frec *r = json ? &f->recs[f->unc[i]] : &f->held[f->unc[i]];
		char tail[160];

		if (!err)
			continue;
		r->fixed = false;
		snprintf(tail, sizeof(tail), "  COMMIT FAILED (%s)", ek_error_msg(err));
		finding_line(f, r->id, r->message, tail, "failed");
	}
	for (size_t i = 0; i < f->nheld; i++) {
		if (f->lines)
			finding_emit(f->lines, &f->held[i], NULL);
		free(f->held[i].message);
	}
	f->nheld = f->nunc = 0;
}

static void no_journal(void *arg, const char *why)
{
	struct fk *f = arg;

	ek_out_text(f->out, "%s: %s\n", f->image, why);
}

/* e2fsck's words; in JSON the findings of both runs are in the one list */
static void restarting(void *arg)
{
	struct fk *f = arg;

	ek_out_text(f->out, "Restarting extkit-fsck from the beginning...\n");
}

/*
 * The JSON "journal" object: what recovery did (@recovered) or, under -n,
 * would do, in the recovery driver's own numbers (its plan and result);
 * null for a filesystem without a journal (or with -b, which skips it);
 * @unusable: why a journal with a log to replay cannot be read, or NULL.
 */
static void journal_json(struct fk *f, const struct ek_recovery *rec, bool has_journal,
			 bool recovered, const char *unusable)
{
	struct ek_out *o = f->out;
	bool planned = rec && !rec->refused && (!rec->clean || rec->finish_only || rec->norphans);
	bool log = planned && !rec->clean;
	uint64_t txns = 0, records = 0;

	if (!has_journal) {
		ek_out_null(o, "journal");
		return;
	}
	/* the committed transactions the plan replays: start_tid..plan.upto */
	for (size_t i = 0; log && i < rec->log.ntxns; i++) {
		const struct ek_jtxn *t = &rec->log.txns[i];

		if (t->state != EK_JTXN_COMMITTED || ek_tid_after(t->tid, rec->plan.upto))
			continue;
		txns++;
		records += t->nrevokes;
	}
	ek_out_obj_begin(o, "journal");
	/* (what was refused is kept in @f: repairing frees the plan first) */
	ek_out_bool(o, "recovery_needed", planned || (rec && rec->refused) || f->refused_step ||
		    unusable);
	ek_out_bool(o, "recovered_in_view", !recovered && planned);
	ek_out_bool(o, "recovered", recovered);
	if (f->refused_step)
		ek_out_str(o, "refused", f->refused);
	else if (unusable)	/* a log to replay, in a journal that cannot be read */
		ek_out_str(o, "refused", unusable);
	else if (rec && rec->refused)
		ek_out_str(o, "refused", rec->refused_msg);
	else
		ek_out_null(o, "refused");
	ek_out_u64(o, "transactions", txns);
	if (txns) {
		ek_out_u64(o, "first_tid", rec->log.start_tid);
		ek_out_u64(o, "last_tid", rec->plan.upto);
	} else {
		ek_out_null(o, "first_tid");
		ek_out_null(o, "last_tid");
	}
	/* home blocks: written by the apply, or the plan's writes under -n */
	ek_out_u64(o, "blocks_replayed", !log ? 0 : recovered ? f->jres.written : rec->plan.nwrites);
	ek_out_u64(o, "revoke_records", records);
	ek_out_u64(o, "revoked", log ? rec->plan.revoked : 0);
	ek_out_u64(o, "superseded", log ? rec->plan.superseded : 0);
	ek_out_u64(o, "bad_checksum", log ? rec->plan.bad_csum : 0);
	ek_out_u64(o, "fast_commit_records", !planned ? 0 : recovered ? f->jres.fc_records :
		   rec->fc_records);
	/* the orphan inodes recovery releases (or, under -n, would) */
	ek_out_arr_begin(o, "orphans");
	for (size_t i = 0; planned && i < rec->norphans; i++) {
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "inode", rec->orphans[i].ino);
		ek_out_str(o, "action", rec->orphans[i].truncate ? "truncated" : "cleared");
		ek_out_u64(o, "size", rec->orphans[i].size);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	ek_out_obj_end(o);
}

/* e2fsck's singular or plural */
static const char *pl(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* e2fsck's rounded tenths of a per cent: @n of @of */
static unsigned tenths(uint64_t n, uint64_t of)
{
	return of ? (unsigned)((n * 10000 / of + 5) / 10) : 0;
}

/*
 * -v: e2fsck -v's statistics, in its words and layout, where the summary
 * line would be (e2fsck prints one or the other).  Directories make 2
 * links each but the root 1 (its '..' names itself), which "links" and
 * "files" leave out, as e2fsck.
 */
static void verbose_stats(struct fk *f, const struct ek_fsck_summary *sum)
{
	const struct ek_fsck_stats *st = &sum->stats;
	struct ek_out *o = f->out;
	int64_t dir_links = 2 * (int64_t)st->directories - 1;
	int64_t links = (int64_t)st->entry_links - dir_links, files = (int64_t)st->entries - dir_links;
	unsigned pf = tenths(st->fragmented_files, sum->inodes_used);
	unsigned pd = tenths(st->fragmented_dirs, sum->inodes_used);
	int depths = EK_FSCK_EXTENT_DEPTHS;

	ek_out_text(o, "\n%12llu %s (%2.2f%%, out of %llu)\n", (unsigned long long)sum->inodes_used,
		    pl(sum->inodes_used, "inode used", "inodes used"),
		    sum->inodes_count ? 100.0 * sum->inodes_used / sum->inodes_count : 0.0,
		    (unsigned long long)sum->inodes_count);
	ek_out_text(o, "%12llu %s (%u.%u%%)\n", (unsigned long long)st->fragmented_files,
		    pl(st->fragmented_files, "non-contiguous file", "non-contiguous files"),
		    pf / 10, pf % 10);
	ek_out_text(o, "%12llu %s (%u.%u%%)\n", (unsigned long long)st->fragmented_dirs,
		    pl(st->fragmented_dirs, "non-contiguous directory", "non-contiguous directories"),
		    pd / 10, pd % 10);
	ek_out_text(o, "             # of inodes with ind/dind/tind blocks: %llu/%llu/%llu\n",
		    (unsigned long long)st->ind, (unsigned long long)st->dind,
		    (unsigned long long)st->tind);
	while (depths && !st->extent_depth[depths - 1])
		depths--;
	if (depths) {
		ek_out_text(o, "             Extent depth histogram: ");
		for (int i = 0; i < depths; i++)
			ek_out_text(o, "%s%llu", i ? "/" : "", (unsigned long long)st->extent_depth[i]);
		ek_out_text(o, "\n");
	}
	ek_out_text(o, "%12llu %s (%2.2f%%, out of %llu)\n", (unsigned long long)sum->blocks_used,
		    pl(sum->blocks_used, "block used", "blocks used"),
		    sum->blocks_count ? 100.0 * sum->blocks_used / sum->blocks_count : 0.0,
		    (unsigned long long)sum->blocks_count);
	ek_out_text(o, "%12llu %s\n", (unsigned long long)st->bad_blocks,
		    pl(st->bad_blocks, "bad block", "bad blocks"));
	ek_out_text(o, "%12llu %s\n", (unsigned long long)st->large_files,
		    pl(st->large_files, "large file", "large files"));
	ek_out_text(o, "\n%12llu %s\n", (unsigned long long)st->regular,
		    pl(st->regular, "regular file", "regular files"));
	ek_out_text(o, "%12llu %s\n", (unsigned long long)st->directories,
		    pl(st->directories, "directory", "directories"));
	ek_out_text(o, "%12llu %s\n", (unsigned long long)st->chardevs,
		    pl(st->chardevs, "character device file", "character device files"));
	ek_out_text(o, "%12llu %s\n", (unsigned long long)st->blockdevs,
		    pl(st->blockdevs, "block device file", "block device files"));
	ek_out_text(o, "%12llu %s\n", (unsigned long long)st->fifos, pl(st->fifos, "fifo", "fifos"));
	/* (as e2fsck, an unsigned count: fewer links than directories wrap) */
	ek_out_text(o, "%12u %s\n", (uint32_t)links, pl((uint32_t)links, "link", "links"));
	ek_out_text(o, "%12llu %s (%llu %s)\n", (unsigned long long)st->symlinks,
		    pl(st->symlinks, "symbolic link", "symbolic links"),
		    (unsigned long long)st->fast_symlinks,
		    pl(st->fast_symlinks, "fast symbolic link", "fast symbolic links"));
	ek_out_text(o, "%12llu %s\n", (unsigned long long)st->sockets,
		    pl(st->sockets, "socket", "sockets"));
	ek_out_text(o, "------------\n%12u %s\n", (uint32_t)files, pl((uint32_t)files, "file", "files"));
}

/* the same numbers in --json's summary */
static void stats_json(struct fk *f, const struct ek_fsck_summary *sum)
{
	const struct ek_fsck_stats *st = &sum->stats;
	struct ek_out *o = f->out;
	int64_t dir_links = 2 * (int64_t)st->directories - 1;
	int depths = EK_FSCK_EXTENT_DEPTHS;

	ek_out_u64(o, "non_contiguous_files", st->fragmented_files);
	ek_out_u64(o, "non_contiguous_directories", st->fragmented_dirs);
	ek_out_u64(o, "inodes_with_ind", st->ind);
	ek_out_u64(o, "inodes_with_dind", st->dind);
	ek_out_u64(o, "inodes_with_tind", st->tind);
	while (depths && !st->extent_depth[depths - 1])
		depths--;
	ek_out_arr_begin(o, "extent_depth_histogram");
	for (int i = 0; i < depths; i++)
		ek_out_u64(o, NULL, st->extent_depth[i]);
	ek_out_arr_end(o);
	ek_out_u64(o, "bad_blocks", st->bad_blocks);
	ek_out_u64(o, "large_files", st->large_files);
	ek_out_u64(o, "regular_files", st->regular);
	ek_out_u64(o, "directory_inodes", st->directories);
	ek_out_u64(o, "character_devices", st->chardevs);
	ek_out_u64(o, "block_devices", st->blockdevs);
	ek_out_u64(o, "fifos", st->fifos);
	ek_out_s64(o, "links", (int64_t)st->entry_links - dir_links);
	ek_out_u64(o, "symlinks", st->symlinks);
	ek_out_u64(o, "fast_symlinks", st->fast_symlinks);
	ek_out_u64(o, "sockets", st->sockets);
	ek_out_s64(o, "files", (int64_t)st->entries - dir_links);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f, "usage: %s [-p | -a | -n | -y] [-f] [-D] [-v] [-t] [-z undo] [-C fd] [-E journal_only|unshare_blocks]\n"
		"       [-b superblock] [-B blocksize] [-j journal] [--json | --jsonl] IMAGE\n"
		"Check and repair an ext2/ext3/ext4 image with e2fsck's passes.\n"
		"  -n          open read-only, write nothing: the journal is not replayed but\n"
		"              the check reads the image as its recovery would leave it\n"
		"  -p, -a      preen: replay the journal, fix what e2fsck -p fixes without\n"
		"              asking, leave other warnings, stop at other errors (exit 4)\n"
		"  -y          fix every finding that has a repair\n"
		"              (none of -n, -p, -y: ask per finding; needs a terminal)\n"
		"  -z FILE     save every block overwritten in the new undo file FILE\n"
		"              (e2undo's format: e2undo FILE IMAGE restores the image);\n"
		"              with -j, the journal device's in FILE.journal\n"
		"  -f          check even when the filesystem is marked clean\n"
		"  -D          rebuild every directory (htree index or sorted), as e2fsck -D\n"
		"  -v          e2fsck -v's statistics (files by type, links, fragmentation,\n"
		"              extent depths) in place of the summary line\n"
		"  -t          time each pass (wall/user/system seconds) and the peak memory\n"
		"  -C FD       progress: e2fsck's \"pass done total device\" lines to FD, or\n"
		"              with 0 a bar on stderr when it is a terminal\n"
		"  -b N        use the backup superblock at block N (-B its block size, else\n"
		"              each is tried; -B alone is ignored, as by e2fsck)\n"
		"  -j DEV      the external journal device (or image file): recovered,\n"
		"              then the repairs are logged through it\n"
		"  -E journal_only  recover the journal and process the orphan inodes,\n"
		"              then stop: no check, no repair\n"
		"  -E unshare_blocks  with shared_blocks: copy every shared block (no\n"
		"              file deleted for room), then clear the feature; implies -f\n"
		"  --offset N  the filesystem starts N bytes into IMAGE (a partition)\n"
		"  --json      one JSON document on stdout (each finding with its path);\n"
		"              --jsonl one finding per line, as found (a fix once its\n"
		"              pass is committed; path null)\n"
		"Repairs go through the journal (one transaction per pass, and one per\n"
		"inode whose shared blocks are copied); without one they are written\n"
		"in place in order (new blocks, then what points at them, freed bits and\n"
		"the superblock last), not atomically: if interrupted, run it again.\n"
		"Exit status (fsck(8), or-ed): 0 clean, 1 errors corrected, 4 errors left\n"
		"uncorrected, 8 operational error, 16 usage error, 32 cancelled (SIGINT,\n"
		"SIGTERM: the fixes of the pass under way are committed first).\n", prog);
}

static int64_t now_time(void)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");

	return sde && *sde ? strtoll(sde, NULL, 10) : (int64_t)time(NULL);
}

struct pass0_count {
	bool repairing;
	unsigned found;
};

/* a finding that makes e2fsck check a clean filesystem: any it would fix,
 * and under -n any but a cosmetic one */
static int count_finding(void *arg, const struct ek_finding *fd)
{
	struct pass0_count *pc = arg;

	if (pc->repairing || !ek_problem_get(fd->id)->not_a_fix)
		pc->found++;
	return EK_FSCK_LEAVE;
}

/* a filesystem marked clean: 0 when its superblock and descriptors pass
 * the checks e2fsck makes before it skips one, 1 when they find something,
 * -1 when they cannot be made (read only, nothing reported) */
static int pass0_found(struct ek_fs *fs, bool repairing)
{
	struct ek_fsck_summary sum;
	struct pass0_count pc = { repairing, 0 };
	int err = ek_fsck_check(fs, &(struct ek_fsck_opts){ .report = count_finding,
							   .arg = &pc, .now = now_time(),
							   .pass0_only = true }, &sum);

	return pc.found ? 1 : err ? -1 : 0;
}

/*
 * e2fsck's check_if_skip, before a recovery and again after one: a
 * filesystem marked clean is skipped unless its flags, mount count or
 * check interval force a check (said, and kept in @forced), a recovery or
 * orphans are pending, or the superblock checks made before the skip find
 * something (-n says so; repairing, the whole check fixes it, as e2fsck's
 * would, without a word).  Skipped, and repairing, the superblock's free
 * counts are set from the descriptors, as e2fsck does (through a handle
 * of its own, into the undo file).  true when skipped.
 */
static bool check_if_skip(struct fk *f, struct ek_fs *probe, char *forced, size_t n,
			  struct ek_undo **undo)
{
	char why[100];
	const char *force = ek_fsck_force_reason(probe, now_time(), why, sizeof(why));
	int next = ek_fsck_mounts_to_check(probe, now_time());
	uint64_t free_blocks;
	uint32_t free_inodes;
	int found;

	if (force) {
		ek_out_text(f->out, "%s %s, check forced.\n", f->image, force);
		snprintf(forced, n, "%s", force);
		return false;
	}
	if (ek_has_incompat(probe, EXT4_FEATURE_INCOMPAT_RECOVER) || probe->sb.last_orphan)
		return false;
	found = pass0_found(probe, !f->no_change);
	if (found) {
		/* (-1: they cannot be made; the whole check says why) */
		if (f->fix_mode == MODE_NO && found > 0) {
			snprintf(forced, n, "contains a file system with errors");
			ek_out_text(f->out, "%s %s, check forced.\n", f->image, forced);
		}
		return false;
	}
	/* a group counting more free than it holds: the whole check says so */
	if (!ek_fsck_desc_free_counts(probe, &free_blocks, &free_inodes))
		return false;
	if (!f->no_change && (free_blocks != probe->sb.free_blocks_count ||
			      free_inodes != probe->sb.free_inodes_count)) {
		struct ek_fs *w = NULL;
		int err = ek_fs_open(f->image, &(struct ek_open_opts){
					.flags = EK_OPEN_NO_BITMAPS | EK_OPEN_RW,
					.offset = f->offset }, &w);

		if (!err && f->undo_path && !*undo)
			err = ek_undo_create(f->undo_path, w->io, w->blksz, undo);
		if (!err && *undo)
			err = ek_io_set_undo(w->io, *undo);
		if (!err)
			err = ek_fsck_skip_counts(w);
		if (w) {
			ek_io_set_undo(w->io, NULL);
			ek_fs_close(w);
		}
		if (err < 0) {
			/* the whole check that follows sets them */
			fprintf(stderr, "%s: %s: the superblock's free counts: %s\n", f->prog,
				f->image, ek_error_msg(err));
			return false;
		}
		probe->sb.free_blocks_count = free_blocks;
		probe->sb.free_inodes_count = free_inodes;
	}
	ek_out_text(f->out, "%s: clean, %u/%u files, %llu/%llu blocks%s", f->image,
		    probe->sb.inodes_count - probe->sb.free_inodes_count, probe->sb.inodes_count,
		    (unsigned long long)(probe->sb.blocks_count - probe->sb.free_blocks_count),
		    (unsigned long long)probe->sb.blocks_count,
		    next == 1 ? " (check after next mount)" : "");
	if (next > 1 && next <= 5)
		ek_out_text(f->out, " (check in %d mounts)", next);
	ek_out_text(f->out, "\n");
	return true;
}

/*
 * -z with an external journal: the device gets an undo file of its own,
 * "<undo>.journal" (as extkit-replay apply --undo), made on first need
 * for @dev, and attached to it when @attach (the recovery attaches its own).
 */
static int journal_undo(struct fk *f, struct ek_io *dev, uint32_t blksz, bool attach)
{
	char path[4096];
	int err;

	if (!f->undo_path)
		return 0;
	if (!f->jundo) {
		if (snprintf(path, sizeof(path), "%s.journal", f->undo_path) >= (int)sizeof(path))
			return ek_err(-ENAMETOOLONG, "undo file name '%s' is too long", f->undo_path);
		err = ek_undo_create(path, dev, blksz, &f->jundo);
		if (err)
			return err;
	}
	return attach ? ek_io_set_undo(dev, f->jundo) : 0;
}

/*
 * The journal step: recovery planned; under -n only viewed, else applied
 * (log, fast commits, orphans) by the library's recovery driver, with
 * the undo file (*@undo, made here on first need).  *@applied: written.
 */
static int journal_step(struct fk *f, struct ek_recovery **rec, struct ek_undo **undo,
			bool *applied)
{
	struct ek_recover_opts o = {
		.image = f->image, .journal_dev = f->journal_dev, .offset = f->offset,
		.flags = f->no_change ? 0 : EK_OPEN_RW,
		/* the view checks a logged copy's data checksum when it reads it */
		.no_data_csum = true, .now = now_time(),
		/* as e2fsck: a damaged journal inode's log is read through s_jnl_blocks */
		.use_backup = true,
		/* as e2fsck (and a mount), orphans are released without a journal too */
		.orphans_without_journal = true,
	};
	int err;

	err = ek_recover_plan(&o, rec);
	if (err)
		return err;
	if ((*rec)->refused) {
		const struct ek_recovery *r = *rec;

		/* a finding: under -n the image is checked as it is; repairing,
		 * the check clears what was refused */
		snprintf(f->refused, sizeof(f->refused), "%s", r->refused_msg);
		f->refused_step = r->refused_step;
		for (size_t i = 0; i < r->log.ntxns; i++)
			f->refused_lost += r->log.txns[i].state == EK_JTXN_COMMITTED;
		if (f->no_change || strcmp(r->refused_step, "orphan inodes"))
			return 0;
		/* as e2fsck: the log is replayed, and the orphans it cannot
		 * follow are the check's to clear */
		ek_recover_free(*rec);
		*rec = NULL;
		o.journal_only = true;
		err = ek_recover_plan(&o, rec);
		if (err)
			return err;
		if ((*rec)->refused)
			return 0;
	}
	if ((*rec)->clean && !(*rec)->finish_only && !(*rec)->norphans)
		return 0;
	if (f->no_change) {
		/* -n: nothing written, the check reads through the plan */
		ek_out_text(f->out, "%s: %s (not written, -n): checking the image as recovery "
			    "would leave it\n", f->image, !(*rec)->clean ? "recovering journal" :
			    (*rec)->norphans ? "processing orphan inodes" : "clearing needs_recovery");
		return 0;
	}
	{
		struct ek_recover_apply_opts a = { .now = o.now };
		struct ek_recover_result res;

		if (f->undo_path && !*undo) {
			err = ek_undo_create(f->undo_path, (*rec)->fs->io, (*rec)->fs->blksz, undo);
			if (err)
				return err;
		}
		a.undo = *undo;
		if ((*rec)->j && (*rec)->j->dev) {
			err = journal_undo(f, (*rec)->j->dev, (*rec)->fs->blksz, false);
			if (err)
				return err;
			a.journal_undo = f->jundo;
		}
		if (!(*rec)->clean)
			ek_out_text(f->out, "%s: recovering journal\n", f->image);
		if ((*rec)->norphans)
			ek_out_text(f->out, "%s: processing %zu orphan inodes\n", f->image,
				    (*rec)->norphans);
		/* each in e2fsck's words */
		for (size_t i = 0; i < (*rec)->norphans; i++) {
			const struct ek_recover_orphan *op = &(*rec)->orphans[i];

			ek_out_text(f->out, "%s%s%s orphaned inode %u (uid=%u, gid=%u, mode=0%o, "
				    "size=%llu)\n", f->fix_mode == MODE_PREEN ? f->image : "",
				    f->fix_mode == MODE_PREEN ? ": " : "", op->truncate ? "Truncating" : "Clearing", op->ino,
				    op->uid, op->gid, op->mode, (unsigned long long)op->size);
		}
		err = ek_recover_apply(*rec, &a, &res);
		if (err)
			return err;
		f->jres = res;
		*applied = true;
	}
	return 0;
}

/*
 * Before repairing @fs (opened RW): its journal, internal or the external
 * device named with -j, through which the repairs are committed (NULL,
 * written in place in order, when it has none, an external one is not
 * named, or an internal one cannot be opened), and the undo file.  An
 * external device that is not the filesystem's (UUID, users) is refused.
 */
static int repair_setup(struct fk *f, struct ek_fs *fs, bool cleared, struct ek_journal **jnl,
			struct ek_undo **undo)
{
	int err;

	if (f->undo_path && !*undo) {
		err = ek_undo_create(f->undo_path, fs->io, fs->blksz, undo);
		if (err)
			return err;
	}
	/* a journal the check clears (unreadable) logs nothing */
	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || cleared)
		return 0;
	if (fs->sb.journal_inum == 0 && !f->journal_dev) {
		/* (recovery said so already: "name it with -j") */
		ek_out_text(f->out, "%s: the external journal is not named with -j: repairs "
			    "are not logged\n", f->image);
		return 0;
	}
	if (fs->sb.journal_inum == 0) {
		/* the device the journal step recovered: checked again (its
		 * UUID the filesystem's s_journal_uuid, the filesystem among
		 * its users), refused with the reason */
		err = ek_journal_open_dev(fs, f->journal_dev, EK_OPEN_RW | EK_OPEN_IGNORE_CSUM, jnl);
		if (err)
			return err;	/* (main says why) */
		err = journal_undo(f, (*jnl)->dev, fs->blksz, true);
		if (err)
			return err;
	} else {
		err = ek_journal_open(fs, EK_OPEN_IGNORE_CSUM, jnl);
		if (err == -ENOMEM)
			return err;
	}
	/* a refused log is the check's to drop (JOURNAL_REFUSED) */
	if (!err && (*jnl)->sb.start &&
	    !(f->refused_step && !strcmp(f->refused_step, "journal") && !fs->sb_block)) {
		ek_journal_close(*jnl);
		*jnl = NULL;	/* not recovered (refused, or read through a backup superblock) */
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "offset", required_argument, NULL, 'o' },
		{ "jsonl", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'H' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 }
	};
	struct fk f = { .prog = "extkit-fsck", .mode = EK_OUT_TEXT, .progress_fd = -1 };
	struct ek_recovery *rec = NULL;
	struct ek_fsck_summary sum;
	struct ek_fs *fs = NULL;
	struct ek_journal *jnl = NULL;
	struct ek_undo *undo = NULL;
	bool skipped = false, recovered = false, repair = false, was_valid = true;
	bool has_journal = false, needs_recovery = false;
	uint64_t real_fixes, all_fixes;
	bool say_modified, changed, released = false;
	char forced[100];	/* why a clean filesystem is checked, or "" */
	int nmodes = 0;
	ek_blk_t backup = 0;
	int journal_err = 0;
	char *journal_sb_bad = NULL;
	char *backup_why = NULL;
	int c, err, ret = FSCK_ERROR;
	bool modified = false;
	char *end;

	while ((c = getopt_long(argc, argv, "nfvb:B:j:payz:C:tDVE:", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': f.no_change = true; f.fix_mode = MODE_NO; nmodes++; break;
		case 'p': case 'a':
			if (f.fix_mode != MODE_PREEN)
				nmodes++;
			f.fix_mode = MODE_PREEN;
			break;
		case 'y': f.fix_mode = MODE_YES; nmodes++; break;
		case 'z': f.undo_path = optarg; break;
		case 'f': f.force = true; break;
		case 'v': f.verbose = true; break;
		case 't': f.timing = true; break;	/* -tt as -t */
		case 'D': f.optimize_dirs = true; break;
		case 'C':
			f.progress_fd = (int)strtol(optarg, &end, 10);
			if (*end || !*optarg || f.progress_fd < 0) {
				fprintf(stderr, "%s: bad progress descriptor '%s'\n", f.prog, optarg);
				return FSCK_USAGE;
			}
			break;
		case 'j': f.journal_dev = optarg; break;
		case 'E':
			/* e2fsck's extended options: journal_only, unshare_blocks */
			for (char *o = strtok(optarg, ","); o; o = strtok(NULL, ",")) {
				if (!strcmp(o, "journal_only")) {
					f.journal_only = true;
				} else if (!strcmp(o, "unshare_blocks")) {
					f.unshare_blocks = true;
					f.force = true;	/* as e2fsck: every pass runs */
				} else {
					fprintf(stderr, "%s: unknown extended option '%s'\n",
						f.prog, o);
					return FSCK_USAGE;
				}
			}
			break;
		case 'b':
			f.superblock = strtoull(optarg, &end, 0);
			if (*end || !*optarg) {
				fprintf(stderr, "%s: bad superblock number '%s'\n", f.prog, optarg);
				return FSCK_USAGE;
			}
			break;
		case 'B':
			f.blocksize = strtoul(optarg, &end, 0);
			if (*end || !*optarg) {
				fprintf(stderr, "%s: bad block size '%s'\n", f.prog, optarg);
				return FSCK_USAGE;
			}
			break;
		case 'o':
			f.offset = strtoull(optarg, &end, 0);
			if (*end || !*optarg || *optarg == '-') {
				fprintf(stderr, "%s: bad offset '%s'\n", f.prog, optarg);
				return FSCK_USAGE;
			}
			break;
		case 'J': f.mode = EK_OUT_JSON; break;
		case 'L': f.mode = EK_OUT_JSONL; break;
		case 'V': printf("extkit-fsck %s\n", EK_VERSION); return FSCK_OK;
		case 'H': usage(stdout, f.prog); return FSCK_OK;
		default: usage(stderr, f.prog); return FSCK_USAGE;
		}
	}
	if (argc - optind != 1) {
		usage(stderr, f.prog);
		return FSCK_USAGE;
	}
	f.image = argv[optind];
	if (nmodes > 1) {
		/* e2fsck's words */
		fprintf(stderr, "%s: Only one of the options -p/-a, -n or -y may be specified.\n",
			f.prog);
		return FSCK_USAGE;
	}
	if (f.no_change && f.optimize_dirs) {
		/* e2fsck's words */
		fprintf(stderr, "%s: The -n and -D options are incompatible.\n", f.prog);
		return FSCK_USAGE;
	}
	if (f.no_change && f.undo_path) {
		fprintf(stderr, "%s: -z: -n writes nothing to undo\n", f.prog);
		return FSCK_USAGE;
	}
	if (f.fix_mode == MODE_ASK && !isatty(STDIN_FILENO)) {
		fprintf(stderr, "%s: need terminal for interactive repairs\n", f.prog);
		return FSCK_ERROR;
	}
	if (ek_target_mounted(f.image)) {
		if (!f.no_change) {
			fprintf(stderr, "%s: '%s' is mounted: refusing to repair it (unmount it, or "
				"check it with -n)\n", f.prog, f.image);
			return FSCK_ERROR;
		}
		fprintf(stderr, "%s: warning: '%s' is mounted: the check reads a filesystem in use, "
			"and what the kernel has not written yet reads as damage\n", f.prog, f.image);
	}
	repair = !f.no_change;
	signal(SIGINT, on_sigint);
	signal(SIGTERM, on_sigint);
	if (f.mode == EK_OUT_JSONL) {
		/* the findings stream; the document itself goes nowhere */
		f.devnull = fopen("/dev/null", "w");
		f.out = f.devnull ? ek_out_new(f.devnull, EK_OUT_JSON) : NULL;
		f.lines = ek_out_new(stdout, EK_OUT_JSONL);
	} else {
		f.out = ek_out_new(stdout, f.mode);
	}
	if (!f.out || (f.mode == EK_OUT_JSONL && !f.lines))
		return FSCK_ERROR;
	ek_out_obj_begin(f.out, NULL);
	ek_out_str(f.out, "image", f.image);
	forced[0] = 0;

	/* the journal of the primary superblock's filesystem (not with -b) */
	if (!f.superblock) {
		struct ek_fs *probe;

		err = ek_fs_open(f.image, &(struct ek_open_opts){ .flags = EK_OPEN_NO_BITMAPS,
							     .offset = f.offset }, &probe);
		if (err == -EK_CORRUPT || err == -EK_BADCRC)
			probe = NULL;	/* the check tries the backups */
		else if (err) {
			fprintf(stderr, "%s: %s: %s\n", f.prog, f.image, ek_error_msg(err));
			goto out;
		}
		if (probe && !f.force)
			skipped = check_if_skip(&f, probe, forced, sizeof(forced), &undo);
		has_journal = probe && ek_has_compat(probe, EXT4_FEATURE_COMPAT_HAS_JOURNAL);
		needs_recovery = probe && ek_has_incompat(probe, EXT4_FEATURE_INCOMPAT_RECOVER);
		/* without a journal: the orphan inodes, when repairing (e2fsck
		 * releases them on any filesystem; -n reads them as they are, as
		 * e2fsck -n, which releases none) */
		if (probe && !skipped && (ek_has_compat(probe, EXT4_FEATURE_COMPAT_HAS_JOURNAL) ||
					  (!f.no_change && probe->sb.last_orphan))) {
			bool journaled = ek_has_compat(probe, EXT4_FEATURE_COMPAT_HAS_JOURNAL);

			ek_fs_close(probe);
			probe = NULL;
			err = journal_step(&f, &rec, &undo, &recovered);
			released = recovered && rec && rec->norphans;	/* orphans released */
			if (!err && !journaled && rec && rec->refused) {
				/* no journal: an orphan list the recovery refuses is
				 * left to the check, as e2fsck, which then checks (and
				 * repairs) the whole filesystem */
				ek_recover_free(rec);
				rec = NULL;
			}
			if (!err && rec && rec->j) {
				int bad = ek_journal_check_sb(rec->j);

				if (bad && !(journal_sb_bad = strdup(ek_error_msg(bad)))) {
					err = -ENOMEM;
					goto out;
				}
			}
			if (err == -ENODEV && !f.journal_dev)
				fprintf(stderr, "%s: %s: %s: name it with -j\n", f.prog, f.image,
					ek_error_msg(err));
			if (err == -EK_CORRUPT || err == -EK_BADCRC || err == -EK_UNSUPP ||
			    err == -ENODEV) {
				/* as e2fsck: the check goes on without the journal */
				journal_err = err;	/* a finding: check what is there */
				ek_recover_free(rec);
				rec = NULL;
			} else if (err) {
				fprintf(stderr, "%s: %s: journal: %s\n", f.prog, f.image,
					ek_error_msg(err));
				goto out;
			}
			/* an internal journal that cannot be read is cleared by the check;
			 * any other log left unreplayed would be replayed over the
			 * repairs later */
			if (repair && ((journal_err && (f.journal_dev ||
			     (journal_err != -EK_CORRUPT && journal_err != -EK_BADCRC))) ||
			    (rec && rec->refused && (f.journal_dev ||
			     (strcmp(rec->refused_step, "journal") &&
			      strcmp(rec->refused_step, "orphan inodes")))))) {
				fprintf(stderr, "%s: %s: the journal cannot be recovered: nothing is "
					"repaired\n", f.prog, f.image);
				repair = false;
			}
		}
		ek_fs_close(probe);
	}
	if (recovered && repair && !skipped && !f.force && !forced[0] && !f.journal_only &&
	    !journal_err && !journal_sb_bad && rec && !rec->refused) {
		/* as e2fsck, which starts again after a recovery: a filesystem
		 * the recovery left clean is skipped (the superblock's free
		 * counts, which a crash leaves old, set from the descriptors) */
		struct ek_fs *again;

		if (!ek_fs_open(f.image, &(struct ek_open_opts){ .flags = EK_OPEN_NO_BITMAPS,
								  .offset = f.offset }, &again)) {
			skipped = check_if_skip(&f, again, forced, sizeof(forced), &undo);
			ek_fs_close(again);
		}
	}
	if (forced[0])
		ek_out_str(f.out, "check_forced", forced);
	else
		ek_out_null(f.out, "check_forced");
	journal_json(&f, rec, has_journal, recovered,
		     journal_err && needs_recovery ? ek_error_msg(journal_err) : NULL);
	if (f.journal_only && !skipped) {
		/* as e2fsck -E journal_only: the journal and the orphans, nothing else */
		ek_out_arr_begin(f.out, "findings");
		ek_out_arr_end(f.out);
		if (journal_err)
			fprintf(stderr, "%s: %s: journal: %s\n", f.prog, f.image,
				ek_error_msg(journal_err));
		/* e2fsck -E journal_only exits 0 after a recovery too */
		ret = journal_err || f.refused_step ? FSCK_UNCORRECTED : FSCK_OK;
		ek_out_obj_begin(f.out, "summary");
		ek_out_bool(f.out, "journal_only", true);
		ek_out_bool(f.out, "modified", recovered);
		ek_out_u64(f.out, "exit_code", ret);
		ek_out_obj_end(f.out);
		goto out;
	}
	if (skipped) {
		ek_out_arr_begin(f.out, "findings");
		ek_out_arr_end(f.out);
		ret = FSCK_OK;
		goto out_summary_skipped;
	}

	if (rec && !f.no_change) {
		/* applied (or refused): the check opens the image itself */
		ek_recover_free(rec);
		rec = NULL;
	}
	{
		bool view = rec && !rec->refused;

		err = ek_fs_open(f.image, &(struct ek_open_opts){
					.flags = EK_OPEN_IGNORE_CSUM | (repair ? EK_OPEN_RW : 0),
					.superblock = f.superblock,
					.offset = f.offset,
					.blocksize = f.blocksize,
					.overlay = view ? ek_recover_overlay : NULL,
					.overlay_arg = view ? rec : NULL }, &fs);
	}
	if (!err && (err = ek_fsck_desc_check(fs))) {
		ek_fs_close(fs);
		fs = NULL;
	}
	if ((err == -EK_CORRUPT || err == -EK_BADCRC) && !f.superblock) {
		/* as e2fsck: a damaged primary, then the first backups of each block size */
		char why[200];

		snprintf(why, sizeof(why), "%s", ek_error_msg(err));
		/* (preen, as e2fsck -p, tries no backup: it is not its to choose) */
		for (uint32_t bs = 1024; bs <= 65536 && err && f.fix_mode != MODE_PREEN; bs *= 2) {
			ek_blk_t sb = (ek_blk_t)bs * 8 + (bs == 1024);

			err = ek_fs_open(f.image, &(struct ek_open_opts){
						.flags = EK_OPEN_IGNORE_CSUM |
							 (repair ? EK_OPEN_RW : 0),
						.superblock = sb,
						.offset = f.offset,
						.blocksize = bs }, &fs);
			if (!err && (err = ek_fsck_desc_check(fs))) {
				ek_fs_close(fs);
				fs = NULL;
			}
			if (!err)
				backup = sb;
		}
		if (!err) {
			backup_why = strdup(why);
			fprintf(stderr, "%s: %s: %s; trying backup blocks: superblock %llu\n",
				f.prog, f.image, why, (unsigned long long)backup);
		} else {
			/* no backup: the primary as it is, its damage reported */
			err = ek_fs_open(f.image, &(struct ek_open_opts){
						.flags = EK_OPEN_IGNORE_CSUM |
							 (repair ? EK_OPEN_RW : 0),
						.offset = f.offset,
						.overlay = rec && !rec->refused ? ek_recover_overlay : NULL,
						.overlay_arg = rec && !rec->refused ? rec : NULL }, &fs);
			if (err)
				err = ek_err(err, f.fix_mode == MODE_PREEN ?
					     "%s (preen does not try the backup superblocks, as e2fsck "
					     "-p: run without -p, or name one with -b)" :
					     "%s (and no backup superblock opens)", why);
		}
	}
	if (err) {
		char hint[200] = "";

		/* a whole disk where a filesystem was expected: name the partitions */
		ek_partitions_hint(f.image, f.offset, "--offset", hint, sizeof(hint));
		fprintf(stderr, "%s: %s: %s%s\n", f.prog, f.image, ek_error_msg(err), hint);
		goto out;
	}
	for (unsigned i = 0; f.verbose && i < fs->nwarnings; i++)
		fprintf(stderr, "%s: warning: %s\n", f.prog, fs->warnings[i]);
	if (f.superblock && !backup) {
		backup = f.superblock;
		backup_why = strdup("the superblock named with -b is used");
	}
	if (repair && (err = repair_setup(&f, fs, journal_err == -EK_CORRUPT ||
					  journal_err == -EK_BADCRC, &jnl, &undo)) > 0) {
		/* a log left unreplayed would be replayed over the repairs later */
		fprintf(stderr, "%s: %s: the journal needs recovery, which %s: nothing is "
			"repaired\n", f.prog, f.image, fs->sb_block ?
			"is not made through a backup superblock" : "was not made");
		repair = false;
		err = 0;
	}
	if (err) {
		/* (the undo file cannot be made, the journal device cannot be
		 * opened...): said, as every operational error */
		fprintf(stderr, "%s: %s: %s\n", f.prog, f.image, ek_error_msg(err));
		goto out;
	}
	was_valid = fs->sb.state & EXT4_VALID_FS;
	ek_out_arr_begin(f.out, "findings");
	/* a bar only where someone watches it, and not under the JSON */
	f.bar = f.progress_fd == 0 && isatty(STDERR_FILENO) && f.mode == EK_OUT_TEXT;
	if (f.timing)
		f.start[0] = stamp_now();
	err = ek_fsck_check(fs, &(struct ek_fsck_opts){ .report = finding, .progress = progress,
							.progress_units = f.progress_fd > 0 || f.bar ?
									  progress_units : NULL,
							.arg = &f, .backup_sb = backup,
							.backup_why = backup_why,
							.journal_err = journal_err,
							.journal_sb_bad = journal_sb_bad,
							.journal_refused = f.refused_step ?
									   f.refused : NULL,
							.journal_refused_step = f.refused_step,
							.journal_refused_lost = f.refused_lost,
							.repair = repair, .now = now_time(),
							.journal = jnl, .undo = undo,
							.fixed = fixed, .committed = committed,
							.no_journal = no_journal,
							.restarting = restarting,
							.cancel = &cancel_flag,
							.optimize_dirs = f.optimize_dirs,
							/* (preen could halt after it) */
							.index_dirs = true,
							.never_halts = f.fix_mode == MODE_YES,
							.force = f.force,
							.unshare_blocks = f.unshare_blocks,
							/* --json: each finding's path */
							.path = f.mode == EK_OUT_JSON ?
								found_path : NULL },
			    &sum);
	if (f.pending_json) {
		f.pending.fixed = false;
		finding_json(&f, &f.pending);
	}
	committed(&f, err);	/* (none left: every commit told its own) */
	free(f.unc);
	free(f.held);
	findings_flush(&f);
	if (f.oom && !err)
		err = -ENOMEM;
	ek_out_arr_end(f.out);
	if (f.timing && f.pass && !err)
		pass_done(&f, f.pass);
	/* a fix written outside the passes' commits (the journal superblock's) too */
	modified = recovered || sum.commits || sum.fixed[EK_SEV_ERROR] || sum.fixed[EK_SEV_WARNING];
	if (err == -ECANCELED && f.preen_halt) {
		/* e2fsck's words, on stderr as e2fsck, after what was fixed
		 * was committed */
		fflush(stdout);
		fprintf(stderr, "\n\n%s: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.\n"
			"\t(i.e., without -a or -p options)\n", f.image);
		ret = FSCK_UNCORRECTED;
		goto out_summary_halted;
	}
	if (err == -ECANCELED) {
		ek_out_text(f.out, "\n%s: cancelled: the repairs made so far are committed\n", f.image);
		ret = FSCK_CANCELED | (modified ? FSCK_NONDESTRUCT : 0);
		goto out_summary_halted;
	}
	if (err) {
		fprintf(stderr, "%s: %s: check stopped: %s\n", f.prog, f.image, ek_error_msg(err));
		goto out;
	}
	/* warnings (e2fsck's "IGNORED") leave the verdict clean; or-ed as e2fsck */
	ret = sum.findings[EK_SEV_ERROR] > sum.fixed[EK_SEV_ERROR] ? FSCK_UNCORRECTED : FSCK_OK;
	/* as e2fsck, status 1 takes a fix (a problem fixed that is no
	 * EK_NOT_A_FIX: e2fsck's E2F_FLAG_PROBLEMS_FIXED) and a change (a fix
	 * that is no EK_NO_CHANGE, an orphan released, a directory rebuilt:
	 * e2fsck's ext2fs_test_changed()); a recovery alone (replay, orphans),
	 * directories -D rebuilt, fixes that are no fix (a time in the
	 * future) or fixes that change nothing e2fsck counts (a descriptor's
	 * checksum) leave it 0.  Written with no finding (-E unshare_blocks'
	 * feature cleared): 1 */
	all_fixes = sum.fixed[EK_SEV_ERROR] + sum.fixed[EK_SEV_WARNING];
	real_fixes = all_fixes - sum.fixed_not_a_fix;
	changed = all_fixes > sum.fixed_no_change || released || sum.dirs_optimized;
	if (modified && ((real_fixes && changed) ||
			 (!all_fixes && !sum.dirs_optimized && !recovered)))
		ret |= FSCK_NONDESTRUCT;
	/* no "MODIFIED" line after fixes that are no fix alone (the JSON's
	 * "modified" still says the image was written) */
	say_modified = modified && (ret & FSCK_NONDESTRUCT || sum.dirs_optimized ||
				    f.unshare_blocks || recovered);
	/* as e2fsck: a filesystem not marked valid that the check marked so */
	if (repair && !was_valid && !(ret & FSCK_UNCORRECTED))
		ret |= FSCK_NONDESTRUCT;
	if (say_modified && f.fix_mode != MODE_PREEN)	/* e2fsck -p never says it */
		ek_out_text(f.out, "\n%s: ***** FILE SYSTEM WAS MODIFIED *****\n", f.image);
	if (ret & FSCK_UNCORRECTED)
		ek_out_text(f.out, "\n%s: ********** WARNING: Filesystem still has errors **********\n\n",
			    f.image);
	if (f.verbose)
		verbose_stats(&f, &sum);
	else
		ek_out_text(f.out, "%s: %llu/%llu files (%.1f%% non-contiguous), %llu/%llu blocks\n",
			    f.image, (unsigned long long)sum.inodes_used,
			    (unsigned long long)sum.inodes_count,
			    sum.inodes_used ? 100.0 * sum.fragmented / sum.inodes_used : 0.0,
			    (unsigned long long)sum.blocks_used, (unsigned long long)sum.blocks_count);
	ek_out_obj_begin(f.out, "summary");
	ek_out_u64(f.out, "inodes_used", sum.inodes_used);
	ek_out_u64(f.out, "inodes", sum.inodes_count);
	ek_out_u64(f.out, "blocks_used", sum.blocks_used);
	ek_out_u64(f.out, "blocks", sum.blocks_count);
	ek_out_u64(f.out, "directories", sum.dirs);
	ek_out_u64(f.out, "non_contiguous", sum.fragmented);
	stats_json(&f, &sum);
	ek_out_u64(f.out, "errors", sum.findings[EK_SEV_ERROR]);
	ek_out_u64(f.out, "warnings", sum.findings[EK_SEV_WARNING]);
	ek_out_u64(f.out, "fixed_errors", sum.fixed[EK_SEV_ERROR]);
	ek_out_u64(f.out, "fixed_warnings", sum.fixed[EK_SEV_WARNING]);
	ek_out_u64(f.out, "fixed", sum.fixed[EK_SEV_ERROR] + sum.fixed[EK_SEV_WARNING]);
	ek_out_u64(f.out, "dirs_optimized", sum.dirs_optimized);
	ek_out_bool(f.out, "modified", modified);
	ek_out_u64(f.out, "commits", sum.commits);
	ek_out_u64(f.out, "exit_code", ret);
	if (f.timing) {
		/* only with -t: the default document stays the same run to run */
		pass_done(&f, 0);
		ek_out_obj_begin(f.out, "timing");
		for (unsigned p = 0; p < 6; p++) {
			char key[8];

			snprintf(key, sizeof(key), p ? "pass%u" : "total", p);
			ek_out_obj_begin(f.out, key);
			ek_out_double(f.out, "wall_s", f.took[p].wall);
			ek_out_double(f.out, "user_s", f.took[p].user);
			ek_out_double(f.out, "sys_s", f.took[p].sys);
			ek_out_u64(f.out, "peak_rss_kib", (uint64_t)f.took[p].rss_kib);
			ek_out_obj_end(f.out);
		}
		ek_out_obj_end(f.out);
	}
	ek_out_obj_end(f.out);
	goto out;
out_summary_halted:
	ek_out_obj_begin(f.out, "summary");
	ek_out_bool(f.out, f.preen_halt ? "preen_halted" : "cancelled", true);
	ek_out_u64(f.out, "fixed", sum.fixed[EK_SEV_ERROR] + sum.fixed[EK_SEV_WARNING]);
	ek_out_bool(f.out, "modified", modified);
	ek_out_u64(f.out, "exit_code", ret);
	ek_out_obj_end(f.out);
	goto out;
out_summary_skipped:
	ek_out_obj_begin(f.out, "summary");
	ek_out_bool(f.out, "skipped_clean", true);
	ek_out_u64(f.out, "exit_code", ret);
	ek_out_obj_end(f.out);
out:
	if (ret == FSCK_ERROR) {
		/* --json: still one document, saying why */
		ek_out_str(f.out, "error", ek_error_msg(err));
		ek_out_obj_begin(f.out, "summary");
		ek_out_u64(f.out, "exit_code", ret);
		ek_out_obj_end(f.out);
	}
	ek_out_obj_end(f.out);
	ek_out_free(f.out);
	ek_out_free(f.lines);
	if (f.devnull)
		fclose(f.devnull);
	ek_journal_close(jnl);
	if (f.jundo && ek_undo_close(f.jundo) && ret != FSCK_ERROR) {
		fprintf(stderr, "%s: %s: undo file '%s.journal': %s\n", f.prog, f.image,
			f.undo_path, ek_error_msg(-EIO));
		ret = FSCK_ERROR;
	}
	if (undo && ek_undo_close(undo) && ret != FSCK_ERROR) {
		fprintf(stderr, "%s: %s: undo file '%s': %s\n", f.prog, f.image, f.undo_path,
			ek_error_msg(-EIO));
		ret = FSCK_ERROR;
	}
	ek_fs_close(fs);
	ek_recover_free(rec);
	free(backup_why);
	free(journal_sb_bad);
	return ret;
}
