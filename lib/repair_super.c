// SPDX-License-Identifier: MIT
/*
 * repair_super.c - extkit-fsck's fixes of the superblock, the group
 * descriptors and the bitmaps' padding (pass 0 and the pass-5 residue).
 *
 * As repair.c: each fix edits blocks inside a write set through the
 * object's codec (super.c's fields, group.c's descriptor fields); the
 * checksums are set when the set is sealed.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

/*
 * The primary superblock and descriptors from the backup @fs was opened
 * with (fs->sb_block): the backup superblock as group 0's, each descriptor
 * block at its primary home.  As libext2fs opening a backup with group
 * descriptor checksums, the descriptors lose their BLOCK_UNINIT and
 * INODE_UNINIT flags and bg_itable_unused (a backup's are as old as the
 * last resize or mkfs): pass 5 then judges every bitmap as written.  From
 * here on @fs reads and writes the primary (sb_block 0).
 */
int ek_fix_super_primary(struct ek_wset *ws)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint32_t nblocks = (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block;
	ek_blk_t backup = fs->sb_block;
	struct ext4_super_block *sb;
	int err = 0;

	if (!backup)
		return ek_err(-EINVAL, "the superblock was read from the primary");
	sb = ek_wset_super(ws);
	if (!sb)
		return -ENOMEM;
	memcpy(sb, fs->raw_sb, EXT4_SUPERBLOCK_SIZE);
	sb->s_block_group_nr = 0;
	for (uint32_t i = 0; i < nblocks && !err; i++)
		err = ek_wset_put(ws, ek_gdt_block(fs, fs->sb.first_data_block, i), fs->gd_raw + (size_t)i * fs->blksz);
	if (err)
		return err;
	fs->sb_block = 0;	/* the set's descriptors (and later reads) are the primary's */
	for (uint32_t g = 0; g < fs->group_count && !err; g++) {
		uint8_t *d;

		err = ek_wset_desc(ws, g, &d);	/* touched: seal sets its checksum */
		if (err || !(fs->has_csum || fs->has_gdt_csum))
			continue;
		put_le16(d + offsetof(struct ext4_group_desc, bg_flags),
			 get_le16(d + offsetof(struct ext4_group_desc, bg_flags)) &
			 ~(EXT4_BG_BLOCK_UNINIT | EXT4_BG_INODE_UNINIT));
		ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, 0);
	}
	if (err)
		fs->sb_block = backup;
	return err;
}

/* a revision 0 superblock made dynamic (revision 1), as e2fsprogs does it:
 * the first inode and the inode size revision 0 implies made explicit */
static void dynamic_rev(struct ext4_super_block *sb)
{
	if (le32_to_cpu(sb->s_rev_level) != EXT4_GOOD_OLD_REV)
		return;
	sb->s_rev_level = cpu_to_le32(EXT4_DYNAMIC_REV);
	sb->s_first_ino = cpu_to_le32(EXT4_GOOD_OLD_FIRST_INO);
	sb->s_inode_size = cpu_to_le16(EXT4_GOOD_OLD_INODE_SIZE);
}

int ek_fix_super_rev(struct ek_wset *ws)
{
	struct ext4_super_block *sb = ek_wset_super(ws);

	if (!sb)
		return -ENOMEM;
	dynamic_rev(sb);
	return 0;
}

int ek_fix_super_feature(struct ek_wset *ws, int kind, uint32_t mask, bool on)
{
	struct ext4_super_block *sb = ek_wset_super(ws);
	__le32 *f;

	if (!sb)
		return -ENOMEM;
	switch (kind) {
	case EK_FEAT_COMPAT: f = &sb->s_feature_compat; break;
	case EK_FEAT_INCOMPAT: f = &sb->s_feature_incompat; break;
	case EK_FEAT_RO_COMPAT: f = &sb->s_feature_ro_compat; break;
	default: return -EINVAL;
	}
	if (on) {
		*f |= cpu_to_le32(mask);
		dynamic_rev(sb);	/* a revision 0 superblock has no features */
	} else {
		*f &= ~cpu_to_le32(mask);
	}
	return 0;
}

