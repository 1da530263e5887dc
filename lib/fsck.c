// SPDX-License-Identifier: MIT
/*
 * fsck.c - the checker: e2fsck's passes, read-only, reporting findings
 * from the one table (problems.def) through a callback.
 *
 *   pass 1  every inode in use: its checksum, dtime, block map (extent tree
 *           or indirect blocks, walked by map.c's checked walk) and xattr
 *           block; the blocks it claims, counted against i_blocks and
 *           marked in an in-memory block map, where a block marked twice
 *           is multiply claimed (metadata is marked first)
 *   pass 2  every directory's entries (dir.c's checked iterator): inode
 *           numbers, entries to unused inodes, file types; references per
 *           inode and each directory's '..'
 *   pass 3  every directory reaches the root through '..'
 *   pass 4  link counts against the references pass 2 counted
 *   pass 5  the block and inode bitmaps and every free count against what
 *           passes 1 and 2 computed
 *
 * Memory: a block bitmap per block group that holds something in use, and
 * a few bytes per inode.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

static const struct ek_problem problems[] = {
#define EK_PROBLEM(name, pass, sev, preen, msg) { #name, pass, sev, preen, msg },
#include "problems.def"
#undef EK_PROBLEM
};

const struct ek_problem *ek_problem_get(enum ek_problem_id id)
{
	return id < EK_PR_COUNT ? &problems[id] : NULL;
}

/* per-inode state, one byte of flags and the references pass 2 counts */
#define IN_USE	0x1
#define IS_DIR	0x2
#define REACHED	0x8	/* pass 3: connected to the root */
#define IN_BAD_BLOCK 0x20	/* its inode table block is a bad block */
#define IS_EA	0x10	/* an xattr value inode (ea_inode): xattrs, not entries, name it */

struct check {
	struct ek_fs *fs;
	const struct ek_fsck_opts *o;
	struct ek_fsck_summary *sum;
	uint8_t **bmap;		/* per group: computed block (cluster) bitmap, or NULL */
	uint8_t *iflags;	/* per inode, index ino */
	uint32_t *refs;		/* per inode: directory entries naming it */
	uint16_t *mode;		/* per inode in use: i_mode, from pass 1 */
	uint16_t *links;	/* per inode in use: i_links_count, from pass 1 */
	ek_ino_t *parent;	/* per inode: '..' of a directory (0: none seen) */
	ek_ino_t *named_in;	/* per directory: the directory whose entry names it */
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
	uint64_t last_cluster;	/* bigalloc: the cluster it claimed last */
	bool have_cluster;
	/* pass 2: names seen in the directory being read */
	uint32_t *name_slots;	/* open hash: offset + 1 into names, 0 empty */
	size_t nslots, nnames;
	char *names;
	size_t names_len, names_cap;
	int err;		/* first operational error */
};

