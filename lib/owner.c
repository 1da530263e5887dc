// SPDX-License-Identifier: MIT
/*
 * owner.c - block ownership: what each of a set of blocks is.
 *
 * The blocks asked about are sorted once; every source of ownership is
 * then matched against them by binary search, in this order (the first
 * that names a block wins):
 *
 *   geometry    outside the filesystem, the boot block, superblock copies,
 *               descriptor blocks (old layout and meta_bg), reserved GDT
 *               blocks; no I/O
 *   descriptors block and inode bitmaps, inode table blocks of each group
 *               (with flex_bg they live in other groups); the MMP block
 *   inodes      one pass over the inode tables (ek_inode_scan): for each
 *               inode in use, its xattr block and every block of its map
 *               (ek_map_walk: data, directory or journal blocks, extent
 *               nodes, indirect blocks), as debugfs icheck does
 *   bitmaps     what nothing names is free, or in use by nobody known
 *
 * The pass stops early once every block is named and none is an xattr
 * block (whose list of users only a full pass completes).
 * ek_blocks_owner_among() replaces the pass by the maps of a given list
 * of inodes: its cost is theirs, not the filesystem's.  Memory is the
 * sorted copy and one record per block.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

struct owners {
	struct ek_fs *fs;
	ek_blk_t *blk;			/* sorted, unique */
	struct ek_blk_owner *own;	/* parallel to blk */
	uint8_t *named;			/* parallel: 1 once a source named it */
	size_t n;
	size_t left;			/* not named yet */
	size_t xattrs;			/* named as xattr blocks */
	const struct ek_inode *ei;	/* the inode being walked */
	enum ek_blk_owner_kind data_kind;	/* what its data blocks are */
	int err;			/* first damage, reported at the end */
	struct ek_error first;		/* its message */
};

/* index of the first block >= @b */
static size_t lower(const struct owners *w, ek_blk_t b)
{
	return ek_lower_u64(w->blk, w->n, b);
}

/* the record of block index @k to fill, or NULL when already named */
static struct ek_blk_owner *claim(struct owners *w, size_t k, enum ek_blk_owner_kind kind)
{
	if (w->named[k])
		return NULL;
	w->named[k] = 1;
	w->left--;
	w->own[k].kind = kind;
	return &w->own[k];
}

/* the record of block @b if it is asked about and not named yet */
static struct ek_blk_owner *claim_blk(struct owners *w, ek_blk_t b, enum ek_blk_owner_kind kind)
{
	size_t k = lower(w, b);

	return k < w->n && w->blk[k] == b ? claim(w, k, kind) : NULL;
}

/* keep the first damage and its message; later ones only count */
static void damage(struct owners *w, int err)
{
	const struct ek_error *e = ek_last_error();

	if (w->err)
		return;
	w->err = err;
	if (e && e->code == err)
		w->first = *e;
	else
		w->first = (struct ek_error){ .code = err };
}

/* ---- geometry ------------------------------------------------------------- */

/* superblock, descriptor and reserved GDT blocks: @b in the filesystem */
static void name_sb_gdt(struct owners *w, size_t k, ek_blk_t b)
{
	const struct ek_fs *fs = w->fs;
	uint32_t g = ek_group_of_block(fs, b), dpb = fs->desc_per_block;
	uint32_t ndesc = (fs->group_count + dpb - 1) / dpb, idx;
	ek_blk_t first = ek_group_first_block(fs, g), s = first;
	bool meta = ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG);
	bool sup = ek_group_has_super(fs, g);
	struct ek_blk_owner *o;

	/* 1 KiB blocks with first_data_block 0 (bigalloc): the copy is in block 1 */
	if (s == 0 && fs->blksz == 1024)
		s = 1;
	if (sup && b == s) {
		o = claim(w, k, EK_OWNER_SUPER);
		o->group = g;
		o->backup = g != 0;
		return;
	}
	if (!meta || g / dpb < fs->sb.first_meta_bg) {
		uint32_t old = meta ? fs->sb.first_meta_bg : ndesc;

		if (!sup || b <= s)
			return;
		if (b - s - 1 < old) {
			idx = b - s - 1;
			goto gdt;
		}
		if (b - s - 1 - old < fs->sb.reserved_gdt_blocks) {
			o = claim(w, k, EK_OWNER_RESERVED_GDT);
			o->group = g;
			o->backup = g != 0;
		}
		return;
	}
	/* meta_bg: descriptor block g / dpb in the first, second and last group */
	idx = g % dpb;
	if ((idx != 0 && idx != 1 && idx != dpb - 1) || b != first + sup)
		return;
	idx = g / dpb;
