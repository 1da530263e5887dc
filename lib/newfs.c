// SPDX-License-Identifier: MIT
/*
 * newfs.c - build a new filesystem in memory, then write it.
 *
 * ek_newfs_create() lays the filesystem out as mke2fs 1.47 does
 * (mkfs/NOTES.md): superblock copies and descriptor tables in the sparse
 * groups, bitmaps and inode tables packed per flex group, the root and
 * lost+found directories, the resize inode, the journal at the midpoint
 * group, the orphan file.  Nothing is written then, so `-n` can print it.
 *
 * Population (populate.c) allocates inodes and blocks from the same
 * bitmaps: data and finished metadata blocks go straight to the image,
 * inodes stay in memory per group.  ek_newfs_finish() writes bitmaps,
 * inode tables, descriptors and superblock copies, and the primary
 * superblock last, so an interrupted run never leaves an image that looks
 * valid (ek_newfs_begin() zeroed the old one first).
 *
 * Allocation only moves forward: a cursor marks the first block that may
 * be free, as the first-fit allocation of mke2fs from the start of
 * group 0 gives for a filesystem that is only ever added to.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "extkit.h"

#define ZERO_CHUNK (1u << 20)	/* bytes per write when zeroing */
#define EXT4_LPF_INO 11		/* lost+found: the first non-reserved inode */

struct ek_newfs {
	struct ek_fs fs;		/* the new filesystem as the readers see it */
	struct ek_geometry g;
	struct ek_newfs_opts o;
	uint8_t raw_sb[EXT4_SUPERBLOCK_SIZE];
	uint8_t **bmap;			/* per group; NULL: only its superblock copy is used */
	bool *foreign;			/* a group holds blocks other than its own metadata */
	uint32_t *gused;		/* per group: blocks in use */
	uint32_t *sbarea;		/* per group: superblock and descriptor copy blocks */
	uint32_t cshift;		/* log2 of blocks per bitmap bit (bigalloc, after placing) */
	size_t map_bytes;		/* bytes of each group bitmap in memory */
	uint8_t **itable;		/* per group, ipg × inode size, allocated on first use */
	uint32_t *ihigh;		/* per group: inodes used up to this index */
	bool *flushed;			/* per group: its inode table is written and dropped */
	uint32_t flush_next;		/* groups below it are flushed or never used */
	uint32_t *iused, *dirs;		/* per group: inodes and directories in use */
	ek_blk_t cursor;		/* no free block below it */
	ek_blk_t root_blk0;		/* defer_root: the root's first block, taken */
	uint64_t overhead;		/* s_overhead_clusters */
	ek_ino_t next_ino;
	uint64_t kbytes_written;
	bool writing;			/* ek_newfs_begin() was called */
	struct pending {		/* blocks built before writing was allowed */
		ek_blk_t blk;
		uint8_t *buf;
	} *pending;
	size_t npending, pending_cap;
	bool resize_blocks;		/* write the primary reserved GDT blocks at finish */
	ek_blk_t journal_start;		/* first journal block, 0: none */
	struct ek_ext *journal_ext;	/* where the journal lives */
	size_t journal_next;
	ek_ino_t quota_ino[EK_QUOTA_TYPES];	/* the quota files made, 0: none */
	int32_t *bad_skew;		/* per group: mke2fs's free count less ours (bad blocks) */
	bool quota_late;		/* -d: quota files written by ek_newfs_finish() */
};

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

struct ek_fs *ek_newfs_fs(struct ek_newfs *nf)
{
	return &nf->fs;
}

const struct ek_geometry *ek_newfs_geometry(const struct ek_newfs *nf)
{
	return &nf->g;
}

/* the block of the primary superblock: block 1 with 1 KiB blocks, also under bigalloc */
static ek_blk_t primary_sb_block(const struct ek_newfs *nf)
{
	return nf->fs.blksz == 1024 ? 1 : 0;
}

/* ---- block bitmaps ------------------------------------------------------------ */

/*
 * The bitmaps count units: blocks while the group tables are placed (as
 * mke2fs places them in a block-granular map even with bigalloc), then
 * clusters (to_clusters()).  Without bigalloc both are blocks.
 */

/* units of group @g: its blocks, or clusters they touch */
static uint32_t group_units(const struct ek_newfs *nf, uint32_t g)
{
	uint32_t r = (1u << nf->cshift) - 1;

	return (ek_group_blocks(&nf->fs, g) + r) >> nf->cshift;
}

/* units at the start of group @g taken by its superblock and descriptor copies */
static uint32_t sb_area(const struct ek_newfs *nf, uint32_t g)
{
	uint32_t r = (1u << nf->cshift) - 1;

	return (nf->sbarea[g] + r) >> nf->cshift;
}

static uint8_t *group_map(struct ek_newfs *nf, uint32_t g)
{
	if (!nf->bmap[g]) {
		nf->bmap[g] = ek_calloc(1, nf->map_bytes);
		if (!nf->bmap[g])
			return NULL;
		for (uint32_t b = 0; b < sb_area(nf, g); b++)
			nf->bmap[g][b >> 3] |= 1u << (b & 7);
	}
	return nf->bmap[g];
}

/* the group of @blk and its unit in the group */
static uint32_t unit_of(const struct ek_newfs *nf, ek_blk_t blk, uint64_t *unit)
{
	uint32_t g = ek_group_of_block(&nf->fs, blk);

	*unit = (blk - ek_group_first_block(&nf->fs, g)) >> nf->cshift;
	return g;
}

/*
 * The first block at or after @b whose unit is used (@want_used) or free,
 * the end of the filesystem when none: full (or empty) groups skipped
 * whole, a group's bitmap read a byte at a time where it can
 */
static ek_blk_t next_block(const struct ek_newfs *nf, ek_blk_t b, bool want_used)
{
	while (b < nf->g.blocks) {
		uint64_t bit, start;
		uint32_t g = unit_of(nf, b, &bit), units = group_units(nf, g);
		const uint8_t *map = nf->bmap[g];
		ek_blk_t first = ek_group_first_block(&nf->fs, g);

		start = bit;
		if (!map) {
			uint32_t sa = sb_area(nf, g);

			if (want_used ? bit < sa : bit >= sa)
				return b;
			if (!want_used && sa < units)
				return first + ((uint64_t)sa << nf->cshift);
		} else if (want_used ? nf->gused[g] > 0 : nf->gused[g] < units) {
			for (; bit < units; bit++) {
				if (!(bit & 7) && units - bit >= 8 &&
				    map[bit >> 3] == (want_used ? 0x00 : 0xFF)) {
					bit += 7;
					continue;
				}
				if (ek_bit_test(map, bit) == want_used)
					return bit == start ? b : first + (bit << nf->cshift);
			}
		}
		b = ek_group_last_block(&nf->fs, g) + 1;
	}
	return nf->g.blocks;
}

/* mark units [@bit, @bit + @n) of group @g used; @owner: whose metadata, or -1 */
static int mark_units(struct ek_newfs *nf, uint32_t g, uint64_t bit, uint64_t n, int64_t owner)
{
	uint8_t *map = group_map(nf, g);

	if (!map)
		return -ENOMEM;
	for (uint64_t b = bit; b < bit + n;) {
		if (!(b & 7) && bit + n - b >= 8) {	/* a whole byte */
			for (uint8_t x = map[b >> 3]; x != 0xFF; x |= x + 1)
				nf->gused[g]++;	/* once per clear bit */
			map[b >> 3] = 0xFF;
			b += 8;
			continue;
		}
		if (!(map[b >> 3] & (1u << (b & 7))))
			nf->gused[g]++;
		map[b >> 3] |= 1u << (b & 7);
		b++;
	}
	if (owner != (int64_t)g)
		nf->foreign[g] = true;
	return 0;
}

/* mark [@blk, @blk + @n) used (the units they touch), owned as mark_units() */
static int mark_range(struct ek_newfs *nf, ek_blk_t blk, uint64_t n, int64_t owner)
{
	while (n) {
		uint64_t bit, last;
		uint32_t g = unit_of(nf, blk, &bit);
		ek_blk_t end = ek_group_last_block(&nf->fs, g) + 1;
		uint64_t k = end - blk < n ? end - blk : n;
		int err;

		unit_of(nf, blk + k - 1, &last);
		if ((err = mark_units(nf, g, bit, last - bit + 1, owner)))
			return err;
		blk += k;
		n -= k;
	}
	return 0;
}

static int mark_block(struct ek_newfs *nf, ek_blk_t blk, int64_t owner)
{
	return mark_range(nf, blk, 1, owner);
}

/* any bit set in @map from @bit for @n bits? (whole bytes at a time where it can) */
static bool bits_any(const uint8_t *map, uint64_t bit, uint64_t n)
{
	while (n && (bit & 7)) {
		if (ek_bit_test(map, bit))
			return true;
		bit++, n--;
	}
	for (; n >= 8; bit += 8, n -= 8)
		if (map[bit >> 3])
			return true;
	for (; n; bit++, n--)
		if (ek_bit_test(map, bit))
			return true;
	return false;
}

/* are [@blk, @blk + @n) (the units they touch) all free and inside the filesystem? */
static bool range_free(const struct ek_newfs *nf, ek_blk_t blk, uint64_t n)
{
	if (blk < nf->fs.sb.first_data_block || blk + n > nf->g.blocks)
		return false;
	while (n) {
		uint64_t bit, last;
		uint32_t g = unit_of(nf, blk, &bit);
		ek_blk_t end = ek_group_last_block(&nf->fs, g) + 1;
		uint64_t k = end - blk < n ? end - blk : n;

		unit_of(nf, blk + k - 1, &last);
		if (nf->bmap[g] ? bits_any(nf->bmap[g], bit, last - bit + 1) : bit < sb_area(nf, g))
			return false;
		blk += k;
		n -= k;
	}
	return true;
}

/*
 * bigalloc: the block-granular maps the tables were placed in become
 * cluster maps, a cluster used when any of its blocks is.
 */
static void to_clusters(struct ek_newfs *nf)
{
	uint32_t shift = nf->g.cluster_bits;

	if (!shift)
		return;
	for (uint32_t g = 0; g < nf->fs.group_count; g++) {
		uint8_t *map = nf->bmap[g];
		uint32_t nblocks = ek_group_blocks(&nf->fs, g), used = 0;

		if (!map)
			continue;
		for (uint32_t c = 0; c << shift < nblocks; c++) {
			uint32_t n = nblocks - (c << shift) < (1u << shift) ? nblocks - (c << shift)
									  : 1u << shift;
			bool any = bits_any(map, (uint64_t)c << shift, n);

			/* c <= c << shift: the cluster bit is past every block bit read */
			map[c >> 3] &= ~(1u << (c & 7));
			map[c >> 3] |= (uint8_t)(any << (c & 7));
			used += any;
		}
		for (uint32_t c = (nblocks + (1u << shift) - 1) >> shift; c < nf->map_bytes * 8; c++)
			map[c >> 3] &= ~(1u << (c & 7));
		nf->gused[g] = used;
	}
	nf->cshift = shift;
	for (uint32_t g = 0; g < nf->fs.group_count; g++)
		if (!nf->bmap[g])
			nf->gused[g] = sb_area(nf, g);
}

/*
 * The first block b in [@start, @finish) (wrapping to the first data block
 * at the end, as ext2fs_get_free_blocks2) that starts @num free blocks.
 */
static int find_free(const struct ek_newfs *nf, ek_blk_t start, ek_blk_t finish, uint64_t num,
		     ek_blk_t *out)
{
	ek_blk_t b = start ? start : nf->fs.sb.first_data_block;

	if (!finish)
		finish = b;
	do {
		if (b + num - 1 >= nf->g.blocks) {
			if (finish > start)
				return -ENOSPC;
			b = nf->fs.sb.first_data_block;
		}
		if (range_free(nf, b, num)) {
			*out = b;
			return 0;
		}
		b++;
	} while (b != finish);
	return -ENOSPC;
}

/* ---- group tables (mke2fs's ext2fs_allocate_group_table) ------------------------ */

/*
 * Where the next table of a flex group starts: right after the previous
 * one when @num free blocks follow it closely, else the first run of
 * free blocks in the flex group big enough for the rest of its tables.
 */
static ek_blk_t flex_offset(const struct ek_newfs *nf, uint32_t g, ek_blk_t start,
			    uint32_t rem_groups, uint64_t num)
{
	uint32_t flex = 1u << nf->g.log_flex, last = g | (flex - 1);
	uint64_t size = rem_groups * num;
	ek_blk_t b;

	if (size > nf->g.blocks_per_group / 4)
		size = nf->g.blocks_per_group / 4;
	if (start && start < nf->g.blocks && !find_free(nf, start, start + size, num, &b))
		return b;
	start = ek_group_first_block(&nf->fs, g & ~(flex - 1));
	if (last >= nf->g.groups)
		last = nf->g.groups - 1;
	if (!find_free(nf, start, ek_group_last_block(&nf->fs, last), size, &b))
		return b;
	if (!find_free(nf, start, ek_group_last_block(&nf->fs, last), num, &b))
		return b;
	return start;
}

static int place_group_tables(struct ek_newfs *nf, uint32_t g)
{
	struct ek_group *grp = &nf->fs.groups[g];
	uint32_t itb = nf->g.inode_table_blocks;
	ek_blk_t first = ek_group_first_block(&nf->fs, g), last = ek_group_last_block(&nf->fs, g);
	int err;

	if (nf->g.log_flex) {
		ek_blk_t bb_start, ib_start, it_start;
		uint32_t flex = 1u << nf->g.log_flex, lastg = g | (flex - 1), rem;
		uint32_t table_offset = flex;

		if (lastg >= nf->g.groups)
			lastg = nf->g.groups - 1;
		rem = lastg - g + 1;
		if (!(g % flex) && lastg == nf->g.groups - 1) {
			/* the last flex group keeps its tables together */
			table_offset = lastg & (flex - 1);
			table_offset = table_offset ? table_offset + 1 : flex;
		}
		last = ek_group_last_block(&nf->fs, lastg);
		bb_start = flex_offset(nf, g, g % flex ? nf->fs.groups[g - 1].block_bitmap + 1 : 0,
				       rem, 1);
		if ((err = find_free(nf, bb_start, last, 1, &grp->block_bitmap)) &&
		    (err = find_free(nf, first, last, 1, &grp->block_bitmap)))
			goto out_full;
		if ((err = mark_block(nf, grp->block_bitmap, g)))
			return err;
		ib_start = flex_offset(nf, g, g % flex ? nf->fs.groups[g - 1].inode_bitmap + 1
						       : grp->block_bitmap + table_offset, rem, 1);
		if ((err = find_free(nf, ib_start, last, 1, &grp->inode_bitmap)) &&
		    (err = find_free(nf, first, last, 1, &grp->inode_bitmap)))
			goto out_full;
		if ((err = mark_block(nf, grp->inode_bitmap, g)))
			return err;
		it_start = flex_offset(nf, g, g % flex ? nf->fs.groups[g - 1].inode_table + itb
						       : grp->inode_bitmap + table_offset, rem, itb);
		if ((err = find_free(nf, it_start, last, itb, &grp->inode_table)))
			goto out_full;
	} else {
		ek_blk_t start = first;

		if (nf->o.raid_stride) {
			/*
			 * a RAID stride: the bitmaps start one inode table past the
			 * group's first free block, moved on by stride × group within
			 * the group, so they spread over the disks
			 */
			if ((err = find_free(nf, first, last, 1, &start)))
				goto out_full;
			start += itb;
			if (start <= last)
				start += (uint64_t)nf->o.raid_stride * g % (last - start + 1);
			if (start >= last)
				start = first;
		}
		if ((err = find_free(nf, start, last, 1, &grp->block_bitmap)) &&
		    (err = find_free(nf, first, last, 1, &grp->block_bitmap)))
			goto out_full;
		if ((err = mark_block(nf, grp->block_bitmap, g)))
			return err;
		if ((err = find_free(nf, start, last, 1, &grp->inode_bitmap)) &&
		    (err = find_free(nf, first, last, 1, &grp->inode_bitmap)))
			goto out_full;
		if ((err = mark_block(nf, grp->inode_bitmap, g)))
			return err;
		if ((err = find_free(nf, first, last, itb, &grp->inode_table)))
			goto out_full;
	}
	return mark_range(nf, grp->inode_table, itb, g);

out_full:
	return ek_err(-ENOSPC, "no room for the bitmaps and inode table of group %u", g);
}

/*
 * mke2fs's packed_allocate_tables() (packed_meta_blocks with flex_bg): the
 * block bitmaps of all groups, then the inode bitmaps, each the first free
 * block from the one placed before (wrapping to the start), then the inode
 * tables, each the first free run from the table before; every block
 * counted where it lands (so its group loses BLOCK_UNINIT)
 */
