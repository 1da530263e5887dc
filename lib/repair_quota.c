// SPDX-License-Identifier: MIT
/*
 * repair_quota.c - the quota fixes that rewrite a quota file or the
 * superblock's quota inode numbers (in-place usage edits: repair_lnf.c's
 * ek_fix_quota_usage).
 *
 * What e2fsck does (e2fsck/super.c, e2fsck/unix.c, lib/support/mkquota.c):
 * a quota inode number no quota inode can have is cleared in the
 * superblock ("Invalid user quota inode 7.  Fix?"); a quota file it
 * cannot read, or whose usage differs from what was counted, is written
 * anew whole ("Update quota info for quota type N"): the old inode
 * truncated, a fresh regular file of mode 0600, immutable, extents when
 * the filesystem has them, holding every id's counted usage and the
 * limits read from the old file.  The bytes come from quota.c's encoder,
 * the map from extent.c or map.c, the blocks from the caller's sink (the
 * checker's allocator, which keeps its computed map and the set's bitmaps
 * equal); every block goes into the write set.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define IOFF(f) offsetof(struct ext4_inode, f)

int ek_fix_quota_inum(struct ek_wset *ws, unsigned type, ek_ino_t ino)
{
	struct ext4_super_block *sb = ek_wset_super(ws);

	if (!sb)
		return -ENOMEM;
	switch (type) {
	case EK_QUOTA_USR: sb->s_usr_quota_inum = cpu_to_le32((uint32_t)ino); return 0;
	case EK_QUOTA_GRP: sb->s_grp_quota_inum = cpu_to_le32((uint32_t)ino); return 0;
	case EK_QUOTA_PRJ: sb->s_prj_quota_inum = cpu_to_le32((uint32_t)ino); return 0;
	}
	return -EINVAL;
}

int ek_fix_quota_file(struct ek_wset *ws, ek_ino_t ino, const uint8_t *data, size_t len,
		      bool free_old, ek_blk_t goal, const struct ek_ind_sink *sink, int64_t now,
		      uint64_t *freed)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_timespec ts = { .sec = now };
	uint64_t nblk = (len + fs->blksz - 1) >> fs->log_blksz, before;
	struct ek_ext *v = NULL;
	size_t nv = 0;
	uint8_t *raw, *blk = NULL;
	int err;

	*freed = 0;
	if (!len || len % EK_QUOTA_BLKSZ || nblk > UINT32_MAX)
		return -EINVAL;
	err = ek_wset_inode(ws, ino, &raw);
	if (err)
		return err;
	if (free_old) {
		/* the old file's blocks and map freed through the map's codec */
		before = ek_inode_iblocks(fs, raw);
		ek_inode_size_set(raw, 0);
		err = ek_inode_truncate(fs, ws, ino, raw);
		if (err)
			return err;
		if (before > ek_inode_iblocks(fs, raw))
			*freed = (before - ek_inode_iblocks(fs, raw)) >> (fs->log_blksz - 9);
	}
	ek_inode_init_new(fs, raw, 0100600, 1, ts, true);
	put_le32(raw + IOFF(i_flags), EXT4_IMMUTABLE_FL);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		struct ek_sink_tree t = { .sink = sink };
		struct ek_tree_sink tsink = ek_sink_tree(&t);

		err = ek_sink_extents(sink, goal, nblk, "quota file", &v, &nv);
		if (!err) {
			put_le32(raw + IOFF(i_flags), EXT4_IMMUTABLE_FL | EXT4_EXTENTS_FL);
			t.goal = v[0].pblk;
			err = ek_extent_tree_write(fs, ino, raw, v, nv, &tsink);
		}
		if (!err)
			ek_inode_add_blocks(fs, raw, (int64_t)(nblk + t.blocks));
	} else {
		struct ek_ext run = { .lblk = 0, .len = (uint32_t)nblk };

		err = ek_ind_map_write(fs, raw, &run, 1, goal, sink, &v, &nv);
	}
	if (!err && !(blk = ek_malloc(fs->blksz)))
		err = -ENOMEM;
	/* the data, block by block in logical order */
	for (size_t i = 0, l = 0; i < nv && !err; i++)
		for (uint32_t k = 0; k < v[i].len && !err; k++, l++) {
			size_t off = l << fs->log_blksz, n = len - off < fs->blksz ? len - off : fs->blksz;

			memset(blk, 0, fs->blksz);
			memcpy(blk, data + off, n);
			err = ek_wset_put(ws, v[i].pblk + k, blk);
		}
	free(blk);
	free(v);
	if (err)
		return err;
	ek_inode_size_set(raw, len);
	ek_inode_csum_set(fs, ino, raw);
	return 0;
}
