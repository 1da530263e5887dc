// SPDX-License-Identifier: MIT
/*
 * quota.c - quota files (ro_compat quota, s_{usr,grp,prj}_quota_inum):
 * the "vfsv1" tree format the kernel (fs/quota/quota_tree.c,
 * quotaio_v2.h) and e2fsprogs (lib/support/quotaio_tree.c) read and write.
 * The file is a sequence of 1 KiB quota blocks, whatever the filesystem's
 * block size:
 *
 *   block 0     header   0x00 le32 magic (per type, below)
 *                        0x04 le32 version (1: v2r1, 72-byte entries)
 *               info     0x08 le32 block grace time (seconds)
 *                        0x0C le32 inode grace time
 *                        0x10 le32 flags
 *                        0x14 le32 blocks in the file
 *                        0x18 le32 first block of the free-block list
 *                        0x1C le32 first data block with a free entry
 *   block 1     the tree root.  A tree block is 256 le32 block numbers
 *               (0: none); an id's path takes one byte per level, most
 *               significant first: four levels (depth 0-3), and the
 *               pointer at depth 3 names a data block.
 *   data block  0x00 le32 next / 0x04 le32 prev in the free-entry list,
 *               0x08 le16 entries in use, 0x0A pad, then 14 entries of
 *               72 bytes from 0x10:
 *                 0x00 le32 id, 0x04 pad, 0x08 le64 inode hard limit,
 *                 0x10 inode soft limit, 0x18 inodes in use, 0x20 space
 *                 hard limit, 0x28 space soft limit, 0x30 space in use
 *                 (bytes), 0x38 le64 space grace end, 0x40 le64 inode
 *                 grace end
 *               An all-zero entry is free; a real entry that would be all
 *               zero (id 0, nothing used) is stored with inode grace end 1.
 *
 * Data blocks are shared: ids of different paths land in one block, so a
 * data block is named by several depth-3 pointers and read once.  A tree
 * block named twice would make a loop or a shared subtree: refused.
 *
 * Also the usage tally fsck and mkfs keep per id (an open hash that grows
 * with the number of ids), and the writer that lays a file out as
 * e2fsprogs' quota_write_inode() does.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define QT_BLK		EK_QUOTA_BLKSZ
#define QT_TREEOFF	1
#define QT_DEPTH	4
#define QT_REFS		(QT_BLK / 4)
#define QT_DATA_HDR	16
#define QT_ENTRY	72
#define QT_PER_BLK	((QT_BLK - QT_DATA_HDR) / QT_ENTRY)	/* 14 */
#define QT_GRACE	604800	/* a week: e2fsprogs' and the kernel's default */

static const uint32_t qmagic[EK_QUOTA_TYPES] = { 0xd9c01f11, 0xd9c01927, 0xd9c03f14 };
static const char *const qname[EK_QUOTA_TYPES] = { "user", "group", "project" };

const char *ek_quota_type_name(unsigned type)
{
	return type < EK_QUOTA_TYPES ? qname[type] : "unknown";
}

ek_ino_t ek_quota_inum(const struct ek_fs *fs, unsigned type)
{
	const struct ext4_super_block *sb = fs->raw_sb;

	switch (type) {
	case EK_QUOTA_USR: return le32_to_cpu(sb->s_usr_quota_inum);
	case EK_QUOTA_GRP: return le32_to_cpu(sb->s_grp_quota_inum);
	case EK_QUOTA_PRJ: return le32_to_cpu(sb->s_prj_quota_inum);
	}
	return 0;
}

/* ---- decode ---------------------------------------------------------------- */

enum { B_NONE, B_TREE, B_DATA, B_BAD };

struct qdec {
	const uint8_t *buf;
	uint32_t nblocks;	/* dqi_blocks, checked against the buffer */
	ek_ino_t ino;		/* for messages */
	const char *what;	/* "user quota file" */
	uint8_t *kind;		/* per quota block: B_* */
	uint16_t *reached;	/* per data block: entries a pointer led to */
	struct ek_quota *q;
	size_t cap;
	bool salvage;		/* skip what fails, keep the entries reached */
};

static bool entry_free(const uint8_t *e)
{
	for (unsigned i = 0; i < QT_ENTRY; i++)
		if (e[i])
			return false;
	return true;
}

