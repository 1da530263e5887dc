// SPDX-License-Identifier: MIT
/*
 * replay.c - the replay plan: which home block gets which logged copy.
 *
 * As the kernel's recovery (fs/jbd2/recovery.c): a revoke record in
 * transaction R cancels the copies of its block logged in transactions
 * <= R (jbd2_journal_test_revoke: record->sequence >= tid), later ones
 * still replay; among the copies left, the newest in log order wins.
 * Copies whose data checksum fails are skipped, as are homes outside the
 * filesystem.  Only committed transactions up to the chosen one count.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

static int cmp_revoke(const void *a, const void *b)
{
	const struct ek_jrevoke *x = a, *y = b;

	return x->home < y->home ? -1 : x->home > y->home;
}

struct cand {
	struct ek_jwrite w;
	uint64_t order;		/* position in the log */
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->w.home != y->w.home)
		return x->w.home < y->w.home ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

const struct ek_jwrite *ek_jplan_find(const struct ek_jplan *p, uint64_t home)
{
	size_t lo = 0, hi = p->nwrites;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->writes[mid].home < home)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->nwrites && p->writes[lo].home == home ? &p->writes[lo] : NULL;
}

static const struct ek_jrevoke *find_revoke(const struct ek_jplan *p, uint64_t home)
{
	size_t lo = 0, hi = p->nrevokes;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->revokes[mid].home == home)
			return &p->revokes[mid];
		if (p->revokes[mid].home < home)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * A home block replay must not write: past the filesystem, or past the end
 * of a truncated image (a write there would grow the file).
 */
static bool home_outside(const struct ek_journal *j, uint64_t home)
{
	const struct ek_fs *fs = j->fs;

	return home >= fs->sb.blocks_count || home >= ek_io_size(fs->io) >> fs->log_blksz;
}

/* committed and not past @upto (wrap-safe) */
static bool counts(const struct ek_jlog *log, const struct ek_jtxn *t, ek_tid_t upto)
{
	return t->state == EK_JTXN_COMMITTED && ek_tid_after_eq(upto, t->tid) &&
	       ek_tid_after(log->end_tid, t->tid);
}

int ek_journal_plan(const struct ek_journal *j, const struct ek_jlog *log, ek_tid_t upto,
		    struct ek_jplan *p)
{
	size_t nrev = 0, ntags = 0, k = 0;
	struct cand *c = NULL;
	uint64_t order = 0;
	bool csum_v23 = j->sb.incompat & (JBD2_FEATURE_INCOMPAT_CSUM_V2 |
					  JBD2_FEATURE_INCOMPAT_CSUM_V3);
	bool deferred = false;

	memset(p, 0, sizeof(*p));
	p->upto = upto;
	for (size_t i = 0; i < log->ntxns; i++)
		if (counts(log, &log->txns[i], upto)) {
			nrev += log->txns[i].nrevokes;
			ntags += log->txns[i].ntags;
		}
	/* both counts are bounded by the journal's blocks: each record or tag
	 * took room in a block the scan read */
	p->revokes = ek_calloc(nrev ? nrev : 1, sizeof(*p->revokes));
	c = ek_calloc(ntags ? ntags : 1, sizeof(*c));
	if (!p->revokes || !c) {
		free(c);
		ek_jplan_release(p);
		return -ENOMEM;
	}

	/* PASS_REVOKE: the highest revoking tid per home */
	for (size_t i = 0; i < log->ntxns; i++) {
		const struct ek_jtxn *t = &log->txns[i];

		if (!counts(log, t, upto))
			continue;
		for (uint32_t r = 0; r < t->nrevokes; r++)
			p->revokes[p->nrevokes++] = (struct ek_jrevoke){ t->revokes[r], t->tid };
	}
	qsort(p->revokes, p->nrevokes, sizeof(*p->revokes), cmp_revoke);
	for (size_t i = 0; i < p->nrevokes; i++) {
		if (k && p->revokes[k - 1].home == p->revokes[i].home) {
			if (ek_tid_after(p->revokes[i].tid, p->revokes[k - 1].tid))
				p->revokes[k - 1].tid = p->revokes[i].tid;
			continue;
		}
		p->revokes[k++] = p->revokes[i];
	}
	p->nrevokes = k;

