// SPDX-License-Identifier: MIT
/*
 * map.c - logical to physical block mapping: extent trees and indirect
 * block maps, and file content reading on top of them.
 *
 * Extent tree (EXT4_EXTENTS_FL): the root is in i_block (60 bytes: a
 * 12-byte header and up to 4 entries); interior nodes hold ext4_extent_idx,
 * leaves ext4_extent.  Each non-root node is one block ending in an
 * ext4_extent_tail checksum (crc32c seeded per inode) after eh_max entries.
 * Depth strictly decreases on the way down (<= 5; ek_map_walk_deep, for
 * fsck's rebuild, <= EK_EXT_DEEP_MAX), so a walk terminates;
 * a node block met twice means a shared or looping tree and is refused.
 *
 * Indirect map (ext2/ext3): i_block[0..11] direct, [12] single, [13]
 * double, [14] triple indirect; 0 is a hole.  Logical blocks stop at 2^32.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define EK_MAX_LBLK (1ull << 32)

struct walk {
	struct ek_fs *fs;
	const struct ek_inode *ei;
	ek_map_fn fn;
	void *arg;
	ek_map_bad_fn bad;	/* NULL: a bad entry stops the walk */
	struct ek_set seen;	/* tree blocks met so far */
	int badcrc;		/* first checksum error, reported at the end */
	unsigned max_depth;	/* of an extent tree: the kernel's, or EK_EXT_DEEP_MAX */
	uint8_t *buf[EK_EXT_DEEP_MAX + 1];	/* one node buffer per level */
	unsigned nbuf;		/* buf[0..nbuf) may be allocated, the rest are NULL */
	/* indirect: the pending data run */
	struct ek_mapping run;
};

static int emit(struct walk *w, enum ek_map_kind kind, unsigned level, uint64_t lblk,
		uint64_t len, ek_blk_t pblk, bool unwritten)
{
	struct ek_mapping m = { kind, level, lblk, len, pblk, unwritten };

	return w->fn(w->arg, &m);
}

/*
 * Bad entry @err met: without a bad callback the walk stops with it;
 * with one, the callback says (0) to go on without the entry.
 */
static int bad(struct walk *w, int err, enum ek_map_bad_kind kind, ek_blk_t node, unsigned slot,
	       unsigned level, uint64_t lblk, uint64_t len, ek_blk_t pblk)
{
	struct ek_map_bad b = { kind, err, node, slot, level, lblk, len, pblk };

	if (!w->bad || (err != -EK_CORRUPT && err != -EK_BADCRC))
		return err;
	return w->bad(w->arg, &b);
}

/* the node buffer of @level, allocated on first use (most files have no tree blocks) */
static uint8_t *level_buf(struct walk *w, unsigned level)
{
	if (!w->buf[level]) {
		w->buf[level] = ek_malloc(w->fs->blksz);
		if (level >= w->nbuf)
			w->nbuf = level + 1;
	}
	return w->buf[level];
}

/* read a tree block not seen before in this walk */
static int read_tree_block(struct walk *w, ek_blk_t blk, uint8_t *buf, const char *what)
{
	int r;

	if (!ek_fs_block_valid(w->fs, blk))
		return ek_corrupt_ino(w->ei->ino, "%s block %llu outside the filesystem",
				      what, (unsigned long long)blk);
	r = ek_set_add(&w->seen, blk);
	if (r < 0)
		return r;
	if (r)
		return ek_corrupt_ino(w->ei->ino, "%s block %llu referenced twice (loop or shared tree)",
				      what, (unsigned long long)blk);
	return ek_fs_read_blocks(w->fs, blk, 1, buf);
}

/* ---- extent trees ------------------------------------------------------ */

static int ext_verify_csum(struct walk *w, ek_blk_t blk, const uint8_t *buf, unsigned slot,
			   ek_blk_t parent, uint32_t lblk)
{
	const struct ext4_extent_header *eh = (const void *)buf;
	size_t off = sizeof(*eh) + (size_t)le16_to_cpu(eh->eh_max) * sizeof(struct ext4_extent);
	uint32_t want, got;

	if (!w->fs->has_csum || off + 4 > w->fs->blksz)
		return 0;
	want = get_le32(buf + off);
	got = ek_ext_block_csum(w->fs, w->ei->ino, w->ei->generation, buf);
	if (want == got)
		return 0;
	if (w->bad) {
		const struct ext4_extent_header *h = (const void *)buf;

		return bad(w, ek_badcrc(blk, "inode %u: extent block %llu checksum 0x%08x does not "
					"match 0x%08x", w->ei->ino, (unsigned long long)blk, want, got),
			   EK_MAPBAD_CSUM, parent, slot, le16_to_cpu(h->eh_depth), lblk, 1, blk);
	}
	if (!w->badcrc)
		w->badcrc = ek_badcrc(blk, "inode %u: extent block checksum 0x%08x does not match 0x%08x",
				      w->ei->ino, want, got);
	return 0;
}

