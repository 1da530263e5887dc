// SPDX-License-Identifier: MIT
/*
 * extent.c - changing an inode's block map inside a write set.
 *
 * Extent trees are changed as a whole: the tree is read (through the write
 * set, so earlier changes are seen) into a sorted list of extents, the list
 * is edited (punch a range, insert an extent), and the tree is stored back:
 * up to 4 extents in the inode, else full leaves under as few index levels
 * as needed, reusing the old tree blocks first, allocating near them when
 * more are needed and freeing what is left over.  The result is a valid
 * tree with the same mapping the kernel's incremental edits give, though
 * not always the same node layout.
 *
 * Indirect maps (ext2/ext3) are only ever truncated: data blocks past the
 * cut are freed, pointers to them cleared, indirect blocks left empty freed.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define EXT_UNWRITTEN_MAX_LEN	32767u
#define ROOT_ENTRIES		4u	/* 60-byte i_block: header + 4 entries */

/* ---- the extent node codec ------------------------------------------------------ */

/*
 * As the kernel's __ext4_ext_check(), eh_max 0 is refused even in a node
 * without entries: no writer makes one (a node always has room for the
 * entries its area holds, 4 in i_block), and the checksum of a tree block
 * sits after eh_max entries, so eh_max is what places it.
 */
int ek_ext_node_check(ek_ino_t ino, ek_blk_t blk, const void *node, size_t size, int depth)
{
	return ek_ext_node_check_depth(ino, blk, node, size, depth, EXT4_EXT_MAX_DEPTH);
}

int ek_ext_node_check_depth(ek_ino_t ino, ek_blk_t blk, const void *node, size_t size, int depth,
			    unsigned max_depth)
{
	const struct ext4_extent_header *eh = node;
	uint16_t magic = le16_to_cpu(eh->eh_magic);
	uint16_t entries = le16_to_cpu(eh->eh_entries);
	uint16_t max = le16_to_cpu(eh->eh_max);
	uint16_t d = le16_to_cpu(eh->eh_depth);
	size_t cap = size < sizeof(*eh) ? 0 : (size - sizeof(*eh)) / sizeof(struct ext4_extent);
	const char *where = blk ? "extent block" : "extent root";

	if (magic != EXT4_EXT_MAGIC)
		return ek_corrupt_ino(ino, "%s %llu: bad magic 0x%04x", where,
				      (unsigned long long)blk, magic);
	if (max == 0 || max > cap)
		return ek_corrupt_ino(ino, "%s %llu: eh_max %u invalid (room for %zu)", where,
				      (unsigned long long)blk, max, cap);
	if (entries > max)
		return ek_corrupt_ino(ino, "%s %llu: eh_entries %u > eh_max %u", where,
				      (unsigned long long)blk, entries, max);
	if (d > max_depth)
		return ek_corrupt_ino(ino, "%s %llu: depth %u > %u", where,
				      (unsigned long long)blk, d, max_depth);
	if (depth >= 0 && d != depth)
		return ek_corrupt_ino(ino, "%s %llu: depth %u, parent expects %d", where,
				      (unsigned long long)blk, d, depth);
	if (d > 0 && entries == 0)	/* __ext4_ext_check(): an index node indexes something */
		return ek_corrupt_ino(ino, "%s %llu: index node of depth %u without entries", where,
				      (unsigned long long)blk, d);
	return 0;
}

int ek_ext_node_check_start(ek_ino_t ino, ek_blk_t blk, const void *node, uint32_t start)
{
	const struct ext4_extent_header *eh = node;
	/* ee_block and ei_block are both the first field of an entry */
	uint32_t first = get_le32((const uint8_t *)node + sizeof(*eh));

	if (le16_to_cpu(eh->eh_entries) && first != start)
		return ek_corrupt_ino(ino, "extent block %llu (level %u): logical start %u does not "
				      "match logical start %u of its index entry",
				      (unsigned long long)blk, le16_to_cpu(eh->eh_depth), first, start);
	return 0;
}

/* by byte offsets: records in a fast-commit area are not aligned */
struct ek_ext ek_ext_decode(const void *p)
{
	const uint8_t *x = p;
	uint16_t len = get_le16(x + offsetof(struct ext4_extent, ee_len));

	return (struct ek_ext){
		.lblk = get_le32(x + offsetof(struct ext4_extent, ee_block)),
		.len = len > EXT_INIT_MAX_LEN ? len - EXT_INIT_MAX_LEN : len,
		.pblk = get_le32(x + offsetof(struct ext4_extent, ee_start_lo)) |
			(ek_blk_t)get_le16(x + offsetof(struct ext4_extent, ee_start_hi)) << 32,
		.unwritten = len > EXT_INIT_MAX_LEN,
	};
}

ek_blk_t ek_ext_idx_child(const void *p)
{
	const uint8_t *x = p;

	return get_le32(x + offsetof(struct ext4_extent_idx, ei_leaf_lo)) |
	       (ek_blk_t)get_le16(x + offsetof(struct ext4_extent_idx, ei_leaf_hi)) << 32;
}

uint32_t ek_ext_block_csum(const struct ek_fs *fs, ek_ino_t ino, uint32_t gen, const void *node)
{
	const struct ext4_extent_header *eh = node;

	return ek_crc32c(ek_inode_csum_seed(fs, ino, gen), node,
			 sizeof(*eh) + (size_t)le16_to_cpu(eh->eh_max) * sizeof(struct ext4_extent));
}

int ek_ext_block_csum_set(const struct ek_fs *fs, ek_ino_t ino, uint32_t gen, uint8_t *node)
{
	const struct ext4_extent_header *eh = (const void *)node;
	size_t off = sizeof(*eh) + (size_t)le16_to_cpu(eh->eh_max) * sizeof(struct ext4_extent);

	if (!fs->has_csum)
		return 0;
	if (le16_to_cpu(eh->eh_magic) != EXT4_EXT_MAGIC || off + 4 > fs->blksz)
		return ek_corrupt_ino(ino, "extent block: no room for its checksum (eh_max %u)",
				      le16_to_cpu(eh->eh_max));
	put_le32(node + off, ek_ext_block_csum(fs, ino, gen, node));
	return 0;
}

static void put_header(uint8_t *p, uint16_t entries, uint16_t max, uint16_t depth)
{
	struct ext4_extent_header *h = (void *)p;

	h->eh_magic = cpu_to_le16(EXT4_EXT_MAGIC);
	h->eh_entries = cpu_to_le16(entries);
	h->eh_max = cpu_to_le16(max);
	h->eh_depth = cpu_to_le16(depth);
	h->eh_generation = 0;
}

