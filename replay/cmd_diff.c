// SPDX-License-Identifier: MIT
/*
 * cmd_diff.c - extkit-replay diff IMAGE TID1 [TID2]: what changed, file by
 * file, between the image as replaying the log up to TID2 leaves it (the
 * "from" side; default TID1 - 1) and as replaying up to TID1 leaves it
 * (the "to" side).  TID2 > TID1 reads the same changes backwards: what a
 * replay stopped at TID1 loses against one that goes on to TID2.
 *
 * Both sides are read-only filesystems opened over a replay plan's read
 * overlay (ek_jplan_overlay).  The work follows what the log touched, not
 * the filesystem:
 *
 *   1. the home blocks the two plans write differently (a merge of the
 *      two sorted plans: logged, or revoked, in between);
 *   2. their geometry (ek_blocks_owner_among with no inode): the inode
 *      table blocks among them give the inodes whose raw bytes differ;
 *   3. those inodes' maps and xattr blocks name the rest of the blocks
 *      (ek_blocks_owner_among); a block in use that none of them names
 *      (a data block logged by data=journal without its inode) sends
 *      that side through the full owner pass (ek_blocks_owner), once;
 *   4. per inode: liveness (inode bitmap, links), fields, the logical
 *      blocks whose mapping differs or whose home block differs, xattrs;
 *      per directory: the entries of its differing blocks alone
 *      (ek_dir_iterate_block), matched by name into added and removed
 *      names;
 *   5. paths: a name event gives the entry; a directory's path comes from
 *      '..' and a look-up of its name in the parent, up to the root; a
 *      file with no event is found by one breadth-first walk of that side
 *      that stops when every such file is found.  What cannot be resolved
 *      is said (path null, path_resolved false).  Before that walk, the
 *      directories in the groups of the files wanted are searched: the
 *      kernel puts a file's inode in its directory's group when it can.
 */
#include <stdlib.h>
#include <string.h>
#include "diff.h"

enum { FROM, TO };

struct run {			/* one DATA mapping */
	uint64_t lblk, len;
	ek_blk_t pblk;
	bool unwritten;
};

struct runs {
	struct run *r;
	size_t n, cap;
};

struct range {
	uint64_t start, end;	/* inclusive */
};

struct ranges {
	struct range *r;
	size_t n, cap;
};

struct xent {			/* one xattr of one side */
	char name[300];
	uint32_t len;		/* value bytes */
	uint32_t crc;		/* crc32c of the value, or its value inode */
};

struct xents {
	struct xent *x;
	size_t n, cap;
};

struct event {			/* a name added (to side) or removed (from side) */
	ek_ino_t dir, ino;
	uint8_t len, ftype;
	bool added;
	char name[256];
};

struct dirblk {			/* a directory block the two sides hold differently */
	ek_ino_t ino;
	uint64_t lblk;
};

struct side {
	const char *what;	/* "from", "to" */
	ek_tid_t upto;
	bool replayed;		/* false: no transaction replayed (the image as it is) */
	struct ek_jplan plan;
	struct ek_jplan_view jv;
	struct ek_fs *fs;
	struct ek_blk_owner *own;	/* per differing block */
	bool full_scan;		/* the owner pass over every inode was needed */
	struct pathmemo *memo;
	size_t nmemo, capmemo;
};

struct pathmemo {
	ek_ino_t ino;
	char *path;		/* NULL: not resolvable */
};

struct file {
	ek_ino_t ino;
	struct ek_inode ei[2];
	int rerr[2];		/* the read's error, 0 */
	bool alive[2];
	struct ranges blocks;
	struct xents xa[2];
	int xerr[2];
	char *path[2];		/* resolved paths, malloc'd */
	const char *source[2];	/* how: entry, parent_walk, full_walk */
	bool want_walk[2];	/* needs the full walk on that side */
};

struct diff {
	const char *prog;
	struct ek_out *o;
	struct ek_journal *j;
	const struct ek_jlog *log;
	struct side s[2];
	ek_blk_t *blk;		/* differing home blocks, sorted */
	size_t nblk;
	uint8_t *same;		/* per block: 1 when both sides read the same bytes */
	size_t nsame;		/* how many */
	size_t home_done;	/* blocks the from side reads from the image that hold
				 * the to side's bytes already (checkpointed early) */
	ek_ino_t *inos;		/* inodes to compare, sorted unique */
	size_t ninos, capinos;
	struct dirblk *db;
	size_t ndb, capdb;
	struct event *ev;
	size_t nev, capev;
	struct file *files;	/* parallel to inos */
	bool walk_needed[2];
	unsigned warnings;
};

/* ---- small helpers --------------------------------------------------------- */

/* qsort, which must not be given NULL, even for nothing to sort */
static void sort(void *base, size_t n, size_t sz, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, sz, cmp);
}


static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void warn(struct diff *d, const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "%s: warning: ", d->prog);
	fprintf(stderr, fmt, a, b);
	fputc('\n', stderr);
	d->warnings++;
}

/* the inodes the superblock names: quota files, the orphan file, the journal */
static const __le32 *sb_inodes(const struct ek_fs *fs, size_t *n)
{
	static __le32 v[5];
	const struct ext4_super_block *sb = fs->raw_sb;

	v[0] = sb->s_usr_quota_inum;
	v[1] = sb->s_grp_quota_inum;
	v[2] = sb->s_prj_quota_inum;
	v[3] = cpu_to_le32(fs->sb.orphan_file_inum);
	v[4] = cpu_to_le32(fs->sb.journal_inum);
	*n = 5;
	return v;
}

/* an inode no directory names: below the first normal one (but the root),
 * or one the superblock points at */
static bool reserved(const struct ek_fs *fs, ek_ino_t ino)
{
	size_t n;
	const __le32 *v = sb_inodes(fs, &n);

	if (ino < fs->sb.first_ino && ino != EXT4_ROOT_INO)
		return true;
	for (size_t i = 0; i < n; i++)
		if (le32_to_cpu(v[i]) == ino)
			return true;
	return false;
}

static int add_ino(struct diff *d, ek_ino_t ino)
{
	if (!ino || ino > d->s[TO].fs->sb.inodes_count)
		return 0;
	if (ek_grow(&d->inos, &d->capinos, d->ninos + 1, sizeof(*d->inos)))
		return -ENOMEM;
	d->inos[d->ninos++] = ino;
	return 0;
}

static void uniq_inos(struct diff *d)
{
	size_t u = 0;

	sort(d->inos, d->ninos, sizeof(*d->inos), cmp_u32);
	for (size_t i = 0; i < d->ninos; i++)
		if (!u || d->inos[u - 1] != d->inos[i])
			d->inos[u++] = d->inos[i];
	d->ninos = u;
}

static struct file *file_of(struct diff *d, ek_ino_t ino)
{
	size_t k = ek_lower_u32(d->inos, d->ninos, ino);

	return k < d->ninos && d->inos[k] == ino ? &d->files[k] : NULL;
}

/* index of the first differing block >= @b */
static size_t blk_lower(const struct diff *d, ek_blk_t b)
{
	return ek_lower_u64(d->blk, d->nblk, b);
}

static const char *type_name(uint16_t mode)
{
	if (ek_is_reg(mode))
		return "file";
	if (ek_is_dir(mode))
		return "dir";
	if (ek_is_lnk(mode))
		return "symlink";
	if (ek_is_chr(mode))
		return "char_device";
	if (ek_is_blk(mode))
		return "block_device";
	if (ek_is_fifo(mode))
		return "fifo";
	if (ek_is_sock(mode))
		return "socket";
	return "unknown";
}

/* the type a directory entry's file_type names (EXT4_FT_*) */
static const char *ftype_name(uint8_t ft)
{
	static const char *const names[] = { "unknown", "file", "dir", "char_device",
					     "block_device", "fifo", "socket", "symlink" };

	return ft < sizeof(names) / sizeof(names[0]) ? names[ft] : "unknown";
}

/* ---- 1. the home blocks the two plans write differently ------------------- */