gdt:
	o = claim(w, k, EK_OWNER_GDT);
	o->group = g;
	o->backup = meta && idx >= fs->sb.first_meta_bg ? g % dpb != 0 : g != 0;
	o->first_group = idx * dpb;
	o->last_group = (uint64_t)(idx + 1) * dpb < fs->group_count ? (idx + 1) * dpb - 1 :
		       fs->group_count - 1;
}

static void name_static(struct owners *w)
{
	const struct ek_fs *fs = w->fs;
	uint32_t ipg = fs->sb.inodes_per_group, ipb = fs->inodes_per_block;
	struct ek_blk_owner *o;

	for (size_t k = 0; k < w->n; k++) {
		ek_blk_t b = w->blk[k];

		if (b >= fs->sb.blocks_count)
			claim(w, k, EK_OWNER_OUTSIDE);
		else if (b < fs->sb.first_data_block || (b == 0 && fs->blksz == 1024))
			claim(w, k, EK_OWNER_BOOT);
		else
			name_sb_gdt(w, k, b);
	}
	for (uint32_t g = 0; g < fs->group_count && w->left; g++) {
		const struct ek_group *grp = &fs->groups[g];
		ek_blk_t it = grp->inode_table;

		if ((o = claim_blk(w, grp->block_bitmap, EK_OWNER_BLOCK_BITMAP)))
			o->group = g;
		if ((o = claim_blk(w, grp->inode_bitmap, EK_OWNER_INODE_BITMAP)))
			o->group = g;
		for (size_t k = lower(w, it); k < w->n && w->blk[k] - it < fs->itable_blocks; k++) {
			uint64_t first = (uint64_t)g * ipg + (w->blk[k] - it) * ipb + 1;
			uint64_t last = first + ipb - 1;

			if (!(o = claim(w, k, EK_OWNER_INODE_TABLE)))
				continue;
			if (last > (uint64_t)(g + 1) * ipg)
				last = (uint64_t)(g + 1) * ipg;
			o->group = g;
			o->first_ino = first;
			o->last_ino = last;
		}
	}
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP))
		claim_blk(w, le64_to_cpu(fs->raw_sb->s_mmp_block), EK_OWNER_MMP);
}

/* ---- the inode pass ------------------------------------------------------- */

