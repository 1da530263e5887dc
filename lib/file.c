// SPDX-License-Identifier: MIT
/*
 * file.c - read file content: block-mapped, inline_data, fast symlinks.
 *
 * Data is delivered in order from offset 0 to i_size in chunks of at most
 * FILE_CHUNK bytes; each mapped extent is read with large sequential reads.
 * Holes and unwritten extents are zeros, or a hole callback when asked.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define FILE_CHUNK (1u << 20)

struct reader {
	struct ek_fs *fs;
	const struct ek_inode *ei;
	unsigned flags;
	const struct ek_read_cb *cb;
	uint64_t pos;		/* next byte to deliver */
	uint8_t *buf;
	size_t bufsz;		/* <= FILE_CHUNK, a multiple of the block size */
	bool zeroed;		/* buf currently all zeros */
};

static int deliver_hole(struct reader *r, uint64_t end)
{
	int err;

	if (end > r->ei->size)
		end = r->ei->size;
	if (end <= r->pos)
		return 0;
	if ((r->flags & EK_READ_SKIP_HOLES) && r->cb->hole) {
		err = r->cb->hole(r->cb->arg, r->pos, end - r->pos);
		r->pos = end;
		return err;
	}
	if (!r->zeroed) {
		memset(r->buf, 0, r->bufsz);
		r->zeroed = true;
	}
	while (r->pos < end) {
		size_t n = end - r->pos < r->bufsz ? end - r->pos : r->bufsz;

		err = r->cb->data(r->cb->arg, r->pos, r->buf, n);
		if (err)
			return err;
		r->pos += n;
	}
	return 0;
}

static int read_extent(void *arg, const struct ek_mapping *m)
{
	struct reader *r = arg;
	struct ek_fs *fs = r->fs;
	uint64_t start, end;
	int err;

	if (m->kind != EK_MAP_DATA)
		return 0;
	start = m->lblk << fs->log_blksz;
	end = (m->lblk + m->len) << fs->log_blksz;
	if (end > r->ei->size)
		end = r->ei->size;
	if (start >= r->ei->size)
		return 1;	/* past EOF: stop the walk (not an error) */
	err = deliver_hole(r, start);
	if (err)
		return err;
	if (m->unwritten)
		return deliver_hole(r, end);
	if (r->pos > start)
		start = r->pos;	/* overlapping extents: never go backwards */
	while (start < end) {
		uint64_t blk_off = start - (m->lblk << fs->log_blksz);
		ek_blk_t pblk = m->pblk + (blk_off >> fs->log_blksz);
		uint32_t in_blk = blk_off & (fs->blksz - 1);
		uint64_t want = end - start < r->bufsz - fs->blksz ? end - start :
				r->bufsz - fs->blksz;
		uint32_t nblk = (in_blk + want + fs->blksz - 1) >> fs->log_blksz;

		err = ek_fs_read_blocks(fs, pblk, nblk, r->buf);
		r->zeroed = false;
		if (err)
			return err;
		err = r->cb->data(r->cb->arg, start, r->buf + in_blk, want);
		if (err)
			return err;
		start += want;
		r->pos = start;
	}
	return 0;
}

int ek_inline_size(struct ek_fs *fs, const struct ek_inode *ei, uint64_t *out)
{
	uint8_t *ea = NULL;
	size_t ea_len = 0;
	int err = ek_xattr_get(fs, ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &ea, &ea_len);

	free(ea);
	if (err == -ENOENT || err == -ENODATA)
		err = 0, ea_len = 0;
	*out = err ? 0 : EXT4_N_BLOCKS * 4 + (uint64_t)ea_len;
	return err;
}

/* inline data: i_block then the system.data xattr, up to i_size */
static int read_inline(struct ek_fs *fs, const struct ek_inode *ei, const struct ek_read_cb *cb)
{
	uint8_t *ea = NULL, *all;
	size_t ea_len = 0, ib = EXT4_N_BLOCKS * 4;
	int err;

	err = ek_xattr_get(fs, ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &ea, &ea_len);
	if (err == -ENOENT || err == -ENODATA)
		err = 0;
	if (err)
		return err;
	if (ei->size > ib + ea_len) {
		free(ea);
		return ek_corrupt_ino(ei->ino, "inline data size %llu exceeds the %zu bytes stored",
				      (unsigned long long)ei->size, ib + ea_len);
	}
	all = ek_malloc(ib + ea_len);
	if (!all) {
		free(ea);
		return -ENOMEM;
	}
	memcpy(all, ek_inode_i_block(ei), ib);
	if (ea_len)
		memcpy(all + ib, ea, ea_len);
	err = ei->size ? cb->data(cb->arg, 0, all, ei->size) : 0;
	free(all);
	free(ea);
	return err;
}

int ek_file_read(struct ek_fs *fs, const struct ek_inode *ei, unsigned flags,
		 const struct ek_read_cb *cb)
{
	struct reader r = { .fs = fs, .ei = ei, .flags = flags, .cb = cb };
	uint64_t want = ((ei->size + fs->blksz - 1) & ~(uint64_t)(fs->blksz - 1)) + fs->blksz;
	int err;

	if (ei->flags & EXT4_INLINE_DATA_FL)
		return read_inline(fs, ei, cb);
	if (ek_inode_is_fast_symlink(fs, ei))
		return ei->size ? cb->data(cb->arg, 0, ek_inode_i_block(ei), ei->size) : 0;
	/* small files get a small buffer: a 1 MiB malloc per file is an mmap */
	r.bufsz = want < FILE_CHUNK ? want : FILE_CHUNK;
	r.buf = ek_malloc(r.bufsz);
	if (!r.buf)
		return -ENOMEM;
	err = ek_map_walk(fs, ei, read_extent, &r);
	if (err == 1)
		err = 0;
	if (!err || err == -EK_BADCRC) {
		int herr = deliver_hole(&r, ei->size);

		if (herr)
			err = herr;
	}
	free(r.buf);
	return err;
}

int ek_file_read_block(struct ek_fs *fs, const struct ek_inode *ei, uint64_t lblk, void *buf)
{
	ek_blk_t pblk;
	bool unwritten;
	int err;

	if (ei->flags & EXT4_INLINE_DATA_FL) {
		uint8_t *ea = NULL;
		size_t ea_len = 0, ib = EXT4_N_BLOCKS * 4;

		memset(buf, 0, fs->blksz);
		if (lblk)
			return 0;
		memcpy(buf, ek_inode_i_block(ei), ib);
		err = ek_xattr_get(fs, ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &ea, &ea_len);
		if (!err && ea_len)
			memcpy((uint8_t *)buf + ib, ea, ea_len < fs->blksz - ib ? ea_len : fs->blksz - ib);
		free(ea);
		return err == -ENOENT || err == -ENODATA ? 0 : err;
	}
	err = ek_map_bmap(fs, ei, lblk, &pblk, &unwritten);
	if (err)
		return err;
	if (!pblk || unwritten) {
		memset(buf, 0, fs->blksz);
		return 0;
	}
	return ek_fs_read_blocks(fs, pblk, 1, buf);
}
