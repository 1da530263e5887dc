// SPDX-License-Identifier: MIT
/*
 * undo.c - undo files in e2fsprogs' format "E2UNDO02" (the format of its
 * undo I/O manager, lib/ext2fs/undo_io.c, read back by misc/e2undo.c): the
 * original bytes of every block a tool writes, saved and made durable
 * before the write, so that `extkit-replay undo` or e2undo puts the device
 * back exactly.  The raw structs are in ondisk.h.
 *
 * The file is cut into undo blocks of block_size bytes.  Little-endian:
 *
 *   block 0 (super_offset 1, key_offset 2 as written by e2fsprogs and us)
 *     0x000 magic[8]       "E2UNDO02"
 *     0x008 num_keys       u64  keys in all key blocks together
 *     0x010 super_offset   u64  undo block holding the superblock copy
 *     0x018 key_offset     u64  undo block of the first key block
 *     0x020 block_size     u32  undo block size, 1024..1048576
 *     0x024 fs_block_size  u32  unit of a key's fsblk
 *     0x028 sb_crc         u32  crc32c(~0) of the superblock copy (real magic)
 *     0x02C state          u32  0x1 FINISHED: the tool closed the file
 *     0x030 f_compat       u32  0x1 FS_OFFSET: fs_offset is meaningful
 *     0x034 f_incompat     u32  none defined: e2undo refuses any (unless -f)
 *     0x038 f_rocompat     u32  likewise
 *     0x03C pad32          u32
 *     0x040 fs_offset      u64  where the filesystem starts on the device
 *     0x048 padding[436]
 *     0x1FC header_crc     u32  crc32c(~0) of bytes 0x000..0x1FB
 *   block super_offset: the 1024 bytes at byte 1024 of the filesystem (its
 *     superblock) with s_magic (16 bits at 0x38) inverted, so a scan for
 *     superblocks does not find it.  Rewritten on every index update, so it
 *     is the device's superblock as of the last save, and at close as the
 *     tool left it.
 *   key block: 0x00 magic u32 0xCADECADE, 0x04 crc u32 crc32c(~0) of the
 *     whole block with this field 0, 0x08 reserved u64, then block_size/16
 *     - 1 keys of 16 bytes: fsblk u64 (the target is byte fs_offset +
 *     fsblk * fs_block_size), blk_crc u32 crc32c(~0) of the saved bytes,
 *     size u32 saved bytes (at most 512 undo blocks; a key grows while the
 *     blocks it saves are adjacent, its crc continued over the new bytes).
 *   Each key's bytes follow its key block in key order, every key taking
 *   ceil(size / block_size) undo blocks; the next key block comes after
 *   the last key's data.  The first key block is key_offset.
 *
 * e2undo checks, in order: magic; header_crc; block sizes (nonzero, within
 * 1 KiB..1 MiB); no incompat/rocompat bits; the device is not mounted;
 * the superblock read at fs_offset + 1024 equals the copy (magic restored)
 * and the copy matches sb_crc, so a file is applied to its own filesystem
 * and only while the filesystem is as the tool left it (a mismatch names
 * the UUID, the mount and write times and the lifetime write counter);
 * then each key block's magic and crc, each key's size and each key's
 * bytes against blk_crc, all before writing.  -f skips these checks and
 * restores regardless.  A file without FINISHED (the tool was killed) is
 * replayed as far as its header counts keys, with "Incomplete undo record;
 * run e2fsck."; after an incomplete file, -f or a damaged range e2undo
 * clears EXT2_VALID_FS in the superblock (and sets EXT2_ERROR_FS after a
 * damaged range) so the filesystem gets checked.
 *
 * How we write: undo blocks are the filesystem's blocks (fs_block_size =
 * block_size, fsblk counts undo blocks from the filesystem's start), each
 * saved once, the first time a write touches it (a short last block at the
 * device's end saves what there is).  Per ek_io_pwrite: the data blocks,
 * then the key block, then the header, then fdatasync, and only then the
 * write: the header counts a key only once its bytes and its key block are
 * in the file, so a file cut anywhere restores every write that happened.
 * After a write that touched the superblock the copy is updated (and
 * synced), so an unfinished file still matches the device it was made for.
 *
 * How we read: every check is made before the first write; --force turns
 * each refusal into a count.  Keys whose bytes or target lie outside the
 * file or the device are refused even so (and skipped with force): we never
 * write past a device's end.  Ranges are written last key first, so a block
 * saved twice (a file reopened by e2fsprogs) ends with its oldest bytes.
 */
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "extkit.h"

