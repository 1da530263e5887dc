// SPDX-License-Identifier: MIT
/*
 * cmd_mount.c - extkit-replay mount IMAGE DIR: the image as recovery would
 * leave it (the log up to --upto, then fast commits and orphan inodes, as
 * `apply` does), served read-only through FUSE (libfuse3, low-level API).
 *
 * Nothing is written: the recovery is planned read-only (ek_recover_plan)
 * and the filesystem is opened over its read overlay (ek_recover_overlay),
 * as `extkit-fsck -n` reads a journalled image.  Every file operation goes
 * through the library's read path (inode.c, dir.c, file.c, xattr.c).
 *
 * FUSE node ids are inode numbers, but for the root: FUSE calls it 1, ext4
 * 2 (and inode 1, the bad-blocks inode, is never served).  A damaged
 * inode, directory, block map or xattr area gives EIO on that file and a
 * line on stderr (in the foreground) naming the inode: the daemon serves
 * the rest.  The loop is single-threaded: the library keeps caches in the
 * ek_fs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cmd_mount.h"

#ifndef EK_HAVE_FUSE

int rp_mount(const struct rp_mount_opts *o)
{
	fprintf(stderr, "%s: mount: this extkit-replay was built without libfuse3 "
		"(install libfuse3-dev and rebuild: scripts/install-deps does)\n", o->prog);
	return 1;
}

#else

#define FUSE_USE_VERSION 31
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* the kernel caches what it is told for this long: the image never changes */
#define MNT_TIMEOUT 86400.0

struct mnt {
	const char *prog;
	struct ek_fs *fs;
	bool foreground;	/* stderr is still the user's */
};

/* a directory read whole at opendir: readdir serves it by index */
struct mnt_dirent {
	ek_ino_t ino;
	uint8_t type;		/* EXT4_FT_* */
	uint8_t len;
	uint32_t name;		/* offset in names */
};
struct mnt_dir {
	struct mnt_dirent *v;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	bool bad_name;		/* a name the kernel cannot take, at: */
	uint64_t bad_lblk;
	uint32_t bad_off;
};

static fuse_ino_t to_fuse(ek_ino_t ino)
{
	return ino == EXT4_ROOT_INO ? FUSE_ROOT_ID : ino;
}

static ek_ino_t from_fuse(fuse_ino_t n)
{
	if (n == FUSE_ROOT_ID)
		return EXT4_ROOT_INO;
	return n > UINT32_MAX || n == EXT4_ROOT_INO ? 0 : (ek_ino_t)n;
}

/* the library's non-fatal findings, to stderr while it is there */
static void mnt_flush(struct mnt *m)
{
	for (unsigned i = 0; i < m->fs->nwarnings; i++) {
		if (m->foreground)
			fprintf(stderr, "%s: warning: %s\n", m->prog, m->fs->warnings[i]);
		free(m->fs->warnings[i]);
	}
	m->fs->nwarnings = 0;
}

/* what failed on inode @ino, said once on stderr; the errno for the kernel */
static int mnt_fail(struct mnt *m, ek_ino_t ino, const char *what, int err)
{
	if (err == -ENOMEM)
		return ENOMEM;
	if (m->foreground) {
		const char *msg = ek_error_msg(err);
		char pre[32];
		size_t n = (size_t)snprintf(pre, sizeof(pre), "inode %u: ", ino);

		/* the library's message names the inode too, mostly */
		if (!strncmp(msg, pre, n))
			msg += n;
		fprintf(stderr, "%s: inode %u: %s: %s\n", m->prog, ino, what, msg);
	}
	return EIO;
}

static struct mnt *mnt_of(fuse_req_t req)
{
	return fuse_req_userdata(req);
}

/*
 * Inode @ino as the kernel would take it from a directory: a number the
 * filesystem can hold (the root, or first_ino..inodes_count, as ext4's
 * lookup), decoded with its checksum good, in use, of a known type, with
 * a size an off_t holds.  0, or an errno with the reason on stderr.
 * Release *ei whatever the result.
 */
