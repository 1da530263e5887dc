// SPDX-License-Identifier: MIT
/*
 * cmd_scan.c - whole-filesystem lookups: icheck (block -> inode) and
 * ncheck (inode -> paths).  Both make one sequential pass over the inode
 * tables (ek_inode_scan) instead of a lookup per argument.
 */
#include <stdlib.h>
#include <string.h>
#include "debugfs.h"

/* ---- icheck -------------------------------------------------------------- */

struct iblk {
	uint64_t blk;
	ek_ino_t owner;
	unsigned argi;		/* position on the command line */
};

struct icheck {
	struct ek_fs *fs;
	struct iblk *v;		/* sorted by blk */
	size_t n, left;
	ek_ino_t cur;
};

static int cmp_iblk(const void *a, const void *b)
{
	const struct iblk *x = a, *y = b;

	return x->blk < y->blk ? -1 : x->blk > y->blk;
}

static int cmp_argi(const void *a, const void *b)
{
	const struct iblk *x = a, *y = b;

	return (int)x->argi - (int)y->argi;
}

/* mark every wanted block in [first, first+len) as owned by the current inode */
static void icheck_range(struct icheck *c, uint64_t first, uint64_t len)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (c->v[mid].blk < first)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->n && c->v[lo].blk < first + len; lo++)
		if (!c->v[lo].owner) {
			c->v[lo].owner = c->cur;
			c->left--;
		}
}

static int icheck_map(void *arg, const struct ek_mapping *m)
{
	struct icheck *c = arg;

	if (m->kind != EK_MAP_INDEX)
		icheck_range(c, m->pblk, m->len);
	return c->left ? 0 : 1;
}

static int icheck_inode(void *arg, struct ek_inode *ei, int err)
{
	struct icheck *c = arg;

	(void)err;
	if (!ei->links_count && !ei->mode)
		return 0;
	if (ei->dtime && !ei->links_count)
		return 0;	/* deleted */
	c->cur = ei->ino;
	if (ei->file_acl)
		icheck_range(c, ei->file_acl, 1);
	if (ek_map_walk(c->fs, ei, icheck_map, c) == 1 || !c->left)
		return 1;
	return 0;
}

int do_icheck(struct dbg *d, int argc, char **argv)
{
	struct icheck c = { .fs = d->fs };
	int err;

	c.v = calloc(argc - 1, sizeof(*c.v));
	if (!c.v)
		return dbg_fail(d, "icheck", -ENOMEM);
	for (int i = 1; i < argc; i++) {
		if (dbg_parse_u64(argv[i], &c.v[c.n].blk)) {
			dbg_errorf(d, "icheck: bad block number '%s'", argv[i]);
			free(c.v);
			return 1;
		}
		c.v[c.n].argi = i;
		c.n++;
	}
	c.left = c.n;
	qsort(c.v, c.n, sizeof(*c.v), cmp_iblk);
	err = ek_inode_scan(d->fs, icheck_inode, &c);
	if (err == 1)
		err = 0;
	qsort(c.v, c.n, sizeof(*c.v), cmp_argi);
	ek_out_text(d->out, "Block\tInode number\n");
	ek_out_arr_begin(d->out, NULL);
	for (size_t i = 0; i < c.n; i++) {
		if (c.v[i].owner)
			ek_out_text(d->out, "%llu\t%u\n", (unsigned long long)c.v[i].blk, c.v[i].owner);
		else
			ek_out_text(d->out, "%llu\t<block not found>\n", (unsigned long long)c.v[i].blk);
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "block", c.v[i].blk);
		if (c.v[i].owner)
			ek_out_u64(d->out, "inode", c.v[i].owner);
		else
			ek_out_null(d->out, "inode");
		ek_out_obj_end(d->out);
	}
	ek_out_arr_end(d->out);
	free(c.v);
	if (err && err != -EK_BADCRC)
		return dbg_fail(d, "icheck", err);
	return 0;
}