#define SB_OFF	EXT4_SUPERBLOCK_OFFSET	/* e2fsprogs' SUPERBLOCK_OFFSET, 1024 */
#define SB_SIZE	EXT4_SUPERBLOCK_SIZE	/* 1024 */
#define SB_MAGIC_OFF offsetof(struct ext4_super_block, s_magic)

/* ---- codec ---------------------------------------------------------------- */

void ek_undo_hdr_encode(const struct ek_undo_hdr *h, void *raw)
{
	struct e2undo_header *d = raw;

	memset(d, 0, sizeof(*d));
	memcpy(d->magic, E2UNDO_MAGIC, sizeof(d->magic));
	d->num_keys = cpu_to_le64(h->num_keys);
	d->super_offset = cpu_to_le64(h->super_offset);
	d->key_offset = cpu_to_le64(h->key_offset);
	d->block_size = cpu_to_le32(h->block_size);
	d->fs_block_size = cpu_to_le32(h->fs_block_size);
	d->sb_crc = cpu_to_le32(h->sb_crc);
	d->state = cpu_to_le32(h->state);
	d->f_compat = cpu_to_le32(h->f_compat);
	d->f_incompat = cpu_to_le32(h->f_incompat);
	d->f_rocompat = cpu_to_le32(h->f_rocompat);
	d->fs_offset = cpu_to_le64(h->fs_offset);
	d->header_crc = cpu_to_le32(ek_crc32c(~0u, d, offsetof(struct e2undo_header, header_crc)));
}

int ek_undo_hdr_decode(const void *raw, bool force, struct ek_undo_hdr *out)
{
	const struct e2undo_header *d = raw;
	struct ek_undo_hdr h = { 0 };
	uint32_t crc = ek_crc32c(~0u, d, offsetof(struct e2undo_header, header_crc));

	if (memcmp(d->magic, E2UNDO_MAGIC, sizeof(d->magic)))
		return ek_corrupt_fs("not an undo file (no E2UNDO02 magic)");
	h.num_keys = le64_to_cpu(d->num_keys);
	h.super_offset = le64_to_cpu(d->super_offset);
	h.key_offset = le64_to_cpu(d->key_offset);
	h.block_size = le32_to_cpu(d->block_size);
	h.fs_block_size = le32_to_cpu(d->fs_block_size);
	h.sb_crc = le32_to_cpu(d->sb_crc);
	h.state = le32_to_cpu(d->state);
	h.f_compat = le32_to_cpu(d->f_compat);
	h.f_incompat = le32_to_cpu(d->f_incompat);
	h.f_rocompat = le32_to_cpu(d->f_rocompat);
	h.fs_offset = (h.f_compat & E2UNDO_COMPAT_FS_OFFSET) ? le64_to_cpu(d->fs_offset) : 0;
	if (h.f_incompat || h.f_rocompat) {
		if (!force)
			return ek_unsupp("unknown features: incompat 0x%x, rocompat 0x%x",
					 h.f_incompat, h.f_rocompat);
		h.unknown_features = true;
	}
	if (crc != le32_to_cpu(d->header_crc)) {
		if (!force)
			return ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
					 "header fails its checksum (0x%08x, computed 0x%08x)",
					 le32_to_cpu(d->header_crc), crc);
		h.crc_bad = true;
	}
	if (h.block_size < E2UNDO_MIN_BLOCK || h.block_size > E2UNDO_MAX_BLOCK)
		return ek_corrupt_fs("block size %u is outside 1024..1048576", h.block_size);
	if (!h.fs_block_size || h.fs_block_size > E2UNDO_MAX_BLOCK)
		return ek_corrupt_fs("filesystem block size %u is outside 1..1048576",
				     h.fs_block_size);
	if (!h.super_offset || !h.key_offset || h.super_offset == h.key_offset)
		return ek_corrupt_fs("superblock copy at block %llu, first key block at %llu",
				     (unsigned long long)h.super_offset,
				     (unsigned long long)h.key_offset);
	*out = h;
	return 0;
}

uint32_t ek_undo_keyblock_csum(const void *blk, uint32_t bs)
{
	static const uint8_t zero[4];
	const uint8_t *p = blk;
	uint32_t crc = ek_crc32c(~0u, p, 4);

	crc = ek_crc32c(crc, zero, 4);
	return ek_crc32c(crc, p + 8, bs - 8);
}

void ek_undo_keyblock_seal(void *blk, uint32_t bs)
{
	struct e2undo_key_block *kb = blk;

	kb->magic = cpu_to_le32(E2UNDO_KEY_MAGIC);
	kb->crc = cpu_to_le32(ek_undo_keyblock_csum(blk, bs));
}

