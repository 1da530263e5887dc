// SPDX-License-Identifier: MIT
/*
 * fcreplay.c - replaying fast commits after the full transactions.
 *
 * The records fastcommit.c accepted are applied in order, as the kernel's
 * ext4_fc_replay() does, to the filesystem as the full replay leaves it,
 * into a write set (nothing is written here):
 *  - ADD_RANGE maps lblk..lblk+len-1 to the logged blocks (what was mapped
 *    there before is freed), with the logged unwritten state;
 *  - DEL_RANGE unmaps a range and frees its blocks;
 *  - INODE copies the logged inode over the on-disk one except i_block
 *    (the block map stays as replay builds it; inline data is copied),
 *    frees the blocks of the inode it replaces, marks the inode in use and
 *    derives i_blocks from the map;
 *  - a record naming an inode not in use is skipped, as the kernel's
 *    iget() failure is.
 * Then the blocks of every inode touched are marked in use again (the
 * kernel's ext4_fc_set_bitmaps_and_counters()), and the touched groups'
 * free counts are recounted from their bitmaps, so a replay run again over
 * a partly written image gives the same counts.  New extent-tree blocks
 * are never taken from the ranges the fast commits name.
 * Directory entries: LINK adds the name to the parent, first fit, as
 * ext4_add_entry() does: in a linear directory the first block with room,
 * else a new block; in an indexed one the leaf the name's hash maps to.
 * CREAT marks the inode in use (a new directory gets its "." and ".."
 * block), links it and sets its link count to 1, as the kernel's replay
 * does; UNLINK removes the name (merged into the entry before it, or
 * cleared when first in its block) and drops the inode's link count.  A
 * full htree leaf is split as ext4's do_split() does (the upper half by
 * hash into a new block, indexed in the node above), a full index node
 * is split or the index gains a level, as ext4_dx_add_entry() does.  An
 * inline directory takes the name in i_block, then in system.data (grown
 * once to the room the inode body has, as ext4_update_inline_dir()), else
 * becomes a block directory (ext4_convert_inline_data_nolock()).  In a
 * casefolded parent names hash folded and UNLINK matches the folded name,
 * as the kernel's lookup does.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

struct fcr {
	struct ek_fs *fs;
	struct ek_wset *ws;
	ek_ino_t *touched;	/* inodes to mark in use at the end, in order */
	size_t ntouched, cap;
};

static int touch(struct fcr *f, ek_ino_t ino)
{
	for (size_t i = 0; i < f->ntouched; i++)
		if (f->touched[i] == ino)
			return 0;
	if (ek_grow(&f->touched, &f->cap, f->ntouched + 1, sizeof(*f->touched)))
		return -ENOMEM;
	f->touched[f->ntouched++] = ino;
	return 0;
}

/* the raw inode @ino in the set, or NULL (and 0) when it is not in use */
static int live_inode(struct fcr *f, ek_ino_t ino, uint8_t **raw)
{
	int err = ek_wset_inode(f->ws, ino, raw);

	if (err)
		return err;
	if (!get_le16(*raw + offsetof(struct ext4_inode, i_links_count)) ||
	    !get_le16(*raw + offsetof(struct ext4_inode, i_mode)))
		*raw = NULL;
	return 0;
}

static int extent_inode(struct fcr *f, ek_ino_t ino, const uint8_t *raw)
{
	(void)f;
	if (!(get_le32(raw + offsetof(struct ext4_inode, i_flags)) & EXT4_EXTENTS_FL))
		return ek_unsupp("inode %u: fast-commit ranges of a block-mapped inode", ino);
	return 0;
}

static int add_range(struct fcr *f, const struct ek_fc_rec *r)
{
	struct ek_ext e = {
		.lblk = r->u.range.lblk, .len = r->u.range.len,
		.pblk = r->u.range.pblk, .unwritten = r->u.range.unwritten,
	};
	struct ek_extlist l;
	uint64_t freed = 0;
	int64_t tree = 0;
	uint8_t *raw;
	int err = live_inode(f, r->u.range.ino, &raw);

	if (err || !raw || !e.len)
		return err;
	if ((err = extent_inode(f, r->u.range.ino, raw)) || (err = touch(f, r->u.range.ino)))
		return err;
	err = ek_extlist_load(f->fs, f->ws, r->u.range.ino, raw, &l);
	if (err)
		return err;
	err = ek_extlist_punch(&l, f->ws, e.lblk, (uint64_t)e.lblk + e.len, &freed);
	if (!err)
		err = ek_extlist_insert(&l, &e);
	for (uint32_t i = 0; !err && i < e.len; i++)
		err = ek_wset_mark_block(f->ws, e.pblk + i, true);
	if (!err)
		err = ek_extlist_store(f->fs, f->ws, r->u.range.ino, raw, &l, &tree);
	ek_extlist_release(&l);
	return err;
}

static int del_range(struct fcr *f, const struct ek_fc_rec *r)
{
	struct ek_extlist l;
	uint64_t freed = 0;
	int64_t tree = 0;
	uint8_t *raw;
	int err = live_inode(f, r->u.del.ino, &raw);

	if (err || !raw)
		return err;
	if ((err = extent_inode(f, r->u.del.ino, raw)) || (err = touch(f, r->u.del.ino)))
		return err;
	err = ek_extlist_load(f->fs, f->ws, r->u.del.ino, raw, &l);
	if (!err)
		err = ek_extlist_punch(&l, f->ws, r->u.del.lblk,
				       (uint64_t)r->u.del.lblk + r->u.del.len, &freed);
	if (!err)
		err = ek_extlist_store(f->fs, f->ws, r->u.del.ino, raw, &l, &tree);
	ek_extlist_release(&l);
	return err;
}