static int plans_differ(struct diff *d)
{
	const struct ek_jplan *a = &d->s[FROM].plan, *b = &d->s[TO].plan;
	size_t i = 0, k = 0, cap = 0;

	while (i < a->nwrites || k < b->nwrites) {
		const struct ek_jwrite *x = i < a->nwrites ? &a->writes[i] : NULL;
		const struct ek_jwrite *y = k < b->nwrites ? &b->writes[k] : NULL;
		uint64_t home;

		if (x && (!y || x->home < y->home)) {
			home = x->home;
			i++;
		} else if (y && (!x || y->home < x->home)) {
			home = y->home;
			k++;
		} else {
			i++;
			k++;
			if (x->jblk == y->jblk && x->tid == y->tid)
				continue;
			home = x->home;
		}
		if (ek_grow(&d->blk, &cap, d->nblk + 1, sizeof(*d->blk)))
			return -ENOMEM;
		d->blk[d->nblk++] = home;
	}
	return 0;
}

/*
 * Read each differing block on both sides: a block logged again with the
 * same bytes changed nothing.  A block the from side reads from the image
 * (no copy in its plan) that already holds the to side's bytes was written
 * home before the crash: the from side does not show what it was.
 */
static int compare_blocks(struct diff *d)
{
	uint8_t *a = ek_malloc(d->s[FROM].fs->blksz), *b = ek_malloc(d->s[FROM].fs->blksz);
	int err = 0;

	d->same = ek_calloc(d->nblk + 1, 1);
	if (!a || !b || !d->same) {
		err = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < d->nblk; k++) {
		if (!ek_fs_block_valid(d->s[FROM].fs, d->blk[k]) ||
		    ek_fs_read_blocks(d->s[FROM].fs, d->blk[k], 1, a) ||
		    ek_fs_read_blocks(d->s[TO].fs, d->blk[k], 1, b))
			continue;
		d->same[k] = !memcmp(a, b, d->s[FROM].fs->blksz);
		d->nsame += d->same[k];
		if (d->same[k] && !ek_jplan_find(&d->s[FROM].plan, d->blk[k]))
			d->home_done++;
	}
out:
	free(a);
	free(b);
	return err;
}

/* ---- 2-3. what the blocks are --------------------------------------------- */

static int raw_differs(struct diff *d, ek_ino_t ino)
{
	struct ek_inode a, b;
	int ea = ek_inode_read(d->s[FROM].fs, ino, &a);
	int eb = ek_inode_read(d->s[TO].fs, ino, &b);
	int ret = (!a.raw) != (!b.raw) ||
		  (a.raw && b.raw && (a.raw_size != b.raw_size || memcmp(a.raw, b.raw, a.raw_size)));

	(void)ea;
	(void)eb;
	ek_inode_release(&a);
	ek_inode_release(&b);
	return ret;
}

static int classify(struct diff *d)
{
	struct ek_blk_owner *geo;
	int err;

	geo = ek_calloc(d->nblk + 1, sizeof(*geo));
	if (!geo)
		return -ENOMEM;
	/* geometry and descriptors: the same in both sides but for a resize */
	err = ek_blocks_owner_among(d->s[TO].fs, d->blk, d->nblk, NULL, 0, geo);
	if (err == -ENOMEM || err == -EINVAL)
		goto out;
	for (size_t k = 0; k < d->nblk; k++) {
		if (geo[k].kind != EK_OWNER_INODE_TABLE || d->same[k])
			continue;
		for (uint64_t ino = geo[k].first_ino; ino <= geo[k].last_ino; ino++)
			if (raw_differs(d, (ek_ino_t)ino) && (err = add_ino(d, (ek_ino_t)ino)))
				goto out;
	}
	/* the superblock's own files (quota, orphan file) log blocks their
	 * inode may not: walked always, so they never send a side through
	 * the pass over every inode */
	{
		size_t n;
		const __le32 *v = sb_inodes(d->s[TO].fs, &n);

		for (size_t i = 0; i < n; i++)
			if ((err = add_ino(d, le32_to_cpu(v[i]))))
				goto out;
	}
	uniq_inos(d);
	for (int s = FROM; s <= TO; s++) {
		struct side *v = &d->s[s];
		ek_blk_t *left = NULL;
		struct ek_blk_owner *lown = NULL;
		size_t nleft = 0;

		v->own = ek_calloc(d->nblk + 1, sizeof(*v->own));
		if (!v->own) {
			err = -ENOMEM;
			goto out;
		}
		err = ek_blocks_owner_among(v->fs, d->blk, d->nblk, d->inos, d->ninos, v->own);
		if (err == -ENOMEM || err == -EINVAL)
			goto out;
		if (err)
			warn(d, "%s side: some block owners may be unknown: %s", v->what,
			     ek_error_msg(err));
		for (size_t k = 0; k < d->nblk; k++)
			nleft += v->own[k].kind == EK_OWNER_UNKNOWN && !d->same[k];
		if (!nleft)
			continue;
		/* in use, named by no inode compared: the pass over every inode */
		left = ek_calloc(nleft, sizeof(*left));
		lown = ek_calloc(nleft, sizeof(*lown));
		if (!left || !lown) {
			free(left);
			free(lown);
			err = -ENOMEM;
			goto out;
		}
		nleft = 0;
		for (size_t k = 0; k < d->nblk; k++)
			if (v->own[k].kind == EK_OWNER_UNKNOWN && !d->same[k])
				left[nleft++] = d->blk[k];
		v->full_scan = true;
		err = ek_blocks_owner(v->fs, left, nleft, lown);
		if (err && err != -ENOMEM && err != -EINVAL)
			warn(d, "%s side: some block owners may be unknown: %s", v->what,
			     ek_error_msg(err));
		if (err == -ENOMEM || err == -EINVAL) {
			free(left);
			free(lown);
			goto out;
		}
		nleft = 0;
		for (size_t k = 0; k < d->nblk; k++)
			if (v->own[k].kind == EK_OWNER_UNKNOWN && !d->same[k])
				v->own[k] = lown[nleft++];
		free(left);
		free(lown);
	}
	err = 0;
	/* the inodes the blocks belong to, and the directory blocks to read */
	for (int s = FROM; s <= TO; s++)
		for (size_t k = 0; k < d->nblk; k++) {
			const struct ek_blk_owner *w = &d->s[s].own[k];

			if (d->same[k])
				continue;
			switch (w->kind) {
			case EK_OWNER_DIR:
				if ((err = ek_grow(&d->db, &d->capdb, d->ndb + 1, sizeof(*d->db))))
					goto out;
				d->db[d->ndb++] = (struct dirblk){ w->ino, w->lblk };
				/* fall through */
			case EK_OWNER_DATA:
			case EK_OWNER_EXTENT_INDEX:
			case EK_OWNER_EXTENT_LEAF:
			case EK_OWNER_INDIRECT:
				if ((err = add_ino(d, w->ino)))
					goto out;
				break;
			case EK_OWNER_XATTR:
				if ((err = add_ino(d, w->first_ino)) || (err = add_ino(d, w->last_ino)))
					goto out;
				break;
			default:
				break;
			}
		}
	uniq_inos(d);
out:
	free(geo);
	return err;
}

/* ---- 4. per inode: fields, blocks, xattrs --------------------------------- */

static bool alive(struct ek_fs *fs, const struct ek_inode *ei)
{
	return ei->raw && ek_test_inode(fs, ei->ino) == 1 && ei->mode && ei->links_count;
}

static int collect_run(void *arg, const struct ek_mapping *m)
{
	struct runs *rs = arg;

	if (m->kind != EK_MAP_DATA || !m->len)
		return 0;
	if (ek_grow(&rs->r, &rs->cap, rs->n + 1, sizeof(*rs->r)))
		return -ENOMEM;
	rs->r[rs->n++] = (struct run){ m->lblk, m->len, m->pblk, m->unwritten };
	return 0;
}

static int add_range(struct ranges *rg, uint64_t a, uint64_t b)
{
	if (rg->n && rg->r[rg->n - 1].end + 1 >= a) {
		if (b > rg->r[rg->n - 1].end)
			rg->r[rg->n - 1].end = b;
		return 0;
	}
	if (ek_grow(&rg->r, &rg->cap, rg->n + 1, sizeof(*rg->r)))
		return -ENOMEM;
	rg->r[rg->n++] = (struct range){ a, b };
	return 0;
}

