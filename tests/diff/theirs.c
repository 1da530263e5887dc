// SPDX-License-Identifier: MIT
/*
 * theirs.c - the libext2fs half of the differential test (e2diff.c): what
 * e2fsprogs' library reads from an image, in e2diff.h's neutral records.
 * Only this file includes <ext2fs/ext2fs.h>; only the test program links
 * -lext2fs.  Times are decoded from the raw fields by the kernel's rules
 * (Documentation/filesystems/ext4/inodes.rst): libext2fs 1.47.0 has no
 * accessor for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ext2fs/ext2fs.h>
#include <et/com_err.h>
#include "e2diff.h"

struct theirs {
	ext2_filsys fs;
	errcode_t bitmap_err;
	char bitmap_msg[200];
};

static void set_err(char *err, size_t errlen, const char *what, errcode_t e)
{
	snprintf(err, errlen, "%s: %s", what, error_message(e));
}

int theirs_open(const char *path, struct theirs **out, char *err, size_t errlen)
{
	struct theirs *t = calloc(1, sizeof(*t));
	errcode_t e;

	if (!t) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	initialize_ext2_error_table();
	e = ext2fs_open2(path, NULL, EXT2_FLAG_64BITS | EXT2_FLAG_IGNORE_CSUM_ERRORS, 0, 0,
			 unix_io_manager, &t->fs);
	if (e) {
		set_err(err, errlen, "ext2fs_open2", e);
		free(t);
		return -1;
	}
	t->bitmap_err = ext2fs_read_bitmaps(t->fs);
	if (t->bitmap_err)
		set_err(t->bitmap_msg, sizeof(t->bitmap_msg), "ext2fs_read_bitmaps", t->bitmap_err);
	*out = t;
	return 0;
}

void theirs_close(struct theirs *t)
{
	if (!t)
		return;
	ext2fs_close_free(&t->fs);
	free(t);
}

uint32_t theirs_inodes_count(const struct theirs *t)
{
	return t->fs->super->s_inodes_count;
}

uint64_t theirs_blocks_count(const struct theirs *t)
{
	return ext2fs_blocks_count(t->fs->super);
}

const char *theirs_bitmap_error(const struct theirs *t)
{
	return t->bitmap_err ? t->bitmap_msg : NULL;
}

int theirs_inode_used(struct theirs *t, uint32_t ino)
{
	if (t->bitmap_err || !t->fs->inode_map)
		return -1;
	return !!ext2fs_test_inode_bitmap2(t->fs->inode_map, ino);
}

int theirs_block_used(struct theirs *t, uint64_t blk)
{
	if (t->bitmap_err || !t->fs->block_map)
		return -1;
	return !!ext2fs_test_block_bitmap2(t->fs->block_map, blk);
}

/* does the 4-byte field at @off lie inside the inode's extra space? */
static bool has_field(ext2_filsys fs, const struct ext2_inode_large *in, size_t off)
{
	size_t isz = EXT2_INODE_SIZE(fs->super);

	return isz > EXT2_GOOD_OLD_INODE_SIZE &&
	       off + 4 <= EXT2_GOOD_OLD_INODE_SIZE + (size_t)in->i_extra_isize && off + 4 <= isz;
}

static struct dx_time xtime(ext2_filsys fs, const struct ext2_inode_large *in, uint32_t lo,
			    const uint32_t *extra, bool always)
{
	struct dx_time r = { .present = always };

	if (!always && !has_field(fs, in, (const char *)&in->i_crtime - (const char *)in))
		return r;
	r.present = true;
	r.sec = (int32_t)lo;
	if (has_field(fs, in, (const char *)extra - (const char *)in)) {
		r.sec += (int64_t)(*extra & 3) << 32;
		r.nsec = *extra >> 2;
	}
	return r;
}

static int read_large(struct theirs *t, uint32_t ino, struct ext2_inode_large *in, char *err,
		      size_t errlen)
{
	errcode_t e;

	memset(in, 0, sizeof(*in));
	e = ext2fs_read_inode_full(t->fs, ino, (struct ext2_inode *)in, sizeof(*in));
	if (e) {
		set_err(err, errlen, "ext2fs_read_inode_full", e);
		return -1;
	}
	return 0;
}