static int place_packed_tables(struct ek_newfs *nf)
{
	uint32_t itb = nf->g.inode_table_blocks, G = nf->fs.group_count;
	ek_blk_t goal = 0;
	int err;

	for (int pass = 0; pass < 2; pass++)
		for (uint32_t g = 0; g < G; g++) {
			struct ek_group *grp = &nf->fs.groups[g];
			ek_blk_t *at = pass ? &grp->inode_bitmap : &grp->block_bitmap;

			/* ext2fs_new_block2: the goal's cluster, then on, then from the start */
			if (!goal || goal >= nf->g.blocks)
				goal = nf->fs.sb.first_data_block;
			goal &= ~((1ull << nf->g.cluster_bits) - 1);
			if ((err = find_free(nf, goal, goal, 1, at)))
				goto out_full;
			if ((err = mark_block(nf, *at, -1)))
				return err;
			goal = *at;
		}
	for (uint32_t g = 0; g < G; g++) {
		struct ek_group *grp = &nf->fs.groups[g];

		if ((err = find_free(nf, goal, nf->g.blocks - 1, itb, &grp->inode_table)))
			goto out_full;
		if ((err = mark_range(nf, grp->inode_table, itb, -1)))
			return err;
		goal = grp->inode_table;
	}
	return 0;

out_full:
	return ek_err(-ENOSPC, "packed_meta_blocks: no room for the group tables (%u groups)", G);
}

/* ---- bad blocks (mke2fs -l, -c) -------------------------------------------------- */

void ek_newfs_bad_must_be_good(const struct ek_geometry *g, uint64_t *first, uint64_t *last)
{
	*first = g->first_data_block;
	*last = (uint64_t)g->first_data_block + 1 + g->desc_blocks;
}

/*
 * What mke2fs 1.47.0's free count of the group makes of bad block @blk,
 * against the true count: one in a superblock area (counted as overhead
 * already) is counted again, and one among the first desc_blocks + 1
 * blocks of a group past 0 is given back (meant for a backup superblock
 * area, given back where the group has none too).  The true count is
 * written; mke2fs's steers where the journal goes (journal_goal), as it
 * does in mke2fs.
 */
static void skew_bad_block(struct ek_newfs *nf, ek_blk_t blk)
{
	uint32_t g = ek_group_of_block(&nf->fs, blk);
	uint64_t off = blk - ek_group_first_block(&nf->fs, g);
	uint64_t j = blk - nf->g.first_data_block - (uint64_t)g * nf->g.blocks_per_group;

	if (off < nf->sbarea[g] - (g ? 0 : primary_sb_block(nf) - nf->fs.sb.first_data_block))
		nf->bad_skew[g]--;
	if (g && j <= nf->g.desc_blocks)
		nf->bad_skew[g]++;
}

/*
 * Every bad block marked in use before any table is placed, as mke2fs's
 * handle_bad_blocks(): the tables, the journal and every file go around
 * them.  Counted once each (mke2fs 1.47.0 counts one in a superblock
 * area twice, or not at all past a group's first desc_blocks + 1 blocks
 * where the group has no copy: its free counts are off there, e2fsck says
 * so; these are right).
 */
static int mark_bad_blocks(struct ek_newfs *nf)
{
	const uint64_t *bad = nf->o.bad_blocks;
	uint64_t first, last;
	int err = 0;

	if (!nf->o.nbad)
		return 0;
	if (nf->g.cluster_bits)
		return ek_err(-EK_UNSUPP, "bad blocks with bigalloc: not supported");
	if (!(nf->bad_skew = ek_calloc(nf->fs.group_count, sizeof(*nf->bad_skew))))
		return -ENOMEM;
	ek_newfs_bad_must_be_good(&nf->g, &first, &last);
	for (size_t i = 0; i < nf->o.nbad && !err; i++) {
		if (bad[i] < nf->g.first_data_block || bad[i] >= nf->g.blocks ||
		    (i && bad[i] <= bad[i - 1]))
			return ek_err(-EINVAL, "bad block %llu: not sorted, or outside the filesystem",
				      (unsigned long long)bad[i]);
		if (bad[i] >= first && bad[i] <= last)
			return ek_err(-EINVAL, "bad block %llu is in the primary superblock or group "
				      "descriptors: blocks %llu through %llu must be good",
				      (unsigned long long)bad[i], (unsigned long long)first,
				      (unsigned long long)last);
		err = mark_block(nf, bad[i], -1);
		skew_bad_block(nf, bad[i]);
	}
	return err;
}

/* the bad blocks inode's map: data from the list, its indirect blocks first free */
struct bad_sink {
	struct ek_newfs *nf;
	size_t next;		/* the next bad block to map */
};

static int bad_alloc(void *arg, ek_blk_t goal, uint64_t want, ek_blk_t *start, uint64_t *got)
{
	struct bad_sink *b = arg;
	const uint64_t *bad = b->nf->o.bad_blocks;
	uint64_t n = 1;

	(void)goal;
	if (b->next >= b->nf->o.nbad)
		return ek_err(-EINVAL, "newfs: the bad blocks inode maps more than the list");
	*start = bad[b->next];
	while (n < want && b->next + n < b->nf->o.nbad && bad[b->next + n] == *start + n)
		n++;
	b->next += n;
	*got = n;
	return 0;
}

/* ext2fs_new_block(fs, 0, ...): the first free block */
static int bad_alloc_meta(void *arg, ek_blk_t goal, ek_blk_t *blk)
{
	struct bad_sink *b = arg;

	(void)goal;
	return ek_newfs_alloc_block(b->nf, 0, blk);
}

static int meta_put(struct ek_newfs *nf, ek_blk_t blk, const uint8_t *buf);

static int bad_put(void *arg, ek_blk_t blk, const uint8_t *buf)
{
	struct bad_sink *b = arg;

	return meta_put(b->nf, blk, buf);
}

/*
 * Inode 1 maps the bad blocks in list order, as ext2fs_update_bb_inode():
 * an indirect map (extents or not) whose indirect blocks are the first
 * free blocks when reached, the path of the block after the last opened
 * too (left empty); i_blocks and i_size count the bad blocks alone.
 */
static int make_bad_blocks_inode(struct ek_newfs *nf)
{
	struct bad_sink bs = { .nf = nf };
	struct ek_ind_sink sink = { .alloc = bad_alloc, .alloc_meta = bad_alloc_meta,
				    .put = bad_put, .arg = &bs, .open_after = true };
	struct ek_ext run = { .lblk = 0, .len = (uint32_t)nf->o.nbad }, *v = NULL;
	uint8_t *raw = ek_newfs_inode(nf, 1);
	size_t nv;
	int err;

	if (!raw)
		return -ENOMEM;
	if (nf->o.nbad > EXT4_NDIR_BLOCKS + (uint64_t)(nf->fs.blksz / 4) * (nf->fs.blksz / 4))
		return ek_err(-EK_UNSUPP, "%zu bad blocks: more than the bad blocks inode maps "
			      "without a triple indirect block", nf->o.nbad);
	err = ek_ind_map_write(&nf->fs, raw, &run, 1, 0, &sink, &v, &nv);
	free(v);
	if (err)
		return err;
	ek_inode_iblocks_set(raw, (uint64_t)nf->o.nbad * (nf->fs.blksz / 512));
	/* i_size: 32 bits, as ext2fs_update_bb_inode() sets it */
	ek_inode_size_set(raw, (uint32_t)(nf->o.nbad * nf->fs.blksz));
	return 0;
}

/* ---- allocation for files ------------------------------------------------------ */

/*
 * Up to @want blocks from the first free block at or after @goal (0: the
 * cursor), contiguous: *got may be less when a used block ends the run.
 */
int ek_newfs_alloc(struct ek_newfs *nf, ek_blk_t goal, uint64_t want, ek_blk_t *start,
		   uint64_t *got)
{
	uint64_t step = 1ull << nf->cshift, n = 0;	/* bigalloc: whole clusters */
	bool from_cursor = !goal || goal <= nf->cursor;
	ek_blk_t b = (from_cursor ? nf->cursor : goal) & ~(step - 1);
	int err;

	for (;;) {
		if (b < nf->g.blocks)
			b = next_block(nf, b, false);
		if (b < nf->g.blocks)
			break;
		if (from_cursor)
			return ek_err(-ENOSPC, "the filesystem is full (%llu blocks)",
				      (unsigned long long)nf->g.blocks);
		b = nf->cursor;
		from_cursor = true;
	}
	if (from_cursor)
		nf->cursor = b;
	*start = b;
	/* the free run from b: a group's bitmap at a time, then marked at once */
	while (n < want && b + n < nf->g.blocks) {
		uint64_t bit;
		uint32_t g = unit_of(nf, b + n, &bit), units = group_units(nf, g);
		const uint8_t *map = nf->bmap[g];
		bool stop = false;

		for (; bit < units && n < want; bit++, n += step)
			if (map ? ek_bit_test(map, bit) : bit < sb_area(nf, g)) {
				stop = true;
				break;
			}
		if (stop)
			break;
	}
	if (b + n > nf->g.blocks)
		n = nf->g.blocks - b;
	if ((err = mark_range(nf, b, n, -1)))
		return err;
	if (from_cursor)
		nf->cursor = b + n;
	*got = n < want ? n : want;	/* the rest of a last cluster stays the file's */
	return 0;
}

int ek_newfs_alloc_block(struct ek_newfs *nf, ek_blk_t goal, ek_blk_t *out)
{
	uint64_t got;

	return ek_newfs_alloc(nf, goal, 1, out, &got);
}

/* free again a block (its cluster) that ek_newfs_alloc_block() gave and nothing maps */
static void release_block(struct ek_newfs *nf, ek_blk_t blk)
{
	uint64_t bit;
	uint32_t g = unit_of(nf, blk, &bit);
	uint8_t *map = nf->bmap[g];

	if (map && ek_bit_test(map, bit)) {
		map[bit >> 3] &= (uint8_t)~(1u << (bit & 7));
		nf->gused[g]--;
	}
	if (blk < nf->cursor)
		nf->cursor = blk;
}

int ek_newfs_dir_begin(struct ek_newfs *nf, ek_ino_t ino, ek_blk_t *blk0)
{
	if (ino == EXT4_ROOT_INO) {
		*blk0 = nf->root_blk0;
		return 0;
	}
	return ek_newfs_alloc_block(nf, 0, blk0);
}

/* ---- inodes --------------------------------------------------------------------- */

uint8_t *ek_newfs_inode(struct ek_newfs *nf, ek_ino_t ino)
{
	uint32_t g, idx;

	if (ino < 1 || ino > nf->fs.sb.inodes_count)
		return NULL;
	g = (uint32_t)((ino - 1) / nf->g.inodes_per_group);
	idx = (uint32_t)((ino - 1) % nf->g.inodes_per_group);
	if (!nf->itable[g]) {
		nf->itable[g] = ek_calloc(nf->g.inodes_per_group, nf->fs.inode_size);
		if (!nf->itable[g])
			return NULL;
		if (nf->flushed[g]) {
			/* written out already: back in to change (a hard link to an old inode) */
			uint64_t used = div_up((uint64_t)nf->ihigh[g] * nf->fs.inode_size, nf->fs.blksz);

			if (ek_io_pread(nf->fs.io, nf->itable[g], used << nf->fs.log_blksz,
					nf->fs.groups[g].inode_table << nf->fs.log_blksz)) {
				free(nf->itable[g]);
				nf->itable[g] = NULL;
				return NULL;
			}
			nf->flushed[g] = false;
		}
	}
	return nf->itable[g] + (size_t)idx * nf->fs.inode_size;
}

static int write_itable(struct ek_newfs *nf, uint32_t g);

/*
 * Memory stays bounded: once allocation has moved two groups on, the inode
 * tables behind it are written and dropped (read back if changed again).
 * Pointers from ek_newfs_inode() die with this, see ek_newfs_inode_new().
 */
static int flush_itables(struct ek_newfs *nf, uint32_t now)
{
	int err = 0;

	for (; nf->flush_next + 2 <= now && !err; nf->flush_next++) {
		uint32_t g = nf->flush_next;

		if (!nf->itable[g] || !nf->writing)
			continue;
		err = write_itable(nf, g);
		free(nf->itable[g]);
		nf->itable[g] = NULL;
		nf->flushed[g] = true;
	}
	return err;
}

/* mark inode @ino used (a directory when @dir) */
static int use_inode(struct ek_newfs *nf, ek_ino_t ino, bool dir)
{
	uint32_t g = (uint32_t)((ino - 1) / nf->g.inodes_per_group);
	uint32_t idx = (uint32_t)((ino - 1) % nf->g.inodes_per_group);

	if (!ek_newfs_inode(nf, ino))
		return -ENOMEM;
	/*
	 * lost+found's group has its block bitmap initialised (mke2fs makes
	 * it before reserving inodes 3-10); a group that only takes inodes
	 * later (group 0's run out) keeps BLOCK_UNINIT in mke2fs's image, until
	 * a block is taken there
	 */
	if (ino == EXT4_LPF_INO)
		nf->foreign[g] = true;
	nf->iused[g]++;
	if (dir)
		nf->dirs[g]++;
	if (idx + 1 > nf->ihigh[g])
		nf->ihigh[g] = idx + 1;
	return 0;
}

/* time fields of a new inode: @t for atime, ctime, mtime and crtime */
static void inode_times(const struct ek_newfs *nf, uint8_t *raw, int64_t t)
{
	struct ek_timespec ts = { .sec = t, .nsec = 0 };

	ek_inode_time_set(&nf->fs, raw, EK_TIME_ATIME, ts);
	ek_inode_time_set(&nf->fs, raw, EK_TIME_CTIME, ts);
	ek_inode_time_set(&nf->fs, raw, EK_TIME_MTIME, ts);
	ek_inode_time_set(&nf->fs, raw, EK_TIME_CRTIME, ts);
}

int ek_newfs_inode_new(struct ek_newfs *nf, uint16_t mode, ek_ino_t *ino, uint8_t **raw)
{
	ek_ino_t n = nf->next_ino;
	uint8_t *r;
	int err;

	if (n > nf->fs.sb.inodes_count)
		return ek_err(-ENOSPC, "no free inode left (%u inodes)", nf->fs.sb.inodes_count);
	if ((err = flush_itables(nf, (uint32_t)((n - 1) / nf->g.inodes_per_group))))
		return err;
	if ((err = use_inode(nf, n, S_ISDIR(mode))))
		return err;
	nf->next_ino = n + 1;
	r = ek_newfs_inode(nf, n);
	memset(r, 0, nf->fs.inode_size);
	put_le16(r + offsetof(struct ext4_inode, i_mode), mode);
	if (nf->fs.inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		put_le16(r + offsetof(struct ext4_inode, i_extra_isize),
			 sizeof(struct ext4_inode) - EXT4_GOOD_OLD_INODE_SIZE);
	inode_times(nf, r, nf->o.now);
	*ino = n;
	*raw = r;
	return 0;
}

void ek_newfs_inode_done(struct ek_newfs *nf, ek_ino_t ino, uint8_t *raw)
{
	ek_inode_csum_set(&nf->fs, ino, raw);
}

/* ---- writing ---------------------------------------------------------------------- */

int ek_newfs_write(struct ek_newfs *nf, ek_blk_t blk, const void *buf, uint64_t nblocks)
{
	int err;

	if (!nf->writing)
		return ek_err(-EINVAL, "newfs: a write before ek_newfs_begin()");
	err = ek_io_pwrite(nf->fs.io, buf, nblocks << nf->fs.log_blksz, blk << nf->fs.log_blksz);
	if (!err)
		nf->kbytes_written += (nblocks << nf->fs.log_blksz) >> 10;
	return err;
}

/* zeros over @n blocks from @blk, unless the target already reads as zeros */
static int zero_blocks(struct ek_newfs *nf, ek_blk_t blk, uint64_t n)
{
	uint64_t per = ZERO_CHUNK >> nf->fs.log_blksz;
	uint8_t *z;
	int err = 0;

	if (nf->o.zeroed || !n)
		return 0;
	if (per < 1)
		per = 1;
	z = ek_calloc(per, nf->fs.blksz);
	if (!z)
		return -ENOMEM;
	for (uint64_t i = 0; i < n && !err; i += per)
		err = ek_newfs_write(nf, blk + i, z, n - i < per ? n - i : per);
	free(z);
	return err;
}

/* ---- special inodes ----------------------------------------------------------------- */

/* a copy of @buf to write at @blk by ek_newfs_finish() */
static int pending_add(struct ek_newfs *nf, ek_blk_t blk, const uint8_t *buf)
{
	struct pending *v;

	if (ek_grow(&nf->pending, &nf->pending_cap, nf->npending + 1, sizeof(*v)))
		return -ENOMEM;
	v = nf->pending;
	v[nf->npending].buf = ek_malloc(nf->fs.blksz);
	if (!v[nf->npending].buf)
		return -ENOMEM;
	memcpy(v[nf->npending].buf, buf, nf->fs.blksz);
	v[nf->npending++].blk = blk;
	return 0;
}

/* a directory block holding nothing (a tail under metadata_csum) */
static void dir_block_empty(const struct ek_newfs *nf, uint8_t *b)
{
	memset(b, 0, nf->fs.blksz);
	put_le16(b + 4, ek_rec_len_to_disk(nf->fs.has_csum ? nf->fs.blksz - 12 : nf->fs.blksz,
					   nf->fs.blksz));
}

/* one dirent at @off (ek_dirent_put); returns the offset after it */
static uint32_t dirent_put(const struct ek_newfs *nf, uint8_t *b, uint32_t off, ek_ino_t ino,
			   uint32_t rec_len, const char *name, uint8_t ft)
{
	ek_dirent_put(&nf->fs, b, off, ino, rec_len, name, (uint8_t)strlen(name), ft);
	return off + rec_len;
}

static int make_root_and_lpf(struct ek_newfs *nf)
{
	uint32_t bs = nf->fs.blksz, lpf_blocks;
	bool inline_data = ek_has_incompat(&nf->fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA);
	uint32_t end = nf->fs.has_csum ? bs - 12 : bs;
	uint8_t *raw, *b = ek_calloc(1, bs);
	struct ek_ext run = { .lblk = 0 }, *v = NULL;
	size_t nv;
	ek_blk_t blk, goal;
	int err;

	if (!b)
		return -ENOMEM;
	/* root: ".", "..", "lost+found" in one block (with -d: written by populate) */
	raw = ek_newfs_inode(nf, EXT4_ROOT_INO);
	err = use_inode(nf, EXT4_ROOT_INO, true);
	if (err)
		goto out;
	put_le16(raw + offsetof(struct ext4_inode, i_mode),
		 S_IFDIR | (nf->o.root_perms_given ? nf->o.root_perms & 07777 : 0755));
	ek_inode_owner_set(raw, nf->o.root_uid, nf->o.root_gid);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 3);
	if (nf->fs.inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), 32);
	inode_times(nf, raw, nf->o.now);
	if (nf->o.defer_root) {
		/* its first block where mke2fs makes it, the entries later */
		if ((err = ek_newfs_alloc_block(nf, 0, &nf->root_blk0)))
			goto out;
		goto lost_found;
	}
	run.len = 1;
	if ((err = ek_newfs_map(nf, EXT4_ROOT_INO, raw, &run, 1, 0, 0, &v, &nv)))
		goto out;
	blk = v[0].pblk;
	free(v);
	v = NULL;
	ek_inode_size_set(raw, bs);
	memset(b, 0, bs);
	dirent_put(nf, b, 0, EXT4_ROOT_INO, 12, ".", EXT4_FT_DIR);
	dirent_put(nf, b, 12, EXT4_ROOT_INO, 12, "..", EXT4_FT_DIR);
	dirent_put(nf, b, 24, EXT4_LPF_INO, end - 24, "lost+found", EXT4_FT_DIR);
	ek_dir_leaf_tail(&nf->fs, EXT4_ROOT_INO, 0, b);
	if ((err = pending_add(nf, blk, b)))
		goto out;

