// SPDX-License-Identifier: MIT
/*
 * cmd_dump.c - copy content out of the image: cat, dump, rdump.
 *
 * rdump never writes outside its target: every name is created relative
 * to an open directory fd (openat/mkdirat, O_NOFOLLOW), names containing
 * '/' or equal to '.' / '..' are refused with a warning, host-side
 * symlinks are never followed, and hard links inside the dumped tree are
 * recreated as hard links.  -p restores owner, mode, times and xattrs.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "debugfs.h"

static int write_all(int fd, const char *name, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return ek_err(-errno, "cannot write '%s': %s", name, strerror(errno));
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

struct fd_sink {
	int fd;
	const char *name;	/* for messages */
	uint64_t end;		/* end of the last write: no ftruncate when it is i_size */
};

static int fd_data(void *arg, uint64_t off, const void *buf, size_t len)
{
	struct fd_sink *s = arg;

	s->end = off + len;
	return write_all(s->fd, s->name, buf, len, off);
}

static int stream_data(void *arg, uint64_t off, const void *buf, size_t len)
{
	(void)off;
	if (fwrite(buf, 1, len, arg) != len)
		return ek_err(-EIO, "write to stdout failed");
	return 0;
}

static int skip_hole(void *arg, uint64_t off, uint64_t len)
{
	(void)arg, (void)off, (void)len;
	return 0;	/* the file is sized with ftruncate at the end */
}

int do_cat(struct dbg *d, int argc, char **argv)
{
	struct ek_read_cb cb = { .data = stream_data, .arg = stdout };
	struct ek_inode ei = { 0 };
	ek_ino_t ino;
	int err;

	(void)argc;
	err = dbg_parse_ino(d, argv[1], &ino);
	if (!err)
		err = dbg_read_inode(d, ino, &ei);
	if (!err)
		err = ek_file_read(d->fs, &ei, 0, &cb);
	ek_inode_release(&ei);
	fflush(stdout);
	if (err == -EK_BADCRC) {
		dbg_warn(d, "cat: warning: %s", ek_error_msg(err));
		err = 0;
	}
	return err ? dbg_fail(d, "cat", err) : 0;
}

/* ---- restoring metadata -------------------------------------------------- */

struct xattr_restore {
	int fd;			/* O_PATH fd is not usable for xattrs: we use the path */
	int dirfd;
	const char *name;
	struct dbg *d;
};

static int restore_xattr(void *arg, const struct ek_xattr *xa)
{
	struct xattr_restore *x = arg;
	char full[320], proc[64];
	const void *val = xa->value;
	size_t len = xa->value_len;
	uint8_t *conv = NULL;
	int r;

	if (xa->index == EXT4_XATTR_INDEX_SYSTEM && xa->name_len == 4 &&
	    !memcmp(xa->name, "data", 4))
		return 0;	/* inline data lives in the file content */
	if (!*xa->prefix)
		return 0;	/* unknown namespace: nothing the host can hold */
	if (xa->index == EXT4_XATTR_INDEX_POSIX_ACL_ACCESS ||
	    xa->index == EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT) {
		if (ek_acl_to_xattr(xa->value, xa->value_len, &conv, &len))
			return 0;
		val = conv;
	}
	snprintf(full, sizeof(full), "%s%.*s", xa->prefix, (int)xa->name_len, xa->name);
	if (x->fd >= 0) {
		r = fsetxattr(x->fd, full, val, len, 0);
	} else {
		/* symlinks: set through the parent without following */
		snprintf(proc, sizeof(proc), "/proc/self/fd/%d", x->dirfd);
		char path[4400];

		snprintf(path, sizeof(path), "%s/%s", proc, x->name);
		r = lsetxattr(path, full, val, len, 0);
	}
	if (r < 0)
		dbg_warn(x->d, "rdump: cannot set xattr '%s' on '%s': %s", full, x->name,
			 strerror(errno));
	free(conv);
	return 0;
}

