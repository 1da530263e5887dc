// SPDX-License-Identifier: MIT
/*
 * repair.c - the fixes extkit-fsck applies, and the commit of a pass's fixes.
 *
 * As e2fsck, a fix is applied where its finding is detected (fsck.c calls
 * one of these): it edits the blocks concerned inside a write set (wset.c)
 * through the object's codec (inode.c's field setters and checksum,
 * dir.c's entry setters and block checksums, xattr.c's header, group.c's
 * descriptor fields).  Nothing reaches the image until the checker commits
 * the set at the end of a pass (ek_repair_commit): sealed (bitmap,
 * descriptor and superblock checksums), then logged through the journal
 * as jbd2 transactions of our own (jcommit.c: a kill at any write leaves
 * an image that any replay completes), or, without a journal, written in
 * order (below).  Then the library's cached view is read again, so the
 * next pass sees the repaired image.
 *
 * Without a journal nothing makes a pass's writes atomic; they are made
 * in an order (ek_wset_write_ordered) in which each block is written only
 * after the blocks it points at, and a block is freed only after nothing
 * points at it, with a flush (fdatasync) between the stages, so that a cut
 * anywhere leaves what a rerun of extkit-fsck -fy repairs into the image
 * an uncut run leaves.  The stages, and what a cut in or after each leaves:
 *   1. blocks the set takes into use (free in the image's bitmap: clones of
 *      multiply-claimed blocks, new directory, extent and lost+found
 *      blocks).  Free space only changes: the image is the one the pass
 *      read, and the rerun finds the same damage and makes the same fixes.
 *   2. the bitmaps with the set's new bits set and no bit cleared, then
 *      the descriptors of those groups (free counts and bitmap checksums
 *      of these bitmaps, UNINIT flags cleared).  A cut here leaves blocks
 *      and inodes marked in use that nothing names (a torn pair, a bitmap
 *      whose checksum its old descriptor does not match): findings of
 *      pass 5 that the rerun fixes, by freeing them; it then allocates
 *      them again.  Nothing in use is ever marked free, so nothing can be
 *      handed out twice before the rerun.
 *   3. the blocks in use that change and point at others (extent and
 *      index blocks, directory, xattr and indirect blocks, quota...), then
 *   4. the inode-table blocks, the roots that make the rest reachable.
 *      Each points only at blocks already written and marked in use, or
 *      still at the old ones, which stay marked in use; a cut leaves some
 *      of the pass's fixes made and others not (a fix spread over several
 *      blocks, such as a rewritten extent tree or a directory named by an
 *      entry before its inode is written, half made): damage of the same
 *      kinds the pass fixed, which the rerun fixes again, the blocks the
 *      old pointers used left marked in use for its pass 5 to free.
 *   5. the bitmaps with the bits the set clears (blocks and inodes the
 *      pass freed: nothing points at them any more), then
 *   6. the descriptors as the set leaves them, then
 *   7. the superblock.  A cut before it leaves only counts (and a
 *      checksum of a bitmap its descriptor does not hold yet) that the
 *      rerun sets; the superblock is the last write of a pass.
 * The same fixes are computed from what the image holds, so the rerun
 * ends where the uncut run ends (tests/img/560 cuts at every write).
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define IOFF(f) offsetof(struct ext4_inode, f)

/* xattr block @blk inside the set, its magic checked */
static int xattr_block_in_set(struct ek_wset *ws, ek_blk_t blk, uint8_t **b)
{
	int err = ek_wset_block(ws, blk, b);

	if (err)
		return err;
	if (get_le32(*b) != EXT4_XATTR_MAGIC)
		return ek_corrupt(blk, "xattr block: bad magic 0x%08x", get_le32(*b));
	return 0;
}

int ek_fix_xattr_refcount(struct ek_wset *ws, ek_blk_t blk, uint32_t refs)
{
	uint8_t *b;
	int err = xattr_block_in_set(ws, blk, &b);

	if (!err)
		ek_xattr_block_refcount_set(ek_wset_fs(ws), blk, b, refs);
	return err;
}

int ek_fix_xattr_block_csum(struct ek_wset *ws, ek_blk_t blk)
{
	uint8_t *b;
	int err = xattr_block_in_set(ws, blk, &b);

	if (!err)
		ek_xattr_block_csum_set(ek_wset_fs(ws), blk, b);
	return err;
}

/* the set's copy of the directory block holding @de, its checksum state in *@csum_ok */
static int dirent_block(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de,
			uint8_t **out, bool *csum_ok)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	ek_blk_t pblk;
	bool unwritten;
	int err;

	if (ek_inode_has_inline(dir))
		return ek_err(-EK_UNSUPP, "directory inode %u: entries of an inline directory "
			      "are not repaired yet", dir->ino);
	err = ek_map_bmap(fs, dir, de->lblk, &pblk, &unwritten);
	if (err)
		return err;
	if (!pblk)
		return ek_corrupt_ino(dir->ino, "directory block %llu is a hole",
				      (unsigned long long)de->lblk);
	err = ek_wset_block(ws, pblk, out);
	if (err)
		return err;
	if (de->offset + 8 > fs->blksz)
		return ek_corrupt(pblk, "directory inode %u: entry offset %u", dir->ino, de->offset);
	*csum_ok = ek_dir_block_csum_ok(fs, dir, de->lblk, *out);
	return 0;
}