lost_found:
	/* lost+found: 16 KiB and at least 2 blocks, at most 12 */
	lpf_blocks = 16384 / bs;
	if (lpf_blocks < 2)
		lpf_blocks = 2;
	if (lpf_blocks > EXT4_NDIR_BLOCKS)
		lpf_blocks = EXT4_NDIR_BLOCKS;
	/*
	 * inline_data: mke2fs starts it inline, and its first growth makes one
	 * block; an empty in-inode xattr area is left behind
	 */
	if (inline_data) {
		lpf_blocks--;
		if (nf->fs.inode_size > EXT4_GOOD_OLD_INODE_SIZE + 32 + 4)
			put_le32(ek_newfs_inode(nf, EXT4_LPF_INO) + EXT4_GOOD_OLD_INODE_SIZE + 32,
				 0xEA020000);
	}
	raw = ek_newfs_inode(nf, EXT4_LPF_INO);
	if ((err = use_inode(nf, EXT4_LPF_INO, true)))
		goto out;
	put_le16(raw + offsetof(struct ext4_inode, i_mode), S_IFDIR | 0700);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 2);
	if (nf->fs.inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), 32);
	inode_times(nf, raw, nf->o.now);
	ek_inode_size_set(raw, (uint64_t)lpf_blocks * bs);
	/*
	 * block by block where the free space is broken (mke2fs's first fit),
	 * from the start of the group of inode 11 (of its flex group), as
	 * ext2fs_find_inode_goal() has it: group 1 when a group has fewer than
	 * 11 inodes and no flex_bg
	 */
	run.len = lpf_blocks;
	goal = ek_group_first_block(&nf->fs, (uint32_t)((EXT4_LPF_INO - 1) / nf->g.inodes_per_group) &
				    ~((1u << nf->g.log_flex) - 1));
	if ((err = ek_newfs_map(nf, EXT4_LPF_INO, raw, &run, 1, goal, 0, &v, &nv)))
		goto out;
	for (uint32_t i = 0, e = 0, k = 0; i < lpf_blocks && !err; i++, k++) {
		if (k == v[e].len)
			e++, k = 0;
		blk = v[e].pblk + k;
		if (i == 0 && inline_data) {
			/* as mke2fs's conversion of the inline directory leaves it */
			memset(b, 0, bs);
			dirent_put(nf, b, 0, EXT4_LPF_INO, 12, ".", EXT4_FT_DIR);
			dirent_put(nf, b, 12, EXT4_ROOT_INO, 12, "..", EXT4_FT_DIR);
			put_le16(b + 28, ek_rec_len_to_disk(end - 24, bs));
		} else if (i == 0) {
			memset(b, 0, bs);
			dirent_put(nf, b, 0, EXT4_LPF_INO, 12, ".", EXT4_FT_DIR);
			dirent_put(nf, b, 12, EXT4_ROOT_INO, end - 12, "..", EXT4_FT_DIR);
		} else {
			dir_block_empty(nf, b);
		}
		ek_dir_leaf_tail(&nf->fs, EXT4_LPF_INO, 0, b);
		err = pending_add(nf, blk, b);
	}
out:
	free(v);
	free(b);
	return err;
}

/* ---- block maps of new files ---------------------------------------------------- */

/* a tree or indirect block: written now, or kept for ek_newfs_finish() */
static int meta_put(struct ek_newfs *nf, ek_blk_t blk, const uint8_t *buf)
{
	return nf->writing ? ek_newfs_write(nf, blk, buf, 1) : pending_add(nf, blk, buf);
}

struct tree_sink {
	struct ek_newfs *nf;
	ek_blk_t goal;
	ek_blk_t first;		/* the first tree block, taken already; 0: none */
	uint64_t blocks;	/* tree blocks allocated */
};

static int tree_alloc(void *arg, ek_blk_t *blk)
{
	struct tree_sink *t = arg;
	int err = 0;

	if (t->first) {
		*blk = t->first;
		t->first = 0;
	} else {
		err = ek_newfs_alloc_block(t->nf, t->goal, blk);
	}

	if (!err) {
		t->goal = 0;
		t->blocks++;
	}
	return err;
}

#define EK_ROOT_EXTENTS 4	/* extents in i_block */

static int tree_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	struct tree_sink *t = arg;

	return meta_put(t->nf, blk, node);
}

/* the longest extent of this kind: 32768 blocks, 32767 unwritten */
static uint32_t ext_max_len(bool unwritten)
{
	return unwritten ? EXT_UNWRITTEN_MAX_LEN : EXT_INIT_MAX_LEN;
}

static int push_ext(struct ek_ext **v, size_t *n, size_t *cap, const struct ek_ext *e)
{
	if (*n && (*v)[*n - 1].lblk + (*v)[*n - 1].len == e->lblk &&
	    (*v)[*n - 1].pblk + (*v)[*n - 1].len == e->pblk &&
	    (*v)[*n - 1].unwritten == e->unwritten &&
	    (*v)[*n - 1].len + e->len <= ext_max_len(e->unwritten)) {
		(*v)[*n - 1].len += e->len;
		return 0;
	}
	return ek_ext_append(v, n, cap, e);
}

/*
 * extents: the data first, contiguous as the free space allows, then the
 * tree; a run marked unwritten becomes unwritten extents (allocated, read
 * as zeros), which the tree codec encodes
 */
static int map_extents(struct ek_newfs *nf, ek_ino_t ino, uint8_t *raw, const struct ek_ext *runs,
		       size_t n, ek_blk_t goal, ek_blk_t tree_goal, struct ek_ext **out, size_t *nout)
{
	struct ek_ext *v = NULL;
	size_t nv = 0, cap = 0;
	uint64_t data = 0;
	struct tree_sink ts = { .nf = nf };
	struct ek_tree_sink sink = { .alloc = tree_alloc, .put = tree_put, .arg = &ts };
	int err = 0;

	/*
	 * bigalloc: a logical cluster maps to one physical cluster, at the same
	 * offset inside it; a run that starts in the cluster the last one
	 * ended in goes on in that cluster
	 */
	uint64_t step = 1ull << nf->cshift, mask = step - 1, last_lclu = UINT64_MAX;
	ek_blk_t last_pclu = 0;

	for (size_t i = 0; i < n && !err; i++) {
		uint64_t lblk = runs[i].lblk, left = runs[i].len;

		while (left && !err) {
			uint64_t off = lblk & mask, want, got, start;
			struct ek_ext e = { .lblk = (uint32_t)lblk, .unwritten = runs[i].unwritten };
			uint64_t max = ext_max_len(e.unwritten);

			if (step > 1 && lblk >> nf->cshift == last_lclu) {
				e.pblk = last_pclu + off;
				e.len = (uint32_t)(left < step - off ? left : step - off);
			} else {
				want = left + off < max ? left + off : max;
				err = ek_newfs_alloc(nf, goal, want, &start, &got);
				if (!err && got <= off)
					err = ek_err(-ENOSPC, "the filesystem is full");
				if (err)
					break;
				e.pblk = start + off;
				e.len = (uint32_t)(got - off);
				goal = start + ((got + mask) & ~mask);
				data += (got + mask) & ~mask;
			}
			err = push_ext(&v, &nv, &cap, &e);
			/*
			 * a tree before the data: mke2fs's fallocate splits the
			 * root when it inserts the fifth extent, whose blocks it
			 * holds by then, and the new block is the first free one
			 * from just before the first extent (when that is taken:
			 * after the fifth extent, before the sixth)
			 */
			if (!err && tree_goal == EK_NEWFS_TREE_BEFORE && nv == EK_ROOT_EXTENTS + 1 &&
			    !ts.first && !ts.blocks)
				err = ek_newfs_alloc_block(nf, v[0].pblk > 1 ? v[0].pblk - 1 : 0,
							   &ts.first);
			last_lclu = (lblk + e.len - 1) >> nf->cshift;
			last_pclu = (e.pblk + e.len - 1) & ~mask;
			lblk += e.len;
			left -= e.len;
		}
	}
	if (!err) {
		put_le32(raw + offsetof(struct ext4_inode, i_flags),
			 get_le32(raw + offsetof(struct ext4_inode, i_flags)) | EXT4_EXTENTS_FL);
		ts.blocks = 0;	/* counted as the tree takes them, the first included */
		ts.goal = tree_goal == EK_NEWFS_TREE_BEFORE ? (nv && v[0].pblk > 1 ? v[0].pblk - 1 : 0)
							    : tree_goal;
		err = ek_extent_tree_write(&nf->fs, ino, raw, v, nv, &sink);
	}
	if (err) {
		free(v);
		return err;
	}
	ek_inode_add_blocks(&nf->fs, raw, (int64_t)(data + (ts.blocks << nf->cshift)));
	*out = v;
	*nout = nv;
	return 0;
}

/* indirect maps: lib/map.c's writer, blocks from the allocator, indirect
 * blocks kept until writing begins */
static int ind_alloc(void *arg, ek_blk_t goal, uint64_t want, ek_blk_t *start, uint64_t *got)
{
	return ek_newfs_alloc(arg, goal, want, start, got);
}

static int ind_put(void *arg, ek_blk_t blk, const uint8_t *buf)
{
	return meta_put(arg, blk, buf);
}

static int map_indirect(struct ek_newfs *nf, uint8_t *raw, const struct ek_ext *runs, size_t n,
			ek_blk_t goal, struct ek_ext **out, size_t *nout)
{
	struct ek_ind_sink sink = { .alloc = ind_alloc, .put = ind_put, .arg = nf };

	return ek_ind_map_write(&nf->fs, raw, runs, n, goal, &sink, out, nout);
}

