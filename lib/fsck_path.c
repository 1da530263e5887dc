// SPDX-License-Identifier: MIT
/*
 * fsck_path.c - the path of each finding about an inode or a directory
 * entry (ek_fsck_opts.path), told once the passes are done.
 *
 * Findings come as they are found, most before pass 2 has read the
 * directories, so a path is resolved at the end, for the findings that
 * need one only (no name table for every inode):
 *
 *   - each such finding is noted (its number, inode, directory, and an
 *     entry's name, copied: the only names kept during the passes);
 *   - an inode that is not a directory is looked for in the entries:
 *     those of passes 0 and 1 as pass 2 reads them, later ones (pass 4's
 *     link counts) in one more walk of the directories, only when such a
 *     finding was made, stopping when every one is found;
 *   - a directory's path goes up through the directories whose entries
 *     name them (pass 2's named_in, which pass 3 also follows), each
 *     directory on the way named by one read of its parent;
 *   - the path is then "/a/b" as e2fsck prints it (ext2fs_get_pathname):
 *     "???" for a name its parent does not hold, and a chain that does
 *     not reach the root begins with "<N>", its topmost directory N (an
 *     inode no entry names at all is "<N>" alone); the filesystem's own
 *     inodes (journal, quota, resize...) have no path.
 *
 * Memory: the names of the findings' entries and of the directories on
 * their paths, and 16 bytes per finding; a path longer than EK_PATH_MAX
 * keeps its last part after "...".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

#define EK_PATH_MAX 4096

struct preq {
	uint64_t seq;		/* the finding's number */
	ek_ino_t ino, dir;	/* as the finding names them */
	uint32_t name_at;	/* dir set: the entry's name in names */
	uint8_t name_len;
	bool have_name;
};

/* a directory (or, for findings, any inode) named @name_at in directory @parent */
struct pname {
	ek_ino_t ino, parent;
	uint32_t name_at;
	uint8_t name_len;
	bool found;
};

struct fsck_paths {
	struct preq *req;
	size_t nreq, req_cap;
	char *names;
	size_t names_len, names_cap;
	/* at the end: where each inode looked for is named (sorted by ino) */
	struct pname *at;
	size_t nat, at_cap;
	size_t left;		/* of those, not found yet */
};

static int name_add(struct fsck_paths *p, const char *name, size_t len, uint32_t *at)
{
	if (p->names_len + len > UINT32_MAX)
		return -ENOMEM;
	if (ek_grow(&p->names, &p->names_cap, p->names_len + len, 1))
		return -ENOMEM;
	memcpy(p->names + p->names_len, name, len);
	*at = (uint32_t)p->names_len;
	p->names_len += len;
	return 0;
}

/* finding @f (its number set) may need a path: noted */
int fsck_path_note(struct check *c, const struct ek_finding *f)
{
	struct fsck_paths *p = c->paths;
	struct preq r = { .seq = f->seq, .ino = f->ino, .dir = f->dir };

	if (!f->ino && !f->dir)
		return 0;
	if (!p && !(p = c->paths = ek_calloc(1, sizeof(*p))))
		return -ENOMEM;
	if (f->dir && f->entry_name) {
		if (name_add(p, f->entry_name, f->entry_len, &r.name_at))
			return -ENOMEM;
		r.name_len = (uint8_t)f->entry_len;
		r.have_name = true;
	}
	if (ek_grow(&p->req, &p->req_cap, p->nreq + 1, sizeof(*p->req)))
		return -ENOMEM;
	p->req[p->nreq++] = r;
	return 0;
}

void fsck_paths_free(struct check *c)
{
	if (!c->paths)
		return;
	free(c->paths->req);
	free(c->paths->names);
	free(c->paths->at);
	free(c->paths);
	c->paths = NULL;
}

static bool is_dir(const struct check *c, ek_ino_t ino)
{
	return (fsck_iflags(c, ino) & (IN_USE | IS_DIR)) == (IN_USE | IS_DIR) &&
	       fsck_dinfo_of(c, ino);
}

