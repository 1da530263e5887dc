// SPDX-License-Identifier: MIT
/*
 * dir.c - directory blocks, htree index, path lookup and symlinks.
 *
 * Specification: Documentation/filesystems/ext4/directory.rst.
 *
 * Linear (leaf) block: a chain of ext4_dir_entry_2 tiling the block.
 *
 *   off  size  field
 *   0x0  4     inode        0 = unused entry
 *   0x4  2     rec_len      bytes to the next entry; 64 KiB blocks encode
 *                           65536 as 0 or 65535 (ek_rec_len_from_disk)
 *   0x6  1     name_len
 *   0x7  1     file_type    EXT4_FT_*
 *   0x8  n     name         then, in casefolded+encrypted directories,
 *                           le32 hash and le32 minor_hash (not for . and ..)
 *
 * Under metadata_csum a leaf ends in a 12-byte fake entry (inode 0,
 * rec_len 12, name_len 0, file_type 0xDE) whose last 4 bytes hold
 * crc32c(inode seed, block[0 .. blksz-12)).
 *
 * Htree (EXT4_INDEX_FL with dir_index): logical block 0 is the root,
 *
 *   0x00 '.' entry (rec_len 12)   0x0C '..' entry (rec_len blksz - 12)
 *   0x18 dx_root_info (8 bytes)   0x20 dx_countlimit, then dx_entry[]
 *
 * and interior nodes start with a fake entry (inode 0, rec_len blksz)
 * followed by dx_countlimit at 0x08.  dx_entry[0]'s hash slot holds the
 * countlimit; entry i covers hashes from hash[i] up to hash[i+1].  A
 * leaf hash with bit 0 set marks a block continuing a run of equal hashes
 * from the previous block.  Under metadata_csum a dx_tail follows the
 * `limit` entries: crc32c(inode seed, block[0 .. count_offset + count*8)),
 * then dt_reserved, then 4 zero bytes.  Read linearly, root and nodes look
 * like '.', '..' and one empty entry spanning the block.
 *
 * Inline directory (EXT4_INLINE_DATA_FL): i_block holds the parent inode
 * (4 bytes) then entries tiling the other 56 bytes; entries continue in the
 * value of the system.data xattr.  There is no '.' or '..' on disk: both
 * are synthesized as the kernel's ext4_read_inline_dir does.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define DIRENT_MIN	12		/* ext4_dir_rec_len(1) */
#define DIRENT_TAIL	12		/* sizeof(struct ext4_dir_entry_tail) */
#define DIRENT_HASH	8		/* struct ext4_dir_entry_hash */
#define INLINE_DOTDOT	4		/* parent inode at the start of i_block */
#define INLINE_IBLOCK	(EXT4_N_BLOCKS * 4)
#define MAX_SYMLINKS	40
#define MAX_PATH_WORK	(1u << 20)	/* bound on a path with links expanded */

/* ---- helpers ------------------------------------------------------------- */

static uint64_t dir_nblocks(const struct ek_fs *fs, const struct ek_inode *dir)
{
	return (dir->size + fs->blksz - 1) >> fs->log_blksz;
}

static bool dir_is_dx(const struct ek_fs *fs, const struct ek_inode *dir)
{
	return (dir->flags & EXT4_INDEX_FL) && !(dir->flags & EXT4_INLINE_DATA_FL) &&
	       ek_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX);
}

bool ek_dir_is_htree(const struct ek_fs *fs, const struct ek_inode *dir)
{
	return dir_is_dx(fs, dir);
}

/* ext4_hash_in_dirent(): casefolded and encrypted */
static bool dir_hash_in_dirent(const struct ek_inode *dir)
{
	return (dir->flags & EXT4_CASEFOLD_FL) && (dir->flags & EXT4_ENCRYPT_FL);
}

static uint32_t dir_csum_seed(const struct ek_fs *fs, const struct ek_inode *dir)
{
	return ek_inode_csum_seed(fs, dir->ino, dir->generation);
}

/* ext4_dir_rec_len(): header + name (+ hash), rounded to 4 */
static uint32_t rec_len_needed(uint32_t name_len, bool with_hash)
{
	return (EXT4_DIR_ENTRY_HDR + name_len + (with_hash ? DIRENT_HASH : 0) + 3) & ~3u;
}

static bool is_dot_or_dotdot(const uint8_t *name, uint32_t len)
{
	return (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.');
}

/* ---- entry checker --------------------------------------------------------- */

/* one corruption site for block and inline areas */
#define DE_CORRUPT(blk, dir, off, fmt, ...)					\
	((blk) ? ek_corrupt((blk), "directory inode %u offset %u: " fmt,	\
			    (dir), (off), __VA_ARGS__)				\
	       : ek_corrupt_ino((dir), "inline directory offset %u: " fmt,	\
				(off), __VA_ARGS__))

int ek_dirent_check(const struct ek_fs *fs, ek_ino_t dir, ek_blk_t blk, const void *bufp,
		    uint32_t off, uint32_t size, bool hash_in_dirent, uint32_t *rec_len)
{
	const uint8_t *de = (const uint8_t *)bufp + off;
	uint32_t left, rlen, ino, nlen;
	bool with_hash;

	if (off > size || size - off < DIRENT_MIN)
		return DE_CORRUPT(blk, dir, off, "no room for an entry (%u bytes left)",
				  off > size ? 0 : size - off);
	left = size - off;
	ino = get_le32(de);
	rlen = ek_rec_len_from_disk(get_le16(de + 4), fs->blksz);
	nlen = de[6];
	with_hash = hash_in_dirent && !is_dot_or_dotdot(de + 8, nlen);

	if (rlen < rec_len_needed(1, with_hash))
		return DE_CORRUPT(blk, dir, off, "rec_len %u below the minimum %u",
				  rlen, rec_len_needed(1, with_hash));
	if (rlen % 4)
		return DE_CORRUPT(blk, dir, off, "rec_len %u not a multiple of 4", rlen);
	if (rlen < rec_len_needed(nlen, with_hash))
		return DE_CORRUPT(blk, dir, off, "name_len %u does not fit in rec_len %u",
				  nlen, rlen);
	if (rlen > left)
		return DE_CORRUPT(blk, dir, off, "rec_len %u runs past the end (%u bytes left)",
				  rlen, left);
	if (rlen != left && left - rlen < DIRENT_MIN)
		return DE_CORRUPT(blk, dir, off,
				  "rec_len %u leaves %u bytes at the end, too few for an entry",
				  rlen, left - rlen);
	if (ino > fs->sb.inodes_count)
		return DE_CORRUPT(blk, dir, off, "inode %u out of range (max %u)",
				  ino, fs->sb.inodes_count);
	if (ino && nlen == 0)
		return DE_CORRUPT(blk, dir, off, "entry for inode %u has an empty name", ino);
	*rec_len = rlen;
	return 0;
}

struct ek_dirent ek_dirent_decode(const void *buf, uint32_t off, uint32_t rec_len)
{
	const uint8_t *de = (const uint8_t *)buf + off;

	return (struct ek_dirent){ .ino = get_le32(de), .rec_len = rec_len, .name_len = de[6],
				   .file_type = de[7], .name = (const char *)de + 8, .offset = off };
}

int ek_dirent_walk(const struct ek_fs *fs, ek_ino_t dir, ek_blk_t blk, uint8_t *buf,
		   uint32_t start, uint32_t end, bool hash_in_dirent, ek_dirent_fn fn, void *arg)
{
	uint32_t off = start, prev = UINT32_MAX, rlen;

	while (off < end) {
		int r = ek_dirent_check(fs, dir, blk, buf, off, end, hash_in_dirent, &rlen);

		if (!r)
			r = fn(arg, buf, prev, off, rlen);
		if (r)
			return r;
		prev = off;
		off += rlen;	/* >= 12: the walk ends */
	}
	return 0;
}

/* ---- checksums ------------------------------------------------------------- */

uint32_t ek_dir_leaf_csum(const struct ek_fs *fs, const struct ek_inode *dir, const void *buf)
{
	return ek_crc32c(dir_csum_seed(fs, dir), buf, fs->blksz - DIRENT_TAIL);
}

uint32_t ek_dx_csum(const struct ek_fs *fs, const struct ek_inode *dir, const void *bufp,
		    uint32_t count_offset, uint32_t count, uint32_t limit)
{
	const uint8_t *buf = bufp;
	const uint8_t *tail = buf + count_offset + limit * 8;
	static const uint8_t zero[4];
	uint32_t c;

	c = ek_crc32c(dir_csum_seed(fs, dir), buf, count_offset + count * 8);
	c = ek_crc32c(c, tail, 4);		/* dt_reserved */
	return ek_crc32c(c, zero, 4);		/* dt_checksum as zero */
}

/* a valid leaf tail at blksz - 12 (get_dirent_tail()) */
static bool leaf_has_tail(const struct ek_fs *fs, const uint8_t *buf)
{
	const uint8_t *t = buf + fs->blksz - DIRENT_TAIL;

	return get_le32(t) == 0 &&
	       ek_rec_len_from_disk(get_le16(t + 4), fs->blksz) == DIRENT_TAIL &&
	       t[6] == 0 && t[7] == EXT4_FT_DIR_CSUM;
}

/* ---- htree index blocks ----------------------------------------------------- */

unsigned ek_dx_max_levels(const struct ek_fs *fs)
{
	return ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) ? 2 : 1;
}

static uint16_t dx_limit_for(const struct ek_fs *fs, uint32_t count_offset)
{
	uint32_t space = fs->blksz - count_offset;

	if (fs->has_csum)
		space -= sizeof(struct dx_tail);
	return (uint16_t)(space / sizeof(struct dx_entry) > 0xffff ? 0xffff :
			  space / sizeof(struct dx_entry));
}