/* the run of @rs holding @l from index *i on (runs are sorted), or NULL */
static const struct run *run_at(const struct runs *rs, size_t *i, uint64_t l)
{
	while (*i < rs->n && rs->r[*i].lblk + rs->r[*i].len <= l)
		(*i)++;
	return *i < rs->n && rs->r[*i].lblk <= l ? &rs->r[*i] : NULL;
}

/*
 * Logical blocks whose mapping differs between @a and @b, or whose block
 * (mapped alike) is one of the differing home blocks: into @out.
 */
static int map_diff(struct diff *d, const struct runs *a, const struct runs *b, struct ranges *out)
{
	uint64_t *pt;
	size_t np = 0, ia = 0, ib = 0;
	int err = 0;

	pt = ek_calloc(2 * (a->n + b->n) + 1, sizeof(*pt));
	if (!pt)
		return -ENOMEM;
	for (size_t i = 0; i < a->n; i++) {
		pt[np++] = a->r[i].lblk;
		pt[np++] = a->r[i].lblk + a->r[i].len;
	}
	for (size_t i = 0; i < b->n; i++) {
		pt[np++] = b->r[i].lblk;
		pt[np++] = b->r[i].lblk + b->r[i].len;
	}
	sort(pt, np, sizeof(*pt), ek_cmp_u64);
	for (size_t i = 0; i + 1 < np && !err; i++) {
		uint64_t x = pt[i], y = pt[i + 1];
		const struct run *ra, *rb;
		ek_blk_t pa, pb;

		if (x == y)
			continue;
		ra = run_at(a, &ia, x);
		rb = run_at(b, &ib, x);
		if (!ra && !rb)
			continue;
		pa = ra ? ra->pblk + (x - ra->lblk) : 0;
		pb = rb ? rb->pblk + (x - rb->lblk) : 0;
		if (!ra || !rb || pa != pb || ra->unwritten != rb->unwritten) {
			err = add_range(out, x, y - 1);
			continue;
		}
		/* mapped alike: the blocks the log wrote anew (data=journal) */
		for (size_t k = blk_lower(d, pa); k < d->nblk && d->blk[k] - pa < y - x && !err; k++)
			if (!d->same[k])
				err = add_range(out, x + (d->blk[k] - pa), x + (d->blk[k] - pa));
	}
	free(pt);
	return err;
}

static int collect_xattr(void *arg, const struct ek_xattr *xa)
{
	struct xents *xs = arg;
	struct xent *e;

	/* inline data is file content, compared as blocks are not */
	if (xa->index == EXT4_XATTR_INDEX_SYSTEM && xa->name_len == 4 &&
	    !memcmp(xa->name, "data", 4))
		return 0;
	if (ek_grow(&xs->x, &xs->cap, xs->n + 1, sizeof(*xs->x)))
		return -ENOMEM;
	e = &xs->x[xs->n++];
	if (*xa->prefix)
		snprintf(e->name, sizeof(e->name), "%s%.*s", xa->prefix, (int)xa->name_len, xa->name);
	else
		snprintf(e->name, sizeof(e->name), "index%u.%.*s", xa->index, (int)xa->name_len,
			 xa->name);
	e->len = xa->value_len;
	e->crc = xa->value ? ek_crc32c(~0u, xa->value, xa->value_len) : xa->value_inum;
	return 0;
}

static int cmp_xent(const void *a, const void *b)
{
	return strcmp(((const struct xent *)a)->name, ((const struct xent *)b)->name);
}

static int compare_inode(struct diff *d, struct file *f, bool dirblocks)
{
	struct runs rs[2] = { 0 };
	int err = 0;

	for (int s = FROM; s <= TO; s++) {
		struct ek_fs *fs = d->s[s].fs;

		f->rerr[s] = ek_inode_read(fs, f->ino, &f->ei[s]);
		f->alive[s] = alive(fs, &f->ei[s]);
		if (!f->alive[s])
			continue;
		err = ek_map_walk(fs, &f->ei[s], collect_run, &rs[s]);
		if (err == -ENOMEM)
			goto out;
		if (err && err != -EK_BADCRC && !f->rerr[s])
			f->rerr[s] = err;	/* what the walk gave before the damage stays */
		f->xerr[s] = ek_xattr_iterate(fs, &f->ei[s], collect_xattr, &f->xa[s]);
		if (f->xerr[s] == -ENOMEM) {
			err = -ENOMEM;
			goto out;
		}
		sort(f->xa[s].x, f->xa[s].n, sizeof(*f->xa[s].x), cmp_xent);
	}
	/* an inode reused in between: its new life's blocks against nothing */
	if (f->alive[FROM] && f->alive[TO] &&
	    f->ei[FROM].generation != f->ei[TO].generation)
		rs[FROM].n = 0;
	err = map_diff(d, &rs[FROM], &rs[TO], &f->blocks);
	if (err)
		goto out;
	/* a directory's blocks whose mapping changed hold entries to compare */
	for (int s = FROM; s <= TO && dirblocks; s++) {
		if (!f->alive[s] || !ek_is_dir(f->ei[s].mode))
			continue;
		for (size_t i = 0; i < f->blocks.n && !err; i++)
			for (uint64_t l = f->blocks.r[i].start; l <= f->blocks.r[i].end && !err; l++) {
				if (ek_grow(&d->db, &d->capdb, d->ndb + 1, sizeof(*d->db)))
					err = -ENOMEM;
				else
					d->db[d->ndb++] = (struct dirblk){ f->ino, l };
			}
		if (f->ei[s].flags & EXT4_INLINE_DATA_FL && !err) {
			if (ek_grow(&d->db, &d->capdb, d->ndb + 1, sizeof(*d->db)))
				err = -ENOMEM;
			else
				d->db[d->ndb++] = (struct dirblk){ f->ino, 0 };
		}
	}
out:
	free(rs[FROM].r);
	free(rs[TO].r);
	return err;
}

/* ---- 4b. directory entries ------------------------------------------------ */

struct dents {
	struct event *e;
	size_t n, cap;
	ek_ino_t dir;
};

static int collect_dent(void *arg, const struct ek_dirent *de)
{
	struct dents *ds = arg;
	struct event *e;

	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	if (ek_grow(&ds->e, &ds->cap, ds->n + 1, sizeof(*ds->e)))
		return -ENOMEM;
	e = &ds->e[ds->n++];
	*e = (struct event){ .dir = ds->dir, .ino = de->ino, .len = de->name_len,
			     .ftype = de->file_type };
	memcpy(e->name, de->name, de->name_len);
	return 0;
}

static int cmp_dent(const void *pa, const void *pb)
{
	const struct event *a = pa, *b = pb;
	int c = memcmp(a->name, b->name, a->len < b->len ? a->len : b->len);

	if (c)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->ino < b->ino ? -1 : a->ino > b->ino;
}

static int cmp_dirblk(const void *pa, const void *pb)
{
	const struct dirblk *a = pa, *b = pb;

	if (a->ino != b->ino)
		return a->ino < b->ino ? -1 : 1;
	return a->lblk < b->lblk ? -1 : a->lblk > b->lblk;
}

static int add_event(struct diff *d, const struct event *e, bool added)
{
	if (ek_grow(&d->ev, &d->capev, d->nev + 1, sizeof(*d->ev)))
		return -ENOMEM;
	d->ev[d->nev] = *e;
	d->ev[d->nev++].added = added;
	return 0;
}