void ek_ext_root_init(uint8_t iblock[EXT4_N_BLOCKS * 4])
{
	memset(iblock, 0, EXT4_N_BLOCKS * 4);
	put_header(iblock, 0, ROOT_ENTRIES, 0);
}

/* ---- reading the tree -------------------------------------------------------- */

struct load {
	struct ek_fs *fs;
	struct ek_wset *ws;
	ek_ino_t ino;
	ek_blk_t blk;		/* the node being read, 0 for the root */
	uint32_t start;		/* ...and where its parent's index entry says it starts */
	struct ek_extlist *l;
	struct ek_set seen;
	size_t ecap, tcap;
};

static int push_ext(struct load *ld, const struct ek_ext *e)
{
	struct ek_extlist *l = ld->l;

	if (ek_grow(&l->v, &ld->ecap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	l->v[l->n++] = *e;
	return 0;
}

static int push_tree(struct load *ld, ek_blk_t blk)
{
	struct ek_extlist *l = ld->l;

	if (ek_grow(&l->tree, &ld->tcap, l->ntree + 1, sizeof(*l->tree)))
		return -ENOMEM;
	l->tree[l->ntree++] = blk;
	return 0;
}

static int load_node(struct load *ld, const uint8_t *node, uint32_t bytes, int depth_want)
{
	const struct ext4_extent_header *h = (const void *)node;
	uint16_t entries = le16_to_cpu(h->eh_entries), depth = le16_to_cpu(h->eh_depth);
	uint8_t *child = NULL;
	int err = ek_ext_node_check(ld->ino, ld->blk, node, bytes, depth_want);

	if (!err && depth_want >= 0)
		err = ek_ext_node_check_start(ld->ino, ld->blk, node, ld->start);
	if (err)
		return err;
	for (uint16_t i = 0; i < entries && !err; i++) {
		const uint8_t *p = node + 12 + 12 * i;

		if (!depth) {
			struct ek_ext e = ek_ext_decode(p);

			if (!e.len)	/* ext4_valid_extent() */
				err = ek_corrupt_ino(ld->ino, "extent at %u has length 0", e.lblk);
			else if (!ek_fs_range_valid(ld->fs, e.pblk, e.len))
				err = ek_corrupt_ino(ld->ino, "extent at %u maps blocks outside the filesystem",
						     e.lblk);
			else if (ld->l->n &&
				 e.lblk < ld->l->v[ld->l->n - 1].lblk + ld->l->v[ld->l->n - 1].len)
				err = ek_corrupt_ino(ld->ino, "extents out of order at %u", e.lblk);
			else
				err = push_ext(ld, &e);
		} else {
			ek_blk_t blk = ek_ext_idx_child(p), parent = ld->blk;

			/* errors from here on end the loop: @child is freed below */
			if (!ek_fs_block_valid(ld->fs, blk)) {
				err = ek_corrupt_ino(ld->ino, "extent index points outside the filesystem");
				break;
			}
			err = ek_set_add(&ld->seen, blk);
			if (err > 0)
				err = ek_corrupt(blk, "extent tree of inode %u uses this block twice", ld->ino);
			if (!err && !child && !(child = ek_malloc(ld->fs->blksz)))
				err = -ENOMEM;
			if (!err)
				err = push_tree(ld, blk);
			if (!err)
				err = ek_wset_read(ld->ws, blk, child);
			if (!err) {
				ld->blk = blk;
				ld->start = get_le32(p);	/* ei_block */
				err = load_node(ld, child, ld->fs->blksz, depth - 1);
				ld->blk = parent;
			}
		}
	}
	free(child);
	return err;
}

int ek_extlist_load(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, const uint8_t *raw,
		    struct ek_extlist *out)
{
	struct load ld = { .fs = fs, .ws = ws, .ino = ino, .l = out };
	int err;

	memset(out, 0, sizeof(*out));
	err = load_node(&ld, raw + offsetof(struct ext4_inode, i_block), EXT4_N_BLOCKS * 4, -1);
	ek_set_release(&ld.seen);
	if (err)
		ek_extlist_release(out);
	return err;
}

void ek_extlist_release(struct ek_extlist *l)
{
	free(l->v);
	free(l->tree);
	memset(l, 0, sizeof(*l));
}

/* ---- editing the list ---------------------------------------------------------- */

static int list_insert_at(struct ek_extlist *l, size_t at, const struct ek_ext *e)
{
	struct ek_ext *v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->v = v;
	memmove(v + at + 1, v + at, (l->n - at) * sizeof(*v));
	v[at] = *e;
	l->n++;
	return 0;
}

static int free_run(struct ek_wset *ws, ek_blk_t pblk, uint64_t len, uint64_t *freed)
{
	for (uint64_t i = 0; ws && i < len; i++) {
		int err = ek_wset_mark_block(ws, pblk + i, false);

		if (err)
			return err;
	}
	*freed += len;
	return 0;
}

int ek_extlist_punch(struct ek_extlist *l, struct ek_wset *ws, uint64_t from, uint64_t to,
		     uint64_t *freed)
{
	for (size_t i = 0; i < l->n; i++) {
		struct ek_ext *e = &l->v[i];
		uint64_t end = (uint64_t)e->lblk + e->len, cut_lo, cut_hi;
		int err;

		if (end <= from || e->lblk >= to)
			continue;
		cut_lo = e->lblk > from ? e->lblk : from;
		cut_hi = end < to ? end : to;
		err = free_run(ws, e->pblk + (cut_lo - e->lblk), cut_hi - cut_lo, freed);
		if (err)
			return err;
		if (cut_lo > e->lblk && cut_hi < end) {
			/* a hole in the middle: split in two */
			struct ek_ext tail = {
				.lblk = (uint32_t)cut_hi, .len = (uint32_t)(end - cut_hi),
				.pblk = e->pblk + (cut_hi - e->lblk), .unwritten = e->unwritten,
			};

			e->len = (uint32_t)(cut_lo - e->lblk);
			return list_insert_at(l, i + 1, &tail);
		}
		if (cut_lo > e->lblk) {
			e->len = (uint32_t)(cut_lo - e->lblk);
		} else if (cut_hi < end) {
			e->pblk += cut_hi - e->lblk;
			e->len = (uint32_t)(end - cut_hi);
			e->lblk = (uint32_t)cut_hi;
		} else {
			memmove(e, e + 1, (l->n - i - 1) * sizeof(*e));
			l->n--;
			i--;
		}
	}
	return 0;
}

static bool can_merge(const struct ek_ext *a, const struct ek_ext *b)
{
	uint32_t max = a->unwritten ? EXT_UNWRITTEN_MAX_LEN : EXT_INIT_MAX_LEN;

	return a->unwritten == b->unwritten && (uint64_t)a->lblk + a->len == b->lblk &&
	       a->pblk + a->len == b->pblk && (uint64_t)a->len + b->len <= max;
}

int ek_extlist_insert(struct ek_extlist *l, const struct ek_ext *e)
{
	size_t at = 0;
	int err;

	while (at < l->n && l->v[at].lblk < e->lblk)
		at++;
	if (at && (uint64_t)l->v[at - 1].lblk + l->v[at - 1].len > e->lblk)
		return ek_err(-EINVAL, "extent at %u overlaps a mapped range", e->lblk);
	if (at < l->n && (uint64_t)e->lblk + e->len > l->v[at].lblk)
		return ek_err(-EINVAL, "extent at %u overlaps a mapped range", e->lblk);
	if (at && can_merge(&l->v[at - 1], e)) {
		l->v[at - 1].len += e->len;
		at--;
	} else if ((err = list_insert_at(l, at, e))) {
		return err;
	}
	if (at + 1 < l->n && can_merge(&l->v[at], &l->v[at + 1])) {
		l->v[at].len += l->v[at + 1].len;
		memmove(&l->v[at + 1], &l->v[at + 2], (l->n - at - 2) * sizeof(*l->v));
		l->n--;
	}
	return 0;
}

/* ---- storing the tree ------------------------------------------------------------ */

static void put_extent(uint8_t *p, const struct ek_ext *e)
{
	struct ext4_extent *x = (void *)p;

	x->ee_block = cpu_to_le32(e->lblk);
	x->ee_len = cpu_to_le16(e->len + (e->unwritten ? EXT_INIT_MAX_LEN : 0));
	x->ee_start_hi = cpu_to_le16((uint16_t)(e->pblk >> 32));
	x->ee_start_lo = cpu_to_le32((uint32_t)e->pblk);
}

static void put_index(uint8_t *p, uint32_t lblk, ek_blk_t child)
{
	struct ext4_extent_idx *x = (void *)p;

	x->ei_block = cpu_to_le32(lblk);
	x->ei_leaf_lo = cpu_to_le32((uint32_t)child);
	x->ei_leaf_hi = cpu_to_le16((uint16_t)(child >> 32));
	x->ei_unused = 0;
}

/*
 * The tree for @v[0..n): up to 4 extents in the root, else full leaves and
 * index levels above them until the root holds the top level.  Tree blocks
 * come from @alloc (in the order written: leaves, then each level up) and
 * their bytes go to @put with the checksum tail set.  The root's unused
 * slots keep what they held, as ext4 and e2fsck leave them.
 */
int ek_extent_tree_write(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw,
			 const struct ek_ext *v, size_t n, const struct ek_tree_sink *sink)
{
	uint32_t per = (fs->blksz - 12) / 12, count = (uint32_t)n, depth = 0;
	uint32_t gen = get_le32(raw + offsetof(struct ext4_inode, i_generation));
	uint8_t *root = raw + offsetof(struct ext4_inode, i_block), *node = NULL;
	uint32_t *lblks = NULL;
	ek_blk_t *nodes = NULL;
	int err = 0;

	if (n > UINT32_MAX)
		return ek_err(-EINVAL, "inode %llu: %zu extents", (unsigned long long)ino, n);
	if (count <= ROOT_ENTRIES) {
		put_header(root, (uint16_t)count, ROOT_ENTRIES, 0);
		for (uint32_t i = 0; i < count; i++)
			put_extent(root + 12 + 12 * i, &v[i]);
		return 0;
	}
	lblks = ek_calloc((count + per - 1) / per, sizeof(*lblks));
	nodes = ek_calloc((count + per - 1) / per, sizeof(*nodes));
	node = ek_malloc(fs->blksz);
	if (!lblks || !nodes || !node) {
		err = -ENOMEM;
		goto out;
	}
	/* one level per pass: the leaves from @v, then index nodes over the level below */
	for (;;) {
		uint32_t up = (count + per - 1) / per;

		for (uint32_t i = 0, k = 0; i < count && !err; i += per, k++) {
			uint32_t m = count - i < per ? count - i : per;
			ek_blk_t blk;

			memset(node, 0, fs->blksz);
			put_header(node, (uint16_t)m, (uint16_t)per, (uint16_t)depth);
			for (uint32_t e = 0; e < m; e++) {
				if (depth)
					put_index(node + 12 + 12 * e, lblks[i + e], nodes[i + e]);
				else
					put_extent(node + 12 + 12 * e, &v[i + e]);
			}
			if (fs->has_csum)
				put_le32(node + 12 + 12 * per, ek_ext_block_csum(fs, ino, gen, node));
			err = sink->alloc(sink->arg, &blk);
			if (!err)
				err = sink->put(sink->arg, blk, node);
			/* k <= i: this level overwrites what it has read */
			lblks[k] = depth ? lblks[i] : v[i].lblk;
			nodes[k] = blk;
		}
		if (err)
			goto out;
		count = up;
		depth++;
		if (count <= ROOT_ENTRIES)
			break;
	}
	put_header(root, (uint16_t)count, ROOT_ENTRIES, (uint16_t)depth);
	for (uint32_t i = 0; i < count; i++)
		put_index(root + 12 + 12 * i, lblks[i], nodes[i]);
out:
	free(node);
	free(lblks);
	free(nodes);
	return err;
}

/*
 * A tree grown one extent at a time at the end of the file, as libext2fs's
 * ext2fs_extent_insert(EXT2_EXTENT_INSERT_AFTER) grows one (mke2fs's
 * mk_hugefile): a full root moves all its entries to a new block, the root
 * then holding one index entry; a full block below it keeps all but its
 * last entry, which moves to a new block on its right (the "no balance"
 * split of an append), its parent split first when that is full too.  A
 * new block's goal is the block before the first block its node points to
 * (the first extent's start, or the first child).  Slots past a node's
 * entries keep what they held, as libext2fs leaves them.  Nodes stay in
 * memory until ek_extent_grow_finish().
 */
struct grow_node {
	ek_blk_t blk;
	uint8_t *buf;			/* fs->blksz bytes */
};

struct ek_extent_grow {
	const struct ek_fs *fs;
	ek_ino_t ino;
	uint8_t *root;			/* the inode's i_block */
	uint32_t gen;
	int (*alloc)(void *arg, ek_blk_t goal, ek_blk_t *blk);
	void *arg;
	struct grow_node *nodes;	/* every block made, in allocation order */
	size_t n, cap;
	uint8_t *path[EXT4_EXT_MAX_DEPTH + 1];	/* the rightmost node of each level; [0] the root */
	uint16_t depth;
};

int ek_extent_grow_begin(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw,
			 int (*alloc)(void *arg, ek_blk_t goal, ek_blk_t *blk), void *arg,
			 struct ek_extent_grow **out)
{
	struct ek_extent_grow *g = ek_calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->fs = fs;
	g->ino = ino;
	g->root = raw + offsetof(struct ext4_inode, i_block);
	g->gen = get_le32(raw + offsetof(struct ext4_inode, i_generation));
	g->alloc = alloc;
	g->arg = arg;
	g->path[0] = g->root;
	ek_ext_root_init(g->root);
	*out = g;
	return 0;
}

static uint16_t node_entries(const uint8_t *p)
{
	return get_le16(p + offsetof(struct ext4_extent_header, eh_entries));
}

static uint16_t node_max(const uint8_t *p)
{
	return get_le16(p + offsetof(struct ext4_extent_header, eh_max));
}

static void node_set_entries(uint8_t *p, uint16_t n)
{
	put_le16(p + offsetof(struct ext4_extent_header, eh_entries), n);
}

/* the block entry 0 of @p points to: a leaf's first extent, an index's first child */
static ek_blk_t node_first_block(const uint8_t *p, bool leaf)
{
	const uint8_t *e = p + 12;

	if (leaf)
		return get_le32(e + offsetof(struct ext4_extent, ee_start_lo)) |
		       (uint64_t)get_le16(e + offsetof(struct ext4_extent, ee_start_hi)) << 32;
	return get_le32(e + offsetof(struct ext4_extent_idx, ei_leaf_lo)) |
	       (uint64_t)get_le16(e + offsetof(struct ext4_extent_idx, ei_leaf_hi)) << 32;
}

/* a new zeroed tree block from the goal before @p's first block */
static int grow_new_node(struct ek_extent_grow *g, const uint8_t *p, bool leaf, uint8_t **out)
{
	ek_blk_t first = node_first_block(p, leaf);
	struct grow_node *nd;
	int err;

	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 8;
		void *v = realloc(g->nodes, cap * sizeof(*g->nodes));

		if (!v)
			return -ENOMEM;
		g->nodes = v;
		g->cap = cap;
	}
	nd = &g->nodes[g->n];
	if (!(nd->buf = ek_calloc(1, g->fs->blksz)))
		return -ENOMEM;
	if ((err = g->alloc(g->arg, first ? first - 1 : 0, &nd->blk))) {
		free(nd->buf);
		return err;
	}
	g->n++;
	*out = nd->buf;
	return 0;
}

/* make room for one more entry at the end of level @lvl's rightmost node */
static int grow_split(struct ek_extent_grow *g, unsigned lvl)
{
	uint32_t per = (g->fs->blksz - 12) / 12;
	uint8_t *p = g->path[lvl], *q;
	bool leaf = lvl == g->depth;
	uint16_t n = node_entries(p);
	int err;

	if (!lvl) {
		/* the root's entries all move down to a new block */
		if (g->depth == EXT4_EXT_MAX_DEPTH)
			return ek_err(-EFBIG, "inode %llu: extent tree deeper than %d",
				      (unsigned long long)g->ino, EXT4_EXT_MAX_DEPTH);
		if ((err = grow_new_node(g, p, leaf, &q)))
			return err;
		put_header(q, n, (uint16_t)per, g->depth);
		memcpy(q + 12, p + 12, (size_t)n * 12);
		put_header(p, 1, ROOT_ENTRIES, (uint16_t)(g->depth + 1));
		put_index(p + 12, get_le32(q + 12), g->nodes[g->n - 1].blk);
		memmove(&g->path[2], &g->path[1], g->depth * sizeof(g->path[0]));
		g->path[1] = q;
		g->depth++;
		return 0;
	}
	if (node_entries(g->path[lvl - 1]) >= node_max(g->path[lvl - 1])) {
		unsigned before = g->depth;

		if ((err = grow_split(g, lvl - 1)))
			return err;
		lvl += g->depth - before;	/* a new root pushed this level down */
	}
	if ((err = grow_new_node(g, p, leaf, &q)))
		return err;
	put_header(q, 1, (uint16_t)per, (uint16_t)(g->depth - lvl));
	memcpy(q + 12, p + 12 + (size_t)(n - 1) * 12, 12);
	node_set_entries(p, n - 1);	/* the moved entry stays behind, stale */
	{
		uint8_t *up = g->path[lvl - 1];
		uint16_t k = node_entries(up);

		put_index(up + 12 + (size_t)k * 12, get_le32(q + 12), g->nodes[g->n - 1].blk);
		node_set_entries(up, k + 1);
	}
	g->path[lvl] = q;
	return 0;
}

int ek_extent_grow_add(struct ek_extent_grow *g, const struct ek_ext *e)
{
	uint8_t *leaf = g->path[g->depth];
	uint16_t n = node_entries(leaf);
	int err;

	if (n >= node_max(leaf)) {
		if ((err = grow_split(g, g->depth)))
			return err;
		leaf = g->path[g->depth];
		n = node_entries(leaf);
	}
	put_extent(leaf + 12 + (size_t)n * 12, e);
	node_set_entries(leaf, n + 1);
	return 0;
}

int ek_extent_grow_block(struct ek_extent_grow *g, uint32_t lblk, ek_blk_t pblk)
{
	uint8_t *leaf = g->path[g->depth];
	uint16_t n = node_entries(leaf);

	if (n) {
		uint8_t *x = leaf + 12 + (size_t)(n - 1) * 12;
		uint32_t xl = get_le32(x + offsetof(struct ext4_extent, ee_block));
		uint16_t len = get_le16(x + offsetof(struct ext4_extent, ee_len));
		ek_blk_t xp = get_le32(x + offsetof(struct ext4_extent, ee_start_lo)) |
			      (uint64_t)get_le16(x + offsetof(struct ext4_extent, ee_start_hi)) << 32;

		/* an initialised extent ending just before both: one block longer */
		if (len < EXT_INIT_MAX_LEN && xl + len == lblk && xp + len == pblk) {
			put_le16(x + offsetof(struct ext4_extent, ee_len), (uint16_t)(len + 1));
			return 0;
		}
	}
	return ek_extent_grow_add(g, &(struct ek_ext){ .lblk = lblk, .pblk = pblk, .len = 1 });
}

int ek_extent_grow_finish(struct ek_extent_grow *g, const struct ek_tree_sink *sink,
			  uint64_t *blocks)
{
	int err = 0;

	for (size_t i = 0; i < g->n && !err; i++) {
		if (g->fs->has_csum)
			put_le32(g->nodes[i].buf + 12 + 12 * node_max(g->nodes[i].buf),
				 ek_ext_block_csum(g->fs, g->ino, g->gen, g->nodes[i].buf));
		err = sink->put(sink->arg, g->nodes[i].blk, g->nodes[i].buf);
	}
	if (blocks)
		*blocks = g->n;
	return err;
}

void ek_extent_grow_free(struct ek_extent_grow *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n; i++)
		free(g->nodes[i].buf);
	free(g->nodes);
	free(g);
}

