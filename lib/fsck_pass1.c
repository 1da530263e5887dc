// SPDX-License-Identifier: MIT
/* fsck_pass1.c - the checker's pass 1: every inode in use, the blocks it claims, xattr references */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- pass 1 ------------------------------------------------------------------ */

static int claim(struct check *c, ek_blk_t blk)
{
	uint64_t cluster = blk >> c->fs->cluster_bits;
	bool was = false;
	/* as e2fsck, of the resize inode's map only the double indirect block
	 * is marked: the reserved GDT blocks are marked with their group's
	 * metadata, and a stray entry in them is counted in i_blocks, not
	 * claimed (pass 0 checked the entries that matter) */
	bool mark = c->ei->ino != EXT4_RESIZE_INO ||
		    blk == get_le32(ek_inode_i_block(c->ei) + EXT4_DIND_BLOCK);
	int err = mark ? fsck_mark(c, blk, &was) : 0;

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
		return fsck_blk_push(&c->bad, &c->nbad, &c->bad_cap, blk);
	}
	/* the resize inode maps the reserved GDT blocks, marked as metadata;
	 * shared_blocks allows blocks to be shared */
	if (was && c->ei->ino != EXT4_RESIZE_INO && !fsck_shares_allowed(c)) {
		return fsck_blk_push(&c->dups, &c->ndups, &c->dups_cap, blk);
	}
	return 0;
}

/* bigalloc, as e2fsck's pass 1: a block's offset in its logical cluster is
 * its offset in its physical cluster, and the blocks of one logical
 * cluster lie in one physical cluster.  Fixed as e2fsck fixes it: the
 * cluster goes to pass 1B as shared, and pass 1D copies the logical
 * cluster into a new one, each block at its offset (extent.c's unshare) */
static int check_clusters(struct check *c, const struct ek_mapping *m)
{
	uint64_t mask = ek_cluster_ratio(c->fs) - 1;
	unsigned bits = c->fs->cluster_bits;
	int err = 0;

	for (uint64_t i = 0; i < m->len && !err; i++) {
		uint64_t l = m->lblk + i, p = m->pblk + i;

		if (((l & mask) != (p & mask) ||
		     (c->have_prev && (l & mask) && l >> bits == c->prev_lblk >> bits &&
		      p >> bits != c->prev_pblk >> bits)) &&
		    fsck_report(c, EK_PR_CLUSTER_MISALIGNED, &(struct ek_finding){ .ino = c->ei->ino,
				.blk = p, .has_blk = true, .group = -1 }, c->ei->ino,
				(unsigned long long)l, (unsigned long long)p)) {
			err = fsck_blk_push(&c->dups, &c->ndups, &c->dups_cap, p);
			if (!err)
				err = fsck_blk_push(&c->misaligned, &c->nmisaligned,
						    &c->misaligned_cap, p & ~mask);
			fsck_fix_done(c, 0);	/* (pass 1D says when a copy fails) */
		}
		c->have_prev = true;
		c->prev_lblk = l;
		c->prev_pblk = p;
	}
	return err;
}

/* a block of the walked inode's map lying on critical metadata (the
 * resize inode's map is the reserved descriptor blocks by design) */
