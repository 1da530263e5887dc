// SPDX-License-Identifier: MIT
/*
 * geometry.c - the shape of a new filesystem, by mke2fs 1.47's rules.
 *
 * From a size and the options a user gave, what mke2fs would choose: the
 * size type (floppy, small, default, big, huge) and with it the block size
 * and inode ratio; the feature set of ext2, ext3 or ext4 (mke2fs.conf as
 * Debian ships 1.47.0); blocks per group, groups, inodes per group rounded
 * to whole inode-table blocks; a last group too small for its metadata
 * dropped; descriptor blocks, reserved GDT blocks, reserved blocks.  The
 * measured values these rules reproduce are in mkfs/NOTES.md and in
 * tests/unit/check_geometry.c.  Nothing here reads or writes an image.
 */
#include <string.h>
#include "extkit.h"

#define KIB 1024ull

/* the size type mke2fs adds to the type list, by bytes */
static const struct size_type {
	const char *name;
	uint64_t below;		/* bytes */
	uint32_t blocksize;	/* 0: the default, 4096 */
	uint32_t inode_ratio;
} size_types[] = {
	{ "floppy", 3ull << 20, 1024, 8192 },
	{ "small", 512ull << 20, 1024, 4096 },
	{ "default", 4ull << 40, 0, 16384 },
	{ "big", 16ull << 40, 0, 32768 },
	{ "huge", UINT64_MAX, 0, 65536 },
};

bool ek_geometry_has_super(const struct ek_geometry *g, uint32_t grp)
{
	return ek_super_group_has_super(g->compat, g->ro_compat, g->backup_bgs, grp);
}

/*
 * sparse_super2: the backup groups asked for (1 and the last) clipped to
 * the groups there are, a repeat dropped, in ascending order
 */
static void backup_groups(struct ek_geometry *g, const uint32_t want[2])
{
	uint32_t *b = g->backup_bgs;

	b[0] = b[1] = 0;
	if (!(g->compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2))
		return;
	for (int i = 0; i < 2; i++)
		b[i] = want[i] >= g->groups ? g->groups - 1 : want[i];
	if (b[1] == b[0])
		b[1] = 0;
	if (b[0] > b[1]) {
		uint32_t t = b[0];

		b[0] = b[1];
		b[1] = t;
	}
}