void ek_extent_root_grown(uint8_t *raw, const struct ek_ext *v, size_t n)
{
	uint8_t *root = raw + offsetof(struct ext4_inode, i_block);
	uint16_t entries = get_le16(root + offsetof(struct ext4_extent_header, eh_entries));

	if (get_le16(root + offsetof(struct ext4_extent_header, eh_depth)) != 1 || n <= ROOT_ENTRIES)
		return;
	/* the leaf it was: entry i stays until index entry i takes the slot */
	for (size_t i = entries; i < ROOT_ENTRIES; i++)
		put_extent(root + 12 + 12 * i, &v[i]);
}

static uint64_t tree_blocks(uint64_t n, uint32_t per);

/* ek_extlist_store's sink: old tree blocks first, then the caller's spare
 * ones, then new ones near the data */
struct store {
	struct ek_wset *ws;
	const struct ek_extlist *l;
	size_t next_old;	/* old tree blocks handed out so far */
	const ek_blk_t *spare;	/* then these (the caller allocated them) */
	size_t nspare, next_spare;
	ek_blk_t goal;
	int64_t tree_delta;	/* tree blocks allocated minus freed */
	uint32_t blksz;
};

static int store_alloc(void *arg, ek_blk_t *blk)
{
	struct store *st = arg;
	int err;

	if (st->next_old < st->l->ntree) {
		*blk = st->l->tree[st->next_old++];
		return 0;
	}
	if (st->next_spare < st->nspare) {
		*blk = st->spare[st->next_spare++];
		err = ek_wset_mark_block(st->ws, *blk, true);
		if (!err)
			st->tree_delta++;
		return err;
	}
	err = ek_wset_alloc_block(st->ws, st->goal, blk);
	if (!err) {
		st->goal = *blk + 1;
		st->tree_delta++;
	}
	return err;
}

