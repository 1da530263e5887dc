// SPDX-License-Identifier: MIT
/*
 * fsck_xattr.c - the checker's extended attribute and encryption rules
 * that repair (e2fsck's pass 1 check_ea_in_inode()/check_ext_attr() and
 * check_large_ea_inode(), pass 2's encrypted entries, pass 4's xattr
 * value inodes).
 *
 *   encrypted entries (pass 2): in an encrypted directory, a name shorter
 *           than the cipher block (EK_CRYPT_NAME_MIN) is cleared; then an
 *           entry naming a regular file, directory or symlink whose
 *           policy is not the directory's (none, or another) is cleared,
 *           as e2fsck's check_encrypted_dirent(): the kernel refuses the
 *           lookup.  Devices, fifos and sockets are never encrypted.  The
 *           inode stays: pass 3 or 4 connects it to /lost+found.
 */
#include <stdlib.h>
#include <string.h>
#include "fsck_int.h"

/* clear entry @de of directory @dir after finding @id (pending): 0 done */
static int clear_entry(struct check *c, const struct ek_inode *dir, const struct ek_dirent *de)
{
	int err = ek_fix_dirent_clear(c->ws, dir, de);

	fsck_fix_done(c, err);
	if (!err)
		fsck_ref_drop(c, de->ino);
	return err;
}

int fsck_check_encrypted_entry(struct check *c, const struct ek_inode *dir, uint32_t policy,
			       const struct ek_dirent *de, const struct ek_finding *at,
			       const char *name, bool clearable)
{
	uint32_t p = c->crypt ? c->crypt[de->ino] : 0;
	uint16_t t = fsck_imode(c, de->ino);
	enum ek_problem_id id;

	if (de->name_len < EK_CRYPT_NAME_MIN &&
	    fsck_report_if(c, clearable, EK_PR_ENTRY_ENCRYPTED_SHORT, at, name, dir->ino,
			   de->name_len, EK_CRYPT_NAME_MIN) &&
	    !clear_entry(c, dir, de))
		return 0;
	if (p == policy)
		return 1;
	if (!p && (t == 0100000 || t == 0040000 || t == 0120000))
		id = EK_PR_ENTRY_UNENCRYPTED;
	else if (p)
		id = EK_PR_ENTRY_ENCRYPT_POLICY;
	else
		return 1;
	if (fsck_report_if(c, clearable, id, at, name, dir->ino, de->ino) && !clear_entry(c, dir, de))
		return 0;
	return 1;
}

/*
 *   xattrs (pass 1): each place through xattr.c's ek_xattr_check() (the
 *           kernel's rules and e2fsck's).  Damaged in-inode xattrs are all
 *           removed, as e2fsck; a damaged xattr block is dropped by the
 *           inode (i_file_acl cleared: e2fsck's clear_extattr), and, when
 *           no other inode keeps it, freed in pass 5.  A block is checked
 *           once: the other inodes naming it take what it holds.  Each
 *           value inode an xattr refers to is counted; the inode is
 *           charged its value's clusters in i_blocks (but for an old
 *           Lustre value inode), as the kernel and e2fsck charge them.  A value
 *           inode lacking EXT4_EA_INODE_FL is given it, and a filesystem
 *           with value inodes the ea_inode feature.  The quota charge of
 *           an inode with value inodes is not judged (how e2fsck charges
 *           them depends on its version).
 *   value inodes (pass 4): one with the flag that no xattr and no entry
 *           refers to loses the flag (it is an ordinary file: attached to
 *           /lost+found like any other; e2fsck 1.47 leaves the flag of one
 *           a directory names, and so do we);
 *           one referred to counts one link, whatever names it, and its
 *           reference count (i_ctime:i_version) is set to the references
 *           counted, unless it is an old Lustre one (i_ctime == i_atime).
 */

/* an xattr block found good, and what its value inodes charge */
struct xa_seen {
	ek_blk_t blk;		/* 0: a free slot */
	uint64_t clusters;
	uint32_t inodes;
};

