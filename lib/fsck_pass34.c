// SPDX-License-Identifier: MIT
/* fsck_pass34.c - the checker's passes 3 and 4: connectivity and link counts */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- pass 3 and 4 ------------------------------------------------------------- */

/*
 * Every directory reaches the root through the directories whose entries
 * name it (as e2fsck, not through '..'), then its '..' must be that parent.
 */
void fsck_pass3(struct check *c)
{
	struct ek_fs *fs = c->fs;
	struct dinfo *root = fsck_dinfo_of(c, EXT4_ROOT_INO);

	if (!(fsck_iflags(c, EXT4_ROOT_INO) & IS_DIR) || !root) {
		fsck_report(c, EK_PR_ROOT_NOT_DIR, AT_INODE(EXT4_ROOT_INO));
		return;
	}
	fsck_iflags_or(c, EXT4_ROOT_INO, REACHED);	/* in use: no allocation */
	root->named_in = EXT4_ROOT_INO;
	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino, p = ino;
		uint64_t steps = 0;

		fsck_units(c, 3, d, c->ndirs);
		if ((fsck_iflags(c, ino) & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR) ||
		    fsck_reserved_ino(fs, ino) || (fsck_iflags(c, ino) & IN_BAD_BLOCK))
			continue;
		/* up to a reached directory; a loop or a dead end fails */
		while (!(fsck_iflags(c, p) & REACHED) && fsck_named_in_of(c, p) &&
		       steps++ <= fs->sb.inodes_count)
			p = fsck_named_in_of(c, p);
		if (fsck_iflags(c, p) & REACHED) {
			for (ek_ino_t q = ino; !(fsck_iflags(c, q) & REACHED); q = fsck_named_in_of(c, q))
				fsck_iflags_or(c, q, REACHED);
		} else {
			fsck_report(c, EK_PR_DIR_UNCONNECTED, AT_INODE(ino), ino, c->dirs[d].parent);
		}
	}
	/* only directories are reached */
	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino;

		if ((fsck_iflags(c, ino) & REACHED) && c->dirs[d].parent != c->dirs[d].named_in &&
		    fsck_report(c, EK_PR_DOTDOT_WRONG, AT_INODE(ino), ino, c->dirs[d].parent,
			   c->dirs[d].named_in)) {
			ek_ino_t old = c->dirs[d].parent;
			int err = ek_fix_dotdot(c->ws, ino, c->dirs[d].named_in);

			/* pass 4 counts the new '..' and not the old one */
			if (!err && (fsck_iflags(c, old) & IN_USE))
				fsck_ref_drop(c, old);
			if (!err)
				err = fsck_ref_add(c, c->dirs[d].named_in);
			if (!err)
				c->dirs[d].parent = c->dirs[d].named_in;
			fsck_fix_done(c, err);
		}
	}
	fsck_units(c, 3, c->ndirs, c->ndirs);
}

/* pass 4 for inode @ino */
static void pass4_inode(struct check *c, ek_ino_t ino)
{
	struct ek_fs *fs = c->fs;
	uint32_t want = fsck_refs_of(c, ino), links = fsck_links_of(c, ino);

	if (!(fsck_iflags(c, ino) & IN_USE) || fsck_reserved_ino(fs, ino) || fsck_sb_ino(fs, ino) ||
	    (fsck_iflags(c, ino) & (IS_EA | IN_BAD_BLOCK)))
		return;
	if (!want) {
		fsck_report(c, EK_PR_INODE_UNATTACHED, AT_INODE(ino), ino);
		return;
	}
	/* dir_nlink: a directory past EXT4_LINK_MAX counts 1 */
	if ((fsck_iflags(c, ino) & IS_DIR) && links == 1 && want > 65000 &&
	    ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK))
		want = 1;
	if (links != want && fsck_report(c, EK_PR_LINK_COUNT_WRONG, AT_INODE(ino), ino, links, want))
		fsck_fix_done(c, ek_fix_inode(c->ws, ino, EK_IFIX_LINKS, want));
}

int fsck_pass4(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint32_t ipg = fs->sb.inodes_per_group;

	/* the inodes in use are in the groups' state, in inode order */
	for (uint32_t g = 0; g < fs->group_count; g++) {
		fsck_units(c, 4, g, fs->group_count);
		for (uint32_t i = 0; i < c->ig[g].n; i++)
			pass4_inode(c, (ek_ino_t)g * ipg + i + 1);
	}
	fsck_units(c, 4, fs->group_count, fs->group_count);
	return 0;
}