int ek_fix_table_move(struct ek_wset *ws, uint32_t g, enum ek_gd_field f, ek_blk_t old,
		      ek_blk_t blk)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *b, *d;
	uint64_t bits;
	int err;

	if (f == EK_GD_INODE_TABLE) {
		/* a new inode table, zeroed (its inodes are lost: e2fsck's "severe
		 * data loss"); @blk .. + the table's blocks */
		if (old || !ek_fs_range_valid(fs, blk, fs->itable_blocks))
			return ek_err(-EINVAL, "inode table at %llu: outside the filesystem",
				      (unsigned long long)blk);
		for (uint64_t i = 0; i < fs->itable_blocks; i++) {
			err = ek_wset_block(ws, blk + i, &b);
			if (err)
				return err;
			memset(b, 0, fs->blksz);
		}
		err = ek_wset_desc(ws, g, &d);
		if (!err)
			ek_gd_set(fs, d, f, blk);
		return err;
	}
	if (f != EK_GD_BLOCK_BITMAP && f != EK_GD_INODE_BITMAP)
		return -EINVAL;
	if (!ek_fs_block_valid(fs, blk))
		return ek_err(-EINVAL, "block %llu is outside the filesystem",
			      (unsigned long long)blk);
	err = ek_wset_block(ws, blk, &b);
	if (err)
		return err;
	if (old && ek_fs_block_valid(fs, old))
		err = ek_wset_read(ws, old, b);
	else
		memset(b, 0, fs->blksz);
	/* the bytes past the group's bits set, as the kernel writes a bitmap */
	bits = f == EK_GD_INODE_BITMAP ? fs->sb.inodes_per_group : fs->sb.clusters_per_group;
	if (!err && bits / 8 < fs->blksz)
		memset(b + bits / 8, 0xFF, fs->blksz - bits / 8);
	if (!err && f == EK_GD_BLOCK_BITMAP && g == fs->group_count - 1)	/* past the end */
		for (uint64_t c = (ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >> fs->cluster_bits;
		     c < bits; c++)
			b[c >> 3] |= 1u << (c & 7);
	if (!err)
		err = ek_wset_desc(ws, g, &d);
	if (!err)
		ek_gd_set(fs, d, f, blk);
	return err;
}

/*
 * The internal journal dropped, as e2fsck clears "an invalid journal":
 * has_journal and needs_recovery cleared, the superblock's journal fields
 * zeroed, and the journal inode zeroed (its blocks are then claimed by
 * nothing: pass 5 frees them).
 */
int ek_fix_journal_inode_clear(struct ek_wset *ws)
{
	return ek_fix_inode_zero(ws, EXT4_JOURNAL_INO);
}

int ek_fix_inode_zero(struct ek_wset *ws, ek_ino_t ino)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (!err)
		memset(raw, 0, fs->inode_size);
	return err;
}

int ek_fix_resize_inode(struct ek_wset *ws, ek_blk_t dind, int64_t now)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_timespec ts = { .sec = now };
	uint8_t *raw, *b;
	int err;

	if (!ek_fs_block_valid(fs, dind) || ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG))
		return -EINVAL;
	err = ek_wset_inode(ws, EXT4_RESIZE_INO, &raw);
	if (err)
		return err;
	/* (as libext2fs's resize inode: no crtime) */
	ek_inode_init_new(fs, raw, 0100600, 1, ts, false);
	ek_resize_inode_encode(fs, dind, raw);
	/* its size is over 2 GiB with 4 KiB blocks: as ext2fs_inode_size_set() */
	if (ek_inode_size(fs, raw) > 0x7fffffffull &&
	    !ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_LARGE_FILE)) {
		struct ext4_super_block *sb = ek_wset_super(ws);

		if (!sb)
			return -ENOMEM;
		sb->s_feature_ro_compat |= cpu_to_le32(EXT4_FEATURE_RO_COMPAT_LARGE_FILE);
	}
	err = ek_wset_block(ws, dind, &b);
	if (err)
		return err;
	ek_resize_dind_encode(fs, b);
	for (uint32_t i = 0; i < fs->sb.reserved_gdt_blocks && i < fs->blksz / 4 && !err; i++) {
		err = ek_wset_block(ws, ek_group_reserved_gdt_block(fs, 0, i), &b);
		if (!err)
			ek_resize_gdt_encode(fs, i, b);
	}
	if (!err)
		ek_inode_csum_set(fs, EXT4_RESIZE_INO, raw);
	return err;
}

int ek_fix_super_reserved_gdt_clear(struct ek_wset *ws)
{
	struct ext4_super_block *sb = ek_wset_super(ws);

	if (!sb)
		return -ENOMEM;
	sb->s_reserved_gdt_blocks = 0;
	return 0;
}

