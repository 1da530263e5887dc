// SPDX-License-Identifier: MIT
/*
 * wset.c - a write set: the blocks a change to the filesystem will write.
 *
 * A change (releasing orphans, replaying fast commits) is computed whole in
 * memory first: every block it touches is copied into the set on first use
 * and edited there.  Only then is the set written, either straight to its
 * homes (sorted, adjacent blocks merged) or through the journal as one
 * transaction (journal.c), so nothing is written for a change that fails
 * half way and an interrupted write can be completed.
 *
 * Allocation bookkeeping lives here too: marking a block or inode used or
 * free edits its bitmap in the set and counts only the bits that change, so
 * the group and superblock counters stay right when a change is computed
 * again over a partly written image.  ek_wset_seal() then sets the bitmap,
 * descriptor and superblock checksums.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define WSET_WRITE_BATCH (64u << 10)	/* bytes per merged write: long enough for the
					   disk, short enough not to raise the peak */

struct wblock {
	ek_blk_t blk;
	uint8_t *buf;
};

/*
 * A list of block or inode numbers with a hash index, for the frees a set
 * holds back: a fix freeing a large file or a journal records hundreds of
 * thousands, and each is looked up as it comes.
 */
struct hlist {
	struct ek_held_free *v;
	size_t n, cap;
	size_t *ix;		/* open addressing: index into v + 1; 0 empty, HL_GONE removed */
	size_t ixcap, ixused;	/* (ixused counts the removed slots too) */
};
#define HL_GONE SIZE_MAX

static void hl_free(struct hlist *l)
{
	free(l->v);
	free(l->ix);
	*l = (struct hlist){ 0 };
}

struct ek_wset {
	struct ek_fs *fs;
	struct wblock *blocks;	/* in first-touch order */
	size_t n, cap;
	size_t *slots;		/* open hash of blocks, index + 1, 0 empty */
	size_t nslots;
	uint8_t *touched;	/* per group: 1 block bitmap, 2 inode bitmap, 4 descriptor */
	bool recount;		/* seal counts free blocks and inodes from the bitmaps */
	struct ek_ext *excl;	/* ranges the allocator must not hand out */
	size_t nexcl, excl_cap;
	int64_t free_blocks_delta;	/* blocks, for the superblock */
	int64_t free_inodes_delta;
	/* ek_wset_hold_frees: frees held back (kept across ek_wset_carry), and
	 * blocks this set marked used that the image's bitmap had in use */
	bool hold;
	struct hlist held;
	struct hlist taken;	/* (inode always false) */
};

static size_t slot_of(const struct ek_wset *ws, ek_blk_t blk)
{
	uint64_t h = blk * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 17) & (ws->nslots - 1);
}

static int rehash(struct ek_wset *ws)
{
	size_t nslots = ws->nslots ? ws->nslots * 2 : 256;
	size_t *slots = ek_calloc(nslots, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	free(ws->slots);
	ws->slots = slots;
	ws->nslots = nslots;
	for (size_t i = 0; i < ws->n; i++) {
		size_t s = slot_of(ws, ws->blocks[i].blk);

		while (ws->slots[s])
			s = (s + 1) & (nslots - 1);
		ws->slots[s] = i + 1;
	}
	return 0;
}

int ek_wset_init(struct ek_fs *fs, struct ek_wset **out)
{
	struct ek_wset *ws = ek_calloc(1, sizeof(*ws));

	if (!ws)
		return -ENOMEM;
	ws->fs = fs;
	ws->touched = ek_calloc(fs->group_count, 1);
	if (!ws->touched || rehash(ws)) {
		ek_wset_free(ws);
		return -ENOMEM;
	}
	*out = ws;
	return 0;
}

struct ek_fs *ek_wset_fs(const struct ek_wset *ws)
{
	return ws->fs;
}

void ek_wset_free(struct ek_wset *ws)
{
	if (!ws)
		return;
	for (size_t i = 0; i < ws->n; i++)
		free(ws->blocks[i].buf);
	free(ws->blocks);
	free(ws->slots);
	free(ws->touched);
	free(ws->excl);
	hl_free(&ws->held);
	hl_free(&ws->taken);
	free(ws);
}

void ek_wset_hold_frees(struct ek_wset *ws, bool on)
{
	ws->hold = on;
}

/* the first slot to probe for (@num, @inode) in an index of @cap slots */
static size_t hl_home(uint64_t num, bool inode, size_t cap)
{
	uint64_t h = (num * 2 + inode) * 0x9E3779B97F4A7C15ull;

	return (size_t)(h >> 17) & (cap - 1);
}

/* the index slot naming (@num, @inode), or NULL */
static size_t *hl_slot(const struct hlist *l, uint64_t num, bool inode)
{
	if (!l->ixcap)
		return NULL;
	for (size_t s = hl_home(num, inode, l->ixcap); l->ix[s]; s = (s + 1) & (l->ixcap - 1)) {
		const struct ek_held_free *e;

		if (l->ix[s] == HL_GONE)
			continue;
		e = &l->v[l->ix[s] - 1];
		if (e->num == num && e->inode == inode)
			return &l->ix[s];
	}
	return NULL;
}

/* the index in l->v of (@num, @inode), or l->n */
static size_t hl_find(const struct hlist *l, uint64_t num, bool inode)
{
	const size_t *s = hl_slot(l, num, inode);

	return s ? *s - 1 : l->n;
}

/* the index made anew, with room for twice as many entries */
static int hl_reindex(struct hlist *l)
{
	size_t cap = 64, *ix;

	while (cap < l->n * 4)
		cap *= 2;
	ix = ek_calloc(cap, sizeof(*ix));
	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < l->n; i++) {
		size_t s = hl_home(l->v[i].num, l->v[i].inode, cap);

		while (ix[s])
			s = (s + 1) & (cap - 1);
		ix[s] = i + 1;
	}
	free(l->ix);
	l->ix = ix;
	l->ixcap = cap;
	l->ixused = l->n;
	return 0;
}