static int report(struct check *c, enum ek_problem_id id, const struct ek_finding *where, ...)
{
	struct ek_finding f = *where;
	const struct ek_problem *p = &problems[id];
	va_list ap;

	f.id = id;
	va_start(ap, where);
	vsnprintf(f.message, sizeof(f.message), p->message, ap);
	va_end(ap);
	c->sum->findings[p->severity]++;
	return c->o->report ? c->o->report(c->o->arg, &f) : 0;
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

/* ---- the computed block map -------------------------------------------------- */

/* mark @blk in use; true when it was already */
static int mark(struct check *c, ek_blk_t blk, bool *was)
{
	struct ek_fs *fs = c->fs;
	uint32_t g = ek_group_of_block(fs, blk);
	uint64_t bit = (blk - ek_group_first_block(fs, g)) >> fs->cluster_bits;

	*was = false;
	if (!c->bmap[g] && !(c->bmap[g] = ek_calloc(1, fs->blksz)))
		return -ENOMEM;
	if (ek_bit_test(c->bmap[g], bit)) {
		*was = true;
		return 0;
	}
	c->bmap[g][bit >> 3] |= 1u << (bit & 7);
	return 0;
}

static int mark_meta(struct check *c, ek_blk_t blk, uint64_t n)
{
	bool was;

	for (uint64_t i = 0; i < n; i++) {
		/* block 0 holds the superblock when first_data_block is 0 */
		if (blk + i < c->fs->sb.first_data_block || blk + i >= c->fs->sb.blocks_count)
			continue;	/* the descriptor checks name it */
		int err = mark(c, blk + i, &was);

		if (err)
			return err;
	}
	return 0;
}

/* superblock copies, descriptors, reserved GDT, bitmaps, inode tables, MMP */
static int mark_metadata(struct check *c)
{
	struct ek_fs *fs = c->fs;
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
	return err;
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

static int claim_mapping(void *arg, const struct ek_mapping *m)
{
	struct check *c = arg;
	int err = 0;

	if (m->kind == EK_MAP_INDEX)
		return 0;	/* its child node follows as EK_MAP_TREE */
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

/* does the inode have a block map to walk? */
static bool has_map(const struct ek_fs *fs, const struct ek_inode *ei)
{
	uint16_t fmt = ei->mode & 0170000;

	if (ek_inode_has_inline(ei))
		return false;
	if (fmt == 0020000 || fmt == 0060000 || fmt == 0010000 || fmt == 0140000)
		return false;	/* devices, fifos and sockets keep no blocks */
	if (fmt == 0120000 && ek_inode_is_fast_symlink(fs, ei))
		return false;
	return true;
}

static bool reserved_ino(const struct ek_fs *fs, ek_ino_t ino)
{
	return ino < fs->sb.first_ino && ino != EXT4_ROOT_INO;
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
		report(c, EK_PR_FILE_ACL_HI, AT_INODE(ei->ino), ei->ino, acl_hi);
		ei->file_acl &= 0xFFFFFFFFu;	/* what the kernel reads */
	}
	if (ei->file_acl && !ek_fs_block_valid(fs, ei->file_acl))
		return 0;	/* named below */
	err = ek_xattr_iterate(fs, ei, note_ea_inode, c);
	if (err == -ENOMEM)
		return err;
	if (err)
		report(c, EK_PR_XATTR_DAMAGED, AT_INODE(ei->ino), ek_error_msg(err));
	return 0;
}

/* a symlink's target, read by the read path, then e2fsck's rules */
static int check_symlink(struct check *c, const struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	char *buf, why[200] = "";
	int err;

	/* inline symlinks: e2fsck accepts what the read path would refuse
	 * (a NUL inside the target); not judged yet */
	if (ek_inode_has_inline(ei))
		return 0;
	if (ek_inode_is_fast_symlink(fs, ei) && (ei->flags & EXT4_EXTENTS_FL))
		snprintf(why, sizeof(why), "a fast symlink with the extents flag");
	else if (!ek_inode_has_inline(ei) && !ek_inode_is_fast_symlink(fs, ei) && c->last_lblk > 0)
		snprintf(why, sizeof(why), "its target spans %lld blocks", (long long)c->last_lblk + 1);
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
	if (bad)
		report(c, EK_PR_I_SIZE_WRONG, AT_INODE(ei->ino), ei->ino,
		       (unsigned long long)ei->size, (unsigned long long)want);
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

static int pass1_inode(void *arg, struct ek_inode *ei, int derr)
{
	struct check *c = arg;
	struct ek_fs *fs = c->fs;
	uint64_t want;
	int err;

	/* an inode in a bad block of the inode table is unreadable: left alone */
	if (c->nbad && ei->ino != EXT4_BAD_INO) {
		ek_blk_t at;
		uint32_t off;

		if (ek_inode_loc(fs, ei->ino, &at, &off) == 0)
			for (size_t i = 0; i < c->nbad; i++)
				if (c->bad[i] == at) {
					c->iflags[ei->ino] |= IN_USE | IN_BAD_BLOCK;
					return 0;
				}
	}
	/* e2fsck: an inode is in use when linked; the reserved ones with a
	 * mode, and the bad blocks inode (which has none) always */
	if (!ei->links_count && !(reserved_ino(fs, ei->ino) && ei->mode) &&
	    ei->ino != EXT4_BAD_INO)
		return 0;
	c->iflags[ei->ino] |= IN_USE;
	c->mode[ei->ino] = ei->mode;
	c->links[ei->ino] = ei->links_count;
	if (ek_is_dir(ei->mode))
		c->iflags[ei->ino] |= IS_DIR;
	if (ei->flags & EXT4_EA_INODE_FL)
		c->iflags[ei->ino] |= IS_EA;
	if (derr == -EK_BADCRC)
		report(c, EK_PR_INODE_CHECKSUM, AT_INODE(ei->ino), ei->ino);
	else if (derr)
		report(c, EK_PR_INODE_DAMAGED, AT_INODE(ei->ino), ek_error_msg(derr));
	if (!type_known(ei->mode) && !reserved_ino(fs, ei->ino))
		report(c, EK_PR_INODE_BAD_MODE, AT_INODE(ei->ino), ei->ino, ei->mode);
	else if (special(ei->mode) && (ei->flags & (EXT4_IMMUTABLE_FL | EXT4_APPEND_FL)))
		report(c, EK_PR_INODE_SPECIAL_FLAGS, AT_INODE(ei->ino), ei->ino,
		       type_name(ei->mode));
	if (ei->dtime && ei->links_count && !reserved_ino(fs, ei->ino) &&
	    ei->ino != EXT4_ROOT_INO)
		report(c, EK_PR_INODE_DTIME_SET, AT_INODE(ei->ino), ei->ino);

	c->ei = ei;
	c->claimed = 0;
	c->next_pblk = 0;
	c->fragmented = false;
	c->last_lblk = c->last_init = -1;
	c->ea_shared = false;
	c->have_cluster = false;
	err = check_xattrs(c, ei);
	if (err)
		return err;
	if (ei->file_acl) {
		if (!ek_fs_block_valid(fs, ei->file_acl))
			report(c, EK_PR_XATTR_BLOCK_BAD, &(struct ek_finding){ .ino = ei->ino,
			       .blk = ei->file_acl, .has_blk = true, .group = -1 },
			       ei->ino, (unsigned long long)ei->file_acl);
		else
			c->claimed++;	/* counted here, marked once for all its users */
	}
	if (has_map(fs, ei)) {
		err = ek_map_walk(fs, ei, claim_mapping, c);
		if (err == -ENOMEM)
			return err;
		if (err && err != -EK_BADCRC) {
			report(c, EK_PR_BLOCK_MAP_DAMAGED, AT_INODE(ei->ino), ek_error_msg(err));
			return 0;	/* its counts are unknown: no i_blocks finding */
		}
		if (err == -EK_BADCRC)
			report(c, EK_PR_BLOCK_MAP_DAMAGED, AT_INODE(ei->ino), ek_error_msg(err));
	}
	if (ek_is_lnk(ei->mode)) {
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
	if (ei->blocks != want && !fs->cluster_bits && !c->ea_shared && ei->ino != EXT4_BAD_INO)
		report(c, EK_PR_I_BLOCKS_WRONG, AT_INODE(ei->ino), ei->ino,
		       (unsigned long long)ei->blocks, (unsigned long long)want);
	return 0;
}

/* an internal journal's inode must be a regular file in use */
static void check_journal_inode(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_ino_t j = fs->sb.journal_inum;

	if (!ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) || !j || j > fs->sb.inodes_count)
		return;
	if (!(c->iflags[j] & IN_USE))
		report(c, EK_PR_JOURNAL_INODE_BAD, AT_INODE(j), j, "it is not in use");
	else if ((c->mode[j] & 0170000) != 0100000)
		report(c, EK_PR_JOURNAL_INODE_BAD, AT_INODE(j), j, "it is not a regular file");
}

/*
 * Inodes in a bad block of an inode table read as zeros (the scan skips
 * them): in use, as e2fsck keeps them, and left out of the other passes.
 */
static void mark_bad_itable(struct check *c)
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

				if (ino <= fs->sb.inodes_count)
					c->iflags[ino] |= IN_USE | IN_BAD_BLOCK;
			}
		}
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
	if (!(c->iflags[ei->ino] & IN_USE) || (c->iflags[ei->ino] & IN_BAD_BLOCK) ||
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

/* xattr blocks are shared: mark each once, after every inode named its own */
static int mark_xattr(void *arg, struct ek_inode *ei, int derr)
{
	struct check *c = arg;
	bool was;
	int err;

	(void)derr;
	if (!(c->iflags[ei->ino] & IN_USE) || !ei->file_acl ||
	    !ek_fs_block_valid(c->fs, ei->file_acl))
		return 0;
	err = blk_push(&c->xblk, &c->nx, &c->x_cap, ei->file_acl);
	return err ? err : mark(c, ei->file_acl, &was);
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
		if (!err && refs != j - i)
			report(c, EK_PR_XATTR_REFCOUNT, &(struct ek_finding){ .blk = c->xblk[i],
			       .has_blk = true, .group = -1 }, (unsigned long long)c->xblk[i],
			       refs, (unsigned)(j - i));
	}
	return 0;
}

/* ---- pass 2 ------------------------------------------------------------------ */

struct dirwalk {
	struct check *c;
	ek_ino_t dir;
	bool encrypted;		/* names are ciphertext: any byte may appear */
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

static int pass2_entry(void *arg, const struct ek_dirent *de)
{
	struct dirwalk *w = arg;
	struct check *c = w->c;
	struct ek_fs *fs = c->fs;
	char name[256];
	struct ek_finding at = { .ino = de->ino, .dir = w->dir, .group = -1 };

	int seen;

	memcpy(name, de->name, de->name_len);
	name[de->name_len] = 0;
	if (de->name_len == 2 && !memcmp(de->name, "..", 2)) {
		c->parent[w->dir] = de->ino;
	}
	if (!w->encrypted && (memchr(de->name, '/', de->name_len) || memchr(de->name, 0, de->name_len)))
		report(c, EK_PR_ENTRY_BAD_NAME, &at, name, w->dir);
	seen = name_seen(c, de->name, de->name_len);
	if (seen < 0)
		return seen;
	if (seen)
		report(c, EK_PR_ENTRY_DUPLICATE, &at, name, w->dir);
	if (de->ino > fs->sb.inodes_count || (de->ino < fs->sb.first_ino &&
					     de->ino != EXT4_ROOT_INO && de->ino != 0)) {
		report(c, EK_PR_ENTRY_BAD_INODE, &at, name, w->dir, de->ino);
		return 0;
	}
	if (!(c->iflags[de->ino] & IN_USE)) {
		report(c, EK_PR_ENTRY_UNUSED_INODE, &at, name, w->dir, de->ino);
		return 0;
	}
	c->refs[de->ino]++;
	/* a directory has one name: its parent in pass 3 */
	if ((c->iflags[de->ino] & IS_DIR) && !dot_or_dotdot(de)) {
		if (c->named_in[de->ino] || de->ino == EXT4_ROOT_INO)
			report(c, EK_PR_ENTRY_DIR_LINK, &at, name, w->dir, de->ino);
		else
			c->named_in[de->ino] = w->dir;
	}
	/* the Hurd keeps no file types, whatever the feature says (e2fsck) */
	if (ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE) &&
	    le32_to_cpu(fs->raw_sb->s_creator_os) != 1 /* EXT4_OS_HURD */ &&
	    !(c->iflags[de->ino] & IN_BAD_BLOCK) && de->file_type != mode_ftype(c->mode[de->ino]))
		report(c, EK_PR_ENTRY_FILETYPE, &at, name, w->dir, de->file_type, de->ino,
		       type_name(c->mode[de->ino]));
	return 0;
}

static int pass2(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (ek_ino_t ino = 1; ino <= fs->sb.inodes_count; ino++) {
		struct dirwalk w = { c, ino };
		struct ek_inode ei;
		int err;

		if ((c->iflags[ino] & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR))
			continue;
		c->sum->dirs++;
		c->nnames = c->names_len = 0;
		if (c->name_slots)
			memset(c->name_slots, 0, c->nslots * sizeof(*c->name_slots));
		err = ek_inode_read(fs, ino, &ei);
		w.encrypted = ei.flags & EXT4_ENCRYPT_FL;
		if (!err || err == -EK_BADCRC)
			err = ek_dir_iterate(fs, &ei, 0, pass2_entry, &w);
		ek_inode_release(&ei);
		if (err == -ENOMEM)
			return err;
		if (err)
			report(c, EK_PR_DIR_DAMAGED, AT_INODE(ino), ek_error_msg(err));
	}
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

	if (!(c->iflags[EXT4_ROOT_INO] & IS_DIR)) {
		report(c, EK_PR_ROOT_NOT_DIR, AT_INODE(EXT4_ROOT_INO));
		return;
	}
	c->iflags[EXT4_ROOT_INO] |= REACHED;
	c->named_in[EXT4_ROOT_INO] = EXT4_ROOT_INO;
	for (ek_ino_t ino = 1; ino <= fs->sb.inodes_count; ino++) {
		ek_ino_t p = ino;
		uint64_t steps = 0;

		if ((c->iflags[ino] & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR) ||
		    reserved_ino(fs, ino) || (c->iflags[ino] & IN_BAD_BLOCK))
			continue;
		/* up to a reached directory; a loop or a dead end fails */
		while (!(c->iflags[p] & REACHED) && c->named_in[p] &&
		       steps++ <= fs->sb.inodes_count)
			p = c->named_in[p];
		if (c->iflags[p] & REACHED) {
			for (ek_ino_t q = ino; !(c->iflags[q] & REACHED); q = c->named_in[q])
				c->iflags[q] |= REACHED;
		} else {
			report(c, EK_PR_DIR_UNCONNECTED, AT_INODE(ino), ino, c->parent[ino]);
		}
	}
	for (ek_ino_t ino = 1; ino <= fs->sb.inodes_count; ino++)
		if ((c->iflags[ino] & REACHED) && c->parent[ino] != c->named_in[ino])
			report(c, EK_PR_DOTDOT_WRONG, AT_INODE(ino), ino, c->parent[ino],
			       c->named_in[ino]);
}

static int pass4(struct check *c)
{
	struct ek_fs *fs = c->fs;

	for (ek_ino_t ino = 1; ino <= fs->sb.inodes_count; ino++) {
		uint32_t want = c->refs[ino];

		if (!(c->iflags[ino] & IN_USE) || reserved_ino(fs, ino) || sb_ino(fs, ino) ||
		    (c->iflags[ino] & (IS_EA | IN_BAD_BLOCK)))
			continue;
		if (!want) {
			report(c, EK_PR_INODE_UNATTACHED, AT_INODE(ino), ino);
			continue;
		}
		/* dir_nlink: a directory past EXT4_LINK_MAX counts 1 */
		if ((c->iflags[ino] & IS_DIR) && c->links[ino] == 1 && want > 65000 &&
		    ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK))
			want = 1;
		if (c->links[ino] != want)
			report(c, EK_PR_LINK_COUNT_WRONG, AT_INODE(ino), ino, c->links[ino], want);
	}
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
		bool h = ek_bit_test(have, b), w = want && ek_bit_test(want, b);
		uint64_t e = b + 1;

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

static int pass5(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint32_t ipg = fs->sb.inodes_per_group;
	uint64_t free_blocks = 0, desc_free_blocks = 0;
	uint32_t free_inodes = 0, desc_free_inodes = 0;
	uint8_t *want_i = ek_calloc(1, fs->blksz);
	char diff[512];

	if (!want_i)
		return -ENOMEM;
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		uint64_t nclusters = ((uint64_t)ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >>
				     fs->cluster_bits;
		uint32_t gfree = 0, ifree = 0, dirs = 0;
		const uint8_t *have;
		uint64_t ndiff;
		int err = ek_block_bitmap_get(fs, g, &have);

		for (uint64_t b = 0; b < nclusters; b++)
			gfree += !(c->bmap[g] && ek_bit_test(c->bmap[g], b));
		free_blocks += (uint64_t)gfree << fs->cluster_bits;
		if (err) {
			report(c, EK_PR_BITMAP_UNREADABLE, AT_GROUP(g), g, ek_error_msg(err));
		} else {
			if (csum_checked(fs, grp, false) &&
			    ek_bitmap_csum(fs, have, false) != grp->block_bitmap_csum)
				report(c, EK_PR_BITMAP_CHECKSUM, AT_GROUP(g), g, "block");
			bitmap_diff(have, c->bmap[g], nclusters, ek_group_first_block(fs, g),
				    ek_cluster_ratio(fs), diff, sizeof(diff), &ndiff);
			if (ndiff)
				report(c, EK_PR_BLOCK_BITMAP_DIFFERS, AT_GROUP(g), g, diff);
		}
		desc_free_blocks += (uint64_t)grp->free_blocks << fs->cluster_bits;
		desc_free_inodes += grp->free_inodes;
		if (grp->free_blocks != gfree)
			report(c, EK_PR_GROUP_FREE_BLOCKS, AT_GROUP(g), g, grp->free_blocks, gfree);

		memset(want_i, 0, fs->blksz);
		for (uint32_t i = 0; i < ipg; i++) {
			ek_ino_t ino = (ek_ino_t)g * ipg + i + 1;

			if (ino > fs->sb.inodes_count)
				break;
			/* the reserved inodes are always in use */
			if ((c->iflags[ino] & IN_USE) || ino < fs->sb.first_ino) {
				want_i[i >> 3] |= 1u << (i & 7);
				c->sum->inodes_used++;
			} else {
				ifree++;
			}
			dirs += (c->iflags[ino] & (IN_USE | IS_DIR)) == (IN_USE | IS_DIR);
		}
		free_inodes += ifree;
		if (c->o->bitmaps)
			c->o->bitmaps(c->o->arg, g, c->bmap[g], nclusters, want_i, ipg);
		err = ek_inode_bitmap_get(fs, g, &have);
		if (err) {
			report(c, EK_PR_BITMAP_UNREADABLE, AT_GROUP(g), g, ek_error_msg(err));
		} else {
			if (csum_checked(fs, grp, true) &&
			    ek_bitmap_csum(fs, have, true) != grp->inode_bitmap_csum)
				report(c, EK_PR_BITMAP_CHECKSUM, AT_GROUP(g), g, "inode");
			bitmap_diff(have, want_i, ipg, (uint64_t)g * ipg + 1, 1, diff, sizeof(diff),
				    &ndiff);
			if (ndiff)
				report(c, EK_PR_INODE_BITMAP_DIFFERS, AT_GROUP(g), g, diff);
		}
		if (grp->free_inodes != ifree)
			report(c, EK_PR_GROUP_FREE_INODES, AT_GROUP(g), g, grp->free_inodes, ifree);
		if (grp->used_dirs != dirs)
			report(c, EK_PR_GROUP_DIRS, AT_GROUP(g), g, grp->used_dirs, dirs);
	}
	free(want_i);
	c->sum->blocks_used = fs->sb.blocks_count - free_blocks;
	/*
	 * The kernel keeps the superblock's totals in memory and seldom writes
	 * them: like e2fsck, take them as the sum of the group counts, and
	 * report the totals only where those are wrong.
	 */
	if (desc_free_blocks != free_blocks)
		report(c, EK_PR_FREE_BLOCKS, AT_GROUP(-1), (unsigned long long)desc_free_blocks,
		       (unsigned long long)free_blocks);
	if (desc_free_inodes != free_inodes)
		report(c, EK_PR_FREE_INODES, AT_GROUP(-1), desc_free_inodes, free_inodes);
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
	uint64_t ninodes = (uint64_t)fs->sb.inodes_count + 1;
	int err;

	memset(sum, 0, sizeof(*sum));
	/* the per-inode state below is sized by the inode count: bound it by
	 * what the image can hold (a hostile count would cost gigabytes) */
	if ((uint64_t)fs->sb.inodes_count * fs->inode_size > ek_io_size(fs->io) + (1ull << 20))
		return ek_corrupt_fs("superblock: %u inodes of %u bytes do not fit in the image's "
				     "%llu bytes", fs->sb.inodes_count, fs->inode_size,
				     (unsigned long long)ek_io_size(fs->io));
	sum->inodes_count = fs->sb.inodes_count;
	sum->blocks_count = fs->sb.blocks_count;
	/* the inode count is bounded by the inode tables the image holds */
	c.bmap = ek_calloc(fs->group_count, sizeof(*c.bmap));
	c.iflags = ek_calloc(ninodes, 1);
	c.refs = ek_calloc(ninodes, sizeof(*c.refs));
	c.parent = ek_calloc(ninodes, sizeof(*c.parent));
	c.named_in = ek_calloc(ninodes, sizeof(*c.named_in));
	c.mode = ek_calloc(ninodes, sizeof(*c.mode));
	c.links = ek_calloc(ninodes, sizeof(*c.links));
	err = c.bmap && c.iflags && c.refs && c.parent && c.named_in && c.mode && c.links ?
	      0 : -ENOMEM;
	if (o->journal_refused)
		report(&c, EK_PR_JOURNAL_REFUSED, AT_GROUP(-1), o->journal_refused_step,
		       o->journal_refused);
	if (o->journal_err)
		report(&c, EK_PR_JOURNAL_UNUSABLE, AT_INODE(fs->sb.journal_inum),
		       ek_error_msg(o->journal_err));
	if (o->backup_sb)
		report(&c, EK_PR_BACKUP_SUPERBLOCK, AT_GROUP(-1), o->backup_why ? o->backup_why : "",
		       (unsigned long long)o->backup_sb);
	for (uint32_t g = 0; g < fs->group_count; g++) {
		const struct ek_group *grp = &fs->groups[g];
		int bad = desc_check(fs, g, g + 1);

		if (bad)
			report(&c, EK_PR_GROUP_DESC_DAMAGED, AT_GROUP(g), ek_error_msg(bad));
		if (grp->csum_bad)
			report(&c, EK_PR_GROUP_DESC_CHECKSUM, AT_GROUP(g), g, grp->checksum,
			       ek_group_desc_csum(fs, g, fs->gd_raw + (size_t)g * fs->desc_size));
	}
	if (!err)
		err = mark_metadata(&c);
	if (!err && o->progress)
		o->progress(o->arg, 1);
	if (!err)
		err = ek_inode_scan(fs, pass1_inode, &c);
	if (!err)
		mark_bad_itable(&c);
	if (!err)
		check_journal_inode(&c);
	if (!err)
		err = pass1b(&c);
	if (!err)
		err = ek_inode_scan(fs, mark_xattr, &c);
	if (!err)
		err = check_xattr_refs(&c);
	if (!err && o->progress)
		o->progress(o->arg, 2);
	if (!err)
		err = pass2(&c);
	if (!err && o->progress)
		o->progress(o->arg, 3);
	if (!err)
		pass3(&c);
	if (!err && o->progress)
		o->progress(o->arg, 4);
	if (!err)
		err = pass4(&c);
	if (!err && o->progress)
		o->progress(o->arg, 5);
	if (!err)
		err = pass5(&c);
	for (uint32_t g = 0; c.bmap && g < fs->group_count; g++)
		free(c.bmap[g]);
	free(c.bmap);
	free(c.iflags);
	free(c.refs);
	free(c.parent);
	free(c.named_in);
	free(c.mode);
	free(c.links);
	free(c.dups);
	free(c.bad);
	free(c.xblk);
	free(c.name_slots);
	free(c.names);
	return err;
}