int ek_undo_keyblock_check(const void *blk, uint32_t bs, uint64_t where)
{
	const struct e2undo_key_block *kb = blk;
	uint32_t crc = ek_undo_keyblock_csum(blk, bs);

	if (le32_to_cpu(kb->magic) != E2UNDO_KEY_MAGIC)
		return ek_corrupt_fs("key block %llu: bad magic 0x%08x",
				     (unsigned long long)where, le32_to_cpu(kb->magic));
	if (le32_to_cpu(kb->crc) != crc)
		return ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
				 "key block %llu fails its checksum (0x%08x, computed 0x%08x)",
				 (unsigned long long)where, le32_to_cpu(kb->crc), crc);
	return 0;
}

/* the superblock copy as stored: s_magic inverted (both bytes) */
static void flip_magic(uint8_t *sb)
{
	sb[SB_MAGIC_OFF] ^= 0xFF;
	sb[SB_MAGIC_OFF + 1] ^= 0xFF;
}

static int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* 0, or -EIO when the file ends first (a short file) */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	uint8_t *p = buf;

	while (len) {
		ssize_t n = pread(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* ---- writing -------------------------------------------------------------- */

struct ek_undo {
	int fd;			/* the undo file */
	char *path;
	struct ek_io *src;	/* read-only handle on the device written */
	uint32_t bs;		/* undo block: the filesystem block (a resumed file: its own) */
	uint32_t ratio;		/* undo block / the header's fs_block_size (a key's unit) */
	struct ek_undo_hdr hdr;
	struct ek_set saved;	/* undo blocks saved, each + 1 */
	uint8_t *keyb;		/* the current key block */
	uint64_t key_blk;	/* its undo block */
	uint32_t in_keyb;	/* keys in it */
	uint64_t next_blk;	/* first free undo block */
	uint8_t *buf;		/* one undo block */
	uint8_t sb[SB_SIZE];	/* the superblock as recorded (real magic) */
	/* a write to the undo file failed: the file is left as it was after its
	 * last complete save (never finished), and nothing more is written to it */
	bool failed;
};

const struct ek_io *ek__undo_io(const struct ek_undo *u)
{
	return u->src;
}

const char *ek__undo_path(const struct ek_undo *u)
{
	return u->path;
}

static int undo_ioerr(struct ek_undo *u, int err)
{
	return ek_err(err, "cannot write undo file '%s': %s", u->path, strerror(-err));
}

/* the superblock copy and the header, as the device's superblock is now */
static int write_index(struct ek_undo *u)
{
	uint8_t hdr[sizeof(struct e2undo_header)];
	uint8_t *copy = u->buf;
	int err;

	err = ek_io_pread(u->src, u->sb, SB_SIZE, SB_OFF);
	if (err)
		return err;
	u->hdr.sb_crc = ek_crc32c(~0u, u->sb, SB_SIZE);
	memset(copy, 0, u->bs);
	memcpy(copy, u->sb, SB_SIZE);
	flip_magic(copy);
	err = pwrite_full(u->fd, copy, u->bs, u->hdr.super_offset * u->bs);
	ek_undo_hdr_encode(&u->hdr, hdr);
	if (!err)
		err = pwrite_full(u->fd, hdr, sizeof(hdr), 0);
	if (!err && fdatasync(u->fd) < 0)
		err = -errno;
	return err ? undo_ioerr(u, err) : 0;
}

/* make a new file durable by name too: fsync the directory holding it */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

static void undo_free(struct ek_undo *u)
{
	if (u->fd >= 0)
		close(u->fd);
	ek_io_close(u->src);
	ek_set_release(&u->saved);
	free(u->keyb);
	free(u->buf);
	free(u->path);
	free(u);
}

/* a writer of @blksz-byte undo blocks for the device @io writes, no file yet */
static int undo_alloc(const char *path, const struct ek_io *io, uint32_t blksz,
		      struct ek_undo **out)
{
	struct ek_undo *u;
	int err;

	if (blksz < E2UNDO_MIN_BLOCK || blksz > E2UNDO_MAX_BLOCK || (blksz & (blksz - 1)))
		return ek_err(-EINVAL, "undo block size %u is not a power of two in 1024..1048576",
			      blksz);
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->fd = -1;
	u->bs = blksz;
	u->ratio = 1;
	u->path = strdup(path);
	u->keyb = calloc(1, blksz);
	u->buf = malloc(blksz);
	if (!u->path || !u->keyb || !u->buf) {
		undo_free(u);
		return -ENOMEM;
	}
	err = ek_io_open(ek_io_path(io), 0, ek_io_offset(io), &u->src);
	if (err) {
		undo_free(u);
		return err;
	}
	if (ek_io_size(u->src) < SB_OFF + SB_SIZE) {
		undo_free(u);
		return ek_err(-EINVAL, "'%s' is too small to hold a superblock", ek_io_path(io));
	}
	*out = u;
	return 0;
}

/* a new file at @u->fd: the header, the superblock copy, an empty key block */
static int undo_start(struct ek_undo *u, const struct ek_io *io)
{
	int err;

	u->hdr = (struct ek_undo_hdr){
		.super_offset = 1, .key_offset = 2, .block_size = u->bs, .fs_block_size = u->bs,
		.fs_offset = ek_io_offset(io),
		.f_compat = ek_io_offset(io) ? E2UNDO_COMPAT_FS_OFFSET : 0,
	};
	u->key_blk = 2;
	u->next_blk = 3;
	err = ftruncate(u->fd, (off_t)3 * u->bs) < 0 ? undo_ioerr(u, -errno) : write_index(u);
	if (err)
		unlink(u->path);
	else
		sync_dir(u->path);
	return err;
}

int ek_undo_create(const char *path, const struct ek_io *io, uint32_t blksz,
		   struct ek_undo **out)
{
	struct ek_undo *u;
	int err;

	if ((err = undo_alloc(path, io, blksz, &u)))
		return err;
	/* never overwrite: an existing undo file may be the only way back */
	u->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (u->fd < 0) {
		err = ek_err(-errno, "cannot create undo file '%s': %s", path, strerror(errno));
		undo_free(u);
		return err;
	}
	if ((err = undo_start(u, io))) {
		undo_free(u);
		return err;
	}
	*out = u;
	return 0;
}

/*
 * The keys of the resumed file @u (header in @u->hdr, @fsize bytes): every
 * undo block they save marked saved, the last key block loaded to go on
 * with, the next free undo block after the last key's bytes.  Each key
 * block and each key's bytes must lie inside the file.
 */
static int resume_keys(struct ek_undo *u, uint64_t fsize)
{
	uint64_t nblk = fsize / u->bs, lblk = u->hdr.key_offset;
	uint32_t kpb = ek_undo_keys_per_block(u->bs);
	struct e2undo_key_block *kb = (struct e2undo_key_block *)u->keyb;
	int err;

	u->key_blk = lblk;
	u->in_keyb = 0;
	memset(u->keyb, 0, u->bs);
	for (uint64_t i = 0; i < u->hdr.num_keys; i += kpb) {
		uint64_t n = u->hdr.num_keys - i < kpb ? u->hdr.num_keys - i : kpb;

		if (lblk >= nblk)
			return ek_corrupt_fs("key block %llu is past the end of the file",
					     (unsigned long long)lblk);
		if ((err = pread_full(u->fd, u->keyb, u->bs, lblk * u->bs)) ||
		    (err = ek_undo_keyblock_check(u->keyb, u->bs, lblk)))
			return err;
		u->key_blk = lblk++;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t fsblk = le64_to_cpu(kb->keys[j].fsblk);
			uint32_t size = le32_to_cpu(kb->keys[j].size);
			uint64_t first = fsblk / u->ratio, cnt = ((uint64_t)size + u->bs - 1) / u->bs;

			if (!size || size > (uint64_t)E2UNDO_MAX_EXTENT * u->bs || cnt > nblk - lblk ||
			    fsblk % u->ratio)
				return ek_corrupt_fs("key %llu (block %llu, %u bytes) does not fit "
						     "the file", (unsigned long long)(i + j),
						     (unsigned long long)fsblk, size);
			for (uint64_t b = 0; b < cnt; b++)
				if ((err = ek_set_add(&u->saved, first + b + 1)) < 0)
					return err;
			lblk += cnt;
		}
		u->in_keyb = (uint32_t)n;
	}
	u->next_blk = lblk > u->key_blk ? lblk : u->key_blk + 1;
	return 0;
}

int ek_undo_resume(const char *path, const struct ek_io *io, uint32_t blksz,
		   struct ek_undo **out)
{
	uint8_t raw[sizeof(struct e2undo_header)], sb[SB_SIZE];
	struct ek_undo *u;
	struct ek_undo_hdr h;
	struct stat st;
	int err;

	if ((err = undo_alloc(path, io, blksz, &u)))
		return err;
	u->fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (u->fd < 0 || fstat(u->fd, &st)) {
		err = ek_err(-errno, "cannot open undo file '%s': %s", path, strerror(errno));
		goto out_free;
	}
	if (!S_ISREG(st.st_mode)) {
		err = ek_err(-EINVAL, "undo file '%s' is not a regular file", path);
		goto out_free;
	}
	if (st.st_size == 0) {	/* new, or empty: started afresh */
		if ((err = undo_start(u, io)))
			goto out_free;
		*out = u;
		return 0;
	}
	/* as e2fsprogs' undo manager: go on with it if it is this filesystem's */
	if ((uint64_t)st.st_size < sizeof(raw)) {
		err = ek_corrupt_fs("%lld bytes, shorter than a header", (long long)st.st_size);
		goto out_corrupt;
	}
	if ((err = pread_full(u->fd, raw, sizeof(raw), 0)) ||
	    (err = ek_undo_hdr_decode(raw, false, &h)))
		goto out_corrupt;
	if (h.block_size % h.fs_block_size || h.fs_offset != ek_io_offset(io)) {
		err = ek_err(-EINVAL, "undo file '%s' has %u-byte blocks of %u and offset %llu: "
			     "it cannot go on for this target", path, h.block_size,
			     h.fs_block_size, (unsigned long long)h.fs_offset);
		goto out_free;
	}
	if (h.block_size != u->bs) {
		uint8_t *kb = realloc(u->keyb, h.block_size), *b;

		if (kb)
			u->keyb = kb;
		b = kb ? realloc(u->buf, h.block_size) : NULL;
		if (!b) {
			err = -ENOMEM;
			goto out_free;
		}
		u->buf = b;
		u->bs = h.block_size;
	}
	u->ratio = h.block_size / h.fs_block_size;
	u->hdr = h;
	u->hdr.state &= ~(uint32_t)E2UNDO_STATE_FINISHED;
	/* the superblock it recorded must be the device's now (e2undo checks the same) */
	if ((err = pread_full(u->fd, u->buf, SB_SIZE, h.super_offset * h.block_size)))
		goto out_corrupt;
	flip_magic(u->buf);
	if ((err = ek_io_pread(u->src, sb, SB_SIZE, SB_OFF)))
		goto out_free;
	if (memcmp(sb, u->buf, SB_SIZE) || ek_crc32c(~0u, u->buf, SB_SIZE) != h.sb_crc) {
		err = ek_err(-EINVAL, "undo file '%s' belongs to another filesystem, or this one "
			     "changed since it was written: give another file", path);
		goto out_free;
	}
	if ((err = resume_keys(u, (uint64_t)st.st_size)))
		goto out_corrupt;
	*out = u;
	return 0;
out_corrupt:
	err = ek_err(err == -ENOMEM ? err : -EK_CORRUPT, "undo file '%s' is damaged or not an "
		     "undo file: %s", path, ek_error_msg(err));
out_free:
	undo_free(u);
	return err;
}

/* save undo block @n (not saved yet): its bytes, then its key */
static int save_block(struct ek_undo *u, uint64_t n)
{
	uint64_t size = ek_io_size(u->src), at = n * u->bs;
	uint32_t len = size - at < u->bs ? (uint32_t)(size - at) : u->bs;
	struct e2undo_key_block *kb = (struct e2undo_key_block *)u->keyb;
	struct e2undo_key *k = u->in_keyb ? &kb->keys[u->in_keyb - 1] : NULL;
	uint32_t ksize = k ? le32_to_cpu(k->size) : 0;
	int err;

	err = ek_io_pread(u->src, u->buf, len, at);
	if (err)
		return err;
	memset(u->buf + len, 0, u->bs - len);
	/* grow the last key when this block follows it, in the device and the file */
	if (k && ksize % u->bs == 0 && le64_to_cpu(k->fsblk) / u->ratio + ksize / u->bs == n &&
	    ksize + len <= (uint64_t)E2UNDO_MAX_EXTENT * u->bs) {
		k->blk_crc = cpu_to_le32(ek_crc32c(le32_to_cpu(k->blk_crc), u->buf, len));
		k->size = cpu_to_le32(ksize + len);
	} else {
		if (u->in_keyb == ek_undo_keys_per_block(u->bs)) {
			/* full: the next key block goes after the last key's bytes */
			memset(u->keyb, 0, u->bs);
			u->in_keyb = 0;
			u->key_blk = u->next_blk++;
		}
		k = &kb->keys[u->in_keyb++];
		k->fsblk = cpu_to_le64(n * u->ratio);	/* in the header's fs_block_size */
		k->blk_crc = cpu_to_le32(ek_crc32c(~0u, u->buf, len));
		k->size = cpu_to_le32(len);
		u->hdr.num_keys++;
	}
	err = pwrite_full(u->fd, u->buf, u->bs, u->next_blk * u->bs);
	if (err)
		return undo_ioerr(u, err);
	u->next_blk++;
	ek_undo_keyblock_seal(u->keyb, u->bs);
	err = pwrite_full(u->fd, u->keyb, u->bs, u->key_blk * u->bs);
	return err ? undo_ioerr(u, err) : 0;
}

int ek_undo_save(struct ek_undo *u, uint64_t off, uint64_t len)
{
	uint64_t size = ek_io_size(u->src), first, last;
	bool any = false;
	int err;

	if (!len)
		return 0;
	if (u->failed)
		return ek_err(-EIO, "undo file '%s' is unusable after an earlier write error", u->path);
	if (off > size || len > size - off)
		return ek__error(-EIO, __FILE__, __LINE__, EK_AT_OFFSET, off,
				 "write of %llu bytes past the end of '%s' (%llu bytes)",
				 (unsigned long long)len, ek_io_path(u->src), (unsigned long long)size);
	first = off / u->bs;
	last = (off + len - 1) / u->bs;
	for (uint64_t n = first; n <= last; n++) {
		int r = ek_set_add(&u->saved, n + 1);

		if (r < 0)
			return r;
		if (r == 1)
			continue;	/* saved before: it holds the original already */
		err = save_block(u, n);
		if (err) {
			/* the header on disk still counts only complete keys */
			u->failed = true;
			return err;
		}
		any = true;
	}
	/* the header counts the new keys only now, after their bytes; then sync */
	err = any ? write_index(u) : 0;
	if (err)
		u->failed = true;
	return err;
}

int ek_undo_written(struct ek_undo *u, uint64_t off, uint64_t len)
{
	int err;

	if (u->failed || off >= SB_OFF + SB_SIZE || off + len <= SB_OFF)
		return 0;
	err = write_index(u);
	if (err)
		u->failed = true;
	return err;
}

int ek_undo_close(struct ek_undo *u)
{
	int err = 0;

	if (!u)
		return 0;
	/* after the test fault hook "the machine stopped", or a failed write to
	 * the undo file itself: no finishing touch */
	if (!ek__io_stopped() && !u->failed) {
		u->hdr.state |= E2UNDO_STATE_FINISHED;
		err = write_index(u);
	}
	undo_free(u);
	return err;
}

/* ---- reading -------------------------------------------------------------- */

struct rkey {
	uint64_t fsblk;
	uint64_t fileblk;	/* where its bytes start in the undo file */
	uint32_t crc, size;
	bool skip;		/* forced past: outside the file or the device */
};

struct undo_rd {
	const char *path;
	int fd;
	uint64_t fsize;		/* bytes in the undo file */
	struct ek_undo_hdr h;
	struct ek_io *io;
	struct rkey *keys;
	uint8_t *buf;		/* one undo block, or a chunk of a key's bytes */
	bool force;
	struct ek_undo_result *res;
	char prefix[128];	/* "undo file 'PATH': " for the codec's messages */
};

/* the recorded superblock against the image's: same filesystem, unchanged */
static int check_super(struct undo_rd *r)
{
	uint8_t copy[SB_SIZE], cur[SB_SIZE];
	const struct ext4_super_block *c = (const void *)copy, *s = (const void *)cur;
	uint64_t at = r->h.super_offset * r->h.block_size;
	int err;

	if (r->h.super_offset > r->fsize / r->h.block_size || r->fsize < SB_SIZE ||
	    at > r->fsize - SB_SIZE)
		return ek_corrupt_fs("undo file '%s': its superblock copy (block %llu) is past its end",
				     r->path, (unsigned long long)r->h.super_offset);
	if (pread_full(r->fd, copy, SB_SIZE, at))
		return ek_err(-EIO, "cannot read undo file '%s'", r->path);
	flip_magic(copy);
	if (ek_crc32c(~0u, copy, SB_SIZE) != r->h.sb_crc) {
		if (!r->force)
			return ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
					 "undo file '%s': its superblock copy fails its checksum",
					 r->path);
		r->res->sb_crc_bad = true;
	}
	err = ek_io_pread(r->io, cur, SB_SIZE, SB_OFF);
	if (err)
		return err;
	if (!memcmp(copy, cur, SB_SIZE))
		return 0;
	r->res->sb_mismatch = true;
	r->res->other_fs = memcmp(c->s_uuid, s->s_uuid, sizeof(c->s_uuid)) ||
			   c->s_magic != s->s_magic;
	if (r->force)
		return 0;
	if (r->res->other_fs)
		return ek_err(-EINVAL, "undo file '%s' was made for another filesystem than '%s' "
			      "(its superblock's UUID differs)", r->path, ek_io_path(r->io));
	return ek_err(-EINVAL, "'%s' has changed since undo file '%s' was written "
		      "(superblock differs%s%s%s)", ek_io_path(r->io), r->path,
		      c->s_mtime != s->s_mtime ? ", last mount time" : "",
		      c->s_wtime != s->s_wtime ? ", last write time" : "",
		      c->s_kbytes_written != s->s_kbytes_written ? ", lifetime writes" : "");
}

