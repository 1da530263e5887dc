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
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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
/* @raw decoded into @out, which points at it; @sum, when not NULL, is
 * ek_inode_csum(fs, ino, raw) computed already (the scan's reader) */
static int inode_decode_sum(struct ek_fs *fs, ek_ino_t ino, const uint8_t *raw,
			    struct ek_inode *out, const uint32_t *sum)
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
		uint32_t c = sum ? *sum : ek_inode_csum(fs, ino, raw);

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

static int inode_decode_ref(struct ek_fs *fs, ek_ino_t ino, const uint8_t *raw,
			    struct ek_inode *out)
{
	return inode_decode_sum(fs, ino, raw, out, NULL);
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

#define SCAN_CHUNK (64u << 10)	/* (SCAN_SLOTS of them with the reader thread) */

/*
 * The scan goes through the inode tables in steps: a chunk of one group's
 * table (the part in use: not an INODE_UNINIT group, nor past
 * itable_unused), or a group whose table lies outside the filesystem.
 */
struct scan_step {
	uint32_t g, first, cnt;		/* inodes first..first+cnt-1 of group g */
	size_t len;			/* bytes to read: whole blocks */
	bool bad_table;
};

struct scan_pos {
	uint32_t g, next, n;		/* group g: inodes next..n-1 left */
	bool in_group;
};

/* the step after *p into *s: false after the last */
static bool scan_next(const struct ek_fs *fs, uint32_t per_chunk, struct scan_pos *p,
		      struct scan_step *s)
{
	bool lazy = fs->has_csum || fs->has_gdt_csum;