struct fsck_xa {
	struct xa_seen *seen;	/* open hash of the blocks checked good */
	size_t nseen, nslots;
	ek_blk_t *refs;		/* one value inode number per reference, sorted in pass 4 */
	size_t nrefs, refs_cap;
	bool sorted;
	bool feature_told;	/* EA_INODE_FEATURE reported this run */
	uint32_t qinodes;	/* the inode being checked: its value inodes */
};

/* one place's value inode references, applied when the place is kept */
struct xa_scan {
	struct check *c;
	ek_blk_t *inums;
	size_t n, cap;
	uint64_t clusters;	/* their values, in clusters (old Lustre ones: none) */
};

static int xa_entry(void *arg, const struct ek_xattr *xa)
{
	struct xa_scan *s = arg;
	struct ek_fs *fs = s->c->fs;
	uint64_t csz = (uint64_t)fs->blksz << fs->cluster_bits;

	if (!xa->value_inum)
		return 0;
	if (!xa->ea_legacy)	/* e2fsck's size_to_quota_blocks() */
		s->clusters += (xa->value_len + csz - 1) / csz;
	return fsck_blk_push(&s->inums, &s->n, &s->cap, xa->value_inum);
}

static struct fsck_xa *xa_state(struct check *c)
{
	if (!c->xa)
		c->xa = ek_calloc(1, sizeof(*c->xa));
	return c->xa;
}

void fsck_xattr_release(struct check *c)
{
	if (!c->xa)
		return;
	free(c->xa->seen);
	free(c->xa->refs);
	free(c->xa);
	c->xa = NULL;
}

uint32_t fsck_xattr_qinodes(const struct check *c)
{
	return c->xa ? c->xa->qinodes : 0;
}

static struct xa_seen *seen_find(struct fsck_xa *x, ek_blk_t blk)
{
	if (!x->nslots)
		return NULL;
	for (size_t i = (blk * 0x9E3779B97F4A7C15ull) & (x->nslots - 1); x->seen[i].blk;
	     i = (i + 1) & (x->nslots - 1))
		if (x->seen[i].blk == blk)
			return &x->seen[i];
	return NULL;
}

static int seen_add(struct fsck_xa *x, const struct xa_seen *v)
{
	size_t i;

	if ((x->nseen + 1) * 2 > x->nslots) {
		size_t n = x->nslots ? x->nslots * 2 : 64;
		struct xa_seen *t = ek_calloc(n, sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (size_t k = 0; k < x->nslots; k++) {
			if (!x->seen[k].blk)
				continue;
			for (i = (x->seen[k].blk * 0x9E3779B97F4A7C15ull) & (n - 1); t[i].blk;
			     i = (i + 1) & (n - 1))
				;
			t[i] = x->seen[k];
		}
		free(x->seen);
		x->seen = t;
		x->nslots = n;
	}
	for (i = (v->blk * 0x9E3779B97F4A7C15ull) & (x->nslots - 1); x->seen[i].blk;
	     i = (i + 1) & (x->nslots - 1))
		;
	x->seen[i] = *v;
	x->nseen++;
	return 0;
}

/*
 * A place of @ei's xattrs was kept: its value inodes counted, each given
 * EXT4_EA_INODE_FL when it lacks it, and the feature set (e2fsck's
 * check_large_ea_inode() and PR_1_EA_INODE_FEATURE).
 */
static int xa_keep(struct check *c, const struct ek_inode *ei, struct xa_scan *s)
{
	struct ek_fs *fs = c->fs;
	struct fsck_xa *x = c->xa;
	int err;

	if (s->n && !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_EA_INODE) && !x->feature_told) {
		x->feature_told = true;
		if (fsck_report(c, EK_PR_EA_INODE_FEATURE, AT_INODE(ei->ino), ei->ino))
			fsck_fix_done(c, ek_fix_super_feature(c->ws, EK_FEAT_INCOMPAT,
							      EXT4_FEATURE_INCOMPAT_EA_INODE, true));
	}
	for (size_t i = 0; i < s->n; i++) {
		struct ek_inode vi;

		err = ek_inode_read(fs, (ek_ino_t)s->inums[i], &vi);
		if (err == -ENOMEM || err == -EIO) {
			ek_inode_release(&vi);
			return err;
		}
		if (vi.raw && !(vi.flags & EXT4_EA_INODE_FL) &&
		    fsck_report(c, EK_PR_EA_INODE_FLAG_MISSING, AT_INODE(vi.ino), vi.ino, ei->ino))
			fsck_fix_done(c, ek_fix_inode(c->ws, vi.ino, EK_IFIX_FLAGS_SET, EXT4_EA_INODE_FL));
		ek_inode_release(&vi);
		err = fsck_blk_push(&x->refs, &x->nrefs, &x->refs_cap, s->inums[i]);
		if (err)
			return err;
	}
	x->sorted = false;
	c->claimed += s->clusters;
	x->qinodes += (uint32_t)s->n;
	return 0;
}