int ek_newfs_map(struct ek_newfs *nf, ek_ino_t ino, uint8_t *raw, const struct ek_ext *runs,
		 size_t n, ek_blk_t goal, ek_blk_t tree_goal, struct ek_ext **out, size_t *nout)
{
	if (ek_has_incompat(&nf->fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return map_extents(nf, ino, raw, runs, n, goal, tree_goal, out, nout);
	return map_indirect(nf, raw, runs, n, goal, out, nout);
}

/* a new special inode: mode, one link, times, extra_isize */
static uint8_t *special_inode(struct ek_newfs *nf, ek_ino_t ino, uint16_t mode)
{
	uint8_t *raw = ek_newfs_inode(nf, ino);

	if (!raw)
		return NULL;
	put_le16(raw + offsetof(struct ext4_inode, i_mode), mode);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	if (nf->fs.inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), 32);
	inode_times(nf, raw, nf->o.now);
	return raw;
}

static void inode_set_size(uint8_t *raw, uint64_t size)
{
	ek_inode_size_set(raw, size);
}

/*
 * The resize inode: a DIND block whose slots point at the primary reserved
 * GDT blocks, each of which lists its copies in the backup groups.
 */
static int make_resize_inode(struct ek_newfs *nf)
{
	uint32_t bs = nf->fs.blksz, a = bs / 4, rsv = nf->g.reserved_gdt, nbackups = 0;
	ek_blk_t sb_blk = primary_sb_block(nf), dind;
	uint8_t *raw, *dbuf = ek_calloc(1, bs);
	int err;

	if (!dbuf) {
		err = -ENOMEM;
		goto out;
	}
	raw = special_inode(nf, EXT4_RESIZE_INO, S_IFREG | 0600);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	err = ek_newfs_alloc_block(nf, sb_blk + nf->g.desc_blocks + rsv + 2 + nf->g.inode_table_blocks,
				   &dind);
	if (err)
		goto out;
	for (uint32_t g = 1; g < nf->g.groups; g++)
		nbackups += ek_group_has_super(&nf->fs, g) && nbackups < a;
	/* the reserved blocks themselves are made as they are written (write_resize_blocks) */
	ek_resize_dind_encode(&nf->fs, dbuf);
	nf->resize_blocks = true;
	err = pending_add(nf, dind, dbuf);
	if (err)
		goto out;
	put_le32(raw + offsetof(struct ext4_inode, i_block) + 4 * EXT4_DIND_BLOCK, (uint32_t)dind);
	/* over 2 GiB with 4 KiB blocks: large_file, as ext2fs_inode_size_set() */
	ek_newfs_inode_set_size(nf, raw, ((uint64_t)a * a + a + EXT4_NDIR_BLOCKS) * bs);
	/* each block counted as a whole cluster with bigalloc, as mke2fs does */
	ek_inode_add_blocks(&nf->fs, raw, (1 + (int64_t)rsv * (1 + nbackups)) << nf->cshift);
out:
	free(dbuf);
	return err;
}

/* free blocks of group @g now */
static uint64_t group_free(const struct ek_newfs *nf, uint32_t g)
{
	return group_units(nf, g) - nf->gused[g];
}

/* group @g's free count as mke2fs has it when it places the journal */
static int64_t mke2fs_free(const struct ek_newfs *nf, uint32_t g)
{
	return (int64_t)group_free(nf, g) + (nf->bad_skew ? nf->bad_skew[g] : 0);
}

/* mke2fs's get_midpoint_journal_block(): the emptiest group near the middle */
static ek_blk_t journal_goal(const struct ek_newfs *nf)
{
	uint32_t flex = 1u << nf->g.log_flex, start, end, best;
	uint32_t g = ek_group_of_block(&nf->fs, (nf->g.blocks - nf->fs.sb.first_data_block) / 2);

	if (nf->g.log_flex && g > flex) {
		g &= ~(flex - 1);
		while (g < nf->g.groups && mke2fs_free(nf, g) == 0)
			g++;
		if (g == nf->g.groups)
			g = 0;
		start = g;
	} else {
		start = g ? g - 1 : g;
	}
	end = g + 1 < nf->g.groups ? g + 1 : g;
	best = start;
	for (uint32_t i = start + 1; i <= end; i++)
		if (mke2fs_free(nf, i) > mke2fs_free(nf, best))
			best = i;
	return ek_group_first_block(&nf->fs, best);
}

static int make_journal(struct ek_newfs *nf)
{
	uint64_t jblocks = nf->g.journal_blocks;
	uint32_t bs = nf->fs.blksz;
	bool extents = ek_has_incompat(&nf->fs, EXT4_FEATURE_INCOMPAT_EXTENTS);
	struct ek_ext run = { .lblk = 0, .len = (uint32_t)jblocks }, *v = NULL;
	uint8_t *raw, *jsb = ek_calloc(1, bs);
	struct ext4_super_block *sb = (void *)nf->raw_sb;
	size_t nv;
	int err;

	if (!jsb)
		return -ENOMEM;
	raw = special_inode(nf, EXT4_JOURNAL_INO, S_IFREG | 0600);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * extents: the midpoint group (or the first free block from
	 * journal_location), tree block just before; block maps: group 0
	 */
	err = ek_newfs_map(nf, EXT4_JOURNAL_INO, raw, &run, 1,
			   !extents ? 0 : nf->o.journal_location_given ? nf->o.journal_location
								      : journal_goal(nf),
			   EK_NEWFS_TREE_BEFORE, &v, &nv);
	if (err)
		goto out;
	ek_newfs_inode_set_size(nf, raw, jblocks * bs);	/* 2 GiB and more: large_file */
	if (extents)	/* mkjournal grows it an extent at a time: stale root slots */
		ek_extent_root_grown(raw, v, nv);
	nf->journal_start = v[0].pblk;
	nf->journal_ext = v;
	nf->journal_next = nv;
	v = NULL;

	/* the journal superblock, empty log, as mke2fs writes it */
	{
		struct ek_jsb j = { .version = 2, .blocksize = bs, .maxlen = (uint32_t)jblocks,
				    .first = 1, .sequence = 1, .nr_users = 1,
				    .num_fc_blks = nf->g.fc_blocks };

		memcpy(j.uuid, nf->o.uuid, 16);
		ek_jsb_encode(&j, jsb);
		if (nf->o.journal_v1) {
			/* libext2fs keeps the v2 fields and changes the block type only */
			j.version = 1;
			ek_jsb_encode(&j, jsb);
		}
	}
	err = pending_add(nf, nf->journal_start, jsb);
	if (err)
		goto out;

	sb->s_journal_inum = cpu_to_le32(EXT4_JOURNAL_INO);
	sb->s_jnl_backup_type = 1;	/* EXT3_JNL_BACKUP_BLOCKS */
	memcpy(sb->s_jnl_blocks, raw + offsetof(struct ext4_inode, i_block), EXT4_N_BLOCKS * 4);
	sb->s_jnl_blocks[15] = cpu_to_le32((uint32_t)((jblocks * bs) >> 32));
	sb->s_jnl_blocks[16] = cpu_to_le32((uint32_t)(jblocks * bs));
out:
	free(v);
	free(jsb);
	return err;
}

/*
 * The MMP block: the first free block, stamped clean (as e2fsprogs'
 * ext2fs_mmp_init() leaves it), checked as often as it is updated, at
 * most every 5 s (the kernel's minimum)
 */
static int make_mmp(struct ek_newfs *nf)
{
	struct ext4_super_block *sb = (void *)nf->raw_sb;
	struct ek_mmp m = { .magic = EXT4_MMP_MAGIC, .seq = EXT4_MMP_SEQ_CLEAN,
			    .time = nf->o.now, .check_interval = EK_MMP_MIN_CHECK_INTERVAL };
	uint8_t *b = ek_malloc(nf->fs.blksz);
	ek_blk_t blk;
	int err;

	if (!b)
		return -ENOMEM;
	if (!sb->s_mmp_update_interval)
		sb->s_mmp_update_interval = cpu_to_le16(EK_MMP_UPDATE_INTERVAL);
	if (le16_to_cpu(sb->s_mmp_update_interval) > m.check_interval)
		m.check_interval = le16_to_cpu(sb->s_mmp_update_interval);
	err = ek_newfs_alloc_block(nf, 0, &blk);
	if (!err) {
		memcpy(m.nodename, nf->o.mmp_nodename, sizeof(m.nodename));
		memcpy(m.bdevname, nf->o.mmp_bdevname, sizeof(m.bdevname));
		ek_mmp_encode(&nf->fs, &m, b);
		sb->s_mmp_block = cpu_to_le64(blk);
		err = pending_add(nf, blk, b);
	}
	free(b);
	return err;
}

/* ---- quota files ---------------------------------------------------------------- */

/* charge the inodes in use in the table of group @g (@t: its used part) */
static int quota_tally_group(struct ek_newfs *nf, uint32_t g, const uint8_t *t,
			     struct ek_quota_tally *tally)
{
	struct ek_fs *fs = &nf->fs;

	for (uint32_t i = 0; i < nf->ihigh[g]; i++) {
		ek_ino_t ino = (ek_ino_t)g * nf->g.inodes_per_group + i + 1;
		const uint8_t *raw = t + (size_t)i * fs->inode_size;
		struct ek_inode ei;
		int err;

		if (!get_le16(raw + offsetof(struct ext4_inode, i_links_count)))
			continue;	/* a reserved inode left empty */
		err = ek_inode_decode(fs, ino, raw, &ei);	/* checksums come later */
		if (err == -EK_BADCRC)
			err = 0;
		for (unsigned q = 0; q < EK_QUOTA_TYPES && !err; q++) {
			uint32_t id = q == EK_QUOTA_USR ? ei.uid : q == EK_QUOTA_GRP ? ei.gid : ei.projid;

			if (nf->quota_ino[q] && ek_quota_type_charged(fs, q) &&
			    ek_quota_charged(fs, ino, ei.flags))
				err = ek_quota_tally_add(&tally[q], id, 1, ei.blocks << 9, false);
		}
		ek_inode_release(&ei);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Usage per id over every inode in use: tables in memory as they are,
 * tables written out already read back a group at a time
 */
static int quota_tally(struct ek_newfs *nf, struct ek_quota_tally *tally)
{
	struct ek_fs *fs = &nf->fs;
	uint8_t *buf = NULL;
	int err = 0;

	for (uint32_t g = 0; g < fs->group_count && !err; g++) {
		uint64_t used = div_up((uint64_t)nf->ihigh[g] * fs->inode_size, fs->blksz);

		if (!nf->ihigh[g])
			continue;
		if (nf->itable[g]) {
			err = quota_tally_group(nf, g, nf->itable[g], tally);
			continue;
		}
		if (!buf && !(buf = ek_calloc(nf->g.inode_table_blocks, fs->blksz)))
			return -ENOMEM;
		err = ek_io_pread(fs->io, buf, used << fs->log_blksz,
				  fs->groups[g].inode_table << fs->log_blksz);
		if (!err)
			err = quota_tally_group(nf, g, buf, tally);
	}
	free(buf);
	return err;
}

static int cmp_ext_lblk(const void *a, const void *b)
{
	const struct ek_ext *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

/*
 * Quota file @ino holding @len bytes at @data: blocks in the order
 * e2fsprogs' file writes first touch them (header, the first entry's tree
 * path and data block, then the root, then the rest: with 1 KiB blocks
 * logical blocks 0, 2-5, 1, 6...), mapped, written; mode, flags and size
 */
static int quota_file_write(struct ek_newfs *nf, ek_ino_t ino, const uint8_t *data, size_t len)
{
	struct ek_fs *fs = &nf->fs;
	uint32_t per = fs->blksz / EK_QUOTA_BLKSZ, nq = (uint32_t)(len / EK_QUOTA_BLKSZ);
	uint32_t n = (uint32_t)div_up(nq, per), clusters = 0;
	struct ek_ext *v = ek_calloc(n ? n : 1, sizeof(*v));
	bool *seen = ek_calloc(n ? n : 1, sizeof(*seen));
	uint8_t *raw = ek_newfs_inode(nf, ino), *blk = ek_calloc(1, fs->blksz);
	struct tree_sink ts = { .nf = nf };
	struct ek_tree_sink sink = { .alloc = tree_alloc, .put = tree_put, .arg = &ts };
	size_t nv = 0;
	int err = 0;

	if (!v || !seen || !raw || !blk) {
		err = -ENOMEM;
		goto out;
	}
	memset(raw, 0, fs->inode_size);
	put_le16(raw + offsetof(struct ext4_inode, i_mode), S_IFREG | 0600);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	put_le32(raw + offsetof(struct ext4_inode, i_flags), EXT4_IMMUTABLE_FL);
	if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		put_le16(raw + offsetof(struct ext4_inode, i_extra_isize), 32);
	inode_times(nf, raw, nf->o.now);
	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS) && n > EXT4_NDIR_BLOCKS) {
		/* an indirect map (many ids after -d): in logical order, the map in line */
		struct ek_ext run = { .lblk = 0, .len = n }, *m = NULL;
		size_t nm, at = 0;

		err = ek_newfs_map(nf, ino, raw, &run, 1, 0, 0, &m, &nm);
		for (size_t i = 0; i < nm && !err; at += m[i].len, i++)
			for (uint32_t k = 0; k < m[i].len && !err; k++) {
				size_t off = (at + k) * fs->blksz;

				memset(blk, 0, fs->blksz);
				memcpy(blk, data + off, len - off < fs->blksz ? len - off : fs->blksz);
				err = meta_put(nf, m[i].pblk + k, blk);
			}
		free(m);
		if (!err)
			inode_set_size(raw, len);
		goto out;
	}
	for (uint32_t k = 0; k < nq && !err; k++) {
		/* the k-th quota block first written */
		uint32_t q = k == 0 ? 0 : nq < 6 ? (k < nq - 1 ? k + 1 : 1) :
			     k <= 4 ? k + 1 : k == 5 ? 1 : k;
		uint32_t l = q / per;
		ek_blk_t p = 0;
		size_t e;

		if (seen[l])
			continue;
		seen[l] = true;
		/* bigalloc: a block of a logical cluster already placed goes in its cluster */
		for (e = 0; e < nv && nf->cshift; e++)
			if ((v[e].lblk >> nf->cshift) <= (l >> nf->cshift) &&
			    (l >> nf->cshift) <= ((v[e].lblk + v[e].len - 1) >> nf->cshift)) {
				p = v[e].pblk + l - v[e].lblk;	/* same offsets in a cluster */
				break;
			}
		if (!p) {
			err = ek_newfs_alloc_block(nf, 0, &p);
			if (err)
				break;
			p += l & ((1u << nf->cshift) - 1);
			clusters++;
		}
		memset(blk, 0, fs->blksz);
		memcpy(blk, data + (size_t)l * fs->blksz,
		       len - (size_t)l * fs->blksz < fs->blksz ? len - (size_t)l * fs->blksz : fs->blksz);
		err = meta_put(nf, p, blk);
		/* as an extent map grows: onto the end of an extent, else a new one */
		for (e = 0; e < nv; e++)
			if (v[e].lblk + v[e].len == l && v[e].pblk + v[e].len == p)
				break;
		if (e < nv) {
			v[e].len++;
		} else {
			v[nv].lblk = l;
			v[nv].pblk = p;
			v[nv++].len = 1;
		}
	}
	qsort(v, nv, sizeof(*v), cmp_ext_lblk);
	if (err)
		goto out;
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		put_le32(raw + offsetof(struct ext4_inode, i_flags),
			 EXT4_IMMUTABLE_FL | EXT4_EXTENTS_FL);
		err = ek_extent_tree_write(fs, ino, raw, v, nv, &sink);
	} else {
		for (uint32_t i = 0; i < nv; i++)
			for (uint32_t k = 0; k < v[i].len; k++)
				put_le32(raw + offsetof(struct ext4_inode, i_block) +
					 4 * (v[i].lblk + k), (uint32_t)(v[i].pblk + k));
	}
	if (err)
		goto out;
	ek_inode_add_blocks(fs, raw, (int64_t)(clusters + ts.blocks) << nf->cshift);
	inode_set_size(raw, len);
out:
	free(v);
	free(seen);
	free(blk);
	return err;
}

/* every quota file: usage counted now, encoded (quota.c), written */
static int write_quota_files(struct ek_newfs *nf)
{
	struct ek_quota_tally tally[EK_QUOTA_TYPES] = { 0 };
	int err = quota_tally(nf, tally);

	for (unsigned q = 0; q < EK_QUOTA_TYPES && !err; q++) {
		struct ek_quota_usage *u = NULL;
		struct ek_dquot *dq = NULL;
		uint8_t *data = NULL;
		size_t len;

		if (!nf->quota_ino[q])
			continue;
		err = ek_quota_tally_sorted(&tally[q], &u);
		if (!err && !(dq = ek_calloc(tally[q].count ? tally[q].count : 1, sizeof(*dq))))
			err = -ENOMEM;
		for (size_t i = 0; !err && i < tally[q].count; i++) {
			dq[i].id = u[i].id;
			dq[i].curinodes = u[i].inodes;
			dq[i].curspace = u[i].space;
		}
		if (!err)
			err = ek_quota_encode(q, dq, tally[q].count, &data, &len);
		if (!err)
			err = quota_file_write(nf, nf->quota_ino[q], data, len);
		free(data);
		free(dq);
		free(u);
	}
	for (unsigned q = 0; q < EK_QUOTA_TYPES; q++)
		ek_quota_tally_release(&tally[q]);
	return err;
}

/*
 * The quota inodes as mke2fs makes them: user 3, group 4, project the next
 * free inode; their files now, or after the -d tree (defer_root), so the
 * usage counted is the filesystem's
 */
static int make_quota(struct ek_newfs *nf)
{
	struct ext4_super_block *sb = (void *)nf->raw_sb;
	uint8_t types = nf->o.quota_types;
	int err;

	if (!types)
		types = (1u << EK_QUOTA_USR) | (1u << EK_QUOTA_GRP) |
			(ek_has_ro_compat(&nf->fs, EXT4_FEATURE_RO_COMPAT_PROJECT) ?
			 1u << EK_QUOTA_PRJ : 0);
	if (types & (1u << EK_QUOTA_USR)) {
		nf->quota_ino[EK_QUOTA_USR] = 3;
		sb->s_usr_quota_inum = cpu_to_le32(3);
	}
	if (types & (1u << EK_QUOTA_GRP)) {
		nf->quota_ino[EK_QUOTA_GRP] = 4;
		sb->s_grp_quota_inum = cpu_to_le32(4);
	}
	if (types & (1u << EK_QUOTA_PRJ)) {
		ek_ino_t ino = nf->next_ino++;

		if ((err = use_inode(nf, ino, false)))
			return err;
		nf->quota_ino[EK_QUOTA_PRJ] = ino;
		sb->s_prj_quota_inum = cpu_to_le32((uint32_t)ino);
	}
	if (nf->o.defer_root) {
		nf->quota_late = true;
		return 0;
	}
	return write_quota_files(nf);
}

/* the orphan file: empty blocks with their tails (inode 12) */
static int make_orphan_file(struct ek_newfs *nf)
{
	uint64_t blocks = nf->o.orphan_file_blocks ? nf->o.orphan_file_blocks :
			  nf->g.blocks < 128 * 1024 ? 32 : nf->g.blocks < 2048 * 1024 ?
			  nf->g.blocks / 4096 : 512;
	struct ek_ext run = { .lblk = 0, .len = (uint32_t)blocks }, *v = NULL;
	ek_ino_t ino = nf->next_ino++;
	uint8_t *raw, *b = ek_calloc(1, nf->fs.blksz);
	struct ext4_super_block *sb = (void *)nf->raw_sb;
	size_t nv;
	int err;

	if (!b)
		return -ENOMEM;
	raw = special_inode(nf, ino, S_IFREG | 0600);
	err = raw ? use_inode(nf, ino, false) : -ENOMEM;
	if (!err)
		err = ek_newfs_map(nf, ino, raw, &run, 1, 0, EK_NEWFS_TREE_BEFORE, &v, &nv);
	if (err)
		goto out;
	inode_set_size(raw, blocks * nf->fs.blksz);
	for (size_t i = 0; i < nv && !err; i++)
		for (uint32_t k = 0; k < v[i].len && !err; k++) {
			memset(b, 0, nf->fs.blksz);
			put_le32(b + nf->fs.blksz - 8, EK_ORPHAN_BLOCK_MAGIC);
			if (nf->fs.has_csum)
				put_le32(b + nf->fs.blksz - 4,
					 ek_orphan_block_csum(&nf->fs, ino, 0, v[i].pblk + k, b));
			err = pending_add(nf, v[i].pblk + k, b);
		}
	sb->s_orphan_file_inum = cpu_to_le32((uint32_t)ino);
	nf->fs.sb.orphan_file_inum = (uint32_t)ino;	/* quota's charging leaves it out */
out:
	free(v);
	free(b);
	return err;
}

/* ---- superblock, create, write ---------------------------------------------------- */

void ek_newfs_set_discard_zeroed(struct ek_newfs *nf, bool discard_zeroed)
{
	nf->o.discard_zeroed = discard_zeroed;
}

void ek_newfs_set_target(struct ek_newfs *nf, struct ek_io *io, bool zeroed)
{
	nf->fs.io = io;
	nf->o.zeroed = zeroed;
}

ek_blk_t ek_newfs_journal_start(const struct ek_newfs *nf)
{
	return nf->journal_start;
}

/* s_max_mnt_count and s_checkinterval: never, or mke2fs.conf's enable_periodic_fsck */
static void fsck_interval(struct ext4_super_block *sb, const struct ek_newfs_opts *o)
{
	sb->s_max_mnt_count = cpu_to_le16(0xFFFF);
	if (o->periodic_fsck) {
		/* mke2fs: 180 days, and 20 mounts plus a jitter taken from the UUID */
		unsigned sum = 0;

		for (int i = 0; i < 16; i++)
			sum += o->uuid[i];
		sb->s_checkinterval = cpu_to_le32(86400u * 180u);
		sb->s_max_mnt_count = cpu_to_le16((uint16_t)(20 + sum % 20));
	}
}

/* the superblock mke2fs writes (mkfs/NOTES.md §7), counts filled in by finish */
static void build_super(struct ek_newfs *nf)
{
	const struct ek_geometry *g = &nf->g;
	const struct ek_newfs_opts *o = &nf->o;
	struct ext4_super_block *sb = (void *)nf->raw_sb;

	memset(sb, 0, sizeof(*sb));
	sb->s_inodes_count = cpu_to_le32((uint32_t)g->inodes);
	sb->s_first_data_block = cpu_to_le32(g->first_data_block);
	for (uint32_t b = g->blocksize; b > 1024; b >>= 1)
		sb->s_log_block_size = cpu_to_le32(le32_to_cpu(sb->s_log_block_size) + 1);
	sb->s_log_cluster_size = cpu_to_le32(le32_to_cpu(sb->s_log_block_size) + g->cluster_bits);
	sb->s_blocks_per_group = cpu_to_le32(g->blocks_per_group);
	sb->s_clusters_per_group = cpu_to_le32(g->clusters_per_group);
	sb->s_inodes_per_group = cpu_to_le32(g->inodes_per_group);
	ek_time_set(&sb->s_wtime, &sb->s_wtime_hi, o->now);
	fsck_interval(sb, o);
	sb->s_magic = cpu_to_le16(EXT4_SUPER_MAGIC);
	sb->s_state = cpu_to_le16(EXT4_VALID_FS);
	sb->s_errors = cpu_to_le16(o->errors ? o->errors : 1);
	ek_time_set(&sb->s_lastcheck, &sb->s_lastcheck_hi, o->now);
	sb->s_creator_os = cpu_to_le32(o->creator_os);
	/* revision 0 (as mke2fs -r 0 writes it): the level alone is 0 */
	sb->s_rev_level = cpu_to_le32(o->rev0 ? 0 : 1);
	sb->s_first_ino = cpu_to_le32(EXT4_GOOD_OLD_FIRST_INO);
	sb->s_inode_size = cpu_to_le16((uint16_t)g->inode_size);
	sb->s_feature_compat = cpu_to_le32(g->compat);
	sb->s_feature_incompat = cpu_to_le32(g->incompat);
	sb->s_feature_ro_compat = cpu_to_le32(g->ro_compat);
	/* after the feature words: the hi halves are written with 64bit */
	ek_sb_set(sb, EK_SB_BLOCKS_COUNT, g->blocks);
	ek_sb_set(sb, EK_SB_R_BLOCKS_COUNT, g->reserved_blocks);
	memcpy(sb->s_uuid, o->uuid, 16);
	memcpy(sb->s_volume_name, o->label, sizeof(sb->s_volume_name));
	memcpy(sb->s_last_mounted, o->last_mounted, sizeof(sb->s_last_mounted));
	sb->s_reserved_gdt_blocks = cpu_to_le16((uint16_t)g->reserved_gdt);
	sb->s_mmp_update_interval = cpu_to_le16(o->mmp_update_interval);
	sb->s_backup_bgs[0] = cpu_to_le32(g->backup_bgs[0]);
	sb->s_backup_bgs[1] = cpu_to_le32(g->backup_bgs[1]);
	memcpy(sb->s_hash_seed, o->hash_seed, 16);
	sb->s_def_hash_version = o->hash_given ? o->def_hash_version : EXT4_HASH_HALF_MD4;
	if (g->incompat & EXT4_FEATURE_INCOMPAT_64BIT)
		sb->s_desc_size = cpu_to_le16((uint16_t)g->desc_size);
	/* user_xattr, acl unless mke2fs.conf says otherwise */
	sb->s_default_mount_opts = cpu_to_le32(o->rev0 ? 0 :
					       o->mntopts_given ? o->default_mount_opts : 0x0C);
	ek_time_set(&sb->s_mkfs_time, &sb->s_mkfs_time_hi, o->now);
	if (g->inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		sb->s_min_extra_isize = cpu_to_le16(32);
		sb->s_want_extra_isize = cpu_to_le16(32);
	}
	/*
	 * signed directory hashes whatever this host's char is (mke2fs takes the
	 * host's): the flag tells every reader how the names were hashed, and
	 * the image stays the same bytes on every host
	 */
	sb->s_flags = cpu_to_le32(0x1 | (o->test_fs ? EXT2_FLAGS_TEST_FILESYS : 0));
	sb->s_raid_stride = cpu_to_le16(o->raid_stride);
	sb->s_raid_stripe_width = cpu_to_le32(o->raid_stripe_width);
	sb->s_log_groups_per_flex = (uint8_t)g->log_flex;
	if (g->ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		sb->s_checksum_type = 1;	/* crc32c */
	if (g->incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED)
		sb->s_checksum_seed = cpu_to_le32(ek_crc32c(~0u, o->uuid, 16));
	if (g->incompat & EXT4_FEATURE_INCOMPAT_CASEFOLD) {
		sb->s_encoding = cpu_to_le16(o->encoding ? o->encoding : EXT4_ENC_UTF8_12_1);
		sb->s_encoding_flags = cpu_to_le16(o->encoding_flags);
	}
	/* encrypt: the modes mke2fs records (contents AES-256-XTS, names AES-256-CTS) */
	if (g->incompat & EXT4_FEATURE_INCOMPAT_ENCRYPT) {
		sb->s_encrypt_algos[0] = EXT4_ENCRYPTION_MODE_AES_256_XTS;
		sb->s_encrypt_algos[1] = EXT4_ENCRYPTION_MODE_AES_256_CTS;
	}
}

/*
 * -S: the superblock names the MMP block, the quota inodes and the orphan
 * file where the whole layout made them (a layout made aside, in memory),
 * so e2fsck finds the ones on the target.  mke2fs 1.47.0 -S leaves the
 * MMP block 0 (e2fsck then cannot open the filesystem), writes new quota
 * files over the filesystem's blocks and inodes, and fails on the orphan
 * file: none of that is followed.
 */
static int super_only_names(struct ek_newfs *nf)
{
	struct ext4_super_block *sb = (void *)nf->raw_sb, *full_sb;
	struct ek_newfs_opts full = nf->o;
	struct ek_newfs *f;
	int err;

	if (!ek_has_incompat(&nf->fs, EXT4_FEATURE_INCOMPAT_MMP) &&
	    !ek_has_ro_compat(&nf->fs, EXT4_FEATURE_RO_COMPAT_QUOTA) &&
	    !ek_has_compat(&nf->fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE))
		return 0;
	full.super_only = false;	/* quota files made in memory only: @f has no target */
	if ((err = ek_newfs_create(NULL, &full, &f)))
		return err;
	full_sb = (void *)f->raw_sb;
	sb->s_mmp_block = full_sb->s_mmp_block;
	sb->s_mmp_update_interval = full_sb->s_mmp_update_interval;
	sb->s_usr_quota_inum = full_sb->s_usr_quota_inum;
	sb->s_grp_quota_inum = full_sb->s_grp_quota_inum;
	sb->s_prj_quota_inum = full_sb->s_prj_quota_inum;
	sb->s_orphan_file_inum = full_sb->s_orphan_file_inum;
	ek_newfs_free(f);
	return 0;
}

int ek_newfs_create(struct ek_io *io, const struct ek_newfs_opts *o, struct ek_newfs **out)
{
	struct ek_newfs *nf = ek_calloc(1, sizeof(*nf));
	struct ek_fs *fs;
	uint32_t G;
	int err;

	if (!nf)
		return -ENOMEM;
	nf->o = *o;
	if ((err = ek_geometry_compute(&o->geo, &nf->g)))
		goto out_free;
	build_super(nf);
	fs = &nf->fs;
	fs->io = io;
	fs->raw_sb = (void *)nf->raw_sb;
	if ((err = ek_super_decode(fs->raw_sb, true, &fs->sb)))
		goto out_free;
	ek_fs_derive(fs);
	G = fs->group_count;
	fs->groups = ek_calloc(G, sizeof(*fs->groups));
	nf->bmap = ek_calloc(G, sizeof(*nf->bmap));
	nf->foreign = ek_calloc(G, sizeof(*nf->foreign));
	nf->itable = ek_calloc(G, sizeof(*nf->itable));
	nf->ihigh = ek_calloc(G, sizeof(*nf->ihigh));
	nf->iused = ek_calloc(G, sizeof(*nf->iused));
	nf->dirs = ek_calloc(G, sizeof(*nf->dirs));
	nf->map_bytes = nf->g.blocks_per_group / 8 > fs->blksz ? nf->g.blocks_per_group / 8 : fs->blksz;
	nf->gused = ek_calloc(G, sizeof(*nf->gused));
	nf->flushed = ek_calloc(G, sizeof(*nf->flushed));
	nf->sbarea = ek_calloc(G, sizeof(*nf->sbarea));
	if (!fs->groups || !nf->bmap || !nf->foreign || !nf->itable || !nf->ihigh || !nf->iused ||
	    !nf->dirs || !nf->gused || !nf->sbarea || !nf->flushed) {
		err = -ENOMEM;
		goto out_free;
	}
	for (uint32_t g = 0; g < G; g++) {
		/* superblock, descriptors (meta_bg: this group's block), reserved GDT */
		nf->sbarea[g] = ek_group_sb_gdt_blocks(fs, g);
		if (!g)	/* 1 KiB blocks with bigalloc: the boot block comes first */
			nf->sbarea[g] += (uint32_t)(primary_sb_block(nf) - fs->sb.first_data_block);
		nf->gused[g] = nf->sbarea[g];
	}
	/* superblock copies first, so no table lands on one */
	for (uint32_t g = 0; g < G; g++)
		if (nf->sbarea[g] && !group_map(nf, g)) {
			err = -ENOMEM;
			goto out_free;
		}
	err = mark_bad_blocks(nf);
	if (!err && o->packed_meta_blocks && ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FLEX_BG))
		err = place_packed_tables(nf);
	else
		for (uint32_t g = 0; g < G && !err; g++)
			err = place_group_tables(nf, g);
	if (err)
		goto out_free;
	to_clusters(nf);
	nf->cursor = fs->sb.first_data_block;
	nf->overhead = fs->sb.first_data_block;
	for (uint32_t g = 0; g < G; g++)
		nf->overhead += nf->gused[g];	/* units: clusters with bigalloc */
	nf->overhead -= o->nbad;	/* as mke2fs: every bad block left out, a superblock's too */
	if (o->super_only) {
		/* the tables alone: no inode is made; the journal inode is named only */
		struct ext4_super_block *sb = (void *)nf->raw_sb;

		sb->s_state = cpu_to_le16(EXT4_VALID_FS | EXT4_ERROR_FS);
		if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL))
			sb->s_journal_inum = cpu_to_le32(EXT4_JOURNAL_INO);
		if ((err = super_only_names(nf)))
			goto out_free;
		*out = nf;
		return 0;
	}

	/* inodes 1-11 are reserved and in use; then as mke2fs creates them */
	for (ek_ino_t i = 1; i < EXT4_GOOD_OLD_FIRST_INO; i++)
		if (i != EXT4_ROOT_INO && (err = use_inode(nf, i, false)))
			goto out_free;
	inode_times(nf, ek_newfs_inode(nf, 1), o->now);	/* the bad-blocks inode */
	nf->next_ino = EXT4_LPF_INO + 1;
	if ((err = make_root_and_lpf(nf)))
		goto out_free;
	if (o->nbad && (err = make_bad_blocks_inode(nf)))
		goto out_free;
	if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE) && (err = make_resize_inode(nf)))
		goto out_free;
	if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && o->geo.journal_external) {
		struct ext4_super_block *sb = (void *)nf->raw_sb;

		/* the journal is on its device: the superblock names it */
		memcpy(sb->s_journal_uuid, o->journal_uuid, 16);
		sb->s_journal_dev = cpu_to_le32(o->journal_dev);
	} else if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL)) {
		if ((err = make_journal(nf)))
			goto out_free;
		/* whole clusters, as EXT2FS_NUM_B2C (a fast-commit area may end one part way) */
		nf->overhead += (nf->g.journal_blocks + (1ull << nf->cshift) - 1) >> nf->cshift;
	}
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP) && (err = make_mmp(nf)))
		goto out_free;
	if (ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_QUOTA) && (err = make_quota(nf)))
		goto out_free;
	if (ek_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE) && (err = make_orphan_file(nf)))
		goto out_free;
	*out = nf;
	return 0;