/*
 * Walk extent node @node (@blk, 0: the root in i_block); the root's header
 * is checked here, a child's by its parent before the child is claimed
 * (EK_MAP_TREE), so a bad child is one bad index entry.
 */
static int ext_walk_node(struct walk *w, const uint8_t *node, size_t size, ek_blk_t blk)
{
	const struct ext4_extent_header *eh = (const void *)node;
	uint16_t entries;
	unsigned d;
	uint64_t next = 0;	/* entries must be in increasing logical order */
	int err = 0;

	if (!blk)
		err = ek_ext_node_check_depth(w->ei->ino, blk, eh, size, -1, w->max_depth);
	if (err)
		return err;
	entries = le16_to_cpu(eh->eh_entries);
	d = le16_to_cpu(eh->eh_depth);

	for (unsigned i = 0; i < entries; i++) {
		const uint8_t *p = node + sizeof(*eh) + i * sizeof(struct ext4_extent);

		if (d == 0) {
			struct ek_ext e = ek_ext_decode(p);
			uint32_t lblk = e.lblk, len = e.len;
			ek_blk_t pblk = e.pblk;
			int why = 0;

			if (len == 0)
				why = ek_corrupt_ino(w->ei->ino, "extent %u in block %llu has length 0",
						     i, (unsigned long long)blk);
			else if (lblk < next)
				why = ek_corrupt_ino(w->ei->ino, "extent %u in block %llu: logical block %u overlaps or is out of order",
						     i, (unsigned long long)blk, lblk);
			else if (!ek_fs_range_valid(w->fs, pblk, len))
				why = ek_corrupt_ino(w->ei->ino, "extent %u (logical %u, %u blocks) points outside the filesystem at %llu",
						     i, lblk, len, (unsigned long long)pblk);
			if (why) {
				err = bad(w, why, EK_MAPBAD_EXTENT, blk, i, 0, lblk, len, pblk);
				if (err)
					return err;
				continue;	/* skipped: @next stays */
			}
			next = (uint64_t)lblk + len;
			err = emit(w, EK_MAP_DATA, 0, lblk, len, pblk, e.unwritten);
		} else {
			const struct ext4_extent_idx *ix = (const void *)p;
			uint32_t lblk = le32_to_cpu(ix->ei_block);
			ek_blk_t child = ek_ext_idx_child(p);
			uint8_t *cbuf = level_buf(w, d - 1);
			enum ek_map_bad_kind kind = EK_MAPBAD_INDEX;

			if (!cbuf)
				return -ENOMEM;
			if (i > 0 && lblk < next)
				err = ek_corrupt_ino(w->ei->ino, "extent index %u in block %llu out of order",
						     i, (unsigned long long)blk);
			if (!err)
				err = read_tree_block(w, child, cbuf, "extent tree");
			if (!err)
				err = ek_ext_node_check_depth(w->ei->ino, child, cbuf, w->fs->blksz,
							      (int)d - 1, w->max_depth);
			if (!err) {
				err = ek_ext_node_check_start(w->ei->ino, child, cbuf, lblk);
				kind = EK_MAPBAD_START;
			}
			if (err) {
				err = bad(w, err, kind, blk, i, d, lblk, 0, child);
				if (err)
					return err;
				if (kind == EK_MAPBAD_INDEX)
					continue;	/* skipped, with what it leads to */
				/* a start that does not match: the subtree is walked */
			}
			next = (uint64_t)lblk + 1;
			err = emit(w, EK_MAP_INDEX, d, lblk, 0, child, false);
			if (err)
				return err;
			err = emit(w, EK_MAP_TREE, d - 1, lblk, 1, child, false);
			if (err)
				return err;
			err = ext_verify_csum(w, child, cbuf, i, blk, lblk);
			if (err)
				return err;
			err = ext_walk_node(w, cbuf, w->fs->blksz, child);
		}
		if (err)
			return err;
	}
	return 0;
}