static bool map_node_in_meta(const struct check *c, ek_blk_t blk)
{
	return c->ei->ino != EXT4_RESIZE_INO && c->ei->ino != EXT4_BAD_INO && fsck_in_meta(c, blk);
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
	/* a map block on an inode table, bitmap or descriptor: fixing its
	 * entries in place would write over that metadata.  As e2fsck: said,
	 * nothing written into it (map_bad), pass 1B copies it */
	if (m->kind == EK_MAP_TREE && map_node_in_meta(c, m->pblk) &&
	    fsck_report(c, EK_PR_MAP_BLOCK_IN_METADATA, AT_INODE(c->ei->ino), c->ei->ino,
			(unsigned long long)m->pblk))
		fsck_fix_done(c, 0);
	/* repairing an extent tree (or making one of a block map on
	 * bigalloc): what a rebuild keeps, in extents of at most 32768 */
	if (c->ws && ((c->ei->flags & EXT4_EXTENTS_FL) || c->fs->cluster_bits)) {
		if (m->kind != EK_MAP_DATA)
			err = fsck_blk_push(&c->xtree, &c->nxtree, &c->xtree_cap, m->pblk);
		for (uint64_t at = 0; m->kind == EK_MAP_DATA && at < m->len && !err;
		     at += EXT_INIT_MAX_LEN) {
			uint64_t n = m->len - at < EXT_INIT_MAX_LEN ? m->len - at : EXT_INIT_MAX_LEN;
			struct ek_ext e = { (uint32_t)(m->lblk + at), (uint32_t)n, m->pblk + at,
					    m->unwritten };

			err = ek_ext_append(&c->xv, &c->nxv, &c->xv_cap, &e);
		}
		if (err)
			return err;
	}
	/* the resize inode maps reserved GDT blocks, not clusters of data */
	if (m->kind == EK_MAP_DATA && c->fs->cluster_bits && c->ei->ino != EXT4_RESIZE_INO &&
	    c->ei->ino != EXT4_BAD_INO)
		err = check_clusters(c, m);
	if (err)
		return err;
	/* as e2fsck, a block map's indirect blocks are in the run too (an
	 * extent tree's blocks are not) */
	if (m->kind == EK_MAP_TREE && !(c->ei->flags & EXT4_EXTENTS_FL)) {
		if (c->next_pblk && m->pblk != c->next_pblk)
			c->fragmented = true;
		c->next_pblk = m->pblk + 1;
	}
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

/* ---- pass 1 repairs of block maps ------------------------------------------- */

#define MAX_ILLEGAL_BLOCKS 12	/* e2fsck's: at this many, clear the inode? */
#define MAP_CLEAR 1		/* map_bad() stopped the walk: the inode is cleared */

/*
 * A bad entry of the map being walked (ek_map_walk_checked), reported as
 * e2fsck's pass 1 does; fixed where met: an extent or index entry is
 * dropped (the tree is rebuilt from the rest after the walk), an illegal
 * indirect pointer zeroed, a checksum set.  Left unfixed, the blocks the
 * entry leads to are not claimed: pass 5 frees nothing.
 */
static int map_bad(void *arg, const struct ek_map_bad *b)
{
	struct check *c = arg;
	ek_ino_t ino = c->ei->ino;
	struct ek_finding at = { .ino = ino, .blk = b->pblk, .has_blk = true, .group = -1 };
	char why[200];
	bool fix = false;

	/* an entry of a map block that is also metadata (claim_mapping): an
	 * indirect block's pointer is neither said nor zeroed in place, but
	 * counted, as e2fsck does; the passes run again once pass 1B has
	 * copied the block.  An extent tree is rebuilt in blocks of its own,
	 * so only a checksum is not set in place */
	if (b->node && map_node_in_meta(c, b->node)) {
		if (b->kind == EK_MAPBAD_CSUM)
			return 0;
		if (b->kind == EK_MAPBAD_IND) {
			c->illegal++;
			c->map_left = c->claims_incomplete = true;
			c->restart |= c->ws != NULL;
			return 0;
		}
	}
	snprintf(why, sizeof(why), "%s", ek_error_msg(b->err));
	switch (b->kind) {
	case EK_MAPBAD_CSUM:
		if (fsck_report(c, EK_PR_EXTENT_CHECKSUM, &at, ino, (unsigned long long)b->pblk))
			fsck_fix_done(c, ek_fix_extent_csum(c->ws, ino, b->pblk));
		return 0;	/* the node is walked either way */
	case EK_MAPBAD_START:
		if (fsck_report(c, EK_PR_EXTENT_INDEX_START, &at, why)) {
			c->map_rebuild = true;
			fsck_fix_done(c, 0);
		}
		return 0;
	case EK_MAPBAD_EXTENT:
		fix = fsck_report(c, EK_PR_EXTENT_INVALID, &at, ino, (unsigned long long)b->lblk,
				  (unsigned long long)b->pblk, (unsigned long long)b->len, why);
		break;
	case EK_MAPBAD_INDEX:
		fix = fsck_report(c, EK_PR_EXTENT_NODE_INVALID, &at, ino, (unsigned long long)b->pblk,
				  (unsigned long long)b->lblk, why);
		break;
	case EK_MAPBAD_IND:
		/* as e2fsck: at the 12th, clearing the whole inode is offered */
		if (++c->illegal == MAX_ILLEGAL_BLOCKS &&
		    fsck_report(c, EK_PR_TOO_MANY_ILLEGAL_BLOCKS, AT_INODE(ino), ino)) {
			c->map_clear = true;
			return MAP_CLEAR;	/* fsck_fix_done() once cleared */
		}
		fix = fsck_report(c, EK_PR_ILLEGAL_BLOCK, &at, b->level ? "indirect block" : "block",
				  (unsigned long long)b->lblk, (unsigned long long)b->pblk, ino);
		if (fix)
			fsck_fix_done(c, ek_fix_ind_pointer(c->ws, ino, b->node, b->slot));
		if (!fix)
			c->map_left = c->claims_incomplete = true;
		return 0;
	}
	if (fix) {
		c->map_rebuild = true;	/* the entry goes with the rebuild */
		fsck_fix_done(c, 0);
	} else {
		c->map_left = c->claims_incomplete = true;
	}
	return 0;
}

/* was @blk claimed a second time during this inode's walk (by it)? */
static bool dup_since(const struct check *c, ek_blk_t blk)
{
	for (size_t i = c->dups_at; i < c->ndups; i++)
		if (c->dups[i] == blk)
			return true;
	return false;
}

/* a rebuilt tree's blocks: the old ones first, then new ones near them */
struct rebuild {
	struct check *c;
	size_t next_old;
	ek_blk_t goal;
	uint64_t added;
};

static int rebuild_alloc(void *arg, ek_blk_t *blk)
{
	struct rebuild *r = arg;
	struct check *c = r->c;

	while (r->next_old < c->nxtree) {
		ek_blk_t b = c->xtree[r->next_old++];

		if (!dup_since(c, b)) {	/* a block another inode claims is not rewritten */
			*blk = b;
			return 0;
		}
	}
	r->added++;
	return fsck_alloc_block(c, r->goal, blk);
}

static int rebuild_put(void *arg, ek_blk_t blk, const uint8_t *node)
{
	struct rebuild *r = arg;
	uint8_t *b;
	int err = ek_wset_block(r->c->ws, blk, &b);

	if (!err)
		memcpy(b, node, r->c->fs->blksz);
	return err;
}

/*
 * The extent tree of the inode being walked rewritten from the extents the
 * walk kept (bad entries dropped), in as few blocks as extent.c's writer
 * needs: old tree blocks reused first, the rest released (unclaimed, so
 * pass 5 frees them); c->claimed follows.
 */
static int rebuild_tree(struct check *c)
{
	struct rebuild r = { .c = c };
	struct ek_tree_sink sink = { rebuild_alloc, rebuild_put, &r };
	bool convert = !(c->ei->flags & EXT4_EXTENTS_FL);
	int err;

	r.goal = c->nxtree ? c->xtree[0] : c->nxv ? c->xv[0].pblk : 0;
	/* (a block map: its indirect blocks serve as tree blocks first) */
	err = convert ? ek_fix_map_to_extents(c->ws, c->ei->ino, c->xv, c->nxv, &sink) :
			ek_fix_extent_tree(c->ws, c->ei->ino, c->xv, c->nxv, &sink);
	if (err)
		return err;
	for (size_t i = r.next_old; i < c->nxtree; i++) {
		if (dup_since(c, c->xtree[i]))
			continue;
		fsck_unmark(c, c->xtree[i]);
		c->claimed--;
	}
	c->claimed += r.added;
	return 0;
}

/* unclaim what the walk of a cleared inode claimed (not blocks others claim) */
static int unclaim_mapping(void *arg, const struct ek_mapping *m)
{
	struct check *c = arg;

	if (m->kind == EK_MAP_INDEX)
		return 0;
	for (uint64_t i = 0; i < m->len; i++)
		if (!dup_since(c, m->pblk + i))
			fsck_unmark(c, m->pblk + i);
	return 0;
}

static int skip_bad(void *arg, const struct ek_map_bad *b)
{
	(void)arg;
	(void)b;
	return 0;
}

/*
 * Clear inode @ei (the pending finding's fix, as e2fsck's "Clear inode"):
 * on disk through repair_inode.c, and in the checker's state: not in use,
 * its blocks and xattr block reference no longer claimed (@walked: its map
 * was walked and claimed).  Pass 2 then clears the entries naming it.
 */
static int clear_inode(struct check *c, struct ek_inode *ei, bool walked)
{
	int err = ek_fix_inode_clear(c->ws, ei->ino, (uint32_t)c->o->now);

	if (err)
		return err;
	if (walked && fsck_has_map(c->fs, ei)) {
		err = ek_map_walk_checked(c->fs, ei, unclaim_mapping, skip_bad, c);
		if (err == -ENOMEM)
			return err;
	}
	c->ndups = c->dups_at;	/* its second claims are gone with it */
	c->nx = c->nx_at;	/* and its reference to an xattr block */
	fsck_inode_forget(c, ei->ino);
	c->cleared = true;
	return 0;
}

bool fsck_reserved_ino(const struct ek_fs *fs, ek_ino_t ino)
{
	return ino < fs->sb.first_ino && ino != EXT4_ROOT_INO;
}

/* does the inode have a block map to walk? */
bool fsck_has_map(const struct ek_fs *fs, const struct ek_inode *ei)
{
	uint16_t fmt = ei->mode & 0170000;

	if (ek_inode_has_inline(ei))
		return false;
	if (fmt == 0020000 || fmt == 0060000 || fmt == 0010000 || fmt == 0140000)
		return false;	/* devices, fifos and sockets keep no blocks */
	/* nor an unknown type (e2fsck's ext2fs_inode_has_valid_blocks2);
	 * the reserved inodes have theirs (the bad blocks inode: mode 0) */
	if (fmt != 0100000 && fmt != 0040000 && fmt != 0120000 && !fsck_reserved_ino(fs, ei->ino))
		return false;
	/* as e2fsck's ext2fs_inode_has_valid_blocks2(): a symlink without
	 * blocks has none to walk, whatever its i_size (check_symlink()
	 * judges that): its i_block holds the target's bytes */
	if (fmt == 0120000 && ek_inode_symlink_blockless(fs, ei))
		return false;
	return true;
}

/* named by the superblock, not a directory: the journal, orphan file, quota files */
bool fsck_sb_ino(const struct ek_fs *fs, ek_ino_t ino)
{
	const struct ext4_super_block *sb = fs->raw_sb;

	return ino == fs->sb.journal_inum || ino == fs->sb.orphan_file_inum ||
	       ino == le32_to_cpu(sb->s_usr_quota_inum) || ino == le32_to_cpu(sb->s_grp_quota_inum) ||
	       ino == le32_to_cpu(sb->s_prj_quota_inum);
}

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
			for (i = fsck_name_hash((const char *)c->pol[k].p, c->pol[k].len) & (n - 1); v[i];
			     i = (i + 1) & (n - 1))
				;
			v[i] = (uint32_t)k + 1;
		}
		free(c->pol_slots);
		c->pol_slots = v;
		c->pol_nslots = n;
	}
	for (i = fsck_name_hash((const char *)p->p, p->len) & (c->pol_nslots - 1); c->pol_slots[i];
	     i = (i + 1) & (c->pol_nslots - 1)) {
		const struct ek_crypt_policy *q = &c->pol[c->pol_slots[i] - 1];

		if (q->len == p->len && !memcmp(q->p, p->p, p->len)) {
			*out = c->pol_slots[i] + 1;
			return 0;
		}
	}
	if (ek_grow(&c->pol, &c->pol_cap, c->npol + 1, sizeof(*c->pol)))
		return -ENOMEM;
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
static int check_crypt(struct check *c, struct ek_inode *ei)
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
		/* as e2fsck: the flag goes, the inode stays (unencrypted) */
		if (fsck_report(c, EK_PR_ENCRYPT_NO_XATTR, AT_INODE(ei->ino), ei->ino))
			fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR,
						      EXT4_ENCRYPT_FL));
		return 0;
	}
	if (err)
		return 0;	/* damaged xattrs: named by check_xattrs() */
	err = ek_crypt_ctx_decode(ei->ino, val, len, &p);
	free(val);
	if (err < 0) {
		/* as e2fsck: an encrypted inode without a usable policy is cleared */
		if (fsck_report(c, EK_PR_ENCRYPT_XATTR_BAD, AT_INODE(ei->ino), ek_error_msg(err)))
			fsck_fix_done(c, clear_inode(c, ei, false));
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
/* the depth of an extent tree deeper than the kernel reads but not than
 * ek_map_walk_deep() does, else 0 */
static unsigned deep_tree(const struct ek_inode *ei)
{
	const uint8_t *root = (const uint8_t *)ek_inode_i_block(ei);
	unsigned depth = get_le16(root + offsetof(struct ext4_extent_header, eh_depth));

	if (!(ei->flags & EXT4_EXTENTS_FL) || ek_inode_has_inline(ei) ||
	    get_le16(root) != EXT4_EXT_MAGIC)
		return 0;
	return depth > EXT4_EXT_MAX_DEPTH && depth <= EK_EXT_DEEP_MAX ? depth : 0;
}

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
			/* as e2fsck -y's pass 1E: rebuilt; not with quota on, whose
			 * usage the freed tree blocks would change (no fix yet) */
			bool quota = false;

			for (unsigned t = 0; t < EK_QUOTA_TYPES; t++)
				quota |= c->quota_on[t];
			if (fsck_report_if(c, !quota, EK_PR_EXTENT_TREE_SHRINKABLE, AT_INODE(ei->ino),
					   ei->ino, depth - d, how))
				fsck_fix_done(c, rebuild_tree(c));
			return;
		}
	}
}

