// SPDX-License-Identifier: MIT
/*
 * inode.c - inode location, decode, checksum, and the inode table scan.
 *
 * Layout (struct ext4_inode): 128 bytes of base fields, then in large
 * inodes i_extra_isize bytes of extra fields (checksum hi, ns times,
 * crtime, version hi, projid), then in-inode xattrs up to s_inode_size.
 * The checksum (metadata_csum) is crc32c seeded with crc32c(fs seed, ino,
 * generation) over the whole inode with both checksum halves as zeros;
 * only the low 16 bits are kept when i_checksum_hi does not fit.
 */
#include <stdlib.h>
#include <string.h>
#include "extkit.h"

#define FITS(extra, field) \
	(offsetof(struct ext4_inode, field) + sizeof(((struct ext4_inode *)0)->field) <= \
	 EXT4_GOOD_OLD_INODE_SIZE + (extra))

int ek_inode_loc(struct ek_fs *fs, ek_ino_t ino, ek_blk_t *blk, uint32_t *off)
{
	uint32_t g, idx;
	uint64_t byte;
	const struct ek_group *grp;

	if (ino < 1 || ino > fs->sb.inodes_count)
		return ek_corrupt_ino(ino, "inode number out of range 1..%u", fs->sb.inodes_count);
	g = ek_group_of_ino(fs, ino);
	grp = &fs->groups[g];
	if (!ek_fs_range_valid(fs, grp->inode_table, fs->itable_blocks))
		return ek_corrupt_ino(ino, "inode table of group %u at block %llu is outside the filesystem",
				      g, (unsigned long long)grp->inode_table);
	idx = (ino - 1) % fs->sb.inodes_per_group;
	byte = (uint64_t)idx * fs->inode_size;
	*blk = grp->inode_table + (byte >> fs->log_blksz);
	*off = byte & (fs->blksz - 1);
	return 0;
}

uint32_t ek_inode_csum_seed(const struct ek_fs *fs, ek_ino_t ino, uint32_t generation)
{
	__le32 le_ino = cpu_to_le32(ino), le_gen = cpu_to_le32(generation);
	uint32_t c = ek_crc32c(fs->csum_seed, &le_ino, 4);

	return ek_crc32c(c, &le_gen, 4);
}

static uint16_t extra_isize_of(const struct ek_fs *fs, const uint8_t *raw)
{
	uint16_t x;

	if (fs->inode_size <= EXT4_GOOD_OLD_INODE_SIZE)
		return 0;
	x = get_le16(raw + offsetof(struct ext4_inode, i_extra_isize));
	if (x > fs->inode_size - EXT4_GOOD_OLD_INODE_SIZE || (x & 3))
		return 0;
	return x;
}

uint32_t ek_inode_csum(const struct ek_fs *fs, ek_ino_t ino, const void *rawp)
{
	const uint8_t *raw = rawp;
	const uint32_t lo = offsetof(struct ext4_inode, l_i_checksum_lo);
	const uint32_t hi = offsetof(struct ext4_inode, i_checksum_hi);
	uint16_t zero = 0;
	uint32_t c;

	c = ek_inode_csum_seed(fs, ino, get_le32(raw + offsetof(struct ext4_inode, i_generation)));
	c = ek_crc32c(c, raw, lo);
	c = ek_crc32c(c, &zero, 2);
	c = ek_crc32c(c, raw + lo + 2, EXT4_GOOD_OLD_INODE_SIZE - lo - 2);
	if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		uint32_t off = hi;

		c = ek_crc32c(c, raw + EXT4_GOOD_OLD_INODE_SIZE, hi - EXT4_GOOD_OLD_INODE_SIZE);
		if (FITS(extra_isize_of(fs, raw), i_checksum_hi)) {
			c = ek_crc32c(c, &zero, 2);
			off += 2;
		}
		c = ek_crc32c(c, raw + off, fs->inode_size - off);
	}
	return c;
}