/* what an inode's data blocks are: the journal's, a directory's, a file's */
static enum ek_blk_owner_kind data_kind_of(const struct ek_fs *fs, const struct ek_inode *ei)
{
	if (ei->ino == fs->sb.journal_inum && ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return EK_OWNER_JOURNAL;
	return ek_is_dir(ei->mode) ? EK_OWNER_DIR : EK_OWNER_DATA;
}

/* what a tree block of the map walk is */
static enum ek_blk_owner_kind tree_kind_of(const struct ek_inode *ei, const struct ek_mapping *m)
{
	if (!(ei->flags & EXT4_EXTENTS_FL))
		return EK_OWNER_INDIRECT;
	return m->level ? EK_OWNER_EXTENT_INDEX : EK_OWNER_EXTENT_LEAF;
}

/* nonzero stops the walk and the pass: nothing left to learn */
static int done(const struct owners *w)
{
	return !w->left && !w->xattrs;
}

static int name_mapping(void *arg, const struct ek_mapping *m)
{
	struct owners *w = arg;
	const struct ek_inode *ei = w->ei;
	struct ek_blk_owner *o;

	switch (m->kind) {
	case EK_MAP_INDEX:
		break;		/* the child node follows as EK_MAP_TREE */
	case EK_MAP_TREE:
		o = claim_blk(w, m->pblk, tree_kind_of(ei, m));
		if (o) {
			o->ino = ei->ino;
			o->level = m->level;
			o->lblk = m->lblk;
		}
		break;
	case EK_MAP_DATA:
		/* the walk checked pblk..pblk+len-1 lies in the filesystem */
		for (size_t k = lower(w, m->pblk); k < w->n && w->blk[k] - m->pblk < m->len; k++) {
			if (!(o = claim(w, k, w->data_kind)))
				continue;
			o->ino = ei->ino;
			o->lblk = m->lblk + (w->blk[k] - m->pblk);
			o->unwritten = m->unwritten;
		}
		break;
	}
	return done(w);
}

/* in use: its bit in the inode bitmap, or (bitmap unreadable) as icheck guesses */
static bool inode_in_use(struct ek_fs *fs, const struct ek_inode *ei)
{
	int r = ek_test_inode(fs, ei->ino);

	if (r >= 0)
		return r;
	if (!ei->links_count && !ei->mode)
		return false;
	return !(ei->dtime && !ei->links_count);
}

static int name_inode(void *arg, struct ek_inode *ei, int err)
{
	struct owners *w = arg;
	struct ek_fs *fs = w->fs;
	struct ek_blk_owner *o;
	size_t k;

	(void)err;	/* a bad checksum or extra size: its map is still what it is */
	if (!inode_in_use(fs, ei))
		return 0;
	if (ei->file_acl) {
		k = lower(w, ei->file_acl);
		if (k < w->n && w->blk[k] == ei->file_acl) {
			if ((o = claim(w, k, EK_OWNER_XATTR))) {
				o->first_ino = ei->ino;
				w->xattrs++;
			}
			o = &w->own[k];
			if (o->kind == EK_OWNER_XATTR) {
				o->last_ino = ei->ino;
				o->refs++;
			}
		}
	}
	w->ei = ei;
	w->data_kind = data_kind_of(fs, ei);
	err = ek_map_walk(fs, ei, name_mapping, w);
	if (err == -ENOMEM)
		return err;
	if (err < 0 && err != -EK_BADCRC)
		damage(w, err);	/* what the walk named before the damage stays */
	return done(w);
}

/* walk only the inodes @inos[0..@ninos) instead of every inode */
static int name_listed(struct owners *w, const ek_ino_t *inos, size_t ninos)
{
	for (size_t i = 0; i < ninos && !done(w); i++) {
		struct ek_inode ei;
		int err = ek_inode_read(w->fs, inos[i], &ei);

		/* a bad checksum or extra size comes decoded: walk it anyway */
		if (err && (!ei.raw || (err != -EK_BADCRC && err != -EK_CORRUPT))) {
			ek_inode_release(&ei);
			if (err == -ENOMEM)
				return err;
			damage(w, err);
			continue;
		}
		err = name_inode(w, &ei, err);
		ek_inode_release(&ei);
		if (err < 0)
			return err;
	}
	return 0;
}

static int blocks_owner(struct ek_fs *fs, const ek_blk_t *blocks, size_t n, bool all,
			const ek_ino_t *inos, size_t ninos, struct ek_blk_owner *out)
{
	struct owners w = { .fs = fs };
	size_t u = 0;
	int err = 0;

	if (!n)
		return 0;
	w.blk = ek_calloc(n, sizeof(*w.blk));
	w.own = ek_calloc(n, sizeof(*w.own));
	w.named = ek_calloc(n, 1);
	if (!w.blk || !w.own || !w.named) {
		err = -ENOMEM;
		goto out_free;
	}
	memcpy(w.blk, blocks, n * sizeof(*w.blk));
	qsort(w.blk, n, sizeof(*w.blk), ek_cmp_u64);
	for (size_t i = 0; i < n; i++)
		if (!u || w.blk[u - 1] != w.blk[i])
			w.blk[u++] = w.blk[i];
	w.n = w.left = u;

	name_static(&w);
	if (w.left && !all) {
		err = name_listed(&w, inos, ninos);
		if (err == -ENOMEM)
			goto out_free;
		err = 0;
	} else if (w.left) {
		err = ek_inode_scan(fs, name_inode, &w);
		if (err == -ENOMEM)
			goto out_free;
		if (err < 0)
			damage(&w, err);	/* an inode table that could not be read */
		err = 0;
	}
	for (size_t k = 0; k < w.n && w.left; k++) {
		int used;

		if (w.named[k])
			continue;
		used = ek_test_block(fs, w.blk[k]);
		if (used < 0)
			damage(&w, used);
		claim(&w, k, used == 0 ? EK_OWNER_FREE : EK_OWNER_UNKNOWN);
	}
	for (size_t i = 0; i < n; i++)
		out[i] = w.own[lower(&w, blocks[i])];
	if (w.err) {
		/* the first damage's message (its place already in it), not a later one's */
		const struct ek_error *f = &w.first;

		err = f->msg[0] ? ek__error(f->code, f->file, f->line, EK_AT_NONE, 0, "%s", f->msg) :
				  w.err;
	}
out_free:
	free(w.named);
	free(w.own);
	free(w.blk);
	return err;
}

int ek_blocks_owner(struct ek_fs *fs, const ek_blk_t *blocks, size_t n, struct ek_blk_owner *out)
{
	return blocks_owner(fs, blocks, n, true, NULL, 0, out);
}

int ek_blocks_owner_among(struct ek_fs *fs, const ek_blk_t *blocks, size_t n,
			  const ek_ino_t *inos, size_t ninos, struct ek_blk_owner *out)
{
	return blocks_owner(fs, blocks, n, false, inos, ninos, out);
}

/* ---- a census of block kinds per cell (debugfs map) ----------------------- */

struct census {
	struct ek_fs *fs;
	struct ek_owner_census *c;
	const struct ek_inode *ei;
	enum ek_blk_owner_kind data_kind;
	int err;
};

/* add @len blocks from @blk, as @kind, to the cells they fall in */
static void census_add(struct ek_owner_census *c, enum ek_blk_owner_kind kind, ek_blk_t blk,
		       uint64_t len)
{
	uint64_t end;

	if (blk < c->first)
		len = len > c->first - blk ? len - (c->first - blk) : 0, blk = c->first;
	end = c->first + (uint64_t)c->ncells * c->per_cell;
	if (blk >= end)
		return;
	if (len > end - blk)
		len = end - blk;
	while (len) {
		size_t k = (blk - c->first) / c->per_cell;
		uint64_t room = c->first + (k + 1) * c->per_cell - blk;
		uint64_t n = len < room ? len : room;

		c->count[k][kind] += n;
		blk += n;
		len -= n;
	}
}

/* @n blocks of @kind somewhere in @blk..+@len: spread evenly over the cells */
static void census_spread(struct ek_owner_census *c, enum ek_blk_owner_kind kind, ek_blk_t blk,
			  uint64_t len, uint64_t n)
{
	uint64_t done = 0, seen = 0;
	uint64_t end = c->first + (uint64_t)c->ncells * c->per_cell;

	if (!len || blk < c->first || blk >= end)
		return;
	if (len > end - blk)
		len = end - blk;
	while (seen < len) {
		size_t k = (blk + seen - c->first) / c->per_cell;
		uint64_t room = c->first + (k + 1) * c->per_cell - (blk + seen);
		uint64_t part = len - seen < room ? len - seen : room;
		/* the share of the cells so far, so rounding never loses a block */
		uint64_t upto = (uint64_t)((unsigned __int128)n * (seen + part) / len);

		c->count[k][kind] += upto - done;
		done = upto;
		seen += part;
	}
}

static void census_static(struct ek_fs *fs, struct ek_owner_census *c)
{
	bool meta = ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG);
	ek_blk_t total = fs->sb.blocks_count;