/* a clean MMP block at @blk, as mkfs writes one (ext2fs_mmp_init) */
static int mmp_write(struct ek_wset *ws, ek_blk_t blk, int64_t now)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	unsigned interval = le16_to_cpu(fs->raw_sb->s_mmp_update_interval);
	struct ek_mmp m = { .magic = EXT4_MMP_MAGIC, .seq = EXT4_MMP_SEQ_CLEAN, .time = now,
			    .check_interval = EK_MMP_MIN_CHECK_INTERVAL };
	uint8_t *b;
	int err = ek_mmp_block_check(fs, blk);

	if (err)
		return err;	/* not a block it may be: MMP_BLOCK_INVALID's */
	err = ek_wset_block(ws, blk, &b);
	if (err)
		return err;
	/* as mkfs (ext2fs_mmp_init): checked as often as it is updated */
	if (interval > m.check_interval && interval <= EK_MMP_MAX_UPDATE_INTERVAL)
		m.check_interval = interval;
	memset(b, 0, fs->blksz);
	ek_mmp_encode(fs, &m, b);
	return 0;
}

int ek_fix_mmp_reset(struct ek_wset *ws, int64_t now)
{
	return mmp_write(ws, le64_to_cpu(ek_wset_fs(ws)->raw_sb->s_mmp_block), now);
}

int ek_fix_mmp_block(struct ek_wset *ws, ek_blk_t blk, int64_t now)
{
	struct ext4_super_block *sb = ek_wset_super(ws);
	int err;

	if (!sb)
		return -ENOMEM;
	err = blk ? mmp_write(ws, blk, now) : 0;
	if (!err)
		sb->s_mmp_block = cpu_to_le64(blk);
	return err;
}

int ek_fix_journal_clear(struct ek_wset *ws)
{
	struct ext4_super_block *sb = ek_wset_super(ws);
	int err;

	if (!sb)
		return -ENOMEM;
	err = ek_fix_journal_inode_clear(ws);
	if (err)
		return err;
	sb->s_feature_compat &= ~cpu_to_le32(EXT4_FEATURE_COMPAT_HAS_JOURNAL);
	sb->s_feature_incompat &= ~cpu_to_le32(EXT4_FEATURE_INCOMPAT_RECOVER);
	sb->s_journal_inum = 0;
	sb->s_journal_dev = 0;
	sb->s_jnl_backup_type = 0;
	memset(sb->s_jnl_blocks, 0, sizeof(sb->s_jnl_blocks));
	memset(sb->s_journal_uuid, 0, sizeof(sb->s_journal_uuid));
	return 0;
}

static int sink_tree_alloc(void *arg, ek_blk_t *blk)
{
	struct ek_sink_tree *t = arg;
	uint64_t got;
	int err = t->sink->alloc(t->sink->arg, t->goal, 1, blk, &got);

	if (!err)
		t->blocks++;
	return err;
}

static int sink_tree_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	struct ek_sink_tree *t = arg;

	return t->sink->put(t->sink->arg, blk, node);
}

struct ek_tree_sink ek_sink_tree(struct ek_sink_tree *t)
{
	return (struct ek_tree_sink){ .alloc = sink_tree_alloc, .put = sink_tree_put, .arg = t };
}

int ek_sink_extents(const struct ek_ind_sink *sink, ek_blk_t goal, uint64_t n, const char *what,
		    struct ek_ext **out, size_t *nout)
{
	struct ek_ext *v = NULL;
	size_t nv = 0, cap = 0;
	uint64_t lblk = 0;
	int err = 0;

	while (lblk < n && !err) {
		uint64_t want = n - lblk < EXT_INIT_MAX_LEN ? n - lblk : EXT_INIT_MAX_LEN, got;
		struct ek_ext e = { .lblk = (uint32_t)lblk };

		err = sink->alloc(sink->arg, goal, want, &e.pblk, &got);
		if (!err && (!got || got > want))
			err = ek_err(-EINVAL, "%s: %llu blocks allocated for %llu", what,
				     (unsigned long long)got, (unsigned long long)want);
		if (err)
			break;
		e.len = (uint32_t)got;
		if (nv && v[nv - 1].pblk + v[nv - 1].len == e.pblk &&
		    (uint64_t)v[nv - 1].len + e.len <= EXT_INIT_MAX_LEN)
			v[nv - 1].len += e.len;
		else
			err = ek_ext_append(&v, &nv, &cap, &e);
		goal = e.pblk + got;
		lblk += got;
	}
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*nout = nv;
	return 0;
}

/*
 * A new internal journal in inode 8, as libext2fs's mkjournal makes one
 * (e2fsck's "Recreate journal", mkfs's make_journal): a regular file of
 * mode 0600 and @blocks blocks (@fc_blocks of them fast-commit blocks),
 * mapped from @goal on through @sink (extents with the extents feature,
 * else an indirect map laid out as mke2fs does), its first block an
 * empty version 2 journal superblock with the filesystem's UUID.  The
 * inode and the journal superblock go into @ws; the other data blocks are
 * not written: *@out (malloc'd, caller frees) lists the physical extents
 * for the caller to zero.  The superblock is left alone: ek_fix_journal_on
 * turns the journal on once all this is written.
 */