int ek_fix_dirent_type(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de,
		       uint8_t type)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	bool ok;
	uint8_t *b;
	int err;

	if (ek_inode_has_inline(dir))
		return ek_fix_inline_dirent(ws, dir, de, type);
	err = dirent_block(ws, dir, de, &b, &ok);
	if (err)
		return err;
	ek_dirent_set_type(fs, b, de->offset, type);
	if (ok)	/* a block that failed its checksum keeps failing it */
		ek_dir_block_reseal(fs, dir, de->lblk, b);
	return 0;
}

int ek_fix_dirent_clear(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint32_t off = 0, prev = UINT32_MAX;
	bool ok;
	uint8_t *b;
	int err;

	if (ek_inode_has_inline(dir))
		return ek_fix_inline_dirent(ws, dir, de, -1);
	err = dirent_block(ws, dir, de, &b, &ok);
	if (err)
		return err;
	/* the entry before it (the walk checked these entries) */
	while (off < de->offset) {
		uint32_t rl = ek_rec_len_from_disk(get_le16(b + off + 4), fs->blksz);

		if (rl < 12 || rl > de->offset - off)
			break;
		prev = off;
		off += rl;
	}
	if (off != de->offset)
		return ek_corrupt_ino(dir->ino, "directory block %llu: no entry ends at offset %u",
				      (unsigned long long)de->lblk, de->offset);
	if (prev == UINT32_MAX) {
		ek_dirent_set_ino(b, off, 0);	/* the first of its block: unused, as the kernel */
	} else {
		uint32_t prl = ek_rec_len_from_disk(get_le16(b + prev + 4), fs->blksz);

		ek_dirent_set_rec_len(fs, b, prev, prl + de->rec_len);
	}
	if (ok)
		ek_dir_block_reseal(fs, dir, de->lblk, b);
	return 0;
}

int ek_fix_dotdot(struct ek_wset *ws, ek_ino_t dir, ek_ino_t parent)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ek_inode ei;
	struct ek_dirent de = { .lblk = 0 };
	uint32_t rl;
	uint8_t *b;
	bool ok;
	int err = ek_inode_read(fs, dir, &ei);

	if (err && err != -EK_BADCRC)
		goto out;
	if (ek_inode_has_inline(&ei)) {
		uint8_t *raw;

		/* an inline directory keeps its parent in the first 4 bytes of i_block */
		err = ek_wset_inode(ws, dir, &raw);
		if (!err) {
			put_le32(raw + IOFF(i_block), (uint32_t)parent);
			ek_inode_csum_set(fs, dir, raw);
		}
		goto out;
	}
	err = dirent_block(ws, &ei, &de, &b, &ok);
	if (err)
		goto out;
	rl = ek_rec_len_from_disk(get_le16(b + 4), fs->blksz);
	if (rl < 12 || rl > fs->blksz - 12 || b[rl + 6] != 2 || memcmp(b + rl + 8, "..", 2)) {
		err = ek_corrupt_ino(dir, "directory has no '..' entry after '.'");
		goto out;
	}
	ek_dirent_set_ino(b, rl, parent);
	/* as e2fsck's fix_dotdot_proc(): '..' names a directory */
	if (parent)
		ek_dirent_set_type(fs, b, rl, EXT4_FT_DIR);
	if (ok)
		ek_dir_block_reseal(fs, &ei, 0, b);
out:
	ek_inode_release(&ei);
	return err;
}

int ek_fix_group_bitmap(struct ek_wset *ws, uint32_t g, bool inode, const uint8_t *map,
			uint64_t nbits)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	uint8_t *b, *d;
	int64_t last = -1;
	int err = ek_wset_bitmap(ws, g, inode, &b);

	if (err)
		return err;
	for (uint64_t i = 0; i < nbits; i++) {
		if (ek_bit_test(map, i)) {
			b[i >> 3] |= 1u << (i & 7);
			last = (int64_t)i;
		} else {
			b[i >> 3] &= ~(1u << (i & 7));
		}
	}
	if (!inode || !(fs->has_csum || fs->has_gdt_csum))
		return 0;
	/* the inode table is in use at least up to the last inode in use */
	err = ek_wset_desc(ws, g, &d);
	if (!err && ek_gd_get(fs, d, EK_GD_ITABLE_UNUSED) > fs->sb.inodes_per_group - (last + 1))
		ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, fs->sb.inodes_per_group - (uint64_t)(last + 1));
	return err;
}

int ek_fix_group_count(struct ek_wset *ws, uint32_t g, enum ek_gd_field f, uint32_t v)
{
	uint8_t *d;
	int err = ek_wset_desc(ws, g, &d);

	if (!err)
		ek_gd_set(ek_wset_fs(ws), d, f, v);
	return err;
}

