// SPDX-License-Identifier: MIT
/* fsck_pass0.c - the checker: the resize inode, MMP, the journal inode, bad inode tables */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- pass 0: the resize inode and the MMP block ------------------------------ */

/* as e2fsck's fsck_check_resize_inode() (a warning: only online resize reads
 * the inode, and e2fsck -n exits 0 on it): i_block holds only the double-indirect
 * block, whose slot (desc_blocks + i) % per-block names reserved GDT block
 * i of the primary copy, and that block names the same block of each
 * backup copy in group order; without the feature, inode 7 is all zero
 * in i_block.  Returns an operational error only */
int fsck_check_resize_inode(struct check *c)
{
	struct ek_fs *fs = c->fs;
	struct ek_finding at = { .ino = EXT4_RESIZE_INO, .group = -1 };
	struct ek_inode ei;
	const __le32 *ib;
	uint32_t apb = fs->blksz / 4, nres = fs->sb.reserved_gdt_blocks, gdt;
	__le32 *dind = NULL, *ind = NULL;
	ek_blk_t blk;
	char why[160] = "";
	int err;

	/* as e2fsck: zeroed (pass 5 then frees the blocks the copies held) */
	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE) && nres &&
	    fsck_report(c, EK_PR_RESERVED_GDT_NO_RESIZE, AT_GROUP(-1), nres))
		fsck_fix_done(c, ek_fix_super_reserved_gdt_clear(c->ws));
	err = ek_inode_read(fs, EXT4_RESIZE_INO, &ei);
	if (err) {
		ek_inode_release(&ei);
		/* the inode table is unreadable: pass 1 names it */
		return err == -ENOMEM ? err : 0;
	}
	ib = ek_inode_i_block(&ei);
	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE)) {
		for (unsigned i = 0; i < EXT4_N_BLOCKS; i++)
			if (ib[i]) {
				/* as e2fsck: the inode zeroed, its blocks claimed by nothing */
				if (fsck_report(c, EK_PR_RESIZE_INODE_NOT_CLEAR, &at))
					fsck_fix_done(c, ek_fix_inode_zero(c->ws, EXT4_RESIZE_INO));
				break;
			}
		goto out;
	}
	/* meta_bg places no reserved GDT blocks: the inode is e2fsck's to clear */
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG))
		goto out;
	blk = le32_to_cpu(ib[EXT4_DIND_BLOCK]);
	for (unsigned i = 0; i < EXT4_N_BLOCKS; i++)
		if (i != EXT4_DIND_BLOCK && ib[i]) {
			snprintf(why, sizeof(why), "i_block[%u] is %u, should be zero", i,
				 le32_to_cpu(ib[i]));
			goto bad;
		}
	/* no reserved GDT blocks and no block: nothing to map */
	if (!blk && !nres)
		goto out;
	if (!blk || !ei.links_count || !ek_is_reg(ei.mode) || blk <= fs->sb.first_data_block ||
	    blk >= fs->sb.blocks_count) {
		snprintf(why, sizeof(why), !blk ? "no double-indirect block" :
			 !ei.links_count ? "its link count is zero" :
			 !ek_is_reg(ei.mode) ? "it is not a regular file" :
			 "its double-indirect block %llu is outside the filesystem",
			 (unsigned long long)blk);
		goto bad;
	}
	at.blk = blk;
	at.has_blk = true;
	dind = ek_malloc(fs->blksz);
	ind = ek_malloc(fs->blksz);
	if (!dind || !ind) {
		err = -ENOMEM;
		goto out;
	}
	if (ek_fs_read_blocks(fs, blk, 1, dind)) {
		snprintf(why, sizeof(why), "its double-indirect block %llu cannot be read",
			 (unsigned long long)blk);
		goto bad;
	}
	gdt = ek_group_sb_gdt_blocks(fs, 0) - 1 - nres;	/* the descriptor blocks */
	for (uint32_t i = 0; i < nres && i < apb; i++) {
		ek_blk_t want = ek_group_reserved_gdt_block(fs, 0, i);
		uint32_t slot = (gdt + i) % apb, n = 0;

		if (le32_to_cpu(dind[slot]) != want) {
			snprintf(why, sizeof(why), "double-indirect block %llu entry %u is %u, "
				 "should be reserved GDT block %llu", (unsigned long long)blk,
				 slot, le32_to_cpu(dind[slot]), (unsigned long long)want);
			goto bad;
		}
		if (ek_fs_read_blocks(fs, want, 1, ind)) {
			snprintf(why, sizeof(why), "reserved GDT block %llu cannot be read",
				 (unsigned long long)want);
			goto bad;
		}
		for (uint32_t g = 1; g < fs->group_count && n < apb; g++) {
			ek_blk_t copy;

			if (!ek_group_has_super(fs, g))
				continue;
			copy = ek_group_reserved_gdt_block(fs, g, i);
			if (le32_to_cpu(ind[n]) != copy) {
				snprintf(why, sizeof(why), "block %llu entry %u is %u, should be "
					 "group %u's reserved GDT block %llu",
					 (unsigned long long)want, n, le32_to_cpu(ind[n]), g,
					 (unsigned long long)copy);
				goto bad;
			}
			n++;
		}
	}
	goto out;
