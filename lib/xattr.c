// SPDX-License-Identifier: MIT
/*
 * xattr.c - extended attributes: in-inode (ibody) and the xattr block,
 * values in ea_inodes, and on-disk POSIX ACLs.
 *
 * Both places hold the same entry format, with different headers and
 * different bases for e_value_offs (kernel Documentation/filesystems/ext4/
 * attributes.rst):
 *
 *   in-inode, at 128 + i_extra_isize up to s_inode_size:
 *     0x0   __le32 h_magic       0xEA020000
 *     0x4   entries              value offsets count from here (first entry)
 *   xattr block (i_file_acl), one block:
 *     0x00  ext4_xattr_header    h_magic, h_refcount, h_blocks (must be 1),
 *                                h_hash, h_checksum
 *     0x20  entries              value offsets count from the block start
 *
 *   entry (ext4_xattr_entry, 16 bytes + name, padded to 4):
 *     0x0 e_name_len  0x1 e_name_index  0x2 e_value_offs  0x4 e_value_inum
 *     0x8 e_value_size  0xC e_hash  0x10 e_name (not NUL-terminated)
 *
 * The entry table grows down from the start and ends with a 4-byte zero;
 * values grow up from the end, each 4-byte aligned, and never overlap the
 * table.  With the ea_inode feature a value may live in its own inode
 * (e_value_inum != 0, EXT4_EA_INODE_FL, i_size == e_value_size).
 *
 * The block checksum (metadata_csum) is crc32c(fs seed, __le64 block
 * number) continued over the whole block with h_checksum as zero, as the
 * kernel's ext4_xattr_block_csum().
 *
 * Every walk is bounded by the region: each entry advances at least 16
 * bytes, and no value larger than EK_XATTR_SIZE_MAX (the kernel's
 * XATTR_SIZE_MAX) is ever allocated.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define ENTRY_SZ	sizeof(struct ext4_xattr_entry)
#define VALUE_PAD(n)	(((n) + 3u) & ~3u)
#define BLOCK_HDR_SZ	sizeof(struct ext4_xattr_header)

/*
 * Name prefixes by e_name_index.  Index 9 (encryption context, entry name
 * "c") has no prefix: the kernel never exposes it to userspace and
 * e2fsprogs shows it as the bare name.  5 and 10 are e2fsprogs' names for
 * Lustre and the Hurd.
 */
static const char *const xattr_prefixes[] = {
	[EXT4_XATTR_INDEX_USER]			= "user.",
	[EXT4_XATTR_INDEX_POSIX_ACL_ACCESS]	= "system.posix_acl_access",
	[EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT]	= "system.posix_acl_default",
	[EXT4_XATTR_INDEX_TRUSTED]		= "trusted.",
	[EXT4_XATTR_INDEX_LUSTRE]		= "lustre.",
	[EXT4_XATTR_INDEX_SECURITY]		= "security.",
	[EXT4_XATTR_INDEX_SYSTEM]		= "system.",
	[EXT4_XATTR_INDEX_RICHACL]		= "system.richacl",
	[EXT4_XATTR_INDEX_ENCRYPTION]		= "",
	[10]					= "gnu.",
};

const char *ek_xattr_prefix(uint8_t index)
{
	if (index < sizeof(xattr_prefixes) / sizeof(xattr_prefixes[0]) && xattr_prefixes[index])
		return xattr_prefixes[index];
	return "";
}

uint32_t ek_xattr_block_csum(const struct ek_fs *fs, ek_blk_t blk, const void *buf)
{
	const uint32_t off = offsetof(struct ext4_xattr_header, h_checksum);
	const uint8_t *p = buf;
	__le64 le_blk = cpu_to_le64(blk);
	uint32_t zero = 0;
	uint32_t c;

	c = ek_crc32c(fs->csum_seed, &le_blk, sizeof(le_blk));
	c = ek_crc32c(c, p, off);
	c = ek_crc32c(c, &zero, 4);
	return ek_crc32c(c, p + off + 4, fs->blksz - off - 4);
}

/* one place holding entries: the inode body or the xattr block */
struct xregion {
	const uint8_t *base;	/* e_value_offs counts from here */
	uint32_t len;		/* bytes from base to the end of the region */
	uint32_t first;		/* offset of the first entry from base */
	bool in_block;
	ek_blk_t blk;		/* in_block: the xattr block */
	ek_ino_t ino;		/* the inode the xattrs belong to */
};

/* one failure reason per call site, named by block or by inode */
#define xa_corrupt(r, fmt, ...)							\
	((r)->in_block ?							\
	 ek_corrupt((r)->blk, "xattr block of inode %u: " fmt, (r)->ino, __VA_ARGS__) : \
	 ek_corrupt_ino((r)->ino, "in-inode xattrs: " fmt, __VA_ARGS__))

struct xwalk {
	struct ek_fs *fs;
	const struct ek_inode *ei;
	ek_xattr_fn fn;
	void *arg;
	/* only entries matching this are passed to fn (ek_xattr_get) */
	bool filter;
	uint8_t want_index;
	const char *want_name;
	size_t want_len;
	/* non-fatal checksum mismatches, reported after the walk */
	bool block_csum_bad;
	ek_blk_t bad_blk;
	uint32_t bad_stored, bad_calc;
	ek_ino_t bad_ea_ino;	/* first ea_inode whose checksum failed */
	/* ek_xattr_check(): e2fsck's rules, ea_inode values not read */
	bool strict;
	enum ek_xattr_fault fault;	/* what the failure returned was */
	bool legacy;			/* the entry checked last is an old Lustre reference */
};

struct ea_value_buf {
	uint8_t *buf;
	uint32_t size;
};

static int ea_value_data(void *arg, uint64_t off, const void *buf, size_t len)
{
	struct ea_value_buf *v = arg;

	if (off > v->size || len > v->size - off)
		return ek_err(-EIO, "ea_inode read returned bytes past its size %u", v->size);
	memcpy(v->buf + off, buf, len);
	return 0;
}

static uint32_t xattr_hash_unsigned(const char *name, uint32_t name_len, const uint8_t *value,
				    uint32_t value_len);

/*
 * The hashes that tie an ea_inode to its value and its entry, as the
 * kernel's ext4_xattr_inode_verify_hashes(): the crc32c of the value
 * (seeded with the checksum seed) is what the ea_inode keeps in i_atime;
 * an in-inode entry's e_hash is the entry hash of its name and that value
 * hash (the unsigned-char form, or the signed one older kernels wrote).
 * Old Lustre ea_inodes (i_mtime naming the parent, its generation) carry
 * no hash: the kernel skips them.  Block entries are not checked here, as
 * the kernel leaves them to the block's own hash.
 */