	while (p->g < fs->group_count) {
		const struct ek_group *grp = &fs->groups[p->g];

		if (!p->in_group) {
			p->n = fs->sb.inodes_per_group;
			p->next = 0;
			if (lazy && (grp->flags & EXT4_BG_INODE_UNINIT)) {
				p->g++;
				continue;
			}
			if (lazy && grp->itable_unused <= p->n && !grp->csum_bad)
				p->n -= grp->itable_unused;
			if (!ek_fs_range_valid(fs, grp->inode_table, fs->itable_blocks)) {
				*s = (struct scan_step){ .g = p->g++, .bad_table = true };
				return true;
			}
			p->in_group = true;
		}
		if (p->next >= p->n) {
			p->g++;
			p->in_group = false;
			continue;
		}
		s->g = p->g;
		s->first = p->next;
		s->cnt = p->n - p->next < per_chunk ? p->n - p->next : per_chunk;
		s->len = (((uint64_t)s->cnt * fs->inode_size + fs->blksz - 1) >> fs->log_blksz)
			 << fs->log_blksz;
		s->bad_table = false;
		p->next += s->cnt;
		return true;
	}
	return false;
}

/*
 * With a second CPU, a reader thread runs ahead: it reads the next chunks
 * and computes their inodes' checksums while the callback works through
 * the current one (the scan's crc32c and copying were half of
 * extkit-fsck's pass 1).  A ring of slots under a lock; each side sleeps
 * only when it must (the reader on a full ring or when parked, the caller
 * on an empty slot or while it parks the reader) and is woken only when it
 * sleeps: the reader when half the ring is free again, the caller when
 * half is full, or the reader parked or finished: several chunks a wake.
 * (A wake is a futex call and a context switch; with two slots handed
 * back and forth they cost pass 1 a fifth of its CPU on a virtual
 * machine.)  The callback must not write the image; @between may, with
 * the reader parked.
 */
#define SCAN_SLOTS 4

struct scan_slot {
	struct scan_step step;
	uint8_t *buf;
	uint32_t *sum;		/* per inode: its checksum (metadata_csum) */
	bool full, end;
	bool read_here;		/* read by the caller: the reader's read failed, or a
				 * write between chunks made it stale */
};

struct scan_reader {
	struct ek_fs *fs;
	uint32_t per_chunk;
	pthread_mutex_t lock;
	pthread_cond_t reader_wake, caller_wake;
	struct scan_slot slot[SCAN_SLOTS];
	unsigned nfull;			/* slots full */
	bool reader_sleeps, caller_sleeps;
	bool park;			/* the caller asks the reader to stop between slots */
	bool done;			/* the reader has returned */
	bool stop;
};

static bool all_zero_head(const uint8_t *raw)
{
	return all_zero(raw, EXT4_GOOD_OLD_INODE_SIZE);
}

static void *scan_reader_main(void *arg)
{
	struct scan_reader *r = arg;
	struct ek_fs *fs = r->fs;
	struct scan_pos pos = { 0 };
	bool more = true;

	for (unsigned w = 0; more; w = (w + 1) % SCAN_SLOTS) {
		struct scan_slot *sl = &r->slot[w];
		bool stop, wake;

		pthread_mutex_lock(&r->lock);
		while ((sl->full || r->park) && !r->stop) {
			r->reader_sleeps = true;
			if (r->caller_sleeps)	/* (it may be waiting for the reader to park) */
				pthread_cond_signal(&r->caller_wake);
			pthread_cond_wait(&r->reader_wake, &r->lock);
		}
		r->reader_sleeps = false;
		stop = r->stop;
		pthread_mutex_unlock(&r->lock);
		if (stop)
			break;
		more = scan_next(fs, r->per_chunk, &pos, &sl->step);
		sl->end = !more;
		sl->read_here = false;
		if (more && !sl->step.bad_table) {
			const struct scan_step *s = &sl->step;
			uint64_t at = (fs->groups[s->g].inode_table << fs->log_blksz) +
				      (uint64_t)s->first * fs->inode_size;

			/* (a failure is read again by the caller, so that its
			 * message is in the caller's thread) */
			sl->read_here = ek_io_pread(fs->io, sl->buf, s->len, at) != 0;
			for (uint32_t k = 0; !sl->read_here && fs->has_csum && k < s->cnt; k++) {
				const uint8_t *raw = sl->buf + (size_t)k * fs->inode_size;

				if (!all_zero_head(raw))
					sl->sum[k] = ek_inode_csum(fs, s->g * fs->sb.inodes_per_group +
								   s->first + k + 1, raw);
			}
		}
		pthread_mutex_lock(&r->lock);
		sl->full = true;
		r->nfull++;
		wake = r->caller_sleeps && (r->nfull >= SCAN_SLOTS / 2 || !more);
		pthread_mutex_unlock(&r->lock);
		/* (signalled unlocked: the woken side would wait for the lock) */
		if (wake)
			pthread_cond_signal(&r->caller_wake);
	}
	pthread_mutex_lock(&r->lock);
	r->done = true;
	if (r->caller_sleeps)
		pthread_cond_signal(&r->caller_wake);
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* the caller's side: wait, under r->lock, until @until(r, sl) */
static void scan_caller_wait(struct scan_reader *r, bool (*until)(const struct scan_reader *,
								  const struct scan_slot *),
			     const struct scan_slot *sl)
{
	while (!until(r, sl)) {
		r->caller_sleeps = true;
		pthread_cond_wait(&r->caller_wake, &r->lock);
	}
	r->caller_sleeps = false;
}

static bool slot_full(const struct scan_reader *r, const struct scan_slot *sl)
{
	(void)r;
	return sl->full;
}

static bool reader_parked(const struct scan_reader *r, const struct scan_slot *sl)
{
	(void)sl;
	return r->reader_sleeps || r->done;
}

/*
 * A scan error kept in *@first (its message in *@msg): the first, but a
 * read error before a table outside the filesystem (-EK_CORRUPT, which
 * fsck forgives for a table it will move): the caller must not take the
 * scan for complete when a table could not be read.
 */
static void scan_error(int *first, struct ek_error *msg, int err)
{
	if (*first && !(*first == -EK_CORRUPT && err != -EK_CORRUPT))
		return;
	*first = err;
	*msg = *ek_last_error();
}

/* fn on each inode of a chunk read into @buf (@sum: their checksums, or NULL) */
static int scan_chunk(struct ek_fs *fs, const struct scan_step *s, const uint8_t *buf,
		      const uint32_t *sum, ek_inode_scan_fn fn, void *arg)
{
	int ret = 0;

	for (uint32_t k = 0; k < s->cnt && !ret; k++) {
		const uint8_t *raw = buf + (size_t)k * fs->inode_size;
		ek_ino_t ino = s->g * fs->sb.inodes_per_group + s->first + k + 1;
		struct ek_inode ei;
		int err;

		if (all_zero_head(raw))
			continue;
		err = inode_decode_sum(fs, ino, raw, &ei, sum && fs->has_csum ? &sum[k] : NULL);
		ret = fn(arg, &ei, err);
	}
	return ret;
}

/*
 * @between with the reader parked between two slots, so that it may write
 * the image and refresh @fs: what the reader has read ahead is read again
 * by the caller when it wrote.
 */
static int scan_between_parked(struct scan_reader *r, ek_inode_scan_between_fn between, void *arg)
{
	int ret;

	pthread_mutex_lock(&r->lock);
	r->park = true;
	scan_caller_wait(r, reader_parked, NULL);
	pthread_mutex_unlock(&r->lock);
	ret = between(arg, true);
	pthread_mutex_lock(&r->lock);
	if (ret == EK_SCAN_WROTE) {
		ret = 0;
		/* (the caller's own slot too: it is done with it) */
		for (unsigned k = 0; k < SCAN_SLOTS; k++)
			if (r->slot[k].full)
				r->slot[k].read_here = true;
	}
	r->park = false;
	if (r->reader_sleeps)
		pthread_cond_signal(&r->reader_wake);
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/* the scan's steps in order, each as scan_chunk wants it; the reader
 * thread's slots when @r, else read here into @buf; @between after each
 * chunk, asked first with the reader running whether it would write
 * (without the reader, called once with @may_write true) */
static int scan_run(struct ek_fs *fs, uint32_t per_chunk, struct scan_reader *r, uint8_t *buf,
		    ek_inode_scan_fn fn, ek_inode_scan_between_fn between, void *arg)
{
	struct scan_pos pos = { 0 };
	struct scan_step own;
	int ret = 0, first_err = 0;
	struct ek_error first_msg;
	uint32_t failed_group = UINT32_MAX;	/* a read failed: its group's other chunks skipped */

	for (unsigned rd = 0; !ret; rd = (rd + 1) % SCAN_SLOTS) {
		struct scan_slot *sl = r ? &r->slot[rd] : NULL;
		const struct scan_step *s = &own;
		const uint8_t *data = buf;
		const uint32_t *sum = NULL;
		bool have = true;

		if (sl) {
			pthread_mutex_lock(&r->lock);
			scan_caller_wait(r, slot_full, sl);
			pthread_mutex_unlock(&r->lock);
			if (sl->end)
				break;
			s = &sl->step;
			data = sl->buf;
			sum = sl->read_here ? NULL : sl->sum;
			have = !sl->read_here;
		} else if (!scan_next(fs, per_chunk, &pos, &own)) {
			break;
		} else {
			have = false;
		}
		if (s->bad_table) {
			int err = ek_corrupt_grp(s->g, "inode table at block %llu is outside the filesystem",
						 (unsigned long long)fs->groups[s->g].inode_table);

			scan_error(&first_err, &first_msg, err);
		} else if (s->g != failed_group) {
			int err = 0;

			if (!have) {
				uint8_t *into = sl ? sl->buf : buf;

				err = ek_io_pread(fs->io, into, s->len,
						  (fs->groups[s->g].inode_table << fs->log_blksz) +
						  (uint64_t)s->first * fs->inode_size);
				data = into;
			}
			if (err) {
				scan_error(&first_err, &first_msg, err);
				failed_group = s->g;
			} else {
				ret = scan_chunk(fs, s, data, sum, fn, arg);
			}
		}
		if (between && !ret) {
			ret = between(arg, !r);
			if (ret == EK_SCAN_WANT_WRITE && r)
				ret = scan_between_parked(r, between, arg);
			else if (ret == EK_SCAN_WROTE || ret == EK_SCAN_WANT_WRITE)
				ret = 0;
		}
		if (sl) {
			bool wake;

			pthread_mutex_lock(&r->lock);
			sl->full = false;
			r->nfull--;
			wake = r->reader_sleeps && !r->park && r->nfull <= SCAN_SLOTS / 2;
			pthread_mutex_unlock(&r->lock);
			if (wake)
				pthread_cond_signal(&r->reader_wake);
		}
	}
	if (!ret && first_err)
		*(struct ek_error *)ek_last_error() = first_msg;
	return ret ? ret : first_err;
}

bool ek_threads_wanted(void)
{
	static int cpus;

	if (!cpus) {
		const char *no = getenv("EK_TEST_NO_THREADS");

		cpus = no && *no == '1' ? 1 : (int)sysconf(_SC_NPROCESSORS_ONLN);
	}
	return cpus > 1;
}

/* is a reader thread worth it: a second CPU and more than one chunk to read */
static bool scan_threaded(const struct ek_fs *fs, uint32_t per_chunk)
{
	return ek_threads_wanted() && ek_io_reads_concurrent(fs->io) &&
	       (uint64_t)fs->group_count * fs->sb.inodes_per_group > per_chunk;
}

int ek_inode_scan(struct ek_fs *fs, ek_inode_scan_fn fn, void *arg)
{
	return ek_inode_scan_between(fs, fn, NULL, arg);
}

int ek_inode_scan_between(struct ek_fs *fs, ek_inode_scan_fn fn, ek_inode_scan_between_fn between,
			  void *arg)
{
	uint32_t per_chunk = SCAN_CHUNK / fs->inode_size;
	size_t bytes;
	struct scan_reader r = { .fs = fs };
	pthread_t tid;
	int ret;

	if (per_chunk < fs->inodes_per_block)
		per_chunk = fs->inodes_per_block;
	per_chunk -= per_chunk % fs->inodes_per_block;
	bytes = (size_t)per_chunk * fs->inode_size;
	r.per_chunk = per_chunk;
	if (!scan_threaded(fs, per_chunk)) {
		uint8_t *buf = ek_malloc(bytes);

		if (!buf)
			return -ENOMEM;
		ret = scan_run(fs, per_chunk, NULL, buf, fn, between, arg);
		free(buf);
		return ret;
	}
	for (unsigned k = 0; k < SCAN_SLOTS; k++) {
		r.slot[k].buf = ek_malloc(bytes);
		r.slot[k].sum = ek_malloc(per_chunk * sizeof(uint32_t));
	}
	ret = -ENOMEM;
	for (unsigned k = 0; k < SCAN_SLOTS; k++)
		if (!r.slot[k].buf || !r.slot[k].sum)
			goto out;
	pthread_mutex_init(&r.lock, NULL);
	pthread_cond_init(&r.reader_wake, NULL);
	pthread_cond_init(&r.caller_wake, NULL);
	if (pthread_create(&tid, NULL, scan_reader_main, &r)) {
		/* no thread: the slots' first buffer read here */
		ret = scan_run(fs, per_chunk, NULL, r.slot[0].buf, fn, between, arg);
	} else {
		ret = scan_run(fs, per_chunk, &r, NULL, fn, between, arg);
		pthread_mutex_lock(&r.lock);
		r.stop = true;
		pthread_cond_signal(&r.reader_wake);
		pthread_mutex_unlock(&r.lock);
		pthread_join(tid, NULL);
	}
	pthread_cond_destroy(&r.reader_wake);
	pthread_cond_destroy(&r.caller_wake);
	pthread_mutex_destroy(&r.lock);
out:
	for (unsigned k = 0; k < SCAN_SLOTS; k++) {
		free(r.slot[k].buf);
		free(r.slot[k].sum);
	}
	return ret;
}