bad:
	/* as e2fsck: zeroed now (pass 5 frees what it held), made anew after
	 * the passes (fsck_resize_recreate) */
	if (fsck_report(c, EK_PR_RESIZE_INODE_INVALID, &at, why)) {
		int ferr = ek_fix_inode_zero(c->ws, EXT4_RESIZE_INO);

		fsck_fix_done(c, ferr);
		c->resize_recreate = !ferr;
	}
out:
	free(dind);
	free(ind);
	ek_inode_release(&ei);
	return err == -ENOMEM ? err : 0;
}

/* the MMP block, as e2fsck: where it is, its magic and checksum, the update
 * interval; under -n e2fsck neither waits nor refuses a filesystem in use,
 * so a live or e2fsck sequence is a warning */
void fsck_check_mmp(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t blk = le64_to_cpu(fs->raw_sb->s_mmp_block);
	unsigned interval = le16_to_cpu(fs->raw_sb->s_mmp_update_interval);
	static const char *const state[] = {
		[EK_MMP_FSCK] = "e2fsck is checking it", [EK_MMP_LIVE] = "a mount updates it",
		[EK_MMP_UNKNOWN] = "an unknown sequence",
	};
	struct ek_mmp m;
	int err;

	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP))
		return;
	if (interval > EK_MMP_MAX_UPDATE_INTERVAL)
		fsck_report(c, EK_PR_MMP_INTERVAL, AT_GROUP(-1), interval, EK_MMP_MAX_UPDATE_INTERVAL);
	err = ek_mmp_block_check(fs, blk);
	if (err) {
		/* as e2fsck: cleared; a new one is placed after pass 5 (fsck_mmp_recreate) */
		if (fsck_report(c, EK_PR_MMP_BLOCK_INVALID, AT_GROUP(-1), ek_error_msg(err))) {
			err = ek_fix_mmp_block(c->ws, 0, c->o->now);
			fsck_fix_done(c, err);
			c->mmp_cleared = !err;
		}
		return;
	}
	/* as e2fsck: a block it cannot use is made anew, clean */
	err = ek_mmp_read(fs, &m);
	if (err) {
		if (fsck_report(c, EK_PR_MMP_DAMAGED, &(struct ek_finding){ .blk = blk,
				.has_blk = true, .group = -1 }, ek_error_msg(err)))
			fsck_fix_done(c, ek_fix_mmp_reset(c->ws, c->o->now));
		return;
	}
	if (m.csum_bad) {
		if (fsck_report(c, EK_PR_MMP_CHECKSUM, &(struct ek_finding){ .blk = blk,
				.has_blk = true, .group = -1 }, (unsigned long long)blk,
				m.checksum, m.csum_want))
			fsck_fix_done(c, ek_fix_mmp_reset(c->ws, c->o->now));
	}
	else if (ek_mmp_seq_state(m.seq) != EK_MMP_CLEAN)
		fsck_report(c, EK_PR_MMP_IN_USE, &(struct ek_finding){ .blk = blk, .has_blk = true,
		       .group = -1 }, (unsigned long long)blk, state[ek_mmp_seq_state(m.seq)],
		       m.seq, m.nodename, m.bdevname);
}

/*
 * After the passes, the resize inode pass 0 zeroed made anew, as e2fsck
 * makes it at the end of its pass 1 (ext2fs_create_resize_inode): its
 * double-indirect block the first free one from where mke2fs puts it
 * (after the primary's descriptors, reserved GDT blocks, bitmaps and
 * inode table), the reserved GDT blocks (metadata, never freed) mapped
 * again.  Not on bigalloc (a cluster for one block).
 */