	if (fs->sb.first_data_block)
		census_add(c, EK_OWNER_BOOT, 0, fs->sb.first_data_block);
	else if (fs->blksz == 1024)
		census_add(c, EK_OWNER_BOOT, 0, 1);
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		ek_blk_t s = ek_group_first_block(fs, g);
		uint32_t n = ek_group_sb_gdt_blocks(fs, g);
		bool sup = ek_group_has_super(fs, g);

		if (s == 0 && fs->blksz == 1024)
			s = 1;
		if (sup && n) {
			census_add(c, EK_OWNER_SUPER, s, 1);
			s++, n--;
		}
		if (!meta || g / fs->desc_per_block < fs->sb.first_meta_bg) {
			uint32_t r = n > fs->sb.reserved_gdt_blocks ? fs->sb.reserved_gdt_blocks : n;

			census_add(c, EK_OWNER_GDT, s, n - r);
			census_add(c, EK_OWNER_RESERVED_GDT, s + n - r, r);
		} else {
			census_add(c, EK_OWNER_GDT, s, n);
		}
		/* descriptors naming blocks past the end are damage: not counted */
		if (grp->block_bitmap && grp->block_bitmap < total)
			census_add(c, EK_OWNER_BLOCK_BITMAP, grp->block_bitmap, 1);
		if (grp->inode_bitmap && grp->inode_bitmap < total)
			census_add(c, EK_OWNER_INODE_BITMAP, grp->inode_bitmap, 1);
		if (grp->inode_table && grp->inode_table < total)
			census_add(c, EK_OWNER_INODE_TABLE, grp->inode_table,
				   total - grp->inode_table < fs->itable_blocks ?
				   total - grp->inode_table : fs->itable_blocks);
	}
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP)) {
		ek_blk_t m = le64_to_cpu(fs->raw_sb->s_mmp_block);

		if (m && m < total)
			census_add(c, EK_OWNER_MMP, m, 1);
	}
}

