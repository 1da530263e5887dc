// SPDX-License-Identifier: MIT
/*
 * populate.c - copy a directory tree into a new filesystem (mkfs -d).
 *
 * The walk is depth first, pre-order, each directory's names sorted
 * bytewise (as mke2fs -d and alphasort in the C locale): a subdirectory's
 * whole subtree takes inode numbers before its next sibling.  A directory
 * takes its first block when it is made, before its children's (as
 * ext2fs_mkdir(); the root's where mkfs puts it without -d), and is grown
 * linear as mke2fs -d grows it: each name linked as its inode is made,
 * before the inode's blocks are taken, a new block added when none has
 * room (ek_newfs_ldir: mke2fs's first fit, in amortised constant time per
 * name where mke2fs rereads the directory).  With htree_dirs it is
 * written once instead, after its children, in one pass (ek_dir_build):
 * linear when it fits that block, else an htree.  A file's xattrs are set after
 * its data, and with inline_data every file starts inline, as mke2fs -d
 * makes them: one whose data goes to blocks has block 0 too (the inline
 * bytes moved there: zeros) and keeps an empty in-inode xattr area; one
 * with no data stays inline only when i_block holds its size (mke2fs
 * leaves bigger ones inline too, an inode the kernel's SEEK_HOLE fails
 * on).  A symlink too long for i_block is kept inline with inline_data,
 * as ext2fs_symlink() does.  With these and whole seconds (the default),
 * a tree gives the image mke2fs 1.47 -d gives, byte for byte (test 421).
 *
 * Files keep their holes, and a block of zeros becomes a hole, as mke2fs
 * -d makes it (a hole reads as zeros: nothing is lost).  A file with
 * fallocated space keeps every block instead, zeros and all, so a swap
 * file or a preallocated database stays usable.  FIEMAP tells data,
 * unwritten (fallocated) extents and
 * holes apart; an unwritten extent stays unwritten in the image (read as
 * zeros, nothing copied), as does space preallocated past the size
 * (fallocate --keep-size).  Without the extent feature there are no
 * unwritten extents: fallocated blocks inside the size become data
 * blocks of zeros and preallocation past the size is left out (an
 * indirect map past i_size is damage to e2fsck).  Where FIEMAP is not
 * supported (tmpfs), a file with as many bytes allocated (st_blocks) as
 * its size is copied whole (taken as fallocated: its zeros stay), and a
 * sparse one by SEEK_DATA/SEEK_HOLE (a
 * source filesystem may call fallocated space a hole there: it is lost),
 * else every block is data.
 * mke2fs -d keeps neither: it leaves out unwritten extents and
 * preallocation.  Hard links are found by
 * (st_dev, st_ino) at any inode number; the link count is the number of
 * names in the tree.  Times are whole seconds, as mke2fs copies them
 * (nanoseconds: kept; either way their epoch bits are kept, which mke2fs
 * 1.47.0 loses); with clamp_time every time is at most the epoch
 * (SOURCE_DATE_EPOCH) and crtime is mkfs's time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>
#include "extkit.h"

#define COPY_CHUNK (1u << 20)	/* bytes per read and write of file data */
#define MAX_DEPTH 4096		/* directories inside each other */
#define EXT4_LINK_MAX 65000	/* the kernel's: more links make a directory's count 1 */

struct hardlink {
	dev_t dev;
	ino_t sino;
	ek_ino_t ino;
};

struct pop {
	struct ek_newfs *nf;
	struct ek_fs *fs;
	const struct ek_populate_opts *o;
	struct ek_populate_stats *st;
	char path[PATH_MAX];		/* the source path being copied */
	uint8_t *buf;			/* COPY_CHUNK bytes */
	struct hardlink *links;		/* open hash of sources with st_nlink > 1 */
	size_t nlinks, cap;
	bool xattr_warned;
	int depth;			/* directories open above this one */
	uint64_t free_before;		/* free blocks before the copy */
	uint64_t made;			/* inodes made so far (progress) */
	bool prealloc;			/* data_runs(): the file has space fallocated */
};

static void warn(struct pop *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct pop *p, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	if (!p->o->warn)
		return;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) >= 0) {
		p->o->warn(p->o->warn_arg, msg);
		free(msg);
	}
	va_end(ap);
}

/* ---- hard links --------------------------------------------------------------------- */

static size_t link_slot(const struct pop *p, dev_t dev, ino_t sino)
{
	uint64_t h = ((uint64_t)sino * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)dev * 0xC2B2AE3D27D4EB4Full);

	return (size_t)(h >> 20) & (p->cap - 1);
}

static struct hardlink *link_find(struct pop *p, dev_t dev, ino_t sino)
{
	if (!p->cap)
		return NULL;
	for (size_t s = link_slot(p, dev, sino); p->links[s].ino; s = (s + 1) & (p->cap - 1))
		if (p->links[s].dev == dev && p->links[s].sino == sino)
			return &p->links[s];
	return NULL;
}

static int link_add(struct pop *p, dev_t dev, ino_t sino, ek_ino_t ino)
{
	if ((p->nlinks + 1) * 2 > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 1024;
		struct hardlink *old = p->links, *v = ek_calloc(cap, sizeof(*v));

		if (!v)
			return -ENOMEM;
		p->links = v;
		p->cap = cap;
		for (size_t i = 0; old && i < cap / 2; i++)
			if (old[i].ino) {
				size_t s = link_slot(p, old[i].dev, old[i].sino);

				while (v[s].ino)
					s = (s + 1) & (cap - 1);
				v[s] = old[i];
			}
		free(old);
	}
	for (size_t s = link_slot(p, dev, sino);; s = (s + 1) & (p->cap - 1))
		if (!p->links[s].ino) {
			p->links[s] = (struct hardlink){ .dev = dev, .sino = sino, .ino = ino };
			p->nlinks++;
			return 0;
		}
}

/* ---- inode attributes ----------------------------------------------------------------- */

static struct ek_timespec clamp(const struct pop *p, struct timespec t)
{
	struct ek_timespec r = { .sec = t.tv_sec, .nsec = (uint32_t)t.tv_nsec };

	if (p->o->clamp_time && r.sec >= p->o->epoch) {
		r.sec = p->o->epoch;
		r.nsec = 0;
	}
	if (!p->o->nanoseconds)	/* as mke2fs -d: whole seconds */
		r.nsec = 0;
	return r;
}