	/* PASS_REPLAY: candidates in log order */
	k = 0;
	for (size_t i = 0; i < log->ntxns; i++) {
		const struct ek_jtxn *t = &log->txns[i];

		if (!counts(log, t, upto))
			continue;
		for (uint32_t g = 0; g < t->ntags; g++, order++) {
			const struct ek_jtag *tag = &t->tags[g];
			const struct ek_jrevoke *rv = find_revoke(p, tag->home);

			if (home_outside(j, tag->home)) {
				p->outside++;
				continue;
			}
			if (rv && ek_tid_after_eq(rv->tid, t->tid)) {
				p->revoked++;
				continue;
			}
			if (tag->csum == EK_CSUM_BAD) {
				p->bad_csum++;
				continue;
			}
			c[k++] = (struct cand){ { tag->home, tag->jblk, t->tid, tag->flags,
						  tag->csum == EK_CSUM_NONE && csum_v23,
						  tag->want_csum }, order };
			deferred |= c[k - 1].w.verify;
		}
	}
	qsort(c, k, sizeof(*c), cmp_cand);
	p->writes = ek_calloc(k ? k : 1, sizeof(*p->writes));
	/* unchecked copies may fail at apply: keep the older ones to fall back on */
	if (deferred)
		p->older = ek_calloc(k ? k : 1, sizeof(*p->older));
	if (!p->writes || (deferred && !p->older)) {
		free(c);
		ek_jplan_release(p);
		return -ENOMEM;
	}
	for (size_t i = 0; i < k; i++) {
		if (i + 1 < k && c[i + 1].w.home == c[i].w.home) {
			p->superseded++;
			continue;
		}
		p->writes[p->nwrites++] = c[i].w;
		/* this home's older copies, newest first */
		for (size_t o = i; deferred && o-- > 0 && c[o].w.home == c[i].w.home;)
			p->older[p->nolder++] = c[o].w;
	}
	free(c);
	return 0;
}

void ek_jplan_release(struct ek_jplan *p)
{
	free(p->older);
	free(p->writes);
	free(p->revokes);
	memset(p, 0, sizeof(*p));
}

enum ek_jfate ek_jplan_fate(const struct ek_jplan *p, const struct ek_journal *j,
			    const struct ek_jtxn *t, const struct ek_jtag *tag)
{
	const struct ek_jrevoke *rv;
	const struct ek_jwrite *w;

	if (t->state != EK_JTXN_COMMITTED || ek_tid_after(t->tid, p->upto))
		return EK_JFATE_NOT_COMMITTED;
	if (home_outside(j, tag->home))
		return EK_JFATE_OUTSIDE;
	rv = find_revoke(p, tag->home);
	if (rv && ek_tid_after_eq(rv->tid, t->tid))
		return EK_JFATE_REVOKED;
	if (tag->csum == EK_CSUM_BAD)
		return EK_JFATE_BAD_CSUM;
	w = ek_jplan_find(p, tag->home);
	if (w && w->jblk == tag->jblk)
		return EK_JFATE_WRITTEN;
	return EK_JFATE_SUPERSEDED;
}

const char *ek_jfate_name(enum ek_jfate f)
{
	static const char *names[] = { "written", "superseded", "revoked", "bad_checksum",
				       "outside", "not_committed" };

	return f < sizeof(names) / sizeof(names[0]) ? names[f] : "?";
}

/* ---- applying the plan ----------------------------------------------------- */

#define APPLY_BATCH (1u << 20)

/* the older copies of @home in @p, newest first: *n of them */
static const struct ek_jwrite *older_copies(const struct ek_jplan *p, uint64_t home, size_t *n)
{
	size_t lo = 0, hi = p->nolder, end;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->older[mid].home < home)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < p->nolder && p->older[end].home == home; end++)
		;
	*n = end - lo;
	return p->older + lo;
}

/*
 * The copy of @w's home to write, read into @blk, checked when the scan
 * left it unchecked: a failing copy gives way to the next older one, as
 * the kernel's PASS_REPLAY skips it and an earlier transaction's write
 * stands.  Returns 1 when no copy is good (the home is left as it is).
 */