int ek_fix_super_counts(struct ek_wset *ws, uint64_t free_blocks, uint32_t free_inodes)
{
	struct ext4_super_block *sb = ek_wset_super(ws);

	if (!sb)
		return -ENOMEM;
	ek_sb_set(sb, EK_SB_FREE_BLOCKS_COUNT, free_blocks);
	sb->s_free_inodes_count = cpu_to_le32(free_inodes);
	return 0;
}

/* the most blocks one transaction of @j can carry, the superblock's included */
static size_t tx_capacity(const struct ek_journal *j)
{
	struct ek_jfmt f;
	uint64_t log = j->sb.last - j->sb.first, per;

	ek_jfmt_init(&f, &j->sb);
	per = ek_jdesc_capacity(&f);
	/* test hook: EK_TEST_JOURNAL_LOG=N takes the log as N blocks long, so a
	 * small image's set is split into several transactions */
	if (getenv("EK_TEST_JOURNAL_LOG")) {
		uint64_t n = strtoull(getenv("EK_TEST_JOURNAL_LOG"), NULL, 10);

		if (n && n < log)
			log = n;
	}
	/* ceil(n / per) descriptors + n blocks + a commit block <= log */
	if (!per || log < 3)
		return 0;
	return (size_t)((log - 2) * per / (per + 1));
}

/* commit @ws through @j as transactions of at most @cap blocks each */
static int commit_split(struct ek_fs *fs, struct ek_wset *ws, struct ek_journal *j, int64_t now,
			size_t cap, unsigned *ntx)
{
	size_t n = ek_wset_count(ws);
	int err = ek_wset_sort(ws);

	/* each transaction carries the superblock too (needs_recovery goes in it) */
	if (cap < 2)
		return ek_err(-ENOSPC, "journal: the log is too small for a transaction");
	for (size_t first = 0; first < n && !err; first += cap - 1) {
		struct ek_wset *sub;

		err = ek_wset_init(fs, &sub);
		for (size_t i = first; i < n && i < first + cap - 1 && !err; i++) {
			ek_blk_t blk;
			const uint8_t *buf;

			ek_wset_entry(ws, i, &blk, &buf);
			err = ek_wset_put(sub, blk, buf);
		}
		if (!err)
			err = ek_journal_commit_wset(j, sub, now);
		if (!err)
			(*ntx)++;
		ek_wset_free(sub);
	}
	return err;
}

int ek_repair_commit(struct ek_wset **wsp, struct ek_journal *j, int64_t now, unsigned *ntx)
{
	struct ek_wset *ws = *wsp;
	struct ek_fs *fs = ek_wset_fs(ws);
	int err;

	*ntx = 0;
	if (!ek_wset_count(ws))
		return 0;
	err = ek_wset_seal(ws);
	/* a set whose blocks all hold what the image holds (descriptors
	 * touched and set back) writes nothing: no transaction, no write */
	if (!err) {
		err = ek_wset_unchanged(ws);
		if (err == 1)
			goto refresh;
	}
	if (!err && j) {
		size_t cap = tx_capacity(j);

		if (ek_wset_count(ws) + 1 <= cap) {
			err = ek_journal_commit_wset(j, ws, now);
			if (!err)
				*ntx = 1;
		} else {
			err = commit_split(fs, ws, j, now, cap, ntx);
		}
	} else if (!err) {
		err = ek_wset_write_ordered(ws);
	}
	if (err)
		return err;
refresh:
	err = ek_fs_refresh(fs);
	if (err)
		return err;
	*wsp = NULL;
	err = ek_wset_init(fs, wsp);
	if (!err)
		ek_wset_carry(*wsp, ws);	/* frees held back stay held */
	ek_wset_free(ws);
	return err;
}

/* ---- dirfix: entries of pass 2 ---- */

/* the name of entry @de rewritten in its block by @fix */
static int dirent_rename(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de,
			 void (*fix)(uint8_t *name, uint8_t name_len))
{
	struct ek_fs *fs = ek_wset_fs(ws);
	bool ok;
	uint8_t *b;
	int err = dirent_block(ws, dir, de, &b, &ok);

	if (err)
		return err;
	if (de->offset + 8 + (uint32_t)de->name_len > fs->blksz || b[de->offset + 6] != de->name_len)
		return ek_corrupt_ino(dir->ino, "directory block %llu: no entry of %u bytes at offset %u",
				      (unsigned long long)de->lblk, de->name_len, de->offset);
	fix(b + de->offset + 8, de->name_len);
	if (ok)
		ek_dir_block_reseal(fs, dir, de->lblk, b);
	return 0;
}

int ek_fix_dirent_name(struct ek_wset *ws, const struct ek_inode *dir, const struct ek_dirent *de)
{
	return dirent_rename(ws, dir, de, ek_dirent_name_fix);
}

int ek_fix_dirent_encoding(struct ek_wset *ws, const struct ek_inode *dir,
			   const struct ek_dirent *de)
{
	return dirent_rename(ws, dir, de, ek_dirent_name_fix_encoding);
}