/*
 * e2fsck -v's statistics of inode @ei, in use and of a type that passed
 * its checks (symlinks: after check_symlink()): its type, and a block map's
 * indirect blocks.  The root and the inodes from s_first_ino on only.
 */
static void count_type(struct check *c, const struct ek_inode *ei)
{
	struct ek_fsck_stats *st = &c->sum->stats;
	const __le32 *ib = ek_inode_i_block(ei);

	if (fsck_reserved_ino(c->fs, ei->ino) || fsck_sb_ino(c->fs, ei->ino))
		return;
	switch (ei->mode & 0170000) {
	case 0100000: st->regular++; break;
	case 0040000: st->directories++; break;
	case 0020000: st->chardevs++; break;
	case 0060000: st->blockdevs++; break;
	case 0010000: st->fifos++; break;
	case 0140000: st->sockets++; break;
	}
	if ((ei->flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) || !fsck_has_map(c->fs, ei))
		return;
	st->ind += ib[EXT4_IND_BLOCK] != 0;
	st->dind += ib[EXT4_DIND_BLOCK] != 0;
	st->tind += ib[EXT4_TIND_BLOCK] != 0;
}

static int check_symlink(struct check *c, struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	char *buf, why[200] = "";
	int err;

	/* inline symlinks: as e2fsck, i_size is what the inline data holds
	 * (the target itself is not judged: e2fsck accepts what the read
	 * path would refuse, a NUL inside it) */
	if (ek_inode_has_inline(ei)) {
		uint64_t have;

		err = ek_inline_size(fs, ei, &have);
		if (err == -ENOMEM)
			return err;
		if (err)
			snprintf(why, sizeof(why), "its inline data cannot be read: %s", ek_error_msg(err));
		else if (ei->flags & EXT4_EXTENTS_FL)
			snprintf(why, sizeof(why), "inline data with the extents flag");
		else if (ei->size != have ||
			 get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)))
			snprintf(why, sizeof(why), "i_size %llu, the inline data holds %llu bytes",
				 (unsigned long long)ei->size, (unsigned long long)have);
		if (!*why)
			return 0;
		goto bad;
	}
	if (get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)))
		snprintf(why, sizeof(why), "i_size_high is %u",
			 get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)));
	else if (ek_inode_is_fast_symlink(fs, ei) && (ei->flags & EXT4_EXTENTS_FL))
		snprintf(why, sizeof(why), "a fast symlink with the extents flag");
	else if (ek_inode_symlink_blockless(fs, ei) && !ek_inode_is_fast_symlink(fs, ei))
		snprintf(why, sizeof(why), "i_size %llu, but it has no blocks: its target would "
			 "be in i_block, which holds %zu bytes", (unsigned long long)ei->size,
			 sizeof(((struct ext4_inode *)0)->i_block) - 1);
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
	c->type_bad = true;
	/* as e2fsck (its pass 2): cleared, the entries naming it then too */
	if (fsck_report(c, EK_PR_SYMLINK_INVALID, AT_INODE(ei->ino), ei->ino, why))
		fsck_fix_done(c, clear_inode(c, ei, true));
	return 0;
}

/* i_size against the blocks the map holds, by e2fsck's rules */
static void check_size(struct check *c, struct ek_inode *ei)
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
	} else {
		/* as e2fsck: written blocks past i_size (unwritten ones may lie
		 * past it, and an fs-verity file keeps its Merkle tree there),
		 * or a size no map of its kind can reach; it then wants the
		 * size up to the last block mapped */
		uint64_t per = bs / 4, max;

		if (ei->flags & EXT4_EXTENTS_FL)
			max = (1ull << (32 + fs->log_blksz)) - 1;
		else
			max = (EXT4_NDIR_BLOCKS + per + per * per + per * per * per) * bs;
		if (c->last_init >= 0 && ei->size < (uint64_t)c->last_init * bs &&
		    !(ei->flags & EXT4_VERITY_FL))
			bad = true;
		else if (ei->size > max)
			bad = true;
		want = (uint64_t)(c->last_lblk + 1) * bs;
	}
	if (bad && fsck_report(c, EK_PR_I_SIZE_WRONG, AT_INODE(ei->ino), ei->ino,
			  (unsigned long long)ei->size, (unsigned long long)want)) {
		int err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_SIZE, want);

		fsck_fix_done(c, err);
		if (!err)
			ei->size = want;	/* what the later checks see */
	}
}


/* an inline directory's i_size is what its inline data holds (e2fsck's check_blocks) */
static int check_inline_dir_size(struct check *c, struct ek_inode *ei)
{
	uint64_t want;
	int err = ek_inline_size(c->fs, ei, &want);

	if (err == -ENOMEM)
		return err;
	if (err || ei->size == want)
		return 0;	/* an unreadable system.data is the xattr check's */
	if (fsck_report(c, EK_PR_I_SIZE_WRONG, AT_INODE(ei->ino), ei->ino,
			(unsigned long long)ei->size, (unsigned long long)want)) {
		err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_SIZE, want);
		fsck_fix_done(c, err);
		if (!err)
			ei->size = want;	/* what the later checks see */
	}
	return 0;
}

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

	if (!ek_quota_charged(fs, ei->ino, ei->flags))
		return 0;
	uncertain |= c->ea_shared || fs->cluster_bits || fsck_xattr_qinodes(c);
	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		int err;

		if (!c->quota_on[t])
			continue;
		/* i_projid needs large inodes: e2fsck charges no project without */
		if (!ek_quota_type_charged(fs, t))
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