/* @err, the rule @n broke recorded as @fault */
static int dx_fault(struct ek_dx_node *n, enum ek_dx_fault fault, int err)
{
	n->fault = fault;
	return err;
}

/* countlimit, entries and checksum: common to root and nodes */
static int dx_parse_entries(struct ek_fs *fs, const struct ek_inode *dir, ek_blk_t pblk,
			    const uint8_t *buf, struct ek_dx_node *n)
{
	const char *what = n->is_root ? "dx root" : "dx node";
	uint64_t nblocks = dir_nblocks(fs, dir);

	n->limit = get_le16(buf + n->count_offset);
	n->count = get_le16(buf + n->count_offset + 2);
	n->expect_limit = dx_limit_for(fs, n->count_offset);
	if (n->limit != n->expect_limit)
		return dx_fault(n, EK_DX_LIMIT,
				ek_corrupt(pblk, "directory inode %u: %s limit %u, expected %u",
					   dir->ino, what, n->limit, n->expect_limit));
	if (n->count == 0 || n->count > n->limit)
		return dx_fault(n, EK_DX_COUNT,
				ek_corrupt(pblk, "directory inode %u: %s count %u out of range 1..%u",
					   dir->ino, what, n->count, n->limit));
	n->entries = buf + n->count_offset;
	for (unsigned i = 0; i < n->count; i++) {
		uint32_t b = ek_dx_entry_block(n, i);

		n->bad_entry = i;
		if (b == 0 || b >= nblocks)
			return dx_fault(n, EK_DX_BLOCK,
					ek_corrupt(pblk, "directory inode %u: %s entry %u points to block %u outside 1..%llu",
						   dir->ino, what, i, b,
						   (unsigned long long)(nblocks ? nblocks - 1 : 0)));
		/* without the continuation bit, as e2fsck's parse_int_node() */
		if (i >= 2 && (ek_dx_entry_hash(n, i) & ~1u) < (ek_dx_entry_hash(n, i - 1) & ~1u))
			return dx_fault(n, EK_DX_ORDER,
					ek_corrupt(pblk, "directory inode %u: %s entry %u hash 0x%x below previous 0x%x",
						   dir->ino, what, i, ek_dx_entry_hash(n, i),
						   ek_dx_entry_hash(n, i - 1)));
	}
	if (!fs->has_csum)
		return 0;
	n->has_tail = true;
	n->csum = get_le32(buf + n->count_offset + n->limit * 8 + 4);
	n->expect_csum = ek_dx_csum(fs, dir, buf, n->count_offset, n->count, n->limit);
	n->bad_entry = 0;
	if (n->csum != n->expect_csum)
		return dx_fault(n, EK_DX_CSUM,
				ek_badcrc(pblk, "directory inode %u: %s checksum 0x%08x, expected 0x%08x",
					  dir->ino, what, n->csum, n->expect_csum));
	return 0;
}

int ek_dx_root_parse(struct ek_fs *fs, const struct ek_inode *dir, ek_blk_t pblk,
		     const void *bufp, struct ek_dx_node *n)
{
	const uint8_t *buf = bufp;
	const uint8_t *info = buf + EXT4_DX_ROOT_INFO_OFF;
	uint32_t dot_len = ek_rec_len_from_disk(get_le16(buf + 4), fs->blksz);
	uint32_t dotdot_len = ek_rec_len_from_disk(get_le16(buf + 12 + 4), fs->blksz);
	bool hash_in_de = dir_hash_in_dirent(dir);

	memset(n, 0, sizeof(*n));
	n->is_root = true;
	n->count_offset = EXT4_DX_ROOT_ENTRIES_OFF;
	n->hash_version = info[4];
	n->info_length = info[5];
	n->indirect_levels = info[6];
	n->unused_flags = info[7];

	if (dot_len != DIRENT_MIN || buf[6] != 1 || buf[8] != '.')
		return dx_fault(n, EK_DX_ROOT,
				ek_corrupt(pblk, "directory inode %u: dx root '.' entry malformed (rec_len %u name_len %u)",
					   dir->ino, dot_len, buf[6]));
	if (dotdot_len != fs->blksz - DIRENT_MIN || buf[12 + 6] != 2 ||
	    buf[12 + 8] != '.' || buf[12 + 9] != '.')
		return dx_fault(n, EK_DX_ROOT,
				ek_corrupt(pblk, "directory inode %u: dx root '..' entry malformed (rec_len %u name_len %u)",
					   dir->ino, dotdot_len, buf[12 + 6]));
	if (get_le32(info) != 0)
		return dx_fault(n, EK_DX_ROOT,
				ek_corrupt(pblk, "directory inode %u: dx root reserved_zero is 0x%x",
					   dir->ino, get_le32(info)));
	if (n->info_length != sizeof(struct dx_root_info))
		return dx_fault(n, EK_DX_ROOT,
				ek_corrupt(pblk, "directory inode %u: dx root info_length %u, expected 8",
					   dir->ino, n->info_length));
	if (n->hash_version != EXT4_HASH_LEGACY && n->hash_version != EXT4_HASH_HALF_MD4 &&
	    n->hash_version != EXT4_HASH_TEA && n->hash_version != EXT4_HASH_SIPHASH)
		return dx_fault(n, EK_DX_HASH_VERSION,
				ek_corrupt(pblk, "directory inode %u: dx root hash version %u unknown",
					   dir->ino, n->hash_version));
	if (hash_in_de != (n->hash_version == EXT4_HASH_SIPHASH))
		return dx_fault(n, EK_DX_HASH_VERSION,
				ek_corrupt(pblk, "directory inode %u: dx root hash version %u %s a casefolded encrypted directory",
					   dir->ino, n->hash_version, hash_in_de ? "in" : "outside"));
	/* EXT2_HASH_FLAG_INCOMPAT: no kernel sets it, dx_probe() refuses it */
	if (n->unused_flags & 1)
		return dx_fault(n, EK_DX_ROOT_FLAGS,
				ek_corrupt(pblk, "directory inode %u: dx root has unimplemented hash flags 0x%x",
					   dir->ino, n->unused_flags));
	if (n->indirect_levels > ek_dx_max_levels(fs))
		return dx_fault(n, EK_DX_LEVELS,
				ek_corrupt(pblk, "directory inode %u: dx root indirect_levels %u > %u",
					   dir->ino, n->indirect_levels, ek_dx_max_levels(fs)));
	return dx_parse_entries(fs, dir, pblk, buf, n);
}

int ek_dx_node_parse(struct ek_fs *fs, const struct ek_inode *dir, ek_blk_t pblk,
		     const void *bufp, struct ek_dx_node *n)
{
	const uint8_t *buf = bufp;
	uint32_t rlen = ek_rec_len_from_disk(get_le16(buf + 4), fs->blksz);

	memset(n, 0, sizeof(*n));
	n->count_offset = EXT4_DX_NODE_ENTRIES_OFF;
	if (get_le32(buf) != 0 || rlen != fs->blksz)
		return dx_fault(n, EK_DX_NOT_NODE,
				ek_corrupt(pblk, "directory inode %u: dx node fake entry inode %u rec_len %u, expected 0 and %u",
					   dir->ino, get_le32(buf), rlen, fs->blksz));
	return dx_parse_entries(fs, dir, pblk, buf, n);
}

/* inode 0, rec_len = blksz, name_len 0 and the node limit: an index node */
static bool looks_like_dx_node(const struct ek_fs *fs, const uint8_t *buf)
{
	return get_le32(buf) == 0 && buf[6] == 0 &&
	       ek_rec_len_from_disk(get_le16(buf + 4), fs->blksz) == fs->blksz &&
	       get_le16(buf + EXT4_DX_NODE_ENTRIES_OFF) ==
	       dx_limit_for(fs, EXT4_DX_NODE_ENTRIES_OFF);
}

/* ---- walking entries --------------------------------------------------------- */

/* per-entry visitor: nonzero stops (returned as is) */
typedef int (*entry_fn)(void *arg, const struct ek_dirent *de);

struct dirctx {
	struct ek_fs *fs;
	const struct ek_inode *dir;
	unsigned flags;
	entry_fn fn;
	void *arg;
	uint8_t *buf;
	const uint8_t *blk;	/* the block walked: buf, or one of pre's */
	const struct ek_dir_preread *pre;
	uint64_t nblocks;
	uint64_t next_lblk;	/* first logical block not yet processed */
	bool is_dx;
	int corrupt;		/* -EK_CORRUPT seen */
	int badcrc;		/* -EK_BADCRC seen */
	int stop;		/* value that stopped the walk */
	struct ek_error first_corrupt, first_badcrc;	/* restored at the end */
};

/* remember a corruption or checksum finding; other codes are returned */
static int note(struct dirctx *c, int err)
{
	if (err == -EK_CORRUPT) {
		if (!c->corrupt)
			c->first_corrupt = *ek_last_error();
		c->corrupt = err;
		return 0;
	}
	if (err == -EK_BADCRC) {
		if (!c->badcrc)
			c->first_badcrc = *ek_last_error();
		c->badcrc = err;
		return 0;
	}
	return err;
}

/* the walk's result: corruption first, then checksums */
static int walk_result(struct dirctx *c)
{
	/*
	 * Report the first damage of the returned kind, not whatever was
	 * recorded last: the slot behind ek_last_error() is ours to write.
	 */
	if (c->corrupt) {
		*(struct ek_error *)ek_last_error() = c->first_corrupt;
		return c->corrupt;
	}
	if (c->badcrc)
		*(struct ek_error *)ek_last_error() = c->first_badcrc;
	return c->badcrc;
}

