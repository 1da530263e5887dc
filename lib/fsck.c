// SPDX-License-Identifier: MIT
/*
 * fsck.c - the checker: e2fsck's passes, read-only, reporting findings
 * from the one table (problems.def) through a callback.
 *
 *   pass 1  every inode in use: its checksum, dtime, block map (extent tree
 *           or indirect blocks, walked by map.c's checked walk), xattr
 *           block and htree flag; the blocks it claims, counted against
 *           i_blocks and marked in an in-memory block map, where a block
 *           marked twice is multiply claimed (metadata is marked first)
 *   pass 2  every directory's entries (dir.c's checked iterator): inode
 *           numbers, entries to unused inodes, file types; references per
 *           inode and each directory's '..'; then each htree index, walked
 *           from the root through dir.c's dx codecs: every block in use
 *           named by exactly one index entry, interior nodes where the
 *           root's depth says, and the names of each leaf hashing into
 *           the range of the entries leading to it (their hashes noted
 *           during the entry walk, so a leaf is read once)
 *   pass 3  every directory reaches the root through '..'
 *   pass 4  link counts against the references pass 2 counted
 *   pass 5  the block and inode bitmaps and every free count against what
 *           passes 1 and 2 computed; then, as e2fsck after pass 5, each
 *           quota file's usage per id against what pass 1 counted
 *
 * Repair (opts.repair): a finding with a fix is reported fixable; when the
 * tool answers EK_FSCK_FIX, report() returns true and the site applies the
 * fix into c->ws (lib/repair.c) and says how it went (fix_done); the set
 * is committed at the end of each pass (commit()), so the next pass reads
 * the repaired image, and the checker's own state is updated by the site.
 *
 * Memory grows with what is in use, not with the size of the image: a
 * computed block bitmap only for groups where a block is claimed (the
 * metadata of the others is painted from a sorted list of ranges when
 * pass 5 compares them), 3 bytes per inode (flags and file type, link
 * count, references; counts past 254 in a small overflow table) only for
 * groups with inodes in use, up to the last one, 12 bytes per directory
 * ('..' and the entry naming it), and per quota type a record per id seen.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

static const struct ek_problem problems[] = {
#define EK_PROBLEM(name, pass, sev, preen, msg, fix) { #name, pass, sev, preen, msg, fix },
#include "problems.def"
#undef EK_PROBLEM
};

const struct ek_problem *ek_problem_get(enum ek_problem_id id)
{
	return id < EK_PR_COUNT ? &problems[id] : NULL;
}

/* per-inode state: a byte of flags, with the file type of i_mode in bits 5-7 */
#define IN_USE	0x1
#define IS_DIR	0x2
#define REACHED	0x4	/* pass 3: connected to the root */
#define IN_BAD_BLOCK 0x10	/* its inode table block is a bad block */
#define IS_EA	0x8	/* an xattr value inode (ea_inode): xattrs, not entries, name it */
#define FT_SHIFT 5	/* EXT4_FT_* of i_mode (0: no known type) */

/* the inodes of one group: 3 bytes each (flags, links, refs), up to the last in use */
struct igrp {
	uint32_t n, cap;
	uint8_t *st;
};
#define ST_FLAGS 0
#define ST_LINKS 1	/* i_links_count; COUNT_OVF: in the overflow table */
#define ST_REFS	2	/* directory entries naming it; COUNT_OVF likewise */
#define COUNT_OVF 255

/* an inode whose link count or references do not fit a byte */
struct ovf {
	ek_ino_t ino;		/* 0: empty slot */
	uint16_t links;
	uint32_t refs;
};

/* a directory in use: its '..' and the directory whose entry names it */
struct dinfo {
	ek_ino_t ino, parent, named_in;
};

/* a metadata extent (superblocks, descriptors, bitmaps, inode tables, MMP) */
struct range {
	ek_blk_t blk;
	uint64_t len;
};

struct check {
	struct ek_fs *fs;
	const struct ek_fsck_opts *o;
	struct ek_fsck_summary *sum;
	uint8_t **bmap;		/* per group: computed block (cluster) bitmap, or NULL */
	struct range *meta;	/* metadata extents, sorted, merged */
	size_t nmeta, meta_cap;
	struct igrp *ig;	/* per group: its inodes' state (see struct igrp) */
	struct ovf *ovf;	/* open hash by inode, ovf_cap slots (a power of 2) */
	size_t novf, ovf_cap;
	struct dinfo *dirs;	/* the directories in use, by inode number */
	size_t ndirs, dirs_cap;
	ek_blk_t *dups;		/* blocks claimed a second time (pass 1B names the owners) */
	size_t ndups, dups_cap;
	ek_blk_t *xblk;		/* the xattr block of each inode in use that has one */
	size_t nx, x_cap;
	ek_blk_t *bad;		/* the bad blocks inode's blocks, in its map order */
	size_t nbad, bad_cap;
	/* pass 1, the inode being walked */
	const struct ek_inode *ei;
	uint64_t claimed;	/* blocks its map and xattr block claim */
	ek_blk_t next_pblk;	/* contiguity of its data */
	bool fragmented;
	int64_t last_lblk;	/* its last mapped block, -1 for none */
	int64_t last_init;	/* its last written (not unwritten) block */
	bool ea_shared;		/* it has xattr value inodes: i_blocks not judged */
	uint32_t xnum[8];	/* extents: entries in the nodes at each depth (0: leaves) */
	uint32_t xnodes[8];	/* and tree blocks at each depth */
	uint64_t last_cluster;	/* bigalloc: the cluster it claimed last */
	bool have_cluster;
	uint64_t prev_lblk, prev_pblk;	/* bigalloc: its previous data block */
	bool have_prev;
	/* pass 2: names seen in the directory being read */
	uint32_t *name_slots;	/* open hash: offset + 1 into names, 0 empty */
	size_t nslots, nnames;
	char *names;
	size_t names_len, names_cap;
	/* encryption: per inode its policy, 0 none, 1 a version not known
	 * (not compared, as e2fsck), 2 + an index into pol; allocated at
	 * the first encrypted inode.  pol_slots: open hash of pol, index + 1 */
	uint32_t *crypt;
	struct ek_crypt_policy *pol;
	size_t npol, pol_cap;
	uint32_t *pol_slots;
	size_t pol_nslots;
	/* pass 2, an htree directory: the hashes of each leaf's names */
	struct dxleaf *dxl;
	size_t ndxl, dxl_cap;
	bool dxl_unsorted;
	uint8_t *dxbuf;		/* root and interior nodes: 3 blocks */
	int err;		/* first operational error */
	uint32_t p1_group;	/* pass 1: the group last reported to progress_units */
	/* quota: the types whose usage is counted (feature on, inode named) */
	bool quota_on[EK_QUOTA_TYPES];
	struct ek_quota_tally quota[EK_QUOTA_TYPES];
	/* repair */
	struct ek_wset *ws;	/* this pass's fixes (NULL: not repairing) */
	struct ek_finding pending;	/* the finding whose fix the site is applying */
	bool have_pending;
	bool stop;		/* the tool stopped the check, or cancel was raised */
	bool told_no_journal;
	/* a finding left unfixed means some blocks in use were not claimed (a
	 * damaged map, inode or xattr block): pass 5 then frees nothing */
	bool claims_incomplete;
};

/* the site applied the pending fix (@err 0) or could not: the tool is told */
static void fix_done(struct check *c, int err)
{
	struct ek_finding f = c->pending;

	if (!c->have_pending)
		return;
	c->have_pending = false;
	f.fixed = !err;
	if (!err)
		c->sum->fixed[problems[f.id].severity]++;
	else if ((err == -ENOMEM || err == -EIO) && !c->err)
		c->err = err;	/* not the image's fault: the check stops */
	if (c->o->fixed)
		c->o->fixed(c->o->arg, &f);
}

static bool cancelled(struct check *c)
{
	if (c->o->cancel && *c->o->cancel)
		c->stop = true;
	return c->stop;
}

/*
 * Report finding @id at @where; true when the site is to apply its fix
 * (repairing, the finding has one, @can_fix, and the tool said
 * EK_FSCK_FIX), then followed by fix_done().
 */
static bool vreport(struct check *c, bool can_fix, enum ek_problem_id id,
		    const struct ek_finding *where, va_list ap)
{
	struct ek_finding f = *where;
	const struct ek_problem *p = &problems[id];
	int answer;

	fix_done(c, -EINVAL);	/* a site that did not say: not fixed */
	f.id = id;
	vsnprintf(f.message, sizeof(f.message), p->message, ap);
	c->sum->findings[p->severity]++;
	f.fixable = c->ws && p->fix && can_fix && !cancelled(c) && !c->err;
	f.fixed = false;
	answer = c->o->report ? c->o->report(c->o->arg, &f) : 0;
	if (answer < 0)
		c->stop = true;
	if (!f.fixable || answer != EK_FSCK_FIX) {
		if (id == EK_PR_INODE_DAMAGED || id == EK_PR_BLOCK_MAP_DAMAGED ||
		    id == EK_PR_XATTR_BLOCK_BAD || id == EK_PR_XATTR_DAMAGED ||
		    id == EK_PR_BLOCK_CLAIMED_TWICE || id == EK_PR_BITMAP_UNREADABLE ||
		    id == EK_PR_GROUP_DESC_DAMAGED || id == EK_PR_JOURNAL_INODE_BAD)
			c->claims_incomplete = true;
		return false;
	}
	c->pending = f;
	c->have_pending = true;
	return true;
}

static bool report(struct check *c, enum ek_problem_id id, const struct ek_finding *where, ...)
{
	va_list ap;
	bool fix;

	va_start(ap, where);
	fix = vreport(c, true, id, where, ap);
	va_end(ap);
	return fix;
}

/* the same where this occurrence has no fix (@can_fix false) */
static bool report_if(struct check *c, bool can_fix, enum ek_problem_id id,
		      const struct ek_finding *where, ...)
{
	va_list ap;
	bool fix;

	va_start(ap, where);
	fix = vreport(c, can_fix, id, where, ap);
	va_end(ap);
	return fix;
}

/* the end of a pass: its fixes committed (lib/repair.c), a new set begun */
static int commit(struct check *c)
{
	size_t n;
	unsigned ntx = 0;
	int err;

	fix_done(c, -EINVAL);
	if (c->err)
		return c->err;
	n = c->ws ? ek_wset_count(c->ws) : 0;
	if (n) {
		if (!c->o->journal && !c->told_no_journal && c->o->no_journal) {
			c->o->no_journal(c->o->arg, "no journal: repairs written in place");
			c->told_no_journal = true;
		}
		err = ek_repair_commit(&c->ws, c->o->journal, c->o->now, &ntx);
		if (err)
			return err;
		c->sum->commits += ntx ? ntx : 1;
		c->sum->blocks_written += n;
	}
	return cancelled(c) ? -ECANCELED : 0;
}

/* progress within a pass, when the tool asked for it */
static void units(struct check *c, unsigned pass, uint64_t done, uint64_t total)
{
	if (c->o->progress_units)
		c->o->progress_units(c->o->arg, pass, done, total);
}

#define AT_INODE(i)	(&(struct ek_finding){ .ino = (i), .group = -1 })
#define AT_GROUP(g)	(&(struct ek_finding){ .group = (int64_t)(g) })

/* append @b to the growing array *v (*n used of *cap) */
static int blk_push(ek_blk_t **v, size_t *n, size_t *cap, ek_blk_t b)
{
	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;
		ek_blk_t *p = realloc(*v, c * sizeof(*p));

		if (!p)
			return -ENOMEM;
		*v = p;
		*cap = c;
	}
	(*v)[(*n)++] = b;
	return 0;
}


static uint8_t mode_ftype(uint16_t mode);

/* ---- per-inode state ----------------------------------------------------------- */

/* inode @ino's 3 state bytes, or NULL when its group holds none that far */
static uint8_t *ist(const struct check *c, ek_ino_t ino)
{
	uint32_t ipg = c->fs->sb.inodes_per_group;
	const struct igrp *g;
	uint32_t i;

	if (ino < 1 || ino > c->fs->sb.inodes_count)
		return NULL;
	g = &c->ig[(ino - 1) / ipg];
	i = (ino - 1) % ipg;
	return i < g->n ? g->st + 3 * (size_t)i : NULL;
}

/* the same, made when missing (zeros); NULL only when memory runs out */
static uint8_t *ist_make(struct check *c, ek_ino_t ino)
{
	uint32_t ipg = c->fs->sb.inodes_per_group;
	struct igrp *g = &c->ig[(ino - 1) / ipg];
	uint32_t i = (ino - 1) % ipg;

	if (i >= g->cap) {
		/* grows as pass 1 walks the group in order: doubling, up to the group */
		uint32_t cap = g->cap ? g->cap : 64;
		uint8_t *v;

		while (cap <= i)
			cap = cap > ipg / 2 ? ipg : cap * 2;
		v = realloc(g->st, 3 * (size_t)cap);
		if (!v)
			return NULL;
		g->st = v;
		g->cap = cap;
	}
	if (i >= g->n) {
		memset(g->st + 3 * (size_t)g->n, 0, 3 * (size_t)(i + 1 - g->n));
		g->n = i + 1;
	}
	return g->st + 3 * (size_t)i;
}

static uint8_t iflags(const struct check *c, ek_ino_t ino)
{
	const uint8_t *p = ist(c, ino);

	return p ? p[ST_FLAGS] : 0;
}

static int iflags_or(struct check *c, ek_ino_t ino, uint8_t bits)
{
	uint8_t *p = ist_make(c, ino);

	if (!p)
		return -ENOMEM;
	p[ST_FLAGS] |= bits;
	return 0;
}

/* the type bits of i_mode, from the file type pass 1 kept */
static uint16_t imode(const struct check *c, ek_ino_t ino)
{
	static const uint16_t mode[8] = {
		[EXT4_FT_REG_FILE] = 0100000, [EXT4_FT_DIR] = 0040000,
		[EXT4_FT_CHRDEV] = 0020000, [EXT4_FT_BLKDEV] = 0060000,
		[EXT4_FT_FIFO] = 0010000, [EXT4_FT_SOCK] = 0140000,
		[EXT4_FT_SYMLINK] = 0120000,
	};

	return mode[iflags(c, ino) >> FT_SHIFT];
}

/* the overflow entry of @ino, made when @make (NULL: none, or no memory) */
static struct ovf *ovf_get(struct check *c, ek_ino_t ino, bool make)
{
	size_t i;

