// SPDX-License-Identifier: MIT
/* fsck_pass1b.c - the owners of every block claimed twice and their copies (e2fsck's 1B-1D) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- pass 1b: every owner of the blocks claimed twice (e2fsck 1b-1c) ---------- */

struct owner1b {
	ek_blk_t blk;
	ek_ino_t ino;		/* 0: the filesystem's metadata */
	bool xattr;		/* the inode's xattr block */
};

struct fsck_pass1b {
	struct check *c;
	ek_blk_t *dup;		/* the blocks claimed twice, sorted, unique */
	size_t ndup;
	struct owner1b *own;	/* (block, owner) pairs found */
	size_t nown, cap;
	ek_ino_t ino;		/* the inode being walked */
	/* the last place filed (bigalloc: one per logical cluster, however
	 * many mappings its blocks come in) */
	ek_ino_t last_ino;
	ek_blk_t last_key;
	uint64_t last_lc;
};

/* the key pass 1B files a block under: bigalloc shares whole clusters,
 * so the first block of the block's cluster */
static ek_blk_t dup_key(const struct ek_fs *fs, ek_blk_t blk)
{
	return blk & ~(ek_blk_t)(ek_cluster_ratio(fs) - 1);
}


static int cmp_own1b(const void *a, const void *b)
{
	const struct owner1b *x = a, *y = b;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static int add_owner(struct fsck_pass1b *p, ek_blk_t blk, ek_ino_t ino)
{
	if (ek_grow(&p->own, &p->cap, p->nown + 1, sizeof(*p->own)))
		return -ENOMEM;
	p->own[p->nown++] = (struct owner1b){ blk, ino, false };
	return 0;
}

/*
 * The walked inode as an owner of each dup in blocks @first..+@len (data
 * from logical block @lblk; not @data: a tree or xattr block): one owner
 * entry per place, a place being a block, or on bigalloc a logical
 * cluster mapped into the dup's cluster.
 */
static int owners_in_range(struct fsck_pass1b *p, ek_blk_t first, uint64_t len, uint64_t lblk,
			   bool data)
{
	const struct ek_fs *fs = p->c->fs;
	uint64_t mask = ek_cluster_ratio(fs) - 1;
	ek_blk_t from = dup_key(fs, first), last = first + len - 1;
	size_t lo = 0, hi = p->ndup;
	int err = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->dup[mid] < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < p->ndup && p->dup[lo] <= last && !err; lo++) {
		ek_blk_t d = p->dup[lo];
		ek_blk_t s = d > first ? d : first, e = d + mask < last ? d + mask : last;
		uint64_t lc = (lblk + (s - first)) & ~mask, lc_end = (lblk + (e - first)) & ~mask;

		for (;; lc += mask + 1) {
			bool again = data && p->last_ino == p->ino && p->last_key == d &&
				     p->last_lc == lc;

			if (!again)
				err = add_owner(p, d, p->ino);
			if (data) {
				p->last_ino = p->ino;
				p->last_key = d;
				p->last_lc = lc;
			}
			if (err || lc >= lc_end)
				break;
		}
	}
	return err;
}

static int owner_mapping(void *arg, const struct ek_mapping *m)
{
	if (m->kind == EK_MAP_INDEX)
		return 0;
	return owners_in_range(arg, m->pblk, m->len, m->lblk, m->kind == EK_MAP_DATA);
}

/* a bad entry pass 1 named (or left): its blocks were not claimed, nor are they owned */
static int owner_skip_bad(void *arg, const struct ek_map_bad *b)
{
	(void)arg;
	(void)b;
	return 0;
}