/* (the whole block is the node's: what was there is not read) */
static int store_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	struct store *st = arg;

	return ek_wset_put(st->ws, blk, node);
}

int ek_extlist_store(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
		     const struct ek_extlist *l, int64_t *tree_delta)
{
	return ek_extlist_store_spare(fs, ws, ino, raw, l, NULL, 0, tree_delta);
}

uint64_t ek_extent_tree_blocks(const struct ek_fs *fs, uint64_t n)
{
	return tree_blocks(n, (fs->blksz - 12) / 12);
}

int ek_extlist_store_spare(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
			   const struct ek_extlist *l, const ek_blk_t *spare, size_t nspare,
			   int64_t *tree_delta)
{
	struct store st = { .ws = ws, .l = l, .blksz = fs->blksz, .spare = spare,
			    .nspare = nspare };
	struct ek_tree_sink sink = { .alloc = store_alloc, .put = store_put, .arg = &st };
	int err;

	/* new tree blocks: after the old ones, else just before the data */
	st.goal = l->ntree ? l->tree[0] : l->n && l->v[0].pblk > 1 ? l->v[0].pblk - 1 :
		  ek_group_first_block(fs, ek_group_of_ino(fs, ino));
	err = ek_extent_tree_write(fs, ino, raw, l->v, l->n, &sink);
	for (size_t i = st.next_old; i < l->ntree && !err; i++) {
		err = ek_wset_mark_block(ws, l->tree[i], false);
		st.tree_delta--;
	}
	*tree_delta = st.tree_delta;
	return err;
}