	if ((c->novf + 1) * 2 > c->ovf_cap && make) {
		size_t n = c->ovf_cap ? c->ovf_cap * 2 : 64;
		struct ovf *v = ek_calloc(n, sizeof(*v));

		if (!v)
			return NULL;
		for (size_t k = 0; k < c->ovf_cap; k++) {
			if (!c->ovf[k].ino)
				continue;
			for (i = (c->ovf[k].ino * 0x9E3779B1u) & (n - 1); v[i].ino; i = (i + 1) & (n - 1))
				;
			v[i] = c->ovf[k];
		}
		free(c->ovf);
		c->ovf = v;
		c->ovf_cap = n;
	}
	if (!c->ovf_cap)
		return NULL;
	for (i = (ino * 0x9E3779B1u) & (c->ovf_cap - 1); c->ovf[i].ino; i = (i + 1) & (c->ovf_cap - 1))
		if (c->ovf[i].ino == ino)
			return &c->ovf[i];
	if (!make)
		return NULL;
	c->novf++;
	c->ovf[i] = (struct ovf){ .ino = ino };
	return &c->ovf[i];
}

static uint32_t count_get(const struct check *c, ek_ino_t ino, int which)
{
	const uint8_t *p = ist(c, ino);
	const struct ovf *o;

	if (!p || p[which] != COUNT_OVF)
		return p ? p[which] : 0;
	o = ovf_get((struct check *)c, ino, false);
	return !o ? 0 : which == ST_LINKS ? o->links : o->refs;
}

static uint32_t links_of(const struct check *c, ek_ino_t ino)
{
	return count_get(c, ino, ST_LINKS);
}

static uint32_t refs_of(const struct check *c, ek_ino_t ino)
{
	return count_get(c, ino, ST_REFS);
}

/* pass 1: the inode is in use with this mode and link count */
static int inode_in_use(struct check *c, ek_ino_t ino, uint16_t mode, uint16_t links)
{
	uint8_t *p = ist_make(c, ino);

	if (!p)
		return -ENOMEM;
	p[ST_FLAGS] |= IN_USE | mode_ftype(mode) << FT_SHIFT;
	p[ST_LINKS] = links < COUNT_OVF ? links : COUNT_OVF;
	if (links >= COUNT_OVF) {
		struct ovf *o = ovf_get(c, ino, true);

		if (!o)
			return -ENOMEM;
		o->links = links;
	}
	return 0;
}

/* pass 2: one more entry names @ino (in use) */
static int ref_add(struct check *c, ek_ino_t ino)
{
	uint8_t *p = ist_make(c, ino);
	struct ovf *o;

	if (!p)
		return -ENOMEM;
	if (p[ST_REFS] < COUNT_OVF - 1) {
		p[ST_REFS]++;
		return 0;
	}
	o = ovf_get(c, ino, true);
	if (!o)
		return -ENOMEM;
	o->refs = p[ST_REFS] == COUNT_OVF ? o->refs + 1 : COUNT_OVF;
	p[ST_REFS] = COUNT_OVF;
	return 0;
}

/* a repair took away an entry that named @ino (counted by ref_add) */
static void ref_drop(struct check *c, ek_ino_t ino)
{
	uint8_t *p = ist_make(c, ino);
	struct ovf *o;

	if (!p || !p[ST_REFS])
		return;
	if (p[ST_REFS] != COUNT_OVF) {
		p[ST_REFS]--;
		return;
	}
	o = ovf_get(c, ino, false);	/* the count is the overflow entry's */
	if (o && o->refs)
		o->refs--;
}

static int dinfo_cmp(const void *key, const void *elt)
{
	ek_ino_t k = *(const ek_ino_t *)key, e = ((const struct dinfo *)elt)->ino;

	return k < e ? -1 : k > e;
}

/* the directory @ino's entry, or NULL when it is not a directory in use */
static struct dinfo *dinfo_of(const struct check *c, ek_ino_t ino)
{
	return c->ndirs ? bsearch(&ino, c->dirs, c->ndirs, sizeof(*c->dirs), dinfo_cmp) : NULL;
}

static ek_ino_t named_in_of(const struct check *c, ek_ino_t ino)
{
	const struct dinfo *d = dinfo_of(c, ino);

	return d ? d->named_in : 0;
}

/* pass 1 meets directories in inode order: the table stays sorted */
static int dir_add(struct check *c, ek_ino_t ino)
{
	if (c->ndirs && c->dirs[c->ndirs - 1].ino >= ino)
		return c->dirs[c->ndirs - 1].ino == ino ? 0 : -EINVAL;
	if (c->ndirs == c->dirs_cap) {
		size_t cap = c->dirs_cap ? c->dirs_cap * 2 : 64;
		struct dinfo *v = realloc(c->dirs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->dirs = v;
		c->dirs_cap = cap;
	}
	c->dirs[c->ndirs++] = (struct dinfo){ .ino = ino };
	return 0;
}

/* ---- the computed block map -------------------------------------------------- */

/* set bits [@from, @to] of @map */
static void set_bits(uint8_t *map, uint64_t from, uint64_t to)
{
	while (from <= to && (from & 7))
		map[from >> 3] |= 1u << (from & 7), from++;
	if (from + 8 <= to + 1) {
		memset(map + (from >> 3), 0xFF, (to + 1 - from) >> 3);
		from += (to + 1 - from) & ~(uint64_t)7;
	}
	while (from <= to)
		map[from >> 3] |= 1u << (from & 7), from++;
}

/* paint the metadata that lies in group @g into its cluster bitmap @map */
static void paint_meta(const struct check *c, uint32_t g, uint8_t *map)
{
	const struct ek_fs *fs = c->fs;
	ek_blk_t first = ek_group_first_block(fs, g), last = ek_group_last_block(fs, g);
	size_t lo = 0, hi = c->nmeta;

	/* the first range ending after @first */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->meta[mid].blk + c->meta[mid].len <= first)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->nmeta && c->meta[lo].blk <= last; lo++) {
		ek_blk_t s = c->meta[lo].blk > first ? c->meta[lo].blk : first;
		ek_blk_t e = c->meta[lo].blk + c->meta[lo].len - 1;

		if (e > last)
			e = last;
		set_bits(map, (s - first) >> fs->cluster_bits, (e - first) >> fs->cluster_bits);
	}
}

/* the computed bitmap of group @g, made (with its metadata) on first use */
static uint8_t *group_map(struct check *c, uint32_t g)
{
	if (!c->bmap[g] && (c->bmap[g] = ek_calloc(1, c->fs->blksz)))
		paint_meta(c, g, c->bmap[g]);
	return c->bmap[g];
}

/* mark @blk in use; true when it was already */
static int mark(struct check *c, ek_blk_t blk, bool *was)
{
	struct ek_fs *fs = c->fs;
	uint32_t g = ek_group_of_block(fs, blk);
	uint64_t bit = (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits;
	uint8_t *map = group_map(c, g);

	*was = false;
	if (!map)
		return -ENOMEM;
	if (ek_bit_test(map, bit)) {
		*was = true;
		return 0;
	}
	map[bit >> 3] |= 1u << (bit & 7);
	return 0;
}

/* metadata, kept as a range: marked in a group's bitmap when it is made */
static int mark_meta(struct check *c, ek_blk_t blk, uint64_t n)
{
	ek_blk_t lo = c->fs->sb.first_data_block, hi = c->fs->sb.blocks_count;
	ek_blk_t end = blk + n < blk ? hi : blk + n;

	/* block 0 holds the superblock when first_data_block is 0; outside
	 * the filesystem: the descriptor checks name it */
	if (blk < lo)
		blk = lo;
	if (end > hi)
		end = hi;
	if (blk >= end)
		return 0;
	if (c->nmeta == c->meta_cap) {
		size_t cap = c->meta_cap ? c->meta_cap * 2 : 64;
		struct range *v = realloc(c->meta, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->meta = v;
		c->meta_cap = cap;
	}
	c->meta[c->nmeta++] = (struct range){ blk, end - blk };
	return 0;
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

/* superblock copies, descriptors, reserved GDT, bitmaps, inode tables, MMP */
static int mark_metadata(struct check *c)
{
	struct ek_fs *fs = c->fs;
	size_t n = 0;
	int err = 0;

	/* 1 KiB blocks with first_data_block 0 (bigalloc): block 0 is the boot block */
	if (fs->sb.first_data_block == 0 && fs->blksz == 1024)
		err = mark_meta(c, 0, 1);
	for (uint32_t g = 0; g < fs->group_count && !err; g++) {
		const struct ek_group *grp = &fs->groups[g];
		ek_blk_t first = ek_group_first_block(fs, g);

		if (first == 0 && fs->blksz == 1024)
			first = 1;
		err = mark_meta(c, first, ek_group_sb_gdt_blocks(fs, g));
		if (!err)
			err = mark_meta(c, grp->block_bitmap, 1);
		if (!err)
			err = mark_meta(c, grp->inode_bitmap, 1);
		if (!err)
			err = mark_meta(c, grp->inode_table, fs->itable_blocks);
	}
	if (!err && ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP))
		err = mark_meta(c, le64_to_cpu(fs->raw_sb->s_mmp_block), 1);
	if (err || !c->nmeta)
		return err;
	/* sorted and merged: overlapping copies (a hostile layout) mark once */
	qsort(c->meta, c->nmeta, sizeof(*c->meta), range_cmp);
	for (size_t i = 1; i < c->nmeta; i++) {
		struct range *last = &c->meta[n];

		if (c->meta[i].blk <= last->blk + last->len) {
			ek_blk_t e = c->meta[i].blk + c->meta[i].len;

			if (e > last->blk + last->len)
				last->len = e - last->blk;
		} else {
			c->meta[++n] = c->meta[i];
		}
	}
	c->nmeta = n + 1;
	return 0;
}

/* ---- pass 1 ------------------------------------------------------------------ */

static int claim(struct check *c, ek_blk_t blk)
{
	uint64_t cluster = blk >> c->fs->cluster_bits;
	bool was;
	int err = mark(c, blk, &was);

	if (err)
		return err;
	/* bigalloc: i_blocks and sharing are per cluster */
	if (c->fs->cluster_bits && c->have_cluster && cluster == c->last_cluster)
		return 0;
	c->have_cluster = true;
	c->last_cluster = cluster;
	c->claimed++;
	if (c->ei->ino == EXT4_BAD_INO) {
		/* a bad block may lie in metadata (e2fsck relocates it) */
		return blk_push(&c->bad, &c->nbad, &c->bad_cap, blk);
	}
	/* the resize inode maps the reserved GDT blocks, marked as metadata;
	 * shared_blocks allows blocks to be shared */
	if (was && c->ei->ino != EXT4_RESIZE_INO &&
	    !ek_has_ro_compat(c->fs, EXT4_FEATURE_RO_COMPAT_SHARED_BLOCKS)) {
		return blk_push(&c->dups, &c->ndups, &c->dups_cap, blk);
	}
	return 0;
}

/* bigalloc, as e2fsck's pass 1: a block's offset in its logical cluster is
 * its offset in its physical cluster, and the blocks of one logical
 * cluster lie in one physical cluster (e2fsck then names the blocks as
 * shared in pass 1B: ours counts them by cluster as claimed twice or not) */
static void check_clusters(struct check *c, const struct ek_mapping *m)
{
	uint64_t mask = ek_cluster_ratio(c->fs) - 1;
	unsigned bits = c->fs->cluster_bits;

	for (uint64_t i = 0; i < m->len; i++) {
		uint64_t l = m->lblk + i, p = m->pblk + i;

		if ((l & mask) != (p & mask) ||
		    (c->have_prev && (l & mask) && l >> bits == c->prev_lblk >> bits &&
		     p >> bits != c->prev_pblk >> bits))
			report(c, EK_PR_CLUSTER_MISALIGNED, &(struct ek_finding){ .ino = c->ei->ino,
			       .blk = p, .has_blk = true, .group = -1 }, c->ei->ino,
			       (unsigned long long)l, (unsigned long long)p);
		c->have_prev = true;
		c->prev_lblk = l;
		c->prev_pblk = p;
	}
}

static int claim_mapping(void *arg, const struct ek_mapping *m)
{
	struct check *c = arg;
	int err = 0;

	if (m->level < 8) {
		if (m->kind == EK_MAP_TREE)
			c->xnodes[m->level]++;
		else
			c->xnum[m->level]++;
	}
	if (m->kind == EK_MAP_INDEX)
		return 0;	/* its child node follows as EK_MAP_TREE */
	/* the resize inode maps reserved GDT blocks, not clusters of data */
	if (m->kind == EK_MAP_DATA && c->fs->cluster_bits && c->ei->ino != EXT4_RESIZE_INO &&
	    c->ei->ino != EXT4_BAD_INO)
		check_clusters(c, m);
	if (m->kind == EK_MAP_DATA) {
		if (c->next_pblk && m->pblk != c->next_pblk)
			c->fragmented = true;
		c->next_pblk = m->pblk + m->len;
		c->last_lblk = (int64_t)(m->lblk + m->len - 1);
		if (!m->unwritten)
			c->last_init = c->last_lblk;
	}
	/* the walk checked the range lies in the filesystem */
	for (uint64_t i = 0; i < m->len && !err; i++)
		err = claim(c, m->pblk + i);
	return err;
}

static bool reserved_ino(const struct ek_fs *fs, ek_ino_t ino)
{
	return ino < fs->sb.first_ino && ino != EXT4_ROOT_INO;
}

/* does the inode have a block map to walk? */
static bool has_map(const struct ek_fs *fs, const struct ek_inode *ei)
{
	uint16_t fmt = ei->mode & 0170000;

	if (ek_inode_has_inline(ei))
		return false;
	if (fmt == 0020000 || fmt == 0060000 || fmt == 0010000 || fmt == 0140000)
		return false;	/* devices, fifos and sockets keep no blocks */
	/* nor an unknown type (e2fsck's ext2fs_inode_has_valid_blocks2);
	 * the reserved inodes have theirs (the bad blocks inode: mode 0) */
	if (fmt != 0100000 && fmt != 0040000 && fmt != 0120000 && !reserved_ino(fs, ei->ino))
		return false;
	if (fmt == 0120000 && ek_inode_is_fast_symlink(fs, ei))
		return false;
	return true;
}

/* named by the superblock, not a directory: the journal, orphan file, quota files */
static bool sb_ino(const struct ek_fs *fs, ek_ino_t ino)
{
	const struct ext4_super_block *sb = fs->raw_sb;

	return ino == fs->sb.journal_inum || ino == fs->sb.orphan_file_inum ||
	       ino == le32_to_cpu(sb->s_usr_quota_inum) || ino == le32_to_cpu(sb->s_grp_quota_inum) ||
	       ino == le32_to_cpu(sb->s_prj_quota_inum);
}

static int note_ea_inode(void *arg, const struct ek_xattr *xa)
{
	struct check *c = arg;

	/*
	 * Which value inodes the kernel charged to this inode's i_blocks
	 * depends on how they were shared (e2fsck matches entry hashes):
	 * not modelled yet, so such an inode's i_blocks is not judged.
	 */
	if (xa->value_inum)
		c->ea_shared = true;
	return 0;
}

/* the xattrs of @ei through xattr.c's checked walk */
static int check_xattrs(struct check *c, struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	uint16_t acl_hi = get_le16(ei->raw + offsetof(struct ext4_inode, l_i_file_acl_high));
	int err;

	if (acl_hi && !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT)) {
		if (report(c, EK_PR_FILE_ACL_HI, AT_INODE(ei->ino), ei->ino, acl_hi))
			fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_ACL_HI, 0));
		ei->file_acl &= 0xFFFFFFFFu;	/* what the kernel reads */
	}
	/* as e2fsck: without ext_attr no block is an xattr block (the kernel
	 * reads it all the same); not read, counted or marked in use */
	if (ei->file_acl && !ek_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR)) {
		ek_blk_t acl = ei->file_acl;

		report(c, EK_PR_XATTR_NO_FEATURE, &(struct ek_finding){ .ino = ei->ino,
		       .blk = acl, .has_blk = true, .group = -1 },
		       ei->ino, (unsigned long long)acl);
		ei->file_acl = 0;	/* the in-inode xattrs only */
		err = ek_xattr_iterate(fs, ei, note_ea_inode, c);
		ei->file_acl = acl;	/* still tells a fast symlink (i_blocks) */
	} else if (ei->file_acl && !ek_fs_block_valid(fs, ei->file_acl)) {
		return 0;	/* named below */
	} else {
		err = ek_xattr_iterate(fs, ei, note_ea_inode, c);
	}
	if (err == -ENOMEM)
		return err;
	if (err)
		report(c, EK_PR_XATTR_DAMAGED, AT_INODE(ei->ino), ek_error_msg(err));
	return 0;
}

