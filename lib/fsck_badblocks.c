// SPDX-License-Identifier: MIT
/*
 * fsck_badblocks.c - the bad blocks inode (inode 1) against the blocks it
 * lists, as e2fsck's pass 1 judges them:
 *
 *   its own inode    the list names the inode table block that holds inode
 *                    1 itself: the list cannot be trusted, the inode is
 *                    cleared (e2fsck's "Bad block list says the bad block
 *                    list inode is bad") before its blocks are claimed, so
 *                    the inodes sharing that block are read as the others
 *   a group bitmap   a listed block is a group's block or inode bitmap:
 *                    the bitmap is moved at pass 1's end, its contents
 *                    copied, as e2fsck relocates it (the old block stays
 *                    in the list)
 *
 * An inode table block in the list is left to fsck_mark_bad_itable() (its
 * inodes are not read); e2fsck's other cases (the primary superblock or
 * descriptors, the list's own indirect blocks) are not judged yet.
 */
#include <stdlib.h>
#include "fsck_int.h"

struct self_find {
	ek_blk_t want;
	bool found;
};

static int self_mapping(void *arg, const struct ek_mapping *m)
{
	struct self_find *s = arg;

	if (m->kind == EK_MAP_DATA && s->want >= m->pblk && s->want - m->pblk < m->len) {
		s->found = true;
		return 1;	/* stop: found */
	}
	return 0;
}

int fsck_bad_inode_self(struct check *c, const struct ek_inode *ei)
{
	struct self_find s = { 0 };
	uint32_t off;
	int err;

	if (ei->ino != EXT4_BAD_INO || ek_inode_loc(c->fs, EXT4_BAD_INO, &s.want, &off))
		return 0;
	err = ek_map_walk(c->fs, ei, self_mapping, &s);
	if (err == -ENOMEM)
		return err;
	/* a damaged map: its walk in pass 1 names it */
	if (!s.found || !fsck_report(c, EK_PR_BAD_BLOCKS_INODE_LISTED, &(struct ek_finding){
			.ino = EXT4_BAD_INO, .blk = s.want, .has_blk = true, .group = -1 },
			(unsigned long long)s.want))
		return 0;
	/* as e2fsck_clear_inode(): deleted now, its map zeroed (a reserved inode) */
	err = ek_fix_inode_clear(c->ws, EXT4_BAD_INO, (uint32_t)c->o->now);
	fsck_fix_done(c, err);
	if (err == -ENOMEM || err == -EIO)
		return err;
	return err ? 0 : 1;
}

static bool listed(const ek_blk_t *v, size_t n, ek_blk_t b)
{
	size_t k = ek_lower_u64(v, n, b);

	return k < n && v[k] == b;
}

int fsck_bad_blocks_tables(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t *v;

	if (!c->nbad)
		return 0;
	v = ek_calloc(c->nbad, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->nbad; i++)
		v[i] = c->bad[i];
	qsort(v, c->nbad, sizeof(*v), ek_cmp_u64);
	for (uint32_t g = 0; g < fs->group_count; g++) {
		for (int k = 0; k < 2; k++) {
			ek_blk_t at = k ? fs->groups[g].inode_bitmap : fs->groups[g].block_bitmap;
			int err;

			if (!listed(v, c->nbad, at) ||
			    !fsck_report(c, EK_PR_BAD_BLOCK_IN_BITMAP, AT_GROUP(g), g,
					 k ? "inode bitmap" : "block bitmap", (unsigned long long)at))
				continue;
			err = fsck_reloc_bitmap(c, g, k);
			fsck_fix_done(c, err);
			if (err) {
				free(v);
				return err;
			}
		}
	}
	free(v);
	return 0;
}