/* ---- indirect maps ----------------------------------------------------- */

static int ind_flush(struct walk *w)
{
	int err = 0;

	if (w->run.len)
		err = w->fn(w->arg, &w->run);
	w->run.len = 0;
	return err;
}

/* data block @pblk for @lblk, named in slot @slot of @node (0: i_block) */
static int ind_data(struct walk *w, uint64_t lblk, ek_blk_t pblk, ek_blk_t node, unsigned slot)
{
	if (!ek_fs_block_valid(w->fs, pblk))
		return bad(w, ek_corrupt_ino(w->ei->ino, "logical block %llu maps outside the "
					     "filesystem to %llu", (unsigned long long)lblk,
					     (unsigned long long)pblk),
			   EK_MAPBAD_IND, node, slot, 0, lblk, 1, pblk);
	if (w->run.len && w->run.lblk + w->run.len == lblk && w->run.pblk + w->run.len == pblk) {
		w->run.len++;
		return 0;
	}
	int err = ind_flush(w);

	w->run = (struct ek_mapping){ EK_MAP_DATA, 0, lblk, 1, pblk, false };
	return err;
}

/* walk an indirect block of @level (1 = single) covering logical blocks
 * from @lblk, named in slot @slot of @node (0: i_block) */
static int ind_walk(struct walk *w, ek_blk_t blk, unsigned level, uint64_t lblk, ek_blk_t node,
		    unsigned slot)
{
	uint32_t per = w->fs->blksz / 4;
	uint64_t span = 1;
	uint8_t *buf = level_buf(w, level);
	int err;

	if (!buf)
		return -ENOMEM;
	for (unsigned i = 1; i < level; i++)
		span *= per;
	err = ind_flush(w);
	if (err)
		return err;
	err = read_tree_block(w, blk, buf, "indirect");
	if (err)	/* skipped, with what it leads to */
		return bad(w, err, EK_MAPBAD_IND, node, slot, level, lblk, 0, blk);
	err = emit(w, EK_MAP_TREE, level, lblk, 1, blk, false);
	if (err)
		return err;
	for (uint32_t i = 0; i < per && lblk + i * span < EK_MAX_LBLK; i++) {
		ek_blk_t p = get_le32(buf + 4 * i);

		if (!p)
			continue;
		err = level == 1 ? ind_data(w, lblk + i, p, blk, i) :
				   ind_walk(w, p, level - 1, lblk + i * span, blk, i);
		if (err)
			return err;
		/* our buffer for this level is reused by siblings only, not children */
	}
	return 0;
}

static int ind_walk_inode(struct walk *w)
{
	const __le32 *ib = ek_inode_i_block(w->ei);
	uint32_t per = w->fs->blksz / 4;
	uint64_t lblk = EXT4_NDIR_BLOCKS, span = per;
	int err;

	for (unsigned i = 0; i < EXT4_NDIR_BLOCKS; i++) {
		ek_blk_t p = le32_to_cpu(ib[i]);

		if (p && (err = ind_data(w, i, p, 0, i)))
			return err;
	}
	for (unsigned level = 1; level <= 3 && lblk < EK_MAX_LBLK; level++) {
		ek_blk_t p = le32_to_cpu(ib[EXT4_IND_BLOCK + level - 1]);

		if (p && (err = ind_walk(w, p, level, lblk, 0, EXT4_IND_BLOCK + level - 1)))
			return err;
		lblk += span;
		span *= per;
	}
	return ind_flush(w);
}

/* ---- entry points ------------------------------------------------------ */

static bool has_block_map(const struct ek_fs *fs, const struct ek_inode *ei)
{
	if (ei->flags & EXT4_INLINE_DATA_FL)
		return false;
	if (ek_is_chr(ei->mode) || ek_is_blk(ei->mode) || ek_is_fifo(ei->mode) ||
	    ek_is_sock(ei->mode))
		return false;
	return !ek_inode_is_fast_symlink(fs, ei);
}

int ek_map_walk(struct ek_fs *fs, const struct ek_inode *ei, ek_map_fn fn, void *arg)
{
	return ek_map_walk_checked(fs, ei, fn, NULL, arg);
}