static int dec_err(struct qdec *d, uint32_t blk, const char *why, unsigned long long a,
		   unsigned long long b)
{
	char msg[200];

	snprintf(msg, sizeof(msg), why, a, b);
	return ek_corrupt_ino(d->ino, "%s, quota block %u: %s", d->what, blk,
			      msg);
}

static void entry_decode(const uint8_t *e, struct ek_dquot *out)
{
	out->id = get_le32(e);
	out->ihardlimit = get_le64(e + 0x08);
	out->isoftlimit = get_le64(e + 0x10);
	out->curinodes = get_le64(e + 0x18);
	out->bhardlimit = get_le64(e + 0x20);
	out->bsoftlimit = get_le64(e + 0x28);
	out->curspace = get_le64(e + 0x30);
	out->btime = get_le64(e + 0x38);
	out->itime = get_le64(e + 0x40);
	/* the marker of an entry that would read as free (v2r1_disk2memdqblk) */
	if (!out->id && !out->ihardlimit && !out->isoftlimit && !out->curinodes &&
	    !out->bhardlimit && !out->bsoftlimit && !out->curspace && !out->btime &&
	    out->itime == 1)
		out->itime = 0;
}

/* the checks of the kernel's check_dquot_block_header(), and entries counted */
static int data_check(struct qdec *d, uint32_t blk)
{
	const uint8_t *b = d->buf + (size_t)blk * QT_BLK;
	uint32_t next = get_le32(b), prev = get_le32(b + 4);
	unsigned entries = get_le16(b + 8), used = 0;

	if (next >= d->nblocks)
		return dec_err(d, blk, "free-entry list next %llu is past the file's %llu blocks",
			       next, d->nblocks);
	if (prev >= d->nblocks)
		return dec_err(d, blk, "free-entry list prev %llu is past the file's %llu blocks",
			       prev, d->nblocks);
	if (entries > QT_PER_BLK)
		return dec_err(d, blk, "%llu entries, a block holds %llu", entries, QT_PER_BLK);
	for (unsigned i = 0; i < QT_PER_BLK; i++)
		used += !entry_free(b + QT_DATA_HDR + i * QT_ENTRY);
	if (used != entries)
		return dec_err(d, blk, "the header counts %llu entries, %llu are in use", entries,
			       used);
	return 0;
}

/* the pointer for @id at depth 3 names data block @blk: its entry */
static int data_entry(struct qdec *d, uint32_t blk, uint32_t id)
{
	const uint8_t *b = d->buf + (size_t)blk * QT_BLK + QT_DATA_HDR;
	struct ek_quota *q = d->q;

	for (unsigned i = 0; i < QT_PER_BLK; i++) {
		const uint8_t *e = b + i * QT_ENTRY;

		if (entry_free(e) || get_le32(e) != id)
			continue;
		if (d->reached[blk] & (1u << i))
			break;	/* cannot happen: one path per id */
		d->reached[blk] |= 1u << i;
		if (ek_grow(&q->dq, &d->cap, q->count + 1, sizeof(*q->dq)))
			return -ENOMEM;
		entry_decode(e, &q->dq[q->count++]);
		return 0;
	}
	return dec_err(d, blk, "the tree names it for id %llu, which it does not hold", id, 0);
}

static int tree_walk(struct qdec *d, uint32_t blk, unsigned depth, uint32_t prefix)
{
	const uint8_t *b;
	int err;

	if (d->kind[blk] != B_NONE)
		return dec_err(d, blk, "a tree block reached twice (depth %llu)", depth, 0);
	d->kind[blk] = B_TREE;
	b = d->buf + (size_t)blk * QT_BLK;
	for (uint32_t i = 0; i < QT_REFS; i++) {
		uint32_t ref = get_le32(b + 4 * i), id = prefix << 8 | i;

		if (!ref)
			continue;
		if (ref <= QT_TREEOFF || ref >= d->nblocks) {
			err = dec_err(d, blk, "pointer %llu is outside the file's %llu blocks", ref,
				      d->nblocks);
		} else if (depth + 1 < QT_DEPTH) {
			err = tree_walk(d, ref, depth + 1, id);
		} else if (d->kind[ref] == B_TREE || d->kind[ref] == B_BAD) {
			err = dec_err(d, blk, "data pointer %llu names a tree block", ref, 0);
		} else {
			err = 0;
			if (d->kind[ref] == B_NONE) {
				d->kind[ref] = B_DATA;
				err = data_check(d, ref);
				if (err)
					d->kind[ref] = B_BAD;
			}
			if (!err)
				err = data_entry(d, ref, id);
		}
		/* salvaging, as e2fsprogs' tree scan: a bad pointer is passed over */
		if (err && d->salvage && err != -ENOMEM)
			err = 0;
		if (err)
			return err;
	}
	return 0;
}