out_free:
	ek_newfs_free(nf);
	return err;
}

void ek_newfs_free(struct ek_newfs *nf)
{
	if (!nf)
		return;
	for (uint32_t g = 0; nf->bmap && g < nf->fs.group_count; g++)
		free(nf->bmap[g]);
	for (uint32_t g = 0; nf->itable && g < nf->fs.group_count; g++)
		free(nf->itable[g]);
	for (size_t i = 0; i < nf->npending; i++)
		free(nf->pending[i].buf);
	free(nf->pending);
	free(nf->journal_ext);
	free(nf->bmap);
	free(nf->foreign);
	free(nf->itable);
	free(nf->ihigh);
	free(nf->iused);
	free(nf->dirs);
	free(nf->gused);
	free(nf->sbarea);
	free(nf->flushed);
	free(nf->bad_skew);
	free(nf->fs.groups);
	free(nf);
}

int ek_newfs_begin(struct ek_newfs *nf)
{
	uint8_t z[4096] = { 0 };
	int err;

	if (!nf->fs.io)
		return ek_err(-EINVAL, "newfs: no target to write");
	nf->writing = true;
	if (nf->o.super_only)	/* as mke2fs -S: the sectors after the boot block, nothing else */
		return ek_io_pwrite(nf->fs.io, z, 4096 - 1024, 1024);
	/*
	 * the old superblock goes first: until finish, the image is not a
	 * filesystem; old signatures in the first 4 KiB and the last 128 KiB
	 * (swap, RAID, GPT backup) with it, as mke2fs clears them
	 */
	err = ek_io_pwrite(nf->fs.io, z, nf->o.keep_2k_4k ? 2048 : sizeof(z), 0);
	if (!err && !nf->o.zeroed) {
		uint64_t end = nf->g.blocks << nf->fs.log_blksz;
		uint64_t from = end > (128u << 10) ? (end - (128u << 10)) & ~4095ull : 0;

		for (uint64_t off = from; off < end && !err; off += sizeof(z))
			err = ek_io_pwrite(nf->fs.io, z, end - off < sizeof(z) ? end - off : sizeof(z),
					   off);
	}
	for (size_t i = 0; i < nf->journal_next && !err && !nf->o.lazy_journal_init; i++)
		err = zero_blocks(nf, nf->journal_ext[i].pblk, nf->journal_ext[i].len);
	if (!err)
		err = ek_io_sync(nf->fs.io);
	return err;
}

/* ---- finish ------------------------------------------------------------------------ */