/*
 * Entries in buf[start, end): a leaf block without its tail, or one inline
 * area.  A bad entry ends the region.
 */
static int scan_slack(struct dirctx *c, const uint8_t *buf, uint32_t start, uint32_t end,
		      uint64_t lblk);

static int scan_region(struct dirctx *c, const uint8_t *buf, uint32_t start, uint32_t end,
		       uint64_t lblk, ek_blk_t pblk)
{
	bool hash_in_de = dir_hash_in_dirent(c->dir);
	uint32_t off = start, rlen;

	while (off < end) {
		struct ek_dirent de;
		int err = ek_dirent_check(c->fs, c->dir->ino, pblk, buf, off, end, hash_in_de, &rlen);

		if (err)
			return note(c, err);
		de = ek_dirent_decode(buf, off, rlen);
		de.lblk = lblk;
		if (de.ino || (c->flags & EK_DIR_INCLUDE_EMPTY)) {
			c->stop = c->fn(c->arg, &de);
			if (c->stop)
				return c->stop;
		}
		if ((c->flags & EK_DIR_INCLUDE_DELETED) &&
		    rec_len_needed(de.name_len, hash_in_de) < rlen &&
		    scan_slack(c, buf, off + rec_len_needed(de.name_len, hash_in_de), off + rlen, lblk))
			return c->stop;
		off += rlen;
	}
	return 0;
}

/*
 * Removed entries in [start, end), the slack after a live entry: any
 * 4-aligned spot holding a plausible entry that fits in the slack (as
 * e2fsprogs' DIRENT_FLAG_INCLUDE_REMOVED).  Nothing here is trusted beyond
 * the bounds of the slack.
 */
static int scan_slack(struct dirctx *c, const uint8_t *buf, uint32_t start, uint32_t end,
		      uint64_t lblk)
{
	bool hash_in_de = dir_hash_in_dirent(c->dir);
	uint32_t p = (start + 3) & ~3u;

	while (p + EXT4_DIR_ENTRY_HDR < end) {
		uint32_t ino = get_le32(buf + p), name_len = buf[p + 6];
		uint32_t rlen = ek_rec_len_from_disk(get_le16(buf + p + 4), c->fs->blksz);
		uint32_t need = rec_len_needed(name_len, hash_in_de);
		struct ek_dirent de;
		bool ok = ino && ino <= c->fs->sb.inodes_count && name_len && rlen >= need &&
			  !(rlen & 3) && rlen <= end - p && buf[p + 7] < EXT4_FT_MAX &&
			  !memchr(buf + p + 8, '/', name_len) && !memchr(buf + p + 8, 0, name_len);

		if (!ok) {
			p += 4;
			continue;
		}
		de = (struct ek_dirent){ .ino = ino, .file_type = buf[p + 7], .name_len = name_len,
					 .name = (const char *)buf + p + 8, .rec_len = rlen,
					 .lblk = lblk, .offset = p, .deleted = true };
		c->stop = c->fn(c->arg, &de);
		if (c->stop)
			return c->stop;
		p += need;
	}
	return 0;
}

/*
 * A linear reader checks only the checksum of an index block: the index
 * itself is ek_dx_*_parse's business (ext4_dx_csum_verify()).
 */
static int dx_verify_csum(struct dirctx *c, ek_blk_t pblk, uint32_t count_offset)
{
	uint32_t limit = get_le16(c->blk + count_offset);
	uint32_t count = get_le16(c->blk + count_offset + 2);
	uint32_t got, want;

	if (limit != dx_limit_for(c->fs, count_offset) || count > limit)
		return ek_corrupt(pblk, "directory inode %u: dx count %u limit %u leave no room for the checksum",
				  c->dir->ino, count, limit);
	got = get_le32(c->blk + count_offset + limit * 8 + 4);
	want = ek_dx_csum(c->fs, c->dir, c->blk, count_offset, count, limit);
	if (got != want)
		return ek_badcrc(pblk, "directory inode %u: dx block checksum 0x%08x, expected 0x%08x",
				 c->dir->ino, got, want);
	return 0;
}

/* one directory block in c->blk */
static int do_block(struct dirctx *c, uint64_t lblk, ek_blk_t pblk)
{
	struct ek_fs *fs = c->fs;
	uint32_t size = fs->blksz;

	if (c->is_dx && lblk == 0) {
		/* the root: '.' and a '..' spanning the index */
		if (fs->has_csum)
			note(c, dx_verify_csum(c, pblk, EXT4_DX_ROOT_ENTRIES_OFF));
		return scan_region(c, c->blk, 0, size, lblk, pblk);
	}
	if (c->is_dx && looks_like_dx_node(fs, c->blk) &&
	    !(fs->has_csum && leaf_has_tail(fs, c->blk))) {
		if (fs->has_csum)
			note(c, dx_verify_csum(c, pblk, EXT4_DX_NODE_ENTRIES_OFF));
		return 0;
	}
	if (fs->has_csum) {
		if (leaf_has_tail(fs, c->blk)) {
			uint32_t want = ek_dir_leaf_csum(fs, c->dir, c->blk);
			uint32_t got = get_le32(c->blk + size - 4);

			size -= DIRENT_TAIL;
			if (got != want)
				note(c, ek_badcrc(pblk, "directory inode %u: leaf checksum 0x%08x, expected 0x%08x",
						  c->dir->ino, got, want));
		} else {
			note(c, ek_badcrc(pblk, "directory inode %u: leaf block %llu has no checksum tail",
					  c->dir->ino, (unsigned long long)lblk));
		}
	}
	return scan_region(c, c->blk, 0, size, lblk, pblk);
}

/* logical blocks [from, to) are not mapped: fine in a linear directory */
static void dir_hole(struct dirctx *c, uint64_t from, uint64_t to)
{
	if (c->is_dx)
		note(c, ek_corrupt_ino(c->dir->ino, "htree directory has a hole at blocks %llu-%llu",
				       (unsigned long long)from, (unsigned long long)to - 1));
}

