// SPDX-License-Identifier: MIT
/*
 * recover.c - the recovery driver: what a mount does after a crash, as one
 * plan computed whole before anything is written, then applied.
 *
 * Steps, in the kernel's order (jbd2_journal_recover(), then ext4's
 * fast-commit replay, then ext4_orphan_cleanup()):
 *   1. the log: the committed transactions up to the chosen one, by the
 *      replay plan (replay.c);
 *   2. the fast commits that follow the last full transaction, computed
 *      over the image as step 1 leaves it (fcreplay.c);
 *   3. the orphan inodes, released over the image as steps 1 and 2 leave
 *      it (orphan.c), written through a transaction of our own.
 *
 * ek_recover_plan() computes all three read-only, through read overlays,
 * so a refusal (a log the kernel would refuse, an orphan list we cannot
 * process, a fast commit that does not apply) is known before the first
 * write, and a dry run shows exactly what apply will do.
 * ek_recover_apply() then writes: home blocks and fast commits, the
 * journal marked clean, the superblock; then the orphan step, recomputed
 * on the image as written and committed through the journal, so a run cut
 * short anywhere is completed by the next one.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "extkit.h"

/* the image as steps 1 and 2 leave it: fast-commit blocks, then the plan */
struct ek_recover_view {
	struct ek_jplan_view plan;
	const struct ek_wset *fc;
};

static int recover_overlay(void *arg, ek_blk_t blk, void *buf)
{
	const struct ek_recover_view *v = arg;
	const uint8_t *b = v->fc ? ek_wset_find(v->fc, blk) : NULL;

	if (b) {
		memcpy(buf, b, v->plan.j->fs->blksz);
		return 0;
	}
	return ek_jplan_overlay((void *)&v->plan, blk, buf);
}

/* committed transactions past @upto: what --upto leaves unreplayed */
static int collect_discarded(struct ek_recovery *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];

		if (t->state == EK_JTXN_COMMITTED && ek_tid_after(t->tid, r->plan.upto) &&
		    ek_tid_after(r->log.end_tid, t->tid))
			n++;
	}
	if (!n)
		return 0;
	r->discarded = ek_calloc(n, sizeof(*r->discarded));
	if (!r->discarded)
		return -ENOMEM;
	for (size_t i = 0; i < r->log.ntxns; i++) {
		const struct ek_jtxn *t = &r->log.txns[i];

		if (t->state == EK_JTXN_COMMITTED && ek_tid_after(t->tid, r->plan.upto) &&
		    ek_tid_after(r->log.end_tid, t->tid))
			r->discarded[r->ndiscarded++] = t->tid;
	}
	return 0;
}

/*
 * Step 2 over the plan: only when the whole log is replayed, as fast
 * commits follow its last transaction.  A fast-commit area that does not
 * count (stale, incomplete) replays nothing, as the kernel.
 */
static int plan_fast_commits(struct ek_recovery *r)
{
	int err;

	if (!(r->j->sb.incompat & JBD2_FEATURE_INCOMPAT_FAST_COMMIT) ||
	    r->plan.upto != r->log.end_tid - 1)
		return 0;
	err = ek_fc_scan(r->j, r->log.end_tid, &r->fc);
	if (err)
		return err;
	r->have_fc = true;
	if (r->fc.status)
		return r->fc.status;
	if (r->fc.state != EK_FC_VALID)
		return 0;
	err = ek_fs_open(r->image, &(struct ek_open_opts){ .offset = r->offset,
							   .flags = r->fs->flags & EK_OPEN_IGNORE_CSUM,
							   .overlay = ek_jplan_overlay,
							   .overlay_arg = &r->view->plan },
			 &r->fc_fs);
	if (!err)
		err = ek_wset_init(r->fc_fs, &r->fc_ws);
	if (!err)
		err = ek_fc_replay(r->fc_fs, r->fc_ws, &r->fc);
	if (!err)
		err = ek_wset_seal(r->fc_ws);
	if (!err) {
		r->fc_records = r->fc.nreplay;
		r->view->fc = r->fc_ws;
	}
	return err;
}

static int note_orphan(void *arg, const struct ek_orphan *o, uint64_t blocks_freed)
{
	struct ek_recovery *r = arg;

	if (ek_grow(&r->orphans, &r->orphans_cap, r->norphans + 1, sizeof(*r->orphans)))
		return -ENOMEM;
	r->orphans[r->norphans++] = (struct ek_recover_orphan){
		.ino = o->ino, .in_file = o->in_file, .truncate = o->links != 0,
		.mode = o->mode, .uid = o->uid, .gid = o->gid,
		.size = o->size, .blocks_freed = blocks_freed,
	};
	return 0;
}