int fsck_resize_recreate(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t goal, dind;
	int err;

	if (!c->resize_recreate || !c->ws || c->err || c->stop || c->claims_incomplete ||
	    ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC))
		return 0;
	c->resize_recreate = false;
	goal = ek_group_reserved_gdt_block(fs, 0, fs->sb.reserved_gdt_blocks) + 1 +
	       fs->itable_blocks;
	if (goal >= fs->sb.blocks_count)
		goal = fs->sb.first_data_block;
	err = fsck_alloc_block(c, goal, &dind);
	if (err == -ENOSPC)
		return 0;	/* (the image full: the inode stays zeroed) */
	if (!err)
		err = ek_fix_resize_inode(c->ws, dind, c->o->now);
	if (err)
		return err == -EINVAL ? 0 : err;
	c->sum->blocks_used++;	/* the summary line counts it */
	return fsck_commit(c);
}

/*
 * After the passes, an MMP block for the one pass 0 cleared: the first
 * free block, as tune2fs -O mmp (ext2fs_mmp_init) places one, made clean.
 * e2fsck stops after clearing it (libext2fs will not open the filesystem
 * with MMP on and no block), leaving the image for tune2fs to mend; here
 * the check ends with a filesystem both can open.  Not on bigalloc (a
 * cluster for one block: left as e2fsck leaves it).
 */
int fsck_mmp_recreate(struct check *c)
{
	ek_blk_t blk;
	int err;

	if (!c->mmp_cleared || !c->ws || c->err || c->stop ||
	    ek_has_ro_compat(c->fs, EXT4_FEATURE_RO_COMPAT_BIGALLOC) || c->claims_incomplete)
		return 0;
	c->mmp_cleared = false;
	err = fsck_alloc_block(c, 0, &blk);
	if (err == -ENOSPC)
		return 0;	/* (the image full: as e2fsck leaves it) */
	if (!err)
		err = ek_fix_mmp_block(c->ws, blk, c->o->now);
	if (err)
		return err == -EK_CORRUPT ? 0 : err;
	c->sum->blocks_used++;	/* the summary line counts it */
	return fsck_commit(c);
}

static int map_nothing(void *arg, const struct ek_mapping *m)
{
	(void)arg;
	(void)m;
	return 0;
}

/*
 * An internal journal's inode must be a regular file in use (links), with
 * a block map that can be read (recovery falls back to the superblock's
 * backup of it, s_jnl_blocks; e2fsck clears such a journal), as
 * e2fsck checks it when it loads the journal, before pass 1.  Repairing,
 * as e2fsck's "Clear": the journal dropped (has_journal and the
 * superblock's journal fields cleared, the inode zeroed, written in
 * place: there is no journal to log it through) and made again after
 * pass 5 (fsck_journal_recreate).  Returns an operational error only.
 */
int fsck_check_journal_inode(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_ino_t j = fs->sb.journal_inum;
	struct ek_inode ei;
	const char *why = NULL;
	int err;

	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || j != EXT4_JOURNAL_INO ||
	    c->jnl_cleared)
		return 0;
	err = ek_inode_read(fs, j, &ei);
	if (err == -ENOMEM)
		return err;
	if (err && err != -EK_BADCRC)
		why = "it cannot be read";	/* (its table: pass 1 names it) */
	else if (!ei.links_count)
		why = "it is not in use";
	else if (!ek_is_reg(ei.mode))
		why = "it is not a regular file";
	else if ((err = ek_map_walk(fs, &ei, map_nothing, NULL)) == -EK_CORRUPT)
		why = "its block map is damaged";	/* (read through the superblock's backup) */
	else if (err == -ENOMEM)
		return err;
	ek_inode_release(&ei);
	if (why && fsck_report(c, EK_PR_JOURNAL_INODE_BAD, AT_INODE(j), j, why)) {
		err = ek_fix_journal_clear(c->ws);
		fsck_fix_done(c, err);
		if (!err) {
			c->in_place = true;
			c->jnl_cleared = true;	/* made again after the passes */
		}
		return err == -ENOMEM ? err : 0;
	}
	return 0;
}

/*
 * Inodes in a bad block of an inode table read as zeros (the scan skips
 * them): in use, as e2fsck keeps them, and left out of the other passes.
 */