/* every block of the map of @raw (data and tree), marked used or free */
static int mark_map(struct fcr *f, ek_ino_t ino, const uint8_t *raw, bool used, uint64_t *nblocks)
{
	struct ek_extlist l;
	int err;

	*nblocks = 0;
	if (!(get_le32(raw + offsetof(struct ext4_inode, i_flags)) & EXT4_EXTENTS_FL))
		return 0;
	err = ek_extlist_load(f->fs, f->ws, ino, raw, &l);
	for (size_t i = 0; !err && i < l.n; i++)
		for (uint32_t k = 0; !err && k < l.v[i].len; k++)
			err = ek_wset_mark_block(f->ws, l.v[i].pblk + k, used);
	for (size_t i = 0; !err && i < l.ntree; i++)
		err = ek_wset_mark_block(f->ws, l.tree[i], used);
	if (err)
		return err;
	for (size_t i = 0; i < l.n; i++)
		*nblocks += l.v[i].len;
	*nblocks += l.ntree;
	ek_extlist_release(&l);
	return err;
}

static int replay_inode(struct fcr *f, const struct ek_fc_rec *r)
{
	const size_t iblock = offsetof(struct ext4_inode, i_block);
	const size_t igen = offsetof(struct ext4_inode, i_generation);
	ek_ino_t ino = r->u.inode.ino;
	uint32_t len = r->u.inode.raw_len, flags;
	uint64_t nblocks = 0;
	uint8_t *raw, *old;
	int err;

	if (len > f->fs->inode_size || len < EXT4_GOOD_OLD_INODE_SIZE)
		return ek_corrupt_ino(ino, "fast-commit inode record of %u bytes", len);
	err = live_inode(f, ino, &old);
	if (!err && old)	/* the kernel's ext4_ext_clear_bb(): its blocks go free */
		err = mark_map(f, ino, old, false, &nblocks);
	if (!err)
		err = ek_wset_inode(f->ws, ino, &raw);
	if (!err)
		err = touch(f, ino);
	if (err)
		return err;
	memcpy(raw, r->u.inode.raw, iblock);
	memcpy(raw + igen, r->u.inode.raw + igen, len - igen);
	flags = get_le32(raw + offsetof(struct ext4_inode, i_flags));
	if ((flags & EXT4_EXTENTS_FL) && get_le16(raw + iblock) != EXT4_EXT_MAGIC) {
		ek_ext_root_init(raw + iblock);
	} else if (flags & EXT4_INLINE_DATA_FL) {
		memcpy(raw + iblock, r->u.inode.raw + iblock, EXT4_N_BLOCKS * 4);
	}
	err = ek_wset_mark_inode(f->ws, ino, true,
				 ek_is_dir(get_le16(raw + offsetof(struct ext4_inode, i_mode))));
	if (err)
		return err;
	/* i_blocks from the map as it stands (ext4_ext_replay_set_iblocks) */
	if (!(flags & EXT4_INLINE_DATA_FL) && (flags & EXT4_EXTENTS_FL)) {
		bool xattr = ek_inode_file_acl(f->fs, raw) != 0;

		err = mark_map(f, ino, raw, true, &nblocks);
		if (err)
			return err;
		ek_inode_iblocks_set(raw, 0);
		ek_inode_add_blocks(f->fs, raw, (int64_t)nblocks + xattr);
	}
	return 0;
}

/* ---- directory entries -------------------------------------------------------- */

#define DIRENT_TAIL 12	/* metadata_csum leaf tail: a fake entry with the checksum */

/* the parent's leaf blocks in logical order, through the set */
static int dir_blocks(struct fcr *f, ek_ino_t dir, uint8_t **raw, struct ek_extlist *l)
{
	int err = live_inode(f, dir, raw);

	if (!err && !*raw)
		return ek_corrupt_ino(dir, "fast-commit entry names a directory not in use");
	if (err)
		return err;
	if (!ek_is_dir(get_le16(*raw + offsetof(struct ext4_inode, i_mode))))
		return ek_corrupt_ino(dir, "fast-commit entry names a parent that is no directory");
	if (get_le32(*raw + offsetof(struct ext4_inode, i_flags)) & EXT4_INLINE_DATA_FL)
		return 2;	/* inline: no blocks */
	if ((err = extent_inode(f, dir, *raw)))
		return err;
	return ek_extlist_load(f->fs, f->ws, dir, *raw, l);
}

static void seal_leaf(struct fcr *f, ek_ino_t dir, const uint8_t *raw, uint8_t *b)
{
	struct ek_inode di = { .ino = dir, .generation = get_le32(raw + offsetof(struct ext4_inode, i_generation)) };

	if (f->fs->has_csum)
		put_le32(b + f->fs->blksz - 4, ek_dir_leaf_csum(f->fs, &di, b));
}

/* walk the entries of leaf @b; fn returns 1 when done */
typedef int (*leaf_fn)(struct fcr *f, uint8_t *b, uint32_t prev, uint32_t off, uint32_t rec,
		       void *arg);

struct region {
	struct fcr *f;
	leaf_fn fn;
	void *arg;
};

static int region_ent(void *arg, uint8_t *b, uint32_t prev, uint32_t off, uint32_t rec)
{
	struct region *rg = arg;

	return rg->fn(rg->f, b, prev, off, rec, rg->arg);
}

/*
 * entries in b[start, end): a leaf block, or one area of an inline
 * directory, checked by dir.c's one entry checker; 0 when @fn found what
 * it wanted, 1 when not, or an error
 */
static int region_walk(struct fcr *f, ek_ino_t dir, ek_blk_t blk, uint8_t *b, uint32_t start,
		       uint32_t end, leaf_fn fn, void *arg)
{
	struct region rg = { f, fn, arg };
	int r = ek_dirent_walk(f->fs, dir, blk, b, start, end, false, region_ent, &rg);

	if (r > 0)
		return 0;
	return r < 0 ? r : 1;	/* not found */
}

static int leaf_walk(struct fcr *f, ek_ino_t dir, ek_blk_t blk, uint8_t *b, leaf_fn fn, void *arg)
{
	return region_walk(f, dir, blk, b, 0, f->fs->blksz - (f->fs->has_csum ? DIRENT_TAIL : 0),
			   fn, arg);
}

struct dent {
	const struct ek_fc_rec *r;
	uint8_t ftype;
	bool fold;		/* the parent is casefolded: names match folded */
};