/* free blocks: each group's bitmap, or (from_desc) its descriptor's count */
static int census_free(struct ek_fs *fs, struct ek_owner_census *c, bool from_desc)
{
	uint32_t ratio = ek_cluster_ratio(fs);

	for (uint32_t g = 0; g < fs->group_count; g++) {
		ek_blk_t first = ek_group_first_block(fs, g);
		uint64_t nblk = ek_group_blocks(fs, g), ncl = (nblk + ratio - 1) / ratio;
		bool was_cached = fs->block_bitmaps[g] != NULL;
		const uint8_t *map;
		uint64_t run = 0, c0 = 0;
		int err;

		if (from_desc) {
			uint64_t f = (uint64_t)fs->groups[g].free_blocks * ratio;

			census_spread(c, EK_OWNER_FREE, first, nblk, f < nblk ? f : nblk);
			continue;
		}
		err = ek_block_bitmap_get(fs, g, &map);
		if (err == -ENOMEM)
			return err;
		if (err) {
			/* an unreadable bitmap: the descriptor's count stands in */
			uint64_t f = (uint64_t)fs->groups[g].free_blocks * ratio;

			census_spread(c, EK_OWNER_FREE, first, nblk, f < nblk ? f : nblk);
			continue;
		}
		for (uint64_t k = 0; k <= ncl; k++) {
			bool used;

			/* a whole byte free or in use at once */
			if (!(k & 7) && k + 8 <= ncl &&
			    (map[k >> 3] == 0 || (map[k >> 3] == 0xFF && !run))) {
				if (!run)
					c0 = k;
				run += map[k >> 3] ? 0 : 8;
				k += 7;
				continue;
			}
			used = k == ncl || ek_bit_test(map, k);
			if (!used) {
				if (!run)
					c0 = k;
				run++;
				continue;
			}
			if (run) {
				uint64_t b = c0 * ratio, len = run * ratio;

				census_add(c, EK_OWNER_FREE, first + b, len > nblk - b ? nblk - b : len);
			}
			run = 0;
		}
		if (!was_cached) {
			free(fs->block_bitmaps[g]);
			fs->block_bitmaps[g] = NULL;
		}
	}
	return 0;
}