/* inodes 3 and 4 hold the user and group quota files, or nothing: as
 * e2fsck, one holding something else is zeroed (true), its blocks then
 * claimed by nothing (pass 5 frees them) */
static bool check_quota_ino(struct check *c, const struct ek_inode *ei)
{
	unsigned t = ei->ino == EXT4_USR_QUOTA_INO ? EK_QUOTA_USR : EK_QUOTA_GRP;
	int err;

	if (c->quota_on[t] && ek_quota_inum(c->fs, t) == ei->ino)
		return false;	/* in use: judged with its file after pass 5 */
	if (!(ei->links_count || ei->blocks || get_le32(ek_inode_i_block(ei))) ||
	    !fsck_report(c, EK_PR_QUOTA_INODE_NOT_CLEAR, AT_INODE(ei->ino), ei->ino))
		return false;
	err = ek_fix_inode_zero(c->ws, ei->ino);
	fsck_fix_done(c, err);
	return !err;
}

/*
 * A quota file the superblock names is a regular file: as e2fsck's pass 1
 * (PR_1_QUOTA_BAD_MODE), one that is not (inodes 3 and 4 whatever their
 * links; the project file when linked) gets mode 0100000 and is then
 * checked as one; its content is judged after pass 5
 */
static void check_quota_mode(struct check *c, struct ek_inode *ei)
{
	unsigned t = 0;
	int err;

	if (ek_is_reg(ei->mode) || (ei->ino >= c->fs->sb.first_ino && !ei->links_count))
		return;
	while (t + 1 < EK_QUOTA_TYPES && !(c->quota_on[t] && ek_quota_inum(c->fs, t) == ei->ino))
		t++;
	if (!fsck_report(c, EK_PR_QUOTA_INODE_BAD, AT_INODE(ei->ino), ek_quota_type_name(t), ei->ino,
			 ei->mode || ei->links_count ? "not a regular file" : "not in use"))
		return;
	err = ek_fix_inode_mode(c->ws, ei->ino, 0100000);
	fsck_fix_done(c, err);
	if (!err)
		ei->mode = 0100000;	/* what the later checks see */
}

/*
 * Devices, fifos and sockets keep no blocks (e2fsck_pass1_check_device_inode,
 * check_extents_inlinedata, check_size): one with the index flag, or
 * immutable (which a device cannot be made) with i_block words past the
 * device numbers set, is illegal, and cleared as e2fsck's pass 2 does
 * (true: cleared or named so); the extents or inline data flag is
 * cleared, a size set to zero.
 */
static bool check_device(struct check *c, struct ek_inode *ei)
{
	const __le32 *ib = ek_inode_i_block(ei);
	char why[64] = "";

	if (!special(ei->mode) || ek_is_lnk(ei->mode))
		return false;
	if (ei->flags & EXT4_INDEX_FL)
		snprintf(why, sizeof(why), "flags 0x%x: the htree index flag", ei->flags);
	else if (ei->flags & (EXT4_IMMUTABLE_FL | EXT4_APPEND_FL))
		for (int i = 4; i < EXT4_N_BLOCKS && !*why; i++)
			if (ib[i])
				snprintf(why, sizeof(why), "immutable, with i_block[%d] set", i);
	if (*why) {
		/* "an illegal block device": the type name past its article "a " */
		if (fsck_report(c, EK_PR_SPECIAL_ILLEGAL, AT_INODE(ei->ino), ei->ino,
				fsck_type_name(ei->mode) + 2, why))
			fsck_fix_done(c, clear_inode(c, ei, false));
		return true;
	}
	if ((ei->flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) &&
	    fsck_report(c, EK_PR_SPECIAL_FLAGS_BAD, AT_INODE(ei->ino), ei->ino,
			fsck_type_name(ei->mode) + 2))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR,
					      EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL));
	if (ei->size && fsck_report(c, EK_PR_SPECIAL_SIZE, AT_INODE(ei->ino), ei->ino,
				    fsck_type_name(ei->mode) + 2, (unsigned long long)ei->size))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_SIZE, 0));
	return false;	/* the immutable flag is judged next */
}

/*
 * Both the inline data and the extents flag (e2fsck's
 * fix_inline_data_extents_file(); devices are check_device()'s): i_block
 * holding an extent root keeps the extents flag; a size that fits in
 * i_block and the inode's xattr room keeps the inline data flag; i_block
 * words that all name blocks of the filesystem are a block map (both flags
 * cleared); anything else is junk and the inode is cleared.  The flags in
 * @ei follow the fix, for the checks after it.  True: the inode is cleared.
 */
static bool check_inline_extents(struct check *c, struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	const __le32 *ib = ek_inode_i_block(ei);
	uint32_t clear, room = 0;
	enum ek_problem_id id;
	bool map = true;

	if ((ei->flags & (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL)) !=
	    (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL) || (special(ei->mode) && !ek_is_lnk(ei->mode)) ||
	    (!ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS) &&
	     !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA)))
		return false;
	if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE &&
	    ei->extra_isize <= fs->inode_size - EXT4_GOOD_OLD_INODE_SIZE)
		room = fs->inode_size - EXT4_GOOD_OLD_INODE_SIZE - ei->extra_isize;
	for (int i = 0; i < EXT4_N_BLOCKS; i++)
		if (le32_to_cpu(ib[i]) >= fs->sb.blocks_count)
			map = false;
	if (!ek_ext_node_check(ei->ino, 0, ib, EXT4_N_BLOCKS * 4, -1)) {
		id = EK_PR_INLINE_EXTENTS_IS_EXTENT;
		clear = EXT4_INLINE_DATA_FL;
	} else if (ei->size < EXT4_N_BLOCKS * 4 + (uint64_t)room) {
		id = EK_PR_INLINE_EXTENTS_IS_INLINE;
		clear = EXT4_EXTENTS_FL;
	} else if (map) {
		id = EK_PR_INLINE_EXTENTS_IS_MAP;
		clear = EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL;
	} else {
		if (fsck_report(c, EK_PR_INLINE_EXTENTS_JUNK, AT_INODE(ei->ino), ei->ino))
			fsck_fix_done(c, clear_inode(c, ei, false));
		return c->cleared;
	}
	if (fsck_report(c, id, AT_INODE(ei->ino), ei->ino)) {
		int err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR, clear);

		fsck_fix_done(c, err);
		if (!err)
			ei->flags &= ~clear;
	}
	return false;
}

/*
 * An inode in use with the inline data flag on an inline_data filesystem
 * (from s_first_ino, as e2fsck's PR_1_INLINE_DATA_NO_ATTR): its system.data
 * xattr missing, or the xattrs it is looked for in unreadable (any error
 * of ek_xattr_get but memory and reads; ek_inline_size would read a missing
 * one as no bytes past i_block, as the kernel does), its inline data is
 * lost: as e2fsck, truncated (i_size 0, the flag cleared, i_block zeroed).
 * @ei follows the fix, and a failed inode checksum (*@derr) is set with it.
 */
static int check_inline_attr(struct check *c, struct ek_inode *ei, int *derr)
{
	struct ek_fs *fs = c->fs;
	char why[200];
	uint8_t *val;
	size_t len;
	int err;

	if (!(ei->flags & EXT4_INLINE_DATA_FL) || ei->ino < fs->sb.first_ino ||
	    !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA))
		return 0;
	err = ek_xattr_get(fs, ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &val, &len);
	free(val);
	if (!err)
		return 0;
	if (err == -ENOMEM || err == -EIO)
		return err;
	if (err == -ENODATA || err == -ENOENT)
		snprintf(why, sizeof(why), "is missing");
	else
		snprintf(why, sizeof(why), "cannot be read: %s", ek_error_msg(err));
	if (fsck_report(c, EK_PR_INLINE_DATA_NO_ATTR, AT_INODE(ei->ino), ei->ino, why)) {
		err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_INLINE_DROP, 0);
		fsck_fix_done(c, err);
		if (!err) {
			/* what the later checks see */
			ek_inode_inline_drop(ei->raw);
			ei->size = 0;
			ei->flags &= ~EXT4_INLINE_DATA_FL;
			if (*derr == -EK_BADCRC)
				*derr = 0;
		}
	}
	return 0;
}