static uint64_t name_hash(const char *p, size_t n);

/* the id of policy @p (2 + its index), added when new */
static int policy_id(struct check *c, const struct ek_crypt_policy *p, uint32_t *out)
{
	size_t i;

	if ((c->npol + 1) * 2 > c->pol_nslots) {
		size_t n = c->pol_nslots ? c->pol_nslots * 2 : 64;
		uint32_t *v = ek_calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < c->npol; k++) {
			for (i = name_hash((const char *)c->pol[k].p, c->pol[k].len) & (n - 1); v[i];
			     i = (i + 1) & (n - 1))
				;
			v[i] = (uint32_t)k + 1;
		}
		free(c->pol_slots);
		c->pol_slots = v;
		c->pol_nslots = n;
	}
	for (i = name_hash((const char *)p->p, p->len) & (c->pol_nslots - 1); c->pol_slots[i];
	     i = (i + 1) & (c->pol_nslots - 1)) {
		const struct ek_crypt_policy *q = &c->pol[c->pol_slots[i] - 1];

		if (q->len == p->len && !memcmp(q->p, p->p, p->len)) {
			*out = c->pol_slots[i] + 1;
			return 0;
		}
	}
	if (c->npol == c->pol_cap) {
		size_t cap = c->pol_cap ? c->pol_cap * 2 : 16;
		struct ek_crypt_policy *v = realloc(c->pol, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->pol = v;
		c->pol_cap = cap;
	}
	c->pol[c->npol++] = *p;
	c->pol_slots[i] = (uint32_t)c->npol;
	*out = (uint32_t)c->npol + 1;
	return 0;
}

/*
 * An encrypted inode's policy (e2fsck's rules): a context missing or
 * corrupt is a finding and leaves the inode without a policy, so the
 * entries naming it in an encrypted directory are findings too.
 */
static int check_crypt(struct check *c, const struct ek_inode *ei)
{
	struct ek_crypt_policy p;
	uint8_t *val;
	size_t len;
	int err;

	if (!(ei->flags & EXT4_ENCRYPT_FL))
		return 0;
	if (!c->crypt && !(c->crypt = ek_calloc((size_t)c->fs->sb.inodes_count + 1,
						   sizeof(*c->crypt))))
		return -ENOMEM;
	err = ek_xattr_get(c->fs, ei, EXT4_XATTR_INDEX_ENCRYPTION, "c", 1, &val, &len);
	if (err == -ENOMEM)
		return err;
	if (err == -ENODATA) {
		report(c, EK_PR_ENCRYPT_NO_XATTR, AT_INODE(ei->ino), ei->ino);
		return 0;
	}
	if (err)
		return 0;	/* damaged xattrs: named by check_xattrs() */
	err = ek_crypt_ctx_decode(ei->ino, val, len, &p);
	free(val);
	if (err < 0) {
		report(c, EK_PR_ENCRYPT_XATTR_BAD, AT_INODE(ei->ino), ek_error_msg(err));
		return 0;
	}
	if (err == 1) {
		c->crypt[ei->ino] = 1;
		return 0;
	}
	return policy_id(c, &p, &c->crypt[ei->ino]);
}

/* a symlink's target, read by the read path, then e2fsck's rules */
/*
 * e2fsck's rule for where a target ends: in its buffer (i_block's 60 bytes,
 * or the first block), a NUL right at i_size and none before; encrypted,
 * the ciphertext's length word and its 2 bytes make i_size.  The kernel
 * reads i_size bytes and does not look; e2fsck clears the rest.
 */
static int symlink_end(struct check *c, const struct ek_inode *ei, char *why, size_t n)
{
	struct ek_fs *fs = c->fs;
	const uint8_t *buf = (const uint8_t *)ek_inode_i_block(ei);
	uint32_t buflen = EXT4_N_BLOCKS * 4;
	uint8_t *blk = NULL;
	uint64_t len;
	int err = 0;

	if (!ek_inode_is_fast_symlink(fs, ei)) {
		ek_blk_t pblk = 0;

		if (ei->size >= fs->blksz) {
			snprintf(why, n, "i_size %llu does not fit in a block",
				 (unsigned long long)ei->size);
			return 0;
		}
		err = ek_map_bmap(fs, ei, 0, &pblk, NULL);
		if (err || !pblk)
			return err == -ENOMEM ? err : 0;	/* named by the map check */
		blk = ek_malloc(fs->blksz);
		if (!blk)
			return -ENOMEM;
		err = ek_fs_read_blocks(fs, pblk, 1, blk);
		if (err) {
			free(blk);
			return err == -ENOMEM ? err : 0;
		}
		buf = blk;
		buflen = fs->blksz;
	}
	if (ei->flags & EXT4_ENCRYPT_FL)
		len = (uint64_t)get_le16(buf) + 2;
	else
		len = strnlen((const char *)buf, buflen);
	if (len >= buflen)
		snprintf(why, n, "the target fills its %u bytes without an end", buflen);
	else if (len != ei->size)
		snprintf(why, n, "i_size %llu, the target ends after %llu bytes",
			 (unsigned long long)ei->size, (unsigned long long)len);
	free(blk);
	return 0;
}

/*
 * e2fsck's hint that an extent tree could be rebuilt smaller (counted by
 * the walk: entries and blocks per depth): a level whose entries would fit
 * in one block fewer is "narrower", a level whose entries would fit in the
 * nodes above it "shorter".  The kernel never shrinks a tree; a warning.
 */
static void check_extent_shape(struct check *c, const struct ek_inode *ei)
{
	const uint8_t *root = (const uint8_t *)ek_inode_i_block(ei);
	uint32_t depth = get_le16(root + 6);
	uint64_t per_block = (c->fs->blksz - 12) / 12;

	if (!(ei->flags & EXT4_EXTENTS_FL) || ek_inode_has_inline(ei) || depth == 0 || depth >= 8)
		return;
	/* from the root down, as e2fsck counts levels (0: the root) */
	for (uint32_t d = depth; d-- > 0;) {
		uint64_t max = (uint64_t)c->xnodes[d] * per_block;
		uint64_t above = d + 1 == depth ? 4 : (uint64_t)c->xnodes[d + 1] * per_block;
		const char *how = NULL;

		if (c->xnum[d] + per_block < max)
			how = "narrower";
		else if (c->xnum[d] <= above)
			how = "shorter";
		if (how) {
			report(c, EK_PR_EXTENT_TREE_SHRINKABLE, AT_INODE(ei->ino), ei->ino,
			       depth - d, how);
			return;
		}
	}
}

static int check_symlink(struct check *c, const struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	char *buf, why[200] = "";
	int err;

	/* inline symlinks: e2fsck accepts what the read path would refuse
	 * (a NUL inside the target); not judged yet */
	if (ek_inode_has_inline(ei))
		return 0;
	if (get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)))
		snprintf(why, sizeof(why), "i_size_high is %u",
			 get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)));
	else if (ek_inode_is_fast_symlink(fs, ei) && (ei->flags & EXT4_EXTENTS_FL))
		snprintf(why, sizeof(why), "a fast symlink with the extents flag");
	else if (!ek_inode_has_inline(ei) && !ek_inode_is_fast_symlink(fs, ei) && c->last_lblk > 0)
		snprintf(why, sizeof(why), "its target spans %lld blocks", (long long)c->last_lblk + 1);
	if (*why)
		goto bad;
	err = symlink_end(c, ei, why, sizeof(why));
	if (err)
		return err;
	if (*why)
		goto bad;
	/* an encrypted target is ciphertext: NUL bytes and all */
	if (ei->flags & EXT4_ENCRYPT_FL)
		return 0;
	buf = ek_malloc(fs->blksz + 1);
	if (!buf)
		return -ENOMEM;
	err = ek_readlink(fs, ei, buf, fs->blksz + 1);
	if (err == -ENOMEM) {
		free(buf);
		return err;
	}
	if (err)
		snprintf(why, sizeof(why), "%s", ek_error_msg(err));
	else if (strnlen(buf, ei->size) != ei->size)
		snprintf(why, sizeof(why), "i_size %llu, the target has %zu bytes",
			 (unsigned long long)ei->size, strnlen(buf, ei->size));
	free(buf);
	if (!*why)
		return 0;
bad:
	report(c, EK_PR_SYMLINK_INVALID, AT_INODE(ei->ino), ei->ino, why);
	return 0;
}

/* i_size against the blocks the map holds, by e2fsck's rules */
static void check_size(struct check *c, const struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	uint64_t bs = fs->blksz, want = 0;
	bool bad = false;

	if (ek_is_dir(ei->mode)) {
		uint64_t nblock = ei->size / bs, have = (uint64_t)(c->last_lblk + 1);

		if (ei->size & (bs - 1))
			bad = true;
		else if (nblock > have)
			bad = true;
		else if (nblock < have && have - nblock > fs->raw_sb->s_prealloc_dir_blocks)
			bad = true;
		want = have * bs;
	} else if (c->last_init >= 0 && ei->size < (uint64_t)c->last_init * bs) {
		/* written blocks past i_size; unwritten ones may lie past it */
		bad = true;
		want = (uint64_t)(c->last_init + 1) * bs;
	}
	if (bad && report(c, EK_PR_I_SIZE_WRONG, AT_INODE(ei->ino), ei->ino,
			  (unsigned long long)ei->size, (unsigned long long)want))
		fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_SIZE, want));
}

static const char *type_name(uint16_t mode);

static bool type_known(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: case 0040000: case 0020000: case 0060000:
	case 0010000: case 0140000: case 0120000:
		return true;
	}
	return false;
}

/* devices, fifos, sockets and symlinks: e2fsck's "special" files */
static bool special(uint16_t mode)
{
	uint16_t t = mode & 0170000;

	return t == 0020000 || t == 0060000 || t == 0010000 || t == 0140000 || t == 0120000;
}

/*
 * Charge inode @ei to its user, group and project, as e2fsck's pass 1
 * (check_blocks): the root and every inode from s_first_ino, but the
 * project quota file, the orphan file and xattr value inodes; one inode
 * and the clusters its map and xattr block claim.  @uncertain: the charge
 * is not known (a damaged map, value inodes whose sharing e2fsck models,
 * bigalloc's cluster counting), so its ids are not judged.
 */
static int charge_quota(struct check *c, const struct ek_inode *ei, bool uncertain)
{
	struct ek_fs *fs = c->fs;
	uint64_t space = c->claimed << (fs->log_blksz + fs->cluster_bits);
	uint32_t id[EK_QUOTA_TYPES] = { ei->uid, ei->gid, ei->projid };

	if (ei->ino == ek_quota_inum(fs, EK_QUOTA_PRJ) || ei->ino == fs->sb.orphan_file_inum ||
	    (ei->ino != EXT4_ROOT_INO && ei->ino < fs->sb.first_ino) ||
	    (ei->flags & EXT4_EA_INODE_FL))
		return 0;
	uncertain |= c->ea_shared || fs->cluster_bits;
	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		int err;

		if (!c->quota_on[t])
			continue;
		/* i_projid needs large inodes: e2fsck charges no project without */
		if (t == EK_QUOTA_PRJ && fs->inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
			continue;
		err = ek_quota_tally_add(&c->quota[t], id[t], 1, space, uncertain);
		if (err)
			return err;
	}
	return 0;
}

/* a quota file the superblock names: its mode is judged with its content */
static bool quota_file_ino(const struct check *c, ek_ino_t ino)
{
	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++)
		if (c->quota_on[t] && ek_quota_inum(c->fs, t) == ino)
			return true;
	return false;
}

/* inodes 3 and 4 hold the user and group quota files, or nothing */
static void check_quota_ino(struct check *c, const struct ek_inode *ei)
{
	unsigned t = ei->ino == EXT4_USR_QUOTA_INO ? EK_QUOTA_USR : EK_QUOTA_GRP;

	if (c->quota_on[t] && ek_quota_inum(c->fs, t) == ei->ino)
		return;		/* in use: judged with its file after pass 5 */
	if (ei->links_count || ei->blocks || get_le32(ek_inode_i_block(ei)))
		report(c, EK_PR_QUOTA_INODE_NOT_CLEAR, AT_INODE(ei->ino), ei->ino);
}