static int try_add(struct fcr *f, uint8_t *b, uint32_t prev, uint32_t off, uint32_t rec, void *arg)
{
	struct dent *d = arg;
	uint32_t used = get_le32(b + off) ? ek_dirent_need(b[off + 6]) : 0;
	uint32_t need = ek_dirent_need(d->r->u.dentry.name_len);

	(void)prev;
	if (rec < used + need)
		return 0;
	if (used) {
		put_le16(b + off + 4, ek_rec_len_to_disk(used, f->fs->blksz));
		off += used;
		rec -= used;
	}
	ek_dirent_put(f->fs, b, off, d->r->u.dentry.ino, rec, (const char *)d->r->u.dentry.name,
		      (uint8_t)d->r->u.dentry.name_len, d->ftype);
	return 1;
}

static int try_remove(struct fcr *f, uint8_t *b, uint32_t prev, uint32_t off, uint32_t rec,
		      void *arg)
{
	struct dent *d = arg;

	/* as the kernel's unlink finds it: in a casefolded parent by folded name */
	if (get_le32(b + off) != d->r->u.dentry.ino ||
	    !ek_name_eq(f->fs, d->fold, (const char *)b + off + 8, b[off + 6],
			(const char *)d->r->u.dentry.name, d->r->u.dentry.name_len))
		return 0;
	if (prev != UINT32_MAX)
		put_le16(b + prev + 4, ek_rec_len_to_disk(off - prev + rec, f->fs->blksz));
	else
		put_le32(b + off, 0);
	return 1;
}

static uint8_t file_type(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return 1;
	case 0040000: return 2;
	case 0020000: return 3;
	case 0060000: return 4;
	case 0010000: return 5;
	case 0140000: return 6;
	case 0120000: return 7;
	}
	return 0;
}

/* an htree index block (the root, or a node: one empty entry over the block) */
static bool dx_block(const struct ek_fs *fs, uint64_t lblk, const uint8_t *b)
{
	return !lblk || (!get_le32(b) && ek_rec_len_from_disk(get_le16(b + 4), fs->blksz) == fs->blksz);
}

/* a fresh leaf block holding one empty entry (and the checksum tail) */
static void init_leaf(struct fcr *f, uint8_t *b)
{
	uint32_t end = f->fs->blksz - (f->fs->has_csum ? DIRENT_TAIL : 0);

	memset(b, 0, f->fs->blksz);
	put_le16(b + 4, ek_rec_len_to_disk(end, f->fs->blksz));
	if (f->fs->has_csum) {
		put_le16(b + end + 4, DIRENT_TAIL);
		b[end + 7] = 0xDE;	/* EXT4_FT_DIR_CSUM */
	}
}

/*
 * Append a block to directory @dir (raw @raw, map @l): allocated near its
 * last block, mapped at i_size, i_size and i_blocks grown; *blk, *b: it.
 */
static int grow_dir(struct fcr *f, ek_ino_t dir, uint8_t *raw, struct ek_extlist *l,
		    ek_blk_t *blk, uint8_t **b)
{
	uint64_t size = ek_inode_size(f->fs, raw);
	uint64_t lblk = (size + f->fs->blksz - 1) >> f->fs->log_blksz;
	ek_blk_t goal = l->n ? l->v[l->n - 1].pblk + l->v[l->n - 1].len : 0;
	int64_t tree = 0;
	int err;

	if (lblk >= UINT32_MAX)
		return ek_corrupt_ino(dir, "directory too large to grow");
	err = ek_wset_alloc_block(f->ws, goal, blk);
	if (!err)
		err = ek_extlist_insert(l, &(struct ek_ext){ .lblk = (uint32_t)lblk, .len = 1, .pblk = *blk });
	if (!err)
		err = ek_extlist_store(f->fs, f->ws, dir, raw, l, &tree);
	if (!err)
		err = ek_wset_block(f->ws, *blk, b);
	if (err)
		return err;
	init_leaf(f, *b);
	size = (lblk + 1) << f->fs->log_blksz;
	ek_inode_size_set(raw, size);
	ek_inode_add_blocks(f->fs, raw, 1 + tree);
	return 0;
}

/* ---- htree: the leaf a name goes to, split when full ------------------------ */

struct dxlevel {
	uint8_t *b;		/* the node block, inside the set */
	struct ek_dx_node node;
	unsigned at;		/* the entry followed */
};

struct dxpath {
	struct ek_inode dir;	/* decoded parent (checksum seed, hash) */
	int version;		/* hash version */
	uint32_t hash;		/* of the name being added */
	unsigned levels;	/* index levels below the root */
	struct dxlevel lv[3];
	uint64_t leaf;		/* logical block of the leaf */
};

static int dir_pblk(const struct ek_extlist *l, uint64_t lblk, ek_blk_t *pblk)
{
	for (size_t i = 0; i < l->n; i++)
		if (lblk >= l->v[i].lblk && lblk < (uint64_t)l->v[i].lblk + l->v[i].len) {
			*pblk = l->v[i].pblk + (lblk - l->v[i].lblk);
			return 0;
		}
	return ek_corrupt_fs("directory block %llu is not mapped", (unsigned long long)lblk);
}

/* walk root to leaf for @name, through the set (ext4_dx_probe) */
static int dx_probe(struct fcr *f, const uint8_t *raw, ek_ino_t dir, const struct ek_extlist *l,
		    const struct ek_fc_rec *r, struct dxpath *p)
{
	uint32_t minor;
	ek_blk_t pblk;
	int err = ek_inode_decode(f->fs, dir, raw, &p->dir);

	if (err && err != -EK_BADCRC)
		return err;
	err = dir_pblk(l, 0, &pblk);
	if (!err)
		err = ek_wset_block(f->ws, pblk, &p->lv[0].b);
	if (!err)
		err = ek_dx_root_parse(f->fs, &p->dir, pblk, p->lv[0].b, &p->lv[0].node);
	if (err)
		return err;
	p->version = ek_dx_hash_version(f->fs, p->lv[0].node.hash_version);
	if (p->version == EXT4_HASH_SIPHASH)
		return ek_unsupp("directory %u: siphash needs the encryption key", dir);
	err = ek_dx_hash_name(p->version, ek_dir_folds(f->fs, p->dir.flags),
			      (const char *)r->u.dentry.name, r->u.dentry.name_len,
			      f->fs->sb.hash_seed, &p->hash, &minor);
	if (err)
		return err;
	p->levels = p->lv[0].node.indirect_levels;
	for (unsigned d = 0;; d++) {
		struct dxlevel *v = &p->lv[d];
		uint64_t child;

		if (!v->node.entries || !v->node.count)
			return ek_corrupt_ino(dir, "htree node without entries");
		v->at = ek_dx_search(&v->node, p->hash);
		child = ek_dx_entry_block(&v->node, v->at);
		if (d == p->levels) {
			p->leaf = child;
			return 0;
		}
		err = dir_pblk(l, child, &pblk);
		if (!err)
			err = ek_wset_block(f->ws, pblk, &p->lv[d + 1].b);
		if (!err)
			err = ek_dx_node_parse(f->fs, &p->dir, pblk, p->lv[d + 1].b, &p->lv[d + 1].node);
		if (err)
			return err;
	}
}