int fsck_mark_bad_itable(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (size_t i = 0; i < c->nbad; i++)
		for (uint32_t g = 0; g < fs->group_count; g++) {
			ek_blk_t it = fs->groups[g].inode_table;

			if (c->bad[i] < it || c->bad[i] - it >= fs->itable_blocks)
				continue;
			for (uint32_t k = 0; k < fs->inodes_per_block; k++) {
				uint64_t ino = (uint64_t)g * fs->sb.inodes_per_group +
					       (c->bad[i] - it) * fs->inodes_per_block + k + 1;

				if (ino <= fs->sb.inodes_count && fsck_iflags_or(c, ino, IN_USE | IN_BAD_BLOCK))
					return -ENOMEM;
			}
		}
	return 0;
}

/* ---- the superblock's features ------------------------------------------------ */

/*
 * After pass 1, as e2fsck: a regular file of 2 GiB or more needs
 * large_file, which a revision 0 superblock cannot have (e2fsck 1.47 says
 * nothing of a revision 0 superblock's features otherwise).
 */
void fsck_check_features(struct check *c)
{
	struct ek_fs *fs = c->fs;
	const struct ext4_super_block *sb = fs->raw_sb;
	bool lf = le32_to_cpu(sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_LARGE_FILE;
	bool rev0 = le32_to_cpu(sb->s_rev_level) == EXT4_GOOD_OLD_REV;

	if (!c->large_files)
		return;
	if (!lf && fsck_report(c, EK_PR_FEATURE_LARGE_FILES, AT_GROUP(-1))) {
		int err = ek_fix_super_feature(c->ws, EK_FEAT_RO_COMPAT,
					       EXT4_FEATURE_RO_COMPAT_LARGE_FILE, true);

		fsck_fix_done(c, err);
		if (!err)
			return;	/* made revision 1 with it */
	}
	if (rev0 && fsck_report(c, EK_PR_FS_REV_LEVEL, AT_GROUP(-1)))
		fsck_fix_done(c, ek_fix_super_rev(c->ws));
}

/* ---- the group descriptors' tables: where they are ----------------------------- */

#define RELOC_BB	0x1	/* the block bitmap is moved at pass 1's end */
#define RELOC_IB	0x2	/* the inode bitmap */
#define RELOC_ZERO_BB	0x4	/* ...starting from zeros (it was not in the group) */
#define RELOC_ZERO_IB	0x8
#define RELOC_IT	0x10	/* the inode table is made anew at pass 1's end (zeroed) */

static const char *const table_name[3] = { "block bitmap", "inode bitmap", "inode table" };

/* the blocks group @g's tables may lie in: the group, or with flex_bg the filesystem */
static void table_range(const struct ek_fs *fs, uint32_t g, ek_blk_t *first, ek_blk_t *last)
{
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG)) {
		*first = fs->sb.first_data_block;
		*last = fs->sb.blocks_count - 1;
	} else {
		*first = ek_group_first_block(fs, g);
		*last = ek_group_last_block(fs, g);
	}
}

static int reloc_mark(struct check *c, uint32_t g, uint8_t bits)
{
	if (!c->reloc && !(c->reloc = ek_calloc(c->fs->group_count, 1)))
		return -ENOMEM;
	c->reloc[g] |= bits;
	return 0;
}

/* group @g's block (@inode: inode) bitmap moved at pass 1's end, its contents copied */
int fsck_reloc_bitmap(struct check *c, uint32_t g, bool inode)
{
	return reloc_mark(c, g, inode ? RELOC_IB : RELOC_BB);
}

/*
 * As e2fsck's check_super_block(): group @g's bitmaps and inode table lie
 * in the group (flex_bg: in the filesystem).  A bitmap that does not is
 * moved at pass 1's end (fsck_relocate_tables), as e2fsck; an inode table
 * that does not stays reported.  Returns true when something stays
 * wrong (the descriptor's other checks then hold off).
 */
bool fsck_check_group_tables(struct check *c, uint32_t g)
{
	struct ek_fs *fs = c->fs;
	const struct ek_group *grp = &fs->groups[g];
	ek_blk_t first, last, at[3] = { grp->block_bitmap, grp->inode_bitmap, grp->inode_table };
	bool left = false;

	table_range(fs, g, &first, &last);
	for (int k = 0; k < 3; k++) {
		uint64_t n = k == 2 ? fs->itable_blocks : 1;

		bool inside = at[k] >= first && at[k] <= last && n - 1 <= last - at[k];

		if (at[k] && inside)
			continue;
		/* an inode table too, as e2fsck: made anew (zeroed) at pass 1's end,
		 * then the passes start again; until then its inodes are unread.
		 * Block 0 inside the group (a first data block of 0) is no table
		 * to e2fsck: it is made in pass 1 without a question, which preen
		 * does ("Relocating group 0's block bitmap to 2...") */
		if (inside ? fsck_report(c, EK_PR_TABLE_MISSING, AT_GROUP(g), table_name[k], g) :
			     fsck_report(c, EK_PR_TABLE_NOT_IN_GROUP, AT_GROUP(g), table_name[k], g,
					 (unsigned long long)at[k])) {
			fsck_fix_done(c, reloc_mark(c, g, k == 2 ? RELOC_IT : k ? RELOC_IB | RELOC_ZERO_IB :
							    RELOC_BB | RELOC_ZERO_BB));
			if (k == 2)
				c->claims_incomplete = true;	/* its inodes' blocks unknown */
		} else {
			left = true;
		}
	}
	if (left)
		c->claims_incomplete = true;
	return left;
}