/*
 * Step 3 over steps 1 and 2, into a write set kept for the view of the
 * image after recovery (ek_recover_overlay); apply recomputes it on the
 * image as written.
 */
static int plan_orphans(struct ek_recovery *r, int64_t now)
{
	uint64_t released;
	int err;

	err = ek_fs_open(r->image, &(struct ek_open_opts){ .offset = r->offset,
							   .flags = r->fs->flags & EK_OPEN_IGNORE_CSUM,
							   .overlay = recover_overlay,
							   .overlay_arg = r->view },
			 &r->orphan_fs);
	if (!err)
		err = ek_wset_init(r->orphan_fs, &r->orphan_ws);
	if (!err)
		err = ek_orphans_release(r->orphan_fs, r->orphan_ws, now, note_orphan, r, &released);
	if (!err && released)
		err = ek_wset_seal(r->orphan_ws);
	return err;
}

int ek_recover_overlay(void *arg, ek_blk_t blk, void *buf)
{
	const struct ek_recovery *r = arg;
	const uint8_t *b = r->orphan_ws && r->norphans ? ek_wset_find(r->orphan_ws, blk) : NULL;

	if (b) {
		memcpy(buf, b, r->fs ? r->fs->blksz : r->orphan_fs->blksz);
		return 0;
	}
	return recover_overlay(r->view, blk, buf);
}

/* record why apply refuses: the code, the step, an option that helps, the words */
static void __attribute__((format(printf, 5, 6)))
refuse(struct ek_recovery *r, int err, const char *step, const char *hint, const char *fmt, ...)
{
	va_list ap;

	r->refused = err;
	r->refused_step = step;
	r->refused_hint = hint;
	va_start(ap, fmt);
	vsnprintf(r->refused_msg, sizeof(r->refused_msg), fmt, ap);
	va_end(ap);
}