static int ea_inode_hashes(struct xwalk *w, const struct xregion *r, uint32_t eoff,
			   const struct ek_inode *vi, const uint8_t *val, uint32_t size)
{
	const uint8_t *e = r->base + eoff;
	uint32_t want = (uint32_t)vi->atime.sec;	/* its low 32 bits */
	uint32_t hash = ek_crc32c(w->fs->csum_seed, val, size);
	uint32_t e_hash = get_le32(e + offsetof(struct ext4_xattr_entry, e_hash));
	uint8_t le[4];

	if ((uint32_t)vi->mtime.sec == w->ei->ino &&
	    vi->generation == w->ei->generation)
		return 0;
	if (hash != want)
		return xa_corrupt(r, "entry at offset %u: ea_inode %u holds a value of hash 0x%08x, "
				  "it records 0x%08x", eoff, vi->ino, hash, want);
	if (r->in_block)
		return 0;
	put_le32(le, hash);
	if (e_hash != xattr_hash_unsigned((const char *)e + ENTRY_SZ, e[0], le, 4) &&
	    e_hash != ek_xattr_hash((const char *)e + ENTRY_SZ, e[0], le, 4))
		return xa_corrupt(r, "entry at offset %u: e_hash 0x%08x does not match ea_inode %u",
				  eoff, e_hash, vi->ino);
	return 0;
}

/*
 * Read the value of entry @eoff held in ea_inode @inum into *out (owned
 * by the caller, freed with free()).
 */
static int ea_inode_value(struct xwalk *w, const struct xregion *r, uint32_t eoff,
			  ek_ino_t inum, uint32_t size, uint8_t **out)
{
	struct ea_value_buf v = { .size = size };
	struct ek_read_cb cb = { .data = ea_value_data, .arg = &v };
	struct ek_inode vi;
	int err;

	*out = NULL;
	if (!ek_has_incompat(w->fs, EXT4_FEATURE_INCOMPAT_EA_INODE))
		return xa_corrupt(r, "entry at offset %u refers to ea_inode %u but the ea_inode feature is off",
				  eoff, inum);
	if (inum < 1 || inum > w->fs->sb.inodes_count)
		return xa_corrupt(r, "entry at offset %u refers to ea_inode %u outside 1..%u",
				  eoff, inum, w->fs->sb.inodes_count);
	err = ek_inode_read(w->fs, inum, &vi);
	if (err == -EK_BADCRC) {
		if (!w->bad_ea_ino)
			w->bad_ea_ino = inum;
		err = 0;
	}
	if (err)
		goto out_release;
	if (!(vi.flags & EXT4_EA_INODE_FL)) {
		err = xa_corrupt(r, "entry at offset %u: ea_inode %u lacks the EA_INODE flag (flags 0x%x)",
				 eoff, inum, vi.flags);
		goto out_release;
	}
	/* ea_inode data is block-mapped; inline data would recurse into xattrs */
	if (vi.flags & EXT4_INLINE_DATA_FL) {
		err = xa_corrupt(r, "entry at offset %u: ea_inode %u has inline data", eoff, inum);
		goto out_release;
	}
	if (vi.size != size) {
		err = xa_corrupt(r, "entry at offset %u: ea_inode %u holds %llu bytes, the entry says %u",
				 eoff, inum, (unsigned long long)vi.size, size);
		goto out_release;
	}
	v.buf = ek_calloc(1, size ? size : 1);
	if (!v.buf) {
		err = -ENOMEM;
		goto out_release;
	}
	err = ek_file_read(w->fs, &vi, 0, &cb);
	if (err == -EK_BADCRC) {
		if (!w->bad_ea_ino)
			w->bad_ea_ino = inum;
		err = 0;
	}
	if (!err)
		err = ea_inode_hashes(w, r, eoff, &vi, v.buf, size);
	if (err)
		free(v.buf);
	else
		*out = v.buf;
out_release:
	ek_inode_release(&vi);
	return err;
}

static bool entry_wanted(const struct xwalk *w, const uint8_t *e)
{
	if (!w->filter)
		return true;
	return e[0] == w->want_len && e[1] == w->want_index &&
	       !memcmp(e + ENTRY_SZ, w->want_name, w->want_len);
}

/*
 * e2fsck's rules for an entry (check_ea_in_inode(), check_ext_attr(),
 * check_large_ea_inode()), beyond the kernel's: its value overlaps no
 * other entry's value; an inline value's e_hash is the entry hash of its
 * name and value (unsigned or signed name bytes; 0 allowed in the inode
 * body); a value inode is a regular inode past the reserved ones, holding
 * e_value_size (not 0) bytes, and e_hash is the entry hash of the name and
 * the value hash the value inode records (i_atime), unless it is an old
 * Lustre one (i_mtime naming the parent, its generation).  A value inode
 * missing EXT4_EA_INODE_FL whose hash matches is left to the caller (it
 * sets the flag, as e2fsck); one whose hash does not is a bad reference.
 */