static int owner_inode(void *arg, struct ek_inode *ei, int derr)
{
	struct fsck_pass1b *p = arg;
	struct check *c = p->c;
	int err;

	ek_blk_t acl = ei->file_acl;
	size_t before;

	(void)derr;
	if (!(fsck_iflags(c, ei->ino) & IN_USE) || (fsck_iflags(c, ei->ino) & IN_BAD_BLOCK) ||
	    ei->ino == EXT4_BAD_INO || ei->ino == EXT4_RESIZE_INO)
		return 0;
	p->ino = ei->ino;
	/* an extent root without the extents flag: the tree pass 1 walked */
	if (fsck_extents_unflagged(c, ei))
		ei->flags |= EXT4_EXTENTS_FL;
	/* the walk pass 1 claimed with: past bad entries, as they were */
	err = fsck_has_map(c->fs, ei) ? ek_map_walk_checked(c->fs, ei, owner_mapping, owner_skip_bad, p) : 0;
	if (err == -ENOMEM)
		return err;	/* a damaged map was named in pass 1 */
	/* its xattr block, as pass 1 counted it (the kernel reads 32 bits without 64bit) */
	if (!ek_has_incompat(c->fs, EXT4_FEATURE_INCOMPAT_64BIT))
		acl &= 0xFFFFFFFFu;
	if (!acl || !ek_has_compat(c->fs, EXT4_FEATURE_COMPAT_EXT_ATTR) ||
	    !ek_fs_block_valid(c->fs, acl))
		return 0;
	before = p->nown;
	err = owners_in_range(p, acl, 1, 0, false);
	if (!err && p->nown > before)
		p->own[p->nown - 1].xattr = true;
	return err;
}

static int cmp_own_blk(const void *a, const void *b)
{
	const struct owner1b *x = a, *y = b;

	if (x->blk != y->blk)
		return x->blk < y->blk ? -1 : 1;
	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* what holds a block besides inodes, as e2fsck's pass 1D judges it */
#define HELD_META	0x1	/* superblock, descriptors, bitmaps, inode tables */
#define HELD_BAD	0x2	/* the bad blocks inode */
#define HELD_JOURNAL	0x4	/* the journal inode, which extkit-fsck never moves */
#define HELD_MISALIGNED	0x8	/* bigalloc: a logical cluster maps into it wrongly */

/* the index of @blk in the sorted dup[0..n), or n */
static size_t dup_index(const ek_blk_t *dup, size_t n, ek_blk_t blk)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (dup[mid] < blk)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && dup[lo] == blk ? lo : n;
}

/*
 * "inodes 19, 20 and the filesystem's metadata": the other owners of the
 * blocks @mine[0..n) of inode @self, from @byblk (the pairs by block); at
 * most 8 inodes named.  @held: per dup block, what else holds it.
 */
static void owner_names(const struct fsck_pass1b *p, const struct owner1b *byblk, size_t nown,
			ek_ino_t self, const struct owner1b *mine, size_t n, const uint8_t *held,
			char *out, size_t len)
{
	ek_ino_t named[8];
	size_t nnamed = 0, used = 0;
	bool more = false;
	uint8_t what = 0;

	for (size_t b = 0; b < n; b++) {
		size_t lo = 0, hi = nown, k = dup_index(p->dup, p->ndup, mine[b].blk);

		if (k < p->ndup)
			what |= held[k] & (HELD_META | HELD_BAD);
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
	}
	out[0] = 0;
	for (size_t q = 0; q < nnamed && used + 16 < len; q++)
		used += snprintf(out + used, len - used, "%s%u",
				 q ? ", " : nnamed > 1 ? "inodes " : "inode ", named[q]);
	if (more && used + 8 < len)
		used += snprintf(out + used, len - used, ", ...");
	if ((what & HELD_BAD) && used + 32 < len)
		used += snprintf(out + used, len - used, "%sthe bad blocks inode",
				 nnamed ? (what & HELD_META) ? ", " : " and " : "");
	if ((what & HELD_META) && used + 32 < len)
		used += snprintf(out + used, len - used, "%sthe filesystem's metadata",
				 nnamed || (what & HELD_BAD) ? " and " : "");
	if (!used)
		snprintf(out, len, "itself");	/* one inode naming a block twice */
}

/* ---- pass 1D: each inode sharing blocks gets its own copies (e2fsck's clone) ---- */