/* ---- unsharing: an inode's own copy of blocks of its map (e2fsck's pass 1D clone) ---- */

struct unshare {
	struct ek_fs *fs;
	struct ek_wset *ws;
	ek_ino_t ino;
	const struct ek_unshare_ops *ops;
	bool plan;		/* only count what a copy needs */
	uint64_t need;		/* blocks to allocate (planning: at most) */
	uint64_t copies;	/* blocks copied */
	uint32_t per;		/* pointers per indirect block */
	uint8_t *buf[4];	/* indirect: one block per level, [0] for data */
	struct ek_set seen;	/* tree blocks met */
};

/* @blk's contents copied to block @to */
static int copy_into(struct unshare *u, ek_blk_t blk, ek_blk_t to, uint8_t *buf)
{
	int err = u->ops->read ? u->ops->read(u->ops->arg, blk, buf) : ek_wset_read(u->ws, blk, buf);

	if (!err)
		err = ek_wset_put(u->ws, to, buf);
	if (!err)
		u->copies++;
	return err;
}

/* @blk's contents copied to a new block (bigalloc: a cluster's first); *out = it */
static int copy_block(struct unshare *u, ek_blk_t blk, ek_blk_t goal, uint8_t *buf, ek_blk_t *out)
{
	int err = u->ops->alloc(u->ops->arg, goal, out);

	return err ? err : copy_into(u, blk, *out, buf);
}

/*
 * The pointer at @slot (le32, in the inode or in an indirect block the
 * caller writes back when *@changed) to a block of @level (0: data, 1:
 * single indirect...) covering logical blocks from @lblk.
 */