int theirs_inode(struct theirs *t, uint32_t ino, struct dx_inode *out, char *err, size_t errlen)
{
	ext2_filsys fs = t->fs;
	struct ext2_inode_large in;

	memset(out, 0, sizeof(*out));
	if (read_large(t, ino, &in, err, errlen))
		return -1;
	out->mode = in.i_mode;
	out->links = in.i_links_count;
	out->uid = inode_uid(in);
	out->gid = inode_gid(in);
	out->size = EXT2_I_SIZE(&in);
	out->blocks = ext2fs_get_stat_i_blocks(fs, (struct ext2_inode *)&in);
	out->flags = in.i_flags;
	out->generation = in.i_generation;
	out->dtime = in.i_dtime;
	out->file_acl = ext2fs_file_acl_block(fs, (struct ext2_inode *)&in);
	if (has_field(fs, &in, (const char *)&in.i_projid - (const char *)&in))
		out->projid = in.i_projid;
	out->atime = xtime(fs, &in, in.i_atime, &in.i_atime_extra, true);
	out->ctime = xtime(fs, &in, in.i_ctime, &in.i_ctime_extra, true);
	out->mtime = xtime(fs, &in, in.i_mtime, &in.i_mtime_extra, true);
	out->crtime = xtime(fs, &in, in.i_crtime, &in.i_crtime_extra, false);
	return 0;
}

static int add_run(struct dx_vec *runs, uint64_t lblk, uint64_t pblk, uint64_t len, bool unwr)
{
	struct dx_run *r = dx_push(runs);

	if (!r)
		return -1;
	*r = (struct dx_run){ .lblk = lblk, .pblk = pblk, .len = len, .unwritten = unwr };
	return 0;
}

static int add_blk(struct dx_vec *v, uint64_t blk)
{
	uint64_t *p = dx_push(v);

	if (!p)
		return -1;
	*p = blk;
	return 0;
}

/* the tree by libext2fs's extent handle: leaves give runs, index entries tree blocks */
static int extent_map(struct theirs *t, uint32_t ino, struct ext2_inode_large *in,
		      struct dx_vec *runs, struct dx_vec *tree, char *err, size_t errlen)
{
	ext2_extent_handle_t h;
	struct ext2fs_extent ex;
	errcode_t e;
	unsigned long steps = 0;
	int op = EXT2_EXTENT_ROOT;

	e = ext2fs_extent_open2(t->fs, ino, (struct ext2_inode *)in, &h);
	if (e) {
		set_err(err, errlen, "ext2fs_extent_open2", e);
		return -1;
	}
	for (;;) {
		e = ext2fs_extent_get(h, op, &ex);
		op = EXT2_EXTENT_NEXT;
		if (e == EXT2_ET_EXTENT_NO_NEXT) {
			e = 0;
			break;
		}
		if (e) {
			set_err(err, errlen, "ext2fs_extent_get", e);
			break;
		}
		if (++steps > 50000000) {
			snprintf(err, errlen, "extent walk does not end");
			e = 1;
			break;
		}
		if (ex.e_flags & EXT2_EXTENT_FLAGS_SECOND_VISIT)
			continue;
		if (!(ex.e_flags & EXT2_EXTENT_FLAGS_LEAF)) {
			if (add_blk(tree, ex.e_pblk))
				e = ENOMEM;
		} else if (ex.e_len) {
			if (add_run(runs, ex.e_lblk, ex.e_pblk, ex.e_len,
				    ex.e_flags & EXT2_EXTENT_FLAGS_UNINIT))
				e = ENOMEM;
		}
		if (e)
			break;
	}
	ext2fs_extent_free(h);
	return e ? -1 : 0;
}

struct blkwalk {
	struct dx_vec *runs, *tree;
	int err;
};

static int blk_fn(ext2_filsys fs, blk64_t *blocknr, e2_blkcnt_t blockcnt, blk64_t ref_blk,
		  int ref_offset, void *priv)
{
	struct blkwalk *w = priv;

	(void)fs, (void)ref_blk, (void)ref_offset;
	if (blockcnt < 0)
		w->err |= add_blk(w->tree, *blocknr);
	else
		w->err |= add_run(w->runs, (uint64_t)blockcnt, *blocknr, 1, false);
	return w->err ? BLOCK_ABORT : 0;
}

int theirs_map(struct theirs *t, uint32_t ino, struct dx_vec *runs, struct dx_vec *tree,
	       char *err, size_t errlen)
{
	struct ext2_inode_large in;
	struct blkwalk w = { runs, tree, 0 };
	errcode_t e;

	if (read_large(t, ino, &in, err, errlen))
		return -1;
	/*
	 * ext2fs_inode_has_valid_blocks2() also says no for an inode of no
	 * known type (mode 0: the bad blocks inode of old images); those are
	 * walked, as the kernel and libextkit keep no map only for devices,
	 * fifos, sockets, fast symlinks and inline data.
	 */
	if (!ext2fs_inode_has_valid_blocks2(t->fs, (struct ext2_inode *)&in) &&
	    (LINUX_S_ISCHR(in.i_mode) || LINUX_S_ISBLK(in.i_mode) || LINUX_S_ISFIFO(in.i_mode) ||
	     LINUX_S_ISSOCK(in.i_mode) || LINUX_S_ISLNK(in.i_mode) ||
	     (in.i_flags & EXT4_INLINE_DATA_FL)))
		return 0;
	if (in.i_flags & EXT4_EXTENTS_FL)
		return extent_map(t, ino, &in, runs, tree, err, errlen);
	e = ext2fs_block_iterate3(t->fs, ino, BLOCK_FLAG_READ_ONLY, NULL, blk_fn, &w);
	if (e || w.err) {
		set_err(err, errlen, "ext2fs_block_iterate3", e ? e : ENOMEM);
		return -1;
	}
	return 0;
}