static int dir_map_cb(void *arg, const struct ek_mapping *m)
{
	struct dirctx *c = arg;
	uint64_t start = m->lblk, end;
	int err;

	if (m->kind != EK_MAP_DATA || m->len == 0)
		return 0;
	end = m->lblk + m->len;
	if (end > c->nblocks)
		end = c->nblocks;
	/* ek_map_walk refuses overlaps; guard the one-visit-per-block bound anyway */
	if (start < c->next_lblk)
		start = c->next_lblk;
	if (start >= end)
		return 0;
	if (start > c->next_lblk)
		dir_hole(c, c->next_lblk, start);
	c->next_lblk = end;
	if (m->unwritten && !(c->flags & EK_DIR_READ_UNWRITTEN)) {
		dir_hole(c, start, end);
		return 0;
	}
	for (uint64_t l = start; l < end; l++) {
		ek_blk_t pblk = m->pblk + (l - m->lblk);

		if (c->pre && l < c->pre->n && c->pre->pblk[l] == pblk) {
			c->blk = c->pre->data + (l << c->fs->log_blksz);
			err = do_block(c, l, pblk);
			if (err)
				return err;
			continue;
		}
		c->blk = c->buf;
		err = ek_fs_read_blocks(c->fs, pblk, 1, c->buf);
		if (err) {
			err = note(c, err);
			if (err)
				return err;
			continue;
		}
		err = do_block(c, l, pblk);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Inline area: synthesized '.' and '..', then entries in i_block after the
 * parent, then entries in system.data; offsets count from the start of
 * i_block as if the value followed it.
 */
static int iterate_inline(struct dirctx *c)
{
	const uint8_t *ib = (const uint8_t *)ek_inode_i_block(c->dir);
	uint8_t *ea = NULL, *all;
	size_t ea_len = 0;
	struct ek_dirent de = { .ino = c->dir->ino, .file_type = EXT4_FT_DIR,
				.name_len = 1, .name = "." };
	int err;

	c->stop = c->fn(c->arg, &de);
	if (c->stop)
		return c->stop;
	de.ino = get_le32(ib);
	de.name = "..";
	de.name_len = 2;
	de.rec_len = INLINE_DOTDOT;
	if (de.ino > c->fs->sb.inodes_count)
		note(c, ek_corrupt_ino(c->dir->ino, "inline directory parent inode %u out of range",
				       de.ino));
	else if (!de.ino && !(c->flags & EK_DIR_INCLUDE_EMPTY))
		;	/* as a block's '..' naming no inode: an unused entry */
	else if ((c->stop = c->fn(c->arg, &de)))
		return c->stop;

	err = scan_region(c, ib, INLINE_DOTDOT, INLINE_IBLOCK, 0, 0);
	if (err)
		return err;
	err = ek_xattr_get(c->fs, c->dir, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &ea, &ea_len);
	if (err == -ENOENT || err == -ENODATA || (!err && !ea_len)) {
		free(ea);
		return 0;
	}
	if (err)
		return note(c, err);
	/* xattr values are far below 4 GiB (EK_XATTR_SIZE_MAX) */
	all = ek_malloc(INLINE_IBLOCK + ea_len);
	if (all) {
		memcpy(all, ib, INLINE_IBLOCK);
		memcpy(all + INLINE_IBLOCK, ea, ea_len);
		err = scan_region(c, all, INLINE_IBLOCK, INLINE_IBLOCK + (uint32_t)ea_len, 0, 0);
		free(all);
	} else {
		err = -ENOMEM;
	}
	free(ea);
	return err;
}

/* iterate with an internal visitor; returns the visitor's stop value or an error */
static int dir_walk(struct ek_fs *fs, const struct ek_inode *dir, unsigned flags,
		    entry_fn fn, void *arg, const struct ek_dir_preread *pre)
{
	struct dirctx c = { .fs = fs, .dir = dir, .flags = flags, .fn = fn, .arg = arg,
			    .pre = pre };
	int err;

	if (!ek_is_dir(dir->mode))
		return -ENOTDIR;
	if (dir->flags & EXT4_INLINE_DATA_FL) {
		err = iterate_inline(&c);
		return err ? err : walk_result(&c);
	}
	c.buf = ek_malloc(fs->blksz);
	if (!c.buf)
		return -ENOMEM;
	c.nblocks = dir_nblocks(fs, dir);
	c.is_dx = dir_is_dx(fs, dir);
	err = ek_map_walk(fs, dir, dir_map_cb, &c);
	free(c.buf);
	if (c.stop)
		return c.stop;
	if (err) {
		err = note(&c, err);
		if (err)
			return err;
	} else if (c.next_lblk < c.nblocks) {
		dir_hole(&c, c.next_lblk, c.nblocks);
	}
	return walk_result(&c);
}

int ek_dir_iterate(struct ek_fs *fs, const struct ek_inode *dir, unsigned flags,
		   ek_dir_fn fn, void *arg)
{
	return dir_walk(fs, dir, flags, fn, arg, NULL);
}

int ek_dir_iterate_preread(struct ek_fs *fs, const struct ek_inode *dir, unsigned flags,
			   ek_dir_fn fn, void *arg, const struct ek_dir_preread *pre)
{
	return dir_walk(fs, dir, flags, fn, arg, pre);
}

int ek_dir_iterate_block(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
			 unsigned flags, ek_dir_fn fn, void *arg)
{
	struct dirctx c = { .fs = fs, .dir = dir, .flags = flags, .fn = fn, .arg = arg };
	bool unwritten;
	ek_blk_t pblk;
	int err;

	if (!ek_is_dir(dir->mode))
		return -ENOTDIR;
	if (dir->flags & EXT4_INLINE_DATA_FL) {
		if (lblk)
			return -ENOENT;
		err = iterate_inline(&c);
		return err ? err : walk_result(&c);
	}
	if (lblk >= dir_nblocks(fs, dir))
		return -ENOENT;
	err = ek_map_bmap(fs, dir, lblk, &pblk, &unwritten);
	if (err)
		return err;
	if (!pblk || unwritten)
		return -ENOENT;
	c.buf = ek_malloc(fs->blksz);
	if (!c.buf)
		return -ENOMEM;
	c.is_dx = dir_is_dx(fs, dir);
	c.blk = c.buf;
	err = ek_fs_read_blocks(fs, pblk, 1, c.buf);
	if (!err)
		err = do_block(&c, lblk, pblk);
	free(c.buf);
	if (c.stop)
		return c.stop;
	if (err) {
		err = note(&c, err);
		if (err)
			return err;
	}
	return walk_result(&c);
}

/* ---- lookup ------------------------------------------------------------------- */

struct match {
	const struct ek_fs *fs;
	bool fold;		/* casefolded directory: compare folded names */
	const char *name;
	size_t len;
	ek_ino_t ino;
};

static int match_fn(void *arg, const struct ek_dirent *de)
{
	struct match *m = arg;

	if (!ek_name_eq(m->fs, m->fold, de->name, de->name_len, m->name, m->len))
		return 0;
	m->ino = de->ino;
	return 1;
}

int ek_dir_read_block(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
		      void *buf, ek_blk_t *pblk)
{
	bool unwritten;
	int err;

	if (lblk >= dir_nblocks(fs, dir))
		return ek_corrupt_ino(dir->ino, "directory block %llu beyond i_size",
				      (unsigned long long)lblk);
	err = ek_map_bmap(fs, dir, lblk, pblk, &unwritten);
	if (err)
		return err;
	if (!*pblk || unwritten)
		return ek_corrupt_ino(dir->ino, "htree directory block %llu is not allocated",
				      (unsigned long long)lblk);
	return ek_fs_read_blocks(fs, *pblk, 1, buf);
}

/* scan one leaf for the name: 1 found, 0 not found, or an error */
static int dx_scan_leaf(struct ek_fs *fs, const struct ek_inode *dir, uint32_t lblk,
			uint8_t *buf, struct match *m)
{
	struct dirctx c = { .fs = fs, .dir = dir, .fn = match_fn, .arg = m, .buf = buf, .blk = buf,
			    .is_dx = true };
	ek_blk_t pblk;
	int err = ek_dir_read_block(fs, dir, lblk, buf, &pblk);

	if (err)
		return err;
	if (looks_like_dx_node(fs, buf) && !(fs->has_csum && leaf_has_tail(fs, buf)))
		return ek_corrupt(pblk, "directory inode %u: htree leaf %u is an index node",
				  dir->ino, lblk);
	err = do_block(&c, lblk, pblk);
	if (err)
		return err;
	err = walk_result(&c);
	/* a bad leaf checksum alone: every entry was still compared */
	return err == -EK_BADCRC ? 0 : err;
}

struct dx_frame {
	struct ek_dx_node node;
	unsigned at;
	uint8_t *buf;
};

/* the last entry whose hash is <= @hash (entry 0 covers everything below) */
unsigned ek_dx_search(const struct ek_dx_node *n, uint32_t hash)
{
	unsigned lo = 1, hi = n->count;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (ek_dx_entry_hash(n, mid) > hash)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo - 1;
}

/*
 * Look @m up through the index (ext4_dx_find_entry): 1 found, -ENOENT
 * when the index says it is absent, other errors when the index can't be
 * trusted (the caller then scans linearly).
 */
static int dx_lookup(struct ek_fs *fs, const struct ek_inode *dir, struct match *m)
{
	struct dx_frame f[3] = { 0 };
	uint8_t *leaf = ek_malloc(fs->blksz);
	uint64_t budget = dir_nblocks(fs, dir);
	uint32_t hash, minor;
	unsigned levels = 0, depth = 0;
	ek_blk_t pblk;
	int version, err;

	for (int i = 0; i < 3 && leaf; i++) {
		f[i].buf = ek_malloc(fs->blksz);
		if (!f[i].buf)
			goto out_nomem;
	}
	if (!leaf)
		goto out_nomem;
	err = ek_dir_read_block(fs, dir, 0, f[0].buf, &pblk);
	if (!err)
		err = ek_dx_root_parse(fs, dir, pblk, f[0].buf, &f[0].node);
	if (err)
		goto out;
	version = ek_dx_hash_version(fs, f[0].node.hash_version);
	err = -EK_UNSUPP;		/* siphash: needs the encryption key */
	if (version == EXT4_HASH_SIPHASH ||
	    ek_dx_hash_name(version, m->fold, m->name, m->len, fs->sb.hash_seed, &hash, &minor))
		goto out;
	levels = f[0].node.indirect_levels;

	/* descend: at each level the entry covering @hash */
	f[0].at = ek_dx_search(&f[0].node, hash);
	for (depth = 1; depth <= levels; depth++) {
		struct dx_frame *p = &f[depth - 1];

		err = ek_dir_read_block(fs, dir, ek_dx_entry_block(&p->node, p->at), f[depth].buf, &pblk);
		if (!err)
			err = ek_dx_node_parse(fs, dir, pblk, f[depth].buf, &f[depth].node);
		if (err)
			goto out;
		f[depth].at = ek_dx_search(&f[depth].node, hash);
	}
	for (;;) {
		struct dx_frame *d = &f[levels];
		int lvl;

		if (budget-- == 0) {
			err = ek_corrupt_ino(dir->ino, "htree lookup visits more leaves than the directory has");
			goto out;
		}
		err = dx_scan_leaf(fs, dir, ek_dx_entry_block(&d->node, d->at), leaf, m);
		if (err)		/* 1: found */
			goto out;
		/* ext4_htree_next_block(): next leaf only while the hash run continues */
		for (lvl = levels; lvl >= 0 && f[lvl].at + 1 >= f[lvl].node.count; lvl--)
			;
		err = -ENOENT;
		if (lvl < 0 || (ek_dx_entry_hash(&f[lvl].node, f[lvl].at + 1) & ~1u) != hash)
			goto out;
		f[lvl].at++;
		for (lvl++; lvl <= (int)levels; lvl++) {
			struct dx_frame *p = &f[lvl - 1];

			err = ek_dir_read_block(fs, dir, ek_dx_entry_block(&p->node, p->at), f[lvl].buf, &pblk);
			if (!err)
				err = ek_dx_node_parse(fs, dir, pblk, f[lvl].buf, &f[lvl].node);
			if (err)
				goto out;
			f[lvl].at = 0;
		}
	}
out_nomem:
	err = -ENOMEM;
out:
	for (int i = 0; i < 3; i++)
		free(f[i].buf);
	free(leaf);
	return err;
}

int ek_dir_lookup(struct ek_fs *fs, const struct ek_inode *dir, const char *name,
		  size_t len, ek_ino_t *out)
{
	struct match m = { .fs = fs, .fold = ek_dir_folds(fs, dir->flags), .name = name,
			   .len = len };
	int err;

	if (!ek_is_dir(dir->mode))
		return -ENOTDIR;
	if (len == 0 || len > EXT4_NAME_LEN)
		return len ? -ENAMETOOLONG : -ENOENT;
	/*
	 * '.' and '..' are in block 0, never in the leaves (ext4_find_entry
	 * scans them linearly); casefolded names hash after folding
	 * (ek_dx_hash_name()), encrypted ones with a key we lack (siphash:
	 * -EK_UNSUPP, linear with exact names).
	 */
	if (dir_is_dx(fs, dir) && !is_dot_or_dotdot((const uint8_t *)name, len)) {
		err = dx_lookup(fs, dir, &m);
		if (err == 1) {
			*out = m.ino;
			return 0;
		}
		if (err == -ENOENT || err == -ENOMEM || err == -EIO)
			return err;
		if (err != -EK_UNSUPP)
			ek_fs_warn(fs, "directory inode %u: htree index unusable (%s), scanning linearly",
				   dir->ino, ek_error_msg(err));
		m.ino = 0;
	}
	err = dir_walk(fs, dir, 0, match_fn, &m, NULL);
	if (err == 1) {
		*out = m.ino;
		return 0;
	}
	/* checksum trouble alone: every entry was still compared */
	if (err == 0 || err == -EK_BADCRC)
		return -ENOENT;
	return err;
}

/* ---- symlinks ------------------------------------------------------------------ */

int ek_readlink(struct ek_fs *fs, const struct ek_inode *ei, char *buf, size_t bufsz)
{
	uint64_t size = ei->size;
	uint8_t *blk = NULL;
	int err = 0;

	if (!ek_is_lnk(ei->mode))
		return -EINVAL;
	if (size == 0 || size >= fs->blksz)
		return ek_corrupt_ino(ei->ino, "symlink size %llu out of range 1..%u",
				      (unsigned long long)size, fs->blksz - 1);
	if (bufsz < size + 1)
		return -ENAMETOOLONG;

	if (ei->flags & EXT4_INLINE_DATA_FL) {
		size_t first = size < INLINE_IBLOCK ? size : INLINE_IBLOCK;
		size_t ea_len = 0;

		memcpy(buf, ek_inode_i_block(ei), first);
		if (size > first) {
			err = ek_xattr_get(fs, ei, EXT4_XATTR_INDEX_SYSTEM, "data", 4, &blk, &ea_len);
			if (err == -ENOENT || err == -ENODATA || (!err && ea_len < size - first))
				err = ek_corrupt_ino(ei->ino, "inline symlink of %llu bytes has only %zu stored",
						     (unsigned long long)size, first + ea_len);
			if (!err)
				memcpy(buf + first, blk, size - first);
		}
	} else if (ek_inode_is_fast_symlink(fs, ei)) {
		memcpy(buf, ek_inode_i_block(ei), size);
	} else {
		ek_blk_t pblk;
		bool unwritten;

		err = ek_map_bmap(fs, ei, 0, &pblk, &unwritten);
		if (!err && (!pblk || unwritten))
			err = ek_corrupt_ino(ei->ino, "symlink has no data block");
		if (!err && !(blk = ek_malloc(fs->blksz)))
			err = -ENOMEM;
		if (!err)
			err = ek_fs_read_blocks(fs, pblk, 1, blk);
		if (!err)
			memcpy(buf, blk, size);
	}
	free(blk);
	if (err)
		return err;
	if (memchr(buf, 0, size))
		return ek_corrupt_ino(ei->ino, "symlink target has a NUL byte at %zu of %llu",
				      (size_t)((char *)memchr(buf, 0, size) - buf),
				      (unsigned long long)size);
	buf[size] = 0;
	return 0;
}

/* ---- path resolution ------------------------------------------------------------ */

/* read an inode, tolerating a bad checksum (the inode is decoded anyway) */
static int get_inode(struct ek_fs *fs, ek_ino_t ino, struct ek_inode *ei)
{
	int err = ek_inode_read(fs, ino, ei);

	if (err == -EK_BADCRC)
		err = 0;
	if (err)
		ek_inode_release(ei);
	return err;
}

int ek_namei(struct ek_fs *fs, ek_ino_t root, ek_ino_t cwd, const char *path,
	     bool follow, ek_ino_t *out)
{
	size_t plen = path ? strlen(path) : 0;
	char *work, *link = NULL;
	size_t pos = 0, wlen = plen;
	ek_ino_t dir;
	unsigned links = 0;
	int err;

	if (!path)
		return -EINVAL;
	if (!*path)
		return -ENOENT;
	if (plen >= MAX_PATH_WORK)
		return -ENAMETOOLONG;
	work = ek_malloc(plen + 1);
	link = ek_malloc(fs->blksz + 1);
	if (!work || !link) {
		free(work);
		free(link);
		return -ENOMEM;
	}
	memcpy(work, path, plen + 1);
	dir = work[0] == '/' ? root : cwd;

	for (;;) {
		struct ek_inode di, ei;
		const char *comp;
		size_t clen;
		bool last, slash = false;
		ek_ino_t ino;

		while (pos < wlen && work[pos] == '/')
			pos++;
		if (pos == wlen) {
			/* "/" or a path ending in "." or ".." */
			*out = dir;
			err = 0;
			break;
		}
		comp = work + pos;
		for (clen = 0; pos + clen < wlen && comp[clen] != '/'; clen++)
			;
		pos += clen;
		while (pos < wlen && work[pos] == '/') {
			pos++;
			slash = true;
		}
		last = pos == wlen;
		if (clen > EXT4_NAME_LEN) {
			err = -ENAMETOOLONG;
			break;
		}

		err = get_inode(fs, dir, &di);
		if (err)
			break;
		if (!ek_is_dir(di.mode)) {
			ek_inode_release(&di);
			err = -ENOTDIR;
			break;
		}
		if ((clen == 1 && comp[0] == '.') ||
		    (clen == 2 && comp[0] == '.' && comp[1] == '.' && dir == root)) {
			ek_inode_release(&di);
			if (last) {
				*out = dir;
				break;
			}
			continue;
		}
		err = ek_dir_lookup(fs, &di, comp, clen, &ino);
		ek_inode_release(&di);
		if (err)
			break;
		err = get_inode(fs, ino, &ei);
		if (err)
			break;
		if (ek_is_lnk(ei.mode) && (!last || follow || slash)) {
			size_t tlen, rest = wlen - pos;
			char *nw;

			if (++links > MAX_SYMLINKS) {
				ek_inode_release(&ei);
				err = -ELOOP;
				break;
			}
			err = ek_readlink(fs, &ei, link, fs->blksz + 1);
			ek_inode_release(&ei);
			if (err)
				break;
			tlen = strlen(link);
			if (tlen + 1 + rest >= MAX_PATH_WORK) {
				err = -ENAMETOOLONG;
				break;
			}
			nw = ek_malloc(tlen + 1 + rest + 1);
			if (!nw) {
				err = -ENOMEM;
				break;
			}
			/* the target replaces the component; the rest follows */
			memcpy(nw, link, tlen);
			nw[tlen] = '/';
			memcpy(nw + tlen + 1, work + pos, rest);
			wlen = tlen + 1 + rest;
			if (!slash && last)
				wlen = tlen;	/* no trailing '/' to keep */
			nw[wlen] = 0;
			free(work);
			work = nw;
			pos = 0;
			if (work[0] == '/')
				dir = root;
			continue;
		}
		if (last) {
			err = slash && !ek_is_dir(ei.mode) ? -ENOTDIR : 0;
			ek_inode_release(&ei);
			if (!err)
				*out = ino;
			break;
		}
		ek_inode_release(&ei);
		dir = ino;
	}
	free(work);
	free(link);
	return err;
}

/* ---- building a new directory ---------------------------------------------------- */

/*
 * ek_dir_build() lays a whole directory out at once, as e2fsck -D's
 * rehash.c does: an htree's leaves keep the slack asked for (e2fsck's 20%,
 * or none for a static build: mkfs -d).
 * Logical block order:
 *
 *   linear   0        '.', '..', entries in the caller's order
 *            1 ..     the following entries, each block filled in turn
 *   htree    0        root: '.', '..' over dx_root_info and the dx entries
 *            1 .. L   leaves, in (hash, minor hash, name) order
 *            L+1 ..   index nodes, level by level from the root down: the
 *                     root's children, then (largedir) their children
 *
 * Index nodes share children out evenly.  A run of equal major hashes is
 * kept in one leaf when it fits there; a run reaching over a whole leaf
 * goes on in the next one, whose index hash carries the continuation bit
 * (hash | 1), as the kernel's do_split() leaves it.
 */

struct build_key {
	uint32_t hash, minor;
	const struct ek_dirent_new *e;
};

/* one child in an index block: a leaf or a node */
struct build_ref {
	uint32_t hash;		/* dx hash (continuation bit included); 0 for the first */
	uint32_t block;
};

struct build {
	const struct ek_fs *fs;
	struct ek_inode di;	/* ino and generation only: the checksum seed */
	bool fold;		/* casefolded: names hash folded */
	uint32_t space;		/* bytes for entries in a leaf: blksz less the tail */
	uint32_t slack;		/* a leaf is closed once less than this is left */
};



void ek_dirent_put(const struct ek_fs *fs, uint8_t *b, uint32_t off, ek_ino_t ino,
		   uint32_t rec_len, const char *name, uint8_t name_len, uint8_t file_type)
{
	put_le32(b + off, (uint32_t)ino);
	put_le16(b + off + 4, ek_rec_len_to_disk(rec_len, fs->blksz));
	b[off + 6] = name_len;
	b[off + 7] = ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE) ? file_type : 0;
	memcpy(b + off + 8, name, name_len);
}

void ek_dir_leaf_tail(const struct ek_fs *fs, ek_ino_t dir, uint32_t gen, uint8_t *b)
{
	struct ek_inode di = { .ino = dir, .generation = gen };
	uint8_t *t = b + fs->blksz - DIRENT_TAIL;

	if (!fs->has_csum)
		return;
	memset(t, 0, DIRENT_TAIL);
	put_le16(t + 4, DIRENT_TAIL);
	t[7] = EXT4_FT_DIR_CSUM;
	put_le32(t + 8, ek_dir_leaf_csum(fs, &di, b));
}

static void put_dirent(const struct build *bd, uint8_t *b, uint32_t off, ek_ino_t ino,
		       uint32_t rec_len, const char *name, uint8_t name_len, uint8_t file_type)
{
	ek_dirent_put(bd->fs, b, off, ino, rec_len, name, name_len, file_type);
}

/* the entry at @last takes the rest of the leaf; then the tail and its checksum */
static void seal_leaf(const struct build *bd, uint8_t *b, uint32_t last)
{
	put_le16(b + last + 4, ek_rec_len_to_disk(bd->space - last, bd->fs->blksz));
	ek_dir_leaf_tail(bd->fs, bd->di.ino, bd->di.generation, b);
}

/* count and limit at @off, entries from @refs (entry 0's hash slot is the countlimit) */
static void put_dx_entries(const struct build *bd, uint8_t *b, uint32_t off,
			   const struct build_ref *refs, uint32_t count)
{
	uint16_t limit = dx_limit_for(bd->fs, off);

	put_le16(b + off, limit);
	put_le16(b + off + 2, (uint16_t)count);
	put_le32(b + off + 4, refs[0].block);
	for (uint32_t i = 1; i < count; i++) {
		put_le32(b + off + 8 * i, refs[i].hash);
		put_le32(b + off + 8 * i + 4, refs[i].block);
	}
	if (bd->fs->has_csum) {
		put_le32(b + off + 8 * limit, 0);
		put_le32(b + off + 8 * limit + 4, ek_dx_csum(bd->fs, &bd->di, b, off, count, limit));
	}
}

/*
 * Linear blocks into @out (NULL: only count them): '.', '..' and @ents in
 * order.  Returns the number of blocks.
 */
static uint32_t build_linear(const struct build *bd, ek_ino_t parent,
			     const struct ek_dirent_new *ents, size_t n, uint8_t *out)
{
	uint32_t off = 2 * DIRENT_MIN, last = DIRENT_MIN, nblocks = 1;
	uint8_t *b = out;

	if (b) {
		put_dirent(bd, b, 0, bd->di.ino, DIRENT_MIN, ".", 1, EXT4_FT_DIR);
		put_dirent(bd, b, DIRENT_MIN, parent, DIRENT_MIN, "..", 2, EXT4_FT_DIR);
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t rl = rec_len_needed(ents[i].name_len, false);

		if (rl > bd->space - off) {
			if (b) {
				seal_leaf(bd, b, last);
				b += bd->fs->blksz;
			}
			nblocks++;
			off = 0;
		}
		if (b)
			put_dirent(bd, b, off, ents[i].ino, rl, ents[i].name, ents[i].name_len,
				   ents[i].file_type);
		last = off;
		off += rl;
	}
	if (b)
		seal_leaf(bd, b, last);
	return nblocks;
}

static int cmp_key(const void *pa, const void *pb)
{
	const struct build_key *a = pa, *b = pb;
	int c;

	if (a->hash != b->hash)
		return a->hash < b->hash ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	c = memcmp(a->e->name, b->e->name,
		   a->e->name_len < b->e->name_len ? a->e->name_len : b->e->name_len);
	return c ? c : (int)a->e->name_len - (int)b->e->name_len;
}

/*
 * @keys in cmp_key's order: by (hash, minor) in eight stable byte-wise
 * counting passes from the lowest byte (@n log @n comparisons cost more
 * from a few dozen keys on), then each run of equal hashes by name.
 * -ENOMEM.
 */
static int sort_keys(struct build_key *keys, size_t n)
{
	struct build_key *tmp, *from = keys, *to;
	size_t (*count)[256];

	if (n < 64) {
		qsort(keys, n, sizeof(*keys), cmp_key);
		return 0;
	}
	tmp = ek_calloc(n, sizeof(*tmp));
	count = ek_calloc(8, sizeof(*count));
	if (!tmp || !count) {
		free(tmp);
		free(count);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = (uint64_t)keys[i].hash << 32 | keys[i].minor;

		for (unsigned d = 0; d < 8; d++)
			count[d][(k >> (8 * d)) & 0xFF]++;
	}
	to = tmp;
	for (unsigned d = 0; d < 8; d++) {
		size_t at = 0;

		for (unsigned v = 0; v < 256; v++) {
			size_t c = count[d][v];

			count[d][v] = at;
			at += c;
		}
		for (size_t i = 0; i < n; i++) {
			uint64_t k = (uint64_t)from[i].hash << 32 | from[i].minor;

			to[count[d][(k >> (8 * d)) & 0xFF]++] = from[i];
		}
		to = from;
		from = from == keys ? tmp : keys;
	}
	/* (an even number of passes: the result is back in @keys) */
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && keys[j].hash == keys[i].hash &&
				keys[j].minor == keys[i].minor; j++)
			;
		if (j - i > 1)
			qsort(keys + i, j - i, sizeof(*keys), cmp_key);
	}
	free(tmp);
	free(count);
	return 0;
}