static int ind_unshare(struct unshare *u, uint8_t *slot, unsigned level, uint64_t lblk,
		       bool *changed)
{
	ek_blk_t p = get_le32(slot), np;
	uint64_t span = 1;
	bool child_changed = false;
	uint8_t *b = u->buf[level];
	int d, err = 0;

	/* a pointer outside the filesystem stays: the checker zeroes it
	 * once the block holding it is the inode's own (a copy of a block
	 * it shared with metadata) */
	if (!p || !ek_fs_block_valid(u->fs, p))
		return 0;
	if (level && (err = ek_set_add(&u->seen, p)) != 0)
		return err < 0 ? err : ek_corrupt(p, "block map of inode %u uses this block twice",
						  u->ino);
	d = u->ops->decide(u->ops->arg, p, level > 0);
	if (d < 0)
		return d;
	np = p;
	if (d && u->plan)
		u->need++;
	else if (d && (err = copy_block(u, p, p, b, &np)))
		return err;
	if (level) {
		if ((!d || u->plan) && (err = ek_wset_read(u->ws, p, b)))
			return err;
		for (unsigned i = 1; i < level; i++)
			span *= u->per;
		/* as map.c's walk: logical blocks stop at 2^32 */
		for (uint32_t i = 0; i < u->per && lblk + i * span < (1ull << 32) && !err; i++)
			err = ind_unshare(u, b + 4 * i, level - 1, lblk + i * span, &child_changed);
		if (!err && !u->plan && (d || child_changed))
			err = ek_wset_put(u->ws, np, b);
	}
	if (!err && np != p) {
		put_le32(slot, (uint32_t)np);
		*changed = true;
	}
	return err;
}

static int ind_unshare_inode(struct unshare *u, uint8_t *raw)
{
	uint8_t *ib = raw + offsetof(struct ext4_inode, i_block);
	uint64_t lblk = EXT4_NDIR_BLOCKS, span = u->per;
	bool changed = false;
	int err = 0;

	for (unsigned i = 0; i < 4 && !err; i++)
		if (!(u->buf[i] = ek_malloc(u->fs->blksz)))
			err = -ENOMEM;
	for (unsigned i = 0; i < EXT4_NDIR_BLOCKS && !err; i++)
		err = ind_unshare(u, ib + 4 * i, 0, i, &changed);
	for (unsigned level = 1; level <= 3 && !err && lblk < (1ull << 32); level++) {
		err = ind_unshare(u, ib + 4 * (EXT4_IND_BLOCK + level - 1), level, lblk, &changed);
		lblk += span;
		span *= u->per;
	}
	return err;
}

/* tree blocks a tree of @n extents takes (ek_extent_tree_write's shape) */
static uint64_t tree_blocks(uint64_t n, uint32_t per)
{
	uint64_t total = 0;

	while (n > ROOT_ENTRIES) {
		n = (n + per - 1) / per;
		total += n;
	}
	return total;
}

/* a block of an extent list: extent @i, its block @b */
struct ext_cursor {
	size_t i;
	uint32_t b;
};

static uint64_t ext_cursor_lblk(const struct ek_extlist *l, const struct ext_cursor *c)
{
	return (uint64_t)l->v[c->i].lblk + c->b;
}

static ek_blk_t ext_cursor_pblk(const struct ek_extlist *l, const struct ext_cursor *c)
{
	return l->v[c->i].pblk + c->b;
}

static void ext_cursor_next(const struct ek_extlist *l, struct ext_cursor *c)
{
	if (++c->b >= l->v[c->i].len) {
		c->i++;
		c->b = 0;
	}
}

/* unshare's tree sink: the old tree blocks kept first, then new ones */
struct unshare_sink {
	struct unshare *u;
	ek_blk_t *keep;		/* old tree blocks this inode alone holds */
	size_t nkeep, next;
	ek_blk_t goal;
	uint64_t fresh;		/* tree blocks allocated */
};

static int unshare_alloc(void *arg, ek_blk_t *blk)
{
	struct unshare_sink *s = arg;
	int err;

	if (s->next < s->nkeep) {
		*blk = s->keep[s->next++];
		return 0;
	}
	err = s->u->ops->alloc(s->u->ops->arg, s->goal, blk);
	if (!err)
		s->fresh++;
	return err;
}

static int unshare_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	struct unshare_sink *s = arg;

	return ek_wset_put(s->u->ws, blk, node);
}

static int ext_unshare_inode(struct unshare *u, uint8_t *raw)
{
	struct ek_fs *fs = u->fs;
	struct ek_extlist l;
	struct ek_ext *nv = NULL;
	size_t nn = 0, cap = 0;
	struct unshare_sink s = { .u = u };
	uint64_t worst = 0, cmask = ek_cluster_ratio(fs) - 1;
	bool prev_copied = true;
	uint8_t *buf = NULL;
	int err = ek_extlist_load(fs, u->ws, u->ino, raw, &l);

	if (err)
		return err;
	s.keep = ek_calloc(l.ntree ? l.ntree : 1, sizeof(*s.keep));
	buf = ek_malloc(fs->blksz);
	if (!s.keep || !buf)
		err = -ENOMEM;
	/* tree blocks first: one shared is left to its other owners */
	for (size_t i = 0; i < l.ntree && !err; i++) {
		int d = u->ops->decide(u->ops->arg, l.tree[i], true);

		if (d < 0)
			err = d;
		else if (!d)
			s.keep[s.nkeep++] = l.tree[i];
	}
	/* then the data in logical order, a place at a time: a block, or on
	 * bigalloc the blocks of one logical cluster.  decide is asked once
	 * per physical cluster the place's blocks come from (as pass 1B filed
	 * them); when it picks any, the whole place goes into one new cluster,
	 * each block at its logical offset (which also mends a misaligned one) */
	for (struct ext_cursor at = { 0 }; at.i < l.n && !err;) {
		struct ext_cursor from = at;
		uint64_t place = ext_cursor_lblk(&l, &at) & ~cmask;
		ek_blk_t key = 0, fresh = 0;
		int d = 0;

		for (bool first = true; at.i < l.n && (ext_cursor_lblk(&l, &at) & ~cmask) == place;
		     ext_cursor_next(&l, &at), first = false) {
			ek_blk_t pk = ext_cursor_pblk(&l, &at) & ~cmask;
			int r;

			if (!first && pk == key)
				continue;
			key = pk;
			if ((r = u->ops->decide(u->ops->arg, pk, false)) < 0) {
				err = r;
				break;
			}
			d |= r;
		}
		if (err)
			break;
		if (d && u->plan)
			u->need++;
		for (struct ext_cursor c = from; !err && (c.i != at.i || c.b != at.b);
		     ext_cursor_next(&l, &c)) {
			const struct ek_ext *e = &l.v[c.i];
			uint64_t lblk = ext_cursor_lblk(&l, &c);
			ek_blk_t p = ext_cursor_pblk(&l, &c), np = p;
			struct ek_ext one;

			/* planning, the most extents: each copy one (the new
			 * blocks need not be contiguous), each run kept one */
			if (d || prev_copied || !c.b)
				worst++;
			prev_copied = d;
			if (u->plan)
				continue;
			if (d && !fresh &&
			    (err = u->ops->alloc(u->ops->arg, nn ? nv[nn - 1].pblk + 1 : p, &fresh)))
				break;
			if (d) {
				np = fresh + (lblk & cmask);
				if ((err = copy_into(u, p, np, buf)))
					break;
			}
			one = (struct ek_ext){ .lblk = (uint32_t)lblk, .len = 1, .pblk = np,
					       .unwritten = e->unwritten };
			if (nn && can_merge(&nv[nn - 1], &one))
				nv[nn - 1].len++;
			else
				err = ek_ext_append(&nv, &nn, &cap, &one);
		}
	}
	if (!err && u->plan) {
		uint64_t t = tree_blocks(worst, (fs->blksz - 12) / 12);

		u->need += t > s.nkeep ? t - s.nkeep : 0;
	} else if (!err) {
		struct ek_tree_sink sink = { .alloc = unshare_alloc, .put = unshare_put, .arg = &s };
		uint64_t used;

		s.goal = s.nkeep ? s.keep[0] : nn ? nv[0].pblk : 0;
		err = ek_extent_tree_write(fs, u->ino, raw, nv, nn, &sink);
		used = s.next + s.fresh;
		/* the kept tree blocks the new tree does not use go back */
		for (size_t i = s.next; i < s.nkeep && !err; i++)
			err = u->ops->release(u->ops->arg, s.keep[i]);
		/* (bigalloc: a tree block takes a cluster) */
		if (!err)
			ek_inode_add_blocks(fs, raw, ((int64_t)used - (int64_t)l.ntree) *
							(int64_t)ek_cluster_ratio(fs));
	}
	free(buf);
	free(nv);
	free(s.keep);
	ek_extlist_release(&l);
	return err;
}