static int good_copy(const struct ek_journal *j, const struct ek_jplan *p,
		     const struct ek_jwrite *w, uint8_t *blk, bool have_read, uint32_t *nbad)
{
	const struct ek_jwrite *older;
	size_t nolder;
	int err;

	*nbad = 0;
	if (!have_read && (err = ek_journal_read(j, w->jblk, blk)))
		return err;
	if (!w->verify || ek_jtag_csum_ok(j, w->tid, w->want_csum, blk))
		goto good;
	++*nbad;
	older = older_copies(p, w->home, &nolder);
	for (size_t i = 0; i < nolder; i++) {
		w = &older[i];
		err = ek_journal_read(j, w->jblk, blk);
		if (err)
			return err;
		if (!w->verify || ek_jtag_csum_ok(j, w->tid, w->want_csum, blk))
			goto good;
		++*nbad;
	}
	return 1;
good:
	if (w->flags & JBD2_FLAG_ESCAPE)
		put_be32(blk, JBD2_MAGIC_NUMBER);
	return 0;
}

/*
 * Write plan entries @w[0..n), whose homes follow each other from
 * w[0].home, with as few writes as the good copies allow; the logged
 * copies are read with one read per stretch that is consecutive in the log.
 */
static int write_run(struct ek_journal *j, struct ek_jplan *p, const struct ek_jwrite *w,
		     uint8_t *buf, uint32_t n)
{
	struct ek_fs *fs = j->fs;
	uint32_t m, from = 0;
	int err;

	for (uint32_t i = 0; i < n; i += m) {
		for (m = 1; i + m < n && w[i + m].jblk == w[i].jblk + m; m++)
			;
		err = ek_journal_read_blocks(j, w[i].jblk, m, buf + ((size_t)i << fs->log_blksz));
		if (err)
			return err;
	}
	/* i == n flushes the last stretch of good copies */
	for (uint32_t i = 0; i <= n; i++) {
		uint32_t nbad = 0;
		int bad = i < n ? good_copy(j, p, &w[i], buf + ((size_t)i << fs->log_blksz), true,
					    &nbad) : 1;

		if (bad < 0)
			return bad;
		/* each failed copy was counted superseded by the one before it,
		 * but for the newest (counted written) */
		p->bad_csum += nbad;
		p->superseded -= nbad ? nbad - (bad ? 1 : 0) : 0;
		if (!bad)
			continue;
		if (i > from) {
			err = ek_io_pwrite(fs->io, buf + ((size_t)from << fs->log_blksz),
					   (size_t)(i - from) << fs->log_blksz,
					   w[from].home << fs->log_blksz);
			if (err)
				return err;
			p->written += i - from;
		}
		from = i + 1;
	}
	return 0;
}

int ek_journal_apply(struct ek_journal *j, const struct ek_jlog *log, struct ek_jplan *p,
		     struct ek_wset *fc, int64_t now)
{
	struct ek_fs *fs = j->fs;
	uint32_t per = APPLY_BATCH >> fs->log_blksz, n = 0;
	size_t first = 0;
	uint8_t *batch;
	journal_superblock_t *jsb = (journal_superblock_t *)j->raw_sb;
	int err = 0;

	if (!per)
		per = 1;
	p->written = 0;
	batch = ek_malloc((size_t)per << fs->log_blksz);
	if (!batch)
		return -ENOMEM;
	/* 1. home blocks in ascending order, adjacent ones in one write */
	for (size_t i = 0; i < p->nwrites && !err; i++) {
		if (n && (p->writes[i].home != p->writes[first].home + n || n == per)) {
			err = write_run(j, p, p->writes + first, batch, n);
			n = 0;
			if (j->progress)
				j->progress(j->progress_arg, i, p->nwrites);
		}
		if (!n)
			first = i;
		n++;
	}
	if (!err && n)
		err = write_run(j, p, p->writes + first, batch, n);
	if (!err && j->progress)
		j->progress(j->progress_arg, p->nwrites, p->nwrites);
	free(batch);
	/* the fast commits go on top, still before the journal is let go */
	if (!err && fc)
		err = ek_wset_write_io(fc, fs->io);
	if (!err)
		err = ek_io_sync(fs->io);
	if (err)
		return err;