static void set_attrs(struct pop *p, uint8_t *raw, const struct stat *s)
{
	ek_inode_owner_set(raw, s->st_uid, s->st_gid);
	ek_inode_time_set(p->fs, raw, EK_TIME_ATIME, clamp(p, s->st_atim));
	ek_inode_time_set(p->fs, raw, EK_TIME_MTIME, clamp(p, s->st_mtim));
	ek_inode_time_set(p->fs, raw, EK_TIME_CTIME, clamp(p, s->st_ctim));
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), 1);
}

static uint8_t file_type(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return EXT4_FT_REG_FILE;
	case S_IFDIR: return EXT4_FT_DIR;
	case S_IFCHR: return EXT4_FT_CHRDEV;
	case S_IFBLK: return EXT4_FT_BLKDEV;
	case S_IFIFO: return EXT4_FT_FIFO;
	case S_IFSOCK: return EXT4_FT_SOCK;
	case S_IFLNK: return EXT4_FT_SYMLINK;
	}
	return EXT4_FT_UNKNOWN;
}

/* the source's xattrs into the inode body and an xattr block */
/* the xattrs of p->path (an unreadable one is left out with a warning) */
struct xlist {
	struct ek_xattr_new *x;
	size_t n;
	char *names;
};

static void xlist_release(struct xlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->x[i].value && strcmp(l->x[i].name, "system.data"))
			free((void *)l->x[i].value);
	free(l->x);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

static int xlist_read(struct pop *p, struct xlist *l)
{
	ssize_t len = llistxattr(p->path, NULL, 0);

	memset(l, 0, sizeof(*l));
	if (len <= 0 || p->o->no_xattrs)
		return 0;	/* none, the source filesystem has none, or none wanted */
	if (!ek_has_compat(p->fs, EXT4_FEATURE_COMPAT_EXT_ATTR)) {
		if (!p->xattr_warned)
			warn(p, "'%s' has xattrs, but the filesystem has no ext_attr feature: "
			     "xattrs are not copied (-O ext_attr copies them)", p->path);
		p->xattr_warned = true;
		return 0;
	}
	l->names = ek_malloc((size_t)len);
	if (!l->names)
		return -ENOMEM;
	len = llistxattr(p->path, l->names, (size_t)len);
	if (len < 0)
		return ek_err(-errno, "cannot list the xattrs of '%s': %s", p->path, strerror(errno));
	l->x = ek_calloc((size_t)len + 1, sizeof(*l->x));	/* one per byte at most, + system.data */
	if (!l->x)
		return -ENOMEM;
	for (char *name = l->names; name < l->names + len; name += strlen(name) + 1) {
		ssize_t vlen = lgetxattr(p->path, name, NULL, 0);
		void *val = NULL;

		if (vlen >= 0 && !(val = ek_malloc(vlen ? (size_t)vlen : 1)))
			return -ENOMEM;
		if (vlen >= 0)
			vlen = lgetxattr(p->path, name, val, (size_t)vlen);
		if (vlen < 0) {
			/* an unreadable xattr (security.* without the right) is left out */
			warn(p, "'%s': xattr %s left out: %s", p->path, name, strerror(errno));
			free(val);
			continue;
		}
		l->x[l->n++] = (struct ek_xattr_new){ .name = name, .value = val, .len = (size_t)vlen };
	}
	return 0;
}

/*
 * Store @l into the inode body and an xattr block; with @data (inline
 * data past i_block, maybe empty) as system.data first.  -ENOSPC from
 * the builder is returned as is, for the caller to store the data in
 * blocks instead.
 */
static int xlist_store(struct pop *p, ek_ino_t ino, uint8_t *raw, struct xlist *l,
		       const void *data, size_t len, bool with_data)
{
	uint8_t *block = NULL;
	size_t n = l->n;
	int err;

	if (!n && !with_data)
		return 0;
	if (with_data) {
		if (!l->x && !(l->x = ek_calloc(1, sizeof(*l->x))))
			return -ENOMEM;
		l->x[n++] = (struct ek_xattr_new){ .name = "system.data", .value = data ? data : "",
						   .len = len };
	}
	err = ek_xattr_build(p->fs, ino, raw, l->x, n, &block);
	if (err == -ENOSPC && with_data)
		return err;
	if (err) {
		char prefix[PATH_MAX + 8];

		snprintf(prefix, sizeof(prefix), "'%s': ", p->path);
		/* -ENOSPC: more than the inode and a block hold, not a full filesystem */
		return ek_err_wrap(err == -ENOSPC ? -E2BIG : err, err, prefix);
	}
	if (block) {
		ek_blk_t blk;

		err = ek_newfs_alloc_block(p->nf, 0, &blk);
		if (!err) {
			ek_xattr_block_csum_set(p->fs, blk, block);
			err = ek_newfs_write(p->nf, blk, block, 1);
		}
		if (!err) {
			ek_inode_file_acl_set(raw, blk);
			ek_inode_add_blocks(p->fs, raw, ek_cluster_ratio(p->fs));
		}
		free(block);
	}
	return err;
}

static int copy_xattrs(struct pop *p, ek_ino_t ino, uint8_t *raw)
{
	struct xlist l;
	int err = xlist_read(p, &l);

	if (!err)
		err = xlist_store(p, ino, raw, &l, NULL, 0, false);
	xlist_release(&l);
	return err;
}

static bool all_zero(const uint8_t *b, size_t len)
{
	return !len || (!b[0] && !memcmp(b, b + 1, len - 1));
}

static bool has_inline(const struct pop *p)
{
	return ek_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
	       p->fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE;
}

static void set_flag(uint8_t *raw, uint32_t flag)
{
	put_le32(raw + offsetof(struct ext4_inode, i_flags),
		 get_le32(raw + offsetof(struct ext4_inode, i_flags)) | flag);
}

/*
 * inline_data: a small file's bytes in i_block (60) and system.data, as
 * the kernel and mke2fs -d keep them.  *done false: it does not fit, the
 * caller stores it in blocks (the xattrs are not written yet).
 */
static int copy_inline_file(struct pop *p, int fd, ek_ino_t ino, uint8_t *raw, uint64_t size,
			    struct xlist *l, bool *done)
{
	uint8_t *ib = raw + offsetof(struct ext4_inode, i_block);
	uint64_t got = 0;
	int err;