static int cmp_pending(const void *a, const void *b)
{
	const struct pending *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static bool uses_uninit(const struct ek_newfs *nf)
{
	return nf->fs.has_csum || nf->fs.has_gdt_csum;
}

/* the block bitmap of group @g as written: padding past the group's end set */
static void block_bitmap_of(const struct ek_newfs *nf, uint32_t g, uint8_t *b)
{
	uint32_t n = group_units(nf, g);

	if (nf->bmap[g])
		memcpy(b, nf->bmap[g], nf->fs.blksz);
	else {
		memset(b, 0, nf->fs.blksz);
		for (uint32_t i = 0; i < sb_area(nf, g); i++)
			b[i >> 3] |= 1u << (i & 7);
	}
	for (uint32_t i = n; i < nf->fs.blksz * 8; i++)
		b[i >> 3] |= 1u << (i & 7);
}

static void inode_bitmap_of(const struct ek_newfs *nf, uint32_t g, uint8_t *b)
{
	memset(b, 0, nf->fs.blksz);
	for (uint32_t i = 0; i < nf->ihigh[g]; i++)
		b[i >> 3] |= 1u << (i & 7);
	for (uint32_t i = nf->g.inodes_per_group; i < nf->fs.blksz * 8; i++)
		b[i >> 3] |= 1u << (i & 7);
}

/* group counters, flags and checksums into the descriptor table; totals into the superblock */
static int finish_groups(struct ek_newfs *nf, uint8_t *gdt, uint8_t *bitmap)
{
	struct ek_fs *fs = &nf->fs;
	struct ext4_super_block *sb = (void *)nf->raw_sb;
	bool uninit = uses_uninit(nf);
	/* as mke2fs: zeroed by its discard (not a new file), or every table written */
	bool zeroed = !nf->o.super_only && (nf->o.discard_zeroed || !nf->o.lazy_itable_init);
	uint64_t free_blocks = 0, free_inodes = 0;

	for (uint32_t g = 0; g < fs->group_count; g++) {
		struct ek_group *grp = &fs->groups[g];
		uint8_t *d = gdt + (size_t)g * fs->desc_size;
		uint16_t flags = 0;

		grp->free_blocks = (uint32_t)group_free(nf, g);
		grp->free_inodes = nf->g.inodes_per_group - nf->iused[g];
		grp->used_dirs = nf->dirs[g];
		grp->itable_unused = uninit && !nf->o.super_only ?
				     nf->g.inodes_per_group - nf->ihigh[g] : 0;
		if (uninit) {
			if (!nf->ihigh[g])
				flags |= EXT4_BG_INODE_UNINIT;
			/* group 0 too when -S makes no root in it */
			if ((g || nf->o.super_only) && g != fs->group_count - 1 && !nf->foreign[g])
				flags |= EXT4_BG_BLOCK_UNINIT;
		}
		if (zeroed)	/* mke2fs sets it without uninit_bg too */
			flags |= EXT4_BG_INODE_ZEROED;
		grp->flags = flags;
		free_blocks += grp->free_blocks;
		free_inodes += grp->free_inodes;

		ek_gd_set(fs, d, EK_GD_BLOCK_BITMAP, grp->block_bitmap);
		ek_gd_set(fs, d, EK_GD_INODE_BITMAP, grp->inode_bitmap);
		ek_gd_set(fs, d, EK_GD_INODE_TABLE, grp->inode_table);
		ek_gd_set(fs, d, EK_GD_FREE_BLOCKS, grp->free_blocks);
		ek_gd_set(fs, d, EK_GD_FREE_INODES, grp->free_inodes);
		ek_gd_set(fs, d, EK_GD_USED_DIRS, grp->used_dirs);
		ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, grp->itable_unused);
		put_le16(d + offsetof(struct ext4_group_desc, bg_flags), flags);
		if (fs->has_csum && !nf->o.super_only) {	/* -S writes no bitmap */
			uint32_t bc = 0, ic = 0;

			if (!(flags & EXT4_BG_BLOCK_UNINIT)) {
				block_bitmap_of(nf, g, bitmap);
				bc = ek_bitmap_csum(fs, bitmap, false);
			}
			if (!(flags & EXT4_BG_INODE_UNINIT)) {
				inode_bitmap_of(nf, g, bitmap);
				ic = ek_bitmap_csum(fs, bitmap, true);
			}
			ek_gd_set(fs, d, EK_GD_BLOCK_BITMAP_CSUM, bc);
			ek_gd_set(fs, d, EK_GD_INODE_BITMAP_CSUM, ic);
		}
		if (uninit && nf->o.super_only) {
			/*
			 * mke2fs -S zeroes bg_itable_unused after the checksum was
			 * set and does not set it again: the checksum is the one of
			 * the descriptor ext2fs_initialize made, every inode unused
			 * but group 0's first 11, as e2fsck will find.  So e2fsck
			 * distrusts the descriptors and reads every inode.  (With
			 * bigalloc, mke2fs's fix_cluster_bg_counts() sets every
			 * checksum again: e2fsck then trusts INODE_UNINIT, finds
			 * no root and loses every file.  Not followed.)
			 */
			uint32_t ipg = nf->g.inodes_per_group;

			ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, g ? ipg :
				  ipg > EXT4_GOOD_OLD_FIRST_INO ? ipg - EXT4_GOOD_OLD_FIRST_INO : 0);
			put_le16(d + offsetof(struct ext4_group_desc, bg_checksum),
				 ek_group_desc_csum(fs, g, d));
			ek_gd_set(fs, d, EK_GD_ITABLE_UNUSED, 0);
		} else if (uninit) {
			put_le16(d + offsetof(struct ext4_group_desc, bg_checksum),
				 ek_group_desc_csum(fs, g, d));
		}
	}
	free_blocks <<= nf->cshift;	/* the superblock counts blocks, the groups clusters */
	ek_sb_set(sb, EK_SB_FREE_BLOCKS_COUNT, free_blocks);
	sb->s_free_inodes_count = cpu_to_le32((uint32_t)free_inodes);
	sb->s_overhead_clusters = cpu_to_le32(nf->o.super_only ? 0 : (uint32_t)nf->overhead);
	return 0;
}

/* the inode table of group @g: the used part (or all of it when it must be zeroed) */
static int write_itable(struct ek_newfs *nf, uint32_t g)
{
	struct ek_fs *fs = &nf->fs;
	bool all = !nf->o.zeroed && (!nf->o.lazy_itable_init || !uses_uninit(nf));
	uint64_t used = div_up((uint64_t)nf->ihigh[g] * fs->inode_size, fs->blksz);
	int err = 0;

	if (used) {
		uint8_t *t = nf->itable[g];

		for (uint32_t i = 0; i < nf->ihigh[g]; i++) {
			ek_ino_t ino = (ek_ino_t)g * nf->g.inodes_per_group + i + 1;

			ek_inode_csum_set(fs, ino, t + (size_t)i * fs->inode_size);
		}
		err = ek_newfs_write(nf, fs->groups[g].inode_table, t, used);
	}
	if (!err && all)
		err = zero_blocks(nf, fs->groups[g].inode_table + used,
				  nf->g.inode_table_blocks - used);
	return err;
}

/* a write combiner: blocks given in order, neighbours written together */
struct comb {
	struct ek_newfs *nf;
	ek_blk_t start;
	uint32_t n, cap;	/* blocks held, blocks it can hold */
	uint8_t *buf;
};

static int comb_flush(struct comb *c)
{
	int err = c->n ? ek_newfs_write(c->nf, c->start, c->buf, c->n) : 0;

	c->n = 0;
	return err;
}

static int comb_add(struct comb *c, ek_blk_t blk, const uint8_t *data, uint32_t n)
{
	int err;

	if (n > c->cap)
		return comb_flush(c) ?: ek_newfs_write(c->nf, blk, data, n);
	if (c->n && (blk != c->start + c->n || c->n + n > c->cap) && (err = comb_flush(c)))
		return err;
	if (!c->n)
		c->start = blk;
	memcpy(c->buf + ((size_t)c->n << c->nf->fs.log_blksz), data, (size_t)n << c->nf->fs.log_blksz);
	c->n += n;
	return 0;
}

/*
 * The primary reserved GDT blocks: each lists where its copies go, in the
 * backup groups in order (mke2fs's rule: the primary's block plus the
 * group's first block, one block off the copy with 1 KiB bigalloc).
 */
static int write_resize_blocks(struct ek_newfs *nf, struct comb *c, uint8_t *buf)
{
	int err = 0;

	for (uint32_t i = 0; i < nf->g.reserved_gdt && !err; i++) {
		ek_blk_t prim = primary_sb_block(nf) + 1 + nf->g.desc_blocks + i;

		ek_resize_gdt_encode(&nf->fs, i, buf);
		err = comb_add(c, prim, buf, 1);
	}
	return err;
}

/*
 * The descriptor blocks group @g holds a copy of: [*i0, *i0 + *n).  The
 * whole table in every group with a superblock; with meta_bg, the block of
 * the group's meta group in its first, second and last group.
 */
static bool desc_copy(const struct ek_newfs *nf, uint32_t g, uint32_t *i0, uint32_t *n)
{
	uint32_t dpb = nf->fs.desc_per_block, r = g % dpb;

	if (!ek_has_incompat(&nf->fs, EXT4_FEATURE_INCOMPAT_META_BG)) {
		*i0 = 0;
		*n = nf->g.desc_blocks;
		return ek_group_has_super(&nf->fs, g);
	}
	*i0 = g / dpb;
	*n = 1;
	return r == 0 || r == 1 || r == dpb - 1;
}

/* the pending blocks and the reserved GDT blocks, in block order */
static int write_pending(struct ek_newfs *nf, struct comb *c, uint8_t *buf)
{
	ek_blk_t rsv_at = primary_sb_block(nf) + 1 + nf->g.desc_blocks;
	bool rsv_done = !nf->resize_blocks;
	int err = 0;

	qsort(nf->pending, nf->npending, sizeof(*nf->pending), cmp_pending);
	for (size_t i = 0; i <= nf->npending && !err; i++) {
		if (!rsv_done && (i == nf->npending || nf->pending[i].blk > rsv_at)) {
			err = write_resize_blocks(nf, c, buf);
			rsv_done = true;
		}
		if (!err && i < nf->npending)
			err = comb_add(c, nf->pending[i].blk, nf->pending[i].buf, 1);
	}
	return err ? err : comb_flush(c);
}

int ek_newfs_finish(struct ek_newfs *nf)
{
	struct ek_fs *fs = &nf->fs;
	struct ext4_super_block *sb = (void *)nf->raw_sb;
	uint8_t *gdt = NULL, *bitmap = NULL, *sbblk = NULL;
	struct comb wc = { .nf = nf };
	size_t gdt_bytes = (size_t)nf->g.desc_blocks * fs->blksz;
	uint32_t i0, n0;
	int err;

	if (!nf->writing)
		return ek_err(-EINVAL, "newfs: finish before ek_newfs_begin()");
	gdt = ek_calloc(1, gdt_bytes);
	bitmap = ek_malloc(fs->blksz);
	sbblk = ek_calloc(1, fs->blksz);
	wc.cap = ZERO_CHUNK >> fs->log_blksz ? ZERO_CHUNK >> fs->log_blksz : 1;
	wc.buf = ek_malloc((size_t)wc.cap << fs->log_blksz);
	if (!gdt || !bitmap || !sbblk || !wc.buf) {
		err = -ENOMEM;
		goto out;
	}
	/* -d: the quota files count the tree, allocated after it */
	if (nf->quota_late && (err = write_quota_files(nf)))
		goto out;
	nf->quota_late = false;
	if ((err = finish_groups(nf, gdt, bitmap)))
		goto out;
	if (nf->o.super_only)
		goto copies;
	/* the blocks made with the layout, in order */
	if ((err = write_pending(nf, &wc, bitmap)))
		goto out;
	/*
	 * In passes, so neighbouring blocks go out in one write: bitmaps, tables,
	 * then (after a flush) the superblock copies, which e2fsck would fall
	 * back to: none exists before everything else is on disk.
	 */
	for (uint32_t g = 0; g < fs->group_count && !err; g++)
		if (!(fs->groups[g].flags & EXT4_BG_BLOCK_UNINIT)) {
			block_bitmap_of(nf, g, bitmap);
			err = comb_add(&wc, fs->groups[g].block_bitmap, bitmap, 1);
		}
	for (uint32_t g = 0; g < fs->group_count && !err; g++)
		if (!(fs->groups[g].flags & EXT4_BG_INODE_UNINIT)) {
			inode_bitmap_of(nf, g, bitmap);
			err = comb_add(&wc, fs->groups[g].inode_bitmap, bitmap, 1);
		}
	if (!err)
		err = comb_flush(&wc);
	for (uint32_t g = 0; g < fs->group_count && !err; g++)
		if (!nf->flushed[g])
			err = write_itable(nf, g);
	if (!err)
		err = ek_io_sync(fs->io);
copies:
	for (uint32_t g = 1; g < fs->group_count && !err; g++) {
		ek_blk_t first = ek_group_first_block(fs, g);
		struct ext4_super_block *b = (void *)sbblk;	/* at the block's start */
		bool has_super = ek_group_has_super(fs, g);
		uint32_t i0, n;

		if (has_super) {
			/* a backup: not marked valid, names its group */
			memcpy(b, sb, sizeof(*sb));
			b->s_state = cpu_to_le16(le16_to_cpu(sb->s_state) & ~EXT4_VALID_FS);
			b->s_block_group_nr = cpu_to_le16((uint16_t)g);
			b->s_kbytes_written = 0;
			if (fs->has_csum)
				b->s_checksum = cpu_to_le32(ek_super_csum(b));
			err = comb_add(&wc, first, sbblk, 1);
		}
		if (!err && desc_copy(nf, g, &i0, &n))
			err = comb_add(&wc, first + has_super, gdt + ((size_t)i0 << fs->log_blksz), n);
	}
	if (!err)
		err = comb_flush(&wc);
	/* group 0's descriptors: all of them, or meta group 0's block */
	if (!err && desc_copy(nf, 0, &i0, &n0))
		err = ek_newfs_write(nf, primary_sb_block(nf) + 1, gdt, n0);
	if (!err)
		err = ek_io_sync(fs->io);
	if (err)
		goto out;
	/* last: the primary superblock makes it a filesystem */
	sb->s_kbytes_written = cpu_to_le64(nf->kbytes_written + 1);
	if (fs->has_csum)
		sb->s_checksum = cpu_to_le32(ek_super_csum(sb));
	err = ek_io_pwrite(fs->io, sb, sizeof(*sb), EXT4_SUPERBLOCK_OFFSET);
	if (!err)
		err = ek_io_sync(fs->io);
out:
	free(wc.buf);
	free(gdt);
	free(bitmap);
	free(sbblk);
	return err;
}

/* ---- an external journal device ---------------------------------------------------------- */