static void time_decode(struct ek_time *t, __le32 sec, const __le32 *extra)
{
	t->sec = (int32_t)le32_to_cpu(sec);
	t->present = true;
	if (extra) {
		uint32_t x = le32_to_cpu(*extra);

		t->sec += (int64_t)(x & 3) << 32;
		t->nsec = x >> 2;
	}
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* ---- split fields of a raw inode ------------------------------------------------- */

/* by byte offsets: an inode logged in a fast commit is not aligned */
#define IOFF(f) offsetof(struct ext4_inode, f)

uint64_t ek_inode_size_field(const void *raw)
{
	const uint8_t *r = raw;

	return get_le32(r + IOFF(i_size_lo)) | (uint64_t)get_le32(r + IOFF(i_size_high)) << 32;
}

/* as the kernel's ext4_isize(): i_size_high (once i_dir_acl) counts for
 * regular files, and for everything with largedir */
uint64_t ek_inode_size(const struct ek_fs *fs, const void *raw)
{
	const uint8_t *r = raw;

	if (ek_is_reg(get_le16(r + IOFF(i_mode))) || ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_LARGEDIR))
		return ek_inode_size_field(raw);
	return get_le32(r + IOFF(i_size_lo));
}

void ek_inode_size_set(void *raw, uint64_t size)
{
	uint8_t *r = raw;

	put_le32(r + IOFF(i_size_lo), (uint32_t)size);
	put_le32(r + IOFF(i_size_high), (uint32_t)(size >> 32));
}

void ek_inode_inline_drop(void *raw)
{
	uint8_t *r = raw;

	ek_inode_size_set(raw, 0);
	put_le32(r + IOFF(i_flags), get_le32(r + IOFF(i_flags)) & ~(uint32_t)EXT4_INLINE_DATA_FL);
	memset(r + IOFF(i_block), 0, EXT4_N_BLOCKS * 4);
}

/* a 48-bit pair: 32 low bits at @lo, 16 high bits at @hi read only when @has_hi */
static uint64_t get_lo32_hi16(const void *raw, size_t lo, size_t hi, bool has_hi)
{
	const uint8_t *r = raw;

	return get_le32(r + lo) | (has_hi ? (uint64_t)get_le16(r + hi) << 32 : 0);
}

static void put_lo32_hi16(void *raw, size_t lo, size_t hi, uint64_t v)
{
	uint8_t *r = raw;

	put_le32(r + lo, (uint32_t)v);
	put_le16(r + hi, (uint16_t)(v >> 32));
}

uint64_t ek_inode_iblocks(const struct ek_fs *fs, const void *raw)
{
	return get_lo32_hi16(raw, IOFF(i_blocks_lo), IOFF(l_i_blocks_high),
			     ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE));
}

void ek_inode_iblocks_set(void *raw, uint64_t v)
{
	put_lo32_hi16(raw, IOFF(i_blocks_lo), IOFF(l_i_blocks_high), v);
}

uint64_t ek_inode_file_acl(const struct ek_fs *fs, const void *raw)
{
	return get_lo32_hi16(raw, IOFF(i_file_acl_lo), IOFF(l_i_file_acl_high),
			     ek_has_incompat(fs, EXT4_FEATURE_INCOMPAT_64BIT));
}

void ek_inode_file_acl_set(void *raw, uint64_t blk)
{
	put_lo32_hi16(raw, IOFF(i_file_acl_lo), IOFF(l_i_file_acl_high), blk);
}

uint32_t ek_inode_uid(const void *raw)
{
	const uint8_t *r = raw;

	return get_le16(r + IOFF(i_uid)) | (uint32_t)get_le16(r + IOFF(l_i_uid_high)) << 16;
}

uint32_t ek_inode_gid(const void *raw)
{
	const uint8_t *r = raw;

	return get_le16(r + IOFF(i_gid)) | (uint32_t)get_le16(r + IOFF(l_i_gid_high)) << 16;
}

void ek_inode_owner_set(void *raw, uint32_t uid, uint32_t gid)
{
	uint8_t *r = raw;

	put_le16(r + IOFF(i_uid), uid & 0xFFFF);
	put_le16(r + IOFF(l_i_uid_high), uid >> 16);
	put_le16(r + IOFF(i_gid), gid & 0xFFFF);
	put_le16(r + IOFF(l_i_gid_high), gid >> 16);
}