static int mnt_inode(struct mnt *m, ek_ino_t ino, struct ek_inode *ei)
{
	int err;

	memset(ei, 0, sizeof(*ei));
	if (!ino || (ino != EXT4_ROOT_INO && (ino < m->fs->sb.first_ino ||
					      ino > m->fs->sb.inodes_count)))
		return mnt_fail(m, ino, "read", ek_corrupt_ino(ino, "inode number %u out of range "
							       "(reserved, or past %u)", ino,
							       m->fs->sb.inodes_count));
	err = ek_inode_read(m->fs, ino, ei);
	if (!err && !ei->links_count)
		err = ek_corrupt_ino(ino, "deleted inode (links count 0) named by a directory");
	if (!err && !(ek_is_reg(ei->mode) || ek_is_dir(ei->mode) || ek_is_lnk(ei->mode) ||
		      ek_is_chr(ei->mode) || ek_is_blk(ei->mode) || ek_is_fifo(ei->mode) ||
		      ek_is_sock(ei->mode)))
		err = ek_corrupt_ino(ino, "mode %#o has no file type", ei->mode);
	if (!err && ei->size > INT64_MAX)
		err = ek_corrupt_ino(ino, "size %llu past what a file can hold",
				     (unsigned long long)ei->size);
	mnt_flush(m);
	return err ? mnt_fail(m, ino, "read", err) : 0;
}

static void fill_stat(const struct mnt *m, const struct ek_inode *ei, struct stat *st)
{
	uint32_t major, minor;

	memset(st, 0, sizeof(*st));
	st->st_ino = ei->ino;
	st->st_mode = ei->mode;
	st->st_nlink = ei->links_count;
	st->st_uid = ei->uid;
	st->st_gid = ei->gid;
	st->st_size = (off_t)ei->size;
	st->st_blocks = (blkcnt_t)ei->blocks;
	/* as ext4_file_getattr(): an inline regular file counts its sectors,
	 * so tar and rsync do not take it for a sparse one */
	if (ek_is_reg(ei->mode) && ek_inode_has_inline(ei))
		st->st_blocks += (blkcnt_t)((ei->size + 511) >> 9);
	st->st_blksize = m->fs->blksz;
	if (ek_is_chr(ei->mode) || ek_is_blk(ei->mode)) {
		ek_inode_rdev(ei, &major, &minor);
		st->st_rdev = makedev(major, minor);
	}
	st->st_atim = (struct timespec){ ei->atime.sec, ei->atime.nsec };
	st->st_mtim = (struct timespec){ ei->mtime.sec, ei->mtime.nsec };
	st->st_ctim = (struct timespec){ ei->ctime.sec, ei->ctime.nsec };
}

static void mnt_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	/* ACLs come from the image (getxattr), checked by the kernel */
	if (conn->capable & FUSE_CAP_POSIX_ACL)
		conn->want |= FUSE_CAP_POSIX_ACL;
}

static void mnt_getattr(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct mnt *m = mnt_of(req);
	struct ek_inode ei;
	struct stat st;
	int e;

	(void)fi;
	e = mnt_inode(m, from_fuse(fino), &ei);
	if (!e) {
		fill_stat(m, &ei, &st);
		fuse_reply_attr(req, &st, MNT_TIMEOUT);
	} else {
		fuse_reply_err(req, e);
	}
	ek_inode_release(&ei);
}

static void mnt_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct mnt *m = mnt_of(req);
	struct fuse_entry_param ep = { .attr_timeout = MNT_TIMEOUT, .entry_timeout = MNT_TIMEOUT };
	struct ek_inode dir, ei;
	size_t len = strlen(name);
	ek_ino_t ino = 0;
	int e, err;

	memset(&ei, 0, sizeof(ei));
	e = mnt_inode(m, from_fuse(parent), &dir);
	if (!e && !ek_is_dir(dir.mode))
		e = ENOTDIR;
	if (!e && len > EXT4_NAME_LEN)
		e = ENAMETOOLONG;
	if (!e) {
		err = ek_dir_lookup(m->fs, &dir, name, len, &ino);
		mnt_flush(m);
		if (err == -ENOENT)
			e = ENOENT;
		else if (err)
			e = mnt_fail(m, dir.ino, "directory lookup", err);
	}
	if (!e)
		e = mnt_inode(m, ino, &ei);
	if (!e) {
		ep.ino = to_fuse(ino);
		ep.generation = ei.generation;
		fill_stat(m, &ei, &ep.attr);
		fuse_reply_entry(req, &ep);
	} else if (e == ENOENT) {
		/* a negative entry the kernel may keep: the image never changes */
		ep.ino = 0;
		fuse_reply_entry(req, &ep);
	} else {
		fuse_reply_err(req, e);
	}
	ek_inode_release(&ei);
	ek_inode_release(&dir);
}