static int decode(const void *buf, size_t len, unsigned type, ek_ino_t ino, bool salvage,
		  struct ek_quota *out)
{
	const uint8_t *p = buf;
	char what[32];
	struct qdec d = { .buf = p, .ino = ino, .what = what, .q = out, .salvage = salvage };
	uint32_t magic, hblocks;
	int err;

	memset(out, 0, sizeof(*out));
	out->type = type;
	if (type >= EK_QUOTA_TYPES)
		return -EINVAL;
	snprintf(what, sizeof(what), "%s quota file", qname[type]);
	if (len < 2 * QT_BLK)
		return ek_corrupt_ino(ino, "%s has %zu bytes, less than its header and "
				      "tree root", what, len);
	magic = get_le32(p);
	if (magic != qmagic[type])
		return ek_corrupt_ino(ino, "%s: magic 0x%08x is not 0x%08x%s", what,
				      magic, qmagic[type],
				      get_be32(p) == qmagic[type] ? " (stored big-endian)" : "");
	out->version = get_le32(p + 4);
	if (out->version != 1)
		return ek_err(-EK_UNSUPP, "%s: version %u, only version 1 (vfsv1) is supported",
			      what, out->version);
	out->bgrace = get_le32(p + 0x08);
	out->igrace = get_le32(p + 0x0C);
	out->flags = get_le32(p + 0x10);
	out->blocks = get_le32(p + 0x14);
	out->free_blk = get_le32(p + 0x18);
	out->free_entry = get_le32(p + 0x1C);
	hblocks = len / QT_BLK;		/* whole quota blocks the file holds */
	if (out->blocks < QT_TREEOFF + 1 || out->blocks > hblocks)
		return ek_corrupt_ino(ino, "%s: %u blocks, the file holds %u", what,
				      out->blocks, hblocks);
	/* as e2fsprogs' v2_init_io() */
	if (out->free_blk >= out->blocks)
		return ek_corrupt_ino(ino, "%s: free block %u is past its %u blocks", what, out->free_blk, out->blocks);
	if (out->free_entry >= out->blocks)
		return ek_corrupt_ino(ino, "%s: free entry block %u is past its %u blocks",
				      what, out->free_entry, out->blocks);
	d.nblocks = out->blocks;
	d.kind = ek_calloc(d.nblocks, 1);
	d.reached = ek_calloc(d.nblocks, sizeof(*d.reached));
	err = d.kind && d.reached ? 0 : -ENOMEM;
	if (!err)
		err = tree_walk(&d, QT_TREEOFF, 0, 0);
	/* every entry in use is reached from the tree by its id */
	for (uint32_t b = 0; !err && !salvage && b < d.nblocks; b++) {
		const uint8_t *blk = p + (size_t)b * QT_BLK + QT_DATA_HDR;

		if (d.kind[b] == B_TREE)
			out->tree_blocks++;
		if (d.kind[b] != B_DATA)
			continue;
		out->data_blocks++;
		for (unsigned i = 0; i < QT_PER_BLK && !err; i++)
			if (!entry_free(blk + i * QT_ENTRY) && !(d.reached[b] & (1u << i)))
				err = dec_err(&d, b, "entry %llu (id %llu) is not reached from the tree",
					      i, get_le32(blk + i * QT_ENTRY));
	}
	free(d.kind);
	free(d.reached);
	if (err)
		ek_quota_release(out);
	return err;
}

int ek_quota_decode(const void *buf, size_t len, unsigned type, ek_ino_t ino,
		    struct ek_quota *out)
{
	return decode(buf, len, type, ino, false, out);
}

int ek_quota_salvage(const void *buf, size_t len, unsigned type, ek_ino_t ino,
		     struct ek_quota *out)
{
	return decode(buf, len, type, ino, true, out);
}

void ek_quota_release(struct ek_quota *q)
{
	free(q->dq);
	q->dq = NULL;
	q->count = 0;
}