/* owner, mode, times and xattrs of @ei onto @name in @dirfd (fd if open) */
static void restore_meta(struct dbg *d, const struct ek_inode *ei, int dirfd,
			 const char *name, int fd)
{
	struct xattr_restore x = { .fd = fd, .dirfd = dirfd, .name = name, .d = d };
	struct timespec ts[2] = {
		{ .tv_sec = ei->atime.sec, .tv_nsec = ei->atime.nsec },
		{ .tv_sec = ei->mtime.sec, .tv_nsec = ei->mtime.nsec },
	};
	bool lnk = ek_is_lnk(ei->mode);

	if (fchownat(dirfd, name, ei->uid, ei->gid, AT_SYMLINK_NOFOLLOW) < 0)
		dbg_warn(d, "rdump: cannot chown '%s': %s", name, strerror(errno));
	if (!lnk && fchmodat(dirfd, name, ei->mode & 07777, 0) < 0)
		dbg_warn(d, "rdump: cannot chmod '%s': %s", name, strerror(errno));
	ek_xattr_iterate(d->fs, ei, restore_xattr, &x);
	if (utimensat(dirfd, name, ts, AT_SYMLINK_NOFOLLOW) < 0)
		dbg_warn(d, "rdump: cannot set times on '%s': %s", name, strerror(errno));
}

/* the process umask, read once (umask() can only be read by setting it) */
static mode_t current_umask(void)
{
	static mode_t mask = (mode_t)-1;

	if (mask == (mode_t)-1) {
		mask = umask(022);
		umask(mask);
	}
	return mask;
}