/* the inverse of time_decode(): seconds and nanoseconds in the base field and its _extra (epoch bits, nsec << 2) */
void ek_inode_time_set(const struct ek_fs *fs, void *rawp, enum ek_time_field f,
		       struct ek_timespec ts)
{
	static const struct { size_t base, extra; } at[] = {
		[EK_TIME_ATIME] = { offsetof(struct ext4_inode, i_atime),
				    offsetof(struct ext4_inode, i_atime_extra) },
		[EK_TIME_CTIME] = { offsetof(struct ext4_inode, i_ctime),
				    offsetof(struct ext4_inode, i_ctime_extra) },
		[EK_TIME_MTIME] = { offsetof(struct ext4_inode, i_mtime),
				    offsetof(struct ext4_inode, i_mtime_extra) },
		[EK_TIME_CRTIME] = { offsetof(struct ext4_inode, i_crtime),
				     offsetof(struct ext4_inode, i_crtime_extra) },
	};
	uint8_t *raw = rawp;
	uint32_t extra_isize = fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE ?
			       get_le16(raw + offsetof(struct ext4_inode, i_extra_isize)) : 0;
	bool has_extra = EXT4_GOOD_OLD_INODE_SIZE + extra_isize >= at[f].extra + 4;

	if (f == EK_TIME_CRTIME && !has_extra)
		return;
	/* what fits: 32 signed bits of seconds, and with _extra 2 epoch bits more */
	int64_t hi = has_extra ? (int64_t)INT32_MAX + (3ll << 32) : INT32_MAX;

	if (ts.sec < INT32_MIN)
		ts.sec = INT32_MIN;
	if (ts.sec > hi)
		ts.sec = hi;
	put_le32(raw + at[f].base, (uint32_t)ts.sec);
	if (has_extra) {
		uint32_t epoch = (uint32_t)(((uint64_t)(ts.sec - (int32_t)ts.sec) >> 32) & 3);

		put_le32(raw + at[f].extra, epoch | ((uint32_t)ts.nsec << 2));
	}
}

void ek_inode_init_new(const struct ek_fs *fs, uint8_t *raw, uint16_t mode, uint16_t links,
		       struct ek_timespec ts, bool crtime)
{
	memset(raw, 0, fs->inode_size);
	put_le16(raw + offsetof(struct ext4_inode, i_mode), mode);
	put_le16(raw + offsetof(struct ext4_inode, i_links_count), links);
	if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE)
		put_le16(raw + offsetof(struct ext4_inode, i_extra_isize),
			 sizeof(struct ext4_inode) - EXT4_GOOD_OLD_INODE_SIZE);
	ek_inode_time_set(fs, raw, EK_TIME_ATIME, ts);
	ek_inode_time_set(fs, raw, EK_TIME_CTIME, ts);
	ek_inode_time_set(fs, raw, EK_TIME_MTIME, ts);
	if (crtime)
		ek_inode_time_set(fs, raw, EK_TIME_CRTIME, ts);
}

/* decode @raw into @out without copying; out->raw points at @raw */
static int inode_decode_ref(struct ek_fs *fs, ek_ino_t ino, const uint8_t *raw,
			    struct ek_inode *out)
{
	const struct ext4_inode *r = (const void *)raw;
	struct ek_inode e = { 0 };
	uint16_t extra = 0;
	int err = 0;

	e.ino = ino;
	e.raw = (uint8_t *)raw;
	e.raw_size = fs->inode_size;
	e.mode = le16_to_cpu(r->i_mode);
	e.links_count = le16_to_cpu(r->i_links_count);
	e.uid = ek_inode_uid(raw);
	e.gid = ek_inode_gid(raw);
	e.size = ek_inode_size(fs, raw);
	e.flags = le32_to_cpu(r->i_flags);
	e.generation = le32_to_cpu(r->i_generation);
	e.dtime = le32_to_cpu(r->i_dtime);
	e.file_acl = ek_inode_file_acl(fs, raw);
	e.blocks = ek_inode_iblocks(fs, raw);
	if (ek_has_ro_compat(fs, EXT4_FEATURE_RO_COMPAT_HUGE_FILE) && (e.flags & EXT4_HUGE_FILE_FL))
		e.blocks <<= fs->log_blksz - 9;
	e.version = le32_to_cpu(r->l_i_version);