int ek_fix_journal_inode(struct ek_wset *ws, uint64_t blocks, uint32_t fc_blocks, ek_blk_t goal,
			 const struct ek_ind_sink *sink, int64_t now, struct ek_ext **out,
			 size_t *nout)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_timespec ts = { .sec = now };
	struct ek_ext run = { .lblk = 0, .len = (uint32_t)blocks }, *v = NULL;
	size_t nv = 0;
	uint8_t *raw, *jsb = NULL;
	int err;

	*out = NULL;
	*nout = 0;
	if (blocks < 1024 || blocks > 0xFFFFFFFFull || fc_blocks >= blocks)
		return ek_err(-EINVAL, "a journal of %llu blocks", (unsigned long long)blocks);
	err = ek_wset_inode(ws, EXT4_JOURNAL_INO, &raw);
	if (err)
		return err;
	ek_inode_init_new(fs, raw, 0100600, 1, ts, true);
	ek_inode_size_set(raw, blocks * fs->blksz);
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		struct ek_sink_tree t = { .sink = sink };
		struct ek_tree_sink ts2 = ek_sink_tree(&t);

		err = ek_sink_extents(sink, goal, blocks, "journal", &v, &nv);
		if (!err) {
			put_le32(raw + offsetof(struct ext4_inode, i_flags), EXT4_EXTENTS_FL);
			t.goal = v[0].pblk > 1 ? v[0].pblk - 1 : 0;	/* the tree just before */
			err = ek_extent_tree_write(fs, EXT4_JOURNAL_INO, raw, v, nv, &ts2);
		}
		if (!err) {
			ek_extent_root_grown(raw, v, nv);	/* as mkjournal grows it */
			ek_inode_add_blocks(fs, raw, (int64_t)(blocks + t.blocks));
		}
	} else {
		err = ek_ind_map_write(fs, raw, &run, 1, goal, sink, &v, &nv);
	}
	if (!err && !(jsb = ek_calloc(1, fs->blksz)))
		err = -ENOMEM;
	if (!err) {
		struct ek_jsb j = { .version = 2, .blocksize = fs->blksz, .maxlen = (uint32_t)blocks,
				    .first = 1, .sequence = 1, .nr_users = 1,
				    .num_fc_blks = fc_blocks };

		memcpy(j.uuid, fs->raw_sb->s_uuid, 16);
		ek_jsb_encode(&j, jsb);
		err = ek_wset_put(ws, v[0].pblk, jsb);
	}
	free(jsb);
	if (err) {
		free(v);
		return err;
	}
	ek_inode_csum_set(fs, EXT4_JOURNAL_INO, raw);
	*out = v;
	*nout = nv;
	return 0;
}

/*
 * The journal of inode 8 (written by ek_fix_journal_inode) turned on in
 * the superblock: has_journal, s_journal_inum, and the backup of its
 * i_block and size in s_jnl_blocks, as mke2fs leaves them.
 */
int ek_fix_journal_on(struct ek_wset *ws)
{
	struct ext4_super_block *sb = ek_wset_super(ws);
	struct ek_fs *fs = ek_wset_fs(ws);
	uint64_t size;
	uint8_t *raw;
	int err;

	if (!sb)
		return -ENOMEM;
	err = ek_wset_inode(ws, EXT4_JOURNAL_INO, &raw);
	if (err)
		return err;
	size = ek_inode_size(fs, raw);
	if (!(get_le16(raw + offsetof(struct ext4_inode, i_mode)) & 0100000) || size < 1024ull * fs->blksz)
		return ek_corrupt_ino(EXT4_JOURNAL_INO, "the journal inode holds no journal");
	sb->s_feature_compat |= cpu_to_le32(EXT4_FEATURE_COMPAT_HAS_JOURNAL);
	sb->s_journal_inum = cpu_to_le32(EXT4_JOURNAL_INO);
	sb->s_journal_dev = 0;
	memset(sb->s_journal_uuid, 0, sizeof(sb->s_journal_uuid));
	sb->s_jnl_backup_type = 1;	/* EXT3_JNL_BACKUP_BLOCKS */
	memcpy(sb->s_jnl_blocks, raw + offsetof(struct ext4_inode, i_block), EXT4_N_BLOCKS * 4);
	sb->s_jnl_blocks[15] = cpu_to_le32((uint32_t)(size >> 32));
	sb->s_jnl_blocks[16] = cpu_to_le32((uint32_t)size);
	dynamic_rev(sb);
	return 0;
}