static int strict_entry(struct xwalk *w, const struct xregion *r, uint32_t off, uint32_t term)
{
	const uint8_t *b = r->base, *e = b + off;
	const char *name = (const char *)e + ENTRY_SZ;
	uint32_t vsize = get_le32(e + offsetof(struct ext4_xattr_entry, e_value_size));
	uint32_t voffs = get_le16(e + offsetof(struct ext4_xattr_entry, e_value_offs));
	uint32_t inum = get_le32(e + offsetof(struct ext4_xattr_entry, e_value_inum));
	uint32_t e_hash = get_le32(e + offsetof(struct ext4_xattr_entry, e_hash));
	struct ek_inode vi;
	uint8_t le[4];
	int err;

	if (!inum) {
		/* values grow down from the end: check against every other entry's */
		for (uint32_t o = r->first; vsize && o < term; o += EXT4_XATTR_LEN(b[o])) {
			uint32_t os = get_le32(b + o + offsetof(struct ext4_xattr_entry, e_value_size));
			uint32_t oo = get_le16(b + o + offsetof(struct ext4_xattr_entry, e_value_offs));

			if (o == off || !os || get_le32(b + o + offsetof(struct ext4_xattr_entry, e_value_inum)))
				continue;
			if (voffs < oo + VALUE_PAD(os) && oo < voffs + VALUE_PAD(vsize))
				return xa_corrupt(r, "entry at offset %u: value at %u overlaps the value of "
						  "the entry at offset %u", off, voffs, o);
		}
		if ((r->in_block || e_hash) &&
		    e_hash != xattr_hash_unsigned(name, e[0], b + voffs, vsize) &&
		    e_hash != ek_xattr_hash(name, e[0], b + voffs, vsize)) {
			w->fault = EK_XATTR_FAULT_ENTRY;
			return xa_corrupt(r, "entry at offset %u: e_hash 0x%08x does not match its value",
					  off, e_hash);
		}
		return 0;
	}
	w->fault = EK_XATTR_FAULT_ENTRY;
	if (inum < w->fs->sb.first_ino || inum > w->fs->sb.inodes_count)
		return xa_corrupt(r, "entry at offset %u refers to ea_inode %u outside %u..%u",
				  off, inum, w->fs->sb.first_ino, w->fs->sb.inodes_count);
	if (!vsize)
		return xa_corrupt(r, "entry at offset %u: ea_inode %u with a value size of 0", off, inum);
	err = ek_inode_read(w->fs, inum, &vi);
	/* its own damage is its own check's (decoded all the same) */
	if (err && vi.raw && err != -ENOMEM && err != -EIO)
		err = 0;
	if (err) {
		w->fault = EK_XATTR_FAULT_LAYOUT;
		return err;
	}
	if (vi.size != vsize)
		err = xa_corrupt(r, "entry at offset %u: ea_inode %u holds %llu bytes, the entry says %u",
				 off, inum, (unsigned long long)vi.size, vsize);
	put_le32(le, (uint32_t)vi.atime.sec);
	w->legacy = false;
	if (!err && e_hash != xattr_hash_unsigned(name, e[0], le, 4) &&
	    e_hash != ek_xattr_hash(name, e[0], le, 4) &&
	    !(w->legacy = (uint32_t)vi.mtime.sec == w->ei->ino && vi.generation == w->ei->generation))
		err = !(vi.flags & EXT4_EA_INODE_FL) ?
		      xa_corrupt(r, "entry at offset %u: inode %u is not an ea_inode (no EA_INODE "
				 "flag, e_hash 0x%08x does not match)", off, inum, e_hash) :
		      xa_corrupt(r, "entry at offset %u: e_hash 0x%08x does not match ea_inode %u",
				 off, e_hash, inum);
	ek_inode_release(&vi);
	if (!err)
		w->fault = 0;
	return err;
}

/*
 * The checker for one region (kernel check_xattrs()): first walk the entry
 * table to its terminating zero word, checking each header and name; then
 * check each value and pass the entry to the callback.
 */
static int walk_region(struct xwalk *w, const struct xregion *r)
{
	const uint8_t *b = r->base;
	uint32_t off, term;
	int err;

	for (off = r->first;; off += EXT4_XATTR_LEN(b[off])) {
		uint8_t name_len;

		if (off + 4 > r->len)
			return xa_corrupt(r, "entry list is not terminated by a zero word before offset %u",
					  r->len);
		if (get_le32(b + off) == 0)
			break;
		if (off + ENTRY_SZ > r->len)
			return xa_corrupt(r, "entry at offset %u: header runs past the end at %u",
					  off, r->len);
		name_len = b[off];
		if (off + ENTRY_SZ + name_len > r->len) {
			w->fault = EK_XATTR_FAULT_ENTRY;	/* e2fsck: "namelen is invalid" */
			return xa_corrupt(r, "entry at offset %u: name of %u bytes runs past the end at %u",
					  off, name_len, r->len);
		}
		/* e2fsck: a block entry without a name index is corrupt */
		if (w->strict && r->in_block && !b[off + 1])
			return xa_corrupt(r, "entry at offset %u: name index 0", off);
		if (memchr(b + off + ENTRY_SZ, 0, name_len))
			return xa_corrupt(r, "entry at offset %u: name of %u bytes contains a NUL byte",
					  off, name_len);
		/* len and off are multiples of 4, so the padded entry still fits */
	}
	term = off;

	for (off = r->first; off < term; off += EXT4_XATTR_LEN(b[off])) {
		const struct ext4_xattr_entry *e = (const void *)(b + off);
		uint32_t vsize = get_le32(b + off + offsetof(struct ext4_xattr_entry, e_value_size));
		uint32_t voffs = get_le16(b + off + offsetof(struct ext4_xattr_entry, e_value_offs));
		uint32_t inum = get_le32(b + off + offsetof(struct ext4_xattr_entry, e_value_inum));
		struct ek_xattr xa = {
			.index = e->e_name_index,
			.prefix = ek_xattr_prefix(e->e_name_index),
			.name = (const char *)(b + off + ENTRY_SZ),
			.name_len = e->e_name_len,
			.value_len = vsize,
			.value_inum = inum,
			.in_block = r->in_block,
			.hash = get_le32(b + off + offsetof(struct ext4_xattr_entry, e_hash)),
		};
		uint8_t *ea_val = NULL;

		if (vsize > EK_XATTR_SIZE_MAX) {
			w->fault = EK_XATTR_FAULT_ENTRY;
			return xa_corrupt(r, "entry at offset %u: value size %u exceeds %u",
					  off, vsize, EK_XATTR_SIZE_MAX);
		}
		if (!inum && vsize) {
			if (voffs & 3)
				return xa_corrupt(r, "entry at offset %u: value offset %u is not 4-byte aligned",
						  off, voffs);
			if (voffs + vsize > r->len) {
				w->fault = EK_XATTR_FAULT_ENTRY;
				return xa_corrupt(r, "entry at offset %u: value %u+%u runs past the end at %u",
						  off, voffs, vsize, r->len);
			}
			if (voffs < term + 4)
				return xa_corrupt(r, "entry at offset %u: value at %u overlaps the entry table ending at %u",
						  off, voffs, term + 4);
		}
		if (w->strict) {
			err = strict_entry(w, r, off, term);
			if (err)
				return err;
		}
		if (!entry_wanted(w, b + off))
			continue;
		if (inum && w->strict) {
			xa.value = NULL;	/* not read: e2fsck judges the value inode, not its bytes */
			xa.ea_legacy = w->legacy;
		} else if (inum) {
			err = ea_inode_value(w, r, off, inum, vsize, &ea_val);
			if (err)
				return err;
			xa.value = ea_val;
		} else {
			xa.value = vsize ? b + voffs : b + term;	/* never NULL */
		}
		err = w->fn(w->arg, &xa);
		free(ea_val);
		if (err)
			return err;
	}
	return 0;
}