static int cmp_pname(const void *a, const void *b)
{
	const struct pname *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

static struct pname *at_of(const struct fsck_paths *p, ek_ino_t ino)
{
	struct pname key = { .ino = ino };

	return p->nat ? bsearch(&key, p->at, p->nat, sizeof(*p->at), cmp_pname) : NULL;
}

/* inode @ino is to be named (in @parent, or 0: in any directory) */
static int want(struct fsck_paths *p, ek_ino_t ino, ek_ino_t parent)
{
	if (ek_grow(&p->at, &p->at_cap, p->nat + 1, sizeof(*p->at)))
		return -ENOMEM;
	p->at[p->nat++] = (struct pname){ .ino = ino, .parent = parent };
	return 0;
}

struct look {
	struct fsck_paths *p;
	ek_ino_t dir;
	bool any;		/* an entry anywhere (else only in its recorded parent) */
	int err;
};

static int look_entry(void *arg, const struct ek_dirent *de)
{
	struct look *l = arg;
	struct pname *n;

	if (!de->ino || de->deleted || (de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	n = at_of(l->p, de->ino);
	if (!n || n->found || (l->any ? n->parent != 0 : n->parent != l->dir))
		return 0;
	if (name_add(l->p, de->name, de->name_len, &n->name_at)) {
		l->err = -ENOMEM;
		return 1;
	}
	n->name_len = de->name_len;
	n->parent = l->dir;
	n->found = true;
	return --l->p->left ? 0 : 1;
}

/* the entries of directory @dir walked for the inodes looked for */
static int look_in(struct check *c, ek_ino_t dir, bool any)
{
	struct look l = { .p = c->paths, .dir = dir, .any = any };
	struct ek_inode ei;
	int err = ek_inode_read(c->fs, dir, &ei);

	if (!err || err == -EK_BADCRC)
		err = ek_dir_iterate(c->fs, &ei, 0, look_entry, &l);
	ek_inode_release(&ei);
	if (l.err)
		return l.err;
	/* a directory that cannot be read leaves its names "???" */
	return err == -ENOMEM ? err : 0;
}

/* the directories above @dir, each to be named in its named_in, up to the
 * root (at most EK_PATH_MAX / 2 steps: a name takes 2 bytes at least) */
static int want_chain(struct check *c, ek_ino_t dir)
{
	for (unsigned steps = 0; dir != EXT4_ROOT_INO && steps < EK_PATH_MAX / 2; steps++) {
		ek_ino_t up = is_dir(c, dir) ? fsck_named_in_of(c, dir) : 0;
		int err;

		if (!up || up == dir || !is_dir(c, up))
			return 0;
		err = want(c->paths, dir, up);
		if (err)
			return err;
		dir = up;
	}
	return 0;
}

static int cmp_by_parent(const void *a, const void *b)
{
	const struct pname *x = a, *y = b;

	return x->parent < y->parent ? -1 : x->parent > y->parent;
}

/* sorted by inode, each once (a file found keeps its entry) */
static void at_sort(struct fsck_paths *p)
{
	size_t k = 0;

	qsort(p->at, p->nat, sizeof(*p->at), cmp_pname);
	for (size_t i = 0; i < p->nat; i++) {
		if (k && p->at[k - 1].ino == p->at[i].ino) {
			if (p->at[i].found && !p->at[k - 1].found)
				p->at[k - 1] = p->at[i];
			continue;
		}
		p->at[k++] = p->at[i];
	}
	p->nat = k;
}

/*
 * "@prefix" + the path of directory @dir into @buf (@n bytes, EK_PATH_MAX):
 * built from its end, so a path too long keeps its last part.
 */
static void dir_path(const struct check *c, ek_ino_t dir, const char *leaf, size_t leaf_len,
		     char *buf)
{
	const struct fsck_paths *p = c->paths;
	char *end = buf + EK_PATH_MAX - 1, *at = end;
	bool cut = false;
	ek_ino_t stop = 0;	/* in a loop: the directory the path starts at */

	*end = 0;
	/* a loop of directories naming each other (nothing connects them to
	 * the root): the path starts at one of them, by its number, as where
	 * the way up ends (want_chain() went up EK_PATH_MAX / 2 steps at most
	 * from any directory, so a longer way is a loop, and ends on it) */
	{
		ek_ino_t d = dir;
		size_t steps = 0;
		const struct pname *n;

		while (d != EXT4_ROOT_INO && (n = at_of(p, d)) && steps++ <= EK_PATH_MAX / 2)
			d = n->parent;
		if (steps > EK_PATH_MAX / 2)
			stop = d;
	}
#define PUT(s, len) do { \
		size_t l_ = (len); \
		if ((size_t)(at - buf) < l_ + 4) { cut = true; goto done; } \
		at -= l_; \
		memcpy(at, (s), l_); \
	} while (0)
	if (leaf) {
		PUT(leaf, leaf_len);
		PUT("/", 1);
	}
	for (unsigned steps = 0; dir != EXT4_ROOT_INO; steps++) {
		const struct pname *n = at_of(p, dir);
		char top[16];

		if (!n || dir == stop || steps >= EK_PATH_MAX / 2) {
			/* no way up: named by its inode */
			snprintf(top, sizeof(top), "<%u>", (unsigned)dir);
			PUT(top, strlen(top));
			goto done;
		}
		if (n->found)
			PUT(p->names + n->name_at, n->name_len);
		else
			PUT("???", 3);
		PUT("/", 1);
		dir = n->parent;
	}
	if (at == end)
		PUT("/", 1);	/* the root itself */
done:
#undef PUT
	if (cut) {
		at -= 3;
		memcpy(at, "...", 3);
	}
	memmove(buf, at, (size_t)(end - at) + 1);
	/* a NUL in a name (an illegal one) would end the string: as '.' */
	for (size_t i = 0; i < (size_t)(end - at); i++)
		if (!buf[i])
			buf[i] = '.';
}

/* a file a finding names, to be found by the walks: not a directory, not
 * the filesystem's own */
static bool file_wanted(const struct check *c, const struct preq *r)
{
	const struct ek_fs *fs = c->fs;

	return !r->dir && r->ino && r->ino != EXT4_ROOT_INO && !is_dir(c, r->ino) &&
	       !fsck_reserved_ino(fs, r->ino) && !fsck_sb_ino(fs, r->ino) &&
	       r->ino <= fs->sb.inodes_count;
}

/*
 * Before pass 2: the files the findings so far name (passes 0 and 1) are
 * looked for in the entries pass 2 reads (fsck_path_seen), so the walk at
 * the end is needed only for later findings.  -ENOMEM, else 0.
 */
int fsck_paths_pass2(struct check *c)
{
	struct fsck_paths *p = c->paths;
	int err = 0;

	if (!p || !c->o->path)
		return 0;
	p->nat = 0;
	for (size_t i = 0; i < p->nreq && !err; i++)
		if (file_wanted(c, &p->req[i]))
			err = want(p, p->req[i].ino, 0);
	if (err)
		return err;
	if (p->nat)
		at_sort(p);
	p->left = p->nat;
	return 0;
}

/* pass 2: entry @de of directory @dir read (and kept) */
int fsck_path_seen(struct check *c, ek_ino_t dir, const struct ek_dirent *de)
{
	struct look l = { .p = c->paths, .dir = dir, .any = true };

	if (!c->paths || !c->paths->left)
		return 0;
	look_entry(&l, de);
	return l.err;
}

/*
 * At the end of a check whose passes ran: each noted finding's path told
 * through o->path.  -ENOMEM, else 0 (what cannot be read is "???").
 */
int fsck_paths_resolve(struct check *c)
{
	struct fsck_paths *p = c->paths;
	struct ek_fs *fs = c->fs;
	struct pname *byparent = NULL;
	size_t i, nfiles;
	char *buf;
	int err = 0;

	if (!p || !p->nreq || !c->o->path)
		return 0;
	/* inodes that are not directories: named by an entry somewhere (those
	 * of passes 0 and 1 found by pass 2 already, fsck_paths_pass2) */
	for (i = 0; i < p->nreq && !err; i++)
		if (file_wanted(c, &p->req[i]) && !at_of(p, p->req[i].ino))
			err = want(p, p->req[i].ino, 0);
	if (err)
		return err;
	if (p->nat)
		at_sort(p);
	p->left = 0;
	for (i = 0; i < p->nat; i++)
		p->left += !p->at[i].found;
	for (i = 0; i < c->ndirs && p->left && !err; i++)
		if (is_dir(c, c->dirs[i].ino))
			err = look_in(c, c->dirs[i].ino, true);
	/* the directories above each path's last directory, up to the root */
	nfiles = p->nat;
	for (i = 0; i < nfiles && !err; i++)
		if (p->at[i].found)
			err = want_chain(c, p->at[i].parent);
	for (i = 0; i < p->nreq && !err; i++)
		err = want_chain(c, p->req[i].dir ? p->req[i].dir : p->req[i].ino);
	if (err)
		return err;
	if (p->nat)
		at_sort(p);
	/* their names: each parent read once for all its children named */
	p->left = 0;
	for (i = 0; i < p->nat; i++)
		p->left += !p->at[i].found && p->at[i].parent;
	if (p->left && !(byparent = ek_calloc(p->left, sizeof(*byparent))))
		return -ENOMEM;
	{
		size_t n = 0;

		for (i = 0; i < p->nat; i++)
			if (!p->at[i].found && p->at[i].parent)
				byparent[n++] = p->at[i];
		if (n > 1)
			qsort(byparent, n, sizeof(*byparent), cmp_by_parent);
		for (i = 0; i < n && p->left && !err; i++)
			if (!i || byparent[i].parent != byparent[i - 1].parent)
				err = look_in(c, byparent[i].parent, false);
		free(byparent);
	}
	if (err)
		return err;
	buf = ek_malloc(EK_PATH_MAX);
	if (!buf)
		return -ENOMEM;
	for (i = 0; i < p->nreq; i++) {
		const struct preq *r = &p->req[i];
		const struct pname *n;

		if (r->dir && r->have_name) {
			dir_path(c, r->dir, p->names + r->name_at, r->name_len, buf);
		} else if (r->ino == EXT4_ROOT_INO || (r->ino && is_dir(c, r->ino))) {
			dir_path(c, r->ino, NULL, 0, buf);
		} else if (!r->ino || fsck_reserved_ino(fs, r->ino) || fsck_sb_ino(fs, r->ino) ||
			   r->ino > fs->sb.inodes_count) {
			continue;	/* no path */
		} else if ((n = at_of(p, r->ino)) && n->found) {
			dir_path(c, n->parent, p->names + n->name_at, n->name_len, buf);
		} else {
			snprintf(buf, EK_PATH_MAX, "<%u>", (unsigned)r->ino);	/* unattached */
		}
		c->o->path(c->o->arg, r->seq, buf);
	}
	free(buf);
	return 0;
}