/* an INCOMPAT feature the superblock has, or a fix of this run set */
static bool has_incompat(const struct check *c, uint32_t mask)
{
	return ek_has_incompat(c->fs, mask) || (c->incompat_set & mask);
}

/* the pending fix sets INCOMPAT feature @mask (later inodes see it set) */
static void set_incompat(struct check *c, uint32_t mask)
{
	int err = ek_fix_super_feature(c->ws, EK_FEAT_INCOMPAT, mask, true);

	fsck_fix_done(c, err);
	if (!err)
		c->incompat_set |= mask;
}

/* the pending fix changes @ei's flags (@set, then @clear); @ei follows it,
 * and a failed checksum (*@derr) is set with it */
static void fix_flags(struct check *c, struct ek_inode *ei, uint32_t set, uint32_t clear, int *derr)
{
	int err = set ? ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_SET, set) : 0;

	if (!err && clear)
		err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR, clear);
	fsck_fix_done(c, err);
	if (err)
		return;
	ei->flags = (ei->flags | set) & ~clear;
	if (*derr == -EK_BADCRC)
		*derr = 0;
}

/* e2fsck's test before the extent flag checks: linked, or the bad blocks,
 * root or journal inode */
static bool linked_ino(const struct ek_inode *ei)
{
	return ei->links_count || ei->ino == EXT4_BAD_INO || ei->ino == EXT4_ROOT_INO ||
	       ei->ino == EXT4_JOURNAL_INO;
}

/* i_block holds an extent root (extent.c's node check; the magic first:
 * most inodes are asked, and a failed check here is no finding) */
static bool ext_root(const struct ek_inode *ei)
{
	const __le32 *ib = ek_inode_i_block(ei);

	return get_le16(ib) == EXT4_EXT_MAGIC &&
	       !ek_ext_node_check(ei->ino, 0, ib, EXT4_N_BLOCKS * 4, -1);
}

bool fsck_extents_unflagged(const struct check *c, const struct ek_inode *ei)
{
	return !(ei->flags & (EXT4_EXTENTS_FL | EXT4_INLINE_DATA_FL)) && linked_ino(ei) &&
	       (ek_is_reg(ei->mode) || ek_is_dir(ei->mode)) &&
	       has_incompat(c, EXT4_FEATURE_INCOMPAT_EXTENTS) && ext_root(ei);
}

/* the pending fix clears @ei (1: cleared) */
static int clear_flagged(struct check *c, struct ek_inode *ei)
{
	fsck_fix_done(c, clear_inode(c, ei, false));
	return c->cleared;
}

/*
 * Inode flags against the superblock's features, as e2fsck's pass 1
 * checks them before the block map (PR_1_CASEFOLD_*, PR_1_INLINE_DATA_*,
 * PR_1_EXTENT_FEATURE, PR_1_EXTENTS_SET, PR_1_UNSET_EXTENT_FL):
 *  - the casefold flag on a non-directory, or without the casefold feature:
 *    the flag cleared;
 *  - the inline data flag (from s_first_ino) without inline_data: the
 *    feature set when the system.data xattr is there, else the inode cleared;
 *  - the extents flag (an inode linked, or the bad blocks, root or journal
 *    inode) without extent: the feature set when i_block holds an extent
 *    root (extent.c's node check), else the inode cleared;
 *  - a linked regular file or directory without the extents flag whose
 *    i_block holds an extent root, on an extent filesystem: the flag set.
 *    Fixed or not, the rest of the check walks it as the extent tree it is
 *    (what the fix leaves, and what its blocks are: as a block map every
 *    header word would be an illegal block).  Not an inline data inode,
 *    whose i_block is file data (e2fsck looks there too).
 * An inode both inline and extents is check_inline_extents()'s.  Under -n
 * e2fsck also offers the second choice (clear the inode) once the first is
 * declined; here it is offered only to a repair that declined the first.
 * Returns 1 when the inode was cleared, 0, or -ENOMEM/-EIO.
 */
static int check_flag_features(struct check *c, struct ek_inode *ei, int *derr)
{
	struct ek_fs *fs = c->fs;
	bool linked = linked_ino(ei);
	bool root = ext_root(ei);

	if ((ei->flags & EXT4_CASEFOLD_FL) && !ek_is_dir(ei->mode)) {
		if (fsck_report(c, EK_PR_CASEFOLD_NONDIR, AT_INODE(ei->ino), ei->ino))
			fix_flags(c, ei, 0, EXT4_CASEFOLD_FL, derr);
	} else if ((ei->flags & EXT4_CASEFOLD_FL) &&
		   !has_incompat(c, EXT4_FEATURE_INCOMPAT_CASEFOLD)) {
		if (fsck_report(c, EK_PR_CASEFOLD_FEATURE, AT_INODE(ei->ino), ei->ino))
			fix_flags(c, ei, 0, EXT4_CASEFOLD_FL, derr);
	}
	if ((ei->flags & (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL)) ==
	    (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL))
		return 0;
	if ((ei->flags & EXT4_INLINE_DATA_FL) && ei->ino >= fs->sb.first_ino &&
	    !has_incompat(c, EXT4_FEATURE_INCOMPAT_INLINE_DATA)) {
		uint8_t *val = NULL;
		size_t len;
		int err = ek_xattr_get(fs, ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &val, &len);
		bool attr = !err;

		free(val);
		if (err == -ENOMEM || err == -EIO)
			return err;
		if (attr && fsck_report(c, EK_PR_INLINE_DATA_FEATURE, AT_INODE(ei->ino), ei->ino))
			set_incompat(c, EXT4_FEATURE_INCOMPAT_INLINE_DATA);
		else if ((!attr || c->ws) &&
			 fsck_report(c, EK_PR_INLINE_DATA_SET, AT_INODE(ei->ino), ei->ino))
			return clear_flagged(c, ei);
	}
	if ((ei->flags & EXT4_EXTENTS_FL) && linked &&
	    !has_incompat(c, EXT4_FEATURE_INCOMPAT_EXTENTS)) {
		if (root && fsck_report(c, EK_PR_EXTENT_FEATURE, AT_INODE(ei->ino), ei->ino))
			set_incompat(c, EXT4_FEATURE_INCOMPAT_EXTENTS);
		else if ((!root || c->ws) &&
			 fsck_report(c, EK_PR_EXTENTS_SET, AT_INODE(ei->ino), ei->ino))
			return clear_flagged(c, ei);
	}
	if (fsck_extents_unflagged(c, ei)) {
		if (fsck_report(c, EK_PR_UNSET_EXTENT_FL, AT_INODE(ei->ino), ei->ino))
			fix_flags(c, ei, EXT4_EXTENTS_FL, 0, derr);
		ei->flags |= EXT4_EXTENTS_FL;	/* walked as what it is */
	}
	return 0;
}

/*
 * An inode whose mode is not a directory, file or symlink but whose inline
 * data reads as a directory's start (e2fsck's check_is_really_dir, its
 * inline data half): a parent that can be one, a first entry naming no
 * reserved inode with a rec_len inside i_block, inline data a multiple of
 * 4 bytes long.  Made a directory (permissions kept), so its entries stay.
 */