struct dirwalk {
	struct dx_vec *ents;
	int err;
};

static int dir_fn(ext2_ino_t dir, int entry, struct ext2_dir_entry *de, int offset,
		  int blocksize, char *buf, void *priv)
{
	struct dirwalk *w = priv;
	struct dx_ent *e = dx_push(w->ents);

	(void)dir, (void)entry, (void)offset, (void)blocksize, (void)buf;
	if (!e) {
		w->err = 1;
		return DIRENT_ABORT;
	}
	e->ino = de->inode;
	e->name_len = ext2fs_dirent_name_len(de);
	e->ftype = ext2fs_dirent_file_type(de);
	memcpy(e->name, de->name, e->name_len);
	return 0;
}

int theirs_dir(struct theirs *t, uint32_t ino, struct dx_vec *ents, char *err, size_t errlen)
{
	struct dirwalk w = { ents, 0 };
	struct ext2_inode_large in;
	errcode_t e;

	if (read_large(t, ino, &in, err, errlen))
		return -1;
	/* 1.47.0 fails a directory without inline data when the flag is given */
	e = ext2fs_dir_iterate2(t->fs, ino,
				in.i_flags & EXT4_INLINE_DATA_FL ? DIRENT_FLAG_INCLUDE_INLINE_DATA : 0,
				NULL, dir_fn, &w);
	if (e || w.err) {
		set_err(err, errlen, "ext2fs_dir_iterate2", e ? e : ENOMEM);
		return -1;
	}
	return 0;
}

struct xawalk {
	struct dx_vec *xattrs;
	int err;
};

static int xattr_fn(char *name, char *value, size_t value_len, void *priv)
{
	struct xawalk *w = priv;
	struct dx_xattr *x = dx_push(w->xattrs);

	if (!x || !(x->value = malloc(value_len ? value_len : 1))) {
		w->err = 1;
		return XATTR_ABORT;
	}
	snprintf(x->name, sizeof(x->name), "%s", name);
	if (value_len)
		memcpy(x->value, value, value_len);
	x->len = value_len;
	return 0;
}

int theirs_xattrs(struct theirs *t, uint32_t ino, struct dx_vec *xattrs, char *err,
		  size_t errlen)
{
	struct ext2_xattr_handle *h;
	struct xawalk w = { xattrs, 0 };
	unsigned int flags = XATTR_HANDLE_FLAG_RAW;
	errcode_t e = ext2fs_xattrs_open(t->fs, ino, &h);

	/* without ext_attr libext2fs reads none; the kernel reads them all the same */
	if (e == EXT2_ET_MISSING_EA_FEATURE)
		return 0;
	if (e) {
		set_err(err, errlen, "ext2fs_xattrs_open", e);
		return -1;
	}
	e = ext2fs_xattrs_flags(h, &flags, NULL);
	if (!e)
		e = ext2fs_xattrs_read(h);
	if (!e)
		e = ext2fs_xattrs_iterate(h, xattr_fn, &w);
	ext2fs_xattrs_close(&h);
	if (e || w.err) {
		set_err(err, errlen, "ext2fs_xattrs_read", e ? e : ENOMEM);
		return -1;
	}
	return 0;
}

/* ---- casefold ------------------------------------------------------------------ */

static const struct ext2fs_nls_table *utf8(void)
{
	return ext2fs_load_nls_table(EXT4_ENC_UTF8_12_1);
}

int theirs_cf_hash(int version, const char *name, size_t len, uint32_t *hash, uint32_t *minor)
{
	ext2_dirhash_t h = 0, m = 0;
	errcode_t e = ext2fs_dirhash2(version, name, (int)len, utf8(), EXT4_CASEFOLD_FL, NULL,
				      &h, &m);

	*hash = h;
	*minor = m;
	return e ? -1 : 0;
}

bool theirs_cf_valid(const char *name, size_t len)
{
	char buf[256], *pos;

	if (len > sizeof(buf))
		return false;
	memcpy(buf, name, len);
	return ext2fs_check_encoded_name(utf8(), buf, len, &pos) == 0;
}

int theirs_cf_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
	return ext2fs_casefold_cmp(utf8(), (const unsigned char *)a, alen,
				   (const unsigned char *)b, blen);
}