static int dump_file_at(struct dbg *d, const struct ek_inode *ei, int dirfd, const char *name,
			bool preserve)
{
	struct fd_sink sink = { .fd = -1, .name = name };
	struct ek_read_cb cb = { .data = fd_data, .hole = skip_hole, .arg = &sink };
	mode_t mode = ei->mode & 0777;
	bool fresh = true;	/* created now with its final permission bits */
	int err;

	/* a new file gets its mode at creation: saves an fchmod per file */
	sink.fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (sink.fd < 0 && errno == EEXIST) {
		fresh = false;
		sink.fd = openat(dirfd, name, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	}
	if (sink.fd < 0)
		return ek_err(-errno, "cannot create '%s': %s", name, strerror(errno));
	err = ek_file_read(d->fs, ei, EK_READ_SKIP_HOLES, &cb);
	if (err == -EK_BADCRC) {
		dbg_warn(d, "warning: %s", ek_error_msg(err));
		err = 0;
	}
	if (!err && sink.end != ei->size && ftruncate(sink.fd, ei->size) < 0)
		err = ek_err(-errno, "cannot size '%s': %s", name, strerror(errno));
	if (!err && preserve)
		restore_meta(d, ei, dirfd, name, sink.fd);
	else if (!err && (!fresh || (mode & current_umask())) && fchmod(sink.fd, mode) < 0)
		err = ek_err(-errno, "cannot chmod '%s': %s", name, strerror(errno));
	close(sink.fd);
	return err;
}

int do_dump(struct dbg *d, int argc, char **argv)
{
	struct ek_inode ei = { 0 };
	bool preserve = false;
	ek_ino_t ino;
	int c, err;

	while ((c = getopt(argc, argv, "p")) != -1) {
		if (c != 'p')
			return dbg_usage("dump");
		preserve = true;
	}
	if (argc - optind != 2)
		return dbg_usage("dump");
	err = dbg_parse_ino(d, argv[optind], &ino);
	if (!err)
		err = dbg_read_inode(d, ino, &ei);
	if (!err)
		err = dump_file_at(d, &ei, AT_FDCWD, argv[optind + 1], preserve);
	if (!err) {
		ek_out_obj_begin(d->out, NULL);
		ek_out_u64(d->out, "inode", ino);
		ek_out_str(d->out, "output", argv[optind + 1]);
		ek_out_u64(d->out, "size", ei.size);
		ek_out_obj_end(d->out);
	}
	ek_inode_release(&ei);
	return err ? dbg_fail(d, "dump", err) : 0;
}

/* ---- rdump --------------------------------------------------------------- */

struct link_map {		/* inode -> first dumped path, for hard links */
	ek_ino_t ino;
	int dirfd;		/* dup'ed fd of the directory holding it */
	char *name;
};

struct rdump {
	struct dbg *d;
	bool preserve;
	struct link_map *links;
	size_t nlinks, cap;
	ek_ino_t *stack;	/* directories being dumped: a loop guard */
	unsigned depth;
	unsigned long files, dirs, errors;
};

#define RDUMP_MAX_DEPTH 1024

static bool safe_name(const char *n, size_t len)
{
	if (len == 0 || (len == 1 && n[0] == '.') || (len == 2 && !memcmp(n, "..", 2)))
		return false;
	return !memchr(n, '/', len) && !memchr(n, 0, len);
}

static int rdump_inode(struct rdump *r, ek_ino_t ino, int dirfd, const char *name);
static int rdump_entries(struct rdump *r, const struct ek_inode *dir, const char *name, int fd);

struct rdump_dir {
	struct rdump *r;
	int fd;
	int err;
};

static int rdump_entry(void *arg, const struct ek_dirent *de)
{
	struct rdump_dir *rd = arg;
	char name[EXT4_NAME_LEN + 1];

	if ((de->name_len == 1 && de->name[0] == '.') ||
	    (de->name_len == 2 && !memcmp(de->name, "..", 2)))
		return 0;
	if (!safe_name(de->name, de->name_len)) {
		dbg_warn(rd->r->d, "rdump: refusing unsafe name '%.*s' (inode %u)",
			 de->name_len, de->name, de->ino);
		rd->r->errors++;
		return 0;
	}
	memcpy(name, de->name, de->name_len);
	name[de->name_len] = 0;
	if (rdump_inode(rd->r, de->ino, rd->fd, name))
		rd->r->errors++;
	return 0;
}

static int remember_link(struct rdump *r, ek_ino_t ino, int dirfd, const char *name)
{
	struct link_map *l;

	if (ek_grow(&r->links, &r->cap, r->nlinks + 1, sizeof(*r->links)))
		return -ENOMEM;
	l = &r->links[r->nlinks];
	l->dirfd = dup(dirfd);
	l->name = strdup(name);
	if (l->dirfd < 0 || !l->name) {
		if (l->dirfd >= 0)
			close(l->dirfd);
		free(l->name);
		return -ENOMEM;
	}
	l->ino = ino;
	r->nlinks++;
	return 0;
}

static const struct link_map *find_link(const struct rdump *r, ek_ino_t ino)
{
	for (size_t i = 0; i < r->nlinks; i++)
		if (r->links[i].ino == ino)
			return &r->links[i];
	return NULL;
}

/* dump the entries of directory @dir into the open host directory @fd */
static int rdump_entries(struct rdump *r, const struct ek_inode *dir, const char *name, int fd)
{
	struct rdump_dir rd = { .r = r, .fd = fd };
	int err;

	for (unsigned i = 0; i < r->depth; i++)
		if (r->stack[i] == dir->ino)
			return ek_corrupt_ino(dir->ino, "directory loop at '%s'", name);
	if (r->depth >= RDUMP_MAX_DEPTH)
		return ek_err(-ELOOP, "directory tree deeper than %d at '%s'", RDUMP_MAX_DEPTH, name);
	r->stack[r->depth++] = dir->ino;
	err = ek_dir_iterate(r->d->fs, dir, 0, rdump_entry, &rd);
	r->depth--;
	r->dirs++;
	if (err == -EK_BADCRC) {
		dbg_warn(r->d, "rdump: warning: %s", ek_error_msg(err));
		err = 0;
	}
	return err;
}

static int rdump_inode(struct rdump *r, ek_ino_t ino, int dirfd, const char *name)
{
	struct dbg *d = r->d;
	struct ek_inode ei = { 0 };
	int err;

	err = dbg_read_inode(d, ino, &ei);
	if (err) {
		ek_inode_release(&ei);
		dbg_warn(d, "rdump: '%s': %s", name, ek_error_msg(err));
		return err;
	}
	if (!ek_is_dir(ei.mode) && ei.links_count > 1) {
		const struct link_map *l = find_link(r, ino);

		if (l) {
			if (linkat(l->dirfd, l->name, dirfd, name, 0) < 0) {
				err = ek_err(-errno, "cannot link '%s': %s", name, strerror(errno));
				goto out_warn;
			}
			goto out;
		}
		err = remember_link(r, ino, dirfd, name);
		if (err)
			goto out_warn;
	}

	if (ek_is_dir(ei.mode)) {
		int fd;

		if (mkdirat(dirfd, name, 0700) < 0 && errno != EEXIST) {
			err = ek_err(-errno, "cannot create directory '%s': %s", name, strerror(errno));
			goto out_warn;
		}
		fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = ek_err(-errno, "cannot open directory '%s': %s", name, strerror(errno));
			goto out_warn;
		}
		err = rdump_entries(r, &ei, name, fd);
		if (r->preserve)
			restore_meta(d, &ei, dirfd, name, fd);
		else
			fchmod(fd, ei.mode & 0777);
		close(fd);
		if (err)
			goto out_warn;
	} else if (ek_is_reg(ei.mode)) {
		err = dump_file_at(d, &ei, dirfd, name, r->preserve);
		if (err)
			goto out_warn;
		r->files++;
	} else if (ek_is_lnk(ei.mode)) {
		char target[65536];

		err = ek_readlink(d->fs, &ei, target, sizeof(target));
		if (err)
			goto out_warn;
		if (symlinkat(target, dirfd, name) < 0) {
			err = ek_err(-errno, "cannot create symlink '%s': %s", name, strerror(errno));
			goto out_warn;
		}
		if (r->preserve)
			restore_meta(d, &ei, dirfd, name, -1);
		r->files++;
	} else if (ek_is_chr(ei.mode) || ek_is_blk(ei.mode) || ek_is_fifo(ei.mode) ||
		   ek_is_sock(ei.mode)) {
		uint32_t major, minor;
		dev_t dev;

		ek_inode_rdev(&ei, &major, &minor);
		dev = makedev(major, minor);

		if (mknodat(dirfd, name, (ei.mode & 0170000) | 0600,
			    ek_is_chr(ei.mode) || ek_is_blk(ei.mode) ? dev : 0) < 0) {
			err = ek_err(-errno, "cannot create special file '%s': %s", name, strerror(errno));
			goto out_warn;
		}
		/* never open a device or fifo: metadata goes by name */
		if (r->preserve)
			restore_meta(d, &ei, dirfd, name, -1);
		r->files++;
	} else {
		err = ek_corrupt_ino(ino, "'%s' has unknown file type 0%o", name, ei.mode);
		goto out_warn;
	}
out:
	ek_inode_release(&ei);
	return 0;
out_warn:
	dbg_warn(d, "rdump: %s", ek_error_msg(err));
	ek_inode_release(&ei);
	return err;
}