	if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE) {
		uint16_t x = le16_to_cpu(r->i_extra_isize);

		if (x > fs->inode_size - EXT4_GOOD_OLD_INODE_SIZE || (x & 3))
			err = ek_corrupt_ino(ino, "i_extra_isize %u invalid for %u-byte inodes",
					     x, fs->inode_size);
		else
			extra = x;
	}
	e.extra_isize = extra;
	time_decode(&e.atime, r->i_atime, FITS(extra, i_atime_extra) ? &r->i_atime_extra : NULL);
	time_decode(&e.ctime, r->i_ctime, FITS(extra, i_ctime_extra) ? &r->i_ctime_extra : NULL);
	time_decode(&e.mtime, r->i_mtime, FITS(extra, i_mtime_extra) ? &r->i_mtime_extra : NULL);
	if (FITS(extra, i_crtime))
		time_decode(&e.crtime, r->i_crtime,
			    FITS(extra, i_crtime_extra) ? &r->i_crtime_extra : NULL);
	if (FITS(extra, i_version_hi))
		e.version |= (uint64_t)le32_to_cpu(r->i_version_hi) << 32;
	if (FITS(extra, i_projid))
		e.projid = le32_to_cpu(r->i_projid);

	e.checksum = le16_to_cpu(r->l_i_checksum_lo);
	if (fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE && FITS(extra, i_checksum_hi))
		e.checksum |= (uint32_t)le16_to_cpu(r->i_checksum_hi) << 16;
	if (fs->has_csum && !all_zero(raw, fs->inode_size)) {
		uint32_t c = ek_inode_csum(fs, ino, raw);

		if (!(fs->inode_size > EXT4_GOOD_OLD_INODE_SIZE && FITS(extra, i_checksum_hi)))
			c &= 0xFFFF;
		if (c != e.checksum) {
			e.csum_bad = true;
			if (!err)
				err = ek_badcrc_ino(ino, "inode checksum 0x%08x does not match 0x%08x",
						    e.checksum, c);
		}
	}
	*out = e;
	return err;
}

int ek_inode_decode(struct ek_fs *fs, ek_ino_t ino, const void *raw, struct ek_inode *out)
{
	uint8_t *copy = ek_malloc(fs->inode_size);
	int err;

	if (!copy)
		return -ENOMEM;
	memcpy(copy, raw, fs->inode_size);
	err = inode_decode_ref(fs, ino, copy, out);
	out->raw = copy;
	return err;
}

/*
 * Inodes read one by one (a directory listing, a tree walk) are usually
 * neighbours in the table, so single reads go through a small direct-mapped
 * cache of inode-table chunks: one pread per chunk instead of per inode.
 */
#define ITC_SLOTS	4
#define ITC_CHUNK	(32u << 10)

struct ek_itcache {
	struct {
		uint64_t key;		/* byte offset of the chunk in the image + 1; 0 = empty */
		uint32_t len;
	} slot[ITC_SLOTS];
	uint8_t data[ITC_SLOTS][ITC_CHUNK];
};

void ek_inode_cache_drop(struct ek_fs *fs)
{
	free(fs->itcache);
	fs->itcache = NULL;
}

/* copy inode @ino's bytes into @raw through the cache */
static int itable_read(struct ek_fs *fs, ek_ino_t ino, uint8_t *raw)
{
	uint32_t g = ek_group_of_ino(fs, ino);
	uint64_t table = fs->groups[g].inode_table << fs->log_blksz;
	uint64_t table_len = (uint64_t)fs->itable_blocks << fs->log_blksz;
	uint64_t byte = (uint64_t)((ino - 1) % fs->sb.inodes_per_group) * fs->inode_size;
	uint64_t chunk = byte & ~(uint64_t)(ITC_CHUNK - 1);
	unsigned s;
	int err;

	if (!fs->itcache && !(fs->itcache = calloc(1, sizeof(*fs->itcache))))
		return -ENOMEM;
	s = ((table + chunk) / ITC_CHUNK) % ITC_SLOTS;
	if (fs->itcache->slot[s].key != table + chunk + 1) {
		uint32_t len = table_len - chunk < ITC_CHUNK ? table_len - chunk : ITC_CHUNK;

		fs->itcache->slot[s].key = 0;
		err = ek_io_pread(fs->io, fs->itcache->data[s], len, table + chunk);
		if (err)
			return err;
		fs->itcache->slot[s].key = table + chunk + 1;
		fs->itcache->slot[s].len = len;
	}
	memcpy(raw, fs->itcache->data[s] + (byte - chunk), fs->inode_size);
	return 0;
}

int ek_inode_read(struct ek_fs *fs, ek_ino_t ino, struct ek_inode *out)
{
	ek_blk_t blk;
	uint32_t off;
	uint8_t *raw;
	int err;

	memset(out, 0, sizeof(*out));
	err = ek_inode_loc(fs, ino, &blk, &off);
	if (err)
		return err;
	raw = ek_malloc(fs->inode_size);
	if (!raw)
		return -ENOMEM;
	err = itable_read(fs, ino, raw);
	if (err) {
		free(raw);
		return err;
	}
	return inode_decode_ref(fs, ino, raw, out);
}