int ek_recover_plan(const struct ek_recover_opts *o, struct ek_recovery **out)
{
	struct ek_recovery *r = calloc(1, sizeof(*r));
	int err;

	*out = NULL;
	if (!r || !(r->image = strdup(o->image)) || !(r->view = calloc(1, sizeof(*r->view)))) {
		ek_recover_free(r);
		return -ENOMEM;
	}
	r->journal_only = o->journal_only;
	r->copy = o->copy;
	if (o->journal_dev && !(r->journal_dev = strdup(o->journal_dev))) {
		err = -ENOMEM;
		goto out_free;
	}
	r->offset = o->offset;
	err = ek_fs_open(o->image, &(struct ek_open_opts){ .flags = o->flags, .offset = o->offset },
			 &r->fs);
	if (err)
		goto out_free;
	if (!o->journal_dev && o->orphans_without_journal &&
	    !ek_has_compat(r->fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		/* no journal: step 3 alone, over the image as it is */
		r->clean = true;
		r->view->plan = (struct ek_jplan_view){ NULL, &r->plan };
		err = r->journal_only ? 0 : plan_orphans(r, o->now);
		if (err && err != -ENOMEM) {
			*out = r;
			refuse(r, err, "orphan inodes", NULL, "%s", ek_error_msg(err));
			return 0;
		}
		if (err)
			goto out_free;
		*out = r;
		return 0;
	}
	if (o->journal_dev) {
		/* a copy is replayed without writing the (shared) device */
		err = ek_journal_open_dev(r->fs, o->journal_dev,
					  o->copy ? o->flags & ~EK_OPEN_RW : o->flags, &r->j);
		if (!err)
			r->j->leave_journal = o->copy;
	} else {
		err = ek_journal_open(r->fs, o->flags, &r->j);
	}
	if (err)
		goto out_free;
	r->j->no_data_csum = o->no_data_csum;
	err = ek_journal_scan(r->j, &r->log);
	if (err)
		goto out_free;
	if (o->have_upto && (ek_tid_after(o->upto, r->log.end_tid - 1) ||
			     ek_tid_after(r->log.start_tid, o->upto) || !r->j->sb.start)) {
		err = r->j->sb.start ?
		      ek_err(-EINVAL, "--upto %u is not a committed transaction of the log (%u..%u)",
			     o->upto, r->log.start_tid, r->log.end_tid - 1) :
		      ek_err(-EINVAL, "--upto %u: the journal is clean, it has no transactions",
			     o->upto);
		goto out_free;
	}
	err = ek_journal_plan(r->j, &r->log, o->have_upto ? o->upto : r->log.end_tid - 1, &r->plan);
	if (err)
		goto out_free;
	r->view->plan = (struct ek_jplan_view){ r->j, &r->plan };
	r->clean = !r->j->sb.start;
	r->finish_only = r->clean && (ek_has_incompat(r->fs, EXT4_FEATURE_INCOMPAT_RECOVER) ||
				      r->j->sb.errno_);
	err = collect_discarded(r);
	if (err)
		goto out_free;

	/* what recovery would refuse, in the kernel's order; the plan goes on
	 * as far as it can so inspection still shows it */
	*out = r;
	if (ek_io_size(r->fs->io) >> r->fs->log_blksz < r->fs->sb.blocks_count) {
		/* the kernel mounts no device smaller than its filesystem */
		refuse(r, -EK_CORRUPT, "filesystem", NULL,
		       "the image holds %llu of the filesystem's %llu blocks (is it truncated?)",
		       (unsigned long long)(ek_io_size(r->fs->io) >> r->fs->log_blksz),
		       (unsigned long long)r->fs->sb.blocks_count);
		return 0;
	}
	if (r->j->from_backup && !r->clean && !o->use_backup) {
		/* the kernel reads the journal through its inode only */
		refuse(r, -EK_CORRUPT, "journal", "e2fsck recreates the journal, losing the log",
		       "the journal inode %u is damaged (its blocks were found through the "
		       "superblock's backup, which the kernel does not use)", r->fs->sb.journal_inum);
		return 0;
	}
	if (r->log.status) {
		refuse(r, r->log.status, "journal", NULL, "%s", r->log.refused);
		return 0;
	}
	err = plan_fast_commits(r);
	if (err && err != -ENOMEM) {
		refuse(r, err, "fast commits", NULL, "%s", ek_error_msg(err));
		return 0;
	}
	if (!err && !r->journal_only) {
		err = plan_orphans(r, o->now);
		if (err && err != -ENOMEM) {
			refuse(r, err, "orphan inodes", "pass --journal-only to replay the journal alone",
			       "%s", ek_error_msg(err));
			return 0;
		}
	}
	if (!err)
		return 0;
	*out = NULL;
out_free:
	ek_recover_free(r);
	return err;
}

void ek_recover_free(struct ek_recovery *r)
{
	if (!r)
		return;
	ek_wset_free(r->orphan_ws);
	ek_fs_close(r->orphan_fs);
	ek_wset_free(r->fc_ws);
	ek_fs_close(r->fc_fs);
	if (r->have_fc)
		ek_fclog_release(&r->fc);
	free(r->orphans);
	free(r->discarded);
	ek_jplan_release(&r->plan);
	ek_jlog_release(&r->log);
	ek_journal_close(r->j);
	ek_fs_close(r->fs);
	free(r->view);
	free(r->journal_dev);
	free(r->image);
	free(r);
}

/*
 * Step 3 on the image as written: computed afresh (the superblock and
 * groups changed), then committed through the journal, so an apply cut
 * short is completed by the next one.  The journal and image are opened
 * anew: ours are let go first (they hold O_EXCL).
 */
static int release_orphans(struct ek_recovery *r, const struct ek_recover_apply_opts *a,
			   uint64_t *released)
{
	struct ek_wset *ws = NULL;
	struct ek_journal *j = NULL;
	struct ek_fs *fs;
	int err;

	ek_journal_close(r->j);
	r->j = NULL;
	ek_fs_close(r->fs);
	r->fs = NULL;
	err = ek_fs_open(r->image, &(struct ek_open_opts){ .offset = r->offset, .flags = EK_OPEN_RW },
			 &fs);
	if (err)
		return err;
	err = ek_wset_init(fs, &ws);
	if (!err)
		err = ek_orphans_release(fs, ws, a->now, NULL, NULL, released);
	if (!err && *released)
		err = ek_wset_seal(ws);
	if (err || !*released)
		goto out_close;
	err = ek_io_set_undo(fs->io, a->undo);
	if (err)
		goto out_close;
	if (r->copy) {
		/* a fresh copy, removed if apply fails: written directly */
		err = ek_wset_write(ws);
	} else if (!r->journal_dev && !ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		/* a filesystem without a journal (as a mount and e2fsck write it):
		 * in order, the superblock's orphan list last, so that a cut
		 * leaves the list for the next run to release again */
		err = ek_wset_write_ordered(ws);
	} else {
		err = r->journal_dev ? ek_journal_open_dev(fs, r->journal_dev, EK_OPEN_RW, &j) :
				       ek_journal_open(fs, EK_OPEN_RW, &j);
		if (!err && j->dev)
			err = ek_io_set_undo(j->dev, a->journal_undo);
		if (!err)
			err = ek_journal_commit_wset(j, ws, a->now);
		if (j && j->dev)
			ek_io_set_undo(j->dev, NULL);
		ek_journal_close(j);
	}
	ek_io_set_undo(fs->io, NULL);
out_close:
	ek_wset_free(ws);
	ek_fs_close(fs);
	return err;
}

int ek_recover_apply(struct ek_recovery *r, const struct ek_recover_apply_opts *a,
		     struct ek_recover_result *res)
{
	int err = 0;

	memset(res, 0, sizeof(*res));
	if (r->refused)
		return r->refused;
	if (!(r->fs->flags & EK_OPEN_RW))
		return ek_err(-EINVAL, "recovery plan made read-only: cannot apply it");
	err = ek_io_set_undo(r->fs->io, a->undo);
	if (!err && r->j && r->j->dev)
		err = ek_io_set_undo(r->j->dev, a->journal_undo);
	if (err)
		return err;
	if (r->j) {
		r->j->progress = a->progress;
		r->j->progress_arg = a->progress_arg;
	}
	if (!r->clean) {
		err = ek_journal_apply(r->j, &r->log, &r->plan, r->fc_ws, a->now);
		if (!err) {
			res->replayed = true;
			res->written = r->plan.written;
			res->fc_records = r->fc_records;
		}
	} else if (r->finish_only) {
		/* needs_recovery with a clean journal: an apply was cut short */
		err = ek_journal_finish(r->j, a->now);
		res->finished = !err;
	}
	if (r->j && r->j->dev)
		ek_io_set_undo(r->j->dev, NULL);
	if (r->fs)
		ek_io_set_undo(r->fs->io, NULL);
	if (!err && !r->journal_only && r->norphans)
		err = release_orphans(r, a, &res->orphans_released);
	return err;
}

/* copy @src to a new file @dst, keeping holes and permission bits; never overwrites */
int ek_recover_copy(const char *src, const char *dst)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1;
	const size_t chunk = 1 << 20;
	struct stat st;
	off_t pos = 0;
	uint8_t *buf = NULL;
	int err;

	if (in < 0)
		return ek_err(-errno, "cannot open '%s': %s", src, strerror(errno));
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		err = ek_err(-EINVAL, "cannot copy '%s': %s", src,
			     S_ISREG(st.st_mode) ? strerror(errno) : "not a regular file");
		close(in);
		return err;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0) {
		err = ek_err(-errno, "cannot create '%s': %s", dst, strerror(errno));
		close(in);
		return err;
	}
	/* the umask does not apply to a copy: the source's bits, as cp -p */
	err = fchmod(out, st.st_mode & 07777) < 0 ? -errno : 0;
	buf = err ? NULL : ek_malloc(chunk);
	if (!err && !buf)
		err = -ENOMEM;
	while (!err) {
		off_t data = lseek(in, pos, SEEK_DATA), hole;

		if (data < 0) {
			if (errno != ENXIO)
				err = -errno;
			break;		/* ENXIO: only a hole is left */
		}
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0) {
			err = -errno;
			break;
		}
		for (pos = data; pos < hole && !err;) {
			size_t want = hole - pos < (off_t)chunk ? (size_t)(hole - pos) : chunk;
			ssize_t n = pread(in, buf, want, pos);

			if (n <= 0)
				err = n < 0 ? -errno : -EIO;
			else if (pwrite(out, buf, n, pos) != n)
				err = -errno ? -errno : -EIO;
			else
				pos += n;
		}
	}
	if (!err && (ftruncate(out, st.st_size) < 0 || fsync(out) < 0))
		err = -errno;
	free(buf);
	close(in);
	close(out);
	if (err) {
		unlink(dst);
		return ek_err(err, "copying '%s' to '%s' failed: %s", src, dst, strerror(-err));
	}
	return 0;
}