static int walk_ibody(struct xwalk *w)
{
	const struct ek_inode *ei = w->ei;
	uint32_t isz = w->fs->inode_size;
	uint32_t hdr;
	struct xregion r;

	/*
	 * As the kernel: no in-inode xattrs without room for the magic, or
	 * when i_extra_isize is 0 (ek_inode_decode also leaves 0 for an
	 * invalid one and reports it).
	 */
	if (isz <= EXT4_GOOD_OLD_INODE_SIZE || !ei->extra_isize || ei->raw_size < isz)
		return 0;
	hdr = EXT4_GOOD_OLD_INODE_SIZE + ei->extra_isize;
	if (hdr + 4 > isz || get_le32(ei->raw + hdr) != EXT4_XATTR_MAGIC)
		return 0;
	r = (struct xregion){
		.base = ei->raw + hdr + 4,
		.len = isz - hdr - 4,
		.first = 0,
		.ino = ei->ino,
	};
	return walk_region(w, &r);
}

/* xattr block @blk of inode @ino, read and its magic checked; *buf to free */
static int read_xattr_block(struct ek_fs *fs, ek_blk_t blk, ek_ino_t ino, uint8_t **buf)
{
	int err;

	if (!ek_fs_block_valid(fs, blk))
		return ek_corrupt_ino(ino, "xattr block %llu is outside the filesystem",
				      (unsigned long long)blk);
	*buf = ek_malloc(fs->blksz);
	if (!*buf)
		return -ENOMEM;
	err = ek_fs_read_blocks(fs, blk, 1, *buf);
	if (!err && get_le32(*buf + offsetof(struct ext4_xattr_header, h_magic)) != EXT4_XATTR_MAGIC)
		err = ek_corrupt(blk, "xattr block of inode %u: bad magic 0x%08x", ino,
				 get_le32(*buf + offsetof(struct ext4_xattr_header, h_magic)));
	if (err) {
		free(*buf);
		*buf = NULL;
	}
	return err;
}

int ek_xattr_block_refcount(struct ek_fs *fs, ek_blk_t blk, ek_ino_t ino, uint32_t *out)
{
	uint8_t *buf;
	int err = read_xattr_block(fs, blk, ino, &buf);

	if (!err)
		*out = get_le32(buf + offsetof(struct ext4_xattr_header, h_refcount));
	free(buf);
	return err;
}

static int walk_block(struct xwalk *w)
{
	struct ek_fs *fs = w->fs;
	ek_blk_t blk = w->ei->file_acl;
	const struct ext4_xattr_header *h;
	struct xregion r;
	uint8_t *buf;
	uint32_t blocks;
	int err;

	if (!blk)
		return 0;
	err = read_xattr_block(fs, blk, w->ei->ino, &buf);
	if (err)
		return err;
	h = (const void *)buf;
	if (fs->has_csum) {
		uint32_t c = ek_xattr_block_csum(fs, blk, buf);

		if (c != le32_to_cpu(h->h_checksum)) {
			w->block_csum_bad = true;
			w->bad_blk = blk;
			w->bad_stored = le32_to_cpu(h->h_checksum);
			w->bad_calc = c;
		}
	}
	blocks = le32_to_cpu(h->h_blocks);
	if (blocks != 1) {
		err = ek_corrupt(blk, "xattr block of inode %u: h_blocks %u, expected 1",
				 w->ei->ino, blocks);
		goto out_free;
	}
	r = (struct xregion){
		.base = buf,
		.len = fs->blksz,
		.first = BLOCK_HDR_SZ,
		.in_block = true,
		.blk = blk,
		.ino = w->ei->ino,
	};
	err = walk_region(w, &r);
out_free:
	free(buf);
	return err;
}

/* record the deferred checksum finding; -EK_BADCRC or 0 */
static int report_badcrc(const struct xwalk *w)
{
	if (w->block_csum_bad)
		return ek_badcrc(w->bad_blk, "xattr block of inode %u: checksum 0x%08x does not match 0x%08x",
				 w->ei->ino, w->bad_stored, w->bad_calc);
	if (w->bad_ea_ino)
		return ek_badcrc_ino(w->bad_ea_ino, "checksum mismatch in ea_inode of inode %u",
				     w->ei->ino);
	return 0;
}

int ek_xattr_iterate(struct ek_fs *fs, const struct ek_inode *ei, ek_xattr_fn fn, void *arg)
{
	struct xwalk w = { .fs = fs, .ei = ei, .fn = fn, .arg = arg };
	int err;

	err = walk_ibody(&w);
	if (!err)
		err = walk_block(&w);
	if (err)
		return err;
	return report_badcrc(&w);
}

int ek_xattr_check(struct ek_fs *fs, const struct ek_inode *ei, bool block, ek_xattr_fn fn,
		   void *arg, enum ek_xattr_fault *fault)
{
	struct xwalk w = { .fs = fs, .ei = ei, .fn = fn, .arg = arg, .strict = true,
			   .fault = EK_XATTR_FAULT_LAYOUT };
	int err = block ? walk_block(&w) : walk_ibody(&w);

	if (!err && w.block_csum_bad)
		err = report_badcrc(&w);
	*fault = err && err != -EK_BADCRC ? w.fault : 0;
	return err;
}

struct xget {
	uint8_t *val;
	size_t len;
	bool found;
};

static int get_one(void *arg, const struct ek_xattr *xa)
{
	struct xget *g = arg;

	g->val = ek_malloc(xa->value_len ? xa->value_len : 1);
	if (!g->val)
		return -ENOMEM;
	memcpy(g->val, xa->value, xa->value_len);
	g->len = xa->value_len;
	g->found = true;
	return 1;
}

int ek_xattr_get(struct ek_fs *fs, const struct ek_inode *ei, uint8_t index,
		 const char *name, size_t name_len, uint8_t **out, size_t *out_len)
{
	struct xget g = { 0 };
	struct xwalk w = {
		.fs = fs, .ei = ei, .fn = get_one, .arg = &g,
		.filter = true, .want_index = index, .want_name = name, .want_len = name_len,
	};
	int err;

	*out = NULL;
	*out_len = 0;
	if (name_len > 255)
		return -ENODATA;
	/* as the kernel's ext4_xattr_get(): the inode body first, then the block */
	err = walk_ibody(&w);
	if (!err)
		err = walk_block(&w);
	if (err == 1)
		err = 0;
	if (!err)
		err = report_badcrc(&w);
	if (!err && !g.found)
		err = -ENODATA;
	if (err) {
		free(g.val);
		return err;
	}
	*out = g.val;
	*out_len = g.len;
	return 0;
}