static int dir_add(void *arg, const struct ek_dirent *de)
{
	struct mnt_dir *d = arg;

	/* the kernel refuses a listing holding such a name (fuse parse_dirfile) */
	if (!de->name_len || memchr(de->name, '/', de->name_len) || memchr(de->name, 0, de->name_len)) {
		if (!d->bad_name)
			d->bad_lblk = de->lblk, d->bad_off = de->offset;
		d->bad_name = true;
		return 0;
	}
	if (d->n == d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64;
		struct mnt_dirent *v = ek_calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		if (d->n)
			memcpy(v, d->v, d->n * sizeof(*v));
		free(d->v);
		d->v = v;
		d->cap = cap;
	}
	if (d->names_cap - d->names_len < (size_t)de->name_len + 1) {
		size_t cap = d->names_cap ? d->names_cap * 2 : 4096;
		char *p = ek_malloc(cap);

		if (!p)
			return -ENOMEM;
		if (d->names_len)
			memcpy(p, d->names, d->names_len);
		free(d->names);
		d->names = p;
		d->names_cap = cap;
	}
	d->v[d->n++] = (struct mnt_dirent){ .ino = de->ino, .type = de->file_type,
					    .len = de->name_len, .name = d->names_len };
	memcpy(d->names + d->names_len, de->name, de->name_len);
	d->names[d->names_len + de->name_len] = 0;
	d->names_len += de->name_len + 1;
	return 0;
}

static void dir_free(struct mnt_dir *d)
{
	if (d) {
		free(d->v);
		free(d->names);
		free(d);
	}
}

static void mnt_opendir(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct mnt *m = mnt_of(req);
	struct mnt_dir *d = NULL;
	struct ek_inode dir;
	int e, err;

	e = mnt_inode(m, from_fuse(fino), &dir);
	if (!e && !ek_is_dir(dir.mode))
		e = ENOTDIR;
	if (!e && !(d = calloc(1, sizeof(*d))))
		e = ENOMEM;
	if (!e) {
		err = ek_dir_iterate(m->fs, &dir, 0, dir_add, d);
		mnt_flush(m);
		if (!err && d->bad_name)
			err = ek_corrupt_ino(dir.ino, "directory block %llu offset %u: a name holding "
					     "'/' or NUL", (unsigned long long)d->bad_lblk, d->bad_off);
		if (err)
			e = mnt_fail(m, dir.ino, "directory", err);
	}
	ek_inode_release(&dir);
	if (e) {
		dir_free(d);
		fuse_reply_err(req, e);
		return;
	}
	fi->fh = (uintptr_t)d;
	fi->keep_cache = 1;
	fi->cache_readdir = 1;
	if (fuse_reply_open(req, fi) == -ENOENT)
		dir_free(d);	/* interrupted */
}

static void mnt_readdir(fuse_req_t req, fuse_ino_t fino, size_t size, off_t off,
			struct fuse_file_info *fi)
{
	/* EXT4_FT_* as the type bits of st_mode (0: unknown, as without filetype) */
	static const mode_t ft_mode[EXT4_FT_MAX] = {
		[EXT4_FT_REG_FILE] = S_IFREG, [EXT4_FT_DIR] = S_IFDIR, [EXT4_FT_CHRDEV] = S_IFCHR,
		[EXT4_FT_BLKDEV] = S_IFBLK, [EXT4_FT_FIFO] = S_IFIFO, [EXT4_FT_SOCK] = S_IFSOCK,
		[EXT4_FT_SYMLINK] = S_IFLNK,
	};
	struct mnt_dir *d = (struct mnt_dir *)(uintptr_t)fi->fh;
	char *buf;
	size_t pos = 0;