/*
 * Cut the sorted @keys into leaves: refs[l].hash and first[l] (the key
 * starting leaf l; first[L] = n).  Returns L.
 */
static uint32_t build_cut_leaves(const struct build *bd, const struct build_key *keys, size_t n,
				 struct build_ref *refs, size_t *first)
{
	uint32_t nleaves = 0;
	size_t i = 0;

	while (i < n) {
		size_t start = i;
		uint32_t used = 0;

		/* an entry is at most 264 bytes: every leaf takes one */
		while (i < n && rec_len_needed(keys[i].e->name_len, false) <= bd->space - used) {
			used += rec_len_needed(keys[i++].e->name_len, false);
			if (bd->space - used < bd->slack)
				break;
		}
		if (i < n && keys[i].hash == keys[i - 1].hash) {
			/* a run reaches over the cut: start the next leaf with it */
			size_t r = i - 1;

			while (r > start && keys[r - 1].hash == keys[i].hash)
				r--;
			if (r > start)
				i = r;
		}
		first[nleaves] = start;
		refs[nleaves].hash = start == 0 ? 0 :
				     keys[start].hash | (keys[start].hash == keys[start - 1].hash);
		refs[nleaves].block = nleaves + 1;
		nleaves++;
	}
	first[nleaves] = n;
	return nleaves;
}