	*done = false;
	if (!size || size > p->fs->inode_size)
		return 0;
	while (got < size) {
		ssize_t r = pread(fd, p->buf + got, size - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ek_err(-errno, "cannot read '%s': %s", p->path, strerror(errno));
		if (r == 0)
			break;
		got += (uint64_t)r;
	}
	memset(p->buf + got, 0, size - got);
	got = size;
	err = xlist_store(p, ino, raw, l, got > EXT4_N_BLOCKS * 4 ? p->buf + EXT4_N_BLOCKS * 4 : NULL,
			  got > EXT4_N_BLOCKS * 4 ? got - EXT4_N_BLOCKS * 4 : 0, true);
	if (err == -ENOSPC)
		return 0;
	if (err)
		return err;
	memset(ib, 0, EXT4_N_BLOCKS * 4);
	memcpy(ib, p->buf, size < EXT4_N_BLOCKS * 4 ? size : EXT4_N_BLOCKS * 4);
	set_flag(raw, EXT4_INLINE_DATA_FL);
	ek_newfs_inode_set_size(p->nf, raw, size);
	p->st->bytes += size;
	*done = true;
	return 0;
}

/* ---- regular files -------------------------------------------------------------------- */

/*
 * Add blocks [lblk, end) of kind @unwritten to the sorted runs *v.  Runs
 * come in file order; converting bytes to blocks can make a run start in
 * the last block of the one before (the source's blocks are smaller than
 * ours): written wins that block, so data is never left in an unwritten
 * extent.
 */
static int push_run(struct ek_ext **v, size_t *n, size_t *cap, uint64_t lblk, uint64_t end,
		    bool unwritten)
{
	struct ek_ext *last = *n ? &(*v)[*n - 1] : NULL;

	if (last && (uint64_t)last->lblk + last->len > lblk) {
		if (last->unwritten && !unwritten) {
			last->len = (uint32_t)(lblk - last->lblk);	/* this one takes it */
			if (!last->len)
				(*n)--;
			last = *n ? &(*v)[*n - 1] : NULL;
		} else {
			lblk = (uint64_t)last->lblk + last->len;
		}
	}
	if (lblk >= end)
		return 0;
	if (last && (uint64_t)last->lblk + last->len == lblk && last->unwritten == unwritten) {
		last->len = (uint32_t)(end - last->lblk);
		return 0;
	}
	return ek_ext_append(v, n, cap, &(struct ek_ext){ .lblk = (uint32_t)lblk,
							  .len = (uint32_t)(end - lblk),
							  .unwritten = unwritten });
}

/* the blocks of the file that hold data: SEEK_DATA/SEEK_HOLE, else all of them */
static int seek_runs(struct pop *p, int fd, uint64_t size, struct ek_ext **v, size_t *n,
		     size_t *cap)
{
	uint32_t bs = p->fs->blksz;
	uint64_t nblocks = (size + bs - 1) / bs, pos = 0;
	int err = 0;

	while (pos < size && !err) {
		off_t d = lseek(fd, (off_t)pos, SEEK_DATA), h;

		if (d < 0) {
			if (errno == ENXIO)
				break;	/* a hole to the end */
			err = push_run(v, n, cap, pos / bs, nblocks, false);	/* no SEEK_DATA here */
			break;
		}
		h = lseek(fd, d, SEEK_HOLE);
		if (h < 0 || (uint64_t)h > size)
			h = (off_t)size;
		if (h <= d)
			break;
		err = push_run(v, n, cap, (uint64_t)d / bs, ((uint64_t)h + bs - 1) / bs, false);
		pos = (uint64_t)h;
	}
	return err;
}

/*
 * An unwritten extent of the source inside its size: blocks of it that
 * read as zeros stay unwritten, any other (written since FIEMAP looked)
 * is data.  Reading an unwritten extent costs no disk I/O.
 */
static int push_unwritten(struct pop *p, int fd, uint64_t size, uint64_t lblk, uint64_t end,
			  struct ek_ext **v, size_t *n, size_t *cap)
{
	uint32_t bs = p->fs->blksz;
	uint64_t per = COPY_CHUNK / bs;
	int err = 0;

	for (uint64_t b = lblk; b < end && !err; b += per) {
		uint64_t cnt = end - b < per ? end - b : per, got = 0, want = cnt * bs;

		if (b * bs + want > size)
			want = size - b * bs;
		while (got < want) {
			ssize_t r = pread(fd, p->buf + got, want - got, (off_t)(b * bs + got));

			if (r < 0 && errno == EINTR)
				continue;
			if (r < 0)
				return ek_err(-errno, "cannot read '%s': %s", p->path, strerror(errno));
			if (r == 0)
				break;
			got += (uint64_t)r;
		}
		memset(p->buf + got, 0, cnt * bs - got);
		for (uint64_t k = 0; k < cnt && !err; k++)
			err = push_run(v, n, cap, b + k, b + k + 1, all_zero(p->buf + k * bs, bs));
	}
	return err;
}

#define FIEMAP_BATCH 256	/* extents asked for per FS_IOC_FIEMAP */

/*
 * The source's extents by FIEMAP (synced first, so delayed allocation is
 * placed): written ones as data, unwritten ones (fallocate) as unwritten
 * runs, and preallocation past the size as unwritten runs too.  Without
 * the extent feature neither kind exists: unwritten blocks inside the
 * size become zero-filled data blocks and those past it are left out.
 * 1: FIEMAP cannot tell (not supported), the caller seeks instead.
 */
static int fiemap_runs(struct pop *p, int fd, uint64_t size, struct ek_ext **v, size_t *n,
		       size_t *cap)
{
	uint32_t bs = p->fs->blksz;
	bool extents = ek_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_EXTENTS);
	/* the logical blocks an extent tree maps: 2^32 - 1, ext4's EXT_MAX_BLOCKS */
	uint64_t eof = (size + bs - 1) / bs, limit = 0xFFFFFFFFull;
	struct fiemap *fm = ek_calloc(1, sizeof(*fm) + FIEMAP_BATCH * sizeof(struct fiemap_extent));
	uint64_t start = 0;
	bool last = false, any = false;
	int err = 0;

