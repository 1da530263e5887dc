// SPDX-License-Identifier: MIT
/*
 * e2diff - differential test of libextkit against libext2fs (a test
 * program: the tools never link libext2fs).
 *
 *   e2diff [--clean] [--name NAME] IMAGE
 *   e2diff --casefold [SEED [COUNT]]
 *
 * Opens IMAGE read-only with both libraries and compares, for every inode
 * in use by either library's reading of the inode bitmap:
 *   inode      mode, uid, gid, size, links, blocks, flags, generation,
 *              dtime, file_acl, projid, atime/ctime/mtime/crtime with their
 *              extra (nanosecond and epoch) bits
 *   map        the logical -> physical block map with the unwritten flag
 *              (ek_map_walk against libext2fs's extent handle or
 *              ext2fs_block_iterate3), and the tree blocks that hold it
 *   dirent     the entries (inode, name, file type) of every directory
 *              (ek_dir_iterate against ext2fs_dir_iterate2), as sets; an
 *              inline directory's made-up '.' and '..' get the directory
 *              type on both sides (libext2fs gives them none)
 *   xattr      names and raw values (ek_xattr_iterate against
 *              ext2fs_xattrs_iterate with XATTR_HANDLE_FLAG_RAW)
 * and per group the on-disk block bitmap as each library reads it (an
 * uninit group's computed).  With --clean (the caller found e2fsck -fn
 * clean) it also runs extkit-fsck's passes and compares the bitmaps pass 5
 * computes with the on-disk ones libext2fs reads: on a clean image they
 * are what e2fsck computes too.
 *
 * One line per difference on stdout: "NAME WHERE FIELD ours=... theirs=...",
 * WHERE being ino=N, group=N or fs; then a summary line
 *   e2diff: NAME: opened N, inodes N, blocks N, entries N, xattrs N,
 *   bitmap groups N, differences N
 * When a walk fails in both libraries it is counted as agreement (both
 * refuse); when only one fails, that is a difference.  Exit 0 without
 * differences, 1 with some, 2 on a usage or operational error.
 *
 * --casefold compares the utf8-12.1 casefold (lib/unicode.c) with
 * libext2fs's: the half_md4 hash with the casefold flag of every code
 * point alone and after "x" with a combining mark after it, then of COUNT
 * (default 200000) random names from SEED (default 1) mixing ASCII,
 * letters that fold specially, combining marks, Hangul, ignorables, any
 * code point and stray bytes; and for those the strict-mode validity and,
 * against a case-changed copy, the comparison.  Where libext2fs fails to
 * hash (1.47.0: invalid UTF-8) ours must not fold either (the kernel
 * then hashes the bytes).  One line per difference, then
 *   e2diff: casefold: names N, invalid N, pairs N, differences N
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "extkit.h"
#include "e2diff.h"

void *dx_push(struct dx_vec *vec)
{
	if (vec->n == vec->cap) {
		size_t c = vec->cap ? vec->cap * 2 : 16;
		void *p = realloc(vec->v, c * vec->sz);

		if (!p)
			return NULL;
		vec->v = p;
		vec->cap = c;
	}
	return memset((char *)vec->v + vec->n++ * vec->sz, 0, vec->sz);
}

void dx_vec_free(struct dx_vec *vec)
{
	free(vec->v);
	*vec = (struct dx_vec){ .sz = vec->sz };
}

struct ctx {
	const char *name;
	struct ek_fs *fs;
	struct theirs *t;
	bool clean;
	uint64_t inodes, blocks, entries, xattrs, groups, diffs;
};

static void diff(struct ctx *c, const char *where, const char *field, const char *ours,
		 const char *theirs)
{
	printf("%s %s %s ours=%s theirs=%s\n", c->name, where, field, ours, theirs);
	c->diffs++;
}

static void diff_u64(struct ctx *c, const char *where, const char *field, uint64_t o, uint64_t t)
{
	char a[32], b[32];

	if (o == t)
		return;
	snprintf(a, sizeof(a), "%llu", (unsigned long long)o);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)t);
	diff(c, where, field, a, b);
}

static const char *fmt_time(const struct dx_time *x, char *buf, size_t len)
{
	if (!x->present)
		snprintf(buf, len, "absent");
	else
		snprintf(buf, len, "%lld.%09u", (long long)x->sec, x->nsec);
	return buf;
}

static void diff_time(struct ctx *c, const char *where, const char *field, const struct dx_time *o,
		      const struct dx_time *t)
{
	char a[48], b[48];

	if (o->present == t->present && (!o->present || (o->sec == t->sec && o->nsec == t->nsec)))
		return;
	diff(c, where, field, fmt_time(o, a, sizeof(a)), fmt_time(t, b, sizeof(b)));
}

static struct dx_time our_time(const struct ek_time *x)
{
	return (struct dx_time){ .sec = x->sec, .nsec = x->nsec, .present = x->present };
}

/* the error @err as "error: message" */
static const char *errtext(int err, char *buf, size_t len)
{
	snprintf(buf, len, "error:%s", ek_error_msg(err));
	for (char *p = buf; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return buf;
}

/* ---- inode fields --------------------------------------------------------- */

static void cmp_inode(struct ctx *c, const char *w, const struct ek_inode *ei,
		      const struct dx_inode *t)
{
	struct dx_time a, b;

	c->inodes++;
	diff_u64(c, w, "mode", ei->mode, t->mode);
	diff_u64(c, w, "uid", ei->uid, t->uid);
	diff_u64(c, w, "gid", ei->gid, t->gid);
	diff_u64(c, w, "size", ei->size, t->size);
	diff_u64(c, w, "links", ei->links_count, t->links);
	diff_u64(c, w, "blocks", ei->blocks, t->blocks);
	diff_u64(c, w, "flags", ei->flags, t->flags);
	diff_u64(c, w, "generation", ei->generation, t->generation);
	diff_u64(c, w, "dtime", ei->dtime, t->dtime);
	diff_u64(c, w, "file_acl", ei->file_acl, t->file_acl);
	diff_u64(c, w, "projid", ei->projid, t->projid);
	a = our_time(&ei->atime);
	diff_time(c, w, "atime", &a, &t->atime);
	a = our_time(&ei->ctime);
	diff_time(c, w, "ctime", &a, &t->ctime);
	a = our_time(&ei->mtime);
	diff_time(c, w, "mtime", &a, &t->mtime);
	b = our_time(&ei->crtime);
	diff_time(c, w, "crtime", &b, &t->crtime);
}

/* ---- block maps ------------------------------------------------------------- */

struct ourmap {
	struct dx_vec runs, tree;
	bool nomem;
};

static int our_map_fn(void *arg, const struct ek_mapping *m)
{
	struct ourmap *om = arg;

	if (m->kind == EK_MAP_DATA) {
		struct dx_run *r = dx_push(&om->runs);

		if (!r)
			goto nomem;
		*r = (struct dx_run){ m->lblk, m->pblk, m->len, m->unwritten };
	} else if (m->kind == EK_MAP_TREE) {
		uint64_t *p = dx_push(&om->tree);

		if (!p)
			goto nomem;
		*p = m->pblk;
	}
	return 0;
nomem:
	om->nomem = true;
	return -ENOMEM;
}

static int cmp_run(const void *a, const void *b)
{
	const struct dx_run *x = a, *y = b;

	return x->lblk < y->lblk ? -1 : x->lblk > y->lblk;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* qsort() of @v; an empty vector may have no array at all */
static void vec_sort(struct dx_vec *v, int (*cmp)(const void *, const void *))
{
	if (v->n)
		qsort(v->v, v->n, v->sz, cmp);
}

/* sort by logical block and merge runs contiguous in both spaces */
static void normalize(struct dx_vec *v)
{
	struct dx_run *r = v->v;
	size_t n = 0;

	if (!v->n)
		return;
	vec_sort(v, cmp_run);
	for (size_t i = 1; i < v->n; i++) {
		struct dx_run *p = &r[n];

		if (p->lblk + p->len == r[i].lblk && p->pblk + p->len == r[i].pblk &&
		    p->unwritten == r[i].unwritten)
			p->len += r[i].len;
		else
			r[++n] = r[i];
	}
	v->n = n + 1;
}

static uint64_t run_blocks(const struct dx_vec *v)
{
	uint64_t s = 0;

	for (size_t i = 0; i < v->n; i++)
		s += ((struct dx_run *)v->v)[i].len;
	return s;
}

static const char *fmt_run(const struct dx_vec *v, size_t i, char *buf, size_t len)
{
	const struct dx_run *r = (const struct dx_run *)v->v + i;

	if (i >= v->n)
		snprintf(buf, len, "end(%zu runs,%llu blocks)", v->n,
			 (unsigned long long)run_blocks(v));
	else
		snprintf(buf, len, "%llu+%llu->%llu%s", (unsigned long long)r->lblk,
			 (unsigned long long)r->len, (unsigned long long)r->pblk,
			 r->unwritten ? "(unwritten)" : "");
	return buf;
}

static void cmp_map(struct ctx *c, const char *w, const struct ek_inode *ei)
{
	struct ourmap om = { .runs.sz = sizeof(struct dx_run), .tree.sz = sizeof(uint64_t) };
	struct dx_vec truns = { .sz = sizeof(struct dx_run) }, ttree = { .sz = sizeof(uint64_t) };
	char terr[256], oerr[400], a[96], b[96];
	int oe = ek_map_walk(c->fs, ei, our_map_fn, &om);
	int te = theirs_map(c->t, ei->ino, &truns, &ttree, terr, sizeof(terr));

	if (oe == -EK_BADCRC)
		oe = 0;		/* the walk completed; a tree block's checksum is wrong */
	if (om.nomem || (oe && te)) {
		goto out;	/* both refuse */
	} else if (oe) {
		snprintf(b, sizeof(b), "ok(%llu blocks)", (unsigned long long)run_blocks(&truns));
		diff(c, w, "map", errtext(oe, oerr, sizeof(oerr)), b);
		goto out;
	} else if (te) {
		snprintf(a, sizeof(a), "ok(%llu blocks)", (unsigned long long)run_blocks(&om.runs));
		diff(c, w, "map", a, terr);
		goto out;
	}
	normalize(&om.runs);
	normalize(&truns);
	for (size_t i = 0;; i++) {
		const struct dx_run *x = (struct dx_run *)om.runs.v + i;
		const struct dx_run *y = (struct dx_run *)truns.v + i;

		if (i >= om.runs.n && i >= truns.n)
			break;
		if (i >= om.runs.n || i >= truns.n || x->lblk != y->lblk || x->len != y->len ||
		    x->pblk != y->pblk || x->unwritten != y->unwritten) {
			diff(c, w, "map", fmt_run(&om.runs, i, a, sizeof(a)),
			     fmt_run(&truns, i, b, sizeof(b)));
			break;
		}
		c->blocks += x->len;
	}
	vec_sort(&om.tree, cmp_u64);
	vec_sort(&ttree, cmp_u64);
	for (size_t i = 0;; i++) {
		const uint64_t *x = (uint64_t *)om.tree.v + i, *y = (uint64_t *)ttree.v + i;

		if (i >= om.tree.n && i >= ttree.n)
			break;
		if (i >= om.tree.n || i >= ttree.n || *x != *y) {
			snprintf(a, sizeof(a), "%zu blocks, #%zu %llu", om.tree.n, i,
				 i < om.tree.n ? (unsigned long long)*x : 0ull);
			snprintf(b, sizeof(b), "%zu blocks, #%zu %llu", ttree.n, i,
				 i < ttree.n ? (unsigned long long)*y : 0ull);
			diff(c, w, "tree_blocks", a, b);
			break;
		}
		c->blocks++;
	}
out:
	dx_vec_free(&om.runs);
	dx_vec_free(&om.tree);
	dx_vec_free(&truns);
	dx_vec_free(&ttree);
}

/* ---- directory entries --------------------------------------------------------- */

static int our_dir_fn(void *arg, const struct ek_dirent *de)
{
	struct dx_ent *e = dx_push(arg);

	if (!e)
		return -ENOMEM;
	e->ino = de->ino;
	e->ftype = de->file_type;
	e->name_len = de->name_len;
	memcpy(e->name, de->name, de->name_len);
	return 0;
}

static int cmp_ent(const void *a, const void *b)
{
	const struct dx_ent *x = a, *y = b;
	int r = memcmp(x->name, y->name, x->name_len < y->name_len ? x->name_len : y->name_len);

	if (r)
		return r;
	if (x->name_len != y->name_len)
		return x->name_len < y->name_len ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return (int)x->ftype - (int)y->ftype;
}

static const char *fmt_ent(const struct dx_ent *e, char *buf, size_t len)
{
	size_t u = snprintf(buf, len, "'");

	for (unsigned i = 0; i < e->name_len && u + 8 < len; i++) {
		unsigned char ch = e->name[i];

		u += snprintf(buf + u, len - u, ch > ' ' && ch < 127 && ch != '\'' ? "%c" : "\\x%02x",
			      ch);
	}
	snprintf(buf + u, len - u, "'(ino %u,type %u)", e->ino, e->ftype);
	return buf;
}

static void cmp_dir(struct ctx *c, const char *w, const struct ek_inode *ei)
{
	struct dx_vec o = { .sz = sizeof(struct dx_ent) }, t = { .sz = sizeof(struct dx_ent) };
	char terr[256], oerr[400], a[1100], b[1100];
	int oe = ek_dir_iterate(c->fs, ei, 0, our_dir_fn, &o);
	int te = theirs_dir(c->t, ei->ino, &t, terr, sizeof(terr));
	size_t i = 0, j = 0, shown = 0;

	if (oe == -EK_BADCRC)
		oe = 0;
	if (oe && te)
		goto out;
	if (oe || te) {
		snprintf(a, sizeof(a), "ok(%zu entries)", oe ? t.n : o.n);
		if (oe)
			diff(c, w, "dir", errtext(oe, oerr, sizeof(oerr)), a);
		else
			diff(c, w, "dir", a, terr);
		goto out;
	}
	/*
	 * An inline directory stores no '.' and its '..' without a file type:
	 * both are made up by the reader.  Ours gives them the directory type,
	 * as the kernel's ext4_read_inline_dir() does; libext2fs gives 0.
	 */
	for (size_t k = 0; (ei->flags & EXT4_INLINE_DATA_FL) && k < t.n; k++) {
		struct dx_ent *e = (struct dx_ent *)t.v + k;

		if (!e->ftype && e->name_len <= 2 && !memcmp(e->name, "..", e->name_len))
			e->ftype = EXT4_FT_DIR;
	}
	vec_sort(&o, cmp_ent);
	vec_sort(&t, cmp_ent);
	while (i < o.n || j < t.n) {
		const struct dx_ent *x = (struct dx_ent *)o.v + i, *y = (struct dx_ent *)t.v + j;
		int r = i >= o.n ? 1 : j >= t.n ? -1 : cmp_ent(x, y);

		if (!r) {
			c->entries++;
			i++, j++;
			continue;
		}
		if (shown++ < 5)
			diff(c, w, "dirent", r < 0 ? fmt_ent(x, a, sizeof(a)) : "none",
			     r > 0 ? fmt_ent(y, b, sizeof(b)) : "none");
		if (r < 0)
			i++;
		else
			j++;
	}
	if (shown > 5) {
		snprintf(a, sizeof(a), "%zu", shown - 5);
		diff(c, w, "dirent", "more", a);
	}
out:
	dx_vec_free(&o);
	dx_vec_free(&t);
}

/* ---- xattrs ------------------------------------------------------------------------ */

static int our_xattr_fn(void *arg, const struct ek_xattr *xa)
{
	struct dx_xattr *x = dx_push(arg);

	if (!x || !(x->value = malloc(xa->value_len ? xa->value_len : 1)))
		return -ENOMEM;
	snprintf(x->name, sizeof(x->name), "%s%.*s", xa->prefix, (int)xa->name_len, xa->name);
	memcpy(x->value, xa->value, xa->value_len);
	x->len = xa->value_len;
	return 0;
}

static int cmp_xattr(const void *a, const void *b)
{
	const struct dx_xattr *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->value, y->value, x->len);
}

static void xattrs_free(struct dx_vec *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(((struct dx_xattr *)v->v)[i].value);
	dx_vec_free(v);
}

static void cmp_xattrs(struct ctx *c, const char *w, const struct ek_inode *ei)
{
	struct dx_vec o = { .sz = sizeof(struct dx_xattr) }, t = { .sz = sizeof(struct dx_xattr) };
	char terr[256], oerr[400], a[400], b[400];
	int oe = ek_xattr_iterate(c->fs, ei, our_xattr_fn, &o);
	int te = theirs_xattrs(c->t, ei->ino, &t, terr, sizeof(terr));
	size_t i = 0, j = 0;

	if (oe == -EK_BADCRC)
		oe = 0;
	if (oe && te)
		goto out;
	if (oe || te) {
		snprintf(a, sizeof(a), "ok(%zu xattrs)", oe ? t.n : o.n);
		if (oe)
			diff(c, w, "xattr", errtext(oe, oerr, sizeof(oerr)), a);
		else
			diff(c, w, "xattr", a, terr);
		goto out;
	}
	vec_sort(&o, cmp_xattr);
	vec_sort(&t, cmp_xattr);
	while (i < o.n || j < t.n) {
		const struct dx_xattr *x = (struct dx_xattr *)o.v + i, *y = (struct dx_xattr *)t.v + j;
		int r = i >= o.n ? 1 : j >= t.n ? -1 : cmp_xattr(x, y);

		if (!r) {
			c->xattrs++;
			i++, j++;
			continue;
		}
		if (r < 0)
			snprintf(a, sizeof(a), "%s(%zu bytes)", x->name, x->len);
		if (r > 0)
			snprintf(b, sizeof(b), "%s(%zu bytes)", y->name, y->len);
		diff(c, w, "xattr", r < 0 ? a : "none", r > 0 ? b : "none");
		if (r < 0)
			i++;
		else
			j++;
	}
out:
	xattrs_free(&o);
	xattrs_free(&t);
}

/* ---- inodes ---------------------------------------------------------------------- */

/* the inode bitmap differences of one group, as one line */
struct ibdiff {
	uint32_t group;
	ek_ino_t first;
	int ours, theirs;
	uint64_t n;
};

static void ibitmap_flush(struct ctx *c, struct ibdiff *ib)
{
	char w[32], a[96];

	if (ib->n) {
		snprintf(w, sizeof(w), "group=%u", ib->group);
		snprintf(a, sizeof(a), "%s(inode %u; %llu differ)", ib->ours ? "used" : "free",
			 ib->first, (unsigned long long)ib->n);
		diff(c, w, "inode_bitmap", a, ib->theirs ? "used" : "free");
	}
	*ib = (struct ibdiff){ 0 };
}

static void cmp_inodes(struct ctx *c)
{
	uint32_t n = c->fs->sb.inodes_count, ipg = c->fs->sb.inodes_per_group;
	struct ibdiff ib = { 0 };
	char w[32], a[400], terr[256];

	if (n != theirs_inodes_count(c->t)) {
		diff_u64(c, "fs", "inodes_count", n, theirs_inodes_count(c->t));
		if (theirs_inodes_count(c->t) < n)
			n = theirs_inodes_count(c->t);
	}
	for (uint32_t ino = 1; ino <= n; ino++) {
		int uo = ek_test_inode(c->fs, ino), ut = theirs_inode_used(c->t, ino);
		struct ek_inode ei;
		struct dx_inode ti;
		int oe, te;

		snprintf(w, sizeof(w), "ino=%u", ino);
		if (ipg && (ino - 1) % ipg == 0)
			ibitmap_flush(c, &ib);
		if (uo >= 0 && ut >= 0 && uo != ut && !ib.n++)
			ib = (struct ibdiff){ ipg ? (ino - 1) / ipg : 0, ino, uo, ut, 1 };
		if (uo <= 0 && ut <= 0)
			continue;
		oe = ek_inode_read(c->fs, ino, &ei);
		te = theirs_inode(c->t, ino, &ti, terr, sizeof(terr));
		if (oe == -EK_BADCRC)
			oe = 0;
		if (oe == -EK_CORRUPT && ei.raw) {
			/* decoded all the same (a bad i_extra_isize): compare it */
			diff(c, w, "inode", errtext(oe, a, sizeof(a)), te ? terr : "ok");
			oe = 0;
		}
		if (oe || te) {
			if (!oe != !te)
				diff(c, w, "inode", oe ? errtext(oe, a, sizeof(a)) : "ok",
				     te ? terr : "ok");
			ek_inode_release(&ei);
			continue;
		}
		cmp_inode(c, w, &ei, &ti);
		cmp_map(c, w, &ei);
		if (ek_is_dir(ei.mode) && ek_is_dir(ti.mode))
			cmp_dir(c, w, &ei);
		cmp_xattrs(c, w, &ei);
		ek_inode_release(&ei);
	}
	ibitmap_flush(c, &ib);
}

/* ---- bitmaps ---------------------------------------------------------------------- */

/* block bitmap of group @g (@have, 1 = used; NULL = all free) against libext2fs's */
static void cmp_block_bitmap(struct ctx *c, uint32_t g, const uint8_t *have, uint64_t nclusters,
			     const char *field)
{
	struct ek_fs *fs = c->fs;
	ek_blk_t first = ek_group_first_block(fs, g);
	uint64_t ndiff = 0, firstdiff = 0;
	int oursv = 0, theirsv = 0;
	char w[32], a[96], b[96];

	for (uint64_t b0 = 0; b0 < nclusters; b0++) {
		int o = have && ek_bit_test(have, b0);
		int t = theirs_block_used(c->t, first + (b0 << fs->cluster_bits));

		if (t < 0)
			return;
		if (o != t && !ndiff++) {
			firstdiff = first + (b0 << fs->cluster_bits);
			oursv = o, theirsv = t;
		}
	}
	c->groups++;
	if (!ndiff)
		return;
	snprintf(w, sizeof(w), "group=%u", g);
	snprintf(a, sizeof(a), "%s(block %llu; %llu differ)", oursv ? "used" : "free",
		 (unsigned long long)firstdiff, (unsigned long long)ndiff);
	snprintf(b, sizeof(b), "%s", theirsv ? "used" : "free");
	diff(c, w, field, a, b);
}

static void cmp_disk_bitmaps(struct ctx *c)
{
	struct ek_fs *fs = c->fs;
	char a[400];

	if (theirs_bitmap_error(c->t)) {
		diff(c, "fs", "bitmaps", "ok", theirs_bitmap_error(c->t));
		return;
	}
	for (uint32_t g = 0; g < fs->group_count; g++) {
		uint64_t nclusters = ((uint64_t)ek_group_blocks(fs, g) + ek_cluster_ratio(fs) - 1) >>
				     fs->cluster_bits;
		const uint8_t *have;
		int err = ek_block_bitmap_get(fs, g, &have);
		char w[32];

		if (err) {
			snprintf(w, sizeof(w), "group=%u", g);
			diff(c, w, "block_bitmap", errtext(err, a, sizeof(a)), "ok");
			continue;
		}
		cmp_block_bitmap(c, g, have, nclusters, "block_bitmap");
	}
}

static void pass5_bitmaps(void *arg, uint32_t g, const uint8_t *blocks, uint64_t nclusters,
			  const uint8_t *inodes, uint32_t ninodes)
{
	struct ctx *c = arg;
	uint32_t ipg = c->fs->sb.inodes_per_group;
	uint64_t ndiff = 0;
	ek_ino_t firstdiff = 0;
	char w[32], a[96];
	int t0 = 0;

	cmp_block_bitmap(c, g, blocks, nclusters, "pass5_block_bitmap");
	for (uint32_t i = 0; i < ninodes; i++) {
		ek_ino_t ino = (ek_ino_t)g * ipg + i + 1;
		int t;

		if (ino > c->fs->sb.inodes_count)
			break;
		t = theirs_inode_used(c->t, ino);
		if (t < 0)
			return;
		if (t != (int)ek_bit_test(inodes, i) && !ndiff++)
			firstdiff = ino, t0 = t;
	}
	if (!ndiff)
		return;
	snprintf(w, sizeof(w), "group=%u", g);
	snprintf(a, sizeof(a), "%s(inode %u; %llu differ)", t0 ? "free" : "used", firstdiff,
		 (unsigned long long)ndiff);
	diff(c, w, "pass5_inode_bitmap", a, t0 ? "used" : "free");
}

/* ---- --casefold ------------------------------------------------------------------ */

struct cf {
	unsigned long long names, invalid, pairs, diffs;
};

static void cf_diff(struct cf *s, const char *what, const unsigned char *p, size_t n)
{
	if (s->diffs++ < 50) {
		printf("casefold %s:", what);
		for (size_t i = 0; i < n; i++)
			printf(" %02x", p[i]);
		printf("\n");
	}
}

static size_t cf_put(uint32_t c, unsigned char *o)
{
	if (c < 0x80)
		return o[0] = (unsigned char)c, 1;
	if (c < 0x800)
		return o[0] = 0xC0 | c >> 6, o[1] = 0x80 | (c & 63), 2;
	if (c < 0x10000)
		return o[0] = 0xE0 | c >> 12, o[1] = 0x80 | (c >> 6 & 63), o[2] = 0x80 | (c & 63), 3;
	o[0] = 0xF0 | c >> 18, o[1] = 0x80 | (c >> 12 & 63), o[2] = 0x80 | (c >> 6 & 63);
	o[3] = 0x80 | (c & 63);
	return 4;
}

static void cf_one(struct cf *s, const unsigned char *p, size_t n)
{
	char buf[EK_CASEFOLD_MAX];
	uint32_t h1, m1, h2, m2;
	int folds = ek_utf8_casefold((const char *)p, n, buf, sizeof(buf));

	s->names++;
	if (theirs_cf_hash(EXT4_HASH_HALF_MD4, (const char *)p, n, &h2, &m2)) {
		s->invalid++;
		if (folds >= 0)
			cf_diff(s, "libext2fs does not fold, ours does", p, n);
		return;
	}
	ek_dx_hash_name(EXT4_HASH_HALF_MD4, true, (const char *)p, n, NULL, &h1, &m1);
	if (h1 != h2 || m1 != m2)
		cf_diff(s, "hash", p, n);
	if (theirs_cf_valid((const char *)p, n) != !ek_utf8_validate((const char *)p, n))
		cf_diff(s, "strict validity", p, n);
}

/* @p against a copy with ASCII case swapped and e-acute spelled the other way */
static void cf_pair(struct cf *s, const unsigned char *p, size_t n)
{
	unsigned char q[600];
	size_t m = 0;
	int ours, theirs;

	for (size_t i = 0; i < n && m + 3 < sizeof(q); i++) {
		unsigned char b = p[i];

		if (b == 0xC3 && i + 1 < n && p[i + 1] == 0xA9) {
			q[m++] = 'e', q[m++] = 0xCC, q[m++] = 0x81, i++;
			continue;
		}
		q[m++] = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') ? b ^ 0x20 : b;
	}
	s->pairs++;
	ours = ek_utf8_casecmp((const char *)p, n, (const char *)q, m);
	theirs = theirs_cf_cmp((const char *)p, n, (const char *)q, m);
	/* theirs: 0 equal, -1 invalid (or less), other: differ */
	if ((ours == 0) != (theirs == 0) || (ours < 0 && theirs != -1))
		cf_diff(s, "compare", p, n);
}

static int casefold_main(unsigned seed, unsigned long count)
{
	static const uint32_t pool[] = {
		'A', 'a', 'Z', 's', 'S', 'k', 'i', 'I', 0xDF, 0x1E9E, 0x3A3, 0x3C2, 0x3C3,
		0x212A, 0xE9, 0xC9, 0x301, 0x300, 0x316, 0x327, 0x345, 0x399, 0x3B9, 0x390,
		0x1F80, 0x1F88, 0xAC00, 0xD7A3, 0xAC01, 0x1100, 0x1161, 0x11A8, 0x200B, 0xAD,
		0x34F, 0xFE0F, 0x130, 0x131, 0xFB03, 0x5D0, 0x5B0, 0x591, 0x1D15E, 0x1D165,
		0x1D16D, 0xF73, 0xF71, 0xF72, 0xF80, 0xE0001, 0x2126, 0x212B, 0x10400, 0x10428,
		0x1E900, 0x378, 0x180F, 0x1FAD0, 0xFFFF, 0x10FFFF, 0x2E, 0x7F,
	};
	struct cf s = { 0 };
	unsigned char p[300];
	size_t n;

	for (uint32_t c = 1; c < 0x110000; c++) {
		if (c >= 0xD800 && c <= 0xDFFF)
			continue;
		n = cf_put(c, p);
		cf_one(&s, p, n);
		p[0] = 'x';
		n = 1 + cf_put(c, p + 1);
		n += cf_put(0x301, p + n);
		cf_one(&s, p, n);
	}
	srand(seed);
	for (unsigned long k = 0; k < count; k++) {
		int len = 1 + rand() % 12;

		n = 0;
		for (int i = 0; i < len && n < 240; i++) {
			int r = rand() % 100;
			uint32_t c;

			if (r < 3) {
				p[n++] = (unsigned char)(0x80 + rand() % 0x80);
			} else if (r < 6) {
				p[n++] = (unsigned char)(1 + rand() % 255);
			} else if (r < 70) {
				n += cf_put(pool[rand() % (sizeof(pool) / sizeof(pool[0]))], p + n);
			} else {
				do
					c = (uint32_t)(rand() % 0x30000);
				while (!c || (c >= 0xD800 && c <= 0xDFFF));
				n += cf_put(c, p + n);
			}
		}
		cf_one(&s, p, n);
		cf_pair(&s, p, n);
	}
	printf("e2diff: casefold: names %llu, invalid %llu, pairs %llu, differences %llu\n",
	       s.names, s.invalid, s.pairs, s.diffs);
	return s.diffs ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ctx c = { 0 };
	const char *path = NULL;
	char err[256], a[400];
	int oe, ret;

	if (argc >= 2 && !strcmp(argv[1], "--casefold") && argc <= 4)
		return casefold_main(argc > 2 ? (unsigned)strtoul(argv[2], NULL, 0) : 1,
				     argc > 3 ? strtoul(argv[3], NULL, 0) : 200000);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--clean"))
			c.clean = true;
		else if (!strcmp(argv[i], "--name") && i + 1 < argc)
			c.name = argv[++i];
		else if (argv[i][0] == '-' || path)
			goto usage;
		else
			path = argv[i];
	}
	if (!path)
		goto usage;
	if (!c.name)
		c.name = path;
	if (theirs_open(path, &c.t, err, sizeof(err))) {
		printf("e2diff: %s: not opened by libext2fs: %s\n", c.name, err);
		printf("e2diff: %s: opened 0, inodes 0, blocks 0, entries 0, xattrs 0, "
		       "bitmap groups 0, differences 0\n", c.name);
		return 0;
	}
	oe = ek_fs_open(path, &(struct ek_open_opts){ .flags = EK_OPEN_IGNORE_CSUM }, &c.fs);
	if (oe) {
		diff(&c, "fs", "open", errtext(oe, a, sizeof(a)), "ok");
	} else {
		cmp_inodes(&c);
		cmp_disk_bitmaps(&c);
		if (c.clean) {
			struct ek_fsck_summary sum;
			/* the findings are 501's and 502's; here only the bitmaps count */
			struct ek_fsck_opts o = { .bitmaps = pass5_bitmaps, .arg = &c };
			int fe;

			fe = ek_fsck_check(c.fs, &o, &sum);
			if (fe)
				diff(&c, "fs", "fsck", errtext(fe, a, sizeof(a)), "clean");
		}
		ek_fs_close(c.fs);
	}
	theirs_close(c.t);
	printf("e2diff: %s: opened 1, inodes %llu, blocks %llu, entries %llu, xattrs %llu, "
	       "bitmap groups %llu, differences %llu\n", c.name, (unsigned long long)c.inodes,
	       (unsigned long long)c.blocks, (unsigned long long)c.entries,
	       (unsigned long long)c.xattrs, (unsigned long long)c.groups,
	       (unsigned long long)c.diffs);
	ret = c.diffs ? 1 : 0;
	return ret;
usage:
	fprintf(stderr, "usage: e2diff [--clean] [--name NAME] IMAGE\n"
			"       e2diff --casefold [SEED [COUNT]]\n");
	return 2;
}
