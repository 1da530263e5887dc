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

	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE) && nres)
		fsck_report(c, EK_PR_RESERVED_GDT_NO_RESIZE, AT_GROUP(-1), nres);
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
				fsck_report(c, EK_PR_RESIZE_INODE_NOT_CLEAR, &at);
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
	fsck_report(c, EK_PR_RESIZE_INODE_INVALID, &at, why);
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
		fsck_report(c, EK_PR_MMP_BLOCK_INVALID, AT_GROUP(-1), ek_error_msg(err));
		return;
	}
	err = ek_mmp_read(fs, &m);
	if (err) {
		fsck_report(c, EK_PR_MMP_DAMAGED, &(struct ek_finding){ .blk = blk, .has_blk = true,
		       .group = -1 }, ek_error_msg(err));
		return;
	}
	if (m.csum_bad)
		fsck_report(c, EK_PR_MMP_CHECKSUM, &(struct ek_finding){ .blk = blk, .has_blk = true,
		       .group = -1 }, (unsigned long long)blk, m.checksum, m.csum_want);
	else if (ek_mmp_seq_state(m.seq) != EK_MMP_CLEAN)
		fsck_report(c, EK_PR_MMP_IN_USE, &(struct ek_finding){ .blk = blk, .has_blk = true,
		       .group = -1 }, (unsigned long long)blk, state[ek_mmp_seq_state(m.seq)],
		       m.seq, m.nodename, m.bdevname);
}

/* an internal journal's inode must be a regular file in use */
void fsck_check_journal_inode(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_ino_t j = fs->sb.journal_inum;

	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || !j || j > fs->sb.inodes_count)
		return;
	if (!(fsck_iflags(c, j) & IN_USE))
		fsck_report(c, EK_PR_JOURNAL_INODE_BAD, AT_INODE(j), j, "it is not in use");
	else if ((fsck_imode(c, j) & 0170000) != 0100000)
		fsck_report(c, EK_PR_JOURNAL_INODE_BAD, AT_INODE(j), j, "it is not a regular file");
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

/* ---- the superblock's own fields --------------------------------------------- */

/* as e2fsck's check_super_block(): a revision 0 superblock has no features */
void fsck_check_super(struct check *c)
{
	const struct ext4_super_block *sb = c->fs->raw_sb;

	if (le32_to_cpu(sb->s_rev_level) == EXT4_GOOD_OLD_REV &&
	    (sb->s_feature_compat || sb->s_feature_incompat || sb->s_feature_ro_compat) &&
	    fsck_report(c, EK_PR_FS_REV_LEVEL, AT_GROUP(-1)))
		fsck_fix_done(c, ek_fix_super_rev(c->ws));
}

/* after pass 1: features the inodes need (e2fsck sets them at its pass 1's end) */
void fsck_check_features(struct check *c)
{
	struct ek_fs *fs = c->fs;

	if (c->large_files && !ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_LARGE_FILE) &&
	    fsck_report(c, EK_PR_FEATURE_LARGE_FILES, AT_GROUP(-1)))
		fsck_fix_done(c, ek_fix_super_feature(c->ws, EK_FEAT_RO_COMPAT,
						      EXT4_FEATURE_RO_COMPAT_LARGE_FILE, true));
}