	(void)fino;
	if (size > (1u << 20))
		size = 1u << 20;
	buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (size_t i = off < 0 ? d->n : (size_t)off; i < d->n; i++) {
		const struct mnt_dirent *de = &d->v[i];
		struct stat st = { .st_ino = de->ino,
				   .st_mode = de->type < EXT4_FT_MAX ? ft_mode[de->type] : 0 };
		size_t need = fuse_add_direntry(req, buf + pos, size - pos, d->names + de->name, &st,
						(off_t)(i + 1));

		if (need > size - pos)
			break;
		pos += need;
	}
	fuse_reply_buf(req, buf, pos);
	free(buf);
}

static void mnt_releasedir(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	(void)fino;
	dir_free((struct mnt_dir *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* a map walk that reads nothing: the map is checked once, at open */
static int map_nothing(void *arg, const struct ek_mapping *mp)
{
	(void)arg, (void)mp;
	return 0;
}

static void mnt_open(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct mnt *m = mnt_of(req);
	struct ek_inode *ei = calloc(1, sizeof(*ei));
	int e, err = 0;

	if (!ei) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	e = mnt_inode(m, from_fuse(fino), ei);
	if (!e && ek_is_dir(ei->mode))
		e = EISDIR;
	else if (!e && !ek_is_reg(ei->mode))
		e = EINVAL;	/* devices and fifos are opened by the kernel, never here */
	if (!e && (fi->flags & O_ACCMODE) != O_RDONLY)
		e = EROFS;
	if (!e) {
		/* a damaged map or inline area fails the open, not a read halfway */
		if (ei->flags & EXT4_INLINE_DATA_FL) {
			uint64_t stored;

			err = ek_inline_size(m->fs, ei, &stored);
			if (!err && ei->size > stored)
				err = ek_corrupt_ino(ei->ino, "inline data size %llu exceeds the %llu bytes stored",
						     (unsigned long long)ei->size,
						     (unsigned long long)stored);
		} else {
			err = ek_map_walk(m->fs, ei, map_nothing, NULL);
		}
		mnt_flush(m);
		if (err)
			e = mnt_fail(m, ei->ino, "open", err);
	}
	if (e) {
		ek_inode_release(ei);
		free(ei);
		fuse_reply_err(req, e);
		return;
	}
	fi->fh = (uintptr_t)ei;
	fi->keep_cache = 1;
	if (fuse_reply_open(req, fi) == -ENOENT) {
		ek_inode_release(ei);
		free(ei);
	}
}

static void mnt_read(fuse_req_t req, fuse_ino_t fino, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct mnt *m = mnt_of(req);
	const struct ek_inode *ei = (const struct ek_inode *)(uintptr_t)fi->fh;
	uint32_t bs = m->fs->blksz;
	uint64_t end, pos;
	uint8_t *buf, *blk;
	int err = 0;

	(void)fino;
	if (off < 0 || (uint64_t)off >= ei->size || !size) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > (1u << 20))
		size = 1u << 20;
	end = (uint64_t)off + size < ei->size ? (uint64_t)off + size : ei->size;
	buf = ek_malloc(end - off);
	blk = ek_malloc(bs);
	if (!buf || !blk) {
		free(buf);
		free(blk);
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (pos = off; pos < end && !err; ) {
		uint32_t in = pos & (bs - 1);
		uint64_t n = bs - in < end - pos ? bs - in : end - pos;

		err = ek_file_read_block(m->fs, ei, pos >> m->fs->log_blksz, blk);
		if (!err)
			memcpy(buf + (pos - off), blk + in, n);
		pos += n;
	}
	mnt_flush(m);
	if (err)
		fuse_reply_err(req, mnt_fail(m, ei->ino, "read", err));
	else
		fuse_reply_buf(req, (const char *)buf, end - off);
	free(buf);
	free(blk);
}

static void mnt_release(fuse_req_t req, fuse_ino_t fino, struct fuse_file_info *fi)
{
	struct ek_inode *ei = (struct ek_inode *)(uintptr_t)fi->fh;

	(void)fino;
	ek_inode_release(ei);
	free(ei);
	fuse_reply_err(req, 0);
}

static void mnt_readlink(fuse_req_t req, fuse_ino_t fino)
{
	struct mnt *m = mnt_of(req);
	struct ek_inode ei;
	char *buf = NULL;
	int e, err;

	e = mnt_inode(m, from_fuse(fino), &ei);
	if (!e && !ek_is_lnk(ei.mode))
		e = EINVAL;
	if (!e && !(buf = ek_malloc(m->fs->blksz + 1)))
		e = ENOMEM;
	if (!e) {
		err = ek_readlink(m->fs, &ei, buf, m->fs->blksz + 1);
		mnt_flush(m);
		if (!err && strlen(buf) != ei.size)
			err = ek_corrupt_ino(ei.ino, "symlink target holds a NUL byte");
		if (err)
			e = mnt_fail(m, ei.ino, "readlink", err);
	}
	if (!e)
		fuse_reply_readlink(req, buf);
	else
		fuse_reply_err(req, e);
	free(buf);
	ek_inode_release(&ei);
}

/*
 * The xattrs a kernel mount shows (ext4_xattr_handler_map): user., the
 * two POSIX ACLs, trusted., security., gnu. (the Hurd's); never
 * system.data (inline data), the encryption context, richacl or Lustre.
 */
static bool xattr_shown(uint8_t index)
{
	switch (index) {
	case EXT4_XATTR_INDEX_USER:
	case EXT4_XATTR_INDEX_POSIX_ACL_ACCESS:
	case EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT:
	case EXT4_XATTR_INDEX_TRUSTED:
	case EXT4_XATTR_INDEX_SECURITY:
	case 10:
		return true;
	}
	return false;
}

struct xa_list {
	char *buf;
	size_t len, cap;
};

static int xa_list_add(void *arg, const struct ek_xattr *xa)
{
	struct xa_list *l = arg;
	size_t plen = strlen(xa->prefix), n = plen + xa->name_len + 1;

	if (!xattr_shown(xa->index))
		return 0;
	if (l->cap - l->len < n) {
		size_t cap = l->cap * 2 + n + 256;
		char *p = ek_malloc(cap);

		if (!p)
			return -ENOMEM;
		if (l->len)
			memcpy(p, l->buf, l->len);
		free(l->buf);
		l->buf = p;
		l->cap = cap;
	}
	memcpy(l->buf + l->len, xa->prefix, plen);
	memcpy(l->buf + l->len + plen, xa->name, xa->name_len);
	l->buf[l->len + n - 1] = 0;
	l->len += n;
	return 0;
}

static void mnt_listxattr(fuse_req_t req, fuse_ino_t fino, size_t size)
{
	struct mnt *m = mnt_of(req);
	struct xa_list l = { 0 };
	struct ek_inode ei;
	int e, err;

	e = mnt_inode(m, from_fuse(fino), &ei);
	if (!e) {
		err = ek_xattr_iterate(m->fs, &ei, xa_list_add, &l);
		mnt_flush(m);
		if (err)
			e = mnt_fail(m, ei.ino, "xattrs", err);
	}
	if (e)
		fuse_reply_err(req, e);
	else if (!size)
		fuse_reply_xattr(req, l.len);
	else if (size < l.len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, l.buf, l.len);
	free(l.buf);
	ek_inode_release(&ei);
}

struct xa_get {
	const char *name;	/* the full name asked for */
	uint8_t *val;		/* malloc'd copy of the value */
	size_t len;
	bool found;
};

static int xa_get_one(void *arg, const struct ek_xattr *xa)
{
	struct xa_get *g = arg;
	size_t plen = strlen(xa->prefix);

	if (!xattr_shown(xa->index) || strlen(g->name) != plen + xa->name_len ||
	    memcmp(g->name, xa->prefix, plen) || memcmp(g->name + plen, xa->name, xa->name_len))
		return 0;
	g->found = true;
	/* ACLs go out in the Linux xattr format, as the kernel gives them */
	if (xa->index == EXT4_XATTR_INDEX_POSIX_ACL_ACCESS ||
	    xa->index == EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT)
		return ek_acl_to_xattr(xa->value, xa->value_len, &g->val, &g->len) ? -EK_CORRUPT : 1;
	g->val = ek_malloc(xa->value_len ? xa->value_len : 1);
	if (!g->val)
		return -ENOMEM;
	memcpy(g->val, xa->value, xa->value_len);
	g->len = xa->value_len;
	return 1;
}

static void mnt_getxattr(fuse_req_t req, fuse_ino_t fino, const char *name, size_t size)
{
	struct mnt *m = mnt_of(req);
	struct xa_get g = { .name = name };
	struct ek_inode ei;
	int e, err;

	e = mnt_inode(m, from_fuse(fino), &ei);
	if (!e) {
		err = ek_xattr_iterate(m->fs, &ei, xa_get_one, &g);
		mnt_flush(m);
		if (err < 0)
			e = mnt_fail(m, ei.ino, "xattrs", err);
		else if (!g.found)
			e = ENODATA;
	}
	if (e)
		fuse_reply_err(req, e);
	else if (!size)
		fuse_reply_xattr(req, g.len);
	else if (size < g.len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, (const char *)g.val, g.len);
	free(g.val);
	ek_inode_release(&ei);
}

/* the counts of the group descriptors, as the kernel sums them at mount */
static void mnt_statfs(fuse_req_t req, fuse_ino_t fino)
{
	struct mnt *m = mnt_of(req);
	const struct ek_super *sb = &m->fs->sb;
	uint64_t free_blocks = 0, free_inodes = 0;
	struct statvfs sv = { 0 };

	(void)fino;
	for (uint32_t g = 0; g < m->fs->group_count; g++) {
		free_blocks += (uint64_t)m->fs->groups[g].free_blocks << m->fs->cluster_bits;
		free_inodes += m->fs->groups[g].free_inodes;
	}
	if (free_blocks > sb->blocks_count)
		free_blocks = sb->blocks_count;
	if (free_inodes > sb->inodes_count)
		free_inodes = sb->inodes_count;
	sv.f_bsize = m->fs->blksz;
	sv.f_frsize = m->fs->blksz;
	sv.f_blocks = sb->blocks_count;
	sv.f_bfree = free_blocks;
	sv.f_bavail = free_blocks > sb->r_blocks_count ? free_blocks - sb->r_blocks_count : 0;
	sv.f_files = sb->inodes_count;
	sv.f_ffree = free_inodes;
	sv.f_favail = free_inodes;
	sv.f_namemax = EXT4_NAME_LEN;
	fuse_reply_statfs(req, &sv);
}

static const struct fuse_lowlevel_ops mnt_ops = {
	.init = mnt_init,
	.lookup = mnt_lookup,
	.getattr = mnt_getattr,
	.readlink = mnt_readlink,
	.open = mnt_open,
	.read = mnt_read,
	.release = mnt_release,
	.opendir = mnt_opendir,
	.readdir = mnt_readdir,
	.releasedir = mnt_releasedir,
	.statfs = mnt_statfs,
	.getxattr = mnt_getxattr,
	.listxattr = mnt_listxattr,
};

/* "-ofsname=..." with the option separators in the path escaped */
static char *fsname_opt(const char *image)
{
	size_t n = strlen(image);
	char *s = ek_malloc(2 * n + sizeof("-ofsname="));
	char *p;

	if (!s)
		return NULL;
	p = s + sprintf(s, "-ofsname=");
	for (const char *c = image; *c; c++) {
		if (*c == ',' || *c == '\\')
			*p++ = '\\';
		*p++ = *c;
	}
	*p = 0;
	return s;
}

static int64_t mnt_now(void)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");

	return sde && *sde ? strtoll(sde, NULL, 10) : (int64_t)time(NULL);
}

int rp_mount(const struct rp_mount_opts *o)
{
	struct ek_recover_opts ro = {
		.image = o->image, .journal_dev = o->journal_dev, .offset = o->offset,
		.flags = o->flags & EK_OPEN_IGNORE_CSUM,	/* never EK_OPEN_RW */
		.have_upto = o->have_upto, .upto = o->upto,
		/* a logged copy's data checksum is checked when the view reads it */
		.no_data_csum = true, .now = mnt_now(),
	};
	struct ek_recovery *rec = NULL;
	struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
	struct fuse_session *se = NULL;
	struct mnt m = { .prog = o->prog, .foreground = o->foreground };
	char *fsname = NULL;
	struct stat dst;
	int err, ret = 1;

	/* FUSE mounts on a file too, and then nothing under it can be read */
	if (stat(o->dir, &dst)) {
		fprintf(stderr, "%s: mount: '%s': %s\n", o->prog, o->dir, strerror(errno));
		return 1;
	}
	if (!S_ISDIR(dst.st_mode)) {
		fprintf(stderr, "%s: mount: '%s': not a directory\n", o->prog, o->dir);
		return 1;
	}
	err = ek_fs_open(o->image, &(struct ek_open_opts){ .flags = ro.flags, .offset = o->offset },
			 &m.fs);
	if (err) {
		fprintf(stderr, "%s: mount: %s: %s\n", o->prog, o->image, ek_error_msg(err));
		goto out;
	}
	if (!ek_has_compat(m.fs, EXT4_FEATURE_COMPAT_HAS_JOURNAL) && !o->have_upto &&
	    !o->journal_dev) {
		/* no journal (ext2): nothing to replay, the image as it is */
		mnt_flush(&m);
		goto serve;
	}
	ek_fs_close(m.fs);
	m.fs = NULL;
	err = ek_recover_plan(&ro, &rec);
	if (err) {
		fprintf(stderr, "%s: mount: %s: %s\n", o->prog, o->image, ek_error_msg(err));
		goto out;
	}
	if (rec->refused) {
		/* the kernel would not mount it: there is no image after recovery to show */
		fprintf(stderr, "%s: mount: refusing: recovery would refuse (%s): %s%s%s\n", o->prog,
			rec->refused_step, rec->refused_msg, rec->refused_hint ? "; " : "",
			rec->refused_hint ? rec->refused_hint : "");
		goto out;
	}
	err = ek_fs_open(o->image, &(struct ek_open_opts){ .flags = ro.flags, .offset = o->offset,
							    .overlay = ek_recover_overlay,
							    .overlay_arg = rec }, &m.fs);
	if (err) {
		fprintf(stderr, "%s: mount: %s (as recovery leaves it): %s\n", o->prog, o->image,
			ek_error_msg(err));
		goto out;
	}
	mnt_flush(&m);
	if (rec->ndiscarded)
		fprintf(stderr, "%s: mount: showing the image up to transaction %u; %zu later "
			"committed transaction%s not replayed\n", o->prog, rec->plan.upto,
			rec->ndiscarded, rec->ndiscarded == 1 ? "" : "s");

serve:
	fsname = fsname_opt(o->image);
	if (!fsname || fuse_opt_add_arg(&args, o->prog) ||
	    fuse_opt_add_arg(&args, "-oro,default_permissions,subtype=extkit") ||
	    fuse_opt_add_arg(&args, fsname)) {
		fprintf(stderr, "%s: mount: out of memory\n", o->prog);
		goto out;
	}
	se = fuse_session_new(&args, &mnt_ops, sizeof(mnt_ops), &m);
	if (!se) {
		fprintf(stderr, "%s: mount: cannot start a FUSE session\n", o->prog);
		goto out;
	}
	if (fuse_set_signal_handlers(se)) {
		fprintf(stderr, "%s: mount: cannot set signal handlers\n", o->prog);
		goto out_destroy;
	}
	if (fuse_session_mount(se, o->dir)) {
		/* libfuse said why (no /dev/fuse, not a directory...) */
		fprintf(stderr, "%s: mount: cannot mount on '%s'\n", o->prog, o->dir);
		goto out_signals;
	}
	if (fuse_daemonize(o->foreground)) {
		fprintf(stderr, "%s: mount: cannot go to the background\n", o->prog);
		goto out_unmount;
	}
	ret = fuse_session_loop(se) ? 1 : 0;
out_unmount:
	fuse_session_unmount(se);
out_signals:
	fuse_remove_signal_handlers(se);
out_destroy:
	fuse_session_destroy(se);
out:
	fuse_opt_free_args(&args);
	free(fsname);
	ek_fs_close(m.fs);
	ek_recover_free(rec);
	return ret;
}

#endif /* EK_HAVE_FUSE */