/*
 * POSIX ACLs.  On disk (fs/ext4/acl.h): __le32 version 1, then entries of
 * __le16 tag, __le16 perm and, for ACL_USER and ACL_GROUP only, __le32 id.
 * The VFS xattr format (posix_acl_xattr): __le32 version 2, then 8-byte
 * entries tag, perm, id with id -1 for the tags that carry none.
 */
#define ACL_USER_OBJ	0x01
#define ACL_USER	0x02
#define ACL_GROUP_OBJ	0x04
#define ACL_GROUP	0x08
#define ACL_MASK	0x10
#define ACL_OTHER	0x20
#define POSIX_ACL_XATTR_VERSION	0x0002
#define ACL_UNDEFINED_ID	0xFFFFFFFFu

#define ACL_HDR_SZ	sizeof(struct ext4_acl_header)
#define ACL_SHORT_SZ	sizeof(struct ext4_acl_entry_short)
#define ACL_LONG_SZ	sizeof(struct ext4_acl_entry)

int ek_acl_to_xattr(const uint8_t *val, size_t len, uint8_t **out, size_t *out_len)
{
	size_t body, count, off, olen;
	uint8_t *o;

	*out = NULL;
	*out_len = 0;
	if (len < ACL_HDR_SZ)
		return ek_corrupt_fs("acl of %zu bytes is shorter than its header", len);
	if (len > EK_XATTR_SIZE_MAX)
		return ek_corrupt_fs("acl of %zu bytes exceeds %u", len, EK_XATTR_SIZE_MAX);
	if (get_le32(val) != EXT4_ACL_VERSION)
		return ek_corrupt_fs("acl version %u, expected %u", get_le32(val), EXT4_ACL_VERSION);
	/*
	 * Entry count from the size as the kernel's ext4_acl_count(): up to
	 * four short entries (USER_OBJ, GROUP_OBJ, MASK, OTHER), then long ones.
	 */
	body = len - ACL_HDR_SZ;
	if (body <= 4 * ACL_SHORT_SZ) {
		if (body % ACL_SHORT_SZ)
			return ek_corrupt_fs("acl of %zu bytes is not a whole number of entries", len);
		count = body / ACL_SHORT_SZ;
	} else {
		if ((body - 4 * ACL_SHORT_SZ) % ACL_LONG_SZ)
			return ek_corrupt_fs("acl of %zu bytes is not four short entries plus long ones",
					     len);
		count = 4 + (body - 4 * ACL_SHORT_SZ) / ACL_LONG_SZ;
	}
	olen = ACL_HDR_SZ + count * 8;
	o = ek_calloc(1, olen);
	if (!o)
		return -ENOMEM;
	put_le32(o, POSIX_ACL_XATTR_VERSION);
	off = ACL_HDR_SZ;
	for (size_t n = 0; n < count; n++) {
		uint8_t *d = o + ACL_HDR_SZ + n * 8;
		uint16_t tag, perm;
		uint32_t id = ACL_UNDEFINED_ID;

		if (off + ACL_SHORT_SZ > len)
			goto out_trunc;
		tag = get_le16(val + off);
		perm = get_le16(val + off + 2);
		switch (tag) {
		case ACL_USER_OBJ:
		case ACL_GROUP_OBJ:
		case ACL_MASK:
		case ACL_OTHER:
			off += ACL_SHORT_SZ;
			break;
		case ACL_USER:
		case ACL_GROUP:
			if (off + ACL_LONG_SZ > len)
				goto out_trunc;
			id = get_le32(val + off + 4);
			off += ACL_LONG_SZ;
			break;
		default:
			free(o);
			return ek_corrupt_fs("acl entry %zu has unknown tag 0x%x", n, tag);
		}
		put_le16(d, tag);
		put_le16(d + 2, perm);
		put_le32(d + 4, id);
	}
	if (off != len) {
		free(o);
		return ek_corrupt_fs("acl entries end at byte %zu of %zu", off, len);
	}
	*out = o;
	*out_len = olen;
	return 0;

out_trunc:
	free(o);
	return ek_corrupt_fs("acl entry at byte %zu runs past the end at %zu", off, len);
}

/* the kernel's ext4_xattr_hash_entry(): name bytes (signed), then value words */
uint32_t ek_xattr_hash(const char *name, uint32_t name_len, const void *value, uint32_t value_len)
{
	const uint8_t *v = value;
	uint32_t hash = 0;

	for (uint32_t i = 0; i < name_len; i++)
		hash = (hash << 5) ^ (hash >> 27) ^ (uint32_t)(int32_t)(signed char)name[i];
	for (uint32_t i = 0; i + 4 <= ((value_len + 3) & ~3u); i += 4) {
		uint32_t w = 0;

		memcpy(&w, v + i, i + 4 <= value_len ? 4 : value_len - i);
		hash = (hash << 16) ^ (hash >> 16) ^ le32_to_cpu((__le32)w);
	}
	return hash;
}

/*
 * Building the xattrs of a new inode (mkfs -d).
 *
 * Placement, chosen so that the result depends only on the set of xattrs
 * and the geometry, never on the order of the input (listxattr order
 * differs between hosts):
 *
 *   1. every xattr is sorted as the kernel sorts block entries
 *      (ext4_xattr_find_entry(): name index, then name length, then the
 *      name bytes), and a name given twice is refused;
 *   2. "system.data" (inline data) goes into the inode body first: the
 *      kernel looks for it there only;
 *   3. the others, in that order, each go into the inode body if they still
 *      fit, as the kernel's ext4_xattr_set_handle() tries the body before
 *      the block for every xattr it sets (first fit: a small xattr after
 *      one that spilled may still go into the body);
 *   4. the rest go into one xattr block, in the same (sorted) order.
 *
 * Values are packed from the end of their region in entry order, padded
 * to 4 bytes with zeros; an empty value has offset 0 and size 0.  Entries
 * in the body get e_hash 0 and block entries the kernel's entry hash, as
 * ext4_xattr_set_entry() (e2fsck checks a nonzero in-inode hash only).
 * Names are hashed as unsigned bytes, as the kernel writes them since
 * f3bbac32475b (6.2, in stable kernels too; it had used signed char on
 * x86, which ek_xattr_hash() still computes); e2fsck 1.47 accepts them.
 */