/*
 * As e2fsck -y: the inodes in ascending order, each copying every shared
 * block that another claim still holds; a block held by metadata, the bad
 * blocks inode or the journal is copied by every inode naming it, so the
 * last inode left naming a block keeps it (an inode naming one block
 * twice copies it for the first place).  The copies are planned first
 * (decide's answers recorded, the blocks allocated), so an inode that
 * cannot get them all is left as it was, then made, and committed as
 * one transaction: allocation, copied data and the map pointing at them.
 */
struct clone {
	struct check *c;
	struct fsck_pass1b *p;
	uint32_t *left;		/* per dup block: claims not yet given up */
	const uint8_t *held;	/* per dup block: HELD_* */
	bool plan;
	uint8_t *dec;		/* decide's answers in order, recorded while planning */
	size_t ndec, dec_cap, next_dec;
	size_t *dropped;	/* the dup blocks whose claim count planning took one from */
	size_t ndropped, dropped_cap;
	ek_blk_t *pre;		/* blocks allocated for the copies */
	size_t npre, pre_cap, next_pre;
	uint8_t *meta_was;	/* per dup block held by metadata, in order: its
				 * contents when pass 1D began (NULL: too many) */
	ek_blk_t xold;		/* the xattr block planned to be copied, or 0 */
};

/* claim @k given up (planning: undone by clone_cancel) */
static int clone_drop(struct clone *cl, size_t k)
{
	if (ek_grow(&cl->dropped, &cl->dropped_cap, cl->ndropped + 1, sizeof(*cl->dropped)))
		return -ENOMEM;
	cl->dropped[cl->ndropped++] = k;
	cl->left[k]--;
	return 0;
}

static int clone_decide(void *arg, ek_blk_t blk, bool tree)
{
	struct clone *cl = arg;
	size_t k;
	uint8_t d = 0;

	(void)tree;
	if (!cl->plan)
		return cl->next_dec < cl->ndec ? cl->dec[cl->next_dec++] :
		       ek_err(-EINVAL, "block %llu: the map changed between plan and copy",
			      (unsigned long long)blk);
	k = dup_index(cl->p->dup, cl->p->ndup, dup_key(cl->c->fs, blk));
	if (k < cl->p->ndup) {
		if (cl->held[k]) {
			/* copied by every inode: its claim is given up too */
			if (cl->left[k] && clone_drop(cl, k))
				return -ENOMEM;
			d = 1;
		} else if (cl->left[k] > 1) {
			if (clone_drop(cl, k))
				return -ENOMEM;
			d = 1;
		}
	}
	if (ek_grow(&cl->dec, &cl->dec_cap, cl->ndec + 1, 1))
		return -ENOMEM;
	cl->dec[cl->ndec++] = d;
	return d;
}

static int clone_alloc(void *arg, ek_blk_t goal, ek_blk_t *out)
{
	struct clone *cl = arg;

	if (cl->next_pre < cl->npre) {
		*out = cl->pre[cl->next_pre++];
		return 0;
	}
	return fsck_alloc_block(cl->c, goal, out);	/* planning counted them all: not reached */
}

static int clone_release(void *arg, ek_blk_t blk)
{
	struct clone *cl = arg;

	return fsck_free_block(cl->c, blk);
}

/*
 * A block of metadata copied into a file holds what it held when pass 1D
 * began, as e2fsck's copy (its bitmaps and descriptors are written at the
 * end): the commits of earlier copies changed bitmaps, descriptors and
 * inode tables since.  Other shared blocks never change before the last
 * copy of them.
 */
static int clone_read(void *arg, ek_blk_t blk, uint8_t *buf)
{
	struct clone *cl = arg;
	struct check *c = cl->c;
	size_t k = dup_index(cl->p->dup, cl->p->ndup, blk), m = 0;

	if (cl->meta_was && k < cl->p->ndup && (cl->held[k] & HELD_META)) {
		for (size_t i = 0; i < k; i++)
			m += (cl->held[i] & HELD_META) != 0;
		memcpy(buf, cl->meta_was + m * c->fs->blksz, c->fs->blksz);
		return 0;
	}
	return ek_wset_read(c->ws, blk, buf);
}