/* @e appended (not already there: hl_find first) */
static int hl_add(struct hlist *l, struct ek_held_free e)
{
	size_t s;

	if (ek_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = e;
	if ((l->ixused + 1) * 2 > l->ixcap)
		return hl_reindex(l);
	for (s = hl_home(e.num, e.inode, l->ixcap); l->ix[s] && l->ix[s] != HL_GONE;
	     s = (s + 1) & (l->ixcap - 1))
		;
	if (!l->ix[s])
		l->ixused++;
	l->ix[s] = l->n;
	return 0;
}

/* entry @i taken out (the last one moves into its place) */
static void hl_remove(struct hlist *l, size_t i)
{
	size_t last = l->n - 1;

	*hl_slot(l, l->v[i].num, l->v[i].inode) = HL_GONE;
	if (i != last) {
		*hl_slot(l, l->v[last].num, l->v[last].inode) = i + 1;
		l->v[i] = l->v[last];
	}
	l->n = last;
}

static void hl_clear(struct hlist *l)
{
	l->n = 0;
	l->ixused = 0;
	if (l->ix)
		memset(l->ix, 0, l->ixcap * sizeof(*l->ix));
}


const struct ek_held_free *ek_wset_held(const struct ek_wset *ws, size_t *n)
{
	*n = ws->held.n;
	return ws->held.v;
}

void ek_wset_held_clear(struct ek_wset *ws)
{
	hl_clear(&ws->held);
}

bool ek_wset_is_held(const struct ek_wset *ws, uint64_t num, bool inode)
{
	return hl_slot(&ws->held, num, inode) != NULL;
}

static int hold(struct ek_wset *ws, uint64_t num, bool inode, bool dir)
{
	if (ek_wset_is_held(ws, num, inode))
		return 0;
	return hl_add(&ws->held, (struct ek_held_free){ .num = num, .inode = inode, .dir = dir });
}

void ek_wset_carry(struct ek_wset *to, struct ek_wset *from)
{
	hl_free(&to->held);
	to->hold = from->hold;
	to->held = from->held;
	from->held = (struct hlist){ 0 };
}

size_t ek_wset_count(const struct ek_wset *ws)
{
	return ws->n;
}

void ek_wset_entry(const struct ek_wset *ws, size_t i, ek_blk_t *blk, const uint8_t **buf)
{
	*blk = ws->blocks[i].blk;
	*buf = ws->blocks[i].buf;
}

uint8_t *ek_wset_find(const struct ek_wset *ws, ek_blk_t blk)
{
	for (size_t s = slot_of(ws, blk); ws->slots[s]; s = (s + 1) & (ws->nslots - 1))
		if (ws->blocks[ws->slots[s] - 1].blk == blk)
			return ws->blocks[ws->slots[s] - 1].buf;
	return NULL;
}

/* add @blk with contents @init (read from the image when NULL) */
static int wset_add(struct ek_wset *ws, ek_blk_t blk, const void *init, uint8_t **out)
{
	struct ek_fs *fs = ws->fs;
	uint8_t *buf;
	size_t s;
	int err;

	if (!ek_fs_block_valid(fs, blk) && !(blk == 0 && fs->blksz > 1024))
		return ek_corrupt(blk, "a change would write outside the filesystem");
	if ((ws->n + 1) * 2 > ws->nslots && (err = rehash(ws)))
		return err;
	if (ek_grow(&ws->blocks, &ws->cap, ws->n + 1, sizeof(*ws->blocks)))
		return -ENOMEM;
	buf = ek_malloc(fs->blksz);
	if (!buf)
		return -ENOMEM;
	if (init)
		memcpy(buf, init, fs->blksz);
	else if ((err = ek_fs_read_blocks(fs, blk, 1, buf))) {
		free(buf);
		return err;
	}
	ws->blocks[ws->n] = (struct wblock){ .blk = blk, .buf = buf };
	for (s = slot_of(ws, blk); ws->slots[s]; s = (s + 1) & (ws->nslots - 1))
		;
	ws->slots[s] = ++ws->n;
	*out = buf;
	return 0;
}

int ek_wset_block(struct ek_wset *ws, ek_blk_t blk, uint8_t **out)
{
	uint8_t *buf = ek_wset_find(ws, blk);

	if (buf) {
		*out = buf;
		return 0;
	}
	return wset_add(ws, blk, NULL, out);
}

int ek_wset_put(struct ek_wset *ws, ek_blk_t blk, const void *buf)
{
	uint8_t *b = ek_wset_find(ws, blk);

	if (b) {
		memcpy(b, buf, ws->fs->blksz);
		return 0;
	}
	return wset_add(ws, blk, buf, &b);
}

int ek_wset_read(struct ek_wset *ws, ek_blk_t blk, void *buf)
{
	const uint8_t *b = ek_wset_find(ws, blk);

	if (b) {
		memcpy(buf, b, ws->fs->blksz);
		return 0;
	}
	return ek_fs_read_blocks(ws->fs, blk, 1, buf);
}

/* ---- superblock, descriptors, inodes ------------------------------------------ */

struct ext4_super_block *ek_wset_super(struct ek_wset *ws)
{
	uint8_t *b;

	if (ek_wset_block(ws, ws->fs->blksz == 1024 ? 1 : 0, &b))
		return NULL;
	return (struct ext4_super_block *)(b + (ws->fs->blksz == 1024 ? 0 : 1024));
}

/* the descriptor of group @g inside the set */
int ek_wset_desc(struct ek_wset *ws, uint32_t g, uint8_t **out)
{
	struct ek_fs *fs = ws->fs;
	ek_blk_t blk = ek_gdt_block(fs, fs->sb_block ? fs->sb_block : fs->sb.first_data_block,
				    g / fs->desc_per_block);
	uint8_t *b;
	int err = ek_wset_block(ws, blk, &b);

	if (err)
		return err;
	ws->touched[g] |= 4;
	*out = b + (size_t)(g % fs->desc_per_block) * fs->desc_size;
	return 0;
}

int ek_wset_inode(struct ek_wset *ws, ek_ino_t ino, uint8_t **raw)
{
	ek_blk_t blk;
	uint32_t off;
	uint8_t *b;
	int err = ek_inode_loc(ws->fs, ino, &blk, &off);

	if (!err)
		err = ek_wset_block(ws, blk, &b);
	if (!err)
		*raw = b + off;
	return err;
}

int ek_wset_read_inode(struct ek_wset *ws, ek_ino_t ino, uint8_t *blkbuf, uint8_t **raw)
{
	ek_blk_t blk;
	uint32_t off;
	int err = ek_inode_loc(ws->fs, ino, &blk, &off);

	if (!err)
		err = ek_wset_read(ws, blk, blkbuf);
	if (!err)
		*raw = blkbuf + off;
	return err;
}

void ek_inode_csum_set(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw)
{
	uint32_t c;

	if (!fs->has_csum)
		return;
	c = ek_inode_csum(fs, ino, raw);
	put_le16(raw + offsetof(struct ext4_inode, l_i_checksum_lo), c & 0xFFFF);
	if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE &&
	    get_le16(raw + offsetof(struct ext4_inode, i_extra_isize)) >= EXT4_INODE_CSUM_HI_EXTRA_END)
		put_le16(raw + offsetof(struct ext4_inode, i_checksum_hi), c >> 16);
}

