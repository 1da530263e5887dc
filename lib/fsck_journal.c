// SPDX-License-Identifier: MIT
/*
 * fsck_journal.c - the checker's journal recreation: after the passes, an
 * internal journal the run cleared (JOURNAL_UNUSABLE fixed) is made again,
 * as e2fsck does after its pass 5 ("Recreate journal", PR_6_RECREATE_JOURNAL,
 * which preen makes too): ext2fs_default_journal_size's size for the
 * filesystem's blocks (none below 2048 blocks: the journal stays off), the
 * fast-commit area with fast_commit (1/64 of it more), placed as
 * libext2fs's mkjournal places it (extents: the emptiest group around the
 * middle; block maps: from the start).
 *
 * The filesystem has no journal while it is made, so the writes are
 * ordered (each step flushed before the next): the journal's blocks zeroed
 * (free blocks until then: a kill changes nothing), then the journal
 * superblock, inode 8, its indirect or tree blocks and the bitmaps and
 * counts that claim them, then the superblock turning has_journal on.
 * Killed before the last step, the image is consistent but for an inode 8
 * holding blocks without has_journal, which the next run clears (as
 * e2fsck's "journal inode is not in use, but contains data").
 */
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* blocks from the checker's allocator, one at a time (each marked used
 * in the computed map and the set's bitmap): the sink of the files a
 * repair makes after the passes (the journal, a quota file) */
int fsck_sink_alloc(void *arg, ek_blk_t goal, uint64_t want, ek_blk_t *start, uint64_t *got)
{
	struct check *c = arg;
	int err = fsck_alloc_block(c, goal, start);

	(void)want;
	*got = 1;
	if (!err)
		c->sum->blocks_used++;	/* the summary line counts it */
	return err;
}

int fsck_sink_put(void *arg, ek_blk_t blk, const uint8_t *buf)
{
	struct check *c = arg;

	return ek_wset_put(c->ws, blk, buf);
}

/* mke2fs's get_midpoint_journal_block() on the free counts as they are */
static ek_blk_t journal_goal(const struct ek_fs *fs)
{
	uint32_t g, start, end, best;

	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return fs->sb.first_data_block;
	g = ek_group_of_block(fs, fs->sb.first_data_block +
			      (fs->sb.blocks_count - fs->sb.first_data_block) / 2);
	if (g >= fs->group_count)
		g = fs->group_count - 1;
	start = g ? g - 1 : g;
	end = g + 1 < fs->group_count ? g + 1 : g;
	best = start;
	for (uint32_t i = start + 1; i <= end; i++)
		if (fs->groups[i].free_blocks > fs->groups[best].free_blocks)
			best = i;
	return ek_group_first_block(fs, best);
}

/* the data blocks of the new journal zeroed in place (free on disk until
 * the commit that claims them), @v[0].pblk's first block left to the set */
static int zero_extents(struct ek_fs *fs, const struct ek_ext *v, size_t n)
{
	enum { CHUNK = 256 };
	uint8_t *z = ek_calloc(CHUNK, fs->blksz);
	int err = z ? 0 : -ENOMEM;

	for (size_t i = 0; i < n && !err; i++)
		for (uint64_t k = 0; k < v[i].len && !err; k += CHUNK) {
			uint64_t len = v[i].len - k < CHUNK ? v[i].len - k : CHUNK;

			err = ek_io_pwrite(fs->io, z, len * fs->blksz, (v[i].pblk + k) * fs->blksz);
		}
	if (!err)
		err = ek_io_sync(fs->io);
	free(z);
	return err;
}

int fsck_journal_recreate(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint64_t jblocks, total, need;
	uint32_t fc = 0;
	struct ek_ind_sink sink = { .alloc = fsck_sink_alloc, .put = fsck_sink_put, .arg = c };
	struct ek_ext *v = NULL;
	size_t nv = 0;
	bool can;
	int err;

	if (!c->jnl_cleared || !c->ws || c->err || c->stop ||
	    ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return 0;
	jblocks = ek_journal_default_blocks(fs->sb.blocks_count);
	if (!jblocks)
		return 0;	/* as e2fsck: no size for it, the journal stays off */
	if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_FAST_COMMIT))
		fc = (uint32_t)(jblocks / 64);
	total = jblocks + fc;
	/* the data and, at most, one map block per 256 of it and a few more */
	need = total + total / (fs->blksz / 4) + 8;
	/* bigalloc: the allocator hands out clusters; a map left unread: the
	 * free blocks are not known */
	can = !ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC) && !c->claims_incomplete &&
	      fsck_room_for(c, need);
	if (!fsck_report_if(c, can, EK_PR_JOURNAL_RECREATE, AT_INODE(EXT4_JOURNAL_INO),
			    (unsigned long long)total))
		return 0;
	err = ek_fix_journal_inode(c->ws, total, fc, journal_goal(fs), &sink, c->o->now, &v, &nv);
	if (!err)
		err = zero_extents(fs, v, nv);	/* -EIO (a write failed): the check stops */
	free(v);
	if (!err) {
		/* the journal, its inode and the bitmaps first, written in place
		 * (there is no journal to log them through); the finding is
		 * fixed when the superblock is written too */
		struct ek_finding pending = c->pending;

		c->have_pending = false;
		c->in_place = true;
		err = fsck_commit(c);
		c->pending = pending;
		c->have_pending = true;
		if (err) {
			fsck_fix_done(c, err);
			return err;
		}
	}
	if (!err)
		err = ek_fix_journal_on(c->ws);
	fsck_fix_done(c, err);
	if (err)	/* the image's fault: the finding stays; else the check stops */
		return c->err ? c->err : err == -ENOMEM || err == -EIO ? err : 0;
	c->in_place = true;
	return fsck_commit(c);	/* then the superblock turns it on */
}