/* the in-inode xattrs of @ei */
static int check_ibody(struct check *c, struct ek_inode *ei)
{
	struct xa_scan s = { .c = c };
	enum ek_xattr_fault fault;
	bool cleared = false;
	int err = ek_xattr_check(c->fs, ei, false, xa_entry, &s, &fault);

	if (err == -ENOMEM || err == -EIO)
		goto out;
	if (err) {
		/* e2fsck's preen removes them for an entry's fault only */
		enum ek_problem_id id = fault == EK_XATTR_FAULT_ENTRY ? EK_PR_XATTR_ENTRY_INVALID :
					EK_PR_XATTR_DAMAGED;

		if (fsck_report(c, id, AT_INODE(ei->ino), ek_error_msg(err))) {
			int e = ek_fix_inode_xattrs_clear(c->ws, ei->ino);

			fsck_fix_done(c, e);
			cleared = !e;
		}
		err = 0;
	}
	if (!cleared)
		err = xa_keep(c, ei, &s);
out:
	free(s.inums);
	return err;
}

/* the xattr block of @ei (in the filesystem, ext_attr on) */
static int check_block(struct check *c, struct ek_inode *ei)
{
	struct fsck_xa *x = c->xa;
	ek_blk_t blk = ei->file_acl;
	struct xa_seen *seen = seen_find(x, blk);
	struct xa_scan s = { .c = c };
	enum ek_xattr_fault fault;
	int err;

	if (seen) {
		c->claimed += seen->clusters;
		x->qinodes += seen->inodes;
		return 0;
	}
	err = ek_xattr_check(c->fs, ei, true, xa_entry, &s, &fault);
	if (err == -ENOMEM || err == -EIO)
		goto out;
	if (err == -EK_BADCRC) {
		if (fsck_report(c, EK_PR_XATTR_BLOCK_CHECKSUM, &(struct ek_finding){ .ino = ei->ino,
				.blk = blk, .has_blk = true, .group = -1 }, ei->ino,
				(unsigned long long)blk))
			fsck_fix_done(c, ek_fix_xattr_block_csum(c->ws, blk));
		err = 0;
	} else if (err) {
		/* as e2fsck's clear_extattr: this inode no longer names the block */
		if (fsck_report(c, EK_PR_XATTR_BLOCK_DAMAGED, &(struct ek_finding){ .ino = ei->ino,
				.blk = blk, .has_blk = true, .group = -1 }, ek_error_msg(err))) {
			err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_FILE_ACL, 0);
			fsck_fix_done(c, err);
			if (!err)
				ei->file_acl = 0;
		}
		err = 0;
		goto out;	/* checked again for the next inode naming it */
	}
	err = xa_keep(c, ei, &s);
	if (!err)
		err = seen_add(x, &(struct xa_seen){ .blk = blk, .clusters = s.clusters,
						     .inodes = (uint32_t)s.n });
out:
	free(s.inums);
	return err;
}