struct dmap {
	uint32_t hash, minor, off, size;
};

static int cmp_dmap(const void *a, const void *b)
{
	const struct dmap *x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

/* write entries @m[0..n) of @src compactly into @dst (an initialised leaf) */
static void pack_leaf(struct fcr *f, uint8_t *dst, const uint8_t *src, const struct dmap *m, size_t n)
{
	uint32_t end = f->fs->blksz - (f->fs->has_csum ? DIRENT_TAIL : 0), off = 0;

	for (size_t i = 0; i < n; i++) {
		uint32_t size = m[i].size;

		memcpy(dst + off, src + m[i].off, 8 + src[m[i].off + 6]);
		put_le16(dst + off + 4, ek_rec_len_to_disk(i + 1 == n ? end - off : size, f->fs->blksz));
		off += size;
	}
}

struct hash_ents {
	struct dmap *m;
	size_t n;
	int version;
	bool fold;		/* casefolded: names hash folded */
	const uint32_t *seed;
};

/* the used entries of a leaf with their hashes, for a split */
static int hash_ent(void *arg, uint8_t *b, uint32_t prev, uint32_t off, uint32_t rec)
{
	struct hash_ents *h = arg;
	struct dmap *e = &h->m[h->n];

	(void)prev, (void)rec;
	if (!get_le32(b + off))
		return 0;
	h->n++;
	e->off = off;
	e->size = ek_dirent_need(b[off + 6]);
	return ek_dx_hash_name(h->version, h->fold, (const char *)b + off + 8, b[off + 6], h->seed,
			       &e->hash, &e->minor);
}

/*
 * The leaf @leaf (block @b, logical @p->leaf) is full: move the upper half
 * of its entries by hash into a new block, as ext4's do_split(), and index
 * it in the node above.  *into: the block where a name of @p->hash now goes.
 */
static int dx_split(struct fcr *f, ek_ino_t dir, uint8_t *raw, struct ek_extlist *l,
		    struct dxpath *p, uint8_t *b, uint8_t **into, ek_blk_t *into_blk, ek_blk_t leaf_blk)
{
	struct dxlevel *v = &p->lv[p->levels];
	uint32_t end = f->fs->blksz - (f->fs->has_csum ? DIRENT_TAIL : 0);
	uint32_t count_off = v->node.count_offset, hash2, moved = 0;
	struct dmap *m = NULL;
	struct hash_ents hm;
	size_t n = 0, split;
	uint8_t *copy = NULL, *nb;
	ek_blk_t nblk;
	int err = 0;

	if (v->node.count >= v->node.limit)
		return ek_unsupp("directory %u: a fast-commit entry needs an htree index split (not implemented yet)",
				 dir);
	m = ek_calloc(f->fs->blksz / 12 + 1, sizeof(*m));
	copy = ek_malloc(f->fs->blksz);
	if (!m || !copy) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(copy, b, f->fs->blksz);
	hm = (struct hash_ents){ .m = m, .version = p->version,
				 .fold = ek_dir_folds(f->fs, p->dir.flags), .seed = f->fs->sb.hash_seed };
	err = ek_dirent_walk(f->fs, dir, leaf_blk, copy, 0, end, false, hash_ent, &hm);
	n = hm.n;
	if (err)
		goto out;
	if (n < 2) {
		err = ek_corrupt(leaf_blk, "directory %u: a full htree leaf with %zu entries", dir, n);
		goto out;
	}
	qsort(m, n, sizeof(*m), cmp_dmap);
	/* from the top, entries until half the block moves */
	for (split = n; split > 1; split--) {
		if (moved + m[split - 1].size / 2 > f->fs->blksz / 2)
			break;
		moved += m[split - 1].size;
	}
	hash2 = m[split].hash;
	if (hash2 == m[split - 1].hash)
		hash2 |= 1;	/* the hash run continues in the new block */
	err = grow_dir(f, dir, raw, l, &nblk, &nb);
	if (err)
		goto out;
	/* the moved entries, then the rest repacked in place, in hash order */
	pack_leaf(f, nb, copy, m + split, n - split);
	init_leaf(f, b);
	pack_leaf(f, b, copy, m, split);
	/* the index entry for the new block, after the split one */
	{
		uint8_t *ent = v->b + count_off + 8 * (v->at + 1);
		uint16_t count = v->node.count;
		uint64_t newlblk = ek_inode_size(f->fs, raw) / f->fs->blksz - 1;

		memmove(ent + 8, ent, 8 * (count - v->at - 1));
		put_le32(ent, hash2);
		put_le32(ent + 4, (uint32_t)newlblk);
		put_le16(v->b + count_off + 2, count + 1);
		v->node.count = count + 1;
		if (v->node.has_tail)
			put_le32(v->b + count_off + 8 * v->node.limit + 4,
				 ek_dx_csum(f->fs, &p->dir, v->b, count_off, count + 1, v->node.limit));
	}
	if (p->hash >= (hash2 & ~1u)) {
		*into = nb;
		*into_blk = nblk;
	} else {
		*into = b;
		*into_blk = leaf_blk;
	}
	seal_leaf(f, dir, raw, b);
	seal_leaf(f, dir, raw, nb);
out:
	free(m);
	free(copy);
	return err;
}

/* set the dx_tail checksum of index block @b (count at @off) when it has one */
static void seal_dx(struct fcr *f, struct dxpath *p, uint8_t *b, uint32_t off)
{
	uint16_t limit = get_le16(b + off), count = get_le16(b + off + 2);

	if (f->fs->has_csum && off + 8u * limit + 8 <= f->fs->blksz)
		put_le32(b + off + 8 * limit + 4, ek_dx_csum(f->fs, &p->dir, b, off, count, limit));
}

/*
 * The index node above a full leaf is full too (ext4_dx_add_entry): split
 * the lowest index level whose parent has room, or, when even the root is
 * full, move the root's entries into a new node and add a level.  The
 * caller probes again afterwards.
 */
static int dx_grow_index(struct fcr *f, ek_ino_t dir, uint8_t *raw, struct ek_extlist *l,
			 struct dxpath *p)
{
	uint32_t limit2 = (f->fs->blksz - EXT4_DX_NODE_ENTRIES_OFF - (f->fs->has_csum ? 8 : 0)) / 8;
	int d = (int)p->levels;
	struct dxlevel *v;
	ek_blk_t nblk;
	uint64_t nlblk;
	uint8_t *nb;
	int err;

	while (d > 0 && p->lv[d - 1].node.count >= p->lv[d - 1].node.limit)
		d--;
	v = &p->lv[d];
	if (d == 0 && v->node.count >= v->node.limit && p->levels >= ek_dx_max_levels(f->fs))
		return ek_err(-ENOSPC, "directory %u: htree index full", dir);
	err = grow_dir(f, dir, raw, l, &nblk, &nb);
	if (err)
		return err;
	nlblk = ek_inode_size(f->fs, raw) / f->fs->blksz - 1;
	/* an index node: one empty entry over the block, then the entries */
	memset(nb, 0, f->fs->blksz);
	put_le16(nb + 4, ek_rec_len_to_disk(f->fs->blksz, f->fs->blksz));
	if (d > 0) {
		/* split level d in two; its parent takes the upper half's first hash */
		struct dxlevel *up = &p->lv[d - 1];
		uint16_t count = v->node.count, c1 = count / 2, c2 = count - c1;
		uint32_t off = v->node.count_offset, hash2 = get_le32(v->b + off + 8 * c1);
		uint8_t *ent = up->b + up->node.count_offset + 8 * (up->at + 1);

		memcpy(nb + EXT4_DX_NODE_ENTRIES_OFF, v->b + off + 8 * c1, 8 * c2);
		put_le16(nb + EXT4_DX_NODE_ENTRIES_OFF, limit2);
		put_le16(nb + EXT4_DX_NODE_ENTRIES_OFF + 2, c2);
		put_le16(v->b + off + 2, c1);
		memmove(ent + 8, ent, 8 * (up->node.count - up->at - 1));
		put_le32(ent, hash2);
		put_le32(ent + 4, (uint32_t)nlblk);
		put_le16(up->b + up->node.count_offset + 2, up->node.count + 1);
		seal_dx(f, p, v->b, off);
		seal_dx(f, p, up->b, up->node.count_offset);
	} else {
		/* the root's entries move down; the root points at them alone */
		uint32_t off = v->node.count_offset;

		memcpy(nb + EXT4_DX_NODE_ENTRIES_OFF, v->b + off, 8 * v->node.count);
		put_le16(nb + EXT4_DX_NODE_ENTRIES_OFF, limit2);
		put_le16(v->b + off + 2, 1);
		put_le32(v->b + off + 4, (uint32_t)nlblk);
		v->b[EXT4_DX_ROOT_INFO_OFF + 6]++;	/* indirect_levels */
		seal_dx(f, p, v->b, off);
	}
	seal_dx(f, p, nb, EXT4_DX_NODE_ENTRIES_OFF);
	return 0;
}

/* add @d's name to an indexed directory: its hashed leaf, split when full */
static int dx_add(struct fcr *f, ek_ino_t dir, uint8_t *raw, struct ek_extlist *l, struct dent *d)
{
	int err = 0;

	/* at most: a new index level, an index split, then the leaf split */
	for (int round = 0; round < 4 && !err; round++) {
		struct dxpath p = { 0 };
		ek_blk_t blk;
		uint8_t *b;
		int found = 1;

		err = dx_probe(f, raw, dir, l, d->r, &p);
		if (!err)
			err = dir_pblk(l, p.leaf, &blk);
		if (!err)
			err = ek_wset_block(f->ws, blk, &b);
		if (!err)
			found = leaf_walk(f, dir, blk, b, try_add, d);
		if (!err && found == 1) {	/* the leaf is full */
			struct dxlevel *v = &p.lv[p.levels];

			if (v->node.count >= v->node.limit) {
				err = dx_grow_index(f, dir, raw, l, &p);
				ek_inode_release(&p.dir);
				continue;	/* probe again, as the kernel restarts */
			}
			err = dx_split(f, dir, raw, l, &p, b, &b, &blk, blk);
			if (!err)
				found = leaf_walk(f, dir, blk, b, try_add, d);
			if (!err && found == 1)
				err = ek_corrupt(blk, "directory %u: no room after an htree split", dir);
		}
		if (!err && found < 0)
			err = found;
		if (!err)
			seal_leaf(f, dir, raw, b);
		ek_inode_release(&p.dir);
		return err;
	}
	return err ? err : ek_corrupt_ino(dir, "htree: no room for an entry after growing the index");
}

/* ---- inline directories ------------------------------------------------------ */

#define INLINE_PARENT	4			/* parent inode at the start of i_block */
#define INLINE_IBLOCK	(EXT4_N_BLOCKS * 4)

/* where system.data lives in the inode body: its entry and value offsets in @raw */
struct sysdata {
	uint32_t entry, value, len;	/* entry 0: none */
};

static int find_sysdata(struct fcr *f, ek_ino_t ino, const uint8_t *raw, struct sysdata *sd)
{
	uint32_t isz = f->fs->inode_size, extra, first, off;

	memset(sd, 0, sizeof(*sd));
	if (isz <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	extra = get_le16(raw + offsetof(struct ext4_inode, i_extra_isize));
	first = EXT4_GOOD_OLD_INODE_SIZE + extra + 4;
	if (first + 4 > isz || get_le32(raw + first - 4) != EXT4_XATTR_MAGIC)
		return 0;
	for (off = first; off + 4 <= isz && get_le32(raw + off); ) {
		const struct ext4_xattr_entry *e = (const void *)(raw + off);
		uint32_t elen = EXT4_XATTR_LEN(e->e_name_len);

		if (off + elen > isz)
			return ek_corrupt_ino(ino, "in-inode xattr entry past the inode");
		if (e->e_name_index == EXT4_XATTR_INDEX_SYSTEM && e->e_name_len == 4 &&
		    !memcmp(e->e_name, "data", 4) && !e->e_value_inum) {
			sd->entry = off;
			sd->value = first + le16_to_cpu(e->e_value_offs);
			sd->len = le32_to_cpu(e->e_value_size);
			if (sd->len && sd->value + sd->len > isz)
				return ek_corrupt_ino(ino, "system.data value past the inode");
			return 0;
		}
		off += elen;
	}
	return 0;
}

/*
 * Remove system.data from the inode body (ext4_destroy_inline_data): the
 * values stored below its value move up over it, the entries after it
 * move down.  Every entry and value is checked to lie in the body first.
 */
static int drop_sysdata(struct fcr *f, ek_ino_t ino, uint8_t *raw, const struct sysdata *sd)
{
	uint32_t isz = f->fs->inode_size;
	uint32_t first = EXT4_GOOD_OLD_INODE_SIZE + get_le16(raw + offsetof(struct ext4_inode, i_extra_isize)) + 4;
	struct ext4_xattr_entry *e = (void *)(raw + sd->entry);
	uint32_t elen = EXT4_XATTR_LEN(e->e_name_len), vlen = (sd->len + 3) & ~3u;
	uint32_t end = first, lowest = sd->value;

	/* end: the terminating zero word after the last entry */
	while (get_le32(raw + end)) {
		const struct ext4_xattr_entry *o = (const void *)(raw + end);
		uint32_t olen = EXT4_XATTR_LEN(o->e_name_len), v;

		if (end + olen + 4 > isz)
			return ek_corrupt_ino(ino, "in-inode xattr entries run past the inode");
		v = first + le16_to_cpu(o->e_value_offs);
		if (o->e_value_size && !o->e_value_inum &&
		    (v < end + olen || v + le32_to_cpu(o->e_value_size) > isz))
			return ek_corrupt_ino(ino, "in-inode xattr value outside the inode body");
		if (o->e_value_size && !o->e_value_inum && v < lowest)
			lowest = v;
		end += olen;
	}
	if (vlen) {
		for (uint32_t off = first; off < end; off += EXT4_XATTR_LEN(raw[off])) {
			struct ext4_xattr_entry *o = (void *)(raw + off);

			if (o->e_value_size && !o->e_value_inum &&
			    first + le16_to_cpu(o->e_value_offs) < sd->value)
				o->e_value_offs = cpu_to_le16(le16_to_cpu(o->e_value_offs) + vlen);
		}
		memmove(raw + lowest + vlen, raw + lowest, sd->value - lowest);
		memset(raw + lowest, 0, vlen);
	}
	memmove(raw + sd->entry, raw + sd->entry + elen, end + 4 - sd->entry - elen);
	memset(raw + end + 4 - elen, 0, elen);
	return 0;
}

struct collect_ents {
	struct dmap *m;
	size_t n;
	const uint8_t *base;
};

static int collect_ent(struct fcr *f, uint8_t *b, uint32_t prev, uint32_t off, uint32_t rec,
		       void *arg)
{
	struct collect_ents *c = arg;

	(void)f, (void)prev, (void)rec;
	if (get_le32(b + off)) {
		c->m[c->n].off = (uint32_t)(b + off - c->base);
		c->m[c->n].size = ek_dirent_need(b[off + 6]);
		c->n++;
	}
	return 0;
}

/*
 * The inline directory @dir has no room: make it a block directory as the
 * kernel's ext4_convert_inline_data_nolock() does: ".", "..", the inline
 * entries, in a new block mapped at 0; system.data goes.
 */
static int convert_inline_dir(struct fcr *f, ek_ino_t dir, uint8_t *raw, const struct sysdata *sd)
{
	uint32_t end = f->fs->blksz - (f->fs->has_csum ? DIRENT_TAIL : 0);
	uint8_t *ib = raw + offsetof(struct ext4_inode, i_block), *copy, *b;
	struct collect_ents c = { 0 };
	struct ek_extlist l = { 0 };
	uint32_t flags = get_le32(raw + offsetof(struct ext4_inode, i_flags)), off;
	ek_blk_t blk;
	int64_t tree = 0;
	int err;

	if (!ek_has_incompat(f->fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return ek_unsupp("directory %u: converting an inline directory without extents", dir);
	copy = ek_malloc(f->fs->inode_size);
	c.m = ek_calloc(f->fs->inode_size / 12 + 2, sizeof(*c.m));
	if (!copy || !c.m) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(copy, raw, f->fs->inode_size);
	c.base = copy;
	err = region_walk(f, dir, 0, copy + offsetof(struct ext4_inode, i_block), INLINE_PARENT,
			  INLINE_IBLOCK, collect_ent, &c);
	if (err == 1)
		err = 0;
	if (!err && sd->entry && sd->len)
		err = region_walk(f, dir, 0, copy + sd->value, 0, sd->len, collect_ent, &c);
	if (err == 1)
		err = 0;
	if (!err)
		err = ek_wset_alloc_block(f->ws, ek_group_first_block(f->fs, ek_group_of_ino(f->fs, dir)), &blk);
	if (!err)
		err = ek_wset_block(f->ws, blk, &b);
	if (err)
		goto out;
	init_leaf(f, b);
	ek_dirent_put(f->fs, b, 0, dir, 12, ".", 1, EXT4_FT_DIR);
	ek_dirent_put(f->fs, b, 12, get_le32(ib), c.n ? 12 : end - 12, "..", 2, EXT4_FT_DIR);
	off = 24;
	for (size_t i = 0; i < c.n; i++) {
		const uint8_t *e = copy + c.m[i].off;

		memcpy(b + off, e, 8 + e[6]);
		put_le16(b + off + 4, ek_rec_len_to_disk(i + 1 == c.n ? end - off : c.m[i].size,
							 f->fs->blksz));
		off += c.m[i].size;
	}
	/* the inode: a block directory with one extent */
	if (sd->entry && (err = drop_sysdata(f, dir, raw, sd)))
		goto out;
	put_le32(raw + offsetof(struct ext4_inode, i_flags),
		 (flags & ~EXT4_INLINE_DATA_FL) | EXT4_EXTENTS_FL);
	ek_ext_root_init(ib);
	err = ek_extlist_insert(&l, &(struct ek_ext){ .lblk = 0, .len = 1, .pblk = blk });
	if (!err)
		err = ek_extlist_store(f->fs, f->ws, dir, raw, &l, &tree);
	if (err)
		goto out;
	ek_inode_size_set(raw, f->fs->blksz);
	ek_inode_add_blocks(f->fs, raw, 1 + tree);
	seal_leaf(f, dir, raw, b);
out:
	ek_extlist_release(&l);
	free(c.m);
	free(copy);
	return err;
}

/* system.data's e_hash after its value changed */
static void rehash_sysdata(uint8_t *raw, const struct sysdata *sd)
{
	struct ext4_xattr_entry *e = (void *)(raw + sd->entry);

	e->e_hash = cpu_to_le32(sd->len ? ek_xattr_hash("data", 4, raw + sd->value, sd->len) : 0);
}

/*
 * An empty system.data grows to all the room the inode body has, holding
 * one empty entry, as the kernel's ext4_update_inline_dir() does; only
 * when it is the body's one xattr.  0, or 1 when there is no such room.
 */
static int expand_sysdata(struct fcr *f, uint8_t *raw, struct sysdata *sd)
{
	uint32_t isz = f->fs->inode_size;
	uint32_t first = EXT4_GOOD_OLD_INODE_SIZE + get_le16(raw + offsetof(struct ext4_inode, i_extra_isize)) + 4;
	struct ext4_xattr_entry *e = (void *)(raw + sd->entry);
	uint32_t next = sd->entry + EXT4_XATTR_LEN(e->e_name_len), max;

	if (!sd->entry || sd->len || sd->entry != first || next + 4 > isz || get_le32(raw + next))
		return 1;
	max = (isz - next - 4) & ~3u;
	if (max <= ek_dirent_need(1))
		return 1;
	sd->value = isz - max;
	sd->len = max;
	e->e_value_offs = cpu_to_le16(sd->value - first);
	e->e_value_size = cpu_to_le32(max);
	memset(raw + sd->value, 0, max);
	put_le16(raw + sd->value + 4, max);
	return 0;
}

/* add or remove @d's entry in the inline directory @dir (raw @raw) */
static int inline_op(struct fcr *f, ek_ino_t dir, uint8_t *raw, struct dent *d, bool add)
{
	uint8_t *ib = raw + offsetof(struct ext4_inode, i_block);
	leaf_fn fn = add ? try_add : try_remove;
	struct sysdata sd;
	int found, err = find_sysdata(f, dir, raw, &sd);

	if (err)
		return err;
	found = region_walk(f, dir, 0, ib, INLINE_PARENT, INLINE_IBLOCK, fn, d);
	if (found == 1 && add && sd.entry && !sd.len && !expand_sysdata(f, raw, &sd))
		ek_inode_size_set(raw, INLINE_IBLOCK + sd.len);
	if (found == 1 && sd.entry && sd.len) {
		found = region_walk(f, dir, 0, raw + sd.value, 0, sd.len, fn, d);
		if (!found)
			rehash_sysdata(raw, &sd);
	}
	if (found < 0)
		return found;
	if (found == 1 && !add)
		return -ENOENT;
	if (found == 1) {
		err = convert_inline_dir(f, dir, raw, &sd);
		if (err)
			return err;
		return 2;	/* now a block directory: the caller adds there */
	}
	ek_inode_csum_set(f->fs, dir, raw);
	return 0;
}

/*
 * Add (@add) or remove the entry of @r in its parent; -ENOENT when it is
 * not there.  An indexed parent takes the name in the leaf its hash maps
 * to; a linear one in the first block with room, else in a new block.
 */
static int dentry_op(struct fcr *f, const struct ek_fc_rec *r, bool add, uint16_t mode)
{
	ek_ino_t dir = r->u.dentry.parent;
	struct dent d = { .r = r };
	struct ek_extlist l;
	uint8_t *raw, *b;
	bool indexed;
	int err = dir_blocks(f, dir, &raw, &l), found = 1;

	if (ek_has_incompat(f->fs, EXT4_FEATURE_INCOMPAT_FILETYPE))
		d.ftype = file_type(mode);
	if (err == 0 || err == 2)
		d.fold = ek_dir_folds(f->fs, get_le32(raw + offsetof(struct ext4_inode, i_flags)));
	if (err == 2) {		/* inline, unless it had to become a block directory */
		err = inline_op(f, dir, raw, &d, add);
		if (err != 2)
			return err;
		err = dir_blocks(f, dir, &raw, &l);
	}
	if (err)
		return err;
	indexed = get_le32(raw + offsetof(struct ext4_inode, i_flags)) & EXT4_INDEX_FL;
	if (indexed && add) {
		err = dx_add(f, dir, raw, &l, &d);
		ek_extlist_release(&l);
		if (!err)
			ek_inode_csum_set(f->fs, dir, raw);
		return err;
	}
	for (size_t i = 0; i < l.n && found == 1 && !err; i++) {
		for (uint32_t k = 0; k < l.v[i].len && found == 1 && !err; k++) {
			uint64_t lblk = (uint64_t)l.v[i].lblk + k;
			ek_blk_t blk = l.v[i].pblk + k;

			if (l.v[i].unwritten)
				continue;
			err = ek_wset_block(f->ws, blk, &b);
			if (err || (indexed && dx_block(f->fs, lblk, b)))
				continue;
			found = leaf_walk(f, dir, blk, b, add ? try_add : try_remove, &d);
			if (found < 0)
				err = found;
			else if (!found)
				seal_leaf(f, dir, raw, b);
		}
	}
	if (!err && found == 1 && add) {
		ek_blk_t blk;

		err = grow_dir(f, dir, raw, &l, &blk, &b);
		if (!err)
			found = leaf_walk(f, dir, blk, b, try_add, &d);
		if (found < 0)
			err = found;
		else if (!err)
			seal_leaf(f, dir, raw, b);
	}
	ek_extlist_release(&l);
	if (!err && found == 1)
		err = -ENOENT;
	if (!err && add)
		ek_inode_csum_set(f->fs, dir, raw);
	return err;
}

/* a new directory's first block: "." and ".." (the kernel's ext4_init_new_dir) */
static int init_new_dir(struct fcr *f, ek_ino_t ino, uint8_t *raw, ek_ino_t parent)
{
	uint32_t end = f->fs->blksz - (f->fs->has_csum ? DIRENT_TAIL : 0);
	struct ek_extlist l;
	ek_blk_t blk;
	uint8_t *b;
	int err;

	if (!(get_le32(raw + offsetof(struct ext4_inode, i_flags)) & EXT4_EXTENTS_FL))
		return ek_unsupp("inode %u: a new block-mapped directory from a fast commit", ino);
	err = ek_extlist_load(f->fs, f->ws, ino, raw, &l);
	if (err)
		return err;
	if (l.n) {	/* it has blocks already: nothing to make */
		ek_extlist_release(&l);
		return 0;
	}
	ek_inode_size_set(raw, 0);
	err = grow_dir(f, ino, raw, &l, &blk, &b);
	ek_extlist_release(&l);
	if (err)
		return err;
	ek_dirent_put(f->fs, b, 0, ino, 12, ".", 1, EXT4_FT_DIR);
	ek_dirent_put(f->fs, b, 12, parent, end - 12, "..", 2, EXT4_FT_DIR);
	seal_leaf(f, ino, raw, b);
	return 0;
}

static int link_entry(struct fcr *f, const struct ek_fc_rec *r, bool creat)
{
	ek_ino_t ino = r->u.dentry.ino;
	uint16_t mode;
	uint8_t *raw;
	int err;

	if (creat) {
		/* the inode came in an INODE record just before */
		err = ek_wset_inode(f->ws, ino, &raw);
		if (err)
			return err;
		mode = get_le16(raw + offsetof(struct ext4_inode, i_mode));
		err = ek_wset_mark_inode(f->ws, ino, true, ek_is_dir(mode));
		if (!err && ek_is_dir(mode))
			err = init_new_dir(f, ino, raw, r->u.dentry.parent);
	} else {
		err = live_inode(f, ino, &raw);
		if (!err && !raw)
			return 0;	/* the kernel's iget() fails: skipped */
	}
	if (err)
		return err;
	err = dentry_op(f, r, true, get_le16(raw + offsetof(struct ext4_inode, i_mode)));
	if (!err && creat)	/* as the kernel's replay: set_nlink(inode, 1) */
		put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	if (!err)
		err = touch(f, ino);
	return err;
}

static int unlink_entry(struct fcr *f, const struct ek_fc_rec *r)
{
	uint8_t *raw;
	int err = live_inode(f, r->u.dentry.ino, &raw);

	if (err || !raw)
		return err;
	err = dentry_op(f, r, false, 0);
	if (err == -ENOENT)
		return 0;	/* already gone: nothing to do */
	if (!err) {
		uint16_t links = get_le16(raw + offsetof(struct ext4_inode, i_links_count));

		put_le16(raw + offsetof(struct ext4_inode, i_links_count), links ? links - 1 : 0);
		err = touch(f, r->u.dentry.ino);
	}
	return err;
}

int ek_fc_replay(struct ek_fs *fs, struct ek_wset *ws, const struct ek_fclog *log)
{
	struct fcr f = { .fs = fs, .ws = ws };
	int err = 0;

	if (log->state != EK_FC_VALID)
		return 0;
	/* new tree blocks must not land on blocks the fast commits map */
	for (size_t i = 0; i < log->nreplay && !err; i++)
		if (log->recs[i].tag == EXT4_FC_TAG_ADD_RANGE)
			err = ek_wset_exclude(ws, log->recs[i].u.range.pblk, log->recs[i].u.range.len);
	for (size_t i = 0; i < log->nreplay && !err; i++) {
		const struct ek_fc_rec *r = &log->recs[i];

		switch (r->tag) {
		case EXT4_FC_TAG_HEAD:
		case EXT4_FC_TAG_TAIL:
		case EXT4_FC_TAG_PAD:
			break;
		case EXT4_FC_TAG_ADD_RANGE:
			err = ek_fc_rec_check(fs, r);
			if (!err)
				err = add_range(&f, r);
			break;
		case EXT4_FC_TAG_DEL_RANGE:
			err = ek_fc_rec_check(fs, r);
			if (!err)
				err = del_range(&f, r);
			break;
		case EXT4_FC_TAG_INODE:
			err = ek_fc_rec_check(fs, r);
			if (!err)
				err = replay_inode(&f, r);
			break;
		case EXT4_FC_TAG_LINK:
		case EXT4_FC_TAG_CREAT:
			err = ek_fc_rec_check(fs, r);
			if (!err)
				err = link_entry(&f, r, r->tag == EXT4_FC_TAG_CREAT);
			break;
		case EXT4_FC_TAG_UNLINK:
			err = ek_fc_rec_check(fs, r);
			if (!err)
				err = unlink_entry(&f, r);
			break;
		default:
			err = ek_unsupp("fast-commit %s records are not replayed",
					ek_fc_tag_name(r->tag));
			break;
		}
	}
	/* the maps as they end up own their blocks (set_bitmaps_and_counters) */
	for (size_t i = 0; i < f.ntouched && !err; i++) {
		uint8_t *raw;
		uint64_t n;

		err = live_inode(&f, f.touched[i], &raw);
		if (!err && raw)
			err = mark_map(&f, f.touched[i], raw, true, &n);
	}
	for (size_t i = 0; i < f.ntouched && !err; i++) {
		uint8_t *raw;

		err = ek_wset_inode(ws, f.touched[i], &raw);
		if (!err)
			ek_inode_csum_set(fs, f.touched[i], raw);
	}
	if (!err)
		ek_wset_recount(ws);
	free(f.touched);
	return err;
}