/* the metadata of one group, in the order e2fsck's mark_table_blocks() marks it */
struct meta_item {
	ek_blk_t blk;
	uint64_t len;
	uint64_t seq;	/* marking order */
	uint32_t g;
	int kind;	/* -1 superblock and descriptors, else table_name[] */
};

static int item_cmp(const void *a, const void *b)
{
	const struct meta_item *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk ? 1 : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * As e2fsck's pass 1 marking the tables: a bitmap or inode table on a
 * block marked before it (the superblocks and descriptors of its group,
 * a table of an earlier group, its own earlier table) conflicts; a
 * conflicting bitmap is moved at pass 1's end, its contents copied.
 */
int fsck_check_meta_conflicts(struct check *c)
{
	struct ek_fs *fs = c->fs;
	struct meta_item *v = ek_calloc((size_t)fs->group_count * 4 + 1, sizeof(*v));
	size_t n = 0, top = 0;
	uint64_t seq = 0;

	if (!v)
		return -ENOMEM;
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		ek_blk_t first = ek_group_first_block(fs, g), at[3] = { grp->inode_table,
			grp->block_bitmap, grp->inode_bitmap };
		int kinds[3] = { 2, 0, 1 };
		uint32_t sbn = ek_group_sb_gdt_blocks(fs, g);

		if (first == 0 && fs->blksz == 1024)
			first = 1;
		/* reserved GDT blocks without resize_inode are RESERVED_GDT_NO_RESIZE's */
		if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE) && ek_group_has_super(fs, g) &&
		    sbn > fs->sb.reserved_gdt_blocks)
			sbn -= fs->sb.reserved_gdt_blocks;
		if (sbn)
			v[n++] = (struct meta_item){ first, sbn, seq++, g, -1 };
		for (int k = 0; k < 3; k++) {
			uint8_t moved = kinds[k] == 0 ? RELOC_BB : kinds[k] == 1 ? RELOC_IB : 0;

			if (c->reloc && (c->reloc[g] & (moved ? moved : RELOC_IT)))
				continue;	/* not in its group: moved anyway */
			if (!ek_fs_range_valid(fs, at[k], kinds[k] == 2 ? fs->itable_blocks : 1))
				continue;	/* reported with the descriptor */
			v[n++] = (struct meta_item){ at[k], kinds[k] == 2 ? fs->itable_blocks : 1,
						     seq++, g, kinds[k] };
		}
	}
	qsort(v, n, sizeof(*v), item_cmp);
	/* each item against the item reaching furthest among those before it */
	for (size_t i = 1; i < n; i++) {
		struct meta_item *a = &v[top], *b = &v[i], *late;

		if (b->blk < a->blk + a->len) {
			late = a->seq > b->seq ? a : b;
			if (late->kind >= 0 && fsck_report_if(c, late->kind < 2, EK_PR_TABLE_CONFLICT,
							      AT_GROUP(late->g), late->g,
							      table_name[late->kind],
							      (unsigned long long)late->blk)) {
				int err = reloc_mark(c, late->g, late->kind ? RELOC_IB : RELOC_BB);

				fsck_fix_done(c, err);
				if (err) {
					free(v);
					return err;
				}
			} else if (late->kind >= 0) {
				c->claims_incomplete = true;
			}
		}
		if (b->blk + b->len > a->blk + a->len)
			top = i;
	}
	free(v);
	return 0;
}

/* a free block for group @g's moved bitmap: free in the computed map, in
 * the group (flex_bg: from it on, in any group), marked there */