	if (!fm)
		return -ENOMEM;
	while (!last && !err) {
		fm->fm_start = start;
		fm->fm_length = FIEMAP_MAX_OFFSET - start;
		fm->fm_flags = FIEMAP_FLAG_SYNC;
		fm->fm_extent_count = FIEMAP_BATCH;
		fm->fm_mapped_extents = 0;
		if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
			err = any ? ek_err(-errno, "cannot map '%s' (FIEMAP): %s", p->path,
					   strerror(errno)) : 1;
			break;
		}
		if (!fm->fm_mapped_extents)
			break;
		for (uint32_t i = 0; i < fm->fm_mapped_extents && !err; i++) {
			const struct fiemap_extent *x = &fm->fm_extents[i];
			uint64_t lo = x->fe_logical / bs, hi, in, end = x->fe_logical + x->fe_length;
			bool unwritten = x->fe_flags & FIEMAP_EXTENT_UNWRITTEN;

			p->prealloc |= unwritten;

			if (x->fe_flags & FIEMAP_EXTENT_LAST)
				last = true;
			if (end <= start || end < x->fe_logical) {	/* no progress: stop */
				last = true;
				break;
			}
			start = end;
			any = true;
			hi = (end + bs - 1) / bs;
			in = hi < eof ? hi : eof;
			if (!unwritten) {
				/* data; a source block reaching past the size is no preallocation */
				if (lo < in)
					err = push_run(v, n, cap, lo, in, false);
				continue;
			}
			/* inside the size: checked; data without extents */
			if (lo < in)
				err = extents ? push_unwritten(p, fd, size, lo, in, v, n, cap)
					      : push_run(v, n, cap, lo, in, false);
			/* past the size (fallocate --keep-size): kept with extents */
			if (lo < eof)
				lo = eof;
			if (hi > limit)
				hi = limit;
			if (!err && extents && lo < hi)
				err = push_run(v, n, cap, lo, hi, true);
		}
	}
	free(fm);
	if (!err && !any && size)
		err = 1;	/* FIEMAP saw nothing in a file with a size: let SEEK_DATA look */
	return err;
}

/*
 * The runs of the file to allocate: FIEMAP's extents; without FIEMAP
 * every block of a file with no fewer bytes allocated than its size,
 * else SEEK_DATA / SEEK_HOLE's data, else every block (see the file
 * header).
 */
static int data_runs(struct pop *p, int fd, const struct stat *s, struct ek_ext **out,
		     size_t *nout)
{
	uint32_t bs = p->fs->blksz;
	uint64_t size = (uint64_t)s->st_size, nblocks = (size + bs - 1) / bs;
	struct ek_ext *v = NULL;
	size_t n = 0, cap = 0;
	int err;

	if (nblocks > 0xFFFFFFFFull)
		return ek_err(-EFBIG, "'%s' has %llu blocks, more than a file can map", p->path,
			      (unsigned long long)nblocks);
	p->prealloc = false;
	err = s->st_blocks ? fiemap_runs(p, fd, size, &v, &n, &cap) : 1;
	n = err == 1 ? 0 : n;
	if (err == 1 && size && (uint64_t)s->st_blocks * 512 >= size) {
		/*
		 * no FIEMAP, and as many bytes allocated as the size: no holes,
		 * though SEEK_DATA may call fallocated space one (tmpfs does);
		 * taken as preallocated, zeros and all
		 */
		err = push_run(&v, &n, &cap, 0, nblocks, false);
		p->prealloc = true;
	} else if (err == 1)	/* sparse, or nothing allocated: seek */
		err = seek_runs(p, fd, size, &v, &n, &cap);
	if (err) {
		free(v);
		return err;
	}
	*out = v;
	*nout = n;
	return 0;
}

/* *out: the file has fallocated space that stays (unwritten runs) */
static int has_unwritten(struct pop *p, int fd, const struct stat *s, bool *out)
{
	struct ek_ext *runs = NULL;
	size_t n = 0;
	int err = data_runs(p, fd, s, &runs, &n);

	*out = false;
	for (size_t i = 0; i < n && !err; i++)
		*out |= runs[i].unwritten;
	free(runs);
	return err;
}