int fsck_check_xattrs(struct check *c, struct ek_inode *ei)
{
	struct ek_fs *fs = c->fs;
	uint16_t acl_hi = get_le16(ei->raw + offsetof(struct ext4_inode, l_i_file_acl_high));
	int err;

	if (!xa_state(c))
		return -ENOMEM;
	c->xa->qinodes = 0;
	if (acl_hi && !ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT)) {
		if (fsck_report(c, EK_PR_FILE_ACL_HI, AT_INODE(ei->ino), ei->ino, acl_hi))
			fsck_fix_done(c, ek_fix_inode(c->ws, ei->ino, EK_IFIX_ACL_HI, 0));
		ei->file_acl &= 0xFFFFFFFFu;	/* what the kernel reads */
	}
	/* as e2fsck: without ext_attr no block is an xattr block (the kernel
	 * reads it all the same); not read, counted or marked in use */
	if (ei->file_acl && !ek_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR) &&
	    fsck_report(c, EK_PR_XATTR_NO_FEATURE, &(struct ek_finding){ .ino = ei->ino,
			.blk = ei->file_acl, .has_blk = true, .group = -1 },
			ei->ino, (unsigned long long)ei->file_acl)) {
		err = ek_fix_inode(c->ws, ei->ino, EK_IFIX_FILE_ACL, 0);
		fsck_fix_done(c, err);
		if (!err)
			ei->file_acl = 0;
	}
	err = check_ibody(c, ei);
	if (!err && ei->file_acl && ek_has_compat(fs, EXT4_FEATURE_COMPAT_EXT_ATTR) &&
	    ek_fs_block_valid(fs, ei->file_acl))
		err = check_block(c, ei);
	return err;
}

static int cmp_ref(const void *a, const void *b)
{
	ek_blk_t x = *(const ek_blk_t *)a, y = *(const ek_blk_t *)b;

	return x < y ? -1 : x > y;
}

/* the references xattrs make to value inode @ino (known after pass 1) */
uint32_t fsck_ea_refs(struct check *c, ek_ino_t ino)
{
	struct fsck_xa *x = c->xa;
	size_t lo = 0, hi, n = 0;

	if (!x || !x->nrefs)
		return 0;
	if (!x->sorted) {
		qsort(x->refs, x->nrefs, sizeof(*x->refs), cmp_ref);
		x->sorted = true;
	}
	for (hi = x->nrefs; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->refs[mid] < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + n < x->nrefs && x->refs[lo + n] == ino)
		n++;
	return (uint32_t)n;
}

void fsck_pass4_ea(struct check *c, ek_ino_t ino, uint32_t *want)
{
	uint32_t refs = fsck_ea_refs(c, ino);
	struct ek_inode ei;
	uint64_t stored;
	int err;

	if (!refs) {
		/* one a directory names is left as e2fsck 1.47 leaves it */
		if (!*want && (fsck_iflags(c, ino) & IS_EA) &&
		    fsck_report(c, EK_PR_EA_INODE_SPURIOUS_FLAG, AT_INODE(ino), ino)) {
			err = ek_fix_inode(c->ws, ino, EK_IFIX_FLAGS_CLEAR, EXT4_EA_INODE_FL);
			fsck_fix_done(c, err);
			if (!err)
				fsck_iflags_clear(c, ino, IS_EA);
		}
		return;
	}
	*want = 1;	/* its one link: the xattrs, not a directory, hold it */
	err = ek_inode_read(c->fs, ino, &ei);
	if (ei.raw) {
		stored = ek_xattr_ea_ref(ei.raw);
		if (stored != refs &&
		    get_le32(ei.raw + offsetof(struct ext4_inode, i_ctime)) !=
		    get_le32(ei.raw + offsetof(struct ext4_inode, i_atime)) &&
		    fsck_report(c, EK_PR_EA_INODE_REF_COUNT, AT_INODE(ino), ino,
				(unsigned long long)stored, refs))
			fsck_fix_done(c, ek_fix_inode(c->ws, ino, EK_IFIX_EA_REFS, refs));
	}
	(void)err;
	ek_inode_release(&ei);
}