/* the entries of directory @ino's blocks db[from..to) on both sides, matched by name */
static int compare_dir(struct diff *d, ek_ino_t ino, size_t from, size_t to)
{
	struct file *f = file_of(d, ino);
	struct dents ds[2] = { { .dir = ino }, { .dir = ino } };
	size_t i = 0, k = 0;
	int err = 0;

	if (!f)
		return 0;
	for (int s = FROM; s <= TO; s++) {
		bool inl;

		if (!f->alive[s] || !ek_is_dir(f->ei[s].mode))
			continue;
		inl = f->ei[s].flags & EXT4_INLINE_DATA_FL;
		for (size_t b = from; b < to; b++) {
			if (inl && d->db[b].lblk)
				continue;
			err = ek_dir_iterate_block(d->s[s].fs, &f->ei[s], d->db[b].lblk, 0,
						   collect_dent, &ds[s]);
			if (err == -ENOMEM)
				goto out;
			if (err && err != -ENOENT && err != -EK_BADCRC) {
				char where[64];

				snprintf(where, sizeof(where), "%s side", d->s[s].what);
				warn(d, "%s: %s", where, ek_error_msg(err));
			}
			err = 0;
			if (inl)
				break;
		}
		sort(ds[s].e, ds[s].n, sizeof(*ds[s].e), cmp_dent);
	}
	while (i < ds[FROM].n || k < ds[TO].n) {
		int c = i == ds[FROM].n ? 1 : k == ds[TO].n ? -1 : cmp_dent(&ds[FROM].e[i], &ds[TO].e[k]);

		if (c < 0)
			err = add_event(d, &ds[FROM].e[i++], false);
		else if (c > 0)
			err = add_event(d, &ds[TO].e[k++], true);
		else
			i++, k++;
		if (err)
			break;
	}
out:
	free(ds[FROM].e);
	free(ds[TO].e);
	return err;
}

static int compare_dirs(struct diff *d)
{
	size_t u = 0;
	int err = 0;

	sort(d->db, d->ndb, sizeof(*d->db), cmp_dirblk);
	for (size_t i = 0; i < d->ndb; i++)
		if (!u || cmp_dirblk(&d->db[u - 1], &d->db[i]))
			d->db[u++] = d->db[i];
	d->ndb = u;
	for (size_t i = 0; i < d->ndb && !err;) {
		size_t e = i;

		while (e < d->ndb && d->db[e].ino == d->db[i].ino)
			e++;
		err = compare_dir(d, d->db[i].ino, i, e);
		i = e;
	}
	return err;
}

/*
 * The inodes a name event names that nothing else brought in: one whose
 * inode table block reached the disk before the crash reads alike on both
 * sides, yet its name came or went.  They are compared too (their records
 * carry the names), their directory blocks not.
 */
static int add_named(struct diff *d)
{
	struct file *files;
	size_t old = d->ninos, k = 0;
	int err;

	for (size_t i = 0; i < d->nev; i++) {
		/* file_of() searches the first @old, still sorted */
		d->ninos = old;
		if (file_of(d, d->ev[i].ino))
			continue;
		d->ninos = old + k;
		if ((err = add_ino(d, d->ev[i].ino)))
			return err;
		k = d->ninos - old;
	}
	d->ninos = old + k;
	k = 0;
	if (d->ninos == old)
		return 0;
	/* file_of() needs the sorted list: the new ones were appended */
	files = ek_calloc(d->ninos + 1, sizeof(*files));
	if (!files)
		return -ENOMEM;
	uniq_inos(d);
	for (size_t i = 0; i < d->ninos; i++) {
		if (k < old && d->files[k].ino == d->inos[i]) {
			files[i] = d->files[k++];
			continue;
		}
		files[i].ino = d->inos[i];
	}
	free(d->files);
	d->files = files;
	for (size_t i = 0; i < d->ninos; i++) {
		if (files[i].ei[FROM].raw || files[i].ei[TO].raw || files[i].rerr[FROM] ||
		    files[i].rerr[TO])
			continue;	/* compared before */
		if ((err = compare_inode(d, &files[i], false)))
			return err;
	}
	return 0;
}

static const char *change_of(const struct diff *d, const struct file *f);
static const struct event *first_event(const struct diff *d, ek_ino_t ino, bool added);

/*
 * A directory created in the range whose blocks reached the disk before the
 * crash reads alike on both sides, yet it had no name on the from side:
 * its entries are new all the same.  Each becomes an added name (and its
 * inode is compared), so a file made in a new directory is named; the new
 * directories among them in turn.
 */
static int created_contents(struct diff *d)
{
	struct ek_set seen = { 0 };
	int err = 0;

	for (;;) {
		size_t before = d->nev;

		for (size_t i = 0; i < d->ninos && !err; i++) {
			struct file *f = &d->files[i];
			struct dents ds = { .dir = f->ino };

			if (!f->ei[TO].raw || !ek_is_dir(f->ei[TO].mode) ||
			    strcmp(change_of(d, f), "created"))
				continue;
			err = ek_set_add(&seen, f->ino);
			if (err) {
				err = err == 1 ? 0 : err;
				continue;	/* done before */
			}
			err = ek_dir_iterate(d->s[TO].fs, &f->ei[TO], 0, collect_dent, &ds);
			if (err && err != -ENOMEM)
				err = 0;	/* damage: the entries read so far */
			for (size_t k = 0; k < ds.n && !err; k++)
				if (!first_event(d, ds.e[k].ino, true))
					err = add_event(d, &ds.e[k], true);
			free(ds.e);
		}
		if (err || d->nev == before)
			break;
		err = add_named(d);
	}
	ek_set_release(&seen);
	return err;
}

/* ---- 5. paths --------------------------------------------------------------- */

#define PATH_MAX_DEPTH 1024	/* directories deeper than this are not named */

struct findname {
	ek_ino_t ino;
	char name[256];
	uint8_t len;
	bool found;
};