static int build_htree(struct build *bd, ek_ino_t parent, const struct ek_dirent_new *ents,
		       size_t n, uint8_t **out, uint32_t *nblocks_out)
{
	const struct ek_fs *fs = bd->fs;
	uint32_t blksz = fs->blksz;
	uint32_t root_limit = dx_limit_for(fs, EXT4_DX_ROOT_ENTRIES_OFF);
	uint32_t node_limit = dx_limit_for(fs, EXT4_DX_NODE_ENTRIES_OFF);
	unsigned max_levels = ek_dx_max_levels(fs), levels = 0;
	/* refs[0]: the leaves; refs[k]: the index nodes k levels above them */
	struct build_ref *refs[4] = { NULL };
	uint32_t count[4] = { 0 }, nblocks, next;
	struct build_key *keys;
	size_t *first = NULL;
	int version, err = -ENOMEM;
	uint8_t *b = NULL;

	if (fs->sb.def_hash_version > EXT4_HASH_TEA)
		return ek_unsupp("directory inode %u: cannot index with hash version %u",
				 bd->di.ino, fs->sb.def_hash_version);
	version = ek_dx_hash_version(fs, (int)fs->sb.def_hash_version);
	keys = ek_calloc(n, sizeof(*keys));
	refs[0] = ek_calloc(n, sizeof(*refs[0]));
	first = ek_calloc(n + 1, sizeof(*first));
	if (!keys || !refs[0] || !first)
		goto out;
	for (size_t i = 0; i < n; i++) {
		keys[i].e = &ents[i];
		err = ek_dx_hash_name(version, bd->fold, ents[i].name, ents[i].name_len,
				      fs->sb.hash_seed, &keys[i].hash, &keys[i].minor);
		if (err)
			goto out;
	}
	err = sort_keys(keys, n);
	if (err)
		goto out;
	count[0] = build_cut_leaves(bd, keys, n, refs[0], first);

	/* index levels until the root holds them all */
	while (count[levels] > root_limit) {
		if (levels == max_levels) {
			err = ek_err(-ENOSPC, "too many entries for directory inode %u: %zu entries in %u leaves need more than %u htree index levels%s",
				     bd->di.ino, n, count[0], max_levels + 1,
				     ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR) ?
				     "" : " (no largedir)");
			goto out;
		}
		count[levels + 1] = (count[levels] + node_limit - 1) / node_limit;
		levels++;
		err = -ENOMEM;
		refs[levels] = ek_calloc(count[levels], sizeof(*refs[levels]));
		if (!refs[levels])
			goto out;
	}
	/*
	 * Node j of level k holds children [j*c/m, (j+1)*c/m) of level k-1
	 * and the hash of the first: hashes from the leaves up, blocks after
	 * the leaves from the root down.
	 */
	for (unsigned k = 1; k <= levels; k++)
		for (uint32_t j = 0; j < count[k]; j++)
			refs[k][j].hash = refs[k - 1][(uint64_t)j * count[k - 1] / count[k]].hash;
	next = 1 + count[0];
	for (unsigned k = levels; k >= 1; k--)
		for (uint32_t j = 0; j < count[k]; j++)
			refs[k][j].block = next++;
	nblocks = next;
	err = -ENOMEM;
	b = ek_calloc(nblocks, blksz);
	if (!b)
		goto out;

	/* the root */
	put_dirent(bd, b, 0, bd->di.ino, DIRENT_MIN, ".", 1, EXT4_FT_DIR);
	put_dirent(bd, b, DIRENT_MIN, parent, blksz - DIRENT_MIN, "..", 2, EXT4_FT_DIR);
	put_le32(b + EXT4_DX_ROOT_INFO_OFF, 0);
	b[EXT4_DX_ROOT_INFO_OFF + 4] = (uint8_t)fs->sb.def_hash_version;	/* as the kernel stores it */
	b[EXT4_DX_ROOT_INFO_OFF + 5] = sizeof(struct dx_root_info);
	b[EXT4_DX_ROOT_INFO_OFF + 6] = (uint8_t)levels;
	b[EXT4_DX_ROOT_INFO_OFF + 7] = 0;
	put_dx_entries(bd, b, EXT4_DX_ROOT_ENTRIES_OFF, refs[levels], count[levels]);

	/* the leaves */
	for (uint32_t l = 0; l < count[0]; l++) {
		uint8_t *lb = b + (size_t)(l + 1) * blksz;
		uint32_t off = 0, last = 0;

		for (size_t i = first[l]; i < first[l + 1]; i++) {
			const struct ek_dirent_new *e = keys[i].e;
			uint32_t rl = rec_len_needed(e->name_len, false);

			put_dirent(bd, lb, off, e->ino, rl, e->name, e->name_len, e->file_type);
			last = off;
			off += rl;
		}
		seal_leaf(bd, lb, last);
	}

	/* the index nodes */
	for (unsigned k = 1; k <= levels; k++) {
		for (uint32_t j = 0; j < count[k]; j++) {
			uint8_t *nb = b + (size_t)refs[k][j].block * blksz;
			uint64_t lo = (uint64_t)j * count[k - 1] / count[k];
			uint64_t hi = (uint64_t)(j + 1) * count[k - 1] / count[k];

			put_le32(nb, 0);
			put_le16(nb + 4, ek_rec_len_to_disk(blksz, blksz));
			put_dx_entries(bd, nb, EXT4_DX_NODE_ENTRIES_OFF, refs[k - 1] + lo,
				       (uint32_t)(hi - lo));
		}
	}
	*out = b;
	*nblocks_out = nblocks;
	err = 0;