static void check_really_dir(struct check *c, struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	const uint8_t *ib = (const uint8_t *)ek_inode_i_block(ei);
	uint32_t parent = get_le32(ib), first = get_le32(ib + 4);
	uint32_t rl = ek_rec_len_from_disk(get_le16(ib + 8), fs->blksz);
	uint64_t size;
	uint16_t mode;
	int err;

	if (ek_is_dir(ei->mode) || ek_is_reg(ei->mode) || ek_is_lnk(ei->mode) || !parent ||
	    !ek_inode_has_inline(ei) || !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA))
		return;
	if (ek_inline_size(fs, ei, &size) || (size & 3))
		return;
	if (parent >= fs->sb.inodes_count || (parent < fs->sb.first_ino && parent != EXT4_ROOT_INO) ||
	    first >= fs->sb.inodes_count || (first < fs->sb.first_ino && first) ||
	    rl > EXT4_N_BLOCKS * 4 - 4)
		return;
	mode = (uint16_t)((ei->mode & 07777) | 0040000);
	if (fsck_report(c, EK_PR_INODE_REALLY_DIR, AT_INODE(ei->ino), ei->ino, ei->mode)) {
		err = ek_fix_inode_mode(c->ws, ei->ino, mode);
		fsck_fix_done(c, err);
		if (!err)
			ei->mode = mode;	/* what the later checks see */
	}
}

/*
 * The inode scan skips an all-zero inode; e2fsck's pass 1 tests the root
 * whatever it holds (a zeroed root is not a directory: cleared, made anew
 * in pass 3).  Called before the first inode past the root, or after the
 * scan; not for a root the scan had no reason to read (its group's table
 * uninitialised or unused there, as e2fsck's scan skips it).
 */
int fsck_pass1_root(struct check *c)
{
	struct ek_fs *fs = c->fs;
	const struct ek_group *g = &fs->groups[0];
	struct ek_inode ei;
	int err;

	c->root_scanned = true;
	if ((fs->has_csum || fs->has_gdt_csum) &&
	    ((g->flags & EXT4_BG_INODE_UNINIT) ||
	     (!g->csum_bad && g->itable_unused <= fs->sb.inodes_per_group &&
	      EXT4_ROOT_INO > fs->sb.inodes_per_group - g->itable_unused)))
		return 0;
	err = ek_inode_read(fs, EXT4_ROOT_INO, &ei);
	if (err && err != -EK_BADCRC)
		return err == -ENOMEM ? err : 0;	/* (the table's fault is named elsewhere) */
	err = fsck_pass1_inode(c, &ei, err);
	ek_inode_release(&ei);
	return err;
}