/*
 * Devices, fifos and sockets keep no blocks: e2fsck calls one illegal
 * with the extents, index or inline-data flag, with a size, or immutable
 * (which a device cannot be made) with i_block words past the device
 * numbers set (e2fsck_pass1_check_device_inode, check_size).  True when
 * named.
 */
static bool check_device(struct check *c, const struct ek_inode *ei)
{
	const __le32 *ib = ek_inode_i_block(ei);
	char why[64] = "";

	if (!special(ei->mode) || ek_is_lnk(ei->mode))
		return false;
	if (ei->flags & (EXT4_INDEX_FL | EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL))
		snprintf(why, sizeof(why), "flags 0x%x: extents, index or inline data", ei->flags);
	else if (ei->size)
		snprintf(why, sizeof(why), "i_size %llu, should be zero", (unsigned long long)ei->size);
	else if (ei->flags & (EXT4_IMMUTABLE_FL | EXT4_APPEND_FL))
		for (int i = 4; i < EXT4_N_BLOCKS && !*why; i++)
			if (ib[i])
				snprintf(why, sizeof(why), "immutable, with i_block[%d] set", i);
	if (!*why)
		return false;
	/* "an illegal block device": the type name past its article "a " */
	report(c, EK_PR_SPECIAL_ILLEGAL, AT_INODE(ei->ino), ei->ino, type_name(ei->mode) + 2, why);
	return true;
}

static int pass1_inode(void *arg, struct ek_inode *ei, int derr)
{
	struct check *c = arg;
	struct ek_fs *fs = c->fs;
	bool qf = quota_file_ino(c, ei->ino);
	uint64_t want;
	int err;

	if (ek_group_of_ino(fs, ei->ino) != c->p1_group) {
		c->p1_group = ek_group_of_ino(fs, ei->ino);
		units(c, 1, c->p1_group, fs->group_count);
	}
	/* an inode in a bad block of the inode table is unreadable: left alone */
	if (c->nbad && ei->ino != EXT4_BAD_INO) {
		ek_blk_t at;
		uint32_t off;

		if (ek_inode_loc(fs, ei->ino, &at, &off) == 0)
			for (size_t i = 0; i < c->nbad; i++)
				if (c->bad[i] == at) {
					err = iflags_or(c, ei->ino, IN_USE | IN_BAD_BLOCK);
					/* its xattr block is marked with the others' */
					if (!err && ei->file_acl && ek_fs_block_valid(fs, ei->file_acl) &&
					    ek_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR))
						err = blk_push(&c->xblk, &c->nx, &c->x_cap, ei->file_acl);
					return err;
				}
	}
	if (ei->ino == EXT4_USR_QUOTA_INO || ei->ino == EXT4_GRP_QUOTA_INO)
		check_quota_ino(c, ei);
	/* e2fsck: a dtime below the inode count is an orphan list's link left
	 * behind (the list was never processed: recovery processes it first) */
	if (ei->dtime && ei->dtime < fs->sb.inodes_count &&
	    report(c, EK_PR_INODE_ORPHAN_LEFTOVER, AT_INODE(ei->ino), ei->ino, ei->dtime)) {
		/* as e2fsck: linked, no dtime; deleted, deleted now */
		uint64_t now = ei->links_count ? 0 : (uint64_t)c->o->now;

		fix_done(c, ek_fix_inode(c->ws, ei->ino, now ? EK_IFIX_DTIME_SET : EK_IFIX_DTIME, now));
		ei->dtime = (uint32_t)now;	/* what the later checks see */
	}
	/* e2fsck: an inode is in use when linked; the reserved ones with a
	 * mode, and the bad blocks inode (which has none) always */
	if (!ei->links_count && !(reserved_ino(fs, ei->ino) && ei->mode) &&
	    ei->ino != EXT4_BAD_INO) {
		/* a deleted inode records when: the kernel sets dtime */
		if (ei->ino >= fs->sb.first_ino && ei->mode && !ei->dtime && !qf &&
		    report(c, EK_PR_INODE_ZERO_DTIME, AT_INODE(ei->ino), ei->ino))
			fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_DTIME_SET,
						 (uint64_t)c->o->now));
		return 0;
	}
	err = inode_in_use(c, ei->ino, ei->mode, ei->links_count);
	if (!err && ek_is_dir(ei->mode) && !qf)
		err = iflags_or(c, ei->ino, IS_DIR);
	if (!err && ek_is_dir(ei->mode) && !qf)
		err = dir_add(c, ei->ino);
	if (!err && (ei->flags & EXT4_EA_INODE_FL))
		err = iflags_or(c, ei->ino, IS_EA);
	if (err)
		return err;
	if (derr == -EK_BADCRC) {
		if (report(c, EK_PR_INODE_CHECKSUM, AT_INODE(ei->ino), ei->ino))
			fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_CSUM, 0));
	} else if (derr)
		report(c, EK_PR_INODE_DAMAGED, AT_INODE(ei->ino), ek_error_msg(derr));
	if (qf)
		;	/* its mode is QUOTA_INODE_BAD's, after pass 5 */
	else if (!type_known(ei->mode) && !reserved_ino(fs, ei->ino))
		report(c, EK_PR_INODE_BAD_MODE, AT_INODE(ei->ino), ei->ino, ei->mode);
	else if (check_device(c, ei))
		;	/* named there */
	else if (special(ei->mode) && (ei->flags & (EXT4_IMMUTABLE_FL | EXT4_APPEND_FL)) &&
		 report(c, EK_PR_INODE_SPECIAL_FLAGS, AT_INODE(ei->ino), ei->ino,
			type_name(ei->mode)))
		fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR,
					 EXT4_IMMUTABLE_FL | EXT4_APPEND_FL));
	/* i_blocks_hi without huge_file (the Hurd keeps other fields there) */
	if (!ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE) &&
	    le32_to_cpu(fs->raw_sb->s_creator_os) != 1 /* EXT4_OS_HURD */ &&
	    get_le16(ei->raw + offsetof(struct ext4_inode, l_i_blocks_high)))
		report(c, EK_PR_BLOCKS_HI, AT_INODE(ei->ino), ei->ino,
		       get_le16(ei->raw + offsetof(struct ext4_inode, l_i_blocks_high)));
	if (ei->dtime && ei->links_count && !reserved_ino(fs, ei->ino) &&
	    ei->ino != EXT4_ROOT_INO && report(c, EK_PR_INODE_DTIME_SET, AT_INODE(ei->ino), ei->ino))
		fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_DTIME, 0));
	/* fields no kernel writes any more (e2fsck's pass 2 bad-inode checks) */
	if (get_le32(ei->raw + offsetof(struct ext4_inode, i_obso_faddr)))
		report(c, EK_PR_INODE_FIELD_NONZERO, AT_INODE(ei->ino), "i_faddr", ei->ino,
		       get_le32(ei->raw + offsetof(struct ext4_inode, i_obso_faddr)));
	if (ek_is_dir(ei->mode) && !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) &&
	    get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)))
		report(c, EK_PR_INODE_FIELD_NONZERO, AT_INODE(ei->ino), "i_size_high", ei->ino,
		       get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)));
	if ((ei->flags & EXT4_IMAGIC_FL) && !ek_has_compat(fs, EXT4_FEATURE_COMPAT_IMAGIC_INODES))
		report(c, EK_PR_INODE_IMAGIC, AT_INODE(ei->ino), ei->ino);
	/* as e2fsck's handle_htree(); the kernel reads such an inode without its index */
	if ((ei->flags & EXT4_INDEX_FL) && !ek_is_dir(ei->mode))
		report(c, EK_PR_HTREE_NOT_DIR, AT_INODE(ei->ino), ei->ino);
	else if ((ei->flags & EXT4_INDEX_FL) && !ek_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX))
		report(c, EK_PR_HTREE_NO_DIR_INDEX, AT_INODE(ei->ino), ei->ino);

	c->ei = ei;
	c->claimed = 0;
	c->next_pblk = 0;
	c->fragmented = false;
	c->last_lblk = c->last_init = -1;
	c->ea_shared = false;
	c->have_cluster = false;
	c->have_prev = false;
	memset(c->xnum, 0, sizeof(c->xnum));
	memset(c->xnodes, 0, sizeof(c->xnodes));
	err = check_xattrs(c, ei);
	if (err)
		return err;
	err = check_crypt(c, ei);
	if (err)
		return err;
	if (ei->file_acl && ek_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR)) {
		if (!ek_fs_block_valid(fs, ei->file_acl))
			report(c, EK_PR_XATTR_BLOCK_BAD, &(struct ek_finding){ .ino = ei->ino,
			       .blk = ei->file_acl, .has_blk = true, .group = -1 },
			       ei->ino, (unsigned long long)ei->file_acl);
		else if ((err = blk_push(&c->xblk, &c->nx, &c->x_cap, ei->file_acl)))
			return err;
		else
			c->claimed++;	/* counted here, marked once for all its users */
	}
	if (has_map(fs, ei)) {
		err = ek_map_walk(fs, ei, claim_mapping, c);
		if (err == -ENOMEM)
			return err;
		if (err && err != -EK_BADCRC) {
			report(c, EK_PR_BLOCK_MAP_DAMAGED, AT_INODE(ei->ino), ek_error_msg(err));
			/* its counts are unknown: no i_blocks finding */
			return charge_quota(c, ei, true);
		}
		if (err == -EK_BADCRC)
			report(c, EK_PR_BLOCK_MAP_DAMAGED, AT_INODE(ei->ino), ek_error_msg(err));
		else
			check_extent_shape(c, ei);
	}
	if (ek_is_lnk(ei->mode) && !qf) {
		err = check_symlink(c, ei);
		if (err)
			return err;
	} else if (has_map(fs, ei)) {
		check_size(c, ei);
	}
	if (c->fragmented && ei->ino != EXT4_RESIZE_INO)
		c->sum->fragmented++;	/* as e2fsck, which leaves the resize inode out */
	/* i_blocks counts 512-byte sectors of whole clusters */
	/* and the blocks of its xattr value inodes, as the kernel charges them */
	want = (c->claimed << fs->log_blksz) >> 9;
	if (ei->blocks != want && !fs->cluster_bits && !c->ea_shared && ei->ino != EXT4_BAD_INO &&
	    report(c, EK_PR_I_BLOCKS_WRONG, AT_INODE(ei->ino), ei->ino,
		   (unsigned long long)ei->blocks, (unsigned long long)want))
		fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_IBLOCKS, want));
	return charge_quota(c, ei, false);
}

/* ---- pass 0: the resize inode and the MMP block ------------------------------ */

/* as e2fsck's check_resize_inode() (a warning: only online resize reads
 * the inode, and e2fsck -n exits 0 on it): i_block holds only the double-indirect
 * block, whose slot (desc_blocks + i) % per-block names reserved GDT block
 * i of the primary copy, and that block names the same block of each
 * backup copy in group order; without the feature, inode 7 is all zero
 * in i_block.  Returns an operational error only */
static int check_resize_inode(struct check *c)
{
	struct ek_fs *fs = c->fs;
	struct ek_finding at = { .ino = EXT4_RESIZE_INO, .group = -1 };
	struct ek_inode ei;
	const __le32 *ib;
	uint32_t apb = fs->blksz / 4, nres = fs->sb.reserved_gdt_blocks, gdt;
	__le32 *dind = NULL, *ind = NULL;
	ek_blk_t blk;
	char why[160] = "";
	int err;

	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE) && nres)
		report(c, EK_PR_RESERVED_GDT_NO_RESIZE, AT_GROUP(-1), nres);
	err = ek_inode_read(fs, EXT4_RESIZE_INO, &ei);
	if (err) {
		ek_inode_release(&ei);
		/* the inode table is unreadable: pass 1 names it */
		return err == -ENOMEM ? err : 0;
	}
	ib = ek_inode_i_block(&ei);
	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_RESIZE_INODE)) {
		for (unsigned i = 0; i < EXT4_N_BLOCKS; i++)
			if (ib[i]) {
				report(c, EK_PR_RESIZE_INODE_NOT_CLEAR, &at);
				break;
			}
		goto out;
	}
	/* meta_bg places no reserved GDT blocks: the inode is e2fsck's to clear */
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_META_BG))
		goto out;
	blk = le32_to_cpu(ib[EXT4_DIND_BLOCK]);
	for (unsigned i = 0; i < EXT4_N_BLOCKS; i++)
		if (i != EXT4_DIND_BLOCK && ib[i]) {
			snprintf(why, sizeof(why), "i_block[%u] is %u, should be zero", i,
				 le32_to_cpu(ib[i]));
			goto bad;
		}
	/* no reserved GDT blocks and no block: nothing to map */
	if (!blk && !nres)
		goto out;
	if (!blk || !ei.links_count || !ek_is_reg(ei.mode) || blk <= fs->sb.first_data_block ||
	    blk >= fs->sb.blocks_count) {
		snprintf(why, sizeof(why), !blk ? "no double-indirect block" :
			 !ei.links_count ? "its link count is zero" :
			 !ek_is_reg(ei.mode) ? "it is not a regular file" :
			 "its double-indirect block %llu is outside the filesystem",
			 (unsigned long long)blk);
		goto bad;
	}
	at.blk = blk;
	at.has_blk = true;
	dind = ek_malloc(fs->blksz);
	ind = ek_malloc(fs->blksz);
	if (!dind || !ind) {
		err = -ENOMEM;
		goto out;
	}
	if (ek_fs_read_blocks(fs, blk, 1, dind)) {
		snprintf(why, sizeof(why), "its double-indirect block %llu cannot be read",
			 (unsigned long long)blk);
		goto bad;
	}
	gdt = ek_group_sb_gdt_blocks(fs, 0) - 1 - nres;	/* the descriptor blocks */
	for (uint32_t i = 0; i < nres && i < apb; i++) {
		ek_blk_t want = ek_group_reserved_gdt_block(fs, 0, i);
		uint32_t slot = (gdt + i) % apb, n = 0;

		if (le32_to_cpu(dind[slot]) != want) {
			snprintf(why, sizeof(why), "double-indirect block %llu entry %u is %u, "
				 "should be reserved GDT block %llu", (unsigned long long)blk,
				 slot, le32_to_cpu(dind[slot]), (unsigned long long)want);
			goto bad;
		}
		if (ek_fs_read_blocks(fs, want, 1, ind)) {
			snprintf(why, sizeof(why), "reserved GDT block %llu cannot be read",
				 (unsigned long long)want);
			goto bad;
		}
		for (uint32_t g = 1; g < fs->group_count && n < apb; g++) {
			ek_blk_t copy;

			if (!ek_group_has_super(fs, g))
				continue;
			copy = ek_group_reserved_gdt_block(fs, g, i);
			if (le32_to_cpu(ind[n]) != copy) {
				snprintf(why, sizeof(why), "block %llu entry %u is %u, should be "
					 "group %u's reserved GDT block %llu",
					 (unsigned long long)want, n, le32_to_cpu(ind[n]), g,
					 (unsigned long long)copy);
				goto bad;
			}
			n++;
		}
	}
	goto out;