/* planning undone: the claims given up back, the blocks taken freed */
static void clone_cancel(struct clone *cl)
{
	for (size_t i = 0; i < cl->ndropped; i++)
		cl->left[cl->dropped[i]]++;
	for (size_t i = 0; i < cl->npre; i++)
		fsck_free_block(cl->c, cl->pre[i]);
	cl->ndropped = cl->npre = 0;
}

/*
 * The xattr block of inode @ino (its pair in @mine[0..n)) when another
 * claim holds it too: copied, and every inode naming it moved to the copy
 * together (e2fsck's clone_file), their claims given up.
 */
static int clone_plan_xattr(struct clone *cl, const struct owner1b *mine, size_t n, uint64_t *need)
{
	struct fsck_pass1b *p = cl->p;
	int err = 0;

	cl->xold = 0;
	for (size_t q = 0; q < n; q++) {
		size_t k = mine[q].xattr ? dup_index(p->dup, p->ndup, mine[q].blk) : p->ndup;

		if (k == p->ndup || (!cl->held[k] && cl->left[k] < 2))
			continue;
		cl->xold = mine[q].blk;
		(*need)++;
		for (size_t r = 0; r < p->nown && !err; r++)
			if (p->own[r].xattr && p->own[r].blk == cl->xold && cl->left[k])
				err = clone_drop(cl, k);
		break;
	}
	return err;
}

/* plan inode @ino's copies and allocate their blocks (near @goal); on
 * failure nothing is left changed */
static int clone_plan(struct clone *cl, ek_ino_t ino, ek_blk_t goal, const struct owner1b *mine,
		      size_t n)
{
	struct check *c = cl->c;
	struct ek_unshare_ops ops = { clone_decide, clone_alloc, clone_release, clone_read, cl };
	uint64_t need = 0;
	uint8_t *raw, *buf;
	int err;

	cl->ndec = cl->next_dec = cl->ndropped = cl->npre = cl->next_pre = 0;
	cl->plan = true;
	/* planning reads the inode without taking its block into the set, and
	 * allocates only when there is room: a plan given up leaves no write */
	buf = ek_malloc(c->fs->blksz);
	err = buf ? ek_wset_read_inode(c->ws, ino, buf, &raw) : -ENOMEM;
	if (!err) {
		err = ek_inode_unshare(c->fs, c->ws, ino, raw, &ops, true, &need, NULL);
	}
	if (!err)
		err = clone_plan_xattr(cl, mine, n, &need);
	free(buf);
	if (!err && !fsck_room_for(c, need))
		err = ek_err(-ENOSPC, "inode %u: no room for %llu copies", ino,
			     (unsigned long long)need);
	for (uint64_t i = 0; i < need && !err; i++) {
		ek_blk_t b;

		err = fsck_alloc_block(c, goal, &b);
		if (!err)
			err = fsck_blk_push(&cl->pre, &cl->npre, &cl->pre_cap, b);
		goal = b + 1;
	}
	if (err)
		clone_cancel(cl);
	return err;
}

/* the planned copies made, into c->ws */
static int clone_apply(struct clone *cl, ek_ino_t ino)
{
	struct check *c = cl->c;
	struct ek_unshare_ops ops = { clone_decide, clone_alloc, clone_release, clone_read, cl };
	uint64_t copies = 0;
	uint8_t *raw;
	int err = ek_wset_inode(c->ws, ino, &raw);

	cl->plan = false;
	if (!err)
		err = ek_inode_unshare(c->fs, c->ws, ino, raw, &ops, false, NULL, &copies);
	if (!err && cl->xold) {
		struct fsck_pass1b *p = cl->p;
		ek_blk_t nb;

		err = clone_alloc(cl, cl->xold, &nb);
		if (!err)
			err = ek_fix_xattr_block_copy(c->ws, cl->xold, nb);
		for (size_t r = 0; r < p->nown && !err; r++)
			if (p->own[r].xattr && p->own[r].blk == cl->xold) {
				err = ek_fix_file_acl(c->ws, p->own[r].ino, nb);
				p->own[r].blk = nb;	/* moved: nothing left to copy for it */
			}
		for (size_t i = 0; i < c->nx && !err; i++)
			if (c->xblk[i] == cl->xold)
				c->xblk[i] = nb;
	}
	for (size_t i = cl->next_pre; i < cl->npre && !err; i++)
		err = fsck_free_block(c, cl->pre[i]);	/* planning's margin */
	if (!err)
		ek_inode_csum_set(c->fs, ino, raw);
	return err;
}