out:
	for (unsigned k = 0; k < 4; k++)
		free(refs[k]);
	free(first);
	free(keys);
	return err;
}

/* by inode number, then name: e2fsck's pass 3A order for a linear directory */
static int cmp_ent_ino(const void *a, const void *b)
{
	const struct ek_dirent_new *x = a, *y = b;
	int c;

	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	c = memcmp(x->name, y->name, x->name_len < y->name_len ? x->name_len : y->name_len);
	return c ? c : (int)x->name_len - (int)y->name_len;
}

int ek_dir_build(const struct ek_fs *fs, ek_ino_t dir, uint32_t gen, uint32_t dir_flags,
		 ek_ino_t parent, unsigned slack_percent, bool linear_by_inode,
		 struct ek_dirent_new *ents, size_t n, uint8_t **out, uint32_t *nblocks,
		 bool *indexed)
{
	struct build bd = {
		.fs = fs,
		.di = { .ino = dir, .generation = gen },
		.fold = ek_dir_folds(fs, dir_flags),
		.space = fs->blksz - (fs->has_csum ? DIRENT_TAIL : 0),
	};
	uint32_t nlinear;

	bd.slack = bd.space * (slack_percent < 100 ? slack_percent : 0) / 100;
	uint8_t *b;

	*out = NULL;
	*nblocks = 0;
	*indexed = false;
	for (size_t i = 0; i < n; i++)
		if (!ents[i].name_len || is_dot_or_dotdot((const uint8_t *)ents[i].name,
							   ents[i].name_len))
			return ek_err(-EINVAL, "directory inode %u: entry %zu has no name or is '.' or '..'",
				      dir, i);
	/* (more than one block in one order is more than one in any) */
	nlinear = build_linear(&bd, parent, ents, n, NULL);
	if (nlinear > 1 && ek_has_compat(fs, EXT4_FEATURE_COMPAT_DIR_INDEX)) {
		int err = build_htree(&bd, parent, ents, n, out, nblocks);

		*indexed = !err;
		return err;
	}
	if (linear_by_inode && n > 1) {
		qsort(ents, n, sizeof(*ents), cmp_ent_ino);
		nlinear = build_linear(&bd, parent, ents, n, NULL);
	}
	b = ek_calloc(nlinear, fs->blksz);
	if (!b)
		return -ENOMEM;
	build_linear(&bd, parent, ents, n, b);
	*out = b;
	*nblocks = nlinear;
	return 0;
}

/* ---- a new inline directory ------------------------------------------------------- */

/* pack @ents[*i..] into @buf[0..size): entries in order, the last one reaching the end */
static void inline_region(const struct ek_fs *fs, uint8_t *buf, uint32_t size,
			  const struct ek_dirent_new *ents, size_t n, size_t *i)
{
	uint32_t off = 0, last = 0;
	bool any = false;

	memset(buf, 0, size);
	while (*i < n) {
		uint32_t len = ek_dirent_need(ents[*i].name_len);

		if (off + len > size)
			break;
		ek_dirent_put(fs, buf, off, ents[*i].ino, len, ents[*i].name, ents[*i].name_len,
			      ents[*i].file_type);
		last = off;
		off += len;
		any = true;
		(*i)++;
	}
	if (!size)
		return;
	if (!any) {	/* an empty region: one unused entry over all of it */
		put_le16(buf + 4, ek_rec_len_to_disk(size, fs->blksz));
		return;
	}
	put_le16(buf + last + 4, ek_rec_len_to_disk(size - last, fs->blksz));
}

int ek_dir_build_inline(const struct ek_fs *fs, ek_ino_t parent, const struct ek_dirent_new *ents,
			size_t n, uint32_t max_xattr, uint8_t iblock[EXT4_N_BLOCKS * 4],
			uint8_t **xval, uint32_t *xlen)
{
	uint32_t first = EXT4_N_BLOCKS * 4 - 4, need = 0, fit = 0;
	size_t i = 0;

	*xval = NULL;
	*xlen = 0;
	/* what the i_block region takes, then the rest for system.data */
	for (; i < n; i++) {
		uint32_t len = ek_dirent_need(ents[i].name_len);

		if (fit + len > first)
			break;
		fit += len;
	}
	for (size_t k = i; k < n; k++)
		need += ek_dirent_need(ents[k].name_len);
	if (need > max_xattr)
		return -ENOSPC;
	put_le32(iblock, (uint32_t)parent);
	i = 0;
	inline_region(fs, iblock + 4, first, ents, n, &i);
	if (!need)
		return 0;
	*xval = ek_calloc(1, need);
	if (!*xval)
		return -ENOMEM;
	inline_region(fs, *xval, need, ents, n, &i);
	*xlen = need;
	return 0;
}

/* ---- adding entries (fsck repairs: lost+found) ---------------------------------- */

void ek_dir_block_empty(const struct ek_fs *fs, ek_ino_t dir, uint32_t gen, uint8_t *b)
{
	memset(b, 0, fs->blksz);
	put_le16(b + 4, ek_rec_len_to_disk(fs->has_csum ? fs->blksz - DIRENT_TAIL : fs->blksz,
					   fs->blksz));
	ek_dir_leaf_tail(fs, dir, gen, b);
}

struct leaf_insert {
	uint32_t need;		/* the new entry's rec_len */
	uint32_t at, keep;	/* the entry to split (or reuse: keep 0) and what it keeps */
};

/* the first entry with room for @need bytes after what it needs itself */
static int insert_fn(void *arg, uint8_t *buf, uint32_t prev, uint32_t off, uint32_t rec_len)
{
	struct leaf_insert *in = arg;
	uint32_t used = get_le32(buf + off) ? rec_len_needed(buf[off + 6], false) : 0;

	(void)prev;
	if (rec_len < used || rec_len - used < in->need)
		return 0;
	in->at = off;
	in->keep = used;
	return 1;
}

int ek_dir_leaf_insert(const struct ek_fs *fs, ek_ino_t dir, ek_blk_t blk, uint8_t *b,
		       const char *name, uint8_t name_len, ek_ino_t ino, uint8_t file_type)
{
	struct leaf_insert in = { .need = rec_len_needed(name_len, false) };
	uint32_t end = fs->has_csum && leaf_has_tail(fs, b) ? fs->blksz - DIRENT_TAIL : fs->blksz;
	uint32_t rl;
	int r;

	if (!name_len || is_dot_or_dotdot((const uint8_t *)name, name_len))
		return ek_err(-EINVAL, "directory inode %u: a new entry needs a name", dir);
	r = ek_dirent_walk(fs, dir, blk, b, 0, end, false, insert_fn, &in);
	if (r < 0)
		return r;
	if (!r)
		return -ENOSPC;
	rl = ek_rec_len_from_disk(get_le16(b + in.at + 4), fs->blksz);
	if (!in.keep) {		/* an unused entry: taken whole */
		ek_dirent_put(fs, b, in.at, ino, rl, name, name_len, file_type);
		return 0;
	}
	ek_dirent_set_rec_len(fs, b, in.at, in.keep);
	ek_dirent_put(fs, b, in.at + in.keep, ino, rl - in.keep, name, name_len, file_type);
	return 0;
}

