// SPDX-License-Identifier: MIT
/*
 * jcommit.c - writing a change through the journal, as jbd2 commits it.
 *
 * A write set (wset.c) is logged as one transaction at the start of the
 * empty log: descriptor blocks whose tags name the home blocks, the blocks
 * themselves (escaped when they begin with the jbd2 magic), a commit block,
 * all with the checksums the journal's features ask for.  Then, flushing
 * between the steps:
 *   1. the transaction is written to the log;
 *   2. the filesystem is marked needs_recovery, then the journal superblock
 *      points at the transaction: from here any replay (ours, e2fsck's,
 *      the kernel's) completes the change;
 *   3. the blocks are written home;
 *   4. the journal is marked empty (s_sequence as a replay would leave it),
 *      then needs_recovery is cleared.
 * Cut short anywhere, the change is either not visible or replayed whole.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

struct jw {
	struct ek_journal *j;
	uint32_t bs;
	uint32_t seed;		/* crc32c(~0, uuid) for checksum v2/v3 */
	bool v23, v3, v1, b64;
	uint32_t crc_v1;	/* crc32_be over descriptor and data blocks (v1) */
	uint64_t jblk;		/* next log block to write */
};

static int log_block(struct jw *w, const uint8_t *buf)
{
	ek_blk_t pblk;
	int err = ek_journal_bmap(w->j, w->jblk, &pblk);

	if (err)
		return err;
	if (w->v1)
		w->crc_v1 = ek_crc32_be(w->crc_v1, buf, w->bs);
	err = ek_io_pwrite(w->j->dev ? w->j->dev : w->j->fs->io, buf, w->bs,
			   pblk << w->j->fs->log_blksz);
	w->jblk++;
	return err;
}

static void header(uint8_t *b, uint32_t type, ek_tid_t tid)
{
	put_be32(b, JBD2_MAGIC_NUMBER);
	put_be32(b + 4, type);
	put_be32(b + 8, tid);
}

/* tags one descriptor block holds: the first carries the 16-byte uuid */
static uint32_t tags_per_desc(const struct jw *w)
{
	uint32_t room = w->bs - sizeof(journal_header_t) - 16 -
			(w->v23 ? sizeof(struct jbd2_journal_block_tail) : 0);

	return room / ek_jbd2_tag_bytes(w->j->sb.incompat);
}

static void put_tag(const struct jw *w, uint8_t *t, ek_blk_t home, uint32_t flags, ek_tid_t tid,
		    const uint8_t *data)
{
	uint32_t csum = 0;

	if (w->v23) {
		__be32 seq = cpu_to_be32(tid);

		csum = ek_crc32c(ek_crc32c(w->seed, &seq, 4), data, w->bs);
	}
	put_be32(t, (uint32_t)home);
	if (w->v3) {
		put_be32(t + 4, flags);
		put_be32(t + 8, w->b64 ? (uint32_t)(home >> 32) : 0);
		put_be32(t + 12, csum);
		return;
	}
	put_be16(t + 4, w->v23 ? (uint16_t)csum : 0);
	put_be16(t + 6, (uint16_t)flags);
	if (w->b64)
		put_be32(t + 8, (uint32_t)(home >> 32));
}