/* the blocks of a map, collected before anything is changed */
struct blist {
	ek_blk_t *v;
	size_t n, cap;
};

static int collect_mapping(void *arg, const struct ek_mapping *m)
{
	struct blist *l = arg;
	int err = 0;

	if (m->kind == EK_MAP_INDEX)
		return 0;
	for (uint64_t i = 0; i < m->len && !err; i++)
		err = fsck_blk_push(&l->v, &l->n, &l->cap, m->pblk + i);
	return err;
}

/*
 * e2fsck's answer when the copies cannot be made ("Delete file?"): the
 * inode is deleted (links 0, dtime now, free in the inode bitmap); each
 * block of its map that another claim still holds stays theirs, the rest
 * are freed; its xattr block loses the reference; its quota ids are no
 * longer judged.  Pass 2 then clears the entries naming it.  Not for
 * directories (extkit-fsck's choice: pass 2 reads those).
 */
static int delete_inode(struct clone *cl, ek_ino_t ino)
{
	struct check *c = cl->c;
	struct ek_fs *fs = c->fs;
	struct blist l = { 0 };
	struct ek_inode ei;
	int err = ek_inode_read(fs, ino, &ei);

	if (err && err != -EK_BADCRC)
		return err;
	err = ek_map_walk(fs, &ei, collect_mapping, &l);
	if (err == -EK_BADCRC)
		err = 0;
	for (size_t i = 0; i < l.n && !err; i++) {
		ek_blk_t key = dup_key(fs, l.v[i]);
		size_t k = dup_index(cl->p->dup, cl->p->ndup, key);

		/* (bigalloc: a cluster once, at its first block in the map) */
		if (i && key == dup_key(fs, l.v[i - 1]))
			continue;
		if (k < cl->p->ndup && cl->left[k])
			cl->left[k]--;
		if (k == cl->p->ndup || (!cl->left[k] && !cl->held[k]))
			err = fsck_free_block(c, l.v[i]);
	}
	if (!err)
		err = ek_fix_inode(c->ws, ino, EK_IFIX_LINKS, 0);
	if (!err)
		err = ek_fix_inode(c->ws, ino, EK_IFIX_DTIME_SET, (uint64_t)c->o->now);
	if (!err)
		err = ek_wset_mark_inode(c->ws, ino, false, false);
	if (!err) {
		uint32_t id[EK_QUOTA_TYPES] = { ei.uid, ei.gid, ei.projid };

		fsck_inode_forget(c, ino);
		size_t refs = 0, at = c->nx;

		for (size_t i = 0; ei.file_acl && i < c->nx; i++)
			if (c->xblk[i] == ei.file_acl) {
				refs++;
				at = i;
			}
		if (at < c->nx)
			c->xblk[at] = c->xblk[--c->nx];	/* one reference fewer */
		/* its own xattr block, which no other inode names: freed */
		if (refs == 1 && (err = fsck_free_block(c, ei.file_acl)))
			goto out;
		for (unsigned t = 0; t < EK_QUOTA_TYPES && !err; t++)
			if (c->quota_on[t])
				err = ek_quota_tally_add(&c->quota[t], id[t], 0, 0, true);
	}
out:
	free(l.v);
	ek_inode_release(&ei);
	return err;
}

/*
 * After the copies: c->dups keeps only the blocks still claimed twice (a
 * claim not given up by an inode whose copies were made), so pass 2
 * repairs a directory block that was shared and is now the directory's
 * own (e2fsck's decrement_badcount).  A block whose owners pass 1B did
 * not find (@claims 0) is left as pass 1 named it.
 */