/* name prefixes; the first match wins, so exact names precede "system." */
static const struct {
	const char *prefix;
	uint8_t index;
	bool exact;		/* the whole name, nothing may follow */
} build_prefixes[] = {
	{ "system.posix_acl_access",	EXT4_XATTR_INDEX_POSIX_ACL_ACCESS,	true },
	{ "system.posix_acl_default",	EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT,	true },
	{ "system.richacl",		EXT4_XATTR_INDEX_RICHACL,		true },
	{ "user.",			EXT4_XATTR_INDEX_USER,			false },
	{ "trusted.",			EXT4_XATTR_INDEX_TRUSTED,		false },
	{ "security.",			EXT4_XATTR_INDEX_SECURITY,		false },
	{ "system.",			EXT4_XATTR_INDEX_SYSTEM,		false },
	{ "lustre.",			EXT4_XATTR_INDEX_LUSTRE,		false },
	{ "gnu.",			10,					false },
};

/* one xattr being placed */
struct xbuild {
	const char *full;	/* the name as given, for messages */
	const char *name;	/* after the prefix, not NUL-terminated on disk */
	uint8_t name_len;
	uint8_t index;
	bool is_data;		/* system.data */
	const uint8_t *value;	/* the caller's value or @acl */
	uint32_t len;		/* value bytes, at most EK_XATTR_SIZE_MAX + 1 */
	size_t given_len;	/* the caller's length, for messages */
	uint8_t *acl;		/* converted ACL (owned), else NULL */
};

/* an error about inode @ino: the message starts "inode N: " */
#define xb_err(code, ino, ...) \
	ek__error((code), __FILE__, __LINE__, EK_AT_INODE, (ino), __VA_ARGS__)

#define VALUE_SIZE(len)	(((len) + EXT4_XATTR_ROUND) & ~(uint32_t)EXT4_XATTR_ROUND)

/* the kernel's ext4_xattr_hash_entry() since 6.2: unsigned name bytes */
static uint32_t xattr_hash_unsigned(const char *name, uint32_t name_len,
				    const uint8_t *value, uint32_t value_len)
{
	uint32_t hash = 0;

	for (uint32_t i = 0; i < name_len; i++)
		hash = (hash << 5) ^ (hash >> 27) ^ (uint8_t)name[i];
	for (uint32_t i = 0; i < value_len; i += 4) {
		uint8_t w[4] = { 0 };

		memcpy(w, value + i, value_len - i < 4 ? value_len - i : 4);
		hash = (hash << 16) ^ (hash >> 16) ^ get_le32(w);
	}
	return hash;
}

int ek_acl_from_xattr(const uint8_t *val, size_t len, uint8_t **out, size_t *out_len)
{
	/* posix_acl_valid(): the order USER_OBJ USER* GROUP_OBJ GROUP* MASK? OTHER */
	enum { S_USER_OBJ, S_USER, S_GROUP, S_OTHER, S_DONE } state = S_USER_OBJ;
	bool needs_mask = false;
	size_t count, olen, off;
	uint8_t *o;

	*out = NULL;
	*out_len = 0;
	if (len < ACL_HDR_SZ)
		return ek_err(-EINVAL, "acl of %zu bytes is shorter than its header", len);
	if (len > EK_XATTR_SIZE_MAX)
		return ek_err(-EINVAL, "acl of %zu bytes exceeds %u", len, EK_XATTR_SIZE_MAX);
	if (get_le32(val) != POSIX_ACL_XATTR_VERSION)
		return ek_err(-EINVAL, "acl version %u, expected %u", get_le32(val),
			      POSIX_ACL_XATTR_VERSION);
	if ((len - ACL_HDR_SZ) % 8)
		return ek_err(-EINVAL, "acl of %zu bytes is not a whole number of 8-byte entries",
			      len);
	count = (len - ACL_HDR_SZ) / 8;
	olen = ACL_HDR_SZ;
	for (size_t n = 0; n < count; n++) {
		const uint8_t *s = val + ACL_HDR_SZ + n * 8;
		uint16_t tag = get_le16(s), perm = get_le16(s + 2);
		bool ok;

		if (perm & ~7u)
			return ek_err(-EINVAL, "acl entry %zu has permissions 0x%x beyond rwx", n, perm);
		switch (tag) {
		case ACL_USER_OBJ:
			ok = state == S_USER_OBJ;
			state = S_USER;
			break;
		case ACL_USER:
			ok = state == S_USER;
			needs_mask = true;
			break;
		case ACL_GROUP_OBJ:
			ok = state == S_USER;
			state = S_GROUP;
			break;
		case ACL_GROUP:
			ok = state == S_GROUP;
			needs_mask = true;
			break;
		case ACL_MASK:
			ok = state == S_GROUP;
			state = S_OTHER;
			break;
		case ACL_OTHER:
			ok = state == S_OTHER || (state == S_GROUP && !needs_mask);
			state = S_DONE;
			break;
		default:
			return ek_err(-EINVAL, "acl entry %zu has unknown tag 0x%x", n, tag);
		}
		if (!ok)
			return ek_err(-EINVAL, "acl entry %zu: tag 0x%x out of order", n, tag);
		olen += (tag == ACL_USER || tag == ACL_GROUP) ? ACL_LONG_SZ : ACL_SHORT_SZ;
	}
	/* the header alone (no entries) is kept as is, as e2fsprogs does */
	if (count && state != S_DONE)
		return ek_err(-EINVAL, "acl ends without its %s entry",
			      needs_mask && state == S_GROUP ? "mask" : "other");
	o = ek_calloc(1, olen);
	if (!o)
		return -ENOMEM;
	put_le32(o, EXT4_ACL_VERSION);
	off = ACL_HDR_SZ;
	for (size_t n = 0; n < count; n++) {
		const uint8_t *s = val + ACL_HDR_SZ + n * 8;
		uint16_t tag = get_le16(s);

		put_le16(o + off, tag);
		put_le16(o + off + 2, get_le16(s + 2));
		if (tag == ACL_USER || tag == ACL_GROUP) {
			put_le32(o + off + 4, get_le32(s + 4));
			off += ACL_LONG_SZ;
		} else {
			off += ACL_SHORT_SZ;
		}
	}
	*out = o;
	*out_len = olen;
	return 0;
}