bad:
	report(c, EK_PR_RESIZE_INODE_INVALID, &at, why);
out:
	free(dind);
	free(ind);
	ek_inode_release(&ei);
	return err == -ENOMEM ? err : 0;
}

/* the MMP block, as e2fsck: where it is, its magic and checksum, the update
 * interval; under -n e2fsck neither waits nor refuses a filesystem in use,
 * so a live or e2fsck sequence is a warning */
static void check_mmp(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t blk = le64_to_cpu(fs->raw_sb->s_mmp_block);
	unsigned interval = le16_to_cpu(fs->raw_sb->s_mmp_update_interval);
	static const char *const state[] = {
		[EK_MMP_FSCK] = "e2fsck is checking it", [EK_MMP_LIVE] = "a mount updates it",
		[EK_MMP_UNKNOWN] = "an unknown sequence",
	};
	struct ek_mmp m;
	int err;

	if (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_MMP))
		return;
	if (interval > EK_MMP_MAX_UPDATE_INTERVAL)
		report(c, EK_PR_MMP_INTERVAL, AT_GROUP(-1), interval, EK_MMP_MAX_UPDATE_INTERVAL);
	err = ek_mmp_block_check(fs, blk);
	if (err) {
		report(c, EK_PR_MMP_BLOCK_INVALID, AT_GROUP(-1), ek_error_msg(err));
		return;
	}
	err = ek_mmp_read(fs, &m);
	if (err) {
		report(c, EK_PR_MMP_DAMAGED, &(struct ek_finding){ .blk = blk, .has_blk = true,
		       .group = -1 }, ek_error_msg(err));
		return;
	}
	if (m.csum_bad)
		report(c, EK_PR_MMP_CHECKSUM, &(struct ek_finding){ .blk = blk, .has_blk = true,
		       .group = -1 }, (unsigned long long)blk, m.checksum, m.csum_want);
	else if (ek_mmp_seq_state(m.seq) != EK_MMP_CLEAN)
		report(c, EK_PR_MMP_IN_USE, &(struct ek_finding){ .blk = blk, .has_blk = true,
		       .group = -1 }, (unsigned long long)blk, state[ek_mmp_seq_state(m.seq)],
		       m.seq, m.nodename, m.bdevname);
}

/* an internal journal's inode must be a regular file in use */
static void check_journal_inode(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_ino_t j = fs->sb.journal_inum;

	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || !j || j > fs->sb.inodes_count)
		return;
	if (!(iflags(c, j) & IN_USE))
		report(c, EK_PR_JOURNAL_INODE_BAD, AT_INODE(j), j, "it is not in use");
	else if ((imode(c, j) & 0170000) != 0100000)
		report(c, EK_PR_JOURNAL_INODE_BAD, AT_INODE(j), j, "it is not a regular file");
}

/*
 * Inodes in a bad block of an inode table read as zeros (the scan skips
 * them): in use, as e2fsck keeps them, and left out of the other passes.
 */
static int mark_bad_itable(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (size_t i = 0; i < c->nbad; i++)
		for (uint32_t g = 0; g < fs->group_count; g++) {
			ek_blk_t it = fs->groups[g].inode_table;

			if (c->bad[i] < it || c->bad[i] - it >= fs->itable_blocks)
				continue;
			for (uint32_t k = 0; k < fs->inodes_per_block; k++) {
				uint64_t ino = (uint64_t)g * fs->sb.inodes_per_group +
					       (c->bad[i] - it) * fs->inodes_per_block + k + 1;

				if (ino <= fs->sb.inodes_count && iflags_or(c, ino, IN_USE | IN_BAD_BLOCK))
					return -ENOMEM;
			}
		}
	return 0;
}

/* ---- pass 1b: every owner of the blocks claimed twice (e2fsck 1b-1c) ---------- */

struct owner1b {
	ek_blk_t blk;
	ek_ino_t ino;		/* 0: the filesystem's metadata */
};

struct pass1b {
	struct check *c;
	ek_blk_t *dup;		/* the blocks claimed twice, sorted, unique */
	size_t ndup;
	struct owner1b *own;	/* (block, owner) pairs found */
	size_t nown, cap;
	ek_ino_t ino;		/* the inode being walked */
};

static int cmp_blk1b(const void *a, const void *b)
{
	ek_blk_t x = *(const ek_blk_t *)a, y = *(const ek_blk_t *)b;

	return x < y ? -1 : x > y;
}

static int cmp_own1b(const void *a, const void *b)
{
	const struct owner1b *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static int add_owner(struct pass1b *p, ek_blk_t blk, ek_ino_t ino)
{
	if (p->nown == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 64;
		struct owner1b *v = realloc(p->own, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->own = v;
		p->cap = cap;
	}
	p->own[p->nown++] = (struct owner1b){ blk, ino };
	return 0;
}

static int owners_in_range(struct pass1b *p, ek_blk_t first, uint64_t len)
{
	size_t lo = 0, hi = p->ndup;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->dup[mid] < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < p->ndup && p->dup[lo] - first < len; lo++) {
		int err = add_owner(p, p->dup[lo], p->ino);

		if (err)
			return err;
	}
	return 0;
}

static int owner_mapping(void *arg, const struct ek_mapping *m)
{
	return m->kind == EK_MAP_INDEX ? 0 : owners_in_range(arg, m->pblk, m->len);
}

static int owner_inode(void *arg, struct ek_inode *ei, int derr)
{
	struct pass1b *p = arg;
	struct check *c = p->c;
	int err;

	(void)derr;
	if (!(iflags(c, ei->ino) & IN_USE) || (iflags(c, ei->ino) & IN_BAD_BLOCK) ||
	    ei->ino == EXT4_BAD_INO || ei->ino == EXT4_RESIZE_INO || !has_map(c->fs, ei))
		return 0;
	p->ino = ei->ino;
	err = ek_map_walk(c->fs, ei, owner_mapping, p);
	return err == -ENOMEM ? err : 0;	/* a damaged map was named in pass 1 */
}

static int cmp_own_blk(const void *a, const void *b)
{
	const struct owner1b *x = a, *y = b;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/*
 * "inodes 19, 20 and the filesystem's metadata": the other owners of the
 * blocks @mine[0..n) of inode @self, from @byblk (the pairs by block); at
 * most 8 inodes named.  A block with one inode owner shares with metadata.
 */
static void owner_names(const struct owner1b *byblk, size_t nown, ek_ino_t self,
			const struct owner1b *mine, size_t n, char *out, size_t len)
{
	ek_ino_t named[8];
	size_t nnamed = 0, used = 0;
	bool meta = false, more = false;

	for (size_t b = 0; b < n; b++) {
		size_t lo = 0, hi = nown, owners = 0;

		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (byblk[mid].blk < mine[b].blk)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < nown && byblk[lo].blk == mine[b].blk; lo++) {
			ek_ino_t o = byblk[lo].ino;
			size_t q;

			owners++;
			if (o == self)
				continue;
			for (q = 0; q < nnamed && named[q] != o; q++)
				;
			if (q < nnamed)
				continue;
			if (nnamed < 8)
				named[nnamed++] = o;
			else
				more = true;
		}
		meta |= owners < 2;
	}
	out[0] = 0;
	for (size_t q = 0; q < nnamed && used + 16 < len; q++)
		used += snprintf(out + used, len - used, "%s%u",
				 q ? ", " : nnamed > 1 ? "inodes " : "inode ", named[q]);
	if (more && used + 8 < len)
		used += snprintf(out + used, len - used, ", ...");
	if (meta && used + 32 < len)
		snprintf(out + used, len - used, "%sthe filesystem's metadata", nnamed ? " and " : "");
}

static int pass1b(struct check *c)
{
	struct pass1b p = { .c = c };
	struct owner1b *byblk = NULL;
	int err = 0;

	if (!c->ndups)
		return 0;
	p.dup = ek_calloc(c->ndups, sizeof(*p.dup));
	if (!p.dup)
		return -ENOMEM;
	for (size_t i = 0; i < c->ndups; i++)
		p.dup[i] = c->dups[i];
	qsort(p.dup, c->ndups, sizeof(*p.dup), cmp_blk1b);
	for (size_t i = 0; i < c->ndups; i++)
		if (!p.ndup || p.dup[p.ndup - 1] != p.dup[i])
			p.dup[p.ndup++] = p.dup[i];
	err = ek_inode_scan(c->fs, owner_inode, &p);
	if (err || !p.nown)
		goto out;
	/* one finding per inode holding shared blocks, naming the others */
	byblk = ek_calloc(p.nown ? p.nown : 1, sizeof(*byblk));
	if (!byblk) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(byblk, p.own, p.nown * sizeof(*byblk));
	qsort(byblk, p.nown, sizeof(*byblk), cmp_own_blk);
	qsort(p.own, p.nown, sizeof(*p.own), cmp_own1b);
	for (size_t i = 0; i < p.nown;) {
		size_t j = i;
		char others[256];

		while (j < p.nown && p.own[j].ino == p.own[i].ino)
			j++;
		owner_names(byblk, p.nown, p.own[i].ino, p.own + i, j - i, others, sizeof(others));
		report(c, EK_PR_BLOCK_CLAIMED_TWICE, &(struct ek_finding){ .ino = p.own[i].ino,
		       .blk = p.own[i].blk, .has_blk = true, .group = -1 },
		       p.own[i].ino, (unsigned long long)(j - i), others,
		       (unsigned long long)p.own[i].blk);
		i = j;
	}
out:
	free(byblk);
	free(p.dup);
	free(p.own);
	return err;
}

/* xattr blocks are shared: mark each once, after every inode named its own
 * (pass 1 recorded them) */
static int mark_xattr(struct check *c)
{
	bool was;

	for (size_t i = 0; i < c->nx; i++) {
		int err = mark(c, c->xblk[i], &was);

		if (err)
			return err;
	}
	return 0;
}

static int cmp_blk(const void *a, const void *b)
{
	ek_blk_t x = *(const ek_blk_t *)a, y = *(const ek_blk_t *)b;

	return x < y ? -1 : x > y;
}

/* each xattr block's h_refcount against the inodes that name it */
static int check_xattr_refs(struct check *c)
{
	if (!c->nx)
		return 0;
	qsort(c->xblk, c->nx, sizeof(*c->xblk), cmp_blk);
	for (size_t i = 0, j; i < c->nx; i = j) {
		uint32_t refs;
		int err;

		for (j = i; j < c->nx && c->xblk[j] == c->xblk[i]; j++)
			;
		err = ek_xattr_block_refcount(c->fs, c->xblk[i], 0, &refs);
		if (err == -ENOMEM)
			return err;
		if (!err && refs != j - i &&
		    report(c, EK_PR_XATTR_REFCOUNT, &(struct ek_finding){ .blk = c->xblk[i],
			   .has_blk = true, .group = -1 }, (unsigned long long)c->xblk[i],
			   refs, (unsigned)(j - i)))
			fix_done(c, ek_fix_xattr_refcount(c->ws, c->xblk[i], (uint32_t)(j - i)));
	}
	return 0;
}

/* ---- pass 2 ------------------------------------------------------------------ */

struct dirwalk {
	struct check *c;
	ek_ino_t dir;
	struct dinfo *di;	/* the directory's own entry */
	bool encrypted;		/* names are ciphertext: any byte may appear */
	uint32_t policy;	/* its encryption policy (struct check's crypt) */
	int dx_version;		/* htree: the hash of its names (ek_dx_hash), or -1 */
	const struct ek_inode *ei;	/* the directory's inode (repairs edit its blocks) */
};

/* one leaf of an htree directory: the lowest and highest hash of its names */
struct dxleaf {
	uint32_t lblk, min, max;
};

static const char *type_name(uint16_t mode)
{
	switch (mode & 0170000) {
	case 0100000: return "a regular file";
	case 0040000: return "a directory";
	case 0020000: return "a character device";
	case 0060000: return "a block device";
	case 0010000: return "a fifo";
	case 0140000: return "a socket";
	case 0120000: return "a symlink";
	}
	return "of no known type";
}

static uint8_t mode_ftype(uint16_t mode)
{
	static const uint8_t ft[16] = {
		[001] = EXT4_FT_FIFO, [002] = EXT4_FT_CHRDEV, [004] = EXT4_FT_DIR,
		[006] = EXT4_FT_BLKDEV, [010] = EXT4_FT_REG_FILE, [012] = EXT4_FT_SYMLINK,
		[014] = EXT4_FT_SOCK,
	};

	return ft[(mode >> 12) & 017];
}

static uint64_t name_hash(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ (uint8_t)*p++) * 0x100000001b3ull;
	return h;
}