/* read [off, off + want) of the file into @buf, zeros past its end */
static int read_at(struct pop *p, int fd, uint8_t *buf, uint64_t off, uint64_t want)
{
	uint64_t got = 0;

	while (got < want) {
		ssize_t r = pread(fd, buf + got, want - got, (off_t)(off + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return ek_err(-errno, "cannot read '%s': %s", p->path, strerror(errno));
		if (r == 0)
			break;	/* the file shrank: zeros */
		got += (uint64_t)r;
	}
	memset(buf + got, 0, want - got);
	return 0;
}

/*
 * The data runs without their blocks of zeros, which become holes as
 * mke2fs -d leaves them (unwritten runs stay).  *whole: the file's bytes
 * are all in p->buf at their offsets (it fits COPY_CHUNK), so the copy
 * need not read them again.
 */
static int drop_zero_blocks(struct pop *p, int fd, uint64_t size, struct ek_ext **runs,
			    size_t *nruns, bool *whole)
{
	uint32_t bs = p->fs->blksz;
	uint64_t per = COPY_CHUNK / bs, nblocks = (size + bs - 1) / bs;
	struct ek_ext *in = *runs, *v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	*whole = nblocks <= per;
	for (size_t i = 0; i < *nruns && !err; i++) {
		if (in[i].unwritten) {
			err = ek_ext_append(&v, &n, &cap, &in[i]);
			continue;
		}
		for (uint64_t k = 0; k < in[i].len && !err; k += per) {
			uint64_t b = (uint64_t)in[i].lblk + k, cnt = in[i].len - k < per ? in[i].len - k : per;
			uint8_t *buf = *whole ? p->buf + b * bs : p->buf;

			if (*whole && b + cnt > per)	/* preallocation past the size: not read */
				cnt = b < per ? per - b : 0;
			err = read_at(p, fd, buf, b * bs, cnt * bs);
			for (uint64_t j = 0; j < cnt && !err; j++)
				if (!all_zero(buf + j * bs, bs))
					err = push_run(&v, &n, &cap, b + j, b + j + 1, false);
		}
	}
	free(in);
	*runs = v;
	*nruns = err ? 0 : n;
	return err;
}

/*
 * @inline_ok (inline_data): the file starts inline, as mke2fs -d makes
 * every file; *nothing is then set, and nothing mapped, when no block of
 * it is data (empty, holes, zeros) and i_block holds its size, for the
 * caller to leave it inline; else its blocks, block 0 among them (the
 * inline data moved out to it before the first write: zeros).
 */
static int copy_file(struct pop *p, int fd, ek_ino_t ino, uint8_t *raw, const struct stat *s,
		     bool inline_ok, bool *nothing)
{
	uint32_t bs = p->fs->blksz;
	uint64_t size = (uint64_t)s->st_size;
	struct ek_ext *runs = NULL, *v = NULL;
	size_t nruns = 0, nv = 0;
	bool whole = false;
	int err = data_runs(p, fd, s, &runs, &nruns);

	*nothing = false;
	if (!err && !p->prealloc)	/* a fallocated file keeps its blocks (a swap file) */
		err = drop_zero_blocks(p, fd, size, &runs, &nruns, &whole);
	/*
	 * not past i_block: mke2fs leaves a bigger file with no data inline
	 * too, with an empty system.data under a size it does not hold, which
	 * the kernel's SEEK_HOLE answers with ENOENT and debugfs dumps short:
	 * not followed
	 */
	if (!err && inline_ok && !p->prealloc && !nruns && size <= EXT4_N_BLOCKS * 4) {
		*nothing = true;
		free(runs);
		return 0;
	}
	if (!err && inline_ok && !p->prealloc && nruns && (runs[0].lblk || runs[0].unwritten)) {
		struct ek_ext *w = NULL;
		size_t nw = 0, cap = 0;

		err = push_run(&w, &nw, &cap, 0, 1, false);
		for (size_t i = 0; i < nruns && !err; i++)
			err = push_run(&w, &nw, &cap, runs[i].lblk, (uint64_t)runs[i].lblk + runs[i].len,
				       runs[i].unwritten);
		free(runs);
		runs = w;
		nruns = err ? 0 : nw;
		if (whole)
			memset(p->buf, 0, bs);
	}
	if (!err && nruns)
		err = ek_newfs_map(p->nf, ino, raw, runs, nruns, 0, 0, &v, &nv);
	/* libext2fs grows a file's tree an extent at a time: stale root slots, as its */
	if (!err && nruns && ek_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		ek_extent_root_grown(raw, v, nv);
	else if (!err && ek_has_incompat(p->fs, EXT4_FEATURE_INCOMPAT_EXTENTS))
		err = ek_newfs_map(p->nf, ino, raw, NULL, 0, 0, 0, &v, &nv);	/* an empty tree */
	for (size_t i = 0; i < nv && !err; i++) {
		uint64_t per = COPY_CHUNK / bs;

		if (v[i].unwritten)
			continue;	/* reads as zeros: nothing to copy */

		for (uint64_t k = 0; k < v[i].len && !err; k += per) {
			uint64_t cnt = v[i].len - k < per ? v[i].len - k : per;
			uint64_t off = ((uint64_t)v[i].lblk + k) * bs;

			if (whole) {	/* read already, at its offset */
				err = ek_newfs_write(p->nf, v[i].pblk + k, p->buf + off, cnt);
				continue;
			}
			err = read_at(p, fd, p->buf, off, cnt * bs);
			if (!err)
				err = ek_newfs_write(p->nf, v[i].pblk + k, p->buf, cnt);
		}
	}
	if (!err) {
		ek_newfs_inode_set_size(p->nf, raw, size);
		p->st->bytes += size;
	}
	free(runs);
	free(v);
	return err;
}

/* ---- symlinks and devices ------------------------------------------------------------------ */

/*
 * *xattrs_done: the xattrs are stored (with the target inline: inline_data
 * keeps a target too long for i_block there, as ext2fs_symlink() does)
 */
static int copy_symlink(struct pop *p, ek_ino_t ino, uint8_t *raw, bool *xattrs_done)
{
	char target[PATH_MAX + 1];
	ssize_t len = readlink(p->path, target, sizeof(target) - 1);
	struct ek_ext run = { .lblk = 0, .len = 1 }, *v = NULL;
	size_t nv;
	int err;

	if (len < 0)
		return ek_err(-errno, "cannot read the symlink '%s': %s", p->path, strerror(errno));
	if ((size_t)len >= p->fs->blksz)
		return ek_err(-ENAMETOOLONG, "the target of '%s' is %zd bytes, more than a %u-byte "
			      "block holds: use a larger -b", p->path, len, p->fs->blksz);
	ek_newfs_inode_set_size(p->nf, raw, (uint64_t)len);
	*xattrs_done = false;
	if (len < EXT4_N_BLOCKS * 4) {	/* fast: the target in i_block */
		memcpy(raw + offsetof(struct ext4_inode, i_block), target, (size_t)len);
		return 0;
	}
	if (has_inline(p)) {
		struct xlist l;

		err = xlist_read(p, &l);
		if (!err)
			err = xlist_store(p, ino, raw, &l, target + EXT4_N_BLOCKS * 4,
					  (size_t)len - EXT4_N_BLOCKS * 4, true);
		xlist_release(&l);
		if (!err) {
			memcpy(raw + offsetof(struct ext4_inode, i_block), target, EXT4_N_BLOCKS * 4);
			set_flag(raw, EXT4_INLINE_DATA_FL);
			*xattrs_done = true;
			return 0;
		}
		if (err != -ENOSPC)
			return err;
	}
	err = ek_newfs_map(p->nf, ino, raw, &run, 1, 0, 0, &v, &nv);
	if (!err) {
		memset(p->buf, 0, p->fs->blksz);
		memcpy(p->buf, target, (size_t)len);
		err = ek_newfs_write(p->nf, v[0].pblk, p->buf, 1);
	}
	free(v);
	return err;
}

/* the kernel's old (8:8) and new (12:20) device number encodings in i_block */
static void set_rdev(uint8_t *raw, dev_t rdev)
{
	uint32_t ma = major(rdev), mi = minor(rdev);
	uint8_t *ib = raw + offsetof(struct ext4_inode, i_block);

	if (ma < 256 && mi < 256) {
		put_le32(ib, (ma << 8) | mi);
	} else {
		put_le32(ib, 0);
		put_le32(ib + 4, (mi & 0xFF) | (ma << 8) | ((mi & ~0xFFu) << 12));
	}
}

/* ---- the walk ------------------------------------------------------------------------------- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names in directory @path, sorted bytewise; *out freed by the caller (each, then it) */
static int read_names(struct pop *p, char ***out, size_t *nout)
{
	int fd = open(p->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOATIME);
	DIR *d;
	struct dirent *de;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int err = 0;

	if (fd < 0 && errno == EPERM)	/* O_NOATIME: only for the owner or root */
		fd = open(p->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		return ek_err(-e, "cannot open the directory '%s': %s", p->path, strerror(e));
	}
	errno = 0;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (ek_grow(&v, &cap, n + 1, sizeof(*v))) {
			err = -ENOMEM;
			break;
		}
		if (!(v[n] = strdup(de->d_name))) {
			err = -ENOMEM;
			break;
		}
		n++;
		errno = 0;
	}
	if (!err && errno)
		err = ek_err(-errno, "cannot read the directory '%s': %s", p->path, strerror(errno));
	closedir(d);
	if (err) {
		for (size_t i = 0; i < n; i++)
			free(v[i]);
		free(v);
		return err;
	}
	if (n)	/* an empty directory: v is NULL, which qsort() must not get */
		qsort(v, n, sizeof(*v), cmp_name);
	*out = v;
	*nout = n;
	return 0;
}

/*
 * Inode @ino in memory.  The pointer dies at the next ek_newfs_inode_new()
 * (inode tables left behind are written out then): fetch it again after
 * creating inodes, never keep it across a subdirectory's copy.
 */
static int inode_get(struct pop *p, ek_ino_t ino, uint8_t **out)
{
	*out = ek_newfs_inode(p->nf, ino);
	if (!*out)
		return ek_err(-EIO, "cannot read inode %llu back", (unsigned long long)ino);
	return 0;
}

static int copy_dir(struct pop *p, ek_ino_t dir, ek_ino_t parent, int depth, ek_blk_t blk0);

/*
 * @de linked into the directory being grown (@ld; NULL: built after its
 * children, ek_dir_build), as mke2fs links it: once its inode has a
 * number, before its blocks are taken (a new directory or slow symlink
 * takes its block first in mke2fs, and gives it back to expand the parent
 * when the name does not fit: the same blocks in the end)
 */
static int link_entry(struct ek_newfs_ldir *ld, const struct ek_dirent_new *de)
{
	return ld ? ek_newfs_ldir_add(ld, de->name, de->name_len, de->ino, de->file_type) : 0;
}

/* one entry @name of the directory at p->path: its inode, made and filled */
static int copy_entry(struct pop *p, ek_ino_t dir, struct ek_newfs_ldir *ld, const char *name,
		      struct ek_dirent_new *de, bool *skip)
{
	size_t plen = strlen(p->path), nlen = strlen(name);
	struct stat s;
	struct hardlink *hl;
	bool xattrs_done = false;
	ek_ino_t ino;
	uint8_t *raw;
	int fd = -1, err = 0;

	*skip = false;
	if (nlen > 255)
		return ek_err(-ENAMETOOLONG, "'%s/%s': a name longer than 255 bytes", p->path, name);
	if (plen + 1 + nlen >= sizeof(p->path))
		return ek_err(-ENAMETOOLONG, "'%s/%s': path too long", p->path, name);
	p->path[plen] = '/';
	memcpy(p->path + plen + 1, name, nlen + 1);
	if (lstat(p->path, &s)) {
		err = ek_err(-errno, "cannot stat '%s': %s", p->path, strerror(errno));
		goto out;
	}
	/* whatever its type: a second root entry of that name would be a duplicate */
	if (dir == EXT4_ROOT_INO && !strcmp(name, "lost+found")) {
		warn(p, "'%s' is left out: the filesystem has its own lost+found", p->path);
		*skip = true;
		goto out;
	}
	de->file_type = file_type(s.st_mode);
	de->name_len = (uint8_t)nlen;
	if (!S_ISDIR(s.st_mode) && s.st_nlink > 1 && (hl = link_find(p, s.st_dev, s.st_ino))) {
		uint8_t *r;
		uint16_t links;

		if ((err = inode_get(p, hl->ino, &r)))
			goto out;
		links = get_le16(r + offsetof(struct ext4_inode, i_links_count));
		if (links >= EXT4_LINK_MAX) {
			err = ek_err(-EMLINK, "'%s': more than %d links", p->path, EXT4_LINK_MAX);
			goto out;
		}
		put_le16(r + offsetof(struct ext4_inode, i_links_count), links + 1);
		de->ino = hl->ino;
		p->st->hardlinks++;
		err = link_entry(ld, de);
		goto out;
	}
	if (S_ISREG(s.st_mode)) {
		/* no atime update: copying must not change the next run's source */
		fd = open(p->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME);
		if (fd < 0 && errno == EPERM)
			fd = open(p->path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			if (p->o->skip_unreadable) {
				warn(p, "'%s' is left out: %s", p->path, strerror(errno));
				p->st->skipped++;
				*skip = true;
				goto out;
			}
			err = ek_err(-errno, "cannot read '%s': %s", p->path, strerror(errno));
			goto out;
		}
	} else if (S_ISDIR(s.st_mode) && access(p->path, R_OK | X_OK)) {
		if (p->o->skip_unreadable) {
			warn(p, "'%s' is left out: %s", p->path, strerror(errno));
			p->st->skipped++;
			*skip = true;
			goto out;
		}
		err = ek_err(-errno, "cannot read the directory '%s': %s", p->path, strerror(errno));
		goto out;
	}
	if ((err = ek_newfs_inode_new(p->nf, (uint16_t)s.st_mode, &ino, &raw)))
		goto out;
	if (p->o->progress)
		p->o->progress(p->o->progress_arg, ++p->made, p->o->progress_total);
	set_attrs(p, raw, &s);
	de->ino = ino;
	if ((err = link_entry(ld, de)))
		goto out;
	/* a directory's xattrs are stored with its entries (copy_dir: maybe inline) */
	if (S_ISREG(s.st_mode) && has_inline(p)) {
		struct xlist l;
		bool done = false, prealloc = false;

		err = xlist_read(p, &l);
		/* fallocated space is kept in blocks: an inline file has none */
		if (!err && s.st_blocks && (uint64_t)s.st_size <= p->fs->inode_size)
			err = has_unwritten(p, fd, &s, &prealloc);
		if (!err && !prealloc)
			err = copy_inline_file(p, fd, ino, raw, (uint64_t)s.st_size, &l, &done);
		if (!err && !done) {
			bool nothing;

			err = copy_file(p, fd, ino, raw, &s, !prealloc, &nothing);
			if (!err && nothing) {
				/* nothing written: inline still, with its size (as mke2fs) */
				err = xlist_store(p, ino, raw, &l, NULL, 0, true);
				if (!err) {
					set_flag(raw, EXT4_INLINE_DATA_FL);
					ek_newfs_inode_set_size(p->nf, raw, (uint64_t)s.st_size);
					p->st->bytes += (uint64_t)s.st_size;
				} else if (err == -ENOSPC) {	/* no room for system.data */
					err = copy_file(p, fd, ino, raw, &s, false, &nothing);
					nothing = false;
				}
			}
			/*
			 * moved out of the inode: mke2fs's inline start leaves an
			 * empty in-inode xattr area behind (as in lost+found)
			 */
			if (!err && !nothing && p->fs->inode_size >= EXT4_GOOD_OLD_INODE_SIZE + 32 + 4)
				put_le32(raw + EXT4_GOOD_OLD_INODE_SIZE + 32, EXT4_XATTR_MAGIC);
			/* after the data, as mke2fs sets them */
			if (!err && !nothing)
				err = xlist_store(p, ino, raw, &l, NULL, 0, false);
		}
		xlist_release(&l);
		if (err)
			goto out;
		p->st->files++;
		goto links;
	}
	switch (s.st_mode & S_IFMT) {
	case S_IFREG: {
		bool nothing;

		err = copy_file(p, fd, ino, raw, &s, false, &nothing);
		p->st->files++;
		break;
	}
	case S_IFDIR: {
		uint8_t *dir_raw;
		uint16_t links;
		ek_blk_t blk0 = 0;

		put_le16(raw + offsetof(struct ext4_inode, i_links_count), 2);
		if ((err = inode_get(p, dir, &dir_raw)))	/* after this inode_new */
			break;
		links = get_le16(dir_raw + offsetof(struct ext4_inode, i_links_count));
		/*
		 * as the kernel's ext4_inc_count(): with dir_nlink a count past
		 * EXT4_LINK_MAX becomes 1 and stays 1 (e2fsck pass 4 agrees)
		 */
		if (links == 1 || links >= EXT4_LINK_MAX) {
			if (!ek_has_ro_compat(p->fs, EXT4_FEATURE_RO_COMPAT_DIR_NLINK)) {
				err = ek_err(-EMLINK, "'%s': more than %d subdirectories", p->path,
					     EXT4_LINK_MAX - 2);
				break;
			}
			links = 1;
		} else {
			links++;
		}
		put_le16(dir_raw + offsetof(struct ext4_inode, i_links_count), links);
		/* its first block now, before its children's, as mke2fs (not inline) */
		if (!has_inline(p) && (err = ek_newfs_dir_begin(p->nf, ino, &blk0)))
			break;
		err = copy_dir(p, ino, dir, p->depth + 1, blk0);	/* raw dies here */
		p->st->dirs++;
		break;
	}
	case S_IFLNK:
		err = copy_symlink(p, ino, raw, &xattrs_done);
		p->st->symlinks++;
		break;
	case S_IFCHR:
	case S_IFBLK:
		set_rdev(raw, s.st_rdev);
		p->st->specials++;
		break;
	default:	/* fifos and sockets: nothing but the inode */
		p->st->specials++;
		break;
	}
	/* xattrs after the data, as mke2fs sets them (a directory's: copy_dir) */
	if (!err && !S_ISDIR(s.st_mode) && !xattrs_done)
		err = copy_xattrs(p, ino, raw);
links:
	/* every kind but directories can have more names (symlinks too, as mke2fs) */
	if (!err && !S_ISDIR(s.st_mode) && s.st_nlink > 1)
		err = link_add(p, s.st_dev, s.st_ino, ino);
out:
	if (fd >= 0)
		close(fd);
	p->path[plen] = '\0';
	return err;
}

/*
 * A directory's entries and its xattrs (p->path is the directory), set
 * after its children as mke2fs sets them.  Grown linear (@ld): inline
 * still, with an empty system.data; else its blocks, and when it started
 * inline the empty in-inode xattr area system.data leaves (as a file's).
 * Built after its children (-E htree_dirs): inline with inline_data when
 * the entries fit i_block and system.data in the inode body, as the
 * kernel keeps small directories; else in blocks, an htree past one.
 */
static int store_dir(struct pop *p, ek_ino_t dir, uint8_t *raw, ek_ino_t parent,
		     struct ek_newfs_ldir *ld, struct ek_dirent_new *ents, size_t n, ek_blk_t blk0)
{
	struct xlist l;
	uint8_t iblock[EXT4_N_BLOCKS * 4], *xval = NULL;
	uint32_t xlen = 0;
	int err = xlist_read(p, &l);

	if (!err && ld) {
		bool inl = ek_newfs_ldir_inline(ld);

		if (!inl && has_inline(p) && dir != EXT4_ROOT_INO &&
		    p->fs->inode_size >= EXT4_GOOD_OLD_INODE_SIZE + 32 + 4)
			put_le32(raw + EXT4_GOOD_OLD_INODE_SIZE + 32, EXT4_XATTR_MAGIC);
		err = xlist_store(p, dir, raw, &l, NULL, 0, inl);
		if (!err)
			err = ek_newfs_ldir_finish(ld, raw);
		goto out;
	}
	if (!err && has_inline(p) && dir != EXT4_ROOT_INO) {
		err = ek_dir_build_inline(p->fs, parent, ents, n, p->fs->inode_size, iblock, &xval,
					  &xlen);
		if (!err)
			err = xlist_store(p, dir, raw, &l, xval, xlen, true);
		free(xval);
		if (!err) {
			memcpy(raw + offsetof(struct ext4_inode, i_block), iblock, sizeof(iblock));
			set_flag(raw, EXT4_INLINE_DATA_FL);
			ek_newfs_inode_set_size(p->nf, raw, sizeof(iblock) + xlen);
			goto out;
		}
		if (err != -ENOSPC)
			goto out;
		err = 0;	/* too big for the inode: blocks */
	}
	if (!err)
		err = xlist_store(p, dir, raw, &l, NULL, 0, false);
	if (!err)
		err = ek_newfs_dir_write(p->nf, dir, raw, parent, ents, n, blk0);
out:
	xlist_release(&l);
	return err;
}

static int copy_dir(struct pop *p, ek_ino_t dir, ek_ino_t parent, int depth, ek_blk_t blk0)
{
	uint8_t *dir_raw;
	char **names = NULL;
	struct ek_dirent_new *ents = NULL;
	struct ek_newfs_ldir *ld = NULL;
	size_t n = 0, k = 0, extra = dir == EXT4_ROOT_INO;
	int outer = p->depth, err;

	if (depth > MAX_DEPTH)
		return ek_err(-ELOOP, "'%s': directories nested over %d deep", p->path, MAX_DEPTH);
	if ((err = read_names(p, &names, &n)))
		return err;
	p->depth = depth;
	/* grown linear as its children are made (mke2fs's layout), or built after them */
	if (!p->o->htree_dirs && (err = ek_newfs_ldir_begin(p->nf, dir, parent, blk0, &ld)))
		goto out;
	/* a grown one keeps a name per entry only as long as the entry is made */
	ents = ek_calloc(ld ? 1 + extra : n + extra, sizeof(*ents));
	if (!ents) {
		err = -ENOMEM;
		goto out;
	}
	if (extra) {	/* the root keeps lost+found */
		ents[0] = (struct ek_dirent_new){ .name = "lost+found", .name_len = 10,
						  .file_type = EXT4_FT_DIR, .ino = 11 };
		if (ld)
			err = link_entry(ld, &ents[0]);
		else
			k++;
	}
	for (size_t i = 0; i < n && !err; i++) {
		bool skip;

		ents[k].name = names[i];
		err = copy_entry(p, dir, ld, names[i], &ents[k], &skip);
		if (!err && !skip && !ld)
			k++;
	}
	if (!err)
		err = inode_get(p, dir, &dir_raw);	/* its children moved the tables on */
	if (!err)
		err = store_dir(p, dir, dir_raw, parent, ld, ents, k, blk0);
out:
	p->depth = outer;	/* the parent's depth again, for the next sibling */
	ek_newfs_ldir_free(ld);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(ents);
	return err;
}

/* ---- what a tree needs -------------------------------------------------------------------- */

struct linked {
	dev_t dev;
	ino_t sino;
	uint64_t blocks;
};

static struct measure {		/* nftw has no argument */
	const struct ek_fs *fs;
	struct ek_populate_need *need;
	struct linked *links;
	size_t nlinks, cap;
	int err;
} *meas;

/* the fewest blocks @s can take in the image (inline, holes, blocks of ours) */
static uint64_t least_blocks(const struct ek_fs *fs, const struct stat *s)
{
	uint64_t bs = fs->blksz, ratio = ek_cluster_ratio(fs), b = 0;
	bool inl = ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_INLINE_DATA) &&
		   fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE;
	uint64_t size = s->st_size > 0 ? (uint64_t)s->st_size : 0;

	if (S_ISREG(s->st_mode) && !(inl && size <= fs->inode_size)) {
		uint64_t held = (uint64_t)s->st_blocks * 512 / bs, in = (size + bs - 1) / bs;

		b = held < in ? held : in;
	} else if (S_ISDIR(s->st_mode) && !inl) {
		b = 1;
	} else if (S_ISLNK(s->st_mode) && size >= EXT4_N_BLOCKS * 4 && !inl) {
		b = 1;
	}
	return (b + ratio - 1) / ratio * ratio;	/* bigalloc: whole clusters */
}

static int measure_one(const char *path, const struct stat *s, int flag, struct FTW *f)
{
	struct measure *m = meas;
	uint64_t b;

	if (f->level == 0)
		return FTW_CONTINUE;	/* the root is there already */
	if (f->level == 1 && !strcmp(path + f->base, "lost+found"))
		return flag == FTW_D ? FTW_SKIP_SUBTREE : FTW_CONTINUE;	/* left out */
	if (flag == FTW_NS)
		return FTW_CONTINUE;	/* the copy says why */
	b = least_blocks(m->fs, s);
	if (!S_ISDIR(s->st_mode) && s->st_nlink > 1) {
		/* counted once, after the walk */
		if (ek_grow(&m->links, &m->cap, m->nlinks + 1, sizeof(*m->links))) {
			m->err = -ENOMEM;
			return FTW_STOP;
		}
		m->links[m->nlinks++] = (struct linked){ .dev = s->st_dev, .sino = s->st_ino,
							 .blocks = b };
		return FTW_CONTINUE;
	}
	m->need->inodes++;
	m->need->blocks += b;
	return FTW_CONTINUE;
}

static int cmp_linked(const void *a, const void *b)
{
	const struct linked *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->sino < y->sino ? -1 : x->sino > y->sino;
}

int ek_populate_measure(struct ek_newfs *nf, const char *dir, struct ek_populate_need *out)
{
	struct measure m = { .fs = ek_newfs_fs(nf), .need = out };
	int rc;

	memset(out, 0, sizeof(*out));
	meas = &m;
	rc = nftw(dir, measure_one, 64, FTW_PHYS | FTW_ACTIONRETVAL);
	meas = NULL;
	if (!m.err && rc == -1)
		m.err = ek_err(-errno, "cannot walk '%s': %s", dir, strerror(errno));
	if (!m.err && m.nlinks) {
		qsort(m.links, m.nlinks, sizeof(*m.links), cmp_linked);
		for (size_t i = 0; i < m.nlinks; i++)
			if (!i || cmp_linked(&m.links[i - 1], &m.links[i])) {
				out->inodes++;
				out->blocks += m.links[i].blocks;
			}
	}
	free(m.links);
	return m.err;
}

/* the filesystem filled up: say how much the source holds and what there was */
static int too_big(struct pop *p, const char *dir, int err)
{
	struct ek_populate_need need;
	uint64_t bs = p->fs->blksz;

	if (ek_populate_measure(p->nf, dir, &need))
		return err;
	return ek_err(-ENOSPC, "the filesystem is full: '%s' needs more than the %llu KiB free "
		      "after the filesystem's own metadata (file data at least %llu KiB, then "
		      "directories and block maps); give a larger size", dir,
		      (unsigned long long)(p->free_before * bs >> 10),
		      (unsigned long long)(need.blocks * bs >> 10));
}

int ek_populate(struct ek_newfs *nf, const char *dir, const struct ek_populate_opts *o,
		struct ek_populate_stats *st)
{
	struct pop p = { .nf = nf, .fs = ek_newfs_fs(nf), .o = o, .st = st };
	ek_blk_t blk0;
	struct stat s;
	int err;

	if (strlen(dir) >= sizeof(p.path))
		return ek_err(-ENAMETOOLONG, "'%s': path too long", dir);
	if (stat(dir, &s))
		return ek_err(-errno, "cannot stat '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(s.st_mode))
		return ek_err(-ENOTDIR, "'%s' is not a directory", dir);
	strcpy(p.path, dir);
	while (strlen(p.path) > 1 && p.path[strlen(p.path) - 1] == '/')
		p.path[strlen(p.path) - 1] = '\0';
	p.buf = ek_malloc(COPY_CHUNK);
	if (!p.buf)
		return -ENOMEM;
	p.free_before = ek_newfs_free_blocks(nf);
	/* the root keeps mkfs's mode, owner and times but takes the xattrs, as mke2fs */
	err = ek_newfs_dir_begin(nf, EXT4_ROOT_INO, &blk0);
	if (!err)
		err = copy_dir(&p, EXT4_ROOT_INO, EXT4_ROOT_INO, 0, blk0);
	if (err == -ENOSPC && !ek_newfs_free_inodes(nf))
		err = ek_err(-ENOSPC, "'%s' has more files than the filesystem has inodes", p.path);
	else if (err == -ENOSPC)
		err = too_big(&p, p.path, err);
	free(p.buf);
	free(p.links);
	return err;
}