	/* 2. only now the journal is marked clean: a replay cut short above
	 * is simply done again */
	jsb->s_start = 0;
	jsb->s_sequence = cpu_to_be32(p->upto + 2);	/* e2fsck: end_transaction + 1 */
	/* a corrupt commit that cut replay short (the kernel's j_failed_commit;
	 * an interrupted async commit is not one) is kept as the journal's
	 * errno until finish carries it into the superblock, so an apply cut
	 * short after this point still marks the errors */
	if (log->failed_commit && !jsb->s_errno)
		jsb->s_errno = cpu_to_be32((uint32_t)-EINVAL);
	/* so do logged blocks skipped for a bad data checksum (e2fsck marks
	 * the filesystem with errors for them), so the next check is forced */
	if (p->bad_csum && !jsb->s_errno)
		jsb->s_errno = cpu_to_be32((uint32_t)-EIO);
	err = ek_journal_write_sb(j);
	if (err)
		return err;

	/* 3. the filesystem superblock */
	return ek_journal_finish(j, now);
}

int ek_journal_finish(struct ek_journal *j, int64_t now)
{
	journal_superblock_t *jsb = (journal_superblock_t *)j->raw_sb;
	struct ek_fs *fs = j->fs;
	struct ext4_super_block sb;
	int err;

	/* re-read: the log may have carried the superblock */
	err = ek_super_read_primary(fs->io, &sb);
	if (err)
		return err;
	sb.s_feature_incompat &= ~cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
	/* a journal errno marks the filesystem as having errors (e2fsck) */
	if (jsb->s_errno)
		sb.s_state |= cpu_to_le16(EXT4_ERROR_FS);
	ek_time_set(&sb.s_wtime, &sb.s_wtime_hi, now);
	err = ek_super_write_primary(fs->io, &sb);
	/* 4. the errno is carried: clear it in the journal, as e2fsck does */
	if (!err && jsb->s_errno) {
		jsb->s_errno = 0;
		err = ek_journal_write_sb(j);
	}
	return err;
}


int ek_journal_drop_log(struct ek_journal *j, uint32_t *lost)
{
	journal_superblock_t *jsb = (journal_superblock_t *)j->raw_sb;
	struct ek_jlog log;
	int err;

	*lost = 0;
	if (!j->sb.start)
		return 0;
	err = ek_journal_scan(j, &log);
	if (err)
		return err;
	for (size_t i = 0; i < log.ntxns; i++)
		*lost += log.txns[i].state == EK_JTXN_COMMITTED;
	/* past every transaction the scan met, so none of them reads as live */
	jsb->s_sequence = cpu_to_be32(log.end_tid + 1);
	jsb->s_start = 0;
	ek_jlog_release(&log);
	err = ek_journal_write_sb(j);
	if (!err) {
		j->sb.start = 0;
		j->sb.sequence = be32_to_cpu(jsb->s_sequence);
	}
	return err;
}

/* ---- the image as replay would leave it ----------------------------------- */

int ek_jplan_read(const struct ek_journal *j, const struct ek_jplan *p, ek_blk_t blk, void *buf)
{
	int err = ek_jplan_overlay(&(struct ek_jplan_view){ j, p }, blk, buf);

	return err == 1 ? ek_fs_read_blocks(j->fs, blk, 1, buf) : err;
}

/* as ek_jplan_read, for the blocks the plan writes only (a read overlay) */
int ek_jplan_overlay(void *view, ek_blk_t blk, void *buf)
{
	const struct ek_jplan_view *v = view;
	const struct ek_jwrite *w = ek_jplan_find(v->p, blk);
	uint32_t nbad;
	int err;

	if (!w)
		return 1;
	/* the copy apply will write: an unchecked one is checked here too */
	err = good_copy(v->j, v->p, w, buf, false, &nbad);
	return err == 1 ? 1 : err;	/* no good copy: the block on disk stays */
}
