// SPDX-License-Identifier: MIT
/*
 * jcommit.c - writing a change through the journal, as jbd2 commits it.
 *
 * A write set (wset.c) is logged as one transaction at the start of the
 * empty log: descriptor blocks whose tags name the home blocks, the blocks
 * themselves (escaped when they begin with the jbd2 magic), a commit block,
 * all with the checksums the journal's features ask for.  Then, flushing
 * after each of the first four steps:
 *   1. the transaction is written to the log (adjacent log blocks in one
 *      write), and the filesystem marked needs_recovery;
 *   2. the journal superblock points at the transaction: from here any
 *      replay (ours, e2fsck's, the kernel's) completes the change;
 *   3. the blocks are written home;
 *   4. the journal is marked empty (s_sequence as a replay would leave it);
 *   5. needs_recovery is cleared, flushed by the next flush (the next
 *      commit's first, or the end of the run's).
 * Cut short anywhere, the change is either not visible or replayed whole.
 * Four flushes a commit: the flag shares one with the log and one with
 * what comes next, so that however the writes of one flush land, the
 * flag is set whenever the journal holds a transaction.  (A log the flag
 * does not announce is one e2fsck -p stops at, and the kernel wipes.)
 * The flag without a log to replay is harmless: any check clears it.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

/* log blocks gathered for one write: up to this many bytes of adjacent ones */
#define LOG_BATCH_BYTES (64u << 10)

struct jw {
	struct ek_journal *j;
	struct ek_jfmt f;	/* block layouts and checksums (jbd2.c) */
	uint32_t crc_v1;	/* crc32_be over descriptor and data blocks (v1) */
	bool sum_v1;		/* fold the blocks written into crc_v1 */
	uint64_t jblk;		/* next log block to write */
	uint8_t *batch;		/* log blocks not yet written, adjacent on disk */
	uint32_t nbatch, batch_max;
	ek_blk_t batch_pblk;	/* where the first of them goes */
};

/* the log blocks gathered, written in one go */
static int log_flush(struct jw *w)
{
	int err = 0;

	if (w->nbatch)
		err = ek_io_pwrite(w->j->dev ? w->j->dev : w->j->fs->io, w->batch,
				   (size_t)w->nbatch * w->f.blocksize,
				   w->batch_pblk << w->j->fs->log_blksz);
	w->nbatch = 0;
	return err;
}

/* @buf as the next log block: gathered with the ones before it when adjacent */
static int log_block(struct jw *w, const uint8_t *buf)
{
	ek_blk_t pblk;
	int err = ek_journal_bmap(w->j, w->jblk, &pblk);

	if (err)
		return err;
	if (w->sum_v1)
		w->crc_v1 = ek_crc32_be(w->crc_v1, buf, w->f.blocksize);
	if (w->nbatch && (w->nbatch == w->batch_max || pblk != w->batch_pblk + w->nbatch) &&
	    (err = log_flush(w)))
		return err;
	if (!w->nbatch)
		w->batch_pblk = pblk;
	memcpy(w->batch + (size_t)w->nbatch++ * w->f.blocksize, buf, w->f.blocksize);
	w->jblk++;
	return 0;
}

/* @home's block as logged: escaped (magic zeroed) when it begins with the magic */
static bool logged_copy(struct ek_wset *ws, size_t i, uint8_t *data, uint32_t bs, ek_blk_t *home)
{
	const uint8_t *buf;

	ek_wset_entry(ws, i, home, &buf);
	memcpy(data, buf, bs);
	if (get_be32(data) != JBD2_MAGIC_NUMBER)
		return false;
	put_be32(data, 0);	/* replay restores it; the tag checksum covers the copy */
	return true;
}