const struct ek_dquot *ek_quota_find(const struct ek_quota *q, uint32_t id)
{
	size_t lo = 0, hi = q->count;

	/* the tree walk yields ids in ascending order */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (q->dq[mid].id == id)
			return &q->dq[mid];
		if (q->dq[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* ---- read from an inode ---------------------------------------------------- */

struct qread {
	uint8_t *buf;
	size_t len;
};

static int qread_data(void *arg, uint64_t off, const void *buf, size_t len)
{
	struct qread *r = arg;

	if (off >= r->len)
		return 1;	/* past the bytes wanted: stop the read */
	memcpy(r->buf + off, buf, len < r->len - off ? len : r->len - off);
	return 0;
}

int ek_quota_read(struct ek_fs *fs, ek_ino_t ino, unsigned type, struct ek_quota *out)
{
	uint8_t *buf;
	size_t len;
	int err;

	memset(out, 0, sizeof(*out));
	out->type = type;
	if (type >= EK_QUOTA_TYPES)
		return -EINVAL;
	err = ek_quota_read_raw(fs, ino, type, &buf, &len);
	if (!err)
		err = ek_quota_decode(buf, len, type, ino, out);
	free(buf);
	return err;
}

int ek_quota_read_raw(struct ek_fs *fs, ek_ino_t ino, unsigned type, uint8_t **out,
		      size_t *out_len)
{
	struct ek_inode ei;
	struct qread r = { 0 };
	struct ek_read_cb cb = { .data = qread_data, .arg = &r };
	int err;

	*out = NULL;
	*out_len = 0;
	if (type >= EK_QUOTA_TYPES)
		return -EINVAL;
	if (!ino || ino > fs->sb.inodes_count)
		return ek_corrupt_fs("%s quota inode %u is not an inode of the filesystem",
				     qname[type], ino);
	err = ek_inode_read(fs, ino, &ei);
	if (err && err != -EK_BADCRC)
		goto out;
	/* as e2fsprogs' v2_init_io() */
	if (ei.size > (1ull << 31)) {
		err = ek_corrupt_ino(ino, "%s quota file: i_size %llu is more than 2 GiB",
				     qname[type], (unsigned long long)ei.size);
		goto out;
	}
	/* the bytes are read into memory: no more than the blocks the inode
	 * has (a block more for inline data), whatever i_size says; past
	 * them, the info block's count of blocks names the shortfall */
	r.len = ei.size;
	if (r.len > (ei.blocks << 9) + fs->blksz)
		r.len = (ei.blocks << 9) + fs->blksz;
	r.buf = ek_calloc(r.len ? r.len : 1, 1);
	if (!r.buf) {
		err = -ENOMEM;
		goto out;
	}
	err = ek_file_read(fs, &ei, 0, &cb);
	/* 1: the bytes wanted are read; a bad map checksum is fsck's finding */
	if (err == 1 || err == -EK_BADCRC)
		err = 0;
out:
	if (err) {
		free(r.buf);
	} else {
		*out = r.buf;
		*out_len = r.len;
	}
	ek_inode_release(&ei);
	return err;
}

/* ---- editing usage in place (fsck repairs) --------------------------------- */

int ek_quota_entry_offset(const void *bufp, size_t len, uint32_t id, size_t *out)
{
	const uint8_t *buf = bufp;
	size_t nblocks = len / QT_BLK;
	uint32_t blk = QT_TREEOFF;

	/* the path of @id: one byte of it per depth, high first (as the kernel's get_index()) */
	for (unsigned depth = 0; depth < QT_DEPTH; depth++) {
		uint32_t ref;

		if (blk >= nblocks)
			return ek_err(-EK_CORRUPT, "quota file: block %u past its %zu blocks", blk,
				      nblocks);
		ref = get_le32(buf + (size_t)blk * QT_BLK + 4 * ((id >> (8 * (QT_DEPTH - 1 - depth))) & 0xFF));
		if (!ref)
			return -ENOENT;
		if (ref <= QT_TREEOFF)
			return ek_err(-EK_CORRUPT, "quota file: pointer %u in block %u", ref, blk);
		blk = ref;
	}
	if (blk >= nblocks)
		return ek_err(-EK_CORRUPT, "quota file: block %u past its %zu blocks", blk, nblocks);
	for (unsigned i = 0; i < QT_PER_BLK; i++) {
		size_t off = (size_t)blk * QT_BLK + QT_DATA_HDR + i * QT_ENTRY;

		if (!entry_free(buf + off) && get_le32(buf + off) == id) {
			*out = off;
			return 0;
		}
	}
	return -ENOENT;
}

void ek_quota_entry_set_usage(uint8_t *e, uint64_t inodes, uint64_t space)
{
	struct ek_dquot d;

	entry_decode(e, &d);	/* the free-entry marker read as no grace time */
	put_le64(e + 0x18, inodes);
	put_le64(e + 0x30, space);
	put_le64(e + 0x40, d.itime);
	/* an entry that would read as free keeps the marker (v2r1_mem2diskdqblk) */
	if (entry_free(e))
		put_le64(e + 0x40, 1);
}

/* ---- the usage tally ------------------------------------------------------- */

static size_t tally_slot(const struct ek_quota_tally *t, uint32_t id)
{
	size_t i = (id * 0x9E3779B1u) & (t->cap - 1);

	while (t->slot[i].used && t->slot[i].u.id != id)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static struct ek_quota_usage *tally_get(struct ek_quota_tally *t, uint32_t id)
{
	size_t i;

	if ((t->count + 1) * 2 > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		struct ek_quota_tally n = { .cap = cap, .count = t->count };

		n.slot = ek_calloc(cap, sizeof(*n.slot));
		if (!n.slot)
			return NULL;
		for (size_t k = 0; k < t->cap; k++)
			if (t->slot[k].used)
				n.slot[tally_slot(&n, t->slot[k].u.id)] = t->slot[k];
		free(t->slot);
		*t = n;
	}
	i = tally_slot(t, id);
	if (!t->slot[i].used) {
		t->slot[i].used = true;
		t->slot[i].u = (struct ek_quota_usage){ .id = id };
		t->count++;
	}
	return &t->slot[i].u;
}

int ek_quota_tally_add(struct ek_quota_tally *t, uint32_t id, uint64_t inodes, uint64_t space,
		       bool uncertain)
{
	struct ek_quota_usage *u = tally_get(t, id);

	if (!u)
		return -ENOMEM;
	u->inodes += inodes;
	u->space += space;
	u->uncertain |= uncertain;
	return 0;
}

static int cmp_usage(const void *a, const void *b)
{
	const struct ek_quota_usage *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

int ek_quota_tally_sorted(const struct ek_quota_tally *t, struct ek_quota_usage **out)
{
	struct ek_quota_usage *v = ek_calloc(t->count ? t->count : 1, sizeof(*v));
	size_t n = 0;

	*out = NULL;
	if (!v)
		return -ENOMEM;
	for (size_t k = 0; k < t->cap; k++)
		if (t->slot[k].used)
			v[n++] = t->slot[k].u;
	if (n)
		qsort(v, n, sizeof(*v), cmp_usage);
	*out = v;
	return 0;
}

bool ek_quota_charged(const struct ek_fs *fs, ek_ino_t ino, uint32_t i_flags)
{
	return !(ino == ek_quota_inum(fs, EK_QUOTA_PRJ) || ino == fs->sb.orphan_file_inum ||
		 (ino != EXT4_ROOT_INO && ino < fs->sb.first_ino) || (i_flags & EXT4_EA_INODE_FL));
}

bool ek_quota_type_charged(const struct ek_fs *fs, unsigned type)
{
	return type != EK_QUOTA_PRJ || fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE;
}

void ek_quota_tally_release(struct ek_quota_tally *t)
{
	free(t->slot);
	memset(t, 0, sizeof(*t));
}

/* ---- encode ---------------------------------------------------------------- */

struct qenc {
	uint8_t *buf;
	size_t cap;		/* bytes allocated */
	uint32_t blocks;	/* dqi_blocks */
	uint32_t free_entry;	/* the data block being filled, or 0 */
};

/* a new zeroed block at the end (get_free_dqblk() with an empty free list) */
static int enc_new_block(struct qenc *e, uint32_t *out)
{
	size_t need = ((size_t)e->blocks + 1) * QT_BLK;

	if (e->blocks == UINT32_MAX >> 10)
		return -EINVAL;
	if (need > e->cap) {
		size_t old = e->cap;

		if (ek_grow(&e->buf, &e->cap, need, 1))
			return -ENOMEM;
		memset(e->buf + old, 0, e->cap - old);
	}
	*out = e->blocks++;
	return 0;
}

static void entry_encode(const struct ek_dquot *dq, uint8_t *e)
{
	memset(e, 0, QT_ENTRY);
	put_le32(e, dq->id);
	put_le64(e + 0x08, dq->ihardlimit);
	put_le64(e + 0x10, dq->isoftlimit);
	put_le64(e + 0x18, dq->curinodes);
	put_le64(e + 0x20, dq->bhardlimit);
	put_le64(e + 0x28, dq->bsoftlimit);
	put_le64(e + 0x30, dq->curspace);
	put_le64(e + 0x38, dq->btime);
	put_le64(e + 0x40, dq->itime);
	/* no all-zero entry is written (ek_quota_encode leaves those out), so
	 * the kernel's marker for one (inode grace end 1) is never needed */
}

/* as do_insert_tree() then find_free_dqentry() */
static int enc_insert(struct qenc *e, const struct ek_dquot *dq)
{
	uint32_t blk = QT_TREEOFF, data;
	uint8_t *b;
	int err;

	for (unsigned depth = 0; depth + 1 < QT_DEPTH; depth++) {
		unsigned i = (dq->id >> ((QT_DEPTH - depth - 1) * 8)) & 0xff;
		uint32_t next = get_le32(e->buf + (size_t)blk * QT_BLK + 4 * i);

		if (!next) {
			err = enc_new_block(e, &next);
			if (err)
				return err;
			put_le32(e->buf + (size_t)blk * QT_BLK + 4 * i, next);
		}
		blk = next;
	}
	if (get_le32(e->buf + (size_t)blk * QT_BLK + 4 * (dq->id & 0xff)))
		return -EINVAL;		/* the id twice: the caller's list is not sorted */
	if (!e->free_entry) {
		err = enc_new_block(e, &e->free_entry);
		if (err)
			return err;
	}
	data = e->free_entry;
	put_le32(e->buf + (size_t)blk * QT_BLK + 4 * (dq->id & 0xff), data);
	b = e->buf + (size_t)data * QT_BLK;
	put_le16(b + 8, get_le16(b + 8) + 1);
	/* blocks fill in order, so the first free entry is the count's */
	entry_encode(dq, b + QT_DATA_HDR + (get_le16(b + 8) - 1) * QT_ENTRY);
	if (get_le16(b + 8) == QT_PER_BLK)
		e->free_entry = 0;	/* full: off the free-entry list */
	return 0;
}

int ek_quota_encode(unsigned type, const struct ek_dquot *dq, size_t n, uint8_t **out,
		    size_t *out_len)
{
	struct qenc e = { 0 };
	uint32_t blk;
	int err = 0;

	*out = NULL;
	*out_len = 0;
	if (type >= EK_QUOTA_TYPES)
		return -EINVAL;
	for (size_t i = 1; i < n; i++)
		if (dq[i].id <= dq[i - 1].id)
			return -EINVAL;
	err = enc_new_block(&e, &blk);		/* header and info */
	if (!err)
		err = enc_new_block(&e, &blk);	/* the root */
	for (size_t i = 0; i < n && !err; i++) {
		const struct ek_dquot *d = &dq[i];

		/* v2_commit_dquot(): nothing used and no limit is no entry */
		if (!d->curspace && !d->curinodes && !d->bsoftlimit && !d->isoftlimit &&
		    !d->bhardlimit && !d->ihardlimit)
			continue;
		err = enc_insert(&e, d);
	}
	if (err) {
		free(e.buf);
		return err;
	}
	put_le32(e.buf, qmagic[type]);
	put_le32(e.buf + 4, 1);
	put_le32(e.buf + 0x08, QT_GRACE);
	put_le32(e.buf + 0x0C, QT_GRACE);
	put_le32(e.buf + 0x10, 0);
	put_le32(e.buf + 0x14, e.blocks);
	put_le32(e.buf + 0x18, 0);
	put_le32(e.buf + 0x1C, e.free_entry);
	*out = e.buf;
	*out_len = (size_t)e.blocks * QT_BLK;
	return 0;
}

void ek_quota_set_grace(uint8_t *buf, size_t len, uint32_t bgrace, uint32_t igrace)
{
	if (len < QT_BLK)
		return;
	put_le32(buf + 0x08, bgrace);
	put_le32(buf + 0x0C, igrace);
}
