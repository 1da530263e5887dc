// SPDX-License-Identifier: MIT
/*
 * orphan.c - the orphan inodes a mount processes after journal replay.
 *
 * Two places hold them: the superblock list (s_last_orphan, each inode's
 * i_dtime naming the next) and, with the orphan_file feature, the orphan
 * file, whose blocks hold arrays of inode numbers followed by a tail:
 *   __le32 inodes[(blocksize - 8) / 4]; __le32 ob_magic (0x0b10ca04);
 *   __le32 ob_checksum (crc32c of the inode seed and block number).
 * Blocks are read through a caller's reader so the same walk serves the
 * image as it is and as a replay would leave it.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

/* the raw inode @ino through @read (inode tables located as on disk) */
static int read_raw_inode(struct ek_fs *fs, ek_block_reader read, void *rarg, ek_ino_t ino,
			  uint8_t *blkbuf, const uint8_t **raw)
{
	ek_blk_t blk;
	uint32_t off;
	int err = ek_inode_loc(fs, ino, &blk, &off);

	if (err)
		return err;
	err = read(rarg, blk, blkbuf);
	*raw = blkbuf + off;
	return err;
}

/* what a mount does with orphan @o depends on these fields of its inode */
static void orphan_fill(const struct ek_fs *fs, const uint8_t *raw, struct ek_orphan *o)
{
	o->links = get_le16(raw + offsetof(struct ext4_inode, i_links_count));
	o->mode = get_le16(raw + offsetof(struct ext4_inode, i_mode));
	o->uid = ek_inode_uid(raw);
	o->gid = ek_inode_gid(raw);
	o->size = ek_inode_size(fs, raw);
	o->has_blocks = ek_inode_iblocks(fs, raw) || ek_inode_file_acl(fs, raw);
}

int ek_orphans_iterate(struct ek_fs *fs, const struct ext4_super_block *sb, ek_block_reader read,
		       void *rarg, ek_orphan_fn fn, void *arg)
{
	struct ek_set seen = { 0 };
	uint8_t *buf = ek_malloc(fs->blksz);
	ek_ino_t ino = le32_to_cpu(sb->s_last_orphan), ofile;
	int err = 0;

	if (!buf)
		return -ENOMEM;
	while (ino && !err) {
		const uint8_t *raw;
		struct ek_orphan o = { .ino = ino };

		if (ino < 1 || ino > fs->sb.inodes_count) {
			err = ek_corrupt_ino(ino, "orphan list names an inode out of range");
			break;
		}
		err = ek_set_add(&seen, ino);
		if (err > 0) {
			err = ek_corrupt_ino(ino, "orphan list loops back to this inode");
			break;
		}
		if (!err)
			err = read_raw_inode(fs, read, rarg, ino, buf, &raw);
		if (err)
			break;
		orphan_fill(fs, raw, &o);
		err = fn(arg, &o);
		ino = get_le32(raw + offsetof(struct ext4_inode, i_dtime));	/* the next orphan */
	}

	ofile = (le32_to_cpu(sb->s_feature_compat) & EXT4_FEATURE_COMPAT_ORPHAN_FILE) ?
		le32_to_cpu(sb->s_orphan_file_inum) : 0;
	if (!err && ofile) {
		struct ek_inode ei = { 0 };
		uint32_t per = (fs->blksz - 8) / 4;

		err = ek_inode_read(fs, ofile, &ei);
		if (err == -EK_BADCRC)
			err = 0;
		for (uint64_t lb = 0; !err && lb < ei.size >> fs->log_blksz && lb < fs->sb.blocks_count; lb++) {
			ek_blk_t pblk;

			err = ek_map_bmap(fs, &ei, lb, &pblk, NULL);
			if (err || !pblk)
				break;
			err = read(rarg, pblk, buf);
			if (err)
				break;
			if (get_le32(buf + fs->blksz - 8) != EK_ORPHAN_BLOCK_MAGIC) {
				err = ek_corrupt(pblk, "orphan file block %llu has no tail magic",
						 (unsigned long long)lb);
				break;
			}
			/* the kernel's mount fails on either (ext4_init_orphan_info) */
			if (fs->has_csum && get_le32(buf + fs->blksz - 4) !=
			    ek_orphan_block_csum(fs, ofile, ei.generation, pblk, buf)) {
				err = ek_corrupt(pblk, "orphan file block %llu does not match its checksum",
						 (unsigned long long)lb);
				break;
			}
			for (uint32_t i = 0; i < per && !err; i++) {
				struct ek_orphan o = { .ino = get_le32(buf + 4 * i), .in_file = true,
						       .file_ino = ofile, .file_gen = ei.generation,
						       .file_blk = pblk, .slot = i };
				uint8_t *ibuf;
				const uint8_t *raw;

				if (!o.ino)
					continue;
				if (o.ino > fs->sb.inodes_count) {
					err = ek_corrupt(pblk, "orphan file names inode %u out of range", o.ino);
					break;
				}
				ibuf = ek_malloc(fs->blksz);
				err = ibuf ? read_raw_inode(fs, read, rarg, o.ino, ibuf, &raw) : -ENOMEM;
				if (!err) {
					orphan_fill(fs, raw, &o);
					err = fn(arg, &o);
				}
				free(ibuf);
			}
		}
		ek_inode_release(&ei);
	}
	ek_set_release(&seen);
	free(buf);
	return err;
}