void ek_inode_release(struct ek_inode *ei)
{
	free(ei->raw);
	ei->raw = NULL;
}

/* i_block[0] holds an old 8:8 number, else i_block[1] the new 12:20 one */
void ek_inode_rdev(const struct ek_inode *ei, uint32_t *major, uint32_t *minor)
{
	const __le32 *ib = ek_inode_i_block(ei);
	uint32_t old = le32_to_cpu(ib[0]), nw = le32_to_cpu(ib[1]);

	if (old) {
		*major = (old >> 8) & 255;
		*minor = old & 255;
	} else {
		*major = (nw & 0xfff00) >> 8;
		*minor = (nw & 0xff) | ((nw >> 12) & 0xfff00);
	}
}

bool ek_inode_has_inline(const struct ek_inode *ei)
{
	return ei->flags & EXT4_INLINE_DATA_FL;
}

/*
 * A symlink with no blocks charged beyond an xattr block, not inline: the
 * kernel's ext4_inode_is_fast_symlink() (its target read from i_block
 * whatever i_size says), e2fsck's symlink without valid blocks.
 */
bool ek_inode_symlink_blockless(const struct ek_fs *fs, const struct ek_inode *ei)
{
	uint64_t ea_sectors = ei->file_acl ? (uint64_t)fs->blksz << fs->cluster_bits >> 9 : 0;

	if (!ek_is_lnk(ei->mode) || (ei->flags & EXT4_INLINE_DATA_FL))
		return false;
	return ei->blocks <= ea_sectors;
}

/* ...and shorter than i_block: a target that can live there */
bool ek_inode_is_fast_symlink(const struct ek_fs *fs, const struct ek_inode *ei)
{
	return ek_inode_symlink_blockless(fs, ei) &&
	       ei->size < sizeof(((struct ext4_inode *)0)->i_block);
}

#define SCAN_CHUNK (128u << 10)	/* a few hundred KiB more read ahead buys nothing */

int ek_inode_scan(struct ek_fs *fs, ek_inode_scan_fn fn, void *arg)
{
	uint32_t per_chunk = SCAN_CHUNK / fs->inode_size;
	uint8_t *buf;
	int ret = 0, first_err = 0;

	if (per_chunk < fs->inodes_per_block)
		per_chunk = fs->inodes_per_block;
	per_chunk -= per_chunk % fs->inodes_per_block;
	buf = ek_malloc((size_t)per_chunk * fs->inode_size);
	if (!buf)
		return -ENOMEM;

	for (uint32_t g = 0; g < fs->group_count && !ret; g++) {
		const struct ek_group *grp = &fs->groups[g];
		uint32_t n = fs->sb.inodes_per_group;
		bool lazy = fs->has_csum || fs->has_gdt_csum;

		if (lazy && (grp->flags & EXT4_BG_INODE_UNINIT))
			continue;
		if (lazy && grp->itable_unused <= n && !grp->csum_bad)
			n -= grp->itable_unused;
		if (!ek_fs_range_valid(fs, grp->inode_table, fs->itable_blocks)) {
			if (!first_err)
				first_err = ek_corrupt_grp(g, "inode table at block %llu is outside the filesystem",
							   (unsigned long long)grp->inode_table);
			continue;
		}
		for (uint32_t i = 0; i < n && !ret; i += per_chunk) {
			uint32_t cnt = n - i < per_chunk ? n - i : per_chunk;
			uint64_t byte = (uint64_t)i * fs->inode_size;
			size_t len = (((uint64_t)cnt * fs->inode_size + fs->blksz - 1) >>
				      fs->log_blksz) << fs->log_blksz;
			int err = ek_io_pread(fs->io, buf, len,
					      (grp->inode_table << fs->log_blksz) + byte);

			if (err) {
				if (!first_err)
					first_err = err;
				break;
			}
			for (uint32_t k = 0; k < cnt && !ret; k++) {
				const uint8_t *raw = buf + (size_t)k * fs->inode_size;
				ek_ino_t ino = g * fs->sb.inodes_per_group + i + k + 1;
				struct ek_inode ei;

				if (all_zero(raw, EXT4_GOOD_OLD_INODE_SIZE))
					continue;
				err = inode_decode_ref(fs, ino, raw, &ei);
				ret = fn(arg, &ei, err);
			}
		}
	}
	free(buf);
	return ret ? ret : first_err;
}