int ek_newfs_journal_dev(struct ek_io *io, const struct ek_newfs_opts *o, uint64_t *blocks)
{
	uint32_t bs = o->geo.blocksize, isize = o->geo.inode_size ? o->geo.inode_size : 256;
	uint64_t n = bs ? o->geo.size / bs : 0;
	uint32_t first = bs == 1024 ? 1 : 0;
	uint8_t *buf;
	struct ext4_super_block sb;
	int err = 0;

	if (bs < 1024 || bs > 65536 || (bs & (bs - 1)))
		return ek_err(-EINVAL, "block size %u is not a power of two from 1024 to 65536", bs);
	if (n < 1024 || n > 0xFFFFFFFFull)
		return ek_err(-EINVAL, "a journal device of %llu blocks: it must hold 1024 to 2^32 - 1",
			      (unsigned long long)n);
	*blocks = n;
	if (!io)
		return 0;
	/* the superblock: no groups, no inodes, the journal_dev feature */
	memset(&sb, 0, sizeof(sb));
	sb.s_blocks_count_lo = cpu_to_le32((uint32_t)n);
	sb.s_first_data_block = cpu_to_le32(first);
	for (uint32_t b = bs; b > 1024; b >>= 1)
		sb.s_log_block_size = cpu_to_le32(le32_to_cpu(sb.s_log_block_size) + 1);
	sb.s_log_cluster_size = sb.s_log_block_size;
	sb.s_blocks_per_group = sb.s_clusters_per_group = cpu_to_le32(bs * 8);
	ek_time_set(&sb.s_wtime, &sb.s_wtime_hi, o->now);
	ek_time_set(&sb.s_lastcheck, &sb.s_lastcheck_hi, o->now);
	ek_time_set(&sb.s_mkfs_time, &sb.s_mkfs_time_hi, o->now);
	fsck_interval(&sb, o);
	sb.s_magic = cpu_to_le16(EXT4_SUPER_MAGIC);
	sb.s_state = cpu_to_le16(EXT4_VALID_FS);
	sb.s_errors = cpu_to_le16(o->errors ? o->errors : 1);
	sb.s_rev_level = cpu_to_le32(1);
	sb.s_first_ino = cpu_to_le32(EXT4_GOOD_OLD_FIRST_INO);
	sb.s_inode_size = cpu_to_le16((uint16_t)isize);
	sb.s_feature_incompat = cpu_to_le32(EXT4_FEATURE_INCOMPAT_JOURNAL_DEV);
	sb.s_feature_ro_compat = cpu_to_le32(o->geo.ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM);
	memcpy(sb.s_uuid, o->uuid, 16);
	memcpy(sb.s_volume_name, o->label, sizeof(sb.s_volume_name));
	memcpy(sb.s_last_mounted, o->last_mounted, sizeof(sb.s_last_mounted));
	memcpy(sb.s_hash_seed, o->hash_seed, 16);
	sb.s_def_hash_version = o->hash_given ? o->def_hash_version : EXT4_HASH_HALF_MD4;
	sb.s_default_mount_opts = cpu_to_le32(o->mntopts_given ? o->default_mount_opts : 0x0C);
	if (isize > EXT4_GOOD_OLD_INODE_SIZE) {
		sb.s_min_extra_isize = cpu_to_le16(32);
		sb.s_want_extra_isize = cpu_to_le16(32);
	}
	/* no s_flags: no directories to hash (mke2fs leaves them 0 here) */
	if (o->geo.ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		sb.s_checksum_type = 1;
	if (!(buf = ek_calloc(1, ZERO_CHUNK)))
		return -ENOMEM;
	/* the old superblock first, then the whole device zeroed (the log reads as empty) */
	err = ek_io_pwrite(io, buf, 4096 < n * bs ? 4096 : n * bs, 0);
	for (uint64_t off = 0; !err && !o->zeroed && !o->lazy_journal_init && off < n * bs;
	     off += ZERO_CHUNK)
		err = ek_io_pwrite(io, buf, n * bs - off < ZERO_CHUNK ? n * bs - off : ZERO_CHUNK, off);
	if (!err) {
		/* the journal superblock, in the block after the superblock's: no users yet */
		struct ek_jsb j = { .version = 2, .blocksize = bs, .maxlen = (uint32_t)n,
				    .first = (bs == 1024 ? 2 : 1) + 1, .sequence = 1 };

		memcpy(j.uuid, o->uuid, 16);
		memset(buf, 0, bs);
		ek_jsb_encode(&j, buf);
		err = ek_io_pwrite(io, buf, bs, (uint64_t)(first + 1) * bs);
	}
	if (!err)
		err = ek_io_sync(io);
	if (!err) {
		sb.s_kbytes_written = cpu_to_le64(1);
		if (o->geo.ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
			sb.s_checksum = cpu_to_le32(ek_super_csum(&sb));
		err = ek_io_pwrite(io, &sb, sizeof(sb), EXT4_SUPERBLOCK_OFFSET);
	}
	if (!err)
		err = ek_io_sync(io);
	free(buf);
	return err;
}

/* ---- directories ----------------------------------------------------------------------- */

int ek_newfs_dir_write(struct ek_newfs *nf, ek_ino_t ino, uint8_t *raw, ek_ino_t parent,
		       struct ek_dirent_new *ents, size_t n, ek_blk_t blk0)
{
	uint8_t *blocks = NULL;
	uint32_t nblocks;
	bool indexed;
	struct ek_ext run = { .lblk = 0 }, *v = NULL;
	size_t nv;
	int err = ek_dir_build(&nf->fs, ino, 0, 0, parent, 0, false, ents, n, &blocks, &nblocks, &indexed);

	if (err == -ENOSPC)	/* too many names for the index, not a full filesystem */
		return ek_err_wrap(-E2BIG, err, "");
	if (err)
		return err;
	run.len = nblocks;
	if (blk0)	/* taken when the directory was made: its first block again */
		release_block(nf, blk0);
	err = ek_newfs_map(nf, ino, raw, &run, 1, blk0, 0, &v, &nv);
	for (size_t i = 0, done = 0; i < nv && !err; done += v[i].len, i++)
		err = ek_newfs_write(nf, v[i].pblk, blocks + (done << nf->fs.log_blksz), v[i].len);
	if (!err) {
		inode_set_size(raw, (uint64_t)nblocks << nf->fs.log_blksz);
		if (indexed)
			put_le32(raw + offsetof(struct ext4_inode, i_flags),
				 get_le32(raw + offsetof(struct ext4_inode, i_flags)) | EXT4_INDEX_FL);
	}
	free(v);
	free(blocks);
	return err;
}

/*
 * A linear directory grown entry by entry, as mke2fs -d grows one through
 * ext2fs_link() and ext2fs_expand_dir() (libext2fs 1.47.0):
 *   - an entry goes to the first block (in logical order) with room after
 *     its last entry (link_proc's split: every other entry there has its
 *     minimal length), and takes the rest of the block;
 *   - when none has room, a new block is added: the first free one from the
 *     directory's last block on (bigalloc: the next block of the last
 *     cluster while there is one), its map grown then (a fifth extent
 *     splits the root at once, ek_extent_grow_block(); an indirect map
 *     takes its IND/DIND blocks from the same goal first, as
 *     ext2fs_block_iterate3() asks for them before the data block);
 *   - with inline_data a new directory starts inline: the parent in
 *     i_block[0] and 56 bytes of entries (system.data stays empty); the
 *     first entry that does not fit moves them to a block (from the start
 *     of the filesystem, as ext2fs_inline_data_dir_expand() allocates it),
 *     '.' and '..' first, the moved entries after them unchanged.
 * The blocks stay in memory until ek_newfs_ldir_finish().  Finding the
 * first block with room is amortised: for each entry size the lowest
 * block that may still hold it only moves forward (blocks only fill).
 */
#define LDIR_INLINE (EXT4_N_BLOCKS * 4 - 4)	/* entry bytes in i_block */
#define LDIR_CLASSES 64				/* entry sizes 12..264, by 4 */

struct ek_newfs_ldir {
	struct ek_newfs *nf;
	ek_ino_t ino, parent;
	bool inl;			/* still inline */
	uint8_t area[EXT4_N_BLOCKS * 4];	/* inline: the parent, then the entries */
	uint32_t end;			/* bytes a block's entries may use */
	uint8_t *buf;			/* nb blocks */
	uint32_t *used, *last;		/* per block: bytes up to the last entry's end, its offset */
	ek_blk_t *pblk;			/* per block */
	size_t nb, cap;
	size_t from[LDIR_CLASSES];	/* per entry size: no block below has room */
	ek_blk_t *seq;			/* indirect maps: every block taken, in order */
	size_t nseq, seqcap, popped;
	uint64_t clusters;		/* allocated for data (and indirect blocks) */
	uint8_t *shadow;		/* extents: the inode the tree is grown in */
	struct ek_extent_grow *tree;
};

static uint32_t dirent_min(size_t name_len);
static int block_put(struct ek_newfs *nf, ek_blk_t blk, const uint8_t *buf);

static int ldir_grow_alloc(void *arg, ek_blk_t goal, ek_blk_t *blk)
{
	return ek_newfs_alloc_block(arg, goal, blk);
}

static int ldir_seq_push(struct ek_newfs_ldir *d, ek_blk_t blk)
{
	if (ek_grow(&d->seq, &d->seqcap, d->nseq + 1, sizeof(*d->seq)))
		return -ENOMEM;
	d->seq[d->nseq++] = blk;
	return 0;
}

/* a block taken for the directory: counted, and queued for an indirect map */
static int ldir_take(struct ek_newfs_ldir *d, ek_blk_t goal, ek_blk_t *blk)
{
	int err = ek_newfs_alloc_block(d->nf, goal, blk);

	if (!err) {
		d->clusters++;
		if (!d->tree)
			err = ldir_seq_push(d, *blk);
	}
	return err;
}

/* block @pblk appended as logical block d->nb (its map grown), empty */
static int ldir_push_block(struct ek_newfs_ldir *d, ek_blk_t pblk)
{
	uint32_t bs = d->nf->fs.blksz;
	int err;

	if (d->nb == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 4;
		uint8_t *b = realloc(d->buf, cap * bs);
		uint32_t *u, *l;
		ek_blk_t *p;

		if (!b)
			return -ENOMEM;
		d->buf = b;
		if (!(u = realloc(d->used, cap * sizeof(*u))))
			return -ENOMEM;
		d->used = u;
		if (!(l = realloc(d->last, cap * sizeof(*l))))
			return -ENOMEM;
		d->last = l;
		if (!(p = realloc(d->pblk, cap * sizeof(*p))))
			return -ENOMEM;
		d->pblk = p;
		d->cap = cap;
	}
	if (d->tree && (err = ek_extent_grow_block(d->tree, (uint32_t)d->nb, pblk)))
		return err;
	memset(d->buf + d->nb * bs, 0, bs);
	d->used[d->nb] = 0;
	d->last[d->nb] = 0;
	d->pblk[d->nb] = pblk;
	d->nb++;
	return 0;
}

/* entry @name at the end of block @b (the last entry there shortened to its length) */
static void ldir_put(struct ek_newfs_ldir *d, size_t b, const char *name, uint8_t len,
		     ek_ino_t ino, uint8_t type)
{
	struct ek_fs *fs = &d->nf->fs;
	uint8_t *blk = d->buf + b * fs->blksz;
	uint32_t off = d->used[b];

	if (off)
		ek_dirent_set_rec_len(fs, blk, d->last[b], off - d->last[b]);
	ek_dirent_put(fs, blk, off, ino, d->end - off, name, len, type);
	d->last[b] = off;
	d->used[b] = off + dirent_min(len);
}

/* the map's first block: an extent root (grown from here on) or the start of the queue */
static int ldir_map_begin(struct ek_newfs_ldir *d, ek_blk_t blk0)
{
	struct ek_fs *fs = &d->nf->fs;
	int err;

	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		if (!(d->shadow = ek_calloc(1, fs->inode_size)))
			return -ENOMEM;
		err = ek_extent_grow_begin(fs, d->ino, d->shadow, ldir_grow_alloc, d->nf, &d->tree);
		if (err)
			return err;
	} else if ((err = ldir_seq_push(d, blk0))) {
		return err;
	}
	return ldir_push_block(d, blk0);
}

int ek_newfs_ldir_begin(struct ek_newfs *nf, ek_ino_t ino, ek_ino_t parent, ek_blk_t blk0,
			struct ek_newfs_ldir **out)
{
	struct ek_newfs_ldir *d = ek_calloc(1, sizeof(*d));
	int err = 0;

	if (!d)
		return -ENOMEM;
	d->nf = nf;
	d->ino = ino;
	d->parent = parent;
	d->end = nf->fs.has_csum ? nf->fs.blksz - 12 : nf->fs.blksz;
	if (!blk0) {
		/* ext2fs_new_dir_inline_data(): the parent, one empty entry of 56 bytes */
		d->inl = true;
		put_le32(d->area, (uint32_t)parent);
		ek_dirent_put(&nf->fs, d->area + 4, 0, 0, LDIR_INLINE, "", 0, 0);
	} else {
		d->clusters = 1;	/* taken by ek_newfs_dir_begin() */
		err = ldir_map_begin(d, blk0);
		if (!err) {
			ldir_put(d, 0, ".", 1, ino, EXT4_FT_DIR);
			ldir_put(d, 0, "..", 2, parent, EXT4_FT_DIR);
		}
	}
	if (err) {
		ek_newfs_ldir_free(d);
		return err;
	}
	*out = d;
	return 0;
}

/* ext2fs_inline_data_dir_expand(): the inline entries to a first block */
static int ldir_unline(struct ek_newfs_ldir *d)
{
	uint32_t ilast = 0, iused = 0;
	ek_blk_t blk;
	uint8_t *b;
	int err;

	/* the inline area's own last entry and end (an empty area: none) */
	for (uint32_t off = 0; off < LDIR_INLINE;) {
		uint32_t rec = get_le16(d->area + 4 + off + 4);

		if (get_le32(d->area + 4 + off)) {
			ilast = off;
			iused = off + dirent_min(d->area[4 + off + 6]);
		}
		if (rec < 12 || off + rec > LDIR_INLINE)
			break;
		off += rec;
	}
	if ((err = ek_newfs_alloc_block(d->nf, 0, &blk)))
		return err;
	d->clusters = 1;
	d->inl = false;
	if ((err = ldir_map_begin(d, blk)))
		return err;
	ldir_put(d, 0, ".", 1, d->ino, EXT4_FT_DIR);
	ldir_put(d, 0, "..", 2, d->parent, EXT4_FT_DIR);
	if (!iused)
		return 0;
	b = d->buf;
	memcpy(b + 24, d->area + 4, iused);
	ek_dirent_set_rec_len(&d->nf->fs, b, 12, 12);
	d->last[0] = 24 + ilast;
	d->used[0] = 24 + iused;
	ek_dirent_set_rec_len(&d->nf->fs, b, d->last[0], d->end - d->last[0]);
	return 0;
}

/* ext2fs_expand_dir(): one more block, from the goal of the last one */
static int ldir_expand(struct ek_newfs_ldir *d)
{
	struct ek_newfs *nf = d->nf;
	uint64_t lblk = d->nb, a = nf->fs.blksz / 4, mask = (1ull << nf->cshift) - 1;
	ek_blk_t goal = d->pblk[d->nb - 1], blk;
	int err;

	if (lblk >= 0xFFFFFFFFull)
		return ek_err(-EFBIG, "directory inode %llu: too many blocks",
			      (unsigned long long)d->ino);
	if (nf->cshift && ((goal + 1) & mask))	/* the last cluster's next block */
		return ldir_push_block(d, goal + 1);
	if (!d->tree) {
		/* the indirect blocks this block needs, before it, from the same goal */
		unsigned meta = 0;

		if (lblk == EXT4_NDIR_BLOCKS)
			meta = 1;
		else if (lblk == EXT4_NDIR_BLOCKS + a)
			meta = 2;
		else if (lblk > EXT4_NDIR_BLOCKS + a && !((lblk - EXT4_NDIR_BLOCKS - a) % a))
			meta = 1;
		if (lblk >= EXT4_NDIR_BLOCKS + a + a * a)
			return ek_err(-EFBIG, "directory inode %llu: more than %llu blocks "
				      "(a triple indirect block)", (unsigned long long)d->ino,
				      (unsigned long long)(EXT4_NDIR_BLOCKS + a + a * a));
		while (meta--)
			if ((err = ldir_take(d, goal, &blk)))
				return err;
	}
	if ((err = ldir_take(d, goal, &blk)))
		return err;
	return ldir_push_block(d, blk);
}

int ek_newfs_ldir_add(struct ek_newfs_ldir *d, const char *name, uint8_t len, ek_ino_t ino,
		      uint8_t type)
{
	uint32_t need = dirent_min(len);
	size_t k = need / 4 - 3, b;
	int err;

	if (d->inl) {
		/* link_proc over the inline area: room after its last entry */
		uint32_t last = 0, used = 0;

		for (uint32_t off = 0; off < LDIR_INLINE;) {
			uint32_t rec = get_le16(d->area + 4 + off + 4);

			if (get_le32(d->area + 4 + off)) {
				last = off;
				used = off + dirent_min(d->area[4 + off + 6]);
			}
			if (rec < 12 || off + rec > LDIR_INLINE)
				break;
			off += rec;
		}
		if (LDIR_INLINE - used >= need) {
			if (used)
				ek_dirent_set_rec_len(&d->nf->fs, d->area + 4, last, used - last);
			ek_dirent_put(&d->nf->fs, d->area + 4, used, ino, LDIR_INLINE - used,
				      name, len, type);
			return 0;
		}
		if ((err = ldir_unline(d)))
			return err;
		for (size_t i = 0; i < LDIR_CLASSES; i++)
			d->from[i] = 0;
	}
	for (b = d->from[k]; b < d->nb && d->end - d->used[b] < need; b++)
		;
	d->from[k] = b;
	if (b == d->nb && (err = ldir_expand(d)))
		return err;
	ldir_put(d, b, name, len, ino, type);
	return 0;
}

bool ek_newfs_ldir_inline(const struct ek_newfs_ldir *d)
{
	return d->inl;
}

/* an indirect map's blocks, in the order they were taken */
static int ldir_seq_alloc(void *arg, ek_blk_t goal, uint64_t want, ek_blk_t *start, uint64_t *got)
{
	struct ek_newfs_ldir *d = arg;

	(void)goal;
	(void)want;
	if (d->popped >= d->nseq)
		return ek_err(-EINVAL, "directory inode %llu: its indirect map asks for more blocks "
			      "than were taken", (unsigned long long)d->ino);
	*start = d->seq[d->popped++];
	*got = 1;
	return 0;
}

static int ldir_seq_put(void *arg, ek_blk_t blk, const uint8_t *buf)
{
	struct ek_newfs_ldir *d = arg;

	return meta_put(d->nf, blk, buf);
}

int ek_newfs_ldir_finish(struct ek_newfs_ldir *d, uint8_t *raw)
{
	struct ek_newfs *nf = d->nf;
	struct ek_fs *fs = &nf->fs;
	uint8_t *ib = raw + offsetof(struct ext4_inode, i_block);
	uint32_t flags = get_le32(raw + offsetof(struct ext4_inode, i_flags));
	int err = 0;

	if (d->inl) {
		memcpy(ib, d->area, sizeof(d->area));
		put_le32(raw + offsetof(struct ext4_inode, i_flags), flags | EXT4_INLINE_DATA_FL);
		inode_set_size(raw, sizeof(d->area));
		return 0;
	}
	for (size_t b = 0; b < d->nb && !err; b++) {
		ek_dir_leaf_tail(fs, d->ino, 0, d->buf + b * fs->blksz);
		err = block_put(nf, d->pblk[b], d->buf + b * fs->blksz);
	}
	if (err)
		return err;
	if (d->tree) {
		uint64_t tblocks = 0;
		struct ek_tree_sink sink = { .put = tree_put, .arg = &(struct tree_sink){ .nf = nf } };

		if ((err = ek_extent_grow_finish(d->tree, &sink, &tblocks)))
			return err;
		memcpy(ib, d->shadow + offsetof(struct ext4_inode, i_block), EXT4_N_BLOCKS * 4);
		put_le32(raw + offsetof(struct ext4_inode, i_flags), flags | EXT4_EXTENTS_FL);
		ek_inode_add_blocks(fs, raw, (int64_t)((d->clusters + tblocks) << nf->cshift));
	} else {
		struct ek_ind_sink sink = { .alloc = ldir_seq_alloc, .put = ldir_seq_put, .arg = d };
		struct ek_ext run = { .lblk = 0, .len = (uint32_t)d->nb }, *v = NULL;
		size_t nv;

		err = ek_ind_map_write(fs, raw, &run, 1, 0, &sink, &v, &nv);
		free(v);
		if (err)
			return err;
	}
	inode_set_size(raw, (uint64_t)d->nb * fs->blksz);
	return 0;
}

void ek_newfs_ldir_free(struct ek_newfs_ldir *d)
{
	if (!d)
		return;
	ek_extent_grow_free(d->tree);
	free(d->shadow);
	free(d->buf);
	free(d->used);
	free(d->last);
	free(d->pblk);
	free(d->seq);
	free(d);
}

void ek_newfs_inode_set_size(struct ek_newfs *nf, uint8_t *raw, uint64_t size)
{
	struct ext4_super_block *sb = (void *)nf->raw_sb;

	inode_set_size(raw, size);
	/* a size of 2 GiB and more needs large_file, whatever -O said (as mke2fs) */
	if (size >= 1ull << 31 && !ek_has_ro_compat(&nf->fs, EXT4_FEATURE_RO_COMPAT_LARGE_FILE)) {
		nf->fs.sb.ro_compat |= EXT4_FEATURE_RO_COMPAT_LARGE_FILE;
		sb->s_feature_ro_compat = cpu_to_le32(nf->fs.sb.ro_compat);
	}
}

uint64_t ek_newfs_free_blocks(const struct ek_newfs *nf)
{
	uint64_t n = 0;

	for (uint32_t g = 0; g < nf->fs.group_count; g++)
		n += group_free(nf, g);
	return n << nf->cshift;
}

uint64_t ek_newfs_free_inodes(const struct ek_newfs *nf)
{
	return nf->next_ino <= nf->fs.sb.inodes_count ? nf->fs.sb.inodes_count - nf->next_ino + 1 : 0;
}

/* ---- huge files (mke2fs.conf make_hugefiles; mke2fs's mk_hugefiles.c) ------------------ */

/* one entry of a linear directory being grown, in link order */
struct hf_ent {
	ek_ino_t ino;
	uint8_t type;
	char *name;		/* malloc'd */
};

struct hf_dir {
	ek_ino_t ino;
	ek_blk_t blk0;		/* its first block, made with it */
	struct hf_ent *ents;
	size_t n, cap;
};

static int hf_add(struct hf_dir *d, ek_ino_t ino, uint8_t type, const char *name)
{
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 16;
		struct hf_ent *v = realloc(d->ents, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		d->ents = v;
		d->cap = cap;
	}
	if (!(d->ents[d->n].name = strdup(name)))
		return -ENOMEM;
	d->ents[d->n].ino = ino;
	d->ents[d->n].type = type;
	d->n++;
	return 0;
}

/* a block to write: the pending copy when there is one (the root's), else now */
static int block_put(struct ek_newfs *nf, ek_blk_t blk, const uint8_t *buf)
{
	for (size_t i = 0; i < nf->npending; i++)
		if (nf->pending[i].blk == blk) {
			memcpy(nf->pending[i].buf, buf, nf->fs.blksz);
			return 0;
		}
	return meta_put(nf, blk, buf);
}

static uint32_t dirent_min(size_t name_len)
{
	return (uint32_t)(8 + ((name_len + 3) & ~3u));
}

/*
 * Lay directory @d out as ext2fs_link() and ext2fs_expand_dir() grow one:
 * each entry in the first block with room after the last entry there, a
 * new block (the first free one from the directory's last block on) when
 * none has; then its blocks written, its extents, size and i_blocks set.
 */
static int hf_dir_write(struct ek_newfs *nf, struct hf_dir *d)
{
	struct ek_fs *fs = &nf->fs;
	uint32_t bs = fs->blksz, end = fs->has_csum ? bs - 12 : bs;
	uint32_t *used = NULL, *last = NULL;	/* per block: bytes up to the last entry's end, its offset */
	ek_blk_t *blks = NULL;
	uint8_t *buf = NULL, *raw;
	struct ek_ext *v = NULL;
	size_t nb = 1, nv = 0, vcap = 0;
	struct tree_sink ts = { .nf = nf };
	struct ek_tree_sink sink = { .alloc = tree_alloc, .put = tree_put, .arg = &ts };
	int err = 0;

	/* where each entry goes */
	size_t *at = ek_calloc(d->n ? d->n : 1, sizeof(*at));
	uint32_t *off = ek_calloc(d->n ? d->n : 1, sizeof(*off));

	used = ek_calloc(d->n + 1, sizeof(*used));
	last = ek_calloc(d->n + 1, sizeof(*last));
	if (!at || !off || !used || !last) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < d->n; i++) {
		uint32_t need = dirent_min(strlen(d->ents[i].name));
		size_t b;

		for (b = 0; b < nb; b++)
			if (end - used[b] >= need)
				break;
		if (b == nb)
			nb++;
		at[i] = b;
		off[i] = used[b];
		last[b] = (uint32_t)i;
		used[b] += need;
	}
	blks = ek_calloc(nb, sizeof(*blks));
	buf = ek_calloc(nb, bs);
	if (!blks || !buf) {
		err = -ENOMEM;
		goto out;
	}
	blks[0] = d->blk0;
	for (size_t b = 1; b < nb && !err; b++)
		err = ek_newfs_alloc_block(nf, blks[b - 1], &blks[b]);
	for (size_t i = 0; i < d->n && !err; i++) {
		const struct hf_ent *e = &d->ents[i];
		uint8_t *blk = buf + at[i] * bs;
		uint32_t rec = last[at[i]] == i ? end - off[i] : dirent_min(strlen(e->name));

		ek_dirent_put(fs, blk, off[i], e->ino, rec, e->name, (uint8_t)strlen(e->name), e->type);
	}
	for (size_t b = 0; b < nb && !err; b++) {
		struct ek_ext x = { .lblk = (uint32_t)b, .pblk = blks[b], .len = 1 };

		if (!err && nv && v[nv - 1].pblk + v[nv - 1].len == x.pblk)
			v[nv - 1].len++;
		else if (!err)
			err = ek_ext_append(&v, &nv, &vcap, &x);
		ek_dir_leaf_tail(fs, d->ino, 0, buf + b * bs);
		if (!err)
			err = block_put(nf, blks[b], buf + b * bs);
	}
	if (err)
		goto out;
	raw = ek_newfs_inode(nf, d->ino);
	if (!raw) {
		err = -ENOMEM;
		goto out;
	}
	err = ek_extent_tree_write(fs, d->ino, raw, v, nv, &sink);
	if (!err) {
		ek_inode_add_blocks(fs, raw, (int64_t)(nb - 1 + ts.blocks));
		inode_set_size(raw, (uint64_t)nb * bs);
	}
out:
	free(at);
	free(off);
	free(used);
	free(last);
	free(blks);
	free(buf);
	free(v);
	return err;
}

