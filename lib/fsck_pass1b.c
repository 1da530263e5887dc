// SPDX-License-Identifier: MIT
/* fsck_pass1b.c - the owners of every block claimed twice (e2fsck's 1B-1C) */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- pass 1b: every owner of the blocks claimed twice (e2fsck 1b-1c) ---------- */

struct owner1b {
	ek_blk_t blk;
	ek_ino_t ino;		/* 0: the filesystem's metadata */
};

struct fsck_pass1b {
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

static int add_owner(struct fsck_pass1b *p, ek_blk_t blk, ek_ino_t ino)
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

static int owners_in_range(struct fsck_pass1b *p, ek_blk_t first, uint64_t len)
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
	struct fsck_pass1b *p = arg;
	struct check *c = p->c;
	int err;

	(void)derr;
	if (!(fsck_iflags(c, ei->ino) & IN_USE) || (fsck_iflags(c, ei->ino) & IN_BAD_BLOCK) ||
	    ei->ino == EXT4_BAD_INO || ei->ino == EXT4_RESIZE_INO || !fsck_has_map(c->fs, ei))
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

int fsck_pass1b(struct check *c)
{
	struct fsck_pass1b p = { .c = c };
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
		fsck_report(c, EK_PR_BLOCK_CLAIMED_TWICE, &(struct ek_finding){ .ino = p.own[i].ino,
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

/* xattr blocks are shared: fsck_mark each once, after every inode named its own
 * (pass 1 recorded them) */