/* crc32c(~0) of @len bytes at undo block @blk, read in chunks */
static int data_crc(struct undo_rd *r, uint64_t blk, uint32_t len, uint32_t *crc)
{
	uint64_t at = blk * r->h.block_size;

	*crc = ~0u;
	while (len) {
		uint32_t n = len < r->h.block_size ? len : r->h.block_size;

		if (pread_full(r->fd, r->buf, n, at))
			return ek_err(-EIO, "cannot read undo file '%s'", r->path);
		*crc = ek_crc32c(*crc, r->buf, n);
		at += n;
		len -= n;
	}
	return 0;
}

/* read every key block and check every key; nothing is written yet */
static int load_keys(struct undo_rd *r)
{
	uint32_t bs = r->h.block_size, kpb = ek_undo_keys_per_block(bs);
	uint64_t fblocks = r->fsize / bs, lblk = r->h.key_offset, i = 0;
	uint64_t isize = ek_io_size(r->io);
	uint8_t *kbuf = r->buf;
	int err;

	/* each key block holds kpb keys and takes a block: a bound from the file */
	if (r->h.num_keys > fblocks * kpb)
		return ek_corrupt_fs("undo file '%s': %llu keys cannot fit in its %llu blocks", r->path,
				     (unsigned long long)r->h.num_keys, (unsigned long long)fblocks);
	r->keys = ek_calloc(r->h.num_keys ? r->h.num_keys : 1, sizeof(*r->keys));
	if (!r->keys)
		return -ENOMEM;
	while (i < r->h.num_keys) {
		uint64_t max_j = r->h.num_keys - i < kpb ? r->h.num_keys - i : kpb;
		struct e2undo_key_block *kb = (struct e2undo_key_block *)kbuf;

		if (lblk >= fblocks) {
			if (!r->force)
				return ek_corrupt_fs("undo file '%s': key block %llu is past its end "
						     "(%llu of %llu keys read)", r->path,
						     (unsigned long long)lblk, (unsigned long long)i,
						     (unsigned long long)r->h.num_keys);
			r->res->skipped += r->h.num_keys - i;
			r->h.num_keys = i;
			break;
		}
		if (pread_full(r->fd, kbuf, bs, lblk * bs))
			return ek_err(-EIO, "cannot read undo file '%s'", r->path);
		err = ek_undo_keyblock_check(kbuf, bs, lblk);
		if (err) {
			if (!r->force)
				return ek_err_wrap(err, err, r->prefix);
			r->res->bad_keyblocks++;
		}
		lblk++;
		for (uint64_t j = 0; j < max_j; j++, i++) {
			struct rkey *k = &r->keys[i];
			const struct e2undo_key *d = &kb->keys[j];

			k->fsblk = le64_to_cpu(d->fsblk);
			k->crc = le32_to_cpu(d->blk_crc);
			k->size = le32_to_cpu(d->size);
			k->fileblk = lblk;
			/* as e2undo: a key longer than 512 blocks is refused, forced or not */
			if (k->size > (uint64_t)E2UNDO_MAX_EXTENT * bs)
				return ek_corrupt_fs("undo file '%s': key %llu saves %u bytes, more than "
						  "%u blocks", r->path, (unsigned long long)i, k->size,
						  E2UNDO_MAX_EXTENT);
			lblk += (k->size + (uint64_t)bs - 1) / bs;
			if (k->fileblk > fblocks || (uint64_t)k->size > r->fsize - k->fileblk * bs) {
				if (!r->force)
					return ek_corrupt_fs("undo file '%s': the bytes of key %llu "
							  "are past its end", r->path,
							  (unsigned long long)i);
				k->skip = true;
				r->res->skipped++;
				continue;
			}
			if (k->fsblk > isize / r->h.fs_block_size ||
			    k->size > isize - k->fsblk * r->h.fs_block_size) {
				if (!r->force)
					return ek_corrupt_fs("undo file '%s': key %llu restores "
							  "block %llu, past the end of '%s'", r->path,
							  (unsigned long long)i,
							  (unsigned long long)k->fsblk, ek_io_path(r->io));
				k->skip = true;
				r->res->skipped++;
				continue;
			}
		}
		if (max_j < kpb)
			break;
	}
	/* the saved bytes against their checksums (the key blocks are in r->buf: done) */
	for (uint64_t n = 0; n < r->h.num_keys; n++) {
		struct rkey *k = &r->keys[n];
		uint32_t crc;

		if (k->skip)
			continue;
		err = data_crc(r, k->fileblk, k->size, &crc);
		if (err)
			return err;
		if (crc == k->crc)
			continue;
		if (!r->force)
			return ek__error(-EK_BADCRC, __FILE__, __LINE__, EK_AT_NONE, 0,
					 "undo file '%s': the saved bytes of key %llu (undo block %llu, "
					 "for block %llu) fail their checksum", r->path,
					 (unsigned long long)n, (unsigned long long)k->fileblk,
					 (unsigned long long)k->fsblk);
		r->res->bad_data++;
	}
	return 0;
}