/* the transaction's blocks, written from w->jblk on */
static int log_transaction(struct jw *w, struct ek_wset *ws, ek_tid_t tid, int64_t now)
{
	size_t n = ek_wset_count(ws);
	uint32_t per = tags_per_desc(w), tag_bytes = ek_jbd2_tag_bytes(w->j->sb.incompat);
	uint8_t *desc = ek_calloc(1, w->bs), *data = ek_malloc(w->bs);
	int err = 0;

	if (!desc || !data) {
		err = -ENOMEM;
		goto out_free;
	}
	for (size_t first = 0; first < n && !err; first += per) {
		size_t cnt = n - first < per ? n - first : per;
		uint32_t off = sizeof(journal_header_t);

		memset(desc, 0, w->bs);
		header(desc, JBD2_DESCRIPTOR_BLOCK, tid);
		for (size_t i = 0; i < cnt; i++) {
			ek_blk_t home;
			const uint8_t *buf;
			uint32_t flags = 0;

			ek_wset_entry(ws, first + i, &home, &buf);
			memcpy(data, buf, w->bs);
			if (get_be32(data) == JBD2_MAGIC_NUMBER) {
				flags |= JBD2_FLAG_ESCAPE;
				put_be32(data, 0);	/* the checksum covers the copy as logged */
			}
			if (i)
				flags |= JBD2_FLAG_SAME_UUID;
			if (i == cnt - 1)
				flags |= JBD2_FLAG_LAST_TAG;
			put_tag(w, desc + off, home, flags, tid, data);
			off += tag_bytes;
			if (!i) {
				memcpy(desc + off, w->j->sb.uuid, 16);
				off += 16;
			}
		}
		if (w->v23) {
			uint32_t c = ek_crc32c(w->seed, desc, w->bs - 4);

			put_be32(desc + w->bs - 4, ek_crc32c(c, "\0\0\0\0", 4));
		}
		err = log_block(w, desc);
		for (size_t i = 0; i < cnt && !err; i++) {
			ek_blk_t home;
			const uint8_t *buf;

			ek_wset_entry(ws, first + i, &home, &buf);
			memcpy(data, buf, w->bs);
			if (get_be32(data) == JBD2_MAGIC_NUMBER)
				put_be32(data, 0);	/* escaped: replay restores the magic */
			err = log_block(w, data);
		}
	}
	if (!err) {
		struct commit_header *ch = (void *)desc;

		memset(desc, 0, w->bs);
		header(desc, JBD2_COMMIT_BLOCK, tid);
		ch->h_commit_sec = cpu_to_be64((uint64_t)now);
		if (w->v1) {
			ch->h_chksum_type = JBD2_CRC32_CHKSUM;
			ch->h_chksum_size = JBD2_CRC32_CHKSUM_SIZE;
			ch->h_chksum[0] = cpu_to_be32(w->crc_v1);
		} else if (w->v23) {
			ch->h_chksum[0] = cpu_to_be32(ek_crc32c(w->seed, desc, w->bs));
		}
		w->v1 = false;	/* the commit block is not part of its own sum */
		err = log_block(w, desc);
	}
out_free:
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

/* the filesystem superblock with needs_recovery set or cleared, flushed */
static int set_needs_recovery(struct ek_fs *fs, bool on)
{
	uint8_t sbuf[EXT4_SUPERBLOCK_SIZE];
	struct ext4_super_block *sb = (void *)sbuf;
	int err = ek_io_pread(fs->io, sbuf, sizeof(sbuf), EXT4_SUPERBLOCK_OFFSET);

	if (err)
		return err;
	if (on)
		sb->s_feature_incompat |= cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
	else
		sb->s_feature_incompat &= ~cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
	if (fs->has_csum)
		sb->s_checksum = cpu_to_le32(ek_super_csum(sb));
	err = ek_io_pwrite(fs->io, sbuf, sizeof(sbuf), EXT4_SUPERBLOCK_OFFSET);
	return err ? err : ek_io_sync(fs->io);
}

int ek_journal_commit_wset(struct ek_journal *j, struct ek_wset *ws, int64_t now)
{
	journal_superblock_t *jsb = (journal_superblock_t *)j->raw_sb;
	struct ek_fs *fs = j->fs;
	struct ext4_super_block *sb;
	struct jw w = { .j = j, .bs = fs->blksz, .crc_v1 = ~0u };
	ek_tid_t tid = j->sb.sequence;
	uint64_t ndesc, need;
	int err;

	if (j->sb.start)
		return ek_err(-EINVAL, "journal: the log is not empty; replay it first");
	w.v3 = j->sb.incompat & JBD2_FEATURE_INCOMPAT_CSUM_V3;
	w.v23 = w.v3 || (j->sb.incompat & JBD2_FEATURE_INCOMPAT_CSUM_V2);
	w.v1 = !w.v23 && (j->sb.compat & JBD2_FEATURE_COMPAT_CHECKSUM);
	w.b64 = j->sb.incompat & JBD2_FEATURE_INCOMPAT_64BIT;
	w.seed = ek_crc32c(~0u, j->sb.uuid, 16);
	ndesc = (ek_wset_count(ws) + tags_per_desc(&w) - 1) / tags_per_desc(&w);
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

	/* 1. the transaction */
	w.jblk = j->sb.first;
	err = log_transaction(&w, ws, tid, now);
	if (!err)
		err = sync_journal(j);
	/* 2. needs_recovery, then the journal points at it */
	if (!err)
		err = set_needs_recovery(fs, true);
	if (!err) {
		jsb->s_start = cpu_to_be32(j->sb.first);
		jsb->s_sequence = cpu_to_be32(tid);
		err = ek_journal_write_sb(j);
	}
	/* 3. home */
	if (!err)
		err = ek_wset_write(ws);
	/* 4. empty again, sequence as a replay of it would leave it */
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