/* remember @name in the directory being read; 1 if seen there already */
static int name_seen(struct check *c, const char *name, size_t len)
{
	size_t i;

	if ((c->nnames + 1) * 2 > c->nslots) {
		size_t n = c->nslots ? c->nslots * 2 : 256;
		uint32_t *v = ek_calloc(n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (size_t k = 0; k < c->nslots; k++) {
			uint32_t at = c->name_slots[k];

			if (!at)
				continue;
			for (i = name_hash(c->names + at, (uint8_t)c->names[at - 1]) & (n - 1); v[i];
			     i = (i + 1) & (n - 1))
				;
			v[i] = at;
		}
		free(c->name_slots);
		c->name_slots = v;
		c->nslots = n;
	}
	for (i = name_hash(name, len) & (c->nslots - 1); c->name_slots[i]; i = (i + 1) & (c->nslots - 1)) {
		uint32_t at = c->name_slots[i];

		if ((uint8_t)c->names[at - 1] == len && !memcmp(c->names + at, name, len))
			return 1;
	}
	/* stored as a length byte then the name; offsets fit: a directory is < 4 GiB */
	if (c->names_len + len + 1 > c->names_cap) {
		size_t cap = (c->names_cap + len + 1) * 2;
		char *v = realloc(c->names, cap);

		if (!v)
			return -ENOMEM;
		c->names = v;
		c->names_cap = cap;
	}
	c->names[c->names_len] = (char)len;
	memcpy(c->names + c->names_len + 1, name, len);
	c->name_slots[i] = (uint32_t)(c->names_len + 1);
	c->names_len += len + 1;
	c->nnames++;
	return 0;
}

static bool dot_or_dotdot(const struct ek_dirent *de)
{
	return (de->name_len == 1 && de->name[0] == '.') ||
	       (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.');
}

/* ---- pass 2: htree indexes ----------------------------------------------------- */

/*
 * The hash of entry @de of the htree directory being walked, folded into
 * the range of its leaf: casefolded and encrypted directories store it
 * after the name (siphash needs the key), the others hash the name as
 * stored (an encrypted name is hashed as its ciphertext, as the kernel
 * does).  -ENOMEM, else 0.
 */
static int htree_note(struct check *c, const struct dirwalk *w, const struct ek_dirent *de)
{
	struct dxleaf *last = c->ndxl ? &c->dxl[c->ndxl - 1] : NULL;
	uint32_t hash, minor;

	if (w->dx_version == EXT4_HASH_SIPHASH) {
		if (dot_or_dotdot(de))
			return 0;	/* no hash stored: ek_dirent_check() allowed none */
		hash = get_le32((const uint8_t *)de->name + de->name_len);
	} else if (ek_dx_hash(w->dx_version, de->name, de->name_len, c->fs->sb.hash_seed,
			      &hash, &minor)) {
		return 0;
	}
	hash &= ~1u;
	if (last && last->lblk == de->lblk) {
		if (hash < last->min)
			last->min = hash;
		if (hash > last->max)
			last->max = hash;
		return 0;
	}
	if (last && last->lblk > de->lblk)
		c->dxl_unsorted = true;
	if (c->ndxl == c->dxl_cap) {
		size_t cap = c->dxl_cap ? c->dxl_cap * 2 : 64;
		struct dxleaf *v = realloc(c->dxl, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		c->dxl = v;	/* @last is stale from here */
		c->dxl_cap = cap;
	}
	c->dxl[c->ndxl++] = (struct dxleaf){ (uint32_t)de->lblk, hash, hash };
	return 0;
}

static int cmp_dxleaf(const void *a, const void *b)
{
	const struct dxleaf *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

/* a run of the directory's mapped blocks, and the index of its first among all */
struct dxrun {
	uint64_t lblk, len, rank;
	ek_blk_t pblk;
};

struct dxcheck {
	struct check *c;
	const struct ek_inode *dir;
	unsigned levels;	/* the root's indirect_levels */
	uint64_t nblocks;	/* i_size in blocks */
	struct dxrun *runs;
	size_t nruns, runs_cap;
	uint64_t nmapped;
	uint8_t *named;		/* per mapped block (by rank): an index entry names it */
};

static int dx_run_cb(void *arg, const struct ek_mapping *m)
{
	struct dxcheck *x = arg;
	uint64_t len = m->len;

	/* unwritten blocks and holes read as holes: dir.c names them */
	if (m->kind != EK_MAP_DATA || m->unwritten || m->lblk >= x->nblocks)
		return 0;
	if (len > x->nblocks - m->lblk)
		len = x->nblocks - m->lblk;
	if (x->nruns == x->runs_cap) {
		size_t cap = x->runs_cap ? x->runs_cap * 2 : 16;
		struct dxrun *v = realloc(x->runs, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		x->runs = v;
		x->runs_cap = cap;
	}
	x->runs[x->nruns++] = (struct dxrun){ m->lblk, len, 0, m->pblk };
	return 0;
}

static int cmp_dxrun(const void *a, const void *b)
{
	const struct dxrun *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

/* the run holding logical block @lblk, or NULL for a hole */
static const struct dxrun *dx_run_of(const struct dxcheck *x, uint64_t lblk)
{
	size_t lo = 0, hi = x->nruns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->runs[mid].lblk + x->runs[mid].len <= lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nruns && x->runs[lo].lblk <= lblk ? &x->runs[lo] : NULL;
}

static const struct dxleaf *dx_leaf_of(const struct check *c, uint32_t lblk)
{
	size_t lo = 0, hi = c->ndxl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->dxl[mid].lblk < lblk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ndxl && c->dxl[lo].lblk == lblk ? &c->dxl[lo] : NULL;
}

/* an index block the dx codec refused (@err, the rule in @n->fault) */
static void dx_report_fault(struct check *c, ek_ino_t dir, ek_blk_t pblk,
			    const struct ek_dx_node *n, int err)
{
	static const enum ek_problem_id id[] = {
		[EK_DX_ROOT] = EK_PR_HTREE_ROOT_BAD,
		[EK_DX_HASH_VERSION] = EK_PR_HTREE_HASH_VERSION,
		[EK_DX_ROOT_FLAGS] = EK_PR_HTREE_ROOT_FLAGS,
		[EK_DX_LEVELS] = EK_PR_HTREE_TOO_DEEP,
		[EK_DX_NOT_NODE] = EK_PR_HTREE_NOT_NODE,
		[EK_DX_LIMIT] = EK_PR_HTREE_LIMIT,
		[EK_DX_COUNT] = EK_PR_HTREE_COUNT,
		[EK_DX_BLOCK] = EK_PR_HTREE_BAD_BLOCK,
		[EK_DX_ORDER] = EK_PR_HTREE_ORDER,
	};
	struct ek_finding at = { .ino = dir, .blk = pblk, .has_blk = true, .group = -1 };

	/* a bad checksum alone: the entry walk named it (DIR_DAMAGED) */
	if (n->fault == EK_DX_OK || n->fault == EK_DX_CSUM ||
	    n->fault >= sizeof(id) / sizeof(id[0]))
		return;
	report(c, id[n->fault], &at, ek_error_msg(err));
}

/*
 * The entries of index block @n (logical block @lblk) at @depth (root: 0),
 * whose names must hash into [@lo, @hi]: each child named once, read as
 * an interior node above the leaves, its leaf's hashes checked at the
 * bottom.  Each block is visited once (a second name is a finding), so a
 * hostile index costs at most a read per directory block.  Returns 0, 1
 * when an index block is unusable (named; the index is then given up, as
 * a repair rebuilds it: the blocks below it are not named unreferenced),
 * or -ENOMEM.
 */
static int dx_walk(struct dxcheck *x, const struct ek_dx_node *n, uint32_t lblk, unsigned depth,
		   uint32_t lo, uint32_t hi)
{
	struct check *c = x->c;
	struct ek_fs *fs = c->fs;

	for (unsigned i = 0; i < n->count; i++) {
		uint32_t b = ek_dx_entry_block(n, i), elo = lo, ehi = hi;
		const struct dxrun *r = dx_run_of(x, b);
		struct ek_finding at = { .ino = x->dir->ino, .group = -1 };
		uint64_t k;
		ek_blk_t pb;

		/* entry i covers [hash i, hash i+1], without the continuation bit */
		if (i && (ek_dx_entry_hash(n, i) & ~1u) > elo)
			elo = ek_dx_entry_hash(n, i) & ~1u;
		if (i + 1 < n->count && (ek_dx_entry_hash(n, i + 1) & ~1u) < ehi)
			ehi = ek_dx_entry_hash(n, i + 1) & ~1u;
		if (!r) {
			ek_corrupt_ino(x->dir->ino, "htree directory: entry %u of index block %u points to block %u, which is not allocated",
				       i, lblk, b);
			report(c, EK_PR_HTREE_BAD_BLOCK, &at, ek_error_msg(-EK_CORRUPT));
			return 1;
		}
		k = r->rank + (b - r->lblk);
		pb = r->pblk + (b - r->lblk);
		at.blk = pb;
		at.has_blk = true;
		if (ek_bit_test(x->named, k)) {
			report(c, EK_PR_HTREE_REFERENCED_TWICE, &at, x->dir->ino, b,
			       (unsigned long long)pb);
			continue;
		}
		x->named[k >> 3] |= 1u << (k & 7);
		if (depth < x->levels) {
			uint8_t *buf = c->dxbuf + (size_t)(depth + 1) * fs->blksz;
			struct ek_dx_node child;
			int err = ek_fs_read_blocks(fs, pb, 1, buf);

			if (err == -ENOMEM)
				return err;
			if (err)
				continue;	/* the entry walk read it too and named it */
			err = ek_dx_node_parse(fs, x->dir, pb, buf, &child);
			if (err && err != -EK_BADCRC) {
				dx_report_fault(c, x->dir->ino, pb, &child, err);
				return 1;
			}
			err = dx_walk(x, &child, b, depth + 1, elo, ehi);
			if (err)
				return err;
		} else {
			const struct dxleaf *l = dx_leaf_of(c, b);

			if (l && (l->min < elo || l->max > ehi))
				report(c, EK_PR_HTREE_HASH_RANGE, &at, x->dir->ino, b,
				       (unsigned long long)pb, l->min, l->max, elo, ehi);
		}
	}
	return 0;
}

static int pass2_entry(void *arg, const struct ek_dirent *de)
{
	struct dirwalk *w = arg;
	struct check *c = w->c;
	struct ek_fs *fs = c->fs;
	char name[256];
	struct ek_finding at = { .ino = de->ino, .dir = w->dir, .group = -1 };
	bool clearable;
	int seen;

	memcpy(name, de->name, de->name_len);
	name[de->name_len] = 0;
	/* block 0 is the htree root: its '.' and '..' are no leaf's */
	if (w->dx_version >= 0 && de->lblk && htree_note(c, w, de))
		return -ENOMEM;
	if (de->name_len == 2 && !memcmp(de->name, "..", 2)) {
		w->di->parent = de->ino;
	}
	if (!w->encrypted && (memchr(de->name, '/', de->name_len) || memchr(de->name, 0, de->name_len)))
		report(c, EK_PR_ENTRY_BAD_NAME, &at, name, w->dir);
	/* e2fsck: the byte after '.' or '..' is a NUL (a record holds it) */
	if (dot_or_dotdot(de) && de->rec_len >= 12 && de->name[de->name_len])
		report(c, EK_PR_ENTRY_DOT_UNTERMINATED, &at, name, w->dir);
	seen = name_seen(c, de->name, de->name_len);
	if (seen < 0)
		return seen;
	if (seen)
		report(c, EK_PR_ENTRY_DUPLICATE, &at, name, w->dir);
	/* an entry is cleared (not '.' or '..', which pass 3 owns), as e2fsck */
	clearable = !dot_or_dotdot(de) && !de->deleted && !ek_inode_has_inline(w->ei);
	if (de->ino > fs->sb.inodes_count || (de->ino < fs->sb.first_ino &&
					     de->ino != EXT4_ROOT_INO && de->ino != 0)) {
		if (report_if(c, clearable, EK_PR_ENTRY_BAD_INODE, &at, name, w->dir, de->ino))
			fix_done(c, ek_fix_dirent_clear(c->ws, w->ei, de));
		return 0;
	}
	if (!(iflags(c, de->ino) & IN_USE)) {
		if (report_if(c, clearable, EK_PR_ENTRY_UNUSED_INODE, &at, name, w->dir, de->ino))
			fix_done(c, ek_fix_dirent_clear(c->ws, w->ei, de));
		return 0;
	}
	/* its inode cannot be read: e2fsck would clear the entry */
	if (iflags(c, de->ino) & IN_BAD_BLOCK)
		report(c, EK_PR_ENTRY_INODE_IN_BAD_BLOCK, &at, name, w->dir, de->ino);
	if (ref_add(c, de->ino))
		return -ENOMEM;
	if (w->policy && !dot_or_dotdot(de)) {
		uint32_t p = c->crypt[de->ino];
		uint16_t t = imode(c, de->ino);

		if (de->name_len < EK_CRYPT_NAME_MIN)
			report(c, EK_PR_ENTRY_ENCRYPTED_SHORT, &at, name, w->dir, de->name_len,
			       EK_CRYPT_NAME_MIN);
		/* devices, fifos and sockets are not encrypted; the rest
		 * share their directory's policy (fscrypt_has_permitted_context) */
		if (p == w->policy)
			;
		else if (!p && (t == 0100000 || t == 0040000 || t == 0120000))
			report(c, EK_PR_ENTRY_UNENCRYPTED, &at, name, w->dir, de->ino);
		else if (p)
			report(c, EK_PR_ENTRY_ENCRYPT_POLICY, &at, name, w->dir, de->ino);
	}
	/* a directory has one name: its parent in pass 3 */
	if ((iflags(c, de->ino) & IS_DIR) && !dot_or_dotdot(de)) {
		struct dinfo *d = dinfo_of(c, de->ino);

		if (!d || d->named_in || de->ino == EXT4_ROOT_INO)
			report(c, EK_PR_ENTRY_DIR_LINK, &at, name, w->dir, de->ino);
		else
			d->named_in = w->dir;
	}
	/* the Hurd keeps no file types, whatever the feature says (e2fsck) */
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE) &&
	    le32_to_cpu(fs->raw_sb->s_creator_os) != 1 /* EXT4_OS_HURD */ &&
	    !(iflags(c, de->ino) & IN_BAD_BLOCK) && de->file_type != mode_ftype(imode(c, de->ino)) &&
	    report_if(c, !ek_inode_has_inline(w->ei) && !de->deleted, EK_PR_ENTRY_FILETYPE, &at,
		      name, w->dir, de->file_type, de->ino, type_name(imode(c, de->ino))))
		fix_done(c, ek_fix_dirent_type(c->ws, w->ei, de, mode_ftype(imode(c, de->ino))));
	return 0;
}

/*
 * Directory inode @ino into @out (ek_inode_decode: freed by
 * ek_inode_release), its inode table block kept in @blk (@at, @have):
 * directories come in inode order, often several to a block, and one block
 * costs less memory than the chunk cache of ek_inode_read().
 */
static int dir_inode_read(struct ek_fs *fs, ek_ino_t ino, uint8_t *blk, ek_blk_t *at, bool *have,
			  struct ek_inode *out)
{
	ek_blk_t b;
	uint32_t off;
	int err;

	memset(out, 0, sizeof(*out));
	err = ek_inode_loc(fs, ino, &b, &off);
	if (err)
		return err;
	if (!*have || *at != b) {
		*have = false;
		err = ek_fs_read_blocks(fs, b, 1, blk);
		if (err)
			return err;
		*have = true;
		*at = b;
	}
	return ek_inode_decode(fs, ino, blk + off, out);
}

/*
 * The root of htree directory @dir, read into c->dxbuf and checked before
 * the entry walk, which then hashes the names by its hash version:
 * 1 when the index is usable (*root filled), 0 when not (a finding made,
 * or an unreadable block 0 the entry walk names), -ENOMEM.
 */
static int htree_root(struct check *c, struct dirwalk *w, const struct ek_inode *dir,
		      struct ek_dx_node *root)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t pblk;
	int err, v;

	if (!c->dxbuf && !(c->dxbuf = ek_calloc(3, fs->blksz)))
		return -ENOMEM;
	err = ek_dir_read_block(fs, dir, 0, c->dxbuf, &pblk);
	if (err)
		return err == -ENOMEM ? err : 0;
	err = ek_dx_root_parse(fs, dir, pblk, c->dxbuf, root);
	if (err && err != -EK_BADCRC) {
		dx_report_fault(c, dir->ino, pblk, root, err);
		return 0;
	}
	/* casefolded names hash after Unicode folding: their ranges are not checked */
	v = ek_dx_hash_version(fs, root->hash_version);
	if (v == EXT4_HASH_SIPHASH || !(dir->flags & EXT4_CASEFOLD_FL))
		w->dx_version = v;
	return 1;
}

/*
 * After the entry walk of htree directory @dir noted its leaves' hashes:
 * walk the index from @root (in c->dxbuf), then name the blocks in use
 * that no entry named.
 */
static int htree_check(struct check *c, const struct ek_inode *dir, const struct ek_dx_node *root)
{
	struct ek_fs *fs = c->fs;
	struct dxcheck x = { .c = c, .dir = dir, .levels = root->indirect_levels,
			     .nblocks = (dir->size + fs->blksz - 1) >> fs->log_blksz };
	int err;

	if (c->dxl_unsorted)
		qsort(c->dxl, c->ndxl, sizeof(*c->dxl), cmp_dxleaf);
	err = ek_map_walk(fs, dir, dx_run_cb, &x);
	if (err == -ENOMEM)
		goto out;
	err = 0;	/* a damaged map: the runs read so far (pass 1 named it) */
	if (x.nruns > 1)
		qsort(x.runs, x.nruns, sizeof(*x.runs), cmp_dxrun);
	for (size_t i = 0; i < x.nruns; i++) {
		x.runs[i].rank = x.nmapped;
		x.nmapped += x.runs[i].len;
	}
	/* mapped blocks lie in the filesystem: the bitmap is bounded by its size */
	x.named = ek_calloc((x.nmapped + 7) / 8, 1);
	if (!x.named) {
		err = -ENOMEM;
		goto out;
	}
	if (x.nruns && x.runs[0].lblk == 0)
		x.named[0] |= 1;	/* the root */
	err = dx_walk(&x, root, 0, 0, 0, UINT32_MAX);
	for (size_t i = 0; i < x.nruns && err == 0; i++)
		for (uint64_t k = 0; k < x.runs[i].len; k++) {
			uint64_t rank = x.runs[i].rank + k;

			if (ek_bit_test(x.named, rank))
				continue;
			report(c, EK_PR_HTREE_UNREFERENCED, &(struct ek_finding){ .ino = dir->ino,
			       .blk = x.runs[i].pblk + k, .has_blk = true, .group = -1 },
			       dir->ino, (unsigned)(x.runs[i].lblk + k),
			       (unsigned long long)(x.runs[i].pblk + k));
		}
out:
	free(x.runs);
	free(x.named);
	return err < 0 ? err : 0;
}

static int pass2(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint8_t *iblk = ek_malloc(fs->blksz);
	ek_blk_t iblk_at = 0;
	bool iblk_have = false;

	if (!iblk)
		return -ENOMEM;

	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino;
		struct dirwalk w = { .c = c, .dir = ino, .di = &c->dirs[d], .dx_version = -1 };
		struct ek_dx_node root;
		struct ek_inode ei;
		int err, dx = 0;

		units(c, 2, d, c->ndirs);
		if ((iflags(c, ino) & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR))
			continue;
		c->sum->dirs++;
		c->nnames = c->names_len = 0;
		if (c->name_slots)
			memset(c->name_slots, 0, c->nslots * sizeof(*c->name_slots));
		c->ndxl = 0;
		c->dxl_unsorted = false;
		err = dir_inode_read(fs, ino, iblk, &iblk_at, &iblk_have, &ei);
		w.encrypted = ei.flags & EXT4_ENCRYPT_FL;
		w.ei = &ei;
		w.policy = c->crypt ? c->crypt[ino] : 0;
		if ((!err || err == -EK_BADCRC) && ek_dir_is_htree(fs, &ei))
			dx = htree_root(c, &w, &ei, &root);
		if (dx < 0) {
			ek_inode_release(&ei);
			free(iblk);
			return dx;
		}
		if (!err || err == -EK_BADCRC)
			err = ek_dir_iterate(fs, &ei, 0, pass2_entry, &w);
		if (err && err != -ENOMEM)
			report(c, EK_PR_DIR_DAMAGED, AT_INODE(ino), ek_error_msg(err));
		if (dx && err != -ENOMEM)
			err = htree_check(c, &ei, &root);
		ek_inode_release(&ei);
		if (err == -ENOMEM) {
			free(iblk);
			return err;
		}
	}
	free(iblk);
	units(c, 2, c->ndirs, c->ndirs);
	return 0;
}

/* ---- pass 3 and 4 ------------------------------------------------------------- */

/*
 * Every directory reaches the root through the directories whose entries
 * name it (as e2fsck, not through '..'), then its '..' must be that parent.
 */
static void pass3(struct check *c)
{
	struct ek_fs *fs = c->fs;
	struct dinfo *root = dinfo_of(c, EXT4_ROOT_INO);

	if (!(iflags(c, EXT4_ROOT_INO) & IS_DIR) || !root) {
		report(c, EK_PR_ROOT_NOT_DIR, AT_INODE(EXT4_ROOT_INO));
		return;
	}
	iflags_or(c, EXT4_ROOT_INO, REACHED);	/* in use: no allocation */
	root->named_in = EXT4_ROOT_INO;
	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino, p = ino;
		uint64_t steps = 0;

		units(c, 3, d, c->ndirs);
		if ((iflags(c, ino) & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR) ||
		    reserved_ino(fs, ino) || (iflags(c, ino) & IN_BAD_BLOCK))
			continue;
		/* up to a reached directory; a loop or a dead end fails */
		while (!(iflags(c, p) & REACHED) && named_in_of(c, p) &&
		       steps++ <= fs->sb.inodes_count)
			p = named_in_of(c, p);
		if (iflags(c, p) & REACHED) {
			for (ek_ino_t q = ino; !(iflags(c, q) & REACHED); q = named_in_of(c, q))
				iflags_or(c, q, REACHED);
		} else {
			report(c, EK_PR_DIR_UNCONNECTED, AT_INODE(ino), ino, c->dirs[d].parent);
		}
	}
	/* only directories are reached */
	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino;

		if ((iflags(c, ino) & REACHED) && c->dirs[d].parent != c->dirs[d].named_in &&
		    report(c, EK_PR_DOTDOT_WRONG, AT_INODE(ino), ino, c->dirs[d].parent,
			   c->dirs[d].named_in)) {
			ek_ino_t old = c->dirs[d].parent;
			int err = ek_fix_dotdot(c->ws, ino, c->dirs[d].named_in);

			/* pass 4 counts the new '..' and not the old one */
			if (!err && (iflags(c, old) & IN_USE))
				ref_drop(c, old);
			if (!err)
				err = ref_add(c, c->dirs[d].named_in);
			if (!err)
				c->dirs[d].parent = c->dirs[d].named_in;
			fix_done(c, err);
		}
	}
	units(c, 3, c->ndirs, c->ndirs);
}