static int restore(struct undo_rd *r)
{
	for (uint64_t n = r->h.num_keys; n-- > 0;) {
		const struct rkey *k = &r->keys[n];
		uint64_t from = k->fileblk * r->h.block_size, to = k->fsblk * r->h.fs_block_size;
		uint32_t left = k->size;
		int err;

		if (k->skip)
			continue;
		while (left) {
			uint32_t c = left < r->h.block_size ? left : r->h.block_size;

			if (pread_full(r->fd, r->buf, c, from))
				return ek_err(-EIO, "cannot read undo file '%s'", r->path);
			err = ek_io_pwrite(r->io, r->buf, c, to);
			if (err)
				return err;
			from += c;
			to += c;
			left -= c;
		}
		r->res->keys++;
		r->res->bytes += k->size;
	}
	return ek_io_sync(r->io);
}

/* as e2undo after an unfinished file or a forced check: the fs wants a check */
static int mark_for_check(struct undo_rd *r)
{
	uint8_t raw[SB_SIZE];
	struct ext4_super_block *sb = (struct ext4_super_block *)raw;
	uint16_t state;
	int err = ek_io_pread(r->io, raw, SB_SIZE, SB_OFF);

	if (err)
		return err;
	if (le16_to_cpu(sb->s_magic) != EXT4_SUPER_MAGIC) {
		r->res->not_marked = true;
		return 0;
	}
	state = le16_to_cpu(sb->s_state) & ~EXT4_VALID_FS;
	if (r->res->bad_data || r->res->skipped)
		state |= EXT4_ERROR_FS;
	r->res->marked = true;
	if (state == le16_to_cpu(sb->s_state))
		return 0;	/* already marked: the bytes stay as restored */
	sb->s_state = cpu_to_le16(state);
	if (le32_to_cpu(sb->s_feature_ro_compat) & EXT4_FEATURE_RO_COMPAT_METADATA_CSUM)
		sb->s_checksum = cpu_to_le32(ek_super_csum(sb));
	err = ek_io_pwrite(r->io, raw, SB_SIZE, SB_OFF);
	return err ? err : ek_io_sync(r->io);
}