/* map @x->name to its index and suffix; convert ACL values */
static int xbuild_parse(ek_ino_t ino, const struct ek_xattr_new *x, struct xbuild *b)
{
	size_t full_len, nl;
	int err;

	if (!x->name)
		return xb_err(-EINVAL, ino, "xattr without a name");
	if (!x->value && x->len)
		return xb_err(-EINVAL, ino, "xattr '%s' has %zu bytes but no value", x->name, x->len);
	full_len = strlen(x->name);
	b->full = x->name;
	for (size_t i = 0; i < sizeof(build_prefixes) / sizeof(build_prefixes[0]); i++) {
		size_t pl = strlen(build_prefixes[i].prefix);

		if (strncmp(x->name, build_prefixes[i].prefix, pl))
			continue;
		if (build_prefixes[i].exact && full_len != pl)
			continue;
		if (!build_prefixes[i].exact && full_len == pl)
			return xb_err(-EINVAL, ino, "xattr name '%s' is a bare prefix", x->name);
		b->index = build_prefixes[i].index;
		b->name = x->name + pl;
		nl = full_len - pl;
		if (nl > 255)
			return xb_err(-EINVAL, ino, "xattr '%.64s...': name of %zu bytes after the prefix exceeds 255",
				      x->name, nl);
		b->name_len = nl;
		break;
	}
	if (!b->index)
		return xb_err(-EINVAL, ino, "xattr '%s' has no known prefix", x->name);
	b->is_data = b->index == EXT4_XATTR_INDEX_SYSTEM && b->name_len == 4 &&
		     !memcmp(b->name, "data", 4);
	if (b->index == EXT4_XATTR_INDEX_POSIX_ACL_ACCESS ||
	    b->index == EXT4_XATTR_INDEX_POSIX_ACL_DEFAULT) {
		size_t alen;

		err = ek_acl_from_xattr(x->value, x->len, &b->acl, &alen);
		if (err) {
			char msg[sizeof(ek_last_error()->msg)];

			if (err != -EINVAL)
				return err;
			snprintf(msg, sizeof(msg), "%s", ek_last_error()->msg);
			return xb_err(err, ino, "xattr '%s': %s", x->name, msg);
		}
		b->value = b->acl;
		b->len = alen;
		b->given_len = alen;
		return 0;
	}
	/* anything larger fits neither the body nor a block */
	b->value = x->value;
	b->given_len = x->len;
	b->len = x->len > EK_XATTR_SIZE_MAX + 1 ? EK_XATTR_SIZE_MAX + 1 : x->len;
	return 0;
}

/* the kernel's block order (ext4_xattr_find_entry(), sorted) */
static int xbuild_cmp(const void *pa, const void *pb)
{
	const struct xbuild *a = pa, *b = pb;

	if (a->index != b->index)
		return a->index < b->index ? -1 : 1;
	if (a->name_len != b->name_len)
		return a->name_len < b->name_len ? -1 : 1;
	return memcmp(a->name, b->name, a->name_len);
}

/* bytes an xattr takes from its region: entry and padded value */
static uint32_t xbuild_size(const struct xbuild *b)
{
	return EXT4_XATTR_LEN(b->name_len) + VALUE_SIZE(b->len);
}

/*
 * Write @n entries from @first (relative to @base) and their values down
 * from @len; value offsets count from @base.  The region is zeroed and
 * was checked to hold them and the terminating zero word.
 */
static void xbuild_write(uint8_t *base, uint32_t len, uint32_t first,
			 struct xbuild *const *x, size_t n, bool hash)
{
	uint32_t off = first, vend = len;

	for (size_t i = 0; i < n; i++) {
		const struct xbuild *b = x[i];
		uint8_t *e = base + off;

		e[offsetof(struct ext4_xattr_entry, e_name_len)] = b->name_len;
		e[offsetof(struct ext4_xattr_entry, e_name_index)] = b->index;
		if (b->len) {
			vend -= VALUE_SIZE(b->len);
			memcpy(base + vend, b->value, b->len);
		}
		/* an empty value: where the next would end, as libext2fs writes it */
		put_le16(e + offsetof(struct ext4_xattr_entry, e_value_offs), vend);
		put_le32(e + offsetof(struct ext4_xattr_entry, e_value_size), b->len);
		if (hash)
			put_le32(e + offsetof(struct ext4_xattr_entry, e_hash),
				 xattr_hash_unsigned(b->name, b->name_len, b->value, b->len));
		memcpy(e + ENTRY_SZ, b->name, b->name_len);
		off += EXT4_XATTR_LEN(b->name_len);
	}
}

int ek_xattr_build(const struct ek_fs *fs, ek_ino_t ino, uint8_t *raw,
		   const struct ek_xattr_new *x, size_t n, uint8_t **block)
{
	uint32_t isz = fs->inode_size, extra = 0, hdr = 0;
	uint32_t body_len = 0, body_used = 0, blk_used = BLOCK_HDR_SZ + 4;
	struct xbuild *b, **body = NULL, **blk = NULL;
	size_t nbody = 0, nblk = 0;
	int err = 0;

	*block = NULL;
	if (isz > EXT4_GOOD_OLD_INODE_SIZE) {
		extra = get_le16(raw + offsetof(struct ext4_inode, i_extra_isize));
		if (extra & 3 || extra > isz - EXT4_GOOD_OLD_INODE_SIZE)
			return xb_err(-EINVAL, ino, "i_extra_isize %u is invalid for %u-byte inodes",
				      extra, isz);
		hdr = EXT4_GOOD_OLD_INODE_SIZE + extra;
		/* as the kernel, no in-inode xattrs with i_extra_isize 0 */
		if (extra && hdr + 4 + 4 <= isz)
			body_len = isz - hdr - 4;
	}
	b = ek_calloc(n, sizeof(*b));
	body = ek_calloc(n, sizeof(*body));
	blk = ek_calloc(n, sizeof(*blk));
	if (!b || !body || !blk) {
		err = -ENOMEM;
		goto out_free;
	}
	for (size_t i = 0; i < n; i++) {
		err = xbuild_parse(ino, &x[i], &b[i]);
		if (err)
			goto out_free;
	}
	if (n)
		qsort(b, n, sizeof(*b), xbuild_cmp);
	for (size_t i = 1; i < n; i++) {
		if (!xbuild_cmp(&b[i - 1], &b[i])) {
			err = xb_err(-EINVAL, ino, "xattr '%s' is given twice", b[i].full);
			goto out_free;
		}
	}

	/* system.data first and only in the body, then first fit */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			uint32_t need = xbuild_size(&b[i]);

			if (b[i].is_data != !pass)
				continue;
			if (b[i].len <= EK_XATTR_SIZE_MAX && body_used + need + 4 <= body_len) {
				body[nbody++] = &b[i];
				body_used += need;
			} else if (b[i].is_data) {
				err = xb_err(-ENOSPC, ino,
					     "xattr 'system.data' of %zu bytes does not fit in the inode body",
					     b[i].given_len);
				goto out_free;
			} else if (b[i].len <= EK_XATTR_SIZE_MAX && blk_used + need <= fs->blksz) {
				blk[nblk++] = &b[i];
				blk_used += need;
			} else {
				err = xb_err(-ENOSPC, ino,
					     "xattr '%s' of %zu bytes fits neither in the inode body nor in the xattr block (ea_inode values are not written)",
					     b[i].full, b[i].given_len);
				goto out_free;
			}
		}
	}
	/* blk[] is in sorted order: the second pass walked b[] in order */

	if (nblk) {
		*block = ek_calloc(1, fs->blksz);
		if (!*block) {
			err = -ENOMEM;
			goto out_free;
		}
		put_le32(*block + offsetof(struct ext4_xattr_header, h_magic), EXT4_XATTR_MAGIC);
		put_le32(*block + offsetof(struct ext4_xattr_header, h_refcount), 1);
		put_le32(*block + offsetof(struct ext4_xattr_header, h_blocks), 1);
		/* h_hash stays 0, as libext2fs writes it (the kernel sets it when it rewrites) */
		xbuild_write(*block, fs->blksz, BLOCK_HDR_SZ, blk, nblk, true);
	}
	if (body_len)
		memset(raw + hdr, 0, isz - hdr);
	/* the body's magic whenever there are xattrs, even all in the block (libext2fs) */
	if (body_len && n) {
		put_le32(raw + hdr, EXT4_XATTR_MAGIC);
		xbuild_write(raw + hdr + 4, body_len, 0, body, nbody, false);
	}