/* pass 4 for inode @ino */
static void pass4_inode(struct check *c, ek_ino_t ino)
{
	struct ek_fs *fs = c->fs;
	uint32_t want = refs_of(c, ino), links = links_of(c, ino);

	if (!(iflags(c, ino) & IN_USE) || reserved_ino(fs, ino) || sb_ino(fs, ino) ||
	    (iflags(c, ino) & (IS_EA | IN_BAD_BLOCK)))
		return;
	if (!want) {
		report(c, EK_PR_INODE_UNATTACHED, AT_INODE(ino), ino);
		return;
	}
	/* dir_nlink: a directory past EXT4_LINK_MAX counts 1 */
	if ((iflags(c, ino) & IS_DIR) && links == 1 && want > 65000 &&
	    ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK))
		want = 1;
	if (links != want && report(c, EK_PR_LINK_COUNT_WRONG, AT_INODE(ino), ino, links, want))
		fix_done(c, ek_fix_inode(c->ws, ino, EK_IFIX_LINKS, want));
}

static int pass4(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint32_t ipg = fs->sb.inodes_per_group;

	/* the inodes in use are in the groups' state, in inode order */
	for (uint32_t g = 0; g < fs->group_count; g++) {
		units(c, 4, g, fs->group_count);
		for (uint32_t i = 0; i < c->ig[g].n; i++)
			pass4_inode(c, (ek_ino_t)g * ipg + i + 1);
	}
	units(c, 4, fs->group_count, fs->group_count);
	return 0;
}

/* ---- pass 5 ------------------------------------------------------------------- */

/* "+5 -(7--9)": bits set in @want and not in @have are "+", the reverse "-" */
static void bitmap_diff(const uint8_t *have, const uint8_t *want, uint64_t nbits, uint64_t base,
			uint64_t scale, char *out, size_t outlen, uint64_t *ndiff)
{
	size_t used = 0;

	*ndiff = 0;
	out[0] = 0;
	for (uint64_t b = 0; b < nbits;) {
		bool h, w;
		uint64_t e = b + 1, hw, ww = 0;

		/* 64 equal bits at a time */
		if (!(b & 63) && b + 64 <= nbits) {
			memcpy(&hw, have + (b >> 3), 8);
			if (want)
				memcpy(&ww, want + (b >> 3), 8);
			if (hw == ww) {
				b += 64;
				continue;
			}
		}
		h = ek_bit_test(have, b);
		w = want && ek_bit_test(want, b);
		if (h == w) {
			b++;
			continue;
		}
		while (e < nbits && ek_bit_test(have, e) == h && (want && ek_bit_test(want, e)) == w)
			e++;
		*ndiff += e - b;
		if (used + 48 < outlen) {
			unsigned long long s = base + b * scale, l = base + (e - 1) * scale;

			used += s == l ? snprintf(out + used, outlen - used, " %c%llu", w ? '+' : '-', s) :
					 snprintf(out + used, outlen - used, " %c(%llu--%llu)",
						  w ? '+' : '-', s, l);
		} else if (used + 5 < outlen && out[used - 1] != '.') {
			used += snprintf(out + used, outlen - used, " ...");
		}
		b = e;
	}
}

/* is the bitmap on disk and checksummed (an uninit group's is computed)? */
static bool csum_checked(const struct ek_fs *fs, const struct ek_group *grp, bool inode)
{
	return fs->has_csum &&
	       !(grp->flags & (inode ? EXT4_BG_INODE_UNINIT : EXT4_BG_BLOCK_UNINIT));
}

/* the clusters set in the first @nbits bits of @map */
static uint64_t bits_set(const uint8_t *map, uint64_t nbits)
{
	uint64_t n = 0, b = 0;

	for (; b + 64 <= nbits; b += 64) {
		uint64_t w;

		memcpy(&w, map + (b >> 3), 8);
		n += (uint64_t)__builtin_popcountll(w);
	}
	for (; b < nbits; b++)
		n += ek_bit_test(map, b);
	return n;
}