/* ---- ncheck -------------------------------------------------------------- */

/*
 * With the filetype feature, a walk down from the root finds the links of
 * the wanted inodes reading only directories (entries say which names are
 * directories).  Inodes it does not find (unlinked, or in a directory cut
 * off from the root) are looked for the slow way: one pass over the inode
 * tables collects the directories, one pass over their entries records
 * each directory's parent and name and each link to a wanted inode, and
 * paths are built by walking parents.
 */
struct dnode {
	ek_ino_t ino, parent;
	char *name;
};

struct hit {
	ek_ino_t ino, dir;
	uint8_t file_type;
	char *name;		/* scan: the entry's name in @dir */
	char *path;		/* walk: the whole path */
};

struct ncheck {
	struct dbg *d;
	ek_ino_t *want;		/* sorted */
	bool *found;		/* parallel to want */
	size_t nwant;
	ek_ino_t *dirs;		/* directory inodes, in scan order (sorted) */
	size_t ndirs, capdirs;
	struct dnode *dn;	/* per directory, parallel to dirs */
	struct hit *hits;
	size_t nhits, caphits;
	ek_ino_t cur;
	size_t cur_idx;
	bool check_type;
	struct ek_set warned;	/* directories already reported as damaged */
	int err;
};

/* report a damaged directory once, though the walk and the scan both meet it */
static void dir_warn(struct ncheck *n, ek_ino_t dir, int err)
{
	if (ek_set_add(&n->warned, dir) == 0)
		dbg_warn(n->d, "ncheck: directory %u: %s", dir, ek_error_msg(err));
}