/* ---- editing entries in place (fsck repairs) ------------------------------------ */

void ek_dirent_set_ino(uint8_t *b, uint32_t off, ek_ino_t ino)
{
	put_le32(b + off, (uint32_t)ino);
}

void ek_dirent_set_type(const struct ek_fs *fs, uint8_t *b, uint32_t off, uint8_t file_type)
{
	b[off + 7] = ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_FILETYPE) ? file_type : 0;
}

void ek_dirent_set_rec_len(const struct ek_fs *fs, uint8_t *b, uint32_t off, uint32_t rec_len)
{
	put_le16(b + off + 4, ek_rec_len_to_disk(rec_len, fs->blksz));
}

void ek_dirent_name_fix(uint8_t *name, uint8_t name_len)
{
	/* as e2fsck's fix of an illegal name: each '/' and NUL becomes '.' */
	for (unsigned i = 0; i < name_len; i++)
		if (name[i] == '/' || !name[i])
			name[i] = '.';
}

void ek_dirent_name_fix_encoding(uint8_t *name, uint8_t name_len)
{
	for (size_t i = ek_utf8_invalid_at((const char *)name, name_len); i < name_len && name[i]; i++)
		name[i] = '.';
}

/* where block @b (logical @lblk of @dir) keeps its checksum: leaf tail or dx tail */
static bool block_csum_at(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
			  const uint8_t *b, uint32_t *at, uint32_t *want)
{
	struct ek_dx_node n;
	int err;

	if (!fs->has_csum)
		return false;
	if (leaf_has_tail(fs, b)) {
		*at = fs->blksz - 4;
		*want = ek_dir_leaf_csum(fs, dir, b);
		return true;
	}
	if (!(dir->flags & EXT4_INDEX_FL))
		return false;
	err = lblk ? ek_dx_node_parse(fs, dir, 0, b, &n) : ek_dx_root_parse(fs, dir, 0, b, &n);
	if ((err && err != -EK_BADCRC) || !n.has_tail)
		return false;
	*at = n.count_offset + n.limit * 8 + 4;
	*want = n.expect_csum;
	return true;
}

bool ek_dir_block_csum_ok(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
			  const uint8_t *b)
{
	uint32_t at, want;

	return !block_csum_at(fs, dir, lblk, b, &at, &want) || get_le32(b + at) == want;
}

void ek_dir_block_reseal(struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk, uint8_t *b)
{
	uint32_t at, want;

	if (block_csum_at(fs, dir, lblk, b, &at, &want))
		put_le32(b + at, want);
}

/* ---- salvaging a damaged block (fsck repairs) ------------------------------------ */

/*
 * One bad entry at *@off of region buf[0, @end) (@prev: the entry before
 * it, or UINT32_MAX), mended as e2fsck's pass 2 salvages one: an 8-byte
 * hole closed by moving the rest up; an entry running past the end cut
 * to it when its name fits; a bad entry whose rec_len is plausible merged
 * into the one before; else the rest of the region given to the entry
 * before (or made one empty entry).
 */
static void salvage_one(const struct ek_fs *fs, uint8_t *buf, uint32_t prev, uint32_t *off,
			uint32_t end)
{
	uint8_t *de = buf + *off;
	uint32_t room = end - *off, rlen, nlen = 0;
	int64_t left;

	if (room < EXT4_DIR_ENTRY_HDR) {
		rlen = room;
	} else {
		rlen = ek_rec_len_from_disk(get_le16(de + 4), fs->blksz);
		nlen = de[6];
	}
	left = (int64_t)room - rlen;
	if (left >= DIRENT_MIN && rlen == EXT4_DIR_ENTRY_HDR) {
		memmove(de, de + EXT4_DIR_ENTRY_HDR, (size_t)left);
		memset(de + left, 0, EXT4_DIR_ENTRY_HDR);
		return;
	}
	if (left < 0 && room > EXT4_DIR_ENTRY_HDR && nlen + EXT4_DIR_ENTRY_HDR <= room &&
	    get_le32(de) <= fs->sb.inodes_count && !memchr(de + 8, 0, nlen)) {
		put_le16(de + 4, ek_rec_len_to_disk(room, fs->blksz));
		return;
	}
	if (prev != UINT32_MAX && rlen && !(rlen % 4) && rlen <= room) {
		uint32_t prl = ek_rec_len_from_disk(get_le16(buf + prev + 4), fs->blksz);

		put_le16(buf + prev + 4, ek_rec_len_to_disk(prl + rlen, fs->blksz));
		*off += rlen;
		return;
	}
	if (prev != UINT32_MAX) {
		uint32_t prl = ek_rec_len_from_disk(get_le16(buf + prev + 4), fs->blksz);

		put_le16(buf + prev + 4, ek_rec_len_to_disk(prl + room, fs->blksz));
		*off = end;
		return;
	}
	/* room >= 12 here: a region is a multiple of 4 and at least 12 bytes */
	put_le32(de, 0);
	put_le16(de + 4, ek_rec_len_to_disk(room, fs->blksz));
	de[6] = 0;
	de[7] = 0;
}

/* the entry at @off tiles the region right (rec_len and name_len), whatever its inode */
static bool entry_shape_ok(const struct ek_fs *fs, const uint8_t *buf, uint32_t off, uint32_t end,
			   bool hash_in_de)
{
	const uint8_t *de = buf + off;
	uint32_t room = end - off, rlen, nlen;
	bool with_hash;

	if (room < DIRENT_MIN)
		return false;
	rlen = ek_rec_len_from_disk(get_le16(de + 4), fs->blksz);
	nlen = de[6];
	with_hash = hash_in_de && !is_dot_or_dotdot(de + 8, nlen);
	return get_le32(de) && rlen >= rec_len_needed(nlen ? nlen : 1, with_hash) && !(rlen % 4) &&
	       rlen <= room && (rlen == room || room - rlen >= DIRENT_MIN);
}

/* the entry at @off is sound but leaves 4 or 8 bytes before @end */
static bool entry_short_of_end(const struct ek_fs *fs, const uint8_t *buf, uint32_t off,
			       uint32_t end, bool hash_in_de)
{
	const uint8_t *de = buf + off;
	uint32_t room = end - off, rlen, nlen;

	if (room < DIRENT_MIN)
		return false;
	rlen = ek_rec_len_from_disk(get_le16(de + 4), fs->blksz);
	nlen = de[6];
	return rlen >= rec_len_needed(nlen ? nlen : 1, hash_in_de && !is_dot_or_dotdot(de + 8, nlen)) &&
	       !(rlen % 4) && rlen < room && room - rlen < DIRENT_MIN;
}

/* the entries of buf[@off, @end) salvaged: the entries mended, *@first_bad the first */
static int salvage_region(const struct ek_fs *fs, const struct ek_inode *dir, uint8_t *buf,
			  uint32_t off, uint32_t end, uint32_t *first_bad)
{
	bool hash_in_de = dir_hash_in_dirent(dir);
	uint32_t prev = UINT32_MAX, rlen;
	int steps = 0, guard;

	/* each step moves on or shrinks what is left: bounded by the region */
	guard = (int)(end / 4) + 2;
	while (off < end && guard-- > 0) {
		if (!ek_dirent_check(fs, dir->ino, 0, buf, off, end, hash_in_de, &rlen)) {
			prev = off;
			off += rlen;
			continue;
		}
		if (!steps)
			*first_bad = off;
		steps++;
		if (entry_short_of_end(fs, buf, off, end, hash_in_de)) {
			/* it leaves fewer bytes than an entry after it: it takes
			 * them (e2fsck reads it, then gives the scrap to it) */
			put_le16(buf + off + 4, ek_rec_len_to_disk(end - off, fs->blksz));
			continue;
		}
		if (entry_shape_ok(fs, buf, off, end, hash_in_de)) {
			/* only its inode is wrong (out of range, or a name of 0
			 * bytes): the entry is made unused, the rest kept */
			put_le32(buf + off, 0);
			continue;
		}
		salvage_one(fs, buf, prev, &off, end);
	}
	if (off < end) {	/* the guard ran out (cannot happen): give up the rest */
		if (prev != UINT32_MAX)
			put_le16(buf + prev + 4, ek_rec_len_to_disk(end - prev, fs->blksz));
		else
			ek_dirent_put(fs, buf, 0, 0, end, "", 0, 0);
		steps++;
	}
	return steps;
}

int ek_dir_block_salvage(const struct ek_fs *fs, const struct ek_inode *dir, uint64_t lblk,
			 uint8_t *buf, uint32_t *first_bad)
{
	uint32_t end = fs->blksz;

	*first_bad = 0;
	/* as the reader: an index node holds no entries; a leaf with a tail
	 * ends before it */
	if (dir_is_dx(fs, dir) && lblk && looks_like_dx_node(fs, buf) &&
	    !(fs->has_csum && leaf_has_tail(fs, buf)))
		return 0;
	if (fs->has_csum && !(dir_is_dx(fs, dir) && lblk == 0) && leaf_has_tail(fs, buf))
		end -= DIRENT_TAIL;
	return salvage_region(fs, dir, buf, 0, end, first_bad);
}

int ek_dir_inline_salvage(const struct ek_fs *fs, const struct ek_inode *dir, uint8_t *buf,
			  uint32_t start, uint32_t end, uint32_t *first_bad)
{
	*first_bad = 0;
	/* salvage_one() gives a region's rest to one empty entry: it must hold one */
	if (end < start || end - start < DIRENT_MIN || (end - start) % 4)
		return 0;
	return salvage_region(fs, dir, buf, start, end, first_bad);
}