static void desc_add(const struct ek_fs *fs, uint8_t *d, enum ek_gd_field f, int delta)
{
	ek_gd_set(fs, d, f, ek_gd_get(fs, d, f) + delta);
}

static void desc_clear_flag(uint8_t *d, uint16_t flag)
{
	size_t off = offsetof(struct ext4_group_desc, bg_flags);

	put_le16(d + off, get_le16(d + off) & ~flag);
}

/*
 * The bitmap of group @g in the set.  A bitmap first touched is taken from
 * the library's view (an uninitialised group's computed bitmap), with the
 * bytes past the group's bits set as the kernel and e2fsck write them.
 */
int ek_wset_bitmap(struct ek_wset *ws, uint32_t g, bool inode, uint8_t **out)
{
	struct ek_fs *fs = ws->fs;
	const struct ek_group *grp = &fs->groups[g];
	ek_blk_t blk = inode ? grp->inode_bitmap : grp->block_bitmap;
	const uint8_t *map;
	uint8_t *b = ek_wset_find(ws, blk), *d;
	uint64_t bits = inode ? fs->sb.inodes_per_group : fs->sb.clusters_per_group;
	int err;

	if (b) {
		*out = b;
		return 0;
	}
	err = inode ? ek_inode_bitmap_get(fs, g, &map) : ek_block_bitmap_get(fs, g, &map);
	if (!err)
		err = wset_add(ws, blk, map, &b);
	if (!err)
		err = ek_wset_desc(ws, g, &d);
	if (err)
		return err;
	if (!inode && g == fs->group_count - 1)	/* past the end of the filesystem */
		for (uint64_t c = (ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >> fs->cluster_bits;
		     c < bits; c++)
			b[c >> 3] |= 1u << (c & 7);
	if (bits / 8 < fs->blksz)
		memset(b + bits / 8, 0xFF, fs->blksz - bits / 8);
	desc_clear_flag(d, inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT);
	ws->touched[g] |= inode ? 2 : 1;
	*out = b;
	return 0;
}

int64_t ek_wset_free_blocks_delta(const struct ek_wset *ws)
{
	return ws->free_blocks_delta;
}

/*
 * Holding frees, block @blk (bit @bit of group @g, @map the set's bitmap):
 * 1 when the mark is settled here (held, or a hold or taking undone), 0
 * when it goes on as usual (a free of what this set allocated, a use of
 * a free block), <0 on error.
 */
static int held_block(struct ek_wset *ws, uint32_t g, uint32_t bit, ek_blk_t blk, bool used,
		      const uint8_t *map)
{
	const uint8_t *view;
	size_t i;
	int err;

	if (used) {
		if (!ek_bit_test(map, bit))
			return 0;
		i = hl_find(&ws->held, blk, false);
		if (i < ws->held.n) {	/* freed earlier, in use again: no longer held */
			hl_remove(&ws->held, i);
			return 1;
		}
		if ((err = ek_block_bitmap_get(ws->fs, g, &view)))
			return err;
		/* in use on disk already (leaked): a release only forgets it */
		if (ek_bit_test(view, bit) && hl_find(&ws->taken, blk, false) == ws->taken.n &&
		    (err = hl_add(&ws->taken, (struct ek_held_free){ .num = blk })))
			return err;
		return 1;
	}
	if (!ek_bit_test(map, bit))
		return 1;
	if ((err = ek_block_bitmap_get(ws->fs, g, &view)))
		return err;
	if (!ek_bit_test(view, bit))
		return 0;	/* this set allocated it: undone */
	i = hl_find(&ws->taken, blk, false);
	if (i < ws->taken.n) {
		hl_remove(&ws->taken, i);
		return 1;
	}
	err = hold(ws, blk, false, false);
	return err ? err : 1;
}

int ek_wset_mark_block(struct ek_wset *ws, ek_blk_t blk, bool used)
{
	struct ek_fs *fs = ws->fs;
	uint32_t g, bit;
	uint8_t *map, *d;
	int err;

	if (!ek_fs_block_valid(fs, blk))
		return ek_corrupt(blk, "block out of range");
	g = ek_group_of_block(fs, blk);
	bit = (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits;
	err = ek_wset_bitmap(ws, g, false, &map);
	if (!err)
		err = ek_wset_desc(ws, g, &d);
	if (err)
		return err;
	if (ws->hold && (err = held_block(ws, g, bit, blk, used, map)) != 0)
		return err < 0 ? err : 0;
	if (ek_bit_test(map, bit) == used)
		return 0;	/* already so: nothing to count */
	if (used)
		map[bit >> 3] |= 1u << (bit & 7);
	else
		map[bit >> 3] &= ~(1u << (bit & 7));
	desc_add(fs, d, EK_GD_FREE_BLOCKS, used ? -1 : 1);
	ws->free_blocks_delta += used ? -(int64_t)ek_cluster_ratio(fs) : ek_cluster_ratio(fs);
	return 0;
}

int ek_wset_mark_inode(struct ek_wset *ws, ek_ino_t ino, bool used, bool dir)
{
	struct ek_fs *fs = ws->fs;
	uint32_t g, bit;
	uint8_t *map, *d;
	int err;

	if (ino < 1 || ino > fs->sb.inodes_count)
		return ek_corrupt_ino(ino, "inode out of range");
	g = ek_group_of_ino(fs, ino);
	bit = (ino - 1) % fs->sb.inodes_per_group;
	err = ek_wset_bitmap(ws, g, true, &map);
	if (!err)
		err = ek_wset_desc(ws, g, &d);
	if (err)
		return err;
	if (ws->hold && used && ek_bit_test(map, bit)) {
		size_t i = hl_find(&ws->held, ino, true);

		/* freed earlier and held, in use again: its directory count follows */
		if (i < ws->held.n) {
			if (ws->held.v[i].dir != dir)
				desc_add(fs, d, EK_GD_USED_DIRS, dir ? 1 : -1);
			hl_remove(&ws->held, i);
		}
		return 0;
	}
	if (ws->hold && !used && ek_bit_test(map, bit)) {
		const uint8_t *view;

		if ((err = ek_inode_bitmap_get(fs, g, &view)))
			return err;
		if (ek_bit_test(view, bit))
			return hold(ws, ino, true, dir);
	}
	if (ek_bit_test(map, bit) == used)
		return 0;
	if (used)
		map[bit >> 3] |= 1u << (bit & 7);
	else
		map[bit >> 3] &= ~(1u << (bit & 7));
	desc_add(fs, d, EK_GD_FREE_INODES, used ? -1 : 1);
	if (dir)
		desc_add(fs, d, EK_GD_USED_DIRS, used ? 1 : -1);
	if (used && (fs->has_csum || fs->has_gdt_csum)) {
		/* the inode table is in use at least up to this inode */
		uint32_t unused = ek_gd_get(fs, d, EK_GD_ITABLE_UNUSED);

		if (bit + 1 > fs->sb.inodes_per_group - unused)
			ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, fs->sb.inodes_per_group - bit - 1);
	}
	ws->free_inodes_delta += used ? -1 : 1;
	return 0;
}

int ek_wset_exclude(struct ek_wset *ws, ek_blk_t blk, uint32_t len)
{
	if (ek_grow(&ws->excl, &ws->excl_cap, ws->nexcl + 1, sizeof(*ws->excl)))
		return -ENOMEM;
	ws->excl[ws->nexcl++] = (struct ek_ext){ .pblk = blk, .len = len };
	return 0;
}

void ek_wset_recount(struct ek_wset *ws)
{
	ws->recount = true;
}

static bool excluded(const struct ek_wset *ws, ek_blk_t blk)
{
	for (size_t i = 0; i < ws->nexcl; i++)
		if (blk >= ws->excl[i].pblk && blk < ws->excl[i].pblk + ws->excl[i].len)
			return true;
	return false;
}

int ek_wset_alloc_block(struct ek_wset *ws, ek_blk_t goal, ek_blk_t *out)
{
	struct ek_fs *fs = ws->fs;
	struct ek_cluster_scan s;
	const uint8_t *map = NULL;
	ek_blk_t blk;

	ek_cluster_scan_start(fs, goal, &s);
	while (ek_cluster_scan_next(fs, &s, &blk)) {
		if (s.new_group) {	/* the set's bitmap when it changed it */
			map = ek_wset_find(ws, fs->groups[s.g].block_bitmap);
			if (!map || !(ws->touched[s.g] & 1)) {
				int err = ek_block_bitmap_get(fs, s.g, &map);

				if (err)
					return err;
			}
		}
		if (!ek_bit_test(map, s.bit) && ek_fs_block_valid(fs, blk) && !excluded(ws, blk)) {
			*out = blk;
			return ek_wset_mark_block(ws, blk, true);
		}
	}
	return ek_err(-ENOSPC, "no free block left");
}

/* zero bits of the first @nbits of @map */
static uint64_t count_free(const uint8_t *map, uint64_t nbits)
{
	uint64_t n = 0;

	for (uint64_t b = 0; b < nbits; b++)
		n += !ek_bit_test(map, b);
	return n;
}

/* the free counts of group @g from its bitmaps in the set (ek_wset_recount) */
static void recount_group(struct ek_wset *ws, uint32_t g, uint8_t *d)
{
	struct ek_fs *fs = ws->fs;
	const uint8_t *map;

	if ((ws->touched[g] & 1) && (map = ek_wset_find(ws, fs->groups[g].block_bitmap))) {
		uint64_t nbits = (ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >> fs->cluster_bits;
		uint32_t old = ek_gd_get(fs, d, EK_GD_FREE_BLOCKS);
		uint32_t now = (uint32_t)count_free(map, nbits);

		ek_gd_set(fs, d, EK_GD_FREE_BLOCKS, now);
		ws->free_blocks_delta += ((int64_t)now - old) * ek_cluster_ratio(fs);
	}
	if ((ws->touched[g] & 2) && (map = ek_wset_find(ws, fs->groups[g].inode_bitmap))) {
		uint32_t old = ek_gd_get(fs, d, EK_GD_FREE_INODES);
		uint32_t now = (uint32_t)count_free(map, fs->sb.inodes_per_group);

		ek_gd_set(fs, d, EK_GD_FREE_INODES, now);
		ws->free_inodes_delta += (int64_t)now - old;
	}
}

/* take @blk out of the set (its copy dropped) */
static void wset_drop(struct ek_wset *ws, ek_blk_t blk)
{
	for (size_t i = 0; i < ws->n; i++) {
		if (ws->blocks[i].blk != blk)
			continue;
		free(ws->blocks[i].buf);
		ws->blocks[i] = ws->blocks[--ws->n];
		memset(ws->slots, 0, ws->nslots * sizeof(*ws->slots));
		for (size_t k = 0; k < ws->n; k++) {
			size_t s = slot_of(ws, ws->blocks[k].blk);

			while (ws->slots[s])
				s = (s + 1) & (ws->nslots - 1);
			ws->slots[s] = k + 1;
		}
		return;
	}
}

int ek_wset_unchanged(struct ek_wset *ws)
{
	uint8_t *disk = ek_malloc(ws->fs->blksz);
	int same = 1;

	if (!disk)
		return -ENOMEM;
	for (size_t i = 0; i < ws->n && same == 1; i++) {
		int err = ek_fs_read_blocks(ws->fs, ws->blocks[i].blk, 1, disk);

		if (err == -ENOMEM)
			same = err;
		else if (err || memcmp(disk, ws->blocks[i].buf, ws->fs->blksz))
			same = 0;	/* (an unreadable block counts as changed) */
	}
	free(disk);
	return same;
}

/*
 * Holding frees: group @g's bitmaps that the set left with the image's
 * bits are not written (a taking undone, a free held back), so their
 * padding and checksum are not rewritten either; the group's UNINIT flag
 * comes back, and a descriptor left as the image has it is no longer
 * touched (its checksum stays as it is).
 */
static int untouch_unchanged(struct ek_wset *ws, uint32_t g)
{
	struct ek_fs *fs = ws->fs;
	const struct ek_group *grp = &fs->groups[g];
	uint8_t *d;
	int err;

	for (int inode = 0; inode < 2; inode++) {
		ek_blk_t blk = inode ? grp->inode_bitmap : grp->block_bitmap;
		uint64_t nbits = inode ? fs->sb.inodes_per_group :
				 (ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >> fs->cluster_bits;
		uint16_t flag = inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT;
		const uint8_t *view, *map = ek_wset_find(ws, blk);
		size_t off = offsetof(struct ext4_group_desc, bg_flags);
		uint64_t b = 0;

		if (!(ws->touched[g] & (inode ? 2 : 1)) || !map)
			continue;
		err = inode ? ek_inode_bitmap_get(fs, g, &view) : ek_block_bitmap_get(fs, g, &view);
		if (err)
			return err;
		while (b < nbits && ek_bit_test(map, b) == ek_bit_test(view, b))
			b++;
		if (b < nbits)
			continue;
		wset_drop(ws, blk);
		ws->touched[g] &= (uint8_t)~(inode ? 2 : 1);
		if ((err = ek_wset_desc(ws, g, &d)))
			return err;
		if (grp->flags & flag)
			put_le16(d + off, get_le16(d + off) | flag);
	}
	if (!(ws->touched[g] & 3)) {
		if ((err = ek_wset_desc(ws, g, &d)))
			return err;
		if (!memcmp(d, fs->gd_raw + (size_t)g * fs->desc_size, fs->desc_size))
			ws->touched[g] = 0;
	}
	return 0;
}

/*
 * Checksums of everything the set changed: bitmaps into their descriptors,
 * the descriptors, the superblock counters and checksum.  Call once, after
 * the last change.
 */
int ek_wset_seal(struct ek_wset *ws)
{
	struct ek_fs *fs = ws->fs;
	struct ext4_super_block *sb;

	for (uint32_t g = 0; g < fs->group_count; g++) {
		uint8_t *d, *map;
		int err;

		if (ws->hold && ws->touched[g] && (err = untouch_unchanged(ws, g)))
			return err;
		if (!ws->touched[g])
			continue;
		if ((err = ek_wset_desc(ws, g, &d)))
			return err;
		if (ws->recount)
			recount_group(ws, g, d);
		if (fs->has_csum && (ws->touched[g] & 1)) {
			uint32_t c;

			map = ek_wset_find(ws, fs->groups[g].block_bitmap);
			c = ek_bitmap_csum(fs, map, false);
			ek_gd_set(fs, d, EK_GD_BLOCK_BITMAP_CSUM, c);
		}
		if (fs->has_csum && (ws->touched[g] & 2)) {
			uint32_t c;

			map = ek_wset_find(ws, fs->groups[g].inode_bitmap);
			c = ek_bitmap_csum(fs, map, true);
			ek_gd_set(fs, d, EK_GD_INODE_BITMAP_CSUM, c);
		}
		if (fs->has_csum || fs->has_gdt_csum)
			put_le16(d + offsetof(struct ext4_group_desc, bg_checksum),
				 ek_group_desc_csum(fs, g, d));
	}
	sb = ek_wset_super(ws);
	if (!sb)
		return -ENOMEM;
	if (ws->recount) {
		/* the totals too: the sum of the groups' (as a mount computes them) */
		uint64_t fb = 0, fi = 0, old;

		for (uint32_t g = 0; g < fs->group_count; g++) {
			uint8_t *d = NULL;

			if (ws->touched[g] && ek_wset_desc(ws, g, &d))
				return -ENOMEM;
			fb += d ? ek_gd_get(fs, d, EK_GD_FREE_BLOCKS) : fs->groups[g].free_blocks;
			fi += d ? ek_gd_get(fs, d, EK_GD_FREE_INODES) : fs->groups[g].free_inodes;
		}
		fb *= ek_cluster_ratio(fs);
		old = ek_sb_get(sb, EK_SB_FREE_BLOCKS_COUNT);
		ws->free_blocks_delta = (int64_t)(fb - old);
		ws->free_inodes_delta = (int64_t)fi - le32_to_cpu(sb->s_free_inodes_count);
	}
	if (ws->free_blocks_delta) {
		ek_sb_set(sb, EK_SB_FREE_BLOCKS_COUNT,
			  ek_sb_get(sb, EK_SB_FREE_BLOCKS_COUNT) + ws->free_blocks_delta);
		ws->free_blocks_delta = 0;
	}
	if (ws->free_inodes_delta) {
		sb->s_free_inodes_count = cpu_to_le32(le32_to_cpu(sb->s_free_inodes_count) +
						      (int32_t)ws->free_inodes_delta);
		ws->free_inodes_delta = 0;
	}
	if (fs->has_csum)
		sb->s_checksum = cpu_to_le32(ek_super_csum(sb));
	return 0;
}

/* ---- writing -------------------------------------------------------------------- */

static int cmp_blk(const void *a, const void *b)
{
	const struct wblock *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

int ek_wset_sort(struct ek_wset *ws)
{
	size_t nslots = ws->nslots;

	qsort(ws->blocks, ws->n, sizeof(*ws->blocks), cmp_blk);
	ws->nslots /= 2;	/* rehash() doubles it back */
	if (rehash(ws)) {
		ws->nslots = nslots;
		return -ENOMEM;
	}
	return 0;
}

int ek_wset_write(struct ek_wset *ws)
{
	return ek_wset_write_io(ws, ws->fs->io);
}

/* write the set to its homes: ascending, adjacent blocks in one write, then flush */
int ek_wset_write_io(struct ek_wset *ws, struct ek_io *io)
{
	struct ek_fs *fs = ws->fs;
	uint32_t per = WSET_WRITE_BATCH >> fs->log_blksz, n = 0;
	uint8_t *batch;
	int err = ek_wset_sort(ws);

	if (err)
		return err;
	if (!per)
		per = 1;
	batch = ek_malloc((size_t)per << fs->log_blksz);
	if (!batch)
		return -ENOMEM;
	for (size_t i = 0; i <= ws->n && !err; i++) {
		if (n && (i == ws->n || ws->blocks[i].blk != ws->blocks[i - 1].blk + 1 || n == per)) {
			err = ek_io_pwrite(io, batch, (size_t)n << fs->log_blksz,
					   ws->blocks[i - n].blk << fs->log_blksz);
			n = 0;
		}
		if (i < ws->n)
			memcpy(batch + ((size_t)n++ << fs->log_blksz), ws->blocks[i].buf, fs->blksz);
	}
	free(batch);
	if (!err)
		err = ek_io_sync(io);
	ek_inode_cache_drop(fs);
	return err;
}

/* ---- ordered writing (no journal) ----------------------------------------------- */

/*
 * The stages of ek_wset_write_ordered(), written in this order with a
 * flush after each one that wrote (see repair.c for what a cut at each
 * leaves).
 */
enum ow_stage {
	OW_FRESH,	/* blocks this set takes into use: free on disk, nothing points there */
	OW_BITMAP_SET,	/* bitmaps with the set's new bits only (the old | the new) */
	OW_DESC_SET,	/* their descriptors: counts and checksums of those bitmaps */
	OW_POINTER,	/* blocks in use that change: extent, index, xattr, directory... */
	OW_ITABLE,	/* inode-table blocks: the roots that make the rest reachable */
	OW_BITMAP,	/* the bitmaps as the set leaves them (bits freed) */
	OW_DESC,	/* the descriptors as the set leaves them */
	OW_SUPER,	/* the superblock */
};

struct owrite {
	ek_blk_t blk;
	const uint8_t *buf;
	unsigned stage;
};

static int cmp_owrite(const void *a, const void *b)
{
	const struct owrite *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static int cmp_u64(const void *a, const void *b)
{
	const ek_blk_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* the set's index of @blk, or -1 */
static ssize_t wset_index(const struct ek_wset *ws, ek_blk_t blk)
{
	for (size_t s = slot_of(ws, blk); ws->slots[s]; s = (s + 1) & (ws->nslots - 1))
		if (ws->blocks[ws->slots[s] - 1].blk == blk)
			return (ssize_t)ws->slots[s] - 1;
	return -1;
}

/* is @blk (not metadata of the set's own) one the set marks in use and
 * the image's bitmap has free: a block nothing on disk points at yet */
static bool fresh_block(struct ek_wset *ws, ek_blk_t blk)
{
	struct ek_fs *fs = ws->fs;
	const uint8_t *now, *disk;
	uint32_t g, bit;

	if (!ek_fs_block_valid(fs, blk))
		return false;
	g = ek_group_of_block(fs, blk);
	bit = (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits;
	if (!(ws->touched[g] & 1) || !(now = ek_wset_find(ws, fs->groups[g].block_bitmap)))
		return false;
	if (ek_block_bitmap_get(fs, g, &disk))
		return false;
	return ek_bit_test(now, bit) && !ek_bit_test(disk, bit);
}

struct ow {
	struct ek_wset *ws;
	struct owrite *w;
	size_t n, cap;
	uint8_t **bufs;		/* the intermediate bitmaps and descriptor blocks (owned) */
	size_t nbufs, bufs_cap;
};

static int ow_add(struct ow *o, ek_blk_t blk, const uint8_t *buf, unsigned stage)
{
	if (ek_grow(&o->w, &o->cap, o->n + 1, sizeof(*o->w)))
		return -ENOMEM;
	o->w[o->n++] = (struct owrite){ .blk = blk, .buf = buf, .stage = stage };
	return 0;
}

static uint8_t *ow_buf(struct ow *o, const void *init)
{
	uint8_t *b;

	if (ek_grow(&o->bufs, &o->bufs_cap, o->nbufs + 1, sizeof(*o->bufs)))
		return NULL;
	b = ek_malloc(o->ws->fs->blksz);
	if (b) {
		memcpy(b, init, o->ws->fs->blksz);
		o->bufs[o->nbufs++] = b;
	}
	return b;
}

/*
 * Group @g's bitmap (@inode or block) in the set at index @i: when it
 * sets bits the image's has clear, the image's with those bits set is
 * written first (OW_BITMAP_SET, returned in *@mid), the set's own after
 * (OW_BITMAP) unless it is the same.  *@mid NULL: nothing written early.
 */
static int ow_bitmap(struct ow *o, uint32_t g, bool inode, size_t i, const uint8_t **mid,
		     uint8_t *stage)
{
	struct ek_fs *fs = o->ws->fs;
	const uint8_t *now = o->ws->blocks[i].buf, *disk;
	uint8_t *u;
	bool freed = false;

	*mid = NULL;
	stage[i] = OW_BITMAP;
	if (inode ? ek_inode_bitmap_get(fs, g, &disk) : ek_block_bitmap_get(fs, g, &disk))
		return 0;	/* the image's cannot be read: the set's goes with the rest */
	u = ow_buf(o, disk);
	if (!u)
		return -ENOMEM;
	for (uint32_t k = 0; k < fs->blksz; k++) {
		freed |= (disk[k] & ~now[k]) != 0;
		u[k] |= now[k];
	}
	if (!memcmp(u, disk, fs->blksz))
		return 0;	/* nothing new in use */
	*mid = u;
	if (!freed)
		stage[i] = OW_BITMAP_SET;	/* the set's is that one */
	return ow_add(o, o->ws->blocks[i].blk, u, OW_BITMAP_SET);
}

/*
 * The descriptors of the groups whose bitmaps go early (@mid[g * 2 +
 * inode]), as the image has them but for those bitmaps' free counts,
 * checksums, UNINIT flags and the inode table's unused count: the
 * descriptor blocks written at OW_DESC_SET.
 */
static int ow_descs(struct ow *o, const uint8_t *const *mid)
{
	struct ek_wset *ws = o->ws;
	struct ek_fs *fs = ws->fs;
	uint32_t ndesc = (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block;
	ek_blk_t base = fs->sb_block ? fs->sb_block : fs->sb.first_data_block;

	for (uint32_t i = 0; i < ndesc; i++) {
		uint32_t g0 = i * fs->desc_per_block;
		ek_blk_t blk = ek_gdt_block(fs, base, i);
		const uint8_t *fin = ek_wset_find(ws, blk);
		uint8_t *b = NULL;

		for (uint32_t g = g0; g < fs->group_count && g < g0 + fs->desc_per_block; g++) {
			size_t off = (size_t)(g - g0) * fs->desc_size;
			const uint16_t fl = offsetof(struct ext4_group_desc, bg_flags);
			uint8_t *d;

			if (!mid[2 * (size_t)g] && !mid[2 * (size_t)g + 1])
				continue;
			if (!fin)
				return ek_err(-EINVAL, "group %u: a bitmap changes but not its descriptor", g);
			if (!b && !(b = ow_buf(o, fs->gd_raw + (size_t)i * fs->blksz)))
				return -ENOMEM;
			d = b + off;
			for (int inode = 0; inode < 2; inode++) {
				const uint8_t *m = mid[2 * (size_t)g + inode];
				uint64_t nbits = inode ? fs->sb.inodes_per_group :
					(ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >> fs->cluster_bits;

				if (!m)
					continue;
				ek_gd_set(fs, d, inode ? EK_GD_FREE_INODES : EK_GD_FREE_BLOCKS,
					  count_free(m, nbits));
				if (fs->has_csum)
					ek_gd_set(fs, d, inode ? EK_GD_INODE_BITMAP_CSUM :
						  EK_GD_BLOCK_BITMAP_CSUM, ek_bitmap_csum(fs, m, inode));
			}
			/* the flags both agree on (UNINIT cleared as the set clears it),
			 * the inode table in use as far as either says */
			put_le16(d + fl, get_le16(d + fl) & get_le16(fin + off + fl));
			if (fs->has_csum || fs->has_gdt_csum) {
				uint64_t a = ek_gd_get(fs, d, EK_GD_ITABLE_UNUSED);
				uint64_t z = ek_gd_get(fs, fin + off, EK_GD_ITABLE_UNUSED);

				ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, a < z ? a : z);
				put_le16(d + offsetof(struct ext4_group_desc, bg_checksum),
					 ek_group_desc_csum(fs, g, d));
			}
		}
		if (b) {
			int err = ow_add(o, blk, b, OW_DESC_SET);

			if (err)
				return err;
		}
	}
	return 0;
}

/* the stage of every block of the set, in @stage; early copies added to @o */
static int ow_plan(struct ow *o, uint8_t *stage)
{
	struct ek_wset *ws = o->ws;
	struct ek_fs *fs = ws->fs;
	uint32_t ndesc = (fs->group_count + fs->desc_per_block - 1) / fs->desc_per_block;
	ek_blk_t base = fs->sb_block ? fs->sb_block : fs->sb.first_data_block;
	const uint8_t **mid = ek_calloc((size_t)fs->group_count * 2, sizeof(*mid));
	ek_blk_t *itab = ek_calloc(fs->group_count, sizeof(*itab));
	bool early = false;
	int err = 0;

	if (!mid || !itab) {
		err = -ENOMEM;
		goto out;
	}
	/* inode tables: a sorted list of their first blocks (flex_bg puts them anywhere) */
	for (uint32_t g = 0; g < fs->group_count; g++)
		itab[g] = fs->groups[g].inode_table;
	qsort(itab, fs->group_count, sizeof(*itab), cmp_u64);
	for (size_t i = 0; i < ws->n; i++) {
		ek_blk_t blk = ws->blocks[i].blk;
		size_t lo = 0, hi = fs->group_count;

		while (lo < hi) {	/* the last table starting at or before blk */
			size_t mi = lo + (hi - lo) / 2;

			if (itab[mi] <= blk)
				lo = mi + 1;
			else
				hi = mi;
		}
		if (lo && itab[lo - 1] && blk < itab[lo - 1] + fs->itable_blocks)
			stage[i] = OW_ITABLE;
		else
			stage[i] = OW_POINTER;
	}
	for (uint32_t g = 0; g < fs->group_count && !err; g++) {
		for (int inode = 0; inode < 2 && !err; inode++) {
			ek_blk_t blk = inode ? fs->groups[g].inode_bitmap : fs->groups[g].block_bitmap;
			ssize_t i = (ws->touched[g] & (inode ? 2 : 1)) ? wset_index(ws, blk) : -1;

			if (i >= 0)
				err = ow_bitmap(o, g, inode, (size_t)i, &mid[2 * (size_t)g + inode],
						stage);
			early |= mid[2 * (size_t)g + inode] != NULL;
		}
	}
	for (uint32_t i = 0; i < ndesc && !err; i++) {
		ssize_t k = wset_index(ws, ek_gdt_block(fs, base, i));

		if (k >= 0)
			stage[k] = OW_DESC;
	}
	if (!err) {
		ssize_t k = wset_index(ws, fs->blksz == 1024 ? 1 : 0);

		if (k >= 0)
			stage[k] = OW_SUPER;
	}
	for (size_t i = 0; i < ws->n && !err; i++)
		if (stage[i] == OW_POINTER && fresh_block(ws, ws->blocks[i].blk))
			stage[i] = OW_FRESH;
	if (!err && early)
		err = ow_descs(o, mid);
out:
	free(mid);
	free(itab);
	return err;
}

/* @n entries of @w (sorted by stage, then block) written, a flush after each stage */
static int ow_write(struct ek_fs *fs, struct ek_io *io, const struct owrite *w, size_t n)
{
	uint32_t per = WSET_WRITE_BATCH >> fs->log_blksz, k = 0;
	uint8_t *batch;
	int err = 0;

	if (!per)
		per = 1;
	batch = ek_malloc((size_t)per << fs->log_blksz);
	if (!batch)
		return -ENOMEM;
	for (size_t i = 0; i <= n && !err; i++) {
		bool stage_end = i == n || (i && w[i].stage != w[i - 1].stage);

		if (k && (stage_end || w[i].blk != w[i - 1].blk + 1 || k == per)) {
			err = ek_io_pwrite(io, batch, (size_t)k << fs->log_blksz,
					   w[i - k].blk << fs->log_blksz);
			k = 0;
		}
		/* the barrier: what this stage wrote is durable before the next */
		if (!err && stage_end && i)
			err = ek_io_sync(io);
		if (i < n)
			memcpy(batch + ((size_t)k++ << fs->log_blksz), w[i].buf, fs->blksz);
	}
	free(batch);
	return err;
}

int ek_wset_write_ordered(struct ek_wset *ws)
{
	struct ek_fs *fs = ws->fs;
	struct ow o = { .ws = ws };
	uint8_t *stage = ek_calloc(ws->n ? ws->n : 1, 1);
	int err = stage ? ow_plan(&o, stage) : -ENOMEM;

	for (size_t i = 0; i < ws->n && !err; i++) {
		/* a bitmap whose early copy is already the set's is written once */
		if (stage[i] == OW_BITMAP_SET)
			continue;
		err = ow_add(&o, ws->blocks[i].blk, ws->blocks[i].buf, stage[i]);
	}
	if (!err) {
		qsort(o.w, o.n, sizeof(*o.w), cmp_owrite);
		err = ow_write(fs, fs->io, o.w, o.n);
	}
	for (size_t i = 0; i < o.nbufs; i++)
		free(o.bufs[i]);
	free(o.bufs);
	free(o.w);
	free(stage);
	ek_inode_cache_drop(fs);
	return err;
}