static int census_mapping(void *arg, const struct ek_mapping *m)
{
	struct census *w = arg;

	if (m->kind == EK_MAP_TREE)
		census_add(w->c, tree_kind_of(w->ei, m), m->pblk, 1);
	else if (m->kind == EK_MAP_DATA)
		census_add(w->c, w->data_kind, m->pblk, m->len);
	return 0;
}

static void census_inode_blocks(struct census *w, const struct ek_inode *ei)
{
	int err;

	/* the resize inode maps the reserved GDT blocks the geometry named
	 * (the primary's as its indirect blocks, the backups as its data):
	 * only its double-indirect block is its own */
	if (ei->ino == EXT4_RESIZE_INO) {
		uint32_t dind = le32_to_cpu(ek_inode_i_block(ei)[EXT4_DIND_BLOCK]);

		if (dind && dind < w->fs->sb.blocks_count)
			census_add(w->c, EK_OWNER_INDIRECT, dind, 1);
		w->c->walked_inodes++;
		return;
	}
	if (ei->file_acl && ei->file_acl < w->fs->sb.blocks_count)
		census_add(w->c, EK_OWNER_XATTR, ei->file_acl, 1);
	w->ei = ei;
	w->data_kind = data_kind_of(w->fs, ei);
	err = ek_map_walk(w->fs, ei, census_mapping, w);
	if (err < 0 && err != -EK_BADCRC && !w->err)
		w->err = err;
	w->c->walked_inodes++;
}

static int census_inode(void *arg, struct ek_inode *ei, int err)
{
	struct census *w = arg;

	(void)err;
	if (inode_in_use(w->fs, ei))
		census_inode_blocks(w, ei);
	return 0;
}

int ek_owner_census(struct ek_fs *fs, struct ek_owner_census *c)
{
	struct census w = { .fs = fs, .c = c };
	uint64_t end = c->first + (uint64_t)c->ncells * c->per_cell;
	int err;

	if (!c->per_cell || !c->ncells)
		return -EINVAL;
	c->walked_inodes = 0;
	census_static(fs, c);
	err = census_free(fs, c, !c->read_bitmaps);
	if (err)
		return err;
	if (c->walk_inodes) {
		err = ek_inode_scan(fs, census_inode, &w);
		if (err == -ENOMEM)
			return err;
		if (err < 0 && !w.err)
			w.err = err;
	} else if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && fs->sb.journal_inum) {
		struct ek_inode ei;

		/* the journal alone is cheap and large: always named */
		err = ek_inode_read(fs, fs->sb.journal_inum, &ei);
		if (!err || err == -EK_BADCRC) {
			census_inode_blocks(&w, &ei);
			ek_inode_release(&ei);
		}
	}
	/* what is past the end, and what is in use that nothing named */
	if (end > fs->sb.blocks_count)
		census_add(c, EK_OWNER_OUTSIDE, fs->sb.blocks_count, end - fs->sb.blocks_count);
	for (size_t k = 0; k < c->ncells; k++) {
		uint64_t named = 0;

		for (int kind = 0; kind < EK_OWNER_NKINDS; kind++)
			named += c->count[k][kind];
		if (named < c->per_cell)
			c->count[k][EK_OWNER_UNKNOWN] += c->per_cell - named;
	}
	return w.err;
}

/* ---- names ---------------------------------------------------------------- */