/* index of @ino in the wanted list, or -1 */
static ssize_t wanted(const struct ncheck *n, ek_ino_t ino)
{
	size_t lo = 0, hi = n->nwant;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (n->want[mid] == ino)
			return mid;
		if (n->want[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int add_hit(struct ncheck *n, ek_ino_t ino, ek_ino_t dir, uint8_t file_type,
		   const char *name, size_t name_len, const char *path)
{
	struct hit *h;

	if (ek_grow(&n->hits, &n->caphits, n->nhits + 1, sizeof(*n->hits)))
		return -ENOMEM;
	h = &n->hits[n->nhits];
	*h = (struct hit){ .ino = ino, .dir = dir, .file_type = file_type };
	h->name = name ? strndup(name, name_len) : NULL;
	h->path = path ? strdup(path) : NULL;
	if ((name && !h->name) || (path && !h->path)) {
		free(h->name);
		free(h->path);
		return -ENOMEM;
	}
	n->nhits++;
	return 0;
}

/* ---- ncheck: the walk from the root ---- */

#define NCHECK_MAX_DEPTH 1024

struct nwalk {
	struct ncheck *n;
	struct ek_set seen;	/* directories entered: DAGs and loops end here */
	unsigned depth;
	char path[8192];
};

static int walk_dir(struct nwalk *w, ek_ino_t ino);

static int walk_entry(void *arg, const struct ek_dirent *de)
{
	struct nwalk *w = arg;
	size_t len = strlen(w->path);
	ssize_t idx;
	int err = 0;

	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	if (len + 1 + de->name_len >= sizeof(w->path))
		return 0;	/* too deep to print; the scan would not do better */
	w->path[len] = '/';
	memcpy(w->path + len + 1, de->name, de->name_len);
	w->path[len + 1 + de->name_len] = 0;
	idx = wanted(w->n, de->ino);
	if (idx >= 0) {
		w->n->found[idx] = true;
		err = add_hit(w->n, de->ino, 0, de->file_type, NULL, 0, w->path);
	}
	if (!err && de->file_type == EXT4_FT_DIR && w->depth < NCHECK_MAX_DEPTH)
		err = walk_dir(w, de->ino);
	w->path[len] = 0;
	return err == -ENOMEM ? err : 0;
}

static int walk_dir(struct nwalk *w, ek_ino_t ino)
{
	struct ek_inode dir = { 0 };
	int err = ek_set_add(&w->seen, ino);

	if (err)
		return err < 0 ? err : 0;
	err = ek_inode_read(w->n->d->fs, ino, &dir);
	if ((!err || err == -EK_BADCRC) && ek_is_dir(dir.mode)) {
		w->depth++;
		err = ek_dir_iterate(w->n->d->fs, &dir, 0, walk_entry, w);
		w->depth--;
		if (err && err != -ENOMEM && err != -EK_BADCRC)
			dir_warn(w->n, ino, err);
	}
	ek_inode_release(&dir);
	return err == -ENOMEM ? err : 0;
}

static ssize_t dir_index(const struct ncheck *n, ek_ino_t ino)
{
	size_t lo = 0, hi = n->ndirs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (n->dirs[mid] == ino)
			return mid;
		if (n->dirs[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int collect_dir(void *arg, struct ek_inode *ei, int err)
{
	struct ncheck *n = arg;

	(void)err;
	if (!ek_is_dir(ei->mode) || !ei->links_count)
		return 0;
	if (ek_grow(&n->dirs, &n->capdirs, n->ndirs + 1, sizeof(*n->dirs)))
		return -ENOMEM;
	n->dirs[n->ndirs++] = ei->ino;
	return 0;
}

static int ncheck_entry(void *arg, const struct ek_dirent *de)
{
	struct ncheck *n = arg;
	bool dot = de->name_len == 1 && de->name[0] == '.';
	bool dotdot = de->name_len == 2 && !memcmp(de->name, "..", 2);
	ssize_t di;

	if (dotdot) {
		n->dn[n->cur_idx].parent = de->ino;
		return 0;
	}
	if (dot)
		return 0;
	di = dir_index(n, de->ino);
	if (di >= 0 && !n->dn[di].name && de->ino != n->cur) {
		n->dn[di].name = strndup(de->name, de->name_len);
		if (!n->dn[di].name)
			return -ENOMEM;
		if (!n->dn[di].parent)
			n->dn[di].parent = n->cur;
	}
	if (wanted(n, de->ino) >= 0)
		return add_hit(n, de->ino, n->cur, de->file_type, de->name, de->name_len, NULL);
	return 0;
}

/* path of directory @ino into buf (bounded walk up the parents) */
static void build_path(const struct ncheck *n, ek_ino_t ino, char *buf, size_t len)
{
	char tmp[8192];
	int depth = 0;

	buf[0] = 0;
	while (ino != EXT4_ROOT_INO) {
		ssize_t di = dir_index(n, ino);

		if (di < 0 || !n->dn[di].name || depth++ > 1000) {
			snprintf(tmp, sizeof(tmp), "<%u>%s", ino, buf);
			snprintf(buf, len, "%s", tmp);
			return;
		}
		snprintf(tmp, sizeof(tmp), "/%s%s", n->dn[di].name, buf);
		snprintf(buf, len, "%s", tmp);
		ino = n->dn[di].parent;
	}
}


/* the slow way, for the wanted inodes the walk did not find */
static int ncheck_scan(struct ncheck *n)
{
	struct dbg *d = n->d;
	int err;

	err = ek_inode_scan(d->fs, collect_dir, n);
	if (err == -EK_BADCRC)
		err = 0;
	if (!err)
		n->dn = calloc(n->ndirs ? n->ndirs : 1, sizeof(*n->dn));
	if (!err && !n->dn)
		err = -ENOMEM;
	for (size_t i = 0; !err && i < n->ndirs; i++) {
		struct ek_inode dir = { 0 };
		int e = ek_inode_read(d->fs, n->dirs[i], &dir);

		n->dn[i].ino = n->dirs[i];
		n->cur = n->dirs[i];
		n->cur_idx = i;
		if (!e || e == -EK_BADCRC)
			e = ek_dir_iterate(d->fs, &dir, 0, ncheck_entry, n);
		ek_inode_release(&dir);
		if (e == -ENOMEM)
			err = e;
		else if (e && e != -EK_BADCRC)
			dir_warn(n, n->dirs[i], e);
	}
	return err;
}

static void ncheck_print(struct ncheck *n, const struct hit *h)
{
	struct dbg *d = n->d;
	char path[8192];
	size_t len;

	if (h->path) {
		snprintf(path, sizeof(path), "%s", h->path);
	} else {
		build_path(n, h->dir, path, sizeof(path));
		len = strlen(path);
		snprintf(path + len, sizeof(path) - len, "/%s", h->name);
	}
	ek_out_text(d->out, "%u\t%s", h->ino, path);
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "inode", h->ino);
	ek_out_name(d->out, "path", path, strlen(path));
	if (n->check_type) {
		static const uint8_t ft_of_mode[16] = { 0, 5, 3, 0, 2, 0, 4, 0, 1, 0, 7, 0, 6 };
		struct ek_inode ei = { 0 };
		int e = ek_inode_read(d->fs, h->ino, &ei);
		bool ok = (e && e != -EK_BADCRC) ||
			  !ek_has_incompat(d->fs, EXT4_FEATURE_INCOMPAT_FILETYPE) ||
			  ft_of_mode[(ei.mode >> 12) & 15] == h->file_type;

		if (!ok)
			ek_out_text(d->out, "  <--- BAD FILETYPE");
		ek_out_bool(d->out, "file_type_ok", ok);
		ek_inode_release(&ei);
	}
	ek_out_obj_end(d->out);
	ek_out_text(d->out, "\n");
}

int do_ncheck(struct dbg *d, int argc, char **argv)
{
	struct ncheck n = { .d = d };
	size_t left = 0;
	int c, err = 0;

	while ((c = getopt(argc, argv, "c")) != -1) {
		if (c != 'c')
			return dbg_usage("ncheck");
		n.check_type = true;
	}
	if (optind >= argc)
		return dbg_usage("ncheck");
	n.want = calloc(argc - optind, sizeof(*n.want));
	n.found = calloc(argc - optind, sizeof(*n.found));
	if (!n.want || !n.found) {
		free(n.want);
		free(n.found);
		return dbg_fail(d, "ncheck", -ENOMEM);
	}
	for (int i = optind; i < argc; i++) {
		uint64_t v;

		if (dbg_parse_u64(argv[i], &v) || !v || v > d->fs->sb.inodes_count) {
			dbg_errorf(d, "ncheck: bad inode number '%s'", argv[i]);
			free(n.want);
			free(n.found);
			return 1;
		}
		n.want[n.nwant++] = v;
	}
	qsort(n.want, n.nwant, sizeof(*n.want), ek_cmp_u32);

	if (ek_has_incompat(d->fs, EXT4_FEATURE_INCOMPAT_FILETYPE)) {
		struct nwalk w = { .n = &n };

		err = walk_dir(&w, d->root);
		ek_set_release(&w.seen);
	}
	/* the slow pass only for what the walk did not find */
	for (size_t i = 0; i < n.nwant; i++)
		if (!n.found[i])
			n.want[left++] = n.want[i];
	n.nwant = left;
	if (!err && left)
		err = ncheck_scan(&n);

	ek_out_text(d->out, "Inode\tPathname\n");
	ek_out_arr_begin(d->out, NULL);
	for (size_t i = 0; !err && i < n.nhits; i++)
		ncheck_print(&n, &n.hits[i]);
	ek_out_arr_end(d->out);

	for (size_t i = 0; i < n.nhits; i++) {
		free(n.hits[i].name);
		free(n.hits[i].path);
	}
	for (size_t i = 0; n.dn && i < n.ndirs; i++)
		free(n.dn[i].name);
	free(n.hits);
	free(n.dn);
	free(n.dirs);
	free(n.want);
	free(n.found);
	ek_set_release(&n.warned);
	return err ? dbg_fail(d, "ncheck", err) : 0;
}