static int pass5(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t free_blocks = 0, desc_free_blocks = 0;
	uint32_t free_inodes = 0, desc_free_inodes = 0;
	/* one group at a time: what we computed, and what the image holds */
	uint8_t *want_i = ek_calloc(1, fs->blksz), *want_b = ek_calloc(1, fs->blksz);
	uint8_t *have_i = ek_malloc(fs->blksz), *have_b = ek_malloc(fs->blksz);
	char diff[512];
	int ret = 0;

	if (!want_i || !want_b || !have_i || !have_b) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		uint64_t nclusters = ((uint64_t)ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >>
				     fs->cluster_bits;
		uint32_t gfree, ifree = 0, dirs = 0, nino, nscan;
		const uint8_t *want = c->bmap[g];
		uint64_t ndiff;
		int err = ek_bitmap_read(fs, g, false, have_b);

		units(c, 5, g, fs->group_count);
		if (!want) {
			/* nothing claimed here: its metadata only */
			memset(want_b, 0, fs->blksz);
			paint_meta(c, g, want_b);
			want = want_b;
		}
		gfree = (uint32_t)(nclusters - bits_set(want, nclusters));
		free_blocks += (uint64_t)gfree << fs->cluster_bits;
		if (err) {
			report(c, EK_PR_BITMAP_UNREADABLE, AT_GROUP(g), g, ek_error_msg(err));
		} else {
			if (csum_checked(fs, grp, false) &&
			    ek_bitmap_csum(fs, have_b, false) != grp->block_bitmap_csum &&
			    report(c, EK_PR_BITMAP_CHECKSUM, AT_GROUP(g), g, "block"))
				fix_done(c, ek_fix_group_bitmap(c->ws, g, false, have_b, 0));
			bitmap_diff(have_b, want, nclusters, ek_group_first_block(fs, g),
				    ek_cluster_ratio(fs), diff, sizeof(diff), &ndiff);
			if (ndiff && report_if(c, !c->claims_incomplete, EK_PR_BLOCK_BITMAP_DIFFERS,
					       AT_GROUP(g), g, diff))
				fix_done(c, ek_fix_group_bitmap(c->ws, g, false, want, nclusters));
		}
		desc_free_blocks += (uint64_t)grp->free_blocks << fs->cluster_bits;
		desc_free_inodes += grp->free_inodes;
		if (grp->free_blocks != gfree &&
		    report_if(c, !c->claims_incomplete, EK_PR_GROUP_FREE_BLOCKS, AT_GROUP(g), g,
			      grp->free_blocks, gfree))
			fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_FREE_BLOCKS, gfree));

		/* the group's inodes (the last group may hold fewer); only those
		 * with state, or reserved, are looked at one by one */
		nino = (uint64_t)g * ipg >= fs->sb.inodes_count ? 0 :
		       fs->sb.inodes_count - (uint64_t)g * ipg < ipg ?
		       (uint32_t)(fs->sb.inodes_count - (uint64_t)g * ipg) : ipg;
		nscan = c->ig[g].n < nino ? c->ig[g].n : nino;
		if ((uint64_t)g * ipg + 1 < fs->sb.first_ino &&
		    fs->sb.first_ino - 1 - (uint64_t)g * ipg > nscan)
			nscan = fs->sb.first_ino - 1 - (uint64_t)g * ipg < nino ?
				(uint32_t)(fs->sb.first_ino - 1 - (uint64_t)g * ipg) : nino;
		memset(want_i, 0, fs->blksz);
		for (uint32_t i = 0; i < nscan; i++) {
			ek_ino_t ino = (ek_ino_t)g * ipg + i + 1;
			uint8_t fl = iflags(c, ino);

			/* the reserved inodes are always in use */
			if ((fl & IN_USE) || ino < fs->sb.first_ino) {
				want_i[i >> 3] |= 1u << (i & 7);
				c->sum->inodes_used++;
			} else {
				ifree++;
			}
			dirs += (fl & (IN_USE | IS_DIR)) == (IN_USE | IS_DIR);
		}
		ifree += nino - nscan;
		free_inodes += ifree;
		if (c->o->bitmaps)
			c->o->bitmaps(c->o->arg, g, want, nclusters, want_i, ipg);
		err = ek_bitmap_read(fs, g, true, have_i);
		if (err) {
			report(c, EK_PR_BITMAP_UNREADABLE, AT_GROUP(g), g, ek_error_msg(err));
		} else {
			if (csum_checked(fs, grp, true) &&
			    ek_bitmap_csum(fs, have_i, true) != grp->inode_bitmap_csum &&
			    report(c, EK_PR_BITMAP_CHECKSUM, AT_GROUP(g), g, "inode"))
				fix_done(c, ek_fix_group_bitmap(c->ws, g, true, have_i, 0));
			bitmap_diff(have_i, want_i, ipg, (uint64_t)g * ipg + 1, 1, diff, sizeof(diff),
				    &ndiff);
			if (ndiff && report(c, EK_PR_INODE_BITMAP_DIFFERS, AT_GROUP(g), g, diff))
				fix_done(c, ek_fix_group_bitmap(c->ws, g, true, want_i, ipg));
		}
		if (grp->free_inodes != ifree &&
		    report(c, EK_PR_GROUP_FREE_INODES, AT_GROUP(g), g, grp->free_inodes, ifree))
			fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_FREE_INODES, ifree));
		if (grp->used_dirs != dirs &&
		    report(c, EK_PR_GROUP_DIRS, AT_GROUP(g), g, grp->used_dirs, dirs))
			fix_done(c, ek_fix_group_count(c->ws, g, EK_GD_USED_DIRS, dirs));
	}
	units(c, 5, fs->group_count, fs->group_count);
	c->sum->blocks_used = fs->sb.blocks_count - free_blocks;
	/*
	 * The kernel keeps the superblock's totals in memory and seldom writes
	 * them: like e2fsck, take them as the sum of the group counts, and
	 * report the totals only where those are wrong.
	 */
	if (desc_free_blocks != free_blocks &&
	    report_if(c, !c->claims_incomplete, EK_PR_FREE_BLOCKS, AT_GROUP(-1),
		      (unsigned long long)desc_free_blocks, (unsigned long long)free_blocks))
		fix_done(c, ek_fix_super_counts(c->ws, free_blocks, free_inodes));
	if (desc_free_inodes != free_inodes &&
	    report(c, EK_PR_FREE_INODES, AT_GROUP(-1), desc_free_inodes, free_inodes))
		fix_done(c, ek_fix_super_counts(c->ws, c->claims_incomplete ?
						fs->sb.free_blocks_count : free_blocks, free_inodes));
	/* a repaired image gets the superblock's totals right too, as e2fsck
	 * sets them (they are the sum of the groups' when the kernel reads them) */
	if (c->ws && !c->claims_incomplete &&
	    (c->sum->fixed[EK_SEV_ERROR] || c->sum->fixed[EK_SEV_WARNING]) &&
	    (fs->sb.free_blocks_count != free_blocks || fs->sb.free_inodes_count != free_inodes))
		ret = ek_fix_super_counts(c->ws, free_blocks, free_inodes);
out:
	free(want_i);
	free(want_b);
	free(have_i);
	free(have_b);
	return ret;
}

/* ---- quota, after pass 5 (e2fsck's quota_compare_and_update) ------------------- */

/* inode numbers e2fsck's e2fsck_validate_quota_inodes() refuses */
static bool quota_ino_invalid(const struct ek_fs *fs, ek_ino_t ino)
{
	return ino == EXT4_BAD_INO || ino == EXT4_ROOT_INO || ino == 5 /* boot loader */ ||
	       ino == 6 /* undelete directory */ || ino == EXT4_RESIZE_INO ||
	       ino == EXT4_JOURNAL_INO || ino == 9 /* exclude */ || ino == 10 /* replica */ ||
	       ino > fs->sb.inodes_count;
}

/* the types whose usage pass 1 counts; a quota inode no inode can be is named */
static void quota_setup(struct check *c)
{
	struct ek_fs *fs = c->fs;

	if (!ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_QUOTA))
		return;
	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		ek_ino_t ino = ek_quota_inum(fs, t);

		if (!ino)
			continue;
		if (quota_ino_invalid(fs, ino)) {
			report(c, EK_PR_QUOTA_INODE_INVALID, AT_INODE(ino), ino,
			       ek_quota_type_name(t));
			continue;
		}
		c->quota_on[t] = true;
	}
}

static int quota_compare(struct check *c, unsigned t, ek_ino_t ino, const struct ek_quota *q)
{
	struct ek_quota_usage *u;
	const char *name = ek_quota_type_name(t);
	size_t n = c->quota[t].count, i = 0, j = 0;
	int err = ek_quota_tally_sorted(&c->quota[t], &u);

	if (err)
		return err;
	/* both lists ascend by id: merge them */
	while (i < q->count || j < n) {
		const struct ek_dquot *d = i < q->count ? &q->dq[i] : NULL;
		const struct ek_quota_usage *cu = j < n ? &u[j] : NULL;

		if (d && (!cu || d->id < cu->id)) {
			/* nothing counted for this id */
			if (d->curspace || d->curinodes)
				report(c, EK_PR_QUOTA_USAGE_WRONG, AT_INODE(ino), name, d->id,
				       (unsigned long long)d->curspace,
				       (unsigned long long)d->curinodes, 0ull, 0ull);
			i++;
		} else if (!d || cu->id < d->id) {
			if (!cu->uncertain && (cu->space || cu->inodes))
				report(c, EK_PR_QUOTA_ENTRY_MISSING, AT_INODE(ino), name, cu->id,
				       (unsigned long long)cu->space, (unsigned long long)cu->inodes);
			j++;
		} else {
			if (!cu->uncertain && (d->curspace != cu->space || d->curinodes != cu->inodes))
				report(c, EK_PR_QUOTA_USAGE_WRONG, AT_INODE(ino), name, d->id,
				       (unsigned long long)d->curspace,
				       (unsigned long long)d->curinodes,
				       (unsigned long long)cu->space, (unsigned long long)cu->inodes);
			i++;
			j++;
		}
	}
	free(u);
	return 0;
}

static int check_quota(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		ek_ino_t ino = ek_quota_inum(fs, t);
		const char *name = ek_quota_type_name(t);
		struct ek_quota q;
		int err;

		if (!c->quota_on[t])
			continue;
		if (!(iflags(c, ino) & IN_USE)) {
			report(c, EK_PR_QUOTA_INODE_BAD, AT_INODE(ino), name, ino, "not in use");
			continue;
		}
		if (imode(c, ino) != 0100000) {
			report(c, EK_PR_QUOTA_INODE_BAD, AT_INODE(ino), name, ino,
			       "not a regular file");
			continue;
		}
		if (iflags(c, ino) & IN_BAD_BLOCK)
			continue;
		err = ek_quota_read(fs, ino, t, &q);
		if (err == -ENOMEM)
			return err;
		if (err)
			report(c, EK_PR_QUOTA_FILE_DAMAGED, AT_INODE(ino), ek_error_msg(err));
		else
			err = quota_compare(c, t, ino, &q);
		ek_quota_release(&q);
		if (err == -ENOMEM)
			return err;
	}
	return 0;
}

/* ---- the whole check ----------------------------------------------------------- */


/* groups [@g, @end): the first whose tables lie outside the filesystem */
static int desc_check(const struct ek_fs *fs, uint32_t g, uint32_t end)
{
	for (; g < end; g++) {
		const struct ek_group *grp = &fs->groups[g];

		if (!ek_fs_block_valid(fs, grp->block_bitmap))
			return ek_corrupt_grp(g, "block bitmap at block %llu is outside the filesystem",
					      (unsigned long long)grp->block_bitmap);
		if (!ek_fs_block_valid(fs, grp->inode_bitmap))
			return ek_corrupt_grp(g, "inode bitmap at block %llu is outside the filesystem",
					      (unsigned long long)grp->inode_bitmap);
		if (!ek_fs_range_valid(fs, grp->inode_table, fs->itable_blocks))
			return ek_corrupt_grp(g, "inode table at block %llu is outside the filesystem",
					      (unsigned long long)grp->inode_table);
	}
	return 0;
}

int ek_fsck_desc_check(const struct ek_fs *fs)
{
	return desc_check(fs, 0, fs->group_count);
}

int ek_fsck_check(struct ek_fs *fs, const struct ek_fsck_opts *o, struct ek_fsck_summary *sum)
{
	struct check c = { .fs = fs, .o = o, .sum = sum };
	int err;

	memset(sum, 0, sizeof(*sum));
	/* the per-inode state grows with the inodes in use, each in an inode
	 * table the image holds: a count it cannot hold is damage first */
	if ((uint64_t)fs->sb.inodes_count * fs->inode_size > ek_io_size(fs->io) + (1ull << 20))
		return ek_corrupt_fs("superblock: %u inodes of %u bytes do not fit in the image's "
				     "%llu bytes", fs->sb.inodes_count, fs->inode_size,
				     (unsigned long long)ek_io_size(fs->io));
	sum->inodes_count = fs->sb.inodes_count;
	sum->blocks_count = fs->sb.blocks_count;
	/* per group: a pointer and a few words (the group count is bounded by
	 * the descriptors the image holds) */
	c.bmap = ek_calloc(fs->group_count, sizeof(*c.bmap));
	c.ig = ek_calloc(fs->group_count, sizeof(*c.ig));
	err = c.bmap && c.ig ? 0 : -ENOMEM;
	if (!err && o->repair) {
		/* every write of the repair (journal, homes) is saved in the undo file first */
		if (!(fs->flags & EK_OPEN_RW))
			err = ek_err(-EINVAL, "repair needs the filesystem opened read-write");
		if (!err && o->undo)
			err = ek_io_set_undo(fs->io, o->undo);
		if (!err)
			err = ek_wset_init(fs, &c.ws);
	}
	if (o->journal_refused)
		report(&c, EK_PR_JOURNAL_REFUSED, AT_GROUP(-1), o->journal_refused_step,
		       o->journal_refused);
	if (o->journal_err)
		report(&c, EK_PR_JOURNAL_UNUSABLE, AT_INODE(fs->sb.journal_inum),
		       ek_error_msg(o->journal_err));
	if (o->journal_sb_bad)
		report(&c, EK_PR_JOURNAL_SUPERBLOCK_BAD, AT_INODE(fs->sb.journal_inum), o->journal_sb_bad);
	if (o->backup_sb)
		report(&c, EK_PR_BACKUP_SUPERBLOCK, AT_GROUP(-1), o->backup_why ? o->backup_why : "",
		       (unsigned long long)o->backup_sb);
	quota_setup(&c);
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		int bad = desc_check(fs, g, g + 1);

		if (bad)
			report(&c, EK_PR_GROUP_DESC_DAMAGED, AT_GROUP(g), ek_error_msg(bad));
		/* a descriptor naming blocks outside the filesystem keeps its bad
		 * checksum: relocating its tables is not built yet */
		if (grp->csum_bad &&
		    report_if(&c, !bad, EK_PR_GROUP_DESC_CHECKSUM, AT_GROUP(g), g, grp->checksum,
			      ek_group_desc_csum(fs, g, fs->gd_raw + (size_t)g * fs->desc_size))) {
			uint8_t *d;

			fix_done(&c, ek_wset_desc(c.ws, g, &d));	/* seal sets it */
		}
	}
	if (!err)
		err = check_resize_inode(&c);
	if (!err)
		check_mmp(&c);
	if (!err)
		err = commit(&c);	/* pass 0's fixes */
	if (!err)
		err = mark_metadata(&c);
	if (!err && o->progress)
		o->progress(o->arg, 1);
	if (!err)
		units(&c, 1, 0, fs->group_count);
	if (!err)
		err = ek_inode_scan(fs, pass1_inode, &c);
	if (!err)
		err = mark_bad_itable(&c);
	if (!err)
		check_journal_inode(&c);
	if (!err)
		err = pass1b(&c);
	if (!err)
		err = mark_xattr(&c);
	if (!err)
		err = check_xattr_refs(&c);
	if (!err)
		units(&c, 1, fs->group_count, fs->group_count);
	if (!err)
		err = commit(&c);
	if (!err && o->progress)
		o->progress(o->arg, 2);
	if (!err)
		err = pass2(&c);
	if (!err)
		err = commit(&c);
	if (!err && o->progress)
		o->progress(o->arg, 3);
	if (!err)
		pass3(&c);
	if (!err)
		err = commit(&c);
	if (!err && o->progress)
		o->progress(o->arg, 4);
	if (!err)
		err = pass4(&c);
	if (!err)
		err = commit(&c);
	if (!err && o->progress)
		o->progress(o->arg, 5);
	if (!err)
		err = pass5(&c);
	if (!err)
		err = check_quota(&c);
	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++)
		ek_quota_tally_release(&c.quota[t]);
	if (!err)
		err = commit(&c);
	fix_done(&c, -EINVAL);
	ek_wset_free(c.ws);
	if (o->repair && o->undo)
		ek_io_set_undo(fs->io, NULL);
	for (uint32_t g = 0; c.bmap && g < fs->group_count; g++)
		free(c.bmap[g]);
	free(c.bmap);
	for (uint32_t g = 0; c.ig && g < fs->group_count; g++)
		free(c.ig[g].st);
	free(c.ig);
	free(c.ovf);
	free(c.dirs);
	free(c.meta);
	free(c.dups);
	free(c.bad);
	free(c.xblk);
	free(c.name_slots);
	free(c.names);
	free(c.crypt);
	free(c.pol);
	free(c.pol_slots);
	free(c.dxl);
	free(c.dxbuf);
	return err;
}