const char *ek_blk_owner_kind_name(enum ek_blk_owner_kind k)
{
	static const char *const names[] = {
		[EK_OWNER_UNKNOWN] = "unknown",
		[EK_OWNER_FREE] = "free",
		[EK_OWNER_OUTSIDE] = "outside",
		[EK_OWNER_BOOT] = "boot",
		[EK_OWNER_SUPER] = "superblock",
		[EK_OWNER_GDT] = "group_descriptors",
		[EK_OWNER_RESERVED_GDT] = "reserved_gdt",
		[EK_OWNER_BLOCK_BITMAP] = "block_bitmap",
		[EK_OWNER_INODE_BITMAP] = "inode_bitmap",
		[EK_OWNER_INODE_TABLE] = "inode_table",
		[EK_OWNER_MMP] = "mmp",
		[EK_OWNER_JOURNAL] = "journal",
		[EK_OWNER_DIR] = "directory",
		[EK_OWNER_EXTENT_INDEX] = "extent_index",
		[EK_OWNER_EXTENT_LEAF] = "extent_leaf",
		[EK_OWNER_INDIRECT] = "indirect",
		[EK_OWNER_XATTR] = "xattr",
		[EK_OWNER_DATA] = "data",
	};

	return (unsigned)k < sizeof(names) / sizeof(names[0]) && names[k] ? names[k] : "?";
}

const char *ek_blk_owner_describe(const struct ek_blk_owner *o, char *buf, size_t len)
{
	static const char *const ind[] = { "?", "single", "double", "triple" };
	char copy[32] = "primary";
	unsigned long long l = o->lblk;

	if (o->backup)
		snprintf(copy, sizeof(copy), "backup in group %u", o->group);
	switch (o->kind) {
	case EK_OWNER_UNKNOWN:
		snprintf(buf, len, "in use, owner not found");
		break;
	case EK_OWNER_FREE:
		snprintf(buf, len, "free");
		break;
	case EK_OWNER_OUTSIDE:
		snprintf(buf, len, "outside the filesystem");
		break;
	case EK_OWNER_BOOT:
		snprintf(buf, len, "boot block");
		break;
	case EK_OWNER_SUPER:
		snprintf(buf, len, "superblock (%s)", copy);
		break;
	case EK_OWNER_GDT:
		if (o->first_group == o->last_group)
			snprintf(buf, len, "group descriptors (group %u, %s)", o->first_group, copy);
		else
			snprintf(buf, len, "group descriptors (groups %u-%u, %s)", o->first_group,
				 o->last_group, copy);
		break;
	case EK_OWNER_RESERVED_GDT:
		snprintf(buf, len, "reserved GDT block (%s)", copy);
		break;
	case EK_OWNER_BLOCK_BITMAP:
		snprintf(buf, len, "block bitmap of group %u", o->group);
		break;
	case EK_OWNER_INODE_BITMAP:
		snprintf(buf, len, "inode bitmap of group %u", o->group);
		break;
	case EK_OWNER_INODE_TABLE:
		snprintf(buf, len, "inode table of group %u (inodes %u-%u)", o->group,
			 o->first_ino, o->last_ino);
		break;
	case EK_OWNER_MMP:
		snprintf(buf, len, "MMP block");
		break;
	case EK_OWNER_JOURNAL:
		snprintf(buf, len, "journal (inode %u), block %llu", o->ino, l);
		break;
	case EK_OWNER_DIR:
		snprintf(buf, len, "directory block of inode %u (logical block %llu)", o->ino, l);
		break;
	case EK_OWNER_EXTENT_INDEX:
		snprintf(buf, len, "extent index block of inode %u (depth %u, from logical block %llu)",
			 o->ino, o->level, l);
		break;
	case EK_OWNER_EXTENT_LEAF:
		snprintf(buf, len, "extent leaf block of inode %u (from logical block %llu)",
			 o->ino, l);
		break;
	case EK_OWNER_INDIRECT:
		snprintf(buf, len, "%s indirect block of inode %u (from logical block %llu)",
			 ind[o->level <= 3 ? o->level : 0], o->ino, l);
		break;
	case EK_OWNER_XATTR:
		if (o->refs > 1)
			snprintf(buf, len, "xattr block of %u inodes (%u..%u)", o->refs,
				 o->first_ino, o->last_ino);
		else
			snprintf(buf, len, "xattr block of inode %u", o->first_ino);
		break;
	case EK_OWNER_DATA:
		snprintf(buf, len, "data of inode %u (logical block %llu%s)", o->ino, l,
			 o->unwritten ? ", unwritten" : "");
		break;
	default:
		snprintf(buf, len, "?");
	}
	return buf;
}