int ek_inode_unshare(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
		     const struct ek_unshare_ops *ops, bool plan, uint64_t *need, uint64_t *copies)
{
	struct unshare u = { .fs = fs, .ws = ws, .ino = ino, .ops = ops, .plan = plan,
			     .per = fs->blksz / 4 };
	uint32_t flags = get_le32(raw + offsetof(struct ext4_inode, i_flags));
	int err;

	if (flags & EXT4_INLINE_DATA_FL)
		return 0;
	if (fs->cluster_bits && !(flags & EXT4_EXTENTS_FL))
		return ek_err(-EK_UNSUPP, "inode %u: a block map on bigalloc (copies need extents)",
			      ino);
	err = flags & EXT4_EXTENTS_FL ? ext_unshare_inode(&u, raw) : ind_unshare_inode(&u, raw);
	for (unsigned i = 0; i < 4; i++)
		free(u.buf[i]);
	ek_set_release(&u.seen);
	if (!err && need)
		*need = u.need;
	if (!err && copies)
		*copies = u.copies;
	return err;
}

/* ---- truncation ------------------------------------------------------------------- */

/* i_blocks (512-byte units, or fs blocks with HUGE_FILE_FL) plus @delta fs blocks */
void ek_inode_add_blocks(const struct ek_fs *fs, uint8_t *raw, int64_t delta)
{
	uint64_t v = ek_inode_iblocks(fs, raw);
	bool huge = get_le32(raw + offsetof(struct ext4_inode, i_flags)) & EXT4_HUGE_FILE_FL;
	int64_t units = huge ? delta : delta * (int64_t)(fs->blksz / 512);

	v = (int64_t)v + units < 0 ? 0 : (uint64_t)((int64_t)v + units);
	ek_inode_iblocks_set(raw, v);
}

struct ind {
	struct ek_fs *fs;
	struct ek_wset *ws;
	ek_ino_t ino;
	uint64_t from;		/* first logical block to free */
	uint64_t freed;
	uint32_t per;		/* pointers per block */
	struct ek_set seen;
};

/*
 * Free everything at or past ind->from under the indirect block @blk of
 * @level (1 = pointers to data) covering logical blocks from @base; clear
 * the pointers.  *empty: no pointer is left in it.
 */
static int ind_truncate(struct ind *t, ek_blk_t blk, unsigned level, uint64_t base, bool *empty)
{
	uint64_t span = 1;
	uint8_t *b;
	int err;

	for (unsigned i = 1; i < level; i++)
		span *= t->per;
	if (!ek_fs_block_valid(t->fs, blk))
		return ek_corrupt_ino(t->ino, "indirect block %llu outside the filesystem",
				      (unsigned long long)blk);
	err = ek_set_add(&t->seen, blk);
	if (err > 0)
		return ek_corrupt(blk, "block map of inode %u uses this block twice", t->ino);
	if (!err)
		err = ek_wset_block(t->ws, blk, &b);
	if (err)
		return err;
	*empty = true;
	for (uint32_t i = 0; i < t->per && !err; i++) {
		ek_blk_t p = get_le32(b + 4 * i);
		uint64_t lo = base + i * span;
		bool child_empty = true;

		if (!p)
			continue;
		if (lo + span <= t->from) {
			*empty = false;
			continue;
		}
		if (level > 1)
			err = ind_truncate(t, p, level - 1, lo, &child_empty);
		else if (!ek_fs_block_valid(t->fs, p))
			err = ek_corrupt_ino(t->ino, "block %llu outside the filesystem",
					     (unsigned long long)p);
		if (err)
			break;
		if (child_empty) {
			err = ek_wset_mark_block(t->ws, p, false);
			t->freed++;
			put_le32(b + 4 * i, 0);
		} else {
			*empty = false;
		}
	}
	return err;
}