int fsck_pass1_inode(void *arg, struct ek_inode *ei, int derr)
{
	struct check *c = arg;
	struct ek_fs *fs = c->fs;
	bool qf = quota_file_ino(c, ei->ino);
	bool both;
	uint64_t want;
	int err;

	if (ei->ino == EXT4_ROOT_INO)
		c->root_scanned = true;
	else if (!c->root_scanned && ei->ino > EXT4_ROOT_INO && (err = fsck_pass1_root(c)))
		return err;

	if (ek_group_of_ino(fs, ei->ino) != c->p1_group) {
		c->p1_group = ek_group_of_ino(fs, ei->ino);
		fsck_units(c, 1, c->p1_group, fs->group_count);
	}
	/* a table not in its group, to be made anew: what it holds is not inodes */
	if (fsck_itable_moving(c, ek_group_of_ino(fs, ei->ino)))
		return 0;
	/* an inode in a bad block of the inode table is unreadable: left alone */
	if (c->nbad && ei->ino != EXT4_BAD_INO) {
		ek_blk_t at;
		uint32_t off;

		if (ek_inode_loc(fs, ei->ino, &at, &off) == 0)
			for (size_t i = 0; i < c->nbad; i++)
				if (c->bad[i] == at) {
					err = fsck_iflags_or(c, ei->ino, IN_USE | IN_BAD_BLOCK);
					/* its xattr block is marked with the others' */
					if (!err && ei->file_acl && ek_fs_block_valid(fs, ei->file_acl) &&
					    ek_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR))
						err = fsck_blk_push(&c->xblk, &c->nx, &c->x_cap, ei->file_acl);
					return err;
				}
	}
	if ((ei->ino == EXT4_USR_QUOTA_INO || ei->ino == EXT4_GRP_QUOTA_INO) &&
	    check_quota_ino(c, ei))
		return 0;	/* zeroed: nothing of it is claimed */
	if (qf)
		check_quota_mode(c, ei);
	/* as e2fsck: inode 8 holds data while no internal journal uses it (a
	 * journal turned off by hand, or a recreation cut short): cleared,
	 * its blocks freed by pass 5; a superblock still naming it (without
	 * has_journal) loses its journal fields too, as e2fsck's pass 0 clears
	 * them first (else e2fsck then finds "an invalid journal (inode 8)") */
	if (ei->ino == EXT4_JOURNAL_INO &&
	    !(ek_has_compat(fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) &&
	      fs->sb.journal_inum == EXT4_JOURNAL_INO) &&
	    (ei->links_count || ei->blocks || get_le32(ek_inode_i_block(ei))) &&
	    fsck_report(c, EK_PR_JOURNAL_INODE_NOT_CLEAR, AT_INODE(ei->ino))) {
		int err = fs->sb.journal_inum == EXT4_JOURNAL_INO ? ek_fix_journal_clear(c->ws) :
								    ek_fix_journal_inode_clear(c->ws);

		fsck_fix_done(c, err);
		if (!err)
			return 0;	/* nothing of it is claimed */
	}
	/* e2fsck: a dtime below the inode count is an orphan list's link left
	 * behind (the list was never processed: recovery processes it first) */
	if (ei->dtime && ei->dtime < fs->sb.inodes_count &&
	    fsck_report(c, EK_PR_INODE_ORPHAN_LEFTOVER, AT_INODE(ei->ino), ei->ino, ei->dtime)) {
		/* as e2fsck: linked, no dtime; deleted, deleted now */
		uint64_t now = ei->links_count ? 0 : (uint64_t)c->o->now;

		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, now ? EK_IFIX_DTIME_SET : EK_IFIX_DTIME, now));
		ei->dtime = (uint32_t)now;	/* what the later checks see */
	}
	/* as e2fsck, the root's first test, linked or not: a directory, or
	 * cleared (pass 2 then clears the entries naming it, pass 3 makes a
	 * new root and connects its directories to /lost+found) */
	if (ei->ino == EXT4_ROOT_INO && !ek_is_dir(ei->mode) &&
	    fsck_report(c, EK_PR_ROOT_NOT_DIR, AT_INODE(ei->ino), ei->mode)) {
		c->dups_at = c->ndups;	/* (nothing of it is claimed yet) */
		c->nx_at = c->nx;
		err = clear_inode(c, ei, false);
		fsck_fix_done(c, err);
		if (err == -ENOMEM)
			return err;
		if (!err)
			return 0;
	}
	if (ei->ino == EXT4_ROOT_INO && ei->dtime && ei->links_count &&
	    fsck_report(c, EK_PR_ROOT_DTIME, AT_INODE(ei->ino), ei->dtime)) {
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_DTIME, 0));
		ei->dtime = 0;	/* what the later checks see */
	}
	/* e2fsck: an inode is in use when linked; the reserved ones with a
	 * mode, and the bad blocks inode (which has none) always */
	if (!ei->links_count && !(fsck_reserved_ino(fs, ei->ino) && ei->mode) &&
	    ei->ino != EXT4_BAD_INO) {
		/* a deleted inode records when: the kernel sets dtime */
		if (ei->ino >= fs->sb.first_ino && ei->mode && !ei->dtime && !qf &&
		    fsck_report(c, EK_PR_INODE_ZERO_DTIME, AT_INODE(ei->ino), ei->ino))
			fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_DTIME_SET,
						 (uint64_t)c->o->now));
		/* as e2fsck, a reserved inode's checksum is checked in use or not
		 * (an unused inode from s_first_ino on is not) */
		if (derr == -EK_BADCRC && fsck_reserved_ino(fs, ei->ino) &&
		    fsck_report(c, EK_PR_INODE_CHECKSUM, AT_INODE(ei->ino), ei->ino))
			fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_CSUM, 0));
		return 0;
	}
	/* this inode's repair state (clear_inode() undoes its claims) */
	c->dups_at = c->ndups;
	c->nx_at = c->nx;
	c->nxv = c->nxtree = 0;
	c->illegal = 0;
	c->map_rebuild = c->map_clear = c->map_left = c->cleared = c->type_bad = false;
	/* as e2fsck, before the other inode checks; both the inline data and
	 * the extents flag: after check_inline_extents() chose one */
	both = (ei->flags & (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL)) ==
	       (EXT4_INLINE_DATA_FL | EXT4_EXTENTS_FL);
	if (!both && (err = check_inline_attr(c, ei, &derr)))
		return err;
	if (!qf && !fsck_reserved_ino(fs, ei->ino))
		check_really_dir(c, ei);
	err = fsck_inode_in_use(c, ei->ino, ei->mode, ei->links_count);
	if (!err && ek_is_dir(ei->mode) && !qf)
		err = fsck_iflags_or(c, ei->ino, IS_DIR);
	if (!err && ek_is_dir(ei->mode) && !qf)
		err = fsck_dir_add(c, ei->ino);
	/* the EA_INODE flag on anything but a regular file is cleared (e2fsck
	 * 1.47.1): no xattr may name a directory or special file as its value */
	if (!err && (ei->flags & EXT4_EA_INODE_FL) && !ek_is_reg(ei->mode) && !qf &&
	    fsck_report(c, EK_PR_EA_INODE_NOT_REGULAR, AT_INODE(ei->ino), ei->ino)) {
		int ferr = ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR, EXT4_EA_INODE_FL);

		fsck_fix_done(c, ferr);
	}
	if (!err && (ei->flags & EXT4_EA_INODE_FL) && ek_is_reg(ei->mode))
		err = fsck_iflags_or(c, ei->ino, IS_EA);
	if (err)
		return err;
	err = check_flag_features(c, ei, &derr);
	if (err)
		return err < 0 ? err : 0;	/* an error, or cleared */
	if (derr == -EK_BADCRC) {
		if (fsck_report(c, EK_PR_INODE_CHECKSUM, AT_INODE(ei->ino), ei->ino))
			fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_CSUM, 0));
	} else if (derr && fsck_report(c, EK_PR_INODE_DAMAGED, AT_INODE(ei->ino), ek_error_msg(derr))) {
		fsck_fix_done(c, ek_fix_inode_extra_isize(c->ws, ei->ino));	/* e2fsck's preen too */
	}
	if (qf)
		;	/* its mode is QUOTA_INODE_BAD's, after pass 5 */
	else if (!type_known(ei->mode) && !fsck_reserved_ino(fs, ei->ino)) {
		/* as e2fsck's pass 2 (it deallocates the inode) */
		c->type_bad = true;
		if (fsck_report(c, EK_PR_INODE_BAD_MODE, AT_INODE(ei->ino), ei->ino, ei->mode))
			fsck_fix_done(c, clear_inode(c, ei, false));
	} else if (check_device(c, ei))
		c->type_bad = true;	/* named there */
	else if (check_inline_extents(c, ei))
		;	/* cleared */
	else if (special(ei->mode) && (ei->flags & (EXT4_IMMUTABLE_FL | EXT4_APPEND_FL)) &&
		 fsck_report(c, EK_PR_INODE_SPECIAL_FLAGS, AT_INODE(ei->ino), ei->ino,
			fsck_type_name(ei->mode)))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR,
					 EXT4_IMMUTABLE_FL | EXT4_APPEND_FL));
	if (c->cleared)
		return 0;
	if (!qf && !c->type_bad)
		count_type(c, ei);
	if (both && (err = check_inline_attr(c, ei, &derr)))
		return err;
	/* i_blocks_hi without huge_file (the Hurd keeps other fields there) */
	if (!ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE) &&
	    le32_to_cpu(fs->raw_sb->s_creator_os) != 1 /* EXT4_OS_HURD */ &&
	    get_le16(ei->raw + offsetof(struct ext4_inode, l_i_blocks_high)) &&
	    fsck_report(c, EK_PR_BLOCKS_HI, AT_INODE(ei->ino), ei->ino,
			get_le16(ei->raw + offsetof(struct ext4_inode, l_i_blocks_high))))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_BLOCKS_HI, 0));
	if (ei->dtime && ei->links_count && !fsck_reserved_ino(fs, ei->ino) &&
	    ei->ino != EXT4_ROOT_INO && fsck_report(c, EK_PR_INODE_DTIME_SET, AT_INODE(ei->ino), ei->ino))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_DTIME, 0));
	/* fields no kernel writes any more (e2fsck's pass 2 bad-inode checks) */
	if (get_le32(ei->raw + offsetof(struct ext4_inode, i_obso_faddr)) &&
	    fsck_report(c, EK_PR_INODE_FIELD_NONZERO, AT_INODE(ei->ino), "i_faddr", ei->ino,
			get_le32(ei->raw + offsetof(struct ext4_inode, i_obso_faddr))))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_FADDR, 0));
	if (ek_is_dir(ei->mode) && !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) &&
	    get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high)) &&
	    fsck_report(c, EK_PR_INODE_FIELD_NONZERO, AT_INODE(ei->ino), "i_size_high", ei->ino,
			get_le32(ei->raw + offsetof(struct ext4_inode, i_size_high))))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_SIZE_HIGH, 0));
	if ((ei->flags & EXT4_IMAGIC_FL) && !ek_has_compat(fs, EXT4_FEATURE_COMPAT_IMAGIC_INODES) &&
	    fsck_report(c, EK_PR_INODE_IMAGIC, AT_INODE(ei->ino), ei->ino))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR, EXT4_IMAGIC_FL));
	/* as e2fsck's handle_htree(); the kernel reads such an inode without
	 * its index, and e2fsck clears the flag (a directory's blocks are then
	 * pass 2's as linear ones: the root block's entries as any others) */
	if ((ei->flags & EXT4_INDEX_FL) &&
	    (!ek_is_dir(ei->mode) ? fsck_report(c, EK_PR_HTREE_NOT_DIR, AT_INODE(ei->ino), ei->ino) :
	     !ek_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX) &&
	     fsck_report(c, EK_PR_HTREE_NO_DIR_INDEX, AT_INODE(ei->ino), ei->ino))) {
		int err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_FLAGS_CLEAR, EXT4_INDEX_FL);

		fsck_fix_done(c, err);
		if (!err)
			ei->flags &= ~(uint32_t)EXT4_INDEX_FL;
	}

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
	err = fsck_check_xattrs(c, ei);	/* fsck_xattr.c */
	if (err)
		return err;
	err = check_crypt(c, ei);
	if (err || c->cleared)
		return err;
	if (ei->file_acl && ek_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR)) {
		if (!ek_fs_block_valid(fs, ei->file_acl)) {
			if (fsck_report(c, EK_PR_XATTR_BLOCK_BAD, &(struct ek_finding){ .ino = ei->ino,
					.blk = ei->file_acl, .has_blk = true, .group = -1 },
					ei->ino, (unsigned long long)ei->file_acl)) {
				fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_FILE_ACL, 0));
				ei->file_acl = 0;
			}
		} else if ((err = fsck_blk_push(&c->xblk, &c->nx, &c->x_cap, ei->file_acl)))
			return err;
		else
			c->claimed++;	/* counted here, marked once for all its users */
	}
	/* a bad blocks list naming its own inode's block: cleared, not claimed */
	if (ei->ino == EXT4_BAD_INO && (err = fsck_bad_inode_self(c, ei)))
		return err < 0 ? err : 0;
	if (fsck_has_map(fs, ei)) {
		unsigned deep = deep_tree(ei);
		bool deep_fix = false;
		const uint8_t *root = (const uint8_t *)ek_inode_i_block(ei);

		/* e2fsck -v's histogram: every extent tree, by its depth */
		if ((ei->flags & EXT4_EXTENTS_FL) && get_le16(root) == EXT4_EXT_MAGIC &&
		    get_le16(root + 6) < EK_FSCK_EXTENT_DEPTHS)
			c->sum->stats.extent_depth[get_le16(root + 6)]++;

		err = deep ? ek_map_walk_deep(fs, ei, claim_mapping, map_bad, c) :
			     ek_map_walk_checked(fs, ei, claim_mapping, map_bad, c);
		if (err == -ENOMEM || err == -EIO)
			return err;
		if (err == MAP_CLEAR) {
			fsck_fix_done(c, clear_inode(c, ei, true));
			if (c->cleared)
				return 0;
			c->claims_incomplete = true;
			return charge_quota(c, ei, true);
		}
		if (err) {
			/* the root itself (e2fsck: "corrupt extent header", the
			 * inode cleared); the filesystem's own inodes are not */
			if (fsck_report_if(c, ei->ino >= fs->sb.first_ino, EK_PR_BLOCK_MAP_DAMAGED,
					   AT_INODE(ei->ino), ek_error_msg(err)))
				fsck_fix_done(c, clear_inode(c, ei, true));
			if (c->cleared)
				return 0;
			/* its counts are unknown: no i_blocks finding */
			return charge_quota(c, ei, true);
		}
		/* as e2fsck, read whole and rebuilt (a warning: e2fsck -n and -p
		 * leave it); unfixed, the kernel refuses the file */
		if (deep && !c->map_left &&
		    fsck_report(c, EK_PR_EXTENT_TREE_TOO_DEEP, AT_INODE(ei->ino), ei->ino, deep,
				EXT4_EXT_MAX_DEPTH))
			deep_fix = c->map_rebuild = true;
		/* as e2fsck's pass 1E: a block map of a file, directory or
		 * symlink on bigalloc made an extent tree (the filesystem's own
		 * inodes keep theirs); the passes run again to count it */
		if (fs->cluster_bits && !(ei->flags & EXT4_EXTENTS_FL) && !c->map_left &&
		    (ei->ino == EXT4_ROOT_INO || ei->ino >= fs->sb.first_ino) &&
		    (ek_is_reg(ei->mode) || ek_is_dir(ei->mode) || ek_is_lnk(ei->mode)) &&
		    ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EXTENTS) &&
		    fsck_report(c, EK_PR_BLOCK_MAP_ON_BIGALLOC, AT_INODE(ei->ino), ei->ino)) {
			deep_fix = c->map_rebuild = true;
			c->restart = true;
		}
		if (c->map_rebuild) {
			err = rebuild_tree(c);
			if (deep_fix)
				fsck_fix_done(c, err);
			if (err == -ENOMEM)
				return err;
			if (err)
				fsck_report_if(c, false, EK_PR_BLOCK_MAP_DAMAGED, AT_INODE(ei->ino),
					       ek_error_msg(err));
		}
		/* a symlink's map left as it is (-n): still judged, as the
		 * repair judges it after clearing the bad pointers, and as
		 * e2fsck's pass 2 does */
		if (c->map_left && !err && ek_is_lnk(ei->mode) && !qf) {
			err = check_symlink(c, ei);
			if (err || c->cleared)
				return err;
		}
		if (c->map_left || err)
			return charge_quota(c, ei, true);	/* its counts are unknown */
		if (!c->map_rebuild)
			check_extent_shape(c, ei);
	}
	if (ek_is_lnk(ei->mode) && !qf) {
		err = check_symlink(c, ei);
		if (err)
			return err;
		if (c->cleared)
			return 0;
		if (!c->type_bad && !fsck_reserved_ino(fs, ei->ino) && !fsck_sb_ino(fs, ei->ino)) {
			c->sum->stats.symlinks++;
			c->sum->stats.fast_symlinks += !ek_inode_has_inline(ei) &&
						       ek_inode_is_fast_symlink(fs, ei);
		}
	} else if (ek_is_dir(ei->mode) && !qf && !c->claimed && fsck_has_map(fs, ei)) {
		/* as e2fsck's check_blocks(): no block at all (its xattr block
		 * and tree blocks count), no inline data: cleared; pass 2 then
		 * clears the entries naming it */
		if (fsck_report(c, EK_PR_DIR_ZERO_LENGTH, AT_INODE(ei->ino), ei->ino)) {
			fsck_fix_done(c, clear_inode(c, ei, true));
			if (c->cleared)
				return 0;
		}
		check_size(c, ei);
	} else if (fsck_has_map(fs, ei)) {
		check_size(c, ei);
	} else if (ek_is_dir(ei->mode) && ek_inode_has_inline(ei)) {
		err = check_inline_dir_size(c, ei);
		if (err)
			return err;
	}
	/* e2fsck: a regular file of 2 GiB or more needs large_file (fsck_check_features) */
	if (ek_is_reg(ei->mode) && ei->size >= 0x80000000ull) {
		c->large_files = true;
		c->sum->stats.large_files++;
	}
	if (c->fragmented && ei->ino != EXT4_RESIZE_INO) {
		c->sum->fragmented++;	/* as e2fsck, which leaves the resize inode out */
		if (ek_is_dir(ei->mode))
			c->sum->stats.fragmented_dirs++;
		else
			c->sum->stats.fragmented_files++;
	}
	/* i_blocks counts 512-byte sectors of whole clusters */
	/* and the blocks of its xattr value inodes, as the kernel charges them */
	want = (c->claimed << (fs->log_blksz + fs->cluster_bits)) >> 9;
	/* (bigalloc's resize inode maps descriptor blocks, not clusters: not judged) */
	if (ei->blocks != want && !c->ea_shared && ei->ino != EXT4_BAD_INO &&
	    !(fs->cluster_bits && ei->ino == EXT4_RESIZE_INO) &&
	    fsck_report(c, EK_PR_I_BLOCKS_WRONG, AT_INODE(ei->ino), ei->ino,
		   (unsigned long long)ei->blocks, (unsigned long long)want))
		fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_IBLOCKS, want));
	return charge_quota(c, ei, false);
}

