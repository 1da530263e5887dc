/* SPDX-License-Identifier: MIT */
/*
 * e2diff.h - the neutral records both halves of the differential test
 * fill: e2diff.c reads an image with libextkit, theirs.c with libext2fs
 * (e2fsprogs' library, linked by this test program only).  The two
 * halves never see each other's headers (both define the on-disk structs).
 */
#ifndef E2DIFF_H
#define E2DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dx_time {
	int64_t sec;
	uint32_t nsec;
	bool present;		/* the inode holds the field (crtime: extra space) */
};

struct dx_inode {
	uint16_t mode, links;
	uint32_t uid, gid;
	uint64_t size;
	uint64_t blocks;	/* 512-byte units, huge_file resolved */
	uint32_t flags, generation, dtime, projid;
	uint64_t file_acl;
	struct dx_time atime, ctime, mtime, crtime;
};

struct dx_run {			/* lblk..lblk+len-1 -> pblk.. */
	uint64_t lblk, pblk, len;
	bool unwritten;
};

struct dx_ent {
	uint32_t ino;
	uint8_t ftype, name_len;
	char name[256];
};

struct dx_xattr {
	char name[300];		/* full name: prefix and name, NUL-terminated */
	uint8_t *value;		/* malloc'd */
	size_t len;
};

/* a growing array of @sz-byte elements */
struct dx_vec {
	void *v;
	size_t n, cap, sz;
};

void *dx_push(struct dx_vec *vec);	/* a zeroed new element, or NULL */
void dx_vec_free(struct dx_vec *vec);

/* ---- theirs.c: libext2fs --------------------------------------------------- */

struct theirs;

/* open @path read-only; on failure 0 is not returned and @err says why */
int theirs_open(const char *path, struct theirs **out, char *err, size_t errlen);
void theirs_close(struct theirs *t);
uint32_t theirs_inodes_count(const struct theirs *t);
uint64_t theirs_blocks_count(const struct theirs *t);
/* the on-disk bitmaps as libext2fs reads them: 1 used, 0 free, -1 not read */
int theirs_inode_used(struct theirs *t, uint32_t ino);
int theirs_block_used(struct theirs *t, uint64_t blk);
/* why the bitmaps could not be read, or NULL */
const char *theirs_bitmap_error(const struct theirs *t);
/* each returns 0 or fills @err (libext2fs's message) and returns -1 */
int theirs_inode(struct theirs *t, uint32_t ino, struct dx_inode *out, char *err, size_t errlen);
/* data runs (struct dx_run) in logical order and tree blocks (uint64_t) */
int theirs_map(struct theirs *t, uint32_t ino, struct dx_vec *runs, struct dx_vec *tree,
	       char *err, size_t errlen);
int theirs_dir(struct theirs *t, uint32_t ino, struct dx_vec *ents, char *err, size_t errlen);
int theirs_xattrs(struct theirs *t, uint32_t ino, struct dx_vec *xattrs, char *err,
		  size_t errlen);
/*
 * casefold (utf8-12.1): ext2fs_dirhash2() of @name with the casefold flag
 * (0, or libext2fs's error: 1.47.0 fails on invalid UTF-8), whether
 * ext2fs_check_encoded_name() finds it valid, and ext2fs_casefold_cmp()
 */
int theirs_cf_hash(int version, const char *name, size_t len, uint32_t *hash, uint32_t *minor);
bool theirs_cf_valid(const char *name, size_t len);
int theirs_cf_cmp(const char *a, size_t alen, const char *b, size_t blen);

#endif /* E2DIFF_H */