/* ---- releasing orphans (what a mount does after replay) -------------------- */

int ek_orphan_supported(const struct ek_orphan *o)
{
	(void)o;
	return 0;	/* deletion and truncation, from the list or the file */
}

struct collect {
	struct ek_orphan *v;
	size_t n, cap;
};

static int collect_orphan(void *arg, const struct ek_orphan *o)
{
	struct collect *c = arg;
	int err = ek_orphan_supported(o);

	if (err)
		return err;
	if (ek_grow(&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	c->v[c->n++] = *o;
	return 0;
}

static int wset_reader(void *arg, ek_blk_t blk, void *buf)
{
	return ek_wset_read(arg, blk, buf);
}

struct free_ctx {
	struct ek_wset *ws;
	ek_ino_t ino;
};

/* every block of the map, data and tree, goes back to the free pool */
static int free_mapping(void *arg, const struct ek_mapping *m)
{
	struct free_ctx *f = arg;

	if (m->kind == EK_MAP_INDEX)
		return 0;	/* its child node is reported as TREE */
	for (uint64_t i = 0; i < m->len; i++) {
		int err = ek_wset_mark_block(f->ws, m->pblk + i, false);

		if (err)
			return err;
	}
	return 0;
}

/* drop the inode's reference to its xattr block, freeing it with the last */
static int release_xattr_block(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, uint8_t *raw)
{
	ek_blk_t blk = ek_inode_file_acl(fs, raw);
	struct ext4_xattr_header *h;
	uint8_t *b;
	uint32_t refs;
	int err;

	if (!blk)
		return 0;
	if (!ek_fs_block_valid(fs, blk))
		return ek_corrupt_ino(ino, "xattr block %llu is outside the filesystem",
				      (unsigned long long)blk);
	err = ek_wset_block(ws, blk, &b);
	if (err)
		return err;
	h = (void *)b;
	if (le32_to_cpu(h->h_magic) != EXT4_XATTR_MAGIC)
		return ek_corrupt(blk, "xattr block of inode %u: bad magic", ino);
	refs = le32_to_cpu(h->h_refcount);
	if (refs)
		refs--;
	h->h_refcount = cpu_to_le32(refs);
	if (fs->has_csum)
		h->h_checksum = cpu_to_le32(ek_xattr_block_csum(fs, blk, b));
	if (!refs && (err = ek_wset_mark_block(ws, blk, false)))
		return err;
	ek_inode_file_acl_set(raw, 0);
	return 0;
}

/*
 * Orphan @ino: deleted when unlinked (its blocks, its xattr block
 * reference, itself; i_dtime = now, the map left as it was, as e2fsck
 * does), else truncated to its size (i_dtime, the list link, cleared).
 */
static int release_one(struct ek_fs *fs, struct ek_wset *ws, ek_ino_t ino, int64_t now)
{
	struct ek_inode ei = { 0 };
	struct free_ctx f = { .ws = ws, .ino = ino };
	uint8_t *raw;
	int err = ek_wset_inode(ws, ino, &raw);

	if (err)
		return err;
	if (get_le16(raw + offsetof(struct ext4_inode, i_links_count))) {
		err = ek_inode_truncate(fs, ws, ino, raw);
		if (!err) {
			put_le32(raw + offsetof(struct ext4_inode, i_dtime), 0);
			ek_inode_csum_set(fs, ino, raw);
		}
		return err;
	}
	err = ek_inode_decode(fs, ino, raw, &ei);
	if (err == -EK_BADCRC)
		err = 0;	/* the kernel deletes it all the same */
	if (!err)
		err = ek_map_walk(fs, &ei, free_mapping, &f);
	if (err == -EK_BADCRC)
		err = 0;
	if (!err)
		err = release_xattr_block(fs, ws, ino, raw);
	if (!err)
		err = ek_wset_mark_inode(ws, ino, false, ek_is_dir(ei.mode));
	if (!err) {
		put_le32(raw + offsetof(struct ext4_inode, i_dtime), (uint32_t)now);
		ek_inode_csum_set(fs, ino, raw);
	}
	ek_inode_release(&ei);
	return err;
}

/* clear orphan @o's slot in its orphan-file block */
static int clear_orphan_slot(struct ek_fs *fs, struct ek_wset *ws, const struct ek_orphan *o)
{
	uint8_t *b;
	int err = ek_wset_block(ws, o->file_blk, &b);

	if (err)
		return err;
	put_le32(b + 4 * o->slot, 0);
	if (fs->has_csum)
		put_le32(b + fs->blksz - 4, ek_orphan_block_csum(fs, o->file_ino, o->file_gen,
								 o->file_blk, b));
	return 0;
}

/* the kernel's ext4_orphan_file_block_csum(): seeded by the inode and the block number */
uint32_t ek_orphan_block_csum(const struct ek_fs *fs, ek_ino_t ino, uint32_t gen, ek_blk_t blk,
			      const uint8_t *buf)
{
	uint8_t le[8];

	put_le64(le, blk);
	return ek_crc32c(ek_crc32c(ek_inode_csum_seed(fs, ino, gen), le, sizeof(le)), buf,
			 fs->blksz - 8);
}

int ek_orphans_release(struct ek_fs *fs, struct ek_wset *ws, int64_t now, ek_orphan_done_fn done,
		       void *arg, uint64_t *released)
{
	struct collect c = { 0 };
	struct ext4_super_block *sb = ek_wset_super(ws);
	int err;

	*released = 0;
	if (!sb)
		return -ENOMEM;
	/* collect first: the chain runs through the i_dtime fields we rewrite */
	err = ek_orphans_iterate(fs, sb, wset_reader, ws, collect_orphan, &c);
	for (size_t i = 0; !err && i < c.n; i++) {
		int64_t before = ek_wset_free_blocks_delta(ws);

		err = release_one(fs, ws, c.v[i].ino, now);
		if (!err && c.v[i].in_file)
			err = clear_orphan_slot(fs, ws, &c.v[i]);
		if (!err)
			(*released)++;
		if (!err && done)
			err = done(arg, &c.v[i], (uint64_t)(ek_wset_free_blocks_delta(ws) - before));
	}
	if (!err && c.n) {
		sb = ek_wset_super(ws);
		sb->s_last_orphan = 0;
		sb->s_feature_ro_compat &= ~cpu_to_le32(EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT);
	}
	free(c.v);
	return err;
}

/* ---- orphans a mount refuses (fsck's repair) ------------------------------- */

static int orphan_none(void *arg, const struct ek_orphan *o)
{
	(void)arg;
	(void)o;
	return 0;
}

int ek_fix_orphans_reset(struct ek_wset *ws, int64_t now, struct ek_orphans_reset *out)
{
	struct ek_fs *fs = ek_wset_fs(ws);
	struct ext4_super_block *sb = ek_wset_super(ws), list;
	ek_ino_t ofile;
	uint8_t *buf;
	int err;

	memset(out, 0, sizeof(*out));
	if (!sb)
		return -ENOMEM;
	/* the superblock list alone: cut where it cannot be followed */
	list = *sb;
	list.s_feature_compat &= ~cpu_to_le32(EXT4_FEATURE_COMPAT_ORPHAN_FILE);
	err = ek_orphans_iterate(fs, &list, wset_reader, ws, orphan_none, NULL);
	if (err == -EK_CORRUPT || err == -EK_BADCRC || err == -EIO) {
		out->list_head = le32_to_cpu(sb->s_last_orphan);
		sb->s_last_orphan = 0;
		err = 0;
	}
	if (err)
		return err;
	ofile = ek_has_compat(fs, EXT4_FEATURE_COMPAT_ORPHAN_FILE) ? fs->sb.orphan_file_inum : 0;
	buf = ek_malloc(fs->blksz);
	if (!buf)
		return -ENOMEM;
	if (ofile && ofile <= fs->sb.inodes_count) {
		struct ek_inode ei = { 0 };
		uint32_t per = (fs->blksz - 8) / 4;

		err = ek_inode_read(fs, ofile, &ei);
		if (err == -EK_BADCRC)
			err = 0;
		for (uint64_t lb = 0; !err && lb < ei.size >> fs->log_blksz &&
		     lb < fs->sb.blocks_count; lb++) {
			ek_blk_t pblk;
			bool bad;
			uint8_t *b;

			err = ek_map_bmap(fs, &ei, lb, &pblk, NULL);
			if (err || !pblk || !ek_fs_block_valid(fs, pblk))
				break;	/* the file's map is pass 1's */
			err = ek_wset_read(ws, pblk, buf);
			if (err)
				break;
			bad = get_le32(buf + fs->blksz - 8) != EK_ORPHAN_BLOCK_MAGIC ||
			      (fs->has_csum && get_le32(buf + fs->blksz - 4) !=
			       ek_orphan_block_csum(fs, ofile, ei.generation, pblk, buf));
			for (uint32_t i = 0; i < per && !bad; i++)
				bad = get_le32(buf + 4 * i) > fs->sb.inodes_count;
			if (!bad)
				continue;
			/* as mke2fs makes it: no entries, the tail's magic and checksum */
			err = ek_wset_block(ws, pblk, &b);
			if (err)
				break;
			memset(b, 0, fs->blksz);
			put_le32(b + fs->blksz - 8, EK_ORPHAN_BLOCK_MAGIC);
			if (fs->has_csum)
				put_le32(b + fs->blksz - 4,
					 ek_orphan_block_csum(fs, ofile, ei.generation, pblk, b));
			out->file_blocks++;
		}
		if (err == -EK_CORRUPT || err == -EK_BADCRC || err == -EIO)
			err = 0;	/* an unreadable orphan file: pass 1 names it */
		ek_inode_release(&ei);
	}
	free(buf);
	/* what is left, released as a mount would */
	if (!err)
		err = ek_orphans_release(fs, ws, now, NULL, NULL, &out->released);
	if (!err && !out->released) {
		sb = ek_wset_super(ws);
		if (!sb)
			return -ENOMEM;
		sb->s_feature_ro_compat &= ~cpu_to_le32(EXT4_FEATURE_RO_COMPAT_ORPHAN_PRESENT);
	}
	return err;
}