/* the transaction's blocks, written from w->jblk on */
static int log_transaction(struct jw *w, struct ek_wset *ws, ek_tid_t tid, int64_t now)
{
	size_t n = ek_wset_count(ws);
	uint32_t bs = w->f.blocksize, per = ek_jdesc_capacity(&w->f);
	uint8_t *desc = ek_calloc(1, bs), *data = ek_malloc(bs);
	int err = 0;

	w->batch_max = LOG_BATCH_BYTES / bs ? LOG_BATCH_BYTES / bs : 1;
	w->batch = ek_malloc((size_t)w->batch_max * bs);
	w->nbatch = 0;
	if (!desc || !data || !w->batch) {
		err = -ENOMEM;
		goto out_free;
	}
	for (size_t first = 0; first < n && !err; first += per) {
		size_t cnt = n - first < per ? n - first : per;
		uint32_t off = sizeof(journal_header_t);

		memset(desc, 0, bs);
		ek_jhdr_encode(desc, JBD2_DESCRIPTOR_BLOCK, tid);
		for (size_t i = 0; i < cnt; i++) {
			struct ek_jtag_raw t = { 0 };

			if (logged_copy(ws, first + i, data, bs, &t.home))
				t.flags |= JBD2_FLAG_ESCAPE;
			if (i)
				t.flags |= JBD2_FLAG_SAME_UUID;
			if (i == cnt - 1)
				t.flags |= JBD2_FLAG_LAST_TAG;
			t.csum = ek_jtag_csum(&w->f, tid, data);
			ek_jdesc_put_tag(&w->f, desc, &off, &t, w->j->sb.uuid);
		}
		ek_jtail_set(&w->f, desc);
		err = log_block(w, desc);
		for (size_t i = 0; i < cnt && !err; i++) {
			ek_blk_t home;

			logged_copy(ws, first + i, data, bs, &home);
			err = log_block(w, data);
		}
	}
	if (!err) {
		ek_jcommit_encode(&w->f, desc, tid, now, 0, w->crc_v1);
		w->sum_v1 = false;	/* the commit block is not part of its own sum */
		err = log_block(w, desc);
	}
	if (!err)
		err = log_flush(w);
out_free:
	free(w->batch);
	w->batch = NULL;
	free(desc);
	free(data);
	return err;
}

static int sync_journal(struct ek_journal *j)
{
	int err = ek_io_sync(j->fs->io);

	if (!err && j->dev)
		err = ek_io_sync(j->dev);
	return err;
}

/* the filesystem superblock with needs_recovery set or cleared (not flushed) */
static int set_needs_recovery(struct ek_fs *fs, bool on)
{
	struct ext4_super_block sb;
	int err = ek_super_read_primary(fs->io, &sb);

	if (err)
		return err;
	if (on)
		sb.s_feature_incompat |= cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
	else
		sb.s_feature_incompat &= ~cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
	return ek_super_put_primary(fs->io, &sb);
}

int ek_journal_commit_wset(struct ek_journal *j, struct ek_wset *ws, int64_t now)
{
	journal_superblock_t *jsb = (journal_superblock_t *)j->raw_sb;
	struct ek_fs *fs = j->fs;
	struct ext4_super_block *sb;
	struct jw w = { .j = j, .crc_v1 = ~0u };
	ek_tid_t tid = j->sb.sequence;
	uint64_t ndesc, need;
	int err;

	if (j->sb.start)
		return ek_err(-EINVAL, "journal: the log is not empty; replay it first");
	ek_jfmt_init(&w.f, &j->sb);
	w.sum_v1 = w.f.v1;
	ndesc = (ek_wset_count(ws) + ek_jdesc_capacity(&w.f) - 1) / ek_jdesc_capacity(&w.f);
	need = ndesc + ek_wset_count(ws) + 1;
	if (need > j->sb.last - j->sb.first)
		return ek_err(-ENOSPC, "journal: %llu blocks do not fit in a log of %u",
			      (unsigned long long)need, j->sb.last - j->sb.first);
	/* the logged superblock keeps needs_recovery: the flag goes last */
	sb = ek_wset_super(ws);
	if (!sb)
		return -ENOMEM;
	sb->s_feature_incompat |= cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
	if (fs->has_csum)
		sb->s_checksum = cpu_to_le32(ek_super_csum(sb));
	err = ek_wset_sort(ws);
	if (err)
		return err;

	/* 1. the transaction, and needs_recovery */
	w.jblk = j->sb.first;
	err = log_transaction(&w, ws, tid, now);
	if (!err)
		err = set_needs_recovery(fs, true);
	if (!err)
		err = sync_journal(j);
	/* 2. the journal points at it */
	if (!err) {
		jsb->s_start = cpu_to_be32(j->sb.first);
		jsb->s_sequence = cpu_to_be32(tid);
		err = ek_journal_write_sb(j);
	}
	/* 3. home */
	if (!err)
		err = ek_wset_write(ws);
	/* 4. empty again, sequence as a replay of it would leave it; then
	 * needs_recovery cleared, flushed by whatever flushes next */
	if (!err) {
		jsb->s_start = 0;
		jsb->s_sequence = cpu_to_be32(tid + 2);
		err = ek_journal_write_sb(j);
	}
	if (!err)
		err = set_needs_recovery(fs, false);
	if (!err) {
		j->sb.start = 0;
		j->sb.sequence = tid + 2;
	}
	return err;
}