/* mk_hugefiles.c's calc_overhead(): extent tree blocks a file of @num blocks may take */
static uint64_t hf_tree_overhead(const struct ek_newfs *nf, uint64_t num)
{
	uint64_t extents = (num + EXT_INIT_MAX_LEN - 1) / EXT_INIT_MAX_LEN, per, b1, b2, b3, b4;

	if (extents <= 4)
		return 0;
	per = (nf->fs.blksz - 12) / 12 / 2 - 1;	/* half full, as libext2fs appends */
	b1 = (extents + per - 1) / per;
	b2 = (b1 + per - 1) / per;
	b3 = (b2 + per - 1) / per;
	b4 = (b3 + per - 1) / per;
	return b1 + b2 + b3 + b4;
}

/* the first free block at or after @b (the end of the filesystem when none) */
static ek_blk_t hf_next_free(const struct ek_newfs *nf, ek_blk_t b)
{
	return next_block(nf, b, false);
}

static ek_blk_t hf_next_used(const struct ek_newfs *nf, ek_blk_t b)
{
	return next_block(nf, b, true);
}

/* mk_hugefiles.c's get_start_block(): past @slack free blocks from the start */
static ek_blk_t hf_start(const struct ek_newfs *nf, uint64_t slack)
{
	ek_blk_t blk = nf->fs.sb.first_data_block, next, last = nf->g.blocks - 1;

	while (slack) {
		blk = hf_next_free(nf, blk);
		if (blk > last)
			break;
		next = hf_next_used(nf, blk);
		if (next > last)
			next = last;	/* as mke2fs: the last block, not past it */
		if (next - blk > slack) {
			blk += slack;
			break;
		}
		slack -= next - blk;
		blk = next;
	}
	return blk;
}

static uint64_t hf_align_up(uint64_t b, uint64_t align, uint64_t part_offset)
{
	uint64_t m;

	if (!align)
		return b;
	m = (b + part_offset % align) % align;
	return m ? b + align - m : b;
}

/* the huge file's tree blocks: the first free one from the goal on, from the start after */
static int hf_tree_alloc(void *arg, ek_blk_t goal, ek_blk_t *blk)
{
	return ek_newfs_alloc_block(arg, goal, blk);
}

static int hf_tree_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	return meta_put(arg, blk, node);
}

/*
 * one huge file of @num blocks (0: every free block from *@goal on), as
 * mk_hugefile(): each free run taken whole, then its extents appended to
 * the tree one at a time (tree blocks split off as libext2fs does)
 */
static int hf_file(struct ek_newfs *nf, const struct ek_hugefiles *h, uint64_t num,
		   ek_blk_t *goal, ek_ino_t *out)
{
	struct ek_fs *fs = &nf->fs;
	struct ek_extent_grow *tree = NULL;
	struct ek_tree_sink sink = { .put = hf_tree_put, .arg = nf };
	uint64_t left = num ? num : 1, count = 0, tblocks = 0;
	uint8_t *raw;
	ek_ino_t ino;
	int err;

	err = ek_newfs_inode_new(nf, S_IFREG | (0666 & ~h->umask), &ino, &raw);
	if (err)
		return err;
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
	ek_inode_owner_set(raw, h->uid, h->gid);
	put_le32(raw + offsetof(struct ext4_inode, i_flags), EXT4_EXTENTS_FL);
	if ((err = ek_extent_grow_begin(fs, ino, raw, hf_tree_alloc, nf, &tree)))
		return err;
	while (left) {
		ek_blk_t start = hf_next_free(nf, *goal), bend;
		uint64_t n = left;

		if (start >= nf->g.blocks) {
			err = ek_err(-ENOSPC, "no free block left for huge file inode %llu",
				     (unsigned long long)ino);
			goto out;
		}
		*goal = start;
		bend = hf_next_used(nf, start);
		if (bend >= nf->g.blocks && !num)
			left = 0;
		if (!num || bend - start < left)
			n = bend - start;
		if (num)
			left -= n;
		if ((err = mark_range(nf, start, n, -1)) ||
		    (h->zero && (err = zero_blocks(nf, start, n))))
			goto out;
		*goal += n;
		count += n;
		for (uint64_t p = start; n && !err;) {
			uint64_t l = n > EXT_INIT_MAX_LEN ? EXT_INIT_MAX_LEN : n;
			struct ek_ext e = { .lblk = (uint32_t)(count - n), .pblk = p, .len = (uint32_t)l };

			err = ek_extent_grow_add(tree, &e);
			p += l;
			n -= l;
		}
		if (err)
			goto out;
	}
	if ((err = ek_extent_grow_finish(tree, &sink, &tblocks)))
		goto out;
	ek_inode_add_blocks(fs, raw, (int64_t)(count + tblocks));
	ek_newfs_inode_set_size(nf, raw, count * fs->blksz);
	*out = ino;
out:
	ek_extent_grow_free(tree);
	return err;
}

int ek_newfs_hugefiles(struct ek_newfs *nf, const struct ek_hugefiles *h, uint64_t *files,
		       uint64_t *blocks)
{
	struct ek_fs *fs = &nf->fs;
	struct ext4_super_block *sb = (void *)nf->raw_sb;
	struct hf_dir *dirs = NULL;
	size_t ndirs = 0;
	uint64_t num_files = h->num, num_blocks = h->size, slack = h->slack, fs_blocks;
	ek_blk_t goal;
	char *path = NULL, *save = NULL;
	int err = 0;

	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		return ek_err(-EK_UNSUPP, "make_hugefiles needs the extent feature (as mke2fs)");
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA) || nf->cshift ||
	    nf->o.defer_root || nf->o.super_only)
		return ek_err(-EK_UNSUPP, "make_hugefiles with inline_data, bigalloc, -d or -S: "
			      "not supported");
	/* the directories: the root (its entries as made), then each of the path */
	if (!(dirs = ek_calloc(1, sizeof(*dirs))) || !(path = strdup(h->dir ? h->dir : "/"))) {
		err = -ENOMEM;
		goto out;
	}
	{
		uint8_t *root = ek_newfs_inode(nf, EXT4_ROOT_INO);
		ek_blk_t blk0;

		/* the root's one block, from its extent root */
		blk0 = get_le32(root + offsetof(struct ext4_inode, i_block) + 12 + 8);
		blk0 |= (uint64_t)get_le16(root + offsetof(struct ext4_inode, i_block) + 12 + 6) << 32;
		dirs[0] = (struct hf_dir){ .ino = EXT4_ROOT_INO, .blk0 = blk0 };
		ndirs = 1;
		if ((err = hf_add(&dirs[0], EXT4_ROOT_INO, EXT4_FT_DIR, ".")) ||
		    (err = hf_add(&dirs[0], EXT4_ROOT_INO, EXT4_FT_DIR, "..")) ||
		    (err = hf_add(&dirs[0], EXT4_LPF_INO, EXT4_FT_DIR, "lost+found")))
			goto out;
	}
	for (char *c = strtok_r(path, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		struct hf_dir *pd, *nd;
		uint8_t *raw, *praw;
		ek_ino_t ino;
		ek_blk_t blk;
		void *nv;

		if (strlen(c) > 255) {
			err = ek_err(-EINVAL, "hugefiles_dir: '%s' is longer than 255 bytes", c);
			goto out;
		}
		if (!(nv = realloc(dirs, (ndirs + 1) * sizeof(*dirs)))) {
			err = -ENOMEM;
			goto out;
		}
		dirs = nv;
		pd = &dirs[ndirs - 1];
		/* ext2fs_mkdir(): the inode, then a block from its (flex) group's start */
		if ((err = ek_newfs_inode_new(nf, S_IFDIR | (0777 & ~h->umask), &ino, &raw)))
			goto out;
		put_le16(raw + offsetof(struct ext4_inode, i_links_count), 2);
		put_le32(raw + offsetof(struct ext4_inode, i_flags), EXT4_EXTENTS_FL);
		ek_inode_owner_set(raw, h->uid, h->gid);
		if ((err = ek_newfs_alloc_block(nf, ek_group_first_block(fs,
				(uint32_t)((ino - 1) / nf->g.inodes_per_group) &
				~((1u << nf->g.log_flex) - 1)), &blk)))
			goto out;
		nd = &dirs[ndirs++];
		*nd = (struct hf_dir){ .ino = ino, .blk0 = blk };
		ek_inode_add_blocks(fs, raw, 1);
		if ((err = hf_add(nd, ino, EXT4_FT_DIR, ".")) ||
		    (err = hf_add(nd, pd->ino, EXT4_FT_DIR, "..")) ||
		    (err = hf_add(pd, ino, EXT4_FT_DIR, c)))
			goto out;
		if (!(praw = ek_newfs_inode(nf, pd->ino))) {
			err = -ENOMEM;
			goto out;
		}
		put_le16(praw + offsetof(struct ext4_inode, i_links_count),
			 get_le16(praw + offsetof(struct ext4_inode, i_links_count)) + 1);
	}
	/* how many, how big: as mk_hugefiles() works it out */
	fs_blocks = ek_newfs_free_blocks(nf);
	if (fs_blocks < slack + h->align) {
		err = ek_err(-ENOSPC, "huge files: %llu free blocks, fewer than hugefiles_slack and "
			     "hugefiles_align ask to leave", (unsigned long long)fs_blocks);
		goto out;
	}
	num_blocks = hf_align_up(num_blocks, h->align, 0);
	fs_blocks -= slack + h->align;
	if (num_blocks && num_blocks > fs_blocks) {
		err = ek_err(-ENOSPC, "huge files of %llu blocks: %llu free",
			     (unsigned long long)num_blocks, (unsigned long long)fs_blocks);
		goto out;
	}
	if (!num_blocks && !num_files)
		num_files = 1;
	if (!num_files && num_blocks) {
		num_files = fs_blocks / num_blocks;
		fs_blocks -= num_files / 16 + 1;
		fs_blocks -= hf_tree_overhead(nf, num_blocks) * num_files;
		num_files = fs_blocks / num_blocks;
	}
	if (!num_blocks && num_files > 1) {
		num_blocks = fs_blocks / num_files;
		fs_blocks -= num_files / 16 + 1;
		fs_blocks -= hf_tree_overhead(nf, num_blocks) * num_files;
		num_blocks = fs_blocks / num_files;
	}
	slack += hf_tree_overhead(nf, num_blocks ? num_blocks : fs_blocks) * num_files;
	slack += num_files / 16 + 1;
	goal = hf_align_up(hf_start(nf, slack), h->align, h->part_offset);
	if ((num_blocks ? num_blocks : fs_blocks) > 0x80000000ull / fs->blksz) {
		fs->sb.ro_compat |= EXT4_FEATURE_RO_COMPAT_LARGE_FILE;
		sb->s_feature_ro_compat = cpu_to_le32(fs->sb.ro_compat);
	}
	for (uint64_t i = 0; i < num_files && !err; i++) {
		char name[300];
		ek_ino_t ino = 0;

		if (h->digits)
			snprintf(name, sizeof(name), "%s%0*llu", h->name, h->digits,
				 (unsigned long long)i);
		else if (num_files > 1)
			snprintf(name, sizeof(name), "%s%llu", h->name, (unsigned long long)i);
		else
			snprintf(name, sizeof(name), "%s", h->name);
		if (strlen(name) > 255)
			err = ek_err(-EINVAL, "hugefiles_name: '%s' is longer than 255 bytes", name);
		if (!err)
			err = hf_file(nf, h, num_blocks, &goal, &ino);
		if (!err)
			err = hf_add(&dirs[ndirs - 1], ino, EXT4_FT_REG_FILE, name);
	}
	for (size_t i = 0; i < ndirs && !err; i++)
		err = hf_dir_write(nf, &dirs[i]);
	*files = num_files;
	*blocks = num_blocks;
out:
	for (size_t i = 0; i < ndirs; i++) {
		for (size_t k = 0; k < dirs[i].n; k++)
			free(dirs[i].ents[k].name);
		free(dirs[i].ents);
	}
	free(dirs);
	free(path);
	return err;
}