/* each xattr block once (inodes share one as its h_refcount says); one a
 * map or the metadata claims too is claimed twice (pass 1B, as e2fsck) */
int fsck_mark_xattr(struct check *c)
{
	bool was;

	if (c->nx)
		qsort(c->xblk, c->nx, sizeof(*c->xblk), ek_cmp_u64);
	for (size_t i = 0; i < c->nx; i++) {
		int err = i && c->xblk[i] == c->xblk[i - 1] ? 0 : fsck_mark(c, c->xblk[i], &was);

		if (!err && was && (!i || c->xblk[i] != c->xblk[i - 1]) && !fsck_shares_allowed(c))
			err = fsck_blk_push(&c->dups, &c->ndups, &c->dups_cap, c->xblk[i]);
		if (err)
			return err;
	}
	return 0;
}


/* each xattr block's h_refcount against the inodes that name it */
int fsck_check_xattr_refs(struct check *c)
{
	if (!c->nx)
		return 0;
	qsort(c->xblk, c->nx, sizeof(*c->xblk), ek_cmp_u64);
	for (size_t i = 0, j; i < c->nx; i = j) {
		uint32_t refs;
		int err;

		for (j = i; j < c->nx && c->xblk[j] == c->xblk[i]; j++)
			;
		err = ek_xattr_block_refcount(c->fs, c->xblk[i], 0, &refs);
		if (err == -ENOMEM)
			return err;
		if (!err && refs != j - i &&
		    fsck_report(c, EK_PR_XATTR_REFCOUNT, &(struct ek_finding){ .blk = c->xblk[i],
			   .has_blk = true, .group = -1 }, (unsigned long long)c->xblk[i],
			   refs, (unsigned)(j - i)))
			fsck_fix_done(c, ek_fix_xattr_refcount(c->ws, c->xblk[i], (uint32_t)(j - i)));
	}
	return 0;
}