static int walk_map(struct ek_fs *fs, const struct ek_inode *ei, ek_map_fn fn,
		    ek_map_bad_fn badfn, void *arg, unsigned max_depth)
{
	struct walk w = { .fs = fs, .ei = ei, .fn = fn, .bad = badfn, .arg = arg,
			  .max_depth = max_depth };
	int err = 0;

	if (!has_block_map(fs, ei))
		return 0;
	if (ei->flags & EXT4_EXTENTS_FL)
		err = ext_walk_node(&w, (const uint8_t *)ek_inode_i_block(ei), EXT4_N_BLOCKS * 4, 0);
	else
		err = ind_walk_inode(&w);
	if (!err)
		err = w.badcrc;
	for (unsigned i = 0; i < w.nbuf; i++)
		free(w.buf[i]);
	ek_set_release(&w.seen);
	return err;
}

int ek_map_walk_checked(struct ek_fs *fs, const struct ek_inode *ei, ek_map_fn fn,
			ek_map_bad_fn badfn, void *arg)
{
	return walk_map(fs, ei, fn, badfn, arg, EXT4_EXT_MAX_DEPTH);
}

int ek_map_walk_deep(struct ek_fs *fs, const struct ek_inode *ei, ek_map_fn fn,
		     ek_map_bad_fn badfn, void *arg)
{
	return walk_map(fs, ei, fn, badfn, arg, EK_EXT_DEEP_MAX);
}

/* direct lookup down an extent tree: binary search per level */
static int ext_bmap(struct ek_fs *fs, const struct ek_inode *ei, uint64_t lblk,
		    ek_blk_t *pblk, bool *unwritten)
{
	uint8_t *buf = NULL;
	const uint8_t *node = (const uint8_t *)ek_inode_i_block(ei);
	size_t size = EXT4_N_BLOCKS * 4;
	ek_blk_t blk = 0;
	int depth = -1, err;
	int64_t start = -1;	/* the parent index entry's start (-1: the root) */

	*pblk = 0;
	for (;;) {
		const struct ext4_extent_header *eh = (const void *)node;
		unsigned lo = 0, hi, d;

		err = ek_ext_node_check(ei->ino, blk, eh, size, depth);
		if (!err && start >= 0)
			err = ek_ext_node_check_start(ei->ino, blk, node, (uint32_t)start);
		if (err)
			break;
		d = le16_to_cpu(eh->eh_depth);
		hi = le16_to_cpu(eh->eh_entries);
		if (hi == 0)
			break;
		/* last entry whose first logical block <= lblk */
		while (hi - lo > 1) {
			unsigned mid = (lo + hi) / 2;

			if (get_le32(node + 12 + 12 * mid) <= lblk)
				lo = mid;
			else
				hi = mid;
		}
		const uint8_t *p = node + 12 + 12 * lo;

		if (d == 0) {
			struct ek_ext e = ek_ext_decode(p);
			uint32_t first = e.lblk, len = e.len;
			ek_blk_t start = e.pblk;

			if (lblk >= first && lblk < (uint64_t)first + len) {
				if (!ek_fs_range_valid(fs, start, len)) {
					err = ek_corrupt_ino(ei->ino, "extent at logical %u points outside the filesystem at %llu",
							     first, (unsigned long long)start);
					break;
				}
				*pblk = start + (lblk - first);
				if (unwritten)
					*unwritten = e.unwritten;
			}
			break;
		}
		const struct ext4_extent_idx *ix = (const void *)p;

		blk = ek_ext_idx_child(p);
		if (le32_to_cpu(ix->ei_block) > lblk)
			break;	/* before the first index: a hole */
		if (!ek_fs_block_valid(fs, blk)) {
			err = ek_corrupt_ino(ei->ino, "extent tree block %llu outside the filesystem",
					     (unsigned long long)blk);
			break;
		}
		if (!buf && !(buf = ek_malloc(fs->blksz))) {
			err = -ENOMEM;
			break;
		}
		err = ek_fs_read_blocks(fs, blk, 1, buf);
		if (err)
			break;
		node = buf;
		size = fs->blksz;
		depth = d - 1;
		start = le32_to_cpu(ix->ei_block);
	}
	free(buf);
	return err;
}