int ek_undo_apply(const char *undo_path, const char *image, unsigned flags,
		  struct ek_undo_result *out)
{
	struct undo_rd r = { .path = undo_path, .fd = -1, .force = flags & EK_UNDO_FORCE,
			     .res = out };
	uint8_t hdr[sizeof(struct e2undo_header)];
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	r.fd = open(undo_path, O_RDONLY | O_CLOEXEC);
	if (r.fd < 0)
		return ek_err(-errno, "cannot open undo file '%s': %s", undo_path, strerror(errno));
	if (fstat(r.fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		err = ek_err(-EINVAL, "undo file '%s' is not a regular file", undo_path);
		goto out;
	}
	r.fsize = st.st_size;
	if (pread_full(r.fd, hdr, sizeof(hdr), 0)) {
		err = ek_corrupt_fs("undo file '%s' is too short for a header", undo_path);
		goto out;
	}
	snprintf(r.prefix, sizeof(r.prefix), "undo file '%s': ", undo_path);
	err = ek_undo_hdr_decode(hdr, r.force, &r.h);
	if (err) {
		err = ek_err_wrap(err, err, r.prefix);
		goto out;
	}
	out->hdr = r.h;
	out->finished = r.h.state & E2UNDO_STATE_FINISHED;
	r.buf = ek_malloc(r.h.block_size);
	if (!r.buf) {
		err = -ENOMEM;
		goto out;
	}
	err = ek_io_open(image, EK_IO_RW, r.h.fs_offset, &r.io);
	if (err)
		goto out;
	err = check_super(&r);
	if (!err)
		err = load_keys(&r);
	if (!err)
		err = restore(&r);
	if (!err && (!out->finished || r.h.crc_bad || r.h.unknown_features || out->sb_mismatch ||
		     out->sb_crc_bad || out->bad_keyblocks || out->bad_data || out->skipped))
		err = mark_for_check(&r);
out:
	ek_io_close(r.io);
	free(r.keys);
	free(r.buf);
	close(r.fd);
	return err;
}
