// SPDX-License-Identifier: MIT
/*
 * fsck_pass34.c - the checker's passes 3 and 4: connectivity and link
 * counts, and their repairs: the root made again when it is not
 * allocated, /lost+found found or made (e2fsck_get_lost_and_found()),
 * directories and inodes nothing reaches connected to it as "#INO", an
 * unattached inode with no blocks cleared (e2fsck's disconnect_inode()).
 *
 * Counts, as e2fsck_adjust_inode_count(): a new entry naming an inode adds
 * to its references and to its i_links_count alike, so pass 4 then judges
 * the count it had (e2fsck's "ref count is 2, should be 1" after a
 * reconnection); a count is never lowered to 0 on disk here (an inode in
 * use with no links reads as deleted: a cut before pass 4's commit would
 * lose it).  A new directory, its block, its entry and the bitmaps go into
 * the pass's one write set, so its commit writes all or none of them.
 * While a directory's entries are left unread (DIR_DAMAGED not fixed),
 * nothing is connected or cleared: the entry naming an inode that looks
 * unattached may be in them (e2fsck stops there when not salvaging).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* ---- repairs: links, entries, lost+found --------------------------------------- */

/* quota usage of a repair's inode (+1 made, -1 cleared) and bytes, as pass 1 charges */
static void quota_charge(struct check *c, uint32_t uid, uint32_t gid, uint32_t prj,
			 int64_t inodes, int64_t bytes)
{
	uint32_t id[EK_QUOTA_TYPES] = { uid, gid, prj };

	for (unsigned t = 0; t < EK_QUOTA_TYPES; t++) {
		if (!c->quota_on[t])
			continue;
		if (t == EK_QUOTA_PRJ && c->fs->inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
			continue;
		/* the tally's counters wrap: adding -1 takes one away */
		if (ek_quota_tally_add(&c->quota[t], id[t], (uint64_t)inodes, (uint64_t)bytes, false) &&
		    !c->err)
			c->err = -ENOMEM;
	}
}

static int adjust_disk_links(struct check *c, ek_ino_t ino, int adj);

/* one more (@adj 1) or one less (-1) entry names @ino: its references and i_links_count */
static int adjust_links(struct check *c, ek_ino_t ino, int adj)
{
	int err;

	if (!ino || !(fsck_iflags(c, ino) & IN_USE))
		return 0;
	if (adj > 0) {
		err = fsck_ref_add(c, ino);
		if (err)
			return err;
	} else {
		fsck_ref_drop(c, ino);
	}
	return adjust_disk_links(c, ino, adj);
}

/* the same on disk only (the reference was counted or dropped already) */
static int adjust_disk_links(struct check *c, ek_ino_t ino, int adj)
{
	uint32_t links = fsck_links_of(c, ino);
	int err;

	if (!ino || !(fsck_iflags(c, ino) & IN_USE))
		return 0;
	if (adj > 0) {
		if (links >= 0xFFFF)
			return 0;
		links++;
	} else {
		if (links <= 1)
			return 0;	/* never 0 on disk: pass 4 sets what is counted */
		links--;
	}
	err = ek_fix_inode(c->ws, ino, EK_IFIX_LINKS, links);
	if (!err)
		err = fsck_inode_in_use(c, ino, fsck_imode(c, ino), (uint16_t)links);
	return err;
}

struct find_entry {
	ek_ino_t ino;
	const char *name;	/* or NULL: any name but '.' and '..' */
	size_t len;
	struct ek_dirent de;
	char found[EXT4_NAME_LEN + 1];	/* its name, unprintable bytes as '?' */
};

static int find_entry_fn(void *arg, const struct ek_dirent *de)
{
	struct find_entry *f = arg;

	if (de->ino != f->ino || de->deleted)
		return 0;
	if (f->name ? de->name_len != f->len || memcmp(de->name, f->name, f->len)
		    : (de->name_len == 1 && de->name[0] == '.') ||
		      (de->name_len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	f->de = *de;
	for (unsigned i = 0; i < de->name_len; i++)
		f->found[i] = de->name[i] < 0x20 || de->name[i] == 0x7f ? '?' : de->name[i];
	f->found[de->name_len] = 0;
	f->de.name = NULL;	/* dies with the walk's buffer */
	return 1;
}

/* the entry of directory @dir naming @ino (as @name when given) taken out */
static int unlink_entry(struct check *c, ek_ino_t dir, ek_ino_t ino, const char *name)
{
	struct find_entry f = { .ino = ino, .name = name, .len = name ? strlen(name) : 0 };
	struct ek_inode ei;
	int err = ek_inode_read(c->fs, dir, &ei);

	if (!err || err == -EK_BADCRC)
		err = ek_dir_iterate(c->fs, &ei, 0, find_entry_fn, &f);
	if (err == 1)
		err = ek_fix_dirent_clear(c->ws, &ei, &f.de);
	else if (!err || err == -EK_BADCRC)
		err = ek_err(-ENOENT, "directory inode %u: no entry names inode %u", dir, ino);
	ek_inode_release(&ei);
	if (!err)
		fsck_ref_drop(c, ino);
	return err;
}

/* the entry @name -> @ino in directory @dir, which grows by a block when full */
static int dir_link(struct check *c, ek_ino_t dir, const char *name, ek_ino_t ino)
{
	uint8_t ft = fsck_mode_ftype(fsck_imode(c, ino)), len = (uint8_t)strlen(name);
	struct ek_inode ei;
	ek_blk_t blk;
	int err = ek_fix_dir_link(c->ws, dir, name, len, ino, ft);

	if (err != -ENOSPC)
		return err;
	/* e2fsck asks first (PR_3_EXPAND_LF_DIR); here the fix that needs it grows it */
	err = fsck_alloc_block(c, 0, &blk);
	if (err)
		return err;
	err = ek_fix_dir_expand(c->ws, dir, blk);
	if (err) {
		fsck_free_block(c, blk);
		return err;
	}
	if (!ek_inode_read(c->fs, dir, &ei) || ei.raw)
		quota_charge(c, ei.uid, ei.gid, ei.projid, 0, c->fs->blksz);
	ek_inode_release(&ei);
	return ek_fix_dir_link(c->ws, dir, name, len, ino, ft);
}

/* a new directory @ino (its bitmap bit set by the caller) holding '.' and '..' = @parent */
static int dir_make(struct check *c, ek_ino_t ino, ek_ino_t parent, uint16_t perm, ek_blk_t blk)
{
	struct dinfo *d;
	int err = ek_fix_dir_new(c->ws, ino, parent, perm, blk, c->o->now);

	if (!err)
		err = fsck_ref_add(c, ino);	/* its '.' */
	if (err)
		return err;
	d = fsck_dinfo_of(c, ino);
	if (!d)
		return ek_err(-EINVAL, "directory inode %u: not known to pass 3", ino);
	d->parent = parent;
	quota_charge(c, 0, 0, 0, 1, c->fs->blksz);
	return 0;
}

/* check_root(): the root allocated again as an empty directory */
static int root_make(struct check *c)
{
	struct dinfo *d;
	ek_blk_t blk;
	int err = fsck_alloc_block(c, 0, &blk);

	if (!err)
		err = ek_wset_mark_inode(c->ws, EXT4_ROOT_INO, true, true);
	if (!err)
		err = fsck_inode_in_use(c, EXT4_ROOT_INO, 0040755, 2);
	if (!err)
		err = fsck_iflags_or(c, EXT4_ROOT_INO, IS_DIR);
	if (!err)
		err = fsck_dir_add(c, EXT4_ROOT_INO);
	if (!err)
		err = dir_make(c, EXT4_ROOT_INO, EXT4_ROOT_INO, 0755, blk);
	if (!err)
		err = fsck_ref_add(c, EXT4_ROOT_INO);	/* its '..' */
	if (err)
		return err;
	d = fsck_dinfo_of(c, EXT4_ROOT_INO);
	d->named_in = EXT4_ROOT_INO;
	c->root_new = true;
	return 0;
}

/* /lost+found, a new directory named in the root */
static int lnf_make(struct check *c, ek_ino_t *out)
{
	struct dinfo *d;
	ek_blk_t blk;
	ek_ino_t ino;
	/* a root that cannot take the entry (an htree one): refused before
	 * anything is allocated, so that no run leaves a lost+found unlinked */
	int err = ek_fix_dir_linkable(c->ws, EXT4_ROOT_INO);

	if (!err)
		err = fsck_alloc_block(c, 0, &blk);
	if (!err)
		err = fsck_alloc_inode(c, 0, 0040700, 2, &ino);
	if (!err)
		err = dir_make(c, ino, EXT4_ROOT_INO, 0700, blk);
	if (!err)
		err = dir_link(c, EXT4_ROOT_INO, "lost+found", ino);
	if (!err)
		err = fsck_ref_add(c, ino);	/* the root's entry */
	if (!err)
		err = adjust_links(c, EXT4_ROOT_INO, 1);	/* its '..' */
	if (!err)
		err = fsck_iflags_or(c, ino, REACHED);
	if (err)
		return err;
	d = fsck_dinfo_of(c, ino);
	d->named_in = EXT4_ROOT_INO;
	*out = ino;
	return 0;
}

/*
 * /lost+found when repairing, found in the root or made, once (as
 * e2fsck_get_lost_and_found(ctx, 1)); 0 when there is none and none was
 * made.  Called before the finding whose fix needs it is reported.
 */
static ek_ino_t lnf_get(struct check *c)
{
	struct ek_fs *fs = c->fs;
	ek_ino_t ino = 0;
	int err = 0;

	if (c->lnf || c->lnf_tried || !c->ws || c->err || c->names_incomplete)
		return c->lnf;
	c->lnf_tried = true;
	if ((fsck_iflags(c, EXT4_ROOT_INO) & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR))
		return 0;
	if (!c->root_new) {
		struct ek_inode root;

		err = ek_inode_read(fs, EXT4_ROOT_INO, &root);
		if (!err || err == -EK_BADCRC)
			err = ek_dir_lookup(fs, &root, "lost+found", 10, &ino);
		ek_inode_release(&root);
		if (err == -ENOMEM || err == -EIO) {
			c->err = err;
			return 0;
		}
		if (err)
			ino = 0;
	}
	if (ino && (fsck_iflags(c, ino) & (IN_USE | IS_DIR)) == (IN_USE | IS_DIR) &&
	    !fsck_reserved_ino(fs, ino))
		return c->lnf = ino;
	if (ino) {
		if (!fsck_report(c, EK_PR_LPF_NOT_DIR, AT_INODE(ino), ino))
			return 0;
		/* the file stays, unattached: pass 4 connects it to the new one */
		err = unlink_entry(c, EXT4_ROOT_INO, ino, "lost+found");
		if (!err && (fsck_iflags(c, ino) & IN_USE) && fsck_links_of(c, ino) > 1)
			err = ek_fix_inode(c->ws, ino, EK_IFIX_LINKS, fsck_links_of(c, ino) - 1);
		if (!err && (fsck_iflags(c, ino) & IN_USE) && fsck_links_of(c, ino) > 1)
			err = fsck_inode_in_use(c, ino, fsck_imode(c, ino), fsck_links_of(c, ino) - 1);
		fsck_fix_done(c, err);
		if (err)
			return 0;
	}
	if (!fsck_report(c, EK_PR_LPF_MISSING, AT_INODE(EXT4_ROOT_INO)))
		return 0;
	err = lnf_make(c, &ino);
	fsck_fix_done(c, err);
	return err ? 0 : (c->lnf = ino);
}

/* e2fsck_reconnect_file(): inode @ino named "#INO" in /lost+found */
static int reconnect(struct check *c, ek_ino_t ino)
{
	char name[16];

	if (!c->lnf)
		return ek_err(-ENOENT, "inode %u: no /lost+found to connect it to", ino);
	snprintf(name, sizeof(name), "#%u", (unsigned)ino);
	{
		int err = dir_link(c, c->lnf, name, ino);

		return err ? err : adjust_links(c, ino, 1);
	}
}

/* fix_dotdot(): '..' of directory @dir names @parent, the counts follow */
static int set_dotdot(struct check *c, ek_ino_t dir, ek_ino_t parent)
{
	struct dinfo *d = fsck_dinfo_of(c, dir);
	ek_ino_t old = d ? d->parent : 0;
	int err = ek_fix_dotdot(c->ws, dir, parent);

	/* pass 2 counted the old '..' when it named an inode in use (a root
	 * made in this pass was not) */
	if (!err && !(old == EXT4_ROOT_INO && c->root_new))
		err = adjust_links(c, old, -1);
	if (!err)
		err = adjust_links(c, parent, 1);
	if (!err && d)
		d->parent = parent;
	return err;
}

/*
 * Directory @top, the top of a chain of directories that does not reach
 * the root (or, named in one of them, in a loop), connected to
 * /lost+found: out of the loop's directory, into /lost+found, '..' set.
 */
static void connect_dir(struct check *c, ek_ino_t top)
{
	struct dinfo *d = fsck_dinfo_of(c, top);
	ek_ino_t was_in = d->named_in, lnf;
	/* as e2fsck: asked first, /lost+found found or made only for the fix
	 * (a preen halting here has made nothing) */
	bool may = c->lnf ? c->lnf != top : !c->lnf_tried && c->ws && !c->err &&
		   !c->names_incomplete;
	struct ek_finding pending;
	int err = 0;

	if (was_in) {
		/* a loop: its entry naming @top is taken out, and named so */
		struct find_entry f = { .ino = top, .found = "?" };
		struct ek_inode ei;

		err = ek_inode_read(c->fs, was_in, &ei);
		if (!err || err == -EK_BADCRC)
			err = ek_dir_iterate(c->fs, &ei, 0, find_entry_fn, &f);
		ek_inode_release(&ei);
		if ((err == -ENOMEM || err == -EIO) && !c->err)
			c->err = err;
		err = 0;
		if (!fsck_report_if(c, may, EK_PR_DIR_LOOP,
				    &(struct ek_finding){ .ino = top, .dir = was_in, .group = -1,
							  .entry_name = f.found,
							  .entry_len = strlen(f.found) },
				    top, f.found, was_in)) {
			/* left: an unconnected top, whose '..' the finding
			 * names (no DOTDOT_WRONG that the fix would not make) */
			d->named_in = 0;
			return;
		}
	} else if (!fsck_report_if(c, may, EK_PR_DIR_UNCONNECTED, AT_INODE(top), top, d->parent)) {
		return;
	}
	/* (lnf_get's own findings come between: this one waits for them) */
	pending = c->pending;
	c->have_pending = false;
	lnf = lnf_get(c);
	fsck_fix_done(c, -EINVAL);
	c->pending = pending;
	c->have_pending = true;
	d = fsck_dinfo_of(c, top);	/* (c->dirs grew with a new /lost+found) */
	if (!lnf || lnf == top) {
		fsck_fix_done(c, ek_err(-ENOENT, "no /lost+found to connect directory %u to", top));
		return;
	}
	if (was_in) {
		err = unlink_entry(c, was_in, top, NULL);
		if (!err)
			err = adjust_disk_links(c, top, -1);	/* a name fewer */
	}
	if (!err)
		err = reconnect(c, top);
	if (!err)
		err = set_dotdot(c, top, lnf);
	if (!err)
		fsck_dinfo_of(c, top)->named_in = lnf;
	fsck_fix_done(c, err);
}

/* ---- pass 3 -------------------------------------------------------------------- */

/* check_root(): false when there is no root directory to connect to */
static bool check_root(struct check *c)
{
	/* a root in a bad block of the inode table is not made again there */
	bool bad = fsck_iflags(c, EXT4_ROOT_INO) & IN_BAD_BLOCK;
	int err;

	if (fsck_iflags(c, EXT4_ROOT_INO) & IN_USE) {
		if ((fsck_iflags(c, EXT4_ROOT_INO) & IS_DIR) && fsck_dinfo_of(c, EXT4_ROOT_INO) && !bad)
			return true;
		/* not a directory: pass 1's ROOT_NOT_DIR was left (e2fsck
		 * aborts here); nothing connects to it */
		if (bad)
			fsck_report(c, EK_PR_ROOT_BAD_BLOCK, AT_INODE(EXT4_ROOT_INO));
		return false;
	}
	if (!fsck_report_if(c, !bad, EK_PR_ROOT_NOT_ALLOCATED, AT_INODE(EXT4_ROOT_INO)))
		return false;
	err = root_make(c);
	fsck_fix_done(c, err);
	return !err;
}

/*
 * Every directory reaches the root through the directories whose entries
 * name it (as e2fsck, not through '..'), then its '..' must be that parent.
 */
void fsck_pass3(struct check *c)
{
	struct ek_fs *fs = c->fs;

	if (!check_root(c))
		return;
	fsck_iflags_or(c, EXT4_ROOT_INO, REACHED);	/* in use: no allocation */
	fsck_dinfo_of(c, EXT4_ROOT_INO)->named_in = EXT4_ROOT_INO;
	/* c->dirs may grow (a new /lost+found) as this walks it: by index */
	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino, p = ino;
		uint64_t steps = 0;

		fsck_units(c, 3, d, c->ndirs);
		if ((fsck_iflags(c, ino) & (IN_USE | IS_DIR)) != (IN_USE | IS_DIR) ||
		    fsck_reserved_ino(fs, ino) || (fsck_iflags(c, ino) & IN_BAD_BLOCK) ||
		    (fsck_iflags(c, ino) & REACHED))
			continue;
		/* up to a reached directory; a dead end or a loop is not connected */
		while (!(fsck_iflags(c, p) & REACHED) && fsck_named_in_of(c, p) && steps++ <= c->ndirs)
			p = fsck_named_in_of(c, p);
		if (!(fsck_iflags(c, p) & REACHED))
			connect_dir(c, p);
		/* the chain is done, as e2fsck's inode_done_map: reached, or
		 * offered to /lost+found once at its top */
		steps = 0;	/* (bounded too: REACHED holds only on a directory's entry) */
		for (ek_ino_t q = ino; q && !(fsck_iflags(c, q) & REACHED) && steps++ <= c->ndirs;
		     q = fsck_named_in_of(c, q))
			fsck_iflags_or(c, q, REACHED);
	}
	/* '..' names the parent (an unconnected top left so has none: e2fsck
	 * -n says "should be <The NULL inode>", here DIR_UNCONNECTED says it) */
	for (size_t d = 0; d < c->ndirs; d++) {
		ek_ino_t ino = c->dirs[d].ino, named_in = c->dirs[d].named_in;

		if ((fsck_iflags(c, ino) & REACHED) && named_in && c->dirs[d].parent != named_in &&
		    fsck_report(c, EK_PR_DOTDOT_WRONG, AT_INODE(ino), ino, c->dirs[d].parent,
				named_in))
			/* as e2fsck's fix_dotdot(): the old and the new parent's
			 * link counts follow, so pass 4 finds none wrong that -n
			 * did not (it counts the '..' as it is) */
			fsck_fix_done(c, set_dotdot(c, ino, named_in));
	}
	/* e2fsck makes /lost+found at the end of pass 3 whenever it repairs */
	lnf_get(c);
	fsck_units(c, 3, c->ndirs, c->ndirs);
}

/* ---- pass 4 -------------------------------------------------------------------- */

/*
 * disconnect_inode(): inode @ino in use that no entry names.  A regular
 * file or directory with no blocks and no in-inode xattrs is cleared;
 * anything else is connected to /lost+found.  True when it stays
 * unattached (its link count is then not judged).
 */
static bool unattached(struct check *c, ek_ino_t ino)
{
	struct ek_fs *fs = c->fs;
	struct ek_inode ei;
	bool empty = false;
	int err = ek_inode_read(fs, ino, &ei);

	if (!err || err == -EK_BADCRC) {
		size_t at = EXT4_GOOD_OLD_INODE_SIZE + ei.extra_isize;
		uint32_t magic = at + 4 <= ei.raw_size ? get_le32(ei.raw + at) : 0;

		empty = !ei.blocks && magic != EXT4_XATTR_MAGIC &&
			((ei.mode & 0170000) == 0100000 || (ei.mode & 0170000) == 0040000);
	}
	if (empty && fsck_report_if(c, !c->names_incomplete, EK_PR_INODE_UNATTACHED_EMPTY,
				    AT_INODE(ino), ino)) {
		err = ek_fix_inode(c->ws, ino, EK_IFIX_LINKS, 0);
		if (!err)
			err = ek_fix_inode(c->ws, ino, EK_IFIX_DTIME_SET, (uint32_t)c->o->now);
		if (!err)
			err = ek_wset_mark_inode(c->ws, ino, false, fsck_iflags(c, ino) & IS_DIR);
		if (!err) {
			fsck_iflags_clear(c, ino, IN_USE | IS_DIR | REACHED);
			quota_charge(c, ei.uid, ei.gid, ei.projid, -1, 0);
		}
		fsck_fix_done(c, err);
		if (!err) {
			ek_inode_release(&ei);
			return true;
		}
	}
	ek_inode_release(&ei);
	if (!fsck_report_if(c, lnf_get(c) != 0, EK_PR_INODE_UNATTACHED, AT_INODE(ino), ino))
		return true;
	err = reconnect(c, ino);
	fsck_fix_done(c, err);
	return err != 0;
}

/* pass 4 for inode @ino */
static void pass4_inode(struct check *c, ek_ino_t ino)
{
	struct ek_fs *fs = c->fs;
	uint8_t fl = fsck_iflags(c, ino);	/* (reconnecting keeps IS_DIR) */
	uint32_t want, links;

	if (!(fl & IN_USE) || (fl & IN_BAD_BLOCK) || fsck_reserved_ino(fs, ino) ||
	    fsck_sb_ino(fs, ino))
		return;
	want = fsck_refs_of(c, ino);
	links = fsck_links_of(c, ino);
	fsck_pass4_ea(c, ino, &want);	/* xattr value inodes (fsck_xattr.c) */
	if (!want) {
		if (unattached(c, ino))
			return;
		want = fsck_refs_of(c, ino);
		links = fsck_links_of(c, ino);
	}
	/* dir_nlink: a directory past EXT4_LINK_MAX counts 1 */
	if ((fl & IS_DIR) && links == 1 && want > 65000 &&
	    ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK))
		want = 1;
	if (links != want && fsck_report(c, EK_PR_LINK_COUNT_WRONG, AT_INODE(ino), ino, links, want))
		fsck_fix_done(c, ek_fix_inode(c->ws, ino, EK_IFIX_LINKS, want));
}

int fsck_pass4(struct check *c)
{
	struct ek_fs *fs = c->fs;
	uint32_t ipg = fs->sb.inodes_per_group;

	/* the inodes in use are in the groups' state, in inode order */
	for (uint32_t g = 0; g < fs->group_count; g++) {
		fsck_units(c, 4, g, fs->group_count);
		for (uint32_t i = 0; i < c->ig[g].n; i++)
			pass4_inode(c, (ek_ino_t)g * ipg + i + 1);
	}
	fsck_units(c, 4, fs->group_count, fs->group_count);
	return 0;
}