static int ind_bmap(struct ek_fs *fs, const struct ek_inode *ei, uint64_t lblk, ek_blk_t *pblk)
{
	const __le32 *ib = ek_inode_i_block(ei);
	uint32_t per = fs->blksz / 4;
	uint64_t span = 1, first = EXT4_NDIR_BLOCKS;
	unsigned level;
	ek_blk_t blk;
	uint8_t *buf;
	int err = 0;

	*pblk = 0;
	if (lblk < EXT4_NDIR_BLOCKS) {
		blk = le32_to_cpu(ib[lblk]);
		goto check;
	}
	for (level = 1; level <= 3; level++) {
		span *= per;
		if (lblk - first < span)
			break;
		first += span;
	}
	if (level > 3 || lblk >= EK_MAX_LBLK)
		return 0;
	blk = le32_to_cpu(ib[EXT4_IND_BLOCK + level - 1]);
	buf = ek_malloc(fs->blksz);
	if (!buf)
		return -ENOMEM;
	lblk -= first;
	for (; level > 0 && blk; level--) {
		span /= per;
		if (!ek_fs_block_valid(fs, blk)) {
			err = ek_corrupt_ino(ei->ino, "indirect block %llu outside the filesystem",
					     (unsigned long long)blk);
			break;
		}
		err = ek_fs_read_blocks(fs, blk, 1, buf);
		if (err)
			break;
		blk = get_le32(buf + 4 * (lblk / span));
		lblk %= span;
	}
	free(buf);
	if (err)
		return err;
check:
	if (blk && !ek_fs_block_valid(fs, blk))
		return ek_corrupt_ino(ei->ino, "data block %llu outside the filesystem",
				      (unsigned long long)blk);
	*pblk = blk;
	return 0;
}

int ek_map_bmap(struct ek_fs *fs, const struct ek_inode *ei, uint64_t lblk,
		ek_blk_t *pblk, bool *unwritten)
{
	if (unwritten)
		*unwritten = false;
	*pblk = 0;
	if (!has_block_map(fs, ei) || lblk >= EK_MAX_LBLK)
		return 0;
	if (ei->flags & EXT4_EXTENTS_FL)
		return ext_bmap(fs, ei, lblk, pblk, unwritten);
	return ind_bmap(fs, ei, lblk, pblk);
}

/*
 * Writing an indirect map, as mke2fs lays one out: each indirect block
 * just before the first data block it maps (12 data, IND, 1024 data,
 * DIND, IND, ...).  One block per level is open at a time; a full or
 * left one goes to the sink.
 */
struct ind_level {
	ek_blk_t blk;		/* 0: none open */
	uint64_t base;		/* first logical block it maps */
	uint8_t *buf;
};

/* append @e to *v, merged with the last entry when contiguous */
static int ind_push(struct ek_ext **v, size_t *n, size_t *cap, const struct ek_ext *e)
{
	if (*n && (*v)[*n - 1].lblk + (*v)[*n - 1].len == e->lblk &&
	    (*v)[*n - 1].pblk + (*v)[*n - 1].len == e->pblk &&
	    (uint64_t)(*v)[*n - 1].len + e->len <= EXT_INIT_MAX_LEN) {
		(*v)[*n - 1].len += e->len;
		return 0;
	}
	return ek_ext_append(v, n, cap, e);
}

/* the geometry of an indirect map: blocks under one slot of a level, first block of a level */
struct ind_shape {
	uint64_t span[4];
	uint64_t start[4];
};

/* the level whose tree maps logical block @lblk: 0 direct, 1 IND, 2 DIND, 3 TIND */
static int ind_top(const struct ind_shape *sh, uint64_t lblk)
{
	return lblk < sh->start[1] ? 0 : lblk < sh->start[2] ? 1 : lblk < sh->start[3] ? 2 : 3;
}

/*
 * Open the indirect blocks on the path to logical block @lblk that are not
 * open yet, top level first, each linked into its parent (or i_block);
 * the blocks left go to the sink.
 */