static int find_name(void *arg, const struct ek_dirent *de)
{
	struct findname *fn = arg;

	if (de->ino != fn->ino || (de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	memcpy(fn->name, de->name, de->name_len);
	fn->len = de->name_len;
	fn->found = true;
	return 1;
}

static int memo_add(struct side *v, ek_ino_t ino, char *path)
{
	if (ek_grow(&v->memo, &v->capmemo, v->nmemo + 1, sizeof(*v->memo))) {
		free(path);
		return -ENOMEM;
	}
	v->memo[v->nmemo++] = (struct pathmemo){ ino, path };
	return 0;
}

/* "/" joined: @a (a directory's path) and a name */
static char *join(const char *a, const char *name, size_t len)
{
	size_t la = strlen(a);
	char *p = ek_malloc(la + len + 2);

	if (!p)
		return NULL;
	memcpy(p, a, la);
	if (!la || a[la - 1] != '/')
		p[la++] = '/';
	memcpy(p + la, name, len);
	p[la + len] = 0;
	return p;
}

/*
 * The path of directory @ino on side @v by '..' and a look-up of its name
 * in the parent, up to the root; NULL when it cannot be found (recorded in
 * the memo so it is asked once).  Owned by the memo.
 */
static const char *dir_path(struct diff *d, struct side *v, ek_ino_t ino, int depth)
{
	struct ek_inode ei = { 0 }, pe = { 0 };
	struct findname fn = { .ino = ino };
	ek_ino_t parent;
	const char *pp;
	char *path = NULL;
	size_t me = v->nmemo;

	for (size_t i = 0; i < v->nmemo; i++)
		if (v->memo[i].ino == ino)
			return v->memo[i].path;
	/* in the memo, unnamed, before going up: a '..' loop ends here */
	if (memo_add(v, ino, NULL))
		return NULL;
	if (ino == EXT4_ROOT_INO) {
		path = strdup("/");
		goto out;
	}
	if (depth > PATH_MAX_DEPTH)
		goto out;
	if (ek_inode_read(v->fs, ino, &ei) < 0 && !ei.raw)
		goto out;
	if (!ek_is_dir(ei.mode) || ek_dir_lookup(v->fs, &ei, "..", 2, &parent) || !parent ||
	    parent == ino || parent > v->fs->sb.inodes_count)
		goto out;
	if (ek_inode_read(v->fs, parent, &pe) < 0 && !pe.raw)
		goto out;
	if (!ek_is_dir(pe.mode))
		goto out;
	ek_dir_iterate(v->fs, &pe, 0, find_name, &fn);
	if (!fn.found)
		goto out;
	pp = dir_path(d, v, parent, depth + 1);
	if (pp)
		path = join(pp, fn.name, fn.len);
out:
	ek_inode_release(&ei);
	ek_inode_release(&pe);
	v->memo[me].path = path;
	return path;
}

/* the event of @f's inode on side @s: removed names (FROM) or added ones (TO) */
static const struct event *first_event(const struct diff *d, ek_ino_t ino, bool added)
{
	for (size_t i = 0; i < d->nev; i++)
		if (d->ev[i].ino == ino && d->ev[i].added == added)
			return &d->ev[i];
	return NULL;
}

static char *event_path(struct diff *d, const struct event *e)
{
	const char *dp = dir_path(d, &d->s[e->added ? TO : FROM], e->dir, 0);

	return dp ? join(dp, e->name, e->len) : NULL;
}

struct walknode {
	ek_ino_t ino;
	size_t parent;		/* index of the parent node; SIZE_MAX for the root */
	char *name;
};

struct walk {
	struct diff *d;
	int s;
	struct walknode *q;
	size_t n, cap, at;
	struct ek_set seen;
	size_t wanted;
	int err;
};

static char *node_path(const struct walk *w, size_t i, const char *name, size_t len)
{
	const char *parts[PATH_MAX_DEPTH];
	size_t np = 0, total = len + 2;
	char *p, *at;

	for (size_t k = i; k != SIZE_MAX && np < PATH_MAX_DEPTH; k = w->q[k].parent)
		if (w->q[k].name) {
			parts[np++] = w->q[k].name;
			total += strlen(w->q[k].name) + 1;
		}
	p = at = ek_malloc(total);
	if (!p)
		return NULL;
	while (np--) {
		*at++ = '/';
		at = stpcpy(at, parts[np]);
	}
	*at++ = '/';
	memcpy(at, name, len);
	at[len] = 0;
	return p;
}

static int walk_entry(void *arg, const struct ek_dirent *de)
{
	struct walk *w = arg;
	struct diff *d = w->d;
	struct file *f;
	bool isdir;

	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	f = file_of(d, de->ino);
	if (f && f->want_walk[w->s] && !f->path[w->s]) {
		f->path[w->s] = node_path(w, w->at, de->name, de->name_len);
		f->source[w->s] = "full_walk";
		if (!f->path[w->s])
			return w->err = -ENOMEM;
		if (!--w->wanted)
			return 1;
	}
	if (ek_has_incompat(d->s[w->s].fs, EXT4_FEATURE_INCOMPAT_FILETYPE)) {
		isdir = de->file_type == EXT4_FT_DIR;
	} else {
		struct ek_inode ei;

		isdir = ek_inode_read(d->s[w->s].fs, de->ino, &ei) >= 0 && ek_is_dir(ei.mode);
		ek_inode_release(&ei);
	}
	if (!isdir || de->ino > d->s[w->s].fs->sb.inodes_count || ek_set_add(&w->seen, de->ino))
		return 0;	/* seen (a loop or a hard-linked directory), or no memory: skip */
	if (ek_grow(&w->q, &w->cap, w->n + 1, sizeof(*w->q)))
		return w->err = -ENOMEM;
	w->q[w->n].ino = de->ino;
	w->q[w->n].parent = w->at;
	w->q[w->n].name = strndup(de->name, de->name_len);
	if (!w->q[w->n].name)
		return w->err = -ENOMEM;
	w->n++;
	return 0;
}

/* one breadth-first walk of side @s finding every file that wants it */
static int full_walk(struct diff *d, int s)
{
	struct walk w = { .d = d, .s = s };

	for (size_t i = 0; i < d->ninos; i++)
		w.wanted += d->files[i].want_walk[s] && !d->files[i].path[s];
	if (!w.wanted)
		return 0;
	d->walk_needed[s] = true;
	if (ek_grow(&w.q, &w.cap, 0 + 1, sizeof(*w.q)))
		return -ENOMEM;
	w.q[w.n++] = (struct walknode){ EXT4_ROOT_INO, SIZE_MAX, NULL };
	ek_set_add(&w.seen, EXT4_ROOT_INO);
	for (w.at = 0; w.at < w.n && w.wanted && !w.err; w.at++) {
		struct ek_inode ei;
		int err = ek_inode_read(d->s[s].fs, w.q[w.at].ino, &ei);

		if ((err >= 0 || ei.raw) && ek_is_dir(ei.mode))
			ek_dir_iterate(d->s[s].fs, &ei, 0, walk_entry, &w);
		ek_inode_release(&ei);
	}
	for (size_t i = 0; i < w.n; i++)
		free(w.q[i].name);
	free(w.q);
	ek_set_release(&w.seen);
	return w.err;
}

struct gsearch {
	struct diff *d;
	int s;
	ek_ino_t dir;
	size_t wanted;
	int err;
};

static int gsearch_entry(void *arg, const struct ek_dirent *de)
{
	struct gsearch *g = arg;
	struct file *f = file_of(g->d, de->ino);
	const char *dp;

	if (!f || !f->want_walk[g->s] || f->path[g->s] ||
	    (de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && de->name[0] == '.' && de->name[1] == '.'))
		return 0;
	dp = dir_path(g->d, &g->d->s[g->s], g->dir, 0);
	if (!dp)
		return 0;
	f->path[g->s] = join(dp, de->name, de->name_len);
	if (!f->path[g->s])
		return g->err = -ENOMEM;
	f->source[g->s] = "group_search";
	return --g->wanted ? 0 : 1;
}

#define GSEARCH_MAX_GROUPS 8

/*
 * Before the full walk: the kernel puts a file's inode in its directory's
 * group when it can (find_inode_orlov/ext4_find_group_other), so the
 * directories whose inodes share a wanted file's group are searched first.
 * The cost is those groups' inode tables, not the tree.
 */
static int group_search(struct diff *d, int s)
{
	struct ek_fs *fs = d->s[s].fs;
	uint32_t groups[GSEARCH_MAX_GROUPS], ng = 0, ipg = fs->sb.inodes_per_group;
	struct gsearch g = { .d = d, .s = s };

	for (size_t i = 0; i < d->ninos; i++) {
		uint32_t grp;
		uint32_t k;

		if (!d->files[i].want_walk[s] || d->files[i].path[s])
			continue;
		g.wanted++;
		grp = ek_group_of_ino(fs, d->files[i].ino);
		for (k = 0; k < ng && groups[k] != grp; k++)
			;
		if (k == ng && ng == GSEARCH_MAX_GROUPS)
			return 0;	/* spread too wide: the walk it is */
		if (k == ng)
			groups[ng++] = grp;
	}
	for (uint32_t k = 0; k < ng && g.wanted && !g.err; k++) {
		uint64_t first = (uint64_t)groups[k] * ipg + 1;

		for (uint64_t ino = first; ino < first + ipg && ino <= fs->sb.inodes_count &&
		     g.wanted && !g.err; ino++) {
			struct ek_inode ei;

			if (ek_test_inode(fs, (ek_ino_t)ino) != 1)
				continue;
			if ((ek_inode_read(fs, (ek_ino_t)ino, &ei) >= 0 || ei.raw) &&
			    ek_is_dir(ei.mode) && ei.links_count) {
				g.dir = (ek_ino_t)ino;
				ek_dir_iterate(fs, &ei, 0, gsearch_entry, &g);
			}
			ek_inode_release(&ei);
		}
	}
	return g.err;
}

/*
 * Each side's path of each file: its name event there, else '..' for a
 * directory, else the full walk.  A file that gained a name (linked) is
 * named by the one it had (the from side's, found by the walk); one that
 * lost a name (unlinked) by the one it kept (the to side's).
 */
static int resolve_paths(struct diff *d)
{
	for (size_t i = 0; i < d->ninos; i++) {
		struct file *f = &d->files[i];
		const char *ch = change_of(d, f);

		for (int s = FROM; s <= TO; s++) {
			const struct event *e = first_event(d, f->ino, s == TO);

			if (!strcmp(ch, "linked") || !strcmp(ch, "unlinked"))
				e = NULL;
			if (!f->alive[s] && !e)
				continue;
			if (reserved(d->s[s].fs, f->ino))
				continue;	/* no name to look for */
			if (e) {
				f->path[s] = event_path(d, e);
				f->source[s] = "entry";
			} else if (ek_is_dir(f->ei[s].mode)) {
				const char *p = dir_path(d, &d->s[s], f->ino, 0);

				f->path[s] = p ? strdup(p) : NULL;
				f->source[s] = "parent_walk";
			} else {
				f->want_walk[s] = true;
				continue;
			}
		}
	}
	for (int s = FROM; s <= TO; s++) {
		int err = group_search(d, s);

		if (!err)
			err = full_walk(d, s);

		if (err)
			return err;
	}
	return 0;
}

/* the name change of @f's record, and whether its text says "old -> new" */
static bool moved(const struct diff *d, const struct file *f)
{
	const char *ch = change_of(d, f);

	return f->path[FROM] && f->path[TO] && strcmp(f->path[FROM], f->path[TO]) &&
	       strcmp(ch, "linked") && strcmp(ch, "unlinked");
}

/* ---- output --------------------------------------------------------------- */

static const char *change_of(const struct diff *d, const struct file *f)
{
	bool rm = first_event(d, f->ino, false), add = first_event(d, f->ino, true);

	if (f->alive[FROM] && f->alive[TO] && f->ei[FROM].generation != f->ei[TO].generation)
		return "replaced";
	if (!f->alive[FROM] && f->alive[TO])
		return "created";
	if (f->alive[FROM] && !f->alive[TO])
		return "deleted";
	/* a name of an inode dead on both sides (its table block written home
	 * before the crash, or damage): the name is what changed */
	if (!f->alive[FROM] && !f->alive[TO])
		return rm ? "deleted" : add ? "created" : "changed";
	/* a directory has one name: one gained or lost alone is a move whose
	 * other half the log does not hold (written home before the crash) */
	if ((rm && add) || ((rm || add) && ek_is_dir(f->ei[TO].mode)))
		return "renamed";
	if (add)
		return "linked";
	if (rm)
		return "unlinked";
	return "changed";
}

/* "2026-12-02T07:24:45.919664342Z", or "-" for a time the inode lacks */
static const char *iso_ns(const struct ek_time *t, char *buf, size_t len)
{
	char iso[40];
	size_t n;

	if (!t->present)
		return "-";
	ek_fmt_iso(t->sec, iso, sizeof(iso));
	n = strlen(iso);
	if (n && iso[n - 1] == 'Z')
		iso[n - 1] = 0;
	snprintf(buf, len, "%s.%09uZ", iso, t->nsec);
	return buf;
}

static void emit_time(struct ek_out *o, const char *key, const struct ek_time *a,
		      const struct ek_time *b)
{
	char x[64], y[64];

	if (a->present == b->present && a->sec == b->sec && a->nsec == b->nsec)
		return;
	ek_out_text(o, "    %s: %s -> %s\n", key, iso_ns(a, x, sizeof(x)), iso_ns(b, y, sizeof(y)));
	ek_out_obj_begin(o, key);
	if (a->present)
		ek_out_time(o, "old", a->sec, a->nsec);
	else
		ek_out_null(o, "old");
	if (b->present)
		ek_out_time(o, "new", b->sec, b->nsec);
	else
		ek_out_null(o, "new");
	ek_out_obj_end(o);
}

/* @base: 'o' octal (modes), 'x' hex (flags), else decimal */
static void emit_u64(struct ek_out *o, const char *key, uint64_t a, uint64_t b, char base)
{
	if (a == b)
		return;
	if (base == 'o')
		ek_out_text(o, "    %s: 0%llo -> 0%llo\n", key, (unsigned long long)a,
			    (unsigned long long)b);
	else if (base == 'x')
		ek_out_text(o, "    %s: 0x%llx -> 0x%llx\n", key, (unsigned long long)a,
			    (unsigned long long)b);
	else
		ek_out_text(o, "    %s: %llu -> %llu\n", key, (unsigned long long)a,
			    (unsigned long long)b);
	ek_out_obj_begin(o, key);
	ek_out_u64(o, "old", a);
	ek_out_u64(o, "new", b);
	ek_out_obj_end(o);
}

static void emit_fields(struct ek_out *o, const struct file *f)
{
	const struct ek_inode *a = &f->ei[FROM], *b = &f->ei[TO];

	ek_out_obj_begin(o, "fields");
	emit_u64(o, "mode", a->mode, b->mode, 'o');
	emit_u64(o, "uid", a->uid, b->uid, 'd');
	emit_u64(o, "gid", a->gid, b->gid, 'd');
	emit_u64(o, "links", a->links_count, b->links_count, 'd');
	emit_u64(o, "size", a->size, b->size, 'd');
	emit_u64(o, "flags", a->flags, b->flags, 'x');
	emit_u64(o, "project", a->projid, b->projid, 'd');
	emit_time(o, "atime", &a->atime, &b->atime);
	emit_time(o, "mtime", &a->mtime, &b->mtime);
	emit_time(o, "ctime", &a->ctime, &b->ctime);
	emit_time(o, "crtime", &a->crtime, &b->crtime);
	ek_out_obj_end(o);
}

/* xattr names on one side only, or with another value */
static void emit_xattrs(struct ek_out *o, const struct file *f)
{
	static const char *const what[3] = { "added", "removed", "changed" };
	const struct xents *a = &f->xa[FROM], *b = &f->xa[TO];

	ek_out_obj_begin(o, "xattrs");
	for (int pass = 0; pass < 3; pass++) {
		size_t i = 0, k = 0;
		bool any = false;

		ek_out_arr_begin(o, what[pass]);
		while (i < a->n || k < b->n) {
			int c = i == a->n ? 1 : k == b->n ? -1 : strcmp(a->x[i].name, b->x[k].name);
			const char *name = NULL;

			if (c < 0) {
				if (pass == 1)
					name = a->x[i].name;
				i++;
			} else if (c > 0) {
				if (pass == 0)
					name = b->x[k].name;
				k++;
			} else {
				if (pass == 2 && (a->x[i].len != b->x[k].len ||
						  a->x[i].crc != b->x[k].crc))
					name = b->x[k].name;
				i++;
				k++;
			}
			if (!name)
				continue;
			ek_out_text(o, "%s%s", any ? ", " : "    xattr ", any ? "" : what[pass]);
			ek_out_text(o, "%s%s", any ? "" : ": ", name);
			ek_out_str(o, NULL, name);
			any = true;
		}
		if (any)
			ek_out_text(o, "\n");
		ek_out_arr_end(o);
	}
	ek_out_obj_end(o);
}

static void emit_path(struct ek_out *o, const char *key, const struct file *f, int s)
{
	if (f->path[s])
		ek_out_name(o, key, f->path[s], strlen(f->path[s]));
	else
		ek_out_null(o, key);
}

/* the inode reads the same on both sides */
static bool same_inode(const struct file *f)
{
	return f->ei[FROM].raw && f->ei[TO].raw && f->ei[FROM].raw_size == f->ei[TO].raw_size &&
	       !memcmp(f->ei[FROM].raw, f->ei[TO].raw, f->ei[FROM].raw_size);
}

static bool file_changed(const struct diff *d, const struct file *f)
{
	if (!f->alive[FROM] && !f->alive[TO])
		return first_event(d, f->ino, false) || first_event(d, f->ino, true);
	if (first_event(d, f->ino, false) || first_event(d, f->ino, true) || f->blocks.n)
		return true;
	if (!f->ei[FROM].raw || !f->ei[TO].raw || f->ei[FROM].raw_size != f->ei[TO].raw_size ||
	    memcmp(f->ei[FROM].raw, f->ei[TO].raw, f->ei[FROM].raw_size))
		return true;
	if (f->xa[FROM].n != f->xa[TO].n)
		return true;
	for (size_t i = 0; i < f->xa[FROM].n; i++)
		if (strcmp(f->xa[FROM].x[i].name, f->xa[TO].x[i].name) ||
		    f->xa[FROM].x[i].crc != f->xa[TO].x[i].crc ||
		    f->xa[FROM].x[i].len != f->xa[TO].x[i].len)
			return true;
	return false;
}

static const char *text_path(const struct file *f, int s)
{
	return f->path[s] ? f->path[s] : "?";
}

/* the names @f gained (@added) or lost, as JSON; in the text those not
 * already shown as its path @shown */
static void emit_names(struct diff *d, const struct file *f, bool added, const char *shown)
{
	struct ek_out *o = d->o;

	ek_out_arr_begin(o, added ? "names_added" : "names_removed");
	for (size_t i = 0; i < d->nev; i++) {
		char *p;

		if (d->ev[i].ino != f->ino || d->ev[i].added != added)
			continue;
		p = event_path(d, &d->ev[i]);
		if (!p || strcmp(p, shown))
			ek_out_text(o, "    name %s: %s\n", added ? "added" : "removed", p ? p : "?");
		if (p)
			ek_out_name(o, NULL, p, strlen(p));
		else
			ek_out_null(o, NULL);
		free(p);
	}
	ek_out_arr_end(o);
}

static void emit_file(struct diff *d, const struct file *f)
{
	struct ek_out *o = d->o;
	const char *ch = change_of(d, f);
	int main_side = f->alive[TO] ? TO : FROM;
	const struct ek_inode *ei = &f->ei[main_side];
	bool mv = moved(d, f);
	char sfx[80] = "";
	const char *type = type_name(ei->mode);
	const struct event *e;

	/* dead on both sides: named by its event, typed by its entry */
	if (!f->alive[FROM] && !f->alive[TO]) {
		e = first_event(d, f->ino, false);
		main_side = e ? FROM : TO;
		if (!e)
			e = first_event(d, f->ino, true);
		type = e ? ftype_name(e->ftype) : "unknown";
	}

	if (main_side == TO && f->alive[FROM] && f->ei[FROM].mode != ei->mode &&
	    !ek_is_dir(f->ei[FROM].mode) != !ek_is_dir(ei->mode))
		snprintf(sfx, sizeof(sfx), ", was %s", type_name(f->ei[FROM].mode));
	if (mv || main_side == FROM)
		ek_out_text(o, "%-9s %-7s %s%s%s (inode %u%s)\n", ch, type,
			    text_path(f, FROM), mv ? " -> " : "", mv ? text_path(f, TO) : "",
			    f->ino, sfx);
	else
		ek_out_text(o, "%-9s %-7s %s (inode %u%s)\n", ch, type,
			    text_path(f, TO), f->ino, sfx);
	if (same_inode(f))
		ek_out_text(o, "    (the inode reads the same on both sides: written home before the crash)\n");
	/* one half of a move: the other name's directory block reads alike
	 * on both sides (written home before the crash) */
	if (!strcmp(ch, "renamed") && !mv)
		ek_out_text(o, "    (its %s name is not known: written home before the crash)\n",
			    first_event(d, f->ino, true) ? "old" : "new");
	ek_out_obj_begin(o, NULL);
	ek_out_u64(o, "inode", f->ino);
	ek_out_str(o, "change", ch);
	ek_out_str(o, "type", type);
	ek_out_bool(o, "inode_same_bytes", same_inode(f));
	emit_path(o, "path", f, main_side);
	emit_path(o, "old_path", f, FROM);
	emit_path(o, "new_path", f, TO);
	ek_out_bool(o, "path_resolved", f->path[main_side] != NULL);
	if (f->source[main_side] && f->path[main_side])
		ek_out_str(o, "path_source", f->source[main_side]);
	else
		ek_out_null(o, "path_source");
	if (reserved(d->s[main_side].fs, f->ino))
		ek_out_text(o, "    (a reserved or hidden inode: no name)\n");
	ek_out_bool(o, "reserved", reserved(d->s[main_side].fs, f->ino));
	emit_names(d, f, true, text_path(f, main_side));
	emit_names(d, f, false, text_path(f, main_side == TO && mv ? FROM : main_side));
	if (f->alive[FROM] && f->alive[TO])
		emit_fields(o, f);
	else
		ek_out_null(o, "fields");
	if (!f->alive[FROM] && !f->alive[TO]) {
		ek_out_null(o, "size");		/* no live inode to tell */
	} else {
		if (!f->alive[FROM] || !f->alive[TO])
			ek_out_text(o, "    size: %llu\n", (unsigned long long)ei->size);
		ek_out_u64(o, "size", ei->size);
	}
	if (f->blocks.n)
		ek_out_text(o, "    blocks:");
	ek_out_arr_begin(o, "blocks_changed");
	for (size_t i = 0; i < f->blocks.n; i++) {
		const struct range *r = &f->blocks.r[i];

		if (r->start == r->end)
			ek_out_text(o, "%s %llu", i ? "," : "", (unsigned long long)r->start);
		else
			ek_out_text(o, "%s %llu-%llu", i ? "," : "", (unsigned long long)r->start,
				    (unsigned long long)r->end);
		ek_out_obj_begin(o, NULL);
		ek_out_u64(o, "start", r->start);
		ek_out_u64(o, "end", r->end);
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	if (f->blocks.n)
		ek_out_text(o, "\n");
	emit_xattrs(o, f);
	ek_out_arr_begin(o, "errors");
	for (int s = FROM; s <= TO; s++) {
		int e = f->rerr[s] ? f->rerr[s] : f->xerr[s] == -EK_BADCRC ? 0 : f->xerr[s];

		if (!e || (!f->alive[s] && e != f->rerr[s]))
			continue;
		ek_out_text(o, "    %s side: %s\n", d->s[s].what, ek_error_msg(e));
		ek_out_obj_begin(o, NULL);
		ek_out_str(o, "side", d->s[s].what);
		ek_out_str(o, "error", ek_error_msg(e));
		ek_out_obj_end(o);
	}
	ek_out_arr_end(o);
	ek_out_obj_end(o);
}

static void emit_side(struct ek_out *o, const char *key, const struct side *v)
{
	ek_out_obj_begin(o, key);
	if (v->replayed)
		ek_out_u64(o, "tid", v->upto);
	else
		ek_out_null(o, "tid");
	ek_out_bool(o, "replayed", v->replayed);
	ek_out_bool(o, "owner_full_scan", v->full_scan);
	ek_out_obj_end(o);
}

static void emit(struct diff *d, ek_tid_t lo, ek_tid_t hi, bool backward)
{
	struct ek_out *o = d->o;
	size_t kinds[EK_OWNER_DATA + 1] = { 0 }, nfiles = 0, unresolved = 0;
	char a[40], b[40];

	for (size_t k = 0; k < d->nblk; k++) {
		const struct ek_blk_owner *w = &d->s[TO].own[k];

		/* a block the "to" side frees is what the "from" side says */
		if (w->kind == EK_OWNER_FREE || w->kind == EK_OWNER_UNKNOWN)
			w = &d->s[FROM].own[k];
		if (w->kind <= EK_OWNER_DATA)
			kinds[w->kind]++;
	}
	for (size_t i = 0; i < d->ninos; i++)
		if (file_changed(d, &d->files[i])) {
			int m = d->files[i].alive[TO] ? TO : FROM;

			nfiles++;
			unresolved += !d->files[i].path[m] && !reserved(d->s[m].fs, d->files[i].ino);
		}
	snprintf(a, sizeof(a), d->s[FROM].replayed ? "up to %u" : "nothing", d->s[FROM].upto);
	snprintf(b, sizeof(b), d->s[TO].replayed ? "up to %u" : "nothing", d->s[TO].upto);
	if (d->s[FROM].upto == d->s[TO].upto)
		ek_out_text(o, "No transaction: both sides replayed %s\n", b);
	else if (lo == hi)
		ek_out_text(o, "Transaction %u%s: replayed %s -> replayed %s\n", lo,
			    backward ? " undone" : "", a, b);
	else
		ek_out_text(o, "Transactions %u..%u%s: replayed %s -> replayed %s\n", lo, hi,
			    backward ? " undone" : "", a, b);
	ek_out_text(o, "%zu home block%s the two replays write differently", d->nblk, ek_s(d->nblk));
	for (int k = 0; k <= EK_OWNER_DATA; k++)
		if (kinds[k])
			ek_out_text(o, ", %zu %s", kinds[k], ek_blk_owner_kind_name(k));
	ek_out_text(o, "; %zu inode%s differ%s%s\n", nfiles, ek_s(nfiles), nfiles == 1 ? "s" : "",
		    d->s[FROM].full_scan || d->s[TO].full_scan ?
		    " (owners needed a pass over every inode)" : "");
	if (d->nsame)
		ek_out_text(o, "%zu of the blocks hold%s the same bytes on both sides", d->nsame,
			    d->nsame == 1 ? "s" : "");
	if (d->home_done)
		ek_out_text(o, " (%zu already written home before the crash: the from side "
			    "cannot show what they held)", d->home_done);
	if (d->nsame)
		ek_out_text(o, "\n");
	ek_out_obj_begin(o, NULL);
	ek_jlog_emit_status(o, d->j, d->log);
	emit_side(o, "from", &d->s[FROM]);
	emit_side(o, "to", &d->s[TO]);
	ek_out_str(o, "direction", backward ? "backward" : "forward");
	if (d->s[FROM].upto == d->s[TO].upto) {
		ek_out_null(o, "first_tid");	/* no transaction in between */
		ek_out_null(o, "last_tid");
	} else {
		ek_out_u64(o, "first_tid", lo);
		ek_out_u64(o, "last_tid", hi);
	}
	ek_out_u64(o, "home_blocks", d->nblk);
	ek_out_u64(o, "same_bytes", d->nsame);
	ek_out_u64(o, "already_home", d->home_done);
	ek_out_obj_begin(o, "block_kinds");
	for (int k = 0; k <= EK_OWNER_DATA; k++)
		if (kinds[k])
			ek_out_u64(o, ek_blk_owner_kind_name(k), kinds[k]);
	ek_out_obj_end(o);
	ek_out_u64(o, "inodes_compared", d->ninos);
	ek_out_u64(o, "unresolved_paths", unresolved);
	ek_out_bool(o, "full_walk_from", d->walk_needed[FROM]);
	ek_out_bool(o, "full_walk_to", d->walk_needed[TO]);
	ek_out_arr_begin(o, "files");
	for (size_t i = 0; i < d->ninos; i++)
		if (file_changed(d, &d->files[i]))
			emit_file(d, &d->files[i]);
	ek_out_arr_end(o);
	ek_out_obj_end(o);
}

/* ---- the command ---------------------------------------------------------- */

static int parse_tid(const char *prog, const char *s, ek_tid_t *out)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (*end || !*s || *s == '-' || v > UINT32_MAX) {
		fprintf(stderr, "%s: bad transaction id '%s'\n", prog, s);
		return 2;
	}
	*out = (ek_tid_t)v;
	return 0;
}

/* is @tid a committed transaction of the log replay applies? */
static bool committed(const struct ek_jlog *log, ek_tid_t tid)
{
	if (log->end_tid == log->start_tid || ek_tid_after(log->start_tid, tid) ||
	    ek_tid_after_eq(tid, log->end_tid))
		return false;
	for (size_t i = 0; i < log->ntxns; i++)
		if (log->txns[i].tid == tid)
			return log->txns[i].state == EK_JTXN_COMMITTED;
	return false;
}

static int open_side(struct diff *d, struct side *v, const char *image,
		     const struct ek_open_opts *opts)
{
	int err;

	v->replayed = v->upto != d->log->start_tid - 1;
	err = ek_journal_plan(d->j, d->log, v->upto, &v->plan);
	if (err)
		return err;
	v->jv = (struct ek_jplan_view){ d->j, &v->plan };
	err = ek_fs_open(image, &(struct ek_open_opts){ .flags = opts->flags & EK_OPEN_IGNORE_CSUM,
				.offset = opts->offset, .overlay = ek_jplan_overlay,
				.overlay_arg = &v->jv }, &v->fs);
	if (err)
		return err;
	for (unsigned i = 0; i < v->fs->nwarnings; i++)
		fprintf(stderr, "%s: warning: %s side: %s\n", d->prog, v->what, v->fs->warnings[i]);
	return 0;
}

int rp_diff(const char *prog, struct ek_out *o, const char *image, const struct ek_open_opts *opts,
	    struct ek_journal *j, const struct ek_jlog *log, int argc, char **argv)
{
	struct diff d = { .prog = prog, .o = o, .j = j, .log = log };
	ek_tid_t t1, t2, lo, hi;
	const char *stage = "replay plan";
	bool backward;
	int err, ret = 1;

	if (argc < 1 || argc > 2) {
		fprintf(stderr, "%s: usage: %s diff IMAGE TID1 [TID2]\n", prog, prog);
		return 2;
	}
	if (parse_tid(prog, argv[0], &t1))
		return 2;
	if (log->end_tid == log->start_tid) {
		fprintf(stderr, "%s: diff: %s\n", prog,
			j->sb.start ? "the log has no committed transaction" : EK_JLOG_CLEAN);
		return 1;
	}
	if (!committed(log, t1)) {
		fprintf(stderr, "%s: diff: %u is not a committed transaction of the log (%u..%u)\n",
			prog, t1, log->start_tid, log->end_tid - 1);
		return 1;
	}
	t2 = t1 - 1;
	if (argc == 2 && parse_tid(prog, argv[1], &t2))
		return 2;
	/* TID2 may name "nothing replayed" (start - 1) or a committed transaction */
	if (t2 != log->start_tid - 1 && !committed(log, t2)) {
		fprintf(stderr, "%s: diff: %u is not a committed transaction of the log (%u..%u), "
			"nor %u (nothing replayed)\n", prog, t2, log->start_tid, log->end_tid - 1,
			log->start_tid - 1);
		return 1;
	}
	backward = ek_tid_after(t2, t1);
	lo = backward ? t1 + 1 : t2 + 1;
	hi = backward ? t2 : t1;
	d.s[FROM] = (struct side){ .what = "from", .upto = t2 };
	d.s[TO] = (struct side){ .what = "to", .upto = t1 };
	if ((err = open_side(&d, &d.s[FROM], image, opts)) ||
	    (err = open_side(&d, &d.s[TO], image, opts)))
		goto out_fail;
	stage = "comparing the plans";
	if ((err = plans_differ(&d)))
		goto out_fail;
	stage = "reading the blocks";
	if ((err = compare_blocks(&d)))
		goto out_fail;
	stage = "block owners";
	if ((err = classify(&d)))
		goto out_fail;
	stage = "inodes";
	d.files = ek_calloc(d.ninos + 1, sizeof(*d.files));
	if (!d.files) {
		err = -ENOMEM;
		goto out_fail;
	}
	for (size_t i = 0; i < d.ninos; i++) {
		d.files[i].ino = d.inos[i];
		if ((err = compare_inode(&d, &d.files[i], true)))
			goto out_fail;
	}
	stage = "directories";
	if ((err = compare_dirs(&d)) || (err = add_named(&d)) || (err = created_contents(&d)))
		goto out_fail;
	stage = "paths";
	if ((err = resolve_paths(&d)))
		goto out_fail;
	emit(&d, lo, hi, backward);
	ret = 0;
	goto out;
out_fail:
	fprintf(stderr, "%s: diff: %s: %s\n", prog, stage, ek_error_msg(err));
out:
	for (size_t i = 0; d.files && i < d.ninos; i++) {
		struct file *f = &d.files[i];

		for (int s = FROM; s <= TO; s++) {
			ek_inode_release(&f->ei[s]);
			free(f->xa[s].x);
			free(f->path[s]);
		}
		free(f->blocks.r);
	}
	free(d.files);
	for (int s = FROM; s <= TO; s++) {
		for (size_t i = 0; i < d.s[s].nmemo; i++)
			free(d.s[s].memo[i].path);
		free(d.s[s].memo);
		free(d.s[s].own);
		ek_fs_close(d.s[s].fs);
		ek_jplan_release(&d.s[s].plan);
	}
	free(d.blk);
	free(d.same);
	free(d.inos);
	free(d.db);
	free(d.ev);
	return ret;
}