out_free:
	for (size_t i = 0; b && i < n; i++)
		free(b[i].acl);
	free(b);
	free(body);
	free(blk);
	return err;
}

void ek_xattr_block_csum_set(const struct ek_fs *fs, ek_blk_t blk, uint8_t *block)
{
	if (fs->has_csum)
		put_le32(block + offsetof(struct ext4_xattr_header, h_checksum),
			 ek_xattr_block_csum(fs, blk, block));
}

/* ---- the fscrypt context (fs/crypto/policy.c fscrypt_policy_from_context) ---- */

int ek_crypt_ctx_decode(ek_ino_t ino, const void *val, size_t len, struct ek_crypt_policy *out)
{
	const uint8_t *v = val;
	size_t want;

	memset(out, 0, sizeof(*out));
	if (len < 1 || v[0] == 0)
		return ek_corrupt_ino(ino, "encryption xattr is corrupt: %s",
				      len ? "version 0" : "empty");
	if (v[0] > 2)
		return 1;
	want = v[0] == 1 ? 28 : 40;
	if (len != want)
		return ek_corrupt_ino(ino, "encryption xattr is corrupt: version %u in %zu bytes, "
				      "not %zu", v[0], len, want);
	out->version = v[0];
	out->len = v[0] == 1 ? 12 : 24;	/* the nonce (16 bytes) ends the context */
	memcpy(out->p, v, out->len);
	return 0;
}

void ek_xattr_block_refcount_set(const struct ek_fs *fs, ek_blk_t blk, uint8_t *block,
				 uint32_t refs)
{
	bool ok = !fs->has_csum ||
		  get_le32(block + offsetof(struct ext4_xattr_header, h_checksum)) ==
		  ek_xattr_block_csum(fs, blk, block);

	put_le32(block + offsetof(struct ext4_xattr_header, h_refcount), refs);
	if (ok)
		ek_xattr_block_csum_set(fs, blk, block);
}

/* a value inode's reference count: i_ctime (high 32 bits) and l_i_version
 * (low 32 bits), as the kernel's ext4_xattr_inode_get_ref() */
uint64_t ek_xattr_ea_ref(const uint8_t *raw)
{
	return (uint64_t)get_le32(raw + offsetof(struct ext4_inode, i_ctime)) << 32 |
	       get_le32(raw + offsetof(struct ext4_inode, l_i_version));
}

void ek_xattr_ea_ref_set(uint8_t *raw, uint64_t refs)
{
	put_le32(raw + offsetof(struct ext4_inode, i_ctime), (uint32_t)(refs >> 32));
	put_le32(raw + offsetof(struct ext4_inode, l_i_version), (uint32_t)refs);
}

/* ---- editing an in-inode value in place (fsck repairs of inline data) ------------ */

struct ibody_find {
	const uint8_t *val;
	uint32_t len;
	bool found;
};

static int ibody_find_one(void *arg, const struct ek_xattr *xa)
{
	struct ibody_find *f = arg;

	if (xa->in_block || xa->value_inum)
		return 0;
	f->val = xa->value;
	f->len = xa->value_len;
	f->found = true;
	return 1;
}

int ek_xattr_ibody_edit(struct ek_fs *fs, const struct ek_inode *ei, uint8_t *raw, uint8_t index,
			const char *name, ek_xattr_edit_fn fn, void *arg)
{
	struct ibody_find f = { 0 };
	struct xwalk w = { .fs = fs, .ei = ei, .fn = ibody_find_one, .arg = &f, .filter = true,
			   .want_index = index, .want_name = name, .want_len = strlen(name) };
	uint32_t voff, hdr;
	int err;

	if (ei->raw_size < fs->inode_size)
		return ek_unsupp("inode %u: in-inode xattrs not loaded", ei->ino);
	err = walk_ibody(&w);
	if (err < 0)
		return err;
	if (!f.found)
		return -ENODATA;
	/* the walk checked the value inside the body of @ei->raw, which @raw mirrors */
	voff = (uint32_t)(f.val - ei->raw);
	err = fn(arg, raw + voff, f.len);
	if (err)
		return err;
	/* an entry's hash covers its value: a non-zero one follows the edit */
	hdr = EXT4_GOOD_OLD_INODE_SIZE + ei->extra_isize + 4;
	for (uint32_t off = hdr; off + ENTRY_SZ <= fs->inode_size && get_le32(raw + off);
	     off += EXT4_XATTR_LEN(raw[off])) {
		uint32_t vo = get_le16(raw + off + offsetof(struct ext4_xattr_entry, e_value_offs));

		if (off + ENTRY_SZ + raw[off] > fs->inode_size)
			break;
		if (hdr + vo != voff || raw[off + 1] != index || raw[off] != w.want_len ||
		    memcmp(raw + off + ENTRY_SZ, name, w.want_len))
			continue;
		if (get_le32(raw + off + offsetof(struct ext4_xattr_entry, e_hash)))
			put_le32(raw + off + offsetof(struct ext4_xattr_entry, e_hash),
				 ek_xattr_hash(name, (uint32_t)w.want_len, raw + voff, f.len));
		break;
	}
	return 0;
}