static int ind_open_path(const struct ek_fs *fs, uint8_t *raw, const struct ind_shape *sh,
			 struct ind_level *lv, const struct ek_ind_sink *sink, uint64_t lblk,
			 ek_blk_t *goal, uint64_t *total)
{
	int top = ind_top(sh, lblk), err = 0;
	uint64_t off = lblk - sh->start[top], got;

	for (int l = top; l >= 1 && !err; l--) {
		uint64_t base = sh->start[top] + off / sh->span[l] * sh->span[l];
		uint32_t slot;

		if (lv[l].blk && lv[l].base == base)
			continue;
		if (lv[l].blk)
			err = sink->put(sink->arg, lv[l].blk, lv[l].buf);
		if (!err && sink->alloc_meta)
			err = sink->alloc_meta(sink->arg, *goal, &lv[l].blk);
		else if (!err)
			err = sink->alloc(sink->arg, *goal, 1, &lv[l].blk, &got);
		if (err)
			break;
		*goal = lv[l].blk + 1;
		(*total)++;
		lv[l].base = base;
		memset(lv[l].buf, 0, fs->blksz);
		if (l == top) {
			put_le32(raw + offsetof(struct ext4_inode, i_block) +
				 4 * (EXT4_IND_BLOCK + top - 1), (uint32_t)lv[l].blk);
		} else {
			slot = (uint32_t)((base - lv[l + 1].base) / sh->span[l]);
			put_le32(lv[l + 1].buf + 4 * slot, (uint32_t)lv[l].blk);
		}
	}
	return err;
}

int ek_ind_map_write(const struct ek_fs *fs, uint8_t *raw, const struct ek_ext *runs, size_t n,
		     ek_blk_t goal, const struct ek_ind_sink *sink, struct ek_ext **out,
		     size_t *nout)
{
	uint32_t a = fs->blksz / 4;
	const struct ind_shape sh = {
		.span = { 1, a, (uint64_t)a * a, (uint64_t)a * a * a },
		.start = { 0, EXT4_NDIR_BLOCKS, EXT4_NDIR_BLOCKS + a,
			   EXT4_NDIR_BLOCKS + a + (uint64_t)a * a },
	};
	const uint64_t *span = sh.span, *start = sh.start;
	struct ind_level lv[4] = { 0 };	/* [1] IND, [2] DIND, [3] TIND */
	struct ek_ext *v = NULL;
	size_t nv = 0, cap = 0;
	uint64_t total = 0, next = 0;
	int err = 0;

	for (int l = 1; l <= 3; l++)
		if (!(lv[l].buf = ek_calloc(1, fs->blksz)))
			err = -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		uint64_t lblk = runs[i].lblk, end = lblk + runs[i].len;

		if (end > start[3] + span[3])
			err = ek_err(-EFBIG, "a block-mapped file ends past logical block %llu",
				     (unsigned long long)(start[3] + span[3]));
		while (lblk < end && !err) {
			int top = ind_top(&sh, lblk);
			uint64_t want, got;
			struct ek_ext e = { .lblk = (uint32_t)lblk };

			err = ind_open_path(fs, raw, &sh, lv, sink, lblk, &goal, &total);
			if (err)
				break;
			/* data up to the end of the run or of the open IND block */
			want = end - lblk;
			if (top && lv[1].base + span[1] - lblk < want)
				want = lv[1].base + span[1] - lblk;
			if (!top && EXT4_NDIR_BLOCKS - lblk < want)
				want = EXT4_NDIR_BLOCKS - lblk;
			if ((err = sink->alloc(sink->arg, goal, want, &e.pblk, &got)))
				break;
			if (!got || got > want) {
				err = ek_err(-EINVAL, "indirect map: %llu blocks allocated for %llu",
					     (unsigned long long)got, (unsigned long long)want);
				break;
			}
			if (e.pblk + got > 0xFFFFFFFFull) {
				err = ek_err(-EFBIG, "a block-mapped file needs blocks past 2^32");
				break;
			}
			e.len = (uint32_t)got;
			goal = e.pblk + got;
			for (uint64_t k = 0; k < got; k++) {
				if (!top)
					put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * (lblk + k),
						 (uint32_t)(e.pblk + k));
				else
					put_le32(lv[1].buf + 4 * (lblk + k - lv[1].base),
						 (uint32_t)(e.pblk + k));
			}
			err = ind_push(&v, &nv, &cap, &e);
			lblk += got;
			total += got;
		}
		next = end;
	}
	if (!err && sink->open_after && n && next < start[3] + span[3])
		err = ind_open_path(fs, raw, &sh, lv, sink, next, &goal, &total);
	for (int l = 1; l <= 3 && !err; l++)
		if (lv[l].blk)
			err = sink->put(sink->arg, lv[l].blk, lv[l].buf);
	for (int l = 1; l <= 3; l++)
		free(lv[l].buf);
	if (err) {
		free(v);
		return err;
	}
	ek_inode_add_blocks(fs, raw, (int64_t)total);
	*out = v;
	*nout = nv;
	return 0;
}