static int reloc_alloc(struct check *c, uint32_t g, ek_blk_t *out)
{
	struct ek_fs *fs = c->fs;
	bool flex = ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG);

	for (uint32_t k = 0; k < (flex ? fs->group_count : 1); k++) {
		uint32_t gg = (g + k) % fs->group_count;
		ek_blk_t first = ek_group_first_block(fs, gg), last = ek_group_last_block(fs, gg);

		for (ek_blk_t b = first; b <= last; b += ek_cluster_ratio(fs)) {
			bool was;
			int err;

			if (!ek_fs_block_valid(fs, b))
				continue;
			err = fsck_mark(c, b, &was);
			if (err)
				return err;
			if (!was) {
				*out = b;
				return 0;
			}
		}
	}
	return ek_err(-ENOSPC, "no free block left in group %u", g);
}

/* @n free blocks in a row for group @g's new inode table: in the group
 * (flex_bg: from it on, in any group), marked in the computed map */
static int reloc_alloc_run(struct check *c, uint32_t g, uint64_t n, ek_blk_t *out)
{
	struct ek_fs *fs = c->fs;
	bool flex = ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG);
	ek_blk_t first = ek_group_first_block(fs, g);
	ek_blk_t last = flex ? fs->sb.blocks_count - 1 : ek_group_last_block(fs, g);

	if (ek_cluster_ratio(fs) != 1)
		return ek_err(-EK_UNSUPP, "bigalloc: an inode table is not relocated");
	for (ek_blk_t b = first; n && b <= last && last - b + 1 >= n; ) {
		uint64_t got = 0;
		int err = 0;

		while (got < n) {
			bool was;

			if (!ek_fs_block_valid(fs, b + got))
				was = true;
			else if ((err = fsck_mark(c, b + got, &was)))
				return err;
			if (was)
				break;
			got++;
		}
		if (got == n) {
			*out = b;
			return 0;
		}
		for (uint64_t i = 0; i < got; i++)
			fsck_unmark(c, b + i);
		b += got + 1;
	}
	return ek_err(-ENOSPC, "no %llu free blocks in a row left for group %u's inode table",
		      (unsigned long long)n, g);
}

/* group @g's inode table is to be made anew (this run reads none of it) */
bool fsck_itable_moving(const struct check *c, uint32_t g)
{
	return c->reloc && !c->restarts && g < c->fs->group_count && (c->reloc[g] & RELOC_IT);
}

/* every inode table outside the filesystem is one to be made anew */
bool fsck_itables_pending(const struct check *c)
{
	const struct ek_fs *fs = c->fs;
	bool any = false;

	for (uint32_t g = 0; g < fs->group_count; g++) {
		if (ek_fs_range_valid(fs, fs->groups[g].inode_table, fs->itable_blocks))
			continue;
		if (!c->reloc || !(c->reloc[g] & RELOC_IT))
			return false;
		any = true;
	}
	return any;
}

/* pass 1's end: the bitmaps marked to move get their new blocks, as e2fsck */
int fsck_relocate_tables(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (uint32_t g = 0; c->reloc && g < fs->group_count; g++) {
		if (c->reloc[g] & RELOC_IT) {
			ek_blk_t nb = 0;
			int err = c->ws ? reloc_alloc_run(c, g, fs->itable_blocks, &nb) : -EINVAL;

			if (!err)
				err = ek_fix_table_move(c->ws, g, EK_GD_INODE_TABLE, 0, nb);
			if (err == -ENOMEM)
				return err;
			if (err) {
				fsck_report(c, EK_PR_TABLE_NOT_MOVED, AT_GROUP(g), g, table_name[2],
					    ek_error_msg(err));
			} else {
				c->restart = true;	/* as e2fsck: its inodes read afresh */
			}
		}
		for (int k = 0; k < 2; k++) {
			uint8_t want = k ? RELOC_IB : RELOC_BB, zero = k ? RELOC_ZERO_IB : RELOC_ZERO_BB;
			ek_blk_t old = k ? fs->groups[g].inode_bitmap : fs->groups[g].block_bitmap, nb = 0;
			int err;

			if (!(c->reloc[g] & want))
				continue;
			err = c->ws ? reloc_alloc(c, g, &nb) : -EINVAL;
			if (!err)
				err = ek_fix_table_move(c->ws, g, k ? EK_GD_INODE_BITMAP : EK_GD_BLOCK_BITMAP,
							(c->reloc[g] & zero) ? 0 : old, nb);
			if (err == -ENOMEM)
				return err;
			if (err) {
				fsck_report(c, EK_PR_TABLE_NOT_MOVED, AT_GROUP(g), g, table_name[k],
					    ek_error_msg(err));
				c->claims_incomplete = true;
			}
		}
	}
	return 0;
}