static void dups_left(struct check *c, const struct fsck_pass1b *p, const uint32_t *left,
		      const uint8_t *held, const uint32_t *claims)
{
	size_t n = 0;

	for (size_t i = 0; i < c->ndups; i++) {
		size_t k = dup_index(p->dup, p->ndup, dup_key(c->fs, c->dups[i]));

		if (k < p->ndup && claims[k] && left[k] < 2 &&
		    !((held[k] & (HELD_META | HELD_BAD)) && left[k]))
			continue;
		c->dups[n++] = c->dups[i];
	}
	c->ndups = n;
}

int fsck_pass1b(struct check *c)
{
	struct fsck_pass1b p = { .c = c };
	struct owner1b *byblk = NULL;
	struct clone cl = { .c = c, .p = &p };
	ek_blk_t *bad = NULL;
	uint8_t *held = NULL;
	uint32_t *claims = NULL;
	int err = 0;

	if (!c->ndups)
		return 0;
	p.dup = ek_calloc(c->ndups, sizeof(*p.dup));
	if (!p.dup)
		return -ENOMEM;
	for (size_t i = 0; i < c->ndups; i++)
		p.dup[i] = dup_key(c->fs, c->dups[i]);
	qsort(p.dup, c->ndups, sizeof(*p.dup), ek_cmp_u64);
	for (size_t i = 0; i < c->ndups; i++)
		if (!p.ndup || p.dup[p.ndup - 1] != p.dup[i])
			p.dup[p.ndup++] = p.dup[i];
	err = ek_inode_scan(c->fs, owner_inode, &p);
	if (err || !p.nown)
		goto out;
	/* one finding per inode holding shared blocks, naming the others */
	byblk = ek_calloc(p.nown ? p.nown : 1, sizeof(*byblk));
	cl.left = ek_calloc(p.ndup, sizeof(*cl.left));
	held = ek_calloc(p.ndup, 1);
	bad = ek_calloc(c->nbad ? c->nbad : 1, sizeof(*bad));
	claims = ek_calloc(p.ndup, sizeof(*claims));
	if (!byblk || !cl.left || !held || !bad || !claims) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(byblk, p.own, p.nown * sizeof(*byblk));
	qsort(byblk, p.nown, sizeof(*byblk), cmp_own_blk);
	qsort(p.own, p.nown, sizeof(*p.own), cmp_own1b);
	if (c->nbad) {
		memcpy(bad, c->bad, c->nbad * sizeof(*bad));
		qsort(bad, c->nbad, sizeof(*bad), ek_cmp_u64);
	}
	cl.held = held;
	for (size_t k = 0; k < p.ndup; k++) {
		/* (bigalloc: anything in the cluster) */
		for (uint32_t b = 0; b < ek_cluster_ratio(c->fs); b++) {
			if (fsck_in_meta(c, p.dup[k] + b))
				held[k] |= HELD_META;
			if (dup_index(bad, c->nbad, p.dup[k] + b) < c->nbad)
				held[k] |= HELD_BAD;
		}
		for (size_t i = 0; i < c->nmisaligned; i++)
			if (c->misaligned[i] == p.dup[k])
				held[k] |= HELD_MISALIGNED;
	}
	for (size_t i = 0; i < p.nown; i++) {
		size_t k = dup_index(p.dup, p.ndup, byblk[i].blk);

		if (k == p.ndup)
			continue;
		cl.left[k]++;
		claims[k]++;
		if (byblk[i].ino == c->fs->sb.journal_inum)
			held[k] |= HELD_JOURNAL;
	}
	/* the fixes so far on disk: the copies read and count from there */
	if (c->ws && (err = fsck_commit(c)))
		goto out;
	if (c->ws) {
		size_t nmeta = 0, m = 0;

		for (size_t k = 0; k < p.ndup; k++)
			nmeta += (held[k] & HELD_META) != 0;
		/* bounded: past 16 MiB a copy takes what the block holds then */
		if (nmeta && nmeta <= (16u << 20) >> c->fs->log_blksz &&
		    (cl.meta_was = ek_calloc(nmeta, c->fs->blksz)))
			for (size_t k = 0; k < p.ndup && !err; k++)
				if (held[k] & HELD_META)
					err = ek_fs_read_blocks(c->fs, p.dup[k], 1,
								cl.meta_was + m++ * c->fs->blksz);
		if (err)
			goto out;
	}
	for (size_t i = 0; i < p.nown && !c->stop && !c->err;) {
		ek_ino_t ino = p.own[i].ino;
		size_t j = i;
		char others[256];
		bool copy = false, can = true, mis = false;
		struct ek_finding where;
		unsigned long long n, first;
		int perr;
		bool planned;

		while (j < p.nown && p.own[j].ino == ino)
			j++;
		for (size_t q = i; q < j; q++) {
			size_t k = dup_index(p.dup, p.ndup, p.own[q].blk);

			if (k == p.ndup)
				continue;
			copy |= held[k] || cl.left[k] > 1;
			mis |= (held[k] & HELD_MISALIGNED) != 0;
			/* the journal keeps its blocks: fixed when only inodes share them */
			if (ino == c->fs->sb.journal_inum && (held[k] & (HELD_META | HELD_BAD)))
				can = false;
		}
		if (ino == c->fs->sb.journal_inum)
			copy = false;
		owner_names(&p, byblk, p.nown, ino, p.own + i, j - i, held, others, sizeof(others));
		where = (struct ek_finding){ .ino = ino, .blk = p.own[i].blk, .has_blk = true,
					     .group = -1 };
		n = j - i;
		first = p.own[i].blk;
		i = j;
		/* repairing: the copies planned and their blocks taken first */
		planned = c->ws && can && copy;
		perr = planned ? clone_plan(&cl, ino, p.own[j - 1].blk, p.own + i - n, n) : 0;
		if (perr == -ENOMEM || perr == -EIO) {
			err = perr;
			goto out;
		}
		if (perr == -ENOSPC) {
			/* e2fsck deletes the file; not a directory, not the
			 * filesystem's own, and only when every claim is known */
			bool del = ino >= c->fs->sb.first_ino && !(fsck_iflags(c, ino) & IS_DIR) &&
				   !c->claims_incomplete && !c->o->unshare_blocks;

			c->dups_left = true;

			if (fsck_report_if(c, del, EK_PR_DUP_CLONE_FAILED, &where, ino, n, others,
					   first)) {
				fsck_fix_done(c, delete_inode(&cl, ino));
				if ((err = fsck_commit(c)))
					goto out;
			}
			continue;
		}
		if (!fsck_report_if(c, can && !perr, EK_PR_BLOCK_CLAIMED_TWICE, &where, ino, n,
				    others, first)) {
			if (planned && !perr)
				clone_cancel(&cl);
			c->dups_left = true;
			continue;
		}
		/* nothing left to copy: the others copied theirs (e2fsck's "already
		 * reassigned or cloned") */
		err = copy ? clone_apply(&cl, ino) : 0;
		if (err)
			c->dups_left = true;
		fsck_fix_done(c, err);
		/* a cluster mended: its counts (i_blocks, bitmaps) are checked again */
		if (!err && copy && mis)
			c->restart = true;
		if (err == -ENOMEM || err == -EIO)
			goto out;
		err = copy ? fsck_commit(c) : 0;
		if (err)
			goto out;
	}
	if (!err && c->ws && !c->err)
		dups_left(c, &p, cl.left, held, claims);
out:
	free(claims);
	free(cl.meta_was);
	free(cl.dec);
	free(cl.dropped);
	free(cl.pre);
	free(cl.left);
	free(held);
	free(bad);
	free(byblk);
	free(p.dup);
	free(p.own);
	return err;
}

/* xattr blocks are shared: fsck_mark each once, after every inode named its own
 * (pass 1 recorded them) */