int do_rdump(struct dbg *d, int argc, char **argv)
{
	struct rdump r = { .d = d };
	int c, dest, ret = 0;

	while ((c = getopt(argc, argv, "p")) != -1) {
		if (c != 'p')
			return dbg_usage("rdump");
		r.preserve = true;
	}
	if (argc - optind < 2)
		return dbg_usage("rdump");
	dest = open(argv[argc - 1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dest < 0) {
		dbg_errorf(d, "rdump: cannot open '%s': %s", argv[argc - 1], strerror(errno));
		return 1;
	}
	r.stack = calloc(RDUMP_MAX_DEPTH, sizeof(*r.stack));
	if (!r.stack) {
		close(dest);
		return dbg_fail(d, "rdump", -ENOMEM);
	}
	for (int i = optind; i < argc - 1; i++) {
		const char *src = argv[i], *base;
		char name[EXT4_NAME_LEN + 1];
		ek_ino_t ino;
		int err = dbg_parse_ino(d, src, &ino);

		if (err) {
			ret = dbg_fail(d, "rdump", err);
			continue;
		}
		/* the last path component names the copy; a source without
		 * one ("/", "dir/.") is a directory dumped into the target
		 * itself, as e2fsprogs' rdump does */
		base = strrchr(src, '/');
		base = base ? base + 1 : src;
		if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
			struct ek_inode dir = { 0 };

			err = dbg_read_inode(d, ino, &dir);
			if (!err && !ek_is_dir(dir.mode))
				err = ek_err(-ENOTDIR, "'%s' is not a directory", src);
			if (!err)
				err = rdump_entries(&r, &dir, src, dest);
			if (!err && r.preserve)	/* the target stands for the source directory */
				restore_meta(d, &dir, dest, ".", dest);
			ek_inode_release(&dir);
			if (err)
				ret = dbg_fail(d, "rdump", err);
			continue;
		}
		snprintf(name, sizeof(name), "%s", base);
		if (rdump_inode(&r, ino, dest, name))
			ret = 1;
	}
	if (r.errors)
		ret = 1;
	ek_out_obj_begin(d->out, NULL);
	ek_out_u64(d->out, "files", r.files);
	ek_out_u64(d->out, "directories", r.dirs);
	ek_out_u64(d->out, "errors", r.errors);
	ek_out_obj_end(d->out);
	for (size_t i = 0; i < r.nlinks; i++) {
		close(r.links[i].dirfd);
		free(r.links[i].name);
	}
	free(r.links);
	free(r.stack);
	close(dest);
	return ret;
}