static int ind_truncate_inode(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
			      uint64_t from, uint64_t *freed)
{
	struct ind t = { .fs = fs, .ws = ws, .ino = ino, .from = from, .per = fs->blksz / 4 };
	uint8_t *ib = raw + offsetof(struct ext4_inode, i_block);
	uint64_t base = EXT4_NDIR_BLOCKS, span = 1;
	int err = 0;

	for (uint32_t i = 0; i < EXT4_NDIR_BLOCKS && !err; i++) {
		ek_blk_t p = get_le32(ib + 4 * i);

		if (!p || i < from)
			continue;
		err = ek_fs_block_valid(fs, p) ? ek_wset_mark_block(ws, p, false) :
		      ek_corrupt_ino(ino, "block %llu outside the filesystem", (unsigned long long)p);
		t.freed++;
		put_le32(ib + 4 * i, 0);
	}
	for (unsigned level = 1; level <= 3 && !err; level++) {
		ek_blk_t p = get_le32(ib + 4 * (EXT4_NDIR_BLOCKS + level - 1));
		bool empty = false;

		span *= t.per;
		if (p && base + span > from) {
			err = ind_truncate(&t, p, level, base, &empty);
			if (!err && empty) {
				err = ek_wset_mark_block(ws, p, false);
				t.freed++;
				put_le32(ib + 4 * (EXT4_NDIR_BLOCKS + level - 1), 0);
			}
		}
		base += span;
	}
	ek_set_release(&t.seen);
	*freed = t.freed;
	return err;
}

/* does a block of @l (data or tree) lie in cluster @c? */
static bool cluster_used(const struct ek_fs *fs, const struct ek_extlist *l, uint64_t c)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].pblk >> fs->cluster_bits <= c &&
		    (l->v[i].pblk + l->v[i].len - 1) >> fs->cluster_bits >= c)
			return true;
	for (size_t i = 0; i < l->ntree; i++)
		if (l->tree[i] >> fs->cluster_bits == c)
			return true;
	return false;
}

/*
 * Truncation under bigalloc: a cluster goes free only when no block left
 * in the map lies in it (the last one kept may share its cluster with the
 * first one cut), and i_blocks counts whole clusters: of the data, of each
 * tree block, of the xattr block.
 */
static int bigalloc_truncate(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw,
			     struct ek_extlist *l, uint64_t from)
{
	struct ek_ext *old = ek_calloc(l->n ? l->n : 1, sizeof(*old));
	size_t nold = l->n;
	uint64_t freed = 0, clusters = 0, last_c = UINT64_MAX;
	int64_t tree = 0;
	int err;

	if (!old)
		return -ENOMEM;
	memcpy(old, l->v, nold * sizeof(*old));
	err = ek_extlist_punch(l, NULL, from, UINT32_MAX + 1ull, &freed);
	if (!err)
		err = ek_extlist_store(fs, ws, ino, raw, l, &tree);
	for (size_t i = 0; !err && i < nold; i++) {
		uint64_t lo = old[i].lblk, hi = lo + old[i].len;

		if (hi <= from)
			continue;
		if (lo < from)
			lo = from;
		for (uint64_t b = lo; b < hi && !err; b++) {
			ek_blk_t pblk = old[i].pblk + (b - old[i].lblk);

			if (!cluster_used(fs, l, pblk >> fs->cluster_bits))
				err = ek_wset_mark_block(ws, pblk, false);
		}
	}
	free(old);
	if (err)
		return err;
	for (size_t i = 0; i < l->n; i++)
		for (uint64_t b = 0; b < l->v[i].len; b++) {
			uint64_t c = (l->v[i].pblk + b) >> fs->cluster_bits;

			clusters += c != last_c;
			last_c = c;
		}
	clusters += (int64_t)l->ntree + tree + (ek_inode_file_acl(fs, raw) != 0);
	ek_inode_iblocks_set(raw, 0);
	ek_inode_add_blocks(fs, raw, (int64_t)(clusters << fs->cluster_bits));
	return 0;
}

int ek_inode_truncate(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw)
{
	struct ext4_inode *r = (void *)raw;
	uint64_t size = ek_inode_size(fs, raw);
	uint64_t from = (size + fs->blksz - 1) >> fs->log_blksz, freed = 0;
	uint32_t flags = le32_to_cpu(r->i_flags);
	uint16_t mode = le16_to_cpu(r->i_mode);
	ek_blk_t last = 0;
	int err;

	if (flags & EXT4_INLINE_DATA_FL)
		return 0;
	if (!ek_is_reg(mode) && !ek_is_dir(mode) && !ek_is_lnk(mode))
		return 0;
	if (ek_is_lnk(mode) && size < EXT4_N_BLOCKS * 4 && !ek_inode_iblocks(fs, raw))
		return 0;	/* fast symlink: i_block is its target */
	if (size & (fs->blksz - 1)) {
		/* the partial last block, zeroed past the size below */
		struct ek_inode ei = { 0 };
		bool unwritten = false;

		err = ek_inode_decode(fs, ino, raw, &ei);
		if (!err || err == -EK_BADCRC)
			err = ek_map_bmap(fs, &ei, from - 1, &last, &unwritten);
		ek_inode_release(&ei);
		if (err && err != -EK_BADCRC)
			return err;
		if (unwritten)
			last = 0;
	}
	if (flags & EXT4_EXTENTS_FL) {
		struct ek_extlist l;
		int64_t tree_delta = 0;

		err = ek_extlist_load(fs, ws, ino, raw, &l);
		if (err)
			return err;
		if (fs->cluster_bits) {
			err = bigalloc_truncate(fs, ws, ino, raw, &l, from);
			ek_extlist_release(&l);
			if (err)
				return err;
			goto zero_tail;
		}
		err = ek_extlist_punch(&l, ws, from, UINT32_MAX + 1ull, &freed);
		if (!err)
			err = ek_extlist_store(fs, ws, ino, raw, &l, &tree_delta);
		ek_extlist_release(&l);
		if (err)
			return err;
		ek_inode_add_blocks(fs, raw, -(int64_t)freed + tree_delta);
	} else {
		err = ind_truncate_inode(fs, ws, ino, raw, from, &freed);
		if (err)
			return err;
		ek_inode_add_blocks(fs, raw, -(int64_t)freed);
	}
zero_tail:
	if (last && ek_fs_block_valid(fs, last)) {
		uint8_t *b;
		uint32_t keep = size & (fs->blksz - 1);

		err = ek_wset_block(ws, last, &b);
		if (!err)
			memset(b + keep, 0, fs->blksz - keep);
	}
	return err;
}

int ek_ext_append(struct ek_ext **v, size_t *n, size_t *cap, const struct ek_ext *e)
{
	if (ek_grow(v, cap, *n + 1, sizeof(**v)))
		return -ENOMEM;
	(*v)[(*n)++] = *e;
	return 0;
}