/* a / b rounded up; 0 for b == 0 (a geometry not computed yet: the caller refuses it) */
static uint64_t div_up(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

/* reserved GDT blocks: room to grow to 1024 times the size, or 2^32 blocks */
static uint32_t reserved_gdt(const struct ek_geometry *g)
{
	uint64_t max = g->blocks < 0xFFFFFFFFull / 1024 ? g->blocks * 1024 : 0xFFFFFFFFull;
	uint64_t groups = div_up(max - g->first_data_block, g->blocks_per_group);
	uint64_t need = div_up(groups, g->blocksize / g->desc_size);
	uint64_t rsv = need > g->desc_blocks ? need - g->desc_blocks : 0;

	return rsv > g->blocksize / 4 ? g->blocksize / 4 : (uint32_t)rsv;
}

/* inodes per group and groups for @inodes over the current block count */
static int fit_inodes(struct ek_geometry *g, uint64_t inodes, uint64_t size_blocks,
		      const uint32_t want_bgs[2], uint32_t resize_gdt)
{
	for (;;) {
		uint64_t ipg, itb;

		uint64_t groups = div_up(g->blocks - g->first_data_block, g->blocks_per_group);

		if (groups > 0xFFFFFFFFull)
			return ek_err(-EINVAL, "%llu groups: at most 2^32 - 1",
				      (unsigned long long)groups);
		g->groups = (uint32_t)groups;
		backup_groups(g, want_bgs);
		ipg = div_up(inodes, g->groups);
		if (ipg > (uint64_t)g->blocksize * 8) {
			/* more inodes than a bitmap block maps: smaller groups, the whole size again */
			if (g->blocks_per_group <= 256 || g->cluster_bits)
				return ek_err(-EINVAL, "%llu inodes are too many for %llu blocks: "
					      "use a smaller -N, a larger -i or a larger size",
					      (unsigned long long)inodes,
					      (unsigned long long)size_blocks);
			g->blocks_per_group -= 8;
			g->clusters_per_group = g->blocks_per_group;
			g->blocks = size_blocks;
			continue;
		}
		if (ipg > 65536 - g->blocksize / g->inode_size)	/* EXT2_MAX_INODES_PER_GROUP */
			ipg = 65536 - g->blocksize / g->inode_size;
		itb = div_up(ipg * g->inode_size, g->blocksize);
		ipg = itb * g->blocksize / g->inode_size;	/* fill whole table blocks */
		if (ipg < 8)
			ipg = 8;
		ipg &= ~7ull;
		/* at most 2^32 - 1 inodes: a table block less at a time, tables stay whole */
		for (itb = div_up(ipg * g->inode_size, g->blocksize);
		     itb > 1 && ipg * g->groups > 0xFFFFFFFFull;) {
			itb--;
			ipg = (itb * g->blocksize / g->inode_size) & ~7ull;
		}
		if (ipg * g->groups > 0xFFFFFFFFull)
			return ek_err(-EINVAL, "more than 2^32 - 1 inodes: use a smaller -N or a "
				      "larger -i");
		g->inodes_per_group = (uint32_t)ipg;
		g->inode_table_blocks = (uint32_t)div_up(ipg * g->inode_size, g->blocksize);
		g->inodes = ipg * g->groups;
		g->desc_blocks = (uint32_t)div_up(g->groups, g->blocksize / g->desc_size);
		g->reserved_gdt = !(g->compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) ? 0 :
				  resize_gdt ? resize_gdt : reserved_gdt(g);
		/*
		 * descriptors over 3/4 of a group: mke2fs turns to meta_bg; a count
		 * -E resize= asked for stays in s_reserved_gdt_blocks (ext2fs_initialize's
		 * set_field keeps it), though meta_bg reserves no blocks for it
		 */
		if (g->reserved_gdt + g->desc_blocks > (uint64_t)g->blocks_per_group * 3 / 4) {
			g->incompat |= EXT4_FEATURE_INCOMPAT_META_BG;
			g->compat &= ~EXT4_FEATURE_COMPAT_RESIZE_INODE;
			g->reserved_gdt = resize_gdt;
		}
		/* meta_bg: one descriptor block at most in a group */
		if (3 + g->inode_table_blocks + g->reserved_gdt +
		    ((g->incompat & EXT4_FEATURE_INCOMPAT_META_BG) ? 1 : g->desc_blocks) >
		    (uint64_t)g->blocks_per_group)
			return ek_err(-EINVAL, "groups of %u blocks cannot hold their %u-block inode "
				      "tables and descriptors: use a smaller -N, a larger -i or "
				      "a larger -g", g->blocks_per_group, g->inode_table_blocks);
		return 0;
	}
}

/* features extkit-mkfs can write, and the ones they need */
static int check_features(const struct ek_geometry *g)
{
	static const uint32_t compat_ok = EXT4_FEATURE_COMPAT_HAS_JOURNAL |
		EXT4_FEATURE_COMPAT_EXT_ATTR | EXT4_FEATURE_COMPAT_RESIZE_INODE |
		EXT4_FEATURE_COMPAT_DIR_INDEX | EXT4_FEATURE_COMPAT_ORPHAN_FILE |
		EXT4_FEATURE_COMPAT_FAST_COMMIT | EXT4_FEATURE_COMPAT_SPARSE_SUPER2 |
		EXT4_FEATURE_COMPAT_STABLE_INODES;
	static const uint32_t incompat_ok = EXT4_FEATURE_INCOMPAT_FILETYPE |
		EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT |
		EXT4_FEATURE_INCOMPAT_FLEX_BG | EXT4_FEATURE_INCOMPAT_CSUM_SEED |
		EXT4_FEATURE_INCOMPAT_LARGEDIR | EXT4_FEATURE_INCOMPAT_INLINE_DATA |
		EXT4_FEATURE_INCOMPAT_META_BG | EXT4_FEATURE_INCOMPAT_EA_INODE |
		EXT4_FEATURE_INCOMPAT_ENCRYPT | EXT4_FEATURE_INCOMPAT_CASEFOLD |
		EXT4_FEATURE_INCOMPAT_MMP;
	static const uint32_t ro_ok = EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER |
		EXT4_FEATURE_RO_COMPAT_LARGE_FILE | EXT4_FEATURE_RO_COMPAT_HUGE_FILE |
		EXT4_FEATURE_RO_COMPAT_DIR_NLINK | EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE |
		EXT4_FEATURE_RO_COMPAT_METADATA_CSUM | EXT4_FEATURE_RO_COMPAT_GDT_CSUM |
		EXT4_FEATURE_RO_COMPAT_BIGALLOC | EXT4_FEATURE_RO_COMPAT_VERITY |
		EXT4_FEATURE_RO_COMPAT_QUOTA | EXT4_FEATURE_RO_COMPAT_PROJECT;

	const uint32_t bad[3] = { g->compat & ~compat_ok, g->incompat & ~incompat_ok,
				  g->ro_compat & ~ro_ok };

	/* the first one by name, as -O takes it */
	for (int t = 0; t < 3; t++)
		for (uint32_t bit = 1; bit && bad[t]; bit <<= 1)
			if (bad[t] & bit) {
				const char *name = ek_feature_name(t, bit);

				if (name)
					return ek_err(-EK_UNSUPP, "extkit-mkfs does not write %s: "
						      "leave it out or use -O ^%s", name, name);
				return ek_err(-EK_UNSUPP, "extkit-mkfs does not write feature "
					      "bit 0x%x of %s", bit, t == 0 ? "compat" :
					      t == 1 ? "incompat" : "ro_compat");
			}
	if ((g->ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM) &&
	    (g->ro_compat & EXT4_FEATURE_RO_COMPAT_GDT_CSUM))
		return ek_err(-EINVAL, "metadata_csum and uninit_bg exclude each other");
	if ((g->incompat & EXT4_FEATURE_INCOMPAT_CSUM_SEED) &&
	    !(g->ro_compat & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM))
		return ek_err(-EINVAL, "metadata_csum_seed needs metadata_csum");
	/* fast_commit without a journal: mke2fs sets the flag, and so does extkit */
	if ((g->compat & EXT4_FEATURE_COMPAT_ORPHAN_FILE) &&
	    !(g->compat & EXT4_FEATURE_COMPAT_HAS_JOURNAL))
		return ek_err(-EINVAL, "orphan_file needs has_journal");
	if ((g->ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC) &&
	    !(g->incompat & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return ek_err(-EINVAL, "bigalloc needs extent");
	if ((g->incompat & EXT4_FEATURE_INCOMPAT_64BIT) &&
	    !(g->incompat & EXT4_FEATURE_INCOMPAT_EXTENTS))
		return ek_err(-EINVAL, "64bit needs extent");
	/* as mke2fs refuses them */
	if ((g->compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) &&
	    (g->incompat & EXT4_FEATURE_INCOMPAT_META_BG))
		return ek_err(-EINVAL, "resize_inode and meta_bg exclude each other: add "
			      "-O ^resize_inode");
	if ((g->compat & EXT4_FEATURE_COMPAT_RESIZE_INODE) &&
	    !(g->ro_compat & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
		return ek_err(-EINVAL, "resize_inode needs sparse_super (reserved descriptor "
			      "blocks in every group): add -O ^resize_inode");
	if ((g->incompat & EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
	    !(g->compat & EXT4_FEATURE_COMPAT_EXT_ATTR))
		return ek_err(-EINVAL, "inline_data needs ext_attr");
	if ((g->ro_compat & EXT4_FEATURE_RO_COMPAT_PROJECT) &&
	    g->inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return ek_err(-EINVAL, "project needs inodes of more than %u bytes (i_projid): "
			      "use -I 256", EXT4_GOOD_OLD_INODE_SIZE);
	if ((g->incompat & EXT4_FEATURE_INCOMPAT_INLINE_DATA) && g->inode_size < 256)
		return ek_err(-EINVAL, "inline_data needs inodes of at least 256 bytes");
	return 0;
}

/*
 * Blocks reserved for root: -m (or 5 %) of the @whole size; a size
 * @trimmed to whole groups gets the same share of it as a ratio of
 * those two counts (ext2fs_initialize), rounding as mke2fs rounds
 */
static uint64_t reserved_share(const struct ek_geometry_opts *o, uint64_t whole,
			       uint64_t trimmed)
{
	double pct = o->reserved_given ? o->reserved_percent : 5.0;
	uint64_t r = (uint64_t)(pct * (double)whole / 100.0);

	if (trimmed == whole || !whole)
		return r;
	return (uint64_t)(100.0 * (double)r / (double)whole * (double)trimmed / 100.0);
}

/*
 * Blocks ext2fs_initialize counts free: all but the superblock copies,
 * descriptors (meta_bg: a meta group's block in its first, second and last
 * group) and, unless flex groups (of more than one) may move them, each
 * group's bitmaps and inode table
 */
static uint64_t free_blocks(const struct ek_geometry *g, bool flex)
{
	bool meta = g->incompat & EXT4_FEATURE_INCOMPAT_META_BG;
	uint32_t dpb = g->blocksize / g->desc_size;
	uint64_t used = g->first_data_block;

	for (uint32_t i = 0; i < g->groups; i++) {
		uint32_t r = i % dpb;

		used += flex ? 0 : 2 + g->inode_table_blocks;
		if (ek_geometry_has_super(g, i))
			used += 1 + (meta ? 0 : g->desc_blocks + g->reserved_gdt);
		if (meta && (r == 0 || r == 1 || r == dpb - 1))
			used++;
	}
	return used < g->blocks ? g->blocks - used : 0;
}

uint64_t ek_journal_default_blocks(uint64_t blocks)
{
	static const struct { uint64_t below, size; } steps[] = {
		{ 2048, 0 }, { 32768, 1024 }, { 256 * 1024, 4096 }, { 512 * 1024, 8192 },
		{ 4096 * 1024, 16384 }, { 8192 * 1024, 32768 }, { 16384 * 1024, 65536 },
		{ 32768 * 1024, 131072 },
	};

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (blocks < steps[i].below)
			return steps[i].size;
	return 262144;
}

int ek_geometry_compute(const struct ek_geometry_opts *o, struct ek_geometry *g)
{
	const struct size_type *st = size_types;
	uint64_t inodes, ratio, size_blocks, trimmed_blocks;
	uint32_t want_bgs[2], nbackup, resize_gdt = 0;
	bool default_inodes;
	int err;

	memset(g, 0, sizeof(*g));
	if (o->size < 64 * KIB)
		return ek_err(-EINVAL, "%llu bytes is too small for a filesystem: give at "
			      "least 64k", (unsigned long long)o->size);
	while (o->size >= st->below)
		st++;
	g->size_type = st->name;
	g->blocksize = o->blocksize ? o->blocksize : st->blocksize ? st->blocksize : 4096;
	if (g->blocksize != 1024 && g->blocksize != 2048 && g->blocksize != 4096 &&
	    g->blocksize != 8192 && g->blocksize != 16384 && g->blocksize != 32768 &&
	    g->blocksize != 65536)
		return ek_err(-EINVAL, "block size %u is not a power of two from 1024 to 65536",
			      g->blocksize);
	g->inode_size = o->inode_size ? o->inode_size : 256;
	if (g->inode_size < EXT4_GOOD_OLD_INODE_SIZE || g->inode_size > g->blocksize ||
	    g->inode_size > 32768 ||
	    (g->inode_size & (g->inode_size - 1)))
		return ek_err(-EINVAL, "inode size %u is not a power of two from 128 to the block size "
			      "(at most 32768)",
			      g->inode_size);
	ratio = o->inode_ratio ? o->inode_ratio : st->inode_ratio;
	if (!o->inode_ratio && ratio < g->blocksize)
		ratio = g->blocksize;	/* a profile ratio is at least a block */

	/* features: ext2's, then ext3's journal, then ext4's */
	g->compat = EXT4_FEATURE_COMPAT_EXT_ATTR | EXT4_FEATURE_COMPAT_RESIZE_INODE |
		    EXT4_FEATURE_COMPAT_DIR_INDEX;
	g->incompat = EXT4_FEATURE_INCOMPAT_FILETYPE;
	g->ro_compat = EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER | EXT4_FEATURE_RO_COMPAT_LARGE_FILE;
	if (o->type >= EK_FS_EXT3)
		g->compat |= EXT4_FEATURE_COMPAT_HAS_JOURNAL;
	if (o->type >= EK_FS_EXT4) {
		g->incompat |= EXT4_FEATURE_INCOMPAT_EXTENTS | EXT4_FEATURE_INCOMPAT_64BIT |
			       EXT4_FEATURE_INCOMPAT_FLEX_BG;
		g->ro_compat |= EXT4_FEATURE_RO_COMPAT_HUGE_FILE | EXT4_FEATURE_RO_COMPAT_DIR_NLINK |
				EXT4_FEATURE_RO_COMPAT_EXTRA_ISIZE | EXT4_FEATURE_RO_COMPAT_METADATA_CSUM;
	}
	g->compat = (g->compat | o->compat_on) & ~o->compat_off;
	g->incompat = (g->incompat | o->incompat_on) & ~o->incompat_off;
	g->ro_compat = (g->ro_compat | o->ro_on) & ~o->ro_off;
	if (o->features_given) {
		g->compat = o->compat;
		g->incompat = o->incompat;
		g->ro_compat = o->ro_compat;
	}
	if ((err = check_features(g)))
		return err;
	g->desc_size = (g->incompat & EXT4_FEATURE_INCOMPAT_64BIT) ? EXT4_MIN_DESC_SIZE_64BIT : 32;
	if (o->desc_size) {
		if (!(g->incompat & EXT4_FEATURE_INCOMPAT_64BIT))
			return ek_err(-EINVAL, "desc_size=%u needs the 64bit feature (-O 64bit)",
				      o->desc_size);
		if (o->desc_size < EXT4_MIN_DESC_SIZE_64BIT || o->desc_size > EXT4_MAX_DESC_SIZE ||
		    (o->desc_size & (o->desc_size - 1)) || o->desc_size > g->blocksize)
			return ek_err(-EINVAL, "desc_size=%u: a power of two from %u to %u",
				      o->desc_size, EXT4_MIN_DESC_SIZE_64BIT, EXT4_MAX_DESC_SIZE);
		g->desc_size = o->desc_size;
	}

	if (g->ro_compat & EXT4_FEATURE_RO_COMPAT_BIGALLOC) {
		uint32_t cs = o->cluster_size ? o->cluster_size : 16 * g->blocksize;

		if (cs <= g->blocksize || (cs & (cs - 1)) || cs > (256u << 20))
			return ek_err(-EINVAL, "cluster size %u: a power of two above the block size "
				      "%u, at most 256 MiB", cs, g->blocksize);
		while ((g->blocksize << g->cluster_bits) < cs)
			g->cluster_bits++;
		if (!o->inode_ratio && ratio < cs)
			ratio = cs;	/* a profile's ratio: no more inodes than clusters (-i as given) */
	} else if (o->cluster_size) {
		return ek_err(-EINVAL, "-C: a cluster size needs bigalloc (-O bigalloc)");
	}
	/* bigalloc: block 0 starts group 0 whatever the block size */
	g->first_data_block = g->blocksize == 1024 && !g->cluster_bits ? 1 : 0;
	g->blocks = size_blocks = trimmed_blocks = o->size / g->blocksize;
	/* bigalloc: whole clusters (the inode and reserved counts keep the size asked for) */
	g->blocks &= ~((1ull << g->cluster_bits) - 1);
	if (!(g->incompat & EXT4_FEATURE_INCOMPAT_64BIT) && g->blocks > 0xFFFFFFFFull)
		return ek_err(-EINVAL, "%llu blocks need the 64bit feature: use -O 64bit "
			      "(with extent, as ext4 has) or a larger -b",
			      (unsigned long long)g->blocks);
	if (g->blocks > 0xFFFFFFFFull)
		g->compat &= ~EXT4_FEATURE_COMPAT_RESIZE_INODE;
	/* a group's block count must fit 16 bits less 8 (mke2fs's EXT2_MAX_BLOCKS_PER_GROUP) */
	g->clusters_per_group = g->blocksize * 8 < 65528 ? g->blocksize * 8 : 65528;
	g->blocks_per_group = g->clusters_per_group << g->cluster_bits;
	if (o->blocks_per_group && g->cluster_bits) {
		/* bigalloc: -g counts clusters per group (as mke2fs takes it) */
		if (o->blocks_per_group % 8 || o->blocks_per_group < 256 ||
		    o->blocks_per_group > g->blocksize * 8)
			return ek_err(-EINVAL, "-g %u: clusters per group must be a multiple of 8 "
				      "from 256 to %u", o->blocks_per_group, g->blocksize * 8);
		if (o->blocks_per_group < g->clusters_per_group)
			g->clusters_per_group = o->blocks_per_group;
		g->blocks_per_group = g->clusters_per_group << g->cluster_bits;
	} else if (o->blocks_per_group) {
		if (o->blocks_per_group % 8 || o->blocks_per_group < 256 ||
		    o->blocks_per_group > g->blocks_per_group)
			return ek_err(-EINVAL, "%u blocks per group: must be a multiple of 8 from 256 to %u",
				      o->blocks_per_group, g->blocks_per_group);
		g->blocks_per_group = g->clusters_per_group = o->blocks_per_group;
	}
	/* the inode request is made once, from the size before any trimming */
	inodes = o->inodes ? o->inodes : size_blocks * g->blocksize / ratio;
	/* none asked for (a huge ratio): ext2fs_initialize's one per 4 KiB, of each try's size */
	default_inodes = !inodes;
	if (inodes > 0xFFFFFFFFull)
		return ek_err(-EINVAL, "%llu inodes: at most 2^32 - 1; use a smaller -N or a "
			      "larger -i", (unsigned long long)inodes);

	/* sparse_super2: copies in group 1 and the last, -E num_backup_sb= of them */
	nbackup = o->num_backup_given ? o->num_backup_sb : 2;
	if (nbackup > 2)
		return ek_err(-EINVAL, "num_backup_sb=%u: 0, 1 or 2", nbackup);
	want_bgs[0] = nbackup >= 1 ? 1 : 0;
	want_bgs[1] = nbackup >= 2 ? UINT32_MAX : 0;

	if (o->resize_blocks) {
		/*
		 * -E resize=: as mke2fs's option parser counts it, over the size
		 * before any trimming and the -g (or full) group size; none when
		 * the descriptors already reach that far
		 */
		uint64_t bpg = o->blocks_per_group ? o->blocks_per_group : g->blocksize * 8ull;
		uint64_t per = g->blocksize / g->desc_size;
		uint64_t have = div_up(div_up(g->blocks, bpg), per);
		uint64_t need = div_up(div_up(o->resize_blocks, bpg), per);

		if (o->resize_blocks <= g->blocks)
			return ek_err(-EINVAL, "resize=%llu: the maximum must be more than the "
				      "filesystem's %llu blocks", (unsigned long long)o->resize_blocks,
				      (unsigned long long)g->blocks);
		if (need > have) {
			resize_gdt = need - have > g->blocksize / 4 ? g->blocksize / 4 :
				     (uint32_t)(need - have);
			g->compat |= EXT4_FEATURE_COMPAT_RESIZE_INODE;
			/* as mke2fs: the resize inode this turns on meets the same rules */
			if (g->incompat & EXT4_FEATURE_INCOMPAT_META_BG)
				return ek_err(-EINVAL, "resize=%llu needs resize_inode, and resize_inode "
					      "and meta_bg exclude each other: leave out resize= or "
					      "meta_bg", (unsigned long long)o->resize_blocks);
			if (!(g->ro_compat & EXT4_FEATURE_RO_COMPAT_SPARSE_SUPER))
				return ek_err(-EINVAL, "resize=%llu needs resize_inode, which needs "
					      "sparse_super: leave out resize= or add -O sparse_super",
					      (unsigned long long)o->resize_blocks);
		}
	}
	for (;;) {
		uint64_t rem, overhead;
		bool last_has_super;

		if (default_inodes)
			inodes = g->blocks / (g->blocksize >= 4096 ? 1 : 4096 / g->blocksize);
		if (inodes < EXT4_GOOD_OLD_FIRST_INO + 1)
			inodes = EXT4_GOOD_OLD_FIRST_INO + 1;	/* room for lost+found */
		err = fit_inodes(g, inodes, size_blocks, want_bgs, resize_gdt);
		if (err)
			return err;
		rem = (g->blocks - g->first_data_block) % g->blocks_per_group;
		overhead = 2 + g->inode_table_blocks;
		/* sparse_super2: mke2fs asks before it clips the backup groups */
		if (g->compat & EXT4_FEATURE_COMPAT_SPARSE_SUPER2)
			last_has_super = want_bgs[g->groups == 2 ? 0 : 1] != 0;
		else
			last_has_super = ek_geometry_has_super(g, g->groups - 1);
		if (last_has_super)
			overhead += 1 + g->desc_blocks + g->reserved_gdt;
		if (g->groups == 1 && rem && rem < overhead)
			return ek_err(-EINVAL, "%llu blocks are too few for a filesystem (its metadata "
				      "takes %llu): give a larger size",
				      (unsigned long long)g->blocks, (unsigned long long)overhead);
		if (!rem || rem >= overhead + 50)
			break;
		g->blocks -= rem;	/* a last group too small to be worth it */
		trimmed_blocks = g->blocks;
	}
	/* the reserved inodes and lost+found: the super checker wants s_first_ino below the count */
	if (g->inodes <= EXT4_GOOD_OLD_FIRST_INO)
		/* -N 16: whatever the rounding (a multiple of 8 per group), at least 16 */
		return ek_err(-EINVAL, "%llu inodes are too few: a filesystem needs at least %u "
			      "(the reserved ones and lost+found); use -N 16 or a smaller -i",
			      (unsigned long long)g->inodes, EXT4_GOOD_OLD_FIRST_INO + 1);
	/* no journal below 2048 blocks (mke2fs drops it, and orphan_file, but keeps fast_commit) */
	if (g->blocks < 2048 && !o->journal_external)
		g->compat &= ~(EXT4_FEATURE_COMPAT_HAS_JOURNAL | EXT4_FEATURE_COMPAT_ORPHAN_FILE);
	/* a journal device's journal is not in the filesystem: no blocks for it */
	if ((g->compat & EXT4_FEATURE_COMPAT_HAS_JOURNAL) && !o->journal_external) {
		bool flex = (g->incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) && o->flex_size != 1;

		g->journal_blocks = o->journal_bytes ? o->journal_bytes / g->blocksize
						     : ek_journal_default_blocks(g->blocks);
		if (g->compat & EXT4_FEATURE_COMPAT_FAST_COMMIT) {
			/*
			 * mke2fs: the area asked for, else 1/64 of the default
			 * size more, whatever journal size was asked
			 */
			uint64_t fc = o->fc_bytes ? o->fc_bytes / g->blocksize
						  : ek_journal_default_blocks(g->blocks) / 64;

			/* more than a journal may hold is refused below */
			g->fc_blocks = fc > 10240001 ? 10240001 : (uint32_t)fc;
			g->journal_blocks += g->fc_blocks;
		}
		/* a size asked for: at most half the blocks the group tables leave free */
		if ((o->journal_bytes || (o->fc_bytes && (g->compat & EXT4_FEATURE_COMPAT_FAST_COMMIT))) &&
		    (g->journal_blocks < 1024 || g->journal_blocks > 10240000 ||
					 g->journal_blocks > free_blocks(g, flex) / 2))
			return ek_err(-EINVAL, "a journal of %llu blocks: it must hold 1024 to 10240000 "
				      "blocks and at most half of the %llu the filesystem has free; use "
				      "another -J size= (or fast_commit_size=)",
				      (unsigned long long)g->journal_blocks,
				      (unsigned long long)free_blocks(g, flex));
	}
	if (g->incompat & EXT4_FEATURE_INCOMPAT_FLEX_BG) {
		uint32_t flex = o->flex_size ? o->flex_size : 16;

		if (flex & (flex - 1))
			return ek_err(-EINVAL, "flex group size %u is not a power of two", flex);
		while ((1u << g->log_flex) < flex)
			g->log_flex++;
	}
	if (o->reserved_given && !(o->reserved_percent >= 0 && o->reserved_percent <= 50))
		return ek_err(-EINVAL, "reserved blocks %g%%: from 0 to 50%%", o->reserved_percent);
	/*
	 * mke2fs takes the share of the size last trimmed to: a later retry
	 * with smaller groups goes back to the whole size but keeps it
	 */
	g->reserved_blocks = reserved_share(o, size_blocks, trimmed_blocks);
	return 0;
}
